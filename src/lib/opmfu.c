/*
 * opmfu.c - the only place that knows the order of the stages:
 * discover ranks -> per rank: read -> peaks -> kernel MFU -> module MFU ->
 * write (in rank order, one output transaction) -> release.
 */
#include "opmfu.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>

#include "base/mem.h"
#include "base/sbuf.h"
#include "base/kname.h"
#include "chips/chips.h"
#include "lib/lib.h"
#include "lib/model_check.h"
#include "read/sqlite_in.h"
#include "trace/filter.h"
#include "trace/parse.h"
#include "trace/rank_pick.h"
#include "trace/strtab.h"
#include "write/stage.h"
#include "write/summary_html.h"

_Static_assert(OPMFU_NDROP == OPMFU_DROP__COUNT, "public drop count must match");

/* "unknown chip 'L2O'; did you mean L20, L40S or L4? (see 'opmfu chips')", or the members of a family */
static enum opmfu_status unknown_chip(const char *name, struct opmfu_err *err)
{
	char msg[400];
	opmfu_chip_unknown(name, msg, sizeof(msg));
	return opmfu_err_set(err, OPMFU_ERR_USAGE, "%s", msg);
}

size_t opmfu_kernel_short_name(const char *name, size_t width, char *out, size_t size)
{
	return opmfu_kernel_short(name, strlen(name), width, out, size);
}

const char *opmfu_drop_reason(int i)
{
	return (i >= 0 && i < OPMFU_NDROP) ? opmfu_drop_name((enum opmfu_drop)i) : "?";
}

double opmfu_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void opmfu_warn(const struct opmfu_opts *o, const char *msg)
{
	if (o->on_warning)
		o->on_warning(o->ctx, msg);
}

static void warn_cb(void *ctx, const char *msg)
{
	opmfu_warn(ctx, msg);
}


/* ---- output location ---- */

enum opmfu_status opmfu_mkdirs(const char *path, struct opmfu_err *err)
{
	char buf[4096];
	size_t i, n = strlen(path);
	if (n >= sizeof(buf))
		return opmfu_err_set(err, OPMFU_ERR_IO, "%.100s...: path too long", path);
	memcpy(buf, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0777) != 0) {
			struct stat st;
			if (errno != EEXIST)
				return opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot create directory: %s", buf,
						     strerror(errno));
			if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
				return opmfu_err_set(err, OPMFU_ERR_IO, "%s: exists but is not a directory", buf);
		}
		buf[i] = path[i];
	}
	{
		struct stat st;
		if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
			return opmfu_err_set(err, OPMFU_ERR_IO, "%s: not a directory", path);
	}
	return OPMFU_OK;
}

enum opmfu_status opmfu_export_dir(const char *dir, unsigned bit, char **out, struct opmfu_err *err)
{
	size_t i = 0;
	while (!(bit & 1u << i))
		i++;
	if (!(*out = opmfu_path_join(dir, opmfu_writer_types[i]->where)))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
	return opmfu_mkdirs(*out, err);
}

/* Where the results go: OUT/cluster_analysis_output/ with the database and,
 * for xlsx, OperatorMfu/ (SPEC 4); csv/ and json/ for those exports. */
enum opmfu_status opmfu_make_layout(const struct opmfu_opts *o, const char *base, struct opmfu_report *rep,
				    struct opmfu_err *err)
{
	enum opmfu_status st;

