/*
 * fuzz_shape.c - Ascend shape string stripping and the N/A test (SPEC 2.2).
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "read/ascend/ascend_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t a = 0, n = 0;
	const char *s = (const char *)data;
	opmfu_ascend_shape_strip(s, size, &a, &n);
	FUZZ_ASSERT(a + n <= size);
	if (n) {
		FUZZ_ASSERT(s[a] != '"' && s[a] != '\'');
		FUZZ_ASSERT(s[a + n - 1] != '"' && s[a + n - 1] != '\'');
	}
	(void)opmfu_ascend_shape_is_na(s, size);
	return 0;
}
