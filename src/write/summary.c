/*
 * summary.c - the tables of the summary workbook, gathered by name over a
 * run (write/summary.h). It keeps their rows as they are: no median, sum or
 * order of its own (SPEC 16).
 */
#include "write/summary.h"

#include <math.h>
#include <string.h>

#include "base/mem.h"

static const char *const names[OPMFU_SUM_N] = {
	"OpmfuRankSummary", "OpmfuSteps", "OpmfuRun", "OpmfuHotspots", "OpmfuStragglers", "OpmfuDiff", "OpmfuModel",
};

/* OpmfuModel's run rows (rank_id NULL) of t: a rank's rows per step and
 * convention are the database's, not a view's. */
static enum opmfu_status add_run_rows(struct opmfu_cell_store *cs, const struct opmfu_table *t, struct opmfu_err *err)
{
	int rank = opmfu_table_col(t->def, "rank_id");
	size_t n0 = cs->n_rows, i;
	struct opmfu_cell *row;
	enum opmfu_status st = OPMFU_OK;

	if (!t->n_rows)
		return OPMFU_OK;
	if (!(row = opmfu_calloc(t->def->n_cols, sizeof(*row))))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory adding a row to %s", t->def->name);
	for (i = 0; i < t->n_rows && st == OPMFU_OK; i++) {
		t->row(t->src, i, row);
		if (rank < 0 || row[rank].null)
			st = opmfu_cell_store_add(cs, row, err);
	}
	opmfu_free(row);
	if (st)
		opmfu_cell_store_truncate(cs, n0);
	return st;
}

const char *opmfu_summary_table_name(enum opmfu_sum_table t)
{
	return t < OPMFU_SUM_N ? names[t] : "?";
}

void opmfu_summary_init(struct opmfu_summary *s)
{
	size_t k;
	memset(s, 0, sizeof(*s));
	for (k = 0; k < OPMFU_SUM_N; k++)
		opmfu_cell_store_init(&s->t[k], NULL);
	s->stream_cells = OPMFU_SUMMARY_STREAM_CELLS;
}

void opmfu_summary_release(struct opmfu_summary *s)
{
	size_t k;
	for (k = 0; k < OPMFU_SUM_N; k++)
		opmfu_cell_store_release(&s->t[k]);
	opmfu_summary_init(s);
}

size_t opmfu_summary_rows(const struct opmfu_summary *s, enum opmfu_sum_table k)
{
	return s->t[k].def ? s->kept[k] : 0;
}

double opmfu_sum_value(const struct opmfu_summary *s, enum opmfu_sum_table k, size_t i, const char *col)
{
	const struct opmfu_table_def *def = s->t[k].def;
	if (!def || i >= s->kept[k])
		return NAN;
	return opmfu_cell_num(def, s->t[k].cells + i * def->n_cols, opmfu_table_col(def, col));
}

const char *opmfu_sum_text(const struct opmfu_summary *s, enum opmfu_sum_table k, size_t i, const char *col,
			   size_t *n)
{
	const struct opmfu_table_def *def = s->t[k].def;
	const struct opmfu_cell *c;
	int at = opmfu_table_col(def, col);

	*n = 0;
	if (at < 0 || i >= s->kept[k] || def->cols[at].type != OPMFU_COL_TEXT)
		return NULL;
	c = &s->t[k].cells[i * def->n_cols + (size_t)at];
	if (c->null)
		return NULL;
	*n = c->v.t.n;
	return c->v.t.s;
}

enum opmfu_status opmfu_summary_add(struct opmfu_summary *s, const struct opmfu_table *t, struct opmfu_err *err)
{
	struct opmfu_cell_store *cs = NULL;
	size_t k;

	for (k = 0; k < OPMFU_SUM_N && !cs; k++)
		if (!strcmp(t->def->name, names[k]))
			cs = &s->t[k];
	if (!cs)
		return OPMFU_OK;
	/* a store takes the def of the first table given to it */
	if (!cs->def)
		cs->def = t->def;
	if (cs->def != t->def)
		return opmfu_err_set(err, OPMFU_ERR_SCHEMA, "table %s given with two different column layouts",
				     t->def->name);
	return cs == &s->t[OPMFU_SUM_MODEL] ? add_run_rows(cs, t, err) : opmfu_cell_store_add_table(cs, t, err);
}

enum opmfu_status opmfu_summary_keep(struct opmfu_summary *s, struct opmfu_err *err)
{
	size_t k;
	(void)err;
	for (k = 0; k < OPMFU_SUM_N; k++)
		s->kept[k] = s->t[k].n_rows;
	return OPMFU_OK;
}

void opmfu_summary_drop(struct opmfu_summary *s)
{
	size_t k;
	for (k = 0; k < OPMFU_SUM_N; k++)
		opmfu_cell_store_truncate(&s->t[k], s->kept[k]);
}

int opmfu_summary_has_run(const struct opmfu_summary *s)
{
	size_t k;
	for (k = 0; k < OPMFU_SUM_N; k++)
		if (k != OPMFU_SUM_DIFF && k != OPMFU_SUM_MODEL && s->t[k].def)
			return 1;
	return 0;
}

int opmfu_summary_seen(const struct opmfu_summary *s)
{
	return opmfu_summary_has_run(s) || s->t[OPMFU_SUM_DIFF].def;
}

/* The median rank's bandwidth in TB/s (OpmfuRun.peak_bw_tbps where the run has it); NaN: none. */
double opmfu_summary_run_bw(const struct opmfu_summary *s)
{
	double bw = opmfu_sum_value(s, OPMFU_SUM_RUN, 0, "peak_bw_tbps"), med;
	size_t i, n = opmfu_summary_rows(s, OPMFU_SUM_RANKS);

	if (!isnan(bw) || isnan(med = opmfu_sum_value(s, OPMFU_SUM_RUN, 0, "median_rank")))
		return bw;
	for (i = 0; i < n; i++)
		if (opmfu_sum_value(s, OPMFU_SUM_RANKS, i, "rank_id") == med)
			return opmfu_sum_value(s, OPMFU_SUM_RANKS, i, "peak_bw_tbps");
	return NAN;
}
