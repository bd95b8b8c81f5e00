/*
 * summary.c - the rows of the summary workbook, gathered over a run
 * (write/summary.h), and the orders and medians its sheets need.
 */
#include "write/summary.h"

#include <math.h>
#include <string.h>

#include "base/lbound.h"
#include "base/mem.h"
#include "base/sort.h"

/* The tables summed by name, and the columns that say what is not common
 * to both (NULL: the table has no such column). */
struct group_spec {
	const char *table, *key, *count, *depth, *own_lost;
};

static const struct group_spec mod_spec = { "OpmfuModules", "module", "calls", "depth", "self_lost_ns" };
static const struct group_spec op_spec = { "OpmfuOpTypes", "op_name", "ops", NULL, NULL };

static void group_init(struct opmfu_sum_group *g)
{
	memset(g, 0, sizeof(*g));
	opmfu_cell_store_init(&g->pending, NULL);
	opmfu_intern_init(&g->names, &g->ar);
}

static void group_release(struct opmfu_sum_group *g)
{
	opmfu_cell_store_release(&g->pending);
	opmfu_intern_release(&g->names);
	opmfu_arena_release(&g->ar);
	opmfu_free(g->v);
	group_init(g);
}

void opmfu_summary_init(struct opmfu_summary *s)
{
	memset(s, 0, sizeof(*s));
	opmfu_cell_store_init(&s->ranks, NULL);
	opmfu_cell_store_init(&s->steps, NULL);
	opmfu_cell_store_init(&s->diff, NULL);
	group_init(&s->modules);
	group_init(&s->op_types);
	s->stream_cells = OPMFU_SUMMARY_STREAM_CELLS;
}

void opmfu_summary_release(struct opmfu_summary *s)
{
	opmfu_cell_store_release(&s->ranks);
	opmfu_cell_store_release(&s->steps);
	opmfu_cell_store_release(&s->diff);
	group_release(&s->modules);
	group_release(&s->op_types);
	opmfu_summary_init(s);
}

int opmfu_sum_col(const struct opmfu_table_def *def, const char *name)
{
	size_t c;
	for (c = 0; def && name && c < def->n_cols; c++)
		if (!strcmp(def->cols[c].name, name))
			return (int)c;
	return -1;
}

double opmfu_sum_num(const struct opmfu_table_def *def, const struct opmfu_cell *row, int col)
{
	if (col < 0 || row[col].null)
		return NAN;
	switch (def->cols[col].type) {
	case OPMFU_COL_INT:
		return (double)row[col].v.i;
	case OPMFU_COL_REAL:
		return row[col].v.r;
	default:
		return NAN;
	}
}

/* A store takes the def of the first table given to it. */
static enum opmfu_status store_add(struct opmfu_cell_store *cs, const struct opmfu_table *t, struct opmfu_err *err)
{
	if (!cs->def)
		cs->def = t->def;
	return opmfu_cell_store_add_table(cs, t, err);
}

enum opmfu_status opmfu_summary_add(struct opmfu_summary *s, const struct opmfu_table *t, struct opmfu_err *err)
{
	const char *name = t->def->name;
	struct opmfu_sum_group *g = NULL;

	if (!strcmp(name, "OpmfuRankSummary"))
		return store_add(&s->ranks, t, err);
	if (!strcmp(name, "OpmfuSteps"))
		return store_add(&s->steps, t, err);
	if (!strcmp(name, "OpmfuDiff"))
		return store_add(&s->diff, t, err);
	if (!strcmp(name, mod_spec.table))
		g = &s->modules;
	else if (!strcmp(name, op_spec.table))
		g = &s->op_types;
	if (!g)
		return OPMFU_OK;
	if (!g->def)
		g->def = t->def;
	return store_add(&g->pending, t, err);
}

static double zero_if_nan(double v)
{
	return isnan(v) ? 0 : v;
}

