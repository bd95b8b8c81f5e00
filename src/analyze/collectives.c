/*
 * collectives.c - the ranks' collective calls, matched across the run
 * (collectives.h).
 */
#include "analyze/collectives.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/ops.h"
#include "base/mem.h"
#include "base/sat.h"
#include "base/sort.h"
#include "trace/trace.h"

/* ---- per rank ---- */

void opmfu_coll_rank_init(struct opmfu_coll_rank *res)
{
	memset(res, 0, sizeof(*res));
	sbuf_init(&res->buf);
}

void opmfu_coll_rank_release(struct opmfu_coll_rank *res)
{
	opmfu_free(res->v);
	sbuf_release(&res->buf);
	opmfu_coll_rank_init(res);
}

static int win_less(const void *ctx, uint32_t a, uint32_t b)
{
	const struct opmfu_step_row *v = ctx;
	if (v[a].start != v[b].start)
		return v[a].start < v[b].start;
	return a < b;
}

/* The row of the window holding ts among the non-empty windows ord[0 .. n) (by start); -1: none. */
static int32_t row_at(const struct opmfu_steps *s, const uint32_t *ord, size_t n, int64_t ts)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->v[ord[mid]].start <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && ts < s->v[ord[lo - 1]].end ? (int32_t)ord[lo - 1] : -1;
}

/* The exposed parts of [a, z) (steps->exposed: disjoint, in order) into c and res->buf. */
static void exposed_parts(struct opmfu_coll_rank *res, struct opmfu_coll_call *c, int64_t a, int64_t z)
{
	const struct opmfu_steps *s = res->steps;
	size_t lo = 0, hi = s->n_exposed, k;
	int first = 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->exposed[mid].end <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	c->text = res->buf.len;
	for (k = lo; k < s->n_exposed && s->exposed[k].start < z; k++) {
		int64_t p = s->exposed[k].start > a ? s->exposed[k].start : a;
		int64_t q = s->exposed[k].end < z ? s->exposed[k].end : z;
		if (q <= p)
			continue;
		c->exposed_ns = opmfu_sat_add(c->exposed_ns, q - p);
		/* "offset+length": by hand, this runs once per exposed piece of every call */
		if (!first)
			sbuf_add(&res->buf, ",", 1);
		sbuf_add_i64(&res->buf, p - a);
		sbuf_add(&res->buf, "+", 1);
		sbuf_add_i64(&res->buf, q - p);
		first = 0;
	}
	c->text_n = res->buf.len - c->text;
}

enum opmfu_status opmfu_coll_rank_run(const struct opmfu_trace *t, const struct opmfu_steps *steps,
				      struct opmfu_coll_rank *res, struct opmfu_err *err)
{
	size_t n = t->colls.n, i, n_win = 0;
	uint32_t *ord = opmfu_malloc((steps->n + 1) * sizeof(*ord));

	res->t = t;
	res->steps = steps;
	if (!ord || !(res->v = opmfu_calloc(n + 1, sizeof(*res->v))))
		goto nomem;
	for (i = 0; i < steps->n; i++)
		if (steps->v[i].end > steps->v[i].start)
			ord[n_win++] = (uint32_t)i;
	if (opmfu_sort_idx(ord, n_win, win_less, steps->v))
		goto nomem;
	for (i = 0; i < n; i++) {
		const struct opmfu_coll *c = &t->colls.v[i];
		struct opmfu_coll_call *r = &res->v[res->n++];
		r->coll = (uint32_t)i;
		r->row = row_at(steps, ord, n_win, c->start);
		if (c->end > c->start)
			exposed_parts(res, r, c->start, c->end);
	}
	if (res->buf.oom)
		goto nomem;
	opmfu_free(ord);
	return OPMFU_OK;
nomem:
	opmfu_free(ord);
	opmfu_coll_rank_release(res);
	return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory listing the collectives");
}

static const struct opmfu_column call_cols[] = {
	{ "rank_id", OPMFU_COL_INT, "Rank ID", 0, 0 },	      { "step", OPMFU_COL_INT, "Step", 0, 0 },
	{ "window", OPMFU_COL_TEXT, "Window", 0, 0 },	      { "name", OPMFU_COL_TEXT, "Name", 0, 0 },
	{ "op_name", OPMFU_COL_TEXT, "Op Name", 0, 0 },	      { "group", OPMFU_COL_TEXT, "Group", 0, 0 },
	{ "ranks_in_group", OPMFU_COL_INT, "Ranks", 0, 0 },   { "dtype", OPMFU_COL_TEXT, "Dtype", 0, 0 },
	{ "bytes", OPMFU_COL_INT, "Bytes", 0, 0 },	      { "start_ns", OPMFU_COL_INT, "Start(ns)", 0, 0 },
	{ "end_ns", OPMFU_COL_INT, "End(ns)", 0, 0 },	      { "exposed_ns", OPMFU_COL_INT, "Exposed(ns)", 0, 0 },
	{ "wait_ns", OPMFU_COL_INT, "Wait(ns)", 0, 0 },	      { "transfer_ns", OPMFU_COL_INT, "Transfer(ns)", 0, 0 },
	{ "link_bytes", OPMFU_COL_INT, "Link Bytes", 0, 0 },  { "transport", OPMFU_COL_TEXT, "Transport", 0, 0 },
	{ "exposed_parts", OPMFU_COL_TEXT, "Exposed Parts", 0, 0 }, { "link_ns", OPMFU_COL_INT, "Link Time(ns)", 0, 0 },
};
_Static_assert(OPMFU_CC_NCOL == sizeof(call_cols) / sizeof(call_cols[0]), "OpmfuCollCalls' columns");

