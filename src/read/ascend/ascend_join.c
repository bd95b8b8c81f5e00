/*
 * ascend_join.c - the kernel <-> framework-op join of SPEC 1.2 over arrays:
 * task rows find their info row by globalTaskId (sorted order, searched with
 * a hint because TASK and COMPUTE_TASK_INFO both count globalTaskId up),
 * CONNECTION_IDS and PYTORCH_API rows are kept only when a task can reach
 * them, and are grouped by a counting sort on their key's dense index.
 */
#include "read/ascend/ascend_join.h"

#include <stdint.h>
#include <string.h>

#include "base/bucket.h"
#include "base/fold.h"
#include "base/idtab.h"
#include "base/lbound.h"
#include "base/mem.h"
#include "base/sat.h"
#include "base/sort.h"
#include "trace/coll.h"

void opmfu_ajoin_init(struct opmfu_ajoin *j)
{
	memset(j, 0, sizeof(*j));
}

static void keyidx_release(struct opmfu_keyidx *m)
{
	opmfu_free(m->direct);
	opmfu_free(m->keys);
	opmfu_idtab_release(&m->tab);
	memset(m, 0, sizeof(*m));
}

void opmfu_ajoin_release(struct opmfu_ajoin *j)
{
	int i;
	opmfu_free(j->info_gid);
	opmfu_free(j->info);
	opmfu_free(j->info_sorted);
	opmfu_free(j->sched_gid);
	opmfu_free(j->sched_name);
	opmfu_free(j->sched_sorted);
	opmfu_free(j->stask);
	opmfu_free(j->ct_gid);
	opmfu_free(j->ct_info);
	opmfu_free(j->ct_sorted);
	opmfu_free(j->ctask);
	opmfu_free(j->cop);
	opmfu_free(j->copies);
	keyidx_release(&j->lconns);
	opmfu_free(j->launch);
	for (i = 0; i < 3; i++)
		opmfu_free(j->src[i].v);
	keyidx_release(&j->conns);
	opmfu_free(j->ci);
	opmfu_free(j->ci_ids);
	opmfu_free(j->ci_off);
	keyidx_release(&j->ids);
	opmfu_free(j->api);
	opmfu_free(j->api_off);
	opmfu_ranges_release(&j->no_conn);
	opmfu_ajoin_init(j);
}

/* ---- key index ---- */

static void keyidx_note(struct opmfu_keyidx *m, int64_t key)
{
	if (!m->n_noted || key < m->min)
		m->min = key;
	if (!m->n_noted || key > m->max)
		m->max = key;
	m->n_noted++;
}

static int keyidx_alloc(struct opmfu_keyidx *m)
{
	/* unsigned difference: exact even when min < 0 < max */
	uint64_t range = (uint64_t)m->max - (uint64_t)m->min;

	if (!m->n_noted)
		return 0;
	if (m->n_noted >= OPMFU_AJ_NONE)
		return -1;
	if (range < (uint64_t)m->n_noted * 4 + 4096) {
		m->direct = opmfu_malloc((size_t)(range + 1) * sizeof(*m->direct));
		if (!m->direct)
			return -1;
		memset(m->direct, 0xff, (size_t)(range + 1) * sizeof(*m->direct));
		return 0;
	}
	/* room for every noted key, so that put never fails */
	m->keys = opmfu_malloc(m->n_noted * sizeof(*m->keys));
	if (!m->keys || opmfu_idtab_reserve(&m->tab, m->n_noted))
		return -1;
	return 0;
}

struct key_probe {
	const int64_t *keys;
	int64_t key;
};

static int key_eq(const void *probe, uint32_t id)
{
	const struct key_probe *p = probe;
	return p->keys[id] == p->key;
}

/* Index of key, given the next free one if new. Only for noted keys. */
static uint32_t keyidx_put(struct opmfu_keyidx *m, int64_t key)
{
	struct key_probe p = { m->keys, key };
	uint32_t *v, id;
	if (!m->direct) {
		id = opmfu_idtab_get(&m->tab, opmfu_mix64((uint64_t)key), key_eq, &p, (uint32_t)m->n);
		if (id == m->n)
			m->keys[m->n++] = key;
		return id;
	}
	v = &m->direct[(uint64_t)key - (uint64_t)m->min];
	if (*v == OPMFU_AJ_NONE)
		*v = (uint32_t)m->n++;
	return *v;
}

static uint32_t keyidx_get(const struct opmfu_keyidx *m, int64_t key)
{
	struct key_probe p = { m->keys, key };
	if (m->direct)
		return key < m->min || key > m->max ? OPMFU_AJ_NONE
						    : m->direct[(uint64_t)key - (uint64_t)m->min];
	return opmfu_idtab_find(&m->tab, opmfu_mix64((uint64_t)key), key_eq, &p);
}

void opmfu_ajoin_expect(struct opmfu_ajoin *j, enum opmfu_aj_table tab, size_t n)
{
	size_t cap = j->cap_info;
	switch (tab) {
	case OPMFU_AJ_INFO:
		if (!OPMFU_RESERVE(j->info_gid, cap, n))
			(void)OPMFU_RESERVE(j->info, j->cap_info, n);
		break;
	case OPMFU_AJ_TASK:
		(void)OPMFU_RESERVE(j->src[OPMFU_SRC_COMPUTE].v, j->src[OPMFU_SRC_COMPUTE].cap, n);
		break;
	case OPMFU_AJ_CONNECTION:
		(void)OPMFU_RESERVE(j->ci, j->cap_ci, n);
		break;
	}
}

/* ---- info rows ---- */

int opmfu_ajoin_add_info(struct opmfu_ajoin *j, int64_t gid, const struct opmfu_aj_info *info)
{
	size_t cap = j->cap_info;
	if (j->n_info >= OPMFU_AJ_NONE - 1 || OPMFU_GROW(j->info_gid, cap, j->n_info + 1))
		return -1;
	if (OPMFU_GROW(j->info, j->cap_info, j->n_info + 1))
		return -1;
	j->info_gid[j->n_info] = gid;
	j->info[j->n_info++] = *info;
	return 0;
}

