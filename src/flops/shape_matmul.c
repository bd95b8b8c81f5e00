/*
 * shape_matmul.c - the matmul family: 2 x batch x M x N x K. aten ops have
 * fixed operand roles (mm: (M,K) @ (K,N)); Ascend kernels do not say
 * which operand is transposed, so every reading is tried and the one whose
 * K agrees (and whose M, N agree with the output) is taken.
 *
 * FRACTAL_NZ stores an (R, C) matrix as (..., C1, R1, R0, C0) with
 * C1 = ceil(C / C0), R1 = ceil(R / R0): R0 = 16, C0 = 16 for 16-bit types
 * (32 for 8-bit, 8 for fp32), the last four dims; R and C are read padded
 * up to R0 and C0. An extent that one operand gives padded and another
 * exactly is taken padded: the cube runs the padded matrix.
 */
#include "flops/shape_int.h"

/* A tensor read as a batch of matrices. */
struct mat {
	int64_t r, c;     /* rows, cols as stored (padded for FRACTAL_NZ) */
	int64_t ar, ac;   /* the units r and c are padded to (1: exact) */
	const int64_t *b; /* batch dims */
	size_t nb;
};

/* OK, MISMATCH (absent, rank too small) or OVERFLOW */
static enum opmfu_shape_status as_mat(struct sf_t t, enum sf_fmt f, struct mat *m)
{
	if (!t.present)
		return OPMFU_SHAPE_MISMATCH;
	if (f == SF_FRACTAL_NZ) {
		const int64_t *d;
		if (t.rank < 4)
			return OPMFU_SHAPE_MISMATCH;
		d = t.d + t.rank - 4;
		m->r = d[1];
		m->c = d[0];
		m->ar = d[2];
		m->ac = d[3];
		if (sf_mul(&m->r, d[2]) != 0 || sf_mul(&m->c, d[3]) != 0)
			return OPMFU_SHAPE_OVERFLOW;
		m->b = t.d;
		m->nb = t.rank - 4;
		return OPMFU_SHAPE_OK;
	}
	if (t.rank < 2)
		return OPMFU_SHAPE_MISMATCH;
	m->r = t.d[t.rank - 2];
	m->c = t.d[t.rank - 1];
	m->ar = m->ac = 1;
	m->b = t.d;
	m->nb = t.rank - 2;
	return OPMFU_SHAPE_OK;
}

/* k1 (padded to a1) and k2 (to a2) are one extent: equal, or one is the
 * other padded up to its unit. *k: the larger. */
static int agree(int64_t k1, int64_t a1, int64_t k2, int64_t a2, int64_t *k)
{
	if (k1 == k2 || (a1 > 1 && k1 > k2 && k1 - k2 < a1 && k1 % a1 == 0)) {
		*k = k1;
		return 1;
	}
	if (a2 > 1 && k2 > k1 && k2 - k1 < a2 && k2 % a2 == 0) {
		*k = k2;
		return 1;
	}
	return 0;
}

/* The product of batch dims a and b broadcast against each other
 * (right-aligned, 1 stretches): 0 with *p set, -1 when they do not
 * broadcast, -2 on overflow. */
static int bcast(const int64_t *a, size_t na, const int64_t *b, size_t nb, int64_t *p)
{
	size_t i, n = na > nb ? na : nb;
	int zero = 0;
	for (i = 0; i < n; i++) {
		int64_t x = i < na ? a[na - 1 - i] : 1, y = i < nb ? b[nb - 1 - i] : 1;
		if (x != y && x != 1 && y != 1)
			return -1;
		zero |= x == 0 || y == 0;
	}
	*p = 1;
	if (zero) {
		*p = 0;
		return 0;
	}
	for (i = 0; i < n; i++) {
		int64_t x = i < na ? a[na - 1 - i] : 1, y = i < nb ? b[nb - 1 - i] : 1;
		if (sf_mul(p, x > y ? x : y) != 0)
			return -2;
	}
	return 0;
}

