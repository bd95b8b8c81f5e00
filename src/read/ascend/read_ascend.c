/*
 * read_ascend.c - Ascend profiler database reader.
 * Each table is scanned once, in table order, by a plain SELECT
 * (schema/in/ascend/); the kernel <-> op join is done in memory by
 * ascend_join.c. With two threads, a second connection scans PYTORCH_API and
 * then MSTX_EVENTS while the first scans the rest and, once PYTORCH_API is
 * in, joins kernels to ops (MSTX_EVENTS is not needed for that).
 * Strings are read once from STRING_IDS and referenced by sid.
 */

struct scan;
#include "read/ascend/read_ascend.h"

#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/thread.h"
#include "trace/parse.h"
#include "read/ascend/ascend.h"
#include "read/ascend/ascend_chip.h"
#include "read/ascend/ascend_steps.h"
#include "read/ascend/ascend_join.h"
#include "read/ascend/ascend_parse.h"
#include "read/dirwalk.h"
#include "read/sqlite_in.h"
#include "sql_embed.h"

struct reader {
	sqlite3 *db;
	const char *path;
	struct opmfu_trace *t;
	struct opmfu_err *err;
	struct scan *cur; /* the scan opmfu_row() feeds */
	struct opmfu_sqlite_in in; /* the file as it was opened */
	uint32_t words[OPMFU_AJ_W_N]; /* opmfu_ajoin_words */
};

/* COMPUTE_TASK_INFO's strings in the model's forms, by sid (the first
 * connection's, from STRING_IDS until COMPUTE_TASK_INFO is read):
 * normalised shape sids, and dtype table indexes (0: not parsed yet). */
struct str_maps {
	uint32_t *shape_of, *dtype_of, *format_of;
	size_t n_sids;
};

static enum opmfu_status sql_fail(struct reader *r, const char *what)
{
	return opmfu_err_set(r->err, OPMFU_ERR_SQLITE, "%s: %s: %s%s", r->path, what, sqlite3_errmsg(r->db),
			     opmfu_sqlite_in_hint(sqlite3_extended_errcode(r->db)));
}

static int table_exists(struct reader *r, const char *table, enum opmfu_status *st)
{
	int found = opmfu_sqlite_has_table(r->db, table);
	*st = found < 0 ? sql_fail(r, "reading the schema") : OPMFU_OK;
	return found == 1;
}

/* Checks that table has every column in cols (NULL-terminated). */
static enum opmfu_status need_columns(struct reader *r, const char *table, const char *const *cols)
{
	char sql[128];
	sqlite3_stmt *s = NULL;
	const char *const *c;
	unsigned have = 0, i;

