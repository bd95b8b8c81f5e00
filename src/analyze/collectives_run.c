/*
 * collectives_run.c - the run's collectives (collectives.h): every rank's
 * calls matched by (kind, group, k-th call), their waits and culprits,
 * OpmfuCollectives, and the held OpmfuSteps completed with the waiting
 * only the other ranks could tell.
 */
#include "analyze/collectives.h"

#include <math.h>
#include <string.h>

#include "base/mem.h"
#include "base/sat.h"
#include "base/sort.h"
#include "trace/coll.h"

static void run_init(void *s)
{
	struct opmfu_coll_run *r = s;
	memset(r, 0, sizeof(*r));
	opmfu_intern_init(&r->strs, &r->ar);
	(void)opmfu_intern_add(&r->strs, "", 0); /* id 0: none (fails only out of memory: then ids shift, harmless) */
	opmfu_cell_store_init(&r->steps, NULL);
}

static void run_release(void *s)
{
	struct opmfu_coll_run *r = s;
	opmfu_free(r->v);
	opmfu_free(r->pieces);
	opmfu_intern_release(&r->strs);
	opmfu_arena_release(&r->ar);
	opmfu_cell_store_release(&r->steps);
	memset(r, 0, sizeof(*r));
}

static int64_t cell_i(const struct opmfu_cell *c)
{
	return c->null ? -1 : c->v.i;
}

/* The interned text of a cell, text column j of add_calls; 0 for NULL or
 * empty; UINT32_MAX out of memory. A rank's calls mostly repeat the row
 * before's texts (window, kind, group, dtype): compared, not looked up. */
static uint32_t cell_s(struct opmfu_coll_run *r, const struct opmfu_cell *c, int j)
{
	uint32_t id = r->last[j];
	if (c->null || !c->v.t.n)
		return 0;
	if (id && opmfu_intern_len(&r->strs, id) == c->v.t.n &&
	    !memcmp(opmfu_intern_str(&r->strs, id), c->v.t.s, c->v.t.n))
		return id;
	id = opmfu_intern_add(&r->strs, c->v.t.s, c->v.t.n);
	if (id == OPMFU_IDTAB_NONE)
		return UINT32_MAX;
	return r->last[j] = id;
}

/* "offset+length,..." into r->pieces; -1 when out of memory. Junk ends the list. */
static int parse_parts(struct opmfu_coll_run *r, const struct opmfu_cell *c, struct opmfu_run_call *k)
{
	const char *p = c->null ? NULL : c->v.t.s, *e = p ? p + c->v.t.n : NULL;
	k->piece = r->n_pieces;
	while (p && p < e) {
		int64_t v[2] = { 0, 0 };
		int j;
		for (j = 0; j < 2; j++) {
			const char *d = p;
			while (p < e && *p >= '0' && *p <= '9' && v[j] < INT64_MAX / 10)
				v[j] = v[j] * 10 + (*p++ - '0');
			if (p == d)
				return 0;
			if (j == 0 && (p == e || *p++ != '+'))
				return 0;
		}
		if (OPMFU_GROW(r->pieces, r->cap_pieces, r->n_pieces + 1))
			return -1;
		r->pieces[r->n_pieces].start = v[0];
		r->pieces[r->n_pieces++].end = opmfu_sat_add(v[0], v[1]);
		k->n_pieces++;
		if (p < e && *p++ != ',')
			return 0;
	}
	return 0;
}


