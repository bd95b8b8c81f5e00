/*
 * summary_diff.c - the summary workbook's Diff sheet (`opmfu diff`, SPEC
 * 14): OpmfuDiff's rows in the table's order, laid out as every data sheet
 * is; below them, each at the top of its own printed page, a chart of the
 * step time's shares of BASE and NEW and one of the largest changes in lost
 * time, each followed by a small block of its data (a chart series is one
 * range of cells, and neither the step shares' labels nor the largest
 * changes, by size across module, op type and collective rows, are one
 * range of the table). The step_share row comm_wait (SPEC 19) is in the
 * table, not in the stacked chart: it is a part of comm_exposed.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/mem.h"
#include "base/sort.h"
#include "write/summary_sheet.h"

const struct opmfu_sx_col opmfu_sx_diff_cols[] = {
	{ "Kind", F_TEXT, FROM_ROW, "kind" },
	{ "Name", F_TEXT, FROM_ROW, "name" },
	{ "BASE time (ms)", F_MS, FROM_ROW, "base_kernel_ns" },
	{ "NEW time (ms)", F_MS, FROM_ROW, "new_kernel_ns" },
	{ "BASE FLOPs", F_FLOPS, FROM_ROW, "base_flops" },
	{ "NEW FLOPs", F_FLOPS, FROM_ROW, "new_flops" },
	{ "BASE MFU or share", F_SHARE, FROM_ROW, "base_mfu" },
	{ "NEW MFU or share", F_SHARE, FROM_ROW, "new_mfu" },
	{ "BASE lost (ms)", F_MS, FROM_ROW, "base_lost_ns" },
	{ "NEW lost (ms)", F_MS, FROM_ROW, "new_lost_ns" },
	{ "Change in lost (ms)", F_DELTA, FROM_ROW, "delta_lost_ns" },
};
const size_t opmfu_sx_n_diff_cols = sizeof(opmfu_sx_diff_cols) / sizeof(opmfu_sx_diff_cols[0]);

/* the columns read back for the charts */
enum { D_KIND = 0, D_NAME = 1, D_BASE_MFU = 6, D_NEW_MFU = 7, D_DELTA = 10 };

/* The step shares in the waterfall's order, named and coloured as the
 * Ranks sheet's waterfall shows them. */
static const struct {
	const char *name, *label;
	lxw_color_t color;
} parts[] = {
	{ "trace_mfu", "Trace MFU over all steps", 0x2E7D32 },
	{ "inefficiency", "FLOP kernels below peak", 0xF9A825 },
	{ "other_compute", "Busy without FLOPs", 0x8E7CC3 },
	{ "comm_exposed", "Exposed communication", 0x1F77B4 },
	{ "idle", "Idle", 0xBDBDBD },
};
#define N_PARTS (sizeof(parts) / sizeof(parts[0]))

/* The sheet being written below its table. */
struct diff_ctx {
	struct opmfu_sx_book *bk;
	struct opmfu_sx_sheet *sh;
	lxw_row_t row;         /* the next free row */
	lxw_row_t breaks[3];   /* page breaks, 0-terminated */
	size_t n_breaks;
};

static const struct opmfu_cell *cell(const struct opmfu_sx_sheet *sh, size_t i, int c)
{
	static const struct opmfu_cell null = { { .i = 0 }, 1 };
	if (sh->src[c] < 0)
		return &null;
	return &sh->rows->cells[i * sh->rows->def->n_cols + (size_t)sh->src[c]];
}

static int text_is(const struct opmfu_sx_sheet *sh, size_t i, int c, const char *s)
{
	const struct opmfu_cell *v = cell(sh, i, c);
	size_t n = strlen(s);
	return !v->null && sh->rows->def->cols[sh->src[c]].type == OPMFU_COL_TEXT && v->v.t.n == n &&
	       !memcmp(v->v.t.s, s, n);
}

static double num(const struct opmfu_sx_sheet *sh, size_t i, int c)
{
	return opmfu_cell_num(sh->rows->def, &sh->rows->cells[i * sh->rows->def->n_cols], sh->src[c]);
}

/*
 * A chart px pixels high at the top of a new printed page (the page starts
 * at the empty row above it), then its data: a title and a header row of
 * four columns. Returns the header's row; the data rows follow it, from
 * x->row; the chart goes at *chart_row (place_chart, once it has its
 * series). A chart is never cut by a page break (it is at most 620 px, less
 * than a landscape page); its data may go on to the next page.
 */
