/*
 * fuzz_shape_list.c - the model's shape list parser (trace/shape.h): never
 * writes past the room given, says how much room it needs, and what it
 * parses prints back to the same dims.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "trace/shape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int64_t small_d[4], *d = NULL, *d2 = NULL;
	uint32_t small_e[2], *e = NULL, *e2 = NULL;
	struct opmfu_shape sh = { small_d, small_e, 4, 2, 0, 0 }, again;
	char *txt = NULL;
	size_t i, k, n = 0;
	int rc = opmfu_shape_parse((const char *)data, size, &sh);

	FUZZ_ASSERT(rc == 0 || rc == -1 || rc == -2);
	if (rc == -1)
		return 0;
	if (rc == -2) {
		/* the room it asked for is enough */
		FUZZ_ASSERT(sh.n_dims > 4 || sh.n_tensors > 2);
		d = malloc((sh.n_dims + 1) * sizeof(*d));
		e = malloc(sh.n_tensors * sizeof(*e));
		FUZZ_ASSERT(d && e);
		sh = (struct opmfu_shape){ d, e, sh.n_dims, sh.n_tensors, 0, 0 };
		FUZZ_ASSERT(opmfu_shape_parse((const char *)data, size, &sh) == 0);
	}
	FUZZ_ASSERT(sh.n_tensors >= 1 && sh.end[sh.n_tensors - 1] == sh.n_dims);
	/* print it back and parse that: the same dims */
	txt = malloc(sh.n_dims * 21 + sh.n_tensors + 1);
	FUZZ_ASSERT(txt != NULL);
	for (i = 0; i < sh.n_tensors; i++) {
		for (k = 0; k < opmfu_shape_rank(&sh, i); k++) {
			FUZZ_ASSERT(opmfu_shape_dims(&sh, i)[k] >= 0);
			n += (size_t)sprintf(txt + n, "%s%lld", k ? "," : "", (long long)opmfu_shape_dims(&sh, i)[k]);
		}
		if (i + 1 < sh.n_tensors)
			txt[n++] = ';';
	}
	d2 = malloc((sh.n_dims + 1) * sizeof(*d2));
	e2 = malloc(sh.n_tensors * sizeof(*e2));
	FUZZ_ASSERT(d2 && e2);
	again = (struct opmfu_shape){ d2, e2, sh.n_dims, sh.n_tensors, 0, 0 };
	FUZZ_ASSERT(opmfu_shape_parse(txt, n, &again) == 0);
	FUZZ_ASSERT(again.n_dims == sh.n_dims && again.n_tensors == sh.n_tensors);
	FUZZ_ASSERT(memcmp(again.dims, sh.dims, sh.n_dims * sizeof(*d2)) == 0);
	FUZZ_ASSERT(memcmp(again.end, sh.end, sh.n_tensors * sizeof(*e2)) == 0);
	free(txt);
	free(d);
	free(e);
	free(d2);
	free(e2);
	return 0;
}
