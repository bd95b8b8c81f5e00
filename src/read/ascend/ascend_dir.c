/*
 * ascend_dir.c - Ascend ranks on disk (SPEC 1.1) and the chip info file that
 * gives their peak FLOPS (SPEC 1.4). Directory listings are sorted by name
 * so results never depend on the order the file system returns.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/mem.h"
#include "base/sbuf.h"
#include "trace/parse.h"
#include "read/ascend/ascend.h"
#include "read/dirwalk.h"

#define INFO_DEPTH 10

int opmfu_db_name_rank(const char *name)
{
	static const char pre[] = "ascend_pytorch_profiler";
	size_t n = strlen(name), p = sizeof(pre) - 1;
	long v;
	if (n < p + 3 || strncmp(name, pre, p) != 0 || strcmp(name + n - 3, ".db") != 0)
		return -2;
	if (n == p + 3)
		return -1;
	if (name[p] != '_' || !opmfu_all_digits(name + p + 1, n - p - 4) || n - p - 4 > 9)
		return -2;
	v = strtol(name + p + 1, NULL, 10);
	return (int)v;
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

/* Fills in's dir (taking it), stamp and name; -1 when out of memory (in released). */
static int set_dir(struct opmfu_rank_input *in, char *dir)
{
	const char *ts;
	size_t len;
	in->dir = dir;
	in->name = dir;
	if (!dir)
		return -1;
	dir_timestamp(dir, &ts, &len);
	/* only digits compare (SPEC 1.1); any other timestamp counts as none */
	if (ts && opmfu_all_digits(ts, len) && !(in->stamp = opmfu_strndup(ts, len)))
		return -1;
	return 0;
}

static int is_regular(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
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
	n = opmfu_dir_names(apo, &names);
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
		/* a regular file only: a FIFO so named would block the read forever
		 * (SPEC 26); the walk then meets it and says so */
		if (is_regular(full)) {
			found = full;
			*rank = r;
		} else {
			opmfu_free(full);
		}
	}
	opmfu_dir_names_free(names, n);
	opmfu_free(apo);
	return found;
}

enum opmfu_probe opmfu_ascend_probe_dir(const char *dir, struct opmfu_rank_input *in)
{
	int rank = -1, oom = 0;
	char *db = rank_db_in(dir, &rank, &oom);

	if (oom) {
		opmfu_free(db);
		return OPMFU_PROBE_NOMEM;
	}
	if (!db)
		return OPMFU_PROBE_NO;
	in->rank = rank;
	in->path = db;
	if (set_dir(in, opmfu_strdup(dir))) {
		opmfu_rank_input_release(in);
		return OPMFU_PROBE_NOMEM;
	}
	return OPMFU_PROBE_YES;
}

enum opmfu_probe opmfu_ascend_probe_file(const char *path, int named, struct opmfu_rank_input *in,
					 struct opmfu_rank_list *more)
{
	char *parent;
	int r;

	(void)more; /* one database is one rank */
	if (!named)
		return OPMFU_PROBE_NO;
	/* its rank directory is the parent's parent when the file sits in
	 * ASCEND_PROFILER_OUTPUT, else the file's own folder */
	r = opmfu_db_name_rank(opmfu_base_of(path));
	in->rank = r >= 0 ? r : -1;
	in->path = opmfu_strdup(path);
	parent = opmfu_dir_of(path);
	if (parent && !strcmp(opmfu_base_of(parent), "ASCEND_PROFILER_OUTPUT")) {
		char *up = opmfu_dir_of(parent);
		opmfu_free(parent);
		parent = up;
	}
	if (set_dir(in, parent) || !in->path) {
		opmfu_rank_input_release(in);
		return OPMFU_PROBE_NOMEM;
	}
	return r == -2 ? OPMFU_PROBE_MAYBE : OPMFU_PROBE_YES;
}

static int name_matches(const char *name, const char *prefix)
{
	size_t p = strlen(prefix), n = strlen(name);
	return n > p && n <= p + 2 && !strncmp(name, prefix, p) && opmfu_all_digits(name + p, n - p);
}

