/*
 * nsys_probe.c - which files are Nsight Systems exports (SPEC 21): a SQLite
 * database with a StringIds table and one of the tables only nsys writes.
 * A file the user names is probed whatever its name; in a walk only
 * *.sqlite files are opened (opening every file met would cost more than
 * it finds). Each (CUDA device, process) that ran kernels is a rank (nsys
 * profiling a launcher writes several into one file). The rank id: the
 * number N after "rank" in the file name (nsys writes no rank into the
 * export), else -1, when the file holds one pair; with P pairs, the k-th
 * in (device, process) order is N * P + k (N taken as 0 when absent):
 * torchrun's node_rank * nproc_per_node + local_rank for files numbered
 * by node. Ranks numbered by their file names are one run per folder (one
 * job's files side by side: a cluster), a file without is a run of its
 * own. docs/nsys.md.
 */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/mem.h"
#include "base/sbuf.h"
#include "read/dirwalk.h"
#include "read/kineto/kineto_parse.h"
#include "read/nsys/nsys.h"
#include "read/sqlite_in.h"

/* the tables of which one, beside StringIds, makes a file nsys's */
static const char *const own_tables[] = {
	"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS", "TARGET_INFO_GPU", NULL
};

/* the (device, process) pairs that ran kernels */
struct parts {
	int64_t (*v)[2];
	size_t n, cap;
};

static int cmp_part(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	int c = (x[0] > y[0]) - (x[0] < y[0]);
	return c ? c : (x[1] > y[1]) - (x[1] < y[1]);
}

/*
 * The pairs of the kernel table in (device, process) order, pid -1 without
 * a globalPid column; kernels with a NULL device or process belong to none
 * (the read keeps no such kernel). None without the table or its deviceId:
 * the read then says what is missing. 0, or -1 when out of memory. Sorted
 * here: SQLite's DISTINCT keeps the few pairs in a small index, where an
 * ORDER BY would sort every kernel row (3.5 times the instructions).
 */
static int list_parts(sqlite3 *db, struct parts *ps)
{
	static const char *const sql[] = {
		"SELECT DISTINCT deviceId, (globalPid >> 24) & 16777215 FROM CUPTI_ACTIVITY_KIND_KERNEL "
		"WHERE deviceId IS NOT NULL AND globalPid IS NOT NULL",
		"SELECT DISTINCT deviceId, -1 FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE deviceId IS NOT NULL"
	};
	sqlite3_stmt *s = NULL;
	int k, oom = 0;

	for (k = 0; k < 2 && sqlite3_prepare_v2(db, sql[k], -1, &s, NULL) != SQLITE_OK; k++) {
		sqlite3_finalize(s);
		s = NULL;
	}
	while (s && !oom && sqlite3_step(s) == SQLITE_ROW) {
		/* the read binds integers: a device stored as text is no pair */
		if (sqlite3_column_type(s, 0) != SQLITE_INTEGER && sqlite3_column_type(s, 0) != SQLITE_FLOAT)
			continue;
		if ((oom = OPMFU_GROW(ps->v, ps->cap, ps->n + 1)) != 0)
			break;
		ps->v[ps->n][0] = sqlite3_column_int64(s, 0);
		ps->v[ps->n][1] = sqlite3_column_int64(s, 1);
		ps->n++;
	}
	sqlite3_finalize(s);
	if (!oom && ps->n > 1) {
		size_t i, k = 1;
		qsort(ps->v, ps->n, sizeof(*ps->v), cmp_part);
		/* a device stored as 1.5 beside 1 is one pair once read as integers */
		for (i = 1; i < ps->n; i++)
			if (cmp_part(ps->v[i], ps->v[k - 1])) {
				ps->v[k][0] = ps->v[i][0];
				ps->v[k][1] = ps->v[i][1];
				k++;
			}
		ps->n = k;
	}
	return oom ? -1 : 0;
}

/* 1 an export (with its pairs in ps when not NULL), 0 not, -1 not opened,
 * -2 out of memory. */
