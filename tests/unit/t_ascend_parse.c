/*
 * t_ascend_parse.c - the Ascend strings the reader normalises: FLOPs
 * messages (SPEC 1.3, 7), dtype lists under the reference's rule (SPEC 2.4,
 * 5.1) and SPEC 8's, the dtype table entry, and quoted shape strings.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "read/ascend/ascend_parse.h"

static int flops_of(const char *msg, long long *flops, const char **name, enum opmfu_drop *why)
{
	int64_t f = -1;
	size_t off = 0;
	int rc = opmfu_ascend_flops_msg(msg, strlen(msg), &f, &off, why);
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
	return opmfu_ascend_dtype_ref(s, s ? strlen(s) : 0, bad, 48);
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
	opmfu_ascend_shape_strip(s, strlen(s), &a, &n);
	CHECK_INT(a, 1);
	CHECK_INT(n, strlen(s) - 2);
	s = "'\"64,8;;\"'";
	opmfu_ascend_shape_strip(s, strlen(s), &a, &n);
	CHECK_INT(n, 6);
	CHECK(memcmp(s + a, "64,8;;", 6) == 0);
	s = "\"\"";
	opmfu_ascend_shape_strip(s, strlen(s), &a, &n);
	CHECK_INT(n, 0);
	CHECK(opmfu_ascend_shape_is_na("N/A", 3));
	CHECK(opmfu_ascend_shape_is_na("\"N/A\"", 5));
	CHECK(!opmfu_ascend_shape_is_na("N/A;N/A", 7));
	CHECK(!opmfu_ascend_shape_is_na("", 0));
}

static enum opmfu_prec prec(const char *s)
{
	return opmfu_ascend_dtype_prec(s, s ? strlen(s) : 0);
}

/* SPEC 8: FLOAT is fp32, more names, no default for an empty list */
static void test_dtype_prec(void)
{
	CHECK_INT(prec("FLOAT;FLOAT"), OPMFU_PREC_FP32);
	CHECK_INT(prec("DT_FLOAT"), OPMFU_PREC_FP32);
	CHECK_INT(prec("DT_BF16;FLOAT;INT32;FLOAT"), OPMFU_PREC_FP16);
	CHECK_INT(prec(" float16 ;INT8"), OPMFU_PREC_FP16);
	CHECK_INT(prec("INT8;INT8;FLOAT"), OPMFU_PREC_INT8);
	CHECK_INT(prec("INT64;DT_HIFLOAT8"), OPMFU_PREC_FP8);
	CHECK_INT(prec("DT_FLOAT4_E2M1;FLOAT"), OPMFU_PREC_FP4);
	CHECK_INT(prec("HFLOAT32"), OPMFU_PREC_TF32);
	CHECK_INT(prec("INT64;INT32"), OPMFU_PREC_NONE);
	CHECK_INT(prec(""), OPMFU_PREC_NONE);
	CHECK_INT(prec(NULL), OPMFU_PREC_NONE);
	CHECK_INT(prec("DOUBLE;FLOAT"), OPMFU_PREC_UNSUPPORTED);
	CHECK_INT(prec("DT_INT4"), OPMFU_PREC_UNSUPPORTED);
	/* names only SPEC 8 knows stop the reference's rule */
	CHECK_INT(pick("DT_FLOAT4_E2M1;FLOAT", NULL), OPMFU_DT_UNSUPPORTED);
	CHECK_STR(opmfu_prec_name(OPMFU_PREC_TF32), "tf32");
	CHECK_STR(opmfu_prec_name(OPMFU_PREC_NONE), "none");
}

