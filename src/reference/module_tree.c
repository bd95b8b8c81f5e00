/*
 * module_tree.c - SPEC 3.1-3.3: kernel rows, op nodes, the tree.
 *
 * Kernel rows are hashed into op nodes; modules and op nodes are sorted once
 * and walked with a stack. Because a module's subtree is a contiguous run of
 * that sorted order, the walk itself is the depth-first order of SPEC 3.3,
 * so no child lists are built.
 */
#include "reference/module_tree.h"

#include <string.h>

#include "base/bucket.h"
#include "base/idtab.h"
#include "base/lbound.h"
#include "base/mem.h"
#include "base/sort.h"

#define NONE UINT32_MAX

void opmfu_module_tree_init(struct opmfu_module_tree *mt)
{
	memset(mt, 0, sizeof(*mt));
}

void opmfu_module_tree_release(struct opmfu_module_tree *mt)
{
	opmfu_free(mt->k_link);
	opmfu_free(mt->k_ent);
	opmfu_free(mt->node_link);
	opmfu_free(mt->node_off);
	opmfu_free(mt->kord);
	opmfu_free(mt->mod_parent);
	opmfu_free(mt->mod_depth);
	opmfu_free(mt->row_node);
	opmfu_free(mt->row_mod);
	opmfu_module_tree_init(mt);
}

/* The tree being built. */
struct build {
	struct opmfu_module_tree *mt;
	const struct opmfu_trace *t;
	const struct opmfu_op_mfu *op;
	struct opmfu_idtab node_tab; /* op nodes of long runs and of communication rows */
};

/* ---- 1. kernel rows in SPEC 3.1 order ---- */

struct lkey {
	int64_t op_start, k_start;
	uint32_t idx; /* the link's index: its read order */
};

static int less_lkey(const void *pa, const void *pb)
{
	const struct lkey *a = pa, *b = pb;
	if (a->op_start != b->op_start)
		return a->op_start < b->op_start;
	if (a->k_start != b->k_start)
		return a->k_start < b->k_start;
	return a->idx < b->idx;
}

/* Appends the links [lo, hi) to ord in (op start, kernel start, read order). */
static int order_comm(const struct opmfu_trace *t, size_t lo, size_t hi, uint32_t *ord, size_t *n_ord)
{
	struct lkey *v;
	size_t i, n = hi - lo;
	int rc = -1;

	if (!n)
		return 0;
	v = opmfu_malloc(n * sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < n; i++) {
		const struct opmfu_link *l = &t->links[lo + i];
		v[i] = (struct lkey){ l->op_start, l->k_start, (uint32_t)(lo + i) };
	}
	if (opmfu_sort_array(v, n, sizeof(*v), less_lkey))
		goto out;
	for (i = 0; i < n; i++)
		ord[(*n_ord)++] = v[i].idx;
	rc = 0;
out:
	opmfu_free(v);
	return rc;
}

/* Kernel rows of the links ord[a, b): one per MFU entry, one when none. */
static size_t count_rows(const struct opmfu_op_mfu *op, const struct opmfu_trace *t, const uint32_t *ord, size_t a,
			 size_t b)
{
	size_t n = 0;
	for (; a < b; a++) {
		uint32_t e = opmfu_op_mfu_first(op, t, &t->links[ord[a]]);
		size_t c = 0;
		for (; e != OPMFU_NO_ENTRY; e = op->m[e].next)
			c++;
		n += c ? c : 1;
	}
	return n;
}

