/*
 * summary_xlsx.h - opmfu_summary.xlsx (SPEC 14): one workbook for the run,
 * beside the reference-format workbooks, with a sheet per view and native
 * charts (docs/output-schema.md, "The summary workbook").
 *
 * The xlsx writer gathers it as the ranks and then the run account are
 * written (write/summary.h: every table it is put through whose name the
 * summary knows) and writes it at commit, under a temporary name renamed
 * into place: a failed run leaves an earlier summary as it was.
 * opmfu_summary_xlsx_write does the same in one call for tables that
 * already hold every rank's rows.
 */
#ifndef OPMFU_SUMMARY_XLSX_H
#define OPMFU_SUMMARY_XLSX_H

#include "write/summary.h"
#include "write/writer.h"

#define OPMFU_SUMMARY_XLSX "opmfu_summary.xlsx"

/* Writes DIR/opmfu_summary.xlsx of s's kept rows: complete and on disk
 * under a temporary name in DIR, then renamed over an earlier one (on error
 * that stays as it was and no file is left); st gets what the cells could
 * not hold as they are. */
enum opmfu_status opmfu_summary_xlsx_save(const struct opmfu_summary *s, const char *dir,
					  struct opmfu_write_stats *st, struct opmfu_err *err);

/* A run's tables, each holding every rank's rows; NULL: not in the run (its
 * sheet or block is left out). Rows are read by column name, so any of the
 * tables' columns may be missing (empty cells). */
struct opmfu_summary_tables {
	const struct opmfu_table *ranks;      /* OpmfuRankSummary: Ranks */
	const struct opmfu_table *steps;      /* OpmfuSteps: Steps */
	const struct opmfu_table *run;        /* OpmfuRun: the Overview's numbers */
	const struct opmfu_table *hotspots;   /* OpmfuHotspots: Modules, Op types, Kernels */
	const struct opmfu_table *stragglers; /* OpmfuStragglers: the Overview's stragglers */
	const struct opmfu_table *diff;       /* OpmfuDiff (opmfu diff): the Diff sheet */
};

/* opmfu_summary_xlsx_save of the rows of t. */
enum opmfu_status opmfu_summary_xlsx_write(const char *dir, const struct opmfu_summary_tables *t,
					   struct opmfu_write_stats *st, struct opmfu_err *err);

#endif
