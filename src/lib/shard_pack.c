/*
 * shard_pack.c - a shard result's ranks packed (SPEC 22, docs/scale.md).
 *
 * `opmfu merge` reads back, rank by rank, the rows of the tables it puts
 * (opmfu_shard_split with every writer copying): reading them cell by cell
 * through SQLite was a quarter of its time. So `analyze --shard` also writes
 * each rank's rows of those tables, with the columns the merge reads, as one
 * blob of its own (OpmfuShardPack), and the layout it packed them in as a
 * text (OpmfuShardPackLayout), which the merge checks before it decodes a
 * blob straight into its cell stores.
 *
 * A blob: per table of the layout, in its order, a varint row count, then
 * per row per packed column a tag and the value: 0 NULL; 1 an integer,
 * zigzag varint; 2 a double, 8 bytes little-endian; 3 a text, a varint
 * length, the bytes and a NUL (the merge's cells point into the blob, and
 * a cell store's texts end in a NUL); 4 the row before's value. Values
 * are packed as the database stores them (a NaN is NULL, -0 is 0), so the
 * merge sees what the cursor over the tables would give.
 */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "base/mem.h"
#include "base/sbuf.h"
#include "lib/lib.h"

/* the blob's form; OpmfuShardPackLayout.format */
#define PACK_FORMAT 1
#define MAX_PACK_COLS 256

/* TAG_SAME: the value of the row before, same column (most of a rank's collective calls
 * repeat the call before's kind, name, group, dtype, step...) */
enum { TAG_NULL, TAG_INT, TAG_REAL, TAG_TEXT, TAG_SAME };

static const struct opmfu_column pack_cols[] = {
	{ "rank_id", OPMFU_COL_INT, "Rank ID", 0, 0 },
	{ "pack", OPMFU_COL_BLOB, "Pack", 0, 0 },
};
const struct opmfu_table_def opmfu_shard_pack_def = { "OpmfuShardPack", pack_cols, 2, NULL, OPMFU_TABLE_INTERNAL,
						      NULL };

static const struct opmfu_column layout_cols[] = {
	{ "format", OPMFU_COL_INT, "Format", 0, 0 },
	{ "layout", OPMFU_COL_TEXT, "Layout", 0, 0 },
};
const struct opmfu_table_def opmfu_shard_layout_def = { "OpmfuShardPackLayout", layout_cols, 2, NULL,
							OPMFU_TABLE_INTERNAL, NULL };

/* ---- the layout ---- */

struct pack_tab {
	const struct opmfu_table_def *def;
	unsigned short col[MAX_PACK_COLS]; /* the def's columns packed, in order */
	unsigned char tag[MAX_PACK_COLS];  /* the tag of their values */
	size_t n_col;
	unsigned short other[MAX_PACK_COLS]; /* the def's columns not packed: NULL in the merge */
	size_t n_other;
	int rank_at; /* rank_id's place among them */
};

static struct pack_tab tabs[OPMFU_MAX_RANK_TABS];
static size_t n_tabs;
static struct sbuf layout;
static pthread_once_t layout_once = PTHREAD_ONCE_INIT;

static const char type_letter[] = { 'I', 'R', 'T', 'B' };

/* What the merge reads with every writer copying (the database output):
 * "OpmfuModules(rank_id I,module T,...);..." */
static void make_layout(void)
{
	struct opmfu_shard_split sp;
	size_t k, c;

	opmfu_shard_split(1, 0, &sp);
	sbuf_init(&layout);
	for (k = 0; k < sp.n_defs; k++) {
		struct pack_tab *pt = &tabs[n_tabs++];
		pt->def = sp.defs[k];
		pt->rank_at = -1;
		sbuf_addf(&layout, "%s%s(", k ? ";" : "", pt->def->name);
		for (c = 0; c < pt->def->n_cols && pt->n_col < MAX_PACK_COLS; c++) {
			/* the rows are the rank's by their rank_id, as the cursor's are (read/results.c) */
			if (!opmfu_shard_wants(&sp, k, pt->def->cols[c].name) && strcmp(pt->def->cols[c].name, "rank_id")) {
				pt->other[pt->n_other++] = (unsigned short)c;
				continue;
			}
			if (!strcmp(pt->def->cols[c].name, "rank_id"))
				pt->rank_at = (int)pt->n_col;
			sbuf_addf(&layout, "%s%s %c", pt->n_col ? "," : "", pt->def->cols[c].name,
				  type_letter[pt->def->cols[c].type]);
			pt->tag[pt->n_col] = pt->def->cols[c].type == OPMFU_COL_INT    ? TAG_INT
					     : pt->def->cols[c].type == OPMFU_COL_REAL ? TAG_REAL
										       : TAG_TEXT;
			pt->col[pt->n_col++] = (unsigned short)c;
		}
		sbuf_adds(&layout, ")");
	}
}

