/*
 * operator_mfu.c - the OperatorMFU table: its columns, its rows in R order
 * and the one function that turns a row into cells.
 */
#include "reference/operator_mfu.h"

#include <string.h>

#include "base/mem.h"
#include "trace/parse.h"

/* Widths and flags are the workbook's (SPEC 4 names Op Name, Kernel Name,
 * Kernel Duration(ns) and MFU). The others are ours (SPEC 14: wide enough
 * for their headers and numbers): the timestamps hold 19-digit text; a
 * header gets its length plus 3 for the filter button (Rank ID 10,
 * actual_tflops 16, chip_peak_tflops 19); flops up to 16 digits (18); the
 * texts room for a typical record name (24) or shape list (30). */
static const struct opmfu_column cols[] = {
	{ "rank_id", OPMFU_COL_INT, "Rank ID", 10, 0 },
	{ "op_name", OPMFU_COL_TEXT, "Op Name", 40, 0 },
	{ "kernel_name", OPMFU_COL_TEXT, "Kernel Name", 50, 0 },
	{ "kernel_start(ns)", OPMFU_COL_INT, "Kernel Start(ns)", 21, OPMFU_COLF_BIG_INT_TEXT },
	{ "kernel_end(ns)", OPMFU_COL_INT, "Kernel End(ns)", 21, OPMFU_COLF_BIG_INT_TEXT },
	{ "kernel_duration(ns)", OPMFU_COL_INT, "Kernel Duration(ns)", 15, 0 },
	{ "mfu", OPMFU_COL_REAL, "MFU", 10, OPMFU_COLF_PERCENT | OPMFU_COLF_COLOR_SCALE },
	{ "actual_tflops", OPMFU_COL_REAL, "actual_tflops", 16, 0 },
	{ "chip_peak_tflops", OPMFU_COL_REAL, "chip_peak_tflops", 19, 0 },
	{ "flops", OPMFU_COL_INT, "flops", 18, 0 },
	{ "flops_op_name", OPMFU_COL_TEXT, "flops_op_name", 24, 0 },
	{ "input_shapes", OPMFU_COL_TEXT, "input_shapes", 30, 0 },
	{ "output_shapes", OPMFU_COL_TEXT, "output_shapes", 30, 0 },
};

const struct opmfu_table_def opmfu_operator_mfu_def = {
	"OperatorMFU", cols, sizeof(cols) / sizeof(cols[0]), "operator_mfu_kernel", OPMFU_TABLE_DETAIL, NULL,
};

enum opmfu_status opmfu_operator_mfu_build(struct opmfu_operator_mfu *om, int rank, const struct opmfu_trace *t,
					   const struct opmfu_op_mfu *op, struct opmfu_err *err)
{
	size_t i, n = 0;

	memset(om, 0, sizeof(*om));
	om->t = t;
	om->op = op;
	om->rank = rank;
	if (op->stats.rows == 0)
		return OPMFU_OK;
	if (!(om->rows = opmfu_malloc(op->stats.rows * sizeof(*om->rows))))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory listing the OperatorMFU rows of rank %d",
				     rank);
	for (i = 0; i < op->n_r; i++) {
		uint32_t e = opmfu_op_mfu_first(op, t, &t->links[op->r[i]]);
		for (; e != OPMFU_NO_ENTRY && n < op->stats.rows; e = op->m[e].next)
			om->rows[n++] = (struct opmfu_operator_row){ op->r[i], e };
	}
	om->n_rows = n;
	return OPMFU_OK;
}

void opmfu_operator_mfu_release(struct opmfu_operator_mfu *om)
{
	opmfu_free(om->rows);
	om->rows = NULL;
	om->n_rows = 0;
}

static struct opmfu_cell sid_cell(const struct opmfu_trace *t, uint32_t sid)
{
	return opmfu_cell_text(opmfu_strtab_str(&t->strs, sid), opmfu_strtab_len(&t->strs, sid));
}

static void op_row(const void *src, size_t i, struct opmfu_cell *c)
{
	const struct opmfu_operator_mfu *om = src;
	const struct opmfu_trace *t = om->t;
	const struct opmfu_link *r = &t->links[om->rows[i].link];
	const struct opmfu_mfu_entry *m = &om->op->m[om->rows[i].entry];
	const struct opmfu_link *sl = &t->links[m->link];
	const struct opmfu_flops_fact *f = opmfu_op_mfu_fact(om->op, m);

	c[0] = opmfu_cell_int(om->rank);
	c[1] = sid_cell(t, r->op_name);
	c[2] = sid_cell(t, r->k_name);
	c[3] = opmfu_cell_int(r->k_start);
	c[4] = opmfu_cell_int(r->k_end);
	c[5] = opmfu_cell_int(r->k_end - r->k_start);
	c[6] = opmfu_cell_real(opmfu_round(opmfu_op_mfu_mfu(om->op, m), 4));
	c[7] = opmfu_cell_real(opmfu_round(opmfu_op_mfu_tput(om->op, m) / 1e12, 2));
	c[8] = opmfu_cell_real(opmfu_round(opmfu_op_mfu_peak(om->op, m) / 1e12, 2));
	c[9] = opmfu_cell_int(f->flops);
	c[10] = opmfu_cell_text(opmfu_strtab_str(&t->strs, f->name) + f->name_off,
				opmfu_strtab_len(&t->strs, f->name) - f->name_off);
	/* the reader gives shapes without their quotes */
	c[11] = sid_cell(t, sl->in_shapes);
	c[12] = sid_cell(t, sl->out_shapes);
}

struct opmfu_table opmfu_operator_mfu_table(const struct opmfu_operator_mfu *om)
{
	struct opmfu_table tab = { &opmfu_operator_mfu_def, om->n_rows, op_row, om };
	return tab;
}

/* ---- as a registered analysis (trace/analysis.h) ---- */

static void om_release(void *s)
{
	struct opmfu_operator_mfu_state *st = s;
	if (st->built)
		opmfu_operator_mfu_release(&st->om);
	st->built = 0;
}

/* The rows are built on the writer's thread, as they are written, while
 * the worker goes on with the op units. */
static enum opmfu_status om_tables(void *s, const struct opmfu_rank_ctx *ctx, struct opmfu_table *out, size_t *n,
				   struct opmfu_err *err)
{
	struct opmfu_operator_mfu_state *st = s;
	enum opmfu_status rc = opmfu_operator_mfu_build(&st->om, ctx->rank, ctx->trace, ctx->op, err);
	*n = 0;
	if (rc)
		return rc;
	st->built = 1;
	out[0] = opmfu_operator_mfu_table(&st->om);
	*n = 1;
	return OPMFU_OK;
}

static enum opmfu_status om_run(void *s, const struct opmfu_rank_ctx *ctx, struct opmfu_err *err)
{
	(void)s;
	(void)ctx;
	(void)err;
	return OPMFU_OK;
}

static const struct opmfu_table_def *const om_makes[] = { &opmfu_operator_mfu_def, NULL };

const struct opmfu_analysis opmfu_analysis_operator_mfu = {
	.name = "operator_mfu", .scope = OPMFU_PER_RANK, .stage = OPMFU_STAGE_OPS, .makes = om_makes,
	.state_size = sizeof(struct opmfu_operator_mfu_state), .release = om_release, .run = om_run,
	.tables = om_tables, .written = om_release,
};
