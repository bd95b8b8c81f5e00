/*
 * summary_xlsx.c - opmfu_summary.xlsx: the sheets (Overview, Ranks, Steps,
 * Module classes, Modules, Op types, Shapes, Kernels, Collectives) and their native charts, laid out from the
 * run's tables as write/summary.c gathered them (SPEC 16: every number is a
 * cell of OpmfuRun, OpmfuHotspots, OpmfuStragglers, OpmfuRankSummary or
 * OpmfuSteps; the roofline's roof corners on the Overview are the one
 * drawing of table values, OpmfuRun's peak and the median rank's bandwidth:
 * plan_roof). Each sheet is a list of columns (a title, a number format,
 * and the table column it shows); widths are measured from the titles and
 * the values as shown, so nothing is cut and nothing is wider than it needs.
 */
#include "write/summary_xlsx.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "base/kname.h"
#include "base/sbuf.h"
#include "write/stage.h"
#include "write/summary_sheet.h"
#include "write/write_xlsx.h"

/* (F_SHARE's format is F_PCT's: libxlsxwriter gives both one style) */
static const char *const num_formats[N_FMT] = {
	NULL,	   "0",	     "#,##0.000", "0.00%", "0.00", "0.00E+00", "+#,##0.000;-#,##0.000;0.000", "0.00%",
	"+0.00%;-0.00%;0.00%",
};

#define TEXT_WIDTH_MAX 50

/* OpmfuRankSummary: the rank's median step (docs/glossary.md) and its
 * waterfall, then the MFU over all its ops */
static const struct opmfu_sx_col rank_cols[] = {
	{ "Rank", F_INT, FROM_ROW, "rank_id" },
	{ "Status", F_TEXT, FROM_ROW, "status" },
	{ "Chip", F_TEXT, FROM_ROW, "chip_seen" },
	{ "Peak (TFLOPS)", F_TFLOPS, FROM_ROW, "peak_tflops" },
	{ "Steps", F_INT, FROM_ROW, "steps" },
	{ "Median step", F_INT, FROM_ROW, "median_step" },
	{ "Step time (ms)", F_MS, FROM_ROW, "step_ns_median" },
	{ "Trace MFU", F_PCT, FROM_ROW, "trace_mfu" },
	{ "FLOP kernels below peak", F_PCT, FROM_ROW, "share_inefficiency" },
	{ "Busy without FLOPs", F_PCT, FROM_ROW, "share_other_compute" },
	{ "Exposed communication", F_PCT, FROM_ROW, "share_comm" },
	{ "Idle", F_PCT, FROM_ROW, "share_idle" },
	{ "Busy MFU", F_PCT, FROM_ROW, "mfu_busy" },
	{ "Recorded MFU", F_PCT, FROM_ROW, "mfu_recorded" },
	{ "FLOPs coverage", F_PCT, FROM_ROW, "flops_coverage" },
	{ "Up to the median rank", F_PCT, RANK_UP_TO_MEDIAN, "trace_mfu" },
	{ "Above the median rank", F_PCT, RANK_ABOVE_MEDIAN, "trace_mfu" },
	{ "Short of the median rank", F_PCT, RANK_SHORT_OF_MEDIAN, "trace_mfu" },
	{ "GEMM/conv/attention without FLOPs", F_PCT, FROM_ROW, "share_matmul_noflops" },
	{ "Memory-bound, bytes known", F_PCT, FROM_ROW, "share_memory_bound" },
	{ "Memory-bound bandwidth efficiency", F_PCT, FROM_ROW, "memory_bound_eff" },
	{ "Other kernels without FLOPs", F_PCT, FROM_ROW, "share_other_kernels" },
	{ "Copies and memsets", F_PCT, FROM_ROW, "share_memcpy" },
	{ "Idle, host late", F_PCT, FROM_ROW, "share_idle_host" },
	{ "Idle, other", F_PCT, FROM_ROW, "share_idle_device" },
	{ "Step windows", F_TEXT, FROM_ROW, "step_windows" },
	{ "Profiler step (ms)", F_MS, FROM_ROW, "profiler_step_ns" },
	{ "Backlog (ms)", F_MS, FROM_ROW, "backlog_ns" },
	{ "Peak source", F_TEXT, FROM_ROW, "peak_source" },
	{ "Reason", F_TEXT, FROM_ROW, "reason" },
};
/* the Ranks columns the charts read */
enum { RK_RANK = 0, RK_WATERFALL = 7, RK_MEDIAN = 15 };

static const struct opmfu_sx_col step_cols[] = {
	{ "Rank", F_INT, FROM_ROW, "rank_id" },
	{ "Step", F_INT, FROM_ROW, "step" },
	{ "Kind", F_TEXT, FROM_ROW, "kind" },
	{ "Step time (ms)", F_MS, FROM_ROW, "window_ns" },
	{ "Profiler step (ms)", F_MS, FROM_ROW, "profiler_step_ns" },
	{ "Preparing (ms)", F_MS, FROM_ROW, "preparing_ns" },
	{ "FLOP kernels (ms)", F_MS, FROM_ROW, "flops_ns" },
	{ "GEMM/conv/attention without FLOPs (ms)", F_MS, FROM_ROW, "matmul_noflops_ns" },
	{ "Memory-bound, bytes known (ms)", F_MS, FROM_ROW, "memory_bound_ns" },
	{ "Memory-bound bandwidth efficiency", F_PCT, FROM_ROW, "memory_bound_eff" },
	{ "Other compute (ms)", F_MS, FROM_ROW, "other_compute_ns" },
	{ "Exposed communication (ms)", F_MS, FROM_ROW, "comm_exposed_ns" },
	{ "Waiting for other ranks (ms)", F_MS, FROM_ROW, "comm_wait_ns" },
	{ "Overlapped communication (ms)", F_MS, FROM_ROW, "comm_overlapped_ns" },
	{ "Copies and memsets (ms)", F_MS, FROM_ROW, "memcpy_ns" },
	{ "Idle, host late (ms)", F_MS, FROM_ROW, "idle_host_ns" },
	{ "Idle, other (ms)", F_MS, FROM_ROW, "idle_ns" },
	{ "FLOPs", F_FLOPS, FROM_ROW, "flops" },
	{ "Peak (TFLOPS)", F_TFLOPS, FROM_ROW, "peak_tflops" },
	{ "Trace MFU", F_PCT, FROM_ROW, "trace_mfu" },
	{ "FLOP kernels below peak", F_PCT, FROM_ROW, "share_inefficiency" },
	{ "Busy without FLOPs", F_PCT, FROM_ROW, "share_other_compute" },
	{ "Exposed communication", F_PCT, FROM_ROW, "share_comm" },
	{ "Waiting for other ranks", F_PCT, FROM_ROW, "share_comm_wait" },
	{ "Idle", F_PCT, FROM_ROW, "share_idle" },
	{ "Idle, host late", F_PCT, FROM_ROW, "share_idle_host" },
};

