/*
 * rank.c - one rank's analysis in stages: read, peaks, FLOPs and kernel
 * MFU; module MFU; the op units' analyses; then what the rank's report says.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze/modules.h"
#include "analyze/ops.h"
#include "analyze/steps.h"
#include "base/mem.h"
#include "lib/lib.h"
#include "reference/module_table.h"
#include "trace/filter.h"

static void set_reason(struct opmfu_rank_report *rr, enum opmfu_rank_state state, const char *msg)
{
	rr->state = state;
	snprintf(rr->reason, sizeof(rr->reason), "%.*s", (int)sizeof(rr->reason) - 1, msg);
}

/* While the second reader thread is still on the FLOPs records: the parts
 * of kernel MFU (R, kernel keys) and of the FLOPs stage (S, from R) that
 * need only the links. When one fails (out of memory) it leaves nothing,
 * and the stage does it again and reports its own failure. */
static void prepare_stages(void *ctx, const struct opmfu_trace *t)
{
	struct rank_work *w = ctx;
	struct opmfu_err e = OPMFU_ERR_INIT;
	/* the trace is w->trace, the reader's: its links are complete here and
	 * nothing else touches them (SPEC 26: clamp before any difference) */
	opmfu_trace_clamp_links(&w->trace);
	if (opmfu_op_mfu_prepare(&w->trace, &w->op, &e) == OPMFU_OK)
		(void)opmfu_flops_prepare(&w->flops, t, w->op.r, w->op.n_r, &e);
}

/* With a filter the links change after reading, so nothing is prepared
 * from them early: they are only clamped (the stages prepare afterwards). */
static void clamp_only(void *ctx, const struct opmfu_trace *t)
{
	struct rank_work *w = ctx;
	(void)t;
	opmfu_trace_clamp_links(&w->trace);
}

/* --steps and --time-range as the trace filter takes them. */
static void filter_of(const struct opmfu_opts *o, struct opmfu_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->steps = o->steps;
	f->n_steps = o->steps ? o->n_steps : 0;
	f->steps_text = o->steps_text;
	f->has_time = o->has_time_range;
	f->from_ns = o->time_from_ns;
	f->to_ns = o->time_to_ns >= OPMFU_FILTER_OPEN ? OPMFU_FILTER_OPEN : o->time_to_ns;
	f->time_text = o->time_range_text;
}

/* "Ascend910B (NPU_INFO Ascend910B, AICORE_FREQ 1800 MHz)" */
static void chip_seen(const struct opmfu_device *dev, struct opmfu_rank_report *rr)
{
	rr->chip_seen[0] = '\0';
	opmfu_bufcat(rr->chip_seen, sizeof(rr->chip_seen), "%s", dev->chip);
	if (dev->seen[0])
		opmfu_bufcat(rr->chip_seen, sizeof(rr->chip_seen), "%s(%s)", dev->chip[0] ? " " : "", dev->seen);
}

/* A rank without any peak is analysed and written all the same (SPEC 8):
 * MFU is NULL, and one warning says what is missing and what supplies it. */
static void no_peak(const struct peak_choice *pc, struct opmfu_rank_report *rr)
{
	rr->state = OPMFU_RANK_NO_MFU;
	rr->no_peak = 1;
	snprintf(rr->reason, sizeof(rr->reason),
		 "no peak FLOPS: %s; give --chip NAME or --peak fp16=TFLOPS,... (or OPMFU_PEAK)",
		 pc->no_peak_why[0] ? pc->no_peak_why : "no source");
	snprintf(rr->warning, sizeof(rr->warning), "MFU left empty (%s)", rr->reason);
}

/* After the read and each stage: what a step freed (the read's join arrays, the
 * reader helper's rows in that thread's own arena, which the worker cannot
 * reuse) would otherwise stay resident under everything after it. */
void opmfu_rank_trim(const struct rank_work *w)
{
	opmfu_trim(w->trace.n_links);
}

/* Stage 1: read, peaks, FLOPs, kernel MFU. */
void opmfu_rank_analyse_ops(const struct opmfu_opts *o, const struct opmfu_rank_input *in, struct rank_work *w,
			struct opmfu_rank_report *rr)
{
	struct opmfu_err e = OPMFU_ERR_INIT;
	struct peak_choice *pc = &w->pc;
	struct opmfu_filter f;
	struct opmfu_read_opts ro = { w->read_threads, prepare_stages, w };
	enum opmfu_status st;
	int c;
	size_t i;
	double t0 = opmfu_now_s(), t1;

