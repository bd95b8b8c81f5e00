/*
 * xlsx_book.h - what the two workbook writers share (write_xlsx.c: the
 * reference-format workbooks; summary_xlsx.c: opmfu_summary.xlsx): a
 * workbook written under a temporary name beside its final one, cells that
 * are always what they say (a text never becomes a formula; bytes Excel
 * cannot hold repaired and counted; NaN an empty cell), the first
 * libxlsxwriter error kept with the cell it happened at, and the page setup
 * every sheet gets.
 */
#ifndef OPMFU_XLSX_BOOK_H
#define OPMFU_XLSX_BOOK_H

#include <stdint.h>
#include <xlsxwriter.h>

#include "base/err.h"
#include "base/sbuf.h"
#include "write/writer.h"

/*
 * libxlsxwriter is loaded (dlopen) by the first workbook opened, not linked:
 * a run that writes none maps neither it nor the libcrypto it pulls in
 * (1.85 MB of resident memory and their relocations at every start;
 * docs/architecture.md, "Workbooks"). Its functions are called through
 * LXW(name), the table below; xlsx_book.c checks each entry's type against
 * the header's declaration at compile time.
 */
#define OPMFU_LXW_FUNCS(X)  \
	X(lxw_chart_series *, chart_add_series, (lxw_chart *, const char *, const char *)) \
	X(void, chart_axis_set_crossing_max, (lxw_chart_axis *)) \
	X(void, chart_axis_set_interval_unit, (lxw_chart_axis *, uint16_t)) \
	X(void, chart_axis_set_label_position, (lxw_chart_axis *, uint8_t)) \
	X(void, chart_axis_set_log_base, (lxw_chart_axis *, uint16_t)) \
	X(void, chart_axis_set_min, (lxw_chart_axis *, double)) \
	X(void, chart_axis_set_name, (lxw_chart_axis *, const char *)) \
	X(void, chart_axis_set_num_format, (lxw_chart_axis *, const char *)) \
	X(void, chart_axis_set_reverse, (lxw_chart_axis *)) \
	X(void, chart_legend_set_position, (lxw_chart *, uint8_t)) \
	X(void, chart_series_set_categories, (lxw_chart_series *, const char *, lxw_row_t, lxw_col_t, lxw_row_t, lxw_col_t)) \
	X(void, chart_series_set_fill, (lxw_chart_series *, lxw_chart_fill *)) \
	X(void, chart_series_set_line, (lxw_chart_series *, lxw_chart_line *)) \
	X(void, chart_series_set_marker_type, (lxw_chart_series *, uint8_t)) \
	X(void, chart_series_set_name_range, (lxw_chart_series *, const char *, lxw_row_t, lxw_col_t)) \
	X(void, chart_series_set_values, (lxw_chart_series *, const char *, lxw_row_t, lxw_col_t, lxw_row_t, lxw_col_t)) \
	X(void, chart_set_series_gap, (lxw_chart *, uint16_t)) \
	X(void, chart_title_set_name, (lxw_chart *, const char *)) \
	X(void, format_set_align, (lxw_format *, uint8_t)) \
	X(void, format_set_bg_color, (lxw_format *, lxw_color_t)) \
	X(void, format_set_bold, (lxw_format *)) \
	X(void, format_set_border, (lxw_format *, uint8_t)) \
	X(void, format_set_border_color, (lxw_format *, lxw_color_t)) \
	X(void, format_set_font_color, (lxw_format *, lxw_color_t)) \
	X(void, format_set_font_name, (lxw_format *, const char *)) \
	X(void, format_set_font_size, (lxw_format *, double)) \
	X(void, format_set_num_format, (lxw_format *, const char *)) \
	X(void, format_set_pattern, (lxw_format *, uint8_t)) \
	X(void, format_set_text_wrap, (lxw_format *)) \
	X(int32_t, lxw_format_get_xf_index, (lxw_format *)) \
	X(void, lxw_rowcol_to_cell, (char *, lxw_row_t, lxw_col_t)) \
	X(void, lxw_rowcol_to_range, (char *, lxw_row_t, lxw_col_t, lxw_row_t, lxw_col_t)) \
	X(char *, lxw_strerror, (lxw_error)) \
	X(void, lxw_workbook_free, (lxw_workbook *)) \
	X(lxw_chart *, workbook_add_chart, (lxw_workbook *, uint8_t)) \
	X(lxw_format *, workbook_add_format, (lxw_workbook *)) \
	X(lxw_worksheet *, workbook_add_worksheet, (lxw_workbook *, const char *)) \
	X(lxw_error, workbook_close, (lxw_workbook *)) \
	X(lxw_workbook *, workbook_new_opt, (const char *, lxw_workbook_options *)) \
	X(lxw_error, worksheet_autofilter, (lxw_worksheet *, lxw_row_t, lxw_col_t, lxw_row_t, lxw_col_t)) \
	X(lxw_error, worksheet_conditional_format_range, (lxw_worksheet *, lxw_row_t, lxw_col_t, lxw_row_t, lxw_col_t, lxw_conditional_format *)) \
	X(void, worksheet_fit_to_pages, (lxw_worksheet *, uint16_t, uint16_t)) \
	X(void, worksheet_freeze_panes, (lxw_worksheet *, lxw_row_t, lxw_col_t)) \
	X(lxw_error, worksheet_ignore_errors, (lxw_worksheet *, uint8_t, const char *)) \
	X(lxw_error, worksheet_insert_chart_opt, (lxw_worksheet *, lxw_row_t, lxw_col_t, lxw_chart *, lxw_chart_options *)) \
	X(lxw_error, worksheet_merge_range, (lxw_worksheet *, lxw_row_t, lxw_col_t, lxw_row_t, lxw_col_t, const char *, lxw_format *)) \
	X(lxw_error, worksheet_repeat_rows, (lxw_worksheet *, lxw_row_t, lxw_row_t)) \
	X(lxw_error, worksheet_set_column, (lxw_worksheet *, lxw_col_t, lxw_col_t, double, lxw_format *)) \
	X(lxw_error, worksheet_set_h_pagebreaks, (lxw_worksheet *, lxw_row_t *)) \
	X(void, worksheet_set_landscape, (lxw_worksheet *)) \
	X(lxw_error, worksheet_set_row, (lxw_worksheet *, lxw_row_t, double, lxw_format *)) \
	X(lxw_error, worksheet_write_blank, (lxw_worksheet *, lxw_row_t, lxw_col_t, lxw_format *)) \
	X(lxw_error, worksheet_write_number, (lxw_worksheet *, lxw_row_t, lxw_col_t, double, lxw_format *)) \
	X(lxw_error, worksheet_write_string, (lxw_worksheet *, lxw_row_t, lxw_col_t, const char *, lxw_format *))

