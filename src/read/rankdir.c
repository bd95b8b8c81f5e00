/*
 * rankdir.c - rank discovery and chip info. Directory listings are sorted by
 * name so results never depend on the order the file system returns.
 */
#include "read/rankdir.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/json.h"
#include "base/mem.h"
#include "base/sbuf.h"

#define CLUSTER_DEPTH 5
#define INFO_DEPTH 10

static int all_digits(const char *s, size_t n)
{
	size_t i;
	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

int opmfu_db_name_rank(const char *name)
{
	static const char pre[] = "ascend_pytorch_profiler";
	size_t n = strlen(name), p = sizeof(pre) - 1;
	long v;
	if (n < p + 3 || strncmp(name, pre, p) != 0 || strcmp(name + n - 3, ".db") != 0)
		return -2;
	if (n == p + 3)
		return -1;
	if (name[p] != '_' || !all_digits(name + p + 1, n - p - 4) || n - p - 4 > 9)
		return -2;
	v = strtol(name + p + 1, NULL, 10);
	return (int)v;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names in dir (no . and ..). Returns count, or -1 with errno set. */
static long list_dir(const char *dir, char ***names)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t n = 0, cap = 0;

	*names = NULL;
	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (OPMFU_GROW(v, cap, n + 1) || !(v[n] = opmfu_strdup(e->d_name))) {
			while (n)
				opmfu_free(v[--n]);
			opmfu_free(v);
			closedir(d);
			errno = ENOMEM;
			return -1;
		}
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	*names = v;
	return (long)n;
}

static void free_names(char **v, long n)
{
	while (n > 0)
		opmfu_free(v[--n]);
	opmfu_free(v);
}

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The {timestamp} of a rank directory name: third '_' field from the end. */
static void dir_timestamp(const char *dir, const char **ts, size_t *len)
{
	const char *base = strrchr(dir, '/');
	const char *end, *p;
	int field = 0;
	size_t n;

	base = base ? base + 1 : dir;
	n = strlen(base);
	while (n && base[n - 1] == '/')
		n--;
	end = base + n;
	*ts = NULL;
	*len = 0;
	for (p = end; p > base; p--) {
		if (p[-1] == '_') {
			field++;
			if (field == 2)
				end = p - 1;
			if (field == 3) {
				*ts = p;
				*len = (size_t)(end - p);
				return;
			}
		}
	}
	if (field == 2) {
		*ts = base;
		*len = (size_t)(end - base);
	}
}

/* >0 if directory a is newer than b by SPEC 1.1; numbers compare as numbers. */
static int newer(const char *a, const char *b)
{
	const char *ta, *tb;
	size_t la, lb;
	int da, db;
	dir_timestamp(a, &ta, &la);
	dir_timestamp(b, &tb, &lb);
	da = ta && all_digits(ta, la);
	db = tb && all_digits(tb, lb);
	if (da != db)
		return da - db;
	if (!da)
		return 0;
	while (la > 1 && *ta == '0')
		ta++, la--;
	while (lb > 1 && *tb == '0')
		tb++, lb--;
	if (la != lb)
		return la > lb ? 1 : -1;
	return memcmp(ta, tb, la) > 0 ? 1 : (memcmp(ta, tb, la) < 0 ? -1 : 0);
}

static void warnf(opmfu_warn_fn warn, void *ctx, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
static void warnf(opmfu_warn_fn warn, void *ctx, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;
	if (!warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	warn(ctx, msg);
}

static void rank_input_release(struct opmfu_rank_input *r)
{
	opmfu_free(r->dir);
	opmfu_free(r->db_path);
	opmfu_free(r->out_hint);
}

/* Adds a rank, or resolves a duplicate id by timestamp. Takes ownership. */
static enum opmfu_status add_rank(struct opmfu_rank_list *list, struct opmfu_rank_input in,
				  opmfu_warn_fn warn, void *ctx, struct opmfu_err *err)
{
	size_t i;
	int cmp;
	for (i = 0; i < list->n; i++) {
		struct opmfu_rank_input *o = &list->v[i];
		if (o->rank != in.rank)
			continue;
		if (!strcmp(o->db_path, in.db_path)) {
			rank_input_release(&in);
			return OPMFU_OK;
		}
		cmp = newer(in.dir, o->dir);
		if (cmp > 0) {
			warnf(warn, ctx, "rank %d found twice: using %s (newer timestamp), ignoring %s",
			      in.rank, in.dir, o->dir);
			rank_input_release(o);
			*o = in;
		} else {
			warnf(warn, ctx, "rank %d found twice: using %s (%s), ignoring %s", in.rank, o->dir,
			      cmp < 0 ? "newer timestamp" : "same or no timestamp: the first found", in.dir);
			rank_input_release(&in);
		}
		return OPMFU_OK;
	}
	if (OPMFU_GROW(list->v, list->cap, list->n + 1)) {
		rank_input_release(&in);
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory listing ranks");
	}
	list->v[list->n++] = in;
	return OPMFU_OK;
}

/* If dir is a rank directory, returns the database path inside it (malloc'd);
 * sets *oom when an allocation failed on the way. */
static char *rank_db_in(const char *dir, int *rank, int *oom)
{
	char *apo = opmfu_path_join(dir, "ASCEND_PROFILER_OUTPUT"), **names = NULL, *found = NULL;
	long n, i;
	if (!apo) {
		*oom = 1;
		return NULL;
	}
	n = list_dir(apo, &names);
	if (n < 0 && errno == ENOMEM)
		*oom = 1;
	for (i = 0; i < n && !found; i++) {
		int r = opmfu_db_name_rank(names[i]);
		char *full;
		if (r == -2)
			continue;
		full = opmfu_path_join(apo, names[i]);
		if (!full) {
			*oom = 1;
			break;
		}
		if (!is_dir(full)) {
			found = full;
			*rank = r;
		} else {
			opmfu_free(full);
		}
	}
	free_names(names, n);
	opmfu_free(apo);
	return found;
}

/* The directories on the current walk path: symlinks are followed, so a
 * directory met again below itself is a loop. Both walks are depth-bounded
 * far below VISIT_MAX. */
#define VISIT_MAX 64
struct visit {
	dev_t dev[VISIT_MAX];
	ino_t ino[VISIT_MAX];
	int n;
};

static int visit_seen(const struct visit *v, const struct stat *st)
{
	int k;
	for (k = 0; k < v->n; k++)
		if (v->dev[k] == st->st_dev && v->ino[k] == st->st_ino)
			return 1;
	return 0;
}

static void visit_push(struct visit *v, const struct stat *st)
{
	v->dev[v->n] = st->st_dev;
	v->ino[v->n] = st->st_ino;
	v->n++;
}

static enum opmfu_status walk(const char *dir, int depth, struct visit *seen, struct opmfu_rank_list *list,
			      const char *out_hint, opmfu_warn_fn warn, void *ctx, struct opmfu_err *err)
{
	struct stat st;
	char **names = NULL, *db;
	long n, i;
	int rank = -1, oom = 0;
	enum opmfu_status status = OPMFU_OK;

	if (stat(dir, &st) != 0)
		return OPMFU_OK;
	if (visit_seen(seen, &st)) {
		warnf(warn, ctx, "%s: directory loop (symbolic link back to an ancestor), skipped", dir);
		return OPMFU_OK;
	}
	db = rank_db_in(dir, &rank, &oom);
	if (oom) {
		opmfu_free(db);
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory listing %s", dir);
	}
	if (db) {
		struct opmfu_rank_input in = { rank, opmfu_strdup(dir), db, opmfu_strdup(out_hint) };
		if (!in.dir || !in.out_hint) {
			rank_input_release(&in);
			return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory listing ranks");
		}
		return add_rank(list, in, warn, ctx, err);
	}
	if (depth >= CLUSTER_DEPTH)
		return OPMFU_OK;
	n = list_dir(dir, &names);
	if (n < 0 && errno == ENOMEM)
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory listing %s", dir);
	if (n < 0) {
		if (depth == 0)
			return opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot read directory: %s", dir,
					     strerror(errno));
		warnf(warn, ctx, "%s: cannot read directory: %s; skipped", dir, strerror(errno));
		return OPMFU_OK;
	}
	visit_push(seen, &st);
	for (i = 0; i < n && status == OPMFU_OK; i++) {
		char *sub = opmfu_path_join(dir, names[i]);
		if (!sub) {
			status = opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory listing ranks");
			break;
		}
		if (is_dir(sub))
			status = walk(sub, depth + 1, seen, list, out_hint, warn, ctx, err);
		opmfu_free(sub);
	}
	seen->n--;
	free_names(names, n);
	return status;
}

static char *dirname_of(const char *path)
{
	const char *s = strrchr(path, '/');
	if (!s)
		return opmfu_strdup(".");
	if (s == path)
		return opmfu_strdup("/");
	return opmfu_strndup(path, (size_t)(s - path));
}

static const char *basename_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

enum opmfu_status opmfu_find_ranks(const char *path, struct opmfu_rank_list *list,
				   opmfu_warn_fn warn, void *ctx, struct opmfu_err *err)
{
	struct stat st;
	char clean[4096];
	size_t n = strlen(path);

	if (n >= sizeof(clean))
		return opmfu_err_set(err, OPMFU_ERR_IO, "%.200s...: path too long", path);
	memcpy(clean, path, n + 1);
	while (n > 1 && clean[n - 1] == '/')
		clean[--n] = '\0';
	if (stat(clean, &st) != 0)
		return opmfu_err_set(err, OPMFU_ERR_IO, "%s: %s", clean, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		struct visit seen;
		seen.n = 0;
		return walk(clean, 0, &seen, list, clean, warn, ctx, err);
	} else {
		/* a bare database: its rank directory is parent's parent when the
		 * file sits in ASCEND_PROFILER_OUTPUT, else the file's own folder */
		struct opmfu_rank_input in = { -1, NULL, opmfu_strdup(clean), NULL };
		char *parent = dirname_of(clean);
		int r = opmfu_db_name_rank(basename_of(clean));
		in.rank = r >= 0 ? r : -1;
		if (parent && !strcmp(basename_of(parent), "ASCEND_PROFILER_OUTPUT")) {
			in.dir = dirname_of(parent);
			opmfu_free(parent);
		} else {
			in.dir = parent;
		}
		in.out_hint = in.dir ? opmfu_strdup(in.dir) : NULL;
		if (!in.db_path || !in.dir || !in.out_hint) {
			rank_input_release(&in);
			return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory listing ranks");
		}
		return add_rank(list, in, warn, ctx, err);
	}
}

static int cmp_rank(const void *a, const void *b)
{
	const struct opmfu_rank_input *x = a, *y = b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

void opmfu_rank_list_sort(struct opmfu_rank_list *list)
{
	if (list->n > 1)
		qsort(list->v, list->n, sizeof(*list->v), cmp_rank);
}

/* Index of rank in the sorted list, or list->n. */
static size_t find_rank(const struct opmfu_rank_list *list, int rank)
{
	size_t lo = 0, hi = list->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (list->v[mid].rank < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
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
			rank_input_release(&list->v[i]);
	}
	list->n = k;
	opmfu_free(keep);
	return OPMFU_OK;
}

void opmfu_rank_list_release(struct opmfu_rank_list *list)
{
	size_t i;
	for (i = 0; i < list->n; i++)
		rank_input_release(&list->v[i]);
	opmfu_free(list->v);
	list->v = NULL;
	list->n = list->cap = 0;
}

static int name_matches(const char *name, const char *prefix)
{
	size_t p = strlen(prefix), n = strlen(name);
	return n > p && n <= p + 2 && !strncmp(name, prefix, p) && all_digits(name + p, n - p);
}

static char *find_info(const char *dir, int depth, int in_device, struct visit *seen, int *oom)
{
	char **names = NULL, *found = NULL;
	long n, i;
	struct stat st;

	if (*oom || depth > INFO_DEPTH || stat(dir, &st) != 0 || visit_seen(seen, &st))
		return NULL;
	n = list_dir(dir, &names);
	if (n < 0 && errno == ENOMEM)
		*oom = 1;
	if (n <= 0) {
		free_names(names, n);
		return NULL;
	}
	if (in_device) {
		for (i = 0; i < n && !found; i++) {
			char *full;
			if (!name_matches(names[i], "info.json."))
				continue;
			full = opmfu_path_join(dir, names[i]);
			if (!full)
				*oom = 1;
			else if (!is_dir(full))
				found = full;
			else
				opmfu_free(full);
		}
	}
	visit_push(seen, &st);
	for (i = 0; i < n && !found && !*oom; i++) {
		char *full = opmfu_path_join(dir, names[i]);
		if (!full)
			*oom = 1;
		else if (is_dir(full))
			found = find_info(full, depth + 1, name_matches(names[i], "device_"), seen, oom);
		opmfu_free(full);
	}
	seen->n--;
	free_names(names, n);
	return found;
}

enum opmfu_status opmfu_find_info_json(const char *dir, char **path, struct opmfu_err *err)
{
	struct visit seen;
	int oom = 0;
	seen.n = 0;
	*path = find_info(dir, 0, 0, &seen, &oom);
	if (oom) {
		opmfu_free(*path);
		*path = NULL;
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory searching %s for the chip info file", dir);
	}
	return OPMFU_OK;
}

/* A JSON number or a string holding a decimal number (real files use both). */
static int json_numeric(const struct json_doc *doc, size_t node, double *out)
{
	char buf[64], *end;
	const struct json_node *n;
	if (node == JSON_NONE)
		return -1;
	n = &doc->nodes[node];
	if (n->type == JSON_NUMBER) {
		size_t len = n->end - n->start;
		if (len >= sizeof(buf))
			return -1;
		memcpy(buf, doc->text + n->start, len);
		buf[len] = '\0';
	} else if (n->type == JSON_STRING) {
		if (json_string(doc, node, buf, sizeof(buf)))
			return -1;
	} else {
		return -1;
	}
	errno = 0;
	*out = strtod(buf, &end);
	while (*end == ' ')
		end++;
	if (end == buf || *end || errno || !isfinite(*out))
		return -1;
	return 0;
}

enum opmfu_status opmfu_parse_info_json(const char *text, size_t len, struct opmfu_chip_info *out,
					struct opmfu_err *err)
{
	struct json_doc doc;
	size_t dev, cores, freq;
	double c, f;
	enum opmfu_status st = json_parse(&doc, text, len, err);

	if (st)
		return st;
	dev = json_at(&doc, json_get(&doc, 0, "DeviceInfo"), 0);
	if (dev == JSON_NONE) {
		st = opmfu_err_set(err, OPMFU_ERR_FORMAT, "no DeviceInfo[0] object");
		goto out;
	}
	cores = json_get(&doc, dev, "ai_core_num");
	freq = json_get(&doc, dev, "aic_frequency");
	if (cores == JSON_NONE || freq == JSON_NONE) {
		st = opmfu_err_set(err, OPMFU_ERR_FORMAT, "DeviceInfo[0] has no %s",
				   cores == JSON_NONE ? "ai_core_num" : "aic_frequency");
		goto out;
	}
	if (json_numeric(&doc, cores, &c) || c != floor(c)) {
		st = opmfu_err_set(err, OPMFU_ERR_FORMAT, "DeviceInfo[0].ai_core_num is not an integer");
		goto out;
	}
	if (json_numeric(&doc, freq, &f)) {
		st = opmfu_err_set(err, OPMFU_ERR_FORMAT, "DeviceInfo[0].aic_frequency is not a number of MHz");
		goto out;
	}
	if (c <= 0 || f <= 0 || c > 1e6 || f > 1e7) {
		st = opmfu_err_set(err, OPMFU_ERR_FORMAT,
				   "DeviceInfo[0] gives %g AI cores at %g MHz: not a usable chip", c, f);
		goto out;
	}
	out->ai_core_num = (long long)c;
	out->aic_mhz = f;
	/* cube unit: 16x16x16 MACs per cycle per core for fp16, twice for int8 */
	out->peak_fp16 = (double)out->ai_core_num * f * 8192 * 1e6;
	out->peak_int8 = (double)out->ai_core_num * f * 16384 * 1e6;
out:
	json_release(&doc);
	return st;
}

enum opmfu_status opmfu_read_info_json(const char *path, struct opmfu_chip_info *out, struct opmfu_err *err)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n;
	enum opmfu_status st;

	if (!f)
		return opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
	buf = opmfu_malloc(16 << 20);
	if (!buf) {
		fclose(f);
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory", path);
	}
	n = fread(buf, 1, 16 << 20, f);
	if (ferror(f)) {
		st = opmfu_err_set(err, OPMFU_ERR_IO, "%s: read error", path);
	} else if (n == 16 << 20) {
		st = opmfu_err_set(err, OPMFU_ERR_FORMAT, "%s: larger than 16 MiB, not a chip info file", path);
	} else {
		st = opmfu_parse_info_json(buf, n, out, err);
		if (st)
			opmfu_err_prefix(err, "%s", path);
	}
	fclose(f);
	opmfu_free(buf);
	return st;
}
