/*
 * files.h - small file helpers shared by the unit tests that write outputs.
 */
#ifndef OPMFU_TEST_FILES_H
#define OPMFU_TEST_FILES_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

/* Writes text to path (a CHECK fails if it cannot). */
static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* Whether path holds exactly text (short files only). */
static int file_is(const char *path, const char *text)
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

/* Temporary files ("*.tmp") a writer left in dir; -1 if dir cannot be read. */
static int tmp_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strlen(e->d_name) > 4 && !strcmp(e->d_name + strlen(e->d_name) - 4, ".tmp"))
			n++;
	closedir(d);
	return n;
}

#endif
