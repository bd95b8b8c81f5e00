/*
 * steps.c - OpmfuSteps (steps.h): windows cut on the device timeline, then
 * one sweep over every device interval's start and end in time order that
 * puts each ns of each window in one category. The ends are two sorted
 * lists of the intervals (by start, by end) merged as the sweep goes: 9
 * bytes an interval and a sort's 4, where both ends as 16-byte records took
 * 32 and their sort through a copy 32 more, the top of a large rank's memory.
 */
#include "analyze/steps.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

#include "analyze/account.h"

#include "base/mem.h"
#include "base/sat.h"
#include "base/sort.h"

/* Kinds of device interval (the categories of a busy ns, by precedence). */
enum { C_FLOPS, C_MATMUL, C_MEMBOUND, C_OTHER, C_COMM, C_COPY, C_N };
/* a collective's waiting task: no category of its own, it marks exposed communication as waiting */
#define C_WAIT C_N

/* A window: the part of the device timeline a row covers. */
struct win {
	int64_t start, end;
	size_t row;
};

struct build {
	const struct opmfu_ops *ops;
	const struct opmfu_trace *t;
	struct opmfu_steps *res;
	size_t n_steps;                /* t->steps.n */
	size_t off_k, off_c, off_m, off_w; /* the first item of each kind of range */
	uint8_t *mm;                   /* per sid: 0 not yet asked, 1 not a matmul name, 2 one */
	/* the device intervals that take time, as items: a link, then the KERNEL, COMM, MEMCPY and
	 * COMM_WAIT ranges (from off_k, off_c, off_m, off_w); by (start, item) and by (end, item) */
	uint32_t *by_start, *by_end;
	size_t n_iv;
	uint8_t *kind;                 /* per item: C_* (C_WAIT for a waiting task) */
	int64_t *first, *last;         /* per step: its attributed device work's first start, last end */
	double *attr_ns;               /* per step: that work's time */
	struct win *win;
	size_t n_win;
};

void opmfu_steps_init(struct opmfu_steps *res)
{
	memset(res, 0, sizeof(*res));
	res->median = SIZE_MAX;
	res->step_ns_median = res->trace_mfu = -1;
}

void opmfu_steps_release(struct opmfu_steps *res)
{
	opmfu_free(res->v);
	opmfu_free(res->exposed);
	opmfu_steps_init(res);
}

/*
 * Words that name GEMM, convolution or attention work in kernel and op
 * names (cuBLAS, cuBLASLt, CUTLASS, rocBLAS/Tensile "Cijk_", hipBLASLt,
 * cuDNN, MIOpen, flash attention, torch ops, Ascend op types), matched
 * without case. A match only says the FLOPs are missing for work that has
 * them, not that it is slow. The cuDNN pass names (fprop, dgrad, wgrad)
 * count only as a word of their own, after a non-alphanumeric byte or at the
 * start: "AdaptiveAvgPool3dGrad" is a pooling gradient.
 */
static const struct {
	const char *w;
	int word; /* must not follow a letter or digit */
} matmul_words[] = {
	{ "gemm", 0 },	      { "matmul", 0 },	    { "cublas", 0 },	{ "cutlass", 0 },     { "xmma", 0 },
	{ "nvjet", 0 },	      { "cijk_", 0 },	    { "linear", 0 },	{ "addmm", 0 },	      { "bmm", 0 },
	{ "aten::mm", 0 },    { "convolution", 0 }, { "convolve", 0 },	{ "conv1d", 0 },      { "conv2d", 0 },
	{ "conv3d", 0 },      { "conv_fwd", 0 },    { "conv_bwd", 0 },	{ "conv_wrw", 0 },    { "fprop", 1 },
	{ "dgrad", 1 },	      { "wgrad", 1 },	    { "flash", 0 },	{ "fmha", 0 },	      { "attention", 0 },
	{ "sdpa", 0 },	      { "_attn", 0 },
};

