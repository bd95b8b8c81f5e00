/*
 * diff_rows.c - OpmfuDiff's rows from two results read back (lib/diff.h):
 * the ranks both sides analysed, then per step share, module path, op name,
 * collective and model convention the sums over those ranks on each side.
 *
 * Sums are time-weighted, never means of ratios: MFU is Σ FLOPs / Σ
 * capacity, a row's capacity (FLOP-bearing kernel time x peak) being its
 * FLOPs / its MFU; a step's useful time (FLOPs / peak) is its trace MFU x
 * its window.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/mem.h"
#include "base/sat.h"
#include "base/sort.h"
#include "lib/diff.h"

static const char *const kind_names[OPMFU_NDIFF_KIND] = { "step_share", "module", "op_type", "collective", "model",
							   "rank" };

const char *opmfu_diff_kind_name(int kind)
{
	return kind >= 0 && kind < OPMFU_NDIFF_KIND ? kind_names[kind] : "?";
}

struct opmfu_diff_store *opmfu_diff_store_new(struct opmfu_diff *d)
{
	struct opmfu_diff_store *st = opmfu_calloc(1, sizeof(*st));
	if (st)
		opmfu_intern_init(&st->names, &st->ar);
	d->store = st;
	return st;
}

static enum opmfu_status nomem(struct opmfu_err *err)
{
	return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory comparing the runs");
}

static const char *side_label(int s)
{
	return s ? "NEW" : "BASE";
}

/* ---- ranks ---- */

static int less_int(const void *a, const void *b)
{
	return *(const int *)a < *(const int *)b;
}

static int has_rank(const int *v, size_t n, int x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo] == x;
}

