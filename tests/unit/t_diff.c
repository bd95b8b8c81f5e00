/*
 * t_diff.c - `opmfu diff`'s rows (lib/diff_rows.c) from hand-built results:
 * which ranks are compared, sums over ranks with MFU time-weighted, step
 * shares, rows on one side, the order of rows, model and rank rows,
 * --rank-list and its errors, rank lists as text; every allocation of the
 * rows failing in turn. Then the whole of opmfu_diff on the sample (argv[1]:
 * a rank directory) against its own analysis, with every allocation failing
 * in turn: each run ends with "out of memory" and leaves no temporary folder
 * (TMPDIR is argv[2]/tmp), and the run that succeeds compares the sample
 * with itself: no change anywhere; with xlsx in the exports, a run that
 * fails leaves an earlier summary workbook as it was, one that succeeds
 * replaces it. And opmfu_results_tables (read/results.c), the reader of any
 * result table by a def, on databases written here.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "base/mem.h"
#include "check.h"
#include "files.h"
#include "lib/diff.h"

/* Appends to the results of a side, the name interned in d's store. */
static uint32_t name(struct opmfu_diff *d, const char *s)
{
	return opmfu_intern_add(&((struct opmfu_diff_store *)d->store)->names, s, strlen(s));
}

static void add_rank(struct opmfu_results *r, int rank, int failed, double compute_ns, double flops, double mfu)
{
	struct opmfu_res_rank k = { rank, failed, compute_ns, flops, mfu };
	CHECK(OPMFU_GROW(r->ranks, r->cap_ranks, r->n_ranks + 1) == 0);
	r->ranks[r->n_ranks++] = k;
}

static void add_row(struct opmfu_results *r, int list, int rank, uint32_t nm, double kernel, double flops, double mfu,
		    double lost)
{
	struct opmfu_res_row w = { rank, nm, kernel, flops, mfu, lost };
	CHECK(OPMFU_GROW(r->rows[list], r->cap_rows[list], r->n_rows[list] + 1) == 0);
	r->rows[list][r->n_rows[list]++] = w;
}

static void add_step(struct opmfu_results *r, int rank, double window, double flops_ns, double other, double comm,
		     double idle, double flops, double trace_mfu)
{
	struct opmfu_res_step s = { rank, window, flops_ns, other, comm, idle, flops, trace_mfu, NAN };
	CHECK(OPMFU_GROW(r->steps, r->cap_steps, r->n_steps + 1) == 0);
	r->steps[r->n_steps++] = s;
}

/* A step that knows its waiting (SPEC 19): comm_wait_ns of its comm. */
static void add_step_wait(struct opmfu_results *r, int rank, double window, double comm, double idle, double wait)
{
	add_step(r, rank, window, 0, 0, comm, idle, NAN, NAN);
	r->steps[r->n_steps - 1].comm_wait_ns = wait;
}

