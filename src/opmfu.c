/*
 * opmfu.c - the only place that knows the order of the stages:
 * discover ranks -> per rank: read -> peaks -> kernel MFU -> module MFU ->
 * write (in rank order, one output transaction) -> release.
 */
#include "opmfu.h"

#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyze/module_mfu.h"
#include "analyze/op_mfu.h"
#include "base/err.h"
#include "base/mem.h"
#include "base/sbuf.h"
#include "chips/chips.h"
#include "model/parse.h"
#include "model/trace.h"
#include "read/rankdir.h"
#include "read/read_ascend.h"
#include "write/write_sqlite.h"
#include "write/write_xlsx.h"

_Static_assert((int)OPMFU_CLASS_FP16 == (int)OPMFU_DT_FP16 && (int)OPMFU_CLASS_INT8 == (int)OPMFU_DT_INT8 &&
		       (int)OPMFU_CLASS_FP8 == (int)OPMFU_DT_FP8 && (int)OPMFU_NCLASS == (int)OPMFU_DT__COUNT,
	       "public peak classes must match the dtype classes");
_Static_assert(OPMFU_NDROP == OPMFU_DROP__COUNT, "public drop count must match");

const char *opmfu_drop_reason(int i)
{
	return (i >= 0 && i < OPMFU_NDROP) ? opmfu_drop_name((enum opmfu_drop)i) : "?";
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void warn(const struct opmfu_opts *o, const char *msg)
{
	if (o->on_warning)
		o->on_warning(o->ctx, msg);
}

static void warn_cb(void *ctx, const char *msg)
{
	warn(ctx, msg);
}

/* ---- peaks (SPEC 1.4, 6) ---- */

struct peak_choice {
	struct opmfu_peaks pk;
	const char *src[OPMFU_NCLASS]; /* index into labels */
	char labels[3][600];
	char no_peak_why[1200];
};

/* Everything one rank needs between reading and writing. */
struct rank_work {
	struct opmfu_trace trace;
	struct opmfu_op_mfu op;
	struct opmfu_module_mfu mod;
	struct peak_choice pc;
	/* how far the analysis got (under the pool's lock): 1 kernel MFU done,
	 * so OperatorMFU can be written while 2 (everything) is still to come */
	int stage;
	int have_ops; /* trace and op are valid */
	int analysed; /* trace, op and mod are valid */
	int read_threads; /* threads its reader may use: the -j that fewer ranks than workers leave idle */
	/* the writer's: the kernel workbook waiting for the rank to succeed */
	struct opmfu_xlsx_staged kernel_xlsx;
	struct opmfu_xlsx_stats xs;
};

/* Fills pc; OPMFU_ERR_NOMEM (message in err) only if the search ran out of memory. */
static enum opmfu_status resolve_peaks(const struct opmfu_opts *o, const struct opmfu_rank_input *in,
				       struct peak_choice *pc, struct opmfu_err *err)
{
	int c;
	char *info = NULL;
	enum opmfu_status st;

	memset(pc, 0, sizeof(*pc));
	snprintf(pc->labels[0], sizeof(pc->labels[0]), "override (%s)", o->peak_origin ? o->peak_origin : "--peak");
	for (c = 0; c < OPMFU_NCLASS; c++)
		if (o->peak_tflops[c] > 0) {
			pc->pk.flops[c] = o->peak_tflops[c] * 1e12;
			pc->src[c] = pc->labels[0];
		}
	if (o->chip) {
		const struct opmfu_chip *chip = opmfu_chip_find(o->chip);
		if (chip) {
			double v[OPMFU_NCLASS] = { chip->fp16, chip->int8, chip->fp8 };
			snprintf(pc->labels[1], sizeof(pc->labels[1]), "built-in table: %s (%s)", chip->name,
				 chip->source);
			for (c = 0; c < OPMFU_NCLASS; c++)
				if (!pc->src[c] && v[c] > 0) {
					pc->pk.flops[c] = v[c] * 1e12;
					pc->src[c] = pc->labels[1];
				}
		}
	}
	if (pc->src[OPMFU_CLASS_FP16] && pc->src[OPMFU_CLASS_INT8])
		return OPMFU_OK; /* info.json could add nothing */
	if ((st = opmfu_find_info_json(in->dir, &info, err)))
		return st;
	if (!info) {
		snprintf(pc->no_peak_why, sizeof(pc->no_peak_why),
			 "no chip info file (PROF_*/device_N/info.json.N) under %s", in->dir);
	} else {
		struct opmfu_chip_info ci;
		struct opmfu_err e = OPMFU_ERR_INIT;
		st = opmfu_read_info_json(info, &ci, &e);
		if (st == OPMFU_ERR_NOMEM) {
			opmfu_free(info);
			return opmfu_err_set(err, st, "%s", e.msg);
		} else if (st) {
			snprintf(pc->no_peak_why, sizeof(pc->no_peak_why), "%s", e.msg);
		} else {
			snprintf(pc->labels[2], sizeof(pc->labels[2]), "info.json %s (%lld AI cores at %g MHz)", info,
				 ci.ai_core_num, ci.aic_mhz);
			if (!pc->src[OPMFU_CLASS_FP16]) {
				pc->pk.flops[OPMFU_CLASS_FP16] = ci.peak_fp16;
				pc->src[OPMFU_CLASS_FP16] = pc->labels[2];
			}
			if (!pc->src[OPMFU_CLASS_INT8]) {
				pc->pk.flops[OPMFU_CLASS_INT8] = ci.peak_int8;
				pc->src[OPMFU_CLASS_INT8] = pc->labels[2];
			}
		}
		opmfu_free(info);
	}
	return OPMFU_OK;
}

/* Appends to a fixed buffer (truncating), so reports never need memory. */
static void bufcat(char *buf, size_t size, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
static void bufcat(char *buf, size_t size, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;
	if (n + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, size - n, fmt, ap);
	va_end(ap);
}

/* "fp16, int8 from info.json ...; fp8 from override (--peak)" */
static void peak_source_text(const struct peak_choice *pc, char *out, size_t size)
{
	int l, c, any;
	static const char *const names[] = { "fp16", "int8", "fp8" };

	out[0] = '\0';
	for (l = 0; l < 3; l++) {
		const char *label = pc->labels[l];
		any = 0;
		for (c = 0; c < OPMFU_NCLASS; c++) {
			if (pc->src[c] != label)
				continue;
			if (!any && out[0])
				bufcat(out, size, "; ");
			bufcat(out, size, "%s%s", any ? ", " : "", names[c]);
			any = 1;
		}
		if (any)
			bufcat(out, size, " from %s", label);
	}
}

/* ---- one rank ---- */

static void set_reason(struct opmfu_rank_report *rr, enum opmfu_rank_state state, const char *msg)
{
	rr->state = state;
	snprintf(rr->reason, sizeof(rr->reason), "%s", msg);
}

/* While the second reader thread is still on the FLOPs records: the part of
 * kernel MFU that needs only the links. When it fails (out of memory) it
 * leaves nothing, and the run does it again and reports its own failure. */
static void prepare_ops(void *ctx, const struct opmfu_trace *t)
{
	struct opmfu_err e = OPMFU_ERR_INIT;
	(void)opmfu_op_mfu_prepare(t, ctx, &e);
}

/* Stage 1: read, peaks, kernel MFU. */
static void analyse_ops(const struct opmfu_opts *o, const struct opmfu_rank_input *in, struct rank_work *w,
			struct opmfu_rank_report *rr)
{
	struct opmfu_err e = OPMFU_ERR_INIT;
	struct peak_choice *pc = &w->pc;
	enum opmfu_status st;
	int c;
	size_t i;
	double t0 = now_s(), t1;

	opmfu_trace_init(&w->trace);
	opmfu_op_mfu_init(&w->op);
	opmfu_module_mfu_init(&w->mod);
	w->have_ops = w->analysed = 0;

	st = opmfu_read_ascend_threads(in->db_path, &w->trace, w->read_threads, prepare_ops, &w->op, &e);
	t1 = now_s();
	rr->seconds[OPMFU_STAGE_READ] = t1 - t0;
	rr->kernels = w->trace.n_compute;
	rr->comm_links = w->trace.n_comm_op + w->trace.n_comm_sched;
	rr->recs_read = w->trace.n_recs_read;
	rr->modules = w->trace.n_mods;
	rr->bad_rows = w->trace.n_bad_rows;
	for (i = 0; i < OPMFU_NDROP; i++)
		rr->drops[i] = w->trace.drops[i];
	if (st) {
		set_reason(rr, OPMFU_RANK_FAILED, e.msg);
		return;
	}

	if ((st = resolve_peaks(o, in, pc, &e))) {
		set_reason(rr, OPMFU_RANK_FAILED, e.msg);
		return;
	}
	for (c = 0; c < OPMFU_NCLASS; c++)
		rr->peak_tflops[c] = pc->pk.flops[c] / 1e12;
	peak_source_text(pc, rr->peak_source, sizeof(rr->peak_source));

	st = opmfu_op_mfu_run(&w->trace, &pc->pk, &w->op, &e);
	rr->seconds[OPMFU_STAGE_KERNEL] = now_s() - t1;
	if (st) {
		set_reason(rr, OPMFU_RANK_FAILED, e.msg);
		return;
	}
	w->have_ops = 1;
}

/* Stage 2: module MFU, and what the rank's report says. */
static void analyse_modules(struct rank_work *w, struct opmfu_rank_report *rr)
{
	struct opmfu_err e = OPMFU_ERR_INIT;
	const struct peak_choice *pc = &w->pc;
	enum opmfu_status st;
	int c, have_peak = 0;
	size_t i, valid;
	double t0;

	if (!w->have_ops)
		return;
	for (c = 0; c < OPMFU_NCLASS; c++)
		have_peak |= pc->pk.flops[c] > 0;
	t0 = now_s();
	st = opmfu_module_mfu_run(&w->trace, &w->op, &w->mod, &e);
	rr->seconds[OPMFU_STAGE_MODULE] = now_s() - t0;
	if (st) {
		set_reason(rr, OPMFU_RANK_FAILED, e.msg);
		return;
	}
	w->analysed = 1;
	for (i = 0; i < OPMFU_NDROP; i++)
		rr->drops[i] += w->op.stats.drops[i];
	rr->recs_used = w->op.stats.recs_used;
	rr->kernels_with_mfu = w->op.stats.kernels_with_mfu;
	rr->op_rows = w->op.stats.rows;
	rr->module_rows = w->mod.n_rows;
	rr->module_ops_too_deep = w->mod.ops_too_deep;
	/* totals come most kernel time first */
	for (rr->n_top = 0; rr->n_top < w->mod.n_totals && rr->n_top < sizeof(rr->top) / sizeof(rr->top[0]);
	     rr->n_top++) {
		const struct opmfu_module_total *mt = &w->mod.totals[rr->n_top];
		struct opmfu_module_top *top = &rr->top[rr->n_top];
		snprintf(top->name, sizeof(top->name), "%s%s%s", mt->parent, mt->parent[0] ? "/" : "", mt->module);
		top->kernel_ns = mt->kernel_ns;
		top->mfu = mt->mfu;
	}
	rr->mfu_recorded = w->op.stats.sum_capacity > 0 ? w->op.stats.sum_flops / w->op.stats.sum_capacity : -1;
	snprintf(rr->bad_dtype, sizeof(rr->bad_dtype), "%s", w->op.stats.bad_dtype);

	valid = w->trace.n_recs;
	if (rr->kernels_with_mfu > 0) {
		rr->state = OPMFU_RANK_OK;
	} else if (w->trace.n_compute == 0) {
		set_reason(rr, OPMFU_RANK_NO_MFU,
			   "no compute kernels linked to framework ops (COMPUTE_TASK_INFO/TASK/CONNECTION_IDS/PYTORCH_API)");
	} else if (!w->trace.has_mstx) {
		set_reason(rr, OPMFU_RANK_NO_MFU,
			   "no MSTX_EVENTS table: the profile was collected without mstx, so it holds no FLOPs records (collect with with_flops=True and mstx enabled)");
	} else if (w->trace.n_recs_read == 0) {
		set_reason(rr, OPMFU_RANK_NO_MFU, "no mfu_flops records in MSTX_EVENTS (collect with with_flops=True)");
	} else if (!have_peak && valid > 0) {
		rr->state = OPMFU_RANK_FAILED;
		rr->reason[0] = '\0';
		bufcat(rr->reason, sizeof(rr->reason),
		       "no peak FLOPS: %s; give --peak fp16=TFLOPS,int8=TFLOPS (or OPMFU_PEAK) or --chip NAME",
		       pc->no_peak_why[0] ? pc->no_peak_why : "no source");
		return;
	} else {
		int first = 1;
		rr->state = OPMFU_RANK_NO_MFU;
		snprintf(rr->reason, sizeof(rr->reason), "none of the %zu mfu_flops records gave an MFU (",
			 w->trace.n_recs_read);
		for (i = 0; i < OPMFU_NDROP; i++)
			if (rr->drops[i]) {
				bufcat(rr->reason, sizeof(rr->reason), "%s%zu %s", first ? "" : ", ", rr->drops[i],
				       opmfu_drop_name((enum opmfu_drop)i));
				first = 0;
			}
		bufcat(rr->reason, sizeof(rr->reason), ")");
	}
	if (!have_peak && rr->state == OPMFU_RANK_NO_MFU) {
		/* say it now so the user is not surprised on the next collection */
		bufcat(rr->reason, sizeof(rr->reason), "; also no peak FLOPS: %s",
		       pc->no_peak_why[0] ? pc->no_peak_why : "no source");
	}
}

static void work_release(struct rank_work *w)
{
	opmfu_xlsx_discard(&w->kernel_xlsx);
	opmfu_module_mfu_release(&w->mod);
	opmfu_op_mfu_release(&w->op);
	opmfu_trace_release(&w->trace);
	w->have_ops = w->analysed = 0;
}

/* ---- output location ---- */

static enum opmfu_status mkdirs(const char *path, struct opmfu_err *err)
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

		analyse_ops(p->o, &p->list->v[i], &p->work[i], &p->rep->ranks[i]);
		set_stage(p, &p->work[i], 1);
		analyse_modules(&p->work[i], &p->rep->ranks[i]);
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
		warn(o, msg);
	}
	if (xs->repaired) {
		snprintf(msg, sizeof(msg),
			 "rank %d: %zu strings with invalid UTF-8 or NUL bytes show U+FFFD in the xlsx export", rank,
			 xs->repaired);
		warn(o, msg);
	}
	if (xs->blanks) {
		snprintf(msg, sizeof(msg), "rank %d: %zu NaN or infinite numbers are empty cells in the xlsx export",
			 rank, xs->blanks);
		warn(o, msg);
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
static enum opmfu_status run_ranks(const struct opmfu_opts *o, const struct opmfu_rank_list *list,
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
			analyse_ops(o, &list->v[i], w, rr);
			analyse_modules(w, rr);
		} else {
			wait_stage(&p, w, 1);
		}
		t = now_s();
		st = write_ops(w, rr, db, rep, err);
		rr->seconds[OPMFU_STAGE_WRITE] = now_s() - t;
		if (started)
			wait_stage(&p, w, 2);
		if (rr->state == OPMFU_RANK_FAILED)
			rep->n_failed++;
		t = now_s();
		if (st == OPMFU_OK)
			st = write_rest(o, w, rr, db, rep, err);
		rr->seconds[OPMFU_STAGE_WRITE] += now_s() - t;
		kernels_done += rr->kernels;
		work_release(w);
		pthread_mutex_lock(&p.mu);
		p.written = i + 1;
		if (st)
			p.abort = 1;
		pthread_cond_broadcast(&p.cv);
		pthread_mutex_unlock(&p.mu);
		if (st)
			break;
		if (o->on_progress) {
			struct opmfu_progress pr = { i + 1, list->n, kernels_done, now_s() - t0 };
			o->on_progress(o->ctx, &pr);
		}
	}
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	/* after an abort, ranks analysed ahead of the writer are still held */
	for (i = 0; i < list->n; i++)
		work_release(&p.work[i]);
	pthread_cond_destroy(&p.cv);
	pthread_mutex_destroy(&p.mu);
	opmfu_free(p.work);
	opmfu_free(th);
	return st;
}

