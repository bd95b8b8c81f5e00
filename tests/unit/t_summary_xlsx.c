/*
 * t_summary_xlsx.c - opmfu_summary.xlsx (write/summary_xlsx.h, SPEC 14, 16)
 * from hand-built OpmfuRankSummary, OpmfuSteps, OpmfuRun, OpmfuHotspots and
 * OpmfuStragglers rows (cell stores over defs with the tables' names and
 * column names), read back through tests/tools/xlsx_cells.py: every cell,
 * number format, width, the page setup and the charts' types and ranges; the same
 * workbook through the xlsx writer, rank by rank, with a rank dropped; a
 * thousand ranks; the roofline chart and its roof's cells; a failed or never committed run leaving an earlier
 * workbook as it was; a result without OpmfuRun; every allocation failing
 * in turn.
 * argv: python3, xlsx_cells.py, a scratch directory[, "keep": leave the
 * workbooks there, to look at them in LibreOffice].
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/mem.h"
#include "check.h"
#include "files.h"
#include "trace/table.h"
#include "write/summary_xlsx.h"
#include "write/write_xlsx.h"
#include "xlsx_dump.h"

static char dir[4096];
static int keep;

/* ---- the tables, as the library defines them (names are what count) ---- */

static const struct opmfu_column rank_cols[] = {
	{ "rank_id", OPMFU_COL_INT, "", 0, 0 },		  { "status", OPMFU_COL_TEXT, "", 0, 0 },
	{ "reason", OPMFU_COL_TEXT, "", 0, 0 },		  { "chip_seen", OPMFU_COL_TEXT, "", 0, 0 },
	{ "peak_tflops", OPMFU_COL_REAL, "", 0, 0 },	  { "peak_source", OPMFU_COL_TEXT, "", 0, 0 },
	{ "steps", OPMFU_COL_INT, "", 0, 0 },		  { "median_step", OPMFU_COL_INT, "", 0, 0 },
	{ "step_ns_median", OPMFU_COL_INT, "", 0, 0 },	  { "trace_mfu", OPMFU_COL_REAL, "", 0, 0 },
	{ "share_idle", OPMFU_COL_REAL, "", 0, 0 },	  { "share_comm", OPMFU_COL_REAL, "", 0, 0 },
	{ "share_other_compute", OPMFU_COL_REAL, "", 0, 0 }, { "share_inefficiency", OPMFU_COL_REAL, "", 0, 0 },
	{ "mfu_busy", OPMFU_COL_REAL, "", 0, 0 },	  { "mfu_recorded", OPMFU_COL_REAL, "", 0, 0 },
	{ "flops_coverage", OPMFU_COL_REAL, "", 0, 0 },	  { "trace_mfu_all_steps", OPMFU_COL_REAL, "", 0, 0 },
};
static const struct opmfu_table_def rank_def = { "OpmfuRankSummary", rank_cols, 18, NULL, 0, NULL };

static const struct opmfu_column step_cols[] = {
	{ "rank_id", OPMFU_COL_INT, "", 0, 0 },	     { "step", OPMFU_COL_INT, "", 0, 0 },
	{ "start_ns", OPMFU_COL_INT, "", 0, 0 },     { "end_ns", OPMFU_COL_INT, "", 0, 0 },
	{ "window_ns", OPMFU_COL_INT, "", 0, 0 },    { "flops_ns", OPMFU_COL_INT, "", 0, 0 },
	{ "other_compute_ns", OPMFU_COL_INT, "", 0, 0 }, { "comm_exposed_ns", OPMFU_COL_INT, "", 0, 0 },
	{ "comm_overlapped_ns", OPMFU_COL_INT, "", 0, 0 }, { "idle_ns", OPMFU_COL_INT, "", 0, 0 },
	{ "flops", OPMFU_COL_REAL, "", 0, 0 },	     { "flops_record", OPMFU_COL_REAL, "", 0, 0 },
	{ "flops_shape", OPMFU_COL_REAL, "", 0, 0 }, { "peak_tflops", OPMFU_COL_REAL, "", 0, 0 },
	{ "trace_mfu", OPMFU_COL_REAL, "", 0, 0 },   { "share_idle", OPMFU_COL_REAL, "", 0, 0 },
	{ "share_comm", OPMFU_COL_REAL, "", 0, 0 },  { "share_other_compute", OPMFU_COL_REAL, "", 0, 0 },
	{ "share_inefficiency", OPMFU_COL_REAL, "", 0, 0 },
};
static const struct opmfu_table_def step_def = { "OpmfuSteps", step_cols, 19, NULL, 0, NULL };

/* the run account's tables (schema/out/opmfu_run.sql, opmfu_hotspots.sql, opmfu_stragglers.sql) */
static const struct opmfu_column run_cols[] = {
	{ "run_id", OPMFU_COL_TEXT, "", 0, 0 },		   { "source", OPMFU_COL_TEXT, "", 0, 0 },
	{ "ranks", OPMFU_COL_INT, "", 0, 0 },		   { "ranks_failed", OPMFU_COL_INT, "", 0, 0 },
	{ "chip", OPMFU_COL_TEXT, "", 0, 0 },		   { "peak_tflops", OPMFU_COL_REAL, "", 0, 0 },
	{ "peak_source", OPMFU_COL_TEXT, "", 0, 0 },	   { "median_rank", OPMFU_COL_INT, "", 0, 0 },
	{ "median_step", OPMFU_COL_INT, "", 0, 0 },	   { "step_ns", OPMFU_COL_INT, "", 0, 0 },
	{ "trace_mfu", OPMFU_COL_REAL, "", 0, 0 },	   { "mfu_busy", OPMFU_COL_REAL, "", 0, 0 },
	{ "flops_coverage", OPMFU_COL_REAL, "", 0, 0 },	   { "share_idle", OPMFU_COL_REAL, "", 0, 0 },
	{ "share_comm", OPMFU_COL_REAL, "", 0, 0 },	   { "share_other_compute", OPMFU_COL_REAL, "", 0, 0 },
	{ "share_inefficiency", OPMFU_COL_REAL, "", 0, 0 }, { "ranks_analysed", OPMFU_COL_INT, "", 0, 0 },
	{ "mfu_recorded", OPMFU_COL_REAL, "", 0, 0 },
};
static const struct opmfu_table_def run_def = { "OpmfuRun", run_cols, 19, NULL, 0, NULL };

static const struct opmfu_column hot_cols[] = {
	{ "kind", OPMFU_COL_TEXT, "", 0, 0 },	       { "name", OPMFU_COL_TEXT, "", 0, 0 },
	{ "ranks", OPMFU_COL_INT, "", 0, 0 },	       { "calls", OPMFU_COL_INT, "", 0, 0 },
	{ "kernel_ns", OPMFU_COL_INT, "", 0, 0 },      { "recoverable_ns", OPMFU_COL_INT, "", 0, 0 },
	{ "lost_ns", OPMFU_COL_INT, "", 0, 0 },	       { "pct_of_step", OPMFU_COL_REAL, "", 0, 0 },
	{ "mfu", OPMFU_COL_REAL, "", 0, 0 },	       { "roofline_eff", OPMFU_COL_REAL, "", 0, 0 },
};
static const struct opmfu_table_def hot_def = { "OpmfuHotspots", hot_cols, 10, NULL, 0, NULL };

static const struct opmfu_column strag_cols[] = {
	{ "measure", OPMFU_COL_TEXT, "", 0, 0 }, { "rank_id", OPMFU_COL_INT, "", 0, 0 },
	{ "value", OPMFU_COL_REAL, "", 0, 0 },	 { "median", OPMFU_COL_REAL, "", 0, 0 },
	{ "delta", OPMFU_COL_REAL, "", 0, 0 },	 { "culprit_of", OPMFU_COL_TEXT, "", 0, 0 },
};
static const struct opmfu_table_def strag_def = { "OpmfuStragglers", strag_cols, 6, NULL, 0, NULL };

#define I(v) opmfu_cell_int(v)
#define R(v) opmfu_cell_real(v)
#define S(v) opmfu_cell_str(v)
#define N opmfu_cell_null()

static void add(struct opmfu_cell_store *cs, const struct opmfu_cell *row)
{
	struct opmfu_err e = OPMFU_ERR_INIT;
	CHECK_INT(opmfu_cell_store_add(cs, row, &e), OPMFU_OK);
}

/* One store per table. */
struct stores {
	struct opmfu_cell_store r, s, run, hot, strag;
};

/* rank: 0, 1 or 2 (2 failed); the rows of that rank only (docs/glossary.md:
 * a rank's median step is the lower middle of its steps by window, then
 * step number) */
static void rank_rows(int rank, struct stores *st)
{
	if (rank == 0) {
		/* steps 1, 2, 3 of 10, 12 and 8 ms: by window 8, 10, 12, the median is step 1 */
		add(&st->r, (struct opmfu_cell[]){ I(0), S("ok"), N, S("Ascend910B"), R(100), S("--peak fp16=100"), I(3),
						   I(1), I(10000000), R(0.375), R(0.125), R(0.125), R(0.125), R(0.25),
						   R(0.4), R(0.5), R(0.8), R(0.3) });
		/* window = flops + other + exposed comm + idle (ns); FLOPs / (window x 1e14) */
		add(&st->s, (struct opmfu_cell[]){ I(0), I(1), I(1000), I(10001000), I(10000000), I(6250000),
						   I(1250000), I(1250000), I(500000), I(1250000), R(3.75e11), R(3.75e11),
						   R(0), R(100), R(0.375), R(0.125), R(0.125), R(0.125), R(0.25) });
		add(&st->s, (struct opmfu_cell[]){ I(0), I(2), I(10001000), I(22001000), I(12000000), I(6000000),
						   I(2000000), I(2000000), I(0), I(2000000), R(3e11), R(3e11), R(0),
						   R(100), R(0.25), R(1.0 / 6), R(1.0 / 6), R(1.0 / 6), R(0.25) });
		add(&st->s, (struct opmfu_cell[]){ I(0), I(3), I(22001000), I(30001000), I(8000000), I(6000000),
						   I(1000000), I(0), I(0), I(1000000), R(3e11), R(3e11), R(0), R(100),
						   R(0.375), R(0.125), R(0), R(0.125), R(0.375) });
	} else if (rank == 1) {
		/* steps of 12.5 and 13 ms: the lower middle, step 1 */
		add(&st->r, (struct opmfu_cell[]){ I(1), S("ok"), N, S("Ascend910B"), R(100), S("--peak fp16=100"), I(2),
						   I(1), I(12500000), R(0.25), R(0.1875), R(0.0625), R(0.125), R(0.375),
						   R(0.36), R(0.45), R(0.8), R(0.22) });
		add(&st->s, (struct opmfu_cell[]){ I(1), I(1), I(0), I(12500000), I(12500000), I(7812500), I(1562500),
						   I(781250), I(0), I(2343750), R(3.125e11), R(0), R(3.125e11), R(100),
						   R(0.25), R(0.1875), R(0.0625), R(0.125), R(0.375) });
		add(&st->s, (struct opmfu_cell[]){ I(1), I(2), I(12500000), I(25500000), I(13000000), I(6500000),
						   I(3250000), I(1300000), I(0), I(1950000), R(2.6e11), R(0), R(2.6e11),
						   R(100), R(0.2), R(0.15), R(0.1), R(0.25), R(0.3) });
	} else {
		add(&st->r, (struct opmfu_cell[]){ I(2), S("failed"), S("bad.db: not a database"), N, N, N, N, N, N, N,
						   N, N, N, N, N, N, N, N });
	}
}

