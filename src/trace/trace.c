/*
 * trace.c - lifecycle of struct opmfu_trace, its ranges and dtype table.
 */
#include "trace/trace.h"

#include <string.h>

#include "base/bucket.h"
#include "base/mem.h"
#include "base/sat.h"
#include "base/sort.h"

/* a link per (kernel, op) row: 10^6 kernels cost 56 MB of them */
_Static_assert(sizeof(struct opmfu_link) == 56, "struct opmfu_link must stay 56 bytes");
_Static_assert(sizeof(struct opmfu_range) == 32, "struct opmfu_range is 32 bytes");
_Static_assert(sizeof(struct opmfu_kext) == 20, "struct opmfu_kext is 20 bytes");
_Static_assert(sizeof(struct opmfu_coll) == 80, "struct opmfu_coll is 80 bytes");

void opmfu_trace_init(struct opmfu_trace *t)
{
	memset(t, 0, sizeof(*t));
	opmfu_strtab_init(&t->strs);
	t->shape_unknown = UINT32_MAX; /* no sid: nothing is unknown until a reader says so */
	t->dist_rank = -1;
}

void opmfu_trace_release(struct opmfu_trace *t)
{
	int k;
	opmfu_strtab_release(&t->strs);
	opmfu_free(t->links);
	opmfu_free(t->kx);
	opmfu_free(t->launch);
	opmfu_free(t->dtypes);
	for (k = 0; k < OPMFU_RANGE__COUNT; k++)
		opmfu_ranges_release(opmfu_trace_ranges(t, (enum opmfu_range_kind)k));
	opmfu_colls_release(&t->colls);
	opmfu_device_release(&t->device);
	opmfu_trace_init(t);
}

struct opmfu_ranges *opmfu_trace_ranges(struct opmfu_trace *t, enum opmfu_range_kind k)
{
	switch (k) {
	case OPMFU_RANGE_MODULE: return &t->mods;
	case OPMFU_RANGE_FLOPS: return &t->recs;
	case OPMFU_RANGE_STEP: return &t->steps;
	case OPMFU_RANGE_COMM: return &t->comm;
	case OPMFU_RANGE_KERNEL: return &t->kernels;
	case OPMFU_RANGE_MEMCPY: return &t->memcpy;
	case OPMFU_RANGE_DEVSTEP: return &t->devsteps;
	case OPMFU_RANGE_COMM_WAIT: return &t->waits;
	case OPMFU_RANGE__COUNT: break;
	}
	return NULL;
}

int opmfu_ranges_add(struct opmfu_ranges *rs, const struct opmfu_range *r)
{
	if (OPMFU_GROW(rs->v, rs->cap, rs->n + 1))
		return -1;
	rs->v[rs->n++] = *r;
	return 0;
}

static int clamp2(int64_t *a, int64_t *b)
{
	int64_t x = opmfu_time_clamp(*a), y = opmfu_time_clamp(*b);
	int changed = x != *a || y != *b;
	*a = x;
	*b = y;
	return changed;
}

/* a launch time like any other, except that "none" stays none */
static int clamp_launch(int64_t *v)
{
	int64_t x;
	if (*v == OPMFU_NO_LAUNCH)
		return 0;
	x = opmfu_time_clamp(*v);
	if (x == *v)
		return 0;
	*v = x;
	return 1;
}

void opmfu_trace_clamp_links(struct opmfu_trace *t)
{
	size_t i;
	for (i = 0; i < t->n_links; i++) {
		struct opmfu_link *l = &t->links[i];
		int c = clamp2(&l->k_start, &l->k_end);
		c |= clamp2(&l->op_start, &l->op_end);
		if (t->launch)
			c |= clamp_launch(&t->launch[i]);
		t->n_clamped += (size_t)c;
	}
}

void opmfu_trace_clamp(struct opmfu_trace *t)
{
	int k;
	size_t i;
	opmfu_trace_clamp_links(t);
	for (k = 0; k < OPMFU_RANGE__COUNT; k++) {
		struct opmfu_ranges *rs = opmfu_trace_ranges(t, (enum opmfu_range_kind)k);
		for (i = 0; i < rs->n; i++) {
			int c = clamp2(&rs->v[i].start, &rs->v[i].end);
			if (k == OPMFU_RANGE_FLOPS && rs->v[i].value > OPMFU_FLOPS_LIMIT)
				c = 1;
			if (k == OPMFU_RANGE_KERNEL || k == OPMFU_RANGE_COMM || k == OPMFU_RANGE_MEMCPY)
				c |= clamp_launch(&rs->v[i].value);
			t->n_clamped += (size_t)c;
		}
	}
	for (i = 0; i < t->colls.n; i++)
		t->n_clamped += (size_t)clamp2(&t->colls.v[i].start, &t->colls.v[i].end);
}

static int range_before(const void *a, const void *b)
{
	return ((const struct opmfu_range *)a)->start < ((const struct opmfu_range *)b)->start;
}

int opmfu_ranges_sort(struct opmfu_ranges *rs)
{
	size_t i;
	for (i = 1; i < rs->n && rs->v[i - 1].start <= rs->v[i].start; i++)
		;
	/* stable: ranges that start together keep their order */
	return i < rs->n ? opmfu_sort_array(rs->v, rs->n, sizeof(*rs->v), range_before) : 0;
}

void opmfu_ranges_release(struct opmfu_ranges *rs)
{
	opmfu_free(rs->v);
	memset(rs, 0, sizeof(*rs));
}

