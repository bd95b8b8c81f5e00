/*
 * t_summary_diff.c - the summary workbook's Diff sheet (write/summary_diff.c,
 * `opmfu diff --export xlsx`) from a hand-built OpmfuDiff table, read back
 * through tests/tools/xlsx_cells.py: every cell, number format, width, the
 * page setup, the two charts' data blocks and series ranges; the same
 * streamed; a Diff beside a run's tables (its sheets unchanged, the Diff
 * first); sixty changes (the top 20 by size); a Diff without step shares or
 * changes (no charts); through the xlsx writer with a Diff dropped; every
 * allocation failing in turn, an earlier workbook left as it was.
 * argv: python3, xlsx_cells.py, a scratch directory[, "keep": leave the
 * workbooks there, to look at them in LibreOffice].
 */
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
#include "xlsx_dump.h"

static char dir[4096];
static int keep;

/* OpmfuDiff's columns (SPEC 15; the names are what count) */
static const struct opmfu_column diff_cols[] = {
	{ "kind", OPMFU_COL_TEXT, "", 0, 0 },	       { "name", OPMFU_COL_TEXT, "", 0, 0 },
	{ "base_kernel_ns", OPMFU_COL_INT, "", 0, 0 }, { "new_kernel_ns", OPMFU_COL_INT, "", 0, 0 },
	{ "base_flops", OPMFU_COL_REAL, "", 0, 0 },    { "new_flops", OPMFU_COL_REAL, "", 0, 0 },
	{ "base_mfu", OPMFU_COL_REAL, "", 0, 0 },      { "new_mfu", OPMFU_COL_REAL, "", 0, 0 },
	{ "base_lost_ns", OPMFU_COL_INT, "", 0, 0 },   { "new_lost_ns", OPMFU_COL_INT, "", 0, 0 },
	{ "delta_lost_ns", OPMFU_COL_INT, "", 0, 0 },
};
static const struct opmfu_table_def diff_def = { "OpmfuDiff", diff_cols, 11, NULL, 0, NULL };

/* a run's rank summary, run row and hotspots, enough for their sheets */
static const struct opmfu_column rank_cols[] = { { "rank_id", OPMFU_COL_INT, "", 0, 0 },
						 { "status", OPMFU_COL_TEXT, "", 0, 0 },
						 { "trace_mfu", OPMFU_COL_REAL, "", 0, 0 } };
static const struct opmfu_table_def rank_def = { "OpmfuRankSummary", rank_cols, 3, NULL, 0, NULL };
static const struct opmfu_column run_cols[] = { { "median_rank", OPMFU_COL_INT, "", 0, 0 },
						{ "trace_mfu", OPMFU_COL_REAL, "", 0, 0 } };
static const struct opmfu_table_def run_def = { "OpmfuRun", run_cols, 2, NULL, 0, NULL };
static const struct opmfu_column hot_cols[] = { { "kind", OPMFU_COL_TEXT, "", 0, 0 },
						{ "name", OPMFU_COL_TEXT, "", 0, 0 },
						{ "kernel_ns", OPMFU_COL_INT, "", 0, 0 },
						{ "recoverable_ns", OPMFU_COL_INT, "", 0, 0 } };
static const struct opmfu_table_def hot_def = { "OpmfuHotspots", hot_cols, 4, NULL, 0, NULL };

#define I(v) opmfu_cell_int(v)
#define R(v) opmfu_cell_real(v)
#define S(v) opmfu_cell_str(v)
#define N opmfu_cell_null()

static void add(struct opmfu_cell_store *cs, const struct opmfu_cell *row)
{
	struct opmfu_err e = OPMFU_ERR_INIT;
	CHECK_INT(opmfu_cell_store_add(cs, row, &e), OPMFU_OK);
}

static char *in_dir(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
	return buf;
}

/*
 * A diff of two one-step runs (times in ns), as lib/diff_rows.c orders it.
 * Step shares: BASE's 10 ms step is 4 ms of useful math (trace MFU 0.4), 8
 * ms of FLOP compute (inefficiency (8 - 4) / 10 = 0.4), 1 ms other compute
 * (0.1), 0.5 ms exposed comm and 0.5 ms idle (0.05 each): 1 in all, lost 10
 * - 4 = 6 ms = 4 + 1 + 0.5 + 0.5. NEW's 12 ms step: useful 3 ms (0.25), FLOP
 * compute 7 ms (4 / 12 = 1/3), other 2 ms (1/6), comm 2.5 ms (2.5 / 12),
 * idle 0.5 ms (0.5 / 12): lost 9 ms. Changes 3 = 0 + 1 + 2 + 0.
 * Modules (largest increase first): Model/Layer_0/MLP 2 -> 4 ms, lost 1 ->
 * 3 (+2); Model 0 -> 1 ms without FLOPs (+1); Model/Layer_0/Attention 6 ->
 * 4 ms, MFU 0.5 -> 0.75, lost 3 -> 1 (-2). Op types: aten::gelu only in NEW
 * (+1.5), aten::mm unchanged, "=1+1" only in BASE (-0.5). A model row
 * (no lost time) and a rank on NEW only.
 */
