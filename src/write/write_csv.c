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
 * bytes as they are, UTF-8 without a byte order mark.
 */
#include <math.h>
#include <string.h>

#include "write/text_writer.h"

extern const struct opmfu_writer_type opmfu_writer_csv;

static void csv_text(struct sbuf *out, const char *s, size_t n)
{
	size_t i, from = 0;
	int quote = n == 0;

	for (i = 0; i < n && !quote; i++)
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n';
	if (!quote) {
		sbuf_add(out, s, n);
		return;
	}
	sbuf_add(out, "\"", 1);
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
		csv_text(out, def->cols[k].name, strlen(def->cols[k].name));
	}
	sbuf_add(out, "\r\n", 2);
}

static void csv_row(const struct opmfu_table_def *def, const struct opmfu_cell *c, struct sbuf *out,
		    struct opmfu_text_reals *reals, struct opmfu_write_stats *st)
{
	size_t k;

	(void)st;
	for (k = 0; k < def->n_cols; k++) {
		if (k)
			sbuf_add(out, ",", 1);
		if (c[k].null)
			continue;
		if (def->cols[k].type == OPMFU_COL_INT)
			opmfu_text_int(out, c[k].v.i);
		else if (def->cols[k].type == OPMFU_COL_TEXT)
			csv_text(out, c[k].v.t.s, c[k].v.t.n);
		else if (!isnan(c[k].v.r))
			opmfu_text_real(out, reals, c[k].v.r);
	}
	sbuf_add(out, "\r\n", 2);
}

static const struct opmfu_text_format csv_format = { ".csv", csv_head, csv_row };

static enum opmfu_status csv_open(struct opmfu_writer **w, const char *dir, const struct opmfu_table_def *const *defs,
				  size_t n_defs, struct opmfu_err *err)
{
	return opmfu_text_open(w, &opmfu_writer_csv, &csv_format, dir, defs, n_defs, err);
}

const struct opmfu_writer_type opmfu_writer_csv = {
	"csv", "csv", csv_open, opmfu_text_put, opmfu_text_keep_rank, opmfu_text_drop_rank, opmfu_text_commit,
	opmfu_text_close,
};
