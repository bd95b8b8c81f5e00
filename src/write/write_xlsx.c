/*
 * write_xlsx.c - the Excel export with libxlsxwriter, the only file that
 * includes xlsxwriter.h: any table's sheet from its def (titles as headers,
 * widths, merges, formats), one workbook per table and rank.
 */
#include "write/write_xlsx.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <xlsxwriter.h>

#include "base/mem.h"
#include "base/sbuf.h"
#include "write/stage.h"
#include "write/utf8.h"

#define CELL_CHARS_MAX 32767 /* characters in one Excel cell */
#define HEADER_HEIGHT 27

/* One workbook being written. */
struct xw {
	const char *path; /* final name */
	char *dir;        /* its directory: temporary files go there too */
	char *tmp;        /* the name written until complete */
	lxw_workbook *wb;
	lxw_worksheet *ws;
	lxw_format *cell, *head, *pct, *suspect;
	struct sbuf scratch;
	struct opmfu_write_stats st; /* what the cells could not hold as they are */
	lxw_error lerr; /* first libxlsxwriter error; later writes are skipped */
	lxw_row_t err_row;
	lxw_col_t err_col;
	int oom;
};

/* ---- strings ---- */

/* Length of the valid UTF-8 sequence at s (n > 0 bytes), or 0. U+FFFE and
 * U+FFFF are refused too: XML cannot carry them. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	size_t k = opmfu_utf8_seq(s, n);
	if (k == 3 && s[0] == 0xEF && s[1] == 0xBF && (s[2] == 0xBE || s[2] == 0xBF))
		return 0;
	return k;
}

/*
 * s[0..n) as a cell can hold it: NUL-terminated valid UTF-8 of at most
 * CELL_CHARS_MAX characters. Returns s itself when it already is; otherwise a
 * copy in x->scratch with bad bytes (and NULs) as U+FFFD and the tail cut,
 * as the reference's XlsxWriter cuts it.
 */
static const char *cell_text(struct xw *x, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, chars = 0, k;
	int bad = 0;

	while (i < n) {
		k = utf8_seq(u + i, n - i);
		if (k == 0 || u[i] == 0 || ++chars > CELL_CHARS_MAX)
			break;
		i += k;
	}
	if (i == n && s[n] == '\0')
		return s;
	sbuf_reset(&x->scratch);
	if (i == n) {
		/* valid, only not terminated (a stripped shape): one copy */
		sbuf_add(&x->scratch, s, n);
		if (x->scratch.oom)
			x->oom = 1;
		return x->scratch.buf;
	}
	i = chars = 0;
	while (i < n && chars < CELL_CHARS_MAX) {
		k = utf8_seq(u + i, n - i);
		if (k == 0 || u[i] == 0) {
			sbuf_add(&x->scratch, "\xEF\xBF\xBD", 3);
			bad = 1;
			k = 1;
		} else {
			sbuf_add(&x->scratch, s + i, k);
		}
		i += k;
		chars++;
	}
	if (bad)
		x->st.repaired++;
	if (i < n)
		x->st.truncated++;
	if (x->scratch.oom)
		x->oom = 1;
	return x->scratch.buf;
}

/* ---- cells ---- */

static void note(struct xw *x, lxw_error e, lxw_row_t r, lxw_col_t c)
{
	if (e && !x->lerr) {
		x->lerr = e;
		x->err_row = r;
		x->err_col = c;
	}
}

/* Always a string cell, never a formula, whatever the text starts with. */
static void put_str(struct xw *x, lxw_row_t r, lxw_col_t c, const char *s, size_t n, lxw_format *f)
{
	if (x->lerr)
		return;
	if (!s)
		note(x, worksheet_write_blank(x->ws, r, c, f), r, c);
	else
		note(x, worksheet_write_string(x->ws, r, c, cell_text(x, s, n), f), r, c);
}

static void put_cstr(struct xw *x, lxw_row_t r, lxw_col_t c, const char *s, lxw_format *f)
{
	put_str(x, r, c, s, s ? strlen(s) : 0, f);
}

/* NaN and infinities have no spelling in a sheet (libxlsxwriter would write
 * "-NAN", which Excel rejects): they become empty cells. */
static void put_num(struct xw *x, lxw_row_t r, lxw_col_t c, double v, lxw_format *f)
{
	if (x->lerr)
		return;
	if (!isfinite(v)) {
		x->st.blanks++;
		note(x, worksheet_write_blank(x->ws, r, c, f), r, c);
		return;
	}
	note(x, worksheet_write_number(x->ws, r, c, v, f), r, c);
}

/* The decimal digits of v, exactly. */
static void put_i64_text(struct xw *x, lxw_row_t r, lxw_col_t c, int64_t v, lxw_format *f)
{
	char buf[24];
	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	put_cstr(x, r, c, buf, f);
}

/* ---- files ---- */

