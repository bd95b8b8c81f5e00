/*
 * fuzz_result_db.c - an opmfu result database as `opmfu diff` reads it: the
 * input becomes a cluster_analysis.db (OpmfuRankSummary, OpmfuSteps,
 * OpmfuModules, OpmfuOpTypes, OpmfuDiff, the run account's OpmfuRun,
 * OpmfuHotspots and OpmfuStragglers, and OpmfuCollectives, declared from the library's own
 * table defs, a table or its last column sometimes left out, rows of any
 * storage class: NULLs, huge and negative integers, NaN and infinities,
 * texts where numbers belong, blobs, invalid UTF-8), which is read by
 * opmfu_results_read (the diff's rows) and by opmfu_results_tables (the
 * summary workbook's tables, in pieces, sometimes for ranks 0 and 1 only);
 * the pieces go into the summary workbook's gatherer and, sometimes, the
 * workbook is written.
 *
 * Invariants: a read that succeeds gives every row the table has (or every
 * row of ranks 0 and 1), in pieces of at most the piece size, each cell
 * NULL or of its column's type; a read that fails names the file, and only
 * a value of another type (OPMFU_ERR_FORMAT) or a missing table or column
 * of the diff's (OPMFU_ERR_SCHEMA) makes it fail; the workbook of what was
 * read is written.
 *
 * OPMFU_FUZZ_VERBOSE=1 prints what each input read.
 *
 * Input layout (every byte past the end reads as 0):
 *   byte 0   bit 0: ranks 0 and 1 only; bit 1: write the workbook; bits 2-4:
 *            the piece size, 1 << n rows; bit 5: leave OpmfuCollectives (table
 *            8) out; bit 6: leave its last column out
 *   byte 1   bit i: leave table i out; byte 2: bit i: leave its last column out (i < 8)
 *   then     rows: a table byte (index mod the table count), then one value
 *            per column, each a kind byte and its data (see value()).
 */
#define _GNU_SOURCE /* nftw's FTW_DEPTH and FTW_PHYS */
#include <ftw.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/account.h"
#include "analyze/collectives.h"
#include "fuzz.h"
#include "fuzz_input.h"
#include "fuzz_tables.h"
#include "lib/diff.h"
#include "analyze/hotspots.h"
#include "analyze/modules.h"
#include "lib/lib.h"
#include "read/results.h"
#include "write/summary_xlsx.h"

/* Texts the tables give meaning to: statuses, kinds, paths and names. */
static const char *const dict[] = {
	"ok", "failed", "no_mfu", "step_share", "module", "op_type", "model", "rank", "trace_mfu", "inefficiency",
	"other_compute", "comm_exposed", "idle", "Model", "Model/Layer_0/Attention", "Model/Layer_0", "aten::mm", "",
	"/", "//", "=1+1", "12", "-1",
};
#define NDICT (sizeof(dict) / sizeof(dict[0]))

static void value(struct reader *r, sqlite3_stmt *s, int col)
{
	unsigned kind = byte(r) % 8, len;

	switch (kind) {
	case 0:
		sqlite3_bind_null(s, col);
		break;
	case 1: /* a small integer: ranks meet, counts and times stay readable */
		sqlite3_bind_int64(s, col, (int64_t)(byte(r) % 4) - 1);
		break;
	case 2:
		sqlite3_bind_int64(s, col, (int64_t)(byte(r) << 16 | byte(r) << 8));
		break;
	case 3:
		sqlite3_bind_int64(s, col, (int64_t)u64(r));
		break;
	case 4: { /* any double: NaN, infinities, subnormals */
		uint64_t bits = u64(r);
		double d;
		memcpy(&d, &bits, sizeof(d));
		sqlite3_bind_double(s, col, d);
		break;
	}
	case 5:
		sqlite3_bind_text(s, col, dict[byte(r) % NDICT], -1, SQLITE_STATIC);
		break;
	default: /* raw bytes as text (NULs, invalid UTF-8) or a blob */
		len = byte(r) % 24;
		if (len > r->n)
			len = (unsigned)r->n;
		if (kind == 6)
			sqlite3_bind_text(s, col, (const char *)r->p, (int)len, SQLITE_TRANSIENT);
		else
			sqlite3_bind_blob(s, col, r->p, (int)len, SQLITE_TRANSIENT);
		r->p += len;
		r->n -= len;
		break;
	}
}

static const struct opmfu_table_def *const defs[] = {
	&opmfu_rank_summary_def, &opmfu_steps_def,     &opmfu_modules_def,    &opmfu_op_types_def,
	&opmfu_diff_def,	 &opmfu_run_def,       &opmfu_hotspots_def,   &opmfu_stragglers_def,
	&opmfu_collectives_def,
};
#define NTABLES (sizeof(defs) / sizeof(defs[0]))
_Static_assert(NTABLES == 9, "bytes 1 and 2 say which of the first 8 are left out or short, byte 0 the 9th");

/* Whether def has a rank_id column (its rows can be read for some ranks). */
static int has_rank(const struct opmfu_table_def *def)
{
	size_t c;
	for (c = 0; c < def->n_cols; c++)
		if (!strcmp(def->cols[c].name, "rank_id"))
			return 1;
	return 0;
}

/* The tables as the database writer declares them (INTEGER, REAL, TEXT),
 * the rows the input describes; rows[k]: how many table k has, and of
 * ranks 0 and 1. */
