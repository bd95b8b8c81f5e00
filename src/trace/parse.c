/*
 * parse.c - number parsing and formatting any format needs: numpy's round,
 * Python's float repr (what the reference's output shows) and timestamps
 * stored as text.
 */
#include "trace/parse.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double opmfu_round(double x, int ndigits)
{
	/* powers of ten up to 1e22 are exact doubles, so the table equals pow() */
	static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8 };
	double p = ndigits >= 0 && ndigits <= 8 ? p10[ndigits] : pow(10.0, ndigits);
	double y = rint(x * p) / p;
	/* numpy returns the input unchanged when scaling overflows */
	return isfinite(y) ? y : x;
}

/*
 * The shortest digits of |x| when it has at most 3 decimals and |x| * 10^3 <
 * 2^50 (the percentages rounded to 2 decimals that ModuleMFU prints), without
 * formatting: the smallest d with m = rint(|x| 10^d) and m / 10^d == |x|.
 * Both sides of that test are the correctly rounded value of m / 10^d (10^d
 * and m are exact), as strtod of the text would be, so it is the round trip;
 * and below 2^50 an integer nearer than a unit is the only candidate, so no
 * text of fewer digits reads back either. Returns the digit count (digits
 * without trailing zeros, *exp10 the decimal exponent), 0 when x is not such
 * a number.
 */
static int short_digits(double x, char *digits, int *exp10)
{
	static const double p10[] = { 1, 10, 100, 1000 };
	double ax = fabs(x);
	int d, nd = 0, k;
	char rev[20] = "";

	for (d = 0; d < 4; d++) {
		double y = ax * p10[d], m;
		uint64_t u;
		if (!(y < 1125899906842624.0)) /* 2^50 */
			return 0;
		m = rint(y);
		if (m == 0 || m / p10[d] != ax)
			continue;
		for (u = (uint64_t)m; u; u /= 10)
			rev[nd++] = (char)('0' + u % 10);
		*exp10 = nd - 1 - d;
		while (nd > 1 && rev[0] == '0') /* only when d is 0: 1200 is 12e2 */
			memmove(rev, rev + 1, (size_t)--nd);
		for (k = 0; k < nd; k++)
			digits[k] = rev[nd - 1 - k];
		digits[nd] = '\0';
		return nd;
	}
	return 0;
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
	/* lay the shortest digits out as repr does */
	{
		char digits[24];
		int nd = short_digits(x, digits, &exp10), neg = x < 0;
		if (!nd) {
			const char *p, *e;
			for (prec = 1; prec <= 17; prec++) {
				snprintf(buf, sizeof(buf), "%.*e", prec - 1, x);
				if (strtod(buf, NULL) == x)
					break;
			}
			/* buf is d.ddde[+-]XX */
			p = buf + neg;
			e = strchr(buf, 'e');
			for (; p < e; p++)
				if (*p != '.')
					digits[nd++] = *p;
			digits[nd] = '\0';
			exp10 = atoi(e + 1);
		}
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
