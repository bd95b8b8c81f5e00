/*
 * filter.c - `--steps` and `--time-range` over a rank's trace (SPEC 22;
 * docs/architecture.md, "Filters"). Each filter is a pass that decides
 * three things, then one compaction applies them to every part of the trace:
 *   - which op instances are kept (whole: every link of an op, so a FLOPs
 *     record or shape is never charged to part of its kernels);
 *   - a set of host spans: module calls and FLOPs records overlapping it are
 *     kept, and so are device ranges whose launch time lies in it (--steps);
 *   - a set of device spans: collective calls, device step marks (--time-range)
 *     and device ranges without a launch time overlapping it are kept.
 * A wait follows its collective call. Everything kept stays in its order.
 */
#include "trace/filter.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/lbound.h"
#include "base/mem.h"
#include "base/sbuf.h"
#include "base/sat.h"
#include "base/sort.h"

struct span {
	int64_t a, z; /* [a, z) */
};

/* Disjoint spans in time order (so their ends are in order too). */
struct spans {
	struct span *v;
	size_t n;
};

static int span_less(const void *pa, const void *pb)
{
	return ((const struct span *)pa)->a < ((const struct span *)pb)->a;
}

/* Sorts s and joins the spans that overlap or touch. */
static int spans_norm(struct spans *s)
{
	size_t i, k = 0;
	if (opmfu_sort_array(s->v, s->n, sizeof(*s->v), span_less))
		return -1;
	for (i = 0; i < s->n; i++) {
		if (k && s->v[i].a <= s->v[k - 1].z) {
			if (s->v[i].z > s->v[k - 1].z)
				s->v[k - 1].z = s->v[i].z;
		} else {
			s->v[k++] = s->v[i];
		}
	}
	s->n = k;
	return 0;
}

static int ends_before(const void *ctx, size_t i, const void *key)
{
	return ((const struct span *)ctx)[i].z <= *(const int64_t *)key;
}

/* Whether [a, z) overlaps s; an empty item (z <= a) is a point at a. */
static int spans_hit(const struct spans *s, int64_t a, int64_t z)
{
	size_t i = opmfu_lbound(0, s->n, ends_before, s->v, &a);
	if (i == s->n)
		return 0;
	return z > a ? s->v[i].a < z : s->v[i].a <= a;
}

/* What one pass decided (the top of this file). */
struct pass {
	unsigned char *keep_op; /* [n_op] */
	size_t n_op;
	struct spans host, dev;
	int by_launch;             /* device ranges with a launch time go by it (host), not by their span */
	const unsigned char *keep_step; /* [t->steps.n], --steps; NULL: steps overlapping host */
	const int *nums;           /* --steps: the numbers, sorted; devsteps by them */
	size_t n_nums;
};

static int int_less(const void *a, const void *b)
{
	return *(const int *)a < *(const int *)b;
}

static int int_before(const void *ctx, size_t i, const void *key)
{
	return ((const int *)ctx)[i] < *(const int *)key;
}

static int has_num(const struct pass *p, int64_t v)
{
	int k = (int)v;
	size_t i;
	if (v < INT32_MIN || v > INT32_MAX)
		return 0;
	i = opmfu_lbound(0, p->n_nums, int_before, p->nums, &k);
	return i < p->n_nums && p->nums[i] == k;
}

/* Keeps the ranges of rs that keep() says, in order; returns how many went. */
static size_t keep_ranges(struct opmfu_ranges *rs, const struct pass *p,
			  int (*keep)(const struct pass *p, const struct opmfu_range *r))
{
	size_t i, k = 0;
	for (i = 0; i < rs->n; i++)
		if (keep(p, &rs->v[i]))
			rs->v[k++] = rs->v[i];
	i = rs->n - k;
	rs->n = k;
	return i;
}

static int keep_host(const struct pass *p, const struct opmfu_range *r)
{
	return spans_hit(&p->host, r->start, r->end);
}

