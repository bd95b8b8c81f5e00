/*
 * shapes.c - OpmfuShapes (shapes.h): the units summed per key in one pass
 * (a hash of the keys to their rows), then one sort of the rows by
 * recoverable time.
 */
#include "analyze/shapes.h"

#include <string.h>

#include "analyze/steps.h"
#include "base/idtab.h"
#include "base/mem.h"
#include "base/sat.h"
#include "base/sort.h"

void opmfu_shapes_init(struct opmfu_shapes *res)
{
	memset(res, 0, sizeof(*res));
}

void opmfu_shapes_release(struct opmfu_shapes *res)
{
	opmfu_free(res->v);
	opmfu_shapes_init(res);
}

struct key {
	uint32_t op_name, shapes, dtypes;
};

static struct key unit_key(const struct opmfu_ops *ops, const struct opmfu_unit *u)
{
	const struct opmfu_trace *t = ops->t;
	const struct opmfu_link *m = &t->links[u->main_link];
	struct key k;
	k.op_name = t->links[u->first_link].op_name;
	k.shapes = m->in_shapes == t->shape_unknown ? 0 : m->in_shapes;
	k.dtypes = m->dtype ? opmfu_trace_dtype(t, m->dtype)->text : 0;
	return k;
}

static int key_eq_row(const struct key *k, const struct opmfu_shape_row *r)
{
	return k->op_name == r->op_name && k->shapes == r->shapes && k->dtypes == r->dtypes;
}

struct row_probe {
	const struct opmfu_shape_row *rows;
	struct key k;
};

static int row_eq(const void *probe, uint32_t id)
{
	const struct row_probe *p = probe;
	return key_eq_row(&p->k, &p->rows[id]);
}

static uint64_t key_hash(const struct key *k)
{
	return opmfu_mix64(((uint64_t)k->op_name << 32 | k->shapes) ^ opmfu_mix64(k->dtypes));
}

static int less_row(const void *pa, const void *pb)
{
	const struct opmfu_shape_row *a = pa, *b = pb;
	if (a->recoverable_ns != b->recoverable_ns)
		return a->recoverable_ns > b->recoverable_ns;
	return a->first < b->first;
}

static void add_unit(struct opmfu_shape_row *r, const struct opmfu_ops *ops, const struct opmfu_unit *u)
{
	double peak = opmfu_unit_peak(ops, u), roof = opmfu_unit_roofline_ns(ops, u);
	r->calls++;
	r->kernel_ns = opmfu_sat_add(r->kernel_ns, u->kernel_ns);
	r->bytes = r->bytes < 0 || u->bytes < 0 ? -1 : opmfu_sat_add(r->bytes, u->bytes);
	r->roofline_ns = r->roofline_ns < 0 || roof < 0 ? -1 : r->roofline_ns + roof;
	if (roof >= 0) {
		r->roofline_known_ns += roof;
		r->roofline_kernel_ns = opmfu_sat_add(r->roofline_kernel_ns, u->kernel_ns);
	}
	r->recoverable_ns += opmfu_unit_recoverable_ns(ops, u);
	r->lost_ns += opmfu_unit_lost_ns(ops, u);
	if (u->src < 0)
		return;
	r->flops_kernel_ns = opmfu_sat_add(r->flops_kernel_ns, u->kernel_ns);
	r->flops = opmfu_sat_add(r->flops, u->flops);
	if (peak > 0) {
		r->cap_flops += (double)u->kernel_ns * 1e-9 * peak;
		r->flops_peaked += (double)u->flops;
	}
}

_Static_assert(sizeof(struct opmfu_shape_row) <= OPMFU_SORT_MAX_ELEM, "sorted in place");

enum opmfu_status opmfu_shapes_run(const struct opmfu_ops *ops, double per_step_ns, struct opmfu_shapes *res,
				   struct opmfu_err *err)
{
	struct opmfu_idtab tab;
	size_t n = ops->n, i, cap = 0;
	int rc = -1;