/* OpmfuHotspots' rows of one kind, in the table's order (most recoverable
 * time first); the modules' with their short names, the chart's labels */
#define HOT_COLS(what)                                                          \
	{ what, F_TEXT, FROM_ROW, "name" }, { "Ranks", F_INT, FROM_ROW, "ranks" }, \
	{ "Calls", F_INT, FROM_ROW, "calls" },                                   \
	{ "Kernel time (ms)", F_MS, FROM_ROW, "kernel_ns" },                     \
	{ "Recoverable time (ms)", F_MS, FROM_ROW, "recoverable_ns" },           \
	{ "Lost time (ms)", F_MS, FROM_ROW, "lost_ns" },                         \
	{ "% of step", F_PCT, FROM_ROW, "pct_of_step" },                         \
	{ "MFU", F_PCT, FROM_ROW, "mfu" },                                       \
	{ "Roofline efficiency", F_PCT, FROM_ROW, "roofline_eff" }
static const struct opmfu_sx_col module_cols[] = {
	HOT_COLS("Module"),
	{ "Short name", F_TEXT, SHORT_PATH, "name" },
};
static const struct opmfu_sx_col class_cols[] = { HOT_COLS("Module class") };
static const struct opmfu_sx_col op_cols[] = { HOT_COLS("Op") };
/* shapes: also where they sit on the roofline (OpmfuHotspots' shape rows have both) */
static const struct opmfu_sx_col shape_cols[] = {
	HOT_COLS("Op and shapes"),
	{ "Achieved TFLOPS", F_TFLOPS, FROM_ROW, "achieved_tflops" },
	{ "FLOPs per byte", F_TFLOPS, FROM_ROW, "intensity" },
};
/* kernels: the short name (templates and parameters dropped, SPEC 20) first, the whole name, as
 * OpmfuHotspots and OpmfuKernels keep it, last */
static const struct opmfu_sx_col kernel_cols[] = {
	{ "Kernel", F_TEXT, SHORT_KERNEL, "name" },
	{ "Ranks", F_INT, FROM_ROW, "ranks" },
	{ "Calls", F_INT, FROM_ROW, "calls" },
	{ "Kernel time (ms)", F_MS, FROM_ROW, "kernel_ns" },
	{ "Recoverable time (ms)", F_MS, FROM_ROW, "recoverable_ns" },
	{ "Lost time (ms)", F_MS, FROM_ROW, "lost_ns" },
	{ "% of step", F_PCT, FROM_ROW, "pct_of_step" },
	{ "MFU", F_PCT, FROM_ROW, "mfu" },
	{ "Roofline efficiency", F_PCT, FROM_ROW, "roofline_eff" },
	{ "Full name", F_TEXT, FROM_ROW, "name" },
};
/* collectives (kind and group): no FLOPs, so no MFU or roofline; recoverable and lost time are
 * both their exposed time, summed over the ranks (docs/collectives.md) */
static const struct opmfu_sx_col coll_cols[] = {
	{ "Collective", F_TEXT, FROM_ROW, "name" },	     { "Ranks", F_INT, FROM_ROW, "ranks" },
	{ "Calls", F_INT, FROM_ROW, "calls" },		     { "Time (ms)", F_MS, FROM_ROW, "kernel_ns" },
	{ "Exposed time (ms)", F_MS, FROM_ROW, "recoverable_ns" }, { "% of step", F_PCT, FROM_ROW, "pct_of_step" },
};
/* the hotspot columns the charts read */
enum { HOT_RECOVERABLE = 4, HOT_SHORT = 9 };
/* the Shapes columns the roofline chart reads */
enum { SH_TFLOPS = 9, SH_INTENSITY = 10 };

/* The hotspot sheets: OpmfuHotspots.kind, the sheet, its columns, and what
 * its chart calls a row (NULL: no chart; kernel names and shapes are too
 * long for a chart's labels; module paths have their classes' chart, which
 * a root path cannot dominate). */
static const struct {
	const char *kind, *sheet;
	const struct opmfu_sx_col *cols;
	size_t n_cols;
	const char *chart;
} hot_sheets[] = {
	{ "module_class", "Module classes", class_cols, sizeof(class_cols) / sizeof(class_cols[0]), "module class" },
	{ "module", "Modules", module_cols, sizeof(module_cols) / sizeof(module_cols[0]), NULL },
	{ "op_type", "Op types", op_cols, sizeof(op_cols) / sizeof(op_cols[0]), "op type" },
	{ "shape", "Shapes", shape_cols, sizeof(shape_cols) / sizeof(shape_cols[0]), NULL },
	{ "kernel", "Kernels", kernel_cols, sizeof(kernel_cols) / sizeof(kernel_cols[0]), NULL },
	{ "collective", "Collectives", coll_cols, sizeof(coll_cols) / sizeof(coll_cols[0]), NULL },
};
#define N_HOT 6
#define HOT_SHAPES 3 /* hot_sheets' Shapes: the roofline chart's points */

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* ---- values ---- */

struct opmfu_cell opmfu_sx_num(double x, enum opmfu_sx_fmt f)
{
	if (isnan(x))
		return opmfu_cell_null();
	if (f == F_SHARE)
		return opmfu_cell_real(round(x * 1e12) / 1e12);
	return opmfu_cell_real(f == F_MS || f == F_DELTA ? x / 1e6 : x);
}

static struct opmfu_cell from_cells(const struct opmfu_table_def *def, const struct opmfu_cell *row, int col,
				    enum opmfu_sx_fmt f)
{
	if (col < 0)
		return opmfu_cell_null();
	if (f == F_TEXT)
		return def->cols[col].type == OPMFU_COL_TEXT ? row[col] : opmfu_cell_null();
	return opmfu_sx_num(opmfu_cell_num(def, row, col), f);
}

/* A module path's last two names (Layer_3/Attention_3): a chart's label,
 * where a whole path would leave no room for the bars. */
struct opmfu_cell opmfu_sx_short_name(const char *s, size_t n)
{
	size_t i = n, slashes = 0;
	while (i > 0 && !(s[i - 1] == '/' && ++slashes == 2))
		i--;
	return opmfu_cell_text(s + i, n - i);
}

static struct opmfu_cell against_median(enum opmfu_sx_from from, double mfu, double median)
{
	if (isnan(mfu) || isnan(median))
		return opmfu_cell_null();
	if (from == RANK_UP_TO_MEDIAN)
		return opmfu_cell_real(mfu < median ? mfu : median);
	if (from == RANK_ABOVE_MEDIAN)
		return opmfu_cell_real(mfu > median ? mfu - median : 0);
	return opmfu_cell_real(mfu < median ? median - mfu : 0);
}

/* Row i (below the header), column c of sheet sh; a short kernel name is
 * put in scratch (OPMFU_SX_KNAME + 1 bytes), which the cell points into. */
