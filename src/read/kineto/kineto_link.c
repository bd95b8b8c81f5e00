/*
 * kineto_link.c - from what the parse kept to the trace (SPEC 13): each GPU
 * kernel is linked to the cpu_op whose "External id" it carries (torch >=
 * 2.1) when that op's span holds the kernel's launch; failing that, through
 * its launch (the runtime call of its "correlation" id, else the "s" end of
 * its ac2g flow) to the innermost cpu_op on the same (pid, tid) whose span
 * holds that call (older traces, whose kernels carry their correlation id
 * as External id, kernels without an External id or a correlation key, and
 * External ids that are really correlation ids). Kernels that
 * link to nothing become KERNEL ranges; communication kernels all become
 * COMM ranges; copies and memsets become MEMCPY ranges. Each link and each
 * of these ranges carries its launch time: the ts of the runtime call with
 * its correlation id (one table of them serves both the links and these).
 * Every step is a hash lookup or a sort.
 */
#include <string.h>

#include "base/idtab.h"
#include "base/lbound.h"
#include "base/mem.h"
#include "base/sort.h"
#include "read/kineto/kineto.h"
#include "read/kineto/kineto_parse.h"
#include "trace/coll.h"
#include "trace/shape.h"

/* ---- by External id, and finding the launch by correlation ---- */

struct key_probe {
	const void *base;
	size_t stride, off; /* where the int64 key sits in each element */
	int64_t key;
};

static int key_eq(const void *probe, uint32_t id)
{
	const struct key_probe *k = probe;
	int64_t v;
	memcpy(&v, (const char *)k->base + (size_t)id * k->stride + k->off, sizeof(v));
	return v == k->key;
}

/* Indexes the elements by their key (the first of equal keys wins). */
static int index_keys(struct opmfu_idtab *tab, struct key_probe *kp, size_t n)
{
	size_t i;
	if (opmfu_idtab_reserve(tab, n))
		return -1;
	for (i = 0; i < n; i++) {
		memcpy(&kp->key, (const char *)kp->base + i * kp->stride + kp->off, sizeof(kp->key));
		if (kp->key != INT64_MIN &&
		    opmfu_idtab_get(tab, opmfu_mix64((uint64_t)kp->key), key_eq, kp, (uint32_t)i) == OPMFU_IDTAB_NONE)
			return -1;
	}
	return 0;
}

static int64_t key_of(const struct key_probe *kp, size_t i)
{
	int64_t v;
	memcpy(&v, (const char *)kp->base + i * kp->stride + kp->off, sizeof(v));
	return v;
}

/* element i goes before the key asked for */
static int key_before(const void *ctx, size_t i, const void *key)
{
	return key_of(ctx, i) < *(const int64_t *)key;
}

/*
 * n records found by their int64 key (INT64_MIN: none), the first in file
 * order of equal keys. Records already in key order (nsys's runtime calls
 * by correlationId, as CUDA hands the ids out; Kineto's flows by id) are
 * searched in place, from where the last search ended, without a hash
 * table: asked in about key order, a search is a step or two over memory
 * just read, where the table's were cache misses; and no table is held
 * while every record of the parse is (the link's peak).
 */
struct key_index {
	struct key_probe kp;
	struct opmfu_idtab tab; /* unless sorted */
	size_t n, at;           /* sorted: where the last search ended */
	int sorted;
};

/* 0, or -1 when out of memory (x is then released). */
static int key_index_make(struct key_index *x, const void *base, size_t n, size_t stride, size_t off)
{
	size_t i;
	x->kp = (struct key_probe){ base, stride, off, 0 };
	x->n = n;
	x->at = 0;
	opmfu_idtab_init(&x->tab);
	for (i = 1; i < n && key_of(&x->kp, i - 1) <= key_of(&x->kp, i); i++)
		;
	x->sorted = i >= n;
	if (!x->sorted && index_keys(&x->tab, &x->kp, n)) {
		opmfu_idtab_release(&x->tab);
		return -1;
	}
	return 0;
}

static void key_index_release(struct key_index *x)
{
	opmfu_idtab_release(&x->tab);
}

/* The first record with that key, or OPMFU_IDTAB_NONE. */
static uint32_t key_index_find(struct key_index *x, int64_t key)
{
	const struct key_probe *kp = &x->kp;
	size_t n = x->n, lo, hi, step = 1;

	if (key == INT64_MIN || n == 0)
		return OPMFU_IDTAB_NONE;
	if (!x->sorted) {
		x->kp.key = key;
		return opmfu_idtab_find(&x->tab, opmfu_mix64((uint64_t)key), key_eq, &x->kp);
	}
	/* gallop from the last place to [lo, hi], which holds the first record
	 * not before key (hi == n: none) */
	if (key_of(kp, x->at) < key) {
		lo = x->at + 1;
		while (lo + step - 1 < n && key_of(kp, lo + step - 1) < key) {
			lo += step;
			step *= 2;
		}
		hi = lo + step - 1 < n ? lo + step - 1 : n;
	} else {
		hi = x->at;
		while (hi >= step && key_of(kp, hi - step) >= key) {
			hi -= step;
			step *= 2;
		}
		lo = hi >= step ? hi - step + 1 : 0;
	}
	lo = opmfu_lbound(lo, hi, key_before, kp, &key);
	x->at = lo < n ? lo : n - 1;
	return lo < n && key_of(kp, lo) == key ? (uint32_t)lo : OPMFU_IDTAB_NONE;
}

