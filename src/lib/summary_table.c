/*
 * summary_table.c - the OpmfuRankSummary table (schema/out/rank_summary.sql):
 * one row per rank, from its report.
 */
#include <math.h>

#include "base/sat.h"
#include "lib/lib.h"

static const struct opmfu_column cols[] = {
	{ "rank_id", OPMFU_COL_INT, "Rank ID", 0, 0 },
	{ "db_path", OPMFU_COL_TEXT, "DB Path", 0, 0 },
	{ "status", OPMFU_COL_TEXT, "Status", 0, 0 },
	{ "reason", OPMFU_COL_TEXT, "Reason", 0, 0 },
	{ "peak_fp16_tflops", OPMFU_COL_REAL, "Peak FP16 TFLOPS", 0, 0 },
	{ "peak_int8_tflops", OPMFU_COL_REAL, "Peak INT8 TFLOPS", 0, 0 },
	{ "peak_fp8_tflops", OPMFU_COL_REAL, "Peak FP8 TFLOPS", 0, 0 },
	{ "peak_source", OPMFU_COL_TEXT, "Peak Source", 0, 0 },
	{ "kernels", OPMFU_COL_INT, "Kernels", 0, 0 },
	{ "flops_records", OPMFU_COL_INT, "FLOPs Records", 0, 0 },
	{ "flops_records_used", OPMFU_COL_INT, "FLOPs Records Used", 0, 0 },
	{ "flops_records_dropped", OPMFU_COL_INT, "FLOPs Records Dropped", 0, 0 },
	{ "kernels_with_mfu", OPMFU_COL_INT, "Kernels With MFU", 0, 0 },
	{ "operator_mfu_rows", OPMFU_COL_INT, "OperatorMFU Rows", 0, 0 },
	{ "module_mfu_rows", OPMFU_COL_INT, "ModuleMFU Rows", 0, 0 },
	{ "chip_seen", OPMFU_COL_TEXT, "Chip Seen", 0, 0 },
	{ "mfu_recorded", OPMFU_COL_REAL, "Recorded MFU", 0, OPMFU_COLF_PERCENT },
	{ "mfu_busy", OPMFU_COL_REAL, "Busy MFU", 0, OPMFU_COLF_PERCENT },
	{ "flops_coverage", OPMFU_COL_REAL, "FLOPs Coverage", 0, OPMFU_COLF_PERCENT },
	{ "peak_fp32_tflops", OPMFU_COL_REAL, "Peak FP32 TFLOPS", 0, 0 },
	{ "peak_tf32_tflops", OPMFU_COL_REAL, "Peak TF32 TFLOPS", 0, 0 },
	{ "peak_fp4_tflops", OPMFU_COL_REAL, "Peak FP4 TFLOPS", 0, 0 },
	{ "compute_ns", OPMFU_COL_INT, "Compute Time(ns)", 0, 0 },
	{ "flops_ns", OPMFU_COL_INT, "Compute Time with FLOPs(ns)", 0, 0 },
	{ "flops_record", OPMFU_COL_REAL, "FLOPs from Records", 0, 0 },
	{ "flops_shape", OPMFU_COL_REAL, "FLOPs from Shapes", 0, 0 },
	{ "ops", OPMFU_COL_INT, "Ops", 0, 0 },
	{ "ops_with_flops", OPMFU_COL_INT, "Ops with FLOPs", 0, 0 },
	{ "ops_above_one", OPMFU_COL_INT, "Ops above 100% MFU", 0, 0 },
	{ "records_vs_shapes", OPMFU_COL_INT, "Records with Shape FLOPs", 0, 0 },
	{ "records_agree", OPMFU_COL_INT, "Records within 1% of Shapes", 0, 0 },
	{ "trace_mfu", OPMFU_COL_REAL, "Trace MFU", 0, OPMFU_COLF_PERCENT },
	{ "step_ns_median", OPMFU_COL_INT, "Median Step(ns)", 0, 0 },
	{ "steps", OPMFU_COL_INT, "Steps", 0, 0 },
	{ "source", OPMFU_COL_TEXT, "Source", 0, 0 },
	{ "median_step", OPMFU_COL_INT, "Median Step", 0, 0 },
	{ "peak_tflops", OPMFU_COL_REAL, "Peak TFLOPS", 0, 0 },
	{ "share_idle", OPMFU_COL_REAL, "Idle", 0, OPMFU_COLF_PERCENT },
	{ "share_comm", OPMFU_COL_REAL, "Exposed Communication", 0, OPMFU_COLF_PERCENT },
	{ "share_other_compute", OPMFU_COL_REAL, "Compute without FLOPs", 0, OPMFU_COLF_PERCENT },
	{ "share_inefficiency", OPMFU_COL_REAL, "FLOP Kernels below Peak", 0, OPMFU_COLF_PERCENT },
	{ "trace_mfu_all_steps", OPMFU_COL_REAL, "Trace MFU over All Steps", 0, OPMFU_COLF_PERCENT },
	{ "input_note", OPMFU_COL_TEXT, "Input Note", 0, 0 },
	{ "warning", OPMFU_COL_TEXT, "Warning", 0, 0 },
	{ "comm_links", OPMFU_COL_INT, "Communication Links", 0, 0 },
	{ "module_ranges", OPMFU_COL_INT, "Module Ranges", 0, 0 },
	{ "module_paths", OPMFU_COL_INT, "Module Paths", 0, 0 },
	{ "module_ops_too_deep", OPMFU_COL_INT, "Ops under Modules Too Deep", 0, 0 },
	{ "bad_rows", OPMFU_COL_INT, "Rows Skipped", 0, 0 },
	{ "bad_dtype", OPMFU_COL_TEXT, "Unsupported Dtype", 0, 0 },
	{ "records_nested", OPMFU_COL_INT, "Records Nested", 0, 0 },
	{ "shape_failed", OPMFU_COL_INT, "Kernels whose Shapes Did Not Fit", 0, 0 },
	{ "ops_no_peak", OPMFU_COL_INT, "Ops with FLOPs without Peak", 0, 0 },
	{ "operator_mfu_above_one", OPMFU_COL_INT, "OperatorMFU Rows above 100%", 0, 0 },
	{ "records_dropped_why", OPMFU_COL_TEXT, "FLOPs Records Dropped Why", 0, 0 },
	{ "no_peak", OPMFU_COL_INT, "No Peak", 0, 0 },
	{ "comm_overlapped_share", OPMFU_COL_REAL, "Overlapped Communication", 0, OPMFU_COLF_PERCENT },
	{ "share_matmul_noflops", OPMFU_COL_REAL, "GEMM/Conv/Attention without FLOPs", 0, OPMFU_COLF_PERCENT },
	{ "share_other_kernels", OPMFU_COL_REAL, "Other Compute", 0, OPMFU_COLF_PERCENT },
	{ "share_memcpy", OPMFU_COL_REAL, "Copies and Memsets", 0, OPMFU_COLF_PERCENT },
	{ "share_idle_host", OPMFU_COL_REAL, "Idle, Host Late", 0, OPMFU_COLF_PERCENT },
	{ "share_idle_device", OPMFU_COL_REAL, "Idle, Other", 0, OPMFU_COLF_PERCENT },
	{ "profiler_step_ns", OPMFU_COL_INT, "Profiler Step(ns)", 0, 0 },
	{ "preparing_ns", OPMFU_COL_INT, "Preparing(ns)", 0, 0 },
	{ "backlog_ns", OPMFU_COL_INT, "Backlog(ns)", 0, 0 },
	{ "step_windows", OPMFU_COL_TEXT, "Step Windows", 0, 0 },
	{ "steps_spilled", OPMFU_COL_INT, "Steps Spilling into the Next", 0, 0 },
	{ "share_memory_bound", OPMFU_COL_REAL, "Memory-Bound, Bytes Known", 0, OPMFU_COLF_PERCENT },
	{ "memory_bound_eff", OPMFU_COL_REAL, "Memory-Bound Bandwidth Efficiency", 0, OPMFU_COLF_PERCENT },
	{ "peak_bw_tbps", OPMFU_COL_REAL, "Peak Memory Bandwidth (TB/s)", 0, 0 },
	{ "peak_bw_source", OPMFU_COL_TEXT, "Peak Memory Bandwidth Source", 0, 0 },
	{ "compiled_noflops_ns", OPMFU_COL_INT, "GEMM/Conv/Attention without FLOPs in Compiled Regions(ns)", 15, 0 },
};

