/*
 * shape_conv.c - the convolution family: 2 x numel(output) x R, R = Cin /
 * groups x prod(kernel dims), the multiply-adds behind one output element.
 * Each backward pass (input grad, weight grad) is one forward's worth,
 * with the forward's output being the gradient that flows in. A transposed
 * convolution is the input grad of the convolution whose output is its
 * input: 2 x numel(input) x R.
 *
 * Ascend kernels are read in their formats, padded channels counted as the
 * cube runs them: NC1HWC0 (N, C1, H, W, C0) holds C1 * C0 channels, and a
 * FRACTAL_Z weight (C1 * Kh * Kw, N1, N0, C0) gives R = dim0 * C0 (/ groups).
 */
#include "flops/shape_int.h"

/* ---- Ascend ---- */

/* R from a weight in its format; OK, MISMATCH or OVERFLOW */
static enum opmfu_shape_status weight_r(struct sf_t w, enum sf_fmt f, int64_t groups, int64_t *r)
{
	switch (f) {
	case SF_FRACTAL_Z:
	case SF_FRACTAL_Z_3D:
		if (w.rank != 4)
			return OPMFU_SHAPE_MISMATCH;
		*r = w.d[0];
		if (sf_mul(r, w.d[3]) != 0)
			return OPMFU_SHAPE_OVERFLOW;
		if (*r % groups != 0)
			return OPMFU_SHAPE_MISMATCH;
		*r /= groups;
		return OPMFU_SHAPE_OK;
	case SF_HWCN:
	case SF_DHWCN: /* (kernel..., Cin/g, Cout) */
		if (w.rank < 3)
			return OPMFU_SHAPE_MISMATCH;
		return sf_prod(r, w.d, w.rank - 1) == 0 ? OPMFU_SHAPE_OK : OPMFU_SHAPE_OVERFLOW;
	case SF_ND:
	case SF_NCHW:
	case SF_NHWC:
	case SF_NCDHW:
	case SF_NDHWC: /* Cout first, the rest is Cin/g and the kernel */
		if (w.rank < 3)
			return OPMFU_SHAPE_MISMATCH;
		return sf_prod(r, w.d + 1, w.rank - 1) == 0 ? OPMFU_SHAPE_OK : OPMFU_SHAPE_OVERFLOW;
	default:
		return OPMFU_SHAPE_MISMATCH;
	}
}

/* A FRACTAL_Z weight and a C1/C0 input must agree: dim0 = C1 * kernel,
 * the same C0. */
static int fractal_fits(struct sf_t w, enum sf_fmt fw, struct sf_t x, enum sf_fmt fx, int64_t groups)
{
	size_t ic1;
	if ((fw != SF_FRACTAL_Z && fw != SF_FRACTAL_Z_3D) || groups != 1 || !x.present)
		return 1;
	if (fx == SF_NC1HWC0 && x.rank == 5)
		ic1 = 1;
	else if (fx == SF_NDC1HWC0 && x.rank == 6)
		ic1 = 2;
	else
		return 1;
	if (x.d[ic1] == 0 ? w.d[0] != 0 : w.d[0] % x.d[ic1] != 0)
		return 0;
	return x.d[x.rank - 1] == w.d[3];
}

/* One operand: input i (out 0) or output i (out 1). */
struct role {
	int out;
	size_t i;
};

static struct sf_t role_t(const struct sf_call *k, struct role r)
{
	return sf_tensor(r.out ? &k->out : &k->in, r.i);
}

static enum sf_fmt role_f(const struct sf_call *k, struct role r)
{
	return sf_format(r.out ? k->c->out_formats : k->c->in_formats, r.i);
}

/*
 * Conv2D/Conv3D: (x, filter, bias, ...) -> y. Conv*BackpropInput:
 * (input_size, filter, out_backprop) -> dx. Conv*BackpropFilter: (x,
 * filter_size, out_backprop) -> dw. Conv*Transpose: (input_size, x, filter,
 * ...) -> y. The D variants take the sizes as attributes, so the roles are
 * read from the inputs of rank >= 2 (sizes, bias and offsets are 1-D).
 */
static enum opmfu_shape_status ascend(const struct sf_call *k, int64_t *flops)
{
	struct role big[2], y, w, x = { 1, 0 };
	size_t nb = 0, i;
	struct opmfu_text gv;
	int64_t groups = 1, r, n;
	enum opmfu_shape_status st;

