/*
 * op_mfu.c - SPEC 2. Each record takes the S rows whose op start lies in its
 * range; records are visited in start order, so the first such row only moves
 * forward and the cost is the size of the output plus one pass over S.
 * Entries are chained per kernel key, and every link gets the first entry of
 * its key once (res->first), which is how rows of R, module_mfu and the
 * writers find their entries (SPEC 2.6) with one array read.
 */
#include "analyze/op_mfu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/sort.h"
#include "base/mem.h"

void opmfu_op_mfu_init(struct opmfu_op_mfu *res)
{
	memset(res, 0, sizeof(*res));
}

/* What prepare leaves for run; run frees it when done with it. */
static void free_prepared(struct opmfu_op_mfu *res)
{
	opmfu_free(res->s);
	opmfu_free(res->s_start);
	opmfu_free(res->key);
	res->s = NULL;
	res->s_start = NULL;
	res->key = NULL;
}

void opmfu_op_mfu_release(struct opmfu_op_mfu *res)
{
	opmfu_free(res->r);
	opmfu_free(res->m);
	opmfu_free(res->first);
	free_prepared(res);
	opmfu_op_mfu_init(res);
}

static int same_key(const struct opmfu_link *a, const struct opmfu_link *b)
{
	return a->k_start == b->k_start && a->k_end == b->k_end && a->k_name == b->k_name;
}

/* ---- orders: total (the last key is the read order), so any sort gives one result ---- */

/* R: (op start, kernel start, read order) */
static int less_r(const void *ctx, uint32_t ia, uint32_t ib)
{
	const struct opmfu_link *a = (const struct opmfu_link *)ctx + ia, *b = (const struct opmfu_link *)ctx + ib;
	if (a->op_start != b->op_start)
		return a->op_start < b->op_start;
	if (a->k_start != b->k_start)
		return a->k_start < b->k_start;
	return a->seq < b->seq;
}

/* S: (op start, kernel start, kernel end, read order) */
static int less_s(const void *ctx, uint32_t ia, uint32_t ib)
{
	const struct opmfu_link *a = (const struct opmfu_link *)ctx + ia, *b = (const struct opmfu_link *)ctx + ib;
	if (a->op_start != b->op_start)
		return a->op_start < b->op_start;
	if (a->k_start != b->k_start)
		return a->k_start < b->k_start;
	if (a->k_end != b->k_end)
		return a->k_end < b->k_end;
	return a->seq < b->seq;
}

/* ---- a per-record set of (kernel start, kernel end), cleared by generation ---- */

struct pair_set {
	struct pair_slot {
		int64_t a, b;
		uint32_t gen;
	} *slot;
	size_t cap;
	uint32_t gen;
};

static int pair_set_reset(struct pair_set *s, size_t expect)
{
	size_t need = 16;
	while (need < expect * 2)
		need *= 2;
	if (need > s->cap) {
		opmfu_free(s->slot);
		s->slot = opmfu_calloc(need, sizeof(*s->slot));
		if (!s->slot) {
			s->cap = 0;
			return -1;
		}
		s->cap = need;
		s->gen = 0;
	}
	if (++s->gen == 0) {
		memset(s->slot, 0, s->cap * sizeof(*s->slot));
		s->gen = 1;
	}
	return 0;
}

/* Adds (a, b); returns 1 if it was new. */
static int pair_set_add(struct pair_set *s, int64_t a, int64_t b)
{
	size_t h = (size_t)opmfu_mix64((uint64_t)a * 31 + (uint64_t)b) & (s->cap - 1);
	while (s->slot[h].gen == s->gen) {
		if (s->slot[h].a == a && s->slot[h].b == b)
			return 0;
		h = (h + 1) & (s->cap - 1);
	}
	s->slot[h] = (struct pair_slot){ a, b, s->gen };
	return 1;
}

/* ---- kernel keys ---- */

uint32_t opmfu_op_mfu_first(const struct opmfu_op_mfu *res, const struct opmfu_trace *t,
			    const struct opmfu_link *link)
{
	size_t i = (size_t)(link - t->links);
	return i < res->n_first ? res->first[i] : OPMFU_NO_ENTRY;
}

/* Link indexes in kernel-key order: (start, end, name). */
static int less_kkey(const void *ctx, uint32_t a, uint32_t b)
{
	const struct opmfu_link *x = (const struct opmfu_link *)ctx + a, *y = (const struct opmfu_link *)ctx + b;
	if (x->k_start != y->k_start)
		return x->k_start < y->k_start;
	if (x->k_end != y->k_end)
		return x->k_end < y->k_end;
	return x->k_name < y->k_name;
}

