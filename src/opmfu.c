/*
 * opmfu.c - the only place that knows the order of the stages:
 * discover ranks -> per rank: read -> peaks -> kernel MFU -> module MFU ->
 * write (in rank order, one output transaction) -> release.
 */
#include "opmfu.h"

#include <errno.h>
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

_Static_assert((int)OPMFU_CLASS_FP16 == (int)OPMFU_DT_FP16 && (int)OPMFU_CLASS_INT8 == (int)OPMFU_DT_INT8 &&
		       (int)OPMFU_CLASS_FP8 == (int)OPMFU_DT_FP8 && (int)OPMFU_NCLASS == (int)OPMFU_DT__COUNT,
	       "public peak classes must match the dtype classes");
_Static_assert(OPMFU_NDROP == OPMFU_DROP__COUNT, "public drop count must match");

/* Everything one rank needs between reading and writing. */
struct rank_work {
	struct opmfu_trace trace;
	struct opmfu_op_mfu op;
	struct opmfu_module_mfu mod;
	int analysed; /* trace and results are valid */
};

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

static char *sbuf_take(struct sbuf *sb)
{
	char *s;
	if (sb->oom) {
		sbuf_release(sb);
		return NULL;
	}
	s = sb->cap ? sb->buf : opmfu_strdup("");
	sbuf_init(sb);
	return s;
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

static void resolve_peaks(const struct opmfu_opts *o, const struct opmfu_rank_input *in,
			  struct peak_choice *pc)
{
	int c;
	char *info;

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
		return; /* info.json could add nothing */
	info = opmfu_find_info_json(in->dir);
	if (!info) {
		snprintf(pc->no_peak_why, sizeof(pc->no_peak_why),
			 "no chip info file (PROF_*/device_N/info.json.N) under %s", in->dir);
		return;
	} else {
		struct opmfu_chip_info ci;
		struct opmfu_err e = OPMFU_ERR_INIT;
		if (opmfu_read_info_json(info, &ci, &e)) {
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
}

/* "fp16, int8 from info.json ...; fp8 from override (--peak)" */
static char *peak_source_text(const struct peak_choice *pc)
{
	struct sbuf sb;
	int l, c, any;
	static const char *const names[] = { "fp16", "int8", "fp8" };

	sbuf_init(&sb);
	for (l = 0; l < 3; l++) {
		const char *label = pc->labels[l];
		any = 0;
		for (c = 0; c < OPMFU_NCLASS; c++) {
			if (pc->src[c] != label)
				continue;
			if (!any && sb.len)
				sbuf_adds(&sb, "; ");
			sbuf_addf(&sb, "%s%s", any ? ", " : "", names[c]);
			any = 1;
		}
		if (any)
			sbuf_addf(&sb, " from %s", label);
	}
	if (!sb.len) {
		sbuf_release(&sb);
		return NULL;
	}
	return sbuf_take(&sb);
}

/* ---- one rank ---- */

static void drop_summary(struct sbuf *sb, const size_t *drops)
{
	int i, first = 1;
	for (i = 0; i < OPMFU_NDROP; i++) {
		if (!drops[i])
			continue;
		sbuf_addf(sb, "%s%zu %s", first ? "" : ", ", drops[i], opmfu_drop_name((enum opmfu_drop)i));
		first = 0;
	}
}

static void set_reason(struct opmfu_rank_report *rr, enum opmfu_rank_state state, struct sbuf *sb)
{
	rr->state = state;
	opmfu_free(rr->reason);
	rr->reason = sbuf_take(sb);
}

static void analyse_rank(const struct opmfu_opts *o, const struct opmfu_rank_input *in, struct rank_work *w,
			 struct opmfu_rank_report *rr)
{
	struct opmfu_err e = OPMFU_ERR_INIT;
	struct peak_choice pc;
	struct sbuf why;
	enum opmfu_status st;
	int c, have_peak = 0;
	size_t i, valid;

	sbuf_init(&why);
	opmfu_trace_init(&w->trace);
	opmfu_op_mfu_init(&w->op);
	opmfu_module_mfu_init(&w->mod);
	w->analysed = 0;

	st = opmfu_read_ascend(in->db_path, &w->trace, &e);
	rr->kernels = w->trace.n_compute;
	rr->comm_links = w->trace.n_comm_op + w->trace.n_comm_sched;
	rr->recs_read = w->trace.n_recs_read;
	rr->modules = w->trace.n_mods;
	for (i = 0; i < OPMFU_NDROP; i++)
		rr->drops[i] = w->trace.drops[i];
	if (st) {
		sbuf_adds(&why, e.msg);
		set_reason(rr, OPMFU_RANK_FAILED, &why);
		return;
	}

	resolve_peaks(o, in, &pc);
	for (c = 0; c < OPMFU_NCLASS; c++) {
		rr->peak_tflops[c] = pc.pk.flops[c] / 1e12;
		have_peak |= pc.pk.flops[c] > 0;
	}
	rr->peak_source = peak_source_text(&pc);

	st = opmfu_op_mfu_run(&w->trace, &pc.pk, &w->op, &e);
	if (st) {
		sbuf_adds(&why, e.msg);
		set_reason(rr, OPMFU_RANK_FAILED, &why);
		return;
	}
	w->analysed = 1;
	for (i = 0; i < OPMFU_NDROP; i++)
		rr->drops[i] += w->op.stats.drops[i];
	rr->recs_used = w->op.stats.recs_used;
	rr->kernels_with_mfu = w->op.stats.kernels_with_mfu;
	rr->op_rows = w->op.stats.rows;
	rr->module_rows = w->mod.n_rows;
	rr->mfu_recorded = w->op.stats.sum_capacity > 0 ? w->op.stats.sum_flops / w->op.stats.sum_capacity : -1;
	if (w->op.stats.bad_dtype[0])
		rr->bad_dtype = opmfu_strdup(w->op.stats.bad_dtype);

	valid = w->trace.n_recs;
	if (rr->kernels_with_mfu > 0) {
		rr->state = OPMFU_RANK_OK;
	} else if (w->trace.n_compute == 0) {
		sbuf_adds(&why, "no compute kernels linked to framework ops (COMPUTE_TASK_INFO/TASK/CONNECTION_IDS/PYTORCH_API)");
		set_reason(rr, OPMFU_RANK_NO_MFU, &why);
	} else if (!w->trace.has_mstx) {
		sbuf_adds(&why, "no MSTX_EVENTS table: the profile was collected without mstx, so it holds no FLOPs records (collect with with_flops=True and mstx enabled)");
		set_reason(rr, OPMFU_RANK_NO_MFU, &why);
	} else if (w->trace.n_recs_read == 0) {
		sbuf_adds(&why, "no mfu_flops records in MSTX_EVENTS (collect with with_flops=True)");
		set_reason(rr, OPMFU_RANK_NO_MFU, &why);
	} else if (!have_peak && valid > 0) {
		sbuf_addf(&why, "no peak FLOPS: %s; give --peak fp16=TFLOPS,int8=TFLOPS (or OPMFU_PEAK) or --chip NAME",
			  pc.no_peak_why[0] ? pc.no_peak_why : "no source");
		set_reason(rr, OPMFU_RANK_FAILED, &why);
		return;
	} else {
		sbuf_addf(&why, "none of the %zu mfu_flops records gave an MFU (", w->trace.n_recs_read);
		drop_summary(&why, rr->drops);
		sbuf_adds(&why, ")");
		set_reason(rr, OPMFU_RANK_NO_MFU, &why);
	}
	if (!have_peak && rr->state == OPMFU_RANK_NO_MFU) {
		/* say it now so the user is not surprised on the next collection */
		sbuf_addf(&why, "%s; also no peak FLOPS: %s", rr->reason,
			  pc.no_peak_why[0] ? pc.no_peak_why : "no source");
		set_reason(rr, OPMFU_RANK_NO_MFU, &why);
	}
}

static void work_release(struct rank_work *w)
{
	opmfu_module_mfu_release(&w->mod);
	opmfu_op_mfu_release(&w->op);
	opmfu_trace_release(&w->trace);
	w->analysed = 0;
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
		if (mkdir(buf, 0777) != 0 && errno != EEXIST)
			return opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot create directory: %s", buf,
					     strerror(errno));
		buf[i] = path[i];
	}
	{
		struct stat st;
		if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
			return opmfu_err_set(err, OPMFU_ERR_IO, "%s: not a directory", path);
	}
	return OPMFU_OK;
}

static enum opmfu_status select_ranks(const struct opmfu_opts *o, struct opmfu_rank_list *list,
				      struct opmfu_err *err)
{
	size_t i, j, k = 0;
	for (j = 0; j < o->n_ranks; j++) {
		for (i = 0; i < list->n; i++)
			if (list->v[i].rank == o->ranks[j])
				break;
		if (i == list->n)
			return opmfu_err_set(err, OPMFU_ERR_USAGE, "rank %d is not in the input (found %zu rank%s)",
					     o->ranks[j], list->n, list->n == 1 ? "" : "s");
	}
	for (i = 0; i < list->n; i++) {
		int keep = 0;
		for (j = 0; j < o->n_ranks && !keep; j++)
			keep = list->v[i].rank == o->ranks[j];
		if (keep) {
			list->v[k++] = list->v[i];
		} else {
			opmfu_free(list->v[i].dir);
			opmfu_free(list->v[i].db_path);
			opmfu_free(list->v[i].out_hint);
		}
	}
	list->n = k;
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
	unsigned char *done;
	size_t next, written, window;
	int abort;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

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

		analyse_rank(p->o, &p->list->v[i], &p->work[i], &p->rep->ranks[i]);

		pthread_mutex_lock(&p->mu);
		p->done[i] = 1;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
	}
}

