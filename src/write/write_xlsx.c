/*
 * write_xlsx.c - the Excel export with libxlsxwriter. The only file that
 * includes xlsxwriter.h.
 *
 * Kernel workbooks can hold a million rows, so they are written in
 * constant_memory mode, strictly row by row. libxlsxwriter 1.1.4 cannot merge
 * cells in that mode (a merge writes blanks into later rows, which flushes the
 * current row), so module workbooks, which hold aggregated rows only, use the
 * normal mode.
 */
#include "write/write_xlsx.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <xlsxwriter.h>

#include "base/mem.h"
#include "base/sbuf.h"
#include "model/parse.h"

#define CELL_CHARS_MAX 32767 /* characters in one Excel cell */
#define HEADER_HEIGHT 27

struct width {
	const char *head;
	double width;
};

static const char *const kernel_head[] = {
	"Rank ID", "Op Name", "Kernel Name", "Kernel Start(ns)", "Kernel End(ns)", "Kernel Duration(ns)", "MFU",
	"actual_tflops", "chip_peak_tflops", "flops", "flops_op_name", "input_shapes", "output_shapes",
};
enum {
	K_RANK, K_OP, K_KERNEL, K_START, K_END, K_DUR, K_MFU, K_TFLOPS, K_PEAK, K_FLOPS, K_FLOPS_OP, K_IN, K_OUT,
	K_NCOL
};

/* Looked up by header name (SPEC 5.4). The timestamp columns are ours: they
 * hold 19-digit text that a default-width column would cut. */
static const struct width kernel_widths[] = {
	{ "Kernel Name", 50 }, { "Op Name", 40 }, { "MFU", 10 }, { "Kernel Duration(ns)", 15 },
	{ "Kernel Start(ns)", 21 }, { "Kernel End(ns)", 21 }, { NULL, 0 },
};

static const char *const module_head[] = {
	"Rank ID", "Parent Module", "Module", "Op Name", "Kernel List", "Total Kernel Duration(ns)",
	"Avg Kernel Duration(ns)", "Op Count", "Avg MFU",
};
enum { M_RANK, M_PARENT, M_MODULE, M_OP, M_KLIST, M_TOTAL, M_AVG, M_COUNT, M_MFU, M_NCOL };

static const struct width module_widths[] = {
	{ "Parent Module", 40 }, { "Module", 40 }, { "Op Name", 40 }, { "Kernel List", 50 },
	{ "Total Kernel Duration(ns)", 10 }, { "Avg Kernel Duration(ns)", 10 }, { "Op Count", 10 },
	{ "Avg MFU", 10 }, { NULL, 0 },
};

_Static_assert(sizeof(kernel_head) / sizeof(kernel_head[0]) == K_NCOL, "kernel columns");
_Static_assert(sizeof(module_head) / sizeof(module_head[0]) == M_NCOL, "module columns");

/* One workbook being written. */
struct xw {
	const char *path; /* final name */
	char *dir;        /* its directory: temporary files go there too */
	char *tmp;        /* the name written until complete */
	lxw_workbook *wb;
	lxw_worksheet *ws;
	lxw_format *cell, *head, *pct;
	struct sbuf scratch;
	struct opmfu_xlsx_stats st;
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
	unsigned c = s[0];
	size_t k, i;
	unsigned lo = 0x80, hi = 0xBF;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		k = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		k = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		k = 4;
	else
		return 0;
	if (n < k)
		return 0;
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F; /* no surrogates */
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < k; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	if (c == 0xEF && s[1] == 0xBF && (s[2] == 0xBE || s[2] == 0xBF))
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

/* Creates an empty file with a fresh name next to path: ".NAME.PID.N.tmp".
 * O_EXCL so two writers never share one; mode 0666 so the umask applies as
 * for any other output file. */
static enum opmfu_status make_tmp(struct xw *x, struct opmfu_err *err)
{
	static atomic_uint counter;
	const char *slash = strrchr(x->path, '/');
	const char *base = slash ? slash + 1 : x->path;
	struct sbuf sb;
	int tries;

