/*
 * t_info_json.c - info.json and its peak computation (SPEC 1.4), and the
 * JSON layer under it (read/json_stream.c: yajl fed in chunks, the picker,
 * the messages for malformed JSON, every allocation failing in turn).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "check.h"
#include "read/ascend/ascend.h"
#include "read/json_stream.h"

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static enum opmfu_status info(const char *text, struct opmfu_chip_info *ci, struct opmfu_err *e)
{
	memset(ci, 0, sizeof(*ci));
	memset(e, 0, sizeof(*e));
	return opmfu_parse_info_json(text, strlen(text), ci, e);
}

static void test_info_json(void)
{
	struct opmfu_chip_info ci;
	struct opmfu_err e;

	CHECK_INT(info("{\"DeviceInfo\":[{\"id\":0,\"ai_core_num\":24,\"aic_frequency\":\"1800\"}]}", &ci, &e),
		  OPMFU_OK);
	CHECK_INT(ci.ai_core_num, 24);
	CHECK_DBL(ci.aic_mhz, 1800);
	/* 24 * 1800 * 8192 * 1e6 = 353.8944 TFLOPS, and twice that for int8 */
	CHECK_DBL(ci.peak_fp16, 353894400000000.0);
	CHECK_DBL(ci.peak_int8, 707788800000000.0);
	/* numbers as strings and strings as numbers are both accepted */
	CHECK_INT(info("{\"DeviceInfo\":[{\"ai_core_num\":\"20\",\"aic_frequency\":1650}]}", &ci, &e), OPMFU_OK);
	CHECK_DBL(ci.peak_fp16, 20.0 * 1650 * 8192 * 1e6);
	/* the first of a key given twice counts; later devices do not */
	CHECK_INT(info("{\"DeviceInfo\":[{\"ai_core_num\":2,\"ai_core_num\":30,\"aic_frequency\":\"100 \"},"
		       "{\"ai_core_num\":99}],\"DeviceInfo\":[]}", &ci, &e), OPMFU_OK);
	CHECK_INT(ci.ai_core_num, 2);
	CHECK_DBL(ci.aic_mhz, 100);
	/* a UTF-8 byte order mark is skipped */
	CHECK_INT(info("\xEF\xBB\xBF{\"DeviceInfo\":[{\"ai_core_num\":1,\"aic_frequency\":\"1\"}]}", &ci, &e), OPMFU_OK);
	/* faults name the field */
	CHECK_INT(info("{\"DeviceInfo\":[]}", &ci, &e), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "no DeviceInfo[0] object");
	CHECK_INT(info("[{\"DeviceInfo\":[{}]}]", &ci, &e), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "no DeviceInfo[0] object");
	CHECK_INT(info("{\"DeviceInfo\":[{\"aic_frequency\":\"1800\"}]}", &ci, &e), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "DeviceInfo[0] has no ai_core_num");
	CHECK_INT(info("{\"DeviceInfo\":[{\"ai_core_num\":24}]}", &ci, &e), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "DeviceInfo[0] has no aic_frequency");
	CHECK_INT(info("{\"DeviceInfo\":[7]}", &ci, &e), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "DeviceInfo[0] has no ai_core_num");
	CHECK_INT(info("{\"DeviceInfo\":[{\"ai_core_num\":24.5,\"aic_frequency\":\"1800\"}]}", &ci, &e),
		  OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "DeviceInfo[0].ai_core_num is not an integer");
	CHECK_INT(info("{\"DeviceInfo\":[{\"ai_core_num\":24,\"aic_frequency\":\"fast\"}]}", &ci, &e),
		  OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "DeviceInfo[0].aic_frequency is not a number of MHz");
	CHECK_INT(info("{\"DeviceInfo\":[{\"ai_core_num\":true,\"aic_frequency\":\"1800\"}]}", &ci, &e),
		  OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "DeviceInfo[0].ai_core_num is not an integer");
	CHECK_INT(info("{\"DeviceInfo\":[{\"ai_core_num\":0,\"aic_frequency\":\"1800\"}]}", &ci, &e),
		  OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "DeviceInfo[0] gives 0 AI cores at 1800 MHz: not a usable chip");
	CHECK_INT(info("{\"DeviceInfo\":[{\"ai_core_num\":24,\"aic_frequency\":\"-5\"}]}", &ci, &e),
		  OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "DeviceInfo[0] gives 24 AI cores at -5 MHz: not a usable chip");
	CHECK_INT(info("{\"DeviceInfo\":{\"ai_core_num\":24}}", &ci, &e), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "no DeviceInfo[0] object");
	/* malformed JSON says where */
	CHECK_INT(info("not json", &ci, &e), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "invalid JSON at byte 0: unexpected character");
	CHECK_INT(info("<xml>no</xml>", &ci, &e), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "invalid JSON at byte 0: unexpected character");
	CHECK_INT(info("{\"DeviceInfo\":[{\"ai_core_num\":24,", &ci, &e), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "invalid JSON at byte 33: unexpected end of input");
	CHECK_INT(info("", &ci, &e), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "invalid JSON at byte 0: unexpected end of input");
	/* a fault after the fields is still a fault */
	CHECK_INT(info("{\"DeviceInfo\":[{\"ai_core_num\":24,\"aic_frequency\":\"1800\"}]} x", &ci, &e),
		  OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "invalid JSON at byte 59: trailing characters after the value");
}