int opmfu_matmul_name(const char *s, size_t n)
{
	char low[256];
	size_t i, k, m = n < sizeof(low) - 1 ? n : sizeof(low) - 1;
	/* the words are in a name's first 255 bytes; template arguments come after them */
	for (i = 0; i < m; i++)
		low[i] = (char)tolower((unsigned char)s[i]);
	low[m] = 0;
	for (k = 0; k < sizeof(matmul_words) / sizeof(matmul_words[0]); k++) {
		const char *p = low;
		while ((p = strstr(p, matmul_words[k].w)) != NULL) {
			if (!matmul_words[k].word || p == low || !isalnum((unsigned char)p[-1]))
				return 1;
			p++;
		}
	}
	return 0;
}

static int mm_sid(struct build *b, uint32_t sid)
{
	if (!sid || sid >= b->t->strs.n)
		return 0;
	if (!b->mm[sid])
		b->mm[sid] = opmfu_matmul_name(opmfu_strtab_str(&b->t->strs, sid), opmfu_strtab_len(&b->t->strs, sid))
				     ? 2
				     : 1;
	return b->mm[sid] == 2;
}

/* The span of an item. */
static void item_span(const struct build *b, uint32_t item, int64_t *start, int64_t *end)
{
	const struct opmfu_trace *t = b->t;
	const struct opmfu_range *r;
	if (item < b->off_k) {
		*start = t->links[item].k_start;
		*end = t->links[item].k_end;
		return;
	}
	r = item < b->off_c   ? &t->kernels.v[item - b->off_k]
	    : item < b->off_m ? &t->comm.v[item - b->off_c]
	    : item < b->off_w ? &t->memcpy.v[item - b->off_m]
			      : &t->waits.v[item - b->off_w];
	*start = r->start;
	*end = r->end;
}

static int64_t item_start(const struct build *b, uint32_t item)
{
	int64_t s, e;
	item_span(b, item, &s, &e);
	return s;
}

static int64_t item_end(const struct build *b, uint32_t item)
{
	int64_t s, e;
	item_span(b, item, &s, &e);
	return e;
}

/* Items come in increasing order: the lists start in item order. */
static void add_ev(struct build *b, int64_t start, int64_t end, uint32_t item, int kind)
{
	if (end <= start)
		return; /* takes no time */
	b->kind[item] = (uint8_t)kind;
	b->by_start[b->n_iv++] = item;
}

/* When an item's work was launched; OPMFU_NO_LAUNCH: unknown. */
static int64_t launch_of(const struct build *b, uint32_t item)
{
	const struct opmfu_trace *t = b->t;
	if (item < b->off_k)
		return t->launch ? t->launch[item] : t->links[item].op_start;
	if (item < b->off_c)
		return t->kernels.v[item - b->off_k].value;
	if (item < b->off_m)
		return t->comm.v[item - b->off_c].value;
	if (item < b->off_w)
		return t->memcpy.v[item - b->off_m].value;
	return OPMFU_NO_LAUNCH; /* a waiting task is inside its collective, which has the launch */
}

/* A unit's kernels count as FLOP compute when it has FLOPs and a peak (or
 * the rank has no peak at all: then FLOPs alone). */
static int flop_unit(const struct opmfu_ops *ops, const struct opmfu_unit *u, int any_peak)
{
	return u->src >= 0 && (!any_peak || opmfu_unit_peak(ops, u) > 0);
}

/* A unit without FLOPs whose bytes are known, on a chip with a bandwidth:
 * memory-bound work (SPEC 18) */
static int mem_unit(const struct opmfu_ops *ops, const struct opmfu_unit *u)
{
	return u->src < 0 && u->bytes > 0 && ops->pk->bw > 0;
}

/* Every device interval as two events, and each step's attributed work:
 * the links whose op starts in the step's host span (the step that
 * launched them, wherever they ran). */
