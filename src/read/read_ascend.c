/*
 * read_ascend.c - Ascend profiler database reader.
 * Each table is scanned once, in table order, by a plain SELECT
 * (schema/in/ascend/); the kernel <-> op join is done in memory by
 * ascend_join.c. With two threads, a second connection scans PYTORCH_API and
 * MSTX_EVENTS (the largest tables) while the first scans the rest.
 * Strings are read once from STRING_IDS and referenced by sid.
 */
#include "read_ascend.h"

#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/mem.h"
#include "../model/parse.h"
#include "ascend_join.h"
#include "sql_embed.h"

struct reader {
	sqlite3 *db;
	const char *path;
	struct opmfu_trace *t;
	struct opmfu_err *err;
};

static enum opmfu_status sql_fail(struct reader *r, const char *what)
{
	int code = sqlite3_extended_errcode(r->db);
	const char *hint = "";
	if ((code & 0xff) == SQLITE_CORRUPT)
		hint = " (the database is corrupt or truncated)";
	else if ((code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED)
		hint = " (the database is locked by another process)";
	return opmfu_err_set(r->err, OPMFU_ERR_SQLITE, "%s: %s: %s%s", r->path, what,
			     sqlite3_errmsg(r->db), hint);
}

static int table_exists(struct reader *r, const char *table, enum opmfu_status *st)
{
	sqlite3_stmt *s = NULL;
	int found = 0, rc;
	*st = OPMFU_OK;
	if (sqlite3_prepare_v2(r->db, "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?",
			       -1, &s, NULL) != SQLITE_OK) {
		*st = sql_fail(r, "reading the schema");
		return 0;
	}
	sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		found = 1;
	else if (rc != SQLITE_DONE)
		*st = sql_fail(r, "reading the schema");
	sqlite3_finalize(s);
	return found;
}

/* Checks that table has every column in cols (NULL-terminated). */
static enum opmfu_status need_columns(struct reader *r, const char *table, const char *const *cols)
{
	char sql[128];
	sqlite3_stmt *s = NULL;
	const char *const *c;
	unsigned have = 0, i;

	snprintf(sql, sizeof(sql), "PRAGMA table_info(\"%s\")", table);
	if (sqlite3_prepare_v2(r->db, sql, -1, &s, NULL) != SQLITE_OK)
		return sql_fail(r, "reading the schema");
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 1);
		for (c = cols, i = 0; *c; c++, i++)
			if (name && strcmp(name, *c) == 0)
				have |= 1u << i;
	}
	sqlite3_finalize(s);
	for (c = cols, i = 0; *c; c++, i++)
		if (!(have & (1u << i)))
			return opmfu_err_set(r->err, OPMFU_ERR_SCHEMA,
					     "%s: table %s has no column %s", r->path, table, *c);
	return OPMFU_OK;
}

static enum opmfu_status need_table(struct reader *r, const char *table, const char *const *cols)
{
	enum opmfu_status st;
	if (!table_exists(r, table, &st))
		return st != OPMFU_OK ? st
				      : opmfu_err_set(r->err, OPMFU_ERR_SCHEMA,
						      "%s: required table %s is missing", r->path, table);
	return need_columns(r, table, cols);
}

/*
 * Reads a nanosecond timestamp, or a join key. Real files declare some
 * timestamps TEXT, so text is parsed strictly; NULL, junk or non-integral
 * values fail (-1). Keys are read the same way: integral text in a key
 * column compares equal to the integer, as SQLite's numeric affinity would.
 */
