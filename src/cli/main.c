/*
 * main.c - the opmfu program: the command table and its dispatch. Each
 * command is one file (cmd_*.c) that parses its options, calls the library
 * and turns the status into one message and an exit code.
 */
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cli/cli.h"
#include "opmfu.h"

const char *const opmfu_prog = "opmfu";

static const struct opmfu_command commands[] = {
	{ "analyze", "PATH...", opmfu_cmd_analyze, "write OperatorMFU and ModuleMFU for every rank under PATH" },
	{ "merge", "SHARD...", opmfu_cmd_merge, "merge the shard results of 'analyze --shard I/N' into one run's result" },
	{ "diff", "BASE NEW", opmfu_cmd_diff, "compare two runs: step shares, modules, op types, before and after" },
	{ "model", "CONFIG", opmfu_cmd_model, "model FLOPs and MFU of a config.json under each seed convention" },
	{ "chips", "", opmfu_cmd_chips, "list the built-in peak FLOPS table" },
	{ NULL, NULL, NULL, NULL },
};

static const char usage_head[] =
	"usage: opmfu <command> [options]\n"
	"\n"
	"Compute MFU (Model FLOPs Utilization) from profiler traces, or from a model's\n"
	"config.json. Traces: Ascend PyTorch profiler exports (*_ascend_pt rank\n"
	"directories, ascend_pytorch_profiler_{rank}.db), PyTorch profiler (Kineto)\n"
	"Chrome-trace JSON (*.pt.trace.json, *.json, *.json.gz) and Nsight Systems\n"
	"SQLite exports (*.sqlite).\n"
	"\n"
	"commands:\n";

static const char usage_tail[] =
	"\n"
	"options:\n"
	"  -h, --help        show this help\n"
	"  -V, --version     show the version\n"
	"\n"
	"Run 'opmfu COMMAND --help' (analyze, merge, diff, model) for its options.\n";

void opmfu_die_usage(const char *cmd, const char *fmt, const char *arg)
{
	opmfu_fprintf(stderr, "%s: error: ", opmfu_prog);
	opmfu_fprintf(stderr, fmt, arg);
	opmfu_fprintf(stderr, "\nRun 'opmfu %s--help' for usage.\n", cmd);
	exit(EXIT_USAGE);
}

void opmfu_die_bad_option(const char *cmd, int c, char *const *argv)
{
	opmfu_die_usage(cmd, c == ':' ? "option '%s' needs a value" : "unknown option '%s'", argv[optind - 1]);
}

void opmfu_print_warning(void *ctx, const char *msg)
{
	(void)ctx;
	opmfu_fprintf(stderr, "%s: warning: %s\n", opmfu_prog, msg);
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

/*
 * Ctrl-C or a kill: the library's staged files go (opmfu_remove_staged is
 * async-signal-safe), then the signal is raised again with its default
 * action, so the exit status says which signal ended the run. The outputs
 * stay as the previous run left them: nothing of this one was renamed into
 * place before its commit.
 */
static void on_signal(int sig)
{
	opmfu_remove_staged();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&sa.sa_mask, sigs[i]);
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;
		/* a signal ignored by the caller (nohup) stays ignored */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

int main(int argc, char **argv)
{
	const struct opmfu_command *c;

	tune_malloc();
	catch_signals();
	if (argc < 2)
		opmfu_die_usage("", "%s", "no command given");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		fputs(usage_head, stdout);
		for (c = commands; c->name; c++) {
			char head[32];
			snprintf(head, sizeof(head), "%s %s", c->name, c->args);
			opmfu_printf("  %-16s  %s\n", head, c->summary);
		}
		fputs(usage_tail, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		opmfu_printf("opmfu %s\n", OPMFU_VERSION);
		return 0;
	}
	for (c = commands; c->name; c++)
		if (!strcmp(argv[1], c->name))
			return c->fn(argc - 1, argv + 1);
	if (argv[1][0] == '-')
		opmfu_die_usage("", "unknown option '%s'", argv[1]);
	opmfu_die_usage("", "unknown command '%s'", argv[1]);
	return EXIT_USAGE;
}