static int probe_db(const char *path, struct parts *ps)
{
	struct opmfu_err err = OPMFU_ERR_INIT;
	struct opmfu_sqlite_in in;
	sqlite3 *db = NULL;
	int yes = 0, k;

	if (opmfu_sqlite_in_open(path, &db, &in, &err))
		return -1;
	if (opmfu_sqlite_has_table(db, "StringIds") == 1)
		for (k = 0; own_tables[k] && !yes; k++)
			yes = opmfu_sqlite_has_table(db, own_tables[k]) == 1;
	if (yes && ps && list_parts(db, ps))
		yes = -2;
	sqlite3_close(db);
	return yes;
}

int opmfu_nsys_is_export(const char *path)
{
	return probe_db(path, NULL);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && !strcmp(s + n - k, suffix);
}

int opmfu_nsys_file_name(const char *base)
{
	return ends_with(base, ".sqlite");
}

/* in's run (reader.h); -1 when out of memory */
static int fill_run(const char *path, int name_rank, struct opmfu_rank_input *in)
{
	struct sbuf key, name;
	const char *base = opmfu_base_of(path);

	sbuf_init(&key);
	sbuf_init(&name);
	opmfu_run_by_file("nsys", path, in->dir, name_rank, strlen(base) - (ends_with(base, ".sqlite") ? 7 : 0), &key,
			  &name);
	return opmfu_rank_set_run(in, &key, &name);
}

/* in as the file's rank id, part k of ps (none: the whole file); -1 when
 * out of memory (in released) */
static int fill_rank(const char *path, int name_rank, const struct parts *ps, size_t k, struct opmfu_rank_input *in)
{
	in->rank = name_rank;
	in->n_parts = (int)ps->n;
	in->part[0] = in->part[1] = -1;
	if (ps->n) {
		in->part[0] = ps->v[k][0];
		in->part[1] = ps->v[k][1];
	}
	if (ps->n > 1)
		in->rank = (name_rank >= 0 ? name_rank : 0) * (int)ps->n + (int)k;
	in->path = opmfu_strdup(path);
	in->dir = opmfu_dir_of(path);
	in->name = in->path;
	if (!in->path || !in->dir || fill_run(path, name_rank, in)) {
		opmfu_rank_input_release(in);
		return -1;
	}
	return 0;
}

enum opmfu_probe opmfu_nsys_probe_file(const char *path, int named, struct opmfu_rank_input *in,
				       struct opmfu_rank_list *more)
{
	const char *base = opmfu_base_of(path);
	struct parts ps = { NULL, 0, 0 };
	int is, name_rank;
	size_t k;

	if (!named && !opmfu_nsys_file_name(base))
		return OPMFU_PROBE_NO;
	is = probe_db(path, more ? &ps : NULL);
	if (is != 1) {
		opmfu_free(ps.v);
		return is == -2 ? OPMFU_PROBE_NOMEM : OPMFU_PROBE_NO;
	}
	name_rank = opmfu_kineto_name_rank(base);
	/* a rank id past INT_MAX would wrap: such files are not profiled */
	if (ps.n > 1 && name_rank > 0 && (size_t)name_rank > (size_t)(2147483647 - ps.n) / ps.n)
		name_rank = 0;
	if (fill_rank(path, name_rank, &ps, 0, in))
		goto nomem;
	for (k = 1; k < ps.n; k++) {
		if (OPMFU_GROW(more->v, more->cap, more->n + 1))
			goto nomem;
		memset(&more->v[more->n], 0, sizeof(more->v[more->n]));
		if (fill_rank(path, name_rank, &ps, k, &more->v[more->n]))
			goto nomem;
		more->n++;
	}
	opmfu_free(ps.v);
	return OPMFU_PROBE_YES;
nomem:
	opmfu_free(ps.v);
	opmfu_rank_input_release(in);
	opmfu_rank_list_release(more);
	return OPMFU_PROBE_NOMEM;
}
