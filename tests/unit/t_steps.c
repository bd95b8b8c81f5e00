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
#include "check.h"

static struct opmfu_trace T;
static struct opmfu_flops FL;

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

static const char *text(const struct opmfu_cell *c)
{
	static char buf[64];
	if (c->null)
		return "(null)";
	snprintf(buf, sizeof(buf), "%.*s", (int)c->v.t.n, c->v.t.s);
	return buf;
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
	struct opmfu_rank_peaks pk = { { 0, 0, 1e12, 0, 0, 0 }, { NULL } };
	const struct opmfu_analysis *reg[] = { &opmfu_analysis_ops, &opmfu_analysis_steps, &opmfu_analysis_hotspots,
					       NULL };
	void *state[3];
	struct opmfu_rank_ctx ctx;
	struct opmfu_err e = OPMFU_ERR_INIT;
	struct opmfu_table t[OPMFU_MAX_TABLES];
	struct opmfu_cell c[32];
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
		CHECK_INT(reg[k]->stage, OPMFU_STAGE_UNITS);
		state[k] = opmfu_calloc(1, reg[k]->state_size);
		reg[k]->init(state[k]);
	}
	/* in registry order: steps and hotspots read the state of ops */
	for (k = 0; k < 3; k++)
		CHECK_INT(reg[k]->run(state[k], &ctx, &e), OPMFU_OK);
	CHECK(opmfu_rank_state(&ctx, &opmfu_analysis_ops) == state[0]);

	/* OpmfuSteps. #1: window 100..400 = 300: FLOP compute 200, other 100, idle 0;
	 * trace MFU 1e5 / (300e-9 x 1e12) = 1/3; shares idle 0, comm 0, other 1/3,
	 * below peak 200/300 - 1/3 = 1/3. #2: 1100..1600 = 500: FLOP 100, other 100,
	 * idle 300; trace MFU 5e4 / 5e5 = 0.1; shares 0.6, 0, 0.2, 0.2 - 0.1 = 0.1.
	 * #3: 3100..3500 = 400: other 400; no FLOPs, so no peak and no trace MFU:
	 * shares 0, 0, 1, and below peak NULL. */
	CHECK_INT(reg[1]->tables(state[1], &ctx, t, &n, &e), OPMFU_OK);
	CHECK_INT(n, 1);
	CHECK(!strcmp(t[0].def->name, "OpmfuSteps"));
	CHECK_INT(t[0].n_rows, 3);
	t[0].row(t[0].src, 0, c);
	CELL_INT(c[0], 5);
	CELL_INT(c[1], 1);
	CELL_INT(c[2], 100);
	CELL_INT(c[3], 400);
	CELL_INT(c[4], 300);
	CELL_INT(c[5], 200);
	CELL_INT(c[6], 100);
	CELL_INT(c[7], 0);
	CELL_INT(c[9], 0);
	CELL_INT(c[10], 100000);
	CELL_INT(c[12], 100000);
	CELL_REAL(c[13], 1.0);
	CELL_REAL(c[14], 1.0 / 3);
	CELL_REAL(c[15], 0);
	CELL_REAL(c[16], 0);
	CELL_REAL(c[17], 1.0 / 3);
	CELL_REAL(c[18], 1.0 / 3);
	t[0].row(t[0].src, 1, c);
	CELL_INT(c[1], 2);
	CELL_INT(c[4], 500);
	CELL_INT(c[5], 100);
	CELL_INT(c[6], 100);
	CELL_INT(c[9], 300);
	CELL_REAL(c[14], 0.1);
	CELL_REAL(c[15], 0.6);
	CELL_REAL(c[17], 0.2);
	CELL_REAL(c[18], 0.1);
	t[0].row(t[0].src, 2, c);
	CELL_INT(c[1], 3);
	CELL_INT(c[4], 400);
	CELL_INT(c[6], 400);
	CHECK(c[13].null && c[14].null);
	CELL_REAL(c[15], 0);
	CELL_REAL(c[17], 1.0);
	CHECK(c[18].null);

	/* the median step: windows 300 (#1), 500 (#2), 400 (#3), ordered 300, 400,
	 * 500, position (3 - 1) / 2 = 1: step #3, 400 ns; the trace MFU over all
	 * steps (#3 has no peak): (1e5 + 5e4) / ((300 + 500)e-9 x 1e12) = 0.1875 */
	steps = state[1];
	CHECK_INT(steps->median, 2);
	CHECK(steps->step_ns_median == 400);
	CHECK(fabs(steps->trace_mfu - 0.1875) < 1e-12);

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
		CHECK(!strcmp(text(&c[1]), i ? "Add" : "add"));
		CELL_INT(c[2], 3);
		CELL_INT(c[3], 600);
		CELL_INT(c[4], 0);
		CHECK(c[6].null);
		CELL_INT(c[7], 600);
		t[i].row(t[i].src, 1, c);
		CHECK(!strcmp(text(&c[1]), i ? "MatMul" : "mm"));
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

int main(void)
{
	opmfu_trace_init(&T);
	opmfu_flops_init(&FL);
	build();
	t_registered();
	opmfu_flops_release(&FL);
	opmfu_trace_release(&T);
	return check_done();
}