/* Adds one row of a rank to the sums of its name. */
static enum opmfu_status fold_row(struct opmfu_sum_group *g, const struct group_spec *sp, const int *col,
				  const struct opmfu_cell *row, struct opmfu_err *err)
{
	const struct opmfu_table_def *def = g->def;
	const struct opmfu_cell *key = col[0] >= 0 ? &row[col[0]] : NULL;
	struct opmfu_sum_row *r;
	double mfu, fk, lost, rank, x;
	uint32_t id;

	/* a row without a name (a NULL module path) has nothing to be summed under */
	if (!key || key->null || def->cols[col[0]].type != OPMFU_COL_TEXT)
		return OPMFU_OK;
	id = opmfu_intern_add(&g->names, key->v.t.s, key->v.t.n);
	if (id == OPMFU_IDTAB_NONE || (id == g->n && OPMFU_GROW(g->v, g->cap, g->n + 1)))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory summing %s by %s", sp->table, sp->key);
	if (id == g->n) {
		r = &g->v[g->n++];
		memset(r, 0, sizeof(*r));
		r->name = id;
		r->depth = opmfu_sum_num(def, row, col[2]);
		r->own_lost_ns = col[8] >= 0 ? 0 : NAN;
		r->flops = NAN; /* until a row has FLOPs */
		r->worst_rank = r->worst_lost_ns = NAN;
	}
	r = &g->v[id];
	rank = opmfu_sum_num(def, row, col[1]);
	fk = zero_if_nan(opmfu_sum_num(def, row, col[5]));
	lost = zero_if_nan(opmfu_sum_num(def, row, col[7]));
	mfu = opmfu_sum_num(def, row, col[6]);
	r->ranks++;
	r->count += zero_if_nan(opmfu_sum_num(def, row, col[3]));
	r->kernel_ns += zero_if_nan(opmfu_sum_num(def, row, col[4]));
	r->flops_kernel_ns += fk;
	if (!isnan(x = opmfu_sum_num(def, row, col[9])))
		r->flops = zero_if_nan(r->flops) + x;
	r->lost_ns += lost;
	if (col[8] >= 0)
		r->own_lost_ns += zero_if_nan(opmfu_sum_num(def, row, col[8]));
	if (!isnan(mfu) && fk > 0) {
		r->mfu_ns += mfu * fk;
		r->mfu_base_ns += fk;
	}
	if (isnan(r->worst_lost_ns) || lost > r->worst_lost_ns) {
		r->worst_lost_ns = lost;
		r->worst_rank = rank;
	}
	return OPMFU_OK;
}

/* Adds the rank's rows to the sums and forgets them. */
static enum opmfu_status fold(struct opmfu_sum_group *g, const struct group_spec *sp, struct opmfu_err *err)
{
	const struct opmfu_cell_store *cs = &g->pending;
	enum opmfu_status st = OPMFU_OK;
	int col[10];
	size_t i;

	if (!g->def)
		return OPMFU_OK;
	col[0] = opmfu_sum_col(g->def, sp->key);
	col[1] = opmfu_sum_col(g->def, "rank_id");
	col[2] = opmfu_sum_col(g->def, sp->depth);
	col[3] = opmfu_sum_col(g->def, sp->count);
	col[4] = opmfu_sum_col(g->def, "kernel_ns");
	col[5] = opmfu_sum_col(g->def, "flops_kernel_ns");
	col[6] = opmfu_sum_col(g->def, "mfu");
	col[7] = opmfu_sum_col(g->def, "lost_ns");
	col[8] = opmfu_sum_col(g->def, sp->own_lost);
	col[9] = opmfu_sum_col(g->def, "flops");
	for (i = 0; i < cs->n_rows && st == OPMFU_OK; i++)
		st = fold_row(g, sp, col, cs->cells + i * g->def->n_cols, err);
	opmfu_cell_store_release(&g->pending);
	return st;
}

enum opmfu_status opmfu_summary_keep(struct opmfu_summary *s, struct opmfu_err *err)
{
	enum opmfu_status st;

	s->ranks_kept = s->ranks.n_rows;
	s->steps_kept = s->steps.n_rows;
	s->diff_kept = s->diff.n_rows;
	if ((st = fold(&s->modules, &mod_spec, err)))
		return st;
	return fold(&s->op_types, &op_spec, err);
}

void opmfu_summary_drop(struct opmfu_summary *s)
{
	opmfu_cell_store_truncate(&s->ranks, s->ranks_kept);
	opmfu_cell_store_truncate(&s->steps, s->steps_kept);
	opmfu_cell_store_truncate(&s->diff, s->diff_kept);
	opmfu_cell_store_release(&s->modules.pending);
	opmfu_cell_store_release(&s->op_types.pending);
}

