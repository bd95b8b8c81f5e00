/*
 * fuzz_json.h - for the targets that parse JSON (Kineto traces, info.json,
 * config.json): an input that hits the token cap (read/json_stream.h; 64 KiB
 * in the fuzz build, so -max_len=1048576 reaches it) must fail with the
 * cap's own message, naming the byte where the token starts. Hits are told
 * on stderr at the 1st, 10th, 100th ... so a run shows that the cap was
 * reached.
 */
#ifndef OPMFU_FUZZ_JSON_H
#define OPMFU_FUZZ_JSON_H

#include <stdio.h>
#include <string.h>

#include "fuzz.h"
#include "read/json_stream.h"

/* msg: a failed parse's message; text_len: the length of the JSON text the
 * offsets count in. */
static inline void fuzz_json_cap_check(const char *name, const char *msg, size_t text_len)
{
	static unsigned long hits, next_told = 1;
	const char *c = strstr(msg, "JSON token longer than ");
	size_t cap, at;
	char more;

	if (!c)
		return;
	/* the whole message from there: nothing after the offset */
	FUZZ_ASSERT(sscanf(c, "JSON token longer than %zu bytes at byte %zu%c", &cap, &at, &more) == 2);
	FUZZ_ASSERT(cap == OPMFU_JSON_TOKEN_MAX);
	/* a token that starts at `at` and runs over the cap lies in the text */
	FUZZ_ASSERT(at < text_len && text_len - at > cap);
	if (++hits == next_told) {
		fprintf(stderr, "%s: the JSON token cap (%zu bytes) reached by %lu input%s\n", name, cap, hits,
			hits == 1 ? "" : "s");
		next_told *= 10;
	}
}

#endif
