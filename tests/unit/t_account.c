/*
 * t_account.c - the run account (analyze/account.c, SPEC 16): OpmfuRun,
 * OpmfuHotspots and OpmfuStragglers from hand-built rank tables, fed
 * through add / keep / drop as the pool feeds them. The tables here carry
 * only the columns the account reads (it finds them by name); every
 * expected value is derived by hand in the comments.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "analyze/account.h"
#include "analyze/hotspots.h"
#include "base/mem.h"
#include "check.h"

/* ---- the input tables: just the columns the account reads ---- */

static const struct opmfu_column sum_cols[] = {
	{ "rank_id", OPMFU_COL_INT, "", 0, 0 },        { "status", OPMFU_COL_TEXT, "", 0, 0 },
	{ "step_ns_median", OPMFU_COL_INT, "", 0, 0 }, { "trace_mfu", OPMFU_COL_REAL, "", 0, 0 },
	{ "mfu_busy", OPMFU_COL_REAL, "", 0, 0 },      { "flops_coverage", OPMFU_COL_REAL, "", 0, 0 },
	{ "mfu_recorded", OPMFU_COL_REAL, "", 0, 0 },  { "share_idle", OPMFU_COL_REAL, "", 0, 0 },
	{ "share_comm", OPMFU_COL_REAL, "", 0, 0 },    { "share_other_compute", OPMFU_COL_REAL, "", 0, 0 },
	{ "share_inefficiency", OPMFU_COL_REAL, "", 0, 0 }, { "median_step", OPMFU_COL_INT, "", 0, 0 },
	{ "peak_tflops", OPMFU_COL_REAL, "", 0, 0 },   { "peak_source", OPMFU_COL_TEXT, "", 0, 0 },
	{ "chip_seen", OPMFU_COL_TEXT, "", 0, 0 },      { "peak_bw_tbps", OPMFU_COL_REAL, "", 0, 0 },
	{ "peak_bw_source", OPMFU_COL_TEXT, "", 0, 0 },
};
static const struct opmfu_table_def sum_def = { "OpmfuRankSummary", sum_cols, 17, NULL, 0, NULL };

static const struct opmfu_column steps_cols[] = {
	{ "rank_id", OPMFU_COL_INT, "", 0, 0 },
	{ "window_ns", OPMFU_COL_INT, "", 0, 0 },
};
static const struct opmfu_table_def steps_def = { "OpmfuSteps", steps_cols, 2, NULL, 0, NULL };

static const struct opmfu_column mod_cols[] = {
	{ "module", OPMFU_COL_TEXT, "", 0, 0 },       { "calls", OPMFU_COL_INT, "", 0, 0 },
	{ "self_kernel_ns", OPMFU_COL_INT, "", 0, 0 }, { "self_lost_ns", OPMFU_COL_INT, "", 0, 0 },
	{ "self_mfu", OPMFU_COL_REAL, "", 0, 0 },
};
static const struct opmfu_table_def mod_def = { "OpmfuModules", mod_cols, 5, NULL, 0, NULL };

static const struct opmfu_column op_cols[] = {
	{ "op_name", OPMFU_COL_TEXT, "", 0, 0 },        { "ops", OPMFU_COL_INT, "", 0, 0 },
	{ "kernel_ns", OPMFU_COL_INT, "", 0, 0 },       { "flops_kernel_ns", OPMFU_COL_INT, "", 0, 0 },
	{ "mfu", OPMFU_COL_REAL, "", 0, 0 },            { "lost_ns", OPMFU_COL_INT, "", 0, 0 },
};
static const struct opmfu_table_def op_def = { "OpmfuOpTypes", op_cols, 6, NULL, 0, NULL };

static const struct opmfu_column kern_cols[] = {
	{ "kernel_name", OPMFU_COL_TEXT, "", 0, 0 },    { "kernels", OPMFU_COL_INT, "", 0, 0 },
	{ "kernel_ns", OPMFU_COL_INT, "", 0, 0 },       { "flops_kernel_ns", OPMFU_COL_INT, "", 0, 0 },
	{ "mfu", OPMFU_COL_REAL, "", 0, 0 },            { "lost_ns", OPMFU_COL_INT, "", 0, 0 },
};
static const struct opmfu_table_def kern_def = { "OpmfuKernels", kern_cols, 6, NULL, 0, NULL };

/* a table the account does not read: ignored */
static const struct opmfu_table_def other_def = { "OpmfuOps", steps_cols, 2, NULL, 0, NULL };

#define NUL (-1)   /* an INTEGER cell that is NULL */
#define RNUL NAN   /* a REAL cell that is NULL */

static struct opmfu_cell ci(int64_t v)
{
	return v == NUL ? opmfu_cell_null() : opmfu_cell_int(v);
}

static struct opmfu_cell cr(double v)
{
	return isnan(v) ? opmfu_cell_null() : opmfu_cell_real(v);
}

static void put(struct opmfu_cell_store *cs, const struct opmfu_cell *row)
{
	struct opmfu_err err = OPMFU_ERR_INIT;
	if (opmfu_cell_store_add(cs, row, &err) != OPMFU_OK) {
		fprintf(stderr, "out of memory building the input\n");
		exit(2);
	}
}