static enum opmfu_status add_calls(struct opmfu_coll_run *r, const struct opmfu_table *t, struct opmfu_err *err)
{
	struct opmfu_cell c[OPMFU_CC_NCOL];
	size_t i;
	uint32_t kind_name = UINT32_MAX; /* the interned name whose kind is `kind`: calls repeat it */
	int kind = 0;
	if (t->def->n_cols != OPMFU_CC_NCOL)
		return opmfu_err_set(err, OPMFU_ERR_SCHEMA, "table %s with %zu columns, not %d", t->def->name,
				     t->def->n_cols, OPMFU_CC_NCOL);
	for (i = 0; i < t->n_rows; i++) {
		struct opmfu_run_call *k;
		uint32_t s[6];
		int j;
		t->row(t->src, i, c);
		if (OPMFU_GROW(r->v, r->cap, r->n + 1))
			goto nomem;
		k = &r->v[r->n];
		memset(k, 0, sizeof(*k));
		s[0] = cell_s(r, &c[OPMFU_CC_WIN], 0);
		s[1] = cell_s(r, &c[OPMFU_CC_NAME], 1);
		s[2] = cell_s(r, &c[OPMFU_CC_OP], 2);
		s[3] = cell_s(r, &c[OPMFU_CC_GROUP], 3);
		s[4] = cell_s(r, &c[OPMFU_CC_DTYPE], 4);
		s[5] = cell_s(r, &c[OPMFU_CC_TRANSPORT], 5);
		for (j = 0; j < 6; j++)
			if (s[j] == UINT32_MAX)
				goto nomem;
		k->rank = (int)c[OPMFU_CC_RANK].v.i;
		k->step = c[OPMFU_CC_STEP].null ? OPMFU_NO_STEP : c[OPMFU_CC_STEP].v.i;
		k->win = s[0];
		k->name = s[1];
		if (s[1] != kind_name) {
			kind = opmfu_coll_kind_of(c[OPMFU_CC_NAME].v.t.s, c[OPMFU_CC_NAME].null ? 0 : c[OPMFU_CC_NAME].v.t.n);
			kind_name = s[1];
		}
		k->kind = kind;
		k->op_name = s[2];
		k->group = s[3];
		k->dtype = s[4];
		k->transport = s[5];
		k->ranks = c[OPMFU_CC_RANKS].null ? 0 : c[OPMFU_CC_RANKS].v.i;
		k->bytes = cell_i(&c[OPMFU_CC_BYTES]);
		k->start = c[OPMFU_CC_START].v.i;
		k->end = c[OPMFU_CC_END].v.i;
		k->exposed = cell_i(&c[OPMFU_CC_EXPOSED]);
		k->wait = cell_i(&c[OPMFU_CC_WAIT]);
		k->transfer = cell_i(&c[OPMFU_CC_TRANSFER]);
		k->link_bytes = cell_i(&c[OPMFU_CC_LINK]);
		k->link_ns = cell_i(&c[OPMFU_CC_LINK_NS]);
		k->wait_run = -1;
		if (parse_parts(r, &c[OPMFU_CC_PARTS], k))
			goto nomem;
		r->n++;
	}
	return OPMFU_OK;
nomem:
	return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory keeping the collectives");
}

static enum opmfu_status run_add(void *s, const struct opmfu_table *t, struct opmfu_err *err)
{
	struct opmfu_coll_run *r = s;
	if (t->def == &opmfu_coll_calls_def)
		return add_calls(r, t, err);
	if (t->def == &opmfu_steps_def) {
		if (!r->steps.def)
			r->steps.def = t->def;
		return opmfu_cell_store_add_table(&r->steps, t, err);
	}
	return OPMFU_OK;
}

static enum opmfu_status run_keep(void *s, struct opmfu_err *err)
{
	(void)err;
	struct opmfu_coll_run *r = s;
	r->n_kept = r->n;
	r->pieces_kept = r->n_pieces;
	r->steps_kept = r->steps.n_rows;
	return OPMFU_OK;
}

static void run_drop(void *s)
{
	struct opmfu_coll_run *r = s;
	r->n = r->n_kept;
	r->n_pieces = r->pieces_kept;
	opmfu_cell_store_truncate(&r->steps, r->steps_kept);
}

/* ---- matching ---- */

static int by_rank_start(const void *ctx, uint32_t a, uint32_t b)
{
	const struct opmfu_run_call *v = ctx;
	if (v[a].rank != v[b].rank)
		return v[a].rank < v[b].rank;
	if (v[a].start != v[b].start)
		return v[a].start < v[b].start;
	return a < b;
}

