/*
 * ops_table.c - the OpmfuOps table (schema/out/opmfu_ops.sql): a row per
 * unit of analyze/ops.c, in start order.
 */
#include "analyze/ops.h"

#include <math.h>

#include "base/intern.h"
#include "base/sat.h"

/* A sheet of it is not written: the summary workbook shows op types instead. */
static const struct opmfu_column cols[] = {
	{ "rank_id", OPMFU_COL_INT, "Rank ID", 0, 0 },
	{ "step", OPMFU_COL_INT, "Step", 0, 0 },
	{ "op_name", OPMFU_COL_TEXT, "Op Name", 40, 0 },
	{ "module", OPMFU_COL_TEXT, "Module", 50, 0 },
	{ "start_ns", OPMFU_COL_INT, "Start(ns)", 21, OPMFU_COLF_BIG_INT_TEXT },
	{ "end_ns", OPMFU_COL_INT, "End(ns)", 21, OPMFU_COLF_BIG_INT_TEXT },
	{ "kernels", OPMFU_COL_INT, "Kernels", 0, 0 },
	{ "main_kernel", OPMFU_COL_TEXT, "Main Kernel", 50, 0 },
	{ "kernel_ns", OPMFU_COL_INT, "Kernel Time(ns)", 15, 0 },
	{ "flops", OPMFU_COL_INT, "FLOPs", 18, 0 },
	{ "flops_source", OPMFU_COL_TEXT, "FLOPs Source", 0, 0 },
	{ "dtype_class", OPMFU_COL_TEXT, "Dtype Class", 0, 0 },
	{ "peak_tflops", OPMFU_COL_REAL, "Peak TFLOPS", 0, 0 },
	{ "achieved_tflops", OPMFU_COL_REAL, "Achieved TFLOPS", 0, 0 },
	{ "mfu", OPMFU_COL_REAL, "MFU", 10, OPMFU_COLF_PERCENT },
	{ "lost_ns", OPMFU_COL_INT, "Lost Time(ns)", 15, 0 },
	{ "flops_name", OPMFU_COL_TEXT, "FLOPs Name", 0, 0 },
	{ "bytes", OPMFU_COL_INT, "Bytes", 18, 0 },
	{ "intensity", OPMFU_COL_REAL, "FLOPs per Byte", 0, 0 },
	{ "achieved_tbps", OPMFU_COL_REAL, "Achieved TB/s", 0, 0 },
	{ "bound", OPMFU_COL_TEXT, "Bound", 0, 0 },
	{ "roofline_ns", OPMFU_COL_INT, "Roofline Time(ns)", 15, 0 },
	{ "roofline_eff", OPMFU_COL_REAL, "Roofline Efficiency", 10, OPMFU_COLF_PERCENT },
	{ "recoverable_ns", OPMFU_COL_INT, "Recoverable Time(ns)", 15, 0 },
};

const struct opmfu_table_def opmfu_ops_def = {
	"OpmfuOps", cols, sizeof(cols) / sizeof(cols[0]), NULL, OPMFU_TABLE_DETAIL,
};

static struct opmfu_cell sid_cell(const struct opmfu_trace *t, uint32_t sid, uint32_t off)
{
	const char *s = opmfu_strtab_str(&t->strs, sid);
	uint32_t n = opmfu_strtab_len(&t->strs, sid);
	return s && off <= n ? opmfu_cell_text(s + off, n - off) : opmfu_cell_null();
}

/* SPEC 18: bytes, FLOPs per byte, TB/s, the bound, the roofline time, its
 * share of the kernel time and the time above it (ops.h). */
static void roofline_cells(const struct opmfu_ops *res, const struct opmfu_unit *u, struct opmfu_cell *c)
{
	double roof = opmfu_unit_roofline_ns(res, u);
	c[0] = u->bytes >= 0 ? opmfu_cell_int(u->bytes) : opmfu_cell_null();
	c[1] = u->src >= 0 && u->bytes > 0 ? opmfu_cell_real((double)u->flops / (double)u->bytes) : opmfu_cell_null();
	c[2] = u->bytes >= 0 && u->kernel_ns > 0 ? opmfu_cell_real((double)u->bytes / (double)u->kernel_ns / 1e3)
						 : opmfu_cell_null();
	c[3] = opmfu_cell_str(opmfu_unit_bound(res, u));
	c[4] = roof >= 0 ? opmfu_cell_int(opmfu_sat_round(roof)) : opmfu_cell_null();
	c[5] = roof >= 0 && u->kernel_ns > 0 ? opmfu_cell_real(roof / (double)u->kernel_ns) : opmfu_cell_null();
	c[6] = opmfu_cell_int(opmfu_sat_round(opmfu_unit_recoverable_ns(res, u)));
}

