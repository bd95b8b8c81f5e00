/*
 * ops.c - the units of OpmfuOps (ops.h): op instances grouped by the FLOPs
 * record that owns them, their kernels counted once, FLOPs from the record
 * or else from shapes, and the rank's sums.
 */
#include "analyze/ops.h"

#include <math.h>
#include <string.h>

#include "base/lbound.h"
#include "base/mem.h"
#include "base/sat.h"
#include "base/sort.h"
#include "analyze/steps.h"

_Static_assert(sizeof(struct opmfu_unit) == 72, "a unit per op instance: keep it small (64 bytes, and its bytes since SPEC 18)");

#define NONE OPMFU_UNIT_NONE

void opmfu_ops_init(struct opmfu_ops *res)
{
	memset(res, 0, sizeof(*res));
}

void opmfu_ops_release(struct opmfu_ops *res)
{
	opmfu_free(res->v);
	opmfu_free(res->op_unit);
	opmfu_ops_init(res);
}

/* Scratch of one run. */
struct build {
	const struct opmfu_trace *t;
	const struct opmfu_flops *fl;
	struct opmfu_ops *res;
	uint32_t *off, *ord;  /* compute links grouped by op instance (base/bucket) */
	uint32_t *owner;      /* per op instance: the record fact that owns it, or NONE */
	uint32_t *by_start;   /* op instances with compute links, in (op start, id) order */
	size_t n_by_start;
	/* shape facts: per compute link (kernel scope) or per op instance (op
	 * scope), their FLOPs (-1: none) */
	int64_t *shape;
	int op_scope;
	uint32_t *lk;         /* one unit's links */
	size_t cap_lk;
};

static const struct opmfu_range *rec_of(const struct build *b, uint32_t fact)
{
	return &b->t->recs.v[b->fl->facts[fact].ref];
}

static int64_t op_start(const struct build *b, uint32_t op)
{
	return b->t->links[b->ord[b->off[op]]].op_start;
}

static int before_start(const void *ctx, size_t i, const void *key)
{
	const struct build *b = ctx;
	return op_start(b, b->by_start[i]) < *(const int64_t *)key;
}

/* A record's FLOPs belong to the op instances that start inside it (SPEC
 * 9), each to the innermost such record (the shortest; the first of equal
 * ones), so nested records never count a call twice. Shape facts are kept
 * per kernel or per op instance, as the trace's shapes are. */
static void assign(struct build *b)
{
	const struct opmfu_flops *fl = b->fl;
	size_t f, i;

	for (f = 0; f < fl->n_facts; f++) {
		const struct opmfu_flops_fact *x = &fl->facts[f];
		if (x->src == OPMFU_FLOPS_RECORD) {
			const struct opmfu_range *r = rec_of(b, (uint32_t)f);
			i = opmfu_lbound(0, b->n_by_start, before_start, b, &r->start);
			for (; i < b->n_by_start && op_start(b, b->by_start[i]) <= r->end; i++) {
				uint32_t op = b->by_start[i], cur = b->owner[op];
				if (cur == NONE || r->end - r->start < rec_of(b, cur)->end - rec_of(b, cur)->start)
					b->owner[op] = (uint32_t)f;
			}
		} else if (x->src == OPMFU_FLOPS_SHAPE && x->n) {
			uint32_t link = fl->cover[x->first];
			size_t at = b->op_scope ? b->t->links[link].op : link;
			b->shape[at] = opmfu_sat_add(b->shape[at] < 0 ? 0 : b->shape[at], x->flops);
		}
	}
}

static int less_span(const void *ctx, uint32_t ia, uint32_t ib)
{
	const struct opmfu_link *a = (const struct opmfu_link *)ctx + ia, *b = (const struct opmfu_link *)ctx + ib;
	if (a->k_start != b->k_start)
		return a->k_start < b->k_start;
	if (a->k_end != b->k_end)
		return a->k_end < b->k_end;
	return ia < ib;
}

/*
 * The kernels of the unit's links b->lk[0..n): distinct spans, their time,
 * the longest; and (kernel scope) the shape FLOPs of those distinct kernels
 * into *shape (-1: none), with the first such kernel in *shape_link.
 */
