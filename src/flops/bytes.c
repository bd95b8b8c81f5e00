/*
 * bytes.c - the bytes an op instance (Kineto) or a kernel (Ascend) must
 * move to and from device memory (SPEC 18), from its shapes and dtypes, by
 * the per-family rules of docs/roofline.md. Each tensor is counted once
 * per read and once per write, at its dtype's size: no cache reuse, no
 * padding, no re-reads a tiled kernel may make.
 *
 * Kernel-scope shapes (Ascend COMPUTE_TASK_INFO) list every input and
 * output, as stored (NC1HWC0, FRACTAL_Z and FRACTAL_NZ shapes are the
 * padded ones): the bytes are all inputs read plus all outputs written.
 * Op-scope shapes (Kineto) list the op's arguments only: the outputs are
 * inferred from the op's semantics (broadcast, reduced dims, M x N, ...).
 *
 * Pure and bounded: no allocation per call; the stage caches the result
 * per distinct (type, shapes, dtypes, attributes).
 */
#include <string.h>

#include "base/mem.h"
#include "flops/flops.h"
#include "flops/shape_int.h"

/* ---- dtypes ---- */

/* bits per element of a dtype name (Kineto "Input type" or Ascend dataType); 0: no tensor (Scalar,
 * ScalarList, TensorList, empty); -1: a name we do not know */
static int dtype_bits(struct opmfu_text v)
{
	static const struct {
		const char *name;
		int bits;
	} names[] = {
		/* Kineto (c10 names as the profiler prints them) */
		{ "float", 32 }, { "double", 64 }, { "c10::Half", 16 }, { "c10::BFloat16", 16 },
		{ "long int", 64 }, { "int", 32 }, { "short int", 16 }, { "signed char", 8 },
		{ "unsigned char", 8 }, { "bool", 8 }, { "c10::Float8_e4m3fn", 8 }, { "c10::Float8_e5m2", 8 },
		{ "c10::Float8_e4m3fnuz", 8 }, { "c10::Float8_e5m2fnuz", 8 }, { "c10::Float8_e8m0fnu", 8 },
		{ "c10::complex<float>", 64 }, { "c10::complex<double>", 128 }, { "c10::complex<c10::Half>", 32 },
		{ "unsigned short", 16 }, { "unsigned int", 32 }, { "unsigned long", 64 },
		{ "c10::Float4_e2m1fn_x2", 8 },
		/* Ascend */
		{ "FLOAT", 32 }, { "FLOAT32", 32 }, { "FLOAT16", 16 }, { "BF16", 16 }, { "BFLOAT16", 16 },
		{ "DOUBLE", 64 }, { "INT8", 8 }, { "UINT8", 8 }, { "INT16", 16 }, { "UINT16", 16 },
		{ "INT32", 32 }, { "UINT32", 32 }, { "INT64", 64 }, { "UINT64", 64 }, { "BOOL", 8 },
		{ "HIFLOAT8", 8 }, { "FLOAT8_E4M3FN", 8 }, { "FLOAT8_E5M2", 8 }, { "FLOAT8_E8M0", 8 },
		{ "COMPLEX64", 64 }, { "COMPLEX128", 128 }, { "COMPLEX32", 32 }, { "INT4", 4 }, { "UINT1", 1 },
		{ "FLOAT4_E2M1", 4 }, { "FLOAT4_E1M2", 4 }, { "HIFLOAT4", 4 },
	};
	static const char *const none[] = { "", "Scalar", "ScalarList", "TensorList", "GenericList", "None",
					    "Device", "Layout", "MemoryFormat", "ScalarType", "N/A", "UNDEFINED" };
	size_t i;
	/* Ascend prefixes some names with DT_ */
	if (v.n > 3 && memcmp(v.s, "DT_", 3) == 0) {
		v.s += 3;
		v.n -= 3;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].name) == v.n && memcmp(v.s, names[i].name, v.n) == 0)
			return names[i].bits;
	for (i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		if (strlen(none[i]) == v.n && memcmp(v.s, none[i], v.n) == 0)
			return 0;
	/* "Optional[...]", lists and anything else that is no tensor dtype */
	return -1;
}

/* torch.dtype codes (c10::ScalarType) as Concrete Inputs give them: bits, 0 unknown */
static int scalar_type_bits(int64_t code)
{
	static const signed char bits[] = { 8, 8, 16, 32, 64, 16, 32, 64, 32, 64, 128, 8, 8, 8, 32, 16 };
	if (code >= 0 && code < (int64_t)sizeof(bits))
		return bits[code];
	if (code >= 23 && code <= 26)
		return 8; /* float8 e5m2, e4m3fn, e5m2fnuz, e4m3fnuz */
	return 0;
}

/* 0 bool, 1 integer, 2 floating, 3 complex; by name */
static int dtype_cat(struct opmfu_text v)
{
	if (v.n >= 4 && (memcmp(v.s, "bool", 4) == 0 || memcmp(v.s, "BOOL", 4) == 0))
		return 0;
	if (v.n >= 11 && memcmp(v.s, "c10::complex", 12 > v.n ? v.n : 12) == 0)
		return 3;
	if ((v.n >= 5 && (memcmp(v.s, "float", 5) == 0 || memcmp(v.s, "FLOAT", 5) == 0)) ||
	    (v.n >= 6 && memcmp(v.s, "double", 6) == 0) || (v.n >= 5 && memcmp(v.s, "c10::", 5) == 0) ||
	    (v.n >= 2 && (memcmp(v.s, "BF", 2) == 0 || memcmp(v.s, "HI", 2) == 0)))
		return 2;
	return 1;
}

/* entry i of a ';'-joined list (absent past its end) */
static struct opmfu_text list_entry(struct opmfu_text l, size_t i)
{
	struct opmfu_text e = { NULL, 0 };
	size_t k = 0, s = 0, j;
	if (!l.s)
		return e;
	for (j = 0; j <= l.n; j++)
		if (j == l.n || l.s[j] == ';') {
			if (k++ == i) {
				e.s = l.s + s;
				e.n = j - s;
				return e;
			}
			s = j + 1;
		}
	return e;
}

/* ---- the call, argument by argument ---- */

#define MAX_ARGS 64

struct barg {
	const int64_t *d;
	size_t rank;
	int64_t numel;
	int bits;                /* 0: no tensor; -1: unknown dtype */
	int cat;                 /* dtype_cat */
};

struct bcall {
	struct sf_call k;
	struct barg a[MAX_ARGS];
	size_t n;
	struct opmfu_text dt_in, dt_out, attrs;
};

/* bytes of n elements of bits each, rounded up; -1 when it overflows */
static int64_t nbytes(int64_t n, int bits)
{
	int64_t b = n;
	if (bits <= 0 || sf_mul(&b, bits) != 0)
		return bits == 0 ? 0 : -1;
	return b / 8 + (b % 8 != 0);
}