	if (!(rep->out_dir = opmfu_path_join(base, "cluster_analysis_output")))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
	if ((st = opmfu_mkdirs(rep->out_dir, err)))
		return st;
	if ((o->exports & OPMFU_EXPORT_XLSX) && (st = opmfu_export_dir(rep->out_dir, OPMFU_EXPORT_XLSX, &rep->xlsx_dir, err)))
		return st;
	if ((o->exports & OPMFU_EXPORT_CSV) && (st = opmfu_export_dir(rep->out_dir, OPMFU_EXPORT_CSV, &rep->csv_dir, err)))
		return st;
	if ((o->exports & OPMFU_EXPORT_JSON) && (st = opmfu_export_dir(rep->out_dir, OPMFU_EXPORT_JSON, &rep->json_dir, err)))
		return st;
	if ((o->exports & OPMFU_EXPORT_HTML) && !(rep->html = opmfu_path_join(rep->out_dir, OPMFU_HTML_REPORT)))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
	if (!(rep->out_db = opmfu_path_join(rep->out_dir, "cluster_analysis.db")))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
	if (o->exports && !(o->exports & OPMFU_EXPORT_DB)) {
		/* --export xlsx writes the workbooks only, as the reference's text export does */
		opmfu_free(rep->out_db);
		rep->out_db = NULL;
	}
	return OPMFU_OK;
}

/* The exports' folders, when nothing of this run is in them. */
static void forget_exports(struct opmfu_report *rep)
{
	opmfu_free(rep->xlsx_dir);
	opmfu_free(rep->csv_dir);
	opmfu_free(rep->json_dir);
	opmfu_free(rep->html);
	rep->xlsx_dir = rep->csv_dir = rep->json_dir = rep->html = NULL;
}

/* One report entry per rank, in rank order. */
static enum opmfu_status start_report(const struct opmfu_rank_list *list, struct opmfu_report *rep,
				      struct opmfu_err *err)
{
	size_t i;
	int k;

	if (!(rep->ranks = opmfu_calloc(list->n + 1, sizeof(*rep->ranks)))) /* a shard may hold no rank */
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
	rep->n_ranks = list->n;
	for (i = 0; i < list->n; i++) {
		rep->ranks[i].rank = list->v[i].rank;
		rep->ranks[i].mfu_recorded = rep->ranks[i].mfu_busy = rep->ranks[i].flops_coverage = -1;
		rep->ranks[i].trace_mfu_all = rep->ranks[i].step_ns_median = -1;
		for (k = 0; k < OPMFU_NSHARE; k++)
			rep->ranks[i].shares[k] = -1;
		for (k = 0; k < OPMFU_NPART; k++)
			rep->ranks[i].parts[k] = -1;
		rep->ranks[i].profiler_step_ns = rep->ranks[i].preparing_ns = rep->ranks[i].backlog_ns = -1;
		rep->ranks[i].mb_share = rep->ranks[i].mb_eff = -1;
		if (!(rep->ranks[i].db_path = opmfu_strdup(list->v[i].path)))
			return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
	}
	return OPMFU_OK;
}

/* Bytes of the regular file at path, or of the regular files directly in the
 * folder at path; 0 when there is none. */
static double bytes_at(const char *path)
{
	struct stat sb;
	double n = 0;
	DIR *d;
	struct dirent *e;

	if (!path || stat(path, &sb) != 0)
		return 0;
	if (S_ISREG(sb.st_mode))
		return (double)sb.st_size;
	if (!S_ISDIR(sb.st_mode) || !(d = opendir(path)))
		return 0;
	while ((e = readdir(d))) {
		char *p = e->d_name[0] == '.' ? NULL : opmfu_path_join(path, e->d_name);
		if (p && stat(p, &sb) == 0 && S_ISREG(sb.st_mode))
			n += (double)sb.st_size;
		opmfu_free(p);
	}
	closedir(d);
	return n;
}

/* The results are bounded by the input in the common case; a repeated long
 * name (interned once in the input, written in every row that has it) can
 * still make them many times larger: say so (docs/cli.md, "Limits"). */
