/*
 * steps_table.c - the OpmfuSteps table (schema/out/opmfu_steps.sql): a row
 * per rank and step.
 */
#include "analyze/steps.h"

static const struct opmfu_column cols[] = {
	{ "rank_id", OPMFU_COL_INT, "Rank ID", 0, 0 },
	{ "step", OPMFU_COL_INT, "Step", 0, 0 },
	{ "kind", OPMFU_COL_TEXT, "Kind", 0, 0 },
	{ "start_ns", OPMFU_COL_INT, "Start(ns)", 21, OPMFU_COLF_BIG_INT_TEXT },
	{ "end_ns", OPMFU_COL_INT, "End(ns)", 21, OPMFU_COLF_BIG_INT_TEXT },
	{ "window_ns", OPMFU_COL_INT, "Window(ns)", 15, 0 },
	{ "profiler_step_ns", OPMFU_COL_INT, "Profiler Step(ns)", 15, 0 },
	{ "preparing_ns", OPMFU_COL_INT, "Preparing(ns)", 15, 0 },
	{ "flops_ns", OPMFU_COL_INT, "Compute with FLOPs(ns)", 15, 0 },
	{ "matmul_noflops_ns", OPMFU_COL_INT, "GEMM/Conv/Attention without FLOPs(ns)", 15, 0 },
	{ "other_compute_ns", OPMFU_COL_INT, "Other Compute(ns)", 15, 0 },
	{ "comm_exposed_ns", OPMFU_COL_INT, "Exposed Communication(ns)", 15, 0 },
	{ "comm_overlapped_ns", OPMFU_COL_INT, "Overlapped Communication(ns)", 15, 0 },
	{ "memcpy_ns", OPMFU_COL_INT, "Copies and Memsets(ns)", 15, 0 },
	{ "idle_host_ns", OPMFU_COL_INT, "Idle, Host Late(ns)", 15, 0 },
	{ "idle_ns", OPMFU_COL_INT, "Idle(ns)", 15, 0 },
	{ "flops", OPMFU_COL_INT, "FLOPs", 18, 0 },
	{ "flops_record", OPMFU_COL_INT, "FLOPs from Records", 18, 0 },
	{ "flops_shape", OPMFU_COL_INT, "FLOPs from Shapes", 18, 0 },
	{ "peak_tflops", OPMFU_COL_REAL, "Peak TFLOPS", 0, 0 },
	{ "trace_mfu", OPMFU_COL_REAL, "Trace MFU", 10, OPMFU_COLF_PERCENT },
	{ "share_idle", OPMFU_COL_REAL, "Idle", 10, OPMFU_COLF_PERCENT },
	{ "share_comm", OPMFU_COL_REAL, "Exposed Communication", 10, OPMFU_COLF_PERCENT },
	{ "share_other_compute", OPMFU_COL_REAL, "Busy without FLOPs", 10, OPMFU_COLF_PERCENT },
	{ "share_inefficiency", OPMFU_COL_REAL, "FLOP Kernels below Peak", 10, OPMFU_COLF_PERCENT },
	{ "share_matmul_noflops", OPMFU_COL_REAL, "GEMM/Conv/Attention without FLOPs", 10, OPMFU_COLF_PERCENT },
	{ "share_other_kernels", OPMFU_COL_REAL, "Other Compute", 10, OPMFU_COLF_PERCENT },
	{ "share_memcpy", OPMFU_COL_REAL, "Copies and Memsets", 10, OPMFU_COLF_PERCENT },
	{ "share_idle_host", OPMFU_COL_REAL, "Idle, Host Late", 10, OPMFU_COLF_PERCENT },
	{ "share_idle_device", OPMFU_COL_REAL, "Idle, Other", 10, OPMFU_COLF_PERCENT },
	{ "memory_bound_ns", OPMFU_COL_INT, "Memory-Bound, Bytes Known(ns)", 15, 0 },
	{ "share_memory_bound", OPMFU_COL_REAL, "Memory-Bound, Bytes Known", 10, OPMFU_COLF_PERCENT },
	{ "memory_bound_eff", OPMFU_COL_REAL, "Memory-Bound Bandwidth Efficiency", 10, OPMFU_COLF_PERCENT },
	{ "comm_wait_ns", OPMFU_COL_INT, "Exposed Communication, Waiting(ns)", 15, 0 },
	{ "share_comm_wait", OPMFU_COL_REAL, "Exposed Communication, Waiting", 10, OPMFU_COLF_PERCENT },
};

