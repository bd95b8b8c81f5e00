/*
 * summary_xlsx.c - opmfu_summary.xlsx: the sheets (Overview, Ranks, Steps,
 * Modules, Op types) and their native charts, from what write/summary.c
 * gathered. Each sheet is a list of columns (a title, a number format, and
 * where the value comes from); widths are measured from the titles and the
 * values as shown, so nothing is cut and nothing is wider than it needs.
 */
#include "write/summary_xlsx.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "base/sbuf.h"
#include "write/summary_sheet.h"
#include "write/write_xlsx.h"

/* (F_SHARE's format is F_PCT's: libxlsxwriter gives both one style) */
static const char *const num_formats[N_FMT] = {
	NULL, "0", "#,##0.000", "0.00%", "0.00", "0.00E+00", "+#,##0.000;-#,##0.000;0.000", "0.00%",
};

#define TEXT_WIDTH_MAX 50

static const struct opmfu_sx_col rank_cols[] = {
	{ "Rank", F_INT, FROM_ROW, "rank_id" },
	{ "Status", F_TEXT, FROM_ROW, "status" },
	{ "Chip", F_TEXT, FROM_ROW, "chip_seen" },
	{ "Peak FP16 (TFLOPS)", F_TFLOPS, FROM_ROW, "peak_fp16_tflops" },
	{ "Trace MFU", F_PCT, FROM_ROW, "trace_mfu" },
	{ "MFU (time with FLOPs)", F_PCT, FROM_ROW, "mfu_recorded" },
	{ "MFU (compute time)", F_PCT, FROM_ROW, "mfu_busy" },
	{ "FLOPs coverage", F_PCT, FROM_ROW, "flops_coverage" },
	{ "Steps", F_INT, RANK_STEPS, NULL },
	{ "Median step (ms)", F_MS, RANK_STEP_NS, NULL },
	{ "Waterfall step", F_INT, FROM_STEP, "step" },
	{ "Step MFU", F_PCT, FROM_STEP, "trace_mfu" },
	{ "Inefficiency", F_PCT, FROM_STEP, "share_inefficiency" },
	{ "Other compute", F_PCT, FROM_STEP, "share_other_compute" },
	{ "Exposed comm", F_PCT, FROM_STEP, "share_comm" },
	{ "Idle", F_PCT, FROM_STEP, "share_idle" },
	{ "Up to median", F_PCT, RANK_UP_TO_MEDIAN, "trace_mfu" },
	{ "Above median", F_PCT, RANK_ABOVE_MEDIAN, "trace_mfu" },
	{ "Short of median", F_PCT, RANK_SHORT_OF_MEDIAN, "trace_mfu" },
	{ "Reason", F_TEXT, FROM_ROW, "reason" },
};
/* the Ranks columns the charts read */
enum { RK_RANK = 0, RK_WATERFALL = 11, RK_MEDIAN = 16 };

static const struct opmfu_sx_col step_cols[] = {
	{ "Rank", F_INT, FROM_ROW, "rank_id" },
	{ "Step", F_INT, FROM_ROW, "step" },
	{ "Step time (ms)", F_MS, FROM_ROW, "window_ns" },
	{ "FLOP compute (ms)", F_MS, FROM_ROW, "flops_ns" },
	{ "Other compute (ms)", F_MS, FROM_ROW, "other_compute_ns" },
	{ "Exposed comm (ms)", F_MS, FROM_ROW, "comm_exposed_ns" },
	{ "Overlapped comm (ms)", F_MS, FROM_ROW, "comm_overlapped_ns" },
	{ "Idle (ms)", F_MS, FROM_ROW, "idle_ns" },
	{ "FLOPs", F_FLOPS, FROM_ROW, "flops" },
	{ "Peak (TFLOPS)", F_TFLOPS, FROM_ROW, "peak_tflops" },
	{ "Trace MFU", F_PCT, FROM_ROW, "trace_mfu" },
	{ "Inefficiency", F_PCT, FROM_ROW, "share_inefficiency" },
	{ "Other compute", F_PCT, FROM_ROW, "share_other_compute" },
	{ "Exposed comm", F_PCT, FROM_ROW, "share_comm" },
	{ "Idle", F_PCT, FROM_ROW, "share_idle" },
};