/*
 * The run account of ranks 0 to 2 (put after the last rank): the median rank
 * is the lower middle of the ranks analysed by their median step's time (10
 * and 12.5 ms): rank 0, whose median step 1 gives the run's step time, trace
 * MFU and waterfall; busy and recorded MFU and coverage are rank 0's.
 * Stragglers, per measure the rank furthest on its bad side: the longest
 * step (rank 1, 12.5 against 10 ms), the lowest trace MFU (rank 1, 0.25
 * against 0.375), the most below peak (rank 1, 0.375 against 0.25), compute
 * without FLOPs and exposed communication (rank 0, the first of equals,
 * 0.125 both), idle (rank 1, 0.1875 against 0.125). Hotspots by recoverable
 * time (ties: module, op_type, kernel): per rank-step of the run's step
 * time, 5 rank-steps x 10 ms = 50 ms, so 7 ms is 0.14 of it.
 */
static void run_rows(struct stores *st)
{
	add(&st->run, (struct opmfu_cell[]){ S("00ff00ff00ff00ff"), S("ascend"), I(3), I(1), S("Ascend910B"), R(100),
					     S("--peak fp16=100"), I(0), I(1), I(10000000), R(0.375), R(0.4), R(0.8),
					     R(0.125), R(0.125), R(0.125), R(0.25), I(2), R(0.5) });
	add(&st->hot, (struct opmfu_cell[]){ S("module"), S("Model/Layer_3/Attention"), I(1), I(2), I(7000000),
					     I(4500000), I(4500000), R(0.14), R(0.5), N });
	add(&st->hot, (struct opmfu_cell[]){ S("op_type"), S("aten::mm"), I(2), I(14), I(8000000), I(4500000),
					     I(4500000), R(0.16), R(0.4375), N });
	add(&st->hot, (struct opmfu_cell[]){ S("kernel"), S("void gemm_kernel<float, 4>(float const*, int)"), I(2), I(20), I(8000000), I(4000000),
					     I(4000000), R(0.16), R(0.5), N });
	add(&st->hot, (struct opmfu_cell[]){ S("module"), S("Model/Head"), I(1), I(1), I(2000000), I(2000000),
					     I(2000000), R(0.04), N, N });
	add(&st->hot, (struct opmfu_cell[]){ S("module"), S("Model"), I(2), I(2), I(1500000), I(1500000), I(1500000),
					     R(0.03), N, N });
	add(&st->hot, (struct opmfu_cell[]){ S("op_type"), S("aten::gelu"), I(1), I(2), I(1000000), I(1000000),
					     I(1000000), R(0.02), N, N });
	add(&st->hot, (struct opmfu_cell[]){ S("op_type"), S("=1+1"), I(1), I(1), I(500000), I(500000), I(500000),
					     R(0.01), N, N });
	add(&st->strag, (struct opmfu_cell[]){ S("step_ns_median"), I(1), R(12500000), R(10000000), R(2500000), N });
	add(&st->strag, (struct opmfu_cell[]){ S("trace_mfu"), I(1), R(0.25), R(0.375), R(-0.125), N });
	add(&st->strag, (struct opmfu_cell[]){ S("share_inefficiency"), I(1), R(0.375), R(0.25), R(0.125), N });
	add(&st->strag, (struct opmfu_cell[]){ S("share_other_compute"), I(0), R(0.125), R(0.125), R(0), N });
	add(&st->strag, (struct opmfu_cell[]){ S("share_comm"), I(0), R(0.125), R(0.125), R(0), N });
	add(&st->strag, (struct opmfu_cell[]){ S("share_idle"), I(1), R(0.1875), R(0.125), R(0.0625), N });
}

static void stores_init(struct stores *st)
{
	opmfu_cell_store_init(&st->r, &rank_def);
	opmfu_cell_store_init(&st->s, &step_def);
	opmfu_cell_store_init(&st->run, &run_def);
	opmfu_cell_store_init(&st->hot, &hot_def);
	opmfu_cell_store_init(&st->strag, &strag_def);
}

static void stores_release(struct stores *st)
{
	opmfu_cell_store_release(&st->r);
	opmfu_cell_store_release(&st->s);
	opmfu_cell_store_release(&st->run);
	opmfu_cell_store_release(&st->hot);
	opmfu_cell_store_release(&st->strag);
}

static char *in_dir(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
	return buf;
}

/* The median rank of many_rows (docs/glossary.md): the lower middle of the
 * ranks by their median step's time, then rank id. The windows are 10 ms +
 * 0.1 ms x (i mod 7): the rank at (n - 1) / 2 once sorted. */
static size_t many_median(size_t n)
{
	size_t want = (n - 1) / 2, seen = 0, w, i;
	for (w = 0; w < 7; w++)
		for (i = 0; i < n; i++)
			if (i % 7 == w && seen++ == want)
				return i;
	return 0;
}

/* n ranks of generated rows: rank i has trace MFU 0.40 + 0.01 (i mod 5),
 * except every 97th, a straggler at 0.20; two equal steps each, the median
 * step 1; the run account of them: the median rank (many_median), 30 module
 * paths and 25 op types by recoverable time, the lowest trace MFU's
 * straggler (rank 13). */
static void many_rows(size_t n, struct stores *st)
{
	char name[64];
	size_t i, k, m = many_median(n);
	double mmfu = m % 97 == 13 ? 0.2 : 0.40 + 0.01 * (double)(m % 5);
	int64_t mwin = 10000000 + (int64_t)(m % 7) * 100000;

	for (i = 0; i < n; i++) {
		double mfu = i % 97 == 13 ? 0.2 : 0.40 + 0.01 * (double)(i % 5), ineff = 1 - mfu - 0.2;
		int64_t r = (int64_t)i, win = 10000000 + (int64_t)(i % 7) * 100000;
		add(&st->r, (struct opmfu_cell[]){ I(r), S("ok"), N, S("Ascend910B"), R(354), S("--peak fp16=354"), I(2),
						   I(1), I(win), R(mfu), R(0.05), R(0.05), R(0.1), R(ineff),
						   R(mfu / 0.9), R(mfu / 0.8), R(0.9), R(mfu) });
		for (k = 1; k <= 2; k++)
			add(&st->s, (struct opmfu_cell[]){ I(r), I((int64_t)k), I(0), I(win), I(win), I(win * 8 / 10),
							   I(win / 10), I(win / 20), I(0), I(win / 20), R(mfu * 3.54e12),
							   R(mfu * 3.54e12), R(0), R(354), R(mfu), R(0.05), R(0.05),
							   R(0.1), R(ineff) });
	}
	add(&st->run, (struct opmfu_cell[]){ S("many"), S("ascend"), I((int64_t)n), I(0), S("Ascend910B"), R(354),
					     S("--peak fp16=354"), I((int64_t)m), I(1), I(mwin), R(mmfu),
					     R(mmfu / 0.9), R(0.9), R(0.05), R(0.05), R(0.1), R(1 - mmfu - 0.2),
					     I((int64_t)n), R(mmfu / 0.8) });
	for (k = 0; k < 55; k++) {
		int mod = k % 11 < 6;
		size_t j = k / 11 * (mod ? 6 : 5) + (mod ? k % 11 : k % 11 - 6);
		int64_t lost = (int64_t)(55 - k) * 10000 * (int64_t)n;
		if (mod)
			snprintf(name, sizeof(name), "Model/Layer_%zu/%s", j / 3,
				 j % 3 == 0 ? "Attention" : j % 3 == 1 ? "MLP" : "Norm");
		else
			snprintf(name, sizeof(name), "aten::op_%zu", j);
		add(&st->hot, (struct opmfu_cell[]){ S(mod ? "module_class" : "op_type"), S(name), I((int64_t)n),
						     I(2 * (int64_t)n), I(300000 * (int64_t)n), I(lost), I(lost),
						     R(0.015), R(0.5), N });
	}
	add(&st->strag, (struct opmfu_cell[]){ S("trace_mfu"), I(13), R(0.2), R(mmfu), R(0.2 - mmfu), N });
}

static enum opmfu_status write_stores(const char *d, struct stores *st, struct opmfu_err *e)
{
	struct opmfu_table t[5] = { opmfu_cell_store_table(&st->r), opmfu_cell_store_table(&st->s),
				    opmfu_cell_store_table(&st->run), opmfu_cell_store_table(&st->hot),
				    opmfu_cell_store_table(&st->strag) };
	struct opmfu_summary_tables tabs = { &t[0], &t[1], &t[2], &t[3], &t[4], NULL };
	struct opmfu_write_stats ws;
	memset(&ws, 0, sizeof(ws));
	return opmfu_summary_xlsx_write(d, &tabs, &ws, e);
}

/* ---- the workbook of three ranks, every cell ---- */