enum opmfu_status opmfu_analyze(const struct opmfu_opts *o, struct opmfu_report *rep, struct opmfu_err *err)
{
	struct opmfu_rank_list list = { NULL, 0, 0 };
	struct opmfu_sqlite_out *db = NULL;
	enum opmfu_status st = OPMFU_OK;
	double t0 = now_s();
	size_t i;
	const char *base;

	memset(rep, 0, sizeof(*rep));
	if (o->n_inputs == 0)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "no input path given");
	if (o->n_inputs > 1 && !o->out_dir)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "several inputs: say where to write with -o DIR");
	if (o->chip && !opmfu_chip_find(o->chip))
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "unknown chip '%s' (see 'opmfu chips')", o->chip);
	for (i = 0; i < o->n_inputs; i++) {
		size_t before = list.n;
		if ((st = opmfu_find_ranks(o->inputs[i], &list, warn_cb, (void *)o, err)))
			goto out;
		if (list.n == before && (st = opmfu_err_set(err, OPMFU_ERR_NOINPUT,
				"%s: no rank found (looked for ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler*.db up to 5 levels below)",
				o->inputs[i])))
			goto out;
	}
	opmfu_rank_list_sort(&list);
	if (o->ranks && (st = opmfu_rank_list_select(&list, o->ranks, o->n_ranks, err)))
		goto out;

	base = o->out_dir ? o->out_dir : list.v[0].out_hint;
	rep->out_dir = opmfu_path_join(base, "cluster_analysis_output");
	if (!rep->out_dir) {
		st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((st = mkdirs(rep->out_dir, err)))
		goto out;
	if (o->exports & OPMFU_EXPORT_XLSX) {
		rep->xlsx_dir = opmfu_path_join(rep->out_dir, "OperatorMfu");
		if (!rep->xlsx_dir) {
			st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
			goto out;
		}
		if ((st = mkdirs(rep->xlsx_dir, err)))
			goto out;
	}
	rep->ranks = opmfu_calloc(list.n, sizeof(*rep->ranks));
	if (!rep->ranks) {
		st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
		goto out;
	}
	rep->n_ranks = list.n;
	for (i = 0; i < list.n; i++) {
		rep->ranks[i].rank = list.v[i].rank;
		rep->ranks[i].db_path = opmfu_strdup(list.v[i].db_path);
		rep->ranks[i].mfu_recorded = -1;
		if (!rep->ranks[i].db_path) {
			st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
			goto out;
		}
	}

	rep->out_db = opmfu_path_join(rep->out_dir, "cluster_analysis.db");
	if (!rep->out_db) {
		st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (o->exports && !(o->exports & OPMFU_EXPORT_DB)) {
		/* --export xlsx writes the workbooks only, as the reference's text export does */
		opmfu_free(rep->out_db);
		rep->out_db = NULL;
	}

	st = run_ranks(o, &list, rep, &db, t0, err);
	if (st)
		goto out;
	if (rep->n_failed == rep->n_ranks) {
		/* nothing was analysed: keep the previous results rather than empty tables */
		st = opmfu_err_set(err, OPMFU_ERR_PARTIAL, "%zu of %zu rank%s failed; %s left unchanged",
				   rep->n_failed, rep->n_ranks, rep->n_ranks == 1 ? "" : "s",
				   rep->out_db ? rep->out_db : "the previous workbooks");
		opmfu_free(rep->out_db);
		rep->out_db = NULL;
		opmfu_free(rep->xlsx_dir);
		rep->xlsx_dir = NULL;
		goto out;
	}
	if (db && (st = opmfu_sqlite_out_commit(db, err)))
		goto out;
	if (rep->n_failed)
		st = opmfu_err_set(err, OPMFU_ERR_PARTIAL, "%zu of %zu ranks failed", rep->n_failed, rep->n_ranks);
out:
	opmfu_sqlite_out_close(db);
	if (st != OPMFU_OK && st != OPMFU_ERR_PARTIAL) {
		opmfu_free(rep->out_db);
		rep->out_db = NULL;
	}
	opmfu_rank_list_release(&list);
	rep->seconds = now_s() - t0;
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
	opmfu_free(rep->xlsx_dir);
	memset(rep, 0, sizeof(*rep));
}

int opmfu_parse_peak_spec(const char *spec, double *tflops, char *msg, size_t msgsz)
{
	const char *p = spec;
	int c;
	for (c = 0; c < OPMFU_NCLASS; c++)
		tflops[c] = 0;
	while (*p) {
		const char *eq = strchr(p, '='), *comma;
		char name[16], *end;
		size_t n;
		double v;
		if (!eq) {
			snprintf(msg, msgsz, "'%s': expected CLASS=TFLOPS (classes fp16, bf16, int8, fp8)", p);
			return -1;
		}
		n = (size_t)(eq - p);
		if (n >= sizeof(name))
			n = sizeof(name) - 1;
		memcpy(name, p, n);
		name[n] = '\0';
		if (!strcmp(name, "fp16") || !strcmp(name, "bf16"))
			c = OPMFU_CLASS_FP16;
		else if (!strcmp(name, "int8"))
			c = OPMFU_CLASS_INT8;
		else if (!strcmp(name, "fp8"))
			c = OPMFU_CLASS_FP8;
		else {
			snprintf(msg, msgsz, "unknown peak class '%s' (use fp16, bf16, int8 or fp8)", name);
			return -1;
		}
		errno = 0;
		v = strtod(eq + 1, &end);
		comma = strchr(eq + 1, ',');
		if (end == eq + 1 || errno || !(v > 0) || v > 1e9 || (*end && *end != ',')) {
			snprintf(msg, msgsz, "peak for %s must be a positive number of TFLOPS", name);
			return -1;
		}
		tflops[c] = v;
		p = comma ? comma + 1 : end;
	}
	return 0;
}

int opmfu_chip_row(size_t i, struct opmfu_chip_row *row)
{
	const struct opmfu_chip *c = opmfu_chips();
	size_t k;
	for (k = 0; k < i; k++)
		if (!c[k].name)
			return 0;
	if (!c[i].name)
		return 0;
	*row = (struct opmfu_chip_row){ c[i].name, c[i].aliases, c[i].source, c[i].fp32,
					c[i].tf32, c[i].fp16, c[i].fp8, c[i].int8 };
	return 1;
}
