/*
 * module_groups.c - SPEC 3.5-3.7 over the rows of the module tree: groups
 * and their avg_mfu, the _k suffixes, the output order, the rows and the
 * module totals of the result.
 */
#include "reference/module_mm.h"

#include <string.h>

#include "base/bucket.h"
#include "base/idtab.h"
#include "base/lbound.h"
#include "base/mem.h"
#include "base/npmean.h"
#include "base/sort.h"
#include "trace/parse.h"

#define NONE OPMFU_MM_NONE

/* ---- groups (SPEC 3.5) ---- */

struct group_probe {
	const struct opmfu_mm_key *keys;
	struct opmfu_mm_key key;
};

static int group_eq(const void *probe, uint32_t id)
{
	const struct group_probe *p = probe;
	const struct opmfu_mm_key *a = &p->key, *b = &p->keys[id];
	return a->pid == b->pid && a->mname == b->mname && a->oname == b->oname && a->order == b->order &&
	       a->klist == b->klist && a->seq == b->seq;
}

static uint64_t group_hash(const struct opmfu_mm_key *k)
{
	uint64_t h = opmfu_mix64(((uint64_t)k->pid << 32) | k->mname);
	h = opmfu_mix64(h ^ (((uint64_t)k->oname << 32) | k->order));
	return opmfu_mix64(h ^ (((uint64_t)k->klist << 32) | k->seq));
}

static int grow_groups(struct opmfu_mm *w)
{
	size_t need = w->n_groups + 1, cap = w->cap_groups;
	/* all per-group arrays share one capacity */
	if (need <= cap)
		return 0;
	cap = cap ? cap * 2 : 64;
#define G(a) \
	do { \
		void *p_ = opmfu_realloc(w->a, cap * sizeof(*w->a)); \
		if (!p_) \
			return -1; \
		w->a = p_; \
	} while (0)
	G(g_key);
	G(g_first);
	G(g_total);
	G(g_mxn);
	G(g_mn);
	G(g_count);
#undef G
	w->cap_groups = cap;
	return 0;
}

/* The group of row i, new or not (NONE when out of memory). */
static uint32_t row_group(struct opmfu_mm *w, struct opmfu_idtab *tab, size_t i)
{
	const struct opmfu_trace *t = w->t;
	const struct opmfu_module_tree *mt = w->mt;
	uint32_t m = mt->row_mod[i], g;
	const struct opmfu_link *l = &t->links[mt->node_link[mt->row_node[i]]];
	struct group_probe p;

	p.key.pid = opmfu_module_parent_path(&w->paths, m);
	if (p.key.pid == NONE || grow_groups(w))
		return NONE;
	p.keys = w->g_key;
	p.key.mname = opmfu_module_name_key(t, t->mods.v[m].name);
	p.key.oname = opmfu_module_name_key(t, l->op_name);
	p.key.order = w->row_order[i];
	p.key.klist = w->row_klist[i];
	p.key.seq = w->row_seq[i];
	g = opmfu_idtab_get(tab, group_hash(&p.key), group_eq, &p, (uint32_t)w->n_groups);
	if (g == w->n_groups) {
		w->g_key[g] = p.key;
		w->g_first[g] = l->op_start;
		w->g_total[g] = 0.0;
		w->g_mxn[g] = 0.0;
		w->g_mn[g] = 0.0;
		w->g_count[g] = 0;
		w->n_groups++;
	}
	return g;
}

int opmfu_mm_groups(struct opmfu_mm *w)
{
	const struct opmfu_module_tree *mt = w->mt;
	struct opmfu_idtab tab;
	size_t i;
	int rc = -1;

	opmfu_idtab_init(&tab);
	w->row_group = opmfu_malloc((mt->n_rows + 1) * sizeof(*w->row_group));
	if (!w->row_group || opmfu_module_paths_init(&w->paths, mt, w->t, &w->strs, &w->sb))
		goto out;
	for (i = 0; i < mt->n_rows; i++) {
		int64_t op_start = w->t->links[mt->node_link[mt->row_node[i]]].op_start;
		uint32_t g = row_group(w, &tab, i);
		if (g == NONE)
			goto out;
		if (op_start < w->g_first[g])
			w->g_first[g] = op_start;
		w->g_total[g] += w->row_dev[i];
		w->g_mxn[g] += w->row_mxn[i];
		w->g_mn[g] += w->row_mn[i];
		w->g_count[g]++;
		w->row_group[i] = g;
	}
	rc = opmfu_bucket(w->row_group, mt->n_rows, w->n_groups, &w->g_off, &w->grow);
out:
	opmfu_idtab_release(&tab);
	return rc;
}

