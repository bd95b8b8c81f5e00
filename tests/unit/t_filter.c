/*
 * t_filter.c - --steps and --time-range over a hand-built trace
 * (trace/filter.c, SPEC 22), and the time range's parser. What each filter
 * keeps is derived in the comments from the rules in docs/cli.md, Filters.
 */
#include <stdint.h>
#include <string.h>

#include "base/mem.h"
#include "check.h"
#include "trace/filter.h"

static void range(struct opmfu_ranges *rs, int64_t a, int64_t z, int64_t value)
{
	struct opmfu_range r;
	memset(&r, 0, sizeof(r));
	r.start = a;
	r.end = z;
	r.value = value;
	CHECK_INT(opmfu_ranges_add(rs, &r), 0);
}

/*
 * Host steps 1 [0,100), 2 [100,200), 3 [200,300); step 2's device mark
 * [150,260). Links (op span, kernel span, op id):
 *   0: [10,20)   [50,60)   op 0 (step 1)     3: [210,220) [260,290) op 2 (step 3)
 *   1: [10,20)   [60,70)   op 0              4: [120,130) [180,240) op 3 (step 2; communication)
 *   2: [110,120) [160,180) op 1 (step 2)
 * Modules [0,300), [10,20), [210,220); FLOPs records [10,20), [110,120);
 * unlinked kernels [65,66) (no launch) and [170,175) (launched at 105); a copy at
 * [300,310); collective calls 0 [50,55) and 1 [180,240); waits [185,190) of
 * call 1 and [51,52) of call 0.
 */
static void build(struct opmfu_trace *t)
{
	static const int64_t span[5][5] = {
		{ 10, 20, 50, 60, 0 }, { 10, 20, 60, 70, 0 }, { 110, 120, 160, 180, 1 },
		{ 210, 220, 260, 290, 2 }, { 120, 130, 180, 240, 3 },
	};
	size_t i;

	opmfu_trace_init(t);
	t->links = opmfu_calloc(5, sizeof(*t->links));
	t->kx = opmfu_calloc(4, sizeof(*t->kx));
	t->launch = opmfu_calloc(5, sizeof(*t->launch));
	CHECK(t->links && t->kx && t->launch);
	for (i = 0; i < 5; i++) {
		t->links[i].op_start = span[i][0];
		t->links[i].op_end = span[i][1];
		t->links[i].k_start = span[i][2];
		t->links[i].k_end = span[i][3];
		t->links[i].op = (uint32_t)span[i][4];
		t->launch[i] = span[i][0] + (int64_t)i;
		if (i < 4)
			t->kx[i].type = 100 + (uint32_t)i;
	}
	t->n_links = t->cap_links = 5;
	t->n_compute = 4;
	t->n_comm_op = 1;
	t->n_ops = 4;
	range(&t->steps, 0, 100, 1);
	range(&t->steps, 100, 200, 2);
	range(&t->steps, 200, 300, 3);
	range(&t->devsteps, 150, 260, 2);
	range(&t->mods, 0, 300, 0);
	range(&t->mods, 10, 20, 0);
	range(&t->mods, 210, 220, 0);
	range(&t->recs, 10, 20, 1000);
	range(&t->recs, 110, 120, 2000);
	t->n_recs_read = 2;
	range(&t->kernels, 65, 66, OPMFU_NO_LAUNCH);
	range(&t->kernels, 170, 175, 105);
	range(&t->memcpy, 300, 310, OPMFU_NO_LAUNCH);
	CHECK_INT(opmfu_colls_add(&t->colls, &(struct opmfu_coll){ .start = 50, .end = 55, .name = 7 }), 0);
	CHECK_INT(opmfu_colls_add(&t->colls, &(struct opmfu_coll){ .start = 180, .end = 240, .name = 8 }), 0);
	range(&t->waits, 185, 190, 1);
	range(&t->waits, 51, 52, 0);
}

/* What of each part of the trace a filter kept. */
struct kept {
	size_t links, compute, comm_op, ops, steps, devsteps, mods, recs, kernels, memcpy, colls, waits;
};

