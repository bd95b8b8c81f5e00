/*
 * collectives.h - communication, and who waits for whom (SPEC 19).
 *
 * Per rank ("collectives", after "steps"): each collective call of the trace
 * (t->colls) with the step whose window holds its start and the part of it
 * that was exposed (under no compute), as the internal table OpmfuCollCalls.
 *
 * Per run ("collectives_run", before the account): the k-th call of a kind
 * in a group on each rank is one call of the run; the rank that starts it
 * last is its culprit, and each rank's wait is from its own start to that
 * last start (clipped to its call) unless the trace measures waiting itself
 * (Ascend's notify waits). The run's OpmfuCollectives, and OpmfuSteps (held
 * until then, table.h) with the exposed waiting filled where only the other
 * ranks could tell it. docs/collectives.md.
 */
#ifndef OPMFU_COLLECTIVES_H
#define OPMFU_COLLECTIVES_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/steps.h"
#include "base/err.h"
#include "base/intern.h"
#include "base/sbuf.h"
#include "trace/analysis.h"
#include "trace/table.h"

/* ---- per rank ---- */

struct opmfu_coll_call {
	uint32_t coll;      /* index into t->colls */
	int32_t row;        /* the steps row whose window holds its start; -1: none */
	int64_t exposed_ns; /* its span under no compute */
	size_t text, text_n; /* its exposed parts as text in buf (the OpmfuCollCalls column) */
};

struct opmfu_coll_rank {
	const struct opmfu_trace *t;
	const struct opmfu_steps *steps;
	struct opmfu_coll_call *v;
	size_t n;
	struct sbuf buf;
	int rank;
};

void opmfu_coll_rank_init(struct opmfu_coll_rank *res);
void opmfu_coll_rank_release(struct opmfu_coll_rank *res);
/* steps (and its trace) must outlive res. Returns OPMFU_OK or OPMFU_ERR_NOMEM. */
enum opmfu_status opmfu_coll_rank_run(const struct opmfu_trace *t, const struct opmfu_steps *steps,
				      struct opmfu_coll_rank *res, struct opmfu_err *err);

extern const struct opmfu_table_def opmfu_coll_calls_def; /* internal and held */
/* Its columns, by index (the per-run analysis reads the def it made). */
enum { OPMFU_CC_RANK, OPMFU_CC_STEP, OPMFU_CC_WIN, OPMFU_CC_NAME, OPMFU_CC_OP, OPMFU_CC_GROUP, OPMFU_CC_RANKS,
       OPMFU_CC_DTYPE, OPMFU_CC_BYTES, OPMFU_CC_START, OPMFU_CC_END, OPMFU_CC_EXPOSED, OPMFU_CC_WAIT,
       OPMFU_CC_TRANSFER, OPMFU_CC_LINK, OPMFU_CC_TRANSPORT, OPMFU_CC_PARTS, OPMFU_CC_LINK_NS, OPMFU_CC_NCOL };
struct opmfu_table opmfu_coll_calls_table(const struct opmfu_coll_rank *res);
extern const struct opmfu_analysis opmfu_analysis_collectives;

/* ---- per run ---- */

struct opmfu_run_call {
	int rank;
	int64_t step;       /* OPMFU_NO_STEP: none */
	uint32_t win;       /* interned window kind ("step", "backlog", "trace"); 0: none */
	uint32_t name, op_name, group, dtype, transport; /* interned; name 0: no kind */
	int kind;           /* enum opmfu_coll_kind, of name */
	int64_t ranks;      /* in the group; 0: not known */
	int64_t bytes, start, end, exposed, wait, transfer, link_bytes, link_ns; /* -1: not known */
	size_t piece, n_pieces; /* its exposed parts (offsets from start) in pieces[] */
	/* after matching */
	uint32_t key;       /* (kind, group) */
	int64_t seq;        /* the k-th call of its key on its rank, from 1 */
	int64_t matched;    /* ranks whose k-th call of the key it met; 0: not matched */
	int last_rank;      /* the culprit of the call (the last to start) */
	int64_t wait_run;   /* its wait from the other ranks' starts; -1: not matched */
};

struct opmfu_coll_run {
	struct opmfu_run_call *v;
	size_t n, cap, n_kept;
	struct opmfu_span *pieces;
	size_t n_pieces, cap_pieces, pieces_kept;
	struct opmfu_arena ar;
	struct opmfu_intern strs; /* [0] is "" */
	uint32_t last[6]; /* add_calls' string of each text column in the row before (0: none) */
	struct opmfu_cell_store steps; /* the ranks' OpmfuSteps rows, completed by finish */
	size_t steps_kept;
};

extern const struct opmfu_table_def opmfu_collectives_def;
extern const struct opmfu_analysis opmfu_analysis_collectives_run;

#endif