	for (i = 0; i < sf_count(&k->in) && nb < 2; i++)
		if (sf_tensor(&k->in, i).rank >= 2)
			big[nb++] = (struct role){ 0, i };
	if (nb < 2)
		return OPMFU_SHAPE_MISMATCH;
	if (sf_attr_named(k->c->attrs, "groups", &gv) && (sf_int(gv, &groups) != 0 || groups < 1))
		return OPMFU_SHAPE_NO_ATTR;
	if (sf_starts(k->name, "Conv2DBackpropInput") || sf_starts(k->name, "Conv3DBackpropInput")) {
		w = big[0];
		y = big[1];
	} else if (sf_starts(k->name, "Conv2DBackpropFilter") || sf_starts(k->name, "Conv3DBackpropFilter")) {
		x = big[0];
		y = big[1];
		w = (struct role){ 1, 0 };
	} else if (sf_starts(k->name, "Conv2DTranspose") || sf_starts(k->name, "Conv3DTranspose")) {
		y = big[0];
		w = big[1];
	} else {
		x = big[0];
		w = big[1];
		y = (struct role){ 1, 0 };
	}
	if (!role_t(k, y).present || !role_t(k, w).present)
		return OPMFU_SHAPE_MISMATCH;
	if ((st = weight_r(role_t(k, w), role_f(k, w), groups, &r)) != OPMFU_SHAPE_OK)
		return st;
	if (!fractal_fits(role_t(k, w), role_f(k, w), role_t(k, x), role_f(k, x), groups))
		return OPMFU_SHAPE_MISMATCH;
	if (sf_prod(&n, role_t(k, y).d, role_t(k, y).rank) != 0)
		return OPMFU_SHAPE_OVERFLOW;
	{
		int64_t f[3] = { 2, n, r };
		return sf_prod(flops, f, 3) == 0 ? OPMFU_SHAPE_OK : OPMFU_SHAPE_OVERFLOW;
	}
}

/* ---- aten ---- */

/* where an aten conv op keeps its arguments (-1: it has none) */
struct conv_op {
	const char *name;
	signed char stride, pad, dil, groups;
	signed char transposed; /* -1: always 0; -2: always 1; else the position of the bool */
	signed char mask;       /* convolution_backward's output_mask, -1 none */
};

static const struct conv_op conv_ops[] = {
	{ "convolution", 3, 4, 5, 8, 6, -1 },
	{ "_convolution", 3, 4, 5, 8, 6, -1 },
	{ "conv1d", 3, 4, 5, 6, -1, -1 },
	{ "conv2d", 3, 4, 5, 6, -1, -1 },
	{ "conv3d", 3, 4, 5, 6, -1, -1 },
	{ "_convolution_mode", 3, 4, 5, 6, -1, -1 },
	{ "conv_transpose1d", 3, 4, 7, 6, -2, -1 },
	{ "conv_transpose2d", 3, 4, 7, 6, -2, -1 },
	{ "conv_transpose3d", 3, 4, 7, 6, -2, -1 },
	{ "cudnn_convolution", 3, 2, 4, 5, -1, -1 },
	{ "cudnn_convolution_transpose", 4, 2, 5, 6, -2, -1 },
	{ "miopen_convolution", 4, 3, 5, 6, -1, -1 },
	{ "miopen_convolution_transpose", 5, 3, 6, 7, -2, -1 },
	{ "miopen_depthwise_convolution", 4, 3, 5, 6, -1, -1 },
	{ "mkldnn_convolution", 4, 3, 5, 6, -1, -1 },
	/* grad_output, input, weight, bias_sizes, stride, padding, dilation,
	 * transposed, output_padding, groups, output_mask */
	{ "convolution_backward", 4, 5, 6, 9, 7, 10 },
};

static const struct conv_op *find_op(struct opmfu_text name)
{
	size_t i;
	for (i = 0; i < sizeof(conv_ops) / sizeof(conv_ops[0]); i++)
		if (sf_eq(name, conv_ops[i].name))
			return &conv_ops[i];
	return NULL;
}

int sf_conv_knows(struct opmfu_text name)
{
	return find_op(name) != NULL || sf_starts(name, "Conv2D") || sf_starts(name, "Conv3D");
}

/* positional list argument p broadcast to ns values (one value, or ns) */
static int spatial_arg(struct opmfu_text attrs, int p, size_t ns, int64_t *out)
{
	struct opmfu_text v;
	size_t n;
	if (p < 0 || !sf_attr_pos(attrs, (size_t)p, &v) || sf_ints(v, out, ns, &n) != 0)
		return -1;
	return sf_each(out, n, ns);
}

