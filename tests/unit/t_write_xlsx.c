/*
 * t_write_xlsx.c - the xlsx writer (write/writer.h) on hand-built rows of the
 * ModuleMFU and OperatorMFU tables: the module workbook's merges (parent
 * runs, equal module names under different parents), widths by header name,
 * frozen header and cell types, checked through tests/tools/xlsx_cells.py; a
 * kernel workbook; strings Excel cannot hold as they are, NaN; the row
 * limit; stale, failed and unwritable outputs; allocation failures; a rank's
 * workbooks staged, then kept or dropped.
 * argv: python3, xlsx_cells.py, a scratch directory.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reference/module_table.h"
#include "reference/op_mfu.h"
#include "reference/operator_mfu.h"
#include "base/mem.h"
#include "check.h"
#include "files.h"
#include "write/write_xlsx.h"
#include "xlsx_dump.h"

static char dir[4096];

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* Temporary files left in dir by a writer. */
static int leftovers(void)
{
	return tmp_files(dir);
}

static char *in_dir(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
	return buf;
}

/* The tables the writer is opened with: files bit 0 is the kernel
 * workbook, bit 1 the module workbook. */
static const struct opmfu_table_def *const defs[] = { &opmfu_operator_mfu_def, &opmfu_module_mfu_def };
#define KERNEL_FILE (1u << 0)
#define MODULE_FILE (1u << 1)

static enum opmfu_status open_xlsx(struct opmfu_writer **w, const char *d, size_t max_rows, struct opmfu_err *e)
{
	const struct opmfu_writer_type *wt = opmfu_writer_type_find("xlsx");
	enum opmfu_status st;
	CHECK(wt != NULL);
	if (!wt)
		return OPMFU_ERR_USAGE;
	if ((st = wt->open(w, d, defs, 2, e)) == OPMFU_OK)
		opmfu_xlsx_set_max_rows(*w, max_rows);
	return st;
}

/* Puts t for rank into a writer on directory d, keeps the rank and commits
 * (the workbooks appear at commit); xs (may be NULL) gets what the writing
 * did. */
static enum opmfu_status write_table(const char *d, int rank, const struct opmfu_table *t, size_t max_rows,
				     struct opmfu_write_stats *xs, struct opmfu_err *e)
{
	struct opmfu_writer *w = NULL;
	struct opmfu_write_stats ks;
	enum opmfu_status st;

	memset(&ks, 0, sizeof(ks));
	if ((st = open_xlsx(&w, d, max_rows, e)) == OPMFU_OK && (st = opmfu_writer_put(w, rank, t, e)) == OPMFU_OK)
		st = opmfu_writer_keep_rank(w, rank, &ks, e);
	if (st == OPMFU_OK)
		st = opmfu_writer_commit(w, e);
	if (xs)
		*xs = ks;
	opmfu_writer_close(w);
	return st;
}

/* The module workbook DIR/operator_mfu_module_{rank}.xlsx of mod. */
static enum opmfu_status write_module(const char *d, int rank, const struct opmfu_module_mfu *mod, size_t max_rows,
				      struct opmfu_write_stats *xs, struct opmfu_err *e)
{
	struct opmfu_module_view v;
	struct opmfu_table t = opmfu_module_table(&v, mod, rank);
	return write_table(d, rank, &t, max_rows, xs, e);
}

/* The kernel workbook DIR/operator_mfu_kernel_{rank}.xlsx of op. */
static enum opmfu_status write_kernel(const char *d, int rank, const struct opmfu_trace *t,
				      const struct opmfu_op_mfu *op, size_t max_rows, struct opmfu_write_stats *xs,
				      struct opmfu_err *e)
{
	struct opmfu_operator_mfu om;
	struct opmfu_table tab;
	enum opmfu_status st;

	if ((st = opmfu_operator_mfu_build(&om, rank, t, op, e)))
		return st;
	tab = opmfu_operator_mfu_table(&om);
	st = write_table(d, rank, &tab, max_rows, xs, e);
	opmfu_operator_mfu_release(&om);
	return st;
}

/* ---- module workbook ---- */

