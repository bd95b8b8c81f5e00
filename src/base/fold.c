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

int opmfu_contains_nocase(const char *s, size_t n, const char *lower)
{
	size_t k = 0, i, j;
	while (lower[k])
		k++;
	for (i = 0; i + k <= n; i++) {
		for (j = 0; j < k && (s[i + j] >= 'A' && s[i + j] <= 'Z' ? s[i + j] + ('a' - 'A') : s[i + j]) == lower[j];
		     j++)
			;
		if (j == k)
			return 1;
	}
	return 0;
}