/*
 * Numbers the kernel keys of every link (all sources: SPEC 3.1 looks
 * communication rows up too) by sorting the links (they come nearly in
 * kernel order, so the natural merge sort takes a pass or two): the chains
 * then live in arrays indexed by key number, which a hash table of the keys
 * spread over many times the cache.
 */
static int number_keys(struct opmfu_op_mfu *res, const struct opmfu_trace *t)
{
	size_t n = t->n_links, i;
	uint32_t *ord = opmfu_malloc((n ? n : 1) * sizeof(*ord));
	int rc = -1; /* on failure the caller frees res->key */

	res->key = opmfu_malloc((n ? n : 1) * sizeof(*res->key));
	if (!ord || !res->key)
		goto out;
	for (i = 0; i < n; i++)
		ord[i] = (uint32_t)i;
	if (opmfu_sort_idx(ord, n, less_kkey, t->links))
		goto out;
	res->n_keys = 0;
	for (i = 0; i < n; i++) {
		if (i > 0 && !same_key(&t->links[ord[i - 1]], &t->links[ord[i]]))
			res->n_keys++;
		res->key[ord[i]] = (uint32_t)res->n_keys;
	}
	res->n_keys += n > 0;
	rc = 0;
out:
	opmfu_free(ord);
	return rc;
}

/* Chains every entry after the previous one of its key, in M order, then
 * gives every link the first entry of its key. */
static int build_key_chains(struct opmfu_op_mfu *res, const struct opmfu_trace *t)
{
	size_t n = t->n_links, i, n_keys = res->n_keys;
	uint32_t *head, *last;

	res->first = opmfu_malloc((n ? n : 1) * sizeof(*res->first));
	head = opmfu_malloc((n_keys ? n_keys : 1) * sizeof(*head));
	last = opmfu_malloc((n_keys ? n_keys : 1) * sizeof(*last));
	if (!res->first || !head || !last) {
		opmfu_free(head);
		opmfu_free(last);
		return -1;
	}
	res->n_first = n;
	for (i = 0; i < n_keys; i++)
		head[i] = OPMFU_NO_ENTRY;
	for (i = 0; i < res->n_m; i++) {
		uint32_t k = res->key[res->m[i].link];
		res->m[i].next = OPMFU_NO_ENTRY;
		if (head[k] == OPMFU_NO_ENTRY) {
			head[k] = (uint32_t)i;
			res->stats.kernels_with_mfu++;
		} else {
			res->m[last[k]].next = (uint32_t)i;
		}
		last[k] = (uint32_t)i;
	}
	for (i = 0; i < n; i++)
		res->first[i] = head[res->key[i]];
	opmfu_free(head);
	opmfu_free(last);
	return 0;
}

static int shape_ok(const struct opmfu_trace *t, uint32_t sid)
{
	return !opmfu_shape_is_na(opmfu_strtab_str(&t->strs, sid) ? opmfu_strtab_str(&t->strs, sid) : "",
				  opmfu_strtab_len(&t->strs, sid));
}

enum opmfu_status opmfu_op_mfu_prepare(const struct opmfu_trace *t, struct opmfu_op_mfu *res,
				       struct opmfu_err *err)
{
	size_t i;

	if (res->key) /* prepared already */
		return OPMFU_OK;
	/* R: compute links in (op start, kernel start) order */
	res->n_r = t->n_compute;
	res->r = opmfu_malloc((res->n_r ? res->n_r : 1) * sizeof(*res->r));
	res->s = opmfu_malloc((res->n_r ? res->n_r : 1) * sizeof(*res->s));
	if (!res->r || !res->s)
		goto nomem;
	for (i = 0; i < res->n_r; i++)
		res->r[i] = (uint32_t)i;
	if (opmfu_sort_idx(res->r, res->n_r, less_r, t->links))
		goto nomem;

	/* S: rows with shape information, not N/A; R's order already sorts all
	 * but ties of (op start, kernel start), so this sort is one pass */
	res->n_s = 0;
	for (i = 0; i < res->n_r; i++) {
		const struct opmfu_link *l = &t->links[res->r[i]];
		if (shape_ok(t, l->in_shapes) && shape_ok(t, l->out_shapes))
			res->s[res->n_s++] = res->r[i];
	}
	if (opmfu_sort_idx(res->s, res->n_s, less_s, t->links))
		goto nomem;
	/* op starts of S side by side, for the range searches */
	res->s_start = opmfu_malloc((res->n_s ? res->n_s : 1) * sizeof(*res->s_start));
	if (!res->s_start)
		goto nomem;
	for (i = 0; i < res->n_s; i++)
		res->s_start[i] = t->links[res->s[i]].op_start;
	if (number_keys(res, t))
		goto nomem;
	return OPMFU_OK;
nomem:
	opmfu_free(res->r);
	res->r = NULL;
	res->n_r = 0;
	free_prepared(res);
	return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory computing kernel MFU");
}

