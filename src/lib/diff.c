/*
 * diff.c - `opmfu diff BASE NEW` (opmfu.h, lib/diff.h): what each side is
 * (an opmfu result, else an input path), inputs analysed into a temporary
 * folder that is removed again, both results read back (read/results.c),
 * the rows (lib/diff_rows.c), and the OpmfuDiff table written through the
 * same writers as the analysis; with xlsx, the summary workbook of NEW's
 * tables read back, with a Diff sheet.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/account.h"
#include "base/mem.h"
#include "base/sbuf.h"
#include "lib/diff.h"
#include "analyze/hotspots.h"
#include "analyze/modules.h"
#include "lib/lib.h"
#include "read/dirwalk.h"
#include "read/sqlite_in.h"
#include "lib/model_check.h"
#include "write/summary_html.h"
#include "write/summary_xlsx.h"

/* One side while it is found, analysed and read. */
struct side {
	int s;             /* 0 BASE, 1 NEW */
	const struct opmfu_diff_opts *o;
	int input;         /* an input path, to analyse */
	char *db;          /* the result database to read */
	char *tmp;         /* the folder an input is analysed into, removed after reading */
	char *run;         /* an input's run to analyse: its ID (SPEC 17: each side is one run) */
	int *ranks;        /* with --rank-list: those of the input's ranks to analyse */
	size_t n_ranks;
	size_t failed;     /* ranks whose analysis failed now */
	struct opmfu_results res;
};

static const char *const label[2] = { "BASE", "NEW" };

/* The analysis's warnings and progress, told as the side's. */
static void side_warn(void *ctx, const char *msg)
{
	const struct side *sd = ctx;
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_addf(&sb, "%s: %s", label[sd->s], msg);
	opmfu_warn(&sd->o->analyze, sb.oom ? msg : sb.buf);
	sbuf_release(&sb);
}

static void side_progress(void *ctx, const struct opmfu_progress *p)
{
	const struct side *sd = ctx;
	if (sd->o->analyze.on_progress)
		sd->o->analyze.on_progress(sd->o->analyze.ctx, p);
}

static void no_warn(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
}

/* ---- what a side is ---- */

/* The side's run among list's: --run BASE_ID,NEW_ID gives each side its own
 * (IDs hold no ','), one ID is both sides'; refused as analyze refuses it,
 * the message naming the side. */
static enum opmfu_status pick_run(struct side *sd, const char *path, struct opmfu_rank_list *list,
				  struct opmfu_err *err)
{
	const char *want = sd->o->analyze.run, *comma = want ? strchr(want, ',') : NULL;
	char *part = NULL;
	enum opmfu_status st;

	if (comma && !(part = sd->s == 0 ? opmfu_strndup(want, (size_t)(comma - want)) : opmfu_strdup(comma + 1)))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
	st = opmfu_rank_list_pick_run(list, part ? part : want, path, err);
	opmfu_free(part);
	if (st == OPMFU_ERR_USAGE)
		opmfu_err_prefix(err, "%s", label[sd->s]);
	if (st == OPMFU_OK && list->n && !(sd->run = opmfu_strdup(list->v[0].run_id)))
		st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
	return st;
}

/* An input path: its ranks (discovery says whether it is one at all), its
 * run, and with --rank-list those of the run's ranks to analyse. */
static enum opmfu_status find_input(struct side *sd, const char *path, struct opmfu_err *err)
{
	struct opmfu_rank_list list = { NULL, 0, 0 };
	const struct opmfu_opts *ao = &sd->o->analyze;
	enum opmfu_status st;
	size_t i, k;