#define MAX_SPATIAL 8

/*
 * numel of the forward output of x convolved with w: N * Cout * prod(out
 * spatial), each out = (in + 2p - d(k - 1) - 1) / s + 1, or from out0
 * when the trace gives it. padding may be 'same' (out = in) or 'valid'.
 */
static enum opmfu_shape_status out_numel(const struct sf_call *k, const struct conv_op *op, struct sf_t x,
					 struct sf_t w, size_t off, int64_t *numel)
{
	size_t ns = w.rank - 2, j;
	int64_t s[MAX_SPATIAL], p[MAX_SPATIAL], d[MAX_SPATIAL], f[2 + MAX_SPATIAL];
	struct sf_t y = sf_tensor(&k->out, 0);
	struct opmfu_text pv;
	int same = 0, valid = 0;

	if (y.present && y.rank == x.rank)
		return sf_prod(numel, y.d, y.rank) == 0 ? OPMFU_SHAPE_OK : OPMFU_SHAPE_OVERFLOW;
	if (sf_attr_pos(k->c->attrs, (size_t)op->pad, &pv)) {
		same = sf_text_is(pv, "same") || sf_text_is(pv, "'same'");
		valid = sf_text_is(pv, "valid") || sf_text_is(pv, "'valid'");
	}
	if (spatial_arg(k->c->attrs, op->stride, ns, s) != 0 || spatial_arg(k->c->attrs, op->dil, ns, d) != 0 ||
	    (!same && !valid && spatial_arg(k->c->attrs, op->pad, ns, p) != 0))
		return OPMFU_SHAPE_NO_ATTR;
	f[0] = off == 2 ? x.d[0] : 1;
	f[1] = w.d[0];
	for (j = 0; j < ns; j++) {
		int64_t in = x.d[off + j], kk = w.d[2 + j], span;
		if (s[j] < 1 || d[j] < 1 || (!same && !valid && p[j] < 0))
			return OPMFU_SHAPE_NO_ATTR;
		if (same) {
			f[2 + j] = in;
			continue;
		}
		if (valid)
			p[j] = 0;
		/* in + 2p - d(k-1) - 1 without overflow: every term below 2^61 */
		if (in > INT64_MAX / 8 || p[j] > INT64_MAX / 8 || (kk > 0 && kk - 1 > INT64_MAX / 8 / d[j]))
			return OPMFU_SHAPE_OVERFLOW;
		span = kk ? d[j] * (kk - 1) + 1 : 0;
		if (in + 2 * p[j] < span)
			return OPMFU_SHAPE_MISMATCH; /* the kernel does not fit */
		f[2 + j] = (in + 2 * p[j] - span) / s[j] + 1;
	}
	return sf_prod(numel, f, 2 + ns) == 0 ? OPMFU_SHAPE_OK : OPMFU_SHAPE_OVERFLOW;
}

/* 1 transposed, 0 not, -1 unreadable; the default (no Concrete Inputs) 0 */
static int is_transposed(const struct sf_call *k, const struct conv_op *op)
{
	struct opmfu_text v;
	if (op->transposed == -1)
		return 0;
	if (op->transposed == -2)
		return 1;
	if (!sf_attr_has_pos(k->c->attrs))
		return 0;
	if (!sf_attr_pos(k->c->attrs, (size_t)op->transposed, &v))
		return -1;
	return sf_bool(v);
}

/* convolution_backward's passes: output_mask's first two (input grad,
 * weight grad; the bias grad has no multiply) */
static int passes(const struct sf_call *k, const struct conv_op *op)
{
	struct opmfu_text v;
	size_t i, n = 0, e0;
	int cnt = 0;
	if (op->mask < 0)
		return 1;
	if (!sf_attr_has_pos(k->c->attrs))
		return 2;
	if (!sf_attr_pos(k->c->attrs, (size_t)op->mask, &v))
		return -1;
	/* "[True, True, False]": entries between '[' / ',' and ',' / ']' */
	for (i = 0, e0 = 0; i <= v.n && n < 2; i++) {
		if (i == v.n || v.s[i] == ',') {
			struct opmfu_text e = { v.s + e0, i - e0 };
			int b;
			while (e.n && (e.s[0] == '[' || e.s[0] == ' ')) {
				e.s++;
				e.n--;
			}
			while (e.n && (e.s[e.n - 1] == ']' || e.s[e.n - 1] == ' '))
				e.n--;
			if ((b = sf_bool(e)) < 0)
				return -1;
			cnt += b;
			n++;
			e0 = i + 1;
		}
	}
	return n == 2 ? cnt : -1;
}