static void warn_output_size(const struct opmfu_opts *o, const struct opmfu_rank_list *list,
			     const struct opmfu_report *rep)
{
	double in = 0, out;
	char msg[600];
	size_t i;

	for (i = 0; i < list->n; i++)
		in += bytes_at(list->v[i].path);
	out = bytes_at(rep->out_db) + bytes_at(rep->csv_dir) + bytes_at(rep->json_dir) + bytes_at(rep->xlsx_dir) +
	      bytes_at(rep->html);
	if (out < OPMFU_OUTPUT_WARN_MIN || out <= OPMFU_OUTPUT_WARN_RATIO * in)
		return;
	snprintf(msg, sizeof(msg), "the results take %.0f MB, %.0f times the inputs' %.1f MB (more than %d times): "
		 "names or shapes of up to %d bytes repeated in many rows? (docs/cli.md, Limits)", out / 1e6,
		 in > 0 ? out / in : 0.0, in / 1e6, OPMFU_OUTPUT_WARN_RATIO, OPMFU_STR_MAX);
	opmfu_warn(o, msg);
}

enum opmfu_status opmfu_analyze_report(const struct opmfu_opts *o, struct opmfu_report *rep, struct opmfu_err *err)
{
	struct opmfu_rank_list list = { NULL, 0, 0 };
	struct opmfu_writers ws = OPMFU_WRITERS_INIT;
	enum opmfu_status st = OPMFU_OK;
	double t0 = opmfu_now_s();
	size_t n_found;

	/* before any thread of the run uses SQLite (read/sqlite_in.h) */
	opmfu_sqlite_guard();
	memset(rep, 0, sizeof(*rep));
	opmfu_cell_store_init(&rep->model_run, NULL);
	if ((st = opmfu_states_new(rep->run_state, OPMFU_PER_RUN, err)))
		return st;
	if (o->n_inputs == 0)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "no input path given");
	if (o->n_inputs > 1 && !o->out_dir)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "several inputs: say where to write with -o DIR");
	if (o->chip && !opmfu_chip_find(o->chip))
		return unknown_chip(o->chip, err);
	if ((st = opmfu_discover(o->inputs, o->n_inputs, NULL,
				   o->follow_symlinks ? OPMFU_DISCOVER_FOLLOW_LINKS : 0u, &list, warn_cb, (void *)o, err)))
		goto out;
	if ((st = opmfu_rank_list_pick_run(&list, o->run, o->n_inputs == 1 ? o->inputs[0] : "the paths given", err)))
		goto out;
	n_found = list.n;
	if (o->ranks && (st = opmfu_rank_list_select(&list, o->ranks, o->n_ranks, err)))
		goto out;
	/* the model's FLOPs once, before any rank: a bad config stops the run here
	 * (before the shard is taken: its OpmfuShard rows name the model) */
	if (o->model && (st = opmfu_model_check_start(o, n_found, list.n, rep, err)))
		goto out;
	/* a shard is taken from the run's ranks after --rank-list (lib/shard.c) */
	if (o->shard_n && (st = opmfu_shard_take(o, &list, rep, err)))
		goto out;

	if ((st = opmfu_make_layout(o, o->out_dir ? o->out_dir : list.v[0].out_hint, rep, err)) ||
	    (st = start_report(&list, rep, err)))
		goto out;

	st = opmfu_run_ranks(o, &list, rep, &ws, t0, err);
	if (st)
		goto out;
	/* a shard is written whatever its ranks did: the merge tells its failed ranks, and a shard may hold none */
	if (rep->n_failed == rep->n_ranks && !rep->shard_n) {
		/* nothing was analysed: keep the previous results rather than empty tables */
		st = opmfu_err_set(err, OPMFU_ERR_PARTIAL, "%zu of %zu rank%s failed; %s left unchanged",
				   rep->n_failed, rep->n_ranks, rep->n_ranks == 1 ? "" : "s",
				   rep->out_db ? rep->out_db
				   : o->exports == OPMFU_EXPORT_XLSX ? "the previous workbooks"
								       : "the previous results");
		opmfu_free(rep->out_db);
		rep->out_db = NULL;
		forget_exports(rep);
		goto out;
	}
	if ((st = opmfu_writers_commit(&ws, err)))
		goto out;
	opmfu_warn_csv_prefixed(o, rep->csv_prefixed);
	warn_output_size(o, &list, rep);
	/* the xlsx writer's commit wrote opmfu_summary.xlsx (every rank put its summary row) */
	if (rep->xlsx_dir)
		rep->xlsx_files++;
	if (rep->n_failed)
		st = opmfu_err_set(err, OPMFU_ERR_PARTIAL, "%zu of %zu ranks failed", rep->n_failed, rep->n_ranks);