struct srow {
	int64_t id;
	const char *status;
	int64_t step;
	double mfu, busy, cov, rec, idle, comm, other, ineff;
	int64_t med_step;
	double peak;
	const char *psrc, *chip;
	double bw; /* 0: NULL */
	const char *bwsrc;
};

static void put_sum(struct opmfu_cell_store *cs, const struct srow *r)
{
	struct opmfu_cell c[17] = {
		ci(r->id),	  opmfu_cell_str(r->status), ci(r->step),	cr(r->mfu),	  cr(r->busy),
		cr(r->cov),	  cr(r->rec),		     cr(r->idle),	cr(r->comm),	  cr(r->other),
		cr(r->ineff),	  ci(r->med_step),	     cr(r->peak),	opmfu_cell_str(r->psrc), opmfu_cell_str(r->chip),
		r->bw > 0 ? cr(r->bw) : opmfu_cell_null(), opmfu_cell_str(r->bwsrc),
	};
	put(cs, c);
}

static void put_step(struct opmfu_cell_store *cs, int64_t rank, int64_t window)
{
	struct opmfu_cell c[2] = { ci(rank), ci(window) };
	put(cs, c);
}

/* a module row: name, calls, own kernel ns, own lost ns, own mfu */
static void put_mod(struct opmfu_cell_store *cs, const char *name, int64_t calls, int64_t ns, int64_t lost,
		    double mfu)
{
	struct opmfu_cell c[5] = { opmfu_cell_str(name), ci(calls), ci(ns), ci(lost), cr(mfu) };
	put(cs, c);
}

/* an op type or kernel row: name, count, kernel ns, flops kernel ns, mfu, lost ns */
static void put_hot(struct opmfu_cell_store *cs, const char *name, int64_t n, int64_t ns, int64_t fns, double mfu,
		    int64_t lost)
{
	struct opmfu_cell c[6] = { opmfu_cell_str(name), ci(n), ci(ns), ci(fns), cr(mfu), ci(lost) };
	put(cs, c);
}

/* ---- a run: ranks of tables, each kept or dropped ---- */

#define MAX_T 6
struct rank_in {
	struct opmfu_cell_store t[MAX_T];
	size_t n;
	int drop;
};

static struct opmfu_cell_store *table(struct rank_in *r, const struct opmfu_table_def *def)
{
	struct opmfu_cell_store *cs = &r->t[r->n++];
	opmfu_cell_store_init(cs, def);
	return cs;
}

static void rank_free(struct rank_in *r, size_t n)
{
	size_t i, k;
	for (i = 0; i < n; i++)
		for (k = 0; k < r[i].n; k++)
			opmfu_cell_store_release(&r[i].t[k]);
}

/* Adds each rank's tables, keeps or drops it, names the run and finishes:
 * the first failing call's status. */
static enum opmfu_status feed(struct opmfu_account *a, struct rank_in *r, size_t n, const char *run_id,
			      const char *source, size_t failed, struct opmfu_err *err)
{
	enum opmfu_status st = OPMFU_OK;
	size_t i, k;
	for (i = 0; i < n && st == OPMFU_OK; i++) {
		for (k = 0; k < r[i].n && st == OPMFU_OK; k++) {
			struct opmfu_table t = opmfu_cell_store_table(&r[i].t[k]);
			st = opmfu_account_add(a, &t, err);
		}
		if (st != OPMFU_OK)
			break;
		if (r[i].drop)
			opmfu_account_drop(a);
		else
			st = opmfu_account_keep(a, err);
	}
	if (st == OPMFU_OK)
		st = opmfu_account_identity(a, run_id, source, failed, err);
	return st ? st : opmfu_account_finish(a, err);
}

/* ---- reading the results ---- */

static const struct opmfu_cell *cell_at(const struct opmfu_cell_store *cs, size_t row, const char *col, int line)
{
	static const struct opmfu_cell none = { { .i = 0 }, 1 };
	size_t c;
	for (c = 0; c < cs->def->n_cols; c++)
		if (!strcmp(cs->def->cols[c].name, col))
			break;
	if (c == cs->def->n_cols || row >= cs->n_rows) {
		check_count++;
		check_failures++;
		fprintf(stderr, "%s:%d: no cell %s of row %zu in %s (%zu rows)\n", __FILE__, line, col, row,
			cs->def->name, cs->n_rows);
		return &none;
	}
	return &cs->cells[row * cs->def->n_cols + c];
}

static void check_int(const struct opmfu_cell_store *cs, size_t row, const char *col, long long want, int line)
{
	const struct opmfu_cell *c = cell_at(cs, row, col, line);
	check_count++;
	if (c->null || c->v.i != want) {
		check_failures++;
		fprintf(stderr, "%s:%d: %s[%zu].%s == %s%lld, expected %lld\n", __FILE__, line, cs->def->name, row, col,
			c->null ? "NULL " : "", (long long)c->v.i, want);
	}
}

static void check_real(const struct opmfu_cell_store *cs, size_t row, const char *col, double want, int line)
{
	const struct opmfu_cell *c = cell_at(cs, row, col, line);
	check_count++;
	if (c->null || !(c->v.r == want)) {
		check_failures++;
		fprintf(stderr, "%s:%d: %s[%zu].%s == %s%.17g, expected %.17g\n", __FILE__, line, cs->def->name, row,
			col, c->null ? "NULL " : "", c->v.r, want);
	}
}

