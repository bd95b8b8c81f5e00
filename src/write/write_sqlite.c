/*
 * write_sqlite.c - the database export. INSERT statements are prepared once
 * and reused; everything happens inside one transaction. OperatorMFU rows go
 * OP_BATCH at a time through one multi-row INSERT: a statement's fixed cost
 * (step, reset, opening the table) was half the time of a one-row insert.
 * Binding the parameters was then 40 % of the insert, and bindings outlive
 * sqlite3_reset: a value equal to the one a parameter already holds (same
 * number; same string pointer and length, read by SQLite at the step) is
 * not bound again. Rank and peak never change, and a parameter sees every
 * OP_BATCH-th row, often of the same op (op name 79 %, FLOPs op name 71 %).
 */
#include "write/write_sqlite.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/mem.h"
#include "model/parse.h"
#include "sql_out.h"

#define OP_COLS 13
#define OP_BATCH 32

/* What a parameter of the batch INSERT holds. */
struct bound {
	uint64_t v;   /* integer, bits of a double, or a string's address */
	size_t len;   /* a string's length */
	unsigned char kind; /* BOUND_* */
};

enum { BOUND_UNKNOWN, BOUND_INT, BOUND_DOUBLE, BOUND_TEXT, BOUND_NULL };

struct opmfu_sqlite_out {
	sqlite3 *db;
	char *path;
	sqlite3_stmt *ins_op, *ins_op_batch, *ins_mod, *ins_sum;
	int in_txn;
	struct bound batch_bound[OP_BATCH * OP_COLS];
};

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

static enum opmfu_status fail(struct opmfu_sqlite_out *o, const char *what, struct opmfu_err *err)
{
	/* SQLite says "disk I/O error" for most write faults; errno says which */
	int os_err = sqlite3_system_errno(o->db);
	if (os_err)
		return opmfu_err_set(err, OPMFU_ERR_SQLITE, "%s: %s: %s (%s)", o->path, what, sqlite3_errmsg(o->db),
				     strerror(os_err));
	return opmfu_err_set(err, OPMFU_ERR_SQLITE, "%s: %s: %s", o->path, what, sqlite3_errmsg(o->db));
}

