/*
 * rank.c - one rank's analysis in two stages: read, peaks, FLOPs and kernel
 * MFU; then module MFU and what the rank's report says.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/lib.h"

static void set_reason(struct opmfu_rank_report *rr, enum opmfu_rank_state state, const char *msg)
{
	rr->state = state;
	snprintf(rr->reason, sizeof(rr->reason), "%s", msg);
}

/* While the second reader thread is still on the FLOPs records: the parts
 * of kernel MFU (R, kernel keys) and of the FLOPs stage (S, from R) that
 * need only the links. When one fails (out of memory) it leaves nothing,
 * and the stage does it again and reports its own failure. */
static void prepare_stages(void *ctx, const struct opmfu_trace *t)
{
	struct rank_work *w = ctx;
	struct opmfu_err e = OPMFU_ERR_INIT;
	if (opmfu_op_mfu_prepare(t, &w->op, &e) == OPMFU_OK)
		(void)opmfu_flops_prepare(&w->flops, t, w->op.r, w->op.n_r, &e);
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

/* Stage 1: read, peaks, FLOPs, kernel MFU. */
void opmfu_rank_analyse_ops(const struct opmfu_opts *o, const struct opmfu_rank_input *in, struct rank_work *w,
			struct opmfu_rank_report *rr)
{
	struct opmfu_err e = OPMFU_ERR_INIT;
	struct peak_choice *pc = &w->pc;
	struct opmfu_read_opts ro = { w->read_threads, prepare_stages, w };
	enum opmfu_status st;
	int c;
	size_t i;
	double t0 = opmfu_now_s(), t1;

	opmfu_trace_init(&w->trace);
	opmfu_flops_init(&w->flops);
	opmfu_op_mfu_init(&w->op);
	opmfu_module_mfu_init(&w->mod);
	opmfu_ops_init(&w->ops);
	opmfu_modules_init(&w->modules);
	opmfu_steps_init(&w->steps);
	opmfu_hotspots_init(&w->hot);
	w->have_ops = w->have_units = w->analysed = 0;

	rr->source = in->reader->name;
	st = in->reader->read(in, &w->trace, &ro, &e);
	t1 = opmfu_now_s();
	rr->seconds[OPMFU_STAGE_READ] = t1 - t0;
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

	opmfu_resolve_peaks(o, &w->trace.device, pc);
	for (c = 0; c < OPMFU_NCLASS; c++)
		rr->peak_tflops[c] = pc->prec.flops[c] / 1e12;
	opmfu_peak_source_text(pc, rr->peak_source, sizeof(rr->peak_source));
	chip_seen(&w->trace.device, rr);
	if (pc->chip_warn[0])
		snprintf(rr->warning, sizeof(rr->warning), "%s", pc->chip_warn);

	/* R first: the FLOPs stage makes S from it */
	if (!(st = opmfu_op_mfu_prepare(&w->trace, &w->op, &e)) &&
	    !(st = opmfu_flops_run(&w->flops, &w->trace, w->op.r, w->op.n_r, &e)))
		st = opmfu_op_mfu_run(&w->trace, &w->flops, &pc->prec, &w->op, &e);
	rr->seconds[OPMFU_STAGE_KERNEL] = opmfu_now_s() - t1;
	if (st) {
		set_reason(rr, OPMFU_RANK_FAILED, e.msg);
		return;
	}
	w->have_ops = 1;
}

/* e into top[0 .. *n) (at most max), most lost first; ties keep their order. */
static void insert_top(struct opmfu_module_top *top, size_t *n, size_t max, const struct opmfu_module_top *e)
{
	size_t k;
	for (k = *n; k > 0 && top[k - 1].lost_ns < e->lost_ns; k--)
		if (k < max)
			top[k] = top[k - 1];
	if (k >= max)
		return;
	top[k] = *e;
	if (*n < max)
		(*n)++;
}

static void hot_top(const struct opmfu_trace *t, const struct opmfu_hot *h, size_t n, struct opmfu_module_top *top,
		    size_t *n_top)
{
	size_t i;
	for (*n_top = 0, i = 0; i < n && i < OPMFU_NTOP; i++) {
		const char *name = opmfu_strtab_str(&t->strs, h[i].name);
		struct opmfu_module_top *e = &top[(*n_top)++];
		snprintf(e->name, sizeof(e->name), "%s", name ? name : "");
		e->kernel_ns = (double)h[i].kernel_ns;
		e->lost_ns = h[i].lost_ns;
		e->mfu = opmfu_hot_mfu(&h[i]);
		e->coverage = h[i].kernel_ns > 0 ? (double)h[i].flops_kernel_ns / (double)h[i].kernel_ns : -1;
		e->count = (long long)h[i].count;
	}
}

/* The steps: their number, the median step (analyze/steps.c picks it) and its waterfall. */
static void report_steps(const struct opmfu_steps *st, struct opmfu_rank_report *rr)
{
	const struct opmfu_step_row *med;
	double shares[4];
	int k;

	rr->steps = st->n;
	rr->step_ns_median = st->step_ns_median;
	rr->trace_mfu_all = st->trace_mfu;
	rr->median_step = -1;
	rr->median_peak = 0;
	for (k = 0; k < OPMFU_NSHARE; k++)
		rr->shares[k] = -1;
	if (st->median == SIZE_MAX)
		return;
	med = &st->v[st->median];
	opmfu_step_shares(med, shares);
	rr->median_step = med->step == OPMFU_NO_STEP ? -1 : med->step;
	rr->median_window_ns = (double)opmfu_step_window(med);
	rr->median_peak = opmfu_step_peak(med);
	rr->shares[OPMFU_SHARE_MFU] = opmfu_step_trace_mfu(med);
	rr->shares[OPMFU_SHARE_INEFFICIENCY] = rr->shares[OPMFU_SHARE_MFU] >= 0 ? shares[3] : -1;
	rr->shares[OPMFU_SHARE_OTHER] = shares[2];
	rr->shares[OPMFU_SHARE_COMM] = shares[1];
	rr->shares[OPMFU_SHARE_IDLE] = shares[0];
	rr->comm_overlapped = (double)med->comm_overlapped_ns / rr->median_window_ns;
	rr->trace_mfu = rr->shares[OPMFU_SHARE_MFU];
}

/* The honest numbers of SPEC 10 into the report, and the modules that lose most. */
static void report_ops(const struct rank_work *w, struct opmfu_rank_report *rr)
{
	const struct opmfu_ops_stats *st = &w->ops.st;
	size_t i, n_top = sizeof(rr->top) / sizeof(rr->top[0]);

	rr->mfu_recorded = st->cap_flops > 0 ? st->flops_peaked / st->cap_flops : -1;
	rr->mfu_busy = st->cap_flops > 0 && st->cap_all > 0 ? st->flops_peaked / st->cap_all : -1;
	rr->flops_coverage = st->busy_ns > 0 ? st->flops_ns / st->busy_ns : -1;
	rr->busy_ns = st->busy_ns;
	rr->flops_ns = st->flops_ns;
	rr->flops_record = st->flops_src[OPMFU_FLOPS_RECORD];
	rr->flops_shape = st->flops_src[OPMFU_FLOPS_SHAPE];
	rr->units = w->ops.n;
	rr->units_flops = st->n_flops;
	rr->units_no_peak = st->n_no_peak;
	rr->units_above_one = st->n_above_one;
	rr->rec_compared = st->rec_compared;
	rr->rec_agree = st->rec_agree;
	rr->recs_nested = st->recs_nested;
	rr->shape_failed = w->flops.shape_failed;
	rr->op_rows_above_one = w->op.stats.rows_above_one;
	rr->module_paths = w->modules.n_rows;
	/* the paths whose own ops lose the most time, most first, ties in table order */
	rr->n_top = 0;
	for (i = 0; i < w->modules.n_rows; i++) {
		const struct opmfu_mrow *r = &w->modules.rows[i];
		struct opmfu_module_top e;
		if (r->self.kernel_ns <= 0)
			continue;
		snprintf(e.name, sizeof(e.name), "%s", opmfu_intern_str(&w->modules.paths, r->path));
		e.kernel_ns = (double)r->self.kernel_ns;
		e.lost_ns = r->self.lost_ns;
		e.mfu = opmfu_msum_mfu(&r->self);
		e.coverage = (double)r->self.flops_kernel_ns / (double)r->self.kernel_ns;
		e.count = (long long)r->calls;
		insert_top(rr->top, &rr->n_top, n_top, &e);
	}
	/* the hotspot tables are in lost order already */
	hot_top(&w->trace, w->hot.ops, w->hot.n_ops, rr->top_ops, &rr->n_top_ops);
	hot_top(&w->trace, w->hot.kernels, w->hot.n_kernels, rr->top_kernels, &rr->n_top_kernels);
	report_steps(&w->steps, rr);
}

/* Why a rank that was analysed has no MFU anywhere; "" when it has one. */
static void no_mfu_reason(const struct rank_work *w, int have_peak, struct opmfu_rank_report *rr)
{
	const struct opmfu_trace *t = &w->trace;
	size_t i;
	int first = 1;

	if (w->ops.st.cap_flops > 0) {
		rr->state = OPMFU_RANK_OK;
		return;
	}
	if (t->n_compute == 0) {
		set_reason(rr, OPMFU_RANK_NO_MFU, t->why_no_links ? t->why_no_links : "no compute kernels linked to framework ops");
	} else if (w->ops.st.n_flops > 0 && !have_peak) {
		no_peak(&w->pc, rr);
		return;
	} else if (w->ops.st.n_flops > 0) {
		set_reason(rr, OPMFU_RANK_NO_MFU, "");
		opmfu_bufcat(rr->reason, sizeof(rr->reason),
			     "the %zu ops with FLOPs are of dtype classes without a peak (give --peak CLASS=TFLOPS)",
			     w->ops.st.n_flops);
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

/* Stage 2: the honest op, module, step and hotspot tables (SPEC 10, 11). */
void opmfu_rank_analyse_units(struct rank_work *w, struct opmfu_rank_report *rr)
{
	struct opmfu_err e = OPMFU_ERR_INIT;
	enum opmfu_status st;
	double t0;

	if (!w->have_ops)
		return;
	t0 = opmfu_now_s();
	if (!(st = opmfu_ops_run(&w->trace, &w->flops, &w->pc.prec, &w->ops, &e)) &&
	    !(st = opmfu_modules_run(&w->ops, &w->modules, &e)) && !(st = opmfu_steps_run(&w->ops, &w->steps, &e)))
		st = opmfu_hotspots_run(&w->ops, &w->hot, &e);
	rr->seconds[OPMFU_STAGE_MODULE] = opmfu_now_s() - t0;
	if (st) {
		set_reason(rr, OPMFU_RANK_FAILED, e.msg);
		return;
	}
	w->have_units = 1;
}

/* Stage 3: module MFU (SPEC 3), and what the rank's report says. */
void opmfu_rank_analyse_modules(struct rank_work *w, struct opmfu_rank_report *rr)
{
	struct opmfu_err e = OPMFU_ERR_INIT;
	enum opmfu_status st;
	int have_peak = opmfu_rank_any_peak(&w->pc.prec);
	size_t i;
	double t0;

	if (!w->have_units)
		return;
	t0 = opmfu_now_s();
	st = opmfu_module_mfu_run(&w->trace, &w->op, &w->mod, &e);
	rr->seconds[OPMFU_STAGE_MODULE] += opmfu_now_s() - t0;
	if (st) {
		set_reason(rr, OPMFU_RANK_FAILED, e.msg);
		return;
	}
	w->analysed = 1;
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
	rr->module_rows = w->mod.n_rows;
	rr->module_ops_too_deep = w->mod.ops_too_deep;
	snprintf(rr->bad_dtype, sizeof(rr->bad_dtype), "%s", w->op.stats.bad_dtype);
	report_ops(w, rr);
	no_mfu_reason(w, have_peak, rr);
}

void opmfu_rank_work_release(struct rank_work *w)
{
	opmfu_hotspots_release(&w->hot);
	opmfu_steps_release(&w->steps);
	opmfu_modules_release(&w->modules);
	opmfu_ops_release(&w->ops);
	opmfu_module_mfu_release(&w->mod);
	opmfu_op_mfu_release(&w->op);
	opmfu_flops_release(&w->flops);
	opmfu_trace_release(&w->trace);
	w->have_ops = w->have_units = w->analysed = 0;
}