static int keep_devstep(const struct pass *p, const struct opmfu_range *r)
{
	return p->nums ? has_num(p, r->value) : spans_hit(&p->dev, r->start, r->end);
}

/* KERNEL, COMM, MEMCPY: value is the launch time */
static int keep_device(const struct pass *p, const struct opmfu_range *r)
{
	if (p->by_launch && r->value != OPMFU_NO_LAUNCH)
		return spans_hit(&p->host, r->value, r->value);
	return spans_hit(&p->dev, r->start, r->end);
}

/* What p decided, applied to t. Allocates first: on NOMEM t is unchanged. */
static int apply(struct opmfu_trace *t, const struct pass *p)
{
	uint32_t *op_map = opmfu_malloc((p->n_op ? p->n_op : 1) * sizeof(*op_map));
	uint32_t *coll_map = opmfu_malloc((t->colls.n ? t->colls.n : 1) * sizeof(*coll_map));
	size_t i, k = 0, n_ops = 0, sec[3] = { 0, 0, 0 }, recs_gone, n_colls;

	if (!op_map || !coll_map) {
		opmfu_free(op_map);
		opmfu_free(coll_map);
		return -1;
	}
	for (i = 0; i < p->n_op; i++)
		op_map[i] = p->keep_op[i] ? (uint32_t)n_ops++ : UINT32_MAX;
	for (i = 0; i < t->n_links; i++) {
		const struct opmfu_link *l = &t->links[i];
		size_t s = i < t->n_compute ? 0 : i < t->n_compute + t->n_comm_op ? 1 : 2;
		if (op_map[l->op] == UINT32_MAX)
			continue;
		if (t->kx && s == 0)
			t->kx[k] = t->kx[i];
		if (t->launch)
			t->launch[k] = t->launch[i];
		t->links[k] = *l;
		t->links[k++].op = op_map[l->op];
		sec[s]++;
	}
	t->n_links = k;
	t->n_compute = sec[0];
	t->n_comm_op = sec[1];
	t->n_comm_sched = sec[2];
	t->n_ops = n_ops;

	keep_ranges(&t->mods, p, keep_host);
	recs_gone = keep_ranges(&t->recs, p, keep_host);
	/* the records are the read ones less those the filter dropped (the read-time drops stay counted) */
	t->n_recs_read = t->n_recs_read > recs_gone ? t->n_recs_read - recs_gone : 0;
	if (p->keep_step) {
		for (i = 0, k = 0; i < t->steps.n; i++)
			if (p->keep_step[i])
				t->steps.v[k++] = t->steps.v[i];
		t->steps.n = k;
	} else {
		keep_ranges(&t->steps, p, keep_host);
	}
	keep_ranges(&t->devsteps, p, keep_devstep);
	keep_ranges(&t->kernels, p, keep_device);
	keep_ranges(&t->comm, p, keep_device);
	keep_ranges(&t->memcpy, p, keep_device);

	n_colls = t->colls.n;
	for (i = 0, k = 0; i < n_colls; i++) {
		coll_map[i] = UINT32_MAX;
		if (spans_hit(&p->dev, t->colls.v[i].start, t->colls.v[i].end)) {
			coll_map[i] = (uint32_t)k;
			t->colls.v[k++] = t->colls.v[i];
		}
	}
	t->colls.n = k;
	/* a wait is its call's: value is the call's index */
	for (i = 0, k = 0; i < t->waits.n; i++) {
		int64_t c = t->waits.v[i].value;
		if (c < 0 || (uint64_t)c >= (uint64_t)n_colls || coll_map[c] == UINT32_MAX)
			continue;
		t->waits.v[k] = t->waits.v[i];
		t->waits.v[k++].value = coll_map[c];
	}
	t->waits.n = k;
	opmfu_free(op_map);
	opmfu_free(coll_map);
	return 0;
}

