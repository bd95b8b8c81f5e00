/*
 * sort.c - the stable sort of index arrays used by the join and the analysis.
 */
#include "sort.h"

#include <string.h>

#include "mem.h"

/*
 * A natural merge sort: runs already in order are found first (short ones are
 * extended to MIN_RUN by insertion sort), then merged pairwise.
 */

#define MIN_RUN 32

/* Sorts v[lo, hi) whose prefix v[lo, sorted_to) is in order. */
static void insertion_sort(uint32_t *v, size_t lo, size_t hi, size_t sorted_to, opmfu_less_fn less,
			   const void *ctx)
{
	size_t i;
	for (i = sorted_to; i < hi; i++) {
		uint32_t x = v[i];
		size_t k = i;
		while (k > lo && less(ctx, x, v[k - 1])) {
			v[k] = v[k - 1];
			k--;
		}
		v[k] = x;
	}
}

static void merge(const uint32_t *src, uint32_t *dst, size_t lo, size_t mid, size_t hi, opmfu_less_fn less,
		  const void *ctx)
{
	size_t a = lo, b = mid, o = lo;
	while (a < mid && b < hi)
		dst[o++] = less(ctx, src[b], src[a]) ? src[b++] : src[a++];
	while (a < mid)
		dst[o++] = src[a++];
	while (b < hi)
		dst[o++] = src[b++];
}

int opmfu_sort_idx(uint32_t *v, size_t n, opmfu_less_fn less, const void *ctx)
{
	size_t *run, n_run = 0, i = 0;
	uint32_t *tmp, *src = v, *dst;

	if (n <= MIN_RUN) {
		insertion_sort(v, 0, n, 1, less, ctx); /* no memory needed */
		return 0;
	}
	run = opmfu_malloc((n / MIN_RUN + 2) * sizeof(*run));
	tmp = opmfu_malloc(n * sizeof(*tmp));
	if (!run || !tmp) {
		opmfu_free(run);
		opmfu_free(tmp);
		return -1;
	}
	while (i < n) {
		size_t j = i + 1, end;
		while (j < n && !less(ctx, v[j], v[j - 1]))
			j++;
		end = j;
		if (end - i < MIN_RUN) {
			end = n - i < MIN_RUN ? n : i + MIN_RUN;
			insertion_sort(v, i, end, j, less, ctx);
		}
		run[n_run++] = i;
		i = end;
	}
	run[n_run] = n;
	dst = tmp;
	while (n_run > 1) {
		size_t r, k = 0;
		for (r = 0; r + 1 < n_run; r += 2) {
			merge(src, dst, run[r], run[r + 1], run[r + 2], less, ctx);
			run[k++] = run[r];
		}
		if (r < n_run) {
			memcpy(dst + run[r], src + run[r], (run[r + 1] - run[r]) * sizeof(*src));
			run[k++] = run[r];
		}
		run[k] = n;
		n_run = k;
		{
			uint32_t *x = src;
			src = dst;
			dst = x;
		}
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	opmfu_free(run);
	opmfu_free(tmp);
	return 0;
}

int opmfu_sort_array(void *v, size_t n, size_t size, opmfu_less_fn less)
{
	uint32_t *ix;
	char *sorted;
	size_t i;
	int rc = -1;

	if (n < 2)
		return 0;
	ix = opmfu_malloc(n * sizeof(*ix));
	sorted = opmfu_malloc(n * size);
	if (!ix || !sorted)
		goto out;
	for (i = 0; i < n; i++)
		ix[i] = (uint32_t)i;
	if (opmfu_sort_idx(ix, n, less, v))
		goto out;
	for (i = 0; i < n; i++)
		memcpy(sorted + i * size, (const char *)v + (size_t)ix[i] * size, size);
	memcpy(v, sorted, n * size);
	rc = 0;
out:
	opmfu_free(ix);
	opmfu_free(sorted);
	return rc;
}