static int collect(struct build *b)
{
	const struct opmfu_trace *t = b->t;
	int peaks = opmfu_rank_any_peak(b->ops->pk);
	size_t i;

	/* room for every interval at once, not doubling */
	if (!(b->by_start = opmfu_malloc((b->off_w + t->waits.n + 1) * sizeof(*b->by_start))) ||
	    !(b->kind = opmfu_malloc(b->off_w + t->waits.n + 1)))
		return -1;

	for (i = 0; i < t->n_links; i++) {
		const struct opmfu_link *l = &t->links[i];
		int kind = C_COMM;
		if (i < t->n_compute) {
			uint32_t u = b->ops->op_unit ? b->ops->op_unit[l->op] : OPMFU_UNIT_NONE;
			if (u != OPMFU_UNIT_NONE && flop_unit(b->ops, &b->ops->v[u], peaks))
				kind = C_FLOPS;
			else if (mm_sid(b, l->k_name) || mm_sid(b, l->op_name))
				kind = C_MATMUL;
			else
				kind = u != OPMFU_UNIT_NONE && mem_unit(b->ops, &b->ops->v[u]) ? C_MEMBOUND : C_OTHER;
		}
		if (b->n_steps && l->k_end > l->k_start) {
			int64_t s = opmfu_step_at(&t->steps, l->op_start);
			if (s != OPMFU_NO_STEP) {
				if (l->k_start < b->first[s])
					b->first[s] = l->k_start;
				if (l->k_end > b->last[s])
					b->last[s] = l->k_end;
				b->attr_ns[s] += (double)(l->k_end - l->k_start);
			}
		}
		/* a collective's whole span stands for its tasks only when the trace has no tasks */
		if (kind == C_COMM && t->comm_from_tasks)
			continue;
		add_ev(b, l->k_start, l->k_end, (uint32_t)i, kind);
	}
	for (i = 0; i < t->kernels.n; i++) {
		const struct opmfu_range *r = &t->kernels.v[i];
		add_ev(b, r->start, r->end, (uint32_t)(b->off_k + i), mm_sid(b, r->name) ? C_MATMUL : C_OTHER);
	}
	for (i = 0; i < t->comm.n; i++)
		add_ev(b, t->comm.v[i].start, t->comm.v[i].end, (uint32_t)(b->off_c + i), C_COMM);
	for (i = 0; i < t->memcpy.n; i++)
		add_ev(b, t->memcpy.v[i].start, t->memcpy.v[i].end, (uint32_t)(b->off_m + i), C_COPY);
	for (i = 0; i < t->waits.n; i++)
		add_ev(b, t->waits.v[i].start, t->waits.v[i].end, (uint32_t)(b->off_w + i), C_WAIT);
	return 0;
}

/* Stable sorts from item order: ties stay by item. */
static int by_start(const void *ctx, uint32_t a, uint32_t b)
{
	return item_start(ctx, a) < item_start(ctx, b);
}

static int by_end(const void *ctx, uint32_t a, uint32_t b)
{
	return item_end(ctx, a) < item_end(ctx, b);
}

/* The intervals by start and by end. The sweep merges the two, ends before
 * starts at the same time (touching intervals do not overlap): the order
 * (time, end before start, item). */
static int sort_ends(struct build *b)
{
	if (!(b->by_end = opmfu_malloc((b->n_iv + 1) * sizeof(*b->by_end))))
		return -1;
	memcpy(b->by_end, b->by_start, b->n_iv * sizeof(*b->by_end));
	return opmfu_sort_idx(b->by_start, b->n_iv, by_start, b) || opmfu_sort_idx(b->by_end, b->n_iv, by_end, b);
}

/* ---- windows ---- */

static int by_value(const void *ctx, uint32_t a, uint32_t b)
{
	const struct opmfu_range *v = ctx;
	return v[a].value != v[b].value ? v[a].value < v[b].value : a < b;
}

/* The device-side annotation of each step (or NULL), when they are
 * consistent with the kernels: every step with work has one, they come in
 * step order without overlapping, and each holds at least half of its
 * step's attributed kernel time. 1: they are (dev[] filled), 0: not, -1:
 * out of memory. */
