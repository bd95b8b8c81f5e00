/*
 * module_classes.c - OpmfuModuleClasses (module_classes.h): each module
 * path's chain of classes made once, then every unit added to the distinct
 * classes along its module's chain.
 */
#include "analyze/module_classes.h"

#include <string.h>

#include "base/mem.h"
#include "base/sat.h"
#include "base/sort.h"

#define NONE UINT32_MAX

size_t opmfu_module_class_len(const char *s, size_t n)
{
	size_t i = n;
	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	/* digits, after a "_", after something */
	if (i < n && i >= 2 && s[i - 1] == '_')
		return i - 1;
	return n;
}

void opmfu_module_classes_init(struct opmfu_module_classes *res)
{
	memset(res, 0, sizeof(*res));
	opmfu_intern_init(&res->classes, &res->ar);
}

void opmfu_module_classes_release(struct opmfu_module_classes *res)
{
	opmfu_intern_release(&res->classes);
	opmfu_arena_release(&res->ar);
	opmfu_free(res->v);
	opmfu_module_classes_init(res);
}

/* Per path: the distinct classes of its names, its own (last) first. */
struct chains {
	uint32_t *off; /* path p's classes are cls[off[p] .. off[p + 1]) */
	uint32_t *cls;
	size_t n, cap;
};

static int chain_add(struct chains *c, uint32_t from, uint32_t id)
{
	size_t k;
	for (k = from; k < c->n; k++)
		if (c->cls[k] == id)
			return 0;
	if (OPMFU_GROW(c->cls, c->cap, c->n + 1))
		return -1;
	c->cls[c->n++] = id;
	return 0;
}

static int make_chains(const struct opmfu_modules *mods, struct opmfu_module_classes *res, struct chains *c)
{
	size_t np = mods->paths.n, p;
	if (!(c->off = opmfu_malloc((np + 1) * sizeof(*c->off))))
		return -1;
	for (p = 0; p < np; p++) {
		const char *s = opmfu_intern_str(&mods->paths, (uint32_t)p);
		size_t len = opmfu_intern_len(&mods->paths, (uint32_t)p), end = len, start;
		c->off[p] = (uint32_t)c->n;
		/* from the last name to the first */
		for (;;) {
			uint32_t id;
			for (start = end; start > 0 && s[start - 1] != '/'; start--)
				;
			id = opmfu_intern_add(&res->classes, s + start, opmfu_module_class_len(s + start, end - start));
			if (id == OPMFU_IDTAB_NONE || chain_add(c, c->off[p], id))
				return -1;
			if (start == 0)
				break;
			end = start - 1;
		}
	}
	c->off[np] = (uint32_t)c->n;
	return 0;
}

static int less_class(const void *ctx, uint32_t ia, uint32_t ib)
{
	const struct opmfu_mclass *a = (const struct opmfu_mclass *)ctx + ia, *b = (const struct opmfu_mclass *)ctx + ib;
	if (a->all.recoverable_ns != b->all.recoverable_ns)
		return a->all.recoverable_ns > b->all.recoverable_ns;
	return a->name < b->name;
}

/* Into less_class's order (too large for an in-place sort: through an index). */
static int sort_classes(struct opmfu_module_classes *res)
{
	size_t n = res->n, i;
	uint32_t *ord = opmfu_malloc((n + 1) * sizeof(*ord));
	struct opmfu_mclass *v = opmfu_malloc((n + 1) * sizeof(*v));
	int rc = -1;

	if (ord && v) {
		for (i = 0; i < n; i++)
			ord[i] = (uint32_t)i;
		if (!opmfu_sort_idx(ord, n, less_class, res->v)) {
			for (i = 0; i < n; i++)
				v[i] = res->v[ord[i]];
			opmfu_free(res->v);
			res->v = v;
			v = NULL;
			rc = 0;
		}
	}
	opmfu_free(ord);
	opmfu_free(v);
	return rc;
}

enum opmfu_status opmfu_module_classes_run(const struct opmfu_modules *mods, struct opmfu_module_classes *res,
					   struct opmfu_err *err)
{
	const struct opmfu_ops *ops = mods->ops;
	struct chains c = { 0 };
	size_t i, k;
	int rc = -1;

	if (make_chains(mods, res, &c) || !(res->v = opmfu_calloc(res->classes.n + 1, sizeof(*res->v))))
		goto out;
	res->n = res->classes.n;
	for (i = 0; i < res->n; i++)
		res->v[i].name = (uint32_t)i;
	for (i = 0; i < mods->n_rows; i++) {
		const struct opmfu_mrow *r = &mods->rows[i];
		struct opmfu_mclass *m = &res->v[c.cls[c.off[r->path]]];
		m->paths++;
		m->calls += r->calls;
	}
	for (i = 0; ops && i < ops->n; i++) {
		const struct opmfu_unit *u = &ops->v[i];
		if (u->module == OPMFU_UNIT_NONE || u->module >= mods->paths.n)
			continue;
		opmfu_msum_add(&res->v[c.cls[c.off[u->module]]].self, ops, u);
		for (k = c.off[u->module]; k < c.off[u->module + 1]; k++)
			opmfu_msum_add(&res->v[c.cls[k]].all, ops, u);
	}
	if (sort_classes(res))
		goto out;
	rc = 0;
out:
	opmfu_free(c.off);
	opmfu_free(c.cls);
	if (rc) {
		opmfu_module_classes_release(res);
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory summing the module classes");
	}
	return OPMFU_OK;
}

/* ---- the table (schema/out/opmfu_module_classes.sql) ---- */