/* The runtime calls by correlation id, made once for the links and the
 * launch times; kflow: by kernel, the "s" end of the ac2g flow whose "f"
 * end binds to it (NULL: the trace has no flows). */
struct launches {
	struct key_index idx;
	uint32_t *kflow;
};

/* The launch of kernel ki: the runtime call with its correlation id, else
 * the "s" end of its flow. Returns KIN_BY_CORR or KIN_BY_FLOW (*ts and
 * *thread, without the base), or KIN_BY_NONE when neither is in the trace. */
static int launch_at(const struct kin_parse *p, struct launches *ls, size_t ki, int64_t *ts, uint32_t *thread)
{
	uint32_t l = key_index_find(&ls->idx, p->kernels[ki].corr);
	if (l != OPMFU_IDTAB_NONE) {
		*ts = p->launches[l].ts;
		*thread = p->launches[l].thread;
		return KIN_BY_CORR;
	}
	if (ls->kflow && ls->kflow[ki] != KIN_NONE) {
		*ts = p->fstarts[ls->kflow[ki]].ts;
		*thread = p->fstarts[ls->kflow[ki]].thread;
		return KIN_BY_FLOW;
	}
	return KIN_BY_NONE;
}

/* kernels by (thread, start, index): where a flow's "f" end looks */
static int kernel_on_thread_before(const void *ctx, uint32_t a, uint32_t b)
{
	const struct kin_kernel *x = (const struct kin_kernel *)ctx + a, *y = (const struct kin_kernel *)ctx + b;
	if (x->thread != y->thread)
		return x->thread < y->thread;
	return x->start != y->start ? x->start < y->start : a < b;
}

struct flow_key {
	const struct kin_kernel *k;
	const uint32_t *order;
	uint32_t thread;
	int64_t ts;
};

/* order[i]'s kernel is at or before (thread, ts) */
static int kernel_not_after(const void *ctx, size_t i, const void *key)
{
	const struct flow_key *f = key;
	const struct kin_kernel *x = &f->k[f->order[i]];
	(void)ctx;
	return x->thread != f->thread ? x->thread < f->thread : x->start <= f->ts;
}

/*
 * ls->kflow from the ac2g flows: each "f" end binds to the kernel on its
 * (pid, tid) that holds its ts (Kineto writes "bp": "e", the enclosing
 * slice: the kernel starting there, or of several the latest to start), and
 * that kernel's launch is the "s" end of the same id (the first of an id
 * in file order; the first "f" to bind a kernel wins). Sorting and binary
 * search: O((kernels + flows) log kernels). -1 when out of memory.
 */
static int pair_flows(struct kin_parse *p, struct launches *ls)
{
	struct key_index starts;
	uint32_t *order = NULL;
	size_t i;
	int rc = -1;

	if (!p->n_fstarts || !p->n_fends || !p->n_kernels)
		return 0;
	if (p->n_fstarts >= KIN_NONE || p->n_fends >= KIN_NONE)
		return -1;
	if (key_index_make(&starts, p->fstarts, p->n_fstarts, sizeof(*p->fstarts), offsetof(struct kin_flow, id)))
		return -1;
	if (!(ls->kflow = opmfu_malloc(p->n_kernels * sizeof(*ls->kflow))) ||
	    !(order = opmfu_malloc(p->n_kernels * sizeof(*order))))
		goto out;
	for (i = 0; i < p->n_kernels; i++) {
		ls->kflow[i] = KIN_NONE;
		order[i] = (uint32_t)i;
	}
	if (opmfu_sort_idx(order, p->n_kernels, kernel_on_thread_before, p->kernels))
		goto out;
	for (i = 0; i < p->n_fends; i++) {
		struct flow_key fk = { p->kernels, order, p->fends[i].thread, p->fends[i].ts };
		size_t at = opmfu_lbound(0, p->n_kernels, kernel_not_after, NULL, &fk);
		const struct kin_kernel *k;
		uint32_t s;
		if (at == 0)
			continue;
		k = &p->kernels[order[at - 1]];
		if (k->thread != fk.thread || k->end < fk.ts || ls->kflow[order[at - 1]] != KIN_NONE)
			continue;
		if ((s = key_index_find(&starts, p->fends[i].id)) != OPMFU_IDTAB_NONE)
			ls->kflow[order[at - 1]] = s;
	}
	rc = 0;
out:
	opmfu_free(order);
	key_index_release(&starts);
	return rc;
}

/*
 * Kernels by External id. A kernel whose External id equals its
 * correlation id carries no op's id (torch < 2.1 wrote the correlation id
 * there, and op ids count from 1 as correlation ids do, so the two collide
 * in long traces): it links only through its launch. Nor does a kernel link
 * to an op whose span does not hold its launch (an op that started after
 * the kernel was launched, or ended before): that External id is a
 * correlation id that met an unrelated op's id; such a kernel is marked
 * KIN_BY_FIX and links through its launch (link_by_corr). Returns -1 when
 * out of memory.
 */
