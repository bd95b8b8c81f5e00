/*
 * fuzz_nsys_db.c - a whole rank from an Nsight Systems export through
 * opmfu_analyze: the input becomes the tables read/nsys/read_nsys.c reads
 * (schema/in/nsys.sql, nsys's own DDL), some tables or columns left out,
 * rows of any storage class (NULLs, texts where ids belong, huge and
 * negative integers, NaN, blobs, invalid UTF-8), which are read, linked,
 * analysed and written (db, sometimes xlsx, csv and json) with one or two
 * threads; every JSON line must be valid JSON (yajl), one per row. Like
 * fuzz_rank_db.c for Ascend databases; fuzz_nsys_text.c fuzzes the NVTX
 * texts alone.
 *
 * Input layout (every byte past the end reads as 0):
 *   byte 0   bit 0: jobs 2 (else 1); bit 1: also the xlsx export;
 *            bit 2: no --peak override (then only TARGET_INFO_GPU's name
 *            gives a peak); bit 3: also the csv and json exports;
 *            bit 4: a META_DATA_EXPORT table with the version
 *   byte 1   bit i: leave table i of tables[] out (i < 7)
 *   byte 2   bit i: drop column drops[i] (i < 8)
 *   then     rows: a table byte (index mod the table count), then one
 *            value per column of tables[] still there, in the table's
 *            column order (nsys's DDL), each a kind byte and its data (see
 *            value()).
 * tests/fuzz/nsys_db_seeds.py writes the seed corpus in this layout.
 */
#define _GNU_SOURCE /* nftw's FTW_DEPTH and FTW_PHYS */
#include <ftw.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <yajl/yajl_parse.h>

#include "fuzz.h"
#include "fuzz_input.h"
#include "fuzz_db.h"
#include "lib/report.h"
#include "opmfu.h"

/* Strings the reader and the NVTX parser give meaning to, so that random
 * rows still name ops with sizes, steps, modules, NCCL's domain, kernels
 * whose names imply a dtype or a collective, and GPUs with a peak. */
static const char *const dict[] = {
	"aten::mm, seq = 1, op_id = 2, sizes = [[64, 64], [64, 64]]",
	"aten::linear, seq = 3, op_id = 4, sizes = [[8, 64], [128, 64], [128]]",
	"aten::addmm, op_id = 5, sizes = [[128], [8, 64], [64, 128], [], []]",
	"aten::bmm, sizes = [[4, 8, 16], [4, 16, 8]]",
	"aten::mm, sizes = [[-1, 5], [5, 99999999999999999999]]",
	"aten::mm, sizes = [[", "aten::add, seq = 15", "aten::fill_, op_id = 77",
	"ProfilerStep#1", "ProfilerStep#2", "ProfilerStep#", "nn.Module: Layer", "nn.Module: ", "NCCL", "CCCL",
	"ncclAllReduce", "ncclKernel_AllReduce_RING_LL_Sum_bfloat16",
	"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn",
	"sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize64x64x64_stage5",
	("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
	 "at::detail::Array<char*, 3> >"),
	"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
	"ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", "cutlass_80_tensorop_s1688gemm_tf32",
	"NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB", "Tesla T4", "NVIDIA GeForce RTX 3060", "", "0",
	"2025.3.1.90",
};
#define NDICT (sizeof(dict) / sizeof(dict[0]))

/* Binds one value of a kind the next byte chooses (fuzz_db.h), or one of
 * nsys's own: thread ids of one process and the NVTX event types make rows
 * count. */
static void value(struct reader *r, sqlite3_stmt *s, int col)
{
	static const int events[] = { 59, 60, 70, 71, 75, 34 };
	unsigned kind = byte(r) % 12, i;

	if (kind == 10) { /* a globalTid / globalPid: process 100 or 101, thread 0..3 */
		i = byte(r);
		sqlite3_bind_int64(s, col, (int64_t)(100 + (i >> 2 & 1)) << 24 | (i & 3));
	} else if (kind == 11) {
		sqlite3_bind_int64(s, col, events[byte(r) % (sizeof(events) / sizeof(events[0]))]);
	} else {
		fuzz_bind(r, s, col, kind, dict, NDICT);
	}
}

/* The columns the reader asks for or filters by, table by table. */
static const char *const tables[][2] = {
	{ "StringIds", "id, value" },
	{ "CUPTI_ACTIVITY_KIND_KERNEL", "start, end, deviceId, correlationId, globalPid, demangledName, shortName" },
	{ "CUPTI_ACTIVITY_KIND_RUNTIME", "start, correlationId, globalTid" },
	{ "CUPTI_ACTIVITY_KIND_MEMCPY", "start, end, deviceId, correlationId, globalPid, copyKind" },
	{ "CUPTI_ACTIVITY_KIND_MEMSET", "start, end, deviceId, correlationId, globalPid" },
	{ "NVTX_EVENTS", "start, end, eventType, globalTid, text, textId, domainId" },
	{ "TARGET_INFO_GPU", "id, name" },
};
#define NTABLES (sizeof(tables) / sizeof(tables[0]))

