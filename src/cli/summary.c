/*
 * summary.c - what `opmfu analyze` prints: with --verbose, per rank what was
 * read, which peak was used and why there is no MFU (its OpmfuRankSummary
 * row); then the report of the run and the outputs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

/* A count column as an integer (0 when NULL). */
static long long count(const struct opmfu_rows *rs, size_t i, const char *col)
{
	double v = opmfu_cell(rs, i, col);
	return isnan(v) ? 0 : (long long)v;
}

static const char *plural(long long n)
{
	return n == 1 ? "" : "s";
}

static void print_peaks(const struct opmfu_rows *rs, size_t i)
{
	static const char *const names[OPMFU_NCLASS] = { "fp32", "tf32", "fp16", "fp8", "int8", "fp4" };
	static const char *const cols[OPMFU_NCLASS] = { "peak_fp32_tflops", "peak_tf32_tflops", "peak_fp16_tflops",
							"peak_fp8_tflops",  "peak_int8_tflops", "peak_fp4_tflops" };
	const char *src = opmfu_cell_str(rs, i, "peak_source"), *chip = opmfu_cell_str(rs, i, "chip_seen");
	int c, any = 0;

	opmfu_printf("  peak TFLOPS:");
	for (c = 0; c < OPMFU_NCLASS; c++) {
		double v = opmfu_cell(rs, i, cols[c]);
		if (v > 0) {
			opmfu_printf("%s %s %.2f", any ? "," : "", names[c], v);
			any = 1;
		}
	}
	if (any)
		opmfu_printf("\n    %s\n", src ? src : "");
	else
		opmfu_printf(" none\n");
	if (chip)
		opmfu_printf("  chip named in the trace: %s\n", chip);
}

/* "41.11%" */
static const char *pct(double v, char *buf, size_t size)
{
	return opmfu_format_pct(v, 2, buf, size);
}

/* FLOPs sources, the honest MFU (SPEC 10) and OperatorMFU's rows above 100 %. */
static void print_mfu(const struct opmfu_rows *rs, size_t i)
{
	const char *why = opmfu_cell_str(rs, i, "records_dropped_why");
	long long n, m;
	char a[16], b[16], c[16];

	opmfu_printf("  FLOPs records: %lld read, %lld used, %lld dropped%s%s%s\n", count(rs, i, "flops_records"),
	       count(rs, i, "flops_records_used"), count(rs, i, "flops_records_dropped"), why ? " (" : "",
	       why ? why : "", why ? ")" : "");
	opmfu_printf("  ops: %lld, %lld with FLOPs (%.4g from records, %.4g from shapes)\n", count(rs, i, "ops"),
	       count(rs, i, "ops_with_flops"), opmfu_cell(rs, i, "flops_record"), opmfu_cell(rs, i, "flops_shape"));
	if ((n = count(rs, i, "records_nested")))
		opmfu_printf("  %lld record%s around ops that an inner record holds: each op counted once, under the innermost\n",
		       n, plural(n));
	if ((n = count(rs, i, "shape_failed")))
		opmfu_printf("  shapes that did not fit their FLOPs formula: %lld kernels (no FLOPs for them)\n", n);
	if ((n = count(rs, i, "records_vs_shapes")))
		opmfu_printf("  records vs shapes: %lld of %lld records within 1%% of their kernels' shape FLOPs\n",
		       count(rs, i, "records_agree"), n);
	opmfu_printf("  MFU: %s of the kernel time with FLOPs (recorded MFU), %s of all compute time (busy MFU); FLOPs cover "
	       "%s of compute time\n",
	       pct(opmfu_cell(rs, i, "mfu_recorded"), a, sizeof(a)), pct(opmfu_cell(rs, i, "mfu_busy"), b, sizeof(b)),
	       pct(opmfu_cell(rs, i, "flops_coverage"), c, sizeof(c)));
	if ((n = count(rs, i, "ops_above_one")))
		opmfu_printf("  %lld op%s above 100%% MFU: their FLOPs or the peak are wrong (OpmfuOps.mfu > 1)\n", n, plural(n));
	if ((n = count(rs, i, "ops_no_peak")) && !count(rs, i, "no_peak")) /* without any peak, the no MFU line says it */
		opmfu_printf("  %lld op%s with FLOPs whose dtype class has no peak (MFU empty)\n", n, plural(n));
	opmfu_printf("  OperatorMFU: %lld rows, %lld kernels\n", count(rs, i, "operator_mfu_rows"),
	       count(rs, i, "kernels_with_mfu"));
	if ((n = count(rs, i, "operator_mfu_above_one")))
		opmfu_printf("  %lld OperatorMFU row%s above 100%%: as msprof-analyze does, each kernel is charged its record's "
		       "whole FLOPs, helper kernels too; OpmfuOps has the FLOPs over all of an op's kernel time\n",
		       n, plural(n));
	n = count(rs, i, "module_ranges");
	m = count(rs, i, "module_mfu_rows");
	opmfu_printf("  modules: %lld Module range%s, %lld ModuleMFU row%s, %lld OpmfuModules path%s\n", n, plural(n), m,
	       plural(m), count(rs, i, "module_paths"), plural(count(rs, i, "module_paths")));
	if ((n = count(rs, i, "module_ops_too_deep")))
		opmfu_printf("  %lld op%s under modules nested more than 20 deep left out of ModuleMFU\n", n, plural(n));
}

