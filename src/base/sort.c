/*
 * sort.c - the stable sorts used by the join and the analysis.
 *
 * One natural merge sort over elements of a given size: runs already in
 * order are found first (short ones are extended to MIN_RUN by insertion
 * sort), then merged pairwise, a merge of two runs already in order being
 * one copy. Index arrays are sorted as arrays of 4-byte elements. Arrays of
 * structs are sorted as themselves: merging them through an index array
 * read the elements in merged order, which at tens of MB missed the cache on
 * nearly every comparison.
 */
#include "base/sort.h"

#include <string.h>

#include "base/mem.h"

#define MIN_RUN 32

/* The caller's order, seen through element addresses. */
struct order {
	int (*less)(const struct order *o, const void *a, const void *b);
	opmfu_less_fn idx_less; /* index sorts */
	const void *ctx;
	opmfu_less_elem_fn elem_less; /* struct sorts */
};

static int less_idx(const struct order *o, const void *a, const void *b)
{
	return o->idx_less(o->ctx, *(const uint32_t *)a, *(const uint32_t *)b);
}

static int less_elem(const struct order *o, const void *a, const void *b)
{
	return o->elem_less(a, b);
}

/* Copies one element; the sizes used (4, 24, 32 bytes) become plain moves. */
static inline void put(char *d, const char *s, size_t size)
{
	if (size == 4)
		memcpy(d, s, 4);
	else if (size == 24)
		memcpy(d, s, 24);
	else if (size == 32)
		memcpy(d, s, 32);
	else
		memcpy(d, s, size);
}

/* Sorts elements [lo, hi) of a whose prefix [lo, sorted_to) is in order. */
static void insertion_sort(char *a, size_t lo, size_t hi, size_t sorted_to, size_t size, const struct order *o)
{
	char x[OPMFU_SORT_MAX_ELEM];
	size_t i, k;
	for (i = sorted_to; i < hi; i++) {
		if (i == lo || !o->less(o, a + i * size, a + (i - 1) * size))
			continue;
		put(x, a + i * size, size);
		for (k = i; k > lo && o->less(o, x, a + (k - 1) * size); k--)
			;
		memmove(a + (k + 1) * size, a + k * size, (i - k) * size);
		put(a + k * size, x, size);
	}
}

static void merge(const char *src, char *dst, size_t lo, size_t mid, size_t hi, size_t size, const struct order *o)
{
	size_t x = lo, y = mid, out = lo;
	/* runs already in order, as in nearly sorted input: one copy */
	if (!o->less(o, src + mid * size, src + (mid - 1) * size)) {
		memcpy(dst + lo * size, src + lo * size, (hi - lo) * size);
		return;
	}
	while (x < mid && y < hi) {
		if (o->less(o, src + y * size, src + x * size))
			put(dst + out++ * size, src + y++ * size, size);
		else
			put(dst + out++ * size, src + x++ * size, size);
	}
	memcpy(dst + out * size, src + x * size, (mid - x) * size);
	out += mid - x;
	memcpy(dst + out * size, src + y * size, (hi - y) * size);
}

static int merge_sort(char *a, size_t n, size_t size, const struct order *o)
{
	char *tmp, *src = a, *dst;
	size_t *run, n_run = 0, i = 0;

	if (n <= MIN_RUN) {
		insertion_sort(a, 0, n, 1, size, o); /* no memory needed */
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
		while (j < n && !o->less(o, a + j * size, a + (j - 1) * size))
			j++;
		end = j;
		if (end - i < MIN_RUN) {
			end = n - i < MIN_RUN ? n : i + MIN_RUN;
			insertion_sort(a, i, end, j, size, o);
		}
		run[n_run++] = i;
		i = end;
	}
	run[n_run] = n;
	dst = tmp;
	while (n_run > 1) {
		size_t r, k = 0;
		for (r = 0; r + 1 < n_run; r += 2) {
			merge(src, dst, run[r], run[r + 1], run[r + 2], size, o);
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

int opmfu_sort_idx(uint32_t *v, size_t n, opmfu_less_fn less, const void *ctx)
{
	struct order o = { less_idx, less, ctx, NULL };
	return merge_sort((char *)v, n, sizeof(*v), &o);
}

int opmfu_sort_array(void *v, size_t n, size_t size, opmfu_less_elem_fn less)
{
	struct order o = { less_elem, NULL, NULL, less };
	if (size == 0 || size > OPMFU_SORT_MAX_ELEM)
		return -1;
	return merge_sort(v, n, size, &o);
}

/* An index sort over the elements of an array. */
struct by_elem {
	const char *v;
	size_t size;
	opmfu_less_elem_fn less;
};

/* the index sort's order for opmfu_sort_array_lean, one call fewer than through opmfu_sort_idx */
static int less_at(const struct order *o, const void *a, const void *b)
{
	const struct by_elem *e = o->ctx;
	return e->less(e->v + (size_t)*(const uint32_t *)a * e->size, e->v + (size_t)*(const uint32_t *)b * e->size);
}

int opmfu_sort_array_lean(void *v, size_t n, size_t size, opmfu_less_elem_fn less)
{
	struct by_elem e = { v, size, less };
	struct order o = { less_at, NULL, &e, NULL };
	char *a = v, tmp[OPMFU_SORT_MAX_ELEM];
	uint32_t *ord;
	size_t i;

	if (size == 0 || size > OPMFU_SORT_MAX_ELEM || n >= UINT32_MAX)
		return -1;
	if (n <= MIN_RUN)
		return opmfu_sort_array(v, n, size, less); /* no memory needed */
	if (!(ord = opmfu_malloc(n * sizeof(*ord))))
		return -1;
	for (i = 0; i < n; i++)
		ord[i] = (uint32_t)i;
	/* ties by position: the same order as opmfu_sort_array's */
	if (merge_sort((char *)ord, n, sizeof(*ord), &o)) {
		opmfu_free(ord);
		return -1;
	}
	/* position k takes the element at ord[k]: follow each cycle once, a
	 * placed position marked by ord[k] = k */
	for (i = 0; i < n; i++) {
		size_t k = i, j;
		if (ord[i] == i)
			continue;
		memcpy(tmp, a + i * size, size);
		for (;;) {
			j = ord[k];
			ord[k] = (uint32_t)k;
			if (j == i) {
				memcpy(a + k * size, tmp, size);
				break;
			}
			memcpy(a + k * size, a + j * size, size);
			k = j;
		}
	}
	opmfu_free(ord);
	return 0;
}

int opmfu_less_double(const void *a, const void *b)
{
	return *(const double *)a < *(const double *)b;
}