static lxw_row_t section(struct diff_ctx *x, unsigned px, const char *title, const char *const head[4],
			 lxw_row_t *chart_row)
{
	struct opmfu_sx_book *bk = x->bk;
	lxw_worksheet *ws = x->sh->ws;
	lxw_row_t t = x->row + 1 + (lxw_row_t)(px / 20) + 1; /* rows of 20 px, one empty */
	lxw_col_t c;

	x->breaks[x->n_breaks++] = x->row;
	*chart_row = x->row + 1;
	opmfu_xbook_cstr(&bk->b, ws, t, 0, title, bk->title);
	opmfu_xbook_note(&bk->b, LXW(worksheet_set_row)(ws, t + 1, OPMFU_SX_HEAD_HEIGHT, NULL), t + 1, 0);
	for (c = 0; c < 4; c++)
		opmfu_xbook_cstr(&bk->b, ws, t + 1, c, head[c], bk->head);
	x->row = t + 2;
	return t + 1;
}

/* ch, 960 x px pixels, at row r. */
static void place_chart(struct diff_ctx *x, lxw_chart *ch, lxw_row_t r, unsigned px)
{
	lxw_chart_options o;

	if (!ch)
		return;
	memset(&o, 0, sizeof(o));
	o.x_scale = 2;
	o.y_scale = px / 288.0;
	opmfu_xbook_note(&x->bk->b, LXW(worksheet_insert_chart_opt)(x->sh->ws, r, 0, ch, &o), r, 0);
}

/* Whether row i is a part of the stacked step time: a step_share row but
 * comm_wait, which is a part of comm_exposed (stacked, it would count twice). */
static int is_part(const struct opmfu_sx_sheet *sh, size_t i)
{
	return text_is(sh, i, D_KIND, "step_share") && !text_is(sh, i, D_NAME, "comm_wait");
}

/* The rows of sh that are parts of the step time. */
static size_t count_shares(const struct opmfu_sx_sheet *sh)
{
	size_t i, m = 0;
	for (i = 0; i < sh->n_rows; i++)
		m += is_part(sh, i);
	return m;
}

/* The step_share rows' shares, BASE and NEW: two 100 % stacked bars, BASE
 * on top. The chart's series refer to the rows written below it. */
static void step_shares(struct diff_ctx *x)
{
	static const char *const head[4] = { "Kind", "Part", "BASE", "NEW" };
	struct opmfu_sx_book *bk = x->bk;
	const struct opmfu_sx_sheet *sh = x->sh;
	lxw_chart *ch;
	lxw_row_t hr, r, at;
	size_t i, k;

	if (!count_shares(sh))
		return;
	if ((ch = opmfu_sx_chart(bk, LXW_CHART_BAR_STACKED_PERCENT, "Where the step time went, BASE and NEW"))) {
		LXW(chart_axis_set_reverse)(ch->y_axis);
		LXW(chart_axis_set_crossing_max)(ch->y_axis);
		LXW(chart_set_series_gap)(ch, 40);
	}
	hr = section(x, 240, "Where the step time went, BASE and NEW (the chart's data)", head, &at);
	for (i = 0; i < sh->n_rows; i++) {
		struct opmfu_cell label, a, b;
		lxw_color_t color = 0xBDBDBD;
		if (!is_part(sh, i))
			continue;
		r = x->row++;
		label = *cell(sh, i, D_NAME);
		for (k = 0; k < N_PARTS; k++)
			if (text_is(sh, i, D_NAME, parts[k].name)) {
				label = opmfu_cell_str(parts[k].label);
				color = parts[k].color;
			}
		a = opmfu_sx_num(num(sh, i, D_BASE_MFU), F_SHARE);
		b = opmfu_sx_num(num(sh, i, D_NEW_MFU), F_SHARE);
		opmfu_sx_put(bk, sh->ws, r, 0, cell(sh, i, D_KIND), F_TEXT);
		opmfu_sx_put(bk, sh->ws, r, 1, &label, F_TEXT);
		opmfu_sx_put(bk, sh->ws, r, 2, &a, F_SHARE);
		opmfu_sx_put(bk, sh->ws, r, 3, &b, F_SHARE);
		if (ch)
			opmfu_sx_series(bk, ch, sh->name, (struct opmfu_sx_range){ hr, hr, 2, 3 },
					(struct opmfu_sx_range){ r, r, 2, 3 }, r, 1, color);
	}
	place_chart(x, ch, at, 240);
}

struct by_size {
	const double *delta;
};

/* The larger change first; ties in the table's order (the sort is stable). */
static int larger(const void *ctx, uint32_t a, uint32_t b)
{
	const double *d = ((const struct by_size *)ctx)->delta;
	return fabs(d[a]) > fabs(d[b]);
}

/* The module, op_type and collective rows (a collective's lost time is its
 * exposed time) whose lost time changed, the largest changes first, into
 * *out (n_rows long) and their count into *n; -1: no memory. */