static void check_kept(const struct opmfu_trace *t, const struct kept *k, int line)
{
	const size_t got[12] = { t->n_links, t->n_compute, t->n_comm_op, t->n_ops, t->steps.n, t->devsteps.n,
				 t->mods.n, t->recs.n, t->kernels.n, t->memcpy.n, t->colls.n, t->waits.n };
	const size_t want[12] = { k->links, k->compute, k->comm_op, k->ops, k->steps, k->devsteps,
				  k->mods, k->recs, k->kernels, k->memcpy, k->colls, k->waits };
	size_t i;
	for (i = 0; i < 12; i++) {
		if (got[i] != want[i])
			fprintf(stderr, "line %d: count %zu is %zu, expected %zu\n", line, i, got[i], want[i]);
		CHECK_INT(got[i], want[i]);
	}
}

/* --steps 2: ops 1 and 3 (op starts 110 and 120 lie in [100,200)), renumbered 0 and 1;
 * host spans [100,200): the module [0,300) and the record [110,120); device spans: step
 * 2's kernels [160,240) joined with its mark [150,260): the call [180,240) (now 0) and
 * its wait; the unlinked kernel launched at 105 (in the host span) but not the one at
 * [65,66) without a launch (outside [150,260)), nor the copy. */
static void test_steps(void)
{
	struct opmfu_trace t;
	struct opmfu_err err = OPMFU_ERR_INIT;
	const int keep[] = { 2 };
	struct opmfu_filter f = { keep, 1, "2", 0, 0, 0, NULL };

	const struct kept want = { 2, 1, 1, 2, 1, 1, 1, 1, 1, 0, 1, 1 };

	build(&t);
	CHECK_INT(opmfu_trace_filter(&t, &f, &err), OPMFU_OK);
	check_kept(&t, &want, __LINE__);
	CHECK_INT(t.links[0].k_start, 160);
	CHECK_INT(t.links[0].op, 0);
	CHECK_INT(t.links[1].k_start, 180);
	CHECK_INT(t.links[1].op, 1);
	CHECK_INT(t.kx[0].type, 102);
	CHECK_INT(t.launch[0], 112);
	CHECK_INT(t.launch[1], 124);
	CHECK_INT(t.steps.v[0].value, 2);
	CHECK_INT(t.mods.v[0].end, 300);
	CHECK_INT(t.recs.v[0].value, 2000);
	CHECK_INT(t.n_recs_read, 1);
	CHECK_INT(t.kernels.v[0].start, 170);
	CHECK_INT(t.colls.v[0].name, 8);
	CHECK_INT(t.waits.v[0].start, 185);
	CHECK_INT(t.waits.v[0].value, 0);
	opmfu_trace_release(&t);
}

/* --time-range 0:15ns from the first device activity (50): [50,65). Op 0's kernel
 * [50,60) overlaps: both its links stay; host span [50,65) widened to its op [10,20):
 * [10,65): modules [0,300) and [10,20), record [10,20), step 1; the unlinked kernel
 * [65,66) starts at the end (excluded); the call [50,55) and its wait (renumbered 0). */
static void test_time(void)
{
	struct opmfu_trace t;
	struct opmfu_err err = OPMFU_ERR_INIT;
	struct opmfu_filter f = { NULL, 0, NULL, 1, 0, 15, "0:15ns" };

	const struct kept want = { 2, 2, 0, 1, 1, 0, 2, 1, 0, 0, 1, 1 };

	build(&t);
	CHECK_INT(opmfu_trace_filter(&t, &f, &err), OPMFU_OK);
	check_kept(&t, &want, __LINE__);
	CHECK_INT(t.links[1].k_start, 60);
	CHECK_INT(t.links[1].op, 0);
	CHECK_INT(t.kx[1].type, 101);
	CHECK_INT(t.steps.v[0].value, 1);
	CHECK_INT(t.recs.v[0].value, 1000);
	CHECK_INT(t.colls.v[0].name, 7);
	CHECK_INT(t.waits.v[0].start, 51);
	CHECK_INT(t.waits.v[0].value, 0);
	opmfu_trace_release(&t);
}

