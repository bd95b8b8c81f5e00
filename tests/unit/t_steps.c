/*
 * t_steps.c - the registered analyses "ops", "steps" and "hotspots" run as
 * the pool runs them (trace/analysis.h: state, run, tables), and the cells
 * of OpmfuSteps, OpmfuOpTypes and OpmfuKernels read back through their
 * table functions, on a hand-built trace; with the rank's median step
 * (docs/glossary.md) and the trace MFU over all steps.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze/hotspots.h"
#include "analyze/ops.h"
#include "analyze/steps.h"
#include "base/mem.h"
#include "cell_text.h"
#include "check.h"

static struct opmfu_trace T;
static struct opmfu_flops FL;
static struct opmfu_rank_peaks PK; /* the peaks run_steps uses (reset sets fp16 1e12) */

static uint32_t S(const char *s)
{
	return opmfu_strtab_intern(&T.strs, s, strlen(s));
}

static uint32_t link(uint32_t op, const char *name, int64_t os, int64_t oe, const char *k, int64_t ks, int64_t ke,
		     uint32_t dtype)
{
	struct opmfu_link l = { ks, ke, os, oe, S(k), S(name), 1, dtype, 1, op };
	OPMFU_GROW(T.links, T.cap_links, T.n_links + 1);
	T.links[T.n_links] = l;
	T.n_compute++;
	if (op >= T.n_ops)
		T.n_ops = op + 1;
	return (uint32_t)T.n_links++;
}

static void range(struct opmfu_ranges *rs, int64_t start, int64_t end, int64_t value, const char *name)
{
	struct opmfu_range r = { start, end, value, S(name), 0 };
	CHECK_INT(opmfu_ranges_add(rs, &r), 0);
}

static void shape_fact(int64_t flops, uint32_t l)
{
	struct opmfu_flops_fact f = { flops, S("f"), 0, 0, 0, OPMFU_FLOPS_SHAPE, 1 };
	uint32_t *w = opmfu_flops_room(&FL, 1);
	CHECK(w != NULL);
	w[0] = l;
	CHECK_INT(opmfu_flops_add(&FL, &f, 1), 0);
}

/*
 * Peak fp16 1e12 FLOPS (1000 FLOPs a ns). Steps #1 0..1000, #2 1000..3000,
 * #3 3000..4000; times in ns.
 *  #1: op0 "mm"@10..20 MatMul 100..300 (1e5 FLOPs), op1 "add"@30..40 Add 300..400
 *  #2: op2 "mm"@1010..1020 MatMul 1100..1200 (5e4 FLOPs), op3 "add"@1030..1040 Add 1500..1600
 *  #3: op4 "add"@3010..3020 Add 3100..3500
 */
static void build(void)
{
	struct opmfu_dtype d = { S("FLOAT16"), OPMFU_DT_FP16, (int8_t)OPMFU_PREC_FP16, "" };
	uint32_t f16 = 0, l0, l2;

	CHECK_INT(opmfu_trace_add_dtype(&T, &d, &f16), 0);
	l0 = link(0, "mm", 10, 20, "MatMul", 100, 300, f16);
	link(1, "add", 30, 40, "Add", 300, 400, f16);
	l2 = link(2, "mm", 1010, 1020, "MatMul", 1100, 1200, f16);
	link(3, "add", 1030, 1040, "Add", 1500, 1600, f16);
	link(4, "add", 3010, 3020, "Add", 3100, 3500, f16);
	shape_fact(100000, l0);
	shape_fact(50000, l2);
	range(&T.steps, 0, 1000, 1, "ProfilerStep#1");
	range(&T.steps, 1000, 3000, 2, "ProfilerStep#2");
	range(&T.steps, 3000, 4000, 3, "ProfilerStep#3");
}

#define CELL_INT(c, x)                      \
	do {                                \
		CHECK(!(c).null);           \
		CHECK_INT((c).v.i, (x));    \
	} while (0)
#define CELL_REAL(c, x)                                 \
	do {                                            \
		CHECK(!(c).null);                       \
		CHECK(fabs((c).v.r - (x)) < 1e-12);     \
	} while (0)

