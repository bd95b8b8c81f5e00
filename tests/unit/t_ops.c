/*
 * t_ops.c - OpmfuOps and OpmfuModules (SPEC 10) on hand-built traces:
 * records owning the op instances that start inside them (the innermost of
 * nested ones), helper kernels and duplicate kernel spans counted once,
 * shape FLOPs per kernel and per op instance, records compared with shapes,
 * peaks per dtype class, steps, module paths with inclusive and own sums,
 * and every allocation failing in turn.
 */
#include <math.h>
#include <string.h>

#include "analyze/modules.h"
#include "analyze/ops.h"
#include "base/mem.h"
#include "cell_text.h"
#include "check.h"

static struct opmfu_trace T;
static struct opmfu_flops FL;

static uint32_t S(const char *s)
{
	return opmfu_strtab_intern(&T.strs, s, strlen(s));
}

static uint32_t dt(enum opmfu_prec p)
{
	struct opmfu_dtype d = { S(opmfu_prec_name(p)), OPMFU_DT_FP16, (int8_t)p, "" };
	uint32_t idx = 0;
	CHECK_INT(opmfu_trace_add_dtype(&T, &d, &idx), 0);
	return idx;
}

/* A compute link of op instance `op` (a new instance when op == T.n_ops). */
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

static void range(struct opmfu_ranges *rs, int64_t start, int64_t end, int64_t value, const char *name,
		  uint32_t off)
{
	struct opmfu_range r = { start, end, value, S(name), off };
	CHECK_INT(opmfu_ranges_add(rs, &r), 0);
}

/* A fact as a FLOPs source would add it. */
static void fact(enum opmfu_flops_src src, int64_t flops, uint32_t ref, const uint32_t *cover, size_t n)
{
	struct opmfu_flops_fact f = { flops, S("f"), 0, 0, 0, (uint32_t)src, ref };
	uint32_t *w = opmfu_flops_room(&FL, n);
	size_t k;
	CHECK(w != NULL);
	for (k = 0; k < n; k++)
		w[k] = cover[k];
	CHECK_INT(opmfu_flops_add(&FL, &f, n), 0);
}

static const struct opmfu_unit *unit_at(const struct opmfu_ops *res, int64_t start)
{
	size_t i;
	for (i = 0; i < res->n; i++)
		if (res->v[i].start == start)
			return &res->v[i];
	return NULL;
}

/*
 * Peak fp16 1e12 FLOPS, int8 2e12, fp8 none. Times in ns.
 *  op0 "mm"@100..150 (fp16): Cast 1000..1100, MatMul 1100..1300, TransData 1300..1400
 *  op1 "bmm"@200..260 and op2 "bmm2"@210..250: one BatchMatMul 2000..2200 linked to both
 *  op3 "linear"@300..390: MatMul 3000..3200; op4 "mm"@330..335: MatMul 3200..3300 (int8)
 *  op5 "add"@500..510: Add 5000..5000 (0 ns), Mul 5010..5060
 *  op6 "conv"@600..700: Conv 6000..6400, shape facts only
 *  op7 "fp8mm"@800..810: MatMul 8000..8100 (fp8: no peak), shape facts only
 * Records: R0 "mm" 90..160 (1e5 FLOPs) covers op0 (its kernels as S would);
 * R1 190..270 (4e5) covers op1 only (the kernel of op2 is a duplicate span)
 * but owns op1 and op2 (both start inside); R2 280..400 (6e5) and R3
 * 320..340 (1e5) both hold op4: the inner R3 owns it; R4 480..520 (1000).
 * Shape facts: MatMul of op0 2e5 (record R0 disagrees), BatchMatMul of op1
 * and of op2 (4e5 each: the unit counts the one kernel once and agrees
 * with R1), Conv of op6 in two facts 3e5 + 1e5, MatMul of op7 5e4.
 */
