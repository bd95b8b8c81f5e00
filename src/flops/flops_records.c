/*
 * flops_records.c - the `record` FLOPs source (SPEC 2 steps 2-3, SPEC 9):
 * each FLOPs range of the trace covers the kernels of the op instances that
 * start inside it. S (the compute links with known shapes, in (op start,
 * kernel start, kernel end, index) order) is made from R while the ranges
 * are still being read; the ranges are then visited in start order, so the
 * first S row of each only moves forward, and the cost is one pass over S
 * plus the size of the output.
 */
#include "flops/flops.h"


#include "base/idtab.h"
#include "base/mem.h"
#include "base/sort.h"

/* What prepare leaves for the run. */
struct rec_state {
	uint32_t *s;      /* S: link indexes */
	int64_t *s_start; /* their op starts side by side, for the range searches */
	size_t n_s;
};

static void free_state(void *state)
{
	struct rec_state *rs = state;
	if (!rs)
		return;
	opmfu_free(rs->s);
	opmfu_free(rs->s_start);
	opmfu_free(rs);
}

/* S: (op start, kernel start, kernel end, index) */
static int less_s(const void *ctx, uint32_t ia, uint32_t ib)
{
	const struct opmfu_link *a = (const struct opmfu_link *)ctx + ia, *b = (const struct opmfu_link *)ctx + ib;
	if (a->op_start != b->op_start)
		return a->op_start < b->op_start;
	if (a->k_start != b->k_start)
		return a->k_start < b->k_start;
	if (a->k_end != b->k_end)
		return a->k_end < b->k_end;
	return ia < ib;
}

static int prepare(const struct opmfu_trace *t, const uint32_t *by_op, size_t n_by_op, void **state)
{
	struct rec_state *rs = opmfu_calloc(1, sizeof(*rs));
	size_t i;

	*state = NULL;
	if (!rs)
		return -1;
	rs->s = opmfu_malloc((n_by_op ? n_by_op : 1) * sizeof(*rs->s));
	if (!rs->s)
		goto nomem;
	/* rows with shape information (SPEC 2 step 2); R's order already sorts
	 * all but ties of (op start, kernel start), so this sort is one pass */
	for (i = 0; i < n_by_op; i++) {
		const struct opmfu_link *l = &t->links[by_op[i]];
		if (l->in_shapes != t->shape_unknown && l->out_shapes != t->shape_unknown)
			rs->s[rs->n_s++] = by_op[i];
	}
	if (opmfu_sort_idx(rs->s, rs->n_s, less_s, t->links))
		goto nomem;
	rs->s_start = opmfu_malloc((rs->n_s ? rs->n_s : 1) * sizeof(*rs->s_start));
	if (!rs->s_start)
		goto nomem;
	for (i = 0; i < rs->n_s; i++)
		rs->s_start[i] = t->links[rs->s[i]].op_start;
	*state = rs;
	return 0;
nomem:
	free_state(rs);
	return -1;
}

/* The per-record set of (kernel start, kernel end): an idtab over the
 * window's positions, cleared in O(1) for each record. */
struct pair_probe {
	const struct opmfu_link *links;
	const uint32_t *win;
	int64_t a, b;
};

static int pair_eq(const void *probe, uint32_t id)
{
	const struct pair_probe *p = probe;
	const struct opmfu_link *l = &p->links[p->win[id]];
	return l->k_start == p->a && l->k_end == p->b;
}

/* SPEC 2 step 3: per record, in start order, the S rows whose op start lies
 * in [start, end], later duplicates of (kernel start, kernel end) left out. */
static int run(struct opmfu_flops *fl, const struct opmfu_trace *t, void *state)
{
	const struct rec_state *rs = state;
	const struct opmfu_ranges *recs = &t->recs;
	struct opmfu_idtab seen;
	struct pair_probe p = { t->links, NULL, 0, 0 };
	size_t i, lo = 0;
	int rc = -1;

	opmfu_idtab_init(&seen);
	if (OPMFU_RESERVE(fl->facts, fl->cap_facts, fl->n_facts + recs->n))
		goto out;
	for (i = 0; i < recs->n; i++) {
		const struct opmfu_range *rec = &recs->v[i];
		struct opmfu_flops_fact f = { rec->value, rec->name, rec->name_off, 0, 0, OPMFU_FLOPS_RECORD,
					      (uint32_t)i };
		size_t hi, k, n = 0;
		uint32_t *win;

		/* first S row with op start >= record start: starts only grow */
		while (lo < rs->n_s && rs->s_start[lo] < rec->start)
			lo++;
		for (hi = lo; hi < rs->n_s && rs->s_start[hi] <= rec->end; hi++)
			;
		if (hi == lo) {
			fl->drops[OPMFU_DROP_NO_KERNEL]++;
			continue;
		}
		/* room for 3/2 of the window: at most half full, as a probe is cheapest */
		opmfu_idtab_clear(&seen);
		if (opmfu_idtab_reserve(&seen, (hi - lo) * 3 / 2 + 1) || !(win = opmfu_flops_room(fl, hi - lo)))
			goto out;
		p.win = win;
		for (k = lo; k < hi; k++) {
			const struct opmfu_link *l = &t->links[rs->s[k]];
			uint32_t id;
			p.a = l->k_start;
			p.b = l->k_end;
			id = opmfu_idtab_get(&seen, opmfu_mix64((uint64_t)p.a * 31 + (uint64_t)p.b), pair_eq, &p,
					     (uint32_t)n);
			if (id == OPMFU_IDTAB_NONE)
				goto out;
			if (id == n)
				win[n++] = rs->s[k];
		}
		if (opmfu_flops_add(fl, &f, n))
			goto out;
	}
	rc = 0;
out:
	opmfu_idtab_release(&seen);
	return rc;
}

const struct opmfu_flops_source opmfu_flops_records = { OPMFU_FLOPS_RECORD, prepare, run, free_state };