/* The avg_mfu string of group g into w->sb: per kernel position, the
 * numpy mean of the values > 0, x 100, rounded to 2 decimals, as Python
 * prints it, plus '%'. vals has room for the group's rows. */
static void group_avg(struct opmfu_mm *w, size_t g, double *vals)
{
	const struct opmfu_module_tree *mt = w->mt;
	uint32_t a = w->g_off[g], b = w->g_off[g + 1], r, pos, n_pos = 0;

	/* rows of a group share their kernel list, so normally one length */
	for (r = a; r < b; r++) {
		uint32_t n = mt->row_node[w->grow[r]];
		if (mt->node_off[n + 1] - mt->node_off[n] > n_pos)
			n_pos = mt->node_off[n + 1] - mt->node_off[n];
	}
	sbuf_reset(&w->sb);
	for (pos = 0; pos < n_pos; pos++) {
		size_t cnt = 0;
		char num[32];
		for (r = a; r < b; r++) {
			uint32_t n = mt->row_node[w->grow[r]];
			double v;
			if (mt->node_off[n] + pos >= mt->node_off[n + 1])
				continue;
			v = opmfu_mm_kernel_mfu(w, mt->kord[mt->node_off[n] + pos]);
			if (v > 0)
				vals[cnt++] = v;
		}
		if (!cnt)
			continue;
		opmfu_format_pyfloat(opmfu_round(opmfu_np_mean(vals, cnt) * 100, 2), num);
		sbuf_addf(&w->sb, "%s%s%%", w->sb.len ? "," : "", num);
	}
}

int opmfu_mm_average_mfu(struct opmfu_mm *w)
{
	double *vals = NULL;
	size_t g, max_count = 0;
	int rc = -1;

	w->g_avg = opmfu_malloc((w->n_groups + 1) * sizeof(*w->g_avg));
	if (!w->g_avg)
		return -1;
	for (g = 0; g < w->n_groups; g++)
		if (w->g_count[g] > max_count)
			max_count = w->g_count[g];
	vals = opmfu_malloc((max_count + 1) * sizeof(*vals));
	if (!vals)
		return -1;
	for (g = 0; g < w->n_groups; g++) {
		group_avg(w, g, vals);
		if (w->sb.oom)
			goto out;
		if (!w->sb.len)
			w->g_avg[g] = "";
		else if (!(w->g_avg[g] = opmfu_arena_put(&w->ar, w->sb.buf, w->sb.len)))
			goto out;
	}
	rc = 0;
out:
	opmfu_free(vals);
	return rc;
}

/* ---- disambiguation (SPEC 3.6) and output order (SPEC 3.7) ---- */

static int cmp_bytes(const char *a, size_t na, const char *b, size_t nb)
{
	int c = memcmp(a, b, na < nb ? na : nb);
	if (c)
		return c;
	return (na > nb) - (na < nb);
}

static int cmp_sid(const struct opmfu_trace *t, uint32_t a, uint32_t b)
{
	size_t na, nb;
	const char *sa, *sb;
	if (a == b)
		return 0;
	sa = opmfu_module_str(t, a, &na);
	sb = opmfu_module_str(t, b, &nb);
	return cmp_bytes(sa, na, sb, nb);
}

static int cmp_strid(const struct opmfu_intern *ss, uint32_t a, uint32_t b)
{
	if (a == b)
		return 0;
	return cmp_bytes(opmfu_intern_str(ss, a), opmfu_intern_len(ss, a), opmfu_intern_str(ss, b),
			 opmfu_intern_len(ss, b));
}

/* Ties on first start: the order of the reference's group keys (parent,
 * module, op name, op order, kernel list, seq_id), bytewise. */
static int cmp_group_keys(const struct opmfu_mm *w, uint32_t ga, uint32_t gb, int with_order)
{
	const struct opmfu_mm_key *a = &w->g_key[ga], *b = &w->g_key[gb];
	int c;
	if ((c = cmp_strid(&w->strs, a->pid, b->pid)) || (c = cmp_sid(w->t, a->mname, b->mname)) ||
	    (c = cmp_sid(w->t, a->oname, b->oname)))
		return c;
	if (with_order && a->order != b->order)
		return a->order < b->order ? -1 : 1;
	if ((c = cmp_strid(&w->strs, a->klist, b->klist)))
		return c;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return (ga > gb) - (ga < gb);
}

