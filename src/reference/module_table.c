/*
 * module_table.c - the ModuleMFU table's columns and row function.
 */
#include "reference/module_table.h"

/* Widths by the workbook's header (SPEC 5.4); Rank ID's is ours (its
 * header and the filter button, SPEC 14). Parent Module merges its runs
 * of equal cells; Module merges its runs inside one Parent Module run, never
 * across two. */
static const struct opmfu_column cols[] = {
	{ "rank_id", OPMFU_COL_INT, "Rank ID", 10, 0 },
	{ "parent_module", OPMFU_COL_TEXT, "Parent Module", 40, OPMFU_COLF_MERGE },
	{ "module", OPMFU_COL_TEXT, "Module", 40, OPMFU_COLF_MERGE_IN_PREV },
	{ "op_name", OPMFU_COL_TEXT, "Op Name", 40, 0 },
	{ "kernel_list", OPMFU_COL_TEXT, "Kernel List", 50, 0 },
	{ "total_kernel_duration(ns)", OPMFU_COL_REAL, "Total Kernel Duration(ns)", 10, 0 },
	{ "avg_kernel_duration(ns)", OPMFU_COL_REAL, "Avg Kernel Duration(ns)", 10, 0 },
	{ "op_count", OPMFU_COL_INT, "Op Count", 10, 0 },
	{ "avg_mfu", OPMFU_COL_TEXT, "Avg MFU", 10, 0 },
};

const struct opmfu_table_def opmfu_module_mfu_def = {
	"ModuleMFU", cols, sizeof(cols) / sizeof(cols[0]), "operator_mfu_module", OPMFU_TABLE_DETAIL, NULL,
};

static void module_row(const void *src, size_t i, struct opmfu_cell *c)
{
	const struct opmfu_module_view *v = src;
	const struct opmfu_module_row *r = &v->mod->rows[i];

	c[0] = opmfu_cell_int(v->rank);
	c[1] = opmfu_cell_str(r->parent);
	c[2] = opmfu_cell_str(r->module);
	c[3] = opmfu_cell_str(r->op_name);
	c[4] = opmfu_cell_str(r->kernel_list);
	c[5] = opmfu_cell_real(r->total_ns);
	c[6] = opmfu_cell_real(r->avg_ns);
	c[7] = opmfu_cell_int((int64_t)r->op_count);
	c[8] = opmfu_cell_str(r->avg_mfu);
}

struct opmfu_table opmfu_module_table(struct opmfu_module_view *v, const struct opmfu_module_mfu *mod, int rank)
{
	struct opmfu_table t = { &opmfu_module_mfu_def, mod->n_rows, module_row, v };
	v->mod = mod;
	v->rank = rank;
	return t;
}

/* ---- as a registered analysis (trace/analysis.h) ---- */

static void mm_init(void *s)
{
	opmfu_module_mfu_init(&((struct opmfu_module_mfu_state *)s)->mod);
}

static void mm_release(void *s)
{
	opmfu_module_mfu_release(&((struct opmfu_module_mfu_state *)s)->mod);
}

static enum opmfu_status mm_run(void *s, const struct opmfu_rank_ctx *ctx, struct opmfu_err *err)
{
	return opmfu_module_mfu_run(ctx->trace, ctx->op, &((struct opmfu_module_mfu_state *)s)->mod, err);
}

static enum opmfu_status mm_tables(void *s, const struct opmfu_rank_ctx *ctx, struct opmfu_table *out, size_t *n,
				     struct opmfu_err *err)
{
	(void)err;
	struct opmfu_module_mfu_state *st = s;
	out[0] = opmfu_module_table(&st->view, &st->mod, ctx->rank);
	*n = 1;
	return OPMFU_OK;
}

static const struct opmfu_table_def *const mm_makes[] = { &opmfu_module_mfu_def, NULL };

const struct opmfu_analysis opmfu_analysis_module_mfu = {
	.name = "module_mfu", .scope = OPMFU_PER_RANK, .stage = OPMFU_STAGE_TREE, .makes = mm_makes,
	.state_size = sizeof(struct opmfu_module_mfu_state), .init = mm_init, .release = mm_release, .run = mm_run,
	.tables = mm_tables,
};
