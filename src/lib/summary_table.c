/*
 * summary_table.c - the OpmfuRankSummary table (schema/out/rank_summary.sql):
 * one row per rank, from its report.
 */
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
};

/* no workbook: the reference writes none */
const struct opmfu_table_def opmfu_rank_summary_def = {
	"OpmfuRankSummary", cols, sizeof(cols) / sizeof(cols[0]), NULL,
};

/* an empty text is NULL */
static struct opmfu_cell text_or_null(const char *s)
{
	return s[0] ? opmfu_cell_str(s) : opmfu_cell_null();
}

/* no peak (0) is NULL */
static struct opmfu_cell peak(double tflops)
{
	return tflops > 0 ? opmfu_cell_real(tflops) : opmfu_cell_null();
}

static void summary_row(const void *src, size_t i, struct opmfu_cell *c)
{
	static const char *const state[] = { "ok", "no_mfu", "failed" };
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
	c[4] = peak(rr->peak_tflops[OPMFU_CLASS_FP16]);
	c[5] = peak(rr->peak_tflops[OPMFU_CLASS_INT8]);
	c[6] = peak(rr->peak_tflops[OPMFU_CLASS_FP8]);
	c[7] = text_or_null(rr->peak_source);
	c[8] = opmfu_cell_int((int64_t)rr->kernels);
	c[9] = opmfu_cell_int((int64_t)rr->recs_read);
	c[10] = opmfu_cell_int((int64_t)rr->recs_used);
	c[11] = opmfu_cell_int((int64_t)dropped);
	c[12] = opmfu_cell_int((int64_t)rr->kernels_with_mfu);
	c[13] = opmfu_cell_int((int64_t)rr->op_rows);
	c[14] = opmfu_cell_int((int64_t)rr->module_rows);
}

struct opmfu_table opmfu_rank_summary_table(const struct opmfu_rank_report *rr)
{
	struct opmfu_table t = { &opmfu_rank_summary_def, 1, summary_row, rr };
	return t;
}