static int less_disamb(const void *ctx, uint32_t a, uint32_t b)
{
	const struct opmfu_mm *w = ctx;
	if (w->g_first[a] != w->g_first[b])
		return w->g_first[a] < w->g_first[b];
	return cmp_group_keys(w, a, b, 1) < 0;
}

static int less_output(const void *ctx, uint32_t a, uint32_t b)
{
	const struct opmfu_mm *w = ctx;
	if (w->g_first[a] != w->g_first[b])
		return w->g_first[a] < w->g_first[b];
	if (w->g_key[a].order != w->g_key[b].order)
		return w->g_key[a].order < w->g_key[b].order;
	return cmp_group_keys(w, a, b, 0) < 0;
}

static int less_u32(const void *ctx, uint32_t a, uint32_t b)
{
	(void)ctx;
	return a < b;
}

static int u32_before(const void *ctx, size_t i, const void *key)
{
	return ((const uint32_t *)ctx)[i] < *(const uint32_t *)key;
}

/* The groups ord[i, j) of one (parent, module) with more than one seq_id
 * become module_k, k the rank of their seq_id among the run's. seqs has
 * room for j - i. */
static int suffix_run(struct opmfu_mm *w, const uint32_t *ord, size_t i, size_t j, uint32_t *seqs)
{
	size_t n_seq = 0, u = 0, x;

	for (x = i; x < j; x++)
		seqs[n_seq++] = w->g_key[ord[x]].seq;
	if (opmfu_sort_idx(seqs, n_seq, less_u32, NULL))
		return -1;
	for (x = 0; x < n_seq; x++)
		if (!u || seqs[u - 1] != seqs[x])
			seqs[u++] = seqs[x];
	if (u < 2)
		return 0;
	for (x = i; x < j; x++) {
		uint32_t g = ord[x], id;
		size_t k = opmfu_lbound(0, u, u32_before, seqs, &w->g_key[g].seq), len;
		const char *name = opmfu_module_str(w->t, w->g_key[g].mname, &len);
		sbuf_reset(&w->sb);
		sbuf_add(&w->sb, name, len);
		sbuf_addf(&w->sb, "_%zu", k);
		if (w->sb.oom || (id = opmfu_intern_add(&w->strs, w->sb.buf, w->sb.len)) == NONE)
			return -1;
		w->g_module[g] = opmfu_intern_str(&w->strs, id);
	}
	return 0;
}

int opmfu_mm_disambiguate(struct opmfu_mm *w)
{
	size_t ng = w->n_groups, i, j;
	uint32_t *ord = NULL, *seqs = NULL;
	int rc = -1;

	w->g_module = opmfu_malloc((ng + 1) * sizeof(*w->g_module));
	ord = opmfu_malloc((ng + 1) * sizeof(*ord));
	seqs = opmfu_malloc((ng + 1) * sizeof(*seqs));
	if (!w->g_module || !ord || !seqs)
		goto out;
	for (i = 0; i < ng; i++) {
		size_t len;
		w->g_module[i] = opmfu_module_str(w->t, w->g_key[i].mname, &len);
		ord[i] = (uint32_t)i;
	}
	if (opmfu_sort_idx(ord, ng, less_disamb, w))
		goto out;
	/* a run: groups of one (parent, module) adjacent in that order */
	for (i = 0; i < ng; i = j) {
		const struct opmfu_mm_key *k0 = &w->g_key[ord[i]];
		for (j = i + 1; j < ng; j++) {
			const struct opmfu_mm_key *k = &w->g_key[ord[j]];
			if (k->pid != k0->pid || k->mname != k0->mname)
				break;
		}
		if (suffix_run(w, ord, i, j, seqs))
			goto out;
	}
	rc = 0;
out:
	opmfu_free(ord);
	opmfu_free(seqs);
	return rc;
}

/* ---- results ---- */

/* Module totals: per (parent, module) before the suffixes, in order of
 * first output row. */
struct totals {
	struct opmfu_mm_key *key; /* pid and mname */
	double *ns, *mxn, *mn;
	size_t n;
	struct opmfu_idtab tab;
};

struct total_probe {
	const struct opmfu_mm_key *keys; /* of the totals */
	uint32_t pid, mname;
};

static int total_eq(const void *probe, uint32_t id)
{
	const struct total_probe *p = probe;
	return p->keys[id].pid == p->pid && p->keys[id].mname == p->mname;
}

