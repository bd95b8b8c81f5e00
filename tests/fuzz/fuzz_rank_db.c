/*
 * fuzz_rank_db.c - a whole rank through opmfu_analyze: the input becomes a
 * profiler database (the tables of schema/in/ascend.sql, some of them left
 * out, rows of any storage class: NULLs, texts where ids belong, huge and
 * negative integers, NaN, blobs, invalid UTF-8), which is read, joined,
 * analysed and written (db, sometimes xlsx, csv and json) with one or two
 * threads; every JSON line must be valid JSON (yajl), one per row. The
 * other targets fuzz single parsers; this one fuzzes the reader and the join
 * and how they hand rows on.
 *
 * Input layout (every byte past the end reads as 0):
 *   byte 0   bit 0: jobs 2 (else 1); bit 1: also the xlsx export;
 *            bit 2: no --peak override (then no kernel gets an MFU);
 *            bit 3: also the csv and json exports;
 *            bit 4: --model (a tiny llama config, --seq-len 128 --global-batch 2)
 *            bit 5: leave COMMUNICATION_TASK_INFO (tables[8]) out;
 *            bit 6: --steps 1; bit 7: --time-range 0:2us (trace/filter.c)
 *   byte 1   bit i: leave table i of tables[] out (i < 8)
 *   then     rows: a table byte (index mod the table count), then one
 *            value per column of that table, each a kind byte and its data
 *            (see value()).
 * tests/fuzz/rank_db_seeds.py writes the seed corpus in this layout.
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

/* Strings the reader and the parsers give meaning to, so that random rows
 * still link, carry FLOPs records and open modules. */
static const char *const dict[] = {
	"mfu_flops", "Module", "aten::mm", "aten::linear", "MatMulV3", "FlashAttentionScore",
	"176947200-mm", "88473600-linear", "137438953472.0-npu_fusion_attention", "12-matmul",
	"-5-mm", "1e400-mm", "18446744073709551616-mm", "0-mm", "GPTModel", "GPTModel/Layer",
	"Layer", "/", "", "\"16,16;16,16\"", "\"16,16\"", "4096,4096;1536,4096", "N/A", "BF16",
	"DT_BF16;DT_BF16", "FLOAT16;FLOAT16", "INT8;INT8;FLOAT", "FLOAT", "INT64;DT_BF16",
	"HcclAllreduce", "hcom_allReduce_", "0", "-1", "9223372036854775807", " 12", "12abc",
	"1000", "1736410576000010000", "Notify_Wait", "Memcpy", "Reduce_Inline", "hcom_send__1_0_1", "RDMASend",
	"ProfilerStep#1",
};
#define NDICT (sizeof(dict) / sizeof(dict[0]))

/* Binds one value of a kind the next byte chooses (fuzz_db.h). */
static void value(struct reader *r, sqlite3_stmt *s, int col)
{
	fuzz_bind(r, s, col, byte(r) % 10, dict, NDICT);
}

/* The columns the reader asks for, table by table (schema/in/ascend/). */
static const char *const tables[][2] = {
	{ "STRING_IDS", "id, value" },
	{ "TASK", "globalTaskId, startNs, endNs, connectionId" },
	{ "COMPUTE_TASK_INFO", "globalTaskId, name, inputShapes, inputDataTypes, outputShapes" },
	{ "CONNECTION_IDS", "id, connectionId" },
	{ "PYTORCH_API", "connectionId, name, startNs, endNs" },
	{ "MSTX_EVENTS", "startNs, endNs, eventType, message, domainId" },
	{ "COMMUNICATION_OP", "opType, startNs, endNs, connectionId, opId, opName, groupName, dataType, count" },
	{ "COMMUNICATION_SCHEDULE_TASK_INFO", "globalTaskId, name" },
	{ "COMMUNICATION_TASK_INFO",
	  "globalTaskId, opId, name, taskType, planeId, transportType, linkType, size, srcRank, dstRank, rdmaType" },
};
#define NTABLES (sizeof(tables) / sizeof(tables[0]))

static const char *dir;
static char *schema_sql;

static char config_path[96];
static struct opmfu_model_opts model;

static void setup_once(void)
{
	FILE *f;

	dir = fuzz_scratch();
	schema_sql = fuzz_read_file(OPMFU_FUZZ_SCHEMA);
	snprintf(config_path, sizeof(config_path), "%s/config.json", dir);
	FUZZ_ASSERT((f = fopen(config_path, "wb")) != NULL);
	fputs("{\"model_type\": \"llama\", \"num_hidden_layers\": 2, \"hidden_size\": 64, \"num_attention_heads\": 4, "
	      "\"intermediate_size\": 128, \"vocab_size\": 256}", f);
	FUZZ_ASSERT(fclose(f) == 0);
	model.config = config_path;
	model.seq_len = 128;
	model.global_batch = 2;
	model.prompt_len = -1;
	model.dtype_class = OPMFU_CLASS_FP16;
}