static void pass_release(struct pass *p)
{
	opmfu_free(p->keep_op);
	opmfu_free(p->host.v);
	opmfu_free(p->dev.v);
}

/* The op ids in use: t->n_ops, or more if a link says so. */
static size_t op_count(const struct opmfu_trace *t)
{
	size_t i, n = t->n_ops;
	for (i = 0; i < t->n_links; i++)
		if ((size_t)t->links[i].op + 1 > n)
			n = (size_t)t->links[i].op + 1;
	return n;
}

static int pass_init(struct pass *p, const struct opmfu_trace *t, size_t n_host, size_t n_dev)
{
	memset(p, 0, sizeof(*p));
	p->n_op = op_count(t);
	p->keep_op = opmfu_calloc(p->n_op ? p->n_op : 1, 1);
	p->host.v = opmfu_malloc((n_host ? n_host : 1) * sizeof(*p->host.v));
	p->dev.v = opmfu_malloc((n_dev ? n_dev : 1) * sizeof(*p->dev.v));
	return p->keep_op && p->host.v && p->dev.v ? 0 : -1;
}

static int start_before(const void *ctx, size_t i, const void *key)
{
	return ((const struct opmfu_range *)ctx)[i].start <= *(const int64_t *)key;
}

/* The index of the step whose host span holds ts (the last starting at or
 * before it: analyze/ops.c's opmfu_step_at, the step OpmfuSteps charges a
 * link to); SIZE_MAX: none. */
static size_t step_of(const struct opmfu_ranges *steps, int64_t ts)
{
	size_t i = opmfu_lbound(0, steps->n, start_before, steps->v, &ts);
	return i == 0 || ts >= steps->v[i - 1].end ? SIZE_MAX : i - 1;
}

/* Nothing on the device: no link and no device range. */
static int no_work(const struct opmfu_trace *t)
{
	return !t->n_links && !t->kernels.n && !t->comm.n && !t->memcpy.n;
}

/*
 * --steps: the steps of those numbers; the ops that start in their host
 * spans (the step that launched them); host spans: theirs; device spans:
 * their device step marks and, per step, its kept ops' kernels from the
 * first start to the last end; device ranges by launch time when known.
 */
static enum opmfu_status steps_pass(struct opmfu_trace *t, const struct opmfu_filter *f, struct opmfu_err *err)
{
	struct pass p;
	int *nums = opmfu_malloc(f->n_steps * sizeof(*nums));
	unsigned char *keep_step = opmfu_calloc(t->steps.n ? t->steps.n : 1, 1);
	int64_t *lo = opmfu_malloc((t->steps.n ? t->steps.n : 1) * sizeof(*lo));
	int64_t *hi = opmfu_malloc((t->steps.n ? t->steps.n : 1) * sizeof(*hi));
	enum opmfu_status st = OPMFU_OK;
	size_t i, kept = 0;