static int column_ns(sqlite3_stmt *s, int col, int64_t *out)
{
	switch (sqlite3_column_type(s, col)) {
	case SQLITE_INTEGER:
		*out = sqlite3_column_int64(s, col);
		return 0;
	case SQLITE_FLOAT: {
		double d = sqlite3_column_double(s, col);
		if (!(d >= -9.2e18 && d <= 9.2e18) || d != (double)(int64_t)d)
			return -1;
		*out = (int64_t)d;
		return 0;
	}
	case SQLITE_TEXT: {
		const char *txt = (const char *)sqlite3_column_text(s, col);
		int n = sqlite3_column_bytes(s, col), i;
		uint64_t u = 0;
		char *end;
		long long v;
		if (!txt || !*txt)
			return -1;
		/* fast path, every PYTORCH_API row: up to 19 plain digits */
		for (i = 0; i < n && i < 19 && txt[i] >= '0' && txt[i] <= '9'; i++)
			u = u * 10 + (uint64_t)(txt[i] - '0');
		if (i == n && u <= (uint64_t)INT64_MAX) {
			*out = (int64_t)u;
			return 0;
		}
		errno = 0;
		v = strtoll(txt, &end, 10);
		while (*end == ' ')
			end++;
		if (errno || *end || end == txt || txt[0] == ' ')
			return -1;
		*out = v;
		return 0;
	}
	default:
		return -1;
	}
}

/* Integer id column (STRING_IDS reference) -> sid; NULL or unknown -> 0. */
static uint32_t column_sid(struct reader *r, sqlite3_stmt *s, int col)
{
	if (sqlite3_column_type(s, col) != SQLITE_INTEGER)
		return 0;
	return opmfu_strtab_lookup(&r->t->strs, sqlite3_column_int64(s, col));
}

static enum opmfu_status read_strings(struct reader *r, uint32_t *sid_flops, uint32_t *sid_module)
{
	static const char *const cols[] = { "id", "value", NULL };
	sqlite3_stmt *s = NULL;
	enum opmfu_status st = need_table(r, "STRING_IDS", cols);
	int rc;

	if (st)
		return st;
	if (sqlite3_prepare_v2(r->db, opmfu_sql_ascend_strings, -1, &s, NULL) != SQLITE_OK)
		return sql_fail(r, "reading STRING_IDS");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *v;
		int n;
		uint32_t sid;
		if (sqlite3_column_type(s, 0) != SQLITE_INTEGER || sqlite3_column_type(s, 1) == SQLITE_NULL)
			continue;
		v = (const char *)sqlite3_column_text(s, 1);
		n = sqlite3_column_bytes(s, 1);
		sid = opmfu_strtab_intern(&r->t->strs, v ? v : "", v ? (size_t)n : 0);
		if (!sid || opmfu_strtab_map_id(&r->t->strs, sqlite3_column_int64(s, 0), sid)) {
			sqlite3_finalize(s);
			return opmfu_err_set(r->err, OPMFU_ERR_NOMEM, "%s: out of memory reading STRING_IDS",
					     r->path);
		}
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return sql_fail(r, "reading STRING_IDS");
	*sid_flops = opmfu_strtab_intern(&r->t->strs, "mfu_flops", 9);
	*sid_module = opmfu_strtab_intern(&r->t->strs, "Module", 6);
	if (!*sid_flops || !*sid_module || opmfu_strtab_finish(&r->t->strs))
		return opmfu_err_set(r->err, OPMFU_ERR_NOMEM, "%s: out of memory reading STRING_IDS", r->path);
	return OPMFU_OK;
}

/*
 * The table scans. Each runs one statement from schema/in/ascend/ and hands
 * the rows to the join (j); a row whose key is NULL can never link and is
 * dropped, as the SQL join would.
 */

static sqlite3_stmt *prepare(struct reader *r, const char *sql)
{
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(r->db, sql, -1, &s, NULL) != SQLITE_OK) {
		sqlite3_finalize(s);
		return NULL;
	}
	return s;
}

/* Finishes a scan: a failed step is reported, a failed join is out of memory. */
static enum opmfu_status scan_end(struct reader *r, sqlite3_stmt *s, int rc, int nomem, const char *what)
{
	sqlite3_finalize(s);
	if (nomem)
		return opmfu_err_set(r->err, OPMFU_ERR_NOMEM, "%s: out of memory %s", r->path, what);
	if (rc != SQLITE_DONE)
		return sql_fail(r, what);
	return OPMFU_OK;
}

