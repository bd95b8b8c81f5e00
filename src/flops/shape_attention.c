/*
 * shape_attention.c - the attention family: Q @ K^T and P @ V only,
 * forward 2*B*Nq*Sq*Sk*Dqk + 2*B*Nq*Sq*Sk*Dv (per query head: GQA's
 * shared K/V heads do not lessen it), halved when causal, backward 2.5 x
 * forward. With X = B*Sq*Sk*(Nq*Dqk + Nq*Dv): forward 2X, causal X,
 * backward 5X, causal backward 5X/2 (half up).
 */
#include "flops/shape_int.h"

enum layout { L_INFER, L_BNSD, L_BSND, L_BSH, L_SBH, L_TND, L_NTD };

/* how an op says it is causal */
enum causal_kind {
	C_SPARSE,   /* Ascend: named sparse_mode 2 (leftUpCausal) or 3 (rightDownCausal) */
	C_BOOL,     /* positional bool (is_causal, causal) at pos */
	C_MASKTYPE, /* positional int custom_mask_type at pos: 1, 2 causal */
};

struct att_op {
	const char *name;
	unsigned q : 2;     /* index of the query among the inputs (k, v follow) */
	unsigned bwd : 1;
	unsigned layout : 3; /* L_INFER: Ascend (input_layout attribute or inferred) */
	unsigned causal : 2;
	int pos;            /* of the causal flag */
	int cum;            /* input index of cum_seq_q (varlen when it is a tensor), -1 none */
};

/* aten and flash-attn ops, their arguments as in PyTorch's and
 * flash-attn's schemas (Kineto's Concrete Inputs are in that order) */
static const struct att_op aten_ops[] = {
	{ "scaled_dot_product_attention", 0, 0, L_BNSD, C_BOOL, 5, -1 },
	{ "_scaled_dot_product_flash_attention", 0, 0, L_BNSD, C_BOOL, 4, -1 },
	{ "_scaled_dot_product_flash_attention_backward", 1, 1, L_BNSD, C_BOOL, 11, -1 },
	{ "_scaled_dot_product_efficient_attention", 0, 0, L_BNSD, C_BOOL, 6, -1 },
	{ "_scaled_dot_product_efficient_attention_backward", 1, 1, L_BNSD, C_BOOL, 11, -1 },
	{ "_scaled_dot_product_cudnn_attention", 0, 0, L_BNSD, C_BOOL, 6, -1 },
	{ "_scaled_dot_product_cudnn_attention_backward", 1, 1, L_BNSD, C_BOOL, 14, -1 },
	{ "_flash_attention_forward", 0, 0, L_BSND, C_BOOL, 8, 3 },
	{ "_flash_attention_backward", 1, 1, L_BSND, C_BOOL, 11, 6 },
	{ "_efficient_attention_forward", 0, 0, L_BSND, C_MASKTYPE, 9, 4 },
	{ "_efficient_attention_backward", 1, 1, L_BSND, C_MASKTYPE, 14, 6 },
	{ "flash_attn::_flash_attn_forward", 0, 0, L_BSND, C_BOOL, 5, -1 },
	{ "flash_attn::_flash_attn_backward", 1, 1, L_BSND, C_BOOL, 11, -1 },
	{ "flash_attn::_flash_attn_varlen_forward", 0, 0, L_TND, C_BOOL, 9, -1 },
	{ "flash_attn::_flash_attn_varlen_backward", 1, 1, L_TND, C_BOOL, 15, -1 },
};

static int find_op(struct opmfu_text name, struct att_op *op)
{
	size_t i;
	for (i = 0; i < sizeof(aten_ops) / sizeof(aten_ops[0]); i++)
		if (sf_eq(name, aten_ops[i].name)) {
			*op = aten_ops[i];
			return 1;
		}
	/* Ascend: FlashAttentionScore[Grad], FusedInferAttentionScore[V2...] */
	if (sf_starts(name, "FlashAttentionScore") || sf_starts(name, "FusedInferAttentionScore")) {
		size_t k;
		*op = (struct att_op){ NULL, 0, 0, L_INFER, C_SPARSE, 0, -1 };
		for (k = 0; k + 4 <= name.n; k++)
			if (name.s[k] == 'G' && name.s[k + 1] == 'r' && name.s[k + 2] == 'a' && name.s[k + 3] == 'd')
				op->bwd = 1;
		return 1;
	}
	return 0;
}