	res->ops = ops;
	res->per_step_ns = per_step_ns > 0 ? per_step_ns : 0;
	opmfu_idtab_init(&tab);
	/* units in their order: a row's first unit is the lowest index, and its sums add the units
	 * in index order whatever the keys */
	for (i = 0; i < n; i++) {
		const struct opmfu_unit *u = &ops->v[i];
		struct row_probe p;
		struct opmfu_shape_row *r;
		uint32_t id;
		p.k = unit_key(ops, u);
		/* rows are few (a rank has few shapes): grown as keys come; the probe sees the array
		 * as it is now */
		if (OPMFU_GROW(res->v, cap, res->n + 1))
			goto out;
		p.rows = res->v;
		id = opmfu_idtab_get(&tab, key_hash(&p.k), row_eq, &p, (uint32_t)res->n);
		if (id == OPMFU_IDTAB_NONE)
			goto out;
		r = &res->v[id];
		if (id == res->n) {
			memset(r, 0, sizeof(*r));
			r->op_name = p.k.op_name;
			r->shapes = p.k.shapes;
			r->dtypes = p.k.dtypes;
			r->first = (uint32_t)i;
			r->src = u->src;
			r->prec = u->prec;
			res->n++;
		}
		add_unit(r, ops, u);
	}
	if (opmfu_sort_array(res->v, res->n, sizeof(*res->v), less_row))
		goto out;
	rc = 0;
out:
	opmfu_idtab_release(&tab);
	if (rc) {
		opmfu_shapes_release(res);
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory summing the op shapes");
	}
	return OPMFU_OK;
}

const char *opmfu_shape_bound(const struct opmfu_shapes *res, const struct opmfu_shape_row *r)
{
	struct opmfu_unit u;
	memset(&u, 0, sizeof(u));
	u.kernel_ns = r->kernel_ns;
	u.flops = r->flops;
	u.bytes = r->bytes;
	u.src = r->src;
	u.prec = r->prec;
	return opmfu_unit_bound(res->ops, &u);
}

/* ---- the table (schema/out/opmfu_shapes.sql) ---- */

static const struct opmfu_column cols[] = {
	{ "rank_id", OPMFU_COL_INT, "Rank ID", 0, 0 },
	{ "op_name", OPMFU_COL_TEXT, "Op Name", 30, 0 },
	{ "input_shapes", OPMFU_COL_TEXT, "Input Shapes", 40, 0 },
	{ "input_dtypes", OPMFU_COL_TEXT, "Input Dtypes", 30, 0 },
	{ "calls", OPMFU_COL_INT, "Calls", 0, 0 },
	{ "kernel_ns", OPMFU_COL_INT, "Kernel Time(ns)", 15, 0 },
	{ "flops", OPMFU_COL_INT, "FLOPs", 18, 0 },
	{ "bytes", OPMFU_COL_INT, "Bytes", 15, 0 },
	{ "achieved_tflops", OPMFU_COL_REAL, "Achieved TFLOPS", 0, 0 },
	{ "achieved_tbps", OPMFU_COL_REAL, "Achieved TB/s", 0, 0 },
	{ "bound", OPMFU_COL_TEXT, "Bound", 0, 0 },
	{ "roofline_eff", OPMFU_COL_REAL, "Roofline Efficiency", 0, OPMFU_COLF_PERCENT },
	{ "recoverable_ns", OPMFU_COL_INT, "Recoverable Time(ns)", 15, 0 },
	{ "pct_of_step", OPMFU_COL_REAL, "% of Step", 0, OPMFU_COLF_PERCENT },
	{ "flops_kernel_ns", OPMFU_COL_INT, "Kernel Time with FLOPs(ns)", 15, 0 },
	{ "mfu", OPMFU_COL_REAL, "MFU", 10, OPMFU_COLF_PERCENT },
	{ "lost_ns", OPMFU_COL_INT, "Lost Time(ns)", 15, 0 },
	{ "roofline_ns", OPMFU_COL_INT, "Roofline Time(ns)", 15, 0 },
	{ "roofline_kernel_ns", OPMFU_COL_INT, "Kernel Time with a Roofline(ns)", 15, 0 },
	{ "intensity", OPMFU_COL_REAL, "FLOPs per Byte", 0, 0 },
};

const struct opmfu_table_def opmfu_shapes_def = { "OpmfuShapes", cols, sizeof(cols) / sizeof(cols[0]), NULL,
						 OPMFU_TABLE_DETAIL, NULL };

static struct opmfu_cell sid_cell(const struct opmfu_trace *t, uint32_t sid)
{
	return sid ? opmfu_cell_text(opmfu_strtab_str(&t->strs, sid), opmfu_strtab_len(&t->strs, sid))
		   : opmfu_cell_null();
}

