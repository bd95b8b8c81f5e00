/*
 * results.c - an opmfu result database read back (read/results.h). Each
 * table is checked by its column names (PRAGMA table_info), then scanned
 * once with a plain SELECT of those columns; every value's storage class is
 * checked, so a database edited by hand gives a message naming the row and
 * column, never a wrong number.
 */
#include "read/results.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

#include <sqlite3.h>

#include "base/mem.h"
#include "base/sbuf.h"
#include "read/dirwalk.h"
#include "read/sqlite_in.h"
#include "trace/coll.h"

/* The scan under way. */
struct rd {
	sqlite3 *db;
	const char *path;
	struct opmfu_intern *names;
	struct opmfu_results *r;
	struct opmfu_err *err;
	const char *table;
	const char *const *cols;
	sqlite3_stmt *s;
	size_t row;  /* 1-based, for messages */
	int list;    /* OPMFU_RES_* of list_row */
	struct sbuf key; /* a collective's name (coll_row), reused row to row */
};

static enum opmfu_status sql_fail(sqlite3 *db, const char *path, const char *what, struct opmfu_err *err)
{
	return opmfu_err_set(err, OPMFU_ERR_SQLITE, "%s: %s: %s%s", path, what, sqlite3_errmsg(db),
			     opmfu_sqlite_in_hint(sqlite3_extended_errcode(db)));
}

/* Whether the database has a table or a view of that name, into *found: 0
 * neither, HAS_TABLE, HAS_VIEW (a table stored narrow, trace/table.h). */
enum { HAS_TABLE = 1, HAS_VIEW = 2 };
static enum opmfu_status has_table(sqlite3 *db, const char *path, const char *table, int *found,
				   struct opmfu_err *err)
{
	sqlite3_stmt *s = NULL;
	int rc;

	*found = 0;
	if (sqlite3_prepare_v2(db, "SELECT type = 'view' FROM sqlite_master WHERE type IN ('table','view') AND name = ?",
			       -1, &s, NULL) != SQLITE_OK)
		return sql_fail(db, path, "reading the schema", err);
	sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*found = sqlite3_column_int(s, 0) ? HAS_VIEW : HAS_TABLE;
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return sql_fail(db, path, "reading the schema", err);
	return OPMFU_OK;
}

/* Whether the file starts as an SQLite database does (a file that is not
 * regular is not opened: SPEC 26). */
static int sqlite_header(const char *path)
{
	char h[16];
	int fd = opmfu_open_regular(path, NULL, "cannot open", NULL), ok;
	if (fd < 0)
		return 0;
	ok = read(fd, h, sizeof(h)) == (ssize_t)sizeof(h) && !memcmp(h, "SQLite format 3", 16);
	close(fd);
	return ok;
}

enum opmfu_status opmfu_db_kind(const char *path, enum opmfu_db_kind *kind, struct opmfu_err *err)
{
	struct opmfu_sqlite_in in;
	sqlite3 *db = NULL;
	enum opmfu_status st;
	int found = 0;

	*kind = OPMFU_DB_NOT_SQLITE;
	if (!sqlite_header(path))
		return OPMFU_OK;
	if ((st = opmfu_sqlite_in_open(path, &db, &in, err)))
		return st;
	*kind = OPMFU_DB_OTHER;
	st = has_table(db, path, "OpmfuRankSummary", &found, err);
	if (st == OPMFU_OK && found)
		*kind = OPMFU_DB_RESULT;
	else if (st == OPMFU_OK && (st = has_table(db, path, "TASK", &found, err)) == OPMFU_OK && found)
		*kind = OPMFU_DB_PROFILER;
	sqlite3_close(db);
	return st;
}

/* ---- values ---- */

static enum opmfu_status bad_value(struct rd *d, int k, const char *what)
{
	return opmfu_err_set(d->err, OPMFU_ERR_FORMAT, "%s: %s row %zu: %s %s", d->path, d->table, d->row, d->cols[k],
			     what);
}

/* Column k as a number: INTEGER or REAL; NULL is NAN. */
static enum opmfu_status num(struct rd *d, int k, double *out)
{
	switch (sqlite3_column_type(d->s, k)) {
	case SQLITE_INTEGER:
		*out = (double)sqlite3_column_int64(d->s, k);
		return OPMFU_OK;
	case SQLITE_FLOAT:
		*out = sqlite3_column_double(d->s, k);
		return OPMFU_OK;
	case SQLITE_NULL:
		*out = NAN;
		return OPMFU_OK;
	default:
		return bad_value(d, k, "is not a number");
	}
}

