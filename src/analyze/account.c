/*
 * account.c - the run account (SPEC 16): OpmfuRun, OpmfuHotspots and
 * OpmfuStragglers from the ranks' tables (analyze/account.h).
 */
#include "analyze/account.h"

#include <math.h>
#include <string.h>

#include "base/mem.h"
#include "base/sat.h"
#include "base/sbuf.h"
#include "base/sort.h"
#include "trace/coll.h"

/* ---- the tables made ---- */

static const struct opmfu_column run_cols[] = {
	{ "run_id", OPMFU_COL_TEXT, "Run ID", 18, 0 },
	{ "source", OPMFU_COL_TEXT, "Source", 0, 0 },
	{ "ranks", OPMFU_COL_INT, "Ranks", 0, 0 },
	{ "ranks_failed", OPMFU_COL_INT, "Ranks Failed", 0, 0 },
	{ "chip", OPMFU_COL_TEXT, "Chip", 30, 0 },
	{ "peak_tflops", OPMFU_COL_REAL, "Peak TFLOPS", 0, 0 },
	{ "peak_source", OPMFU_COL_TEXT, "Peak Source", 60, 0 },
	{ "median_rank", OPMFU_COL_INT, "Median Rank", 0, 0 },
	{ "median_step", OPMFU_COL_INT, "Median Step", 0, 0 },
	{ "step_ns", OPMFU_COL_INT, "Step Time(ns)", 0, 0 },
	{ "trace_mfu", OPMFU_COL_REAL, "Trace MFU", 0, OPMFU_COLF_PERCENT },
	{ "mfu_busy", OPMFU_COL_REAL, "Busy MFU", 0, OPMFU_COLF_PERCENT },
	{ "flops_coverage", OPMFU_COL_REAL, "FLOPs Coverage", 0, OPMFU_COLF_PERCENT },
	{ "share_idle", OPMFU_COL_REAL, "Idle", 0, OPMFU_COLF_PERCENT },
	{ "share_comm", OPMFU_COL_REAL, "Exposed Communication", 0, OPMFU_COLF_PERCENT },
	{ "share_other_compute", OPMFU_COL_REAL, "Compute without FLOPs", 0, OPMFU_COLF_PERCENT },
	{ "share_inefficiency", OPMFU_COL_REAL, "FLOP Kernels below Peak", 0, OPMFU_COLF_PERCENT },
	{ "ranks_analysed", OPMFU_COL_INT, "Ranks Analysed", 0, 0 },
	{ "mfu_recorded", OPMFU_COL_REAL, "Recorded MFU", 0, OPMFU_COLF_PERCENT },
	{ "share_matmul_noflops", OPMFU_COL_REAL, "GEMM/Conv/Attention without FLOPs", 0, OPMFU_COLF_PERCENT },
	{ "share_other_kernels", OPMFU_COL_REAL, "Other Compute", 0, OPMFU_COLF_PERCENT },
	{ "share_memcpy", OPMFU_COL_REAL, "Copies and Memsets", 0, OPMFU_COLF_PERCENT },
	{ "share_idle_host", OPMFU_COL_REAL, "Idle, Host Late", 0, OPMFU_COLF_PERCENT },
	{ "share_idle_device", OPMFU_COL_REAL, "Idle, Other", 0, OPMFU_COLF_PERCENT },
	{ "profiler_step_ns", OPMFU_COL_INT, "Profiler Step(ns)", 0, 0 },
	{ "backlog_ns", OPMFU_COL_INT, "Backlog(ns)", 0, 0 },
	{ "step_windows", OPMFU_COL_TEXT, "Step Windows", 0, 0 },
	{ "share_memory_bound", OPMFU_COL_REAL, "Memory-Bound, Bytes Known", 0, OPMFU_COLF_PERCENT },
	{ "memory_bound_eff", OPMFU_COL_REAL, "Memory-Bound Bandwidth Efficiency", 0, OPMFU_COLF_PERCENT },
	{ "peak_bw_tbps", OPMFU_COL_REAL, "Peak Memory Bandwidth (TB/s)", 0, 0 },
	{ "peak_bw_source", OPMFU_COL_TEXT, "Peak Memory Bandwidth Source", 60, 0 },
	{ "share_comm_wait", OPMFU_COL_REAL, "Exposed Communication, Waiting", 0, OPMFU_COLF_PERCENT },
};
const struct opmfu_table_def opmfu_run_def = { "OpmfuRun", run_cols, sizeof(run_cols) / sizeof(run_cols[0]), NULL, 0, NULL };
enum { R_ID, R_SOURCE, R_RANKS, R_FAILED, R_CHIP, R_PEAK, R_PEAK_SRC, R_MED_RANK, R_MED_STEP, R_STEP_NS, R_TRACE_MFU,
       R_MFU_BUSY, R_COVERAGE, R_IDLE, R_COMM, R_OTHER, R_INEFF, R_ANALYSED, R_MFU_REC, R_MATMUL, R_OTHER_K,
       R_MEMCPY, R_IDLE_HOST, R_IDLE_DEV, R_PROF_STEP, R_BACKLOG, R_WINDOWS, R_MB, R_MB_EFF, R_PEAK_BW, R_PEAK_BW_SRC, R_COMM_WAIT, R_NCOL };
_Static_assert(R_NCOL == sizeof(run_cols) / sizeof(run_cols[0]), "OpmfuRun's columns");