static int changes(const struct opmfu_sx_sheet *sh, uint32_t **out, double **delta, size_t *n)
{
	size_t i;
	struct by_size ctx;

	*n = 0;
	*out = opmfu_calloc(sh->n_rows + 1, sizeof(**out));
	*delta = opmfu_calloc(sh->n_rows + 1, sizeof(**delta));
	if (!*out || !*delta)
		return -1;
	for (i = 0; i < sh->n_rows; i++) {
		double d = num(sh, i, D_DELTA);
		(*delta)[i] = d;
		if ((text_is(sh, i, D_KIND, "module") || text_is(sh, i, D_KIND, "op_type") ||
		     text_is(sh, i, D_KIND, "collective")) &&
		    !isnan(d) && d != 0)
			(*out)[(*n)++] = (uint32_t)i;
	}
	ctx.delta = *delta;
	return opmfu_sort_idx(*out, *n, larger, &ctx);
}

/* The chart of the largest changes: an increase red, a decrease green, the
 * largest on top, names at the left edge (not at 0, where the decreases
 * start); its data in rows hr + 1 .. hr + top. */
static lxw_chart *changes_chart(struct opmfu_sx_book *bk, const char *sheet, lxw_row_t hr, size_t top, size_t n)
{
	char title[160];
	lxw_chart_options o;
	lxw_chart *ch;
	lxw_col_t k;

	snprintf(title, sizeof(title), "Largest changes in lost time, ms (top %zu of %zu)", top, n);
	if (!(ch = opmfu_sx_chart(bk, LXW_CHART_BAR_STACKED, title)))
		return NULL;
	for (k = 2; k < 4; k++)
		opmfu_sx_series(bk, ch, sheet, (struct opmfu_sx_range){ hr + 1, hr + (lxw_row_t)top, 1, 1 },
				(struct opmfu_sx_range){ hr + 1, hr + (lxw_row_t)top, k, k }, hr, k,
				k == 2 ? 0xC0504D : 0x2E7D32);
	opmfu_sx_hbars(ch, top, &o);
	LXW(chart_axis_set_label_position)(ch->y_axis, LXW_CHART_AXIS_LABEL_POSITION_LOW);
	return ch;
}

/* The largest changes in lost time over the module, op_type and collective rows. */
static void largest_changes(struct diff_ctx *x)
{
	static const char *const head[4] = { "Kind", "Name", "Increase (ms)", "Decrease (ms)" };
	struct opmfu_sx_book *bk = x->bk;
	const struct opmfu_sx_sheet *sh = x->sh;
	unsigned px;
	uint32_t *idx = NULL;
	double *delta = NULL;
	lxw_row_t hr, at;
	size_t n, k, top;

	if (changes(sh, &idx, &delta, &n) != 0) {
		bk->b.oom = 1;
		goto out;
	}
	if (!n)
		goto out;
	top = n < OPMFU_SX_TOP_N ? n : OPMFU_SX_TOP_N;
	px = (unsigned)(140 + 24 * top); /* opmfu_sx_hbars's height */
	hr = section(x, px, "Largest changes in lost time (the chart's data)", head, &at);
	place_chart(x, changes_chart(bk, sh->name, hr, top, n), at, px);
	for (k = 0; k < top; k++) {
		const struct opmfu_cell *name = cell(sh, idx[k], D_NAME);
		struct opmfu_cell label = *name, up, down;
		double d = delta[idx[k]];
		/* a path's last two names, as the Modules chart labels it */
		if (text_is(sh, idx[k], D_KIND, "module") && !name->null)
			label = opmfu_sx_short_name(name->v.t.s, name->v.t.n);
		up = opmfu_sx_num(d > 0 ? d : NAN, F_DELTA);
		down = opmfu_sx_num(d < 0 ? d : NAN, F_DELTA);
		opmfu_sx_put(bk, sh->ws, x->row, 0, cell(sh, idx[k], D_KIND), F_TEXT);
		opmfu_sx_put(bk, sh->ws, x->row, 1, &label, F_TEXT);
		opmfu_sx_put(bk, sh->ws, x->row, 2, &up, F_DELTA);
		opmfu_sx_put(bk, sh->ws, x->row, 3, &down, F_DELTA);
		x->row++;
	}
out:
	opmfu_free(idx);
	opmfu_free(delta);
}

void opmfu_sx_put_diff(struct opmfu_sx_book *bk, struct opmfu_sx_sheet *sh)
{
	struct diff_ctx x;

	opmfu_sx_put_sheet(bk, sh);
	memset(&x, 0, sizeof(x));
	x.bk = bk;
	x.sh = sh;
	x.row = (lxw_row_t)sh->n_rows + 1;
	step_shares(&x);
	largest_changes(&x);
	if (x.n_breaks)
		opmfu_xbook_note(&bk->b, LXW(worksheet_set_h_pagebreaks)(sh->ws, x.breaks), 0, 0);
}