static int link_by_ext(struct kin_parse *p, struct launches *ls)
{
	struct key_index ext;
	size_t i;

	if (key_index_make(&ext, p->ops, p->n_ops, sizeof(*p->ops), offsetof(struct kin_op, ext)))
		return -1;
	for (i = 0; i < p->n_kernels; i++) {
		uint32_t op = p->kernels[i].ext == p->kernels[i].corr ? OPMFU_IDTAB_NONE
									: key_index_find(&ext, p->kernels[i].ext);
		int64_t ts;
		uint32_t th;
		if (op == OPMFU_IDTAB_NONE)
			continue;
		if (launch_at(p, ls, i, &ts, &th) != KIN_BY_NONE && (ts < p->ops[op].start || ts > p->ops[op].end)) {
			p->kby[i] = KIN_BY_FIX;
			continue;
		}
		p->kernels[i].op = op;
		p->kby[i] = KIN_BY_EXT;
	}
	key_index_release(&ext);
	return 0;
}

/* ---- the innermost cpu_op around a launch ---- */

struct query {
	int64_t ts;
	uint32_t thread, kernel;
};

/* ops by (thread, start, end descending, index): outer ops before the ops
 * they hold, so the last open one is the innermost */
static int op_before(const void *ctx, uint32_t a, uint32_t b)
{
	const struct kin_op *x = (const struct kin_op *)ctx + a, *y = (const struct kin_op *)ctx + b;
	if (x->thread != y->thread)
		return x->thread < y->thread;
	if (x->start != y->start)
		return x->start < y->start;
	if (x->end != y->end)
		return x->end > y->end;
	return a < b;
}

static int query_before(const void *a, const void *b)
{
	const struct query *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread;
	return x->ts < y->ts;
}

/*
 * Walks ops and queries of all threads together, both in (thread, time)
 * order, with a stack of the ops open at the query's time: push every op
 * that starts at or before it, drop from the top those that ended before
 * it; the top then holds it and started last. at(p, query, stack, depth)
 * is told each query's open ops, innermost last.
 */
typedef void at_query_fn(struct kin_parse *p, const struct query *q, const uint32_t *stack, size_t top);

static void sweep(struct kin_parse *p, const uint32_t *ops, size_t n_ops, const struct query *q, size_t n_q,
		  uint32_t *stack, at_query_fn *at)
{
	size_t i = 0, k, top = 0;
	uint32_t thread = KIN_NONE;

	for (k = 0; k < n_q; k++) {
		if (q[k].thread != thread) {
			thread = q[k].thread;
			top = 0;
			while (i < n_ops && p->ops[ops[i]].thread < thread)
				i++;
		}
		for (; i < n_ops && p->ops[ops[i]].thread == thread && p->ops[ops[i]].start <= q[k].ts; i++) {
			const struct kin_op *o = &p->ops[ops[i]];
			while (top && p->ops[stack[top - 1]].end < o->start)
				top--;
			stack[top++] = ops[i];
		}
		while (top && p->ops[stack[top - 1]].end < q[k].ts)
			top--;
		at(p, &q[k], stack, top);
	}
}

/* the launch's innermost op is the kernel's (how it got there is in by) */
static void link_at(struct kin_parse *p, const struct query *q, const uint32_t *stack, size_t top)
{
	if (top)
		p->kernels[q->kernel].op = stack[top - 1];
}

/* Sorts the queries and the ops on a thread and sweeps them. Returns -1
 * when out of memory. */
static int sweep_ops(struct kin_parse *p, struct query *q, size_t n_q, at_query_fn *at)
{
	uint32_t *ops = NULL, *stack = NULL;
	size_t i, n_ops = 0;
	int rc = -1;

	if (!(ops = opmfu_malloc((p->n_ops ? p->n_ops : 1) * sizeof(*ops))) ||
	    !(stack = opmfu_malloc((p->n_ops ? p->n_ops : 1) * sizeof(*stack))))
		goto out;
	for (i = 0; i < p->n_ops; i++)
		if (p->ops[i].thread != KIN_NONE)
			ops[n_ops++] = (uint32_t)i;
	if (opmfu_sort_idx(ops, n_ops, op_before, p->ops) || opmfu_sort_array(q, n_q, sizeof(*q), query_before))
		goto out;
	sweep(p, ops, n_ops, q, n_q, stack, at);
	rc = 0;
out:
	opmfu_free(ops);
	opmfu_free(stack);
	return rc;
}

/* Kernels still without an op, through their launch: the runtime call of
 * their correlation id, else their flow's "s" end. Returns -1 when out of
 * memory. */
static int link_by_corr(struct kin_parse *p, struct launches *ls)
{
	struct query *q = NULL;
	size_t i, n_q = 0;
	int rc;

	for (i = 0; i < p->n_kernels; i++)
		n_q += p->kernels[i].op == KIN_NONE;
	if (n_q == 0 || (p->n_launches == 0 && !ls->kflow))
		return 0;
	if (!(q = opmfu_malloc(n_q * sizeof(*q))))
		return -1;
	n_q = 0;
	for (i = 0; i < p->n_kernels; i++) {
		int64_t ts;
		uint32_t th;
		int via;
		if (p->kernels[i].op != KIN_NONE)
			continue;
		via = launch_at(p, ls, i, &ts, &th);
		if (via == KIN_BY_NONE || th == KIN_NONE)
			continue;
		if (p->kby[i] != KIN_BY_FIX)
			p->kby[i] = (uint8_t)via;
		q[n_q++] = (struct query){ ts, th, (uint32_t)i };
	}
	rc = sweep_ops(p, q, n_q, link_at);
	opmfu_free(q);
	return rc;
}