static int build_kernel_rows(struct build *b)
{
	struct opmfu_module_tree *mt = b->mt;
	const struct opmfu_trace *t = b->t;
	const struct opmfu_op_mfu *op = b->op;
	size_t n_ord = 0, i, total, c0, c1, c2;
	uint32_t *ord;
	int rc = -1;

	/* links: compute [0, c0), COMMUNICATION_OP [c0, c1), SCHEDULE [c1, c2) */
	c0 = t->n_compute < t->n_links ? t->n_compute : t->n_links;
	c1 = c0 + t->n_comm_op < t->n_links ? c0 + t->n_comm_op : t->n_links;
	c2 = c1 + t->n_comm_sched < t->n_links ? c1 + t->n_comm_sched : t->n_links;
	ord = opmfu_malloc((op->n_r + t->n_links + 1) * sizeof(*ord));
	if (!ord)
		return -1;
	for (i = 0; i < op->n_r; i++)
		ord[n_ord++] = op->r[i];
	if (order_comm(t, c0, c1, ord, &n_ord) || order_comm(t, c1, c2, ord, &n_ord))
		goto out;

	mt->n_k_r = count_rows(op, t, ord, 0, op->n_r);
	total = mt->n_k_r + count_rows(op, t, ord, op->n_r, n_ord);
	if (total >= NONE - 1)
		goto out;
	mt->k_link = opmfu_malloc((total + 1) * sizeof(*mt->k_link));
	mt->k_ent = opmfu_malloc((total + 1) * sizeof(*mt->k_ent));
	if (!mt->k_link || !mt->k_ent)
		goto out;
	for (i = 0; i < n_ord; i++) {
		uint32_t e = opmfu_op_mfu_first(op, t, &t->links[ord[i]]);
		if (e == OPMFU_NO_ENTRY) {
			mt->k_link[mt->n_k] = ord[i];
			mt->k_ent[mt->n_k++] = OPMFU_NO_ENTRY;
		}
		for (; e != OPMFU_NO_ENTRY; e = op->m[e].next) {
			mt->k_link[mt->n_k] = ord[i];
			mt->k_ent[mt->n_k++] = e;
		}
	}
	rc = 0;
out:
	opmfu_free(ord);
	return rc;
}

/* ---- 2. op nodes: (op name, op start, op end) in order of first appearance ---- */

/* The same op node: (op name, op start, op end). */
static int same_op(const struct opmfu_trace *t, const struct opmfu_link *a, const struct opmfu_link *b)
{
	return a->op_start == b->op_start && a->op_end == b->op_end &&
	       opmfu_module_name_key(t, a->op_name) == opmfu_module_name_key(t, b->op_name);
}

struct node_probe {
	const struct build *b;
	const struct opmfu_link *l;
};

static int node_eq(const void *probe, uint32_t id)
{
	const struct node_probe *p = probe;
	return same_op(p->b->t, p->l, &p->b->t->links[p->b->mt->node_link[id]]);
}

static uint64_t node_hash(const struct opmfu_trace *t, const struct opmfu_link *l)
{
	return opmfu_mix64((uint64_t)l->op_start * 0x9E3779B97F4A7C15ULL ^ opmfu_mix64((uint64_t)l->op_end) ^
			   ((uint64_t)opmfu_module_name_key(t, l->op_name) << 21));
}

static int64_t node_start(const struct build *b, size_t id)
{
	return b->t->links[b->mt->node_link[id]].op_start;
}

/* The node among [a, e) that is l's op, else NONE. */
static uint32_t scan_nodes(const struct build *b, size_t a, size_t e, const struct opmfu_link *l)
{
	for (; a < e; a++)
		if (same_op(b->t, &b->t->links[b->mt->node_link[a]], l))
			return (uint32_t)a;
	return NONE;
}

/* Appends a node whose op is link k's. */
static int add_node(struct build *b, uint32_t k, uint32_t *id)
{
	struct opmfu_module_tree *mt = b->mt;
	if (OPMFU_GROW(mt->node_link, mt->cap_nodes, mt->n_nodes + 1))
		return -1;
	*id = (uint32_t)mt->n_nodes;
	mt->node_link[mt->n_nodes++] = k;
	return 0;
}

/* The node of link k's op in the hash table, which takes new_id when it has
 * none (NONE when out of memory). */
static uint32_t hash_get(struct build *b, uint32_t k, uint32_t new_id)
{
	struct node_probe p = { b, &b->t->links[k] };
	return opmfu_idtab_get(&b->node_tab, node_hash(b->t, p.l), node_eq, &p, new_id);
}

/* The node of link k's op through the hash table, else a new one. */
static int hash_node(struct build *b, uint32_t k, uint32_t *id)
{
	*id = hash_get(b, k, (uint32_t)b->mt->n_nodes);
	if (*id == NONE)
		return -1;
	return *id == b->mt->n_nodes ? add_node(b, k, id) : 0;
}

