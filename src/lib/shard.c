/*
 * shard.c - a run over many machines (SPEC 22, docs/scale.md): `analyze
 * --shard I/N` keeps the I-th of N contiguous blocks of the run's ranks and
 * writes a shard result (the per-rank tables, the held OpmfuSteps as the
 * rank left them, the internal OpmfuCollCalls, and OpmfuShard naming the
 * run, the shard and its ranks); `opmfu merge` reads shard results back rank
 * by rank and feeds them through the pool's own steps (opmfu_pool_put, keep,
 * finish), so every writer and per-run analysis sees what a single run
 * gives them and writes the same result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/mem.h"
#include "base/sbuf.h"
#include "base/sort.h"
#include "lib/lib.h"
#include "lib/model_check.h"
#include "read/results.h"
#include "read/sqlite_in.h"

enum { SH_RUN, SH_SOURCE, SH_SHARD, SH_SHARDS, SH_RUN_RANKS, SH_RANK, SH_INPUT, SH_MODEL, SH_NCOL };

static const struct opmfu_column shard_cols[] = {
	{ "run_id", OPMFU_COL_TEXT, "Run ID", 0, 0 },	   { "source", OPMFU_COL_TEXT, "Source", 0, 0 },
	{ "shard", OPMFU_COL_INT, "Shard", 0, 0 },	   { "shards", OPMFU_COL_INT, "Shards", 0, 0 },
	{ "run_ranks", OPMFU_COL_INT, "Run Ranks", 0, 0 }, { "rank_id", OPMFU_COL_INT, "Rank ID", 0, 0 },
	{ "input", OPMFU_COL_TEXT, "Input", 0, 0 },
	/* analyze --model: the config, options and conventions' FLOPs, one line; else NULL */
	{ "model", OPMFU_COL_TEXT, "Model", 0, 0 },
};
_Static_assert(SH_NCOL == sizeof(shard_cols) / sizeof(shard_cols[0]), "OpmfuShard's columns");

const struct opmfu_table_def opmfu_shard_def = { "OpmfuShard", shard_cols, SH_NCOL, NULL, 0, NULL };

/* ---- analyze --shard ---- */

/* Contiguous blocks, not round-robin: the merge then reads the shards one
 * after the other, each in rowid order, and that is rank order (one file
 * open at a time, whatever N). Block sizes differ by at most one rank. */
enum opmfu_status opmfu_shard_take(const struct opmfu_opts *o, struct opmfu_rank_list *list, struct opmfu_report *rep,
				   struct opmfu_err *err)
{
	struct opmfu_cell row[SH_NCOL];
	enum opmfu_status st = OPMFU_OK;
	size_t n = list->n, lo, hi, i, k = 0;
	struct sbuf model;

	if (o->shard_n < 1 || o->shard_i < 1 || o->shard_i > o->shard_n)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "--shard %d/%d: I must be 1 to N", o->shard_i, o->shard_n);
	if (!o->out_dir)
		return opmfu_err_set(err, OPMFU_ERR_USAGE,
				     "--shard needs -o DIR: each shard writes a result of its own for 'opmfu merge'");
	if (o->exports & ~(unsigned)OPMFU_EXPORT_DB)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "--shard writes the shard result database alone (--export "
				     "db); 'opmfu merge --export ...' writes the others");
	if (!n || !list->v[0].run_id)
		return opmfu_err_set(err, OPMFU_ERR_NOINPUT, "no rank to shard");
	rep->shard_n = o->shard_n;
	if (!(rep->run_id = opmfu_strdup(list->v[0].run_id)) || !(rep->source = opmfu_strdup(list->v[0].reader->name)))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
	lo = (size_t)(o->shard_i - 1) * n / (size_t)o->shard_n;
	hi = (size_t)o->shard_i * n / (size_t)o->shard_n;
	opmfu_cell_store_init(&rep->shard, &opmfu_shard_def);
	if (!(rep->pack = opmfu_shard_pack_new()))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
	row[SH_RUN] = opmfu_cell_str(rep->run_id);
	row[SH_SOURCE] = opmfu_cell_str(rep->source);
	row[SH_SHARD] = opmfu_cell_int(o->shard_i);
	row[SH_SHARDS] = opmfu_cell_int(o->shard_n);
	row[SH_RUN_RANKS] = opmfu_cell_int((int64_t)n);
	/* a shard of no rank still says which it is: one row, rank_id NULL */
	row[SH_RANK] = opmfu_cell_null();
	row[SH_INPUT] = opmfu_cell_null();
	row[SH_MODEL] = opmfu_cell_null();
	sbuf_init(&model);
	/* the merge makes OpmfuModel's run rows from the shards' OpmfuModelRun: they must be alike */
	if (rep->model && (st = opmfu_model_check_describe(rep->model, &model, err)) == OPMFU_OK)
		row[SH_MODEL] = opmfu_cell_str(model.buf);
	if (lo == hi && st == OPMFU_OK)
		st = opmfu_cell_store_add(&rep->shard, row, err);
	for (i = lo; i < hi && st == OPMFU_OK; i++) {
		row[SH_RANK] = opmfu_cell_int(list->v[i].rank);
		row[SH_INPUT] = opmfu_cell_str(list->v[i].path);
		st = opmfu_cell_store_add(&rep->shard, row, err);
	}
	sbuf_release(&model);
	if (st)
		return st;
	for (i = 0; i < n; i++) {
		if (i >= lo && i < hi)
			list->v[k++] = list->v[i];
		else
			opmfu_rank_input_release(&list->v[i]);
	}
	list->n = k;
	return OPMFU_OK;
}