/* ---- the trace ---- */

/* *out = 0 .. n-1 sorted stably by less (malloc'd). -1 when out of memory. */
static int sorted_order(size_t n, opmfu_less_fn less, const void *ctx, uint32_t **out)
{
	size_t i;
	if (!(*out = opmfu_malloc((n + 1) * sizeof(**out))))
		return -1;
	for (i = 0; i < n; i++)
		(*out)[i] = (uint32_t)i;
	return opmfu_sort_idx(*out, n, less, ctx);
}

/* The status of rc (0, -1 out of memory, -2 a time past int64 with the base). */
static enum opmfu_status result(const struct kin_parse *p, int rc, const char *doing, struct opmfu_err *err)
{
	if (rc == -2)
		return opmfu_err_set(err, OPMFU_ERR_FORMAT,
				     "%s: timestamps out of range once baseTimeNanoseconds (%lld) is added", p->path,
				     (long long)p->base_ns);
	if (rc)
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory %s", p->path, doing);
	return OPMFU_OK;
}

/* v + the trace's base time; -1 when it overflows */
static int at_base(const struct kin_parse *p, int64_t v, int64_t *out)
{
	if ((p->base_ns > 0 && v > INT64_MAX - p->base_ns) || (p->base_ns < 0 && v < INT64_MIN - p->base_ns))
		return -1;
	*out = v + p->base_ns;
	return 0;
}

/* *out = the launch time (with the base) of the device work with
 * correlation id corr; OPMFU_NO_LAUNCH when no runtime call has it. -2
 * when it overflows. */
static int launch_of(const struct kin_parse *p, struct launches *ls, int64_t corr, int64_t *out)
{
	uint32_t l = key_index_find(&ls->idx, corr);
	*out = OPMFU_NO_LAUNCH;
	return l != OPMFU_IDTAB_NONE && at_base(p, p->launches[l].ts, out) ? -2 : 0;
}

/* The same for kernel k: by its correlation id, else by its flow. */
static int kernel_launch(const struct kin_parse *p, struct launches *ls, const struct kin_kernel *k, int64_t *out)
{
	int64_t ts;
	uint32_t th;
	*out = OPMFU_NO_LAUNCH;
	return launch_at(p, ls, (size_t)(k - p->kernels), &ts, &th) != KIN_BY_NONE && at_base(p, ts, out) ? -2 : 0;
}

/* *out: every kernel's launch time (kernel_launch), so that the runtime
 * calls, the flows and their index can go before the links are written.
 * -1 when out of memory, -2 when one overflows. */
static int launch_times(const struct kin_parse *p, struct launches *ls, int64_t **out)
{
	size_t i;
	if (!(*out = opmfu_malloc((p->n_kernels ? p->n_kernels : 1) * sizeof(**out))))
		return -1;
	for (i = 0; i < p->n_kernels; i++)
		if (kernel_launch(p, ls, &p->kernels[i], &(*out)[i]))
			return -2;
	return 0;
}

static int kernel_before(const void *ctx, uint32_t a, uint32_t b)
{
	const struct kin_kernel *x = (const struct kin_kernel *)ctx + a, *y = (const struct kin_kernel *)ctx + b;
	return x->start != y->start ? x->start < y->start : a < b;
}

/* One link for kernel k, its launch time (klaunch, by kernel) beside it in
 * t->launch (room made by emit); comm: a communication row (no shapes). */
static int add_link(struct kin_parse *p, const int64_t *klaunch, const struct kin_kernel *k, int comm)
{
	struct opmfu_trace *t = p->t;
	struct kin_op *o = &p->ops[k->op];
	struct opmfu_link l;

	if (OPMFU_GROW(t->links, t->cap_links, t->n_links + 1))
		return -1;
	if (o->link_op == KIN_NONE) {
		if (t->n_ops >= KIN_NONE)
			return -1;
		o->link_op = (uint32_t)t->n_ops++;
	}
	memset(&l, 0, sizeof(l));
	if (at_base(p, k->start, &l.k_start) || at_base(p, k->end, &l.k_end) || at_base(p, o->start, &l.op_start) ||
	    at_base(p, o->end, &l.op_end))
		return -2;
	t->launch[t->n_links] = klaunch[k - p->kernels];
	l.k_name = k->name;
	l.op_name = o->name;
	l.in_shapes = comm ? 0 : o->shapes;
	l.dtype = comm ? 0 : o->dtype;
	l.op = o->link_op;
	t->links[t->n_links++] = l;
	return 0;
}

static int add_range(struct kin_parse *p, const int64_t *klaunch, enum opmfu_range_kind kind,
		     const struct kin_kernel *k, uint32_t name, struct opmfu_range *out)
{
	struct opmfu_range r = { 0, 0, klaunch[k - p->kernels], name, 0 };
	if (at_base(p, k->start, &r.start) || at_base(p, k->end, &r.end))
		return -2;
	if (out)
		*out = r;
	return opmfu_ranges_add(opmfu_trace_ranges(p->t, kind), &r);
}

/* ---- collective calls (SPEC 19) ---- */

