/*
 * modules_table.c - the OpmfuModules table (schema/out/opmfu_modules.sql):
 * a row per module path, most lost time first.
 */
#include "analyze/modules.h"

#include <math.h>

#include "base/sat.h"

static const struct opmfu_column cols[] = {
	{ "rank_id", OPMFU_COL_INT, "Rank ID", 0, 0 },
	{ "module", OPMFU_COL_TEXT, "Module", 60, 0 },
	{ "calls", OPMFU_COL_INT, "Calls", 0, 0 },
	{ "kernel_ns", OPMFU_COL_INT, "Kernel Time(ns)", 15, 0 },
	{ "flops_kernel_ns", OPMFU_COL_INT, "Kernel Time with FLOPs(ns)", 15, 0 },
	{ "flops", OPMFU_COL_INT, "FLOPs", 18, 0 },
	{ "mfu", OPMFU_COL_REAL, "MFU", 10, OPMFU_COLF_PERCENT },
	{ "mfu_all", OPMFU_COL_REAL, "MFU (all time)", 10, OPMFU_COLF_PERCENT },
	{ "lost_ns", OPMFU_COL_INT, "Lost Time(ns)", 15, 0 },
	{ "depth", OPMFU_COL_INT, "Depth", 0, 0 },
	{ "self_kernel_ns", OPMFU_COL_INT, "Own Kernel Time(ns)", 15, 0 },
	{ "self_flops", OPMFU_COL_INT, "Own FLOPs", 18, 0 },
	{ "self_mfu", OPMFU_COL_REAL, "Own MFU", 10, OPMFU_COLF_PERCENT },
	{ "self_lost_ns", OPMFU_COL_INT, "Own Lost Time(ns)", 15, 0 },
	{ "recoverable_ns", OPMFU_COL_INT, "Recoverable Time(ns)", 15, 0 },
	{ "self_recoverable_ns", OPMFU_COL_INT, "Own Recoverable Time(ns)", 15, 0 },
	{ "roofline_ns", OPMFU_COL_INT, "Roofline Time(ns)", 15, 0 },
	{ "roofline_kernel_ns", OPMFU_COL_INT, "Kernel Time with a Roofline(ns)", 15, 0 },
	{ "self_roofline_ns", OPMFU_COL_INT, "Own Roofline Time(ns)", 15, 0 },
	{ "self_roofline_kernel_ns", OPMFU_COL_INT, "Own Kernel Time with a Roofline(ns)", 15, 0 },
};

const struct opmfu_table_def opmfu_modules_def = {
	"OpmfuModules", cols, sizeof(cols) / sizeof(cols[0]), NULL, OPMFU_TABLE_DETAIL, NULL,
};

/* A sum's roofline time; NULL when none of its units has one. */
struct opmfu_cell opmfu_msum_roofline_cell(const struct opmfu_msum *s)
{
	return s->roofline_kernel_ns > 0 ? opmfu_cell_int(opmfu_sat_round(s->roofline_ns)) : opmfu_cell_null();
}

static void modules_row(const void *src, size_t i, struct opmfu_cell *c)
{
	const struct opmfu_modules_table *mt = src;
	const struct opmfu_mrow *r = &mt->mods->rows[i];

	c[0] = opmfu_cell_int(mt->rank);
	c[1] = opmfu_cell_text(opmfu_intern_str(&mt->mods->paths, r->path), opmfu_intern_len(&mt->mods->paths, r->path));
	c[2] = opmfu_cell_int((int64_t)r->calls);
	c[3] = opmfu_cell_int(r->all.kernel_ns);
	c[4] = opmfu_cell_int(r->all.flops_kernel_ns);
	c[5] = opmfu_cell_int(r->all.flops);
	c[6] = opmfu_cell_known(opmfu_msum_mfu(&r->all));
	c[7] = opmfu_cell_known(opmfu_msum_mfu_all(&r->all));
	c[8] = opmfu_cell_int(opmfu_sat_round(r->all.lost_ns));
	c[9] = opmfu_cell_int(r->depth);
	c[10] = opmfu_cell_int(r->self.kernel_ns);
	c[11] = opmfu_cell_int(r->self.flops);
	c[12] = opmfu_cell_known(opmfu_msum_mfu(&r->self));
	c[13] = opmfu_cell_int(opmfu_sat_round(r->self.lost_ns));
	c[14] = opmfu_cell_int(opmfu_sat_round(r->all.recoverable_ns));
	c[15] = opmfu_cell_int(opmfu_sat_round(r->self.recoverable_ns));
	c[16] = opmfu_msum_roofline_cell(&r->all);
	c[17] = opmfu_cell_int(r->all.roofline_kernel_ns);
	c[18] = opmfu_msum_roofline_cell(&r->self);
	c[19] = opmfu_cell_int(r->self.roofline_kernel_ns);
}

struct opmfu_table opmfu_modules_table(const struct opmfu_modules_table *src)
{
	struct opmfu_table tab = { &opmfu_modules_def, src->mods->n_rows, modules_row, src };
	return tab;
}

/* ---- as a registered analysis (trace/analysis.h) ---- */

static void modules_init(void *s)
{
	opmfu_modules_init(&((struct opmfu_modules_state *)s)->mods);
}

static void modules_release(void *s)
{
	opmfu_modules_release(&((struct opmfu_modules_state *)s)->mods);
}

static enum opmfu_status modules_run(void *s, const struct opmfu_rank_ctx *ctx, struct opmfu_err *err)
{
	struct opmfu_ops_state *ops = opmfu_rank_state(ctx, &opmfu_analysis_ops);
	return opmfu_modules_run(&ops->ops, &((struct opmfu_modules_state *)s)->mods, err);
}

static enum opmfu_status modules_tables(void *s, const struct opmfu_rank_ctx *ctx, struct opmfu_table *out, size_t *n,
				     struct opmfu_err *err)
{
	(void)err;
	struct opmfu_modules_state *st = s;
	st->view.mods = &st->mods;
	st->view.rank = ctx->rank;
	out[0] = opmfu_modules_table(&st->view);
	*n = 1;
	return OPMFU_OK;
}

static const char *const modules_needs[] = { "ops", NULL };
static const struct opmfu_table_def *const modules_makes[] = { &opmfu_modules_def, NULL };

const struct opmfu_analysis opmfu_analysis_modules = {
	.name = "modules", .scope = OPMFU_PER_RANK, .stage = OPMFU_STAGE_OP_UNITS, .needs = modules_needs,
	.makes = modules_makes, .state_size = sizeof(struct opmfu_modules_state), .init = modules_init,
	.release = modules_release, .run = modules_run, .tables = modules_tables,
};