/* ---- opmfu merge ---- */

struct shard_in {
	const char *path;
	char *run_id, *source;
	char *model; /* OpmfuShard.model: analysed with --model; NULL: without */
	int64_t shard, shards, run_ranks;
	int *ranks;
	size_t n, cap, rows;
	int empty; /* its row with rank_id NULL */
	char *layout; /* OpmfuShardPackLayout's: its ranks are packed (NULL: a shard of before the packs) */
	int64_t format;
	size_t layouts; /* its rows */
};

_Static_assert(sizeof(struct shard_in) <= OPMFU_SORT_MAX_ELEM, "opmfu_sort_array sorts the shards");

static void shard_in_release(struct shard_in *s)
{
	opmfu_free(s->run_id);
	opmfu_free(s->source);
	opmfu_free(s->model);
	opmfu_free(s->ranks);
	opmfu_free(s->layout);
}

static char *dup_cell(const struct opmfu_cell *c)
{
	char *s;
	if (c->null || !(s = opmfu_malloc(c->v.t.n + 1)))
		return NULL;
	memcpy(s, c->v.t.s, c->v.t.n);
	s[c->v.t.n] = '\0';
	return s;
}

static int same_text(const char *s, const struct opmfu_cell *c)
{
	return !c->null && strlen(s) == c->v.t.n && !memcmp(s, c->v.t.s, c->v.t.n);
}

/* OpmfuShard's rows of one file: one run, one shard, ranks in increasing order. */
static enum opmfu_status shard_rows(void *ctx, size_t k, const struct opmfu_table *t, struct opmfu_err *err)
{
	struct shard_in *s = ctx;
	struct opmfu_cell c[SH_NCOL];
	size_t i;
	int j;
	(void)k;
	for (i = 0; i < t->n_rows; i++) {
		size_t row = ++s->rows;
		t->row(t->src, i, c);
		for (j = 0; j < SH_NCOL; j++)
			if (c[j].null && j != SH_RANK && j != SH_INPUT && j != SH_MODEL)
				return opmfu_err_set(err, OPMFU_ERR_FORMAT, "%s: OpmfuShard row %zu: %s is NULL", s->path,
						     row, shard_cols[j].name);
		if (row == 1) {
			if (!(s->run_id = dup_cell(&c[SH_RUN])) || !(s->source = dup_cell(&c[SH_SOURCE])))
				return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory", s->path);
			if (!c[SH_MODEL].null && !(s->model = dup_cell(&c[SH_MODEL])))
				return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory", s->path);
			s->shard = c[SH_SHARD].v.i;
			s->shards = c[SH_SHARDS].v.i;
			s->run_ranks = c[SH_RUN_RANKS].v.i;
			if (s->shards < 1 || s->shards > 1000000 || s->shard < 1 || s->shard > s->shards ||
			    s->run_ranks < 0)
				return opmfu_err_set(err, OPMFU_ERR_FORMAT,
						     "%s: OpmfuShard row 1: shard %lld of %lld, of a run of %lld ranks, "
						     "is not a shard", s->path, (long long)s->shard, (long long)s->shards,
						     (long long)s->run_ranks);
		} else if (!same_text(s->run_id, &c[SH_RUN]) || c[SH_SHARD].v.i != s->shard ||
			   c[SH_SHARDS].v.i != s->shards || c[SH_RUN_RANKS].v.i != s->run_ranks ||
			   (s->model ? !same_text(s->model, &c[SH_MODEL]) : !c[SH_MODEL].null)) {
			return opmfu_err_set(err, OPMFU_ERR_FORMAT,
					     "%s: OpmfuShard row %zu: another run or shard than row 1's", s->path, row);
		}
		if (c[SH_RANK].null) {
			s->empty = 1;
		} else {
			int64_t r = c[SH_RANK].v.i;
			if (r < -1 || r > 1000000 || (s->n && r <= s->ranks[s->n - 1]))
				return opmfu_err_set(err, OPMFU_ERR_FORMAT,
						     "%s: OpmfuShard row %zu: rank_id %lld is not a rank id above the "
						     "row before's", s->path, row, (long long)r);
			if (OPMFU_GROW(s->ranks, s->cap, s->n + 1))
				return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory", s->path);
			s->ranks[s->n++] = (int)r;
		}
		if (s->empty && s->n)
			return opmfu_err_set(err, OPMFU_ERR_FORMAT,
					     "%s: OpmfuShard row %zu: a row without a rank beside rows with one", s->path,
					     row);
	}
	return OPMFU_OK;
}