/*
 * Derivations (SPEC 16, docs/output-schema.md "The summary workbook"): every
 * number is a cell of the tables above, shown as it is (ratios), in ms (ns /
 * 1e6) or as the Ranks sheet's split against the median rank's trace MFU.
 *
 * (SPEC 17 added the waterfall's parts, the step windows, the profiler step
 * and the backlog to OpmfuRun, OpmfuRankSummary and OpmfuSteps, and SPEC 18
 * the memory-bound part and its bandwidth efficiency: their rows and columns
 * are in the sheets, blank here, where the tables given lack them; everything
 * below them moves down 10 rows, or right 10 columns (Steps: 9). SPEC 19
 * added "  Waiting for other ranks" under exposed communication, blank here:
 * one row more below it, the charts and page breaks too; and the Steps
 * sheet's waiting columns M and X: its columns from M on move right one,
 * from the old W on two. test_collectives shows them filled.)
 * Overview: the title in A1; OpmfuRun's row in A3:B32, a row per column in
 * the terminal's names: run 00ff00ff00ff00ff, ascend, 3 ranks, 2 analysed, 1
 * failed, Ascend910B, peak 100 (style 7, 0.00), --peak fp16=100; median rank
 * 0, its median step 1, 10 ms (10000000 ns), trace MFU 0.375; the waterfall:
 * below peak 0.25, without FLOPs, exposed communication and idle 0.125 each
 * (with the trace MFU they add up to 1); busy MFU 0.4, recorded 0.5,
 * coverage 0.8. Row 23 empty; the stragglers' header in row 24 (30 high:
 * "Median rank's value" wraps in 14), then OpmfuStragglers' six rows in its
 * order, A25:E30: the step time in ms (12.5 against 10, +2.5 in the signed
 * ms style 9), the ratios as 0.00% and their difference signed (style 10,
 * +0.00%): -0.125, 0.125, 0, 0, 0.0625. Row 31 empty.
 *
 * Charts from A32, one to a printed page: the waterfall per rank (Ranks H:L:
 * trace MFU, below peak, without FLOPs, exposed communication, idle) and the
 * trace MFU against the median rank's 37.50 % (Ranks P:R) are 960 x 400
 * pixels: 2 x and 400/288 x the default 480 x 288 (fewer than 64 ranks: the
 * minimum width; gap 40, every rank labelled). 400 px = 20 rows of 20 px:
 * A32 to row 52; the next chart two rows after: A54 to 74, then A76. 960 px
 * across columns of 201 (A, 28 wide: 28 x 7 + 5), 4 x 103 (B:E, 14 wide)
 * and 64: 613 + 5 x 64 = 933, so the right edge is in K. The recoverable
 * time charts have 3 bars: 140 + 24 x 3 = 212 px high: 10 rows and 12 px
 * (A76 to row 86), the next at A88. A page break above each chart but the
 * first, at the empty row before it. No kernel chart: kernel names are too
 * long for a chart's labels; no module chart: the recoverable time by module
 * is charted by module class (SPEC 18), and these stores have no
 * module_class rows (test_many's have).
 *
 * Ranks, one row per OpmfuRankSummary row, its own median step: rank 0 step
 * 1 of 3, 10 ms, rank 1 step 1 of 2, 12.5 ms, and their shares; against the
 * median rank's 0.375: rank 0 is 0.375 up to it, 0 above and 0 short; rank 1
 * 0.25 up to it and 0.125 short. Steps: OpmfuSteps' rows in ms.
 *
 * Modules, Op types, Kernels: OpmfuHotspots' rows of each kind in the
 * table's order (most recoverable first), times in ms: Model/Layer_3/
 * Attention 7 ms, 4.5 recoverable, 0.14 of the step, Model/Head, Model;
 * aten::mm, aten::gelu, "=1+1" (text, not a formula); one kernel, "void
 * gemm_kernel<float, 4>(float const*, int)" (45 characters): column A its
 * short name (SPEC 20: "void ", the template list and the parameters
 * dropped) "gemm_kernel", 11 + 2 = 13 wide; column J, Full name, the whole
 * name, 45 + 2 = 47 wide. A module's short name (the chart's labels, column
 * J) is its path's last two names.
 *
 * Widths: a title needs its longer line when it wraps at the best space (or
 * its length), x 1.1 for bold, rounded up, + 3 for the filter button; a value
 * its characters as shown + 2. "FLOP kernels below peak": lines "FLOP
 * kernels" / "below peak", 12 x 1.1 -> 14, + 3 = 17; "Reason" 10, but
 * "bad.db: not a database" (22) + 2 = 24; Module "Model/Layer_3/Attention"
 * 23 + 2 = 25. Styles: 1 the header, 2 the title, then the cells' formats: 3
 * text, 4 counts, 5 ms, 6 ratios, 7 TFLOPS, 8 FLOPs, 9 signed ms, 10 signed
 * ratios.
 */
