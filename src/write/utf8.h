/*
 * utf8.h - UTF-8 validation shared by the writers whose formats must hold
 * valid UTF-8 (xlsx, JSON): the well-formed sequences of Unicode's table
 * 3-7, so no overlongs, no surrogates, nothing above U+10FFFF.
 */
#ifndef OPMFU_UTF8_H
#define OPMFU_UTF8_H

#include <stddef.h>

/*
 * The bytes at s (n > 0) that form one unit: a well-formed sequence (*ok
 * 1), or else the longest start of one that cannot be completed, at least
 * one byte (*ok 0): Unicode's "maximal subpart", which decoders that follow
 * its recommendation (WHATWG, Python's errors="replace") turn into one
 * U+FFFD each.
 */
static inline size_t opmfu_utf8_next(const unsigned char *s, size_t n, int *ok)
{
	unsigned c = s[0], lo = 0x80, hi = 0xBF;
	size_t k, i;

	*ok = 1;
	if (c < 0x80)
		return 1;
	*ok = 0;
	if (c < 0xC2 || c > 0xF4)
		return 1;
	k = c <= 0xDF ? 2 : c <= 0xEF ? 3 : 4;
	if (c == 0xE0)
		lo = 0xA0; /* no overlongs */
	else if (c == 0xED)
		hi = 0x9F; /* no surrogates */
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F; /* nothing above U+10FFFF */
	for (i = 1; i < k && i < n; i++)
		if (s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xBF))
			return i;
	*ok = i == k;
	return i;
}

/* Length of the well-formed sequence at s (n > 0 bytes), or 0. */
static inline size_t opmfu_utf8_seq(const unsigned char *s, size_t n)
{
	int ok;
	size_t k = opmfu_utf8_next(s, n, &ok);
	return ok ? k : 0;
}

#endif
