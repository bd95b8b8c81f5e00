/*
 * t_nomem.c - every allocation of a whole run fails in turn: the run must end
 * with a status and an "out of memory" message, never crash or leak (the
 * suite also runs under AddressSanitizer). argv[1] is a rank directory,
 * argv[2] a scratch directory.
 *
 * Then the same over two ranks with every export on one thread: when a single
 * rank fails, the other's results are written and the failed one leaves
 * nothing behind, even when it failed after its OperatorMFU rows and kernel
 * workbook had been written (its module tree ran out of memory); a run that
 * commits nothing leaves the earlier CSV and JSON files and summary workbook as
 * they were, and one that commits replaces the summary workbook.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/mem.h"
#include "check.h"
#include "files.h"
#include "lib/report.h"
#include "opmfu.h"

/* --model on every run: a tiny llama config (fixtures/model_check) written under the scratch directory */
static struct opmfu_model_opts model;
static char model_path[4200];

static void model_init(const char *scratch)
{
	snprintf(model_path, sizeof(model_path), "%s/tiny_llama.json", scratch);
	put_file(model_path, "{\"model_type\": \"llama\", \"num_hidden_layers\": 2, \"hidden_size\": 64, "
			     "\"num_attention_heads\": 4, \"intermediate_size\": 128, \"vocab_size\": 256}");
	memset(&model, 0, sizeof(model));
	model.config = model_path;
	model.seq_len = 128;
	model.global_batch = 2;
	model.prompt_len = -1;
	model.dtype_class = OPMFU_CLASS_FP16;
}

static int says_nomem(const struct opmfu_report *rep, const struct opmfu_err *err)
{
	size_t i;
	if (strstr(err->msg, "out of memory"))
		return 1;
	for (i = 0; i < rep->n_ranks; i++)
		if (strstr(rep->ranks[i].reason, "out of memory"))
			return 1;
	return 0;
}

static enum opmfu_status run(const char *in, const char *out, struct opmfu_report *rep, struct opmfu_err *err)
{
	struct opmfu_opts o;
	memset(&o, 0, sizeof(o));
	o.inputs = &in;
	o.n_inputs = 1;
	o.out_dir = out;
	o.jobs = 2;
	o.model = &model;
	memset(err, 0, sizeof(*err));
	return opmfu_analyze_report(&o, rep, err);
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	size_t n;
	FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
	int ok = a && b;
	while (ok && (n = fread(buf, 1, sizeof(buf), a)) > 0)
		ok = fwrite(buf, 1, n, b) == n;
	if (a)
		fclose(a);
	if (b && fclose(b))
		ok = 0;
	return ok ? 0 : -1;
}

static long count_rows(const char *db_path, const char *table, int rank)
{
	char sql[128];
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	long n = -1;
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM \"%s\" WHERE rank_id = %d", table, rank);
	if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return n;
}

/* Lines of the file at path that start with prefix; -1 if it cannot be read. */
static long count_lines(const char *path, const char *prefix)
{
	char line[8192];
	long n = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += !strncmp(line, prefix, strlen(prefix));
	fclose(f);
	return n;
}

/* The rows of rank in DIR/Table.csv and DIR/Table.jsonl, which must agree; -1 if not. */
static long text_rows(const char *out, const char *table, int rank)
{
	char path[4400], prefix[64];
	long csv, json;
	snprintf(path, sizeof(path), "%s/cluster_analysis_output/csv/%s.csv", out, table);
	snprintf(prefix, sizeof(prefix), "%d,", rank);
	csv = count_lines(path, prefix);
	snprintf(path, sizeof(path), "%s/cluster_analysis_output/json/%s.jsonl", out, table);
	snprintf(prefix, sizeof(prefix), "{\"rank_id\":%d,", rank);
	json = count_lines(path, prefix);
	return csv == json ? csv : -1;
}

/* Puts "earlier" in every CSV and JSON file of a run; with check, whether they still hold it. */
static int earlier_texts(const char *out, int check)
{
	static const char *const files[] = { "csv/OperatorMFU.csv", "csv/ModuleMFU.csv", "csv/OpmfuRankSummary.csv",
					     "json/OperatorMFU.jsonl", "json/ModuleMFU.jsonl",
					     "json/OpmfuRankSummary.jsonl" };
	char path[4400];
	size_t i;
	int same = 1;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/cluster_analysis_output/%s", out, files[i]);
		if (check)
			same &= file_is(path, "earlier");
		else
			put_file(path, "earlier");
	}
	return same;
}

