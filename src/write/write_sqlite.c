/*
 * write_sqlite.c - the database export: every table into cluster_analysis.db
 * at once, so readers never see half a result and a failed run leaves the
 * previous tables (and other tools' tables) intact.
 *
 * The run's tables are built apart, in a staged database beside the output
 * (".cluster_analysis.db.PID.N.tmp", write/stage.h), which no other process
 * knows of, so a reader of the output never holds the run up while it
 * writes. At commit the staged file replaces the output in one short step
 * under the output's write lock (install()):
 * - when the output has no table but opmfu's ones of this run (or does not
 *   exist) and is not in WAL mode, the staged file is renamed over it;
 * - otherwise (other tools' tables, msprof-analyze's among them, or a table
 *   of another opmfu command) it is attached and opmfu's tables are
 *   replaced by copies in one transaction, the others left as they were.
 * A busy output (another process's open transaction) is waited for at most
 * OPMFU_DB_BUSY_WAIT_MS; then the finished tables are kept in
 * "cluster_analysis.db.new" beside it and commit fails with OPMFU_ERR_BUSY
 * saying which file, why, and how to apply them.
 *
 * INSERT statements are prepared once per table and reused. Rows go BATCH at
 * a time through one multi-row INSERT: a statement's fixed cost (step,
 * reset, opening the table) was half the time of a one-row insert. Binding
 * the parameters was then 40 % of the insert, and bindings outlive
 * sqlite3_reset: a value equal to the one a parameter already holds (same
 * number; same string pointer and length, read by SQLite at the step) is
 * not bound again. In OperatorMFU rank and peak never change, and a
 * parameter sees every BATCH-th row, often of the same op (op name 79 %,
 * FLOPs op name 71 %).
 */
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/mem.h"
#include "base/sbuf.h"
#include "sql_out.h"
#include "write/stage.h"
#include "write/writer.h"

#define BATCH 32

/* How long commit waits for another process's hold on the output to end. */
#ifndef OPMFU_DB_BUSY_WAIT_MS
#define OPMFU_DB_BUSY_WAIT_MS 10000
#endif

/* The DDL of every table of schema/out, found by the name it creates. */
static const char *const ddl_files[] = {
	opmfu_sql_out_operator_mfu,
	opmfu_sql_out_module_mfu,
	opmfu_sql_out_rank_summary,
	opmfu_sql_out_opmfu_ops,
	opmfu_sql_out_opmfu_modules,
	opmfu_sql_out_opmfu_steps,
	opmfu_sql_out_opmfu_op_types,
	opmfu_sql_out_opmfu_kernels,
	opmfu_sql_out_opmfu_model,
	opmfu_sql_out_opmfu_diff,
	opmfu_sql_out_opmfu_run,
	opmfu_sql_out_opmfu_hotspots,
	opmfu_sql_out_opmfu_stragglers,
	opmfu_sql_out_opmfu_module_classes,
	opmfu_sql_out_opmfu_shapes,
	opmfu_sql_out_opmfu_collectives,
};

/* What a parameter of a batch INSERT holds. */
struct bound {
	uint64_t v;   /* integer, bits of a double, or a string's address */
	size_t len;   /* a string's length */
	unsigned char kind; /* BOUND_* */
};

enum { BOUND_UNKNOWN, BOUND_INT, BOUND_DOUBLE, BOUND_TEXT, BOUND_NULL };

/* One table's statements. */
struct tab {
	const struct opmfu_table_def *def;
	sqlite3_stmt *ins, *ins_batch;
	struct bound *bound; /* BATCH x n_cols: what ins_batch's parameters hold */
	int put;             /* rows were put since the last keep_rank or drop_rank */
};

struct db_writer {
	struct opmfu_writer base;
	sqlite3 *db; /* the staged database's */
	char *path;  /* the output */
	char *tmp;   /* the staged database */
	struct tab *tabs;
	size_t n_tabs;
	struct opmfu_cell *cells; /* one row of the widest table */
	int in_txn;
};

extern const struct opmfu_writer_type opmfu_writer_db;

/* Binds parameter i (1-based) of s unless b (NULL: not tracked) says it
 * already holds the value. */
static void bind_int(sqlite3_stmt *s, struct bound *b, int i, int64_t v)
{
	if (b) {
		if (b[i - 1].kind == BOUND_INT && b[i - 1].v == (uint64_t)v)
			return;
		b[i - 1] = (struct bound){ (uint64_t)v, 0, BOUND_INT };
	}
	sqlite3_bind_int64(s, i, v);
}

