/*
 * write_xlsx.h - the Excel export (SPEC 4): per rank
 * OperatorMfu/operator_mfu_kernel_{rank}.xlsx and operator_mfu_module_{rank}.xlsx.
 * Each workbook is written under a temporary name in its own directory and
 * renamed into place once complete: a reader never sees half a workbook and a
 * failed write leaves the previous file as it was.
 */
#ifndef OPMFU_WRITE_XLSX_H
#define OPMFU_WRITE_XLSX_H

#include <stddef.h>

#include "analyze/module_mfu.h"
#include "analyze/op_mfu.h"
#include "base/err.h"
#include "model/trace.h"
#include "opmfu.h"

/* Rows of one Excel sheet, header row included (Excel's own limit). */
#define OPMFU_XLSX_MAX_ROWS 1048576

/* What one write did to the data, for warnings. */
struct opmfu_xlsx_stats {
	size_t rows;      /* data rows written; 0 means no file */
	size_t truncated; /* strings cut to Excel's 32767 characters */
	size_t repaired;  /* strings whose invalid UTF-8 or NUL bytes became U+FFFD */
	size_t blanks;    /* NaN or infinite numbers written as empty cells */
};

/*
 * Writes the kernel workbook (the rank's OperatorMFU rows) to path. When the
 * rank has no rows, no file is written and an existing file at path (from an
 * earlier run) is removed. max_rows is the sheet's row limit, header
 * included; 0 means OPMFU_XLSX_MAX_ROWS. More rows fail with OPMFU_ERR_LIMIT
 * and write nothing. stats may be NULL.
 */
enum opmfu_status opmfu_xlsx_write_kernel(const char *path, int rank, const struct opmfu_trace *t,
					  const struct opmfu_op_mfu *op, size_t max_rows,
					  struct opmfu_xlsx_stats *stats, struct opmfu_err *err);

/* Same for the module workbook (the rank's ModuleMFU rows). */
enum opmfu_status opmfu_xlsx_write_module(const char *path, int rank, const struct opmfu_module_mfu *mod,
					  size_t max_rows, struct opmfu_xlsx_stats *stats,
					  struct opmfu_err *err);

/*
 * A rank's kernel workbook is written while its module tree is still being
 * built, and only moved into place once the whole rank has succeeded (a
 * failed rank keeps the workbooks of an earlier run).
 */
struct opmfu_xlsx_staged {
	char *path; /* DIR/operator_mfu_kernel_{rank}.xlsx */
	char *tmp;  /* the complete workbook, fsynced; NULL: no rows, so no file */
};

/* Writes the kernel workbook of one rank into dir (the OperatorMfu
 * directory) under a temporary name. stats (may be NULL) is added to. On
 * error nothing is left behind. */
enum opmfu_status opmfu_xlsx_stage_kernel(const char *dir, int rank, const struct opmfu_trace *t,
					  const struct opmfu_op_mfu *op, struct opmfu_xlsx_staged *sg,
					  struct opmfu_xlsx_stats *stats, struct opmfu_err *err);

/* Renames the staged workbook into place (setting OPMFU_XLSX_KERNEL in
 * *written), or removes an earlier run's file when there were no rows; then
 * releases sg. */
enum opmfu_status opmfu_xlsx_commit(struct opmfu_xlsx_staged *sg, unsigned *written, struct opmfu_err *err);

/* Removes the staged workbook and releases sg (safe on a zeroed sg). */
void opmfu_xlsx_discard(struct opmfu_xlsx_staged *sg);

/* Writes the module workbook of one rank into dir; OPMFU_XLSX_MODULE in
 * *written when a file was written; stats (may be NULL) is added to. */
enum opmfu_status opmfu_xlsx_out_module(const char *dir, int rank, const struct opmfu_module_mfu *mod,
					unsigned *written, struct opmfu_xlsx_stats *stats, struct opmfu_err *err);

#endif