	x->dir = slash ? opmfu_strndup(x->path, (size_t)(slash - x->path) + (slash == x->path)) : opmfu_strdup(".");
	if (!x->dir)
		return nomem(x->path, err);
	sbuf_init(&sb);
	for (tries = 0; tries < 100; tries++) {
		int fd;
		sbuf_reset(&sb);
		sbuf_addf(&sb, "%.*s.%s.%ld.%u.tmp", (int)(base - x->path), x->path, base, (long)getpid(),
			  atomic_fetch_add(&counter, 1u));
		if (sb.oom) {
			sbuf_release(&sb);
			return nomem(x->path, err);
		}
		fd = open(sb.buf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0) {
			close(fd);
			x->tmp = sb.buf;
			return OPMFU_OK;
		}
		if (errno != EEXIST) {
			int e = errno;
			sbuf_release(&sb);
			return opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot create a file in %s: %s", x->path, x->dir,
					     strerror(e));
		}
	}
	sbuf_release(&sb);
	return opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot find a free temporary name in %s", x->path, x->dir);
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
	    !(x->head = workbook_add_format(x->wb)) || !(x->pct = workbook_add_format(x->wb))) {
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
	return OPMFU_OK;
}

/* Header row, widths by header name, frozen header, autofilter. */
static void xw_sheet(struct xw *x, const char *const *head, int ncol, const struct width *w, size_t nrows)
{
	int c, k;
	for (c = 0; c < ncol; c++)
		for (k = 0; w[k].head; k++)
			if (!strcmp(w[k].head, head[c]))
				note(x, worksheet_set_column(x->ws, (lxw_col_t)c, (lxw_col_t)c, w[k].width, NULL), 0,
				     (lxw_col_t)c);
	note(x, worksheet_set_row(x->ws, 0, HEADER_HEIGHT, NULL), 0, 0);
	worksheet_freeze_panes(x->ws, 1, 0);
	note(x, worksheet_autofilter(x->ws, 0, 0, (lxw_row_t)nrows, (lxw_col_t)(ncol - 1)), 0, 0);
	for (c = 0; c < ncol; c++)
		put_cstr(x, 0, (lxw_col_t)c, head[c], x->head);
}

/* Closes the workbook and moves it into place, or, with staged, leaves it
 * complete on disk under its temporary name, which *staged takes over. */
