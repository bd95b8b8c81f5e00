/*
 * write_xlsx.h - the Excel export (SPEC 4), the writer "xlsx" of the
 * registry: per rank, one workbook DIR/{xlsx_name}_{rank}.xlsx for each table
 * whose def names one (OperatorMfu/operator_mfu_kernel_{rank}.xlsx and
 * operator_mfu_module_{rank}.xlsx). put writes a workbook complete under a
 * temporary name in DIR; keep_rank renames the rank's workbooks into place
 * (a table without rows removes the file of an earlier run); drop_rank and
 * close remove them, so a failed rank keeps the workbooks of an earlier run.
 */
#ifndef OPMFU_WRITE_XLSX_H
#define OPMFU_WRITE_XLSX_H

#include <stddef.h>

#include "write/writer.h"

/* Rows of one Excel sheet, header row included (Excel's own limit). */
#define OPMFU_XLSX_MAX_ROWS 1048576

/* Tests: the sheet's row limit, header included, of the xlsx writer w; 0
 * means OPMFU_XLSX_MAX_ROWS. A table with more rows fails with
 * OPMFU_ERR_LIMIT and writes nothing. */
void opmfu_xlsx_set_max_rows(struct opmfu_writer *w, size_t max_rows);

#endif