/* OpmfuShardPackLayout's row. */
static enum opmfu_status layout_rows(void *ctx, size_t k, const struct opmfu_table *t, struct opmfu_err *err)
{
	struct shard_in *s = ctx;
	struct opmfu_cell c[2];
	(void)k;
	if (!t->n_rows)
		return OPMFU_OK;
	s->layouts += t->n_rows;
	t->row(t->src, 0, c);
	if (s->layouts != 1 || c[0].null || c[1].null)
		return opmfu_err_set(err, OPMFU_ERR_FORMAT, "%s: OpmfuShardPackLayout: %s", s->path,
				     s->layouts != 1 ? "more than one row" : "a NULL format or layout");
	s->format = c[0].v.i;
	if (!(s->layout = dup_cell(&c[1])))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory", s->path);
	return OPMFU_OK;
}

static enum opmfu_status read_shard(struct shard_in *s, struct opmfu_err *err)
{
	const struct opmfu_table_def *def = &opmfu_shard_def, *layout = &opmfu_shard_layout_def;
	enum opmfu_db_kind kind;
	enum opmfu_status st = opmfu_db_kind(s->path, &kind, err);
	if (st == OPMFU_OK && kind == OPMFU_DB_NOT_SQLITE)
		return opmfu_err_set(err, OPMFU_ERR_FORMAT, "%s: not an SQLite database, so not a shard result",
				     s->path);
	if (st == OPMFU_OK)
		st = opmfu_results_tables(s->path, &def, 1, NULL, 0, 4096, shard_rows, s, err);
	if (st == OPMFU_OK && !s->rows)
		st = opmfu_err_set(err, OPMFU_ERR_FORMAT, "%s: not a shard result (no OpmfuShard rows): 'opmfu analyze "
				   "--shard I/N -o DIR' writes one", s->path);
	if (st == OPMFU_OK)
		st = opmfu_results_tables(s->path, &layout, 1, NULL, 0, 4, layout_rows, s, err);
	return st;
}

/* stable sorts: equals keep the order given (the messages name the first file first) */
static int by_shard(const void *a, const void *b)
{
	return ((const struct shard_in *)a)->shard < ((const struct shard_in *)b)->shard;
}

struct rank_at {
	int rank;
	size_t file;
};

static int by_rank(const void *a, const void *b)
{
	return ((const struct rank_at *)a)->rank < ((const struct rank_at *)b)->rank;
}

