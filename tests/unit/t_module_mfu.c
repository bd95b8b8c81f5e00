/*
 * t_module_mfu.c - SPEC 3 on hand-built traces: nesting three deep, an op
 * sticking out of its module, ties in start time, equal module names under
 * different parents, a module called with different op sequences (m_0/m_1),
 * identical calls merging, ops outside every module, avg_mfu formatting,
 * communication kernels, the depth limit, numpy's mean, out-of-memory
 * paths and a large trace; the module tree and paths underneath, and the
 * nesting order (opmfu_nest_order) on spans read through an index. Every
 * expectation is derived in the comments.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "reference/module_mfu.h"
#include "base/mem.h"
#include "base/npmean.h"
#include "check.h"

static struct opmfu_trace T;
static struct opmfu_flops FL;
static struct opmfu_op_mfu OP;
static struct opmfu_module_mfu RES;

#define SH "\"4,4;4,4\""

static uint32_t S(const char *s)
{
	return s ? opmfu_strtab_intern(&T.strs, s, strlen(s)) : 0;
}

/* src: 0 compute, 1 COMMUNICATION_OP, 2 SCHEDULE; links must come in that order */
static void lnk(int src, const char *op, int64_t os, int64_t oe, const char *k, int64_t ks, int64_t ke,
		const char *shape)
{
	struct opmfu_link l = { ks,	   ke, os, oe, S(k), S(op), src ? 0 : S(shape), 0 /* no dtype list: fp16 */,
				src ? 0 : S(shape), (uint32_t)T.n_links };
	if (OPMFU_GROW(T.links, T.cap_links, T.n_links + 1))
		return;
	T.links[T.n_links++] = l;
	if (src == 0)
		T.n_compute++;
	else if (src == 1)
		T.n_comm_op++;
	else
		T.n_comm_sched++;
}

/* a compute kernel with shapes */
static void k(const char *op, int64_t os, int64_t oe, const char *kn, int64_t ks, int64_t ke)
{
	lnk(0, op, os, oe, kn, ks, ke, SH);
}

static void mod(const char *name, int64_t s, int64_t e)
{
	struct opmfu_range r = { s, e, 0, S(name), 0 };
	(void)opmfu_ranges_add(&T.mods, &r);
}

/* a FLOPs record; with the test's fp16 peak of 1e12 a kernel of d ns gets
 * mfu = flops / (d * 1e-9) / 1e12, e.g. 500000 over 1000 ns is 0.5 */
static void rec(int64_t s, int64_t e, long long flops)
{
	char msg[64];
	struct opmfu_range r = { s, e, flops, 0, 0 };
	snprintf(msg, sizeof(msg), "%lld-r", flops);
	r.name = S(msg);
	r.name_off = (uint32_t)(strchr(msg, '-') - msg + 1);
	(void)opmfu_ranges_add(&T.recs, &r);
}

static void start(void)
{
	opmfu_trace_init(&T);
	T.shape_unknown = S("N/A"); /* as the Ascend reader marks unknown shapes */
	T.ref_classes = 1;           /* and as it keeps the reference's dtype classes */
	opmfu_flops_init(&FL);
	opmfu_op_mfu_init(&OP);
	opmfu_module_mfu_init(&RES);
}

static void finish(void)
{
	opmfu_module_mfu_release(&RES);
	opmfu_op_mfu_release(&OP);
	opmfu_flops_release(&FL);
	opmfu_trace_release(&T);
}

static void run(void)
{
	struct opmfu_rank_peaks pk = { .flops = { [OPMFU_PREC_FP16] = 1e12, [OPMFU_PREC_INT8] = 2e12 } };
	struct opmfu_err e = OPMFU_ERR_INIT;
	CHECK_INT(opmfu_flops_run(&FL, &T, NULL, 0, &e), OPMFU_OK);
	CHECK_INT(opmfu_op_mfu_run(&T, &FL, &pk, &OP, &e), OPMFU_OK);
	CHECK_INT(opmfu_module_mfu_run(&T, &OP, &RES, &e), OPMFU_OK);
}

struct want {
	const char *parent, *module, *op, *klist;
	double total, avg;
	size_t count;
	const char *avg_mfu;
};

static void check_rows(const char *name, const struct want *w, size_t n)
{
	size_t i;
	int before = check_failures;
	CHECK_INT(RES.n_rows, n);
	for (i = 0; i < n && i < RES.n_rows; i++) {
		const struct opmfu_module_row *r = &RES.rows[i];
		int b = check_failures;
		CHECK_STR(r->parent, w[i].parent);
		CHECK_STR(r->module, w[i].module);
		CHECK_STR(r->op_name, w[i].op);
		CHECK_STR(r->kernel_list, w[i].klist);
		CHECK_DBL(r->total_ns, w[i].total);
		CHECK_DBL(r->avg_ns, w[i].avg);
		CHECK_INT(r->op_count, w[i].count);
		CHECK_STR(r->avg_mfu, w[i].avg_mfu);
		if (check_failures != b)
			fprintf(stderr, "  ^ %s: row %zu\n", name, i);
	}
	if (check_failures != before)
		fprintf(stderr, "  ^ in test %s\n", name);
}

