/*
 * t_summary_html.c - opmfu_report.html (write/summary_html.h, SPEC 23) from
 * hand-built OpmfuRun, OpmfuRankSummary, OpmfuHotspots and OpmfuModel rows:
 * a name's escaping, repair and cut; NULL as "-" and data-v=""; the ranks a
 * view of 12 ranks shows (derived below); the top 20 of 25 op types; the
 * model's run rows only; the writer's kept and dropped ranks and a commit
 * with nothing given; every allocation failing in turn.
 * argv: a scratch directory.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/mem.h"
#include "base/sbuf.h"
#include "check.h"
#include "opmfu.h"
#include "trace/table.h"
#include "write/summary_html.h"
#include "write/writer.h"

static const struct opmfu_column run_cols[] = {
	{ "run_id", OPMFU_COL_TEXT, NULL, 0, 0 },	  { "ranks_analysed", OPMFU_COL_INT, NULL, 0, 0 },
	{ "median_rank", OPMFU_COL_INT, NULL, 0, 0 },	  { "median_step", OPMFU_COL_INT, NULL, 0, 0 },
	{ "step_ns", OPMFU_COL_INT, NULL, 0, 0 },	  { "trace_mfu", OPMFU_COL_REAL, NULL, 0, 0 },
};
static const struct opmfu_table_def run_def = { "OpmfuRun", run_cols, 6, NULL, 0, NULL };
static const struct opmfu_column rank_cols[] = {
	{ "rank_id", OPMFU_COL_INT, NULL, 0, 0 },
	{ "status", OPMFU_COL_TEXT, NULL, 0, 0 },
	{ "step_ns_median", OPMFU_COL_INT, NULL, 0, 0 },
	{ "trace_mfu", OPMFU_COL_REAL, NULL, 0, 0 },
};
static const struct opmfu_table_def rank_def = { "OpmfuRankSummary", rank_cols, 4, NULL, 0, NULL };
static const struct opmfu_column hot_cols[] = {
	{ "kind", OPMFU_COL_TEXT, NULL, 0, 0 },
	{ "name", OPMFU_COL_TEXT, NULL, 0, 0 },
	{ "recoverable_ns", OPMFU_COL_INT, NULL, 0, 0 },
};
static const struct opmfu_table_def hot_def = { "OpmfuHotspots", hot_cols, 3, NULL, 0, NULL };
static const struct opmfu_column model_cols[] = {
	{ "rank_id", OPMFU_COL_INT, NULL, 0, 0 },
	{ "convention", OPMFU_COL_TEXT, NULL, 0, 0 },
	{ "model_mfu", OPMFU_COL_REAL, NULL, 0, 0 },
};
static const struct opmfu_table_def model_def = { "OpmfuModel", model_cols, 3, NULL, 0, NULL };

#define I(v) opmfu_cell_int(v)
#define R(v) opmfu_cell_real(v)
#define S(v) opmfu_cell_str(v)
#define N opmfu_cell_null()

static char dir[4096];

static void add(struct opmfu_cell_store *cs, const struct opmfu_cell *row)
{
	struct opmfu_err e = OPMFU_ERR_INIT;
	CHECK_INT(opmfu_cell_store_add(cs, row, &e), OPMFU_OK);
}

/* The hostile name: markup, both quotes, an ampersand, a control byte and a
 * byte that is no UTF-8; shown as the escaped text with two U+FFFD. */
static const char hostile[] = "a<b>&\"'\x01\xff";
static const char hostile_shown[] = "a&lt;b&gt;&amp;&quot;&#39;\xEF\xBF\xBD\xEF\xBF\xBD";

struct stores {
	struct opmfu_cell_store run, rank, hot, model;
};

/*
 * 12 ranks, id i: step_ns_median 1000 + 10 i except rank 3 (5000) and
 * rank 7 (4000); trace_mfu 0.30 + 0.01 i except rank 5 (0.90) and rank 9
 * (0.05); rank 11 failed. Analysed: 11 > 8, so the median rank (6, as
 * OpmfuRun says), the best (5: 0.90), the worst (9: 0.05) and the 5 slowest
 * of the analysed (rank 11's 1110 is a failed rank's): 3 (5000), 7 (4000),
 * 10 (1100), 9 (1090), 8 (1080); the worst may be a slow one too.
 */
