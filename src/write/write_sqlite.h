/*
 * write_sqlite.h - writes OperatorMFU, ModuleMFU and OpmfuRankSummary into
 * cluster_analysis.db in one transaction: readers never see half a result and
 * a failed run leaves the previous tables (and other tools' tables) intact.
 */
#ifndef OPMFU_WRITE_SQLITE_H
#define OPMFU_WRITE_SQLITE_H

#include "analyze/module_mfu.h"
#include "analyze/op_mfu.h"
#include "base/err.h"
#include "model/trace.h"
#include "opmfu.h"

struct opmfu_sqlite_out;

/* Opens (creating if needed) path, begins the transaction and replaces
 * opmfu's tables with empty ones. On error *out is NULL. */
enum opmfu_status opmfu_sqlite_out_open(struct opmfu_sqlite_out **out, const char *path,
					struct opmfu_err *err);

/* The rank's OperatorMFU rows. */
enum opmfu_status opmfu_sqlite_out_ops(struct opmfu_sqlite_out *out, int rank, const struct opmfu_trace *t,
				       const struct opmfu_op_mfu *op, struct opmfu_err *err);

/* The rank's ModuleMFU rows. */
enum opmfu_status opmfu_sqlite_out_modules(struct opmfu_sqlite_out *out, int rank,
					   const struct opmfu_module_mfu *mod, struct opmfu_err *err);

/* Takes back the rank's OperatorMFU rows: its analysis failed after they
 * were written (the writer does not wait for the module tree). */
enum opmfu_status opmfu_sqlite_out_drop_ops(struct opmfu_sqlite_out *out, int rank, struct opmfu_err *err);

enum opmfu_status opmfu_sqlite_out_summary(struct opmfu_sqlite_out *out,
					   const struct opmfu_rank_report *rr, struct opmfu_err *err);

/* Commits. The handle stays valid until close. */
enum opmfu_status opmfu_sqlite_out_commit(struct opmfu_sqlite_out *out, struct opmfu_err *err);

/* Rolls back anything uncommitted and frees. NULL is a no-op. */
void opmfu_sqlite_out_close(struct opmfu_sqlite_out *out);

#endif