	/* the analysis discovers again and tells duplicate ranks then: once */
	st = opmfu_discover(&path, 1, NULL, ao->follow_symlinks ? OPMFU_DISCOVER_FOLLOW_LINKS : 0u, &list,
			    no_warn, NULL, err);
	if (st == OPMFU_ERR_NOINPUT) {
		char why[OPMFU_ERR_MSG_MAX];
		size_t n = strlen(path);
		/* discovery's "PATH: no rank found (...)" without its PATH */
		snprintf(why, sizeof(why), "%s", strncmp(err->msg, path, n) || strncmp(err->msg + n, ": ", 2)
							 ? err->msg : err->msg + n + 2);
		st = opmfu_err_set(err, OPMFU_ERR_NOINPUT,
				   "%s: neither an opmfu result nor a profiler export: no cluster_analysis.db with "
				   "opmfu's tables in it or in its cluster_analysis_output/, and %s",
				   path, why);
	}
	if (st == OPMFU_OK)
		st = pick_run(sd, path, &list, err);
	sd->input = st == OPMFU_OK;
	if (st == OPMFU_OK && ao->ranks) {
		if (!(sd->ranks = opmfu_malloc((list.n + 1) * sizeof(*sd->ranks))))
			st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory listing ranks");
		for (i = 0; st == OPMFU_OK && i < list.n; i++)
			for (k = 0; k < ao->n_ranks; k++)
				if (ao->ranks[k] == list.v[i].rank) {
					sd->ranks[sd->n_ranks++] = list.v[i].rank;
					break;
				}
	}
	opmfu_rank_list_release(&list);
	return st;
}

static enum opmfu_status neither(const char *path, const char *why, struct opmfu_err *err)
{
	return opmfu_err_set(err, OPMFU_ERR_NOINPUT, "%s: neither an opmfu result nor a profiler export (%s)", path,
			     why);
}

/* Whether a reader claims the file as one of its ranks for sure (YES: not
 * the MAYBE that any file a user names gets), as a Kineto trace is. */
static enum opmfu_status claimed(const char *path, int *yes, struct opmfu_err *err)
{
	const struct opmfu_reader *const *r;
	*yes = 0;
	for (r = opmfu_readers(); *r && !*yes; r++) {
		struct opmfu_rank_input in;
		enum opmfu_probe p;
		if (!(*r)->probe_file)
			continue;
		memset(&in, 0, sizeof(in));
		if ((p = (*r)->probe_file(path, 1, &in, NULL)) == OPMFU_PROBE_NOMEM)
			return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
		if (p != OPMFU_PROBE_NO)
			opmfu_rank_input_release(&in);
		*yes = p == OPMFU_PROBE_YES;
	}
	return OPMFU_OK;
}

/* A folder is a result when it holds an opmfu cluster_analysis.db, itself
 * or in its cluster_analysis_output/; a file when it is one. */
static enum opmfu_status resolve(struct side *sd, struct opmfu_err *err)
{
	static const char *const where[2] = { "cluster_analysis.db", "cluster_analysis_output/cluster_analysis.db" };
	const char *path = sd->o->paths[sd->s];
	enum opmfu_db_kind kind;
	enum opmfu_status st;
	struct stat sb;
	int k;

	if (stat(path, &sb) != 0)
		return opmfu_err_set(err, OPMFU_ERR_IO, "%s: %s", path, strerror(errno));
	if (S_ISDIR(sb.st_mode)) {
		for (k = 0; k < 2; k++) {
			char *p = opmfu_path_join(path, where[k]);
			if (!p)
				return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
			if (stat(p, &sb) == 0 && S_ISREG(sb.st_mode)) {
				if ((st = opmfu_db_kind(p, &kind, err))) {
					opmfu_free(p);
					return st;
				}
				if (kind == OPMFU_DB_RESULT) {
					sd->db = p;
					return OPMFU_OK;
				}
			}
			opmfu_free(p);
		}
		return find_input(sd, path, err);
	}
	/* a FIFO or device would block the reads below (SPEC 26) */
	if ((st = opmfu_check_regular(path, "cannot open", err)))
		return st;
	if ((st = opmfu_db_kind(path, &kind, err)))
		return st;
	switch (kind) {
	case OPMFU_DB_RESULT:
		if (!(sd->db = opmfu_strdup(path)))
			return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
		return OPMFU_OK;
	case OPMFU_DB_PROFILER:
		return find_input(sd, path, err);
	case OPMFU_DB_OTHER:
		/* an Nsight Systems export is a database of its own kind */
		if ((st = claimed(path, &k, err)))
			return st;
		return k ? find_input(sd, path, err)
			 : neither(path, "no OpmfuRankSummary table of an opmfu result, and "
					 OPMFU_NEITHER_EXPORT, err);
	default:
		if ((st = claimed(path, &k, err)))
			return st;
		return k ? find_input(sd, path, err) : neither(path, "not an SQLite database or a profiler trace", err);
	}
}

