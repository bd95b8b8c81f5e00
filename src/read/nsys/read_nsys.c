/*
 * read_nsys.c - one Nsight Systems export into a struct opmfu_trace
 * (read/reader.h, SPEC 21). Each table is scanned once, names resolved
 * through StringIds by its primary key, into the Kineto reader's parse
 * (read/kineto/kineto.h): kernels, runtime calls (launches by
 * correlationId), copies and memsets, and NVTX ranges as the ops, steps and
 * modules their texts name (nsys_nvtx.c). kineto_link.c then links each
 * kernel to the innermost op range on its launching thread that holds its
 * launch (NVIDIA's projection rule) by one sort and sweep, and makes the
 * COMM, KERNEL and MEMCPY ranges and the collective calls.
 *
 * A rank is one (device, process) of its file (the probe's part, nsys.h):
 * a file holding several (nsys profiling a launcher) is several ranks,
 * each read for its own kernels, copies and memsets (its device and
 * process) and its process's runtime calls and NVTX ranges (docs/nsys.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/mem.h"
#include "base/sbuf.h"
#include "base/thread.h"
#include "read/kineto/kineto.h"
#include "read/kineto/kineto_parse.h"
#include "read/nsys/nsys.h"
#include "read/sqlite_in.h"

#define T_KERNEL "CUPTI_ACTIVITY_KIND_KERNEL"
#define T_RUNTIME "CUPTI_ACTIVITY_KIND_RUNTIME"
#define T_MEMCPY "CUPTI_ACTIVITY_KIND_MEMCPY"
#define T_MEMSET "CUPTI_ACTIVITY_KIND_MEMSET"
#define T_NVTX "NVTX_EVENTS"
#define T_GPU "TARGET_INFO_GPU"

/* NVTX_EVENTS.eventType (ENUM_NSYS_EVENT_TYPE): ranges with a start and an
 * end, C API (59 push/pop, 60 start/end) and NVTXT (70, 71); 75 names a
 * domain (text = its name) */
#define EV_PUSHPOP 59
#define EV_STARTEND 60
#define EV_T_PUSHPOP 70
#define EV_T_STARTEND 71
#define EV_DOMAIN 75

/* globalTid / globalPid: pid in bits 24..47, tid in bits 0..23 */
#define PID_OF(g) (((g) >> 24) & 0xFFFFFF)
#define TID_OF(g) ((g)&0xFFFFFF)

struct nsys_read {
	const char *path;
	sqlite3 *db;
	struct opmfu_sqlite_in in;
	struct kin_parse p;
	struct opmfu_err *err;
	int64_t device, pid;    /* the (device, process) read; -1: none (no kernels) */
	int has_pid;            /* the kernel table has globalPid */
	int n_parts;            /* (device, process) pairs in the file */
	size_t n_copies, n_nvtx, n_runtime;
	size_t n_launches;      /* runtime calls whose correlationId is a kernel's read (for the note) */
	int64_t kernel_ns;      /* the kernels' total time, end - start (for the note) */
	char version[48];       /* EXPORT_PRODUCT_VERSION, "" when unknown */
	uint32_t copy_sid[12];  /* copy_name's names interned (the last: Memset); 0: not yet */
	struct name_memo {      /* kernel names by StringIds id: looked up and interned once */
		struct name_slot { int64_t id; uint32_t sid; unsigned char used, comm; } *v;
		size_t cap, n;  /* cap: 0 or a power of two, at most half full */
		sqlite3_stmt *get; /* SELECT value FROM StringIds WHERE id = ?1 */
	} names;
};

static enum opmfu_status sql_fail(struct nsys_read *r, const char *doing)
{
	int code = sqlite3_extended_errcode(r->db);
	return opmfu_err_set(r->err, OPMFU_ERR_SQLITE, "%s: %s: %s%s", r->path, doing, sqlite3_errmsg(r->db),
			     opmfu_sqlite_in_hint(code));
}

static enum opmfu_status nomem(struct nsys_read *r, const char *doing)
{
	return opmfu_err_set(r->err, OPMFU_ERR_NOMEM, "%s: out of memory %s", r->path, doing);
}

/* an unreadable schema is a table that is not there: the reads that need it say so */
static int has_table(struct nsys_read *r, const char *name)
{
	return opmfu_sqlite_has_table(r->db, name) == 1;
}

/* Bit i set when table has column cols[i] (names compared exactly). */
static unsigned columns(struct nsys_read *r, const char *table, const char *const *cols)
{
	sqlite3_stmt *s = NULL;
	unsigned have = 0;
	if (sqlite3_prepare_v2(r->db, "SELECT name FROM pragma_table_info(?)", -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC) == SQLITE_OK)
		while (sqlite3_step(s) == SQLITE_ROW) {
			const char *name = (const char *)sqlite3_column_text(s, 0);
			unsigned i;
			for (i = 0; cols[i]; i++)
				if (name && !strcmp(name, cols[i]))
					have |= 1u << i;
		}
	sqlite3_finalize(s);
	return have;
}

/* The columns a table must have (the first `need` of cols): an error naming
 * the first missing one. *have gets all that are there. */
static enum opmfu_status need_columns(struct nsys_read *r, const char *table, const char *const *cols, unsigned need,
				      unsigned *have)
{
	unsigned i;
	*have = columns(r, table, cols);
	for (i = 0; i < need; i++)
		if (!(*have & (1u << i)))
			return opmfu_err_set(r->err, OPMFU_ERR_SCHEMA, "%s: table %s has no column %s (docs/nsys.md lists "
					     "what each nsys version writes)", r->path, table, cols[i]);
	return OPMFU_OK;
}