static const struct opmfu_column hot_cols[] = {
	{ "kind", OPMFU_COL_TEXT, "Kind", 0, 0 },
	{ "name", OPMFU_COL_TEXT, "Name", 60, 0 },
	{ "ranks", OPMFU_COL_INT, "Ranks", 0, 0 },
	{ "calls", OPMFU_COL_INT, "Calls", 0, 0 },
	{ "kernel_ns", OPMFU_COL_INT, "Kernel Time(ns)", 0, 0 },
	{ "recoverable_ns", OPMFU_COL_INT, "Recoverable Time(ns)", 0, 0 },
	{ "lost_ns", OPMFU_COL_INT, "Lost Time(ns)", 0, 0 },
	{ "pct_of_step", OPMFU_COL_REAL, "% of Step", 0, OPMFU_COLF_PERCENT },
	{ "mfu", OPMFU_COL_REAL, "MFU", 0, OPMFU_COLF_PERCENT },
	{ "roofline_eff", OPMFU_COL_REAL, "Roofline Efficiency", 0, OPMFU_COLF_PERCENT },
	{ "achieved_tflops", OPMFU_COL_REAL, "Achieved TFLOPS", 0, 0 },
	{ "intensity", OPMFU_COL_REAL, "FLOPs per Byte", 0, 0 },
};
const struct opmfu_table_def opmfu_hotspots_def = { "OpmfuHotspots", hot_cols, sizeof(hot_cols) / sizeof(hot_cols[0]),
						    NULL, 0, NULL };

static const struct opmfu_column strag_cols[] = {
	{ "measure", OPMFU_COL_TEXT, "Measure", 20, 0 },
	{ "rank_id", OPMFU_COL_INT, "Rank ID", 0, 0 },
	{ "value", OPMFU_COL_REAL, "Value", 0, 0 },
	{ "median", OPMFU_COL_REAL, "Median Rank's Value", 0, 0 },
	{ "delta", OPMFU_COL_REAL, "Delta", 0, 0 },
	{ "culprit_of", OPMFU_COL_TEXT, "Culprit Of", 0, 0 },
};
const struct opmfu_table_def opmfu_stragglers_def = { "OpmfuStragglers", strag_cols,
						      sizeof(strag_cols) / sizeof(strag_cols[0]), NULL, 0, NULL };

const char *opmfu_hot_kind_name(int kind)
{
	static const char *const names[OPMFU_NHOT] = { "module_class", "module", "op_type", "shape", "kernel",
							"collective" };
	return kind >= 0 && kind < OPMFU_NHOT ? names[kind] : "?";
}

/* ---- the median ---- */

struct median_ctx {
	const double *key, *tie;
};

static int median_less(const void *ctx, uint32_t a, uint32_t b)
{
	const struct median_ctx *c = ctx;
	if (c->key[a] != c->key[b])
		return c->key[a] < c->key[b];
	if (c->tie && c->tie[a] != c->tie[b])
		return c->tie[a] < c->tie[b];
	return a < b;
}

size_t opmfu_median_index(const double *key, const double *tie, size_t n, int *nomem)
{
	struct median_ctx c = { key, tie };
	uint32_t *o = opmfu_malloc((n ? n : 1) * sizeof(*o));
	size_t i, m = 0, res = SIZE_MAX;

	*nomem = 0;
	if (!o) {
		*nomem = -1;
		return SIZE_MAX;
	}
	for (i = 0; i < n; i++)
		if (!isnan(key[i]))
			o[m++] = (uint32_t)i;
	if (opmfu_sort_idx(o, m, median_less, &c) != 0)
		*nomem = -1;
	else if (m)
		res = o[(m - 1) / 2];
	opmfu_free(o);
	return res;
}

/* ---- gathering ---- */

/* What one kind of hotspot reads from its table. Its name is the key
 * column's text, then key2's and key3's where not NULL, joined by spaces. */
struct hot_spec {
	const char *table, *key, *key2, *key3, *calls, *kernel_ns, *lost_ns, *recoverable_ns, *mfu, *weight, *roofline_ns,
		*roofline_kernel_ns;
	/* FLOPs and bytes (NULL: not read): achieved_tflops over the weight's time, and intensity */
	const char *flops, *bytes;
};

static const struct hot_spec hot_specs[OPMFU_NHOT] = {
	/* a class is charged everything under its instances (inclusive): the class is what one fixes */
	{ "OpmfuModuleClasses", "module_class", NULL, NULL, "calls", "kernel_ns", "lost_ns", "recoverable_ns", "mfu",
	  "flops_kernel_ns", "roofline_ns", "roofline_kernel_ns", NULL, NULL },
	/* a module path is charged its own ops (not its children's), so the root does not hide the rest */
	{ "OpmfuModules", "module", NULL, NULL, "calls", "self_kernel_ns", "self_lost_ns", "self_recoverable_ns",
	  "self_mfu", "self_kernel_ns", "self_roofline_ns", "self_roofline_kernel_ns", NULL, NULL },
	{ "OpmfuOpTypes", "op_name", NULL, NULL, "ops", "kernel_ns", "lost_ns", "recoverable_ns", "mfu",
	  "flops_kernel_ns", "roofline_ns", "roofline_kernel_ns", NULL, NULL },
	{ "OpmfuShapes", "op_name", "input_shapes", "input_dtypes", "calls", "kernel_ns", "lost_ns", "recoverable_ns",
	  "mfu", "flops_kernel_ns", "roofline_ns", "roofline_kernel_ns", "flops", "bytes" },
	{ "OpmfuKernels", "kernel_name", NULL, NULL, "kernels", "kernel_ns", "lost_ns", "recoverable_ns", "mfu",
	  "flops_kernel_ns", "roofline_ns", "roofline_kernel_ns", NULL, NULL },
	/* no rank's table: the run's OpmfuCollectives, folded by opmfu_account_run_add */
	{ "", "name", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL },
};

static double nz(double v)
{
	return isnan(v) ? 0 : v;
}

static void group_init(struct opmfu_hot_group *g)
{
	memset(g, 0, sizeof(*g));
	opmfu_intern_init(&g->names, &g->ar);
	opmfu_cell_store_init(&g->pending, NULL);
}