/*
 * Model [0,1000] > Layer [100,900] > Attn [200,800], added out of order.
 * op_f [850,950] starts inside Layer but ends after it: it belongs to Model.
 * op_e is after every module and op_g starts before Model: no rows.
 * Rows by (module start, op start): Model: a@50, f@850, d@950 (op_order
 * 0, 1, 2); Layer: b@150; Attn: c@300. Output by (first start, op_order):
 * a, b, c, f, d. No records: avg_mfu is empty everywhere.
 */
static void t_nesting(void)
{
	static const struct want w[] = {
		{ "", "Model", "op_a", "Ka", 100, 100, 1, "" },
		{ "Model", "Layer", "op_b", "Kb", 200, 200, 1, "" },
		{ "Model/Layer", "Attn", "op_c", "Kc", 300, 300, 1, "" },
		{ "", "Model", "op_f", "Kf", 600, 600, 1, "" },
		{ "", "Model", "op_d", "Kd", 400, 400, 1, "" },
	};
	start();
	mod("Attn", 200, 800);
	mod("Model", 0, 1000);
	mod("Layer", 100, 900);
	k("op_g", -10, 20, "Kg", 4000, 4700);
	k("op_a", 50, 60, "Ka", 5000, 5100);
	k("op_b", 150, 160, "Kb", 5200, 5400);
	k("op_c", 300, 310, "Kc", 5500, 5800);
	k("op_d", 950, 960, "Kd", 6000, 6400);
	k("op_e", 2000, 2010, "Ke", 7000, 7500);
	k("op_f", 850, 950, "Kf", 8000, 8600);
	run();
	check_rows("nesting", w, sizeof(w) / sizeof(w[0]));
	/* totals: Model 100 + 600 + 400, Attn 300, Layer 200; no MFU anywhere */
	CHECK_INT(RES.n_totals, 3);
	if (RES.n_totals == 3) {
		CHECK_STR(RES.totals[0].parent, "");
		CHECK_STR(RES.totals[0].module, "Model");
		CHECK_DBL(RES.totals[0].kernel_ns, 1100);
		CHECK_DBL(RES.totals[0].mfu, -1);
		CHECK_STR(RES.totals[1].parent, "Model/Layer");
		CHECK_STR(RES.totals[1].module, "Attn");
		CHECK_STR(RES.totals[2].module, "Layer");
	}
	CHECK_INT(RES.ops_too_deep, 0);
	finish();
}

/*
 * The tree under t_nesting's rows (module_tree.h). Op nodes in order of
 * first appearance (R is in op start order): g a b c f d e = 0..6. Modules
 * as added: Attn 0, Model 1, Layer 2, so Attn's parent is Layer (depth 3)
 * and Layer's Model (2). Rows (node, module) in (module start, op start)
 * order: a f d in Model, b in Layer, c in Attn; g and e are outside. The
 * result over a tree built apart is the one of opmfu_module_mfu_run.
 */