static enum opmfu_status prepare(struct nsys_read *r, const char *sql, sqlite3_stmt **s, const char *doing)
{
	if (sqlite3_prepare_v2(r->db, sql, -1, s, NULL) != SQLITE_OK)
		return sql_fail(r, doing);
	return OPMFU_OK;
}

/* An integer value: 0 on success, -1 when NULL or not integral. */
static int int_val(sqlite3_value *v, int64_t *out)
{
	int ty = sqlite3_value_type(v);
	if (ty == SQLITE_INTEGER) {
		*out = sqlite3_value_int64(v);
		return 0;
	}
	if (ty == SQLITE_FLOAT) {
		double d = sqlite3_value_double(v);
		if (!(d >= -9.2e18 && d <= 9.2e18) || d != (double)(int64_t)d)
			return -1;
		*out = (int64_t)d;
		return 0;
	}
	return -1;
}

/* A row's integer column, likewise. Through the column's value: one
 * sqlite3_column_* call a column instead of two (each enters and leaves the
 * connection: a fifth of the kernel and launch scans). The value is
 * "unprotected", which is safe here: a connection is one thread's. */
static int int_col(sqlite3_stmt *s, int i, int64_t *out)
{
	return int_val(sqlite3_column_value(s, i), out);
}

/* ---- the export's version ---- */

static void read_version(struct nsys_read *r)
{
	static const char *const tables[] = { "META_DATA_EXPORT", "EXPORT_META_DATA" };
	size_t k;
	for (k = 0; k < 2 && !r->version[0]; k++) {
		char sql[128];
		sqlite3_stmt *s = NULL;
		if (!has_table(r, tables[k]))
			continue;
		snprintf(sql, sizeof(sql), "SELECT value FROM %s WHERE name = 'EXPORT_PRODUCT_VERSION'", tables[k]);
		if (sqlite3_prepare_v2(r->db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW &&
		    sqlite3_column_text(s, 0))
			snprintf(r->version, sizeof(r->version), "%.40s", (const char *)sqlite3_column_text(s, 0));
		sqlite3_finalize(s);
	}
}

/* ---- kernels ---- */

/* kernel name: the full demangled one (as Kineto names kernels), else the
 * short one; either an id into StringIds (nsys >= 2021) or the text */
static const char *const kernel_cols[] = { "start", "end", "deviceId", "correlationId", "globalPid",
					   "demangledName", "shortName", NULL };

/* A kernel name's sid and whether it names a communication kernel. */
static uint32_t name_sid(struct nsys_read *r, const char *v, size_t n, unsigned char *comm)
{
	if (!v) {
		v = "";
		n = 0;
	}
	*comm = (unsigned char)opmfu_kineto_is_comm(v, n);
	return opmfu_strtab_intern(&r->p.t->strs, v, n);
}

/* The slot of id in the memo (empty when not there yet); the memo has room. */
static struct name_slot *memo_slot(struct name_memo *m, int64_t id)
{
	size_t h = (size_t)((uint64_t)id * 0x9E3779B97F4A7C15ull >> 20) & (m->cap - 1);
	while (m->v[h].used && m->v[h].id != id)
		h = (h + 1) & (m->cap - 1);
	return &m->v[h];
}

/* Doubles the memo (first: 64 slots). 0, or -1 when out of memory. */
static int memo_grow(struct name_memo *m)
{
	struct name_memo bigger = *m;
	size_t i;
	bigger.cap = m->cap ? m->cap * 2 : 64;
	if (!(bigger.v = opmfu_calloc(bigger.cap, sizeof(*bigger.v))))
		return -1;
	for (i = 0; i < m->cap; i++)
		if (m->v[i].used)
			*memo_slot(&bigger, m->v[i].id) = m->v[i];
	opmfu_free(m->v);
	*m = bigger;
	return 0;
}

/*
 * The kernel name of column i: its text, or (nsys >= 2021) the StringIds
 * row its id names, NULL's text "" when there is none (a LEFT JOIN's
 * answer). Ids are few and rows many: each id is looked up and interned
 * once, instead of a join and a hash of the whole name per kernel. 0 when
 * out of memory (*st says what else failed).
 */
static uint32_t kernel_name(struct nsys_read *r, sqlite3_stmt *s, int i, unsigned char *comm, enum opmfu_status *st)
{
	struct name_memo *m = &r->names;
	struct name_slot *slot;
	sqlite3_value *v = sqlite3_column_value(s, i);
	int64_t id;
	int rc;

	if (sqlite3_value_type(v) == SQLITE_TEXT)
		return name_sid(r, (const char *)sqlite3_value_text(v), (size_t)sqlite3_value_bytes(v), comm);
	if (int_val(v, &id))
		return name_sid(r, NULL, 0, comm); /* NULL, a blob or a fraction: no id */
	if (m->cap && (slot = memo_slot(m, id))->used) {
		*comm = slot->comm;
		return slot->sid;
	}
	if ((m->n + 1) * 2 > m->cap && memo_grow(m))
		return 0;
	if (!m->get && sqlite3_prepare_v2(r->db, "SELECT value FROM StringIds WHERE id = ?1", -1, &m->get, NULL)) {
		*st = sql_fail(r, "reading StringIds");
		return 0;
	}
	sqlite3_reset(m->get);
	sqlite3_bind_int64(m->get, 1, id);
	rc = sqlite3_step(m->get);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		*st = sql_fail(r, "reading StringIds");
		return 0;
	}
	slot = memo_slot(m, id);
	slot->sid = rc == SQLITE_ROW ? name_sid(r, (const char *)sqlite3_column_text(m->get, 0),
						(size_t)sqlite3_column_bytes(m->get, 0), &slot->comm)
				     : name_sid(r, NULL, 0, &slot->comm);
	if (!slot->sid)
		return 0;
	slot->id = id;
	slot->used = 1;
	m->n++;
	*comm = slot->comm;
	return slot->sid;
}