/* Column k as a rank id: an INTEGER that fits an int. */
static enum opmfu_status rank_of(struct rd *d, int k, int *out)
{
	sqlite3_int64 v;
	if (sqlite3_column_type(d->s, k) != SQLITE_INTEGER)
		return bad_value(d, k, "is not an integer");
	v = sqlite3_column_int64(d->s, k);
	if (v < -1 || v > 1000000)
		return bad_value(d, k, "is not a rank id (-1 to 1000000)");
	*out = (int)v;
	return OPMFU_OK;
}

static enum opmfu_status nomem(struct rd *d)
{
	return opmfu_err_set(d->err, OPMFU_ERR_NOMEM, "%s: out of memory reading %s", d->path, d->table);
}

/* Column k as a text or NULL (*s NULL), its length in *n. */
static enum opmfu_status text_or_null(struct rd *d, int k, const char **s, size_t *n)
{
	*s = NULL;
	*n = 0;
	switch (sqlite3_column_type(d->s, k)) {
	case SQLITE_NULL:
		return OPMFU_OK;
	case SQLITE_TEXT:
		if (!(*s = (const char *)sqlite3_column_text(d->s, k)))
			return nomem(d);
		*n = (size_t)sqlite3_column_bytes(d->s, k);
		return OPMFU_OK;
	default:
		return bad_value(d, k, "is not a text");
	}
}

/* Column k as a text, interned. */
static enum opmfu_status name_of(struct rd *d, int k, uint32_t *out)
{
	const char *s;
	size_t n;
	enum opmfu_status st = text_or_null(d, k, &s, &n);
	if (st)
		return st;
	if (!s)
		return bad_value(d, k, "is not a text");
	*out = opmfu_intern_add(d->names, s, n);
	return *out == OPMFU_IDTAB_NONE ? nomem(d) : OPMFU_OK;
}

/* ---- the tables ---- */

static const char *const rank_cols[] = { "rank_id", "status", "compute_ns", "flops_record", "flops_shape",
					 "mfu_recorded", NULL };
static const char *const module_cols[] = { "rank_id", "module", "self_kernel_ns", "self_flops", "self_mfu",
					   "self_lost_ns", NULL };
static const char *const op_cols[] = { "rank_id", "op_name", "kernel_ns", "flops", "mfu", "lost_ns", NULL };
/* OpmfuSteps' columns the diff reads: the first 8 are in every result; the
 * parts after them came with SPEC 17 (busy without FLOPs and idle split, in
 * this order), SPEC 18 (memory-bound work) and SPEC 19 (the waiting part of
 * exposed communication), and a result of any has a prefix of them
 * (steps_layout) */
#define STEP_BASE 8
#define STEP_WAIT (STEP_BASE + 4) /* comm_wait_ns: a part of comm_exposed_ns, not of the waterfall */
static const char *const step_cols[] = { "rank_id", "window_ns", "flops_ns", "other_compute_ns", "comm_exposed_ns",
					 "idle_ns", "flops", "trace_mfu", "matmul_noflops_ns", "memcpy_ns",
					 "idle_host_ns", "memory_bound_ns", "comm_wait_ns", NULL };
/* OpmfuCollectives' columns the diff reads: the key (as the hotspots name it) and the times */
static const char *const coll_cols[] = { "rank_id", "name", "op_name", "group", "time_ns", "exposed_ns", NULL };
static const char *const model_cols[] = { "convention", "step_ns", "model_flops_per_device", "model_mfu", "rank_id",
					  "step", NULL };

static enum opmfu_status rank_row(struct rd *d)
{
	struct opmfu_results *r = d->r;
	struct opmfu_res_rank *k;
	double rec, shape;
	const unsigned char *status;
	enum opmfu_status st;

	if (OPMFU_GROW(r->ranks, r->cap_ranks, r->n_ranks + 1))
		return nomem(d);
	k = &r->ranks[r->n_ranks];
	if ((st = rank_of(d, 0, &k->rank)) || (st = num(d, 2, &k->compute_ns)) || (st = num(d, 3, &rec)) ||
	    (st = num(d, 4, &shape)) || (st = num(d, 5, &k->mfu)))
		return st;
	status = sqlite3_column_text(d->s, 1);
	k->failed = status && !strcmp((const char *)status, "failed");
	k->flops = isnan(rec) && isnan(shape) ? NAN : (isnan(rec) ? 0 : rec) + (isnan(shape) ? 0 : shape);
	r->n_ranks++;
	return OPMFU_OK;
}

