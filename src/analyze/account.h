/*
 * account.h - the run account (SPEC 16): fed every kept rank's tables
 * (OpmfuRankSummary, OpmfuSteps, OpmfuModuleClasses, OpmfuModules, OpmfuOpTypes,
 * OpmfuShapes, OpmfuKernels),
 * it makes OpmfuRun, OpmfuHotspots and OpmfuStragglers once for the run.
 * It reads cells by column name only, so results read back from a database
 * (diff, a shard merge) give it the same input as a fresh analysis. Every
 * view renders these tables; none aggregates on its own.
 */
#ifndef OPMFU_ACCOUNT_H
#define OPMFU_ACCOUNT_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/intern.h"
#include "trace/analysis.h"
#include "trace/table.h"

/* Hotspot kinds, in OpmfuHotspots' tie order. */
enum opmfu_hot_kind {
	OPMFU_HOT_MODULE_CLASS,
	OPMFU_HOT_MODULE,
	OPMFU_HOT_OP_TYPE,
	OPMFU_HOT_SHAPE,
	OPMFU_HOT_KERNEL,
	OPMFU_HOT_COLLECTIVE, /* from the run's OpmfuCollectives: by exposed time */
	OPMFU_NHOT
};
const char *opmfu_hot_kind_name(int kind);

/* One name of one kind summed over the ranks. */
struct opmfu_hot_sum {
	uint32_t name;      /* in the kind's intern */
	uint32_t ranks;
	double calls, kernel_ns, lost_ns, recoverable_ns;
	double mfu_x, mfu_w; /* sum of mfu x weight, and of the weight, where mfu is known */
	double roof_ns, roof_kernel_ns; /* roofline time, and kernel time, of the units with a roofline */
	/* shapes: FLOPs and their kernel time (achieved_tflops), bytes (intensity: none if a row lacks either) */
	double flops, flops_ns, bytes;
	int no_intensity;
};

struct opmfu_hot_group {
	struct opmfu_arena ar;
	struct opmfu_intern names;
	struct opmfu_hot_sum *v;
	size_t n, cap;
	struct opmfu_cell_store pending; /* the current rank's rows, until it is kept */
	const struct opmfu_table_def *def;
	/* the spec's columns in col_def (fold(): looked up once, not per rank) */
	const struct opmfu_table_def *col_def;
	int col[13];
};

struct opmfu_account {
	struct opmfu_cell_store ranks;  /* every kept rank's OpmfuRankSummary row, in the order given */
	size_t ranks_kept;
	struct opmfu_hot_group hot[OPMFU_NHOT];
	double rank_steps, rank_steps_pending; /* steps with device activity, over the kept ranks */
	/* the run's identity, set by the caller before opmfu_account_finish */
	char *run_id, *source;
	size_t ranks_failed;
	/* made by opmfu_account_finish */
	struct opmfu_cell_store run, hotspots, stragglers;
	size_t median_row;  /* the median rank's row in ranks; SIZE_MAX: none */
	/* from the run's tables (run_add): every OpmfuSteps row's waiting share, and every matched
	 * call's (culprit, waiter, wait) */
	struct opmfu_step_wait { int rank; int64_t step; double share; int known; } *sw;
	size_t n_sw, cap_sw;
	struct opmfu_wait_edge { int culprit, rank; double wait; uint64_t call; } *we; /* call: its (name, k) */
	size_t n_we, cap_we;
	int last_coll_rank; /* the rank of the last OpmfuCollectives row folded (ranks counted once) */
	uint32_t *coll_last; /* per collective hotspot: the last rank counted */
	size_t cap_coll_last;
};

/* A table a per-run analysis before the account made for the run (OpmfuSteps, OpmfuCollectives). */
enum opmfu_status opmfu_account_run_add(struct opmfu_account *a, const struct opmfu_table *t, struct opmfu_err *err);

void opmfu_account_init(struct opmfu_account *a);
void opmfu_account_release(struct opmfu_account *a);

/* A table of the current rank; tables the account does not read are ignored. */
enum opmfu_status opmfu_account_add(struct opmfu_account *a, const struct opmfu_table *t, struct opmfu_err *err);
/* The current rank's tables are final: fold them into the run. */
enum opmfu_status opmfu_account_keep(struct opmfu_account *a, struct opmfu_err *err);
/* Forgets what the current rank added. */
void opmfu_account_drop(struct opmfu_account *a);

/* Sets the run's identity: its id and source ("ascend", "kineto", "mixed"). */
enum opmfu_status opmfu_account_identity(struct opmfu_account *a, const char *run_id, const char *source,
					 size_t ranks_failed, struct opmfu_err *err);

/* Makes the run tables from what was kept. Call once. */
enum opmfu_status opmfu_account_finish(struct opmfu_account *a, struct opmfu_err *err);

/*
 * The one definition of a median (docs/glossary.md): of n items ordered by
 * key, then by tie, the one at position (n - 1) / 2 (the lower middle, an
 * actual item, so its parts add up). Items whose key is NaN are left out.
 * Returns its index, or SIZE_MAX when none; -1 in *nomem when out of memory.
 */
size_t opmfu_median_index(const double *key, const double *tie, size_t n, int *nomem);

extern const struct opmfu_table_def opmfu_run_def, opmfu_hotspots_def, opmfu_stragglers_def;

/* The registered analysis "account" (per run); its state is a struct opmfu_account. */
extern const struct opmfu_analysis opmfu_analysis_account;

#endif