int sf_attention_knows(struct opmfu_text name)
{
	struct att_op op;
	return find_op(name, &op);
}

/* ---- layouts ---- */

/* X's factors for the dense layouts: X = b * sq * sk * (hq + hv) */
struct dense {
	int64_t b, sq, sk, hq, hv;
};

static int eq3(int64_t a, int64_t b, int64_t c)
{
	return a == b && b == c;
}

/* heads-and-dims layouts: (..., N, S, D) or (B, S, N, D), given where S
 * and N sit; leading dims of BNSD (SDPA's batch dims) are batch */
static enum opmfu_shape_status heads(struct sf_t q, struct sf_t k, struct sf_t v, int bsnd, struct dense *x)
{
	size_t r = q.rank, i, is = bsnd ? 1 : r - 2, in = bsnd ? 2 : r - 3;
	if (k.rank != r || v.rank != r || r < 3 || (bsnd && r != 4))
		return OPMFU_SHAPE_MISMATCH;
	for (i = 0; i + 3 < r; i++)
		if (!eq3(q.d[i], k.d[i], v.d[i]))
			return OPMFU_SHAPE_MISMATCH;
	/* K and V share heads and length; Q's heads are a multiple of theirs */
	if (k.d[in] != v.d[in] || k.d[is] != v.d[is] || q.d[r - 1] != k.d[r - 1])
		return OPMFU_SHAPE_MISMATCH;
	if (k.d[in] == 0 ? q.d[in] != 0 : q.d[in] % k.d[in] != 0)
		return OPMFU_SHAPE_MISMATCH;
	if (sf_prod(&x->b, q.d, r - 3) != 0)
		return OPMFU_SHAPE_OVERFLOW;
	x->sq = q.d[is];
	x->sk = k.d[is];
	x->hq = q.d[in];
	x->hv = q.d[in];
	if (sf_mul(&x->hq, q.d[r - 1]) != 0 || sf_mul(&x->hv, v.d[r - 1]) != 0)
		return OPMFU_SHAPE_OVERFLOW;
	return OPMFU_SHAPE_OK;
}

/* BSH / SBH: H = N * D merged. Nq*Dv = Hq * Hv / Hk (K and V share their
 * heads, Q and K their head dim), so head_num is not needed. */
static enum opmfu_shape_status hidden(struct sf_t q, struct sf_t k, struct sf_t v, int sbh, struct dense *x)
{
	size_t ib = sbh ? 1 : 0, is = sbh ? 0 : 1;
	int64_t hv;
	if (q.rank != 3 || k.rank != 3 || v.rank != 3)
		return OPMFU_SHAPE_MISMATCH;
	if (!eq3(q.d[ib], k.d[ib], v.d[ib]) || k.d[is] != v.d[is])
		return OPMFU_SHAPE_MISMATCH;
	hv = q.d[2];
	if (sf_mul(&hv, v.d[2]) != 0)
		return OPMFU_SHAPE_OVERFLOW;
	if (k.d[2] == 0 ? hv != 0 : hv % k.d[2] != 0)
		return OPMFU_SHAPE_MISMATCH;
	x->b = q.d[ib];
	x->sq = q.d[is];
	x->sk = k.d[is];
	x->hq = q.d[2];
	x->hv = k.d[2] ? hv / k.d[2] : 0;
	return OPMFU_SHAPE_OK;
}

static enum opmfu_shape_status dense_x(const struct dense *d, int64_t *x)
{
	int64_t h = d->hq, f[4] = { d->b, d->sq, d->sk, 0 };
	if (sf_add(&h, d->hv) != 0)
		return OPMFU_SHAPE_OVERFLOW;
	f[3] = h;
	return sf_prod(x, f, 4) == 0 ? OPMFU_SHAPE_OK : OPMFU_SHAPE_OVERFLOW;
}

