/*
 * module_mfu.h - module-level MFU (SPEC 3): the Module range tree, ops
 * attached to their innermost module, aggregated per module call pattern.
 */
#ifndef OPMFU_MODULE_MFU_H
#define OPMFU_MODULE_MFU_H

#include <stddef.h>

#include "base/err.h"
#include "trace/trace.h"
#include "reference/op_mfu.h"
#include "reference/module_tree.h" /* OPMFU_MODULE_MAX_DEPTH */

/* One ModuleMFU row. Strings point into the result's pool or into the
 * trace's string table. */
struct opmfu_module_row {
	const char *parent, *module, *op_name, *kernel_list, *avg_mfu;
	double total_ns, avg_ns;
	size_t op_count;
	/* over the group's kernels with an MFU > 0: sum of mfu x ns, and of ns,
	 * so any set of rows has a time-weighted MFU */
	double mfu_x_ns, mfu_ns;
};

/* Kernel time of one (parent_module, module) pair, before the _k suffixes of
 * SPEC 3.6, over the ops directly under it. */
struct opmfu_module_total {
	const char *parent, *module;
	double kernel_ns;
	double mfu; /* sum(mfu x ns) / sum(ns) over its kernels with an MFU > 0, or -1 */
};

struct opmfu_module_mfu {
	struct opmfu_module_row *rows; /* in output order (SPEC 3.7) */
	size_t n_rows, cap_rows;
	struct opmfu_module_total *totals; /* most kernel time first, ties in row order */
	size_t n_totals;
	size_t ops_too_deep; /* op nodes left out: their module is deeper than OPMFU_MODULE_MAX_DEPTH */
	char **pool; /* owned string blocks */
	size_t n_pool, cap_pool;
};

void opmfu_module_mfu_init(struct opmfu_module_mfu *res);
void opmfu_module_mfu_release(struct opmfu_module_mfu *res);

/*
 * Builds the ModuleMFU rows of trace t (SPEC 3). op must be the result of
 * opmfu_op_mfu_run() on t: its R order gives the compute rows and its entries
 * the kernels' MFU. res must be freshly initialised; its strings may point
 * into t's string table, so t must outlive res. A trace without Module ranges
 * gives no rows. Cost O(n log n) in the kernel rows; memory proportional to
 * them. Returns OPMFU_OK, or OPMFU_ERR_NOMEM with a message in err (res is
 * then empty).
 */
enum opmfu_status opmfu_module_mfu_run(const struct opmfu_trace *t, const struct opmfu_op_mfu *op,
				       struct opmfu_module_mfu *res, struct opmfu_err *err);

/*
 * The same over a module tree the caller built from (t, op) and keeps, for
 * callers that also run other analyses over it: opmfu_module_mfu_run() is
 * opmfu_module_tree_build() then this.
 */
enum opmfu_status opmfu_module_mfu_run_tree(const struct opmfu_trace *t, const struct opmfu_op_mfu *op,
					    const struct opmfu_module_tree *mt, struct opmfu_module_mfu *res,
					    struct opmfu_err *err);

#endif
