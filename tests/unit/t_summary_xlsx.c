/*
 * t_summary_xlsx.c - opmfu_summary.xlsx (write/summary_xlsx.h, SPEC 14) from
 * hand-built OpmfuRankSummary, OpmfuSteps, OpmfuModules and OpmfuOpTypes
 * rows (cell stores over defs with the tables' names and SPEC 15's column
 * names), read back through tests/tools/xlsx_cells.py: every cell, number
 * format, width, the page setup and the charts' types and ranges; the same
 * workbook through the xlsx writer, rank by rank, with a rank dropped; a
 * thousand ranks; a failed or never committed run leaving an earlier
 * workbook as it was; every allocation failing in turn.
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

/* ---- the tables, as the analyses define them (names are what count) ---- */

static const struct opmfu_column rank_cols[] = {
	{ "rank_id", OPMFU_COL_INT, "Rank ID", 0, 0 },
	{ "status", OPMFU_COL_TEXT, "Status", 0, 0 },
	{ "reason", OPMFU_COL_TEXT, "Reason", 0, 0 },
	{ "peak_fp16_tflops", OPMFU_COL_REAL, "Peak", 0, 0 },
	{ "chip_seen", OPMFU_COL_TEXT, "Chip", 0, 0 },
	{ "mfu_recorded", OPMFU_COL_REAL, "", 0, 0 },
	{ "mfu_busy", OPMFU_COL_REAL, "", 0, 0 },
	{ "flops_coverage", OPMFU_COL_REAL, "", 0, 0 },
	{ "trace_mfu", OPMFU_COL_REAL, "", 0, 0 },
	{ "step_ns_median", OPMFU_COL_INT, "", 0, 0 },
};
static const struct opmfu_table_def rank_def = { "OpmfuRankSummary", rank_cols, 10, NULL };

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
static const struct opmfu_table_def step_def = { "OpmfuSteps", step_cols, 19, NULL };

static const struct opmfu_column module_cols[] = {
	{ "rank_id", OPMFU_COL_INT, "", 0, 0 },	{ "module", OPMFU_COL_TEXT, "", 0, 0 },
	{ "calls", OPMFU_COL_INT, "", 0, 0 },	{ "kernel_ns", OPMFU_COL_INT, "", 0, 0 },
	{ "flops_kernel_ns", OPMFU_COL_INT, "", 0, 0 }, { "flops", OPMFU_COL_INT, "", 0, 0 },
	{ "mfu", OPMFU_COL_REAL, "", 0, 0 },	{ "mfu_all", OPMFU_COL_REAL, "", 0, 0 },
	{ "lost_ns", OPMFU_COL_INT, "", 0, 0 },	{ "depth", OPMFU_COL_INT, "", 0, 0 },
	{ "self_lost_ns", OPMFU_COL_INT, "", 0, 0 },
};
static const struct opmfu_table_def module_def = { "OpmfuModules", module_cols, 11, NULL };

static const struct opmfu_column op_cols[] = {
	{ "rank_id", OPMFU_COL_INT, "", 0, 0 }, { "op_name", OPMFU_COL_TEXT, "", 0, 0 },
	{ "ops", OPMFU_COL_INT, "", 0, 0 },	{ "kernel_ns", OPMFU_COL_INT, "", 0, 0 },
	{ "flops_kernel_ns", OPMFU_COL_INT, "", 0, 0 }, { "flops", OPMFU_COL_INT, "", 0, 0 },
	{ "mfu", OPMFU_COL_REAL, "", 0, 0 },	{ "lost_ns", OPMFU_COL_INT, "", 0, 0 },
};
static const struct opmfu_table_def op_def = { "OpmfuOpTypes", op_cols, 8, NULL };

#define I(v) opmfu_cell_int(v)
#define R(v) opmfu_cell_real(v)
#define S(v) opmfu_cell_str(v)
#define N opmfu_cell_null()

static void add(struct opmfu_cell_store *cs, const struct opmfu_cell *row)
{
	struct opmfu_err e = OPMFU_ERR_INIT;
	CHECK_INT(opmfu_cell_store_add(cs, row, &e), OPMFU_OK);
}

