/*
 * fuzz_flops_msg.c - the mfu_flops message parser (SPEC 1.3).
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "read/ascend/ascend_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int64_t flops = -1;
	size_t off = 0;
	enum opmfu_drop why = OPMFU_DROP__COUNT;
	if (opmfu_ascend_flops_msg((const char *)data, size, &flops, &off, &why) == 0) {
		FUZZ_ASSERT(flops > 0);
		FUZZ_ASSERT(off >= 2 && off < size);
		FUZZ_ASSERT(data[off - 1] == '-');
	} else {
		FUZZ_ASSERT(why == OPMFU_DROP_FORMAT || why == OPMFU_DROP_ZERO || why == OPMFU_DROP_OVERFLOW);
	}
	return 0;
}
