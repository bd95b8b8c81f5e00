/*
 * summary.h - what opmfu_summary.xlsx shows (SPEC 14, 16): the run's tables
 * as the library made them, gathered by name as they are put to the xlsx
 * writer: every kept rank's OpmfuRankSummary and OpmfuSteps rows, the run
 * account's OpmfuRun, OpmfuHotspots and OpmfuStragglers (put after the last
 * rank, under OPMFU_RUN_RANK), `opmfu diff`'s OpmfuDiff, and OpmfuModel's
 * run rows (rank_id NULL: a few, whatever the ranks). Nothing is
 * aggregated here: every number a sheet shows is a cell of one of these
 * tables. Tables are read by column names, so columns added later change
 * nothing and a column a table does not have is an empty cell.
 * Format-neutral: summary_xlsx.c and summary_html.c lay it out.
 */
#ifndef OPMFU_SUMMARY_H
#define OPMFU_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "trace/table.h"

/* Above this many cells the workbook's rows are streamed (libxlsxwriter's
 * constant_memory): the charts then hold no copy of their values, which
 * Excel and LibreOffice read from the cells anyway. */
#define OPMFU_SUMMARY_STREAM_CELLS 2000000

/* The tables gathered, by name. */
enum opmfu_sum_table {
	OPMFU_SUM_RANKS,      /* OpmfuRankSummary */
	OPMFU_SUM_STEPS,      /* OpmfuSteps */
	OPMFU_SUM_RUN,        /* OpmfuRun */
	OPMFU_SUM_HOTSPOTS,   /* OpmfuHotspots */
	OPMFU_SUM_STRAGGLERS, /* OpmfuStragglers */
	OPMFU_SUM_DIFF,       /* OpmfuDiff */
	OPMFU_SUM_MODEL,      /* OpmfuModel: its run rows alone (rank_id NULL; the HTML report) */
	OPMFU_SUM_N
};

struct opmfu_summary {
	/* every kept rows of each table, then the current rank's; def NULL: none yet */
	struct opmfu_cell_store t[OPMFU_SUM_N];
	size_t kept[OPMFU_SUM_N];
	size_t stream_cells; /* OPMFU_SUMMARY_STREAM_CELLS; tests lower it */
};

void opmfu_summary_init(struct opmfu_summary *s);
void opmfu_summary_release(struct opmfu_summary *s);

/* The table name of t (OpmfuRankSummary, ...). */
const char *opmfu_summary_table_name(enum opmfu_sum_table t);

/* Takes t's rows, if t is one of the summary's tables (by name; others are
 * ignored), as the current rank's: they count once kept. A table may hold
 * any number of ranks' rows. */
enum opmfu_status opmfu_summary_add(struct opmfu_summary *s, const struct opmfu_table *t, struct opmfu_err *err);
/* The current rank's rows count. */
enum opmfu_status opmfu_summary_keep(struct opmfu_summary *s, struct opmfu_err *err);
/* The current rank's rows are forgotten. */
void opmfu_summary_drop(struct opmfu_summary *s);
/* Whether any of its tables was given (kept or not). */
int opmfu_summary_seen(const struct opmfu_summary *s);
/* Whether any of the run's tables was (the Overview's: all but OpmfuDiff). */
int opmfu_summary_has_run(const struct opmfu_summary *s);
/* The kept rows of table k (0 when it was never given). */
size_t opmfu_summary_rows(const struct opmfu_summary *s, enum opmfu_sum_table k);

/* The median rank's peak memory bandwidth in TB/s: OpmfuRun.peak_bw_tbps,
 * else (a result older than that column) the median rank's
 * OpmfuRankSummary.peak_bw_tbps; NaN: none. The roofline's roof. */
double opmfu_summary_run_bw(const struct opmfu_summary *s);

/* OpmfuStragglers.measure m[0..len) as the views name it ("Slowest step
 * time (ms)"; NULL: a measure they do not know, shown as it is); *ns: its
 * value is a time in ns (shown in ms), else a ratio. */
const char *opmfu_summary_measure(const char *m, size_t len, int *ns);

/* Row i of table k's column col (by name) as a number: NaN when null, text
 * or absent. */
double opmfu_sum_value(const struct opmfu_summary *s, enum opmfu_sum_table k, size_t i, const char *col);
/* ... as a text (*n its length): NULL when null, a number or absent. */
const char *opmfu_sum_text(const struct opmfu_summary *s, enum opmfu_sum_table k, size_t i, const char *col,
			   size_t *n);

#endif