/* The key of a call: its kind (else its name in the trace) and its group (else its size). */
static int make_keys(struct opmfu_coll_run *r, struct opmfu_intern *keys)
{
	struct sbuf sb;
	size_t i;
	sbuf_init(&sb);
	for (i = 0; i < r->n; i++) {
		struct opmfu_run_call *k = &r->v[i], *p = i ? &r->v[i - 1] : NULL;
		uint32_t what = k->name ? k->name : k->op_name;
		/* a rank's calls mostly repeat the one before's key: no text to build */
		if (p && what == (p->name ? p->name : p->op_name) && k->group == p->group &&
		    (k->group || k->ranks == p->ranks)) {
			k->key = p->key;
			continue;
		}
		sbuf_reset(&sb);
		sbuf_add(&sb, opmfu_intern_str(&r->strs, what), opmfu_intern_len(&r->strs, what));
		if (k->group) {
			sbuf_add(&sb, "\x1fg", 2);
			sbuf_add(&sb, opmfu_intern_str(&r->strs, k->group), opmfu_intern_len(&r->strs, k->group));
		} else {
			sbuf_addf(&sb, "\x1fn%lld", (long long)k->ranks);
		}
		if (sb.oom || (k->key = opmfu_intern_add(keys, sb.buf, sb.len)) == OPMFU_IDTAB_NONE) {
			sbuf_release(&sb);
			return -1;
		}
	}
	sbuf_release(&sb);
	return 0;
}

/* The calls of one (key, k) across ranks: found by slot, not by sorting (docs/collectives.md). */
struct meet {
	size_t m;          /* calls */
	int min_rank, max_rank;
	uint32_t last;     /* the last to start: the latest start, then the lowest rank, then the first added */
};

static int match(struct opmfu_coll_run *r)
{
	struct opmfu_arena ar;
	struct opmfu_intern keys;
	uint32_t *ord = opmfu_malloc((r->n + 1) * sizeof(*ord));
	int64_t *count = NULL;
	size_t *base = NULL, slots = 0;
	struct meet *meet = NULL;
	int rc = -1;
	size_t i;

	memset(&ar, 0, sizeof(ar));
	opmfu_intern_init(&keys, &ar);
	if (!ord || make_keys(r, &keys) || !(count = opmfu_calloc(keys.n + 1, sizeof(*count))) ||
	    !(base = opmfu_calloc(keys.n + 1, sizeof(*base))))
		goto out;
	for (i = 0; i < r->n; i++)
		ord[i] = (uint32_t)i;
	/* one pass when the ranks' calls come in start order, as they do */
	if (opmfu_sort_idx(ord, r->n, by_rank_start, r->v))
		goto out;
	/* the k-th call of each key on each rank, in start order; base: a key's highest k */
	for (i = 0; i < r->n; i++) {
		struct opmfu_run_call *k = &r->v[ord[i]];
		if (i == 0 || k->rank != r->v[ord[i - 1]].rank)
			memset(count, 0, keys.n * sizeof(*count));
		k->seq = ++count[k->key];
		if ((size_t)k->seq > base[k->key])
			base[k->key] = (size_t)k->seq;
	}
	/* slot of (key, k): base[key] + k - 1, the keys' slots one after the other (at most n in all) */
	for (i = 0; i < keys.n; i++) {
		size_t b = base[i];
		base[i] = slots;
		slots += b;
	}
	if (!(meet = opmfu_calloc(slots + 1, sizeof(*meet))))
		goto out;
	for (i = 0; i < r->n; i++) {
		const struct opmfu_run_call *k = &r->v[i], *l;
		struct meet *e = &meet[base[k->key] + (size_t)k->seq - 1];
		if (!e->m++) {
			e->min_rank = e->max_rank = k->rank;
			e->last = (uint32_t)i;
			continue;
		}
		e->min_rank = k->rank < e->min_rank ? k->rank : e->min_rank;
		e->max_rank = k->rank > e->max_rank ? k->rank : e->max_rank;
		l = &r->v[e->last];
		if (k->start > l->start || (k->start == l->start && k->rank < l->rank))
			e->last = (uint32_t)i;
	}
	for (i = 0; i < r->n; i++) {
		struct opmfu_run_call *k = &r->v[i];
		const struct meet *e = &meet[base[k->key] + (size_t)k->seq - 1];
		int64_t w, len;
		/* one rank alone (or a rank's k-th call twice: a duplicated rank) says nothing of waiting */
		if (e->m < 2 || e->min_rank == e->max_rank)
			continue;
		w = r->v[e->last].start - k->start;
		len = k->end > k->start ? k->end - k->start : 0;
		k->matched = (int64_t)e->m;
		k->last_rank = r->v[e->last].rank;
		k->wait_run = w < 0 ? 0 : w > len ? len : w;
	}
	rc = 0;
out:
	opmfu_free(ord);
	opmfu_free(count);
	opmfu_free(base);
	opmfu_free(meet);
	opmfu_intern_release(&keys);
	opmfu_arena_release(&ar);
	return rc;
}