/* ---- inputs analysed ---- */

/* Removes the folder an input was analysed into (nothing else is in it),
 * without allocating: it must go whatever failed. */
static void remove_tree(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	if (d) {
		while ((e = readdir(d))) {
			char p[4096];
			struct stat sb;
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			if (snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) >= (int)sizeof(p))
				continue;
			if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode) && depth < 4)
				remove_tree(p, depth + 1);
			else
				unlink(p);
		}
		closedir(d);
	}
	rmdir(dir);
}

static enum opmfu_status make_tmp(struct side *sd, struct opmfu_err *err)
{
	const char *base = getenv("TMPDIR");
	struct sbuf sb;

	sbuf_init(&sb);
	sbuf_addf(&sb, "%s/opmfu-diff-XXXXXX", base && *base ? base : "/tmp");
	if (sb.oom)
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
	if (!mkdtemp(sb.buf)) {
		enum opmfu_status st = opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot create a temporary folder: %s",
						     sb.buf, strerror(errno));
		sbuf_release(&sb);
		return st;
	}
	sd->tmp = sbuf_detach(&sb);
	return OPMFU_OK;
}

/* The first failed rank of rep, as "rank N: why". */
static const struct opmfu_rank_report *first_failed(const struct opmfu_report *rep)
{
	size_t i;
	for (i = 0; i < rep->n_ranks; i++)
		if (rep->ranks[i].state == OPMFU_RANK_FAILED)
			return &rep->ranks[i];
	return NULL;
}

/* Analyses an input into a temporary folder, as `opmfu analyze` would. Ranks
 * that fail are told and not compared; all of them failing is an error. */
static enum opmfu_status analyse(struct side *sd, struct opmfu_err *err)
{
	struct opmfu_opts ao = sd->o->analyze;
	const char *in = sd->o->paths[sd->s];
	const struct opmfu_rank_report *f;
	struct opmfu_report rep;
	enum opmfu_status st;
	char msg[2400];

	if (ao.ranks && sd->n_ranks == 0)
		return OPMFU_OK; /* none of the ranks asked for is here */
	if ((st = make_tmp(sd, err)))
		return st;
	ao.inputs = &in;
	ao.n_inputs = 1;
	ao.out_dir = sd->tmp;
	ao.exports = OPMFU_EXPORT_DB;
	ao.run = sd->run;
	ao.ranks = sd->ranks;
	ao.n_ranks = sd->n_ranks;
	ao.on_warning = side_warn;
	ao.on_progress = side_progress;
	ao.ctx = sd;
	st = opmfu_analyze_report(&ao, &rep, err);
	f = first_failed(&rep);
	if (st == OPMFU_ERR_PARTIAL && rep.n_failed < rep.n_ranks && f) {
		sd->failed = rep.n_failed;
		snprintf(msg, sizeof(msg), "not compared: %zu of %zu ranks failed to be analysed (rank %d: %s)",
			 rep.n_failed, rep.n_ranks, f->rank, f->reason);
		side_warn(sd, msg);
		st = OPMFU_OK;
	} else if (st == OPMFU_ERR_PARTIAL && f) {
		st = opmfu_err_set(err, OPMFU_ERR_PARTIAL, "%s: no rank could be analysed (rank %d: %s)", in, f->rank,
				   f->reason);
	}
	if (st == OPMFU_OK && !(sd->db = opmfu_strdup(rep.out_db)))
		st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
	opmfu_report_release(&rep);
	return st;
}

/* ---- the OpmfuDiff table written ---- */

/* The summary workbook's and the page's tables: OpmfuDiff, then NEW's as
 * its analysis wrote them (read back by the same defs): the ranks' rows,
 * then the run account's (SPEC 16) and OpmfuModel (of which the gatherer
 * keeps the run's rows), which they render as they are. */
static const struct opmfu_table_def *const summary_defs[] = {
	&opmfu_diff_def,      &opmfu_rank_summary_def, &opmfu_steps_def, &opmfu_run_def, &opmfu_hotspots_def,
	&opmfu_stragglers_def, &opmfu_model_def,
};
/* the exports that show NEW's summary with the diff */
#define SUMMARY_EXPORTS (OPMFU_EXPORT_XLSX | OPMFU_EXPORT_HTML)
#define N_SUMMARY_DEFS (sizeof(summary_defs) / sizeof(summary_defs[0]))
#define N_RANK_DEFS 2 /* of NEW's: the tables of rank rows, read for --rank-list's ranks */
/* rows of NEW's tables held at a time */
#define SUMMARY_PIECE 4096