static void bind_dbl(sqlite3_stmt *s, struct bound *b, int i, double v)
{
	if (b) {
		uint64_t bits;
		memcpy(&bits, &v, sizeof(bits));
		if (b[i - 1].kind == BOUND_DOUBLE && b[i - 1].v == bits)
			return;
		b[i - 1] = (struct bound){ bits, 0, BOUND_DOUBLE };
	}
	sqlite3_bind_double(s, i, v);
}

/* z NULL binds NULL */
static void bind_str(sqlite3_stmt *s, struct bound *b, int i, const char *z, size_t len)
{
	if (b) {
		unsigned char kind = z ? BOUND_TEXT : BOUND_NULL;
		if (b[i - 1].kind == kind && b[i - 1].v == (uint64_t)(uintptr_t)z && b[i - 1].len == len)
			return;
		b[i - 1] = (struct bound){ (uint64_t)(uintptr_t)z, len, kind };
	}
	if (z)
		sqlite3_bind_text(s, i, z, (int)len, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, i);
}

/* Binds one row to parameters base+1 .. base+n_cols. */
static void bind_row(sqlite3_stmt *s, struct bound *b, int base, const struct opmfu_table_def *def,
		     const struct opmfu_cell *c)
{
	size_t k;
	for (k = 0; k < def->n_cols; k++) {
		int i = base + (int)k + 1;
		if (c[k].null)
			bind_str(s, b, i, NULL, 0);
		else if (def->cols[k].type == OPMFU_COL_INT)
			bind_int(s, b, i, c[k].v.i);
		else if (def->cols[k].type == OPMFU_COL_REAL)
			bind_dbl(s, b, i, c[k].v.r);
		else
			bind_str(s, b, i, c[k].v.t.s, c[k].v.t.n);
	}
}

static enum opmfu_status fail(struct db_writer *o, const char *what, struct opmfu_err *err)
{
	/* SQLite says "disk I/O error" for most write faults; errno says which */
	int os_err = sqlite3_system_errno(o->db);
	if (os_err)
		return opmfu_err_set(err, OPMFU_ERR_SQLITE, "%s: %s: %s (%s)", o->path, what, sqlite3_errmsg(o->db),
				     strerror(os_err));
	return opmfu_err_set(err, OPMFU_ERR_SQLITE, "%s: %s: %s", o->path, what, sqlite3_errmsg(o->db));
}

/* fail() with "WHAT TABLE" */
static enum opmfu_status fail_on(struct db_writer *o, const char *what, const char *table, struct opmfu_err *err)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s %s", what, table);
	return fail(o, buf, err);
}

static enum opmfu_status nomem(const char *path, struct opmfu_err *err)
{
	return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory opening %s", path);
}