/* Both: --steps 1,3 and --time-range 200ns: ([250, end)): step 3's op 2 alone. */
static void test_both(void)
{
	struct opmfu_trace t;
	struct opmfu_err err = OPMFU_ERR_INIT;
	const int keep[] = { 3, 1, 3 };
	struct opmfu_filter f = { keep, 3, "3,1,3", 1, 200, OPMFU_FILTER_OPEN, "200ns:" };

	build(&t);
	CHECK_INT(opmfu_trace_filter(&t, &f, &err), OPMFU_OK);
	CHECK_INT(t.n_links, 1);
	CHECK_INT(t.links[0].k_start, 260);
	CHECK_INT(t.links[0].op, 0);
	CHECK_INT(t.n_ops, 1);
	CHECK_INT(t.steps.n, 1);
	CHECK_INT(t.steps.v[0].value, 3);
	opmfu_trace_release(&t);
}

static void test_nothing(void)
{
	struct opmfu_trace t;
	struct opmfu_err err = OPMFU_ERR_INIT;
	const int keep[] = { 9 };
	struct opmfu_filter f = { keep, 1, "9", 0, 0, 0, NULL };
	struct opmfu_filter late = { NULL, 0, NULL, 1, 1000000000, OPMFU_FILTER_OPEN, "1s:" };

	build(&t);
	CHECK_INT(opmfu_trace_filter(&t, &f, &err), OPMFU_ERR_USAGE);
	CHECK_STR(err.msg, "--steps 9 keeps nothing: the trace's 3 steps are numbered 1 to 3");
	CHECK_INT(t.n_links, 5); /* a failed filter fails the rank: nothing of it is used */
	/* the device activity: 50 (first kernel) to 310 (the copy's end) */
	CHECK_INT(opmfu_trace_filter(&t, &late, &err), OPMFU_ERR_USAGE);
	CHECK_STR(err.msg, "--time-range 1s: keeps nothing: the trace's device activity lasts 260 ns");
	t.steps.n = 0;
	CHECK_INT(opmfu_trace_filter(&t, &f, &err), OPMFU_ERR_USAGE);
	CHECK_STR(err.msg, "--steps 9: the trace has no steps (ProfilerStep#N, STEP_TIME) to keep");
	opmfu_trace_release(&t);
}

static void test_parse(void)
{
	static const char *const bad[] = {
		"", ":", "5s", "5s:2s", "2s:2s", "-1s:2s", "1e3s:", "2x:3s", "2s:3s:4s", "1..5s:", ".s:",
		"2 s:3s", "inf:", "nan:", "5:6s", "0x10s:", "9999999999s:", "s:", "+1s:", "1S:",
	};
	int64_t a = -1, z = -1;
	size_t i;

	CHECK_INT(opmfu_filter_parse_time("2s:5s", &a, &z), 0);
	CHECK_INT(a, 2000000000);
	CHECK_INT(z, 5000000000);
	CHECK_INT(opmfu_filter_parse_time("500ms:", &a, &z), 0);
	CHECK_INT(a, 500000000);
	CHECK(z == OPMFU_FILTER_OPEN);
	CHECK_INT(opmfu_filter_parse_time(":1.5s", &a, &z), 0);
	CHECK_INT(a, 0);
	CHECK_INT(z, 1500000000);
	CHECK_INT(opmfu_filter_parse_time("0:2us", &a, &z), 0);
	CHECK_INT(z, 2000);
	CHECK_INT(opmfu_filter_parse_time("1.25us:3000ns", &a, &z), 0);
	CHECK_INT(a, 1250);
	CHECK_INT(z, 3000);
	CHECK_INT(opmfu_filter_parse_time("0.0000001ms:1ns", &a, &z), 0); /* 0.1 ns rounds to 0 */
	CHECK_INT(a, 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		a = z = -7;
		if (opmfu_filter_parse_time(bad[i], &a, &z) != -1 || a != -7 || z != -7)
			fprintf(stderr, "accepted: '%s'\n", bad[i]);
		CHECK_INT(opmfu_filter_parse_time(bad[i], &a, &z), -1);
	}
}

int main(void)
{
	test_steps();
	test_time();
	test_both();
	test_nothing();
	test_parse();
	return check_done();
}
