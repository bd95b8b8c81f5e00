/*
 * t_flops.c - the FLOPs stage (SPEC 9) and its `record` source (SPEC 2
 * steps 2-3) on hand-built traces: records covering op instances with
 * several kernels, overlapping records, a record with no op inside,
 * duplicates of (kernel start, end) in one record, inclusive bounds,
 * unknown shapes, communication links, records out of order, prepared and
 * not, and every allocation failing in turn. Also the trace's ranges, dtype
 * table and op order that the stage builds on.
 */
#include <string.h>

#include "base/mem.h"
#include "check.h"
#include "flops/flops.h"

static struct opmfu_trace T;
static struct opmfu_flops FL;

static uint32_t S(const char *s)
{
	return opmfu_strtab_intern(&T.strs, s, strlen(s));
}

/* src 0: compute, else communication (links must come in that order) */
static size_t lnk(int src, uint32_t op, int64_t os, const char *k, int64_t ks, int64_t ke, uint32_t shape)
{
	struct opmfu_link l = { ks, ke, os, os + 1000, S(k), S("op"), shape, 0, shape, op };
	OPMFU_GROW(T.links, T.cap_links, T.n_links + 1);
	T.links[T.n_links] = l;
	if (src == 0)
		T.n_compute++;
	else
		T.n_comm_op++;
	if (op >= T.n_ops)
		T.n_ops = op + 1;
	return T.n_links++;
}

static void rec(int64_t start, int64_t end, int64_t flops, const char *msg)
{
	struct opmfu_range r = { start, end, flops, S(msg), (uint32_t)(strchr(msg, '-') - msg + 1) };
	CHECK_INT(opmfu_ranges_add(&T.recs, &r), 0);
}

static void start(void)
{
	opmfu_trace_init(&T);
	opmfu_flops_init(&FL);
	T.shape_unknown = S("N/A");
}

static void finish(void)
{
	opmfu_flops_release(&FL);
	opmfu_trace_release(&T);
}

/* fact i covers exactly the links want[0 .. n), in that order */
static void check_cover(size_t i, const size_t *want, size_t n)
{
	size_t k;
	CHECK(i < FL.n_facts);
	if (i >= FL.n_facts)
		return;
	CHECK_INT(FL.facts[i].n, n);
	for (k = 0; k < n && k < FL.facts[i].n; k++)
		CHECK_INT(FL.cover[FL.facts[i].first + k], want[k]);
}

static const char *fact_name(size_t i)
{
	return opmfu_strtab_str(&T.strs, FL.facts[i].name) + FL.facts[i].name_off;
}

/*
 * Op instances 0 (start 100, kernels A B C), 1 (start 300, kernel D, also
 * linked to op 2 starting at 310, the same kernel: a duplicate pair), 3
 * (start 500, unknown shapes), 4 (start 700, kernels F and E with equal
 * start and end: a duplicate pair too, names apart), 5 (start 900, NULL
 * shapes, which count as known), and a communication link starting at 100.
 */
static void build(size_t *id)
{
	uint32_t sh = S("4,4"), na = T.shape_unknown;
	id[0] = lnk(0, 0, 100, "B", 120, 130, sh);
	id[1] = lnk(0, 0, 100, "A", 110, 120, sh);
	id[2] = lnk(0, 0, 100, "C", 130, 140, sh);
	id[3] = lnk(0, 2, 310, "D", 320, 330, sh);
	id[4] = lnk(0, 1, 300, "D", 320, 330, sh);
	id[5] = lnk(0, 3, 500, "U", 510, 520, na);
	id[6] = lnk(0, 4, 700, "F", 710, 720, sh);
	id[7] = lnk(0, 4, 700, "E", 710, 720, sh);
	id[8] = lnk(0, 5, 900, "N", 910, 920, 0);
	id[9] = lnk(1, 0, 100, "HcclAllReduce", 100, 200, 0);
}