/* a named list attribute under either name */
static int seq_list(struct opmfu_text attrs, const char *a, const char *b, struct opmfu_text *v)
{
	return sf_attr_named(attrs, a, v) || sf_attr_named(attrs, b, v);
}

/*
 * TND (T, N, D) / NTD (N, T, D): sequences packed along T, their ends
 * given as cumulative lengths (actual_seq_qlen = [s1, s1+s2, ...], as
 * torch_npu passes them; FusedInferAttentionScore: actual_seq_lengths).
 * X = sum_i sq_i * sk_i * N * (D + Dv).
 */
static enum opmfu_shape_status packed(const struct sf_call *kc, struct sf_t q, struct sf_t k, struct sf_t v,
				      int ntd, int64_t *x)
{
	size_t it = ntd ? 1 : 0, in = ntd ? 0 : 1;
	struct opmfu_text lq, lk;
	struct sf_cur cq, ck;
	int64_t pq = 0, pk = 0, h, nd;
	int rq, rk;

	if (q.rank != 3 || k.rank != 3 || v.rank != 3)
		return OPMFU_SHAPE_MISMATCH;
	if (k.d[in] != v.d[in] || k.d[it] != v.d[it] || q.d[2] != k.d[2])
		return OPMFU_SHAPE_MISMATCH;
	if (k.d[in] == 0 ? q.d[in] != 0 : q.d[in] % k.d[in] != 0)
		return OPMFU_SHAPE_MISMATCH;
	if (!seq_list(kc->c->attrs, "actual_seq_qlen", "actual_seq_lengths", &lq) ||
	    !seq_list(kc->c->attrs, "actual_seq_kvlen", "actual_seq_lengths_kv", &lk))
		return OPMFU_SHAPE_NO_ATTR;
	h = q.d[2];
	if (sf_add(&h, v.d[2]) != 0)
		return OPMFU_SHAPE_OVERFLOW;
	nd = q.d[in];
	if (sf_mul(&nd, h) != 0)
		return OPMFU_SHAPE_OVERFLOW;
	sf_cur_init(&cq, lq);
	sf_cur_init(&ck, lk);
	*x = 0;
	for (;;) {
		int64_t eq, ek, f;
		rq = sf_cur_next(&cq, &eq);
		rk = sf_cur_next(&ck, &ek);
		if (rq < 0 || rk < 0)
			return OPMFU_SHAPE_NO_ATTR;
		if (rq != rk)
			return OPMFU_SHAPE_MISMATCH; /* lists of different lengths */
		if (rq == 0)
			break;
		/* ends rise and stay within the packed tensors */
		if (eq < pq || ek < pk || eq > q.d[it] || ek > k.d[it])
			return OPMFU_SHAPE_MISMATCH;
		f = eq - pq;
		if (sf_mul(&f, ek - pk) != 0 || sf_mul(&f, nd) != 0 || sf_add(x, f) != 0)
			return OPMFU_SHAPE_OVERFLOW;
		pq = eq;
		pk = ek;
	}
	return OPMFU_SHAPE_OK;
}

/* Ascend: input_layout ("BNSD", or "BNSD_BSND" for input_output), else
 * inferred: rank 4 BNSD; rank 3 TND when sequence lengths are given, BSH
 * when Q and K share dim 0 (the batch), SBH when they share dim 1 only. */
