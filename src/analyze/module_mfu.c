/*
 * module_mfu.c - SPEC 3 module tree and aggregation.
 *
 * Kernel rows are hashed into op nodes; modules and op nodes are sorted once
 * and walked with a stack. Because a module's subtree is a contiguous run of
 * that sorted order, the walk itself is the depth-first order of SPEC 3.3,
 * so no child lists are built. Calls, op sequences, kernel lists, groups and
 * names are hashed; only rows and groups are sorted. Cost O(n log n) in the
 * kernel rows, memory linear in them.
 */
#include "analyze/module_mfu.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/mem.h"
#include "base/sort.h"
#include "base/sbuf.h"
#include "model/parse.h"

#define NONE UINT32_MAX

void opmfu_module_mfu_init(struct opmfu_module_mfu *res)
{
	memset(res, 0, sizeof(*res));
}

void opmfu_module_mfu_release(struct opmfu_module_mfu *res)
{
	size_t i;
	for (i = 0; i < res->n_pool; i++)
		opmfu_free(res->pool[i]);
	opmfu_free(res->pool);
	opmfu_free(res->rows);
	opmfu_free(res->totals);
	opmfu_module_mfu_init(res);
}

/* ---- hashing ---- */

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;
	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return opmfu_mix64(h ^ n);
}

/* Open addressing over dense ids; the caller keeps the keys and says, through
 * eq, whether the key of an id equals the one probed. */
struct idtab {
	struct idslot {
		uint32_t id, h;
	} *slot;
	size_t cap, n;
};

typedef int (*id_eq_fn)(const void *probe, uint32_t id);

/* Over 3/4 full with n keys: time to grow. */
static int idtab_full(size_t cap, size_t n)
{
	return n * 4 > cap * 3;
}

/* Moves the keys into a table of ncap slots (a power of two). */
static int idtab_resize(struct idtab *t, size_t ncap)
{
	size_t i;
	struct idslot *ns = opmfu_malloc(ncap * sizeof(*ns));
	if (!ns)
		return -1;
	memset(ns, 0xff, ncap * sizeof(*ns));
	for (i = 0; i < t->cap; i++) {
		size_t j;
		if (t->slot[i].id == NONE)
			continue;
		j = t->slot[i].h & (ncap - 1);
		while (ns[j].id != NONE)
			j = (j + 1) & (ncap - 1);
		ns[j] = t->slot[i];
	}
	opmfu_free(t->slot);
	t->slot = ns;
	t->cap = ncap;
	return 0;
}

/* The id stored under a key equal to the probe, else stores new_id and
 * returns it; NONE when out of memory. */
static uint32_t idtab_get(struct idtab *t, uint64_t hash, id_eq_fn eq, const void *probe, uint32_t new_id)
{
	uint32_t h = (uint32_t)hash;
	size_t i;
	if (idtab_full(t->cap, t->n + 1) && idtab_resize(t, t->cap ? t->cap * 2 : 64))
		return NONE;
	i = h & (t->cap - 1);
	while (t->slot[i].id != NONE) {
		if (t->slot[i].h == h && eq(probe, t->slot[i].id))
			return t->slot[i].id;
		i = (i + 1) & (t->cap - 1);
	}
	t->slot[i].id = new_id;
	t->slot[i].h = h;
	t->n++;
	return new_id;
}

/* ---- strings: an arena of blocks, and an interning set on top ---- */

#define ARENA_BLOCK 65536

struct arena {
	char **blk;
	size_t n, cap;
	char *cur;
	size_t left;
};

