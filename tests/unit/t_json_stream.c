/*
 * t_json_stream.c - the JSON token cap (read/json_stream.c, SPEC 26), built
 * here with the fuzz build's cap of 64 KiB (tests/unit/meson.build) so that
 * reaching it takes inputs of kilobytes, not 64 MiB (tests/cli/bounds.py
 * checks the real one end to end). A token of exactly the cap is taken; one
 * byte more, a string or a number, fails naming the byte where it starts,
 * whatever the feeds' sizes: split over many, or in one feed longer than the
 * cap (json_stream.c then cuts it in slices), a byte order mark counted.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "read/json_stream.h"

#define CAP ((size_t)64 << 10)

/* the compile-time cap is the one this test is about */
_Static_assert(OPMFU_JSON_TOKEN_MAX == CAP, "t_json_stream is built with a 64 KiB token cap");

struct seen {
	size_t longest; /* the longest string or number text a callback got */
};

static int on_string(void *ctx, const unsigned char *s, size_t len)
{
	struct seen *v = ctx;
	(void)s;
	if (len > v->longest)
		v->longest = len;
	return 1;
}

static int on_number(void *ctx, const char *s, size_t len)
{
	return on_string(ctx, (const unsigned char *)s, len);
}

/* keys count as strings */
static const yajl_callbacks callbacks = { NULL, NULL, NULL, NULL, on_number, on_string, NULL, on_string,
					 NULL, NULL, NULL };

/* Parses text[0..len) fed chunk bytes at a time (0: in one feed). */
static enum opmfu_status parse(const char *text, size_t len, size_t chunk, struct seen *v, struct opmfu_err *e)
{
	struct opmfu_json j;
	enum opmfu_status st;
	size_t at = 0;

	memset(v, 0, sizeof(*v));
	memset(e, 0, sizeof(*e));
	if (!chunk)
		chunk = len;
	st = opmfu_json_init(&j, &callbacks, v, e);
	while (!st && at < len) {
		size_t k = len - at < chunk ? len - at : chunk;
		st = opmfu_json_feed(&j, text + at, k, e);
		at += k;
	}
	if (!st)
		st = opmfu_json_finish(&j, e);
	opmfu_json_release(&j);
	return st;
}

/* prefix, then a string token of token bytes (quotes included) or a number
 * of that many digits, then suffix; malloc'd, its length in *len. */
static char *doc(const char *prefix, int number, size_t token, const char *suffix, size_t *len)
{
	size_t a = strlen(prefix), b = strlen(suffix);
	char *s = malloc(a + token + b + 1);
	if (!s)
		abort();
	memcpy(s, prefix, a);
	memset(s + a, number ? '7' : 'x', token);
	if (!number) {
		s[a] = '"';
		s[a + token - 1] = '"';
	}
	memcpy(s + a + token, suffix, b + 1);
	*len = a + token + b;
	return s;
}

static void cap_case(const char *prefix, int number, const char *suffix, size_t start)
{
	static const size_t chunks[] = { 0, 1000, 4096, 65535, 65536, 65537, 100000 };
	char want[128];
	struct opmfu_err e;
	struct seen v;
	size_t i, len;
	char *at_cap = doc(prefix, number, CAP, suffix, &len);
	char *over = doc(prefix, number, CAP + 1, suffix, &len);

	snprintf(want, sizeof(want), "JSON token longer than 65536 bytes at byte %zu", start);
	for (i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		CHECK_INT(parse(at_cap, strlen(at_cap), chunks[i], &v, &e), OPMFU_OK);
		CHECK_INT(v.longest, number ? CAP : CAP - 2);
		CHECK_INT(parse(over, len, chunks[i], &v, &e), OPMFU_ERR_FORMAT);
		CHECK_STR(e.msg, want);
	}
	free(at_cap);
	free(over);
}

/* A raw line feed in a string is yajl's "control character in string" at
 * its byte, however the text is cut into feeds: json_stream.c gives yajl
 * the text up to a chunk's last line feed unscanned, and its scanner ends a
 * held token at one, so the fault is found where it is even in a string
 * longer than the cap, when the line feed comes first; after the cap's
 * bytes the cap is the fault (at the string's start, byte 7). */
static void line_feed_case(size_t token, size_t lf)
{
	static const size_t chunks[] = { 0, 1, 2, 3, 7, 1000, 65536, 100000 };
	char want[128];
	struct opmfu_err e;
	struct seen v;
	size_t i, len;
	char *text = doc("{\"a\":\n ", 0, token, "}\n", &len);

	text[7 + lf] = '\n';
	if (lf < CAP)
		snprintf(want, sizeof(want), "invalid JSON at byte %zu: control character in string", 7 + lf);
	else
		snprintf(want, sizeof(want), "JSON token longer than 65536 bytes at byte 7");
	for (i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		CHECK_INT(parse(text, len, chunks[i], &v, &e), OPMFU_ERR_FORMAT);
		CHECK_STR(e.msg, want);
	}
	free(text);
}

