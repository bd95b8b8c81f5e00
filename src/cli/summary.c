/*
 * summary.c - what `opmfu analyze` prints: per rank what was read, which
 * peak was used and why there is no MFU; then the cluster and the outputs.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"

static void print_peaks(const struct opmfu_rank_report *r)
{
	static const char *const names[OPMFU_NCLASS] = { "fp32", "tf32", "fp16", "fp8", "int8", "fp4" };
	int c, any = 0;
	printf("  peak TFLOPS:");
	for (c = 0; c < OPMFU_NCLASS; c++)
		if (r->peak_tflops[c] > 0) {
			printf("%s %s %.2f", any ? "," : "", names[c], r->peak_tflops[c]);
			any = 1;
		}
	if (any)
		printf("\n    %s\n", r->peak_source);
	else
		printf(" none\n");
	if (r->chip_seen[0])
		printf("  chip named in the trace: %s\n", r->chip_seen);
}

/* Which workbooks a rank got, and why one is missing. */
static void print_xlsx(const struct opmfu_rank_report *r)
{
	int k = (r->xlsx & OPMFU_XLSX_KERNEL) != 0, m = (r->xlsx & OPMFU_XLSX_MODULE) != 0;
	printf("  xlsx:");
	if (k)
		printf(" operator_mfu_kernel_%d.xlsx", r->rank);
	if (m)
		printf("%s operator_mfu_module_%d.xlsx", k ? "," : "", r->rank);
	if (!k)
		printf("%s no kernel workbook (no OperatorMFU rows)", m ? ";" : "");
	if (!m)
		printf("; no module workbook (no ModuleMFU rows)"); /* something always precedes it */
	printf("\n");
}

/* "41.11%" */
static const char *pct(double v, char *buf, size_t size)
{
	return opmfu_format_pct(v, 2, buf, size);
}

/* Module ranges, and the module paths whose own ops lose the most time to peak. */
static void print_modules(const struct opmfu_rank_report *r)
{
	size_t k;
	printf("  modules: %zu Module range%s, %zu ModuleMFU row%s, %zu OpmfuModules path%s\n", r->modules,
	       r->modules == 1 ? "" : "s", r->module_rows, r->module_rows == 1 ? "" : "s", r->module_paths,
	       r->module_paths == 1 ? "" : "s");
	if (r->module_ops_too_deep)
		printf("  %zu op%s under modules nested more than 20 deep left out of ModuleMFU\n",
		       r->module_ops_too_deep, r->module_ops_too_deep == 1 ? "" : "s");
	if (r->n_top)
		printf("  top modules by lost time (kernel time of their own ops beyond what peak would need):\n"
		       "    %10s %10s %8s %9s  %s\n", "lost", "kernel", "MFU", "coverage", "module");
	for (k = 0; k < r->n_top; k++) {
		char lost[32], t[32], m[16], c[16];
		opmfu_format_ns(r->top[k].lost_ns, lost, sizeof(lost));
		opmfu_format_ns(r->top[k].kernel_ns, t, sizeof(t));
		printf("    %10s %10s %8s %9s  %s\n", lost, t, pct(r->top[k].mfu, m, sizeof(m)),
		       pct(r->top[k].coverage, c, sizeof(c)), r->top[k].name);
	}
}

/* FLOPs sources, the honest MFU (SPEC 10) and OperatorMFU's rows above 100 %. */
static void print_mfu(const struct opmfu_rank_report *r)
{
	char a[16], b[16], c[16];
	size_t dropped = 0;
	int d, first = 1;

	for (d = 0; d < OPMFU_NDROP; d++)
		dropped += r->drops[d];
	printf("  FLOPs records: %zu read, %zu used, %zu dropped", r->recs_read, r->recs_used, dropped);
	for (d = 0; d < OPMFU_NDROP; d++)
		if (r->drops[d]) {
			printf("%s%zu %s", first ? " (" : ", ", r->drops[d], opmfu_drop_reason(d));
			first = 0;
		}
	printf("%s\n", first ? "" : ")");
	printf("  ops: %zu, %zu with FLOPs (%.4g from records, %.4g from shapes)\n", r->units, r->units_flops,
	       r->flops_record, r->flops_shape);
	if (r->recs_nested)
		printf("  %zu record%s around ops that an inner record holds: each op counted once, under the innermost\n",
		       r->recs_nested, r->recs_nested == 1 ? "" : "s");
	if (r->shape_failed)
		printf("  shapes that did not fit their FLOPs formula: %zu kernels (no FLOPs for them)\n", r->shape_failed);
	if (r->rec_compared)
		printf("  records vs shapes: %zu of %zu records within 1%% of their kernels' shape FLOPs\n", r->rec_agree,
		       r->rec_compared);
	printf("  MFU: %s of the kernel time with FLOPs, %s of all compute time; FLOPs cover %s of compute time\n",
	       pct(r->mfu_recorded, a, sizeof(a)), pct(r->mfu_busy, b, sizeof(b)), pct(r->flops_coverage, c, sizeof(c)));
	if (r->units_above_one)
		printf("  %zu op%s above 100%% MFU: their FLOPs or the peak are wrong (OpmfuOps.mfu > 1)\n",
		       r->units_above_one, r->units_above_one == 1 ? "" : "s");
	if (r->units_no_peak && !r->no_peak) /* without any peak, the no MFU line says it */
		printf("  %zu op%s with FLOPs whose dtype class has no peak (MFU empty)\n", r->units_no_peak,
		       r->units_no_peak == 1 ? "" : "s");
	printf("  OperatorMFU: %zu rows, %zu kernels\n", r->op_rows, r->kernels_with_mfu);
	if (r->op_rows_above_one)
		printf("  %zu OperatorMFU row%s above 100%%: as msprof-analyze does, each kernel is charged its record's "
		       "whole FLOPs, helper kernels too; OpmfuOps has the FLOPs over all of an op's kernel time\n",
		       r->op_rows_above_one, r->op_rows_above_one == 1 ? "" : "s");
}