static void fill(struct stores *st)
{
	struct opmfu_cell row[6];
	char name[400];
	int i;

	opmfu_cell_store_init(&st->run, &run_def);
	opmfu_cell_store_init(&st->rank, &rank_def);
	opmfu_cell_store_init(&st->hot, &hot_def);
	opmfu_cell_store_init(&st->model, &model_def);
	row[0] = S("job-1");
	row[1] = I(11);
	row[2] = I(6);
	row[3] = N; /* no step marks: the whole trace */
	row[4] = I(1060);
	row[5] = R(0.36);
	add(&st->run, row);
	for (i = 0; i < 12; i++) {
		row[0] = I(i);
		row[1] = S(i == 11 ? "failed" : "ok");
		row[2] = I(i == 3 ? 5000 : i == 7 ? 4000 : 1000 + 10 * i);
		row[3] = i == 11 ? N : R(i == 5 ? 0.90 : i == 9 ? 0.05 : 0.30 + 0.01 * i);
		add(&st->rank, row);
	}
	/* the first row: the top hotspot */
	row[0] = S("op_type");
	row[1] = opmfu_cell_text(hostile, sizeof(hostile) - 1);
	row[2] = I(9000);
	add(&st->hot, row);
	for (i = 0; i < 24; i++) {
		snprintf(name, sizeof(name), "op%02d", i);
		row[1] = S(name);
		row[2] = I(8000 - i);
		add(&st->hot, row);
	}
	memset(name, 'x', 399);
	name[399] = '\0';
	row[0] = S("kernel");
	row[1] = S(name);
	row[2] = N;
	add(&st->hot, row);
	/* a rank's row, then the run's (rank_id NULL): the page shows the run's only */
	row[0] = I(0);
	row[1] = S("palm-rank");
	row[2] = R(0.5);
	add(&st->model, row);
	row[0] = N;
	row[1] = S("palm");
	row[2] = R(0.25);
	add(&st->model, row);
}

static void release(struct stores *st)
{
	opmfu_cell_store_release(&st->run);
	opmfu_cell_store_release(&st->rank);
	opmfu_cell_store_release(&st->hot);
	opmfu_cell_store_release(&st->model);
}

/* How many times needle is in hay. */
static int count(const char *hay, const char *needle)
{
	int n = 0;
	const char *p = hay;
	while ((p = strstr(p, needle))) {
		n++;
		p += strlen(needle);
	}
	return n;
}

static enum opmfu_status gather(struct opmfu_summary *s, struct stores *st)
{
	struct opmfu_err e = OPMFU_ERR_INIT;
	struct opmfu_cell_store *all[4] = { &st->run, &st->rank, &st->hot, &st->model };
	enum opmfu_status r = OPMFU_OK;
	size_t k;
	for (k = 0; k < 4 && r == OPMFU_OK; k++) {
		struct opmfu_table t = opmfu_cell_store_table(all[k]);
		r = opmfu_summary_add(s, &t, &e);
	}
	return r ? r : opmfu_summary_keep(s, &e);
}

static void test_page(void)
{
	struct stores st;
	struct opmfu_summary s;
	struct opmfu_write_stats ws;
	struct sbuf b;
	const char *p, *t;
	char want[512];
	int i;

	fill(&st);
	opmfu_summary_init(&s);
	CHECK_INT(gather(&s, &st), OPMFU_OK);
	memset(&ws, 0, sizeof(ws));
	sbuf_init(&b);
	opmfu_summary_html_render(&s, &b, &ws);
	CHECK(!b.oom);
	p = b.buf;
	/* the name escaped and repaired, never as markup */
	CHECK(strstr(p, hostile_shown) != NULL);
	CHECK(strstr(p, "a<b>") == NULL);
	CHECK(ws.repaired >= 1);
	CHECK(strstr(p, "<span id=\"top-hotspot\" data-v=\"9000\" data-kind=\"op_type\"><b class=\"name\">") != NULL);
	/* NULL: the whole trace for the median step; "-" shown, data-v empty for the unknown */
	CHECK(strstr(p, "<td id=\"median-step\" data-v=\"\">the whole trace</td>") != NULL);
	CHECK(strstr(p, "<td id=\"step-time\" data-v=\"1060\">0.001</td>") != NULL);
	CHECK(strstr(p, "<td id=\"trace-mfu\" data-v=\"0.35999999999999999\">36.00%</td>") != NULL);
	/* the ranks shown: median 6, best 5, worst 9, slow 3 7 10 9 8 */
	t = strstr(p, "id=\"ranks-table\"");
	CHECK(t != NULL);
	{
		static const int ids[] = { 6, 5, 9, 3, 7, 10, 9, 8 };
		static const char *const roles[] = { "median", "best", "worst", "slow", "slow", "slow", "slow", "slow" };
		for (i = 0; t && i < 8; i++) {
			snprintf(want, sizeof(want), "<tr><td data-v=\"%d\">%d</td>", ids[i], ids[i]);
			t = strstr(t, want);
			CHECK(t != NULL);
			snprintf(want, sizeof(want), "<td class=\"t\" data-v=\"%s\">%s</td></tr>", roles[i], roles[i]);
			CHECK(t && strstr(t, want) == strstr(t, "</tr>") - strlen(want) + 5);
		}
	}
	/* the op types: the first 20 of 25 (the hostile one and op00 .. op18) */
	CHECK(strstr(p, "20 of 25 rows, most recoverable time first (OpmfuHotspots has them all).") != NULL);
	CHECK(strstr(p, ">op18</td>") != NULL);
	CHECK(strstr(p, ">op19</td>") == NULL);
	/* a 399-byte kernel name: its title cut at 300 bytes and "…" */
	memset(want, 'x', 300);
	strcpy(want + 300, "\xE2\x80\xA6\"");
	CHECK(strstr(p, want) != NULL);
	memset(want, 'x', 301);
	want[301] = '\0';
	CHECK(strstr(p, want) == NULL);
	/* the kernel's recoverable time is NULL */
	CHECK(strstr(p, "<td data-v=\"\">-</td>") != NULL);
	/* the model's run row only */
	CHECK(strstr(p, ">palm</td>") != NULL);
	CHECK(strstr(p, "palm-rank") == NULL);
	/* one script, and no load */
	CHECK_INT(count(p, "<script"), 1);
	CHECK_INT(count(p, " src="), 0);
	CHECK(strstr(p, "default-src 'none'") != NULL);
	sbuf_release(&b);
	opmfu_summary_release(&s);
	release(&st);
}

