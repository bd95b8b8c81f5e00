/*
 * t_parse.c - the model's format-neutral parsers: numpy rounding, Python
 * float formatting, TEXT timestamps, and normalised shape lists.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "trace/parse.h"
#include "trace/shape.h"

/* Parses s with room for 16 dims and 8 tensors; returns the rc. */
static int parse(const char *s, struct opmfu_shape *sh, int64_t *dims, uint32_t *end)
{
	sh->dims = dims;
	sh->end = end;
	sh->cap_dims = 16;
	sh->cap_tensors = 8;
	sh->n_dims = sh->n_tensors = 99;
	return opmfu_shape_parse(s, strlen(s), sh);
}

static void test_shape_lists(void)
{
	struct opmfu_shape sh;
	int64_t d[16];
	uint32_t e[8];

	CHECK_INT(parse("4096,12288;4608,12288", &sh, d, e), 0);
	CHECK_INT(sh.n_tensors, 2);
	CHECK_INT(sh.n_dims, 4);
	CHECK_INT(opmfu_shape_rank(&sh, 0), 2);
	CHECK_INT(opmfu_shape_rank(&sh, 1), 2);
	CHECK(opmfu_shape_dims(&sh, 0)[0] == 4096 && opmfu_shape_dims(&sh, 0)[1] == 12288);
	CHECK(opmfu_shape_dims(&sh, 1)[0] == 4608 && opmfu_shape_dims(&sh, 1)[1] == 12288);
	/* empty slots are scalars, as split(";") gives them */
	CHECK_INT(parse("64,8;;", &sh, d, e), 0);
	CHECK_INT(sh.n_tensors, 3);
	CHECK_INT(sh.n_dims, 2);
	CHECK_INT(opmfu_shape_rank(&sh, 0), 2);
	CHECK_INT(opmfu_shape_rank(&sh, 1), 0);
	CHECK_INT(opmfu_shape_rank(&sh, 2), 0);
	CHECK_INT(parse("", &sh, d, e), 0);
	CHECK_INT(sh.n_tensors, 1);
	CHECK_INT(sh.n_dims, 0);
	CHECK_INT(parse(";7", &sh, d, e), 0);
	CHECK_INT(sh.n_tensors, 2);
	CHECK_INT(opmfu_shape_rank(&sh, 0), 0);
	CHECK_INT(opmfu_shape_rank(&sh, 1), 1);
	CHECK(opmfu_shape_dims(&sh, 1)[0] == 7);
	/* a 1-D tensor, a zero dim, leading zeros, INT64_MAX */
	CHECK_INT(parse("0;007;9223372036854775807", &sh, d, e), 0);
	CHECK_INT(sh.n_tensors, 3);
	CHECK(d[0] == 0 && d[1] == 7 && d[2] == INT64_MAX);
	CHECK_INT(parse("2,3,4,5", &sh, d, e), 0);
	CHECK_INT(opmfu_shape_rank(&sh, 0), 4);
	CHECK(d[3] == 5);
}

static void test_shape_bad(void)
{
	static const char *const bad[] = {
		"4,,4", "4,", ",4", "-1", "4, 4", " 4", "4 ", "\"4,4\"", "N/A", "4;x", "1.5",
		"9223372036854775808", "99999999999999999999;1", "4;;,", "a",
	};
	struct opmfu_shape sh;
	int64_t d[16];
	uint32_t e[8];
	size_t i;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = parse(bad[i], &sh, d, e);
		if (rc != -1)
			fprintf(stderr, "shape \"%s\": rc %d\n", bad[i], rc);
		CHECK_INT(rc, -1);
	}
	/* a NUL is no digit */
	sh.cap_dims = 16;
	CHECK_INT(opmfu_shape_parse("4\0" "4", 3, &sh), -1);
}