/* One run, one N (sh in the order given, so that the message names the first file). */
static enum opmfu_status check_run(const struct shard_in *sh, size_t n, struct opmfu_err *err)
{
	size_t i;
	for (i = 1; i < n; i++) {
		const struct shard_in *a = &sh[0], *b = &sh[i];
		if (strcmp(a->run_id, b->run_id) || strcmp(a->source, b->source))
			return opmfu_err_set(err, OPMFU_ERR_USAGE,
					     "%s is a shard of run '%s' (%s), %s of run '%s' (%s): a merge is of one run",
					     a->path, a->run_id, a->source, b->path, b->run_id, b->source);
		if (a->shards != b->shards || a->run_ranks != b->run_ranks)
			return opmfu_err_set(err, OPMFU_ERR_USAGE,
					     "%s is shard %lld/%lld of %lld ranks, %s shard %lld/%lld of %lld: the shards "
					     "of a merge are cut from the same ranks into the same N", a->path,
					     (long long)a->shard, (long long)a->shards, (long long)a->run_ranks, b->path,
					     (long long)b->shard, (long long)b->shards, (long long)b->run_ranks);
		if (!a->model != !b->model)
			return opmfu_err_set(err, OPMFU_ERR_USAGE, "%s was analysed %s --model, %s %s: the shards of a "
					     "merge are analysed with the same --model options", a->path,
					     a->model ? "with" : "without", b->path, b->model ? "with" : "without");
		if (a->model && strcmp(a->model, b->model))
			return opmfu_err_set(err, OPMFU_ERR_USAGE, "%s and %s were analysed with other --model options "
					     "(OpmfuShard.model '%s', '%s'): the shards of a merge are analysed with the "
					     "same", a->path, b->path, a->model, b->model);
	}
	return OPMFU_OK;
}

/* No rank twice, no shard twice (sh sorted by shard). */
static enum opmfu_status check_shards(const struct shard_in *sh, size_t n, struct opmfu_err *err)
{
	struct rank_at *all;
	size_t i, m = 0;
	enum opmfu_status st = OPMFU_OK;

	for (i = 0; i < n; i++)
		m += sh[i].n;
	if (!(all = opmfu_calloc(m + 1, sizeof(*all))))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
	m = 0;
	for (i = 0; i < n; i++) {
		size_t k;
		for (k = 0; k < sh[i].n; k++) {
			all[m].rank = sh[i].ranks[k];
			all[m++].file = i;
		}
	}
	if (opmfu_sort_array(all, m, sizeof(*all), by_rank)) {
		opmfu_free(all);
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
	}
	for (i = 1; i < m && st == OPMFU_OK; i++)
		if (all[i].rank == all[i - 1].rank) {
			const struct shard_in *a = &sh[all[i - 1].file], *b = &sh[all[i].file];
			st = opmfu_err_set(err, OPMFU_ERR_USAGE, "rank %d is in both %s (shard %lld/%lld) and %s (shard "
					   "%lld/%lld): give each shard once", all[i].rank, a->path, (long long)a->shard,
					   (long long)a->shards, b->path, (long long)b->shard, (long long)b->shards);
		}
	opmfu_free(all);
	for (i = 1; i < n && st == OPMFU_OK; i++)
		if (sh[i].shard == sh[i - 1].shard)
			st = opmfu_err_set(err, OPMFU_ERR_USAGE, "%s and %s are both shard %lld/%lld: give each shard once",
					   sh[i - 1].path, sh[i].path, (long long)sh[i].shard, (long long)sh[i].shards);
	/* contiguous blocks: in shard order, the ranks go up */
	for (i = 1; i < n && st == OPMFU_OK; i++) {
		size_t j = i;
		while (j-- > 0 && !sh[j].n)
			;
		if (sh[i].n && j < i && sh[j].n && sh[j].ranks[sh[j].n - 1] > sh[i].ranks[0])
			st = opmfu_err_set(err, OPMFU_ERR_FORMAT, "%s (shard %lld) holds rank %d, below rank %d of %s "
					   "(shard %lld): not shards of one cut", sh[i].path, (long long)sh[i].shard,
					   sh[i].ranks[0], sh[j].ranks[sh[j].n - 1], sh[j].path, (long long)sh[j].shard);
	}
	return st;
}

/* The tables a rank of a shard holds, in the order the pool puts them:
 * the per-rank analyses' (internal ones too) by stage, OpmfuModel's rank
 * rows, then OpmfuRankSummary. */
static size_t rank_defs(const struct opmfu_table_def **out)
{
	size_t i, k, n = 0;
	int stage;
	for (stage = OPMFU_STAGE_OPS; stage <= OPMFU_STAGE_LAST; stage++)
		for (i = 0; opmfu_analyses[i]; i++) {
			const struct opmfu_analysis *a = opmfu_analyses[i];
			if (a->scope != OPMFU_PER_RANK || a->stage != stage)
				continue;
			for (k = 0; a->makes && a->makes[k] && n < OPMFU_MAX_RANK_TABS - 2; k++)
				out[n++] = a->makes[k];
		}
	out[n++] = &opmfu_model_def;
	out[n++] = &opmfu_rank_summary_def;
	return n;
}