static int measure(struct build *b, struct opmfu_unit *u, size_t n, int64_t *shape, uint32_t *shape_link)
{
	const struct opmfu_link *L = b->t->links;
	size_t i;
	int64_t best = -1;

	if (opmfu_sort_idx(b->lk, n, less_span, L))
		return -1;
	u->kernel_ns = 0;
	u->kernels = 0;
	u->bytes = -1;
	for (i = 0; i < n; i++) {
		const struct opmfu_link *l = &L[b->lk[i]];
		int64_t d = l->k_end - l->k_start;
		if (i && l->k_start == L[b->lk[i - 1]].k_start && l->k_end == L[b->lk[i - 1]].k_end)
			continue;
		u->kernels++;
		if (b->fl->bytes && b->fl->bytes[b->lk[i]] >= 0)
			u->bytes = opmfu_sat_add(u->bytes < 0 ? 0 : u->bytes, b->fl->bytes[b->lk[i]]);
		if (d > 0)
			u->kernel_ns = opmfu_sat_add(u->kernel_ns, d);
		/* a kernel that ends before it starts (junk times) can still be the only one */
		if (u->main_link == NONE || d > best) {
			best = d;
			u->main_link = b->lk[i];
		}
		if (!b->op_scope && b->shape[b->lk[i]] >= 0) {
			*shape = opmfu_sat_add(*shape < 0 ? 0 : *shape, b->shape[b->lk[i]]);
			if (*shape_link == NONE || b->lk[i] < *shape_link)
				*shape_link = b->lk[i];
		}
	}
	return 0;
}

/* Appends op instance o's links to b->lk[*n..); its span widens u's, its
 * shape FLOPs (op scope) add to *shape. */
static int take_op(struct build *b, struct opmfu_unit *u, uint32_t o, size_t *n, int64_t *shape,
		   uint32_t *shape_link)
{
	size_t k, m = b->off[o + 1] - b->off[o];
	const struct opmfu_link *l = &b->t->links[b->ord[b->off[o]]];
	if (OPMFU_GROW(b->lk, b->cap_lk, *n + m))
		return -1;
	for (k = 0; k < m; k++)
		b->lk[(*n)++] = b->ord[b->off[o] + k];
	if (u->first_link == NONE || l->op_start < u->start) {
		u->start = l->op_start;
		u->first_link = b->ord[b->off[o]];
	}
	if (l->op_end > u->end)
		u->end = l->op_end;
	if (b->op_scope && b->shape[o] >= 0) {
		*shape = opmfu_sat_add(*shape < 0 ? 0 : *shape, b->shape[o]);
		if (*shape_link == NONE)
			*shape_link = b->ord[b->off[o]];
	}
	return 0;
}

static struct opmfu_unit *new_unit(struct build *b)
{
	struct opmfu_ops *res = b->res;
	struct opmfu_unit *u;
	if (res->n >= NONE - 1 || OPMFU_GROW(res->v, res->cap, res->n + 1))
		return NULL;
	u = &res->v[res->n++];
	memset(u, 0, sizeof(*u));
	u->start = INT64_MAX;
	u->end = INT64_MIN;
	u->first_link = u->main_link = u->module = u->fact = NONE;
	u->src = -1;
	u->prec = OPMFU_PREC_NONE;
	return u;
}

/* The class of a link's input dtypes under SPEC 8. */
static int8_t prec_of(const struct opmfu_trace *t, uint32_t link)
{
	return opmfu_trace_dtype(t, t->links[link].dtype)->prec;
}

/* A record's unit: the op instances it owns (in start order). The dtype is
 * its first covered kernel's, as SPEC 2 step 4 decides a record's. */
static int record_unit(struct build *b, uint32_t f)
{
	const struct opmfu_flops_fact *x = &b->fl->facts[f];
	const struct opmfu_range *r = rec_of(b, f);
	struct opmfu_unit *u = NULL;
	size_t i, n = 0;
	int64_t shape = -1;
	uint32_t shape_link = NONE;

	i = opmfu_lbound(0, b->n_by_start, before_start, b, &r->start);
	for (; i < b->n_by_start && op_start(b, b->by_start[i]) <= r->end; i++) {
		uint32_t op = b->by_start[i];
		if (b->owner[op] != f)
			continue;
		if (!u && !(u = new_unit(b)))
			return -1;
		if (take_op(b, u, op, &n, &shape, &shape_link))
			return -1;
	}
	if (!u) {
		b->res->st.recs_nested++;
		return 0;
	}
	u->fact = f;
	u->flops = x->flops;
	u->src = OPMFU_FLOPS_RECORD;
	u->prec = prec_of(b->t, b->fl->cover[x->first]);
	if (measure(b, u, n, &shape, &shape_link))
		return -1;
	if (shape >= 0) {
		b->res->st.rec_compared++;
		b->res->st.rec_agree += fabs((double)shape - (double)x->flops) <= 0.01 * (double)x->flops;
	}
	return 0;
}