/* ---- OpmfuSteps' waiting ---- */

struct step_key {
	int rank;
	int64_t step; /* OPMFU_NO_STEP + 0/1/2: no step (the window kind's order) */
};

static int64_t win_step(int64_t step, const char *win, size_t n)
{
	if (step != OPMFU_NO_STEP)
		return step;
	if (n == 7 && !memcmp(win, "backlog", 7))
		return OPMFU_NO_STEP + 1;
	return OPMFU_NO_STEP + 2;
}

static int key_less(const void *ctx, uint32_t a, uint32_t b)
{
	const struct step_key *v = ctx;
	if (v[a].rank != v[b].rank)
		return v[a].rank < v[b].rank;
	if (v[a].step != v[b].step)
		return v[a].step < v[b].step;
	return a < b;
}

/* Exposed time of k's parts within [0, w) of its start. */
static int64_t exposed_within(const struct opmfu_coll_run *r, const struct opmfu_run_call *k, int64_t w)
{
	int64_t sum = 0;
	size_t i;
	for (i = 0; i < k->n_pieces; i++) {
		const struct opmfu_span *p = &r->pieces[k->piece + i];
		int64_t z = p->end < w ? p->end : w;
		if (z > p->start)
			sum = opmfu_sat_add(sum, z - p->start);
	}
	return sum;
}

static int fill_steps(struct opmfu_coll_run *r)
{
	const struct opmfu_table_def *def = r->steps.def;
	size_t n = r->steps.n_rows, i;
	int c_rank, c_step, c_kind, c_wait, c_share, c_win, c_exp;
	struct step_key *keys;
	uint32_t *ord;
	int64_t *acc;
	uint8_t *seen;
	int rc = -1;

	if (!def || !n)
		return 0;
	c_rank = opmfu_table_col(def, "rank_id");
	c_step = opmfu_table_col(def, "step");
	c_kind = opmfu_table_col(def, "kind");
	c_wait = opmfu_table_col(def, "comm_wait_ns");
	c_share = opmfu_table_col(def, "share_comm_wait");
	c_win = opmfu_table_col(def, "window_ns");
	c_exp = opmfu_table_col(def, "comm_exposed_ns");
	if (c_rank < 0 || c_step < 0 || c_kind < 0 || c_wait < 0 || c_share < 0 || c_win < 0 || c_exp < 0)
		return 0;
	keys = opmfu_malloc(n * sizeof(*keys));
	ord = opmfu_malloc(n * sizeof(*ord));
	acc = opmfu_calloc(n, sizeof(*acc));
	seen = opmfu_calloc(n, 1);
	if (!keys || !ord || !acc || !seen)
		goto out;
	for (i = 0; i < n; i++) {
		const struct opmfu_cell *row = r->steps.cells + i * def->n_cols;
		keys[i].rank = (int)row[c_rank].v.i;
		keys[i].step = win_step(row[c_step].null ? OPMFU_NO_STEP : row[c_step].v.i,
					row[c_kind].null ? "" : row[c_kind].v.t.s, row[c_kind].null ? 0 : row[c_kind].v.t.n);
		ord[i] = (uint32_t)i;
	}
	if (opmfu_sort_idx(ord, n, key_less, keys))
		goto out;
	for (i = 0; i < r->n; i++) {
		const struct opmfu_run_call *k = &r->v[i];
		struct step_key want = { k->rank, win_step(k->step, opmfu_intern_str(&r->strs, k->win),
							    opmfu_intern_len(&r->strs, k->win)) };
		size_t lo = 0, hi = n;
		if (k->wait >= 0 || k->wait_run < 0 || !k->win)
			continue; /* the trace measured it (already in OpmfuSteps), or nobody did */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			const struct step_key *x = &keys[ord[mid]];
			if (x->rank < want.rank || (x->rank == want.rank && x->step < want.step))
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < n && keys[ord[lo]].rank == want.rank && keys[ord[lo]].step == want.step) {
			acc[ord[lo]] = opmfu_sat_add(acc[ord[lo]], exposed_within(r, k, k->wait_run));
			seen[ord[lo]] = 1;
		}
	}
	/* every row of a rank with a matched call (its other rows waited 0) */
	for (i = 0; i < n;) {
		size_t j, any = 0;
		for (j = i; j < n && keys[ord[j]].rank == keys[ord[i]].rank; j++)
			any |= seen[ord[j]];
		for (; any && i < j; i++) {
			struct opmfu_cell *row = r->steps.cells + (size_t)ord[i] * def->n_cols;
			int64_t w = acc[ord[i]], exp = row[c_exp].null ? 0 : row[c_exp].v.i, win = row[c_win].v.i;
			if (!row[c_wait].null)
				continue;
			if (w > exp)
				w = exp; /* a call's waiting is charged to the window holding its start */
			row[c_wait] = opmfu_cell_int(w);
			row[c_share] = !row[c_win].null && win > 0 ? opmfu_cell_real((double)w / (double)win)
								   : opmfu_cell_null();
		}
		i = j;
	}
	rc = 0;