static struct opmfu_cell sheet_cell(const struct opmfu_sx_book *bk, const struct opmfu_sx_sheet *sh, size_t i, size_t c,
				    char *scratch)
{
	const struct opmfu_sx_col *col = &sh->cols[c];
	const struct opmfu_table_def *def = sh->rows->def;
	const struct opmfu_cell *row = sh->rows->cells + (sh->idx ? sh->idx[i] : i) * def->n_cols;
	struct opmfu_cell v;

	switch (col->from) {
	case FROM_ROW:
		return from_cells(def, row, sh->src[c], col->fmt);
	case RANK_UP_TO_MEDIAN:
	case RANK_ABOVE_MEDIAN:
	case RANK_SHORT_OF_MEDIAN:
		return against_median(col->from, opmfu_cell_num(def, row, sh->src[c]), bk->median_mfu);
	case SHORT_PATH:
		v = from_cells(def, row, sh->src[c], F_TEXT);
		return v.null ? v : opmfu_sx_short_name(v.v.t.s, v.v.t.n);
	case SHORT_KERNEL:
		v = from_cells(def, row, sh->src[c], F_TEXT);
		if (v.null || !scratch)
			return v;
		return opmfu_cell_text(scratch, opmfu_kernel_short(v.v.t.s, v.v.t.n, OPMFU_SX_KNAME, scratch,
								     OPMFU_SX_KNAME + 1));
	default:
		return opmfu_cell_null();
	}
}

/* ---- widths ---- */

/* Characters the value takes as its format shows it. */
static double shown_chars(const struct opmfu_cell *c, enum opmfu_sx_fmt f)
{
	char buf[64];
	double x = c->v.r;
	size_t i, n = 0;

	if (c->null)
		return 0;
	switch (f) {
	case F_TEXT:
		for (i = 0; i < c->v.t.n; i++)
			n += ((unsigned char)c->v.t.s[i] & 0xC0) != 0x80;
		return (double)n;
	case F_INT: return snprintf(buf, sizeof(buf), "%.0f", x);
	case F_MS: /* #,##0.000: a comma per three digits before the point */
	case F_DELTA: /* the same with a + before an increase */
		n = (size_t)snprintf(buf, sizeof(buf), "%.0f", fabs(x));
		return snprintf(buf, sizeof(buf), "%.3f", x) + (double)((n - 1) / 3) + (f == F_DELTA && x > 0);
	case F_PCT:
	case F_SHARE: return snprintf(buf, sizeof(buf), "%.2f%%", x * 100);
	case F_DPCT: return snprintf(buf, sizeof(buf), "%+.2f%%", x * 100);
	case F_TFLOPS: return snprintf(buf, sizeof(buf), "%.2f", x);
	default: return snprintf(buf, sizeof(buf), "%.2E", x);
	}
}

/* Width a title needs in at most two lines (it wraps at a space), bold,
 * with room for the filter button. */
static double title_width(const char *t)
{
	size_t n = strlen(t), best = n, i;
	for (i = 0; i < n; i++)
		if (t[i] == ' ') {
			size_t longer = i > n - i - 1 ? i : n - i - 1;
			best = longer < best ? longer : best;
		}
	return ceil((double)best * 1.1) + 3;
}

static void set_widths(struct opmfu_sx_book *bk, const struct opmfu_sx_sheet *sh)
{
	size_t c, i;
	for (c = 0; c < sh->n_cols; c++) {
		double w = title_width(sh->cols[c].title), cap = sh->cols[c].fmt == F_TEXT ? TEXT_WIDTH_MAX : 30;
		for (i = 0; i < sh->n_rows; i++) {
			char scratch[OPMFU_SX_KNAME + 1];
			struct opmfu_cell v = sheet_cell(bk, sh, i, c, scratch);
			double need = shown_chars(&v, sh->cols[c].fmt) + 2;
			w = need > w ? need : w;
		}
		w = w > cap ? cap : w;
		opmfu_xbook_note(&bk->b, LXW(worksheet_set_column)(sh->ws, (lxw_col_t)c, (lxw_col_t)c, w, NULL), 0,
				 (lxw_col_t)c);
	}
}

/* ---- sheets ---- */

/* A control character XML 1.0 cannot spell (NUL is repaired elsewhere). */
static int bad_control(char c)
{
	return (unsigned char)c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\0';
}

static int has_control(const char *s, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (bad_control(s[i]))
			return 1;
	return 0;
}

/* A text cell of the summary. Its names are also chart labels, and
 * libxlsxwriter copies a label into the chart's cache unescaped, where a
 * control character makes the chart part invalid XML (Excel then repairs
 * the file): such characters become U+FFFD here, counted as repaired. */
static void put_text(struct opmfu_sx_book *bk, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, const char *s, size_t n,
		     lxw_format *f)
{
	struct sbuf sb;
	size_t i;

	if (!has_control(s, n)) {
		opmfu_xbook_str(&bk->b, ws, r, c, s, n, f);
		return;
	}
	sbuf_init(&sb);
	for (i = 0; i < n; i++)
		if (bad_control(s[i]))
			sbuf_add(&sb, "\xEF\xBF\xBD", 3);
		else
			sbuf_add(&sb, s + i, 1);
	if (sb.oom)
		bk->b.oom = 1;
	else
		bk->b.st.repaired++;
	opmfu_xbook_str(&bk->b, ws, r, c, sb.oom ? NULL : sb.buf, sb.oom ? 0 : sb.len, f);
	sbuf_release(&sb);
}

void opmfu_sx_put(struct opmfu_sx_book *bk, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, const struct opmfu_cell *v,
		      enum opmfu_sx_fmt f)
{
	if (v->null)
		opmfu_xbook_str(&bk->b, ws, r, c, NULL, 0, bk->fmt[f]);
	else if (f == F_TEXT)
		put_text(bk, ws, r, c, v->v.t.s, v->v.t.n, bk->fmt[f]);
	else
		opmfu_xbook_num(&bk->b, ws, r, c, v->v.r, bk->fmt[f]);
}

/* Resolves sh's source columns and writes it: header, widths, frozen
 * header, filter, page setup, rows. */
void opmfu_sx_put_sheet(struct opmfu_sx_book *bk, struct opmfu_sx_sheet *sh)
{
	size_t c, i;

	bk->b.sheet = sh->name;
	for (c = 0; c < sh->n_cols; c++)
		sh->src[c] = opmfu_table_col(sh->rows->def, sh->cols[c].src);
	set_widths(bk, sh);
	opmfu_xbook_note(&bk->b, LXW(worksheet_set_row)(sh->ws, 0, OPMFU_SX_HEAD_HEIGHT, NULL), 0, 0);
	LXW(worksheet_freeze_panes)(sh->ws, 1, 0);
	opmfu_xbook_note(&bk->b, LXW(worksheet_autofilter)(sh->ws, 0, 0, (lxw_row_t)sh->n_rows, (lxw_col_t)(sh->n_cols - 1)),
			 0, 0);
	opmfu_xbook_print_setup(&bk->b, sh->ws, 1);
	for (c = 0; c < sh->n_cols; c++)
		opmfu_xbook_cstr(&bk->b, sh->ws, 0, (lxw_col_t)c, sh->cols[c].title, bk->head);
	for (i = 0; i < sh->n_rows && !bk->b.lerr; i++)
		for (c = 0; c < sh->n_cols; c++) {
			char scratch[OPMFU_SX_KNAME + 1];
			struct opmfu_cell v = sheet_cell(bk, sh, i, c, scratch);
			opmfu_sx_put(bk, sh->ws, (lxw_row_t)i + 1, (lxw_col_t)c, &v, sh->cols[c].fmt);
		}
}