int opmfu_ajoin_add_sched(struct opmfu_ajoin *j, int64_t gid, uint32_t name)
{
	size_t cap = j->cap_sched;
	if (j->n_sched >= OPMFU_AJ_NONE - 1 || OPMFU_GROW(j->sched_gid, cap, j->n_sched + 1))
		return -1;
	if (OPMFU_GROW(j->sched_name, j->cap_sched, j->n_sched + 1))
		return -1;
	j->sched_gid[j->n_sched] = gid;
	j->sched_name[j->n_sched++] = name;
	return 0;
}

int opmfu_ajoin_add_ctinfo(struct opmfu_ajoin *j, int64_t gid, int op_ok, int64_t op_id, uint32_t name)
{
	size_t cap = j->cap_ct_info;
	if (j->n_ct_info >= OPMFU_AJ_NONE - 1 || OPMFU_GROW(j->ct_gid, cap, j->n_ct_info + 1))
		return -1;
	if (OPMFU_GROW(j->ct_info, j->cap_ct_info, j->n_ct_info + 1))
		return -1;
	j->ct_gid[j->n_ct_info] = gid;
	j->ct_info[j->n_ct_info++] = (struct opmfu_aj_ctinfo){ op_ok ? op_id : 0, name, (uint8_t)(op_ok != 0), 0, -1, -1,
							       -1, -1, -1, -1 };
	return 0;
}

void opmfu_ajoin_ctinfo_kind(struct opmfu_ajoin *j, uint32_t task_type, int64_t plane, int32_t transport,
			     int32_t link, int64_t size, int64_t max_rank, int32_t rdma)
{
	struct opmfu_aj_ctinfo *c;
	if (!j->n_ct_info)
		return;
	c = &j->ct_info[j->n_ct_info - 1];
	c->task_type = task_type;
	c->plane = plane;
	c->transport = transport;
	c->link = link;
	c->size = size;
	c->max_rank = max_rank;
	c->rdma = rdma;
}

static int less_gid(const void *ctx, uint32_t a, uint32_t b)
{
	const int64_t *gid = ctx;
	return gid[a] != gid[b] ? gid[a] < gid[b] : a < b;
}

/* Row order by (gid, row); NULL when the rows are already in that order. */
static int sort_by_gid(const int64_t *gid, size_t n, uint32_t **out)
{
	uint32_t *v;
	size_t i;
	*out = NULL;
	for (i = 1; i < n && gid[i - 1] <= gid[i]; i++)
		;
	if (i >= n)
		return 0;
	v = opmfu_malloc(n * sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < n; i++)
		v[i] = (uint32_t)i;
	if (opmfu_sort_idx(v, n, less_gid, gid)) {
		opmfu_free(v);
		return -1;
	}
	*out = v;
	return 0;
}

int opmfu_ajoin_index_info(struct opmfu_ajoin *j)
{
	return sort_by_gid(j->info_gid, j->n_info, &j->info_sorted) ||
	       sort_by_gid(j->sched_gid, j->n_sched, &j->sched_sorted) ||
	       sort_by_gid(j->ct_gid, j->n_ct_info, &j->ct_sorted);
}

#define AT(sorted, i) ((sorted) ? (sorted)[i] : (uint32_t)(i))

struct gid_order {
	const int64_t *gid;
	const uint32_t *sorted;
};

static int gid_before(const void *ctx, size_t i, const void *key)
{
	const struct gid_order *o = ctx;
	return o->gid[AT(o->sorted, i)] < *(const int64_t *)key;
}

/*
 * First position (in gid order) of gid, or n when absent. *hint is where the
 * last search ended: tasks come in globalTaskId order, so it is usually the
 * answer and the search costs two comparisons.
 */

static size_t find_gid(const int64_t *gid, const uint32_t *sorted, size_t n, int64_t key, size_t *hint)
{
	struct gid_order o = { gid, sorted };
	size_t lo = *hint;
	if (!(lo <= n && (lo == 0 || gid[AT(sorted, lo - 1)] < key) && (lo == n || gid[AT(sorted, lo)] >= key)))
		lo = opmfu_lbound(0, n, gid_before, &o, &key);
	*hint = lo;
	return lo < n && gid[AT(sorted, lo)] == key ? lo : n;
}

static int push_task(struct opmfu_aj_src *s, const struct opmfu_aj_task *k)
{
	if (OPMFU_GROW(s->v, s->cap, s->n + 1))
		return -1;
	s->v[s->n++] = *k;
	return 0;
}