/* Nodes of one op start searched in place; a longer run of them goes
 * through the hash table, so many ops starting together stay linear. */
#define RUN_SCAN 8

/* A row of R. R comes in op start order, so an op met before has the
 * current op start: it is among the nodes made since that start began
 * (from *run0). */
static int r_node(struct build *b, size_t *run0, uint32_t k, uint32_t *id)
{
	const struct opmfu_link *l = &b->t->links[k];
	size_t n = b->mt->n_nodes, j;

	if (*run0 < n && node_start(b, *run0) != l->op_start)
		*run0 = n;
	if (n - *run0 > RUN_SCAN)
		return hash_node(b, k, id);
	if ((*id = scan_nodes(b, *run0, n, l)) != NONE)
		return 0;
	if (add_node(b, k, id))
		return -1;
	if (b->mt->n_nodes - *run0 > RUN_SCAN) /* the run just grew long: into the hash table */
		for (j = *run0; j < b->mt->n_nodes; j++)
			if (hash_get(b, b->mt->node_link[j], (uint32_t)j) == NONE)
				return -1;
	return 0;
}

static int node_before(const void *ctx, size_t i, const void *key)
{
	return node_start(ctx, i) < *(const int64_t *)key;
}

/* A communication row: R's nodes [0, n_r_nodes) of its op start by binary
 * search (a long run of them is in the hash table), else the hash table,
 * which holds the communication rows' own nodes. */
static int comm_node(struct build *b, size_t n_r_nodes, uint32_t k, uint32_t *id)
{
	const struct opmfu_link *l = &b->t->links[k];
	size_t lo = opmfu_lbound(0, n_r_nodes, node_before, b, &l->op_start), hi;

	for (hi = lo; hi < n_r_nodes && hi - lo <= RUN_SCAN && node_start(b, hi) == l->op_start; hi++)
		;
	if (hi - lo <= RUN_SCAN && (*id = scan_nodes(b, lo, hi, l)) != NONE)
		return 0;
	return hash_node(b, k, id);
}

/*
 * Op nodes in order of first appearance. Rows of R find theirs in place (a
 * hash table of all nodes cost random probes into tens of MB), the
 * communication rows after them by binary search and a small hash table.
 */
static int build_nodes(struct build *b)
{
	struct opmfu_module_tree *mt = b->mt;
	const struct opmfu_trace *t = b->t;
	uint32_t *node_of = opmfu_malloc((mt->n_k + 1) * sizeof(*node_of));
	size_t i, run0 = 0, n_r_nodes = 0;
	int rc = -1;

	if (!node_of)
		return -1;
	for (i = 0; i < mt->n_k; i++) {
		uint32_t k = mt->k_link[i];
		if (i == mt->n_k_r)
			n_r_nodes = mt->n_nodes;
		/* the next kernel row of the same op (R keeps an op's kernels,
		 * and a link's several MFU entries, together) */
		if (i > 0 && same_op(t, &t->links[mt->k_link[i - 1]], &t->links[k])) {
			node_of[i] = node_of[i - 1];
			continue;
		}
		if (i < mt->n_k_r ? r_node(b, &run0, k, &node_of[i]) : comm_node(b, n_r_nodes, k, &node_of[i]))
			goto out;
	}
	if (opmfu_bucket(node_of, mt->n_k, mt->n_nodes, &mt->node_off, &mt->kord))
		goto out;
	rc = 0;
out:
	opmfu_free(node_of);
	opmfu_idtab_release(&b->node_tab);
	return rc;
}

/* ---- 3. the tree (SPEC 3.2) and its depth-first rows (SPEC 3.3) ---- */

/* start ascending, end descending, modules first (lower items), then the
 * caller's order */
static int less_item(const void *ctx, uint32_t a, uint32_t b)
{
	int64_t sa, ea, sb, eb;
	opmfu_nest_span(ctx, a, &sa, &ea);
	opmfu_nest_span(ctx, b, &sb, &eb);
	if (sa != sb)
		return sa < sb;
	if (ea != eb)
		return ea > eb;
	return a < b;
}