static enum opmfu_status xw_finish(struct xw *x, struct opmfu_xlsx_stats *stats, char **staged,
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
	if (staged) {
		*staged = x->tmp;
		x->tmp = NULL;
		goto out;
	}
	if (rename(x->tmp, x->path) != 0) {
		st = opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot replace it: %s", x->path, strerror(errno));
		goto out;
	}
	opmfu_free(x->tmp);
	x->tmp = NULL;
out:
	if (stats) {
		stats->rows += st ? 0 : x->st.rows;
		stats->truncated += x->st.truncated;
		stats->repaired += x->st.repaired;
		stats->blanks += x->st.blanks;
	}
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

/* ---- kernel workbook ---- */

static void put_sid(struct xw *x, lxw_row_t r, lxw_col_t c, const struct opmfu_trace *t, uint32_t sid)
{
	put_str(x, r, c, opmfu_strtab_str(&t->strs, sid), opmfu_strtab_len(&t->strs, sid), x->cell);
}

static enum opmfu_status write_kernel(const char *path, int rank, const struct opmfu_trace *t,
				      const struct opmfu_op_mfu *op, size_t max_rows, struct opmfu_xlsx_stats *stats,
				      char **staged, struct opmfu_err *err)
{
	struct xw x;
	lxw_conditional_format cf;
	enum opmfu_status st;
	char range[LXW_MAX_CELL_RANGE_LENGTH];
	size_t i, n = op->stats.rows;
	lxw_row_t row = 0;

	if (!max_rows)
		max_rows = OPMFU_XLSX_MAX_ROWS;
	if (n == 0)
		return staged ? OPMFU_OK : remove_stale(path, err);
	if (n > max_rows - 1)
		return too_many(path, "OperatorMFU", n, max_rows, err);
	if ((st = xw_open(&x, path, 1, err)))
		return st;
	/* sheet-wide settings first: in constant_memory mode nothing may refer
	 * back to a row already written */
	xw_sheet(&x, kernel_head, K_NCOL, kernel_widths, n);
	memset(&cf, 0, sizeof(cf));
	cf.type = LXW_CONDITIONAL_3_COLOR_SCALE;
	/* fixed points, so one colour means one MFU in every rank's file */
	cf.min_rule_type = LXW_CONDITIONAL_RULE_TYPE_NUMBER;
	cf.min_value = 0;
	cf.min_color = 0xF8696B;
	cf.mid_rule_type = LXW_CONDITIONAL_RULE_TYPE_NUMBER;
	cf.mid_value = 0.5;
	cf.mid_color = 0xFFEB84;
	cf.max_rule_type = LXW_CONDITIONAL_RULE_TYPE_NUMBER;
	cf.max_value = 1;
	cf.max_color = 0x63BE7B;
	note(&x, worksheet_conditional_format_range(x.ws, 1, K_MFU, (lxw_row_t)n, K_MFU, &cf), 1, K_MFU);
	/* the timestamps are digits written as text on purpose (see put_i64_text) */
	lxw_rowcol_to_range(range, 1, K_START, (lxw_row_t)n, K_END);
	note(&x, worksheet_ignore_errors(x.ws, LXW_IGNORE_NUMBER_STORED_AS_TEXT, range), 1, K_START);

	for (i = 0; i < op->n_r && !x.lerr; i++) {
		const struct opmfu_link *r = &t->links[op->r[i]];
		uint32_t e = opmfu_op_mfu_first(op, t, r);
		for (; e != OPMFU_NO_ENTRY && !x.lerr; e = op->m[e].next) {
			const struct opmfu_mfu_entry *m = &op->m[e];
			const struct opmfu_link *sl = &t->links[m->link];
			const struct opmfu_flops_fact *rec = opmfu_op_mfu_fact(op, m);
			const char *msg = opmfu_strtab_str(&t->strs, rec->name);
			row++;
			put_num(&x, row, K_RANK, rank, x.cell);
			put_sid(&x, row, K_OP, t, r->op_name);
			put_sid(&x, row, K_KERNEL, t, r->k_name);
			/* epoch nanoseconds have 19 digits; a sheet number keeps
			 * 15-16 and would be off by up to a microsecond */
			put_i64_text(&x, row, K_START, r->k_start, x.cell);
			put_i64_text(&x, row, K_END, r->k_end, x.cell);
			put_num(&x, row, K_DUR, (double)(r->k_end - r->k_start), x.cell);
			put_num(&x, row, K_MFU, opmfu_round(m->mfu, 4), x.pct);
			put_num(&x, row, K_TFLOPS, opmfu_round(m->tput / 1e12, 2), x.cell);
			put_num(&x, row, K_PEAK, opmfu_round(m->peak / 1e12, 2), x.cell);
			put_num(&x, row, K_FLOPS, (double)rec->flops, x.cell);
			put_str(&x, row, K_FLOPS_OP, msg + rec->name_off,
				opmfu_strtab_len(&t->strs, rec->name) - rec->name_off, x.cell);
			/* the reader gives shapes without their quotes */
			put_sid(&x, row, K_IN, t, sl->in_shapes);
			put_sid(&x, row, K_OUT, t, sl->out_shapes);
		}
	}
	x.st.rows = row;
	return xw_finish(&x, stats, staged, err);
}

enum opmfu_status opmfu_xlsx_write_kernel(const char *path, int rank, const struct opmfu_trace *t,
					  const struct opmfu_op_mfu *op, size_t max_rows,
					  struct opmfu_xlsx_stats *stats, struct opmfu_err *err)
{
	return write_kernel(path, rank, t, op, max_rows, stats, NULL, err);
}

/* ---- module workbook ---- */

static int same(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* Data rows [a, b) of column c hold s: one cell, or one merged range. */
static void put_run(struct xw *x, size_t a, size_t b, lxw_col_t c, const char *s)
{
	lxw_row_t first = (lxw_row_t)a + 1, last = (lxw_row_t)b;
	if (b - a == 1) {
		put_cstr(x, first, c, s, x->cell);
		return;
	}
	if (x->lerr)
		return;
	/* merge_range writes the text with worksheet_write_string: never a formula */
	note(x, worksheet_merge_range(x->ws, first, c, last, c, s ? cell_text(x, s, strlen(s)) : "", x->cell), first,
	     c);
}

enum opmfu_status opmfu_xlsx_write_module(const char *path, int rank, const struct opmfu_module_mfu *mod,
					  size_t max_rows, struct opmfu_xlsx_stats *stats,
					  struct opmfu_err *err)
{
	struct xw x;
	enum opmfu_status st;
	size_t i, j, pe, me, n = mod->n_rows;

	if (!max_rows)
		max_rows = OPMFU_XLSX_MAX_ROWS;
	if (n == 0)
		return remove_stale(path, err);
	if (n > max_rows - 1)
		return too_many(path, "ModuleMFU", n, max_rows, err);
	if ((st = xw_open(&x, path, 0, err)))
		return st;
	xw_sheet(&x, module_head, M_NCOL, module_widths, n);
	for (i = 0; i < n && !x.lerr; i++) {
		const struct opmfu_module_row *r = &mod->rows[i];
		lxw_row_t row = (lxw_row_t)i + 1;
		put_num(&x, row, M_RANK, rank, x.cell);
		put_cstr(&x, row, M_OP, r->op_name, x.cell);
		put_cstr(&x, row, M_KLIST, r->kernel_list, x.cell);
		put_num(&x, row, M_TOTAL, r->total_ns, x.cell);
		put_num(&x, row, M_AVG, r->avg_ns, x.cell);
		put_num(&x, row, M_COUNT, (double)r->op_count, x.cell);
		put_cstr(&x, row, M_MFU, r->avg_mfu, x.cell);
	}
	/* Parent Module: runs of equal cells; Module: runs of equal cells inside
	 * one Parent Module run, never across two (SPEC 5.4) */
	for (i = 0; i < n && !x.lerr; i = pe) {
		for (pe = i + 1; pe < n && same(mod->rows[pe].parent, mod->rows[i].parent); pe++)
			;
		put_run(&x, i, pe, M_PARENT, mod->rows[i].parent);
		for (j = i; j < pe; j = me) {
			for (me = j + 1; me < pe && same(mod->rows[me].module, mod->rows[j].module); me++)
				;
			put_run(&x, j, me, M_MODULE, mod->rows[j].module);
		}
	}
	x.st.rows = n;
	return xw_finish(&x, stats, NULL, err);
}

/* ---- one rank ---- */

static char *rank_path(const char *dir, const char *kind, int rank)
{
	struct sbuf path;
	sbuf_init(&path);
	sbuf_addf(&path, "%s/operator_mfu_%s_%d.xlsx", dir, kind, rank);
	return sbuf_detach(&path);
}

enum opmfu_status opmfu_xlsx_stage_kernel(const char *dir, int rank, const struct opmfu_trace *t,
					  const struct opmfu_op_mfu *op, struct opmfu_xlsx_staged *sg,
					  struct opmfu_xlsx_stats *stats, struct opmfu_err *err)
{
	enum opmfu_status st;

	memset(sg, 0, sizeof(*sg));
	if (!(sg->path = rank_path(dir, "kernel", rank)))
		return nomem(dir, err);
	if ((st = write_kernel(sg->path, rank, t, op, 0, stats, &sg->tmp, err)))
		opmfu_xlsx_discard(sg);
	return st;
}

enum opmfu_status opmfu_xlsx_commit(struct opmfu_xlsx_staged *sg, unsigned *written, struct opmfu_err *err)
{
	enum opmfu_status st = OPMFU_OK;

	if (!sg->path)
		return OPMFU_OK;
	if (!sg->tmp) {
		st = remove_stale(sg->path, err);
	} else if (rename(sg->tmp, sg->path) != 0) {
		st = opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot replace it: %s", sg->path, strerror(errno));
	} else {
		*written |= OPMFU_XLSX_KERNEL;
		opmfu_free(sg->tmp);
		sg->tmp = NULL;
	}
	opmfu_xlsx_discard(sg);
	return st;
}

void opmfu_xlsx_discard(struct opmfu_xlsx_staged *sg)
{
	if (sg->tmp)
		unlink(sg->tmp);
	opmfu_free(sg->tmp);
	opmfu_free(sg->path);
	memset(sg, 0, sizeof(*sg));
}

enum opmfu_status opmfu_xlsx_out_module(const char *dir, int rank, const struct opmfu_module_mfu *mod,
					unsigned *written, struct opmfu_xlsx_stats *stats, struct opmfu_err *err)
{
	struct opmfu_xlsx_stats ms;
	enum opmfu_status st;
	char *path = rank_path(dir, "module", rank);

	if (!path)
		return nomem(dir, err);
	memset(&ms, 0, sizeof(ms));
	st = opmfu_xlsx_write_module(path, rank, mod, 0, &ms, err);
	if (ms.rows)
		*written |= OPMFU_XLSX_MODULE;
	if (stats) {
		stats->rows += ms.rows;
		stats->truncated += ms.truncated;
		stats->repaired += ms.repaired;
		stats->blanks += ms.blanks;
	}
	opmfu_free(path);
	return st;
}