/* Columns byte 2 may drop: the optional ones of docs/nsys.md and some the
 * reader needs (then a schema error, never a crash). */
static const char *const drops[][2] = {
	{ "CUPTI_ACTIVITY_KIND_KERNEL", "demangledName" }, { "CUPTI_ACTIVITY_KIND_KERNEL", "shortName" },
	{ "CUPTI_ACTIVITY_KIND_KERNEL", "globalPid" },     { "NVTX_EVENTS", "textId" },
	{ "NVTX_EVENTS", "domainId" },                     { "CUPTI_ACTIVITY_KIND_MEMCPY", "copyKind" },
	{ "CUPTI_ACTIVITY_KIND_RUNTIME", "globalTid" },    { "CUPTI_ACTIVITY_KIND_MEMSET", "globalPid" },
};

static const char *dir;
static char *schema_sql;

static void setup_once(void)
{
	dir = fuzz_scratch();
	schema_sql = fuzz_read_file(OPMFU_FUZZ_SCHEMA);
}

/* INSERT OR IGNORE of the columns of want still in table, every other NOT
 * NULL column 0 (as the generator fills what opmfu does not read). */
static sqlite3_stmt *insert_for(sqlite3 *db, const char *table, const char *want)
{
	char sql[1024], names[512] = "", vals[512] = "", q[128];
	size_t on = 0, ov = 0;
	sqlite3_stmt *info, *ins = NULL;

	snprintf(q, sizeof(q), "SELECT name, \"notnull\" FROM pragma_table_info('%s')", table);
	FUZZ_ASSERT(sqlite3_prepare_v2(db, q, -1, &info, NULL) == SQLITE_OK);
	while (sqlite3_step(info) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(info, 0);
		size_t len = strlen(c);
		const char *hit = strstr(want, c);
		int wanted = hit && (hit == want || hit[-1] == ' ') && (hit[len] == ',' || hit[len] == '\0');
		if (!wanted && !sqlite3_column_int(info, 1))
			continue;
		on += (size_t)snprintf(names + on, sizeof(names) - on, "%s%s", on ? ", " : "", c);
		ov += (size_t)snprintf(vals + ov, sizeof(vals) - ov, "%s%s", ov ? ", " : "", wanted ? "?" : "0");
		FUZZ_ASSERT(on < sizeof(names) && ov < sizeof(vals));
	}
	sqlite3_finalize(info);
	FUZZ_ASSERT(snprintf(sql, sizeof(sql), "INSERT OR IGNORE INTO %s (%s) VALUES (%s)", table, names, vals) <
		    (int)sizeof(sql));
	FUZZ_ASSERT(sqlite3_prepare_v2(db, sql, -1, &ins, NULL) == SQLITE_OK);
	return ins;
}

/* Returns the tables left out (byte 1). */
static unsigned build_db(struct reader *r, const char *path, unsigned flags)
{
	sqlite3 *db;
	sqlite3_stmt *ins[NTABLES] = { 0 };
	unsigned omit = byte(r), drop = byte(r);
	char sql[256];
	size_t t;

	FUZZ_ASSERT(sqlite3_open(path, &db) == SQLITE_OK);
	FUZZ_ASSERT(sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN", 0, 0, 0) ==
		    SQLITE_OK);
	FUZZ_ASSERT(sqlite3_exec(db, schema_sql, 0, 0, 0) == SQLITE_OK);
	if (!(flags & 16))
		FUZZ_ASSERT(sqlite3_exec(db, "DROP TABLE META_DATA_EXPORT", 0, 0, 0) == SQLITE_OK);
	else
		FUZZ_ASSERT(sqlite3_exec(db, "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_PRODUCT_VERSION', "
					 "'2025.3.1.90')", 0, 0, 0) == SQLITE_OK);
	for (t = 0; t < sizeof(drops) / sizeof(drops[0]); t++)
		if (drop >> t & 1) {
			snprintf(sql, sizeof(sql), "ALTER TABLE %s DROP COLUMN %s", drops[t][0], drops[t][1]);
			FUZZ_ASSERT(sqlite3_exec(db, sql, 0, 0, 0) == SQLITE_OK);
		}
	for (t = 0; t < NTABLES; t++) {
		if (omit >> t & 1) {
			snprintf(sql, sizeof(sql), "DROP TABLE %s", tables[t][0]);
			FUZZ_ASSERT(sqlite3_exec(db, sql, 0, 0, 0) == SQLITE_OK);
			continue;
		}
		ins[t] = insert_for(db, tables[t][0], tables[t][1]);
	}
	while (r->n) {
		sqlite3_stmt *s = ins[byte(r) % NTABLES];
		if (!s)
			continue;
		for (int c = 1; c <= sqlite3_bind_parameter_count(s); c++)
			value(r, s, c);
		(void)sqlite3_step(s);
		sqlite3_reset(s);
		sqlite3_clear_bindings(s);
	}
	for (t = 0; t < NTABLES; t++)
		sqlite3_finalize(ins[t]);
	FUZZ_ASSERT(sqlite3_exec(db, "COMMIT", 0, 0, 0) == SQLITE_OK);
	sqlite3_close(db);
	return omit;
}

