/*
 * options.c - option values more than one command takes: rank lists
 * (--rank-list) and export lists (--export).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

int opmfu_parse_rank_list(const char *s, int **out)
{
	int *v = NULL, n = 0, cap = 0;
	const char *p = s;
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b;
		if (end == p || a < -1 || a > 1000000)
			goto bad;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b > 1000000 || b - a > 1000000)
				goto bad;
		}
		for (; a <= b; a++) {
			if (n == cap) {
				int *nv = realloc(v, (size_t)(cap = cap ? cap * 2 : 16) * sizeof(*v));
				if (!nv)
					goto bad;
				v = nv;
			}
			v[n++] = (int)a;
		}
		if (*end == ',')
			end++;
		else if (*end)
			goto bad;
		p = end;
	}
	if (n == 0)
		goto bad;
	*out = v;
	return n;
bad:
	free(v);
	return -1;
}

unsigned opmfu_parse_exports(const char *cmd, const char *list, unsigned allowed)
{
	static const struct {
		const char *word;
		unsigned bit;
	} words[] = { { "db", OPMFU_EXPORT_DB },
		      { "xlsx", OPMFU_EXPORT_XLSX },
		      { "csv", OPMFU_EXPORT_CSV },
		      { "json", OPMFU_EXPORT_JSON } };
	const size_t n_words = sizeof(words) / sizeof(words[0]);
	char word[64], msg[160];
	unsigned bits = 0;
	const char *p = list;
	size_t k, n_ok = 0, shown = 0;

	for (k = 0; k < n_words; k++)
		n_ok += !!(allowed & words[k].bit);
	for (;;) {
		size_t n = strcspn(p, ","), found = n_words;
		for (k = 0; k < n_words; k++)
			if ((allowed & words[k].bit) && strlen(words[k].word) == n && !strncmp(p, words[k].word, n))
				found = k;
		if (found == n_words) {
			/* "--export: '%s' is not db, xlsx, csv or json" */
			snprintf(msg, sizeof(msg), "--export: '%%s' is not ");
			for (k = 0; k < n_words; k++)
				if (allowed & words[k].bit)
					snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), "%s%s",
						 shown++ == 0 ? "" : shown == n_ok ? " or " : ", ", words[k].word);
			snprintf(word, sizeof(word), "%.*s", (int)n, p);
			opmfu_die_usage(cmd, msg, word);
		}
		bits |= words[found].bit;
		if (!p[n])
			return bits;
		p += n + 1;
	}
}