int opmfu_nest_order(const struct opmfu_nest *ns, uint32_t *ord, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		ord[i] = (uint32_t)i;
	/* Module ranges come as the profiler closed them (inner ones first),
	 * the rest nearly in start order: sorting the modules alone first
	 * leaves the natural merge sort a few long runs to merge */
	if (opmfu_sort_idx(ord, ns->n_mods < n ? ns->n_mods : n, less_item, ns))
		return -1;
	return opmfu_sort_idx(ord, n, less_item, ns);
}

struct row_key {
	int64_t mod_start, op_start;
	uint32_t pos;
};

static int less_row_key(const void *pa, const void *pb)
{
	const struct row_key *a = pa, *b = pb;
	if (a->mod_start != b->mod_start)
		return a->mod_start < b->mod_start;
	if (a->op_start != b->op_start)
		return a->op_start < b->op_start;
	return a->pos < b->pos;
}

/* Walks the items in order with a stack of the open modules (the root below
 * it contains everything): parents and depths of modules, a row per op node
 * directly under a module of depth <= OPMFU_MODULE_MAX_DEPTH. */
static void walk(struct opmfu_module_tree *mt, const struct opmfu_trace *t, const struct opmfu_nest *ns,
		 const uint32_t *ord, size_t n_items, uint32_t *stack)
{
	size_t n_mods = t->mods.n, i, sp = 0;

	for (i = 0; i < n_items; i++) {
		uint32_t parent, id = ord[i];
		int64_t start, end;
		opmfu_nest_span(ns, id, &start, &end);
		while (sp > 0 && !(t->mods.v[stack[sp - 1]].start <= start && t->mods.v[stack[sp - 1]].end >= end))
			sp--;
		parent = sp ? stack[sp - 1] : NONE;
		if (id < n_mods) {
			uint32_t m = id;
			mt->mod_parent[m] = parent;
			mt->mod_depth[m] = parent == NONE ? 1 : mt->mod_depth[parent] + 1;
			stack[sp++] = m;
		} else if (parent == NONE) {
			/* outside every module: no row (SPEC 3.3) */
		} else if (mt->mod_depth[parent] > OPMFU_MODULE_MAX_DEPTH) {
			mt->ops_too_deep++;
		} else {
			mt->row_node[mt->n_rows] = id - (uint32_t)n_mods;
			mt->row_mod[mt->n_rows++] = parent;
		}
	}
}

/* Rows sorted stably by (module start, op start): ties keep depth-first
 * order. Sorted through an index: the keys are the most it holds. */
static int sort_rows(struct opmfu_module_tree *mt, const struct opmfu_trace *t)
{
	struct row_key *rk = opmfu_malloc((mt->n_rows + 1) * sizeof(*rk));
	uint32_t *tmp = NULL;
	size_t i;
	int rc = -1;

	if (!rk)
		return -1;
	for (i = 0; i < mt->n_rows; i++)
		rk[i] = (struct row_key){ t->mods.v[mt->row_mod[i]].start,
					  t->links[mt->node_link[mt->row_node[i]]].op_start, (uint32_t)i };
	if (opmfu_sort_array_lean(rk, mt->n_rows, sizeof(*rk), less_row_key) ||
	    !(tmp = opmfu_malloc((mt->n_rows + 1) * sizeof(*tmp))))
		goto out;
	/* each array permuted through the one scratch */
	for (i = 0; i < mt->n_rows; i++)
		tmp[i] = mt->row_node[rk[i].pos];
	memcpy(mt->row_node, tmp, mt->n_rows * sizeof(*tmp));
	for (i = 0; i < mt->n_rows; i++)
		tmp[i] = mt->row_mod[rk[i].pos];
	memcpy(mt->row_mod, tmp, mt->n_rows * sizeof(*tmp));
	rc = 0;
out:
	opmfu_free(tmp);
	opmfu_free(rk);
	return rc;
}

