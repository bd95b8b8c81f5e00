/*
 * fuzz_model_config.c - config.json through yajl (read/model_config.c) into
 * the model config, then every convention of mflops/ on it: whatever the
 * bytes, a config read is one the formulas can take (counts in range, layer
 * counts consistent) and they give finite, non-negative FLOPs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "mflops/mflops.h"
#include "read/model_config.h"

static void conventions(const struct opmfu_model_cfg *c, int forward_only)
{
	struct opmfu_model_run r = { 4096, 64, 2, 8192, 8, 4, 3, 2, forward_only, !forward_only };
	struct opmfu_mflops f;
	int k;

	for (k = 0; k < OPMFU_MC_N; k++) {
		opmfu_mflops(k, c, &r, &f);
		FUZZ_ASSERT(f.text[0] != '\0');
		if (!f.applies)
			continue;
		FUZZ_ASSERT(isfinite(f.per_step) && f.per_step > 0);
		FUZZ_ASSERT(isfinite(f.per_device) && f.per_device > 0 && f.per_device <= f.per_step);
		FUZZ_ASSERT(f.weights >= 0 && f.attention >= 0);
		FUZZ_ASSERT(f.per_token == -1 || (isfinite(f.per_token) && f.per_token > 0));
		FUZZ_ASSERT(f.params >= 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct opmfu_model_cfg c;
	struct opmfu_err err = OPMFU_ERR_INIT;
	enum opmfu_status st = opmfu_model_config_parse((const char *)data, size, "fuzz.json", NULL, 0, &c, &err);

	if (st != OPMFU_OK) {
		FUZZ_ASSERT(st == OPMFU_ERR_FORMAT || st == OPMFU_ERR_NOMEM);
		FUZZ_ASSERT(err.msg[0] != '\0');
		return 0;
	}
	FUZZ_ASSERT(c.layers >= 1 && c.hidden >= 1 && c.heads >= 1 && c.head_dim >= 0);
	FUZZ_ASSERT(c.moe_layers >= 0 && c.moe_layers <= c.layers);
	FUZZ_ASSERT(c.window_layers >= 0 && c.chunk_layers >= 0 && c.window_layers + c.chunk_layers <= c.layers);
	FUZZ_ASSERT(c.experts == 0 || (c.top_k >= 1 && c.top_k <= c.experts));
	FUZZ_ASSERT(opmfu_mflops_params(&c) >= 0);
	conventions(&c, 0);
	conventions(&c, 1);
	return 0;
}