static void t_tree(void)
{
	static const uint32_t want_node[] = { 1, 4, 5, 2, 3 }, want_mod[] = { 1, 1, 1, 2, 0 };
	struct opmfu_module_tree mt;
	struct opmfu_module_mfu res2;
	struct opmfu_err e = OPMFU_ERR_INIT;
	struct opmfu_arena ar;
	struct opmfu_intern strs;
	struct opmfu_module_paths paths;
	struct sbuf sb;
	size_t i;

	start();
	mod("Attn", 200, 800);
	mod("Model", 0, 1000);
	mod("Layer", 100, 900);
	k("op_g", -10, 20, "Kg", 4000, 4700);
	k("op_a", 50, 60, "Ka", 5000, 5100);
	k("op_b", 150, 160, "Kb", 5200, 5400);
	k("op_c", 300, 310, "Kc", 5500, 5800);
	k("op_d", 950, 960, "Kd", 6000, 6400);
	k("op_e", 2000, 2010, "Ke", 7000, 7500);
	k("op_f", 850, 950, "Kf", 8000, 8600);
	run();
	opmfu_module_tree_init(&mt);
	CHECK_INT(opmfu_module_tree_build(&mt, &T, &OP), 0);
	CHECK_INT(mt.n_k, 7);
	CHECK_INT(mt.n_nodes, 7);
	CHECK_INT(mt.mod_parent[0], 2);
	CHECK_INT(mt.mod_parent[1], OPMFU_MODULE_NONE);
	CHECK_INT(mt.mod_parent[2], 1);
	CHECK_INT(mt.mod_depth[0], 3);
	CHECK_INT(mt.mod_depth[1], 1);
	CHECK_INT(mt.mod_depth[2], 2);
	CHECK_INT(mt.n_rows, 5);
	for (i = 0; i < 5 && i < mt.n_rows; i++) {
		CHECK_INT(mt.row_node[i], want_node[i]);
		CHECK_INT(mt.row_mod[i], want_mod[i]);
	}
	CHECK_INT(mt.ops_too_deep, 0);
	CHECK_INT(T.links[mt.node_link[4]].op_start, 850);

	memset(&ar, 0, sizeof(ar));
	opmfu_intern_init(&strs, &ar);
	sbuf_init(&sb);
	CHECK_INT(opmfu_module_paths_init(&paths, &mt, &T, &strs, &sb), 0);
	CHECK_STR(opmfu_intern_str(&strs, opmfu_module_path(&paths, 0)), "Model/Layer/Attn");
	CHECK_STR(opmfu_intern_str(&strs, opmfu_module_parent_path(&paths, 0)), "Model/Layer");
	CHECK_STR(opmfu_intern_str(&strs, opmfu_module_parent_path(&paths, 1)), "");
	CHECK_STR(opmfu_intern_str(&strs, opmfu_module_path(&paths, 1)), "Model");
	opmfu_module_paths_release(&paths);
	opmfu_intern_release(&strs);
	opmfu_arena_release(&ar);
	sbuf_release(&sb);

	opmfu_module_mfu_init(&res2);
	CHECK_INT(opmfu_module_mfu_run_tree(&T, &OP, &mt, &res2, &e), OPMFU_OK);
	CHECK_INT(res2.n_rows, RES.n_rows);
	CHECK_INT(res2.n_totals, RES.n_totals);
	for (i = 0; i < res2.n_rows && i < RES.n_rows; i++) {
		CHECK_STR(res2.rows[i].parent, RES.rows[i].parent);
		CHECK_STR(res2.rows[i].module, RES.rows[i].module);
		CHECK_STR(res2.rows[i].op_name, RES.rows[i].op_name);
		CHECK_DBL(res2.rows[i].total_ns, RES.rows[i].total_ns);
	}
	opmfu_module_mfu_release(&res2);
	opmfu_module_tree_release(&mt);
	finish();
}

/*
 * Ties. M [0,100] and N [0,50] start together: M (longer) is outside. op_y
 * has M's span and op_x N's: on a full tie modules come first, so op_x is
 * in N and op_y in M. op_q [10,30] and op_p [10,20] tie on start: longer
 * first. Outer2 and Inner2 have the same span: read order nests Inner2 in
 * Outer2. Rows sorted by (module start, op start) keep depth-first order on
 * ties: y, x (both 0, 0), q, p. Groups y and x tie on (first start 0,
 * op_order 0): parent "" sorts before "M".
 */
static void t_ties(void)
{
	static const struct want w[] = {
		{ "", "M", "op_y", "Ky", 10, 10, 1, "" },
		{ "M", "N", "op_x", "Kx", 20, 20, 1, "" },
		{ "M", "N", "op_q", "Kq", 30, 30, 1, "" },
		{ "M", "N", "op_p", "Kp", 40, 40, 1, "" },
		{ "Outer2", "Inner2", "op_z", "Kz", 50, 50, 1, "" },
	};
	start();
	mod("N", 0, 50);
	mod("M", 0, 100);
	mod("Outer2", 500, 600);
	mod("Inner2", 500, 600);
	k("op_p", 10, 20, "Kp", 1000, 1040);
	k("op_x", 0, 50, "Kx", 1100, 1120);
	k("op_q", 10, 30, "Kq", 1200, 1230);
	k("op_y", 0, 100, "Ky", 1300, 1310);
	k("op_z", 510, 520, "Kz", 1400, 1450);
	run();
	check_rows("ties", w, sizeof(w) / sizeof(w[0]));
	finish();
}

/*
 * Equal module names under different parents stay apart: A/Linear ("mm",
 * seq_id 0) and B/Linear ("mv", seq_id 1) are adjacent but in separate runs,
 * so neither gets a suffix.
 * seq_id counts sequences over all modules: P's "o2" is 2, then m's first
 * call "o1" is 3 and its second call "o2" is 2 again; the run of m holds
 * seq_ids {3, 2}, ranked 2 -> _0, 3 -> _1: the first call is m_1.
 */