	if (pass_init(&p, t, t->steps.n, t->steps.n + t->devsteps.n) || !nums || !keep_step || !lo || !hi) {
		st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory filtering by --steps");
		goto out;
	}
	if (!t->steps.n) {
		st = opmfu_err_set(err, OPMFU_ERR_USAGE, "--steps %s: the trace has no steps (ProfilerStep#N, "
				   "STEP_TIME) to keep", f->steps_text ? f->steps_text : "");
		goto out;
	}
	memcpy(nums, f->steps, f->n_steps * sizeof(*nums));
	if (opmfu_sort_array(nums, f->n_steps, sizeof(*nums), int_less)) {
		st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory filtering by --steps");
		goto out;
	}
	p.nums = nums;
	p.n_nums = f->n_steps;
	p.keep_step = keep_step;
	p.by_launch = 1;
	for (i = 0; i < t->steps.n; i++) {
		lo[i] = INT64_MAX;
		hi[i] = INT64_MIN;
		if ((keep_step[i] = (unsigned char)has_num(&p, t->steps.v[i].value))) {
			p.host.v[p.host.n++] = (struct span){ t->steps.v[i].start, t->steps.v[i].end };
			kept++;
		}
	}
	if (!kept) {
		int64_t a = INT64_MAX, z = INT64_MIN;
		for (i = 0; i < t->steps.n; i++) {
			a = t->steps.v[i].value < a ? t->steps.v[i].value : a;
			z = t->steps.v[i].value > z ? t->steps.v[i].value : z;
		}
		st = opmfu_err_set(err, OPMFU_ERR_USAGE, "--steps %s keeps nothing: the trace's %zu step%s %s %lld to %lld",
				   f->steps_text ? f->steps_text : "", t->steps.n, t->steps.n == 1 ? "" : "s",
				   t->steps.n == 1 ? "is numbered" : "are numbered", (long long)a, (long long)z);
		goto out;
	}
	for (i = 0; i < t->n_links; i++) {
		size_t s = step_of(&t->steps, t->links[i].op_start);
		if (s != SIZE_MAX && keep_step[s])
			p.keep_op[t->links[i].op] = 1;
	}
	for (i = 0; i < t->n_links; i++) {
		const struct opmfu_link *l = &t->links[i];
		size_t s;
		if (!p.keep_op[l->op] || (s = step_of(&t->steps, l->op_start)) == SIZE_MAX)
			continue;
		lo[s] = l->k_start < lo[s] ? l->k_start : lo[s];
		hi[s] = l->k_end > hi[s] ? l->k_end : hi[s];
	}
	for (i = 0; i < t->steps.n; i++)
		if (keep_step[i] && lo[i] <= hi[i])
			p.dev.v[p.dev.n++] = (struct span){ lo[i], hi[i] };
	for (i = 0; i < t->devsteps.n; i++)
		if (has_num(&p, t->devsteps.v[i].value))
			p.dev.v[p.dev.n++] = (struct span){ t->devsteps.v[i].start, t->devsteps.v[i].end };
	if (spans_norm(&p.host) || spans_norm(&p.dev) || apply(t, &p))
		st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory filtering by --steps");
out:
	pass_release(&p);
	opmfu_free(nums);
	opmfu_free(keep_step);
	opmfu_free(lo);
	opmfu_free(hi);
	return st;
}

/*
 * --time-range: [a, z) on the device; the ops with a kernel overlapping it;
 * device spans: it; host spans: it widened to the host spans of the kept
 * ops (the steps, modules and records that launched kept work stay).
 */
static enum opmfu_status time_pass(struct opmfu_trace *t, int64_t a, int64_t z, struct opmfu_err *err)
{
	struct pass p;
	int64_t ha = a, hz = z;
	size_t i;

	if (pass_init(&p, t, 1, 1)) {
		pass_release(&p);
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory filtering by --time-range");
	}
	p.dev.v[0] = (struct span){ a, z };
	p.dev.n = 1;
	for (i = 0; i < t->n_links; i++)
		if (spans_hit(&p.dev, t->links[i].k_start, t->links[i].k_end))
			p.keep_op[t->links[i].op] = 1;
	for (i = 0; i < t->n_links; i++) {
		const struct opmfu_link *l = &t->links[i];
		if (!p.keep_op[l->op])
			continue;
		ha = l->op_start < ha ? l->op_start : ha;
		hz = l->op_end > hz ? l->op_end : hz;
	}
	p.host.v[0] = (struct span){ ha, hz };
	p.host.n = 1;
	if (apply(t, &p)) {
		pass_release(&p);
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory filtering by --time-range");
	}
	pass_release(&p);
	return OPMFU_OK;
}

int opmfu_filter_active(const struct opmfu_filter *f)
{
	return f && (f->n_steps || f->has_time);
}

enum opmfu_status opmfu_trace_filter(struct opmfu_trace *t, const struct opmfu_filter *f, struct opmfu_err *err)
{
	const struct opmfu_ranges *dev[3] = { &t->kernels, &t->comm, &t->memcpy };
	int64_t first = INT64_MAX, last = INT64_MIN, a = 0, z = 0;
	enum opmfu_status st;
	size_t i, k;
	char d[32];