static enum opmfu_status list_row(struct rd *d)
{
	struct opmfu_results *r = d->r;
	struct opmfu_res_row *w;
	enum opmfu_status st;

	if (OPMFU_GROW(r->rows[d->list], r->cap_rows[d->list], r->n_rows[d->list] + 1))
		return nomem(d);
	w = &r->rows[d->list][r->n_rows[d->list]];
	if ((st = rank_of(d, 0, &w->rank)) || (st = name_of(d, 1, &w->name)) || (st = num(d, 2, &w->kernel_ns)) ||
	    (st = num(d, 3, &w->flops)) || (st = num(d, 4, &w->mfu)) || (st = num(d, 5, &w->lost_ns)))
		return st;
	r->n_rows[d->list]++;
	return OPMFU_OK;
}

/* Whether OpmfuSteps has column col. Bare names: SQLite takes an unknown
 * "quoted" name for a string. */
static int steps_have(sqlite3 *db, const char *col)
{
	char sql[96];
	sqlite3_stmt *s = NULL;
	int ok;
	snprintf(sql, sizeof(sql), "SELECT %s FROM \"OpmfuSteps\" LIMIT 0", col);
	ok = sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK;
	sqlite3_finalize(s);
	return ok;
}

/* cols: step_cols up to the parts this result has (SPEC 17's three come
 * together, and `kind` with them; SPEC 18's after them), NULL-terminated.
 * Returns how many parts it has. */
static int steps_layout(sqlite3 *db, const char **cols)
{
	size_t n = STEP_BASE, k;
	if (steps_have(db, "kind")) {
		while (step_cols[n] && steps_have(db, step_cols[n]))
			n++;
	}
	for (k = 0; k < n; k++)
		cols[k] = step_cols[k];
	cols[n] = NULL;
	return (int)(n - STEP_BASE);
}

static enum opmfu_status step_row(struct rd *d)
{
	struct opmfu_results *r = d->r;
	struct opmfu_res_step *w;
	enum opmfu_status st;

	if (OPMFU_GROW(r->steps, r->cap_steps, r->n_steps + 1))
		return nomem(d);
	w = &r->steps[r->n_steps];
	if ((st = rank_of(d, 0, &w->rank)) || (st = num(d, 1, &w->window_ns)) || (st = num(d, 2, &w->flops_ns)) ||
	    (st = num(d, 3, &w->other_ns)) || (st = num(d, 4, &w->comm_ns)) || (st = num(d, 5, &w->idle_ns)) ||
	    (st = num(d, 6, &w->flops)) || (st = num(d, 7, &w->trace_mfu)))
		return st;
	w->comm_wait_ns = NAN;
	/* cols ends at its first NULL (a prefix of step_cols): not read past it */
	if (d->cols[STEP_BASE] && d->cols[STEP_BASE + 1] && d->cols[STEP_BASE + 2] && d->cols[STEP_BASE + 3] &&
	    d->cols[STEP_WAIT] && (st = num(d, STEP_WAIT, &w->comm_wait_ns)))
		return st;
	if (d->cols[STEP_BASE]) {
		/* the old meanings: other compute held everything busy without FLOPs, idle all idle */
		double part[4] = { 0, 0, 0, 0 }; /* matmul_noflops, memcpy, idle_host, memory_bound */
		size_t k;
		for (k = 0; k < 4 && d->cols[STEP_BASE + k]; k++)
			if ((st = num(d, (int)(STEP_BASE + k), &part[k])))
				return st;
		for (k = 0; k < 4; k++)
			part[k] = isnan(part[k]) ? 0 : part[k];
		w->other_ns = (isnan(w->other_ns) ? 0 : w->other_ns) + part[0] + part[1] + part[3];
		w->idle_ns = (isnan(w->idle_ns) ? 0 : w->idle_ns) + part[2];
	}
	r->n_steps++;
	return OPMFU_OK;
}

/* A collective call: named as its hotspot is (opmfu_coll_key: the kind, else
 * the trace's name, and the group), so a diff row and a hotspot agree. */
static enum opmfu_status coll_row(struct rd *d)
{
	struct opmfu_results *r = d->r;
	struct opmfu_res_row *w;
	const char *kind, *op, *group;
	size_t nk, no, ng;
	enum opmfu_status st;