#define OPMFU_LXW_FIELD(ret, name, args) ret(*name) args;
struct opmfu_lxw {
	OPMFU_LXW_FUNCS(OPMFU_LXW_FIELD)
};
extern struct opmfu_lxw opmfu_lxw;
#define LXW(name) (opmfu_lxw.name)

/* Loads libxlsxwriter once; path is the workbook the error names. */
enum opmfu_status opmfu_lxw_load(const char *path, struct opmfu_err *err);

struct opmfu_xbook {
	const char *path; /* final name (not owned) */
	char *dir;        /* its directory: the temporary file and libxlsxwriter's scratch files go there */
	char *tmp;        /* the name written until complete */
	char *scratch_dir; /* libxlsxwriter's scratch files' hidden folder beside it */
	lxw_workbook *wb;
	const char *sheet; /* the sheet being written, for messages; NULL: the workbook has one */
	struct sbuf scratch;
	struct opmfu_write_stats st; /* what the cells could not hold as they are */
	lxw_error lerr;              /* first libxlsxwriter error; later writes are skipped */
	const char *err_sheet;
	lxw_row_t err_row;
	lxw_col_t err_col;
	int oom;
};

/* Creates the temporary file beside path and a workbook on it (rows
 * streamed when constant_memory). On error b holds nothing. */
enum opmfu_status opmfu_xbook_open(struct opmfu_xbook *b, const char *path, int constant_memory,
				   struct opmfu_err *err);

/* A format added to the workbook; NULL (and b->oom) when out of memory. */
lxw_format *opmfu_xbook_format(struct opmfu_xbook *b);

/* Keeps e (when it is the first error) with the cell it happened at. */
void opmfu_xbook_note(struct opmfu_xbook *b, lxw_error e, lxw_row_t r, lxw_col_t c);

/* s[0..n) as a cell can hold it: s itself, or a repaired copy valid until
 * the next call (opmfu_xbook.st counts repairs and cuts). */
const char *opmfu_xbook_text(struct opmfu_xbook *b, const char *s, size_t n);

/* A string cell (never a formula); s NULL: a blank cell with format f. */
void opmfu_xbook_str(struct opmfu_xbook *b, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, const char *s, size_t n,
		     lxw_format *f);
void opmfu_xbook_cstr(struct opmfu_xbook *b, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, const char *s,
		      lxw_format *f);
/* A number cell; NaN and infinities (which a sheet cannot spell) are blank and counted. */
void opmfu_xbook_num(struct opmfu_xbook *b, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, double v, lxw_format *f);
/* The exact decimal digits of v, as text. */
void opmfu_xbook_i64_text(struct opmfu_xbook *b, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, int64_t v,
			  lxw_format *f);

/* Printed pages: landscape, fit to one page wide (as many high as it
 * takes), the header row (row 0) repeated when header is set. */
void opmfu_xbook_print_setup(struct opmfu_xbook *b, lxw_worksheet *ws, int header);

/* Closes the workbook and leaves it complete on disk under its temporary
 * name, which *staged takes over; adds b's counts to stats. Frees b, also
 * on error (the temporary file is removed then). */
enum opmfu_status opmfu_xbook_finish(struct opmfu_xbook *b, struct opmfu_write_stats *stats, char **staged,
				     struct opmfu_err *err);

/* Frees b and removes its temporary file. */
void opmfu_xbook_free(struct opmfu_xbook *b);

enum opmfu_status opmfu_xbook_nomem(const char *path, struct opmfu_err *err);

#endif