const char *opmfu_shard_pack_layout(void)
{
	pthread_once(&layout_once, make_layout);
	return layout.oom ? "" : layout.buf;
}

static void layout_row(const void *src, size_t i, struct opmfu_cell *c)
{
	(void)src;
	(void)i;
	c[0] = opmfu_cell_int(PACK_FORMAT);
	c[1] = opmfu_cell_str(opmfu_shard_pack_layout());
}

struct opmfu_table opmfu_shard_layout_table(void)
{
	struct opmfu_table t = { &opmfu_shard_layout_def, 1, layout_row, NULL };
	return t;
}

/* The part of the layout text of table k ("Name(...)"), into *s and *n;
 * 0 past the last. */
static int layout_part(const char *text, size_t k, const char **s, size_t *n)
{
	const char *p = text, *e;
	while (k-- > 0) {
		if (!(p = strchr(p, ';')))
			return 0;
		p++;
	}
	e = strchr(p, ';');
	*s = p;
	*n = e ? (size_t)(e - p) : strlen(p);
	return *n > 0;
}

enum opmfu_status opmfu_shard_pack_check(const char *path, int64_t format, const char *text, struct opmfu_err *err)
{
	const char *want = opmfu_shard_pack_layout(), *a, *b;
	size_t k, na, nb;

	if (format != PACK_FORMAT)
		return opmfu_err_set(err, OPMFU_ERR_SCHEMA, "%s: OpmfuShardPackLayout: format %lld, not %d: a shard of "
				     "another opmfu; analyse it again with this one", path, (long long)format,
				     PACK_FORMAT);
	if (!strcmp(want, text))
		return OPMFU_OK;
	/* name the first table packed otherwise */
	for (k = 0;; k++) {
		int ha = layout_part(text, k, &a, &na), hb = layout_part(want, k, &b, &nb);
		if (ha && hb && na == nb && !memcmp(a, b, na))
			continue;
		if (!ha)
			a = "", na = 0;
		if (!hb)
			return opmfu_err_set(err, OPMFU_ERR_SCHEMA, "%s: OpmfuShardPackLayout: the pack is not laid out as "
					     "this opmfu's (from '%.*s'): a shard of another opmfu; analyse it again with "
					     "this one", path, (int)(na > 200 ? 200 : na), a);
		return opmfu_err_set(err, OPMFU_ERR_SCHEMA, "%s: OpmfuShardPackLayout: table %.*s is not packed as this "
				     "opmfu packs it ('%.*s'): a shard of another opmfu; analyse it again with this one",
				     path, (int)strcspn(b, "("), b, (int)(na > 200 ? 200 : na), a);
	}
}

/* ---- packing (analyze --shard) ---- */

struct bytes {
	unsigned char *p;
	size_t n, cap;
};

struct opmfu_shard_pack {
	struct bytes part[OPMFU_MAX_RANK_TABS]; /* the rank's rows of tabs[k] so far */
	size_t rows[OPMFU_MAX_RANK_TABS];
	struct bytes blob;
	int rank;
};

struct opmfu_shard_pack *opmfu_shard_pack_new(void)
{
	pthread_once(&layout_once, make_layout);
	return opmfu_calloc(1, sizeof(struct opmfu_shard_pack));
}

void opmfu_shard_pack_free(struct opmfu_shard_pack *p)
{
	size_t k;
	if (!p)
		return;
	for (k = 0; k < OPMFU_MAX_RANK_TABS; k++)
		opmfu_free(p->part[k].p);
	opmfu_free(p->blob.p);
	opmfu_free(p);
}