/* ---- charts ---- */

/* (libxlsxwriter copies the title) */
lxw_chart *opmfu_sx_chart(struct opmfu_sx_book *bk, uint8_t type, const char *title)
{
	lxw_chart *ch = LXW(workbook_add_chart)(bk->b.wb, type);
	if (!ch) {
		bk->b.oom = 1;
		return NULL;
	}
	LXW(chart_title_set_name)(ch, title);
	LXW(chart_legend_set_position)(ch, LXW_CHART_LEGEND_BOTTOM);
	return ch;
}

void opmfu_sx_series(struct opmfu_sx_book *bk, lxw_chart *ch, const char *sheet, struct opmfu_sx_range cat,
		     struct opmfu_sx_range val, lxw_row_t nr, lxw_col_t nc, lxw_color_t color)
{
	lxw_chart_series *s = LXW(chart_add_series)(ch, NULL, NULL);
	lxw_chart_fill fill;

	if (!s) {
		bk->b.oom = 1;
		return;
	}
	memset(&fill, 0, sizeof(fill));
	fill.color = color;
	LXW(chart_series_set_categories)(s, sheet, cat.r0, cat.c0, cat.r1, cat.c1);
	LXW(chart_series_set_values)(s, sheet, val.r0, val.c0, val.r1, val.c1);
	LXW(chart_series_set_name_range)(s, sheet, nr, nc);
	LXW(chart_series_set_fill)(s, &fill);
}

/* A series of rows 1..n of column val of sh, by the categories in column
 * cat, named by its header cell. */
static void add_series(struct opmfu_sx_book *bk, lxw_chart *ch, const struct opmfu_sx_sheet *sh, size_t cat,
		       size_t val, size_t n, lxw_color_t color)
{
	struct opmfu_sx_range c = { 1, (lxw_row_t)n, (lxw_col_t)cat, (lxw_col_t)cat };
	struct opmfu_sx_range v = { 1, (lxw_row_t)n, (lxw_col_t)val, (lxw_col_t)val };
	opmfu_sx_series(bk, ch, sh->name, c, v, 0, (lxw_col_t)val, color);
}

/*
 * Charts of one bar per rank: all ranks, however many. The chart widens with
 * them (up to four times the default width, where 1,000 ranks still get
 * about two pixels each) and labels every k-th rank so that at most about
 * 40 labels show.
 */
static void per_rank_layout(lxw_chart *ch, size_t n, lxw_chart_options *o)
{
	double w = 160 + 16.0 * (double)n;
	memset(o, 0, sizeof(*o));
	o->x_scale = (w < 960 ? 960 : w > 1920 ? 1920 : w) / 480;
	o->y_scale = 400.0 / 288;
	LXW(chart_set_series_gap)(ch, n <= 64 ? 40 : 0);
	if (n > 40)
		LXW(chart_axis_set_interval_unit)(ch->x_axis, (uint16_t)((n + 39) / 40));
	LXW(chart_axis_set_name)(ch->x_axis, "Rank");
}

/* Where each rank's median step went: a 100 % stacked column per rank. */
static lxw_chart *waterfall_chart(struct opmfu_sx_book *bk, const struct opmfu_sx_sheet *ranks, lxw_chart_options *o)
{
	static const lxw_color_t colors[5] = { 0x2E7D32, 0xF9A825, 0x8E7CC3, 0x1F77B4, 0xBDBDBD };
	lxw_chart *ch = opmfu_sx_chart(bk, LXW_CHART_COLUMN_STACKED_PERCENT, "Where the median step went, per rank");
	size_t k;

	if (!ch)
		return NULL;
	for (k = 0; k < 5; k++)
		add_series(bk, ch, ranks, RK_RANK, RK_WATERFALL + k, ranks->n_rows, colors[k]);
	per_rank_layout(ch, ranks->n_rows, o);
	return ch;
}

/*
 * Trace MFU per rank against the median rank's (OpmfuRun.trace_mfu): each
 * rank's column is its MFU up to that (green) plus what lies above it (light green), or
 * else plus what it falls short of it (red). The median is where the colours
 * change on every column, a line across the chart whatever the number of
 * ranks (libxlsxwriter 1.1.4 cannot combine a line series with columns).
 */
static lxw_chart *mfu_chart(struct opmfu_sx_book *bk, const struct opmfu_sx_sheet *ranks, lxw_chart_options *o)
{
	static const lxw_color_t colors[3] = { 0x2E7D32, 0x81C784, 0xE57373 };
	char title[160];
	lxw_chart *ch;
	size_t k;

	/* rounded half up, as the sheet's 0.00% shows it (printf rounds a tie to even) */
	snprintf(title, sizeof(title), "Trace MFU per rank against the median rank's (%.2f%%)",
		 floor(bk->median_mfu * 10000 + 0.5) / 100);
	if (!(ch = opmfu_sx_chart(bk, LXW_CHART_COLUMN_STACKED, title)))
		return NULL;
	for (k = 0; k < 3; k++)
		add_series(bk, ch, ranks, RK_RANK, RK_MEDIAN + k, ranks->n_rows, colors[k]);
	/* a trace MFU can be a fraction of a percent (a short inference trace) */
	LXW(chart_axis_set_num_format)(ch->y_axis, "0.0##%");
	LXW(chart_axis_set_min)(ch->y_axis, 0); /* from 0, or small differences look large */
	per_rank_layout(ch, ranks->n_rows, o);
	return ch;
}

void opmfu_sx_hbars(lxw_chart *ch, size_t n, lxw_chart_options *o)
{
	LXW(chart_set_series_gap)(ch, 40);
	/* in a bar chart x_axis is the vertical axis, the categories': reversed,
	 * the first row is on top */
	LXW(chart_axis_set_reverse)(ch->y_axis);
	/* and the value axis stays at the bottom */
	LXW(chart_axis_set_crossing_max)(ch->y_axis);
	/* ms, often below 1 on short traces: up to three decimals, as needed */
	LXW(chart_axis_set_num_format)(ch->x_axis, "#,##0.0##");
	memset(o, 0, sizeof(*o));
	o->x_scale = 2;
	o->y_scale = (double)(140 + 24 * n) / 288;
}

/* Recoverable time of the first rows of a hotspot sheet (the table's
 * order: most recoverable first), one horizontal bar each, the most on top,
 * labelled by the short name where the sheet has one. */