static enum opmfu_status scan_info(struct reader *r, struct opmfu_ajoin *j)
{
	static const char what[] = "reading COMPUTE_TASK_INFO";
	sqlite3_stmt *s = prepare(r, opmfu_sql_ascend_compute_info);
	int rc, nomem = 0;

	if (!s)
		return sql_fail(r, what);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct opmfu_aj_info in;
		int64_t gid;
		if (column_ns(s, 0, &gid))
			continue;
		in.name = column_sid(r, s, 1);
		in.in_shapes = column_sid(r, s, 2);
		in.in_dtypes = column_sid(r, s, 3);
		in.out_shapes = column_sid(r, s, 4);
		if ((nomem = opmfu_ajoin_add_info(j, gid, &in)))
			break;
	}
	return scan_end(r, s, rc, nomem, what);
}

static enum opmfu_status scan_sched(struct reader *r, struct opmfu_ajoin *j)
{
	static const char what[] = "reading COMMUNICATION_SCHEDULE_TASK_INFO";
	sqlite3_stmt *s = prepare(r, opmfu_sql_ascend_comm_sched);
	int rc, nomem = 0;

	if (!s)
		return sql_fail(r, what);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t gid;
		if (column_ns(s, 0, &gid))
			continue;
		if ((nomem = opmfu_ajoin_add_sched(j, gid, column_sid(r, s, 1))))
			break;
	}
	return scan_end(r, s, rc, nomem, what);
}

static enum opmfu_status scan_tasks(struct reader *r, struct opmfu_ajoin *j)
{
	static const char what[] = "reading TASK";
	sqlite3_stmt *s = prepare(r, opmfu_sql_ascend_tasks);
	int rc, nomem = 0;

	if (!s)
		return sql_fail(r, what);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t gid, start = 0, end = 0, conn = 0;
		int bad, conn_ok;
		if (column_ns(s, 0, &gid))
			continue;
		bad = column_ns(s, 1, &start) | column_ns(s, 2, &end);
		conn_ok = !column_ns(s, 3, &conn);
		if ((nomem = opmfu_ajoin_add_task(j, gid, start, end, bad, conn_ok, conn)))
			break;
	}
	return scan_end(r, s, rc, nomem, what);
}

static enum opmfu_status scan_comm(struct reader *r, struct opmfu_ajoin *j)
{
	static const char what[] = "reading COMMUNICATION_OP";
	sqlite3_stmt *s = prepare(r, opmfu_sql_ascend_comm_op);
	int rc, nomem = 0;

	if (!s)
		return sql_fail(r, what);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t start = 0, end = 0, conn = 0;
		int bad = column_ns(s, 1, &start) | column_ns(s, 2, &end);
		int conn_ok = !column_ns(s, 3, &conn);
		if ((nomem = opmfu_ajoin_add_comm(j, column_sid(r, s, 0), start, end, bad, conn_ok, conn)))
			break;
	}
	return scan_end(r, s, rc, nomem, what);
}

static enum opmfu_status scan_connections(struct reader *r, struct opmfu_ajoin *j)
{
	static const char what[] = "reading CONNECTION_IDS";
	sqlite3_stmt *s = prepare(r, opmfu_sql_ascend_connections);
	int rc, nomem = 0;

	if (!s)
		return sql_fail(r, what);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t id, conn;
		if (column_ns(s, 0, &id) || column_ns(s, 1, &conn))
			continue;
		if ((nomem = opmfu_ajoin_add_connection(j, id, conn)))
			break;
	}
	return scan_end(r, s, rc, nomem, what);
}