static int device_windows(struct build *b, const struct opmfu_range **dev)
{
	const struct opmfu_trace *t = b->t;
	const struct opmfu_ranges *ds = &t->devsteps;
	uint32_t *ord;
	double *in;
	size_t i, j = 0;
	int64_t prev_end = INT64_MIN;
	int ok = 1;

	if (!ds->n)
		return 0;
	ord = opmfu_malloc(ds->n * sizeof(*ord));
	in = opmfu_calloc(b->n_steps, sizeof(*in));
	if (!ord || !in) {
		opmfu_free(ord);
		opmfu_free(in);
		return -1;
	}
	for (i = 0; i < ds->n; i++)
		ord[i] = (uint32_t)i;
	if (opmfu_sort_idx(ord, ds->n, by_value, ds->v)) {
		ok = -1;
		goto out;
	}
	for (i = 0; i < b->n_steps; i++) { /* t->steps are in start order, so in step order */
		int64_t n = t->steps.v[i].value;
		while (j < ds->n && ds->v[ord[j]].value < n)
			j++;
		dev[i] = j < ds->n && ds->v[ord[j]].value == n ? &ds->v[ord[j]] : NULL;
		if (!dev[i]) {
			if (b->first[i] != INT64_MAX)
				ok = 0;
			continue;
		}
		if (dev[i]->start < prev_end || dev[i]->end < dev[i]->start)
			ok = 0;
		prev_end = dev[i]->end;
	}
	for (i = 0; ok && i < t->n_links; i++) {
		const struct opmfu_link *l = &t->links[i];
		int64_t s = opmfu_step_at(&t->steps, l->op_start), lo, hi;
		if (s == OPMFU_NO_STEP || !dev[s])
			continue;
		lo = l->k_start > dev[s]->start ? l->k_start : dev[s]->start;
		hi = l->k_end < dev[s]->end ? l->k_end : dev[s]->end;
		if (hi > lo)
			in[s] += (double)(hi - lo);
	}
	for (i = 0; ok && i < b->n_steps; i++)
		if (b->attr_ns[i] > 0 && in[i] < 0.5 * b->attr_ns[i])
			ok = 0;
out:
	opmfu_free(ord);
	opmfu_free(in);
	return ok;
}

/* The steps' windows from the device's annotations or, failing them, from
 * each step's first attributed device work to the next step's (the last
 * step to its last work); steps without work get an empty window where
 * the next begins. Windows never overlap. */
static int step_windows(struct build *b)
{
	struct opmfu_steps *res = b->res;
	const struct opmfu_trace *t = b->t;
	const struct opmfu_range **dev = opmfu_calloc(b->n_steps, sizeof(*dev));
	size_t i, n = b->n_steps, last_work = SIZE_MAX;
	int64_t next = INT64_MAX, prev = INT64_MIN;
	int d;

	if (!dev)
		return -1;
	for (i = 0; i < n; i++)
		if (b->first[i] != INT64_MAX)
			last_work = i;
	if ((d = device_windows(b, dev)) < 0) {
		opmfu_free(dev);
		return -1;
	}
	res->from_device = d;
	if (d) {
		for (i = 0; i < n; i++) {
			struct opmfu_step_row *s = &res->v[i];
			if (dev[i]) {
				s->start = dev[i]->start;
				s->end = dev[i]->end;
			} else {
				s->start = s->end = prev == INT64_MIN ? t->steps.v[i].start : prev;
			}
			prev = s->end;
		}
	} else if (last_work == SIZE_MAX) {
		/* no device work is any step's: the host's spans, made not to overlap */
		for (i = 0; i < n; i++) {
			struct opmfu_step_row *s = &res->v[i];
			s->start = t->steps.v[i].start > prev ? t->steps.v[i].start : prev;
			s->end = t->steps.v[i].end > s->start ? t->steps.v[i].end : s->start;
			if (!b->n_iv)
				s->end = s->start; /* nothing ran at all */
			prev = s->end;
		}
	} else {
		/* starts: a step's first work, or the next step's when it has none, never before the previous */
		for (i = n; i-- > 0;) {
			if (b->first[i] != INT64_MAX)
				next = b->first[i];
			res->v[i].start = next;
		}
		for (i = 0; i < n; i++) {
			if (res->v[i].start == INT64_MAX || res->v[i].start < prev)
				res->v[i].start = prev == INT64_MIN ? res->v[i].start : prev;
			if (res->v[i].start != INT64_MAX)
				prev = res->v[i].start;
		}
		for (i = 0; i < n; i++) {
			struct opmfu_step_row *s = &res->v[i];
			if (s->start == INT64_MAX) /* after the last step with work */
				s->start = res->v[last_work].end;
			if (i < last_work)
				s->end = res->v[i + 1].start;
			else if (i == last_work)
				s->end = b->last[i] > s->start ? b->last[i] : s->start;
			else
				s->end = s->start;
		}
	}
	opmfu_free(dev);
	return 0;
}