static void build(void)
{
	uint32_t f16 = dt(OPMFU_PREC_FP16), i8 = dt(OPMFU_PREC_INT8), f8 = dt(OPMFU_PREC_FP8), l[20];

	l[0] = link(0, "mm", 100, 150, "Cast", 1000, 1100, f16);
	l[1] = link(0, "mm", 100, 150, "MatMul", 1100, 1300, f16);
	l[2] = link(0, "mm", 100, 150, "TransData", 1300, 1400, f16);
	l[3] = link(1, "bmm", 200, 260, "BatchMatMul", 2000, 2200, f16);
	l[4] = link(2, "bmm2", 210, 250, "BatchMatMul", 2000, 2200, f16);
	l[5] = link(3, "linear", 300, 390, "MatMul", 3000, 3200, f16);
	l[6] = link(4, "mm", 330, 335, "MatMul", 3200, 3300, i8);
	l[7] = link(5, "add", 500, 510, "Add", 5000, 5000, f16);
	l[8] = link(5, "add", 500, 510, "Mul", 5010, 5060, f16);
	l[9] = link(6, "conv", 600, 700, "Conv", 6000, 6400, f16);
	l[10] = link(7, "fp8mm", 800, 810, "MatMul", 8000, 8100, f8);

	range(&T.recs, 90, 160, 100000, "100000-mm", 7);
	range(&T.recs, 190, 270, 400000, "400000-bmm", 7);
	range(&T.recs, 280, 400, 600000, "600000-linear", 7);
	range(&T.recs, 320, 340, 100000, "100000-mm", 7);
	range(&T.recs, 480, 520, 1000, "1000-add", 5);
	fact(OPMFU_FLOPS_RECORD, 100000, 0, l, 3);
	fact(OPMFU_FLOPS_RECORD, 400000, 1, l + 3, 1);
	fact(OPMFU_FLOPS_RECORD, 600000, 2, l + 5, 2);
	fact(OPMFU_FLOPS_RECORD, 100000, 3, l + 6, 1);
	fact(OPMFU_FLOPS_RECORD, 1000, 4, l + 7, 2);
	fact(OPMFU_FLOPS_SHAPE, 200000, 1, l + 1, 1);
	fact(OPMFU_FLOPS_SHAPE, 400000, 1, l + 3, 1);
	fact(OPMFU_FLOPS_SHAPE, 400000, 1, l + 4, 1);
	fact(OPMFU_FLOPS_SHAPE, 300000, 3, l + 9, 1);
	fact(OPMFU_FLOPS_SHAPE, 100000, 3, l + 9, 1);
	fact(OPMFU_FLOPS_SHAPE, 50000, 1, l + 10, 1);

	/* steps 0..4000 (#7) and 4000..9000 (#8); modules: Model 0..1000 holding
	 * Block 90..400 holding Attn 190..270, and a second Block 480..520; the
	 * ops at 600 and 800 are inside Model only */
	range(&T.steps, 0, 4000, 7, "ProfilerStep#7", 0);
	range(&T.steps, 4000, 9000, 8, "ProfilerStep#8", 0);
	range(&T.mods, 190, 270, 0, "Attn", 0);
	range(&T.mods, 90, 400, 0, "Block", 0);
	range(&T.mods, 480, 520, 0, "Block", 0);
	range(&T.mods, 0, 1000, 0, "Model", 0);
}

