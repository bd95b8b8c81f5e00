/*
 * modules.c - OpmfuModules (modules.h): module paths from the nesting of
 * the Module ranges, units placed in their innermost module, sums per path.
 */
#include "analyze/modules.h"

#include <string.h>

#include "reference/module_tree.h"
#include "base/idtab.h"
#include "base/mem.h"
#include "base/sat.h"
#include "base/sbuf.h"
#include "base/sort.h"

#define NONE OPMFU_UNIT_NONE

void opmfu_modules_init(struct opmfu_modules *res)
{
	memset(res, 0, sizeof(*res));
	opmfu_intern_init(&res->paths, &res->ar);
}

void opmfu_modules_release(struct opmfu_modules *res)
{
	opmfu_intern_release(&res->paths);
	opmfu_arena_release(&res->ar);
	opmfu_free(res->rows);
	opmfu_modules_init(res);
}

struct build {
	struct opmfu_modules *res;
	struct opmfu_ops *ops;
	const struct opmfu_trace *t;
	uint32_t *parent; /* per module: the innermost module containing it, or NONE */
	uint32_t *depth;  /* per module: 1 at top level */
	uint32_t *mord;   /* modules in walk order: a parent before its children */
	uint32_t *path;   /* per module: its path id */
	uint32_t *eff;    /* per module: itself, or its ancestor at depth OPMFU_MODULE_MAX_DEPTH when deeper */
	struct opmfu_idtab keys; /* modules with a path made, by (parent path, name) */
	struct sbuf sb;
};

/* Walks modules and units in item order with a stack of open modules. */
static int nest(struct build *b)
{
	const struct opmfu_ranges *mods = &b->t->mods;
	size_t n_mods = mods->n, n = n_mods + b->ops->n, i, top = 0, k = 0;
	const struct opmfu_nest ns = { mods->v,
				       n_mods,
				       b->ops->v,
				       sizeof(*b->ops->v),
				       offsetof(struct opmfu_unit, start),
				       offsetof(struct opmfu_unit, end),
				       NULL };
	uint32_t *ord = opmfu_malloc((n + 1) * sizeof(*ord));
	uint32_t *stack = opmfu_malloc((n_mods + 1) * sizeof(*stack));
	int rc = -1;

	if (!ord || !stack || n >= NONE)
		goto out;
	if (opmfu_nest_order(&ns, ord, n))
		goto out;
	for (i = 0; i < n; i++) {
		uint32_t up, id = ord[i];
		int64_t start, end;
		opmfu_nest_span(&ns, id, &start, &end);
		/* the top contains the item when it ends no earlier (it starts no later) */
		while (top && mods->v[stack[top - 1]].end < end)
			top--;
		up = top ? stack[top - 1] : NONE;
		if (id < n_mods) {
			uint32_t m = id;
			b->parent[m] = up;
			b->depth[m] = (uint32_t)top + 1;
			/* deeper than the cap (the reference's, SPEC 3.3): folded into
			 * its ancestor at the cap, which then holds its units */
			if (top < OPMFU_MODULE_MAX_DEPTH) {
				b->eff[m] = m;
			} else {
				b->eff[m] = b->eff[up];
				b->res->modules_cut++;
			}
			b->mord[k++] = m;
			stack[top++] = m;
		} else {
			/* a module index until the paths are made */
			b->ops->v[id - n_mods].module = up == NONE ? NONE : b->eff[up];
			if (up != NONE && b->eff[up] != up)
				b->res->units_folded++;
		}
	}
	rc = 0;
out:
	opmfu_free(ord);
	opmfu_free(stack);
	return rc;
}

/* A path is its parent's path and a name: modules with the same pair share
 * it, and its string is made once, when the pair is first met. */
struct path_probe {
	const struct build *b;
	uint32_t up_path, name, name_off;
};

static uint32_t up_path(const struct build *b, uint32_t m)
{
	return b->parent[m] == NONE ? NONE : b->path[b->parent[m]];
}