	if (OPMFU_GROW(r->rows[OPMFU_RES_COLLECTIVES], r->cap_rows[OPMFU_RES_COLLECTIVES],
		       r->n_rows[OPMFU_RES_COLLECTIVES] + 1))
		return nomem(d);
	w = &r->rows[OPMFU_RES_COLLECTIVES][r->n_rows[OPMFU_RES_COLLECTIVES]];
	if ((st = rank_of(d, 0, &w->rank)) || (st = text_or_null(d, 1, &kind, &nk)) ||
	    (st = text_or_null(d, 2, &op, &no)) || (st = text_or_null(d, 3, &group, &ng)) ||
	    (st = num(d, 4, &w->kernel_ns)) || (st = num(d, 5, &w->lost_ns)))
		return st;
	sbuf_reset(&d->key);
	opmfu_coll_key(&d->key, kind ? kind : op, kind ? nk : no, group, group ? ng : 0);
	if (d->key.oom)
		return nomem(d);
	w->name = opmfu_intern_add(d->names, d->key.len ? d->key.buf : "", d->key.len);
	if (w->name == OPMFU_IDTAB_NONE)
		return nomem(d);
	w->flops = w->mfu = NAN;
	r->n_rows[OPMFU_RES_COLLECTIVES]++;
	return OPMFU_OK;
}

static enum opmfu_status model_row(struct rd *d)
{
	struct opmfu_results *r = d->r;
	struct opmfu_res_model *w;
	enum opmfu_status st;

	if (OPMFU_GROW(r->model, r->cap_model, r->n_model + 1))
		return nomem(d);
	w = &r->model[r->n_model];
	if ((st = name_of(d, 0, &w->conv)) || (st = num(d, 1, &w->step_ns)) || (st = num(d, 2, &w->flops)) ||
	    (st = num(d, 3, &w->mfu)))
		return st;
	r->n_model++;
	return OPMFU_OK;
}

/* Checks that the table has every column of d->cols. */
static enum opmfu_status need_columns(struct rd *d)
{
	char sql[128];
	sqlite3_stmt *s = NULL;
	unsigned have = 0, i;
	int rc;

	snprintf(sql, sizeof(sql), "PRAGMA table_info(\"%s\")", d->table);
	if (sqlite3_prepare_v2(d->db, sql, -1, &s, NULL) != SQLITE_OK)
		return sql_fail(d->db, d->path, "reading the schema", d->err);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 1);
		for (i = 0; d->cols[i]; i++)
			if (name && !strcmp(name, d->cols[i]))
				have |= 1u << i;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return sql_fail(d->db, d->path, "reading the schema", d->err);
	for (i = 0; d->cols[i]; i++)
		if (!(have & 1u << i))
			return opmfu_err_set(d->err, OPMFU_ERR_SCHEMA,
					     "%s: table %s has no column %s (written by an older opmfu? run opmfu "
					     "analyze on its input again)",
					     d->path, d->table, d->cols[i]);
	return OPMFU_OK;
}

/* Scans table's columns cols (where: a condition, or NULL), each row into
 * row(d). A missing table is an error unless optional (then *found is 0). */
static enum opmfu_status scan(struct rd *d, const char *table, const char *const *cols, const char *where,
			      enum opmfu_status (*row)(struct rd *), int optional, int *found)
{
	enum opmfu_status st;
	struct sbuf sb;
	size_t i;
	int rc, have, summary = 0;

	d->table = table;
	d->cols = cols;
	if ((st = has_table(d->db, d->path, table, &have, d->err)))
		return st;
	if (found)
		*found = have;
	/* a result with the run account (OpmfuRun) that lacks a per-op table was written by
	 * analyze --summary-only (SPEC 22), whose tables a diff cannot compare */
	if (!have && !optional && (st = has_table(d->db, d->path, "OpmfuRun", &summary, d->err)))
		return st;
	if (!have && !optional && summary)
		return opmfu_err_set(d->err, OPMFU_ERR_SCHEMA,
				     "%s: an opmfu result of analyze --summary-only: it has no %s, which opmfu diff "
				     "compares; analyze its input without --summary-only, or give diff the input",
				     d->path, table);
	if (!have)
		return optional ? OPMFU_OK
				: opmfu_err_set(d->err, OPMFU_ERR_SCHEMA,
						"%s: an opmfu result without the table %s (written by an older opmfu? run "
						"opmfu analyze on its input again)",
						d->path, table);
	if ((st = need_columns(d)))
		return st;
	sbuf_init(&sb);
	sbuf_adds(&sb, "SELECT ");
	for (i = 0; cols[i]; i++)
		sbuf_addf(&sb, "%s\"%s\"", i ? ", " : "", cols[i]);
	sbuf_addf(&sb, " FROM \"%s\"%s%s", table, where ? " WHERE " : "", where ? where : "");
	if (sb.oom) {
		sbuf_release(&sb);
		return nomem(d);
	}
	rc = sqlite3_prepare_v2(d->db, sb.buf, -1, &d->s, NULL);
	sbuf_release(&sb);
	if (rc != SQLITE_OK)
		return sql_fail(d->db, d->path, table, d->err);
	for (d->row = 1; (rc = sqlite3_step(d->s)) == SQLITE_ROW && st == OPMFU_OK; d->row++)
		st = row(d);
	if (st == OPMFU_OK && rc != SQLITE_DONE)
		st = sql_fail(d->db, d->path, table, d->err);
	sqlite3_finalize(d->s);
	d->s = NULL;
	return st;
}