static enum opmfu_status read_kernels(struct nsys_read *r)
{
	unsigned have;
	char sql[640];
	const char *name;
	sqlite3_stmt *s = NULL;
	enum opmfu_status st;
	int rc;

	if ((st = need_columns(r, T_KERNEL, kernel_cols, 4, &have)))
		return st;
	if (!(have & (3u << 5)))
		return opmfu_err_set(r->err, OPMFU_ERR_SCHEMA, "%s: table " T_KERNEL " has no column demangledName "
				     "or shortName (the kernel's name)", r->path);
	r->has_pid = !!(have & (1u << 4));
	name = have & (1u << 5) ? "demangledName" : "shortName";
	if (r->device < 0)
		return OPMFU_OK; /* the probe found no kernel of a known (device, process) */
	snprintf(sql, sizeof(sql), "SELECT start, end, correlationId, %s FROM " T_KERNEL " WHERE deviceId = ?1%s", name,
		 r->has_pid ? " AND ((globalPid >> 24) & 16777215) = ?2" : "");
	if ((st = prepare(r, sql, &s, "reading " T_KERNEL)))
		return st;
	sqlite3_bind_int64(s, 1, r->device);
	sqlite3_bind_int64(s, 2, r->pid);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct kin_kernel k;
		unsigned char comm = 0;
		memset(&k, 0, sizeof(k));
		k.ext = INT64_MIN;
		k.thread = KIN_NONE;
		k.op = KIN_NONE;
		if (int_col(s, 0, &k.start) || int_col(s, 1, &k.end) || k.end < k.start) {
			r->p.n_bad++;
			continue;
		}
		if (int_col(s, 2, &k.corr))
			k.corr = INT64_MIN;
		if (!(k.name = kernel_name(r, s, 3, &comm, &st)))
			break;
		if (comm)
			k.comm = k.name;
		if (OPMFU_GROW(r->p.kernels, r->p.cap_kernels, r->p.n_kernels + 1))
			break;
		r->p.kernels[r->p.n_kernels++] = k;
	}
	sqlite3_finalize(s);
	if (st)
		return st;
	if (rc == SQLITE_ROW)
		return nomem(r, "reading " T_KERNEL);
	return rc == SQLITE_DONE ? OPMFU_OK : sql_fail(r, "reading " T_KERNEL);
}

/* ---- launches ---- */

static const char *const runtime_cols[] = { "start", "correlationId", "globalTid", NULL };

static enum opmfu_status read_runtime(struct nsys_read *r)
{
	unsigned have;
	sqlite3_stmt *s = NULL;
	enum opmfu_status st;
	int rc;

	if (!has_table(r, T_RUNTIME))
		return OPMFU_OK;
	if ((st = need_columns(r, T_RUNTIME, runtime_cols, 3, &have)) ||
	    (st = prepare(r, "SELECT start, correlationId, globalTid FROM " T_RUNTIME
			     " WHERE correlationId IS NOT NULL AND (?1 < 0 OR ((globalTid >> 24) & 16777215) = ?1)",
			  &s, "reading " T_RUNTIME)))
		return st;
	sqlite3_bind_int64(s, 1, r->pid);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct kin_launch l;
		int64_t g;
		if (int_col(s, 0, &l.ts) || int_col(s, 1, &l.corr) || int_col(s, 2, &g)) {
			r->p.n_bad++;
			continue;
		}
		if (opmfu_kin_thread(&r->p, PID_OF(g), TID_OF(g), &l.thread) ||
		    OPMFU_GROW(r->p.launches, r->p.cap_launches, r->p.n_launches + 1))
			break;
		r->p.launches[r->p.n_launches++] = l;
		r->n_runtime++;
	}
	sqlite3_finalize(s);
	if (rc == SQLITE_ROW)
		return nomem(r, "reading " T_RUNTIME);
	return rc == SQLITE_DONE ? OPMFU_OK : sql_fail(r, "reading " T_RUNTIME);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* For the note: the kernels' total time and the launches, the runtime calls
 * read whose correlationId is a kernel's. Both tables come in correlationId
 * order as CUDA hands the ids out: then one merge walk, without a sort;
 * else a sort and one search a call. Returns 0, or -1 when out of memory. */