static unsigned char *put_varint(unsigned char *o, uint64_t v)
{
	while (v >= 0x80) {
		*o++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*o++ = (unsigned char)v;
	return o;
}

/* Whether the database stores c, of a column of that type, as NULL (a NaN too). */
static int packed_null(const struct opmfu_cell *c, int type)
{
	return c->null || ((type == OPMFU_COL_TEXT || type == OPMFU_COL_BLOB) && !c->v.t.s) ||
	       (type == OPMFU_COL_REAL && isnan(c->v.r));
}

/* Whether a and b, both packed as values, are packed alike (-0 is 0). */
static int same_value(const struct opmfu_cell *a, const struct opmfu_cell *b, int type)
{
	switch (type) {
	case OPMFU_COL_INT:
		return a->v.i == b->v.i;
	case OPMFU_COL_REAL:
		return !memcmp(&a->v.r, &b->v.r, sizeof(double)) || (a->v.r == 0 && b->v.r == 0);
	default:
		return a->v.t.n == b->v.t.n && !memcmp(a->v.t.s, b->v.t.s, a->v.t.n);
	}
}

/* One cell of a column of type `type` at o (room for it made); past it.
 * prev: the row before's cell of the column, or NULL. */
static unsigned char *put_cell(unsigned char *o, const struct opmfu_cell *c, const struct opmfu_cell *prev, int type)
{
	double r;
	uint64_t bits;
	int i;

	if (packed_null(c, type)) {
		*o++ = TAG_NULL; /* the database stores a NaN as NULL */
		return o;
	}
	if (prev && !packed_null(prev, type) && same_value(c, prev, type)) {
		*o++ = TAG_SAME;
		return o;
	}
	switch (type) {
	case OPMFU_COL_INT:
		*o++ = TAG_INT;
		return put_varint(o, (uint64_t)c->v.i << 1 ^ (uint64_t)(c->v.i >> 63));
	case OPMFU_COL_REAL:
		r = c->v.r == 0 ? 0.0 : c->v.r; /* and -0 as 0 */
		memcpy(&bits, &r, sizeof(bits));
		*o++ = TAG_REAL;
		for (i = 0; i < 8; i++)
			*o++ = (unsigned char)(bits >> 8 * i);
		return o;
	default:
		*o++ = TAG_TEXT;
		o = put_varint(o, c->v.t.n);
		memcpy(o, c->v.t.s, c->v.t.n);
		o += c->v.t.n;
		*o++ = 0;
		return o;
	}
}

enum opmfu_status opmfu_shard_pack_add(struct opmfu_shard_pack *p, const struct opmfu_table *t, struct opmfu_err *err)
{
	/* this row's cells and the row before's, in turn: t's texts live as long as t */
	struct opmfu_cell c[2][MAX_PACK_COLS];
	size_t k, i, j;

	for (k = 0; k < n_tabs && tabs[k].def != t->def; k++)
		;
	if (k == n_tabs || !t->n_rows)
		return OPMFU_OK;
	if (t->def->n_cols > MAX_PACK_COLS)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "table %s has more than %d columns to pack", t->def->name,
				     MAX_PACK_COLS);
	for (i = 0; i < t->n_rows; i++) {
		struct bytes *b = &p->part[k];
		struct opmfu_cell *now = c[i & 1], *before = c[(i & 1) ^ 1];
		size_t room = 0;
		unsigned char *o;
		t->row(t->src, i, now);
		/* the most a row takes: a tag, then 10 bytes of varint or 8 of a double, a text's bytes and NUL */
		for (j = 0; j < tabs[k].n_col; j++) {
			const struct opmfu_cell *x = &now[tabs[k].col[j]];
			int type = t->def->cols[tabs[k].col[j]].type;
			room += 11 + ((type == OPMFU_COL_TEXT || type == OPMFU_COL_BLOB) && !x->null ? x->v.t.n + 1 : 0);
		}
		if (OPMFU_GROW(b->p, b->cap, b->n + room))
			return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory packing %s", t->def->name);
		o = b->p + b->n;
		/* the first row of a put refers to no row before: the put before's texts may be gone */
		for (j = 0; j < tabs[k].n_col; j++)
			o = put_cell(o, &now[tabs[k].col[j]], i ? &before[tabs[k].col[j]] : NULL,
				     t->def->cols[tabs[k].col[j]].type);
		b->n = (size_t)(o - b->p);
		p->rows[k]++;
	}
	return OPMFU_OK;
}