out:
	opmfu_writers_close(&ws);
	if (st != OPMFU_OK && st != OPMFU_ERR_PARTIAL) {
		opmfu_free(rep->out_db);
		rep->out_db = NULL;
		forget_exports(rep);
	}
	opmfu_rank_list_release(&list);
	rep->seconds = opmfu_now_s() - t0;
	return st;
}

void opmfu_report_release(struct opmfu_report *rep)
{
	size_t i;
	for (i = 0; i < rep->n_ranks; i++)
		opmfu_free(rep->ranks[i].db_path);
	opmfu_free(rep->ranks);
	opmfu_free(rep->out_db);
	opmfu_free(rep->out_dir);
	forget_exports(rep);
	opmfu_model_check_release(rep->model);
	opmfu_states_free(rep->run_state, OPMFU_PER_RUN);
	opmfu_cell_store_release(&rep->model_run);
	opmfu_cell_store_release(&rep->shard);
	opmfu_shard_pack_free(rep->pack);
	opmfu_free(rep->run_id);
	opmfu_free(rep->source);
	memset(rep, 0, sizeof(*rep));
}

/* ---- the public run ---- */

enum opmfu_status opmfu_analyze(const struct opmfu_opts *o, struct opmfu_run **run, struct opmfu_err *err)
{
	struct opmfu_run *r = opmfu_calloc(1, sizeof(*r));
	if (!(*run = r))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory starting the analysis");
	return opmfu_analyze_report(o, &r->rep, err);
}

void opmfu_run_free(struct opmfu_run *run)
{
	if (!run)
		return;
	opmfu_report_release(&run->rep);
	opmfu_free(run);
}

/* A table of the run is a cell store (trace/table.h) seen from outside. */
static const struct opmfu_cell_store *store_of(const struct opmfu_rows *t)
{
	return (const struct opmfu_cell_store *)(const void *)t;
}

const struct opmfu_rows *opmfu_run_rows(const struct opmfu_run *run, const char *table)
{
	const struct opmfu_report *rep = &run->rep;
	const struct opmfu_account *a = opmfu_run_state(rep->run_state, &opmfu_analysis_account);
	const struct opmfu_cell_store *cs = NULL;
	if (!a)
		return NULL;
	if (!strcmp(table, "OpmfuRun"))
		cs = &a->run;
	else if (!strcmp(table, "OpmfuRankSummary"))
		cs = &a->ranks;
	else if (!strcmp(table, "OpmfuHotspots"))
		cs = &a->hotspots;
	else if (!strcmp(table, "OpmfuStragglers"))
		cs = &a->stragglers;
	else if (!strcmp(table, "OpmfuModel") && (rep->model || rep->model_run_of))
		cs = &rep->model_run;
	else if (!strcmp(table, "OpmfuShard") && rep->shard_n)
		cs = &rep->shard;
	return cs && cs->def ? (const struct opmfu_rows *)(const void *)cs : NULL;
}

size_t opmfu_rows_count(const struct opmfu_rows *t)
{
	return t ? store_of(t)->n_rows : 0;
}

int opmfu_rows_col(const struct opmfu_rows *t, const char *name)
{
	return t ? opmfu_table_col(store_of(t)->def, name) : -1;
}

static const struct opmfu_cell *cell_at(const struct opmfu_rows *t, size_t row, int col)
{
	const struct opmfu_cell_store *cs = t ? store_of(t) : NULL;
	if (!cs || col < 0 || (size_t)col >= cs->def->n_cols || row >= cs->n_rows)
		return NULL;
	return &cs->cells[row * cs->def->n_cols + (size_t)col];
}

