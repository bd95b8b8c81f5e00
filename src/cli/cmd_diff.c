/*
 * cmd_diff.c - `opmfu diff BASE NEW`: options into struct
 * opmfu_diff_opts, the library's comparison, the view (diff_view.c), and
 * the status turned into messages and an exit code.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/model_args.h"

static const char usage_diff[] =
	"usage: opmfu diff [options] BASE NEW\n"
	"\n"
	"Compares two runs over the ranks both have: per part of the step time, module\n"
	"path and op type, the time, FLOPs, MFU and time lost to peak before (BASE) and\n"
	"after (NEW), largest change in lost time first. BASE and NEW are each an opmfu\n"
	"result (a cluster_analysis.db, or a folder holding one, itself or in its\n"
	"cluster_analysis_output/) or an input path as 'opmfu analyze' takes it,\n"
	"analysed on the fly into a temporary folder.\n"
	"\n"
	"options:\n"
	"  -o, --output DIR       also write the OpmfuDiff table under\n"
	"                         DIR/cluster_analysis_output/\n"
	"      --export LIST      with -o: a comma list of db, xlsx, csv, json, html\n"
	"                         (default: db); xlsx: opmfu_summary.xlsx, NEW's summary\n"
	"                         sheets and a Diff sheet; html: opmfu_report.html, the\n"
	"                         Diff and NEW's report\n"
	"      --csv-verbatim     csv: write texts that start with =, +, -, @, tab or CR\n"
	"                         as they are (default: with ' in front, so that a\n"
	"                         spreadsheet does not take them for formulas)\n"
	"      --peak SPEC        for input paths: peak TFLOPS per class, as analyze takes\n"
	"                         it (also read from OPMFU_PEAK)\n"
	"      --peak-bw TBPS     for input paths: peak memory bandwidth in TB/s\n"
	"      --chip NAME        for input paths: the built-in peaks of NAME\n"
	"      --no-tf32          for input paths: fp32 GEMMs on TF32 kernels keep the\n"
	"                         fp32 peak (as analyze takes it)\n"
	"  -j, --jobs N           for input paths: analyse N ranks at once\n"
	"      --model CONFIG     for input paths: model MFU as 'analyze --model' (with its\n"
	"                         run options, --seq-len N ...), compared per convention\n"
	"      --run ID           for input paths: the run to analyse on each side (its\n"
	"                         ID, or the start of one); BASE_ID,NEW_ID for two;\n"
	"                         needed for a side that holds several runs\n"
	"      --rank-list LIST   compare only these ranks, e.g. 0,3,8-15\n"
	"      --follow-symlinks  for input paths: also walk symbolic links to folders\n"
	"                         outside them (as analyze takes it)\n"
	"  -q, --quiet            print only warnings and errors\n"
	"  -h, --help             show this help\n"
	"\n"
	"exit status: 0 ok, 1 failure, 2 usage error (also: a side with several runs\n"
	"and no --run), 3 some ranks of an input path failed\n";

static void on_progress(void *ctx, const struct opmfu_progress *p)
{
	(void)ctx;
	fprintf(stderr, "\r%zu/%zu ranks, %.1f s", p->ranks_done, p->ranks_total, p->elapsed_s);
	if (p->ranks_done == p->ranks_total)
		fputs("\r\033[K", stderr);
	fflush(stderr);
}

struct diff_args {
	struct opmfu_diff_opts o;
	struct opmfu_model_args m; /* --model's run options, as analyze takes them */
	int quiet;
	int *ranks; /* owned */
};

static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' }, { "export", required_argument, NULL, 'E' },
	{ "peak", required_argument, NULL, 'P' },   { "chip", required_argument, NULL, 'C' },
	{ "peak-bw", required_argument, NULL, 'W' },
	{ "jobs", required_argument, NULL, 'j' },   { "rank-list", required_argument, NULL, 'R' },
	{ "csv-verbatim", no_argument, NULL, 'X' },  { "no-tf32", no_argument, NULL, 'F' },
	{ "quiet", no_argument, NULL, 'q' },        { "help", no_argument, NULL, 'h' },
	{ "model", required_argument, NULL, 'M' },  { "follow-symlinks", no_argument, NULL, 'L' },
	{ "run", required_argument, NULL, 'U' },
	OPMFU_MODEL_LONGOPTS,                       { NULL, 0, NULL, 0 },
};