static lxw_chart *hot_chart(struct opmfu_sx_book *bk, const struct opmfu_sx_sheet *sh, const char *what,
			    lxw_chart_options *o)
{
	size_t n = sh->n_rows < OPMFU_SX_TOP_N ? sh->n_rows : OPMFU_SX_TOP_N;
	size_t label = sh->n_cols > HOT_SHORT ? HOT_SHORT : 0;
	char title[160];
	lxw_chart *ch;

	snprintf(title, sizeof(title), "Recoverable time by %s, ms (top %zu of %zu)", what, n, sh->n_rows);
	if (!(ch = opmfu_sx_chart(bk, LXW_CHART_BAR, title)))
		return NULL;
	add_series(bk, ch, sh, label, HOT_RECOVERABLE, n, 0xC0504D);
	LXW(chart_legend_set_position)(ch, LXW_CHART_LEGEND_NONE);
	opmfu_sx_hbars(ch, n, o);
	return ch;
}

/*
 * The roofline: achieved TFLOPS (y) against FLOPs per byte (x), both log10,
 * a point per op shape among the first OPMFU_SX_TOP_N rows of the Shapes
 * sheet (most recoverable time first) that has both (rows without either
 * leave blank cells, which draw nothing), and the roof as a second series:
 * min(x x bandwidth, peak), from the run's peak (OpmfuRun.peak_tflops) and
 * the median rank's bandwidth (OpmfuRankSummary.peak_bw_tbps; OpmfuRun's, if
 * it has one). TFLOPS = FLOPs/byte x TB/s, so the ridge point is
 * peak / bandwidth FLOPs per byte. The roof's three corners are cells of the
 * Overview (the chart reads ranges): a rendering of those two table values,
 * from the power of ten at or below the least x (points and ridge) to the one
 * at or above the largest.
 */
struct roof {
	size_t n;	   /* the Shapes rows the points series reads (1..n) */
	size_t points;	   /* of them, with both values */
	double peak, bw;   /* TFLOPS, TB/s */
	double x[3], y[3]; /* the corners: memory roof from, ridge, compute roof to */
};

/* Whether the roofline chart has something to draw: a point, a peak and a bandwidth (into r). */
static int plan_roof(const struct opmfu_sx_book *bk, const struct opmfu_sx_sheet *sh, struct roof *r)
{
	double lo = INFINITY, hi = 0, ridge;
	size_t i;

	memset(r, 0, sizeof(*r));
	if (!sh || sh->src[SH_TFLOPS] < 0 || sh->src[SH_INTENSITY] < 0)
		return 0;
	r->peak = opmfu_sum_value(bk->s, OPMFU_SUM_RUN, 0, "peak_tflops");
	r->bw = opmfu_summary_run_bw(bk->s);
	if (!(r->peak > 0) || !(r->bw > 0))
		return 0;
	r->n = sh->n_rows < OPMFU_SX_TOP_N ? sh->n_rows : OPMFU_SX_TOP_N;
	for (i = 0; i < r->n; i++) {
		struct opmfu_cell y = sheet_cell(bk, sh, i, SH_TFLOPS, NULL),
				  x = sheet_cell(bk, sh, i, SH_INTENSITY, NULL);
		if (y.null || x.null || !(y.v.r > 0) || !(x.v.r > 0))
			continue;
		r->points++;
		lo = x.v.r < lo ? x.v.r : lo;
		hi = x.v.r > hi ? x.v.r : hi;
	}
	if (!r->points)
		return 0;
	ridge = r->peak / r->bw;
	lo = ridge < lo ? ridge : lo;
	hi = ridge > hi ? ridge : hi;
	r->x[0] = pow(10, floor(log10(lo)));
	r->x[1] = ridge;
	r->x[2] = pow(10, ceil(log10(hi)));
	if (r->x[2] <= r->x[0])
		r->x[2] = r->x[0] * 10;
	r->y[0] = r->x[0] * r->bw;
	r->y[1] = r->y[2] = r->peak;
	return 1;
}

/* The roof's corners on the Overview from row at: a header and three rows; the next free row. */
static lxw_row_t put_roof(struct opmfu_sx_book *bk, lxw_worksheet *ws, lxw_row_t at, const struct roof *r)
{
	static const char *const head[3] = { "Roof", "FLOPs per byte", "TFLOPS" };
	static const char *const corner[3] = { "Memory roof from", "Ridge point", "Compute roof to" };
	size_t k;

	opmfu_xbook_note(&bk->b, LXW(worksheet_set_row)(ws, at, OPMFU_SX_HEAD_HEIGHT, NULL), at, 0);
	for (k = 0; k < 3; k++)
		opmfu_xbook_cstr(&bk->b, ws, at, (lxw_col_t)k, head[k], bk->head);
	for (k = 0; k < 3; k++) {
		lxw_row_t row = at + 1 + (lxw_row_t)k;
		struct opmfu_cell x = opmfu_cell_real(r->x[k]), y = opmfu_cell_real(r->y[k]);
		opmfu_xbook_cstr(&bk->b, ws, row, 0, corner[k], bk->fmt[F_TEXT]);
		opmfu_sx_put(bk, ws, row, 1, &x, F_TFLOPS);
		opmfu_sx_put(bk, ws, row, 2, &y, F_TFLOPS);
	}
	return at + 5;
}

/* The chart of r: the Shapes sheet's points, and the roof from the Overview's rows roof_at + 1 .. + 3. */
static lxw_chart *roof_chart(struct opmfu_sx_book *bk, const struct opmfu_sx_sheet *sh, const struct roof *r,
			     lxw_row_t roof_at, lxw_chart_options *o)
{
	char title[200];
	lxw_chart *ch;
	lxw_chart_series *pts, *roof;
	lxw_chart_line line;

	snprintf(title, sizeof(title),
		 "Roofline: achieved TFLOPS against FLOPs per byte, %zu op shapes (of the top %zu of %zu by "
		 "recoverable time)",
		 r->points, r->n, sh->n_rows);
	if (!(ch = opmfu_sx_chart(bk, LXW_CHART_SCATTER, title)))
		return NULL;
	if (!(pts = LXW(chart_add_series)(ch, NULL, NULL)) || !(roof = LXW(chart_add_series)(ch, NULL, NULL))) {
		bk->b.oom = 1;
		return ch;
	}
	LXW(chart_series_set_categories)(pts, sh->name, 1, SH_INTENSITY, (lxw_row_t)r->n, SH_INTENSITY);
	LXW(chart_series_set_values)(pts, sh->name, 1, SH_TFLOPS, (lxw_row_t)r->n, SH_TFLOPS);
	LXW(chart_series_set_name_range)(pts, sh->name, 0, SH_TFLOPS);
	LXW(chart_series_set_marker_type)(pts, LXW_CHART_MARKER_CIRCLE);
	LXW(chart_series_set_categories)(roof, "Overview", roof_at + 1, 1, roof_at + 3, 1);
	LXW(chart_series_set_values)(roof, "Overview", roof_at + 1, 2, roof_at + 3, 2);
	LXW(chart_series_set_name_range)(roof, "Overview", roof_at, 0);
	LXW(chart_series_set_marker_type)(roof, LXW_CHART_MARKER_NONE);
	memset(&line, 0, sizeof(line));
	line.color = 0x404040;
	line.width = 2;
	LXW(chart_series_set_line)(roof, &line);
	LXW(chart_axis_set_log_base)(ch->x_axis, 10);
	LXW(chart_axis_set_log_base)(ch->y_axis, 10);
	LXW(chart_axis_set_name)(ch->x_axis, "FLOPs per byte");
	LXW(chart_axis_set_name)(ch->y_axis, "Achieved TFLOPS");
	memset(o, 0, sizeof(*o));
	o->x_scale = 2;
	o->y_scale = 480.0 / 288;
	return ch;
}

