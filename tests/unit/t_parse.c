/*
 * t_parse.c - FLOPs messages (SPEC 1.3, 7), dtype lists (SPEC 2.4, 5.1),
 * shape strings, numpy rounding, Python float formatting and TEXT timestamps.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model/parse.h"

static int flops_of(const char *msg, long long *flops, const char **name, enum opmfu_drop *why)
{
	int64_t f = -1;
	size_t off = 0;
	int rc = opmfu_parse_flops_msg(msg, strlen(msg), &f, &off, why);
	*flops = f;
	*name = rc == 0 ? msg + off : NULL;
	return rc;
}

static void test_flops_valid(void)
{
	long long f;
	const char *name;
	enum opmfu_drop why;

	CHECK_INT(flops_of("6442450944-mm", &f, &name, &why), 0);
	CHECK_INT(f, 6442450944LL);
	CHECK_STR(name, "mm");
	/* the name may itself contain '-' */
	CHECK_INT(flops_of("100-demo-op", &f, &name, &why), 0);
	CHECK_INT(f, 100);
	CHECK_STR(name, "demo-op");
	/* decimal forms as Python's str(float) prints them */
	CHECK_INT(flops_of("137438953472.0-npu_fusion_attention", &f, &name, &why), 0);
	CHECK_INT(f, 137438953472LL);
	CHECK_STR(name, "npu_fusion_attention");
	CHECK_INT(flops_of("1.5e+12-mm", &f, &name, &why), 0);
	CHECK_INT(f, 1500000000000LL);
	CHECK_STR(name, "mm");
	CHECK_INT(flops_of("1.5e+16-mm", &f, &name, &why), 0);
	CHECK_INT(f, 15000000000000000LL);
	/* an exponent sign of '-' is part of the number, not the separator */
	CHECK_INT(flops_of("2.5e-01-x", &f, &name, &why), -1);
	CHECK_INT(why, OPMFU_DROP_ZERO); /* 0.25 rounds to 0 */
	CHECK_INT(flops_of("12.5-x", &f, &name, &why), 0);
	CHECK_INT(f, 12); /* half to even */
	CHECK_INT(flops_of("13.5-x", &f, &name, &why), 0);
	CHECK_INT(f, 14);
	/* largest int64 still fits */
	CHECK_INT(flops_of("9223372036854775807-x", &f, &name, &why), 0);
	CHECK_INT(f, 9223372036854775807LL);
}

static void test_flops_invalid(void)
{
	static const struct {
		const char *msg;
		enum opmfu_drop why;
	} cases[] = {
		{ "100:legacy", OPMFU_DROP_FORMAT },
		{ "-5-x", OPMFU_DROP_FORMAT },
		{ "0-x", OPMFU_DROP_ZERO },
		{ "abc-x", OPMFU_DROP_FORMAT },
		{ "nan-x", OPMFU_DROP_FORMAT },
		{ "inf-x", OPMFU_DROP_FORMAT },
		{ "123-", OPMFU_DROP_FORMAT },
		{ "99999999999999999999999-x", OPMFU_DROP_OVERFLOW },
		{ "9223372036854775808-x", OPMFU_DROP_OVERFLOW },
		{ "1e+30-x", OPMFU_DROP_OVERFLOW },
		{ "9.3e18-x", OPMFU_DROP_OVERFLOW },
		{ "", OPMFU_DROP_FORMAT },
		{ "-", OPMFU_DROP_FORMAT },
		{ "12", OPMFU_DROP_FORMAT },
		{ " 12-x", OPMFU_DROP_FORMAT },
		{ "12 -x", OPMFU_DROP_FORMAT },
		{ "1.-x", OPMFU_DROP_FORMAT },
		{ ".5-x", OPMFU_DROP_FORMAT },
		{ "12-a\nb", OPMFU_DROP_FORMAT },
		{ "0.0-x", OPMFU_DROP_ZERO },
	};
	size_t i;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long long f;
		const char *name;
		enum opmfu_drop why = OPMFU_DROP__COUNT;
		int rc = flops_of(cases[i].msg, &f, &name, &why);
		if (rc != -1 || why != cases[i].why)
			fprintf(stderr, "message \"%s\": rc %d why %d\n", cases[i].msg, rc, (int)why);
		CHECK_INT(rc, -1);
		CHECK_INT(why, cases[i].why);
	}
}