/* v[0, n) sorted, duplicates removed; returns the new n. */
static size_t sort_unique(int *v, size_t n)
{
	size_t i, k = 0;
	if (opmfu_sort_array(v, n, sizeof(*v), less_int))
		return (size_t)-1;
	for (i = 0; i < n; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

/* The ranks of res (failed or not, as asked) that want holds (all when
 * want is NULL), ascending, into *out. A rank twice is an error. */
static enum opmfu_status side_ranks(const struct opmfu_results *res, int failed, const int *want, size_t n_want,
				    int s, int **out, size_t *n, struct opmfu_err *err)
{
	size_t i, k = 0;
	*n = 0;
	if (!(*out = opmfu_malloc((res->n_ranks + 1) * sizeof(**out))))
		return nomem(err);
	for (i = 0; i < res->n_ranks; i++)
		if (res->ranks[i].failed == failed && (!want || has_rank(want, n_want, res->ranks[i].rank)))
			(*out)[k++] = res->ranks[i].rank;
	if (opmfu_sort_array(*out, k, sizeof(**out), less_int))
		return nomem(err);
	for (i = 1; i < k; i++)
		if ((*out)[i] == (*out)[i - 1])
			return opmfu_err_set(err, OPMFU_ERR_FORMAT, "%s: OpmfuRankSummary has rank %d twice",
					     side_label(s), (*out)[i]);
	*n = k;
	return OPMFU_OK;
}

/* a minus b (both ascending) into *out. */
static enum opmfu_status minus(const int *a, size_t na, const int *b, size_t nb, int keep_common, int **out,
			       size_t *n, struct opmfu_err *err)
{
	size_t i;
	*n = 0;
	if (!(*out = opmfu_malloc((na + 1) * sizeof(**out))))
		return nomem(err);
	for (i = 0; i < na; i++)
		if (has_rank(b, nb, a[i]) == keep_common)
			(*out)[(*n)++] = a[i];
	return OPMFU_OK;
}

static enum opmfu_status check_wanted(struct opmfu_diff *d, const int *an[2], const size_t n_an[2],
				      const int *want, size_t n_want, struct opmfu_err *err)
{
	size_t i;
	int s;
	for (i = 0; i < n_want; i++) {
		int found = 0;
		for (s = 0; s < 2; s++)
			found |= has_rank(an[s], n_an[s], want[i]) |
				 has_rank(d->side[s].failed, d->side[s].n_failed, want[i]);
		if (!found)
			return opmfu_err_set(err, OPMFU_ERR_USAGE, "rank %d is in neither BASE nor NEW", want[i]);
	}
	return OPMFU_OK;
}

static enum opmfu_status match_ranks(const struct opmfu_results res[2], const int *ranks, size_t n_ranks,
				     struct opmfu_diff *d, struct opmfu_err *err)
{
	int *want = NULL, *an[2] = { NULL, NULL };
	size_t n_want = 0, n_an[2] = { 0, 0 };
	enum opmfu_status st = OPMFU_OK;
	char a[200], b[200];
	int s;

	if (ranks) {
		if (!(want = opmfu_malloc((n_ranks + 1) * sizeof(*want))))
			return nomem(err);
		memcpy(want, ranks, n_ranks * sizeof(*want));
		if ((n_want = sort_unique(want, n_ranks)) == (size_t)-1)
			st = nomem(err);
	}
	for (s = 0; s < 2 && st == OPMFU_OK; s++)
		if (!(st = side_ranks(&res[s], 0, want, n_want, s, &an[s], &n_an[s], err)))
			st = side_ranks(&res[s], 1, want, n_want, s, &d->side[s].failed, &d->side[s].n_failed, err);
	if (st == OPMFU_OK)
		st = check_wanted(d, (const int **)an, n_an, want, n_want, err);
	for (s = 0; s < 2 && st == OPMFU_OK; s++) {
		d->side[s].ranks = n_an[s];
		st = minus(an[s], n_an[s], an[1 - s], n_an[1 - s], 0, &d->side[s].only, &d->side[s].n_only, err);
	}
	if (st == OPMFU_OK)
		st = minus(an[0], n_an[0], an[1], n_an[1], 1, &d->compared, &d->n_compared, err);
	if (st == OPMFU_OK && d->n_compared == 0) {
		opmfu_format_ranks(an[0], n_an[0], a, sizeof(a));
		opmfu_format_ranks(an[1], n_an[1], b, sizeof(b));
		st = opmfu_err_set(err, OPMFU_ERR_NOINPUT,
				   "no rank is analysed in both BASE and NEW (BASE: %s; NEW: %s): nothing to compare",
				   n_an[0] ? a : "none", n_an[1] ? b : "none");
	}
	opmfu_free(want);
	opmfu_free(an[0]);
	opmfu_free(an[1]);
	return st;
}

/* ---- rows ---- */

static struct opmfu_diff_row *new_row(struct opmfu_diff *d, size_t *cap, enum opmfu_diff_kind kind,
				      const char *name)
{
	struct opmfu_diff_row *r;
	int s;
	if (OPMFU_GROW(d->rows, *cap, d->n_rows + 1))
		return NULL;
	r = &d->rows[d->n_rows++];
	r->kind = kind;
	r->name = name;
	for (s = 0; s < 2; s++)
		r->kernel_ns[s] = r->flops[s] = r->mfu[s] = r->lost_ns[s] = NAN;
	r->delta_lost_ns = NAN;
	return r;
}

/* NEW - BASE, a side without the name (no kernel time) counting 0; NULL
 * when a side has the name but not its lost time, or neither has it. */
static void set_delta(struct opmfu_diff_row *r)
{
	double v[2];
	int s;
	for (s = 0; s < 2; s++) {
		if (!isnan(r->kernel_ns[s]) && isnan(r->lost_ns[s]))
			return;
		v[s] = isnan(r->lost_ns[s]) ? 0 : r->lost_ns[s];
	}
	if (!isnan(r->kernel_ns[0]) || !isnan(r->kernel_ns[1]))
		r->delta_lost_ns = v[1] - v[0];
}

/* A side of a step share row: kernel time, FLOPs (NAN: none), share of the
 * window, lost time. */
static void share(struct opmfu_diff_row *r, int s, double ns, double flops, double part, double window, double lost)
{
	r->kernel_ns[s] = (double)opmfu_sat_round(ns);
	r->flops[s] = flops;
	r->mfu[s] = window > 0 && !isnan(part) ? part / window : NAN;
	r->lost_ns[s] = isnan(lost) ? NAN : (double)opmfu_sat_round(lost);
}

/* Sums of the compared ranks' steps on one side. */
struct step_sum {
	double window, flops_ns, other, comm, idle, flops, useful, wait;
	size_t n;
	int all_mfu, flops_known, wait_known;
};

static void sum_steps(const struct opmfu_results *res, const struct opmfu_diff *d, struct step_sum *t)
{
	size_t i;
	memset(t, 0, sizeof(*t));
	t->all_mfu = 1;
	for (i = 0; i < res->n_steps; i++) {
		const struct opmfu_res_step *p = &res->steps[i];
		if (!has_rank(d->compared, d->n_compared, p->rank))
			continue;
		t->n++;
		t->window += isnan(p->window_ns) ? 0 : p->window_ns;
		t->flops_ns += isnan(p->flops_ns) ? 0 : p->flops_ns;
		t->other += isnan(p->other_ns) ? 0 : p->other_ns;
		t->comm += isnan(p->comm_ns) ? 0 : p->comm_ns;
		t->idle += isnan(p->idle_ns) ? 0 : p->idle_ns;
		if (!isnan(p->comm_wait_ns)) {
			t->wait += p->comm_wait_ns;
			t->wait_known = 1;
		}
		if (!isnan(p->flops)) {
			t->flops += p->flops;
			t->flops_known = 1;
		}
		if (isnan(p->trace_mfu) || isnan(p->window_ns))
			t->all_mfu = 0;
		else
			t->useful += p->trace_mfu * p->window_ns;
	}
}

/* The five parts of the step time: useful math (trace MFU), then what the
 * rest went to, in the waterfall's order; then comm_wait, the part of
 * comm_exposed spent waiting for other ranks (SPEC 19), not a sixth part. */
static enum opmfu_status step_rows(const struct opmfu_results res[2], struct opmfu_diff *d, size_t *cap)
{
	static const char *const names[6] = { "trace_mfu", "inefficiency", "other_compute", "comm_exposed", "idle",
					      "comm_wait" };
	struct step_sum t[2];
	int s, k;

	for (s = 0; s < 2; s++) {
		sum_steps(&res[s], d, &t[s]);
		d->side[s].steps = t[s].n;
	}
	for (k = 0; k < 6; k++) {
		struct opmfu_diff_row *r = new_row(d, cap, OPMFU_DIFF_STEP_SHARE, names[k]);
		if (!r)
			return OPMFU_ERR_NOMEM;
		for (s = 0; s < 2; s++) {
			const struct step_sum *p = &t[s];
			double fl = p->flops_known ? p->flops : NAN, useful = p->all_mfu ? p->useful : NAN;
			if (p->n == 0)
				continue;
			if (k == 0)
				share(r, s, p->window, fl, useful, p->window, p->window - useful);
			else if (k == 1)
				share(r, s, p->flops_ns, fl, p->flops_ns - useful, p->window, p->flops_ns - useful);
			else if (k == 5) {
				/* unknown on a side (one rank, a result older than SPEC 19): NULL there; a
				 * step that does not know it among others that do counts 0, as the parts do */
				if (p->wait_known)
					share(r, s, p->wait, NAN, p->wait, p->window, p->wait);
			} else {
				double part = k == 2 ? p->other : k == 3 ? p->comm : p->idle;
				share(r, s, part, NAN, part, p->window, part);
			}
		}
		set_delta(r);
		/* a side that does not know its waiting is not a side that waited 0 */
		if (k == 5 && (isnan(r->kernel_ns[0]) || isnan(r->kernel_ns[1])))
			r->delta_lost_ns = NAN;
	}
	return OPMFU_OK;
}

/* Sums of one name on one side. */
struct acc {
	double kernel, flops, lost, cap, fcap;
	unsigned char on, flops_known, lost_known;
};

static void add_row(struct acc *a, const struct opmfu_res_row *w)
{
	a->on = 1;
	a->kernel += isnan(w->kernel_ns) ? 0 : w->kernel_ns;
	if (!isnan(w->flops)) {
		a->flops += w->flops;
		a->flops_known = 1;
	}
	if (!isnan(w->lost_ns)) {
		a->lost += w->lost_ns;
		a->lost_known = 1;
	}
	/* its capacity from its MFU: a row without FLOPs or MFU adds none */
	if (w->flops > 0 && w->mfu > 0) {
		a->cap += w->flops / w->mfu;
		a->fcap += w->flops;
	}
}

static int row_before(const void *ctx, uint32_t a, uint32_t b)
{
	const struct opmfu_diff_row *x = (const struct opmfu_diff_row *)ctx + a, *y = (const struct opmfu_diff_row *)ctx + b;
	double dx = isnan(x->delta_lost_ns) ? -INFINITY : x->delta_lost_ns;
	double dy = isnan(y->delta_lost_ns) ? -INFINITY : y->delta_lost_ns;
	if (dx != dy)
		return dx > dy;
	return strcmp(x->name, y->name) < 0;
}

/* Sorts d->rows[from, n_rows) by the change in lost time, largest first,
 * then by name. */
static enum opmfu_status sort_slice(struct opmfu_diff *d, size_t from)
{
	size_t n = d->n_rows - from, i;
	uint32_t *idx = opmfu_malloc((n + 1) * sizeof(*idx));
	struct opmfu_diff_row *tmp = opmfu_malloc((n + 1) * sizeof(*tmp));
	enum opmfu_status st = OPMFU_OK;

	if (!idx || !tmp) {
		st = OPMFU_ERR_NOMEM;
		goto out;
	}
	for (i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	if (opmfu_sort_idx(idx, n, row_before, d->rows + from)) {
		st = OPMFU_ERR_NOMEM;
		goto out;
	}
	for (i = 0; i < n; i++)
		tmp[i] = d->rows[from + idx[i]];
	memcpy(d->rows + from, tmp, n * sizeof(*tmp));
out:
	opmfu_free(idx);
	opmfu_free(tmp);
	return st;
}

/* One row per name of list (module paths, op names or collectives) on
 * either side, unless its kernel time is 0 wherever it is. */
static enum opmfu_status list_rows(const struct opmfu_results res[2], int list, enum opmfu_diff_kind kind,
				   struct opmfu_diff *d, size_t *cap)
{
	const struct opmfu_intern *names = &((struct opmfu_diff_store *)d->store)->names;
	struct acc *acc = opmfu_calloc(names->n * 2 + 1, sizeof(*acc));
	size_t i, from = d->n_rows;
	int s;

	if (!acc)
		return OPMFU_ERR_NOMEM;
	for (s = 0; s < 2; s++)
		for (i = 0; i < res[s].n_rows[list]; i++) {
			const struct opmfu_res_row *w = &res[s].rows[list][i];
			if (has_rank(d->compared, d->n_compared, w->rank))
				add_row(&acc[w->name * 2 + (size_t)s], w);
		}
	for (i = 0; i < names->n; i++) {
		const struct acc *a = &acc[i * 2];
		struct opmfu_diff_row *r;
		if (!(a[0].on && a[0].kernel != 0) && !(a[1].on && a[1].kernel != 0))
			continue;
		if (!(r = new_row(d, cap, kind, opmfu_intern_str(names, (uint32_t)i)))) {
			opmfu_free(acc);
			return OPMFU_ERR_NOMEM;
		}
		for (s = 0; s < 2; s++) {
			if (!a[s].on)
				continue;
			r->kernel_ns[s] = (double)opmfu_sat_round(a[s].kernel);
			r->flops[s] = a[s].flops_known ? a[s].flops : NAN;
			r->mfu[s] = a[s].cap > 0 ? a[s].fcap / a[s].cap : NAN;
			r->lost_ns[s] = a[s].lost_known ? (double)opmfu_sat_round(a[s].lost) : NAN;
		}
		set_delta(r);
	}
	opmfu_free(acc);
	return sort_slice(d, from);
}

/* The model MFU of the run under each convention, when both sides have
 * OpmfuModel: BASE's conventions in its order, then NEW's others. */
static enum opmfu_status model_rows(const struct opmfu_results res[2], struct opmfu_diff *d, size_t *cap)
{
	const struct opmfu_intern *names = &((struct opmfu_diff_store *)d->store)->names;
	size_t i, j, from = d->n_rows;
	int s;

	d->side[0].has_model = res[0].has_model && res[0].n_model > 0;
	d->side[1].has_model = res[1].has_model && res[1].n_model > 0;
	if (!d->side[0].has_model || !d->side[1].has_model)
		return OPMFU_OK;
	for (s = 0; s < 2; s++)
		for (i = 0; i < res[s].n_model; i++) {
			const struct opmfu_res_model *m = &res[s].model[i];
			const char *name = opmfu_intern_str(names, m->conv);
			struct opmfu_diff_row *r = NULL;
			for (j = from; j < d->n_rows && !r; j++)
				if (d->rows[j].name == name)
					r = &d->rows[j];
			if (!r && !(r = new_row(d, cap, OPMFU_DIFF_MODEL, name)))
				return OPMFU_ERR_NOMEM;
			if (!isnan(r->mfu[s]) || !isnan(r->kernel_ns[s]))
				continue; /* the first row of a convention counts */
			r->kernel_ns[s] = isnan(m->step_ns) ? NAN : (double)opmfu_sat_round(m->step_ns);
			r->flops[s] = m->flops;
			r->mfu[s] = m->mfu;
		}
	return OPMFU_OK;
}

/* A row per rank analysed on one side only, with its compute time, FLOPs
 * and MFU there. */
static enum opmfu_status rank_rows(const struct opmfu_results res[2], struct opmfu_diff *d, size_t *cap)
{
	struct opmfu_diff_store *store = d->store;
	size_t i, j;
	int s;

	for (s = 0; s < 2; s++)
		for (i = 0; i < d->side[s].n_only; i++) {
			char id[16];
			const char *name;
			struct opmfu_diff_row *r;
			snprintf(id, sizeof(id), "%d", d->side[s].only[i]);
			if (!(name = opmfu_arena_put(&store->ar, id, strlen(id))) ||
			    !(r = new_row(d, cap, OPMFU_DIFF_RANK, name)))
				return OPMFU_ERR_NOMEM;
			for (j = 0; j < res[s].n_ranks; j++)
				if (res[s].ranks[j].rank == d->side[s].only[i] && !res[s].ranks[j].failed) {
					r->kernel_ns[s] = res[s].ranks[j].compute_ns;
					r->flops[s] = res[s].ranks[j].flops;
					r->mfu[s] = res[s].ranks[j].mfu;
				}
		}
	return OPMFU_OK;
}

enum opmfu_status opmfu_diff_compute(const struct opmfu_results res[2], const int *ranks, size_t n_ranks,
				     struct opmfu_diff *d, struct opmfu_err *err)
{
	enum opmfu_status st;
	size_t cap = 0;

	if ((st = match_ranks(res, ranks, n_ranks, d, err)))
		return st;
	if ((st = step_rows(res, d, &cap)) || (st = list_rows(res, OPMFU_RES_MODULES, OPMFU_DIFF_MODULE, d, &cap)) ||
	    (st = list_rows(res, OPMFU_RES_OP_TYPES, OPMFU_DIFF_OP_TYPE, d, &cap)) ||
	    /* both sides need the table: a result older than SPEC 19 did not look, it did not see none */
	    (res[0].has_colls && res[1].has_colls &&
	     (st = list_rows(res, OPMFU_RES_COLLECTIVES, OPMFU_DIFF_COLLECTIVE, d, &cap))) ||
	    (st = model_rows(res, d, &cap)) ||
	    (st = rank_rows(res, d, &cap)))
		return nomem(err);
	return OPMFU_OK;
}

void opmfu_format_ranks(const int *v, size_t n, char *out, size_t size)
{
	size_t i = 0, len = 0;
	if (!size)
		return;
	out[0] = '\0';
	while (i < n) {
		size_t j = i;
		char item[32];
		int w;
		while (j + 1 < n && v[j + 1] == v[j] + 1)
			j++;
		if (j == i)
			w = snprintf(item, sizeof(item), "%s%d", i ? ", " : "", v[i]);
		else
			w = snprintf(item, sizeof(item), "%s%d-%d", i ? ", " : "", v[i], v[j]);
		/* room for this item and, if more follow, for ", ..." */
		if (len + (size_t)w + (j + 1 < n ? 5 : 0) >= size) {
			const char *cut = len ? ", ..." : "...";
			snprintf(out + len, size - len, "%s", len + strlen(cut) < size ? cut : "");
			return;
		}
		memcpy(out + len, item, (size_t)w + 1);
		len += (size_t)w;
		i = j + 1;
	}
}