/* adds n elements of bits to *acc; -1 on overflow or unknown dtype */
static int acc_add(int64_t *acc, int64_t n, int bits)
{
	int64_t b;
	if (bits < 0 || n < 0)
		return -1;
	b = nbytes(n, bits);
	return b < 0 ? -1 : sf_add(acc, b);
}

/* a tensor argument (known dtype, shape given) */
static int is_tensor(const struct bcall *b, size_t i)
{
	return i < b->n && b->a[i].bits > 0;
}

static int read_arg(const struct bcall *b, size_t i, int64_t *acc)
{
	return is_tensor(b, i) ? acc_add(acc, b->a[i].numel, b->a[i].bits) : 0;
}

/* reads of every tensor argument */
static int read_all(const struct bcall *b, int64_t *acc)
{
	size_t i;
	for (i = 0; i < b->n; i++)
		if (read_arg(b, i, acc))
			return -1;
	return 0;
}

/* Concrete Inputs entry i as an integer */
static int attr_int(const struct bcall *b, size_t i, int64_t *x)
{
	struct opmfu_text v;
	return sf_attr_pos(b->attrs, i, &v) && sf_int(v, x) == 0 ? 0 : -1;
}

/* entry j of a boolean list "[True, False, True]": 1/0, dflt when absent or unreadable */
static int attr_bool_at(const struct bcall *b, size_t i, size_t j, int dflt)
{
	struct opmfu_text v;
	size_t k, n = 0, e0 = 0;
	if (!sf_attr_pos(b->attrs, i, &v) || !v.n)
		return dflt;
	for (k = 0; k <= v.n; k++)
		if (k == v.n || v.s[k] == ',') {
			struct opmfu_text e = { v.s + e0, k - e0 };
			while (e.n && (e.s[0] == '[' || e.s[0] == ' ' || e.s[0] == '('))
				e.s++, e.n--;
			while (e.n && (e.s[e.n - 1] == ']' || e.s[e.n - 1] == ' ' || e.s[e.n - 1] == ')'))
				e.n--;
			if (n++ == j) {
				int r = sf_bool(e);
				return r < 0 ? dflt : r;
			}
			e0 = k + 1;
		}
	return dflt;
}

/* ---- families (Kineto: op scope) ---- */

/* the rules, by op name without "aten::" */
enum bfam {
	BF_NONE = 0,
	BF_MM, BF_ADDMM, BF_BMM, BF_BADDBMM, BF_MATMUL, BF_LINEAR,
	BF_ATTN_FWD, BF_ATTN_BWD,
	BF_CONV, BF_CONV_BWD,
	BF_UNARY, BF_BINARY, BF_TERNARY, BF_COMPARE, BF_FILL,
	BF_COPY, BF_TO,
	BF_REDUCE, BF_REDUCE_IDX, BF_REDUCE_BOOL, BF_MAXMIN,
	BF_SOFTMAX, BF_SOFTMAX_BWD,
	BF_LAYER_NORM, BF_LAYER_NORM_BWD, BF_RMS_NORM, BF_BATCH_NORM, BF_BATCH_NORM_BWD, BF_GROUP_NORM,
	BF_EMBEDDING, BF_EMBEDDING_BWD, BF_INDEX_SELECT, BF_GATHER, BF_DROPOUT,
	BF_MAX_POOL, BF_AVG_POOL, BF_ADAPTIVE_POOL, BF_POOL_BWD, BF_LOSS, BF_LOSS_BWD,
};

struct bop {
	const char *name;
	unsigned char fam;
	signed char pos; /* the dim argument of a reduction; the dtype argument of a cast */
};

