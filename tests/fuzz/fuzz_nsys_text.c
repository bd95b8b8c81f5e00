/*
 * fuzz_nsys_text.c - the NVTX text parser of read/nsys/nsys_nvtx.c on any
 * bytes: the name is a prefix of the text, the kinds agree with it, a
 * parsed sizes field is a well-formed shape list (digits, ',' and ';'),
 * and the dtype a kernel name implies is one the dtype table knows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "read/kineto/kineto_parse.h"
#include "read/nsys/nsys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct nsys_text x;
	struct sbuf shapes;
	const char *dt;
	size_t i;

	sbuf_init(&shapes);
	FUZZ_ASSERT(opmfu_nsys_parse_text(s, size, &x, &shapes) == 0);
	FUZZ_ASSERT(x.name == s && x.name_len <= size);
	if (x.kind == NSYS_TEXT_STEP)
		FUZZ_ASSERT(x.step >= 0 && x.name_len > 13 && !memcmp(s, "ProfilerStep#", 13));
	if (x.kind == NSYS_TEXT_MODULE)
		FUZZ_ASSERT(x.name_len > 11 && !memcmp(s, "nn.Module: ", 11));
	FUZZ_ASSERT(x.seq >= -1 && x.op_id >= -1);
	if (x.shapes_ok) {
		FUZZ_ASSERT(x.has_sizes);
		for (i = 0; i < shapes.len; i++)
			FUZZ_ASSERT((shapes.buf[i] >= '0' && shapes.buf[i] <= '9') || shapes.buf[i] == ',' ||
				    shapes.buf[i] == ';');
	} else {
		FUZZ_ASSERT(shapes.len == 0);
	}
	if ((dt = opmfu_nsys_kernel_dtype(s, size))) {
		struct opmfu_dtype d;
		opmfu_kineto_dtype(dt, strlen(dt), 1, &d);
		FUZZ_ASSERT(d.prec >= 0 && d.prec < OPMFU_PREC__COUNT);
	}
	sbuf_release(&shapes);
	return 0;
}
