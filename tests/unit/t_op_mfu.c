/*
 * t_op_mfu.c - SPEC 2 through the FLOPs stage and kernel MFU on a hand-built
 * trace: several kernels per op, a kernel linked to two ops, overlapping
 * records, a zero-duration kernel, unknown shapes, a record with no op
 * inside, an int8 kernel; the dtype class rule of an Ascend trace and of
 * any other (SPEC 16).
 */
#include <math.h>
#include <string.h>

#include "reference/op_mfu.h"
#include "base/mem.h"
#include "check.h"

static struct opmfu_trace T;

static uint32_t S(const char *s)
{
	return opmfu_strtab_intern(&T.strs, s, strlen(s));
}

/* A dtype table entry, as a reader would parse it. */
static uint32_t dt(const char *text, enum opmfu_dtclass ref)
{
	struct opmfu_dtype d = { S(text), (int8_t)ref, (int8_t)OPMFU_PREC_FP16, "" };
	uint32_t idx = 0;
	CHECK_INT(opmfu_trace_add_dtype(&T, &d, &idx), 0);
	return idx;
}

/* The op instance of (op, start): one per framework op call. */
static uint32_t op_id(uint32_t op, int64_t os)
{
	size_t i;
	for (i = 0; i < T.n_links; i++)
		if (T.links[i].op_name == op && T.links[i].op_start == os)
			return T.links[i].op;
	return (uint32_t)T.n_ops++;
}

static void link(const char *op, int64_t os, int64_t oe, const char *k, int64_t ks, int64_t ke, uint32_t dtype,
		 uint32_t shape)
{
	struct opmfu_link l = { ks, ke, os, oe, S(k), S(op), shape, dtype, shape, op_id(S(op), os) };
	OPMFU_GROW(T.links, T.cap_links, T.n_links + 1);
	T.links[T.n_links++] = l;
	T.n_compute++;
}

static void rec(int64_t start, int64_t end, int64_t flops, const char *msg)
{
	struct opmfu_range r = { start, end, flops, S(msg), (uint32_t)(strchr(msg, '-') - msg + 1) };
	CHECK_INT(opmfu_ranges_add(&T.recs, &r), 0);
}

/* expected entries of one OperatorMFU row: (op, kernel start) -> record flops list */
struct row {
	const char *op, *kernel;
	int64_t ks, ke, flops;
	double mfu; /* hand-computed, checked to 1e-12 */
	double peak;
};

/* prepared: 1 opmfu_op_mfu_prepare and opmfu_flops_prepare (from R) first,
 * as the reader's callback does before the records are read; 2 the FLOPs
 * stage prepared on its own. The result must be the same. */
