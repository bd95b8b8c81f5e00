/*
 * results.h - an opmfu result database (cluster_analysis.db) read back for
 * `opmfu diff`: the rows it compares, from OpmfuRankSummary, OpmfuModules
 * (a path's own ops), OpmfuOpTypes, OpmfuSteps and, when the database has
 * them, OpmfuCollectives and OpmfuModel's rows for the whole run. The file is opened as every input
 * is (read/sqlite_in.h): read-only, nothing written beside it.
 */
#ifndef OPMFU_RESULTS_H
#define OPMFU_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/intern.h"
#include "trace/table.h"

/* What a file is, by its first bytes and its tables. */
enum opmfu_db_kind {
	OPMFU_DB_NOT_SQLITE, /* no SQLite header (or empty) */
	OPMFU_DB_OTHER,      /* a database with neither table below */
	OPMFU_DB_RESULT,     /* has OpmfuRankSummary: an opmfu result */
	OPMFU_DB_PROFILER,   /* has TASK: an Ascend profiler export */
};

/* A rank of OpmfuRankSummary. Unknown values (NULL) are NAN. */
struct opmfu_res_rank {
	int rank;
	int failed;        /* status 'failed': nothing else of it was written */
	double compute_ns; /* compute kernel time of its ops */
	double flops;      /* flops_record + flops_shape */
	double mfu;        /* mfu_recorded */
};

/* A row of OpmfuModules (the self_ columns: the path's own ops), of
 * OpmfuOpTypes, or of OpmfuCollectives (name: the call's key as
 * opmfu_coll_key makes it, the collective hotspot's name; kernel_ns its
 * time_ns, lost_ns its exposed_ns, flops and mfu NAN). name is an id in the
 * names given to opmfu_results_read. */
struct opmfu_res_row {
	int rank;
	uint32_t name;
	double kernel_ns, flops, mfu, lost_ns;
};

/* A row of OpmfuSteps. comm_wait_ns: the part of comm_ns spent waiting for
 * other ranks (SPEC 19); NAN when NULL or the result predates it. */
struct opmfu_res_step {
	int rank;
	double window_ns, flops_ns, other_ns, comm_ns, idle_ns, flops, trace_mfu, comm_wait_ns;
};

/* A row of OpmfuModel for the whole run (rank_id and step NULL). */
struct opmfu_res_model {
	uint32_t conv; /* the convention's name, an id in names */
	double step_ns, flops, mfu; /* step_ns, model_flops_per_device, model_mfu */
};

enum { OPMFU_RES_MODULES, OPMFU_RES_OP_TYPES, OPMFU_RES_COLLECTIVES, OPMFU_RES_NLIST };

struct opmfu_results {
	struct opmfu_res_rank *ranks;
	size_t n_ranks, cap_ranks;
	struct opmfu_res_row *rows[OPMFU_RES_NLIST];
	size_t n_rows[OPMFU_RES_NLIST], cap_rows[OPMFU_RES_NLIST];
	struct opmfu_res_step *steps;
	size_t n_steps, cap_steps;
	struct opmfu_res_model *model;
	size_t n_model, cap_model;
	int has_model; /* the database has an OpmfuModel table */
	int has_colls; /* ... an OpmfuCollectives table (SPEC 19; older results do not) */
};

/* What the file at path is, into *kind. Errors only when it cannot be
 * opened or its schema read (the message names the file). */
enum opmfu_status opmfu_db_kind(const char *path, enum opmfu_db_kind *kind, struct opmfu_err *err);

/*
 * Reads the result database at path into r (zeroed first); module paths,
 * op names and convention names are interned into names. A table or
 * column the diff needs that is missing is OPMFU_ERR_SCHEMA, a value of the
 * wrong type OPMFU_ERR_FORMAT, each naming the file, table, row and column.
 * On error r holds what was read and must still be released.
 */
enum opmfu_status opmfu_results_read(const char *path, struct opmfu_intern *names, struct opmfu_results *r,
				     struct opmfu_err *err);
void opmfu_results_release(struct opmfu_results *r);

/* Takes rows of a table read by opmfu_results_tables: t holds them (over
 * the def given) and is valid during the call only. */
typedef enum opmfu_status (*opmfu_results_rows_fn)(void *ctx, size_t k, const struct opmfu_table *t,
						   struct opmfu_err *err);

/*
 * Reads the tables defs[0 .. n) of the result database at path, any table
 * as its def says, for the summary workbook of `opmfu diff`: a table is
 * found by the def's name (one the database does not have is skipped), its
 * columns by the def's column names (one it does not have is NULL in every
 * row), in the database's row order; with ranks (n_ranks > 0), only the
 * rows whose rank_id is one of them. Rows go to on_rows(ctx, k, ...) in
 * pieces of at most `chunk` rows, so memory follows a piece, not the table.
 * A value of another type than its column's is OPMFU_ERR_FORMAT naming the
 * file, table, row and column (an integer is a number for a REAL column).
 */
enum opmfu_status opmfu_results_tables(const char *path, const struct opmfu_table_def *const *defs, size_t n,
				       const int *ranks, size_t n_ranks, size_t chunk, opmfu_results_rows_fn on_rows,
				       void *ctx, struct opmfu_err *err);

/*
 * A shard result read rank by rank (opmfu merge, SPEC 22): every table of
 * defs must be there with every column of its def (else OPMFU_ERR_SCHEMA
 * naming the file, table and column), and each has a rank_id column; its
 * rows are read in rowid order, which is rank order as the shard wrote them.
 */
struct opmfu_results_cursor;
/* Whether the reader wants column col of table defs[k]; a column not wanted
 * is not read and its cells are NULL (rank_id is always read). */
typedef int (*opmfu_results_want_fn)(void *ctx, size_t k, const char *col);
/* want NULL: every column. */
enum opmfu_status opmfu_results_cursor_open(const char *path, const struct opmfu_table_def *const *defs, size_t n,
					    opmfu_results_want_fn want, void *want_ctx, struct opmfu_results_cursor **out,
					    struct opmfu_err *err);
/* Appends to cs (over defs[k]) the next rows of table k whose rank_id is
 * rank, stopping at the first of another rank; a value of another type than
 * its column's is OPMFU_ERR_FORMAT naming the file, table, row and column. */
enum opmfu_status opmfu_results_cursor_rank(struct opmfu_results_cursor *c, size_t k, int rank,
					    struct opmfu_cell_store *cs, struct opmfu_err *err);
/* Every row must have been taken (a row left is of no rank asked for, or
 * out of rank order: OPMFU_ERR_FORMAT naming it), and the file unchanged.
 * Frees c; with err NULL it only frees. */
enum opmfu_status opmfu_results_cursor_close(struct opmfu_results_cursor *c, struct opmfu_err *err);

#endif