static int path_eq(const void *probe, uint32_t m)
{
	const struct path_probe *p = probe;
	const struct opmfu_range *r = &p->b->t->mods.v[m];
	return up_path(p->b, m) == p->up_path && r->name == p->name && r->name_off == p->name_off;
}

/* "A/B/C" for every module up to the depth cap, each from its parent's,
 * made in walk order; a deeper module takes the path of its ancestor at
 * the cap. Work and memory: one string per distinct path, of at most
 * OPMFU_MODULE_MAX_DEPTH names. */
static int make_paths(struct build *b)
{
	const struct opmfu_ranges *mods = &b->t->mods;
	size_t i;

	for (i = 0; i < mods->n; i++) {
		uint32_t m = b->mord[i], up = b->parent[m], rep;
		const struct opmfu_range *r = &mods->v[m];
		const char *name;
		size_t len;
		struct path_probe pp;
		if (b->eff[m] != m) {
			b->path[m] = b->path[b->eff[m]];
			continue;
		}
		pp = (struct path_probe){ b, up_path(b, m), r->name, r->name_off };
		rep = opmfu_idtab_get(&b->keys,
				      opmfu_mix64(((uint64_t)pp.up_path << 32 | pp.name) ^ opmfu_mix64(pp.name_off)),
				      path_eq, &pp, m);
		if (rep == NONE)
			return -1;
		if (rep != m) {
			b->path[m] = b->path[rep];
			continue;
		}
		name = opmfu_strtab_str(&b->t->strs, r->name);
		len = opmfu_strtab_len(&b->t->strs, r->name);
		sbuf_reset(&b->sb);
		if (up != NONE) {
			sbuf_add(&b->sb, opmfu_intern_str(&b->res->paths, b->path[up]),
				 opmfu_intern_len(&b->res->paths, b->path[up]));
			sbuf_add(&b->sb, "/", 1);
		}
		if (name && r->name_off <= len)
			sbuf_add(&b->sb, name + r->name_off, len - r->name_off);
		if (b->sb.oom || (b->path[m] = opmfu_intern_add(&b->res->paths, b->sb.buf ? b->sb.buf : "",
								  b->sb.len)) == NONE)
			return -1;
	}
	return 0;
}

void opmfu_msum_add(struct opmfu_msum *s, const struct opmfu_ops *ops, const struct opmfu_unit *u)
{
	double peak = opmfu_unit_peak(ops, u), ns = (double)u->kernel_ns, roof = opmfu_unit_roofline_ns(ops, u);
	s->kernel_ns = opmfu_sat_add(s->kernel_ns, u->kernel_ns);
	if (roof >= 0) {
		s->roofline_ns += roof;
		s->roofline_kernel_ns = opmfu_sat_add(s->roofline_kernel_ns, u->kernel_ns);
	}
	s->lost_ns += opmfu_unit_lost_ns(ops, u);
	s->recoverable_ns += opmfu_unit_recoverable_ns(ops, u);
	if (u->src >= 0) {
		s->flops_kernel_ns = opmfu_sat_add(s->flops_kernel_ns, u->kernel_ns);
		s->flops = opmfu_sat_add(s->flops, u->flops);
	}
	if (u->src >= 0 && peak > 0) {
		s->cap_flops += ns * 1e-9 * peak;
		s->flops_peaked += (double)u->flops;
		s->cap_all += ns * 1e-9 * peak;
	} else {
		s->cap_all += ns * 1e-9 * ops->st.main_peak;
	}
}

double opmfu_msum_mfu(const struct opmfu_msum *s)
{
	return s->cap_flops > 0 ? s->flops_peaked / s->cap_flops : -1;
}

double opmfu_msum_mfu_all(const struct opmfu_msum *s)
{
	return s->cap_all > 0 && s->cap_flops > 0 ? s->flops_peaked / s->cap_all : -1;
}

/* lost time, most first; ties by first call, then path id */
static int less_row(const void *ctx, uint32_t ia, uint32_t ib)
{
	const struct opmfu_mrow *a = (const struct opmfu_mrow *)ctx + ia, *b = (const struct opmfu_mrow *)ctx + ib;
	if (a->all.lost_ns != b->all.lost_ns)
		return a->all.lost_ns > b->all.lost_ns;
	if (a->first != b->first)
		return a->first < b->first;
	return a->path < b->path;
}