/*
 * PYTORCH_API rows with a connection. With filter set (the connections are
 * already known) only rows that can link are kept; the helper thread scans
 * before they are known and keeps them all.
 */
static enum opmfu_status scan_api(struct reader *r, const struct opmfu_ajoin *filter, struct opmfu_aj_api **rows,
				  size_t *n_rows)
{
	static const char what[] = "reading PYTORCH_API";
	struct opmfu_aj_api *v = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *s = prepare(r, opmfu_sql_ascend_pytorch_api);
	int rc, nomem = 0;
	enum opmfu_status st;

	*rows = NULL;
	*n_rows = 0;
	if (!s)
		return sql_fail(r, what);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct opmfu_aj_api a;
		if (column_ns(s, 0, &a.id) || (filter && !opmfu_ajoin_want_api(filter, a.id)))
			continue;
		a.name = column_sid(r, s, 1);
		a.start = a.end = 0;
		a.bad = (uint8_t)(column_ns(s, 2, &a.start) | column_ns(s, 3, &a.end));
		if ((nomem = OPMFU_GROW(v, cap, n + 1)))
			break;
		v[n++] = a;
	}
	st = scan_end(r, s, rc, nomem, what);
	if (st) {
		opmfu_free(v);
		return st;
	}
	*rows = v;
	*n_rows = n;
	return OPMFU_OK;
}

static enum opmfu_status read_mstx(struct reader *r, uint32_t sid_flops, uint32_t sid_module)
{
	static const char *const cols[] = { "startNs", "endNs", "eventType", "message", "domainId", NULL };
	struct opmfu_trace *t = r->t;
	sqlite3_stmt *s = NULL;
	enum opmfu_status st;
	int rc;

	if (!table_exists(r, "MSTX_EVENTS", &st))
		return st;
	t->has_mstx = 1;
	if ((st = need_columns(r, "MSTX_EVENTS", cols)))
		return st;
	if (sqlite3_prepare_v2(r->db, opmfu_sql_ascend_mstx, -1, &s, NULL) != SQLITE_OK)
		return sql_fail(r, "reading MSTX_EVENTS");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		uint32_t dom = column_sid(r, s, 4), msg = column_sid(r, s, 3);
		int64_t start = 0, end = 0;
		int bad_time;
		if (dom != sid_flops && dom != sid_module)
			continue;
		bad_time = column_ns(s, 0, &start);
		/* a NULL end counts as 0 (SPEC 1.3), so the range is empty */
		if (sqlite3_column_type(s, 1) == SQLITE_NULL)
			end = 0;
		else if (column_ns(s, 1, &end))
			bad_time = 1;
		if (dom == sid_flops) {
			struct opmfu_flops_rec rec;
			enum opmfu_drop why;
			size_t off = 0;
			t->n_recs_read++;
			if (!msg || opmfu_parse_flops_msg(opmfu_strtab_str(&t->strs, msg),
							  opmfu_strtab_len(&t->strs, msg), &rec.flops,
							  &off, &why)) {
				t->drops[msg ? why : OPMFU_DROP_FORMAT]++;
				continue;
			}
			if (bad_time || end <= start) {
				t->drops[OPMFU_DROP_RANGE]++;
				continue;
			}
			rec.start = start;
			rec.end = end;
			rec.msg = msg;
			rec.name_off = (uint32_t)off;
			if (OPMFU_GROW(t->recs, t->cap_recs, t->n_recs + 1))
				goto nomem;
			t->recs[t->n_recs++] = rec;
		} else if (sqlite3_column_type(s, 2) == SQLITE_INTEGER && sqlite3_column_int64(s, 2) == 2) {
			if (bad_time) {
				t->n_bad_rows++;
				continue;
			}
			if (OPMFU_GROW(t->mods, t->cap_mods, t->n_mods + 1))
				goto nomem;
			t->mods[t->n_mods++] = (struct opmfu_module_range){ start, end, msg };
		}
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return sql_fail(r, "reading MSTX_EVENTS");
	return OPMFU_OK;
nomem:
	sqlite3_finalize(s);
	return opmfu_err_set(r->err, OPMFU_ERR_NOMEM, "%s: out of memory reading MSTX_EVENTS", r->path);
}