const struct opmfu_dtype *opmfu_trace_dtype(const struct opmfu_trace *t, uint32_t idx)
{
	static const struct opmfu_dtype none = { 0, OPMFU_DT_FP16, OPMFU_PREC_NONE, "" };
	return idx && idx < t->n_dtypes ? &t->dtypes[idx] : &none;
}

int opmfu_trace_add_dtype(struct opmfu_trace *t, const struct opmfu_dtype *d, uint32_t *idx)
{
	size_t n = t->n_dtypes ? t->n_dtypes : 1; /* slot 0 stays "no list" */
	if (n >= UINT32_MAX || OPMFU_GROW(t->dtypes, t->cap_dtypes, n + 1))
		return -1;
	t->dtypes[0] = *opmfu_trace_dtype(t, 0);
	t->dtypes[n] = *d;
	t->n_dtypes = n + 1;
	*idx = (uint32_t)n;
	return 0;
}

long opmfu_trace_tf32(struct opmfu_trace *t)
{
	unsigned char *op_tf32, *name_tf32; /* name_tf32 by kernel name sid: 0 not looked at, 1 no, 2 yes */
	uint32_t *variant; /* dtype index -> its tf32 copy; 0: none yet */
	size_t i, n_dt = t->n_dtypes;
	long changed = 0;

	if (!t->n_compute || !t->n_ops || n_dt < 2)
		return 0;
	op_tf32 = opmfu_calloc(t->n_ops, 1);
	name_tf32 = opmfu_calloc(t->strs.n ? t->strs.n : 1, 1);
	variant = opmfu_calloc(n_dt, sizeof(*variant));
	if (!op_tf32 || !name_tf32 || !variant) {
		opmfu_free(op_tf32);
		opmfu_free(name_tf32);
		opmfu_free(variant);
		return -1;
	}
	/* an op is TF32 when any of its kernels is: its split-K reduce or
	 * other helpers run at the rate of the GEMM they serve. A name is
	 * looked at once, however many kernels have it; a sid past the table
	 * names no string, so no TF32 word. */
	for (i = 0; i < t->n_compute; i++) {
		const struct opmfu_link *l = &t->links[i];
		unsigned char *known;
		if (l->op >= t->n_ops || l->k_name >= t->strs.n || opmfu_trace_dtype(t, l->dtype)->prec != OPMFU_PREC_FP32)
			continue;
		known = &name_tf32[l->k_name];
		if (!*known)
			*known = opmfu_kernel_runs_tf32(opmfu_strtab_str(&t->strs, l->k_name),
							opmfu_strtab_len(&t->strs, l->k_name))
					 ? 2
					 : 1;
		if (*known == 2)
			op_tf32[l->op] = 1;
	}
	opmfu_free(name_tf32);
	for (i = 0; i < t->n_compute && changed >= 0; i++) {
		struct opmfu_link *l = &t->links[i];
		if (l->op >= t->n_ops || !op_tf32[l->op] || l->dtype >= n_dt ||
		    opmfu_trace_dtype(t, l->dtype)->prec != OPMFU_PREC_FP32)
			continue;
		if (!variant[l->dtype]) {
			struct opmfu_dtype d = t->dtypes[l->dtype];
			d.prec = OPMFU_PREC_TF32;
			if (opmfu_trace_add_dtype(t, &d, &variant[l->dtype])) {
				changed = -1;
				break;
			}
		}
		l->dtype = variant[l->dtype];
		changed++;
	}
	opmfu_free(op_tf32);
	opmfu_free(variant);
	return changed;
}

/* (op start, kernel start, index): total, so any sort gives one result */
static int less_op(const void *ctx, uint32_t ia, uint32_t ib)
{
	const struct opmfu_link *a = (const struct opmfu_link *)ctx + ia, *b = (const struct opmfu_link *)ctx + ib;
	if (a->op_start != b->op_start)
		return a->op_start < b->op_start;
	if (a->k_start != b->k_start)
		return a->k_start < b->k_start;
	return ia < ib;
}

int opmfu_trace_op_order(const struct opmfu_trace *t, uint32_t *out)
{
	size_t i, n = t->n_compute;
	for (i = 0; i < n; i++)
		out[i] = (uint32_t)i;
	return opmfu_sort_idx(out, n, less_op, t->links) ? -1 : 0;
}

int opmfu_trace_group_by_op(const struct opmfu_trace *t, uint32_t **off_out, uint32_t **ord_out)
{
	uint32_t *key = opmfu_malloc((t->n_compute ? t->n_compute : 1) * sizeof(*key));
	size_t i;
	int rc;

	if (!key)
		return -1;
	for (i = 0; i < t->n_compute; i++)
		key[i] = t->links[i].op;
	rc = opmfu_bucket(key, t->n_compute, t->n_ops, off_out, ord_out);
	opmfu_free(key);
	return rc;
}

const char *opmfu_drop_name(enum opmfu_drop why)
{
	switch (why) {
	case OPMFU_DROP_FORMAT: return "malformed message";
	case OPMFU_DROP_ZERO: return "zero FLOPs";
	case OPMFU_DROP_OVERFLOW: return "FLOPs out of range";
	case OPMFU_DROP_RANGE: return "bad time range";
	case OPMFU_DROP_NO_KERNEL: return "no kernel inside";
	case OPMFU_DROP_DURATION: return "zero kernel time";
	case OPMFU_DROP_DTYPE: return "unsupported dtype";
	case OPMFU_DROP_NO_PEAK: return "no peak for dtype";
	case OPMFU_DROP__COUNT: break;
	}
	return "?";
}
