/*
 * module_calls.c - SPEC 3.4 over the rows of the module tree: calls, op_order
 * and seq_id; and each row's kernel list with its kernel time and MFU sums.
 */
#include "reference/module_mm.h"

#include <string.h>

#include "base/bucket.h"
#include "base/mem.h"

/* Numbers the rows within their call (a call is one module node: its parent
 * path, name and span are unique); row_call[i] is the call of row i, and the
 * calls are numbered in order of their first row. */
static int number_rows(struct opmfu_mm *w, uint32_t *row_call, size_t *n_calls)
{
	const struct opmfu_module_tree *mt = w->mt;
	size_t n_mods = w->t->mods.n, i;
	uint32_t *mod_cnt = opmfu_calloc(n_mods + 1, sizeof(*mod_cnt));
	uint32_t *mod_call = opmfu_malloc((n_mods + 1) * sizeof(*mod_call));
	int rc = -1;

	if (!mod_cnt || !mod_call)
		goto out;
	*n_calls = 0;
	for (i = 0; i < mt->n_rows; i++) {
		uint32_t m = mt->row_mod[i];
		if (mod_cnt[m] == 0)
			mod_call[m] = (uint32_t)(*n_calls)++;
		w->row_order[i] = mod_cnt[m]++;
		row_call[i] = mod_call[m];
	}
	rc = 0;
out:
	opmfu_free(mod_cnt);
	opmfu_free(mod_call);
	return rc;
}

int opmfu_mm_calls(struct opmfu_mm *w)
{
	const struct opmfu_trace *t = w->t;
	const struct opmfu_module_tree *mt = w->mt;
	size_t n_calls = 0, c;
	uint32_t *call_off = NULL, *crow = NULL, *row_call = NULL;
	int rc = -1;

	w->row_order = opmfu_malloc((mt->n_rows + 1) * sizeof(*w->row_order));
	w->row_seq = opmfu_malloc((mt->n_rows + 1) * sizeof(*w->row_seq));
	row_call = opmfu_malloc((mt->n_rows + 1) * sizeof(*row_call));
	if (!w->row_order || !w->row_seq || !row_call || number_rows(w, row_call, &n_calls))
		goto out;
	if (opmfu_bucket(row_call, mt->n_rows, n_calls, &call_off, &crow))
		goto out;
	/* sequences are numbered in order of their first row, over all modules */
	for (c = 0; c < n_calls; c++) {
		uint32_t k, seq;
		sbuf_reset(&w->sb);
		for (k = call_off[c]; k < call_off[c + 1]; k++) {
			const struct opmfu_link *l = &t->links[mt->node_link[mt->row_node[crow[k]]]];
			size_t len;
			const char *s = opmfu_module_str(t, l->op_name, &len);
			if (k > call_off[c])
				sbuf_add(&w->sb, "/", 1);
			sbuf_add(&w->sb, s, len);
		}
		if (w->sb.oom || (seq = opmfu_intern_add(&w->seqs, w->sb.buf, w->sb.len)) == OPMFU_MM_NONE)
			goto out;
		for (k = call_off[c]; k < call_off[c + 1]; k++)
			w->row_seq[crow[k]] = seq;
	}
	rc = 0;
out:
	opmfu_free(call_off);
	opmfu_free(crow);
	opmfu_free(row_call);
	return rc;
}

/* The kernel name of node n's k-th kernel row (its sid). */
static uint32_t node_kname(const struct opmfu_mm *w, uint32_t n, uint32_t k)
{
	return w->t->links[w->mt->k_link[w->mt->kord[w->mt->node_off[n] + k]]].k_name;
}

/* Whether nodes a and b have the same kernel names in the same order: then
 * the same kernel list, its text a function of the names' sids. */
static int same_kernels(const struct opmfu_mm *w, uint32_t a, uint32_t b)
{
	const uint32_t *off = w->mt->node_off;
	uint32_t n = off[a + 1] - off[a], k;
	if (n != off[b + 1] - off[b])
		return 0;
	for (k = 0; k < n; k++)
		if (node_kname(w, a, k) != node_kname(w, b, k))
			return 0;
	return 1;
}

/*
 * A few kernel names make most rows' lists, and each list's text (long
 * demangled names, joined) was hashed again by the interning of every row:
 * a list already interned for a node with the same names is taken from a
 * small table by the names' sids instead.
 */
#define KLIST_MEMO 256

int opmfu_mm_kernel_lists(struct opmfu_mm *w)
{
	const struct opmfu_trace *t = w->t;
	const struct opmfu_module_tree *mt = w->mt;
	struct {
		uint32_t node, id;
	} memo[KLIST_MEMO];
	size_t i;

	for (i = 0; i < KLIST_MEMO; i++)
		memo[i].node = OPMFU_MM_NONE;

	w->row_klist = opmfu_malloc((mt->n_rows + 1) * sizeof(*w->row_klist));
	w->row_dev = opmfu_malloc((mt->n_rows + 1) * sizeof(*w->row_dev));
	w->row_mxn = opmfu_malloc((mt->n_rows + 1) * sizeof(*w->row_mxn));
	w->row_mn = opmfu_malloc((mt->n_rows + 1) * sizeof(*w->row_mn));
	if (!w->row_klist || !w->row_dev || !w->row_mxn || !w->row_mn)
		return -1;
	for (i = 0; i < mt->n_rows; i++) {
		uint32_t n = mt->row_node[i], k, h = 2166136261u, slot;
		double dev = 0.0, mxn = 0.0, mn = 0.0;
		for (k = mt->node_off[n]; k < mt->node_off[n + 1]; k++) {
			const struct opmfu_link *l = &t->links[mt->k_link[mt->kord[k]]];
			double dur = (double)(l->k_end - l->k_start), mfu = opmfu_mm_kernel_mfu(w, mt->kord[k]);
			h = (h ^ l->k_name) * 16777619u;
			dev += dur;
			if (mfu > 0) {
				mxn += mfu * dur;
				mn += dur;
			}
		}
		slot = (h ^ (h >> 16)) % KLIST_MEMO;
		if (memo[slot].node != OPMFU_MM_NONE && same_kernels(w, memo[slot].node, n)) {
			w->row_klist[i] = memo[slot].id;
		} else {
			sbuf_reset(&w->sb);
			for (k = 0; k < mt->node_off[n + 1] - mt->node_off[n]; k++) {
				size_t len;
				const char *s = opmfu_module_str(t, node_kname(w, n, k), &len);
				if (k)
					sbuf_add(&w->sb, ", ", 2);
				sbuf_add(&w->sb, s, len);
			}
			if (w->sb.oom ||
			    (w->row_klist[i] = opmfu_intern_add(&w->strs, w->sb.buf, w->sb.len)) == OPMFU_MM_NONE)
				return -1;
			memo[slot].node = n;
			memo[slot].id = w->row_klist[i];
		}
		w->row_dev[i] = dev;
		w->row_mxn[i] = mxn;
		w->row_mn[i] = mn;
	}
	return 0;
}
