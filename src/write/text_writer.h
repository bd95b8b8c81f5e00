/*
 * text_writer.h - the writers that keep one text file per table (CSV, JSON
 * Lines): DIR/<Table><ext>, holding every rank's rows in rank order, as the
 * database table does. A format is its file extension, the bytes a file
 * starts with and how one row is spelt; everything else is shared here:
 *
 * - open stages one file per table under a temporary name beside its final
 *   one (write/stage.h) and writes its head, so a table without rows still
 *   gets its file;
 * - put appends the rows; keep_rank notes where each file ends; drop_rank
 *   cuts the files back there (the rank's rows go, whatever table they were
 *   in); commit syncs the files and renames each over its final name;
 *   close removes whatever was not committed.
 */
#ifndef OPMFU_TEXT_WRITER_H
#define OPMFU_TEXT_WRITER_H

#include <stdint.h>

#include "base/sbuf.h"
#include "write/writer.h"

/* The spelling of recent reals (see opmfu_text_real). */
struct opmfu_text_reals;

struct opmfu_text_format {
	const char *ext; /* ".csv" */
	/* Appends what a file starts with (CSV: the header row); NULL: nothing. */
	void (*head)(const struct opmfu_table_def *def, struct sbuf *out);
	/* Appends one row (its reals through opmfu_text_real with reals); counts
	 * what the format could not hold as it is in st. */
	void (*row)(const struct opmfu_table_def *def, const struct opmfu_cell *cells, struct sbuf *out,
		    struct opmfu_text_reals *reals, struct opmfu_write_stats *st);
};

/* Opens a writer of type (whose other functions are the ones below) for
 * fmt's files in the directory dir, which exists. */
enum opmfu_status opmfu_text_open(struct opmfu_writer **w, const struct opmfu_writer_type *type,
				  const struct opmfu_text_format *fmt, const char *dir,
				  const struct opmfu_table_def *const *defs, size_t n_defs, struct opmfu_err *err);
enum opmfu_status opmfu_text_put(struct opmfu_writer *w, int rank, const struct opmfu_table *t,
				 struct opmfu_err *err);
enum opmfu_status opmfu_text_keep_rank(struct opmfu_writer *w, int rank, struct opmfu_write_stats *st,
				       struct opmfu_err *err);
enum opmfu_status opmfu_text_drop_rank(struct opmfu_writer *w, int rank, struct opmfu_err *err);
enum opmfu_status opmfu_text_commit(struct opmfu_writer *w, struct opmfu_err *err);
void opmfu_text_close(struct opmfu_writer *w);

/* From now on w, one of these writers, spells rows as fmt does (whose ext
 * and head must be its format's). */
void opmfu_text_set_format(struct opmfu_writer *w, const struct opmfu_text_format *fmt);

/* w, a CSV writer (opmfu_writer_csv), writes texts that a spreadsheet would
 * read as formulas as they are, without the ' it puts in front of them by
 * default (write_csv.c); for --csv-verbatim. */
void opmfu_csv_verbatim(struct opmfu_writer *w);

/* The decimal digits of v, exactly (19-digit ns timestamps too). */
void opmfu_text_int(struct sbuf *out, int64_t v);

/* Finite x in the shortest digits that read back to the same double, as
 * Python's repr spells it ("50.0", "1e+16", "-0.0"): a number in CSV and
 * JSON alike. Finding the shortest digits takes up to 17 printf and strtod
 * rounds, while a table's reals repeat (a peak on every row, ratios of 4
 * decimals), so reals (NULL: none) keeps the spelling of recent ones. */
void opmfu_text_real(struct sbuf *out, struct opmfu_text_reals *reals, double x);

#endif