static struct opmfu_module_row mrow(const char *parent, const char *module, const char *op, const char *klist,
				    double total, double avg, size_t count, const char *mfu)
{
	struct opmfu_module_row r;
	memset(&r, 0, sizeof(r));
	r.parent = parent;
	r.module = module;
	r.op_name = op;
	r.kernel_list = klist;
	r.total_ns = total;
	r.avg_ns = avg;
	r.op_count = count;
	r.avg_mfu = mfu;
	return r;
}

/*
 * Widths: SPEC 4's by header name; Rank ID (A), which SPEC 4 leaves at the
 * default, its 7 characters plus 3 for the filter button (SPEC 14). Printed
 * landscape, one page wide, the header row on every page (SPEC 14).
 * Parent runs: Model/Layer rows 2-5, Model/Head 6-7, "" 8-9, Model/Layer
 * again at 10 (not adjacent to the first run: not merged with it). Module
 * MLP ends the first run (row 5) and starts the second (row 6): equal, but in
 * different parent runs, so not merged (SPEC 5.4).
 */
static const char module_want[] =
	"sheet Sheet1\n"
	"dimension A1:I10\n"
	"freeze A2\n"
	"autofilter A1:I10\n"
	"col A width 10 (xml 10.7109375)\n"
	"col B width 40 (xml 40.7109375)\n"
	"col C width 40 (xml 40.7109375)\n"
	"col D width 40 (xml 40.7109375)\n"
	"col E width 50 (xml 50.7109375)\n"
	"col F width 10 (xml 10.7109375)\n"
	"col G width 10 (xml 10.7109375)\n"
	"col H width 10 (xml 10.7109375)\n"
	"col I width 10 (xml 10.7109375)\n"
	"row 1 height 27\n"
	"merge B2:B5\n"
	"merge C2:C3\n"
	"merge C4:C5\n"
	"merge B6:B7\n"
	"merge B8:B9\n"
	"merge C8:C9\n"
	"page landscape fit 1x0\n"
	"print titles $1:$1\n"
	"style 1: font \"Times New Roman\" 11 bold; fill solid FFAFEEEE; border thin; valign center; numfmt \"General\"\n"
	"style 2: font \"Times New Roman\" 11; fill none; border thin; valign center; numfmt \"General\"\n"
	"A1=Rank ID (s) s1\nB1=Parent Module (s) s1\nC1=Module (s) s1\nD1=Op Name (s) s1\nE1=Kernel List (s) s1\n"
	"F1=Total Kernel Duration(ns) (s) s1\nG1=Avg Kernel Duration(ns) (s) s1\nH1=Op Count (s) s1\nI1=Avg MFU (s) s1\n"
	"A2=7 (n) s2\nB2=Model/Layer (s) s2\nC2=Attention (s) s2\nD2=aten::mm (s) s2\nE2=MatMulV3 (s) s2\n"
	"F2=100 (n) s2\nG2=100 (n) s2\nH2=1 (n) s2\nI2=50.0% (s) s2\n"
	"A3=7 (n) s2\nB3= (blank) s2\nC3= (blank) s2\nD3=aten::add (s) s2\nE3=Add (s) s2\n"
	"F3=20 (n) s2\nG3=20 (n) s2\nH3=1 (n) s2\nI3= (blank) s2\n"
	"A4=7 (n) s2\nB4= (blank) s2\nC4=MLP (s) s2\nD4=aten::mm (s) s2\nE4=MatMulV3, Cast (s) s2\n"
	"F4=300 (n) s2\nG4=150 (n) s2\nH4=2 (n) s2\nI4=12.5%,100.0% (s) s2\n"
	"A5=7 (n) s2\nB5= (blank) s2\nC5= (blank) s2\nD5=aten::gelu (s) s2\nE5=Gelu (s) s2\n"
	"F5=7.5 (n) s2\nG5=7.5 (n) s2\nH5=1 (n) s2\nI5= (blank) s2\n"
	"A6=7 (n) s2\nB6=Model/Head (s) s2\nC6=MLP (s) s2\nD6=aten::mm (s) s2\nE6=MatMulV3 (s) s2\n"
	"F6=50 (n) s2\nG6=50 (n) s2\nH6=1 (n) s2\nI6=1.0% (s) s2\n"
	/* text that looks like formulas stays text; 0.1 + 0.2 is stored with 16 digits */
	"A7=7 (n) s2\nB7= (blank) s2\nC7=Proj (s) s2\nD7==1+1 (s) s2\nE7==SUM(A1) (s) s2\n"
	"F7=0.3 (n) s2\nG7=0.3 (n) s2\nH7=1 (n) s2\nI7= (blank) s2\n"
	"A8=7 (n) s2\nB8= (blank) s2\nC8=Model (s) s2\nD8=aten::zero_ (s) s2\nE8=ZerosLike (s) s2\n"
	"F8=1 (n) s2\nG8=1 (n) s2\nH8=1 (n) s2\nI8= (blank) s2\n"
	"A9=7 (n) s2\nB9= (blank) s2\nC9= (blank) s2\nD9=aten::copy_ (s) s2\nE9=Copy (s) s2\n"
	"F9=2 (n) s2\nG9=2 (n) s2\nH9=1 (n) s2\nI9= (blank) s2\n"
	"A10=7 (n) s2\nB10=Model/Layer (s) s2\nC10=Attention (s) s2\nD10=aten::mm (s) s2\nE10=MatMulV3 (s) s2\n"
	"F10=100 (n) s2\nG10=100 (n) s2\nH10=1 (n) s2\nI10=50.0% (s) s2\n";

