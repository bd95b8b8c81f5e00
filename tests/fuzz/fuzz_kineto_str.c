/*
 * fuzz_kineto_str.c - the string parsers of read/kineto/kineto_parse.c on
 * any bytes: microseconds to nanoseconds (checked against strtod where a
 * double is exact enough), integers, dtype lists, step and module names,
 * communication kernel names, and what a file name says (rank, timestamp).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "read/kineto/kineto_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	char *z = malloc(size + 1);
	int64_t v, n;
	struct opmfu_dtype d;
	size_t off = 0, len;
	int r;

	FUZZ_ASSERT(z != NULL);
	memcpy(z, data, size);
	z[size] = '\0';
	if (opmfu_kineto_us_to_ns(s, size, &v) == 0 && strlen(z) == size) {
		/* within 2^53 ns a double holds the value: strtod agrees to the ns */
		double x = strtod(z, NULL) * 1000.0;
		if (fabs(x) < 9e15)
			FUZZ_ASSERT(fabs(x - (double)v) <= 1.0);
	}
	if (opmfu_kineto_int(s, size, &v) == 0) {
		int64_t w;
		FUZZ_ASSERT(opmfu_kineto_us_to_ns(s, size, &w) == 0 || v > INT64_MAX / 1000 || v < -(INT64_MAX / 1000));
	}
	opmfu_kineto_dtype(s, size, 1, &d);
	FUZZ_ASSERT((d.ref >= 0 && d.ref < OPMFU_DT__COUNT) || d.ref == OPMFU_DT_UNSUPPORTED || d.ref == OPMFU_DT_NONE);
	FUZZ_ASSERT((d.prec >= 0 && d.prec < OPMFU_PREC__COUNT) || d.prec == OPMFU_PREC_UNSUPPORTED ||
		    d.prec == OPMFU_PREC_NONE);
	FUZZ_ASSERT(memchr(d.example, '\0', sizeof(d.example)) != NULL);
	if (d.ref == OPMFU_DT_NONE)
		FUZZ_ASSERT(d.prec == OPMFU_PREC_NONE);
	if (opmfu_kineto_step(s, size, &n))
		FUZZ_ASSERT(n >= 0 && size > 13 && !memcmp(s, "ProfilerStep#", 13));
	if (opmfu_kineto_is_module(s, size))
		FUZZ_ASSERT(size > OPMFU_KINETO_MODULE_PREFIX_LEN);
	(void)opmfu_kineto_is_comm(s, size);
	(void)opmfu_kineto_comm_kind(s, size);
	/* file names: NUL-terminated */
	(void)opmfu_kineto_trace_name(z);
	r = opmfu_kineto_name_rank(z);
	FUZZ_ASSERT(r >= -1 && r <= 999999999);
	len = opmfu_kineto_name_stamp(z, &off);
	if (len) {
		size_t i;
		FUZZ_ASSERT(len >= 10 && off + len <= strlen(z));
		for (i = 0; i < len; i++)
			FUZZ_ASSERT(z[off + i] >= '0' && z[off + i] <= '9');
	}
	free(z);
	return 0;
}
