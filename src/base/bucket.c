/*
 * bucket.c - counting sort into buckets.
 */
#include "base/bucket.h"

#include "base/mem.h"

int opmfu_bucket(const uint32_t *key, size_t n, size_t n_keys, uint32_t **off_out, uint32_t **ord_out)
{
	uint32_t *off = opmfu_calloc(n_keys + 1, sizeof(*off));
	uint32_t *ord = opmfu_malloc((n ? n : 1) * sizeof(*ord));
	size_t i;

	if (!off || !ord) {
		opmfu_free(off);
		opmfu_free(ord);
		return -1;
	}
	for (i = 0; i < n; i++)
		off[key[i] + 1]++;
	for (i = 0; i < n_keys; i++)
		off[i + 1] += off[i];
	/* place with off[] as the running cursor, then shift it back to starts */
	for (i = 0; i < n; i++)
		ord[off[key[i]]++] = (uint32_t)i;
	for (i = n_keys; i > 0; i--)
		off[i] = off[i - 1];
	off[0] = 0;
	*off_out = off;
	*ord_out = ord;
	return 0;
}