static const char small_want[] =
	"sheet Overview\n"
	"dimension A1:E41\n"
	"col A width 28 (xml 28.7109375)\n"
	"col B:E width 14 (xml 14.7109375)\n"
	"row 35 height 30\n"
	"page landscape fit 1x0\n"
	"break after row 63\n"
	"break after row 85\n"
	"chart A43:K63 bar col percentStacked gap 40 overlap 100 legend b title \"Where the median step went, per rank\"\n"
	"    series name Ranks!$H$1 cat Ranks!$A$2:$A$4 val Ranks!$H$2:$H$4 fill 2E7D32 cached 3\n"
	"    series name Ranks!$I$1 cat Ranks!$A$2:$A$4 val Ranks!$I$2:$I$4 fill F9A825 cached 3\n"
	"    series name Ranks!$J$1 cat Ranks!$A$2:$A$4 val Ranks!$J$2:$J$4 fill 8E7CC3 cached 3\n"
	"    series name Ranks!$K$1 cat Ranks!$A$2:$A$4 val Ranks!$K$2:$K$4 fill 1F77B4 cached 3\n"
	"    series name Ranks!$L$1 cat Ranks!$A$2:$A$4 val Ranks!$L$2:$L$4 fill BDBDBD cached 3\n"
	"    axis cat b title \"Rank\"\n"
	"    axis val l\n"
	"chart A65:K85 bar col stacked gap 40 overlap 100 legend b title \"Trace MFU per rank against the median rank's (37.50%)\"\n"
	"    series name Ranks!$P$1 cat Ranks!$A$2:$A$4 val Ranks!$P$2:$P$4 fill 2E7D32 cached 3\n"
	"    series name Ranks!$Q$1 cat Ranks!$A$2:$A$4 val Ranks!$Q$2:$Q$4 fill 81C784 cached 3\n"
	"    series name Ranks!$R$1 cat Ranks!$A$2:$A$4 val Ranks!$R$2:$R$4 fill E57373 cached 3\n"
	"    axis cat b title \"Rank\"\n"
	"    axis val l min 0 format \"0.0##%\"\n"
	"chart A87:K97 bar bar clustered gap 40 no legend title \"Recoverable time by op type, ms (top 3 of 3)\"\n"
	"    series name 'Op types'!$E$1 cat 'Op types'!$A$2:$A$4 val 'Op types'!$E$2:$E$4 fill C0504D cached 3\n"
	"    axis cat l reverse\n"
	"    axis val b format \"#,##0.0##\" crosses max\n"
	"style 1: font \"Calibri\" 11 bold; fill solid FFAFEEEE; border thin; valign center; wrap; numfmt \"General\"\n"
	"style 2: font \"Calibri\" 14 bold; fill none; border none; numfmt \"General\"\n"
	"style 3: font \"Calibri\" 11; fill none; border thin; numfmt \"General\"\n"
	"style 4: font \"Calibri\" 11; fill none; border thin; numfmt \"0\"\n"
	"style 5: font \"Calibri\" 11; fill none; border thin; numfmt \"#,##0.000\"\n"
	"style 6: font \"Calibri\" 11; fill none; border thin; numfmt \"0.00%\"\n"
	"style 7: font \"Calibri\" 11; fill none; border thin; numfmt \"0.00\"\n"
	"style 9: font \"Calibri\" 11; fill none; border thin; numfmt \"+#,##0.000;-#,##0.000;0.000\"\n"
	"style 10: font \"Calibri\" 11; fill none; border thin; numfmt \"+0.00%;-0.00%;0.00%\"\n"
	"A1=opmfu summary (s) s2\n"
	"A3=Run (s) s1\n"
	"B3=Value (s) s1\n"
	"A4=Run ID (s) s3\n"
	"B4=00ff00ff00ff00ff (s) s3\n"
	"A5=Source (s) s3\n"
	"B5=ascend (s) s3\n"
	"A6=Ranks (s) s3\n"
	"B6=3 (n) s4\n"
	"A7=Ranks analysed (s) s3\n"
	"B7=2 (n) s4\n"
	"A8=Ranks failed (s) s3\n"
	"B8=1 (n) s4\n"
	"A9=Chip (s) s3\n"
	"B9=Ascend910B (s) s3\n"
	"A10=Peak (TFLOPS) (s) s3\n"
	"B10=100 (n) s7\n"
	"A11=Peak source (s) s3\n"
	"B11=--peak fp16=100 (s) s3\n"
	"A12=Median rank (s) s3\n"
	"B12=0 (n) s4\n"
	"A13=Median step (s) s3\n"
	"B13=1 (n) s4\n"
	"A14=Step time (ms) (s) s3\n"
	"B14=10 (n) s5\n"
	"A15=Trace MFU (s) s3\n"
	"B15=0.375 (n) s6\n"
	"A16=FLOP kernels below peak (s) s3\n"
	"B16=0.25 (n) s6\n"
	"A17=Busy without FLOPs (s) s3\n"
	"B17=0.125 (n) s6\n"
	"A18=  GEMM/conv/attention, FLOPs unknown (s) s3\n"
	"B18= (blank) s6\n"
	"A19=  Memory-bound, bytes known (s) s3\n"
	"B19= (blank) s6\n"
	"A20=    at this share of the bandwidth (s) s3\n"
	"B20= (blank) s6\n"
	"A21=  Other kernels (s) s3\n"
	"B21= (blank) s6\n"
	"A22=  Copies and memsets (s) s3\n"
	"B22= (blank) s6\n"
	"A23=Exposed communication (s) s3\n"
	"B23=0.125 (n) s6\n"
	"A24=  Waiting for other ranks (s) s3\n"
	"B24= (blank) s6\n"
	"A25=Idle (s) s3\n"
	"B25=0.125 (n) s6\n"
	"A26=  Host late (s) s3\n"
	"B26= (blank) s6\n"
	"A27=  Other idle (s) s3\n"
	"B27= (blank) s6\n"
	"A28=Step windows (s) s3\n"
	"B28= (blank) s3\n"
	"A29=Profiler step (ms) (s) s3\n"
	"B29= (blank) s5\n"
	"A30=Backlog (ms) (s) s3\n"
	"B30= (blank) s5\n"
	"A31=Busy MFU (s) s3\n"
	"B31=0.4 (n) s6\n"
	"A32=Recorded MFU (s) s3\n"
	"B32=0.5 (n) s6\n"
	"A33=FLOPs coverage (s) s3\n"
	"B33=0.8 (n) s6\n"
	"A35=Straggler (s) s1\n"
	"B35=Rank (s) s1\n"
	"C35=Value (s) s1\n"
	"D35=Median rank's value (s) s1\n"
	"E35=Difference (s) s1\n"
	"A36=Slowest step time (ms) (s) s3\n"
	"B36=1 (n) s4\n"
	"C36=12.5 (n) s5\n"
	"D36=10 (n) s5\n"
	"E36=2.5 (n) s9\n"
	"A37=Lowest trace MFU (s) s3\n"
	"B37=1 (n) s4\n"
	"C37=0.25 (n) s6\n"
	"D37=0.375 (n) s6\n"
	"E37=-0.125 (n) s10\n"
	"A38=Most FLOP kernels below peak (s) s3\n"
	"B38=1 (n) s4\n"
	"C38=0.375 (n) s6\n"
	"D38=0.25 (n) s6\n"
	"E38=0.125 (n) s10\n"
	"A39=Most busy without FLOPs (s) s3\n"
	"B39=0 (n) s4\n"
	"C39=0.125 (n) s6\n"
	"D39=0.125 (n) s6\n"
	"E39=0 (n) s10\n"
	"A40=Most exposed communication (s) s3\n"
	"B40=0 (n) s4\n"
	"C40=0.125 (n) s6\n"
	"D40=0.125 (n) s6\n"
	"E40=0 (n) s10\n"
	"A41=Most idle (s) s3\n"
	"B41=1 (n) s4\n"
	"C41=0.1875 (n) s6\n"
	"D41=0.125 (n) s6\n"
	"E41=0.0625 (n) s10\n"
	"sheet Ranks\n"
	"dimension A1:AD4\n"
	"freeze A2\n"
	"autofilter A1:AD4\n"
	"col A width 8 (xml 8.7109375)\n"
	"col B width 10 (xml 10.7109375)\n"
	"col C width 12 (xml 12.7109375)\n"
	"col D width 12 (xml 12.7109375)\n"
	"col E width 9 (xml 9.7109375)\n"
	"col F width 10 (xml 10.7109375)\n"
	"col G width 13 (xml 13.7109375)\n"
	"col H width 9 (xml 9.7109375)\n"
	"col I width 17 (xml 17.7109375)\n"
	"col J width 17 (xml 17.7109375)\n"
	"col K width 18 (xml 18.7109375)\n"
	"col L width 8 (xml 8.7109375)\n"
	"col M width 8 (xml 8.7109375)\n"
	"col N width 12 (xml 12.7109375)\n"
	"col O width 12 (xml 12.7109375)\n"
	"col P width 16 (xml 16.7109375)\n"
	"col Q width 16 (xml 16.7109375)\n"
	"col R width 17 (xml 17.7109375)\n"
	"col S width 24 (xml 24.7109375)\n"
	"col T width 18 (xml 18.7109375)\n"
	"col U width 25 (xml 25.7109375)\n"
	"col V width 18 (xml 18.7109375)\n"
	"col W width 14 (xml 14.7109375)\n"
	"col X width 13 (xml 13.7109375)\n"
	"col Y width 9 (xml 9.7109375)\n"
	"col Z width 11 (xml 11.7109375)\n"
	"col AA width 13 (xml 13.7109375)\n"
	"col AB width 11 (xml 11.7109375)\n"
	"col AC width 17 (xml 17.7109375)\n"
	"col AD width 24 (xml 24.7109375)\n"
	"row 1 height 30\n"
	"page landscape fit 1x0\n"
	"print titles $1:$1\n"
	"style 1: font \"Calibri\" 11 bold; fill solid FFAFEEEE; border thin; valign center; wrap; numfmt \"General\"\n"
	"style 3: font \"Calibri\" 11; fill none; border thin; numfmt \"General\"\n"
	"style 4: font \"Calibri\" 11; fill none; border thin; numfmt \"0\"\n"
	"style 5: font \"Calibri\" 11; fill none; border thin; numfmt \"#,##0.000\"\n"
	"style 6: font \"Calibri\" 11; fill none; border thin; numfmt \"0.00%\"\n"
	"style 7: font \"Calibri\" 11; fill none; border thin; numfmt \"0.00\"\n"
	"A1=Rank (s) s1\n"
	"B1=Status (s) s1\n"
	"C1=Chip (s) s1\n"
	"D1=Peak (TFLOPS) (s) s1\n"
	"E1=Steps (s) s1\n"
	"F1=Median step (s) s1\n"
	"G1=Step time (ms) (s) s1\n"
	"H1=Trace MFU (s) s1\n"
	"I1=FLOP kernels below peak (s) s1\n"
	"J1=Busy without FLOPs (s) s1\n"
	"K1=Exposed communication (s) s1\n"
	"L1=Idle (s) s1\n"
	"M1=Busy MFU (s) s1\n"
	"N1=Recorded MFU (s) s1\n"
	"O1=FLOPs coverage (s) s1\n"
	"P1=Up to the median rank (s) s1\n"
	"Q1=Above the median rank (s) s1\n"
	"R1=Short of the median rank (s) s1\n"
	"S1=GEMM/conv/attention without FLOPs (s) s1\n"
	"T1=Memory-bound, bytes known (s) s1\n"
	"U1=Memory-bound bandwidth efficiency (s) s1\n"
	"V1=Other kernels without FLOPs (s) s1\n"
	"W1=Copies and memsets (s) s1\n"
	"X1=Idle, host late (s) s1\n"
	"Y1=Idle, other (s) s1\n"
	"Z1=Step windows (s) s1\n"
	"AA1=Profiler step (ms) (s) s1\n"
	"AB1=Backlog (ms) (s) s1\n"
	"AC1=Peak source (s) s1\n"
	"AD1=Reason (s) s1\n"
	"A2=0 (n) s4\n"
	"B2=ok (s) s3\n"
	"C2=Ascend910B (s) s3\n"
	"D2=100 (n) s7\n"
	"E2=3 (n) s4\n"
	"F2=1 (n) s4\n"
	"G2=10 (n) s5\n"
	"H2=0.375 (n) s6\n"
	"I2=0.25 (n) s6\n"
	"J2=0.125 (n) s6\n"
	"K2=0.125 (n) s6\n"
	"L2=0.125 (n) s6\n"
	"M2=0.4 (n) s6\n"
	"N2=0.5 (n) s6\n"
	"O2=0.8 (n) s6\n"
	"P2=0.375 (n) s6\n"
	"Q2=0 (n) s6\n"
	"R2=0 (n) s6\n"
	"S2= (blank) s6\n"
	"T2= (blank) s6\n"
	"U2= (blank) s6\n"
	"V2= (blank) s6\n"
	"W2= (blank) s6\n"
	"X2= (blank) s6\n"
	"Y2= (blank) s6\n"
	"Z2= (blank) s3\n"
	"AA2= (blank) s5\n"
	"AB2= (blank) s5\n"
	"AC2=--peak fp16=100 (s) s3\n"
	"AD2= (blank) s3\n"
	"A3=1 (n) s4\n"
	"B3=ok (s) s3\n"
	"C3=Ascend910B (s) s3\n"
	"D3=100 (n) s7\n"
	"E3=2 (n) s4\n"
	"F3=1 (n) s4\n"
	"G3=12.5 (n) s5\n"
	"H3=0.25 (n) s6\n"
	"I3=0.375 (n) s6\n"
	"J3=0.125 (n) s6\n"
	"K3=0.0625 (n) s6\n"
	"L3=0.1875 (n) s6\n"
	"M3=0.36 (n) s6\n"
	"N3=0.45 (n) s6\n"
	"O3=0.8 (n) s6\n"
	"P3=0.25 (n) s6\n"
	"Q3=0 (n) s6\n"
	"R3=0.125 (n) s6\n"
	"S3= (blank) s6\n"
	"T3= (blank) s6\n"
	"U3= (blank) s6\n"
	"V3= (blank) s6\n"
	"W3= (blank) s6\n"
	"X3= (blank) s6\n"
	"Y3= (blank) s6\n"
	"Z3= (blank) s3\n"
	"AA3= (blank) s5\n"
	"AB3= (blank) s5\n"
	"AC3=--peak fp16=100 (s) s3\n"
	"AD3= (blank) s3\n"
	"A4=2 (n) s4\n"
	"B4=failed (s) s3\n"
	"C4= (blank) s3\n"
	"D4= (blank) s7\n"
	"E4= (blank) s4\n"
	"F4= (blank) s4\n"
	"G4= (blank) s5\n"
	"H4= (blank) s6\n"
	"I4= (blank) s6\n"
	"J4= (blank) s6\n"
	"K4= (blank) s6\n"
	"L4= (blank) s6\n"
	"M4= (blank) s6\n"
	"N4= (blank) s6\n"
	"O4= (blank) s6\n"
	"P4= (blank) s6\n"
	"Q4= (blank) s6\n"
	"R4= (blank) s6\n"
	"S4= (blank) s6\n"
	"T4= (blank) s6\n"
	"U4= (blank) s6\n"
	"V4= (blank) s6\n"
	"W4= (blank) s6\n"
	"X4= (blank) s6\n"
	"Y4= (blank) s6\n"
	"Z4= (blank) s3\n"
	"AA4= (blank) s5\n"
	"AB4= (blank) s5\n"
	"AC4= (blank) s3\n"
	"AD4=bad.db: not a database (s) s3\n"
	"sheet Steps\n"
	"dimension A1:Z6\n"
	"freeze A2\n"
	"autofilter A1:Z6\n"
	"col A width 8 (xml 8.7109375)\n"
	"col B width 8 (xml 8.7109375)\n"
	"col C width 8 (xml 8.7109375)\n"
	"col D width 13 (xml 13.7109375)\n"
	"col E width 13 (xml 13.7109375)\n"
	"col F width 13 (xml 13.7109375)\n"
	"col G width 17 (xml 17.7109375)\n"
	"col H width 24 (xml 24.7109375)\n"
	"col I width 21 (xml 21.7109375)\n"
	"col J width 25 (xml 25.7109375)\n"
	"col K width 17 (xml 17.7109375)\n"
	"col L width 23 (xml 23.7109375)\n"
	"col M width 21 (xml 21.7109375)\n"
	"col N width 23 (xml 23.7109375)\n"
	"col O width 17 (xml 17.7109375)\n"
	"col P width 14 (xml 14.7109375)\n"
	"col Q width 14 (xml 14.7109375)\n"
	"col R width 10 (xml 10.7109375)\n"
	"col S width 12 (xml 12.7109375)\n"
	"col T width 9 (xml 9.7109375)\n"
	"col U width 17 (xml 17.7109375)\n"
	"col V width 17 (xml 17.7109375)\n"
	"col W width 18 (xml 18.7109375)\n"
	"col X width 16 (xml 16.7109375)\n"
	"col Y width 8 (xml 8.7109375)\n"
	"col Z width 13 (xml 13.7109375)\n"
	"row 1 height 30\n"
	"page landscape fit 1x0\n"
	"print titles $1:$1\n"
	"style 1: font \"Calibri\" 11 bold; fill solid FFAFEEEE; border thin; valign center; wrap; numfmt \"General\"\n"
	"style 3: font \"Calibri\" 11; fill none; border thin; numfmt \"General\"\n"
	"style 4: font \"Calibri\" 11; fill none; border thin; numfmt \"0\"\n"
	"style 5: font \"Calibri\" 11; fill none; border thin; numfmt \"#,##0.000\"\n"
	"style 6: font \"Calibri\" 11; fill none; border thin; numfmt \"0.00%\"\n"
	"style 7: font \"Calibri\" 11; fill none; border thin; numfmt \"0.00\"\n"
	"style 8: font \"Calibri\" 11; fill none; border thin; numfmt \"0.00E+00\"\n"
	"A1=Rank (s) s1\n"
	"B1=Step (s) s1\n"
	"C1=Kind (s) s1\n"
	"D1=Step time (ms) (s) s1\n"
	"E1=Profiler step (ms) (s) s1\n"
	"F1=Preparing (ms) (s) s1\n"
	"G1=FLOP kernels (ms) (s) s1\n"
	"H1=GEMM/conv/attention without FLOPs (ms) (s) s1\n"
	"I1=Memory-bound, bytes known (ms) (s) s1\n"
	"J1=Memory-bound bandwidth efficiency (s) s1\n"
	"K1=Other compute (ms) (s) s1\n"
	"L1=Exposed communication (ms) (s) s1\n"
	"M1=Waiting for other ranks (ms) (s) s1\n"
	"N1=Overlapped communication (ms) (s) s1\n"
	"O1=Copies and memsets (ms) (s) s1\n"
	"P1=Idle, host late (ms) (s) s1\n"
	"Q1=Idle, other (ms) (s) s1\n"
	"R1=FLOPs (s) s1\n"
	"S1=Peak (TFLOPS) (s) s1\n"
	"T1=Trace MFU (s) s1\n"
	"U1=FLOP kernels below peak (s) s1\n"
	"V1=Busy without FLOPs (s) s1\n"
	"W1=Exposed communication (s) s1\n"
	"X1=Waiting for other ranks (s) s1\n"
	"Y1=Idle (s) s1\n"
	"Z1=Idle, host late (s) s1\n"
	"A2=0 (n) s4\n"
	"B2=1 (n) s4\n"
	"C2= (blank) s3\n"
	"D2=10 (n) s5\n"
	"E2= (blank) s5\n"
	"F2= (blank) s5\n"
	"G2=6.25 (n) s5\n"
	"H2= (blank) s5\n"
	"I2= (blank) s5\n"
	"J2= (blank) s6\n"
	"K2=1.25 (n) s5\n"
	"L2=1.25 (n) s5\n"
	"M2= (blank) s5\n"
	"N2=0.5 (n) s5\n"
	"O2= (blank) s5\n"
	"P2= (blank) s5\n"
	"Q2=1.25 (n) s5\n"
	"R2=375000000000 (n) s8\n"
	"S2=100 (n) s7\n"
	"T2=0.375 (n) s6\n"
	"U2=0.25 (n) s6\n"
	"V2=0.125 (n) s6\n"
	"W2=0.125 (n) s6\n"
	"X2= (blank) s6\n"
	"Y2=0.125 (n) s6\n"
	"Z2= (blank) s6\n"
	"A3=0 (n) s4\n"
	"B3=2 (n) s4\n"
	"C3= (blank) s3\n"
	"D3=12 (n) s5\n"
	"E3= (blank) s5\n"
	"F3= (blank) s5\n"
	"G3=6 (n) s5\n"
	"H3= (blank) s5\n"
	"I3= (blank) s5\n"
	"J3= (blank) s6\n"
	"K3=2 (n) s5\n"
	"L3=2 (n) s5\n"
	"M3= (blank) s5\n"
	"N3=0 (n) s5\n"
	"O3= (blank) s5\n"
	"P3= (blank) s5\n"
	"Q3=2 (n) s5\n"
	"R3=300000000000 (n) s8\n"
	"S3=100 (n) s7\n"
	"T3=0.25 (n) s6\n"
	"U3=0.25 (n) s6\n"
	"V3=0.1666666666666667 (n) s6\n"
	"W3=0.1666666666666667 (n) s6\n"
	"X3= (blank) s6\n"
	"Y3=0.1666666666666667 (n) s6\n"
	"Z3= (blank) s6\n"
	"A4=0 (n) s4\n"
	"B4=3 (n) s4\n"
	"C4= (blank) s3\n"
	"D4=8 (n) s5\n"
	"E4= (blank) s5\n"
	"F4= (blank) s5\n"
	"G4=6 (n) s5\n"
	"H4= (blank) s5\n"
	"I4= (blank) s5\n"
	"J4= (blank) s6\n"
	"K4=1 (n) s5\n"
	"L4=0 (n) s5\n"
	"M4= (blank) s5\n"
	"N4=0 (n) s5\n"
	"O4= (blank) s5\n"
	"P4= (blank) s5\n"
	"Q4=1 (n) s5\n"
	"R4=300000000000 (n) s8\n"
	"S4=100 (n) s7\n"
	"T4=0.375 (n) s6\n"
	"U4=0.375 (n) s6\n"
	"V4=0.125 (n) s6\n"
	"W4=0 (n) s6\n"
	"X4= (blank) s6\n"
	"Y4=0.125 (n) s6\n"
	"Z4= (blank) s6\n"
	"A5=1 (n) s4\n"
	"B5=1 (n) s4\n"
	"C5= (blank) s3\n"
	"D5=12.5 (n) s5\n"
	"E5= (blank) s5\n"
	"F5= (blank) s5\n"
	"G5=7.8125 (n) s5\n"
	"H5= (blank) s5\n"
	"I5= (blank) s5\n"
	"J5= (blank) s6\n"
	"K5=1.5625 (n) s5\n"
	"L5=0.78125 (n) s5\n"
	"M5= (blank) s5\n"
	"N5=0 (n) s5\n"
	"O5= (blank) s5\n"
	"P5= (blank) s5\n"
	"Q5=2.34375 (n) s5\n"
	"R5=312500000000 (n) s8\n"
	"S5=100 (n) s7\n"
	"T5=0.25 (n) s6\n"
	"U5=0.375 (n) s6\n"
	"V5=0.125 (n) s6\n"
	"W5=0.0625 (n) s6\n"
	"X5= (blank) s6\n"
	"Y5=0.1875 (n) s6\n"
	"Z5= (blank) s6\n"
	"A6=1 (n) s4\n"
	"B6=2 (n) s4\n"
	"C6= (blank) s3\n"
	"D6=13 (n) s5\n"
	"E6= (blank) s5\n"
	"F6= (blank) s5\n"
	"G6=6.5 (n) s5\n"
	"H6= (blank) s5\n"
	"I6= (blank) s5\n"
	"J6= (blank) s6\n"
	"K6=3.25 (n) s5\n"
	"L6=1.3 (n) s5\n"
	"M6= (blank) s5\n"
	"N6=0 (n) s5\n"
	"O6= (blank) s5\n"
	"P6= (blank) s5\n"
	"Q6=1.95 (n) s5\n"
	"R6=260000000000 (n) s8\n"
	"S6=100 (n) s7\n"
	"T6=0.2 (n) s6\n"
	"U6=0.3 (n) s6\n"
	"V6=0.25 (n) s6\n"
	"W6=0.1 (n) s6\n"
	"X6= (blank) s6\n"
	"Y6=0.15 (n) s6\n"
	"Z6= (blank) s6\n"
	"sheet Modules\n"
	"dimension A1:J4\n"
	"freeze A2\n"
	"autofilter A1:J4\n"
	"col A width 25 (xml 25.7109375)\n"
	"col B width 9 (xml 9.7109375)\n"
	"col C width 9 (xml 9.7109375)\n"
	"col D width 13 (xml 13.7109375)\n"
	"col E width 16 (xml 16.7109375)\n"
	"col F width 13 (xml 13.7109375)\n"
	"col G width 8 (xml 8.7109375)\n"
	"col H width 8 (xml 8.7109375)\n"
	"col I width 14 (xml 14.7109375)\n"
	"col J width 19 (xml 19.7109375)\n"
	"row 1 height 30\n"
	"page landscape fit 1x0\n"
	"print titles $1:$1\n"
	"style 1: font \"Calibri\" 11 bold; fill solid FFAFEEEE; border thin; valign center; wrap; numfmt \"General\"\n"
	"style 3: font \"Calibri\" 11; fill none; border thin; numfmt \"General\"\n"
	"style 4: font \"Calibri\" 11; fill none; border thin; numfmt \"0\"\n"
	"style 5: font \"Calibri\" 11; fill none; border thin; numfmt \"#,##0.000\"\n"
	"style 6: font \"Calibri\" 11; fill none; border thin; numfmt \"0.00%\"\n"
	"A1=Module (s) s1\n"
	"B1=Ranks (s) s1\n"
	"C1=Calls (s) s1\n"
	"D1=Kernel time (ms) (s) s1\n"
	"E1=Recoverable time (ms) (s) s1\n"
	"F1=Lost time (ms) (s) s1\n"
	"G1=% of step (s) s1\n"
	"H1=MFU (s) s1\n"
	"I1=Roofline efficiency (s) s1\n"
	"J1=Short name (s) s1\n"
	"A2=Model/Layer_3/Attention (s) s3\n"
	"B2=1 (n) s4\n"
	"C2=2 (n) s4\n"
	"D2=7 (n) s5\n"
	"E2=4.5 (n) s5\n"
	"F2=4.5 (n) s5\n"
	"G2=0.14 (n) s6\n"
	"H2=0.5 (n) s6\n"
	"I2= (blank) s6\n"
	"J2=Layer_3/Attention (s) s3\n"
	"A3=Model/Head (s) s3\n"
	"B3=1 (n) s4\n"
	"C3=1 (n) s4\n"
	"D3=2 (n) s5\n"
	"E3=2 (n) s5\n"
	"F3=2 (n) s5\n"
	"G3=0.04 (n) s6\n"
	"H3= (blank) s6\n"
	"I3= (blank) s6\n"
	"J3=Model/Head (s) s3\n"
	"A4=Model (s) s3\n"
	"B4=2 (n) s4\n"
	"C4=2 (n) s4\n"
	"D4=1.5 (n) s5\n"
	"E4=1.5 (n) s5\n"
	"F4=1.5 (n) s5\n"
	"G4=0.03 (n) s6\n"
	"H4= (blank) s6\n"
	"I4= (blank) s6\n"
	"J4=Model (s) s3\n"
	"sheet Op types\n"
	"dimension A1:I4\n"
	"freeze A2\n"
	"autofilter A1:I4\n"
	"col A width 12 (xml 12.7109375)\n"
	"col B width 9 (xml 9.7109375)\n"
	"col C width 9 (xml 9.7109375)\n"
	"col D width 13 (xml 13.7109375)\n"
	"col E width 16 (xml 16.7109375)\n"
	"col F width 13 (xml 13.7109375)\n"
	"col G width 8 (xml 8.7109375)\n"
	"col H width 8 (xml 8.7109375)\n"
	"col I width 14 (xml 14.7109375)\n"
	"row 1 height 30\n"
	"page landscape fit 1x0\n"
	"print titles $1:$1\n"
	"style 1: font \"Calibri\" 11 bold; fill solid FFAFEEEE; border thin; valign center; wrap; numfmt \"General\"\n"
	"style 3: font \"Calibri\" 11; fill none; border thin; numfmt \"General\"\n"
	"style 4: font \"Calibri\" 11; fill none; border thin; numfmt \"0\"\n"
	"style 5: font \"Calibri\" 11; fill none; border thin; numfmt \"#,##0.000\"\n"
	"style 6: font \"Calibri\" 11; fill none; border thin; numfmt \"0.00%\"\n"
	"A1=Op (s) s1\n"
	"B1=Ranks (s) s1\n"
	"C1=Calls (s) s1\n"
	"D1=Kernel time (ms) (s) s1\n"
	"E1=Recoverable time (ms) (s) s1\n"
	"F1=Lost time (ms) (s) s1\n"
	"G1=% of step (s) s1\n"
	"H1=MFU (s) s1\n"
	"I1=Roofline efficiency (s) s1\n"
	"A2=aten::mm (s) s3\n"
	"B2=2 (n) s4\n"
	"C2=14 (n) s4\n"
	"D2=8 (n) s5\n"
	"E2=4.5 (n) s5\n"
	"F2=4.5 (n) s5\n"
	"G2=0.16 (n) s6\n"
	"H2=0.4375 (n) s6\n"
	"I2= (blank) s6\n"
	"A3=aten::gelu (s) s3\n"
	"B3=1 (n) s4\n"
	"C3=2 (n) s4\n"
	"D3=1 (n) s5\n"
	"E3=1 (n) s5\n"
	"F3=1 (n) s5\n"
	"G3=0.02 (n) s6\n"
	"H3= (blank) s6\n"
	"I3= (blank) s6\n"
	"A4==1+1 (s) s3\n"
	"B4=1 (n) s4\n"
	"C4=1 (n) s4\n"
	"D4=0.5 (n) s5\n"
	"E4=0.5 (n) s5\n"
	"F4=0.5 (n) s5\n"
	"G4=0.01 (n) s6\n"
	"H4= (blank) s6\n"
	"I4= (blank) s6\n"
	"sheet Kernels\n"
	"dimension A1:J2\n"
	"freeze A2\n"
	"autofilter A1:J2\n"
	"col A width 13 (xml 13.7109375)\n"
	"col B width 9 (xml 9.7109375)\n"
	"col C width 9 (xml 9.7109375)\n"
	"col D width 13 (xml 13.7109375)\n"
	"col E width 16 (xml 16.7109375)\n"
	"col F width 13 (xml 13.7109375)\n"
	"col G width 8 (xml 8.7109375)\n"
	"col H width 8 (xml 8.7109375)\n"
	"col I width 14 (xml 14.7109375)\n"
	"col J width 47 (xml 47.7109375)\n"
	"row 1 height 30\n"
	"page landscape fit 1x0\n"
	"print titles $1:$1\n"
	"style 1: font \"Calibri\" 11 bold; fill solid FFAFEEEE; border thin; valign center; wrap; numfmt \"General\"\n"
	"style 3: font \"Calibri\" 11; fill none; border thin; numfmt \"General\"\n"
	"style 4: font \"Calibri\" 11; fill none; border thin; numfmt \"0\"\n"
	"style 5: font \"Calibri\" 11; fill none; border thin; numfmt \"#,##0.000\"\n"
	"style 6: font \"Calibri\" 11; fill none; border thin; numfmt \"0.00%\"\n"
	"A1=Kernel (s) s1\n"
	"B1=Ranks (s) s1\n"
	"C1=Calls (s) s1\n"
	"D1=Kernel time (ms) (s) s1\n"
	"E1=Recoverable time (ms) (s) s1\n"
	"F1=Lost time (ms) (s) s1\n"
	"G1=% of step (s) s1\n"
	"H1=MFU (s) s1\n"
	"I1=Roofline efficiency (s) s1\n"
	"J1=Full name (s) s1\n"
	"A2=gemm_kernel (s) s3\n"
	"B2=2 (n) s4\n"
	"C2=20 (n) s4\n"
	"D2=8 (n) s5\n"
	"E2=4 (n) s5\n"
	"F2=4 (n) s5\n"
	"G2=0.16 (n) s6\n"
	"H2=0.5 (n) s6\n"
	"I2= (blank) s6\n"
	"J2=void gemm_kernel<float, 4>(float const*, int) (s) s3\n";



