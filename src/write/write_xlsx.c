/*
 * write_xlsx.c - the Excel export with libxlsxwriter: any table's sheet from
 * its def (titles as headers, widths, merges, formats), one workbook per
 * table and rank (write/xlsx_book.c holds what a workbook needs whatever it
 * shows); at commit, the run's summary workbook (write/summary_xlsx.c).
 */
#include "write/write_xlsx.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "base/sbuf.h"
#include "write/summary_xlsx.h"
#include "write/xlsx_book.h"
#include "write/stage.h"

#define HEADER_HEIGHT 27

/* One workbook being written: its one sheet and the formats of SPEC 4. */
struct xw {
	struct opmfu_xbook b;
	lxw_worksheet *ws;
	lxw_format *cell, *head, *pct, *suspect;
};

static void note(struct xw *x, lxw_error e, lxw_row_t r, lxw_col_t c)
{
	opmfu_xbook_note(&x->b, e, r, c);
}

static void put_str(struct xw *x, lxw_row_t r, lxw_col_t c, const char *s, size_t n, lxw_format *f)
{
	opmfu_xbook_str(&x->b, x->ws, r, c, s, n, f);
}

static void put_cstr(struct xw *x, lxw_row_t r, lxw_col_t c, const char *s, lxw_format *f)
{
	opmfu_xbook_cstr(&x->b, x->ws, r, c, s, f);
}

static enum opmfu_status nomem(const char *path, struct opmfu_err *err)
{
	return opmfu_xbook_nomem(path, err);
}

static enum opmfu_status xw_open(struct xw *x, const char *path, int constant_memory, struct opmfu_err *err)
{
	enum opmfu_status st;

	memset(x, 0, sizeof(*x));
	if ((st = opmfu_xbook_open(&x->b, path, constant_memory, err)))
		return st;
	if (!(x->ws = LXW(workbook_add_worksheet)(x->b.wb, "Sheet1")) || !(x->cell = opmfu_xbook_format(&x->b)) ||
	    !(x->head = opmfu_xbook_format(&x->b)) || !(x->pct = opmfu_xbook_format(&x->b)) ||
	    !(x->suspect = opmfu_xbook_format(&x->b))) {
		opmfu_xbook_free(&x->b);
		return nomem(path, err);
	}
	LXW(format_set_font_name)(x->cell, "Times New Roman");
	LXW(format_set_border)(x->cell, LXW_BORDER_THIN);
	LXW(format_set_align)(x->cell, LXW_ALIGN_VERTICAL_CENTER);
	LXW(format_set_font_name)(x->head, "Times New Roman");
	LXW(format_set_border)(x->head, LXW_BORDER_THIN);
	LXW(format_set_align)(x->head, LXW_ALIGN_VERTICAL_CENTER);
	LXW(format_set_bold)(x->head);
	LXW(format_set_pattern)(x->head, LXW_PATTERN_SOLID);
	LXW(format_set_bg_color)(x->head, 0xAFEEEE);
	LXW(format_set_font_name)(x->pct, "Times New Roman");
	LXW(format_set_border)(x->pct, LXW_BORDER_THIN);
	LXW(format_set_align)(x->pct, LXW_ALIGN_VERTICAL_CENTER);
	LXW(format_set_num_format)(x->pct, "0.00%");
	/* MFU above 100 %: FLOPs or peak are wrong, so not the colour of a perfect kernel */
	LXW(format_set_bg_color)(x->suspect, 0xB4A7D6);
	LXW(format_set_font_color)(x->suspect, 0x7F0000);
	LXW(format_set_bold)(x->suspect);
	return OPMFU_OK;
}

/* Header row, widths, frozen header, autofilter; printed landscape, one
 * page wide (SPEC 14). */
static void xw_sheet(struct xw *x, const struct opmfu_table_def *def, size_t nrows)
{
	size_t c;
	for (c = 0; c < def->n_cols; c++)
		if (def->cols[c].width > 0)
			note(x, LXW(worksheet_set_column)(x->ws, (lxw_col_t)c, (lxw_col_t)c, def->cols[c].width, NULL), 0,
			     (lxw_col_t)c);
	note(x, LXW(worksheet_set_row)(x->ws, 0, HEADER_HEIGHT, NULL), 0, 0);
	LXW(worksheet_freeze_panes)(x->ws, 1, 0);
	note(x, LXW(worksheet_autofilter)(x->ws, 0, 0, (lxw_row_t)nrows, (lxw_col_t)(def->n_cols - 1)), 0, 0);
	opmfu_xbook_print_setup(&x->b, x->ws, 1);
	for (c = 0; c < def->n_cols; c++)
		put_cstr(x, 0, (lxw_col_t)c, def->cols[c].title, x->head);
}