static void test_module(void)
{
	struct opmfu_module_row rows[9];
	struct opmfu_module_mfu mod;
	struct opmfu_write_stats xs;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char path[4200];

	rows[0] = mrow("Model/Layer", "Attention", "aten::mm", "MatMulV3", 100, 100, 1, "50.0%");
	rows[1] = mrow("Model/Layer", "Attention", "aten::add", "Add", 20, 20, 1, "");
	rows[2] = mrow("Model/Layer", "MLP", "aten::mm", "MatMulV3, Cast", 300, 150, 2, "12.5%,100.0%");
	rows[3] = mrow("Model/Layer", "MLP", "aten::gelu", "Gelu", 7.5, 7.5, 1, "");
	rows[4] = mrow("Model/Head", "MLP", "aten::mm", "MatMulV3", 50, 50, 1, "1.0%");
	rows[5] = mrow("Model/Head", "Proj", "=1+1", "=SUM(A1)", 0.1 + 0.2, 0.1 + 0.2, 1, "");
	rows[6] = mrow("", "Model", "aten::zero_", "ZerosLike", 1, 1, 1, NULL);
	rows[7] = mrow("", "Model", "aten::copy_", "Copy", 2, 2, 1, "");
	rows[8] = mrow("Model/Layer", "Attention", "aten::mm", "MatMulV3", 100, 100, 1, "50.0%");
	opmfu_module_mfu_init(&mod);
	mod.rows = rows;
	mod.n_rows = mod.cap_rows = 9;

	in_dir(path, sizeof(path), "operator_mfu_module_7.xlsx");
	CHECK_INT(write_module(dir, 7, &mod, 0, &xs, &e), OPMFU_OK);
	CHECK_INT(xs.files, MODULE_FILE);
	CHECK_INT(xs.truncated + xs.repaired + xs.blanks, 0);
	xlsx_check_dump(path, module_want);
	CHECK_INT(leftovers(), 0);

	/* the limit counts the header: 9 data rows need 10 */
	CHECK_INT(write_module(dir, 7, &mod, 10, NULL, &e), OPMFU_OK);
	CHECK_INT(write_module(dir, 7, &mod, 9, NULL, &e), OPMFU_ERR_LIMIT);
	CHECK(strstr(e.msg, path) && strstr(e.msg, "--export db"));
	/* a refused write leaves the previous file as it was */
	xlsx_check_dump(path, module_want);
	CHECK_INT(leftovers(), 0);
}

