/*
 * summary_sheet.h - what the summary workbook's files share (write/ only):
 * a sheet as a list of columns laid out from a table's rows (summary_xlsx.c),
 * the workbook's formats, and the chart helpers; the Diff sheet (summary_diff.c) is one more such sheet with its charts.
 */
#ifndef OPMFU_SUMMARY_SHEET_H
#define OPMFU_SUMMARY_SHEET_H

#include "write/summary.h"
#include "write/xlsx_book.h" /* and through it libxlsxwriter */

/* How a column shows its numbers. Times are in the tables as integer ns and
 * shown as ms (the value converted, so a cell holds what it shows); F_DELTA
 * is a change in ms, with its sign; F_SHARE a ratio as F_PCT, rounded to 12
 * decimal places (the diff's ratios of sums carry noise in the last bits);
 * F_DPCT a change of a ratio, with its sign. */
enum opmfu_sx_fmt { F_TEXT, F_INT, F_MS, F_PCT, F_TFLOPS, F_FLOPS, F_DELTA, F_SHARE, F_DPCT, N_FMT };

/* Where a column's value comes from: always a cell of the sheet's row. */
enum opmfu_sx_from {
	FROM_ROW, /* column src of the sheet's table row */
	/* trace MFU (src) against the median rank's (OpmfuRun.trace_mfu): the
	 * part up to it, the part above it, and how far short of it; NULL
	 * without either */
	RANK_UP_TO_MEDIAN, RANK_ABOVE_MEDIAN, RANK_SHORT_OF_MEDIAN,
	SHORT_PATH, /* the text src's last two names (a module path): a chart's label */
	SHORT_KERNEL, /* the text src as a kernel's short name (base/kname.h), at most OPMFU_SX_KNAME bytes */
};

/* the widest short kernel name of a sheet, bytes (SPEC 20) */
#define OPMFU_SX_KNAME 80

struct opmfu_sx_col {
	const char *title;
	enum opmfu_sx_fmt fmt;
	enum opmfu_sx_from from;
	const char *src;
};

#define OPMFU_SX_MAX_COLS 40
#define OPMFU_SX_HEAD_HEIGHT 30 /* two lines: long titles wrap instead of widening their column */
#define OPMFU_SX_TOP_N 20       /* bars in a chart of the largest (recoverable time, changes) */

/* One data sheet: rows of a table, all its kept rows in order or (idx) the
 * rows idx[0 .. n_rows) of it. */
struct opmfu_sx_sheet {
	const char *name;
	const struct opmfu_sx_col *cols;
	size_t n_cols, n_rows;
	const struct opmfu_cell_store *rows;
	const uint32_t *idx;
	int src[OPMFU_SX_MAX_COLS]; /* the source column, or -1 */
	lxw_worksheet *ws;
};

struct opmfu_sx_book {
	struct opmfu_xbook b;
	const struct opmfu_summary *s;
	double median_mfu; /* OpmfuRun.trace_mfu: the median rank's; NaN: none */
	lxw_format *head, *title, *fmt[N_FMT];
};

/* x as a cell of format f (ms converted from ns); NaN is null. */
struct opmfu_cell opmfu_sx_num(double x, enum opmfu_sx_fmt f);
/* A module path's last two names (Layer_3/Attention_3): a chart's label. */
struct opmfu_cell opmfu_sx_short_name(const char *s, size_t n);
/* Cell (r, c) of ws: v shown as f. */
void opmfu_sx_put(struct opmfu_sx_book *bk, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c,
		  const struct opmfu_cell *v, enum opmfu_sx_fmt f);
/* Resolves sh's source columns and writes it: header, widths, frozen
 * header, filter, page setup, rows. */
void opmfu_sx_put_sheet(struct opmfu_sx_book *bk, struct opmfu_sx_sheet *sh);

/* A chart with its title and the legend at the bottom; NULL (bk->b.oom) when
 * out of memory. */
lxw_chart *opmfu_sx_chart(struct opmfu_sx_book *bk, uint8_t type, const char *title);
/* Cells [r0, r1] x [c0, c1]: one row or one column. */
struct opmfu_sx_range {
	lxw_row_t r0, r1;
	lxw_col_t c0, c1;
};
/* A series of the cells val of sheet by the categories cat, named by the
 * cell (nr, nc), filled with color. */
void opmfu_sx_series(struct opmfu_sx_book *bk, lxw_chart *ch, const char *sheet, struct opmfu_sx_range cat,
		     struct opmfu_sx_range val, lxw_row_t nr, lxw_col_t nc, lxw_color_t color);

/* Horizontal bars of ms, n of them: the first row on top, the value axis
 * below, 960 pixels wide and 140 + 24 per bar high (into o). */
void opmfu_sx_hbars(lxw_chart *ch, size_t n, lxw_chart_options *o);

/*
 * The Diff sheet (summary_diff.c): OpmfuDiff's rows as sh lays them out,
 * then below them two charts, each with its data under it: the step time's
 * shares, BASE and NEW, and the largest changes in lost time.
 */
extern const struct opmfu_sx_col opmfu_sx_diff_cols[];
extern const size_t opmfu_sx_n_diff_cols;
/* Rows the Diff sheet takes below the table's at most. */
#define OPMFU_SX_DIFF_EXTRA_ROWS 100
void opmfu_sx_put_diff(struct opmfu_sx_book *bk, struct opmfu_sx_sheet *sh);

#endif