/* x's channels against a plain weight's Cin / groups: equal to it times
 * groups when groups is readable, else a multiple of it */
static int cin_fits(const struct sf_call *k, const struct conv_op *op, int64_t cin, int64_t wc)
{
	struct opmfu_text v;
	int64_t g;
	if (sf_attr_pos(k->c->attrs, (size_t)op->groups, &v) && sf_int(v, &g) == 0 && g >= 1)
		return sf_mul(&wc, g) == 0 && wc == cin;
	return wc == 0 ? cin == 0 : cin % wc == 0;
}

static enum opmfu_shape_status aten(const struct sf_call *k, const struct conv_op *op, int64_t *flops)
{
	int bwd = op->mask >= 0, tr = is_transposed(k, op), np = passes(k, op);
	struct sf_t x = sf_tensor(&k->in, bwd ? 1 : 0), w = sf_tensor(&k->in, bwd ? 2 : 1);
	struct sf_t dy = sf_tensor(&k->in, 0);
	size_t off;
	int64_t r, n, f[4];
	enum opmfu_shape_status st;

	if (!x.present || !w.present || w.rank < 3 || w.rank - 2 > MAX_SPATIAL)
		return OPMFU_SHAPE_MISMATCH;
	/* x is (N, C, spatial...) or unbatched (C, spatial...) */
	if (x.rank == w.rank)
		off = 2;
	else if (x.rank + 1 == w.rank)
		off = 1;
	else
		return OPMFU_SHAPE_MISMATCH;
	if (tr < 0 || np < 0)
		return OPMFU_SHAPE_NO_ATTR;
	/* Cin: w[1] * groups (plain), w[0] (transposed) */
	if (tr ? x.d[off - 1] != w.d[0] : !cin_fits(k, op, x.d[off - 1], w.d[1]))
		return OPMFU_SHAPE_MISMATCH;
	if (sf_prod(&r, w.d + 1, w.rank - 1) != 0)
		return OPMFU_SHAPE_OVERFLOW;
	if (tr)
		st = sf_prod(&n, x.d, x.rank) == 0 ? OPMFU_SHAPE_OK : OPMFU_SHAPE_OVERFLOW;
	else if (bwd) {
		/* the gradient that flows in is the forward's output */
		if (!dy.present || dy.rank != x.rank || dy.d[off - 1] != w.d[0])
			return OPMFU_SHAPE_MISMATCH;
		st = sf_prod(&n, dy.d, dy.rank) == 0 ? OPMFU_SHAPE_OK : OPMFU_SHAPE_OVERFLOW;
	} else
		st = out_numel(k, op, x, w, off, &n);
	if (st != OPMFU_SHAPE_OK)
		return st;
	f[0] = 2;
	f[1] = n;
	f[2] = r;
	f[3] = np;
	return sf_prod(flops, f, 4) == 0 ? OPMFU_SHAPE_OK : OPMFU_SHAPE_OVERFLOW;
}

enum opmfu_shape_status sf_conv(const struct sf_call *k, int64_t *flops)
{
	const struct conv_op *op = find_op(k->name);
	return op ? aten(k, op, flops) : ascend(k, flops);
}

enum opmfu_shape_status sf_conv_numel(const struct sf_call *k, int64_t *numel)
{
	const struct conv_op *op = find_op(k->name);
	struct sf_t x = sf_tensor(&k->in, 0), w = sf_tensor(&k->in, 1);
	size_t off;
	if (!op || op->mask >= 0)
		return OPMFU_SHAPE_NO_FORMULA;
	if (!x.present || !w.present || w.rank < 3 || w.rank - 2 > MAX_SPATIAL)
		return OPMFU_SHAPE_MISMATCH;
	if (x.rank == w.rank)
		off = 2;
	else if (x.rank + 1 == w.rank)
		off = 1;
	else
		return OPMFU_SHAPE_MISMATCH;
	/* a transposed convolution's output grows: not derived here */
	if (is_transposed(k, op) != 0)
		return OPMFU_SHAPE_NO_ATTR;
	return out_numel(k, op, x, w, off, numel);
}