static void t_registered(void)
{
	struct opmfu_rank_peaks pk = { { 0, 0, 1e12, 0, 0, 0 }, { NULL }, 0, NULL };
	const struct opmfu_analysis *reg[] = { &opmfu_analysis_ops, &opmfu_analysis_steps, &opmfu_analysis_hotspots,
					       NULL };
	void *state[3];
	struct opmfu_rank_ctx ctx;
	struct opmfu_err e = OPMFU_ERR_INIT;
	struct opmfu_table t[OPMFU_MAX_TABLES];
	struct opmfu_cell c[64];
	const struct opmfu_steps *steps;
	size_t n, i;
	int k;

	memset(&ctx, 0, sizeof(ctx));
	ctx.rank = 5;
	ctx.trace = &T;
	ctx.flops = &FL;
	ctx.peaks = &pk;
	ctx.state = state;
	ctx.registry = reg;
	for (k = 0; k < 3; k++) {
		CHECK_INT(reg[k]->scope, OPMFU_PER_RANK);
		/* ops alone with modules in stage 2: OpmfuOps is written while steps and hotspots run */
		CHECK_INT(reg[k]->stage, k ? OPMFU_STAGE_UNITS : OPMFU_STAGE_OP_UNITS);
		state[k] = opmfu_calloc(1, reg[k]->state_size);
		reg[k]->init(state[k]);
	}
	/* in registry order: steps and hotspots read the state of ops */
	for (k = 0; k < 3; k++)
		CHECK_INT(reg[k]->run(state[k], &ctx, &e), OPMFU_OK);
	CHECK(opmfu_rank_state(&ctx, &opmfu_analysis_ops) == state[0]);

	/* OpmfuSteps (SPEC 17). The links' ops start in the host steps: #1 holds
	 * op0, op1; #2 op2, op3; #3 op4. Windows run from a step's first device
	 * work to the next step's: #1 100..1100, #2 1100..3100, #3 3100..3500 (the
	 * last step to its last work). Without launch times an op's start stands
	 * for its kernels' launch. #1: FLOP 100..300 (200), other 300..400 (100),
	 * the gap 400..1100 ends with MatMul launched at 1010 > 400: host late
	 * (700). Trace MFU 1e5 / (1000e-9 x 1e12) = 0.1; shares idle 0.7, comm 0,
	 * busy without FLOPs 0.1, below peak 0.2 - 0.1 = 0.1. #2: FLOP 1100..1200
	 * (100); the gap 1200..1500 ends with Add launched at 1030 < 1200: idle
	 * (300); other 1500..1600 (100); the gap 1600..3100 ends with Add launched
	 * at 3010: host late (1500). Trace MFU 5e4 / 2e6 = 0.025; shares 0.9, 0,
	 * 0.05, 0.05 - 0.025 = 0.025. #3: 3100..3500 other 400; no FLOPs, so no
	 * peak and no trace MFU: shares 0, 0, 1, and below peak NULL. */
	CHECK_INT(reg[1]->tables(state[1], &ctx, t, &n, &e), OPMFU_OK);
	CHECK_INT(n, 1);
	CHECK(!strcmp(t[0].def->name, "OpmfuSteps"));
	CHECK_INT(t[0].n_rows, 3);
	{
		static const char *const cols[] = { "rank_id", "step", "kind", "start_ns", "end_ns", "window_ns",
						    "flops_ns", "other_compute_ns", "comm_exposed_ns", "idle_host_ns",
						    "idle_ns", "flops", "flops_shape", "peak_tflops", "trace_mfu",
						    "share_idle", "share_comm", "share_other_compute",
						    "share_inefficiency", "share_idle_host", "memcpy_ns",
						    "matmul_noflops_ns", "profiler_step_ns", "preparing_ns" };
		int col[24];
		for (k = 0; k < 24; k++)
			CHECK((col[k] = opmfu_table_col(t[0].def, cols[k])) >= 0);
		t[0].row(t[0].src, 0, c);
		CELL_INT(c[col[0]], 5);
		CELL_INT(c[col[1]], 1);
		CHECK(!strcmp(cell_text(&c[col[2]]), "step"));
		CELL_INT(c[col[3]], 100);
		CELL_INT(c[col[4]], 1100);
		CELL_INT(c[col[5]], 1000);
		CELL_INT(c[col[6]], 200);
		CELL_INT(c[col[7]], 100);
		CELL_INT(c[col[8]], 0);
		CELL_INT(c[col[9]], 700);
		CELL_INT(c[col[10]], 0);
		CELL_INT(c[col[11]], 100000);
		CELL_INT(c[col[12]], 100000);
		CELL_REAL(c[col[13]], 1.0);
		CELL_REAL(c[col[14]], 0.1);
		CELL_REAL(c[col[15]], 0.7);
		CELL_REAL(c[col[16]], 0);
		CELL_REAL(c[col[17]], 0.1);
		CELL_REAL(c[col[18]], 0.1);
		CELL_REAL(c[col[19]], 0.7);
		CELL_INT(c[col[20]], 0);
		CELL_INT(c[col[21]], 0);
		CELL_INT(c[col[22]], 1000); /* the host step 0..1000 */
		CELL_INT(c[col[23]], 100);  /* its first device work at 100 */
		t[0].row(t[0].src, 1, c);
		CELL_INT(c[col[1]], 2);
		CELL_INT(c[col[5]], 2000);
		CELL_INT(c[col[6]], 100);
		CELL_INT(c[col[7]], 100);
		CELL_INT(c[col[9]], 1500);
		CELL_INT(c[col[10]], 300);
		CELL_REAL(c[col[14]], 0.025);
		CELL_REAL(c[col[15]], 0.9);
		CELL_REAL(c[col[17]], 0.05);
		CELL_REAL(c[col[18]], 0.025);
		CELL_INT(c[col[23]], 100); /* 1000 .. 1100 */
		t[0].row(t[0].src, 2, c);
		CELL_INT(c[col[1]], 3);
		CELL_INT(c[col[5]], 400);
		CELL_INT(c[col[7]], 400);
		CHECK(c[col[13]].null && c[col[14]].null);
		CELL_REAL(c[col[15]], 0);
		CELL_REAL(c[col[17]], 1.0);
		CHECK(c[col[18]].null);
	}

	/* the median step: windows 1000 (#1), 2000 (#2), 400 (#3), ordered 400,
	 * 1000, 2000, position (3 - 1) / 2 = 1: step #1, 1000 ns; the trace MFU
	 * over all steps (#3 has no peak): (1e5 + 5e4) / ((1000 + 2000)e-9 x
	 * 1e12) = 0.05 */
	steps = state[1];
	CHECK_INT(steps->median, 0);
	CHECK(steps->step_ns_median == 1000);
	CHECK(fabs(steps->trace_mfu - 0.05) < 1e-12);

	/* OpmfuOpTypes, most lost first: add: 3 ops, 100 + 100 + 400 = 600 ns, no
	 * FLOPs, all lost; mm: 2 ops, 300 ns, 1.5e5 FLOPs, MFU 1.5e5 / (300e-9 x
	 * 1e12) = 0.5, lost (200 - 100) + (100 - 50) = 150. OpmfuKernels likewise:
	 * Add 3 kernels 600 ns; MatMul 2 kernels 300 ns, 0.5, 150 lost. */
	CHECK_INT(reg[2]->tables(state[2], &ctx, t, &n, &e), OPMFU_OK);
	CHECK_INT(n, 2);
	CHECK(!strcmp(t[0].def->name, "OpmfuOpTypes") && !strcmp(t[1].def->name, "OpmfuKernels"));
	for (i = 0; i < 2; i++) {
		CHECK_INT(t[i].n_rows, 2);
		t[i].row(t[i].src, 0, c);
		CELL_INT(c[0], 5);
		CHECK(!strcmp(cell_text(&c[1]), i ? "Add" : "add"));
		CELL_INT(c[2], 3);
		CELL_INT(c[3], 600);
		CELL_INT(c[4], 0);
		CHECK(c[6].null);
		CELL_INT(c[7], 600);
		t[i].row(t[i].src, 1, c);
		CHECK(!strcmp(cell_text(&c[1]), i ? "MatMul" : "mm"));
		CELL_INT(c[2], 2);
		CELL_INT(c[3], 300);
		CELL_INT(c[4], 300);
		CELL_INT(c[5], 150000);
		CELL_REAL(c[6], 0.5);
		CELL_INT(c[7], 150);
	}
	for (k = 2; k >= 0; k--) {
		reg[k]->release(state[k]);
		opmfu_free(state[k]);
	}
}

