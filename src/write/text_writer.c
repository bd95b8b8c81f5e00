/*
 * text_writer.c - one staged text file per table, shared by the CSV and
 * JSON Lines writers (write/text_writer.h).
 *
 * Rows are spelt into one buffer and written out in large pieces with
 * write(2), so the file's size is always known: a rank's rows are taken back
 * by cutting every file back to where it ended at the last keep_rank.
 */
#include "write/text_writer.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/mem.h"
#include "trace/parse.h"
#include "write/stage.h"

#define FLUSH_AT (1u << 20) /* bytes spelt before they are written out */
#define REALS_BITS 11        /* 2048 recent reals, 80 KiB */

/* A real's bits and its spelling (len 0: empty slot; every spelling has at least 3 bytes). */
struct opmfu_text_reals {
	struct {
		uint64_t bits;
		unsigned char len;
		char text[31];
	} slot[1u << REALS_BITS];
};

/* One table's file. */
struct tfile {
	const struct opmfu_table_def *def;
	char *path; /* DIR/<Table><ext> */
	char *tmp;  /* the staged file; NULL once renamed (or never made) */
	int fd;     /* open on tmp until commit; -1 */
	off_t size; /* bytes written */
	off_t mark; /* size at the last keep_rank: what the earlier ranks wrote */
};

struct text_writer {
	struct opmfu_writer base;
	const struct opmfu_text_format *fmt;
	struct tfile *f; /* by def */
	size_t n;
	struct sbuf buf;          /* spelt, not yet written */
	struct opmfu_cell *cells; /* one row of the widest table */
	struct opmfu_text_reals *reals;
	struct opmfu_write_stats st; /* the rank's so far */
};

static enum opmfu_status nomem(const char *path, struct opmfu_err *err)
{
	return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory writing it", path);
}

/* Writes out what buf holds into f. */
static enum opmfu_status flush(struct text_writer *o, struct tfile *f, struct opmfu_err *err)
{
	const char *p = o->buf.buf;
	size_t left = o->buf.len;

	if (o->buf.oom) {
		sbuf_reset(&o->buf);
		o->buf.oom = 0;
		return nomem(f->path, err);
	}
	while (left > 0) {
		ssize_t k = write(f->fd, p, left);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			int e = k < 0 ? errno : ENOSPC;
			sbuf_reset(&o->buf);
			return opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot write: %s", f->path, strerror(e));
		}
		p += k;
		left -= (size_t)k;
		f->size += k;
	}
	sbuf_reset(&o->buf);
	return OPMFU_OK;
}

void opmfu_text_close(struct opmfu_writer *w)
{
	struct text_writer *o = (struct text_writer *)w;
	size_t k;

	if (!o)
		return;
	for (k = 0; o->f && k < o->n; k++) {
		struct tfile *f = &o->f[k];
		if (f->fd >= 0)
			close(f->fd);
		opmfu_stage_discard(f->tmp);
		opmfu_free(f->tmp);
		opmfu_free(f->path);
	}
	sbuf_release(&o->buf);
	opmfu_free(o->f);
	opmfu_free(o->cells);
	opmfu_free(o->reals);
	opmfu_free(o);
}

/* Stages f's file and writes its head. */
static enum opmfu_status start_file(struct text_writer *o, struct tfile *f, const char *dir, struct opmfu_err *err)
{
	struct sbuf path;
	enum opmfu_status st;

	sbuf_init(&path);
	sbuf_addf(&path, "%s/%s%s", dir, f->def->name, o->fmt->ext);
	if (!(f->path = sbuf_detach(&path)))
		return nomem(dir, err);
	if ((st = opmfu_stage_file(f->path, &f->tmp, &f->fd, err)))
		return st;
	if (o->fmt->head)
		o->fmt->head(f->def, &o->buf);
	if ((st = flush(o, f, err)))
		return st;
	f->mark = f->size;
	return OPMFU_OK;
}

enum opmfu_status opmfu_text_open(struct opmfu_writer **out, const struct opmfu_writer_type *type,
				  const struct opmfu_text_format *fmt, const char *dir,
				  const struct opmfu_table_def *const *defs, size_t n_defs, struct opmfu_err *err)
{
	struct text_writer *o = opmfu_calloc(1, sizeof(*o));
	enum opmfu_status st = OPMFU_OK;
	size_t k, widest = 1;

	*out = NULL;
	if (!o)
		return nomem(dir, err);
	o->base.type = type;
	o->fmt = fmt;
	sbuf_init(&o->buf);
	for (k = 0; k < n_defs; k++)
		widest = defs[k]->n_cols > widest ? defs[k]->n_cols : widest;
	if (!(o->f = opmfu_calloc(n_defs ? n_defs : 1, sizeof(*o->f))) ||
	    !(o->cells = opmfu_calloc(widest, sizeof(*o->cells))) || !(o->reals = opmfu_calloc(1, sizeof(*o->reals)))) {
		opmfu_text_close(&o->base);
		return nomem(dir, err);
	}
	for (k = 0; k < n_defs; k++) {
		o->f[k].def = defs[k];
		o->f[k].fd = -1;
	}
	o->n = n_defs;
	/* what an interrupted earlier run left here goes first */
	opmfu_stage_sweep(dir);
	for (k = 0; k < n_defs && st == OPMFU_OK; k++)
		st = start_file(o, &o->f[k], dir, err);
	if (st) {
		opmfu_text_close(&o->base);
		return st;
	}
	*out = &o->base;
	return OPMFU_OK;
}

