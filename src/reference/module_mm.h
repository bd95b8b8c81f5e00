/*
 * module_mm.h - internal to module MFU: the working state that
 * module_calls.c and module_groups.c fill in turn over the module tree
 * (module_mfu.c runs the steps in order and releases the state).
 */
#ifndef OPMFU_MODULE_MM_H
#define OPMFU_MODULE_MM_H

#include <stddef.h>
#include <stdint.h>

#include "base/intern.h"
#include "base/sbuf.h"
#include "reference/module_mfu.h"
#include "reference/module_tree.h"

#define OPMFU_MM_NONE UINT32_MAX

/* What makes a group (SPEC 3.5): ids of strings (pid, klist in strs, seq in
 * seqs, names as sids) and the op's place in its call. */
struct opmfu_mm_key {
	uint32_t pid, mname, oname, order, klist, seq;
};

struct opmfu_mm {
	const struct opmfu_trace *t;
	const struct opmfu_op_mfu *op;
	const struct opmfu_module_tree *mt;
	struct sbuf sb;
	struct opmfu_arena ar;     /* result strings: handed to res->pool */
	struct opmfu_arena tmp_ar; /* op sequences: freed at the end */
	struct opmfu_intern strs;  /* parent paths, kernel lists, suffixed names (in ar) */
	struct opmfu_intern seqs;  /* op sequences of calls; id = seq_id (in tmp_ar) */
	struct opmfu_module_paths paths; /* in strs */

	/* per row of the tree (SPEC 3.4): op_order, seq_id, kernel list and
	 * its kernel time, sum(mfu x ns) and sum(ns) over kernels with an MFU */
	uint32_t *row_order, *row_seq, *row_klist, *row_group;
	double *row_dev, *row_mxn, *row_mn;

	/* groups (SPEC 3.5), in order of first row; their rows are
	 * grow[g_off[g] .. g_off[g + 1]) */
	struct opmfu_mm_key *g_key;
	int64_t *g_first;
	double *g_total, *g_mxn, *g_mn;
	uint32_t *g_count, *g_off, *grow;
	const char **g_module, **g_avg;
	size_t n_groups, cap_groups;
};

/* The MFU of kernel row k, or -1 when it has none. */
static inline double opmfu_mm_kernel_mfu(const struct opmfu_mm *w, uint32_t k)
{
	uint32_t e = w->mt->k_ent[k];
	return e == OPMFU_NO_ENTRY ? -1.0 : opmfu_op_mfu_mfu(w->op, &w->op->m[e]);
}

/* The steps, in this order; each returns 0 or -1 (out of memory). */
int opmfu_mm_calls(struct opmfu_mm *w);        /* row_order, row_seq (SPEC 3.4) */
int opmfu_mm_kernel_lists(struct opmfu_mm *w); /* row_klist and kernel times */
int opmfu_mm_groups(struct opmfu_mm *w);       /* groups and their rows (SPEC 3.5) */
int opmfu_mm_average_mfu(struct opmfu_mm *w);  /* g_avg (SPEC 3.5) */
int opmfu_mm_disambiguate(struct opmfu_mm *w); /* g_module (SPEC 3.6) */
int opmfu_mm_results(struct opmfu_mm *w, struct opmfu_module_mfu *res); /* rows and totals (SPEC 3.7) */

#endif