static int count_launches(struct nsys_read *r)
{
	const struct kin_launch *l = r->p.launches;
	int64_t *corr;
	size_t i, j, n = 0;
	int sorted = 1;

	r->kernel_ns = 0;
	r->n_launches = 0;
	for (i = 0; i < r->p.n_kernels; i++)
		r->kernel_ns += r->p.kernels[i].end - r->p.kernels[i].start;
	if (r->p.n_kernels == 0 || r->p.n_launches == 0)
		return 0;
	if (!(corr = opmfu_malloc(r->p.n_kernels * sizeof(*corr))))
		return -1;
	for (i = 0; i < r->p.n_kernels; i++)
		if (r->p.kernels[i].corr != INT64_MIN) {
			corr[n++] = r->p.kernels[i].corr;
			sorted &= n < 2 || corr[n - 2] <= corr[n - 1];
		}
	if (!sorted)
		qsort(corr, n, sizeof(*corr), cmp_i64);
	for (i = 1; i < r->p.n_launches && l[i - 1].corr <= l[i].corr; i++)
		;
	if (i == r->p.n_launches) {
		for (i = j = 0; i < r->p.n_launches; i++) {
			while (j < n && corr[j] < l[i].corr)
				j++;
			r->n_launches += j < n && corr[j] == l[i].corr;
		}
	} else {
		for (i = 0; i < r->p.n_launches; i++)
			if (n && bsearch(&l[i].corr, corr, n, sizeof(*corr), cmp_i64))
				r->n_launches++;
	}
	opmfu_free(corr);
	return 0;
}

/* ---- copies and memsets ---- */

/* The sid of a copy's name: CUPTI_ActivityMemcpyKind (ENUM_CUDA_MEMCPY_OPER)
 * named as Kineto does, or Memset; interned once. 0 when out of memory. */
static uint32_t copy_name(struct nsys_read *r, int64_t kind, int memset_)
{
	static const char *const names[] = { "Memcpy",	    "Memcpy HtoD", "Memcpy DtoH", "Memcpy HtoA",
					     "Memcpy AtoH", "Memcpy AtoA", "Memcpy AtoD", "Memcpy DtoA",
					     "Memcpy DtoD", "Memcpy HtoH", "Memcpy PtoP", "Memset" };
	size_t k = memset_ ? 11 : kind >= 0 && kind < 11 ? (size_t)kind : 0;
	if (!r->copy_sid[k])
		r->copy_sid[k] = opmfu_strtab_intern(&r->p.t->strs, names[k], strlen(names[k]));
	return r->copy_sid[k];
}

static const char *const copy_cols[] = { "start", "end", "deviceId", "correlationId", "globalPid", "copyKind", NULL };

static enum opmfu_status read_copies(struct nsys_read *r, const char *table, int memset_)
{
	unsigned have;
	char sql[400];
	sqlite3_stmt *s = NULL;
	enum opmfu_status st;
	int rc;

	if (!has_table(r, table))
		return OPMFU_OK;
	if ((st = need_columns(r, table, copy_cols, 4, &have)))
		return st;
	snprintf(sql, sizeof(sql), "SELECT start, end, correlationId, %s FROM %s WHERE deviceId = ?1%s",
		 !memset_ && (have & (1u << 5)) ? "copyKind" : "0", table,
		 r->has_pid && (have & (1u << 4)) ? " AND ((globalPid >> 24) & 16777215) = ?2" : "");
	if ((st = prepare(r, sql, &s, table)))
		return st;
	sqlite3_bind_int64(s, 1, r->device);
	sqlite3_bind_int64(s, 2, r->pid);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct opmfu_range c = { 0, 0, INT64_MIN, 0, 0 };
		int64_t kind = 0;
		if (int_col(s, 0, &c.start) || int_col(s, 1, &c.end) || c.end < c.start) {
			r->p.n_bad++;
			continue;
		}
		if (int_col(s, 2, &c.value))
			c.value = INT64_MIN;
		(void)int_col(s, 3, &kind);
		if (!(c.name = copy_name(r, kind, memset_)) || opmfu_ranges_add(&r->p.copies, &c))
			break;
		r->n_copies++;
	}
	sqlite3_finalize(s);
	if (rc == SQLITE_ROW)
		return nomem(r, table);
	return rc == SQLITE_DONE ? OPMFU_OK : sql_fail(r, table);
}

/* ---- NVTX ---- */

/*
 * The NVTX ranges are read apart from the rank's parse, into strings and
 * threads of their own, so that with two threads a second connection reads
 * them while the first reads kernels, launches and copies (the sqlite3
 * floor of SPEC 24 is one thread). nvtx_take then interns the strings and
 * numbers the threads in the order the scan met them, after the kernels'
 * and launches': the sids and thread indices one pass gives, so the output
 * does not depend on -j.
 */
struct nvtx_read {
	const char *path;
	sqlite3 *db;             /* the helper's own connection, or the rank's */
	int64_t pid;             /* the process read; -1: all */
	char sql[600];
	struct opmfu_strtab strs; /* op, shape and module names; 0 as an op's shapes: not known */
	uint32_t *cut;           /* the sids of strs whose string was cut, ascending */
	size_t n_cut, cap_cut;
	struct kin_op *ops;      /* name, shapes: sids of strs; thread: index into gtid */
	size_t n_ops, cap_ops;
	struct kin_step *steps;
	size_t n_steps, cap_steps;
	struct opmfu_ranges mods; /* names: sids of strs */
	int64_t *gtid;           /* globalTid by thread index, in the order met */
	size_t n_threads, cap_threads;
	uint32_t last_thread;    /* the index nvtx_thread gave last (rows come in runs of a thread) */
	struct opmfu_idtab thread_tab;
	size_t n_rows, n_bad;
	int64_t nccl_domain;     /* domainId of the NCCL domain; -1: none */
	int nccl_known;          /* nccl_domain looked up */
	struct opmfu_err err;
	enum opmfu_status st;
};

static const char *const nvtx_cols[] = { "start", "end", "eventType", "globalTid", "text", "textId", "domainId",
					 NULL };

