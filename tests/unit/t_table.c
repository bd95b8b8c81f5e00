/*
 * t_table.c - the result table (trace/table.h): cells, the cell store (texts
 * copied and never moved, allocation failures), and the writers of
 * write/writer.h on a hand-built table: the database read back through
 * sqlite3 (types and values exactly, batches and the rows after them, rows
 * taken back by drop_rank, a run not committed), the workbook through
 * tests/tools/xlsx_cells.py (titles, widths, merges, number formats, digits
 * as text). Also: every table a run writes has the columns of its
 * schema/out file, in order.
 * argv: python3, xlsx_cells.py, a scratch directory.
 */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/ops.h"
#include "reference/module_table.h"
#include "reference/operator_mfu.h"
#include "base/mem.h"
#include "check.h"
#include "files.h"
#include "lib/lib.h"
#include "trace/table.h"
#include "write/writer.h"
#include "xlsx_dump.h"

static char dir[4096];

static const struct opmfu_column test_cols[] = {
	{ "rank_id", OPMFU_COL_INT, "Rank", 0, 0 },
	{ "grp", OPMFU_COL_TEXT, "Group", 12, OPMFU_COLF_MERGE },
	{ "item", OPMFU_COL_TEXT, "Item", 0, OPMFU_COLF_MERGE_IN_PREV },
	{ "start", OPMFU_COL_INT, "Start(ns)", 21, OPMFU_COLF_BIG_INT_TEXT },
	{ "end", OPMFU_COL_INT, "End(ns)", 21, OPMFU_COLF_BIG_INT_TEXT },
	{ "ratio", OPMFU_COL_REAL, "Ratio", 10, OPMFU_COLF_PERCENT | OPMFU_COLF_COLOR_SCALE },
	{ "count", OPMFU_COL_INT, "Count", 0, 0 },
	{ "note", OPMFU_COL_TEXT, "Note", 30, 0 },
};
enum { NCOL = sizeof(test_cols) / sizeof(test_cols[0]) };

/* no schema/out file: the database writer makes its CREATE TABLE from the columns */
static const struct opmfu_table_def test_def = { "OpmfuTest", test_cols, NCOL, "opmfu_test", 0, NULL };
static const struct opmfu_table_def nobook_def = { "OpmfuNoBook", test_cols, NCOL, NULL, 0, NULL };

/* ---- cells and the cell store ---- */

static void test_cells(void)
{
	struct opmfu_cell c = opmfu_cell_str(NULL);
	CHECK(c.null);
	c = opmfu_cell_str("abc");
	CHECK(!c.null && c.v.t.n == 3 && !strcmp(c.v.t.s, "abc"));
	c = opmfu_cell_text("abcdef", 2);
	CHECK(!c.null && c.v.t.n == 2);
	c = opmfu_cell_int(INT64_MIN);
	CHECK(!c.null && c.v.i == INT64_MIN);
	c = opmfu_cell_real(-0.5);
	CHECK(!c.null && c.v.r == -0.5);
	CHECK(opmfu_cell_null().null);
}

/* Row i of the generated table: repeats, NULLs, extremes. */
static void gen_row(size_t i, struct opmfu_cell *c, char *buf, size_t size)
{
	static const char *const groups[] = { "g0", "g1", "g1" };
	snprintf(buf, size, "note %zu%s", i % 5, i % 4 ? "" : " \xe2\x82\xac");
	c[0] = opmfu_cell_int(3);
	c[1] = opmfu_cell_str(groups[i % 3]);
	c[2] = i % 7 == 0 ? opmfu_cell_null() : opmfu_cell_text("item-xyz", 4 + i % 3); /* not NUL-terminated */
	c[3] = opmfu_cell_int(i == 1 ? INT64_MAX : 1736410576000013500LL + (int64_t)i);
	c[4] = opmfu_cell_int(i == 1 ? INT64_MIN : -(int64_t)(i / 2));
	c[5] = i % 11 == 0 ? opmfu_cell_null() : opmfu_cell_real(i == 2 ? 0.1 + 0.2 : (double)(i % 4) / 4);
	c[6] = opmfu_cell_int((int64_t)(i / 32));
	c[7] = opmfu_cell_str(buf);
}