static void t_units(void)
{
	struct opmfu_rank_peaks pk = { { 0, 0, 1e12, 0, 2e12, 0 }, { NULL }, 0, NULL };
	struct opmfu_ops res;
	struct opmfu_modules mods;
	struct opmfu_err e = OPMFU_ERR_INIT;
	const struct opmfu_unit *u;
	size_t i;

	opmfu_ops_init(&res);
	opmfu_modules_init(&mods);
	CHECK_INT(opmfu_ops_run(&T, &FL, &pk, &res, &e), OPMFU_OK);
	CHECK_INT(opmfu_modules_run(&res, &mods, &e), OPMFU_OK);
	/* R0, R1 (op1+op2), R2 (op3), R3 (op4), R4 (op5), op6, op7 */
	CHECK_INT(res.n, 7);
	for (i = 1; i < res.n; i++)
		CHECK(res.v[i - 1].start <= res.v[i].start);

	/* R0: 1e5 FLOPs over all three kernels, 400 ns: 1e5 / 4e-7 s = 2.5e11 FLOPS = 0.25 of fp16 */
	u = unit_at(&res, 100);
	CHECK(u && u->src == OPMFU_FLOPS_RECORD && u->flops == 100000 && u->kernel_ns == 400 && u->kernels == 3);
	CHECK(u && !strcmp(opmfu_strtab_str(&T.strs, T.links[u->main_link].k_name), "MatMul"));
	CHECK(u && fabs(opmfu_unit_mfu(&res, u) - 0.25) < 1e-12);
	/* lost: 400 - 1e5 / 1e12 * 1e9 = 400 - 100 = 300 ns */
	CHECK(u && fabs(opmfu_unit_lost_ns(&res, u) - 300) < 1e-9);
	CHECK(u && u->step == 0 && T.steps.v[0].value == 7);

	/* R1 owns op1 and op2; their one kernel once: 200 ns; 4e5 / 2e-7 = 2e12 -> MFU 2.0 */
	u = unit_at(&res, 200);
	CHECK(u && u->fact == 1 && u->kernels == 1 && u->kernel_ns == 200 && u->end == 260);
	CHECK(u && fabs(opmfu_unit_mfu(&res, u) - 2.0) < 1e-12);
	CHECK(unit_at(&res, 210) == NULL);

	/* R2 keeps op3 only (op4 is the inner R3's): 6e5 / 2e-7 = 3e12 -> 3.0 */
	u = unit_at(&res, 300);
	CHECK(u && u->fact == 2 && u->kernel_ns == 200 && fabs(opmfu_unit_mfu(&res, u) - 3.0) < 1e-12);
	/* R3: int8, 1e5 / 1e-7 = 1e12 of 2e12 -> 0.5 */
	u = unit_at(&res, 330);
	CHECK(u && u->fact == 3 && u->prec == OPMFU_PREC_INT8 && fabs(opmfu_unit_mfu(&res, u) - 0.5) < 1e-12);
	/* R4: the 0 ns Add is a kernel, its time 0: 50 ns in all; its op starts at 500, in step
	 * #7 (0..4000) although its kernels run at 5000: step marks are the host's */
	u = unit_at(&res, 500);
	CHECK(u && u->kernels == 2 && u->kernel_ns == 50 && u->step == 0);
	/* op6 from its two shape facts: 4e5 over 400 ns -> 1.0 */
	u = unit_at(&res, 600);
	CHECK(u && u->src == OPMFU_FLOPS_SHAPE && u->flops == 400000 && fabs(opmfu_unit_mfu(&res, u) - 1.0) < 1e-12);
	/* op7: fp8 has no peak: no MFU, all of its time lost */
	u = unit_at(&res, 800);
	CHECK(u && u->src == OPMFU_FLOPS_SHAPE && opmfu_unit_mfu(&res, u) < 0 && opmfu_unit_lost_ns(&res, u) == 100);

	/* the rank: kernel time 400+200+200+100+50+400+100 = 1450; with FLOPs all of it */
	CHECK_DBL(res.st.busy_ns, 1450);
	CHECK_DBL(res.st.flops_ns, 1450);
	CHECK_INT(res.st.n_flops, 7);
	CHECK_INT(res.st.n_no_peak, 1);
	CHECK_INT(res.st.n_above_one, 2); /* R1 2.0 and R2 3.0; op6's 1.0 is not above */
	/* compared: R0 (2e5 vs 1e5: no), R1 (4e5 once vs 4e5: yes); R2-R4 have no shape facts */
	CHECK_INT(res.st.rec_compared, 2);
	CHECK_INT(res.st.rec_agree, 1);
	CHECK_INT(res.st.recs_nested, 0);
	/* FLOPs: records 1e5+4e5+6e5+1e5+1e3, shapes 4e5+5e4 */
	CHECK_DBL(res.st.flops_src[OPMFU_FLOPS_RECORD], 1201000);
	CHECK_DBL(res.st.flops_src[OPMFU_FLOPS_SHAPE], 450000);
	/* capacity (FLOP-s at peak): fp16 units 400+200+200+50+400 ns at 1e12, int8 100 ns at 2e12 */
	CHECK(fabs(res.st.cap_flops - (1250e-9 * 1e12 + 100e-9 * 2e12)) < 1e-6);
	CHECK_INT(res.st.main_prec, OPMFU_PREC_FP16);

	/* modules: units placed innermost; paths from the nesting */
	/* three paths (the two Block calls are one path); by lost time: Model
	 * 300+0+0+50+49+0+100 = 499 (R3: 100 - 1e5/2e12 s = 50; R4: 50 - 1),
	 * Model/Block 399, Model/Block/Attn 0 (MFU above 1 loses nothing) */
	CHECK_INT(mods.n_rows, 3);
	for (i = 0; i < mods.n_rows; i++) {
		const struct opmfu_mrow *r = &mods.rows[i];
		const char *p = opmfu_intern_str(&mods.paths, r->path);
		if (!strcmp(p, "Model")) {
			/* everything: 1450 ns; own: op6 and op7 (500 ns) */
			CHECK(r->calls == 1 && r->depth == 1 && r->all.kernel_ns == 1450 && r->self.kernel_ns == 500);
			CHECK(i == 0 && fabs(r->all.lost_ns - 499) < 1e-9);
		} else if (!strcmp(p, "Model/Block")) {
			/* two calls; R0 (100..150 in Block 90..400), R2, R3 own; R4 in the second Block; R1 in Attn */
			CHECK(r->calls == 2 && r->depth == 2);
			CHECK_INT(r->all.kernel_ns, 400 + 200 + 200 + 100 + 50);
			CHECK_INT(r->self.kernel_ns, 400 + 200 + 100 + 50);
			CHECK(i == 1 && fabs(r->all.lost_ns - 399) < 1e-9);
		} else if (!strcmp(p, "Model/Block/Attn")) {
			CHECK(r->calls == 1 && r->depth == 3 && r->all.kernel_ns == 200 && r->self.kernel_ns == 200);
			/* 4e5 FLOPs in 200 ns at 1e12: MFU 2.0; nothing lost */
			CHECK(fabs(opmfu_msum_mfu(&r->all) - 2.0) < 1e-12 && r->all.lost_ns == 0);
			CHECK(i == 2);
		} else {
			CHECK_STR(p, "Model/Block");
		}
	}
	u = unit_at(&res, 800);
	CHECK(u && u->module != OPMFU_UNIT_NONE && !strcmp(opmfu_intern_str(res.paths, u->module), "Model"));
	u = unit_at(&res, 200);
	CHECK(u && !strcmp(opmfu_intern_str(res.paths, u->module), "Model/Block/Attn"));

	opmfu_modules_release(&mods);
	opmfu_ops_release(&res);
}