static void diff_rows(struct opmfu_cell_store *cs)
{
	add(cs, (struct opmfu_cell[]){ S("step_share"), S("trace_mfu"), I(10000000), I(12000000), R(4e12), R(4.8e12),
				       R(0.4), R(0.25), I(6000000), I(9000000), I(3000000) });
	add(cs, (struct opmfu_cell[]){ S("step_share"), S("inefficiency"), I(8000000), I(7000000), R(4e12), R(4.8e12),
				       R(0.4), R(1.0 / 3), I(4000000), I(4000000), I(0) });
	add(cs, (struct opmfu_cell[]){ S("step_share"), S("other_compute"), I(1000000), I(2000000), N, N, R(0.1),
				       R(1.0 / 6), I(1000000), I(2000000), I(1000000) });
	add(cs, (struct opmfu_cell[]){ S("step_share"), S("comm_exposed"), I(500000), I(2500000), N, N, R(0.05),
				       R(2.5 / 12), I(500000), I(2500000), I(2000000) });
	add(cs, (struct opmfu_cell[]){ S("step_share"), S("idle"), I(500000), I(500000), N, N, R(0.05), R(0.5 / 12),
				       I(500000), I(500000), I(0) });
	add(cs, (struct opmfu_cell[]){ S("module"), S("Model/Layer_0/MLP"), I(2000000), I(4000000), R(1e12), R(1e12),
				       R(0.5), R(0.25), I(1000000), I(3000000), I(2000000) });
	add(cs, (struct opmfu_cell[]){ S("module"), S("Model"), I(0), I(1000000), R(0), R(0), N, N, I(0), I(1000000),
				       I(1000000) });
	add(cs, (struct opmfu_cell[]){ S("module"), S("Model/Layer_0/Attention"), I(6000000), I(4000000), R(3e12),
				       R(3e12), R(0.5), R(0.75), I(3000000), I(1000000), I(-2000000) });
	add(cs, (struct opmfu_cell[]){ S("op_type"), S("aten::gelu"), N, I(1500000), N, R(0), N, N, N, I(1500000),
				       I(1500000) });
	add(cs, (struct opmfu_cell[]){ S("op_type"), S("aten::mm"), I(8000000), I(8000000), R(4e12), R(4e12), R(0.5),
				       R(0.5), I(4000000), I(4000000), I(0) });
	add(cs, (struct opmfu_cell[]){ S("op_type"), S("=1+1"), I(500000), N, R(0), N, N, N, I(500000), N,
				       I(-500000) });
	add(cs, (struct opmfu_cell[]){ S("model"), S("kempnerforge"), I(10000000), I(12000000), R(2e12), R(2e12),
				       R(0.2), R(0.15), N, N, N });
	add(cs, (struct opmfu_cell[]){ S("rank"), S("3"), N, I(9500000), N, R(4e12), N, R(0.5), N, N, N });
}

/*
 * Derivations (docs/output-schema.md, "The Diff sheet"):
 *
 * Cells: times as ms (ns / 1e6), FLOPs as they are, MFU and shares rounded
 * to 12 decimals (1/3 -> 0.333333333333, 1/6 -> 0.166666666667, 2.5/12 =
 * 0.208333... -> 0.208333333333, 0.5/12 = 0.041666... -> 0.041666666667),
 * the change in ms with its sign shown (style 9). NULL is a blank cell of
 * the column's style. No Overview: there is no run's table.
 *
 * Widths: a title needs its longer line at its best space x 1.1, rounded
 * up, + 3; a value its characters as shown + 2. Kind: "step_share" 10 + 2 =
 * 12. Name: "Model/Layer_0/Attention" 23 + 2 = 25. "BASE time (ms)": lines
 * "BASE time" / "(ms)" or "BASE" / "time (ms)": 9 -> 10 + 3 = 13 (values
 * "10.000" 6 + 2 = 8). "NEW time (ms)": "NEW" / "time (ms)" 9, "NEW time" /
 * "(ms)" 8: 8 x 1.1 -> 9 + 3 = 12. "BASE FLOPs": 5 -> 6 + 3 = 9, but
 * "4.00E+12" 8 + 2 = 10; NEW FLOPs 10 too. "BASE MFU or share": "BASE MFU"
 * / "or share" 8 -> 12 ("33.33%" 8); "NEW MFU or share" 12. "BASE lost (ms)"
 * 13, "NEW lost (ms)" 12. "Change in lost (ms)": "Change in" / "lost (ms)" 9
 * -> 13 ("+3.000" 6 + 2 = 8).
 *
 * Below the 13 rows (sheet rows 2-14): row 15 empty, where the next printed
 * page starts (break after row 14); the step chart at A16, 960 x 240 px: 12
 * rows of 20 px, to row 28; 960 px across columns of 7 x width + 5 px (A 89,
 * B 180, C 96, D 89, E 75, F 75, G 89, H 89, I 96, J 89: 967 at the end of
 * J), so it ends in J. Its data after row 28: the title in A29, the header
 * in row 30 (30 high: titles may wrap), a row per step_share row in the
 * waterfall's names and colours (A31:D35). A series per part: its values
 * BASE and NEW (C:D of its row), categories the block's header C30:D30, its
 * name the part (column B). Row 36 empty (break after row 35); the changes
 * chart at A37, 140 + 24 x 5 = 260 px high: 13 rows, to row 50; its data:
 * title A51, header row 52, then the changed module and op_type rows by
 * size, ties in the table's order: Layer_0/MLP +2 (its path's last two
 * names), Layer_0/Attention -2, aten::gelu +1.5, Model +1, =1+1 -0.5
 * (A53:D57, an increase in C, a decrease in D); aten::mm did not change.
 */
