/*
 * bucket.h - a counting sort that groups indexes by a small key.
 */
#ifndef OPMFU_BUCKET_H
#define OPMFU_BUCKET_H

#include <stddef.h>
#include <stdint.h>

/*
 * Groups 0..n-1 by key[i] (< n_keys), stably: on return, for each key k the
 * indexes with that key are ord[off[k] .. off[k+1]). *off_out (n_keys + 1
 * entries) and *ord_out (n entries) are allocated here and owned by the caller.
 * Returns 0, or -1 on allocation failure (nothing allocated).
 */
int opmfu_bucket(const uint32_t *key, size_t n, size_t n_keys, uint32_t **off_out, uint32_t **ord_out);

#endif