static const struct opmfu_sx_col module_cols[] = {
	{ "Module", F_TEXT, G_NAME, NULL },
	{ "Depth", F_INT, G_DEPTH, NULL },
	{ "Ranks", F_INT, G_RANKS, NULL },
	{ "Calls", F_INT, G_COUNT, NULL },
	{ "Kernel time (ms)", F_MS, G_KERNEL, NULL },
	{ "Time with FLOPs (ms)", F_MS, G_FLOPS_KERNEL, NULL },
	{ "FLOPs", F_FLOPS, G_FLOPS, NULL },
	{ "MFU", F_PCT, G_MFU, NULL },
	{ "Lost (ms)", F_MS, G_LOST, NULL },
	{ "Own lost (ms)", F_MS, G_OWN_LOST, NULL },
	{ "In sub-modules (ms)", F_MS, G_SUB_LOST, NULL },
	{ "Lost per rank (ms)", F_MS, G_LOST_PER_RANK, NULL },
	{ "Worst rank", F_INT, G_WORST_RANK, NULL },
	{ "Worst rank lost (ms)", F_MS, G_WORST_LOST, NULL },
	{ "Short name", F_TEXT, G_SHORT_NAME, NULL },
};

static const struct opmfu_sx_col op_cols[] = {
	{ "Op", F_TEXT, G_NAME, NULL },
	{ "Ranks", F_INT, G_RANKS, NULL },
	{ "Ops", F_INT, G_COUNT, NULL },
	{ "Kernel time (ms)", F_MS, G_KERNEL, NULL },
	{ "Time with FLOPs (ms)", F_MS, G_FLOPS_KERNEL, NULL },
	{ "FLOPs", F_FLOPS, G_FLOPS, NULL },
	{ "MFU", F_PCT, G_MFU, NULL },
	{ "Lost (ms)", F_MS, G_LOST, NULL },
	{ "Lost per rank (ms)", F_MS, G_LOST_PER_RANK, NULL },
	{ "Worst rank", F_INT, G_WORST_RANK, NULL },
	{ "Worst rank lost (ms)", F_MS, G_WORST_LOST, NULL },
};

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
	return opmfu_sx_num(opmfu_sum_num(def, row, col), f);
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

static struct opmfu_cell group_cell(const struct opmfu_sum_group *g, const struct opmfu_sum_row *r,
				    enum opmfu_sx_from from, enum opmfu_sx_fmt f)
{
	double x = NAN;

	switch (from) {
	case G_NAME:
		return opmfu_cell_text(opmfu_intern_str(&g->names, r->name), opmfu_intern_len(&g->names, r->name));
	case G_SHORT_NAME:
		return opmfu_sx_short_name(opmfu_intern_str(&g->names, r->name), opmfu_intern_len(&g->names, r->name));
	case G_DEPTH: x = r->depth; break;
	case G_RANKS: x = r->ranks; break;
	case G_COUNT: x = r->count; break;
	case G_KERNEL: x = r->kernel_ns; break;
	case G_FLOPS_KERNEL: x = r->flops_kernel_ns; break;
	case G_FLOPS: x = r->flops; break;
	/* time-weighted: sum of mfu x time over sum of time, the FLOPs over the
	 * time at peak when every rank has the same peak */
	case G_MFU: x = r->mfu_base_ns > 0 ? r->mfu_ns / r->mfu_base_ns : NAN; break;
	case G_LOST: x = r->lost_ns; break;
	case G_OWN_LOST: x = r->own_lost_ns; break;
	case G_SUB_LOST: x = r->lost_ns - r->own_lost_ns; break;
	case G_LOST_PER_RANK: x = r->ranks ? r->lost_ns / r->ranks : NAN; break;
	case G_WORST_RANK: x = r->worst_rank; break;
	case G_WORST_LOST: x = r->worst_lost_ns; break;
	default: break;
	}
	return opmfu_sx_num(x, f);
}

static struct opmfu_cell against_median(enum opmfu_sx_from from, double mfu, double median)
{
	if (isnan(mfu))
		return opmfu_cell_null();
	if (from == RANK_UP_TO_MEDIAN)
		return opmfu_cell_real(mfu < median ? mfu : median);
	if (from == RANK_ABOVE_MEDIAN)
		return opmfu_cell_real(mfu > median ? mfu - median : 0);
	return opmfu_cell_real(mfu < median ? median - mfu : 0);
}