/* The dtype table entry: both classes and the summary's example. */
static void test_dtype_entry(void)
{
	struct opmfu_strtab s;
	struct opmfu_dtype d;
	uint32_t f16, bad, idx, longidx;

	opmfu_strtab_init(&s);
	f16 = opmfu_strtab_intern(&s, "DT_BF16;FLOAT", 13);
	bad = opmfu_strtab_intern(&s, "INT64;double", 12);
	idx = opmfu_strtab_intern(&s, "INT64;INT32", 11);
	longidx = opmfu_strtab_intern(&s, "INT32;INT64;INT32;INT64;INT32;INT64;INT32;INT64", 47);
	opmfu_ascend_dtype(&s, f16, &d);
	CHECK_INT(d.text, f16);
	CHECK_INT(d.ref, OPMFU_DT_FP16);
	CHECK_INT(d.prec, OPMFU_PREC_FP16);
	CHECK_STR(d.example, "");
	opmfu_ascend_dtype(&s, bad, &d);
	CHECK_INT(d.ref, OPMFU_DT_UNSUPPORTED);
	CHECK_INT(d.prec, OPMFU_PREC_UNSUPPORTED);
	CHECK_STR(d.example, "DOUBLE"); /* the entry at fault, as the summary names it */
	opmfu_ascend_dtype(&s, idx, &d);
	CHECK_INT(d.ref, OPMFU_DT_NONE);
	CHECK_INT(d.prec, OPMFU_PREC_NONE);
	CHECK_STR(d.example, "INT64;INT32"); /* only index types: the whole list */
	opmfu_ascend_dtype(&s, longidx, &d);
	CHECK_INT(strlen(d.example), 40); /* cut as the summary cuts it */
	CHECK(memcmp(d.example, "INT32;INT64;INT32;INT64;INT32;INT64;INT3", 40) == 0);
	opmfu_strtab_release(&s);
}

/* Every string as the model takes a shape: quotes gone, N/A the unknown sid. */
static void test_shape_map(void)
{
	struct opmfu_strtab s;
	uint32_t q, plain, na, qna, empty, map[16], unknown = 0;
	size_t n = 0;

	opmfu_strtab_init(&s);
	q = opmfu_strtab_intern(&s, "\"4096,12288;4608,12288\"", 23);
	plain = opmfu_strtab_intern(&s, "64,8;;", 6);
	qna = opmfu_strtab_intern(&s, "\"N/A\"", 5);
	empty = opmfu_strtab_intern(&s, "''", 2);
	CHECK_INT(s.n, 5);
	CHECK_INT(opmfu_ascend_shape_map(&s, map, &n, &unknown), 0);
	na = opmfu_strtab_intern(&s, "N/A", 3);
	CHECK_INT(n, 6); /* the strings before, and N/A */
	CHECK_INT(unknown, na);
	CHECK_INT(map[0], 0);
	CHECK_STR(opmfu_strtab_str(&s, map[q]), "4096,12288;4608,12288");
	CHECK_INT(map[plain], plain);
	CHECK_INT(map[qna], na);
	CHECK_INT(map[na], na);
	CHECK_STR(opmfu_strtab_str(&s, map[empty]), ""); /* empty, not NULL */
	CHECK(map[empty] != 0);
	opmfu_strtab_release(&s);
}

/* Ascend tensor formats as struct opmfu_kext wants them */
static void t_format(void)
{
	static const struct {
		const char *in, *out; /* out NULL: already normal */
	} cases[] = {
		{ "FORMAT_ND;FORMAT_ND;FORMAT_ND", "ND;ND;ND" },
		{ "NC1HWC0:1;NC1HWC0:1;NC1HWC0", "NC1HWC0;NC1HWC0;NC1HWC0" },
		{ "NCHW;FORMAT_ND", "NCHW;ND" },
		{ "NC1HWC0;FRACTAL_Z;NCHW", NULL },
		{ "", NULL },
		{ "FORMAT_", NULL },          /* nothing after the prefix: left as it is */
		{ ";FORMAT_ND:2;", ";ND;" },  /* empty entries stay */
		{ "N/A", NULL },
	};
	char out[64];
	size_t i;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long n = opmfu_ascend_format_norm(cases[i].in, strlen(cases[i].in), out);
		if (!cases[i].out) {
			CHECK_INT(n, -1);
			continue;
		}
		CHECK(n >= 0);
		if (n >= 0) {
			out[n] = '\0';
			CHECK_STR(out, cases[i].out);
		}
	}
}

int main(void)
{
	t_format();
	test_shape_map();
	test_flops_valid();
	test_flops_invalid();
	test_dtypes();
	test_dtype_prec();
	test_dtype_entry();
	test_shapes();
	return check_done();
}