	opmfu_trace_init(&w->trace);
	opmfu_flops_init(&w->flops);
	opmfu_op_mfu_init(&w->op);
	w->ran = 0;
	rr->seconds[OPMFU_STAGE_MODULE] = 0;
	if (!w->states_ready && (st = opmfu_states_new(w->state, OPMFU_PER_RANK, &e))) {
		set_reason(rr, OPMFU_RANK_FAILED, e.msg);
		return;
	}
	memset(&w->ctx, 0, sizeof(w->ctx));
	w->ctx.rank = in->rank;
	w->ctx.trace = &w->trace;
	w->ctx.flops = &w->flops;
	w->ctx.op = &w->op;
	w->ctx.peaks = &w->pc.prec;
	w->ctx.state = w->state;
	w->ctx.registry = opmfu_analyses;

	rr->source = in->reader->name;
	filter_of(o, &f);
	if (opmfu_filter_active(&f))
		ro.on_links = clamp_only;
	st = in->reader->read(in, &w->trace, &ro, &e);
	/* a rank its probe could not number (a gzip'd trace's distributedInfo after traceEvents) is the
	 * one its trace names, before anything of it is written */
	if (!st && in->rank < 0 && w->trace.dist_rank >= 0)
		rr->rank = w->ctx.rank = (int)w->trace.dist_rank;
	t1 = opmfu_now_s();
	rr->seconds[OPMFU_STAGE_READ] = t1 - t0;
	if (!st)
		opmfu_trace_clamp(&w->trace);
	opmfu_rank_trim(w);
	/* SPEC 22: before anything counts the trace, so every table sees only what is kept */
	if (!st)
		st = opmfu_trace_filter(&w->trace, &f, &e);
	rr->clamped = w->trace.n_clamped;
	rr->kernels = w->trace.n_compute;
	rr->comm_links = w->trace.n_comm_op + w->trace.n_comm_sched;
	rr->recs_read = w->trace.n_recs_read;
	rr->modules = w->trace.mods.n;
	rr->bad_rows = w->trace.n_bad_rows;
	snprintf(rr->note, sizeof(rr->note), "%s", w->trace.note);
	for (i = 0; i < OPMFU_NDROP; i++)
		rr->drops[i] = w->trace.drops[i];
	if (st) {
		set_reason(rr, OPMFU_RANK_FAILED, e.msg);
		return;
	}

	/* SPEC 20: an fp32 GEMM on TF32 tensor cores is measured against the tf32 peak */
	if (!o->no_tf32 && opmfu_trace_tf32(&w->trace) < 0) {
		set_reason(rr, OPMFU_RANK_FAILED, "out of memory marking TF32 kernels");
		return;
	}
	opmfu_resolve_peaks(o, &w->trace.device, pc);
	for (c = 0; c < OPMFU_NCLASS; c++)
		rr->peak_tflops[c] = pc->prec.flops[c] / 1e12;
	opmfu_peak_source_text(pc, rr->peak_source, sizeof(rr->peak_source));
	rr->peak_bw_tbps = pc->prec.bw / 1e12;
	snprintf(rr->peak_bw_source, sizeof(rr->peak_bw_source), "%s", pc->prec.bw_source ? pc->prec.bw_source : "");
	chip_seen(&w->trace.device, rr);
	if (pc->chip_warn[0])
		snprintf(rr->warning, sizeof(rr->warning), "%s", pc->chip_warn);

	/* R first: the FLOPs stage makes S from it */
	if (!(st = opmfu_op_mfu_prepare(&w->trace, &w->op, &e)) &&
	    !(st = opmfu_flops_run(&w->flops, &w->trace, w->op.r, w->op.n_r, &e))) {
		/* the shape formulas were its only reader: 20 bytes a kernel less under every later stage */
		opmfu_free(w->trace.kx);
		w->trace.kx = NULL;
		if (!(st = opmfu_op_mfu_run(&w->trace, &w->flops, &pc->prec, &w->op, &e)))
			st = opmfu_analyses_run(OPMFU_STAGE_OPS, &w->ctx, &e);
	}
	rr->seconds[OPMFU_STAGE_KERNEL] = opmfu_now_s() - t1;
	opmfu_rank_trim(w);
	if (st) {
		set_reason(rr, OPMFU_RANK_FAILED, e.msg);
		return;
	}
	w->ran = OPMFU_STAGE_OPS;
}