int opmfu_ajoin_add_task(struct opmfu_ajoin *j, int64_t gid, int64_t start, int64_t end, int bad,
			 int conn_ok, int64_t conn, uint32_t copy)
{
	struct opmfu_aj_task k = { start, end, conn, 0, (uint8_t)(bad != 0) };
	size_t p = find_gid(j->info_gid, j->info_sorted, j->n_info, gid, &j->hint_info);
	int compute = p < j->n_info, other = 0;

	if (j->n_ct_info && (p = find_gid(j->ct_gid, j->ct_sorted, j->n_ct_info, gid, &j->hint_ct)) < j->n_ct_info) {
		other = 1;
		if (!k.bad) {
			if (j->n_ctask >= OPMFU_AJ_NONE - 1 || OPMFU_GROW(j->ctask, j->cap_ctask, j->n_ctask + 1))
				return -1;
			j->ctask[j->n_ctask++] = (struct opmfu_aj_ctask){ start, end, conn, AT(j->ct_sorted, p),
									  (uint8_t)(conn_ok != 0) };
		}
	}
	if (j->n_sched && find_gid(j->sched_gid, j->sched_sorted, j->n_sched, gid, &j->hint_sched) < j->n_sched) {
		other = 1;
		if (conn_ok) {
			if (OPMFU_GROW(j->stask, j->cap_stask, j->n_stask + 1))
				return -1;
			j->stask[j->n_stask++] = (struct opmfu_aj_stask){ gid, k };
			keyidx_note(&j->conns, conn);
		}
	}
	/* a copy type's task is a copy only when no table claims it: a compute
	 * or communication task of that type is counted as such */
	if (copy && !compute && !other && !k.bad) {
		if (OPMFU_GROW(j->copies, j->cap_copies, j->n_copies + 1))
			return -1;
		j->copies[j->n_copies++] = (struct opmfu_aj_copy){ start, end, conn, copy, (uint8_t)(conn_ok != 0) };
		other = 1;
	}
	/* every kept task's connection may have a launch time */
	if (conn_ok && (compute || other))
		keyidx_note(&j->lconns, conn);
	if (!conn_ok) {
		/* a NULL connection matches nothing; its kernels still ran */
		for (p = find_gid(j->info_gid, j->info_sorted, j->n_info, gid, &j->hint_info);
		     !k.bad && p < j->n_info && j->info_gid[AT(j->info_sorted, p)] == gid; p++) {
			struct opmfu_range r = { start, end, OPMFU_NO_LAUNCH, j->info[AT(j->info_sorted, p)].name, 0 };
			if (opmfu_ranges_add(&j->no_conn, &r))
				return -1;
			j->hint_info = p + 1;
		}
		return 0;
	}
	for (p = find_gid(j->info_gid, j->info_sorted, j->n_info, gid, &j->hint_info);
	     p < j->n_info && j->info_gid[AT(j->info_sorted, p)] == gid; p++) {
		k.ref = AT(j->info_sorted, p);
		if (push_task(&j->src[OPMFU_SRC_COMPUTE], &k))
			return -1;
		keyidx_note(&j->conns, conn);
		j->hint_info = p + 1;
	}
	return 0;
}

int opmfu_ajoin_add_comm(struct opmfu_ajoin *j, uint32_t name, int64_t start, int64_t end, int bad,
			 int conn_ok, int64_t conn)
{
	struct opmfu_aj_task k = { start, end, conn, name, (uint8_t)(bad != 0) };
	if (!conn_ok)
		return 0;
	keyidx_note(&j->conns, conn);
	keyidx_note(&j->lconns, conn); /* every link's connection has a launch slot */
	return push_task(&j->src[OPMFU_SRC_COMM_OP], &k);
}

int opmfu_ajoin_add_collective(struct opmfu_ajoin *j, const struct opmfu_aj_cop *c)
{
	if (OPMFU_GROW(j->cop, j->cap_cop, j->n_cop + 1))
		return -1;
	j->cop[j->n_cop++] = *c;
	if (c->conn_ok)
		keyidx_note(&j->lconns, c->conn);
	return 0;
}

static int less_stask(const void *ctx, uint32_t a, uint32_t b)
{
	const struct opmfu_aj_stask *s = ctx;
	return s[a].gid != s[b].gid ? s[a].gid < s[b].gid : a < b;
}

struct stask_order {
	const struct opmfu_aj_stask *stask;
	const uint32_t *ord;
};

static int stask_before(const void *ctx, size_t i, const void *key)
{
	const struct stask_order *o = ctx;
	return o->stask[o->ord[i]].gid < *(const int64_t *)key;
}

/* Schedule kernels in link order: schedule rows in table order, each with its tasks in TASK order. */
static int expand_sched(struct opmfu_ajoin *j)
{
	struct stask_order o;
	uint32_t *ord = NULL;
	size_t i, lo;
	int rc = -1;

	if (!j->n_stask)
		return 0;
	ord = opmfu_malloc(j->n_stask * sizeof(*ord));
	if (!ord)
		goto out;
	for (i = 0; i < j->n_stask; i++)
		ord[i] = (uint32_t)i;
	if (opmfu_sort_idx(ord, j->n_stask, less_stask, j->stask))
		goto out;
	o.stask = j->stask;
	o.ord = ord;
	for (i = 0; i < j->n_sched; i++) {
		int64_t gid = j->sched_gid[i];
		/* from the first task with this gid */
		lo = opmfu_lbound(0, j->n_stask, stask_before, &o, &gid);
		for (; lo < j->n_stask && j->stask[ord[lo]].gid == gid; lo++) {
			struct opmfu_aj_task k = j->stask[ord[lo]].k;
			k.ref = j->sched_name[i];
			if (push_task(&j->src[OPMFU_SRC_COMM_SCHED], &k))
				goto out;
		}
	}
	rc = 0;
out:
	opmfu_free(ord);
	opmfu_free(j->stask);
	j->stask = NULL;
	j->n_stask = j->cap_stask = 0;
	return rc;
}

struct info_probe {
	const struct opmfu_aj_info *v, *key;
};

static int info_eq(const void *probe, uint32_t id)
{
	const struct info_probe *p = probe;
	return !memcmp(&p->v[id], p->key, sizeof(*p->key));
}

static uint64_t info_hash(const struct opmfu_aj_info *in)
{
	return opmfu_mix64(((uint64_t)in->name << 32 | in->in_shapes) ^
			   opmfu_mix64(((uint64_t)in->dtype << 32 | in->out_shapes) ^
				       opmfu_mix64(((uint64_t)in->type << 32 | in->in_formats) ^
						   opmfu_mix64((uint64_t)in->out_formats << 32 | in->out_dtypes))));
}

/* Kernels of one name, shapes, dtypes and formats share one info row: each
 * distinct row is kept once (compacted in place, in order of first use) and
 * the compute tasks point at it, so that the rows (32 bytes per kernel) do
 * not sit under the links being emitted. */