/* ---- SPEC 17: the device timeline ---- */

/* The steps of T (ops, then steps, as the pool runs them) into *out, a
 * copy of the rows; state freed. */
static struct opmfu_steps_state *run_steps(void *state[2])
{
	struct opmfu_rank_peaks pk = PK;
	const struct opmfu_analysis *reg[] = { &opmfu_analysis_ops, &opmfu_analysis_steps, NULL };
	struct opmfu_rank_ctx ctx;
	struct opmfu_err e = OPMFU_ERR_INIT;
	int k;

	memset(&ctx, 0, sizeof(ctx));
	ctx.trace = &T;
	ctx.flops = &FL;
	ctx.peaks = &pk;
	ctx.state = state;
	ctx.registry = reg;
	for (k = 0; k < 2; k++) {
		state[k] = opmfu_calloc(1, reg[k]->state_size);
		reg[k]->init(state[k]);
	}
	for (k = 0; k < 2; k++)
		CHECK_INT(reg[k]->run(state[k], &ctx, &e), OPMFU_OK);
	return state[1];
}

static void free_steps(void *state[2])
{
	const struct opmfu_analysis *reg[] = { &opmfu_analysis_ops, &opmfu_analysis_steps };
	int k;
	for (k = 1; k >= 0; k--) {
		reg[k]->release(state[k]);
		opmfu_free(state[k]);
	}
}