static char *arena_put(struct arena *a, const char *s, size_t len)
{
	size_t need = len + 1;
	char *p;
	if (OPMFU_GROW(a->blk, a->cap, a->n + 1))
		return NULL;
	if (need > ARENA_BLOCK / 16) {
		/* a long string gets its own block, the current one stays in use */
		if (!(p = opmfu_malloc(need)))
			return NULL;
		a->blk[a->n++] = p;
	} else {
		if (need > a->left) {
			a->left = 0;
			if (!(a->cur = opmfu_malloc(ARENA_BLOCK)))
				return NULL;
			a->blk[a->n++] = a->cur;
			a->left = ARENA_BLOCK;
		}
		p = a->cur;
		a->cur += need;
		a->left -= need;
	}
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

static void arena_release(struct arena *a)
{
	size_t i;
	for (i = 0; i < a->n; i++)
		opmfu_free(a->blk[i]);
	opmfu_free(a->blk);
	memset(a, 0, sizeof(*a));
}

struct strset {
	struct sstr {
		const char *s;
		size_t len;
	} *v; /* by id, in order of first addition */
	size_t n, cap;
	struct idtab tab;
	struct arena *ar;
};

struct str_probe {
	const struct strset *ss;
	const char *s;
	size_t len;
};

static int str_eq(const void *probe, uint32_t id)
{
	const struct str_probe *p = probe;
	const struct sstr *e = &p->ss->v[id];
	return e->len == p->len && memcmp(e->s, p->s, p->len) == 0;
}

/* Id of the string s[0..len), added if new; NONE when out of memory (the
 * set is then unusable, and the run fails). */
static uint32_t strset_add(struct strset *ss, const char *s, size_t len)
{
	struct str_probe p = { ss, s, len };
	uint32_t id;
	if (ss->n >= NONE - 1 || OPMFU_GROW(ss->v, ss->cap, ss->n + 1))
		return NONE;
	id = idtab_get(&ss->tab, hash_bytes(s, len), str_eq, &p, (uint32_t)ss->n);
	if (id == (uint32_t)ss->n) {
		char *c = arena_put(ss->ar, s, len);
		if (!c)
			return NONE;
		ss->v[ss->n].s = c;
		ss->v[ss->n].len = len;
		ss->n++;
	}
	return id;
}

static void strset_release(struct strset *ss)
{
	opmfu_free(ss->v);
	opmfu_free(ss->tab.slot);
	ss->v = NULL;
	ss->tab.slot = NULL;
	ss->n = ss->cap = ss->tab.cap = ss->tab.n = 0;
}

/* ---- numpy's mean (SPEC 3.5 must match the reference bit for bit) ---- */

/* numpy's pairwise summation: a plain loop under 8 values, 8 accumulators up
 * to 128, halves (at a multiple of 8) above. */
static double pairwise_sum(const double *a, size_t n)
{
	if (n < 8) {
		double res = 0.;
		size_t i;
		for (i = 0; i < n; i++)
			res += a[i];
		return res;
	} else if (n <= 128) {
		double r[8], res;
		size_t i, j;
		for (j = 0; j < 8; j++)
			r[j] = a[j];
		for (i = 8; i < n - n % 8; i += 8)
			for (j = 0; j < 8; j++)
				r[j] += a[i + j];
		res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
		for (; i < n; i++)
			res += a[i];
		return res;
	} else {
		size_t n2 = n / 2;
		n2 -= n2 % 8;
		return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
	}
}

/* ndarray.mean() of a float64 array: the add reduction starts from its
 * identity 0 and sums buffers of 8192 values pairwise; then / n. */
double opmfu_np_mean(const double *a, size_t n)
{
	double s = 0.;
	size_t i;
	for (i = 0; i < n; i += 8192)
		s += pairwise_sum(a + i, n - i < 8192 ? n - i : 8192);
	return s / (double)n;
}

/* ---- the run ---- */

struct group_key {
	uint32_t pid, mname, oname, order, klist, seq;
};

struct mm {
	const struct opmfu_trace *t;
	const struct opmfu_op_mfu *op;
	struct sbuf sb;
	struct arena ar;      /* result strings: handed to res->pool */
	struct arena tmp_ar;  /* op sequences: freed at the end */
	struct strset strs;   /* parent paths, kernel lists, suffixed names (in ar) */
	struct strset seqs;   /* op sequences of calls; id = seq_id (in tmp_ar) */
	uint32_t empty_id;    /* id of "" in strs */

	/* kernel rows (SPEC 3.1): link and MFU entry (NONE: no MFU) */
	uint32_t *k_link, *k_ent;
	size_t n_k;
	size_t n_k_r; /* the first n_k_r come from R: in op start order */

	/* op nodes, numbered in order of first appearance */
	uint32_t *node_link; /* a link of the node: its name and span */
	uint32_t *node_off;  /* its kernel rows: kord[node_off[i] .. node_off[i + 1]) */
	uint32_t *kord;
	size_t n_nodes, cap_nodes;
	struct idtab node_tab;

	/* modules */
	uint32_t *mod_parent, *mod_depth, *mod_pid, *mod_fid, *mod_cnt, *mod_call;

	/* rows: one per op node under a module, sorted by (module start, op start) */
	uint32_t *row_node, *row_mod, *row_order, *row_seq, *row_klist, *row_group;
	double *row_dev, *row_mxn, *row_mn;
	size_t n_rows;

	/* groups (SPEC 3.5) */
	struct group_key *g_key;
	int64_t *g_first;
	double *g_total, *g_mxn, *g_mn;
	uint32_t *g_count, *g_off, *grow;
	const char **g_module, **g_avg;
	size_t n_groups, cap_groups;
	struct idtab group_tab;
	uint32_t *g_disamb, *g_out; /* groups in disambiguation / output order */
};

static const char *sid_str(const struct opmfu_trace *t, uint32_t sid, size_t *len)
{
	const char *s = opmfu_strtab_str(&t->strs, sid);
	*len = s ? opmfu_strtab_len(&t->strs, sid) : 0;
	return s ? s : "";
}

/* NULL and "" are the same name */
static uint32_t name_key(const struct opmfu_trace *t, uint32_t sid)
{
	return sid && opmfu_strtab_len(&t->strs, sid) ? sid : 0;
}

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
	sa = sid_str(t, a, &na);
	sb = sid_str(t, b, &nb);
	return cmp_bytes(sa, na, sb, nb);
}

static int cmp_strid(const struct strset *ss, uint32_t a, uint32_t b)
{
	if (a == b)
		return 0;
	return cmp_bytes(ss->v[a].s, ss->v[a].len, ss->v[b].s, ss->v[b].len);
}

/* ---- 1. kernel rows in SPEC 3.1 order ---- */

struct lkey {
	int64_t op_start, k_start;
	uint32_t seq, idx;
};

