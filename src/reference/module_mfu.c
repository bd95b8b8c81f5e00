/*
 * module_mfu.c - SPEC 3: the module tree (module_tree.c), then over its
 * rows calls and kernel lists (module_calls.c), groups, names and the result
 * (module_groups.c). Calls, op sequences, kernel lists, groups and names are
 * hashed; only rows and groups are sorted. Cost O(n log n) in the kernel
 * rows, memory linear in them.
 */
#include "reference/module_mfu.h"

#include <string.h>

#include "reference/module_mm.h"
#include "base/mem.h"

void opmfu_module_mfu_init(struct opmfu_module_mfu *res)
{
	memset(res, 0, sizeof(*res));
}

void opmfu_module_mfu_release(struct opmfu_module_mfu *res)
{
	size_t i;
	for (i = 0; i < res->n_pool; i++)
		opmfu_free(res->pool[i]);
	opmfu_free(res->pool);
	opmfu_free(res->rows);
	opmfu_free(res->totals);
	opmfu_module_mfu_init(res);
}

static void mm_release(struct opmfu_mm *w)
{
	sbuf_release(&w->sb);
	opmfu_intern_release(&w->strs);
	opmfu_intern_release(&w->seqs);
	opmfu_module_paths_release(&w->paths);
	opmfu_arena_release(&w->tmp_ar);
	opmfu_arena_release(&w->ar); /* empty once handed to the result */
	opmfu_free(w->row_order);
	opmfu_free(w->row_seq);
	opmfu_free(w->row_klist);
	opmfu_free(w->row_group);
	opmfu_free(w->row_dev);
	opmfu_free(w->row_mxn);
	opmfu_free(w->row_mn);
	opmfu_free(w->g_key);
	opmfu_free(w->g_first);
	opmfu_free(w->g_total);
	opmfu_free(w->g_mxn);
	opmfu_free(w->g_mn);
	opmfu_free(w->g_count);
	opmfu_free(w->g_off);
	opmfu_free(w->grow);
	opmfu_free((void *)w->g_module);
	opmfu_free((void *)w->g_avg);
}

static enum opmfu_status nomem(const struct opmfu_trace *t, struct opmfu_module_mfu *res, struct opmfu_err *err)
{
	opmfu_module_mfu_release(res);
	return opmfu_err_set(err, OPMFU_ERR_NOMEM,
			     "out of memory building the module tree (%zu Module ranges, %zu kernel rows)", t->mods.n,
			     t->n_links);
}

enum opmfu_status opmfu_module_mfu_run_tree(const struct opmfu_trace *t, const struct opmfu_op_mfu *op,
					    const struct opmfu_module_tree *mt, struct opmfu_module_mfu *res,
					    struct opmfu_err *err)
{
	struct opmfu_mm w;

	opmfu_module_mfu_init(res);
	res->ops_too_deep = mt->ops_too_deep;
	if (mt->n_rows == 0)
		return OPMFU_OK;
	memset(&w, 0, sizeof(w));
	w.t = t;
	w.op = op;
	w.mt = mt;
	sbuf_init(&w.sb);
	opmfu_intern_init(&w.strs, &w.ar);
	opmfu_intern_init(&w.seqs, &w.tmp_ar);
	if (opmfu_mm_calls(&w) || opmfu_mm_kernel_lists(&w) || opmfu_mm_groups(&w) || opmfu_mm_average_mfu(&w) ||
	    opmfu_mm_disambiguate(&w) || opmfu_mm_results(&w, res)) {
		mm_release(&w);
		return nomem(t, res, err);
	}
	res->pool = w.ar.blk;
	res->n_pool = w.ar.n;
	res->cap_pool = w.ar.cap;
	memset(&w.ar, 0, sizeof(w.ar));
	mm_release(&w);
	return OPMFU_OK;
}

enum opmfu_status opmfu_module_mfu_run(const struct opmfu_trace *t, const struct opmfu_op_mfu *op,
				       struct opmfu_module_mfu *res, struct opmfu_err *err)
{
	struct opmfu_module_tree mt;
	enum opmfu_status st;

	opmfu_module_mfu_init(res);
	opmfu_module_tree_init(&mt);
	if (opmfu_module_tree_build(&mt, t, op))
		st = nomem(t, res, err);
	else
		st = opmfu_module_mfu_run_tree(t, op, &mt, res, err);
	opmfu_module_tree_release(&mt);
	return st;
}
