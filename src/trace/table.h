/*
 * table.h - a result table between the analyses and the writers: its
 * definition (columns, names, presentation hints) and a row function that
 * turns row i into typed cells. An analysis produces its rows once, in a
 * compact form of its own, and its row function is the only place where a
 * row's cells are computed; writers only call it. Format-neutral: nothing
 * here knows a database or a workbook.
 */
#ifndef OPMFU_TABLE_H
#define OPMFU_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/err.h"

/* BLOB: bytes (a text cell's s and n) that only the database export stores:
 * a shard result's packed ranks (lib/shard_pack.c), no table of a run's */
enum opmfu_coltype { OPMFU_COL_INT, OPMFU_COL_REAL, OPMFU_COL_TEXT, OPMFU_COL_BLOB };

/* Presentation hints, for writers that lay a table out (xlsx); the database ignores them. */
enum opmfu_colflags {
	OPMFU_COLF_MERGE = 1 << 0,         /* equal consecutive cells merged vertically */
	OPMFU_COLF_MERGE_IN_PREV = 1 << 1, /* merged too, but only within the runs of the previous merged column */
	OPMFU_COLF_BIG_INT_TEXT = 1 << 2,  /* integers as decimal digits: epoch ns have 19, a sheet number 15-16 */
	OPMFU_COLF_PERCENT = 1 << 3,       /* a ratio shown as 0.00% */
	OPMFU_COLF_COLOR_SCALE = 1 << 4,   /* red-yellow-green fixed at 0, 0.5 and 1, the same in every file */
};

struct opmfu_column {
	const char *name;  /* the database column */
	enum opmfu_coltype type;
	const char *title; /* a sheet's header */
	double width;      /* a sheet's column width in characters; 0: the default */
	unsigned flags;    /* enum opmfu_colflags */
};

struct opmfu_table_def {
	const char *name; /* the database table */
	const struct opmfu_column *cols;
	size_t n_cols;
	/* "operator_mfu_kernel": one workbook DIR/operator_mfu_kernel_{rank}.xlsx
	 * per rank; NULL: no workbook */
	const char *xlsx_name;
	unsigned flags; /* enum opmfu_table_flags */
	/* NULL: the database stores it as a table of its columns; else how it
	 * stores it narrow, behind a view of its name (below) */
	const struct opmfu_store *store;
};

/* How the pool handles a table a per-rank analysis makes. */
enum opmfu_table_flags {
	/* held: the per-run analyses get the rank's rows, the writers do not; a per-run
	 * analysis completes them with what needs every rank and puts them at the run's
	 * end (OpmfuSteps: its waits matched across ranks, analyze/collectives.h) */
	OPMFU_TABLE_HELD = 1 << 0,
	/* internal: a per-rank analysis' message to a per-run one; never written */
	OPMFU_TABLE_INTERNAL = 1 << 1,
	/* detail: a per-op table (rows per op, kernel, module, shape): --summary-only does not
	 * write it, and the per-run analyses still read it, so the run account is unchanged */
	OPMFU_TABLE_DETAIL = 1 << 2,
};

/* One value, of its column's type. null: SQL NULL, an empty sheet cell. A
 * text need not be NUL-terminated. */
struct opmfu_cell {
	union {
		int64_t i;
		double r;
		struct {
			const char *s;
			size_t n;
		} t;
	} v;
	unsigned char null;
};

struct opmfu_table {
	const struct opmfu_table_def *def;
	size_t n_rows;
	/* Fills cells[0 .. def->n_cols) with row i (< n_rows). Texts point into
	 * src's data and stay valid and unchanged while src lives: writers keep
	 * them across rows (batched SQLite binds, merged ranges). */
	void (*row)(const void *src, size_t i, struct opmfu_cell *cells);
	const void *src;
};

/*
 * How the database stores a big table narrow (SPEC 24's output budget): its
 * rows in a table of stored columns, groups of columns that repeat (an op's
 * names and classes, a module path) once per rank in dimension tables of
 * their own with a row id in the row table, and under the table's name a
 * view that gives its columns back, computing those that follow from the
 * stored ones (a rate, a ratio) exactly as the row function does. Only the
 * database writer knows of it; every other writer takes the table's cells.
 */
struct opmfu_store_col {
	const char *name;
	enum opmfu_coltype type;
	unsigned dim;     /* 0: a column of the row table; k: of dims[k - 1] */
	unsigned char id; /* 1: the row table's column of dimension dim's id (the writer's cell) */
};

struct opmfu_store {
	const struct opmfu_table_def *def; /* the table it stores, a view of that name */
	const char *rows;                  /* the row table's name */
	const char *const *dims;           /* the dimension tables' names; each is (rank_id, id, its columns) */
	size_t n_dims;
	const struct opmfu_store_col *cols; /* what row() gives, in order; the row table's first is rank_id */
	size_t n_cols;
	/* The stored cells of a row from its cells vis (the cells of id columns
	 * are the writer's). src and i are the row's when the table is the
	 * analysis' own (its row function is own_row), so that values the cells
	 * do not hold can be stored; else src is NULL (opmfu merge puts rows read
	 * back from a shard) and the view must give the same cells without them. */
	void (*row)(const void *src, size_t i, const struct opmfu_cell *vis, struct opmfu_cell *out);
	void (*own_row)(const void *src, size_t i, struct opmfu_cell *cells);
};