static const char diff_want[] =
	"sheet Diff\n"
	"dimension A1:K57\n"
	"freeze A2\n"
	"autofilter A1:K14\n"
	"col A width 12 (xml 12.7109375)\n"
	"col B width 25 (xml 25.7109375)\n"
	"col C width 13 (xml 13.7109375)\n"
	"col D width 12 (xml 12.7109375)\n"
	"col E width 10 (xml 10.7109375)\n"
	"col F width 10 (xml 10.7109375)\n"
	"col G width 12 (xml 12.7109375)\n"
	"col H width 12 (xml 12.7109375)\n"
	"col I width 13 (xml 13.7109375)\n"
	"col J width 12 (xml 12.7109375)\n"
	"col K width 13 (xml 13.7109375)\n"
	"row 1 height 30\n"
	"row 30 height 30\n"
	"row 52 height 30\n"
	"page landscape fit 1x0\n"
	"print titles $1:$1\n"
	"break after row 14\n"
	"break after row 35\n"
	"chart A16:J28 bar bar percentStacked gap 40 overlap 100 legend b title \"Where the step time went, BASE and "
	"NEW\"\n"
	"    series name Diff!$B$31 cat Diff!$C$30:$D$30 val Diff!$C$31:$D$31 fill 2E7D32 cached 2\n"
	"    series name Diff!$B$32 cat Diff!$C$30:$D$30 val Diff!$C$32:$D$32 fill F9A825 cached 2\n"
	"    series name Diff!$B$33 cat Diff!$C$30:$D$30 val Diff!$C$33:$D$33 fill 8E7CC3 cached 2\n"
	"    series name Diff!$B$34 cat Diff!$C$30:$D$30 val Diff!$C$34:$D$34 fill 1F77B4 cached 2\n"
	"    series name Diff!$B$35 cat Diff!$C$30:$D$30 val Diff!$C$35:$D$35 fill BDBDBD cached 2\n"
	"    axis cat l reverse\n"
	"    axis val b crosses max\n"
	"chart A37:J50 bar bar stacked gap 40 overlap 100 legend b title \"Largest changes in lost time, ms (top 5 of "
	"5)\"\n"
	"    series name Diff!$C$52 cat Diff!$B$53:$B$57 val Diff!$C$53:$C$57 fill C0504D cached 5\n"
	"    series name Diff!$D$52 cat Diff!$B$53:$B$57 val Diff!$D$53:$D$57 fill 2E7D32 cached 5\n"
	"    axis cat l reverse labels low\n"
	"    axis val b format \"#,##0.0##\" crosses max\n"
	"style 1: font \"Calibri\" 11 bold; fill solid FFAFEEEE; border thin; valign center; wrap; numfmt \"General\"\n"
	"style 2: font \"Calibri\" 14 bold; fill none; border none; numfmt \"General\"\n"
	"style 3: font \"Calibri\" 11; fill none; border thin; numfmt \"General\"\n"
	"style 5: font \"Calibri\" 11; fill none; border thin; numfmt \"#,##0.000\"\n"
	"style 6: font \"Calibri\" 11; fill none; border thin; numfmt \"0.00%\"\n"
	"style 8: font \"Calibri\" 11; fill none; border thin; numfmt \"0.00E+00\"\n"
	"style 9: font \"Calibri\" 11; fill none; border thin; numfmt \"+#,##0.000;-#,##0.000;0.000\"\n"
	"A1=Kind (s) s1\nB1=Name (s) s1\nC1=BASE time (ms) (s) s1\nD1=NEW time (ms) (s) s1\nE1=BASE FLOPs (s) s1\n"
	"F1=NEW FLOPs (s) s1\nG1=BASE MFU or share (s) s1\nH1=NEW MFU or share (s) s1\nI1=BASE lost (ms) (s) s1\n"
	"J1=NEW lost (ms) (s) s1\nK1=Change in lost (ms) (s) s1\n"
	"A2=step_share (s) s3\nB2=trace_mfu (s) s3\nC2=10 (n) s5\nD2=12 (n) s5\nE2=4000000000000 (n) s8\n"
	"F2=4800000000000 (n) s8\nG2=0.4 (n) s6\nH2=0.25 (n) s6\nI2=6 (n) s5\nJ2=9 (n) s5\nK2=3 (n) s9\n"
	"A3=step_share (s) s3\nB3=inefficiency (s) s3\nC3=8 (n) s5\nD3=7 (n) s5\nE3=4000000000000 (n) s8\n"
	"F3=4800000000000 (n) s8\nG3=0.4 (n) s6\nH3=0.333333333333 (n) s6\nI3=4 (n) s5\nJ3=4 (n) s5\nK3=0 (n) s9\n"
	"A4=step_share (s) s3\nB4=other_compute (s) s3\nC4=1 (n) s5\nD4=2 (n) s5\nE4= (blank) s8\nF4= (blank) s8\n"
	"G4=0.1 (n) s6\nH4=0.166666666667 (n) s6\nI4=1 (n) s5\nJ4=2 (n) s5\nK4=1 (n) s9\n"
	"A5=step_share (s) s3\nB5=comm_exposed (s) s3\nC5=0.5 (n) s5\nD5=2.5 (n) s5\nE5= (blank) s8\nF5= (blank) s8\n"
	"G5=0.05 (n) s6\nH5=0.208333333333 (n) s6\nI5=0.5 (n) s5\nJ5=2.5 (n) s5\nK5=2 (n) s9\n"
	"A6=step_share (s) s3\nB6=idle (s) s3\nC6=0.5 (n) s5\nD6=0.5 (n) s5\nE6= (blank) s8\nF6= (blank) s8\n"
	"G6=0.05 (n) s6\nH6=0.041666666667 (n) s6\nI6=0.5 (n) s5\nJ6=0.5 (n) s5\nK6=0 (n) s9\n"
	"A7=module (s) s3\nB7=Model/Layer_0/MLP (s) s3\nC7=2 (n) s5\nD7=4 (n) s5\nE7=1000000000000 (n) s8\n"
	"F7=1000000000000 (n) s8\nG7=0.5 (n) s6\nH7=0.25 (n) s6\nI7=1 (n) s5\nJ7=3 (n) s5\nK7=2 (n) s9\n"
	"A8=module (s) s3\nB8=Model (s) s3\nC8=0 (n) s5\nD8=1 (n) s5\nE8=0 (n) s8\nF8=0 (n) s8\nG8= (blank) s6\n"
	"H8= (blank) s6\nI8=0 (n) s5\nJ8=1 (n) s5\nK8=1 (n) s9\n"
	"A9=module (s) s3\nB9=Model/Layer_0/Attention (s) s3\nC9=6 (n) s5\nD9=4 (n) s5\nE9=3000000000000 (n) s8\n"
	"F9=3000000000000 (n) s8\nG9=0.5 (n) s6\nH9=0.75 (n) s6\nI9=3 (n) s5\nJ9=1 (n) s5\nK9=-2 (n) s9\n"
	"A10=op_type (s) s3\nB10=aten::gelu (s) s3\nC10= (blank) s5\nD10=1.5 (n) s5\nE10= (blank) s8\nF10=0 (n) s8\n"
	"G10= (blank) s6\nH10= (blank) s6\nI10= (blank) s5\nJ10=1.5 (n) s5\nK10=1.5 (n) s9\n"
	"A11=op_type (s) s3\nB11=aten::mm (s) s3\nC11=8 (n) s5\nD11=8 (n) s5\nE11=4000000000000 (n) s8\n"
	"F11=4000000000000 (n) s8\nG11=0.5 (n) s6\nH11=0.5 (n) s6\nI11=4 (n) s5\nJ11=4 (n) s5\nK11=0 (n) s9\n"
	"A12=op_type (s) s3\nB12==1+1 (s) s3\nC12=0.5 (n) s5\nD12= (blank) s5\nE12=0 (n) s8\nF12= (blank) s8\n"
	"G12= (blank) s6\nH12= (blank) s6\nI12=0.5 (n) s5\nJ12= (blank) s5\nK12=-0.5 (n) s9\n"
	"A13=model (s) s3\nB13=kempnerforge (s) s3\nC13=10 (n) s5\nD13=12 (n) s5\nE13=2000000000000 (n) s8\n"
	"F13=2000000000000 (n) s8\nG13=0.2 (n) s6\nH13=0.15 (n) s6\nI13= (blank) s5\nJ13= (blank) s5\n"
	"K13= (blank) s9\n"
	"A14=rank (s) s3\nB14=3 (s) s3\nC14= (blank) s5\nD14=9.5 (n) s5\nE14= (blank) s8\nF14=4000000000000 (n) s8\n"
	"G14= (blank) s6\nH14=0.5 (n) s6\nI14= (blank) s5\nJ14= (blank) s5\nK14= (blank) s9\n"
	"A29=Where the step time went, BASE and NEW (the chart's data) (s) s2\n"
	"A30=Kind (s) s1\nB30=Part (s) s1\nC30=BASE (s) s1\nD30=NEW (s) s1\n"
	"A31=step_share (s) s3\nB31=Trace MFU over all steps (s) s3\nC31=0.4 (n) s6\nD31=0.25 (n) s6\n"
	"A32=step_share (s) s3\nB32=FLOP kernels below peak (s) s3\nC32=0.4 (n) s6\nD32=0.333333333333 (n) s6\n"
	"A33=step_share (s) s3\nB33=Busy without FLOPs (s) s3\nC33=0.1 (n) s6\nD33=0.166666666667 (n) s6\n"
	"A34=step_share (s) s3\nB34=Exposed communication (s) s3\nC34=0.05 (n) s6\nD34=0.208333333333 (n) s6\n"
	"A35=step_share (s) s3\nB35=Idle (s) s3\nC35=0.05 (n) s6\nD35=0.041666666667 (n) s6\n"
	"A51=Largest changes in lost time (the chart's data) (s) s2\n"
	"A52=Kind (s) s1\nB52=Name (s) s1\nC52=Increase (ms) (s) s1\nD52=Decrease (ms) (s) s1\n"
	"A53=module (s) s3\nB53=Layer_0/MLP (s) s3\nC53=2 (n) s9\nD53= (blank) s9\n"
	"A54=module (s) s3\nB54=Layer_0/Attention (s) s3\nC54= (blank) s9\nD54=-2 (n) s9\n"
	"A55=op_type (s) s3\nB55=aten::gelu (s) s3\nC55=1.5 (n) s9\nD55= (blank) s9\n"
	"A56=module (s) s3\nB56=Model (s) s3\nC56=1 (n) s9\nD56= (blank) s9\n"
	"A57=op_type (s) s3\nB57==1+1 (s) s3\nC57= (blank) s9\nD57=-0.5 (n) s9\n";