enum opmfu_status opmfu_results_read(const char *path, struct opmfu_intern *names, struct opmfu_results *r,
				     struct opmfu_err *err)
{
	struct opmfu_sqlite_in in;
	struct rd d;
	enum opmfu_status st;

	memset(r, 0, sizeof(*r));
	memset(&d, 0, sizeof(d));
	sbuf_init(&d.key);
	d.path = path;
	d.names = names;
	d.r = r;
	d.err = err;
	if ((st = opmfu_sqlite_in_open(path, &d.db, &in, err)))
		return st;
	st = scan(&d, "OpmfuRankSummary", rank_cols, NULL, rank_row, 0, NULL);
	d.list = OPMFU_RES_MODULES;
	if (st == OPMFU_OK)
		st = scan(&d, "OpmfuModules", module_cols, NULL, list_row, 0, NULL);
	d.list = OPMFU_RES_OP_TYPES;
	if (st == OPMFU_OK)
		st = scan(&d, "OpmfuOpTypes", op_cols, NULL, list_row, 0, NULL);
	if (st == OPMFU_OK) {
		const char *cols[sizeof(step_cols) / sizeof(step_cols[0])];
		int parts = steps_layout(d.db, cols);
		/* from SPEC 17 on the backlog is a row of its own, in no step */
		st = scan(&d, "OpmfuSteps", cols, parts ? "\"kind\" IS NOT 'backlog'" : NULL, step_row, 0, NULL);
	}
	/* a result older than SPEC 19 has none: no collective rows, not an error */
	if (st == OPMFU_OK)
		st = scan(&d, "OpmfuCollectives", coll_cols, NULL, coll_row, 1, &r->has_colls);
	if (st == OPMFU_OK)
		st = scan(&d, "OpmfuModel", model_cols, "\"rank_id\" IS NULL AND \"step\" IS NULL", model_row, 1,
			  &r->has_model);
	sbuf_release(&d.key);
	sqlite3_close(d.db);
	if (st == OPMFU_OK)
		st = opmfu_sqlite_in_check(path, &in, err);
	return st;
}

void opmfu_results_release(struct opmfu_results *r)
{
	int k;
	opmfu_free(r->ranks);
	for (k = 0; k < OPMFU_RES_NLIST; k++)
		opmfu_free(r->rows[k]);
	opmfu_free(r->steps);
	opmfu_free(r->model);
	memset(r, 0, sizeof(*r));
}

/* ---- any table, as a def says ---- */

/* Which of def's columns the table has: at[c] 1 or 0. */
static enum opmfu_status present_columns(sqlite3 *db, const char *path, const struct opmfu_table_def *def, int *at,
					 struct opmfu_err *err)
{
	char sql[160];
	sqlite3_stmt *s = NULL;
	size_t c;
	int rc;

	memset(at, 0, def->n_cols * sizeof(*at));
	snprintf(sql, sizeof(sql), "PRAGMA table_info(\"%s\")", def->name);
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return sql_fail(db, path, "reading the schema", err);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 1);
		for (c = 0; name && c < def->n_cols; c++)
			at[c] |= !strcmp(name, def->cols[c].name);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? OPMFU_OK : sql_fail(db, path, "reading the schema", err);
}

/* SELECT of the columns at[] says the table has, in def's order; with
 * ranks, of the rows whose rank_id is one of them. */