/* rank: 0, 1 or 2 (2 failed); one store per table, rows of that rank only */
static void rank_rows(int rank, struct opmfu_cell_store *rs, struct opmfu_cell_store *ss,
		      struct opmfu_cell_store *ms, struct opmfu_cell_store *os)
{
	if (rank == 0) {
		add(rs, (struct opmfu_cell[]){ I(0), S("ok"), N, R(100), S("Ascend910B"), R(0.5), R(0.4), R(0.8), R(0.375),
					       I(10000000) });
		/* window = flops + other + exposed comm + idle (ns); FLOPs / (window x 1e14) */
		add(ss, (struct opmfu_cell[]){ I(0), I(1), I(1000), I(10001000), I(10000000), I(6000000), I(1500000),
					       I(1000000), I(500000), I(1500000), R(3e11), R(3e11), R(0), R(100), R(0.3),
					       R(0.15), R(0.1), R(0.15), R(0.3) });
		add(ss, (struct opmfu_cell[]){ I(0), I(2), I(10001000), I(22001000), I(12000000), I(6000000),
					       I(2000000), I(2000000), I(0), I(2000000), R(3e11), R(3e11), R(0), R(100),
					       R(0.25), R(1.0 / 6), R(1.0 / 6), R(1.0 / 6), R(0.25) });
		add(ss, (struct opmfu_cell[]){ I(0), I(3), I(22001000), I(30001000), I(8000000), I(6000000), I(1000000),
					       I(0), I(0), I(1000000), R(3e11), R(3e11), R(0), R(100), R(0.375), R(0.125),
					       R(0), R(0.125), R(0.375) });
		add(ms, (struct opmfu_cell[]){ I(0), S("Model"), I(1), I(8000000), I(6000000), I(300000000000), R(0.5),
					       R(0.375), I(5000000), I(1), I(500000) });
		add(ms, (struct opmfu_cell[]){ I(0), S("Model/Layer"), I(2), I(7000000), I(6000000), I(300000000000),
					       R(0.5), R(0.43), I(4500000), I(2), I(4500000) });
		add(os, (struct opmfu_cell[]){ I(0), S("aten::mm"), I(10), I(6000000), I(6000000), I(300000000000),
					       R(0.5), I(3000000) });
		add(os, (struct opmfu_cell[]){ I(0), S("aten::gelu"), I(2), I(1000000), I(0), N, N, I(1000000) });
	} else if (rank == 1) {
		add(rs, (struct opmfu_cell[]){ I(1), S("ok"), N, R(100), S("Ascend910B"), R(0.45), R(0.36), R(0.8),
					       R(0.25), I(12500000) });
		add(ss, (struct opmfu_cell[]){ I(1), I(1), I(0), I(12500000), I(12500000), I(7500000), I(2500000),
					       I(1250000), I(0), I(1250000), R(3.125e11), R(0), R(3.125e11), R(100),
					       R(0.25), R(0.1), R(0.1), R(0.2), R(0.35) });
		add(ss, (struct opmfu_cell[]){ I(1), I(2), I(12500000), I(25500000), I(13000000), I(6500000),
					       I(3250000), I(1300000), I(0), I(1950000), R(2.6e11), R(0), R(2.6e11),
					       R(100), R(0.2), R(0.15), R(0.1), R(0.25), R(0.3) });
		add(ms, (struct opmfu_cell[]){ I(1), S("Model"), I(1), I(10000000), I(4000000), I(100000000000), R(0.25),
					       R(0.1), I(8000000), I(1), I(1000000) });
		add(ms, (struct opmfu_cell[]){ I(1), S("Model/Head"), I(1), I(2000000), I(0), N, N, N, I(2000000), I(2),
					       I(2000000) });
		add(os, (struct opmfu_cell[]){ I(1), S("aten::mm"), I(4), I(2000000), I(2000000), I(50000000000),
					       R(0.25), I(1500000) });
		add(os, (struct opmfu_cell[]){ I(1), S("=1+1"), I(1), I(500000), I(0), N, N, I(500000) });
	} else {
		add(rs, (struct opmfu_cell[]){ I(2), S("failed"), S("bad.db: not a database"), N, N, N, N, N, N, N });
	}
}

struct stores {
	struct opmfu_cell_store r, s, m, o;
};

static void stores_init(struct stores *st)
{
	opmfu_cell_store_init(&st->r, &rank_def);
	opmfu_cell_store_init(&st->s, &step_def);
	opmfu_cell_store_init(&st->m, &module_def);
	opmfu_cell_store_init(&st->o, &op_def);
}

static void stores_release(struct stores *st)
{
	opmfu_cell_store_release(&st->r);
	opmfu_cell_store_release(&st->s);
	opmfu_cell_store_release(&st->m);
	opmfu_cell_store_release(&st->o);
}

static char *in_dir(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
	return buf;
}

/* n ranks of generated rows: rank i has trace MFU 0.40 + 0.01 (i mod 5),
 * except every 97th, a straggler at 0.20; two steps each; 30 module paths
 * and 25 op types per rank. */
static void many_rows(size_t n, struct stores *st)
{
	char name[64];
	size_t i, k;

	for (i = 0; i < n; i++) {
		double mfu = i % 97 == 13 ? 0.2 : 0.40 + 0.01 * (double)(i % 5), ineff = 1 - mfu - 0.2;
		int64_t r = (int64_t)i, win = 10000000 + (int64_t)(i % 7) * 100000;
		add(&st->r, (struct opmfu_cell[]){ I(r), S("ok"), N, R(354), S("Ascend910B"), R(mfu / 0.8),
						   R(mfu / 0.9), R(0.9), R(mfu), I(win) });
		for (k = 1; k <= 2; k++)
			add(&st->s, (struct opmfu_cell[]){ I(r), I((int64_t)k), I(0), I(win), I(win), I(win * 8 / 10),
							   I(win / 10), I(win / 20), I(0), I(win / 20), R(mfu * 3.54e12),
							   R(mfu * 3.54e12), R(0), R(354), R(mfu), R(0.05), R(0.05),
							   R(0.1), R(ineff) });
		for (k = 0; k < 30; k++) {
			snprintf(name, sizeof(name), "Model/Layer_%zu/%s", k / 3, k % 3 == 0 ? "Attention" : k % 3 == 1 ? "MLP" : "Norm");
			add(&st->m, (struct opmfu_cell[]){ I(r), S(name), I(2), I(300000), I(200000), I(40000000000),
							   R(0.5), R(0.4), I((int64_t)(30 - k) * 10000), I(3),
							   I((int64_t)(30 - k) * 10000) });
		}
		for (k = 0; k < 25; k++) {
			snprintf(name, sizeof(name), "aten::op_%zu", k);
			add(&st->o, (struct opmfu_cell[]){ I(r), S(name), I(4), I(200000), I(100000), I(20000000000),
							   R(0.55), I((int64_t)(25 - k) * 8000) });
		}
	}
}

static enum opmfu_status write_stores(const char *d, struct stores *st, struct opmfu_err *e)
{
	struct opmfu_table t[4] = { opmfu_cell_store_table(&st->r), opmfu_cell_store_table(&st->s),
				    opmfu_cell_store_table(&st->m), opmfu_cell_store_table(&st->o) };
	struct opmfu_summary_tables tabs = { &t[0], &t[1], &t[2], &t[3], NULL };
	struct opmfu_write_stats ws;
	memset(&ws, 0, sizeof(ws));
	return opmfu_summary_xlsx_write(d, &tabs, &ws, e);
}


