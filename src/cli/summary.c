/*
 * summary.c - what `opmfu analyze` prints: per rank what was read, which
 * peak was used and why there is no MFU; then the cluster and the outputs.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"

static void print_peaks(const struct opmfu_rank_report *r)
{
	static const char *const names[] = { "fp16", "int8", "fp8" };
	int c, any = 0;
	printf("  peak:");
	for (c = 0; c < OPMFU_NCLASS; c++)
		if (r->peak_tflops[c] > 0) {
			printf("%s %s %.2f TFLOPS", any ? "," : "", names[c], r->peak_tflops[c]);
			any = 1;
		}
	if (any)
		printf("\n    %s\n", r->peak_source);
	else
		printf(" none\n");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/*
 * The cluster view: how many ranks were analysed, and the ranks whose MFU of
 * recorded ops is furthest below the median (stragglers slow the whole job).
 */
static void print_cluster(const struct opmfu_report *rep)
{
	size_t i, n = 0, no_mfu = 0, shown = 0;
	double *v = malloc(rep->n_ranks * sizeof(*v)), median;
	size_t *order = malloc(rep->n_ranks * sizeof(*order));

	for (i = 0; i < rep->n_ranks; i++) {
		if (rep->ranks[i].state == OPMFU_RANK_NO_MFU)
			no_mfu++;
		if (v && rep->ranks[i].state == OPMFU_RANK_OK && rep->ranks[i].mfu_recorded >= 0)
			v[n++] = rep->ranks[i].mfu_recorded;
	}
	printf("cluster: %zu ranks, %zu analysed, %zu failed, %zu without MFU\n", rep->n_ranks,
	       rep->n_ranks - rep->n_failed, rep->n_failed, no_mfu);
	if (!v || !order || n < 2) {
		free(v);
		free(order);
		return;
	}
	qsort(v, n, sizeof(*v), cmp_double);
	median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	printf("  MFU of recorded ops: median %.2f%% over %zu ranks (min %.2f%%, max %.2f%%)\n", median * 100, n,
	       v[0] * 100, v[n - 1] * 100);
	/* ranks below the median, furthest first; ties in rank order */
	n = 0;
	for (i = 0; i < rep->n_ranks; i++)
		if (rep->ranks[i].state == OPMFU_RANK_OK && rep->ranks[i].mfu_recorded >= 0 &&
		    rep->ranks[i].mfu_recorded < median)
			order[n++] = i;
	for (i = 1; i < n; i++) {
		size_t k = order[i], j = i;
		while (j > 0 && rep->ranks[order[j - 1]].mfu_recorded > rep->ranks[k].mfu_recorded) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = k;
	}
	if (n) {
		printf("  stragglers (furthest below the median):");
		for (i = 0; i < n && shown < 5; i++, shown++) {
			const struct opmfu_rank_report *r = &rep->ranks[order[i]];
			printf("%s rank %d %.2f%% (%.2f points below)", i ? "," : "", r->rank, r->mfu_recorded * 100,
			       (median - r->mfu_recorded) * 100);
		}
		printf("\n");
	}
	free(v);
	free(order);
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

/* "950 ns", "12.50 us", "3.20 ms", "1.25 s" */
static void format_ns(double ns, char *out, size_t size)
{
	if (ns < 1e3)
		snprintf(out, size, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(out, size, "%.2f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(out, size, "%.2f ms", ns / 1e6);
	else
		snprintf(out, size, "%.2f s", ns / 1e9);
}

/* Module ranges, and the modules with the most kernel time in the ops
 * directly under them. */
static void print_modules(const struct opmfu_rank_report *r)
{
	size_t k;
	printf("  modules: %zu Module range%s, %zu ModuleMFU row%s\n", r->modules, r->modules == 1 ? "" : "s",
	       r->module_rows, r->module_rows == 1 ? "" : "s");
	if (r->module_ops_too_deep)
		printf("  %zu op%s under modules nested more than 20 deep left out of ModuleMFU\n",
		       r->module_ops_too_deep, r->module_ops_too_deep == 1 ? "" : "s");
	if (r->n_top)
		printf("  top modules by kernel time (ops directly under them):\n");
	for (k = 0; k < r->n_top; k++) {
		char t[32], m[32] = "-";
		format_ns(r->top[k].kernel_ns, t, sizeof(t));
		if (r->top[k].mfu >= 0)
			snprintf(m, sizeof(m), "%.2f%%", r->top[k].mfu * 100);
		printf("    %10s  MFU %-7s  %s\n", t, m, r->top[k].name);
	}
}

/* The stages of one rank; module MFU runs while OperatorMFU is written. */
static void print_timings(const struct opmfu_rank_report *r)
{
	printf("  time: read %.2f s, kernel MFU %.2f s, module MFU %.2f s, writing %.2f s\n",
	       r->seconds[OPMFU_STAGE_READ], r->seconds[OPMFU_STAGE_KERNEL], r->seconds[OPMFU_STAGE_MODULE],
	       r->seconds[OPMFU_STAGE_WRITE]);
}

void opmfu_print_summary(const struct opmfu_report *rep, int timings)
{
	size_t i;
	int d;
	for (i = 0; i < rep->n_ranks; i++) {
		const struct opmfu_rank_report *r = &rep->ranks[i];
		size_t dropped = 0;
		printf("rank %d: %s\n", r->rank, r->db_path);
		if (r->state == OPMFU_RANK_FAILED) {
			printf("  FAILED: %s\n", r->reason);
			if (timings)
				print_timings(r);
			continue;
		}
		for (d = 0; d < OPMFU_NDROP; d++)
			dropped += r->drops[d];
		if (r->note[0])
			printf("  input: %s\n", r->note);
		printf("  kernels: %zu kernel-op links", r->kernels);
		if (r->comm_links)
			printf(" (+%zu communication)", r->comm_links);
		printf("\n  FLOPs records: %zu read, %zu used, %zu dropped", r->recs_read, r->recs_used, dropped);
		if (dropped) {
			int first = 1;
			printf(" (");
			for (d = 0; d < OPMFU_NDROP; d++)
				if (r->drops[d]) {
					printf("%s%zu %s", first ? "" : ", ", r->drops[d], opmfu_drop_reason(d));
					first = 0;
				}
			printf(")");
		}
		printf("\n  kernels with MFU: %zu (%zu OperatorMFU rows", r->kernels_with_mfu, r->op_rows);
		if (r->mfu_recorded >= 0)
			printf(", MFU of recorded ops %.2f%%", r->mfu_recorded * 100);
		printf(")\n");
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
	if (rep->n_ranks > 1)
		print_cluster(rep);
	if (rep->out_db)
		printf("wrote %s (%zu rank%s", rep->out_db, rep->n_ranks, rep->n_ranks == 1 ? "" : "s");
	if (rep->out_db && rep->n_failed)
		printf(", %zu failed", rep->n_failed);
	if (rep->out_db)
		printf(") in %.2f s\n", rep->seconds);
	if (rep->xlsx_dir) {
		printf("wrote %zu xlsx file%s to %s", rep->xlsx_files, rep->xlsx_files == 1 ? "" : "s", rep->xlsx_dir);
		if (!rep->out_db && rep->n_failed)
			printf(" (%zu rank%s, %zu failed) in %.2f s", rep->n_ranks, rep->n_ranks == 1 ? "" : "s",
			       rep->n_failed, rep->seconds);
		else if (!rep->out_db)
			printf(" (%zu rank%s) in %.2f s", rep->n_ranks, rep->n_ranks == 1 ? "" : "s", rep->seconds);
		printf("\n");
	}
}