static void test_info_file(void)
{
	char dir[] = "/tmp/opmfu-info-XXXXXX", path[128];
	struct opmfu_chip_info ci;
	struct opmfu_err e = OPMFU_ERR_INIT;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/info.json.0", dir);
	put_file(path, "{\"DeviceInfo\":[{\"ai_core_num\":24,\"aic_frequency\":\"1800\"}]}\n");
	CHECK_INT(opmfu_read_info_json(path, &ci, &e), OPMFU_OK);
	CHECK_DBL(ci.peak_fp16, 353894400000000.0);
	put_file(path, "{\"DeviceInfo\":[{\"ai_core_num\":\"twenty\",\"aic_frequency\":\"1800\"}]}");
	CHECK_INT(opmfu_read_info_json(path, &ci, &e), OPMFU_ERR_FORMAT);
	{
		char want[256];
		snprintf(want, sizeof(want), "%s: DeviceInfo[0].ai_core_num is not an integer", path);
		CHECK_STR(e.msg, want);
		put_file(path, "<xml>no</xml>");
		CHECK_INT(opmfu_read_info_json(path, &ci, &e), OPMFU_ERR_FORMAT);
		snprintf(want, sizeof(want), "%s: invalid JSON at byte 0: unexpected character", path);
		CHECK_STR(e.msg, want);
	}
	remove(path);
	CHECK_INT(opmfu_read_info_json(path, &ci, &e), OPMFU_ERR_IO);
	CHECK(strstr(e.msg, ": cannot read: No such file or directory") != NULL);
	rmdir(dir);
}

/* Picks paths from text fed in chunks of `chunk` bytes (0: all at once). */
static enum opmfu_status pick(const char *text, size_t chunk, struct opmfu_json_value *v, size_t n,
			      struct opmfu_err *e)
{
	struct opmfu_json_pick p;
	size_t len = strlen(text), at = 0;
	enum opmfu_status st;

	memset(e, 0, sizeof(*e));
	if (chunk == 0)
		return opmfu_json_pick_text(text, len, v, n, e);
	if ((st = opmfu_json_pick_init(&p, v, n, e)))
		return st;
	while (!st && at < len) {
		size_t k = len - at < chunk ? len - at : chunk;
		st = opmfu_json_feed(&p.json, text + at, k, e);
		at += k;
	}
	if (!st)
		st = opmfu_json_finish(&p.json, e);
	opmfu_json_release(&p.json);
	return st;
}

static void test_pick(void)
{
	const char *t = "\xEF\xBB\xBF{\"a\":[1,{\"b\":\"x\\u00e9\\n\"},[]],\"c\":null,\"d\":-1.5e3,\"e\":true,"
			"\"f\":{\"g\":[[0,[5]]]}}";
	struct opmfu_json_value v[8];
	struct opmfu_err e;
	size_t chunk;

	for (chunk = 0; chunk < 5; chunk++) {
		memset(v, 0, sizeof(v));
		v[0].path = "a[1].b";
		v[1].path = "c";
		v[2].path = "d";
		v[3].path = "zz";
		v[4].path = "a[3]";
		v[5].path = "a";
		v[6].path = "e";
		v[7].path = "f.g[0][1][0]";
		CHECK_INT(pick(t, chunk, v, 8, &e), OPMFU_OK);
		CHECK_INT(v[0].type, OPMFU_JSON_STRING);
		CHECK_STR(v[0].text, "x\xc3\xa9\n");
		CHECK_INT(v[0].len, 4);
		CHECK_INT(v[1].type, OPMFU_JSON_NULL);
		CHECK_INT(v[2].type, OPMFU_JSON_NUMBER);
		CHECK_STR(v[2].text, "-1.5e3");
		CHECK_INT(v[3].type, OPMFU_JSON_ABSENT);
		CHECK_INT(v[4].type, OPMFU_JSON_ABSENT);
		CHECK_INT(v[5].type, OPMFU_JSON_ARRAY);
		CHECK_INT(v[6].type, OPMFU_JSON_BOOL);
		CHECK_INT(v[6].truth, 1);
		CHECK_INT(v[7].type, OPMFU_JSON_NUMBER);
		CHECK_STR(v[7].text, "5");
	}
	/* a long number keeps its length; the text is its first 63 bytes */
	memset(v, 0, sizeof(v));
	v[0].path = "[0]";
	CHECK_INT(pick("[1234567890123456789012345678901234567890123456789012345678901234567890]", 0, v, 1, &e),
		  OPMFU_OK);
	CHECK_INT(v[0].len, 70);
	CHECK_INT(strlen(v[0].text), 63);
	/* bad paths are the caller's fault */
	v[0].path = "a[x]";
	CHECK_INT(pick("{}", 0, v, 1, &e), OPMFU_ERR_USAGE);
}

