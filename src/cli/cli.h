/*
 * cli.h - what the command files of the opmfu program share: the command
 * table's entry type, usage errors, and the summary printer.
 * Exit codes: 0 ok, 1 failure, 2 usage, 3 completed but some ranks failed.
 */
#ifndef OPMFU_CLI_H
#define OPMFU_CLI_H

#include <stdarg.h>
#include <stdio.h>

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

/* getopt_long's ':' (c: an option's value is missing) or '?' (an unknown
 * option), the one before optind in argv, as a usage error of cmd. */
void opmfu_die_bad_option(const char *cmd, int c, char *const *argv)
#if defined(__GNUC__)
	__attribute__((noreturn))
#endif
	;
/* Printing with the data's control characters neutralised (term.c): every
 * byte a terminal could take as a control, but LF, is written as a visible
 * escape (\x1b, \u009b); all of the program's output that can hold data
 * goes through these. */
void opmfu_term_write(FILE *f, const char *s, size_t n);
void opmfu_term_vprintf(FILE *f, const char *fmt, va_list ap);
void opmfu_fprintf(FILE *f, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
void opmfu_printf(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;

/* The library's on_warning: "opmfu: warning: MSG" on standard error. */
void opmfu_print_warning(void *ctx, const char *msg);

/* "0,3,8-15" -> the ids in order into *out (malloc'd); returns their
 * count, or -1 for a malformed list (options.c). */
int opmfu_parse_rank_list(const char *s, int **out);
/* "db,csv" -> OPMFU_EXPORT_* bits, in any order; a word that is not one of
 * allowed's is a usage error of cmd ("analyze ") naming it. */
unsigned opmfu_parse_exports(const char *cmd, const char *list, unsigned allowed);
/* --peak (getopt value 'P'), --chip ('C'), -j ('j'), --rank-list ('R'), --run ('U'), --csv-verbatim
 * ('X', no value) or --follow-symlinks ('L', no value) of cmd into o; *ranks owns the rank list. Usage errors exit. */
void opmfu_take_input_option(const char *cmd, struct opmfu_opts *o, int c, const char *arg, int **ranks);
/* --steps LIST (step numbers, the rank list's grammar, none negative) and
 * --time-range A:B of cmd into o; *steps owns the step list. Usage errors exit. */
void opmfu_take_steps(const char *cmd, struct opmfu_opts *o, const char *arg, int **steps);
void opmfu_take_time_range(const char *cmd, struct opmfu_opts *o, const char *arg);
/* After the options: --model's run options (m) into o, an error when they
 * came without --model; the peaks of OPMFU_PEAK, unless --peak gave them. */
struct opmfu_model_args;
void opmfu_end_input_options(const char *cmd, struct opmfu_opts *o, struct opmfu_model_args *m);

/* --shard I/N into *i, *n; anything else is a usage error of analyze (options.c). */
void opmfu_parse_shard(const char *arg, int *i, int *n);
/* What a shard wrote: its run, its place, its ranks (summary.c). */
void opmfu_print_shard(const struct opmfu_run *run);

int opmfu_cmd_analyze(int argc, char **argv);
int opmfu_cmd_merge(int argc, char **argv);
int opmfu_cmd_diff(int argc, char **argv);
int opmfu_cmd_chips(int argc, char **argv);
int opmfu_cmd_model(int argc, char **argv);

/* What `opmfu analyze` prints on standard output: with verbose (or
 * timings) each rank's block first (summary.c), then the report of the run
 * (report.c), then what was written. */
void opmfu_print_summary(const struct opmfu_run *run, int timings, int verbose, int dtype_class);
/* dtype_class: --model's --dtype (OPMFU_CLASS_*), for the model section's peak. */
void opmfu_print_report(const struct opmfu_run *run, int dtype_class);
/* The report's model section (analyze --model; report_model.c); nothing without it. */
void opmfu_print_model_report(const struct opmfu_run *run, int dtype_class);
/* A cell of a run's table by column name: a number (NaN when NULL) or a text (NULL when NULL). */
double opmfu_cell(const struct opmfu_rows *t, size_t row, const char *col);
const char *opmfu_cell_str(const struct opmfu_rows *t, size_t row, const char *col);
/* What `opmfu diff` prints (diff_view.c): fits one screen. */
void opmfu_print_diff(const struct opmfu_diff *d);
/* A ratio as a percentage with that many decimals ("41.1%"), "-" for none
 * (< 0 or NaN). Returns buf. */
const char *opmfu_format_pct(double v, int decimals, char *buf, size_t size);

#endif