out:
	opmfu_free(keys);
	opmfu_free(ord);
	opmfu_free(acc);
	opmfu_free(seen);
	return rc;
}

static enum opmfu_status run_finish(void *s, const struct opmfu_run_ctx *ctx, struct opmfu_err *err)
{
	(void)ctx;
	struct opmfu_coll_run *r = s;
	if (match(r) || fill_steps(r))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory matching the collectives across ranks");
	return OPMFU_OK;
}

/* ---- OpmfuCollectives ---- */

static const struct opmfu_column cols[] = {
	{ "rank_id", OPMFU_COL_INT, "Rank ID", 0, 0 },
	{ "step", OPMFU_COL_INT, "Step", 0, 0 },
	{ "name", OPMFU_COL_TEXT, "Collective", 14, 0 },
	{ "group", OPMFU_COL_TEXT, "Group", 24, 0 },
	{ "ranks_in_group", OPMFU_COL_INT, "Ranks in Group", 0, 0 },
	{ "dtype", OPMFU_COL_TEXT, "Dtype", 0, 0 },
	{ "bytes", OPMFU_COL_INT, "Bytes", 15, 0 },
	{ "start_ns", OPMFU_COL_INT, "Start(ns)", 21, OPMFU_COLF_BIG_INT_TEXT },
	{ "end_ns", OPMFU_COL_INT, "End(ns)", 21, OPMFU_COLF_BIG_INT_TEXT },
	{ "time_ns", OPMFU_COL_INT, "Time(ns)", 15, 0 },
	{ "exposed_ns", OPMFU_COL_INT, "Exposed(ns)", 15, 0 },
	{ "wait_ns", OPMFU_COL_INT, "Wait(ns)", 15, 0 },
	{ "transfer_ns", OPMFU_COL_INT, "Transfer(ns)", 15, 0 },
	{ "algbw_gbps", OPMFU_COL_REAL, "Algorithm Bandwidth (GB/s)", 0, 0 },
	{ "busbw_gbps", OPMFU_COL_REAL, "Bus Bandwidth (GB/s)", 0, 0 },
	{ "op_name", OPMFU_COL_TEXT, "Name in Trace", 40, 0 },
	{ "call", OPMFU_COL_INT, "Call", 0, 0 },
	{ "ranks_matched", OPMFU_COL_INT, "Ranks Matched", 0, 0 },
	{ "last_rank", OPMFU_COL_INT, "Last to Arrive", 0, 0 },
	{ "wait_source", OPMFU_COL_TEXT, "Wait From", 0, 0 },
	{ "idle_ns", OPMFU_COL_INT, "Idle(ns)", 15, 0 },
	{ "link_bytes", OPMFU_COL_INT, "Link Bytes", 15, 0 },
	{ "transport", OPMFU_COL_TEXT, "Transport", 0, 0 },
	{ "link_gbps", OPMFU_COL_REAL, "Link Bandwidth (GB/s)", 0, 0 },
	{ "link_ns", OPMFU_COL_INT, "Link Time(ns)", 15, 0 },
};
const struct opmfu_table_def opmfu_collectives_def = { "OpmfuCollectives", cols, sizeof(cols) / sizeof(cols[0]),
						       NULL, 0, NULL };