static void build_db(struct reader *r, const char *path, unsigned flags)
{
	sqlite3 *db;
	sqlite3_stmt *ins[NTABLES] = { 0 };
	unsigned omit = byte(r) | (flags >> 5 & 1) << 8;
	char sql[512], marks[64];
	size_t t;

	FUZZ_ASSERT(sqlite3_open(path, &db) == SQLITE_OK);
	FUZZ_ASSERT(sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN", 0, 0, 0) ==
		    SQLITE_OK);
	FUZZ_ASSERT(sqlite3_exec(db, schema_sql, 0, 0, 0) == SQLITE_OK);
	FUZZ_ASSERT(sqlite3_exec(db,
				 "CREATE TABLE COMMUNICATION_SCHEDULE_TASK_INFO (name INTEGER,"
				 " globalTaskId INTEGER PRIMARY KEY, taskType INTEGER, opType INTEGER)",
				 0, 0, 0) == SQLITE_OK);
	for (t = 0; t < NTABLES; t++) {
		int ncol = 1;
		for (const char *c = tables[t][1]; *c; c++)
			ncol += *c == ',';
		if (omit >> t & 1) {
			snprintf(sql, sizeof(sql), "DROP TABLE %s", tables[t][0]);
			FUZZ_ASSERT(sqlite3_exec(db, sql, 0, 0, 0) == SQLITE_OK);
			continue;
		}
		/* OR IGNORE: a text or a duplicate for an INTEGER PRIMARY KEY
		 * is refused by SQLite itself, not by opmfu */
		marks[0] = '?';
		for (int c = 1; c < ncol; c++)
			memcpy(marks + 2 * c - 1, ",?", 2);
		marks[2 * ncol - 1] = '\0';
		snprintf(sql, sizeof(sql), "INSERT OR IGNORE INTO %s (%s) VALUES (%s)", tables[t][0], tables[t][1], marks);
		FUZZ_ASSERT(sqlite3_prepare_v2(db, sql, -1, &ins[t], NULL) == SQLITE_OK);
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
}

/* What the report says must be what the output database holds. */
static void check_output(const struct opmfu_report *rep)
{
	sqlite3 *db;
	const struct opmfu_rank_report *k = &rep->ranks[0];

	FUZZ_ASSERT(sqlite3_open_v2(rep->out_db, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	check_rank_rows(db, k);
	if (rep->model && k->state != OPMFU_RANK_FAILED) {
		/* a row per step with a window and convention, then the run's; each row's MFU its columns' */
		long long n_run = (long long)rep->model->n_run;
		FUZZ_ASSERT(count(db, "SELECT count(*) FROM OpmfuModel WHERE rank_id = ?", k->rank) ==
			    n_run * count(db, "SELECT count(*) FROM OpmfuSteps WHERE rank_id = ? AND window_ns > 0", k->rank));
		FUZZ_ASSERT(count(db, "SELECT count(*) FROM OpmfuModel WHERE rank_id IS NULL AND ? >= 0", 0) == n_run);
		FUZZ_ASSERT(count(db, "SELECT count(*) FROM OpmfuModel WHERE coverage < 0 OR model_mfu < 0 OR (model_mfu "
				      "IS NOT NULL AND abs(model_mfu * step_ns * 1e-9 * peak_tflops * 1e12 / "
				      "model_flops_per_device - 1) > 1e-9) OR (coverage IS NOT NULL AND abs(coverage * "
				      "model_flops_per_device - trace_flops) > 1e-6 * trace_flops + 1) OR ? < 0", 0) == 0);
	}
	sqlite3_close(db);
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

	if (!schema_sql)
		setup_once();
	snprintf(db_path, sizeof(db_path), "%s/ascend_pytorch_profiler_3.db", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	remove(db_path);
	build_db(&r, db_path, flags);

	o.inputs = inputs;
	o.n_inputs = 1;
	o.out_dir = out;
	o.exports = OPMFU_EXPORT_DB | (flags & 2 ? OPMFU_EXPORT_XLSX : 0) |
		    (flags & 8 ? OPMFU_EXPORT_CSV | OPMFU_EXPORT_JSON : 0);
	o.jobs = flags & 1 ? 2 : 1;
	o.model = flags & 16 ? &model : NULL;
	if (flags & 64) {
		static const int step1[] = { 1 };
		o.steps = step1;
		o.n_steps = 1;
		o.steps_text = "1";
	}
	if (flags & 128) {
		o.has_time_range = 1;
		o.time_from_ns = 0;
		o.time_to_ns = 2000;
		o.time_range_text = "0:2us";
	}
	if (!(flags & 4)) {
		o.peak_tflops[OPMFU_CLASS_FP16] = 353.9;
		o.peak_tflops[OPMFU_CLASS_INT8] = 707.8;
		o.peak_origin = "--peak";
	}
	st = opmfu_analyze_report(&o, &rep, &err);
	FUZZ_ASSERT(st == OPMFU_OK || err.msg[0]);
	FUZZ_ASSERT(rep.n_ranks <= 1 && rep.n_failed <= rep.n_ranks);
	if (rep.n_ranks) {
		const struct opmfu_rank_report *k = &rep.ranks[0];
		FUZZ_ASSERT(k->rank == 3);
		check_rank_report(k, st);
		/* some op has an MFU (SPEC 10), which needs a peak */
		FUZZ_ASSERT(k->state != OPMFU_RANK_OK || !(flags & 4));
		if (rep.out_db)
			check_output(&rep);
		if (rep.json_dir && k->state != OPMFU_RANK_FAILED) {
			check_jsonl(out, "OperatorMFU", k->op_rows);
			check_jsonl(out, "ModuleMFU", k->module_rows);
			check_jsonl(out, "OpmfuRankSummary", 1);
		}
		if (getenv("OPMFU_FUZZ_VERBOSE")) /* what a seed reaches, when writing seeds */
			fprintf(stderr, "state %d, %zu kernels, %zu with MFU, %zu OperatorMFU, %zu ModuleMFU rows: %s\n",
				(int)k->state, k->kernels, k->kernels_with_mfu, k->op_rows, k->module_rows, k->reason);
	}
	opmfu_report_release(&rep);
	return 0;
}