	switch (opmfu_sqlite_has_columns(r->db, table, cols)) {
	case 1:
		return OPMFU_OK;
	case -1:
		return sql_fail(r, "reading the schema");
	}
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
static int value_ns(sqlite3_value *v, int64_t *out)
{
	switch (sqlite3_value_type(v)) {
	case SQLITE_INTEGER:
		*out = sqlite3_value_int64(v);
		return 0;
	case SQLITE_FLOAT: {
		double d = sqlite3_value_double(v);
		if (!(d >= -9.2e18 && d <= 9.2e18) || d != (double)(int64_t)d)
			return -1;
		*out = (int64_t)d;
		return 0;
	}
	case SQLITE_TEXT: {
		const char *txt = (const char *)sqlite3_value_text(v);
		return txt ? opmfu_parse_ns_text(txt, (size_t)sqlite3_value_bytes(v), out) : -1;
	}
	default:
		return -1;
	}
}

/* Integer id column (STRING_IDS reference) -> sid; NULL or unknown -> 0. */
static uint32_t value_sid(const struct reader *r, sqlite3_value *v)
{
	if (sqlite3_value_type(v) != SQLITE_INTEGER)
		return 0;
	return opmfu_strtab_lookup(&r->t->strs, sqlite3_value_int64(v));
}

/* ---- scans ----
 * Each table is read by one statement made from its schema/in/ascend/ file,
 * "SELECT <columns> FROM ...", rewritten as
 * "SELECT opmfu_row(<columns>) FROM ...", where opmfu_row is an aggregate:
 * SQLite calls its step for every row inside one sqlite3_step, with the
 * values as arguments, which costs a third less than returning to C for every
 * row and fetching each column (and an aggregate step, not a scalar inside
 * count(), is one call per row instead of two). opmfu_row hands the values to
 * the row function of the scan in progress.
 */

/* One row's values (in the query's column order); returns 0, or -1 when out of memory. */
typedef int (*row_fn)(struct scan *sc, sqlite3_value **v);

struct scan {
	struct reader *r;
	row_fn row;
	int n_cols;
	int nomem;
	struct opmfu_ajoin *j;
	/* PYTORCH_API: rows kept, and the join that filters them (NULL: keep all) */
	const struct opmfu_ajoin *filter;
	struct opmfu_aj_api *api;
	size_t n_api, cap_api;
	/* MSTX_EVENTS: the two domains kept */
	uint32_t sid_flops, sid_module;
	/* COMPUTE_TASK_INFO: its strings' model forms */
	struct str_maps *maps;
	/* TASK: per task type sid, 1 a copy type, 2 not, 0 not looked at yet */
	uint8_t *copy_type;
	size_t n_types;
};

/* The aggregate's step: one call per row, nothing to accumulate. */
static void row_cb(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct reader *r = sqlite3_user_data(ctx);
	struct scan *sc = r->cur;
	if (argc != sc->n_cols) {
		sqlite3_result_error(ctx, "opmfu_row: wrong number of columns", -1);
	} else if (sc->row(sc, argv)) {
		sc->nomem = 1;
		sqlite3_result_error_nomem(ctx);
	}
}

static void row_final(sqlite3_context *ctx)
{
	(void)ctx; /* the result (NULL) is not used */
}

/*
 * "SELECT a, b FROM t ..." (after leading comment lines) ->
 * "SELECT opmfu_row(a, b) FROM t ...". The schema/in/ascend/ files
 * keep that form: one select list, then the first FROM. Returns 0, -1 when
 * sql is not of that form, -2 when out of memory.
 */
static int wrap_query(const char *sql, char **out)
{
	static const char head[] = "SELECT opmfu_row(", mid[] = ") ";
	const char *p = sql, *cols, *from;
	size_t n_cols;

	*out = NULL;
	while (p[0] == '-' && p[1] == '-') {
		p = strchr(p, '\n');
		if (!p)
			return -1;
		p++;
	}
	if (strncmp(p, "SELECT ", 7) != 0)
		return -1;
	cols = p + 7;
	for (from = cols; *from; from++)
		if ((from[-1] == ' ' || from[-1] == '\n') && strncmp(from, "FROM ", 5) == 0)
			break;
	if (!*from)
		return -1;
	for (n_cols = (size_t)(from - cols); n_cols && (cols[n_cols - 1] == ' ' || cols[n_cols - 1] == '\n');)
		n_cols--;
	*out = opmfu_malloc(sizeof(head) + n_cols + sizeof(mid) + strlen(from));
	if (!*out)
		return -2;
	sprintf(*out, "%s%.*s%s%s", head, (int)n_cols, cols, mid, from);
	return 0;
}

/* Runs one scan: sql is a schema/in/ascend/ query whose rows go to sc->row. */
static enum opmfu_status run_scan(struct reader *r, struct scan *sc, const char *sql, const char *what)
{
	char *q;
	sqlite3_stmt *s = NULL;
	enum opmfu_status st = OPMFU_OK;
	int rc = wrap_query(sql, &q);

	if (rc == -1)
		return opmfu_err_set(r->err, OPMFU_ERR_SQLITE, "%s: %s: the reader's query is not SELECT ... FROM ...",
				     r->path, what);
	if (rc)
		return opmfu_err_set(r->err, OPMFU_ERR_NOMEM, "%s: out of memory %s", r->path, what);
	sc->r = r;
	sc->nomem = 0;
	r->cur = sc;
	rc = sqlite3_prepare_v2(r->db, q, -1, &s, NULL);
	opmfu_free(q);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	if (sc->nomem)
		st = opmfu_err_set(r->err, OPMFU_ERR_NOMEM, "%s: out of memory %s", r->path, what);
	else if (rc != SQLITE_ROW)
		st = sql_fail(r, what);
	sqlite3_finalize(s);
	r->cur = NULL;
	return st;
}

static int string_row(struct scan *sc, sqlite3_value **v)
{
	struct opmfu_strtab *t = &sc->r->t->strs;
	const char *txt;
	uint32_t sid;
	if (sqlite3_value_type(v[0]) != SQLITE_INTEGER || sqlite3_value_type(v[1]) == SQLITE_NULL)
		return 0;
	txt = (const char *)sqlite3_value_text(v[1]);
	sid = opmfu_strtab_intern(t, txt ? txt : "", txt ? (size_t)sqlite3_value_bytes(v[1]) : 0);
	return !sid || opmfu_strtab_map_id(t, sqlite3_value_int64(v[0]), sid) ? -1 : 0;
}

static void str_maps_release(struct str_maps *m)
{
	opmfu_free(m->shape_of);
	opmfu_free(m->dtype_of);
	opmfu_free(m->format_of);
	memset(m, 0, sizeof(*m));
}

/* The maps for the strings read so far; before the second thread starts,
 * which reads the string table (no interning once it runs). Returns 0, or
 * -1 when out of memory. */
static int make_maps(struct reader *r, struct str_maps *maps)
{
	size_t n = r->t->strs.n + 1; /* and the unknown-shape text, which may be new */
	maps->shape_of = opmfu_malloc(n * sizeof(*maps->shape_of));
	maps->dtype_of = opmfu_calloc(n, sizeof(*maps->dtype_of));
	maps->format_of = opmfu_malloc(n * sizeof(*maps->format_of));
	if (!maps->shape_of || !maps->dtype_of || !maps->format_of)
		return -1;
	return opmfu_ascend_shape_map(&r->t->strs, maps->shape_of, &maps->n_sids, &r->t->shape_unknown) ||
	       opmfu_ascend_format_map(&r->t->strs, maps->format_of, maps->n_sids);
}

/* The dtype table index of the dtype list sid, parsed the first time it is met. */
static int dtype_of(struct scan *sc, uint32_t sid, uint32_t *idx)
{
	struct str_maps *m = sc->maps;
	struct opmfu_dtype d;
	*idx = 0;
	if (!sid || sid >= m->n_sids)
		return 0;
	if (!m->dtype_of[sid]) {
		opmfu_ascend_dtype(&sc->r->t->strs, sid, &d);
		if (opmfu_trace_add_dtype(sc->r->t, &d, &m->dtype_of[sid]))
			return -1;
	}
	*idx = m->dtype_of[sid];
	return 0;
}

static uint32_t shape_of(const struct scan *sc, uint32_t sid)
{
	return sid < sc->maps->n_sids ? sc->maps->shape_of[sid] : sid;
}

static uint32_t format_of(const struct scan *sc, uint32_t sid)
{
	return sid < sc->maps->n_sids ? sc->maps->format_of[sid] : sid;
}

static enum opmfu_status read_strings(struct reader *r, uint32_t *sid_flops, uint32_t *sid_module,
				      struct str_maps *maps)
{
	static const char *const cols[] = { "id", "value", NULL };
	struct scan sc = { .row = string_row, .n_cols = 2 };
	enum opmfu_status st = OPMFU_OK;

