/*
 * summary_html.h - opmfu_report.html (SPEC 23): the run's report as one
 * self-contained page (docs/html.md), laid out from the tables the summary
 * gatherer holds (write/summary.h), as the summary workbook is: every number
 * shown is a cell of OpmfuRun, OpmfuRankSummary, OpmfuHotspots,
 * OpmfuStragglers, OpmfuModel's run rows or OpmfuDiff; the page computes
 * only its layout (bar lengths, axis scales).
 */
#ifndef OPMFU_SUMMARY_HTML_H
#define OPMFU_SUMMARY_HTML_H

#include "write/summary.h"
#include "write/writer.h"

#define OPMFU_HTML_REPORT "opmfu_report.html"

/* Rows shown per hotspot kind and per kind of diff rows (the table's first:
 * most recoverable time, largest increase), and bars per chart. */
#define OPMFU_HTML_TOP 20
#define OPMFU_HTML_BARS 10
/* A name is shown up to this many bytes (cut at a character), then "…"; the
 * tables hold it whole. */
#define OPMFU_HTML_NAME_MAX 300

/* Writes path (DIR/opmfu_report.html) of s's kept rows: complete under a
 * temporary name beside it, then renamed over an earlier one (on error that
 * stays as it was and no file is left); st->repaired counts the texts
 * whose invalid UTF-8 or control characters became U+FFFD. */
enum opmfu_status opmfu_summary_html_save(const struct opmfu_summary *s, const char *path,
					  struct opmfu_write_stats *st, struct opmfu_err *err);

/* The page as text into out (sbuf's buf/len; for tests and the writer). */
struct sbuf;
void opmfu_summary_html_render(const struct opmfu_summary *s, struct sbuf *out, struct opmfu_write_stats *st);

#endif