static void t_names(void)
{
	static const struct want w[] = {
		{ "A", "Linear", "mm", "K1", 50, 50, 1, "" },
		{ "B", "Linear", "mv", "K1", 70, 70, 1, "" },
		{ "", "P", "o2", "K2", 10, 10, 1, "" },
		{ "", "m_1", "o1", "K3", 20, 20, 1, "" },
		{ "", "m_0", "o2", "K2", 30, 30, 1, "" },
	};
	start();
	mod("A", 0, 100);
	mod("Linear", 10, 20);
	mod("B", 200, 300);
	mod("Linear", 210, 220);
	mod("P", 1000, 1100);
	mod("m", 1200, 1300);
	mod("m", 1300, 1400);
	k("mm", 12, 14, "K1", 5000, 5050);
	k("mv", 212, 214, "K1", 5100, 5170);
	k("o2", 1010, 1020, "K2", 6000, 6010);
	k("o1", 1210, 1220, "K3", 6100, 6120);
	k("o2", 1310, 1320, "K2", 6200, 6230);
	run();
	check_rows("names", w, sizeof(w) / sizeof(w[0]));
	finish();
}

/*
 * SPEC 3.6's example: m called with op1/op2 (seq 0) then op1/op3 (seq 1),
 * adjacent: m_0, m_0, m_1, m_1.
 */
static void t_two_sequences(void)
{
	static const struct want w[] = {
		{ "", "m_0", "op1", "K1", 100, 100, 1, "" },
		{ "", "m_0", "op2", "K2", 100, 100, 1, "" },
		{ "", "m_1", "op1", "K1", 100, 100, 1, "" },
		{ "", "m_1", "op3", "K3", 100, 100, 1, "" },
	};
	start();
	mod("m", 0, 100);
	mod("m", 200, 300);
	k("op1", 10, 20, "K1", 1000, 1100);
	k("op2", 30, 40, "K2", 1100, 1200);
	k("op1", 210, 220, "K1", 1200, 1300);
	k("op3", 230, 240, "K3", 1300, 1400);
	run();
	check_rows("two sequences", w, sizeof(w) / sizeof(w[0]));
	finish();
}

/*
 * Two identical calls of m (op1/op2, seq 0) merge: op_count 2, totals
 * 100 + 300 and 200 + 400, averages half of that, first starts 10 and 30.
 * Then k (seq 1), then m with op1/op3 (seq 2): not adjacent to the first m
 * groups, so each run has one seq_id and nobody gets a suffix; op1 of the
 * third call is its own group (another seq_id).
 */
static void t_merge(void)
{
	static const struct want w[] = {
		{ "", "m", "op1", "K1", 400, 200, 2, "" },
		{ "", "m", "op2", "K2", 600, 300, 2, "" },
		{ "", "k", "ko", "Kk", 50, 50, 1, "" },
		{ "", "m", "op1", "K1", 60, 60, 1, "" },
		{ "", "m", "op3", "K3", 70, 70, 1, "" },
	};
	start();
	mod("m", 0, 100);
	mod("m", 200, 300);
	mod("k", 300, 350);
	mod("m", 400, 500);
	k("op1", 10, 20, "K1", 1000, 1100);
	k("op2", 30, 40, "K2", 1100, 1300);
	k("op1", 210, 220, "K1", 1300, 1600);
	k("op2", 230, 240, "K2", 1600, 2000);
	k("ko", 310, 320, "Kk", 2000, 2050);
	k("op1", 410, 420, "K1", 2100, 2160);
	k("op3", 430, 440, "K3", 2200, 2270);
	run();
	check_rows("merge", w, sizeof(w) / sizeof(w[0]));
	finish();
}

/*
 * avg_mfu. Blk is called three times with op "mm" launching KN (N/A shapes:
 * never an MFU), K1 (1000 ns), K2 (2000 ns), K3 (0 ns: never an MFU).
 * Call 1's record has 500000 FLOPs: K1 0.5, K2 0.25 (each kernel is charged
 * all of them); call 2's 402400: K1 0.4024, K2 0.2012; call 3 has none.
 * Position 1: mean of the values > 0 (0.5, 0.4024) = 0.4512 -> 45.12%;
 * position 2: (0.25 + 0.2012) / 2 = 0.2256 -> 22.56%; positions 0 and 3
 * have no value > 0 and are left out. Each call: 500 + 1000 + 2000 + 0 ns.
 * Solo's kernel gets 0.5 -> "50.0%". Dbl's kernel falls in two records
 * (0.1 from the one starting first, then 0.5): two kernel rows.
 */