/* Strings Excel cannot hold as they are, NaN and infinity. */
static void test_module_edges(void)
{
	struct opmfu_module_row rows[2];
	struct opmfu_module_mfu mod;
	struct opmfu_write_stats xs;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char path[4200], *longop = malloc(40001), *longparent = malloc(33001), *got, want[64];

	CHECK(longop && longparent);
	if (!longop || !longparent)
		return;
	memset(longop, 'x', 40000);
	longop[40000] = '\0';
	memset(longparent, 'p', 33000);
	longparent[33000] = '\0';
	rows[0] = mrow(longparent, "M", longop, "bad\xff\xfeutf8", NAN, INFINITY, 1, "=A1");
	rows[1] = mrow(longparent, "M", "op", "\xe2\x82\xac ok", -INFINITY, 5, 1, "");
	opmfu_module_mfu_init(&mod);
	mod.rows = rows;
	mod.n_rows = mod.cap_rows = 2;
	in_dir(path, sizeof(path), "operator_mfu_module_0.xlsx");
	CHECK_INT(write_module(dir, 0, &mod, 0, &xs, &e), OPMFU_OK);
	/* the merged parent once, the op once; the bad kernel list once; three non-finite numbers */
	CHECK_INT(xs.truncated, 2);
	CHECK_INT(xs.repaired, 1);
	CHECK_INT(xs.blanks, 3);
	got = xlsx_dump(path);
	CHECK(got != NULL);
	CHECK(xlsx_dump_has(got, "merge B2:B3"));
	CHECK(xlsx_dump_has(got, "merge C2:C3"));
	CHECK(xlsx_dump_has(got, "E2=bad\xef\xbf\xbd\xef\xbf\xbdutf8 (s) s2"));
	CHECK(xlsx_dump_has(got, "E3=\xe2\x82\xac ok (s) s2"));
	CHECK(xlsx_dump_has(got, "F2= (blank) s2"));
	CHECK(xlsx_dump_has(got, "G2= (blank) s2"));
	CHECK(xlsx_dump_has(got, "F3= (blank) s2"));
	CHECK(xlsx_dump_has(got, "G3=5 (n) s2"));
	CHECK(xlsx_dump_has(got, "I2==A1 (s) s2"));
	/* cut to exactly 32767 characters */
	longop[32767] = '\0';
	longparent[32767] = '\0';
	CHECK(got && strstr(got, "\nD2=") && !strncmp(strstr(got, "\nD2=") + 4, longop, 32767) &&
	      !strncmp(strstr(got, "\nD2=") + 4 + 32767, " (s)", 4));
	CHECK(got && strstr(got, "\nB2=") && !strncmp(strstr(got, "\nB2=") + 4 + 32767, " (s)", 4));
	snprintf(want, sizeof(want), "B2=%.8s", longparent);
	CHECK(got && strstr(got, want));
	free(got);
	free(longop);
	free(longparent);
	unlink(path);
}

/* The real limit: 1,048,576 data rows do not fit beside the header. */
static void test_real_limit(void)
{
	struct opmfu_module_mfu mod;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char path[4200];
	size_t i;

	CHECK_INT(OPMFU_XLSX_MAX_ROWS, 1048576);
	opmfu_module_mfu_init(&mod);
	mod.n_rows = mod.cap_rows = OPMFU_XLSX_MAX_ROWS;
	mod.rows = calloc(mod.n_rows, sizeof(*mod.rows));
	CHECK(mod.rows != NULL);
	if (!mod.rows)
		return;
	for (i = 0; i < mod.n_rows; i++)
		mod.rows[i] = mrow("P", "M", "op", "K", 1, 1, 1, "");
	in_dir(path, sizeof(path), "operator_mfu_module_1.xlsx");
	unlink(path);
	CHECK_INT(write_module(dir, 1, &mod, 0, NULL, &e), OPMFU_ERR_LIMIT);
	CHECK(strstr(e.msg, path) == e.msg);
	CHECK(strstr(e.msg, "1048576 ModuleMFU rows") && strstr(e.msg, "at most 1048575") &&
	      strstr(e.msg, "--export db"));
	CHECK(!exists(path));
	CHECK_INT(leftovers(), 0);
	/* and the previous file stays */
	put_file(path, "previous");
	CHECK_INT(write_module(dir, 1, &mod, 0, NULL, &e), OPMFU_ERR_LIMIT);
	CHECK(file_is(path, "previous"));
	unlink(path);
	free(mod.rows);
}

/* An empty table writes nothing and removes the file of an earlier run. */
static void test_empty(void)
{
	struct opmfu_module_mfu mod;
	struct opmfu_write_stats xs;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char path[4200];

	opmfu_module_mfu_init(&mod);
	in_dir(path, sizeof(path), "operator_mfu_module_3.xlsx");
	put_file(path, "stale");
	CHECK_INT(write_module(dir, 3, &mod, 0, &xs, &e), OPMFU_OK);
	CHECK_INT(xs.files, 0);
	CHECK(!exists(path));
	CHECK_INT(write_module(dir, 3, &mod, 0, &xs, &e), OPMFU_OK);
	CHECK(!exists(path));
}

