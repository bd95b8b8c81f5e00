/*
 * xlsx_book.c - a staged workbook and its cells (write/xlsx_book.h).
 */
#include "write/xlsx_book.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "write/stage.h"
#include "write/utf8.h"

#define CELL_CHARS_MAX 32767 /* characters in one Excel cell */

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
 * copy in b->scratch with bad bytes (and NULs) as U+FFFD and the tail cut,
 * as the reference's XlsxWriter cuts it.
 */
const char *opmfu_xbook_text(struct opmfu_xbook *b, const char *s, size_t n)
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
	sbuf_reset(&b->scratch);
	if (i == n) {
		/* valid, only not terminated (a stripped shape): one copy */
		sbuf_add(&b->scratch, s, n);
		if (b->scratch.oom)
			b->oom = 1;
		return b->scratch.buf;
	}
	i = chars = 0;
	while (i < n && chars < CELL_CHARS_MAX) {
		k = utf8_seq(u + i, n - i);
		if (k == 0 || u[i] == 0) {
			sbuf_add(&b->scratch, "\xEF\xBF\xBD", 3);
			bad = 1;
			k = 1;
		} else {
			sbuf_add(&b->scratch, s + i, k);
		}
		i += k;
		chars++;
	}
	if (bad)
		b->st.repaired++;
	if (i < n)
		b->st.truncated++;
	if (b->scratch.oom)
		b->oom = 1;
	return b->scratch.buf;
}

/* ---- cells ---- */

void opmfu_xbook_note(struct opmfu_xbook *b, lxw_error e, lxw_row_t r, lxw_col_t c)
{
	if (e && !b->lerr) {
		b->lerr = e;
		b->err_sheet = b->sheet;
		b->err_row = r;
		b->err_col = c;
	}
}

void opmfu_xbook_str(struct opmfu_xbook *b, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, const char *s, size_t n,
		     lxw_format *f)
{
	if (b->lerr)
		return;
	if (!s)
		opmfu_xbook_note(b, LXW(worksheet_write_blank)(ws, r, c, f), r, c);
	else
		opmfu_xbook_note(b, LXW(worksheet_write_string)(ws, r, c, opmfu_xbook_text(b, s, n), f), r, c);
}

void opmfu_xbook_cstr(struct opmfu_xbook *b, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, const char *s,
		      lxw_format *f)
{
	opmfu_xbook_str(b, ws, r, c, s, s ? strlen(s) : 0, f);
}

/* libxlsxwriter would write NaN as "-NAN", which Excel rejects. */
void opmfu_xbook_num(struct opmfu_xbook *b, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, double v, lxw_format *f)
{
	if (b->lerr)
		return;
	if (!isfinite(v)) {
		b->st.blanks++;
		opmfu_xbook_note(b, LXW(worksheet_write_blank)(ws, r, c, f), r, c);
		return;
	}
	opmfu_xbook_note(b, LXW(worksheet_write_number)(ws, r, c, v, f), r, c);
}

void opmfu_xbook_i64_text(struct opmfu_xbook *b, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, int64_t v,
			  lxw_format *f)
{
	char buf[24];
	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	opmfu_xbook_cstr(b, ws, r, c, buf, f);
}

void opmfu_xbook_print_setup(struct opmfu_xbook *b, lxw_worksheet *ws, int header)
{
	LXW(worksheet_set_landscape)(ws);
	/* one page wide, as many pages high as the rows need */
	LXW(worksheet_fit_to_pages)(ws, 1, 0);
	if (header)
		opmfu_xbook_note(b, LXW(worksheet_repeat_rows)(ws, 0, 0), 0, 0);
}

/* ---- files ---- */

enum opmfu_status opmfu_xbook_nomem(const char *path, struct opmfu_err *err)
{
	return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory writing the workbook", path);
}

void opmfu_xbook_free(struct opmfu_xbook *b)
{
	if (b->wb)
		LXW(lxw_workbook_free)(b->wb);
	opmfu_stage_scratch_done(b->scratch_dir);
	opmfu_stage_discard(b->tmp);
	opmfu_free(b->tmp);
	opmfu_free(b->dir);
	sbuf_release(&b->scratch);
	memset(b, 0, sizeof(*b));
}

/* ---- libxlsxwriter, loaded by the first workbook (xlsx_book.h) ---- */

#ifndef OPMFU_LXW_SONAME
#error "OPMFU_LXW_SONAME: the library's file name, found by meson.build"
#endif

/* each entry's type is the header's declaration of the function: a
 * generic selection does not evaluate &name, so nothing links to it */
