/*
 * sqlite_in.c - input databases opened read-only with nothing written
 * beside them (read/sqlite_in.h has the rules and why).
 */
#include "read/sqlite_in.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "base/sbuf.h"
#include "read/dirwalk.h"

/* ---- SQLite's own open() made non-blocking (SPEC 26) ----
 *
 * SQLite opens a database, and the journal beside it, by name with a
 * blocking open(): a FIFO put in place after opmfu's check would block it
 * forever. Of the ways to close that window, this is the one without one:
 * SQLite's unix VFS makes every open() through a system-call table that
 * xSetSystemCall can change, so the descriptor SQLite goes on to use is
 * the one opened here with O_NONBLOCK and fstat'ed, with no second open by
 * name. A VFS shim that checks the path and then lets the default VFS open
 * it by name leaves the window where it was; one that hands SQLite
 * /proc/self/fd/N needs /proc and hides the -journal beside the file from
 * SQLite; a watchdog writing to a stuck FIFO misses devices and guesses a
 * time. The table is the process's: every unix VFS connection gets the
 * check, the output database's too, which only ever changes what happens
 * to a file that is neither regular nor a directory (never a database). */
static int (*base_open)(const char *, int, int);
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;
static int guarded;
/* the kind (st_mode) of the file last refused on this thread, 0: none */
static _Thread_local mode_t refused;

static int nonblocking_open(const char *path, int flags, int mode)
{
	struct stat st;
	int fd, fl, e;

	/* O_NONBLOCK: a FIFO opens at once; O_NOCTTY: a terminal is not
	 * taken as the controlling one before it is refused */
	if ((fd = base_open(path, flags | O_NONBLOCK | O_NOCTTY, mode)) < 0)
		return fd;
	if (fstat(fd, &st) != 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	/* directories: SQLite opens the folder to sync it after a journal is
	 * deleted; /dev/null: it parks descriptors 0-2 there when they are
	 * closed, so that a database never gets one */
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) && strcmp(path, "/dev/null") != 0) {
		close(fd);
		refused = st.st_mode;
		/* not EISDIR or EACCES, which SQLite reads as other cases */
		errno = ENXIO;
		return -1;
	}
	/* a regular file never blocks, but keep the flags SQLite asked for */
	if (!(flags & O_NONBLOCK) && (fl = fcntl(fd, F_GETFL)) != -1)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

static void guard_install(void)
{
	sqlite3_vfs *vfs = sqlite3_vfs_find(NULL);
	sqlite3_syscall_ptr was;

	/* only the unix VFS has an "open" entry; another default VFS keeps
	 * the check before the open (docs/architecture.md) */
	if (!vfs || vfs->iVersion < 3 || !vfs->xGetSystemCall || !vfs->xSetSystemCall ||
	    strncmp(vfs->zName, "unix", 4) != 0)
		return;
	if (!(was = vfs->xGetSystemCall(vfs, "open")))
		return;
	base_open = (int (*)(const char *, int, int))was;
	guarded = vfs->xSetSystemCall(vfs, "open", (sqlite3_syscall_ptr)nonblocking_open) == SQLITE_OK;
}

int opmfu_sqlite_guard(void)
{
	pthread_once(&guard_once, guard_install);
	return guarded;
}

mode_t opmfu_sqlite_refused(void)
{
	mode_t m = refused;
	refused = 0;
	return m;
}

char *opmfu_sqlite_uri(const char *path, const char *q)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p = (const unsigned char *)path;
	struct sbuf sb;

	sbuf_init(&sb);
	/* "file:" then "//" (an empty authority) before an absolute path, so
	 * that one starting with "//" is not read as a host name */
	sbuf_adds(&sb, path[0] == '/' ? "file://" : "file:");
	for (; *p; p++) {
		char esc[3] = { '%', hex[*p >> 4], hex[*p & 15] };
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '/' ||
		    *p == '.' || *p == '_' || *p == '~' || *p == '-')
			sbuf_add(&sb, (const char *)p, 1);
		else
			sbuf_add(&sb, esc, 3);
	}
	sbuf_addf(&sb, "?%s", q);
	return sbuf_detach(&sb);
}