static int dedupe_info(struct opmfu_ajoin *j)
{
	struct opmfu_aj_src *src = &j->src[OPMFU_SRC_COMPUTE];
	struct opmfu_idtab tab;
	uint32_t *map = opmfu_malloc((j->n_info + 1) * sizeof(*map));
	size_t i, n = 0;
	int rc = -1;

	opmfu_idtab_init(&tab);
	if (!map)
		return -1;
	for (i = 0; i < j->n_info; i++) {
		struct info_probe p = { j->info, &j->info[i] };
		uint32_t id = opmfu_idtab_get(&tab, info_hash(&j->info[i]), info_eq, &p, (uint32_t)n);
		if (id == OPMFU_IDTAB_NONE)
			goto out;
		/* the new row is in place before the next lookup compares with it (n <= i) */
		if (id == n)
			j->info[n++] = j->info[i];
		map[i] = id;
	}
	for (i = 0; i < src->n; i++)
		src->v[i].ref = map[src->v[i].ref];
	j->n_info = n;
	if (n) {
		struct opmfu_aj_info *shrunk = opmfu_realloc(j->info, n * sizeof(*shrunk));
		if (shrunk) {
			j->info = shrunk;
			j->cap_info = n;
		}
	}
	rc = 0;
out:
	opmfu_idtab_release(&tab);
	opmfu_free(map);
	return rc;
}

int opmfu_ajoin_index_conns(struct opmfu_ajoin *j)
{
	int s;
	size_t i;

	/* the info rows are no longer needed for lookups */
	opmfu_free(j->info_gid);
	opmfu_free(j->info_sorted);
	j->info_gid = NULL;
	j->info_sorted = NULL;
	if (dedupe_info(j) || expand_sched(j) || keyidx_alloc(&j->conns))
		return -1;
	for (s = 0; s < 3; s++)
		for (i = 0; i < j->src[s].n; i++)
			keyidx_put(&j->conns, j->src[s].v[i].conn);
	/* the connections that may have a launch time: every one noted above */
	if (keyidx_alloc(&j->lconns) ||
	    !(j->launch = opmfu_malloc((j->lconns.n_noted ? j->lconns.n_noted : 1) * sizeof(*j->launch))))
		return -1;
	for (i = 0; i < j->lconns.n_noted; i++)
		j->launch[i] = OPMFU_NO_LAUNCH;
	for (s = 0; s < 3; s++)
		for (i = 0; i < j->src[s].n; i++)
			keyidx_put(&j->lconns, j->src[s].v[i].conn);
	for (i = 0; i < j->n_ctask; i++)
		if (j->ctask[i].conn_ok)
			keyidx_put(&j->lconns, j->ctask[i].conn);
	for (i = 0; i < j->n_copies; i++)
		if (j->copies[i].conn_ok)
			keyidx_put(&j->lconns, j->copies[i].conn);
	for (i = 0; i < j->n_cop; i++)
		if (j->cop[i].conn_ok)
			keyidx_put(&j->lconns, j->cop[i].conn);
	return 0;
}

int opmfu_ajoin_add_launch(struct opmfu_ajoin *j, int64_t conn, int64_t start)
{
	uint32_t slot = j->launch ? keyidx_get(&j->lconns, conn) : OPMFU_AJ_NONE;
	if (slot != OPMFU_AJ_NONE && j->launch[slot] == OPMFU_NO_LAUNCH) {
		j->launch[slot] = start;
		j->n_launched++;
	}
	return 0;
}

/* The launch time of the work under a connection (OPMFU_NO_LAUNCH: none). */
static int64_t launch_of(const struct opmfu_ajoin *j, int conn_ok, int64_t conn)
{
	uint32_t slot;
	if (!j->n_launched || !conn_ok)
		return OPMFU_NO_LAUNCH;
	slot = keyidx_get(&j->lconns, conn);
	return slot == OPMFU_AJ_NONE ? OPMFU_NO_LAUNCH : j->launch[slot];
}

/* ---- CONNECTION_IDS ---- */

int opmfu_ajoin_add_connection(struct opmfu_ajoin *j, int64_t id, int64_t conn)
{
	if (keyidx_get(&j->conns, conn) == OPMFU_AJ_NONE)
		return 0;
	if (j->n_ci >= OPMFU_AJ_NONE - 1 || OPMFU_GROW(j->ci, j->cap_ci, j->n_ci + 1))
		return -1;
	j->ci[j->n_ci++] = (struct opmfu_aj_ci){ id, conn };
	keyidx_note(&j->ids, id);
	return 0;
}

static int less_ci(const void *ctx, uint32_t a, uint32_t b)
{
	const struct opmfu_aj_ci *c = ctx;
	return c[a].id != c[b].id ? c[a].id < c[b].id : a < b;
}

/* Sorts each bucket (most hold one or a few rows: no memory needed). */
static int sort_buckets(uint32_t *ord, const uint32_t *off, size_t n_slots, opmfu_less_fn less, const void *ctx)
{
	size_t i;
	for (i = 0; i < n_slots; i++)
		if (opmfu_sort_idx(ord + off[i], off[i + 1] - off[i], less, ctx))
			return -1;
	return 0;
}

int opmfu_ajoin_index_connections(struct opmfu_ajoin *j)
{
	uint32_t *slot = NULL, *ord = NULL;
	size_t i;
	int rc = -1;

	if (keyidx_alloc(&j->ids))
		return -1;
	slot = opmfu_malloc((j->n_ci ? j->n_ci : 1) * sizeof(*slot));
	if (!slot)
		goto out;
	for (i = 0; i < j->n_ci; i++)
		slot[i] = keyidx_get(&j->conns, j->ci[i].conn);
	/* rows of one connection in the SQL join's order: by id, then table order */
	if (opmfu_bucket(slot, j->n_ci, j->conns.n, &j->ci_off, &ord) ||
	    sort_buckets(ord, j->ci_off, j->conns.n, less_ci, j->ci))
		goto out;
	/* the slot array becomes the id slots, in bucket order */
	for (i = 0; i < j->n_ci; i++)
		slot[i] = keyidx_put(&j->ids, j->ci[ord[i]].id);
	j->ci_ids = slot;
	slot = NULL;
	rc = 0;
out:
	opmfu_free(slot);
	opmfu_free(ord);
	opmfu_free(j->ci);
	j->ci = NULL;
	j->n_ci = j->cap_ci = 0;
	return rc;
}