static void three_ranks(struct stores *st)
{
	int r;
	stores_init(st);
	for (r = 0; r < 3; r++)
		rank_rows(r, st);
	run_rows(st);
}

static void test_small(void)
{
	struct stores st;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char path[4200];

	three_ranks(&st);
	CHECK_INT(write_stores(dir, &st, &e), OPMFU_OK);
	xlsx_check_dump(in_dir(path, sizeof(path), OPMFU_SUMMARY_XLSX), small_want);
	CHECK_INT(tmp_files(dir), 0);
	stores_release(&st);
}

/* Streamed (libxlsxwriter's constant_memory, above stream_cells cells): the
 * same cells, but strings are inline strings (no shared table) and the charts
 * carry no cached values. */
static void test_streamed(void)
{
	struct opmfu_summary s;
	struct stores st;
	struct opmfu_table t[5];
	struct opmfu_write_stats ws;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char path[4200], *want = xlsx_streamed(small_want);
	size_t k;

	CHECK(want != NULL);
	if (!want)
		return;
	three_ranks(&st);
	t[0] = opmfu_cell_store_table(&st.r);
	t[1] = opmfu_cell_store_table(&st.s);
	t[2] = opmfu_cell_store_table(&st.run);
	t[3] = opmfu_cell_store_table(&st.hot);
	t[4] = opmfu_cell_store_table(&st.strag);
	opmfu_summary_init(&s);
	CHECK_INT(s.stream_cells, 2000000);
	s.stream_cells = 0;
	for (k = 0; k < 5; k++)
		CHECK_INT(opmfu_summary_add(&s, &t[k], &e), OPMFU_OK);
	CHECK_INT(opmfu_summary_keep(&s, &e), OPMFU_OK);
	memset(&ws, 0, sizeof(ws));
	CHECK_INT(opmfu_summary_xlsx_save(&s, dir, &ws, &e), OPMFU_OK);
	xlsx_check_dump(in_dir(path, sizeof(path), OPMFU_SUMMARY_XLSX), want);
	opmfu_summary_release(&s);
	stores_release(&st);
	free(want);
}

