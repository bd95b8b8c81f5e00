/*
 * parse.c - FLOPs message, dtype and shape string parsers, and the number
 * formatting that must match the reference's Python/numpy output.
 */
#include "model/parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Length of a decimal float as Python's str() prints it: d+(.d+)?([eE][+-]?d+)? */
static size_t scan_decimal(const char *s, size_t len, int *is_integer)
{
	size_t i = 0;
	while (i < len && is_digit(s[i]))
		i++;
	if (i == 0)
		return 0;
	*is_integer = 1;
	if (i + 1 < len && s[i] == '.' && is_digit(s[i + 1])) {
		*is_integer = 0;
		i++;
		while (i < len && is_digit(s[i]))
			i++;
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		size_t j = i + 1;
		if (j < len && (s[j] == '+' || s[j] == '-'))
			j++;
		if (j < len && is_digit(s[j])) {
			*is_integer = 0;
			while (j < len && is_digit(s[j]))
				j++;
			i = j;
		}
	}
	return i;
}

int opmfu_parse_flops_msg(const char *msg, size_t len, int64_t *flops, size_t *name_off,
			  enum opmfu_drop *why)
{
	int is_integer = 0;
	size_t n = scan_decimal(msg, len, &is_integer), i;

	*why = OPMFU_DROP_FORMAT;
	if (n == 0 || n >= len || msg[n] != '-' || n + 1 == len)
		return -1;
	/* the name is Python's ".+": any characters but a line break */
	for (i = n + 1; i < len; i++)
		if (msg[i] == '\n' || msg[i] == '\0')
			return -1;
	if (is_integer) {
		uint64_t v = 0;
		for (i = 0; i < n; i++) {
			unsigned d = (unsigned)(msg[i] - '0');
			if (v > (uint64_t)(INT64_MAX - d) / 10) {
				*why = OPMFU_DROP_OVERFLOW;
				return -1;
			}
			v = v * 10 + d;
		}
		*flops = (int64_t)v;
	} else {
		char buf[400];
		double d;
		if (n >= sizeof(buf)) {
			*why = OPMFU_DROP_OVERFLOW;
			return -1;
		}
		memcpy(buf, msg, n);
		buf[n] = '\0';
		errno = 0;
		d = strtod(buf, NULL);
		d = rint(d);
		/* 2^63 is the first double that does not fit */
		if (!isfinite(d) || d >= 9223372036854775808.0) {
			*why = OPMFU_DROP_OVERFLOW;
			return -1;
		}
		*flops = (int64_t)d;
	}
	if (*flops == 0) {
		*why = OPMFU_DROP_ZERO;
		return -1;
	}
	*name_off = n + 1;
	return 0;
}

const char *opmfu_dtclass_name(enum opmfu_dtclass c)
{
	switch (c) {
	case OPMFU_DT_FP16: return "fp16";
	case OPMFU_DT_INT8: return "int8";
	case OPMFU_DT_FP8: return "fp8";
	default: return "none";
	}
}

static int name_in(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(name, *list) == 0)
			return 1;
	return 0;
}

enum opmfu_dtclass opmfu_dtype_pick(const char *dtypes, size_t len, char *bad, size_t badsz)
{
	static const char *const fp16[] = { "FLOAT", "FLOAT16", "BF16", "DT_BF16", "DT_FLOAT",
					    "DT_FLOAT16", "FLOAT32", NULL };
	static const char *const int8[] = { "INT8", "DT_INT8", NULL };
	static const char *const fp8[] = { "DT_HIFLOAT8", "DT_FLOAT8_E5M2", "DT_FLOAT8_E4M3FN",
					   "HIFLOAT8", "FLOAT8_E5M2", "FLOAT8_E4M3FN", NULL };
	/* index and mask tensors never carry the matmul's data type */
	static const char *const skip[] = { "INT16", "INT32", "INT64", "UINT16", "UINT32", "UINT64",
					    "BOOL", "DT_INT16", "DT_INT32", "DT_INT64", "DT_UINT16",
					    "DT_UINT32", "DT_UINT64", "DT_BOOL", NULL };
	size_t i = 0;
	int seen = 0;

	if (!dtypes)
		return OPMFU_DT_FP16;
	while (i <= len) {
		char name[48];
		size_t s = i, e, k, n = 0;
		while (i < len && dtypes[i] != ';')
			i++;
		e = i++;
		while (s < e && isspace((unsigned char)dtypes[s]))
			s++;
		while (e > s && isspace((unsigned char)dtypes[e - 1]))
			e--;
		if (s == e)
			continue;
		seen = 1;
		for (k = s; k < e && n + 1 < sizeof(name); k++)
			name[n++] = (char)toupper((unsigned char)dtypes[k]);
		name[n] = '\0';
		if (e - s >= sizeof(name)) {
			/* no known name is that long */
		} else if (name_in(name, fp16)) {
			return OPMFU_DT_FP16;
		} else if (name_in(name, int8)) {
			return OPMFU_DT_INT8;
		} else if (name_in(name, fp8)) {
			return OPMFU_DT_FP8;
		} else if (name_in(name, skip)) {
			continue;
		}
		if (bad && badsz) {
			size_t m = n < badsz - 1 ? n : badsz - 1;
			memcpy(bad, name, m);
			bad[m] = '\0';
		}
		return OPMFU_DT_UNSUPPORTED;
	}
	return seen ? OPMFU_DT_NONE : OPMFU_DT_FP16;
}