/* ---- PYTORCH_API ---- */

int opmfu_ajoin_want_api(const struct opmfu_ajoin *j, int64_t id)
{
	return keyidx_get(&j->ids, id) != OPMFU_AJ_NONE;
}

static int less_api(const void *ctx, uint32_t a, uint32_t b)
{
	const struct opmfu_aj_api *p = ctx;
	if (p[a].start != p[b].start)
		return p[a].start < p[b].start;
	if (p[a].end != p[b].end)
		return p[a].end < p[b].end;
	return a < b;
}

int opmfu_ajoin_set_api(struct opmfu_ajoin *j, struct opmfu_aj_api *rows, size_t n)
{
	uint32_t *slot = NULL, *ord = NULL;
	size_t i, k = 0;
	int rc = -1;

	/* keep the rows a connection reaches, compacting in place, and give the
	 * rest back before the grouped copy is made */
	for (i = 0; i < n; i++)
		if (keyidx_get(&j->ids, rows[i].id) != OPMFU_AJ_NONE)
			rows[k++] = rows[i];
	n = k;
	if (n) {
		struct opmfu_aj_api *shrunk = opmfu_realloc(rows, n * sizeof(*rows));
		if (shrunk)
			rows = shrunk;
	}
	slot = opmfu_malloc((n ? n : 1) * sizeof(*slot));
	j->api = opmfu_malloc((n ? n : 1) * sizeof(*j->api));
	if (!slot || !j->api)
		goto out;
	for (i = 0; i < n; i++)
		slot[i] = keyidx_get(&j->ids, rows[i].id);
	/* rows of one id in the SQL join's order: by (startNs, endNs), then table order */
	if (opmfu_bucket(slot, n, j->ids.n, &j->api_off, &ord) || sort_buckets(ord, j->api_off, j->ids.n, less_api, rows))
		goto out;
	for (i = 0; i < n; i++)
		j->api[i] = rows[ord[i]];
	j->n_api = n;
	/* the links reach the rows by id slot from here on: the ids' index (4 bytes per id in their
	 * range when direct) would only sit under the links being emitted */
	keyidx_release(&j->ids);
	rc = 0;
out:
	opmfu_free(rows);
	opmfu_free(slot);
	opmfu_free(ord);
	return rc;
}

/* ---- links ---- */

/* The CONNECTION_IDS rows (ci_ids[*c .. *ce)) of kernel k's connection. */
static void ci_range(const struct opmfu_ajoin *j, const struct opmfu_aj_task *k, uint32_t *c, uint32_t *ce)
{
	uint32_t slot = keyidx_get(&j->conns, k->conn);
	*c = *ce = 0;
	if (slot != OPMFU_AJ_NONE && j->ci_off && j->api_off) {
		*c = j->ci_off[slot];
		*ce = j->ci_off[slot + 1];
	}
}

static int less_op_id(const void *ctx, uint32_t a, uint32_t b)
{
	const struct opmfu_aj_cop *c = ctx;
	return c[a].op_id != c[b].op_id ? c[a].op_id < c[b].op_id : a < b;
}

struct op_order {
	const struct opmfu_aj_cop *cop;
	const uint32_t *ord;
};

static int op_before(const void *ctx, size_t i, const void *key)
{
	const struct op_order *o = ctx;
	return o->cop[o->ord[i]].op_id < *(const int64_t *)key;
}

/* ---- collective calls (SPEC 19) ---- */

/* HCCL's dataType enum (ENUM_HCCL_DATA_TYPE, the same in every export seen): name and bytes */
static const struct {
	const char *name;
	int size;
} hccl_dtypes[13] = { { "INT8", 1 },   { "INT16", 2 },	{ "INT32", 4 },	 { "FP16", 2 },	 { "FP32", 4 },
		      { "INT64", 8 },  { "UINT64", 8 }, { "UINT8", 1 },	 { "UINT16", 2 }, { "UINT32", 4 },
		      { "FP64", 8 },   { "BFP16", 2 },	{ "INT128", 16 } };

int opmfu_ajoin_words(struct opmfu_strtab *strs, uint32_t *words)
{
	static const char *const w[OPMFU_AJ_W_DTYPE0] = { "Notify_Wait", "Memcpy", "Reduce_Inline", "HCCS", "PCIE",
							  "SIO",	 "RDMA" };
	int k;
	for (k = 0; k < OPMFU_AJ_W_N; k++) {
		const char *s = k < OPMFU_AJ_W_DTYPE0 ? w[k] : hccl_dtypes[k - OPMFU_AJ_W_DTYPE0].name;
		if (!(words[k] = opmfu_strtab_intern(strs, s, strlen(s))))
			return -1;
	}
	return 0;
}

/* Per collective: its planes, and whether plane 0 carries RDMA (msprof's main plane rule). */
struct cstat {
	uint64_t planes; /* bit p: plane p (p < 64) has a task */
	uint8_t rdma0;
	int64_t main_plane, max_rank;
	int64_t link_bytes[4], link_ns[4]; /* HCCS, PCIE, SIO, RDMA (OPMFU_AJ_W_HCCS + slot) */
};

/* A transit task: a Memcpy or Reduce_Inline over SDMA on a link off the chip (docs/collectives.md). */
static int transit(const struct opmfu_ajoin *j, const struct opmfu_aj_ctinfo *in)
{
	return (in->task_type == j->words[OPMFU_AJ_W_MEMCPY] || in->task_type == j->words[OPMFU_AJ_W_REDUCE_INLINE]) &&
	       in->transport == 0 && in->link > 0;
}

static int link_slot(int32_t link)
{
	return link == 1 || link == 5 ? 0 : link == 2 ? 1 : link == 4 ? 2 : -1; /* HCCS(_SW), PCIE, SIO */
}

/* ENUM_HCCL_RDMA_TYPE's RDMA_SEND_PAYLOAD, and the link slot of RDMA */
#define RDMA_SEND_PAYLOAD 1
#define RDMA_SLOT 3