	if (!opmfu_filter_active(f))
		return OPMFU_OK;
	/* the time range counts from the rank's first device activity, before any filter */
	for (i = 0; i < t->n_links; i++) {
		first = t->links[i].k_start < first ? t->links[i].k_start : first;
		last = t->links[i].k_end > last ? t->links[i].k_end : last;
	}
	for (k = 0; k < 3; k++)
		for (i = 0; i < dev[k]->n; i++) {
			first = dev[k]->v[i].start < first ? dev[k]->v[i].start : first;
			last = dev[k]->v[i].end > last ? dev[k]->v[i].end : last;
		}
	if (f->has_time) {
		if (first == INT64_MAX)
			return opmfu_err_set(err, OPMFU_ERR_USAGE, "--time-range %s: the trace has no device activity to "
					     "count from", f->time_text ? f->time_text : "");
		a = opmfu_sat_add(first, f->from_ns);
		z = f->to_ns == OPMFU_FILTER_OPEN ? INT64_MAX : opmfu_sat_add(first, f->to_ns);
	}
	if (f->n_steps && (st = steps_pass(t, f, err)))
		return st;
	if (f->has_time && (st = time_pass(t, a, z, err)))
		return st;
	if (no_work(t)) {
		opmfu_ns_text(last > first ? (double)(last - first) : 0, d, sizeof(d));
		if (f->has_time && f->n_steps)
			return opmfu_err_set(err, OPMFU_ERR_USAGE, "--steps %s with --time-range %s keeps nothing of the "
					     "trace (its device activity lasts %s)", f->steps_text ? f->steps_text : "",
					     f->time_text ? f->time_text : "", d);
		if (f->has_time)
			return opmfu_err_set(err, OPMFU_ERR_USAGE, "--time-range %s keeps nothing: the trace's device "
					     "activity lasts %s", f->time_text ? f->time_text : "", d);
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "--steps %s keeps no device work of the trace",
				     f->steps_text ? f->steps_text : "");
	}
	return OPMFU_OK;
}

/* One end of a time range: a number and its unit into *ns; 0, or -1. */
static int parse_end(const char *s, size_t n, int64_t *ns)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	char buf[64], *end;
	double v;
	size_t k, digits, dots;

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	/* digits and one point only: no sign, exponent, hex, inf or nan */
	digits = strspn(buf, "0123456789.");
	for (k = 0, dots = 0; k < digits; k++)
		dots += buf[k] == '.';
	if (digits == dots || dots > 1)
		return -1;
	v = strtod(buf, &end);
	if (end != buf + digits)
		return -1;
	if (!*end && v == 0) { /* zero needs no unit */
		*ns = 0;
		return 0;
	}
	for (k = 0; k < sizeof(units) / sizeof(units[0]); k++)
		if (!strcmp(end, units[k].unit)) {
			double x = v * units[k].scale;
			if (!(x >= 0) || x > (double)OPMFU_TIME_LIMIT)
				return -1;
			*ns = (int64_t)llround(x);
			return 0;
		}
	return -1;
}

int opmfu_filter_parse_time(const char *s, int64_t *from_ns, int64_t *to_ns)
{
	const char *colon = s ? strchr(s, ':') : NULL;
	int64_t a = 0, z = OPMFU_FILTER_OPEN;

	/* ":" alone would keep everything: a mistake rather than a filter */
	if (!colon || strchr(colon + 1, ':') || (colon == s && !colon[1]))
		return -1;
	if (colon > s && parse_end(s, (size_t)(colon - s), &a))
		return -1;
	if (colon[1] && parse_end(colon + 1, strlen(colon + 1), &z))
		return -1;
	if (a >= z)
		return -1;
	*from_ns = a;
	*to_ns = z;
	return 0;
}