static const struct bop bops[] = {
	{ "mm", BF_MM, 0 }, { "addmm", BF_ADDMM, 0 }, { "bmm", BF_BMM, 0 }, { "baddbmm", BF_BADDBMM, 0 },
	{ "matmul", BF_MATMUL, 0 }, { "linear", BF_LINEAR, 0 }, { "_addmm_activation", BF_ADDMM, 0 },
	{ "_scaled_dot_product_flash_attention", BF_ATTN_FWD, 0 },
	{ "_scaled_dot_product_efficient_attention", BF_ATTN_FWD, 0 },
	{ "_scaled_dot_product_cudnn_attention", BF_ATTN_FWD, 0 },
	{ "_scaled_dot_product_flash_attention_for_cpu", BF_ATTN_FWD, 0 },
	{ "scaled_dot_product_attention", BF_ATTN_FWD, 0 }, { "_flash_attention_forward", BF_ATTN_FWD, 0 },
	{ "_efficient_attention_forward", BF_ATTN_FWD, 0 },
	{ "_scaled_dot_product_flash_attention_backward", BF_ATTN_BWD, 0 },
	{ "_scaled_dot_product_efficient_attention_backward", BF_ATTN_BWD, 0 },
	{ "_scaled_dot_product_cudnn_attention_backward", BF_ATTN_BWD, 0 },
	{ "_flash_attention_backward", BF_ATTN_BWD, 0 }, { "_efficient_attention_backward", BF_ATTN_BWD, 0 },
	{ "convolution", BF_CONV, 0 }, { "_convolution", BF_CONV, 0 }, { "conv1d", BF_CONV, 0 },
	{ "conv2d", BF_CONV, 0 }, { "conv3d", BF_CONV, 0 }, { "cudnn_convolution", BF_CONV, 0 },
	{ "miopen_convolution", BF_CONV, 0 }, { "_convolution_mode", BF_CONV, 0 },
	{ "mkldnn_convolution", BF_CONV, 0 }, { "miopen_depthwise_convolution", BF_CONV, 0 },
	{ "convolution_backward", BF_CONV_BWD, 0 },
	/* elementwise, one operand */
	{ "neg", BF_UNARY, 0 }, { "abs", BF_UNARY, 0 }, { "exp", BF_UNARY, 0 }, { "exp2", BF_UNARY, 0 },
	{ "expm1", BF_UNARY, 0 }, { "log", BF_UNARY, 0 }, { "log2", BF_UNARY, 0 }, { "log10", BF_UNARY, 0 },
	{ "log1p", BF_UNARY, 0 }, { "sqrt", BF_UNARY, 0 }, { "rsqrt", BF_UNARY, 0 },
	{ "reciprocal", BF_UNARY, 0 }, { "sin", BF_UNARY, 0 }, { "cos", BF_UNARY, 0 }, { "tan", BF_UNARY, 0 },
	{ "tanh", BF_UNARY, 0 }, { "sigmoid", BF_UNARY, 0 }, { "silu", BF_UNARY, 0 }, { "gelu", BF_UNARY, 0 },
	{ "relu", BF_UNARY, 0 }, { "relu6", BF_UNARY, 0 }, { "hardtanh", BF_UNARY, 0 },
	{ "hardswish", BF_UNARY, 0 }, { "hardsigmoid", BF_UNARY, 0 }, { "mish", BF_UNARY, 0 },
	{ "elu", BF_UNARY, 0 }, { "leaky_relu", BF_UNARY, 0 }, { "softplus", BF_UNARY, 0 },
	{ "erf", BF_UNARY, 0 }, { "erfinv", BF_UNARY, 0 }, { "sign", BF_UNARY, 0 }, { "sgn", BF_UNARY, 0 },
	{ "floor", BF_UNARY, 0 }, { "ceil", BF_UNARY, 0 }, { "round", BF_UNARY, 0 }, { "trunc", BF_UNARY, 0 },
	{ "frac", BF_UNARY, 0 }, { "bitwise_not", BF_UNARY, 0 }, { "clamp_min", BF_UNARY, 0 },
	{ "clamp_max", BF_UNARY, 0 }, { "nan_to_num", BF_UNARY, 0 }, { "square", BF_UNARY, 0 },
	{ "threshold", BF_UNARY, 0 }, { "clone", BF_UNARY, 0 }, { "contiguous", BF_UNARY, 0 },
	{ "cumsum", BF_UNARY, 0 }, { "cumprod", BF_UNARY, 0 }, { "tril", BF_UNARY, 0 }, { "triu", BF_UNARY, 0 },
	{ "logical_not", BF_COMPARE, 0 }, { "isnan", BF_COMPARE, 0 }, { "isinf", BF_COMPARE, 0 },
	{ "isfinite", BF_COMPARE, 0 },
	/* two operands (the rest are scalars, or an out= tensor) */
	{ "add", BF_BINARY, 0 }, { "sub", BF_BINARY, 0 }, { "rsub", BF_BINARY, 0 }, { "mul", BF_BINARY, 0 },
	{ "div", BF_BINARY, 0 }, { "pow", BF_BINARY, 0 }, { "maximum", BF_BINARY, 0 },
	{ "minimum", BF_BINARY, 0 }, { "fmax", BF_BINARY, 0 }, { "fmin", BF_BINARY, 0 },
	{ "remainder", BF_BINARY, 0 }, { "fmod", BF_BINARY, 0 }, { "atan2", BF_BINARY, 0 },
	{ "hypot", BF_BINARY, 0 }, { "bitwise_and", BF_BINARY, 0 }, { "bitwise_or", BF_BINARY, 0 },
	{ "bitwise_xor", BF_BINARY, 0 }, { "threshold_backward", BF_BINARY, 0 },
	{ "silu_backward", BF_BINARY, 0 }, { "gelu_backward", BF_BINARY, 0 },
	{ "sigmoid_backward", BF_BINARY, 0 }, { "tanh_backward", BF_BINARY, 0 },
	{ "hardtanh_backward", BF_BINARY, 0 }, { "leaky_relu_backward", BF_BINARY, 0 },
	{ "hardswish_backward", BF_BINARY, 0 }, { "mish_backward", BF_BINARY, 0 },
	{ "eq", BF_COMPARE, 0 }, { "ne", BF_COMPARE, 0 }, { "lt", BF_COMPARE, 0 }, { "le", BF_COMPARE, 0 },
	{ "gt", BF_COMPARE, 0 }, { "ge", BF_COMPARE, 0 }, { "logical_and", BF_COMPARE, 0 },
	{ "logical_or", BF_COMPARE, 0 }, { "logical_xor", BF_COMPARE, 0 },
	/* three operands */
	{ "where", BF_TERNARY, 0 }, { "addcmul", BF_TERNARY, 0 }, { "addcdiv", BF_TERNARY, 0 },
	{ "lerp", BF_TERNARY, 0 }, { "masked_fill", BF_TERNARY, 0 }, { "clamp", BF_TERNARY, 0 },
	/* writes only */
	{ "fill", BF_FILL, 0 }, { "zero", BF_FILL, 0 }, { "normal", BF_FILL, 0 }, { "uniform", BF_FILL, 0 },
	/* copies and casts */
	{ "copy", BF_COPY, 0 }, { "_to_copy", BF_TO, 1 }, { "to", BF_TO, 1 },
	/* reductions: pos is the dim argument */
	{ "sum", BF_REDUCE, 1 }, { "mean", BF_REDUCE, 1 }, { "nansum", BF_REDUCE, 1 }, { "prod", BF_REDUCE, 1 },
	{ "amax", BF_REDUCE, 1 }, { "amin", BF_REDUCE, 1 }, { "var", BF_REDUCE, 1 }, { "std", BF_REDUCE, 1 },
	{ "logsumexp", BF_REDUCE, 1 }, { "norm", BF_REDUCE, 2 }, { "linalg_vector_norm", BF_REDUCE, 2 },
	{ "argmax", BF_REDUCE_IDX, 1 }, { "argmin", BF_REDUCE_IDX, 1 }, { "any", BF_REDUCE_BOOL, 1 },
	{ "all", BF_REDUCE_BOOL, 1 }, { "max", BF_MAXMIN, 1 }, { "min", BF_MAXMIN, 1 },
	/* softmax, norms */
	{ "softmax", BF_SOFTMAX, 0 }, { "_softmax", BF_SOFTMAX, 0 }, { "log_softmax", BF_SOFTMAX, 0 },
	{ "_log_softmax", BF_SOFTMAX, 0 }, { "_softmax_backward_data", BF_SOFTMAX_BWD, 0 },
	{ "_log_softmax_backward_data", BF_SOFTMAX_BWD, 0 },
	{ "layer_norm", BF_LAYER_NORM, 0 }, { "native_layer_norm", BF_LAYER_NORM, 1 },
	{ "native_layer_norm_backward", BF_LAYER_NORM_BWD, 0 },
	{ "rms_norm", BF_RMS_NORM, 0 }, { "_fused_rms_norm", BF_RMS_NORM, 1 },
	{ "batch_norm", BF_BATCH_NORM, 0 }, { "native_batch_norm", BF_BATCH_NORM, 0 },
	{ "_batch_norm_impl_index", BF_BATCH_NORM, 0 }, { "cudnn_batch_norm", BF_BATCH_NORM, 0 },
	{ "miopen_batch_norm", BF_BATCH_NORM, 0 }, { "_native_batch_norm_legit", BF_BATCH_NORM, 0 },
	{ "_native_batch_norm_legit_no_training", BF_BATCH_NORM, 0 },
	{ "native_batch_norm_backward", BF_BATCH_NORM_BWD, 0 }, { "cudnn_batch_norm_backward", BF_BATCH_NORM_BWD, 0 },
	{ "miopen_batch_norm_backward", BF_BATCH_NORM_BWD, 0 },
	{ "group_norm", BF_GROUP_NORM, 0 }, { "native_group_norm", BF_GROUP_NORM, 0 },
	/* embedding and gather */
	{ "embedding", BF_EMBEDDING, 0 }, { "embedding_dense_backward", BF_EMBEDDING_BWD, 2 },
	{ "embedding_backward", BF_EMBEDDING_BWD, 2 }, { "index_select", BF_INDEX_SELECT, 0 },
	{ "gather", BF_GATHER, 0 }, { "native_dropout", BF_DROPOUT, 0 }, { "dropout", BF_DROPOUT, 0 },
	/* pooling: pos is where the backward's indices are (-1: none) */
	{ "max_pool1d_with_indices", BF_MAX_POOL, 0 }, { "max_pool2d_with_indices", BF_MAX_POOL, 0 },
	{ "max_pool3d_with_indices", BF_MAX_POOL, 0 }, { "avg_pool1d", BF_AVG_POOL, 0 },
	{ "avg_pool2d", BF_AVG_POOL, 0 }, { "avg_pool3d", BF_AVG_POOL, 0 },
	{ "adaptive_avg_pool1d", BF_ADAPTIVE_POOL, 0 }, { "adaptive_avg_pool2d", BF_ADAPTIVE_POOL, 0 },
	{ "_adaptive_avg_pool2d", BF_ADAPTIVE_POOL, 0 }, { "adaptive_avg_pool3d", BF_ADAPTIVE_POOL, 0 },
	{ "_adaptive_avg_pool3d", BF_ADAPTIVE_POOL, 0 },
	{ "max_pool2d_with_indices_backward", BF_POOL_BWD, 7 }, { "max_pool3d_with_indices_backward", BF_POOL_BWD, 7 },
	{ "avg_pool2d_backward", BF_POOL_BWD, -1 }, { "avg_pool3d_backward", BF_POOL_BWD, -1 },
	{ "_adaptive_avg_pool2d_backward", BF_POOL_BWD, -1 }, { "_adaptive_avg_pool3d_backward", BF_POOL_BWD, -1 },
	/* pointwise losses (self, target, reduction): reduction 0 keeps the shape */
	{ "mse_loss", BF_LOSS, 0 }, { "l1_loss", BF_LOSS, 0 }, { "smooth_l1_loss", BF_LOSS, 0 },
	{ "huber_loss", BF_LOSS, 0 }, { "binary_cross_entropy", BF_LOSS, 0 },
	{ "mse_loss_backward", BF_LOSS_BWD, 0 }, { "l1_loss_backward", BF_LOSS_BWD, 0 },
	{ "smooth_l1_loss_backward", BF_LOSS_BWD, 0 }, { "huber_loss_backward", BF_LOSS_BWD, 0 },
	{ "binary_cross_entropy_backward", BF_LOSS_BWD, 0 },
};

