/*
 * op_mfu.c - SPEC 2 steps 4-6 from the FLOPs stage's facts: each fact's
 * FLOPs charged to every kernel it covers. Entries are chained per kernel
 * key, and every link gets the first entry of its key once (res->first),
 * which is how rows of R, module_mfu and the writers find their entries
 * (SPEC 2.6) with one array read.
 */
#include "reference/op_mfu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/sort.h"
#include "trace/parse.h"

void opmfu_op_mfu_init(struct opmfu_op_mfu *res)
{
	memset(res, 0, sizeof(*res));
}

/* What prepare leaves for run; run frees it when done with it. */
static void free_prepared(struct opmfu_op_mfu *res)
{
	opmfu_free(res->key);
	res->key = NULL;
}

void opmfu_op_mfu_drop_entries(struct opmfu_op_mfu *res)
{
	opmfu_free(res->r);
	opmfu_free(res->m);
	opmfu_free(res->first);
	free_prepared(res);
	res->r = NULL;
	res->m = NULL;
	res->first = NULL;
	res->n_r = res->n_m = res->cap_m = res->n_first = 0;
}

void opmfu_op_mfu_release(struct opmfu_op_mfu *res)
{
	opmfu_op_mfu_drop_entries(res);
	opmfu_op_mfu_init(res);
}