struct plane_order {
	const struct opmfu_ajoin *j;
	const uint32_t *tc;
};

/* tasks by (collective, plane, start, table order) */
static int plane_before(const void *ctx, uint32_t a, uint32_t b)
{
	const struct plane_order *o = ctx;
	const struct opmfu_aj_ctask *x = &o->j->ctask[a], *y = &o->j->ctask[b];
	int64_t px = o->j->ct_info[x->info].plane, py = o->j->ct_info[y->info].plane;
	if (o->tc[a] != o->tc[b])
		return o->tc[a] < o->tc[b];
	if (px != py)
		return px < py;
	return x->start != y->start ? x->start < y->start : a < b;
}

/* Whether a collective is point to point (msprof: its name holds "send" or "receive"). */
static int p2p(const struct opmfu_strtab *strs, uint32_t name)
{
	char buf[256];
	size_t n = opmfu_fold_name(opmfu_strtab_str(strs, name), opmfu_strtab_len(strs, name), buf, sizeof(buf));
	return n && (strstr(buf, "send") || strstr(buf, "receive"));
}

/*
 * msprof's RDMA transfers. On each plane of a collective, in start order, a
 * run of n RDMA_SEND_PAYLOAD tasks and the jump - 1 tasks after it (the
 * notify that the data is there and the Notify_Wait for the peer's answer;
 * jump is 3 for send and receive, else 5 with the barrier's two) are one
 * transfer: from the first payload's start to the end of the run's task
 * n + jump - 2, of the payloads' bytes. The main plane's count as transfer
 * time, every plane's as RDMA link bytes and time. The run's tasks are
 * marked in skip: nothing else counts them (their Notify_Wait waits for the
 * transfer, not for a rank). A run without its closing tasks counts nothing.
 * Returns -1 when out of memory.
 */
static int rdma_runs(const struct opmfu_ajoin *j, const uint32_t *tc, const uint32_t *coll, struct cstat *cs,
		     const struct opmfu_strtab *strs, struct opmfu_trace *t, uint8_t *skip)
{
	struct plane_order o = { j, tc };
	uint32_t *ord;
	size_t i, n = 0, a, b;

	if (!(ord = opmfu_malloc(j->n_ctask * sizeof(*ord))))
		return -1;
	for (i = 0; i < j->n_ctask; i++)
		if (tc[i] != UINT32_MAX && coll[tc[i]] != UINT32_MAX)
			ord[n++] = (uint32_t)i;
	if (opmfu_sort_idx(ord, n, plane_before, &o)) {
		opmfu_free(ord);
		return -1;
	}
	for (a = 0; a < n; a = b) {
		uint32_t c = tc[ord[a]];
		int64_t plane = j->ct_info[j->ctask[ord[a]].info].plane;
		size_t jump = p2p(strs, j->cop[c].name) ? 3 : 5, k;
		for (b = a; b < n && tc[ord[b]] == c && j->ct_info[j->ctask[ord[b]].info].plane == plane; b++)
			;
		for (k = a; k < b;) {
			size_t m = 0, last, q;
			int64_t bytes = 0, span;
			while (k + m < b && j->ct_info[j->ctask[ord[k + m]].info].rdma == RDMA_SEND_PAYLOAD)
				m++;
			if (!m) {
				k++;
				continue;
			}
			last = k + m + jump - 2;
			if (last >= b) {
				k += m;
				continue;
			}
			for (q = k; q < k + m; q++) {
				int64_t sz = j->ct_info[j->ctask[ord[q]].info].size;
				bytes = opmfu_sat_add(bytes, sz > 0 ? sz : 0);
			}
			span = j->ctask[ord[last]].end - j->ctask[ord[k]].start;
			span = span > 0 ? span : 0;
			if (plane == cs[c].main_plane) {
				struct opmfu_coll *x = &t->colls.v[coll[c]];
				x->transfer_ns = opmfu_sat_add(x->transfer_ns < 0 ? 0 : x->transfer_ns, span);
			}
			cs[c].link_bytes[RDMA_SLOT] = opmfu_sat_add(cs[c].link_bytes[RDMA_SLOT], bytes);
			cs[c].link_ns[RDMA_SLOT] = opmfu_sat_add(cs[c].link_ns[RDMA_SLOT], span);
			for (q = k; q <= last; q++)
				skip[ord[q]] = 1;
			k = last + 1;
		}
	}
	opmfu_free(ord);
	return 0;
}

/*
 * For each communication task, the collective (index into j->cop) its opId
 * names: the first row of that opId in table order; UINT32_MAX: none. Into
 * *out (n_ctask entries, NULL when there are no tasks). Returns 0, or -1 when
 * out of memory.
 */
static int task_cops(const struct opmfu_ajoin *j, uint32_t **out)
{
	struct op_order o = { j->cop, NULL };
	uint32_t *ord = NULL, *tc;
	size_t i, n_ord = 0;

	*out = NULL;
	if (!j->n_ctask)
		return 0;
	if (!(tc = opmfu_malloc(j->n_ctask * sizeof(*tc))) || (j->n_cop && !(ord = opmfu_malloc(j->n_cop * sizeof(*ord)))))
		goto nomem;
	for (i = 0; i < j->n_cop; i++)
		if (j->cop[i].op_ok)
			ord[n_ord++] = (uint32_t)i;
	if (opmfu_sort_idx(ord, n_ord, less_op_id, j->cop))
		goto nomem;
	o.ord = ord;
	for (i = 0; i < j->n_ctask; i++) {
		const struct opmfu_aj_ctinfo *in = &j->ct_info[j->ctask[i].info];
		size_t at = in->op_ok ? opmfu_lbound(0, n_ord, op_before, &o, &in->op_id) : n_ord;
		tc[i] = at < n_ord && j->cop[ord[at]].op_id == in->op_id ? ord[at] : UINT32_MAX;
	}
	opmfu_free(ord);
	*out = tc;
	return 0;
nomem:
	opmfu_free(ord);
	opmfu_free(tc);
	return -1;
}