/* Adds group g to the total of its (parent, module). */
static int add_total(struct totals *tt, const struct opmfu_mm *w, uint32_t g)
{
	const struct opmfu_mm_key *k = &w->g_key[g];
	struct total_probe p = { tt->key, k->pid, k->mname };
	uint32_t id = opmfu_idtab_get(&tt->tab, opmfu_mix64(((uint64_t)k->pid << 32) | k->mname), total_eq, &p,
				      (uint32_t)tt->n);
	if (id == NONE)
		return -1;
	if (id == tt->n) {
		tt->key[id] = *k;
		tt->ns[id] = tt->mxn[id] = tt->mn[id] = 0.0;
		tt->n++;
	}
	tt->ns[id] += w->g_total[g];
	tt->mxn[id] += w->g_mxn[g];
	tt->mn[id] += w->g_mn[g];
	return 0;
}

static void fill_row(const struct opmfu_mm *w, uint32_t g, struct opmfu_module_row *r)
{
	const struct opmfu_mm_key *k = &w->g_key[g];
	size_t len;

	r->parent = opmfu_intern_str(&w->strs, k->pid);
	r->module = w->g_module[g];
	r->op_name = opmfu_module_str(w->t, k->oname, &len);
	r->kernel_list = opmfu_intern_str(&w->strs, k->klist);
	r->avg_mfu = w->g_avg[g];
	r->total_ns = w->g_total[g];
	r->op_count = w->g_count[g];
	r->avg_ns = w->g_total[g] / (double)w->g_count[g];
	r->mfu_x_ns = w->g_mxn[g];
	r->mfu_ns = w->g_mn[g];
}

/* Most kernel time first, ties in order of first row. */
static int less_total(const void *ctx, uint32_t a, uint32_t b)
{
	const double *ns = ctx;
	if (ns[a] != ns[b])
		return ns[a] > ns[b];
	return a < b;
}

static int fill_totals(const struct opmfu_mm *w, const struct totals *tt, struct opmfu_module_mfu *res)
{
	uint32_t *ord = opmfu_malloc((tt->n + 1) * sizeof(*ord));
	size_t i;
	int rc = -1;

	res->totals = opmfu_malloc((tt->n + 1) * sizeof(*res->totals));
	if (!ord || !res->totals)
		goto out;
	for (i = 0; i < tt->n; i++)
		ord[i] = (uint32_t)i;
	if (opmfu_sort_idx(ord, tt->n, less_total, tt->ns))
		goto out;
	for (i = 0; i < tt->n; i++) {
		uint32_t id = ord[i];
		size_t len;
		res->totals[i].parent = opmfu_intern_str(&w->strs, tt->key[id].pid);
		res->totals[i].module = opmfu_module_str(w->t, tt->key[id].mname, &len);
		res->totals[i].kernel_ns = tt->ns[id];
		res->totals[i].mfu = tt->mn[id] > 0 ? tt->mxn[id] / tt->mn[id] : -1.0;
	}
	res->n_totals = tt->n;
	rc = 0;
out:
	opmfu_free(ord);
	return rc;
}

int opmfu_mm_results(struct opmfu_mm *w, struct opmfu_module_mfu *res)
{
	size_t ng = w->n_groups, i;
	uint32_t *ord = opmfu_malloc((ng + 1) * sizeof(*ord));
	struct totals tt;
	int rc = -1;

	memset(&tt, 0, sizeof(tt));
	res->rows = opmfu_malloc((ng + 1) * sizeof(*res->rows));
	tt.key = opmfu_malloc((ng + 1) * sizeof(*tt.key));
	tt.ns = opmfu_malloc((ng + 1) * sizeof(*tt.ns));
	tt.mxn = opmfu_malloc((ng + 1) * sizeof(*tt.mxn));
	tt.mn = opmfu_malloc((ng + 1) * sizeof(*tt.mn));
	if (!ord || !res->rows || !tt.key || !tt.ns || !tt.mxn || !tt.mn)
		goto out;
	res->cap_rows = ng + 1;
	for (i = 0; i < ng; i++)
		ord[i] = (uint32_t)i;
	if (opmfu_sort_idx(ord, ng, less_output, w))
		goto out;
	for (i = 0; i < ng; i++) {
		fill_row(w, ord[i], &res->rows[res->n_rows++]);
		if (add_total(&tt, w, ord[i]))
			goto out;
	}
	rc = fill_totals(w, &tt, res);
out:
	opmfu_free(ord);
	opmfu_free(tt.key);
	opmfu_free(tt.ns);
	opmfu_free(tt.mxn);
	opmfu_free(tt.mn);
	opmfu_idtab_release(&tt.tab);
	return rc;
}