#define OPMFU_LXW_CHECK(ret, name, args) \
	_Static_assert(_Generic(&name, ret(*) args: 1, default: 0), #name ": LXW's type is not the header's");
OPMFU_LXW_FUNCS(OPMFU_LXW_CHECK)

struct opmfu_lxw opmfu_lxw;
static pthread_once_t lxw_once = PTHREAD_ONCE_INIT;
static char lxw_why[256]; /* empty: loaded */

static void lxw_open(void)
{
	/* never closed: the workbooks of a run use it until the process ends */
	void *h = dlopen(OPMFU_LXW_SONAME, RTLD_NOW | RTLD_LOCAL), *f;
	const char *e;

	if (!h) {
		e = dlerror();
		snprintf(lxw_why, sizeof(lxw_why), "%s", e ? e : "dlopen failed");
		return;
	}
#define OPMFU_LXW_SYM(ret, name, args) \
	if (!(f = dlsym(h, #name))) { \
		snprintf(lxw_why, sizeof(lxw_why), "%s has no %s", OPMFU_LXW_SONAME, #name); \
		return; \
	} \
	memcpy(&opmfu_lxw.name, &f, sizeof(f));
	OPMFU_LXW_FUNCS(OPMFU_LXW_SYM)
}

enum opmfu_status opmfu_lxw_load(const char *path, struct opmfu_err *err)
{
	pthread_once(&lxw_once, lxw_open);
	if (lxw_why[0])
		return opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot write the workbook: libxlsxwriter (%s) cannot be "
				     "loaded: %s", path, OPMFU_LXW_SONAME, lxw_why);
	return OPMFU_OK;
}

enum opmfu_status opmfu_xbook_open(struct opmfu_xbook *b, const char *path, int constant_memory,
				   struct opmfu_err *err)
{
	const char *slash = strrchr(path, '/');
	lxw_workbook_options wo;
	enum opmfu_status st;
	int fd;

	memset(b, 0, sizeof(*b));
	b->path = path;
	sbuf_init(&b->scratch);
	if ((st = opmfu_lxw_load(path, err)))
		return st;
	b->dir = slash ? opmfu_strndup(path, (size_t)(slash - path) + (slash == path)) : opmfu_strdup(".");
	if (!b->dir) {
		opmfu_xbook_free(b);
		return opmfu_xbook_nomem(path, err);
	}
	if ((st = opmfu_stage_file(path, &b->tmp, &fd, err))) {
		opmfu_xbook_free(b);
		return st;
	}
	close(fd);
	/* libxlsxwriter's scratch files go next to the output, not to /tmp,
	 * which is often memory-backed; in a hidden folder of their own, which
	 * an interrupted run's handler or a later run removes */
	if ((st = opmfu_stage_scratch(b->dir, &b->scratch_dir, err))) {
		opmfu_xbook_free(b);
		return st;
	}
	memset(&wo, 0, sizeof(wo));
	wo.constant_memory = constant_memory ? LXW_TRUE : LXW_FALSE;
	wo.tmpdir = b->scratch_dir;
	if (!(b->wb = LXW(workbook_new_opt)(b->tmp, &wo))) {
		opmfu_xbook_free(b);
		return opmfu_xbook_nomem(path, err);
	}
	return OPMFU_OK;
}

lxw_format *opmfu_xbook_format(struct opmfu_xbook *b)
{
	lxw_format *f = LXW(workbook_add_format)(b->wb);
	if (!f)
		b->oom = 1;
	return f;
}

enum opmfu_status opmfu_xbook_finish(struct opmfu_xbook *b, struct opmfu_write_stats *stats, char **staged,
				     struct opmfu_err *err)
{
	enum opmfu_status st = OPMFU_OK;
	lxw_error e;
	int fd;

	if (b->oom || b->lerr == LXW_ERROR_MEMORY_MALLOC_FAILED) {
		st = opmfu_xbook_nomem(b->path, err);
		goto out;
	}
	if (b->lerr) {
		char cell[LXW_MAX_CELL_NAME_LENGTH];
		LXW(lxw_rowcol_to_cell)(cell, b->err_row, b->err_col);
		st = opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot write cell %s%s%s: %s", b->path,
				   b->err_sheet ? b->err_sheet : "", b->err_sheet ? "!" : "", cell,
				   LXW(lxw_strerror)(b->lerr));
		goto out;
	}
	errno = 0;
	e = LXW(workbook_close)(b->wb);
	b->wb = NULL;
	if (e) {
		int sys = errno;
		st = opmfu_err_set(err, e == LXW_ERROR_MEMORY_MALLOC_FAILED ? OPMFU_ERR_NOMEM : OPMFU_ERR_IO,
				   "%s: cannot write the workbook: %s%s%s%s", b->path, LXW(lxw_strerror)(e),
				   sys ? " (" : "", sys ? strerror(sys) : "", sys ? ")" : "");
		goto out;
	}
	/* on disk before the rename, so a crash cannot leave an empty file in
	 * place of the previous one */
	fd = open(b->tmp, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) != 0) {
		st = opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot write the workbook: %s", b->path, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	close(fd);
	*staged = b->tmp;
	b->tmp = NULL;
out:
	stats->truncated += b->st.truncated;
	stats->repaired += b->st.repaired;
	stats->blanks += b->st.blanks;
	opmfu_xbook_free(b);
	return st;
}