static int op_unit(struct build *b, uint32_t o)
{
	struct opmfu_unit *u = new_unit(b);
	size_t n = 0;
	int64_t shape = -1;
	uint32_t shape_link = NONE;
	if (!u || take_op(b, u, o, &n, &shape, &shape_link) || measure(b, u, n, &shape, &shape_link))
		return -1;
	if (shape > 0) {
		u->flops = shape;
		u->src = OPMFU_FLOPS_SHAPE;
		u->prec = prec_of(b->t, shape_link);
	} else {
		u->prec = prec_of(b->t, u->first_link);
	}
	return 0;
}

static int less_unit(const void *pa, const void *pb)
{
	const struct opmfu_unit *a = pa, *b = pb;
	return a->start < b->start;
}

static int less_op_start(const void *ctx, uint32_t a, uint32_t b)
{
	const struct build *bd = ctx;
	int64_t x = op_start(bd, a), y = op_start(bd, b);
	return x != y ? x < y : a < b;
}

/* Which unit each op instance went to: owner[] holds the record fact of
 * owned ones, and a unit's first link names one of its op instances; the
 * units are numbered after their sort, so this is done last. */
static int map_ops(struct build *b)
{
	struct opmfu_ops *res = b->res;
	size_t i, n_ops = b->t->n_ops + 1;
	uint32_t *fact_unit = opmfu_malloc((b->fl->n_facts + 1) * sizeof(*fact_unit));

	if (!fact_unit || !(res->op_unit = opmfu_malloc(n_ops * sizeof(*res->op_unit)))) {
		opmfu_free(fact_unit);
		return -1;
	}
	memset(res->op_unit, 0xff, n_ops * sizeof(*res->op_unit));
	for (i = 0; i < res->n; i++) {
		const struct opmfu_unit *u = &res->v[i];
		if (u->fact != NONE)
			fact_unit[u->fact] = (uint32_t)i;
		else
			res->op_unit[b->t->links[u->first_link].op] = (uint32_t)i;
	}
	for (i = 0; i < b->t->n_ops; i++)
		if (b->owner[i] != NONE && b->off[i] < b->off[i + 1])
			res->op_unit[i] = fact_unit[b->owner[i]];
	opmfu_free(fact_unit);
	return 0;
}

static int make_units(struct build *b)
{
	size_t f, o;
	/* each unit takes at least one op instance with links: room for all at
	 * once, not doubling (a unit is 72 bytes, one per op instance) */
	if (OPMFU_RESERVE(b->res->v, b->res->cap, b->n_by_start))
		return -1;
	for (f = 0; f < b->fl->n_facts; f++)
		if (b->fl->facts[f].src == OPMFU_FLOPS_RECORD && record_unit(b, (uint32_t)f))
			return -1;
	for (o = 0; o < b->t->n_ops; o++)
		if (b->off[o] < b->off[o + 1] && b->owner[o] == NONE && op_unit(b, (uint32_t)o))
			return -1;
	/* what only the making read goes before the sort adds its index (8 bytes a unit) */
	opmfu_free(b->shape);
	opmfu_free(b->ord);
	opmfu_free(b->by_start);
	opmfu_free(b->lk);
	b->shape = NULL;
	b->lk = NULL;
	b->ord = b->by_start = NULL;
	/* stable: units that start together keep the order they were made in;
	 * through an index, not a copy of the units */
	if (opmfu_sort_array_lean(b->res->v, b->res->n, sizeof(struct opmfu_unit), less_unit))
		return -1;
	/* a unit's step is its ops': the step marks are the host's */
	for (o = 0; o < b->res->n; o++)
		b->res->v[o].step = opmfu_step_at(&b->t->steps, b->res->v[o].start);
	return map_ops(b);
}

double opmfu_unit_peak(const struct opmfu_ops *res, const struct opmfu_unit *u)
{
	return opmfu_rank_peak(res->pk, u->prec);
}