	/* a database the user named (not by Ascend's file name) that has
	 * neither format's tables: say
	 * what was looked for (SPEC 21), not only what Ascend misses */
	if (opmfu_db_name_rank(opmfu_base_of(r->path)) == -2 && !table_exists(r, "STRING_IDS", &st) && !st &&
	    !table_exists(r, "TASK", &st) && !st)
		return opmfu_err_set(r->err, OPMFU_ERR_SCHEMA, "%s: %s", r->path, OPMFU_NEITHER_EXPORT);
	if (st || (st = need_table(r, "STRING_IDS", cols)) ||
	    (st = run_scan(r, &sc, opmfu_sql_ascend_strings, "reading STRING_IDS")))
		return st;
	*sid_flops = opmfu_strtab_intern(&r->t->strs, "mfu_flops", 9);
	*sid_module = opmfu_strtab_intern(&r->t->strs, "Module", 6);
	if (!*sid_flops || !*sid_module || opmfu_ajoin_words(&r->t->strs, r->words) || make_maps(r, maps)) {
		str_maps_release(maps);
		return opmfu_err_set(r->err, OPMFU_ERR_NOMEM, "%s: out of memory reading STRING_IDS", r->path);
	}
	if (opmfu_strtab_finish(&r->t->strs)) {
		str_maps_release(maps);
		return opmfu_err_set(r->err, OPMFU_ERR_NOMEM, "%s: out of memory reading STRING_IDS", r->path);
	}
	return OPMFU_OK;
}

/* opmfu_sqlite_rows_hint of r's file (a hint for reserving arrays). */
static size_t rows_hint(struct reader *r, const char *table)
{
	return opmfu_sqlite_rows_hint(r->db, &r->in, table);
}

/* The row functions; a row whose key is NULL can never link and is dropped,
 * as the SQL join would. */

static int info_row(struct scan *sc, sqlite3_value **v)
{
	struct opmfu_aj_info in;
	int64_t gid;
	if (value_ns(v[0], &gid))
		return 0;
	in.name = value_sid(sc->r, v[1]);
	in.in_shapes = shape_of(sc, value_sid(sc->r, v[2]));
	in.out_shapes = shape_of(sc, value_sid(sc->r, v[4]));
	in.type = value_sid(sc->r, v[5]);
	in.in_formats = format_of(sc, value_sid(sc->r, v[6]));
	in.out_formats = format_of(sc, value_sid(sc->r, v[7]));
	in.out_dtypes = value_sid(sc->r, v[8]);
	if (dtype_of(sc, value_sid(sc->r, v[3]), &in.dtype))
		return -1;
	return opmfu_ajoin_add_info(sc->j, gid, &in);
}

static int sched_row(struct scan *sc, sqlite3_value **v)
{
	int64_t gid;
	return value_ns(v[0], &gid) ? 0 : opmfu_ajoin_add_sched(sc->j, gid, value_sid(sc->r, v[1]));
}

static int ctinfo_row(struct scan *sc, sqlite3_value **v)
{
	int64_t gid, op = 0;
	int op_ok;
	if (value_ns(v[0], &gid))
		return 0;
	op_ok = !value_ns(v[1], &op);
	if (opmfu_ajoin_add_ctinfo(sc->j, gid, op_ok, op, value_sid(sc->r, v[2])))
		return -1;
	if (sc->n_cols >= 11) {
		/* comm_tasks_full.sql: unreadable values stay unknown; ranks past 2^31 are "none" (4294967295) */
		int64_t plane = -1, transport = -1, link = -1, size = -1, src = -1, dst = -1, rdma = -1, max_rank;
		if (value_ns(v[4], &plane) || plane < 0 || plane >= 0xFFFFFFFFLL)
			plane = -1;
		if (value_ns(v[5], &transport) || transport < 0 || transport > 65535)
			transport = -1;
		if (value_ns(v[6], &link) || link < 0 || link > 65535)
			link = -1;
		if (value_ns(v[7], &size) || size < 0)
			size = -1;
		if (value_ns(v[8], &src) || src < 0 || src > INT32_MAX)
			src = -1;
		if (value_ns(v[9], &dst) || dst < 0 || dst > INT32_MAX)
			dst = -1;
		if (value_ns(v[10], &rdma) || rdma < 0 || rdma > 65535)
			rdma = -1;
		max_rank = src > dst ? src : dst;
		opmfu_ajoin_ctinfo_kind(sc->j, value_sid(sc->r, v[3]), plane, (int32_t)transport, (int32_t)link, size,
					max_rank, (int32_t)rdma);
	}
	return 0;
}

/*
 * Whether a task type is a copy: its name holds "MEMCPY" in any case. The
 * real exports' copies are MEMCPY_ASYNC (the runtime's only copy task type);
 * SDMA tasks there are all a collective's Memcpy or Reduce_Inline, counted
 * as communication. Returns the sid when it is, else 0.
 */
static uint32_t copy_type(struct scan *sc, uint32_t sid)
{
	const struct opmfu_strtab *strs = &sc->r->t->strs;
	if (!sid || sid >= sc->n_types)
		return 0;
	if (!sc->copy_type[sid]) {
		const char *p = opmfu_strtab_str(strs, sid);
		size_t n = opmfu_strtab_len(strs, sid), i, k;
		static const char word[] = "MEMCPY";
		sc->copy_type[sid] = 2;
		for (i = 0; i + sizeof(word) - 1 <= n; i++) {
			for (k = 0; word[k] && (p[i + k] & ~0x20) == word[k]; k++)
				;
			if (!word[k]) {
				sc->copy_type[sid] = 1;
				break;
			}
		}
	}
	return sc->copy_type[sid] == 1 ? sid : 0;
}

static int task_row(struct scan *sc, sqlite3_value **v)
{
	int64_t gid, start = 0, end = 0, conn = 0;
	int bad, conn_ok;
	if (value_ns(v[0], &gid))
		return 0;
	bad = value_ns(v[1], &start) | value_ns(v[2], &end);
	conn_ok = !value_ns(v[3], &conn);
	return opmfu_ajoin_add_task(sc->j, gid, start, end, bad, conn_ok, conn, copy_type(sc, value_sid(sc->r, v[4])));
}

static int comm_row(struct scan *sc, sqlite3_value **v)
{
	struct opmfu_aj_cop c = { 0, 0, 0, 0, value_sid(sc->r, v[0]), value_sid(sc->r, v[5]), 0, 0, 0, 0, -1, -1 };
	c.conn_ok = (uint8_t)!value_ns(v[3], &c.conn);
	if (sc->n_cols >= 9) {
		/* comm_op_full.sql (SPEC 19): the communicator, element type and count */
		c.group = value_sid(sc->r, v[6]);
		if (value_ns(v[7], &c.data_type) || c.data_type < 0)
			c.data_type = -1;
		if (value_ns(v[8], &c.count) || c.count < 0)
			c.count = -1;
	}
	c.bad = (uint8_t)(value_ns(v[1], &c.start) | value_ns(v[2], &c.end));
	c.op_ok = (uint8_t)!value_ns(v[4], &c.op_id);
	/* every communication on the device, linked to an op or not (SPEC 11):
	 * the join makes the ranges, from the tasks when it has them */
	if (opmfu_ajoin_add_collective(sc->j, &c))
		return -1;
	return opmfu_ajoin_add_comm(sc->j, c.type, c.start, c.end, c.bad, c.conn_ok, c.conn);
}

/* CANN_API: the runtime call under a connectionId is the host side of the
 * device work with that connectionId (its launch) */
static int launch_row(struct scan *sc, sqlite3_value **v)
{
	int64_t conn, start;
	if (value_ns(v[0], &conn) || value_ns(v[1], &start))
		return 0;
	return opmfu_ajoin_add_launch(sc->j, conn, start);
}

static int connection_row(struct scan *sc, sqlite3_value **v)
{
	int64_t id, conn;
	if (value_ns(v[0], &id) || value_ns(v[1], &conn))
		return 0;
	return opmfu_ajoin_add_connection(sc->j, id, conn);
}

/*
 * PYTORCH_API rows with a connection. With a filter (the connections are
 * already known) only rows that can link are kept; the helper thread scans
 * before they are known and keeps them all.
 */
static int api_row(struct scan *sc, sqlite3_value **v)
{
	struct opmfu_aj_api a;
	if (value_ns(v[0], &a.id) || (sc->filter && !opmfu_ajoin_want_api(sc->filter, a.id)))
		return 0;
	a.name = value_sid(sc->r, v[1]);
	a.start = a.end = 0;
	a.bad = (uint8_t)(value_ns(v[2], &a.start) | value_ns(v[3], &a.end));
	if (OPMFU_GROW(sc->api, sc->cap_api, sc->n_api + 1))
		return -1;
	sc->api[sc->n_api++] = a;
	return 0;
}

/* Reads PYTORCH_API into *rows (the caller frees them). */
static enum opmfu_status scan_api(struct reader *r, const struct opmfu_ajoin *filter, struct opmfu_aj_api **rows,
				  size_t *n_rows)
{
	struct scan sc = { .row = api_row, .n_cols = 4, .filter = filter };
	enum opmfu_status st;

	if (!filter)
		(void)OPMFU_RESERVE(sc.api, sc.cap_api, rows_hint(r, "PYTORCH_API"));
	st = run_scan(r, &sc, opmfu_sql_ascend_pytorch_api, "reading PYTORCH_API");

	if (st) {
		opmfu_free(sc.api);
		sc.api = NULL;
		sc.n_api = 0;
	}
	*rows = sc.api;
	*n_rows = sc.n_api;
	return st;
}

static int mstx_row(struct scan *sc, sqlite3_value **v)
{
	struct opmfu_trace *t = sc->r->t;
	uint32_t dom = value_sid(sc->r, v[4]), msg = value_sid(sc->r, v[3]);
	int64_t start = 0, end = 0;
	int bad_time;

	if (dom != sc->sid_flops && dom != sc->sid_module)
		return 0;
	bad_time = value_ns(v[0], &start);
	/* a NULL end counts as 0 (SPEC 1.3), so the range is empty */
	if (sqlite3_value_type(v[1]) == SQLITE_NULL)
		end = 0;
	else if (value_ns(v[1], &end))
		bad_time = 1;
	if (dom == sc->sid_flops) {
		struct opmfu_range rec;
		enum opmfu_drop why;
		size_t off = 0;
		t->n_recs_read++;
		if (!msg || opmfu_ascend_flops_msg(opmfu_strtab_str(&t->strs, msg), opmfu_strtab_len(&t->strs, msg),
						   &rec.value, &off, &why)) {
			t->drops[msg ? why : OPMFU_DROP_FORMAT]++;
			return 0;
		}
		if (bad_time || end <= start) {
			t->drops[OPMFU_DROP_RANGE]++;
			return 0;
		}
		rec.start = start;
		rec.end = end;
		rec.name = msg;
		rec.name_off = (uint32_t)off; /* flops_op_name: the message after "<FLOPs>-" */
		return opmfu_ranges_add(&t->recs, &rec);
	} else if (sqlite3_value_type(v[2]) == SQLITE_INTEGER && sqlite3_value_int64(v[2]) == 2) {
		struct opmfu_range mod = { start, end, 0, msg, 0 };
		if (bad_time) {
			t->n_bad_rows++;
			return 0;
		}
		return opmfu_ranges_add(&t->mods, &mod);
	}
	return 0;
}

static enum opmfu_status read_mstx(struct reader *r, uint32_t sid_flops, uint32_t sid_module)
{
	static const char *const cols[] = { "startNs", "endNs", "eventType", "message", "domainId", NULL };
	struct scan sc = { .row = mstx_row, .n_cols = 5, .sid_flops = sid_flops, .sid_module = sid_module };
	enum opmfu_status st;