static void check_text(const struct opmfu_cell_store *cs, size_t row, const char *col, const char *want, int line)
{
	const struct opmfu_cell *c = cell_at(cs, row, col, line);
	check_count++;
	if (c->null || c->v.t.n != strlen(want) || memcmp(c->v.t.s, want, c->v.t.n)) {
		check_failures++;
		fprintf(stderr, "%s:%d: %s[%zu].%s == \"%.*s\"%s, expected \"%s\"\n", __FILE__, line, cs->def->name,
			row, col, c->null ? 0 : (int)c->v.t.n, c->null ? "" : c->v.t.s, c->null ? " (NULL)" : "", want);
	}
}

static void check_null(const struct opmfu_cell_store *cs, size_t row, const char *col, int line)
{
	const struct opmfu_cell *c = cell_at(cs, row, col, line);
	check_count++;
	if (!c->null) {
		check_failures++;
		fprintf(stderr, "%s:%d: %s[%zu].%s is not NULL\n", __FILE__, line, cs->def->name, row, col);
	}
}

#define INT(cs, row, col, want) check_int(&(cs), row, col, want, __LINE__)
#define REAL(cs, row, col, want) check_real(&(cs), row, col, want, __LINE__)
#define TEXT(cs, row, col, want) check_text(&(cs), row, col, want, __LINE__)
#define ISNULL(cs, row, col) check_null(&(cs), row, col, __LINE__)

static void hot(const struct opmfu_cell_store *cs, size_t row, const char *kind, const char *name, long long ranks,
		long long calls, long long kernel_ns, long long lost_ns, double pct, double mfu, int line)
{
	check_text(cs, row, "kind", kind, line);
	check_text(cs, row, "name", name, line);
	check_int(cs, row, "ranks", ranks, line);
	check_int(cs, row, "calls", calls, line);
	check_int(cs, row, "kernel_ns", kernel_ns, line);
	check_int(cs, row, "recoverable_ns", lost_ns, line);
	check_int(cs, row, "lost_ns", lost_ns, line);
	if (isnan(pct))
		check_null(cs, row, "pct_of_step", line);
	else
		check_real(cs, row, "pct_of_step", pct, line);
	if (isnan(mfu))
		check_null(cs, row, "mfu", line);
	else
		check_real(cs, row, "mfu", mfu, line);
	check_null(cs, row, "roofline_eff", line);
}
#define HOT(...) hot(&a.hotspots, __VA_ARGS__, __LINE__)

static void strag(const struct opmfu_cell_store *cs, size_t row, const char *measure, long long rank, double value,
		  double median, double delta, int line)
{
	check_text(cs, row, "measure", measure, line);
	check_int(cs, row, "rank_id", rank, line);
	check_real(cs, row, "value", value, line);
	check_real(cs, row, "median", median, line);
	check_real(cs, row, "delta", delta, line);
	check_null(cs, row, "culprit_of", line);
}
#define STRAG(...) strag(&a.stragglers, __VA_ARGS__, __LINE__)

/* ---- the median ---- */

static void t_median_index(void)
{
	int nomem = 7;
	long k;
	int done = 0;
	double nan = NAN;
	/* keys {3, NaN, 1, 2, 1}, no tie: NaN left out, the rest by key then
	 * index: 2(1) 4(1) 3(2) 0(3); position (4 - 1) / 2 = 1 -> index 4 */
	double k1[] = { 3, nan, 1, 2, 1 };
	/* ties {0, 0, 9, 0, 5}: the two 1s by tie, 4(tie 5) before 2(tie 9):
	 * 4 2 3 0; position 1 -> index 2 */
	double t1[] = { 0, 0, 9, 0, 5 };
	/* equal keys and equal ties: by index, 0 1 2; position 1 -> index 1 */
	double k2[] = { 7, 7, 7 }, t2[] = { 1, 1, 1 };
	/* odd count {5, 1, 4, 2, 3}: 1(1) 3(2) 4(3) 2(4) 0(5); position 2 -> index 4 */
	double k3[] = { 5, 1, 4, 2, 3 };
	/* even count, the lower middle: {5, 4}: 1 0; position 0 -> index 1 */
	double k4[] = { 5, 4 };
	double k5[] = { nan, nan };

	CHECK_INT(opmfu_median_index(k1, NULL, 5, &nomem), 4);
	CHECK_INT(nomem, 0);
	CHECK_INT(opmfu_median_index(k1, t1, 5, &nomem), 2);
	CHECK_INT(opmfu_median_index(k2, t2, 3, &nomem), 1);
	CHECK_INT(opmfu_median_index(k3, NULL, 5, &nomem), 4);
	CHECK_INT(opmfu_median_index(k4, NULL, 2, &nomem), 1);
	CHECK_INT(opmfu_median_index(k4, NULL, 1, &nomem), 0); /* one item: itself */
	CHECK(opmfu_median_index(k5, NULL, 2, &nomem) == SIZE_MAX); /* every key NaN */
	CHECK_INT(nomem, 0);
	CHECK(opmfu_median_index(NULL, NULL, 0, &nomem) == SIZE_MAX); /* empty */
	CHECK_INT(nomem, 0);

	/* each allocation failing in turn: SIZE_MAX and nomem -1, until it succeeds */
	for (k = 1; k < 20 && !done; k++) {
		size_t i;
		opmfu_mem_fail_after(k);
		i = opmfu_median_index(k1, t1, 5, &nomem);
		opmfu_mem_fail_after(0);
		if (nomem == 0) {
			done = 1;
			CHECK_INT(i, 2);
		} else {
			CHECK_INT(nomem, -1);
			CHECK(i == SIZE_MAX);
		}
	}
	CHECK(done);
}

