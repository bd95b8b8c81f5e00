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

#include "base/idtab.h"
#include "base/intern.h"
#include "base/mem.h"
#include "base/sbuf.h"
#include "sql_out.h"
#include "write/stage.h"
#include "write/writer.h"

#define BATCH 32
/* the most columns a dimension of a stored table may have */
#define MAX_DIM_CELLS 16

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

enum { BOUND_UNKNOWN, BOUND_INT, BOUND_DOUBLE, BOUND_TEXT, BOUND_NULL, BOUND_BLOB };

/* A dimension of a stored table (trace/table.h): the ids of its values
 * within the rank being put. */
struct dim {
	const char *name;
	sqlite3_stmt *ins;       /* INSERT INTO name VALUES (rank, id, its columns) */
	size_t *cell, n_cell;    /* the store's cells of its columns */
	size_t id_cell;          /* the store's cell of its id in the row table */
	/* the rank's values by the identity of their cells (a text's address
	 * and length, which the put's texts keep; a number's bits): most rows
	 * need no key */
	struct opmfu_idtab fast; /* identity -> its entry */
	uint64_t *fword;         /* 2 n_cell words per entry */
	int64_t *fid;            /* the entry's id */
	size_t n_fast, cap_fword, cap_fid;
	size_t last;             /* the previous row's entry */
	int64_t last_id;         /* its id; 0: no previous row */
	/* the rank's values by their bytes (dimension id - 1) */
	struct opmfu_arena ar;
	struct opmfu_intern vals;
};

/* One table's statements. A stored table's inserts are into its row
 * table, of the store's row-table columns. */
