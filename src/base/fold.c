/*
 * fold.c - folded names (fold.h).
 */
#include "base/fold.h"

size_t opmfu_fold_name(const char *s, size_t n, char *out, size_t outsz)
{
	size_t i, o = 0;
	if (!outsz)
		return 0;
	for (i = 0; i < n && o + 1 < outsz; i++) {
		char c = s[i];
		if (c == ' ' || c == '-' || c == '_')
			continue;
		out[o++] = (char)(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
	}
	out[o] = '\0';
	return o;
}