static const struct opmfu_column cols[] = {
	{ "rank_id", OPMFU_COL_INT, "Rank ID", 0, 0 },
	{ "module_class", OPMFU_COL_TEXT, "Module Class", 40, 0 },
	{ "paths", OPMFU_COL_INT, "Instances", 0, 0 },
	{ "calls", OPMFU_COL_INT, "Calls", 0, 0 },
	{ "kernel_ns", OPMFU_COL_INT, "Kernel Time(ns)", 15, 0 },
	{ "flops_kernel_ns", OPMFU_COL_INT, "Kernel Time with FLOPs(ns)", 15, 0 },
	{ "flops", OPMFU_COL_INT, "FLOPs", 18, 0 },
	{ "mfu", OPMFU_COL_REAL, "MFU", 10, OPMFU_COLF_PERCENT },
	{ "lost_ns", OPMFU_COL_INT, "Lost Time(ns)", 15, 0 },
	{ "recoverable_ns", OPMFU_COL_INT, "Recoverable Time(ns)", 15, 0 },
	{ "self_kernel_ns", OPMFU_COL_INT, "Own Kernel Time(ns)", 15, 0 },
	{ "self_lost_ns", OPMFU_COL_INT, "Own Lost Time(ns)", 15, 0 },
	{ "self_recoverable_ns", OPMFU_COL_INT, "Own Recoverable Time(ns)", 15, 0 },
	{ "roofline_ns", OPMFU_COL_INT, "Roofline Time(ns)", 15, 0 },
	{ "roofline_kernel_ns", OPMFU_COL_INT, "Kernel Time with a Roofline(ns)", 15, 0 },
	{ "self_roofline_ns", OPMFU_COL_INT, "Own Roofline Time(ns)", 15, 0 },
	{ "self_roofline_kernel_ns", OPMFU_COL_INT, "Own Kernel Time with a Roofline(ns)", 15, 0 },
};

const struct opmfu_table_def opmfu_module_classes_def = {
	"OpmfuModuleClasses", cols, sizeof(cols) / sizeof(cols[0]), NULL, OPMFU_TABLE_DETAIL, NULL,
};

static void class_row(const void *src, size_t i, struct opmfu_cell *c)
{
	const struct opmfu_module_classes_table *mt = src;
	const struct opmfu_mclass *m = &mt->mc->v[i];

	c[0] = opmfu_cell_int(mt->rank);
	c[1] = opmfu_cell_text(opmfu_intern_str(&mt->mc->classes, m->name), opmfu_intern_len(&mt->mc->classes, m->name));
	c[2] = opmfu_cell_int(m->paths);
	c[3] = opmfu_cell_int((int64_t)m->calls);
	c[4] = opmfu_cell_int(m->all.kernel_ns);
	c[5] = opmfu_cell_int(m->all.flops_kernel_ns);
	c[6] = opmfu_cell_int(m->all.flops);
	c[7] = opmfu_cell_known(opmfu_msum_mfu(&m->all));
	c[8] = opmfu_cell_int(opmfu_sat_round(m->all.lost_ns));
	c[9] = opmfu_cell_int(opmfu_sat_round(m->all.recoverable_ns));
	c[10] = opmfu_cell_int(m->self.kernel_ns);
	c[11] = opmfu_cell_int(opmfu_sat_round(m->self.lost_ns));
	c[12] = opmfu_cell_int(opmfu_sat_round(m->self.recoverable_ns));
	c[13] = opmfu_msum_roofline_cell(&m->all);
	c[14] = opmfu_cell_int(m->all.roofline_kernel_ns);
	c[15] = opmfu_msum_roofline_cell(&m->self);
	c[16] = opmfu_cell_int(m->self.roofline_kernel_ns);
}

struct opmfu_table opmfu_module_classes_table(const struct opmfu_module_classes_table *src)
{
	struct opmfu_table tab = { &opmfu_module_classes_def, src->mc->n, class_row, src };
	return tab;
}

/* ---- as a registered analysis (trace/analysis.h) ---- */

static void mc_init(void *s)
{
	opmfu_module_classes_init(&((struct opmfu_module_classes_state *)s)->mc);
}

static void mc_release(void *s)
{
	opmfu_module_classes_release(&((struct opmfu_module_classes_state *)s)->mc);
}

static enum opmfu_status mc_run(void *s, const struct opmfu_rank_ctx *ctx, struct opmfu_err *err)
{
	struct opmfu_modules_state *mods = opmfu_rank_state(ctx, &opmfu_analysis_modules);
	return opmfu_module_classes_run(&mods->mods, &((struct opmfu_module_classes_state *)s)->mc, err);
}

static enum opmfu_status mc_tables(void *s, const struct opmfu_rank_ctx *ctx, struct opmfu_table *out, size_t *n,
				   struct opmfu_err *err)
{
	(void)err;
	struct opmfu_module_classes_state *st = s;
	st->view.mc = &st->mc;
	st->view.rank = ctx->rank;
	out[0] = opmfu_module_classes_table(&st->view);
	*n = 1;
	return OPMFU_OK;
}

static const char *const mc_needs[] = { "modules", NULL };
static const struct opmfu_table_def *const mc_makes[] = { &opmfu_module_classes_def, NULL };

const struct opmfu_analysis opmfu_analysis_module_classes = {
	.name = "module_classes", .scope = OPMFU_PER_RANK, .stage = OPMFU_STAGE_UNITS, .needs = mc_needs,
	.makes = mc_makes, .state_size = sizeof(struct opmfu_module_classes_state), .init = mc_init,
	.release = mc_release, .run = mc_run, .tables = mc_tables,
};