static void store_rows(struct opmfu_cell_store *cs, size_t n)
{
	struct opmfu_err e = OPMFU_ERR_INIT;
	struct opmfu_cell c[NCOL];
	char buf[64];
	size_t i;
	for (i = 0; i < n; i++) {
		gen_row(i, c, buf, sizeof(buf));
		CHECK_INT(opmfu_cell_store_add(cs, c, &e), OPMFU_OK);
	}
}

static void test_store(void)
{
	struct opmfu_cell_store cs;
	struct opmfu_cell c[NCOL], got[NCOL];
	struct opmfu_table t;
	struct opmfu_err e = OPMFU_ERR_INIT;
	const char *first;
	char buf[64], *big;
	size_t i, big_n = 3u << 20;
	long k;
	int nomem = 0;

	opmfu_cell_store_init(&cs, &test_def);
	store_rows(&cs, 1000);
	t = opmfu_cell_store_table(&cs);
	CHECK(t.def == &test_def && t.n_rows == 1000);
	t.row(t.src, 0, got);
	first = got[7].v.t.s;
	for (i = 0; i < 1000; i++) {
		gen_row(i, c, buf, sizeof(buf));
		t.row(t.src, i, got);
		CHECK_INT(got[0].v.i, 3);
		CHECK(got[2].null == c[2].null);
		if (!c[2].null)
			CHECK(got[2].v.t.n == c[2].v.t.n && !memcmp(got[2].v.t.s, "item-xyz", got[2].v.t.n) &&
			      got[2].v.t.s[got[2].v.t.n] == '\0' && got[2].v.t.s != c[2].v.t.s);
		CHECK(got[3].v.i == c[3].v.i && got[4].v.i == c[4].v.i);
		CHECK(got[5].null == c[5].null && (c[5].null || got[5].v.r == c[5].v.r));
		CHECK_STR(got[7].v.t.s, buf);
	}
	/* a text longer than any block, then the first row's text has not moved */
	big = malloc(big_n + 1);
	CHECK(big != NULL);
	if (big) {
		memset(big, 'b', big_n);
		big[big_n] = '\0';
		gen_row(0, c, buf, sizeof(buf));
		c[7] = opmfu_cell_text(big, big_n);
		CHECK_INT(opmfu_cell_store_add(&cs, c, &e), OPMFU_OK);
		t = opmfu_cell_store_table(&cs);
		t.row(t.src, 1000, got);
		CHECK(got[7].v.t.n == big_n && !memcmp(got[7].v.t.s, big, big_n + 1));
		free(big);
	}
	store_rows(&cs, 100);
	t = opmfu_cell_store_table(&cs);
	CHECK_INT(t.n_rows, 1101);
	t.row(t.src, 0, got);
	CHECK(got[7].v.t.s == first && !strcmp(first, "note 0 \xe2\x82\xac"));
	opmfu_cell_store_release(&cs);
	CHECK_INT(cs.n_rows, 0);

	/* every allocation failing in turn: NOMEM, and the row is not there */
	opmfu_cell_store_init(&cs, &test_def);
	for (k = 1; k < 20; k++) {
		enum opmfu_status st;
		size_t before = cs.n_rows;
		gen_row(1, c, buf, sizeof(buf));
		opmfu_mem_fail_after(k);
		st = opmfu_cell_store_add(&cs, c, &e);
		opmfu_mem_fail_after(0);
		if (st == OPMFU_OK) {
			CHECK_INT(cs.n_rows, before + 1);
			continue;
		}
		nomem++;
		CHECK_INT(st, OPMFU_ERR_NOMEM);
		CHECK_STR(e.msg, "out of memory adding a row to OpmfuTest");
		CHECK_INT(cs.n_rows, before);
	}
	CHECK(nomem >= 2);
	opmfu_cell_store_release(&cs);
}

/* ---- the database writer ---- */

static sqlite3 *open_db(const char *path)
{
	sqlite3 *db = NULL;
	CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	return db;
}