/* An empty table yields no file; one left by an earlier run would be read as
 * this run's result, so it goes. */
static enum opmfu_status remove_stale(const char *path, struct opmfu_err *err)
{
	if (unlink(path) != 0 && errno != ENOENT)
		return opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot remove the workbook of an earlier run: %s", path,
				     strerror(errno));
	return OPMFU_OK;
}

static enum opmfu_status too_many(const char *path, const char *table, size_t n, size_t max_rows,
				  struct opmfu_err *err)
{
	return opmfu_err_set(err, OPMFU_ERR_LIMIT,
			     "%s: %zu %s rows do not fit in an Excel sheet (at most %zu below the header); "
			     "not written: use --export db, whose %s table has no row limit",
			     path, n, table, max_rows - 1, table);
}

/* ---- a table's sheet ---- */

static lxw_format *format_of(struct xw *x, const struct opmfu_column *col)
{
	return (col->flags & OPMFU_COLF_PERCENT) ? x->pct : x->cell;
}

static int merges(const struct opmfu_column *col)
{
	return (col->flags & (OPMFU_COLF_MERGE | OPMFU_COLF_MERGE_IN_PREV)) != 0;
}

/* Cell (r, c) with the value v of column col. */
static void put_cell(struct xw *x, lxw_row_t r, lxw_col_t c, const struct opmfu_column *col,
		     const struct opmfu_cell *v)
{
	lxw_format *f = format_of(x, col);
	if (v->null) {
		put_str(x, r, c, NULL, 0, f);
		return;
	}
	switch (col->type) {
	case OPMFU_COL_INT:
		/* epoch nanoseconds have 19 digits; a sheet number keeps 15-16
		 * and would be off by up to a microsecond */
		if (col->flags & OPMFU_COLF_BIG_INT_TEXT)
			opmfu_xbook_i64_text(&x->b, x->ws, r, c, v->v.i, f);
		else
			opmfu_xbook_num(&x->b, x->ws, r, c, (double)v->v.i, f);
		break;
	case OPMFU_COL_REAL:
		opmfu_xbook_num(&x->b, x->ws, r, c, v->v.r, f);
		break;
	case OPMFU_COL_TEXT:
	case OPMFU_COL_BLOB: /* a shard's alone, which writes no workbook: as a text */
		put_str(x, r, c, v->v.t.s, v->v.t.n, f);
		break;
	}
}

/* Settings that refer to data rows, before the first of them: in
 * constant_memory mode nothing may refer back to a row already written. */
static void sheet_rules(struct xw *x, const struct opmfu_table_def *def, size_t n)
{
	char range[LXW_MAX_CELL_RANGE_LENGTH], ranges[8 * LXW_MAX_CELL_RANGE_LENGTH];
	size_t c, e, len = 0;
	lxw_col_t first = 0;

	for (c = 0; c < def->n_cols; c++) {
		lxw_conditional_format cf;
		if (!(def->cols[c].flags & OPMFU_COLF_COLOR_SCALE))
			continue;
		/* first, so it takes precedence and stops the colour scale for its cells */
		memset(&cf, 0, sizeof(cf));
		cf.type = LXW_CONDITIONAL_TYPE_CELL;
		cf.criteria = LXW_CONDITIONAL_CRITERIA_GREATER_THAN;
		cf.value = 1;
		cf.format = x->suspect;
		cf.stop_if_true = LXW_TRUE;
		note(x, LXW(worksheet_conditional_format_range)(x->ws, 1, (lxw_col_t)c, (lxw_row_t)n, (lxw_col_t)c, &cf), 1,
		     (lxw_col_t)c);
		memset(&cf, 0, sizeof(cf));
		cf.type = LXW_CONDITIONAL_3_COLOR_SCALE;
		/* fixed points, so one colour means one value in every rank's file */
		cf.min_rule_type = LXW_CONDITIONAL_RULE_TYPE_NUMBER;
		cf.min_value = 0;
		cf.min_color = 0xF8696B;
		cf.mid_rule_type = LXW_CONDITIONAL_RULE_TYPE_NUMBER;
		cf.mid_value = 0.5;
		cf.mid_color = 0xFFEB84;
		cf.max_rule_type = LXW_CONDITIONAL_RULE_TYPE_NUMBER;
		cf.max_value = 1;
		cf.max_color = 0x63BE7B;
		note(x, LXW(worksheet_conditional_format_range)(x->ws, 1, (lxw_col_t)c, (lxw_row_t)n, (lxw_col_t)c, &cf), 1,
		     (lxw_col_t)c);
	}
	/* digits written as text on purpose (put_cell): one range per run of such columns */
	for (c = 0; c < def->n_cols; c = e) {
		e = c + 1;
		if (!(def->cols[c].flags & OPMFU_COLF_BIG_INT_TEXT))
			continue;
		while (e < def->n_cols && (def->cols[e].flags & OPMFU_COLF_BIG_INT_TEXT))
			e++;
		if (len + sizeof(range) + 1 > sizeof(ranges))
			continue;
		if (!len)
			first = (lxw_col_t)c;
		LXW(lxw_rowcol_to_range)(range, 1, (lxw_col_t)c, (lxw_row_t)n, (lxw_col_t)(e - 1));
		len += (size_t)snprintf(ranges + len, sizeof(ranges) - len, "%s%s", len ? " " : "", range);
	}
	if (len)
		note(x, LXW(worksheet_ignore_errors)(x->ws, LXW_IGNORE_NUMBER_STORED_AS_TEXT, ranges), 1, first);
}