/* tc: task_cops' */
static int emit_colls(const struct opmfu_ajoin *j, const uint32_t *tc, struct opmfu_trace *t)
{
	uint32_t *coll = NULL;
	struct cstat *cs = NULL;
	uint8_t *skip = NULL; /* tasks of RDMA transfers (rdma_runs); NULL: none */
	size_t i;
	int rc = -1, sized = j->words[OPMFU_AJ_W_NOTIFY_WAIT] != 0, rdma = 0;

	if (!j->n_cop)
		return 0;
	if (!(coll = opmfu_malloc(j->n_cop * sizeof(*coll))) || !(cs = opmfu_calloc(j->n_cop, sizeof(*cs))))
		goto out;
	/* one call per collective with a span, in table order */
	for (i = 0; i < j->n_cop; i++) {
		const struct opmfu_aj_cop *c = &j->cop[i];
		uint32_t name = c->name ? c->name : c->type;
		struct opmfu_coll k;
		coll[i] = UINT32_MAX;
		cs[i].main_plane = -1;
		cs[i].max_rank = -1;
		if (c->bad)
			continue;
		k = opmfu_coll_blank(c->start, c->end, name,
				     opmfu_coll_kind_of(opmfu_strtab_str(&t->strs, name), opmfu_strtab_len(&t->strs, name)));
		k.group = c->group;
		if (c->data_type >= 0 && c->data_type < 13 && sized) {
			k.dtype = j->words[OPMFU_AJ_W_DTYPE0 + c->data_type];
			if (c->count >= 0 && c->count <= INT64_MAX / 16)
				k.bytes = c->count * hccl_dtypes[c->data_type].size;
		}
		coll[i] = (uint32_t)t->colls.n;
		if (opmfu_colls_add(&t->colls, &k))
			goto out;
	}
	if (!sized) {
		rc = 0;
		goto out;
	}
	/* the planes of each, then its main plane */
	for (i = 0; i < j->n_ctask; i++) {
		const struct opmfu_aj_ctinfo *in = &j->ct_info[j->ctask[i].info];
		uint32_t c = tc[i];
		if (c == UINT32_MAX)
			continue;
		if (in->plane >= 0 && in->plane < 64)
			cs[c].planes |= 1ull << in->plane;
		if (in->plane == 0 && in->transport == 1)
			cs[c].rdma0 = 1;
		if (in->max_rank > cs[c].max_rank)
			cs[c].max_rank = in->max_rank;
		rdma |= in->rdma == RDMA_SEND_PAYLOAD;
	}
	for (i = 0; i < j->n_cop; i++) {
		uint64_t p = cs[i].planes;
		if (p && !(p & (p - 1))) /* one plane: it */
			for (cs[i].main_plane = 0; !(p & 1); p >>= 1)
				cs[i].main_plane++;
		else if (p)
			cs[i].main_plane = cs[i].rdma0 ? 0 : 1;
	}
	if (rdma && (!(skip = opmfu_calloc(j->n_ctask, 1)) || rdma_runs(j, tc, coll, cs, &t->strs, t, skip)))
		goto out;
	/* waits and transfers on the main plane (torch_npu's wait_time, transit_time); every plane's
	 * transit bytes by link; every plane's Notify_Wait a waiting range for the timeline */
	for (i = 0; i < j->n_ctask; i++) {
		const struct opmfu_aj_ctask *tk = &j->ctask[i];
		const struct opmfu_aj_ctinfo *in = &j->ct_info[tk->info];
		uint32_t c = tc[i];
		struct opmfu_coll *k;
		int64_t d = tk->end > tk->start ? tk->end - tk->start : 0;
		if (c == UINT32_MAX || coll[c] == UINT32_MAX || !in->task_type || (skip && skip[i]))
			continue;
		k = &t->colls.v[coll[c]];
		if (in->task_type == j->words[OPMFU_AJ_W_NOTIFY_WAIT]) {
			struct opmfu_range r = { tk->start, tk->end, (int64_t)coll[c], in->task_type, 0 };
			if (tk->end > tk->start && opmfu_ranges_add(&t->waits, &r))
				goto out;
			if (in->plane == cs[c].main_plane)
				k->wait_ns = (k->wait_ns < 0 ? 0 : k->wait_ns) + d;
		} else if (transit(j, in)) {
			int sl = link_slot(in->link);
			if (in->plane == cs[c].main_plane)
				k->transfer_ns = (k->transfer_ns < 0 ? 0 : k->transfer_ns) + d;
			if (sl >= 0 && in->size >= 0 && in->size < INT64_MAX / 4) {
				cs[c].link_bytes[sl] += in->size;
				cs[c].link_ns[sl] += d;
			}
		}
	}
	for (i = 0; i < j->n_cop; i++) {
		struct opmfu_coll *k;
		int64_t bytes = 0, ns = 0, most = -1;
		int s2;
		if (coll[i] == UINT32_MAX || cs[i].main_plane < 0)
			continue;
		k = &t->colls.v[coll[i]];
		/* a collective with tasks measured both; one it did not see is 0 */
		if (k->wait_ns < 0)
			k->wait_ns = 0;
		if (k->transfer_ns < 0)
			k->transfer_ns = 0;
		for (s2 = 0; s2 < 4; s2++) {
			bytes += cs[i].link_bytes[s2];
			ns += cs[i].link_ns[s2];
			if (cs[i].link_bytes[s2] > 0 && (most < 0 || cs[i].link_bytes[s2] > cs[i].link_bytes[most]))
				most = s2;
		}
		k->link_bytes = bytes;
		k->link_ns = ns;
		k->transport = most >= 0 ? j->words[OPMFU_AJ_W_HCCS + most] : 0;
		k->ranks = cs[i].max_rank >= 0 && cs[i].max_rank < INT32_MAX ? (int32_t)cs[i].max_rank + 1 : 0;
	}
	rc = 0;
out:
	opmfu_free(coll);
	opmfu_free(cs);
	opmfu_free(skip);
	return rc;
}