/* A piece of NEW's tables into the summary's writers, kept at once. */
static enum opmfu_status feed(void *ctx, size_t k, const struct opmfu_table *t, struct opmfu_err *err)
{
	struct opmfu_writers *wx = ctx;
	struct opmfu_write_stats ks;
	enum opmfu_status st = OPMFU_OK;
	size_t j;
	(void)k;
	for (j = 0; j < wx->n && st == OPMFU_OK; j++)
		if ((st = opmfu_writer_put(wx->v[j], -1, t, err)) == OPMFU_OK)
			st = opmfu_writer_keep_rank(wx->v[j], -1, &ks, err);
	return st;
}

/*
 * With xlsx: the writer of OUT's summary workbook, given NEW's summary
 * tables from its result database db (the ranks of --rank-list, as NEW's
 * own workbook would have them; the run account's tables as NEW's database
 * has them: a result older than OpmfuRun has none, and the workbook says
 * so) while that is still there. Nothing is on disk before the commit, and
 * before any writer of this diff has OUT's database open, which may be db
 * itself.
 */
static enum opmfu_status open_summary(const struct opmfu_diff_opts *o, const char *db, struct opmfu_writers *wx,
				      struct opmfu_err *err)
{
	char *dir = opmfu_path_join(o->out_dir, "cluster_analysis_output");
	enum opmfu_status st;

	if (!dir)
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
	st = opmfu_writers_open(wx, dir, o->exports & SUMMARY_EXPORTS, summary_defs, N_SUMMARY_DEFS, err);
	opmfu_free(dir);
	if (st == OPMFU_OK)
		st = opmfu_results_tables(db, summary_defs + 1, N_RANK_DEFS, o->analyze.ranks, o->analyze.n_ranks,
					  SUMMARY_PIECE, feed, wx, err);
	if (st == OPMFU_OK)
		st = opmfu_results_tables(db, summary_defs + 1 + N_RANK_DEFS, N_SUMMARY_DEFS - 1 - N_RANK_DEFS, NULL, 0,
					  SUMMARY_PIECE, feed, wx, err);
	return st;
}

/* The export folders of want under dir, created, into d. */
static enum opmfu_status export_dirs(const char *dir, unsigned want, struct opmfu_diff *d, char **xlsx_dir,
				     struct opmfu_err *err)
{
	enum opmfu_status st = opmfu_mkdirs(dir, err);
	if (st == OPMFU_OK && (want & OPMFU_EXPORT_CSV))
		st = opmfu_export_dir(dir, OPMFU_EXPORT_CSV, &d->csv_dir, err);
	if (st == OPMFU_OK && (want & OPMFU_EXPORT_JSON))
		st = opmfu_export_dir(dir, OPMFU_EXPORT_JSON, &d->json_dir, err);
	if (st == OPMFU_OK && (want & OPMFU_EXPORT_XLSX))
		st = opmfu_export_dir(dir, OPMFU_EXPORT_XLSX, xlsx_dir, err);
	if (st == OPMFU_OK && *xlsx_dir && !(d->summary_xlsx = opmfu_path_join(*xlsx_dir, OPMFU_SUMMARY_XLSX)))
		st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
	if (st == OPMFU_OK && (want & OPMFU_EXPORT_HTML) && !(d->html = opmfu_path_join(dir, OPMFU_HTML_REPORT)))
		st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
	return st;
}

/* OpmfuDiff into every writer of ws and wx (the summary workbook's, opened
 * by open_summary), each made final in turn: the database first, the
 * workbook last, as analyze does. */
static enum opmfu_status put_diff(const struct opmfu_diff_opts *o, struct opmfu_writers *ws,
				  struct opmfu_writers *wx, const struct opmfu_table *t, struct opmfu_err *err)
{
	struct opmfu_writers *all[2] = { ws, wx };
	enum opmfu_status st = OPMFU_OK;
	size_t k, j, prefixed = 0;

