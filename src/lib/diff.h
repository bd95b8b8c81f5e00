/*
 * diff.h - what `opmfu diff`'s files share (lib/ only): the rows computed
 * from two result databases read back (lib/diff_rows.c), the OpmfuDiff
 * table over them (lib/diff_table.c), and the run (lib/diff.c).
 */
#ifndef OPMFU_LIB_DIFF_H
#define OPMFU_LIB_DIFF_H

#include "base/intern.h"
#include "trace/table.h"
#include "lib/report.h"
#include "opmfu.h"
#include "read/results.h"

/* The names of a diff's rows (module paths, op names, conventions, rank
 * ids): the results of both sides are read into one set, so a name is the
 * same id on both. */
struct opmfu_diff_store {
	struct opmfu_arena ar;
	struct opmfu_intern names;
};

/* A new, empty store in d->store; NULL when out of memory. */
struct opmfu_diff_store *opmfu_diff_store_new(struct opmfu_diff *d);

/*
 * Fills d's ranks (compared, and per side failed and only) and rows from
 * the two sides' results, whose names are in d->store. ranks (when given,
 * ascending or not) limits the ranks looked at; a rank of it on neither
 * side is OPMFU_ERR_USAGE. No rank on both sides is OPMFU_ERR_NOINPUT.
 */
enum opmfu_status opmfu_diff_compute(const struct opmfu_results res[2], const int *ranks, size_t n_ranks,
				     struct opmfu_diff *d, struct opmfu_err *err);

/* The OpmfuDiff table (schema/out/opmfu_diff.sql) of d's rows: what the
 * writers and the summary workbook's Diff sheet are given. */
extern const struct opmfu_table_def opmfu_diff_def;
struct opmfu_table opmfu_diff_table(const struct opmfu_diff *d);

#endif