/* ---- the workbook of three ranks, every cell ---- */

/*
 * Derivations (SPEC 14, docs/output-schema.md "The summary workbook"):
 *
 * Overview: 3 ranks, 1 failed (rank 2), none without an MFU. Trace MFU of
 * ranks 0 and 1: 0.375 and 0.25 (rank 2 has none): median (0.375 + 0.25) / 2
 * = 0.3125, lowest 0.25 (rank 1). Median step time per rank (its
 * step_ns_median): 10 ms and 12.5 ms: median 11.25 ms, longest 12.5 ms
 * (rank 1). The key numbers fill A3:C10; the first chart is at row 12.
 *
 * Charts: the waterfall (L:P of Ranks, the median step's five shares) and
 * the MFU chart (Q:S) are 960 x 400 pixels: 2 x and 400/288 x the default
 * 480 x 288 (fewer than 64 ranks: the minimum width; gap 40, every rank
 * labelled). 400 px = 20 rows of 20 px: A12 to row 32; the next chart two
 * rows after the last whole row: 11 + 20 + 2 = row index 33 (A34), then 55
 * (A56). 960 px across columns of 201 (A, 28 wide: 28 x 7 + 5), 89, 89 (B, C)
 * and 64: 379 + 9 x 64 = 955, so the right edge is in M. The lost-time
 * charts have 3 bars: 140 + 24 x 3 = 212 px high: 10 rows and 12 px (A56 to
 * row 66), the next at 55 + 10 + 2 = 67 (A68). A page break above each chart
 * but the first, at the empty row before it: after rows 32, 54 and 66.
 *
 * Ranks, one row per OpmfuRankSummary row: rank 0's median step is step 1
 * (windows 10, 12, 8 ms: sorted 8, 10, 12, the middle one is 10 ms), rank 1's
 * step 1 (12.5 and 13 ms: the shorter of the two middle ones); their shares
 * are those rows' (rank 0: trace 0.3, inefficiency 0.6 - 0.3, other 1.5/10,
 * comm 1/10, idle 1.5/10). Against the median 0.3125: rank 0 is 0.3125 up to
 * it and 0.0625 above, rank 1 0.25 up to it and 0.0625 short.
 *
 * Modules and Op types, summed by name over ranks 0 and 1 (ms = ns / 1e6),
 * most lost first. Model: lost 5 + 8 = 13 ms, own 0.5 + 1 = 1.5, 11.5 in
 * sub-modules, 6.5 per rank, worst rank 1 (8 ms); MFU (0.5 x 6 + 0.25 x 4) /
 * (6 + 4) = 0.4; FLOPs 3e11 + 1e11. Model/Head has no FLOPs and no MFU (blank).
 * aten::mm: MFU (0.5 x 6 + 0.25 x 2) / 8 = 0.4375, lost 3 + 1.5 = 4.5 ms,
 * worst rank 0 (3 ms). The op named "=1+1" stays text. A module's short name
 * (the lost-time chart's labels, column O) is its path's last two names: the
 * whole path here.
 *
 * Widths: a title needs its longer line when it wraps at the best space (or
 * its length), x 1.1 for bold, rounded up, + 3 for the filter button; a value
 * its characters as shown + 2. "MFU (time with FLOPs)": lines "MFU (time" /
 * "with FLOPs)", 11 x 1.1 -> 13, + 3 = 16; "Reason" 10, but "bad.db: not a
 * database" (22) + 2 = 24. Styles: 1 the header, 2 the title, then the
 * cells' formats: 3 text, 4 counts, 5 ms, 6 ratios, 7 TFLOPS, 8 FLOPs.
 */