/* ---- through the xlsx writer, rank by rank ---- */

static const struct opmfu_table_def *const run_defs[] = { &rank_def, &step_def, &run_def, &hot_def, &strag_def };

/* Puts rank r's rows of the three-rank data into w; r = OPMFU_RUN_RANK:
 * the run account's tables. */
static void put_rank(struct opmfu_writer *w, int r)
{
	struct stores st;
	struct opmfu_table t[5];
	struct opmfu_err e = OPMFU_ERR_INIT;
	size_t k;

	stores_init(&st);
	if (r == OPMFU_RUN_RANK)
		run_rows(&st);
	else
		rank_rows(r, &st);
	t[0] = opmfu_cell_store_table(&st.r);
	t[1] = opmfu_cell_store_table(&st.s);
	t[2] = opmfu_cell_store_table(&st.run);
	t[3] = opmfu_cell_store_table(&st.hot);
	t[4] = opmfu_cell_store_table(&st.strag);
	for (k = 0; k < 5; k++)
		if (t[k].n_rows)
			CHECK_INT(opmfu_writer_put(w, r, &t[k], &e), OPMFU_OK);
	/* the writer keeps copies: the rank's own rows go now, as a rank's analysis does */
	stores_release(&st);
}

/*
 * Rank 0 kept, rank 1 dropped (its analysis failed after its tables were
 * put), rank 2 kept, then the run account under OPMFU_RUN_RANK: the
 * workbook, written at commit, holds ranks 0 and 2 in Ranks and Steps, and
 * the Overview and hotspot sheets as the run's tables have them. Before the
 * commit, and after a run closed without one, the earlier workbook stays.
 */
static void test_writer(void)
{
	const struct opmfu_writer_type *wt = opmfu_writer_type_find("xlsx");
	struct opmfu_writer *w = NULL;
	struct opmfu_write_stats ks;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char path[4200], *got;

	in_dir(path, sizeof(path), OPMFU_SUMMARY_XLSX);
	put_file(path, "earlier");
	CHECK_INT(wt->open(&w, dir, run_defs, 5, &e), OPMFU_OK);
	if (!w)
		return;
	put_rank(w, 0);
	CHECK_INT(opmfu_writer_keep_rank(w, 0, &ks, &e), OPMFU_OK);
	CHECK_INT(ks.files, 0); /* no table of these has a workbook of its own */
	put_rank(w, 1);
	CHECK_INT(opmfu_writer_drop_rank(w, 1, &e), OPMFU_OK);
	put_rank(w, 2);
	CHECK_INT(opmfu_writer_keep_rank(w, 2, &ks, &e), OPMFU_OK);
	put_rank(w, OPMFU_RUN_RANK);
	CHECK_INT(opmfu_writer_keep_rank(w, OPMFU_RUN_RANK, &ks, &e), OPMFU_OK);
	CHECK(file_is(path, "earlier"));
	CHECK_INT(opmfu_writer_commit(w, &e), OPMFU_OK);
	opmfu_writer_close(w);
	CHECK_INT(tmp_files(dir), 0);
	got = xlsx_dump(path);
	CHECK(got != NULL);
	/* Overview: OpmfuRun's cells (median rank 0, step 1, 10 ms, trace MFU 0.375) */
	CHECK(xlsx_dump_has(got, "B12=0 (n) s4"));
	CHECK(xlsx_dump_has(got, "B13=1 (n) s4"));
	CHECK(xlsx_dump_has(got, "B14=10 (n) s5"));
	CHECK(xlsx_dump_has(got, "B15=0.375 (n) s6"));
	/* Ranks: 0 and 2 */
	CHECK(xlsx_dump_has(got, "dimension A1:AD3"));
	CHECK(xlsx_dump_has(got, "A3=2 (n) s4"));
	/* rank 0's three steps */
	CHECK(xlsx_dump_has(got, "dimension A1:Z4"));
	CHECK(xlsx_dump_has(got, "A2=Model/Layer_3/Attention (s) s3"));
	free(got);

	/* a run that never commits (it failed) leaves the workbook as it was */
	put_file(path, "earlier");
	CHECK_INT(wt->open(&w, dir, run_defs, 5, &e), OPMFU_OK);
	put_rank(w, 0);
	CHECK_INT(opmfu_writer_keep_rank(w, 0, &ks, &e), OPMFU_OK);
	opmfu_writer_close(w);
	CHECK(file_is(path, "earlier"));
	CHECK_INT(tmp_files(dir), 0);

	/* a run of tables the summary does not show writes none */
	unlink(path);
	CHECK_INT(wt->open(&w, dir, run_defs, 0, &e), OPMFU_OK);
	CHECK_INT(opmfu_writer_commit(w, &e), OPMFU_OK);
	opmfu_writer_close(w);
	CHECK(access(path, F_OK) != 0);
}

/*
 * The rank summary alone (a result written before the run account): the
 * Overview says there is no OpmfuRun instead of computing one; no Steps or
 * hotspot sheet, no MFU chart (no median rank's trace MFU to hold the ranks
 * against), the waterfall from the ranks' own shares. A rank summary
 * without those columns gives no chart at all.
 */
static void test_ranks_only(void)
{
	static const struct opmfu_column old_cols[] = { { "rank_id", OPMFU_COL_INT, "", 0, 0 },
							{ "status", OPMFU_COL_TEXT, "", 0, 0 } };
	static const struct opmfu_table_def old_def = { "OpmfuRankSummary", old_cols, 2, NULL, 0, NULL };
	struct stores st;
	struct opmfu_cell_store old;
	struct opmfu_table t;
	struct opmfu_summary_tables tabs = { NULL, NULL, NULL, NULL, NULL, NULL };
	struct opmfu_write_stats ws;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char path[4200], *got;

	three_ranks(&st);
	t = opmfu_cell_store_table(&st.r);
	tabs.ranks = &t;
	memset(&ws, 0, sizeof(ws));
	CHECK_INT(opmfu_summary_xlsx_write(dir, &tabs, &ws, &e), OPMFU_OK);
	got = xlsx_dump(in_dir(path, sizeof(path), OPMFU_SUMMARY_XLSX));
	CHECK(got && !strstr(got, "sheet Steps") && !strstr(got, "sheet Modules") && !strstr(got, "sheet Op types"));
	CHECK(got && !strstr(got, "Trace MFU per rank") && !strstr(got, "break after"));
	CHECK(xlsx_dump_has(got, "A3=No OpmfuRun table: these results were written by an older opmfu. The run's "
				 "median rank and step, its waterfall, hotspots and stragglers are not shown here; "
				 "analyse the traces again to get them. (s) s3"));
	CHECK(xlsx_dump_has(got, "dimension A1:A3"));
	/* the waterfall two rows below the note */
	CHECK(xlsx_dump_has(got, "chart A5:K25 bar col percentStacked gap 40 overlap 100 legend b title \"Where the "
				 "median step went, per rank\""));
	/* the rank's median step as its row says; nothing to hold it against */
	CHECK(xlsx_dump_has(got, "F2=1 (n) s4"));
	CHECK(xlsx_dump_has(got, "G2=10 (n) s5"));
	CHECK(xlsx_dump_has(got, "P2= (blank) s6"));
	free(got);
	stores_release(&st);

	opmfu_cell_store_init(&old, &old_def);
	add(&old, (struct opmfu_cell[]){ I(5), S("ok") });
	t = opmfu_cell_store_table(&old);
	CHECK_INT(opmfu_summary_xlsx_write(dir, &tabs, &ws, &e), OPMFU_OK);
	got = xlsx_dump(path);
	CHECK(got && !strstr(got, "chart "));
	CHECK(xlsx_dump_has(got, "dimension A1:AD2"));
	CHECK(xlsx_dump_has(got, "H2= (blank) s6"));
	free(got);
	opmfu_cell_store_release(&old);
	unlink(path);
}