/* One option with a value into a; usage errors exit. */
static void take_option(struct diff_args *a, int c, const char *arg)
{
	switch (c) {
	case 'o':
		a->o.out_dir = arg;
		break;
	case 'E':
		a->o.exports = opmfu_parse_exports("diff ", arg, OPMFU_EXPORT_DB | OPMFU_EXPORT_XLSX |
									 OPMFU_EXPORT_CSV | OPMFU_EXPORT_JSON |
									 OPMFU_EXPORT_HTML);
		break;
	case 'M':
		a->m.o.config = arg;
		break;
	default:
		opmfu_take_input_option("diff ", &a->o.analyze, c, arg, &a->ranks);
	}
}

/* Options into a; returns 1 when --help was printed. Usage errors exit. */
static int parse_args(int argc, char **argv, struct diff_args *a)
{
	int c;

	memset(a, 0, sizeof(*a));
	opmfu_model_args_init(&a->m, argc);
	optind = 1;
	opterr = 0; /* we word the messages ourselves */
	while ((c = getopt_long(argc, argv, ":o:j:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'q':
			a->quiet = 1;
			break;
		case 'h':
			fputs(usage_diff, stdout);
			return 1;
		case ':':
		case '?':
			opmfu_die_bad_option("diff ", c, argv);
		default:
			if (!opmfu_model_args_take(&a->m, "diff ", c, optarg))
				take_option(a, c, optarg);
		}
	}
	if (argc - optind != 2)
		opmfu_die_usage("diff ", "%s", argc - optind < 2 ? "diff needs BASE and NEW" : "diff takes two paths, BASE and NEW");
	if (a->o.exports && !a->o.out_dir)
		opmfu_die_usage("diff ", "%s", "--export needs -o DIR");
	opmfu_end_input_options("diff ", &a->o.analyze, &a->m);
	a->o.paths[0] = argv[optind];
	a->o.paths[1] = argv[optind + 1];
	return 0;
}

/* What was written, after the view. */
static void print_written(const struct opmfu_diff *d)
{
	if (d->out_db)
		opmfu_printf("wrote %s (OpmfuDiff, %zu rows)\n", d->out_db, d->n_rows);
	if (d->csv_dir)
		opmfu_printf("wrote %s/OpmfuDiff.csv\n", d->csv_dir);
	if (d->json_dir)
		opmfu_printf("wrote %s/OpmfuDiff.jsonl\n", d->json_dir);
	if (d->summary_xlsx)
		opmfu_printf("wrote %s (Diff sheet, NEW's summary sheets)\n", d->summary_xlsx);
	if (d->html)
		opmfu_printf("wrote %s (the Diff, NEW's report)\n", d->html);
}

int opmfu_cmd_diff(int argc, char **argv)
{
	struct diff_args a;
	struct opmfu_diff d;
	struct opmfu_err err = OPMFU_ERR_INIT;
	enum opmfu_status st;
	int rc;

	if (parse_args(argc, argv, &a)) {
		opmfu_model_args_release(&a.m);
		free(a.ranks);
		return 0;
	}
	a.o.analyze.on_warning = opmfu_print_warning;
	if (!a.quiet && isatty(2))
		a.o.analyze.on_progress = on_progress;
	st = opmfu_diff(&a.o, &d, &err);
	if (!a.quiet && (st == OPMFU_OK || st == OPMFU_ERR_PARTIAL)) {
		opmfu_print_diff(&d);
		print_written(&d);
	}
	if (st != OPMFU_OK)
		opmfu_fprintf(stderr, "%s: error: %s\n", opmfu_prog, err.msg);
	/* an input none of whose ranks could be analysed is a failure (no rows) */
	rc = st == OPMFU_OK ? 0 : st == OPMFU_ERR_USAGE ? EXIT_USAGE : st == OPMFU_ERR_PARTIAL && d.n_rows ? EXIT_PARTIAL : 1;
	opmfu_diff_release(&d);
	opmfu_model_args_release(&a.m);
	free(a.ranks);
	return rc;
}