/* The Diff alone: opmfu_summary_xlsx_write with the OpmfuDiff table only. */
static enum opmfu_status write_diff(const char *d, const struct opmfu_cell_store *cs, struct opmfu_err *e)
{
	struct opmfu_table t = opmfu_cell_store_table(cs);
	struct opmfu_summary_tables tabs = { NULL, NULL, NULL, NULL, NULL, &t };
	struct opmfu_write_stats ws;
	memset(&ws, 0, sizeof(ws));
	return opmfu_summary_xlsx_write(d, &tabs, &ws, e);
}

static void test_small(void)
{
	struct opmfu_cell_store cs;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char path[4200];

	opmfu_cell_store_init(&cs, &diff_def);
	diff_rows(&cs);
	CHECK_INT(write_diff(dir, &cs, &e), OPMFU_OK);
	xlsx_check_dump(in_dir(path, sizeof(path), OPMFU_SUMMARY_XLSX), diff_want);
	CHECK_INT(tmp_files(dir), 0);
	opmfu_cell_store_release(&cs);
}

/* Streamed (constant_memory): the blocks and charts below the rows are
 * written after them, in row order; strings are inline, charts uncached. */
static void test_streamed(void)
{
	struct opmfu_summary s;
	struct opmfu_cell_store cs;
	struct opmfu_table t;
	struct opmfu_write_stats ws;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char path[4200], *want = xlsx_streamed(diff_want);

	CHECK(want != NULL);
	if (!want)
		return;
	opmfu_cell_store_init(&cs, &diff_def);
	diff_rows(&cs);
	t = opmfu_cell_store_table(&cs);
	opmfu_summary_init(&s);
	s.stream_cells = 0;
	CHECK_INT(opmfu_summary_add(&s, &t, &e), OPMFU_OK);
	CHECK_INT(opmfu_summary_keep(&s, &e), OPMFU_OK);
	memset(&ws, 0, sizeof(ws));
	CHECK_INT(opmfu_summary_xlsx_save(&s, dir, &ws, &e), OPMFU_OK);
	xlsx_check_dump(in_dir(path, sizeof(path), OPMFU_SUMMARY_XLSX), want);
	opmfu_summary_release(&s);
	opmfu_cell_store_release(&cs);
	free(want);
}