/* held: a GPU's waiting is known once every rank is read (analyze/collectives.h) */
const struct opmfu_table_def opmfu_steps_def = {
	"OpmfuSteps", cols, sizeof(cols) / sizeof(cols[0]), NULL, OPMFU_TABLE_HELD, NULL,
};

static const char *const kind_name[] = { "step", "backlog", "trace" };

static void steps_row(const void *src, size_t i, struct opmfu_cell *c)
{
	const struct opmfu_steps_table *st = src;
	const struct opmfu_step_row *s = &st->steps->v[i];
	static const enum opmfu_tcat sub[5] = { OPMFU_T_MATMUL, OPMFU_T_OTHER, OPMFU_T_COPY, OPMFU_T_IDLE_HOST,
						OPMFU_T_IDLE };
	static const enum opmfu_tcat ns[8] = { OPMFU_T_FLOPS, OPMFU_T_MATMUL, OPMFU_T_OTHER, OPMFU_T_COMM,
					       OPMFU_T_COMM_OVERLAP, OPMFU_T_COPY, OPMFU_T_IDLE_HOST, OPMFU_T_IDLE };
	double shares[4], peak = opmfu_step_peak(s), mfu = opmfu_step_trace_mfu(s);
	int64_t w = opmfu_step_window(s);
	int has_host = s->host_end > s->host_start, k;

	opmfu_step_shares(s, shares);
	c[0] = opmfu_cell_int(st->rank);
	c[1] = s->step == OPMFU_NO_STEP ? opmfu_cell_null() : opmfu_cell_int(s->step);
	c[2] = opmfu_cell_str(kind_name[s->kind]);
	c[3] = opmfu_cell_int(s->start);
	c[4] = opmfu_cell_int(s->end);
	c[5] = opmfu_cell_int(w);
	c[6] = has_host ? opmfu_cell_int(s->host_end - s->host_start) : opmfu_cell_null();
	/* the head of the step before its first device work: the host's (torch_npu's "preparing") */
	c[7] = has_host && w > 0 ? opmfu_cell_int(s->start > s->host_start ? s->start - s->host_start : 0)
				 : opmfu_cell_null();
	for (k = 0; k < 8; k++)
		c[8 + k] = opmfu_cell_int(s->ns[ns[k]]);
	c[16] = opmfu_cell_int(s->flops);
	c[17] = opmfu_cell_int(s->flops_record);
	c[18] = opmfu_cell_int(s->flops_shape);
	c[19] = opmfu_cell_pos(peak / 1e12);
	c[20] = opmfu_cell_known(mfu);
	/* an empty window has no shares; without a peak the inefficiency is unknown (it may be
	 * negative: an MFU above 1, counted and warned about elsewhere) */
	for (k = 0; k < 4; k++)
		c[21 + k] = w > 0 && (k < 3 || mfu >= 0) ? opmfu_cell_real(shares[k]) : opmfu_cell_null();
	for (k = 0; k < 5; k++)
		c[25 + k] = w > 0 ? opmfu_cell_real(opmfu_step_share(s, sub[k])) : opmfu_cell_null();
	c[30] = opmfu_cell_int(s->ns[OPMFU_T_MEMBOUND]);
	c[31] = w > 0 ? opmfu_cell_real(opmfu_step_share(s, OPMFU_T_MEMBOUND)) : opmfu_cell_null();
	c[32] = opmfu_cell_known(opmfu_step_mb_eff(s));
	/* unknown here when the trace does not mark waiting: the run's collectives fill it */
	c[33] = st->steps->wait_known ? opmfu_cell_int(s->ns[OPMFU_T_COMM_WAIT]) : opmfu_cell_null();
	c[34] = st->steps->wait_known && w > 0 ? opmfu_cell_real(opmfu_step_share(s, OPMFU_T_COMM_WAIT))
					       : opmfu_cell_null();
}
_Static_assert(sizeof(cols) / sizeof(cols[0]) == 35, "steps_row fills every column");

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