/* Work that ran before the first step's window and that the trace never
 * launched (queued before profiling began) opens the backlog: the row from
 * its first start to the first window. Only traces with launch times tell. */
static void backlog(struct build *b)
{
	struct opmfu_steps *res = b->res;
	const struct opmfu_trace *t = b->t;
	const struct opmfu_ranges *kinds[3] = { &t->kernels, &t->comm, &t->memcpy };
	int64_t w0 = INT64_MAX, b0 = INT64_MAX;
	size_t i, k;

	for (i = 0; i < res->n_steps; i++)
		if (res->v[i].end > res->v[i].start) {
			w0 = res->v[i].start;
			break;
		}
	if (!t->launch || w0 == INT64_MAX)
		return;
	for (k = 0; k < 3; k++)
		for (i = 0; i < kinds[k]->n; i++) {
			const struct opmfu_range *r = &kinds[k]->v[i];
			if (r->value == OPMFU_NO_LAUNCH && r->end > r->start && r->start < w0 && r->start < b0)
				b0 = r->start;
		}
	if (b0 == INT64_MAX)
		return;
	res->v[res->n].kind = OPMFU_WINDOW_BACKLOG;
	res->v[res->n].step = OPMFU_NO_STEP;
	res->v[res->n].start = b0;
	res->v[res->n].end = w0;
	res->n++;
}

static int win_before(const void *pa, const void *pb)
{
	const struct win *a = pa, *b = pb;
	return a->start < b->start;
}

/* The non-empty windows in time order. */
static int list_windows(struct build *b)
{
	size_t i;
	if (!(b->win = opmfu_malloc((b->res->n + 1) * sizeof(*b->win))))
		return -1;
	for (i = 0; i < b->res->n; i++)
		if (b->res->v[i].end > b->res->v[i].start)
			b->win[b->n_win++] = (struct win){ b->res->v[i].start, b->res->v[i].end, i };
	return opmfu_sort_array(b->win, b->n_win, sizeof(*b->win), win_before);
}

/* ---- the sweep ---- */

/* Adds [a, z) of category c (and of category beside, when >= 0) to the
 * windows it meets, from *w on; returns how much of it they hold. */
static int64_t put(struct build *b, size_t *w, int64_t a, int64_t z, int c, int beside)
{
	int64_t held = 0;
	size_t j;
	while (*w < b->n_win && b->win[*w].end <= a)
		(*w)++;
	for (j = *w; j < b->n_win && b->win[j].start < z; j++) {
		int64_t lo = a > b->win[j].start ? a : b->win[j].start, hi = z < b->win[j].end ? z : b->win[j].end;
		struct opmfu_step_row *s = &b->res->v[b->win[j].row];
		if (hi <= lo)
			continue;
		s->ns[c] = opmfu_sat_add(s->ns[c], hi - lo);
		if (beside >= 0)
			s->ns[beside] = opmfu_sat_add(s->ns[beside], hi - lo);
		held = opmfu_sat_add(held, hi - lo);
	}
	return held;
}

/* A gap from g0 is the host's when the work that ends it was launched
 * after g0 (the earliest launch among what starts at t: by_start[i ..),
 * the first interval not started yet, on). */
static int host_late(const struct build *b, size_t i, int64_t t, int64_t g0)
{
	int64_t first = OPMFU_NO_LAUNCH;
	for (; i < b->n_iv && item_start(b, b->by_start[i]) == t; i++) {
		int64_t l = launch_of(b, b->by_start[i]);
		if (l != OPMFU_NO_LAUNCH && (first == OPMFU_NO_LAUNCH || l < first))
			first = l;
	}
	return first != OPMFU_NO_LAUNCH && first > g0;
}