int opmfu_summary_has_run(const struct opmfu_summary *s)
{
	return s->ranks.def || s->steps.def || s->modules.def || s->op_types.def;
}

int opmfu_summary_seen(const struct opmfu_summary *s)
{
	return opmfu_summary_has_run(s) || s->diff.def;
}

/* ---- the view ---- */

/* A step row's keys for finding each rank's median step. */
struct step_key {
	double rank, window_ns, step;
};

struct steps_ctx {
	const struct step_key *k;
};

/* By rank, then step time, then step number (NaN last), then row. */
static int step_less(const void *ctx, uint32_t a, uint32_t b)
{
	const struct step_key *k = ((const struct steps_ctx *)ctx)->k, *x = &k[a], *y = &k[b];
	if (x->rank != y->rank)
		return x->rank < y->rank;
	if (x->window_ns != y->window_ns)
		return isnan(y->window_ns) || x->window_ns < y->window_ns;
	return !isnan(x->step) && (isnan(y->step) || x->step < y->step);
}

struct rank_find {
	const struct step_key *k;
	const uint32_t *order;
};

static int rank_before(const void *ctx, size_t i, const void *key)
{
	const struct rank_find *f = ctx;
	return f->k[f->order[i]].rank < *(const double *)key;
}

/* Each rank row's median step: the middle of its steps by step time (the
 * shorter of the two middle ones for an even count), an actual step, so
 * its shares add up to 1. */
static enum opmfu_status median_steps(struct opmfu_sum_view *v, struct opmfu_err *err)
{
	const struct opmfu_summary *s = v->s;
	const struct opmfu_table_def *sd = s->steps.def;
	int c_rank = opmfu_sum_col(sd, "rank_id"), c_win = opmfu_sum_col(sd, "window_ns"), c_step = opmfu_sum_col(sd, "step");
	int r_rank = opmfu_sum_col(s->ranks.def, "rank_id");
	struct step_key *k = opmfu_calloc(v->n_steps ? v->n_steps : 1, sizeof(*k));
	uint32_t *order = opmfu_calloc(v->n_steps ? v->n_steps : 1, sizeof(*order));
	struct steps_ctx sc = { k };
	struct rank_find f = { k, order };
	size_t i, n = 0;

	if (!k || !order)
		goto nomem;
	for (i = 0; i < v->n_steps; i++) {
		const struct opmfu_cell *row = s->steps.cells + i * sd->n_cols;
		k[i].rank = opmfu_sum_num(sd, row, c_rank);
		k[i].window_ns = opmfu_sum_num(sd, row, c_win);
		k[i].step = opmfu_sum_num(sd, row, c_step);
		if (!isnan(k[i].rank))
			order[n++] = (uint32_t)i;
	}
	if (opmfu_sort_idx(order, n, step_less, &sc) != 0)
		goto nomem;
	for (i = 0; i < v->n_ranks; i++) {
		double rank = opmfu_sum_num(s->ranks.def, s->ranks.cells + i * s->ranks.def->n_cols, r_rank);
		size_t a = opmfu_lbound(0, n, rank_before, &f, &rank), b = a;
		while (b < n && k[order[b]].rank == rank)
			b++;
		v->step_count[i] = (uint32_t)(b - a);
		v->median_step[i] = b > a ? order[a + (b - a - 1) / 2] : SIZE_MAX;
	}
	opmfu_free(k);
	opmfu_free(order);
	return OPMFU_OK;
nomem:
	opmfu_free(k);
	opmfu_free(order);
	return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory finding each rank's median step");
}

static int lost_more(const void *ctx, uint32_t a, uint32_t b)
{
	const struct opmfu_sum_row *v = ctx;
	return v[a].lost_ns > v[b].lost_ns;
}

