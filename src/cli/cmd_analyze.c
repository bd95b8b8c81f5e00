/*
 * cmd_analyze.c - `opmfu analyze`: options into struct opmfu_opts, the
 * library's run, the summary, and the status turned into messages and an
 * exit code.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/model_args.h"

static const char usage_analyze[] =
	"usage: opmfu analyze [options] PATH...\n"
	"\n"
	"PATH is a cluster directory (ranks up to 5 levels below, of one run: see --run)\n"
	"or one rank (an nsys file: one per GPU and process it holds) of any format:\n"
	"- Ascend PyTorch profiler export: a rank directory (*_ascend_pt) or its\n"
	"  ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_{rank}.db\n"
	"- PyTorch profiler (Kineto) Chrome-trace JSON: *.pt.trace.json, *.json or\n"
	"  *.json.gz\n"
	"- Nsight Systems SQLite export (nsys export --type sqlite): *.sqlite\n"
	"\n"
	"options:\n"
	"  -o, --output DIR       write under DIR/cluster_analysis_output/ (default: PATH;\n"
	"                         for a .db file, its rank directory)\n"
	"      --export LIST      what to write, a comma list of db (the database),\n"
	"                         xlsx (workbooks), csv, json (JSON Lines), html (the\n"
	"                         report as one page, opmfu_report.html) (default: db)\n"
	"      --csv-verbatim     csv: write texts that start with =, +, -, @, tab or CR\n"
	"                         as they are (default: with ' in front, so that a\n"
	"                         spreadsheet does not take them for formulas)\n"
	"      --peak SPEC        peak TFLOPS per class, e.g. fp16=353.9,int8=707.8\n"
	"                         (classes: fp32, tf32 (= hf32), fp16 (= bf16), fp8\n"
	"                         (= hif8), int8, fp4); overrides the trace's chip;\n"
	"                         also read from OPMFU_PEAK\n"
	"      --peak-bw TBPS     peak memory bandwidth in TB/s, e.g. 3.35; overrides\n"
	"                         the trace's chip; also bw=TBPS in --peak or OPMFU_PEAK\n"
	"      --chip NAME        use the built-in peaks of NAME (see 'opmfu chips')\n"
	"      --no-tf32          fp32 GEMMs/convolutions whose GPU kernel name says TF32\n"
	"                         keep the fp32 peak (default: the tf32 peak)\n"
	"  -j, --jobs N           analyse N ranks at once (default: number of CPUs)\n"
	"      --run ID           analyse this run of those found under PATH (its ID, or\n"
	"                         the start of one); needed when PATH holds several\n"
	"                         runs: formats, Kineto jobs, single-device traces\n"
	"      --rank-list LIST   only these ranks, e.g. 0,3,8-15 (also: --ranks LIST)\n"
	"      --steps LIST       only the work of these steps (ProfilerStep#N, STEP_TIME\n"
	"                         numbers), e.g. 3,5-7; a rank without them fails\n"
	"      --time-range A:B   only the work from A to B after each rank's first\n"
	"                         device activity (units ns, us, ms, s; A or B may be\n"
	"                         left out), e.g. 2s:5s, 500ms:, :1.5s\n"
	"      --summary-only     write the run account and the per-rank summaries\n"
	"                         only, not the per-op tables (docs/cli.md)\n"
	"      --follow-symlinks  also walk symbolic links to folders outside PATH\n"
	"                         (never /proc or /sys; default: not followed)\n"
	"      --shard I/N        only the I-th (1 to N) of N blocks of the run's ranks\n"
	"                         in rank order, written with -o DIR as a shard result\n"
	"                         (database only) for 'opmfu merge' (docs/scale.md)\n"
	"      --model CONFIG     also model MFU from a Hugging Face or diffusers\n"
	"                         config.json (as 'opmfu model'), against each step's\n"
	"                         time and FLOPs: the OpmfuModel table; with it:\n"
	"        --seq-len N          tokens per sequence (diffusion: latent tokens)\n"
	"        --global-batch N     sequences (samples) per step, all devices\n"
	"        --tokens-per-step N  instead of --global-batch (decoder LMs)\n"
	"        --prompt-len N       diffusion: prompt (text) tokens per sample\n"
	"        --world-size N       devices (default: the ranks found)\n"
	"        --dp N               data-parallel size; verl-omni divides by it\n"
	"        --timesteps N        diffusion: denoising steps per step (default 1)\n"
	"        --cfg N              diffusion: forward passes per timestep (default 1)\n"
	"        --forward-only       no backward pass (a third of training's FLOPs)\n"
	"        --no-causal          decoder LMs: attention over every (query, key) pair\n"
	"        --dtype CLASS        the peak class model MFU divides by: fp16 (= bf16,\n"
	"                             default), fp8, int8, fp32, tf32\n"
	"        --convention LIST    only these, e.g. palm,maxtext (default: all)\n"
	"        --set FIELD=VALUE    supply or replace a config field\n"
	"  -q, --quiet            print only warnings and errors\n"
	"  -v, --verbose          also print each rank's details before the report\n"
	"      --timings          also print where each rank's time went\n"
	"  -h, --help             show this help\n"
	"\n"
	"exit status: 0 ok, 1 failure, 2 usage error (also: several runs and no --run),\n"
	"3 some ranks failed\n";

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

struct analyze_args {
	struct opmfu_opts o;
	struct opmfu_model_args m; /* --model's run options, shared with `opmfu model` */
	int quiet, timings, verbose;
	int *ranks; /* owned */
	int *steps; /* owned: --steps */
};