static enum opmfu_status run2(const char *const *in, const char *out, struct opmfu_report *rep,
			      struct opmfu_err *err)
{
	struct opmfu_opts o;
	memset(&o, 0, sizeof(o));
	o.inputs = in;
	o.n_inputs = 2;
	o.out_dir = out;
	o.jobs = 1; /* one thread, so the k-th allocation is the same in every run */
	o.exports = OPMFU_EXPORT_DB | OPMFU_EXPORT_XLSX | OPMFU_EXPORT_CSV | OPMFU_EXPORT_JSON;
	o.peak_tflops[OPMFU_CLASS_FP16] = 353.9; /* rank 1 has no info.json */
	o.model = &model;
	memset(err, 0, sizeof(*err));
	return opmfu_analyze_report(&o, rep, err);
}

/* Rank 0 = argv[1] (the sample); rank 1 = a copy of its database under scratch. */
static void two_ranks(const char *rank0, const char *scratch)
{
	char r1[4096], from[4200], to[4200], out[4200], db[4300], xdir[4300], kx[4400], mx[4400], sx[4400], cdir[4300],
		jdir[4300];
	const char *in[2];
	struct opmfu_report rep;
	struct opmfu_err err;
	long before, total, k, partial = 0, after_ops = 0;
	int r;

	snprintf(r1, sizeof(r1), "%s/two/rank1_ascend_pt", scratch);
	snprintf(to, sizeof(to), "%s/two", scratch);
	mkdir(to, 0777);
	mkdir(r1, 0777);
	snprintf(to, sizeof(to), "%s/ASCEND_PROFILER_OUTPUT", r1);
	mkdir(to, 0777);
	snprintf(from, sizeof(from), "%s/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db", rank0);
	snprintf(to, sizeof(to), "%s/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_1.db", r1);
	CHECK_INT(copy_file(from, to), 0);
	snprintf(out, sizeof(out), "%s/two-out", scratch);
	snprintf(db, sizeof(db), "%s/cluster_analysis_output/cluster_analysis.db", out);
	snprintf(xdir, sizeof(xdir), "%s/cluster_analysis_output/OperatorMfu", out);
	snprintf(sx, sizeof(sx), "%s/opmfu_summary.xlsx", xdir);
	snprintf(cdir, sizeof(cdir), "%s/cluster_analysis_output/csv", out);
	snprintf(jdir, sizeof(jdir), "%s/cluster_analysis_output/json", out);
	in[0] = rank0;
	in[1] = r1;

	before = opmfu_mem_count();
	CHECK_INT(run2(in, out, &rep, &err), OPMFU_OK);
	CHECK(rep.n_ranks == 2 && rep.ranks[1].rank == 1 && rep.ranks[1].op_rows == 6 &&
	      rep.ranks[1].module_rows == 9);
	opmfu_report_release(&rep);
	total = opmfu_mem_count() - before;
	CHECK_INT(text_rows(out, "OperatorMFU", 1), 6);
	CHECK_INT(text_rows(out, "ModuleMFU", 1), 9);
	CHECK_INT(text_rows(out, "OpmfuModel", 1), 3);
	for (k = 1; k <= total + 5; k++) {
		enum opmfu_status st;
		earlier_texts(out, 0);
		put_file(sx, "earlier");
		for (r = 0; r < 2; r++) {
			snprintf(kx, sizeof(kx), "%s/operator_mfu_kernel_%d.xlsx", xdir, r);
			snprintf(mx, sizeof(mx), "%s/operator_mfu_module_%d.xlsx", xdir, r);
			put_file(kx, "earlier");
			put_file(mx, "earlier");
		}
		opmfu_mem_fail_after(k);
		st = run2(in, out, &rep, &err);
		opmfu_mem_fail_after(0);
		CHECK_INT(tmp_files(xdir), 0);
		CHECK_INT(tmp_files(cdir), 0);
		CHECK_INT(tmp_files(jdir), 0);
		if (st == OPMFU_OK)
			CHECK_INT(text_rows(out, "OperatorMFU", 0) + text_rows(out, "OperatorMFU", 1), 12);
		/* the summary workbook is replaced exactly when the run commits */
		CHECK(file_is(sx, "earlier") == !(st == OPMFU_OK || st == OPMFU_ERR_PARTIAL));
		if (st == OPMFU_ERR_PARTIAL && rep.n_failed == 1) {
			int bad = rep.ranks[0].state == OPMFU_RANK_FAILED ? 0 : 1;
			partial++;
			if (!strstr(rep.ranks[bad].reason, "out of memory"))
				fprintf(stderr, "allocation %ld: rank %d: %s\n", k, bad, rep.ranks[bad].reason);
			CHECK(strstr(rep.ranks[bad].reason, "out of memory") != NULL);
			if (strstr(rep.ranks[bad].reason, "module tree"))
				after_ops++;
			CHECK_INT(count_rows(db, "OperatorMFU", bad), 0);
			CHECK_INT(count_rows(db, "ModuleMFU", bad), 0);
			CHECK_INT(count_rows(db, "OperatorMFU", 1 - bad), 6);
			CHECK_INT(count_rows(db, "ModuleMFU", 1 - bad), 9);
			/* one step (no step marks) x three conventions */
			CHECK_INT(count_rows(db, "OpmfuModel", bad), 0);
			CHECK_INT(count_rows(db, "OpmfuModel", 1 - bad), 3);
			CHECK_INT(text_rows(out, "OperatorMFU", bad), 0);
			CHECK_INT(text_rows(out, "ModuleMFU", bad), 0);
			CHECK_INT(text_rows(out, "OperatorMFU", 1 - bad), 6);
			CHECK_INT(text_rows(out, "ModuleMFU", 1 - bad), 9);
			/* its summary row says why it failed */
			CHECK_INT(text_rows(out, "OpmfuRankSummary", bad), 1);
			snprintf(kx, sizeof(kx), "%s/operator_mfu_kernel_%d.xlsx", xdir, bad);
			snprintf(mx, sizeof(mx), "%s/operator_mfu_module_%d.xlsx", xdir, bad);
			CHECK(file_is(kx, "earlier") && file_is(mx, "earlier"));
			snprintf(kx, sizeof(kx), "%s/operator_mfu_kernel_%d.xlsx", xdir, 1 - bad);
			CHECK(!file_is(kx, "earlier"));
		} else if (st != OPMFU_OK) {
			CHECK(says_nomem(&rep, &err));
			/* nothing committed */
			CHECK(earlier_texts(out, 1));
		}
		opmfu_report_release(&rep);
	}
	/* both ranks can fail alone, and a module tree can fail after its rank's rows were written */
	CHECK(partial > 2);
	CHECK(after_ops >= 2);
	printf("two ranks: %ld allocations, %ld runs with one failed rank (%ld in the module tree)\n", total, partial,
	       after_ops);
}

