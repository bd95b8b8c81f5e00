/*
 * rank.c - one rank's analysis in two stages: read, peaks, FLOPs and kernel
 * MFU; then module MFU and what the rank's report says.
 */
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
	w->have_ops = w->analysed = 0;

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
		rr->peak_tflops[c] = pc->pk.flops[c] / 1e12;
	opmfu_peak_source_text(pc, rr->peak_source, sizeof(rr->peak_source));

	/* R first: the FLOPs stage makes S from it */
	if (!(st = opmfu_op_mfu_prepare(&w->trace, &w->op, &e)) &&
	    !(st = opmfu_flops_run(&w->flops, &w->trace, w->op.r, w->op.n_r, &e)))
		st = opmfu_op_mfu_run(&w->trace, &w->flops, &pc->pk, &w->op, &e);
	rr->seconds[OPMFU_STAGE_KERNEL] = opmfu_now_s() - t1;
	if (st) {
		set_reason(rr, OPMFU_RANK_FAILED, e.msg);
		return;
	}
	w->have_ops = 1;
}

/* Stage 2: module MFU, and what the rank's report says. */
void opmfu_rank_analyse_modules(struct rank_work *w, struct opmfu_rank_report *rr)
{
	struct opmfu_err e = OPMFU_ERR_INIT;
	const struct peak_choice *pc = &w->pc;
	enum opmfu_status st;
	int c, have_peak = 0;
	size_t i, valid;
	double t0;

	if (!w->have_ops)
		return;
	for (c = 0; c < OPMFU_NCLASS; c++)
		have_peak |= pc->pk.flops[c] > 0;
	t0 = opmfu_now_s();
	st = opmfu_module_mfu_run(&w->trace, &w->op, &w->mod, &e);
	rr->seconds[OPMFU_STAGE_MODULE] = opmfu_now_s() - t0;
	if (st) {
		set_reason(rr, OPMFU_RANK_FAILED, e.msg);
		return;
	}
	w->analysed = 1;
	for (i = 0; i < OPMFU_NDROP; i++)
		rr->drops[i] += w->flops.drops[i] + w->op.stats.drops[i];
	rr->recs_used = w->op.stats.used[OPMFU_FLOPS_RECORD];
	rr->kernels_with_mfu = w->op.stats.kernels_with_mfu;
	rr->op_rows = w->op.stats.rows;
	rr->module_rows = w->mod.n_rows;
	rr->module_ops_too_deep = w->mod.ops_too_deep;
	/* totals come most kernel time first */
	for (rr->n_top = 0; rr->n_top < w->mod.n_totals && rr->n_top < sizeof(rr->top) / sizeof(rr->top[0]);
	     rr->n_top++) {
		const struct opmfu_module_total *mt = &w->mod.totals[rr->n_top];
		struct opmfu_module_top *top = &rr->top[rr->n_top];
		snprintf(top->name, sizeof(top->name), "%s%s%s", mt->parent, mt->parent[0] ? "/" : "", mt->module);
		top->kernel_ns = mt->kernel_ns;
		top->mfu = mt->mfu;
	}
	rr->mfu_recorded = w->op.stats.sum_capacity > 0 ? w->op.stats.sum_flops / w->op.stats.sum_capacity : -1;
	snprintf(rr->bad_dtype, sizeof(rr->bad_dtype), "%s", w->op.stats.bad_dtype);

	valid = w->trace.recs.n;
	if (rr->kernels_with_mfu > 0) {
		rr->state = OPMFU_RANK_OK;
	} else if (w->trace.n_compute == 0) {
		set_reason(rr, OPMFU_RANK_NO_MFU,
			   w->trace.why_no_links ? w->trace.why_no_links : "no compute kernels linked to framework ops");
	} else if (w->trace.n_recs_read == 0) {
		set_reason(rr, OPMFU_RANK_NO_MFU, w->trace.why_no_records ? w->trace.why_no_records : "no FLOPs records");
	} else if (!have_peak && valid > 0) {
		rr->state = OPMFU_RANK_FAILED;
		rr->reason[0] = '\0';
		opmfu_bufcat(rr->reason, sizeof(rr->reason),
		       "no peak FLOPS: %s; give --peak fp16=TFLOPS,int8=TFLOPS (or OPMFU_PEAK) or --chip NAME",
		       pc->no_peak_why[0] ? pc->no_peak_why : "no source");
		return;
	} else {
		int first = 1;
		rr->state = OPMFU_RANK_NO_MFU;
		snprintf(rr->reason, sizeof(rr->reason), "none of the %zu mfu_flops records gave an MFU (",
			 w->trace.n_recs_read);
		for (i = 0; i < OPMFU_NDROP; i++)
			if (rr->drops[i]) {
				opmfu_bufcat(rr->reason, sizeof(rr->reason), "%s%zu %s", first ? "" : ", ", rr->drops[i],
				       opmfu_drop_name((enum opmfu_drop)i));
				first = 0;
			}
		opmfu_bufcat(rr->reason, sizeof(rr->reason), ")");
	}
	if (!have_peak && rr->state == OPMFU_RANK_NO_MFU) {
		/* say it now so the user is not surprised on the next collection */
		opmfu_bufcat(rr->reason, sizeof(rr->reason), "; also no peak FLOPS: %s",
		       pc->no_peak_why[0] ? pc->no_peak_why : "no source");
	}
}

void opmfu_rank_work_release(struct rank_work *w)
{
	opmfu_module_mfu_release(&w->mod);
	opmfu_op_mfu_release(&w->op);
	opmfu_flops_release(&w->flops);
	opmfu_trace_release(&w->trace);
	w->have_ops = w->analysed = 0;
}