/* 2 * batch * m * n * k into *flops */
static enum opmfu_shape_status mnk(int64_t batch, int64_t m, int64_t n, int64_t k, int64_t *flops)
{
	int64_t f[5] = { 2, batch, m, n, k };
	return sf_prod(flops, f, 5) == 0 ? OPMFU_SHAPE_OK : OPMFU_SHAPE_OVERFLOW;
}

/* ---- aten: fixed roles, no formats ---- */

/* mm/addmm (rank 2) and bmm/baddbmm (rank 3): A @ B, same batch */
static enum opmfu_shape_status fixed(const struct sf_call *k, size_t ia, size_t rank, int64_t *flops)
{
	struct sf_t a = sf_tensor(&k->in, ia), b = sf_tensor(&k->in, ia + 1);
	if (!a.present || !b.present || a.rank != rank || b.rank != rank)
		return OPMFU_SHAPE_MISMATCH;
	if (a.d[rank - 1] != b.d[rank - 2] || (rank == 3 && a.d[0] != b.d[0]))
		return OPMFU_SHAPE_MISMATCH;
	return mnk(rank == 3 ? a.d[0] : 1, a.d[rank - 2], b.d[rank - 1], a.d[rank - 1], flops);
}

/* torch.matmul: vectors, matrices, broadcast batch dims */
static enum opmfu_shape_status matmul(const struct sf_call *k, int64_t *flops)
{
	struct sf_t a = sf_tensor(&k->in, 0), b = sf_tensor(&k->in, 1);
	int64_t m = 1, n = 1, ka, kb, batch = 1;
	size_t nba = 0, nbb = 0;
	int rc;
	if (!a.present || !b.present || a.rank == 0 || b.rank == 0)
		return OPMFU_SHAPE_MISMATCH;
	/* a vector operand is a matrix with that dim only (1 x K or K x 1) */
	ka = a.d[a.rank - 1];
	if (a.rank >= 2) {
		m = a.d[a.rank - 2];
		nba = a.rank - 2;
	}
	if (b.rank >= 2) {
		kb = b.d[b.rank - 2];
		n = b.d[b.rank - 1];
		nbb = b.rank - 2;
	} else
		kb = b.d[0];
	if (ka != kb)
		return OPMFU_SHAPE_MISMATCH;
	rc = bcast(a.d, nba, b.d, nbb, &batch);
	if (rc != 0)
		return rc == -1 ? OPMFU_SHAPE_MISMATCH : OPMFU_SHAPE_OVERFLOW;
	return mnk(batch, m, n, ka, flops);
}

/* F.linear: input (..., in), weight (out, in) or (in) */
static enum opmfu_shape_status linear(const struct sf_call *k, int64_t *flops)
{
	struct sf_t x = sf_tensor(&k->in, 0), w = sf_tensor(&k->in, 1);
	int64_t rows;
	if (!x.present || !w.present || x.rank == 0 || w.rank == 0 || w.rank > 2)
		return OPMFU_SHAPE_MISMATCH;
	if (x.d[x.rank - 1] != w.d[w.rank - 1])
		return OPMFU_SHAPE_MISMATCH;
	if (sf_prod(&rows, x.d, x.rank - 1) != 0)
		return OPMFU_SHAPE_OVERFLOW;
	return mnk(1, rows, w.rank == 2 ? w.d[0] : 1, w.d[w.rank - 1], flops);
}

/* ---- Ascend: readings tried in turn ---- */

/* One reading of A (transposed or not) and B against the output. */
struct reading {
	int64_t m, n, k;
};

