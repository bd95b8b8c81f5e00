/*
 * main.c - the opmfu command: parses options, calls the library, prints the
 * summary and turns the status into one message and an exit code.
 * Exit codes: 0 ok, 1 failure, 2 usage, 3 completed but some ranks failed.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "opmfu.h"

#define EXIT_USAGE 2
#define EXIT_PARTIAL 3

static const char *prog = "opmfu";

static const char usage_main[] =
	"usage: opmfu <command> [options]\n"
	"\n"
	"Compute MFU (Model FLOPs Utilization) from Ascend PyTorch profiler databases.\n"
	"\n"
	"commands:\n"
	"  analyze PATH...   write OperatorMFU and ModuleMFU for every rank under PATH\n"
	"  chips             list the built-in peak FLOPS table\n"
	"\n"
	"options:\n"
	"  -h, --help        show this help\n"
	"  -V, --version     show the version\n"
	"\n"
	"Run 'opmfu analyze --help' for the analyze options.\n";

static const char usage_analyze[] =
	"usage: opmfu analyze [options] PATH...\n"
	"\n"
	"PATH is a cluster directory (rank directories up to 5 levels below), one rank\n"
	"directory (*_ascend_pt) or one ascend_pytorch_profiler*.db file.\n"
	"\n"
	"options:\n"
	"  -o, --output DIR       write under DIR/cluster_analysis_output/ (default: PATH;\n"
	"                         for a .db file, its rank directory)\n"
	"      --export LIST      db, xlsx or db,xlsx (default: db)\n"
	"      --peak SPEC        peak TFLOPS per class, e.g. fp16=353.9,int8=707.8\n"
	"                         (classes: fp16 (= bf16, FLOAT), int8, fp8); overrides\n"
	"                         info.json; also read from OPMFU_PEAK\n"
	"      --chip NAME        use the built-in peak of NAME (see 'opmfu chips')\n"
	"  -j, --jobs N           analyse N ranks at once (default: number of CPUs)\n"
	"      --rank-list LIST   only these ranks, e.g. 0,3,8-15\n"
	"  -q, --quiet            print only warnings and errors\n"
	"      --timings          also print where each rank's time went\n"
	"  -h, --help             show this help\n"
	"\n"
	"exit status: 0 ok, 1 failure, 2 usage error, 3 some ranks failed\n";

/* Usage errors: one line naming the fault, one line pointing at the help. */
static void die_usage(const char *cmd, const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: error: ", prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nRun 'opmfu %s--help' for usage.\n", cmd);
	exit(EXIT_USAGE);
}

static void on_warning(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "%s: warning: %s\n", prog, msg);
}

struct progress_ctx {
	int enabled;
};

static void on_progress(void *ctx, const struct opmfu_progress *p)
{
	struct progress_ctx *pc = ctx;
	if (!pc->enabled)
		return;
	fprintf(stderr, "\r%zu/%zu ranks, %.0f kernels/s, %.1f s", p->ranks_done, p->ranks_total,
		p->elapsed_s > 0 ? (double)p->kernels_done / p->elapsed_s : 0.0, p->elapsed_s);
	if (p->ranks_done == p->ranks_total)
		fputs("\r\033[K", stderr);
	fflush(stderr);
}

/* "0,3,8-15" -> sorted list; returns count or -1. */
static int parse_rank_list(const char *s, int **out)
{
	int *v = NULL, n = 0, cap = 0;
	const char *p = s;
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b;
		if (end == p || a < -1 || a > 1000000)
			goto bad;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b > 1000000 || b - a > 1000000)
				goto bad;
		}
		for (; a <= b; a++) {
			if (n == cap) {
				int *nv = realloc(v, (size_t)(cap = cap ? cap * 2 : 16) * sizeof(*v));
				if (!nv)
					goto bad;
				v = nv;
			}
			v[n++] = (int)a;
		}
		if (*end == ',')
			end++;
		else if (*end)
			goto bad;
		p = end;
	}
	if (n == 0)
		goto bad;
	*out = v;
	return n;
bad:
	free(v);
	return -1;
}

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

static void print_summary(const struct opmfu_report *rep, int timings)
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

