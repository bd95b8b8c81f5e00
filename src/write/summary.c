/*
 * summary.c - the tables of the summary workbook, gathered by name over a
 * run (write/summary.h). It keeps their rows as they are: no median, sum or
 * order of its own (SPEC 16).
 */
#include "write/summary.h"

#include <math.h>
#include <string.h>

static const char *const names[OPMFU_SUM_N] = {
	"OpmfuRankSummary", "OpmfuSteps", "OpmfuRun", "OpmfuHotspots", "OpmfuStragglers", "OpmfuDiff",
};

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
	return opmfu_cell_store_add_table(cs, t, err);
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
		if (k != OPMFU_SUM_DIFF && s->t[k].def)
			return 1;
	return 0;
}

int opmfu_summary_seen(const struct opmfu_summary *s)
{
	return opmfu_summary_has_run(s) || s->t[OPMFU_SUM_DIFF].def;
}