static void group_release(struct opmfu_hot_group *g)
{
	opmfu_cell_store_release(&g->pending);
	opmfu_intern_release(&g->names);
	opmfu_arena_release(&g->ar);
	opmfu_free(g->v);
	group_init(g);
}

void opmfu_account_init(struct opmfu_account *a)
{
	int k;
	memset(a, 0, sizeof(*a));
	opmfu_cell_store_init(&a->ranks, NULL);
	for (k = 0; k < OPMFU_NHOT; k++)
		group_init(&a->hot[k]);
	opmfu_cell_store_init(&a->run, &opmfu_run_def);
	opmfu_cell_store_init(&a->hotspots, &opmfu_hotspots_def);
	opmfu_cell_store_init(&a->stragglers, &opmfu_stragglers_def);
	a->median_row = SIZE_MAX;
}

void opmfu_account_release(struct opmfu_account *a)
{
	int k;
	opmfu_cell_store_release(&a->ranks);
	for (k = 0; k < OPMFU_NHOT; k++)
		group_release(&a->hot[k]);
	opmfu_cell_store_release(&a->run);
	opmfu_cell_store_release(&a->hotspots);
	opmfu_cell_store_release(&a->stragglers);
	opmfu_free(a->run_id);
	opmfu_free(a->source);
	opmfu_free(a->sw);
	opmfu_free(a->we);
	opmfu_free(a->coll_last);
	opmfu_account_init(a);
}

static enum opmfu_status store_add(struct opmfu_cell_store *cs, const struct opmfu_table *t, struct opmfu_err *err)
{
	if (!cs->def)
		cs->def = t->def;
	if (cs->def != t->def)
		return opmfu_err_set(err, OPMFU_ERR_SCHEMA, "table %s given with two different column layouts", t->def->name);
	return opmfu_cell_store_add_table(cs, t, err);
}

/* Every OpmfuSteps row of a step (not the backlog) with device activity: a step to count. */
static void add_steps(struct opmfu_account *a, const struct opmfu_table *t)
{
	struct opmfu_cell row[64];
	int c = opmfu_table_col(t->def, "window_ns"), k = opmfu_table_col(t->def, "kind");
	size_t i;
	if (c < 0 || t->def->n_cols > sizeof(row) / sizeof(row[0]))
		return;
	for (i = 0; i < t->n_rows; i++) {
		t->row(t->src, i, row);
		if (k >= 0 && !row[k].null && row[k].v.t.n == 7 && !memcmp(row[k].v.t.s, "backlog", 7))
			continue;
		if (nz(opmfu_cell_num(t->def, row, c)) > 0)
			a->rank_steps_pending++;
	}
}

enum opmfu_status opmfu_account_add(struct opmfu_account *a, const struct opmfu_table *t, struct opmfu_err *err)
{
	const char *name = t->def->name;
	int k;

	if (!strcmp(name, "OpmfuRankSummary"))
		return store_add(&a->ranks, t, err);
	if (!strcmp(name, "OpmfuSteps")) {
		add_steps(a, t);
		return OPMFU_OK;
	}
	for (k = 0; k < OPMFU_NHOT; k++)
		if (!strcmp(name, hot_specs[k].table)) {
			/* folded through this layout: a rank's rows in another would be read at the wrong columns */
			if (!a->hot[k].def)
				a->hot[k].def = t->def;
			if (a->hot[k].def != t->def)
				return opmfu_err_set(err, OPMFU_ERR_SCHEMA, "table %s given with two different column layouts",
						     name);
			return store_add(&a->hot[k].pending, t, err);
		}
	return OPMFU_OK;
}

/* " " and the text of column c of row, if any. */
static void add_key(struct sbuf *sb, const struct opmfu_table_def *def, const struct opmfu_cell *row, int c)
{
	if (c < 0 || row[c].null || def->cols[c].type != OPMFU_COL_TEXT)
		return;
	sbuf_add(sb, " ", 1);
	sbuf_add(sb, row[c].v.t.s, row[c].v.t.n);
}

static enum opmfu_status fold(struct opmfu_hot_group *g, const struct hot_spec *sp, struct opmfu_err *err)
{
	const struct opmfu_table_def *def = g->def;
	int c_key, c_key2, c_key3, c_calls, c_ns, c_lost, c_rec, c_mfu, c_w, c_roof, c_roof_k, c_flops, c_bytes;
	struct sbuf sb;
	size_t i;