static void select_sql(struct sbuf *sb, const struct opmfu_table_def *def, const int *at, const int *ranks,
		       size_t n_ranks)
{
	size_t c, k, n = 0;
	int rank_col = 0;

	sbuf_adds(sb, "SELECT ");
	for (c = 0; c < def->n_cols; c++) {
		if (!at[c])
			continue;
		sbuf_addf(sb, "%s\"%s\"", n++ ? ", " : "", def->cols[c].name);
		rank_col |= !strcmp(def->cols[c].name, "rank_id");
	}
	if (!n)
		sbuf_adds(sb, "NULL");
	sbuf_addf(sb, " FROM \"%s\"", def->name);
	if (!ranks || !n_ranks || !rank_col)
		return;
	sbuf_adds(sb, " WHERE \"rank_id\" IN (");
	for (k = 0; k < n_ranks; k++)
		sbuf_addf(sb, "%s%d", k ? "," : "", ranks[k]);
	sbuf_adds(sb, ")");
}

/* The current row of s as def's cells (columns at[] does not have are
 * NULL); texts point into s until its next step. */
static enum opmfu_status typed_row(sqlite3_stmt *s, const char *path, const struct opmfu_table_def *def,
				   const int *at, size_t row, struct opmfu_cell *cells, struct opmfu_err *err)
{
	static const char *const want[] = { "an integer", "a number", "a text", "a blob" };
	size_t c;
	int k = 0;

	for (c = 0; c < def->n_cols; c++) {
		sqlite3_value *val;
		int t;
		if (!at[c]) {
			cells[c] = opmfu_cell_null();
			continue;
		}
		/* one lookup of the column, then its value read as is: a merge reads every
		 * cell of a shard this way (the connection has no mutex, so the value
		 * sqlite3_column_value gives may be read directly) */
		val = sqlite3_column_value(s, k);
		t = sqlite3_value_type(val);
		if (t == SQLITE_NULL)
			cells[c] = opmfu_cell_null();
		else if (def->cols[c].type == OPMFU_COL_INT && t == SQLITE_INTEGER)
			cells[c] = opmfu_cell_int(sqlite3_value_int64(val));
		else if (def->cols[c].type == OPMFU_COL_REAL && (t == SQLITE_INTEGER || t == SQLITE_FLOAT))
			cells[c] = opmfu_cell_real(sqlite3_value_double(val));
		else if (def->cols[c].type == OPMFU_COL_TEXT && t == SQLITE_TEXT) {
			const char *v = (const char *)sqlite3_value_text(val);
			if (!v)
				return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory reading %s", path,
						     def->name);
			cells[c] = opmfu_cell_text(v, (size_t)sqlite3_value_bytes(val));
		} else if (def->cols[c].type == OPMFU_COL_BLOB && t == SQLITE_BLOB) {
			/* an empty blob is no pointer: "" then, not NULL */
			const char *v = (const char *)sqlite3_value_blob(val);
			size_t n = (size_t)sqlite3_value_bytes(val);
			cells[c] = opmfu_cell_text(v ? v : "", v ? n : 0);
		} else
			return opmfu_err_set(err, OPMFU_ERR_FORMAT, "%s: %s row %zu: %s is not %s", path, def->name,
					     row, def->cols[c].name, want[def->cols[c].type]);
		k++;
	}
	return OPMFU_OK;
}

/* The pieces of table k so far, given away and forgotten. */
static enum opmfu_status flush_rows(struct opmfu_cell_store *cs, size_t k, opmfu_results_rows_fn on_rows, void *ctx,
				    struct opmfu_err *err)
{
	struct opmfu_table t = opmfu_cell_store_table(cs);
	enum opmfu_status st = cs->n_rows ? on_rows(ctx, k, &t, err) : OPMFU_OK;
	const struct opmfu_table_def *def = cs->def;

	opmfu_cell_store_release(cs);
	opmfu_cell_store_init(cs, def);
	return st;
}

