/*
 * summary_html.c - opmfu_report.html (write/summary_html.h, docs/html.md):
 * the run account, the ranks a bounded view shows (trace/rank_pick.h, the
 * terminal's rule), hotspots, the roofline, collectives, stragglers, model
 * rows and the diff, from the tables write/summary.c gathered. One file:
 * styles and the sorting script inline, charts as inline SVG, a
 * Content-Security-Policy that allows no load at all; every text of a trace
 * escaped and its invalid UTF-8 repaired (write/utf8.h). Numbers are shown
 * rounded and kept whole in data-v, which sorting reads.
 */
#include "write/summary_html.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/kname.h"
#include "base/mem.h"
#include "base/sbuf.h"
#include "trace/rank_pick.h"
#include "write/stage.h"
#include "write/utf8.h"

/* The one script: sorts a table by the header clicked (data-v of its
 * cells, numbers when the header says so). The page is whole without it. */
#define SORT_JS                                                                                                       \
	"document.querySelectorAll('table.sortable th').forEach(function(th){th.tabIndex=0;"                     \
	"th.addEventListener('click',function(){var t=th.closest('table'),b=t.tBodies[0],i=th.cellIndex,"        \
	"n=th.getAttribute('data-type')==='num',up=th.getAttribute('aria-sort')!=='ascending';"                   \
	"t.querySelectorAll('th').forEach(function(h){h.removeAttribute('aria-sort');});"                         \
	"th.setAttribute('aria-sort',up?'ascending':'descending');"                                              \
	"var r=Array.prototype.slice.call(b.rows);r.sort(function(x,y){"                                          \
	"var p=x.cells[i].getAttribute('data-v'),q=y.cells[i].getAttribute('data-v');"                            \
	"if(p===q)return 0;if(p==='')return 1;if(q==='')return -1;"                                               \
	"var c=n?parseFloat(p)-parseFloat(q):(p<q?-1:1);return up?c:-c;});"                                     \
	"r.forEach(function(e){b.appendChild(e);});});});"
/* its SHA-256 (base64), which the CSP names: the only script that may run
 * (tests/cli/html_report.py checks it against SORT_JS) */
#define SORT_JS_SHA256 "sha256-ks/ThVL6F+Plb52wEd3qW+06z1MXpUIRDect2MXiYNk="

#define CSS                                                                                                          \
	"body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:0 16px;color:#222}"      \
	"h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ccc;margin-top:32px}h3{font-size:15px}"     \
	"table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #ccc;padding:2px 6px;"              \
	"text-align:right;vertical-align:top}th{background:#e8f4f4;cursor:pointer}td.t{text-align:left;"         \
	"overflow-wrap:anywhere;max-width:520px;min-width:5em}th[aria-sort=ascending]::after{content:' \\25B2'}"              \
	"th[aria-sort=descending]::after{content:' \\25BC'}th[data-type=text]{text-align:left}.note{color:#555}svg{display:block;margin:8px 0}"     \
	"svg text{font:11px sans-serif;fill:#222}dt{font-weight:bold;margin-top:6px}dd{margin-left:16px}"         \
	"nav a{margin-right:10px}"

struct page {
	struct sbuf b;
	const struct opmfu_summary *s;
	struct opmfu_write_stats *st;
};

enum fmt { F_TEXT, F_KERNEL, F_INT, F_MS, F_PCT, F_TFLOPS, F_NUM, F_DMS, F_DPCT };

static void add(struct page *pg, const char *s)
{
	sbuf_adds(&pg->b, s);
}

/* s[0..n) as HTML text, also right in an attribute: & < > " ' escaped,
 * invalid UTF-8 and control characters as U+FFFD (counted once per text),
 * cut after max bytes (0: whole) at a character, with "…". */
static void esc(struct page *pg, const char *s, size_t n, size_t max)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, k;
	int ok, bad = 0;

	while (i < n) {
		if (max && i >= max) {
			add(pg, "\xE2\x80\xA6");
			break;
		}
		k = opmfu_utf8_next(u + i, n - i, &ok);
		/* C0 (but tab and newline), DEL and C1: not text a page should carry */
		if (!ok || (u[i] < 0x20 && u[i] != '\t' && u[i] != '\n') || u[i] == 0x7F ||
		    (u[i] == 0xC2 && u[i + 1] < 0xA0)) {
			add(pg, "\xEF\xBF\xBD");
			bad = 1;
		} else if (u[i] == '&') {
			add(pg, "&amp;");
		} else if (u[i] == '<') {
			add(pg, "&lt;");
		} else if (u[i] == '>') {
			add(pg, "&gt;");
		} else if (u[i] == '"') {
			add(pg, "&quot;");
		} else if (u[i] == '\'') {
			add(pg, "&#39;");
		} else {
			sbuf_add(&pg->b, s + i, k);
		}
		i += k;
	}
	if (bad && pg->st)
		pg->st->repaired++;
}

static double val(const struct page *pg, enum opmfu_sum_table k, size_t i, const char *col)
{
	return opmfu_sum_value(pg->s, k, i, col);
}

static const char *text(const struct page *pg, enum opmfu_sum_table k, size_t i, const char *col, size_t *n)
{
	return opmfu_sum_text(pg->s, k, i, col, n);
}

/* A number as shown: "-" when unknown. */
static void shown(struct page *pg, double v, enum fmt f)
{
	double p = v * 100;
	if (isnan(v)) {
		add(pg, "-");
		return;
	}
	switch (f) {
	case F_INT: sbuf_addf(&pg->b, "%.0f", v); break;
	case F_MS: sbuf_addf(&pg->b, "%.3f", v / 1e6); break;
	case F_DMS: sbuf_addf(&pg->b, "%+.3f", v / 1e6); break;
	/* a share that would show as 0.00% keeps two digits, as the terminal's */
	case F_PCT: sbuf_addf(&pg->b, p > 0 && p < 0.005 ? "%.2g%%" : "%.2f%%", p); break;
	case F_DPCT: sbuf_addf(&pg->b, "%+.2f%%", p); break;
	case F_TFLOPS: sbuf_addf(&pg->b, "%.2f", v); break;
	default: sbuf_addf(&pg->b, "%.4g", v); break;
	}
}

/* data-v="...": the table's value whole (sorting and tests read it); "" when unknown */
static void data_v(struct page *pg, double v)
{
	if (isnan(v))
		add(pg, " data-v=\"\"");
	else
		sbuf_addf(&pg->b, " data-v=\"%.17g\"", v);
}