/* prepared: 0 run only; 1 prepared from R (as the reader's callback does); 2 prepared on its own */
static void t_records(int prepared)
{
	struct opmfu_err e = OPMFU_ERR_INIT;
	uint32_t r[9];
	size_t id[10];

	start();
	build(id);
	/* out of start order; R5 and R6 start together (read order kept) */
	rec(50, 350, 1000, "1000-mm");       /* ops 0, 1 (not 2: starts at 310) */
	rec(0, 1000, 7000, "7000-outer");    /* everything but U and the comm link */
	rec(400, 600, 5, "5-unknown");       /* only op 3, unknown shapes: no kernel */
	rec(300, 310, 30, "30-two-ops");     /* ops 1 and 2, bounds inclusive: D once */
	rec(700, 700, 40, "40-dup");         /* op 4: E and F share (start, end) */
	rec(700, 900, 50, "50-null-shapes"); /* ops 4 and 5 */
	rec(2000, 3000, 9, "9-nothing");     /* no op inside */
	CHECK_INT(opmfu_trace_op_order(&T, r), 0);
	if (prepared == 1)
		CHECK_INT(opmfu_flops_prepare(&FL, &T, r, 9, &e), OPMFU_OK);
	else if (prepared == 2)
		CHECK_INT(opmfu_flops_prepare(&FL, &T, NULL, 0, &e), OPMFU_OK);
	CHECK_INT(opmfu_flops_run(&FL, &T, prepared == 2 ? NULL : r, 9, &e), OPMFU_OK);

	/* records in start order */
	CHECK_INT(T.recs.v[0].start, 0);
	CHECK_INT(T.recs.v[6].start, 2000);
	CHECK_INT(FL.drops[OPMFU_DROP_NO_KERNEL], 2);
	CHECK_INT(FL.n_facts, 5);
	if (FL.n_facts == 5) {
		/* S order: (op start, kernel start, kernel end, index) */
		/* D once (op 1 starts first), F not E (equal keys: index order) */
		static const size_t outer[] = { 1, 0, 2, 4, 6, 8 };
		static const size_t mm[] = { 1, 0, 2, 4 };
		static const size_t two[] = { 4 };
		static const size_t dup[] = { 6 };
		static const size_t nul[] = { 6, 8 };
		size_t i;
		check_cover(0, outer, 6);
		check_cover(1, mm, 4);
		check_cover(2, two, 1);
		check_cover(3, dup, 1);
		check_cover(4, nul, 2);
		CHECK_STR(fact_name(0), "outer");
		CHECK_STR(fact_name(1), "mm");
		CHECK_STR(fact_name(3), "dup");
		CHECK_INT(FL.facts[0].flops, 7000);
		CHECK_INT(FL.facts[1].flops, 1000);
		CHECK_INT(FL.facts[2].ref, 2); /* index of its record, sorted */
		CHECK_INT(FL.facts[3].ref, 4); /* after the record that gave no fact */
		for (i = 0; i < FL.n_facts; i++)
			CHECK_INT(FL.facts[i].src, OPMFU_FLOPS_RECORD);
		/* the op instances of the 1000-mm record: 0 and 1 */
		CHECK_INT(T.links[FL.cover[FL.facts[1].first]].op, 0);
		CHECK_INT(T.links[FL.cover[FL.facts[1].first + 3]].op, 1);
	}
	CHECK_STR(opmfu_flops_src_name(OPMFU_FLOPS_RECORD), "record");
	finish();
}

/* No S rows at all, no records, and records only: nothing, without failing. */
static void t_empty(void)
{
	struct opmfu_err e = OPMFU_ERR_INIT;
	start();
	CHECK_INT(opmfu_flops_run(&FL, &T, NULL, 0, &e), OPMFU_OK);
	CHECK_INT(FL.n_facts, 0);
	finish();
	start();
	rec(0, 10, 5, "5-x");
	CHECK_INT(opmfu_flops_run(&FL, &T, NULL, 0, &e), OPMFU_OK);
	CHECK_INT(FL.n_facts, 0);
	CHECK_INT(FL.drops[OPMFU_DROP_NO_KERNEL], 1);
	finish();
}

