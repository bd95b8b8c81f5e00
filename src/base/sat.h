/*
 * sat.h - sums of FLOPs and durations that stop at INT64_MAX instead of
 * wrapping: a trace's counts are not trusted to fit.
 */
#ifndef OPMFU_SAT_H
#define OPMFU_SAT_H

#include <stdint.h>

/* a + b for b >= 0, INT64_MAX when that does not fit */
static inline int64_t opmfu_sat_add(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

#endif