static void t_mapping(int prepared)
{
	struct opmfu_op_mfu res;
	struct opmfu_op_mfu_stats stats;
	struct opmfu_flops fl;
	struct opmfu_rank_peaks pk = { .flops = { [OPMFU_PREC_FP16] = 1e12, [OPMFU_PREC_INT8] = 2e12 } };
	struct opmfu_err e = OPMFU_ERR_INIT;
	uint32_t f16, i8, sh, na;
	size_t i, n = 0;
	/* R order: (op start, kernel start); each kernel's entries in record-start order */
	static const struct row want[] = {
		{ "aten::mm", "Cast", 110, 120, 2000, 0.2, 1e12 },     /* R5 */
		{ "aten::mm", "Cast", 110, 120, 1000, 0.1, 1e12 },     /* R1 */
		{ "aten::mm", "MatMulV3", 120, 170, 2000, 0.04, 1e12 },
		{ "aten::mm", "MatMulV3", 120, 170, 1000, 0.02, 1e12 },
		{ "aten::mm", "TransData", 170, 180, 2000, 0.2, 1e12 },
		{ "aten::mm", "TransData", 170, 180, 1000, 0.1, 1e12 },
		/* R5's dtype is decided by its first row (Cast, fp16), so K4 gets the fp16 peak there */
		{ "aten::mm", "MatMulV3", 310, 360, 2000, 0.04, 1e12 },
		{ "aten::mm", "MatMulV3", 310, 360, 5000, 0.05, 2e12 }, /* R2, int8 */
		/* the same kernel under its second framework op, same MFU */
		{ "aclnnMm", "MatMulV3", 310, 360, 2000, 0.04, 1e12 },
		{ "aclnnMm", "MatMulV3", 310, 360, 5000, 0.05, 2e12 },
		/* the zero-duration kernel ZeroK gets nothing; K6 gets R5 and R3 */
		{ "aten::add", "Add", 520, 540, 2000, 0.1, 1e12 },
		{ "aten::add", "Add", 520, 540, 100, 0.005, 1e12 },
	};

	opmfu_trace_init(&T);
	T.ref_classes = 1; /* an Ascend trace: the reference's classes */
	opmfu_op_mfu_init(&res);
	opmfu_flops_init(&fl);
	f16 = dt("FLOAT16;FLOAT16", OPMFU_DT_FP16);
	i8 = dt("INT8;INT8;FLOAT", OPMFU_DT_INT8);
	sh = S("4,4;4,4");
	na = T.shape_unknown = S("N/A");
	/* read order deliberately not sorted */
	link("aten::add", 500, 600, "Add", 520, 540, f16, sh);
	link("aten::mm", 100, 200, "MatMulV3", 120, 170, f16, sh);
	link("aten::mm", 100, 200, "Cast", 110, 120, f16, sh);
	link("aten::mm", 100, 200, "TransData", 170, 180, f16, sh);
	link("aclnnMm", 305, 395, "MatMulV3", 310, 360, i8, sh);
	link("aten::mm", 300, 400, "MatMulV3", 310, 360, i8, sh);
	link("aten::add", 500, 600, "ZeroK", 510, 510, f16, sh);
	link("aten::na", 700, 800, "NaShape", 710, 750, f16, na);
	link("aten::zero", 2000, 2100, "ZeroOnly", 2010, 2010, f16, sh);

	rec(50, 250, 1000, "1000-mm");     /* R1: op aten::mm@100 */
	rec(290, 310, 5000, "5000-mm");    /* R2: both ops of K4 start inside; deduped */
	rec(450, 650, 100, "100-add");     /* R3 */
	rec(650, 850, 7, "7-na");          /* R4: only an N/A-shaped kernel: no kernel */
	rec(0, 1000, 2000, "2000-outer");  /* R5: overlaps everything above */
	rec(1990, 2200, 9, "9-zero");      /* R6: kernels of zero total duration */

	if (prepared == 1) {
		CHECK_INT(opmfu_op_mfu_prepare(&T, &res, &e), OPMFU_OK);
		CHECK_INT(res.n_r, 9);
		CHECK_INT(opmfu_flops_prepare(&fl, &T, res.r, res.n_r, &e), OPMFU_OK);
	} else if (prepared == 2) {
		CHECK_INT(opmfu_flops_prepare(&fl, &T, NULL, 0, &e), OPMFU_OK);
	}
	CHECK_INT(opmfu_op_mfu_prepare(&T, &res, &e), OPMFU_OK);
	CHECK_INT(opmfu_flops_run(&fl, &T, res.r, res.n_r, &e), OPMFU_OK);
	for (i = 0; i < fl.n_cover; i++) /* NaShape's unknown shapes keep it out of S */
		CHECK(strcmp(opmfu_strtab_str(&T.strs, T.links[fl.cover[i]].k_name), "NaShape") != 0);
	CHECK_INT(opmfu_op_mfu_run(&T, &fl, &pk, &res, &e), OPMFU_OK);
	CHECK_INT(res.stats.used[OPMFU_FLOPS_RECORD], 4);
	CHECK_INT(fl.drops[OPMFU_DROP_NO_KERNEL], 1);
	CHECK_INT(res.stats.drops[OPMFU_DROP_DURATION], 1);
	CHECK_INT(res.stats.kernels_with_mfu, 5);
	CHECK_INT(res.n_m, 5 + 3 + 1 + 1);
	CHECK_INT(res.stats.rows, sizeof(want) / sizeof(want[0]));

	for (i = 0; i < res.n_r; i++) {
		const struct opmfu_link *r = &T.links[res.r[i]];
		uint32_t k = opmfu_op_mfu_first(&res, &T, r);
		for (; k != OPMFU_NO_ENTRY; k = res.m[k].next, n++) {
			const struct opmfu_mfu_entry *m = &res.m[k];
			const struct opmfu_flops_fact *fr = opmfu_op_mfu_fact(&res, m);
			if (n >= sizeof(want) / sizeof(want[0]))
				break;
			CHECK_STR(opmfu_strtab_str(&T.strs, r->op_name), want[n].op);
			CHECK_STR(opmfu_strtab_str(&T.strs, r->k_name), want[n].kernel);
			CHECK_INT(r->k_start, want[n].ks);
			CHECK_INT(r->k_end, want[n].ke);
			CHECK_INT(fr->flops, want[n].flops);
			CHECK_DBL(opmfu_op_mfu_peak(&res, m), want[n].peak);
			CHECK(fabs(opmfu_op_mfu_mfu(&res, m) - want[n].mfu) < 1e-12);
			/* the exact value follows SPEC 2.5's operation order */
			CHECK_DBL(opmfu_op_mfu_mfu(&res, m), (double)fr->flops / ((double)(r->k_end - r->k_start) * 1e-9) / opmfu_op_mfu_peak(&res, m));
		}
	}
	CHECK_INT(n, sizeof(want) / sizeof(want[0]));

	/* records were put in start order */
	CHECK_INT(T.recs.v[0].start, 0);
	CHECK_INT(T.recs.v[5].start, 1990);

	/* without an int8 peak, the int8 record is dropped for that reason */
	opmfu_op_mfu_release(&res);
	pk.flops[OPMFU_PREC_INT8] = 0;
	CHECK_INT(opmfu_op_mfu_run(&T, &fl, &pk, &res, &e), OPMFU_OK);
	CHECK_INT(res.stats.drops[OPMFU_DROP_NO_PEAK], 1);
	CHECK_INT(res.stats.used[OPMFU_FLOPS_RECORD], 3);

	/* a rank drops the entries once their readers are done: the stats stay for its report */
	stats = res.stats;
	opmfu_op_mfu_drop_entries(&res);
	CHECK(!res.r && !res.m && !res.first);
	CHECK_INT(res.n_r + res.n_m + res.n_first, 0);
	CHECK_INT(opmfu_op_mfu_first(&res, &T, &T.links[0]), OPMFU_NO_ENTRY);
	CHECK(memcmp(&stats, &res.stats, sizeof(stats)) == 0);

	opmfu_op_mfu_release(&res);
	opmfu_flops_release(&fl);
	opmfu_trace_release(&T);
}