/* [a, z) was exposed communication (joined to the last interval when they touch). */
static int exposed(struct opmfu_steps *res, int64_t a, int64_t z)
{
	if (res->n_exposed && res->exposed[res->n_exposed - 1].end == a) {
		res->exposed[res->n_exposed - 1].end = z;
		return 0;
	}
	if (OPMFU_GROW(res->exposed, res->cap_exposed, res->n_exposed + 1))
		return -1;
	res->exposed[res->n_exposed].start = a;
	res->exposed[res->n_exposed++].end = z;
	return 0;
}

static int sweep(struct build *b)
{
	int count[C_N + 1] = { 0 }, active = 0; /* intervals open, by kind (and waits) and in all */
	size_t is = 0, ie = 0, w = 0, n = b->n_iv;
	int64_t prev, gap0 = INT64_MIN;

	if (!b->n_win)
		return 0;
	prev = n && item_start(b, b->by_start[0]) < b->win[0].start ? item_start(b, b->by_start[0]) : b->win[0].start;
	/* every interval starts before it ends: the ends are the last to run out */
	while (ie < n) {
		int64_t te = item_end(b, b->by_end[ie]), ts = is < n ? item_start(b, b->by_start[is]) : INT64_MAX;
		int end = is == n || te <= ts, delta = end ? -1 : 1;
		int64_t t = end ? te : ts;
		int kind = b->kind[end ? b->by_end[ie++] : b->by_start[is++]];
		if (t > prev) {
			int c;
			if (active) {
				int compute = count[C_FLOPS] + count[C_MATMUL] + count[C_MEMBOUND] + count[C_OTHER] > 0;
				c = count[C_FLOPS]	? OPMFU_T_FLOPS
				    : count[C_MATMUL]	? OPMFU_T_MATMUL
				    : count[C_MEMBOUND] ? OPMFU_T_MEMBOUND
				    : count[C_OTHER]	? OPMFU_T_OTHER
				    : count[C_COMM]	? OPMFU_T_COMM
							: OPMFU_T_COPY;
				int beside = compute && count[C_COMM]			 ? OPMFU_T_COMM_OVERLAP
					     : c == OPMFU_T_COMM && count[C_WAIT] > 0 ? OPMFU_T_COMM_WAIT
										  : -1;
				b->res->outside_ns =
					opmfu_sat_add(b->res->outside_ns, (t - prev) - put(b, &w, prev, t, c, beside));
				if (c == OPMFU_T_COMM && exposed(b->res, prev, t))
					return -1;
			} else {
				/* this event is taken: a start is at is - 1, else the starts at t begin at is */
				int late = gap0 != INT64_MIN && host_late(b, end ? is : is - 1, t, gap0);
				c = late ? OPMFU_T_IDLE_HOST : OPMFU_T_IDLE;
				put(b, &w, prev, t, c, -1);
			}
			prev = t;
		}
		count[kind] += delta;
		if (kind != C_WAIT)
			active += delta;
		if (!active)
			gap0 = t; /* a gap begins */
	}
	if (b->win[b->n_win - 1].end > prev)
		put(b, &w, prev, b->win[b->n_win - 1].end, OPMFU_T_IDLE, -1);
	return 0;
}

/* Steps whose attributed work ends after the next non-empty window began:
 * how many, and the first few by step order. */
static void spills(struct build *b)
{
	struct opmfu_steps *res = b->res;
	const size_t keep = sizeof(res->spill_step) / sizeof(res->spill_step[0]);
	int64_t next = INT64_MAX;
	size_t i;
	for (i = res->n_steps; i-- > 0;) {
		const struct opmfu_step_row *s = &res->v[i];
		if (b->last[i] != INT64_MIN && next != INT64_MAX && b->last[i] > next) {
			/* going backwards: the latest found is the earliest step */
			memmove(res->spill_step + 1, res->spill_step, (keep - 1) * sizeof(res->spill_step[0]));
			res->spill_step[0] = s->step;
			res->n_spill++;
		}
		if (s->end > s->start)
			next = s->start;
	}
}