/* ---- the overview ---- */

/* OpmfuRun's row as label, column, format: the run in a few numbers, each
 * named as the terminal and the tables name it (docs/glossary.md). */
static const struct {
	const char *label, *col;
	enum opmfu_sx_fmt fmt;
} run_keys[] = {
	{ "Run ID", "run_id", F_TEXT },
	{ "Source", "source", F_TEXT },
	{ "Ranks", "ranks", F_INT },
	{ "Ranks analysed", "ranks_analysed", F_INT },
	{ "Ranks failed", "ranks_failed", F_INT },
	{ "Chip", "chip", F_TEXT },
	{ "Peak (TFLOPS)", "peak_tflops", F_TFLOPS },
	{ "Peak source", "peak_source", F_TEXT },
	{ "Median rank", "median_rank", F_INT },
	{ "Median step", "median_step", F_INT },
	{ "Step time (ms)", "step_ns", F_MS },
	{ "Trace MFU", "trace_mfu", F_PCT },
	{ "FLOP kernels below peak", "share_inefficiency", F_PCT },
	{ "Busy without FLOPs", "share_other_compute", F_PCT },
	{ "  GEMM/conv/attention, FLOPs unknown", "share_matmul_noflops", F_PCT },
	{ "  Memory-bound, bytes known", "share_memory_bound", F_PCT },
	{ "    at this share of the bandwidth", "memory_bound_eff", F_PCT },
	{ "  Other kernels", "share_other_kernels", F_PCT },
	{ "  Copies and memsets", "share_memcpy", F_PCT },
	{ "Exposed communication", "share_comm", F_PCT },
	{ "  Waiting for other ranks", "share_comm_wait", F_PCT },
	{ "Idle", "share_idle", F_PCT },
	{ "  Host late", "share_idle_host", F_PCT },
	{ "  Other idle", "share_idle_device", F_PCT },
	{ "Step windows", "step_windows", F_TEXT },
	{ "Profiler step (ms)", "profiler_step_ns", F_MS },
	{ "Backlog (ms)", "backlog_ns", F_MS },
	{ "Busy MFU", "mfu_busy", F_PCT },
	{ "Recorded MFU", "mfu_recorded", F_PCT },
	{ "FLOPs coverage", "flops_coverage", F_PCT },
};

static void put_cell_of(struct opmfu_sx_book *bk, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c,
			enum opmfu_sum_table k, size_t i, const char *col, enum opmfu_sx_fmt f)
{
	struct opmfu_cell v;
	size_t n;
	const char *t;

	if (f == F_TEXT) {
		t = opmfu_sum_text(bk->s, k, i, col, &n);
		v = t ? opmfu_cell_text(t, n) : opmfu_cell_null();
	} else {
		v = opmfu_sx_num(opmfu_sum_value(bk->s, k, i, col), f);
	}
	opmfu_sx_put(bk, ws, r, c, &v, f);
}

/* The OpmfuRun block from row r: a header, then a row per key; the next
 * free row. Without the table (a result written before it existed), a line
 * that says so. */
static lxw_row_t put_run(struct opmfu_sx_book *bk, lxw_worksheet *ws, lxw_row_t r)
{
	size_t k;

	if (!opmfu_summary_rows(bk->s, OPMFU_SUM_RUN)) {
		opmfu_xbook_cstr(&bk->b, ws, r, 0,
				 "No OpmfuRun table: these results were written by an older opmfu. The run's median "
				 "rank and step, its waterfall, hotspots and stragglers are not shown here; analyse the "
				 "traces again to get them.",
				 bk->fmt[F_TEXT]);
		return r + 2;
	}
	opmfu_xbook_cstr(&bk->b, ws, r, 0, "Run", bk->head);
	opmfu_xbook_cstr(&bk->b, ws, r, 1, "Value", bk->head);
	for (k = 0; k < N_OF(run_keys); k++) {
		lxw_row_t at = r + 1 + (lxw_row_t)k;
		opmfu_xbook_cstr(&bk->b, ws, at, 0, run_keys[k].label, bk->fmt[F_TEXT]);
		/* no step marks: the median step is the whole trace */
		if (!strcmp(run_keys[k].col, "median_step") && isnan(opmfu_sum_value(bk->s, OPMFU_SUM_RUN, 0, "median_step")) &&
		    !isnan(opmfu_sum_value(bk->s, OPMFU_SUM_RUN, 0, "median_rank")))
			opmfu_xbook_cstr(&bk->b, ws, at, 1, "the whole trace", bk->fmt[F_TEXT]);
		else
			put_cell_of(bk, ws, at, 1, OPMFU_SUM_RUN, 0, run_keys[k].col, run_keys[k].fmt);
	}
	return r + 1 + (lxw_row_t)N_OF(run_keys) + 1;
}

/* The OpmfuStragglers block from row r, a row per table row in its order,
 * culprit_of's text (who waited for whom, SPEC 19) after the numbers; the
 * next free row. */
static lxw_row_t put_stragglers(struct opmfu_sx_book *bk, lxw_worksheet *ws, lxw_row_t r)
{
	static const char *const head[6] = { "Straggler", "Rank", "Value", "Median rank's value", "Difference",
					     "Waiting for" };
	size_t i, k, len, n = opmfu_summary_rows(bk->s, OPMFU_SUM_STRAGGLERS);
	int culprit = 0;

	if (!n)
		return r;
	for (i = 0; i < n && !culprit; i++)
		culprit = opmfu_sum_text(bk->s, OPMFU_SUM_STRAGGLERS, i, "culprit_of", &len) != NULL;
	/* the culprit's column only when a row names one: a sentence, wide */
	if (culprit)
		opmfu_xbook_note(&bk->b, LXW(worksheet_set_column)(ws, 5, 5, TEXT_WIDTH_MAX, NULL), r, 5);
	opmfu_xbook_note(&bk->b, LXW(worksheet_set_row)(ws, r, OPMFU_SX_HEAD_HEIGHT, NULL), r, 0);
	for (k = 0; k < 5 + (size_t)culprit; k++)
		opmfu_xbook_cstr(&bk->b, ws, r, (lxw_col_t)k, head[k], bk->head);
	for (i = 0; i < n; i++) {
		lxw_row_t at = r + 1 + (lxw_row_t)i;
		const char *m = opmfu_sum_text(bk->s, OPMFU_SUM_STRAGGLERS, i, "measure", &len), *label;
		int ns;
		/* a time (step_ns_median) in ms, its change signed; a ratio in %, its change signed */
		label = opmfu_summary_measure(m, len, &ns);
		if (label)
			opmfu_xbook_cstr(&bk->b, ws, at, 0, label, bk->fmt[F_TEXT]);
		else
			opmfu_xbook_str(&bk->b, ws, at, 0, m, len, bk->fmt[F_TEXT]);
		put_cell_of(bk, ws, at, 1, OPMFU_SUM_STRAGGLERS, i, "rank_id", F_INT);
		put_cell_of(bk, ws, at, 2, OPMFU_SUM_STRAGGLERS, i, "value", ns ? F_MS : F_PCT);
		put_cell_of(bk, ws, at, 3, OPMFU_SUM_STRAGGLERS, i, "median", ns ? F_MS : F_PCT);
		put_cell_of(bk, ws, at, 4, OPMFU_SUM_STRAGGLERS, i, "delta", ns ? F_DELTA : F_DPCT);
		if (opmfu_sum_text(bk->s, OPMFU_SUM_STRAGGLERS, i, "culprit_of", &len))
			put_cell_of(bk, ws, at, 5, OPMFU_SUM_STRAGGLERS, i, "culprit_of", F_TEXT);
	}
	return r + 1 + (lxw_row_t)n + 1;
}