static enum opmfu_status nomem(const char *path, struct opmfu_err *err)
{
	return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory writing the workbook", path);
}

/* The temporary name the workbook is written under, and its folder (for
 * libxlsxwriter's own scratch files). */
static enum opmfu_status make_tmp(struct xw *x, struct opmfu_err *err)
{
	const char *slash = strrchr(x->path, '/');
	enum opmfu_status st;
	int fd;

	x->dir = slash ? opmfu_strndup(x->path, (size_t)(slash - x->path) + (slash == x->path)) : opmfu_strdup(".");
	if (!x->dir)
		return nomem(x->path, err);
	if ((st = opmfu_stage_file(x->path, &x->tmp, &fd, err)))
		return st;
	close(fd);
	return OPMFU_OK;
}

static void xw_free(struct xw *x)
{
	if (x->wb)
		lxw_workbook_free(x->wb);
	if (x->tmp)
		unlink(x->tmp);
	opmfu_free(x->tmp);
	opmfu_free(x->dir);
	sbuf_release(&x->scratch);
	memset(x, 0, sizeof(*x));
}

static enum opmfu_status xw_open(struct xw *x, const char *path, int constant_memory, struct opmfu_err *err)
{
	lxw_workbook_options wo;
	enum opmfu_status st;

	memset(x, 0, sizeof(*x));
	x->path = path;
	sbuf_init(&x->scratch);
	if ((st = make_tmp(x, err))) {
		xw_free(x);
		return st;
	}
	memset(&wo, 0, sizeof(wo));
	wo.constant_memory = constant_memory ? LXW_TRUE : LXW_FALSE;
	/* libxlsxwriter's scratch files go next to the output, not to /tmp,
	 * which is often memory-backed */
	wo.tmpdir = x->dir;
	x->wb = workbook_new_opt(x->tmp, &wo);
	if (!x->wb || !(x->ws = workbook_add_worksheet(x->wb, "Sheet1")) || !(x->cell = workbook_add_format(x->wb)) ||
	    !(x->head = workbook_add_format(x->wb)) || !(x->pct = workbook_add_format(x->wb)) ||
	    !(x->suspect = workbook_add_format(x->wb))) {
		xw_free(x);
		return nomem(path, err);
	}
	format_set_font_name(x->cell, "Times New Roman");
	format_set_border(x->cell, LXW_BORDER_THIN);
	format_set_align(x->cell, LXW_ALIGN_VERTICAL_CENTER);
	format_set_font_name(x->head, "Times New Roman");
	format_set_border(x->head, LXW_BORDER_THIN);
	format_set_align(x->head, LXW_ALIGN_VERTICAL_CENTER);
	format_set_bold(x->head);
	format_set_pattern(x->head, LXW_PATTERN_SOLID);
	format_set_bg_color(x->head, 0xAFEEEE);
	format_set_font_name(x->pct, "Times New Roman");
	format_set_border(x->pct, LXW_BORDER_THIN);
	format_set_align(x->pct, LXW_ALIGN_VERTICAL_CENTER);
	format_set_num_format(x->pct, "0.00%");
	/* MFU above 100 %: FLOPs or peak are wrong, so not the colour of a perfect kernel */
	format_set_bg_color(x->suspect, 0xB4A7D6);
	format_set_font_color(x->suspect, 0x7F0000);
	format_set_bold(x->suspect);
	return OPMFU_OK;
}

/* Header row, widths, frozen header, autofilter. */
static void xw_sheet(struct xw *x, const struct opmfu_table_def *def, size_t nrows)
{
	size_t c;
	for (c = 0; c < def->n_cols; c++)
		if (def->cols[c].width > 0)
			note(x, worksheet_set_column(x->ws, (lxw_col_t)c, (lxw_col_t)c, def->cols[c].width, NULL), 0,
			     (lxw_col_t)c);
	note(x, worksheet_set_row(x->ws, 0, HEADER_HEIGHT, NULL), 0, 0);
	worksheet_freeze_panes(x->ws, 1, 0);
	note(x, worksheet_autofilter(x->ws, 0, 0, (lxw_row_t)nrows, (lxw_col_t)(def->n_cols - 1)), 0, 0);
	for (c = 0; c < def->n_cols; c++)
		put_cstr(x, 0, (lxw_col_t)c, def->cols[c].title, x->head);
}

/* Closes the workbook and leaves it complete on disk under its temporary
 * name, which *staged takes over; adds x's counts to stats. */
static enum opmfu_status xw_finish(struct xw *x, struct opmfu_write_stats *stats, char **staged,
				   struct opmfu_err *err)
{
	enum opmfu_status st = OPMFU_OK;
	lxw_error e;
	int fd;

