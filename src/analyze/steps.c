/*
 * steps.c - OpmfuSteps (steps.h): device intervals by step and kind, one
 * sweep over their start and end points per step.
 */
#include "analyze/steps.h"

#include <math.h>
#include <string.h>

#include "analyze/account.h"

#include "base/lbound.h"
#include "base/mem.h"
#include "base/sat.h"
#include "base/sort.h"

enum { K_FLOPS, K_OTHER, K_COMM };

/* One end of a device interval. 16 bytes. */
struct ev {
	int64_t t;
	uint32_t step; /* index into the steps */
	int8_t kind;   /* K_* */
	int8_t delta;  /* +1 start, -1 end */
	uint8_t pad[2];
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
	opmfu_steps_init(res);
}

struct build {
	const struct opmfu_ops *ops;
	const struct opmfu_ranges *steps; /* NULL: one step, the whole trace */
	struct ev *ev;
	size_t n_ev, cap_ev;
	int64_t outside_ns;
	/* per step (collect): the earliest start of linked device work in it or
	 * any later step, so non-decreasing; and its linked work's last end */
	const int64_t *dev_reach, *dev_last;
};

static int step_before(const void *ctx, size_t i, const void *key)
{
	return ((const struct opmfu_range *)ctx)[i].start <= *(const int64_t *)key;
}

/* The step whose window holds ts, or -1 */
static long step_of(const struct build *b, int64_t ts)
{
	size_t i;
	if (!b->steps)
		return 0;
	i = opmfu_lbound(0, b->steps->n, step_before, b->steps->v, &ts);
	return i && ts < b->steps->v[i - 1].end ? (long)(i - 1) : -1;
}

static int reached(const void *ctx, size_t i, const void *key)
{
	int64_t r = ((const int64_t *)ctx)[i];
	return r != INT64_MAX && r <= *(const int64_t *)key;
}

/* The step of device time linked to no op (see collect), or -1. */
static long device_step(const struct build *b, int64_t ts)
{
	size_t n;
	long best;
	if (!b->steps)
		return 0;
	n = b->steps->n;
	/* the last step whose device work had begun by ts */
	best = (long)opmfu_lbound(0, n, reached, b->dev_reach, &ts) - 1;
	if (best < 0)
		return step_of(b, ts); /* before any step's device work: by the host's windows */
	if ((size_t)best + 1 == n && ts >= b->dev_last[best])
		return -1; /* after the last step's work */
	return best;
}

static int add(struct build *b, int64_t start, int64_t end, int kind, long s)
{
	if (end <= start)
		return 0; /* takes no time */
	if (s < 0) {
		b->outside_ns = opmfu_sat_add(b->outside_ns, end - start);
		return 0;
	}
	if (OPMFU_GROW(b->ev, b->cap_ev, b->n_ev + 2))
		return -1;
	b->ev[b->n_ev++] = (struct ev){ start, (uint32_t)s, (int8_t)kind, 1, { 0, 0 } };
	b->ev[b->n_ev++] = (struct ev){ end, (uint32_t)s, (int8_t)kind, -1, { 0, 0 } };
	return 0;
}

/* A unit's kernels count as FLOP compute when it has FLOPs and a peak (or
 * the rank has no peak at all: then FLOPs alone). */
static int flop_unit(const struct opmfu_ops *ops, const struct opmfu_unit *u, int any_peak)
{
	return u->src >= 0 && (!any_peak || opmfu_unit_peak(ops, u) > 0);
}

/*
 * Device work goes to a step: a kernel or communication linked to an op by
 * the op's start (step marks are the host's: ProfilerStep#N, STEP_TIME), so
 * a kernel that runs after the host has moved on still counts for the step
 * that launched it; device time linked to no op by where it starts among
 * the steps' device work: from a step's first linked kernel to the next
 * step's (the last step: to its host end or its last linked kernel).
 */
static int collect(struct build *b)
{
	const struct opmfu_trace *t = b->ops->t;
	size_t n_steps = b->steps ? b->steps->n : 1, i;
	int peaks = opmfu_rank_any_peak(b->ops->pk), rc = -1;
	int64_t *first = opmfu_malloc(n_steps * sizeof(*first)), *last = opmfu_malloc(n_steps * sizeof(*last));

	if (!first || !last)
		goto out;
	for (i = 0; i < n_steps; i++) {
		first[i] = INT64_MAX;
		last[i] = b->steps ? b->steps->v[i].end : INT64_MAX;
	}
	for (i = 0; i < t->n_links; i++) {
		const struct opmfu_link *l = &t->links[i];
		long s = step_of(b, l->op_start);
		int kind = K_COMM;
		if (i < t->n_compute) {
			uint32_t u = b->ops->op_unit ? b->ops->op_unit[l->op] : OPMFU_UNIT_NONE;
			kind = u != OPMFU_UNIT_NONE && flop_unit(b->ops, &b->ops->v[u], peaks) ? K_FLOPS : K_OTHER;
		}
		if (s >= 0 && l->k_end > l->k_start) {
			if (l->k_start < first[s])
				first[s] = l->k_start;
			if (l->k_end > last[s])
				last[s] = l->k_end;
		}
		if (add(b, l->k_start, l->k_end, kind, s))
			goto out;
	}
	for (i = n_steps; i > 1; i--) /* first becomes each step's reach */
		if (first[i - 1] < first[i - 2])
			first[i - 2] = first[i - 1];
	b->dev_reach = first;
	b->dev_last = last;
	for (i = 0; i < t->kernels.n; i++)
		if (add(b, t->kernels.v[i].start, t->kernels.v[i].end, K_OTHER, device_step(b, t->kernels.v[i].start)))
			goto out;
	for (i = 0; i < t->comm.n; i++)
		if (add(b, t->comm.v[i].start, t->comm.v[i].end, K_COMM, device_step(b, t->comm.v[i].start)))
			goto out;
	rc = 0;
out:
	b->dev_reach = b->dev_last = NULL;
	opmfu_free(first);
	opmfu_free(last);
	return rc;
}