/* Table k of opmfu_results_tables, in pieces. */
static enum opmfu_status scan_table(sqlite3 *db, const char *path, size_t k, const struct opmfu_table_def *def,
				    const int *ranks, size_t n_ranks, size_t chunk, opmfu_results_rows_fn on_rows,
				    void *ctx, struct opmfu_err *err)
{
	int *at = opmfu_calloc(def->n_cols + 1, sizeof(*at));
	struct opmfu_cell *cells = opmfu_calloc(def->n_cols + 1, sizeof(*cells));
	struct opmfu_cell_store cs;
	sqlite3_stmt *s = NULL;
	enum opmfu_status st;
	struct sbuf sb;
	size_t row = 0;
	int rc = SQLITE_DONE, have;

	opmfu_cell_store_init(&cs, def);
	sbuf_init(&sb);
	if (!at || !cells) {
		st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory reading %s", path, def->name);
		goto out;
	}
	if ((st = has_table(db, path, def->name, &have, err)) || !have ||
	    (st = present_columns(db, path, def, at, err)))
		goto out;
	select_sql(&sb, def, at, ranks, n_ranks);
	if (sb.oom) {
		st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory reading %s", path, def->name);
		goto out;
	}
	if (sqlite3_prepare_v2(db, sb.buf, -1, &s, NULL) != SQLITE_OK) {
		st = sql_fail(db, path, def->name, err);
		goto out;
	}
	while (st == OPMFU_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		if ((st = typed_row(s, path, def, at, ++row, cells, err)) ||
		    (st = opmfu_cell_store_add(&cs, cells, err)))
			break;
		if (cs.n_rows >= chunk)
			st = flush_rows(&cs, k, on_rows, ctx, err);
	}
	if (st == OPMFU_OK && rc != SQLITE_DONE)
		st = sql_fail(db, path, def->name, err);
	if (st == OPMFU_OK)
		st = flush_rows(&cs, k, on_rows, ctx, err);
out:
	sqlite3_finalize(s);
	sbuf_release(&sb);
	opmfu_cell_store_release(&cs);
	opmfu_free(at);
	opmfu_free(cells);
	return st;
}

enum opmfu_status opmfu_results_tables(const char *path, const struct opmfu_table_def *const *defs, size_t n,
				       const int *ranks, size_t n_ranks, size_t chunk, opmfu_results_rows_fn on_rows,
				       void *ctx, struct opmfu_err *err)
{
	struct opmfu_sqlite_in in;
	sqlite3 *db = NULL;
	enum opmfu_status st;
	size_t k;

	if ((st = opmfu_sqlite_in_open(path, &db, &in, err)))
		return st;
	for (k = 0; k < n && st == OPMFU_OK; k++)
		st = scan_table(db, path, k, defs[k], ranks, n_ranks, chunk ? chunk : 1, on_rows, ctx, err);
	sqlite3_close(db);
	if (st == OPMFU_OK)
		st = opmfu_sqlite_in_check(path, &in, err);
	return st;
}

/* ---- a shard result, rank by rank ---- */

struct cursor_tab {
	const struct opmfu_table_def *def;
	sqlite3_stmt *s;
	int *at;      /* the def's columns selected (the others are NULL cells) */
	int rank_col; /* rank_id's column in s */
	int state; /* 0: step for the next row; 1: a row is there, not taken; 2: no more rows */
	size_t row;
};

struct opmfu_results_cursor {
	const char *path;
	sqlite3 *db;
	struct opmfu_sqlite_in in;
	struct cursor_tab *t;
	size_t n;
	struct opmfu_cell *cells;
	int *at;
};

/* Leaves in at[] the columns want(ctx, k, name) keeps, and rank_id; its place in the SELECT into *rank_col. */
static void keep_columns(const struct opmfu_table_def *def, size_t k, opmfu_results_want_fn want, void *ctx, int *at,
			 int *rank_col)
{
	size_t col;
	int n = 0;
	*rank_col = -1;
	for (col = 0; col < def->n_cols; col++) {
		int rank = !strcmp(def->cols[col].name, "rank_id");
		at[col] = rank || !want || want(ctx, k, def->cols[col].name);
		if (rank)
			*rank_col = n;
		n += at[col];
	}
}

enum opmfu_status opmfu_results_cursor_open(const char *path, const struct opmfu_table_def *const *defs, size_t n,
					    opmfu_results_want_fn want, void *want_ctx, struct opmfu_results_cursor **out,
					    struct opmfu_err *err)
{
	struct opmfu_results_cursor *c = opmfu_calloc(1, sizeof(*c));
	enum opmfu_status st = OPMFU_OK;
	size_t k, wide = 1, col;
	struct sbuf sb;