static enum opmfu_status nvtx_fail(struct nvtx_read *v, const char *doing)
{
	int code = sqlite3_extended_errcode(v->db);
	return opmfu_err_set(&v->err, OPMFU_ERR_SQLITE, "%s: %s: %s%s", v->path, doing, sqlite3_errmsg(v->db),
			     opmfu_sqlite_in_hint(code));
}

static uint32_t nvtx_intern(struct nvtx_read *v, const char *s, size_t n)
{
	size_t cut = v->strs.n_cut;
	uint32_t sid = opmfu_strtab_intern(&v->strs, s, n);
	if (sid && v->strs.n_cut != cut) {
		if (OPMFU_GROW(v->cut, v->cap_cut, v->n_cut + 1))
			return 0;
		v->cut[v->n_cut++] = sid;
	}
	return sid;
}

struct gtid_probe {
	const struct nvtx_read *v;
	int64_t g;
};

static int gtid_eq(const void *probe, uint32_t id)
{
	const struct gtid_probe *q = probe;
	return q->v->gtid[id] == q->g;
}

/* The index of thread g among those met; 0, or -1 when out of memory. */
static int nvtx_thread(struct nvtx_read *v, int64_t g, uint32_t *out)
{
	struct gtid_probe q = { v, g };
	uint32_t id;
	if (v->n_threads && v->gtid[v->last_thread] == g) {
		*out = v->last_thread;
		return 0;
	}
	if (v->n_threads >= KIN_NONE - 1 || OPMFU_GROW(v->gtid, v->cap_threads, v->n_threads + 1))
		return -1;
	id = opmfu_idtab_get(&v->thread_tab, opmfu_mix64((uint64_t)g), gtid_eq, &q, (uint32_t)v->n_threads);
	if (id == OPMFU_IDTAB_NONE)
		return -1;
	if (id == v->n_threads)
		v->gtid[v->n_threads++] = g;
	*out = v->last_thread = id;
	return 0;
}

/* A scan of the whole table: made only once a range of a domain other
 * than the default one asks (PyTorch's are all in the default). */
static void find_nccl_domain(struct nvtx_read *v)
{
	sqlite3_stmt *s = NULL;
	v->nccl_known = 1;
	v->nccl_domain = -1;
	if (sqlite3_prepare_v2(v->db, "SELECT domainId FROM " T_NVTX " WHERE eventType = 75 AND text = 'NCCL'", -1,
			       &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW)
		(void)int_col(s, 0, &v->nccl_domain);
	sqlite3_finalize(s);
}

/* One NVTX range on thread th: an op, a step, a module, or nothing. */
static int add_range(struct nvtx_read *v, int64_t start, int64_t end, uint32_t th, int nccl, const char *text,
		     size_t n, struct sbuf *shapes)
{
	struct nsys_text x;
	struct kin_op op;

	if (opmfu_nsys_parse_text(text, n, &x, shapes))
		return -1;
	if (x.kind == NSYS_TEXT_STEP) {
		if (OPMFU_GROW(v->steps, v->cap_steps, v->n_steps + 1))
			return -1;
		v->steps[v->n_steps++] = (struct kin_step){ start, end, x.step, 0 };
		return 0;
	}
	if (x.kind == NSYS_TEXT_MODULE) {
		size_t k = strlen("nn.Module: ");
		struct opmfu_range m = { start, end, 0, 0, 0 };
		if (!(m.name = nvtx_intern(v, x.name + k, x.name_len - k)))
			return -1;
		return opmfu_ranges_add(&v->mods, &m);
	}
	if (x.kind != NSYS_TEXT_OP && !nccl)
		return 0;
	memset(&op, 0, sizeof(op));
	op.start = start;
	op.end = end;
	op.ext = INT64_MIN;
	op.thread = th;
	op.link_op = KIN_NONE;
	if (!(op.name = nvtx_intern(v, x.name_len ? x.name : text, x.name_len ? x.name_len : n)))
		return -1;
	if (x.shapes_ok && !(op.shapes = nvtx_intern(v, shapes->buf, shapes->len)))
		return -1;
	if (OPMFU_GROW(v->ops, v->cap_ops, v->n_ops + 1))
		return -1;
	v->ops[v->n_ops++] = op;
	return 0;
}

/* The scan, on v->db. */
static enum opmfu_status nvtx_scan(struct nvtx_read *v)
{
	sqlite3_stmt *s = NULL;
	struct sbuf shapes;
	int rc;

	if (sqlite3_prepare_v2(v->db, v->sql, -1, &s, NULL) != SQLITE_OK)
		return nvtx_fail(v, "reading " T_NVTX);
	sqlite3_bind_int64(s, 1, v->pid);
	sbuf_init(&shapes);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t start, end, g, dom = -1;
		uint32_t th;
		sqlite3_value *tv = sqlite3_column_value(s, 3);
		const char *text = (const char *)sqlite3_value_text(tv);
		v->n_rows++;
		if (int_col(s, 0, &start) || int_col(s, 1, &end) || end < start || int_col(s, 2, &g)) {
			v->n_bad++; /* a range never closed has no end */
			continue;
		}
		if (int_col(s, 4, &dom))
			dom = 0;
		if (dom != 0 && !v->nccl_known)
			find_nccl_domain(v);
		/* PyTorch writes to the default domain (0); other domains (CCCL's
		 * "cub::DeviceReduce::Sum") are libraries' own, not ops, NCCL's
		 * excepted */
		if (!text || (dom != 0 && dom != v->nccl_domain))
			continue;
		if (nvtx_thread(v, g, &th) || add_range(v, start, end, th, dom != 0 && dom == v->nccl_domain, text,
							 (size_t)sqlite3_value_bytes(tv), &shapes))
			break;
	}
	sbuf_release(&shapes);
	sqlite3_finalize(s);
	if (rc == SQLITE_ROW)
		return opmfu_err_set(&v->err, OPMFU_ERR_NOMEM, "%s: out of memory reading " T_NVTX, v->path);
	return rc == SQLITE_DONE ? OPMFU_OK : nvtx_fail(v, "reading " T_NVTX);
}