/* A run's tables alone, then with the Diff: the second workbook is the Diff
 * sheet, then the first one's sheets unchanged (what `opmfu diff` writes:
 * NEW's summary and the Diff). */
static void test_with_run(void)
{
	struct opmfu_cell_store ranks, runs, hot, diff;
	struct opmfu_table t[4];
	struct opmfu_summary_tables tabs = { NULL, NULL, NULL, NULL, NULL, NULL };
	struct opmfu_write_stats ws;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char path[4200], *run, *both, *want;

	opmfu_cell_store_init(&ranks, &rank_def);
	opmfu_cell_store_init(&runs, &run_def);
	opmfu_cell_store_init(&hot, &hot_def);
	opmfu_cell_store_init(&diff, &diff_def);
	add(&ranks, (struct opmfu_cell[]){ I(0), S("ok"), R(0.25) });
	add(&ranks, (struct opmfu_cell[]){ I(3), S("ok"), R(0.5) });
	add(&runs, (struct opmfu_cell[]){ I(0), R(0.25) });
	add(&hot, (struct opmfu_cell[]){ S("op_type"), S("aten::mm"), I(8000000), I(4000000) });
	add(&hot, (struct opmfu_cell[]){ S("op_type"), S("aten::gelu"), I(1500000), I(1500000) });
	diff_rows(&diff);
	t[0] = opmfu_cell_store_table(&ranks);
	t[1] = opmfu_cell_store_table(&runs);
	t[2] = opmfu_cell_store_table(&hot);
	t[3] = opmfu_cell_store_table(&diff);
	tabs.ranks = &t[0];
	tabs.run = &t[1];
	tabs.hotspots = &t[2];
	memset(&ws, 0, sizeof(ws));
	in_dir(path, sizeof(path), OPMFU_SUMMARY_XLSX);
	CHECK_INT(opmfu_summary_xlsx_write(dir, &tabs, &ws, &e), OPMFU_OK);
	run = xlsx_dump(path);
	tabs.diff = &t[3];
	CHECK_INT(opmfu_summary_xlsx_write(dir, &tabs, &ws, &e), OPMFU_OK);
	both = xlsx_dump(path);
	want = malloc(sizeof(diff_want) + (run ? strlen(run) : 0));
	CHECK(run && both && want);
	if (run && both && want) {
		CHECK(!strncmp(run, "sheet Overview\n", 15));
		CHECK(strstr(run, "\nsheet Ranks\n") && strstr(run, "\nsheet Op types\n"));
		memcpy(want, diff_want, sizeof(diff_want));
		strcat(want, run);
		CHECK_STR(both, want);
	}
	free(run);
	free(both);
	free(want);
	opmfu_cell_store_release(&ranks);
	opmfu_cell_store_release(&runs);
	opmfu_cell_store_release(&hot);
	opmfu_cell_store_release(&diff);
}