static int default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

static enum opmfu_status write_rank(const struct opmfu_opts *o, struct rank_work *w, struct opmfu_rank_report *rr,
				    struct opmfu_sqlite_out *db, struct opmfu_err *err)
{
	enum opmfu_status st = OPMFU_OK;
	(void)o;
	if (w->analysed)
		st = opmfu_sqlite_out_rank(db, rr->rank, &w->trace, &w->op, &w->mod, err);
	if (st == OPMFU_OK)
		st = opmfu_sqlite_out_summary(db, rr, err);
	return st;
}

static enum opmfu_status run_ranks(const struct opmfu_opts *o, const struct opmfu_rank_list *list,
				   struct opmfu_report *rep, struct opmfu_sqlite_out *db, double t0,
				   struct opmfu_err *err)
{
	struct pool p;
	pthread_t *th = NULL;
	size_t i, n_threads, started = 0, kernels_done = 0;
	enum opmfu_status st = OPMFU_OK;

	memset(&p, 0, sizeof(p));
	p.o = o;
	p.list = list;
	p.rep = rep;
	n_threads = (size_t)(o->jobs > 0 ? o->jobs : default_jobs());
	if (n_threads > list->n)
		n_threads = list->n;
	p.window = 2 * n_threads;
	p.work = opmfu_calloc(list->n, sizeof(*p.work));
	p.done = opmfu_calloc(list->n, 1);
	th = opmfu_calloc(n_threads, sizeof(*th));
	if (!p.work || !p.done || !th) {
		opmfu_free(p.work);
		opmfu_free(p.done);
		opmfu_free(th);
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory starting %zu workers", n_threads);
	}
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	for (i = 0; i < n_threads; i++) {
		if (pthread_create(&th[i], NULL, worker, &p) != 0)
			break;
		started++;
	}
	if (started == 0) {
		/* no thread could be started: analyse on this thread, one rank at a time */
		p.window = 1;
	}