/* no workbook: the reference writes none */
const struct opmfu_table_def opmfu_rank_summary_def = {
	"OpmfuRankSummary", cols, sizeof(cols) / sizeof(cols[0]), NULL, 0, NULL,
};

/* an empty text is NULL */
static struct opmfu_cell text_or_null(const char *s)
{
	return s[0] ? opmfu_cell_str(s) : opmfu_cell_null();
}

_Static_assert(sizeof(cols) / sizeof(cols[0]) == 72, "summary_row fills every column");

/* The peak the rank's numbers divide by, TFLOPS: its median step's (over
 * the classes of its FLOPs); without FLOPs there, its fp16 peak, else its
 * highest; 0: none. */
static double rank_peak(const struct opmfu_rank_report *rr)
{
	double best = 0;
	int k;
	if (rr->median_peak > 0)
		return rr->median_peak / 1e12;
	if (rr->peak_tflops[OPMFU_CLASS_FP16] > 0)
		return rr->peak_tflops[OPMFU_CLASS_FP16];
	for (k = 0; k < OPMFU_NCLASS; k++)
		if (rr->peak_tflops[k] > best)
			best = rr->peak_tflops[k];
	return best;
}

static void summary_row(const void *src, size_t i, struct opmfu_cell *c)
{
	static const char *const state[] = { "ok", "no_mfu", "failed" };
	static const char *const windows[] = { "device work", "device annotation", "whole trace" };
	const struct opmfu_rank_report *rr = src;
	size_t dropped = 0;
	int k;

	(void)i;
	for (k = 0; k < OPMFU_NDROP; k++)
		dropped += rr->drops[k];
	c[0] = opmfu_cell_int(rr->rank);
	c[1] = opmfu_cell_str(rr->db_path);
	c[2] = opmfu_cell_str(state[rr->state]);
	c[3] = text_or_null(rr->reason);
	c[4] = opmfu_cell_pos(rr->peak_tflops[OPMFU_CLASS_FP16]);
	c[5] = opmfu_cell_pos(rr->peak_tflops[OPMFU_CLASS_INT8]);
	c[6] = opmfu_cell_pos(rr->peak_tflops[OPMFU_CLASS_FP8]);
	c[7] = text_or_null(rr->peak_source);
	c[8] = opmfu_cell_int((int64_t)rr->kernels);
	c[9] = opmfu_cell_int((int64_t)rr->recs_read);
	c[10] = opmfu_cell_int((int64_t)rr->recs_used);
	c[11] = opmfu_cell_int((int64_t)dropped);
	c[12] = opmfu_cell_int((int64_t)rr->kernels_with_mfu);
	c[13] = opmfu_cell_int((int64_t)rr->op_rows);
	c[14] = opmfu_cell_int((int64_t)rr->module_rows);
	c[15] = text_or_null(rr->chip_seen);
	c[16] = opmfu_cell_known(rr->mfu_recorded);
	c[17] = opmfu_cell_known(rr->mfu_busy);
	c[18] = opmfu_cell_known(rr->flops_coverage);
	c[19] = opmfu_cell_pos(rr->peak_tflops[OPMFU_CLASS_FP32]);
	c[20] = opmfu_cell_pos(rr->peak_tflops[OPMFU_CLASS_TF32]);
	c[21] = opmfu_cell_pos(rr->peak_tflops[OPMFU_CLASS_FP4]);
	c[22] = opmfu_cell_int(opmfu_sat_round(rr->busy_ns));
	c[23] = opmfu_cell_int(opmfu_sat_round(rr->flops_ns));
	c[24] = opmfu_cell_real(rr->flops_record);
	c[25] = opmfu_cell_real(rr->flops_shape);
	c[26] = opmfu_cell_int((int64_t)rr->units);
	c[27] = opmfu_cell_int((int64_t)rr->units_flops);
	c[28] = opmfu_cell_int((int64_t)rr->units_above_one);
	c[29] = opmfu_cell_int((int64_t)rr->rec_compared);
	c[30] = opmfu_cell_int((int64_t)rr->rec_agree);
	c[31] = opmfu_cell_known(rr->shares[OPMFU_SHARE_MFU]); /* the median step's */
	c[32] = rr->step_ns_median >= 0 ? opmfu_cell_int(opmfu_sat_round(rr->step_ns_median)) : opmfu_cell_null();
	c[33] = opmfu_cell_int((int64_t)rr->steps);
	c[34] = rr->source ? opmfu_cell_str(rr->source) : opmfu_cell_null();
	c[35] = rr->median_step >= 0 ? opmfu_cell_int(rr->median_step) : opmfu_cell_null();
	c[36] = opmfu_cell_pos(rank_peak(rr));
	c[37] = opmfu_cell_known(rr->shares[OPMFU_SHARE_IDLE]);
	c[38] = opmfu_cell_known(rr->shares[OPMFU_SHARE_COMM]);
	c[39] = opmfu_cell_known(rr->shares[OPMFU_SHARE_OTHER]);
	c[40] = opmfu_cell_known(rr->shares[OPMFU_SHARE_INEFFICIENCY]);
	c[41] = opmfu_cell_known(rr->trace_mfu_all);
	c[42] = text_or_null(rr->note);
	c[43] = text_or_null(rr->warning);
	c[44] = opmfu_cell_int((int64_t)rr->comm_links);
	c[45] = opmfu_cell_int((int64_t)rr->modules);
	c[46] = opmfu_cell_int((int64_t)rr->module_paths);
	c[47] = opmfu_cell_int((int64_t)rr->module_ops_too_deep);
	c[48] = opmfu_cell_int((int64_t)rr->bad_rows);
	c[49] = text_or_null(rr->bad_dtype);
	c[50] = opmfu_cell_int((int64_t)rr->recs_nested);
	c[51] = opmfu_cell_int((int64_t)rr->shape_failed);
	c[52] = opmfu_cell_int((int64_t)rr->units_no_peak);
	c[53] = opmfu_cell_int((int64_t)rr->op_rows_above_one);
	c[54] = text_or_null(rr->drops_why);
	c[55] = opmfu_cell_int(rr->no_peak);
	c[56] = rr->shares[OPMFU_SHARE_IDLE] >= 0 ? opmfu_cell_real(rr->comm_overlapped) : opmfu_cell_null();
	for (k = 0; k < OPMFU_NPART; k++)
		c[57 + k] = opmfu_cell_known(rr->parts[k]);
	c[62] = rr->profiler_step_ns >= 0 ? opmfu_cell_int(opmfu_sat_round(rr->profiler_step_ns)) : opmfu_cell_null();
	c[63] = rr->preparing_ns >= 0 ? opmfu_cell_int(opmfu_sat_round(rr->preparing_ns)) : opmfu_cell_null();
	c[64] = rr->backlog_ns >= 0 ? opmfu_cell_int(opmfu_sat_round(rr->backlog_ns)) : opmfu_cell_null();
	c[65] = rr->step_ns_median >= 0 ? opmfu_cell_str(windows[rr->windows_from_device]) : opmfu_cell_null();
	c[66] = opmfu_cell_int((int64_t)rr->steps_spilled);
	c[67] = opmfu_cell_known(rr->mb_share);
	c[68] = opmfu_cell_known(rr->mb_eff);
	c[69] = opmfu_cell_pos(rr->peak_bw_tbps);
	c[70] = text_or_null(rr->peak_bw_source);
	c[71] = opmfu_cell_int(opmfu_sat_round(rr->compiled_noflops_ns));
}

struct opmfu_table opmfu_rank_summary_table(const struct opmfu_rank_report *rr)
{
	struct opmfu_table t = { &opmfu_rank_summary_def, 1, summary_row, rr };
	return t;
}