/* The args record of owner in v[0..n) (sorted by owner), or NULL. */
static int owner_before(const void *ctx, size_t i, const void *key)
{
	return ((const struct kin_cargs *)ctx)[i].owner < *(const uint32_t *)key;
}

static const struct kin_cargs *cargs_of(const struct kin_cargs *v, size_t n, uint32_t owner)
{
	size_t i = opmfu_lbound(0, n, owner_before, v, &owner);
	return i < n && v[i].owner == owner ? &v[i] : NULL;
}

/* nccl-tests' size: the larger known nelems times the element size;
 * OPMFU_COLL_UNKNOWN when either is unknown or the product passes
 * OPMFU_COLL_MAX_BYTES. */
static int64_t coll_bytes(const struct opmfu_trace *t, const struct kin_cargs *a)
{
	int64_t n = a->in > a->out ? a->in : a->out;
	int size = a->dtype ? opmfu_coll_dtype_size(opmfu_strtab_str(&t->strs, a->dtype),
						    opmfu_strtab_len(&t->strs, a->dtype))
			    : 0;
	if (n < 0 || size <= 0 || n > KIN_COLL_MAX_BYTES / size)
		return OPMFU_COLL_UNKNOWN;
	return n * size;
}

/* ---- older traces: the size from the c10d op's inputs ---- */

/* Whether an op is one of PyTorch's collectives (c10d::alltoall_base_,
 * torch 1.x's nccl:all_reduce): only those say what the call moves. */
static int is_c10d(const struct opmfu_strtab *st, uint32_t name)
{
	const char *s = opmfu_strtab_str(st, name);
	size_t n = opmfu_strtab_len(st, name);
	return s && ((n > 6 && !memcmp(s, "c10d::", 6)) || (n > 5 && !memcmp(s, "nccl:", 5)));
}

/* Room for a c10d op's inputs (a handful of tensors and scalars); an op
 * with more has no size. */
#define HOST_DIMS 256
#define HOST_TENSORS 64

/*
 * The bytes of o's call from its inputs, as nccl-tests' size (the larger of
 * input and output): the largest tensor argument, its Input Dims' elements
 * times the size of its Input type (a 0-d tensor is one element; lists of
 * tensors have no dims in the trace and do not count). *ty, *ty_n: that
 * argument's type text. OPMFU_COLL_UNKNOWN when no argument is a tensor
 * of a known type.
 */
static int64_t op_bytes(const struct kin_parse *p, const struct kin_op *o, const char **ty, size_t *ty_n)
{
	const struct opmfu_strtab *st = &p->t->strs;
	uint32_t tsid = o->dtype ? p->t->dtypes[o->dtype].text : 0;
	const char *t = opmfu_strtab_str(st, tsid), *te, *tn;
	int64_t dims[HOST_DIMS], best = OPMFU_COLL_UNKNOWN;
	uint32_t end[HOST_TENSORS];
	struct opmfu_shape sh = { dims, end, HOST_DIMS, HOST_TENSORS, 0, 0 };
	size_t i;

	if (!t || !o->shapes || o->shapes == p->t->shape_unknown ||
	    opmfu_shape_parse(opmfu_strtab_str(st, o->shapes), opmfu_strtab_len(st, o->shapes), &sh))
		return best;
	te = t + opmfu_strtab_len(st, tsid);
	/* the types, ';'-separated, stand beside the tensors one for one */
	for (i = 0; i < sh.n_tensors && t <= te; i++, t = tn + 1) {
		const int64_t *dm = opmfu_shape_dims(&sh, i);
		size_t r, rank = opmfu_shape_rank(&sh, i);
		int size;
		int64_t n;
		if (!(tn = memchr(t, ';', (size_t)(te - t))))
			tn = te;
		size = opmfu_coll_dtype_size(t, (size_t)(tn - t));
		n = size > 0 ? size : -1;
		for (r = 0; n > 0 && r < rank; r++)
			n = dm[r] == 0 ? 0 : n > KIN_COLL_MAX_BYTES / dm[r] ? -1 : n * dm[r];
		if (n > best) {
			best = n;
			*ty = t;
			*ty_n = (size_t)(tn - t);
		}
	}
	return best;
}

/* the innermost c10d op around the comm kernel's own op with a size */
static void host_at(struct kin_parse *p, const struct query *q, const uint32_t *stack, size_t top)
{
	const char *ty;
	size_t ty_n;
	while (top--)
		if (is_c10d(&p->t->strs, p->ops[stack[top]].name) &&
		    op_bytes(p, &p->ops[stack[top]], &ty, &ty_n) != OPMFU_COLL_UNKNOWN) {
			p->coll_host[q->kernel] = stack[top];
			return;
		}
}

/* Whether kernel ki is a comm kernel linked to an op on a known thread whose
 * own args, and its op's, give no size: its c10d op may. */
static int needs_host(const struct kin_parse *p, uint32_t ki)
{
	const struct kin_kernel *k = &p->kernels[ki];
	const struct kin_cargs *a;
	if (!k->comm || k->op == KIN_NONE || p->ops[k->op].thread == KIN_NONE)
		return 0;
	if (!(a = cargs_of(p->kcargs, p->n_kcargs, ki)))
		a = cargs_of(p->ocargs, p->n_ocargs, k->op);
	return !a || coll_bytes(p->t, a) == OPMFU_COLL_UNKNOWN;
}

