/*
 * report.c - the report `opmfu analyze` prints (issue 20, SPEC 11, 14):
 * one table of the ranks (all of them when there are few; the median, best
 * and worst and the stragglers when there are many: the same length for 8
 * and 1,000 ranks), where the median rank's step went, the hotspots of the
 * whole run and the stragglers. Every term is defined where it is printed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

#define FEW_RANKS 8 /* up to this many, one row each */

/* "950 ns", "12.50 us", "3.20 ms", "1.25 s" */
void opmfu_format_ns(double ns, char *out, size_t size)
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

const char *opmfu_format_pct(double v, int decimals, char *buf, size_t size)
{
	if (v < 0 || isnan(v))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.*f%%", decimals, v * 100);
	return buf;
}

/* "41.1%" */
static const char *pct1(double v, char *buf, size_t size)
{
	return opmfu_format_pct(v, 1, buf, size);
}

static int analysed(const struct opmfu_rank_report *r)
{
	return r->state != OPMFU_RANK_FAILED;
}

static void print_row(const char *label, const struct opmfu_rank_report *r)
{
	char t[24], a[5][16], b[16], c[16];
	int k;
	/* the median step's window and its parts, which sum to 100 % */
	if (r->shares[OPMFU_SHARE_IDLE] >= 0)
		opmfu_format_ns(r->median_window_ns, t, sizeof(t));
	else
		snprintf(t, sizeof(t), "-");
	for (k = 0; k < 4; k++)
		pct1(r->shares[OPMFU_SHARE_INEFFICIENCY + k], a[k], sizeof(a[k]));
	printf("%-11s %5zu %10s %9s %8s %8s %6s %6s %7s %7s\n", label, r->steps, t,
	       pct1(r->shares[OPMFU_SHARE_MFU], a[4], 16), pct1(r->mfu_busy, b, sizeof(b)),
	       pct1(r->flops_coverage, c, sizeof(c)), a[3], a[2], a[1], a[0]);
}

static int by_trace_mfu(const void *pa, const void *pb, void *ctx)
{
	const struct opmfu_rank_report *r = ctx;
	double x = r[*(const size_t *)pa].trace_mfu, y = r[*(const size_t *)pb].trace_mfu;
	return (x > y) - (x < y);
}