static void shape_row(const void *src, size_t i, struct opmfu_cell *c)
{
	const struct opmfu_shapes_table *st = src;
	const struct opmfu_shapes *sh = st->sh;
	const struct opmfu_shape_row *r = &sh->v[i];
	const struct opmfu_trace *t = sh->ops->t;
	const char *bound = opmfu_shape_bound(sh, r);

	c[0] = opmfu_cell_int(st->rank);
	c[1] = sid_cell(t, r->op_name);
	c[2] = sid_cell(t, r->shapes);
	c[3] = sid_cell(t, r->dtypes);
	c[4] = opmfu_cell_int(r->calls);
	c[5] = opmfu_cell_int(r->kernel_ns);
	c[6] = r->flops_kernel_ns > 0 ? opmfu_cell_int(r->flops) : opmfu_cell_null();
	c[7] = r->bytes >= 0 ? opmfu_cell_int(r->bytes) : opmfu_cell_null();
	c[8] = r->flops_kernel_ns > 0 ? opmfu_cell_real((double)r->flops / (double)r->flops_kernel_ns * 1e-3)
				       : opmfu_cell_null();
	c[9] = r->bytes >= 0 && r->kernel_ns > 0 ? opmfu_cell_real((double)r->bytes / (double)r->kernel_ns * 1e-3)
						 : opmfu_cell_null();
	c[10] = strcmp(bound, "unknown") ? opmfu_cell_str(bound) : opmfu_cell_null();
	c[11] = r->roofline_ns >= 0 && r->kernel_ns > 0 ? opmfu_cell_real(r->roofline_ns / (double)r->kernel_ns)
							: opmfu_cell_null();
	c[12] = opmfu_cell_int(opmfu_sat_round(r->recoverable_ns));
	c[13] = sh->per_step_ns > 0 ? opmfu_cell_real((double)r->kernel_ns / sh->per_step_ns) : opmfu_cell_null();
	c[14] = opmfu_cell_int(r->flops_kernel_ns);
	c[15] = opmfu_cell_known(r->cap_flops > 0 ? r->flops_peaked / r->cap_flops : -1);
	c[16] = opmfu_cell_int(opmfu_sat_round(r->lost_ns));
	c[17] = r->roofline_kernel_ns > 0 ? opmfu_cell_int(opmfu_sat_round(r->roofline_known_ns)) : opmfu_cell_null();
	c[18] = opmfu_cell_int(r->roofline_kernel_ns);
	/* the roofline's x (the summary workbook's roofline chart): NULL without FLOPs or bytes */
	c[19] = r->flops_kernel_ns > 0 && r->flops > 0 && r->bytes > 0 ? opmfu_cell_real((double)r->flops / (double)r->bytes)
								    : opmfu_cell_null();
}

struct opmfu_table opmfu_shapes_table(const struct opmfu_shapes_table *src)
{
	struct opmfu_table tab = { &opmfu_shapes_def, src->sh->n, shape_row, src };
	return tab;
}

/* ---- as a registered analysis (trace/analysis.h) ---- */

static void sh_init(void *s)
{
	opmfu_shapes_init(&((struct opmfu_shapes_state *)s)->sh);
}

static void sh_release(void *s)
{
	opmfu_shapes_release(&((struct opmfu_shapes_state *)s)->sh);
}

/* Steps with device activity (not the backlog) x the rank's median step, as the account's pct_of_step. */
static double per_step(const struct opmfu_steps *s)
{
	size_t i, n = 0;
	for (i = 0; i < s->n; i++)
		n += s->v[i].kind != OPMFU_WINDOW_BACKLOG && opmfu_step_window(&s->v[i]) > 0;
	return s->step_ns_median > 0 ? (double)n * s->step_ns_median : 0;
}

static enum opmfu_status sh_run(void *s, const struct opmfu_rank_ctx *ctx, struct opmfu_err *err)
{
	struct opmfu_ops_state *ops = opmfu_rank_state(ctx, &opmfu_analysis_ops);
	struct opmfu_steps_state *steps = opmfu_rank_state(ctx, &opmfu_analysis_steps);
	return opmfu_shapes_run(&ops->ops, steps ? per_step(&steps->steps) : 0, &((struct opmfu_shapes_state *)s)->sh,
				err);
}

static enum opmfu_status sh_tables(void *s, const struct opmfu_rank_ctx *ctx, struct opmfu_table *out, size_t *n,
				   struct opmfu_err *err)
{
	(void)err;
	struct opmfu_shapes_state *st = s;
	st->view.sh = &st->sh;
	st->view.rank = ctx->rank;
	out[0] = opmfu_shapes_table(&st->view);
	*n = 1;
	return OPMFU_OK;
}

static const char *const sh_needs[] = { "ops", "steps", NULL };
static const struct opmfu_table_def *const sh_makes[] = { &opmfu_shapes_def, NULL };

const struct opmfu_analysis opmfu_analysis_shapes = {
	.name = "shapes", .scope = OPMFU_PER_RANK, .stage = OPMFU_STAGE_UNITS, .needs = sh_needs, .makes = sh_makes,
	.state_size = sizeof(struct opmfu_shapes_state), .init = sh_init, .release = sh_release, .run = sh_run,
	.tables = sh_tables,
};
