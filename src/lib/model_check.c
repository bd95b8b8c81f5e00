/*
 * model_check.c - `opmfu analyze --model` (SPEC 12, 15; model_check.h): the
 * model's FLOPs once per run, then per rank and step the model MFU over the
 * step's window and the rank's peak, the FLOPs coverage (trace FLOPs / model
 * FLOPs per device) and the likely reason when it is far from 1; then the
 * run as a whole from the ranks' medians. The notes and their thresholds
 * are explained in docs/model-mfu.md.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/mem.h"
#include "base/sbuf.h"
#include "base/sat.h"
#include "base/sort.h"
#include "lib/lib.h"
#include "lib/model_check.h"

static const struct opmfu_column cols[] = {
	{ "rank_id", OPMFU_COL_INT, "Rank ID", 0, 0 },
	{ "step", OPMFU_COL_INT, "Step", 0, 0 },
	{ "convention", OPMFU_COL_TEXT, "Convention", 0, 0 },
	{ "model_flops_per_step", OPMFU_COL_REAL, "Model FLOPs per Step", 0, 0 },
	{ "model_flops_per_device", OPMFU_COL_REAL, "Model FLOPs per Device", 0, 0 },
	{ "step_ns", OPMFU_COL_INT, "Step(ns)", 0, 0 },
	{ "model_mfu", OPMFU_COL_REAL, "Model MFU", 0, OPMFU_COLF_PERCENT },
	{ "trace_flops", OPMFU_COL_INT, "Trace FLOPs", 0, 0 },
	{ "coverage", OPMFU_COL_REAL, "FLOPs Coverage", 0, OPMFU_COLF_PERCENT },
	{ "peak_tflops", OPMFU_COL_REAL, "Peak TFLOPS", 0, 0 },
	{ "note", OPMFU_COL_TEXT, "Likely Reason", 0, 0 },
};

/* no workbook: its run rows are put under OPMFU_RUN_RANK */
const struct opmfu_table_def opmfu_model_def = {
	"OpmfuModel", cols, sizeof(cols) / sizeof(cols[0]), NULL, 0, NULL,
};

/* A shard's (SPEC 22): per rank, the run's rows were it the run's median
 * rank (rank_id the rank, step its median step); the merge takes the
 * median rank's (lib/shard.c). Never in a run's result. */
const struct opmfu_table_def opmfu_model_run_def = {
	"OpmfuModelRun", cols, sizeof(cols) / sizeof(cols[0]), NULL, OPMFU_TABLE_INTERNAL, NULL,
};

/* ---- the notes ---- */

#define NEAR_LO 0.8       /* [0.8, 1.2]: near 1, no note (the conventions differ among themselves by ~20 %) */
#define NEAR_HI 1.2
#define THIRD_LO 0.25     /* around 1/3: the forward alone of a training step */
#define THIRD_HI 0.42
#define MORE_LO 0.5       /* [0.5, 0.8): what counting every attention pair of a causal model adds */
#define THREE_LO 2.2      /* around 3: a training trace against forward-only model FLOPs */
#define THREE_HI 4.0
#define RECOMPUTE_HI 1.45 /* up to about 4/3: the forward run twice */
#define FAR 10.0          /* beyond 10x either way no counting difference explains: another model? */

const char *opmfu_model_note(const struct opmfu_note_in *in)
{
	double c = in->coverage;
	int few = in->compute_cov >= 0 && in->compute_cov < 0.5;

	if (c < 0)
		return NULL;
	if (c == 0)
		return "no FLOPs in the trace for this step";
	if (c >= NEAR_LO && c <= NEAR_HI)
		return NULL;
	/* palm's 6N holds every expert: it alone explains a low coverage, and can land near 1/3 */
	if (c < NEAR_LO && in->palm_moe)
		return "palm counts every expert (6N, not 6·active)";
	if (in->training && c >= THIRD_LO && c <= THIRD_HI)
		return in->records_only ? "≈ 1/3: backward not recorded (torch_npu records forward)"
					: "≈ 1/3: a forward-only trace? (give --forward-only)";
	if (!in->training && c >= THREE_LO && c <= THREE_HI)
		return "≈ 3: the trace has a backward (leave out --forward-only)";
	if (c > NEAR_HI && in->training && c <= RECOMPUTE_HI)
		return "≈ 4/3: recomputation (activation checkpointing)";
	if (c > FAR || (c < 1 / FAR && !few))
		return c > 1 ? "far above 1: is --model the model that ran?" : "far below 1: is --model the model that ran?";
	if (c > NEAR_HI)
		return "above 1: trace overcounts, or config/options undercount";
	if (few)
		return "the trace lacks FLOPs for over half its GEMM/conv/attention time";
	if (in->full_attention && c >= MORE_LO)
		return "counts all T² attention pairs (no causal halving)";
	return "below 1: work without FLOPs, or config/options overcount";
}