/* The helper thread: its own connection, closed when done (the rank's
 * checks that the file did not change). */
static void *nvtx_run(void *arg)
{
	struct nvtx_read *v = arg;
	struct opmfu_sqlite_in in;
	v->st = opmfu_sqlite_in_open(v->path, &v->db, &in, &v->err);
	if (!v->st)
		v->st = nvtx_scan(v);
	sqlite3_close(v->db);
	v->db = NULL;
	return NULL;
}

/*
 * Whether the rank has NVTX ranges to read: 1 with v ready to scan them, 0
 * when there is no table, -1 when it lacks a column (v->st, v->err say so:
 * reported after the kernels', launches' and copies' own failures, where
 * one pass meets it).
 */
static int nvtx_init(struct nsys_read *r, struct nvtx_read *v)
{
	struct opmfu_err *err = r->err;
	unsigned have;

	memset(v, 0, sizeof(*v));
	v->path = r->path;
	v->pid = r->pid;
	v->nccl_domain = -1;
	opmfu_strtab_init(&v->strs);
	if (!has_table(r, T_NVTX))
		return 0;
	r->err = &v->err;
	v->st = need_columns(r, T_NVTX, nvtx_cols, 5, &have);
	r->err = err;
	if (v->st)
		return -1;
	/* registered strings (textId) where the text is not given inline */
	snprintf(v->sql, sizeof(v->sql),
		 "SELECT n.start, n.end, n.globalTid, %s, %s FROM " T_NVTX " n%s WHERE n.eventType IN (%d, %d, %d, %d) "
		 "AND (?1 < 0 OR ((n.globalTid >> 24) & 16777215) = ?1)",
		 have & (1u << 5) ? "COALESCE(n.text, s.value)" : "n.text", have & (1u << 6) ? "n.domainId" : "-1",
		 have & (1u << 5) ? " LEFT JOIN StringIds s ON s.id = n.textId" : "", EV_PUSHPOP, EV_STARTEND,
		 EV_T_PUSHPOP, EV_T_STARTEND);
	return 1;
}

static void nvtx_release(struct nvtx_read *v)
{
	opmfu_strtab_release(&v->strs);
	opmfu_free(v->cut);
	opmfu_free(v->ops);
	opmfu_free(v->steps);
	opmfu_ranges_release(&v->mods);
	opmfu_free(v->gtid);
	opmfu_idtab_release(&v->thread_tab);
}

/* Moves what v read into the rank's parse, its names interned and its
 * threads numbered there in the order v met them. */
static enum opmfu_status nvtx_take(struct nsys_read *r, struct nvtx_read *v)
{
	struct kin_parse *p = &r->p;
	struct opmfu_strtab *strs = &p->t->strs;
	uint32_t *sid = opmfu_calloc(v->strs.n ? v->strs.n : 1, sizeof(*sid));
	uint32_t *th = opmfu_calloc(v->n_threads ? v->n_threads : 1, sizeof(*th));
	size_t i, c = 0;

	if (!sid || !th)
		goto fail;
	sid[0] = p->t->shape_unknown;
	for (i = 1; i < v->strs.n; i++) {
		size_t n0 = strs->n;
		if (!(sid[i] = opmfu_strtab_intern(strs, opmfu_strtab_str(&v->strs, (uint32_t)i),
						   opmfu_strtab_len(&v->strs, (uint32_t)i))))
			goto fail;
		/* a string cut in v is one cut here, counted where it is new */
		if (c < v->n_cut && v->cut[c] == i && strs->n > n0)
			strs->n_cut++;
		c += c < v->n_cut && v->cut[c] == i;
	}
	for (i = 0; i < v->n_threads; i++)
		if (opmfu_kin_thread(p, PID_OF(v->gtid[i]), TID_OF(v->gtid[i]), &th[i]))
			goto fail;
	for (i = 0; i < v->n_ops; i++) {
		v->ops[i].name = sid[v->ops[i].name];
		v->ops[i].shapes = sid[v->ops[i].shapes];
		v->ops[i].thread = th[v->ops[i].thread];
	}
	for (i = 0; i < v->mods.n; i++)
		v->mods.v[i].name = sid[v->mods.v[i].name];
	opmfu_free(sid);
	opmfu_free(th);
	/* nothing else makes ops, steps or modules in this format */
	opmfu_free(p->ops);
	p->ops = v->ops;
	p->n_ops = v->n_ops;
	p->cap_ops = v->cap_ops;
	v->ops = NULL;
	opmfu_free(p->steps);
	p->steps = v->steps;
	p->n_steps = v->n_steps;
	p->cap_steps = v->cap_steps;
	v->steps = NULL;
	opmfu_ranges_release(&p->mods);
	p->mods = v->mods;
	memset(&v->mods, 0, sizeof(v->mods));
	r->n_nvtx = v->n_rows;
	p->n_bad += v->n_bad;
	return OPMFU_OK;
fail:
	opmfu_free(sid);
	opmfu_free(th);
	return nomem(r, "reading " T_NVTX);
}

