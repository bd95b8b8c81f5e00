/*
 * op_mfu.c - SPEC 2. Each record takes the S rows whose op start lies in its
 * range (binary search over S sorted by op start), so the cost is the size of
 * the output plus O(log n) per record. Entries are chained per kernel key in
 * a hash table, which is how rows of R find their entries (SPEC 2.6).
 */
#include "op_mfu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/mem.h"

void opmfu_op_mfu_init(struct opmfu_op_mfu *res)
{
	memset(res, 0, sizeof(*res));
}

void opmfu_op_mfu_release(struct opmfu_op_mfu *res)
{
	opmfu_free(res->r);
	opmfu_free(res->m);
	opmfu_free(res->key_first);
	opmfu_op_mfu_init(res);
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static uint64_t key_hash(const struct opmfu_link *l)
{
	return mix64((uint64_t)l->k_start * 0x9E3779B97F4A7C15ULL ^ mix64((uint64_t)l->k_end) ^
		     ((uint64_t)l->k_name << 17));
}

static int same_key(const struct opmfu_link *a, const struct opmfu_link *b)
{
	return a->k_start == b->k_start && a->k_end == b->k_end && a->k_name == b->k_name;
}

/* ---- sorting: stable by construction (the last key is the read order) ---- */

/* comparators see the links through this; thread-local so ranks can run in parallel */
static _Thread_local const struct opmfu_link *sort_links;

static int cmp_r(const void *pa, const void *pb)
{
	const struct opmfu_link *a = &sort_links[*(const uint32_t *)pa];
	const struct opmfu_link *b = &sort_links[*(const uint32_t *)pb];
	if (a->op_start != b->op_start)
		return a->op_start < b->op_start ? -1 : 1;
	if (a->k_start != b->k_start)
		return a->k_start < b->k_start ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

static int cmp_s(const void *pa, const void *pb)
{
	const struct opmfu_link *a = &sort_links[*(const uint32_t *)pa];
	const struct opmfu_link *b = &sort_links[*(const uint32_t *)pb];
	if (a->op_start != b->op_start)
		return a->op_start < b->op_start ? -1 : 1;
	if (a->k_start != b->k_start)
		return a->k_start < b->k_start ? -1 : 1;
	if (a->k_end != b->k_end)
		return a->k_end < b->k_end ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

struct rec_ix {
	int64_t start;
	uint32_t pos;
};

static int cmp_rec(const void *pa, const void *pb)
{
	const struct rec_ix *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->pos > b->pos) - (a->pos < b->pos);
}

static void sort_idx(uint32_t *v, size_t n, const struct opmfu_link *links,
		     int (*cmp)(const void *, const void *));

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
	size_t h = (size_t)mix64((uint64_t)a * 31 + (uint64_t)b) & (s->cap - 1);
	while (s->slot[h].gen == s->gen) {
		if (s->slot[h].a == a && s->slot[h].b == b)
			return 0;
		h = (h + 1) & (s->cap - 1);
	}
	s->slot[h] = (struct pair_slot){ a, b, s->gen };
	return 1;
}

/* ---- kernel key table ---- */

static int key_table_init(struct opmfu_op_mfu *res, size_t n_entries)
{
	size_t cap = 16;
	while (cap < n_entries * 2)
		cap *= 2;
	res->key_first = opmfu_malloc(cap * sizeof(*res->key_first));
	if (!res->key_first)
		return -1;
	memset(res->key_first, 0xff, cap * sizeof(*res->key_first));
	res->key_cap = cap;
	return 0;
}

uint32_t opmfu_op_mfu_first(const struct opmfu_op_mfu *res, const struct opmfu_trace *t,
			    const struct opmfu_link *link)
{
	size_t h;
	if (!res->key_cap)
		return OPMFU_NO_ENTRY;
	h = (size_t)key_hash(link) & (res->key_cap - 1);
	while (res->key_first[h] != OPMFU_NO_ENTRY) {
		uint32_t e = res->key_first[h];
		if (same_key(&t->links[res->m[e].link], link))
			return e;
		h = (h + 1) & (res->key_cap - 1);
	}
	return OPMFU_NO_ENTRY;
}

/* Chains every entry after the previous one of its key, in M order. */
static int build_key_chains(struct opmfu_op_mfu *res, const struct opmfu_trace *t)
{
	uint32_t *last;
	size_t i;

	if (key_table_init(res, res->n_m))
		return -1;
	last = opmfu_malloc(res->key_cap * sizeof(*last));
	if (!last)
		return -1;
	for (i = 0; i < res->n_m; i++) {
		const struct opmfu_link *l = &t->links[res->m[i].link];
		size_t h = (size_t)key_hash(l) & (res->key_cap - 1);
		res->m[i].next = OPMFU_NO_ENTRY;
		while (res->key_first[h] != OPMFU_NO_ENTRY &&
		       !same_key(&t->links[res->m[res->key_first[h]].link], l))
			h = (h + 1) & (res->key_cap - 1);
		if (res->key_first[h] == OPMFU_NO_ENTRY) {
			res->key_first[h] = (uint32_t)i;
			res->stats.kernels_with_mfu++;
		} else {
			res->m[last[h]].next = (uint32_t)i;
		}
		last[h] = (uint32_t)i;
	}
	opmfu_free(last);
	return 0;
}

static int shape_ok(const struct opmfu_trace *t, uint32_t sid)
{
	return !opmfu_shape_is_na(opmfu_strtab_str(&t->strs, sid) ? opmfu_strtab_str(&t->strs, sid) : "",
				  opmfu_strtab_len(&t->strs, sid));
}

/* Index of the first S row whose op start is >= v. */
static size_t lower_bound(const uint32_t *s, size_t n, const struct opmfu_link *links, int64_t v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (links[s[mid]].op_start < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void sort_recs(struct opmfu_trace *t, struct rec_ix *ix)
{
	size_t i;
	for (i = 0; i < t->n_recs; i++)
		ix[i] = (struct rec_ix){ t->recs[i].start, (uint32_t)i };
	qsort(ix, t->n_recs, sizeof(*ix), cmp_rec);
}

enum opmfu_status opmfu_op_mfu_run(struct opmfu_trace *t, const struct opmfu_peaks *peaks,
				   struct opmfu_op_mfu *res, struct opmfu_err *err)
{
	uint32_t *s = NULL, *win = NULL;
	size_t n_s = 0, i, win_cap = 0;
	struct rec_ix *ix = NULL;
	struct opmfu_flops_rec *sorted = NULL;
	struct pair_set seen = { NULL, 0, 0 };
	enum opmfu_status st = OPMFU_OK;

	/* R: compute links in (op start, kernel start) order */
	res->n_r = t->n_compute;
	res->r = opmfu_malloc(res->n_r * sizeof(*res->r));
	s = opmfu_malloc(res->n_r * sizeof(*s));
	if (!res->r || !s)
		goto nomem;
	for (i = 0; i < res->n_r; i++)
		res->r[i] = (uint32_t)i;
	sort_idx(res->r, res->n_r, t->links, cmp_r);

	/* S: rows with shape information, not N/A */
	for (i = 0; i < res->n_r; i++) {
		const struct opmfu_link *l = &t->links[res->r[i]];
		if (shape_ok(t, l->in_shapes) && shape_ok(t, l->out_shapes))
			s[n_s++] = res->r[i];
	}
	sort_idx(s, n_s, t->links, cmp_s);

	/* records in start order (stable) */
	if (t->n_recs) {
		ix = opmfu_malloc(t->n_recs * sizeof(*ix));
		sorted = opmfu_malloc(t->n_recs * sizeof(*sorted));
		if (!ix || !sorted)
			goto nomem;
		sort_recs(t, ix);
		for (i = 0; i < t->n_recs; i++)
			sorted[i] = t->recs[ix[i].pos];
		memcpy(t->recs, sorted, t->n_recs * sizeof(*sorted));
	}

	for (i = 0; i < t->n_recs; i++) {
		const struct opmfu_flops_rec *rec = &t->recs[i];
		size_t lo = lower_bound(s, n_s, t->links, rec->start), hi = lo, k, n_win = 0;
		double total = 0;
		enum opmfu_dtclass cls;
		const char *dt;
		char bad[48];
		double peak;

		while (hi < n_s && t->links[s[hi]].op_start <= rec->end)
			hi++;
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
	opmfu_free(s);
	opmfu_free(win);
	opmfu_free(ix);
	opmfu_free(sorted);
	opmfu_free(seen.slot);
	return st;
}

/* ---- merge sort of index arrays (stable, no globals, thread-safe) ---- */

static void merge_pass(uint32_t *v, uint32_t *tmp, size_t n, int (*cmp)(const void *, const void *))
{
	size_t width;
	uint32_t *src = v, *dst = tmp;
	for (width = 1; width < n; width *= 2) {
		size_t lo;
		for (lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n;
			size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			size_t a = lo, b = mid, o = lo;
			while (a < mid && b < hi)
				dst[o++] = cmp(&src[b], &src[a]) < 0 ? src[b++] : src[a++];
			while (a < mid)
				dst[o++] = src[a++];
			while (b < hi)
				dst[o++] = src[b++];
		}
		{
			uint32_t *x = src;
			src = dst;
			dst = x;
		}
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
}

static void sort_idx(uint32_t *v, size_t n, const struct opmfu_link *links,
		     int (*cmp)(const void *, const void *))
{
	uint32_t *tmp;
	if (n < 2)
		return;
	sort_links = links;
	tmp = opmfu_malloc(n * sizeof(*tmp));
	if (!tmp) {
		qsort(v, n, sizeof(*v), cmp); /* comparators end on seq: still deterministic */
		return;
	}
	merge_pass(v, tmp, n, cmp);
	opmfu_free(tmp);
}