/* ---- the run's state ---- */

/* What the run's rows keep of one rank: its median step (as the report's). */
struct rank_sum {
	int analysed;       /* it was given to opmfu_model_check_rank */
	int rank;
	double window;      /* its median step's window (0: none, as in the report) */
	int have;           /* it has that step */
	int64_t step;
	double flops;       /* the step's FLOPs */
	double compute_cov; /* share of its FLOP-worthy compute time with FLOPs (step_compute_cov); -1: none */
	int records_only;
	double peak;        /* TFLOPS of the class; 0: none */
	double trace_mfu;   /* the step's; -1: none */
};

struct check {
	struct opmfu_model_report pub; /* first: rep->model points at it */
	int moe;                       /* the config is a mixture of experts */
	size_t n;
	struct rank_sum *ranks;
};

static struct check *check_of(struct opmfu_model_report *m)
{
	return (struct check *)(void *)m;
}

void opmfu_model_check_release(struct opmfu_model_report *m)
{
	struct check *c = check_of(m);
	if (!c)
		return;
	opmfu_free(c->ranks);
	opmfu_free(c);
}

/* The conventions of the run: those shown that apply; one asked for that
 * does not apply is a warning. */
static enum opmfu_status pick_conventions(const struct opmfu_opts *o, struct check *c, struct opmfu_err *err)
{
	struct opmfu_model_report *m = &c->pub;
	char msg[640];
	int k;

	for (k = 0; k < OPMFU_NCONV; k++) {
		const struct opmfu_model_conv *mc = &m->res.conv[k];
		struct opmfu_model_check *r;
		if (!mc->shown)
			continue;
		if (!mc->applies) {
			snprintf(msg, sizeof(msg), "--convention %s does not apply: %s", mc->name, mc->text);
			opmfu_warn(o, msg);
			continue;
		}
		r = &m->run[m->n_run++];
		r->conv = k;
		r->flops_per_step = mc->flops_per_step;
		r->flops_per_device = mc->flops_per_device;
		r->step_ns = r->model_mfu = r->trace_flops = r->coverage = r->trace_mfu = -1;
		r->peak_tflops = 0;
		r->note = NULL;
	}
	if (!m->n_run)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "none of the conventions asked for applies to %s",
				     m->res.arch);
	return OPMFU_OK;
}

enum opmfu_status opmfu_model_check_start(const struct opmfu_opts *o, size_t n_found, size_t n_ranks,
					  struct opmfu_report *rep, struct opmfu_err *err)
{
	struct opmfu_model_opts mo = *o->model;
	struct opmfu_model_cfg cfg;
	struct check *c;
	enum opmfu_status st;

	if (!(c = opmfu_calloc(1, sizeof(*c))) || !(c->ranks = opmfu_calloc(n_ranks + 1, sizeof(*c->ranks)))) {
		opmfu_free(c);
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory reading the model config");
	}
	c->n = n_ranks;
	rep->model = &c->pub;
	if (mo.world_size <= 0) {
		if (mo.dp > (long long)n_found)
			return opmfu_err_set(err, OPMFU_ERR_USAGE, "--dp %lld is more than the %zu rank%s found: give "
					     "--world-size", mo.dp, n_found, n_found == 1 ? "" : "s");
		mo.world_size = (long long)n_found;
	}
	/* the trace gives the step time, and each rank its peak */
	mo.step_time = 0;
	mo.chip = NULL;
	mo.peak_origin = NULL;
	memset(mo.peak_tflops, 0, sizeof(mo.peak_tflops));
	if ((st = opmfu_model_compute_cfg(&mo, &c->pub.res, &cfg, err)))
		return st;
	if (c->pub.res.tokens_per_step <= 0)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "--model needs --global-batch or --tokens-per-step: the "
				     "model's FLOPs per step");
	c->moe = cfg.experts > 0;
	c->pub.median_step = -1;
	c->pub.dtype_class = mo.dtype_class >= 0 && mo.dtype_class < OPMFU_NCLASS ? mo.dtype_class : OPMFU_CLASS_FP16;
	return pick_conventions(o, c, err);
}

/* ---- rows ---- */

