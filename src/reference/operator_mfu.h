/*
 * operator_mfu.h - the OperatorMFU table (SPEC 2.5): one row per (kernel,
 * record) pair of the kernel-level result, in its R order. The rows are
 * listed once as (link, entry) pairs, 8 bytes each; the table's row function
 * is the only place where an OperatorMFU row's cells are computed.
 */
#ifndef OPMFU_OPERATOR_MFU_H
#define OPMFU_OPERATOR_MFU_H

#include <stddef.h>
#include <stdint.h>

#include "reference/op_mfu.h"
#include "base/err.h"
#include "trace/analysis.h"
#include "trace/table.h"
#include "trace/trace.h"

extern const struct opmfu_table_def opmfu_operator_mfu_def;

struct opmfu_operator_row {
	uint32_t link;  /* the R row: index into the trace's links */
	uint32_t entry; /* index into the result's entries */
};

struct opmfu_operator_mfu {
	const struct opmfu_trace *t;
	const struct opmfu_op_mfu *op;
	struct opmfu_operator_row *rows;
	size_t n_rows;
	int rank;
};

/*
 * Lists the OperatorMFU rows of op (the result of opmfu_op_mfu_run on t) for
 * rank. om keeps pointers to t and op, which must outlive it. Returns
 * OPMFU_OK, or OPMFU_ERR_NOMEM (om then needs no release).
 */
enum opmfu_status opmfu_operator_mfu_build(struct opmfu_operator_mfu *om, int rank, const struct opmfu_trace *t,
					   const struct opmfu_op_mfu *op, struct opmfu_err *err);
void opmfu_operator_mfu_release(struct opmfu_operator_mfu *om);

/* The table over om, valid while om is. */
struct opmfu_table opmfu_operator_mfu_table(const struct opmfu_operator_mfu *om);

/* The registered analysis "operator_mfu" (OperatorMFU, stage 1): its rows
 * are built for the writers and freed once they are written. */
struct opmfu_operator_mfu_state {
	struct opmfu_operator_mfu om;
	int built;
};
extern const struct opmfu_analysis opmfu_analysis_operator_mfu;

#endif
