/*
 * kname.c - short kernel names (kname.h).
 */
#include "base/kname.h"

#include <string.h>

/* The index just past the bracket that closes the one at s[i] (open, close:
 * '<' '>' or '(' ')'), nesting counted; n when it never closes. */
static size_t closing(const char *s, size_t i, size_t n, char open, char close)
{
	size_t depth = 0;
	for (; i < n; i++) {
		if (s[i] == open)
			depth++;
		else if (s[i] == close && --depth == 0)
			return i + 1;
	}
	return n;
}

/* s[a..b) is one identifier, perhaps qualified (letters, digits, '_', ':') */
static int lone_identifier(const char *s, size_t a, size_t b)
{
	size_t i;
	int letter = 0;
	if (a >= b)
		return 0;
	for (i = a; i < b; i++) {
		char c = s[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
			letter = 1;
		else if (!((c >= '0' && c <= '9') || c == ':'))
			return 0;
	}
	return letter;
}

/* appends s[0..n) to out as far as it fits; *len counts every byte, kept or not */
static void put(char *out, size_t size, size_t *o, size_t *len, const char *s, size_t n)
{
	*len += n;
	while (n-- && *o + 1 < size)
		out[(*o)++] = *s++;
}

size_t opmfu_kernel_short(const char *name, size_t n, size_t width, char *out, size_t size)
{
	size_t i = 0, o = 0, len = 0;

	if (!size)
		return 0;
	if (n > 5 && !strncmp(name, "void ", 5))
		i = 5;
	while (i < n) {
		char c = name[i];
		if (c == '<') {
			size_t end = closing(name, i, n, '<', '>');
			/* "Kernel2<cutlass_80_...>": the argument names the kernel */
			if (name[end - 1] == '>' && lone_identifier(name, i + 1, end - 1))
				put(out, size, &o, &len, name + i, end - i);
			i = end;
		} else if (c == '(') {
			size_t end = closing(name, i, n, '(', ')');
			/* "(anonymous namespace)::" is a scope, not parameters */
			if (end + 1 < n && name[end] == ':' && name[end + 1] == ':')
				put(out, size, &o, &len, name + i, end - i);
			i = end;
		} else {
			put(out, size, &o, &len, name + i, 1);
			i++;
		}
	}
	/* trailing spaces ("... const" cut) only when all of it is there to see */
	while (o == len && o > 0 && out[o - 1] == ' ')
		o--, len--;
	out[o] = '\0';
	if (width >= 4 && len > width && size >= 4) {
		/* the short name's length, not what fitted, decides the cut */
		size_t k = width - 3 < size - 4 ? width - 3 : size - 4;
		while (k > 0 && ((unsigned char)out[k] & 0xC0) == 0x80)
			k--;
		memcpy(out + k, "...", 4);
		o = k + 3;
	}
	return o;
}