	*out = c;
	if (!c)
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory", path);
	c->path = path;
	for (k = 0; k < n; k++)
		wide = defs[k]->n_cols > wide ? defs[k]->n_cols : wide;
	if (!(c->t = opmfu_calloc(n + 1, sizeof(*c->t))) || !(c->cells = opmfu_calloc(wide, sizeof(*c->cells))) ||
	    !(c->at = opmfu_calloc(wide, sizeof(*c->at))))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory", path);
	if ((st = opmfu_sqlite_in_open(path, &c->db, &c->in, err)))
		return st;
	sbuf_init(&sb);
	for (k = 0; k < n && st == OPMFU_OK; k++) {
		const struct opmfu_table_def *def = defs[k];
		int have;
		c->t[k].def = def;
		c->n = k + 1;
		if (!(c->t[k].at = opmfu_calloc(def->n_cols + 1, sizeof(*c->t[k].at)))) {
			st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory", path);
			break;
		}
		if ((st = has_table(c->db, path, def->name, &have, err)))
			break;
		if (!have) {
			st = opmfu_err_set(err, OPMFU_ERR_SCHEMA, "%s: no table %s: not a complete shard result", path,
					   def->name);
			break;
		}
		if ((st = present_columns(c->db, path, def, c->at, err)))
			break;
		for (col = 0; col < def->n_cols && c->at[col]; col++)
			;
		if (col < def->n_cols) {
			st = opmfu_err_set(err, OPMFU_ERR_SCHEMA, "%s: table %s has no column %s: not a complete shard result",
					   path, def->name, def->cols[col].name);
			break;
		}
		keep_columns(def, k, want, want_ctx, c->t[k].at, &c->t[k].rank_col);
		sbuf_reset(&sb);
		select_sql(&sb, def, c->t[k].at, NULL, 0);
		/* a view has no rowid: it gives its rows in its row table's order */
		if (have == HAS_TABLE)
			sbuf_adds(&sb, " ORDER BY rowid");
		if (sb.oom)
			st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory reading %s", path, def->name);
		else if (sqlite3_prepare_v2(c->db, sb.buf, -1, &c->t[k].s, NULL) != SQLITE_OK)
			st = sql_fail(c->db, path, def->name, err);
	}
	sbuf_release(&sb);
	return st;
}

/* Steps table k when its row was taken; *rank: the row's rank_id. */
static enum opmfu_status cursor_peek(struct opmfu_results_cursor *c, struct cursor_tab *t, int64_t *rank,
				     struct opmfu_err *err)
{
	int rc;
	if (t->state == 0) {
		rc = sqlite3_step(t->s);
		if (rc == SQLITE_ROW) {
			t->state = 1;
			t->row++;
		} else if (rc == SQLITE_DONE) {
			t->state = 2;
		} else {
			return sql_fail(c->db, c->path, t->def->name, err);
		}
	}
	if (t->state == 1) {
		if (t->rank_col < 0 || sqlite3_column_type(t->s, t->rank_col) != SQLITE_INTEGER)
			return opmfu_err_set(err, OPMFU_ERR_FORMAT, "%s: %s row %zu: rank_id is not an integer", c->path,
					     t->def->name, t->row);
		*rank = sqlite3_column_int64(t->s, t->rank_col);
	}
	return OPMFU_OK;
}

enum opmfu_status opmfu_results_cursor_rank(struct opmfu_results_cursor *c, size_t k, int rank,
					    struct opmfu_cell_store *cs, struct opmfu_err *err)
{
	struct cursor_tab *t = &c->t[k];
	enum opmfu_status st = OPMFU_OK;
	int64_t r = 0;

	while ((st = cursor_peek(c, t, &r, err)) == OPMFU_OK && t->state == 1 && r == rank) {
		if ((st = typed_row(t->s, c->path, t->def, t->at, t->row, c->cells, err)) ||
		    (st = opmfu_cell_store_add(cs, c->cells, err)))
			break;
		t->state = 0;
	}
	return st;
}

enum opmfu_status opmfu_results_cursor_close(struct opmfu_results_cursor *c, struct opmfu_err *err)
{
	enum opmfu_status st = OPMFU_OK;
	size_t k;
	if (!c)
		return OPMFU_OK;
	for (k = 0; k < c->n && err && st == OPMFU_OK; k++) {
		int64_t r = 0;
		if (!c->t[k].s)
			continue;
		if ((st = cursor_peek(c, &c->t[k], &r, err)) == OPMFU_OK && c->t[k].state == 1)
			st = opmfu_err_set(err, OPMFU_ERR_FORMAT,
					   "%s: %s row %zu: rank %lld is not one of the shard's ranks (OpmfuShard), "
					   "or out of rank order", c->path, c->t[k].def->name, c->t[k].row, (long long)r);
	}
	for (k = 0; k < c->n; k++) {
		sqlite3_finalize(c->t[k].s);
		opmfu_free(c->t[k].at);
	}
	if (c->db) {
		sqlite3_close(c->db);
		if (st == OPMFU_OK && err)
			st = opmfu_sqlite_in_check(c->path, &c->in, err);
	}
	opmfu_free(c->t);
	opmfu_free(c->cells);
	opmfu_free(c->at);
	opmfu_free(c);
	return st;
}