/* Whether the store's cell k is a column of part: 0 the row table (its own
 * columns and the dimensions' ids), d its dimension d. */
static inline int opmfu_store_in(const struct opmfu_store *st, size_t k, unsigned part)
{
	return part ? st->cols[k].dim == part && !st->cols[k].id : st->cols[k].dim == 0 || st->cols[k].id;
}

static inline struct opmfu_cell opmfu_cell_int(int64_t v)
{
	struct opmfu_cell c = { { .i = v }, 0 };
	return c;
}

static inline struct opmfu_cell opmfu_cell_real(double v)
{
	struct opmfu_cell c = { { .r = v }, 0 };
	return c;
}

/* s[0..n); s NULL is a null cell */
static inline struct opmfu_cell opmfu_cell_text(const char *s, size_t n)
{
	struct opmfu_cell c = { { .t = { s, s ? n : 0 } }, !s };
	return c;
}

static inline struct opmfu_cell opmfu_cell_null(void)
{
	struct opmfu_cell c = { { .i = 0 }, 1 };
	return c;
}

/* a ratio or measure not known when < 0 (NULL then) */
static inline struct opmfu_cell opmfu_cell_known(double v)
{
	return v >= 0 ? opmfu_cell_real(v) : opmfu_cell_null();
}

/* a rate that is none when 0, such as a peak (NULL then) */
static inline struct opmfu_cell opmfu_cell_pos(double v)
{
	return v > 0 ? opmfu_cell_real(v) : opmfu_cell_null();
}

/* a NUL-terminated string; NULL is a null cell */
static inline struct opmfu_cell opmfu_cell_str(const char *s)
{
	return opmfu_cell_text(s, s ? strlen(s) : 0);
}

/* The index of def's column called name; -1 when it has none (or def is NULL). */
int opmfu_table_col(const struct opmfu_table_def *def, const char *name);

/* Cell col of row (a row of def) as a number: NaN when NULL, a text, or col < 0. */
double opmfu_cell_num(const struct opmfu_table_def *def, const struct opmfu_cell *row, int col);

/*
 * A table kept as cells, for the small tables built row by row. Texts are
 * copied into blocks of the store that never move, so a table over it keeps
 * the promise of struct opmfu_table.
 */
struct opmfu_cell_store {
	const struct opmfu_table_def *def;
	struct opmfu_cell *cells; /* n_rows x def->n_cols */
	size_t n_rows, cap;       /* cap: cells */
	struct opmfu_text_block *blocks;
};

void opmfu_cell_store_init(struct opmfu_cell_store *cs, const struct opmfu_table_def *def);
void opmfu_cell_store_release(struct opmfu_cell_store *cs);
/* No rows, its memory kept for the next (a merge's store of one rank after another). */
void opmfu_cell_store_clear(struct opmfu_cell_store *cs);

/* Appends a row of def->n_cols cells, copying their texts. On
 * OPMFU_ERR_NOMEM nothing was appended. */
enum opmfu_status opmfu_cell_store_add(struct opmfu_cell_store *cs, const struct opmfu_cell *row,
				       struct opmfu_err *err);

/* Appends every row of t (whose def must be the store's). On error the
 * store holds the rows it held before. */
enum opmfu_status opmfu_cell_store_add_table(struct opmfu_cell_store *cs, const struct opmfu_table *t,
					     struct opmfu_err *err);
/* The same for the rows of t that keep(row, ctx) takes (NULL: every row). */
enum opmfu_status opmfu_cell_store_add_rows(struct opmfu_cell_store *cs, const struct opmfu_table *t,
					    int (*keep)(const struct opmfu_cell *row, const void *ctx), const void *ctx,
					    struct opmfu_err *err);

/* Room for n more rows, counted, their cells not set: the caller sets every
 * one (filling them first was 5 % of a merge). Their texts are not copied,
 * so they must live as long as the rows (a merge's rows decoded from a
 * shard's pack point into it, lib/shard_pack.c). NULL out of memory (nothing
 * added). */
struct opmfu_cell *opmfu_cell_store_extend(struct opmfu_cell_store *cs, size_t n);

/* Keeps the first n rows (n <= n_rows): rows put for a rank that is then
 * dropped are taken back (their texts stay allocated until release). */
void opmfu_cell_store_truncate(struct opmfu_cell_store *cs, size_t n);

/* The table of the store's rows; valid until the store changes. */
struct opmfu_table opmfu_cell_store_table(const struct opmfu_cell_store *cs);

#endif