void opmfu_shape_strip(const char *s, size_t len, size_t *start, size_t *out_len)
{
	size_t a = 0, b = len;
	while (a < b && (s[a] == '"' || s[a] == '\''))
		a++;
	while (b > a && (s[b - 1] == '"' || s[b - 1] == '\''))
		b--;
	*start = a;
	*out_len = b - a;
}

int opmfu_shape_is_na(const char *s, size_t len)
{
	size_t a, n;
	opmfu_shape_strip(s, len, &a, &n);
	return n == 3 && memcmp(s + a, "N/A", 3) == 0;
}

double opmfu_round(double x, int ndigits)
{
	/* powers of ten up to 1e22 are exact doubles, so the table equals pow() */
	static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8 };
	double p = ndigits >= 0 && ndigits <= 8 ? p10[ndigits] : pow(10.0, ndigits);
	double y = rint(x * p) / p;
	/* numpy returns the input unchanged when scaling overflows */
	return isfinite(y) ? y : x;
}

int opmfu_format_pyfloat(double x, char *out)
{
	char buf[40];
	int prec, exp10, n;

	if (isnan(x))
		return sprintf(out, "nan");
	if (isinf(x))
		return sprintf(out, x > 0 ? "inf" : "-inf");
	if (x == 0)
		return sprintf(out, signbit(x) ? "-0.0" : "0.0");
	for (prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*e", prec - 1, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	/* buf is d.ddde[+-]XX with the shortest digits; lay it out as repr does */
	{
		char digits[24];
		int nd = 0, neg = buf[0] == '-';
		const char *p = buf + neg, *e = strchr(buf, 'e');
		for (; p < e; p++)
			if (*p != '.')
				digits[nd++] = *p;
		digits[nd] = '\0';
		exp10 = atoi(e + 1);
		n = 0;
		if (neg)
			out[n++] = '-';
		if (exp10 < -4 || exp10 >= 16) {
			out[n++] = digits[0];
			if (nd > 1) {
				out[n++] = '.';
				memcpy(out + n, digits + 1, (size_t)nd - 1);
				n += nd - 1;
			}
			n += sprintf(out + n, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
		} else if (exp10 < 0) {
			int z;
			out[n++] = '0';
			out[n++] = '.';
			for (z = 0; z < -exp10 - 1; z++)
				out[n++] = '0';
			memcpy(out + n, digits, (size_t)nd);
			n += nd;
		} else {
			int k;
			for (k = 0; k <= exp10; k++)
				out[n++] = k < nd ? digits[k] : '0';
			out[n++] = '.';
			if (nd > exp10 + 1) {
				memcpy(out + n, digits + exp10 + 1, (size_t)(nd - exp10 - 1));
				n += nd - exp10 - 1;
			} else {
				out[n++] = '0';
			}
		}
		out[n] = '\0';
	}
	return n;
}

/*
 * If p[0..8) are all ASCII digits: *u = *u * 10^8 + their value, returns 1.
 * Eight at once in one 64-bit word (the digit test and the pairwise
 * multiply-combine of Lemire's "fast parsing of 8 digits"): per-digit
 * parsing of the 19-digit text timestamps was a tenth of the PYTORCH_API scan.
 */
static int digits8(const char *p, uint64_t *u)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t hi = 0xF0F0F0F0F0F0F0F0u, zeros = 0x3030303030303030u;
	uint64_t x;
	memcpy(&x, p, 8);
	/* every byte 0x30..0x3F, and still 0x3_ after adding 6: 0x30..0x39 */
	if ((x & hi) != zeros || ((x + 0x0606060606060606u) & hi) != zeros)
		return 0;
	x -= zeros;
	x = x * 10 + (x >> 8); /* byte pairs: 2-digit values in bytes 0, 2, 4, 6 */
	x = ((x & 0x000000FF000000FFu) * (100 + (1000000ull << 32)) +
	     ((x >> 16) & 0x000000FF000000FFu) * (1 + (10000ull << 32))) >> 32;
	*u = *u * 100000000u + x;
	return 1;
#else
	(void)p;
	(void)u;
	return 0; /* the digit-by-digit loop does it */
#endif
}

int opmfu_parse_ns_text(const char *txt, size_t n, int64_t *out)
{
	uint64_t u = 0;
	size_t i = 0;
	char *end;
	long long ll;

	if (n == 0 || !*txt)
		return -1;
	/* fast path, two per PYTORCH_API row: up to 19 plain digits */
	if (n <= 19)
		for (; i + 8 <= n && digits8(txt + i, &u); i += 8)
			;
	for (; i < n && i < 19 && txt[i] >= '0' && txt[i] <= '9'; i++)
		u = u * 10 + (uint64_t)(txt[i] - '0');
	if (i == n && u <= (uint64_t)INT64_MAX) {
		*out = (int64_t)u;
		return 0;
	}
	errno = 0;
	ll = strtoll(txt, &end, 10);
	while (*end == ' ')
		end++;
	if (errno || *end || end == txt || txt[0] == ' ')
		return -1;
	*out = ll;
	return 0;
}
