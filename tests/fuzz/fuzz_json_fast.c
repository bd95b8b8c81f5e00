/*
 * fuzz_json_fast.c - read/json_stream.c's own parser against yajl alone on
 * the same bytes: the same callbacks in the same order with the same text
 * and offsets (opmfu_json_offset), and the same status and message, fed in
 * the same chunks. The first input byte sets the chunk size (0: one feed),
 * the second the callback that stops the parse (0: none); the rest is the
 * JSON text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "read/json_stream.h"

struct rec {
	struct opmfu_json json;
	char *log;
	size_t n, cap;
	unsigned calls, stop_at;
};

/* Appends one callback: its kind, offset and text. */
static int note(struct rec *r, char kind, const void *s, size_t len)
{
	char head[64];
	int h = snprintf(head, sizeof(head), "%c@%zu:%zu:", kind, opmfu_json_offset(&r->json), len);
	FUZZ_ASSERT(h > 0 && (size_t)h < sizeof(head));
	if (r->n + (size_t)h + len + 1 > r->cap) {
		r->cap = (r->n + (size_t)h + len + 1) * 2;
		r->log = realloc(r->log, r->cap);
		FUZZ_ASSERT(r->log != NULL);
	}
	memcpy(r->log + r->n, head, (size_t)h);
	r->n += (size_t)h;
	if (len)
		memcpy(r->log + r->n, s, len);
	r->n += len;
	r->log[r->n++] = ';';
	if (++r->calls == r->stop_at)
		return opmfu_json_stop(&r->json, OPMFU_ERR_FORMAT, "stopped at callback %u", r->calls);
	return 1;
}

static int c_null(void *c)
{
	return note(c, 'n', NULL, 0);
}

static int c_bool(void *c, int b)
{
	return note(c, b ? 't' : 'f', NULL, 0);
}

static int c_number(void *c, const char *s, size_t len)
{
	return note(c, '#', s, len);
}

static int c_string(void *c, const unsigned char *s, size_t len)
{
	return note(c, 's', s, len);
}

static int c_key(void *c, const unsigned char *s, size_t len)
{
	return note(c, 'k', s, len);
}

static int c_map(void *c)
{
	return note(c, '{', NULL, 0);
}

static int c_end_map(void *c)
{
	return note(c, '}', NULL, 0);
}

static int c_array(void *c)
{
	return note(c, '[', NULL, 0);
}

static int c_end_array(void *c)
{
	return note(c, ']', NULL, 0);
}

static const yajl_callbacks callbacks = { c_null, c_bool, NULL, NULL, c_number, c_string,
					  c_map, c_key, c_end_map, c_array, c_end_array };

/* Parses text[0..len) in chunks of chunk bytes; fast: 0, yajl alone. */
static enum opmfu_status run(struct rec *r, const uint8_t *text, size_t len, size_t chunk, unsigned stop_at,
			     int fast, struct opmfu_err *e)
{
	enum opmfu_status st;
	size_t at = 0;

	memset(r, 0, sizeof(*r));
	memset(e, 0, sizeof(*e));
	r->stop_at = stop_at;
	st = opmfu_json_init(&r->json, &callbacks, r, e);
	if (!fast)
		r->json.fast = 0;
	while (!st && at < len) {
		size_t k = len - at < chunk ? len - at : chunk;
		st = opmfu_json_feed(&r->json, text + at, k, e);
		at += k;
	}
	if (!st)
		st = opmfu_json_finish(&r->json, e);
	opmfu_json_release(&r->json);
	return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rec a, b;
	struct opmfu_err ea, eb;
	enum opmfu_status sa, sb;
	size_t chunk;
	unsigned stop_at;

	if (size < 2)
		return 0;
	chunk = data[0] ? data[0] : size;
	stop_at = data[1];
	sa = run(&a, data + 2, size - 2, chunk, stop_at, 1, &ea);
	sb = run(&b, data + 2, size - 2, chunk, stop_at, 0, &eb);
	if (sa != sb || strcmp(ea.msg, eb.msg) || a.n != b.n || (a.n && memcmp(a.log, b.log, a.n))) {
		fprintf(stderr, "own parser: %d \"%s\"\n  %.*s\nyajl: %d \"%s\"\n  %.*s\n", sa, ea.msg,
			(int)(a.n > 2000 ? 2000 : a.n), a.log ? a.log : "", sb, eb.msg, (int)(b.n > 2000 ? 2000 : b.n),
			b.log ? b.log : "");
		FUZZ_ASSERT(!"the own parser and yajl differ");
	}
	free(a.log);
	free(b.log);
	return 0;
}