/*
 * p->coll_host for the comm kernels whose args give no size but whose op
 * does not start the call itself (record_param_comms inside
 * c10d::alltoall_base_): one sweep of the ops, made only when a trace has
 * such kernels. Returns -1 when out of memory.
 */
static int find_hosts(struct kin_parse *p)
{
	struct query *q;
	size_t i, n_q = 0;
	int rc;

	for (i = 0; i < p->n_kernels; i++)
		n_q += needs_host(p, (uint32_t)i);
	if (n_q == 0)
		return 0;
	if (!(q = opmfu_malloc(n_q * sizeof(*q))) || !(p->coll_host = opmfu_malloc(p->n_kernels * sizeof(uint32_t)))) {
		opmfu_free(q);
		return -1;
	}
	n_q = 0;
	for (i = 0; i < p->n_kernels; i++) {
		const struct kin_kernel *k = &p->kernels[i];
		p->coll_host[i] = KIN_NONE;
		if (needs_host(p, (uint32_t)i))
			q[n_q++] = (struct query){ p->ops[k->op].start, p->ops[k->op].thread, (uint32_t)i };
	}
	rc = sweep_ops(p, q, n_q, host_at);
	opmfu_free(q);
	return rc;
}

/* The kind a comm kernel's names give (the first two rules of add_coll),
 * kept for the last pair of names: a trace's comm kernels are many and
 * their names few, and the rules search the whole name. */
struct kind_memo {
	uint32_t name, comm;
	int kind, kept;
};

/* The call comm kernel ki (index into p->kernels) makes, spanning r: its
 * own args, else those of the cpu_op it links to, else (older traces) the
 * inputs of the c10d op around that op; the kind from its "Collective
 * name", else its name, else the op's "Collective name", else the ops'
 * names (docs/collectives.md). Returns -1 when out of memory. */
static int add_coll(struct kin_parse *p, size_t ki, const struct opmfu_range *r, struct kind_memo *km)
{
	const struct kin_kernel *k = &p->kernels[ki];
	struct opmfu_strtab *st = &p->t->strs;
	const struct kin_cargs *a = cargs_of(p->kcargs, p->n_kcargs, (uint32_t)ki), *oa = NULL;
	uint32_t host = p->coll_host ? p->coll_host[ki] : KIN_NONE;
	int kind;
	struct opmfu_coll c;

	if (km->kept && km->name == k->name && km->comm == k->comm) {
		kind = km->kind;
	} else {
		kind = k->comm == k->name ? opmfu_kineto_comm_kind(opmfu_strtab_str(st, k->name),
								  opmfu_strtab_len(st, k->name))
					  : 0;
		if (!kind)
			kind = opmfu_coll_kind_of(opmfu_strtab_str(st, k->comm), opmfu_strtab_len(st, k->comm));
		*km = (struct kind_memo){ k->name, k->comm, kind, 1 };
	}

	if (k->op != KIN_NONE)
		oa = cargs_of(p->ocargs, p->n_ocargs, k->op);
	if (!a)
		a = oa;
	if (kind == OPMFU_COLL_OTHER && k->comm == k->name && oa && oa->coll)
		kind = opmfu_coll_kind_of(opmfu_strtab_str(st, oa->coll), opmfu_strtab_len(st, oa->coll));
	/* older traces: the launching op's own name (c10d::alltoall_base_, nccl:all_reduce), or its host's */
	if (kind == OPMFU_COLL_OTHER && k->comm == k->name && k->op != KIN_NONE && p->ops[k->op].name)
		kind = opmfu_coll_kind_of(opmfu_strtab_str(st, p->ops[k->op].name),
					  opmfu_strtab_len(st, p->ops[k->op].name));
	if (kind == OPMFU_COLL_OTHER && k->comm == k->name && host != KIN_NONE)
		kind = opmfu_coll_kind_of(opmfu_strtab_str(st, p->ops[host].name), opmfu_strtab_len(st, p->ops[host].name));
	c = opmfu_coll_blank(r->start, r->end, k->name, kind);
	if (a) {
		c.bytes = coll_bytes(p->t, a);
		c.group = a->group;
		c.dtype = a->dtype;
		c.ranks = a->ranks;
	}
	if (host != KIN_NONE) {
		const char *ty = NULL;
		size_t ty_n = 0;
		char buf[64]; /* interning may move the pool ty points into */
		c.bytes = op_bytes(p, &p->ops[host], &ty, &ty_n);
		c.dtype = 0;
		if (ty_n && ty_n <= sizeof(buf)) {
			memcpy(buf, ty, ty_n);
			if (!(c.dtype = opmfu_strtab_intern(st, buf, ty_n)))
				return -1;
		}
	}
	return opmfu_colls_add(&p->t->colls, &c);
}

/* Links and ranges in kernel start order: compute links (with their kx),
 * then communication links, as struct opmfu_trace wants them. */