/* What the report says must be what the output database holds. */
static void check_output(const struct opmfu_report *rep)
{
	sqlite3 *db;
	size_t i;

	FUZZ_ASSERT(sqlite3_open_v2(rep->out_db, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	for (i = 0; i < rep->n_ranks; i++)
		check_rank_rows(db, &rep->ranks[i]);
	sqlite3_close(db);
}

/* One rank's report against the invariants; *ops and *mods add its rows. */
static void check_rank(const struct opmfu_rank_report *k, enum opmfu_status st, size_t *ops, size_t *mods)
{
	check_rank_report(k, st);
	if (k->state != OPMFU_RANK_FAILED) {
		*ops += k->op_rows;
		*mods += k->module_rows;
	}
	if (getenv("OPMFU_FUZZ_VERBOSE")) /* what a seed reaches, when writing seeds */
		fprintf(stderr, "rank %d: state %d, %zu kernels, %zu with MFU, %zu OperatorMFU, %zu ModuleMFU rows: %s\n",
			k->rank, (int)k->state, k->kernels, k->kernels_with_mfu, k->op_rows, k->module_rows, k->reason);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader r = { data, size };
	unsigned flags = byte(&r);
	char db_path[128], out[128];
	const char *inputs[1] = { db_path };
	struct opmfu_opts o = { 0 };
	struct opmfu_report rep;
	struct opmfu_err err = OPMFU_ERR_INIT;
	enum opmfu_status st;
	unsigned omit;
	int is_nsys;

	if (!schema_sql)
		setup_once();
	snprintf(db_path, sizeof(db_path), "%s/rank3.sqlite", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	remove(db_path);
	omit = build_db(&r, db_path, flags);
	is_nsys = !(omit & 1) && (~omit & (1u << 1 | 1u << 2 | 1u << 5 | 1u << 6)) != 0;

	o.inputs = inputs;
	o.n_inputs = 1;
	o.out_dir = out;
	o.exports = OPMFU_EXPORT_DB | (flags & 2 ? OPMFU_EXPORT_XLSX : 0) |
		    (flags & 8 ? OPMFU_EXPORT_CSV | OPMFU_EXPORT_JSON : 0);
	o.jobs = flags & 1 ? 2 : 1;
	if (!(flags & 4)) {
		o.peak_tflops[OPMFU_CLASS_FP16] = 989.4;
		o.peak_tflops[OPMFU_CLASS_FP32] = 494.7;
		o.peak_origin = "--peak";
	}
	st = opmfu_analyze_report(&o, &rep, &err);
	/* the documented statuses (base/status.h), with a message unless OK */
	FUZZ_ASSERT((unsigned)st <= (unsigned)OPMFU_ERR_BUSY);
	FUZZ_ASSERT(st == OPMFU_OK || err.msg[0]);
	FUZZ_ASSERT(rep.n_failed <= rep.n_ranks);
	if (rep.n_ranks) {
		size_t i, ops = 0, mods = 0, failed = 0;
		for (i = 0; i < rep.n_ranks; i++) {
			const struct opmfu_rank_report *k = &rep.ranks[i];
			/* rank3.sqlite: rank 3 when it holds one (device, process), 3 * P + i
			 * for P (docs/nsys.md); an nsys export has StringIds and one of the
			 * kernel, runtime, NVTX or GPU tables (tables 1, 2, 5, 6: the probe's
			 * rule), else it is read as what it is */
			FUZZ_ASSERT(!is_nsys ? rep.n_ranks == 1
					     : k->rank == (rep.n_ranks == 1 ? 3 : 3 * (int)rep.n_ranks + (int)i));
			check_rank(k, st, &ops, &mods);
			failed += k->state == OPMFU_RANK_FAILED;
		}
		if (rep.out_db)
			check_output(&rep);
		if (rep.json_dir && failed == 0) {
			check_jsonl(out, "OperatorMFU", ops);
			check_jsonl(out, "ModuleMFU", mods);
			check_jsonl(out, "OpmfuRankSummary", rep.n_ranks);
		}
	} else if (getenv("OPMFU_FUZZ_VERBOSE")) {
		fprintf(stderr, "status %d: %s\n", (int)st, err.msg);
	}
	opmfu_report_release(&rep);
	return 0;
}