struct tab {
	const struct opmfu_table_def *def;
	const struct opmfu_store *store; /* NULL: the table of its columns */
	const char *name;                /* the table inserted into */
	size_t n_ins;                    /* its columns */
	unsigned char *types;            /* their enum opmfu_coltype */
	size_t *from;                    /* stored: each one's cell of the store */
	struct opmfu_cell *scells, *icells; /* stored: the store's cells of a row, the insert's */
	struct dim *dims;
	int64_t dim_rank;                /* the rank the dimensions' ids are of */
	sqlite3_stmt *ins, *ins_batch;
	struct bound *bound; /* BATCH x n_ins: what ins_batch's parameters hold */
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
	struct sbuf key;          /* a dimension's key being looked up */
	int in_txn;
	int touched; /* a row was put or copied: a shard's pages can no longer be the file's (seed) */
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

static void bind_blob(sqlite3_stmt *s, struct bound *b, int i, const char *z, size_t len)
{
	if (b) {
		if (b[i - 1].kind == BOUND_BLOB && b[i - 1].v == (uint64_t)(uintptr_t)z && b[i - 1].len == len)
			return;
		b[i - 1] = (struct bound){ (uint64_t)(uintptr_t)z, len, BOUND_BLOB };
	}
	sqlite3_bind_blob(s, i, z, (int)len, SQLITE_STATIC);
}

/* Binds one row of n cells of those types to parameters base+1 .. base+n. */
static void bind_row(sqlite3_stmt *s, struct bound *b, int base, size_t n, const unsigned char *types,
		     const struct opmfu_cell *c)
{
	size_t k;
	for (k = 0; k < n; k++) {
		int i = base + (int)k + 1;
		if (c[k].null)
			bind_str(s, b, i, NULL, 0);
		else if (types[k] == OPMFU_COL_INT)
			bind_int(s, b, i, c[k].v.i);
		else if (types[k] == OPMFU_COL_REAL)
			bind_dbl(s, b, i, c[k].v.r);
		else if (types[k] == OPMFU_COL_BLOB)
			bind_blob(s, b, i, c[k].v.t.s, c[k].v.t.n);
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

/* The schema/out file of def: the one with its CREATE TABLE (a stored
 * table's: its CREATE VIEW, after the tables it stores it in); for a table
 * that has no file there, a CREATE TABLE made from its columns. */
static void ddl_of(const struct opmfu_table_def *def, struct sbuf *sb)
{
	static const char *const type_name[] = { "INTEGER", "REAL", "TEXT", "BLOB" };
	const char *head = def->store ? "CREATE VIEW \"" : "CREATE TABLE \"";
	size_t i, n = strlen(def->name), h = strlen(head);

	for (i = 0; i < sizeof(ddl_files) / sizeof(ddl_files[0]); i++) {
		const char *p = strstr(ddl_files[i], head);
		if (p && !strncmp(p + h, def->name, n) && p[h + n] == '"') {
			sbuf_adds(sb, ddl_files[i]);
			return;
		}
	}
	sbuf_addf(sb, "CREATE TABLE \"%s\" (", def->name);
	for (i = 0; i < def->n_cols; i++)
		sbuf_addf(sb, "%s\"%s\" %s", i ? ", " : "", def->cols[i].name, type_name[def->cols[i].type]);
	sbuf_adds(sb, ")");
}

/* INSERT INTO "name" VALUES (?,...),(?,...),... of cols columns, rows rows */
static void insert_sql(const char *name, size_t cols, size_t rows, struct sbuf *sb)
{
	size_t r, c;
	sbuf_addf(sb, "INSERT INTO \"%s\" VALUES ", name);
	for (r = 0; r < rows; r++) {
		sbuf_adds(sb, r ? ",(" : "(");
		for (c = 0; c < cols; c++)
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

/* The tables def keeps its rows in: part 0 its own (a stored one's row
 * table), part k of a stored one its dimension k; NULL past the last. */
static const char *part_table(const struct opmfu_table_def *def, size_t part)
{
	if (!def->store)
		return part ? NULL : def->name;
	if (part > def->store->n_dims)
		return NULL;
	return part ? def->store->dims[part - 1] : def->store->rows;
}

/* The DROPs of what def has in db's main (unqualified, a name main lacks
 * would find the attached one's): its table or view, whichever an earlier
 * run made, and its store's tables; into sb. 0, or -1 when db fails. */
static int drop_sql(sqlite3 *db, const struct opmfu_table_def *def, struct sbuf *sb)
{
	sqlite3_stmt *s = NULL;
	size_t k;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT type FROM main.sqlite_master WHERE name = ?1", -1, &s, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(s, 1, def->name, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(s, 0);
		sbuf_addf(sb, "DROP %s main.\"%s\";", type && !strcmp(type, "view") ? "VIEW" : "TABLE", def->name);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return -1;
	for (k = 0; def->store && part_table(def, k); k++)
		sbuf_addf(sb, "DROP TABLE IF EXISTS main.\"%s\";", part_table(def, k));
	return 0;
}

/* Prepares the one-row INSERT of every table (the batch one when a put
 * first fills a batch: most tables never do, and a merge of small ranks
 * spent a tenth of its time parsing SQL). */
static enum opmfu_status prepare_inserts(struct db_writer *o, struct opmfu_err *err)
{
	enum opmfu_status st = OPMFU_OK;
	struct sbuf sb;
	size_t i;

	sbuf_init(&sb);
	for (i = 0; i < o->n_tabs && st == OPMFU_OK; i++) {
		struct tab *tb = &o->tabs[i];
		size_t d;
		sbuf_reset(&sb);
		insert_sql(tb->name, tb->n_ins, 1, &sb);
		if (sb.oom) {
			st = nomem(o->path, err);
			break;
		}
		if (sqlite3_prepare_v2(o->db, sb.buf, -1, &tb->ins, NULL) != SQLITE_OK) {
			st = fail(o, "cannot prepare inserts", err);
			break;
		}
		for (d = 0; tb->store && d < tb->store->n_dims && st == OPMFU_OK; d++) {
			sbuf_reset(&sb);
			insert_sql(tb->dims[d].name, 2 + tb->dims[d].n_cell, 1, &sb);
			if (sb.oom)
				st = nomem(o->path, err);
			else if (sqlite3_prepare_v2(o->db, sb.buf, -1, &tb->dims[d].ins, NULL) != SQLITE_OK)
				st = fail(o, "cannot prepare inserts", err);
		}
	}
	sbuf_release(&sb);
	return st;
}

static void db_close(struct opmfu_writer *w);

/* The row table's columns of a store, or those of dimension d (k > 0): the
 * store's cells of them, into from (NULL: only counted); how many. */
static size_t store_cols(const struct opmfu_store *st, unsigned d, size_t *from)
{
	size_t k, n = 0;
	for (k = 0; k < st->n_cols; k++)
		if (opmfu_store_in(st, k, d)) {
			if (from)
				from[n] = k;
			n++;
		}
	return n;
}

/* A table's insert: its columns, or its store's row table and dimensions. 0, or -1 out of memory. */
static int tab_init(struct tab *tb, const struct opmfu_table_def *def)
{
	const struct opmfu_store *st = def->store;
	size_t k, d;

	tb->def = def;
	tb->store = st;
	tb->name = st ? st->rows : def->name;
	tb->n_ins = st ? store_cols(st, 0, NULL) : def->n_cols;
	if (!(tb->types = opmfu_calloc(tb->n_ins ? tb->n_ins : 1, 1)) ||
	    !(tb->bound = opmfu_calloc(BATCH * (tb->n_ins ? tb->n_ins : 1), sizeof(*tb->bound))))
		return -1;
	if (!st) {
		for (k = 0; k < def->n_cols; k++)
			tb->types[k] = (unsigned char)def->cols[k].type;
		return 0;
	}
	if (!(tb->from = opmfu_calloc(tb->n_ins ? tb->n_ins : 1, sizeof(*tb->from))) ||
	    !(tb->scells = opmfu_calloc(st->n_cols, sizeof(*tb->scells))) ||
	    !(tb->icells = opmfu_calloc(tb->n_ins ? tb->n_ins : 1, sizeof(*tb->icells))) ||
	    !(tb->dims = opmfu_calloc(st->n_dims ? st->n_dims : 1, sizeof(*tb->dims))))
		return -1;
	store_cols(st, 0, tb->from);
	for (k = 0; k < tb->n_ins; k++)
		tb->types[k] = (unsigned char)st->cols[tb->from[k]].type;
	for (d = 0; d < st->n_dims; d++) {
		struct dim *dm = &tb->dims[d];
		dm->name = st->dims[d];
		dm->n_cell = store_cols(st, (unsigned)d + 1, NULL);
		if (dm->n_cell > MAX_DIM_CELLS) /* a store's mistake: t_analyses checks there is none */
			return -1;
		opmfu_intern_init(&dm->vals, &dm->ar);
		if (!(dm->cell = opmfu_calloc(dm->n_cell ? dm->n_cell : 1, sizeof(*dm->cell))))
			return -1;
		store_cols(st, (unsigned)d + 1, dm->cell);
		for (k = 0; k < st->n_cols; k++)
			if (st->cols[k].id && st->cols[k].dim == d + 1)
				dm->id_cell = k;
	}
	return 0;
}

static void tab_release(struct tab *tb)
{
	size_t d;
	sqlite3_finalize(tb->ins);
	sqlite3_finalize(tb->ins_batch);
	tb->ins = tb->ins_batch = NULL;
	for (d = 0; tb->dims && d < tb->store->n_dims; d++) {
		sqlite3_finalize(tb->dims[d].ins);
		tb->dims[d].ins = NULL;
	}
}

static void tab_free(struct tab *tb)
{
	size_t d;
	tab_release(tb);
	for (d = 0; tb->dims && d < tb->store->n_dims; d++) {
		opmfu_free(tb->dims[d].cell);
		opmfu_intern_release(&tb->dims[d].vals);
		opmfu_arena_release(&tb->dims[d].ar);
		opmfu_idtab_release(&tb->dims[d].fast);
		opmfu_free(tb->dims[d].fword);
		opmfu_free(tb->dims[d].fid);
	}
	opmfu_free(tb->dims);
	opmfu_free(tb->types);
	opmfu_free(tb->from);
	opmfu_free(tb->scells);
	opmfu_free(tb->icells);
	opmfu_free(tb->bound);
}

/* Allocates the writer and its tables. */
static struct db_writer *db_new(const char *path, const struct opmfu_table_def *const *defs, size_t n_defs)
{
	struct db_writer *o = opmfu_calloc(1, sizeof(*o));
	size_t i, widest = 1;

	if (!o)
		return NULL;
	o->base.type = &opmfu_writer_db;
	sbuf_init(&o->key);
	o->n_tabs = n_defs;
	for (i = 0; i < n_defs; i++)
		widest = defs[i]->n_cols > widest ? defs[i]->n_cols : widest;
	if (!(o->path = opmfu_strdup(path)) || !(o->tabs = opmfu_calloc(n_defs ? n_defs : 1, sizeof(*o->tabs))) ||
	    !(o->cells = opmfu_calloc(widest, sizeof(*o->cells))))
		goto bad;
	for (i = 0; i < n_defs; i++)
		if (tab_init(&o->tabs[i], defs[i]))
			goto bad;
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

/* Appends a cell of that type to a key: a tag, then its 8 bytes or its
 * length and bytes. */
static void key_add(struct sbuf *sb, const struct opmfu_cell *c, unsigned char type)
{
	char tag = c->null ? 0 : (char)(1 + type);
	sbuf_add(sb, &tag, 1);
	if (c->null)
		return;
	if (type == OPMFU_COL_TEXT) {
		uint64_t n = c->v.t.n;
		sbuf_add(sb, (const char *)&n, sizeof(n));
		sbuf_add(sb, c->v.t.s, c->v.t.n);
	} else {
		sbuf_add(sb, (const char *)&c->v, sizeof(int64_t));
	}
}

/* Empties the dimensions: their ids start again (per rank). */
static void dims_reset(struct tab *tb, int64_t rank)
{
	size_t d;
	for (d = 0; d < tb->store->n_dims; d++) {
		struct dim *dm = &tb->dims[d];
		opmfu_idtab_clear(&dm->fast);
		dm->n_fast = 0;
		dm->last_id = 0;
		opmfu_intern_clear(&dm->vals);
		opmfu_arena_release(&dm->ar);
	}
	tb->dim_rank = rank;
}

/* The identity of the store row's cells of dm into w (2 n_cell words): a
 * text by address and length, a number by its bits. */
static void identity(const struct tab *tb, const struct dim *dm, uint64_t *w)
{
	const struct opmfu_cell *c = tb->scells;
	size_t k;
	for (k = 0; k < dm->n_cell; k++) {
		const struct opmfu_cell *x = &c[dm->cell[k]];
		if (x->null) {
			w[2 * k] = w[2 * k + 1] = 0;
		} else if (tb->store->cols[dm->cell[k]].type == OPMFU_COL_TEXT) {
			w[2 * k] = (uint64_t)x->v.t.n << 2 | 1;
			w[2 * k + 1] = (uint64_t)(uintptr_t)x->v.t.s;
		} else {
			w[2 * k] = 2;
			memcpy(&w[2 * k + 1], &x->v, sizeof(uint64_t));
		}
	}
}

struct fast_probe {
	const struct dim *dm;
	const uint64_t *w;
};

static int fast_eq(const void *probe, uint32_t e)
{
	const struct fast_probe *p = probe;
	size_t n = 2 * p->dm->n_cell;
	return !memcmp(p->dm->fword + e * n, p->w, n * sizeof(uint64_t));
}

/* A hash of identity words, a word at a time (opmfu_hash_bytes goes byte by
 * byte: the identities of most rows are looked up, docs/performance.md). */
static uint64_t words_hash(const uint64_t *w, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL;
	size_t i;
	for (i = 0; i < n; i++)
		h = (h ^ w[i]) * 0x100000001b3ULL;
	return opmfu_mix64(h);
}

/* The rank's id of the store row's value of dm by its bytes (dm->vals'
 * id + 1); a value new in the rank is written to its dimension table. */
static enum opmfu_status value_id(struct db_writer *o, struct tab *tb, struct dim *dm, int64_t *id,
				  struct opmfu_err *err)
{
	const struct opmfu_cell *c = tb->scells;
	size_t k, n = dm->vals.n;
	uint32_t v;

	sbuf_reset(&o->key);
	for (k = 0; k < dm->n_cell; k++)
		key_add(&o->key, &c[dm->cell[k]], (unsigned char)tb->store->cols[dm->cell[k]].type);
	if (o->key.oom || (v = opmfu_intern_add(&dm->vals, o->key.buf, o->key.len)) == OPMFU_IDTAB_NONE)
		return nomem(o->path, err);
	*id = (int64_t)v + 1;
	if (v < n)
		return OPMFU_OK;
	sqlite3_bind_int64(dm->ins, 1, tb->dim_rank);
	sqlite3_bind_int64(dm->ins, 2, *id);
	for (k = 0; k < dm->n_cell; k++) {
		unsigned char type = (unsigned char)tb->store->cols[dm->cell[k]].type;
		bind_row(dm->ins, NULL, 2 + (int)k, 1, &type, &c[dm->cell[k]]);
	}
	return step(o, dm->ins, dm->name, err);
}

/* The id of the store row's value of dimension dm into its id cell: by the
 * identity of its cells (a text's address in the put's strings, a number's
 * bits), the previous row's or one seen before in the rank; else by its
 * bytes (value_id). */
static enum opmfu_status dim_id(struct db_writer *o, struct tab *tb, struct dim *dm, struct opmfu_err *err)
{
	uint64_t w[2 * MAX_DIM_CELLS];
	struct fast_probe fp = { dm, w };
	enum opmfu_status rc;
	size_t nw = 2 * dm->n_cell;
	uint64_t h;
	uint32_t e;

	identity(tb, dm, w);
	if (!dm->last_id || memcmp(w, dm->fword + dm->last * nw, nw * sizeof(*w))) {
		h = words_hash(w, nw);
		e = opmfu_idtab_find(&dm->fast, h, fast_eq, &fp);
		if (e == OPMFU_IDTAB_NONE) {
			int64_t id = 0;
			e = (uint32_t)dm->n_fast;
			if ((rc = value_id(o, tb, dm, &id, err)))
				return rc;
			if (OPMFU_GROW(dm->fword, dm->cap_fword, (dm->n_fast + 1) * nw) ||
			    OPMFU_GROW(dm->fid, dm->cap_fid, dm->n_fast + 1) ||
			    opmfu_idtab_get(&dm->fast, h, fast_eq, &fp, e) == OPMFU_IDTAB_NONE)
				return nomem(o->path, err);
			memcpy(dm->fword + (size_t)e * nw, w, nw * sizeof(*w));
			dm->fid[e] = id;
			dm->n_fast++;
		}
		dm->last = e;
		dm->last_id = dm->fid[e];
	}
	tb->scells[dm->id_cell] = opmfu_cell_int(dm->last_id);
	return OPMFU_OK;
}

/* Row i of t as its insert's cells: the table's, or its store's row table's. */
static enum opmfu_status ins_cells(struct db_writer *o, struct tab *tb, const struct opmfu_table *t, size_t i,
				   const struct opmfu_cell **out, struct opmfu_err *err)
{
	enum opmfu_status rc;
	size_t k;
	int64_t rank;

	if (!tb->store) {
		t->row(t->src, i, o->cells);
		*out = o->cells;
		return OPMFU_OK;
	}
	t->row(t->src, i, o->cells);
	tb->store->row(t->row == tb->store->own_row ? t->src : NULL, i, o->cells, tb->scells);
	rank = tb->scells[0].null ? -1 : tb->scells[0].v.i;
	if (rank != tb->dim_rank)
		dims_reset(tb, rank);
	for (k = 0; k < tb->store->n_dims; k++)
		if ((rc = dim_id(o, tb, &tb->dims[k], err)))
			return rc;
	for (k = 0; k < tb->n_ins; k++)
		tb->icells[k] = tb->scells[tb->from[k]];
	*out = tb->icells;
	return OPMFU_OK;
}

static enum opmfu_status db_put(struct opmfu_writer *w, int rank, const struct opmfu_table *t, struct opmfu_err *err)
{
	struct db_writer *o = (struct db_writer *)w;
	struct tab *tb = find_tab(o, t->def);
	size_t i, n = t->n_rows, nc = tb ? tb->n_ins : 0;
	/* whole batches first, then the rest one row at a time */
	size_t batched = n - n % BATCH;
	enum opmfu_status st;

	(void)rank;
	if (!tb)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "%s: table %s was not opened", o->path, t->def->name);
	/* another put's strings live elsewhere: forget what is bound (only
	 * batches use it: most puts are of a few rows, and this is per put) */
	if (batched && !tb->ins_batch) {
		struct sbuf sb;
		sbuf_init(&sb);
		insert_sql(tb->name, nc, BATCH, &sb);
		st = sb.oom ? nomem(o->path, err)
			    : sqlite3_prepare_v2(o->db, sb.buf, -1, &tb->ins_batch, NULL) != SQLITE_OK
				      ? fail(o, "cannot prepare inserts", err)
				      : OPMFU_OK;
		sbuf_release(&sb);
		if (st)
			return st;
	}
	if (batched)
		memset(tb->bound, 0, BATCH * nc * sizeof(*tb->bound));
	tb->put |= n > 0;
	o->touched |= n > 0;
	if (tb->store)
		tb->dim_rank = INT64_MIN; /* a put is a rank's rows: its first row starts the ids again */
	for (i = 0; i < n; i++) {
		sqlite3_stmt *s = tb->ins;
		const struct opmfu_cell *c;
		if ((st = ins_cells(o, tb, t, i, &c, err)))
			return st;
		if (i < batched) {
			size_t slot = i % BATCH;
			s = tb->ins_batch;
			bind_row(s, tb->bound, (int)(slot * nc), nc, tb->types, c);
			if (slot < BATCH - 1)
				continue;
		} else {
			bind_row(s, NULL, 0, nc, tb->types, c);
		}
		if ((st = step(o, s, tb->name, err)))
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
		const char *name;
		size_t k;
		if (!o->tabs[i].put)
			continue;
		o->tabs[i].put = 0;
		for (k = 0; st == OPMFU_OK && (name = part_table(o->tabs[i].def, k)); k++) {
			sqlite3_stmt *s = NULL;
			snprintf(sql, sizeof(sql), "DELETE FROM \"%s\" WHERE \"rank_id\" = ?", name);
			if (sqlite3_prepare_v2(o->db, sql, -1, &s, NULL) != SQLITE_OK)
				return fail_on(o, "cannot remove a failed rank's rows from", name, err);
			sqlite3_bind_int(s, 1, rank);
			if (sqlite3_step(s) != SQLITE_DONE)
				st = fail_on(o, "cannot remove a failed rank's rows from", name, err);
			sqlite3_finalize(s);
		}
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

/* 1 when name is def's table (or view), or one its store keeps it in */
static int is_of(const struct opmfu_table_def *def, const char *name)
{
	const char *t;
	size_t k;
	if (!strcmp(def->name, name))
		return 1;
	for (k = 0; (t = part_table(def, k)); k++)
		if (!strcmp(t, name))
			return 1;
	return 0;
}

/* 1 when name is one of the run's tables, or one it retires */
static int ours(const struct db_writer *o, const char *name)
{
	size_t i;
	for (i = 0; i < o->n_tabs; i++)
		if (is_of(o->tabs[i].def, name))
			return 1;
	for (i = 0; i < o->base.n_retired; i++)
		if (is_of(o->base.retired[i], name))
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
		const char *name;
		size_t k;
		sbuf_reset(&sb);
		if (drop_sql(live, def, &sb)) {
			r = live_fail(o, live, "cannot read its tables", err);
			break;
		}
		ddl_of(def, &sb);
		for (k = 0; (name = part_table(def, k)); k++) {
			sbuf_addf(&sb, ";INSERT INTO main.\"%s\" SELECT * FROM staged.\"%s\"", name, name);
		}
		if (sb.oom) {
			nomem(o->path, err);
			r = INSTALL_FAILED;
		} else if (sqlite3_exec(live, sb.buf, NULL, NULL, NULL) != SQLITE_OK) {
			r = live_fail(o, live, "cannot replace the previous results", err);
		}
	}
	for (i = 0; i < o->base.n_retired && r == INSTALL_OK; i++) {
		sbuf_reset(&sb);
		if (drop_sql(live, o->base.retired[i], &sb)) {
			r = live_fail(o, live, "cannot read its tables", err);
			break;
		}
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
	for (i = 0; i < o->n_tabs; i++)
		tab_release(&o->tabs[i]);
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
	for (i = 0; o->tabs && i < o->n_tabs; i++)
		tab_free(&o->tabs[i]);
	sbuf_release(&o->key);
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
/* What def keeps in a database: part 0 its table (a stored one's row
 * table), part k of a stored one its dimension k. The table's name, and its
 * columns into names (room for MAX_COPY_COLS: more is refused by db_copy);
 * how many, 0: no such part. */
#define MAX_COPY_COLS 1024
static size_t part_cols(const struct opmfu_table_def *def, size_t part, const char **table, const char **names)
{
	const struct opmfu_store *st = def->store;
	size_t k, n = 0;
	if (!(*table = part_table(def, part)))
		return 0;
	if (!st) {
		for (k = 0; k < def->n_cols && n < MAX_COPY_COLS; k++)
			names[n++] = def->cols[k].name;
		return n;
	}
	if (part) {
		names[n++] = "rank_id";
		names[n++] = "id";
	}
	for (k = 0; k < st->n_cols && n < MAX_COPY_COLS; k++)
		if (opmfu_store_in(st, k, (unsigned)part))
			names[n++] = st->cols[k].name;
	return n;
}

/* Whether the shard's table has those columns, in that order, and no other. */
static int same_columns(sqlite3 *db, const char *table, const char *const *names, size_t n, struct sbuf *sb)
{
	sqlite3_stmt *s = NULL;
	size_t c;
	int same;
	sbuf_reset(sb);
	sbuf_addf(sb, "SELECT * FROM shard.\"%s\"", table);
	if (sb->oom || sqlite3_prepare_v2(db, sb->buf, -1, &s, NULL) != SQLITE_OK) {
		sqlite3_finalize(s);
		return 0;
	}
	same = sqlite3_column_count(s) == (int)n;
	for (c = 0; c < n && same; c++) {
		const char *name = sqlite3_column_name(s, (int)c);
		same = name && !strcmp(name, names[c]);
	}
	sqlite3_finalize(s);
	return same;
}

/* INSERT INTO main.T SELECT * FROM shard.T when its columns are the
 * part's in order: SQLite then copies each row's record as it is, without
 * decoding it (its transfer optimization: the tables are made by one CREATE
 * TABLE, so they agree), 5 times fewer instructions than naming the
 * columns; else INSERT INTO main.T (cols) SELECT cols FROM shard.T (ORDER
 * BY rowid: a dimension has none, and its key orders it), which takes each
 * column by name (and names one missing). Into sb. */
static void copy_sql(sqlite3 *db, struct sbuf *sb, const char *table, const char *const *names, size_t n,
		     int rowid)
{
	size_t c, k;
	if (same_columns(db, table, names, n, sb)) {
		sbuf_reset(sb);
		sbuf_addf(sb, "INSERT INTO main.\"%s\" SELECT * FROM shard.\"%s\"", table, table);
		return;
	}
	sbuf_reset(sb);
	sbuf_addf(sb, "INSERT INTO main.\"%s\" (", table);
	for (k = 0; k < 2; k++) {
		for (c = 0; c < n; c++)
			sbuf_addf(sb, "%s\"%s\"", c ? ", " : "", names[c]);
		sbuf_adds(sb, k ? "" : ") SELECT ");
	}
	sbuf_addf(sb, " FROM shard.\"%s\"%s", table, rowid ? " ORDER BY rowid" : "");
}

/* The names def has in a database, k from 0: its table or view, then a
 * stored one's tables; NULL past the last. */
static const char *def_name(const struct opmfu_table_def *def, size_t k)
{
	return !k ? def->name : def->store ? part_table(def, k - 1) : NULL;
}

/* Whether name is one of defs' (def_name). */
static int kept_name(const struct opmfu_table_def *const *defs, size_t n, const char *name)
{
	size_t i, k;
	const char *d;
	for (i = 0; i < n; i++)
		for (k = 0; (d = def_name(defs[i], k)); k++)
			if (!strcmp(d, name))
				return 1;
	return 0;
}

/* The CREATE text of name in db's schema into sb (empty: none); -1 on error. */
static int schema_sql(sqlite3 *db, const char *name, struct sbuf *sb)
{
	sqlite3_stmt *s = NULL;
	int rc;
	sbuf_reset(sb);
	if (sqlite3_prepare_v2(db, "SELECT sql FROM main.sqlite_master WHERE name = ?1", -1, &s, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW && sqlite3_column_text(s, 0))
		sbuf_adds(sb, (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* Whether the shard's tables (and view) that defs keep rows in were made by
 * the staged file's own CREATE texts, and it holds no table of SQLite's
 * own (statistics, sequences) that a copy of its pages would bring along. */
static int same_schema(struct db_writer *o, sqlite3 *src, const struct opmfu_table_def *const *defs, size_t n)
{
	struct sbuf a, b;
	sqlite3_stmt *s = NULL;
	size_t i, k;
	int same = 1;
	const char *name;

	sbuf_init(&a);
	sbuf_init(&b);
	for (i = 0; i < n && same; i++)
		for (k = 0; same && (name = def_name(defs[i], k)); k++)
			same = !schema_sql(o->db, name, &a) && !schema_sql(src, name, &b) && !a.oom && !b.oom &&
			       a.len && a.len == b.len && !memcmp(a.buf, b.buf, a.len);
	sbuf_release(&a);
	sbuf_release(&b);
	if (!same || sqlite3_prepare_v2(src, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name LIKE "
				       "'sqlite\\_%' ESCAPE '\\'", -1, &s, NULL) != SQLITE_OK)
		same = 0;
	else
		same = sqlite3_step(s) == SQLITE_DONE;
	sqlite3_finalize(s);
	return same;
}

/* What the staged file, now a copy of a shard's, must not keep (the shard's
 * other tables and views, anything made on them) dropped, and the output's
 * tables that defs do not copy made again, empty. */
static enum opmfu_status reshape(struct db_writer *o, const struct opmfu_table_def *const *defs, size_t n,
				 struct opmfu_err *err)
{
	static const char *const kinds[] = { "trigger", "index", "view", "table" };
	enum opmfu_status st = exec(o, "BEGIN IMMEDIATE", "cannot copy rows", err);
	sqlite3_stmt *s = NULL;
	struct sbuf sb;
	size_t i;

	sbuf_init(&sb);
	if (!st && sqlite3_prepare_v2(o->db, "SELECT type, name FROM main.sqlite_master WHERE name NOT LIKE "
				      "'sqlite\\_%' ESCAPE '\\'", -1, &s, NULL) != SQLITE_OK)
		st = fail(o, "cannot read the copied shard's tables", err);
	while (!st && sqlite3_step(s) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(s, 0), *name = (const char *)sqlite3_column_text(s, 1);
		for (i = 0; type && name && i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (!strcmp(type, kinds[i]) && (i < 2 || !kept_name(defs, n, name)))
				sbuf_addf(&sb, "DROP %s IF EXISTS main.\"%s\";", kinds[i], name);
	}
	sqlite3_finalize(s);
	for (i = 0; !st && i < o->n_tabs; i++)
		if (!kept_name(defs, n, o->tabs[i].def->name)) {
			ddl_of(o->tabs[i].def, &sb);
			sbuf_adds(&sb, ";");
		}
	if (!st && sb.oom)
		st = nomem(o->path, err);
	else if (!st && sqlite3_exec(o->db, sb.buf ? sb.buf : "", NULL, NULL, NULL) != SQLITE_OK)
		st = fail(o, "cannot make the output's tables", err);
	sbuf_release(&sb);
	if (!st)
		st = exec(o, "COMMIT", "cannot copy rows", err);
	else if (!sqlite3_get_autocommit(o->db))
		sqlite3_exec(o->db, "ROLLBACK", NULL, NULL, NULL);
	return st;
}

/* The first shard, when nothing is in the staged file yet: SQLite's backup
 * copies its pages whole, rows never decoded nor inserted, and reshape()
 * leaves the output's tables. Outside a transaction. *done 0: the shard
 * cannot be taken so (another schema, or unreadable: the row copy says). */
static enum opmfu_status seed(struct db_writer *o, const char *path, const struct opmfu_table_def *const *defs,
			      size_t n, int *done, struct opmfu_err *err)
{
	sqlite3 *src = NULL;
	sqlite3_backup *b;
	int rc;

	*done = 0;
	if (sqlite3_open_v2(path, &src, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
	    !same_schema(o, src, defs, n)) {
		sqlite3_close(src);
		return OPMFU_OK;
	}
	if (!(b = sqlite3_backup_init(o->db, "main", src, "main"))) {
		sqlite3_close(src);
		return fail(o, "cannot copy rows", err);
	}
	rc = sqlite3_backup_step(b, -1);
	if (sqlite3_backup_finish(b) != SQLITE_OK || rc != SQLITE_DONE) {
		enum opmfu_status st = opmfu_err_set(err, OPMFU_ERR_SQLITE, "%s: cannot copy it: %s", path,
						     sqlite3_errmsg(o->db));
		sqlite3_close(src);
		return st;
	}
	sqlite3_close(src);
	*done = 1;
	return reshape(o, defs, n, err);
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

	for (i = 0; i < n; i++) {
		if (!find_tab(o, defs[i]))
			return opmfu_err_set(err, OPMFU_ERR_USAGE, "%s: table %s was not opened", o->path,
					     defs[i]->name);
		if (defs[i]->n_cols > MAX_COPY_COLS || (defs[i]->store && defs[i]->store->n_cols + 2 > MAX_COPY_COLS))
			return opmfu_err_set(err, OPMFU_ERR_USAGE, "%s: table %s has more than %d columns to copy",
					     o->path, defs[i]->name, MAX_COPY_COLS);
	}
	if (!n)
		return OPMFU_OK;
	/* a quoted name that is no column must fail, not be copied as a text */
	sqlite3_db_config(o->db, SQLITE_DBCONFIG_DQS_DML, 0, (int *)NULL);
	if ((st = exec(o, "COMMIT", "cannot copy rows", err)))
		return st;
	o->in_txn = 0;
	sbuf_init(&sb);
	if (!o->touched) {
		int done;
		o->touched = 1;
		if ((st = seed(o, path, defs, n, &done, err)) || done)
			goto begin;
	}
	if (sqlite3_prepare_v2(o->db, "ATTACH DATABASE ?1 AS shard", -1, &s, NULL) != SQLITE_OK ||
	    sqlite3_bind_text(s, 1, path, -1, SQLITE_STATIC) != SQLITE_OK || sqlite3_step(s) != SQLITE_DONE)
		st = opmfu_err_set(err, OPMFU_ERR_SQLITE, "%s: cannot read it: %s", path, sqlite3_errmsg(o->db));
	else
		attached = 1;
	/* one transaction for them all, as the rows put are */
	if (!st)
		st = exec(o, "BEGIN IMMEDIATE", "cannot start a transaction", err);
	for (i = 0; i < n && !st; i++) {
		const char *names[MAX_COPY_COLS], *table = NULL;
		size_t part, nc;
		for (part = 0; !st && (nc = part_cols(defs[i], part, &table, names)) > 0; part++) {
			copy_sql(o->db, &sb, table, names, nc, part == 0);
			if (sb.oom)
				st = nomem(o->path, err);
			else if (sqlite3_exec(o->db, sb.buf, NULL, NULL, NULL) != SQLITE_OK)
				st = opmfu_err_set(err, OPMFU_ERR_SQLITE, "%s: cannot copy %s: %s", path, table,
						   sqlite3_errmsg(o->db));
		}
	}
	if (attached && sqlite3_get_autocommit(o->db) == 0 && sqlite3_exec(o->db, st ? "ROLLBACK" : "COMMIT", NULL,
									    NULL, NULL) != SQLITE_OK && !st)
		st = fail(o, "cannot copy rows", err);
	sqlite3_finalize(s);
	if (attached && sqlite3_exec(o->db, "DETACH DATABASE shard", NULL, NULL, NULL) != SQLITE_OK && !st)
		st = fail(o, "cannot detach a shard", err);
begin:
	sbuf_release(&sb);
	if (!st && (st = exec(o, "BEGIN IMMEDIATE", "cannot start a transaction", err)) == OPMFU_OK)
		o->in_txn = 1;
	return st;
}

const struct opmfu_writer_type opmfu_writer_db = {
	"db", "cluster_analysis.db", db_open, db_put, db_keep_rank, db_drop_rank, db_commit, db_close, db_copy,
};
