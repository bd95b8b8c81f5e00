/*
 * report.c - the report `opmfu analyze` prints (SPEC 11, 14, 16): the run's
 * chip and peak, one table of the ranks (all of them when there are few;
 * the median, best and worst and the slowest when there are many: the same
 * length for 8 and 1,000 ranks), where the median rank's median step went,
 * the hotspots and the stragglers. It renders the run's tables (OpmfuRun,
 * OpmfuRankSummary, OpmfuHotspots, OpmfuStragglers) and computes no number
 * of its own; docs/glossary.md defines every term.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

#define NO_MFU_SHOWN 3 /* ranks without MFU named one by one; the rest counted */
#define REPORT_WIDTH 120 /* no line of the report is wider */

const char *opmfu_format_pct(double v, int decimals, char *buf, size_t size)
{
	double p = v * 100, unit = pow(10, -decimals);
	if (v < 0 || isnan(v))
		snprintf(buf, size, "-");
	else if (p > 0 && p < unit / 2)
		/* a share that would print as 0.0% keeps its first two digits: 0.023% */
		snprintf(buf, size, "%.2g%%", p);
	else
		snprintf(buf, size, "%.*f%%", decimals, p);
	return buf;
}

double opmfu_cell(const struct opmfu_rows *t, size_t row, const char *col)
{
	return opmfu_rows_num(t, row, opmfu_rows_col(t, col));
}

const char *opmfu_cell_str(const struct opmfu_rows *t, size_t row, const char *col)
{
	return opmfu_rows_text(t, row, opmfu_rows_col(t, col));
}

/* "41.1%" */
static const char *pct1(double v, char *buf, size_t size)
{
	return opmfu_format_pct(v, 1, buf, size);
}

/* The waterfall's columns, in the order printed: idle, comm, no-FLOP, below. */
static const char *const share_cols[4] = { "share_idle", "share_comm", "share_other_compute", "share_inefficiency" };

static void print_row(const char *label, const struct opmfu_rows *rs, size_t i)
{
	char t[24], a[4][16], m[16], b[16], c[16];
	double steps = opmfu_cell(rs, i, "steps");
	int k;

	opmfu_format_ns(opmfu_cell(rs, i, "step_ns_median"), t, sizeof(t));
	for (k = 0; k < 4; k++)
		pct1(opmfu_cell(rs, i, share_cols[k]), a[k], sizeof(a[k]));
	opmfu_printf("%-11s %5.0f %10s %9s %8s %8s %6s %6s %7s %7s\n", label, isnan(steps) ? 0 : steps, t,
	       pct1(opmfu_cell(rs, i, "trace_mfu"), m, sizeof(m)), pct1(opmfu_cell(rs, i, "mfu_busy"), b, sizeof(b)),
	       pct1(opmfu_cell(rs, i, "flops_coverage"), c, sizeof(c)), a[0], a[1], a[2], a[3]);
}

static void label_row(const char *what, const struct opmfu_rows *rs, size_t i)
{
	char label[32];
	snprintf(label, sizeof(label), "%s%s%.0f", what, what[0] ? " " : "", opmfu_cell(rs, i, "rank_id"));
	print_row(label, rs, i);
}

/* The ranks, as rows or as the median, best, worst and slowest (the rule
 * the HTML report shares: opmfu_rows_ranks_shown). */
static void print_ranks(const struct opmfu_rows *rs, size_t n_analysed, double median_rank)
{
	static const char *const label[] = { "", "median", "best", "worst", "slow" };
	size_t rows[OPMFU_SHOWN_MAX], i, n, slow = 0;
	int roles[OPMFU_SHOWN_MAX];

	opmfu_printf("%-11s %5s %10s %9s %8s %8s %6s %6s %7s %7s\n", "rank", "steps", "step time", "trace MFU", "busy MFU",
	       "coverage", "idle", "comm", "no-FLOP", "below");
	n = opmfu_rows_ranks_shown(rs, n_analysed, median_rank, rows, roles);
	for (i = 0; i < n; i++) {
		label_row(label[roles[i]], rs, rows[i]);
		slow += roles[i] == OPMFU_SHOWN_SLOW_RANK;
	}
	/* then blank lines for the slowest missing: the same length whatever the ranks */
	for (; n_analysed > OPMFU_SHOWN_MAX && slow < OPMFU_SHOWN_SLOW; slow++)
		opmfu_printf("\n");
}

/* A bar of width w for share v. */
static void bar(double v, int w)
{
	int n = v > 0 ? (int)lround(v * w) : 0, i;
	for (i = 0; i < n && i < w; i++)
		fputs("#", stdout);
}

