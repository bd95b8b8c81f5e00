/*
 * fuzz_shard_db.c - `opmfu merge` of a shard result the input describes
 * (lib/shard.c, lib/shard_pack.c, read/results.c): the tables of a shard (the
 * run's tables, OpmfuCollCalls, OpmfuModelRun, OpmfuShard and the packed ranks,
 * OpmfuShardPack and OpmfuShardPackLayout), declared from the library's own table
 * defs, a table or its last column sometimes left out, rows of any storage
 * class; the database is merged, alone or twice (the same shard given
 * twice), into a fresh folder with some exports.
 *
 * Invariants: the merge returns a status of base/status.h that a merge can
 * give; a failure has a message, and one about the input (malformed, schema)
 * names the shard's file; whatever the input, nothing crashes or leaks.
 *
 * Input layout (every byte past the end reads as 0):
 *   byte 0   bits 0-1: exports (db; db,csv; db,json; db,html); bit 2:
 *            --summary-only; bit 3: the shard given twice
 *   bytes 1-3  bit i: leave table i out; bytes 4-6: leave its last column out
 *   then     rows: a table byte (index mod the table count, the tables in
 *            name order), then one value per column: a kind byte and its data
 *            (value(): fuzz_db.h's kinds 0-10, and 11 a blob of a 2-byte length, a
 *            rank's pack). tests/fuzz/shard_db_seeds.py writes real shards so.
 */
#define _GNU_SOURCE /* nftw's FTW_DEPTH and FTW_PHYS */
#include <ftw.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/collectives.h"
#include "fuzz.h"
#include "fuzz_db.h"
#include "fuzz_input.h"
#include "fuzz_tables.h"
#include "lib/lib.h"
#include "lib/model_check.h"
#include "opmfu.h"

#define MAX_T 40

static const char *const dict[] = {
	"ascend", "kineto", "ok", "failed", "step", "backlog", "collective", "module_class", "op_type", "shape",
	"kernel", "none", "record", "fp16", "memory", "compute", "unknown", "", "=1+1", "<script>",
};
#define NDICT (sizeof(dict) / sizeof(dict[0]))

/* A value of a kind the next byte chooses (fuzz_db.h's fuzz_bind, 0-10; 11: a
 * blob of any length up to 65535, a 2-byte length first, as packs are). */
static void value(struct reader *r, sqlite3_stmt *s, int col)
{
	unsigned kind = byte(r) % 12, len;
	if (kind != 11) {
		fuzz_bind(r, s, col, kind, dict, NDICT);
		return;
	}
	len = byte(r) << 8;
	len |= byte(r);
	if (len > r->n)
		len = (unsigned)r->n;
	sqlite3_bind_blob(s, col, r->p, (int)len, SQLITE_TRANSIENT);
	r->p += len;
	r->n -= len;
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(const struct opmfu_table_def *const *)a)->name, (*(const struct opmfu_table_def *const *)b)->name);
}

/* The shard's tables, in name order. */
static size_t shard_defs(const struct opmfu_table_def **out)
{
	size_t n, k;
	const struct opmfu_table_def *const *run = opmfu_run_table_defs(&n);
	FUZZ_ASSERT(n + 5 <= MAX_T);
	for (k = 0; k < n; k++)
		out[k] = run[k];
	out[n++] = &opmfu_coll_calls_def;
	out[n++] = &opmfu_model_run_def;
	out[n++] = &opmfu_shard_def;
	out[n++] = &opmfu_shard_pack_def;
	out[n++] = &opmfu_shard_layout_def;
	qsort(out, n, sizeof(*out), by_name);
	return n;
}

static void build_db(struct reader *r, const char *path)
{
	const struct opmfu_table_def *defs[MAX_T];
	size_t nt = shard_defs(defs), ncols[MAX_T], k;
	uint32_t omit = byte(r) | byte(r) << 8 | byte(r) << 16, short_of = byte(r) | byte(r) << 8 | byte(r) << 16;
	sqlite3_stmt *ins[MAX_T] = { 0 };
	sqlite3 *db;

	FUZZ_ASSERT(sqlite3_open(path, &db) == SQLITE_OK);
	FUZZ_ASSERT(sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN", 0, 0, 0) == SQLITE_OK);
	for (k = 0; k < nt; k++) {
		if (k < 24 && omit & 1u << k)
			continue;
		ncols[k] = defs[k]->n_cols - (k < 24 && short_of & 1u << k ? 1 : 0);
		if (ncols[k])
			ins[k] = fuzz_declare(db, defs[k], ncols[k]);
	}
	fuzz_fill(r, ins, ncols, nt, value, NULL);
	for (k = 0; k < nt; k++)
		sqlite3_finalize(ins[k]);
	FUZZ_ASSERT(sqlite3_exec(db, "COMMIT", 0, 0, 0) == SQLITE_OK);
	sqlite3_close(db);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned exports[] = { OPMFU_EXPORT_DB, OPMFU_EXPORT_DB | OPMFU_EXPORT_CSV,
					    OPMFU_EXPORT_DB | OPMFU_EXPORT_JSON, OPMFU_EXPORT_DB | OPMFU_EXPORT_HTML };
	struct reader r = { data, size };
	unsigned flags = byte(&r);
	char path[160], out[160];
	const char *inputs[2];
	struct opmfu_opts o;
	struct opmfu_run *run = NULL;
	struct opmfu_err err = OPMFU_ERR_INIT;
	enum opmfu_status st;
	const char *dir = fuzz_scratch();

	FUZZ_ASSERT(snprintf(path, sizeof(path), "%s/shard.db", dir) < (int)sizeof(path));
	FUZZ_ASSERT(snprintf(out, sizeof(out), "%s/out", dir) < (int)sizeof(out));
	unlink(path);
	nftw(out, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	build_db(&r, path);

	memset(&o, 0, sizeof(o));
	inputs[0] = inputs[1] = path;
	o.inputs = inputs;
	o.n_inputs = flags & 8 ? 2 : 1;
	o.out_dir = out;
	o.exports = exports[flags & 3];
	o.summary_only = !!(flags & 4);
	o.jobs = 1;
	st = opmfu_merge(&o, &run, &err);
	if (getenv("OPMFU_FUZZ_VERBOSE"))
		fprintf(stderr, "merge: %d %s\n", (int)st, err.msg);
	FUZZ_ASSERT(st == OPMFU_OK || st == OPMFU_ERR_PARTIAL || st == OPMFU_ERR_USAGE || st == OPMFU_ERR_FORMAT ||
		    st == OPMFU_ERR_SCHEMA || st == OPMFU_ERR_SQLITE || st == OPMFU_ERR_IO);
	FUZZ_ASSERT(st == OPMFU_OK || err.msg[0]);
	FUZZ_ASSERT((st != OPMFU_ERR_FORMAT && st != OPMFU_ERR_SCHEMA) || strstr(err.msg, path));
	opmfu_run_free(run);
	return 0;
}