/* A record whose first kernel has an unsupported dtype, or only index
 * types: dropped for that, the first one seen named in the summary. */
static void t_dtype(void)
{
	struct opmfu_op_mfu res;
	struct opmfu_flops fl;
	struct opmfu_rank_peaks pk = { .flops = { [OPMFU_PREC_FP16] = 1e12, [OPMFU_PREC_INT8] = 2e12 } };
	struct opmfu_err e = OPMFU_ERR_INIT;
	struct opmfu_dtype bad = { 0, OPMFU_DT_UNSUPPORTED, OPMFU_PREC_UNSUPPORTED, "DOUBLE" };
	struct opmfu_dtype idx = { 0, OPMFU_DT_NONE, OPMFU_PREC_NONE, "INT64;INT32" };
	uint32_t b = 0, x = 0, sh;

	opmfu_trace_init(&T);
	T.ref_classes = 1; /* an Ascend trace: the reference's classes */
	opmfu_op_mfu_init(&res);
	opmfu_flops_init(&fl);
	sh = S("4,4");
	CHECK_INT(opmfu_trace_add_dtype(&T, &idx, &x), 0);
	CHECK_INT(opmfu_trace_add_dtype(&T, &bad, &b), 0);
	link("aten::a", 100, 200, "A", 110, 120, x, sh);
	link("aten::b", 300, 400, "B", 310, 320, b, sh);
	link("aten::c", 500, 600, "C", 510, 520, 0, 0); /* no dtype list, no shapes: fp16, as the reference */
	rec(50, 250, 1000, "1000-a");
	rec(250, 450, 1000, "1000-b");
	rec(450, 650, 1000, "1000-c");
	CHECK_INT(opmfu_flops_run(&fl, &T, NULL, 0, &e), OPMFU_OK);
	CHECK_INT(opmfu_op_mfu_run(&T, &fl, &pk, &res, &e), OPMFU_OK);
	CHECK_INT(res.stats.drops[OPMFU_DROP_DTYPE], 2);
	CHECK_STR(res.stats.bad_dtype, "INT64;INT32");
	CHECK_INT(res.stats.used[OPMFU_FLOPS_RECORD], 1);
	CHECK_INT(res.n_m, 1);
	CHECK_DBL(opmfu_op_mfu_peak(&res, &res.m[0]), 1e12);
	opmfu_op_mfu_release(&res);
	opmfu_flops_release(&fl);
	opmfu_trace_release(&T);
}

/*
 * SPEC 16: OperatorMFU of a non-Ascend trace divides by the peak of the
 * kernel's SPEC 8 class; an Ascend trace (t->ref_classes) keeps the
 * reference's classes, where FLOAT counts as fp16. One trace, run both ways,
 * with peaks fp32 2e12, fp16 8e12, int8 16e12 and none for tf32, fp8, fp4:
 *   A: fp32 inputs, 20 ns, record of 40000 FLOPs: 40000 / (20 * 1e-9) =
 *      2e12 FLOPS, so mfu = 2e12 / 2e12 = 1.0 by its own class, and
 *      2e12 / 8e12 = 0.25 at the fp16 peak the reference takes;
 *   B: no data dtype (only a Scalar): SPEC 8 gives no class (dropped as a
 *      dtype, its list named); the reference takes fp16: 1000 / (10 * 1e-9)
 *      = 1e11 FLOPS, 1e11 / 8e12 = 0.0125;
 *   C: fp4 inputs: SPEC 8's fp4 has no peak here (dropped for that); the
 *      reference has no fp4 class (dropped as a dtype, named).
 */