#define MAX_CHARTS (3 + N_HOT)

/* The run in a few numbers (OpmfuRun) from A3, the stragglers
 * (OpmfuStragglers) below; the charts below them, one to a printed page. */
static void put_overview(struct opmfu_sx_book *bk, lxw_worksheet *ws, const struct opmfu_sx_sheet *ranks,
			 const struct opmfu_sx_sheet *const hot[N_HOT])
{
	lxw_row_t row, roof_at = 0, breaks[MAX_CHARTS + 1] = { 0 };
	lxw_chart *ch[MAX_CHARTS] = { NULL };
	lxw_chart_options o[MAX_CHARTS];
	size_t k, n = 0;
	struct roof roof;
	int has_roof = plan_roof(bk, hot[HOT_SHAPES], &roof);

	bk->b.sheet = "Overview";
	opmfu_xbook_note(&bk->b, LXW(worksheet_set_column)(ws, 0, 0, 28, NULL), 0, 0);
	opmfu_xbook_note(&bk->b, LXW(worksheet_set_column)(ws, 1, 4, 14, NULL), 0, 1);
	opmfu_xbook_print_setup(&bk->b, ws, 0);
	opmfu_xbook_cstr(&bk->b, ws, 0, 0, "opmfu summary", bk->title);
	row = put_run(bk, ws, 2);
	row = put_stragglers(bk, ws, row);
	if (has_roof) {
		roof_at = row;
		row = put_roof(bk, ws, row, &roof);
	}
	if (ranks && ranks->n_rows && ranks->src[RK_WATERFALL] >= 0)
		ch[n] = waterfall_chart(bk, ranks, &o[n]), n++;
	if (ranks && ranks->n_rows && ranks->src[RK_MEDIAN] >= 0 && !isnan(bk->median_mfu))
		ch[n] = mfu_chart(bk, ranks, &o[n]), n++;
	for (k = 0; k < N_HOT; k++)
		if (hot[k] && hot_sheets[k].chart)
			ch[n] = hot_chart(bk, hot[k], hot_sheets[k].chart, &o[n]), n++;
	if (has_roof)
		ch[n] = roof_chart(bk, hot[HOT_SHAPES], &roof, roof_at, &o[n]), n++;
	for (k = 0; k < n && ch[k]; k++) {
		if (k) /* the page starts at the empty row above the chart */
			breaks[k - 1] = row - 1;
		opmfu_xbook_note(&bk->b, LXW(worksheet_insert_chart_opt)(ws, row, 0, ch[k], &o[k]), row, 0);
		/* rows of 20 pixels, and one between charts */
		row += (lxw_row_t)(288 * o[k].y_scale / 20) + 2;
	}
	if (breaks[0])
		opmfu_xbook_note(&bk->b, LXW(worksheet_set_h_pagebreaks)(ws, breaks), 0, 0);
}

/* ---- the workbook ---- */

static int add_formats(struct opmfu_sx_book *bk)
{
	size_t f;
	if (!(bk->head = opmfu_xbook_format(&bk->b)) || !(bk->title = opmfu_xbook_format(&bk->b)))
		return -1;
	LXW(format_set_bold)(bk->head);
	LXW(format_set_pattern)(bk->head, LXW_PATTERN_SOLID);
	LXW(format_set_bg_color)(bk->head, 0xAFEEEE);
	LXW(format_set_border)(bk->head, LXW_BORDER_THIN);
	LXW(format_set_text_wrap)(bk->head);
	LXW(format_set_align)(bk->head, LXW_ALIGN_VERTICAL_CENTER);
	LXW(format_set_bold)(bk->title);
	LXW(format_set_font_size)(bk->title, 14);
	/* numbered in this order (head 1, title 2, then by enum opmfu_sx_fmt), whichever
	 * is used first and whether rows are streamed or not: libxlsxwriter
	 * numbers a format, by its properties, when it first needs the number */
	LXW(lxw_format_get_xf_index)(bk->head);
	LXW(lxw_format_get_xf_index)(bk->title);
	for (f = 0; f < N_FMT; f++) {
		if (!(bk->fmt[f] = opmfu_xbook_format(&bk->b)))
			return -1;
		LXW(format_set_border)(bk->fmt[f], LXW_BORDER_THIN);
		LXW(format_set_border_color)(bk->fmt[f], 0xBFBFBF);
		if (num_formats[f])
			LXW(format_set_num_format)(bk->fmt[f], num_formats[f]);
		LXW(lxw_format_get_xf_index)(bk->fmt[f]);
	}
	return 0;
}

/* The data sheets of what s holds, in sh (room for MAX_SHEETS), the Diff
 * first: a diff's workbook opens on it; their count. The hotspot sheets
 * show OpmfuHotspots' rows of their kind, in the table's order, whose
 * indices go into hot (the table's kept rows long); a kind without rows has
 * no sheet. */