/* Whether the search may enter the directory full: a symbolic link only
 * when it stays inside root (the rank directory's real path), and never
 * /proc or /sys (SPEC 26). */
static int may_enter(const char *full, const char *root, int *oom)
{
	struct stat lst;
	char *real;
	int ok;
	if (lstat(full, &lst) != 0 || !S_ISLNK(lst.st_mode))
		return 1;
	if (!(real = opmfu_entry_real(NULL, full, NULL, 1))) {
		if (errno == ENOMEM)
			*oom = 1;
		return 0;
	}
	ok = opmfu_path_inside(real, root) && !opmfu_system_dir(real);
	opmfu_free(real);
	return ok;
}

static char *find_info(const char *dir, const char *root, int depth, int in_device, struct opmfu_visit *seen,
		       int *oom)
{
	char **names = NULL, *found = NULL;
	long n, i;
	struct stat st;

	if (*oom || depth > INFO_DEPTH || stat(dir, &st) != 0 || opmfu_visit_seen(seen, &st))
		return NULL;
	n = opmfu_dir_names(dir, &names);
	if (n < 0 && errno == ENOMEM)
		*oom = 1;
	if (n <= 0) {
		opmfu_dir_names_free(names, n);
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
			else if (!opmfu_is_dir(full))
				found = full;
			else
				opmfu_free(full);
		}
	}
	opmfu_visit_push(seen, &st);
	for (i = 0; i < n && !found && !*oom; i++) {
		char *full = opmfu_path_join(dir, names[i]);
		if (!full)
			*oom = 1;
		else if (opmfu_is_dir(full) && may_enter(full, root, oom))
			found = find_info(full, root, depth + 1, name_matches(names[i], "device_"), seen, oom);
		opmfu_free(full);
	}
	seen->n--;
	opmfu_dir_names_free(names, n);
	return found;
}

enum opmfu_status opmfu_find_info_json(const char *dir, char **path, struct opmfu_err *err)
{
	struct opmfu_visit seen;
	int oom = 0;
	char *root = opmfu_entry_real(NULL, dir, NULL, 1);
	seen.n = 0;
	*path = NULL;
	if (!root && errno == ENOMEM)
		oom = 1;
	else if (root && !opmfu_system_dir(root))
		*path = find_info(dir, root, 0, 0, &seen, &oom);
	opmfu_free(root);
	if (oom) {
		opmfu_free(*path);
		*path = NULL;
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory searching %s for the chip info file", dir);
	}
	return OPMFU_OK;
}

enum opmfu_status opmfu_ascend_device(const char *dir, struct opmfu_device *dev, struct opmfu_err *err)
{
	struct opmfu_chip_info ci;
	struct opmfu_err e = OPMFU_ERR_INIT;
	enum opmfu_status st;

	if ((st = opmfu_find_info_json(dir, &dev->path, err)))
		return st;
	if (!dev->path) {
		snprintf(dev->no_peak, sizeof(dev->no_peak), "no chip info file (PROF_*/device_N/info.json.N) under %s",
			 dir);
		return OPMFU_OK;
	}
	st = opmfu_read_info_json(dev->path, &ci, &e);
	if (st == OPMFU_ERR_NOMEM)
		return opmfu_err_set(err, st, "%s", e.msg);
	if (st) {
		/* a rank with no peak is still analysed: the message goes with the results */
		snprintf(dev->no_peak, sizeof(dev->no_peak), "%.*s", (int)sizeof(dev->no_peak) - 1, e.msg);
		return OPMFU_OK;
	}
	dev->ai_core_num = ci.ai_core_num;
	dev->aic_mhz = ci.aic_mhz;
	dev->peak_flops[OPMFU_PREC_FP16] = ci.peak_fp16;
	dev->peak_flops[OPMFU_PREC_INT8] = ci.peak_int8;
	snprintf(dev->source, sizeof(dev->source), "info.json %s (%lld AI cores at %g MHz)", dev->path,
		 ci.ai_core_num, ci.aic_mhz);
	return OPMFU_OK;
}