/* ---- dtypes from kernel names ---- */

/*
 * PyTorch's NVTX texts carry no dtypes, so an op's dtype is the one its
 * first kernel's name implies (opmfu_nsys_kernel_dtype), the same on every
 * link of the op (t->shape_scope is per op); none when no kernel names one.
 * A kernel name is looked at once (memo by its sid): ops are many, kernel
 * names few, and the rules search the whole name.
 */
static int kernel_dtypes(struct nsys_read *r)
{
	struct opmfu_trace *t = r->p.t;
	uint32_t *of = NULL;
	unsigned char *memo = NULL; /* by kernel name sid: 0 not yet, MEMO_NONE no dtype, else 1 + its names[] index */
	const char *names[8];
	uint32_t idx[8];
	size_t n_names = 0, i;
	enum { MEMO_NONE = 255 };

	if (!t->n_compute)
		return 0;
	of = opmfu_calloc(t->n_ops ? t->n_ops : 1, sizeof(*of));
	memo = opmfu_calloc(t->strs.n ? t->strs.n : 1, 1);
	if (!of || !memo)
		goto fail;
	for (i = 0; i < t->n_compute; i++) {
		struct opmfu_link *l = &t->links[i];
		const char *dt;
		size_t k;
		if (of[l->op])
			continue;
		if (l->k_name < t->strs.n && memo[l->k_name]) {
			if (memo[l->k_name] != MEMO_NONE)
				of[l->op] = idx[memo[l->k_name] - 1];
			continue;
		}
		dt = opmfu_nsys_kernel_dtype(opmfu_strtab_str(&t->strs, l->k_name), opmfu_strtab_len(&t->strs, l->k_name));
		if (!dt) {
			if (l->k_name < t->strs.n)
				memo[l->k_name] = MEMO_NONE;
			continue;
		}
		for (k = 0; k < n_names && strcmp(names[k], dt); k++)
			;
		if (k == n_names) {
			struct opmfu_dtype d;
			uint32_t sid = opmfu_strtab_intern(&t->strs, dt, strlen(dt));
			if (!sid || n_names == 8)
				goto fail;
			opmfu_kineto_dtype(dt, strlen(dt), sid, &d);
			if (opmfu_trace_add_dtype(t, &d, &idx[k]))
				goto fail;
			names[n_names++] = dt;
		}
		if (l->k_name < t->strs.n)
			memo[l->k_name] = (unsigned char)(k + 1);
		of[l->op] = idx[k];
	}
	for (i = 0; i < t->n_compute; i++)
		t->links[i].dtype = of[t->links[i].op];
	opmfu_free(memo);
	opmfu_free(of);
	return 0;
fail:
	opmfu_free(memo);
	opmfu_free(of);
	return -1;
}

/* ---- the GPU ---- */

static enum opmfu_status set_device(struct nsys_read *r, struct opmfu_device *dev)
{
	sqlite3_stmt *s = NULL;
	char name[64] = "";
	int rows = 0;

	if (!has_table(r, T_GPU)) {
		snprintf(dev->no_peak, sizeof(dev->no_peak),
			 "%s has no " T_GPU " table (nsys %s writes none): name the GPU with --chip NAME", r->path,
			 r->version[0] ? r->version : "of this version");
		return OPMFU_OK;
	}
	if (sqlite3_prepare_v2(r->db, "SELECT id, name FROM " T_GPU " ORDER BY id", -1, &s, NULL) != SQLITE_OK) {
		sqlite3_finalize(s);
		snprintf(dev->no_peak, sizeof(dev->no_peak), "%s: table " T_GPU " has no columns id and name: name the "
			 "GPU with --chip NAME", r->path);
		return OPMFU_OK;
	}
	/* the device the kernels ran on, else the one name all rows give */
	while (sqlite3_step(s) == SQLITE_ROW) {
		int64_t id = -1;
		const char *nm = (const char *)sqlite3_column_text(s, 1);
		(void)int_col(s, 0, &id);
		if (!nm || !nm[0])
			continue;
		if (rows++ == 0 || id == r->device) {
			snprintf(name, sizeof(name), "%s", nm);
			if (id == r->device)
				break;
		}
	}
	sqlite3_finalize(s);
	if (!name[0]) {
		snprintf(dev->no_peak, sizeof(dev->no_peak), "%s: " T_GPU " names no GPU: name it with --chip NAME",
			 r->path);
		return OPMFU_OK;
	}
	if (!(dev->path = opmfu_strdup(r->path)))
		return nomem(r, "reading " T_GPU);
	snprintf(dev->chip, sizeof(dev->chip), "%s", name);
	return OPMFU_OK;
}

/* ---- the rank ---- */