/* Too small: -2 with the room needed, nothing written past it; then a retry fits. */
static void test_shape_room(void)
{
	int64_t d[5] = { -1, -1, -1, -1, -1 };
	uint32_t e[3] = { 7, 7, 7 };
	struct opmfu_shape sh = { d, e, 2, 1, 0, 0 };
	const char *s = "1,2,3;4;;5";

	CHECK_INT(opmfu_shape_parse(s, strlen(s), &sh), -2);
	CHECK_INT(sh.n_dims, 5);
	CHECK_INT(sh.n_tensors, 4);
	CHECK(d[0] == 1 && d[1] == 2 && d[2] == -1);
	CHECK(e[0] == 3 && e[1] == 7);
	{
		int64_t d2[5];
		uint32_t e2[4];
		struct opmfu_shape big = { d2, e2, 5, 4, 0, 0 };
		CHECK_INT(opmfu_shape_parse(s, strlen(s), &big), 0);
		CHECK_INT(opmfu_shape_rank(&big, 0), 3);
		CHECK_INT(opmfu_shape_rank(&big, 1), 1);
		CHECK_INT(opmfu_shape_rank(&big, 2), 0);
		CHECK_INT(opmfu_shape_rank(&big, 3), 1);
		CHECK(opmfu_shape_dims(&big, 3)[0] == 5);
	}
	/* no room at all still counts */
	sh.cap_dims = sh.cap_tensors = 0;
	CHECK_INT(opmfu_shape_parse("8,8", 3, &sh), -2);
	CHECK_INT(sh.n_dims, 2);
	CHECK_INT(sh.n_tensors, 1);
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
		/* the fast path's: an integer with zeros, 2 decimals, a negative, below 2^50 */
		{ 1200.0, "1200.0" }, { 0.29, "0.29" }, { 0.07, "0.07" }, { -12.5, "-12.5" },
		{ 1125899906842623.0, "1125899906842623.0" }, { 0.005, "0.005" },
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

/* The significant digits of a decimal text (sign, point, exponent and
 * leading and trailing zeros left out) into out. */
static void sig_digits(const char *s, char *out)
{
	int n = 0;
	for (; *s && *s != 'e'; s++)
		if (*s >= '0' && *s <= '9' && (n || *s != '0'))
			out[n++] = *s;
	while (n > 1 && out[n - 1] == '0')
		n--;
	out[n] = '\0';
}

/* opmfu_format_pyfloat against the definition of repr's digits, the slow
 * way: the fewest digits of "%.*e" that strtod reads back as x. Its text
 * must read back as x and have exactly those digits (values of the fast
 * path of at most 3 decimals, both sides of its 2^50 bound, and any double). */
static void test_pyfloat_shortest(void)
{
	static const double scale[] = { 1, 10, 100, 1000, 1e6, 1e12 };
	uint64_t seed = 99;
	int i, bad = 0;
	for (i = 0; i < 300000; i++) {
		char got[40], e[40], want[24], have[24];
		double x;
		int p;
		seed = seed * 6364136223846793005u + 1442695040888963407u;
		switch (i % 5) {
		case 0: /* a percentage rounded to 2 decimals, as ModuleMFU's */
			x = opmfu_round((double)(seed >> 11) / 9007199254740992.0 * 150.0, 2);
			break;
		case 1: /* k / 10^d of any size */
			x = (double)(seed >> (11 + (seed & 31))) / scale[(seed >> 5) % 6];
			break;
		case 2: /* near the fast path's bound, 2^50 / 10^d */
			x = (1125899906842624.0 + (double)(int)((seed >> 20) % 2001) - 1000.0) / scale[(seed >> 8) % 4];
			break;
		case 3: { /* any finite double */
			uint64_t b = seed;
			memcpy(&x, &b, sizeof(x));
			if (!isfinite(x))
				continue;
			break;
		}
		default: /* negative, small decimals */
			x = -(double)((seed >> 33) % 100000) / scale[(seed >> 3) % 4];
			break;
		}
		if (x == 0)
			continue;
		for (p = 1; p <= 17; p++) {
			snprintf(e, sizeof(e), "%.*e", p - 1, x);
			if (strtod(e, NULL) == x)
				break;
		}
		opmfu_format_pyfloat(x, got);
		sig_digits(e, want);
		sig_digits(got, have);
		if (strtod(got, NULL) != x || strcmp(want, have) != 0) {
			if (bad++ < 5)
				CHECK_STR(got, e); /* says which value */
		}
	}
	CHECK_INT(bad, 0);
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
	test_shape_lists();
	test_shape_bad();
	test_shape_room();
	test_round();
	test_pyfloat();
	test_pyfloat_shortest();
	test_ns_text();
	return check_done();
}