/* A text cell: the name (a kernel's short name, base/kname.h, with the
 * whole name as its tooltip), its data-v the name as shown. */
static void text_td(struct page *pg, const char *t, size_t n, enum fmt f)
{
	char kn[OPMFU_HTML_NAME_MAX + 1];
	size_t m;

	if (!t) {
		add(pg, "<td class=\"t\" data-v=\"\">-</td>");
		return;
	}
	if (f == F_KERNEL) {
		m = opmfu_kernel_short(t, n, 80, kn, sizeof(kn));
		add(pg, "<td class=\"t\" title=\"");
		esc(pg, t, n, OPMFU_HTML_NAME_MAX);
		add(pg, "\" data-v=\"");
		esc(pg, kn, m, 0);
		add(pg, "\">");
		esc(pg, kn, m, 0);
		add(pg, "</td>");
		return;
	}
	add(pg, "<td class=\"t\" data-v=\"");
	esc(pg, t, n, OPMFU_HTML_NAME_MAX);
	add(pg, "\">");
	esc(pg, t, n, OPMFU_HTML_NAME_MAX);
	add(pg, "</td>");
}

static void num_td(struct page *pg, double v, enum fmt f)
{
	add(pg, "<td");
	data_v(pg, v);
	add(pg, ">");
	shown(pg, v, f);
	add(pg, "</td>");
}

/* ---- tables ---- */

struct col {
	const char *title, *src;
	enum fmt fmt;
};

/* The header of a sortable table; numbered: a # column first; last: a
 * text column after c's, or NULL. */
static void thead(struct page *pg, const char *id, const struct col *c, size_t n, int numbered, const char *last)
{
	size_t k;
	sbuf_addf(&pg->b, "<table class=\"sortable\" id=\"%s\"><thead><tr>", id);
	if (numbered)
		add(pg, "<th data-type=\"num\">#</th>");
	for (k = 0; k < n; k++) {
		sbuf_addf(&pg->b, "<th data-type=\"%s\">", c[k].fmt == F_TEXT || c[k].fmt == F_KERNEL ? "text" : "num");
		add(pg, c[k].title);
		add(pg, "</th>");
	}
	if (last)
		sbuf_addf(&pg->b, "<th data-type=\"text\">%s</th>", last);
	add(pg, "</tr></thead><tbody>\n");
}

static void cells(struct page *pg, enum opmfu_sum_table t, size_t i, const struct col *c, size_t n)
{
	size_t k, len;
	for (k = 0; k < n; k++) {
		if (c[k].fmt == F_TEXT || c[k].fmt == F_KERNEL) {
			const char *s = text(pg, t, i, c[k].src, &len);
			text_td(pg, s, len, c[k].fmt);
		} else {
			num_td(pg, val(pg, t, i, c[k].src), c[k].fmt);
		}
	}
}

/* Rows idx[0..n) of t (idx NULL: rows 0..n) as a sortable table. */
static void rows_table(struct page *pg, const char *id, enum opmfu_sum_table t, const struct col *c, size_t n_cols,
		       const size_t *idx, size_t n)
{
	size_t i;
	thead(pg, id, c, n_cols, 0, NULL);
	for (i = 0; i < n; i++) {
		add(pg, "<tr>");
		cells(pg, t, idx ? idx[i] : i, c, n_cols);
		add(pg, "</tr>\n");
	}
	add(pg, "</tbody></table>\n");
}

/* Whether table t's row i has text want in column col. */
static int is(const struct page *pg, enum opmfu_sum_table t, size_t i, const char *col, const char *want)
{
	size_t n;
	const char *s = text(pg, t, i, col, &n);
	return s && n == strlen(want) && !memcmp(s, want, n);
}

/* The first (at most) max rows of t whose col is want, in the table's
 * order, into idx; their count, and in *all how many there are. */
static size_t rows_of(const struct page *pg, enum opmfu_sum_table t, const char *col, const char *want, size_t *idx,
		      size_t max, size_t *all)
{
	size_t i, n = 0, m = opmfu_summary_rows(pg->s, t);
	*all = 0;
	for (i = 0; i < m; i++)
		if (is(pg, t, i, col, want) && (*all)++ < max)
			idx[n++] = i;
	return n;
}

/* ---- charts ---- */

static const char *const wf_cols[5] = { "trace_mfu", "share_inefficiency", "share_other_compute", "share_comm",
					"share_idle" };
static const char *const wf_names[5] = { "Trace MFU (useful math)", "FLOP kernels below peak",
					 "Busy without FLOPs", "Exposed communication", "Idle" };
static const char *const wf_colors[5] = { "#2E7D32", "#F9A825", "#8E7CC3", "#1F77B4", "#BDBDBD" };

/* One bar of the five waterfall parts of table t's row i, from x, w wide for 100 %. */
static void wf_bar(struct page *pg, enum opmfu_sum_table t, size_t i, double x, double y, double w, double h)
{
	size_t k;
	for (k = 0; k < 5; k++) {
		double v = val(pg, t, i, wf_cols[k]), len = v > 0 ? v * w : 0;
		if (!(len > 0))
			continue;
		sbuf_addf(&pg->b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>", x, y,
			  len, h, wf_colors[k]);
		add(pg, wf_names[k]);
		add(pg, ": ");
		shown(pg, v, F_PCT);
		add(pg, "</title></rect>");
		x += len;
	}
}

static void wf_legend(struct page *pg)
{
	size_t k;
	add(pg, "<p class=\"note\">");
	for (k = 0; k < 5; k++)
		sbuf_addf(&pg->b, "<span style=\"color:%s\">&#9632;</span> %s &nbsp; ", wf_colors[k], wf_names[k]);
	add(pg, "</p>\n");
}

/* Horizontal bars of column col of rows idx[0..n) of t, labelled by their
 * names (lab), scaled to the largest; the value as shown after each. */