/* Op-scope shapes (Kineto): a fact covers all kernels of an op instance and counts once. */
static void t_op_scope(void)
{
	struct opmfu_trace save = T;
	struct opmfu_flops save_fl = FL;
	struct opmfu_rank_peaks pk = { { 0, 0, 1e12, 0, 0, 0 }, { NULL }, 0, NULL };
	struct opmfu_ops res;
	struct opmfu_err e = OPMFU_ERR_INIT;
	uint32_t f16, l[2];

	opmfu_trace_init(&T);
	opmfu_flops_init(&FL);
	f16 = dt(OPMFU_PREC_FP16);
	T.shape_scope = OPMFU_SHAPES_OP;
	l[0] = link(0, "aten::mm", 10, 20, "gemm", 100, 300, f16);
	l[1] = link(0, "aten::mm", 10, 20, "splitk_reduce", 300, 400, f16);
	fact(OPMFU_FLOPS_SHAPE, 150000, 1, l, 2);
	opmfu_ops_init(&res);
	CHECK_INT(opmfu_ops_run(&T, &FL, &pk, &res, &e), OPMFU_OK);
	/* 1.5e5 over 300 ns = 5e11 -> 0.5; no step marks: no step */
	CHECK(res.n == 1 && res.v[0].flops == 150000 && res.v[0].kernel_ns == 300 && res.v[0].kernels == 2);
	CHECK(res.n == 1 && fabs(opmfu_unit_mfu(&res, &res.v[0]) - 0.5) < 1e-12 && res.v[0].step == OPMFU_NO_STEP);
	opmfu_ops_release(&res);
	opmfu_flops_release(&FL);
	opmfu_trace_release(&T);
	T = save;
	FL = save_fl;
}

