/*
 * module_table.h - the ModuleMFU table (SPEC 3.7): a view over the rows of
 * struct opmfu_module_mfu, which are already in output order.
 */
#ifndef OPMFU_MODULE_TABLE_H
#define OPMFU_MODULE_TABLE_H

#include "reference/module_mfu.h"
#include "trace/analysis.h"
#include "trace/table.h"

extern const struct opmfu_table_def opmfu_module_mfu_def;

struct opmfu_module_view {
	const struct opmfu_module_mfu *mod;
	int rank;
};

/* The table over mod's rows for rank; v is filled here and must outlive the
 * table, mod too. */
struct opmfu_table opmfu_module_table(struct opmfu_module_view *v, const struct opmfu_module_mfu *mod, int rank);

/* The registered analysis "module_mfu" (ModuleMFU, the last stage); its
 * state begins with the module tree's result. */
struct opmfu_module_mfu_state {
	struct opmfu_module_mfu mod;
	struct opmfu_module_view view;
};
extern const struct opmfu_analysis opmfu_analysis_module_mfu;

#endif