static const char small_want[] =
	"sheet Overview\n"
	"dimension A1:C10\n"
	"col A width 28 (xml 28.7109375)\n"
	"col B:C width 12 (xml 12.7109375)\n"
	"page landscape fit 1x0\n"
	"break after row 32\n"
	"break after row 54\n"
	"break after row 66\n"
	"chart A12:M32 bar col percentStacked gap 40 overlap 100 legend b title \"Where the median step went, per rank\"\n"
	"    series name Ranks!$L$1 cat Ranks!$A$2:$A$4 val Ranks!$L$2:$L$4 fill 2E7D32 cached 3\n"
	"    series name Ranks!$M$1 cat Ranks!$A$2:$A$4 val Ranks!$M$2:$M$4 fill F9A825 cached 3\n"
	"    series name Ranks!$N$1 cat Ranks!$A$2:$A$4 val Ranks!$N$2:$N$4 fill 8E7CC3 cached 3\n"
	"    series name Ranks!$O$1 cat Ranks!$A$2:$A$4 val Ranks!$O$2:$O$4 fill 1F77B4 cached 3\n"
	"    series name Ranks!$P$1 cat Ranks!$A$2:$A$4 val Ranks!$P$2:$P$4 fill BDBDBD cached 3\n"
	"    axis cat b title \"Rank\"\n"
	"    axis val l\n"
	"chart A34:M54 bar col stacked gap 40 overlap 100 legend b title \"Trace MFU per rank against the median "
	"(31.25%)\"\n"
	"    series name Ranks!$Q$1 cat Ranks!$A$2:$A$4 val Ranks!$Q$2:$Q$4 fill 2E7D32 cached 3\n"
	"    series name Ranks!$R$1 cat Ranks!$A$2:$A$4 val Ranks!$R$2:$R$4 fill 81C784 cached 3\n"
	"    series name Ranks!$S$1 cat Ranks!$A$2:$A$4 val Ranks!$S$2:$S$4 fill E57373 cached 3\n"
	"    axis cat b title \"Rank\"\n"
	"    axis val l min 0 format \"0.0##%\"\n"
	"chart A56:M66 bar bar stacked gap 40 overlap 100 legend b title \"Lost time by module, ms (top 3 of 3)\"\n"
	"    series name Modules!$J$1 cat Modules!$O$2:$O$4 val Modules!$J$2:$J$4 fill C0504D cached 3\n"
	"    series name Modules!$K$1 cat Modules!$O$2:$O$4 val Modules!$K$2:$K$4 fill F2B8B6 cached 3\n"
	"    axis cat l reverse\n"
	"    axis val b format \"#,##0.0##\" crosses max\n"
	"chart A68:M78 bar bar clustered gap 40 no legend title \"Lost time by op type, ms (top 3 of 3)\"\n"
	"    series name 'Op types'!$H$1 cat 'Op types'!$A$2:$A$4 val 'Op types'!$H$2:$H$4 fill C0504D cached 3\n"
	"    axis cat l reverse\n"
	"    axis val b format \"#,##0.0##\" crosses max\n"
	"style 1: font \"Calibri\" 11 bold; fill solid FFAFEEEE; border thin; valign center; wrap; numfmt \"General\"\n"
	"style 2: font \"Calibri\" 14 bold; fill none; border none; numfmt \"General\"\n"
	"style 3: font \"Calibri\" 11; fill none; border thin; numfmt \"General\"\n"
	"style 4: font \"Calibri\" 11; fill none; border thin; numfmt \"0\"\n"
	"style 5: font \"Calibri\" 11; fill none; border thin; numfmt \"#,##0.000\"\n"
	"style 6: font \"Calibri\" 11; fill none; border thin; numfmt \"0.00%\"\n"
	"A1=opmfu summary (s) s2\n"
	"A3=Cluster (s) s1\nB3=Value (s) s1\nC3=Rank (s) s1\n"
	"A4=Ranks (s) s3\nB4=3 (n) s4\nC4= (blank) s4\n"
	"A5=Ranks failed (s) s3\nB5=1 (n) s4\nC5= (blank) s4\n"
	"A6=Ranks without an MFU (s) s3\nB6=0 (n) s4\nC6= (blank) s4\n"
	"A7=Median trace MFU (s) s3\nB7=0.3125 (n) s6\nC7= (blank) s4\n"
	"A8=Lowest trace MFU (s) s3\nB8=0.25 (n) s6\nC8=1 (n) s4\n"
	"A9=Median step time (ms) (s) s3\nB9=11.25 (n) s5\nC9= (blank) s4\n"
	"A10=Longest median step (ms) (s) s3\nB10=12.5 (n) s5\nC10=1 (n) s4\n"
	"sheet Ranks\n"
	"dimension A1:T4\n"
	"freeze A2\n"
	"autofilter A1:T4\n"
	"col A width 8 (xml 8.7109375)\n"
	"col B width 10 (xml 10.7109375)\n"
	"col C width 12 (xml 12.7109375)\n"
	"col D width 13 (xml 13.7109375)\n"
	"col E width 9 (xml 9.7109375)\n"
	"col F width 16 (xml 16.7109375)\n"
	"col G width 17 (xml 17.7109375)\n"
	"col H width 12 (xml 12.7109375)\n"
	"col I width 9 (xml 9.7109375)\n"
	"col J width 13 (xml 13.7109375)\n"
	"col K width 13 (xml 13.7109375)\n"
	"col L width 8 (xml 8.7109375)\n"
	"col M width 17 (xml 17.7109375)\n"
	"col N width 11 (xml 11.7109375)\n"
	"col O width 11 (xml 11.7109375)\n"
	"col P width 8 (xml 8.7109375)\n"
	"col Q width 10 (xml 10.7109375)\n"
	"col R width 10 (xml 10.7109375)\n"
	"col S width 12 (xml 12.7109375)\n"
	"col T width 24 (xml 24.7109375)\n"
	"row 1 height 30\n"
	"page landscape fit 1x0\n"
	"print titles $1:$1\n"
	"style 1: font \"Calibri\" 11 bold; fill solid FFAFEEEE; border thin; valign center; wrap; numfmt \"General\"\n"
	"style 3: font \"Calibri\" 11; fill none; border thin; numfmt \"General\"\n"
	"style 4: font \"Calibri\" 11; fill none; border thin; numfmt \"0\"\n"
	"style 5: font \"Calibri\" 11; fill none; border thin; numfmt \"#,##0.000\"\n"
	"style 6: font \"Calibri\" 11; fill none; border thin; numfmt \"0.00%\"\n"
	"style 7: font \"Calibri\" 11; fill none; border thin; numfmt \"0.00\"\n"
	"A1=Rank (s) s1\nB1=Status (s) s1\nC1=Chip (s) s1\nD1=Peak FP16 (TFLOPS) (s) s1\nE1=Trace MFU (s) s1\n"
	"F1=MFU (time with FLOPs) (s) s1\nG1=MFU (compute time) (s) s1\nH1=FLOPs coverage (s) s1\nI1=Steps (s) s1\n"
	"J1=Median step (ms) (s) s1\nK1=Waterfall step (s) s1\nL1=Step MFU (s) s1\nM1=Inefficiency (s) s1\n"
	"N1=Other compute (s) s1\nO1=Exposed comm (s) s1\nP1=Idle (s) s1\nQ1=Up to median (s) s1\n"
	"R1=Above median (s) s1\nS1=Short of median (s) s1\nT1=Reason (s) s1\n"
	"A2=0 (n) s4\nB2=ok (s) s3\nC2=Ascend910B (s) s3\nD2=100 (n) s7\nE2=0.375 (n) s6\nF2=0.5 (n) s6\n"
	"G2=0.4 (n) s6\nH2=0.8 (n) s6\nI2=3 (n) s4\nJ2=10 (n) s5\nK2=1 (n) s4\nL2=0.3 (n) s6\nM2=0.3 (n) s6\n"
	"N2=0.15 (n) s6\nO2=0.1 (n) s6\nP2=0.15 (n) s6\nQ2=0.3125 (n) s6\nR2=0.0625 (n) s6\nS2=0 (n) s6\n"
	"T2= (blank) s3\n"
	"A3=1 (n) s4\nB3=ok (s) s3\nC3=Ascend910B (s) s3\nD3=100 (n) s7\nE3=0.25 (n) s6\nF3=0.45 (n) s6\n"
	"G3=0.36 (n) s6\nH3=0.8 (n) s6\nI3=2 (n) s4\nJ3=12.5 (n) s5\nK3=1 (n) s4\nL3=0.25 (n) s6\nM3=0.35 (n) s6\n"
	"N3=0.2 (n) s6\nO3=0.1 (n) s6\nP3=0.1 (n) s6\nQ3=0.25 (n) s6\nR3=0 (n) s6\nS3=0.0625 (n) s6\n"
	"T3= (blank) s3\n"
	"A4=2 (n) s4\nB4=failed (s) s3\nC4= (blank) s3\nD4= (blank) s7\nE4= (blank) s6\nF4= (blank) s6\n"
	"G4= (blank) s6\nH4= (blank) s6\nI4=0 (n) s4\nJ4= (blank) s5\nK4= (blank) s4\nL4= (blank) s6\n"
	"M4= (blank) s6\nN4= (blank) s6\nO4= (blank) s6\nP4= (blank) s6\nQ4= (blank) s6\nR4= (blank) s6\n"
	"S4= (blank) s6\nT4=bad.db: not a database (s) s3\n"
	"sheet Steps\n"
	"dimension A1:O6\n"
	"freeze A2\n"
	"autofilter A1:O6\n"
	"col A width 8 (xml 8.7109375)\n"
	"col B width 8 (xml 8.7109375)\n"
	"col C width 13 (xml 13.7109375)\n"
	"col D width 17 (xml 17.7109375)\n"
	"col E width 17 (xml 17.7109375)\n"
	"col F width 13 (xml 13.7109375)\n"
	"col G width 14 (xml 14.7109375)\n"
	"col H width 8 (xml 8.7109375)\n"
	"col I width 10 (xml 10.7109375)\n"
	"col J width 12 (xml 12.7109375)\n"
	"col K width 9 (xml 9.7109375)\n"
	"col L width 17 (xml 17.7109375)\n"
	"col M width 11 (xml 11.7109375)\n"
	"col N width 11 (xml 11.7109375)\n"
	"col O width 8 (xml 8.7109375)\n"
	"row 1 height 30\n"
	"page landscape fit 1x0\n"
	"print titles $1:$1\n"
	"style 1: font \"Calibri\" 11 bold; fill solid FFAFEEEE; border thin; valign center; wrap; numfmt \"General\"\n"
	"style 4: font \"Calibri\" 11; fill none; border thin; numfmt \"0\"\n"
	"style 5: font \"Calibri\" 11; fill none; border thin; numfmt \"#,##0.000\"\n"
	"style 6: font \"Calibri\" 11; fill none; border thin; numfmt \"0.00%\"\n"
	"style 7: font \"Calibri\" 11; fill none; border thin; numfmt \"0.00\"\n"
	"style 8: font \"Calibri\" 11; fill none; border thin; numfmt \"0.00E+00\"\n"
	"A1=Rank (s) s1\nB1=Step (s) s1\nC1=Step time (ms) (s) s1\nD1=FLOP compute (ms) (s) s1\n"
	"E1=Other compute (ms) (s) s1\nF1=Exposed comm (ms) (s) s1\nG1=Overlapped comm (ms) (s) s1\n"
	"H1=Idle (ms) (s) s1\nI1=FLOPs (s) s1\nJ1=Peak (TFLOPS) (s) s1\nK1=Trace MFU (s) s1\n"
	"L1=Inefficiency (s) s1\nM1=Other compute (s) s1\nN1=Exposed comm (s) s1\nO1=Idle (s) s1\n"
	"A2=0 (n) s4\nB2=1 (n) s4\nC2=10 (n) s5\nD2=6 (n) s5\nE2=1.5 (n) s5\nF2=1 (n) s5\nG2=0.5 (n) s5\n"
	"H2=1.5 (n) s5\nI2=300000000000 (n) s8\nJ2=100 (n) s7\nK2=0.3 (n) s6\nL2=0.3 (n) s6\nM2=0.15 (n) s6\n"
	"N2=0.1 (n) s6\nO2=0.15 (n) s6\n"
	/* 1/6 to 16 significant digits */
	"A3=0 (n) s4\nB3=2 (n) s4\nC3=12 (n) s5\nD3=6 (n) s5\nE3=2 (n) s5\nF3=2 (n) s5\nG3=0 (n) s5\n"
	"H3=2 (n) s5\nI3=300000000000 (n) s8\nJ3=100 (n) s7\nK3=0.25 (n) s6\nL3=0.25 (n) s6\n"
	"M3=0.1666666666666667 (n) s6\nN3=0.1666666666666667 (n) s6\nO3=0.1666666666666667 (n) s6\n"
	"A4=0 (n) s4\nB4=3 (n) s4\nC4=8 (n) s5\nD4=6 (n) s5\nE4=1 (n) s5\nF4=0 (n) s5\nG4=0 (n) s5\n"
	"H4=1 (n) s5\nI4=300000000000 (n) s8\nJ4=100 (n) s7\nK4=0.375 (n) s6\nL4=0.375 (n) s6\nM4=0.125 (n) s6\n"
	"N4=0 (n) s6\nO4=0.125 (n) s6\n"
	"A5=1 (n) s4\nB5=1 (n) s4\nC5=12.5 (n) s5\nD5=7.5 (n) s5\nE5=2.5 (n) s5\nF5=1.25 (n) s5\nG5=0 (n) s5\n"
	"H5=1.25 (n) s5\nI5=312500000000 (n) s8\nJ5=100 (n) s7\nK5=0.25 (n) s6\nL5=0.35 (n) s6\nM5=0.2 (n) s6\n"
	"N5=0.1 (n) s6\nO5=0.1 (n) s6\n"
	"A6=1 (n) s4\nB6=2 (n) s4\nC6=13 (n) s5\nD6=6.5 (n) s5\nE6=3.25 (n) s5\nF6=1.3 (n) s5\nG6=0 (n) s5\n"
	"H6=1.95 (n) s5\nI6=260000000000 (n) s8\nJ6=100 (n) s7\nK6=0.2 (n) s6\nL6=0.3 (n) s6\nM6=0.25 (n) s6\n"
	"N6=0.1 (n) s6\nO6=0.15 (n) s6\n"
	"sheet Modules\n"
	"dimension A1:O4\n"
	"freeze A2\n"
	"autofilter A1:O4\n"
	"col A width 13 (xml 13.7109375)\n"
	"col B width 9 (xml 9.7109375)\n"
	"col C width 9 (xml 9.7109375)\n"
	"col D width 9 (xml 9.7109375)\n"
	"col E width 13 (xml 13.7109375)\n"
	"col F width 14 (xml 14.7109375)\n"
	"col G width 10 (xml 10.7109375)\n"
	"col H width 8 (xml 8.7109375)\n"
	"col I width 8 (xml 8.7109375)\n"
	"col J width 12 (xml 12.7109375)\n"
	"col K width 19 (xml 19.7109375)\n"
	"col L width 13 (xml 13.7109375)\n"
	"col M width 9 (xml 9.7109375)\n"
	"col N width 14 (xml 14.7109375)\n"
	"col O width 13 (xml 13.7109375)\n"
	"row 1 height 30\n"
	"page landscape fit 1x0\n"
	"print titles $1:$1\n"
	"style 1: font \"Calibri\" 11 bold; fill solid FFAFEEEE; border thin; valign center; wrap; numfmt \"General\"\n"
	"style 3: font \"Calibri\" 11; fill none; border thin; numfmt \"General\"\n"
	"style 4: font \"Calibri\" 11; fill none; border thin; numfmt \"0\"\n"
	"style 5: font \"Calibri\" 11; fill none; border thin; numfmt \"#,##0.000\"\n"
	"style 6: font \"Calibri\" 11; fill none; border thin; numfmt \"0.00%\"\n"
	"style 8: font \"Calibri\" 11; fill none; border thin; numfmt \"0.00E+00\"\n"
	"A1=Module (s) s1\nB1=Depth (s) s1\nC1=Ranks (s) s1\nD1=Calls (s) s1\nE1=Kernel time (ms) (s) s1\n"
	"F1=Time with FLOPs (ms) (s) s1\nG1=FLOPs (s) s1\nH1=MFU (s) s1\nI1=Lost (ms) (s) s1\n"
	"J1=Own lost (ms) (s) s1\nK1=In sub-modules (ms) (s) s1\nL1=Lost per rank (ms) (s) s1\n"
	"M1=Worst rank (s) s1\nN1=Worst rank lost (ms) (s) s1\nO1=Short name (s) s1\n"
	"A2=Model (s) s3\nB2=1 (n) s4\nC2=2 (n) s4\nD2=2 (n) s4\nE2=18 (n) s5\nF2=10 (n) s5\n"
	"G2=400000000000 (n) s8\nH2=0.4 (n) s6\nI2=13 (n) s5\nJ2=1.5 (n) s5\nK2=11.5 (n) s5\nL2=6.5 (n) s5\n"
	"M2=1 (n) s4\nN2=8 (n) s5\nO2=Model (s) s3\n"
	"A3=Model/Layer (s) s3\nB3=2 (n) s4\nC3=1 (n) s4\nD3=2 (n) s4\nE3=7 (n) s5\nF3=6 (n) s5\n"
	"G3=300000000000 (n) s8\nH3=0.5 (n) s6\nI3=4.5 (n) s5\nJ3=4.5 (n) s5\nK3=0 (n) s5\nL3=4.5 (n) s5\n"
	"M3=0 (n) s4\nN3=4.5 (n) s5\nO3=Model/Layer (s) s3\n"
	"A4=Model/Head (s) s3\nB4=2 (n) s4\nC4=1 (n) s4\nD4=1 (n) s4\nE4=2 (n) s5\nF4=0 (n) s5\n"
	"G4= (blank) s8\nH4= (blank) s6\nI4=2 (n) s5\nJ4=2 (n) s5\nK4=0 (n) s5\nL4=2 (n) s5\nM4=1 (n) s4\n"
	"N4=2 (n) s5\nO4=Model/Head (s) s3\n"
	"sheet Op types\n"
	"dimension A1:K4\n"
	"freeze A2\n"
	"autofilter A1:K4\n"
	"col A width 12 (xml 12.7109375)\n"
	"col B width 9 (xml 9.7109375)\n"
	"col C width 7 (xml 7.7109375)\n"
	"col D width 13 (xml 13.7109375)\n"
	"col E width 14 (xml 14.7109375)\n"
	"col F width 10 (xml 10.7109375)\n"
	"col G width 8 (xml 8.7109375)\n"
	"col H width 8 (xml 8.7109375)\n"
	"col I width 13 (xml 13.7109375)\n"
	"col J width 9 (xml 9.7109375)\n"
	"col K width 14 (xml 14.7109375)\n"
	"row 1 height 30\n"
	"page landscape fit 1x0\n"
	"print titles $1:$1\n"
	"style 1: font \"Calibri\" 11 bold; fill solid FFAFEEEE; border thin; valign center; wrap; numfmt \"General\"\n"
	"style 3: font \"Calibri\" 11; fill none; border thin; numfmt \"General\"\n"
	"style 4: font \"Calibri\" 11; fill none; border thin; numfmt \"0\"\n"
	"style 5: font \"Calibri\" 11; fill none; border thin; numfmt \"#,##0.000\"\n"
	"style 6: font \"Calibri\" 11; fill none; border thin; numfmt \"0.00%\"\n"
	"style 8: font \"Calibri\" 11; fill none; border thin; numfmt \"0.00E+00\"\n"
	"A1=Op (s) s1\nB1=Ranks (s) s1\nC1=Ops (s) s1\nD1=Kernel time (ms) (s) s1\n"
	"E1=Time with FLOPs (ms) (s) s1\nF1=FLOPs (s) s1\nG1=MFU (s) s1\nH1=Lost (ms) (s) s1\n"
	"I1=Lost per rank (ms) (s) s1\nJ1=Worst rank (s) s1\nK1=Worst rank lost (ms) (s) s1\n"
	"A2=aten::mm (s) s3\nB2=2 (n) s4\nC2=14 (n) s4\nD2=8 (n) s5\nE2=8 (n) s5\nF2=350000000000 (n) s8\n"
	"G2=0.4375 (n) s6\nH2=4.5 (n) s5\nI2=2.25 (n) s5\nJ2=0 (n) s4\nK2=3 (n) s5\n"
	"A3=aten::gelu (s) s3\nB3=1 (n) s4\nC3=2 (n) s4\nD3=1 (n) s5\nE3=0 (n) s5\nF3= (blank) s8\n"
	"G3= (blank) s6\nH3=1 (n) s5\nI3=1 (n) s5\nJ3=0 (n) s4\nK3=1 (n) s5\n"
	"A4==1+1 (s) s3\nB4=1 (n) s4\nC4=1 (n) s4\nD4=0.5 (n) s5\nE4=0 (n) s5\nF4= (blank) s8\n"
	"G4= (blank) s6\nH4=0.5 (n) s5\nI4=0.5 (n) s5\nJ4=1 (n) s4\nK4=0.5 (n) s5\n";