static int try_reading(const struct mat *a, int ta, const struct mat *b, int tb, const struct mat *o,
		       struct reading *r)
{
	int64_t am = ta ? a->c : a->r, aam = ta ? a->ac : a->ar;
	int64_t ak = ta ? a->r : a->c, aak = ta ? a->ar : a->ac;
	int64_t bk = tb ? b->c : b->r, abk = tb ? b->ac : b->ar;
	int64_t bn = tb ? b->r : b->c, abn = tb ? b->ar : b->ac;
	if (!agree(ak, aak, bk, abk, &r->k))
		return 0;
	if (!o) {
		r->m = am;
		r->n = bn;
		return 1;
	}
	return agree(am, aam, o->r, o->ar, &r->m) && agree(bn, abn, o->c, o->ac, &r->n);
}

/* A transposition attribute, whichever name the op uses: 1, 0 or -1. */
static int transposed(struct opmfu_text attrs, const char *const *keys)
{
	for (; *keys; keys++) {
		int v = sf_named_bool(attrs, *keys, -1);
		if (v >= 0)
			return v;
	}
	return -1;
}

/* in0 @ in1 (-> out0): the readings (ta, tb) in the order the attributes
 * say first, then untransposed before transposed. loose: B may not tell
 * its dims (packed int4 weights): A and the output decide. */
static enum opmfu_shape_status ascend(const struct sf_call *k, int loose, int64_t *flops)
{
	static const char *const ka[] = { "transpose_x1", "adj_x1", "transpose_x", "transpose_a", NULL };
	static const char *const kb[] = { "transpose_x2", "adj_x2", "transpose_weight", "transpose_b", NULL };
	const struct opmfu_shape_call *c = k->c;
	struct mat a, b, o, *op = NULL;
	struct reading r;
	enum opmfu_shape_status st;
	int pa = transposed(c->attrs, ka), pb = transposed(c->attrs, kb), i, found = 0;
	int64_t batch = 1;

	if ((st = as_mat(sf_tensor(&k->in, 0), sf_format(c->in_formats, 0), &a)) != OPMFU_SHAPE_OK)
		return st;
	if ((st = as_mat(sf_tensor(&k->in, 1), sf_format(c->in_formats, 1), &b)) != OPMFU_SHAPE_OK)
		return st;
	if (sf_tensor(&k->out, 0).rank >= 2) {
		if ((st = as_mat(sf_tensor(&k->out, 0), sf_format(c->out_formats, 0), &o)) != OPMFU_SHAPE_OK)
			return st;
		op = &o;
	}
	/* the readings the attributes allow first (i < 4), then the rest */
	for (i = 0; i < 8 && !found; i++) {
		int ta = (i >> 1) & 1, tb = i & 1;
		int pinned = (pa < 0 || ta == pa) && (pb < 0 || tb == pb);
		if (pinned == (i < 4))
			found = try_reading(&a, ta, &b, tb, op, &r);
	}
	/* packed weights: the output's N, A's K */
	for (i = 0; i < 2 && !found && loose && op; i++) {
		int64_t am = i ? a.c : a.r, aam = i ? a.ac : a.ar;
		if (agree(am, aam, o.r, o.ar, &r.m)) {
			r.k = i ? a.r : a.c;
			r.n = o.c;
			found = 1;
		}
	}
	if (!found)
		return OPMFU_SHAPE_MISMATCH;
	if (op) {
		if (sf_prod(&batch, o.b, o.nb) != 0)
			return OPMFU_SHAPE_OVERFLOW;
	} else {
		int rc = bcast(a.b, a.nb, b.b, b.nb, &batch);
		if (rc != 0)
			return rc == -1 ? OPMFU_SHAPE_MISMATCH : OPMFU_SHAPE_OVERFLOW;
	}
	return mnk(batch, r.m, r.n, r.k, flops);
}

/* ---- grouped matmul ---- */

/* x (rows x K, its batch dims folded into rows) against weight w: the
 * weight's other extent is N, whichever way it is stored. */