/* Whether two paths name one file. */
static int same_file(const char *a, const char *b)
{
	struct stat x, y;
	return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

struct merge {
	const struct opmfu_opts *o;
	struct opmfu_report *rep;
	struct opmfu_writers *ws;
	struct opmfu_shard_split sp;
	int copy; /* every writer copies: a shard's packed ranks are read, when it has them */
	size_t ranks_done;
	size_t n_ranks; /* merged (rep->n_ranks counts rep->ranks, which a merge has not) */
	struct opmfu_cell_store cs[OPMFU_MAX_RANK_TABS];
	struct opmfu_cell_store pack; /* the rank's OpmfuShardPack row: cs's texts point into it */
	double t0;
};

/* The rank's rows of every table from its OpmfuShardPack row (cur reads that table alone). */
static enum opmfu_status unpack_rank(struct merge *m, struct opmfu_results_cursor *cur, const struct shard_in *s,
				     int rank, struct opmfu_err *err)
{
	enum opmfu_status st;
	opmfu_cell_store_clear(&m->pack);
	if ((st = opmfu_results_cursor_rank(cur, 0, rank, &m->pack, err)))
		return st;
	if (m->pack.n_rows != 1 || m->pack.cells[1].null)
		return opmfu_err_set(err, OPMFU_ERR_FORMAT, "%s: OpmfuShardPack has %s for rank %d, not one pack",
				     s->path, m->pack.n_rows ? "more rows, or a NULL pack," : "no row", rank);
	return opmfu_shard_pack_unpack(s->path, rank, m->pack.cells[1].v.t.s, m->pack.cells[1].v.t.n, &m->sp, m->cs,
				       err);
}

/* One rank of a shard: each table's rows put, then kept. packed: cur reads
 * OpmfuShardPack, else the tables of m->sp.defs. */
static enum opmfu_status merge_rank(struct merge *m, struct opmfu_results_cursor *cur, int packed,
				    const struct shard_in *s, int rank, struct opmfu_err *err)
{
	enum opmfu_status st = OPMFU_OK;
	size_t k, last = m->sp.n_defs - 1;
	int failed = 0;
	unsigned xlsx = 0;

	if (packed && (st = unpack_rank(m, cur, s, rank, err)))
		return st;
	for (k = 0; k < m->sp.n_defs && st == OPMFU_OK; k++) {
		struct opmfu_table t;
		if (!packed) {
			opmfu_cell_store_clear(&m->cs[k]);
			if ((st = opmfu_results_cursor_rank(cur, k, rank, &m->cs[k], err)))
				break;
		}
		t = opmfu_cell_store_table(&m->cs[k]);
		if (k == last) {
			int col = opmfu_table_col(t.def, "status");
			struct opmfu_cell *c = m->cs[k].cells;
			if (t.n_rows != 1)
				return opmfu_err_set(err, OPMFU_ERR_FORMAT, "%s: OpmfuRankSummary has %zu rows for rank %d, "
						     "not one", s->path, t.n_rows, rank);
			failed = col >= 0 && !c[col].null && c[col].v.t.n == 6 && !memcmp(c[col].v.t.s, "failed", 6);
		}
		st = m->sp.run_only[k] ? opmfu_pool_put_run(m->rep, &t, err)
				    : opmfu_pool_put(m->rep, m->ws, rank, &t, err);
	}
	if (st == OPMFU_OK)
		st = opmfu_pool_keep(m->o, m->rep, m->ws, rank, !failed, &xlsx, err);
	m->rep->n_failed += failed;
	m->n_ranks++;
	m->ranks_done++;
	if (st == OPMFU_OK && m->o->on_progress) {
		struct opmfu_progress pr = { m->ranks_done, m->ranks_done, 0, opmfu_now_s() - m->t0 };
		m->o->on_progress(m->o->ctx, &pr);
	}
	return st;
}

static int want_col(void *ctx, size_t k, const char *col);

static enum opmfu_status merge_shard(struct merge *m, const struct shard_in *s, struct opmfu_err *err)
{
	const struct opmfu_table_def *pack = &opmfu_shard_pack_def;
	struct opmfu_results_cursor *cur = NULL, *pcur = NULL, *rows;
	enum opmfu_status st;
	/* a shard of before the packs is read table by table, as one whose
	 * output is not all copies (the packs hold the columns a copy leaves) */
	int packed = m->copy && s->layout;
	size_t i;
	/* the cursor checks the shard's tables first (packed, it reads none of
	 * their rows: the copies and the packs hold them). Its ranks are one
	 * block of the run's rank order: its rows go after the shard before's.
	 * Copied before any row is put, the first shard's pages can be the
	 * output's (the database writer's seed). */
	st = opmfu_results_cursor_open(s->path, m->sp.defs, m->sp.n_defs, want_col, m, &cur, err);
	if (st == OPMFU_OK && packed && (st = opmfu_shard_pack_check(s->path, s->format, s->layout, err)) == OPMFU_OK)
		st = opmfu_results_cursor_open(s->path, &pack, 1, NULL, NULL, &pcur, err);
	for (i = 0; i < m->ws->n && st == OPMFU_OK && m->sp.n_copied; i++)
		st = m->ws->v[i]->type->copy(m->ws->v[i], s->path, m->sp.copied, m->sp.n_copied, err);
	rows = packed ? pcur : cur;
	for (i = 0; i < s->n && st == OPMFU_OK; i++)
		st = merge_rank(m, rows, packed, s, s->ranks[i], err);
	if (st == OPMFU_OK)
		st = opmfu_results_cursor_close(rows, err);
	else
		opmfu_results_cursor_close(rows, NULL);
	opmfu_results_cursor_close(packed ? cur : pcur, NULL);
	return st;
}

/* Whether a per-run analysis reads column col of the table of that name. */
static int read_col_by_run(const char *name, const char *col)
{
	size_t i, k;
	for (i = 0; opmfu_analyses[i]; i++) {
		const struct opmfu_analysis *a = opmfu_analyses[i];
		for (k = 0; a->scope == OPMFU_PER_RUN && a->needs && a->needs[k]; k++)
			if (!strcmp(a->needs[k], name) && (!a->reads || a->reads(name, col)))
				return 1;
	}
	return 0;
}

/* The columns read: a table also copied feeds only the per-run analyses. */
int opmfu_shard_wants(const struct opmfu_shard_split *sp, size_t k, const char *col)
{
	return !sp->run_only[k] || read_col_by_run(sp->defs[k]->name, col);
}

static int want_col(void *ctx, size_t k, const char *col)
{
	return opmfu_shard_wants(&((const struct merge *)ctx)->sp, k, col);
}

/* Whether a per-run analysis reads the table of that name (its needs). */
static int read_by_run(const char *name)
{
	size_t i, k;
	for (i = 0; opmfu_analyses[i]; i++)
		for (k = 0; opmfu_analyses[i]->scope == OPMFU_PER_RUN && opmfu_analyses[i]->needs &&
			    opmfu_analyses[i]->needs[k];
		     k++)
			if (!strcmp(opmfu_analyses[i]->needs[k], name))
				return 1;
	return 0;
}

/* When every writer can copy (the database alone), a table a single run
 * writes as the rank made it is copied shard by shard instead of put rank
 * by rank: the big per-rank tables (OperatorMFU, OpmfuOps, ModuleMFU) feed
 * no per-run analysis and are not read at all; those that do (OpmfuModules,
 * OpmfuKernels, OpmfuRankSummary, ...) are read for it, and copied. Read
 * and put: a held table (OpmfuSteps: the merge completes it), an internal
 * one (OpmfuCollCalls), OpmfuModel (the run's rows follow the ranks'). */
void opmfu_shard_split(int copy, int summary_only, struct opmfu_shard_split *sp)
{
	const struct opmfu_table_def *all[OPMFU_MAX_RANK_TABS];
	size_t n = rank_defs(all), i;

	sp->n_defs = sp->n_copied = 0;
	for (i = 0; i < n; i++) {
		/* --summary-only: a detail table no per-run analysis reads goes nowhere */
		if (summary_only && (all[i]->flags & OPMFU_TABLE_DETAIL) && !read_by_run(all[i]->name))
			continue;
		int whole = copy && all[i] != &opmfu_model_def &&
			    !(all[i]->flags & (OPMFU_TABLE_HELD | OPMFU_TABLE_INTERNAL)) &&
			    !(summary_only && (all[i]->flags & OPMFU_TABLE_DETAIL));
		if (whole)
			sp->copied[sp->n_copied++] = all[i];
		/* OpmfuRankSummary is read whatever: a rank's status */
		if (!whole || read_by_run(all[i]->name) || i + 1 == n) {
			sp->run_only[sp->n_defs] = (unsigned char)whole;
			sp->defs[sp->n_defs++] = all[i];
		}
	}
}

static void split_defs(struct merge *m)
{
	size_t k;
	m->copy = m->ws->n > 0;
	for (k = 0; k < m->ws->n; k++)
		m->copy &= m->ws->v[k]->type->copy != NULL;
	opmfu_shard_split(m->copy, m->rep->summary_only, &m->sp);
}

/* OpmfuModel's run rows: the median rank's OpmfuModelRun rows, from the
 * shard that held it, as the single run makes them (opmfu_model_check_run). */
struct model_pick {
	const struct shard_in *sh;
	size_t n;
	struct opmfu_cell_store *cs;
};

static enum opmfu_status model_rows(void *ctx, size_t k, const struct opmfu_table *t, struct opmfu_err *err)
{
	struct model_pick *mp = ctx;
	struct opmfu_cell c[16];
	enum opmfu_status st = OPMFU_OK;
	size_t i;
	(void)k;
	if (t->def->n_cols > sizeof(c) / sizeof(c[0]) || t->def->n_cols != opmfu_model_def.n_cols)
		return opmfu_err_set(err, OPMFU_ERR_FORMAT, "OpmfuModelRun is not OpmfuModel's columns");
	for (i = 0; i < t->n_rows && st == OPMFU_OK; i++) {
		t->row(t->src, i, c);
		c[0] = c[1] = opmfu_cell_null(); /* rank_id, step: the run's */
		st = opmfu_cell_store_add(mp->cs, c, err);
	}
	return st;
}

static enum opmfu_status model_run_of(void *ctx, const int *median, struct opmfu_cell_store *cs,
				      struct opmfu_err *err)
{
	const struct opmfu_table_def *def = &opmfu_model_run_def;
	struct model_pick *mp = ctx;
	enum opmfu_status st;
	size_t i, k;

	opmfu_cell_store_init(cs, &opmfu_model_def);
	/* no median rank: every rank failed, and nothing is written */
	for (i = 0; median && i < mp->n; i++)
		for (k = 0; k < mp->sh[i].n; k++) {
			if (mp->sh[i].ranks[k] != *median)
				continue;
			mp->cs = cs;
			st = opmfu_results_tables(mp->sh[i].path, &def, 1, median, 1, 64, model_rows, mp, err);
			if (st == OPMFU_OK && !cs->n_rows)
				st = opmfu_err_set(err, OPMFU_ERR_FORMAT, "%s: OpmfuModelRun has no rows for rank %d, the "
						   "run's median rank: not a complete shard result", mp->sh[i].path,
						   *median);
			return st;
		}
	return OPMFU_OK;
}

/* "2, 4 and 5" of the shards 1..N not in sh, into sb; how many. */
static size_t missing_shards(const struct shard_in *sh, size_t n, struct sbuf *sb)
{
	int64_t want, N = n ? sh[0].shards : 0;
	size_t i = 0, miss = 0;
	for (want = 1; want <= N; want++) {
		while (i < n && sh[i].shard < want)
			i++;
		if (i < n && sh[i].shard == want)
			continue;
		if (miss < 20)
			sbuf_addf(sb, "%s%lld", miss ? ", " : "", (long long)want);
		miss++;
	}
	if (miss > 20)
		sbuf_addf(sb, ", ... (%zu in all)", miss);
	return miss;
}

static enum opmfu_status merge_run(const struct opmfu_opts *o, struct opmfu_report *rep, struct shard_in *sh,
				   size_t n, struct opmfu_err *err)
{
	struct opmfu_writers ws = OPMFU_WRITERS_INIT;
	struct model_pick mp = { sh, n, NULL };
	struct merge m;
	enum opmfu_status st = OPMFU_OK;
	size_t i, miss;
	struct sbuf sb;

	memset(&m, 0, sizeof(m));
	m.o = o;
	m.rep = rep;
	m.ws = &ws;
	m.t0 = opmfu_now_s();
	rep->summary_only = o->summary_only;
	if (!(rep->run_id = opmfu_strdup(sh[0].run_id)) || !(rep->source = opmfu_strdup(sh[0].source)))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
	if ((st = opmfu_make_layout(o, o->out_dir, rep, err)))
		return st;
	for (i = 0; i < n && rep->out_db; i++)
		if (same_file(rep->out_db, sh[i].path))
			return opmfu_err_set(err, OPMFU_ERR_USAGE, "%s: the merge would write over shard %lld's result: "
					     "give -o another folder", sh[i].path, (long long)sh[i].shard);
	if ((st = opmfu_pool_open_writers(o, rep, &ws, err)))
		goto out;
	if (sh[0].model) {
		rep->model_run_of = model_run_of;
		rep->model_ctx = &mp;
	}
	split_defs(&m);
	for (i = 0; i < m.sp.n_defs; i++)
		opmfu_cell_store_init(&m.cs[i], m.sp.defs[i]);
	opmfu_cell_store_init(&m.pack, &opmfu_shard_pack_def);
	for (i = 0; i < n && st == OPMFU_OK; i++)
		st = merge_shard(&m, &sh[i], err);
	if (st == OPMFU_OK)
		st = opmfu_pool_finish(rep->run_id, rep->source, m.n_ranks, rep, &ws, err);
	if (st)
		goto out;
	if (rep->n_failed == m.n_ranks) {
		st = opmfu_err_set(err, OPMFU_ERR_PARTIAL, "%zu of %zu rank%s failed; %s left unchanged", rep->n_failed,
				   m.n_ranks, m.n_ranks == 1 ? "" : "s", rep->out_db ? rep->out_db : "the previous results");
		opmfu_free(rep->out_db);
		rep->out_db = NULL;
		goto out;
	}
	if ((st = opmfu_writers_commit(&ws, err)))
		goto out;
	opmfu_warn_csv_prefixed(o, rep->csv_prefixed);
	if (rep->xlsx_dir)
		rep->xlsx_files++;
	sbuf_init(&sb);
	miss = missing_shards(sh, n, &sb);
	if (sb.oom)
		st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
	else if (miss)
		st = opmfu_err_set(err, OPMFU_ERR_PARTIAL,
				   "shard%s %s of %lld missing: merged %zu of the %lld ranks of run '%s' from %zu shard%s",
				   miss == 1 ? "" : "s", sb.buf, (long long)sh[0].shards, m.n_ranks,
				   (long long)sh[0].run_ranks, rep->run_id, n, n == 1 ? "" : "s");
	else if (rep->n_failed)
		st = opmfu_err_set(err, OPMFU_ERR_PARTIAL, "%zu of %zu ranks failed", rep->n_failed, m.n_ranks);
	sbuf_release(&sb);
out:
	opmfu_writers_close(&ws);
	for (i = 0; i < m.sp.n_defs; i++)
		opmfu_cell_store_release(&m.cs[i]);
	opmfu_cell_store_release(&m.pack);
	return st;
}

enum opmfu_status opmfu_merge(const struct opmfu_opts *o, struct opmfu_run **run, struct opmfu_err *err)
{
	struct opmfu_run *r = opmfu_calloc(1, sizeof(*r));
	struct opmfu_report *rep = r ? &r->rep : NULL;
	struct shard_in *sh = NULL;
	enum opmfu_status st = OPMFU_OK;
	double t0 = opmfu_now_s();
	size_t i;

	if (!(*run = r))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory starting the merge");
	opmfu_sqlite_guard();
	opmfu_cell_store_init(&rep->model_run, NULL);
	if ((st = opmfu_states_new(rep->run_state, OPMFU_PER_RUN, err)))
		return st;
	if (!o->n_inputs)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "no shard result given");
	if (!o->out_dir)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "say where to write the merged result with -o DIR");
	if (!(sh = opmfu_calloc(o->n_inputs, sizeof(*sh))))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory starting the merge");
	for (i = 0; i < o->n_inputs && st == OPMFU_OK; i++) {
		sh[i].path = o->inputs[i];
		st = read_shard(&sh[i], err);
	}
	if (st == OPMFU_OK && (st = check_run(sh, o->n_inputs, err)) == OPMFU_OK) {
		st = opmfu_sort_array(sh, o->n_inputs, sizeof(*sh), by_shard)
			     ? opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory")
			     : check_shards(sh, o->n_inputs, err);
	}
	if (st == OPMFU_OK)
		st = merge_run(o, rep, sh, o->n_inputs, err);
	if (st != OPMFU_OK && st != OPMFU_ERR_PARTIAL) {
		opmfu_free(rep->out_db);
		rep->out_db = NULL;
	}
	for (i = 0; i < o->n_inputs; i++)
		shard_in_release(&sh[i]);
	opmfu_free(sh);
	rep->seconds = opmfu_now_s() - t0;
	return st;
}