double opmfu_unit_mfu(const struct opmfu_ops *res, const struct opmfu_unit *u)
{
	double peak = opmfu_unit_peak(res, u);
	if (u->src < 0 || !(peak > 0) || u->kernel_ns <= 0)
		return -1;
	return (double)u->flops / ((double)u->kernel_ns * 1e-9) / peak;
}

double opmfu_unit_lost_ns(const struct opmfu_ops *res, const struct opmfu_unit *u)
{
	double peak = opmfu_unit_peak(res, u), lost;
	if (u->src < 0 || !(peak > 0))
		return (double)u->kernel_ns;
	/* an MFU above 1 (counted and warned about) saves nothing, it does not give time back */
	lost = (double)u->kernel_ns - (double)u->flops / peak * 1e9;
	return lost > 0 ? lost : 0;
}

double opmfu_unit_roofline_ns(const struct opmfu_ops *res, const struct opmfu_unit *u)
{
	double peak = opmfu_unit_peak(res, u), bw = res->pk->bw, t = -1;
	if (u->src >= 0 && peak > 0)
		t = (double)u->flops / peak * 1e9;
	if (u->bytes >= 0 && bw > 0 && (double)u->bytes / bw * 1e9 > t)
		t = (double)u->bytes / bw * 1e9;
	return t;
}

double opmfu_unit_recoverable_ns(const struct opmfu_ops *res, const struct opmfu_unit *u)
{
	double r = opmfu_unit_roofline_ns(res, u);
	if (r < 0)
		return (double)u->kernel_ns; /* nothing says what it needs: all of it, as lost time */
	/* faster than the roofline (wrong FLOPs, bytes or peaks: warned about) gives nothing back */
	return (double)u->kernel_ns > r ? (double)u->kernel_ns - r : 0;
}

const char *opmfu_unit_bound(const struct opmfu_ops *res, const struct opmfu_unit *u)
{
	double peak = opmfu_unit_peak(res, u), bw = res->pk->bw;
	if (u->src < 0 || u->bytes <= 0 || !(peak > 0) || !(bw > 0))
		return u->src < 0 && u->bytes > 0 && bw > 0 ? "memory" : "unknown";
	/* the ridge point: the intensity (FLOPs per byte) at which both roofs take the same time */
	return (double)u->flops / (double)u->bytes >= peak / bw ? "compute" : "memory";
}

/* Whether an op is a torch.compile region: its kernels link to it, not to
 * aten ops, so the trace has no shapes for them (docs/gpu-traces.md). */
static int compiled_region(const struct opmfu_strtab *st, uint32_t name)
{
	static const char *const prefix[] = { "CompiledFunction", "Torch-Compiled Region", "torch_compile",
					      "CompiledFxGraph" };
	const char *s = opmfu_strtab_str(st, name);
	size_t n = opmfu_strtab_len(st, name), k;
	for (k = 0; s && k < sizeof(prefix) / sizeof(prefix[0]); k++)
		if (n >= strlen(prefix[k]) && !memcmp(s, prefix[k], strlen(prefix[k])))
			return 1;
	return 0;
}

/* st->compiled_noflops_ns: the GEMM/conv/attention kernels (by name, as the
 * waterfall tells them) of compiled regions' units without FLOPs. One pass
 * over the links; an op name is looked at once per run of equal names. */
static void sum_compiled(struct opmfu_ops *res)
{
	const struct opmfu_trace *t = res->t;
	uint32_t last = 0;
	int compiled = 0;
	size_t i;

	for (i = 0; i < t->n_compute && res->op_unit; i++) {
		const struct opmfu_link *l = &t->links[i];
		uint32_t u = res->op_unit[l->op];
		if (l->op_name != last) {
			last = l->op_name;
			compiled = compiled_region(&t->strs, l->op_name);
		}
		if (!compiled || u == OPMFU_UNIT_NONE || res->v[u].src >= 0 || l->k_end <= l->k_start ||
		    !opmfu_matmul_name(opmfu_strtab_str(&t->strs, l->k_name), opmfu_strtab_len(&t->strs, l->k_name)))
			continue;
		res->st.compiled_noflops_ns += (double)(l->k_end - l->k_start);
	}
}