	if (!def)
		return OPMFU_OK;
	if (g->col_def != def) {
		const char *const named[13] = { sp->key, sp->calls, sp->kernel_ns, sp->lost_ns, sp->recoverable_ns,
						sp->key2, sp->key3, sp->mfu, sp->weight, sp->roofline_ns,
						sp->roofline_kernel_ns, sp->flops, sp->bytes };
		for (i = 0; i < 13; i++)
			g->col[i] = named[i] ? opmfu_table_col(def, named[i]) : -1;
		g->col_def = def;
	}
	/* in named[]'s order */
	c_key = g->col[0], c_calls = g->col[1], c_ns = g->col[2], c_lost = g->col[3], c_rec = g->col[4];
	c_key2 = g->col[5], c_key3 = g->col[6], c_mfu = g->col[7], c_w = g->col[8], c_roof = g->col[9];
	c_roof_k = g->col[10], c_flops = g->col[11], c_bytes = g->col[12];
	sbuf_init(&sb);
	for (i = 0; c_key >= 0 && i < g->pending.n_rows; i++) {
		const struct opmfu_cell *row = g->pending.cells + i * def->n_cols;
		struct opmfu_hot_sum *h;
		double ns = nz(opmfu_cell_num(def, row, c_ns)), mfu = opmfu_cell_num(def, row, c_mfu);
		double w = nz(opmfu_cell_num(def, row, c_w)), lost = nz(opmfu_cell_num(def, row, c_lost));
		const char *name;
		size_t name_n;
		uint32_t id;

		/* a NULL name has nothing to be summed under; a path whose own ops took no time is no hotspot */
		if (row[c_key].null || def->cols[c_key].type != OPMFU_COL_TEXT || ns <= 0)
			continue;
		name = row[c_key].v.t.s;
		name_n = row[c_key].v.t.n;
		if (c_key2 >= 0 || c_key3 >= 0) {
			sbuf_reset(&sb);
			sbuf_add(&sb, name, name_n);
			add_key(&sb, def, row, c_key2);
			add_key(&sb, def, row, c_key3);
			if (sb.oom)
				break;
			name = sb.buf ? sb.buf : "";
			name_n = sb.len;
		}
		id = opmfu_intern_add(&g->names, name, name_n);
		if (id == OPMFU_IDTAB_NONE || (id == g->n && OPMFU_GROW(g->v, g->cap, g->n + 1))) {
			sbuf_release(&sb);
			return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory summing %s by %s", sp->table, sp->key);
		}
		if (id == g->n) {
			memset(&g->v[g->n], 0, sizeof(g->v[0]));
			g->v[g->n++].name = id;
		}
		h = &g->v[id];
		h->ranks++;
		h->calls += nz(opmfu_cell_num(def, row, c_calls));
		h->kernel_ns += ns;
		h->lost_ns += lost;
		/* a table without the column (read back from an older result) counts the lost time */
		h->recoverable_ns += c_rec >= 0 ? nz(opmfu_cell_num(def, row, c_rec)) : lost;
		if (!isnan(mfu) && w > 0) {
			h->mfu_x += mfu * w;
			h->mfu_w += w;
		}
		/* a row none of whose units has a roofline (roofline_ns NULL) adds to neither sum */
		if (!isnan(opmfu_cell_num(def, row, c_roof)) && nz(opmfu_cell_num(def, row, c_roof_k)) > 0) {
			h->roof_ns += opmfu_cell_num(def, row, c_roof);
			h->roof_kernel_ns += opmfu_cell_num(def, row, c_roof_k);
		}
		if (c_flops >= 0) {
			double fl = opmfu_cell_num(def, row, c_flops), by = c_bytes >= 0 ? opmfu_cell_num(def, row, c_bytes) : NAN;
			if (!isnan(fl) && w > 0) {
				h->flops += fl;
				h->flops_ns += w;
			}
			/* intensity: every rank's row with both */
			if (isnan(fl) || isnan(by))
				h->no_intensity = 1;
			else
				h->bytes += by;
		} else {
			h->no_intensity = 1;
		}
	}
	opmfu_cell_store_release(&g->pending);
	g->pending.def = NULL;
	if (sb.oom) {
		sbuf_release(&sb);
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory summing %s by %s", sp->table, sp->key);
	}
	sbuf_release(&sb);
	return OPMFU_OK;
}

enum opmfu_status opmfu_account_keep(struct opmfu_account *a, struct opmfu_err *err)
{
	enum opmfu_status st = OPMFU_OK;
	int k;

	a->ranks_kept = a->ranks.n_rows;
	a->rank_steps += a->rank_steps_pending;
	a->rank_steps_pending = 0;
	for (k = 0; k < OPMFU_NHOT && st == OPMFU_OK; k++)
		st = fold(&a->hot[k], &hot_specs[k], err);
	return st;
}

void opmfu_account_drop(struct opmfu_account *a)
{
	int k;
	opmfu_cell_store_truncate(&a->ranks, a->ranks_kept);
	a->rank_steps_pending = 0;
	for (k = 0; k < OPMFU_NHOT; k++) {
		opmfu_cell_store_release(&a->hot[k].pending);
		a->hot[k].pending.def = NULL;
	}
}

enum opmfu_status opmfu_account_identity(struct opmfu_account *a, const char *run_id, const char *source,
					 size_t ranks_failed, struct opmfu_err *err)
{
	opmfu_free(a->run_id);
	opmfu_free(a->source);
	a->run_id = run_id ? opmfu_strdup(run_id) : NULL;
	a->source = source ? opmfu_strdup(source) : NULL;
	a->ranks_failed = ranks_failed;
	if ((run_id && !a->run_id) || (source && !a->source))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory naming the run");
	return OPMFU_OK;
}

/* ---- the run's tables ---- */

static enum opmfu_status add_step_waits(struct opmfu_account *a, const struct opmfu_table *t, struct opmfu_err *err)
{
	struct opmfu_cell row[64];
	int c_rank = opmfu_table_col(t->def, "rank_id"), c_step = opmfu_table_col(t->def, "step");
	int c_share = opmfu_table_col(t->def, "share_comm_wait");
	size_t i;
	if (c_rank < 0 || c_step < 0 || c_share < 0 || t->def->n_cols > 64)
		return OPMFU_OK;
	for (i = 0; i < t->n_rows; i++) {
		struct opmfu_step_wait *w;
		t->row(t->src, i, row);
		if (row[c_step].null)
			continue; /* the backlog is no step */
		if (OPMFU_GROW(a->sw, a->cap_sw, a->n_sw + 1))
			return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory reading the steps' waiting");
		w = &a->sw[a->n_sw++];
		w->rank = (int)row[c_rank].v.i;
		w->step = row[c_step].v.i;
		w->known = !row[c_share].null;
		w->share = w->known ? row[c_share].v.r : 0;
	}
	return OPMFU_OK;
}