/*
 * Five step shares (trace_mfu and four of a name the sheet does not know),
 * then 30 module and 30 op_type rows, module k changed by
 * (k + 1) x 100 us and op type k by -(k + 1) x 100 us - 50 us: by size the
 * op type comes first at each k, op types being 50 us larger, from the
 * largest (k = 29: op -3.05 ms, then module +3 ms) down; the top 20 are k =
 * 29 .. 20. Rows: 65 below the header (to row 66); the step chart at A68,
 * 960 x 240 px: to row 80, its title in A81, header in row 82, rows 83-87;
 * the changes chart at A89, 140 + 24 x 20 = 620 px high: 31 rows, to row
 * 120, its title in A121, header in row 122, its 20 rows A123:D142.
 */
static void test_many(void)
{
	struct opmfu_cell_store cs;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char path[4200], name[64], *got;
	int64_t k;

	opmfu_cell_store_init(&cs, &diff_def);
	for (k = 0; k < 5; k++)
		add(&cs, (struct opmfu_cell[]){ S("step_share"), S(k ? "other" : "trace_mfu"), I(1000), I(1000), N, N,
						R(0.2), R(0.2), I(1000), I(1000), I(0) });
	for (k = 0; k < 60; k++) {
		int op = k >= 30;
		int64_t j = op ? k - 30 : k, d = op ? -(j + 1) * 100000 - 50000 : (j + 1) * 100000;
		snprintf(name, sizeof(name), op ? "aten::op_%d" : "Model/Layer_%d/Block", (int)j);
		add(&cs, (struct opmfu_cell[]){ S(op ? "op_type" : "module"), S(name), I(5000000), I(5000000), N, N, N, N,
						I(1000000), I(1000000 + d), I(d) });
	}
	CHECK_INT(write_diff(dir, &cs, &e), OPMFU_OK);
	got = xlsx_dump(in_dir(path, sizeof(path), OPMFU_SUMMARY_XLSX));
	CHECK(xlsx_dump_has(got, "autofilter A1:K66"));
	CHECK(xlsx_dump_has(got, "break after row 66"));
	CHECK(xlsx_dump_has(got, "row 82 height 30"));
	CHECK(xlsx_dump_has(got, "break after row 87"));
	CHECK(xlsx_dump_has(got, "row 122 height 30"));
	/* a part of another name keeps it and is grey */
	CHECK(xlsx_dump_has(got, "B84=other (s) s3"));
	CHECK(xlsx_dump_has(got, "    series name Diff!$B$87 cat Diff!$C$82:$D$82 val Diff!$C$87:$D$87 fill BDBDBD "
				 "cached 2"));
	CHECK(got && strstr(got, "\nchart A68:") && strstr(got, "80 bar bar percentStacked "));
	CHECK(got && strstr(got, "\nchart A89:") && strstr(got, "120 bar bar stacked gap 40 overlap 100 legend b title "
								 "\"Largest changes in lost time, ms (top 20 of 60)\"\n"));
	CHECK(xlsx_dump_has(got, "    series name Diff!$C$122 cat Diff!$B$123:$B$142 val Diff!$C$123:$C$142 fill "
				 "C0504D cached 20"));
	CHECK(xlsx_dump_has(got, "    series name Diff!$D$122 cat Diff!$B$123:$B$142 val Diff!$D$123:$D$142 fill "
				 "2E7D32 cached 20"));
	CHECK(xlsx_dump_has(got, "B123=aten::op_29 (s) s3"));
	CHECK(xlsx_dump_has(got, "D123=-3.05 (n) s9"));
	CHECK(xlsx_dump_has(got, "B124=Layer_29/Block (s) s3"));
	CHECK(xlsx_dump_has(got, "C124=3 (n) s9"));
	CHECK(xlsx_dump_has(got, "B142=Layer_20/Block (s) s3"));
	CHECK(got && !strstr(got, "A143="));
	free(got);
	if (keep) { /* a workbook to look at in many/ */
		char d[4200];
		snprintf(d, sizeof(d), "%s/many", dir);
		mkdir(d, 0777);
		CHECK_INT(write_diff(d, &cs, &e), OPMFU_OK);
	}
	opmfu_cell_store_release(&cs);
}

