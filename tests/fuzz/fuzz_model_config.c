/*
 * fuzz_model_config.c - config.json through yajl (read/model_config.c) into
 * the model config, then every convention of mflops/ on it: whatever the
 * bytes, a config read is one the formulas can take (counts in range, layer
 * counts consistent) and they give finite, non-negative FLOPs.
 *
 * Input: the config's bytes, then optionally a NUL and --set strings
 * ("FIELD=VALUE"), each ended by a NUL (at most 8).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_json.h"
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
	const char *set[8];
	char *copy = NULL;
	size_t n_set = 0, len = size, i, start;
	const uint8_t *nul = memchr(data, 0, size);
	enum opmfu_status st;

	if (nul) {
		/* the --set strings, NUL-terminated in a copy */
		len = (size_t)(nul - data);
		if (!(copy = malloc(size - len + 1)))
			return 0;
		memcpy(copy, nul + 1, size - len - 1);
		copy[size - len - 1] = '\0';
		for (i = start = 0; i < size - len && n_set < 8; i++)
			if (copy[i] == '\0') {
				set[n_set++] = copy + start;
				start = i + 1;
				if (start >= size - len - 1)
					break;
			}
	}
	st = opmfu_model_config_parse((const char *)data, len, "fuzz.json", set, n_set, &c, &err);
	free(copy);
	if (st != OPMFU_OK) {
		FUZZ_ASSERT(st == OPMFU_ERR_FORMAT || st == OPMFU_ERR_NOMEM || (st == OPMFU_ERR_USAGE && n_set > 0));
		FUZZ_ASSERT(err.msg[0] != '\0');
		/* offsets count in the config's text, data[0..len) */
		if (!strstr(err.msg, "--set"))
			fuzz_json_cap_check("fuzz_model_config", err.msg, len);
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