/* The steps: their number, the median step (analyze/steps.c picks it) and its waterfall. */
static void report_steps(const struct opmfu_steps *st, struct opmfu_rank_report *rr)
{
	static const enum opmfu_tcat parts[OPMFU_NPART] = { OPMFU_T_MATMUL, OPMFU_T_OTHER, OPMFU_T_COPY,
							     OPMFU_T_IDLE_HOST, OPMFU_T_IDLE };
	const struct opmfu_step_row *med;
	double shares[4];
	size_t j;
	int k;

	rr->steps = st->n_steps ? st->n_steps : 1; /* without step marks: the whole trace */
	rr->step_ns_median = st->step_ns_median;
	rr->trace_mfu_all = st->trace_mfu;
	rr->median_step = -1;
	rr->median_peak = 0;
	for (k = 0; k < OPMFU_NSHARE; k++)
		rr->shares[k] = -1;
	for (k = 0; k < OPMFU_NPART; k++)
		rr->parts[k] = -1;
	rr->profiler_step_ns = rr->preparing_ns = rr->backlog_ns = rr->mb_share = rr->mb_eff = -1;
	rr->windows_from_device = !st->n_steps ? 2 : st->from_device;
	rr->steps_spilled = st->n_spill;
	for (k = 0; k < 4; k++)
		rr->spill_step[k] = st->spill_step[k] == OPMFU_NO_STEP ? -1 : st->spill_step[k];
	for (j = st->n_steps; j < st->n; j++)
		if (st->v[j].kind == OPMFU_WINDOW_BACKLOG)
			rr->backlog_ns = (double)opmfu_step_window(&st->v[j]);
	if (st->median == SIZE_MAX)
		return;
	med = &st->v[st->median];
	opmfu_step_shares(med, shares);
	rr->median_step = med->step == OPMFU_NO_STEP ? -1 : med->step;
	rr->median_peak = opmfu_step_peak(med);
	rr->shares[OPMFU_SHARE_MFU] = opmfu_step_trace_mfu(med);
	rr->shares[OPMFU_SHARE_INEFFICIENCY] = rr->shares[OPMFU_SHARE_MFU] >= 0 ? shares[3] : -1;
	rr->shares[OPMFU_SHARE_OTHER] = shares[2];
	rr->shares[OPMFU_SHARE_COMM] = shares[1];
	rr->shares[OPMFU_SHARE_IDLE] = shares[0];
	rr->comm_overlapped = opmfu_step_share(med, OPMFU_T_COMM_OVERLAP);
	for (k = 0; k < OPMFU_NPART; k++)
		rr->parts[k] = opmfu_step_share(med, parts[k]);
	rr->mb_share = opmfu_step_share(med, OPMFU_T_MEMBOUND);
	rr->mb_eff = opmfu_step_mb_eff(med);
	if (med->host_end > med->host_start) {
		rr->profiler_step_ns = (double)(med->host_end - med->host_start);
		rr->preparing_ns = med->start > med->host_start ? (double)(med->start - med->host_start) : 0;
	}
}

/* The honest numbers of SPEC 10 into the report. */
static void report_ops(const struct rank_work *w, struct opmfu_rank_report *rr)
{
	const struct opmfu_ops *ops = opmfu_run_state(w->state, &opmfu_analysis_ops);
	const struct opmfu_modules *mods = opmfu_run_state(w->state, &opmfu_analysis_modules);
	const struct opmfu_steps *steps = opmfu_run_state(w->state, &opmfu_analysis_steps);
	const struct opmfu_ops_stats *st = &ops->st;

	rr->mfu_recorded = st->cap_flops > 0 ? st->flops_peaked / st->cap_flops : -1;
	rr->mfu_busy = st->cap_flops > 0 && st->cap_all > 0 ? st->flops_peaked / st->cap_all : -1;
	rr->flops_coverage = st->busy_ns > 0 ? st->flops_ns / st->busy_ns : -1;
	rr->busy_ns = st->busy_ns;
	rr->compiled_noflops_ns = st->compiled_noflops_ns;
	rr->flops_ns = st->flops_ns;
	rr->flops_record = st->flops_src[OPMFU_FLOPS_RECORD];
	rr->flops_shape = st->flops_src[OPMFU_FLOPS_SHAPE];
	rr->units = ops->n;
	rr->units_flops = st->n_flops;
	rr->units_no_peak = st->n_no_peak;
	rr->units_above_one = st->n_above_one;
	rr->rec_compared = st->rec_compared;
	rr->rec_agree = st->rec_agree;
	rr->recs_nested = st->recs_nested;
	rr->shape_failed = w->flops.shape_failed;
	rr->op_rows_above_one = w->op.stats.rows_above_one;
	rr->module_paths = mods ? mods->n_rows : 0;
	rr->modules_cut = mods ? mods->modules_cut : 0;
	rr->module_units_folded = mods ? mods->units_folded : 0;
	rr->strings_cut = w->trace.strs.n_cut;
	if (steps)
		report_steps(steps, rr);
}

