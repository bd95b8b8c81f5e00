/*
 * fuzz_module.c - module names and tree shapes: the input becomes a trace of
 * Module ranges (names are raw bytes, '/' and all), ops, kernels and FLOPs
 * records, which runs through kernel MFU and the module tree (SPEC 2, 3);
 * the tree itself (module_tree.h) is checked against its contract.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference/module_mfu.h"
#include "reference/op_mfu.h"
#include "base/mem.h"
#include "fuzz.h"
#include "fuzz_input.h"

/* small times so that ranges overlap and tie often */
static int64_t when(struct reader *r)
{
	return (int64_t)byte(r) * 4 + (byte(r) & 3);
}

static uint32_t name(struct reader *r, struct opmfu_trace *t)
{
	size_t len = byte(r) % 12;
	uint32_t sid;
	if (len > r->n)
		len = r->n;
	if (len == 11)
		return 0; /* NULL name */
	sid = opmfu_strtab_intern(&t->strs, (const char *)r->p, len);
	r->p += len;
	r->n -= len;
	return sid;
}

/* The tree under the rows: each op node lies in its module, which is no
 * deeper than the limit, and every node has its kernel rows; the rows over
 * it are the ones opmfu_module_mfu_run gave. */
static void check_tree(const struct opmfu_trace *t, const struct opmfu_op_mfu *op,
		       const struct opmfu_module_mfu *mod)
{
	struct opmfu_module_tree mt;
	struct opmfu_module_mfu again;
	struct opmfu_err err = OPMFU_ERR_INIT;
	size_t i;

	opmfu_module_tree_init(&mt);
	opmfu_module_mfu_init(&again);
	if (opmfu_module_tree_build(&mt, t, op) == 0) {
		FUZZ_ASSERT(mt.n_rows + mt.ops_too_deep <= mt.n_nodes);
		FUZZ_ASSERT(mt.ops_too_deep == mod->ops_too_deep);
		for (i = 0; i < mt.n_nodes; i++)
			FUZZ_ASSERT(mt.node_off[i] < mt.node_off[i + 1]);
		for (i = 0; i < mt.n_rows; i++) {
			const struct opmfu_range *m = &t->mods.v[mt.row_mod[i]];
			const struct opmfu_link *l = &t->links[mt.node_link[mt.row_node[i]]];
			FUZZ_ASSERT(m->start <= l->op_start && l->op_end <= m->end);
			FUZZ_ASSERT(mt.mod_depth[mt.row_mod[i]] <= OPMFU_MODULE_MAX_DEPTH);
		}
		if (opmfu_module_mfu_run_tree(t, op, &mt, &again, &err) == OPMFU_OK) {
			FUZZ_ASSERT(again.n_rows == mod->n_rows && again.n_totals == mod->n_totals);
			for (i = 0; i < again.n_rows; i++)
				FUZZ_ASSERT(strcmp(again.rows[i].module, mod->rows[i].module) == 0 &&
					    again.rows[i].total_ns == mod->rows[i].total_ns);
		}
	}
	opmfu_module_mfu_release(&again);
	opmfu_module_tree_release(&mt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader r = { data, size };
	struct opmfu_trace t;
	struct opmfu_flops fl;
	struct opmfu_op_mfu op;
	struct opmfu_module_mfu mod;
	struct opmfu_rank_peaks pk = { .flops = { [OPMFU_PREC_FP16] = 1e12, [OPMFU_PREC_INT8] = 2e12 } };
	struct opmfu_err err = OPMFU_ERR_INIT;
	/* FLOAT16 (no list: fp16), INT8, INT64 */
	struct opmfu_dtype int8 = { 0, OPMFU_DT_INT8, OPMFU_PREC_INT8, "" };
	struct opmfu_dtype int64 = { 0, OPMFU_DT_NONE, OPMFU_PREC_NONE, "INT64" };
	uint32_t dtype[3] = { 0, 0, 0 }, shape;
	size_t i, n;

	opmfu_trace_init(&t);
	opmfu_flops_init(&fl);
	opmfu_op_mfu_init(&op);
	opmfu_module_mfu_init(&mod);
	shape = opmfu_strtab_intern(&t.strs, "4,4", 3);
	(void)opmfu_trace_add_dtype(&t, &int8, &dtype[1]);
	(void)opmfu_trace_add_dtype(&t, &int64, &dtype[2]);
	n = byte(&r) % 40;
	for (i = 0; i < n; i++) {
		int64_t s = when(&r);
		struct opmfu_range m = { s, s + when(&r), 0, name(&r, &t), 0 };
		if (opmfu_ranges_add(&t.mods, &m))
			break;
	}
	for (int src = 0; src < 3; src++) {
		n = byte(&r) % 40;
		for (i = 0; i < n && OPMFU_GROW(t.links, t.cap_links, t.n_links + 1) == 0; i++) {
			struct opmfu_link l;
			l.op_start = when(&r);
			l.op_end = l.op_start + when(&r);
			l.k_start = when(&r);
			l.k_end = l.k_start + (int64_t)(byte(&r) % 8) - 1;
			l.op_name = name(&r, &t);
			l.k_name = name(&r, &t);
			l.in_shapes = l.out_shapes = src == 0 ? shape : 0;
			l.dtype = src == 0 ? dtype[byte(&r) % 3] : 0;
			l.op = (uint32_t)t.n_links;
			t.links[t.n_links++] = l;
			if (src == 0)
				t.n_compute++;
			else if (src == 1)
				t.n_comm_op++;
			else
				t.n_comm_sched++;
		}
	}
	t.n_ops = t.n_links;
	n = byte(&r) % 20;
	for (i = 0; i < n; i++) {
		int64_t s = when(&r);
		struct opmfu_range rec = { s, s + when(&r), 0, opmfu_strtab_intern(&t.strs, "1000-x", 6), 5 };
		rec.value = 1 + byte(&r) * 1000;
		if (opmfu_ranges_add(&t.recs, &rec))
			break;
	}
	/* OperatorMFU's two class rules (Ascend's, SPEC 8's); an exhausted input: the reference's */
	t.ref_classes = !(byte(&r) & 1);
	if (opmfu_flops_run(&fl, &t, NULL, 0, &err) == OPMFU_OK &&
	    opmfu_op_mfu_run(&t, &fl, &pk, &op, &err) == OPMFU_OK &&
	    opmfu_module_mfu_run(&t, &op, &mod, &err) == OPMFU_OK) {
		for (i = 0; i < mod.n_rows; i++) {
			const struct opmfu_module_row *row = &mod.rows[i];
			size_t len;
			FUZZ_ASSERT(row->parent && row->module && row->op_name && row->kernel_list && row->avg_mfu);
			FUZZ_ASSERT(row->op_count >= 1);
			FUZZ_ASSERT(row->avg_ns == row->total_ns / (double)row->op_count);
			len = strlen(row->avg_mfu);
			FUZZ_ASSERT(len == 0 || row->avg_mfu[len - 1] == '%');
		}
		FUZZ_ASSERT(t.mods.n > 0 || mod.n_rows == 0);
		check_tree(&t, &op, &mod);
	}
	opmfu_module_mfu_release(&mod);
	opmfu_op_mfu_release(&op);
	opmfu_flops_release(&fl);
	opmfu_trace_release(&t);
	return 0;
}
