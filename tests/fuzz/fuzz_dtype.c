/*
 * fuzz_dtype.c - the Ascend input dtype list parser, under the reference's
 * rule (SPEC 2.4, 5.1) and SPEC 8's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "read/ascend/ascend_parse.h"
#include "trace/dtype.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char bad[48];
	enum opmfu_dtclass c;
	enum opmfu_prec p;
	memset(bad, 'Z', sizeof(bad));
	c = opmfu_ascend_dtype_ref((const char *)data, size, bad, sizeof(bad));
	FUZZ_ASSERT(c == OPMFU_DT_FP16 || c == OPMFU_DT_INT8 || c == OPMFU_DT_FP8 || c == OPMFU_DT_UNSUPPORTED ||
		    c == OPMFU_DT_NONE);
	if (c == OPMFU_DT_UNSUPPORTED)
		FUZZ_ASSERT(memchr(bad, '\0', sizeof(bad)) != NULL);
	p = opmfu_ascend_dtype_prec((const char *)data, size);
	FUZZ_ASSERT((p >= 0 && p < OPMFU_PREC__COUNT) || p == OPMFU_PREC_UNSUPPORTED || p == OPMFU_PREC_NONE);
	/* both rules skip the same index types and stop at the same entry,
	 * and SPEC 8 knows every name the reference knows */
	if (c == OPMFU_DT_NONE)
		FUZZ_ASSERT(p == OPMFU_PREC_NONE);
	if (p == OPMFU_PREC_NONE)
		FUZZ_ASSERT(c == OPMFU_DT_NONE || c == OPMFU_DT_FP16);
	if (p == OPMFU_PREC_UNSUPPORTED)
		FUZZ_ASSERT(c == OPMFU_DT_UNSUPPORTED);
	/* the same bytes as a GPU kernel name (SPEC 20's TF32 rule) */
	{
		int tf = opmfu_kernel_runs_tf32((const char *)data, size);
		FUZZ_ASSERT(tf == 0 || tf == 1);
		if (tf)
			FUZZ_ASSERT(size >= 4);
	}
	return 0;
}
