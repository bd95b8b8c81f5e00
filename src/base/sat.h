/*
 * sat.h - sums and differences of FLOPs and times that stop at the ends of
 * int64 instead of wrapping: a trace's counts are not trusted to fit.
 * Readers' times are clamped to +-OPMFU_TIME_LIMIT (trace.h,
 * opmfu_trace_clamp), so that end - start of any two fits; sums of many
 * durations or FLOPs still use these.
 */
#ifndef OPMFU_SAT_H
#define OPMFU_SAT_H

#include <math.h>
#include <stdint.h>

/* The sane range of a timestamp, ns: +-(2^62 - 1) (+-146 years around the
 * epoch). A time beyond it is clamped to it and counted (SPEC 26). */
#define OPMFU_TIME_LIMIT INT64_C(4611686018427387903)
/* FLOPs of one record above this (2^62 - 1) are counted as absurd (kept). */
#define OPMFU_FLOPS_LIMIT INT64_C(4611686018427387903)

/* a + b for b >= 0, INT64_MAX when that does not fit */
static inline int64_t opmfu_sat_add(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* a + b of any signs, stopping at INT64_MIN / INT64_MAX */
static inline int64_t opmfu_sat_sum(int64_t a, int64_t b)
{
	if (b >= 0)
		return a > INT64_MAX - b ? INT64_MAX : a + b;
	return a < INT64_MIN - b ? INT64_MIN : a + b;
}

/* a - b, stopping at INT64_MIN / INT64_MAX */
static inline int64_t opmfu_sat_sub(int64_t a, int64_t b)
{
	if (b >= 0)
		return a < INT64_MIN + b ? INT64_MIN : a - b;
	return a > INT64_MAX + b ? INT64_MAX : a - b;
}

/* v within +-OPMFU_TIME_LIMIT */
static inline int64_t opmfu_time_clamp(int64_t v)
{
	return v > OPMFU_TIME_LIMIT ? OPMFU_TIME_LIMIT : v < -OPMFU_TIME_LIMIT ? -OPMFU_TIME_LIMIT : v;
}

/* x rounded half away from zero, stopping at INT64_MIN / INT64_MAX (NaN: 0) */
static inline int64_t opmfu_sat_round(double x)
{
	if (isnan(x))
		return 0;
	if (x >= 9223372036854775807.0)
		return INT64_MAX;
	if (x <= -9223372036854775807.0)
		return INT64_MIN;
	return (int64_t)llround(x);
}

#endif