/* ---- a cluster of four analysed ranks, one failed, one dropped ---- */

/*
 * The ranks, kept in this order (rank 9 is added after rank 1 and dropped):
 *
 *   rank status step  mfu    idle   comm   other  ineff  (the five sum to 1)
 *   0    ok     1000  0.5    0.125  0.0625 0.25   0.0625
 *   1    ok     3000  0.25   0.375  0.25   0.0625 0.0625
 *   9    ok     2500  (dropped: were it kept, the median would be rank 3)
 *   2    ok     2000  0.375  0.125  0.125  0.125  0.25
 *   3    no_mfu 2000  0.125  0.125  0.25   0     0.5
 *   4    failed 9000  0      1      1      1      1     (neither median nor straggler)
 *
 * Median: the analysed ranks by step then rank id: 0(1000) 2(2000) 3(2000)
 * 1(3000); position (4 - 1) / 2 = 1 -> rank 2 (rank 3 has its step time and
 * loses on rank id). Had rank 4 been a candidate: 0 2 3 1 4, position 2 ->
 * rank 3; had rank 9 been kept: 0 2 3 9 1, position 2 -> rank 3.
 *
 * OpmfuSteps rows with window > 0: rank 0 {1000, 1000, 0} -> 2, rank 1
 * {3000} -> 1, rank 2 {2000, 2000} -> 2, rank 3 {NULL, 2000} -> 1, rank 9
 * (dropped) {5000 x 3}: 6 steps. Per-step time: 6 x OpmfuRun.step_ns (2000)
 * = 12000 ns.
 */
static void build_cluster(struct rank_in *r)
{
	struct opmfu_cell_store *cs;
	memset(r, 0, 6 * sizeof(*r));

	/* rank 0 */
	put_sum(table(&r[0], &sum_def), &(struct srow){ 0, "ok", 1000, 0.5, 0.75, 0.5, 0.625, 0.125, 0.0625, 0.25,
							   0.0625, 3, 313, "chip table", "Ascend910B3", 0, NULL });
	cs = table(&r[0], &steps_def);
	put_step(cs, 0, 1000);
	put_step(cs, 0, 1000);
	put_step(cs, 0, 0);
	cs = table(&r[0], &mod_def);
	put_mod(cs, "root", 1, 0, 0, RNUL); /* no own kernel time: no hotspot */
	put_mod(cs, "root.layer", 2, 600, 300, 0.5);
	cs = table(&r[0], &op_def);
	put_hot(cs, "MatMul", 4, 800, 800, 0.5, 400);
	put_hot(cs, "Add", 10, 200, 0, RNUL, 0);
	cs = table(&r[0], &kern_def);
	put_hot(cs, "MatMulV2", 4, 800, 800, 0.5, 400);
	cs = table(&r[0], &other_def); /* a table the account ignores */
	put_step(cs, 0, 123456);

	/* rank 1 */
	put_sum(table(&r[1], &sum_def), &(struct srow){ 1, "ok", 3000, 0.25, 0.5, 0.5, 0.5, 0.375, 0.25, 0.0625,
							   0.0625, 1, 313, "chip table", "Ascend910B3", 0, NULL });
	put_step(table(&r[1], &steps_def), 1, 3000);
	put_mod(table(&r[1], &mod_def), "root.layer", 2, 1800, 1200, 0.25);
	cs = table(&r[1], &op_def);
	put_hot(cs, "MatMul", 4, 1600, 1200, 0.25, 900);
	put_hot(cs, "Cast", 3, 0, 0, RNUL, 50); /* no kernel time: skipped */

	/* rank 9, dropped: it must leave no trace */
	r[2].drop = 1;
	put_sum(table(&r[2], &sum_def), &(struct srow){ 9, "ok", 2500, 0.001, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 9,
							   999, "dropped", "Dropped", 0, NULL });
	cs = table(&r[2], &steps_def);
	put_step(cs, 9, 5000);
	put_step(cs, 9, 5000);
	put_step(cs, 9, 5000);
	put_mod(table(&r[2], &mod_def), "root.layer", 1, 100000, 100000, 0.001);
	put_hot(table(&r[2], &op_def), "Ghost", 1, 99999, 99999, 0.001, 99999);
	put_hot(table(&r[2], &kern_def), "ghost_kernel", 1, 99999, 99999, 0.001, 99999);

	/* rank 2, the median */
	put_sum(table(&r[3], &sum_def), &(struct srow){ 2, "ok", 2000, 0.375, 0.5, 0.75, 0.625, 0.125, 0.125, 0.125,
							   0.25, 7, 280, "--peak", "Ascend910B2", 1.6, "override (--peak-bw)" });
	cs = table(&r[3], &steps_def);
	put_step(cs, 2, 2000);
	put_step(cs, 2, 2000);
	cs = table(&r[3], &mod_def);
	put_mod(cs, NULL, 5, 999, 999, 0.5); /* no name: nothing to sum it under */
	put_mod(cs, "root.layer", 2, 1200, 600, RNUL);
	cs = table(&r[3], &kern_def);
	put_hot(cs, "MatMulV2", 4, 1600, 1600, 0.25, 1200);
	put_hot(cs, "k_b", 1, 10, 0, RNUL, 100);

	/* rank 3 */
	put_sum(table(&r[4], &sum_def), &(struct srow){ 3, "no_mfu", 2000, 0.125, 0.25, 0.25, 0.25, 0.125, 0.25, 0,
							   0.5, 2, 313, "chip table", "Ascend910B3", 0, NULL });
	cs = table(&r[4], &steps_def);
	put_step(cs, 3, NUL);
	put_step(cs, 3, 2000);
	cs = table(&r[4], &op_def);
	put_hot(cs, "Add", 10, 300, 0, RNUL, 0);
	put_hot(cs, "FlashAttention", 2, 2400, 2400, 0.125, 2100);
	cs = table(&r[4], &kern_def);
	put_hot(cs, "FA_kernel", 2, 2400, 2400, 0.125, 2100);
	put_hot(cs, "k_a", 1, 20, 0, RNUL, 100);

	/* rank 4, failed: its summary only */
	put_sum(table(&r[5], &sum_def),
		&(struct srow){ 4, "failed", 9000, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, "failed", "Failed", 0, NULL });
}