/*
 * Collectives (SPEC 19), each a cell of the tables: the Overview's
 * "  Waiting for other ranks" (OpmfuRun.share_comm_wait 0.1) right under
 * "Exposed communication" (share_comm 0.5): the 20th and 21st of the 30
 * keys in rows 4..33, A23 and A24, the others blank (the run def lacks
 * them); the stragglers from row 35: the culprit's row labelled, its 33000
 * ns shown as 0.033 ms, the median rank's 0, +0.033 signed, and culprit_of's
 * text in F (header "Waiting for", the column 50 wide: only because a row
 * has one), the exposed-communication row's text too; the Steps sheet's
 * comm_wait_ns 27000 ns = 0.027 ms in M (after exposed communication's 0.051
 * in L) and share_comm_wait 0.25 in X; the Collectives sheet: name, 3 ranks,
 * 6 calls, time 91000 ns = 0.091 ms, exposed time (recoverable_ns) 79000 ns
 * = 0.079 ms, % of step 0.25; no chart of it.
 */
static void test_collectives(void)
{
	static const struct opmfu_column rn_cols[] = {
		{ "run_id", OPMFU_COL_TEXT, "", 0, 0 },	 { "share_comm", OPMFU_COL_REAL, "", 0, 0 },
		{ "share_comm_wait", OPMFU_COL_REAL, "", 0, 0 },
	};
	static const struct opmfu_table_def rn_def = { "OpmfuRun", rn_cols, 3, NULL, 0, NULL };
	static const struct opmfu_column sp_cols[] = {
		{ "rank_id", OPMFU_COL_INT, "", 0, 0 },	      { "step", OPMFU_COL_INT, "", 0, 0 },
		{ "comm_exposed_ns", OPMFU_COL_INT, "", 0, 0 }, { "comm_wait_ns", OPMFU_COL_INT, "", 0, 0 },
		{ "share_comm_wait", OPMFU_COL_REAL, "", 0, 0 },
	};
	static const struct opmfu_table_def sp_def = { "OpmfuSteps", sp_cols, 5, NULL, 0, NULL };
	struct opmfu_cell_store rn, sp, hot, strag;
	struct opmfu_table t[4];
	struct opmfu_summary_tables tabs = { NULL, &t[1], &t[0], &t[2], &t[3], NULL };
	struct opmfu_write_stats ws;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char path[4200], *got;

	opmfu_cell_store_init(&rn, &rn_def);
	opmfu_cell_store_init(&sp, &sp_def);
	opmfu_cell_store_init(&hot, &hot_def);
	opmfu_cell_store_init(&strag, &strag_def);
	add(&rn, (struct opmfu_cell[]){ S("coll"), R(0.5), R(0.1) });
	add(&sp, (struct opmfu_cell[]){ I(1), I(1), I(51000), I(27000), R(0.25) });
	add(&hot, (struct opmfu_cell[]){ S("collective"), S("allreduce [group 0]"), I(3), I(6), I(91000), I(79000),
					 I(79000), R(0.25), N, N });
	add(&strag, (struct opmfu_cell[]){ S("share_comm"), I(1), R(0.5), R(0.5), R(0), S("rank 2: the others waited") });
	add(&strag, (struct opmfu_cell[]){ S("comm_wait_caused_ns"), I(2), R(33000), R(0), R(33000),
					   S("ranks waited 0.033 ms for it over 2 calls (2 ranks)") });
	t[0] = opmfu_cell_store_table(&rn);
	t[1] = opmfu_cell_store_table(&sp);
	t[2] = opmfu_cell_store_table(&hot);
	t[3] = opmfu_cell_store_table(&strag);
	memset(&ws, 0, sizeof(ws));
	CHECK_INT(opmfu_summary_xlsx_write(dir, &tabs, &ws, &e), OPMFU_OK);
	got = xlsx_dump(in_dir(path, sizeof(path), OPMFU_SUMMARY_XLSX));
	CHECK(xlsx_dump_has(got, "sheet Collectives"));
	CHECK(xlsx_dump_has(got, "A23=Exposed communication (s) s3"));
	CHECK(xlsx_dump_has(got, "B23=0.5 (n) s6"));
	CHECK(xlsx_dump_has(got, "A24=  Waiting for other ranks (s) s3"));
	CHECK(xlsx_dump_has(got, "B24=0.1 (n) s6"));
	/* the stragglers from row 35 (the run's 30 keys in rows 4..33, one empty row) */
	CHECK(xlsx_dump_has(got, "col F width 50 (xml 50.7109375)"));
	CHECK(xlsx_dump_has(got, "F35=Waiting for (s) s1"));
	CHECK(xlsx_dump_has(got, "A36=Most exposed communication (s) s3"));
	CHECK(xlsx_dump_has(got, "F36=rank 2: the others waited (s) s3"));
	CHECK(xlsx_dump_has(got, "A37=Others waited for this rank (ms) (s) s3"));
	CHECK(xlsx_dump_has(got, "B37=2 (n) s4"));
	CHECK(xlsx_dump_has(got, "C37=0.033 (n) s5"));
	CHECK(xlsx_dump_has(got, "D37=0 (n) s5"));
	CHECK(xlsx_dump_has(got, "E37=0.033 (n) s9"));
	CHECK(xlsx_dump_has(got, "F37=ranks waited 0.033 ms for it over 2 calls (2 ranks) (s) s3"));
	/* Steps: waiting in ms after exposed communication (L), its share after exposed communication's (W) */
	CHECK(xlsx_dump_has(got, "L2=0.051 (n) s5"));
	CHECK(xlsx_dump_has(got, "M1=Waiting for other ranks (ms) (s) s1"));
	CHECK(xlsx_dump_has(got, "M2=0.027 (n) s5"));
	CHECK(xlsx_dump_has(got, "X1=Waiting for other ranks (s) s1"));
	CHECK(xlsx_dump_has(got, "X2=0.25 (n) s6"));
	/* Collectives */
	CHECK(xlsx_dump_has(got, "dimension A1:F2"));
	CHECK(xlsx_dump_has(got, "A1=Collective (s) s1"));
	CHECK(xlsx_dump_has(got, "A2=allreduce [group 0] (s) s3"));
	CHECK(xlsx_dump_has(got, "B2=3 (n) s4"));
	CHECK(xlsx_dump_has(got, "C2=6 (n) s4"));
	CHECK(xlsx_dump_has(got, "D1=Time (ms) (s) s1"));
	CHECK(xlsx_dump_has(got, "D2=0.091 (n) s5"));
	CHECK(xlsx_dump_has(got, "E1=Exposed time (ms) (s) s1"));
	CHECK(xlsx_dump_has(got, "E2=0.079 (n) s5"));
	CHECK(xlsx_dump_has(got, "F2=0.25 (n) s6"));
	CHECK(got && !strstr(got, "by collective"));
	free(got);
	opmfu_cell_store_release(&rn);
	opmfu_cell_store_release(&sp);
	opmfu_cell_store_release(&hot);
	opmfu_cell_store_release(&strag);
	unlink(path);
}

/* ---- a thousand ranks ---- */

/*
 * Every rank is charted: the per-rank charts widen to 160 + 16 px a rank,
 * at least 960 and at most 1920 px (4 x 480): 48 ranks get 960 px, 1,000
 * get 1920 px. Columns touch (gap 0) above 64 ranks; every k-th rank is
 * labelled, k = ceil(n / 40): 2 for 48, 25 for 1,000. The hotspot charts
 * show the 20 module paths and op types most recoverable: 140 + 24 x 20 =
 * 620 px. The Overview's numbers are OpmfuRun's, the median rank's: for 48
 * ranks rank 17 (windows 10 + 0.1 (i mod 7) ms: 7 ranks of each of 10.0 ..
 * 10.5 ms and 6 of 10.6; the 24th by window is the third of 10.3 ms: ranks
 * 3, 10, 17), trace MFU 0.40 + 0.01 x (17 mod 5) = 0.42, step 10.3 ms.
 * The Overview's size does not grow with the ranks: its blocks are the
 * run's row and at most six stragglers.
 */
static void test_many(void)
{
	static const size_t counts[] = { 48, 1000 };
	struct opmfu_err e = OPMFU_ERR_INIT;
	struct stores st;
	char d[4200], path[4300], *got;
	size_t k;

	CHECK_INT(many_median(48), 17);
	for (k = 0; k < 2; k++) {
		size_t n = counts[k];
		char line[256];
		snprintf(d, sizeof(d), "%s/r%zu", dir, n);
		CHECK(mkdir(d, 0777) == 0 || errno == EEXIST);
		stores_init(&st);
		many_rows(n, &st);
		CHECK_INT(write_stores(d, &st, &e), OPMFU_OK);
		stores_release(&st);
		snprintf(path, sizeof(path), "%s/%s", d, OPMFU_SUMMARY_XLSX);
		got = xlsx_dump(path);
		CHECK(xlsx_dump_has(got, "dimension A1:E36"));
		snprintf(line, sizeof(line),
			 "chart A38:%s58 bar col percentStacked gap %s overlap 100 legend b title \"Where the median step "
			 "went, per rank\"",
			 n == 48 ? "K" : "Z", n == 48 ? "40" : "0");
		CHECK(xlsx_dump_has(got, line));
		snprintf(line, sizeof(line), "    axis cat b skip %s title \"Rank\"", n == 48 ? "2" : "25");
		CHECK(xlsx_dump_has(got, line));
		snprintf(line, sizeof(line),
			 "    series name Ranks!$P$1 cat Ranks!$A$2:$A$%zu val Ranks!$P$2:$P$%zu fill 2E7D32 cached %zu",
			 n + 1, n + 1, n);
		CHECK(xlsx_dump_has(got, line));
		CHECK(xlsx_dump_has(got, "chart A82:K113 bar bar clustered gap 40 no legend title \"Recoverable time by "
					 "module class, ms (top 20 of 30)\""));
		/* a class's name labels its bar */
		CHECK(xlsx_dump_has(got, "    series name 'Module classes'!$E$1 cat 'Module classes'!$A$2:$A$21 val "
					 "'Module classes'!$E$2:$E$21 fill C0504D cached 20"));
		/* the median rank's, for 48 ranks */
		if (n == 48) {
			CHECK(xlsx_dump_has(got, "B12=17 (n) s4"));
			CHECK(xlsx_dump_has(got, "B14=10.3 (n) s5"));
			CHECK(xlsx_dump_has(got, "B15=0.42 (n) s6"));
		}
		/* the straggler: rank 13 at 0.2 */
		CHECK(xlsx_dump_has(got, "A36=Lowest trace MFU (s) s3"));
		CHECK(xlsx_dump_has(got, "B36=13 (n) s4"));
		CHECK(xlsx_dump_has(got, "C36=0.2 (n) s6"));
		free(got);
		if (!keep) {
			unlink(path);
			rmdir(d);
		}
	}
}