/* getopt values of the options only analyze takes (above the model's) */
enum { OPT_STEPS = 0x310, OPT_TIME_RANGE, OPT_SUMMARY_ONLY };

static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' }, { "export", required_argument, NULL, 'E' },
	{ "peak", required_argument, NULL, 'P' },   { "chip", required_argument, NULL, 'C' },
	{ "peak-bw", required_argument, NULL, 'W' },
	{ "jobs", required_argument, NULL, 'j' },   { "rank-list", required_argument, NULL, 'R' },
	{ "csv-verbatim", no_argument, NULL, 'X' },  { "no-tf32", no_argument, NULL, 'F' },
	{ "quiet", no_argument, NULL, 'q' },        { "help", no_argument, NULL, 'h' },
	{ "timings", no_argument, NULL, 'T' },      { "verbose", no_argument, NULL, 'v' },
	{ "model", required_argument, NULL, 'M' },  { "step-time", required_argument, NULL, 'S' },
	{ "follow-symlinks", no_argument, NULL, 'L' }, { "run", required_argument, NULL, 'U' },
	/* SPEC 22: --ranks is the name for --rank-list */
	{ "ranks", required_argument, NULL, 'R' },  { "steps", required_argument, NULL, OPT_STEPS },
	{ "time-range", required_argument, NULL, OPT_TIME_RANGE },
	{ "summary-only", no_argument, NULL, OPT_SUMMARY_ONLY },
	{ "shard", required_argument, NULL, 'H' },
	OPMFU_MODEL_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};

/* One option with a value into a; usage errors exit. */
static void take_option(struct analyze_args *a, int c, const char *arg)
{
	switch (c) {
	case 'o':
		a->o.out_dir = arg;
		break;
	case 'E':
		a->o.exports = opmfu_parse_exports("analyze ", arg, ~0u);
		break;
	case 'M':
		a->m.o.config = arg;
		break;
	case OPT_STEPS:
		opmfu_take_steps("analyze ", &a->o, arg, &a->steps);
		break;
	case OPT_TIME_RANGE:
		opmfu_take_time_range("analyze ", &a->o, arg);
		break;
	case OPT_SUMMARY_ONLY:
		a->o.summary_only = 1;
		break;
	case 'H':
		opmfu_parse_shard(arg, &a->o.shard_i, &a->o.shard_n);
		break;
	case 'S':
		opmfu_die_usage("analyze ", "--step-time %s: analyze takes each step's time from the trace "
				"(--step-time is for 'opmfu model')", arg);
		break;
	default:
		opmfu_take_input_option("analyze ", &a->o, c, arg, &a->ranks);
	}
}

