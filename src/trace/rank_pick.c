/*
 * rank_pick.c - the ranks a bounded view shows (trace/rank_pick.h).
 */
#include "trace/rank_pick.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

struct picker {
	const struct opmfu_table_def *def;
	const struct opmfu_cell *rows;
	size_t n;
	int status;
};

static int analysed(const struct picker *p, size_t i)
{
	const struct opmfu_cell *c;
	if (p->status < 0 || p->def->cols[p->status].type != OPMFU_COL_TEXT)
		return 0;
	c = &p->rows[i * p->def->n_cols + (size_t)p->status];
	return !c->null && !(c->v.t.n == 6 && !memcmp(c->v.t.s, "failed", 6));
}

static double num(const struct picker *p, size_t i, int col)
{
	return opmfu_cell_num(p->def, p->rows + i * p->def->n_cols, col);
}

/* The analysed row with the highest (hi) or lowest value of col, not among
 * skip, the first of equals; SIZE_MAX: none has it. */
static size_t extreme(const struct picker *p, const char *col, int hi, const struct opmfu_rank_shown *skip,
		      size_t n_skip)
{
	size_t i, k, best = SIZE_MAX;
	int c = opmfu_table_col(p->def, col);
	double top = NAN;
	for (i = 0; i < p->n; i++) {
		double v = num(p, i, c);
		for (k = 0; k < n_skip && skip[k].row != i; k++)
			;
		if (k < n_skip || !analysed(p, i) || isnan(v))
			continue;
		if (best == SIZE_MAX || (hi ? v > top : v < top)) {
			best = i;
			top = v;
		}
	}
	return best;
}

size_t opmfu_ranks_shown(const struct opmfu_table_def *def, const struct opmfu_cell *rows, size_t n_rows,
			 size_t n_analysed, double median_rank, struct opmfu_rank_shown *out)
{
	struct picker p = { def, rows, n_rows, def ? opmfu_table_col(def, "status") : -1 };
	size_t i, n = 0, j;
	int rank = def ? opmfu_table_col(def, "rank_id") : -1;

	if (!def)
		return 0;
	if (n_analysed <= OPMFU_FEW_RANKS) {
		for (i = 0; i < n_rows && n < OPMFU_RANKS_SHOWN_MAX; i++)
			if (analysed(&p, i))
				out[n++] = (struct opmfu_rank_shown){ i, OPMFU_ROLE_RANK };
		return n;
	}
	for (i = 0; i < n_rows; i++)
		if (num(&p, i, rank) == median_rank) {
			out[n++] = (struct opmfu_rank_shown){ i, OPMFU_ROLE_MEDIAN };
			break;
		}
	if ((i = extreme(&p, "trace_mfu", 1, NULL, 0)) != SIZE_MAX)
		out[n++] = (struct opmfu_rank_shown){ i, OPMFU_ROLE_BEST };
	if ((i = extreme(&p, "trace_mfu", 0, NULL, 0)) != SIZE_MAX)
		out[n++] = (struct opmfu_rank_shown){ i, OPMFU_ROLE_WORST };
	/* the slowest skip only each other: a slow rank may also be the worst */
	for (j = 0; j < OPMFU_SLOW_RANKS; j++) {
		struct opmfu_rank_shown slow[OPMFU_SLOW_RANKS] = { { 0, OPMFU_ROLE_SLOW } };
		size_t k, m = 0;
		for (k = 0; k < n; k++)
			if (out[k].role == OPMFU_ROLE_SLOW)
				slow[m++] = out[k];
		if ((i = extreme(&p, "step_ns_median", 1, slow, m)) == SIZE_MAX)
			break;
		out[n++] = (struct opmfu_rank_shown){ i, OPMFU_ROLE_SLOW };
	}
	return n;
}