static const struct bop *find_bop(struct opmfu_text name, int *inplace)
{
	size_t i;
	*inplace = 0;
	/* add_, copy_, fill_: in place on the first argument */
	if (name.n > 1 && name.s[name.n - 1] == '_' && name.s[0] != '_') {
		*inplace = 1;
		name.n--;
	}
	for (i = 0; i < sizeof(bops) / sizeof(bops[0]); i++)
		if (sf_eq(name, bops[i].name))
			return &bops[i];
	return NULL;
}

/* the output shape of broadcasting args[0..n) (tensors only) into o; its rank, or -1 if they do not broadcast */
static int broadcast(const struct bcall *b, size_t n, int64_t *o, size_t cap, int64_t *numel)
{
	size_t i, r = 0, j;
	for (i = 0; i < n && i < b->n; i++)
		if (is_tensor(b, i) && b->a[i].rank > r)
			r = b->a[i].rank;
	if (r > cap)
		return -1;
	for (j = 0; j < r; j++)
		o[j] = 1;
	for (i = 0; i < n && i < b->n; i++) {
		const struct barg *a = &b->a[i];
		if (!is_tensor(b, i))
			continue;
		for (j = 0; j < a->rank; j++) {
			int64_t d = a->d[a->rank - 1 - j], *x = &o[r - 1 - j];
			if (d == *x || d == 1)
				continue;
			if (*x != 1)
				return -1;
			*x = d;
		}
	}
	return sf_prod(numel, o, r) == 0 ? (int)r : -1;
}

/* the result dtype's bits of elementwise operands args[0..n) (PyTorch's promotion, simplified: a
 * dimensioned operand's category and size win over a 0-dim one's unless the 0-dim is of a higher
 * category, which then gives its default: int64, float32) */
static int promote(const struct bcall *b, size_t n)
{
	int c1 = -1, b1 = 0, c0 = -1, b0 = 0;
	size_t i;
	for (i = 0; i < n && i < b->n; i++) {
		const struct barg *a = &b->a[i];
		if (!is_tensor(b, i))
			continue;
		if (a->rank) {
			if (a->cat > c1 || (a->cat == c1 && a->bits > b1))
				c1 = a->cat, b1 = a->bits;
		} else if (a->cat > c0 || (a->cat == c0 && a->bits > b0))
			c0 = a->cat, b0 = a->bits;
	}
	if (c1 < 0)
		return c0 < 0 ? -1 : b0;
	if (c0 > c1)
		return c0 == 1 ? 64 : c0 == 2 ? 32 : 64;
	return b1;
}

/* reduced numel: the input's over the dims of Concrete Inputs entry pos (absent or [] : all) */
static int reduced(const struct bcall *b, size_t pos, int64_t *out)
{
	const struct barg *x = &b->a[0];
	struct opmfu_text v;
	int64_t dims[SF_MAX_DIMS > 64 ? 64 : SF_MAX_DIMS], keep[64];
	size_t n = 0, i;
	*out = 1;
	if (!sf_attr_pos(b->attrs, pos, &v) || sf_ints(v, dims, 64, &n) != 0 || n == 0 || n > 64 || x->rank > 64)
		return 0; /* every dim */
	for (i = 0; i < x->rank; i++)
		keep[i] = x->d[i];
	for (i = 0; i < n; i++) {
		int64_t d = dims[i] < 0 ? dims[i] + (int64_t)x->rank : dims[i];
		if (d < 0 || d >= (int64_t)x->rank)
			return -1;
		keep[d] = 1;
	}
	return sf_prod(out, keep, x->rank);
}