/* Row i (below the header), column c of sheet sh. */
static struct opmfu_cell sheet_cell(const struct opmfu_sx_book *bk, const struct opmfu_sx_sheet *sh, size_t i, size_t c)
{
	const struct opmfu_sx_col *col = &sh->cols[c];
	const struct opmfu_sum_view *v = bk->v;
	const struct opmfu_cell_store *steps = &v->s->steps;
	const struct opmfu_cell *row;

	if (sh->g)
		return group_cell(sh->g, &sh->g->v[sh->order[i]], col->from, col->fmt);
	row = sh->rows->cells + i * sh->rows->def->n_cols;
	switch (col->from) {
	case FROM_ROW:
		return from_cells(sh->rows->def, row, sh->src[c], col->fmt);
	case FROM_STEP:
		if (v->median_step[i] == SIZE_MAX)
			return opmfu_cell_null();
		return from_cells(steps->def, steps->cells + v->median_step[i] * steps->def->n_cols, sh->src[c],
				  col->fmt);
	case RANK_STEPS: /* none known without a steps table */
		return steps->def ? opmfu_sx_num(v->step_count[i], F_INT) : opmfu_cell_null();
	case RANK_STEP_NS:
		return opmfu_sx_num(opmfu_sum_step_ns(v, i), F_MS);
	case RANK_UP_TO_MEDIAN:
	case RANK_ABOVE_MEDIAN:
	case RANK_SHORT_OF_MEDIAN:
		return against_median(col->from, opmfu_sum_num(sh->rows->def, row, sh->src[c]), v->mfu_median);
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
			struct opmfu_cell v = sheet_cell(bk, sh, i, c);
			double need = shown_chars(&v, sh->cols[c].fmt) + 2;
			w = need > w ? need : w;
		}
		w = w > cap ? cap : w;
		opmfu_xbook_note(&bk->b, worksheet_set_column(sh->ws, (lxw_col_t)c, (lxw_col_t)c, w, NULL), 0,
				 (lxw_col_t)c);
	}
}

/* ---- sheets ---- */

void opmfu_sx_put(struct opmfu_sx_book *bk, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, const struct opmfu_cell *v,
		      enum opmfu_sx_fmt f)
{
	if (v->null)
		opmfu_xbook_str(&bk->b, ws, r, c, NULL, 0, bk->fmt[f]);
	else if (f == F_TEXT)
		opmfu_xbook_str(&bk->b, ws, r, c, v->v.t.s, v->v.t.n, bk->fmt[f]);
	else
		opmfu_xbook_num(&bk->b, ws, r, c, v->v.r, bk->fmt[f]);
}

/* Resolves sh's source columns and writes it: header, widths, frozen
 * header, filter, page setup, rows. */
void opmfu_sx_put_sheet(struct opmfu_sx_book *bk, struct opmfu_sx_sheet *sh)
{
	const struct opmfu_table_def *steps = bk->v->s->steps.def;
	size_t c, i;

	bk->b.sheet = sh->name;
	for (c = 0; c < sh->n_cols; c++) {
		const struct opmfu_sx_col *col = &sh->cols[c];
		int in_row = col->from == FROM_ROW ||
			     (col->from >= RANK_UP_TO_MEDIAN && col->from <= RANK_SHORT_OF_MEDIAN);
		sh->src[c] = in_row ? opmfu_sum_col(sh->rows->def, col->src)
			     : col->from == FROM_STEP ? opmfu_sum_col(steps, col->src) : -1;
	}
	set_widths(bk, sh);
	opmfu_xbook_note(&bk->b, worksheet_set_row(sh->ws, 0, OPMFU_SX_HEAD_HEIGHT, NULL), 0, 0);
	worksheet_freeze_panes(sh->ws, 1, 0);
	opmfu_xbook_note(&bk->b, worksheet_autofilter(sh->ws, 0, 0, (lxw_row_t)sh->n_rows, (lxw_col_t)(sh->n_cols - 1)),
			 0, 0);
	opmfu_xbook_print_setup(&bk->b, sh->ws, 1);
	for (c = 0; c < sh->n_cols; c++)
		opmfu_xbook_cstr(&bk->b, sh->ws, 0, (lxw_col_t)c, sh->cols[c].title, bk->head);
	for (i = 0; i < sh->n_rows && !bk->b.lerr; i++)
		for (c = 0; c < sh->n_cols; c++) {
			struct opmfu_cell v = sheet_cell(bk, sh, i, c);
			opmfu_sx_put(bk, sh->ws, (lxw_row_t)i + 1, (lxw_col_t)c, &v, sh->cols[c].fmt);
		}
}

