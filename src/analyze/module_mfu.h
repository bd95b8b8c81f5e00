/*
 * module_mfu.h - module-level MFU (SPEC 3): the Module range tree, ops
 * attached to their innermost module, aggregated per module call pattern.
 */
#ifndef OPMFU_MODULE_MFU_H
#define OPMFU_MODULE_MFU_H

#include <stddef.h>

#include "../base/err.h"
#include "../model/trace.h"
#include "op_mfu.h"

/* One ModuleMFU row. Strings point into the result's pool. */
struct opmfu_module_row {
	const char *parent, *module, *op_name, *kernel_list, *avg_mfu;
	double total_ns, avg_ns;
	size_t op_count;
	double flops, capacity; /* for the summary's module MFU: sum FLOPs, sum time x peak */
};

struct opmfu_module_mfu {
	struct opmfu_module_row *rows;
	size_t n_rows, cap_rows;
	char **pool; /* owned strings */
	size_t n_pool, cap_pool;
};

void opmfu_module_mfu_init(struct opmfu_module_mfu *res);
void opmfu_module_mfu_release(struct opmfu_module_mfu *res);

#endif
