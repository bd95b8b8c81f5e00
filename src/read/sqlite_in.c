/*
 * sqlite_in.c - input databases opened read-only with nothing written
 * beside them (read/sqlite_in.h has the rules and why).
 */
#include "read/sqlite_in.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "base/sbuf.h"
#include "read/dirwalk.h"

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
	/* SQLite opens the file by name with a blocking open(): it gets only a
	 * path this open found a regular file at (SPEC 26: a FIFO named like a
	 * database would block forever). What is left is the moment between
	 * this check and SQLite's open, where the file could be replaced; the
	 * stat after the open below, and opmfu_sqlite_in_check, see that. */
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
	rc = sqlite3_open_v2(uri, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
	opmfu_free(uri);
	if (rc != SQLITE_OK) {
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