/* The column of sh that shows from, or n_cols. */
static size_t col_of(const struct opmfu_sx_sheet *sh, enum opmfu_sx_from from)
{
	size_t c;
	for (c = 0; c < sh->n_cols && sh->cols[c].from != from; c++)
		;
	return c;
}

/* ---- charts ---- */

/* (libxlsxwriter copies the title) */
lxw_chart *opmfu_sx_chart(struct opmfu_sx_book *bk, uint8_t type, const char *title)
{
	lxw_chart *ch = workbook_add_chart(bk->b.wb, type);
	if (!ch) {
		bk->b.oom = 1;
		return NULL;
	}
	chart_title_set_name(ch, title);
	chart_legend_set_position(ch, LXW_CHART_LEGEND_BOTTOM);
	return ch;
}

void opmfu_sx_series(struct opmfu_sx_book *bk, lxw_chart *ch, const char *sheet, struct opmfu_sx_range cat,
		     struct opmfu_sx_range val, lxw_row_t nr, lxw_col_t nc, lxw_color_t color)
{
	lxw_chart_series *s = chart_add_series(ch, NULL, NULL);
	lxw_chart_fill fill;

	if (!s) {
		bk->b.oom = 1;
		return;
	}
	memset(&fill, 0, sizeof(fill));
	fill.color = color;
	chart_series_set_categories(s, sheet, cat.r0, cat.c0, cat.r1, cat.c1);
	chart_series_set_values(s, sheet, val.r0, val.c0, val.r1, val.c1);
	chart_series_set_name_range(s, sheet, nr, nc);
	chart_series_set_fill(s, &fill);
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
	chart_set_series_gap(ch, n <= 64 ? 40 : 0);
	if (n > 40)
		chart_axis_set_interval_unit(ch->x_axis, (uint16_t)((n + 39) / 40));
	chart_axis_set_name(ch->x_axis, "Rank");
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
 * Trace MFU per rank against the cluster's median: each rank's column is its
 * MFU up to the median (green) plus what lies above it (light green), or
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
	snprintf(title, sizeof(title), "Trace MFU per rank against the median (%.2f%%)",
		 floor(bk->v->mfu_median * 10000 + 0.5) / 100);
	if (!(ch = opmfu_sx_chart(bk, LXW_CHART_COLUMN_STACKED, title)))
		return NULL;
	for (k = 0; k < 3; k++)
		add_series(bk, ch, ranks, RK_RANK, RK_MEDIAN + k, ranks->n_rows, colors[k]);
	/* a trace MFU can be a fraction of a percent (a short inference trace) */
	chart_axis_set_num_format(ch->y_axis, "0.0##%");
	chart_axis_set_min(ch->y_axis, 0); /* from 0, or small differences look large */
	per_rank_layout(ch, ranks->n_rows, o);
	return ch;
}

void opmfu_sx_hbars(lxw_chart *ch, size_t n, lxw_chart_options *o)
{
	chart_set_series_gap(ch, 40);
	/* in a bar chart x_axis is the vertical axis, the categories': reversed,
	 * the first row is on top */
	chart_axis_set_reverse(ch->y_axis);
	/* and the value axis stays at the bottom */
	chart_axis_set_crossing_max(ch->y_axis);
	/* ms, often below 1 on short traces: up to three decimals, as needed */
	chart_axis_set_num_format(ch->x_axis, "#,##0.0##");
	memset(o, 0, sizeof(*o));
	o->x_scale = 2;
	o->y_scale = (double)(140 + 24 * n) / 288;
}

/* Lost time of the first (most lost) rows of a Modules or Op types sheet,
 * one horizontal bar each, the most lost on top, labelled by the short name
 * where the sheet has one; modules split into the time lost directly under
 * the path and in its sub-modules. */