double opmfu_rows_num(const struct opmfu_rows *t, size_t row, int col)
{
	const struct opmfu_cell *c = cell_at(t, row, col);
	/* cell_at checked the column: the row starts col cells before it */
	return c ? opmfu_cell_num(store_of(t)->def, c - col, col) : NAN;
}

_Static_assert(OPMFU_SHOWN_MAX == OPMFU_RANKS_SHOWN_MAX && OPMFU_SHOWN_SLOW == OPMFU_SLOW_RANKS &&
		       (int)OPMFU_SHOWN_RANK == (int)OPMFU_ROLE_RANK && (int)OPMFU_SHOWN_MEDIAN == (int)OPMFU_ROLE_MEDIAN &&
		       (int)OPMFU_SHOWN_BEST == (int)OPMFU_ROLE_BEST && (int)OPMFU_SHOWN_WORST == (int)OPMFU_ROLE_WORST &&
		       (int)OPMFU_SHOWN_SLOW_RANK == (int)OPMFU_ROLE_SLOW,
	       "opmfu.h's ranks shown are trace/rank_pick.h's");

size_t opmfu_rows_ranks_shown(const struct opmfu_rows *rs, size_t n_analysed, double median_rank, size_t *rows,
			      int *roles)
{
	struct opmfu_rank_shown sh[OPMFU_RANKS_SHOWN_MAX];
	const struct opmfu_cell_store *cs = rs ? store_of(rs) : NULL;
	size_t n, i;

	if (!cs)
		return 0;
	n = opmfu_ranks_shown(cs->def, cs->cells, cs->n_rows, n_analysed, median_rank, sh);
	for (i = 0; i < n; i++) {
		rows[i] = sh[i].row;
		roles[i] = (int)sh[i].role;
	}
	return n;
}

const char *opmfu_rows_text(const struct opmfu_rows *t, size_t row, int col)
{
	const struct opmfu_cell *c = cell_at(t, row, col);
	if (!c || c->null || store_of(t)->def->cols[col].type != OPMFU_COL_TEXT)
		return NULL;
	return c->v.t.s; /* the store's copies end in NUL */
}

const char *opmfu_run_path(const struct opmfu_run *run, enum opmfu_run_output which)
{
	switch (which) {
	case OPMFU_OUT_DIR:
		return run->rep.out_dir;
	case OPMFU_OUT_DB:
		return run->rep.out_db;
	case OPMFU_OUT_XLSX:
		return run->rep.xlsx_dir;
	case OPMFU_OUT_CSV:
		return run->rep.csv_dir;
	case OPMFU_OUT_JSON:
		return run->rep.json_dir;
	case OPMFU_OUT_HTML:
		return run->rep.html;
	}
	return NULL;
}

size_t opmfu_run_files(const struct opmfu_run *run, enum opmfu_run_output which)
{
	if (which == OPMFU_OUT_XLSX)
		return run->rep.xlsx_files;
	if (which == OPMFU_OUT_CSV || which == OPMFU_OUT_JSON)
		return run->rep.n_tables;
	return opmfu_run_path(run, which) ? 1 : 0;
}

void opmfu_format_ns(double ns, char *out, size_t size)
{
	opmfu_ns_text(ns, out, size);
}

int opmfu_parse_time_range(const char *s, long long *from_ns, long long *to_ns)
{
	int64_t a, z;
	if (opmfu_filter_parse_time(s, &a, &z))
		return -1;
	*from_ns = a;
	*to_ns = z == OPMFU_FILTER_OPEN ? LLONG_MAX : z;
	return 0;
}

double opmfu_run_seconds(const struct opmfu_run *run)
{
	return run->rep.seconds;
}

double opmfu_run_stage_seconds(const struct opmfu_run *run, size_t i, enum opmfu_stage stage)
{
	if (i >= run->rep.n_ranks || (int)stage < 0 || stage >= OPMFU_NSTAGE)
		return -1;
	return run->rep.ranks[i].seconds[stage];
}

void opmfu_remove_staged(void)
{
	opmfu_stage_remove_all();
}