/* FLOPs and capacity of the units, by the step of their (first) op. */
static void add_units(const struct build *b, struct opmfu_steps *res)
{
	const struct opmfu_ops *ops = b->ops;
	size_t i;

	for (i = 0; i < ops->n; i++) {
		const struct opmfu_unit *u = &ops->v[i];
		struct opmfu_step_row *s;
		double peak = opmfu_unit_peak(ops, u);
		if (b->n_steps && (u->step == OPMFU_NO_STEP || (size_t)u->step >= res->n_steps))
			continue;
		s = &res->v[b->n_steps ? (size_t)u->step : 0];
		if (mem_unit(ops, u)) {
			s->mb_roof_ns += (double)u->bytes / ops->pk->bw * 1e9;
			s->mb_unit_ns += (double)u->kernel_ns;
		}
		if (u->src < 0)
			continue;
		s->flops = opmfu_sat_add(s->flops, u->flops);
		if (u->src == OPMFU_FLOPS_RECORD)
			s->flops_record = opmfu_sat_add(s->flops_record, u->flops);
		else
			s->flops_shape = opmfu_sat_add(s->flops_shape, u->flops);
		if (peak > 0) {
			s->flops_peaked += (double)u->flops;
			s->cap += (double)u->kernel_ns * 1e-9 * peak;
			s->unit_ns += (double)u->kernel_ns;
		}
	}
}

int64_t opmfu_step_window(const struct opmfu_step_row *s)
{
	return s->end - s->start;
}

double opmfu_step_peak(const struct opmfu_step_row *s)
{
	return s->unit_ns > 0 ? s->cap / (s->unit_ns * 1e-9) : 0;
}

double opmfu_step_trace_mfu(const struct opmfu_step_row *s)
{
	double peak = opmfu_step_peak(s);
	int64_t w = opmfu_step_window(s);
	return peak > 0 && w > 0 ? s->flops_peaked / ((double)w * 1e-9 * peak) : -1;
}

double opmfu_step_share(const struct opmfu_step_row *s, enum opmfu_tcat c)
{
	int64_t w = opmfu_step_window(s);
	return w > 0 ? (double)s->ns[c] / (double)w : -1;
}

double opmfu_step_mb_eff(const struct opmfu_step_row *s)
{
	return s->mb_unit_ns > 0 ? s->mb_roof_ns / s->mb_unit_ns : -1;
}

void opmfu_step_shares(const struct opmfu_step_row *s, double shares[4])
{
	double w = (double)opmfu_step_window(s), mfu = opmfu_step_trace_mfu(s);
	const int64_t *ns = s->ns;
	shares[0] = w > 0 ? (double)opmfu_sat_add(ns[OPMFU_T_IDLE], ns[OPMFU_T_IDLE_HOST]) / w : -1;
	shares[1] = w > 0 ? (double)ns[OPMFU_T_COMM] / w : -1;
	shares[2] = w > 0 ? (double)opmfu_sat_add(opmfu_sat_add(opmfu_sat_add(ns[OPMFU_T_MATMUL], ns[OPMFU_T_MEMBOUND]),
								   ns[OPMFU_T_OTHER]),
						    ns[OPMFU_T_COPY]) /
				    w
			  : -1;
	/* what the FLOP-bearing kernels' time holds beyond the trace MFU */
	shares[3] = w > 0 && mfu >= 0 ? (double)ns[OPMFU_T_FLOPS] / w - mfu : 0;
}

/* The rank's median step (by window, then step number: analyze/account.h)
 * and its trace MFU over all steps. */