	for (i = 0; i < list->n; i++) {
		struct opmfu_rank_report *rr = &rep->ranks[i];
		if (started == 0) {
			analyse_rank(o, &list->v[i], &p.work[i], rr);
		} else {
			pthread_mutex_lock(&p.mu);
			while (!p.done[i])
				pthread_cond_wait(&p.cv, &p.mu);
			pthread_mutex_unlock(&p.mu);
		}
		if (rr->state == OPMFU_RANK_FAILED)
			rep->n_failed++;
		st = write_rank(o, &p.work[i], rr, db, err);
		kernels_done += rr->kernels;
		work_release(&p.work[i]);
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
	opmfu_free(p.done);
	opmfu_free(th);
	return st;
}

enum opmfu_status opmfu_analyze(const struct opmfu_opts *o, struct opmfu_report *rep, struct opmfu_err *err)
{
	struct opmfu_rank_list list = { NULL, 0, 0 };
	struct opmfu_sqlite_out *db = NULL;
	struct sbuf sb;
	enum opmfu_status st = OPMFU_OK;
	double t0 = now_s();
	size_t i;
	const char *base;

	memset(rep, 0, sizeof(*rep));
	sbuf_init(&sb);
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
	opmfu_rank_list_finish(&list, warn_cb, (void *)o);
	if (o->ranks && (st = select_ranks(o, &list, err)))
		goto out;

	base = o->out_dir ? o->out_dir : list.v[0].out_hint;
	sbuf_addf(&sb, "%s/cluster_analysis_output", base);
	rep->out_dir = sbuf_take(&sb);
	sbuf_init(&sb);
	if (!rep->out_dir) {
		st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((st = mkdirs(rep->out_dir, err)))
		goto out;
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
	}

	sbuf_addf(&sb, "%s/cluster_analysis.db", rep->out_dir);
	rep->out_db = sbuf_take(&sb);
	sbuf_init(&sb);
	if (!rep->out_db) {
		st = opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory");
		goto out;
	}
	if ((st = opmfu_sqlite_out_open(&db, rep->out_db, err)))
		goto out;

	st = run_ranks(o, &list, rep, db, t0, err);
	if (st)
		goto out;
	if (rep->n_failed == rep->n_ranks) {
		/* nothing was analysed: keep the previous results rather than empty tables */
		st = opmfu_err_set(err, OPMFU_ERR_PARTIAL, "%zu of %zu rank%s failed; %s left unchanged",
				   rep->n_failed, rep->n_ranks, rep->n_ranks == 1 ? "" : "s", rep->out_db);
		opmfu_free(rep->out_db);
		rep->out_db = NULL;
		goto out;
	}
	if ((st = opmfu_sqlite_out_commit(db, err)))
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
	sbuf_release(&sb);
	rep->seconds = now_s() - t0;
	return st;
}

void opmfu_report_release(struct opmfu_report *rep)
{
	size_t i;
	for (i = 0; i < rep->n_ranks; i++) {
		opmfu_free(rep->ranks[i].db_path);
		opmfu_free(rep->ranks[i].reason);
		opmfu_free(rep->ranks[i].peak_source);
		opmfu_free(rep->ranks[i].bad_dtype);
	}
	opmfu_free(rep->ranks);
	opmfu_free(rep->out_db);
	opmfu_free(rep->out_dir);
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
