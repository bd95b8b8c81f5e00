/*
 * xlsx_dump.h - a workbook read back as text by tests/tools/xlsx_cells.py,
 * for the unit tests of the workbook writers. Set xlsx_python and
 * xlsx_dumper (xlsx_test_start does, from argv) first.
 */
#ifndef OPMFU_TEST_XLSX_DUMP_H
#define OPMFU_TEST_XLSX_DUMP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "check.h"
#include "files.h"

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

/*
 * What want (a dump) becomes when the workbook is streamed (libxlsxwriter's
 * constant_memory): the same cells, but strings are inline strings (no
 * shared table) and the charts carry no cached values. Malloc'd; NULL when
 * out of memory.
 */
static inline char *xlsx_streamed(const char *want)
{
	static const char s_from[] = " (s) ", s_to[] = " (inlineStr) ", cached[] = " cached ";
	char *out = malloc(strlen(want) * 2 + 1), *o = out;
	const char *p = want;

	if (!out)
		return NULL;
	while (*p) {
		int is_cached = !strncmp(p, cached, sizeof(cached) - 1);
		size_t d = is_cached ? strspn(p + sizeof(cached) - 1, "0123456789") : 0;
		if (!strncmp(p, s_from, sizeof(s_from) - 1)) {
			o += sprintf(o, "%s", s_to);
			p += sizeof(s_from) - 1;
		} else if (d && p[sizeof(cached) - 1 + d] == '\n') {
			o += sprintf(o, "%s0", cached);
			p += sizeof(cached) - 1 + d;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return out;
}

/* The arguments every workbook test takes: PYTHON XLSX_CELLS_PY SCRATCH_DIR
 * [keep]; a new run folder under SCRATCH_DIR into dir. Returns 1 with
 * "keep" (leave the workbooks to look at), 0 without, -1 (usage printed)
 * on bad arguments. */
static inline int xlsx_test_start(int argc, char **argv, const char *name, char *dir, size_t size)
{
	if (argc < 4) {
		fprintf(stderr, "usage: %s PYTHON XLSX_CELLS_PY SCRATCH_DIR [keep]\n", name);
		return -1;
	}
	xlsx_python = argv[1];
	xlsx_dumper = argv[2];
	if (scratch_run_dir(argv[3], dir, size) != 0)
		return -1;
	return argc > 4 && !strcmp(argv[4], "keep");
}

/* The end of such a test: with keep, say where the workbooks are (the last
 * test left DIR/book); else, when every check passed, remove book and dir.
 * Returns the exit status. */
static inline int xlsx_test_end(int keep, const char *dir, const char *book)
{
	if (keep) {
		printf("workbooks kept in %s\n", dir);
	} else if (!check_failures) {
		char p[4200];
		snprintf(p, sizeof(p), "%s/%s", dir, book);
		unlink(p);
		rmdir(dir);
	}
	return check_done();
}

/* write(ctx, err) with every allocation of opmfu's failing in turn
 * (libxlsxwriter's own are not ours to fail): each run that fails says out
 * of memory and leaves the workbook at path as it was ("earlier") and no
 * temporary file in dir; at least 10 fail, then one succeeds, whose dump
 * is want. */
static inline void xlsx_check_nomem(const char *dir, const char *path,
				    enum opmfu_status (*write)(void *ctx, struct opmfu_err *err), void *ctx,
				    const char *want)
{
	struct opmfu_err e = OPMFU_ERR_INIT;
	long k;
	int ok = 0, nomem = 0;

	for (k = 1; k < 1000 && !ok; k++) {
		enum opmfu_status s;
		put_file(path, "earlier");
		opmfu_mem_fail_after(k);
		s = write(ctx, &e);
		opmfu_mem_fail_after(0);
		if (s == OPMFU_OK) {
			ok = 1;
			break;
		}
		nomem++;
		CHECK_INT(s, OPMFU_ERR_NOMEM);
		CHECK(strstr(e.msg, "out of memory") != NULL);
		CHECK(file_is(path, "earlier"));
		CHECK_INT(tmp_files(dir), 0);
	}
	CHECK(ok);
	CHECK(nomem >= 10);
	xlsx_check_dump(path, want);
}

/* Whether the dump has line as a whole line. */
static inline int xlsx_dump_has(const char *dumped, const char *line)
{
	char buf[512];
	snprintf(buf, sizeof(buf), "\n%s\n", line);
	return dumped && strstr(dumped, buf) != NULL;
}

#endif