/* OpmfuCollectives: the collective hotspots (by exposed time) and who waited for whom. */
static enum opmfu_status add_collectives(struct opmfu_account *a, const struct opmfu_table *t, struct opmfu_err *err)
{
	struct opmfu_hot_group *g = &a->hot[OPMFU_HOT_COLLECTIVE];
	struct opmfu_cell row[64];
	int c_rank = opmfu_table_col(t->def, "rank_id"), c_name = opmfu_table_col(t->def, "name");
	int c_op = opmfu_table_col(t->def, "op_name"), c_group = opmfu_table_col(t->def, "group");
	int c_time = opmfu_table_col(t->def, "time_ns"), c_exp = opmfu_table_col(t->def, "exposed_ns");
	int c_wait = opmfu_table_col(t->def, "wait_ns"), c_last = opmfu_table_col(t->def, "last_rank");
	int c_call = opmfu_table_col(t->def, "call");
	struct sbuf sb;
	size_t i;

	if (c_rank < 0 || c_name < 0 || c_op < 0 || c_group < 0 || c_time < 0 || c_exp < 0 || c_wait < 0 || c_last < 0 ||
	    c_call < 0 || t->def->n_cols > 64)
		return OPMFU_OK;
	sbuf_init(&sb);
	for (i = 0; i < t->n_rows; i++) {
		const struct opmfu_cell *key;
		struct opmfu_hot_sum *h;
		uint32_t id;
		int rank;
		t->row(t->src, i, row);
		rank = (int)row[c_rank].v.i;
		/* the kind and group: what one tunes (a NULL kind: the trace's name) */
		key = !row[c_name].null ? &row[c_name] : &row[c_op];
		sbuf_reset(&sb);
		opmfu_coll_key(&sb, key->null ? NULL : key->v.t.s, key->null ? 0 : key->v.t.n,
			       row[c_group].null ? NULL : row[c_group].v.t.s, row[c_group].null ? 0 : row[c_group].v.t.n);
		if (sb.oom)
			goto nomem;
		id = opmfu_intern_add(&g->names, sb.buf, sb.len);
		if (id == OPMFU_IDTAB_NONE || (id == g->n && (OPMFU_GROW(g->v, g->cap, g->n + 1) ||
							      OPMFU_GROW(a->coll_last, a->cap_coll_last, g->n + 1))))
			goto nomem;
		if (id == g->n) {
			memset(&g->v[g->n], 0, sizeof(g->v[0]));
			g->v[g->n].name = id;
			a->coll_last[g->n++] = UINT32_MAX;
		}
		h = &g->v[id];
		/* a rank's rows come together: a rank is counted when its first row of the name comes */
		if (a->coll_last[id] != (uint32_t)rank) {
			h->ranks++;
			a->coll_last[id] = (uint32_t)rank;
		}
		h->calls += 1;
		h->kernel_ns += nz(opmfu_cell_num(t->def, row, c_time));
		h->lost_ns += nz(opmfu_cell_num(t->def, row, c_exp));
		h->recoverable_ns += nz(opmfu_cell_num(t->def, row, c_exp));
		h->no_intensity = 1;
		if (!row[c_last].null && !row[c_wait].null && row[c_wait].v.i > 0) {
			if (OPMFU_GROW(a->we, a->cap_we, a->n_we + 1))
				goto nomem;
			/* the run's call: its name and group (the hotspot's id) and its number */
			uint64_t call = (uint64_t)id << 32 | (uint32_t)(row[c_call].null ? 0 : row[c_call].v.i);
			a->we[a->n_we++] = (struct opmfu_wait_edge){ (int)row[c_last].v.i, rank, (double)row[c_wait].v.i, call };
		}
	}
	sbuf_release(&sb);
	return OPMFU_OK;
nomem:
	sbuf_release(&sb);
	return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory summing the collectives");
}

enum opmfu_status opmfu_account_run_add(struct opmfu_account *a, const struct opmfu_table *t, struct opmfu_err *err)
{
	if (!strcmp(t->def->name, "OpmfuSteps"))
		return add_step_waits(a, t, err);
	if (!strcmp(t->def->name, "OpmfuCollectives"))
		return add_collectives(a, t, err);
	return OPMFU_OK;
}

/* ---- the run ---- */

/* The rank measures the run reads, by OpmfuRankSummary column. */
enum { M_STEP_NS, M_TRACE_MFU, M_INEFF, M_OTHER, M_COMM, M_IDLE, M_NMEASURE };
static const char *const measure_col[M_NMEASURE] = { "step_ns_median", "trace_mfu", "share_inefficiency",
						     "share_other_compute", "share_comm", "share_idle" };
/* OpmfuStragglers.measure: the column's name, and whether the straggler is the lowest */
static const int measure_low[M_NMEASURE] = { 0, 1, 0, 0, 0, 0 };

static struct opmfu_cell rank_cell(const struct opmfu_account *a, size_t row, const char *col)
{
	int c = opmfu_table_col(a->ranks.def, col);
	return c < 0 ? opmfu_cell_null() : a->ranks.cells[row * a->ranks.def->n_cols + (size_t)c];
}

/* Column col (an index: the loops over ranks find it once) of a rank's row. */
static double rank_at(const struct opmfu_account *a, size_t row, int col)
{
	return opmfu_cell_num(a->ranks.def, a->ranks.cells + row * a->ranks.def->n_cols, col);
}

static double rank_num(const struct opmfu_account *a, size_t row, const char *col)
{
	return rank_at(a, row, opmfu_table_col(a->ranks.def, col));
}

/* Was the rank analysed? c_status: the status column. */
static int rank_analysed(const struct opmfu_account *a, size_t row, int c_status)
{
	const struct opmfu_cell *c = c_status < 0 ? NULL : &a->ranks.cells[row * a->ranks.def->n_cols + (size_t)c_status];
	return c && !c->null && !(c->v.t.n == 6 && !memcmp(c->v.t.s, "failed", 6));
}