/* The stages of one rank; module MFU runs while OperatorMFU is written. */
static void print_timings(const struct opmfu_rank_report *r)
{
	printf("  time: read %.2f s, kernel MFU %.2f s, module MFU %.2f s, writing %.2f s\n",
	       r->seconds[OPMFU_STAGE_READ], r->seconds[OPMFU_STAGE_KERNEL], r->seconds[OPMFU_STAGE_MODULE],
	       r->seconds[OPMFU_STAGE_WRITE]);
}

/* "wrote N FMT files to DIR", and the ranks and time unless *done. */
static void print_export(const struct opmfu_report *rep, size_t files, const char *fmt, const char *dir, int *done)
{
	printf("wrote %zu %s file%s to %s", files, fmt, files == 1 ? "" : "s", dir);
	if (!*done && rep->n_failed)
		printf(" (%zu rank%s, %zu failed) in %.2f s", rep->n_ranks, rep->n_ranks == 1 ? "" : "s", rep->n_failed,
		       rep->seconds);
	else if (!*done)
		printf(" (%zu rank%s) in %.2f s", rep->n_ranks, rep->n_ranks == 1 ? "" : "s", rep->seconds);
	printf("\n");
	*done = 1;
}

void opmfu_print_summary(const struct opmfu_report *rep, int timings, int verbose)
{
	size_t i;
	int done;
	for (i = 0; (verbose || timings) && i < rep->n_ranks; i++) {
		const struct opmfu_rank_report *r = &rep->ranks[i];
		printf("rank %d: %s\n", r->rank, r->db_path);
		if (r->state == OPMFU_RANK_FAILED) {
			printf("  FAILED: %s\n", r->reason);
			if (timings)
				print_timings(r);
			continue;
		}
		if (r->note[0])
			printf("  input: %s\n", r->note);
		printf("  kernels: %zu kernel-op links", r->kernels);
		if (r->comm_links)
			printf(" (+%zu communication)", r->comm_links);
		printf("\n");
		print_mfu(r);
		print_modules(r);
		if (r->bad_rows)
			printf("  skipped: %zu rows with a NULL or non-numeric timestamp\n", r->bad_rows);
		if (r->bad_dtype[0])
			printf("  unsupported input dtype seen: %s\n", r->bad_dtype);
		print_peaks(r);
		if (r->state == OPMFU_RANK_NO_MFU)
			printf("  no MFU: %s\n", r->reason);
		if (rep->xlsx_dir)
			print_xlsx(r);
		if (timings)
			print_timings(r);
	}
	if (verbose || timings)
		printf("\n"); /* the report after the rank blocks */
	opmfu_print_report(rep);
	if (rep->out_db)
		printf("wrote %s (%zu rank%s", rep->out_db, rep->n_ranks, rep->n_ranks == 1 ? "" : "s");
	if (rep->out_db && rep->n_failed)
		printf(", %zu failed", rep->n_failed);
	if (rep->out_db)
		printf(") in %.2f s\n", rep->seconds);
	/* without the database, the first export's line says how many ranks and how long */
	done = rep->out_db != NULL;
	if (rep->xlsx_dir)
		print_export(rep, rep->xlsx_files, "xlsx", rep->xlsx_dir, &done);
	if (rep->csv_dir)
		print_export(rep, rep->n_tables, "csv", rep->csv_dir, &done);
	if (rep->json_dir)
		print_export(rep, rep->n_tables, "json", rep->json_dir, &done);
}
