/*
 * sort.h - a stable sort of index arrays under a caller's order.
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

/*
 * Sorts the array v of n elements of `size` bytes stably by less, which is
 * called with v and two element indexes: an index sort as above, then one
 * gather. Returns -1, with v unchanged, when allocation fails.
 */
int opmfu_sort_array(void *v, size_t n, size_t size, opmfu_less_fn less);

#endif
