/*
 * files.h - small file helpers shared by the unit tests that write outputs
 * (inline: each test uses some of them).
 */
#ifndef OPMFU_TEST_FILES_H
#define OPMFU_TEST_FILES_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"

/* Writes text to path (a CHECK fails if it cannot). */
static inline void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* Whether path holds exactly text (short files only). */
static inline int file_is(const char *path, const char *text)
{
	char buf[256];
	size_t n;
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return !strcmp(buf, text);
}

/* Entries of dir (. and .. aside) whose name ends in suffix; -1 if dir cannot be read. */
static inline int dir_files(const char *dir, const char *suffix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t k = strlen(suffix);
	int n = 0;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && len > k &&
		     !strcmp(e->d_name + len - k, suffix);
	}
	closedir(d);
	return n;
}

/* Temporary files ("*.tmp") a writer left in dir; -1 if dir cannot be read. */
static inline int tmp_files(const char *dir)
{
	return dir_files(dir, ".tmp");
}

/* Entries in dir; -1 if it cannot be read. */
static inline int dir_entries(const char *dir)
{
	return dir_files(dir, "");
}

/* A fresh directory base/runXXXXXX (base made if needed) into dir[size];
 * 0, or -1 after saying why on stderr. */
static inline int scratch_run_dir(const char *base, char *dir, size_t size)
{
	if (mkdir(base, 0777) != 0 && errno != EEXIST) {
		perror(base);
		return -1;
	}
	snprintf(dir, size, "%s/runXXXXXX", base);
	if (!mkdtemp(dir)) {
		perror(dir);
		return -1;
	}
	return 0;
}

#endif
