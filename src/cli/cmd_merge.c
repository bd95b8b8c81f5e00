/*
 * cmd_merge.c - `opmfu merge SHARD... -o OUT`: the shard results of
 * `analyze --shard I/N` merged into the result of the whole run (SPEC 22,
 * docs/scale.md), then the same report as analyze.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static const char usage_merge[] =
	"usage: opmfu merge [options] SHARD... -o DIR\n"
	"\n"
	"Merges the shard results that 'opmfu analyze PATH --shard I/N -o DIR_I' wrote\n"
	"(each DIR_I/cluster_analysis_output/cluster_analysis.db, or DIR_I itself) into\n"
	"the result a single 'opmfu analyze PATH' writes: every table row for row, the\n"
	"run account, the workbooks and the other exports. The shards must be of one\n"
	"run and one N, each given once; missing shards are named and the others\n"
	"merged (exit 3). See docs/scale.md for Slurm and GNU parallel.\n"
	"\n"
	"options:\n"
	"  -o, --output DIR       write under DIR/cluster_analysis_output/ (required)\n"
	"      --export LIST      what to write, a comma list of db (the database),\n"
	"                         xlsx (workbooks), csv, json (JSON Lines), html (the\n"
	"                         report as one page, opmfu_report.html) (default: db)\n"
	"      --csv-verbatim     csv: write texts that start with =, +, -, @, tab or CR\n"
	"                         as they are (default: with ' in front)\n"
	"      --summary-only     write the run account and per-rank summaries without\n"
	"                         the per-op tables (as analyze --summary-only)\n"
	"  -q, --quiet            print only warnings and errors\n"
	"  -h, --help             show this help\n"
	"\n"
	"exit status: 0 ok, 1 failure (also: a shard result unreadable or malformed),\n"
	"2 usage error (also: shards of different runs or N, a rank or shard given\n"
	"twice), 3 shards missing or some ranks failed (the rest merged)\n";

static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' }, { "export", required_argument, NULL, 'E' },
	{ "csv-verbatim", no_argument, NULL, 'X' }, { "quiet", no_argument, NULL, 'q' },
	{ "summary-only", no_argument, NULL, 'U' },
	{ "help", no_argument, NULL, 'h' },	    { NULL, 0, NULL, 0 },
};

/* A folder stands for the shard result in it (DIR or DIR/cluster_analysis_output). */
static char *shard_path(const char *arg)
{
	static const char *const tails[] = { "/cluster_analysis_output/cluster_analysis.db", "/cluster_analysis.db" };
	FILE *f;
	size_t i, n = strlen(arg);
	for (i = 0; i < 2; i++) {
		char *p = malloc(n + strlen(tails[i]) + 1);
		if (!p)
			return NULL;
		memcpy(p, arg, n);
		strcpy(p + n, tails[i]);
		if ((f = fopen(p, "rb"))) {
			fclose(f);
			return p;
		}
		free(p);
	}
	return strdup(arg);
}

int opmfu_cmd_merge(int argc, char **argv)
{
	struct opmfu_opts o;
	struct opmfu_run *run = NULL;
	struct opmfu_err err = OPMFU_ERR_INIT;
	enum opmfu_status st;
	char **paths;
	int c, quiet = 0, rc, i, n;

	memset(&o, 0, sizeof(o));
	o.exports = OPMFU_EXPORT_DB;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.out_dir = optarg;
			break;
		case 'E':
			o.exports = opmfu_parse_exports("merge ", optarg, ~0u);
			break;
		case 'X':
			o.csv_verbatim = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'U':
			o.summary_only = 1;
			break;
		case 'h':
			fputs(usage_merge, stdout);
			return 0;
		default:
			opmfu_die_bad_option("merge ", c, argv);
		}
	}
	if (optind >= argc)
		opmfu_die_usage("merge ", "%s", "merge needs at least one SHARD result");
	if (!o.out_dir)
		opmfu_die_usage("merge ", "%s", "merge needs -o DIR: where to write the merged result");
	n = argc - optind;
	if (!(paths = calloc((size_t)n, sizeof(*paths)))) {
		opmfu_fprintf(stderr, "%s: error: out of memory\n", opmfu_prog);
		return 1;
	}
	for (i = 0; i < n; i++)
		if (!(paths[i] = shard_path(argv[optind + i]))) {
			opmfu_fprintf(stderr, "%s: error: out of memory\n", opmfu_prog);
			return 1;
		}
	o.inputs = (const char *const *)paths;
	o.n_inputs = (size_t)n;
	o.on_warning = opmfu_print_warning;

	st = opmfu_merge(&o, &run, &err);
	if (!quiet && run && (st == OPMFU_OK || st == OPMFU_ERR_PARTIAL) && opmfu_run_rows(run, "OpmfuRun"))
		opmfu_print_summary(run, 0, 0, OPMFU_CLASS_FP16);
	switch (st) {
	case OPMFU_OK:
		rc = 0;
		break;
	case OPMFU_ERR_USAGE:
		rc = EXIT_USAGE;
		break;
	case OPMFU_ERR_PARTIAL:
		rc = EXIT_PARTIAL;
		break;
	default:
		rc = 1;
	}
	if (st != OPMFU_OK)
		opmfu_fprintf(stderr, "%s: error: %s\n", opmfu_prog, err.msg);
	opmfu_run_free(run);
	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	return rc;
}
