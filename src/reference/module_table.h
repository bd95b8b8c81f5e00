/*
 * module_table.h - the ModuleMFU table (SPEC 3.7): a view over the rows of
 * struct opmfu_module_mfu, which are already in output order.
 */
#ifndef OPMFU_MODULE_TABLE_H
#define OPMFU_MODULE_TABLE_H

#include "reference/module_mfu.h"
#include "trace/table.h"

extern const struct opmfu_table_def opmfu_module_mfu_def;

struct opmfu_module_view {
	const struct opmfu_module_mfu *mod;
	int rank;
};

/* The table over mod's rows for rank; v is filled here and must outlive the
 * table, mod too. */
struct opmfu_table opmfu_module_table(struct opmfu_module_view *v, const struct opmfu_module_mfu *mod, int rank);

#endif