	if (!table_exists(r, "MSTX_EVENTS", &st))
		return st;
	r->t->why_no_records = "no mfu_flops records in MSTX_EVENTS (collect with with_flops=True)";
	if ((st = need_columns(r, "MSTX_EVENTS", cols)) ||
	    (st = run_scan(r, &sc, opmfu_sql_ascend_mstx, "reading MSTX_EVENTS")))
		return st;
	/* in start order, ties in read order: on the second thread this
	 * overlaps the join, and the FLOPs stage then finds them sorted */
	if (opmfu_ranges_sort(&r->t->recs))
		return opmfu_err_set(r->err, OPMFU_ERR_NOMEM, "%s: out of memory reading MSTX_EVENTS", r->path);
	return OPMFU_OK;
}

/* ---- the helper thread: PYTORCH_API and MSTX_EVENTS over its own connection ---- */

struct helper {
	const char *path;
	struct opmfu_trace t;  /* strs: a borrowed copy of the rank's (read-only); ranges, counts: its own */
	uint32_t sid_flops, sid_module;
	struct opmfu_aj_api *api;
	size_t n_api;
	struct opmfu_err err;
	enum opmfu_status api_st, st; /* of the PYTORCH_API scan; of the whole */
	/* set once the PYTORCH_API rows (or a failure) are ready: the first
	 * thread joins them while this one goes on to MSTX_EVENTS */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int api_done;
};

static void helper_api_done(struct helper *h)
{
	pthread_mutex_lock(&h->mu);
	h->api_done = 1;
	pthread_cond_signal(&h->cv);
	pthread_mutex_unlock(&h->mu);
}

static void helper_wait_api(struct helper *h)
{
	pthread_mutex_lock(&h->mu);
	while (!h->api_done)
		pthread_cond_wait(&h->cv, &h->mu);
	pthread_mutex_unlock(&h->mu);
}

/*
 * Every page is read once, in table order, so SQLite's cache only recycles
 * slots: 64 of them stay in the core's L2 cache while pread fills them and
 * the VM parses them; the default 2 MB does not (3 % less CPU). Only a hint:
 * it may fail (the pragma loads the schema), and then the next query reports
 * why with the usual message, so the result is ignored.
 */
static void small_cache(sqlite3 *db)
{
	(void)sqlite3_exec(db, "PRAGMA cache_size = 64", NULL, NULL, NULL);
}

/* Opens r's connection, gives it opmfu_row() and notes how many rows the
 * file can hold (no row takes fewer than 8 bytes of it). */
static enum opmfu_status open_reader(struct reader *r)
{
	enum opmfu_status st = opmfu_sqlite_in_open(r->path, &r->db, &r->in, r->err);
	if (st)
		return st;
	if (sqlite3_create_function(r->db, "opmfu_row", -1, SQLITE_UTF8, r, NULL, row_cb, row_final) != SQLITE_OK)
		return sql_fail(r, "registering opmfu_row");
	/* One read transaction for all of the rank's statements (closing the
	 * connection ends it): in autocommit each one took and dropped the file
	 * lock, looked for a hot journal and re-read the header. It starts with
	 * the first read, which waits for a writer as any statement did. */
	if (sqlite3_exec(r->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return sql_fail(r, "starting to read");
	return OPMFU_OK;
}

static void *helper_run(void *arg)
{
	struct helper *h = arg;
	struct reader r = { NULL, h->path, &h->t, &h->err, NULL, { .wal = 0 }, { 0 } };
	enum opmfu_status st = open_reader(&r);

	if (!st) {
		small_cache(r.db);
		st = scan_api(&r, NULL, &h->api, &h->n_api);
	}
	/* after a failure h->err stays as it is: the first thread may read it */
	h->api_st = h->st = st;
	helper_api_done(h);
	if (!st)
		h->st = read_mstx(&r, h->sid_flops, h->sid_module);
	sqlite3_close(r.db);
	return NULL;
}

/* Moves what the helper read from MSTX_EVENTS (modules, FLOPs records) into t. */
static void take_mstx(struct opmfu_trace *t, struct helper *h)
{
	static const enum opmfu_range_kind kinds[] = { OPMFU_RANGE_MODULE, OPMFU_RANGE_FLOPS };
	size_t i;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct opmfu_ranges *from = opmfu_trace_ranges(&h->t, kinds[i]);
		*opmfu_trace_ranges(t, kinds[i]) = *from;
		memset(from, 0, sizeof(*from));
	}
	t->n_recs_read += h->t.n_recs_read;
	t->n_bad_rows += h->t.n_bad_rows;
	if (h->t.why_no_records)
		t->why_no_records = h->t.why_no_records;
	for (i = 0; i < OPMFU_DROP__COUNT; i++)
		t->drops[i] += h->t.drops[i];
}

/* Whether table has every column in cols (an optional part of the schema);
 * a table without them is read without it. */
static int has_columns(struct reader *r, const char *table, const char *const *cols)
{
	struct opmfu_err quiet = OPMFU_ERR_INIT, *err = r->err;
	int ok;
	r->err = &quiet;
	ok = need_columns(r, table, cols) == OPMFU_OK;
	r->err = err;
	return ok;
}

/* The scans of the first connection, in dependency order (see ascend_join.h). */
static enum opmfu_status read_tasks(struct reader *r, struct opmfu_ajoin *j, int has_comm, int has_sched,
				     struct str_maps *maps)
{
	static const char *const fmt_cols[] = { "inputFormats", "outputFormats", "outputDataTypes", NULL };
	static const char *const type_cols[] = { "taskType", NULL };
	static const char *const ct_cols[] = { "globalTaskId", "opId", "name", NULL };
	static const char *const ct_full_cols[] = { "taskType", "planeId", "transportType", "linkType", "size",
						    "srcRank", "dstRank", "rdmaType", NULL };
	static const char *const op_full_cols[] = { "opId", "opName", "groupName", "dataType", "count", NULL };
	int ct_full, op_full;
	static const char *const op_cols[] = { "opId", "opName", NULL };
	static const char *const cann_cols[] = { "connectionId", "startNs", NULL };
	int has_formats, has_ct, has_cann;
	struct scan info = { .row = info_row, .n_cols = 9, .j = j, .maps = maps };
	struct scan sched = { .row = sched_row, .n_cols = 2, .j = j };
	struct scan ct = { .row = ctinfo_row, .n_cols = 3, .j = j };
	struct scan cann = { .row = launch_row, .n_cols = 2, .j = j };
	struct scan task = { .row = task_row, .n_cols = 5, .j = j }, comm = { .row = comm_row, .n_cols = 6, .j = j };
	struct scan conn = { .row = connection_row, .n_cols = 2, .j = j };
	enum opmfu_status st;