	if (x->oom || x->lerr == LXW_ERROR_MEMORY_MALLOC_FAILED) {
		st = nomem(x->path, err);
		goto out;
	}
	if (x->lerr) {
		char cell[LXW_MAX_CELL_NAME_LENGTH];
		lxw_rowcol_to_cell(cell, x->err_row, x->err_col);
		st = opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot write cell %s: %s", x->path, cell,
				   lxw_strerror(x->lerr));
		goto out;
	}
	errno = 0;
	e = workbook_close(x->wb);
	x->wb = NULL;
	if (e) {
		int sys = errno;
		st = opmfu_err_set(err, e == LXW_ERROR_MEMORY_MALLOC_FAILED ? OPMFU_ERR_NOMEM : OPMFU_ERR_IO,
				   "%s: cannot write the workbook: %s%s%s%s", x->path, lxw_strerror(e),
				   sys ? " (" : "", sys ? strerror(sys) : "", sys ? ")" : "");
		goto out;
	}
	/* on disk before the rename, so a crash cannot leave an empty file in
	 * place of the previous one */
	fd = open(x->tmp, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) != 0) {
		st = opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot write the workbook: %s", x->path, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	close(fd);
	*staged = x->tmp;
	x->tmp = NULL;
out:
	stats->truncated += x->st.truncated;
	stats->repaired += x->st.repaired;
	stats->blanks += x->st.blanks;
	xw_free(x);
	return st;
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
			put_i64_text(x, r, c, v->v.i, f);
		else
			put_num(x, r, c, (double)v->v.i, f);
		break;
	case OPMFU_COL_REAL:
		put_num(x, r, c, v->v.r, f);
		break;
	case OPMFU_COL_TEXT:
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
		note(x, worksheet_conditional_format_range(x->ws, 1, (lxw_col_t)c, (lxw_row_t)n, (lxw_col_t)c, &cf), 1,
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
		note(x, worksheet_conditional_format_range(x->ws, 1, (lxw_col_t)c, (lxw_row_t)n, (lxw_col_t)c, &cf), 1,
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
		lxw_rowcol_to_range(range, 1, (lxw_col_t)c, (lxw_row_t)n, (lxw_col_t)(e - 1));
		len += (size_t)snprintf(ranges + len, sizeof(ranges) - len, "%s%s", len ? " " : "", range);
	}
	if (len)
		note(x, worksheet_ignore_errors(x->ws, LXW_IGNORE_NUMBER_STORED_AS_TEXT, ranges), 1, first);
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

	if (b - a == 1 || x->lerr) {
		put_cell(x, first, c, col, v);
		return;
	}
	if (col->type == OPMFU_COL_TEXT && !v->null)
		s = cell_text(x, v->v.t.s, v->v.t.n);
	/* merge_range writes the text with worksheet_write_string: never a formula */
	note(x, worksheet_merge_range(x->ws, first, c, last, c, s, format_of(x, col)), first, c);
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
	for (i = a; i < b && !x->lerr; i = e) {
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
	for (i = 0; i < t->n_rows && !x->lerr; i++) {
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
	struct staged *sg;        /* by def */
	struct opmfu_cell *cells; /* one row of the widest table */
	struct opmfu_write_stats st; /* the rank's so far */
	size_t max_rows;
};

extern const struct opmfu_writer_type opmfu_writer_xlsx;

static void discard(struct staged *sg)
{
	if (sg->tmp)
		unlink(sg->tmp);
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
	opmfu_free(o->sg);
	opmfu_free(o->cells);
	opmfu_free(o->dir);
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
	return xw_finish(&x, &o->st, tmp, err);
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

/* Renames the staged workbooks into place, or removes the file of an
 * earlier run where a table had no rows. */
static enum opmfu_status xlsx_keep_rank(struct opmfu_writer *w, int rank, struct opmfu_write_stats *st,
					struct opmfu_err *err)
{
	struct xlsx_writer *o = (struct xlsx_writer *)w;
	enum opmfu_status s = OPMFU_OK;
	size_t k;

	(void)rank;
	for (k = 0; k < o->n_defs; k++) {
		struct staged *sg = &o->sg[k];
		if (!sg->path || s)
			goto next;
		if (!sg->tmp) {
			s = remove_stale(sg->path, err);
		} else if (rename(sg->tmp, sg->path) != 0) {
			s = opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot replace it: %s", sg->path, strerror(errno));
		} else {
			o->st.files |= 1u << k;
			opmfu_free(sg->tmp);
			sg->tmp = NULL;
		}
next:
		discard(sg);
	}
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
	memset(&o->st, 0, sizeof(o->st));
	return OPMFU_OK;
}

/* each rank's workbooks are final at its keep_rank */
static enum opmfu_status xlsx_commit(struct opmfu_writer *w, struct opmfu_err *err)
{
	(void)w;
	(void)err;
	return OPMFU_OK;
}

const struct opmfu_writer_type opmfu_writer_xlsx = {
	"xlsx", "OperatorMfu", xlsx_open, xlsx_put, xlsx_keep_rank, xlsx_drop_rank, xlsx_commit, xlsx_close,
};
