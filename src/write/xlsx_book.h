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