/* Equal for merging: a NULL text is an empty one. */
static int same_cell(const struct opmfu_column *col, const struct opmfu_cell *a, const struct opmfu_cell *b)
{
	if (col->type == OPMFU_COL_TEXT) {
		size_t na = a->null ? 0 : a->v.t.n, nb = b->null ? 0 : b->v.t.n;
		return na == nb && (na == 0 || !memcmp(a->v.t.s, b->v.t.s, na));
	}
	if (a->null || b->null)
		return a->null == b->null;
	return col->type == OPMFU_COL_INT ? a->v.i == b->v.i : a->v.r == b->v.r;
}

/* Data rows [a, b) of column c hold v: one cell, or one merged range. */
static void put_run(struct xw *x, size_t a, size_t b, lxw_col_t c, const struct opmfu_column *col,
		    const struct opmfu_cell *v)
{
	lxw_row_t first = (lxw_row_t)a + 1, last = (lxw_row_t)b;
	const char *s = "";

	if (b - a == 1 || x->b.lerr) {
		put_cell(x, first, c, col, v);
		return;
	}
	if (col->type == OPMFU_COL_TEXT && !v->null)
		s = opmfu_xbook_text(&x->b, v->v.t.s, v->v.t.n);
	/* merge_range writes the text with worksheet_write_string: never a formula */
	note(x, LXW(worksheet_merge_range)(x->ws, first, c, last, c, s, format_of(x, col)), first, c);
	if (col->type != OPMFU_COL_TEXT && !v->null)
		put_cell(x, first, c, col, v); /* a number over the merged range's first cell */
}

/* The runs of equal cells of merged column c within data rows [a, b), each
 * followed by the runs of the next column when that merges within them. */
static void put_runs(struct xw *x, const struct opmfu_table *t, struct opmfu_cell *buf, size_t c, size_t a,
		     size_t b)
{
	const struct opmfu_column *cols = t->def->cols;
	size_t i, e, next;
	struct opmfu_cell v;

	for (next = c + 1; next < t->def->n_cols && !merges(&cols[next]); next++)
		;
	for (i = a; i < b && !x->b.lerr; i = e) {
		t->row(t->src, i, buf);
		v = buf[c];
		for (e = i + 1; e < b; e++) {
			t->row(t->src, e, buf);
			if (!same_cell(&cols[c], &v, &buf[c]))
				break;
		}
		put_run(x, i, e, (lxw_col_t)c, &cols[c], &v);
		if (next < t->def->n_cols && (cols[next].flags & OPMFU_COLF_MERGE_IN_PREV))
			put_runs(x, t, buf, next, i, e);
	}
}

/* Writes t's rows into x's sheet: row by row (the merged columns after). */
static void put_table(struct xw *x, const struct opmfu_table *t, struct opmfu_cell *buf)
{
	const struct opmfu_table_def *def = t->def;
	size_t i, c, prev = def->n_cols;

	xw_sheet(x, def, t->n_rows);
	sheet_rules(x, def, t->n_rows);
	for (i = 0; i < t->n_rows && !x->b.lerr; i++) {
		t->row(t->src, i, buf);
		for (c = 0; c < def->n_cols; c++)
			if (!merges(&def->cols[c]))
				put_cell(x, (lxw_row_t)i + 1, (lxw_col_t)c, &def->cols[c], &buf[c]);
	}
	/* a MERGE_IN_PREV column is written inside its previous column's runs */
	for (c = 0; c < def->n_cols; c++) {
		if (!merges(&def->cols[c]))
			continue;
		if (!(def->cols[c].flags & OPMFU_COLF_MERGE_IN_PREV) || prev == def->n_cols)
			put_runs(x, t, buf, c, 0, t->n_rows);
		prev = c;
	}
}

