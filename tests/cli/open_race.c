/*
 * open_race.c - linked only into the test program opmfu_open_race (the
 * opmfu objects as they are, linked with -Wl,--wrap=sqlite3_open_v2), never
 * into opmfu: it puts the unlucky moment of SPEC 26 exactly where it hurts.
 *
 * opmfu checks an input database is a regular file, then SQLite opens it by
 * name. When OPMFU_RACE_PATH and OPMFU_RACE_FIFO are set, the first
 * sqlite3_open_v2 of OPMFU_RACE_PATH (as a path or a URI) first renames
 * the FIFO OPMFU_RACE_FIFO over it: the file is swapped after opmfu's
 * check and before SQLite's open, every time, with no timing involved.
 */
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int __real_sqlite3_open_v2(const char *name, sqlite3 **db, int flags, const char *vfs);
int __wrap_sqlite3_open_v2(const char *name, sqlite3 **db, int flags, const char *vfs);

/* 1 if name (a path, or a "file:" URI as read/sqlite_in.c writes one)
 * names path. */
static int names(const char *name, const char *path)
{
	if (!strncmp(name, "file:", 5)) {
		name += 5;
		if (!strncmp(name, "//", 2))
			name += 2;
		for (; *name && *name != '?'; path++) {
			unsigned c = (unsigned char)*name++;
			if (c == '%' && sscanf(name, "%2x", &c) == 1)
				name += 2;
			if ((unsigned char)*path != c)
				return 0;
		}
		return *path == '\0';
	}
	return !strcmp(name, path);
}

int __wrap_sqlite3_open_v2(const char *name, sqlite3 **db, int flags, const char *vfs)
{
	static atomic_int done;
	const char *path = getenv("OPMFU_RACE_PATH"), *fifo = getenv("OPMFU_RACE_FIFO");

	if (path && fifo && names(name, path) && !atomic_exchange(&done, 1) && rename(fifo, path) != 0) {
		perror("open_race: rename");
		abort();
	}
	return __real_sqlite3_open_v2(name, db, flags, vfs);
}