/* a matmul's output numel M x N (with batch): of A (rank ra) and B */
static int mm_out(const struct barg *A, const struct barg *B, int64_t *out)
{
	int64_t m, n, batch = 1, f[2];
	size_t i, nb;
	if (A->rank == 0 || B->rank == 0)
		return -1;
	m = A->rank >= 2 ? A->d[A->rank - 2] : 1;
	n = B->rank >= 2 ? B->d[B->rank - 1] : 1;
	/* broadcast batch dims */
	nb = (A->rank > 2 ? A->rank - 2 : 0) > (B->rank > 2 ? B->rank - 2 : 0) ? A->rank - 2
									       : (B->rank > 2 ? B->rank - 2 : 0);
	for (i = 0; i < nb; i++) {
		int64_t da = A->rank > 2 && i < A->rank - 2 ? A->d[A->rank - 3 - i] : 1;
		int64_t db = B->rank > 2 && i < B->rank - 2 ? B->d[B->rank - 3 - i] : 1;
		if (sf_mul(&batch, da > db ? da : db) != 0)
			return -1;
	}
	f[0] = m;
	f[1] = n;
	if (sf_prod(out, f, 2) != 0 || sf_mul(out, batch) != 0)
		return -1;
	return 0;
}

/* a list argument of Concrete Inputs broadcast to ns values (one value, or ns); dflt when empty */
static int spatial(const struct bcall *b, size_t pos, size_t ns, const int64_t *dflt, int64_t fill, int64_t *out)
{
	struct opmfu_text v;
	size_t n = 0, i;
	if (!sf_attr_pos(b->attrs, pos, &v) || sf_ints(v, out, ns, &n) != 0 || n == 0) {
		for (i = 0; i < ns; i++)
			out[i] = dflt ? dflt[i] : fill;
		return 0;
	}
	return sf_each(out, n, ns);
}

#define MAX_POOL_DIMS 3

/* the pooled output numel of x: kernel, stride (empty: the kernel), padding, dilation at
 * Concrete Inputs 1..4 (dil < 0: none, 1), floor((in + 2p - d(k - 1) - 1) / s) + 1 per pooled dim */
static int pooled(const struct bcall *b, int dil, int64_t *numel)
{
	const struct barg *x = &b->a[0];
	int64_t k[MAX_POOL_DIMS], st[MAX_POOL_DIMS], p[MAX_POOL_DIMS], d[MAX_POOL_DIMS], o[64];
	struct opmfu_text v;
	size_t ns = 0, i, j;
	if (!sf_attr_pos(b->attrs, 1, &v) || sf_ints(v, k, MAX_POOL_DIMS, &ns) != 0 || ns == 0)
		return -1;
	if (ns == 1 && x->rank >= 3)
		ns = x->rank - 2 > MAX_POOL_DIMS ? MAX_POOL_DIMS : x->rank - 2;
	if (ns > MAX_POOL_DIMS || ns > x->rank || x->rank > 64 || spatial(b, 1, ns, NULL, 1, k) ||
	    spatial(b, 2, ns, k, 1, st) || spatial(b, 3, ns, NULL, 0, p) ||
	    spatial(b, dil < 0 ? 99 : (size_t)dil, ns, NULL, 1, d))
		return -1;
	for (i = 0; i < x->rank; i++)
		o[i] = x->d[i];
	for (j = 0; j < ns; j++) {
		int64_t in = x->d[x->rank - ns + j], span;
		if (st[j] < 1 || d[j] < 1 || p[j] < 0 || k[j] < 1 || in > INT64_MAX / 8 || p[j] > INT64_MAX / 8 ||
		    k[j] - 1 > INT64_MAX / 8 / d[j])
			return -1;
		span = d[j] * (k[j] - 1) + 1;
		if (in + 2 * p[j] < span)
			return -1;
		o[x->rank - ns + j] = (in + 2 * p[j] - span) / st[j] + 1;
	}
	return sf_prod(numel, o, x->rank);
}

/* elementwise: operands args[0..arity), an out= tensor past them; in place: the output is args[0] */
static int elementwise(const struct bcall *b, size_t arity, int inplace, int out_bits, int64_t *acc)
{
	int64_t o[64], numel;
	size_t i;
	int bits;
	for (i = 0; i < arity && i < b->n; i++)
		if (read_arg(b, i, acc))
			return -1;
	if (inplace) {
		if (!is_tensor(b, 0))
			return -1;
		return acc_add(acc, b->a[0].numel, b->a[0].bits);
	}
	for (i = arity; i < b->n; i++)
		if (is_tensor(b, i) && b->a[i].rank) /* out= */
			return acc_add(acc, b->a[i].numel, b->a[i].bits);
	if (broadcast(b, arity, o, 64, &numel) < 0)
		return -1;
	bits = out_bits ? out_bits : promote(b, arity);
	return bits < 0 ? -1 : acc_add(acc, numel, bits);
}