/*
 * SPEC 18 on hand-set bytes: peak 1e12 FLOPS (fp16), bandwidth 1e12 bytes/s,
 * so the ridge point is 1 FLOP per byte and 1 ns moves 1000 bytes or does
 * 1000 FLOPs. Op scope (the op's bytes on its first link, 0 on the other):
 *  op0 mm: gemm 100..300 + splitk 300..400 (300 ns), 1.5e5 FLOPs, 5e4 bytes:
 *    intensity 3 >= 1: compute; roofline max(150, 50) = 150 ns, eff 0.5,
 *    recoverable 150; achieved 5e4 / 300 ns = 0.1667 TB/s;
 *  op1 add: 500..700 (200 ns), no FLOPs, 1e5 bytes: memory; roofline 100 ns,
 *    eff 0.5, recoverable 100 (its lost time is all 200);
 *  op2 relu: 800..900 (100 ns), no FLOPs, bytes unknown: unknown, no
 *    roofline, recoverable 100 (all of it);
 *  op3 mul: 1000..1010 (10 ns), 2e4 bytes: roofline 20 ns is above its time
 *    (wrong bytes or bandwidth): recoverable 0, eff 2.
 */
static void t_roofline(void)
{
	struct opmfu_trace save = T;
	struct opmfu_flops save_fl = FL;
	struct opmfu_rank_peaks pk = { { 0, 0, 1e12, 0, 0, 0 }, { NULL }, 1e12, "test" };
	struct opmfu_ops res;
	struct opmfu_err e = OPMFU_ERR_INIT;
	struct opmfu_ops_table view;
	struct opmfu_table tab;
	struct opmfu_cell c[64];
	static const char *const names[] = { "bytes", "intensity", "achieved_tbps", "bound", "roofline_ns",
					     "roofline_eff", "recoverable_ns", "lost_ns" };
	int col[8], k;
	uint32_t f16, l[5];
	size_t i;

	opmfu_trace_init(&T);
	opmfu_flops_init(&FL);
	f16 = dt(OPMFU_PREC_FP16);
	T.shape_scope = OPMFU_SHAPES_OP;
	l[0] = link(0, "aten::mm", 10, 20, "gemm", 100, 300, f16);
	l[1] = link(0, "aten::mm", 10, 20, "splitk_reduce", 300, 400, f16);
	l[2] = link(1, "aten::add", 30, 40, "add_k", 500, 700, f16);
	l[3] = link(2, "aten::relu", 50, 60, "relu_k", 800, 900, f16);
	l[4] = link(3, "aten::mul", 70, 80, "mul_k", 1000, 1010, f16);
	fact(OPMFU_FLOPS_SHAPE, 150000, 1, l, 2);
	FL.bytes = opmfu_malloc(5 * sizeof(*FL.bytes));
	CHECK(FL.bytes != NULL);
	if (!FL.bytes)
		return;
	FL.bytes[l[0]] = 50000;
	FL.bytes[l[1]] = 0;
	FL.bytes[l[2]] = 100000;
	FL.bytes[l[3]] = -1;
	FL.bytes[l[4]] = 20000;
	opmfu_ops_init(&res);
	CHECK_INT(opmfu_ops_run(&T, &FL, &pk, &res, &e), OPMFU_OK);
	CHECK_INT(res.n, 4);
	view.ops = &res;
	view.rank = 0;
	tab = opmfu_ops_table(&view);
	for (k = 0; k < 8; k++)
		CHECK((col[k] = opmfu_table_col(tab.def, names[k])) >= 0);
	for (i = 0; i < res.n && i < 4; i++) {
		tab.row(tab.src, i, c);
		switch (i) {
		case 0:
			CHECK_INT(c[col[0]].v.i, 50000);
			CHECK(fabs(c[col[1]].v.r - 3) < 1e-12);
			CHECK(fabs(c[col[2]].v.r - 50000.0 / 300 / 1e3) < 1e-12);
			CHECK_STR(cell_text(&c[col[3]]), "compute");
			CHECK_INT(c[col[4]].v.i, 150);
			CHECK(fabs(c[col[5]].v.r - 0.5) < 1e-12);
			CHECK_INT(c[col[6]].v.i, 150);
			CHECK_INT(c[col[7]].v.i, 150);
			break;
		case 1:
			CHECK_INT(c[col[0]].v.i, 100000);
			CHECK(c[col[1]].null);
			CHECK_STR(cell_text(&c[col[3]]), "memory");
			CHECK_INT(c[col[4]].v.i, 100);
			CHECK(fabs(c[col[5]].v.r - 0.5) < 1e-12);
			CHECK_INT(c[col[6]].v.i, 100);
			CHECK_INT(c[col[7]].v.i, 200);
			break;
		case 2:
			CHECK(c[col[0]].null && c[col[2]].null && c[col[4]].null && c[col[5]].null);
			CHECK_STR(cell_text(&c[col[3]]), "unknown");
			CHECK_INT(c[col[6]].v.i, 100);
			break;
		default:
			CHECK_INT(c[col[4]].v.i, 20);
			CHECK(fabs(c[col[5]].v.r - 2) < 1e-12);
			CHECK_INT(c[col[6]].v.i, 0);
		}
	}
	opmfu_ops_release(&res);
	opmfu_flops_release(&FL);
	opmfu_trace_release(&T);
	T = save;
	FL = save_fl;
}