/* Unwritable places: clear errors naming the file, nothing left behind. */
static void test_unwritable(void)
{
	struct opmfu_module_row row = mrow("P", "M", "op", "K", 1, 1, 1, "");
	struct opmfu_module_mfu mod;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char path[4300], file[4200];

	opmfu_module_mfu_init(&mod);
	mod.rows = &row;
	mod.n_rows = mod.cap_rows = 1;

	CHECK_INT(write_module("/nonexistent-opmfu-dir", 0, &mod, 0, NULL, &e), OPMFU_ERR_IO);
	CHECK(strstr(e.msg, "/nonexistent-opmfu-dir/operator_mfu_module_0.xlsx") &&
	      strstr(e.msg, "No such file or directory"));

	/* a file where the directory should be (chmod would not stop root) */
	in_dir(file, sizeof(file), "plainfile");
	put_file(file, "x");
	snprintf(path, sizeof(path), "%s/operator_mfu_module_0.xlsx", file);
	CHECK_INT(write_module(file, 0, &mod, 0, NULL, &e), OPMFU_ERR_IO);
	CHECK(strstr(e.msg, path) != NULL);
	unlink(file);

	/* a directory in the workbook's place: the rename fails, the temporary goes */
	in_dir(path, sizeof(path), "operator_mfu_module_0.xlsx");
	CHECK(mkdir(path, 0777) == 0);
	CHECK_INT(write_module(dir, 0, &mod, 0, NULL, &e), OPMFU_ERR_IO);
	CHECK(strstr(e.msg, path) != NULL);
	CHECK_INT(leftovers(), 0);
	rmdir(path);
}

/* Every allocation of a write failing in turn. */
static void test_nomem(void)
{
	struct opmfu_module_row rows[2];
	struct opmfu_module_mfu mod;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char path[4200];
	long k;
	int nomem = 0, ok = 0;

	rows[0] = mrow("P", "M", "op\xff", "K", 1, 1, 1, "");
	rows[1] = mrow("P", "M", "op", "K", 1, 1, 1, "");
	opmfu_module_mfu_init(&mod);
	mod.rows = rows;
	mod.n_rows = mod.cap_rows = 2;
	in_dir(path, sizeof(path), "operator_mfu_module_0.xlsx");
	put_file(path, "previous");
	for (k = 1; k < 200 && !ok; k++) {
		enum opmfu_status st;
		opmfu_mem_fail_after(k);
		st = write_module(dir, 0, &mod, 0, NULL, &e);
		opmfu_mem_fail_after(0);
		if (st == OPMFU_OK) {
			ok = 1;
			break;
		}
		nomem++;
		CHECK_INT(st, OPMFU_ERR_NOMEM);
		CHECK(strstr(e.msg, "out of memory") != NULL);
		CHECK(file_is(path, "previous"));
		CHECK_INT(leftovers(), 0);
	}
	CHECK(ok);
	CHECK(nomem >= 2);
	unlink(path);
}

/* ---- kernel workbook ---- */

static struct opmfu_trace T;
static struct opmfu_flops FL;

static uint32_t S(const char *s)
{
	return opmfu_strtab_intern(&T.strs, s, strlen(s));
}

static void add_link(const char *op, int64_t os, const char *k, int64_t ks, int64_t ke)
{
	struct opmfu_link l = { ks, ke, os, os + 50, S(k), S(op), S("4,4;4,4"), 0, S("4,4"), (uint32_t)T.n_links };
	OPMFU_GROW(T.links, T.cap_links, T.n_links + 1);
	T.links[T.n_links++] = l;
	T.n_compute++;
}

static void add_rec(int64_t start, int64_t end, int64_t flops, const char *msg)
{
	struct opmfu_range r = { start, end, flops, S(msg), (uint32_t)(strchr(msg, '-') - msg + 1) };
	(void)opmfu_ranges_add(&T.recs, &r);
}

