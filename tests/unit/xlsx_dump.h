/*
 * xlsx_dump.h - a workbook read back as text by tests/tools/xlsx_cells.py,
 * for the unit tests of the workbook writers. Set xlsx_python and
 * xlsx_dumper (from argv) first.
 */
#ifndef OPMFU_TEST_XLSX_DUMP_H
#define OPMFU_TEST_XLSX_DUMP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static const char *xlsx_python, *xlsx_dumper;

/* The dump of the workbook at path (malloc'd), or NULL. */
static inline char *xlsx_dump(const char *path)
{
	char cmd[8192], *out = NULL;
	size_t n = 0, cap = 0, got;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s'", xlsx_python, xlsx_dumper, path);
	if (!(p = popen(cmd, "r")))
		return NULL;
	do {
		if (n + 4096 + 1 > cap) {
			char *nb = realloc(out, cap = cap * 2 + 8192);
			if (!nb)
				break;
			out = nb;
		}
		got = fread(out + n, 1, 4096, p);
		n += got;
	} while (got > 0);
	if (out)
		out[n] = '\0';
	if (pclose(p) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* A CHECK that the dump of path is want, printing it when it is not. */
static inline void xlsx_check_dump(const char *path, const char *want)
{
	char *got = xlsx_dump(path);
	CHECK(got != NULL);
	if (got && strcmp(got, want) != 0) {
		fprintf(stderr, "dump of %s differs; got:\n%s", path, got);
		CHECK(0);
	}
	free(got);
}

/* Whether the dump has line as a whole line. */
static inline int xlsx_dump_has(const char *dumped, const char *line)
{
	char buf[512];
	snprintf(buf, sizeof(buf), "\n%s\n", line);
	return dumped && strstr(dumped, buf) != NULL;
}

#endif