static void t_classes(void)
{
	struct opmfu_op_mfu res;
	struct opmfu_flops fl;
	struct opmfu_rank_peaks pk = { .flops = { [OPMFU_PREC_FP32] = 2e12, [OPMFU_PREC_FP16] = 8e12,
						  [OPMFU_PREC_INT8] = 16e12 } };
	struct opmfu_err e = OPMFU_ERR_INIT;
	struct opmfu_dtype f32 = { 0, OPMFU_DT_FP16, OPMFU_PREC_FP32, "" };
	struct opmfu_dtype scalar = { 0, OPMFU_DT_FP16, OPMFU_PREC_NONE, "" };
	struct opmfu_dtype fp4 = { 0, OPMFU_DT_UNSUPPORTED, OPMFU_PREC_FP4, "c10::Float4_e2m1fn_x2" };
	uint32_t a = 0, b = 0, c = 0, sh;
	int ascend;

	opmfu_trace_init(&T);
	opmfu_flops_init(&fl);
	sh = S("4,4;4,4");
	f32.text = S("float;float");
	scalar.text = S("Scalar");
	fp4.text = S("c10::Float4_e2m1fn_x2;c10::Float4_e2m1fn_x2");
	CHECK_INT(opmfu_trace_add_dtype(&T, &f32, &a), 0);
	CHECK_INT(opmfu_trace_add_dtype(&T, &scalar, &b), 0);
	CHECK_INT(opmfu_trace_add_dtype(&T, &fp4, &c), 0);
	link("aten::mm", 100, 200, "A", 110, 130, a, sh);
	link("aten::mul", 300, 400, "B", 310, 320, b, sh);
	link("aten::_scaled_mm", 500, 600, "C", 510, 520, c, sh);
	rec(50, 250, 40000, "40000-mm");
	rec(250, 450, 1000, "1000-mul");
	rec(450, 650, 1000, "1000-scaled_mm");
	CHECK_INT(opmfu_flops_run(&fl, &T, NULL, 0, &e), OPMFU_OK);

	for (ascend = 0; ascend < 2; ascend++) {
		opmfu_op_mfu_init(&res);
		T.ref_classes = ascend;
		CHECK_INT(opmfu_op_mfu_run(&T, &fl, &pk, &res, &e), OPMFU_OK);
		if (!ascend) {
			CHECK_INT(res.n_m, 1);
			CHECK_INT(res.m[0].link, 0);
			CHECK_DBL(opmfu_op_mfu_peak(&res, &res.m[0]), 2e12); /* fp32's own peak */
			CHECK_DBL(opmfu_op_mfu_mfu(&res, &res.m[0]), 1.0);
			CHECK_INT(res.stats.drops[OPMFU_DROP_DTYPE], 1);
			CHECK_STR(res.stats.bad_dtype, "Scalar");
			CHECK_INT(res.stats.drops[OPMFU_DROP_NO_PEAK], 1);
			CHECK_INT(res.stats.rows, 1);
		} else {
			CHECK_INT(res.n_m, 2);
			CHECK_INT(res.m[0].link, 0);
			CHECK_DBL(opmfu_op_mfu_peak(&res, &res.m[0]), 8e12); /* FLOAT at the fp16 rate, as the reference */
			CHECK_DBL(opmfu_op_mfu_mfu(&res, &res.m[0]), 0.25);
			CHECK_INT(res.m[1].link, 1);
			CHECK_DBL(opmfu_op_mfu_peak(&res, &res.m[1]), 8e12);
			CHECK_DBL(opmfu_op_mfu_mfu(&res, &res.m[1]), 0.0125);
			CHECK_INT(res.stats.drops[OPMFU_DROP_DTYPE], 1);
			CHECK_STR(res.stats.bad_dtype, "c10::Float4_e2m1fn_x2");
			CHECK_INT(res.stats.drops[OPMFU_DROP_NO_PEAK], 0);
			CHECK_INT(res.stats.rows, 2);
		}
		opmfu_op_mfu_release(&res);
	}
	opmfu_flops_release(&fl);
	opmfu_trace_release(&T);
}

int main(void)
{
	t_mapping(0);
	t_mapping(1);
	t_mapping(2);
	t_dtype();
	t_classes();
	return check_done();
}