/* Model MFU, coverage and note of r, whose step_ns, peak_tflops and trace_flops are set. */
static void derive(const struct check *c, struct opmfu_model_check *r, double compute_cov, int rec_only)
{
	struct opmfu_note_in in;

	r->model_mfu = r->step_ns > 0 && r->peak_tflops > 0
			       ? r->flops_per_device / (r->step_ns * 1e-9 * r->peak_tflops * 1e12) : -1;
	r->coverage = r->trace_flops >= 0 && r->flops_per_device > 0 ? r->trace_flops / r->flops_per_device : -1;
	in.coverage = r->coverage;
	in.compute_cov = compute_cov;
	in.training = !c->pub.res.forward_only;
	in.records_only = rec_only;
	in.palm_moe = c->moe && r->conv == OPMFU_CONV_PALM;
	in.full_attention = c->pub.res.causal && (r->conv == OPMFU_CONV_PALM || r->conv == OPMFU_CONV_KEMPNERFORGE);
	r->note = opmfu_model_note(&in);
}

/* One row; rank NULL (and step OPMFU_NO_STEP) for the run. */
static enum opmfu_status add_row(struct opmfu_cell_store *cs, const int *rank, int64_t step,
				 const struct opmfu_model_check *r, struct opmfu_err *err)
{
	struct opmfu_cell cell[sizeof(cols) / sizeof(cols[0])];

	cell[0] = rank ? opmfu_cell_int(*rank) : opmfu_cell_null();
	cell[1] = step == OPMFU_NO_STEP ? opmfu_cell_null() : opmfu_cell_int(step);
	cell[2] = opmfu_cell_str(opmfu_convention_name(r->conv));
	cell[3] = opmfu_cell_real(r->flops_per_step);
	cell[4] = opmfu_cell_real(r->flops_per_device);
	cell[5] = r->step_ns > 0 ? opmfu_cell_int(opmfu_sat_round(r->step_ns)) : opmfu_cell_null();
	cell[6] = opmfu_cell_known(r->model_mfu);
	cell[7] = r->trace_flops >= 0 ? opmfu_cell_int(opmfu_sat_round(r->trace_flops)) : opmfu_cell_null();
	cell[8] = opmfu_cell_known(r->coverage);
	cell[9] = opmfu_cell_pos(r->peak_tflops);
	cell[10] = opmfu_cell_str(r->note);
	return opmfu_cell_store_add(cs, cell, err);
}

/* The share of the step's FLOP-worthy compute (FLOP kernels, and GEMM,
 * convolution and attention kernels without FLOPs) that has FLOPs, -1
 * without any: elementwise work has no FLOPs by the seeds' conventions, so
 * its time must not make the trace look short of FLOPs (SPEC 17). */
static double step_compute_cov(const struct opmfu_step_row *s)
{
	int64_t f = s->ns[OPMFU_T_FLOPS], m = s->ns[OPMFU_T_MATMUL];
	return f + m > 0 ? (double)f / (double)(f + m) : -1;
}

static int records_only(const struct opmfu_step_row *s)
{
	return s->flops_shape == 0 && s->flops_record > 0;
}

/* r for step s of a rank whose peak of the class is peak. */
static void step_row(const struct check *c, const struct opmfu_step_row *s, double peak, struct opmfu_model_check *r)
{
	r->step_ns = (double)opmfu_step_window(s);
	r->peak_tflops = peak;
	r->trace_flops = (double)s->flops;
	r->trace_mfu = opmfu_step_trace_mfu(s);
	derive(c, r, step_compute_cov(s), records_only(s));
}

/* The rank's median step (analyze/steps.c picks it, for every view). */
static void keep_median(const struct opmfu_steps *steps, struct rank_sum *rs)
{
	const struct opmfu_step_row *s;
	if (steps->median == SIZE_MAX)
		return;
	s = &steps->v[steps->median];
	rs->have = 1;
	rs->step = s->step;
	rs->flops = (double)s->flops;
	rs->compute_cov = step_compute_cov(s);
	rs->records_only = records_only(s);
	rs->trace_mfu = opmfu_step_trace_mfu(s);
}

enum opmfu_status opmfu_model_check_rank(struct opmfu_model_report *m, size_t i, const struct opmfu_steps *steps,
					 const struct opmfu_rank_report *rr, struct opmfu_cell_store *cs,
					 struct opmfu_err *err)
{
	struct check *c = check_of(m);
	struct rank_sum *rs = &c->ranks[i];
	enum opmfu_status st = OPMFU_OK;
	size_t j, k;