/*
 * SPEC 19's rows: the five parts, then comm_wait (a part of comm_exposed),
 * then a collective. The table has all seven (rows 2-8); the step chart
 * (A10, 240 px: to row 22; title A23, header row 24) stacks the five parts
 * alone, rows 25-29, the last Idle: comm_wait is not a sixth series (it
 * would count twice), row 30 stays empty (break after row 29). The changes
 * chart (A31, 140 + 24 = 164 px: 8 rows and 4 px, to row 39; its title in A40, header in row
 * 41) has the collective, its lost (exposed) time up by 2 ms, in C42.
 */
static void test_collectives(void)
{
	static const char *const part[5] = { "trace_mfu", "inefficiency", "other_compute", "comm_exposed", "idle" };
	struct opmfu_cell_store cs;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char path[4200], *got;
	int k;

	opmfu_cell_store_init(&cs, &diff_def);
	for (k = 0; k < 5; k++)
		add(&cs, (struct opmfu_cell[]){ S("step_share"), S(part[k]), I(1000), I(1000), N, N, R(0.2), R(0.2),
						I(1000), I(1000), I(0) });
	add(&cs, (struct opmfu_cell[]){ S("step_share"), S("comm_wait"), I(500), I(100), N, N, R(0.1), R(0.02), I(500),
					I(100), I(-400) });
	add(&cs, (struct opmfu_cell[]){ S("collective"), S("allreduce [group 0]"), I(9000000), I(9000000), N, N, N, N,
					I(5000000), I(7000000), I(2000000) });
	CHECK_INT(write_diff(dir, &cs, &e), OPMFU_OK);
	got = xlsx_dump(in_dir(path, sizeof(path), OPMFU_SUMMARY_XLSX));
	CHECK(xlsx_dump_has(got, "autofilter A1:K8"));
	CHECK(xlsx_dump_has(got, "B7=comm_wait (s) s3"));
	CHECK(xlsx_dump_has(got, "A8=collective (s) s3"));
	CHECK(xlsx_dump_has(got, "break after row 8"));
	CHECK(xlsx_dump_has(got, "row 24 height 30"));
	CHECK(xlsx_dump_has(got, "B29=Idle (s) s3"));
	CHECK(xlsx_dump_has(got, "    series name Diff!$B$29 cat Diff!$C$24:$D$24 val Diff!$C$29:$D$29 fill BDBDBD "
				 "cached 2"));
	CHECK(got && !strstr(got, "Diff!$B$30") && !strstr(got, "A30=") && !strstr(got, "B30="));
	CHECK(xlsx_dump_has(got, "break after row 29"));
	CHECK(got && strstr(got, "\nchart A31:") &&
	      strstr(got, "39 bar bar stacked gap 40 overlap 100 legend b title \"Largest changes in lost time, ms "
			  "(top 1 of 1)\"\n"));
	CHECK(xlsx_dump_has(got, "row 41 height 30"));
	CHECK(xlsx_dump_has(got, "A42=collective (s) s3"));
	CHECK(xlsx_dump_has(got, "B42=allreduce [group 0] (s) s3"));
	CHECK(xlsx_dump_has(got, "C42=2 (n) s9"));
	CHECK(xlsx_dump_has(got, "D42= (blank) s9"));
	free(got);
	opmfu_cell_store_release(&cs);
}