/* ---- the helper thread: PYTORCH_API and MSTX_EVENTS over its own connection ---- */

struct helper {
	const char *path;
	struct opmfu_trace t;  /* strs: a borrowed copy of the rank's (read-only); recs, mods, counts: its own */
	uint32_t sid_flops, sid_module;
	struct opmfu_aj_api *api;
	size_t n_api;
	struct opmfu_err err;
	enum opmfu_status st;
};

static enum opmfu_status open_db(const char *path, sqlite3 **db, struct opmfu_err *err)
{
	/* NOMUTEX: each connection is used by one thread; the per-call
	 * mutex of serialized mode cost a quarter of the scan time */
	int rc = sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		enum opmfu_status st = opmfu_err_set(err, OPMFU_ERR_SQLITE, "%s: cannot open: %s", path,
						     *db ? sqlite3_errmsg(*db) : sqlite3_errstr(rc));
		sqlite3_close(*db);
		*db = NULL;
		return st;
	}
	/* another process may still hold a write lock for a moment */
	sqlite3_busy_timeout(*db, 2000);
	return OPMFU_OK;
}

static void *helper_run(void *arg)
{
	struct helper *h = arg;
	struct reader r = { NULL, h->path, &h->t, &h->err };

	h->st = open_db(h->path, &r.db, &h->err);
	if (!h->st)
		h->st = scan_api(&r, NULL, &h->api, &h->n_api);
	if (!h->st)
		h->st = read_mstx(&r, h->sid_flops, h->sid_module);
	sqlite3_close(r.db);
	return NULL;
}

/* Moves what the helper read from MSTX_EVENTS into t. */
static void take_mstx(struct opmfu_trace *t, struct helper *h)
{
	int i;
	t->recs = h->t.recs;
	t->n_recs = h->t.n_recs;
	t->cap_recs = h->t.cap_recs;
	t->mods = h->t.mods;
	t->n_mods = h->t.n_mods;
	t->cap_mods = h->t.cap_mods;
	t->n_recs_read += h->t.n_recs_read;
	t->n_bad_rows += h->t.n_bad_rows;
	t->has_mstx = h->t.has_mstx;
	for (i = 0; i < OPMFU_DROP__COUNT; i++)
		t->drops[i] += h->t.drops[i];
	h->t.recs = NULL;
	h->t.mods = NULL;
}

/* The scans of the first connection, in dependency order (see ascend_join.h). */
static enum opmfu_status read_tasks(struct reader *r, struct opmfu_ajoin *j, int has_comm, int has_sched)
{
	enum opmfu_status st;
	if ((st = scan_info(r, j)) || (has_sched && (st = scan_sched(r, j))))
		return st;
	if (opmfu_ajoin_index_info(j))
		return opmfu_err_set(r->err, OPMFU_ERR_NOMEM, "%s: out of memory reading COMPUTE_TASK_INFO", r->path);
	if ((st = scan_tasks(r, j)) || (has_comm && (st = scan_comm(r, j))))
		return st;
	if (opmfu_ajoin_index_conns(j))
		return opmfu_err_set(r->err, OPMFU_ERR_NOMEM, "%s: out of memory reading TASK", r->path);
	if ((st = scan_connections(r, j)))
		return st;
	if (opmfu_ajoin_index_connections(j))
		return opmfu_err_set(r->err, OPMFU_ERR_NOMEM, "%s: out of memory reading CONNECTION_IDS", r->path);
	return OPMFU_OK;
}

