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
	"OpmfuOps", cols, sizeof(cols) / sizeof(cols[0]), NULL, OPMFU_TABLE_DETAIL, &opmfu_ops_store,
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

/* ---- stored narrow in the database (schema/out/opmfu_ops.sql) ---- */

static const struct opmfu_store_col store_cols[] = {
	{ "rank_id", OPMFU_COL_INT, 0, 0 },      { "step", OPMFU_COL_INT, 0, 0 },
	{ "kind", OPMFU_COL_INT, 1, 1 },         { "module", OPMFU_COL_INT, 2, 1 },
	{ "start_ns", OPMFU_COL_INT, 0, 0 },     { "dur_ns", OPMFU_COL_INT, 0, 0 },
	{ "kernels", OPMFU_COL_INT, 0, 0 },      { "kernel_ns", OPMFU_COL_INT, 0, 0 },
	{ "flops", OPMFU_COL_INT, 0, 0 },        { "lost_ns", OPMFU_COL_INT, 0, 0 },
	{ "bytes", OPMFU_COL_INT, 0, 0 },        { "roofline_ns", OPMFU_COL_INT, 0, 0 },
	{ "recoverable_ns", OPMFU_COL_INT, 0, 0 }, { "mfu", OPMFU_COL_REAL, 0, 0 },
	{ "roofline_eff", OPMFU_COL_REAL, 0, 0 },
	{ "op_name", OPMFU_COL_TEXT, 1, 0 },     { "main_kernel", OPMFU_COL_TEXT, 1, 0 },
	{ "flops_name", OPMFU_COL_TEXT, 1, 0 },  { "flops_source", OPMFU_COL_TEXT, 1, 0 },
	{ "dtype_class", OPMFU_COL_TEXT, 1, 0 }, { "peak_tflops", OPMFU_COL_REAL, 1, 0 },
	{ "peak", OPMFU_COL_REAL, 1, 0 },        { "bw", OPMFU_COL_REAL, 1, 0 },
	{ "bound", OPMFU_COL_TEXT, 1, 0 },
	{ "module", OPMFU_COL_TEXT, 2, 0 },
};

/* Whether two integer cells hold the same number. */
static int same_int(const struct opmfu_cell *a, const struct opmfu_cell *b)
{
	return !a->null && !b->null && a->v.i == b->v.i;
}

/* lost_ns and recoverable_ns are NULL when all of kernel_ns (most ops
 * without FLOPs or bytes): they are never NULL, and the view takes
 * kernel_ns for them. With the peaks of the rank (src), the view computes mfu and roofline_eff
 * from them as ops_row does, and they are not stored; without (rows merged
 * from a shard), they are. The view computes achieved_tflops, intensity and
 * achieved_tbps from the row, and end_ns as start_ns + dur_ns (times are
 * clamped to +-2^62: it fits). */
static void ops_store_row(const void *src, size_t i, const struct opmfu_cell *v, struct opmfu_cell *c)
{
	const struct opmfu_ops *res = src ? ((const struct opmfu_ops_table *)src)->ops : NULL;

	c[0] = v[0];
	c[1] = v[1];
	c[2] = c[3] = opmfu_cell_null();
	c[4] = v[4];
	/* wrapping, not undefined, for a tampered shard's times (a trace's fit) */
	c[5] = v[4].null || v[5].null ? opmfu_cell_null()
				      : opmfu_cell_int((int64_t)((uint64_t)v[5].v.i - (uint64_t)v[4].v.i));
	c[6] = v[6];
	c[7] = v[8];
	c[8] = v[9];
	c[9] = same_int(&v[15], &v[8]) ? opmfu_cell_null() : v[15];
	c[10] = v[17];
	c[11] = v[21];
	c[12] = same_int(&v[23], &v[8]) ? opmfu_cell_null() : v[23];
	c[13] = res ? opmfu_cell_null() : v[14];
	c[14] = res ? opmfu_cell_null() : v[22];
	c[15] = v[2];
	c[16] = v[7];
	c[17] = v[16];
	c[18] = v[10];
	c[19] = v[11];
	c[20] = v[12];
	c[21] = res ? opmfu_cell_pos(opmfu_unit_peak(res, &res->v[i])) : opmfu_cell_null();
	c[22] = res ? opmfu_cell_pos(res->pk->bw) : opmfu_cell_null();
	c[23] = v[20];
	c[24] = v[3];
}

static const char *const store_dims[] = { "OpmfuOps_kinds", "OpmfuOps_modules" };

const struct opmfu_store opmfu_ops_store = {
	&opmfu_ops_def, "OpmfuOps_rows", store_dims, 2, store_cols, sizeof(store_cols) / sizeof(store_cols[0]),
	ops_store_row, ops_row,
};

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
	.name = "ops", .scope = OPMFU_PER_RANK, .stage = OPMFU_STAGE_OP_UNITS, .makes = ops_makes,
	.state_size = sizeof(struct opmfu_ops_state), .init = ops_init, .release = ops_release, .run = ops_run,
	.tables = ops_tables,
};