static void check_cluster(const struct opmfu_account *ap)
{
	const struct opmfu_account a = *ap;

	/*
	 * OpmfuRun: ranks kept 5 (rank 9 dropped), failed 1 (the identity),
	 * ranks = max(5, 1) = 5, analysed = the 4 not "failed" (no_mfu counts);
	 * the rest is rank 2's row.
	 */
	CHECK_INT(a.run.n_rows, 1);
	CHECK_INT(a.median_row, 2); /* rank 2 is the third row kept */
	TEXT(a.run, 0, "run_id", "run-x");
	TEXT(a.run, 0, "source", "ascend");
	INT(a.run, 0, "ranks", 5);
	INT(a.run, 0, "ranks_failed", 1);
	INT(a.run, 0, "ranks_analysed", 4);
	TEXT(a.run, 0, "chip", "Ascend910B2");
	REAL(a.run, 0, "peak_tflops", 280);
	TEXT(a.run, 0, "peak_source", "--peak");
	REAL(a.run, 0, "peak_bw_tbps", 1.6); /* the median rank's, as its peak */
	TEXT(a.run, 0, "peak_bw_source", "override (--peak-bw)");
	INT(a.run, 0, "median_rank", 2);
	INT(a.run, 0, "median_step", 7);
	INT(a.run, 0, "step_ns", 2000);
	REAL(a.run, 0, "trace_mfu", 0.375);
	REAL(a.run, 0, "mfu_busy", 0.5);
	REAL(a.run, 0, "flops_coverage", 0.75);
	REAL(a.run, 0, "mfu_recorded", 0.625);
	REAL(a.run, 0, "share_idle", 0.125);
	REAL(a.run, 0, "share_comm", 0.125);
	REAL(a.run, 0, "share_other_compute", 0.125);
	REAL(a.run, 0, "share_inefficiency", 0.25);

	/*
	 * OpmfuHotspots, summed by name over ranks 0..3 (rank 9 dropped; rows
	 * of no kernel time and the NULL name skipped):
	 *   module root.layer: ranks 0,1,2; calls 2+2+2 = 6; ns 600+1800+1200
	 *     = 3600; lost 300+1200+600 = 2100; mfu weighted by own kernel time
	 *     where known (rank 2's is NULL): (0.5 x 600 + 0.25 x 1800) /
	 *     (600 + 1800) = 750 / 2400 = 0.3125
	 *   op_type MatMul: ranks 0,1; calls 8; ns 800+1600 = 2400; lost
	 *     400+900 = 1300; mfu by flops_kernel_ns: (0.5 x 800 + 0.25 x 1200)
	 *     / 2000 = 700 / 2000
	 *   op_type Add: ranks 0,3; calls 20; ns 500; lost 0; mfu NULL (no
	 *     FLOP time)
	 *   op_type FlashAttention: rank 3; calls 2; ns 2400; lost 2100; 0.125
	 *   (op_type Cast: no kernel time, absent)
	 *   kernel MatMulV2: ranks 0,2; calls 8; ns 2400; lost 400+1200 = 1600;
	 *     mfu (0.5 x 800 + 0.25 x 1600) / 2400 = 800 / 2400
	 *   kernel k_b: rank 2; 1; 10; lost 100; NULL.  kernel k_a: rank 3; 1;
	 *     20; lost 100; NULL (k_b seen first)
	 *   kernel FA_kernel: rank 3; 2; 2400; 2100; 0.125
	 * By lost time, descending; the three at 2100 by kind (module,
	 * op_type, kernel), the two kernels at 100 as first seen (k_b, k_a).
	 * pct_of_step = kernel_ns / 12000 (6 steps x 2000 ns).
	 */
	CHECK_INT(a.hotspots.n_rows, 8);
	HOT(0, "module", "root.layer", 3, 6, 3600, 2100, 3600.0 / 12000, 0.3125);
	HOT(1, "op_type", "FlashAttention", 1, 2, 2400, 2100, 2400.0 / 12000, 0.125);
	HOT(2, "kernel", "FA_kernel", 1, 2, 2400, 2100, 2400.0 / 12000, 0.125);
	HOT(3, "kernel", "MatMulV2", 2, 8, 2400, 1600, 2400.0 / 12000, 800.0 / 2400);
	HOT(4, "op_type", "MatMul", 2, 8, 2400, 1300, 2400.0 / 12000, 700.0 / 2000);
	HOT(5, "kernel", "k_b", 1, 1, 10, 100, 10.0 / 12000, NAN);
	HOT(6, "kernel", "k_a", 1, 1, 20, 100, 20.0 / 12000, NAN);
	HOT(7, "op_type", "Add", 2, 20, 500, 0, 500.0 / 12000, NAN);

	/*
	 * OpmfuStragglers, over ranks 0..3 (rank 4 failed), against rank 2:
	 *   step_ns_median, highest: rank 1, 3000; median 2000; delta 1000
	 *   trace_mfu, lowest: rank 3, 0.125; median 0.375; delta -0.25
	 *   share_inefficiency, highest: rank 3, 0.5; 0.25; 0.25
	 *   share_other_compute: rank 0, 0.25; 0.125; 0.125
	 *   share_comm: ranks 1 and 3 tie at 0.25, the first kept (rank 1);
	 *     0.125; 0.125
	 *   share_idle: rank 1, 0.375; 0.125; 0.25
	 */
	CHECK_INT(a.stragglers.n_rows, 6);
	STRAG(0, "step_ns_median", 1, 3000, 2000, 1000);
	STRAG(1, "trace_mfu", 3, 0.125, 0.375, -0.25);
	STRAG(2, "share_inefficiency", 3, 0.5, 0.25, 0.25);
	STRAG(3, "share_other_compute", 0, 0.25, 0.125, 0.125);
	STRAG(4, "share_comm", 1, 0.25, 0.125, 0.125);
	STRAG(5, "share_idle", 1, 0.375, 0.125, 0.25);
}

