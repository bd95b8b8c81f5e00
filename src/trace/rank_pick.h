/*
 * rank_pick.h - the ranks a bounded view shows (the terminal report, the
 * HTML report): every analysed rank when there are few, else the median
 * rank, the best and the worst trace MFU and the slowest median steps, so
 * that a view has one length for 8 and for 1,000 ranks. One rule for every
 * view (SPEC 16), over OpmfuRankSummary's rows as a table holds them.
 */
#ifndef OPMFU_RANK_PICK_H
#define OPMFU_RANK_PICK_H

#include <stddef.h>

#include "trace/table.h"

#define OPMFU_FEW_RANKS 8  /* up to this many analysed ranks, every one is shown */
#define OPMFU_SLOW_RANKS 5 /* beyond that: the median, best, worst and this many slowest */
#define OPMFU_RANKS_SHOWN_MAX (3 + OPMFU_SLOW_RANKS)

enum opmfu_rank_role {
	OPMFU_ROLE_RANK,   /* one of few ranks */
	OPMFU_ROLE_MEDIAN, /* the run's median rank (OpmfuRun.median_rank) */
	OPMFU_ROLE_BEST,   /* the highest trace MFU */
	OPMFU_ROLE_WORST,  /* the lowest trace MFU */
	OPMFU_ROLE_SLOW,   /* one of the slowest median steps, slowest first */
};

struct opmfu_rank_shown {
	size_t row; /* of the rows given */
	enum opmfu_rank_role role;
};

/*
 * The rows of rows[0 .. n_rows) (OpmfuRankSummary's cells, def's layout) a
 * view shows, in its order, into out (room for OPMFU_RANKS_SHOWN_MAX); their
 * count. n_analysed is OpmfuRun.ranks_analysed. With at most
 * OPMFU_FEW_RANKS analysed: each analysed row (status not "failed") in
 * order; else the median rank's row (rank_id = median_rank), the analysed
 * rows with the highest and the lowest trace_mfu, and the OPMFU_SLOW_RANKS
 * analysed rows of the longest step_ns_median; the first of equals, rows
 * without the value skipped.
 */
size_t opmfu_ranks_shown(const struct opmfu_table_def *def, const struct opmfu_cell *rows, size_t n_rows,
			 size_t n_analysed, double median_rank, struct opmfu_rank_shown *out);

#endif