/* The rank's sums; the main peak is the class with the most FLOP-bearing time. */
static void sum_up(struct opmfu_ops *res)
{
	struct opmfu_ops_stats *st = &res->st;
	double by_prec[OPMFU_PREC__COUNT] = { 0 }, best = 0;
	size_t i;
	int p;

	for (i = 0; i < res->n; i++) {
		const struct opmfu_unit *u = &res->v[i];
		double peak = opmfu_unit_peak(res, u), mfu = opmfu_unit_mfu(res, u);
		st->busy_ns += (double)u->kernel_ns;
		if (u->src < 0)
			continue;
		st->n_flops++;
		st->flops_ns += (double)u->kernel_ns;
		st->flops += (double)u->flops;
		st->flops_src[u->src] += (double)u->flops;
		if (u->prec >= 0)
			by_prec[u->prec] += (double)u->kernel_ns;
		if (!(peak > 0)) {
			st->n_no_peak++;
			continue;
		}
		st->cap_flops += (double)u->kernel_ns * 1e-9 * peak;
		st->flops_peaked += (double)u->flops;
		st->n_above_one += mfu > 1;
	}
	st->main_prec = OPMFU_PREC_FP16;
	for (p = 0; p < OPMFU_PREC__COUNT; p++)
		if (by_prec[p] > best && opmfu_rank_peak(res->pk, p) > 0) {
			best = by_prec[p];
			st->main_prec = p;
		}
	st->main_peak = opmfu_rank_peak(res->pk, st->main_prec);
	st->cap_all = st->cap_flops;
	for (i = 0; i < res->n; i++) {
		const struct opmfu_unit *u = &res->v[i];
		if (u->src < 0 || !(opmfu_unit_peak(res, u) > 0))
			st->cap_all += (double)u->kernel_ns * 1e-9 * st->main_peak;
	}
}

static void build_release(struct build *b)
{
	opmfu_free(b->off);
	opmfu_free(b->ord);
	opmfu_free(b->owner);
	opmfu_free(b->by_start);
	opmfu_free(b->shape);
	opmfu_free(b->lk);
}

enum opmfu_status opmfu_ops_run(const struct opmfu_trace *t, const struct opmfu_flops *fl,
				const struct opmfu_rank_peaks *pk, struct opmfu_ops *res, struct opmfu_err *err)
{
	struct build b;
	size_t i, n_ops = t->n_ops + 1, n_shape;
	int rc = -1;

	memset(&b, 0, sizeof(b));
	b.t = t;
	b.fl = fl;
	b.res = res;
	res->t = t;
	res->fl = fl;
	res->pk = pk;
	b.op_scope = t->shape_scope == OPMFU_SHAPES_OP;
	n_shape = b.op_scope ? n_ops : t->n_compute + 1;
	b.owner = opmfu_malloc(n_ops * sizeof(*b.owner));
	b.by_start = opmfu_malloc(n_ops * sizeof(*b.by_start));
	b.shape = opmfu_malloc(n_shape * sizeof(*b.shape));
	if (!b.owner || !b.by_start || !b.shape || opmfu_trace_group_by_op(t, &b.off, &b.ord))
		goto out;
	memset(b.owner, 0xff, n_ops * sizeof(*b.owner));
	for (i = 0; i < n_shape; i++)
		b.shape[i] = -1;
	for (i = 0; i < t->n_ops; i++)
		if (b.off[i] < b.off[i + 1])
			b.by_start[b.n_by_start++] = (uint32_t)i;
	if (opmfu_sort_idx(b.by_start, b.n_by_start, less_op_start, &b))
		goto out;
	assign(&b);
	if (make_units(&b))
		goto out;
	sum_up(res);
	sum_compiled(res);
	rc = 0;
out:
	build_release(&b);
	if (rc) {
		opmfu_ops_release(res);
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory computing op-level MFU");
	}
	return OPMFU_OK;
}

static int step_before(const void *ctx, size_t i, const void *key)
{
	return ((const struct opmfu_range *)ctx)[i].start <= *(const int64_t *)key;
}

int64_t opmfu_step_at(const struct opmfu_ranges *steps, int64_t ts)
{
	/* the last step starting at or before ts */
	size_t i = opmfu_lbound(0, steps->n, step_before, steps->v, &ts);
	if (i == 0 || ts >= steps->v[i - 1].end)
		return OPMFU_NO_STEP;
	return (int64_t)(i - 1);
}