/* Group rows by lost time, most first; ties in order of first appearance. */
static uint32_t *lost_order(const struct opmfu_sum_group *g)
{
	uint32_t *o = opmfu_calloc(g->n ? g->n : 1, sizeof(*o));
	size_t i;
	if (!o)
		return NULL;
	for (i = 0; i < g->n; i++)
		o[i] = (uint32_t)i;
	if (opmfu_sort_idx(o, g->n, lost_more, g->v) != 0) {
		opmfu_free(o);
		return NULL;
	}
	return o;
}

/* The median of the values of f over rank rows (NaN left out), and the
 * extreme one (the lowest when low, else the highest) with its rank. */
static int rank_stats(struct opmfu_sum_view *v, double (*f)(const struct opmfu_sum_view *, size_t), int low,
		      double *median, double *ext, double *ext_rank)
{
	const struct opmfu_table_def *rd = v->s->ranks.def;
	double *x = opmfu_calloc(v->n_ranks ? v->n_ranks : 1, sizeof(*x));
	int c_rank = opmfu_sum_col(rd, "rank_id");
	size_t i, n = 0;

	*median = *ext = *ext_rank = NAN;
	if (!x)
		return -1;
	for (i = 0; i < v->n_ranks; i++) {
		double y = f(v, i);
		if (isnan(y))
			continue;
		if (!n || (low ? y < *ext : y > *ext)) {
			*ext = y;
			*ext_rank = opmfu_sum_num(rd, v->s->ranks.cells + i * rd->n_cols, c_rank);
		}
		x[n++] = y;
	}
	if (opmfu_sort_array(x, n, sizeof(*x), opmfu_less_double) != 0) {
		opmfu_free(x);
		return -1;
	}
	if (n)
		*median = opmfu_median_sorted(x, n);
	opmfu_free(x);
	return 0;
}

static double rank_mfu(const struct opmfu_sum_view *v, size_t i)
{
	const struct opmfu_table_def *rd = v->s->ranks.def;
	return opmfu_sum_num(rd, v->s->ranks.cells + i * rd->n_cols, opmfu_sum_col(rd, "trace_mfu"));
}

double opmfu_sum_step_ns(const struct opmfu_sum_view *v, size_t i)
{
	const struct opmfu_summary *s = v->s;
	int c = opmfu_sum_col(s->ranks.def, "step_ns_median");
	size_t k = v->median_step[i];

	if (c >= 0)
		return opmfu_sum_num(s->ranks.def, s->ranks.cells + i * s->ranks.def->n_cols, c);
	if (k == SIZE_MAX)
		return NAN;
	return opmfu_sum_num(s->steps.def, s->steps.cells + k * s->steps.def->n_cols,
			     opmfu_sum_col(s->steps.def, "window_ns"));
}

void opmfu_sum_view_release(struct opmfu_sum_view *v)
{
	opmfu_free(v->median_step);
	opmfu_free(v->step_count);
	opmfu_free(v->mod_order);
	opmfu_free(v->op_order);
	memset(v, 0, sizeof(*v));
}

enum opmfu_status opmfu_sum_view_build(struct opmfu_sum_view *v, const struct opmfu_summary *s,
				       struct opmfu_err *err)
{
	enum opmfu_status st;

	memset(v, 0, sizeof(*v));
	v->s = s;
	v->n_ranks = s->ranks.def ? s->ranks_kept : 0;
	v->n_steps = s->steps.def ? s->steps_kept : 0;
	v->median_step = opmfu_calloc(v->n_ranks ? v->n_ranks : 1, sizeof(*v->median_step));
	v->step_count = opmfu_calloc(v->n_ranks ? v->n_ranks : 1, sizeof(*v->step_count));
	v->mod_order = lost_order(&s->modules);
	v->op_order = lost_order(&s->op_types);
	if (!v->median_step || !v->step_count || !v->mod_order || !v->op_order)
		goto nomem;
	if ((st = median_steps(v, err))) {
		opmfu_sum_view_release(v);
		return st;
	}
	if (rank_stats(v, rank_mfu, 1, &v->mfu_median, &v->mfu_low, &v->mfu_low_rank) != 0 ||
	    rank_stats(v, opmfu_sum_step_ns, 0, &v->step_median_ns, &v->step_high_ns, &v->step_high_rank) != 0)
		goto nomem;
	return OPMFU_OK;
nomem:
	opmfu_sum_view_release(v);
	return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory laying out the summary workbook");
}