	/* formats are optional (shape FLOPs read them): older exports may lack them */
	has_formats = has_columns(r, "COMPUTE_TASK_INFO", fmt_cols);
	/* communication tasks are optional: without them communication is the collectives' spans */
	has_ct = table_exists(r, "COMMUNICATION_TASK_INFO", &st);
	if (st)
		return st;
	has_ct = has_ct && has_columns(r, "COMMUNICATION_TASK_INFO", ct_cols);
	ct_full = has_ct && has_columns(r, "COMMUNICATION_TASK_INFO", ct_full_cols);
	op_full = has_comm && has_columns(r, "COMMUNICATION_OP", op_full_cols);
	if (ct_full)
		ct.n_cols = 11;
	if (op_full)
		comm.n_cols = 9;
	opmfu_ajoin_expect(j, OPMFU_AJ_INFO, rows_hint(r, "COMPUTE_TASK_INFO"));
	if ((st = run_scan(r, &info, has_formats ? opmfu_sql_ascend_compute_info : opmfu_sql_ascend_compute_info_nofmt,
			   "reading COMPUTE_TASK_INFO")) ||
	    (has_sched && (st = run_scan(r, &sched, opmfu_sql_ascend_comm_sched,
					 "reading COMMUNICATION_SCHEDULE_TASK_INFO"))) ||
	    (has_ct && (st = run_scan(r, &ct, ct_full ? opmfu_sql_ascend_comm_tasks_full : opmfu_sql_ascend_comm_tasks,
				      "reading COMMUNICATION_TASK_INFO"))))
		return st;
	if (opmfu_ajoin_index_info(j))
		return opmfu_err_set(r->err, OPMFU_ERR_NOMEM, "%s: out of memory reading COMPUTE_TASK_INFO", r->path);
	opmfu_ajoin_expect(j, OPMFU_AJ_TASK, rows_hint(r, "TASK"));
	/* the task types seen are sids of the string table, which is complete by now */
	task.n_types = r->t->strs.n;
	if (!(task.copy_type = opmfu_calloc(task.n_types ? task.n_types : 1, 1)))
		return opmfu_err_set(r->err, OPMFU_ERR_NOMEM, "%s: out of memory reading TASK", r->path);
	st = run_scan(r, &task, has_columns(r, "TASK", type_cols) ? opmfu_sql_ascend_tasks : opmfu_sql_ascend_tasks_notype,
		      "reading TASK");
	opmfu_free(task.copy_type);
	if (st || (has_comm && (st = run_scan(r, &comm,
					      op_full ? opmfu_sql_ascend_comm_op_full
					      : has_columns(r, "COMMUNICATION_OP", op_cols) ? opmfu_sql_ascend_comm_op
											 : opmfu_sql_ascend_comm_op_noid,
					      "reading COMMUNICATION_OP"))))
		return st;
	if (opmfu_ajoin_index_conns(j))
		return opmfu_err_set(r->err, OPMFU_ERR_NOMEM, "%s: out of memory reading TASK", r->path);
	/* launch times are optional: without them the op's start stands in */
	has_cann = table_exists(r, "CANN_API", &st);
	if (st || (has_cann && has_columns(r, "CANN_API", cann_cols) &&
		   (st = run_scan(r, &cann, opmfu_sql_ascend_cann_api, "reading CANN_API"))))
		return st;
	opmfu_ajoin_expect(j, OPMFU_AJ_CONNECTION, rows_hint(r, "CONNECTION_IDS"));
	if ((st = run_scan(r, &conn, opmfu_sql_ascend_connections, "reading CONNECTION_IDS")))
		return st;
	if (opmfu_ajoin_index_connections(j))
		return opmfu_err_set(r->err, OPMFU_ERR_NOMEM, "%s: out of memory reading CONNECTION_IDS", r->path);
	return OPMFU_OK;
}

/* What the summary says when the trace lacks links or records: in this
 * format's words, so that nothing after the reader needs to know them. */
static void set_whys(struct opmfu_trace *t)
{
	t->why_no_links = "no compute kernels linked to framework ops (COMPUTE_TASK_INFO/TASK/CONNECTION_IDS/PYTORCH_API)";
	t->why_no_records = "no MSTX_EVENTS table: the profile was collected without mstx, so it holds no FLOPs "
			    "records (collect with with_flops=True and mstx enabled)";
}

static enum opmfu_status read_all(struct reader *r, int threads, opmfu_links_fn on_links, void *ctx)
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
	int has_comm, has_sched, started = 0, c;
	uint32_t sid_flops = 0, sid_module = 0;
	struct opmfu_aj_api *api = NULL;
	size_t n_api = 0;
	struct str_maps maps = { NULL, NULL, NULL, 0 };
	enum opmfu_status st;

