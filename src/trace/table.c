/*
 * table.c - the cell store: a table kept as cells, texts in blocks that
 * never move (a text's address is what the SQLite writer compares).
 */
#include "trace/table.h"

#include <math.h>
#include <string.h>

#include "base/mem.h"

#define BLOCK_MIN 4096
#define BLOCK_MAX (1u << 20)

struct opmfu_text_block {
	struct opmfu_text_block *next;
	size_t used, cap;
	char data[];
};

void opmfu_cell_store_init(struct opmfu_cell_store *cs, const struct opmfu_table_def *def)
{
	memset(cs, 0, sizeof(*cs));
	cs->def = def;
}

void opmfu_cell_store_release(struct opmfu_cell_store *cs)
{
	struct opmfu_text_block *b = cs->blocks, *next;
	for (; b; b = next) {
		next = b->next;
		opmfu_free(b);
	}
	opmfu_free(cs->cells);
	opmfu_cell_store_init(cs, cs->def);
}

/* A copy of s[0..n), NUL-terminated (so a writer needs no copy to end it), or NULL. */
void opmfu_cell_store_clear(struct opmfu_cell_store *cs)
{
	struct opmfu_text_block *b = cs->blocks, *next;
	if (b) {
		/* the newest block is the largest (they double): it stays, emptied */
		for (next = b->next; next; next = b->next) {
			b->next = next->next;
			opmfu_free(next);
		}
		b->used = 0;
	}
	cs->n_rows = 0;
}

static const char *copy_text(struct opmfu_cell_store *cs, const char *s, size_t n)
{
	struct opmfu_text_block *b = cs->blocks;
	char *p;

	if (!b || b->cap - b->used < n + 1) {
		/* blocks double up to BLOCK_MAX; a longer text gets a block of its own */
		size_t cap = b ? b->cap * 2 : BLOCK_MIN;
		if (cap > BLOCK_MAX)
			cap = BLOCK_MAX;
		if (cap < n + 1)
			cap = n + 1;
		if (cap > (size_t)-1 - sizeof(*b) || !(b = opmfu_malloc(sizeof(*b) + cap)))
			return NULL;
		b->used = 0;
		b->cap = cap;
		b->next = cs->blocks;
		cs->blocks = b;
	}
	p = b->data + b->used;
	memcpy(p, s, n);
	p[n] = '\0';
	b->used += n + 1;
	return p;
}

enum opmfu_status opmfu_cell_store_add(struct opmfu_cell_store *cs, const struct opmfu_cell *row,
				       struct opmfu_err *err)
{
	size_t nc = cs->def->n_cols, c;
	struct opmfu_cell *out;

	if (OPMFU_GROW(cs->cells, cs->cap, (cs->n_rows + 1) * nc))
		goto nomem;
	out = cs->cells + cs->n_rows * nc;
	for (c = 0; c < nc; c++) {
		out[c] = row[c];
		if ((cs->def->cols[c].type != OPMFU_COL_TEXT && cs->def->cols[c].type != OPMFU_COL_BLOB) || row[c].null)
			continue;
		if (!row[c].v.t.s) {
			out[c] = opmfu_cell_null();
			continue;
		}
		/* a failed copy leaves the bytes already copied unused: the row is not counted */
		if (!(out[c].v.t.s = copy_text(cs, row[c].v.t.s, row[c].v.t.n)))
			goto nomem;
	}
	cs->n_rows++;
	return OPMFU_OK;
nomem:
	return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory adding a row to %s", cs->def->name);
}

enum opmfu_status opmfu_cell_store_add_table(struct opmfu_cell_store *cs, const struct opmfu_table *t,
					     struct opmfu_err *err)
{
	return opmfu_cell_store_add_rows(cs, t, NULL, NULL, err);
}

enum opmfu_status opmfu_cell_store_add_rows(struct opmfu_cell_store *cs, const struct opmfu_table *t,
					    int (*keep)(const struct opmfu_cell *row, const void *ctx), const void *ctx,
					    struct opmfu_err *err)
{
	size_t n0 = cs->n_rows, i;
	struct opmfu_cell *row;
	enum opmfu_status st = OPMFU_OK;

	if (t->def != cs->def)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "rows of %s given to a store of %s", t->def->name,
				     cs->def->name);
	if (!t->n_rows)
		return OPMFU_OK;
	if (!(row = opmfu_calloc(cs->def->n_cols, sizeof(*row))))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory adding a row to %s", cs->def->name);
	for (i = 0; i < t->n_rows && st == OPMFU_OK; i++) {
		t->row(t->src, i, row);
		if (!keep || keep(row, ctx))
			st = opmfu_cell_store_add(cs, row, err);
	}
	opmfu_free(row);
	if (st)
		opmfu_cell_store_truncate(cs, n0);
	return st;
}

struct opmfu_cell *opmfu_cell_store_extend(struct opmfu_cell_store *cs, size_t n)
{
	size_t nc = cs->def->n_cols;
	struct opmfu_cell *out;

	if (n > ((size_t)-1 / sizeof(*out) - cs->n_rows) / (nc ? nc : 1) ||
	    OPMFU_GROW(cs->cells, cs->cap, (cs->n_rows + n) * nc))
		return NULL;
	out = cs->cells + cs->n_rows * nc;
	cs->n_rows += n;
	return out;
}

void opmfu_cell_store_truncate(struct opmfu_cell_store *cs, size_t n)
{
	if (n < cs->n_rows)
		cs->n_rows = n;
}

static void store_row(const void *src, size_t i, struct opmfu_cell *cells)
{
	const struct opmfu_cell_store *cs = src;
	memcpy(cells, cs->cells + i * cs->def->n_cols, cs->def->n_cols * sizeof(*cells));
}

struct opmfu_table opmfu_cell_store_table(const struct opmfu_cell_store *cs)
{
	struct opmfu_table t = { cs->def, cs->n_rows, store_row, cs };
	return t;
}

int opmfu_table_col(const struct opmfu_table_def *def, const char *name)
{
	size_t c;
	for (c = 0; def && name && c < def->n_cols; c++)
		if (!strcmp(def->cols[c].name, name))
			return (int)c;
	return -1;
}

double opmfu_cell_num(const struct opmfu_table_def *def, const struct opmfu_cell *row, int col)
{
	if (col < 0 || row[col].null)
		return NAN;
	switch (def->cols[col].type) {
	case OPMFU_COL_INT:
		return (double)row[col].v.i;
	case OPMFU_COL_REAL:
		return row[col].v.r;
	default:
		return NAN;
	}
}