static lxw_chart *lost_chart(struct opmfu_sx_book *bk, const struct opmfu_sx_sheet *sh, lxw_chart_options *o)
{
	size_t n = sh->n_rows < OPMFU_SX_TOP_N ? sh->n_rows : OPMFU_SX_TOP_N, own = col_of(sh, G_OWN_LOST);
	size_t label = col_of(sh, G_SHORT_NAME) < sh->n_cols ? col_of(sh, G_SHORT_NAME) : 0;
	int split = own < sh->n_cols && !isnan(sh->g->v[sh->order[0]].own_lost_ns);
	char title[160];
	lxw_chart *ch;

	snprintf(title, sizeof(title), "Lost time by %s, ms (top %zu of %zu)",
		 sh->g == &bk->v->s->modules ? "module" : "op type", n, sh->n_rows);
	if (!(ch = opmfu_sx_chart(bk, split ? LXW_CHART_BAR_STACKED : LXW_CHART_BAR, title)))
		return NULL;
	if (split) {
		add_series(bk, ch, sh, label, own, n, 0xC0504D);
		add_series(bk, ch, sh, label, col_of(sh, G_SUB_LOST), n, 0xF2B8B6);
	} else {
		add_series(bk, ch, sh, label, col_of(sh, G_LOST), n, 0xC0504D);
		chart_legend_set_position(ch, LXW_CHART_LEGEND_NONE);
	}
	opmfu_sx_hbars(ch, n, o);
	return ch;
}

/* ---- the overview ---- */

/* Ranks whose status is word. */
static double count_status(const struct opmfu_summary *s, size_t n, const char *word)
{
	int c = opmfu_sum_col(s->ranks.def, "status");
	size_t i, k = 0, len = strlen(word);
	for (i = 0; c >= 0 && i < n; i++) {
		const struct opmfu_cell *v = &s->ranks.cells[i * s->ranks.def->n_cols + (size_t)c];
		k += !v->null && v->v.t.n == len && !memcmp(v->v.t.s, word, len);
	}
	return (double)k;
}

struct key_row {
	const char *label;
	double value;
	enum opmfu_sx_fmt fmt;
	double rank;
};

/* The cluster in a few numbers (SPEC 11: median and worst rank), in
 * A3:C10; the charts below it, one to a printed page. */
static void put_overview(struct opmfu_sx_book *bk, lxw_worksheet *ws, const struct opmfu_sx_sheet *ranks,
			 const struct opmfu_sx_sheet *mods, const struct opmfu_sx_sheet *ops)
{
	const struct opmfu_sum_view *v = bk->v;
	const struct key_row keys[] = {
		{ "Ranks", (double)v->n_ranks, F_INT, NAN },
		{ "Ranks failed", count_status(v->s, v->n_ranks, "failed"), F_INT, NAN },
		{ "Ranks without an MFU", count_status(v->s, v->n_ranks, "no_mfu"), F_INT, NAN },
		{ "Median trace MFU", v->mfu_median, F_PCT, NAN },
		{ "Lowest trace MFU", v->mfu_low, F_PCT, v->mfu_low_rank },
		{ "Median step time (ms)", v->step_median_ns, F_MS, NAN },
		{ "Longest median step (ms)", v->step_high_ns, F_MS, v->step_high_rank },
	};
	static const char *const head[] = { "Cluster", "Value", "Rank" };
	lxw_row_t row = (lxw_row_t)N_OF(keys) + 4, breaks[5] = { 0 };
	lxw_chart *ch[4] = { NULL };
	lxw_chart_options o[4];
	size_t k, n = 0;

	bk->b.sheet = "Overview";
	opmfu_xbook_note(&bk->b, worksheet_set_column(ws, 0, 0, 28, NULL), 0, 0);
	opmfu_xbook_note(&bk->b, worksheet_set_column(ws, 1, 2, 12, NULL), 0, 1);
	opmfu_xbook_print_setup(&bk->b, ws, 0);
	opmfu_xbook_cstr(&bk->b, ws, 0, 0, "opmfu summary", bk->title);
	for (k = 0; k < 3; k++)
		opmfu_xbook_cstr(&bk->b, ws, 2, (lxw_col_t)k, head[k], bk->head);
	for (k = 0; k < N_OF(keys); k++) {
		struct opmfu_cell val = opmfu_sx_num(keys[k].value, keys[k].fmt);
		struct opmfu_cell rank = opmfu_sx_num(keys[k].rank, F_INT);
		opmfu_xbook_cstr(&bk->b, ws, (lxw_row_t)k + 3, 0, keys[k].label, bk->fmt[F_TEXT]);
		opmfu_sx_put(bk, ws, (lxw_row_t)k + 3, 1, &val, keys[k].fmt);
		opmfu_sx_put(bk, ws, (lxw_row_t)k + 3, 2, &rank, F_INT);
	}
	if (ranks && ranks->n_rows && v->n_steps)
		ch[n] = waterfall_chart(bk, ranks, &o[n]), n++;
	if (ranks && ranks->n_rows && !isnan(v->mfu_median))
		ch[n] = mfu_chart(bk, ranks, &o[n]), n++;
	if (mods && mods->n_rows)
		ch[n] = lost_chart(bk, mods, &o[n]), n++;
	if (ops && ops->n_rows)
		ch[n] = lost_chart(bk, ops, &o[n]), n++;
	for (k = 0; k < n && ch[k]; k++) {
		if (k) /* the page starts at the empty row above the chart */
			breaks[k - 1] = row - 1;
		opmfu_xbook_note(&bk->b, worksheet_insert_chart_opt(ws, row, 0, ch[k], &o[k]), row, 0);
		/* rows of 20 pixels, and one between charts */
		row += (lxw_row_t)(288 * o[k].y_scale / 20) + 2;
	}
	if (breaks[0])
		opmfu_xbook_note(&bk->b, worksheet_set_h_pagebreaks(ws, breaks), 0, 0);
}