/* The size of path + suffix (-1: absent or unreadable), into *size. */
static enum opmfu_status side_file(const char *path, const char *suffix, long long *size, struct opmfu_err *err)
{
	struct sbuf sb;
	struct stat st;

	sbuf_init(&sb);
	sbuf_addf(&sb, "%s%s", path, suffix);
	if (sb.oom)
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory opening it", path);
	*size = stat(sb.buf, &st) == 0 ? (long long)st.st_size : -1;
	sbuf_release(&sb);
	return OPMFU_OK;
}

/* Whether the file open as fd is a database in WAL mode: its header says
 * so in the file format versions (bytes 18 and 19 are 2). Anything else,
 * not a database included, is left to SQLite and its messages. */
static int wal_mode(int fd)
{
	unsigned char h[100];
	return pread(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h) && !memcmp(h, "SQLite format 3", 16) &&
	       (h[18] == 2 || h[19] == 2);
}

enum opmfu_status opmfu_sqlite_in_open(const char *path, sqlite3 **db, struct opmfu_sqlite_in *in,
				       struct opmfu_err *err)
{
	enum opmfu_status st;
	long long wal_size = -1;
	char *uri;
	int fd, rc;

	*db = NULL;
	memset(in, 0, sizeof(*in));
	/* SQLite gets only a path this open found a regular file at, and its
	 * own open refuses anything else without blocking (the guard above),
	 * should the file be swapped for a FIFO in between; a swap for another
	 * regular file is seen by the stat after the open below and by
	 * opmfu_sqlite_in_check. */
	opmfu_sqlite_guard();
	if ((fd = opmfu_open_regular(path, &in->st, "cannot open", err)) < 0)
		return OPMFU_ERR_IO;
	in->wal = wal_mode(fd);
	close(fd);
	if (in->wal && (st = side_file(path, "-wal", &wal_size, err)))
		return st;
	if (wal_size > 0)
		return opmfu_err_set(err, OPMFU_ERR_IO,
				     "%s: cannot be read without writing beside it: %s-wal holds %lld byte%s of changes "
				     "not yet in the database (is the profiler still writing it? once it has finished, "
				     "sqlite3 %s 'PRAGMA wal_checkpoint(TRUNCATE)' moves them in)",
				     path, path, wal_size, wal_size == 1 ? "" : "s", path);
	if (!(uri = opmfu_sqlite_uri(path, in->wal ? "mode=ro&immutable=1" : "mode=ro")))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory opening it", path);
	/* NOMUTEX: each connection is used by one thread; the per-call mutex
	 * of serialized mode cost a quarter of the scan time */
	opmfu_sqlite_refused();
	rc = sqlite3_open_v2(uri, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
	opmfu_free(uri);
	if (rc != SQLITE_OK) {
		/* swapped for a FIFO (or the like) since the check */
		mode_t kind = opmfu_sqlite_refused();
		if (kind)
			st = opmfu_not_regular(path, kind, err);
		else
			st = opmfu_err_set(err, OPMFU_ERR_SQLITE, "%s: cannot open: %s", path,
					   *db ? sqlite3_errmsg(*db) : sqlite3_errstr(rc));
		sqlite3_close(*db);
		*db = NULL;
		return st;
	}
	{
		struct stat now;
		if (stat(path, &now) != 0 || now.st_dev != in->st.st_dev || now.st_ino != in->st.st_ino) {
			sqlite3_close(*db);
			*db = NULL;
			return opmfu_err_set(err, OPMFU_ERR_IO,
					     "%s: changed while it was opened (is the profiler still writing it?); "
					     "run again once it has finished",
					     path);
		}
	}
	/* another process may still hold a write lock for a moment (rollback mode) */
	sqlite3_busy_timeout(*db, 2000);
	return OPMFU_OK;
}

enum opmfu_status opmfu_sqlite_in_check(const char *path, const struct opmfu_sqlite_in *in, struct opmfu_err *err)
{
	const struct stat *a = &in->st;
	struct stat b;
	long long wal_size = -1;
	enum opmfu_status st;