static void t_cluster(void)
{
	struct rank_in r[6];
	struct opmfu_account a;
	struct opmfu_err err = OPMFU_ERR_INIT;

	build_cluster(r);
	opmfu_account_init(&a);
	CHECK_INT(feed(&a, r, 6, "run-x", "ascend", 1, &err), OPMFU_OK);
	check_cluster(&a);
	opmfu_account_release(&a);
	rank_free(r, 6);
}

/* Each allocation of add / keep / drop / identity / finish failing in turn:
 * OPMFU_ERR_NOMEM, and release frees what was made (ASan checks the leaks). */
static void t_nomem(void)
{
	struct rank_in r[6];
	long k;
	int done = 0, failures = 0;

	build_cluster(r);
	for (k = 1; k < 1000 && !done; k++) {
		struct opmfu_account a;
		struct opmfu_err err = OPMFU_ERR_INIT;
		enum opmfu_status st;
		opmfu_account_init(&a);
		opmfu_mem_fail_after(k);
		st = feed(&a, r, 6, "run-x", "ascend", 1, &err);
		opmfu_mem_fail_after(0);
		if (st == OPMFU_OK) {
			done = 1;
			check_cluster(&a);
		} else {
			failures++;
			CHECK_INT(st, OPMFU_ERR_NOMEM);
		}
		opmfu_account_release(&a);
	}
	CHECK(done);
	CHECK(failures > 10); /* the stores, the names, the sums, the median, the three tables */
	rank_free(r, 6);
}

/* ---- NULLs, one rank, no rank ---- */

/*
 * Rank 0's step time is NULL: not a median candidate. Ranks 1 (400) and
 * 2 (200): 2 1, position (2 - 1) / 2 = 0 -> rank 2.
 * Stragglers against rank 2:
 *   step_ns_median known on ranks 1 and 2: rank 1, 400; 200; 200
 *   trace_mfu known on ranks 0 and 1 but NULL on the median rank: no row
 *   share_inefficiency known on rank 2 only (fewer than 2): no row
 *   the other shares NULL everywhere: no row
 * No hotspot tables: no hotspots. run_id NULL stays NULL.
 */