/* the rank's calls for the run's collectives; the exposed parts are "offset+length,..." in ns from the start */
const struct opmfu_table_def opmfu_coll_calls_def = { "OpmfuCollCalls", call_cols, OPMFU_CC_NCOL, NULL,
						      OPMFU_TABLE_HELD | OPMFU_TABLE_INTERNAL, NULL };

static struct opmfu_cell sid_cell(const struct opmfu_trace *t, uint32_t sid)
{
	return sid && sid < t->strs.n ? opmfu_cell_text(opmfu_strtab_str(&t->strs, sid), opmfu_strtab_len(&t->strs, sid))
				      : opmfu_cell_null();
}

static struct opmfu_cell known(int64_t v)
{
	return v >= 0 ? opmfu_cell_int(v) : opmfu_cell_null();
}

static void call_row(const void *src, size_t i, struct opmfu_cell *c)
{
	static const char *const win_name[] = { "step", "backlog", "trace" };
	const struct opmfu_coll_rank *res = src;
	const struct opmfu_coll_call *r = &res->v[i];
	const struct opmfu_coll *k = &res->t->colls.v[r->coll];
	const struct opmfu_step_row *s = r->row >= 0 ? &res->steps->v[r->row] : NULL;

	c[OPMFU_CC_RANK] = opmfu_cell_int(res->rank);
	c[OPMFU_CC_STEP] = s && s->step != OPMFU_NO_STEP ? opmfu_cell_int(s->step) : opmfu_cell_null();
	c[OPMFU_CC_WIN] = s ? opmfu_cell_str(win_name[s->kind]) : opmfu_cell_null();
	c[OPMFU_CC_NAME] = opmfu_cell_str(opmfu_coll_kind_name(k->kind));
	c[OPMFU_CC_OP] = sid_cell(res->t, k->name);
	c[OPMFU_CC_GROUP] = sid_cell(res->t, k->group);
	c[OPMFU_CC_RANKS] = k->ranks > 0 ? opmfu_cell_int(k->ranks) : opmfu_cell_null();
	c[OPMFU_CC_DTYPE] = sid_cell(res->t, k->dtype);
	c[OPMFU_CC_BYTES] = known(k->bytes);
	c[OPMFU_CC_START] = opmfu_cell_int(k->start);
	c[OPMFU_CC_END] = opmfu_cell_int(k->end);
	c[OPMFU_CC_EXPOSED] = opmfu_cell_int(r->exposed_ns);
	c[OPMFU_CC_WAIT] = known(k->wait_ns);
	c[OPMFU_CC_TRANSFER] = known(k->transfer_ns);
	c[OPMFU_CC_LINK] = known(k->link_bytes);
	c[OPMFU_CC_TRANSPORT] = sid_cell(res->t, k->transport);
	c[OPMFU_CC_PARTS] = opmfu_cell_text(res->buf.buf + r->text, r->text_n);
	c[OPMFU_CC_LINK_NS] = known(k->link_ns);
}

struct opmfu_table opmfu_coll_calls_table(const struct opmfu_coll_rank *res)
{
	struct opmfu_table tab = { &opmfu_coll_calls_def, res->n, call_row, res };
	return tab;
}

static void cr_init(void *s)
{
	opmfu_coll_rank_init(s);
}

static void cr_release(void *s)
{
	opmfu_coll_rank_release(s);
}

static enum opmfu_status cr_run(void *s, const struct opmfu_rank_ctx *ctx, struct opmfu_err *err)
{
	struct opmfu_steps_state *steps = opmfu_rank_state(ctx, &opmfu_analysis_steps);
	struct opmfu_coll_rank *res = s;
	res->rank = ctx->rank;
	if (!steps)
		return OPMFU_OK;
	return opmfu_coll_rank_run(ctx->trace, &steps->steps, res, err);
}

static enum opmfu_status cr_tables(void *s, const struct opmfu_rank_ctx *ctx, struct opmfu_table *out, size_t *n,
				   struct opmfu_err *err)
{
	(void)err;
	struct opmfu_coll_rank *res = s;
	res->rank = ctx->rank;
	*n = 0;
	if (res->t)
		out[(*n)++] = opmfu_coll_calls_table(res);
	return OPMFU_OK;
}

static const char *const cr_needs[] = { "steps", NULL };
static const struct opmfu_table_def *const cr_makes[] = { &opmfu_coll_calls_def, NULL };

const struct opmfu_analysis opmfu_analysis_collectives = {
	.name = "collectives", .scope = OPMFU_PER_RANK, .stage = OPMFU_STAGE_UNITS, .needs = cr_needs,
	.makes = cr_makes, .state_size = sizeof(struct opmfu_coll_rank), .init = cr_init, .release = cr_release,
	.run = cr_run, .tables = cr_tables,
};