/* The stages of one rank; module MFU runs while OperatorMFU is written. */
static void print_timings(const struct opmfu_run *run, size_t i)
{
	opmfu_printf("  time: read %.2f s, kernel MFU %.2f s, module MFU %.2f s, writing %.2f s\n",
	       opmfu_run_stage_seconds(run, i, OPMFU_STAGE_READ), opmfu_run_stage_seconds(run, i, OPMFU_STAGE_KERNEL),
	       opmfu_run_stage_seconds(run, i, OPMFU_STAGE_MODULE), opmfu_run_stage_seconds(run, i, OPMFU_STAGE_WRITE));
}

static void print_rank(const struct opmfu_run *run, const struct opmfu_rows *rs, size_t i, int timings)
{
	const char *path = opmfu_cell_str(rs, i, "db_path"), *status = opmfu_cell_str(rs, i, "status");
	const char *reason = opmfu_cell_str(rs, i, "reason"), *s;
	long long n;

	opmfu_printf("rank %.0f: %s\n", opmfu_cell(rs, i, "rank_id"), path ? path : "");
	if (status && !strcmp(status, "failed")) {
		opmfu_printf("  FAILED: %s\n", reason ? reason : "");
		if (timings)
			print_timings(run, i);
		return;
	}
	if ((s = opmfu_cell_str(rs, i, "input_note")))
		opmfu_printf("  input: %s\n", s);
	opmfu_printf("  kernels: %lld kernel-op links", count(rs, i, "kernels"));
	if ((n = count(rs, i, "comm_links")))
		opmfu_printf(" (+%lld communication)", n);
	opmfu_printf("\n");
	print_mfu(rs, i);
	if ((n = count(rs, i, "bad_rows")))
		opmfu_printf("  skipped: %lld rows with a NULL or non-numeric timestamp\n", n);
	if ((s = opmfu_cell_str(rs, i, "bad_dtype")))
		opmfu_printf("  unsupported input dtype seen: %s\n", s);
	print_peaks(rs, i);
	if (status && !strcmp(status, "no_mfu"))
		opmfu_printf("  no MFU: %s\n", reason ? reason : "");
	if (timings)
		print_timings(run, i);
}