/* (step, time, ends before starts at the same time: touching intervals do not overlap) */
static int less_ev(const void *pa, const void *pb)
{
	const struct ev *a = pa, *b = pb;
	if (a->step != b->step)
		return a->step < b->step;
	if (a->t != b->t)
		return a->t < b->t;
	return a->delta < b->delta;
}

/* One pass over the step's events, in time order. */
static void sweep(const struct ev *ev, size_t n, struct opmfu_step_row *s)
{
	int count[3] = { 0, 0, 0 };
	size_t i;

	s->start = ev[0].t;
	s->end = ev[n - 1].t;
	for (i = 0; i < n; i++) {
		if (i) {
			int64_t d = ev[i].t - ev[i - 1].t;
			int compute = count[K_FLOPS] + count[K_OTHER] > 0;
			if (count[K_FLOPS])
				s->flops_ns = opmfu_sat_add(s->flops_ns, d);
			else if (count[K_OTHER])
				s->other_ns = opmfu_sat_add(s->other_ns, d);
			if (count[K_COMM] && compute)
				s->comm_overlapped_ns = opmfu_sat_add(s->comm_overlapped_ns, d);
			else if (count[K_COMM])
				s->comm_exposed_ns = opmfu_sat_add(s->comm_exposed_ns, d);
		}
		count[ev[i].kind] += ev[i].delta;
	}
	s->idle_ns = s->end - s->start - s->flops_ns - s->other_ns - s->comm_exposed_ns;
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
		if (u->src < 0)
			continue;
		if (b->steps && (u->step == OPMFU_NO_STEP || (size_t)u->step >= res->n))
			continue;
		s = &res->v[b->steps ? (size_t)u->step : 0];
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

void opmfu_step_shares(const struct opmfu_step_row *s, double shares[4])
{
	double w = (double)opmfu_step_window(s), mfu = opmfu_step_trace_mfu(s);
	shares[0] = w > 0 ? (double)s->idle_ns / w : -1;
	shares[1] = w > 0 ? (double)s->comm_exposed_ns / w : -1;
	shares[2] = w > 0 ? (double)s->other_ns / w : -1;
	/* what the FLOP-bearing kernels' time holds beyond the trace MFU */
	shares[3] = w > 0 && mfu >= 0 ? (double)s->flops_ns / w - mfu : 0;
}

/* The rank's median step (by window, then step number: analyze/account.h)
 * and its trace MFU over all steps. */
static int sum_up(struct opmfu_steps *res)
{
	double *w = opmfu_malloc((res->n + 1) * sizeof(*w)), *num = opmfu_malloc((res->n + 1) * sizeof(*num));
	double flops = 0, cap = 0;
	size_t i;
	int nomem = 0;

	if (!w || !num) {
		opmfu_free(w);
		opmfu_free(num);
		return -1;
	}
	for (i = 0; i < res->n; i++) {
		const struct opmfu_step_row *s = &res->v[i];
		double peak = opmfu_step_peak(s);
		w[i] = opmfu_step_window(s) > 0 ? (double)opmfu_step_window(s) : NAN;
		num[i] = (double)s->step;
		if (opmfu_step_window(s) > 0 && peak > 0) {
			flops += s->flops_peaked;
			cap += (double)opmfu_step_window(s) * 1e-9 * peak;
		}
	}
	res->median = opmfu_median_index(w, num, res->n, &nomem);
	if (res->median != SIZE_MAX)
		res->step_ns_median = w[res->median];
	res->trace_mfu = cap > 0 ? flops / cap : -1;
	opmfu_free(w);
	opmfu_free(num);
	return nomem;
}

enum opmfu_status opmfu_steps_run(const struct opmfu_ops *ops, struct opmfu_steps *res, struct opmfu_err *err)
{
	struct build b;
	size_t i, lo;
	int rc = -1;

	memset(&b, 0, sizeof(b));
	b.ops = ops;
	b.steps = ops->t->steps.n ? &ops->t->steps : NULL;
	res->ops = ops;
	res->n = b.steps ? b.steps->n : 1;
	if (!(res->v = opmfu_calloc(res->n, sizeof(*res->v))) || collect(&b) ||
	    opmfu_sort_array(b.ev, b.n_ev, sizeof(*b.ev), less_ev))
		goto out;
	for (i = 0; i < res->n; i++) {
		/* a step without device activity has an empty window at its mark's start */
		res->v[i].step = b.steps ? b.steps->v[i].value : OPMFU_NO_STEP;
		res->v[i].start = res->v[i].end = b.steps ? b.steps->v[i].start : 0;
	}
	for (lo = 0; lo < b.n_ev;) {
		size_t hi = lo;
		while (hi < b.n_ev && b.ev[hi].step == b.ev[lo].step)
			hi++;
		sweep(b.ev + lo, hi - lo, &res->v[b.ev[lo].step]);
		lo = hi;
	}
	res->outside_ns = b.outside_ns;
	add_units(&b, res);
	rc = sum_up(res);
out:
	opmfu_free(b.ev);
	if (rc) {
		opmfu_steps_release(res);
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory computing the steps");
	}
	return OPMFU_OK;
}