static void t_nulls(void)
{
	struct rank_in r[3];
	struct opmfu_account a;
	struct opmfu_err err = OPMFU_ERR_INIT;

	memset(r, 0, sizeof(r));
	put_sum(table(&r[0], &sum_def), &(struct srow){ 0, "ok", NUL, 0.5, RNUL, RNUL, RNUL, RNUL, RNUL, RNUL, RNUL,
							   NUL, RNUL, NULL, NULL, 0, NULL });
	put_sum(table(&r[1], &sum_def), &(struct srow){ 1, "ok", 400, 0.25, RNUL, RNUL, RNUL, RNUL, RNUL, RNUL, RNUL,
							   NUL, RNUL, NULL, NULL, 0, NULL });
	put_sum(table(&r[2], &sum_def), &(struct srow){ 2, "no_mfu", 200, RNUL, RNUL, RNUL, RNUL, RNUL, RNUL, RNUL,
							   0.5, NUL, RNUL, NULL, NULL, 0, NULL });
	opmfu_account_init(&a);
	CHECK_INT(feed(&a, r, 3, NULL, "kineto", 0, &err), OPMFU_OK);
	CHECK_INT(a.run.n_rows, 1);
	ISNULL(a.run, 0, "run_id");
	TEXT(a.run, 0, "source", "kineto");
	INT(a.run, 0, "ranks", 3);
	INT(a.run, 0, "ranks_failed", 0);
	INT(a.run, 0, "ranks_analysed", 3);
	INT(a.run, 0, "median_rank", 2);
	INT(a.run, 0, "step_ns", 200);
	ISNULL(a.run, 0, "trace_mfu");
	ISNULL(a.run, 0, "median_step");
	ISNULL(a.run, 0, "chip");
	ISNULL(a.run, 0, "peak_tflops");
	REAL(a.run, 0, "share_inefficiency", 0.5);
	CHECK_INT(a.hotspots.n_rows, 0);
	CHECK_INT(a.stragglers.n_rows, 1);
	STRAG(0, "step_ns_median", 1, 400, 200, 200);
	opmfu_account_release(&a);
	rank_free(r, 3);
}

/*
 * No rank has a step time: the median rank is the first analysed, rank 3
 * (rank 5 before it failed). Its measures are all NULL: no stragglers.
 * Without a step time the hotspots have no pct_of_step: MatMul of rank 3,
 * ns 100, lost 50, mfu 0.5, pct NULL (the OpmfuSteps row counts a step,
 * but there is no step time to multiply).
 */
static void t_no_step(void)
{
	struct rank_in r[3];
	struct opmfu_account a;
	struct opmfu_err err = OPMFU_ERR_INIT;

	memset(r, 0, sizeof(r));
	put_sum(table(&r[0], &sum_def), &(struct srow){ 5, "failed", NUL, RNUL, RNUL, RNUL, RNUL, RNUL, RNUL, RNUL,
							   RNUL, NUL, RNUL, NULL, NULL, 0, NULL });
	put_sum(table(&r[1], &sum_def), &(struct srow){ 3, "ok", NUL, RNUL, RNUL, RNUL, RNUL, RNUL, RNUL, RNUL, RNUL,
							   NUL, 313, "chip table", "Ascend910B3", 0, NULL });
	put_step(table(&r[1], &steps_def), 3, 100);
	put_hot(table(&r[1], &op_def), "MatMul", 1, 100, 100, 0.5, 50);
	put_sum(table(&r[2], &sum_def), &(struct srow){ 1, "ok", NUL, 0.25, RNUL, RNUL, RNUL, RNUL, RNUL, RNUL, RNUL,
							   NUL, RNUL, NULL, NULL, 0, NULL });
	opmfu_account_init(&a);
	CHECK_INT(feed(&a, r, 3, "id", "mixed", 1, &err), OPMFU_OK);
	CHECK_INT(a.median_row, 1);
	INT(a.run, 0, "ranks", 3);
	INT(a.run, 0, "ranks_failed", 1);
	INT(a.run, 0, "ranks_analysed", 2);
	INT(a.run, 0, "median_rank", 3);
	ISNULL(a.run, 0, "step_ns");
	REAL(a.run, 0, "peak_tflops", 313);
	TEXT(a.run, 0, "chip", "Ascend910B3");
	CHECK_INT(a.hotspots.n_rows, 1);
	HOT(0, "op_type", "MatMul", 1, 1, 100, 50, NAN, 0.5);
	/* trace_mfu is known on rank 1 only and NULL on rank 3: no row at all */
	CHECK_INT(a.stragglers.n_rows, 0);
	opmfu_account_release(&a);
	rank_free(r, 3);
}

/* One rank: its own run, nothing to straggle behind. */
static void t_one_rank(void)
{
	struct rank_in r[1];
	struct opmfu_account a;
	struct opmfu_err err = OPMFU_ERR_INIT;

	memset(r, 0, sizeof(r));
	put_sum(table(&r[0], &sum_def), &(struct srow){ 0, "ok", 1000, 0.5, 0.75, 0.5, 0.625, 0.125, 0.0625, 0.25,
							   0.0625, 3, 313, "chip table", "Ascend910B3", 0, NULL });
	opmfu_account_init(&a);
	CHECK_INT(feed(&a, r, 1, "one", "ascend", 0, &err), OPMFU_OK);
	INT(a.run, 0, "ranks", 1);
	INT(a.run, 0, "median_rank", 0);
	INT(a.run, 0, "step_ns", 1000);
	REAL(a.run, 0, "share_other_compute", 0.25);
	CHECK_INT(a.stragglers.n_rows, 0);
	opmfu_account_release(&a);
	rank_free(r, 1);
}

/*
 * No rank kept (both failed before their tables, or all dropped): the
 * run row counts the failed ones, ranks = max(0 kept, 2 failed) = 2, and
 * has no median rank. Only failed ranks kept: no median either.
 */