static void ops_row(const void *src, size_t i, struct opmfu_cell *c)
{
	const struct opmfu_ops_table *ot = src;
	const struct opmfu_ops *res = ot->ops;
	const struct opmfu_trace *t = res->t;
	const struct opmfu_unit *u = &res->v[i];
	double peak = opmfu_unit_peak(res, u), mfu = opmfu_unit_mfu(res, u);

	c[0] = opmfu_cell_int(ot->rank);
	c[1] = u->step == OPMFU_NO_STEP ? opmfu_cell_null() : opmfu_cell_int(t->steps.v[u->step].value);
	c[2] = sid_cell(t, t->links[u->first_link].op_name, 0);
	c[3] = u->module != OPMFU_UNIT_NONE && res->paths
		       ? opmfu_cell_text(opmfu_intern_str(res->paths, u->module), opmfu_intern_len(res->paths, u->module))
		       : opmfu_cell_null();
	c[4] = opmfu_cell_int(u->start);
	c[5] = opmfu_cell_int(u->end);
	c[6] = opmfu_cell_int(u->kernels);
	c[7] = sid_cell(t, t->links[u->main_link].k_name, 0);
	c[8] = opmfu_cell_int(u->kernel_ns);
	c[9] = u->src < 0 ? opmfu_cell_null() : opmfu_cell_int(u->flops);
	c[10] = opmfu_cell_str(u->src < 0 ? "none" : opmfu_flops_src_name((enum opmfu_flops_src)u->src));
	c[11] = u->prec >= 0 ? opmfu_cell_str(opmfu_prec_name((enum opmfu_prec)u->prec)) : opmfu_cell_null();
	c[12] = opmfu_cell_pos(peak / 1e12);
	c[13] = u->src >= 0 && u->kernel_ns > 0 ? opmfu_cell_real((double)u->flops / (double)u->kernel_ns / 1e3)
						 : opmfu_cell_null();
	c[14] = opmfu_cell_known(mfu);
	c[15] = opmfu_cell_int(opmfu_sat_round(opmfu_unit_lost_ns(res, u)));
	if (u->fact != OPMFU_UNIT_NONE) {
		const struct opmfu_flops_fact *f = &res->fl->facts[u->fact];
		c[16] = sid_cell(t, f->name, f->name_off);
	} else {
		c[16] = opmfu_cell_null();
	}
	roofline_cells(res, u, c + 17);
}

struct opmfu_table opmfu_ops_table(const struct opmfu_ops_table *src)
{
	struct opmfu_table tab = { &opmfu_ops_def, src->ops->n, ops_row, src };
	return tab;
}

/* ---- as a registered analysis (trace/analysis.h) ---- */

static void ops_init(void *s)
{
	opmfu_ops_init(&((struct opmfu_ops_state *)s)->ops);
}

static void ops_release(void *s)
{
	opmfu_ops_release(&((struct opmfu_ops_state *)s)->ops);
}

static enum opmfu_status ops_run(void *s, const struct opmfu_rank_ctx *ctx, struct opmfu_err *err)
{
	return opmfu_ops_run(ctx->trace, ctx->flops, ctx->peaks, &((struct opmfu_ops_state *)s)->ops, err);
}

static enum opmfu_status ops_tables(void *s, const struct opmfu_rank_ctx *ctx, struct opmfu_table *out, size_t *n,
				     struct opmfu_err *err)
{
	(void)err;
	struct opmfu_ops_state *st = s;
	st->view.ops = &st->ops;
	st->view.rank = ctx->rank;
	out[0] = opmfu_ops_table(&st->view);
	*n = 1;
	return OPMFU_OK;
}

static const struct opmfu_table_def *const ops_makes[] = { &opmfu_ops_def, NULL };

const struct opmfu_analysis opmfu_analysis_ops = {
	.name = "ops", .scope = OPMFU_PER_RANK, .stage = OPMFU_STAGE_UNITS, .makes = ops_makes,
	.state_size = sizeof(struct opmfu_ops_state), .init = ops_init, .release = ops_release, .run = ops_run,
	.tables = ops_tables,
};