/* Lines of whole tokens: every value arrives whole at every feed size. */
static void lines_case(void)
{
	static const char text[] = "{\"traceEvents\": [\n{\"ph\": \"X\", \"name\": \"aten::mm\",\n"
				   "\"ts\": 1419247333430.849, \"dur\": 12},\n{\"args\": {\"Input Dims\": "
				   "[[4096, 4096]]}}\n]}\n";
	struct opmfu_err e;
	struct seen v;
	size_t chunk;

	for (chunk = 1; chunk <= sizeof(text) - 1; chunk++) {
		CHECK_INT(parse(text, sizeof(text) - 1, chunk, &v, &e), OPMFU_OK);
		CHECK_INT(v.longest, 17); /* 1419247333430.849 */
	}
}

/* Malformed text that json_stream.c's own parser leaves to yajl at the
 * token it does not take: yajl's message at the byte where the fault is,
 * whatever the feeds' sizes (the offsets by hand below). */
static void handoff_case(const char *text, const char *want)
{
	struct opmfu_err e;
	struct seen v;
	size_t chunk, len = strlen(text);
	for (chunk = 0; chunk <= len; chunk++) {
		CHECK_INT(parse(text, len, chunk, &v, &e), OPMFU_ERR_FORMAT);
		CHECK_STR(e.msg, want);
	}
}

/* Text the own parser reads whole: it does not hand over, and escapes are
 * decoded as yajl decodes them (\u by yajl, after a hand-over). */
static void fast_case(void)
{
	static const char text[] = "{\"a\\n\": [\"x\\\"y\\/\", -0.5e+3, true, null]}";
	struct opmfu_json j;
	struct opmfu_err e;
	struct seen v;

	memset(&v, 0, sizeof(v));
	memset(&e, 0, sizeof(e));
	CHECK_INT(opmfu_json_init(&j, &callbacks, &v, &e), OPMFU_OK);
	CHECK_INT(opmfu_json_feed(&j, text, sizeof(text) - 1, &e), OPMFU_OK);
	CHECK_INT(opmfu_json_finish(&j, &e), OPMFU_OK);
	CHECK_INT(j.fast, 1);
	CHECK_INT(v.longest, 7); /* -0.5e+3 */
	opmfu_json_release(&j);
	memset(&v, 0, sizeof(v));
	CHECK_INT(opmfu_json_init(&j, &callbacks, &v, &e), OPMFU_OK);
	CHECK_INT(opmfu_json_feed(&j, "[\"\\u00e9\"]", 10, &e), OPMFU_OK);
	CHECK_INT(opmfu_json_finish(&j, &e), OPMFU_OK);
	CHECK_INT(j.fast, 0);
	CHECK_INT(v.longest, 2); /* U+00E9 in UTF-8 */
	opmfu_json_release(&j);
}

int main(void)
{
	struct opmfu_json_value val[1];
	struct opmfu_err e;
	char *text;
	size_t len;

	/* a string and a number, as a value and as a key; after a byte order mark */
	cap_case("{\"name\": ", 0, "}", 9);
	cap_case("[1, ", 1, "]", 4);
	cap_case("{", 0, ": 1}", 1);
	cap_case("\xEF\xBB\xBF  [", 0, "]", 6);

	/* a ']' where a value must be: at it (byte 6) */
	handoff_case("[1, 2,]", "invalid JSON at byte 6: unexpected character");
	/* a value where the ':' must be: at it (byte 5) */
	handoff_case("{\"a\" 1}", "invalid JSON at byte 5: expected ':'");
	/* a misspelt literal: where the word starts (byte 6) */
	handoff_case("{\"a\": tru}", "invalid JSON at byte 6: unexpected character");
	/* 01 is 0 then 1: the 1 (byte 2) where ',' or ']' must be */
	handoff_case("[01]", "invalid JSON at byte 2: expected ',' or ']'");
	/* the document ends inside an array: at its end (byte 6) */
	handoff_case("[1, 2 ", "invalid JSON at byte 6: unexpected end of input");
	fast_case();

	/* line feeds: the string opens at byte 7 of '{"a":<LF> "' */
	lines_case();
	line_feed_case(10, 3);
	line_feed_case(CAP + 1000, 100);
	line_feed_case(CAP + 1000, CAP - 2);
	line_feed_case(CAP + 1000, CAP + 500);

	/* info.json's picker, text at once as --set and config.json give it */
	text = doc("{\"DeviceInfo\":[{\"id\":0,\"ai_core_num\":", 0, CAP + 1, "}]}", &len);
	memset(val, 0, sizeof(val));
	val[0].path = "DeviceInfo[0].ai_core_num";
	memset(&e, 0, sizeof(e));
	CHECK_INT(opmfu_json_pick_text(text, len, val, 1, &e), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "JSON token longer than 65536 bytes at byte 37");
	free(text);
	return check_done();
}