void opmfu_shard_pack_drop(struct opmfu_shard_pack *p)
{
	size_t k;
	for (k = 0; k < n_tabs; k++)
		p->part[k].n = p->rows[k] = 0;
}

static void pack_row(const void *src, size_t i, struct opmfu_cell *c)
{
	const struct opmfu_shard_pack *p = src;
	(void)i;
	c[0] = opmfu_cell_int(p->rank);
	c[1] = opmfu_cell_text((const char *)p->blob.p, p->blob.n);
}

enum opmfu_status opmfu_shard_pack_take(struct opmfu_shard_pack *p, int rank, struct opmfu_table *t,
					struct opmfu_err *err)
{
	size_t k, need = 0;
	unsigned char *o;

	for (k = 0; k < n_tabs; k++)
		need += 10 + p->part[k].n;
	if (OPMFU_GROW(p->blob.p, p->blob.cap, need + 1))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory packing rank %d", rank);
	o = p->blob.p;
	for (k = 0; k < n_tabs; k++) {
		o = put_varint(o, p->rows[k]);
		if (p->part[k].n)
			memcpy(o, p->part[k].p, p->part[k].n);
		o += p->part[k].n;
	}
	p->blob.n = (size_t)(o - p->blob.p);
	p->rank = rank;
	opmfu_shard_pack_drop(p);
	t->def = &opmfu_shard_pack_def;
	t->n_rows = 1;
	t->row = pack_row;
	t->src = p;
	return OPMFU_OK;
}

/* ---- unpacking (opmfu merge) ---- */

struct unpack {
	const unsigned char *p, *end;
	const char *path;
	int rank;
	const struct pack_tab *tab;
	size_t row; /* 1-based */
	struct opmfu_err *err;
};

static enum opmfu_status bad(struct unpack *u, int col, const char *what)
{
	if (!u->tab)
		return opmfu_err_set(u->err, OPMFU_ERR_FORMAT, "%s: OpmfuShardPack, rank %d: %s", u->path, u->rank, what);
	if (col < 0)
		return opmfu_err_set(u->err, OPMFU_ERR_FORMAT, "%s: OpmfuShardPack, rank %d: table %s: %s", u->path,
				     u->rank, u->tab->def->name, what);
	return opmfu_err_set(u->err, OPMFU_ERR_FORMAT, "%s: OpmfuShardPack, rank %d: table %s row %zu, %s: %s",
			     u->path, u->rank, u->tab->def->name, u->row, u->tab->def->cols[u->tab->col[col]].name,
			     what);
}

/* 0, or -1 when the varint runs past the end or past 64 bits. */
static int get_varint(struct unpack *u, uint64_t *v)
{
	unsigned shift = 0;
	*v = 0;
	while (u->p < u->end && shift < 64) {
		unsigned char b = *u->p++;
		if (shift == 63 && b > 1)
			return -1;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
		shift += 7;
	}
	return -1;
}

/* Cell j of the current row into *c (its tag read, not NULL). */
static inline enum opmfu_status get_cell(struct unpack *u, size_t j, unsigned tag, struct opmfu_cell *c)
{
	uint64_t v, bits = 0;
	int i;

	if (tag != u->tab->tag[j])
		return bad(u, (int)j, tag > TAG_SAME ? "a value of no known type (tag past 4)"
				      : u->tab->tag[j] == TAG_INT ? "not an integer"
				      : u->tab->tag[j] == TAG_REAL ? "not a number" : "not a text");
	switch (tag) {
	case TAG_INT:
		/* most are small: one byte */
		if (u->p < u->end && *u->p < 0x80)
			v = *u->p++;
		else if (get_varint(u, &v))
			return bad(u, (int)j, "an integer that runs past the pack's end or 64 bits");
		c->v.i = (int64_t)(v >> 1 ^ (0 - (v & 1)));
		break;
	case TAG_REAL:
		if (u->end - u->p < 8)
			return bad(u, (int)j, "a number that runs past the pack's end");
		for (i = 0; i < 8; i++)
			bits |= (uint64_t)u->p[i] << 8 * i;
		u->p += 8;
		memcpy(&c->v.r, &bits, sizeof(bits));
		break;
	default:
		if (get_varint(u, &v) || v >= (uint64_t)(u->end - u->p) || u->p[v] != 0)
			return bad(u, (int)j, "a text whose length runs past the pack's end, or not ended by a NUL");
		c->v.t.s = (const char *)u->p;
		c->v.t.n = (size_t)v;
		u->p += v + 1;
		break;
	}
	c->null = 0;
	return OPMFU_OK;
}

