/*
 * hash.h - integer mixing for the open-addressing tables of the analysis and
 * the join, and a counting sort that groups indexes by a small key.
 */
#ifndef OPMFU_HASH_H
#define OPMFU_HASH_H

#include <stddef.h>
#include <stdint.h>

/* A 64-bit finalizer (murmur3's): every input bit affects every output bit. */
static inline uint64_t opmfu_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/*
 * Groups 0..n-1 by key[i] (< n_keys), stably: on return, for each key k the
 * indexes with that key are ord[off[k] .. off[k+1]). *off_out (n_keys + 1
 * entries) and *ord_out (n entries) are allocated here and owned by the caller.
 * Returns 0, or -1 on allocation failure (nothing allocated).
 */
int opmfu_bucket(const uint32_t *key, size_t n, size_t n_keys, uint32_t **off_out, uint32_t **ord_out);

#endif
