/*
 * t_json.c - the JSON reader and info.json peak computation (SPEC 1.4).
 */
#include <string.h>

#include "base/json.h"
#include "check.h"
#include "read/rankdir.h"

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
	/* 24 * 1800 * 8192 * 1e6 = 353.8944 TFLOPS, and twice that for int8 */
	CHECK_DBL(ci.peak_fp16, 353894400000000.0);
	CHECK_DBL(ci.peak_int8, 707788800000000.0);
	/* numbers as strings and strings as numbers are both accepted */
	CHECK_INT(info("{\"DeviceInfo\":[{\"ai_core_num\":\"20\",\"aic_frequency\":1650}]}", &ci, &e), OPMFU_OK);
	CHECK_DBL(ci.peak_fp16, 20.0 * 1650 * 8192 * 1e6);
	/* faults name the field */
	CHECK_INT(info("{\"DeviceInfo\":[]}", &ci, &e), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "no DeviceInfo[0] object");
	CHECK_INT(info("{\"DeviceInfo\":[{\"aic_frequency\":\"1800\"}]}", &ci, &e), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "DeviceInfo[0] has no ai_core_num");
	CHECK_INT(info("{\"DeviceInfo\":[{\"ai_core_num\":24}]}", &ci, &e), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "DeviceInfo[0] has no aic_frequency");
	CHECK_INT(info("{\"DeviceInfo\":[{\"ai_core_num\":24.5,\"aic_frequency\":\"1800\"}]}", &ci, &e),
		  OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "DeviceInfo[0].ai_core_num is not an integer");
	CHECK_INT(info("{\"DeviceInfo\":[{\"ai_core_num\":24,\"aic_frequency\":\"fast\"}]}", &ci, &e),
		  OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "DeviceInfo[0].aic_frequency is not a number of MHz");
	CHECK_INT(info("{\"DeviceInfo\":[{\"ai_core_num\":true,\"aic_frequency\":\"1800\"}]}", &ci, &e),
		  OPMFU_ERR_FORMAT);
	CHECK_INT(info("{\"DeviceInfo\":[{\"ai_core_num\":0,\"aic_frequency\":\"1800\"}]}", &ci, &e),
		  OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "DeviceInfo[0] gives 0 AI cores at 1800 MHz: not a usable chip");
	CHECK_INT(info("{\"DeviceInfo\":[{\"ai_core_num\":24,\"aic_frequency\":\"-5\"}]}", &ci, &e),
		  OPMFU_ERR_FORMAT);
	CHECK_INT(info("{\"DeviceInfo\":{\"ai_core_num\":24}}", &ci, &e), OPMFU_ERR_FORMAT);
	CHECK_INT(info("not json", &ci, &e), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "invalid JSON at byte 0: unexpected character");
	CHECK_INT(info("{\"DeviceInfo\":[{\"ai_core_num\":24,", &ci, &e), OPMFU_ERR_FORMAT);
	CHECK_INT(info("", &ci, &e), OPMFU_ERR_FORMAT);
}

static void test_json(void)
{
	struct json_doc d;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char buf[64], deep[600];
	const char *t = "{\"a\":[1,{\"b\":\"x\\u00e9\\n\"},[]],\"c\":null,\"d\":-1.5e3}";
	size_t a, i;

	CHECK_INT(json_parse(&d, t, strlen(t), &e), OPMFU_OK);
	a = json_get(&d, 0, "a");
	CHECK_INT(d.nodes[a].type, JSON_ARRAY);
	CHECK_INT(d.nodes[a].count, 3);
	CHECK(json_string(&d, json_get(&d, json_at(&d, a, 1), "b"), buf, sizeof(buf)) == 0);
	CHECK_STR(buf, "x\xc3\xa9\n");
	CHECK_INT(d.nodes[json_get(&d, 0, "c")].type, JSON_NULL);
	CHECK_INT(d.nodes[json_get(&d, 0, "d")].type, JSON_NUMBER);
	CHECK(json_get(&d, 0, "zz") == JSON_NONE);
	CHECK(json_at(&d, a, 3) == JSON_NONE);
	json_release(&d);

	/* depth is bounded, so a deep document fails cleanly instead of overflowing the stack */
	for (i = 0; i < sizeof(deep) - 1; i++)
		deep[i] = '[';
	deep[sizeof(deep) - 1] = '\0';
	CHECK_INT(json_parse(&d, deep, strlen(deep), &e), OPMFU_ERR_FORMAT);
	CHECK(strstr(e.msg, "nesting too deep") != NULL);
	CHECK_INT(json_parse(&d, "[1,]", 4, &e), OPMFU_ERR_FORMAT);
	CHECK_INT(json_parse(&d, "\"a\x01\"", 4, &e), OPMFU_ERR_FORMAT);
	CHECK_INT(json_parse(&d, "01", 2, &e), OPMFU_ERR_FORMAT);
	CHECK_INT(json_parse(&d, "{\"a\" 1}", 7, &e), OPMFU_ERR_FORMAT);
	CHECK_INT(json_parse(&d, "\xEF\xBB\xBF{}", 5, &e), OPMFU_OK);
	json_release(&d);
}

int main(void)
{
	test_info_json();
	test_json();
	return check_done();
}