/* ---- the workbook ---- */

static int add_formats(struct opmfu_sx_book *bk)
{
	size_t f;
	if (!(bk->head = opmfu_xbook_format(&bk->b)) || !(bk->title = opmfu_xbook_format(&bk->b)))
		return -1;
	format_set_bold(bk->head);
	format_set_pattern(bk->head, LXW_PATTERN_SOLID);
	format_set_bg_color(bk->head, 0xAFEEEE);
	format_set_border(bk->head, LXW_BORDER_THIN);
	format_set_text_wrap(bk->head);
	format_set_align(bk->head, LXW_ALIGN_VERTICAL_CENTER);
	format_set_bold(bk->title);
	format_set_font_size(bk->title, 14);
	/* numbered in this order (head 1, title 2, then by enum opmfu_sx_fmt), whichever
	 * is used first and whether rows are streamed or not: libxlsxwriter
	 * numbers a format, by its properties, when it first needs the number */
	lxw_format_get_xf_index(bk->head);
	lxw_format_get_xf_index(bk->title);
	for (f = 0; f < N_FMT; f++) {
		if (!(bk->fmt[f] = opmfu_xbook_format(&bk->b)))
			return -1;
		format_set_border(bk->fmt[f], LXW_BORDER_THIN);
		format_set_border_color(bk->fmt[f], 0xBFBFBF);
		if (num_formats[f])
			format_set_num_format(bk->fmt[f], num_formats[f]);
		lxw_format_get_xf_index(bk->fmt[f]);
	}
	return 0;
}

/* The data sheets of what s holds, in sh (room for MAX_SHEETS), the Diff
 * first: a diff's workbook opens on it; their count. */