void opmfu_text_set_format(struct opmfu_writer *w, const struct opmfu_text_format *fmt)
{
	((struct text_writer *)w)->fmt = fmt;
}

enum opmfu_status opmfu_text_put(struct opmfu_writer *w, int rank, const struct opmfu_table *t,
				 struct opmfu_err *err)
{
	struct text_writer *o = (struct text_writer *)w;
	struct tfile *f = NULL;
	enum opmfu_status st;
	size_t i;

	(void)rank;
	for (i = 0; i < o->n && !f; i++)
		if (o->f[i].def == t->def)
			f = &o->f[i];
	if (!f)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "table %s was not opened", t->def->name);
	for (i = 0; i < t->n_rows; i++) {
		t->row(t->src, i, o->cells);
		o->fmt->row(t->def, o->cells, &o->buf, o->reals, &o->st);
		if ((o->buf.len >= FLUSH_AT || o->buf.oom) && (st = flush(o, f, err)))
			return st;
	}
	return flush(o, f, err);
}

enum opmfu_status opmfu_text_keep_rank(struct opmfu_writer *w, int rank, struct opmfu_write_stats *st,
				       struct opmfu_err *err)
{
	struct text_writer *o = (struct text_writer *)w;
	size_t k;

	(void)rank;
	(void)err;
	for (k = 0; k < o->n; k++)
		o->f[k].mark = o->f[k].size;
	*st = o->st;
	memset(&o->st, 0, sizeof(o->st));
	return OPMFU_OK;
}

enum opmfu_status opmfu_text_drop_rank(struct opmfu_writer *w, int rank, struct opmfu_err *err)
{
	struct text_writer *o = (struct text_writer *)w;
	size_t k;

	(void)rank;
	memset(&o->st, 0, sizeof(o->st));
	for (k = 0; k < o->n; k++) {
		struct tfile *f = &o->f[k];
		if (f->size == f->mark)
			continue;
		if (ftruncate(f->fd, f->mark) != 0 || lseek(f->fd, f->mark, SEEK_SET) != f->mark)
			return opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot take back a failed rank's rows: %s", f->path,
					     strerror(errno));
		f->size = f->mark;
	}
	return OPMFU_OK;
}

/* The files of the tables the run retires (writer.h), beside the others. */
static enum opmfu_status remove_retired(struct text_writer *o, struct opmfu_err *err)
{
	const char *slash = o->n ? strrchr(o->f[0].path, '/') : NULL;
	struct sbuf path;
	size_t k;

	if (!slash)
		return OPMFU_OK;
	sbuf_init(&path);
	for (k = 0; k < o->base.n_retired; k++) {
		sbuf_reset(&path);
		sbuf_addf(&path, "%.*s/%s%s", (int)(slash - o->f[0].path), o->f[0].path, o->base.retired[k]->name,
			  o->fmt->ext);
		if (path.oom) {
			sbuf_release(&path);
			return nomem(o->f[0].path, err);
		}
		if (unlink(path.buf) != 0 && errno != ENOENT) {
			opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot remove the previous run's: %s", path.buf,
				      strerror(errno));
			sbuf_release(&path);
			return OPMFU_ERR_IO;
		}
	}
	sbuf_release(&path);
	return OPMFU_OK;
}

/* On disk before the renames, so a crash cannot leave an empty file in
 * place of the previous one. Files are renamed one by one: a failure
 * half-way leaves the earlier tables new and the later ones as they were. */
enum opmfu_status opmfu_text_commit(struct opmfu_writer *w, struct opmfu_err *err)
{
	struct text_writer *o = (struct text_writer *)w;
	size_t k;

	for (k = 0; k < o->n; k++) {
		struct tfile *f = &o->f[k];
		int bad = fsync(f->fd);
		if (close(f->fd) != 0)
			bad = -1;
		f->fd = -1;
		if (bad)
			return opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot write: %s", f->path, strerror(errno));
	}
	for (k = 0; k < o->n; k++) {
		struct tfile *f = &o->f[k];
		if (opmfu_stage_rename(f->tmp, f->path) != 0)
			return opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot replace it: %s", f->path, strerror(errno));
		opmfu_free(f->tmp);
		f->tmp = NULL;
	}
	return remove_retired(o, err);
}

void opmfu_text_int(struct sbuf *out, int64_t v)
{
	char buf[24], *p = buf + sizeof(buf);
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	sbuf_add(out, p, (size_t)(buf + sizeof(buf) - p));
}

void opmfu_text_real(struct sbuf *out, struct opmfu_text_reals *reals, double x)
{
	char buf[32];
	uint64_t bits;
	int n;

	memcpy(&bits, &x, sizeof(bits));
	if (reals) {
		/* Fibonacci hashing: the top bits of bits x 2^64/phi */
		size_t i = (size_t)((bits * 0x9E3779B97F4A7C15u) >> (64 - REALS_BITS));
		if (reals->slot[i].len && reals->slot[i].bits == bits) {
			sbuf_add(out, reals->slot[i].text, reals->slot[i].len);
			return;
		}
		n = opmfu_format_pyfloat(x, buf);
		reals->slot[i].bits = bits;
		reals->slot[i].len = (unsigned char)n;
		memcpy(reals->slot[i].text, buf, (size_t)n);
		sbuf_add(out, buf, (size_t)n);
		return;
	}
	n = opmfu_format_pyfloat(x, buf);
	sbuf_add(out, buf, (size_t)n);
}
