/*
 * t_groups.c - hotspots grouped the way people fix things (SPEC 18): the
 * module class rule, and the registered analyses "module_classes"
 * (OpmfuModuleClasses) and "shapes" (OpmfuShapes) run as the pool runs them
 * on a hand-built trace, their cells read back by column name; then the run
 * account's module_class and shape hotspots from those tables.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze/account.h"
#include "analyze/hotspots.h"
#include "analyze/module_classes.h"
#include "analyze/modules.h"
#include "analyze/ops.h"
#include "analyze/shapes.h"
#include "analyze/steps.h"
#include "base/mem.h"
#include "cell_text.h"
#include "check.h"

static struct opmfu_trace T;
static struct opmfu_flops FL;

static uint32_t S(const char *s)
{
	return opmfu_strtab_intern(&T.strs, s, strlen(s));
}

static size_t class_len(const char *s)
{
	return opmfu_module_class_len(s, strlen(s));
}

/* The rule: a trailing "_" and digits go when something comes before them. */
static void t_class_rule(void)
{
	CHECK_INT(class_len("Qwen2Attention_13"), 14);    /* Qwen2Attention */
	CHECK_INT(class_len("Qwen2RMSNorm_27"), 12);      /* Qwen2RMSNorm */
	CHECK_INT(class_len("Qwen2Model_0"), 10);         /* one digit */
	CHECK_INT(class_len("Qwen2Model"), 10);           /* digits inside the name stay */
	CHECK_INT(class_len("fc2"), 3);                   /* digits without "_": part of the name */
	CHECK_INT(class_len("Linear"), 6);
	CHECK_INT(class_len("layer_1a"), 8);              /* not only digits after the "_" */
	CHECK_INT(class_len("layer_"), 6);                /* no digits */
	CHECK_INT(class_len("_3"), 2);                    /* nothing before the "_" */
	CHECK_INT(class_len("3"), 1);
	CHECK_INT(class_len(""), 0);
	CHECK_INT(class_len("Block_1_2"), 7);             /* only the last suffix: Block_1 */
	/* Ascend Module names (torch_npu's Module ranges): the same rule */
	CHECK_INT(class_len("Qwen2DecoderLayer_0"), 17);
	CHECK_INT(class_len("ParallelTransformerLayer"), 24);
	CHECK_INT(class_len("model.layers.0"), 14);       /* a dotted path name is not an instance suffix */
}