static void t_avg_mfu(void)
{
	static const struct want w[] = {
		{ "", "Blk", "mm", "KN, K1, K2, K3", 10500, 3500, 3, "45.12%,22.56%" },
		{ "", "Solo", "mm2", "K5", 1000, 1000, 1, "50.0%" },
		{ "", "Dbl", "mm3", "K6, K6", 2000, 2000, 1, "10.0%,50.0%" },
	};
	int64_t c;
	start();
	for (c = 0; c < 3; c++) {
		int64_t o = c * 200, kt = 10000 + c * 10000;
		mod("Blk", o, o + 100);
		lnk(0, "mm", o + 10, o + 20, "KN", kt, kt + 500, "N/A");
		k("mm", o + 10, o + 20, "K1", kt + 500, kt + 1500);
		k("mm", o + 10, o + 20, "K2", kt + 1500, kt + 3500);
		k("mm", o + 10, o + 20, "K3", kt + 3500, kt + 3500);
	}
	rec(5, 25, 500000);
	rec(205, 225, 402400);
	mod("Solo", 5000, 6000);
	k("mm2", 5010, 5020, "K5", 50000, 51000);
	rec(5005, 5025, 500000);
	mod("Dbl", 7000, 8000);
	k("mm3", 7010, 7020, "K6", 60000, 61000);
	rec(7005, 7025, 500000);
	rec(7000, 7030, 100000);
	run();
	check_rows("avg_mfu", w, sizeof(w) / sizeof(w[0]));
	/* Blk's MFU weighted by kernel time: (0.5*1000 + 0.25*2000 + 0.4024*1000
	 * + 0.2012*2000) / 6000 = 0.3008 */
	CHECK_INT(RES.n_totals, 3);
	if (RES.n_totals == 3) {
		CHECK_STR(RES.totals[0].module, "Blk");
		CHECK(fabs(RES.totals[0].mfu - 0.3008) < 1e-12);
		CHECK_DBL(RES.totals[1].kernel_ns, 2000); /* Dbl before Solo */
		CHECK(fabs(RES.totals[1].mfu - 0.3) < 1e-12);
	}
	if (RES.n_rows == 3) {
		CHECK(fabs(RES.rows[0].mfu_x_ns - 1804.8) < 1e-9);
		CHECK_DBL(RES.rows[0].mfu_ns, 6000);
	}
	finish();
}

/*
 * Communication kernels. allreduce_op has a compute kernel Kc and an AICPU
 * task (SCHEDULE source): one op node, kernels in row order (compute rows
 * first). The two COMMUNICATION_OP rows were read in the wrong order and
 * are sorted by op start. A comm kernel has no MFU.
 */
static void t_comm(void)
{
	static const struct want w[] = {
		{ "", "Comm", "allreduce_op", "Kc, AicpuTask", 200, 200, 1, "" },
		{ "", "Comm", "HcclBroadcast", "hcom_broadcast_", 100, 100, 1, "" },
		{ "", "Comm", "HcclAllReduce", "hcom_allReduce_", 500, 500, 1, "" },
	};
	start();
	mod("Comm", 0, 1000);
	k("allreduce_op", 100, 200, "Kc", 1000, 1100);
	lnk(1, "HcclAllReduce", 300, 400, "hcom_allReduce_", 2000, 2500, NULL);
	lnk(1, "HcclBroadcast", 250, 260, "hcom_broadcast_", 1500, 1600, NULL);
	lnk(2, "allreduce_op", 100, 200, "AicpuTask", 1200, 1300, NULL);
	lnk(1, "HcclOutside", 3000, 3100, "hcom_x_", 5000, 5100, NULL);
	run();
	check_rows("comm", w, sizeof(w) / sizeof(w[0]));
	finish();
}

/*
 * Ops sharing one start. op_0..op_11 start at 100 and end at 300 - j;
 * op_z spans op_0's range under another name. Each op_j has kernel Aj, then
 * after all of them Bj, so R meets every op twice, 13 ops apart: more than
 * are searched in place (the lookup switches to the hash table), and op_z
 * must not be taken for op_0. A COMMUNICATION_OP kernel of op_3 joins its
 * node; commX exists only in the communication sources (a COMMUNICATION_OP
 * and a SCHEDULE kernel: one node); solo, alone at its start, gets a comm
 * kernel too. Items by (start, end desc, first appearance): op_0, op_z
 * (same span, later), op_1 .. op_11, commX (end 250), solo. No records.
 */