static void t_no_rank(void)
{
	struct rank_in r[2];
	struct opmfu_account a;
	struct opmfu_err err = OPMFU_ERR_INIT;

	memset(r, 0, sizeof(r));
	r[0].drop = 1;
	put_sum(table(&r[0], &sum_def), &(struct srow){ 0, "ok", 1000, 0.5, 0.75, 0.5, 0.625, 0.125, 0.0625, 0.25,
							   0.0625, 3, 313, "chip table", "Ascend910B3", 0, NULL });
	put_hot(table(&r[0], &op_def), "MatMul", 1, 100, 100, 0.5, 50);
	opmfu_account_init(&a);
	CHECK_INT(feed(&a, r, 1, "none", "ascend", 2, &err), OPMFU_OK);
	CHECK(a.median_row == SIZE_MAX);
	CHECK_INT(a.run.n_rows, 1);
	INT(a.run, 0, "ranks", 2);
	INT(a.run, 0, "ranks_failed", 2);
	INT(a.run, 0, "ranks_analysed", 0);
	ISNULL(a.run, 0, "median_rank");
	ISNULL(a.run, 0, "step_ns");
	ISNULL(a.run, 0, "chip");
	CHECK_INT(a.hotspots.n_rows, 0);
	CHECK_INT(a.stragglers.n_rows, 0);
	opmfu_account_release(&a);
	rank_free(r, 1);

	memset(r, 0, sizeof(r));
	put_sum(table(&r[0], &sum_def), &(struct srow){ 0, "failed", 1000, 0.5, 0.75, 0.5, 0.625, 0.125, 0.0625, 0.25,
							   0.0625, 3, 313, "chip table", "Ascend910B3", 0, NULL });
	put_sum(table(&r[1], &sum_def), &(struct srow){ 1, "failed", 2000, 0.25, 0.75, 0.5, 0.625, 0.125, 0.0625,
							   0.25, 0.0625, 3, 313, "chip table", "Ascend910B3", 0, NULL });
	opmfu_account_init(&a);
	CHECK_INT(feed(&a, r, 2, "all-failed", "ascend", 2, &err), OPMFU_OK);
	CHECK(a.median_row == SIZE_MAX);
	INT(a.run, 0, "ranks", 2);
	INT(a.run, 0, "ranks_analysed", 0);
	ISNULL(a.run, 0, "median_rank");
	ISNULL(a.run, 0, "trace_mfu");
	CHECK_INT(a.stragglers.n_rows, 0);
	opmfu_account_release(&a);
	rank_free(r, 2);
}

/*
 * Two ranks give OpmfuOpTypes in two column layouts (this test's, and the
 * analysis's own opmfu_op_types_def: rank_id first, flops between): the
 * account reads by column name, so a rank's rows must never be read
 * through another rank's layout. The second layout is refused, as two
 * OpmfuRankSummary layouts are: OPMFU_ERR_SCHEMA.
 */
static void t_two_layouts(void)
{
	struct opmfu_cell_store s1, s2;
	struct opmfu_account a;
	struct opmfu_err err = OPMFU_ERR_INIT;
	struct opmfu_table t;
	/* as wide as any layout of the table: the cells past its columns stay unread */
	struct opmfu_cell c[32] = { opmfu_cell_int(1),	 opmfu_cell_str("MatMul"), opmfu_cell_int(4),
				   opmfu_cell_int(800),	 opmfu_cell_int(800),	   opmfu_cell_int(1000),
				   opmfu_cell_real(0.5), opmfu_cell_int(400) };

	opmfu_cell_store_init(&s1, &op_def);
	opmfu_cell_store_init(&s2, &opmfu_op_types_def);
	put_hot(&s1, "MatMul", 4, 800, 800, 0.5, 400);
	put(&s2, c);
	opmfu_account_init(&a);
	t = opmfu_cell_store_table(&s1);
	CHECK_INT(opmfu_account_add(&a, &t, &err), OPMFU_OK);
	CHECK_INT(opmfu_account_keep(&a, &err), OPMFU_OK);
	t = opmfu_cell_store_table(&s2);
	CHECK_INT(opmfu_account_add(&a, &t, &err), OPMFU_ERR_SCHEMA);
	CHECK_STR(err.msg, "table OpmfuOpTypes given with two different column layouts");
	opmfu_account_drop(&a);
	CHECK_INT(opmfu_account_keep(&a, &err), OPMFU_OK);
	CHECK_INT(opmfu_account_finish(&a, &err), OPMFU_OK);
	/* rank 0's MatMul only: 1 rank, 4 calls, 800 ns, 400 lost, mfu 0.5; no steps: pct NULL */
	CHECK_INT(a.hotspots.n_rows, 1);
	HOT(0, "op_type", "MatMul", 1, 4, 800, 400, NAN, 0.5);
	opmfu_account_release(&a);
	opmfu_cell_store_release(&s1);
	opmfu_cell_store_release(&s2);
}

int main(void)
{
	t_median_index();
	t_cluster();
	t_nomem();
	t_nulls();
	t_no_step();
	t_one_rank();
	t_no_rank();
	t_two_layouts();
	return check_done();
}