static void link(uint32_t op, const char *name, int64_t os, int64_t oe, const char *k, int64_t ks, int64_t ke,
		 const char *shapes, uint32_t dtype)
{
	struct opmfu_link l = { ks, ke, os, oe, S(k), S(name), S(shapes), dtype, 0, op };
	OPMFU_GROW(T.links, T.cap_links, T.n_links + 1);
	T.links[T.n_links] = l;
	T.n_compute++;
	if (op >= T.n_ops)
		T.n_ops = op + 1;
	T.n_links++;
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
 * Peak fp16 1e12 FLOPS (1000 FLOPs a ns); no bandwidth. One step 0..10000.
 *  op0 aten::mm@100..200   MatMul 1000..1400 [4,8;8,16] FLOAT16, 2e5 FLOPs
 *  op1 aten::mm@300..400   MatMul 1500..1900 [4,8;8,16] FLOAT16, 2e5 FLOPs
 *  op2 aten::mm@500..600   MatMul 2000..2100 [2,8;8,16] FLOAT16, 5e4 FLOPs
 *  op3 aten::add@700..800  Add    2200..2500 [4,16;4,16] FLOAT16
 *  op4 aten::add@900..950  Add    2600..2700 [4,16;4,16] FLOAT
 * Modules: Model_0 0..1000 { Layer_0 50..450 { Attention_0 90..250 },
 *                            Layer_1 450..1000 { Attention_1 480..650, fc2 680..820 } }
 */
static void build(void)
{
	struct opmfu_dtype h = { S("FLOAT16;FLOAT16"), OPMFU_DT_FP16, (int8_t)OPMFU_PREC_FP16, "" };
	struct opmfu_dtype f = { S("FLOAT;FLOAT"), OPMFU_DT_FP16, (int8_t)OPMFU_PREC_FP32, "" };
	uint32_t f16 = 0, f32 = 0;

	CHECK_INT(opmfu_trace_add_dtype(&T, &h, &f16), 0);
	CHECK_INT(opmfu_trace_add_dtype(&T, &f, &f32), 0);
	link(0, "aten::mm", 100, 200, "MatMul", 1000, 1400, "4,8;8,16", f16);
	link(1, "aten::mm", 300, 400, "MatMul", 1500, 1900, "4,8;8,16", f16);
	link(2, "aten::mm", 500, 600, "MatMul", 2000, 2100, "2,8;8,16", f16);
	link(3, "aten::add", 700, 800, "Add", 2200, 2500, "4,16;4,16", f16);
	link(4, "aten::add", 900, 950, "Add", 2600, 2700, "4,16;4,16", f32);
	shape_fact(200000, 0);
	shape_fact(200000, 1);
	shape_fact(50000, 2);
	range(&T.steps, 0, 10000, 1, "ProfilerStep#1");
	range(&T.mods, 0, 1000, 0, "Model_0");
	range(&T.mods, 50, 450, 0, "Layer_0");
	range(&T.mods, 90, 250, 0, "Attention_0");
	range(&T.mods, 450, 1000, 0, "Layer_1");
	range(&T.mods, 480, 650, 0, "Attention_1");
	range(&T.mods, 680, 820, 0, "fc2");
}

static double num(const struct opmfu_table *t, const struct opmfu_cell *c, const char *col)
{
	int k = opmfu_table_col(t->def, col);
	CHECK(k >= 0);
	return k < 0 ? NAN : opmfu_cell_num(t->def, c, k);
}

static const char *str(const struct opmfu_table *t, const struct opmfu_cell *c, const char *col)
{
	int k = opmfu_table_col(t->def, col);
	CHECK(k >= 0);
	return k < 0 ? "?" : cell_text(&c[k]);
}

#define NUM(t, c, col, x) CHECK(fabs(num(t, c, col) - (x)) < 1e-9)
#define IS_NULL(t, c, col) CHECK(isnan(num(t, c, col)))

static void t_registered(void)
{
	struct opmfu_rank_peaks pk = { { 0, 0, 1e12, 0, 0, 0 }, { NULL }, 0, NULL };
	const struct opmfu_analysis *reg[] = { &opmfu_analysis_ops, &opmfu_analysis_modules,
					       &opmfu_analysis_module_classes, &opmfu_analysis_steps,
					       &opmfu_analysis_shapes, &opmfu_analysis_hotspots, NULL };
	enum { NREG = 6 };
	void *state[NREG];
	struct opmfu_rank_ctx ctx;
	struct opmfu_err e = OPMFU_ERR_INIT;
	struct opmfu_table mc[OPMFU_MAX_TABLES], sh[OPMFU_MAX_TABLES], md[OPMFU_MAX_TABLES], ht[OPMFU_MAX_TABLES];
	struct opmfu_cell c[64];
	struct opmfu_account acc;
	size_t n, i;
	int k;

	memset(&ctx, 0, sizeof(ctx));
	ctx.rank = 3;
	ctx.trace = &T;
	ctx.flops = &FL;
	ctx.peaks = &pk;
	ctx.state = state;
	ctx.registry = reg;
	for (k = 0; k < NREG; k++) {
		state[k] = opmfu_calloc(1, reg[k]->state_size);
		reg[k]->init(state[k]);
	}
	for (k = 0; k < NREG; k++)
		CHECK_INT(reg[k]->run(state[k], &ctx, &e), OPMFU_OK);

	/* Units (recoverable = kernel time - FLOPs / peak, all of it without FLOPs):
	 * op0 400 - 200 = 200, op1 200, op2 100 - 50 = 50, op3 300, op4 100.
	 * op0 is in Model_0/Layer_0/Attention_0, op1 directly in Layer_0, op2 in
	 * Attention_1, op3 in fc2, op4 directly in Layer_1. Classes: Model
	 * (everything: 1300 ns, 850 recoverable, none of its own), Layer (two
	 * paths, everything: 1300, 850; own op1 + op4: 500, 300), fc2 (300, 300:
	 * no suffix to strip), Attention (two paths, op0 + op2: 500, 250). By
	 * recoverable time; Model and Layer tie: first appearance. */
	CHECK_INT(reg[2]->tables(state[2], &ctx, mc, &n, &e), OPMFU_OK);
	CHECK_INT(n, 1);
	CHECK_STR(mc[0].def->name, "OpmfuModuleClasses");
	CHECK_INT(mc[0].n_rows, 4);
	{
		static const struct {
			const char *name;
			double paths, calls, kernel, rec, own, own_rec, flops, mfu;
		} want[] = {
			{ "Model", 1, 1, 1300, 850, 0, 0, 450000, 450000.0 / 900000 },
			{ "Layer", 2, 2, 1300, 850, 500, 300, 450000, 0.5 },
			{ "fc2", 1, 1, 300, 300, 300, 300, 0, -1 },
			{ "Attention", 2, 2, 500, 250, 500, 250, 250000, 0.5 },
		};
		for (i = 0; i < 4 && i < mc[0].n_rows; i++) {
			mc[0].row(mc[0].src, i, c);
			NUM(&mc[0], c, "rank_id", 3);
			CHECK_STR(str(&mc[0], c, "module_class"), want[i].name);
			NUM(&mc[0], c, "paths", want[i].paths);
			NUM(&mc[0], c, "calls", want[i].calls);
			NUM(&mc[0], c, "kernel_ns", want[i].kernel);
			NUM(&mc[0], c, "recoverable_ns", want[i].rec);
			NUM(&mc[0], c, "lost_ns", want[i].rec); /* no bytes: the same */
			NUM(&mc[0], c, "self_kernel_ns", want[i].own);
			NUM(&mc[0], c, "self_recoverable_ns", want[i].own_rec);
			NUM(&mc[0], c, "flops", want[i].flops);
			if (want[i].mfu < 0)
				IS_NULL(&mc[0], c, "mfu");
			else
				NUM(&mc[0], c, "mfu", want[i].mfu);
		}
	}

	/* OpmfuShapes: (aten::mm, 4,8;8,16, FLOAT16) ops 0 and 1: 800 ns, 4e5
	 * FLOPs, 4e5 / 800 ns = 0.5 TFLOPS, roofline 2 x 200 = 400: 0.5 of the
	 * kernel time, recoverable 400; (aten::add, 4,16;4,16, FLOAT16) 300, no
	 * FLOPs: all recoverable, no roofline; the FLOAT add 100; the smaller mm
	 * 100, 5e4 FLOPs, 0.5 TFLOPS, 50. No bytes, no bandwidth: bytes, TB/s,
	 * bound NULL. % of step: the one step's window is its first to its last
	 * device work, 1000..2700 = 1700 ns: 800 / 1700, 300 / 1700, ... */
	CHECK_INT(reg[4]->tables(state[4], &ctx, sh, &n, &e), OPMFU_OK);
	CHECK_INT(n, 1);
	CHECK_STR(sh[0].def->name, "OpmfuShapes");
	CHECK_INT(sh[0].n_rows, 4);
	{
		static const struct {
			const char *op, *shapes, *dtypes;
			double calls, kernel, flops, tflops, eff, rec;
		} want[] = {
			{ "aten::mm", "4,8;8,16", "FLOAT16;FLOAT16", 2, 800, 400000, 0.5, 0.5, 400 },
			{ "aten::add", "4,16;4,16", "FLOAT16;FLOAT16", 1, 300, -1, -1, -1, 300 },
			{ "aten::add", "4,16;4,16", "FLOAT;FLOAT", 1, 100, -1, -1, -1, 100 },
			{ "aten::mm", "2,8;8,16", "FLOAT16;FLOAT16", 1, 100, 50000, 0.5, 0.5, 50 },
		};
		for (i = 0; i < 4 && i < sh[0].n_rows; i++) {
			sh[0].row(sh[0].src, i, c);
			NUM(&sh[0], c, "rank_id", 3);
			CHECK_STR(str(&sh[0], c, "op_name"), want[i].op);
			CHECK_STR(str(&sh[0], c, "input_shapes"), want[i].shapes);
			CHECK_STR(str(&sh[0], c, "input_dtypes"), want[i].dtypes);
			NUM(&sh[0], c, "calls", want[i].calls);
			NUM(&sh[0], c, "kernel_ns", want[i].kernel);
			if (want[i].flops < 0) {
				IS_NULL(&sh[0], c, "flops");
				IS_NULL(&sh[0], c, "achieved_tflops");
				IS_NULL(&sh[0], c, "roofline_eff");
			} else {
				NUM(&sh[0], c, "flops", want[i].flops);
				NUM(&sh[0], c, "achieved_tflops", want[i].tflops);
				NUM(&sh[0], c, "roofline_eff", want[i].eff);
			}
			IS_NULL(&sh[0], c, "bytes");
			IS_NULL(&sh[0], c, "achieved_tbps");
			IS_NULL(&sh[0], c, "intensity"); /* FLOPs / bytes: no bytes */
			CHECK_STR(str(&sh[0], c, "bound"), "(null)");
			NUM(&sh[0], c, "recoverable_ns", want[i].rec);
			NUM(&sh[0], c, "pct_of_step", want[i].kernel / 1700);
		}
	}

	/* The run account: the shape hotspot's name is "op shapes dtypes"; the
	 * module_class rows inclusive; all by recoverable time (Model 850, Layer
	 * 850, then the shape 400, ...). */
	opmfu_account_init(&acc);
	CHECK_INT(opmfu_account_add(&acc, &mc[0], &e), OPMFU_OK);
	CHECK_INT(opmfu_account_add(&acc, &sh[0], &e), OPMFU_OK);
	CHECK_INT(opmfu_account_keep(&acc, &e), OPMFU_OK);
	CHECK_INT(opmfu_account_finish(&acc, &e), OPMFU_OK);
	{
		struct opmfu_table h = opmfu_cell_store_table(&acc.hotspots);
		static const char *const kinds[] = { "module_class", "module_class", "shape", "module_class",
						     "shape", "module_class", "shape", "shape" };
		static const double rec[] = { 850, 850, 400, 300, 300, 250, 100, 50 };
		CHECK_INT(h.n_rows, 8);
		for (i = 0; i < h.n_rows && i < 8; i++) {
			h.row(h.src, i, c);
			CHECK_STR(str(&h, c, "kind"), kinds[i]);
			NUM(&h, c, "recoverable_ns", rec[i]);
		}
		h.row(h.src, 2, c);
		CHECK_STR(str(&h, c, "name"), "aten::mm 4,8;8,16 FLOAT16;FLOAT16");
		NUM(&h, c, "calls", 2);
		NUM(&h, c, "mfu", 0.5);
		/* a shape's achieved TFLOPS (4e5 FLOPs / 800 ns); no bytes, no intensity */
		NUM(&h, c, "achieved_tflops", 0.5);
		IS_NULL(&h, c, "intensity");
		h.row(h.src, 0, c);
		CHECK_STR(str(&h, c, "name"), "Model");
		/* the other kinds have neither */
		IS_NULL(&h, c, "achieved_tflops");
		IS_NULL(&h, c, "intensity");
	}
	opmfu_account_release(&acc);

	/* roofline_eff (SPEC 18): sum of roofline time / sum of kernel time over
	 * the units behind a hotspot that have a roofline; the others are left
	 * out of both sums. No bandwidth: a unit's roofline is FLOPs / peak, so
	 * op0 2e5 / 1000 = 200 ns, op1 200, op2 5e4 / 1000 = 50; the adds have
	 * no FLOPs: no roofline.
	 *  module_class Model: op0..op4, those with one op0 + op1 + op2:
	 *    (200 + 200 + 50) / (400 + 400 + 100) = 450 / 900 = 0.5 (not
	 *    450 / 1300: the adds' 400 ns are left out); fc2: op3 only: NULL.
	 *  module (own ops) Model_0/Layer_0: op1 200 / 400 = 0.5; Model_0/Layer_1:
	 *    op4 only: NULL; Model_0/Layer_1/Attention_1: op2 50 / 100 = 0.5.
	 *  op_type aten::mm: ops 0..2: 450 / 900 = 0.5; aten::add: NULL.
	 *  kernel MatMul: its kernels are the mm ops' whole time: 450 / 900; Add: NULL.
	 *  shape aten::mm 4,8;8,16: op0 + op1 400 / 800 = 0.5; 2,8;8,16: 50 / 100. */
	CHECK_INT(reg[1]->tables(state[1], &ctx, md, &n, &e), OPMFU_OK);
	CHECK_INT(n, 1);
	CHECK_INT(reg[5]->tables(state[5], &ctx, ht, &n, &e), OPMFU_OK);
	CHECK_INT(n, 2);
	for (i = 0; i < ht[0].n_rows; i++) {
		ht[0].row(ht[0].src, i, c);
		if (!strcmp(str(&ht[0], c, "op_name"), "aten::mm")) {
			NUM(&ht[0], c, "roofline_ns", 450);
			NUM(&ht[0], c, "roofline_kernel_ns", 900);
		} else {
			IS_NULL(&ht[0], c, "roofline_ns");
			NUM(&ht[0], c, "roofline_kernel_ns", 0);
		}
	}
	opmfu_account_init(&acc);
	CHECK_INT(opmfu_account_add(&acc, &mc[0], &e), OPMFU_OK);
	CHECK_INT(opmfu_account_add(&acc, &md[0], &e), OPMFU_OK);
	CHECK_INT(opmfu_account_add(&acc, &ht[0], &e), OPMFU_OK);
	CHECK_INT(opmfu_account_add(&acc, &sh[0], &e), OPMFU_OK);
	CHECK_INT(opmfu_account_add(&acc, &ht[1], &e), OPMFU_OK);
	CHECK_INT(opmfu_account_keep(&acc, &e), OPMFU_OK);
	CHECK_INT(opmfu_account_finish(&acc, &e), OPMFU_OK);
	{
		struct opmfu_table h = opmfu_cell_store_table(&acc.hotspots);
		static const struct {
			const char *kind, *name;
			double eff; /* -1: NULL */
		} want[] = {
			{ "module_class", "Model", 0.5 },
			{ "module_class", "Attention", 0.5 },
			{ "module_class", "fc2", -1 },
			{ "module", "Model_0/Layer_0", 0.5 },
			{ "module", "Model_0/Layer_1", -1 },
			{ "module", "Model_0/Layer_1/Attention_1", 0.5 },
			{ "op_type", "aten::mm", 0.5 },
			{ "op_type", "aten::add", -1 },
			{ "kernel", "MatMul", 0.5 },
			{ "kernel", "Add", -1 },
			{ "shape", "aten::mm 4,8;8,16 FLOAT16;FLOAT16", 0.5 },
			{ "shape", "aten::mm 2,8;8,16 FLOAT16;FLOAT16", 0.5 },
		};
		size_t w, found;
		for (w = 0; w < sizeof(want) / sizeof(want[0]); w++) {
			for (found = 0, i = 0; i < h.n_rows; i++) {
				h.row(h.src, i, c);
				if (strcmp(str(&h, c, "kind"), want[w].kind) || strcmp(str(&h, c, "name"), want[w].name))
					continue;
				found++;
				if (want[w].eff < 0)
					IS_NULL(&h, c, "roofline_eff");
				else
					NUM(&h, c, "roofline_eff", want[w].eff);
			}
			if (found != 1)
				fprintf(stderr, "hotspot %s %s: %zu rows\n", want[w].kind, want[w].name, found);
			CHECK_INT(found, 1);
		}
	}
	opmfu_account_release(&acc);

	for (k = NREG - 1; k >= 0; k--) {
		reg[k]->release(state[k]);
		opmfu_free(state[k]);
	}
}

int main(void)
{
	t_class_rule();
	opmfu_trace_init(&T);
	opmfu_flops_init(&FL);
	build();
	t_registered();
	opmfu_flops_release(&FL);
	opmfu_trace_release(&T);
	return check_done();
}
