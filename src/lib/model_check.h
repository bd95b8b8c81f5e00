/*
 * model_check.h - `opmfu analyze --model` (SPEC 12, 15): the model's FLOPs
 * per step under each convention, computed once per run, against each
 * rank's steps (the OpmfuModel table) and against the run as a whole.
 * lib/ only.
 */
#ifndef OPMFU_MODEL_CHECK_H
#define OPMFU_MODEL_CHECK_H

#include <stddef.h>

#include "analyze/steps.h"
#include "base/err.h"
#include "mflops/mflops.h"
#include "trace/table.h"
#include "lib/report.h"
#include "opmfu.h"

/* opmfu_model_compute (lib/model.c) that also gives the config it read. */
enum opmfu_status opmfu_model_compute_cfg(const struct opmfu_model_opts *o, struct opmfu_model_result *res,
					  struct opmfu_model_cfg *cfg, struct opmfu_err *err);

extern const struct opmfu_table_def opmfu_model_def;

/* After discovery, before any rank is analysed: the model's FLOPs for
 * o->model, the world size defaulting to n_found (the ranks found, before
 * --rank-list), into rep->model (room for n_ranks ranks), which
 * opmfu_report_release frees. Errors are opmfu_model_compute's (a usage
 * error names the option), and OPMFU_ERR_USAGE without a batch or tokens
 * per step, or when no convention asked for applies; a convention asked for
 * that does not apply is a warning through o. */
enum opmfu_status opmfu_model_check_start(const struct opmfu_opts *o, size_t n_found, size_t n_ranks,
					  struct opmfu_report *rep, struct opmfu_err *err);

/* Rank i's OpmfuModel rows into cs (initialised here; the caller releases
 * it): per step with device activity and per convention; and what the
 * run's rows need of the rank. */
enum opmfu_status opmfu_model_check_rank(struct opmfu_model_report *m, size_t i, const struct opmfu_steps *steps,
					 const struct opmfu_rank_report *rr, struct opmfu_cell_store *cs,
					 struct opmfu_err *err);

/* After every rank: the run's rows (rank_id and step NULL), for the median
 * step of the run's median rank (OpmfuRun.median_rank; NULL: none), into cs
 * (initialised here) and into m->run. */
enum opmfu_status opmfu_model_check_run(struct opmfu_model_report *m, const int *median, struct opmfu_cell_store *cs,
					struct opmfu_err *err);

/* A shard's (SPEC 22) OpmfuModelRun rows for rank i, given to
 * opmfu_model_check_rank: the run's rows were it the median rank, with its
 * rank_id and median step; into cs (initialised here). */
extern const struct opmfu_table_def opmfu_model_run_def;
enum opmfu_status opmfu_model_check_run_of(struct opmfu_model_report *m, size_t i, struct opmfu_cell_store *cs,
					   struct opmfu_err *err);

/* One line naming the config, run options, dtype class and conventions'
 * FLOPs, appended to sb: OpmfuShard.model, which the shards of a merge
 * must share. */
struct sbuf;
enum opmfu_status opmfu_model_check_describe(const struct opmfu_model_report *m, struct sbuf *sb,
					     struct opmfu_err *err);

/* NULL is a no-op */
void opmfu_model_check_release(struct opmfu_model_report *m);

/* What a note is chosen from (docs/model-mfu.md, "The notes"). */
struct opmfu_note_in {
	double coverage;     /* trace FLOPs / model FLOPs per device; < 0: unknown */
	double compute_cov;  /* share of FLOP-worthy compute time (FLOP kernels, GEMM/conv/attention
				kernels without FLOPs) whose FLOPs are known; < 0: unknown */
	int training;        /* the run options count a backward pass */
	int records_only;    /* every FLOPs of the trace came from torch_npu's records */
	int palm_moe;        /* the palm convention on a mixture-of-experts config */
	int full_attention;  /* a convention that counts every attention pair (palm, kempnerforge) on a causal model */
};

/* The likely reason coverage is far from 1, or NULL when it is near 1 (or unknown). */
const char *opmfu_model_note(const struct opmfu_note_in *in);

#endif
