/*
 * fuzz_format.c - the Ascend tensor format list normaliser (inputFormats,
 * outputFormats of COMPUTE_TASK_INFO): never longer than its input, entry
 * count kept, idempotent, and no entry left with a FORMAT_ prefix or a ':'.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "read/ascend/ascend_parse.h"

static size_t entries(const char *s, size_t n)
{
	size_t i, k = 1;
	for (i = 0; i < n; i++)
		k += s[i] == ';';
	return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *out = malloc(size + 1), *again = malloc(size + 1);
	const char *s = (const char *)data;
	long n, m;

	FUZZ_ASSERT(out && again);
	n = opmfu_ascend_format_norm(s, size, out);
	if (n < 0) {
		/* unchanged: nothing to strip */
		FUZZ_ASSERT(!memchr(s, ':', size));
		free(out);
		free(again);
		return 0;
	}
	FUZZ_ASSERT((size_t)n <= size && entries(out, (size_t)n) == entries(s, size));
	FUZZ_ASSERT(!memchr(out, ':', (size_t)n));
	/* a second pass changes nothing unless an entry was FORMAT_FORMAT_... */
	m = opmfu_ascend_format_norm(out, (size_t)n, again);
	FUZZ_ASSERT(m < 0 || m < n);
	free(out);
	free(again);
	return 0;
}
