/*
 * t_sqlite_in.c - input databases opened read-only with nothing written
 * beside them (read/sqlite_in.c): the URI spelling of odd paths; a WAL
 * database opened immutable and a rollback one plain, neither leaving a
 * file; a file changed after opening; a pending WAL; the hints; allocation
 * failures; the guard that keeps SQLite's open() from blocking on a FIFO.
 * argv[1]: a scratch directory.
 */
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/mem.h"
#include "check.h"
#include "files.h"
#include "read/sqlite_in.h"

static char dir[4096];

static void uri_is(const char *path, const char *q, const char *want)
{
	char *got = opmfu_sqlite_uri(path, q);
	CHECK_STR(got, want);
	opmfu_free(got);
}

/* A database at path with one table of three rows, in journal mode mode. */
static void make_db(const char *path, const char *mode)
{
	sqlite3 *db = NULL;
	char sql[256];
	unlink(path);
	CHECK_INT(sqlite3_open(path, &db), SQLITE_OK);
	snprintf(sql, sizeof(sql), "PRAGMA journal_mode=%s; CREATE TABLE t (x); INSERT INTO t VALUES (1),(2),(3);",
		 mode);
	CHECK_INT(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	CHECK_INT(sqlite3_close(db), SQLITE_OK);
}

static long count_rows(sqlite3 *db)
{
	sqlite3_stmt *s = NULL;
	long n = -1;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM t", -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

static void test_uri(void)
{
	/* unreserved bytes as they are; '%', '?', '#', space and UTF-8 encoded */
	uri_is("/a b/c%?#\xc3\xa9.db", "mode=ro", "file:///a%20b/c%25%3F%23%C3%A9.db?mode=ro");
	/* relative: no authority */
	uri_is("rel/x_y~z-1.db", "q", "file:rel/x_y~z-1.db?q");
	/* "//host/x" would name a host after "file:": the empty authority keeps it a path */
	uri_is("//host/x", "q", "file:////host/x?q");
	uri_is("a&b=c;d", "q", "file:a%26b%3Dc%3Bd?q");
	opmfu_mem_fail_after(1);
	CHECK(opmfu_sqlite_uri("/x", "q") == NULL);
	opmfu_mem_fail_after(0);
}

static void test_open(const char *mode, int wal)
{
	char sub[4200], path[4300], want[4600];
	struct opmfu_sqlite_in in;
	struct opmfu_err e = OPMFU_ERR_INIT;
	struct timespec ts[2];
	sqlite3 *db = NULL;

	snprintf(sub, sizeof(sub), "%s/%s", dir, mode);
	mkdir(sub, 0777);
	snprintf(path, sizeof(path), "%s/odd %%41 ?#.db", sub);
	make_db(path, mode);
	/* WAL's last close removes -wal and -shm: only the database is there */
	CHECK_INT(dir_entries(sub), 1);
	CHECK_INT(opmfu_sqlite_in_open(path, &db, &in, &e), OPMFU_OK);
	CHECK_INT(in.wal, wal);
	CHECK_INT(count_rows(db), 3);
	CHECK_INT(sqlite3_close(db), SQLITE_OK);
	CHECK_INT(dir_entries(sub), 1);
	CHECK_INT(opmfu_sqlite_in_check(path, &in, &e), OPMFU_OK);

	/* changed after it was opened (a new mtime, as any write gives) */
	ts[0].tv_sec = ts[1].tv_sec = 1000000000;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	CHECK_INT(utimensat(AT_FDCWD, path, ts, 0), 0);
	CHECK_INT(opmfu_sqlite_in_check(path, &in, &e), OPMFU_ERR_IO);
	snprintf(want, sizeof(want),
		 "%s: changed while it was read (is the profiler still writing it?); run again once it has finished",
		 path);
	CHECK_STR(e.msg, want);

	/* every allocation failing in turn: an error, nothing left open, no file */
	{
		long k;
		int failed = 0;
		for (k = 1; k < 60; k++) {
			enum opmfu_status st;
			opmfu_mem_fail_after(k);
			st = opmfu_sqlite_in_open(path, &db, &in, &e);
			opmfu_mem_fail_after(0);
			if (st) {
				failed++;
				CHECK(db == NULL);
			} else {
				sqlite3_close(db);
			}
		}
		CHECK(failed >= 1);
		CHECK_INT(dir_entries(sub), 1);
	}
}

static void test_faults(void)
{
	char path[4300], wal[4400], want[16000];
	struct opmfu_sqlite_in in;
	struct opmfu_err e = OPMFU_ERR_INIT;
	sqlite3 *db = NULL, *w = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "%s/missing.db", dir);
	CHECK_INT(opmfu_sqlite_in_open(path, &db, &in, &e), OPMFU_ERR_IO);
	snprintf(want, sizeof(want), "%s: cannot open: No such file or directory", path);
	CHECK_STR(e.msg, want);
	CHECK(db == NULL);

	/* a WAL with changes not in the database yet: a writer still connected */
	snprintf(path, sizeof(path), "%s/pending.db", dir);
	make_db(path, "WAL");
	CHECK_INT(sqlite3_open(path, &w), SQLITE_OK);
	CHECK_INT(sqlite3_exec(w, "PRAGMA wal_autocheckpoint=0; INSERT INTO t VALUES (4)", NULL, NULL, NULL), SQLITE_OK);
	CHECK_INT(opmfu_sqlite_in_open(path, &db, &in, &e), OPMFU_ERR_IO);
	/* the header (32 bytes) and one frame (24 + a 4096-byte page) */
	snprintf(want, sizeof(want),
		 "%s: cannot be read without writing beside it: %s-wal holds 4152 bytes of changes not yet in the "
		 "database (is the profiler still writing it? once it has finished, sqlite3 %s "
		 "'PRAGMA wal_checkpoint(TRUNCATE)' moves them in)",
		 path, path, path);
	CHECK_STR(e.msg, want);
	CHECK(db == NULL);
	sqlite3_close(w);

	/* not a database: left to SQLite, which says so at the first query */
	snprintf(path, sizeof(path), "%s/text.db", dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("SQLite format 2? no: a text file, long enough to have a header of 100 bytes........"
		      "...........................\n",
		      f);
		fclose(f);
	}
	CHECK_INT(opmfu_sqlite_in_open(path, &db, &in, &e), OPMFU_OK);
	CHECK_INT(in.wal, 0);
	CHECK_INT(sqlite3_exec(db, "SELECT * FROM sqlite_master", NULL, NULL, NULL), SQLITE_NOTADB);
	sqlite3_close(db);
	snprintf(wal, sizeof(wal), "%s-wal", path);
	CHECK(access(wal, F_OK) != 0);

	CHECK_STR(opmfu_sqlite_in_hint(SQLITE_CORRUPT), " (the database is corrupt or truncated)");
	CHECK_STR(opmfu_sqlite_in_hint(SQLITE_BUSY_SNAPSHOT), " (the database is locked by another process)");
	CHECK(strstr(opmfu_sqlite_in_hint(SQLITE_READONLY_ROLLBACK), "rollback journal") != NULL);
	CHECK_STR(opmfu_sqlite_in_hint(SQLITE_READONLY), "");
}

/* The guard on SQLite's own open(): SQLite asked to open a FIFO directly
 * (as it would after a swap behind opmfu's check) refuses it at once,
 * read-only and read-write; a database and a -journal beside it still work.
 * A hang would be this test's timeout; alarm ends it sooner. */
static void test_guard(void)
{
	char fifo[4300], path[4300];
	sqlite3 *db = NULL;

	CHECK_INT(opmfu_sqlite_guard(), 1);
	CHECK_INT(opmfu_sqlite_guard(), 1); /* once: still installed, not twice */
	alarm(10);
	snprintf(fifo, sizeof(fifo), "%s/pipe.db", dir);
	unlink(fifo);
	CHECK_INT(mkfifo(fifo, 0600), 0);
	CHECK_INT(opmfu_sqlite_refused(), 0);
	CHECK_INT(sqlite3_open_v2(fifo, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_CANTOPEN);
	sqlite3_close(db);
	CHECK(S_ISFIFO(opmfu_sqlite_refused()));
	CHECK_INT(opmfu_sqlite_refused(), 0); /* read once */
	db = NULL;
	CHECK_INT(sqlite3_open_v2(fifo, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_CANTOPEN);
	sqlite3_close(db);
	CHECK(S_ISFIFO(opmfu_sqlite_refused()));

	/* a rollback-mode write (journal created, synced, deleted) is untouched */
	snprintf(path, sizeof(path), "%s/guarded.db", dir);
	make_db(path, "DELETE");
	db = NULL;
	CHECK_INT(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	CHECK_INT(sqlite3_exec(db, "INSERT INTO t VALUES (4)", NULL, NULL, NULL), SQLITE_OK);
	CHECK_INT(count_rows(db), 4);
	CHECK_INT(sqlite3_close(db), SQLITE_OK);
	CHECK_INT(opmfu_sqlite_refused(), 0);
	alarm(0);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	snprintf(dir, sizeof(dir), "%s", argv[1]);
	mkdir(dir, 0777);
	test_uri();
	test_open("WAL", 1);
	test_open("DELETE", 0);
	test_faults();
	test_guard();
	return check_done();
}