static int build_rows(struct opmfu_module_tree *mt, const struct opmfu_trace *t)
{
	size_t n_mods = t->mods.n, n_items = n_mods + mt->n_nodes;
	struct opmfu_nest ns = { t->mods.v,
				 n_mods,
				 t->links,
				 sizeof(*t->links),
				 offsetof(struct opmfu_link, op_start),
				 offsetof(struct opmfu_link, op_end),
				 mt->node_link };
	uint32_t *ord = NULL, *stack = NULL;
	int rc = -1;

	if (n_items >= NONE - 1)
		return -1;
	ord = opmfu_malloc((n_items + 1) * sizeof(*ord));
	stack = opmfu_malloc((n_mods + 1) * sizeof(*stack));
	mt->mod_parent = opmfu_malloc((n_mods + 1) * sizeof(*mt->mod_parent));
	mt->mod_depth = opmfu_malloc((n_mods + 1) * sizeof(*mt->mod_depth));
	mt->row_node = opmfu_malloc((mt->n_nodes + 1) * sizeof(*mt->row_node));
	mt->row_mod = opmfu_malloc((mt->n_nodes + 1) * sizeof(*mt->row_mod));
	if (!ord || !stack || !mt->mod_parent || !mt->mod_depth || !mt->row_node || !mt->row_mod)
		goto out;
	if (opmfu_nest_order(&ns, ord, n_items))
		goto out;
	walk(mt, t, &ns, ord, n_items, stack);
	opmfu_free(ord);
	ord = NULL;
	if (sort_rows(mt, t))
		goto out;
	rc = 0;
out:
	opmfu_free(ord);
	opmfu_free(stack);
	return rc;
}

int opmfu_module_tree_build(struct opmfu_module_tree *mt, const struct opmfu_trace *t,
			    const struct opmfu_op_mfu *op)
{
	struct build b;
	int rc;

	if (t->mods.n == 0 || t->n_links == 0)
		return 0;
	b.mt = mt;
	b.t = t;
	b.op = op;
	opmfu_idtab_init(&b.node_tab);
	rc = build_kernel_rows(&b) || build_nodes(&b) || build_rows(mt, t) ? -1 : 0;
	opmfu_idtab_release(&b.node_tab);
	return rc;
}

/* ---- module paths (SPEC 3.3) ---- */

int opmfu_module_paths_init(struct opmfu_module_paths *p, const struct opmfu_module_tree *mt,
			    const struct opmfu_trace *t, struct opmfu_intern *strs, struct sbuf *sb)
{
	size_t n = t->mods.n + 1;

	p->mt = mt;
	p->t = t;
	p->strs = strs;
	p->sb = sb;
	p->pid = opmfu_malloc(n * sizeof(*p->pid));
	p->fid = opmfu_malloc(n * sizeof(*p->fid));
	if (!p->pid || !p->fid || (p->empty = opmfu_intern_add(strs, "", 0)) == NONE)
		return -1;
	memset(p->pid, 0xff, n * sizeof(*p->pid));
	memset(p->fid, 0xff, n * sizeof(*p->fid));
	return 0;
}

void opmfu_module_paths_release(struct opmfu_module_paths *p)
{
	opmfu_free(p->pid);
	opmfu_free(p->fid);
	p->pid = p->fid = NULL;
}

uint32_t opmfu_module_parent_path(struct opmfu_module_paths *p, uint32_t m)
{
	if (p->pid[m] == NONE)
		p->pid[m] = p->mt->mod_parent[m] == NONE ? p->empty : opmfu_module_path(p, p->mt->mod_parent[m]);
	return p->pid[m];
}

/* Its parent path, "/", its name; one level of recursion per ancestor not
 * built yet. */
uint32_t opmfu_module_path(struct opmfu_module_paths *p, uint32_t m)
{
	if (p->fid[m] == NONE) {
		uint32_t pid = opmfu_module_parent_path(p, m);
		size_t len;
		const char *name = opmfu_module_str(p->t, p->t->mods.v[m].name, &len);
		if (pid == NONE)
			return NONE;
		sbuf_reset(p->sb);
		if (p->mt->mod_parent[m] != NONE) {
			sbuf_add(p->sb, opmfu_intern_str(p->strs, pid), opmfu_intern_len(p->strs, pid));
			sbuf_add(p->sb, "/", 1);
		}
		sbuf_add(p->sb, name, len);
		if (p->sb->oom)
			return NONE;
		p->fid[m] = opmfu_intern_add(p->strs, p->sb->buf, p->sb->len);
	}
	return p->fid[m];
}