static int same(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

/* Checks row i: kind, name, then BASE and NEW kernel, FLOPs, MFU, lost and the change (NAN: NULL). */
static void check_row(const struct opmfu_diff *d, size_t i, enum opmfu_diff_kind kind, const char *nm,
		      const double v[9], int line)
{
	const struct opmfu_diff_row *r;
	double got[9];
	int k;
	if (i >= d->n_rows) {
		fprintf(stderr, "line %d: no row %zu (%zu rows)\n", line, i, d->n_rows);
		CHECK(0);
		return;
	}
	r = &d->rows[i];
	got[0] = r->kernel_ns[0], got[1] = r->kernel_ns[1], got[2] = r->flops[0], got[3] = r->flops[1];
	got[4] = r->mfu[0], got[5] = r->mfu[1], got[6] = r->lost_ns[0], got[7] = r->lost_ns[1];
	got[8] = r->delta_lost_ns;
	CHECK_INT(r->kind, kind);
	CHECK_STR(r->name, nm);
	for (k = 0; k < 9; k++)
		if (!same(got[k], v[k])) {
			fprintf(stderr, "line %d: row %zu (%s) value %d is %.17g, expected %.17g\n", line, i, nm, k,
				got[k], v[k]);
			CHECK(0);
		}
}
#define ROW(d, i, kind, nm, ...)                                    \
	do {                                                        \
		const double v_[9] = { __VA_ARGS__ };               \
		check_row(d, i, kind, nm, v_, __LINE__);            \
	} while (0)

/*
 * BASE ranks 0, 1, 4; NEW ranks 0, 2 and 1 failed: only rank 0 is compared
 * (BASE only: 1, 4; NEW only: 2; failed in NEW: 1).
 *
 * Module paths, rank 0: A: BASE 300 ns, 60 FLOPs, MFU 0.4 (capacity 150),
 * lost 150; NEW 200 ns, 60 FLOPs, MFU 0.6, lost 100: change -50. B and C
 * only in NEW (50 ns each, no FLOPs, lost 50): +50, by name. Z has 0 ns on
 * both sides: no row. Rows of ranks 1 and 2 are in no sum.
 *
 * Steps, rank 0: BASE one step, window 100, FLOP compute 50, other 10, comm
 * 20, idle 20, 60 FLOPs, trace MFU 0.25 (useful 25). NEW has no step: its
 * side is NULL and counts 0 in the change. trace_mfu 100 ns, mfu 0.25, lost
 * 75 (change -75); inefficiency 50 ns, (50 - 25)/100 = 0.25, lost 25; other
 * 10 (0.1), comm 20 (0.2), idle 20 (0.2); comm_wait NULL on both sides (no
 * step knows it), its change NULL.
 */
static void build_a(struct opmfu_diff *d, struct opmfu_results res[2])
{
	memset(res, 0, 2 * sizeof(res[0]));
	add_rank(&res[0], 0, 0, 400, 60, 0.4);
	add_rank(&res[0], 1, 0, 1000, 5, 0.125);
	add_rank(&res[0], 4, 0, 700, NAN, NAN);
	add_rank(&res[1], 2, 0, 90, 0, NAN);
	add_rank(&res[1], 0, 0, 300, 60, 0.6);
	add_rank(&res[1], 1, 1, NAN, NAN, NAN);
	add_row(&res[0], OPMFU_RES_MODULES, 0, name(d, "A"), 300, 60, 0.4, 150);
	add_row(&res[0], OPMFU_RES_MODULES, 0, name(d, "Z"), 0, 0, NAN, 0);
	add_row(&res[0], OPMFU_RES_MODULES, 1, name(d, "A"), 1000, 5, 0.125, 900);
	add_row(&res[1], OPMFU_RES_MODULES, 0, name(d, "C"), 50, NAN, NAN, 50);
	add_row(&res[1], OPMFU_RES_MODULES, 0, name(d, "A"), 200, 60, 0.6, 100);
	add_row(&res[1], OPMFU_RES_MODULES, 0, name(d, "B"), 50, NAN, NAN, 50);
	add_row(&res[1], OPMFU_RES_MODULES, 0, name(d, "Z"), 0, 0, NAN, 0);
	add_row(&res[1], OPMFU_RES_MODULES, 2, name(d, "A"), 90, 0, NAN, 90);
	add_step(&res[0], 0, 100, 50, 10, 20, 20, 60, 0.25);
	add_step(&res[0], 1, 1000, 0, 0, 0, 1000, 0, 0);
	add_step(&res[1], 2, 100, 0, 0, 0, 100, 0, NAN);
	res[0].has_model = 1;
	res[0].model = opmfu_calloc(1, sizeof(*res[0].model));
	res[0].n_model = res[0].cap_model = 1;
	res[0].model[0].conv = name(d, "palm");
	res[0].model[0].mfu = 0.5;
}

static void t_compute(void)
{
	struct opmfu_diff d;
	struct opmfu_results res[2];
	struct opmfu_err err = OPMFU_ERR_INIT;
	const double N = NAN;

	memset(&d, 0, sizeof(d));
	CHECK(opmfu_diff_store_new(&d) != NULL);
	build_a(&d, res);
	CHECK_INT(opmfu_diff_compute(res, NULL, 0, &d, &err), OPMFU_OK);
	CHECK_INT(d.n_compared, 1);
	CHECK_INT(d.compared[0], 0);
	CHECK_INT(d.side[0].ranks, 3);
	CHECK_INT(d.side[1].ranks, 2);
	CHECK_INT(d.side[0].n_only, 2);
	CHECK_INT(d.side[0].only[0], 1);
	CHECK_INT(d.side[0].only[1], 4);
	CHECK_INT(d.side[1].n_only, 1);
	CHECK_INT(d.side[1].only[0], 2);
	CHECK_INT(d.side[0].n_failed, 0);
	CHECK_INT(d.side[1].n_failed, 1);
	CHECK_INT(d.side[1].failed[0], 1);
	CHECK_INT(d.side[0].steps, 1);
	CHECK_INT(d.side[1].steps, 0);
	CHECK_INT(d.side[0].has_model, 1);
	CHECK_INT(d.side[1].has_model, 0);
	CHECK_INT(d.n_rows, 6 + 3 + 3);
	ROW(&d, 0, OPMFU_DIFF_STEP_SHARE, "trace_mfu", 100, N, 60, N, 0.25, N, 75, N, -75);
	ROW(&d, 1, OPMFU_DIFF_STEP_SHARE, "inefficiency", 50, N, 60, N, 0.25, N, 25, N, -25);
	ROW(&d, 2, OPMFU_DIFF_STEP_SHARE, "other_compute", 10, N, N, N, 0.1, N, 10, N, -10);
	ROW(&d, 3, OPMFU_DIFF_STEP_SHARE, "comm_exposed", 20, N, N, N, 0.2, N, 20, N, -20);
	ROW(&d, 4, OPMFU_DIFF_STEP_SHARE, "idle", 20, N, N, N, 0.2, N, 20, N, -20);
	ROW(&d, 5, OPMFU_DIFF_STEP_SHARE, "comm_wait", N, N, N, N, N, N, N, N, N);
	/* no collective rows: neither side has OpmfuCollectives */
	ROW(&d, 6, OPMFU_DIFF_MODULE, "B", N, 50, N, N, N, N, N, 50, 50);
	ROW(&d, 7, OPMFU_DIFF_MODULE, "C", N, 50, N, N, N, N, N, 50, 50);
	ROW(&d, 8, OPMFU_DIFF_MODULE, "A", 300, 200, 60, 60, 0.4, 0.6, 150, 100, -50);
	/* no model rows: NEW has no OpmfuModel; ranks on one side: BASE's, then NEW's */
	ROW(&d, 9, OPMFU_DIFF_RANK, "1", 1000, N, 5, N, 0.125, N, N, N, N);
	ROW(&d, 10, OPMFU_DIFF_RANK, "4", 700, N, N, N, N, N, N, N, N);
	ROW(&d, 11, OPMFU_DIFF_RANK, "2", N, 90, N, 0, N, N, N, N, N);
	CHECK_STR(opmfu_diff_kind_name(OPMFU_DIFF_OP_TYPE), "op_type");
	CHECK_STR(opmfu_diff_kind_name(OPMFU_DIFF_COLLECTIVE), "collective");
	CHECK_STR(opmfu_diff_kind_name(OPMFU_NDIFF_KIND), "?");
	opmfu_results_release(&res[0]);
	opmfu_results_release(&res[1]);
	opmfu_diff_release(&d);
}

/*
 * Two compared ranks, time-weighted: rank 0 60 FLOPs at MFU 0.4 (capacity
 * 150), rank 1 40 FLOPs at MFU 0.8 (capacity 50): 100 / 200 = 0.5, not the
 * mean 0.6. Both sides have OpmfuModel: palm on both, maxtext BASE only,
 * kempnerforge NEW only, in that order; the change is NULL.
 */
static void t_weighted(void)
{
	struct opmfu_diff d;
	struct opmfu_results res[2];
	struct opmfu_err err = OPMFU_ERR_INIT;
	const double N = NAN;
	int s;

	memset(&d, 0, sizeof(d));
	CHECK(opmfu_diff_store_new(&d) != NULL);
	memset(res, 0, sizeof(res));
	for (s = 0; s < 2; s++) {
		add_rank(&res[s], 0, 0, 1, 1, 1);
		add_rank(&res[s], 1, 0, 1, 1, 1);
		add_row(&res[s], OPMFU_RES_OP_TYPES, 0, name(&d, "mm"), 300, 60, 0.4, 150);
		add_row(&res[s], OPMFU_RES_OP_TYPES, 1, name(&d, "mm"), 100, 40, 0.8, 20 + s);
		res[s].has_model = 1;
		res[s].model = opmfu_calloc(2, sizeof(*res[s].model));
		res[s].n_model = res[s].cap_model = 2;
		res[s].model[0].conv = name(&d, "palm");
		res[s].model[0].step_ns = 1000 + s;
		res[s].model[0].flops = 7;
		res[s].model[0].mfu = 0.25 * (s + 1);
		res[s].model[1].conv = name(&d, s ? "kempnerforge" : "maxtext");
		res[s].model[1].step_ns = N;
		res[s].model[1].flops = N;
		res[s].model[1].mfu = 0.125;
	}
	CHECK_INT(opmfu_diff_compute(res, NULL, 0, &d, &err), OPMFU_OK);
	CHECK_INT(d.n_rows, 6 + 1 + 3);
	/* no steps on either side: the share rows are NULL through */
	ROW(&d, 0, OPMFU_DIFF_STEP_SHARE, "trace_mfu", N, N, N, N, N, N, N, N, N);
	ROW(&d, 5, OPMFU_DIFF_STEP_SHARE, "comm_wait", N, N, N, N, N, N, N, N, N);
	ROW(&d, 6, OPMFU_DIFF_OP_TYPE, "mm", 400, 400, 100, 100, 0.5, 0.5, 170, 171, 1);
	ROW(&d, 7, OPMFU_DIFF_MODEL, "palm", 1000, 1001, 7, 7, 0.25, 0.5, N, N, N);
	ROW(&d, 8, OPMFU_DIFF_MODEL, "maxtext", N, N, N, N, 0.125, N, N, N, N);
	ROW(&d, 9, OPMFU_DIFF_MODEL, "kempnerforge", N, N, N, N, N, 0.125, N, N, N);
	opmfu_results_release(&res[0]);
	opmfu_results_release(&res[1]);
	opmfu_diff_release(&d);
}

/*
 * Collectives (SPEC 19), ranks 0 and 1 compared on both sides.
 *
 * Steps: BASE rank 0 window 100, exposed comm 40 of which waiting 10; rank
 * 1 window 102, comm 51, waiting 27: comm_wait 37 ns, 37 / 202 of the
 * windows, lost 37. NEW rank 0 window 100, comm 30, waiting 4; rank 1 window
 * 100, comm 30, waiting unknown (it counts 0, as an unknown part does): 4
 * ns, 4 / 200 = 0.02; change 4 - 37 = -33.
 *
 * OpmfuCollectives, time and exposed (the lost columns): allreduce [group 0]
 * BASE rank 0 20 / 14, rank 1 15 / 9 (rank 2's 100 / 100: not compared),
 * NEW 20 / 20 on each: 35 / 23 -> 40 / 40, +17; broadcast [group 1] NEW
 * only, rank 1 10 / 10: +10, BASE NULL; allgather [group 0] BASE only, rank
 * 0 16 / 16: -16. No FLOPs or MFU. By change: allreduce, broadcast,
 * allgather; after the six step rows.
 *
 * Then NEW without the table (a result older than SPEC 19): no collective
 * rows at all, though BASE has some; and NEW's waiting all unknown: its
 * comm_wait cells NULL, and the change NULL (not -37).
 */
static void t_collectives(void)
{
	struct opmfu_diff d;
	struct opmfu_results res[2];
	struct opmfu_err err = OPMFU_ERR_INIT;
	const double N = NAN;
	int s;

	memset(&d, 0, sizeof(d));
	CHECK(opmfu_diff_store_new(&d) != NULL);
	memset(res, 0, sizeof(res));
	for (s = 0; s < 2; s++) {
		add_rank(&res[s], 0, 0, 1, N, N);
		add_rank(&res[s], 1, 0, 1, N, N);
		res[s].has_colls = 1;
	}
	add_step_wait(&res[0], 0, 100, 40, 60, 10);
	add_step_wait(&res[0], 1, 102, 51, 51, 27);
	add_step_wait(&res[1], 0, 100, 30, 70, 4);
	add_step_wait(&res[1], 1, 100, 30, 70, N);
	add_row(&res[0], OPMFU_RES_COLLECTIVES, 0, name(&d, "allreduce [group 0]"), 20, N, N, 14);
	add_row(&res[0], OPMFU_RES_COLLECTIVES, 0, name(&d, "allgather [group 0]"), 16, N, N, 16);
	add_row(&res[0], OPMFU_RES_COLLECTIVES, 1, name(&d, "allreduce [group 0]"), 15, N, N, 9);
	add_row(&res[0], OPMFU_RES_COLLECTIVES, 2, name(&d, "allreduce [group 0]"), 100, N, N, 100);
	add_row(&res[1], OPMFU_RES_COLLECTIVES, 0, name(&d, "allreduce [group 0]"), 20, N, N, 20);
	add_row(&res[1], OPMFU_RES_COLLECTIVES, 1, name(&d, "allreduce [group 0]"), 20, N, N, 20);
	add_row(&res[1], OPMFU_RES_COLLECTIVES, 1, name(&d, "broadcast [group 1]"), 10, N, N, 10);
	CHECK_INT(opmfu_diff_compute(res, NULL, 0, &d, &err), OPMFU_OK);
	CHECK_INT(d.n_rows, 6 + 3);
	ROW(&d, 3, OPMFU_DIFF_STEP_SHARE, "comm_exposed", 91, 60, N, N, 91.0 / 202, 0.3, 91, 60, -31);
	ROW(&d, 5, OPMFU_DIFF_STEP_SHARE, "comm_wait", 37, 4, N, N, 37.0 / 202, 0.02, 37, 4, -33);
	ROW(&d, 6, OPMFU_DIFF_COLLECTIVE, "allreduce [group 0]", 35, 40, N, N, N, N, 23, 40, 17);
	ROW(&d, 7, OPMFU_DIFF_COLLECTIVE, "broadcast [group 1]", N, 10, N, N, N, N, N, 10, 10);
	ROW(&d, 8, OPMFU_DIFF_COLLECTIVE, "allgather [group 0]", 16, N, N, N, N, N, 16, N, -16);
	opmfu_diff_release(&d);

	res[1].has_colls = 0;
	res[1].steps[0].comm_wait_ns = N;
	memset(&d, 0, sizeof(d));
	CHECK(opmfu_diff_store_new(&d) != NULL);
	CHECK_INT(opmfu_diff_compute(res, NULL, 0, &d, &err), OPMFU_OK);
	CHECK_INT(d.n_rows, 6);
	ROW(&d, 5, OPMFU_DIFF_STEP_SHARE, "comm_wait", 37, N, N, N, 37.0 / 202, N, 37, N, N);
	opmfu_diff_release(&d);
	opmfu_results_release(&res[0]);
	opmfu_results_release(&res[1]);
}

/* --rank-list, and the errors of rank lists and summaries. */
static void t_rank_list(void)
{
	static const int r40[] = { 4, 0, 4 }, r3[] = { 3 }, r1[] = { 1 };
	struct opmfu_diff d;
	struct opmfu_results res[2];
	struct opmfu_err err = OPMFU_ERR_INIT;

	/* 4 and 0 (repeated, unsorted): BASE {0, 4}, NEW {0}; NEW's failed rank 1 is not asked for */
	memset(&d, 0, sizeof(d));
	CHECK(opmfu_diff_store_new(&d) != NULL);
	build_a(&d, res);
	CHECK_INT(opmfu_diff_compute(res, r40, 3, &d, &err), OPMFU_OK);
	CHECK_INT(d.n_compared, 1);
	CHECK_INT(d.side[0].n_only, 1);
	CHECK_INT(d.side[0].only[0], 4);
	CHECK_INT(d.side[1].n_only, 0);
	CHECK_INT(d.side[1].n_failed, 0);
	opmfu_diff_release(&d);

	memset(&d, 0, sizeof(d));
	CHECK(opmfu_diff_store_new(&d) != NULL);
	CHECK_INT(opmfu_diff_compute(res, r3, 1, &d, &err), OPMFU_ERR_USAGE);
	CHECK_STR(err.msg, "rank 3 is in neither BASE nor NEW");
	opmfu_diff_release(&d);

	/* rank 1 is analysed in BASE and failed in NEW */
	memset(&d, 0, sizeof(d));
	CHECK(opmfu_diff_store_new(&d) != NULL);
	CHECK_INT(opmfu_diff_compute(res, r1, 1, &d, &err), OPMFU_ERR_NOINPUT);
	CHECK_STR(err.msg, "no rank is analysed in both BASE and NEW (BASE: 1; NEW: none): nothing to compare");
	opmfu_diff_release(&d);

	/* a rank twice in a summary */
	add_rank(&res[1], 2, 0, 1, 1, 1);
	memset(&d, 0, sizeof(d));
	CHECK(opmfu_diff_store_new(&d) != NULL);
	CHECK_INT(opmfu_diff_compute(res, NULL, 0, &d, &err), OPMFU_ERR_FORMAT);
	CHECK_STR(err.msg, "NEW: OpmfuRankSummary has rank 2 twice");
	opmfu_diff_release(&d);
	opmfu_results_release(&res[0]);
	opmfu_results_release(&res[1]);
}

static void t_format_ranks(void)
{
	static const int v[] = { 0, 1, 2, 3, 8, 10, 11 }, neg[] = { -1 };
	char buf[64];
	opmfu_format_ranks(v, 7, buf, sizeof(buf));
	CHECK_STR(buf, "0-3, 8, 10-11");
	opmfu_format_ranks(neg, 1, buf, sizeof(buf));
	CHECK_STR(buf, "-1");
	opmfu_format_ranks(v, 0, buf, sizeof(buf));
	CHECK_STR(buf, "");
	/* the whole list needs 14 bytes (13 characters and the NUL); in 12, "0-3, 8" and ", ..." after
	 * it (11 characters); in 4, "..." alone; in 3, nothing */
	opmfu_format_ranks(v, 7, buf, 14);
	CHECK_STR(buf, "0-3, 8, 10-11");
	opmfu_format_ranks(v, 7, buf, 13);
	CHECK_STR(buf, "0-3, 8, ...");
	opmfu_format_ranks(v, 7, buf, 12);
	CHECK_STR(buf, "0-3, 8, ...");
	opmfu_format_ranks(v, 7, buf, 4);
	CHECK_STR(buf, "...");
	opmfu_format_ranks(v, 7, buf, 3);
	CHECK_STR(buf, "");
}

/* Every allocation of the rows failing in turn: OPMFU_ERR_NOMEM, nothing leaked. */
static void t_compute_nomem(void)
{
	long k;
	int done = 0;
	for (k = 1; k < 200 && !done; k++) {
		struct opmfu_diff d;
		struct opmfu_results res[2];
		struct opmfu_err err = OPMFU_ERR_INIT;
		enum opmfu_status st;
		memset(&d, 0, sizeof(d));
		CHECK(opmfu_diff_store_new(&d) != NULL);
		build_a(&d, res);
		opmfu_mem_fail_after(k);
		st = opmfu_diff_compute(res, NULL, 0, &d, &err);
		opmfu_mem_fail_after(0);
		if (st == OPMFU_OK) {
			done = 1;
			CHECK_INT(d.n_rows, 12);
		} else {
			CHECK_INT(st, OPMFU_ERR_NOMEM);
			CHECK_STR(err.msg, "out of memory comparing the runs");
		}
		opmfu_results_release(&res[0]);
		opmfu_results_release(&res[1]);
		opmfu_diff_release(&d);
	}
	CHECK(done);
}

/* The sample against its own analysis: a result (BASE) and the input (NEW). */
static enum opmfu_status run_diff(const char *sample, const char *result, const char *out, struct opmfu_diff *d,
				  struct opmfu_err *err)
{
	struct opmfu_diff_opts o;
	memset(&o, 0, sizeof(o));
	o.paths[0] = result;
	o.paths[1] = sample;
	o.analyze.jobs = 1;
	o.out_dir = out;
	o.exports = OPMFU_EXPORT_DB | OPMFU_EXPORT_XLSX | OPMFU_EXPORT_CSV | OPMFU_EXPORT_JSON;
	memset(err, 0, sizeof(*err));
	return opmfu_diff(&o, d, err);
}

/* The run that succeeds: the same rows on both sides, so every change is 0;
 * but the one rank's waiting for other ranks, which no side knows: NULL. */
static void check_same(const struct opmfu_diff *d)
{
	size_t i;
	CHECK(d->n_rows > 5);
	for (i = 0; i < d->n_rows; i++) {
		const struct opmfu_diff_row *r = &d->rows[i];
		if (r->kind == OPMFU_DIFF_STEP_SHARE && !strcmp(r->name, "comm_wait"))
			CHECK(isnan(r->kernel_ns[0]) && isnan(r->kernel_ns[1]) && isnan(r->delta_lost_ns));
		else
			CHECK(r->delta_lost_ns == 0);
	}
	CHECK(d->out_db != NULL);
	CHECK(d->summary_xlsx != NULL);
}

static void t_diff_nomem(const char *sample, const char *scratch)
{
	char result[1024], out[1024], tmp[1024], book[1200];
	struct opmfu_opts ao;
	struct opmfu_report rep;
	struct opmfu_err err = OPMFU_ERR_INIT;
	struct opmfu_diff d;
	long k, total, failed = 0;

	snprintf(result, sizeof(result), "%s/base", scratch);
	snprintf(out, sizeof(out), "%s/out", scratch);
	snprintf(tmp, sizeof(tmp), "%s/tmp", scratch);
	mkdir(scratch, 0777);
	mkdir(tmp, 0777);
	setenv("TMPDIR", tmp, 1);
	memset(&ao, 0, sizeof(ao));
	ao.inputs = &sample;
	ao.n_inputs = 1;
	ao.out_dir = result;
	ao.jobs = 1;
	CHECK_INT(opmfu_analyze_report(&ao, &rep, &err), OPMFU_OK);
	opmfu_report_release(&rep);
	total = opmfu_mem_count();
	CHECK_INT(run_diff(sample, result, out, &d, &err), OPMFU_OK);
	total = opmfu_mem_count() - total;
	check_same(&d);
	snprintf(book, sizeof(book), "%s/cluster_analysis_output/OperatorMfu/opmfu_summary.xlsx", out);
	CHECK(d.summary_xlsx && !strcmp(d.summary_xlsx, book));
	opmfu_diff_release(&d);
	for (k = 1; k <= total + 5; k++) {
		enum opmfu_status st;
		put_file(book, "earlier");
		opmfu_mem_fail_after(k);
		st = run_diff(sample, result, out, &d, &err);
		opmfu_mem_fail_after(0);
		/* the summary workbook is replaced by a diff that succeeds, and only by one */
		if (file_is(book, "earlier") != (st != OPMFU_OK)) {
			fprintf(stderr, "failing allocation %ld: status %d, the workbook %s\n", k, (int)st,
				st ? "replaced" : "not replaced");
			CHECK(0);
		}
		CHECK_INT(tmp_files(out), 0);
		/* an allocation that only speeds things up may fail without a word */
		if (st == OPMFU_OK)
			check_same(&d);
		else if (++failed, getenv("T_DIFF_VERBOSE") || !strstr(err.msg, "out of memory")) {
			fprintf(stderr, "failing allocation %ld: status %d: %s\n", k, (int)st, err.msg);
			CHECK(strstr(err.msg, "out of memory") != NULL);
		}
		/* the analysed input's folder is gone, whatever failed */
		if (dir_files(tmp, "") != 0) {
			fprintf(stderr, "failing allocation %ld left %d entries in %s\n", k, dir_files(tmp, ""), tmp);
			CHECK(0);
		}
		opmfu_diff_release(&d);
	}
	/* most allocations matter: a loop where none failed would test nothing */
	CHECK(failed > total / 2);
	printf("opmfu_diff: %ld allocations, %ld runs failed with one of them failing\n", total, failed);
}

/* ---- opmfu_results_tables ---- */

static const struct opmfu_column step_cols[] = {
	{ "rank_id", OPMFU_COL_INT, "", 0, 0 }, { "step", OPMFU_COL_INT, "", 0, 0 },
	{ "window_ns", OPMFU_COL_INT, "", 0, 0 }, { "trace_mfu", OPMFU_COL_REAL, "", 0, 0 },
	{ "share_idle", OPMFU_COL_REAL, "", 0, 0 }, /* not in the databases below */
};
static const struct opmfu_table_def step_def = { "OpmfuSteps", step_cols, 5, NULL, 0, NULL };
static const struct opmfu_column op_cols[] = { { "rank_id", OPMFU_COL_INT, "", 0, 0 },
					       { "op_name", OPMFU_COL_TEXT, "", 0, 0 } };
static const struct opmfu_table_def op_def = { "OpmfuOpTypes", op_cols, 2, NULL, 0, NULL };
static const struct opmfu_table_def mod_def = { "OpmfuModules", op_cols, 2, NULL, 0, NULL }; /* not in them */
static const struct opmfu_table_def *const read_defs[] = { &step_def, &mod_def, &op_def };

/* What opmfu_results_tables gave: every row (copied) and the pieces' sizes. */
struct got_rows {
	struct opmfu_cell_store cs[3];
	size_t pieces[3][8], n_pieces[3];
	int fail_at; /* the piece (counted over all tables) whose call fails; 0: none */
	int calls;
};

static enum opmfu_status take_rows(void *ctx, size_t k, const struct opmfu_table *t, struct opmfu_err *err)
{
	struct got_rows *g = ctx;
	if (++g->calls == g->fail_at)
		return opmfu_err_set(err, OPMFU_ERR_IO, "piece %d refused", g->calls);
	CHECK(k < 3 && t->def == read_defs[k]);
	if (k >= 3 || t->def != read_defs[k])
		return OPMFU_ERR_USAGE;
	if (g->n_pieces[k] < 8)
		g->pieces[k][g->n_pieces[k]++] = t->n_rows;
	return opmfu_cell_store_add_table(&g->cs[k], t, err);
}

static void got_init(struct got_rows *g)
{
	size_t k;
	memset(g, 0, sizeof(*g));
	for (k = 0; k < 3; k++)
		opmfu_cell_store_init(&g->cs[k], read_defs[k]);
}

static void got_release(struct got_rows *g)
{
	size_t k;
	for (k = 0; k < 3; k++)
		opmfu_cell_store_release(&g->cs[k]);
}

static void make_db(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	unlink(path);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
}

static const struct opmfu_cell *got_cell(const struct got_rows *g, size_t k, size_t i, size_t c)
{
	return &g->cs[k].cells[i * read_defs[k]->n_cols + c];
}

/* Row i of table k: integers (INT64_MIN for NULL) in cols 0-2 of steps. */
static void check_step(const struct got_rows *g, size_t i, int64_t rank, int64_t step, int64_t win, double mfu)
{
	const struct opmfu_cell *c = got_cell(g, 0, i, 0);
	CHECK(!c[0].null && c[0].v.i == rank);
	CHECK(step == INT64_MIN ? c[1].null : !c[1].null && c[1].v.i == step);
	CHECK(!c[2].null && c[2].v.i == win);
	CHECK(isnan(mfu) ? c[3].null : !c[3].null && c[3].v.r == mfu);
	CHECK(c[4].null); /* share_idle: not a column of the table */
}

static void t_results_tables(const char *scratch)
{
	static const int ranks[] = { 3, 0 };
	char path[1200], bad[1200];
	struct got_rows g;
	struct opmfu_err err = OPMFU_ERR_INIT;
	long k;

	mkdir(scratch, 0777);
	snprintf(path, sizeof(path), "%s/results.db", scratch);
	snprintf(bad, sizeof(bad), "%s/bad.db", scratch);
	/* trace_mfu 1 is an INTEGER (a REAL column takes it as 1.0); extra is a column the def does not have */
	make_db(path, "CREATE TABLE OpmfuSteps (rank_id INTEGER, step INTEGER, window_ns INTEGER, trace_mfu REAL, "
		      "extra TEXT);"
		      "INSERT INTO OpmfuSteps VALUES (0, 1, 1000, 0.5, 'x'), (0, NULL, 2000, NULL, NULL), "
		      "(1, 1, 3000, 1, 'y'), (2, 1, 4000, 0.25, NULL), (3, 1, 5000, 0.75, NULL);"
		      "CREATE TABLE OpmfuOpTypes (rank_id INTEGER, op_name TEXT);"
		      "INSERT INTO OpmfuOpTypes VALUES (0, 'aten::mm'), (1, 'x''y');");

	/* pieces of at most 2 rows, in the database's order; OpmfuModules is not there: no call */
	got_init(&g);
	CHECK_INT(opmfu_results_tables(path, read_defs, 3, NULL, 0, 2, take_rows, &g, &err), OPMFU_OK);
	CHECK_INT(g.n_pieces[0], 3);
	CHECK(g.pieces[0][0] == 2 && g.pieces[0][1] == 2 && g.pieces[0][2] == 1);
	CHECK_INT(g.n_pieces[1], 0);
	CHECK_INT(g.n_pieces[2], 1);
	CHECK_INT(g.cs[0].n_rows, 5);
	check_step(&g, 0, 0, 1, 1000, 0.5);
	check_step(&g, 1, 0, INT64_MIN, 2000, NAN);
	check_step(&g, 2, 1, 1, 3000, 1.0);
	check_step(&g, 4, 3, 1, 5000, 0.75);
	CHECK_INT(g.cs[2].n_rows, 2);
	CHECK(got_cell(&g, 2, 1, 1)->v.t.n == 3 && !memcmp(got_cell(&g, 2, 1, 1)->v.t.s, "x'y", 3));
	got_release(&g);

	/* ranks 3 and 0: their rows alone, still in the database's order */
	got_init(&g);
	CHECK_INT(opmfu_results_tables(path, read_defs, 3, ranks, 2, 100, take_rows, &g, &err), OPMFU_OK);
	CHECK_INT(g.cs[0].n_rows, 3);
	check_step(&g, 0, 0, 1, 1000, 0.5);
	check_step(&g, 2, 3, 1, 5000, 0.75);
	CHECK_INT(g.cs[2].n_rows, 1);
	got_release(&g);

	/* what the callback says stops the reading */
	got_init(&g);
	g.fail_at = 2;
	CHECK_INT(opmfu_results_tables(path, read_defs, 3, NULL, 0, 2, take_rows, &g, &err), OPMFU_ERR_IO);
	CHECK_STR(err.msg, "piece 2 refused");
	CHECK_INT(g.calls, 2);
	got_release(&g);

	/* values of another type, each named by file, table, row and column */
	make_db(bad, "CREATE TABLE OpmfuSteps (rank_id INTEGER, step INTEGER, window_ns INTEGER, trace_mfu REAL);"
		     "INSERT INTO OpmfuSteps VALUES (0, 1, 1000, 0.5), (0, 2, 'abc', 0.5);");
	got_init(&g);
	CHECK_INT(opmfu_results_tables(bad, read_defs, 1, NULL, 0, 100, take_rows, &g, &err), OPMFU_ERR_FORMAT);
	CHECK(strstr(err.msg, bad) == err.msg && !strcmp(err.msg + strlen(bad), ": OpmfuSteps row 2: window_ns is not an "
									       "integer"));
	CHECK_INT(g.calls, 0); /* the row before it was not given away alone */
	got_release(&g);
	make_db(bad, "CREATE TABLE OpmfuSteps (rank_id INTEGER, step INTEGER, window_ns INTEGER, trace_mfu REAL);"
		     "INSERT INTO OpmfuSteps VALUES (0, 1.5, 1000, 0.5);"
		     "CREATE TABLE OpmfuOpTypes (rank_id INTEGER, op_name);"
		     "INSERT INTO OpmfuOpTypes VALUES (0, 5);");
	got_init(&g);
	CHECK_INT(opmfu_results_tables(bad, read_defs, 1, NULL, 0, 100, take_rows, &g, &err), OPMFU_ERR_FORMAT);
	CHECK(strstr(err.msg, ": OpmfuSteps row 1: step is not an integer") != NULL);
	CHECK_INT(opmfu_results_tables(bad, read_defs + 2, 1, NULL, 0, 100, take_rows, &g, &err), OPMFU_ERR_FORMAT);
	CHECK(strstr(err.msg, ": OpmfuOpTypes row 1: op_name is not a text") != NULL);
	make_db(bad, "CREATE TABLE OpmfuSteps (rank_id INTEGER, step INTEGER, window_ns INTEGER, trace_mfu REAL);"
		     "INSERT INTO OpmfuSteps VALUES (0, 1, 1000, 'high');");
	CHECK_INT(opmfu_results_tables(bad, read_defs, 1, NULL, 0, 100, take_rows, &g, &err), OPMFU_ERR_FORMAT);
	CHECK(strstr(err.msg, ": OpmfuSteps row 1: trace_mfu is not a number") != NULL);
	got_release(&g);

	/* every allocation failing in turn: out of memory, said so */
	for (k = 1; k < 200; k++) {
		enum opmfu_status st;
		got_init(&g);
		opmfu_mem_fail_after(k);
		st = opmfu_results_tables(path, read_defs, 3, ranks, 2, 2, take_rows, &g, &err);
		opmfu_mem_fail_after(0);
		got_release(&g);
		if (st == OPMFU_OK)
			break;
		CHECK_INT(st, OPMFU_ERR_NOMEM);
		CHECK(strstr(err.msg, "out of memory") != NULL);
	}
	CHECK(k > 3 && k < 200);
	unlink(path);
	unlink(bad);
}

int main(int argc, char **argv)
{
	t_compute();
	t_weighted();
	t_collectives();
	t_rank_list();
	t_format_ranks();
	t_compute_nomem();
	if (argc > 2) {
		char scratch[1100];
		snprintf(scratch, sizeof(scratch), "%s/tables", argv[2]);
		mkdir(argv[2], 0777);
		t_results_tables(scratch);
		t_diff_nomem(argv[1], argv[2]);
	}
	return check_done();
}
