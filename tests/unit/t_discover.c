/*
 * t_discover.c - rank discovery (read/discover.c) over trees built here:
 * rank directories at several depths, a bare database, a single card,
 * duplicates resolved by timestamp, several paths that overlap or share
 * rank ids, a loop, selection; a second (fake)
 * reader shows that ranks of two formats share one list, as two runs, and
 * a third one that a file may hold several ranks (as nsys's do); runs
 * (SPEC 17): their IDs and --run's choice among them; and the Ascend
 * reader's chip info (read/ascend/ascend_dir.c) into the trace's device.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/mem.h"
#include "check.h"
#include "read/ascend/ascend.h"
#include "read/kineto/kineto.h"
#include "read/reader.h"

static char root[64];

/* mkdir -p root/rel */
static void mkdirs(const char *rel)
{
	char p[512];
	size_t i;
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (i = strlen(root) + 1; p[i]; i++) {
		if (p[i] != '/')
			continue;
		p[i] = '\0';
		mkdir(p, 0777);
		p[i] = '/';
	}
	CHECK(mkdir(p, 0777) == 0 || errno == EEXIST);
}

/* Writes root/rel (folders made first). */
static void put(const char *rel, const char *text)
{
	char p[512], d[512], *slash;
	FILE *f;
	snprintf(d, sizeof(d), "%s", rel);
	slash = strrchr(d, '/');
	if (slash) {
		*slash = '\0';
		mkdirs(d);
	}
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static const char *at(const char *rel)
{
	static char p[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", root, rel);
	return p[k];
}

static char warnings[4096];

static void on_warn(void *ctx, const char *msg)
{
	(void)ctx;
	snprintf(warnings + strlen(warnings), sizeof(warnings) - strlen(warnings), "%s\n", msg);
}

static enum opmfu_status find(const char *rel, const struct opmfu_reader *const *readers,
			      struct opmfu_rank_list *list, struct opmfu_err *e)
{
	const char *path = at(rel);
	memset(list, 0, sizeof(*list));
	warnings[0] = '\0';
	memset(e, 0, sizeof(*e));
	return opmfu_discover(&path, 1, readers, 0, list, on_warn, NULL, e);
}

#define DB(rank_dir, n) rank_dir "/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_" #n ".db"

static void test_cluster(void)
{
	struct opmfu_rank_list l;
	struct opmfu_err e;

	put(DB("c/a/host_1_20260101000000000_ascend_pt", 2), "");
	put(DB("c/b/c/d/e/r3_ascend_pt", 3), "");              /* 5 levels below: found */
	put(DB("c/f/g/h/i/j/r4_ascend_pt", 4), "");            /* 6 levels: not */
	put("c/k/ascend_pytorch_profiler_5.db", "");           /* no rank directory */
	mkdirs("c/m/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_6.db"); /* a folder, not a database */
	put(DB("c/0_ascend_pt", 0), "");                      /* the walk stops at a rank directory: */
	put(DB("c/0_ascend_pt/inner_ascend_pt", 7), "");      /* nothing below it is looked at */
	CHECK_INT(find("c", NULL, &l, &e), OPMFU_OK);
	CHECK_INT(l.n, 3);
	if (l.n == 3) {
		CHECK_INT(l.v[0].rank, 0);
		CHECK_INT(l.v[1].rank, 2);
		CHECK_INT(l.v[2].rank, 3);
		CHECK_STR(l.v[1].dir, at("c/a/host_1_20260101000000000_ascend_pt"));
		CHECK_STR(l.v[1].path, at(DB("c/a/host_1_20260101000000000_ascend_pt", 2)));
		CHECK_STR(l.v[1].stamp, "20260101000000000");
		CHECK_STR(l.v[1].out_hint, at("c"));
		CHECK_STR(l.v[1].reader->name, "ascend");
		CHECK_STR(l.v[2].dir, at("c/b/c/d/e/r3_ascend_pt"));
		CHECK(l.v[2].stamp == NULL); /* "r3": no digits in the timestamp field */
	}
	CHECK_STR(warnings, "");
	opmfu_rank_list_release(&l);

	/* a trailing slash is dropped; the path itself may be a rank directory */
	CHECK_INT(find("c/a/host_1_20260101000000000_ascend_pt/", NULL, &l, &e), OPMFU_OK);
	CHECK(l.n == 1 && l.v[0].rank == 2);
	if (l.n == 1)
		CHECK_STR(l.v[0].out_hint, at("c/a/host_1_20260101000000000_ascend_pt"));
	opmfu_rank_list_release(&l);

	/* --rank-list */
	CHECK_INT(find("c", NULL, &l, &e), OPMFU_OK);
	{
		int want[] = { 3, 0 }, missing[] = { 5 };
		CHECK_INT(opmfu_rank_list_select(&l, missing, 1, &e), OPMFU_ERR_USAGE);
		CHECK_STR(e.msg, "rank 5 is not in the input (found 3 ranks)");
		CHECK_INT(l.n, 3);
		CHECK_INT(opmfu_rank_list_select(&l, want, 2, &e), OPMFU_OK);
		CHECK(l.n == 2 && l.v[0].rank == 0 && l.v[1].rank == 3);
	}
	opmfu_rank_list_release(&l);
}

static void test_files(void)
{
	struct opmfu_rank_list l;
	struct opmfu_err e;
	char want[512];

	/* a bare database: its rank directory is the parent's parent */
	CHECK_INT(find(DB("c/a/host_1_20260101000000000_ascend_pt", 2), NULL, &l, &e), OPMFU_OK);
	CHECK(l.n == 1 && l.v[0].rank == 2);
	if (l.n == 1) {
		CHECK_STR(l.v[0].dir, at("c/a/host_1_20260101000000000_ascend_pt"));
		CHECK_STR(l.v[0].out_hint, at("c/a/host_1_20260101000000000_ascend_pt"));
		CHECK_STR(l.v[0].stamp, "20260101000000000");
	}
	opmfu_rank_list_release(&l);
	/* any file named is taken as a database, in its own folder */
	CHECK_INT(find("c/k/ascend_pytorch_profiler_5.db", NULL, &l, &e), OPMFU_OK);
	CHECK(l.n == 1 && l.v[0].rank == 5);
	if (l.n == 1)
		CHECK_STR(l.v[0].dir, at("c/k"));
	opmfu_rank_list_release(&l);
	put("other/profile.sqlite", "");
	CHECK_INT(find("other/profile.sqlite", NULL, &l, &e), OPMFU_OK);
	CHECK(l.n == 1 && l.v[0].rank == -1);
	opmfu_rank_list_release(&l);

	/* single card: no rank number */
	put("single/host_20260101000000000_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler.db", "");
	CHECK_INT(find("single", NULL, &l, &e), OPMFU_OK);
	CHECK(l.n == 1 && l.v[0].rank == -1);
	opmfu_rank_list_release(&l);

	/* nothing found, and a path that is not there */
	mkdirs("empty/a/b");
	CHECK_INT(find("empty", NULL, &l, &e), OPMFU_ERR_NOINPUT);
	snprintf(want, sizeof(want),
		 "%s: no rank found (looked for PyTorch profiler traces (*.json, *.json.gz) or Nsight Systems SQLite exports "
		 "(*.sqlite) or "
		 "ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler*.db up to 5 levels below)",
		 at("empty"));
	CHECK_STR(e.msg, want);
	opmfu_rank_list_release(&l);
	CHECK_INT(find("nowhere", NULL, &l, &e), OPMFU_ERR_IO);
	snprintf(want, sizeof(want), "%s: No such file or directory", at("nowhere"));
	CHECK_STR(e.msg, want);
	opmfu_rank_list_release(&l);
}

static void test_duplicates(void)
{
	struct opmfu_rank_list l;
	struct opmfu_err e;
	char want[1024];

	/* the newer one comes second, then first; numbers compare as numbers */
	put(DB("d1/a/host_1_20260101000000000_ascend_pt", 1), "");
	put(DB("d1/b/host_1_20260102000000000_ascend_pt", 1), "");
	CHECK_INT(find("d1", NULL, &l, &e), OPMFU_OK);
	CHECK(l.n == 1 && l.v[0].rank == 1);
	if (l.n == 1)
		CHECK_STR(l.v[0].dir, at("d1/b/host_1_20260102000000000_ascend_pt"));
	snprintf(want, sizeof(want), "rank 1 found twice: using %s (newer timestamp), ignoring %s\n",
		 at("d1/b/host_1_20260102000000000_ascend_pt"), at("d1/a/host_1_20260101000000000_ascend_pt"));
	CHECK_STR(warnings, want);
	opmfu_rank_list_release(&l);

	put(DB("d2/a/host_1_0999_ascend_pt", 1), "");
	put(DB("d2/b/host_1_100_ascend_pt", 1), "");
	CHECK_INT(find("d2", NULL, &l, &e), OPMFU_OK);
	CHECK(l.n == 1);
	if (l.n == 1)
		CHECK_STR(l.v[0].dir, at("d2/a/host_1_0999_ascend_pt"));
	snprintf(want, sizeof(want), "rank 1 found twice: using %s (newer timestamp), ignoring %s\n",
		 at("d2/a/host_1_0999_ascend_pt"), at("d2/b/host_1_100_ascend_pt"));
	CHECK_STR(warnings, want);
	opmfu_rank_list_release(&l);

	/* no timestamp on either side: the first found */
	put(DB("d3/a/x_ascend_pt", 4), "");
	put(DB("d3/b/y_ascend_pt", 4), "");
	CHECK_INT(find("d3", NULL, &l, &e), OPMFU_OK);
	snprintf(want, sizeof(want),
		 "rank 4 found twice: using %s (same or no timestamp: the first found), ignoring %s\n",
		 at("d3/a/x_ascend_pt"), at("d3/b/y_ascend_pt"));
	CHECK_STR(warnings, want);
	opmfu_rank_list_release(&l);

	/* the same database through two paths is one rank, silently */
	{
		const char *paths[2];
		paths[0] = at("d3/a/x_ascend_pt");
		paths[1] = at(DB("d3/a/x_ascend_pt", 4));
		memset(&l, 0, sizeof(l));
		warnings[0] = '\0';
		CHECK_INT(opmfu_find_ranks(paths[0], NULL, &l, on_warn, NULL, &e), OPMFU_OK);
		CHECK_INT(opmfu_find_ranks(paths[1], NULL, &l, on_warn, NULL, &e), OPMFU_OK);
		CHECK_INT(l.n, 1);
		CHECK_STR(warnings, "");
		opmfu_rank_list_release(&l);
	}

	/* a symbolic link back to an ancestor is a loop, said once */
	put(DB("loop/r_ascend_pt", 0), "");
	mkdirs("loop/a");
	CHECK(symlink("..", at("loop/a/up")) == 0);
	CHECK_INT(find("loop", NULL, &l, &e), OPMFU_OK);
	CHECK_INT(l.n, 1);
	snprintf(want, sizeof(want), "%s: directory loop (symbolic link back to an ancestor), skipped\n",
		 at("loop/a/up"));
	CHECK_STR(warnings, want);
	opmfu_rank_list_release(&l);
}

/* ---- a second format: one file per rank, "rankN_STAMP.fake" ---- */

static enum opmfu_probe fake_probe_file(const char *path, int named, struct opmfu_rank_input *in,
				       struct opmfu_rank_list *more)
{
	const char *base = strrchr(path, '/'), *us;
	size_t n;
	(void)named;
	(void)more;
	base = base ? base + 1 : path;
	n = strlen(base);
	if (n < 10 || strncmp(base, "rank", 4) || strcmp(base + n - 5, ".fake") || !(us = strchr(base, '_')))
		return OPMFU_PROBE_NO;
	in->rank = atoi(base + 4);
	in->path = opmfu_strdup(path);
	in->dir = opmfu_strndup(path, (size_t)(base - path) - 1);
	in->stamp = opmfu_strndup(us + 1, (size_t)(base + n - 5 - us - 1));
	in->name = in->path; /* messages name the file */
	if (!in->path || !in->dir || !in->stamp) {
		opmfu_rank_input_release(in);
		return OPMFU_PROBE_NOMEM;
	}
	return OPMFU_PROBE_YES;
}

static enum opmfu_status fake_read(const struct opmfu_rank_input *in, struct opmfu_trace *t,
				   const struct opmfu_read_opts *o, struct opmfu_err *err)
{
	(void)err;
	snprintf(t->device.chip, sizeof(t->device.chip), "fake rank %d", in->rank);
	if (o->on_links)
		o->on_links(o->ctx, t);
	return OPMFU_OK;
}

static const struct opmfu_reader fake_reader = { "fake", "rank*.fake", NULL, fake_probe_file, fake_read, NULL };

static void count_links(void *ctx, const struct opmfu_trace *t)
{
	(void)t;
	++*(int *)ctx;
}

/* Several paths (issue 23): overlapping ones, two runs with the same rank
 * ids, one given twice. A rank id is one rank whatever path found it, by
 * SPEC 1.1's rule (newer timestamp, else the path given first); each pair of
 * paths and outcome is one warning naming the ids. */
static enum opmfu_status find_all(const char *const *rels, size_t n, struct opmfu_rank_list *list,
				  struct opmfu_err *e)
{
	const char *paths[4];
	static char keep[4][512];
	size_t i;
	for (i = 0; i < n; i++) {
		snprintf(keep[i], sizeof(keep[i]), "%s", at(rels[i]));
		paths[i] = keep[i];
	}
	memset(list, 0, sizeof(*list));
	warnings[0] = '\0';
	memset(e, 0, sizeof(*e));
	return opmfu_discover(paths, n, NULL, 0, list, on_warn, NULL, e);
}

static void test_several(void)
{
	struct opmfu_rank_list l;
	struct opmfu_err e;
	char want[2048], run1[512];
	const char *overlap[] = { "run1", "run1/host_2_20260101000000000_ascend_pt" };
	const char *runs[] = { "run1", "run2" };
	const char *twice[] = { "run1", "run3", "run1" };
	const char *copies[] = { "run1", "copy" };
	const char *none[] = { "run1", "empty2" };
	long k;
	int nomem = 0;

	/* run1 and copy: the same names, so the same ids and timestamps */
	for (k = 0; k < 8; k++) {
		char rel[128];
		static const int ids[] = { 0, 1, 2, 5 };
		snprintf(rel, sizeof(rel), "%s/host_%d_20260101000000000_ascend_pt/ASCEND_PROFILER_OUTPUT/"
			 "ascend_pytorch_profiler_%d.db", k < 4 ? "run1" : "copy", ids[k % 4] + 1, ids[k % 4]);
		put(rel, "");
	}
	put(DB("run2/host_1_20260102000000000_ascend_pt", 0), "");
	put(DB("run2/host_2_20260102000000000_ascend_pt", 1), "");
	put(DB("run2/host_8_20260102000000000_ascend_pt", 7), "");
	put(DB("run3/x_ascend_pt", 5), "");
	mkdirs("empty2/a");

	/* the second path is inside the first: read once, said once (it was "no rank found") */
	CHECK_INT(find_all(overlap, 2, &l, &e), OPMFU_OK);
	CHECK_INT(l.n, 4);
	snprintf(want, sizeof(want), "%s: rank 1 already found under %s (the same files); read once\n",
		 at("run1/host_2_20260101000000000_ascend_pt"), at("run1"));
	CHECK_STR(warnings, want);
	opmfu_rank_list_release(&l);

	/* two runs: ranks 0 and 1 in both, run2's newer; 2 and 5 only in run1, 7 only in run2 */
	CHECK_INT(find_all(runs, 2, &l, &e), OPMFU_OK);
	CHECK_INT(l.n, 5);
	if (l.n == 5) {
		CHECK(l.v[0].rank == 0 && l.v[1].rank == 1 && l.v[2].rank == 2 && l.v[3].rank == 5 && l.v[4].rank == 7);
		CHECK_STR(l.v[0].dir, at("run2/host_1_20260102000000000_ascend_pt"));
		CHECK_STR(l.v[1].dir, at("run2/host_2_20260102000000000_ascend_pt"));
		CHECK_STR(l.v[2].dir, at("run1/host_3_20260101000000000_ascend_pt"));
		CHECK_STR(l.v[0].out_hint, at("run2"));
	}
	snprintf(want, sizeof(want),
		 "ranks 0-1 found under both %s and %s: using those under %s (newer timestamp), ignoring %s\n",
		 at("run1"), at("run2"), at("run2"), at("run1"));
	CHECK_STR(warnings, want);
	opmfu_rank_list_release(&l);

	/* run3's rank 5 has no timestamp: run1's is newer; run1 again is the same files */
	CHECK_INT(find_all(twice, 3, &l, &e), OPMFU_OK);
	CHECK_INT(l.n, 4);
	/* at() keeps 4 paths: this message names 5 */
	snprintf(run1, sizeof(run1), "%s", at("run1"));
	snprintf(want, sizeof(want),
		 "%s is given twice: its ranks 0-2, 5 are read once\n"
		 "rank 5 found under both %s and %s: using the one under %s (newer timestamp), ignoring %s\n",
		 run1, run1, at("run3"), run1, at("run3"));
	CHECK_STR(warnings, want);
	opmfu_rank_list_release(&l);

	/* a copy: the same timestamps, so the path given first */
	CHECK_INT(find_all(copies, 2, &l, &e), OPMFU_OK);
	CHECK_INT(l.n, 4);
	if (l.n == 4)
		CHECK_STR(l.v[3].dir, at("run1/host_6_20260101000000000_ascend_pt"));
	snprintf(want, sizeof(want),
		 "ranks 0-2, 5 found under both %s and %s: using those under %s (same or no timestamp: the first "
		 "given), ignoring %s\n",
		 at("run1"), at("copy"), at("run1"), at("copy"));
	CHECK_STR(warnings, want);
	opmfu_rank_list_release(&l);

	/* a path with no rank at all is still an error */
	CHECK_INT(find_all(none, 2, &l, &e), OPMFU_ERR_NOINPUT);
	snprintf(want, sizeof(want),
		 "%s: no rank found (looked for PyTorch profiler traces (*.json, *.json.gz) or Nsight Systems SQLite exports "
		 "(*.sqlite) or "
		 "ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler*.db up to 5 levels below)",
		 at("empty2"));
	CHECK_STR(e.msg, want);
	opmfu_rank_list_release(&l);

	/* within one path, a symbolic link to a rank directory is the same files: silently one */
	put(DB("sym/host_1_20260101000000000_ascend_pt", 0), "");
	CHECK(symlink("host_1_20260101000000000_ascend_pt", at("sym/z_ascend_pt")) == 0);
	CHECK_INT(find("sym", NULL, &l, &e), OPMFU_OK);
	CHECK_INT(l.n, 1);
	CHECK_STR(warnings, "");
	opmfu_rank_list_release(&l);

	/* every allocation failing in turn */
	for (k = 1; k < 200; k++) {
		enum opmfu_status st;
		opmfu_mem_fail_after(k);
		st = find_all(twice, 3, &l, &e);
		opmfu_mem_fail_after(0);
		if (st == OPMFU_OK) {
			CHECK_INT(l.n, 4);
		} else {
			nomem++;
			CHECK_INT(st, OPMFU_ERR_NOMEM);
			CHECK(strstr(e.msg, "out of memory") != NULL);
		}
		opmfu_rank_list_release(&l);
	}
	CHECK(nomem > 10);
}

static void test_mixed(void)
{
	const struct opmfu_reader *const readers[] = { &opmfu_reader_ascend, &fake_reader, NULL };
	struct opmfu_rank_list l;
	struct opmfu_err e;
	char want[2048];

	put(DB("mix/host_1_20260101000000000_ascend_pt", 0), "");
	put("mix/gpu/rank1_1000.fake", "");
	put("mix/gpu/rank0_20260105000000000.fake", ""); /* newer than the Ascend rank 0 */
	put("mix/gpu/deep/er/still/rank2_5.fake", "");    /* 5 levels below */
	put("mix/gpu/deep/er/still/no/rank3_5.fake", ""); /* 6: not */
	put("mix/gpu/notes.txt", "");
	CHECK_INT(find("mix", readers, &l, &e), OPMFU_OK);
	CHECK_INT(l.n, 4);
	if (l.n == 4) {
		struct opmfu_read_opts ro = { 1, count_links, NULL };
		struct opmfu_trace t;
		int links = 0;
		/* two formats are two runs (SPEC 17), by ID then rank: a reader
		 * that sets no run key has one run, named after it */
		CHECK(l.v[0].rank == 0 && l.v[0].reader == &opmfu_reader_ascend);
		CHECK_STR(l.v[0].run_id, "ascend");
		CHECK(l.v[1].rank == 0 && l.v[1].reader == &fake_reader);
		CHECK(l.v[2].rank == 1 && l.v[2].reader == &fake_reader);
		CHECK(l.v[3].rank == 2 && l.v[3].reader == &fake_reader);
		CHECK_STR(l.v[3].run_id, "fake");
		CHECK_STR(l.v[2].dir, at("mix/gpu"));
		CHECK_STR(l.v[2].out_hint, at("mix"));
		/* each entry is read by its own reader */
		ro.ctx = &links;
		opmfu_trace_init(&t);
		CHECK_INT(l.v[2].reader->read(&l.v[2], &t, &ro, &e), OPMFU_OK);
		CHECK_STR(t.device.chip, "fake rank 1");
		CHECK_INT(links, 1);
		opmfu_trace_release(&t);
	}
	/* rank 0 of either format is no duplicate of the other's: runs apart */
	CHECK_STR(warnings, "");
	/* and the path is refused without --run */
	CHECK_INT(opmfu_rank_list_pick_run(&l, NULL, "mix", &e), OPMFU_ERR_USAGE);
	CHECK_INT(l.n, 4);
	CHECK_INT(opmfu_rank_list_pick_run(&l, "fake", "mix", &e), OPMFU_OK);
	CHECK(l.n == 3 && l.v[0].reader == &fake_reader && l.v[0].rank == 0);
	opmfu_rank_list_release(&l);

	/* a fake file named by the user beats the Ascend fallback for any file */
	CHECK_INT(find("mix/gpu/rank1_1000.fake", readers, &l, &e), OPMFU_OK);
	CHECK(l.n == 1 && l.v[0].reader == &fake_reader && l.v[0].rank == 1);
	if (l.n == 1)
		CHECK_STR(l.v[0].out_hint, at("mix/gpu"));
	opmfu_rank_list_release(&l);

	/* the message names what every reader looks for */
	CHECK_INT(find("empty", readers, &l, &e), OPMFU_ERR_NOINPUT);
	snprintf(want, sizeof(want),
		 "%s: no rank found (looked for ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler*.db or rank*.fake up to 5 levels below)",
		 at("empty"));
	CHECK_STR(e.msg, want);
	opmfu_rank_list_release(&l);
}

/* ---- a format whose file holds several ranks (as an nsys export of
 * several (device, process) pairs): "NAME_K.multi" is K ranks, ids 5, 6,
 * ... (one alone: 9), part[0] = k ---- */

static enum opmfu_probe multi_probe_file(const char *path, int named, struct opmfu_rank_input *in,
					 struct opmfu_rank_list *more)
{
	const char *base = strrchr(path, '/'), *us;
	int k, n;
	(void)named;
	base = base ? base + 1 : path;
	if (strlen(base) < 8 || strcmp(base + strlen(base) - 6, ".multi") || !(us = strchr(base, '_')))
		return OPMFU_PROBE_NO;
	n = atoi(us + 1);
	for (k = 0; k < n && (k == 0 || more); k++) {
		struct opmfu_rank_input *r = in;
		if (k > 0) {
			if (OPMFU_GROW(more->v, more->cap, more->n + 1))
				goto nomem;
			r = &more->v[more->n];
			memset(r, 0, sizeof(*r));
		}
		r->rank = n == 1 ? 9 : 5 + k;
		r->part[0] = k;
		r->n_parts = n;
		r->path = opmfu_strdup(path);
		r->dir = opmfu_strndup(path, (size_t)(base - path) - 1);
		r->name = r->path;
		if (!r->path || !r->dir) {
			opmfu_rank_input_release(r);
			goto nomem;
		}
		if (k > 0)
			more->n++;
	}
	return OPMFU_PROBE_YES;
nomem:
	opmfu_rank_input_release(in);
	if (more)
		opmfu_rank_list_release(more);
	return OPMFU_PROBE_NOMEM;
}

static const struct opmfu_reader multi_reader = { "multi", "*.multi", NULL, multi_probe_file, fake_read, NULL };

/* Every rank a file holds is taken, each named by the file and read by its
 * reader, results going where the file's would; rank ids of two files are
 * one run's (a clash gets the duplicate rule). */
static void test_parts(void)
{
	const struct opmfu_reader *const readers[] = { &multi_reader, NULL };
	struct opmfu_rank_list l;
	struct opmfu_err e;
	char want[2048];
	size_t i;

	put("parts/job/a_3.multi", "");
	put("parts/job/b_1.multi", "");
	CHECK_INT(find("parts", readers, &l, &e), OPMFU_OK);
	CHECK_INT(l.n, 4);
	for (i = 0; i < l.n && l.n == 4; i++) {
		CHECK_INT(l.v[i].rank, i < 3 ? 5 + (int)i : 9);
		CHECK(l.v[i].part[0] == (i < 3 ? (int64_t)i : 0) && l.v[i].n_parts == (i < 3 ? 3 : 1));
		CHECK(l.v[i].reader == &multi_reader);
		CHECK_STR(l.v[i].name, at(i < 3 ? "parts/job/a_3.multi" : "parts/job/b_1.multi"));
		CHECK_STR(l.v[i].out_hint, at("parts"));
		CHECK_STR(l.v[i].run_id, "multi");
	}
	CHECK_STR(warnings, "");
	opmfu_rank_list_release(&l);

	/* a file named by the user: its ranks' results go to its folder */
	CHECK_INT(find("parts/job/a_3.multi", readers, &l, &e), OPMFU_OK);
	CHECK_INT(l.n, 3);
	for (i = 0; i < l.n; i++)
		CHECK_STR(l.v[i].out_hint, at("parts/job"));
	opmfu_rank_list_release(&l);

	/* two files of the same ids: each id once, the first found (name order) */
	put("parts/dup/x_2.multi", "");
	put("parts/dup/y_2.multi", "");
	CHECK_INT(find("parts/dup", readers, &l, &e), OPMFU_OK);
	CHECK_INT(l.n, 2);
	for (i = 0; i < l.n; i++)
		CHECK_STR(l.v[i].path, at("parts/dup/x_2.multi"));
	snprintf(want, sizeof(want),
		 "rank 5 found twice: using %s (same or no timestamp: the first found), ignoring %s\n"
		 "rank 6 found twice: using %s (same or no timestamp: the first found), ignoring %s\n",
		 at("parts/dup/x_2.multi"), at("parts/dup/y_2.multi"), at("parts/dup/x_2.multi"),
		 at("parts/dup/y_2.multi"));
	CHECK_STR(warnings, want);
	opmfu_rank_list_release(&l);
}

/* ---- Kineto traces beside Ascend rank directories (SPEC 13) ---- */

static void put_gz(const char *rel, const char *text)
{
	gzFile f = gzopen(at(rel), "wb");
	CHECK(f != NULL);
	if (f) {
		gzputs(f, text);
		gzclose(f);
	}
}

static void test_kineto(void)
{
	struct opmfu_rank_list l;
	struct opmfu_err e;
	char want[2048];

	/* an Ascend rank 0 (its profiler_info_0.json is inside its rank
	 * directory, which the walk does not enter) */
	put(DB("kin/a/host_1_20260101000000000_ascend_pt", 0), "");
	put("kin/a/host_1_20260101000000000_ascend_pt/profiler_info_0.json", "{\"config\": {}}");
	mkdirs("kin/k");
	/* rank from the file name */
	put("kin/k/rank1.json", "{\"traceEvents\": []}");
	/* from distributedInfo before traceEvents, in a gzip'd file */
	put_gz("kin/k/job.pt.trace.json.gz",
	       "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 2}, \"traceEvents\": []}");
	/* distributedInfo after traceEvents: a plain file's tail gives it (rank 5, the job's run) */
	put("kin/k/late.json", "{\"traceEvents\": [], \"distributedInfo\": {\"rank\": 5}}");
	/* a cut trace is still a trace (reading it says what is wrong) */
	put("kin/k/broken.json", "{\"metadata\": {\"a\": [1, 2]}, \"traceEvents\": [{\"ph\":");
	/* JSON that is no trace, and files of other names: not taken */
	put("kin/k/profiler_info_1.json", "{\"config\": {\"common_config\": {}}, \"end_info\": {}}");
	put("kin/k/info.json", "{\"DeviceInfo\": [{\"ai_core_num\": 24}]}");
	put("kin/k/array.json", "[{\"traceEvents\": []}]");
	put("kin/k/text.json", "traceEvents");
	put("kin/k/notes.txt", "{\"traceEvents\": []}");
	put("kin/k/info.json.0", "{\"traceEvents\": []}");
	CHECK_INT(find("kin", NULL, &l, &e), OPMFU_OK);
	CHECK_INT(l.n, 5);
	if (l.n == 5) {
		/* four runs (SPEC 17), in ID order: the Ascend rank; the job
		 * (distributedInfo, neither world size nor GPU known: ranks 2
		 * and 5, the latter's after traceEvents); the rank -1 trace, its
		 * own run; rank1.json, numbered by its name, a run of its
		 * folder's */
		CHECK(l.v[0].rank == 0 && l.v[0].reader == &opmfu_reader_ascend);
		CHECK_STR(l.v[0].run_id, "ascend");
		CHECK(l.v[1].rank == 2 && l.v[1].reader == &opmfu_reader_kineto);
		CHECK_STR(l.v[1].path, at("kin/k/job.pt.trace.json.gz"));
		CHECK_STR(l.v[1].run_id, "kineto");
		CHECK(l.v[2].rank == 5 && l.v[2].reader == &opmfu_reader_kineto);
		CHECK_STR(l.v[2].path, at("kin/k/late.json"));
		CHECK_STR(l.v[2].run_id, "kineto");
		CHECK(l.v[3].rank == -1 && l.v[3].reader == &opmfu_reader_kineto);
		CHECK_STR(l.v[3].path, at("kin/k/broken.json"));
		CHECK_STR(l.v[3].dir, at("kin/k"));
		CHECK_STR(l.v[3].name, at("kin/k/broken.json"));
		CHECK(l.v[3].stamp == NULL);
		CHECK_STR(l.v[3].out_hint, at("kin"));
		CHECK_STR(l.v[3].run_id, "kineto-broken");
		CHECK(l.v[4].rank == 1 && l.v[4].reader == &opmfu_reader_kineto);
		CHECK_STR(l.v[4].path, at("kin/k/rank1.json"));
		CHECK_STR(l.v[4].run_id, "kineto-k");
	}
	CHECK_STR(warnings, "");
	opmfu_rank_list_release(&l);

	/* duplicates: torch.profiler's file names carry a timestamp in ms; a
	 * rank with a timestamp beats one without, across formats too */
	put("kdup/w_1.1700000000002.pt.trace.json", "{\"distributedInfo\": {\"rank\": 4}, \"traceEvents\": []}");
	put("kdup/w_2.1700000000001.pt.trace.json", "{\"distributedInfo\": {\"rank\": 4}, \"traceEvents\": []}");
	put("kdup/x/rank3.json", "{\"traceEvents\": []}");
	put(DB("kdup/y/host_1_20260101000000000_ascend_pt", 3), "");
	CHECK_INT(find("kdup", NULL, &l, &e), OPMFU_OK);
	CHECK_INT(l.n, 3);
	if (l.n == 3) {
		/* rank 3 of Ascend and of Kineto are of two runs: both kept */
		CHECK_STR(l.v[0].path, at(DB("kdup/y/host_1_20260101000000000_ascend_pt", 3)));
		CHECK_STR(l.v[1].path, at("kdup/w_1.1700000000002.pt.trace.json"));
		CHECK_STR(l.v[1].stamp, "1700000000002");
		CHECK_STR(l.v[2].path, at("kdup/x/rank3.json"));
	}
	/* within one run (one job's rank 4 twice) SPEC 1.1's rule holds */
	snprintf(want, sizeof(want), "rank 4 found twice: using %s (newer timestamp), ignoring %s\n",
		 at("kdup/w_1.1700000000002.pt.trace.json"), at("kdup/w_2.1700000000001.pt.trace.json"));
	CHECK_STR(warnings, want);
	opmfu_rank_list_release(&l);

	/* a trace named by the user: results beside it */
	CHECK_INT(find("kin/k/rank1.json", NULL, &l, &e), OPMFU_OK);
	CHECK(l.n == 1 && l.v[0].rank == 1 && l.v[0].reader == &opmfu_reader_kineto);
	if (l.n == 1)
		CHECK_STR(l.v[0].out_hint, at("kin/k"));
	opmfu_rank_list_release(&l);
	/* a named *.json that is no trace goes to the Kineto reader, whose
	 * reading says why; any other named file is still Ascend's fallback */
	CHECK_INT(find("kin/k/profiler_info_1.json", NULL, &l, &e), OPMFU_OK);
	CHECK(l.n == 1 && l.v[0].rank == -1 && l.v[0].reader == &opmfu_reader_kineto);
	if (l.n == 1) {
		struct opmfu_read_opts ro = { 1, NULL, NULL };
		struct opmfu_trace t;
		opmfu_trace_init(&t);
		CHECK_INT(l.v[0].reader->read(&l.v[0], &t, &ro, &e), OPMFU_ERR_FORMAT);
		snprintf(want, sizeof(want), "%s: not a PyTorch profiler trace: no traceEvents list",
			 at("kin/k/profiler_info_1.json"));
		CHECK_STR(e.msg, want);
		opmfu_trace_release(&t);
	}
	opmfu_rank_list_release(&l);
	CHECK_INT(find("kin/k/notes.txt", NULL, &l, &e), OPMFU_OK);
	CHECK(l.n == 1 && l.v[0].reader == &opmfu_reader_ascend);
	opmfu_rank_list_release(&l);

}

/* ---- runs (SPEC 17): their keys, IDs and --run ---- */

static void check_slug(const char *name, size_t size, const char *want)
{
	char out[128];
	size_t n = opmfu_run_slug(name, out, size);
	CHECK_STR(out, want);
	CHECK_INT(n, strlen(want));
}

static void test_slug(void)
{
	char big[200];
	check_slug("kineto w8 Tesla V100-SXM2-32GB", 64, "kineto-w8-tesla-v100-sxm2-32gb");
	check_slug("kineto w8 AMD Instinct MI300X", 64, "kineto-w8-amd-instinct-mi300x");
	check_slug("kineto Qwen_Qwen1.5-0.5B-Chat__1016005", 64, "kineto-qwen_qwen1.5-0.5b-chat__1016005");
	check_slug("ascend", 64, "ascend");
	/* separators at either end dropped, a run of them one '-' */
	check_slug("  /x -- y/ ", 64, "x-y");
	check_slug("kineto r\xc3\xa9sultat", 64, "kineto-r-sultat");
	/* nothing left */
	check_slug("", 64, "run");
	check_slug(" /", 64, "run");
	check_slug(NULL, 64, "run");
	/* cut to the buffer, never ending in '-' */
	check_slug("abc def ghi", 8, "abc-def");
	check_slug("abc def ghi", 5, "abc");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	big[62] = ' ';
	check_slug(big, OPMFU_RUN_ID_MAX, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
}

static const char dist_head[] = "{\"deviceProperties\": [{\"id\": 0, \"name\": \"%s\"}, {\"id\": 1, \"name\": \"other\"}], "
				"\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": %d}, "
				"\"traceEvents\": []}";

/* A trace of a job's rank on gpu. */
static void put_rank(const char *rel, const char *gpu, int rank, int world)
{
	char text[512];
	snprintf(text, sizeof(text), dist_head, gpu, rank, world);
	put(rel, text);
}

static void test_runs(void)
{
	struct opmfu_rank_list l;
	struct opmfu_err e;
	char want[4096];

	/* one job of world 2 on H100s; a job of world 2 on A100s (the GPU
	 * tells them apart); two single-device traces of the same file name in
	 * two folders; ranks numbered by file name; a job whose GPU comes after
	 * traceEvents (unknown); an Ascend rank */
	put_rank("runs/h/w0.json", "NVIDIA H100 80GB HBM3", 0, 2);
	put_rank("runs/h/w1.json", "NVIDIA H100 80GB HBM3", 1, 2);
	put_rank("runs/a/w1.json", "NVIDIA A100-SXM4-80GB", 1, 2);
	put("runs/s1/Model__7.json", "{\"traceEvents\": []}");
	put("runs/s2/Model__7.json.gz", "{\"traceEvents\": []}");
	put("runs/byname/rank0.json", "{\"traceEvents\": []}");
	put("runs/byname/rank1.json", "{\"traceEvents\": []}");
	put("runs/late/t.json", "{\"distributedInfo\": {\"rank\": 3, \"world_size\": 4}, \"traceEvents\": [], "
				"\"deviceProperties\": [{\"name\": \"H100\"}]}");
	put(DB("runs/c/host_1_20260101000000000_ascend_pt", 0), "");
	CHECK_INT(find("runs", NULL, &l, &e), OPMFU_OK);
	CHECK_STR(warnings, "");
	CHECK_INT(l.n, 9);
	if (l.n == 9) {
		/* by ID; the two Model__7 traces collide and the second (by key:
		 * real path) takes -2 */
		CHECK_STR(l.v[0].run_id, "ascend");
		CHECK_STR(l.v[1].run_id, "kineto-byname");
		CHECK(l.v[1].rank == 0 && l.v[2].rank == 1);
		CHECK_STR(l.v[2].run_id, "kineto-byname");
		CHECK_STR(l.v[3].run_id, "kineto-model__7");
		CHECK_STR(l.v[3].path, at("runs/s1/Model__7.json"));
		CHECK_STR(l.v[4].run_id, "kineto-model__7-2");
		CHECK_STR(l.v[4].path, at("runs/s2/Model__7.json.gz"));
		CHECK_STR(l.v[5].run_id, "kineto-w2-nvidia-a100-sxm4-80gb");
		CHECK(l.v[5].rank == 1);
		CHECK_STR(l.v[6].run_id, "kineto-w2-nvidia-h100-80gb-hbm3");
		CHECK_STR(l.v[7].run_id, "kineto-w2-nvidia-h100-80gb-hbm3");
		CHECK(l.v[6].rank == 0 && l.v[7].rank == 1);
		CHECK_STR(l.v[8].run_id, "kineto-w4");
		CHECK(l.v[8].rank == 3);
	}
	/* several runs, no --run: refused with the list, the list unchanged */
	CHECK_INT(opmfu_rank_list_pick_run(&l, NULL, "PATH", &e), OPMFU_ERR_USAGE);
	CHECK_INT(l.n, 9);
	/* at() keeps four paths at a time: the message in two pieces */
	snprintf(want, sizeof(want),
		 "PATH: 7 runs found, and a result is one run; use --run ID to pick one:\n"
		 "  ascend  ascend, 1 rank (0): %s\n"
		 "  kineto-byname  kineto, 2 ranks (0-1): %s\n"
		 "  kineto-model__7  kineto, 1 rank (-1): %s\n"
		 "  kineto-model__7-2  kineto, 1 rank (-1): %s\n",
		 at("runs/c/host_1_20260101000000000_ascend_pt"), at("runs/byname/rank0.json"),
		 at("runs/s1/Model__7.json"), at("runs/s2/Model__7.json.gz"));
	snprintf(want + strlen(want), sizeof(want) - strlen(want),
		 "  kineto-w2-nvidia-a100-sxm4-80gb  kineto, 1 rank (1): %s\n"
		 "  kineto-w2-nvidia-h100-80gb-hbm3  kineto, 2 ranks (0-1): %s\n"
		 "  kineto-w4  kineto, 1 rank (3): %s",
		 at("runs/a/w1.json"), at("runs/h/w0.json"), at("runs/late/t.json"));
	CHECK_STR(e.msg, want);
	/* an unknown ID, and a prefix of several, name the IDs */
	CHECK_INT(opmfu_rank_list_pick_run(&l, "kineto-x", "PATH", &e), OPMFU_ERR_USAGE);
	CHECK_STR(e.msg, "--run kineto-x: no run found under PATH has that ID or one that starts so (runs: ascend, "
			 "kineto-byname, kineto-model__7, kineto-model__7-2, kineto-w2-nvidia-a100-sxm4-80gb, "
			 "kineto-w2-nvidia-h100-80gb-hbm3, kineto-w4)");
	CHECK_INT(opmfu_rank_list_pick_run(&l, "kineto-w2", "PATH", &e), OPMFU_ERR_USAGE);
	CHECK(strncmp(e.msg, "--run kineto-w2: 2 runs found under PATH have IDs that start so; give more of one (runs: ",
		      88) == 0);
	CHECK_INT(l.n, 9);
	/* an exact ID wins over the longer IDs it starts */
	CHECK_INT(opmfu_rank_list_pick_run(&l, "kineto-model__7", "PATH", &e), OPMFU_OK);
	CHECK_INT(l.n, 1);
	if (l.n == 1)
		CHECK_STR(l.v[0].path, at("runs/s1/Model__7.json"));
	/* one run: no --run needed, and a wrong one is still refused */
	CHECK_INT(opmfu_rank_list_pick_run(&l, NULL, "PATH", &e), OPMFU_OK);
	CHECK_INT(opmfu_rank_list_pick_run(&l, "ascend", "PATH", &e), OPMFU_ERR_USAGE);
	CHECK_INT(l.n, 1);
	opmfu_rank_list_release(&l);

	/* a unique prefix picks its run */
	CHECK_INT(find("runs", NULL, &l, &e), OPMFU_OK);
	CHECK_INT(opmfu_rank_list_pick_run(&l, "kineto-w2-nvidia-h", "PATH", &e), OPMFU_OK);
	CHECK(l.n == 2 && l.v[0].rank == 0 && l.v[1].rank == 1);
	if (l.n == 2)
		CHECK_STR(l.v[1].path, at("runs/h/w1.json"));
	opmfu_rank_list_release(&l);

	/* the same single-device trace through two paths is one run, read once */
	{
		const char *two[2];
		two[0] = at("runs/s1");
		two[1] = at("runs/s1/Model__7.json");
		memset(&l, 0, sizeof(l));
		warnings[0] = '\0';
		CHECK_INT(opmfu_discover(two, 2, NULL, 0, &l, on_warn, NULL, &e), OPMFU_OK);
		CHECK_INT(l.n, 1);
		CHECK_INT(opmfu_rank_list_pick_run(&l, NULL, "the 2 paths given", &e), OPMFU_OK);
		opmfu_rank_list_release(&l);
	}

	/* many runs: the message keeps whole lines and counts the rest */
	{
		int k;
		char rel[64];
		for (k = 0; k < 80; k++) {
			snprintf(rel, sizeof(rel), "many/single_device_trace_number_%02d.json", k);
			put(rel, "{\"traceEvents\": []}");
		}
		CHECK_INT(find("many", NULL, &l, &e), OPMFU_OK);
		CHECK_INT(l.n, 80);
		CHECK_INT(opmfu_rank_list_pick_run(&l, NULL, "many", &e), OPMFU_ERR_USAGE);
		CHECK(strlen(e.msg) < OPMFU_ERR_MSG_MAX - 1);
		CHECK(strstr(e.msg, "more runs") != NULL);
		CHECK(strstr(e.msg, "kineto-single_device_trace_number_00  kineto, 1 rank (-1): ") != NULL);
		opmfu_rank_list_release(&l);
	}
}

/* Every allocation of a discovery of rel failing in turn: out of memory,
 * nothing leaked. */
static void nomem_walk(const char *rel, const struct opmfu_reader *const *readers)
{
	struct opmfu_rank_list l;
	struct opmfu_err e;
	long before = opmfu_mem_count(), total, k;

	CHECK_INT(find(rel, readers, &l, &e), OPMFU_OK);
	opmfu_rank_list_release(&l);
	total = opmfu_mem_count() - before;
	for (k = 1; k <= total + 1; k++) {
		enum opmfu_status st;
		opmfu_mem_fail_after(k);
		st = find(rel, readers, &l, &e);
		opmfu_mem_fail_after(0);
		if (st) {
			CHECK_INT(st, OPMFU_ERR_NOMEM);
			CHECK(strstr(e.msg, "out of memory") != NULL);
		}
		opmfu_rank_list_release(&l);
	}
}

static void test_nomem(void)
{
	const struct opmfu_reader *const readers[] = { &opmfu_reader_ascend, &fake_reader, NULL };
	nomem_walk("mix", readers);
	/* the Kineto probe: files read, gzip inflated, JSON sniffed */
	nomem_walk("kin", NULL);
	/* runs named and sorted */
	nomem_walk("runs", NULL);
	/* a file of several ranks */
	{
		const struct opmfu_reader *const multi[] = { &multi_reader, NULL };
		nomem_walk("parts", multi);
		nomem_walk("parts/job/a_3.multi", multi);
	}
}

static void test_device(void)
{
	struct opmfu_device dev;
	struct opmfu_err e = OPMFU_ERR_INIT;
	char want[1024];

	memset(&dev, 0, sizeof(dev));
	put("dev/r_ascend_pt/PROF_1/x/device_0/info.json.0",
	    "{\"DeviceInfo\":[{\"ai_core_num\":24,\"aic_frequency\":\"1800\"}]}");
	put("dev/r_ascend_pt/PROF_1/x/device_0/info.json.1", "not this one");
	CHECK_INT(opmfu_ascend_device(at("dev/r_ascend_pt"), &dev, &e), OPMFU_OK);
	CHECK_STR(dev.path, at("dev/r_ascend_pt/PROF_1/x/device_0/info.json.0"));
	CHECK_INT(dev.ai_core_num, 24);
	CHECK_DBL(dev.aic_mhz, 1800);
	/* the cube formula: 24 x 1800e6 x 8192 (fp16), x 16384 (int8); nothing else from the file */
	CHECK_DBL(dev.peak_flops[OPMFU_PREC_FP16], 353894400000000.0);
	CHECK_DBL(dev.peak_flops[OPMFU_PREC_INT8], 707788800000000.0);
	CHECK_DBL(dev.peak_flops[OPMFU_PREC_FP32], 0);
	CHECK_DBL(dev.peak_flops[OPMFU_PREC_TF32], 0);
	CHECK_DBL(dev.peak_flops[OPMFU_PREC_FP8], 0);
	CHECK_DBL(dev.peak_flops[OPMFU_PREC_FP4], 0);
	snprintf(want, sizeof(want), "info.json %s (24 AI cores at 1800 MHz)", dev.path);
	CHECK_STR(dev.source, want);
	CHECK_STR(dev.no_peak, "");
	opmfu_device_release(&dev);

	/* a malformed file is no error: the device says why it has no peak */
	memset(&dev, 0, sizeof(dev));
	put("dev/bad_ascend_pt/PROF_1/device_3/info.json.3", "{\"DeviceInfo\":[{\"ai_core_num\":-1,\"aic_frequency\":9}]}");
	CHECK_INT(opmfu_ascend_device(at("dev/bad_ascend_pt"), &dev, &e), OPMFU_OK);
	snprintf(want, sizeof(want), "%s: DeviceInfo[0] gives -1 AI cores at 9 MHz: not a usable chip",
		 at("dev/bad_ascend_pt/PROF_1/device_3/info.json.3"));
	CHECK_STR(dev.no_peak, want);
	CHECK_DBL(dev.peak_flops[OPMFU_PREC_FP16], 0);
	CHECK_STR(dev.source, "");
	opmfu_device_release(&dev);

	/* info.json outside a device_N folder does not count */
	memset(&dev, 0, sizeof(dev));
	put("dev/none_ascend_pt/PROF_1/info.json.0", "{}");
	CHECK_INT(opmfu_ascend_device(at("dev/none_ascend_pt"), &dev, &e), OPMFU_OK);
	CHECK(dev.path == NULL);
	snprintf(want, sizeof(want), "no chip info file (PROF_*/device_N/info.json.N) under %s",
		 at("dev/none_ascend_pt"));
	CHECK_STR(dev.no_peak, want);
	opmfu_device_release(&dev);
}

/* SPEC 26: a FIFO named as an input is skipped with a warning, never opened
 * (the test would hang); links leaving the tree are counted, not followed,
 * unless asked; links inside it are followed. */
static void test_hostile(void)
{
	struct opmfu_rank_list l;
	struct opmfu_err e;
	char want[2048];
	const char *paths[1];

	put(DB("hostile/tree/good_ascend_pt", 0), "");
	mkdirs("hostile/tree/fifo_ascend_pt/ASCEND_PROFILER_OUTPUT");
	CHECK(mkfifo(at(DB("hostile/tree/fifo_ascend_pt", 1)), 0600) == 0);
	CHECK(mkfifo(at("hostile/tree/w.pt.trace.json"), 0600) == 0);
	CHECK(mkfifo(at("hostile/tree/some.pipe"), 0600) == 0); /* no input's name: silent */
	put(DB("hostile/out/r_ascend_pt", 2), "");
	CHECK(symlink(at("hostile/out"), at("hostile/tree/away")) == 0);
	CHECK(symlink("/", at("hostile/tree/root")) == 0);
	put(DB("hostile/tree/d/1/2/3/4/5/r_ascend_pt", 3), "");
	CHECK(symlink("d/1/2/3", at("hostile/tree/near")) == 0);

	CHECK_INT(find("hostile/tree", NULL, &l, &e), OPMFU_OK);
	CHECK_INT(l.n, 2);
	if (l.n == 2) {
		CHECK_INT(l.v[0].rank, 0);
		CHECK_INT(l.v[1].rank, 3);
	}
	snprintf(want, sizeof(want),
		 "%s: not a regular file (a FIFO): opmfu reads only regular files; skipped\n"
		 "%s: not a regular file (a FIFO): opmfu reads only regular files; skipped\n"
		 "2 symbolic links to a directory outside the input not followed (the first: %s -> %s); "
		 "--follow-symlinks follows them\n",
		 at(DB("hostile/tree/fifo_ascend_pt", 1)), at("hostile/tree/w.pt.trace.json"), at("hostile/tree/away"),
		 at("hostile/out"));
	CHECK_STR(warnings, want);
	opmfu_rank_list_release(&l);

	/* asked to follow (without the link to /) */
	CHECK(unlink(at("hostile/tree/root")) == 0);
	paths[0] = at("hostile/tree");
	memset(&l, 0, sizeof(l));
	warnings[0] = '\0';
	memset(&e, 0, sizeof(e));
	CHECK_INT(opmfu_discover(paths, 1, NULL, OPMFU_DISCOVER_FOLLOW_LINKS, &l, on_warn, NULL, &e), OPMFU_OK);
	CHECK_INT(l.n, 3);
	CHECK(strstr(warnings, "symbolic link") == NULL); /* only the FIFOs again */
	opmfu_rank_list_release(&l);

	/* a FIFO given: an error naming it */
	CHECK_INT(find("hostile/tree/w.pt.trace.json", NULL, &l, &e), OPMFU_ERR_IO);
	snprintf(want, sizeof(want), "%s: not a regular file (a FIFO): opmfu reads only regular files",
		 at("hostile/tree/w.pt.trace.json"));
	CHECK_STR(e.msg, want);
	opmfu_rank_list_release(&l);
}

int main(void)
{
	char cmd[128];
	int rc;

	snprintf(root, sizeof(root), "/tmp/opmfu-discover-XXXXXX");
	if (!mkdtemp(root))
		return 2;
	test_cluster();
	test_files();
	test_duplicates();
	test_several();
	test_mixed();
	test_parts();
	test_kineto();
	test_slug();
	test_runs();
	test_nomem();
	test_device();
	test_hostile();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	rc = system(cmd);
	CHECK_INT(rc, 0);
	return check_done();
}
