/*
 * summary.c - the tables of the summary workbook, gathered by name over a
 * run (write/summary.h). It keeps their rows as they are: no median, sum or
 * order of its own (SPEC 16).
 */
#include "write/summary.h"

#include <math.h>
#include <string.h>


static const char *const names[OPMFU_SUM_N] = {
	"OpmfuRankSummary", "OpmfuSteps", "OpmfuRun", "OpmfuHotspots", "OpmfuStragglers", "OpmfuDiff", "OpmfuModel",
};

/* OpmfuModel's run rows (rank_id NULL; ctx: that column): a rank's rows
 * per step and convention are the database's, not a view's. */
static int run_row(const struct opmfu_cell *row, const void *ctx)
{
	int rank = *(const int *)ctx;
	return rank < 0 || row[rank].null;
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
	if (cs == &s->t[OPMFU_SUM_MODEL]) {
		int rank = opmfu_table_col(t->def, "rank_id");
		return opmfu_cell_store_add_rows(cs, t, run_row, &rank, err);
	}
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

/* OpmfuStragglers.measure as the views name it. */
static const struct {
	const char *measure, *label;
} measures[] = {
	{ "step_ns_median", "Slowest step time (ms)" },
	{ "trace_mfu", "Lowest trace MFU" },
	{ "share_inefficiency", "Most FLOP kernels below peak" },
	{ "share_other_compute", "Most busy without FLOPs" },
	{ "share_comm", "Most exposed communication" },
	{ "share_idle", "Most idle" },
	/* the culprit (SPEC 19): ns, so shown in ms */
	{ "comm_wait_caused_ns", "Others waited for this rank (ms)" },
};

const char *opmfu_summary_measure(const char *m, size_t len, int *ns)
{
	const char *label = NULL;
	size_t k;
	*ns = 0;
	/* a time (..._ns) in ms, a ratio in % */
	for (k = 0; m && k + 3 <= len; k++)
		*ns |= !memcmp(m + k, "_ns", 3);
	for (k = 0; m && k < sizeof(measures) / sizeof(measures[0]); k++)
		if (strlen(measures[k].measure) == len && !memcmp(measures[k].measure, m, len))
			label = measures[k].label;
	return label;
}