#define MAX_SHEETS (3 + N_HOT)
static size_t plan_sheets(const struct opmfu_summary *s, struct opmfu_sx_sheet *sh, uint32_t *hot)
{
	const struct opmfu_cell_store *t = s->t;
	size_t n = 0, k, i, m = opmfu_summary_rows(s, OPMFU_SUM_HOTSPOTS), used = 0;

	memset(sh, 0, MAX_SHEETS * sizeof(*sh));
	if (t[OPMFU_SUM_DIFF].def)
		sh[n++] = (struct opmfu_sx_sheet){ "Diff", opmfu_sx_diff_cols, opmfu_sx_n_diff_cols,
						   s->kept[OPMFU_SUM_DIFF], &t[OPMFU_SUM_DIFF], NULL, { 0 }, NULL };
	if (t[OPMFU_SUM_RANKS].def)
		sh[n++] = (struct opmfu_sx_sheet){ "Ranks", rank_cols, N_OF(rank_cols), s->kept[OPMFU_SUM_RANKS],
						   &t[OPMFU_SUM_RANKS], NULL, { 0 }, NULL };
	if (t[OPMFU_SUM_STEPS].def)
		sh[n++] = (struct opmfu_sx_sheet){ "Steps", step_cols, N_OF(step_cols), s->kept[OPMFU_SUM_STEPS],
						   &t[OPMFU_SUM_STEPS], NULL, { 0 }, NULL };
	for (k = 0; k < N_HOT; k++) {
		size_t first = used, len, want = strlen(hot_sheets[k].kind);
		for (i = 0; i < m; i++) {
			const char *kind = opmfu_sum_text(s, OPMFU_SUM_HOTSPOTS, i, "kind", &len);
			if (kind && len == want && !memcmp(kind, hot_sheets[k].kind, len))
				hot[used++] = (uint32_t)i;
		}
		if (used > first)
			sh[n++] = (struct opmfu_sx_sheet){ hot_sheets[k].sheet, hot_sheets[k].cols, hot_sheets[k].n_cols,
							   used - first, &t[OPMFU_SUM_HOTSPOTS], hot + first, { 0 },
							   NULL };
	}
	return n;
}

static int is_diff(const struct opmfu_sx_sheet *sh)
{
	return sh->cols == opmfu_sx_diff_cols;
}

static const struct opmfu_sx_sheet *sheet_named(const struct opmfu_sx_sheet *sh, size_t n, const char *name)
{
	size_t k;
	for (k = 0; k < n; k++)
		if (!strcmp(sh[k].name, name))
			return &sh[k];
	return NULL;
}

/* The sheets into bk's open workbook: the Diff, the Overview (of a run's
 * tables: not for a Diff alone), then the run's data sheets. */
static enum opmfu_status put_book(struct opmfu_sx_book *bk, struct opmfu_sx_sheet *sh, size_t n,
				  struct opmfu_err *err)
{
	const struct opmfu_sx_sheet *hot[N_HOT];
	lxw_worksheet *ov = NULL;
	size_t k;

	if (add_formats(bk) != 0)
		return opmfu_xbook_nomem(bk->b.path, err);
	for (k = 0; k < n && is_diff(&sh[k]); k++)
		if (!(sh[k].ws = LXW(workbook_add_worksheet)(bk->b.wb, sh[k].name)))
			return opmfu_xbook_nomem(bk->b.path, err);
	if (opmfu_summary_has_run(bk->s) && !(ov = LXW(workbook_add_worksheet)(bk->b.wb, "Overview")))
		return opmfu_xbook_nomem(bk->b.path, err);
	for (; k < n; k++)
		if (!(sh[k].ws = LXW(workbook_add_worksheet)(bk->b.wb, sh[k].name)))
			return opmfu_xbook_nomem(bk->b.path, err);
	for (k = 0; k < n; k++) {
		if (is_diff(&sh[k]))
			opmfu_sx_put_diff(bk, &sh[k]);
		else
			opmfu_sx_put_sheet(bk, &sh[k]);
	}
	for (k = 0; k < N_HOT; k++)
		hot[k] = sheet_named(sh, n, hot_sheets[k].sheet);
	if (ov)
		put_overview(bk, ov, sheet_named(sh, n, "Ranks"), hot);
	return OPMFU_OK;
}

/* The workbook of s for path, complete, under a temporary name (*tmp). */
static enum opmfu_status stage(const struct opmfu_summary *s, const char *path, char **tmp,
			       struct opmfu_write_stats *st, struct opmfu_err *err)
{
	struct opmfu_sx_sheet sh[MAX_SHEETS];
	struct opmfu_sx_book bk;
	enum opmfu_status e = OPMFU_OK;
	size_t n, k, cells = 0, m = opmfu_summary_rows(s, OPMFU_SUM_HOTSPOTS);
	uint32_t *hot = opmfu_calloc(m ? m : 1, sizeof(*hot));

	if (!hot)
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory", path);
	n = plan_sheets(s, sh, hot);
	for (k = 0; k < n; k++) {
		/* the Diff sheet's charts and their data go below its rows */
		size_t room = OPMFU_XLSX_MAX_ROWS - 1 - (is_diff(&sh[k]) ? OPMFU_SX_DIFF_EXTRA_ROWS : 0);
		if (sh[k].n_rows > room) {
			e = opmfu_err_set(err, OPMFU_ERR_LIMIT,
					  "%s: %zu rows do not fit in its %s sheet (at most %zu below the header); not "
					  "written: use --export db",
					  path, sh[k].n_rows, sh[k].name, room);
			goto out;
		}
		cells += sh[k].n_rows * sh[k].n_cols;
	}
	memset(&bk, 0, sizeof(bk));
	bk.s = s;
	bk.median_mfu = opmfu_sum_value(s, OPMFU_SUM_RUN, 0, "trace_mfu");
	if ((e = opmfu_xbook_open(&bk.b, path, cells > s->stream_cells, err)))
		goto out;
	if ((e = put_book(&bk, sh, n, err))) {
		opmfu_xbook_free(&bk.b);
		goto out;
	}
	e = opmfu_xbook_finish(&bk.b, st, tmp, err);
out:
	opmfu_free(hot);
	return e;
}

enum opmfu_status opmfu_summary_xlsx_save(const struct opmfu_summary *s, const char *dir,
					  struct opmfu_write_stats *st, struct opmfu_err *err)
{
	enum opmfu_status e;
	char *path, *tmp = NULL;

	if (!(path = opmfu_path_join(dir, OPMFU_SUMMARY_XLSX)))
		return opmfu_xbook_nomem(dir, err);
	if ((e = stage(s, path, &tmp, st, err)) == OPMFU_OK && opmfu_stage_rename(tmp, path) != 0) {
		e = opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot replace it: %s", path, strerror(errno));
		opmfu_stage_discard(tmp);
	}
	opmfu_free(tmp);
	opmfu_free(path);
	return e;
}

enum opmfu_status opmfu_summary_xlsx_write(const char *dir, const struct opmfu_summary_tables *t,
					   struct opmfu_write_stats *st, struct opmfu_err *err)
{
	const struct opmfu_table *tabs[6] = { t->ranks, t->steps, t->run, t->hotspots, t->stragglers, t->diff };
	struct opmfu_summary s;
	enum opmfu_status e = OPMFU_OK;
	size_t k;

	opmfu_summary_init(&s);
	for (k = 0; k < 6 && e == OPMFU_OK; k++)
		if (tabs[k])
			e = opmfu_summary_add(&s, tabs[k], err);
	if (e == OPMFU_OK && (e = opmfu_summary_keep(&s, err)) == OPMFU_OK)
		e = opmfu_summary_xlsx_save(&s, dir, st, err);
	opmfu_summary_release(&s);
	return e;
}