static void test_kernel(void)
{
	struct opmfu_op_mfu op;
	struct opmfu_rank_peaks pk = { .flops = { [OPMFU_PREC_FP16] = 1e12, [OPMFU_PREC_INT8] = 2e12 } };
	struct opmfu_write_stats xs;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char path[4200], *got;

	opmfu_trace_init(&T);
	T.ref_classes = 1; /* an Ascend trace: the reference's dtype classes */
	opmfu_flops_init(&FL);
	opmfu_op_mfu_init(&op);
	/* fp16 peak 1e12 FLOPS; each record charges its whole FLOPs to each kernel */
	add_link("=1+1", 100, "-k", 1000, 2000);           /* 5e5 FLOPs / 1 us = 5e11 -> 0.5 */
	add_link("aten::mm", 300, "MatMulV3", 3000, 7000); /* 2e6 / 4 us = 5e11 -> 0.5 */
	add_link("aten::mm", 300, "Cast", 7000, 1736410576000013500LL); /* 19 digits, exact as text */
	add_rec(50, 150, 500000, "500000-=cmd|' /C calc'!A0");
	add_rec(250, 350, 2000000, "2000000-mm");
	CHECK_INT(opmfu_flops_run(&FL, &T, NULL, 0, &e), OPMFU_OK);
	CHECK_INT(opmfu_op_mfu_run(&T, &FL, &pk, &op, &e), OPMFU_OK);

	in_dir(path, sizeof(path), "operator_mfu_kernel_5.xlsx");
	CHECK_INT(write_kernel(dir, 5, &T, &op, 4, &xs, &e), OPMFU_OK);
	CHECK_INT(xs.files, KERNEL_FILE);
	got = xlsx_dump(path);
	CHECK(got != NULL);
	CHECK(xlsx_dump_has(got, "freeze A2"));
	CHECK(xlsx_dump_has(got, "autofilter A1:M4"));
	CHECK(xlsx_dump_has(got, "col C width 50 (xml 50.7109375)"));
	CHECK(xlsx_dump_has(got, "col G width 10 (xml 10.7109375)"));
	/* SPEC 14: the columns SPEC 4 does not size fit their headers (length +
	 * 3 for the filter button) and numbers: Rank ID 10, actual_tflops 16,
	 * chip_peak_tflops 19, flops 18 (16 digits); the texts 24 and 30 */
	CHECK(xlsx_dump_has(got, "col A width 10 (xml 10.7109375)"));
	CHECK(xlsx_dump_has(got, "col H width 16 (xml 16.7109375)"));
	CHECK(xlsx_dump_has(got, "col I width 19 (xml 19.7109375)"));
	CHECK(xlsx_dump_has(got, "col J width 18 (xml 18.7109375)"));
	CHECK(xlsx_dump_has(got, "col K width 24 (xml 24.7109375)"));
	CHECK(xlsx_dump_has(got, "col L width 30 (xml 30.7109375)"));
	CHECK(xlsx_dump_has(got, "col M width 30 (xml 30.7109375)"));
	CHECK(xlsx_dump_has(got, "page landscape fit 1x0"));
	CHECK(xlsx_dump_has(got, "print titles $1:$1"));
	CHECK(xlsx_dump_has(got, "conditional G2:G4 colorScale num 0 FFF8696B, num 0.5 FFFFEB84, num 1 FF63BE7B"));
	/* MFU above 100 % is marked suspect, not as green as a perfect kernel */
	CHECK(xlsx_dump_has(got, "conditional G2:G4 cellIs dxfId=0 operator=greaterThan stopIfTrue=1 formula 1 style (bold, "
			    "font FF7F0000, fill bgColor FFB4A7D6)"));
	CHECK(xlsx_dump_has(got, "ignore D2:E4 numberStoredAsText"));
	CHECK(xlsx_dump_has(got, "A2=5 (n) s2"));
	CHECK(xlsx_dump_has(got, "B2==1+1 (inlineStr) s2"));
	CHECK(xlsx_dump_has(got, "C2=-k (inlineStr) s2"));
	CHECK(xlsx_dump_has(got, "G2=0.5 (n) s3"));
	CHECK(xlsx_dump_has(got, "K2==cmd|' /C calc'!A0 (inlineStr) s2"));
	CHECK(xlsx_dump_has(got, "L2=4,4;4,4 (inlineStr) s2"));
	CHECK(xlsx_dump_has(got, "M2=4,4 (inlineStr) s2"));
	CHECK(xlsx_dump_has(got, "C3=MatMulV3 (inlineStr) s2"));
	CHECK(xlsx_dump_has(got, "G3=0.5 (n) s3"));
	CHECK(xlsx_dump_has(got, "E4=1736410576000013500 (inlineStr) s2"));
	free(got);
	CHECK_INT(leftovers(), 0);

	/* three rows and a header need 4 */
	CHECK_INT(write_kernel(dir, 5, &T, &op, 3, NULL, &e), OPMFU_ERR_LIMIT);
	CHECK(strstr(e.msg, "3 OperatorMFU rows") && strstr(e.msg, "--export db"));
	CHECK(exists(path));
	CHECK_INT(leftovers(), 0);

	/* no entries: no file, and the earlier one goes */
	opmfu_op_mfu_release(&op);
	opmfu_op_mfu_init(&op);
	CHECK_INT(write_kernel(dir, 5, &T, &op, 0, NULL, &e), OPMFU_OK);
	CHECK(!exists(path));
	opmfu_op_mfu_release(&op);
	opmfu_flops_release(&FL);
	opmfu_trace_release(&T);
}