/* Puts t->recs in (start, position) order. */
enum opmfu_status opmfu_op_mfu_run(struct opmfu_trace *t, const struct opmfu_peaks *peaks,
				   struct opmfu_op_mfu *res, struct opmfu_err *err)
{
	uint32_t *s, *win = NULL;
	const int64_t *s_start;
	size_t n_s, i, win_cap = 0, lo = 0;
	struct pair_set seen = { NULL, 0, 0 };
	enum opmfu_status st;

	if ((st = opmfu_op_mfu_prepare(t, res, err)))
		return st;
	s = res->s;
	s_start = res->s_start;
	n_s = res->n_s;

	/* records in start order (stable); the reader delivers them so */
	if (opmfu_trace_sort_recs(t))
		goto nomem;

	for (i = 0; i < t->n_recs; i++) {
		const struct opmfu_flops_rec *rec = &t->recs[i];
		size_t hi, k, n_win = 0;
		double total = 0;
		enum opmfu_dtclass cls;
		const char *dt;
		char bad[48];
		double peak;

		/* first S row with op start >= record start: starts only grow */
		while (lo < n_s && s_start[lo] < rec->start)
			lo++;
		for (hi = lo; hi < n_s && s_start[hi] <= rec->end; hi++)
			;
		if (hi == lo) {
			res->stats.drops[OPMFU_DROP_NO_KERNEL]++;
			continue;
		}
		if (pair_set_reset(&seen, hi - lo) || OPMFU_GROW(win, win_cap, hi - lo))
			goto nomem;
		for (k = lo; k < hi; k++) {
			const struct opmfu_link *l = &t->links[s[k]];
			if (pair_set_add(&seen, l->k_start, l->k_end)) {
				win[n_win++] = s[k];
				total += (double)(l->k_end - l->k_start);
			}
		}
		dt = opmfu_strtab_str(&t->strs, t->links[win[0]].in_dtypes);
		cls = opmfu_dtype_pick(dt, opmfu_strtab_len(&t->strs, t->links[win[0]].in_dtypes), bad,
				       sizeof(bad));
		if (cls < 0) {
			res->stats.drops[OPMFU_DROP_DTYPE]++;
			/* keep the first one seen as the example for the summary */
			if (!res->stats.bad_dtype[0])
				snprintf(res->stats.bad_dtype, sizeof(res->stats.bad_dtype), "%.40s",
					 cls == OPMFU_DT_NONE ? dt : bad);
			continue;
		}
		if (total <= 0) {
			res->stats.drops[OPMFU_DROP_DURATION]++;
			continue;
		}
		peak = peaks->flops[cls];
		if (!(peak > 0)) {
			res->stats.drops[OPMFU_DROP_NO_PEAK]++;
			continue;
		}
		res->stats.recs_used++;
		res->stats.sum_flops += (double)rec->flops;
		for (k = 0; k < n_win; k++) {
			const struct opmfu_link *l = &t->links[win[k]];
			int64_t dur = l->k_end - l->k_start;
			struct opmfu_mfu_entry *e;
			if (dur <= 0)
				continue;
			if (res->n_m >= UINT32_MAX - 1 || OPMFU_GROW(res->m, res->cap_m, res->n_m + 1))
				goto nomem;
			e = &res->m[res->n_m++];
			/* this operation order is the reference's; keep it for equal results */
			e->tput = (double)rec->flops / ((double)dur * 1e-9);
			e->mfu = e->tput / peak;
			e->peak = peak;
			e->link = win[k];
			e->rec = (uint32_t)i;
			e->next = OPMFU_NO_ENTRY;
			res->stats.sum_capacity += (double)dur * 1e-9 * peak;
		}
	}
	if (build_key_chains(res, t))
		goto nomem;
	for (i = 0; i < res->n_r; i++) {
		uint32_t e = opmfu_op_mfu_first(res, t, &t->links[res->r[i]]);
		for (; e != OPMFU_NO_ENTRY; e = res->m[e].next)
			res->stats.rows++;
	}
	goto out;
nomem:
	st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory computing kernel MFU");
out:
	free_prepared(res);
	opmfu_free(win);
	opmfu_free(seen.slot);
	return st;
}
