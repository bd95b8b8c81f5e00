/*
 * fuzz_dtype.c - the input dtype list parser (SPEC 2.4, 5.1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "model/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char bad[48];
	enum opmfu_dtclass c;
	memset(bad, 'Z', sizeof(bad));
	c = opmfu_dtype_pick((const char *)data, size, bad, sizeof(bad));
	FUZZ_ASSERT(c == OPMFU_DT_FP16 || c == OPMFU_DT_INT8 || c == OPMFU_DT_FP8 || c == OPMFU_DT_UNSUPPORTED ||
		    c == OPMFU_DT_NONE);
	if (c == OPMFU_DT_UNSUPPORTED)
		FUZZ_ASSERT(memchr(bad, '\0', sizeof(bad)) != NULL);
	return 0;
}