/* ---- the writer ---- */

/* A workbook of the rank: complete under tmp, or (tmp NULL) no rows, so
 * the file of an earlier run goes. */
struct staged {
	char *path; /* DIR/{xlsx_name}_{rank}.xlsx; NULL: nothing staged */
	char *tmp;
};

struct xlsx_writer {
	struct opmfu_writer base;
	char *dir;
	const struct opmfu_table_def *const *defs;
	size_t n_defs;
	struct staged *sg;        /* by def: the rank's */
	struct staged *kept;      /* the kept ranks', renamed (or removed) at commit */
	size_t n_kept, cap_kept;
	struct opmfu_cell *cells; /* one row of the widest table */
	struct opmfu_write_stats st; /* the rank's so far */
	size_t max_rows;
	struct opmfu_summary sum; /* what opmfu_summary.xlsx will show */
};

extern const struct opmfu_writer_type opmfu_writer_xlsx;

static void discard(struct staged *sg)
{
	opmfu_stage_discard(sg->tmp);
	opmfu_free(sg->tmp);
	opmfu_free(sg->path);
	sg->path = sg->tmp = NULL;
}

static void xlsx_close(struct opmfu_writer *w)
{
	struct xlsx_writer *o = (struct xlsx_writer *)w;
	size_t k;

	if (!o)
		return;
	for (k = 0; o->sg && k < o->n_defs; k++)
		discard(&o->sg[k]);
	for (k = 0; k < o->n_kept; k++)
		discard(&o->kept[k]);
	opmfu_free(o->sg);
	opmfu_free(o->kept);
	opmfu_free(o->cells);
	opmfu_free(o->dir);
	opmfu_summary_release(&o->sum);
	opmfu_free(o);
}

static enum opmfu_status xlsx_open(struct opmfu_writer **out, const char *dir,
				   const struct opmfu_table_def *const *defs, size_t n_defs, struct opmfu_err *err)
{
	struct xlsx_writer *o = opmfu_calloc(1, sizeof(*o));
	size_t k, widest = 1;

	*out = NULL;
	if (!o)
		return nomem(dir, err);
	opmfu_summary_init(&o->sum);
	for (k = 0; k < n_defs; k++)
		widest = defs[k]->n_cols > widest ? defs[k]->n_cols : widest;
	if (!(o->dir = opmfu_strdup(dir)) || !(o->sg = opmfu_calloc(n_defs ? n_defs : 1, sizeof(*o->sg))) ||
	    !(o->cells = opmfu_calloc(widest, sizeof(*o->cells)))) {
		xlsx_close(&o->base);
		return nomem(dir, err);
	}
	o->base.type = &opmfu_writer_xlsx;
	o->defs = defs;
	o->n_defs = n_defs;
	o->max_rows = OPMFU_XLSX_MAX_ROWS;
	/* what an interrupted earlier run left here goes first */
	opmfu_stage_sweep(dir);
	*out = &o->base;
	return OPMFU_OK;
}

void opmfu_xlsx_set_max_rows(struct opmfu_writer *w, size_t max_rows)
{
	((struct xlsx_writer *)w)->max_rows = max_rows ? max_rows : OPMFU_XLSX_MAX_ROWS;
}

/* Writes t's workbook at path under a temporary name, into *tmp. */
static enum opmfu_status write_book(struct xlsx_writer *o, const char *path, const struct opmfu_table *t, char **tmp,
				    struct opmfu_err *err)
{
	struct xw x;
	enum opmfu_status st;
	size_t c;
	int merged = 0;

	if (t->n_rows > o->max_rows - 1)
		return too_many(path, t->def->name, t->n_rows, o->max_rows, err);
	/* Kernel workbooks can hold a million rows, so they are written in
	 * constant_memory mode, strictly row by row. libxlsxwriter 1.1.4 cannot
	 * merge cells in that mode (a merge writes blanks into later rows, which
	 * flushes the current row), so tables with merged columns, which hold
	 * aggregated rows only, use the normal mode. */
	for (c = 0; c < t->def->n_cols; c++)
		merged |= merges(&t->def->cols[c]);
	if ((st = xw_open(&x, path, !merged, err)))
		return st;
	put_table(&x, t, o->cells);
	return opmfu_xbook_finish(&x.b, &o->st, tmp, err);
}

