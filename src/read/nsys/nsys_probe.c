/*
 * nsys_probe.c - which files are Nsight Systems exports (SPEC 21): a SQLite
 * database with a StringIds table and one of the tables only nsys writes.
 * A file the user names is probed whatever its name; in a walk only
 * *.sqlite files are opened (opening every file met would cost more than
 * it finds). The rank is the number after "rank" in the file name (nsys
 * writes no rank into the export), else -1; ranks numbered by their file
 * names are one run per folder (one job's files side by side: a cluster),
 * a file without is a run of its own.
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

int opmfu_nsys_is_export(const char *path)
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
	sqlite3_close(db);
	return yes;
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

enum opmfu_probe opmfu_nsys_probe_file(const char *path, int named, struct opmfu_rank_input *in)
{
	const char *base = opmfu_base_of(path);
	int rank;

	if (!named && !opmfu_nsys_file_name(base))
		return OPMFU_PROBE_NO;
	if (opmfu_nsys_is_export(path) != 1)
		return OPMFU_PROBE_NO;
	rank = opmfu_kineto_name_rank(base);
	in->rank = rank;
	in->path = opmfu_strdup(path);
	in->dir = opmfu_dir_of(path);
	in->name = in->path;
	if (!in->path || !in->dir || fill_run(path, rank, in)) {
		opmfu_rank_input_release(in);
		return OPMFU_PROBE_NOMEM;
	}
	return OPMFU_PROBE_YES;
}