/*
 * The communication ranges: the collectives' device tasks where the export
 * has them (what SPEC 19's wait and transfer split reads), else their spans.
 * The timeline unites them with the linked collectives' spans, which hold the
 * gaps between a collective's tasks, as torch_npu's StepTraceTime counts
 * them (docs/output-schema.md); t->comm_from_tasks stays 0 for that reason.
 */
static int emit_comm(const struct opmfu_ajoin *j, const uint32_t *tc, struct opmfu_trace *t)
{
	size_t i;

	if (!j->n_ctask) {
		for (i = 0; i < j->n_cop; i++) {
			const struct opmfu_aj_cop *c = &j->cop[i];
			struct opmfu_range r = { c->start, c->end, launch_of(j, c->conn_ok, c->conn), c->type, 0 };
			if (!c->bad && opmfu_ranges_add(&t->comm, &r))
				return -1;
		}
		return 0;
	}
	for (i = 0; i < j->n_ctask; i++) {
		const struct opmfu_aj_ctask *k = &j->ctask[i];
		struct opmfu_range r = { k->start, k->end, launch_of(j, k->conn_ok, k->conn), j->ct_info[k->info].name, 0 };
		/* named by its collective's opName when it has one */
		if (tc[i] != UINT32_MAX && j->cop[tc[i]].name)
			r.name = j->cop[tc[i]].name;
		if (opmfu_ranges_add(&t->comm, &r))
			return -1;
	}
	return 0;
}

/* The communication ranges and the collective calls, over one task-to-collective map. */
static int emit_communication(const struct opmfu_ajoin *j, struct opmfu_trace *t)
{
	uint32_t *tc;
	int rc = task_cops(j, &tc) || emit_comm(j, tc, t) || emit_colls(j, tc, t) ? -1 : 0;
	opmfu_free(tc);
	return rc;
}

int opmfu_ajoin_emit(struct opmfu_ajoin *j, struct opmfu_trace *t)
{
	size_t total = t->n_links, s, i, *count[3] = { &t->n_compute, &t->n_comm_op, &t->n_comm_sched };
	size_t op0 = t->n_ops; /* op instance ids: op0 + the PYTORCH_API row */
	uint32_t c, ce, a, ae;

	/* count first, so the link array is allocated once and exactly */
	for (s = 0; s < 3; s++)
		for (i = 0; i < j->src[s].n; i++)
			for (ci_range(j, &j->src[s].v[i], &c, &ce); c < ce; c++)
				total += j->api_off[j->ci_ids[c] + 1] - j->api_off[j->ci_ids[c]];
	if (total >= UINT32_MAX - 1 || op0 + j->n_api >= UINT32_MAX)
		return -1;
	/* the kernels' op types and formats beside the compute links (at most total) */
	if (!(t->kx = opmfu_realloc(t->kx, (total ? total : 1) * sizeof(*t->kx))))
		return -1;
	if (total > t->cap_links) {
		struct opmfu_link *nl = opmfu_realloc(t->links, (total ? total : 1) * sizeof(*nl));
		if (!nl)
			return -1;
		t->links = nl;
		t->cap_links = total;
	}
	/* launch times beside the links, when the export gave any */
	if (j->n_launched || t->launch) {
		int64_t *nl = opmfu_realloc(t->launch, (total ? total : 1) * sizeof(*nl));
		if (!nl)
			return -1;
		if (!t->launch)
			for (i = 0; i < t->n_links; i++)
				nl[i] = OPMFU_NO_LAUNCH;
		t->launch = nl;
	}
	for (s = 0; s < 3; s++) {
		size_t before = t->n_links;
		for (i = 0; i < j->src[s].n; i++) {
			const struct opmfu_aj_task *k = &j->src[s].v[i];
			size_t at = t->n_links;
			for (ci_range(j, k, &c, &ce); c < ce; c++)
			for (a = j->api_off[j->ci_ids[c]], ae = j->api_off[j->ci_ids[c] + 1]; a < ae; a++) {
				const struct opmfu_aj_api *op = &j->api[a];
				struct opmfu_link *l;
				if (k->bad || op->bad) {
					t->n_bad_rows++;
					continue;
				}
				l = &t->links[t->n_links];
				l->k_start = k->start;
				l->k_end = k->end;
				l->op_start = op->start;
				l->op_end = op->end;
				l->op_name = op->name;
				if (s == OPMFU_SRC_COMPUTE) {
					const struct opmfu_aj_info *in = &j->info[k->ref];
					l->k_name = in->name;
					l->in_shapes = in->in_shapes;
					l->dtype = in->dtype;
					l->out_shapes = in->out_shapes;
					t->kx[t->n_links] = (struct opmfu_kext){ in->type, in->in_formats,
										 in->out_formats, 0, in->out_dtypes };
				} else {
					l->k_name = k->ref;
					l->in_shapes = l->dtype = l->out_shapes = 0;
				}
				l->op = (uint32_t)(op0 + a);
				if (t->launch)
					t->launch[t->n_links] = launch_of(j, 1, k->conn);
				t->n_links++;
			}
			if (s == OPMFU_SRC_COMPUTE && t->n_links == at && !k->bad) {
				struct opmfu_range r = { k->start, k->end, launch_of(j, 1, k->conn), j->info[k->ref].name,
							 0 };
				if (opmfu_ranges_add(&t->kernels, &r))
					return -1;
			}
		}
		*count[s] = t->n_links - before;
	}
	t->n_ops = op0 + j->n_api;
	for (i = 0; i < j->no_conn.n; i++)
		if (opmfu_ranges_add(&t->kernels, &j->no_conn.v[i]))
			return -1;
	for (i = 0; i < j->n_copies; i++) {
		const struct opmfu_aj_copy *c = &j->copies[i];
		struct opmfu_range r = { c->start, c->end, launch_of(j, c->conn_ok, c->conn), c->name, 0 };
		if (opmfu_ranges_add(&t->memcpy, &r))
			return -1;
	}
	return emit_communication(j, t);
}