/* Options into a; returns 1 when --help was printed. Usage errors exit. */
static int parse_args(int argc, char **argv, struct analyze_args *a)
{
	int c;

	memset(a, 0, sizeof(*a));
	opmfu_model_args_init(&a->m, argc);
	a->o.exports = OPMFU_EXPORT_DB;
	optind = 1;
	opterr = 0; /* we word the messages ourselves */
	while ((c = getopt_long(argc, argv, ":o:j:qvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'q':
			a->quiet = 1;
			break;
		case 'v':
			a->verbose = 1;
			break;
		case 'T':
			a->timings = 1;
			break;
		case 'h':
			fputs(usage_analyze, stdout);
			return 1;
		case ':':
		case '?':
			opmfu_die_bad_option("analyze ", c, argv);
		default:
			if (!opmfu_model_args_take(&a->m, "analyze ", c, optarg))
				take_option(a, c, optarg);
		}
	}
	if (optind >= argc)
		opmfu_die_usage("analyze ", "%s", "analyze needs at least one PATH");
	if (a->o.shard_n && a->o.summary_only)
		opmfu_die_usage("analyze ", "%s", "--summary-only is for 'opmfu merge': a shard keeps the per-op tables "
				"its merge's run account reads");
	opmfu_end_input_options("analyze ", &a->o, &a->m);
	a->o.inputs = (const char *const *)(argv + optind);
	a->o.n_inputs = (size_t)(argc - optind);
	return 0;
}

/* The status as messages on standard error and an exit code. */
static int exit_code(enum opmfu_status st, const struct opmfu_run *run, const struct opmfu_err *err)
{
	const struct opmfu_rows *rs = run ? opmfu_run_rows(run, "OpmfuRankSummary") : NULL;
	const struct opmfu_rows *r = run ? opmfu_run_rows(run, "OpmfuRun") : NULL;
	size_t i, n = opmfu_rows_count(rs);

	switch (st) {
	case OPMFU_OK:
		return 0;
	case OPMFU_ERR_USAGE:
		opmfu_fprintf(stderr, "%s: error: %s\n", opmfu_prog, err->msg);
		return EXIT_USAGE;
	case OPMFU_ERR_PARTIAL:
		for (i = 0; i < n; i++) {
			const char *status = opmfu_cell_str(rs, i, "status"), *why = opmfu_cell_str(rs, i, "reason");
			if (status && !strcmp(status, "failed"))
				opmfu_fprintf(stderr, "%s: error: rank %.0f: %s\n", opmfu_prog, opmfu_cell(rs, i, "rank_id"),
					why ? why : "");
		}
		opmfu_fprintf(stderr, "%s: error: %s\n", opmfu_prog, err->msg);
		return opmfu_cell(r, 0, "ranks_analysed") > 0 ? EXIT_PARTIAL : 1;
	default:
		opmfu_fprintf(stderr, "%s: error: %s\n", opmfu_prog, err->msg);
		return 1;
	}
}

int opmfu_cmd_analyze(int argc, char **argv)
{
	struct analyze_args a;
	struct opmfu_run *run = NULL;
	struct opmfu_err err = OPMFU_ERR_INIT;
	struct progress_ctx pctx = { 0 };
	enum opmfu_status st;
	int rc;

	if (parse_args(argc, argv, &a)) {
		opmfu_model_args_release(&a.m);
		free(a.ranks);
		free(a.steps);
		return 0;
	}
	a.o.on_warning = opmfu_print_warning;
	pctx.enabled = !a.quiet && isatty(2);
	a.o.on_progress = on_progress;
	a.o.ctx = &pctx;

	st = opmfu_analyze(&a.o, &run, &err);
	if (!a.quiet && run && (st == OPMFU_OK || st == OPMFU_ERR_PARTIAL) && a.o.shard_n)
		opmfu_print_shard(run);
	else if (!a.quiet && run && (st == OPMFU_OK || st == OPMFU_ERR_PARTIAL))
		opmfu_print_summary(run, a.timings, a.verbose, a.m.o.dtype_class);
	rc = exit_code(st, run, &err);
	opmfu_run_free(run);
	opmfu_model_args_release(&a.m);
	free(a.ranks);
	free(a.steps);
	return rc;
}