static enum opmfu_dtclass pick(const char *s, char *bad)
{
	return opmfu_dtype_pick(s, s ? strlen(s) : 0, bad, 48);
}

static void test_dtypes(void)
{
	char bad[48] = "";
	CHECK_INT(pick("DT_BF16;DT_BF16", bad), OPMFU_DT_FP16);
	CHECK_INT(pick("INT8;INT8;FLOAT", bad), OPMFU_DT_INT8);
	CHECK_INT(pick("FLOAT;FLOAT", bad), OPMFU_DT_FP16);
	CHECK_INT(pick("FLOAT16;FLOAT16", bad), OPMFU_DT_FP16);
	CHECK_INT(pick("BF16", bad), OPMFU_DT_FP16);
	CHECK_INT(pick(" float16 ;INT8", bad), OPMFU_DT_FP16); /* trimmed, upper-cased */
	CHECK_INT(pick("", bad), OPMFU_DT_FP16);
	CHECK_INT(pick(NULL, bad), OPMFU_DT_FP16);
	CHECK_INT(pick(" ; ", bad), OPMFU_DT_FP16);
	/* SPEC 5.1: index types are skipped */
	CHECK_INT(pick("INT64;FLOAT16", bad), OPMFU_DT_FP16);
	CHECK_INT(pick("INT32;BOOL;INT8", bad), OPMFU_DT_INT8);
	CHECK_INT(pick("INT64;INT32", bad), OPMFU_DT_NONE);
	CHECK_INT(pick("DT_FLOAT8_E4M3FN;FLOAT", bad), OPMFU_DT_FP8);
	CHECK_INT(pick("DT_HIFLOAT8", bad), OPMFU_DT_FP8);
	CHECK_INT(pick("DOUBLE;FLOAT", bad), OPMFU_DT_UNSUPPORTED);
	CHECK_STR(bad, "DOUBLE");
	CHECK_INT(pick("INT64;uint8", bad), OPMFU_DT_UNSUPPORTED);
	CHECK_STR(bad, "UINT8");
	CHECK_INT(pick("DT_INT4", bad), OPMFU_DT_UNSUPPORTED);
	CHECK_INT(pick("UNDEFINED", bad), OPMFU_DT_UNSUPPORTED);
	{
		/* a huge entry is neither read past nor copied whole */
		char big[300];
		memset(big, 'X', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		CHECK_INT(pick(big, bad), OPMFU_DT_UNSUPPORTED);
		CHECK_INT(strlen(bad), 47);
	}
}

static void test_shapes(void)
{
	size_t a, n;
	const char *s = "\"4096,12288;4608,12288\"";
	opmfu_shape_strip(s, strlen(s), &a, &n);
	CHECK_INT(a, 1);
	CHECK_INT(n, strlen(s) - 2);
	s = "'\"64,8;;\"'";
	opmfu_shape_strip(s, strlen(s), &a, &n);
	CHECK_INT(n, 6);
	CHECK(memcmp(s + a, "64,8;;", 6) == 0);
	s = "\"\"";
	opmfu_shape_strip(s, strlen(s), &a, &n);
	CHECK_INT(n, 0);
	CHECK(opmfu_shape_is_na("N/A", 3));
	CHECK(opmfu_shape_is_na("\"N/A\"", 5));
	CHECK(!opmfu_shape_is_na("N/A;N/A", 7));
	CHECK(!opmfu_shape_is_na("", 0));
}

static void test_round(void)
{
	/* half to even on the scaled value, as numpy */
	/* 0.00005 * 1e4 is exactly 0.5 in doubles: rounds to even (0);
	 * 0.00015 * 1e4 is 1.4999999999999998: rounds down */
	CHECK_DBL(opmfu_round(0.00005, 4), 0.0);
	CHECK_DBL(opmfu_round(0.00015, 4), 0.0001);
	CHECK_DBL(opmfu_round(0.125, 2), 0.12);
	CHECK_DBL(opmfu_round(0.375, 2), 0.38);
	CHECK_DBL(opmfu_round(2.5, 0), 2.0);
	CHECK_DBL(opmfu_round(353.8944, 2), 353.89);
	CHECK_DBL(opmfu_round(1e300, 4), 1e300); /* scaling overflows: unchanged */
}

static void test_pyfloat(void)
{
	char buf[40];
	static const struct {
		double v;
		const char *s;
	} cases[] = {
		{ 50.0, "50.0" },   { 45.12, "45.12" },   { 0.01, "0.01" },      { 0.1, "0.1" },
		{ 100.0, "100.0" }, { 1e16, "1e+16" },    { 1.5e16, "1.5e+16" }, { 123456789012345.6, "123456789012345.6" },
		{ 0.0001, "0.0001" }, { 0.00001, "1e-05" }, { 2.5e-07, "2.5e-07" }, { 0.0, "0.0" },
		{ 33.33, "33.33" }, { 1234.5, "1234.5" }, { 9999999999999998.0, "9999999999999998.0" },
	};
	size_t i;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		opmfu_format_pyfloat(cases[i].v, buf);
		CHECK_STR(buf, cases[i].s);
	}
	opmfu_format_pyfloat(INFINITY, buf);
	CHECK_STR(buf, "inf");
	opmfu_format_pyfloat(NAN, buf);
	CHECK_STR(buf, "nan");
}