/* No step shares and no change: the table alone, no block, chart or page
 * break below it. */
static void test_no_charts(void)
{
	struct opmfu_cell_store cs;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char path[4200], *got;

	opmfu_cell_store_init(&cs, &diff_def);
	add(&cs, (struct opmfu_cell[]){ S("module"), S("Model"), I(1000), I(1000), N, N, N, N, I(1000), I(1000), I(0) });
	add(&cs, (struct opmfu_cell[]){ S("op_type"), S("aten::mm"), I(1000), N, N, N, N, N, I(1000), N, N });
	CHECK_INT(write_diff(dir, &cs, &e), OPMFU_OK);
	got = xlsx_dump(in_dir(path, sizeof(path), OPMFU_SUMMARY_XLSX));
	CHECK(xlsx_dump_has(got, "dimension A1:K3"));
	CHECK(got && !strstr(got, "break after") && !strstr(got, "chart ") && !strstr(got, "sheet Overview"));
	free(got);
	opmfu_cell_store_release(&cs);
}

/* Through the xlsx writer: a Diff put then dropped leaves nothing; the one
 * kept is the sheet; a run never committed leaves the earlier workbook. */
static void test_writer(void)
{
	static const struct opmfu_table_def *const defs[] = { &diff_def };
	const struct opmfu_writer_type *wt = opmfu_writer_type_find("xlsx");
	struct opmfu_writer *w = NULL;
	struct opmfu_cell_store cs;
	struct opmfu_table t;
	struct opmfu_write_stats ks;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char path[4200];

	in_dir(path, sizeof(path), OPMFU_SUMMARY_XLSX);
	opmfu_cell_store_init(&cs, &diff_def);
	diff_rows(&cs);
	t = opmfu_cell_store_table(&cs);
	put_file(path, "earlier");
	CHECK_INT(wt->open(&w, dir, defs, 1, &e), OPMFU_OK);
	if (!w)
		return;
	CHECK_INT(opmfu_writer_put(w, -1, &t, &e), OPMFU_OK);
	CHECK_INT(opmfu_writer_drop_rank(w, -1, &e), OPMFU_OK);
	CHECK_INT(opmfu_writer_put(w, -1, &t, &e), OPMFU_OK);
	CHECK_INT(opmfu_writer_keep_rank(w, -1, &ks, &e), OPMFU_OK);
	CHECK_INT(ks.files, 0);
	CHECK(file_is(path, "earlier"));
	CHECK_INT(opmfu_writer_commit(w, &e), OPMFU_OK);
	opmfu_writer_close(w);
	xlsx_check_dump(path, diff_want);

	put_file(path, "earlier");
	CHECK_INT(wt->open(&w, dir, defs, 1, &e), OPMFU_OK);
	CHECK_INT(opmfu_writer_put(w, -1, &t, &e), OPMFU_OK);
	CHECK_INT(opmfu_writer_keep_rank(w, -1, &ks, &e), OPMFU_OK);
	opmfu_writer_close(w);
	CHECK(file_is(path, "earlier"));
	CHECK_INT(tmp_files(dir), 0);
	opmfu_cell_store_release(&cs);
}

static enum opmfu_status write_small(void *ctx, struct opmfu_err *e)
{
	return write_diff(dir, ctx, e);
}

/* Every allocation of opmfu's failing in turn: out of memory, the earlier
 * workbook as it was, nothing left behind; then the whole Diff sheet. */
static void test_nomem(void)
{
	struct opmfu_cell_store cs;
	char path[4200];

	opmfu_cell_store_init(&cs, &diff_def);
	diff_rows(&cs);
	xlsx_check_nomem(dir, in_dir(path, sizeof(path), OPMFU_SUMMARY_XLSX), write_small, &cs, diff_want);
	opmfu_cell_store_release(&cs);
}

int main(int argc, char **argv)
{
	if ((keep = xlsx_test_start(argc, argv, "t_summary_diff", dir, sizeof(dir))) < 0)
		return 2;

	test_small();
	test_streamed();
	test_with_run();
	test_many();
	test_collectives();
	test_no_charts();
	test_writer();
	test_nomem(); /* its last run leaves the small workbook */
	return xlsx_test_end(keep, dir, OPMFU_SUMMARY_XLSX);
}
