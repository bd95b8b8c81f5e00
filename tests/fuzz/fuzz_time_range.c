/*
 * fuzz_time_range.c - --time-range's parser (trace/filter.c): what it
 * accepts is 0 <= START < END <= 2^62 ns (END may be the open end), and
 * START and END written back in ns parse to themselves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sat.h"
#include "fuzz.h"
#include "trace/filter.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), back[64];
	int64_t a = -1, z = -1, a2 = -1, z2 = -1;

	FUZZ_ASSERT(s);
	memcpy(s, data, size);
	s[size] = '\0'; /* the option's text ends at its first NUL */
	if (opmfu_filter_parse_time(s, &a, &z) == 0) {
		FUZZ_ASSERT(a >= 0 && a < z && a <= OPMFU_TIME_LIMIT);
		FUZZ_ASSERT(z == OPMFU_FILTER_OPEN || z <= OPMFU_TIME_LIMIT);
		if (z == OPMFU_FILTER_OPEN)
			snprintf(back, sizeof(back), "%lldns:", (long long)a);
		else
			snprintf(back, sizeof(back), "%lldns:%lldns", (long long)a, (long long)z);
		FUZZ_ASSERT(opmfu_filter_parse_time(back, &a2, &z2) == 0 && a2 == a && z2 == z);
	} else {
		FUZZ_ASSERT(a == -1 && z == -1);
	}
	free(s);
	return 0;
}