	set_whys(t);
	t->ref_classes = 1; /* the reference's own input: OperatorMFU keeps its dtype classes */
	opmfu_ascend_chip_seen(r->db, &t->device);
	if ((st = read_strings(r, &sid_flops, &sid_module, &maps)))
		return st;
	if ((st = need_table(r, "TASK", task_cols)) || (st = need_table(r, "COMPUTE_TASK_INFO", cti_cols)) ||
	    (st = need_table(r, "CONNECTION_IDS", conn_cols)) || (st = need_table(r, "PYTORCH_API", api_cols)))
		goto no_tables;
	has_comm = table_exists(r, "COMMUNICATION_OP", &st);
	if (st || (has_comm && (st = need_columns(r, "COMMUNICATION_OP", comm_cols))))
		goto no_tables;
	has_sched = table_exists(r, "COMMUNICATION_SCHEDULE_TASK_INFO", &st);
	if (st || (has_sched && (st = need_columns(r, "COMMUNICATION_SCHEDULE_TASK_INFO", sched_cols))))
		goto no_tables;
	small_cache(r->db); /* the schema is in: no I/O, and no lock to wait for */

	memset(&h, 0, sizeof(h));
	h.path = r->path;
	h.t.strs = t->strs;
	h.sid_flops = sid_flops;
	h.sid_module = sid_module;
	pthread_mutex_init(&h.mu, NULL);
	pthread_cond_init(&h.cv, NULL);
	if (threads > 1 && opmfu_thread_start(&th, helper_run, &h) == 0)
		started = 1;