/* Every allocation failing in turn: OPMFU_ERR_NOMEM, then the same result. */
static void t_nomem(void)
{
	struct opmfu_err e = OPMFU_ERR_INIT;
	size_t id[10];
	long n;
	int failed = 0;
	for (n = 1; n < 1000; n++) {
		enum opmfu_status st;
		start();
		build(id);
		rec(0, 1000, 7000, "7000-outer");
		rec(300, 310, 30, "30-two-ops");
		opmfu_mem_fail_after(n);
		st = opmfu_flops_run(&FL, &T, NULL, 0, &e);
		opmfu_mem_fail_after(0);
		if (st == OPMFU_OK) {
			CHECK_INT(FL.n_facts, 2);
			CHECK_INT(FL.n_cover, 7);
			finish();
			break;
		}
		failed++;
		CHECK_INT(st, OPMFU_ERR_NOMEM);
		CHECK(strstr(e.msg, "out of memory") != NULL);
		finish();
	}
	CHECK(failed >= 4);
}

/* The trace parts the stage reads: ranges by kind, sorting, dtype table, op order. */
static void t_trace(void)
{
	struct opmfu_range a = { 30, 40, 1, 0, 0 }, b = { 10, 20, 2, 0, 0 }, c = { 30, 35, 3, 0, 0 };
	struct opmfu_dtype d = { 0, OPMFU_DT_INT8, OPMFU_PREC_INT8, "" };
	uint32_t idx = 0, r[3];

	opmfu_trace_init(&T);
	CHECK(opmfu_trace_ranges(&T, OPMFU_RANGE_MODULE) == &T.mods);
	CHECK(opmfu_trace_ranges(&T, OPMFU_RANGE_FLOPS) == &T.recs);
	CHECK(opmfu_trace_ranges(&T, OPMFU_RANGE_STEP) == &T.steps);
	CHECK_INT(opmfu_ranges_add(&T.steps, &a), 0);
	CHECK_INT(opmfu_ranges_add(&T.steps, &b), 0);
	CHECK_INT(opmfu_ranges_add(&T.steps, &c), 0);
	CHECK_INT(opmfu_ranges_sort(&T.steps), 0);
	CHECK(T.steps.v[0].value == 2 && T.steps.v[1].value == 1 && T.steps.v[2].value == 3);
	/* no list: fp16 by the reference's rule, none by SPEC 8's */
	CHECK_INT(opmfu_trace_dtype(&T, 0)->ref, OPMFU_DT_FP16);
	CHECK_INT(opmfu_trace_dtype(&T, 0)->prec, OPMFU_PREC_NONE);
	CHECK_INT(opmfu_trace_add_dtype(&T, &d, &idx), 0);
	CHECK_INT(idx, 1);
	CHECK_INT(opmfu_trace_dtype(&T, 1)->ref, OPMFU_DT_INT8);
	CHECK_INT(opmfu_trace_dtype(&T, 7)->ref, OPMFU_DT_FP16); /* out of range: no list */
	CHECK_INT(T.shape_unknown, UINT32_MAX);
	/* R: (op start, kernel start, index) */
	lnk(0, 0, 200, "x", 5, 6, 0);
	lnk(0, 1, 100, "y", 9, 9, 0);
	lnk(0, 2, 100, "z", 9, 9, 0);
	CHECK_INT(opmfu_trace_op_order(&T, r), 0);
	CHECK(r[0] == 1 && r[1] == 2 && r[2] == 0);
	opmfu_trace_release(&T);
}

int main(void)
{
	t_records(0);
	t_records(1);
	t_records(2);
	t_empty();
	t_nomem();
	t_trace();
	return check_done();
}