static enum opmfu_status read_all(struct reader *r, int threads)
{
	static const char *const task_cols[] = { "startNs", "endNs", "connectionId", "globalTaskId", NULL };
	static const char *const cti_cols[] = { "globalTaskId", "name", "opType", "inputShapes",
						"inputDataTypes", "outputShapes", NULL };
	static const char *const conn_cols[] = { "id", "connectionId", NULL };
	static const char *const api_cols[] = { "startNs", "endNs", "connectionId", "name", NULL };
	static const char *const comm_cols[] = { "opType", "startNs", "endNs", "connectionId", NULL };
	static const char *const sched_cols[] = { "globalTaskId", "name", NULL };
	struct opmfu_trace *t = r->t;
	struct opmfu_ajoin j;
	struct helper h;
	pthread_t th;
	int has_comm, has_sched, started = 0;
	uint32_t sid_flops = 0, sid_module = 0;
	struct opmfu_aj_api *api = NULL;
	size_t n_api = 0;
	enum opmfu_status st;

	if ((st = read_strings(r, &sid_flops, &sid_module)))
		return st;
	if ((st = need_table(r, "TASK", task_cols)) || (st = need_table(r, "COMPUTE_TASK_INFO", cti_cols)) ||
	    (st = need_table(r, "CONNECTION_IDS", conn_cols)) || (st = need_table(r, "PYTORCH_API", api_cols)))
		return st;
	has_comm = table_exists(r, "COMMUNICATION_OP", &st);
	if (st || (has_comm && (st = need_columns(r, "COMMUNICATION_OP", comm_cols))))
		return st;
	has_sched = table_exists(r, "COMMUNICATION_SCHEDULE_TASK_INFO", &st);
	if (st || (has_sched && (st = need_columns(r, "COMMUNICATION_SCHEDULE_TASK_INFO", sched_cols))))
		return st;

	memset(&h, 0, sizeof(h));
	h.path = r->path;
	h.t.strs = t->strs;
	h.sid_flops = sid_flops;
	h.sid_module = sid_module;
	if (threads > 1 && pthread_create(&th, NULL, helper_run, &h) == 0)
		started = 1;

	opmfu_ajoin_init(&j);
	st = read_tasks(r, &j, has_comm, has_sched);
	if (started) {
		pthread_join(th, NULL);
		api = h.api;
		n_api = h.n_api;
		h.api = NULL;
		if (!st && h.st) {
			*r->err = h.err;
			st = h.st;
		}
	} else if (!st) {
		st = scan_api(r, &j, &api, &n_api);
	}
	if (st)
		opmfu_free(api);
	else if (opmfu_ajoin_set_api(&j, api, n_api)) /* takes the rows over */
		st = opmfu_err_set(r->err, OPMFU_ERR_NOMEM, "%s: out of memory reading PYTORCH_API", r->path);
	if (!st && opmfu_ajoin_emit(&j, t))
		st = opmfu_err_set(r->err, OPMFU_ERR_NOMEM, "%s: out of memory joining kernels and ops", r->path);
	opmfu_ajoin_release(&j);
	if (!st) {
		t->has_module_src[0] = 1;
		t->has_module_src[1] = has_comm;
		t->has_module_src[2] = has_sched;
	}
	if (started) {
		take_mstx(t, &h);
	} else if (!st) {
		st = read_mstx(r, sid_flops, sid_module);
	}
	opmfu_free(h.t.recs);
	opmfu_free(h.t.mods);
	return st;
}

enum opmfu_status opmfu_read_ascend_threads(const char *path, struct opmfu_trace *t, int threads,
					    struct opmfu_err *err)
{
	struct reader r = { NULL, path, t, err };
	enum opmfu_status st = open_db(path, &r.db, err);

	if (st)
		return st;
	st = read_all(&r, threads);
	sqlite3_close(r.db);
	return st;
}

enum opmfu_status opmfu_read_ascend(const char *path, struct opmfu_trace *t, struct opmfu_err *err)
{
	return opmfu_read_ascend_threads(path, t, 1, err);
}
