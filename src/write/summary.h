/*
 * summary.h - what opmfu_summary.xlsx shows, gathered over a run (SPEC 14):
 * the OpmfuRankSummary and OpmfuSteps rows of every kept rank, and the
 * OpmfuModules and OpmfuOpTypes rows summed over ranks by module path and
 * op name (a cluster can have thousands of ranks: only one rank's rows are
 * held at a time); `opmfu diff`'s OpmfuDiff rows as they are. Tables are recognised by their names and read by column
 * names, so columns added later change nothing here and a column a table
 * does not have is an empty cell. Format-neutral: summary_xlsx.c lays it out.
 */
#ifndef OPMFU_SUMMARY_H
#define OPMFU_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "base/intern.h"
#include "trace/table.h"

/* One module path or op name over every kept rank. Unknown numbers are NaN. */
struct opmfu_sum_row {
	uint32_t name;  /* in its group's names */
	uint32_t ranks; /* rows it had: one per rank */
	double depth;   /* modules: 1 for a top-level path */
	double count;   /* calls (modules) or op instances (op types) */
	double kernel_ns, flops_kernel_ns, flops, lost_ns;
	double own_lost_ns; /* modules: lost directly under the path, not in a sub-module */
	double mfu_ns;      /* sum of mfu x flops_kernel_ns over the rows with an MFU */
	double mfu_base_ns; /* sum of flops_kernel_ns over those rows */
	double worst_rank, worst_lost_ns; /* the rank that lost most on it */
};

/* Rows of one table summed by name. */
struct opmfu_sum_group {
	const struct opmfu_table_def *def; /* of the rows given; NULL: none yet */
	struct opmfu_cell_store pending;   /* the rank's rows until it is kept */
	struct opmfu_arena ar;
	struct opmfu_intern names;
	struct opmfu_sum_row *v;
	size_t n, cap;
};

/* Above this many cells the workbook's rows are streamed (libxlsxwriter's
 * constant_memory): the charts then hold no copy of their values, which
 * Excel and LibreOffice read from the cells anyway. */
#define OPMFU_SUMMARY_STREAM_CELLS 2000000

struct opmfu_summary {
	/* every kept rank's rows, then the current rank's; def NULL: none yet */
	struct opmfu_cell_store ranks, steps, diff;
	size_t ranks_kept, steps_kept, diff_kept;
	struct opmfu_sum_group modules, op_types;
	size_t stream_cells; /* OPMFU_SUMMARY_STREAM_CELLS; tests lower it */
};

void opmfu_summary_init(struct opmfu_summary *s);
void opmfu_summary_release(struct opmfu_summary *s);

/* Takes t's rows, if t is one of the summary's tables (by name:
 * OpmfuRankSummary, OpmfuSteps, OpmfuModules, OpmfuOpTypes, OpmfuDiff;
 * others are ignored), as the current rank's: they count once kept. A table
 * may hold any number of ranks' rows. */
enum opmfu_status opmfu_summary_add(struct opmfu_summary *s, const struct opmfu_table *t, struct opmfu_err *err);
/* The current rank's rows count. */
enum opmfu_status opmfu_summary_keep(struct opmfu_summary *s, struct opmfu_err *err);
/* The current rank's rows are forgotten. */
void opmfu_summary_drop(struct opmfu_summary *s);
/* Whether any of its tables was given (kept or not). */
int opmfu_summary_seen(const struct opmfu_summary *s);
/* Whether any of the run's tables was (the Overview's: all but OpmfuDiff). */
int opmfu_summary_has_run(const struct opmfu_summary *s);

/* The column named name of def, or -1 (def NULL, or no such column). */
int opmfu_sum_col(const struct opmfu_table_def *def, const char *name);
/* The number in cell col of a row of def: NaN when null, text or col < 0. */
double opmfu_sum_num(const struct opmfu_table_def *def, const struct opmfu_cell *row, int col);

/* What the sheets need beyond the rows: orders and medians. */
struct opmfu_sum_view {
	const struct opmfu_summary *s;
	size_t n_ranks, n_steps;
	size_t *median_step;  /* by rank row: the step row of its median step, or SIZE_MAX */
	uint32_t *step_count; /* by rank row: its steps */
	uint32_t *mod_order, *op_order; /* group rows, most lost first */
	double mfu_median;    /* the median over ranks of trace_mfu; NaN: none */
	double mfu_low;       /* the lowest, and its rank */
	double mfu_low_rank;
	double step_median_ns; /* the median over ranks of their median step time */
	double step_high_ns;   /* the longest, and its rank */
	double step_high_rank;
};

/* Builds v over s's kept rows. On error v holds nothing. */
enum opmfu_status opmfu_sum_view_build(struct opmfu_sum_view *v, const struct opmfu_summary *s,
				       struct opmfu_err *err);
void opmfu_sum_view_release(struct opmfu_sum_view *v);

/* Rank row i's median step time in ns: step_ns_median when its table has
 * it, else the window of the median step; NaN: none. */
double opmfu_sum_step_ns(const struct opmfu_sum_view *v, size_t i);

#endif