static enum opmfu_status exec(struct opmfu_sqlite_out *o, const char *sql, const char *what,
			      struct opmfu_err *err)
{
	if (sqlite3_exec(o->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return fail(o, what, err);
	return OPMFU_OK;
}

/* INSERT INTO "OperatorMFU" VALUES (?,...),(?,...),... with OP_BATCH rows */
static int prepare_op_batch(struct opmfu_sqlite_out *o)
{
	static const char head[] = "INSERT INTO \"OperatorMFU\" VALUES ";
	static const char row[] = "(?,?,?,?,?,?,?,?,?,?,?,?,?)";
	char sql[sizeof(head) + OP_BATCH * sizeof(row)];
	size_t n = sizeof(head) - 1, i;

	memcpy(sql, head, n);
	for (i = 0; i < OP_BATCH; i++) {
		if (i)
			sql[n++] = ',';
		memcpy(sql + n, row, sizeof(row) - 1);
		n += sizeof(row) - 1;
	}
	sql[n] = '\0';
	return sqlite3_prepare_v2(o->db, sql, (int)n, &o->ins_op_batch, NULL);
}

enum opmfu_status opmfu_sqlite_out_open(struct opmfu_sqlite_out **out, const char *path,
					struct opmfu_err *err)
{
	struct opmfu_sqlite_out *o = opmfu_calloc(1, sizeof(*o));
	enum opmfu_status st;

	*out = NULL;
	if (!o || !(o->path = opmfu_strdup(path))) {
		opmfu_free(o);
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory opening %s", path);
	}
	/* NOMUTEX: only the writing thread uses this connection */
	if (sqlite3_open_v2(path, &o->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		st = o->db ? fail(o, "cannot open for writing", err)
			   : opmfu_err_set(err, OPMFU_ERR_SQLITE, "%s: cannot open for writing", path);
		goto bad;
	}
	sqlite3_busy_timeout(o->db, 5000);
	/* A new file gets 64 KiB pages: OperatorMFU is appended row by row and
	 * larger pages cut the B-tree work of the insert by about a fifth
	 * (measured on 391,503 rows). A file that exists keeps its page size:
	 * the pragma does nothing there. */
	if ((st = exec(o, "PRAGMA page_size = 65536", "cannot set the page size", err)))
		goto bad;
	if ((st = exec(o, "BEGIN IMMEDIATE", "cannot start a transaction", err)))
		goto bad;
	o->in_txn = 1;
	if ((st = exec(o, "DROP TABLE IF EXISTS \"OperatorMFU\"; DROP TABLE IF EXISTS \"ModuleMFU\";"
			  "DROP TABLE IF EXISTS \"OpmfuRankSummary\";",
		       "cannot replace the previous results", err)) ||
	    (st = exec(o, opmfu_sql_out_operator_mfu, "cannot create OperatorMFU", err)) ||
	    (st = exec(o, opmfu_sql_out_module_mfu, "cannot create ModuleMFU", err)) ||
	    (st = exec(o, opmfu_sql_out_rank_summary, "cannot create OpmfuRankSummary", err)))
		goto bad;
	if (sqlite3_prepare_v2(o->db, "INSERT INTO \"OperatorMFU\" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", -1,
			       &o->ins_op, NULL) != SQLITE_OK ||
	    prepare_op_batch(o) != SQLITE_OK ||
	    sqlite3_prepare_v2(o->db, "INSERT INTO \"ModuleMFU\" VALUES (?,?,?,?,?,?,?,?,?)", -1, &o->ins_mod,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(o->db, "INSERT INTO \"OpmfuRankSummary\" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &o->ins_sum, NULL) != SQLITE_OK) {
		st = fail(o, "cannot prepare inserts", err);
		goto bad;
	}
	*out = o;
	return OPMFU_OK;
bad:
	opmfu_sqlite_out_close(o);
	return st;
}

static void bind_sid(sqlite3_stmt *s, struct bound *b, int col, const struct opmfu_trace *t, uint32_t sid)
{
	const char *v = opmfu_strtab_str(&t->strs, sid);
	bind_str(s, b, col, v, v ? opmfu_strtab_len(&t->strs, sid) : 0);
}

static enum opmfu_status step(struct opmfu_sqlite_out *o, sqlite3_stmt *s, const char *what,
			      struct opmfu_err *err)
{
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return fail(o, what, err);
	return OPMFU_OK;
}

/* Binds one OperatorMFU row (R row r, entry m) to parameters base+1 .. base+OP_COLS. */
static void bind_op_row(sqlite3_stmt *s, struct bound *b, int base, int rank, const struct opmfu_trace *t,
			const struct opmfu_link *r, const struct opmfu_mfu_entry *m, const struct opmfu_flops_fact *rec)
{
	const struct opmfu_link *sl = &t->links[m->link];
	bind_int(s, b, base + 1, rank);
	bind_sid(s, b, base + 2, t, r->op_name);
	bind_sid(s, b, base + 3, t, r->k_name);
	bind_int(s, b, base + 4, r->k_start);
	bind_int(s, b, base + 5, r->k_end);
	bind_int(s, b, base + 6, r->k_end - r->k_start);
	bind_dbl(s, b, base + 7, opmfu_round(m->mfu, 4));
	bind_dbl(s, b, base + 8, opmfu_round(m->tput / 1e12, 2));
	bind_dbl(s, b, base + 9, opmfu_round(m->peak / 1e12, 2));
	bind_int(s, b, base + 10, rec->flops);
	bind_str(s, b, base + 11, opmfu_strtab_str(&t->strs, rec->name) + rec->name_off,
		 opmfu_strtab_len(&t->strs, rec->name) - rec->name_off);
	/* the reader gives shapes without their quotes */
	bind_sid(s, b, base + 12, t, sl->in_shapes);
	bind_sid(s, b, base + 13, t, sl->out_shapes);
}

enum opmfu_status opmfu_sqlite_out_ops(struct opmfu_sqlite_out *o, int rank, const struct opmfu_trace *t,
				       const struct opmfu_op_mfu *op, struct opmfu_err *err)
{
	size_t i, done = 0;
	/* whole batches first, then the rest one row at a time */
	size_t batched = op->stats.rows - op->stats.rows % OP_BATCH;
	enum opmfu_status st;

	/* a new rank's strings live elsewhere: forget what is bound */
	memset(o->batch_bound, 0, sizeof(o->batch_bound));
	for (i = 0; i < op->n_r; i++) {
		const struct opmfu_link *r = &t->links[op->r[i]];
		uint32_t e = opmfu_op_mfu_first(op, t, r);
		for (; e != OPMFU_NO_ENTRY; e = op->m[e].next, done++) {
			sqlite3_stmt *s = o->ins_op;
			if (done < batched) {
				int slot = (int)(done % OP_BATCH);
				s = o->ins_op_batch;
				bind_op_row(s, o->batch_bound, slot * OP_COLS, rank, t, r, &op->m[e],
					    opmfu_op_mfu_fact(op, &op->m[e]));
				if (slot < OP_BATCH - 1)
					continue;
			} else {
				bind_op_row(s, NULL, 0, rank, t, r, &op->m[e], opmfu_op_mfu_fact(op, &op->m[e]));
			}
			if ((st = step(o, s, "cannot insert into OperatorMFU", err)))
				return st;
		}
	}
	return OPMFU_OK;
}

enum opmfu_status opmfu_sqlite_out_modules(struct opmfu_sqlite_out *o, int rank, const struct opmfu_module_mfu *mod,
					   struct opmfu_err *err)
{
	sqlite3_stmt *s = o->ins_mod;
	enum opmfu_status st;
	size_t i;

	for (i = 0; i < mod->n_rows; i++) {
		const struct opmfu_module_row *r = &mod->rows[i];
		sqlite3_bind_int(s, 1, rank);
		sqlite3_bind_text(s, 2, r->parent, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 3, r->module, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 4, r->op_name, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 5, r->kernel_list, -1, SQLITE_STATIC);
		sqlite3_bind_double(s, 6, r->total_ns);
		sqlite3_bind_double(s, 7, r->avg_ns);
		sqlite3_bind_int64(s, 8, (sqlite3_int64)r->op_count);
		sqlite3_bind_text(s, 9, r->avg_mfu, -1, SQLITE_STATIC);
		if ((st = step(o, s, "cannot insert into ModuleMFU", err)))
			return st;
	}
	return OPMFU_OK;
}

enum opmfu_status opmfu_sqlite_out_drop_ops(struct opmfu_sqlite_out *o, int rank, struct opmfu_err *err)
{
	sqlite3_stmt *s = NULL;
	enum opmfu_status st = OPMFU_OK;

	if (sqlite3_prepare_v2(o->db, "DELETE FROM \"OperatorMFU\" WHERE \"rank_id\" = ?", -1, &s, NULL) != SQLITE_OK)
		return fail(o, "cannot remove a failed rank's rows from OperatorMFU", err);
	sqlite3_bind_int(s, 1, rank);
	if (sqlite3_step(s) != SQLITE_DONE)
		st = fail(o, "cannot remove a failed rank's rows from OperatorMFU", err);
	sqlite3_finalize(s);
	return st;
}

static void bind_peak(sqlite3_stmt *s, int col, double tflops)
{
	if (tflops > 0)
		sqlite3_bind_double(s, col, tflops);
	else
		sqlite3_bind_null(s, col);
}

enum opmfu_status opmfu_sqlite_out_summary(struct opmfu_sqlite_out *o, const struct opmfu_rank_report *rr,
					   struct opmfu_err *err)
{
	static const char *const state[] = { "ok", "no_mfu", "failed" };
	sqlite3_stmt *s = o->ins_sum;
	size_t dropped = 0;
	int i;

	for (i = 0; i < OPMFU_NDROP; i++)
		dropped += rr->drops[i];
	sqlite3_bind_int(s, 1, rr->rank);
	sqlite3_bind_text(s, 2, rr->db_path, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, state[rr->state], -1, SQLITE_STATIC);
	if (rr->reason[0])
		sqlite3_bind_text(s, 4, rr->reason, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, 4);
	bind_peak(s, 5, rr->peak_tflops[OPMFU_CLASS_FP16]);
	bind_peak(s, 6, rr->peak_tflops[OPMFU_CLASS_INT8]);
	bind_peak(s, 7, rr->peak_tflops[OPMFU_CLASS_FP8]);
	if (rr->peak_source[0])
		sqlite3_bind_text(s, 8, rr->peak_source, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, 8);
	sqlite3_bind_int64(s, 9, (sqlite3_int64)rr->kernels);
	sqlite3_bind_int64(s, 10, (sqlite3_int64)rr->recs_read);
	sqlite3_bind_int64(s, 11, (sqlite3_int64)rr->recs_used);
	sqlite3_bind_int64(s, 12, (sqlite3_int64)dropped);
	sqlite3_bind_int64(s, 13, (sqlite3_int64)rr->kernels_with_mfu);
	sqlite3_bind_int64(s, 14, (sqlite3_int64)rr->op_rows);
	sqlite3_bind_int64(s, 15, (sqlite3_int64)rr->module_rows);
	return step(o, s, "cannot insert into OpmfuRankSummary", err);
}

enum opmfu_status opmfu_sqlite_out_commit(struct opmfu_sqlite_out *o, struct opmfu_err *err)
{
	enum opmfu_status st = exec(o, "COMMIT", "cannot commit the results", err);
	if (st == OPMFU_OK)
		o->in_txn = 0;
	return st;
}

void opmfu_sqlite_out_close(struct opmfu_sqlite_out *o)
{
	if (!o)
		return;
	sqlite3_finalize(o->ins_op);
	sqlite3_finalize(o->ins_op_batch);
	sqlite3_finalize(o->ins_mod);
	sqlite3_finalize(o->ins_sum);
	if (o->db && o->in_txn)
		sqlite3_exec(o->db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(o->db);
	opmfu_free(o->path);
	opmfu_free(o);
}