static void reset(void)
{
	memset(&PK, 0, sizeof(PK));
	PK.flops[OPMFU_PREC_FP16] = 1e12;
	opmfu_flops_release(&FL);
	opmfu_trace_release(&T);
	opmfu_trace_init(&T);
	opmfu_flops_init(&FL);
}

static void launch(uint32_t l, int64_t at)
{
	if (!T.launch)
		T.launch = opmfu_malloc(T.n_links * sizeof(*T.launch)); /* the links are all in */
	CHECK(T.launch != NULL);
	if (T.launch)
		T.launch[l] = at;
}

/*
 * Host steps #1 0..1000, #2 1000..2000; peak 1e12 (1000 FLOPs a ns);
 * launch times given. Links (op @start, kernel span, launch):
 *  op0 aten::mm @100 gemm_a 300..500 launched 105, 2e5 FLOPs
 *  op1 aten::add @120 add_k 500..600 launched 125
 *  op5 aten::mul @130 mul_k 1250..1260 launched 135 (step 1's, runs in step 2's window: a spill)
 *  op2 aten::linear @1100 gemm_b 1200..1400 launched 1105, no FLOPs (GEMM without FLOPs)
 *  op3 aten::add @1120 add_k 1600..1700 launched 1500
 * Unlinked: queued_k 50..150 and queued_gemm 150..250 never launched (the
 * backlog); comm nccl_allreduce 450..800 launched 126; copies "Memcpy HtoD"
 * 800..900 launched 115, "Memset" 1750..1800 launched 1140.
 */