static enum opmfu_status xlsx_put(struct opmfu_writer *w, int rank, const struct opmfu_table *t, struct opmfu_err *err)
{
	struct xlsx_writer *o = (struct xlsx_writer *)w;
	enum opmfu_status st = OPMFU_OK;
	struct staged *sg;
	struct sbuf path;
	size_t k;

	for (k = 0; k < o->n_defs && o->defs[k] != t->def; k++)
		;
	if (k == o->n_defs)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "%s: table %s was not opened", o->dir, t->def->name);
	/* the summary's tables (by name) are gathered for the summary workbook */
	if ((st = opmfu_summary_add(&o->sum, t, err)))
		return st;
	if (!t->def->xlsx_name)
		return OPMFU_OK;
	sg = &o->sg[k];
	discard(sg);
	sbuf_init(&path);
	sbuf_addf(&path, "%s/%s_%d.xlsx", o->dir, t->def->xlsx_name, rank);
	if (!(sg->path = sbuf_detach(&path)))
		return nomem(o->dir, err);
	/* an empty table yields no file: keep_rank removes an earlier one */
	if (t->n_rows && (st = write_book(o, sg->path, t, &sg->tmp, err)))
		discard(sg);
	return st;
}

/* The rank's staged workbooks (and the files of an earlier run that its
 * empty tables remove) wait for commit, so that every output of the run
 * appears together. */
static enum opmfu_status xlsx_keep_rank(struct opmfu_writer *w, int rank, struct opmfu_write_stats *st,
					struct opmfu_err *err)
{
	struct xlsx_writer *o = (struct xlsx_writer *)w;
	enum opmfu_status s = OPMFU_OK;
	size_t k;

	(void)rank;
	for (k = 0; k < o->n_defs; k++) {
		struct staged *sg = &o->sg[k];
		if (!sg->path || s) {
			discard(sg);
			continue;
		}
		if (o->n_kept == o->cap_kept) {
			size_t cap = o->cap_kept ? 2 * o->cap_kept : 16;
			struct staged *v = opmfu_realloc(o->kept, cap * sizeof(*v));
			if (!v) {
				s = nomem(sg->path, err);
				discard(sg);
				continue;
			}
			o->kept = v;
			o->cap_kept = cap;
		}
		if (sg->tmp)
			o->st.files |= 1u << k;
		o->kept[o->n_kept++] = *sg;
		sg->path = sg->tmp = NULL;
	}
	if (s == OPMFU_OK)
		s = opmfu_summary_keep(&o->sum, err);
	*st = o->st;
	memset(&o->st, 0, sizeof(o->st));
	return s;
}

static enum opmfu_status xlsx_drop_rank(struct opmfu_writer *w, int rank, struct opmfu_err *err)
{
	struct xlsx_writer *o = (struct xlsx_writer *)w;
	size_t k;

	(void)rank;
	(void)err;
	for (k = 0; k < o->n_defs; k++)
		discard(&o->sg[k]);
	opmfu_summary_drop(&o->sum);
	memset(&o->st, 0, sizeof(o->st));
	return OPMFU_OK;
}

/* The summary workbook of the kept ranks is written now, complete, and
 * renamed over an earlier one; then every kept rank's workbooks are renamed
 * into place (or an earlier run's file removed where the table had no
 * rows). A run that never commits leaves the earlier workbooks as they
 * were. */
static enum opmfu_status xlsx_commit(struct opmfu_writer *w, struct opmfu_err *err)
{
	struct xlsx_writer *o = (struct xlsx_writer *)w;
	struct opmfu_write_stats st;
	enum opmfu_status s = OPMFU_OK;
	size_t k;

	memset(&st, 0, sizeof(st));
	if (opmfu_summary_seen(&o->sum))
		s = opmfu_summary_xlsx_save(&o->sum, o->dir, &st, err);
	for (k = 0; k < o->n_kept && s == OPMFU_OK; k++) {
		struct staged *sg = &o->kept[k];
		if (!sg->tmp)
			s = remove_stale(sg->path, err);
		else if (opmfu_stage_rename(sg->tmp, sg->path) != 0)
			s = opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot replace it: %s", sg->path, strerror(errno));
		else {
			opmfu_free(sg->tmp);
			sg->tmp = NULL;
		}
	}
	/* done with (on failure, what was not renamed goes) */
	for (k = 0; k < o->n_kept; k++)
		discard(&o->kept[k]);
	o->n_kept = 0;
	return s;
}

const struct opmfu_writer_type opmfu_writer_xlsx = {
	"xlsx", "OperatorMfu", xlsx_open, xlsx_put, xlsx_keep_rank, xlsx_drop_rank, xlsx_commit, xlsx_close, NULL,
};