	for (j = 0; j < 2; j++)
		for (k = 0; k < all[j]->n && st == OPMFU_OK; k++) {
			struct opmfu_write_stats ks;
			memset(&ks, 0, sizeof(ks));
			if ((st = opmfu_writer_put(all[j]->v[k], -1, t, err)) == OPMFU_OK)
				st = opmfu_writer_keep_rank(all[j]->v[k], -1, &ks, err);
			prefixed += ks.prefixed;
		}
	if (st == OPMFU_OK)
		st = opmfu_writers_commit(ws, err);
	if (st == OPMFU_OK)
		st = opmfu_writers_commit(wx, err);
	if (st == OPMFU_OK)
		opmfu_warn_csv_prefixed(&o->analyze, prefixed);
	return st;
}

static enum opmfu_status write_diff(const struct opmfu_diff_opts *o, struct opmfu_diff *d, struct opmfu_writers *wx,
				   struct opmfu_err *err)
{
	static const struct opmfu_table_def *const defs[1] = { &opmfu_diff_def };
	unsigned want = o->exports ? o->exports : OPMFU_EXPORT_DB;
	struct opmfu_writers ws = OPMFU_WRITERS_INIT;
	struct opmfu_table t = opmfu_diff_table(d);
	enum opmfu_status st;
	char *dir = opmfu_path_join(o->out_dir, "cluster_analysis_output"), *xlsx_dir = NULL;

	if (!dir)
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
	/* the workbook is named only when its writer has NEW's tables (NEW had ranks to read) */
	st = export_dirs(dir, wx->n ? want : want & ~(unsigned)SUMMARY_EXPORTS, d, &xlsx_dir, err);
	/* named before anything is final: nothing may fail after the commits */
	if (st == OPMFU_OK && (want & OPMFU_EXPORT_DB) && !(d->out_db = opmfu_path_join(dir, "cluster_analysis.db")))
		st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
	/* the workbook's writer is wx, open since NEW was read */
	if (st == OPMFU_OK)
		st = opmfu_writers_open(&ws, dir,
					(want & ~(unsigned)SUMMARY_EXPORTS) |
						(o->analyze.csv_verbatim ? OPMFU_WRITE_CSV_VERBATIM : 0),
					defs, 1, err);
	if (st == OPMFU_OK)
		st = put_diff(o, &ws, wx, &t, err);
	opmfu_writers_close(&ws);
	if (st) {
		opmfu_free(d->out_db);
		opmfu_free(d->csv_dir);
		opmfu_free(d->json_dir);
		opmfu_free(d->summary_xlsx);
		opmfu_free(d->html);
		d->out_db = d->csv_dir = d->json_dir = d->summary_xlsx = d->html = NULL;
	}
	opmfu_free(xlsx_dir);
	opmfu_free(dir);
	return st;
}

/* ---- the run ---- */

static void warn_steps(const struct opmfu_diff_opts *o, const struct opmfu_diff *d)
{
	char msg[400];
	if (d->side[0].steps == d->side[1].steps)
		return;
	snprintf(msg, sizeof(msg),
		 "BASE has %zu steps over the compared ranks, NEW %zu: times are sums over the steps, so they change "
		 "with the number of steps too (shares and MFU do not)",
		 d->side[0].steps, d->side[1].steps);
	opmfu_warn(&o->analyze, msg);
}

/* Finds both sides first (a bad NEW is told before BASE is analysed), then
 * analyses and reads each; with xlsx, NEW's summary tables into wx. */
static enum opmfu_status read_sides(const struct opmfu_diff_opts *o, struct side sd[2], struct opmfu_diff *d,
				    struct opmfu_writers *wx, struct opmfu_err *err)
{
	struct opmfu_diff_store *store = d->store;
	enum opmfu_status st = OPMFU_OK;
	int s;