static void build_timeline(int consistent)
{
	struct opmfu_dtype d = { S("FLOAT16"), OPMFU_DT_FP16, (int8_t)OPMFU_PREC_FP16, "" };
	uint32_t f16 = 0, l[5];
	int i;
	int64_t at[5] = { 105, 125, 135, 1105, 1500 };

	CHECK_INT(opmfu_trace_add_dtype(&T, &d, &f16), 0);
	l[0] = link(0, "aten::mm", 100, 110, "gemm_a", 300, 500, f16);
	l[1] = link(1, "aten::add", 120, 130, "add_k", 500, 600, f16);
	l[2] = link(5, "aten::mul", 130, 140, "mul_k", 1250, 1260, f16);
	l[3] = link(2, "aten::linear", 1100, 1110, "gemm_b", 1200, 1400, f16);
	l[4] = link(3, "aten::add", 1120, 1130, "add_k", 1600, 1700, f16);
	T.n_ops = 6;
	for (i = 0; i < 5; i++)
		launch(l[i], at[i]);
	shape_fact(200000, l[0]);
	range(&T.steps, 0, 1000, 1, "ProfilerStep#1");
	range(&T.steps, 1000, 2000, 2, "ProfilerStep#2");
	range(&T.devsteps, 250, consistent ? 1000 : 260, 1, "ProfilerStep#1");
	range(&T.devsteps, 1000, 1900, 2, "ProfilerStep#2");
	range(&T.kernels, 50, 150, OPMFU_NO_LAUNCH, "queued_k");
	range(&T.kernels, 150, 250, OPMFU_NO_LAUNCH, "queued_gemm");
	range(&T.comm, 450, 800, 126, "nccl_allreduce");
	range(&T.memcpy, 800, 900, 115, "Memcpy HtoD");
	range(&T.memcpy, 1750, 1800, 1140, "Memset");
}

static const struct opmfu_step_row *row_of(const struct opmfu_steps *st, size_t i)
{
	CHECK(i < st->n);
	return &st->v[i < st->n ? i : 0];
}

