/*
 * write_jsonl.c - the JSON Lines export: DIR/<Table>.jsonl per table, one
 * JSON object (RFC 8259) per row and line, its keys the column names in
 * column order, lines ending in LF.
 *
 * NULL is null. Integers are exact digits (19-digit ns timestamps too; a
 * reader that keeps numbers as doubles, like jq before 1.7, rounds them).
 * Reals are the shortest digits that read back to the same double; NaN,
 * which the database holds as NULL, and the infinities, which JSON cannot
 * spell, are null (infinities are counted for a warning). Strings escape
 * '"', '\\' and the control characters (\n, \r, \t, \b, \f, else \u00XX);
 * bytes that are not valid UTF-8 become U+FFFD, one per maximal invalid
 * subsequence as Python's errors="replace" and WHATWG decoders do (counted
 * for a warning), so every line is valid JSON whatever the texts hold.
 */
#include <math.h>
#include <string.h>

#include "write/text_writer.h"
#include "write/utf8.h"

extern const struct opmfu_writer_type opmfu_writer_json;

/* Appends s[0..n) as a JSON string; returns 1 when invalid UTF-8 was replaced. */
static int json_str(struct sbuf *out, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, from = 0;
	int bad = 0;

	sbuf_add(out, "\"", 1);
	while (i < n) {
		unsigned c = u[i];
		char esc[6] = { '\\', 'u', '0', '0', 0, 0 };
		size_t k, e = 2;
		int ok;
		if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0x80) {
			k = opmfu_utf8_next(u + i, n - i, &ok);
			if (ok) {
				i += k;
				continue;
			}
			sbuf_add(out, s + from, i - from);
			sbuf_add(out, "\xEF\xBF\xBD", 3);
			bad = 1;
			from = i += k;
			continue;
		}
		switch (c) {
		case '"': esc[1] = '"'; break;
		case '\\': esc[1] = '\\'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		default:
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			e = 6;
		}
		sbuf_add(out, s + from, i - from);
		sbuf_add(out, esc, e);
		from = ++i;
	}
	sbuf_add(out, s + from, n - from);
	sbuf_add(out, "\"", 1);
	return bad;
}

static void json_row(const struct opmfu_table_def *def, const struct opmfu_cell *c, struct sbuf *out,
		     struct opmfu_text_reals *reals, struct opmfu_write_stats *st)
{
	size_t k;

	sbuf_add(out, "{", 1);
	for (k = 0; k < def->n_cols; k++) {
		if (k)
			sbuf_add(out, ",", 1);
		json_str(out, def->cols[k].name, strlen(def->cols[k].name));
		sbuf_add(out, ":", 1);
		if (c[k].null) {
			sbuf_add(out, "null", 4);
		} else if (def->cols[k].type == OPMFU_COL_INT) {
			opmfu_text_int(out, c[k].v.i);
		} else if (def->cols[k].type == OPMFU_COL_TEXT || def->cols[k].type == OPMFU_COL_BLOB) {
			st->repaired += (size_t)json_str(out, c[k].v.t.s, c[k].v.t.n);
		} else if (isfinite(c[k].v.r)) {
			opmfu_text_real(out, reals, c[k].v.r);
		} else {
			st->nulled += isinf(c[k].v.r) != 0;
			sbuf_add(out, "null", 4);
		}
	}
	sbuf_add(out, "}\n", 2);
}

static const struct opmfu_text_format json_format = { ".jsonl", NULL, json_row };

static enum opmfu_status json_open(struct opmfu_writer **w, const char *dir, const struct opmfu_table_def *const *defs,
				   size_t n_defs, struct opmfu_err *err)
{
	return opmfu_text_open(w, &opmfu_writer_json, &json_format, dir, defs, n_defs, err);
}

const struct opmfu_writer_type opmfu_writer_json = {
	"json", "json", json_open, opmfu_text_put, opmfu_text_keep_rank, opmfu_text_drop_rank, opmfu_text_commit,
	opmfu_text_close, NULL,
};