static int cmd_analyze(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' }, { "export", required_argument, NULL, 'E' },
		{ "peak", required_argument, NULL, 'P' },   { "chip", required_argument, NULL, 'C' },
		{ "jobs", required_argument, NULL, 'j' },   { "rank-list", required_argument, NULL, 'R' },
		{ "quiet", no_argument, NULL, 'q' },        { "help", no_argument, NULL, 'h' },
		{ "timings", no_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	struct opmfu_opts o;
	struct opmfu_report rep;
	struct opmfu_err err = OPMFU_ERR_INIT;
	struct progress_ctx pctx = { 0 };
	enum opmfu_status st;
	const char *env_peak = getenv("OPMFU_PEAK");
	char msg[256];
	int c, quiet = 0, timings = 0, have_cli_peak = 0, *ranks = NULL, rc;

	memset(&o, 0, sizeof(o));
	o.exports = OPMFU_EXPORT_DB;
	optind = 1;
	opterr = 0; /* we word the messages ourselves */
	while ((c = getopt_long(argc, argv, ":o:j:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.out_dir = optarg;
			break;
		case 'E': {
			if (!strcmp(optarg, "db"))
				o.exports = OPMFU_EXPORT_DB;
			else if (!strcmp(optarg, "xlsx"))
				o.exports = OPMFU_EXPORT_XLSX;
			else if (!strcmp(optarg, "db,xlsx") || !strcmp(optarg, "xlsx,db"))
				o.exports = OPMFU_EXPORT_DB | OPMFU_EXPORT_XLSX;
			else
				die_usage("analyze ", "--export: '%s' is not db, xlsx or db,xlsx", optarg);
			break;
		}
		case 'P':
			if (opmfu_parse_peak_spec(optarg, o.peak_tflops, msg, sizeof(msg)))
				die_usage("analyze ", "--peak: %s", msg);
			o.peak_origin = "--peak";
			have_cli_peak = 1;
			break;
		case 'C':
			o.chip = optarg;
			break;
		case 'j': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 1 || v > 1024)
				die_usage("analyze ", "--jobs: '%s' is not a number from 1 to 1024", optarg);
			o.jobs = (int)v;
			break;
		}
		case 'R': {
			int n = parse_rank_list(optarg, &ranks);
			if (n < 0)
				die_usage("analyze ", "--rank-list: '%s' is not a list like 0,3,8-15", optarg);
			free((void *)o.ranks);
			o.ranks = ranks;
			o.n_ranks = (size_t)n;
			break;
		}
		case 'q':
			quiet = 1;
			break;
		case 'T':
			timings = 1;
			break;
		case 'h':
			fputs(usage_analyze, stdout);
			return 0;
		case ':':
			die_usage("analyze ", "option '%s' needs a value", argv[optind - 1]);
			break;
		default:
			die_usage("analyze ", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		die_usage("analyze ", "%s", "analyze needs at least one PATH");
	if (!have_cli_peak && env_peak && *env_peak) {
		if (opmfu_parse_peak_spec(env_peak, o.peak_tflops, msg, sizeof(msg)))
			die_usage("analyze ", "OPMFU_PEAK: %s", msg);
		o.peak_origin = "OPMFU_PEAK";
	}
	o.inputs = (const char *const *)(argv + optind);
	o.n_inputs = (size_t)(argc - optind);
	o.on_warning = on_warning;
	pctx.enabled = !quiet && isatty(2);
	o.on_progress = on_progress;
	o.ctx = &pctx;

	st = opmfu_analyze(&o, &rep, &err);
	if (!quiet && (st == OPMFU_OK || st == OPMFU_ERR_PARTIAL))
		print_summary(&rep, timings);
	switch (st) {
	case OPMFU_OK:
		rc = 0;
		break;
	case OPMFU_ERR_USAGE:
		fprintf(stderr, "%s: error: %s\n", prog, err.msg);
		rc = EXIT_USAGE;
		break;
	case OPMFU_ERR_PARTIAL: {
		size_t i;
		for (i = 0; i < rep.n_ranks; i++)
			if (rep.ranks[i].state == OPMFU_RANK_FAILED)
				fprintf(stderr, "%s: error: rank %d: %s\n", prog, rep.ranks[i].rank,
					rep.ranks[i].reason);
		fprintf(stderr, "%s: error: %s\n", prog, err.msg);
		rc = rep.n_failed < rep.n_ranks ? EXIT_PARTIAL : 1;
		break;
	}
	default:
		fprintf(stderr, "%s: error: %s\n", prog, err.msg);
		rc = 1;
		break;
	}
	opmfu_report_release(&rep);
	free(ranks);
	return rc;
}

static int cmd_chips(int argc, char **argv)
{
	struct opmfu_chip_row r;
	size_t i;
	(void)argv;
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		puts("usage: opmfu chips\n\nList the built-in dense peak TFLOPS table (use a name with --chip).");
		return 0;
	}
	if (argc > 1)
		die_usage("chips ", "chips takes no arguments, got '%s'", argv[1]);
	printf("%-12s %9s %9s %9s %9s %9s  %s\n", "chip", "fp32", "tf32", "bf16/fp16", "fp8", "int8", "aliases");
	for (i = 0; opmfu_chip_row(i, &r); i++) {
		double v[5] = { r.fp32, r.tf32, r.fp16, r.fp8, r.int8 };
		int k;
		printf("%-12s", r.name);
		for (k = 0; k < 5; k++) {
			if (v[k] > 0)
				printf(" %9.2f", v[k]);
			else
				printf(" %9s", "-");
		}
		printf("  %s\n", r.aliases ? r.aliases : "");
	}
	return 0;
}

/*
 * A rank frees its join arrays and then allocates the analysis's, and the next
 * rank does it again. glibc hands blocks of 32 MB and more back to the kernel
 * on free, so each new one costs a page fault per 4 KiB (on a VM, often more).
 * Taking every block from the heap and never trimming it reuses those pages:
 * wall -3 % at 10^6 kernels, -5 % at 5x10^6, -7 % on the 8-rank cluster, for
 * 3-11 % more peak RSS (docs/performance.md). Process-wide, so the CLI's
 * choice: the library leaves the allocator alone.
 */
static void tune_malloc(void)
{
#ifdef __GLIBC__
	mallopt(M_MMAP_MAX, 0);
	mallopt(M_TRIM_THRESHOLD, INT_MAX);
#endif
}

int main(int argc, char **argv)
{
	tune_malloc();
	if (argc < 2)
		die_usage("", "%s", "no command given");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		fputs(usage_main, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("opmfu %s\n", OPMFU_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "analyze"))
		return cmd_analyze(argc - 1, argv + 1);
	if (!strcmp(argv[1], "chips"))
		return cmd_chips(argc - 1, argv + 1);
	if (argv[1][0] == '-')
		die_usage("", "unknown option '%s'", argv[1]);
	die_usage("", "unknown command '%s'", argv[1]);
	return EXIT_USAGE;
}