#define MAX_SHEETS 5
static size_t plan_sheets(const struct opmfu_sum_view *v, struct opmfu_sx_sheet *sh)
{
	const struct opmfu_summary *s = v->s;
	size_t n = 0;

	memset(sh, 0, MAX_SHEETS * sizeof(*sh));
	if (s->diff.def)
		sh[n++] = (struct opmfu_sx_sheet){ "Diff", opmfu_sx_diff_cols, opmfu_sx_n_diff_cols, s->diff_kept,
						   &s->diff, NULL, NULL, { 0 }, NULL };
	if (s->ranks.def)
		sh[n++] = (struct opmfu_sx_sheet){ "Ranks", rank_cols, N_OF(rank_cols), v->n_ranks, &s->ranks, NULL,
						   NULL, { 0 }, NULL };
	if (s->steps.def)
		sh[n++] = (struct opmfu_sx_sheet){ "Steps", step_cols, N_OF(step_cols), v->n_steps, &s->steps, NULL,
						   NULL, { 0 }, NULL };
	if (s->modules.def)
		sh[n++] = (struct opmfu_sx_sheet){ "Modules", module_cols, N_OF(module_cols), s->modules.n, NULL,
						   &s->modules, v->mod_order, { 0 }, NULL };
	if (s->op_types.def)
		sh[n++] = (struct opmfu_sx_sheet){ "Op types", op_cols, N_OF(op_cols), s->op_types.n, NULL,
						   &s->op_types, v->op_order, { 0 }, NULL };
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
	lxw_worksheet *ov = NULL;
	size_t k;

	if (add_formats(bk) != 0)
		return opmfu_xbook_nomem(bk->b.path, err);
	for (k = 0; k < n; k++) {
		if (!is_diff(&sh[k]) && !ov && !(ov = workbook_add_worksheet(bk->b.wb, "Overview")))
			return opmfu_xbook_nomem(bk->b.path, err);
		if (!(sh[k].ws = workbook_add_worksheet(bk->b.wb, sh[k].name)))
			return opmfu_xbook_nomem(bk->b.path, err);
	}
	if (!n && !(ov = workbook_add_worksheet(bk->b.wb, "Overview")))
		return opmfu_xbook_nomem(bk->b.path, err);
	for (k = 0; k < n; k++) {
		if (is_diff(&sh[k]))
			opmfu_sx_put_diff(bk, &sh[k]);
		else
			opmfu_sx_put_sheet(bk, &sh[k]);
	}
	if (ov)
		put_overview(bk, ov, sheet_named(sh, n, "Ranks"), sheet_named(sh, n, "Modules"),
			     sheet_named(sh, n, "Op types"));
	return OPMFU_OK;
}

/* The workbook of s for path, complete, under a temporary name (*tmp). */
static enum opmfu_status stage(const struct opmfu_summary *s, const char *path, char **tmp,
			       struct opmfu_write_stats *st, struct opmfu_err *err)
{
	struct opmfu_sum_view v;
	struct opmfu_sx_sheet sh[MAX_SHEETS];
	struct opmfu_sx_book bk;
	enum opmfu_status e;
	size_t n, k, cells = 0;

	if ((e = opmfu_sum_view_build(&v, s, err)))
		return e;
	n = plan_sheets(&v, sh);
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
	bk.v = &v;
	if ((e = opmfu_xbook_open(&bk.b, path, cells > s->stream_cells, err)))
		goto out;
	if ((e = put_book(&bk, sh, n, err))) {
		opmfu_xbook_free(&bk.b);
		goto out;
	}
	e = opmfu_xbook_finish(&bk.b, st, tmp, err);
out:
	opmfu_sum_view_release(&v);
	return e;
}

enum opmfu_status opmfu_summary_xlsx_save(const struct opmfu_summary *s, const char *dir,
					  struct opmfu_write_stats *st, struct opmfu_err *err)
{
	enum opmfu_status e;
	char *path, *tmp = NULL;

	if (!(path = opmfu_path_join(dir, OPMFU_SUMMARY_XLSX)))
		return opmfu_xbook_nomem(dir, err);
	if ((e = stage(s, path, &tmp, st, err)) == OPMFU_OK && rename(tmp, path) != 0) {
		e = opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot replace it: %s", path, strerror(errno));
		unlink(tmp);
	}
	opmfu_free(tmp);
	opmfu_free(path);
	return e;
}

enum opmfu_status opmfu_summary_xlsx_write(const char *dir, const struct opmfu_summary_tables *t,
					   struct opmfu_write_stats *st, struct opmfu_err *err)
{
	const struct opmfu_table *tabs[5] = { t->ranks, t->steps, t->modules, t->op_types, t->diff };
	struct opmfu_summary s;
	enum opmfu_status e = OPMFU_OK;
	size_t k;

	opmfu_summary_init(&s);
	for (k = 0; k < 5 && e == OPMFU_OK; k++)
		if (tabs[k])
			e = opmfu_summary_add(&s, tabs[k], err);
	if (e == OPMFU_OK && (e = opmfu_summary_keep(&s, err)) == OPMFU_OK)
		e = opmfu_summary_xlsx_save(&s, dir, st, err);
	opmfu_summary_release(&s);
	return e;
}