static void hbars(struct page *pg, enum opmfu_sum_table t, const size_t *idx, size_t n, const char *lab,
		  const char *col, enum fmt f, const char *color)
{
	double top = 0, w = 560;
	size_t i, len;

	for (i = 0; i < n; i++) {
		double v = fabs(val(pg, t, idx[i], col));
		top = v > top ? v : top;
	}
	if (!n || !(top > 0))
		return;
	sbuf_addf(&pg->b, "<svg width=\"1000\" height=\"%zu\" role=\"img\">", 22 * n + 4);
	for (i = 0; i < n; i++) {
		double v = val(pg, t, idx[i], col), len_px = isnan(v) ? 0 : fabs(v) / top * w;
		const char *s = text(pg, t, idx[i], lab, &len);
		double y = 4 + 22.0 * (double)i;
		sbuf_addf(&pg->b, "<text x=\"4\" y=\"%.0f\">%zu. ", y + 14, i + 1);
		if (s)
			esc(pg, s, len, 48);
		sbuf_addf(&pg->b, "</text><rect x=\"380\" y=\"%.0f\" width=\"%.1f\" height=\"16\" fill=\"%s\"/>", y,
			  len_px, v < 0 ? "#2E7D32" : color);
		sbuf_addf(&pg->b, "<text x=\"%.1f\" y=\"%.0f\">", 384 + len_px, y + 13);
		shown(pg, v, f);
		add(pg, "</text>");
	}
	add(pg, "</svg>\n");
}

/* ---- sections ---- */

static const struct {
	const char *label, *col;
	enum fmt fmt;
	const char *id;
} run_keys[] = {
	{ "Run ID", "run_id", F_TEXT, NULL },
	{ "Source", "source", F_TEXT, NULL },
	{ "Chip", "chip", F_TEXT, NULL },
	{ "Peak (TFLOPS)", "peak_tflops", F_TFLOPS, "peak" },
	{ "Peak source", "peak_source", F_TEXT, NULL },
	{ "Peak memory bandwidth (TB/s)", "peak_bw_tbps", F_TFLOPS, NULL },
	{ "Ranks", "ranks", F_INT, NULL },
	{ "Ranks analysed", "ranks_analysed", F_INT, NULL },
	{ "Ranks failed", "ranks_failed", F_INT, NULL },
	{ "Median rank", "median_rank", F_INT, "median-rank" },
	{ "Median step", "median_step", F_INT, "median-step" },
	{ "Step time (ms)", "step_ns", F_MS, "step-time" },
	{ "Trace MFU", "trace_mfu", F_PCT, "trace-mfu" },
	{ "Busy MFU", "mfu_busy", F_PCT, NULL },
	{ "Recorded MFU", "mfu_recorded", F_PCT, NULL },
	{ "FLOPs coverage", "flops_coverage", F_PCT, NULL },
	{ "Step windows", "step_windows", F_TEXT, NULL },
	{ "Profiler step (ms)", "profiler_step_ns", F_MS, NULL },
	{ "Backlog (ms)", "backlog_ns", F_MS, NULL },
};