/* Rows into less_row's order (too large for an in-place sort: through an index). */
static int sort_rows(struct opmfu_modules *res)
{
	size_t n = res->n_rows, i;
	uint32_t *ord = opmfu_malloc((n + 1) * sizeof(*ord));
	struct opmfu_mrow *v = opmfu_malloc((n + 1) * sizeof(*v));
	int rc = -1;

	if (ord && v) {
		for (i = 0; i < n; i++)
			ord[i] = (uint32_t)i;
		if (!opmfu_sort_idx(ord, n, less_row, res->rows)) {
			for (i = 0; i < n; i++)
				v[i] = res->rows[ord[i]];
			opmfu_free(res->rows);
			res->rows = v;
			v = NULL;
			rc = 0;
		}
	}
	opmfu_free(ord);
	opmfu_free(v);
	return rc;
}

/* A row per path (by path id until sorted); calls and sums. */
static int sum_rows(struct build *b)
{
	struct opmfu_modules *res = b->res;
	const struct opmfu_ranges *mods = &b->t->mods;
	size_t n = res->paths.n, i;

	if (!(res->rows = opmfu_calloc(n + 1, sizeof(*res->rows))))
		return -1;
	res->n_rows = n;
	for (i = 0; i < n; i++) {
		res->rows[i].path = (uint32_t)i;
		res->rows[i].first = INT64_MAX;
	}
	for (i = 0; i < mods->n; i++) {
		struct opmfu_mrow *r = &res->rows[b->path[i]];
		if (b->eff[i] != i) /* cut: its units count in its ancestor at the cap, not its calls */
			continue;
		r->calls++;
		r->depth = b->depth[i];
		if (mods->v[i].start < r->first)
			r->first = mods->v[i].start;
	}
	for (i = 0; i < b->ops->n; i++) {
		struct opmfu_unit *u = &b->ops->v[i];
		uint32_t m = u->module;
		if (m == NONE)
			continue;
		u->module = b->path[m];
		opmfu_msum_add(&res->rows[u->module].self, b->ops, u);
		/* the paths along a chain are distinct: each ancestor once (at
		 * most OPMFU_MODULE_MAX_DEPTH of them: m is at the cap or above) */
		for (; m != NONE; m = b->parent[m])
			opmfu_msum_add(&res->rows[b->path[m]].all, b->ops, u);
	}
	return sort_rows(res);
}

enum opmfu_status opmfu_modules_run(struct opmfu_ops *ops, struct opmfu_modules *res, struct opmfu_err *err)
{
	struct build b;
	size_t n = ops->t->mods.n + 1;
	int rc = -1;

	memset(&b, 0, sizeof(b));
	b.res = res;
	b.ops = ops;
	b.t = ops->t;
	res->ops = ops;
	ops->paths = &res->paths;
	sbuf_init(&b.sb);
	b.parent = opmfu_malloc(n * sizeof(*b.parent));
	b.depth = opmfu_malloc(n * sizeof(*b.depth));
	b.mord = opmfu_malloc(n * sizeof(*b.mord));
	b.path = opmfu_malloc(n * sizeof(*b.path));
	b.eff = opmfu_malloc(n * sizeof(*b.eff));
	opmfu_idtab_init(&b.keys);
	if (b.parent && b.depth && b.mord && b.path && b.eff && !nest(&b) && !make_paths(&b) && !sum_rows(&b))
		rc = 0;
	sbuf_release(&b.sb);
	opmfu_free(b.parent);
	opmfu_free(b.depth);
	opmfu_free(b.mord);
	opmfu_free(b.path);
	opmfu_free(b.eff);
	opmfu_idtab_release(&b.keys);
	if (rc) {
		size_t i;
		for (i = 0; i < ops->n; i++)
			ops->v[i].module = NONE;
		ops->paths = NULL;
		opmfu_modules_release(res);
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory computing module-level MFU");
	}
	return OPMFU_OK;
}