static enum layout ascend_layout(const struct sf_call *k, struct sf_t q, struct sf_t kk)
{
	static const struct {
		const char *name;
		enum layout l;
	} names[] = { { "BNSD", L_BNSD }, { "BSND", L_BSND }, { "BSH", L_BSH }, { "SBH", L_SBH },
		      { "TND", L_TND }, { "NTD", L_NTD } };
	struct opmfu_text v;
	size_t i;
	if (sf_attr_named(k->c->attrs, "input_layout", &v)) {
		for (i = 0; i < v.n; i++)
			if (v.s[i] == '_')
				v.n = i;
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (sf_text_is(v, names[i].name))
				return names[i].l;
		return L_INFER; /* a layout we do not know */
	}
	if (q.rank == 4)
		return L_BNSD;
	if (q.rank != 3 || kk.rank != 3)
		return L_INFER;
	if (seq_list(k->c->attrs, "actual_seq_qlen", "actual_seq_lengths", &v))
		return L_TND;
	if (q.d[0] == kk.d[0])
		return L_BSH;
	if (q.d[1] == kk.d[1])
		return L_SBH;
	return L_INFER;
}

/* 1 causal, 0 not, -1 unreadable */
static int causal(const struct sf_call *k, const struct att_op *op)
{
	struct opmfu_text v;
	int64_t m;
	if (op->causal == C_SPARSE) {
		if (!sf_attr_named(k->c->attrs, "sparse_mode", &v))
			return 0;
		if (sf_int(v, &m) != 0)
			return -1;
		return m == 2 || m == 3;
	}
	/* no Concrete Inputs recorded: the schema's default, not causal */
	if (!sf_attr_has_pos(k->c->attrs))
		return 0;
	if (!sf_attr_pos(k->c->attrs, (size_t)op->pos, &v))
		return -1;
	if (op->causal == C_BOOL)
		return sf_bool(v);
	if (sf_int(v, &m) != 0 || m < 0 || m > 2)
		return -1;
	return m != 0;
}

enum opmfu_shape_status sf_attention(const struct sf_call *k, int64_t *flops)
{
	struct att_op op;
	struct sf_t q, kk, v;
	struct dense d;
	enum opmfu_shape_status st;
	enum layout l;
	int64_t x = 0;
	int cz;

	if (!find_op(k->name, &op))
		return OPMFU_SHAPE_NO_FORMULA;
	q = sf_tensor(&k->in, op.q);
	kk = sf_tensor(&k->in, op.q + 1u);
	v = sf_tensor(&k->in, op.q + 2u);
	if (!q.present || !kk.present || !v.present)
		return OPMFU_SHAPE_MISMATCH;
	l = (enum layout)op.layout;
	if (l == L_INFER && (l = ascend_layout(k, q, kk)) == L_INFER)
		return OPMFU_SHAPE_MISMATCH;
	/* flash ops take packed sequences (rank 3) or a cu_seqlens tensor */
	if (op.layout == L_BSND && (q.rank == 3 || (op.cum >= 0 && sf_tensor(&k->in, (size_t)op.cum).rank == 1))) {
		l = L_TND;
		/* the efficient kernels pack them as (1, T, N, D) */
		if (q.rank == 4 && kk.rank == 4 && v.rank == 4 && q.d[0] == 1 && kk.d[0] == 1 && v.d[0] == 1) {
			q.d++, kk.d++, v.d++;
			q.rank = kk.rank = v.rank = 3;
		}
	}
	switch (l) {
	case L_BNSD: st = heads(q, kk, v, 0, &d); break;
	case L_BSND: st = heads(q, kk, v, 1, &d); break;
	case L_BSH: st = hidden(q, kk, v, 0, &d); break;
	case L_SBH: st = hidden(q, kk, v, 1, &d); break;
	case L_TND: case L_NTD: st = packed(k, q, kk, v, l == L_NTD, &x); break;
	default: st = OPMFU_SHAPE_MISMATCH; break;
	}
	if (st == OPMFU_SHAPE_OK && l != L_TND && l != L_NTD)
		st = dense_x(&d, &x);
	if (st != OPMFU_SHAPE_OK)
		return st;
	if ((cz = causal(k, &op)) < 0)
		return OPMFU_SHAPE_NO_ATTR;
	if (sf_mul(&x, op.bwd ? 5 : 2) != 0)
		return OPMFU_SHAPE_OVERFLOW;
	*flops = cz ? x / 2 + x % 2 : x;
	return OPMFU_SHAPE_OK;
}