	for (s = 0; s < 2 && st == OPMFU_OK; s++)
		st = resolve(&sd[s], err);
	if (st == OPMFU_OK && (o->analyze.chip || o->analyze.peak_origin) && (!sd[0].input || !sd[1].input)) {
		char msg[300];
		snprintf(msg, sizeof(msg),
			 "%s: the peaks given (--chip, --peak, OPMFU_PEAK) change only input paths; a result keeps "
			 "those it was analysed with",
			 !sd[0].input && !sd[1].input ? "BASE and NEW are results" : !sd[0].input ? "BASE is a result"
												  : "NEW is a result");
		opmfu_warn(&o->analyze, msg);
	}
	for (s = 0; s < 2 && st == OPMFU_OK; s++) {
		d->side[s].analysed = sd[s].input;
		if (sd[s].input && (st = analyse(&sd[s], err)))
			break;
		if (sd[s].db)
			st = opmfu_results_read(sd[s].db, &store->names, &sd[s].res, err);
		if (st == OPMFU_OK && s == 1 && sd[s].db && o->out_dir && (o->exports & SUMMARY_EXPORTS))
			st = open_summary(o, sd[s].db, wx, err);
		if (sd[s].tmp) {
			remove_tree(sd[s].tmp, 0);
			opmfu_free(sd[s].tmp);
			sd[s].tmp = NULL;
		} else if (st == OPMFU_OK && sd[s].db && !(d->side[s].db = opmfu_strdup(sd[s].db))) {
			st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
		}
	}
	return st;
}

enum opmfu_status opmfu_diff(const struct opmfu_diff_opts *o, struct opmfu_diff *d, struct opmfu_err *err)
{
	struct side sd[2];
	struct opmfu_results res[2];
	struct opmfu_writers wx = OPMFU_WRITERS_INIT;
	enum opmfu_status st = OPMFU_OK;
	double t0 = opmfu_now_s();
	size_t failed = 0;
	int s;

	/* before any thread of the run uses SQLite (read/sqlite_in.h) */
	opmfu_sqlite_guard();
	memset(d, 0, sizeof(*d));
	memset(sd, 0, sizeof(sd));
	if (!o->paths[0] || !o->paths[1])
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "diff needs BASE and NEW");
	for (s = 0; s < 2; s++) {
		sd[s].s = s;
		sd[s].o = o;
		if (!(d->side[s].path = opmfu_strdup(o->paths[s])))
			st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
	}
	if (st == OPMFU_OK && !opmfu_diff_store_new(d))
		st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
	if (st == OPMFU_OK)
		st = read_sides(o, sd, d, &wx, err);
	if (st == OPMFU_OK) {
		res[0] = sd[0].res;
		res[1] = sd[1].res;
		st = opmfu_diff_compute(res, o->analyze.ranks, o->analyze.n_ranks, d, err);
	}
	if (st == OPMFU_OK)
		warn_steps(o, d);
	if (st == OPMFU_OK && o->out_dir)
		st = write_diff(o, d, &wx, err);
	opmfu_writers_close(&wx); /* a diff that failed leaves an earlier workbook as it was */
	failed = sd[0].failed + sd[1].failed;
	if (st == OPMFU_OK && failed)
		st = opmfu_err_set(err, OPMFU_ERR_PARTIAL, "%zu rank%s of %s failed to be analysed", failed,
				   failed == 1 ? "" : "s",
				   sd[0].failed && sd[1].failed ? "BASE and NEW" : sd[0].failed ? "BASE" : "NEW");
	for (s = 0; s < 2; s++) {
		if (sd[s].tmp)
			remove_tree(sd[s].tmp, 0);
		opmfu_free(sd[s].tmp);
		opmfu_free(sd[s].db);
		opmfu_free(sd[s].ranks);
		opmfu_free(sd[s].run);
		opmfu_results_release(&sd[s].res);
	}
	d->seconds = opmfu_now_s() - t0;
	return st;
}

void opmfu_diff_release(struct opmfu_diff *d)
{
	struct opmfu_diff_store *store = d->store;
	int s;

	for (s = 0; s < 2; s++) {
		opmfu_free(d->side[s].path);
		opmfu_free(d->side[s].db);
		opmfu_free(d->side[s].failed);
		opmfu_free(d->side[s].only);
	}
	opmfu_free(d->compared);
	opmfu_free(d->rows);
	opmfu_free(d->out_db);
	opmfu_free(d->csv_dir);
	opmfu_free(d->json_dir);
	opmfu_free(d->summary_xlsx);
	opmfu_free(d->html);
	if (store) {
		opmfu_intern_release(&store->names);
		opmfu_arena_release(&store->ar);
		opmfu_free(store);
	}
	memset(d, 0, sizeof(*d));
}