static int op_bytes(const struct bcall *b, const struct bop *op, int inplace, int64_t *acc)
{
	const struct barg *a = b->a;
	int64_t n, x;
	int bits;

	switch ((enum bfam)op->fam) {
	case BF_MM:
	case BF_BMM:
	case BF_MATMUL:
		if (!is_tensor(b, 0) || !is_tensor(b, 1) || mm_out(&a[0], &a[1], &n))
			return -1;
		return read_arg(b, 0, acc) || read_arg(b, 1, acc) || acc_add(acc, n, a[0].bits) ? -1 : 0;
	case BF_ADDMM:
	case BF_BADDBMM:
		if (!is_tensor(b, 1) || !is_tensor(b, 2) || mm_out(&a[1], &a[2], &n))
			return -1;
		return read_all(b, acc) || acc_add(acc, n, a[1].bits) ? -1 : 0;
	case BF_LINEAR:
		if (!is_tensor(b, 0) || !is_tensor(b, 1) || a[1].rank < 1 || a[0].rank < 1 ||
		    sf_prod(&n, a[0].d, a[0].rank - 1) || sf_mul(&n, a[1].d[0]))
			return -1;
		return read_all(b, acc) || acc_add(acc, n, a[0].bits) ? -1 : 0;
	case BF_ATTN_FWD:
		/* Q, K, V (and an attention bias) read; O = Q's shape with V's head dim, written */
		if (!is_tensor(b, 0) || !is_tensor(b, 2) || a[0].rank < 1 || a[2].rank < 1)
			return -1;
		if (sf_prod(&n, a[0].d, a[0].rank - 1) || sf_mul(&n, a[2].d[a[2].rank - 1]))
			return -1;
		for (x = 0; x < 4 && (size_t)x < b->n; x++)
			if (is_tensor(b, (size_t)x) && a[x].rank >= 2 && read_arg(b, (size_t)x, acc))
				return -1;
		return acc_add(acc, n, a[0].bits);
	case BF_ATTN_BWD:
		/* dO, Q, K, V, O, logsumexp, ... read; dQ, dK, dV written */
		if (!is_tensor(b, 1) || !is_tensor(b, 2) || !is_tensor(b, 3) || read_all(b, acc))
			return -1;
		return acc_add(acc, a[1].numel, a[1].bits) || acc_add(acc, a[2].numel, a[2].bits) ||
		       acc_add(acc, a[3].numel, a[3].bits);
	case BF_CONV: {
		int64_t out;
		enum opmfu_shape_status st = sf_conv_numel(&b->k, &out);
		if (st != OPMFU_SHAPE_OK || !is_tensor(b, 0) || !is_tensor(b, 1))
			return -1;
		/* x, w (and bias) read, y written */
		for (x = 0; x < 3; x++)
			if (read_arg(b, (size_t)x, acc))
				return -1;
		return acc_add(acc, out, a[0].bits);
	}
	case BF_CONV_BWD: {
		/* (dy, x, w, bias_sizes, ..., output_mask): dy read; x read for dw, w read for dx; dx, dw, db written */
		int gi = attr_bool_at(b, 10, 0, 1), gw = attr_bool_at(b, 10, 1, 1), gb = attr_bool_at(b, 10, 2, 0);
		if (!is_tensor(b, 0) || !is_tensor(b, 1) || !is_tensor(b, 2) || a[2].rank < 1)
			return -1;
		if (read_arg(b, 0, acc) || (gw && read_arg(b, 1, acc)) || (gi && read_arg(b, 2, acc)))
			return -1;
		if ((gi && acc_add(acc, a[1].numel, a[1].bits)) || (gw && acc_add(acc, a[2].numel, a[2].bits)) ||
		    (gb && acc_add(acc, a[2].d[0], a[0].bits)))
			return -1;
		return 0;
	}
	case BF_UNARY:
		return elementwise(b, 1, inplace, 0, acc);
	case BF_BINARY:
		if (op->name[0] == 'd' && op->name[1] == 'i' && promote(b, 2) > 0 && !inplace) {
			/* true division of integers gives float */
			size_t i;
			int c = -1;
			for (i = 0; i < 2; i++)
				if (is_tensor(b, i) && a[i].cat > c)
					c = a[i].cat;
			if (c <= 1)
				return elementwise(b, 2, 0, 32, acc);
		}
		return elementwise(b, 2, inplace, 0, acc);
	case BF_TERNARY:
		return elementwise(b, 3, inplace, 0, acc);
	case BF_COMPARE:
		return elementwise(b, op->name[0] == 'i' || sf_eq((struct opmfu_text){ op->name, strlen(op->name) },
								  "logical_not") ? 1 : 2,
				   inplace, 8, acc);
	case BF_FILL:
		/* self written (a fill value tensor is read) */
		if (!is_tensor(b, 0))
			return -1;
		return (b->n > 1 && read_arg(b, 1, acc)) || acc_add(acc, a[0].numel, a[0].bits) ? -1 : 0;
	case BF_COPY:
		/* copy_(self, src): src read at its dtype, self written at its own */
		if (!is_tensor(b, 0) || !is_tensor(b, 1))
			return -1;
		return read_arg(b, 1, acc) || acc_add(acc, a[0].numel, a[0].bits) ? -1 : 0;
	case BF_TO:
		/* self read; written at the dtype argument's (a tensor's, or a torch.dtype code) */
		if (!is_tensor(b, 0) || read_arg(b, 0, acc))
			return -1;
		bits = a[0].bits;
		if (is_tensor(b, 1))
			bits = a[1].bits;
		else if (attr_int(b, 1, &x) == 0 && scalar_type_bits(x))
			bits = scalar_type_bits(x);
		else if (attr_int(b, 2, &x) == 0 && scalar_type_bits(x))
			bits = scalar_type_bits(x);
		return acc_add(acc, a[0].numel, bits);
	case BF_REDUCE:
	case BF_REDUCE_IDX:
	case BF_REDUCE_BOOL:
		if (!is_tensor(b, 0) || reduced(b, (size_t)op->pos, &n) || read_arg(b, 0, acc))
			return -1;
		bits = op->fam == BF_REDUCE_IDX ? 64 : op->fam == BF_REDUCE_BOOL ? 8 : a[0].bits;
		return acc_add(acc, n, bits);
	case BF_MAXMIN:
		/* max(self, other) is elementwise; max(self, dim) gives values and int64 indices */
		if (is_tensor(b, 1))
			return elementwise(b, 2, inplace, 0, acc);
		if (!is_tensor(b, 0) || reduced(b, 1, &n) || read_arg(b, 0, acc))
			return -1;
		if (acc_add(acc, n, a[0].bits))
			return -1;
		return b->n > 1 && attr_int(b, 1, &x) == 0 ? acc_add(acc, n, 64) : 0;
	case BF_SOFTMAX:
		/* x read, y written (half_to_float: as float) */
		if (!is_tensor(b, 0) || read_arg(b, 0, acc))
			return -1;
		bits = op->name[0] == '_' && attr_bool_at(b, 2, 0, 0) == 1 ? 32 : a[0].bits;
		return acc_add(acc, a[0].numel, bits);
	case BF_SOFTMAX_BWD:
		/* dy, y read; dx written */
		if (!is_tensor(b, 0) || read_arg(b, 0, acc) || read_arg(b, 1, acc))
			return -1;
		return acc_add(acc, a[0].numel, a[0].bits);
	case BF_LAYER_NORM:
	case BF_RMS_NORM: {
		/* (x, normalized_shape, weight, bias, eps) or (x, normalized_shape, weight, eps): x, weight,
		 * bias read, y written; native_layer_norm and _fused_rms_norm also write the fp32 per-row
		 * statistics (mean and rstd; rstd) */
		int64_t rows = 1, w = 1;
		if (!is_tensor(b, 0) || read_all(b, acc) || acc_add(acc, a[0].numel, a[0].bits))
			return -1;
		if (!op->pos)
			return 0;
		if (is_tensor(b, 2) && a[2].numel > 0)
			w = a[2].numel;
		rows = a[0].numel / w;
		return acc_add(acc, rows, 32) || (op->fam == BF_LAYER_NORM && acc_add(acc, rows, 32)) ? -1 : 0;
	}
	case BF_LAYER_NORM_BWD: {
		/* (dy, x, normalized_shape, mean, rstd, weight, bias, output_mask): dy, x, mean, rstd, weight
		 * read; dx, dweight, dbias written as the mask says */
		size_t i;
		if (!is_tensor(b, 0) || !is_tensor(b, 1))
			return -1;
		for (i = 0; i < 6; i++)
			if (read_arg(b, i, acc))
				return -1;
		if (attr_bool_at(b, 7, 0, 1) && acc_add(acc, a[1].numel, a[1].bits))
			return -1;
		for (i = 1; i < 3; i++)
			if (attr_bool_at(b, 7, i, 1) && is_tensor(b, 5) && acc_add(acc, a[5].numel, a[5].bits))
				return -1;
		return 0;
	}
	case BF_BATCH_NORM: {
		/* (x, weight, bias, running_mean, running_var, training, ...): x and the four per-channel
		 * vectors read, y written; in training also the running stats written back and save_mean,
		 * save_invstd (fp32) written */
		int train = attr_bool_at(b, 5, 0, 1);
		int64_t c = a[0].rank >= 2 ? a[0].d[1] : 1;
		size_t i;
		if (!is_tensor(b, 0))
			return -1;
		for (i = 0; i < 5; i++)
			if (read_arg(b, i, acc))
				return -1;
		if (acc_add(acc, a[0].numel, a[0].bits))
			return -1;
		if (!train)
			return 0;
		return read_arg(b, 3, acc) || read_arg(b, 4, acc) || acc_add(acc, c, 32) || acc_add(acc, c, 32);
	}
	case BF_BATCH_NORM_BWD: {
		/* (dy, x, weight, running_mean, running_var, save_mean, save_invstd, train, eps, output_mask):
		 * every tensor read; dx, dweight, dbias written as the mask says */
		int64_t c = a[1].rank >= 2 ? a[1].d[1] : 1;
		int wb = is_tensor(b, 2) ? a[2].bits : a[1].bits;
		if (!is_tensor(b, 0) || !is_tensor(b, 1) || read_all(b, acc))
			return -1;
		if (attr_bool_at(b, 9, 0, 1) && acc_add(acc, a[1].numel, a[1].bits))
			return -1;
		if (attr_bool_at(b, 9, 1, 1) && acc_add(acc, c, wb))
			return -1;
		return attr_bool_at(b, 9, 2, 1) ? acc_add(acc, c, wb) : 0;
	}
	case BF_GROUP_NORM:
		/* x, weight, bias read, y written (native_group_norm's N x G statistics: negligible, left out) */
		if (!is_tensor(b, 0) || read_all(b, acc))
			return -1;
		return acc_add(acc, a[0].numel, a[0].bits);
	case BF_EMBEDDING:
		/* (weight, indices): indices read, one row of weight read per index, the rows written */
		if (!is_tensor(b, 0) || !is_tensor(b, 1) || a[0].rank != 2)
			return -1;
		n = a[1].numel;
		if (sf_mul(&n, a[0].d[1]) || read_arg(b, 1, acc) || acc_add(acc, n, a[0].bits))
			return -1;
		return acc_add(acc, n, a[0].bits);
	case BF_EMBEDDING_BWD:
		/* (grad, indices, num_weights, ...): grad and indices read, the num_weights x D gradient written */
		if (!is_tensor(b, 0) || !is_tensor(b, 1) || a[0].rank < 1 || attr_int(b, (size_t)op->pos, &x) ||
		    x < 0)
			return -1;
		n = x;
		if (sf_mul(&n, a[0].d[a[0].rank - 1]) || read_arg(b, 0, acc) || read_arg(b, 1, acc))
			return -1;
		return acc_add(acc, n, a[0].bits);
	case BF_INDEX_SELECT:
	case BF_GATHER: {
		/* index_select(self, dim, index): out is self with dim's extent the index's length;
		 * gather(self, dim, index): out has the index's shape. Index read, the selected
		 * elements of self read, out written. */
		size_t ix = 2;
		if (!is_tensor(b, 0) || !is_tensor(b, ix))
			return -1;
		if (op->fam == BF_GATHER)
			n = a[ix].numel;
		else {
			int64_t d;
			if (attr_int(b, 1, &d) || a[0].rank == 0)
				return -1;
			if (d < 0)
				d += (int64_t)a[0].rank;
			if (d < 0 || d >= (int64_t)a[0].rank || a[0].d[d] == 0)
				return -1;
			n = a[0].numel / a[0].d[d];
			if (sf_mul(&n, a[ix].numel))
				return -1;
		}
		return read_arg(b, ix, acc) || acc_add(acc, n, a[0].bits) || acc_add(acc, n, a[0].bits) ? -1 : 0;
	}
	case BF_DROPOUT:
		/* x read; y and the bool mask written */
		if (!is_tensor(b, 0) || read_arg(b, 0, acc) || acc_add(acc, a[0].numel, a[0].bits))
			return -1;
		return acc_add(acc, a[0].numel, 8);
	case BF_MAX_POOL:
	case BF_AVG_POOL:
		/* x read; the pooled output written (max: and its int64 indices) */
		if (!is_tensor(b, 0) || pooled(b, op->fam == BF_MAX_POOL ? 4 : -1, &n) || read_arg(b, 0, acc) ||
		    acc_add(acc, n, a[0].bits))
			return -1;
		return op->fam == BF_MAX_POOL ? acc_add(acc, n, 64) : 0;
	case BF_ADAPTIVE_POOL: {
		/* x read; N, C and output_size written */
		int64_t sz[MAX_POOL_DIMS];
		struct opmfu_text v;
		size_t ns = 0;
		if (!is_tensor(b, 0) || !sf_attr_pos(b->attrs, 1, &v) || sf_ints(v, sz, MAX_POOL_DIMS, &ns) ||
		    ns == 0 || ns > MAX_POOL_DIMS || ns > a[0].rank || sf_prod(&n, a[0].d, a[0].rank - ns) ||
		    sf_prod(&x, sz, ns) || sf_mul(&n, x) || read_arg(b, 0, acc))
			return -1;
		return acc_add(acc, n, a[0].bits);
	}
	case BF_POOL_BWD:
		/* (dy, x, ..., indices): dy (and max pooling's indices) read, dx (x's shape) written */
		if (!is_tensor(b, 0) || !is_tensor(b, 1) || read_arg(b, 0, acc) ||
		    (op->pos >= 0 && read_arg(b, (size_t)op->pos, acc)))
			return -1;
		return acc_add(acc, a[1].numel, a[1].bits);
	case BF_LOSS:
		/* self, target read; reduction 0 (none): self's shape written, else one element */
		if (!is_tensor(b, 0) || read_arg(b, 0, acc) || read_arg(b, 1, acc))
			return -1;
		return acc_add(acc, attr_int(b, 2, &x) == 0 && x == 0 ? a[0].numel : 1, a[0].bits);
	case BF_LOSS_BWD:
		/* (dy, self, target, reduction): every tensor read, dself written */
		if (!is_tensor(b, 1) || read_all(b, acc))
			return -1;
		return acc_add(acc, a[1].numel, a[1].bits);
	case BF_NONE:
		break;
	}
	return -1;
}