static long count(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s = NULL;
	long n = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

/* Column k of s's row is cell c of a column of that type, exactly: storage
 * class and value. */
static void check_cell(sqlite3_stmt *s, int k, const struct opmfu_cell *c, enum opmfu_coltype type)
{
	int got = sqlite3_column_type(s, k);
	if (c->null) {
		CHECK_INT(got, SQLITE_NULL);
	} else if (type == OPMFU_COL_INT) {
		CHECK_INT(got, SQLITE_INTEGER);
		CHECK(sqlite3_column_int64(s, k) == c->v.i);
	} else if (type == OPMFU_COL_REAL) {
		CHECK_INT(got, SQLITE_FLOAT);
		CHECK_DBL(sqlite3_column_double(s, k), c->v.r);
	} else {
		CHECK_INT(got, SQLITE_TEXT);
		CHECK_INT(sqlite3_column_bytes(s, k), c->v.t.n);
		CHECK(!memcmp(sqlite3_column_text(s, k), c->v.t.s, c->v.t.n));
	}
}

/* The n rows of gen_row in OpmfuTest, exactly: storage class and value. */
static void check_rows(sqlite3 *db, size_t n)
{
	sqlite3_stmt *s = NULL;
	struct opmfu_cell c[NCOL];
	char buf[64];
	size_t i = 0;
	int k;

	CHECK(sqlite3_prepare_v2(db, "SELECT * FROM \"OpmfuTest\" ORDER BY rowid", -1, &s, NULL) == SQLITE_OK);
	while (s && sqlite3_step(s) == SQLITE_ROW) {
		gen_row(i, c, buf, sizeof(buf));
		for (k = 0; k < NCOL; k++)
			check_cell(s, k, &c[k], test_cols[k].type);
		i++;
	}
	sqlite3_finalize(s);
	CHECK_INT(i, n);
}

static void test_db(void)
{
	const struct opmfu_writer_type *wt = opmfu_writer_type_find("db");
	const struct opmfu_table_def *defs[] = { &test_def };
	struct opmfu_writer *w = NULL;
	struct opmfu_cell_store cs;
	struct opmfu_table t;
	struct opmfu_write_stats ks;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char path[4200];
	sqlite3 *db;

	CHECK(wt && !strcmp(wt->where, "cluster_analysis.db"));
	if (!wt)
		return;
	snprintf(path, sizeof(path), "%s/out.db", dir);
	opmfu_cell_store_init(&cs, &test_def);
	/* two whole batches of 32 and 6 rows one at a time */
	store_rows(&cs, 70);
	t = opmfu_cell_store_table(&cs);
	CHECK_INT(wt->open(&w, path, defs, 1, &e), OPMFU_OK);
	CHECK_INT(opmfu_writer_put(w, 3, &t, &e), OPMFU_OK);
	CHECK_INT(opmfu_writer_keep_rank(w, 3, &ks, &e), OPMFU_OK);
	CHECK_INT(ks.files + ks.truncated + ks.repaired + ks.blanks, 0);
	/* a table not given to open */
	t.def = &nobook_def;
	CHECK_INT(opmfu_writer_put(w, 3, &t, &e), OPMFU_ERR_USAGE);
	CHECK(strstr(e.msg, "OpmfuNoBook") != NULL);
	t.def = &test_def;
	CHECK_INT(opmfu_writer_commit(w, &e), OPMFU_OK);
	opmfu_writer_close(w);
	db = open_db(path);
	check_rows(db, 70);
	CHECK_INT(count(db, "SELECT count(*) FROM pragma_table_info('OpmfuTest') WHERE "
			    "(cid = 0 AND name = 'rank_id' AND type = 'INTEGER') OR "
			    "(cid = 5 AND name = 'ratio' AND type = 'REAL') OR "
			    "(cid = 7 AND name = 'note' AND type = 'TEXT')"),
		  3);
	sqlite3_close(db);

	/* a new run replaces the table; a rank dropped after its rows were put
	 * leaves none; the next put binds its own strings, though the store
	 * that held the first ones is gone (its memory may be the same) */
	CHECK_INT(wt->open(&w, path, defs, 1, &e), OPMFU_OK);
	CHECK_INT(opmfu_writer_put(w, 3, &t, &e), OPMFU_OK);
	CHECK_INT(opmfu_writer_drop_rank(w, 3, &e), OPMFU_OK);
	opmfu_cell_store_release(&cs);
	store_rows(&cs, 40);
	t = opmfu_cell_store_table(&cs);
	CHECK_INT(opmfu_writer_put(w, 3, &t, &e), OPMFU_OK);
	CHECK_INT(opmfu_writer_keep_rank(w, 3, &ks, &e), OPMFU_OK);
	CHECK_INT(opmfu_writer_drop_rank(w, 3, &e), OPMFU_OK); /* kept: nothing to take back */
	CHECK_INT(opmfu_writer_commit(w, &e), OPMFU_OK);
	opmfu_writer_close(w);
	db = open_db(path);
	check_rows(db, 40);
	sqlite3_close(db);

	/* closed without commit: the previous results stay */
	CHECK_INT(wt->open(&w, path, defs, 1, &e), OPMFU_OK);
	CHECK_INT(opmfu_writer_put(w, 3, &t, &e), OPMFU_OK);
	opmfu_writer_close(w);
	db = open_db(path);
	check_rows(db, 40);
	sqlite3_close(db);
	opmfu_cell_store_release(&cs);
	unlink(path);

	/* unopenable: the message names the file */
	CHECK_INT(wt->open(&w, "/nonexistent-opmfu-dir/out.db", defs, 1, &e), OPMFU_ERR_SQLITE);
	CHECK(w == NULL && strstr(e.msg, "/nonexistent-opmfu-dir/out.db: cannot open for writing") == e.msg);
}

/* The tables of a run: the database gets each from its schema/out file,
 * whose columns must be the def's, in order. */
static void test_run_tables(void)
{
	const struct opmfu_table_def *defs[] = { &opmfu_operator_mfu_def, &opmfu_module_mfu_def,
						 &opmfu_rank_summary_def };
	const struct opmfu_writer_type *wt = opmfu_writer_type_find("db");
	struct opmfu_writer *w = NULL;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char path[4200], sql[256];
	sqlite3 *db;
	size_t d, c;

	snprintf(path, sizeof(path), "%s/run.db", dir);
	CHECK_INT(wt->open(&w, path, defs, 3, &e), OPMFU_OK);
	CHECK_INT(opmfu_writer_commit(w, &e), OPMFU_OK);
	opmfu_writer_close(w);
	db = open_db(path);
	for (d = 0; d < 3; d++) {
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM pragma_table_info('%s')", defs[d]->name);
		CHECK_INT(count(db, sql), defs[d]->n_cols);
		for (c = 0; c < defs[d]->n_cols; c++) {
			snprintf(sql, sizeof(sql),
				 "SELECT count(*) FROM pragma_table_info('%s') WHERE cid = %zu AND name = '%s'",
				 defs[d]->name, c, defs[d]->cols[c].name);
			CHECK_INT(count(db, sql), 1);
		}
	}
	/* the schema/out text, comments and all */
	CHECK_INT(count(db, "SELECT count(*) FROM sqlite_master WHERE name = 'OperatorMFU' AND "
			    "sql LIKE 'CREATE TABLE \"OperatorMFU\" (%'"),
		  1);
	sqlite3_close(db);
	unlink(path);
}

/* OpmfuOps, stored narrow behind its view (trace/table.h's store): rows put
 * from cells (as opmfu merge puts a shard's), a rank taken back, the view
 * giving every cell back as it was put and the dimensions keyed per rank. */
#define OPS_NCOL 24
static void ops_cells(struct opmfu_cell *c, int rank, const char *op, const char *mod, int64_t start, int64_t kns,
		      int64_t flops, int64_t bytes, int64_t lost, double mfu)
{
	int k;
	for (k = 0; k < OPS_NCOL; k++)
		c[k] = opmfu_cell_null();
	c[0] = opmfu_cell_int(rank);
	c[1] = opmfu_cell_int(3);
	c[2] = opmfu_cell_str(op);
	c[3] = opmfu_cell_str(mod);
	c[4] = opmfu_cell_int(start);
	c[5] = opmfu_cell_int(start + kns + 5);
	c[6] = opmfu_cell_int(1);
	c[7] = opmfu_cell_str("gemm_kernel");
	c[8] = opmfu_cell_int(kns);
	c[10] = opmfu_cell_str(flops >= 0 ? "shape" : "none");
	c[11] = opmfu_cell_str("fp16");
	c[12] = opmfu_cell_real(989.5);
	if (flops >= 0) {
		c[9] = opmfu_cell_int(flops);
		c[13] = opmfu_cell_real((double)flops / (double)kns / 1e3);
		c[14] = opmfu_cell_real(mfu);
	}
	c[15] = opmfu_cell_int(lost);
	if (bytes >= 0) {
		c[17] = opmfu_cell_int(bytes);
		if (flops >= 0 && bytes > 0)
			c[18] = opmfu_cell_real((double)flops / (double)bytes);
		c[19] = opmfu_cell_real((double)bytes / (double)kns / 1e3);
		c[21] = opmfu_cell_int(kns / 3);
		c[22] = opmfu_cell_real(1.0 / 3.0);
		c[23] = opmfu_cell_int(kns - kns / 3);
	} else {
		c[23] = opmfu_cell_int(kns);
	}
	c[20] = opmfu_cell_str(bytes >= 0 ? "memory" : "unknown");
}

static void test_stored(void)
{
	const struct opmfu_writer_type *wt = opmfu_writer_type_find("db");
	const struct opmfu_table_def *defs[] = { &opmfu_ops_def };
	struct opmfu_cell_store cs[3], want;
	struct opmfu_cell c[OPS_NCOL];
	struct opmfu_writer *w = NULL;
	struct opmfu_write_stats ks;
	struct opmfu_err e = OPMFU_ERR_INIT;
	struct opmfu_table t;
	sqlite3_stmt *s = NULL;
	char path[4200];
	size_t i, n = 0;
	sqlite3 *db;
	int r, k;

	CHECK(opmfu_ops_def.store != NULL && opmfu_ops_def.n_cols == OPS_NCOL);
	opmfu_cell_store_init(&want, &opmfu_ops_def);
	for (r = 0; r < 3; r++) {
		opmfu_cell_store_init(&cs[r], &opmfu_ops_def);
		/* the same op twice (its texts copied apart: one kind by their bytes), another op,
		 * a module of its own and none; lost_ns all of kernel_ns and not; bytes and none */
		ops_cells(c, r, "aten::mm", "Model/Layer_0", 100, 30, 3000000, 4096, 10, 0.25);
		CHECK_INT(opmfu_cell_store_add(&cs[r], c, &e), OPMFU_OK);
		ops_cells(c, r, "aten::mm", "Model/Layer_0", 200, 40, 5000000, 8192, 40, 1.5);
		CHECK_INT(opmfu_cell_store_add(&cs[r], c, &e), OPMFU_OK);
		ops_cells(c, r, "aten::add", NULL, 300, 7, -1, -1, 7, 0);
		CHECK_INT(opmfu_cell_store_add(&cs[r], c, &e), OPMFU_OK);
		ops_cells(c, r, "aten::mm", "Model/Layer_1", 400, 9, 0, 0, 9, 0);
		CHECK_INT(opmfu_cell_store_add(&cs[r], c, &e), OPMFU_OK);
	}
	snprintf(path, sizeof(path), "%s/stored.db", dir);
	CHECK_INT(wt->open(&w, path, defs, 1, &e), OPMFU_OK);
	for (r = 0; r < 3 && w; r++) {
		t = opmfu_cell_store_table(&cs[r]);
		CHECK_INT(opmfu_writer_put(w, r, &t, &e), OPMFU_OK);
		if (r == 1) {
			CHECK_INT(opmfu_writer_drop_rank(w, r, &e), OPMFU_OK);
			continue;
		}
		CHECK_INT(opmfu_writer_keep_rank(w, r, &ks, &e), OPMFU_OK);
		for (i = 0; i < cs[r].n_rows; i++)
			CHECK_INT(opmfu_cell_store_add(&want, &cs[r].cells[i * OPS_NCOL], &e), OPMFU_OK);
	}
	CHECK_INT(opmfu_writer_commit(w, &e), OPMFU_OK);
	opmfu_writer_close(w);

	db = open_db(path);
	CHECK(sqlite3_prepare_v2(db, "SELECT * FROM OpmfuOps", -1, &s, NULL) == SQLITE_OK);
	while (s && sqlite3_step(s) == SQLITE_ROW && n < want.n_rows) {
		const struct opmfu_cell *x = &want.cells[n++ * OPS_NCOL];
		for (k = 0; k < OPS_NCOL; k++)
			check_cell(s, k, &x[k], opmfu_ops_def.cols[k].type);
	}
	sqlite3_finalize(s);
	CHECK_INT(n, 8);
	CHECK_INT(count(db, "SELECT count(*) FROM OpmfuOps"), 8);
	/* per kept rank two kinds: aten::mm's (its three rows: the same names, classes, peak and
	 * bound) and aten::add's (source none, bound unknown); modules Layer_0, none, Layer_1;
	 * nothing of rank 1 */
	CHECK_INT(count(db, "SELECT count(*) FROM OpmfuOps_kinds WHERE rank_id = 0"), 2);
	CHECK_INT(count(db, "SELECT count(*) FROM OpmfuOps_modules WHERE rank_id = 0"), 3);
	CHECK_INT(count(db, "SELECT count(*) FROM OpmfuOps_kinds WHERE rank_id = 2"), 2);
	CHECK_INT(count(db, "SELECT max(id) FROM OpmfuOps_modules WHERE rank_id = 2"), 3);
	CHECK_INT(count(db, "SELECT count(DISTINCT kind) FROM OpmfuOps_rows WHERE rank_id = 2"), 2);
	CHECK_INT(count(db, "SELECT count(*) FROM OpmfuOps_rows WHERE rank_id = 1"), 0);
	CHECK_INT(count(db, "SELECT count(*) FROM OpmfuOps_kinds WHERE rank_id = 1"), 0);
	CHECK_INT(count(db, "SELECT count(*) FROM OpmfuOps_modules WHERE rank_id = 1"), 0);
	/* from cells the peaks are unknown: the ratios are stored (aten::mm's three rows a rank);
	 * lost_ns and recoverable_ns only where they are not all of kernel_ns */
	CHECK_INT(count(db, "SELECT count(*) FROM OpmfuOps_rows WHERE mfu IS NOT NULL"), 6);
	CHECK_INT(count(db, "SELECT count(*) FROM OpmfuOps_kinds WHERE peak IS NOT NULL OR bw IS NOT NULL"), 0);
	CHECK_INT(count(db, "SELECT count(*) FROM OpmfuOps_rows WHERE lost_ns IS NULL"), 6);
	CHECK_INT(count(db, "SELECT count(*) FROM OpmfuOps_rows WHERE recoverable_ns IS NULL"), 2);
	sqlite3_close(db);
	unlink(path);
	for (r = 0; r < 3; r++)
		opmfu_cell_store_release(&cs[r]);
	opmfu_cell_store_release(&want);
}

/* ---- the xlsx writer ---- */

/* Group g1 rows 2-4 (item a merged in 2-3, b alone in 4), g2 rows 5-6 (item
 * a again: a new run, the group changed), NULL group row 7. */
static const char xlsx_want[] =
	"sheet Sheet1\n"
	"dimension A1:H7\n"
	"freeze A2\n"
	"autofilter A1:H7\n"
	"col B width 12 (xml 12.7109375)\n"
	"col D width 21 (xml 21.7109375)\n"
	"col E width 21 (xml 21.7109375)\n"
	"col F width 10 (xml 10.7109375)\n"
	"col H width 30 (xml 30.7109375)\n"
	"row 1 height 27\n"
	"merge B2:B4\n"
	"merge C2:C3\n"
	"merge B5:B6\n"
	"merge C5:C6\n"
	/* above 1 is suspect: its own style, and the colour scale stops there */
	"conditional F2:F7 cellIs dxfId=0 operator=greaterThan stopIfTrue=1 formula 1 style (bold, font FF7F0000, "
	"fill bgColor FFB4A7D6)\n"
	"conditional F2:F7 colorScale num 0 FFF8696B, num 0.5 FFFFEB84, num 1 FF63BE7B\n"
	"ignore D2:E7 numberStoredAsText\n"
	/* every workbook prints landscape, one page wide, its header on each page (SPEC 14) */
	"page landscape fit 1x0\n"
	"print titles $1:$1\n"
	"style 1: font \"Times New Roman\" 11 bold; fill solid FFAFEEEE; border thin; valign center; "
	"numfmt \"General\"\n"
	"style 2: font \"Times New Roman\" 11; fill none; border thin; valign center; numfmt \"General\"\n"
	"style 3: font \"Times New Roman\" 11; fill none; border thin; valign center; numfmt \"0.00%\"\n"
	"A1=Rank (s) s1\nB1=Group (s) s1\nC1=Item (s) s1\nD1=Start(ns) (s) s1\nE1=End(ns) (s) s1\nF1=Ratio (s) s1\n"
	"G1=Count (s) s1\nH1=Note (s) s1\n"
	"A2=4 (n) s2\nB2=g1 (s) s2\nC2=a (s) s2\nD2=1736410576000013500 (s) s2\nE2=-9223372036854775808 (s) s2\n"
	"F2=0.25 (n) s3\nG2=3 (n) s2\nH2==1+1 (s) s2\n"
	"A3=4 (n) s2\nB3= (blank) s2\nC3= (blank) s2\nD3=5 (s) s2\nE3=6 (s) s2\nF3= (blank) s3\nG3= (blank) s2\n"
	"H3=bad\xef\xbf\xbd (s) s2\n"
	/* 2^53 + 1 as a sheet number: why the timestamps are text */
	"A4=4 (n) s2\nB4= (blank) s2\nC4=b (s) s2\nD4=7 (s) s2\nE4=8 (s) s2\nF4=1 (n) s3\nG4=9007199254740992 (n) s2\n"
	"H4= (blank) s2\n"
	"A5=4 (n) s2\nB5=g2 (s) s2\nC5=a (s) s2\nD5=9 (s) s2\nE5=10 (s) s2\nF5=0.5 (n) s3\nG5=0 (n) s2\nH5=x (s) s2\n"
	"A6=4 (n) s2\nB6= (blank) s2\nC6= (blank) s2\nD6=11 (s) s2\nE6=12 (s) s2\nF6=0 (n) s3\nG6=1 (n) s2\n"
	"H6=y (s) s2\n"
	"A7=4 (n) s2\nB7= (blank) s2\nC7= (blank) s2\nD7=13 (s) s2\nE7=14 (s) s2\nF7=0.75 (n) s3\nG7=2 (n) s2\n"
	"H7=z (s) s2\n";

static void xrow(struct opmfu_cell_store *cs, const char *grp, const char *item, int64_t start, int64_t end,
		 struct opmfu_cell ratio, struct opmfu_cell n, struct opmfu_cell note)
{
	struct opmfu_err e = OPMFU_ERR_INIT;
	struct opmfu_cell c[NCOL] = { opmfu_cell_int(4), opmfu_cell_str(grp), opmfu_cell_str(item),
				      opmfu_cell_int(start), opmfu_cell_int(end), ratio, n, note };
	CHECK_INT(opmfu_cell_store_add(cs, c, &e), OPMFU_OK);
}

static void test_xlsx(void)
{
	const struct opmfu_writer_type *wt = opmfu_writer_type_find("xlsx");
	const struct opmfu_table_def *defs[] = { &nobook_def, &test_def };
	struct opmfu_writer *w = NULL;
	struct opmfu_cell_store cs;
	struct opmfu_table t;
	struct opmfu_write_stats ks;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char path[4200];

	CHECK(wt && !strcmp(wt->where, "OperatorMfu"));
	if (!wt)
		return;
	opmfu_cell_store_init(&cs, &test_def);
	xrow(&cs, "g1", "a", 1736410576000013500LL, INT64_MIN, opmfu_cell_real(0.25), opmfu_cell_int(3),
	     opmfu_cell_str("=1+1"));
	xrow(&cs, "g1", "a", 5, 6, opmfu_cell_real(NAN), opmfu_cell_null(), opmfu_cell_text("bad\xff", 4));
	xrow(&cs, "g1", "b", 7, 8, opmfu_cell_real(1), opmfu_cell_int(9007199254740993LL), opmfu_cell_null());
	xrow(&cs, "g2", "a", 9, 10, opmfu_cell_real(0.5), opmfu_cell_int(0), opmfu_cell_str("x"));
	xrow(&cs, "g2", "a", 11, 12, opmfu_cell_real(0), opmfu_cell_int(1), opmfu_cell_str("y"));
	xrow(&cs, NULL, NULL, 13, 14, opmfu_cell_real(0.75), opmfu_cell_int(2), opmfu_cell_str("z"));
	t = opmfu_cell_store_table(&cs);

	CHECK_INT(wt->open(&w, dir, defs, 2, &e), OPMFU_OK);
	if (!w)
		return;
	CHECK_INT(opmfu_writer_put(w, 4, &t, &e), OPMFU_OK);
	/* a table without a workbook name has none */
	t.def = &nobook_def;
	CHECK_INT(opmfu_writer_put(w, 4, &t, &e), OPMFU_OK);
	t.def = &test_def;
	CHECK_INT(tmp_files(dir), 1);
	CHECK_INT(opmfu_writer_keep_rank(w, 4, &ks, &e), OPMFU_OK);
	CHECK_INT(ks.files, 1u << 1);
	CHECK_INT(ks.repaired, 1);
	CHECK_INT(ks.blanks, 1);
	CHECK_INT(ks.truncated, 0);
	CHECK_INT(opmfu_writer_commit(w, &e), OPMFU_OK);
	opmfu_writer_close(w);
	CHECK_INT(tmp_files(dir), 0);
	snprintf(path, sizeof(path), "%s/opmfu_test_4.xlsx", dir);
	xlsx_check_dump(path, xlsx_want);
	unlink(path);

	/* rank 5 has no rows: its earlier workbook goes, at commit; rank 6 is dropped: its stays */
	CHECK_INT(wt->open(&w, dir, defs, 2, &e), OPMFU_OK);
	snprintf(path, sizeof(path), "%s/opmfu_test_5.xlsx", dir);
	put_file(path, "stale");
	t.n_rows = 0;
	CHECK_INT(opmfu_writer_put(w, 5, &t, &e), OPMFU_OK);
	CHECK(file_is(path, "stale"));
	CHECK_INT(opmfu_writer_keep_rank(w, 5, &ks, &e), OPMFU_OK);
	CHECK_INT(ks.files, 0);
	CHECK(file_is(path, "stale")); /* every output of a run appears at its commit */
	snprintf(path, sizeof(path), "%s/opmfu_test_6.xlsx", dir);
	put_file(path, "earlier");
	t = opmfu_cell_store_table(&cs);
	CHECK_INT(opmfu_writer_put(w, 6, &t, &e), OPMFU_OK);
	CHECK_INT(tmp_files(dir), 1);
	CHECK_INT(opmfu_writer_drop_rank(w, 6, &e), OPMFU_OK);
	CHECK_INT(tmp_files(dir), 0);
	CHECK(file_is(path, "earlier"));
	CHECK_INT(opmfu_writer_keep_rank(w, 6, &ks, &e), OPMFU_OK);
	CHECK_INT(ks.files + ks.repaired + ks.blanks, 0);
	CHECK(file_is(path, "earlier"));
	CHECK_INT(opmfu_writer_commit(w, &e), OPMFU_OK);
	CHECK(file_is(path, "earlier"));
	snprintf(path, sizeof(path), "%s/opmfu_test_5.xlsx", dir);
	CHECK(access(path, F_OK) != 0);
	opmfu_writer_close(w);
	snprintf(path, sizeof(path), "%s/opmfu_test_6.xlsx", dir);
	unlink(path);
	opmfu_cell_store_release(&cs);
}

int main(int argc, char **argv)
{
	if (xlsx_test_start(argc, argv, "t_table", dir, sizeof(dir)) < 0)
		return 2;

	test_cells();
	test_store();
	test_db();
	test_run_tables();
	test_stored();
	test_xlsx();

	if (!check_failures)
		rmdir(dir);
	return check_done();
}