/* The median rank: of the ranks analysed, by their median step's time, then
 * rank id; without any step time, the first rank analysed. */
static int find_median(struct opmfu_account *a, size_t *analysed)
{
	size_t n = a->ranks_kept, i;
	double *key = opmfu_malloc((n ? n : 1) * sizeof(*key)), *tie = opmfu_malloc((n ? n : 1) * sizeof(*tie));
	int nomem = 0, c_status = opmfu_table_col(a->ranks.def, "status");
	int c_step = opmfu_table_col(a->ranks.def, "step_ns_median"), c_rank = opmfu_table_col(a->ranks.def, "rank_id");

	*analysed = 0;
	a->median_row = SIZE_MAX;
	if (!key || !tie) {
		opmfu_free(key);
		opmfu_free(tie);
		return -1;
	}
	for (i = 0; i < n; i++) {
		int ok = rank_analysed(a, i, c_status);
		*analysed += ok;
		key[i] = ok ? rank_at(a, i, c_step) : NAN;
		tie[i] = rank_at(a, i, c_rank);
		if (ok && a->median_row == SIZE_MAX)
			a->median_row = i;
	}
	i = opmfu_median_index(key, tie, n, &nomem);
	if (i != SIZE_MAX)
		a->median_row = i;
	opmfu_free(key);
	opmfu_free(tie);
	return nomem;
}

static enum opmfu_status make_run(struct opmfu_account *a, size_t analysed, struct opmfu_err *err)
{
	struct opmfu_cell c[R_NCOL];
	size_t m = a->median_row;
	int k;

	for (k = 0; k < R_NCOL; k++)
		c[k] = opmfu_cell_null();
	c[R_ID] = opmfu_cell_str(a->run_id);
	c[R_SOURCE] = opmfu_cell_str(a->source);
	c[R_RANKS] = opmfu_cell_int((int64_t)(a->ranks_kept > a->ranks_failed ? a->ranks_kept : a->ranks_failed));
	c[R_FAILED] = opmfu_cell_int((int64_t)a->ranks_failed);
	c[R_ANALYSED] = opmfu_cell_int((int64_t)analysed);
	if (m != SIZE_MAX) {
		static const struct {
			int col;
			const char *from;
		} same[] = {
			{ R_CHIP, "chip_seen" },	  { R_PEAK, "peak_tflops" },
			{ R_PEAK_SRC, "peak_source" },    { R_MED_RANK, "rank_id" },
			{ R_MED_STEP, "median_step" },	  { R_STEP_NS, "step_ns_median" },
			{ R_TRACE_MFU, "trace_mfu" },	  { R_MFU_BUSY, "mfu_busy" },
			{ R_COVERAGE, "flops_coverage" }, { R_IDLE, "share_idle" },
			{ R_COMM, "share_comm" },	  { R_OTHER, "share_other_compute" },
			{ R_INEFF, "share_inefficiency" }, { R_MFU_REC, "mfu_recorded" },
			{ R_MATMUL, "share_matmul_noflops" }, { R_OTHER_K, "share_other_kernels" },
			{ R_MEMCPY, "share_memcpy" },	  { R_IDLE_HOST, "share_idle_host" },
			{ R_IDLE_DEV, "share_idle_device" }, { R_PROF_STEP, "profiler_step_ns" },
			{ R_BACKLOG, "backlog_ns" },	  { R_WINDOWS, "step_windows" },
			{ R_MB, "share_memory_bound" },   { R_MB_EFF, "memory_bound_eff" },
			{ R_PEAK_BW, "peak_bw_tbps" },	  { R_PEAK_BW_SRC, "peak_bw_source" },
		};
		size_t i;
		for (i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
			struct opmfu_cell x = rank_cell(a, m, same[i].from);
			/* the rank's cell, if it has the run column's type */
			int src = opmfu_table_col(a->ranks.def, same[i].from);
			if (src >= 0 && a->ranks.def->cols[src].type == run_cols[same[i].col].type)
				c[same[i].col] = x;
		}
		/* the median rank's median step's waiting, from the run's OpmfuSteps */
		if (!c[R_MED_RANK].null && !c[R_MED_STEP].null)
			for (i = 0; i < a->n_sw; i++)
				if (a->sw[i].rank == c[R_MED_RANK].v.i && a->sw[i].step == c[R_MED_STEP].v.i && a->sw[i].known)
					c[R_COMM_WAIT] = opmfu_cell_real(a->sw[i].share);
	}
	return opmfu_cell_store_add(&a->run, c, err);
}

/* The run's step time: the median rank's median step; NaN: none. */
static double m_step(const struct opmfu_account *a)
{
	return a->median_row == SIZE_MAX ? NAN : rank_num(a, a->median_row, "step_ns_median");
}

struct hot_ref {
	int kind;
	uint32_t i;
	double rec;
};

static int hot_less(const void *a, const void *b)
{
	const struct hot_ref *x = a, *y = b;
	if (x->rec != y->rec)
		return x->rec > y->rec;
	if (x->kind != y->kind)
		return x->kind < y->kind;
	return x->i < y->i;
}

static enum opmfu_status make_hotspots(struct opmfu_account *a, struct opmfu_err *err)
{
	double step_ns = m_step(a), per = a->rank_steps > 0 && step_ns > 0 ? a->rank_steps * step_ns : NAN;
	size_t n = 0, i;
	struct hot_ref *r;
	enum opmfu_status st = OPMFU_OK;
	int k;