/* ---- kernel scope (Ascend): every input read, every output written ---- */

static int kernel_bytes(struct bcall *b, int64_t *acc)
{
	size_t i, nin = b->n, nout = sf_count(&b->k.out);
	struct opmfu_text d0 = list_entry(b->dt_in, 0);
	for (i = 0; i < nin; i++)
		if (b->a[i].bits < 0 || read_arg(b, i, acc))
			return -1;
	for (i = 0; i < nout; i++) {
		struct sf_t t = sf_tensor(&b->k.out, i);
		struct opmfu_text d = list_entry(b->dt_out, i);
		int64_t n;
		int bits;
		/* an output's dtype: its own when listed, else the input's at its place, else the first input's */
		if (!d.s || !d.n)
			d = list_entry(b->dt_in, i);
		if (!d.s || !d.n || dtype_bits(d) <= 0)
			d = d0;
		bits = d.s ? dtype_bits(d) : -1;
		if (bits <= 0 || sf_prod(&n, t.d, t.rank) || acc_add(acc, n, bits))
			return -1;
	}
	return 0;
}

/* ---- the call ---- */

int64_t opmfu_shape_bytes(const struct opmfu_shape_call *c, struct opmfu_text in_dtypes, struct opmfu_text out_dtypes,
			  int op_scope)
{
	static const char aten[] = "aten::";
	struct bcall b;
	size_t i;
	int64_t acc = 0;
	int inplace = 0;
	const struct bop *op = NULL;

	b.k.c = c;
	b.k.name = c->type;
	if (b.k.name.s && b.k.name.n >= 6 && memcmp(b.k.name.s, aten, 6) == 0) {
		b.k.name.s += 6;
		b.k.name.n -= 6;
	}
	b.dt_in = in_dtypes;
	b.dt_out = out_dtypes;
	b.attrs = c->attrs;
	if (sf_parse_list(c->in_shapes, &b.k.in) || sf_parse_list(c->out_shapes, &b.k.out))
		return -1;
	if (op_scope) {
		if (!b.k.in.known || !b.k.name.s || !(op = find_bop(b.k.name, &inplace)))
			return -1;
	} else if (!b.k.in.known && !b.k.out.known)
		return -1;
	b.n = sf_count(&b.k.in);
	if (b.n > MAX_ARGS)
		return -1;
	/* arguments past the call's are no tensors (rank 0, no dtype): the rules may look at them */
	memset(b.a, 0, sizeof(b.a));
	for (i = 0; i < b.n; i++) {
		struct sf_t t = sf_tensor(&b.k.in, i);
		struct opmfu_text d = list_entry(in_dtypes, i);
		struct barg *a = &b.a[i];
		a->d = t.d;
		a->rank = t.rank;
		a->bits = d.s ? dtype_bits(d) : -1;
		a->cat = d.s ? dtype_cat(d) : 1;
		if (sf_prod(&a->numel, t.d, t.rank))
			return -1;
	}
	if (!op_scope)
		return kernel_bytes(&b, &acc) ? -1 : acc;
	return op_bytes(&b, op, inplace, &acc) ? -1 : acc;
}