static void print_waterfall(const struct opmfu_rows *run)
{
	/* the five shares that sum to 1, each followed by its parts (indented) */
	static const struct {
		const char *what, *col;
		int part;
		const char *eff; /* a column shown after the bar as "at N% of the memory bandwidth"; NULL: none */
		int optional;    /* no line when the column is NULL (the waiting: known from the trace's
				    tasks or from other ranks only) */
	} lines[] = {
		{ "useful math: trace MFU (FLOPs / (step time x peak))", "trace_mfu", 0, NULL, 0 },
		{ "FLOP kernels below peak (their time minus trace MFU)", "share_inefficiency", 0, NULL, 0 },
		{ "busy without FLOPs", "share_other_compute", 0, NULL, 0 },
		{ "GEMM/conv/attention kernels, FLOPs unknown", "share_matmul_noflops", 1, NULL, 0 },
		{ "memory-bound kernels, bytes known", "share_memory_bound", 1, "memory_bound_eff", 0 },
		{ "other kernels (no FLOPs by convention)", "share_other_kernels", 1, NULL, 0 },
		{ "copies and memsets", "share_memcpy", 1, NULL, 0 },
		{ "communication not hidden under compute", "share_comm", 0, NULL, 0 },
		{ "waiting for other ranks (the rest is transfer)", "share_comm_wait", 1, NULL, 1 },
		{ "idle device (nothing ran)", "share_idle", 0, NULL, 0 },
		{ "host late (launched after the gap began)", "share_idle_host", 1, NULL, 0 },
		{ "other idle", "share_idle_device", 1, NULL, 0 },
	};
	double step = opmfu_cell(run, 0, "median_step"), prof = opmfu_cell(run, 0, "profiler_step_ns");
	double backlog = opmfu_cell(run, 0, "backlog_ns");
	const char *windows = opmfu_cell_str(run, 0, "step_windows");
	char t[24], p[16];
	size_t k;

	opmfu_format_ns(opmfu_cell(run, 0, "step_ns"), t, sizeof(t));
	if (!isnan(step))
		opmfu_printf("\nwhere the median step went: rank %.0f, step %.0f, %s on the device (%s)", opmfu_cell(run, 0, "median_rank"),
		       step, t, windows ? windows : "-");
	else
		opmfu_printf("\nwhere the time went: rank %.0f, the whole trace (no step marks), %s",
		       opmfu_cell(run, 0, "median_rank"), t);
	if (!isnan(prof)) {
		opmfu_format_ns(prof, t, sizeof(t));
		opmfu_printf("; profiler step %s on the host", t);
	}
	opmfu_printf("\n");
	for (k = 0; k < sizeof(lines) / sizeof(lines[0]); k++) {
		double v = opmfu_cell(run, 0, lines[k].col);
		if (isnan(v) && lines[k].optional)
			continue;
		opmfu_printf("  %s%-*s %6s  ", lines[k].part ? "  " : "", lines[k].part ? 51 : 53, lines[k].what,
			     pct1(v, p, sizeof(p)));
		bar(v, 30);
		if (lines[k].eff && !isnan(opmfu_cell(run, 0, lines[k].eff)))
			opmfu_printf(" at %s of the memory bandwidth", pct1(opmfu_cell(run, 0, lines[k].eff), p, sizeof(p)));
		opmfu_printf("\n");
	}
	if (!isnan(backlog) && backlog > 0) {
		opmfu_format_ns(backlog, t, sizeof(t));
		opmfu_printf("  backlog before the first step: %s of device work queued before profiling began (in no step)\n",
			     t);
	}
}

/* head then text, wrapped at spaces to the report's width, continued
 * indented by two. */
static void print_wrapped(const char *head, const char *text)
{
	size_t col = strlen(head), indent = 2;
	const char *p = text;
	int first = 1;

	opmfu_printf("%s", head);
	while (*p) {
		size_t w;
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		w = strcspn(p, " ");
		if (!first && col + 1 + w > REPORT_WIDTH) {
			opmfu_printf("\n%*s", (int)indent, "");
			col = indent;
		} else if (!first) {
			fputc(' ', stdout);
			col++;
		}
		opmfu_term_write(stdout, p, w);
		col += w;
		p += w;
		first = 0;
	}
	fputc('\n', stdout);
}

/* text with every word that holds a '/' cut to what follows its last one
 * (a path to its file name), so that the line's length does not depend on
 * where the input lies; the table keeps the text whole. */
static void short_paths(const char *text, char *out, size_t size)
{
	size_t n = 0;
	while (*text && n + 1 < size) {
		size_t w = strcspn(text, " ");
		const char *slash = NULL, *p;
		for (p = text; p < text + w; p++)
			if (*p == '/')
				slash = p;
		if (slash && slash + 1 < text + w && text[0] != '(') {
			w -= (size_t)(slash + 1 - text);
			text = slash + 1;
		}
		if (n + w + 1 >= size)
			w = size - n - 2;
		memcpy(out + n, text, w);
		n += w;
		text += w;
		if (*text == ' ' && n + 1 < size) {
			out[n++] = ' ';
			text++;
		}
	}
	out[n] = '\0';
}