	for (k = 0; k < OPMFU_NHOT; k++)
		n += a->hot[k].n;
	if (!(r = opmfu_malloc((n ? n : 1) * sizeof(*r))))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory ordering the hotspots");
	for (n = 0, k = 0; k < OPMFU_NHOT; k++)
		for (i = 0; i < a->hot[k].n; i++) {
			r[n].kind = k;
			r[n].i = (uint32_t)i;
			r[n++].rec = a->hot[k].v[i].recoverable_ns;
		}
	if (opmfu_sort_array(r, n, sizeof(*r), hot_less) != 0) {
		opmfu_free(r);
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory ordering the hotspots");
	}
	for (i = 0; i < n && st == OPMFU_OK; i++) {
		const struct opmfu_hot_group *g = &a->hot[r[i].kind];
		const struct opmfu_hot_sum *h = &g->v[r[i].i];
		struct opmfu_cell c[12];
		c[0] = opmfu_cell_str(opmfu_hot_kind_name(r[i].kind));
		c[1] = opmfu_cell_text(opmfu_intern_str(&g->names, h->name), opmfu_intern_len(&g->names, h->name));
		c[2] = opmfu_cell_int(h->ranks);
		c[3] = opmfu_cell_int(opmfu_sat_round(h->calls));
		c[4] = opmfu_cell_int(opmfu_sat_round(h->kernel_ns));
		c[5] = opmfu_cell_int(opmfu_sat_round(h->recoverable_ns));
		c[6] = opmfu_cell_int(opmfu_sat_round(h->lost_ns));
		c[7] = isnan(per) ? opmfu_cell_null() : opmfu_cell_real(h->kernel_ns / per);
		c[8] = h->mfu_w > 0 ? opmfu_cell_real(h->mfu_x / h->mfu_w) : opmfu_cell_null();
		c[9] = h->roof_kernel_ns > 0 ? opmfu_cell_real(h->roof_ns / h->roof_kernel_ns) : opmfu_cell_null();
		c[10] = h->flops_ns > 0 ? opmfu_cell_real(h->flops / h->flops_ns * 1e-3) : opmfu_cell_null();
		c[11] = !h->no_intensity && h->flops > 0 && h->bytes > 0 ? opmfu_cell_real(h->flops / h->bytes)
									 : opmfu_cell_null();
		st = opmfu_cell_store_add(&a->hotspots, c, err);
	}
	opmfu_free(r);
	return st;
}

static int int_less(const void *pa, const void *pb)
{
	return *(const int *)pa < *(const int *)pb;
}

/* How many ranks other than culprit waited in e[0 .. n) (0 when out of memory: the text says less). */
static size_t distinct_waiters(const struct opmfu_wait_edge *e, size_t n, int culprit)
{
	int *r = opmfu_malloc((n ? n : 1) * sizeof(*r));
	size_t m = 0, k, d = 0;
	if (!r)
		return 0;
	for (k = 0; k < n; k++)
		if (e[k].rank != culprit)
			r[m++] = e[k].rank;
	if (opmfu_sort_array(r, m, sizeof(*r), int_less) == 0)
		for (k = 0; k < m; k++)
			d += !k || r[k] != r[k - 1];
	opmfu_free(r);
	return d;
}

static int edge_less(const void *pa, const void *pb)
{
	const struct opmfu_wait_edge *x = pa, *y = pb;
	if (x->culprit != y->culprit)
		return x->culprit < y->culprit;
	if (x->call != y->call)
		return x->call < y->call;
	return x->rank < y->rank;
}

/* The rank the others waited for most (SPEC 19): *culprit, the time they waited for it, and
 * the median rank's; a text naming it for the share_comm row and one for its own row. 0: none. */
static int find_culprit(struct opmfu_account *a, int *culprit, double *caused, double *median, struct sbuf *why,
			struct sbuf *named)
{
	int med_rank = a->median_row == SIZE_MAX ? INT32_MIN : (int)rank_num(a, a->median_row, "rank_id");
	size_t i, j, best = SIZE_MAX, calls = 0;
	double best_sum = 0;

	*median = 0;
	if (!a->n_we || opmfu_sort_array(a->we, a->n_we, sizeof(*a->we), edge_less))
		return 0;
	for (i = 0; i < a->n_we; i = j) {
		double sum = 0;
		for (j = i; j < a->n_we && a->we[j].culprit == a->we[i].culprit; j++)
			if (a->we[j].rank != a->we[j].culprit)
				sum += a->we[j].wait;
		if (a->we[i].culprit == med_rank)
			*median = sum;
		if (sum > best_sum) {
			best_sum = sum;
			best = i;
		}
	}
	if (best == SIZE_MAX)
		return 0;
	*culprit = a->we[best].culprit;
	*caused = best_sum;
	/* the calls it was last at (the run's, not each waiter's row: edges come by call), and the
	 * ranks that waited */
	for (j = best, i = SIZE_MAX; j < a->n_we && a->we[j].culprit == *culprit; j++) {
		if (a->we[j].rank == *culprit)
			continue;
		if (i == SIZE_MAX || a->we[j].call != a->we[i].call)
			calls++;
		i = j;
	}
	sbuf_addf(why, "ranks waited %.3f ms for it over %zu calls (%zu ranks)", best_sum * 1e-6, calls,
		  distinct_waiters(a->we + best, j - best, *culprit));
	sbuf_addf(named, "rank %d: the others waited %.3f ms for it", *culprit, best_sum * 1e-6);
	return 1;
}

/* Per measure, the rank furthest from the median rank on its bad side; then the culprit. */
static enum opmfu_status make_stragglers(struct opmfu_account *a, struct opmfu_err *err)
{
	enum opmfu_status st = OPMFU_OK;
	int k, c_status = opmfu_table_col(a->ranks.def, "status"), culprit = 0, have;
	double caused = 0, caused_med = 0;
	struct sbuf why, named;
	size_t i;