	if (in->wal && (st = side_file(path, "-wal", &wal_size, err)))
		return st;
	if (stat(path, &b) != 0 || a->st_dev != b.st_dev || a->st_ino != b.st_ino || a->st_size != b.st_size ||
	    a->st_mtim.tv_sec != b.st_mtim.tv_sec || a->st_mtim.tv_nsec != b.st_mtim.tv_nsec || wal_size > 0)
		return opmfu_err_set(err, OPMFU_ERR_IO,
				     "%s: changed while it was read (is the profiler still writing it?); "
				     "run again once it has finished",
				     path);
	return OPMFU_OK;
}

const char *opmfu_sqlite_in_hint(int code)
{
	static _Thread_local char kind[96];
	mode_t refused_kind = opmfu_sqlite_refused();

	/* SQLite takes a -journal it cannot open for a hot one */
	if (code == SQLITE_READONLY_ROLLBACK && refused_kind) {
		snprintf(kind, sizeof(kind),
			 " (its -journal file is not a regular file (%s): opmfu reads only regular files)",
			 opmfu_file_kind(refused_kind));
		return kind;
	}
	if (code == SQLITE_READONLY_ROLLBACK)
		return " (a rollback journal beside it holds an interrupted write, which only a writable "
		       "connection can undo: open a copy of the database and its -journal file once with sqlite3)";
	switch (code & 0xff) {
	case SQLITE_CORRUPT:
		return " (the database is corrupt or truncated)";
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return " (the database is locked by another process)";
	}
	return "";
}

/* Whether main has a table (not a view) table with column col, or with any
 * columns when col is NULL, found in the schema SQLite holds with no statement
 * compiled: a probe by statement (compiling, locking, stepping) was a sixth of
 * the cost of a small rank. 1 yes; 0 no, or not a table, or this SQLite lacks
 * the lookup; -1 when the schema cannot be read (locked, corrupt, out of
 * memory: SQLite's message is db's), which a query would only find again
 * after waiting as long for the lock. */
static int meta_has(sqlite3 *db, const char *table, const char *col)
{
#ifdef OPMFU_HAVE_COLUMN_METADATA
	if (sqlite3_table_column_metadata(db, "main", table, col, NULL, NULL, NULL, NULL, NULL) == SQLITE_OK)
		return 1;
	/* SQLITE_ERROR: no such table or column (or a schema SQLite refuses,
	 * which the query says again) */
	return sqlite3_errcode(db) == SQLITE_ERROR ? 0 : -1;
#else
	(void)db, (void)table, (void)col;
	return 0;
#endif
}

int opmfu_sqlite_has_columns(sqlite3 *db, const char *table, const char *const *cols)
{
	for (; *cols; cols++) {
		int rc = meta_has(db, table, *cols);
		if (rc != 1)
			return rc;
	}
	return 1;
}

size_t opmfu_sqlite_rows_hint(sqlite3 *db, const struct opmfu_sqlite_in *in, const char *table)
{
	uint64_t most = in->st.st_size > 0 ? (uint64_t)in->st.st_size / 8 : 0;
	sqlite3_stmt *s = NULL;
	sqlite3_int64 n = 0;
	char *sql = sqlite3_mprintf("SELECT max(rowid) FROM \"%w\"", table);

	if (sql && sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_free(sql);
	if (n <= 0)
		return 0;
	return (size_t)((uint64_t)n < most ? (uint64_t)n : most);
}

int opmfu_sqlite_has_table(sqlite3 *db, const char *name)
{
	sqlite3_stmt *s = NULL;
	int rc = meta_has(db, name, NULL);
	/* a table by the lookup; a view or an absent table by a query of the schema */
	if (rc != 0)
		return rc;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?", -1, &s,
			       NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}
