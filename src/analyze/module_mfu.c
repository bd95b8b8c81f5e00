/*
 * module_mfu.c - SPEC 3 module tree and aggregation.
 */
#include "module_mfu.h"

#include <string.h>

#include "../base/mem.h"

void opmfu_module_mfu_init(struct opmfu_module_mfu *res)
{
	memset(res, 0, sizeof(*res));
}

void opmfu_module_mfu_release(struct opmfu_module_mfu *res)
{
	size_t i;
	for (i = 0; i < res->n_pool; i++)
		opmfu_free(res->pool[i]);
	opmfu_free(res->pool);
	opmfu_free(res->rows);
	opmfu_module_mfu_init(res);
}
