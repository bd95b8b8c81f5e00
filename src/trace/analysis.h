/*
 * analysis.h - an analysis as the pool runs it (SPEC 16): a name, the
 * analyses or tables it needs, the tables it makes, and whether it runs per
 * rank or once per run. lib/analyses.c holds the registry; the pool runs it
 * in order. Adding an analysis is one file defining a struct opmfu_analysis
 * plus one line in that registry (docs/architecture.md, "How to add").
 *
 * Here, in the trace layer, so that both the reference pipeline
 * (reference/) and opmfu's own analyses (analyze/) can define one; what
 * a rank offers is declared, not included.
 */
#ifndef OPMFU_ANALYSIS_H
#define OPMFU_ANALYSIS_H

#include <stddef.h>

#include "base/err.h"
#include "trace/table.h"

struct opmfu_trace;
struct opmfu_flops;
struct opmfu_op_mfu;
struct opmfu_rank_peaks;
struct opmfu_analysis;

enum opmfu_analysis_scope {
	OPMFU_PER_RANK, /* runs on each rank's worker, its tables put with the rank's */
	OPMFU_PER_RUN,  /* reads every kept rank's tables on the writer thread, then makes the run's */
};

/* The per-rank stages of the pool: the tables of a stage are written while
 * the worker goes on with the next one. */
enum {
	OPMFU_STAGE_OPS = 1,      /* with kernel MFU: what needs only it (OperatorMFU) */
	OPMFU_STAGE_TREE = 2,     /* the module tree (ModuleMFU), built before the op units exist, not over
				     them: the last reader of kernel MFU's entries */
	OPMFU_STAGE_OP_UNITS = 3, /* the op units and their modules (OpmfuOps, the largest table) */
	OPMFU_STAGE_UNITS = 4,    /* what is built on them */
	OPMFU_STAGE_LAST = 5,     /* anything that needs the others' results (none registered today) */
};

/* What a per-rank analysis sees of its rank: the pipeline's results (read,
 * peaks, FLOPs, kernel MFU) and the state of the analyses before it. */
struct opmfu_rank_ctx {
	int rank;
	const struct opmfu_trace *trace;
	const struct opmfu_flops *flops;
	const struct opmfu_op_mfu *op;        /* kernel MFU entries (SPEC 2): stages OPS and TREE only,
						 freed (all but the stats) once both are done and the
						 tables of OPS written */
	const struct opmfu_rank_peaks *peaks; /* SPEC 8's, per class */
	void *const *state;                   /* per registered analysis, in registry order */
	const struct opmfu_analysis *const *registry;
};

/* What a per-run analysis is told of the run when it is finished. */
struct opmfu_run_ctx {
	const char *run_id; /* the run's ID (read/reader.h: "ascend", "kineto-w8-amd-instinct-mi300x") */
	const char *source; /* the reader of its ranks: "ascend", "kineto" */
	size_t ranks, ranks_failed;
};

#define OPMFU_MAX_TABLES 4 /* tables one analysis makes */

struct opmfu_analysis {
	const char *name;
	enum opmfu_analysis_scope scope;
	int stage; /* per rank: OPMFU_STAGE_* */
	/* per rank: the analyses whose state it reads (run before it); per run:
	 * the tables it reads. NULL-terminated. */
	const char *const *needs;
	const struct opmfu_table_def *const *makes; /* NULL-terminated, at most OPMFU_MAX_TABLES */
	size_t state_size;                          /* zeroed, then init */
	void (*init)(void *state);
	void (*release)(void *state);

	/* per rank */
	enum opmfu_status (*run)(void *state, const struct opmfu_rank_ctx *ctx, struct opmfu_err *err);
	/* Its tables for the rank into out (room for its makes), their number in
	 * *n. Called on the writer's thread: work that only the tables need
	 * (OperatorMFU's rows) is done here, beside the worker's next stage. */
	enum opmfu_status (*tables)(void *state, const struct opmfu_rank_ctx *ctx, struct opmfu_table *out, size_t *n,
				    struct opmfu_err *err);
	/* optional: its tables were put (free what only they needed) */
	void (*written)(void *state);

	/* per run */
	enum opmfu_status (*add)(void *state, const struct opmfu_table *t, struct opmfu_err *err);
	enum opmfu_status (*keep)(void *state, struct opmfu_err *err); /* the rank's tables are final */
	void (*drop)(void *state);                                      /* forget what the rank added */
	/* optional: a table a per-run analysis before it made for the run, before finish */
	enum opmfu_status (*run_add)(void *state, const struct opmfu_table *t, struct opmfu_err *err);
	enum opmfu_status (*finish)(void *state, const struct opmfu_run_ctx *ctx, struct opmfu_err *err);
	size_t (*run_tables)(void *state, struct opmfu_table *out);
	/* optional (NULL: every column of its needs): whether add reads column col of
	 * table; a merge reads no other column of a table it copies (lib/shard.c) */
	int (*reads)(const char *table, const char *col);
};

/* The state of analysis a on ctx's rank (a registered per-rank analysis that
 * ran before the caller); NULL when it is not registered. */
void *opmfu_rank_state(const struct opmfu_rank_ctx *ctx, const struct opmfu_analysis *a);

#endif