static enum opmfu_status exec(struct db_writer *o, const char *sql, const char *what, struct opmfu_err *err)
{
	if (sqlite3_exec(o->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return fail(o, what, err);
	return OPMFU_OK;
}

/* The CREATE TABLE of schema/out for def; for a table that has no file
 * there, one made from its columns. */
static void ddl_of(const struct opmfu_table_def *def, struct sbuf *sb)
{
	static const char *const type_name[] = { "INTEGER", "REAL", "TEXT" };
	static const char head[] = "CREATE TABLE \"";
	size_t i, n = strlen(def->name);

	for (i = 0; i < sizeof(ddl_files) / sizeof(ddl_files[0]); i++) {
		const char *p = strstr(ddl_files[i], head);
		if (p && !strncmp(p + sizeof(head) - 1, def->name, n) && p[sizeof(head) - 1 + n] == '"') {
			sbuf_adds(sb, ddl_files[i]);
			return;
		}
	}
	sbuf_addf(sb, "CREATE TABLE \"%s\" (", def->name);
	for (i = 0; i < def->n_cols; i++)
		sbuf_addf(sb, "%s\"%s\" %s", i ? ", " : "", def->cols[i].name, type_name[def->cols[i].type]);
	sbuf_adds(sb, ")");
}

/* INSERT INTO "name" VALUES (?,...),(?,...),... with rows rows */
static void insert_sql(const struct opmfu_table_def *def, size_t rows, struct sbuf *sb)
{
	size_t r, c;
	sbuf_addf(sb, "INSERT INTO \"%s\" VALUES ", def->name);
	for (r = 0; r < rows; r++) {
		sbuf_adds(sb, r ? ",(" : "(");
		for (c = 0; c < def->n_cols; c++)
			sbuf_adds(sb, c ? ",?" : "?");
		sbuf_adds(sb, ")");
	}
}

/* Runs the SQL that make(def, sb) writes for every table; each
 * failure says what plus the table's name. Drops first, then creates: the
 * pages the drops free are reused. */
static enum opmfu_status each_table(struct db_writer *o, void (*make)(const struct opmfu_table_def *, struct sbuf *),
				    const char *what, int named, struct opmfu_err *err)
{
	enum opmfu_status st = OPMFU_OK;
	struct sbuf sb;
	size_t i;

	sbuf_init(&sb);
	for (i = 0; i < o->n_tabs && st == OPMFU_OK; i++) {
		sbuf_reset(&sb);
		make(o->tabs[i].def, &sb);
		if (sb.oom)
			st = nomem(o->path, err);
		else if (sqlite3_exec(o->db, sb.buf, NULL, NULL, NULL) != SQLITE_OK)
			st = named ? fail_on(o, what, o->tabs[i].def->name, err) : fail(o, what, err);
	}
	sbuf_release(&sb);
	return st;
}

/* main's: unqualified, a name main lacks would find the attached one's */
static void drop_sql(const struct opmfu_table_def *def, struct sbuf *sb)
{
	sbuf_addf(sb, "DROP TABLE IF EXISTS main.\"%s\"", def->name);
}

/* Prepares the one-row and the batch INSERT of every table. */
static enum opmfu_status prepare_inserts(struct db_writer *o, struct opmfu_err *err)
{
	enum opmfu_status st = OPMFU_OK;
	struct sbuf sb;
	size_t i;

	sbuf_init(&sb);
	for (i = 0; i < o->n_tabs && st == OPMFU_OK; i++) {
		struct tab *tb = &o->tabs[i];
		sbuf_reset(&sb);
		insert_sql(tb->def, 1, &sb);
		if (sb.oom) {
			st = nomem(o->path, err);
			break;
		}
		if (sqlite3_prepare_v2(o->db, sb.buf, -1, &tb->ins, NULL) != SQLITE_OK) {
			st = fail(o, "cannot prepare inserts", err);
			break;
		}
		sbuf_reset(&sb);
		insert_sql(tb->def, BATCH, &sb);
		if (sb.oom)
			st = nomem(o->path, err);
		else if (sqlite3_prepare_v2(o->db, sb.buf, -1, &tb->ins_batch, NULL) != SQLITE_OK)
			st = fail(o, "cannot prepare inserts", err);
	}
	sbuf_release(&sb);
	return st;
}

static void db_close(struct opmfu_writer *w);

/* Allocates the writer and its tables. */
static struct db_writer *db_new(const char *path, const struct opmfu_table_def *const *defs, size_t n_defs)
{
	struct db_writer *o = opmfu_calloc(1, sizeof(*o));
	size_t i, widest = 1;

	if (!o)
		return NULL;
	o->base.type = &opmfu_writer_db;
	o->n_tabs = n_defs;
	for (i = 0; i < n_defs; i++)
		widest = defs[i]->n_cols > widest ? defs[i]->n_cols : widest;
	if (!(o->path = opmfu_strdup(path)) || !(o->tabs = opmfu_calloc(n_defs ? n_defs : 1, sizeof(*o->tabs))) ||
	    !(o->cells = opmfu_calloc(widest, sizeof(*o->cells))))
		goto bad;
	for (i = 0; i < n_defs; i++) {
		o->tabs[i].def = defs[i];
		if (!(o->tabs[i].bound = opmfu_calloc(BATCH * (defs[i]->n_cols ? defs[i]->n_cols : 1),
						      sizeof(*o->tabs[i].bound))))
			goto bad;
	}
	return o;
bad:
	db_close(&o->base);
	return NULL;
}

/* The output must be a database opmfu can write (or not exist yet): said at
 * open, not after the whole analysis. */
static enum opmfu_status check_output(struct db_writer *o, struct opmfu_err *err)
{
	enum opmfu_status st = OPMFU_OK;
	sqlite3 *db = NULL;
	struct stat sb;

	if (stat(o->path, &sb) != 0)
		return OPMFU_OK;
	if (sqlite3_open_v2(o->path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
		st = opmfu_err_set(err, OPMFU_ERR_SQLITE, "%s: cannot open for writing: %s", o->path,
				   db ? sqlite3_errmsg(db) : "out of memory");
	else if (sqlite3_busy_timeout(db, OPMFU_DB_BUSY_WAIT_MS),
		 sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL) != SQLITE_OK)
		st = opmfu_err_set(err, OPMFU_ERR_SQLITE, "%s: cannot open for writing: %s", o->path, sqlite3_errmsg(db));
	sqlite3_close(db);
	return st;
}

static enum opmfu_status db_open(struct opmfu_writer **out, const char *path, const struct opmfu_table_def *const *defs,
				 size_t n_defs, struct opmfu_err *err)
{
	struct db_writer *o = db_new(path, defs, n_defs);
	enum opmfu_status st = OPMFU_OK;
	const char *slash;
	int fd;

	*out = NULL;
	if (!o)
		return nomem(path, err);
	/* what an interrupted earlier run left beside the output goes first */
	slash = strrchr(path, '/');
	if (slash) {
		char *dir = opmfu_strndup(path, (size_t)(slash - path) + (slash == path));
		if (dir)
			opmfu_stage_sweep(dir);
		opmfu_free(dir);
	} else {
		opmfu_stage_sweep(".");
	}
	if ((st = check_output(o, err)))
		goto out;
	{
		struct opmfu_err e = OPMFU_ERR_INIT;
		if ((st = opmfu_stage_file(path, &o->tmp, &fd, &e))) {
			st = opmfu_err_set(err, st == OPMFU_ERR_NOMEM ? st : OPMFU_ERR_SQLITE,
					   "%s: cannot open for writing (%s)", path, e.msg);
			goto out;
		}
	}
	close(fd);
	/* NOMUTEX: only the writing thread uses this connection */
	if (sqlite3_open_v2(o->tmp, &o->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		st = o->db ? fail(o, "cannot open for writing", err)
			   : opmfu_err_set(err, OPMFU_ERR_SQLITE, "%s: cannot open for writing", path);
		goto out;
	}
	/* 64 KiB pages: OperatorMFU is appended row by row and larger pages cut
	 * the B-tree work of the insert by about a fifth (measured on 391,503
	 * rows). The staged file is private and removed on any failure: no
	 * rollback journal and no fsync while it is built; it is synced once
	 * at commit, before it replaces anything. */
	if ((st = exec(o, "PRAGMA page_size = 65536", "cannot set the page size", err)) ||
	    (st = exec(o, "PRAGMA journal_mode = OFF", "cannot set the journal mode", err)) ||
	    (st = exec(o, "PRAGMA synchronous = OFF", "cannot set the journal mode", err)))
		goto out;
	if ((st = exec(o, "BEGIN IMMEDIATE", "cannot start a transaction", err)))
		goto out;
	o->in_txn = 1;
	if ((st = each_table(o, ddl_of, "cannot create", 1, err)))
		goto out;
	st = prepare_inserts(o, err);
out:
	if (st)
		db_close(&o->base);
	else
		*out = &o->base;
	return st;
}

static enum opmfu_status step(struct db_writer *o, sqlite3_stmt *s, const char *table, struct opmfu_err *err)
{
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return fail_on(o, "cannot insert into", table, err);
	return OPMFU_OK;
}

static struct tab *find_tab(struct db_writer *o, const struct opmfu_table_def *def)
{
	size_t i;
	for (i = 0; i < o->n_tabs; i++)
		if (o->tabs[i].def == def)
			return &o->tabs[i];
	return NULL;
}

static enum opmfu_status db_put(struct opmfu_writer *w, int rank, const struct opmfu_table *t, struct opmfu_err *err)
{
	struct db_writer *o = (struct db_writer *)w;
	struct tab *tb = find_tab(o, t->def);
	size_t i, n = t->n_rows, nc = t->def->n_cols;
	/* whole batches first, then the rest one row at a time */
	size_t batched = n - n % BATCH;
	enum opmfu_status st;

	(void)rank;
	if (!tb)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "%s: table %s was not opened", o->path, t->def->name);
	/* another put's strings live elsewhere: forget what is bound (only
	 * batches use it: most puts are of a few rows, and this is per put) */
	if (batched)
		memset(tb->bound, 0, BATCH * nc * sizeof(*tb->bound));
	tb->put |= n > 0;
	for (i = 0; i < n; i++) {
		sqlite3_stmt *s = tb->ins;
		t->row(t->src, i, o->cells);
		if (i < batched) {
			size_t slot = i % BATCH;
			s = tb->ins_batch;
			bind_row(s, tb->bound, (int)(slot * nc), t->def, o->cells);
			if (slot < BATCH - 1)
				continue;
		} else {
			bind_row(s, NULL, 0, t->def, o->cells);
		}
		if ((st = step(o, s, t->def->name, err)))
			return st;
	}
	return OPMFU_OK;
}

static enum opmfu_status db_keep_rank(struct opmfu_writer *w, int rank, struct opmfu_write_stats *st,
				      struct opmfu_err *err)
{
	struct db_writer *o = (struct db_writer *)w;
	size_t i;

	(void)rank;
	(void)err;
	for (i = 0; i < o->n_tabs; i++)
		o->tabs[i].put = 0;
	memset(st, 0, sizeof(*st));
	return OPMFU_OK;
}

/* Inside the transaction, so nothing of the rank was ever visible. */
static enum opmfu_status db_drop_rank(struct opmfu_writer *w, int rank, struct opmfu_err *err)
{
	struct db_writer *o = (struct db_writer *)w;
	enum opmfu_status st = OPMFU_OK;
	char sql[256];
	size_t i;

	for (i = 0; i < o->n_tabs && st == OPMFU_OK; i++) {
		sqlite3_stmt *s = NULL;
		if (!o->tabs[i].put)
			continue;
		o->tabs[i].put = 0;
		snprintf(sql, sizeof(sql), "DELETE FROM \"%s\" WHERE \"rank_id\" = ?", o->tabs[i].def->name);
		if (sqlite3_prepare_v2(o->db, sql, -1, &s, NULL) != SQLITE_OK)
			return fail_on(o, "cannot remove a failed rank's rows from", o->tabs[i].def->name, err);
		sqlite3_bind_int(s, 1, rank);
		if (sqlite3_step(s) != SQLITE_DONE)
			st = fail_on(o, "cannot remove a failed rank's rows from", o->tabs[i].def->name, err);
		sqlite3_finalize(s);
	}
	return st;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int is_busy(int rc)
{
	return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
}

/* 1 when name is one of the run's tables, or one it retires */
static int ours(const struct db_writer *o, const char *name)
{
	size_t i;
	for (i = 0; i < o->n_tabs; i++)
		if (!strcmp(o->tabs[i].def->name, name))
			return 1;
	for (i = 0; i < o->base.n_retired; i++)
		if (!strcmp(o->base.retired[i]->name, name))
			return 1;
	return 0;
}

/* The result of one attempt at install: OK, BUSY (try again until the
 * deadline), or an error (in err). */
enum { INSTALL_OK, INSTALL_BUSY, INSTALL_FAILED };

/* fail() for the output's connection */
static int live_fail(struct db_writer *o, sqlite3 *live, const char *what, struct opmfu_err *err)
{
	int os_err = sqlite3_system_errno(live);
	if (is_busy(sqlite3_extended_errcode(live)))
		return INSTALL_BUSY;
	if (os_err)
		opmfu_err_set(err, OPMFU_ERR_SQLITE, "%s: %s: %s (%s)", o->path, what, sqlite3_errmsg(live),
			      strerror(os_err));
	else
		opmfu_err_set(err, OPMFU_ERR_SQLITE, "%s: %s: %s", o->path, what, sqlite3_errmsg(live));
	return INSTALL_FAILED;
}

/* Whether the output holds a table (or index, view, trigger) of anything
 * but the run's tables, and whether it is in WAL mode; -1 on error. */
static int needs_copy(struct db_writer *o, sqlite3 *live)
{
	sqlite3_stmt *s = NULL;
	int rc, other = 0;

	if (sqlite3_prepare_v2(live, "SELECT tbl_name FROM sqlite_master", -1, &s, NULL) != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(s, 0);
		if (!t || !ours(o, t))
			other = 1;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return -1;
	if (other)
		return 1;
	if (sqlite3_prepare_v2(live, "PRAGMA journal_mode", -1, &s, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW) {
		const char *m = (const char *)sqlite3_column_text(s, 0);
		other = m && !strcmp(m, "wal");
	}
	sqlite3_finalize(s);
	return other;
}

/* Replaces the run's tables in the output by the staged file's, the
 * output's other tables untouched, in one transaction of live. */
static int copy_tables(struct db_writer *o, sqlite3 *live, struct opmfu_err *err)
{
	struct sbuf sb;
	size_t i;
	int r = INSTALL_OK;

	sbuf_init(&sb);
	for (i = 0; i < o->n_tabs && r == INSTALL_OK; i++) {
		const struct opmfu_table_def *def = o->tabs[i].def;
		sbuf_reset(&sb);
		drop_sql(def, &sb);
		sbuf_adds(&sb, ";");
		ddl_of(def, &sb);
		sbuf_addf(&sb, ";INSERT INTO main.\"%s\" SELECT * FROM staged.\"%s\"", def->name, def->name);
		if (sb.oom) {
			nomem(o->path, err);
			r = INSTALL_FAILED;
		} else if (sqlite3_exec(live, sb.buf, NULL, NULL, NULL) != SQLITE_OK) {
			r = live_fail(o, live, "cannot replace the previous results", err);
		}
	}
	for (i = 0; i < o->base.n_retired && r == INSTALL_OK; i++) {
		sbuf_reset(&sb);
		drop_sql(o->base.retired[i], &sb);
		if (sb.oom) {
			nomem(o->path, err);
			r = INSTALL_FAILED;
		} else if (sqlite3_exec(live, sb.buf, NULL, NULL, NULL) != SQLITE_OK) {
			r = live_fail(o, live, "cannot drop the previous results", err);
		}
	}
	sbuf_release(&sb);
	return r;
}

/* SQLite's busy handler: waits until the deadline (a double of now_ms())
 * however many locks the attempt needs, where busy_timeout would wait its
 * whole time for each (a copy that spills its cache asks again per table). */
static int until_deadline(void *deadline, int n)
{
	double left = *(const double *)deadline - now_ms();
	(void)n;
	if (left <= 0)
		return 0;
	usleep(left < 20 ? (useconds_t)(left * 1000) : 20000);
	return 1;
}

/* One attempt, waiting for locks until deadline (ms of now_ms()). */
static int install_once(struct db_writer *o, double deadline, struct opmfu_err *err)
{
	sqlite3 *live = NULL;
	int r = INSTALL_OK, copy, in_txn = 0;

	if (sqlite3_open_v2(o->path, &live, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		r = live ? live_fail(o, live, "cannot open for writing", err)
			 : (opmfu_err_set(err, OPMFU_ERR_SQLITE, "%s: cannot open for writing", o->path), INSTALL_FAILED);
		goto out;
	}
	sqlite3_busy_handler(live, until_deadline, &deadline);
	if (sqlite3_exec(live, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		r = live_fail(o, live, "cannot start a transaction", err);
		goto out;
	}
	in_txn = 1;
	if ((copy = needs_copy(o, live)) < 0) {
		r = live_fail(o, live, "cannot read its tables", err);
		goto out;
	}
	if (!copy) {
		/* the output is opmfu's only: the staged file takes its place.
		 * The write lock held here keeps other writers out meanwhile;
		 * readers that have it open keep reading the previous file. */
		if (opmfu_stage_rename(o->tmp, o->path) != 0) {
			opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot replace it: %s", o->path, strerror(errno));
			r = INSTALL_FAILED;
		} else {
			opmfu_free(o->tmp);
			o->tmp = NULL;
		}
		goto out;
	}
	sqlite3_exec(live, "ROLLBACK", NULL, NULL, NULL);
	in_txn = 0;
	/* attached outside a transaction: SQLite attaches only there */
	{
		char *sql = sqlite3_mprintf("ATTACH %Q AS staged", o->tmp);
		int rc = sql ? sqlite3_exec(live, sql, NULL, NULL, NULL) : SQLITE_NOMEM;
		sqlite3_free(sql);
		if (rc != SQLITE_OK) {
			r = live_fail(o, live, "cannot attach the staged results", err);
			goto out;
		}
	}
	if (sqlite3_exec(live, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		r = live_fail(o, live, "cannot start a transaction", err);
		goto out;
	}
	in_txn = 1;
	if ((r = copy_tables(o, live, err)) != INSTALL_OK)
		goto out;
	if (sqlite3_exec(live, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		r = live_fail(o, live, "cannot commit the results", err);
		goto out;
	}
	in_txn = 0;
out:
	if (live && in_txn)
		sqlite3_exec(live, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(live);
	return r;
}

/* The staged database replaces the output (see the head of this file);
 * a busy output keeps it as PATH.new. */
static enum opmfu_status install(struct db_writer *o, struct opmfu_err *err)
{
	double deadline = now_ms() + OPMFU_DB_BUSY_WAIT_MS;
	char *kept;
	int r;

	for (;;) {
		r = install_once(o, deadline, err);
		if (r != INSTALL_BUSY || now_ms() >= deadline)
			break;
		usleep(50 * 1000); /* a lock SQLite does not wait for (a reader's upgrade) */
	}
	if (r == INSTALL_OK)
		return OPMFU_OK;
	if (r == INSTALL_FAILED)
		return OPMFU_ERR_SQLITE;
	/* busy: the finished analysis is kept beside the output */
	if (!(kept = opmfu_malloc(strlen(o->path) + 5)))
		return nomem(o->path, err);
	memcpy(kept, o->path, strlen(o->path));
	memcpy(kept + strlen(o->path), ".new", 5);
	if (opmfu_stage_rename(o->tmp, kept) != 0) {
		opmfu_err_set(err, OPMFU_ERR_BUSY,
			      "%s: busy: another process kept a transaction open on it for more than %d s (a reader "
			      "such as a DB browser or a notebook, or a writer); the results could not be kept "
			      "either (%s: %s)",
			      o->path, OPMFU_DB_BUSY_WAIT_MS / 1000, kept, strerror(errno));
	} else {
		sqlite3 *probe = NULL;
		int only_ours = 0;
		opmfu_free(o->tmp);
		o->tmp = NULL;
		/* whether moving it into place would lose another tool's tables */
		if (sqlite3_open_v2(o->path, &probe, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) == SQLITE_OK)
			only_ours = needs_copy(o, probe) == 0;
		sqlite3_close(probe);
		if (only_ours)
			opmfu_err_set(err, OPMFU_ERR_BUSY,
				      "%s: busy: another process kept a transaction open on it for more than %d s (a "
				      "reader such as a DB browser or a notebook, or a writer); the finished results "
				      "are kept in %s: once the other program lets go, move them into place: mv '%s' "
				      "'%s'",
				      o->path, OPMFU_DB_BUSY_WAIT_MS / 1000, kept, kept, o->path);
		else
			opmfu_err_set(err, OPMFU_ERR_BUSY,
				      "%s: busy: another process kept a transaction open on it for more than %d s (a "
				      "reader such as a DB browser or a notebook, or a writer); the finished results "
				      "are kept in %s (opmfu's tables only; %s also holds other tables): once the "
				      "other program lets go, run opmfu again, or copy the tables over as "
				      "docs/cli.md says (\"A busy result database\")",
				      o->path, OPMFU_DB_BUSY_WAIT_MS / 1000, kept, o->path);
	}
	opmfu_free(kept);
	return OPMFU_ERR_BUSY;
}

/* Commits the staged database, syncs it, and puts it in place. */
static enum opmfu_status db_commit(struct opmfu_writer *w, struct opmfu_err *err)
{
	struct db_writer *o = (struct db_writer *)w;
	enum opmfu_status st = exec(o, "COMMIT", "cannot commit the results", err);
	size_t i;
	int fd;

	if (st)
		return st;
	o->in_txn = 0;
	for (i = 0; i < o->n_tabs; i++) {
		sqlite3_finalize(o->tabs[i].ins);
		sqlite3_finalize(o->tabs[i].ins_batch);
		o->tabs[i].ins = o->tabs[i].ins_batch = NULL;
	}
	if (sqlite3_close(o->db) != SQLITE_OK)
		return fail(o, "cannot close the staged results", err);
	o->db = NULL;
	/* on disk before it replaces anything */
	fd = open(o->tmp, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) != 0) {
		st = opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot write the results: %s", o->path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return st;
	}
	close(fd);
	return install(o, err);
}

static void db_close(struct opmfu_writer *w)
{
	struct db_writer *o = (struct db_writer *)w;
	size_t i;

	if (!o)
		return;
	for (i = 0; o->tabs && i < o->n_tabs; i++) {
		sqlite3_finalize(o->tabs[i].ins);
		sqlite3_finalize(o->tabs[i].ins_batch);
		opmfu_free(o->tabs[i].bound);
	}
	sqlite3_close(o->db);
	/* a staged database not put in place (nor kept as .new) goes */
	opmfu_stage_discard(o->tmp);
	opmfu_free(o->tmp);
	opmfu_free(o->tabs);
	opmfu_free(o->cells);
	opmfu_free(o->path);
	opmfu_free(o);
}

/* SQLite copies the rows itself, without a value through the API (a third
 * of put's time for OperatorMFU). ATTACH is refused inside a transaction;
 * the staged file has no journal, so ending the run's transaction and
 * starting another costs nothing, and nothing is visible before commit. */
/* Whether the shard's table has def's columns, in def's order, and no other. */
static int same_columns(sqlite3 *db, const struct opmfu_table_def *def, struct sbuf *sb)
{
	sqlite3_stmt *s = NULL;
	size_t c;
	int same;
	sbuf_reset(sb);
	sbuf_addf(sb, "SELECT * FROM shard.\"%s\"", def->name);
	if (sb->oom || sqlite3_prepare_v2(db, sb->buf, -1, &s, NULL) != SQLITE_OK) {
		sqlite3_finalize(s);
		return 0;
	}
	same = sqlite3_column_count(s) == (int)def->n_cols;
	for (c = 0; c < def->n_cols && same; c++) {
		const char *name = sqlite3_column_name(s, (int)c);
		same = name && !strcmp(name, def->cols[c].name);
	}
	sqlite3_finalize(s);
	return same;
}

/* INSERT INTO main.T SELECT * FROM shard.T when its columns are def's in
 * order: SQLite then copies each row's record as it is, without decoding it
 * (its transfer optimization: the tables are made by one CREATE TABLE, so
 * they agree), 5 times fewer instructions than naming the columns; else
 * INSERT INTO main.T (cols) SELECT cols FROM shard.T ORDER BY rowid, which
 * takes each column by name (and names one missing). Into sb. */
static void copy_sql(sqlite3 *db, struct sbuf *sb, const struct opmfu_table_def *def)
{
	size_t c, k;
	if (same_columns(db, def, sb)) {
		sbuf_reset(sb);
		sbuf_addf(sb, "INSERT INTO main.\"%s\" SELECT * FROM shard.\"%s\"", def->name, def->name);
		return;
	}
	sbuf_reset(sb);
	sbuf_addf(sb, "INSERT INTO main.\"%s\" (", def->name);
	for (k = 0; k < 2; k++) {
		for (c = 0; c < def->n_cols; c++)
			sbuf_addf(sb, "%s\"%s\"", c ? ", " : "", def->cols[c].name);
		sbuf_adds(sb, k ? "" : ") SELECT ");
	}
	sbuf_addf(sb, " FROM shard.\"%s\" ORDER BY rowid", def->name);
}

/* One ATTACH for every table of the shard (its schema is read once). */
static enum opmfu_status db_copy(struct opmfu_writer *w, const char *path, const struct opmfu_table_def *const *defs,
				 size_t n, struct opmfu_err *err)
{
	struct db_writer *o = (struct db_writer *)w;
	enum opmfu_status st = OPMFU_OK;
	sqlite3_stmt *s = NULL;
	struct sbuf sb;
	size_t i;
	int attached = 0;

	for (i = 0; i < n; i++)
		if (!find_tab(o, defs[i]))
			return opmfu_err_set(err, OPMFU_ERR_USAGE, "%s: table %s was not opened", o->path,
					     defs[i]->name);
	if (!n)
		return OPMFU_OK;
	/* a quoted name that is no column must fail, not be copied as a text */
	sqlite3_db_config(o->db, SQLITE_DBCONFIG_DQS_DML, 0, (int *)NULL);
	if ((st = exec(o, "COMMIT", "cannot copy rows", err)))
		return st;
	o->in_txn = 0;
	sbuf_init(&sb);
	if (sqlite3_prepare_v2(o->db, "ATTACH DATABASE ?1 AS shard", -1, &s, NULL) != SQLITE_OK ||
	    sqlite3_bind_text(s, 1, path, -1, SQLITE_STATIC) != SQLITE_OK || sqlite3_step(s) != SQLITE_DONE)
		st = opmfu_err_set(err, OPMFU_ERR_SQLITE, "%s: cannot read it: %s", path, sqlite3_errmsg(o->db));
	else
		attached = 1;
	/* one transaction for them all, as the rows put are */
	if (!st)
		st = exec(o, "BEGIN IMMEDIATE", "cannot start a transaction", err);
	for (i = 0; i < n && !st; i++) {
		copy_sql(o->db, &sb, defs[i]);
		if (sb.oom)
			st = nomem(o->path, err);
		else if (sqlite3_exec(o->db, sb.buf, NULL, NULL, NULL) != SQLITE_OK)
			st = opmfu_err_set(err, OPMFU_ERR_SQLITE, "%s: cannot copy %s: %s", path, defs[i]->name,
					   sqlite3_errmsg(o->db));
	}
	if (attached && sqlite3_get_autocommit(o->db) == 0 && sqlite3_exec(o->db, st ? "ROLLBACK" : "COMMIT", NULL,
									    NULL, NULL) != SQLITE_OK && !st)
		st = fail(o, "cannot copy rows", err);
	sqlite3_finalize(s);
	sbuf_release(&sb);
	if (attached && sqlite3_exec(o->db, "DETACH DATABASE shard", NULL, NULL, NULL) != SQLITE_OK && !st)
		st = fail(o, "cannot detach a shard", err);
	if (!st && (st = exec(o, "BEGIN IMMEDIATE", "cannot start a transaction", err)) == OPMFU_OK)
		o->in_txn = 1;
	return st;
}

const struct opmfu_writer_type opmfu_writer_db = {
	"db", "cluster_analysis.db", db_open, db_put, db_keep_rank, db_drop_rank, db_commit, db_close, db_copy,
};