/* ---- the roofline ---- */

/*
 * Two ranks, the median rank 1 (OpmfuRun.median_rank) with 4 TB/s (rank 0's
 * 2 TB/s is not the run's), a peak of 100 TFLOPS: the ridge point is
 * 100 / 4 = 25 FLOPs per byte. Three shape rows, most recoverable first:
 * (200 FLOPs/byte, 50 TFLOPS), (0.25, 0.5) and one without FLOPs (blank
 * cells: no point). The roof spans the powers of ten around the least and
 * largest x (0.25 and 200, the ridge 25 between): from 0.1 at 0.1 x 4 = 0.4
 * TFLOPS to the ridge (25, 100), flat to (1000, 100). The Overview's run
 * block ends at row 33 (A3 + a header + 29 keys + a blank row), no
 * stragglers: the roof's corners in A34:C37, the chart at A39.
 */
static void test_roofline(void)
{
	static const struct opmfu_column rk_cols[] = {
		{ "rank_id", OPMFU_COL_INT, "", 0, 0 },	       { "status", OPMFU_COL_TEXT, "", 0, 0 },
		{ "peak_tflops", OPMFU_COL_REAL, "", 0, 0 },   { "peak_bw_tbps", OPMFU_COL_REAL, "", 0, 0 },
	};
	static const struct opmfu_table_def rk_def = { "OpmfuRankSummary", rk_cols, 4, NULL, 0, NULL };
	static const struct opmfu_column rn_cols[] = {
		{ "run_id", OPMFU_COL_TEXT, "", 0, 0 },
		{ "peak_tflops", OPMFU_COL_REAL, "", 0, 0 },
		{ "median_rank", OPMFU_COL_INT, "", 0, 0 },
	};
	static const struct opmfu_table_def rn_def = { "OpmfuRun", rn_cols, 3, NULL, 0, NULL };
	static const struct opmfu_column h_cols[] = {
		{ "kind", OPMFU_COL_TEXT, "", 0, 0 },		 { "name", OPMFU_COL_TEXT, "", 0, 0 },
		{ "ranks", OPMFU_COL_INT, "", 0, 0 },		 { "calls", OPMFU_COL_INT, "", 0, 0 },
		{ "kernel_ns", OPMFU_COL_INT, "", 0, 0 },	 { "recoverable_ns", OPMFU_COL_INT, "", 0, 0 },
		{ "lost_ns", OPMFU_COL_INT, "", 0, 0 },		 { "pct_of_step", OPMFU_COL_REAL, "", 0, 0 },
		{ "mfu", OPMFU_COL_REAL, "", 0, 0 },		 { "roofline_eff", OPMFU_COL_REAL, "", 0, 0 },
		{ "achieved_tflops", OPMFU_COL_REAL, "", 0, 0 }, { "intensity", OPMFU_COL_REAL, "", 0, 0 },
	};
	static const struct opmfu_table_def h_def = { "OpmfuHotspots", h_cols, 12, NULL, 0, NULL };
	struct opmfu_cell_store r, run, hot;
	struct opmfu_table tr, trun, thot;
	struct opmfu_summary_tables tabs = { NULL, NULL, NULL, NULL, NULL, NULL };
	struct opmfu_write_stats ws;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char d[4200], path[4300], *got;

	snprintf(d, sizeof(d), "%s/roof", dir);
	CHECK(mkdir(d, 0777) == 0 || errno == EEXIST);
	opmfu_cell_store_init(&r, &rk_def);
	opmfu_cell_store_init(&run, &rn_def);
	opmfu_cell_store_init(&hot, &h_def);
	add(&r, (struct opmfu_cell[]){ I(0), S("ok"), R(100), R(2) });
	add(&r, (struct opmfu_cell[]){ I(1), S("ok"), R(100), R(4) });
	add(&run, (struct opmfu_cell[]){ S("roof"), R(100), I(1) });
	add(&hot, (struct opmfu_cell[]){ S("shape"), S("aten::mm [[64,64],[64,64]] bf16"), I(2), I(4), I(4000000),
					 I(3000000), I(3000000), R(0.2), R(0.5), R(0.5), R(50), R(200) });
	add(&hot, (struct opmfu_cell[]){ S("shape"), S("aten::add [[64]] bf16"), I(2), I(4), I(2500000), I(2000000),
					 I(2400000), R(0.1), R(0.005), R(0.2), R(0.5), R(0.25) });
	add(&hot, (struct opmfu_cell[]){ S("shape"), S("aten::copy_ [[64]] bf16"), I(2), I(2), I(1500000), I(1000000),
					 I(1500000), R(0.05), N, N, N, N });
	tr = opmfu_cell_store_table(&r);
	trun = opmfu_cell_store_table(&run);
	thot = opmfu_cell_store_table(&hot);
	tabs.ranks = &tr;
	tabs.run = &trun;
	tabs.hotspots = &thot;
	memset(&ws, 0, sizeof(ws));
	CHECK_INT(opmfu_summary_xlsx_write(d, &tabs, &ws, &e), OPMFU_OK);
	snprintf(path, sizeof(path), "%s/%s", d, OPMFU_SUMMARY_XLSX);
	got = xlsx_dump(path);
	CHECK(got != NULL);
	/* the Shapes sheet's two roofline columns, J and K */
	CHECK(xlsx_dump_has(got, "J1=Achieved TFLOPS (s) s1"));
	CHECK(xlsx_dump_has(got, "K1=FLOPs per byte (s) s1"));
	CHECK(xlsx_dump_has(got, "J2=50 (n) s7"));
	CHECK(xlsx_dump_has(got, "K2=200 (n) s7"));
	CHECK(xlsx_dump_has(got, "J3=0.5 (n) s7"));
	CHECK(xlsx_dump_has(got, "K3=0.25 (n) s7"));
	CHECK(xlsx_dump_has(got, "J4= (blank) s7"));
	/* the roof's corners */
	CHECK(xlsx_dump_has(got, "A35=Roof (s) s1"));
	CHECK(xlsx_dump_has(got, "B35=FLOPs per byte (s) s1"));
	CHECK(xlsx_dump_has(got, "C35=TFLOPS (s) s1"));
	CHECK(xlsx_dump_has(got, "A36=Memory roof from (s) s3"));
	CHECK(xlsx_dump_has(got, "B36=0.1 (n) s7"));
	CHECK(xlsx_dump_has(got, "C36=0.4 (n) s7"));
	CHECK(xlsx_dump_has(got, "A37=Ridge point (s) s3"));
	CHECK(xlsx_dump_has(got, "B37=25 (n) s7"));
	CHECK(xlsx_dump_has(got, "C37=100 (n) s7"));
	CHECK(xlsx_dump_has(got, "A38=Compute roof to (s) s3"));
	CHECK(xlsx_dump_has(got, "B38=1000 (n) s7"));
	CHECK(xlsx_dump_has(got, "C38=100 (n) s7"));
	/* the chart: the first three shape rows (all of them) as points, the roof from the Overview, log10 axes */
	/* 960 x 480 pixels: 24 rows of 20, columns A:K as the other charts twice the default width */
	CHECK(xlsx_dump_has(got, "chart A40:K64 scatter lineMarker legend b title \"Roofline: achieved TFLOPS against FLOPs "
				 "per byte, 2 op shapes (of the top 3 of 3 by recoverable time)\""));
	CHECK(xlsx_dump_has(got, "    series name Shapes!$J$1 x Shapes!$K$2:$K$4 y Shapes!$J$2:$J$4 line none cached 3"));
	CHECK(xlsx_dump_has(got, "    series name Overview!$A$35 x Overview!$B$36:$B$38 y Overview!$C$36:$C$38 line "
				 "404040 cached 3"));
	CHECK(xlsx_dump_has(got, "    axis val b log 10 title \"FLOPs per byte\""));
	CHECK(xlsx_dump_has(got, "    axis val l log 10 title \"Achieved TFLOPS\""));
	if (check_failures)
		fprintf(stderr, "%s", got ? got : "");
	free(got);
	if (!keep) {
		unlink(path);
		rmdir(d);
	}
	opmfu_cell_store_release(&r);
	opmfu_cell_store_release(&run);
	opmfu_cell_store_release(&hot);
}

/* ---- failures ---- */

/* A folder that is not there, or a directory where the workbook goes: the
 * message names the file, nothing is left behind. */
static void test_unwritable(void)
{
	struct opmfu_err e = OPMFU_ERR_INIT;
	struct stores st;
	char path[4200];

	three_ranks(&st);
	CHECK_INT(write_stores("/nonexistent-opmfu-dir", &st, &e), OPMFU_ERR_IO);
	CHECK(strstr(e.msg, "/nonexistent-opmfu-dir/opmfu_summary.xlsx") == e.msg &&
	      strstr(e.msg, "No such file or directory"));
	in_dir(path, sizeof(path), OPMFU_SUMMARY_XLSX);
	CHECK(mkdir(path, 0777) == 0);
	CHECK_INT(write_stores(dir, &st, &e), OPMFU_ERR_IO);
	CHECK(strstr(e.msg, path) == e.msg && strstr(e.msg, "cannot replace it"));
	CHECK_INT(tmp_files(dir), 0);
	rmdir(path);
	stores_release(&st);
}

static enum opmfu_status write_three(void *ctx, struct opmfu_err *e)
{
	return write_stores(dir, ctx, e);
}

/* Every allocation of opmfu's failing in turn: out of memory, the earlier
 * workbook as it was, nothing left behind; then the run succeeds. */
static void test_nomem(void)
{
	struct stores st;
	char path[4200];

	three_ranks(&st);
	xlsx_check_nomem(dir, in_dir(path, sizeof(path), OPMFU_SUMMARY_XLSX), write_three, &st, small_want);
	stores_release(&st);
}

int main(int argc, char **argv)
{
	if ((keep = xlsx_test_start(argc, argv, "t_summary_xlsx", dir, sizeof(dir))) < 0)
		return 2;

	test_small();
	test_streamed();
	test_writer();
	test_ranks_only();
	test_collectives();
	test_many();
	test_roofline();
	test_unwritable();
	test_nomem(); /* its last run leaves the three ranks' workbook */
	return xlsx_test_end(keep, dir, OPMFU_SUMMARY_XLSX);
}