/* Every allocation failing in turn: OPMFU_ERR_NOMEM and nothing held, or the same result. */
static void t_nomem(void)
{
	struct opmfu_rank_peaks pk = { { 0, 0, 1e12, 0, 2e12, 0 }, { NULL }, 0, NULL };
	long n;
	for (n = 1; n < 200; n++) { /* the n-th allocation fails */
		struct opmfu_ops res;
		struct opmfu_modules mods;
		struct opmfu_err e = OPMFU_ERR_INIT;
		enum opmfu_status st;
		opmfu_ops_init(&res);
		opmfu_modules_init(&mods);
		opmfu_mem_fail_after(n);
		st = opmfu_ops_run(&T, &FL, &pk, &res, &e);
		if (st == OPMFU_OK)
			st = opmfu_modules_run(&res, &mods, &e);
		opmfu_mem_fail_after(-1);
		if (st == OPMFU_OK) {
			CHECK_INT(res.n, 7);
			CHECK_INT(mods.n_rows, 3);
		} else {
			CHECK_INT(st, OPMFU_ERR_NOMEM);
			CHECK(mods.n_rows == 0);
		}
		opmfu_modules_release(&mods);
		opmfu_ops_release(&res);
		if (st == OPMFU_OK)
			break;
	}
	CHECK(n > 5 && n < 200);
}

int main(void)
{
	opmfu_trace_init(&T);
	opmfu_flops_init(&FL);
	build();
	t_units();
	t_op_scope();
	t_roofline();
	t_nomem();
	opmfu_flops_release(&FL);
	opmfu_trace_release(&T);
	return check_done();
}