/* A rank's workbooks by name: each put stages one under a temporary name;
 * keep_rank puts them in place (or removes an earlier file where a table had
 * no rows), drop_rank and close remove them (the earlier files stay). */
static void test_out_rank(void)
{
	struct opmfu_module_row row = mrow("P", "M", "op", "K", 1, 1, 1, "");
	struct opmfu_module_mfu mod;
	struct opmfu_module_view mv;
	struct opmfu_op_mfu op;
	struct opmfu_operator_mfu om;
	struct opmfu_rank_peaks pk = { .flops = { [OPMFU_PREC_FP16] = 1e12, [OPMFU_PREC_INT8] = 2e12 } };
	struct opmfu_table kt, mt;
	struct opmfu_write_stats xs;
	struct opmfu_writer *w = NULL;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char path[4200], mpath[4200], *got;

	opmfu_trace_init(&T);
	T.ref_classes = 1; /* an Ascend trace: the reference's dtype classes */
	opmfu_flops_init(&FL);
	opmfu_op_mfu_init(&op);
	opmfu_module_mfu_init(&mod);
	mod.rows = &row;
	mod.n_rows = mod.cap_rows = 1;
	CHECK_INT(open_xlsx(&w, dir, 0, &e), OPMFU_OK);
	if (!w)
		return;

	/* no kernel rows: nothing staged; commit removes the earlier file */
	in_dir(path, sizeof(path), "operator_mfu_kernel_-1.xlsx");
	in_dir(mpath, sizeof(mpath), "operator_mfu_module_-1.xlsx");
	put_file(path, "stale");
	CHECK_INT(opmfu_operator_mfu_build(&om, -1, &T, &op, &e), OPMFU_OK);
	kt = opmfu_operator_mfu_table(&om);
	CHECK_INT(opmfu_writer_put(w, -1, &kt, &e), OPMFU_OK);
	CHECK_INT(leftovers(), 0);
	CHECK(file_is(path, "stale"));
	mt = opmfu_module_table(&mv, &mod, -1);
	CHECK_INT(opmfu_writer_put(w, -1, &mt, &e), OPMFU_OK);
	CHECK(!exists(mpath));
	CHECK_INT(opmfu_writer_keep_rank(w, -1, &xs, &e), OPMFU_OK);
	CHECK_INT(xs.files, MODULE_FILE);
	/* every output of the run appears at its commit */
	CHECK(file_is(path, "stale"));
	CHECK(!exists(mpath));
	CHECK_INT(leftovers(), 1);
	CHECK_INT(opmfu_writer_commit(w, &e), OPMFU_OK);
	CHECK(!exists(path));
	CHECK(exists(mpath));
	CHECK_INT(leftovers(), 0);
	unlink(mpath);
	opmfu_operator_mfu_release(&om);

	/* one kernel row: staged complete, the earlier file untouched until keep */
	add_link("aten::mm", 300, "MatMulV3", 3000, 7000);
	add_rec(250, 350, 2000000, "2000000-mm");
	CHECK_INT(opmfu_flops_run(&FL, &T, NULL, 0, &e), OPMFU_OK);
	CHECK_INT(opmfu_op_mfu_run(&T, &FL, &pk, &op, &e), OPMFU_OK);
	in_dir(path, sizeof(path), "operator_mfu_kernel_2.xlsx");
	in_dir(mpath, sizeof(mpath), "operator_mfu_module_2.xlsx");
	put_file(path, "earlier");
	put_file(mpath, "earlier");
	CHECK_INT(opmfu_operator_mfu_build(&om, 2, &T, &op, &e), OPMFU_OK);
	kt = opmfu_operator_mfu_table(&om);
	mt = opmfu_module_table(&mv, &mod, 2);
	CHECK_INT(opmfu_writer_put(w, 2, &kt, &e), OPMFU_OK);
	CHECK(file_is(path, "earlier"));
	CHECK_INT(leftovers(), 1);
	/* the rank failed later: the earlier workbooks stay, nothing is left over */
	CHECK_INT(opmfu_writer_drop_rank(w, 2, &e), OPMFU_OK);
	CHECK(file_is(path, "earlier") && file_is(mpath, "earlier"));
	CHECK_INT(leftovers(), 0);
	CHECK_INT(opmfu_writer_drop_rank(w, 2, &e), OPMFU_OK); /* twice is harmless */
	/* nothing staged: keep changes nothing */
	CHECK_INT(opmfu_writer_keep_rank(w, 2, &xs, &e), OPMFU_OK);
	CHECK_INT(xs.files, 0);
	CHECK(file_is(path, "earlier") && file_is(mpath, "earlier"));

	/* both staged, then kept and committed: both in place */
	CHECK_INT(opmfu_writer_put(w, 2, &kt, &e), OPMFU_OK);
	CHECK_INT(opmfu_writer_put(w, 2, &mt, &e), OPMFU_OK);
	CHECK_INT(leftovers(), 2);
	CHECK(file_is(path, "earlier") && file_is(mpath, "earlier"));
	CHECK_INT(opmfu_writer_keep_rank(w, 2, &xs, &e), OPMFU_OK);
	CHECK_INT(xs.files, KERNEL_FILE | MODULE_FILE);
	CHECK_INT(leftovers(), 2);
	CHECK(file_is(path, "earlier") && file_is(mpath, "earlier"));
	CHECK_INT(opmfu_writer_commit(w, &e), OPMFU_OK);
	CHECK_INT(leftovers(), 0);
	got = xlsx_dump(path);
	CHECK(got != NULL);
	CHECK(xlsx_dump_has(got, "A2=2 (n) s2"));
	CHECK(xlsx_dump_has(got, "C2=MatMulV3 (inlineStr) s2"));
	CHECK(xlsx_dump_has(got, "G2=0.5 (n) s3"));
	free(got);
	CHECK(!file_is(mpath, "earlier") && exists(mpath));
	unlink(path);
	unlink(mpath);

	/* staged when the run fails: close removes it */
	put_file(path, "earlier");
	CHECK_INT(opmfu_writer_put(w, 2, &kt, &e), OPMFU_OK);
	CHECK_INT(leftovers(), 1);
	opmfu_writer_close(w);
	CHECK_INT(leftovers(), 0);
	CHECK(file_is(path, "earlier"));
	unlink(path);

	/* the kernel workbook's directory vanished: the error names the file */
	CHECK_INT(open_xlsx(&w, "/nonexistent-opmfu-dir", 0, &e), OPMFU_OK);
	CHECK_INT(opmfu_writer_put(w, 2, &kt, &e), OPMFU_ERR_IO);
	CHECK(strstr(e.msg, "/nonexistent-opmfu-dir/operator_mfu_kernel_2.xlsx") == e.msg);
	CHECK_INT(opmfu_writer_keep_rank(w, 2, &xs, &e), OPMFU_OK);
	CHECK_INT(xs.files, 0);
	opmfu_writer_close(w);
	opmfu_operator_mfu_release(&om);
	opmfu_op_mfu_release(&op);
	opmfu_flops_release(&FL);
	opmfu_trace_release(&T);
}

int main(int argc, char **argv)
{
	if (xlsx_test_start(argc, argv, "t_write_xlsx", dir, sizeof(dir)) < 0)
		return 2;

	test_module();
	test_module_edges();
	test_real_limit();
	test_empty();
	test_unwritable();
	test_nomem();
	test_kernel();
	test_out_rank();

	if (!check_failures) {
		char p[4200];
		unlink(in_dir(p, sizeof(p), "operator_mfu_module_7.xlsx"));
		rmdir(dir);
	}
	return check_done();
}
