/*
 * lib.h - what the pipeline's files share: one rank's work between reading
 * and writing, its peaks, and the stages the pool runs (lib/ only).
 */
#ifndef OPMFU_LIB_H
#define OPMFU_LIB_H

#include <stddef.h>

#include "analyze/steps.h"
#include "reference/op_mfu.h"
#include "trace/analysis.h"
#include "base/err.h"
#include "flops/flops.h"
#include "trace/peaks.h"
#include "trace/table.h"
#include "trace/trace.h"
#include "lib/report.h"
#include "opmfu.h"
#include "read/reader.h"
#include "write/writer.h"

/* Where a rank's peaks came from (lib/peaks.c), in the order they are tried. */
enum { PL_OVERRIDE, PL_CHIP, PL_DEVICE, PL_FALLBACK, PL__COUNT };

struct peak_choice {
	struct opmfu_rank_peaks prec; /* SPEC 8's classes, for every MFU (OperatorMFU of an Ascend trace
					 maps the reference's classes onto them); sources point into labels */
	char labels[PL__COUNT][700];
	char bw_label[700];           /* where prec.bw came from; prec.bw_source points here */
	char no_peak_why[1400];       /* when no class has a peak: why, and what to give */
	char chip_warn[400];          /* --chip contradicts what the trace says it ran on; empty: it does not */
};

/* ---- the registry of analyses (lib/analyses.c) ---- */
extern const struct opmfu_analysis *const opmfu_analyses[]; /* NULL-terminated, in the order they run */
/* A state per registered analysis of scope (NULL for the others), each zeroed and initialised. */
enum opmfu_status opmfu_states_new(void **state, enum opmfu_analysis_scope scope, struct opmfu_err *err);
void opmfu_states_free(void **state, enum opmfu_analysis_scope scope);
/* The state of a in state (registry order); NULL: not registered. */
void *opmfu_run_state(void *const *state, const struct opmfu_analysis *a);
/* Runs the per-rank analyses of stage, in registry order. */
enum opmfu_status opmfu_analyses_run(int stage, const struct opmfu_rank_ctx *ctx, struct opmfu_err *err);
/* Their tables into out (room for cap), how many in *n (on the writer's thread). */
enum opmfu_status opmfu_analyses_tables(int stage, const struct opmfu_rank_ctx *ctx, struct opmfu_table *out,
				       size_t cap, size_t *n, struct opmfu_err *err);
/* Tells them their tables were put. */
void opmfu_analyses_written(int stage, const struct opmfu_rank_ctx *ctx);
/* Every table the registry makes, in its order; how many. */
size_t opmfu_analyses_defs(const struct opmfu_table_def **out, size_t cap);

/* Everything one rank needs between reading and writing: the pipeline's
 * results, and a state per registered per-rank analysis. */
struct rank_work {
	struct opmfu_trace trace;
	struct opmfu_flops flops; /* the FLOPs stage's facts, which op's entries point into */
	struct opmfu_op_mfu op;
	void *state[OPMFU_MAX_ANALYSES]; /* per registered analysis; NULL: not per rank, or not started */
	struct opmfu_rank_ctx ctx;       /* what the analyses see of the rank */
	int states_ready;                /* state was made by the pool, on its thread */
	struct peak_choice pc;
	/* how far the worker got (under the pool's lock): the last stage
	 * (trace/analysis.h) it is done with, whether or not it failed */
	int stage;
	/* the last stage whose analyses all ran (0: none): from OPMFU_STAGE_OPS
	 * trace, flops and op are valid, and a stage's tables can be written;
	 * OPMFU_STAGE_LAST: the rank is analysed */
	int ran;
	int read_threads; /* threads its reader may use: the -j that fewer ranks than workers leave idle */
};

/* The writers --export chose, open for one run, in registry order (lib/pool.c). */
#define OPMFU_MAX_WRITERS 8
struct opmfu_writers {
	struct opmfu_writer *v[OPMFU_MAX_WRITERS];
	unsigned bit[OPMFU_MAX_WRITERS]; /* its OPMFU_EXPORT_* bit */
	size_t n;
};
#define OPMFU_WRITERS_INIT { { NULL }, { 0 }, 0 }

/* Results larger than this many times their inputs (and than the floor)
 * are warned about once (lib/opmfu.c, docs/cli.md "Limits"). */
#define OPMFU_OUTPUT_WARN_RATIO 16
#define OPMFU_OUTPUT_WARN_MIN (16.0 * 1024 * 1024)