static enum opmfu_shape_status group(const struct mat *x, const struct mat *w, int tw, int64_t *n, int64_t *f)
{
	int64_t rows, kk;
	if (sf_prod(&rows, x->b, x->nb) != 0 || sf_mul(&rows, x->r) != 0)
		return OPMFU_SHAPE_OVERFLOW;
	if (tw != 1 && agree(x->c, x->ac, w->r, w->ar, &kk))
		*n = w->c;
	else if (tw != 0 && agree(x->c, x->ac, w->c, w->ac, &kk))
		*n = w->r;
	else
		return OPMFU_SHAPE_MISMATCH;
	return mnk(1, rows, *n, kk, f);
}

static enum opmfu_shape_status in_mat(const struct sf_call *k, size_t i, struct mat *m)
{
	return as_mat(sf_tensor(&k->in, i), sf_format(k->c->in_formats, i), m);
}

/* n groups: x_i = in[i], w_i = in[n + i], each y_i = out[i] when given */
static enum opmfu_shape_status paired(const struct sf_call *k, size_t n, size_t ny, int tw, int64_t *flops)
{
	enum opmfu_shape_status st;
	size_t i;
	*flops = 0;
	for (i = 0; i < n; i++) {
		struct mat x, w;
		int64_t nn, f;
		struct sf_t y = sf_tensor(&k->out, i);
		if ((st = in_mat(k, i, &x)) != OPMFU_SHAPE_OK || (st = in_mat(k, n + i, &w)) != OPMFU_SHAPE_OK)
			return st;
		if ((st = group(&x, &w, tw, &nn, &f)) != OPMFU_SHAPE_OK)
			return st;
		if (i < ny && y.d[y.rank - 1] != nn)
			return OPMFU_SHAPE_MISMATCH;
		if (sf_add(flops, f) != 0)
			return OPMFU_SHAPE_OVERFLOW;
	}
	return OPMFU_SHAPE_OK;
}

/*
 * GroupedMatmul lists every group's x, then every weight, then the rest
 * (bias, scales, group_list), with nothing to say where a list ends. Read:
 * - as many groups as 2-D-or-more outputs when there are two or more, the
 *   first n inputs being the x's and the next n the weights (split lists);
 * - without outputs, an even run of 4 or more inputs of rank >= 2 split in
 *   half the same way, when every pair fits;
 * - else one x (M, K) whose rows each go through one group, against the
 *   first weight ((K, N), or (E, K, N) for all groups): 2 * M * K * N. The
 *   group_list values are not in the trace: every row of x is counted.
 */
static enum opmfu_shape_status grouped(const struct sf_call *k, int64_t *flops)
{
	static const char *const kw[] = { "transpose_weight", "transpose_x2", NULL };
	int tw = transposed(k->c->attrs, kw);
	size_t nin = sf_count(&k->in), run = 0, ny = 0;
	struct mat x, w;
	int64_t n;
	enum opmfu_shape_status st;

	while (run < nin && sf_tensor(&k->in, run).rank >= 2)
		run++;
	while (ny < sf_count(&k->out) && sf_tensor(&k->out, ny).rank >= 2)
		ny++;
	if (ny >= 2 && run >= 2 * ny)
		return paired(k, ny, ny, tw, flops);
	if (!k->out.known && run >= 4 && run % 2 == 0 && paired(k, run / 2, 0, tw, flops) == OPMFU_SHAPE_OK)
		return OPMFU_SHAPE_OK;
	if ((st = in_mat(k, 0, &x)) != OPMFU_SHAPE_OK || (st = in_mat(k, 1, &w)) != OPMFU_SHAPE_OK)
		return st;
	if ((st = group(&x, &w, tw, &n, flops)) != OPMFU_SHAPE_OK)
		return st;
	if (ny >= 1) {
		struct sf_t y = sf_tensor(&k->out, 0);
		if (y.d[y.rank - 1] != n)
			return OPMFU_SHAPE_MISMATCH;
	}
	return OPMFU_SHAPE_OK;
}