static void build_db(struct reader *r, const char *path, unsigned flags, size_t rows[NTABLES][2])
{
	unsigned omit = byte(r) | (flags >> 5 & 1) << 8, short_of = byte(r) | (flags >> 6 & 1) << 8;
	sqlite3_stmt *ins[NTABLES] = { 0 };
	size_t ncols[NTABLES], counted[NTABLES] = { 0 }, k;
	sqlite3 *db;

	FUZZ_ASSERT(sqlite3_open(path, &db) == SQLITE_OK);
	FUZZ_ASSERT(sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN", 0, 0, 0) == SQLITE_OK);
	for (k = 0; k < NTABLES; k++) {
		if (omit & 1u << k) {
			ncols[k] = 0;
			continue;
		}
		ncols[k] = defs[k]->n_cols - !!(short_of & 1u << k);
		ins[k] = fuzz_declare(db, defs[k], ncols[k]);
	}
	fuzz_fill(r, ins, ncols, NTABLES, value, counted);
	for (k = 0; k < NTABLES; k++) {
		sqlite3_finalize(ins[k]);
		rows[k][0] = counted[k];
	}
	FUZZ_ASSERT(sqlite3_exec(db, "COMMIT", 0, 0, 0) == SQLITE_OK);
	/* the rows of ranks 0 and 1, as SQLite compares them (an INTEGER column's 1.0 is 1) */
	for (k = 0; k < NTABLES; k++) {
		char sql[160];
		sqlite3_stmt *s;
		if (!ins[k] || !has_rank(defs[k]))
			continue;
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM \"%s\" WHERE \"rank_id\" IN (1,0)", defs[k]->name);
		FUZZ_ASSERT(sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK);
		FUZZ_ASSERT(sqlite3_step(s) == SQLITE_ROW);
		rows[k][1] = (size_t)sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
	}
	sqlite3_close(db);
}

/* What opmfu_results_tables gave, into the summary's gatherer. */
struct taken {
	struct opmfu_summary sum;
	size_t rows[NTABLES], piece;
};

static enum opmfu_status take(void *ctx, size_t k, const struct opmfu_table *t, struct opmfu_err *err)
{
	struct taken *g = ctx;
	struct opmfu_cell *cells = calloc(t->def->n_cols + 1, sizeof(*cells));
	enum opmfu_status st;
	size_t i, c;

	FUZZ_ASSERT(k < NTABLES && t->def == defs[k] && t->n_rows > 0 && t->n_rows <= g->piece && cells);
	for (i = 0; i < t->n_rows; i++) {
		t->row(t->src, i, cells);
		for (c = 0; c < t->def->n_cols; c++)
			FUZZ_ASSERT(cells[c].null || t->def->cols[c].type != OPMFU_COL_TEXT || cells[c].v.t.s);
	}
	free(cells);
	g->rows[k] += t->n_rows;
	if ((st = opmfu_summary_add(&g->sum, t, err)))
		return st;
	return opmfu_summary_keep(&g->sum, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int ranks[] = { 1, 0 };
	struct reader r = { data, size };
	unsigned flags = byte(&r);
	size_t rows[NTABLES][2] = { { 0 } };
	char path[128];
	struct taken g;
	struct opmfu_results res;
	struct opmfu_arena ar;
	struct opmfu_intern names;
	struct opmfu_err err = OPMFU_ERR_INIT;
	enum opmfu_status st;
	const char *dir = fuzz_scratch();
	size_t k;

	snprintf(path, sizeof(path), "%s/cluster_analysis.db", dir);
	unlink(path);
	build_db(&r, path, flags, rows);

	/* the diff's own reading: the tables it needs, or a message naming the file */
	memset(&ar, 0, sizeof(ar));
	opmfu_intern_init(&names, &ar);
	st = opmfu_results_read(path, &names, &res, &err);
	FUZZ_ASSERT(st == OPMFU_OK || st == OPMFU_ERR_FORMAT || st == OPMFU_ERR_SCHEMA);
	FUZZ_ASSERT(st != OPMFU_OK || res.n_ranks == rows[0][0]);
	FUZZ_ASSERT(st == OPMFU_OK || !strncmp(err.msg, path, strlen(path)));
	opmfu_results_release(&res);
	opmfu_intern_release(&names);
	opmfu_arena_release(&ar);

	/* the summary workbook's: every row, in pieces */
	memset(&g, 0, sizeof(g));
	opmfu_summary_init(&g.sum);
	g.piece = (size_t)1 << (flags >> 2 & 7);
	st = opmfu_results_tables(path, defs, NTABLES, flags & 1 ? ranks : NULL, flags & 1 ? 2 : 0, g.piece, take, &g,
				  &err);
	FUZZ_ASSERT(st == OPMFU_OK || st == OPMFU_ERR_FORMAT);
	FUZZ_ASSERT(st == OPMFU_OK || !strncmp(err.msg, path, strlen(path)));
	for (k = 0; st == OPMFU_OK && k < NTABLES; k++)
		FUZZ_ASSERT(g.rows[k] == rows[k][flags & 1 && has_rank(defs[k])]);
	if (getenv("OPMFU_FUZZ_VERBOSE"))
		fprintf(stderr, "read: %d%s%s; rows %zu %zu %zu %zu %zu\n", (int)st, st ? ": " : "", st ? err.msg : "",
			g.rows[0], g.rows[1], g.rows[2], g.rows[3], g.rows[4]);
	if (st == OPMFU_OK && (flags & 2)) {
		struct opmfu_write_stats ws;
		memset(&ws, 0, sizeof(ws));
		FUZZ_ASSERT(opmfu_summary_xlsx_save(&g.sum, dir, &ws, &err) == OPMFU_OK);
	}
	opmfu_summary_release(&g.sum);
	return 0;
}