static int cmp_lkey(const void *pa, const void *pb)
{
	const struct lkey *a = pa, *b = pb;
	if (a->op_start != b->op_start)
		return a->op_start < b->op_start ? -1 : 1;
	if (a->k_start != b->k_start)
		return a->k_start < b->k_start ? -1 : 1;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/* Appends the links [lo, hi) to ord in (op start, kernel start, read order). */
static int order_comm(const struct opmfu_trace *t, size_t lo, size_t hi, uint32_t *ord, size_t *n_ord)
{
	struct lkey *v;
	size_t i, n = hi - lo;
	if (!n)
		return 0;
	v = opmfu_malloc(n * sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < n; i++) {
		const struct opmfu_link *l = &t->links[lo + i];
		v[i] = (struct lkey){ l->op_start, l->k_start, (uint32_t)(lo + i), (uint32_t)(lo + i) };
	}
	qsort(v, n, sizeof(*v), cmp_lkey);
	for (i = 0; i < n; i++)
		ord[(*n_ord)++] = v[i].idx;
	opmfu_free(v);
	return 0;
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

static int build_kernel_rows(struct mm *w)
{
	const struct opmfu_trace *t = w->t;
	const struct opmfu_op_mfu *op = w->op;
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

	w->n_k_r = count_rows(op, t, ord, 0, op->n_r);
	total = w->n_k_r + count_rows(op, t, ord, op->n_r, n_ord);
	if (total >= NONE - 1)
		goto out;
	w->k_link = opmfu_malloc((total + 1) * sizeof(*w->k_link));
	w->k_ent = opmfu_malloc((total + 1) * sizeof(*w->k_ent));
	if (!w->k_link || !w->k_ent)
		goto out;
	for (i = 0; i < n_ord; i++) {
		uint32_t e = opmfu_op_mfu_first(op, t, &t->links[ord[i]]);
		if (e == OPMFU_NO_ENTRY) {
			w->k_link[w->n_k] = ord[i];
			w->k_ent[w->n_k++] = NONE;
		}
		for (; e != OPMFU_NO_ENTRY; e = op->m[e].next) {
			w->k_link[w->n_k] = ord[i];
			w->k_ent[w->n_k++] = e;
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
	       name_key(t, a->op_name) == name_key(t, b->op_name);
}

struct node_probe {
	const struct mm *w;
	const struct opmfu_link *l;
};

static int node_eq(const void *probe, uint32_t id)
{
	const struct node_probe *p = probe;
	return same_op(p->w->t, p->l, &p->w->t->links[p->w->node_link[id]]);
}

static uint64_t node_hash(const struct opmfu_trace *t, const struct opmfu_link *l)
{
	return opmfu_mix64((uint64_t)l->op_start * 0x9E3779B97F4A7C15ULL ^ opmfu_mix64((uint64_t)l->op_end) ^
			   ((uint64_t)name_key(t, l->op_name) << 21));
}

static int64_t node_start(const struct mm *w, size_t id)
{
	return w->t->links[w->node_link[id]].op_start;
}

/* The node among [a, b) that is l's op, else NONE. */
static uint32_t scan_nodes(const struct mm *w, size_t a, size_t b, const struct opmfu_link *l)
{
	for (; a < b; a++)
		if (same_op(w->t, &w->t->links[w->node_link[a]], l))
			return (uint32_t)a;
	return NONE;
}

/* Appends a node whose op is link k's. */
static int add_node(struct mm *w, uint32_t k, uint32_t *id)
{
	if (OPMFU_GROW(w->node_link, w->cap_nodes, w->n_nodes + 1))
		return -1;
	*id = (uint32_t)w->n_nodes;
	w->node_link[w->n_nodes++] = k;
	return 0;
}

/* The node of link k's op in the hash table, which takes new_id when it has
 * none (NONE when out of memory). */
static uint32_t hash_get(struct mm *w, uint32_t k, uint32_t new_id)
{
	struct node_probe p = { w, &w->t->links[k] };
	return idtab_get(&w->node_tab, node_hash(w->t, p.l), node_eq, &p, new_id);
}

/* The node of link k's op through the hash table, else a new one. */
static int hash_node(struct mm *w, uint32_t k, uint32_t *id)
{
	*id = hash_get(w, k, (uint32_t)w->n_nodes);
	if (*id == NONE)
		return -1;
	return *id == w->n_nodes ? add_node(w, k, id) : 0;
}

/* Nodes of one op start searched in place; a longer run of them goes
 * through the hash table, so many ops starting together stay linear. */
#define RUN_SCAN 8

/* A row of R. R comes in op start order, so an op met before has the
 * current op start: it is among the nodes made since that start began
 * (from *run0). */
static int r_node(struct mm *w, size_t *run0, uint32_t k, uint32_t *id)
{
	const struct opmfu_link *l = &w->t->links[k];
	size_t j;

	if (*run0 < w->n_nodes && node_start(w, *run0) != l->op_start)
		*run0 = w->n_nodes;
	if (w->n_nodes - *run0 > RUN_SCAN)
		return hash_node(w, k, id);
	if ((*id = scan_nodes(w, *run0, w->n_nodes, l)) != NONE)
		return 0;
	if (add_node(w, k, id))
		return -1;
	if (w->n_nodes - *run0 > RUN_SCAN) /* the run just grew long: into the hash table */
		for (j = *run0; j < w->n_nodes; j++)
			if (hash_get(w, w->node_link[j], (uint32_t)j) == NONE)
				return -1;
	return 0;
}

/* A communication row: R's nodes [0, n_r_nodes) of its op start by binary
 * search (a long run of them is in the hash table), else the hash table,
 * which holds the communication rows' own nodes. */
static int comm_node(struct mm *w, size_t n_r_nodes, uint32_t k, uint32_t *id)
{
	const struct opmfu_link *l = &w->t->links[k];
	size_t lo = 0, hi = n_r_nodes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (node_start(w, mid) < l->op_start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (hi = lo; hi < n_r_nodes && hi - lo <= RUN_SCAN && node_start(w, hi) == l->op_start; hi++)
		;
	if (hi - lo <= RUN_SCAN && (*id = scan_nodes(w, lo, hi, l)) != NONE)
		return 0;
	return hash_node(w, k, id);
}

/*
 * Op nodes in order of first appearance. Rows of R find theirs in place (a
 * hash table of all nodes cost random probes into tens of MB), the
 * communication rows after them by binary search and a small hash table.
 */
static int build_nodes(struct mm *w)
{
	const struct opmfu_trace *t = w->t;
	uint32_t *node_of = opmfu_malloc((w->n_k + 1) * sizeof(*node_of));
	size_t i, run0 = 0, n_r_nodes = 0;
	int rc = -1;

	if (!node_of)
		return -1;
	for (i = 0; i < w->n_k; i++) {
		uint32_t k = w->k_link[i];
		if (i == w->n_k_r)
			n_r_nodes = w->n_nodes;
		/* the next kernel row of the same op (R keeps an op's kernels,
		 * and a link's several MFU entries, together) */
		if (i > 0 && same_op(t, &t->links[w->k_link[i - 1]], &t->links[k])) {
			node_of[i] = node_of[i - 1];
			continue;
		}
		if (i < w->n_k_r ? r_node(w, &run0, k, &node_of[i]) : comm_node(w, n_r_nodes, k, &node_of[i]))
			goto out;
	}
	if (opmfu_bucket(node_of, w->n_k, w->n_nodes, &w->node_off, &w->kord))
		goto out;
	rc = 0;
out:
	opmfu_free(node_of);
	opmfu_free(w->node_tab.slot);
	w->node_tab.slot = NULL;
	return rc;
}

/* ---- 3. the tree (SPEC 3.2) and its depth-first rows (SPEC 3.3) ---- */

struct item {
	int64_t start, end;
	uint32_t id; /* < n_mods: module; else op node id - n_mods */
};

/* start ascending, end descending, modules first (lower ids), then read or
 * first-appearance order */
static int cmp_item(const void *pa, const void *pb)
{
	const struct item *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

struct row_key {
	int64_t mod_start, op_start;
	uint32_t pos;
};

static int cmp_row_key(const void *pa, const void *pb)
{
	const struct row_key *a = pa, *b = pb;
	if (a->mod_start != b->mod_start)
		return a->mod_start < b->mod_start ? -1 : 1;
	if (a->op_start != b->op_start)
		return a->op_start < b->op_start ? -1 : 1;
	return (a->pos > b->pos) - (a->pos < b->pos);
}

static int less_item(const void *a, const void *b)
{
	return cmp_item(a, b) < 0;
}

static int less_row_key(const void *a, const void *b)
{
	return cmp_row_key(a, b) < 0;
}

static int build_rows(struct mm *w, size_t *too_deep)
{
	const struct opmfu_trace *t = w->t;
	size_t n_mods = t->mods.n, n_items = n_mods + w->n_nodes, i, sp = 0;
	struct item *it = NULL;
	uint32_t *stack = NULL;
	struct row_key *rk = NULL;
	int rc = -1;

	if (n_items >= NONE - 1)
		return -1;
	it = opmfu_malloc(n_items * sizeof(*it));
	stack = opmfu_malloc((n_mods + 1) * sizeof(*stack));
	w->mod_parent = opmfu_malloc((n_mods + 1) * sizeof(*w->mod_parent));
	w->mod_depth = opmfu_malloc((n_mods + 1) * sizeof(*w->mod_depth));
	w->row_node = opmfu_malloc((w->n_nodes + 1) * sizeof(*w->row_node));
	w->row_mod = opmfu_malloc((w->n_nodes + 1) * sizeof(*w->row_mod));
	if (!it || !stack || !w->mod_parent || !w->mod_depth || !w->row_node || !w->row_mod)
		goto out;
	for (i = 0; i < n_mods; i++)
		it[i] = (struct item){ t->mods.v[i].start, t->mods.v[i].end, (uint32_t)i };
	for (i = 0; i < w->n_nodes; i++) {
		const struct opmfu_link *l = &t->links[w->node_link[i]];
		it[n_mods + i] = (struct item){ l->op_start, l->op_end, (uint32_t)(n_mods + i) };
	}
	/* Module ranges come as the profiler closed them (inner ones first),
	 * op nodes nearly in start order: sorting the modules alone first
	 * leaves the natural merge sort a few long runs to merge */
	if (opmfu_sort_array(it, n_mods, sizeof(*it), less_item) ||
	    opmfu_sort_array(it, n_items, sizeof(*it), less_item))
		goto out;

	/* the stack holds the open modules; the root below it contains everything */
	for (i = 0; i < n_items; i++) {
		uint32_t parent;
		while (sp > 0 && !(t->mods.v[stack[sp - 1]].start <= it[i].start &&
				   t->mods.v[stack[sp - 1]].end >= it[i].end))
			sp--;
		parent = sp ? stack[sp - 1] : NONE;
		if (it[i].id < n_mods) {
			uint32_t m = it[i].id;
			w->mod_parent[m] = parent;
			w->mod_depth[m] = parent == NONE ? 1 : w->mod_depth[parent] + 1;
			stack[sp++] = m;
		} else if (parent == NONE) {
			/* outside every module: no row (SPEC 3.3) */
		} else if (w->mod_depth[parent] > OPMFU_MODULE_MAX_DEPTH) {
			(*too_deep)++;
		} else {
			w->row_node[w->n_rows] = it[i].id - (uint32_t)n_mods;
			w->row_mod[w->n_rows++] = parent;
		}
	}

	/* stable sort by (module start, op start); ties keep depth-first order */
	rk = opmfu_malloc((w->n_rows + 1) * sizeof(*rk));
	if (!rk)
		goto out;
	for (i = 0; i < w->n_rows; i++)
		rk[i] = (struct row_key){ t->mods.v[w->row_mod[i]].start,
					  t->links[w->node_link[w->row_node[i]]].op_start, (uint32_t)i };
	if (opmfu_sort_array(rk, w->n_rows, sizeof(*rk), less_row_key))
		goto out;
	/* permute through the item array, no longer needed */
	for (i = 0; i < w->n_rows; i++) {
		it[i].start = w->row_node[rk[i].pos];
		it[i].end = w->row_mod[rk[i].pos];
	}
	for (i = 0; i < w->n_rows; i++) {
		w->row_node[i] = (uint32_t)it[i].start;
		w->row_mod[i] = (uint32_t)it[i].end;
	}
	rc = 0;
out:
	opmfu_free(it);
	opmfu_free(stack);
	opmfu_free(rk);
	return rc;
}

/* ---- 4. names: parent paths (SPEC 3.3) ---- */

static uint32_t module_fid(struct mm *w, uint32_t m);

/* id in strs of the parent_module string of module m */
static uint32_t module_pid(struct mm *w, uint32_t m)
{
	if (w->mod_pid[m] == NONE)
		w->mod_pid[m] = w->mod_parent[m] == NONE ? w->empty_id : module_fid(w, w->mod_parent[m]);
	return w->mod_pid[m];
}

/* id in strs of the path of m itself: its parent path, "/", its name. The
 * recursion is no deeper than OPMFU_MODULE_MAX_DEPTH: only modules with rows
 * and their ancestors get here. */
static uint32_t module_fid(struct mm *w, uint32_t m)
{
	if (w->mod_fid[m] == NONE) {
		uint32_t pid = module_pid(w, m);
		size_t len;
		const char *name = sid_str(w->t, w->t->mods.v[m].name, &len);
		if (pid == NONE)
			return NONE;
		sbuf_reset(&w->sb);
		if (w->mod_parent[m] != NONE) {
			sbuf_add(&w->sb, w->strs.v[pid].s, w->strs.v[pid].len);
			sbuf_add(&w->sb, "/", 1);
		}
		sbuf_add(&w->sb, name, len);
		if (w->sb.oom)
			return NONE;
		w->mod_fid[m] = strset_add(&w->strs, w->sb.buf, w->sb.len);
	}
	return w->mod_fid[m];
}

/* ---- 5. calls, op_order and seq_id (SPEC 3.4); kernel lists ---- */

static int number_calls(struct mm *w)
{
	const struct opmfu_trace *t = w->t;
	size_t n_mods = t->mods.n, i, n_calls = 0, c;
	uint32_t *calls = NULL, *call_off = NULL, *crow = NULL, *row_call = NULL;
	int rc = -1;

	w->mod_cnt = opmfu_calloc(n_mods + 1, sizeof(*w->mod_cnt));
	w->mod_call = opmfu_malloc((n_mods + 1) * sizeof(*w->mod_call));
	w->row_order = opmfu_malloc((w->n_rows + 1) * sizeof(*w->row_order));
	w->row_seq = opmfu_malloc((w->n_rows + 1) * sizeof(*w->row_seq));
	calls = opmfu_malloc((w->n_rows + 1) * sizeof(*calls));
	row_call = opmfu_malloc((w->n_rows + 1) * sizeof(*row_call));
	if (!w->mod_cnt || !w->mod_call || !w->row_order || !w->row_seq || !calls || !row_call)
		goto out;
	/* a call is one module node (its parent path, name and span are unique) */
	for (i = 0; i < w->n_rows; i++) {
		uint32_t m = w->row_mod[i];
		if (w->mod_cnt[m] == 0) {
			w->mod_call[m] = (uint32_t)n_calls;
			calls[n_calls++] = m;
		}
		w->row_order[i] = w->mod_cnt[m]++;
		row_call[i] = w->mod_call[m];
	}
	if (opmfu_bucket(row_call, w->n_rows, n_calls, &call_off, &crow))
		goto out;
	/* sequences are numbered in order of their first row, over all modules */
	for (c = 0; c < n_calls; c++) {
		uint32_t k, seq;
		sbuf_reset(&w->sb);
		for (k = call_off[c]; k < call_off[c + 1]; k++) {
			size_t len;
			const char *s = sid_str(t, t->links[w->node_link[w->row_node[crow[k]]]].op_name, &len);
			if (k > call_off[c])
				sbuf_add(&w->sb, "/", 1);
			sbuf_add(&w->sb, s, len);
		}
		if (w->sb.oom || (seq = strset_add(&w->seqs, w->sb.buf, w->sb.len)) == NONE)
			goto out;
		for (k = call_off[c]; k < call_off[c + 1]; k++)
			w->row_seq[crow[k]] = seq;
	}
	rc = 0;
out:
	opmfu_free(calls);
	opmfu_free(call_off);
	opmfu_free(crow);
	opmfu_free(row_call);
	return rc;
}

static double kernel_mfu(const struct mm *w, uint32_t k)
{
	return w->k_ent[k] == NONE ? -1.0 : w->op->m[w->k_ent[k]].mfu;
}

static int kernel_lists(struct mm *w)
{
	const struct opmfu_trace *t = w->t;
	size_t i;

	w->row_klist = opmfu_malloc((w->n_rows + 1) * sizeof(*w->row_klist));
	w->row_dev = opmfu_malloc((w->n_rows + 1) * sizeof(*w->row_dev));
	w->row_mxn = opmfu_malloc((w->n_rows + 1) * sizeof(*w->row_mxn));
	w->row_mn = opmfu_malloc((w->n_rows + 1) * sizeof(*w->row_mn));
	if (!w->row_klist || !w->row_dev || !w->row_mxn || !w->row_mn)
		return -1;
	for (i = 0; i < w->n_rows; i++) {
		uint32_t n = w->row_node[i], k;
		double dev = 0.0, mxn = 0.0, mn = 0.0;
		sbuf_reset(&w->sb);
		for (k = w->node_off[n]; k < w->node_off[n + 1]; k++) {
			const struct opmfu_link *l = &t->links[w->k_link[w->kord[k]]];
			size_t len;
			const char *s = sid_str(t, l->k_name, &len);
			double dur = (double)(l->k_end - l->k_start), mfu = kernel_mfu(w, w->kord[k]);
			if (k > w->node_off[n])
				sbuf_add(&w->sb, ", ", 2);
			sbuf_add(&w->sb, s, len);
			dev += dur;
			if (mfu > 0) {
				mxn += mfu * dur;
				mn += dur;
			}
		}
		if (w->sb.oom || (w->row_klist[i] = strset_add(&w->strs, w->sb.buf, w->sb.len)) == NONE)
			return -1;
		w->row_dev[i] = dev;
		w->row_mxn[i] = mxn;
		w->row_mn[i] = mn;
	}
	return 0;
}

/* ---- 6. groups (SPEC 3.5) ---- */

struct group_probe {
	const struct mm *w;
	struct group_key key;
};

static int group_eq(const void *probe, uint32_t id)
{
	const struct group_probe *p = probe;
	const struct group_key *a = &p->key, *b = &p->w->g_key[id];
	return a->pid == b->pid && a->mname == b->mname && a->oname == b->oname && a->order == b->order &&
	       a->klist == b->klist && a->seq == b->seq;
}

static uint64_t group_hash(const struct group_key *k)
{
	uint64_t h = opmfu_mix64(((uint64_t)k->pid << 32) | k->mname);
	h = opmfu_mix64(h ^ (((uint64_t)k->oname << 32) | k->order));
	return opmfu_mix64(h ^ (((uint64_t)k->klist << 32) | k->seq));
}

static int grow_groups(struct mm *w)
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

static int build_groups(struct mm *w)
{
	const struct opmfu_trace *t = w->t;
	size_t i;

	w->row_group = opmfu_malloc((w->n_rows + 1) * sizeof(*w->row_group));
	w->mod_pid = opmfu_malloc((t->mods.n + 1) * sizeof(*w->mod_pid));
	w->mod_fid = opmfu_malloc((t->mods.n + 1) * sizeof(*w->mod_fid));
	if (!w->row_group || !w->mod_pid || !w->mod_fid)
		return -1;
	memset(w->mod_pid, 0xff, (t->mods.n + 1) * sizeof(*w->mod_pid));
	memset(w->mod_fid, 0xff, (t->mods.n + 1) * sizeof(*w->mod_fid));
	for (i = 0; i < w->n_rows; i++) {
		uint32_t m = w->row_mod[i], g;
		const struct opmfu_link *l = &t->links[w->node_link[w->row_node[i]]];
		struct group_probe p;
		p.w = w;
		p.key.pid = module_pid(w, m);
		if (p.key.pid == NONE || grow_groups(w))
			return -1;
		p.key.mname = name_key(t, t->mods.v[m].name);
		p.key.oname = name_key(t, l->op_name);
		p.key.order = w->row_order[i];
		p.key.klist = w->row_klist[i];
		p.key.seq = w->row_seq[i];
		g = idtab_get(&w->group_tab, group_hash(&p.key), group_eq, &p, (uint32_t)w->n_groups);
		if (g == NONE)
			return -1;
		if (g == w->n_groups) {
			w->g_key[g] = p.key;
			w->g_first[g] = l->op_start;
			w->g_total[g] = 0.0;
			w->g_mxn[g] = 0.0;
			w->g_mn[g] = 0.0;
			w->g_count[g] = 0;
			w->n_groups++;
		}
		if (l->op_start < w->g_first[g])
			w->g_first[g] = l->op_start;
		w->g_total[g] += w->row_dev[i];
		w->g_mxn[g] += w->row_mxn[i];
		w->g_mn[g] += w->row_mn[i];
		w->g_count[g]++;
		w->row_group[i] = g;
	}
	return opmfu_bucket(w->row_group, w->n_rows, w->n_groups, &w->g_off, &w->grow);
}

/* avg_mfu of every group: per kernel position, the numpy mean of the values
 * > 0, x 100, rounded to 2 decimals, as Python prints it, plus '%'. */
static int average_mfu(struct mm *w)
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
		uint32_t a = w->g_off[g], b = w->g_off[g + 1], r, pos, n_pos = 0;
		/* rows of a group share their kernel list, so normally one length */
		for (r = a; r < b; r++) {
			uint32_t n = w->row_node[w->grow[r]];
			if (w->node_off[n + 1] - w->node_off[n] > n_pos)
				n_pos = w->node_off[n + 1] - w->node_off[n];
		}
		sbuf_reset(&w->sb);
		for (pos = 0; pos < n_pos; pos++) {
			size_t cnt = 0;
			char num[32];
			for (r = a; r < b; r++) {
				uint32_t n = w->row_node[w->grow[r]];
				double v;
				if (w->node_off[n] + pos >= w->node_off[n + 1])
					continue;
				v = kernel_mfu(w, w->kord[w->node_off[n] + pos]);
				if (v > 0)
					vals[cnt++] = v;
			}
			if (!cnt)
				continue;
			opmfu_format_pyfloat(opmfu_round(opmfu_np_mean(vals, cnt) * 100, 2), num);
			sbuf_addf(&w->sb, "%s%s%%", w->sb.len ? "," : "", num);
		}
		if (w->sb.oom)
			goto out;
		if (!w->sb.len)
			w->g_avg[g] = "";
		else if (!(w->g_avg[g] = arena_put(&w->ar, w->sb.buf, w->sb.len)))
			goto out;
	}
	rc = 0;
out:
	opmfu_free(vals);
	return rc;
}

/* ---- 7. disambiguation (SPEC 3.6) and output order (SPEC 3.7) ---- */

/* comparators see the run through this; thread-local so ranks run in parallel */
static _Thread_local const struct mm *cmp_w;

/* Ties on first start: the order of the reference's group keys (parent,
 * module, op name, op order, kernel list, seq_id), bytewise. */
static int cmp_group_keys(uint32_t ga, uint32_t gb, int with_order)
{
	const struct mm *w = cmp_w;
	const struct group_key *a = &w->g_key[ga], *b = &w->g_key[gb];
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

static int cmp_disamb(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	if (cmp_w->g_first[a] != cmp_w->g_first[b])
		return cmp_w->g_first[a] < cmp_w->g_first[b] ? -1 : 1;
	return cmp_group_keys(a, b, 1);
}

static int cmp_output(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	if (cmp_w->g_first[a] != cmp_w->g_first[b])
		return cmp_w->g_first[a] < cmp_w->g_first[b] ? -1 : 1;
	if (cmp_w->g_key[a].order != cmp_w->g_key[b].order)
		return cmp_w->g_key[a].order < cmp_w->g_key[b].order ? -1 : 1;
	return cmp_group_keys(a, b, 0);
}

static int cmp_u32(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	return (a > b) - (a < b);
}

static int disambiguate(struct mm *w)
{
	const struct opmfu_trace *t = w->t;
	size_t ng = w->n_groups, i, j;
	uint32_t *seqs = NULL;
	int rc = -1;

	w->g_module = opmfu_malloc((ng + 1) * sizeof(*w->g_module));
	w->g_disamb = opmfu_malloc((ng + 1) * sizeof(*w->g_disamb));
	seqs = opmfu_malloc((ng + 1) * sizeof(*seqs));
	if (!w->g_module || !w->g_disamb || !seqs)
		goto out;
	for (i = 0; i < ng; i++) {
		size_t len;
		w->g_module[i] = sid_str(t, w->g_key[i].mname, &len);
		w->g_disamb[i] = (uint32_t)i;
	}
	cmp_w = w;
	qsort(w->g_disamb, ng, sizeof(*w->g_disamb), cmp_disamb);

	/* a run: groups of one (parent, module) adjacent in that order */
	for (i = 0; i < ng; i = j) {
		const struct group_key *k0 = &w->g_key[w->g_disamb[i]];
		size_t n_seq = 0, u = 0, x;
		for (j = i + 1; j < ng; j++) {
			const struct group_key *k = &w->g_key[w->g_disamb[j]];
			if (k->pid != k0->pid || k->mname != k0->mname)
				break;
		}
		for (x = i; x < j; x++)
			seqs[n_seq++] = w->g_key[w->g_disamb[x]].seq;
		qsort(seqs, n_seq, sizeof(*seqs), cmp_u32);
		for (x = 0; x < n_seq; x++)
			if (!u || seqs[u - 1] != seqs[x])
				seqs[u++] = seqs[x];
		if (u < 2)
			continue;
		for (x = i; x < j; x++) {
			uint32_t g = w->g_disamb[x], id;
			const uint32_t *hit = bsearch(&w->g_key[g].seq, seqs, u, sizeof(*seqs), cmp_u32);
			size_t len;
			const char *name = sid_str(t, w->g_key[g].mname, &len);
			sbuf_reset(&w->sb);
			sbuf_add(&w->sb, name, len);
			sbuf_addf(&w->sb, "_%zu", (size_t)(hit - seqs));
			if (w->sb.oom || (id = strset_add(&w->strs, w->sb.buf, w->sb.len)) == NONE)
				goto out;
			w->g_module[g] = w->strs.v[id].s;
		}
	}
	rc = 0;
out:
	opmfu_free(seqs);
	return rc;
}

/* ---- 8. results ---- */

struct total_probe {
	const struct group_key *keys; /* of the totals */
	uint32_t pid, mname;
};

static int total_eq(const void *probe, uint32_t id)
{
	const struct total_probe *p = probe;
	return p->keys[id].pid == p->pid && p->keys[id].mname == p->mname;
}

struct total_sort {
	double ns;
	uint32_t id;
};

static int cmp_total(const void *pa, const void *pb)
{
	const struct total_sort *a = pa, *b = pb;
	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

static int fill_results(struct mm *w, struct opmfu_module_mfu *res)
{
	const struct opmfu_trace *t = w->t;
	size_t ng = w->n_groups, i, n_tot = 0;
	struct group_key *tkey = NULL;
	double *tns = NULL, *tmxn = NULL, *tmn = NULL;
	struct total_sort *ts = NULL;
	struct idtab tab = { NULL, 0, 0 };
	int rc = -1;

	w->g_out = opmfu_malloc((ng + 1) * sizeof(*w->g_out));
	res->rows = opmfu_malloc((ng + 1) * sizeof(*res->rows));
	tkey = opmfu_malloc((ng + 1) * sizeof(*tkey));
	tns = opmfu_malloc((ng + 1) * sizeof(*tns));
	tmxn = opmfu_malloc((ng + 1) * sizeof(*tmxn));
	tmn = opmfu_malloc((ng + 1) * sizeof(*tmn));
	if (!w->g_out || !res->rows || !tkey || !tns || !tmxn || !tmn)
		goto out;
	res->cap_rows = ng + 1;
	for (i = 0; i < ng; i++)
		w->g_out[i] = (uint32_t)i;
	cmp_w = w;
	qsort(w->g_out, ng, sizeof(*w->g_out), cmp_output);

	for (i = 0; i < ng; i++) {
		uint32_t g = w->g_out[i], id;
		const struct group_key *k = &w->g_key[g];
		struct opmfu_module_row *r = &res->rows[res->n_rows++];
		struct total_probe p = { tkey, k->pid, k->mname };
		size_t len;

		r->parent = w->strs.v[k->pid].s;
		r->module = w->g_module[g];
		r->op_name = sid_str(t, k->oname, &len);
		r->kernel_list = w->strs.v[k->klist].s;
		r->avg_mfu = w->g_avg[g];
		r->total_ns = w->g_total[g];
		r->op_count = w->g_count[g];
		r->avg_ns = w->g_total[g] / (double)w->g_count[g];
		r->mfu_x_ns = w->g_mxn[g];
		r->mfu_ns = w->g_mn[g];

		id = idtab_get(&tab, opmfu_mix64(((uint64_t)k->pid << 32) | k->mname), total_eq, &p, (uint32_t)n_tot);
		if (id == NONE)
			goto out;
		if (id == n_tot) {
			tkey[n_tot] = *k;
			tns[n_tot] = tmxn[n_tot] = tmn[n_tot] = 0.0;
			n_tot++;
		}
		tns[id] += w->g_total[g];
		tmxn[id] += w->g_mxn[g];
		tmn[id] += w->g_mn[g];
	}

	ts = opmfu_malloc((n_tot + 1) * sizeof(*ts));
	res->totals = opmfu_malloc((n_tot + 1) * sizeof(*res->totals));
	if (!ts || !res->totals)
		goto out;
	for (i = 0; i < n_tot; i++)
		ts[i] = (struct total_sort){ tns[i], (uint32_t)i };
	qsort(ts, n_tot, sizeof(*ts), cmp_total);
	for (i = 0; i < n_tot; i++) {
		uint32_t id = ts[i].id;
		size_t len;
		res->totals[i].parent = w->strs.v[tkey[id].pid].s;
		res->totals[i].module = sid_str(t, tkey[id].mname, &len);
		res->totals[i].kernel_ns = tns[id];
		res->totals[i].mfu = tmn[id] > 0 ? tmxn[id] / tmn[id] : -1.0;
	}
	res->n_totals = n_tot;
	rc = 0;
out:
	opmfu_free(tkey);
	opmfu_free(tns);
	opmfu_free(tmxn);
	opmfu_free(tmn);
	opmfu_free(ts);
	opmfu_free(tab.slot);
	return rc;
}

static void mm_release(struct mm *w)
{
	sbuf_release(&w->sb);
	strset_release(&w->strs);
	strset_release(&w->seqs);
	arena_release(&w->tmp_ar);
	arena_release(&w->ar); /* empty once handed to the result */
	opmfu_free(w->k_link);
	opmfu_free(w->k_ent);
	opmfu_free(w->node_link);
	opmfu_free(w->node_off);
	opmfu_free(w->kord);
	opmfu_free(w->node_tab.slot);
	opmfu_free(w->mod_parent);
	opmfu_free(w->mod_depth);
	opmfu_free(w->mod_pid);
	opmfu_free(w->mod_fid);
	opmfu_free(w->mod_cnt);
	opmfu_free(w->mod_call);
	opmfu_free(w->row_node);
	opmfu_free(w->row_mod);
	opmfu_free(w->row_order);
	opmfu_free(w->row_seq);
	opmfu_free(w->row_klist);
	opmfu_free(w->row_group);
	opmfu_free(w->row_dev);
	opmfu_free(w->row_mxn);
	opmfu_free(w->row_mn);
	opmfu_free(w->g_key);
	opmfu_free(w->g_first);
	opmfu_free(w->g_total);
	opmfu_free(w->g_mxn);
	opmfu_free(w->g_mn);
	opmfu_free(w->g_count);
	opmfu_free(w->g_off);
	opmfu_free(w->grow);
	opmfu_free((void *)w->g_module);
	opmfu_free((void *)w->g_avg);
	opmfu_free(w->group_tab.slot);
	opmfu_free(w->g_disamb);
	opmfu_free(w->g_out);
}

enum opmfu_status opmfu_module_mfu_run(const struct opmfu_trace *t, const struct opmfu_op_mfu *op,
				       struct opmfu_module_mfu *res, struct opmfu_err *err)
{
	struct mm w;
	size_t too_deep = 0;

	opmfu_module_mfu_init(res);
	if (t->mods.n == 0 || t->n_links == 0)
		return OPMFU_OK;
	memset(&w, 0, sizeof(w));
	w.t = t;
	w.op = op;
	sbuf_init(&w.sb);
	w.strs.ar = &w.ar;
	w.seqs.ar = &w.tmp_ar;
	if ((w.empty_id = strset_add(&w.strs, "", 0)) == NONE || build_kernel_rows(&w) || build_nodes(&w) ||
	    build_rows(&w, &too_deep))
		goto nomem;
	if (w.n_rows > 0 && (number_calls(&w) || kernel_lists(&w) || build_groups(&w) || average_mfu(&w) ||
			     disambiguate(&w) || fill_results(&w, res)))
		goto nomem;
	res->ops_too_deep = too_deep;
	res->pool = w.ar.blk;
	res->n_pool = w.ar.n;
	res->cap_pool = w.ar.cap;
	memset(&w.ar, 0, sizeof(w.ar));
	mm_release(&w);
	return OPMFU_OK;
nomem:
	mm_release(&w);
	opmfu_module_mfu_release(res);
	return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory building the module tree (%zu Module ranges, %zu kernel rows)",
			     t->mods.n, t->n_links);
}
