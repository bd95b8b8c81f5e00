/*
 * discover.c - finding ranks on disk for every reader at once (SPEC 1.1, 13):
 * the walk, duplicate rank ids, order and --rank-list selection. What a
 * rank looks like is each reader's business (its probes).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/lbound.h"
#include "base/mem.h"
#include "base/sbuf.h"
#include "base/sort.h"
#include "read/dirwalk.h"
#include "read/reader.h"

struct walk {
	const struct opmfu_reader *const *readers;
	const char *out_hint; /* the path the user gave */
	struct opmfu_visit seen;
	struct opmfu_rank_list *list;
	opmfu_warn_fn warn;
	void *ctx;
	struct opmfu_err *err;
};

static void warnf(const struct walk *w, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
static void warnf(const struct walk *w, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;
	if (!w->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	w->warn(w->ctx, msg);
}

void opmfu_rank_input_release(struct opmfu_rank_input *in)
{
	opmfu_free(in->dir);
	opmfu_free(in->path);
	opmfu_free(in->stamp);
	opmfu_free(in->out_hint);
	memset(in, 0, sizeof(*in));
}

/* >0 if stamp a is newer than b by SPEC 1.1: digits compare as numbers, and
 * a rank with a stamp is newer than one without. */
static int newer(const char *a, const char *b)
{
	size_t la, lb;
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	while (a[0] == '0' && a[1])
		a++;
	while (b[0] == '0' && b[1])
		b++;
	la = strlen(a);
	lb = strlen(b);
	if (la != lb)
		return la > lb ? 1 : -1;
	return memcmp(a, b, la) > 0 ? 1 : (memcmp(a, b, la) < 0 ? -1 : 0);
}

/* Adds a rank, or resolves a duplicate id by stamp. Takes ownership of in. */
static enum opmfu_status add_rank(struct walk *w, struct opmfu_rank_input in)
{
	struct opmfu_rank_list *list = w->list;
	size_t i;
	int cmp;
	for (i = 0; i < list->n; i++) {
		struct opmfu_rank_input *o = &list->v[i];
		if (o->rank != in.rank)
			continue;
		if (!strcmp(o->path, in.path)) {
			opmfu_rank_input_release(&in);
			return OPMFU_OK;
		}
		cmp = newer(in.stamp, o->stamp);
		if (cmp > 0) {
			warnf(w, "rank %d found twice: using %s (newer timestamp), ignoring %s", in.rank, in.name,
			      o->name);
			opmfu_rank_input_release(o);
			*o = in;
		} else {
			warnf(w, "rank %d found twice: using %s (%s), ignoring %s", in.rank, o->name,
			      cmp < 0 ? "newer timestamp" : "same or no timestamp: the first found", in.name);
			opmfu_rank_input_release(&in);
		}
		return OPMFU_OK;
	}
	if (OPMFU_GROW(list->v, list->cap, list->n + 1)) {
		opmfu_rank_input_release(&in);
		return opmfu_err_set(w->err, OPMFU_ERR_NOMEM, "out of memory listing ranks");
	}
	list->v[list->n++] = in;
	return OPMFU_OK;
}

/* The best answer of every reader for a directory (is_dir) or a file: YES
 * beats MAYBE, and among equals the reader asked first. */
static enum opmfu_probe probe(const struct opmfu_reader *const *readers, const char *path, int is_dir, int named,
			      struct opmfu_rank_input *best)
{
	enum opmfu_probe got = OPMFU_PROBE_NO;
	const struct opmfu_reader *const *r;

	memset(best, 0, sizeof(*best));
	for (r = readers; *r && got != OPMFU_PROBE_YES; r++) {
		struct opmfu_rank_input in;
		enum opmfu_probe p;
		if (is_dir ? !(*r)->probe_dir : !(*r)->probe_file)
			continue;
		memset(&in, 0, sizeof(in));
		p = is_dir ? (*r)->probe_dir(path, &in) : (*r)->probe_file(path, named, &in);
		if (p == OPMFU_PROBE_NOMEM) {
			opmfu_rank_input_release(best);
			return p;
		}
		if (p > got) {
			opmfu_rank_input_release(best);
			*best = in;
			best->reader = *r;
			if (!best->name)
				best->name = best->dir ? best->dir : best->path;
			got = p;
		} else if (p != OPMFU_PROBE_NO) {
			opmfu_rank_input_release(&in);
		}
	}
	return got;
}

/* Takes a found rank into the list, results going to out_hint by default. */
static enum opmfu_status take(struct walk *w, struct opmfu_rank_input in, const char *out_hint)
{
	in.out_hint = opmfu_strdup(out_hint);
	if (!in.out_hint) {
		opmfu_rank_input_release(&in);
		return opmfu_err_set(w->err, OPMFU_ERR_NOMEM, "out of memory listing ranks");
	}
	return add_rank(w, in);
}

static enum opmfu_status walk_entries(struct walk *w, const char *dir, int depth, char **names, long n);

static enum opmfu_status walk(struct walk *w, const char *dir, int depth)
{
	struct stat st;
	struct opmfu_rank_input in;
	enum opmfu_probe p;
	char **names = NULL;
	long n;
	enum opmfu_status status;

	if (stat(dir, &st) != 0)
		return OPMFU_OK;
	if (opmfu_visit_seen(&w->seen, &st)) {
		warnf(w, "%s: directory loop (symbolic link back to an ancestor), skipped", dir);
		return OPMFU_OK;
	}
	p = probe(w->readers, dir, 1, 0, &in);
	if (p == OPMFU_PROBE_NOMEM)
		return opmfu_err_set(w->err, OPMFU_ERR_NOMEM, "out of memory listing %s", dir);
	if (p != OPMFU_PROBE_NO)
		return take(w, in, w->out_hint);
	if (depth >= OPMFU_RANK_DEPTH)
		return OPMFU_OK;
	n = opmfu_dir_names(dir, &names);
	if (n < 0 && errno == ENOMEM)
		return opmfu_err_set(w->err, OPMFU_ERR_NOMEM, "out of memory listing %s", dir);
	if (n < 0) {
		if (depth == 0)
			return opmfu_err_set(w->err, OPMFU_ERR_IO, "%s: cannot read directory: %s", dir,
					     strerror(errno));
		warnf(w, "%s: cannot read directory: %s; skipped", dir, strerror(errno));
		return OPMFU_OK;
	}
	opmfu_visit_push(&w->seen, &st);
	status = walk_entries(w, dir, depth, names, n);
	w->seen.n--;
	opmfu_dir_names_free(names, n);
	return status;
}

/* Directories are walked and files offered to the readers, in name order. */
static enum opmfu_status walk_entries(struct walk *w, const char *dir, int depth, char **names, long n)
{
	enum opmfu_status status = OPMFU_OK;
	long i;

	for (i = 0; i < n && status == OPMFU_OK; i++) {
		char *sub = opmfu_path_join(dir, names[i]);
		if (!sub)
			return opmfu_err_set(w->err, OPMFU_ERR_NOMEM, "out of memory listing ranks");
		if (opmfu_is_dir(sub)) {
			status = walk(w, sub, depth + 1);
		} else {
			struct opmfu_rank_input in;
			enum opmfu_probe p = probe(w->readers, sub, 0, 0, &in);
			if (p == OPMFU_PROBE_NOMEM)
				status = opmfu_err_set(w->err, OPMFU_ERR_NOMEM, "out of memory listing %s", dir);
			else if (p != OPMFU_PROBE_NO)
				status = take(w, in, w->out_hint);
		}
		opmfu_free(sub);
	}
	return status;
}

enum opmfu_status opmfu_find_ranks(const char *path, const struct opmfu_reader *const *readers,
				   struct opmfu_rank_list *list, opmfu_warn_fn warn, void *ctx,
				   struct opmfu_err *err)
{
	struct stat st;
	char clean[4096];
	size_t n = strlen(path);
	struct walk w;

	if (n >= sizeof(clean))
		return opmfu_err_set(err, OPMFU_ERR_IO, "%.200s...: path too long", path);
	memcpy(clean, path, n + 1);
	while (n > 1 && clean[n - 1] == '/')
		clean[--n] = '\0';
	if (stat(clean, &st) != 0)
		return opmfu_err_set(err, OPMFU_ERR_IO, "%s: %s", clean, strerror(errno));
	memset(&w, 0, sizeof(w));
	w.readers = readers ? readers : opmfu_readers();
	w.out_hint = clean;
	w.list = list;
	w.warn = warn;
	w.ctx = ctx;
	w.err = err;
	if (S_ISDIR(st.st_mode))
		return walk(&w, clean, 0);
	{
		/* a file the user named: results go to the rank's folder */
		struct opmfu_rank_input in;
		enum opmfu_probe p = probe(w.readers, clean, 0, 1, &in);
		if (p == OPMFU_PROBE_NOMEM)
			return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory listing ranks");
		if (p == OPMFU_PROBE_NO)
			return OPMFU_OK;
		return take(&w, in, in.dir ? in.dir : clean);
	}
}

/* "A or B": what the readers look for, for the message when nothing is found. */
static void looked_for(const struct opmfu_reader *const *readers, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	for (; *readers; readers++) {
		int k = snprintf(buf + len, size - len, "%s%s", len ? " or " : "", (*readers)->looks_for);
		if (k < 0 || (size_t)k >= size - len)
			return;
		len += (size_t)k;
	}
}

enum opmfu_status opmfu_discover(const char *const *paths, size_t n_paths,
				 const struct opmfu_reader *const *readers, struct opmfu_rank_list *list,
				 opmfu_warn_fn warn, void *ctx, struct opmfu_err *err)
{
	enum opmfu_status st;
	size_t i;

	if (!readers)
		readers = opmfu_readers();
	for (i = 0; i < n_paths; i++) {
		size_t before = list->n;
		char what[512];
		if ((st = opmfu_find_ranks(paths[i], readers, list, warn, ctx, err)))
			return st;
		if (list->n == before) {
			looked_for(readers, what, sizeof(what));
			return opmfu_err_set(err, OPMFU_ERR_NOINPUT, "%s: no rank found (looked for %s up to %d levels below)",
					     paths[i], what, OPMFU_RANK_DEPTH);
		}
	}
	if (opmfu_rank_list_sort(list))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory sorting %zu ranks", list->n);
	return OPMFU_OK;
}

static int less_rank(const void *a, const void *b)
{
	return ((const struct opmfu_rank_input *)a)->rank < ((const struct opmfu_rank_input *)b)->rank;
}

int opmfu_rank_list_sort(struct opmfu_rank_list *list)
{
	return opmfu_sort_array(list->v, list->n, sizeof(*list->v), less_rank);
}

static int rank_before(const void *ctx, size_t i, const void *key)
{
	return ((const struct opmfu_rank_input *)ctx)[i].rank < *(const int *)key;
}

/* Index of rank in the sorted list, or list->n. */
static size_t find_rank(const struct opmfu_rank_list *list, int rank)
{
	size_t lo = opmfu_lbound(0, list->n, rank_before, list->v, &rank);
	return lo < list->n && list->v[lo].rank == rank ? lo : list->n;
}

enum opmfu_status opmfu_rank_list_select(struct opmfu_rank_list *list, const int *ranks, size_t n_ranks,
					 struct opmfu_err *err)
{
	unsigned char *keep;
	size_t i, k = 0;

	for (i = 0; i < n_ranks; i++)
		if (find_rank(list, ranks[i]) == list->n)
			return opmfu_err_set(err, OPMFU_ERR_USAGE, "rank %d is not in the input (found %zu rank%s)",
					     ranks[i], list->n, list->n == 1 ? "" : "s");
	keep = opmfu_calloc(list->n, 1);
	if (!keep)
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory selecting ranks");
	for (i = 0; i < n_ranks; i++)
		keep[find_rank(list, ranks[i])] = 1;
	for (i = 0; i < list->n; i++) {
		if (keep[i])
			list->v[k++] = list->v[i];
		else
			opmfu_rank_input_release(&list->v[i]);
	}
	list->n = k;
	opmfu_free(keep);
	return OPMFU_OK;
}

void opmfu_rank_list_release(struct opmfu_rank_list *list)
{
	size_t i;
	for (i = 0; i < list->n; i++)
		opmfu_rank_input_release(&list->v[i]);
	opmfu_free(list->v);
	list->v = NULL;
	list->n = list->cap = 0;
}