static void t_shared_start(void)
{
	static const char *const names[] = { "op_0", "op_1", "op_2", "op_3", "op_4",  "op_5",
					     "op_6", "op_7", "op_8", "op_9", "op_10", "op_11" };
	static const char *const ka[] = { "A0", "A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "A9", "A10", "A11" };
	static const char *const kb[] = { "B0", "B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "B10", "B11" };
	static const struct want w[] = {
		{ "", "M", "op_0", "A0, B0", 30, 30, 1, "" },
		{ "", "M", "op_z", "Z", 10, 10, 1, "" },
		{ "", "M", "op_1", "A1, B1", 30, 30, 1, "" },
		{ "", "M", "op_2", "A2, B2", 30, 30, 1, "" },
		{ "", "M", "op_3", "A3, B3, hcom3", 35, 35, 1, "" },
		{ "", "M", "op_4", "A4, B4", 30, 30, 1, "" },
		{ "", "M", "op_5", "A5, B5", 30, 30, 1, "" },
		{ "", "M", "op_6", "A6, B6", 30, 30, 1, "" },
		{ "", "M", "op_7", "A7, B7", 30, 30, 1, "" },
		{ "", "M", "op_8", "A8, B8", 30, 30, 1, "" },
		{ "", "M", "op_9", "A9, B9", 30, 30, 1, "" },
		{ "", "M", "op_10", "A10, B10", 30, 30, 1, "" },
		{ "", "M", "op_11", "A11, B11", 30, 30, 1, "" },
		{ "", "M", "commX", "hcom_new, aicpu_new", 10, 10, 1, "" },
		{ "", "M", "solo", "S, hcom_solo", 41, 41, 1, "" },
	};
	int j;
	start();
	mod("M", 0, 1000);
	for (j = 0; j < 12; j++)
		k(names[j], 100, 300 - j, ka[j], 1000 + j * 10, 1000 + j * 10 + 10);
	k("op_z", 100, 300, "Z", 1500, 1510);
	for (j = 0; j < 12; j++)
		k(names[j], 100, 300 - j, kb[j], 2000 + j * 30, 2000 + j * 30 + 20);
	k("solo", 500, 600, "S", 2500, 2540);
	lnk(1, "op_3", 100, 297, "hcom3", 3000, 3005, NULL);
	lnk(1, "commX", 100, 250, "hcom_new", 3100, 3107, NULL);
	lnk(1, "solo", 500, 600, "hcom_solo", 3200, 3201, NULL);
	lnk(2, "commX", 100, 250, "aicpu_new", 3300, 3303, NULL);
	run();
	check_rows("shared_start", w, sizeof(w) / sizeof(w[0]));
	finish();
}

/*
 * 22 nested modules L1..L22. Modules deeper than 20 levels and their ops
 * yield no rows (counted), as in the reference: only in20 is left, with
 * parent L1/L2/.../L19.
 */
static void t_depth(void)
{
	char name[16], parent[128] = "";
	int i;
	start();
	for (i = 1; i <= 22; i++) {
		snprintf(name, sizeof(name), "L%d", i);
		mod(name, i * 10, 10000 - i * 10);
		if (i < 20) {
			if (i > 1)
				strcat(parent, "/");
			strcat(parent, name);
		}
	}
	k("in20", 202, 204, "K20", 1000, 1010);
	k("in21", 212, 214, "K21", 1100, 1110);
	k("in22", 222, 224, "K22", 1200, 1210);
	run();
	{
		const struct want w[] = { { parent, "L20", "in20", "K20", 10, 10, 1, "" } };
		check_rows("depth", w, 1);
	}
	CHECK_STR(parent, "L1/L2/L3/L4/L5/L6/L7/L8/L9/L10/L11/L12/L13/L14/L15/L16/L17/L18/L19");
	CHECK_INT(RES.ops_too_deep, 2);
	finish();
}

/* No Module ranges, or ops all outside them: no rows, no error. */
static void t_empty(void)
{
	start();
	k("op", 10, 20, "K", 100, 200);
	run();
	CHECK_INT(RES.n_rows, 0);
	CHECK_INT(RES.n_totals, 0);
	finish();

	start();
	k("op", 10, 20, "K", 100, 200);
	mod("Late", 1000, 2000);
	run();
	CHECK_INT(RES.n_rows, 0);
	finish();
}

/* numpy's mean: expected values computed by numpy 1.24 for
 * a[i] = ((i * 7919) % 10000 + 1) / 10000; a left-to-right sum gives
 * different bits for n = 9, 20, 200 and 20000 (buffers of 8192). */
static void t_np_mean(void)
{
	static const struct {
		size_t n;
		double want, naive;
	} v[] = {
		{ 3, 0x1.d5acb6f46508dp-2, 0x1.d5acb6f46508dp-2 },
		{ 9, 0x1.008770e9bebccp-1, 0x1.008770e9bebcbp-1 },
		{ 20, 0x1.e4816f0068dbbp-2, 0x1.e4816f0068dbdp-2 },
		{ 200, 0x1.ff212d77318fcp-2, 0x1.ff212d77318ffp-2 },
		{ 9000, 0x1.000518e5030cap-1, 0x1.000518e5030cap-1 },
		{ 20000, 0x1.00068db8bac72p-1, 0x1.00068db8bac71p-1 },
	};
	static double a[20000];
	size_t i, j;
	for (i = 0; i < 20000; i++)
		a[i] = (double)((i * 7919) % 10000 + 1) / 10000.0;
	for (j = 0; j < sizeof(v) / sizeof(v[0]); j++) {
		double s = 0;
		for (i = 0; i < v[j].n; i++)
			s += a[i];
		CHECK_DBL(s / (double)v[j].n, v[j].naive); /* the vectors do tell the sums apart */
		CHECK_DBL(opmfu_np_mean(a, v[j].n), v[j].want);
	}
}

/* Every allocation of a run failing in turn: OPMFU_ERR_NOMEM and an empty
 * result each time, until the run needs no more (the sanitizer build
 * checks that nothing leaks). */
static void t_nomem(void)
{
	struct opmfu_rank_peaks pk = { .flops = { [OPMFU_PREC_FP16] = 1e12, [OPMFU_PREC_INT8] = 2e12 } };
	struct opmfu_err e = OPMFU_ERR_INIT;
	long n;
	int failed = 0;
	start();
	mod("Blk", 0, 100);
	mod("Inner", 5, 50);
	mod("Blk", 200, 300);
	k("mm", 10, 20, "K1", 1000, 2000);
	k("mm", 60, 70, "K2", 2000, 3000);
	k("mm", 210, 220, "K1", 3000, 4000);
	k("add", 230, 240, "K3", 4000, 4500);
	rec(5, 25, 500000);
	CHECK_INT(opmfu_flops_run(&FL, &T, NULL, 0, &e), OPMFU_OK);
	CHECK_INT(opmfu_op_mfu_run(&T, &FL, &pk, &OP, &e), OPMFU_OK);
	for (n = 1; n < 1000; n++) {
		enum opmfu_status st;
		opmfu_module_mfu_init(&RES);
		opmfu_mem_fail_after(n);
		st = opmfu_module_mfu_run(&T, &OP, &RES, &e);
		opmfu_mem_fail_after(0);
		if (st == OPMFU_OK)
			break;
		failed++;
		CHECK_INT(st, OPMFU_ERR_NOMEM);
		CHECK_INT(RES.n_rows, 0);
		CHECK(RES.rows == NULL && RES.pool == NULL && RES.totals == NULL);
	}
	CHECK(failed > 10);
	CHECK_INT(RES.n_rows, 4); /* Inner: mm; Blk_0: mm; Blk_1: mm, add */
	finish();
}

/* Many calls and a 30000-deep chain: must stay near linear (a quadratic
 * step would take minutes here). */
static void t_large(void)
{
	size_t i, j;
	start();
	mod("Model", 0, 1000000000);
	for (i = 0; i < 20000; i++) {
		int64_t o = 1000 + (int64_t)i * 1000;
		mod("Layer", o, o + 900);
		for (j = 0; j < 8; j++) {
			int64_t s = o + 10 + (int64_t)j * 100;
			k(j % 2 ? "aten::add" : "aten::mm", s, s + 50, "MatMulV3", s * 10, s * 10 + 300);
			k(j % 2 ? "aten::add" : "aten::mm", s, s + 50, "Cast", s * 10 + 300, s * 10 + 400);
		}
		if (i % 3 == 0)
			rec(o, o + 900, 1000000);
	}
	for (i = 0; i < 30000; i++)
		mod("Deep", 2000000000 + (int64_t)i, 3000000000 - (int64_t)i);
	for (i = 0; i < 30000; i++)
		k("leaf", 2000000000 + (int64_t)i * 2 + 30000, 2000000000 + (int64_t)i * 2 + 30001, "K",
		  (int64_t)4000000000 + (int64_t)i * 10, (int64_t)4000000000 + (int64_t)i * 10 + 5);
	/* 60000 ops starting together, each met twice (kernels A then B) and
	 * once more through a communication kernel: searching the ops of one
	 * start one by one would be quadratic */
	mod("Wide", 5000000000, 6000000000);
	for (j = 0; j < 2; j++)
		for (i = 0; i < 60000; i++)
			k("wide", 5000000001, 5100000000 - (int64_t)i, j ? "B" : "A",
			  (int64_t)7000000000 + (int64_t)(j * 60000 + i) * 10,
			  (int64_t)7000000000 + (int64_t)(j * 60000 + i) * 10 + 5);
	for (i = 0; i < 60000; i++)
		lnk(1, "wide", 5000000001, 5100000000 - (int64_t)i, "hcom", (int64_t)9000000000 + (int64_t)i * 10,
		    (int64_t)9000000000 + (int64_t)i * 10 + 1, NULL);
	run();
	/* one call pattern: 8 groups of 20000 ops each under Model/Layer; the
	 * chain's first 19 levels hold no op (leaves start at 2000030000);
	 * Wide: one call of 60000 ops, each its own op_order, ends descending */
	CHECK_INT(RES.n_rows, 8 + 60000);
	if (RES.n_rows == 8 + 60000) {
		CHECK_STR(RES.rows[8].module, "Wide");
		CHECK_STR(RES.rows[8].kernel_list, "A, B, hcom");
		CHECK_DBL(RES.rows[8].total_ns, 11);
		CHECK_STR(RES.rows[8 + 59999].kernel_list, "A, B, hcom");
		CHECK_INT(RES.rows[8 + 59999].op_count, 1);
		CHECK_INT(RES.rows[0].op_count, 20000);
		CHECK_STR(RES.rows[0].parent, "Model");
		CHECK_STR(RES.rows[0].module, "Layer");
		CHECK_STR(RES.rows[0].kernel_list, "MatMulV3, Cast");
		CHECK_DBL(RES.rows[0].total_ns, 20000.0 * 400);
	}
	CHECK_INT(RES.ops_too_deep, 30000);
	finish();
}

/*
 * Kernel lists are taken from a table of 256 by their names' sids: 302
 * different lists (300 of their own, "X, Y" and the same names the other
 * way round) over 900 ops must share slots, and each row must still get
 * its own list. One call of Module M, op i at 1000 + 1000 i; rows in op order.
 */
static void t_klist_memo(void)
{
	char op[32], a[32], b[32];
	size_t i;
	start();
	mod("M", 0, 100000000);
	for (i = 0; i < 900; i++) {
		int64_t s = 1000 + (int64_t)i * 1000;
		snprintf(op, sizeof(op), "op%zu", i);
		snprintf(a, sizeof(a), i % 3 == 0 ? "ka%zu" : i % 3 == 1 ? "X" : "Y", i);
		snprintf(b, sizeof(b), i % 3 == 0 ? "kb%zu" : i % 3 == 1 ? "Y" : "X", i);
		k(op, s, s + 500, a, s * 10, s * 10 + 100);
		k(op, s, s + 500, b, s * 10 + 100, s * 10 + 200);
	}
	run();
	CHECK_INT(RES.n_rows, 900);
	for (i = 0; i < 900 && i < RES.n_rows; i++) {
		char want[64];
		snprintf(op, sizeof(op), "op%zu", i);
		if (i % 3 == 0)
			snprintf(want, sizeof(want), "ka%zu, kb%zu", i, i);
		else
			snprintf(want, sizeof(want), i % 3 == 1 ? "X, Y" : "Y, X");
		CHECK_STR(RES.rows[i].op_name, op);
		CHECK_STR(RES.rows[i].kernel_list, want);
	}
	finish();
}

/* opmfu_nest_order reads the caller's spans where they are (through via)
 * and orders all items by (start ascending, end descending, item). */
static void t_nest_order(void)
{
	struct rec {
		int64_t pad, s, e;
	} recs[] = { { 0, 10, 60 }, { 0, 5, 7 }, { 0, 10, 50 } };
	struct opmfu_range mods[] = { { 0, 100, 0, 0, 0 }, { 10, 50, 0, 0, 0 }, { 10, 60, 0, 0, 0 } };
	const uint32_t via[] = { 2, 0, 1 };
	const struct opmfu_nest ns = { mods, 3, recs, sizeof(recs[0]), offsetof(struct rec, s), offsetof(struct rec, e),
				       via };
	/* items: modules 0 (0,100), 1 (10,50), 2 (10,60); spans 3 = recs[2] (10,50), 4 = recs[0]
	 * (10,60), 5 = recs[1] (5,7). By start: 0; then 5 (start 5); at start 10 the longer first
	 * (end 60: module 2 before span 4, the lower item), then end 50 (module 1, span 3) */
	static const uint32_t want[] = { 0, 5, 2, 4, 1, 3 };
	uint32_t ord[6];
	int64_t s, e;
	size_t i;

	CHECK_INT(opmfu_nest_order(&ns, ord, 6), 0);
	for (i = 0; i < 6; i++)
		CHECK_INT(ord[i], want[i]);
	opmfu_nest_span(&ns, 4, &s, &e);
	CHECK_INT(s, 10);
	CHECK_INT(e, 60);
}

int main(void)
{
	t_nest_order();
	t_nesting();
	t_tree();
	t_ties();
	t_names();
	t_two_sequences();
	t_merge();
	t_avg_mfu();
	t_comm();
	t_shared_start();
	t_depth();
	t_empty();
	t_np_mean();
	t_nomem();
	t_large();
	t_klist_memo();
	return check_done();
}