/* "wrote N FMT files to DIR", and the ranks and time unless *done. */
static void print_export(const struct opmfu_run *run, double ranks, double failed, enum opmfu_run_output which,
			 const char *fmt, int *done)
{
	size_t files = opmfu_run_files(run, which);
	opmfu_printf("wrote %zu %s file%s to %s", files, fmt, files == 1 ? "" : "s", opmfu_run_path(run, which));
	if (!*done && failed > 0)
		opmfu_printf(" (%.0f rank%s, %.0f failed) in %.2f s", ranks, ranks == 1 ? "" : "s", failed,
		       opmfu_run_seconds(run));
	else if (!*done)
		opmfu_printf(" (%.0f rank%s) in %.2f s", ranks, ranks == 1 ? "" : "s", opmfu_run_seconds(run));
	opmfu_printf("\n");
	*done = 1;
}

void opmfu_print_summary(const struct opmfu_run *run, int timings, int verbose, int dtype_class)
{
	const struct opmfu_rows *rs = opmfu_run_rows(run, "OpmfuRankSummary"), *r = opmfu_run_rows(run, "OpmfuRun");
	double ranks = opmfu_cell(r, 0, "ranks"), failed = opmfu_cell(r, 0, "ranks_failed");
	const char *db = opmfu_run_path(run, OPMFU_OUT_DB);
	size_t i, n = opmfu_rows_count(rs);
	int done;

	for (i = 0; (verbose || timings) && i < n; i++)
		print_rank(run, rs, i, timings);
	if (verbose || timings)
		opmfu_printf("\n"); /* the report after the rank blocks */
	opmfu_print_report(run, dtype_class);
	if (db)
		opmfu_printf("wrote %s (%.0f rank%s", db, ranks, ranks == 1 ? "" : "s");
	if (db && failed > 0)
		opmfu_printf(", %.0f failed", failed);
	if (db)
		opmfu_printf(") in %.2f s\n", opmfu_run_seconds(run));
	/* without the database, the first export's line says how many ranks and how long */
	done = db != NULL;
	if (opmfu_run_path(run, OPMFU_OUT_XLSX))
		print_export(run, ranks, failed, OPMFU_OUT_XLSX, "xlsx", &done);
	if (opmfu_run_path(run, OPMFU_OUT_CSV))
		print_export(run, ranks, failed, OPMFU_OUT_CSV, "csv", &done);
	if (opmfu_run_path(run, OPMFU_OUT_JSON))
		print_export(run, ranks, failed, OPMFU_OUT_JSON, "json", &done);
	if (opmfu_run_path(run, OPMFU_OUT_HTML))
		opmfu_printf("wrote %s\n", opmfu_run_path(run, OPMFU_OUT_HTML));
}

/* "shard 2/4 of run ascend: 3 of its 10 ranks (3-5) written to DB in 1.20 s" */
void opmfu_print_shard(const struct opmfu_run *run)
{
	const struct opmfu_rows *s = opmfu_run_rows(run, "OpmfuShard"), *r = opmfu_run_rows(run, "OpmfuRun");
	size_t n = opmfu_rows_count(s), held = 0, i;
	double failed = opmfu_cell(r, 0, "ranks_failed");
	const char *run_id = opmfu_cell_str(s, 0, "run_id");

	for (i = 0; i < n; i++)
		held += opmfu_cell(s, i, "rank_id") == opmfu_cell(s, i, "rank_id"); /* not NaN: a rank */
	opmfu_printf("shard %.0f/%.0f of run %s: %zu of its %.0f rank%s", opmfu_cell(s, 0, "shard"),
		     opmfu_cell(s, 0, "shards"), run_id ? run_id : "?", held, opmfu_cell(s, 0, "run_ranks"),
		     opmfu_cell(s, 0, "run_ranks") == 1 ? "" : "s");
	if (held)
		opmfu_printf(" (%.0f-%.0f)", opmfu_cell(s, 0, "rank_id"), opmfu_cell(s, n - 1, "rank_id"));
	if (failed > 0)
		opmfu_printf(", %.0f failed", failed);
	opmfu_printf(", written to %s in %.2f s\n", opmfu_run_path(run, OPMFU_OUT_DB), opmfu_run_seconds(run));
}