/* The median step's waterfall: the five parts, each with its parts. */
static const struct {
	const char *label, *col;
	int part;
} wf_rows[] = {
	{ "Trace MFU (useful math)", "trace_mfu", 0 },
	{ "FLOP kernels below peak", "share_inefficiency", 0 },
	{ "Busy without FLOPs", "share_other_compute", 0 },
	{ "GEMM/conv/attention, FLOPs unknown", "share_matmul_noflops", 1 },
	{ "Memory-bound, bytes known", "share_memory_bound", 1 },
	{ "&nbsp;&nbsp;at this share of the memory bandwidth", "memory_bound_eff", 2 },
	{ "Other kernels", "share_other_kernels", 1 },
	{ "Copies and memsets", "share_memcpy", 1 },
	{ "Exposed communication", "share_comm", 0 },
	{ "Waiting for other ranks", "share_comm_wait", 1 },
	{ "Idle", "share_idle", 0 },
	{ "Host late", "share_idle_host", 1 },
	{ "Other idle", "share_idle_device", 1 },
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static void run_section(struct page *pg)
{
	size_t k, n, len;
	const char *s, *kind;

	add(pg, "<section id=\"run\"><h2>The run</h2>\n");
	if (!opmfu_summary_rows(pg->s, OPMFU_SUM_RUN)) {
		add(pg, "<p id=\"no-run\">No OpmfuRun table: these results were written by an older opmfu. The run's "
			"median rank and step, its waterfall, hotspots and stragglers are not shown; analyse the traces "
			"again to get them.</p></section>\n");
		return;
	}
	add(pg, "<table id=\"run-table\"><tbody>\n");
	for (k = 0; k < N_OF(run_keys); k++) {
		double v = val(pg, OPMFU_SUM_RUN, 0, run_keys[k].col);
		add(pg, "<tr><th>");
		add(pg, run_keys[k].label);
		add(pg, "</th>");
		if (run_keys[k].fmt == F_TEXT) {
			s = text(pg, OPMFU_SUM_RUN, 0, run_keys[k].col, &len);
			text_td(pg, s, len, F_TEXT);
		} else {
			add(pg, "<td");
			if (run_keys[k].id)
				sbuf_addf(&pg->b, " id=\"%s\"", run_keys[k].id);
			data_v(pg, v);
			add(pg, ">");
			/* no step marks: the median step is the whole trace */
			if (!strcmp(run_keys[k].col, "median_step") && isnan(v) &&
			    !isnan(val(pg, OPMFU_SUM_RUN, 0, "median_rank")))
				add(pg, "the whole trace");
			else
				shown(pg, v, run_keys[k].fmt);
			add(pg, "</td>");
		}
		add(pg, "</tr>\n");
	}
	add(pg, "</tbody></table>\n");
	/* the first hotspot of all: most recoverable time */
	if (opmfu_summary_rows(pg->s, OPMFU_SUM_HOTSPOTS)) {
		add(pg, "<p>Top hotspot: <span id=\"top-hotspot\"");
		data_v(pg, val(pg, OPMFU_SUM_HOTSPOTS, 0, "recoverable_ns"));
		add(pg, " data-kind=\"");
		if ((s = text(pg, OPMFU_SUM_HOTSPOTS, 0, "kind", &len)))
			esc(pg, s, len, 0);
		add(pg, "\"><b class=\"name\">");
		if ((s = text(pg, OPMFU_SUM_HOTSPOTS, 0, "name", &len)))
			esc(pg, s, len, OPMFU_HTML_NAME_MAX);
		add(pg, "</b> (");
		kind = text(pg, OPMFU_SUM_HOTSPOTS, 0, "kind", &n);
		esc(pg, kind, n, 0);
		add(pg, "), ");
		shown(pg, val(pg, OPMFU_SUM_HOTSPOTS, 0, "recoverable_ns"), F_MS);
		add(pg, " ms recoverable</span></p>\n");
	}
	add(pg, "<h3>Where the median step went</h3>\n<svg width=\"1000\" height=\"40\" role=\"img\">");
	wf_bar(pg, OPMFU_SUM_RUN, 0, 0, 4, 1000, 32);
	add(pg, "</svg>\n");
	wf_legend(pg);
	add(pg, "<table id=\"waterfall\"><thead><tr><th>Part of the step time</th><th>Share</th></tr></thead><tbody>\n");
	for (k = 0; k < N_OF(wf_rows); k++) {
		double v = val(pg, OPMFU_SUM_RUN, 0, wf_rows[k].col);
		/* the waiting is known from the trace's tasks or other ranks only */
		if (isnan(v) && wf_rows[k].part)
			continue;
		sbuf_addf(&pg->b, "<tr><td class=\"t\" style=\"padding-left:%dpx\">%s</td>", 6 + 16 * wf_rows[k].part,
			  wf_rows[k].label);
		num_td(pg, v, F_PCT);
		add(pg, "</tr>\n");
	}
	add(pg, "</tbody></table></section>\n");
}

static const char *const role_names[] = { "", "median", "best", "worst", "slow" };

static const struct col rank_cols[] = {
	{ "Rank", "rank_id", F_INT },
	{ "Status", "status", F_TEXT },
	{ "Steps", "steps", F_INT },
	{ "Median step", "median_step", F_INT },
	{ "Step time (ms)", "step_ns_median", F_MS },
	{ "Trace MFU", "trace_mfu", F_PCT },
	{ "FLOP kernels below peak", "share_inefficiency", F_PCT },
	{ "Busy without FLOPs", "share_other_compute", F_PCT },
	{ "Exposed communication", "share_comm", F_PCT },
	{ "Idle", "share_idle", F_PCT },
	{ "Busy MFU", "mfu_busy", F_PCT },
	{ "FLOPs coverage", "flops_coverage", F_PCT },
	{ "Peak (TFLOPS)", "peak_tflops", F_TFLOPS },
};

static void ranks_section(struct page *pg)
{
	const struct opmfu_cell_store *cs = &pg->s->t[OPMFU_SUM_RANKS];
	struct opmfu_rank_shown sh[OPMFU_RANKS_SHOWN_MAX];
	double analysed = val(pg, OPMFU_SUM_RUN, 0, "ranks_analysed"), med = val(pg, OPMFU_SUM_RUN, 0, "trace_mfu");
	double top = med > 0 ? med : 0, w = 620;
	size_t n, i, rows = opmfu_summary_rows(pg->s, OPMFU_SUM_RANKS);

	if (!rows)
		return;
	n = opmfu_ranks_shown(cs->def, cs->cells, rows, isnan(analysed) ? rows : (size_t)analysed,
			      val(pg, OPMFU_SUM_RUN, 0, "median_rank"), sh);
	add(pg, "<section id=\"ranks\"><h2>Ranks</h2>\n<p class=\"note\">");
	if (!isnan(analysed) && analysed > OPMFU_FEW_RANKS)
		sbuf_addf(&pg->b,
			  "%.0f ranks analysed: shown are the median rank, the best and the worst trace MFU and the %d "
			  "slowest median steps (the terminal report's rule); every rank is in OpmfuRankSummary.",
			  analysed, OPMFU_SLOW_RANKS);
	else
		add(pg, "Every rank analysed, each at its median step.");
	add(pg, "</p>\n<h3>Where each rank's median step went</h3>\n");
	sbuf_addf(&pg->b, "<svg width=\"1000\" height=\"%zu\" role=\"img\">", 24 * n + 4);
	for (i = 0; i < n; i++) {
		sbuf_addf(&pg->b, "<text x=\"4\" y=\"%zu\">%s rank %.0f</text>", 24 * i + 18, role_names[sh[i].role],
			  val(pg, OPMFU_SUM_RANKS, sh[i].row, "rank_id"));
		wf_bar(pg, OPMFU_SUM_RANKS, sh[i].row, 150, 4 + 24.0 * (double)i, 800, 18);
	}
	add(pg, "</svg>\n");
	wf_legend(pg);
	/* trace MFU against the median rank's (OpmfuRun.trace_mfu): a line at it */
	for (i = 0; i < n; i++) {
		double v = val(pg, OPMFU_SUM_RANKS, sh[i].row, "trace_mfu");
		top = v > top ? v : top;
	}
	if (top > 0 && !isnan(med)) {
		add(pg, "<h3>Trace MFU per rank against the median rank's (");
		shown(pg, med, F_PCT);
		add(pg, ")</h3>\n");
		sbuf_addf(&pg->b, "<svg width=\"1000\" height=\"%zu\" role=\"img\" id=\"mfu-chart\">", 24 * n + 8);
		for (i = 0; i < n; i++) {
			double v = val(pg, OPMFU_SUM_RANKS, sh[i].row, "trace_mfu"), len = v > 0 ? v / top * w : 0;
			sbuf_addf(&pg->b, "<text x=\"4\" y=\"%zu\">%s rank %.0f</text>", 24 * i + 18,
				  role_names[sh[i].role], val(pg, OPMFU_SUM_RANKS, sh[i].row, "rank_id"));
			sbuf_addf(&pg->b, "<rect x=\"150\" y=\"%zu\" width=\"%.1f\" height=\"18\" fill=\"%s\"/>",
				  24 * i + 4, len, v < med ? "#E57373" : "#2E7D32");
			sbuf_addf(&pg->b, "<text x=\"%.1f\" y=\"%zu\">", 156 + len, 24 * i + 17);
			shown(pg, v, F_PCT);
			add(pg, "</text>");
		}
		sbuf_addf(&pg->b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"%zu\" stroke=\"#000\" "
				  "stroke-dasharray=\"4 3\"/></svg>\n",
			  150 + med / top * w, 150 + med / top * w, 24 * n + 8);
	}
	/* why each row is there, when not every rank is */
	thead(pg, "ranks-table", rank_cols, N_OF(rank_cols), 0, n && sh[0].role != OPMFU_ROLE_RANK ? "Shown as" : NULL);
	for (i = 0; i < n; i++) {
		add(pg, "<tr>");
		cells(pg, OPMFU_SUM_RANKS, sh[i].row, rank_cols, N_OF(rank_cols));
		if (sh[i].role != OPMFU_ROLE_RANK)
			sbuf_addf(&pg->b, "<td class=\"t\" data-v=\"%s\">%s</td>", role_names[sh[i].role],
				  role_names[sh[i].role]);
		add(pg, "</tr>\n");
	}
	add(pg, "</tbody></table></section>\n");
}

#define HOT_COLS                                                                                                \
	{ "Ranks", "ranks", F_INT }, { "Calls", "calls", F_INT }, { "Kernel time (ms)", "kernel_ns", F_MS },   \
		{ "Recoverable time (ms)", "recoverable_ns", F_MS }, { "Lost time (ms)", "lost_ns", F_MS },      \
		{ "% of step", "pct_of_step", F_PCT }, { "MFU", "mfu", F_PCT },                                  \
		{ "Roofline efficiency", "roofline_eff", F_PCT }
static const struct col class_cols[] = { { "Module class", "name", F_TEXT }, HOT_COLS };
static const struct col module_cols[] = { { "Module", "name", F_TEXT }, HOT_COLS };
static const struct col op_cols[] = { { "Op", "name", F_TEXT }, HOT_COLS };
static const struct col shape_cols[] = {
	{ "Op and shapes", "name", F_TEXT }, HOT_COLS, { "Achieved TFLOPS", "achieved_tflops", F_TFLOPS },
	{ "FLOPs per byte", "intensity", F_NUM },
};
static const struct col kernel_cols[] = { { "Kernel", "name", F_KERNEL }, HOT_COLS };
static const struct col coll_cols[] = {
	{ "Collective", "name", F_TEXT },     { "Ranks", "ranks", F_INT },
	{ "Calls", "calls", F_INT },	      { "Time (ms)", "kernel_ns", F_MS },
	{ "Exposed time (ms)", "recoverable_ns", F_MS }, { "% of step", "pct_of_step", F_PCT },
};

static const struct {
	const char *kind, *title, *id;
	const struct col *cols;
	size_t n_cols;
	int chart; /* bars of recoverable time */
} hot_kinds[] = {
	{ "module_class", "By module class", "hot-module-class", class_cols, N_OF(class_cols), 1 },
	{ "op_type", "By op type", "hot-op-type", op_cols, N_OF(op_cols), 1 },
	{ "shape", "By op and shape", "hot-shape", shape_cols, N_OF(shape_cols), 1 },
	{ "module", "By module path (its own ops)", "hot-module", module_cols, N_OF(module_cols), 0 },
	{ "kernel", "By kernel", "hot-kernel", kernel_cols, N_OF(kernel_cols), 0 },
};

/* Rows idx[0..n) of OpmfuHotspots as a numbered sortable table. */
static void hot_table(struct page *pg, const char *id, const struct col *c, size_t n_cols, const size_t *idx, size_t n)
{
	size_t i;
	thead(pg, id, c, n_cols, 1, NULL);
	for (i = 0; i < n; i++) {
		sbuf_addf(&pg->b, "<tr><td data-v=\"%zu\">%zu</td>", i + 1, i + 1);
		cells(pg, OPMFU_SUM_HOTSPOTS, idx[i], c, n_cols);
		add(pg, "</tr>\n");
	}
	add(pg, "</tbody></table>\n");
}

static void shown_of(struct page *pg, size_t n, size_t all)
{
	sbuf_addf(&pg->b, "<p class=\"note\">%zu of %zu rows, most recoverable time first%s.</p>\n", n, all,
		  n < all ? " (OpmfuHotspots has them all)" : "");
}

static void hot_section(struct page *pg)
{
	size_t idx[OPMFU_HTML_TOP], k, n, all;

	if (!opmfu_summary_rows(pg->s, OPMFU_SUM_HOTSPOTS))
		return;
	add(pg, "<section id=\"hotspots\"><h2>Hotspots by recoverable time</h2>\n");
	for (k = 0; k < N_OF(hot_kinds); k++) {
		n = rows_of(pg, OPMFU_SUM_HOTSPOTS, "kind", hot_kinds[k].kind, idx, OPMFU_HTML_TOP, &all);
		if (!n)
			continue;
		sbuf_addf(&pg->b, "<h3>%s</h3>\n", hot_kinds[k].title);
		if (hot_kinds[k].chart)
			hbars(pg, OPMFU_SUM_HOTSPOTS, idx, n < OPMFU_HTML_BARS ? n : OPMFU_HTML_BARS, "name",
			      "recoverable_ns", F_MS, "#C0504D");
		shown_of(pg, n, all);
		hot_table(pg, hot_kinds[k].id, hot_kinds[k].cols, hot_kinds[k].n_cols, idx, n);
	}
	add(pg, "</section>\n");
}

/* A log10 axis position: v in [lo, hi] onto [a, b]. */
static double lpos(double v, double lo, double hi, double a, double b)
{
	return a + (log10(v) - log10(lo)) / (log10(hi) - log10(lo)) * (b - a);
}

/*
 * The roofline: achieved TFLOPS against FLOPs per byte, both log10, a point
 * per shape row among the first OPMFU_HTML_TOP (numbered as the shapes
 * table), the roof min(x × bandwidth, peak) from OpmfuRun's peak and the
 * median rank's bandwidth (opmfu_summary_run_bw). Axes span whole decades
 * around the points and the ridge.
 */
static void roof_section(struct page *pg)
{
	size_t idx[OPMFU_HTML_TOP], n, all, i, points = 0;
	double peak = val(pg, OPMFU_SUM_RUN, 0, "peak_tflops"), bw = opmfu_summary_run_bw(pg->s);
	double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0, ridge, X0 = 70, X1 = 960, Y0 = 440, Y1 = 20, d;

	n = rows_of(pg, OPMFU_SUM_HOTSPOTS, "kind", "shape", idx, OPMFU_HTML_TOP, &all);
	if (!(peak > 0) || !(bw > 0))
		return;
	for (i = 0; i < n; i++) {
		double y = val(pg, OPMFU_SUM_HOTSPOTS, idx[i], "achieved_tflops"),
		       x = val(pg, OPMFU_SUM_HOTSPOTS, idx[i], "intensity");
		if (!(x > 0) || !(y > 0))
			continue;
		points++;
		xlo = x < xlo ? x : xlo, xhi = x > xhi ? x : xhi;
		ylo = y < ylo ? y : ylo, yhi = y > yhi ? y : yhi;
	}
	if (!points)
		return;
	ridge = peak / bw;
	xlo = pow(10, floor(log10(ridge < xlo ? ridge : xlo)));
	xhi = pow(10, ceil(log10(ridge > xhi ? ridge : xhi)));
	xhi = xhi > xlo ? xhi : xlo * 10;
	ylo = pow(10, floor(log10(xlo * bw < ylo ? xlo * bw : ylo)));
	yhi = pow(10, ceil(log10(peak > yhi ? peak : yhi)));
	yhi = yhi > ylo ? yhi : ylo * 10;
	add(pg, "<section id=\"roofline\"><h2>Roofline</h2>\n<p class=\"note\">Achieved TFLOPS against FLOPs per "
		"byte of the op shapes with both (numbered as in the shapes table), both on log scales; the roof is "
		"the chip's peak (");
	shown(pg, peak, F_TFLOPS);
	add(pg, " TFLOPS) and its memory bandwidth (");
	shown(pg, bw, F_TFLOPS);
	add(pg, " TB/s).</p>\n<svg width=\"1000\" height=\"480\" role=\"img\" id=\"roofline-chart\">");
	sbuf_addf(&pg->b, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#999\"/>",
		  X0, Y1, X1 - X0, Y0 - Y1);
	for (d = xlo; d <= xhi * 1.0001; d *= 10) {
		double x = lpos(d, xlo, xhi, X0, X1);
		sbuf_addf(&pg->b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"#eee\"/>"
				  "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%g</text>",
			  x, x, Y1, Y0, x, Y0 + 16, d);
	}
	for (d = ylo; d <= yhi * 1.0001; d *= 10) {
		double y = lpos(d, ylo, yhi, Y0, Y1);
		sbuf_addf(&pg->b, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>"
				  "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%g</text>",
			  X0, X1, y, y, X0 - 4, y + 4, d);
	}
	sbuf_addf(&pg->b, "<text x=\"%.0f\" y=\"474\" text-anchor=\"middle\">FLOPs per byte</text>"
			  "<text x=\"14\" y=\"%.0f\" transform=\"rotate(-90 14 %.0f)\" text-anchor=\"middle\">TFLOPS</text>",
		  (X0 + X1) / 2, (Y0 + Y1) / 2, (Y0 + Y1) / 2);
	/* the roof: bandwidth up to the ridge, then the peak */
	sbuf_addf(&pg->b, "<polyline fill=\"none\" stroke=\"#C0504D\" stroke-width=\"2\" points=\"%.1f,%.1f %.1f,%.1f "
			  "%.1f,%.1f\"><title>roof</title></polyline>",
		  X0, lpos(xlo * bw, ylo, yhi, Y0, Y1), lpos(ridge, xlo, xhi, X0, X1), lpos(peak, ylo, yhi, Y0, Y1), X1,
		  lpos(peak, ylo, yhi, Y0, Y1));
	for (i = 0; i < n; i++) {
		double yv = val(pg, OPMFU_SUM_HOTSPOTS, idx[i], "achieved_tflops"),
		       xv = val(pg, OPMFU_SUM_HOTSPOTS, idx[i], "intensity"), x, y;
		size_t len;
		const char *s = text(pg, OPMFU_SUM_HOTSPOTS, idx[i], "name", &len);
		if (!(xv > 0) || !(yv > 0))
			continue;
		x = lpos(xv, xlo, xhi, X0, X1);
		y = lpos(yv, ylo, yhi, Y0, Y1);
		sbuf_addf(&pg->b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"#1F77B4\"><title>%zu. ", x, y, i + 1);
		if (s)
			esc(pg, s, len, OPMFU_HTML_NAME_MAX);
		add(pg, ": ");
		shown(pg, yv, F_TFLOPS);
		add(pg, " TFLOPS, ");
		shown(pg, xv, F_NUM);
		sbuf_addf(&pg->b, " FLOPs/byte</title></circle><text x=\"%.1f\" y=\"%.1f\">%zu</text>", x + 7, y - 5,
			  i + 1);
	}
	add(pg, "</svg></section>\n");
}

static void straggler_rows(struct page *pg, int culprits_only)
{
	size_t i, len, n = opmfu_summary_rows(pg->s, OPMFU_SUM_STRAGGLERS);
	for (i = 0; i < n; i++) {
		const char *m = text(pg, OPMFU_SUM_STRAGGLERS, i, "measure", &len), *label, *cul;
		size_t cn;
		int ns;
		cul = text(pg, OPMFU_SUM_STRAGGLERS, i, "culprit_of", &cn);
		if (culprits_only && !cul)
			continue;
		/* a time in ms, a ratio in %, each change signed */
		label = opmfu_summary_measure(m, len, &ns);
		add(pg, "<tr>");
		if (label)
			sbuf_addf(&pg->b, "<td class=\"t\" data-v=\"%s\">%s</td>", label, label);
		else
			text_td(pg, m, len, F_TEXT);
		num_td(pg, val(pg, OPMFU_SUM_STRAGGLERS, i, "rank_id"), F_INT);
		num_td(pg, val(pg, OPMFU_SUM_STRAGGLERS, i, "value"), ns ? F_MS : F_PCT);
		num_td(pg, val(pg, OPMFU_SUM_STRAGGLERS, i, "median"), ns ? F_MS : F_PCT);
		num_td(pg, val(pg, OPMFU_SUM_STRAGGLERS, i, "delta"), ns ? F_DMS : F_DPCT);
		text_td(pg, cul, cn, F_TEXT);
		add(pg, "</tr>\n");
	}
}

static const struct col straggler_cols[] = {
	{ "Straggler", "measure", F_TEXT }, { "Rank", "rank_id", F_INT },     { "Value", "value", F_NUM },
	{ "Median rank's value", "median", F_NUM }, { "Difference", "delta", F_NUM }, { "Waiting for", "culprit_of", F_TEXT },
};

static void coll_section(struct page *pg)
{
	size_t idx[OPMFU_HTML_TOP], n, all, i, len, culprits = 0;
	double comm = val(pg, OPMFU_SUM_RUN, 0, "share_comm"), wait = val(pg, OPMFU_SUM_RUN, 0, "share_comm_wait");

	n = rows_of(pg, OPMFU_SUM_HOTSPOTS, "kind", "collective", idx, OPMFU_HTML_TOP, &all);
	for (i = 0; i < opmfu_summary_rows(pg->s, OPMFU_SUM_STRAGGLERS); i++)
		culprits += text(pg, OPMFU_SUM_STRAGGLERS, i, "culprit_of", &len) != NULL;
	if (!n && !culprits && isnan(wait))
		return;
	add(pg, "<section id=\"collectives\"><h2>Collectives and waiting</h2>\n<p>Exposed communication: ");
	shown(pg, comm, F_PCT);
	add(pg, " of the median step; waiting for other ranks: <span id=\"comm-wait\"");
	data_v(pg, wait);
	add(pg, ">");
	shown(pg, wait, F_PCT);
	add(pg, "</span>.</p>\n");
	if (culprits) {
		add(pg, "<h3>The rank the others waited for</h3>\n");
		thead(pg, "culprits", straggler_cols, N_OF(straggler_cols), 0, NULL);
		straggler_rows(pg, 1);
		add(pg, "</tbody></table>\n");
	}
	if (n) {
		hbars(pg, OPMFU_SUM_HOTSPOTS, idx, n < OPMFU_HTML_BARS ? n : OPMFU_HTML_BARS, "name", "recoverable_ns",
		      F_MS, "#1F77B4");
		sbuf_addf(&pg->b, "<p class=\"note\">%zu of %zu collectives, most exposed time first.</p>\n", n, all);
		hot_table(pg, "hot-collective", coll_cols, N_OF(coll_cols), idx, n);
	}
	add(pg, "</section>\n");
}

static void straggler_section(struct page *pg)
{
	if (!opmfu_summary_rows(pg->s, OPMFU_SUM_STRAGGLERS))
		return;
	add(pg, "<section id=\"stragglers\"><h2>Stragglers, against the median rank</h2>\n");
	thead(pg, "stragglers-table", straggler_cols, N_OF(straggler_cols), 0, NULL);
	straggler_rows(pg, 0);
	add(pg, "</tbody></table></section>\n");
}

static const struct col model_cols[] = {
	{ "Convention", "convention", F_TEXT },
	{ "Model FLOPs per step", "model_flops_per_step", F_NUM },
	{ "Model FLOPs per device", "model_flops_per_device", F_NUM },
	{ "Step time (ms)", "step_ns", F_MS },
	{ "Model MFU", "model_mfu", F_PCT },
	{ "Trace FLOPs", "trace_flops", F_NUM },
	{ "Coverage", "coverage", F_PCT },
	{ "Peak (TFLOPS)", "peak_tflops", F_TFLOPS },
	{ "Note", "note", F_TEXT },
};

static void model_section(struct page *pg)
{
	size_t n = opmfu_summary_rows(pg->s, OPMFU_SUM_MODEL);
	if (!n)
		return;
	add(pg, "<section id=\"model\"><h2>Model MFU (the median rank's median step)</h2>\n");
	rows_table(pg, "model-table", OPMFU_SUM_MODEL, model_cols, N_OF(model_cols), NULL, n);
	add(pg, "</section>\n");
}

static const struct col diff_cols[] = {
	{ "Name", "name", F_TEXT },
	{ "BASE time (ms)", "base_kernel_ns", F_MS },
	{ "NEW time (ms)", "new_kernel_ns", F_MS },
	{ "BASE MFU or share", "base_mfu", F_PCT },
	{ "NEW MFU or share", "new_mfu", F_PCT },
	{ "BASE lost (ms)", "base_lost_ns", F_MS },
	{ "NEW lost (ms)", "new_lost_ns", F_MS },
	{ "Change in lost time (ms)", "delta_lost_ns", F_DMS },
};

static const struct {
	const char *kind, *title;
} diff_kinds[] = {
	{ "step_share", "Where the steps went" },
	{ "module", "Module paths (their own ops)" },
	{ "op_type", "Op types" },
	{ "collective", "Collectives" },
	{ "model", "Model MFU" },
	{ "rank", "Ranks on one side only" },
};

static void diff_section(struct page *pg)
{
	size_t idx[OPMFU_HTML_TOP], k, n, all;

	if (!pg->s->t[OPMFU_SUM_DIFF].def)
		return;
	add(pg, "<section id=\"diff\"><h2>Diff: NEW against BASE</h2>\n<p class=\"note\">Times are sums over the "
		"ranks analysed on both sides and their steps; a negative change in lost time is time won back. "
		"Below the diff, NEW's own report.</p>\n");
	for (k = 0; k < N_OF(diff_kinds); k++) {
		char id[32];
		n = rows_of(pg, OPMFU_SUM_DIFF, "kind", diff_kinds[k].kind, idx, OPMFU_HTML_TOP, &all);
		if (!n)
			continue;
		sbuf_addf(&pg->b, "<h3>%s</h3>\n", diff_kinds[k].title);
		if (k == 1 || k == 2)
			hbars(pg, OPMFU_SUM_DIFF, idx, n < OPMFU_HTML_BARS ? n : OPMFU_HTML_BARS, "name", "delta_lost_ns",
			      F_DMS, "#C0504D");
		if (all > n)
			sbuf_addf(&pg->b, "<p class=\"note\">%zu of %zu rows, the table's first (OpmfuDiff has them "
					  "all).</p>\n",
				  n, all);
		snprintf(id, sizeof(id), "diff-%s", diff_kinds[k].kind);
		rows_table(pg, id, OPMFU_SUM_DIFF, diff_cols, N_OF(diff_cols), idx, n);
	}
	add(pg, "</section>\n");
}

/* Every term the page shows, in a sentence (docs/glossary.md has them in full). */
static const char *const glossary[][2] = {
	{ "Step, step time", "One step mark of the trace; its step time is its window on the device timeline, "
			     "from the first to the last device work the step launched." },
	{ "Median step", "Of a rank's steps with device activity, ordered by step time: the lower middle one, an "
			 "actual step." },
	{ "Median rank", "Of the ranks analysed, ordered by their median step's time, then rank id: the lower "
			 "middle one. The run's step time, trace MFU and waterfall are its median step's." },
	{ "Peak", "The chip's dense peak FLOPS for the dtype class, from --peak, --chip or the trace." },
	{ "Trace MFU", "A step's FLOPs / (step time × peak): the useful math of the step." },
	{ "Busy MFU", "A rank's FLOPs over all its compute kernel time × peak." },
	{ "Recorded MFU", "Over a rank's ops with FLOPs and a peak: FLOPs / (their kernel time × peak)." },
	{ "FLOPs coverage", "The share of a rank's compute kernel time whose FLOPs are known." },
	{ "FLOP kernels below peak", "The FLOP-bearing kernels' share of the step time minus the trace MFU." },
	{ "Busy without FLOPs", "The device busy with work without FLOPs (GEMM-like kernels whose FLOPs are unknown, "
				"memory-bound kernels, other kernels, copies and memsets)." },
	{ "Exposed communication", "Communication under no compute; waiting for other ranks is the part of it "
				   "spent waiting for a late rank." },
	{ "Idle", "Nothing ran on the device: host late (the work that ended the gap was launched after it began) "
		  "or other idle." },
	{ "Lost time", "Kernel time beyond what the FLOPs need at peak; all of it without FLOPs or a peak." },
	{ "Recoverable time", "Kernel time minus the roofline time max(FLOPs / peak, bytes / bandwidth), at least "
			      "0; hotspots are ordered by it." },
	{ "Roofline efficiency", "Roofline time / kernel time over the units that have a roofline." },
	{ "% of step", "A hotspot's kernel time per step as a share of the run's step time; rows overlap, so they "
		       "do not add up." },
	{ "Module class", "A module path's last name without its instance number: every instance together, "
			  "inclusive of what is under it." },
	{ "Shape", "An op name with its input shapes and dtypes as the trace has them." },
	{ "Achieved TFLOPS, FLOPs per byte", "A shape's FLOPs over its kernel time, and over the bytes it moves: "
					     "its place on the roofline." },
	{ "Roof, ridge point", "min(FLOPs per byte × memory bandwidth, peak); the ridge is where the two meet, "
			       "peak / bandwidth FLOPs per byte." },
	{ "Collective, exposed time", "A collective's kind and group; its exposed time is its time under no "
				      "compute, summed over the ranks." },
	{ "Straggler", "Per measure, the rank furthest from the median rank on the measure's bad side." },
	{ "Waiting for", "The rank the others waited for at collectives, and how long." },
	{ "Model MFU, coverage", "The model's FLOPs per device under a convention / (step time × peak); coverage "
				 "is the trace's FLOPs over the model's." },
	{ "Diff", "NEW against BASE over the ranks both analysed: times summed, MFU and shares as ratios of sums." },
};

static void glossary_section(struct page *pg)
{
	size_t k;
	add(pg, "<section id=\"glossary\"><h2>Glossary</h2>\n<dl>\n");
	for (k = 0; k < N_OF(glossary); k++)
		sbuf_addf(&pg->b, "<dt>%s</dt><dd>%s</dd>\n", glossary[k][0], glossary[k][1]);
	add(pg, "</dl></section>\n");
}

void opmfu_summary_html_render(const struct opmfu_summary *s, struct sbuf *out, struct opmfu_write_stats *st)
{
	struct page pg;
	size_t len;
	const char *id = opmfu_sum_text(s, OPMFU_SUM_RUN, 0, "run_id", &len);

	pg.s = s;
	pg.st = st;
	pg.b = *out;
	add(&pg, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		 "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
		 "script-src '" SORT_JS_SHA256 "'; img-src 'none'; connect-src 'none'; base-uri 'none'; "
		 "form-action 'none'\">\n"
		 "<meta name=\"viewport\" content=\"width=device-width\">\n<title>opmfu report");
	if (id) {
		add(&pg, ": ");
		esc(&pg, id, len, OPMFU_HTML_NAME_MAX);
	}
	add(&pg, "</title>\n<style>" CSS "</style></head>\n<body>\n<h1>opmfu report");
	if (id) {
		add(&pg, ": ");
		esc(&pg, id, len, OPMFU_HTML_NAME_MAX);
	}
	add(&pg, "</h1>\n<nav>");
	if (s->t[OPMFU_SUM_DIFF].def)
		add(&pg, "<a href=\"#diff\">Diff</a>");
	add(&pg, "<a href=\"#run\">Run</a><a href=\"#ranks\">Ranks</a><a href=\"#hotspots\">Hotspots</a>"
		 "<a href=\"#roofline\">Roofline</a><a href=\"#collectives\">Collectives</a>"
		 "<a href=\"#stragglers\">Stragglers</a><a href=\"#model\">Model</a><a href=\"#glossary\">Glossary</a>"
		 "</nav>\n<p class=\"note\">Every number is a cell of opmfu's result tables (docs/output-schema.md); "
		 "click a column's header to sort.</p>\n");
	diff_section(&pg);
	if (opmfu_summary_has_run(s))
		run_section(&pg);
	ranks_section(&pg);
	hot_section(&pg);
	roof_section(&pg);
	coll_section(&pg);
	straggler_section(&pg);
	model_section(&pg);
	glossary_section(&pg);
	add(&pg, "<script>" SORT_JS "</script>\n</body></html>\n");
	*out = pg.b;
}

/* s's page into a staged file beside path (*tmp). */
static enum opmfu_status stage(const struct opmfu_summary *s, const char *path, char **tmp,
			       struct opmfu_write_stats *st, struct opmfu_err *err)
{
	struct sbuf b;
	enum opmfu_status e = OPMFU_OK;
	const char *p;
	size_t left;
	int fd = -1;

	sbuf_init(&b);
	opmfu_summary_html_render(s, &b, st);
	if (b.oom) {
		sbuf_release(&b);
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory", path);
	}
	if ((e = opmfu_stage_file(path, tmp, &fd, err))) {
		sbuf_release(&b);
		return e;
	}
	for (p = b.buf, left = b.len; left > 0;) {
		ssize_t k = write(fd, p, left);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			e = opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot write: %s", path,
					  strerror(k < 0 ? errno : ENOSPC));
			break;
		}
		p += k;
		left -= (size_t)k;
	}
	if (e == OPMFU_OK && fsync(fd) != 0)
		e = opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
	if (close(fd) != 0 && e == OPMFU_OK)
		e = opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
	if (e) {
		opmfu_stage_discard(*tmp);
		opmfu_free(*tmp);
		*tmp = NULL;
	}
	sbuf_release(&b);
	return e;
}

enum opmfu_status opmfu_summary_html_save(const struct opmfu_summary *s, const char *path,
					  struct opmfu_write_stats *st, struct opmfu_err *err)
{
	char *tmp = NULL;
	enum opmfu_status e = stage(s, path, &tmp, st, err);

	if (e == OPMFU_OK && opmfu_stage_rename(tmp, path) != 0) {
		e = opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot replace it: %s", path, strerror(errno));
		opmfu_stage_discard(tmp);
	}
	opmfu_free(tmp);
	return e;
}
