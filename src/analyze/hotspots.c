/*
 * hotspots.c - OpmfuOpTypes and OpmfuKernels (hotspots.h): sums per name
 * through a direct map from string ids, then one sort by lost time.
 */
#include "analyze/hotspots.h"

#include <math.h>
#include <string.h>

#include "base/mem.h"
#include "base/sat.h"
#include "base/sort.h"

#define NONE UINT32_MAX

void opmfu_hotspots_init(struct opmfu_hotspots *res)
{
	memset(res, 0, sizeof(*res));
}

void opmfu_hotspots_release(struct opmfu_hotspots *res)
{
	opmfu_free(res->ops);
	opmfu_free(res->kernels);
	opmfu_hotspots_init(res);
}

static size_t at_most(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* The sums of name, made on first use; by[] maps sids to them. */
static struct opmfu_hot *slot(struct opmfu_hot *v, size_t *n, uint32_t *by, uint32_t name)
{
	if (by[name] == NONE) {
		by[name] = (uint32_t)(*n)++;
		memset(&v[by[name]], 0, sizeof(v[0]));
		v[by[name]].name = name;
	}
	return &v[by[name]];
}

/* A share (0..1) of unit u into h. */
static void add(struct opmfu_hot *h, const struct opmfu_ops *ops, const struct opmfu_unit *u, double share,
		int64_t ns)
{
	double peak = opmfu_unit_peak(ops, u), roof = opmfu_unit_roofline_ns(ops, u);
	h->kernel_ns = opmfu_sat_add(h->kernel_ns, ns);
	if (roof >= 0) {
		h->roofline_ns += roof * share;
		h->roofline_kernel_ns = opmfu_sat_add(h->roofline_kernel_ns, ns);
	}
	h->lost_ns += opmfu_unit_lost_ns(ops, u) * share;
	h->recoverable_ns += opmfu_unit_recoverable_ns(ops, u) * share;
	if (u->src < 0)
		return;
	h->flops_kernel_ns = opmfu_sat_add(h->flops_kernel_ns, ns);
	h->flops = opmfu_sat_add(h->flops, opmfu_sat_round((double)u->flops * share));
	if (peak > 0) {
		h->cap_flops += (double)ns * 1e-9 * peak;
		h->flops_peaked += (double)u->flops * share;
	}
}

static int less_hot(const void *pa, const void *pb)
{
	const struct opmfu_hot *a = pa, *b = pb;
	return a->lost_ns > b->lost_ns;
}

static int by_kernel(const struct opmfu_ops *ops, struct opmfu_hotspots *res, uint32_t *by)
{
	const struct opmfu_trace *t = ops->t;
	size_t i;
	/* one row per distinct name: never more than the string table holds */
	if (!(res->kernels = opmfu_malloc((at_most(t->n_compute, t->strs.n) + 1) * sizeof(*res->kernels))))
		return -1;
	for (i = 0; i < t->n_compute; i++) {
		const struct opmfu_link *l = &t->links[i];
		uint32_t un = ops->op_unit ? ops->op_unit[l->op] : NONE;
		const struct opmfu_unit *u;
		int64_t ns = l->k_end - l->k_start;
		struct opmfu_hot *h;
		if (un == NONE || l->k_name >= t->strs.n)
			continue;
		/* a kernel linked to two op instances of one unit (two CONNECTION_IDS rows) is one
		 * kernel: its links come one after the other */
		if (i && l->k_start == l[-1].k_start && l->k_end == l[-1].k_end && l->k_name == l[-1].k_name &&
		    ops->op_unit[l[-1].op] == un)
			continue;
		u = &ops->v[un];
		h = slot(res->kernels, &res->n_kernels, by, l->k_name);
		h->count++;
		if (ns > 0)
			add(h, ops, u, u->kernel_ns > 0 ? (double)ns / (double)u->kernel_ns : 0, ns);
	}
	return 0;
}

enum opmfu_status opmfu_hotspots_run(const struct opmfu_ops *ops, struct opmfu_hotspots *res, struct opmfu_err *err)
{
	const struct opmfu_trace *t = ops->t;
	size_t i, n_sids = t->strs.n + 1;
	uint32_t *by = opmfu_malloc(n_sids * sizeof(*by));
	int rc = -1;

	res->src = ops;
	if (!by || !(res->ops = opmfu_malloc((at_most(ops->n, t->strs.n) + 1) * sizeof(*res->ops))))
		goto out;
	memset(by, 0xff, n_sids * sizeof(*by));
	for (i = 0; i < ops->n; i++) {
		const struct opmfu_unit *u = &ops->v[i];
		uint32_t name = t->links[u->first_link].op_name;
		struct opmfu_hot *h;
		if (name >= t->strs.n)
			continue;
		h = slot(res->ops, &res->n_ops, by, name);
		h->count++;
		add(h, ops, u, 1, u->kernel_ns);
	}
	memset(by, 0xff, n_sids * sizeof(*by));
	/* stable sorts: equal lost time keeps the order of first appearance */
	if (by_kernel(ops, res, by) || opmfu_sort_array(res->ops, res->n_ops, sizeof(*res->ops), less_hot) ||
	    opmfu_sort_array(res->kernels, res->n_kernels, sizeof(*res->kernels), less_hot))
		goto out;
	rc = 0;
out:
	opmfu_free(by);
	if (rc) {
		opmfu_hotspots_release(res);
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory summing the hotspots");
	}
	return OPMFU_OK;
}

double opmfu_hot_mfu(const struct opmfu_hot *h)
{
	return h->cap_flops > 0 ? h->flops_peaked / h->cap_flops : -1;
}

static const struct opmfu_column op_cols[] = {
	{ "rank_id", OPMFU_COL_INT, "Rank ID", 0, 0 },
	{ "op_name", OPMFU_COL_TEXT, "Op Name", 40, 0 },
	{ "ops", OPMFU_COL_INT, "Ops", 0, 0 },
	{ "kernel_ns", OPMFU_COL_INT, "Kernel Time(ns)", 15, 0 },
	{ "flops_kernel_ns", OPMFU_COL_INT, "Kernel Time with FLOPs(ns)", 15, 0 },
	{ "flops", OPMFU_COL_INT, "FLOPs", 18, 0 },
	{ "mfu", OPMFU_COL_REAL, "MFU", 10, OPMFU_COLF_PERCENT },
	{ "lost_ns", OPMFU_COL_INT, "Lost Time(ns)", 15, 0 },
	{ "recoverable_ns", OPMFU_COL_INT, "Recoverable Time(ns)", 15, 0 },
	{ "roofline_ns", OPMFU_COL_INT, "Roofline Time(ns)", 15, 0 },
	{ "roofline_kernel_ns", OPMFU_COL_INT, "Kernel Time with a Roofline(ns)", 15, 0 },
};
static const struct opmfu_column kernel_cols[] = {
	{ "rank_id", OPMFU_COL_INT, "Rank ID", 0, 0 },
	{ "kernel_name", OPMFU_COL_TEXT, "Kernel Name", 50, 0 },
	{ "kernels", OPMFU_COL_INT, "Kernels", 0, 0 },
	{ "kernel_ns", OPMFU_COL_INT, "Kernel Time(ns)", 15, 0 },
	{ "flops_kernel_ns", OPMFU_COL_INT, "Kernel Time with FLOPs(ns)", 15, 0 },
	{ "flops", OPMFU_COL_INT, "FLOPs", 18, 0 },
	{ "mfu", OPMFU_COL_REAL, "MFU", 10, OPMFU_COLF_PERCENT },
	{ "lost_ns", OPMFU_COL_INT, "Lost Time(ns)", 15, 0 },
	{ "recoverable_ns", OPMFU_COL_INT, "Recoverable Time(ns)", 15, 0 },
	{ "roofline_ns", OPMFU_COL_INT, "Roofline Time(ns)", 15, 0 },
	{ "roofline_kernel_ns", OPMFU_COL_INT, "Kernel Time with a Roofline(ns)", 15, 0 },
};

const struct opmfu_table_def opmfu_op_types_def = { "OpmfuOpTypes", op_cols, sizeof(op_cols) / sizeof(op_cols[0]),
						     NULL, OPMFU_TABLE_DETAIL, NULL };
const struct opmfu_table_def opmfu_kernels_def = { "OpmfuKernels", kernel_cols,
						   sizeof(kernel_cols) / sizeof(kernel_cols[0]), NULL, OPMFU_TABLE_DETAIL, NULL };

static struct opmfu_cell name_cell(const struct opmfu_hotspots *hot, uint32_t sid)
{
	const struct opmfu_strtab *st = &hot->src->t->strs;
	return opmfu_cell_text(opmfu_strtab_str(st, sid), opmfu_strtab_len(st, sid));
}

/* One sum of either table (the same columns but the count's name). */
static void hot_row(const struct opmfu_hotspots_table *ht, const struct opmfu_hot *h, struct opmfu_cell *c)
{
	double mfu = opmfu_hot_mfu(h);
	c[0] = opmfu_cell_int(ht->rank);
	c[1] = name_cell(ht->hot, h->name);
	c[2] = opmfu_cell_int(h->count);
	c[3] = opmfu_cell_int(h->kernel_ns);
	c[4] = opmfu_cell_int(h->flops_kernel_ns);
	c[5] = opmfu_cell_int(h->flops);
	c[6] = opmfu_cell_known(mfu);
	c[7] = opmfu_cell_int(opmfu_sat_round(h->lost_ns));
	c[8] = opmfu_cell_int(opmfu_sat_round(h->recoverable_ns));
	c[9] = h->roofline_kernel_ns > 0 ? opmfu_cell_int(opmfu_sat_round(h->roofline_ns)) : opmfu_cell_null();
	c[10] = opmfu_cell_int(h->roofline_kernel_ns);
}

static void op_row(const void *src, size_t i, struct opmfu_cell *c)
{
	const struct opmfu_hotspots_table *ht = src;
	hot_row(ht, &ht->hot->ops[i], c);
}

static void kernel_row(const void *src, size_t i, struct opmfu_cell *c)
{
	const struct opmfu_hotspots_table *ht = src;
	hot_row(ht, &ht->hot->kernels[i], c);
}

struct opmfu_table opmfu_op_types_table(const struct opmfu_hotspots_table *src)
{
	struct opmfu_table tab = { &opmfu_op_types_def, src->hot->n_ops, op_row, src };
	return tab;
}

struct opmfu_table opmfu_kernels_table(const struct opmfu_hotspots_table *src)
{
	struct opmfu_table tab = { &opmfu_kernels_def, src->hot->n_kernels, kernel_row, src };
	return tab;
}

/* ---- as a registered analysis (trace/analysis.h) ---- */

static void hot_init(void *s)
{
	opmfu_hotspots_init(&((struct opmfu_hotspots_state *)s)->hot);
}

static void hot_release(void *s)
{
	opmfu_hotspots_release(&((struct opmfu_hotspots_state *)s)->hot);
}

static enum opmfu_status hot_run(void *s, const struct opmfu_rank_ctx *ctx, struct opmfu_err *err)
{
	struct opmfu_ops_state *ops = opmfu_rank_state(ctx, &opmfu_analysis_ops);
	return opmfu_hotspots_run(&ops->ops, &((struct opmfu_hotspots_state *)s)->hot, err);
}

static enum opmfu_status hot_tables(void *s, const struct opmfu_rank_ctx *ctx, struct opmfu_table *out, size_t *n,
				     struct opmfu_err *err)
{
	(void)err;
	struct opmfu_hotspots_state *st = s;
	st->view.hot = &st->hot;
	st->view.rank = ctx->rank;
	out[0] = opmfu_op_types_table(&st->view);
	out[1] = opmfu_kernels_table(&st->view);
	*n = 2;
	return OPMFU_OK;
}

static const char *const hot_needs[] = { "ops", NULL };
static const struct opmfu_table_def *const hot_makes[] = { &opmfu_op_types_def, &opmfu_kernels_def, NULL };

const struct opmfu_analysis opmfu_analysis_hotspots = {
	.name = "hotspots", .scope = OPMFU_PER_RANK, .stage = OPMFU_STAGE_UNITS, .needs = hot_needs,
	.makes = hot_makes, .state_size = sizeof(struct opmfu_hotspots_state), .init = hot_init,
	.release = hot_release, .run = hot_run, .tables = hot_tables,
};