/* Why a rank that was analysed has no MFU anywhere; "" when it has one. */
static void no_mfu_reason(const struct rank_work *w, int have_peak, struct opmfu_rank_report *rr)
{
	const struct opmfu_trace *t = &w->trace;
	const struct opmfu_ops_stats *os = &((const struct opmfu_ops *)opmfu_run_state(w->state, &opmfu_analysis_ops))->st;
	size_t i;
	int first = 1;

	if (os->cap_flops > 0) {
		rr->state = OPMFU_RANK_OK;
		return;
	}
	if (t->n_compute == 0) {
		set_reason(rr, OPMFU_RANK_NO_MFU, t->why_no_links ? t->why_no_links : "no compute kernels linked to framework ops");
	} else if (os->n_flops > 0 && !have_peak) {
		no_peak(&w->pc, rr);
		return;
	} else if (os->n_flops > 0) {
		set_reason(rr, OPMFU_RANK_NO_MFU, "");
		opmfu_bufcat(rr->reason, sizeof(rr->reason),
			     "the %zu ops with FLOPs are of dtype classes without a peak (give --peak CLASS=TFLOPS)",
			     os->n_flops);
	} else if (t->n_recs_read == 0) {
		set_reason(rr, OPMFU_RANK_NO_MFU, t->why_no_records ? t->why_no_records : "no FLOPs records");
		opmfu_bufcat(rr->reason, sizeof(rr->reason), "; and no kernel has a shape FLOPs formula");
	} else {
		set_reason(rr, OPMFU_RANK_NO_MFU, "");
		opmfu_bufcat(rr->reason, sizeof(rr->reason), "none of the %zu mfu_flops records gave an MFU (",
			     t->n_recs_read);
		for (i = 0; i < OPMFU_NDROP; i++)
			if (rr->drops[i]) {
				opmfu_bufcat(rr->reason, sizeof(rr->reason), "%s%zu %s", first ? "" : ", ", rr->drops[i],
					     opmfu_drop_name((enum opmfu_drop)i));
				first = 0;
			}
		opmfu_bufcat(rr->reason, sizeof(rr->reason), ")");
	}
	if (!have_peak && t->n_compute) {
		/* say it now so the user is not surprised on the next collection */
		opmfu_bufcat(rr->reason, sizeof(rr->reason), "; also no peak FLOPS: %s",
			     w->pc.no_peak_why[0] ? w->pc.no_peak_why : "no source");
		rr->no_peak = 1;
	}
}

/* After the last stage: what the rank's report says of kernel MFU and the module tree. */
static void report_rank(struct rank_work *w, struct opmfu_rank_report *rr)
{
	const struct opmfu_module_mfu *mod = opmfu_run_state(w->state, &opmfu_analysis_module_mfu);
	size_t i;

	for (i = 0; i < OPMFU_NDROP; i++)
		rr->drops[i] += w->flops.drops[i] + w->op.stats.drops[i];
	rr->drops_why[0] = '\0';
	for (i = 0; i < OPMFU_NDROP; i++)
		if (rr->drops[i])
			opmfu_bufcat(rr->drops_why, sizeof(rr->drops_why), "%s%zu %s", rr->drops_why[0] ? ", " : "",
				     rr->drops[i], opmfu_drop_name((enum opmfu_drop)i));
	rr->recs_used = w->op.stats.used[OPMFU_FLOPS_RECORD];
	rr->kernels_with_mfu = w->op.stats.kernels_with_mfu;
	rr->op_rows = w->op.stats.rows;
	rr->module_rows = mod ? mod->n_rows : 0;
	rr->module_ops_too_deep = mod ? mod->ops_too_deep : 0;
	snprintf(rr->bad_dtype, sizeof(rr->bad_dtype), "%s", w->op.stats.bad_dtype);
	report_ops(w, rr);
	no_mfu_reason(w, opmfu_rank_any_peak(&w->pc.prec), rr);
}

/* The stages after the first (trace/analysis.h says what each holds and
 * why in that order): the registry's analyses of the stage, timed as
 * "module MFU". */
void opmfu_rank_analyse_stage(struct rank_work *w, struct opmfu_rank_report *rr, int stage)
{
	struct opmfu_err e = OPMFU_ERR_INIT;
	enum opmfu_status st;
	double t0;

	if (w->ran != stage - 1)
		return;
	t0 = opmfu_now_s();
	st = opmfu_analyses_run(stage, &w->ctx, &e);
	rr->seconds[OPMFU_STAGE_MODULE] += opmfu_now_s() - t0;
	opmfu_rank_trim(w);
	if (st) {
		set_reason(rr, OPMFU_RANK_FAILED, e.msg);
		return;
	}
	w->ran = stage;
	if (stage == OPMFU_STAGE_LAST)
		report_rank(w, rr);
}

void opmfu_rank_work_release(struct rank_work *w)
{
	opmfu_states_free(w->state, OPMFU_PER_RANK);
	opmfu_op_mfu_release(&w->op);
	opmfu_flops_release(&w->flops);
	opmfu_trace_release(&w->trace);
	w->ran = 0;
}