/* The run's chip and the peak its numbers divide by, and where the peaks
 * came from. */
static void print_peak(const struct opmfu_rows *run)
{
	const char *chip = opmfu_cell_str(run, 0, "chip"), *src = opmfu_cell_str(run, 0, "peak_source");
	double peak = opmfu_cell(run, 0, "peak_tflops");
	char head[512], from[2048];

	if (isnan(peak)) {
		snprintf(head, sizeof(head), "peak: none (chip %s): ", chip ? chip : "not named");
		print_wrapped(head, "give --chip NAME or --peak CLASS=TFLOPS");
		return;
	}
	snprintf(head, sizeof(head), "peak %.4g TFLOPS; chip %s; peaks from ", peak, chip ? chip : "not named");
	short_paths(src ? src : "?", from, sizeof(from));
	print_wrapped(head, from);
}

/* Ranks without MFU, each with its reason (the first few). */
static void print_no_mfu(const struct opmfu_rows *rs)
{
	size_t i, n = opmfu_rows_count(rs), shown = 0, more = 0;
	for (i = 0; i < n; i++) {
		const char *st = opmfu_cell_str(rs, i, "status"), *why = opmfu_cell_str(rs, i, "reason");
		if (!st || strcmp(st, "no_mfu"))
			continue;
		if (shown++ < NO_MFU_SHOWN)
		{
			char head[48], text[2048];
			snprintf(head, sizeof(head), "no MFU on rank %.0f: ", opmfu_cell(rs, i, "rank_id"));
			short_paths(why ? why : "(no reason given)", text, sizeof(text));
			print_wrapped(head, text);
		}
		else
			more++;
	}
	if (more)
		opmfu_printf("no MFU on %zu more rank%s (OpmfuRankSummary.reason says why)\n", more, more == 1 ? "" : "s");
}

/* The hotspot kinds the report shows, in this order, and how many rows of each (ten in all: the
 * report stays one screen, tests/cli/report_length.py). */
static const struct {
	const char *kind, *shown_as;
	size_t show;
	int keep_start; /* a long name keeps its start (a shape's op name), else its end (a module) */
	int kernel;     /* a kernel's (or op's) name: shortened (SPEC 20), its start kept */
} hot_kinds[] = {
	{ "module_class", "class", 4, 0, 0 }, { "module", "module", 1, 0, 0 },	   { "op_type", "op", 2, 1, 1 },
	{ "shape", "shape", 2, 1, 0 },	      { "kernel", "kernel", 1, 1, 1 }, { "collective", "comm", 1, 1, 0 },
};
#define HOT_NAME_W 50

static void print_hot(const struct opmfu_rows *hot)
{
	size_t n = opmfu_rows_count(hot), i, kind;

	if (!n)
		return;
	opmfu_printf("\nhotspots, all ranks, most recoverable first: recoverable = kernel time beyond its roofline time\n"
		     "  %-6s %11s %10s %10s %7s %8s %7s  %s\n",
		     "kind", "recoverable", "lost", "kernel", "% step", "count", "MFU", "name");
	for (kind = 0; kind < sizeof(hot_kinds) / sizeof(hot_kinds[0]); kind++) {
		size_t shown = 0;
		/* the table is in the order of recoverable time: its first rows of each kind */
		for (i = 0; i < n && shown < hot_kinds[kind].show; i++) {
			const char *k = opmfu_cell_str(hot, i, "kind"), *name = opmfu_cell_str(hot, i, "name");
			char r[24], l[24], t[24], m[16], p[16];
			size_t len;
			if (!k || strcmp(k, hot_kinds[kind].kind) || !name)
				continue;
			shown++;
			opmfu_format_ns(opmfu_cell(hot, i, "recoverable_ns"), r, sizeof(r));
			opmfu_format_ns(opmfu_cell(hot, i, "lost_ns"), l, sizeof(l));
			opmfu_format_ns(opmfu_cell(hot, i, "kernel_ns"), t, sizeof(t));
			len = strlen(name);
			opmfu_printf("  %-6s %11s %10s %10s %7s %8.0f %7s  ", hot_kinds[kind].shown_as, r, l, t,
				     pct1(opmfu_cell(hot, i, "pct_of_step"), p, sizeof(p)), opmfu_cell(hot, i, "calls"),
				     pct1(opmfu_cell(hot, i, "mfu"), m, sizeof(m)));
			if (hot_kinds[kind].kernel) {
				char sh[HOT_NAME_W + 1];
				opmfu_kernel_short_name(name, HOT_NAME_W, sh, sizeof(sh));
				opmfu_printf("%s\n", sh);
			} else if (len <= HOT_NAME_W)
				opmfu_printf("%s\n", name);
			else if (hot_kinds[kind].keep_start)
				opmfu_printf("%.*s...\n", HOT_NAME_W - 3, name);
			else
				opmfu_printf("...%s\n", name + len - (HOT_NAME_W - 3));
		}
	}
}

