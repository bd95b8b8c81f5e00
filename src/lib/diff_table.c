/*
 * diff_table.c - the OpmfuDiff table (schema/out/opmfu_diff.sql): a row per
 * row of struct opmfu_diff, NAN as NULL.
 */
#include <math.h>

#include "lib/diff.h"

static const struct opmfu_column cols[] = {
	{ "kind", OPMFU_COL_TEXT, "Kind", 12, 0 },
	{ "name", OPMFU_COL_TEXT, "Name", 60, 0 },
	{ "base_kernel_ns", OPMFU_COL_INT, "Base Time(ns)", 15, 0 },
	{ "new_kernel_ns", OPMFU_COL_INT, "New Time(ns)", 15, 0 },
	{ "base_flops", OPMFU_COL_REAL, "Base FLOPs", 18, 0 },
	{ "new_flops", OPMFU_COL_REAL, "New FLOPs", 18, 0 },
	{ "base_mfu", OPMFU_COL_REAL, "Base MFU", 10, OPMFU_COLF_PERCENT },
	{ "new_mfu", OPMFU_COL_REAL, "New MFU", 10, OPMFU_COLF_PERCENT },
	{ "base_lost_ns", OPMFU_COL_INT, "Base Lost Time(ns)", 15, 0 },
	{ "new_lost_ns", OPMFU_COL_INT, "New Lost Time(ns)", 15, 0 },
	{ "delta_lost_ns", OPMFU_COL_INT, "Change in Lost Time(ns)", 15, 0 },
};

const struct opmfu_table_def opmfu_diff_def = {
	"OpmfuDiff", cols, sizeof(cols) / sizeof(cols[0]), NULL, 0, NULL,
};

/* Whole nanoseconds (the rows hold them as integral doubles); a value
 * beyond an INTEGER (only a database edited by hand gives one) is NULL. */
static struct opmfu_cell ns(double v)
{
	return fabs(v) < 9.2e18 ? opmfu_cell_int((int64_t)v) : opmfu_cell_null();
}

static struct opmfu_cell real(double v)
{
	return isnan(v) ? opmfu_cell_null() : opmfu_cell_real(v);
}

static void diff_row(const void *src, size_t i, struct opmfu_cell *c)
{
	const struct opmfu_diff_row *r = &((const struct opmfu_diff *)src)->rows[i];

	c[0] = opmfu_cell_str(opmfu_diff_kind_name(r->kind));
	c[1] = opmfu_cell_str(r->name);
	c[2] = ns(r->kernel_ns[0]);
	c[3] = ns(r->kernel_ns[1]);
	c[4] = real(r->flops[0]);
	c[5] = real(r->flops[1]);
	c[6] = real(r->mfu[0]);
	c[7] = real(r->mfu[1]);
	c[8] = ns(r->lost_ns[0]);
	c[9] = ns(r->lost_ns[1]);
	c[10] = ns(r->delta_lost_ns);
}

struct opmfu_table opmfu_diff_table(const struct opmfu_diff *d)
{
	struct opmfu_table tab = { &opmfu_diff_def, d->n_rows, diff_row, d };
	return tab;
}
