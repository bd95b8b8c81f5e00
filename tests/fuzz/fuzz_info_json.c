/*
 * fuzz_info_json.c - info.json through yajl (read/json_stream.c) and the peak computation.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_json.h"
#include "read/ascend/ascend.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct opmfu_chip_info ci;
	struct opmfu_err err = OPMFU_ERR_INIT;
	enum opmfu_status st = opmfu_parse_info_json((const char *)data, size, &ci, &err);
	if (st == OPMFU_OK) {
		FUZZ_ASSERT(ci.ai_core_num > 0 && ci.aic_mhz > 0);
		FUZZ_ASSERT(isfinite(ci.peak_fp16) && ci.peak_fp16 > 0 && ci.peak_int8 == 2 * ci.peak_fp16);
	} else {
		FUZZ_ASSERT(st == OPMFU_ERR_FORMAT || st == OPMFU_ERR_NOMEM);
		FUZZ_ASSERT(err.msg[0] != '\0');
		fuzz_json_cap_check("fuzz_info_json", err.msg, size);
	}
	return 0;
}