static void t_timeline(void)
{
	void *state[2];
	const struct opmfu_steps *st;
	const struct opmfu_step_row *r;

	/* the device's annotations hold their steps' work (#1: 300 of its 310 ns in 250..1000;
	 * #2: all of it in 1000..1900): the windows are theirs */
	reset();
	build_timeline(1);
	st = &run_steps(state)->steps;
	CHECK_INT(st->from_device, 1);
	CHECK_INT(st->n_steps, 2);
	CHECK_INT(st->n, 3);
	/* #1 250..1000: 250..300 idle (the gap began at 250, gemm_a was launched at 105); FLOP
	 * 300..500 (comm under it 450..500); other 500..600 (comm under it); comm alone 600..800;
	 * the copy 800..900; 900..1000 the start of a gap gemm_b ends, launched at 1105: host late */
	r = row_of(st, 0);
	CHECK_INT(r->step, 1);
	CHECK_INT(r->kind, OPMFU_WINDOW_STEP);
	CHECK_INT(r->start, 250);
	CHECK_INT(r->end, 1000);
	CHECK_INT(r->ns[OPMFU_T_FLOPS], 200);
	CHECK_INT(r->ns[OPMFU_T_MATMUL], 0);
	CHECK_INT(r->ns[OPMFU_T_OTHER], 100);
	CHECK_INT(r->ns[OPMFU_T_COMM], 200);
	CHECK_INT(r->ns[OPMFU_T_COMM_OVERLAP], 150);
	CHECK_INT(r->ns[OPMFU_T_COPY], 100);
	CHECK_INT(r->ns[OPMFU_T_IDLE_HOST], 100);
	CHECK_INT(r->ns[OPMFU_T_IDLE], 50);
	/* trace MFU 2e5 / (750e-9 x 1e12) = 4/15; shares idle 150/750, comm 200/750, busy
	 * without FLOPs (100 + 100)/750, below peak 200/750 - 4/15 = 0 */
	CHECK(fabs(opmfu_step_trace_mfu(r) - 4.0 / 15) < 1e-12);
	{
		double sh[4];
		opmfu_step_shares(r, sh);
		CHECK(fabs(sh[0] - 0.2) < 1e-12 && fabs(sh[1] - 4.0 / 15) < 1e-12);
		CHECK(fabs(sh[2] - 4.0 / 15) < 1e-12 && fabs(sh[3]) < 1e-12);
	}
	/* #2 1000..1900: host late 1000..1200 (the same gap); gemm_b 1200..1400 without FLOPs
	 * (mul_k of step 1 under it); the gap 1400..1600 ends with add_k launched at 1500: host
	 * late; other 1600..1700; the gap 1700..1750 ends with the memset launched at 1140: idle;
	 * the memset 1750..1800; 1800..1900 nothing follows: idle */
	r = row_of(st, 1);
	CHECK_INT(r->step, 2);
	CHECK_INT(r->start, 1000);
	CHECK_INT(r->end, 1900);
	CHECK_INT(r->ns[OPMFU_T_FLOPS], 0);
	CHECK_INT(r->ns[OPMFU_T_MATMUL], 200);
	CHECK_INT(r->ns[OPMFU_T_OTHER], 100);
	CHECK_INT(r->ns[OPMFU_T_COMM], 0);
	CHECK_INT(r->ns[OPMFU_T_COPY], 50);
	CHECK_INT(r->ns[OPMFU_T_IDLE_HOST], 400);
	CHECK_INT(r->ns[OPMFU_T_IDLE], 150);
	CHECK(opmfu_step_trace_mfu(r) < 0);
	/* the backlog: never-launched work before the first window, 50..250: queued_k other,
	 * queued_gemm a GEMM without FLOPs */
	r = row_of(st, 2);
	CHECK_INT(r->kind, OPMFU_WINDOW_BACKLOG);
	CHECK_INT(r->step, OPMFU_NO_STEP);
	CHECK_INT(r->start, 50);
	CHECK_INT(r->end, 250);
	CHECK_INT(r->ns[OPMFU_T_OTHER], 100);
	CHECK_INT(r->ns[OPMFU_T_MATMUL], 100);
	CHECK_INT(st->outside_ns, 0);
	/* mul_k (step 1's) ends at 1260, after step 2's window began */
	CHECK_INT(st->n_spill, 1);
	CHECK_INT(st->spill_step[0], 1);
	CHECK_INT(st->spill_step[1], OPMFU_NO_STEP);
	/* the median of windows 750 and 900: position 0, step 1 */
	CHECK_INT(st->median, 0);
	free_steps(state);

	/* #1's annotation holds none of its work: the windows come from the device work, from a
	 * step's first (#1 gemm_a 300, #2 gemm_b 1200) to the next's; the last to its last work
	 * (add_k 1700). The memset after it is outside every window. */
	reset();
	build_timeline(0);
	st = &run_steps(state)->steps;
	CHECK_INT(st->from_device, 0);
	r = row_of(st, 0);
	CHECK_INT(r->start, 300);
	CHECK_INT(r->end, 1200);
	CHECK_INT(r->ns[OPMFU_T_IDLE_HOST], 300);
	CHECK_INT(r->ns[OPMFU_T_IDLE], 0);
	r = row_of(st, 1);
	CHECK_INT(r->start, 1200);
	CHECK_INT(r->end, 1700);
	CHECK_INT(r->ns[OPMFU_T_MATMUL], 200);
	CHECK_INT(r->ns[OPMFU_T_IDLE_HOST], 200);
	CHECK_INT(r->ns[OPMFU_T_OTHER], 100);
	r = row_of(st, 2);
	CHECK_INT(r->kind, OPMFU_WINDOW_BACKLOG);
	CHECK_INT(r->start, 50);
	CHECK_INT(r->end, 300);
	CHECK_INT(r->ns[OPMFU_T_IDLE], 50);
	CHECK_INT(st->outside_ns, 50);
	CHECK_INT(st->n_spill, 1);
	free_steps(state);

	/* No step marks, no launch times, communication from its tasks: the collective's link
	 * (2000..3000) takes no part; its tasks 2000..2100 and 2900..3000 do. One row, the whole
	 * trace 2000..3000: exposed communication 200, idle 800 (the task that ends the gap has no
	 * launch). No backlog without launch times. */
	reset();
	{
		struct opmfu_link cl = { 2000, 3000, 1990, 3000, S("hcom_allReduce"), S("hcom_allReduce"), 0, 0, 0, 0 };
		OPMFU_GROW(T.links, T.cap_links, 1);
		T.links[0] = cl;
		T.n_links = T.n_comm_op = 1;
		T.n_ops = 1;
		T.comm_from_tasks = 1;
		range(&T.comm, 2000, 2100, OPMFU_NO_LAUNCH, "hcom_allReduce");
		range(&T.comm, 2900, 3000, OPMFU_NO_LAUNCH, "hcom_allReduce");
	}
	st = &run_steps(state)->steps;
	CHECK_INT(st->n, 1);
	r = row_of(st, 0);
	CHECK_INT(r->kind, OPMFU_WINDOW_TRACE);
	CHECK_INT(r->step, OPMFU_NO_STEP);
	CHECK_INT(r->start, 2000);
	CHECK_INT(r->end, 3000);
	CHECK_INT(r->ns[OPMFU_T_COMM], 200);
	CHECK_INT(r->ns[OPMFU_T_IDLE], 800);
	CHECK_INT(r->ns[OPMFU_T_IDLE_HOST], 0);
	free_steps(state);

	/* SPEC 18: the add of step 1 (add_k 500..600, no FLOPs) moves 5e4 bytes, at 1e12 bytes/s
	 * 50 ns: memory-bound work with known bytes, its 100 ns taken out of other compute, at a
	 * bandwidth efficiency of 50 / 100 = 0.5; step 2's add and mul stay other compute */
	reset();
	build_timeline(1);
	FL.bytes = opmfu_malloc(T.n_compute * sizeof(*FL.bytes));
	CHECK(FL.bytes != NULL);
	if (FL.bytes) {
		size_t i;
		for (i = 0; i < T.n_compute; i++)
			FL.bytes[i] = -1;
		FL.bytes[1] = 50000; /* the second link: add_k of op1 */
	}
	PK.bw = 1e12;
	st = &run_steps(state)->steps;
	r = row_of(st, 0);
	CHECK_INT(r->ns[OPMFU_T_MEMBOUND], 100);
	CHECK_INT(r->ns[OPMFU_T_OTHER], 0);
	CHECK(fabs(opmfu_step_mb_eff(r) - 0.5) < 1e-12);
	{
		double sh[4];
		opmfu_step_shares(r, sh);
		CHECK(fabs(sh[2] - 200.0 / 750) < 1e-12); /* busy without FLOPs: memory-bound 100 + copy 100 */
	}
	r = row_of(st, 1);
	CHECK_INT(r->ns[OPMFU_T_MEMBOUND], 0);
	CHECK_INT(r->ns[OPMFU_T_OTHER], 100);
	CHECK(opmfu_step_mb_eff(r) < 0);
	free_steps(state);
}