	opmfu_ajoin_init(&j);
	memcpy(j.words, r->words, sizeof(j.words));
	st = read_tasks(r, &j, has_comm, has_sched, &maps);
	str_maps_release(&maps); /* COMPUTE_TASK_INFO is in */
	if (!st && opmfu_ascend_steps(r->db, t))
		st = opmfu_err_set(r->err, OPMFU_ERR_NOMEM, "%s: out of memory reading the steps", r->path);
	if (started) {
		helper_wait_api(&h);
		api = h.api;
		n_api = h.n_api;
		h.api = NULL;
		if (!st && h.api_st) {
			*r->err = h.err;
			st = h.api_st;
		}
	} else if (!st) {
		st = scan_api(r, &j, &api, &n_api);
	}
	if (st)
		opmfu_free(api);
	else if (opmfu_ajoin_set_api(&j, api, n_api)) /* takes the rows over */
		st = opmfu_err_set(r->err, OPMFU_ERR_NOMEM, "%s: out of memory reading PYTORCH_API", r->path);
	/* the PYTORCH_API rows as read (the helper's arena), set_api's scratch and the ids' index are
	 * freed: their pages go back before the links, kernel extras and launch times are made, rather
	 * than stay resident under them */
	if (!st)
		opmfu_trim(j.src[OPMFU_SRC_COMPUTE].n + n_api);
	if (!st && opmfu_ajoin_emit(&j, t))
		st = opmfu_err_set(r->err, OPMFU_ERR_NOMEM, "%s: out of memory joining kernels and ops", r->path);
	opmfu_ajoin_release(&j);
	if (!st && on_links)
		on_links(ctx, t);
	if (started) {
		pthread_join(th, NULL);
		if (!st && h.st) {
			*r->err = h.err;
			st = h.st;
		}
		take_mstx(t, &h);
	} else if (!st) {
		st = read_mstx(r, sid_flops, sid_module);
	}
	for (c = 0; c < OPMFU_RANGE__COUNT; c++)
		opmfu_ranges_release(opmfu_trace_ranges(&h.t, (enum opmfu_range_kind)c));
	pthread_cond_destroy(&h.cv);
	pthread_mutex_destroy(&h.mu);
	return st;
no_tables:
	str_maps_release(&maps);
	return st;
}

enum opmfu_status opmfu_read_ascend_threads(const char *path, struct opmfu_trace *t, int threads,
					    opmfu_links_fn on_links, void *ctx, struct opmfu_err *err)
{
	struct reader r = { NULL, path, t, err, NULL, { .wal = 0 }, { 0 } };
	enum opmfu_status st = open_reader(&r);

	if (!st)
		st = read_all(&r, threads, on_links, ctx);
	sqlite3_close(r.db);
	/* the helper's connection is closed too: nothing reads the file now */
	if (!st)
		st = opmfu_sqlite_in_check(path, &r.in, err);
	return st;
}

enum opmfu_status opmfu_read_ascend(const char *path, struct opmfu_trace *t, struct opmfu_err *err)
{
	return opmfu_read_ascend_threads(path, t, 1, NULL, NULL, err);
}

/* The reader interface (read/reader.h): the database, then the chip info of
 * its rank directory (SPEC 1.4), which is part of reading the rank. */
static enum opmfu_status read_rank(const struct opmfu_rank_input *in, struct opmfu_trace *t,
				   const struct opmfu_read_opts *o, struct opmfu_err *err)
{
	enum opmfu_status st = opmfu_read_ascend_threads(in->path, t, o->threads, o->on_links, o->ctx, err);
	if (!st)
		st = opmfu_ascend_device(in->dir, &t->device, err);
	return st;
}

static int db_name(const char *base)
{
	return opmfu_db_name_rank(base) != -2;
}

const struct opmfu_reader opmfu_reader_ascend = {
	"ascend", "ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler*.db",
	opmfu_ascend_probe_dir, opmfu_ascend_probe_file, read_rank, db_name
};
