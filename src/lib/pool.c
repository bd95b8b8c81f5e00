/*
 * pool.c - the rank pool: workers analyse ranks in parallel while the calling
 * thread writes them in rank order (docs/architecture.md, "The rank pool").
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "lib/lib.h"

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

static void *worker(void *arg)
{
	struct pool *p = arg;
	for (;;) {
		size_t i;
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
		set_stage(p, &p->work[i], 1);
		opmfu_rank_analyse_modules(&p->work[i], &p->rep->ranks[i]);
		set_stage(p, &p->work[i], 2);
	}
}

static int default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

/* Says what the workbooks could not hold as the database export holds it. */
static void xlsx_warn(const struct opmfu_opts *o, int rank, const struct opmfu_xlsx_stats *xs)
{
	char msg[256];
	if (xs->truncated) {
		snprintf(msg, sizeof(msg),
			 "rank %d: %zu strings longer than Excel's 32767 characters were cut in the xlsx export", rank,
			 xs->truncated);
		opmfu_warn(o, msg);
	}
	if (xs->repaired) {
		snprintf(msg, sizeof(msg),
			 "rank %d: %zu strings with invalid UTF-8 or NUL bytes show U+FFFD in the xlsx export", rank,
			 xs->repaired);
		opmfu_warn(o, msg);
	}
	if (xs->blanks) {
		snprintf(msg, sizeof(msg), "rank %d: %zu NaN or infinite numbers are empty cells in the xlsx export",
			 rank, xs->blanks);
		opmfu_warn(o, msg);
	}
}

/*
 * A rank is written in two steps, so that its OperatorMFU rows and kernel
 * workbook (most of the writing) overlap with the worker building its module
 * tree. Step 1, once kernel MFU is known: the OperatorMFU rows, the kernel
 * workbook under a temporary name.
 */
static enum opmfu_status write_ops(struct rank_work *w, struct opmfu_rank_report *rr, struct opmfu_sqlite_out *db,
				   struct opmfu_report *rep, struct opmfu_err *err)
{
	enum opmfu_status st = OPMFU_OK;
	memset(&w->xs, 0, sizeof(w->xs));
	if (!w->have_ops)
		return OPMFU_OK;
	if (db)
		st = opmfu_sqlite_out_ops(db, rr->rank, &w->trace, &w->op, err);
	if (rep->xlsx_dir && st == OPMFU_OK)
		st = opmfu_xlsx_stage_kernel(rep->xlsx_dir, rr->rank, &w->trace, &w->op, &w->kernel_xlsx, &w->xs, err);
	return st;
}

/* Step 2, once the rank is analysed: ModuleMFU rows and the summary row; the
 * workbooks move into place. A rank that failed after step 1 takes its rows
 * back and keeps the workbooks of an earlier run. */
static enum opmfu_status write_rest(const struct opmfu_opts *o, struct rank_work *w, struct opmfu_rank_report *rr,
				    struct opmfu_sqlite_out *db, struct opmfu_report *rep, struct opmfu_err *err)
{
	enum opmfu_status st = OPMFU_OK;
	if (db && w->analysed)
		st = opmfu_sqlite_out_modules(db, rr->rank, &w->mod, err);
	else if (db && w->have_ops)
		st = opmfu_sqlite_out_drop_ops(db, rr->rank, err);
	if (db && st == OPMFU_OK)
		st = opmfu_sqlite_out_summary(db, rr, err);
	if (rep->xlsx_dir && w->analysed && st == OPMFU_OK) {
		st = opmfu_xlsx_commit(&w->kernel_xlsx, &rr->xlsx, err);
		if (st == OPMFU_OK)
			st = opmfu_xlsx_out_module(rep->xlsx_dir, rr->rank, &w->mod, &rr->xlsx, &w->xs, err);
		rep->xlsx_files += !!(rr->xlsx & OPMFU_XLSX_KERNEL) + !!(rr->xlsx & OPMFU_XLSX_MODULE);
		if (st == OPMFU_OK)
			xlsx_warn(o, rr->rank, &w->xs);
	}
	/* a staged workbook not committed here is discarded by work_release */
	return st;
}

/* Analyses and writes every rank. The output database (rep->out_db, if any)
 * is opened into *dbp once the workers are busy: replacing a large earlier
 * result (DROP TABLE walks all its pages) overlaps with the first analysis. */
enum opmfu_status opmfu_run_ranks(const struct opmfu_opts *o, const struct opmfu_rank_list *list,
				   struct opmfu_report *rep, struct opmfu_sqlite_out **dbp, double t0,
				   struct opmfu_err *err)
{
	struct opmfu_sqlite_out *db = NULL;
	struct pool p;
	pthread_t *th = NULL;
	size_t i, jobs, n_threads, started = 0, kernels_done = 0;
	enum opmfu_status st = OPMFU_OK;
	double t;

	memset(&p, 0, sizeof(p));
	p.o = o;
	p.list = list;
	p.rep = rep;
	jobs = (size_t)(o->jobs > 0 ? o->jobs : default_jobs());
	n_threads = jobs < list->n ? jobs : list->n;
	/* each worker may hold one finished rank while the writer works on the oldest */
	p.window = n_threads + 1;
	p.work = opmfu_calloc(list->n, sizeof(*p.work));
	th = opmfu_calloc(n_threads, sizeof(*th));
	if (!p.work || !th) {
		opmfu_free(p.work);
		opmfu_free(th);
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory starting %zu workers", n_threads);
	}
	for (i = 0; i < list->n; i++)
		p.work[i].read_threads = (int)(jobs / n_threads);
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	/* -j 1 means one thread: analyse and write on this one, in turn */
	for (i = 0; jobs > 1 && i < n_threads; i++) {
		if (pthread_create(&th[i], NULL, worker, &p) != 0)
			break;
		started++;
	}
	if (started == 0)
		p.window = 1;
	if (rep->out_db && (st = opmfu_sqlite_out_open(dbp, rep->out_db, err))) {
		pthread_mutex_lock(&p.mu);
		p.abort = 1;
		pthread_cond_broadcast(&p.cv);
		pthread_mutex_unlock(&p.mu);
	}
	db = *dbp;

	for (i = 0; i < list->n && st == OPMFU_OK; i++) {
		struct opmfu_rank_report *rr = &rep->ranks[i];
		struct rank_work *w = &p.work[i];
		if (started == 0) {
			opmfu_rank_analyse_ops(o, &list->v[i], w, rr);
			opmfu_rank_analyse_modules(w, rr);
		} else {
			wait_stage(&p, w, 1);
		}
		t = opmfu_now_s();
		st = write_ops(w, rr, db, rep, err);
		rr->seconds[OPMFU_STAGE_WRITE] = opmfu_now_s() - t;
		if (started)
			wait_stage(&p, w, 2);
		if (rr->state == OPMFU_RANK_FAILED)
			rep->n_failed++;
		t = opmfu_now_s();
		if (st == OPMFU_OK)
			st = write_rest(o, w, rr, db, rep, err);
		rr->seconds[OPMFU_STAGE_WRITE] += opmfu_now_s() - t;
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