/* ---- the stage: fl->bytes for every compute link ---- */

#define CACHE_BITS 12

struct centry {
	uint32_t k[6];
	int64_t v;
};

static struct opmfu_text sid_text(const struct opmfu_trace *t, uint32_t sid)
{
	struct opmfu_text x = { NULL, 0 };
	if (sid && sid != t->shape_unknown && sid < t->strs.n) {
		x.s = opmfu_strtab_str(&t->strs, sid);
		x.n = opmfu_strtab_len(&t->strs, sid);
	}
	return x;
}

static int64_t link_bytes(const struct opmfu_trace *t, size_t i, struct centry *cache)
{
	const struct opmfu_link *l = &t->links[i];
	const struct opmfu_kext *kx = &t->kx[i];
	const struct opmfu_dtype *dt = opmfu_trace_dtype(t, l->dtype);
	uint32_t k[6] = { kx->type, l->in_shapes, l->out_shapes, l->dtype, kx->attrs, kx->out_dtypes };
	uint32_t h = 2166136261u;
	struct centry *e;
	struct opmfu_shape_call c;
	size_t j;

	for (j = 0; j < 6; j++)
		h = (h ^ k[j]) * 16777619u;
	e = &cache[h >> (32 - CACHE_BITS)];
	if (e->v != INT64_MIN && memcmp(e->k, k, sizeof(k)) == 0)
		return e->v;
	c.type = sid_text(t, kx->type);
	c.in_shapes = sid_text(t, l->in_shapes);
	c.out_shapes = sid_text(t, l->out_shapes);
	c.in_formats = sid_text(t, kx->in_formats);
	c.out_formats = sid_text(t, kx->out_formats);
	c.attrs = sid_text(t, kx->attrs);
	memcpy(e->k, k, sizeof(k));
	e->v = opmfu_shape_bytes(&c, sid_text(t, dt ? dt->text : 0), sid_text(t, kx->out_dtypes),
				 t->shape_scope == OPMFU_SHAPES_OP);
	return e->v;
}

int opmfu_flops_bytes(struct opmfu_flops *fl, const struct opmfu_trace *t)
{
	struct centry *cache;
	size_t i;
	int rc = 0;

	opmfu_free(fl->bytes);
	fl->bytes = NULL;
	if (!t->kx || !t->n_compute)
		return 0;
	fl->bytes = opmfu_malloc(t->n_compute * sizeof(*fl->bytes));
	cache = opmfu_malloc(((size_t)1 << CACHE_BITS) * sizeof(*cache));
	if (!fl->bytes || !cache) {
		opmfu_free(cache);
		opmfu_free(fl->bytes);
		fl->bytes = NULL;
		return -1;
	}
	for (i = 0; i < ((size_t)1 << CACHE_BITS); i++)
		cache[i].v = INT64_MIN;
	if (t->shape_scope == OPMFU_SHAPES_OP) {
		uint32_t *off = NULL, *ord = NULL;
		size_t o, j;
		if (opmfu_trace_group_by_op(t, &off, &ord)) {
			rc = -1;
		} else {
			for (i = 0; i < t->n_compute; i++)
				fl->bytes[i] = -1;
			for (o = 0; o < t->n_ops; o++) {
				uint32_t first;
				int64_t v;
				if (off[o] == off[o + 1])
					continue;
				first = ord[off[o]];
				for (j = off[o] + 1; j < off[o + 1]; j++)
					if (ord[j] < first)
						first = ord[j];
				v = link_bytes(t, first, cache);
				if (v < 0)
					continue;
				for (j = off[o]; j < off[o + 1]; j++)
					fl->bytes[ord[j]] = ord[j] == first ? v : 0;
			}
		}
		opmfu_free(off);
		opmfu_free(ord);
	} else {
		for (i = 0; i < t->n_compute; i++)
			fl->bytes[i] = link_bytes(t, i, cache);
	}
	opmfu_free(cache);
	if (rc) {
		opmfu_free(fl->bytes);
		fl->bytes = NULL;
	}
	return rc;
}