	if (a->median_row == SIZE_MAX)
		return OPMFU_OK;
	sbuf_init(&why);
	sbuf_init(&named);
	have = find_culprit(a, &culprit, &caused, &caused_med, &why, &named);
	if (why.oom || named.oom) {
		sbuf_release(&why);
		sbuf_release(&named);
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory naming the culprit");
	}
	for (k = 0; k < M_NMEASURE && st == OPMFU_OK; k++) {
		int col = opmfu_table_col(a->ranks.def, measure_col[k]);
		double med = rank_at(a, a->median_row, col), ext = NAN;
		size_t at = SIZE_MAX, known = 0;
		struct opmfu_cell c[6];
		if (isnan(med))
			continue;
		for (i = 0; i < a->ranks_kept; i++) {
			double v = rank_analysed(a, i, c_status) ? rank_at(a, i, col) : NAN;
			if (isnan(v))
				continue;
			known++;
			if (at == SIZE_MAX || (measure_low[k] ? v < ext : v > ext)) {
				ext = v;
				at = i;
			}
		}
		if (known < 2)
			continue;
		c[0] = opmfu_cell_str(measure_col[k]);
		c[1] = rank_cell(a, at, "rank_id");
		c[2] = opmfu_cell_real(ext);
		c[3] = opmfu_cell_real(med);
		c[4] = opmfu_cell_real(ext - med);
		/* the rank that waited most, and the one it (and the others) waited for */
		c[5] = k == M_COMM && have ? opmfu_cell_text(named.buf, named.len) : opmfu_cell_null();
		st = opmfu_cell_store_add(&a->stragglers, c, err);
	}
	if (have && st == OPMFU_OK) {
		struct opmfu_cell c[6];
		c[0] = opmfu_cell_str("comm_wait_caused_ns");
		c[1] = opmfu_cell_int(culprit);
		c[2] = opmfu_cell_real(caused);
		c[3] = opmfu_cell_real(caused_med);
		c[4] = opmfu_cell_real(caused - caused_med);
		c[5] = opmfu_cell_text(why.buf, why.len);
		st = opmfu_cell_store_add(&a->stragglers, c, err);
	}
	sbuf_release(&why);
	sbuf_release(&named);
	return st;
}

enum opmfu_status opmfu_account_finish(struct opmfu_account *a, struct opmfu_err *err)
{
	enum opmfu_status st;
	size_t analysed;

	if (find_median(a, &analysed) != 0)
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory finding the median rank");
	if ((st = make_run(a, analysed, err)) || (st = make_hotspots(a, err)))
		return st;
	return make_stragglers(a, err);
}

/* ---- as a registered analysis (trace/analysis.h) ---- */

static void acc_init(void *s)
{
	opmfu_account_init(s);
}

static void acc_release(void *s)
{
	opmfu_account_release(s);
}

static enum opmfu_status acc_add(void *s, const struct opmfu_table *t, struct opmfu_err *err)
{
	return opmfu_account_add(s, t, err);
}

static enum opmfu_status acc_keep(void *s, struct opmfu_err *err)
{
	return opmfu_account_keep(s, err);
}

static void acc_drop(void *s)
{
	opmfu_account_drop(s);
}

static enum opmfu_status acc_finish(void *s, const struct opmfu_run_ctx *ctx, struct opmfu_err *err)
{
	enum opmfu_status st = opmfu_account_identity(s, ctx->run_id, ctx->source, ctx->ranks_failed, err);
	return st ? st : opmfu_account_finish(s, err);
}

static size_t acc_tables(void *s, struct opmfu_table *out)
{
	struct opmfu_account *a = s;
	out[0] = opmfu_cell_store_table(&a->run);
	out[1] = opmfu_cell_store_table(&a->hotspots);
	out[2] = opmfu_cell_store_table(&a->stragglers);
	return 3;
}

static enum opmfu_status acc_run_add(void *s, const struct opmfu_table *t, struct opmfu_err *err)
{
	return opmfu_account_run_add(s, t, err);
}

/* A hotspot table's columns are read through its spec; the others (OpmfuRankSummary, OpmfuSteps) whole. */
static int acc_reads(const char *table, const char *col)
{
	size_t k, j;
	for (k = 0; k < OPMFU_NHOT; k++) {
		const struct hot_spec *sp = &hot_specs[k];
		const char *const named[] = { sp->key, sp->key2, sp->key3, sp->calls, sp->kernel_ns, sp->lost_ns,
					      sp->recoverable_ns, sp->mfu, sp->weight, sp->roofline_ns,
					      sp->roofline_kernel_ns, sp->flops, sp->bytes };
		if (strcmp(sp->table, table))
			continue;
		for (j = 0; j < sizeof(named) / sizeof(named[0]); j++)
			if (named[j] && !strcmp(named[j], col))
				return 1;
		return 0;
	}
	return 1;
}

static const char *const acc_needs[] = { "OpmfuRankSummary", "OpmfuSteps", "OpmfuModuleClasses", "OpmfuModules",
					  "OpmfuOpTypes", "OpmfuShapes", "OpmfuKernels", "OpmfuCollectives", NULL };
static const struct opmfu_table_def *const acc_makes[] = { &opmfu_run_def, &opmfu_hotspots_def, &opmfu_stragglers_def,
							   NULL };

const struct opmfu_analysis opmfu_analysis_account = {
	.name = "account", .scope = OPMFU_PER_RUN, .needs = acc_needs, .makes = acc_makes,
	.state_size = sizeof(struct opmfu_account), .init = acc_init, .release = acc_release, .add = acc_add,
	.keep = acc_keep, .drop = acc_drop, .run_add = acc_run_add, .finish = acc_finish, .run_tables = acc_tables,
	.reads = acc_reads,
};