enum opmfu_status opmfu_shard_pack_unpack(const char *path, int rank, const void *blob, size_t n,
					  const struct opmfu_shard_split *sp, struct opmfu_cell_store *cs,
					  struct opmfu_err *err)
{
	struct unpack u;
	unsigned char had[MAX_PACK_COLS]; /* the row before has a value in packed column j */
	size_t k, i, j, d;

	pthread_once(&layout_once, make_layout);
	u.p = blob;
	u.end = u.p + n;
	u.path = path;
	u.rank = rank;
	u.err = err;
	if (!blob)
		u.p = u.end = (const unsigned char *)"";
	for (d = 0; d < sp->n_defs; d++) {
		for (k = 0; k < n_tabs && tabs[k].def != sp->defs[d]; k++)
			;
		/* a caller's mistake (the merge reads packs only for what opmfu_shard_split(1, ...) reads) */
		if (k == n_tabs)
			return opmfu_err_set(err, OPMFU_ERR_USAGE, "%s: table %s is not in the pack", path,
					     sp->defs[d]->name);
		opmfu_cell_store_clear(&cs[d]);
	}
	for (k = 0; k < n_tabs; k++) {
		struct opmfu_cell *out = NULL;
		uint64_t rows;
		u.tab = &tabs[k];
		u.row = 0;
		if (get_varint(&u, &rows))
			return bad(&u, -1, "the pack ends before its row count");
		/* each row takes a byte per column at least: a count past that is junk */
		if (rows > (uint64_t)(u.end - u.p) / (tabs[k].n_col ? tabs[k].n_col : 1))
			return opmfu_err_set(err, OPMFU_ERR_FORMAT, "%s: OpmfuShardPack, rank %d: table %s: %llu rows, "
					     "more than the %zu bytes left of the pack could hold", path, rank,
					     tabs[k].def->name, (unsigned long long)rows, (size_t)(u.end - u.p));
		/* a table the merge does not read (--summary-only's detail tables) is skipped */
		for (d = 0; d < sp->n_defs && sp->defs[d] != tabs[k].def; d++)
			;
		if (d < sp->n_defs && rows && !(out = opmfu_cell_store_extend(&cs[d], (size_t)rows)))
			return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory reading rank %d's %s", path, rank,
					     tabs[k].def->name);
		memset(had, 0, tabs[k].n_col);
		for (i = 0; i < rows; i++) {
			struct opmfu_cell *row = out ? out + i * tabs[k].def->n_cols : NULL, skip;
			enum opmfu_status st;
			u.row = i + 1;
			/* extend leaves the cells to be set: those not packed are NULL */
			for (j = 0; row && j < tabs[k].n_other; j++)
				row[tabs[k].other[j]] = opmfu_cell_null();
			for (j = 0; j < tabs[k].n_col; j++) {
				unsigned tag;
				if (u.p >= u.end)
					return bad(&u, (int)j, "the pack ends before it");
				tag = *u.p++;
				if (tag == TAG_SAME) {
					if (!had[j])
						return bad(&u, (int)j, "the value of the row before, which has none");
					if (row) /* the row before's cell: had[j] says there is one */
						row[tabs[k].col[j]] = (row - tabs[k].def->n_cols)[tabs[k].col[j]];
					continue;
				}
				had[j] = tag != TAG_NULL;
				if (tag == TAG_NULL) {
					if (row)
						row[tabs[k].col[j]] = opmfu_cell_null();
				} else if ((st = get_cell(&u, j, tag, row ? &row[tabs[k].col[j]] : &skip))) {
					return st;
				}
			}
			/* the cursor reads a rank's rows by their rank_id: the pack's must be its own */
			if (row && tabs[k].rank_at >= 0 && (row[tabs[k].col[tabs[k].rank_at]].null ||
				    row[tabs[k].col[tabs[k].rank_at]].v.i != rank))
				return bad(&u, tabs[k].rank_at, "not the pack's rank");
		}
	}
	u.tab = NULL;
	if (u.p != u.end)
		return bad(&u, -1, "bytes after its last table");
	return OPMFU_OK;
}
