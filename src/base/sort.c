/*
 * sort.c - the stable sorts used by the join and the analysis.
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
	/* runs already in order, as in nearly sorted input: one copy */
	if (!less(ctx, src[mid], src[mid - 1])) {
		memcpy(dst + lo, src + lo, (hi - lo) * sizeof(*src));
		return;
	}
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

/* ---- arrays of small structs, sorted in place ---- */

/* Copies one element; the sizes used (24 and 32 bytes) become plain moves. */
static inline void put(char *d, const char *s, size_t size)
{
	if (size == 24)
		memcpy(d, s, 24);
	else if (size == 32)
		memcpy(d, s, 32);
	else
		memcpy(d, s, size);
}

/* Sorts elements [lo, hi) of a whose prefix [lo, sorted_to) is in order. */
static void insertion_sort_elems(char *a, size_t lo, size_t hi, size_t sorted_to, size_t size,
				 opmfu_less_elem_fn less)
{
	char x[OPMFU_SORT_MAX_ELEM];
	size_t i, k;
	for (i = sorted_to; i < hi; i++) {
		if (i == lo || !less(a + i * size, a + (i - 1) * size))
			continue;
		put(x, a + i * size, size);
		for (k = i; k > lo && less(x, a + (k - 1) * size); k--)
			;
		memmove(a + (k + 1) * size, a + k * size, (i - k) * size);
		put(a + k * size, x, size);
	}
}

static void merge_elems(const char *src, char *dst, size_t lo, size_t mid, size_t hi, size_t size,
			opmfu_less_elem_fn less)
{
	size_t x = lo, y = mid, o = lo;
	/* runs already in order, as in nearly sorted input: one copy */
	if (!less(src + mid * size, src + (mid - 1) * size)) {
		memcpy(dst + lo * size, src + lo * size, (hi - lo) * size);
		return;
	}
	while (x < mid && y < hi) {
		if (less(src + y * size, src + x * size))
			put(dst + o++ * size, src + y++ * size, size);
		else
			put(dst + o++ * size, src + x++ * size, size);
	}
	memcpy(dst + o * size, src + x * size, (mid - x) * size);
	o += mid - x;
	memcpy(dst + o * size, src + y * size, (hi - y) * size);
}

/*
 * The same natural merge sort, moving the elements themselves: merging
 * through an index array read the elements in merged order, which at tens
 * of MB missed the cache on nearly every comparison.
 */
int opmfu_sort_array(void *v, size_t n, size_t size, opmfu_less_elem_fn less)
{
	char *a = v, *tmp, *src = v, *dst;
	size_t *run, n_run = 0, i = 0;

	if (size == 0 || size > OPMFU_SORT_MAX_ELEM)
		return -1;
	if (n <= MIN_RUN) {
		insertion_sort_elems(a, 0, n, 1, size, less); /* no memory needed */
		return 0;
	}
	run = opmfu_malloc((n / MIN_RUN + 2) * sizeof(*run));
	tmp = opmfu_malloc(n * size);
	if (!run || !tmp) {
		opmfu_free(run);
		opmfu_free(tmp);
		return -1;
	}
	while (i < n) {
		size_t j = i + 1, end;
		while (j < n && !less(a + j * size, a + (j - 1) * size))
			j++;
		end = j;
		if (end - i < MIN_RUN) {
			end = n - i < MIN_RUN ? n : i + MIN_RUN;
			insertion_sort_elems(a, i, end, j, size, less);
		}
		run[n_run++] = i;
		i = end;
	}
	run[n_run] = n;
	dst = tmp;
	while (n_run > 1) {
		size_t r, k = 0;
		for (r = 0; r + 1 < n_run; r += 2) {
			merge_elems(src, dst, run[r], run[r + 1], run[r + 2], size, less);
			run[k++] = run[r];
		}
		if (r < n_run) {
			memcpy(dst + run[r] * size, src + run[r] * size, (run[r + 1] - run[r]) * size);
			run[k++] = run[r];
		}
		run[k] = n;
		n_run = k;
		{
			char *x = src;
			src = dst;
			dst = x;
		}
	}
	if (src != a)
		memcpy(a, src, n * size);
	opmfu_free(run);
	opmfu_free(tmp);
	return 0;
}