double opmfu_now_s(void);
/* Creates path and its missing parents (lib/opmfu.c). */
enum opmfu_status opmfu_mkdirs(const char *path, struct opmfu_err *err);
/* dir/<where> of the writer of export bit `bit`, created, into *out. */
enum opmfu_status opmfu_export_dir(const char *dir, unsigned bit, char **out, struct opmfu_err *err);
void opmfu_warn(const struct opmfu_opts *o, const char *msg);
/* The one warning of a run (or diff) whose CSV export put ' in front of n
 * texts (none when n is 0). */
void opmfu_warn_csv_prefixed(const struct opmfu_opts *o, size_t n);
/* Appends to a fixed buffer (truncating), so reports never need memory. */
void opmfu_bufcat(char *buf, size_t size, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

/* Fills pc: per class an override, else --chip, else what the trace's device implies. */
void opmfu_resolve_peaks(const struct opmfu_opts *o, const struct opmfu_device *dev, struct peak_choice *pc);
/* "fp16, int8 from info.json ...; fp8 from override (--peak)" */
void opmfu_peak_source_text(const struct peak_choice *pc, char *out, size_t size);

/* Stage 1 of a rank: read, peaks, FLOPs, kernel MFU. */
void opmfu_rank_analyse_ops(const struct opmfu_opts *o, const struct opmfu_rank_input *in, struct rank_work *w,
			    struct opmfu_rank_report *rr);
/* A later stage (trace/analysis.h): its analyses, when the stage before
 * ran; after the last, what the rank's report says. */
void opmfu_rank_analyse_stage(struct rank_work *w, struct opmfu_rank_report *rr, int stage);
void opmfu_rank_work_release(struct rank_work *w);
/* Returns to the system the heap pages free after a large rank's step (its
 * read, a stage, a stage's tables written). */
void opmfu_rank_trim(const struct rank_work *w);

/* Analyses and writes every rank of list (the rank pool, lib/pool.c), with
 * the writers it opens into ws. */
enum opmfu_status opmfu_run_ranks(const struct opmfu_opts *o, const struct opmfu_rank_list *list,
				  struct opmfu_report *rep, struct opmfu_writers *ws, double t0,
				  struct opmfu_err *err);
/* Opens into ws the writers of the export bits want, each at its place
 * under dir (OUT/cluster_analysis_output), for the tables defs, in
 * registry order. want may also hold OPMFU_WRITE_CSV_VERBATIM: the CSV
 * writer writes formula-like texts as they are (opts.csv_verbatim). */
#define OPMFU_WRITE_CSV_VERBATIM (1u << 16)
enum opmfu_status opmfu_writers_open(struct opmfu_writers *ws, const char *dir, unsigned want,
				    const struct opmfu_table_def *const *defs, size_t n_defs, struct opmfu_err *err);
/* Commits every writer of ws, in order. */
enum opmfu_status opmfu_writers_commit(struct opmfu_writers *ws, struct opmfu_err *err);
/* Closes them (what was not committed is undone) and empties ws. */
void opmfu_writers_close(struct opmfu_writers *ws);

/* The pool's steps, also a merge's (lib/shard.c), which feeds them tables
 * read back from shard results. The tables of a run, in the writers' order. */
const struct opmfu_table_def *const *opmfu_run_table_defs(size_t *n);
/* A table of rank (or OPMFU_RUN_RANK) to every writer and every per-run analysis. */
enum opmfu_status opmfu_pool_put(struct opmfu_report *rep, struct opmfu_writers *ws, int rank,
				 const struct opmfu_table *t, struct opmfu_err *err);
/* The same to the per-run analyses alone: a merge copies the table to the writers. */
enum opmfu_status opmfu_pool_put_run(struct opmfu_report *rep, const struct opmfu_table *t, struct opmfu_err *err);
/* The rank's tables are final: every writer keeps them (its workbooks into
 * *xlsx's bits; export warnings when analysed), then the per-run analyses. */
enum opmfu_status opmfu_pool_keep(const struct opmfu_opts *o, struct opmfu_report *rep, struct opmfu_writers *ws,
				  int rank, int analysed, unsigned *xlsx, struct opmfu_err *err);
/* Opens o's exports under rep->out_dir for the run's tables: a shard's
 * (rep->shard_n) with OpmfuCollCalls and OpmfuShard; --summary-only's
 * (rep->summary_only) without the detail tables, which retire an earlier
 * run's. Sets rep->n_tables. */
enum opmfu_status opmfu_pool_open_writers(const struct opmfu_opts *o, struct opmfu_report *rep,
					  struct opmfu_writers *ws, struct opmfu_err *err);
/* After the last rank: the per-run analyses finish and their tables (a
 * shard: its OpmfuShard rows) are put and kept under OPMFU_RUN_RANK. */
enum opmfu_status opmfu_pool_finish(const char *run_id, const char *source, size_t ranks, struct opmfu_report *rep,
				    struct opmfu_writers *ws, struct opmfu_err *err);
/* OUT/cluster_analysis_output and the exports' folders of o, under base (lib/opmfu.c). */
enum opmfu_status opmfu_make_layout(const struct opmfu_opts *o, const char *base, struct opmfu_report *rep,
				    struct opmfu_err *err);

/* ---- shards (lib/shard.c, SPEC 22) ---- */
extern const struct opmfu_table_def opmfu_shard_def;
/* Keeps o's shard of list (contiguous blocks of the sorted list) and fills
 * rep's OpmfuShard rows; o->shard_n > 0. */
enum opmfu_status opmfu_shard_take(const struct opmfu_opts *o, struct opmfu_rank_list *list, struct opmfu_report *rep,
				   struct opmfu_err *err);

/* What a merge reads of a shard rank by rank, and what it copies whole
 * (copy: every writer can copy); what is read of defs[k] is the columns
 * opmfu_shard_wants says, the others are NULL. */
#define OPMFU_MAX_RANK_TABS 40
struct opmfu_shard_split {
	const struct opmfu_table_def *defs[OPMFU_MAX_RANK_TABS];   /* read rank by rank */
	const struct opmfu_table_def *copied[OPMFU_MAX_RANK_TABS]; /* copied whole by every writer */
	unsigned char run_only[OPMFU_MAX_RANK_TABS]; /* defs[k] is also copied: put to the per-run analyses alone */
	size_t n_defs, n_copied;
};
void opmfu_shard_split(int copy, int summary_only, struct opmfu_shard_split *sp);
int opmfu_shard_wants(const struct opmfu_shard_split *sp, size_t k, const char *col);

/* ---- a shard's ranks packed (lib/shard_pack.c) ----
 * OpmfuShardPack (rank_id, pack): per rank, its rows of the tables a merge
 * writing the database reads rank by rank (opmfu_shard_split(1, 0)), in
 * one blob; OpmfuShardPackLayout (format, layout): how they are packed. */
extern const struct opmfu_table_def opmfu_shard_pack_def, opmfu_shard_layout_def;
struct opmfu_shard_pack;
struct opmfu_shard_pack *opmfu_shard_pack_new(void);
void opmfu_shard_pack_free(struct opmfu_shard_pack *p);
/* Packs t's rows when its table is packed (else nothing). */
enum opmfu_status opmfu_shard_pack_add(struct opmfu_shard_pack *p, const struct opmfu_table *t, struct opmfu_err *err);
/* The rows packed since the last take are taken back (a failed rank's). */
void opmfu_shard_pack_drop(struct opmfu_shard_pack *p);
/* The rank's OpmfuShardPack row of what was packed since the last take, into
 * *t (valid until the next add or take); the packing starts again. */
enum opmfu_status opmfu_shard_pack_take(struct opmfu_shard_pack *p, int rank, struct opmfu_table *t,
					struct opmfu_err *err);
/* The layout text, and its OpmfuShardPackLayout row. */
const char *opmfu_shard_pack_layout(void);
struct opmfu_table opmfu_shard_layout_table(void);
/* Whether a shard's layout (format, text) is this opmfu's: else OPMFU_ERR_SCHEMA naming path and the table. */
enum opmfu_status opmfu_shard_pack_check(const char *path, int64_t format, const char *text, struct opmfu_err *err);
/* Rank's blob of the shard at path decoded into cs[k] (emptied first) for
 * each sp->defs[k]; the texts point into blob, which must outlive the rows.
 * Any bytes: a malformed blob is OPMFU_ERR_FORMAT naming path, rank, table. */
enum opmfu_status opmfu_shard_pack_unpack(const char *path, int rank, const void *blob, size_t n,
					  const struct opmfu_shard_split *sp, struct opmfu_cell_store *cs,
					  struct opmfu_err *err);

/* The OpmfuRankSummary table (lib/summary_table.c): one row, rr's. */
extern const struct opmfu_table_def opmfu_rank_summary_def;
struct opmfu_table opmfu_rank_summary_table(const struct opmfu_rank_report *rr);

#endif