static int emit(struct kin_parse *p, const int64_t *klaunch, const uint32_t *order, struct kin_counts *c)
{
	struct opmfu_trace *t = p->t;
	struct kind_memo km = { 0, 0, 0, 0 };
	size_t i, n = t->n_links;
	int rc;

	/* t->launch is parallel to t->links: one entry per linked kernel (and
	 * none known for links t held before, if any) */
	for (i = 0; i < p->n_kernels; i++)
		n += p->kernels[i].op != KIN_NONE;
	opmfu_free(t->launch);
	/* the links at their count at once: grown by doubling, each copy left
	 * its old block resident */
	if (!(t->launch = opmfu_malloc((n ? n : 1) * sizeof(*t->launch))) || OPMFU_RESERVE(t->links, t->cap_links, n))
		return -1;
	for (i = 0; i < t->n_links; i++)
		t->launch[i] = OPMFU_NO_LAUNCH;
	for (i = 0; i < p->n_kernels; i++) {
		const struct kin_kernel *k = &p->kernels[order[i]];
		if (k->comm)
			continue;
		if (k->op == KIN_NONE) {
			c->none++;
			if ((rc = add_range(p, klaunch, OPMFU_RANGE_KERNEL, k, k->name, NULL)))
				return rc;
			continue;
		}
		c->by_ext += p->kby[order[i]] == KIN_BY_EXT;
		c->by_corr += p->kby[order[i]] == KIN_BY_CORR;
		c->by_flow += p->kby[order[i]] == KIN_BY_FLOW;
		c->fixed += p->kby[order[i]] == KIN_BY_FIX;
		if ((rc = add_link(p, klaunch, k, 0)))
			return rc;
	}
	t->n_compute = t->n_links;
	if (t->n_compute && !(t->kx = opmfu_calloc(t->n_compute, sizeof(*t->kx))))
		return -1;
	for (i = 0; i < p->n_kernels; i++) {
		const struct kin_kernel *k = &p->kernels[order[i]];
		struct opmfu_range r;
		if (!k->comm)
			continue;
		c->comm++;
		if ((rc = add_range(p, klaunch, OPMFU_RANGE_COMM, k, k->comm, &r)))
			return rc;
		/* one call per COMM range, in their order */
		if (add_coll(p, order[i], &r, &km))
			return -1;
		if (k->op == KIN_NONE)
			continue;
		c->comm_linked++;
		if ((rc = add_link(p, klaunch, k, 1)))
			return rc;
	}
	t->n_comm_op = t->n_links - t->n_compute;
	return 0;
}

/*
 * Keeps the ops a kernel links to or hosts a comm kernel's call (most
 * cpu_ops, the ones around and beside the launching op, neither) and hands
 * back the rest of their pages before the links are made, which would
 * otherwise be the parse's peak (docs/performance.md). Order is kept, so
 * the ocargs stay sorted by owner; link_op (unused until the links) holds
 * an op's new index meanwhile.
 */
static void keep_linked_ops(struct kin_parse *p)
{
	size_t i, n = 0, j = 0;
	if (!p->n_kernels)
		return; /* the note then counts the cpu_ops read */
	for (i = 0; i < p->n_kernels; i++) {
		if (p->kernels[i].op != KIN_NONE)
			p->ops[p->kernels[i].op].link_op = 0;
		if (p->coll_host && p->coll_host[i] != KIN_NONE)
			p->ops[p->coll_host[i]].link_op = 0;
	}
	for (i = 0; i < p->n_ops; i++)
		if (p->ops[i].link_op != KIN_NONE)
			p->ops[i].link_op = (uint32_t)n++;
	for (i = 0; i < p->n_kernels; i++) {
		if (p->kernels[i].op != KIN_NONE)
			p->kernels[i].op = p->ops[p->kernels[i].op].link_op;
		if (p->coll_host && p->coll_host[i] != KIN_NONE)
			p->coll_host[i] = p->ops[p->coll_host[i]].link_op;
	}
	for (i = 0; i < p->n_ocargs; i++) {
		uint32_t to = p->ops[p->ocargs[i].owner].link_op;
		if (to == KIN_NONE)
			continue;
		p->ocargs[j] = p->ocargs[i];
		p->ocargs[j++].owner = to;
	}
	p->n_ocargs = j;
	for (i = 0; i < p->n_ops; i++) {
		uint32_t to = p->ops[i].link_op;
		if (to == KIN_NONE)
			continue;
		p->ops[to] = p->ops[i];
		p->ops[to].link_op = KIN_NONE;
	}
	p->n_ops = n;
	KIN_SHRINK(p, KIN_PAGED_OPS, p->ops, p->cap_ops, n);
}

/* kx[i]: what the shape formulas need of compute link i beyond its shapes */
static void fill_kx(struct kin_parse *p, const uint32_t *order)
{
	size_t i, n = 0;
	for (i = 0; i < p->n_kernels; i++) {
		const struct kin_kernel *k = &p->kernels[order[i]];
		if (k->comm || k->op == KIN_NONE)
			continue;
		p->t->kx[n].type = p->ops[k->op].name;
		p->t->kx[n].attrs = p->ops[k->op].attrs;
		n++;
	}
}

/* The copies and memsets as t's MEMCPY ranges, by start: the parse's
 * records gain the base and their launch time in place of the correlation
 * id, and move into t (no copy: there may be many). */
static int emit_copies(struct kin_parse *p, struct launches *ls)
{
	struct opmfu_ranges *rs = &p->copies, *out = &p->t->memcpy;
	size_t i;

	for (i = 0; i < rs->n; i++) {
		struct opmfu_range *r = &rs->v[i];
		if (at_base(p, r->start, &r->start) || at_base(p, r->end, &r->end) ||
		    launch_of(p, ls, r->value, &r->value))
			return -2;
	}
	if (out->n == 0) {
		opmfu_ranges_release(out);
		*out = *rs;
		memset(rs, 0, sizeof(*rs));
	} else {
		for (i = 0; i < rs->n; i++)
			if (opmfu_ranges_add(out, &rs->v[i]))
				return -1;
	}
	return opmfu_ranges_sort(out);
}