static void print_stragglers(const struct opmfu_rows *sg)
{
	static const struct {
		const char *measure, *what;
	} m[] = {
		{ "step_ns_median", "slowest step" },	       { "trace_mfu", "lowest trace MFU" },
		{ "share_inefficiency", "most below peak" },   { "share_other_compute", "most busy without FLOPs" },
		{ "share_comm", "most exposed comm" },	       { "share_idle", "most idle" },
	};
	size_t n = opmfu_rows_count(sg), i, k;

	if (!n)
		return;
	opmfu_printf("\nstragglers, against the median rank:\n");
	for (k = 0; k < sizeof(m) / sizeof(m[0]); k++)
		for (i = 0; i < n; i++) {
			const char *ms = opmfu_cell_str(sg, i, "measure");
			double med = opmfu_cell(sg, i, "median"), d = opmfu_cell(sg, i, "delta");
			if (!ms || strcmp(ms, m[k].measure))
				continue;
			if (k == 0 && med > 0)
				opmfu_printf("  %-21s rank %.0f, %+.1f%% step time\n", m[k].what, opmfu_cell(sg, i, "rank_id"),
				       d / med * 100);
			else if (k) {
				const char *culprit = opmfu_cell_str(sg, i, "culprit_of");
				opmfu_printf("  %-21s rank %.0f, %+.1f points", m[k].what, opmfu_cell(sg, i, "rank_id"), d * 100);
				if (culprit)
					opmfu_printf("; waiting for %s", culprit);
				opmfu_printf("\n");
			}
		}
	/* the rank the others wait for (SPEC 19) */
	for (i = 0; i < n; i++) {
		const char *ms = opmfu_cell_str(sg, i, "measure"), *why = opmfu_cell_str(sg, i, "culprit_of");
		if (ms && !strcmp(ms, "comm_wait_caused_ns"))
			opmfu_printf("  %-21s rank %.0f: %s\n", "others wait for", opmfu_cell(sg, i, "rank_id"), why ? why : "");
	}
}

/* OperatorMFU rows above 100 %: why, in one line (they follow the reference's rule) */
static void print_operator_note(const struct opmfu_rows *rs)
{
	size_t i, n = opmfu_rows_count(rs);
	double rows = 0;
	for (i = 0; i < n; i++) {
		double v = opmfu_cell(rs, i, "operator_mfu_above_one");
		rows += isnan(v) ? 0 : v;
	}
	if (rows > 0)
		opmfu_printf("\n%.0f OperatorMFU row%s above 100%%: msprof-analyze's rule charges a record's whole FLOPs to each "
		       "of its kernels\n(helpers too); OpmfuOps has the FLOPs over all of an op's kernel time.\n",
		       rows, rows == 1 ? "" : "s");
}

void opmfu_print_report(const struct opmfu_run *r, int dtype_class)
{
	const struct opmfu_rows *run = opmfu_run_rows(r, "OpmfuRun"), *rs = opmfu_run_rows(r, "OpmfuRankSummary");
	double ranks, ok, failed;

	if (!run || !opmfu_rows_count(run))
		return;
	ranks = opmfu_cell(run, 0, "ranks");
	ok = opmfu_cell(run, 0, "ranks_analysed");
	failed = opmfu_cell(run, 0, "ranks_failed");
	opmfu_printf("%.0f rank%s, %.0f analysed, %.0f failed. Per rank, its median step: step time; trace MFU = FLOPs / "
	       "(step time x peak);\nthen idle, comm (exposed), no-FLOP (busy without FLOPs) and below (FLOP "
	       "kernels below peak) as shares\nof the step time, summing to 100%% with trace MFU. Over all its ops: "
	       "busy MFU = FLOPs / (compute time x peak),\ncoverage = share of compute time whose FLOPs are "
	       "known.\n",
	       ranks, ranks == 1 ? "" : "s", ok, failed);
	if (!(ok > 0))
		return;
	print_peak(run);
	print_no_mfu(rs);
	print_ranks(rs, (size_t)ok, opmfu_cell(run, 0, "median_rank"));
	print_waterfall(run);
	opmfu_print_model_report(r, dtype_class);
	print_hot(opmfu_run_rows(r, "OpmfuHotspots"));
	print_stragglers(opmfu_run_rows(r, "OpmfuStragglers"));
	print_operator_note(rs);
}