int main(int argc, char **argv)
{
	struct opmfu_report rep;
	struct opmfu_err err;
	long before, total, k, failed_runs = 0;
	char out[4096];

	if (argc < 3)
		return 2;
	snprintf(out, sizeof(out), "%s", argv[2]);
	mkdir(argv[2], 0777);
	model_init(argv[2]);
	before = opmfu_mem_count();
	CHECK_INT(run(argv[1], out, &rep, &err), OPMFU_OK);
	/* fixtures/module_tree: 6 OperatorMFU rows, 9 ModuleMFU rows */
	CHECK(rep.n_ranks == 1 && rep.ranks[0].op_rows == 6 && rep.ranks[0].module_rows == 9);
	opmfu_report_release(&rep);
	total = opmfu_mem_count() - before;
	CHECK(total > 20);
	for (k = 1; k <= total + 5; k++) {
		enum opmfu_status st;
		opmfu_mem_fail_after(k);
		st = run(argv[1], out, &rep, &err);
		opmfu_mem_fail_after(0);
		if (st != OPMFU_OK) {
			failed_runs++;
			if (!says_nomem(&rep, &err))
				fprintf(stderr, "allocation %ld: status %d, message '%s'\n", k, (int)st, err.msg);
			CHECK(says_nomem(&rep, &err));
		}
		opmfu_report_release(&rep);
	}
	/* most single failures must be fatal to the run or a rank */
	CHECK(failed_runs > total / 2);
	printf("%ld allocations, %ld runs ended with out of memory\n", total, failed_runs);
	two_ranks(argv[1], argv[2]);
	return check_done();
}