	opmfu_cell_store_init(cs, &opmfu_model_def);
	memset(rs, 0, sizeof(*rs));
	rs->analysed = 1;
	rs->rank = rr->rank;
	rs->window = rr->step_ns_median > 0 ? rr->step_ns_median : 0;
	rs->peak = rr->peak_tflops[m->dtype_class];
	keep_median(steps, rs);
	for (j = 0; j < steps->n && st == OPMFU_OK; j++) {
		const struct opmfu_step_row *s = &steps->v[j];
		if (opmfu_step_window(s) <= 0 || s->kind == OPMFU_WINDOW_BACKLOG)
			continue;
		for (k = 0; k < m->n_run && st == OPMFU_OK; k++) {
			struct opmfu_model_check r = m->run[k];
			step_row(c, s, rs->peak, &r);
			st = add_row(cs, &rr->rank, s->step, &r, err);
		}
	}
	return st;
}

/* The run's median rank (OpmfuRun.median_rank); NULL: none. */
static const struct rank_sum *median_rank(const struct check *c, const int *rank)
{
	size_t i;
	for (i = 0; rank && i < c->n; i++)
		if (c->ranks[i].analysed && c->ranks[i].rank == *rank)
			return &c->ranks[i];
	return NULL;
}

/* The run's rows from rs, the median rank's (NULL or without a step: the
 * conventions' FLOPs alone), rank_id and step NULL; for a shard's
 * OpmfuModelRun (rank given) the rank and its median step. */
static enum opmfu_status run_rows(const struct check *c, const struct rank_sum *rs, const int *rank,
				  struct opmfu_cell_store *cs, struct opmfu_err *err)
{
	enum opmfu_status st = OPMFU_OK;
	size_t k;

	for (k = 0; k < c->pub.n_run && st == OPMFU_OK; k++) {
		struct opmfu_model_check r = c->pub.run[k];
		if (rs && rs->have) {
			r.step_ns = rs->window;
			r.peak_tflops = rs->peak;
			r.trace_flops = rs->flops;
			r.trace_mfu = rs->trace_mfu;
			derive(c, &r, rs->compute_cov, rs->records_only);
		}
		st = add_row(cs, rank, rank && rs && rs->have ? rs->step : OPMFU_NO_STEP, &r, err);
	}
	return st;
}

enum opmfu_status opmfu_model_check_run(struct opmfu_model_report *m, const int *median, struct opmfu_cell_store *cs,
					struct opmfu_err *err)
{
	struct check *c = check_of(m);
	const struct rank_sum *rs;

	opmfu_cell_store_init(cs, &opmfu_model_def);
	rs = median_rank(c, median);
	if (rs) {
		m->median_rank = rs->rank;
		m->median_step = rs->have && rs->step != OPMFU_NO_STEP ? (long long)rs->step : -1;
	}
	return run_rows(c, rs, NULL, cs, err);
}

enum opmfu_status opmfu_model_check_run_of(struct opmfu_model_report *m, size_t i, struct opmfu_cell_store *cs,
					   struct opmfu_err *err)
{
	struct check *c = check_of(m);
	opmfu_cell_store_init(cs, &opmfu_model_run_def);
	return run_rows(c, &c->ranks[i], &c->ranks[i].rank, cs, err);
}

/* The config, the run options and the conventions' FLOPs: all that makes
 * the rows, so that equal texts mean shards analysed alike. */
enum opmfu_status opmfu_model_check_describe(const struct opmfu_model_report *m, struct sbuf *sb,
					     struct opmfu_err *err)
{
	const struct opmfu_model_result *r = &m->res;
	size_t k;

	sbuf_addf(sb, "%s; %s; seq_len %lld, prompt_len %lld, global_batch %lld, tokens_per_step %.17g, world_size "
		  "%lld, dp %lld, timesteps %lld, cfg_passes %lld, forward_only %d, causal %d, dtype class %d",
		  r->arch, r->model, r->seq_len, r->prompt_len, r->global_batch, r->tokens_per_step, r->world_size,
		  r->dp, r->timesteps, r->cfg_passes, r->forward_only, r->causal, m->dtype_class);
	for (k = 0; k < m->n_run; k++)
		sbuf_addf(sb, "; %s %.17g per step, %.17g per device", opmfu_convention_name(m->run[k].conv),
			  m->run[k].flops_per_step, m->run[k].flops_per_device);
	return sb->oom ? opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory describing the model") : OPMFU_OK;
}