static struct opmfu_cell str_cell(const struct opmfu_coll_run *r, uint32_t id)
{
	return id ? opmfu_cell_text(opmfu_intern_str(&r->strs, id), opmfu_intern_len(&r->strs, id)) : opmfu_cell_null();
}

static struct opmfu_cell known(int64_t v)
{
	return v >= 0 ? opmfu_cell_int(v) : opmfu_cell_null();
}

static void coll_row(const void *src, size_t i, struct opmfu_cell *c)
{
	const struct opmfu_coll_run *r = src;
	const struct opmfu_run_call *k = &r->v[i];
	int64_t time = k->end > k->start ? k->end - k->start : 0;
	int64_t wait = k->wait >= 0 ? k->wait : k->wait_run;
	int64_t transfer = k->transfer >= 0 ? k->transfer : k->wait < 0 && k->wait_run >= 0 ? time - k->wait_run : -1;
	double bus = opmfu_coll_bus_factor(k->kind, k->ranks);
	double alg = k->bytes >= 0 && time > 0 ? (double)k->bytes / (double)time : -1; /* bytes per ns = GB/s */

	c[0] = opmfu_cell_int(k->rank);
	c[1] = k->step == OPMFU_NO_STEP ? opmfu_cell_null() : opmfu_cell_int(k->step);
	c[2] = str_cell(r, k->name);
	c[3] = str_cell(r, k->group);
	c[4] = k->ranks > 0 ? opmfu_cell_int(k->ranks) : opmfu_cell_null();
	c[5] = str_cell(r, k->dtype);
	c[6] = known(k->bytes);
	c[7] = opmfu_cell_int(k->start);
	c[8] = opmfu_cell_int(k->end);
	c[9] = opmfu_cell_int(time);
	c[10] = known(k->exposed);
	c[11] = known(wait);
	c[12] = known(transfer);
	c[13] = opmfu_cell_known(alg);
	c[14] = alg >= 0 && bus > 0 ? opmfu_cell_real(alg * bus) : opmfu_cell_null();
	c[15] = str_cell(r, k->op_name);
	c[16] = opmfu_cell_int(k->seq);
	c[17] = k->matched ? opmfu_cell_int(k->matched) : opmfu_cell_null();
	c[18] = k->matched ? opmfu_cell_int(k->last_rank) : opmfu_cell_null();
	c[19] = k->wait >= 0 ? opmfu_cell_str("trace") : k->wait_run >= 0 ? opmfu_cell_str("ranks") : opmfu_cell_null();
	c[20] = k->wait >= 0 && k->transfer >= 0 ? opmfu_cell_int(time > k->wait + k->transfer ? time - k->wait - k->transfer
											       : 0)
						 : opmfu_cell_null();
	c[21] = known(k->link_bytes);
	c[22] = str_cell(r, k->transport);
	c[23] = k->link_bytes >= 0 && k->link_ns > 0 ? opmfu_cell_real((double)k->link_bytes / (double)k->link_ns)
						     : opmfu_cell_null();
	c[24] = known(k->link_ns);
}
_Static_assert(sizeof(cols) / sizeof(cols[0]) == 25, "coll_row fills every column");

static size_t run_tables(void *s, struct opmfu_table *out)
{
	struct opmfu_coll_run *r = s;
	size_t n = 0;
	if (r->steps.def)
		out[n++] = opmfu_cell_store_table(&r->steps);
	out[n].def = &opmfu_collectives_def;
	out[n].n_rows = r->n;
	out[n].row = coll_row;
	out[n].src = r;
	return n + 1;
}

static const char *const run_needs[] = { "OpmfuSteps", "OpmfuCollCalls", NULL };
static const struct opmfu_table_def *const run_makes[] = { &opmfu_collectives_def, NULL };

const struct opmfu_analysis opmfu_analysis_collectives_run = {
	.name = "collectives_run", .scope = OPMFU_PER_RUN, .needs = run_needs, .makes = run_makes,
	.state_size = sizeof(struct opmfu_coll_run), .init = run_init, .release = run_release, .add = run_add,
	.keep = run_keep, .drop = run_drop, .finish = run_finish, .run_tables = run_tables,
};
