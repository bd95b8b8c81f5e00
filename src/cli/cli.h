/*
 * cli.h - what the command files of the opmfu program share: the command
 * table's entry type, usage errors, and the summary printer.
 * Exit codes: 0 ok, 1 failure, 2 usage, 3 completed but some ranks failed.
 */
#ifndef OPMFU_CLI_H
#define OPMFU_CLI_H

#include "opmfu.h"

#define EXIT_USAGE 2
#define EXIT_PARTIAL 3

extern const char *const opmfu_prog;

/* One subcommand: `opmfu NAME ...` runs fn(argc, argv) with argv[0] = NAME. */
struct opmfu_command {
	const char *name, *args; /* args: what follows the name in the usage */
	int (*fn)(int argc, char **argv);
	const char *summary; /* one line for `opmfu --help` */
};

/* Usage errors: one line naming the fault (fmt with one %s for arg), one
 * line pointing at the command's help; exits with EXIT_USAGE. cmd is
 * "analyze " (with the space) or "" for the program itself. */
void opmfu_die_usage(const char *cmd, const char *fmt, const char *arg)
#if defined(__GNUC__)
	__attribute__((noreturn))
#endif
	;

int opmfu_cmd_analyze(int argc, char **argv);
int opmfu_cmd_chips(int argc, char **argv);
int opmfu_cmd_model(int argc, char **argv);

/* What `opmfu analyze` prints on standard output: with verbose (or
 * timings) each rank's block first (summary.c), then the report of the run
 * (report.c), then what was written. */
void opmfu_print_summary(const struct opmfu_report *rep, int timings, int verbose);
void opmfu_print_report(const struct opmfu_report *rep);
/* The report's model section (analyze --model; report_model.c); nothing without it. */
void opmfu_print_model_report(const struct opmfu_report *rep);
/* "950 ns", "12.50 us", "3.20 ms", "1.25 s" */
void opmfu_format_ns(double ns, char *out, size_t size);

#endif