/* The message for malformed text fed whole and one byte at a time. */
static void bad(const char *text, const char *msg)
{
	struct opmfu_json_value v = { "a", OPMFU_JSON_ABSENT, 0, "", 0 };
	struct opmfu_err e;
	CHECK_INT(pick(text, 0, &v, 1, &e), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, msg);
	CHECK_INT(pick(text, 1, &v, 1, &e), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, msg);
}

static void test_malformed(void)
{
	char deep[600];
	size_t i;

	bad("[1,]", "invalid JSON at byte 3: unexpected character");
	bad("\"a\x01\"", "invalid JSON at byte 2: control character in string");
	bad("01", "invalid JSON at byte 1: trailing characters after the value");
	bad("{\"a\" 1}", "invalid JSON at byte 5: expected ':'");
	bad("{} {}", "invalid JSON at byte 3: trailing characters after the value");
	bad("[1 2]", "invalid JSON at byte 3: expected ',' or ']'");
	bad("{\"a\":1]", "invalid JSON at byte 6: expected ',' or '}'");
	bad("[true, tru]", "invalid JSON at byte 7: unexpected character");
	bad("{1:2}", "invalid JSON at byte 1: expected object key");
	bad("[1.]", "invalid JSON at byte 3: bad number");
	bad("[\"\\q\"]", "invalid JSON at byte 3: bad escape");
	bad("[/* no */ 1]", "invalid JSON at byte 1: unexpected character");
	bad("\xEF\xBB", "invalid JSON at byte 0: unexpected character");
	bad("\xEF{}", "invalid JSON at byte 0: unexpected character");
	bad("{\"a\":[1,", "invalid JSON at byte 8: unexpected end of input");
	/* depth is bounded, as it was when the parser recursed */
	for (i = 0; i < sizeof(deep) - 1; i++)
		deep[i] = '[';
	deep[sizeof(deep) - 1] = '\0';
	bad(deep, "invalid JSON at byte 129: nesting too deep");
	for (i = 0; i < 129; i++)
		deep[i] = '[';
	for (; i < 258; i++)
		deep[i] = ']';
	deep[i] = '\0';
	{
		struct opmfu_json_value v = { "a", OPMFU_JSON_ABSENT, 0, "", 0 };
		struct opmfu_err e;
		CHECK_INT(pick(deep, 0, &v, 1, &e), OPMFU_OK);
	}
}

/* Every allocation of a parse failing in turn: out of memory, said so, and
 * nothing left behind (the suite also runs under AddressSanitizer). */
static void test_nomem(void)
{
	static const char head[] = "{\"DeviceInfo\":[{\"id\":0,\"ai_core_num\":24,\"aic_frequency\":\"1800\","
				   "\"pad\":\"0123456789012345678901234567890123456789012345678901234567890123456789\"}],"
				   "\"deep\":";
	char text[sizeof(head) + 300];
	size_t i, n = sizeof(head) - 1;
	struct opmfu_chip_info ci;
	struct opmfu_err e;
	long k, total, before = opmfu_mem_count();
	size_t chunk;

	/* 127 arrays deep: yajl's parse stack grows past its first 128 bytes */
	memcpy(text, head, n);
	for (i = 0; i < 127; i++)
		text[n++] = '[';
	for (i = 0; i < 127; i++)
		text[n++] = ']';
	text[n++] = '}';
	text[n] = '\0';
	CHECK_INT(opmfu_parse_info_json(text, strlen(text), &ci, &e), OPMFU_OK);
	total = opmfu_mem_count() - before;
	CHECK(total >= 3); /* the handle, the lexer, the parse stack growing */
	for (chunk = 0; chunk <= 7; chunk += 7) {
		for (k = 1; k <= total + 2; k++) {
			struct opmfu_json_value v[2] = { { "DeviceInfo[0].ai_core_num", OPMFU_JSON_ABSENT, 0, "", 0 },
							 { "deep", OPMFU_JSON_ABSENT, 0, "", 0 } };
			enum opmfu_status st;
			opmfu_mem_fail_after(k);
			st = pick(text, chunk, v, 2, &e);
			opmfu_mem_fail_after(0);
			if (st) {
				CHECK_INT(st, OPMFU_ERR_NOMEM);
				CHECK_STR(e.msg, "out of memory parsing JSON");
			} else {
				CHECK_STR(v[0].text, "24");
				CHECK_INT(v[1].type, OPMFU_JSON_ARRAY);
			}
		}
	}
}

int main(void)
{
	test_info_json();
	test_info_file();
	test_pick();
	test_malformed();
	test_nomem();
	return check_done();
}