enum opmfu_status opmfu_kin_link(struct kin_parse *p, struct kin_counts *c, struct opmfu_err *err)
{
	struct launches ls;
	uint32_t *order = NULL;
	int64_t *klaunch = NULL;
	int rc = -1, flows;

	memset(c, 0, sizeof(*c));
	p->t->shape_scope = OPMFU_SHAPES_OP;
	p->t->shape_only = 1; /* no FLOPs records in this format: OperatorMFU takes the shape FLOPs */
	if (p->n_kernels >= KIN_NONE || p->n_ops >= KIN_NONE || p->n_launches >= KIN_NONE)
		return opmfu_err_set(err, OPMFU_ERR_LIMIT, "%s: more than 2^32 events of one kind", p->path);
	opmfu_free(p->kby);
	if (!(p->kby = opmfu_calloc(p->n_kernels ? p->n_kernels : 1, 1)))
		return result(p, -1, "linking kernels to cpu_ops", err);
	ls.kflow = NULL;
	flows = !key_index_make(&ls.idx, p->launches, p->n_launches, sizeof(*p->launches),
				offsetof(struct kin_launch, corr)) &&
		!pair_flows(p, &ls);
	/* the "f" ends have found their kernels: nothing else reads them */
	KIN_DROP(p, KIN_PAGED_FENDS, p->fends, p->cap_fends);
	if (flows && !link_by_ext(p, &ls) && !link_by_corr(p, &ls) && !(rc = launch_times(p, &ls, &klaunch)) &&
	    !(rc = emit_copies(p, &ls))) {
		/* every launch time is known: the runtime calls, the flows and their
		 * index go before the links and ranges are written */
		key_index_release(&ls.idx);
		opmfu_free(ls.kflow);
		ls.kflow = NULL;
		KIN_DROP(p, KIN_PAGED_LAUNCHES, p->launches, p->cap_launches);
		KIN_DROP(p, KIN_PAGED_FSTARTS, p->fstarts, p->cap_fstarts);
		if (find_hosts(p))
			rc = -1;
		else
			keep_linked_ops(p);
		if (!rc)
			rc = sorted_order(p->n_kernels, kernel_before, p->kernels, &order) ? -1 : emit(p, klaunch, order, c);
		if (!rc && p->t->kx)
			fill_kx(p, order);
	}
	key_index_release(&ls.idx);
	opmfu_free(ls.kflow);
	opmfu_free(klaunch);
	opmfu_free(order);
	return result(p, rc, "linking kernels to cpu_ops", err);
}

/* ---- modules and steps ---- */

/* steps by (number, CPU first, index): a number's STEP range is its first
 * entry, its DEVSTEP range its first GPU one */
static int step_before(const void *ctx, uint32_t a, uint32_t b)
{
	const struct kin_step *x = (const struct kin_step *)ctx + a, *y = (const struct kin_step *)ctx + b;
	if (x->n != y->n)
		return x->n < y->n;
	if (x->gpu != y->gpu)
		return x->gpu < y->gpu;
	return a < b;
}

enum opmfu_status opmfu_kin_ranges(struct kin_parse *p, struct opmfu_err *err)
{
	struct opmfu_trace *t = p->t;
	uint32_t *order = NULL;
	size_t i;
	int rc = -1;

	for (i = 0; i < p->mods.n; i++) {
		struct opmfu_range r = p->mods.v[i];
		if (at_base(p, r.start, &r.start) || at_base(p, r.end, &r.end)) {
			rc = -2;
			goto out;
		}
		if (opmfu_ranges_add(&t->mods, &r))
			goto out;
	}
	/* one range per step number: its CPU span (ProfilerStep#N as the
	 * training loop ran it), as the ops that launch the step's kernels are
	 * in it; a GPU annotation only when there is no CPU one (on real traces
	 * the GPU's is a few microseconds around a marker, not the step) */
	if (sorted_order(p->n_steps, step_before, p->steps, &order))
		goto out;
	for (i = 0; i < p->n_steps; i++) {
		const struct kin_step *s = &p->steps[order[i]], *prev = i ? &p->steps[order[i - 1]] : NULL;
		struct opmfu_range r = { 0, 0, s->n, 0, 0 };
		int first = !prev || prev->n != s->n;
		/* DEVSTEP: the device's own mark of the step, whatever the CPU
		 * has; a number marked twice keeps its first in file order */
		if (!first && !(s->gpu && !prev->gpu))
			continue;
		if (at_base(p, s->start, &r.start) || at_base(p, s->end, &r.end)) {
			rc = -2;
			goto out;
		}
		if ((first && opmfu_ranges_add(&t->steps, &r)) || (s->gpu && opmfu_ranges_add(&t->devsteps, &r)))
			goto out;
	}
	rc = opmfu_ranges_sort(&t->mods) || opmfu_ranges_sort(&t->steps) || opmfu_ranges_sort(&t->devsteps) ? -1 : 0;
out:
	opmfu_free(order);
	return result(p, rc, "reading modules and steps", err);
}