/*
 * torch._grouped_mm / _scaled_grouped_mm (self, mat2, offs, ...): only the
 * 3-D x 3-D form, a plain batch of G products, is fixed by the shapes. The
 * forms split by offs (2-D x 3-D for MoE experts, 3-D x 2-D, 2-D x 2-D)
 * take their group sizes from offs' values, which no trace records:
 * NO_ATTR, rather than the extent's upper bound.
 */
static enum opmfu_shape_status aten_grouped(const struct sf_call *k, int64_t *flops)
{
	struct sf_t a = sf_tensor(&k->in, 0), b = sf_tensor(&k->in, 1);
	if (!a.present || !b.present || a.rank < 2 || a.rank > 3 || b.rank < 2 || b.rank > 3)
		return OPMFU_SHAPE_MISMATCH;
	if (a.rank == 2 || b.rank == 2)
		return OPMFU_SHAPE_NO_ATTR;
	return fixed(k, 0, 3, flops);
}

/* ---- the family ---- */

enum mm_kind { MM_MM, MM_ADDMM, MM_BMM, MM_BADDBMM, MM_MATMUL, MM_LINEAR, MM_ASCEND, MM_WEIGHT_QUANT, MM_GROUPED,
	       MM_ATEN_GROUPED };

static int kind_of(struct opmfu_text name, enum mm_kind *kind)
{
	static const struct {
		const char *name;
		enum mm_kind kind;
	} aten[] = {
		{ "mm", MM_MM }, { "addmm", MM_ADDMM }, { "bmm", MM_BMM }, { "baddbmm", MM_BADDBMM },
		{ "matmul", MM_MATMUL }, { "linear", MM_LINEAR },
		/* fp8: (M, K) @ (K, N) with scales, which add no multiply */
		{ "_scaled_mm", MM_MM },
		{ "_grouped_mm", MM_ATEN_GROUPED }, { "_scaled_grouped_mm", MM_ATEN_GROUPED },
	};
	size_t i;
	for (i = 0; i < sizeof(aten) / sizeof(aten[0]); i++)
		if (sf_eq(name, aten[i].name)) {
			*kind = aten[i].kind;
			return 1;
		}
	/* Ascend opTypes by prefix: MatMulV2, BatchMatMulV3, QuantBatchMatmulV4, ... */
	if (sf_starts(name, "GroupedMatmul"))
		*kind = MM_GROUPED;
	else if (sf_starts(name, "WeightQuantBatchMatmul"))
		*kind = MM_WEIGHT_QUANT;
	else if (sf_starts(name, "MatMul") || sf_starts(name, "BatchMatMul") || sf_starts(name, "QuantBatchMatmul"))
		*kind = MM_ASCEND;
	else
		return 0;
	return 1;
}

int sf_matmul_knows(struct opmfu_text name)
{
	enum mm_kind kind;
	return kind_of(name, &kind);
}

enum opmfu_shape_status sf_matmul(const struct sf_call *k, int64_t *flops)
{
	enum mm_kind kind = MM_ASCEND;
	kind_of(k->name, &kind);
	switch (kind) {
	case MM_MM: return fixed(k, 0, 2, flops);
	case MM_ADDMM: return fixed(k, 1, 2, flops); /* the bias (in0) adds no multiply */
	case MM_BMM: return fixed(k, 0, 3, flops);
	case MM_BADDBMM: return fixed(k, 1, 3, flops);
	case MM_MATMUL: return matmul(k, flops);
	case MM_LINEAR: return linear(k, flops);
	case MM_ASCEND: return ascend(k, 0, flops);
	case MM_WEIGHT_QUANT: return ascend(k, 1, flops);
	case MM_GROUPED: return grouped(k, flops);
	case MM_ATEN_GROUPED: return aten_grouped(k, flops);
	}
	return OPMFU_SHAPE_NO_FORMULA;
}