static void three_ranks(struct stores *st)
{
	int r;
	stores_init(st);
	for (r = 0; r < 3; r++)
		rank_rows(r, &st->r, &st->s, &st->m, &st->o);
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
	struct opmfu_table t[4];
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
	t[2] = opmfu_cell_store_table(&st.m);
	t[3] = opmfu_cell_store_table(&st.o);
	opmfu_summary_init(&s);
	CHECK_INT(s.stream_cells, 2000000);
	s.stream_cells = 0;
	for (k = 0; k < 4; k++)
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

static const struct opmfu_table_def *const run_defs[] = { &rank_def, &step_def, &module_def, &op_def };

/* Puts rank r's rows of the three-rank data into w. */
static void put_rank(struct opmfu_writer *w, int r)
{
	struct stores st;
	struct opmfu_table t[4];
	struct opmfu_err e = OPMFU_ERR_INIT;
	size_t k;

	stores_init(&st);
	rank_rows(r, &st.r, &st.s, &st.m, &st.o);
	t[0] = opmfu_cell_store_table(&st.r);
	t[1] = opmfu_cell_store_table(&st.s);
	t[2] = opmfu_cell_store_table(&st.m);
	t[3] = opmfu_cell_store_table(&st.o);
	for (k = 0; k < 4; k++)
		CHECK_INT(opmfu_writer_put(w, r, &t[k], &e), OPMFU_OK);
	/* the writer keeps copies: the rank's own rows go now, as a rank's analysis does */
	stores_release(&st);
}

/*
 * Rank 0 kept, rank 1 dropped (its analysis failed after its tables were
 * put), rank 2 kept: the workbook, written at commit, holds ranks 0 and 2
 * only, and module paths and op types of rank 0 only. Before the commit, and
 * after a run closed without one, the earlier workbook stays.
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
	CHECK_INT(wt->open(&w, dir, run_defs, 4, &e), OPMFU_OK);
	if (!w)
		return;
	put_rank(w, 0);
	CHECK_INT(opmfu_writer_keep_rank(w, 0, &ks, &e), OPMFU_OK);
	CHECK_INT(ks.files, 0); /* no table of these has a workbook of its own */
	put_rank(w, 1);
	CHECK_INT(opmfu_writer_drop_rank(w, 1, &e), OPMFU_OK);
	put_rank(w, 2);
	CHECK_INT(opmfu_writer_keep_rank(w, 2, &ks, &e), OPMFU_OK);
	CHECK(file_is(path, "earlier"));
	CHECK_INT(opmfu_writer_commit(w, &e), OPMFU_OK);
	opmfu_writer_close(w);
	CHECK_INT(tmp_files(dir), 0);
	got = xlsx_dump(path);
	CHECK(got != NULL);
	/* Overview: 2 ranks, 1 failed; the one trace MFU 0.375 is the median and the lowest (rank 0) */
	CHECK(xlsx_dump_has(got, "B4=2 (n) s4"));
	CHECK(xlsx_dump_has(got, "B5=1 (n) s4"));
	CHECK(xlsx_dump_has(got, "B7=0.375 (n) s6"));
	CHECK(xlsx_dump_has(got, "C8=0 (n) s4"));
	CHECK(xlsx_dump_has(got, "dimension A1:T3"));
	CHECK(xlsx_dump_has(got, "A3=2 (n) s4"));
	/* rank 0's three steps */
	CHECK(xlsx_dump_has(got, "dimension A1:O4"));
	/* Model: rank 0 alone: 1 rank, lost 5 ms, MFU 0.5; no Model/Head (rank 1's) */
	CHECK(xlsx_dump_has(got, "A2=Model (s) s3"));
	CHECK(xlsx_dump_has(got, "C2=1 (n) s4"));
	CHECK(xlsx_dump_has(got, "I2=5 (n) s5"));
	CHECK(got && !strstr(got, "Model/Head") && !strstr(got, "=1+1"));
	CHECK(xlsx_dump_has(got, "H2=0.5 (n) s6"));
	free(got);

	/* a run that never commits (it failed) leaves the workbook as it was */
	put_file(path, "earlier");
	CHECK_INT(wt->open(&w, dir, run_defs, 4, &e), OPMFU_OK);
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

/* Only the rank summary: no Steps, Modules or Op types sheet, no waterfall
 * and no lost-time chart; the MFU chart comes first. A rank summary without
 * trace_mfu gives no MFU chart at all. */
static void test_ranks_only(void)
{
	static const struct opmfu_column old_cols[] = { { "rank_id", OPMFU_COL_INT, "", 0, 0 },
							{ "status", OPMFU_COL_TEXT, "", 0, 0 } };
	static const struct opmfu_table_def old_def = { "OpmfuRankSummary", old_cols, 2, NULL };
	struct stores st;
	struct opmfu_cell_store old;
	struct opmfu_table t;
	struct opmfu_summary_tables tabs = { NULL, NULL, NULL, NULL, NULL };
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
	CHECK(got && !strstr(got, "percentStacked") && !strstr(got, "break after"));
	CHECK(xlsx_dump_has(got, "chart A12:M32 bar col stacked gap 40 overlap 100 legend b title \"Trace MFU per rank "
				 "against the median (31.25%)\""));
	/* no steps: the step columns are empty, rank 0's median step time is step_ns_median's */
	CHECK(xlsx_dump_has(got, "I2= (blank) s4"));
	CHECK(xlsx_dump_has(got, "J2=10 (n) s5"));
	CHECK(xlsx_dump_has(got, "K2= (blank) s4"));
	free(got);
	stores_release(&st);

	opmfu_cell_store_init(&old, &old_def);
	add(&old, (struct opmfu_cell[]){ I(5), S("ok") });
	t = opmfu_cell_store_table(&old);
	CHECK_INT(opmfu_summary_xlsx_write(dir, &tabs, &ws, &e), OPMFU_OK);
	got = xlsx_dump(path);
	CHECK(got && !strstr(got, "chart "));
	CHECK(xlsx_dump_has(got, "dimension A1:T2"));
	CHECK(xlsx_dump_has(got, "E2= (blank) s6"));
	CHECK(xlsx_dump_has(got, "B7= (blank) s6"));
	free(got);
	opmfu_cell_store_release(&old);
	unlink(path);
}

/* ---- a thousand ranks ---- */

/*
 * Every rank is charted: the per-rank charts widen to 160 + 16 px a rank,
 * at least 960 and at most 1920 px (4 x 480): 48 ranks get 960 px (A..M),
 * 1,000 get 1920 px: 379 px in A:C, then 24 columns of 64 px, so the right
 * edge is in AB. Columns touch (gap 0) above 64 ranks; every k-th rank is
 * labelled, k = ceil(n / 40): 2 for 48, 25 for 1,000. The lost-time charts
 * show the 20 paths and op types that lost most: 140 + 24 x 20 = 620 px.
 */
static void test_many(void)
{
	static const size_t counts[] = { 48, 1000 };
	struct opmfu_err e = OPMFU_ERR_INIT;
	struct stores st;
	char d[4200], path[4300], *got;
	size_t k;

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
		snprintf(line, sizeof(line),
			 "chart A12:%s32 bar col percentStacked gap %s overlap 100 legend b title \"Where the median step "
			 "went, per rank\"",
			 n == 48 ? "M" : "AB", n == 48 ? "40" : "0");
		CHECK(xlsx_dump_has(got, line));
		snprintf(line, sizeof(line), "    axis cat b skip %s title \"Rank\"", n == 48 ? "2" : "25");
		CHECK(xlsx_dump_has(got, line));
		snprintf(line, sizeof(line),
			 "    series name Ranks!$Q$1 cat Ranks!$A$2:$A$%zu val Ranks!$Q$2:$Q$%zu fill 2E7D32 cached %zu",
			 n + 1, n + 1, n);
		CHECK(xlsx_dump_has(got, line));
		CHECK(xlsx_dump_has(got, "chart A56:M87 bar bar stacked gap 40 overlap 100 legend b title \"Lost time "
					 "by module, ms (top 20 of 30)\""));
		CHECK(xlsx_dump_has(got, "    series name Modules!$J$1 cat Modules!$O$2:$O$21 val Modules!$J$2:$J$21 "
					 "fill C0504D cached 20"));
		/* a path's last two names label its bar */
		CHECK(xlsx_dump_has(got, "O2=Layer_0/Attention (s) s3"));
		/* the straggler: rank 13 at 0.2 */
		CHECK(xlsx_dump_has(got, "B8=0.2 (n) s6"));
		CHECK(xlsx_dump_has(got, "C8=13 (n) s4"));
		free(got);
		if (!keep) {
			unlink(path);
			rmdir(d);
		}
	}
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
	test_many();
	test_unwritable();
	test_nomem(); /* its last run leaves the three ranks' workbook */
	return xlsx_test_end(keep, dir, OPMFU_SUMMARY_XLSX);
}