static void set_note(struct nsys_read *r, const struct kin_counts *c)
{
	struct opmfu_trace *t = r->p.t;
	size_t k = c->by_corr + c->by_ext + c->by_flow + c->fixed + c->none, o;
	char ver[64] = "";

	if (r->version[0])
		snprintf(ver, sizeof(ver), "nsys %s; ", r->version);
	if (r->p.n_kernels == 0) {
		snprintf(t->note, sizeof(t->note),
			 "%s holds no GPU kernels (%s%zu runtime call%s, %zu NVTX range%s): profile with nsys "
			 "--trace=cuda to analyse it",
			 r->path, ver, r->n_runtime, r->n_runtime == 1 ? "" : "s", r->n_nvtx, r->n_nvtx == 1 ? "" : "s");
		return;
	}
	o = (size_t)snprintf(t->note, sizeof(t->note),
			     "%s%zu GPU kernel%s on device %lld (%lld ns), %zu launch%s: %zu in an NVTX op range, %zu in "
			     "none; %zu communication kernel%s (%zu in a range); %zu cop%s and memset%s; %zu module "
			     "range%s; %zu step%s",
			     ver, k, k == 1 ? "" : "s", (long long)r->device, (long long)r->kernel_ns, r->n_launches,
			     r->n_launches == 1 ? "" : "es", c->by_corr + c->by_flow + c->fixed, c->none,
			     c->comm, c->comm == 1 ? "" : "s", c->comm_linked, r->n_copies, r->n_copies == 1 ? "y" : "ies",
			     "s", t->mods.n, t->mods.n == 1 ? "" : "s", t->steps.n, t->steps.n == 1 ? "" : "s");
	if (o < sizeof(t->note) && t->device.chip[0])
		o += (size_t)snprintf(t->note + o, sizeof(t->note) - o, "; GPU \"%s\"", t->device.chip);
	if (o < sizeof(t->note) && r->n_parts > 1)
		snprintf(t->note + o, sizeof(t->note) - o, "; process %lld, one of %d (device, process) pairs in the file",
			 (long long)r->pid, r->n_parts);
}

static enum opmfu_status read_rank(const struct opmfu_rank_input *in, struct opmfu_trace *t,
				   const struct opmfu_read_opts *o, struct opmfu_err *err)
{
	const char *path = in->path;
	struct nsys_read r;
	struct nvtx_read v;
	struct kin_counts c;
	pthread_t th;
	int nvtx = 0, started = 0;
	enum opmfu_status st;

	memset(&r, 0, sizeof(r));
	memset(&v, 0, sizeof(v));
	r.path = path;
	r.err = err;
	r.device = r.pid = -1;
	if (in->n_parts > 0) {
		r.device = in->part[0];
		r.pid = in->part[1];
		r.n_parts = in->n_parts;
	}
	t->why_no_links = "no GPU kernel was launched inside a PyTorch op's NVTX range (profile with "
			  "torch.autograd.profiler.emit_nvtx() or nsys --pytorch=autograd-shapes-nvtx)";
	t->why_no_records = "an Nsight Systems export holds no mfu_flops records: its FLOPs come from the ops' "
			    "shapes in their NVTX texts (emit_nvtx(record_shapes=True))";
	if ((st = opmfu_kin_parse_init(&r.p, t, path, err)))
		return st;
	st = opmfu_sqlite_in_open(path, &r.db, &r.in, err);
	if (!st && !has_table(&r, "StringIds"))
		st = opmfu_err_set(err, OPMFU_ERR_SCHEMA, "%s: not an Nsight Systems export: no table StringIds", path);
	if (!st) {
		read_version(&r);
		/* NVTX_EVENTS is the largest scan: on a second thread when the
		 * caller gives one */
		nvtx = nvtx_init(&r, &v);
		if (nvtx == 1 && o && o->threads > 1) {
			/* reserved here: grown on the NVTX thread the array would come from
			 * that thread's own heap, which the rank's later stages cannot
			 * reuse. A hint: may fail */
			(void)OPMFU_RESERVE(v.ops, v.cap_ops, opmfu_sqlite_rows_hint(r.db, &r.in, T_NVTX));
			started = opmfu_thread_start(&th, nvtx_run, &v) == 0;
		}
	}
	if (!st && has_table(&r, T_KERNEL))
		st = read_kernels(&r);
	if (!st)
		st = read_runtime(&r);
	if (!st && count_launches(&r))
		st = nomem(&r, "counting launches");
	if (!st && r.device >= 0 && !(st = read_copies(&r, T_MEMCPY, 0)))
		st = read_copies(&r, T_MEMSET, 1);
	if (started)
		pthread_join(th, NULL);
	else if (!st && nvtx == 1) {
		v.db = r.db;
		v.st = nvtx_scan(&v);
		v.db = NULL;
	}
	if (!st && v.st) {
		*err = v.err;
		st = v.st;
	}
	if (!st && nvtx == 1)
		st = nvtx_take(&r, &v);
	nvtx_release(&v);
	if (!st)
		st = opmfu_kin_link(&r.p, &c, err);
	if (!st && kernel_dtypes(&r))
		st = nomem(&r, "giving ops their dtypes");
	if (!st && o && o->on_links)
		o->on_links(o->ctx, t);
	if (!st)
		st = opmfu_kin_ranges(&r.p, err);
	if (!st)
		st = set_device(&r, &t->device);
	if (!st)
		st = opmfu_sqlite_in_check(path, &r.in, err);
	if (!st) {
		t->n_bad_rows += r.p.n_bad;
		set_note(&r, &c);
		/* like a Kineto trace without kernels: a rank with no MFU that
		 * says why, not a failed one */
		if (r.p.n_kernels == 0)
			t->why_no_links = t->note;
	}
	sqlite3_finalize(r.names.get);
	opmfu_free(r.names.v);
	if (r.db)
		sqlite3_close(r.db);
	opmfu_kin_parse_release(&r.p);
	return st;
}

const struct opmfu_reader opmfu_reader_nsys = {
	"nsys", "Nsight Systems SQLite exports (*.sqlite)", NULL, opmfu_nsys_probe_file, read_rank, opmfu_nsys_file_name
};