/* insertion sort by a key (qsort_r is not C11); n is small enough for a report */
static void sort_idx(size_t *v, size_t n, int (*cmp)(const void *, const void *, void *), void *ctx)
{
	size_t i, j;
	for (i = 1; i < n; i++) {
		size_t x = v[i];
		for (j = i; j > 0 && cmp(&v[j - 1], &x, ctx) > 0; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static double step_of(const struct opmfu_rank_report *r)
{
	return r->median_window_ns;
}

/* The ranks, as rows or as their median, best, worst and slowest. */
static void print_ranks(const struct opmfu_report *rep, size_t *idx, size_t n, size_t med)
{
	char label[32];
	size_t i;

	printf("%-11s %5s %10s %9s %8s %8s %6s %6s %7s %7s\n", "rank", "steps", "step time", "trace MFU", "busy MFU",
	       "coverage", "idle", "comm", "no-FLOP", "below");
	if (n <= FEW_RANKS) {
		for (i = 0; i < n; i++) {
			snprintf(label, sizeof(label), "%d", rep->ranks[idx[i]].rank);
			print_row(label, &rep->ranks[idx[i]]);
		}
		return;
	}
	/* the median rank (by step time), the best and worst trace MFU, then the slowest steps */
	sort_idx(idx, n, by_trace_mfu, rep->ranks);
	snprintf(label, sizeof(label), "median %d", rep->ranks[med].rank);
	print_row(label, &rep->ranks[med]);
	snprintf(label, sizeof(label), "best %d", rep->ranks[idx[n - 1]].rank);
	print_row(label, &rep->ranks[idx[n - 1]]);
	snprintf(label, sizeof(label), "worst %d", rep->ranks[idx[0]].rank);
	print_row(label, &rep->ranks[idx[0]]);
	{
		/* the five slowest median steps */
		size_t top[5], nt = 0, k, j;
		for (i = 0; i < n; i++) {
			double s = step_of(&rep->ranks[idx[i]]);
			for (k = nt; k > 0 && step_of(&rep->ranks[top[k - 1]]) < s; k--)
				if (k < 5)
					top[k] = top[k - 1];
			if (k < 5) {
				top[k] = idx[i];
				if (nt < 5)
					nt++;
			}
		}
		for (j = 0; j < nt; j++) {
			snprintf(label, sizeof(label), "slow %d", rep->ranks[top[j]].rank);
			print_row(label, &rep->ranks[top[j]]);
		}
		for (; j < 5; j++)
			printf("\n"); /* the same length whatever the ranks */
	}
}

/* A bar of width w for share v. */
static void bar(double v, int w)
{
	int n = v > 0 ? (int)lround(v * w) : 0, i;
	for (i = 0; i < n && i < w; i++)
		fputs("#", stdout);
}

static void print_waterfall(const struct opmfu_rank_report *r)
{
	static const char *const what[OPMFU_NSHARE] = {
		"useful math: trace MFU (FLOPs / (step time x peak))",
		"FLOP kernels below peak (their time minus trace MFU)",
		"compute without FLOPs (no record, no formula)",
		"communication not hidden under compute",
		"idle device (no kernel, no communication)",
	};
	char t[24], p[16];
	int k;

	opmfu_format_ns(r->median_window_ns, t, sizeof(t));
	if (r->median_step >= 0)
		printf("\nwhere the median step went: rank %d, step %lld, %s\n", r->rank, r->median_step, t);
	else
		printf("\nwhere the time went: rank %d, the whole trace (no step marks), %s\n", r->rank, t);
	for (k = 0; k < OPMFU_NSHARE; k++) {
		printf("  %-53s %6s  ", what[k], pct1(r->shares[k], p, sizeof(p)));
		bar(r->shares[k], 30);
		printf("\n");
	}
}

/* One kind of hotspot summed over the ranks by name. */
struct hot {
	const char *name;
	double lost, ns, mfu_ns, mfu_x; /* mfu_x: sum of mfu x ns where known */
	long long count;
};

static size_t merge(const struct opmfu_report *rep, int kind, struct hot *h, size_t cap)
{
	size_t i, j, k, n = 0;
	for (i = 0; i < rep->n_ranks; i++) {
		const struct opmfu_rank_report *r = &rep->ranks[i];
		const struct opmfu_module_top *t = kind == 0 ? r->top : kind == 1 ? r->top_ops : r->top_kernels;
		size_t nt = kind == 0 ? r->n_top : kind == 1 ? r->n_top_ops : r->n_top_kernels;
		for (k = 0; k < nt; k++) {
			for (j = 0; j < n && strcmp(h[j].name, t[k].name); j++)
				;
			if (j == n) {
				if (n == cap)
					continue;
				memset(&h[n], 0, sizeof(h[n]));
				h[n++].name = t[k].name;
			}
			h[j].lost += t[k].lost_ns;
			h[j].ns += t[k].kernel_ns;
			h[j].count += t[k].count;
			if (t[k].mfu >= 0) {
				h[j].mfu_ns += t[k].kernel_ns;
				h[j].mfu_x += t[k].mfu * t[k].kernel_ns;
			}
		}
	}
	return n;
}

static void print_hot(const struct opmfu_report *rep, struct hot *h, size_t cap)
{
	static const char *const kinds[] = { "module", "op", "kernel" };
	static const size_t show[] = { 4, 3, 3 };
	int kind;

	printf("\nhotspots, all ranks: lost = kernel time beyond what its FLOPs need at peak (all of it without)\n"
	       "  %-7s %10s %10s %8s %7s  %s\n", "kind", "lost", "kernel", "count", "MFU", "name");
	for (kind = 0; kind < 3; kind++) {
		size_t n = merge(rep, kind, h, cap), i, j, shown;
		/* most lost first (selection: n is small) */
		for (shown = 0; shown < show[kind] && shown < n; shown++) {
			char l[24], t[24], m[16];
			struct hot x;
			for (j = i = shown; i < n; i++)
				if (h[i].lost > h[j].lost)
					j = i;
			x = h[j];
			h[j] = h[shown];
			h[shown] = x;
			opmfu_format_ns(x.lost, l, sizeof(l));
			opmfu_format_ns(x.ns, t, sizeof(t));
			/* a long path keeps its end, where the module itself is */
			size_t len = strlen(x.name);
			printf("  %-7s %10s %10s %8lld %7s  %s%s\n", kinds[kind], l, t, x.count,
			       pct1(x.mfu_ns > 0 ? x.mfu_x / x.mfu_ns : -1, m, sizeof(m)), len > 68 ? "..." : "",
			       len > 68 ? x.name + len - 65 : x.name);
		}
	}
}

/* OperatorMFU rows above 100 %: why, in one line (they follow the reference's rule) */
static void print_operator_note(const struct opmfu_report *rep)
{
	size_t i, rows = 0;
	for (i = 0; i < rep->n_ranks; i++)
		rows += rep->ranks[i].op_rows_above_one;
	if (rows)
		printf("\n%zu OperatorMFU row%s above 100%%: msprof-analyze's rule charges a record's whole FLOPs to each "
		       "of its kernels\n(helpers too); OpmfuOps has the FLOPs over all of an op's kernel time.\n",
		       rows, rows == 1 ? "" : "s");
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The rank furthest above the median of one measure (step time, or a share). */
/* Measure k of a rank for the stragglers: its median step's window (k 0),
 * else share OPMFU_SHARE_INEFFICIENCY + k - 1; < 0 when unknown. */
static double straggle_measure(const struct opmfu_rank_report *r, int k)
{
	if (k == 0)
		return r->shares[OPMFU_SHARE_IDLE] >= 0 ? r->median_window_ns : -1;
	return r->shares[OPMFU_SHARE_INEFFICIENCY + k - 1];
}

static void print_stragglers(const struct opmfu_report *rep, const size_t *idx, size_t n)
{
	static const char *const what[] = { "slowest step", "most below peak", "most no-FLOP compute",
					    "most exposed comm", "most idle" };
	double *v = malloc(n * sizeof(*v));
	int k;

	if (!v || n < 2) {
		free(v);
		return;
	}
	printf("\nstragglers, against the median rank:\n");
	for (k = 0; k < 5; k++) {
		size_t i, m = 0, worst = 0;
		double med, top = 0;
		for (i = 0; i < n; i++) {
			double x = straggle_measure(&rep->ranks[idx[i]], k);
			if (x < 0)
				continue;
			if (!m || x > top) {
				worst = idx[i];
				top = x;
			}
			v[m++] = x;
		}
		if (m < 2)
			continue;
		qsort(v, m, sizeof(*v), by_double);
		med = m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
		if (k == 0 && med > 0)
			printf("  %-21s rank %d, %+.1f%% step time\n", what[k], rep->ranks[worst].rank, (top / med - 1) * 100);
		else if (k)
			printf("  %-21s rank %d, %+.1f points\n", what[k], rep->ranks[worst].rank, (top - med) * 100);
	}
	free(v);
}

void opmfu_print_report(const struct opmfu_report *rep)
{
	size_t *idx = malloc((rep->n_ranks + 1) * sizeof(*idx)), n = 0, i, med;
	struct hot *h = malloc((rep->n_ranks * OPMFU_NTOP + 1) * sizeof(*h));
	double *steps = malloc((rep->n_ranks + 1) * sizeof(*steps));

	if (!idx || !h || !steps) {
		printf("(no memory left for the report)\n");
		goto out;
	}
	for (i = 0; i < rep->n_ranks; i++)
		if (analysed(&rep->ranks[i]))
			idx[n++] = i;
	printf("%zu rank%s, %zu analysed, %zu failed. Per rank, its median step: step time; trace MFU = FLOPs / "
	       "(step time x peak);\nthen idle, comm (exposed), no-FLOP (compute without FLOPs) and below (FLOP "
	       "kernels below peak) as shares\nof the step time, summing to 100%% with trace MFU. Over all its ops: "
	       "busy MFU = FLOPs / (compute time x peak),\ncoverage = share of compute time whose FLOPs are "
	       "known.\n",
	       rep->n_ranks, rep->n_ranks == 1 ? "" : "s", n, rep->n_failed);
	if (!n)
		goto out;
	/* the median rank by step time: its row and its waterfall */
	for (i = 0; i < n; i++)
		steps[i] = rep->ranks[idx[i]].median_window_ns;
	qsort(steps, n, sizeof(*steps), by_double);
	for (med = idx[0], i = 0; i < n; i++)
		if (rep->ranks[idx[i]].median_window_ns == steps[(n - 1) / 2]) {
			med = idx[i];
			break;
		}
	print_ranks(rep, idx, n, med);
	print_waterfall(&rep->ranks[med]);
	opmfu_print_model_report(rep);
	print_hot(rep, h, rep->n_ranks * OPMFU_NTOP + 1);
	print_stragglers(rep, idx, n);
	print_operator_note(rep);
out:
	free(idx);
	free(h);
	free(steps);
}