static int same_key(const struct opmfu_link *a, const struct opmfu_link *b)
{
	return a->k_start == b->k_start && a->k_end == b->k_end && a->k_name == b->k_name;
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

enum opmfu_status opmfu_op_mfu_prepare(const struct opmfu_trace *t, struct opmfu_op_mfu *res,
				       struct opmfu_err *err)
{
	if (res->key) /* prepared already */
		return OPMFU_OK;
	/* R: compute links in (op start, kernel start) order */
	res->n_r = t->n_compute;
	res->r = opmfu_malloc((res->n_r ? res->n_r : 1) * sizeof(*res->r));
	if (!res->r || opmfu_trace_op_order(t, res->r) || number_keys(res, t)) {
		opmfu_free(res->r);
		res->r = NULL;
		res->n_r = 0;
		free_prepared(res);
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory computing kernel MFU");
	}
	return OPMFU_OK;
}

/* The reference's classes (SPEC 2.4) as SPEC 8's: its fp16 class (FLOAT,
 * FLOAT16, BF16) divides by the fp16 peak, whatever the fp32 one is. */
static const int8_t ref_prec[OPMFU_DT__COUNT] = {
	[OPMFU_DT_FP16] = OPMFU_PREC_FP16,
	[OPMFU_DT_INT8] = OPMFU_PREC_INT8,
	[OPMFU_DT_FP8] = OPMFU_PREC_FP8,
};

/* The SPEC 8 class whose peak a fact with first kernel dtype dt divides by,
 * or < 0 when it has none (unsupported, or no data dtype). */
static int fact_class(const struct opmfu_trace *t, const struct opmfu_dtype *dt)
{
	if (t->ref_classes)
		return dt->ref >= 0 && dt->ref < OPMFU_DT__COUNT ? ref_prec[dt->ref] : -1;
	return dt->prec >= 0 && dt->prec < OPMFU_PREC__COUNT ? dt->prec : -1;
}

/* The summary's example of a dtype with no class: the reader's; under
 * SPEC 8's rule, which has no class for a list without a data dtype (the
 * reader leaves no example for one), the list as the trace has it, else
 * that there was none. */
static void note_bad_dtype(const struct opmfu_trace *t, const struct opmfu_dtype *dt, struct opmfu_op_mfu_stats *st)
{
	const char *text = dt->text ? opmfu_strtab_str(&t->strs, dt->text) : NULL;
	if (st->bad_dtype[0]) /* keep the first one seen */
		return;
	if (dt->example[0] || t->ref_classes)
		snprintf(st->bad_dtype, sizeof(st->bad_dtype), "%s", dt->example);
	else if (text && text[0])
		snprintf(st->bad_dtype, sizeof(st->bad_dtype), "%.40s", text);
	else
		snprintf(st->bad_dtype, sizeof(st->bad_dtype), "(no input dtype)");
}

/*
 * SPEC 2 steps 4-5 for one fact: the dtype of its first kernel, the total
 * duration, the peak; then an entry per kernel of positive duration.
 * Returns 0, or -1 when out of memory.
 */
static int charge_fact(const struct opmfu_trace *t, const struct opmfu_flops *fl,
		       const struct opmfu_rank_peaks *peaks, struct opmfu_op_mfu *res, size_t fi)
{
	const struct opmfu_flops_fact *f = &fl->facts[fi];
	const uint32_t *win = fl->cover + f->first;
	const struct opmfu_dtype *dt;
	double total = 0, peak;
	size_t k;
	int cls;

	if (!f->n) {
		res->stats.drops[OPMFU_DROP_NO_KERNEL]++;
		return 0;
	}
	for (k = 0; k < f->n; k++)
		total += (double)(t->links[win[k]].k_end - t->links[win[k]].k_start);
	dt = opmfu_trace_dtype(t, t->links[win[0]].dtype);
	if ((cls = fact_class(t, dt)) < 0) {
		res->stats.drops[OPMFU_DROP_DTYPE]++;
		note_bad_dtype(t, dt, &res->stats);
		return 0;
	}
	if (total <= 0) {
		res->stats.drops[OPMFU_DROP_DURATION]++;
		return 0;
	}
	peak = opmfu_rank_peak(peaks, cls);
	if (!(peak > 0)) {
		res->stats.drops[OPMFU_DROP_NO_PEAK]++;
		return 0;
	}
	if (f->src < OPMFU_FLOPS__NSRC)
		res->stats.used[f->src]++;
	res->stats.sum_flops += (double)f->flops;
	for (k = 0; k < f->n; k++) {
		const struct opmfu_link *l = &t->links[win[k]];
		int64_t dur = l->k_end - l->k_start;
		struct opmfu_mfu_entry *e;
		if (dur <= 0)
			continue;
		if (res->n_m >= UINT32_MAX - 1 || OPMFU_GROW(res->m, res->cap_m, res->n_m + 1))
			return -1;
		e = &res->m[res->n_m++];
		e->prec = (uint32_t)cls;
		e->link = win[k];
		e->fact = (uint32_t)fi;
		e->next = OPMFU_NO_ENTRY;
		res->stats.sum_capacity += (double)dur * 1e-9 * peak;
	}
	return 0;
}

enum opmfu_status opmfu_op_mfu_run(const struct opmfu_trace *t, const struct opmfu_flops *fl,
				   const struct opmfu_rank_peaks *peaks, struct opmfu_op_mfu *res,
				   struct opmfu_err *err)
{
	size_t i;
	enum opmfu_status st;

	if ((st = opmfu_op_mfu_prepare(t, res, err)))
		return st;
	res->fl = fl;
	res->t = t;
	for (i = 0; i < OPMFU_PREC__COUNT; i++)
		res->peak[i] = opmfu_rank_peak(peaks, (int)i);
	for (i = 0; i < fl->n_facts; i++)
		if (fl->facts[i].src == (t->shape_only ? OPMFU_FLOPS_SHAPE : OPMFU_FLOPS_RECORD) &&
		    charge_fact(t, fl, peaks, res, i))
			goto nomem;
	if (build_key_chains(res, t))
		goto nomem;
	for (i = 0; i < res->n_r; i++) {
		uint32_t e = opmfu_op_mfu_first(res, t, &t->links[res->r[i]]);
		for (; e != OPMFU_NO_ENTRY; e = res->m[e].next) {
			res->stats.rows++;
			/* rounded as the table writes it: what a user sees above 100 % */
			res->stats.rows_above_one += opmfu_round(opmfu_op_mfu_mfu(res, &res->m[e]), 4) > 1;
		}
	}
	goto out;
nomem:
	st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory computing kernel MFU");
out:
	free_prepared(res);
	return st;
}
