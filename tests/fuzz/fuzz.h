/*
 * fuzz.h - the libFuzzer entry point every target defines. The same targets
 * are linked either with libFuzzer (-Dfuzzers=true, clang) or with replay.c,
 * which runs the seed corpus in the normal test suite.
 */
#ifndef OPMFU_FUZZ_H
#define OPMFU_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Input checks abort so the fuzzer (and the replay) reports them. */
#define FUZZ_ASSERT(c)                                                                    \
	do {                                                                              \
		if (!(c)) {                                                               \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                          \
		}                                                                         \
	} while (0)

#endif