static long long ns_of(const char *txt, int *rc)
{
	int64_t v = -42;
	*rc = opmfu_parse_ns_text(txt, strlen(txt), &v);
	return (long long)v;
}

/* The rule, written the slow way: strtoll over the whole text, trailing
 * spaces allowed, nothing else. */
static int ns_ref(const char *txt, int64_t *out)
{
	char *end;
	long long v;
	if (!*txt || *txt == ' ')
		return -1;
	errno = 0;
	v = strtoll(txt, &end, 10);
	while (*end == ' ')
		end++;
	if (errno || *end || end == txt)
		return -1;
	*out = v;
	return 0;
}

static void test_ns_text(void)
{
	static const struct {
		const char *txt;
		int rc;
		long long v;
	} cases[] = {
		{ "1736410576000013500", 0, 1736410576000013500LL }, /* what real files hold */
		{ "9223372036854775807", 0, 9223372036854775807LL },
		{ "9223372036854775808", -1, 0 }, /* 19 digits past INT64_MAX */
		{ "9999999999999999999", -1, 0 },
		{ "00000000000000000001", 0, 1 }, /* 20 characters: the slow path */
		{ "0", 0, 0 },
		{ "12345678", 0, 12345678 },
		{ "1234567890123456", 0, 1234567890123456LL },
		{ "123456789012345678", 0, 123456789012345678LL },
		{ "-5", 0, -5 },
		{ "+7", 0, 7 },
		{ "12 ", 0, 12 },
		{ " 12", -1, 0 },
		{ "", -1, 0 },
		{ "1.5", -1, 0 },
		{ "1e3", -1, 0 },
		{ "1234567a", -1, 0 },       /* junk in the last byte of a word */
		{ "a2345678", -1, 0 },       /* and in the first */
		{ "12345678:", -1, 0 },      /* ':' follows '9' */
		{ "1234/5678", -1, 0 },      /* '/' precedes '0' */
		{ "12345678\x80", -1, 0 },
		{ "1736410576000013500x", -1, 0 },
	};
	size_t i;
	int rc, k;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long long v = ns_of(cases[i].txt, &rc);
		if (rc != cases[i].rc)
			fprintf(stderr, "'%s'\n", cases[i].txt);
		CHECK_INT(rc, cases[i].rc);
		if (cases[i].rc == 0)
			CHECK(v == cases[i].v);
	}
	/* a NUL inside the value ends the text, as for strtoll */
	{
		int64_t v = 0;
		CHECK_INT(opmfu_parse_ns_text("123\0abc", 7, &v), 0);
		CHECK(v == 123);
	}
	/* random texts of digits with the odd other byte, against the slow rule */
	srand(7);
	for (k = 0; k < 200000; k++) {
		char buf[24];
		int n = 1 + rand() % 22, j;
		int64_t a = -1, b = -2;
		for (j = 0; j < n; j++)
			buf[j] = (char)(rand() % 40 ? '0' + rand() % 10 : 1 + rand() % 255);
		buf[n] = '\0';
		rc = opmfu_parse_ns_text(buf, strlen(buf), &a);
		CHECK_INT(rc, ns_ref(buf, &b));
		if (rc == 0 && a != b) {
			fprintf(stderr, "'%s': %lld, not %lld\n", buf, (long long)a, (long long)b);
			CHECK(a == b);
		}
	}
}

int main(void)
{
	test_flops_valid();
	test_flops_invalid();
	test_dtypes();
	test_shapes();
	test_round();
	test_pyfloat();
	test_ns_text();
	return check_done();
}
