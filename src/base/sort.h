/*
 * sort.h - stable sorts under a caller's order: of index arrays, and of
 * arrays of small structs.
 */
#ifndef OPMFU_SORT_H
#define OPMFU_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Nonzero when index a goes strictly before index b. */
typedef int (*opmfu_less_fn)(const void *ctx, uint32_t a, uint32_t b);

/*
 * Sorts v[0, n) stably by less. Nearly sorted input (tables written in time
 * order) costs one pass; any input O(n log n). Up to 32 elements need no
 * memory; otherwise returns -1, with v unchanged, when allocation fails.
 */
int opmfu_sort_idx(uint32_t *v, size_t n, opmfu_less_fn less, const void *ctx);

/* Nonzero when the element at a goes strictly before the one at b. */
typedef int (*opmfu_less_elem_fn)(const void *a, const void *b);

/* The largest element opmfu_sort_array takes. */
#define OPMFU_SORT_MAX_ELEM 128

/*
 * Sorts the array v of n elements of `size` bytes (at most
 * OPMFU_SORT_MAX_ELEM) stably by less, moving the elements: the same
 * natural merge sort, so nearly sorted input costs one pass. Up to 32
 * elements need no memory; otherwise returns -1, with v unchanged, when
 * allocation fails (or size is out of range).
 */
int opmfu_sort_array(void *v, size_t n, size_t size, opmfu_less_elem_fn less);

/*
 * The same order as opmfu_sort_array, for large elements: sorts an index
 * array (4 bytes per element and the sort's 4) and then moves each element
 * once along the cycles of the permutation, instead of merging through a
 * copy of the whole array. Returns -1 as opmfu_sort_array does (also for n
 * of UINT32_MAX or more), with v unchanged.
 */
int opmfu_sort_array_lean(void *v, size_t n, size_t size, opmfu_less_elem_fn less);

/* The ascending order of doubles, for opmfu_sort_array. */
int opmfu_less_double(const void *a, const void *b);

/* The median of x[0 .. n) sorted ascending, n > 0: the mean of the middle
 * two when n is even. */
static inline double opmfu_median_sorted(const double *x, size_t n)
{
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

#endif
