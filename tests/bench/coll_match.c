/*
 * coll_match.c - the run's cross-rank matching of collectives
 * (opmfu_analysis_collectives_run) alone, for tests/bench/coll_scale.py:
 * RANKS ranks of CALLS all-reduces each, fed as the pipeline feeds it (each
 * rank's OpmfuSteps and OpmfuCollCalls through add, then keep), then its
 * finish timed. The calls are gen_kineto's with --skew SKEW: the c-th
 * all-reduce (from 0) of rank R starts SKEW * ((37 R + 11 c) mod 101) ns
 * late, 6 calls per step.
 *
 * coll_match RANKS CALLS [REPEAT] [SKEW]
 *
 * Prints per repetition "finish_ns N calls C held_bytes B" (C: the run's
 * calls; B: its arrays of calls, exposed parts and OpmfuSteps cells, as
 * grown) and, last, "maxrss_kib K". Under callgrind, --toggle-collect=bench_finish
 * counts the matching's instructions only.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "analyze/collectives.h"
#include "analyze/steps.h"
#include "base/mem.h"

#define CALLS_PER_STEP 6
#define STEP_NS INT64_C(7000000)
#define BASE_NS INT64_C(1752830083000000000)

struct src {
	int rank;
	int64_t ranks, skew;
	const struct opmfu_table_def *steps_def;
	int c_rank, c_step, c_kind, c_start, c_end, c_win, c_exp;
};

static int64_t call_start(const struct src *s, size_t c)
{
	return BASE_NS + (int64_t)(c / CALLS_PER_STEP) * STEP_NS + (int64_t)(c % CALLS_PER_STEP) * 1120000 +
	       s->skew * ((37 * (int64_t)s->rank + 11 * (int64_t)c) % 101);
}

static void call_row(const void *p, size_t i, struct opmfu_cell *c)
{
	static const char op[] = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
	const struct src *s = p;
	int64_t start = call_start(s, i), len = 20000 + (int64_t)(i % 13) * 1517;
	size_t j;
	for (j = 0; j < OPMFU_CC_NCOL; j++)
		c[j] = opmfu_cell_null();
	c[OPMFU_CC_RANK] = opmfu_cell_int(s->rank);
	c[OPMFU_CC_STEP] = opmfu_cell_int((int64_t)(i / CALLS_PER_STEP));
	c[OPMFU_CC_WIN] = opmfu_cell_str("step");
	c[OPMFU_CC_NAME] = opmfu_cell_str("allreduce");
	c[OPMFU_CC_OP] = opmfu_cell_text(op, sizeof(op) - 1);
	c[OPMFU_CC_GROUP] = opmfu_cell_str("0");
	c[OPMFU_CC_RANKS] = opmfu_cell_int(s->ranks);
	c[OPMFU_CC_DTYPE] = opmfu_cell_str("BFloat16");
	c[OPMFU_CC_BYTES] = opmfu_cell_int(5746640);
	c[OPMFU_CC_START] = opmfu_cell_int(start);
	c[OPMFU_CC_END] = opmfu_cell_int(start + len);
	c[OPMFU_CC_EXPOSED] = opmfu_cell_int(len / 2);
	c[OPMFU_CC_PARTS] = opmfu_cell_str("0+5000,15000+5000"); /* two parts, as a call half under compute */
}

static void step_row(const void *p, size_t i, struct opmfu_cell *c)
{
	const struct src *s = p;
	int64_t start = BASE_NS + (int64_t)i * STEP_NS;
	size_t j;
	for (j = 0; j < s->steps_def->n_cols; j++)
		c[j] = opmfu_cell_null();
	c[s->c_rank] = opmfu_cell_int(s->rank);
	c[s->c_step] = opmfu_cell_int((int64_t)i);
	c[s->c_kind] = opmfu_cell_str("step");
	c[s->c_start] = opmfu_cell_int(start);
	c[s->c_end] = opmfu_cell_int(start + STEP_NS);
	c[s->c_win] = opmfu_cell_int(STEP_NS);
	c[s->c_exp] = opmfu_cell_int(CALLS_PER_STEP * 30000);
}

/* not inlined: callgrind's --toggle-collect names it */
__attribute__((noinline)) enum opmfu_status bench_finish(const struct opmfu_analysis *a, void *state,
							 const struct opmfu_run_ctx *ctx, struct opmfu_err *err);
__attribute__((noinline)) enum opmfu_status bench_finish(const struct opmfu_analysis *a, void *state,
							 const struct opmfu_run_ctx *ctx, struct opmfu_err *err)
{
	return a->finish(state, ctx, err);
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	const struct opmfu_analysis *a = &opmfu_analysis_collectives_run;
	long ranks, calls, repeat = 1, rep;
	int64_t skew = 100;
	struct rusage ru;

	if (argc < 3) {
		fputs("usage: coll_match RANKS CALLS [REPEAT] [SKEW]\n", stderr);
		return 2;
	}
	ranks = atol(argv[1]);
	calls = atol(argv[2]);
	if (argc > 3)
		repeat = atol(argv[3]);
	if (argc > 4)
		skew = atoll(argv[4]);
	if (ranks < 1 || calls < 1 || repeat < 1) {
		fputs("coll_match: RANKS, CALLS and REPEAT are at least 1\n", stderr);
		return 2;
	}
	for (rep = 0; rep < repeat; rep++) {
		void *state = opmfu_calloc(1, a->state_size);
		struct opmfu_err err = OPMFU_ERR_INIT;
		struct opmfu_run_ctx ctx = { "bench", "kineto", (size_t)ranks, 0 };
		size_t n_steps = (size_t)(calls + CALLS_PER_STEP - 1) / CALLS_PER_STEP;
		int64_t t0, t1;
		long r;

		if (!state)
			return 1;
		a->init(state);
		for (r = 0; r < ranks; r++) {
			const struct opmfu_table_def *sd = &opmfu_steps_def;
			struct src s = { (int)r, ranks, skew, sd,
					 opmfu_table_col(sd, "rank_id"), opmfu_table_col(sd, "step"),
					 opmfu_table_col(sd, "kind"), opmfu_table_col(sd, "start_ns"),
					 opmfu_table_col(sd, "end_ns"), opmfu_table_col(sd, "window_ns"),
					 opmfu_table_col(sd, "comm_exposed_ns") };
			struct opmfu_table steps = { sd, n_steps, step_row, &s };
			struct opmfu_table cc = { &opmfu_coll_calls_def, (size_t)calls, call_row, &s };
			if (a->add(state, &steps, &err) || a->add(state, &cc, &err) || a->keep(state, &err)) {
				fprintf(stderr, "coll_match: %s\n", err.msg);
				return 1;
			}
		}
		t0 = now_ns();
		if (bench_finish(a, state, &ctx, &err)) {
			fprintf(stderr, "coll_match: %s\n", err.msg);
			return 1;
		}
		t1 = now_ns();
		{
			const struct opmfu_coll_run *cr = state;
			/* its arrays (as grown), not the interned texts */
			size_t held = cr->cap * sizeof(*cr->v) + cr->cap_pieces * sizeof(*cr->pieces) +
				      cr->steps.cap * sizeof(*cr->steps.cells);
			printf("finish_ns %" PRId64 " calls %zu held_bytes %zu\n", t1 - t0, cr->n, held);
		}
		a->release(state);
		opmfu_free(state);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("maxrss_kib %ld\n", ru.ru_maxrss);
	return 0;
}