static int sum_up(struct opmfu_steps *res)
{
	size_t n = res->n_steps ? res->n_steps : 1, i;
	double *w = opmfu_malloc((n + 1) * sizeof(*w)), *num = opmfu_malloc((n + 1) * sizeof(*num));
	double flops = 0, cap = 0;
	int nomem = 0;

	if (!w || !num) {
		opmfu_free(w);
		opmfu_free(num);
		return -1;
	}
	for (i = 0; i < n; i++) {
		const struct opmfu_step_row *s = &res->v[i];
		double peak = opmfu_step_peak(s);
		w[i] = opmfu_step_window(s) > 0 ? (double)opmfu_step_window(s) : NAN;
		num[i] = (double)s->step;
		if (opmfu_step_window(s) > 0 && peak > 0) {
			flops += s->flops_peaked;
			cap += (double)opmfu_step_window(s) * 1e-9 * peak;
		}
	}
	res->median = opmfu_median_index(w, num, n, &nomem);
	if (res->median != SIZE_MAX)
		res->step_ns_median = w[res->median];
	res->trace_mfu = cap > 0 ? flops / cap : -1;
	opmfu_free(w);
	opmfu_free(num);
	return nomem;
}

static int prepare(struct build *b, const struct opmfu_ops *ops, struct opmfu_steps *res)
{
	const struct opmfu_trace *t = ops->t;
	size_t i, n;

	b->ops = ops;
	b->t = t;
	b->res = res;
	b->n_steps = t->steps.n;
	b->off_k = t->n_links;
	b->off_c = b->off_k + t->kernels.n;
	b->off_m = b->off_c + t->comm.n;
	b->off_w = b->off_m + t->memcpy.n;
	if (b->off_w + t->waits.n >= UINT32_MAX)
		return -1;
	res->ops = ops;
	res->wait_known = t->waits.n > 0;
	res->n_steps = b->n_steps;
	n = b->n_steps ? b->n_steps : 1;
	res->n = n;
	for (i = 0; i < sizeof(res->spill_step) / sizeof(res->spill_step[0]); i++)
		res->spill_step[i] = OPMFU_NO_STEP;
	/* room for the backlog row */
	if (!(res->v = opmfu_calloc(n + 1, sizeof(*res->v))) || !(b->mm = opmfu_calloc(t->strs.n + 1, 1)) ||
	    !(b->first = opmfu_malloc(n * sizeof(*b->first))) || !(b->last = opmfu_malloc(n * sizeof(*b->last))) ||
	    !(b->attr_ns = opmfu_calloc(n, sizeof(*b->attr_ns))))
		return -1;
	for (i = 0; i < n; i++) {
		struct opmfu_step_row *s = &res->v[i];
		b->first[i] = INT64_MAX;
		b->last[i] = INT64_MIN;
		s->kind = b->n_steps ? OPMFU_WINDOW_STEP : OPMFU_WINDOW_TRACE;
		s->step = b->n_steps ? t->steps.v[i].value : OPMFU_NO_STEP;
		if (b->n_steps) {
			s->host_start = t->steps.v[i].start;
			s->host_end = t->steps.v[i].end;
		}
	}
	return 0;
}

enum opmfu_status opmfu_steps_run(const struct opmfu_ops *ops, struct opmfu_steps *res, struct opmfu_err *err)
{
	struct build b;
	int rc = -1;

	memset(&b, 0, sizeof(b));
	if (prepare(&b, ops, res) || collect(&b) || sort_ends(&b))
		goto out;
	if (b.n_steps) {
		if (step_windows(&b))
			goto out;
		backlog(&b);
	} else if (b.n_iv) {
		/* the first start and the last end */
		res->v[0].start = item_start(&b, b.by_start[0]);
		res->v[0].end = item_end(&b, b.by_end[b.n_iv - 1]);
	}
	if (list_windows(&b))
		goto out;
	if (sweep(&b))
		goto out;
	spills(&b);
	add_units(&b, res);
	rc = sum_up(res);
out:
	opmfu_free(b.by_start);
	opmfu_free(b.by_end);
	opmfu_free(b.kind);
	opmfu_free(b.mm);
	opmfu_free(b.first);
	opmfu_free(b.last);
	opmfu_free(b.attr_ns);
	opmfu_free(b.win);
	if (rc) {
		opmfu_steps_release(res);
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory computing the steps");
	}
	return OPMFU_OK;
}
