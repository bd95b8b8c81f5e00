/*
 * steps_table.c - the OpmfuSteps table (schema/out/opmfu_steps.sql): a row
 * per rank and step.
 */
#include "analyze/steps.h"

static const struct opmfu_column cols[] = {
	{ "rank_id", OPMFU_COL_INT, "Rank ID", 0, 0 },
	{ "step", OPMFU_COL_INT, "Step", 0, 0 },
	{ "start_ns", OPMFU_COL_INT, "Start(ns)", 21, OPMFU_COLF_BIG_INT_TEXT },
	{ "end_ns", OPMFU_COL_INT, "End(ns)", 21, OPMFU_COLF_BIG_INT_TEXT },
	{ "window_ns", OPMFU_COL_INT, "Window(ns)", 15, 0 },
	{ "flops_ns", OPMFU_COL_INT, "Compute with FLOPs(ns)", 15, 0 },
	{ "other_compute_ns", OPMFU_COL_INT, "Other Compute(ns)", 15, 0 },
	{ "comm_exposed_ns", OPMFU_COL_INT, "Exposed Communication(ns)", 15, 0 },
	{ "comm_overlapped_ns", OPMFU_COL_INT, "Overlapped Communication(ns)", 15, 0 },
	{ "idle_ns", OPMFU_COL_INT, "Idle(ns)", 15, 0 },
	{ "flops", OPMFU_COL_INT, "FLOPs", 18, 0 },
	{ "flops_record", OPMFU_COL_INT, "FLOPs from Records", 18, 0 },
	{ "flops_shape", OPMFU_COL_INT, "FLOPs from Shapes", 18, 0 },
	{ "peak_tflops", OPMFU_COL_REAL, "Peak TFLOPS", 0, 0 },
	{ "trace_mfu", OPMFU_COL_REAL, "Trace MFU", 10, OPMFU_COLF_PERCENT },
	{ "share_idle", OPMFU_COL_REAL, "Idle", 10, OPMFU_COLF_PERCENT },
	{ "share_comm", OPMFU_COL_REAL, "Exposed Communication", 10, OPMFU_COLF_PERCENT },
	{ "share_other_compute", OPMFU_COL_REAL, "Compute without FLOPs", 10, OPMFU_COLF_PERCENT },
	{ "share_inefficiency", OPMFU_COL_REAL, "FLOP Kernels below Peak", 10, OPMFU_COLF_PERCENT },
};

const struct opmfu_table_def opmfu_steps_def = {
	"OpmfuSteps", cols, sizeof(cols) / sizeof(cols[0]), NULL,
};

static void steps_row(const void *src, size_t i, struct opmfu_cell *c)
{
	const struct opmfu_steps_table *st = src;
	const struct opmfu_step_row *s = &st->steps->v[i];
	double shares[4], peak = opmfu_step_peak(s), mfu = opmfu_step_trace_mfu(s);
	int k;

	opmfu_step_shares(s, shares);
	c[0] = opmfu_cell_int(st->rank);
	c[1] = s->step == OPMFU_NO_STEP ? opmfu_cell_null() : opmfu_cell_int(s->step);
	c[2] = opmfu_cell_int(s->start);
	c[3] = opmfu_cell_int(s->end);
	c[4] = opmfu_cell_int(opmfu_step_window(s));
	c[5] = opmfu_cell_int(s->flops_ns);
	c[6] = opmfu_cell_int(s->other_ns);
	c[7] = opmfu_cell_int(s->comm_exposed_ns);
	c[8] = opmfu_cell_int(s->comm_overlapped_ns);
	c[9] = opmfu_cell_int(s->idle_ns);
	c[10] = opmfu_cell_int(s->flops);
	c[11] = opmfu_cell_int(s->flops_record);
	c[12] = opmfu_cell_int(s->flops_shape);
	c[13] = opmfu_cell_pos(peak / 1e12);
	c[14] = opmfu_cell_known(mfu);
	/* an empty window has no shares; without a peak the inefficiency is unknown (it may be
	 * negative: an MFU above 1, counted and warned about elsewhere) */
	for (k = 0; k < 4; k++)
		c[15 + k] = opmfu_step_window(s) > 0 && (k < 3 || mfu >= 0) ? opmfu_cell_real(shares[k])
									 : opmfu_cell_null();
}

struct opmfu_table opmfu_steps_table(const struct opmfu_steps_table *src)
{
	struct opmfu_table tab = { &opmfu_steps_def, src->steps->n, steps_row, src };
	return tab;
}

/* ---- as a registered analysis (trace/analysis.h) ---- */

static void steps_init(void *s)
{
	opmfu_steps_init(&((struct opmfu_steps_state *)s)->steps);
}

static void steps_release(void *s)
{
	opmfu_steps_release(&((struct opmfu_steps_state *)s)->steps);
}

static enum opmfu_status steps_run(void *s, const struct opmfu_rank_ctx *ctx, struct opmfu_err *err)
{
	struct opmfu_ops_state *ops = opmfu_rank_state(ctx, &opmfu_analysis_ops);
	return opmfu_steps_run(&ops->ops, &((struct opmfu_steps_state *)s)->steps, err);
}

static enum opmfu_status steps_tables(void *s, const struct opmfu_rank_ctx *ctx, struct opmfu_table *out, size_t *n,
				     struct opmfu_err *err)
{
	(void)err;
	struct opmfu_steps_state *st = s;
	st->view.steps = &st->steps;
	st->view.rank = ctx->rank;
	out[0] = opmfu_steps_table(&st->view);
	*n = 1;
	return OPMFU_OK;
}

static const char *const steps_needs[] = { "ops", NULL };
static const struct opmfu_table_def *const steps_makes[] = { &opmfu_steps_def, NULL };

const struct opmfu_analysis opmfu_analysis_steps = {
	.name = "steps", .scope = OPMFU_PER_RANK, .stage = OPMFU_STAGE_UNITS, .needs = steps_needs,
	.makes = steps_makes, .state_size = sizeof(struct opmfu_steps_state), .init = steps_init,
	.release = steps_release, .run = steps_run, .tables = steps_tables,
};
