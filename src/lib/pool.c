/*
 * pool.c - the rank pool: workers analyse ranks in parallel while the calling
 * thread writes them in rank order (docs/architecture.md, "The rank pool").
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/collectives.h"
#include "analyze/steps.h"
#include "base/mem.h"
#include "base/sbuf.h"
#include "base/thread.h"
#include "lib/lib.h"
#include "lib/model_check.h"
#include "reference/module_tree.h"
#include "trace/strtab.h"
#include "write/text_writer.h"

/* ---- the rank pool ----
 * Workers analyse ranks in parallel; the calling thread writes them strictly in
 * rank order and frees each one at once. A worker may run at most `window`
 * ranks ahead of the writer, so memory is bounded by the window, not by the
 * number of ranks, and the output is identical for every -j.
 */

struct pool {
	const struct opmfu_opts *o;
	const struct opmfu_rank_list *list;
	struct opmfu_report *rep;
	struct rank_work *work; /* one per rank; only `window` are live at once */
	size_t next, written, window;
	int abort;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

static void set_stage(struct pool *p, struct rank_work *w, int stage)
{
	pthread_mutex_lock(&p->mu);
	w->stage = stage;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

static void wait_stage(struct pool *p, struct rank_work *w, int stage)
{
	pthread_mutex_lock(&p->mu);
	while (w->stage < stage)
		pthread_cond_wait(&p->cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

/* Stage `stage` (after the first) of a rank is made: the worker's, waited
 * for; with no worker, made here, once the stage before is written, so that
 * what the writing frees (kernel MFU's entries, the tables written) is not
 * held under the next stage. Returns the seconds spent making it here. */
static double stage_ready(struct pool *p, size_t started, struct rank_work *w, struct opmfu_rank_report *rr,
			  int stage)
{
	double t0;
	if (started) {
		wait_stage(p, w, stage);
		return 0;
	}
	t0 = opmfu_now_s();
	opmfu_rank_analyse_stage(w, rr, stage);
	return opmfu_now_s() - t0;
}

static void *worker(void *arg)
{
	struct pool *p = arg;
	for (;;) {
		size_t i;
		int stage;
		pthread_mutex_lock(&p->mu);
		while (!p->abort && p->next < p->list->n && p->next >= p->written + p->window)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->abort || p->next >= p->list->n) {
			pthread_mutex_unlock(&p->mu);
			return NULL;
		}
		i = p->next++;
		pthread_mutex_unlock(&p->mu);

		opmfu_rank_analyse_ops(p->o, &p->list->v[i], &p->work[i], &p->rep->ranks[i]);
		set_stage(p, &p->work[i], OPMFU_STAGE_OPS);
		for (stage = OPMFU_STAGE_OPS + 1; stage <= OPMFU_STAGE_LAST; stage++) {
			opmfu_rank_analyse_stage(&p->work[i], &p->rep->ranks[i], stage);
			set_stage(p, &p->work[i], stage);
		}
	}
}

static int default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

/* ---- the writers ----
 * The tables of a run, in the order the writers are given them: the
 * registry's (lib/analyses.c), then OpmfuRankSummary and OpmfuModel. A
 * writer's files bit k is run_tables[k]. */
#define MAX_TABS 32
static const struct opmfu_table_def *run_tables[MAX_TABS];
static size_t n_run_tables;
/* --summary-only's: the same less the detail tables (OperatorMFU and ModuleMFU
 * are, so no table left takes the rank workbooks' files bits) */
static const struct opmfu_table_def *summary_tables[MAX_TABS];
static size_t n_summary_tables;
static const struct opmfu_table_def *detail_tables[MAX_TABS]; /* the others */
static size_t n_detail_tables;
/* a shard's: also what the merge's per-run analyses read (lib/shard.c) */
static const struct opmfu_table_def *shard_tables[MAX_TABS + 5];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void list_tables(void)
{
	size_t i;
	n_run_tables = opmfu_analyses_defs(run_tables, MAX_TABS - 2);
	run_tables[n_run_tables++] = &opmfu_rank_summary_def;
	run_tables[n_run_tables++] = &opmfu_model_def;
	for (i = 0; i < n_run_tables; i++)
		if (!(run_tables[i]->flags & OPMFU_TABLE_DETAIL))
			summary_tables[n_summary_tables++] = run_tables[i];
		else
			detail_tables[n_detail_tables++] = run_tables[i];
	memcpy(shard_tables, run_tables, n_run_tables * sizeof(*run_tables));
	shard_tables[n_run_tables] = &opmfu_coll_calls_def;
	shard_tables[n_run_tables + 1] = &opmfu_shard_def;
	shard_tables[n_run_tables + 2] = &opmfu_model_run_def;
	shard_tables[n_run_tables + 3] = &opmfu_shard_pack_def;
	shard_tables[n_run_tables + 4] = &opmfu_shard_layout_def;
}

_Static_assert(OPMFU_XLSX_KERNEL == 1 << 0 && OPMFU_XLSX_MODULE == 1 << 1,
	       "a rank's workbook bits are its tables' files bits: OperatorMFU and ModuleMFU come first");
_Static_assert(OPMFU_EXPORT_DB == 1 << 0 && OPMFU_EXPORT_XLSX == 1 << 1 && OPMFU_EXPORT_CSV == 1 << 2 &&
		       OPMFU_EXPORT_JSON == 1 << 3 && OPMFU_EXPORT_HTML == 1 << 4,
	       "export bit i is writer i of the registry");

enum opmfu_status opmfu_writers_open(struct opmfu_writers *ws, const char *dir, unsigned want,
				    const struct opmfu_table_def *const *defs, size_t n_defs, struct opmfu_err *err)
{
	enum opmfu_status st = OPMFU_OK;
	size_t i;

	for (i = 0; opmfu_writer_types[i] && st == OPMFU_OK; i++) {
		const struct opmfu_writer_type *wt = opmfu_writer_types[i];
		char *path;
		if (!(want & (1u << i)) || ws->n == OPMFU_MAX_WRITERS)
			continue;
		if (!(path = opmfu_path_join(dir, wt->where)))
			return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory opening the %s export", wt->name);
		st = wt->open(&ws->v[ws->n], path, defs, n_defs, err);
		opmfu_free(path);
		if (st == OPMFU_OK && (1u << i) == OPMFU_EXPORT_CSV && (want & OPMFU_WRITE_CSV_VERBATIM))
			opmfu_csv_verbatim(ws->v[ws->n]);
		if (st == OPMFU_OK)
			ws->bit[ws->n++] = 1u << i;
	}
	return st;
}

/* Opens the writers of o->exports (the database when none), each at its
 * place under rep->out_dir, with the tables of the run (--summary-only:
 * without the detail tables). */
enum opmfu_status opmfu_pool_open_writers(const struct opmfu_opts *o, struct opmfu_report *rep,
					  struct opmfu_writers *ws, struct opmfu_err *err)
{
	unsigned want = (o->exports ? o->exports : OPMFU_EXPORT_DB) | (o->csv_verbatim ? OPMFU_WRITE_CSV_VERBATIM : 0);
	enum opmfu_status st;
	size_t k;
	pthread_once(&tables_once, list_tables);
	/* the writers keep the list: static. A shard writes every table (its merge's per-run
	 * analyses read them; --summary-only is the merge's, cli refuses it with --shard). */
	if (rep->shard_n) {
		rep->n_tables = n_run_tables;
		return opmfu_writers_open(ws, rep->out_dir, want, shard_tables, n_run_tables + 5, err);
	}
	rep->n_tables = rep->summary_only ? n_summary_tables : n_run_tables;
	st = opmfu_writers_open(ws, rep->out_dir, want, rep->summary_only ? summary_tables : run_tables,
				rep->n_tables, err);
	/* an earlier full run's per-op tables in the same place go (writer.h) */
	for (k = 0; k < ws->n && rep->summary_only; k++) {
		ws->v[k]->retired = detail_tables;
		ws->v[k]->n_retired = n_detail_tables;
	}
	return st;
}

const struct opmfu_table_def *const *opmfu_run_table_defs(size_t *n)
{
	pthread_once(&tables_once, list_tables);
	*n = n_run_tables;
	return run_tables;
}

/* In registry order, the database first. A busy database keeps its results
 * beside it (OPMFU_ERR_BUSY): the other writers still commit, so nothing of
 * the run is lost, and the status (with the database's message) is BUSY. */
enum opmfu_status opmfu_writers_commit(struct opmfu_writers *ws, struct opmfu_err *err)
{
	enum opmfu_status st = OPMFU_OK, busy = OPMFU_OK;
	struct opmfu_err busy_err = OPMFU_ERR_INIT;
	size_t k;
	for (k = 0; k < ws->n && st == OPMFU_OK; k++) {
		st = opmfu_writer_commit(ws->v[k], err);
		if (st == OPMFU_ERR_BUSY) {
			busy = st;
			busy_err = *err;
			st = OPMFU_OK;
		}
	}
	if (st == OPMFU_OK && busy) {
		*err = busy_err;
		st = busy;
	}
	return st;
}

void opmfu_writers_close(struct opmfu_writers *ws)
{
	size_t k;
	for (k = 0; k < ws->n; k++)
		opmfu_writer_close(ws->v[k]);
	ws->n = 0;
}

/* A table to the per-run analyses alone: a merge that copies it to the writers (lib/shard.c). */
enum opmfu_status opmfu_pool_put_run(struct opmfu_report *rep, const struct opmfu_table *t, struct opmfu_err *err)
{
	enum opmfu_status st = OPMFU_OK;
	size_t k;
	for (k = 0; opmfu_analyses[k] && st == OPMFU_OK; k++)
		if (opmfu_analyses[k]->scope == OPMFU_PER_RUN && rep->run_state[k])
			st = opmfu_analyses[k]->add(rep->run_state[k], t, err);
	return st;
}

/* A table to every writer, and to the run account (which reads what it needs). */
enum opmfu_status opmfu_pool_put(struct opmfu_report *rep, struct opmfu_writers *ws, int rank,
				 const struct opmfu_table *t, struct opmfu_err *err)
{
	enum opmfu_status st = OPMFU_OK;
	size_t k;
	/* a held table is written once a per-run analysis has completed it (table.h); a shard
	 * writes it as the rank left it, for the merge to complete; a detail table of
	 * --summary-only only feeds the per-run analyses */
	int write = (rank == OPMFU_RUN_RANK || rep->shard_n || !(t->def->flags & OPMFU_TABLE_HELD)) &&
		    !(rep->summary_only && (t->def->flags & OPMFU_TABLE_DETAIL));
	for (k = 0; k < ws->n && st == OPMFU_OK && write; k++)
		st = opmfu_writer_put(ws->v[k], rank, t, err);
	if (st == OPMFU_OK && rank != OPMFU_RUN_RANK && rep->pack)
		st = opmfu_shard_pack_add(rep->pack, t, err);
	if (st == OPMFU_OK && rank != OPMFU_RUN_RANK)
		st = opmfu_pool_put_run(rep, t, err);
	return st;
}

/* OpmfuModel (analyze --model): the rank's rows, per step and convention;
 * a shard's also the run's rows were the rank the median (OpmfuModelRun). */
static enum opmfu_status put_model(struct opmfu_report *rep, const struct opmfu_rank_report *rr,
				   const struct opmfu_steps *steps, struct opmfu_writers *ws, struct opmfu_err *err)
{
	struct opmfu_cell_store cs;
	struct opmfu_table t;
	size_t i = (size_t)(rr - rep->ranks);
	enum opmfu_status st = opmfu_model_check_rank(rep->model, i, steps, rr, &cs, err);
	if (st == OPMFU_OK) {
		t = opmfu_cell_store_table(&cs);
		st = opmfu_pool_put(rep, ws, rr->rank, &t, err);
	}
	opmfu_cell_store_release(&cs);
	if (st == OPMFU_OK && rep->shard_n) {
		if ((st = opmfu_model_check_run_of(rep->model, i, &cs, err)) == OPMFU_OK) {
			t = opmfu_cell_store_table(&cs);
			st = opmfu_pool_put(rep, ws, rr->rank, &t, err);
		}
		opmfu_cell_store_release(&cs);
	}
	return st;
}

/* The median rank of the run: OpmfuRun's median_rank, among the tables
 * the per-run analyses made; 0 when none. */
static int median_rank(const struct opmfu_table *t, size_t n, int *rank)
{
	struct opmfu_cell c[64];
	size_t i;
	for (i = 0; i < n; i++) {
		int k = opmfu_table_col(t[i].def, "median_rank");
		if (strcmp(t[i].def->name, "OpmfuRun") || !t[i].n_rows || k < 0 || t[i].def->n_cols > 64)
			continue;
		t[i].row(t[i].src, 0, c);
		if (!c[k].null) {
			*rank = (int)c[k].v.i;
			return 1;
		}
	}
	return 0;
}

/* After the last rank: the per-run analyses finish (the run account:
 * OpmfuRun, OpmfuHotspots, OpmfuStragglers) and, with --model, OpmfuModel's
 * run rows for the account's median rank; put and kept under the pseudo
 * rank OPMFU_RUN_RANK as a rank's are. */
/* The per-run analyses after analysis k read what it made (the account reads the collectives'). */
static enum opmfu_status run_add_after(struct opmfu_report *rep, size_t k, const struct opmfu_table *t, size_t n,
				       struct opmfu_err *err)
{
	enum opmfu_status st = OPMFU_OK;
	size_t j, i;
	for (j = k + 1; opmfu_analyses[j] && st == OPMFU_OK; j++) {
		const struct opmfu_analysis *b = opmfu_analyses[j];
		if (b->scope != OPMFU_PER_RUN || !rep->run_state[j] || !b->run_add)
			continue;
		for (i = 0; i < n && st == OPMFU_OK; i++)
			st = b->run_add(rep->run_state[j], &t[i], err);
	}
	return st;
}

enum opmfu_status opmfu_pool_finish(const char *run_id, const char *source, size_t ranks, struct opmfu_report *rep,
				    struct opmfu_writers *ws, struct opmfu_err *err)
{
	struct opmfu_run_ctx rc;
	struct opmfu_table t[MAX_TABS];
	enum opmfu_status st = OPMFU_OK;
	size_t k, n = 0, i;
	int median = 0, have_median;

	/* one run (opmfu_rank_list_pick_run): its ID, and the reader of its ranks */
	rc.run_id = run_id;
	rc.source = source;
	rc.ranks = ranks;
	rc.ranks_failed = rep->n_failed;
	for (k = 0; opmfu_analyses[k] && st == OPMFU_OK; k++) {
		const struct opmfu_analysis *a = opmfu_analyses[k];
		if (a->scope != OPMFU_PER_RUN || !rep->run_state[k])
			continue;
		if ((st = a->finish(rep->run_state[k], &rc, err)) == OPMFU_OK && n + OPMFU_MAX_TABLES <= MAX_TABS) {
			size_t made = a->run_tables(rep->run_state[k], t + n);
			st = run_add_after(rep, k, t + n, made, err);
			n += made;
		}
	}
	if (st)
		return st;
	if (rep->shard_n) {
		/* a shard's run tables would be of its ranks alone: the merge makes the run's */
		n = 0;
		t[n++] = opmfu_cell_store_table(&rep->shard);
		t[n++] = opmfu_shard_layout_table();
	}
	have_median = median_rank(t, n, &median);
	if (rep->model && !rep->shard_n) {
		if ((st = opmfu_model_check_run(rep->model, have_median ? &median : NULL, &rep->model_run, err)))
			return st;
		t[n++] = opmfu_cell_store_table(&rep->model_run);
	} else if (rep->model_run_of) {
		/* a merge's: the median rank's rows, from the shard that held it */
		if ((st = rep->model_run_of(rep->model_ctx, have_median ? &median : NULL, &rep->model_run, err)))
			return st;
		t[n++] = opmfu_cell_store_table(&rep->model_run);
	}
	for (i = 0; i < n && st == OPMFU_OK; i++)
		st = opmfu_pool_put(rep, ws, OPMFU_RUN_RANK, &t[i], err);
	for (k = 0; k < ws->n && st == OPMFU_OK; k++) {
		struct opmfu_write_stats ks;
		memset(&ks, 0, sizeof(ks));
		if ((st = opmfu_writer_keep_rank(ws->v[k], OPMFU_RUN_RANK, &ks, err)) == OPMFU_OK)
			rep->csv_prefixed += ks.prefixed;
	}
	return st;
}

/* The per-run analyses: the rank's tables are final, or taken back. */
static enum opmfu_status run_keep(struct opmfu_report *rep, struct opmfu_err *err)
{
	enum opmfu_status st = OPMFU_OK;
	size_t k;
	for (k = 0; opmfu_analyses[k] && st == OPMFU_OK; k++)
		if (opmfu_analyses[k]->scope == OPMFU_PER_RUN && rep->run_state[k])
			st = opmfu_analyses[k]->keep(rep->run_state[k], err);
	return st;
}

static void run_drop(struct opmfu_report *rep)
{
	size_t k;
	for (k = 0; opmfu_analyses[k]; k++)
		if (opmfu_analyses[k]->scope == OPMFU_PER_RUN && rep->run_state[k])
			opmfu_analyses[k]->drop(rep->run_state[k]);
}

/* A rank's own warning (no peak, --chip against the trace): the first of
 * each kind in full, the others counted (a cluster would print one each). */
struct rank_warnings {
	size_t no_peak, other, above, above_ops, spill, compiled;
};

/* A rank whose compiled regions hold at least this share of its kernel time in
 * GEMM/conv/attention kernels without FLOPs is warned about (SPEC 20): its
 * trace MFU leaves out much of its math. */
#define COMPILED_WARN_SHARE 0.1

static void rank_warn(const struct opmfu_opts *o, const struct opmfu_rank_report *rr, struct rank_warnings *rw)
{
	char msg[2200];
	size_t *n = rr->no_peak ? &rw->no_peak : &rw->other;
	/* an MFU above 1 comes from wrong FLOPs or a wrong peak: never kept silently (SPEC 10) */
	if (rr->units_above_one && !rw->above++) {
		snprintf(msg, sizeof(msg), "rank %d: %zu op%s with an MFU above 100%%: their FLOPs or the peak are wrong "
			 "(OpmfuOps rows with mfu > 1)", rr->rank, rr->units_above_one, rr->units_above_one == 1 ? "" : "s");
		opmfu_warn(o, msg);
	}
	rw->above_ops += rr->units_above_one;
	/* SPEC 26: one per rank */
	if (rr->clamped) {
		snprintf(msg, sizeof(msg), "rank %d: %zu row%s with times beyond +-2^62 ns or FLOPs beyond 2^62: times "
			 "clamped to +-2^62 ns, sums of times and FLOPs stop at 2^63 - 1", rr->rank, rr->clamped,
			 rr->clamped == 1 ? "" : "s");
		opmfu_warn(o, msg);
	}
	/* the bounds on hostile inputs (SPEC 26), one warning each */
	if (rr->modules_cut) {
		snprintf(msg, sizeof(msg), "rank %d: %zu Module range%s nested more than %d deep have no OpmfuModules row "
			 "of their own: their %zu op%s count in their ancestor at depth %d (ModuleMFU leaves them out, "
			 "as the reference does)", rr->rank, rr->modules_cut, rr->modules_cut == 1 ? "" : "s",
			 OPMFU_MODULE_MAX_DEPTH, rr->module_units_folded, rr->module_units_folded == 1 ? "" : "s",
			 OPMFU_MODULE_MAX_DEPTH);
		opmfu_warn(o, msg);
	}
	if (rr->strings_cut) {
		snprintf(msg, sizeof(msg), "rank %d: %zu name%s or shape string%s longer than %d bytes cut to that length, "
			 "marked \"" OPMFU_STR_CUT_MARK "N bytes]\" in every output", rr->rank, rr->strings_cut,
			 rr->strings_cut == 1 ? "" : "s", rr->strings_cut == 1 ? "" : "s", OPMFU_STR_MAX);
		opmfu_warn(o, msg);
	}
	if (rr->busy_ns > 0 && rr->compiled_noflops_ns >= COMPILED_WARN_SHARE * rr->busy_ns && !rw->compiled++) {
		snprintf(msg, sizeof(msg), "rank %d: %.2f ms (%.0f%% of kernel time) of GEMM/conv/attention kernels run "
			 "inside torch.compile regions (CompiledFunction, ...), whose kernels the trace records without "
			 "shapes: their FLOPs are unknown and trace MFU leaves them out "
			 "(OpmfuRankSummary.compiled_noflops_ns; docs/gpu-traces.md)", rr->rank,
			 rr->compiled_noflops_ns * 1e-6, 100 * rr->compiled_noflops_ns / rr->busy_ns);
		opmfu_warn(o, msg);
	}
	/* SPEC 17: windows never overlap, so a step's late work counts where it ran */
	if (rr->steps_spilled && !rw->spill++) {
		char list[120] = "";
		size_t k, used = 0;
		for (k = 0; k < 4 && rr->spill_step[k] >= 0 && used < sizeof(list); k++)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%lld", k ? ", " : "",
						 rr->spill_step[k]);
		snprintf(msg, sizeof(msg), "rank %d: %zu step%s whose work runs past the next step's start (step%s %s%s): "
			 "that work counts in the window it ran in (OpmfuSteps)", rr->rank, rr->steps_spilled,
			 rr->steps_spilled == 1 ? "" : "s", rr->steps_spilled == 1 ? "" : "s", list,
			 rr->steps_spilled > 4 ? ", ..." : "");
		opmfu_warn(o, msg);
	}
	if (!rr->warning[0] || (*n)++)
		return;
	snprintf(msg, sizeof(msg), "rank %d: %s", rr->rank, rr->warning);
	opmfu_warn(o, msg);
}

static void rank_warn_rest(const struct opmfu_opts *o, const struct rank_warnings *rw)
{
	char msg[200];
	if (rw->no_peak > 1) {
		snprintf(msg, sizeof(msg), "%zu more ranks have no peak FLOPS (OpmfuRankSummary.reason says why for each)",
			 rw->no_peak - 1);
		opmfu_warn(o, msg);
	}
	if (rw->above > 1) {
		snprintf(msg, sizeof(msg), "%zu more ranks have ops with an MFU above 100%% (%zu ops in all)", rw->above - 1,
			 rw->above_ops);
		opmfu_warn(o, msg);
	}
	if (rw->compiled > 1) {
		snprintf(msg, sizeof(msg), "%zu more ranks have GEMM/conv/attention kernels without FLOPs in torch.compile "
			 "regions (OpmfuRankSummary.compiled_noflops_ns)", rw->compiled - 1);
		opmfu_warn(o, msg);
	}
	if (rw->spill > 1) {
		snprintf(msg, sizeof(msg), "%zu more ranks have steps whose work runs past the next step's start "
			 "(OpmfuRankSummary.steps_spilled)", rw->spill - 1);
		opmfu_warn(o, msg);
	}
	if (rw->other > 1) {
		snprintf(msg, sizeof(msg), "%zu more ranks have a warning like it (OpmfuRankSummary.reason)",
			 rw->other - 1);
		opmfu_warn(o, msg);
	}
}

void opmfu_warn_csv_prefixed(const struct opmfu_opts *o, size_t n)
{
	char msg[200];
	if (!n)
		return;
	snprintf(msg, sizeof(msg),
		 "%zu CSV cell%s that a spreadsheet would read as formula%s start%s with ' (--csv-verbatim writes "
		 "them as they are)",
		 n, n == 1 ? "" : "s", n == 1 ? "" : "s", n == 1 ? "s" : "");
	opmfu_warn(o, msg);
}

/* Says what an export could not hold as the database export holds it. */
static void export_warn(const struct opmfu_opts *o, int rank, const char *name, const struct opmfu_write_stats *xs)
{
	char msg[256];
	if (xs->truncated) {
		snprintf(msg, sizeof(msg),
			 "rank %d: %zu strings longer than Excel's 32767 characters were cut in the %s export", rank,
			 xs->truncated, name);
		opmfu_warn(o, msg);
	}
	if (xs->repaired) {
		snprintf(msg, sizeof(msg),
			 "rank %d: %zu strings with invalid UTF-8 or NUL bytes show U+FFFD in the %s export", rank,
			 xs->repaired, name);
		opmfu_warn(o, msg);
	}
	if (xs->blanks) {
		snprintf(msg, sizeof(msg), "rank %d: %zu NaN or infinite numbers are empty cells in the %s export",
			 rank, xs->blanks, name);
		opmfu_warn(o, msg);
	}
	if (xs->nulled) {
		snprintf(msg, sizeof(msg), "rank %d: %zu infinite numbers are null in the %s export", rank, xs->nulled,
			 name);
		opmfu_warn(o, msg);
	}
}

/*
 * A rank is written in steps, so that its tables (OperatorMFU and OpmfuOps
 * most of the writing) overlap with the worker making the next stage's.
 * Step s puts the tables of the analyses of stage s, once they ran, then
 * tells them. Before the module tree's, kernel MFU's entries go: their
 * readers are done (OperatorMFU written, ModuleMFU made; trace/analysis.h),
 * 24 bytes a kernel less under the op units, whose analyses the worker is on.
 */
static enum opmfu_status write_stage(struct opmfu_report *rep, struct rank_work *w, int stage, int rank,
				     struct opmfu_writers *ws, struct opmfu_err *err)
{
	struct opmfu_table t[MAX_TABS];
	size_t n, k;
	enum opmfu_status st;

	if (w->ran < stage)
		return OPMFU_OK;
	if (stage == OPMFU_STAGE_TREE)
		opmfu_op_mfu_drop_entries(&w->op);
	st = opmfu_analyses_tables(stage, &w->ctx, t, MAX_TABS, &n, err);
	for (k = 0; k < n && st == OPMFU_OK; k++)
		st = opmfu_pool_put(rep, ws, rank, &t[k], err);
	opmfu_analyses_written(stage, &w->ctx);
	opmfu_rank_trim(w);
	return st;
}

/* The last step, once the rank is analysed: the tables of the last stage and the summary
 * row; then the rank is kept (its workbooks move into place). A rank that
 * failed after step 1 takes its rows back first and keeps the workbooks of
 * an earlier run; its summary row says why. */
static enum opmfu_status write_rest(const struct opmfu_opts *o, struct rank_work *w, struct opmfu_rank_report *rr,
				    struct opmfu_writers *ws, struct opmfu_report *rep, struct opmfu_err *err)
{
	struct opmfu_table t;
	enum opmfu_status st = OPMFU_OK;
	size_t k;

	int analysed = w->ran == OPMFU_STAGE_LAST;

	for (k = 0; k < ws->n && st == OPMFU_OK && !analysed && w->ran >= OPMFU_STAGE_OPS; k++)
		st = opmfu_writer_drop_rank(ws->v[k], rr->rank, err);
	if (!analysed)
		run_drop(rep);
	if (!analysed && rep->pack)
		opmfu_shard_pack_drop(rep->pack);
	if (st == OPMFU_OK && analysed) {
		st = write_stage(rep, w, OPMFU_STAGE_LAST, rr->rank, ws, err);
		if (st == OPMFU_OK && rep->model)
			st = put_model(rep, rr, opmfu_run_state(w->state, &opmfu_analysis_steps), ws, err);
	}
	if (st == OPMFU_OK) {
		t = opmfu_rank_summary_table(rr);
		st = opmfu_pool_put(rep, ws, rr->rank, &t, err);
	}
	/* a shard's pack of the rank's rows, to the writers alone (no analysis reads it) */
	if (st == OPMFU_OK && rep->pack && (st = opmfu_shard_pack_take(rep->pack, rr->rank, &t, err)) == OPMFU_OK)
		for (k = 0; k < ws->n && st == OPMFU_OK; k++)
			st = opmfu_writer_put(ws->v[k], rr->rank, &t, err);
	if (st == OPMFU_OK)
		st = opmfu_pool_keep(o, rep, ws, rr->rank, analysed, &rr->xlsx, err);
	/* what a writer staged and did not keep here goes when it is closed */
	return st;
}

enum opmfu_status opmfu_pool_keep(const struct opmfu_opts *o, struct opmfu_report *rep, struct opmfu_writers *ws,
				  int rank, int analysed, unsigned *xlsx, struct opmfu_err *err)
{
	enum opmfu_status st = OPMFU_OK;
	size_t k;
	for (k = 0; k < ws->n && st == OPMFU_OK; k++) {
		struct opmfu_write_stats ks;
		memset(&ks, 0, sizeof(ks));
		st = opmfu_writer_keep_rank(ws->v[k], rank, &ks, err);
		if (ws->bit[k] == OPMFU_EXPORT_XLSX) {
			*xlsx |= ks.files & (OPMFU_XLSX_KERNEL | OPMFU_XLSX_MODULE);
			rep->xlsx_files += !!(ks.files & OPMFU_XLSX_KERNEL) + !!(ks.files & OPMFU_XLSX_MODULE);
		}
		if (st == OPMFU_OK && analysed)
			export_warn(o, rank, ws->v[k]->type->name, &ks);
		/* told once, after the commit (lib/opmfu.c) */
		if (st == OPMFU_OK)
			rep->csv_prefixed += ks.prefixed;
	}
	if (st == OPMFU_OK)
		st = run_keep(rep, err);
	return st;
}

/* Analyses and writes every rank. The writers are opened into ws once the
 * workers are busy: replacing a large earlier result in the database (DROP
 * TABLE walks all its pages) overlaps with the first analysis. */
enum opmfu_status opmfu_run_ranks(const struct opmfu_opts *o, const struct opmfu_rank_list *list,
				   struct opmfu_report *rep, struct opmfu_writers *ws, double t0,
				   struct opmfu_err *err)
{
	struct pool p;
	struct rank_warnings rw = { 0, 0, 0, 0, 0, 0 };
	pthread_t *th = NULL;
	size_t i, jobs, n_threads, started = 0, kernels_done = 0;
	int stage;
	enum opmfu_status st = OPMFU_OK;
	double t;

	memset(&p, 0, sizeof(p));
	rep->summary_only = o->summary_only;
	p.o = o;
	p.list = list;
	p.rep = rep;
	jobs = (size_t)(o->jobs > 0 ? o->jobs : default_jobs());
	n_threads = jobs < list->n ? jobs : list->n;
	/* each worker may hold one finished rank while the writer works on the oldest */
	p.window = n_threads + 1;
	/* a shard may hold no rank: one slot each, unused */
	p.work = opmfu_calloc(list->n + 1, sizeof(*p.work));
	th = opmfu_calloc(n_threads + 1, sizeof(*th));
	if (!p.work || !th) {
		opmfu_free(p.work);
		opmfu_free(th);
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory starting %zu workers", n_threads);
	}
	for (i = 0; i < list->n; i++) {
		/* the analyses' states are made here, on this thread, as the rank's work
		 * once was in one block: made on the workers, they cost 12 % more peak
		 * memory at 10^6 kernels with -j 2 (glibc's per-thread arenas); a
		 * failure here is retried on the worker, which says it */
		struct opmfu_err e = OPMFU_ERR_INIT;
		p.work[i].read_threads = (int)(jobs / n_threads);
		p.work[i].states_ready = opmfu_states_new(p.work[i].state, OPMFU_PER_RANK, &e) == OPMFU_OK;
	}
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	/* -j 1 means one thread: analyse and write on this one, in turn */
	for (i = 0; jobs > 1 && i < n_threads; i++) {
		if (opmfu_thread_start(&th[i], worker, &p) != 0)
			break;
		started++;
	}
	if (started == 0)
		p.window = 1;
	if ((st = opmfu_pool_open_writers(o, rep, ws, err))) {
		pthread_mutex_lock(&p.mu);
		p.abort = 1;
		pthread_cond_broadcast(&p.cv);
		pthread_mutex_unlock(&p.mu);
	}

	for (i = 0; i < list->n && st == OPMFU_OK; i++) {
		struct opmfu_rank_report *rr = &rep->ranks[i];
		struct rank_work *w = &p.work[i];
		if (started == 0) {
			opmfu_rank_analyse_ops(o, &list->v[i], w, rr);
		} else {
			wait_stage(&p, w, OPMFU_STAGE_OPS);
		}
		t = opmfu_now_s();
		for (stage = OPMFU_STAGE_OPS; stage < OPMFU_STAGE_LAST; stage++) {
			if (stage > OPMFU_STAGE_OPS)
				t += stage_ready(&p, started, w, rr, stage);
			if (st == OPMFU_OK)
				st = write_stage(rep, w, stage, rr->rank, ws, err);
		}
		rr->seconds[OPMFU_STAGE_WRITE] = opmfu_now_s() - t;
		stage_ready(&p, started, w, rr, OPMFU_STAGE_LAST);
		if (rr->state == OPMFU_RANK_FAILED)
			rep->n_failed++;
		t = opmfu_now_s();
		if (st == OPMFU_OK)
			st = write_rest(o, w, rr, ws, rep, err);
		rr->seconds[OPMFU_STAGE_WRITE] += opmfu_now_s() - t;
		if (st == OPMFU_OK)
			rank_warn(o, rr, &rw);
		kernels_done += rr->kernels;
		opmfu_rank_work_release(w);
		pthread_mutex_lock(&p.mu);
		p.written = i + 1;
		if (st)
			p.abort = 1;
		pthread_cond_broadcast(&p.cv);
		pthread_mutex_unlock(&p.mu);
		if (st)
			break;
		if (o->on_progress) {
			struct opmfu_progress pr = { i + 1, list->n, kernels_done, opmfu_now_s() - t0 };
			o->on_progress(o->ctx, &pr);
		}
	}
	if (st == OPMFU_OK)
		st = rep->shard_n ? opmfu_pool_finish(rep->run_id, rep->source, list->n, rep, ws, err)
				  : opmfu_pool_finish(list->n ? list->v[0].run_id : NULL,
						      list->n ? list->v[0].reader->name : NULL, list->n, rep, ws, err);
	rank_warn_rest(o, &rw);
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	/* after an abort, ranks analysed ahead of the writer are still held */
	for (i = 0; i < list->n; i++)
		opmfu_rank_work_release(&p.work[i]);
	pthread_cond_destroy(&p.cv);
	pthread_mutex_destroy(&p.mu);
	opmfu_free(p.work);
	opmfu_free(th);
	return st;
}