/* Every table to w as the run's, kept. */
static enum opmfu_status put_all(struct opmfu_writer *w, struct stores *st)
{
	struct opmfu_err e = OPMFU_ERR_INIT;
	struct opmfu_write_stats ws;
	struct opmfu_cell_store *all[4] = { &st->run, &st->rank, &st->hot, &st->model };
	enum opmfu_status r = OPMFU_OK;
	size_t k;
	for (k = 0; k < 4 && r == OPMFU_OK; k++) {
		struct opmfu_table t = opmfu_cell_store_table(all[k]);
		r = opmfu_writer_put(w, OPMFU_RUN_RANK, &t, &e);
	}
	return r ? r : opmfu_writer_keep_rank(w, OPMFU_RUN_RANK, &ws, &e);
}

/* The writer: a rank dropped counts for nothing; a commit with nothing
 * given writes no page; every allocation failing leaves no page and no
 * staged file. */
static void test_writer(void)
{
	const struct opmfu_writer_type *wt = opmfu_writer_type_find("html");
	struct opmfu_err e = OPMFU_ERR_INIT;
	struct opmfu_writer *w = NULL;
	struct opmfu_write_stats ws;
	struct stores st;
	struct opmfu_table t;
	char path[4200];
	struct stat sb;
	long n;
	FILE *f;
	char buf[1 << 16];
	size_t len;

	CHECK(wt != NULL && !strcmp(wt->where, "opmfu_report.html"));
	snprintf(path, sizeof(path), "%s/opmfu_report.html", dir);
	unlink(path);
	fill(&st);
	/* nothing given: no page */
	CHECK_INT(wt->open(&w, path, NULL, 0, &e), OPMFU_OK);
	CHECK_INT(opmfu_writer_commit(w, &e), OPMFU_OK);
	opmfu_writer_close(w);
	CHECK(stat(path, &sb) != 0);
	/* rank 0 kept, rank 1 dropped, the run's rows kept */
	CHECK_INT(wt->open(&w, path, NULL, 0, &e), OPMFU_OK);
	t = opmfu_cell_store_table(&st.hot);
	CHECK_INT(opmfu_writer_put(w, 1, &t, &e), OPMFU_OK);
	CHECK_INT(opmfu_writer_drop_rank(w, 1, &e), OPMFU_OK);
	t = opmfu_cell_store_table(&st.run);
	CHECK_INT(opmfu_writer_put(w, OPMFU_RUN_RANK, &t, &e), OPMFU_OK);
	CHECK_INT(opmfu_writer_keep_rank(w, OPMFU_RUN_RANK, &ws, &e), OPMFU_OK);
	CHECK_INT(opmfu_writer_commit(w, &e), OPMFU_OK);
	opmfu_writer_close(w);
	f = fopen(path, "rb");
	CHECK(f != NULL);
	len = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	buf[len] = '\0';
	if (f)
		fclose(f);
	CHECK(strstr(buf, "job-1") != NULL);
	CHECK(strstr(buf, "top-hotspot") == NULL); /* the dropped rank's hotspots */
	/* every allocation failing in turn: the earlier page stays whole */
	for (n = 1; n < 400; n++) {
		enum opmfu_status r;
		w = NULL;
		opmfu_mem_fail_after(n);
		r = wt->open(&w, path, NULL, 0, &e);
		if (r == OPMFU_OK && (r = put_all(w, &st)) == OPMFU_OK)
			r = opmfu_writer_commit(w, &e);
		opmfu_mem_fail_after(0);
		opmfu_writer_close(w);
		CHECK(r == OPMFU_OK || r == OPMFU_ERR_NOMEM);
		f = fopen(path, "rb");
		len = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
		buf[len] = '\0';
		if (f)
			fclose(f);
		CHECK(strstr(buf, "</html>\n") != NULL);
		if (r == OPMFU_OK)
			break;
	}
	CHECK(n > 1 && n < 400);
	{
		/* no staged file left */
		char cmd[4300];
		snprintf(cmd, sizeof(cmd), "ls -a '%s' | grep -q '\\.tmp$'", dir);
		CHECK(system(cmd) != 0);
	}
	release(&st);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	snprintf(dir, sizeof(dir), "%s", argv[1]);
	mkdir(dir, 0777);
	test_page();
	test_writer();
	return check_done();
}
