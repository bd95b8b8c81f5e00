/*
 * discover.c - finding ranks on disk for every reader at once (SPEC 1.1, 13):
 * the walk, runs and their IDs (SPEC 17: a result is one run), duplicate
 * rank ids within a run, order, --run and --rank-list selection. What a
 * rank looks like, and which run it is of, is each reader's business (its
 * probes).
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

/* Directories the walk did not enter (SPEC 26), told in one warning each
 * per run: symbolic links leaving the path given, and /proc or /sys. */
struct skipped {
	size_t n_out, n_sys;
	char out_ex[1024], sys_ex[1024]; /* the first of each */
};

struct walk {
	const struct opmfu_reader *const *readers;
	const char *out_hint; /* the path the user gave */
	const char *root_real; /* its real path */
	int follow;            /* OPMFU_DISCOVER_FOLLOW_LINKS */
	struct skipped *skipped;
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

int opmfu_rank_set_run(struct opmfu_rank_input *in, struct sbuf *key, struct sbuf *name)
{
	in->run_key = sbuf_detach(key);
	in->run_name = sbuf_detach(name);
	sbuf_release(key);
	sbuf_release(name);
	if (in->run_key && in->run_name)
		return 0;
	opmfu_free(in->run_key);
	opmfu_free(in->run_name);
	in->run_key = in->run_name = NULL;
	return -1;
}

void opmfu_rank_input_release(struct opmfu_rank_input *in)
{
	opmfu_free(in->dir);
	opmfu_free(in->path);
	opmfu_free(in->stamp);
	opmfu_free(in->out_hint);
	opmfu_free(in->run_key);
	opmfu_free(in->run_name);
	opmfu_free(in->run_id);
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

/* Whether a and b are one file: the same path, or reached through two. */
static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return !strcmp(a, b) ||
	       (stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino);
}

/* The order of runs, then ranks: by reader, run key, rank id. Every rank in
 * a list has a run key (take() sees to it). */
static int run_cmp(const struct opmfu_rank_input *a, const struct opmfu_rank_input *b)
{
	int c = strcmp(a->reader->name, b->reader->name);
	if (!c)
		c = strcmp(a->run_key, b->run_key);
	if (!c)
		c = (a->rank > b->rank) - (a->rank < b->rank);
	return c;
}

/* Whether a and b are ranks of one run. */
static int same_run(const struct opmfu_rank_input *a, const struct opmfu_rank_input *b)
{
	return a->reader == b->reader && !strcmp(a->run_key, b->run_key);
}

/* Adds a rank, or resolves a duplicate id within its run by stamp. Takes
 * ownership of in. */
static enum opmfu_status add_rank(struct walk *w, struct opmfu_rank_input in)
{
	struct opmfu_rank_list *list = w->list;
	size_t i;
	int cmp;
	for (i = 0; i < list->n; i++) {
		struct opmfu_rank_input *o = &list->v[i];
		if (o->rank != in.rank || !same_run(o, &in))
			continue;
		if (same_file(o->path, in.path)) {
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

/* A probe's rank as discovery keeps it: its reader, and a name for messages. */
static void claim(struct opmfu_rank_input *in, const struct opmfu_reader *r)
{
	in->reader = r;
	if (!in->name)
		in->name = in->dir ? in->dir : in->path;
}

/* The best answer of every reader for a directory (is_dir) or a file: YES
 * beats MAYBE, and among equals the reader asked first. A file holding
 * several ranks gives its first in best, the others in more (empty on
 * entry; emptied on NO and NOMEM). */
static enum opmfu_probe probe(const struct opmfu_reader *const *readers, const char *path, int is_dir, int named,
			      struct opmfu_rank_input *best, struct opmfu_rank_list *more)
{
	enum opmfu_probe got = OPMFU_PROBE_NO;
	const struct opmfu_reader *const *r;
	size_t i;

	memset(best, 0, sizeof(*best));
	for (r = readers; *r && got != OPMFU_PROBE_YES; r++) {
		struct opmfu_rank_input in;
		struct opmfu_rank_list m = { NULL, 0, 0 };
		enum opmfu_probe p;
		if (is_dir ? !(*r)->probe_dir : !(*r)->probe_file)
			continue;
		memset(&in, 0, sizeof(in));
		p = is_dir ? (*r)->probe_dir(path, &in) : (*r)->probe_file(path, named, &in, &m);
		if (p == OPMFU_PROBE_NOMEM) {
			opmfu_rank_list_release(&m);
			opmfu_rank_list_release(more);
			opmfu_rank_input_release(best);
			return p;
		}
		if (p > got) {
			opmfu_rank_input_release(best);
			opmfu_rank_list_release(more);
			*best = in;
			*more = m;
			claim(best, *r);
			for (i = 0; i < more->n; i++)
				claim(&more->v[i], *r);
			got = p;
		} else {
			if (p != OPMFU_PROBE_NO)
				opmfu_rank_input_release(&in);
			opmfu_rank_list_release(&m);
		}
	}
	return got;
}

/* Takes a found rank into the list, results going to out_hint by default. */
static enum opmfu_status take(struct walk *w, struct opmfu_rank_input in, const char *out_hint)
{
	in.out_hint = opmfu_strdup(out_hint);
	/* a reader that tells no runs apart has one run */
	if (!in.run_key)
		in.run_key = opmfu_strdup(in.reader->name);
	if (!in.out_hint || !in.run_key) {
		opmfu_rank_input_release(&in);
		return opmfu_err_set(w->err, OPMFU_ERR_NOMEM, "out of memory listing ranks");
	}
	return add_rank(w, in);
}

/* take() of a probe's first rank and of the others its file holds (more,
 * emptied). out_hint may be in's own: it is copied first. */
static enum opmfu_status take_all(struct walk *w, struct opmfu_rank_input in, struct opmfu_rank_list *more,
				  const char *out_hint)
{
	char *hint = opmfu_strdup(out_hint);
	enum opmfu_status st = OPMFU_OK;
	size_t i;

	if (!hint) {
		opmfu_rank_input_release(&in);
		st = opmfu_err_set(w->err, OPMFU_ERR_NOMEM, "out of memory listing ranks");
	} else {
		st = take(w, in, hint);
	}
	for (i = 0; i < more->n; i++) {
		if (st == OPMFU_OK)
			st = take(w, more->v[i], hint);
		else
			opmfu_rank_input_release(&more->v[i]);
	}
	more->n = 0;
	opmfu_rank_list_release(more);
	opmfu_free(hint);
	return st;
}

static enum opmfu_status walk_entries(struct walk *w, const char *dir, const char *real, int depth, char **names,
				      long n);

/* dir's real path is real. */
static enum opmfu_status walk(struct walk *w, const char *dir, const char *real, int depth)
{
	struct stat st;
	struct opmfu_rank_input in;
	struct opmfu_rank_list more = { NULL, 0, 0 };
	enum opmfu_probe p;
	char **names = NULL;
	long n;
	enum opmfu_status status;

	if (stat(dir, &st) != 0)
		return OPMFU_OK;
	if (opmfu_system_dir(real)) {
		if (!w->skipped->n_sys++)
			snprintf(w->skipped->sys_ex, sizeof(w->skipped->sys_ex), "%s", dir);
		return OPMFU_OK;
	}
	if (opmfu_visit_seen(&w->seen, &st)) {
		warnf(w, "%s: directory loop (symbolic link back to an ancestor), skipped", dir);
		return OPMFU_OK;
	}
	p = probe(w->readers, dir, 1, 0, &in, &more);
	if (p == OPMFU_PROBE_NOMEM)
		return opmfu_err_set(w->err, OPMFU_ERR_NOMEM, "out of memory listing %s", dir);
	if (p != OPMFU_PROBE_NO)
		return take_all(w, in, &more, w->out_hint);
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
	status = walk_entries(w, dir, real, depth, names, n);
	w->seen.n--;
	opmfu_dir_names_free(names, n);
	return status;
}

/* Whether some reader takes a file of that name. */
static int input_name(const struct walk *w, const char *base)
{
	const struct opmfu_reader *const *r;
	for (r = w->readers; *r; r++)
		if ((*r)->input_name && (*r)->input_name(base))
			return 1;
	return 0;
}

/* Walks the directory sub (the entry name of dir, real path dir_real),
 * unless it is a link leaving the tree or a system directory. */
static enum opmfu_status walk_sub(struct walk *w, const char *sub, const char *dir_real, const char *name,
				  int is_link, int depth)
{
	enum opmfu_status status;
	char *real = opmfu_entry_real(dir_real, sub, name, is_link);

	if (!real && errno == ENOMEM)
		return opmfu_err_set(w->err, OPMFU_ERR_NOMEM, "out of memory listing ranks");
	if (!real)
		return OPMFU_OK; /* vanished meanwhile */
	if (is_link && !w->follow && !opmfu_path_inside(real, w->root_real) && !opmfu_system_dir(real)) {
		if (!w->skipped->n_out++)
			snprintf(w->skipped->out_ex, sizeof(w->skipped->out_ex), "%s -> %s", sub, real);
		opmfu_free(real);
		return OPMFU_OK;
	}
	if (is_link && opmfu_system_dir(real)) {
		if (!w->skipped->n_sys++)
			snprintf(w->skipped->sys_ex, sizeof(w->skipped->sys_ex), "%s -> %s", sub, real);
		opmfu_free(real);
		return OPMFU_OK;
	}
	status = walk(w, sub, real, depth);
	opmfu_free(real);
	return status;
}

/* Directories are walked and regular files offered to the readers, in name
 * order; anything else (a FIFO would block the probe's open forever) is
 * skipped, with a warning when it is named as an input. */
static enum opmfu_status walk_entries(struct walk *w, const char *dir, const char *real, int depth, char **names,
				      long n)
{
	enum opmfu_status status = OPMFU_OK;
	long i;

	for (i = 0; i < n && status == OPMFU_OK; i++) {
		struct stat lst, st;
		char *sub = opmfu_path_join(dir, names[i]);
		if (!sub)
			return opmfu_err_set(w->err, OPMFU_ERR_NOMEM, "out of memory listing ranks");
		if (lstat(sub, &lst) != 0 || (S_ISLNK(lst.st_mode) ? stat(sub, &st) : (st = lst, 0)) != 0) {
			/* gone meanwhile, or a dangling link */
		} else if (S_ISDIR(st.st_mode)) {
			status = walk_sub(w, sub, real, names[i], S_ISLNK(lst.st_mode), depth + 1);
		} else if (!S_ISREG(st.st_mode)) {
			if (input_name(w, names[i]))
				warnf(w, "%s: not a regular file (%s): opmfu reads only regular files; skipped", sub,
				      opmfu_file_kind(st.st_mode));
		} else {
			struct opmfu_rank_input in;
			struct opmfu_rank_list more = { NULL, 0, 0 };
			enum opmfu_probe p = probe(w->readers, sub, 0, 0, &in, &more);
			if (p == OPMFU_PROBE_NOMEM)
				status = opmfu_err_set(w->err, OPMFU_ERR_NOMEM, "out of memory listing %s", dir);
			else if (p != OPMFU_PROBE_NO)
				status = take_all(w, in, &more, w->out_hint);
		}
		opmfu_free(sub);
	}
	return status;
}

static enum opmfu_status find_ranks(const char *path, const struct opmfu_reader *const *readers, unsigned flags,
				    struct opmfu_rank_list *list, opmfu_warn_fn warn, void *ctx, struct skipped *skipped,
				    struct opmfu_err *err)
{
	struct stat st;
	char clean[4096];
	size_t n = strlen(path);
	struct walk w;
	enum opmfu_status status;
	char *real;

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
	w.follow = (flags & OPMFU_DISCOVER_FOLLOW_LINKS) != 0;
	w.skipped = skipped;
	if (S_ISDIR(st.st_mode)) {
		/* the tree the walk keeps to: links in it are judged by their real paths */
		if (!(real = opmfu_entry_real(NULL, clean, NULL, 1)))
			return errno == ENOMEM ? opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory listing ranks")
					       : opmfu_err_set(err, OPMFU_ERR_IO, "%s: %s", clean, strerror(errno));
		w.root_real = real;
		status = walk(&w, clean, real, 0);
		opmfu_free(real);
		return status;
	}
	if (!S_ISREG(st.st_mode))
		return opmfu_err_set(err, OPMFU_ERR_IO, "%s: not a regular file (%s): opmfu reads only regular files",
				     clean, opmfu_file_kind(st.st_mode));
	{
		/* a file the user named: results go to the rank's folder */
		struct opmfu_rank_input in;
		struct opmfu_rank_list more = { NULL, 0, 0 };
		enum opmfu_probe p = probe(w.readers, clean, 0, 1, &in, &more);
		if (p == OPMFU_PROBE_NOMEM)
			return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory listing ranks");
		if (p == OPMFU_PROBE_NO)
			return OPMFU_OK;
		return take_all(&w, in, &more, in.dir ? in.dir : clean);
	}
}

/* The one warning for each kind of directory not walked. */
static void warn_skipped(const struct skipped *s, opmfu_warn_fn warn, void *ctx)
{
	char msg[2600];
	if (!warn)
		return;
	if (s->n_out) {
		snprintf(msg, sizeof(msg),
			 "%zu symbolic link%s to a directory outside the input not followed (%s%s); "
			 "--follow-symlinks follows them",
			 s->n_out, s->n_out == 1 ? "" : "s", s->n_out == 1 ? "" : "the first: ", s->out_ex);
		warn(ctx, msg);
	}
	if (s->n_sys) {
		snprintf(msg, sizeof(msg), "%zu director%s under /proc or /sys not walked (%s%s)", s->n_sys,
			 s->n_sys == 1 ? "y" : "ies", s->n_sys == 1 ? "" : "the first: ", s->sys_ex);
		warn(ctx, msg);
	}
}

enum opmfu_status opmfu_find_ranks(const char *path, const struct opmfu_reader *const *readers,
				   struct opmfu_rank_list *list, opmfu_warn_fn warn, void *ctx,
				   struct opmfu_err *err)
{
	struct skipped s;
	enum opmfu_status st;
	memset(&s, 0, sizeof(s));
	st = find_ranks(path, readers, 0, list, warn, ctx, &s, err);
	if (st == OPMFU_OK)
		warn_skipped(&s, warn, ctx);
	return st;
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

/* ---- several paths ----
 * Each path's ranks are found on their own (SPEC 1.1 within it), then merged
 * into the list: a rank id found under two paths is still one rank, by the
 * same rule. The same file reached through both is read once; otherwise the
 * newer timestamp wins, and on a tie the path given first. Each pair of
 * paths gets one warning per outcome, naming the rank ids, not one per rank.
 */

enum dup_kind {
	DUP_SAME,  /* the same files: read once */
	DUP_NEWER, /* kept the newer timestamp */
	DUP_FIRST, /* same or no timestamp: kept the path given first */
};

/* A rank id found under an earlier path and under the current one. */
struct dup {
	int rank;
	int kind;       /* enum dup_kind */
	size_t kept, dropped; /* path indexes */
};

struct merging {
	const char *const *paths;
	size_t *from; /* by list entry: the path it was found under */
	struct dup *dups;
	size_t n_dups, cap_dups;
	opmfu_warn_fn warn;
	void *ctx;
};

/* Keeps one of old (found under path j = *from) and new (under path i) of
 * the same rank id in *keep; notes the duplicate. */
static int resolve(struct merging *m, struct opmfu_rank_input *old, size_t *from, struct opmfu_rank_input *nw,
		   size_t i, struct opmfu_rank_input *keep)
{
	struct dup d = { old->rank, DUP_FIRST, *from, i };
	int cmp = newer(nw->stamp, old->stamp);

	if (same_file(old->path, nw->path))
		d.kind = DUP_SAME;
	else if (cmp != 0)
		d.kind = DUP_NEWER;
	if (d.kind == DUP_NEWER && cmp > 0) {
		d.kept = i;
		d.dropped = *from;
		*from = i;
		*keep = *nw;
		opmfu_rank_input_release(old);
	} else {
		*keep = *old;
		opmfu_rank_input_release(nw);
	}
	if (OPMFU_GROW(m->dups, m->cap_dups, m->n_dups + 1))
		return -1;
	m->dups[m->n_dups++] = d;
	return 0;
}

/* Merges one (path i's ranks, sorted by run) into list (sorted so), emptying one. */
static enum opmfu_status merge(struct merging *m, struct opmfu_rank_list *list, struct opmfu_rank_list *one, size_t i,
			       struct opmfu_err *err)
{
	size_t cap = list->n + one->n, a = 0, b = 0, n = 0;
	struct opmfu_rank_input *v = opmfu_calloc(cap ? cap : 1, sizeof(*v));
	size_t *from = opmfu_calloc(cap ? cap : 1, sizeof(*from));
	int oom = 0;

	if (!v || !from) {
		opmfu_free(v);
		opmfu_free(from);
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory listing ranks");
	}
	while (a < list->n || b < one->n) {
		int c = a == list->n ? 1 : b == one->n ? -1 : run_cmp(&list->v[a], &one->v[b]);
		if (c < 0) {
			from[n] = m->from[a];
			v[n++] = list->v[a++];
		} else if (c > 0) {
			from[n] = i;
			v[n++] = one->v[b++];
		} else {
			from[n] = m->from[a];
			oom |= resolve(m, &list->v[a++], &from[n], &one->v[b++], i, &v[n]);
			n++;
		}
	}
	opmfu_free(list->v);
	opmfu_free(m->from);
	list->v = v;
	list->n = n;
	list->cap = cap;
	m->from = from;
	one->n = 0;
	if (oom)
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory listing ranks");
	return OPMFU_OK;
}

static int dup_before(const void *a, const void *b)
{
	const struct dup *x = a, *y = b;
	if (x->kind != y->kind)
		return x->kind < y->kind;
	if (x->kept != y->kept)
		return x->kept < y->kept;
	if (x->dropped != y->dropped)
		return x->dropped < y->dropped;
	return x->rank < y->rank;
}

/* "rank 3" or "ranks 0-3, 7, 9" of d[0..n), at most about 40 items. */
static void rank_ids(const struct dup *d, size_t n, char *buf, size_t size)
{
	size_t k = 0, items = 0, len;
	len = (size_t)snprintf(buf, size, "rank%s ", n == 1 ? "" : "s");
	while (k < n && len < size) {
		size_t e = k;
		/* a run of consecutive ids (not through -1, the single card) */
		while (e + 1 < n && d[e].rank >= 0 && d[e + 1].rank == d[e].rank + 1)
			e++;
		if (++items > 40) {
			snprintf(buf + len, size - len, "and %zu more", n - k);
			return;
		}
		if (e == k)
			len += (size_t)snprintf(buf + len, size - len, "%s%d", k ? ", " : "", d[k].rank);
		else
			len += (size_t)snprintf(buf + len, size - len, "%s%d-%d", k ? ", " : "", d[k].rank, d[e].rank);
		k = e + 1;
	}
}

/* One warning per group of duplicates with the same outcome and paths. */
static void warn_dups(struct merging *m)
{
	static const char *const why[] = { "", "newer timestamp", "same or no timestamp: the first given" };
	char ids[1024], msg[4096];
	size_t k = 0, e;

	if (!m->warn || !m->n_dups || opmfu_sort_array(m->dups, m->n_dups, sizeof(*m->dups), dup_before))
		return;
	for (; k < m->n_dups; k = e) {
		const struct dup *d = &m->dups[k];
		const char *kept = m->paths[d->kept], *dropped = m->paths[d->dropped];
		for (e = k; e < m->n_dups && m->dups[e].kind == d->kind && m->dups[e].kept == d->kept &&
			    m->dups[e].dropped == d->dropped;
		     e++)
			;
		rank_ids(d, e - k, ids, sizeof(ids));
		if (d->kind == DUP_SAME && !strcmp(kept, dropped))
			snprintf(msg, sizeof(msg), "%s is given twice: its %s are read once", kept, ids);
		else if (d->kind == DUP_SAME)
			snprintf(msg, sizeof(msg), "%s: %s already found under %s (the same files); read once", dropped,
				 ids, kept);
		else
			snprintf(msg, sizeof(msg), "%s found under both %s and %s: using %s under %s (%s), ignoring %s",
				 ids, m->paths[d->kept < d->dropped ? d->kept : d->dropped],
				 m->paths[d->kept < d->dropped ? d->dropped : d->kept], e - k == 1 ? "the one" : "those",
				 kept, why[d->kind], dropped);
		m->warn(m->ctx, msg);
	}
}

/* ---- runs ----
 * A result is one run (SPEC 17). The readers' probes say which run a rank is
 * of (run_key); here each run gets a short ID users can type after --run,
 * and a path holding several runs is refused with their list.
 */

size_t opmfu_run_slug(const char *name, char *out, size_t size)
{
	size_t n = 0;
	int dash = 0; /* a '-' is due before the next byte kept */

	if (!size)
		return 0;
	for (; name && *name && n + 1 < size; name++) {
		char c = *name;
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_')) {
			/* '-' too: a run of separators is one '-' */
			dash = n > 0;
			continue;
		}
		if (dash && n + 2 < size)
			out[n++] = '-';
		else if (dash)
			break;
		dash = 0;
		out[n++] = c;
	}
	if (!n && size > 3) {
		memcpy(out, "run", 3);
		n = 3;
	}
	out[n] = '\0';
	return n;
}

/* Whether id is taken by one of the runs named before index end. */
static int id_taken(const struct opmfu_rank_list *list, size_t end, const char *id)
{
	size_t i;
	for (i = 0; i < end; i++)
		if (list->v[i].run_id && !strcmp(list->v[i].run_id, id))
			return 1;
	return 0;
}

static int less_run_id(const void *a, const void *b)
{
	const struct opmfu_rank_input *x = a, *y = b;
	int c = strcmp(x->run_id, y->run_id);
	return c < 0 || (c == 0 && x->rank < y->rank);
}

/* Gives every run of list (sorted by run) its ID, unique among them by a
 * suffix -2, -3, ... in run-key order (so the same inputs give the same
 * IDs), then sorts the list by run ID and rank. */
static enum opmfu_status name_runs(struct opmfu_rank_list *list, struct opmfu_err *err)
{
	size_t i = 0, e, k;

	for (; i < list->n; i = e) {
		const struct opmfu_rank_input *f = &list->v[i];
		char base[OPMFU_RUN_ID_MAX], id[OPMFU_RUN_ID_MAX + 16];
		size_t len = opmfu_run_slug(f->run_name ? f->run_name : f->run_key, base, sizeof(base));
		unsigned suffix = 1;
		for (e = i; e < list->n && same_run(&list->v[e], f); e++)
			;
		memcpy(id, base, len + 1);
		while (id_taken(list, i, id))
			snprintf(id, sizeof(id), "%s-%u", base, ++suffix);
		for (k = i; k < e; k++)
			if (!list->v[k].run_id && !(list->v[k].run_id = opmfu_strdup(id)))
				return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory naming runs");
	}
	if (opmfu_sort_array(list->v, list->n, sizeof(*list->v), less_run_id))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory sorting %zu ranks", list->n);
	return OPMFU_OK;
}

/* The end of the run that starts at index i of a list sorted by run ID. */
static size_t run_end(const struct opmfu_rank_list *list, size_t i)
{
	size_t e = i;
	while (e < list->n && !strcmp(list->v[e].run_id, list->v[i].run_id))
		e++;
	return e;
}

/* "-1", "0-7", "0, 2, 5-6", at most 8 items and then "and N more". */
static void add_rank_ids(struct sbuf *sb, const struct opmfu_rank_input *v, size_t n)
{
	size_t k = 0, items = 0;
	while (k < n) {
		size_t e = k;
		while (e + 1 < n && v[e].rank >= 0 && v[e + 1].rank == v[e].rank + 1)
			e++;
		if (++items > 8) {
			sbuf_addf(sb, " and %zu more", n - k);
			return;
		}
		if (e == k)
			sbuf_addf(sb, "%s%d", k ? ", " : "", v[k].rank);
		else
			sbuf_addf(sb, "%s%d-%d", k ? ", " : "", v[k].rank, v[e].rank);
		k = e + 1;
	}
}

/* The runs' IDs, ", "-separated, for messages about --run. */
static void add_run_ids(struct sbuf *sb, const struct opmfu_rank_list *list)
{
	size_t i, e, k = 0;
	for (i = 0; i < list->n; i = e, k++) {
		e = run_end(list, i);
		sbuf_addf(sb, "%s%s", k ? ", " : "", list->v[i].run_id);
	}
}

/* err's message from sb: whole lines only when it is too long (the line
 * that would not fit, and those after it, counted instead). */
static enum opmfu_status refuse(struct sbuf *sb, size_t n_lines_at_cut, size_t cut, struct opmfu_err *err)
{
	if (sb->oom)
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory listing runs");
	if (cut)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "%.*s\n  ... and %zu more runs", (int)cut, sb->buf,
				     n_lines_at_cut);
	return opmfu_err_set(err, OPMFU_ERR_USAGE, "%s", sb->buf);
}

/* Several runs and no --run: the list of them. */
static enum opmfu_status list_runs(const struct opmfu_rank_list *list, size_t n_runs, const char *what,
				   struct opmfu_err *err)
{
	struct sbuf sb;
	size_t i, e, k = 0, cut = 0, left = 0;
	enum opmfu_status st;

	sbuf_init(&sb);
	sbuf_addf(&sb, "%s: %zu runs found, and a result is one run; use --run ID to pick one:", what, n_runs);
	for (i = 0; i < list->n; i = e, k++) {
		const struct opmfu_rank_input *f = &list->v[i];
		size_t before = sb.len;
		e = run_end(list, i);
		sbuf_addf(&sb, "\n  %s  %s, %zu rank%s (", f->run_id, f->reader->name, e - i, e - i == 1 ? "" : "s");
		add_rank_ids(&sb, f, e - i);
		sbuf_addf(&sb, "): %.300s%s", f->name, strlen(f->name) > 300 ? "..." : "");
		/* room for the last line, "  ... and N more runs" */
		if (!cut && sb.len + 40 >= OPMFU_ERR_MSG_MAX) {
			cut = before;
			left = n_runs - k;
		}
	}
	st = refuse(&sb, left, cut, err);
	sbuf_release(&sb);
	return st;
}

/* Keeps list->v[b, e) only. */
static void keep_only(struct opmfu_rank_list *list, size_t b, size_t e)
{
	size_t i;
	for (i = 0; i < list->n; i++)
		if (i < b || i >= e)
			opmfu_rank_input_release(&list->v[i]);
	memmove(list->v, list->v + b, (e - b) * sizeof(*list->v));
	list->n = e - b;
}

enum opmfu_status opmfu_rank_list_pick_run(struct opmfu_rank_list *list, const char *want, const char *what,
					   struct opmfu_err *err)
{
	size_t i, e, n_runs = 0, n_prefix = 0, exact = list->n, prefix = list->n;
	struct sbuf sb;
	enum opmfu_status st;

	for (i = 0; i < list->n; i = e, n_runs++) {
		e = run_end(list, i);
		if (!want)
			continue;
		if (!strcmp(list->v[i].run_id, want))
			exact = i;
		else if (!strncmp(list->v[i].run_id, want, strlen(want)) && n_prefix++ == 0)
			prefix = i;
	}
	if (!want && n_runs <= 1)
		return OPMFU_OK;
	if (!want)
		return list_runs(list, n_runs, what, err);
	if (exact == list->n && n_prefix == 1)
		exact = prefix;
	if (exact < list->n) {
		keep_only(list, exact, run_end(list, exact));
		return OPMFU_OK;
	}
	sbuf_init(&sb);
	if (n_prefix)
		sbuf_addf(&sb, "--run %s: %zu runs found under %s have IDs that start so; give more of one (runs: ", want,
			  n_prefix, what);
	else
		sbuf_addf(&sb, "--run %s: no run found under %s has that ID or one that starts so (run%s: ", want, what,
			  n_runs == 1 ? "" : "s");
	add_run_ids(&sb, list);
	sbuf_adds(&sb, ")");
	st = refuse(&sb, 0, 0, err);
	sbuf_release(&sb);
	return st;
}

enum opmfu_status opmfu_discover(const char *const *paths, size_t n_paths,
				 const struct opmfu_reader *const *readers, unsigned flags, struct opmfu_rank_list *list,
				 opmfu_warn_fn warn, void *ctx, struct opmfu_err *err)
{
	struct opmfu_rank_list one = { NULL, 0, 0 };
	struct skipped skipped;
	struct merging m;
	enum opmfu_status st = OPMFU_OK;
	size_t i;

	if (!readers)
		readers = opmfu_readers();
	memset(&m, 0, sizeof(m));
	memset(&skipped, 0, sizeof(skipped));
	m.paths = paths;
	m.warn = warn;
	m.ctx = ctx;
	/* ranks already in the list count as the first path's */
	if (!(m.from = opmfu_calloc(list->n ? list->n : 1, sizeof(*m.from))))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory listing ranks");
	for (i = 0; i < n_paths && st == OPMFU_OK; i++) {
		char what[512];
		if ((st = find_ranks(paths[i], readers, flags, &one, warn, ctx, &skipped, err)))
			break;
		if (one.n == 0) {
			looked_for(readers, what, sizeof(what));
			st = opmfu_err_set(err, OPMFU_ERR_NOINPUT, "%s: no rank found (looked for %s up to %d levels below)",
					   paths[i], what, OPMFU_RANK_DEPTH);
		} else if (opmfu_rank_list_sort(&one)) {
			st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory sorting %zu ranks", one.n);
		} else {
			st = merge(&m, list, &one, i, err);
		}
	}
	/* told also when a path had no rank: the link may be why */
	warn_skipped(&skipped, warn, ctx);
	if (st == OPMFU_OK)
		warn_dups(&m);
	if (st == OPMFU_OK)
		st = name_runs(list, err);
	opmfu_rank_list_release(&one);
	opmfu_free(m.from);
	opmfu_free(m.dups);
	return st;
}

static int less_run(const void *a, const void *b)
{
	return run_cmp(a, b) < 0;
}

int opmfu_rank_list_sort(struct opmfu_rank_list *list)
{
	return opmfu_sort_array(list->v, list->n, sizeof(*list->v), less_run);
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
