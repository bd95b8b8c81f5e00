/*
 * sqlite_in.h - opening an input SQLite database read-only without ever
 * writing beside it, WAL or not, on read-only folders and mounts too.
 *
 * A plain read-only connection is not enough: on a WAL-mode database SQLite
 * creates the -wal and -shm files beside it (and fails where it cannot), so:
 *
 * - rollback-journal databases open with `mode=ro`: SQLite's file locks
 *   (fcntl, no files) keep a concurrent writer out, and a hot journal left
 *   by an interrupted write is refused (only a writer can roll it back);
 * - WAL databases open with `mode=ro&immutable=1`, which reads the main
 *   file alone, with no locks and no -wal/-shm, but only when the -wal file
 *   is absent or empty: then every committed change is in the main file,
 *   and a writer that comes later appends to -wal, changing the main file
 *   only by a checkpoint. A non-empty -wal holds changes that only SQLite's
 *   shared-memory protocol (the -shm file) can read: refused, with the way
 *   out in the message.
 *
 * immutable=1 also tells SQLite to trust the file not to change, so after
 * reading, opmfu_sqlite_in_check fails if the file (or its -wal) changed
 * meanwhile; it checks rollback-mode inputs alike, since a rank may be read
 * on two connections (one read transaction each) that no one transaction spans.
 */
#ifndef OPMFU_SQLITE_IN_H
#define OPMFU_SQLITE_IN_H

#include <sqlite3.h>
#include <stddef.h>
#include <sys/stat.h>

#include "base/err.h"

/* The file as it was opened. */
struct opmfu_sqlite_in {
	struct stat st;
	int wal; /* opened as an immutable WAL database */
};

/*
 * Opens path read-only as above into *db (NULL on error, nothing left
 * open). Errors name the file and why: it cannot be opened, or its WAL
 * holds changes that reading would need the -shm file for.
 */
enum opmfu_status opmfu_sqlite_in_open(const char *path, sqlite3 **db, struct opmfu_sqlite_in *in,
				       struct opmfu_err *err);

/* After reading: OPMFU_OK if path (and its -wal) are as they were when
 * opened, else an error saying that it changed while it was read. */
enum opmfu_status opmfu_sqlite_in_check(const char *path, const struct opmfu_sqlite_in *in, struct opmfu_err *err);

/* What to add to SQLite's message for an input's error of extended code
 * code: why it likely happened ("" if nothing is known), a -journal the
 * guard refused on this thread included. */
const char *opmfu_sqlite_in_hint(int code);

/*
 * About how many rows table holds, for reserving arrays before its scan
 * (growing them by doubling copies about as much again and leaves the old
 * blocks behind): its largest rowid, one B-tree descent (profiler tables
 * number their rows from 1), at most what the file opened as in can hold
 * (no row takes fewer than 8 bytes of it), so sparse rowids reserve little.
 * 0 (no hint) for a view, a WITHOUT ROWID table or any error. Reserving is
 * only virtual memory: pages never written are not resident.
 */
size_t opmfu_sqlite_rows_hint(sqlite3 *db, const struct opmfu_sqlite_in *in, const char *table);

/* Whether db has a table or view called name: 1, 0, or -1 when SQLite
 * fails (its message is db's). A table is found as SQLite finds names
 * (ASCII case ignored), a view by its exact name. */
int opmfu_sqlite_has_table(sqlite3 *db, const char *name);

/* 1 when table (not a view) has every column of the NULL-terminated cols,
 * as SQLite matches names (ASCII case ignored), looked up without a
 * statement; 0 otherwise, or when it cannot tell (a view, a SQLite without
 * the lookup): then ask PRAGMA table_info, which says which column is
 * missing; -1 when the schema cannot be read (SQLite's message is db's). */
int opmfu_sqlite_has_columns(sqlite3 *db, const char *table, const char *const *cols);

/*
 * Makes SQLite's own open() of any file (databases, journals; inputs and
 * outputs) refuse one that is neither a regular file nor a directory,
 * without blocking: opened with O_NONBLOCK, fstat'ed, closed with
 * SQLITE_CANTOPEN for the caller (sqlite_in.c says why this way). Once per
 * process, before any other thread uses SQLite: the lib layer calls it
 * first thing, opmfu_sqlite_in_open for callers below it. Returns 1 when
 * installed, 0 when the default VFS has no open() to replace (then only
 * the check before SQLite's open stands).
 */
int opmfu_sqlite_guard(void);
/* The kind (st_mode) of the file the guard last refused on this thread,
 * 0 if none; reading it clears it. */
mode_t opmfu_sqlite_refused(void);

/* path as a SQLite URI filename with the query q ("mode=ro"): every byte
 * but [A-Za-z0-9._~/-] percent-encoded, so '?', '#', '%' and spaces stay
 * part of the name. malloc'd (base/mem); NULL when out of memory. */
char *opmfu_sqlite_uri(const char *path, const char *q);

#endif