static void t_matmul_names(void)
{
	static const char *const yes[] = { "ampere_fp16_s16816gemm_fp16_128x128", "aten::addmm", "aten::linear",
					   "MatMulV3", "Conv2DBackpropFilter", "flash_fwd_kernel",
					   "Cijk_Alik_Bljk_HHS_BH", "nvjet_tst_128x256", "aten::_scaled_dot_product_flash_attention",
					   "aten::convolution_backward", "sm90_xmma_gemm_bf16bf16", "dgrad2d_alg1_1",
					   "cudnn::wgrad_engine" };
	static const char *const no[] = { "aten::add", "vectorized_elementwise_kernel", "Memcpy HtoD",
					  "aten::_convert_indices", "batched_transpose_16x32_half", "RmsNorm",
					  "aclnnAdaptiveAvgPool2dBackward_AdaptiveAvgPool3dGradAiCore_AdaptiveAvgPool3dGrad" };
	size_t i;
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		CHECK(opmfu_matmul_name(yes[i], strlen(yes[i])));
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		CHECK(!opmfu_matmul_name(no[i], strlen(no[i])));
}

int main(void)
{
	opmfu_trace_init(&T);
	opmfu_flops_init(&FL);
	build();
	t_registered();
	reset();
	t_timeline();
	t_matmul_names();
	opmfu_flops_release(&FL);
	opmfu_trace_release(&T);
	return check_done();
}
