/*
 * read_ascend.c - Ascend profiler database reader.
 * Joins inside the database are done by SQLite in one streamed query per
 * entity; strings are read once from STRING_IDS and referenced by sid.
 */
#include "read_ascend.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/mem.h"
#include "../model/parse.h"
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
 * Reads a nanosecond timestamp. Real files declare some of them TEXT, so text
 * is parsed strictly; NULL, junk or non-integral values fail (-1).
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
		char *end;
		long long v;
		if (!txt || !*txt)
			return -1;
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
	if (sqlite3_prepare_v2(r->db, "SELECT id, value FROM STRING_IDS", -1, &s, NULL) != SQLITE_OK)
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
 * Runs one link query (see schema/in/ascend/): columns are kernel name,
 * kernel start, kernel end, op name, op start, op end, then optionally input
 * shapes, input dtypes, output shapes.
 */
static enum opmfu_status read_links(struct reader *r, const char *sql, const char *what,
				    int with_shapes, size_t *count)
{
	struct opmfu_trace *t = r->t;
	sqlite3_stmt *s = NULL;
	int rc;
	size_t before = t->n_links;

	if (sqlite3_prepare_v2(r->db, sql, -1, &s, NULL) != SQLITE_OK)
		return sql_fail(r, what);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct opmfu_link l;
		if (column_ns(s, 1, &l.k_start) || column_ns(s, 2, &l.k_end) ||
		    column_ns(s, 4, &l.op_start) || column_ns(s, 5, &l.op_end)) {
			t->n_bad_rows++;
			continue;
		}
		l.k_name = column_sid(r, s, 0);
		l.op_name = column_sid(r, s, 3);
		l.in_shapes = with_shapes ? column_sid(r, s, 6) : 0;
		l.in_dtypes = with_shapes ? column_sid(r, s, 7) : 0;
		l.out_shapes = with_shapes ? column_sid(r, s, 8) : 0;
		if (t->n_links >= UINT32_MAX - 1 || OPMFU_GROW(t->links, t->cap_links, t->n_links + 1)) {
			sqlite3_finalize(s);
			return opmfu_err_set(r->err, OPMFU_ERR_NOMEM, "%s: out of memory %s", r->path, what);
		}
		l.seq = (uint32_t)t->n_links;
		t->links[t->n_links++] = l;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return sql_fail(r, what);
	*count = t->n_links - before;
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

static enum opmfu_status read_all(struct reader *r)
{
	static const char *const task_cols[] = { "startNs", "endNs", "connectionId", "globalTaskId", NULL };
	static const char *const cti_cols[] = { "globalTaskId", "name", "opType", "inputShapes",
						"inputDataTypes", "outputShapes", NULL };
	static const char *const conn_cols[] = { "id", "connectionId", NULL };
	static const char *const api_cols[] = { "startNs", "endNs", "connectionId", "name", NULL };
	static const char *const comm_cols[] = { "opType", "startNs", "endNs", "connectionId", NULL };
	static const char *const sched_cols[] = { "globalTaskId", "name", NULL };
	uint32_t sid_flops = 0, sid_module = 0;
	enum opmfu_status st;

	if ((st = read_strings(r, &sid_flops, &sid_module)))
		return st;
	if ((st = need_table(r, "TASK", task_cols)) || (st = need_table(r, "COMPUTE_TASK_INFO", cti_cols)) ||
	    (st = need_table(r, "CONNECTION_IDS", conn_cols)) || (st = need_table(r, "PYTORCH_API", api_cols)))
		return st;
	if ((st = read_links(r, opmfu_sql_ascend_compute_links, "reading compute kernels (COMPUTE_TASK_INFO)",
			     1, &r->t->n_compute)))
		return st;
	r->t->has_module_src[0] = 1;
	if (table_exists(r, "COMMUNICATION_OP", &st)) {
		if ((st = need_columns(r, "COMMUNICATION_OP", comm_cols)) ||
		    (st = read_links(r, opmfu_sql_ascend_comm_op_links, "reading COMMUNICATION_OP", 0,
				     &r->t->n_comm_op)))
			return st;
		r->t->has_module_src[1] = 1;
	} else if (st) {
		return st;
	}
	if (table_exists(r, "COMMUNICATION_SCHEDULE_TASK_INFO", &st)) {
		if ((st = need_columns(r, "COMMUNICATION_SCHEDULE_TASK_INFO", sched_cols)) ||
		    (st = read_links(r, opmfu_sql_ascend_comm_sched_links,
				     "reading COMMUNICATION_SCHEDULE_TASK_INFO", 0, &r->t->n_comm_sched)))
			return st;
		r->t->has_module_src[2] = 1;
	} else if (st) {
		return st;
	}
	return read_mstx(r, sid_flops, sid_module);
}

enum opmfu_status opmfu_read_ascend(const char *path, struct opmfu_trace *t, struct opmfu_err *err)
{
	struct reader r = { NULL, path, t, err };
	enum opmfu_status st;
	int rc;

	rc = sqlite3_open_v2(path, &r.db, SQLITE_OPEN_READONLY, NULL);
	if (rc != SQLITE_OK) {
		st = opmfu_err_set(err, OPMFU_ERR_SQLITE, "%s: cannot open: %s", path,
				   r.db ? sqlite3_errmsg(r.db) : sqlite3_errstr(rc));
		sqlite3_close(r.db);
		return st;
	}
	/* another process may still hold a write lock for a moment */
	sqlite3_busy_timeout(r.db, 2000);
	st = read_all(&r);
	sqlite3_close(r.db);
	return st;
}
