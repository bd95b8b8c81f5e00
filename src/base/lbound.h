/*
 * lbound.h - the binary search of the code base: the lower bound of a key in
 * a sorted sequence, under the caller's order. Inline, so a comparison known
 * at the call site is inlined too.
 */
#ifndef OPMFU_LBOUND_H
#define OPMFU_LBOUND_H

#include <stddef.h>

/* Nonzero when element i of the caller's sequence goes strictly before key. */
typedef int (*opmfu_before_fn)(const void *ctx, size_t i, const void *key);

/*
 * The first i in [lo, hi) whose element does not go before key, or hi when
 * all do. The elements that go before key must come first (the sequence is
 * sorted under that order). O(log(hi - lo)) calls of before.
 */
static inline size_t opmfu_lbound(size_t lo, size_t hi, opmfu_before_fn before, const void *ctx, const void *key)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (before(ctx, mid, key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
