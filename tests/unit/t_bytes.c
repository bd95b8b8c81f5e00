/*
 * t_bytes.c - bytes per op instance and per kernel (SPEC 18, flops/bytes.c,
 * docs/roofline.md): a hand case for every family, each expected value
 * worked out beside it from the rule (elements x bytes per element; bf16
 * and fp16 2, float 4, double and int64 8, bool and uint8 1); then every
 * kernel with shapes of the real Ascend level1 and level2 exports
 * (../shared/real/level*, read through the library and the FLOPs stage)
 * must have bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "flops/flops.h"
#include "flops/shape_flops.h"
#include "read/ascend/read_ascend.h"
#include "trace/trace.h"

static struct opmfu_text txt(const char *s)
{
	struct opmfu_text t = { s, s ? strlen(s) : 0 };
	return t;
}

/* attrs are written with '|' between entries (OPMFU_ATTR_SEP in a trace) */
static int64_t bytes_of(int op_scope, const char *type, const char *in, const char *out, const char *dt_in,
			const char *dt_out, const char *attrs)
{
	static char a[1024];
	struct opmfu_shape_call c;
	size_t i;
	if (attrs) {
		for (i = 0; attrs[i] && i + 1 < sizeof(a); i++)
			a[i] = attrs[i] == '|' ? OPMFU_ATTR_SEP : attrs[i];
		a[i] = '\0';
	}
	memset(&c, 0, sizeof(c));
	c.type = txt(type);
	c.in_shapes = txt(in);
	c.out_shapes = txt(out);
	c.attrs = txt(attrs ? a : NULL);
	return opmfu_shape_bytes(&c, txt(dt_in), txt(dt_out), op_scope);
}

/* a Kineto op: Input Dims, Input type, Concrete Inputs */
#define OP(want, type, in, types, attrs) CHECK_INT(bytes_of(1, type, in, NULL, types, NULL, attrs), want)
/* an Ascend kernel: inputs and outputs */
#define KN(want, type, in, out, dt_in, dt_out) CHECK_INT(bytes_of(0, type, in, out, dt_in, dt_out, NULL), want)

#define BF "c10::BFloat16"

static void t_matmul(void)
{
	/* A (8944 x 1024) + B (1024 x 2816) read, C (8944 x 2816) written:
	 * (9158656 + 2883584 + 25186304) x 2 = 74457088 (TraceLens: 71.0078125 MiB) */
	OP(74457088, "aten::mm", "8944,1024;1024,2816", BF ";" BF, "|");
	/* bias 1024 + A 9158656 + B 1048576 + C 9158656 = 19366912 x 2 = 38733824 */
	OP(38733824, "aten::addmm", "1024;8944,1024;1024,1024;;", BF ";" BF ";" BF ";Scalar;Scalar", "||||1|1");
	/* (32 + 559 + 32 x 559) x 4 = 18479 x 4 = 73916 */
	OP(73916, "aten::bmm", "1,32,1;1,1,559", "float;float", "|");
	/* x 2x3x8 = 48, W 4x8 = 32, bias 4, y 2x3x4 = 24: 108 x 2 = 216 */
	OP(216, "aten::linear", "2,3,8;4,8;4", "c10::Half;c10::Half;c10::Half", NULL);
	/* (5,2,3) @ (3,4): 30 + 12 + out 5x2x4 = 40: 82 x 4 = 328 */
	OP(328, "aten::matmul", "5,2,3;3,4", "float;float", NULL);
	/* bias 24 + A 30 + B 40 + out 2x3x4 = 24: 118 x 4 = 472 */
	OP(472, "aten::baddbmm", "2,3,4;2,3,5;2,5,4;;", "float;float;float;Scalar;Scalar", NULL);
}

static void t_attention(void)
{
	/* Q, K, V read, O written: 4 x 16x16x559x64 = 4 x 9158656 x 2 = 73269248 (TraceLens: 69.875 MiB) */
	OP(73269248, "aten::_scaled_dot_product_flash_attention", "16,16,559,64;16,16,559,64;16,16,559,64;;;;",
	   BF ";" BF ";" BF ";Scalar;Scalar;Scalar;Scalar", "|||0.|True|False|0.125");
	/* Q 2x4x8x16 = 1024, K 2x4x10x16 = 1280, V 2x4x10x32 = 2560, bias 2x4x8x10 = 640 read;
	 * O 2x4x8x32 = 2048 written: 7552 x 2 = 15104 */
	OP(15104, "aten::_scaled_dot_product_efficient_attention", "2,4,8,16;2,4,10,16;2,4,10,32;2,4,8,10;;;;",
	   "c10::Half;c10::Half;c10::Half;c10::Half;Scalar;Scalar;Scalar;Scalar", NULL);
	/* backward: dO, Q, K, V, O (5 x 64 bf16 = 640), logsumexp 8 float = 32, philox seed and
	 * offset (2 x int64 = 16) read; dQ, dK, dV written (3 x 64 x 2 = 384): 1072 */
	OP(1072, "aten::_scaled_dot_product_flash_attention_backward",
	   "1,2,4,8;1,2,4,8;1,2,4,8;1,2,4,8;1,2,4,8;1,2,4;;;;;;;;;",
	   BF ";" BF ";" BF ";" BF ";" BF ";float;;;Scalar;Scalar;Scalar;Scalar;long int;long int;Scalar", NULL);
	/* Ascend FlashAttentionScore: its inputs and outputs as listed. q, k, v 1x8x16x64 fp16
	 * (3 x 8192 x 2 = 49152) read; softmax_max, softmax_sum 1x8x16x8 float (2 x 1024 x 4 = 8192),
	 * softmax_out "" (a scalar, as shape lists say: 1 x 2) and attention_out 1x8x16x64 fp16
	 * (16384) written: 73730 */
	KN(73730, "FlashAttentionScore", "1,8,16,64;1,8,16,64;1,8,16,64", "1,8,16,8;1,8,16,8;;1,8,16,64",
	   "FLOAT16;FLOAT16;FLOAT16", "FLOAT;FLOAT;FLOAT16;FLOAT16");
}

static void t_conv(void)
{
	/* x 10x64x56x56 = 2007040, w 64x64x3x3 = 36864 read, y 10x64x56x56 written (stride 1,
	 * pad 1): (2 x 2007040 + 36864) x 2 = 8101888 */
	OP(8101888, "aten::convolution", "10,64,56,56;64,64,3,3;;;;;;;", BF ";" BF ";;ScalarList;ScalarList;ScalarList;"
	   "Scalar;ScalarList;Scalar", "|||[1, 1]|[1, 1]|[1, 1]|False|[0, 0]|1");
	/* x 1x3x8x8 = 192, w 4x3x3x3 = 108, bias 4 read; y 1x4x4x4 ((8 + 2 - 2 - 1) / 2 + 1 = 4)
	 * = 64 written: 368 x 4 = 1472 */
	OP(1472, "aten::convolution", "1,3,8,8;4,3,3,3;4;;;;;;", "float;float;float;ScalarList;ScalarList;"
	   "ScalarList;Scalar;ScalarList;Scalar", "|||[2, 2]|[1, 1]|[1, 1]|False|[0, 0]|1");
	/* backward, both grads: dy, x, w read, dx, dw written: 3 x 2007040 + 2 x 36864 = 6094848 x 2 = 12189696 */
	OP(12189696, "aten::convolution_backward", "10,64,56,56;10,64,56,56;64,64,3,3;;;;;;;;",
	   BF ";" BF ";" BF ";ScalarList;ScalarList;ScalarList;ScalarList;Scalar;ScalarList;Scalar;ScalarList",
	   "|||[0]|[1, 1]|[1, 1]|[1, 1]|False|[0, 0]|1|[True, True, False]");
	/* weight grad only: dy, x read, dw written: 2 x 2007040 + 36864 = 4050944 x 2 = 8101888 */
	OP(8101888, "aten::convolution_backward", "10,64,56,56;10,64,56,56;64,64,3,3;;;;;;;;",
	   BF ";" BF ";" BF ";ScalarList;ScalarList;ScalarList;ScalarList;Scalar;ScalarList;Scalar;ScalarList",
	   "|||[0]|[1, 1]|[1, 1]|[1, 1]|False|[0, 0]|1|[False, True, False]");
	/* and the bias grad too: + 64 x 2 = 12189824 */
	OP(12189824, "aten::convolution_backward", "10,64,56,56;10,64,56,56;64,64,3,3;;;;;;;;",
	   BF ";" BF ";" BF ";ScalarList;ScalarList;ScalarList;ScalarList;Scalar;ScalarList;Scalar;ScalarList",
	   "|||[64]|[1, 1]|[1, 1]|[1, 1]|False|[0, 0]|1|[True, True, True]");
	/* Ascend Conv2D, NC1HWC0 and FRACTAL_Z as stored: x 32x1x224x224x8 = 12845056, w 121x4x16x8 =
	 * 61952, bias 64 read, y 32x8x55x55x8 = 6195200 written: 19102272 x 4 = 76409088 */
	KN(76409088, "Conv2D", "32,1,224,224,8;121,4,16,8;64", "32,8,55,55,8", "FLOAT;FLOAT;FLOAT", "FLOAT");
}

static void t_elementwise(void)
{
	/* x, y read, out written at the broadcast shape: 3 x 9158656 x 2 = 54951936 (alpha: no tensor) */
	OP(54951936, "aten::add", "16,559,1024;16,559,1024;", BF ";" BF ";Scalar", "||1");
	/* 9158656 x 4 + 8944 x 4 read, 16x559x1024 float written: 73305024 */
	OP(73305024, "aten::mul", "16,559,1024;16,559,1", "float;float", "|");
	/* in place: self and other read, self written: 3 x 72192 x 2 = 433152 */
	OP(433152, "aten::add_", "1,141,512;1,141,512;", BF ";" BF ";Scalar", "||1");
	/* an out= tensor past the operands gives the output: 1024 + 8 (0-dim double) + 1024 = 2056 */
	OP(2056, "aten::mul", "512;;512", BF ";double;" BF, NULL);
	/* a 0-dim double does not promote a float tensor: 35776 + 8 + 35776 = 71560 */
	OP(71560, "aten::add", "16,559,1;;", "float;double;Scalar", "||1");
	/* bf16 / int64 0-dim: bf16 out: 501760 + 8 + 501760 = 1003528 */
	OP(1003528, "aten::div", "10,512,7,7;", BF ";long int", NULL);
	/* comparisons write bool: 2 x 160 x 8 + 160 = 2720 */
	OP(2720, "aten::eq", "5,32;5,32", "long int;long int", NULL);
	/* unary: 25186304 x 2 x 2 = 100745216 */
	OP(100745216, "aten::silu", "16,559,2816", BF, NULL);
	/* unary in place: read and written once each: 2007040 x 2 x 2 = 8028160 */
	OP(8028160, "aten::clamp_min_", "10,64,56,56;", BF ";Scalar", "|0");
	/* where(bool 4x1, float 4x8, float 0-dim): 4 + 128 + 4 read, 4x8 float = 128 written: 264 */
	OP(264, "aten::where", "4,1;4,8;", "bool;float;float", NULL);
	/* a scalar operand is a kernel argument: 6 x 4 read and written = 48 */
	OP(48, "aten::pow", "6;", "float;Scalar", "|2");
	/* fill_: written only: 10 x 2 = 20 */
	OP(20, "aten::fill_", "10;", BF ";Scalar", "|0");
	/* Ascend Mul with a scalar input: (4096000 + 1 + 4096000) x 4 = 32768004 */
	KN(32768004, "Mul", "1000,4096;", "1000,4096", "FLOAT;FLOAT", "FLOAT");
	/* broadcast that does not fit: unknown */
	OP(-1, "aten::add", "3,4;5,4;", "float;float;Scalar", NULL);
}

static void t_copies(void)
{
	/* copy_(self bf16, src float): src read at 4, self written at 2: 9158656 x 6 = 54951936 */
	OP(54951936, "aten::copy_", "16,559,1024;16,559,1024;", BF ";float;Scalar", "||False");
	/* _to_copy(float 2x3, dtype=15 (bfloat16)): 24 read, 12 written: 36 */
	OP(36, "aten::_to_copy", "2,3;;;;;;", "float;Scalar;;;;Scalar;", "|15|||||");
	/* to(float 4, dtype=5 (half)): 16 + 8 = 24 */
	OP(24, "aten::to", "4;;;;", "float;Scalar;Scalar;Scalar;", "|5|False|False|");
	/* Ascend Cast BOOL -> FLOAT: 160 x 1 read, 160 x 4 written = 800; without the output
	 * dtypes (the reader keeps none yet) the output takes the input's: 320 */
	KN(800, "Cast", "160", "160", "BOOL", "FLOAT");
	KN(320, "Cast", "160", "160", "BOOL", NULL);
	/* TransData ND -> FRACTAL_NZ, as stored: 30 x 20 fp16 = 1200 read, 2x2x16x16 = 1024 x 2 = 2048 written */
	KN(3248, "TransData", "30,20", "2,2,16,16", "FLOAT16", "FLOAT16");
}

static void t_reductions(void)
{
	/* mean over the last dim: 9158656 x 4 read, 16x559 = 8944 x 4 written: 36670400 */
	OP(36670400, "aten::mean", "16,559,1024;;;", "float;ScalarList;Scalar;", "|[-1]|True|");
	/* sum over dim 0: 10000 x 2 + 1000 x 2 = 22000 */
	OP(22000, "aten::sum", "10,1000;;;", BF ";ScalarList;Scalar;", "|[0]|True|");
	/* sum of everything: 20000 + 2 = 20002 */
	OP(20002, "aten::sum", "10,1000;", BF ";", NULL);
	/* max over dim 1 gives values and int64 indices: 96 + 4 x 4 + 4 x 8 = 144; max of all: 96 + 4 */
	OP(144, "aten::max", "4,6;;", "float;Scalar;Scalar", "|1|False");
	OP(100, "aten::max", "4,6", "float", NULL);
	/* max(self, other) is elementwise: 3 x 24 x 4 = 288 */
	OP(288, "aten::max", "4,6;4,6", "float;float", NULL);
	/* argmax: int64 out: 96 + 4 x 8 = 128 */
	OP(128, "aten::argmax", "4,6;;", "float;Scalar;Scalar", "|1|False");
	/* Ascend ReduceSum, axes as an input tensor: 32x1000 x 4 + 1 x 8 read, 1x1000 x 4 written: 132008 */
	KN(132008, "ReduceSum", "32,1000;1", "1,1000", "FLOAT;INT64", "FLOAT");
}

static void t_norms(void)
{
	/* native_layer_norm: x 72192 x 2 read, y written, weight and bias 512 x 2 each read, mean and
	 * rstd 141 x 4 each written: 288768 + 2048 + 1128 = 291944 */
	OP(291944, "aten::native_layer_norm", "1,141,512;;512;512;", BF ";ScalarList;" BF ";" BF ";Scalar",
	   "|[512]|||1e-12");
	/* layer_norm: no statistics: 290816 */
	OP(290816, "aten::layer_norm", "1,141,512;;512;512;;", BF ";ScalarList;" BF ";" BF ";Scalar;Scalar",
	   "|[512]|||1e-12|True");
	/* native_batch_norm, training: x 1003520 x 2 read, y written (4014080); weight, bias,
	 * running mean, var 4 x 128 x 2 read (1024); running stats written back (512); save_mean,
	 * save_invstd 2 x 128 x 4 (1024): 4016640 */
	OP(4016640, "aten::native_batch_norm", "10,128,28,28;128;128;128;128;;;", BF ";" BF ";" BF ";" BF ";" BF
	   ";Scalar;Scalar;Scalar", "|||||True|0.1|1e-05");
	/* eval: no statistics written: 4014080 + 1024 = 4015104 */
	OP(4015104, "aten::native_batch_norm", "10,128,28,28;128;128;128;128;;;", BF ";" BF ";" BF ";" BF ";" BF
	   ";Scalar;Scalar;Scalar", "|||||False|0.1|1e-05");
	/* softmax: 3200 read and written: 6400; half_to_float: 1600 read, 3200 written: 4800 */
	OP(6400, "aten::_softmax", "8,100;;", "float;Scalar;Scalar", "|-1|False");
	OP(4800, "aten::_softmax", "8,100;;", BF ";Scalar;Scalar", "|-1|True");
	/* softmax backward: dy, y read, dx written: 3 x 3200 = 9600 */
	OP(9600, "aten::_softmax_backward_data", "8,100;8,100;;", "float;float;Scalar;Scalar", NULL);
	/* rms_norm: x 256 x 2 + w 64 x 2 read, y 512 written: 1152 */
	OP(1152, "aten::rms_norm", "4,64;;64;", BF ";ScalarList;" BF ";Scalar", "|[64]||1e-6");
	/* Ascend LayerNorm-like kernels: inputs and outputs listed (LogSoftmaxV2 32x1000 float: 2 x 128000) */
	KN(256000, "LogSoftmaxV2", "32,1000", "32,1000", "FLOAT", "FLOAT");
}

static void t_gather(void)
{
	/* embedding(weight 30522x512 bf16, indices 1x141 int64): indices 1128, 141 rows of 512 read
	 * (144384) and written (144384): 289896 */
	OP(289896, "aten::embedding", "30522,512;1,141;;;", BF ";long int;Scalar;Scalar;Scalar", "|||-1|False|False");
	/* index_select(weight, 0, index 141): the same traffic: 289896 */
	OP(289896, "aten::index_select", "30522,512;;141", BF ";Scalar;long int", "|0|");
	/* embedding_dense_backward: grad 144384 + indices 1128 read, 30522 x 512 x 2 = 31254528
	 * written: 31400040 */
	OP(31400040, "aten::embedding_dense_backward", "1,141,512;1,141;;;", BF ";long int;Scalar;Scalar;Scalar",
	   "||30522|-1|False");
	/* gather(float 4x10, 1, index int64 4x3): index 96, 12 elements read (48), 12 written (48): 192 */
	OP(192, "aten::gather", "4,10;;4,3;", "float;Scalar;long int;Scalar", "|1||False");
}

static void t_pooling(void)
{
	/* max_pool2d_with_indices(bf16 10x64x112x112, [3, 3], [2, 2], [1, 1], [1, 1]): out
	 * (112 + 2 - 2 - 1) / 2 + 1 = 56 per side, 10x64x56x56 = 2007040. x 8028160 x 2 = 16056320
	 * read; values 2007040 x 2 = 4014080 and int64 indices 2007040 x 8 = 16056320 written: 36126720 */
	OP(36126720, "aten::max_pool2d_with_indices", "10,64,112,112;;;;;", BF ";ScalarList;ScalarList;ScalarList;"
	   "ScalarList;Scalar", "|[3, 3]|[2, 2]|[1, 1]|[1, 1]|False");
	/* its backward: dy 4014080 and indices 16056320 read, dx 16056320 written: 36126720 */
	OP(36126720, "aten::max_pool2d_with_indices_backward", "10,64,56,56;10,64,112,112;;;;;;10,64,56,56",
	   BF ";" BF ";ScalarList;ScalarList;ScalarList;ScalarList;Scalar;long int",
	   "||[3, 3]|[2, 2]|[1, 1]|[1, 1]|False|");
	/* avg_pool2d(float 1x1x4x4, [2, 2]) (stride: the kernel): 64 read, 1x1x2x2 x 4 = 16 written: 80 */
	OP(80, "aten::avg_pool2d", "1,1,4,4;;;;;;", "float;ScalarList;ScalarList;ScalarList;Scalar;Scalar;",
	   "|[2, 2]|[]|[0, 0]|False|True|");
	/* adaptive_avg_pool2d(bf16 10x512x7x7, [1, 1]): 250880 x 2 read, 10x512 x 2 written: 512000 */
	OP(512000, "aten::adaptive_avg_pool2d", "10,512,7,7;", BF ";ScalarList", "|[1, 1]");
	/* mse_loss(bf16 10x1000, bf16 10x1000, mean): 2 x 20000 read, one element written: 40002 */
	OP(40002, "aten::mse_loss", "10,1000;10,1000;", BF ";" BF ";Scalar", "||1");
	/* reduction none: 20000 written: 60000 */
	OP(60000, "aten::mse_loss", "10,1000;10,1000;", BF ";" BF ";Scalar", "||0");
	/* mse_loss_backward(dy 0-dim, self, target): 2 + 20000 + 20000 read, dself 20000 written: 60002 */
	OP(60002, "aten::mse_loss_backward", ";10,1000;10,1000;", BF ";" BF ";" BF ";Scalar", "|||1");
}

static void t_unknown(void)
{
	OP(-1, "aten::no_such_op", "4,4", "float", NULL);
	OP(-1, "aten::mm", "4,4;4,4", "float;no such dtype", NULL);
	OP(-1, "aten::mm", NULL, "float;float", NULL);
	OP(-1, "aten::mm", "4,,4;4,4", "float;float", NULL);
	/* a kernel with neither shape list */
	KN(-1, "MemSet", NULL, NULL, NULL, NULL);
	/* an output with no dtype anywhere */
	KN(-1, "DSAGenBitMask", NULL, "16384", NULL, NULL);
	KN(16384, "DSAGenBitMask", NULL, "16384", NULL, "UINT8");
}

/* Every kernel of the real Ascend exports whose shapes are known gets bytes. */
static void t_ascend_real(void)
{
	static const char *const dbs[] = {
		"level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db",
		"level1/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_1.db",
		"level2/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db",
		"level2/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_1.db",
	};
	size_t d, i;
	for (d = 0; d < sizeof(dbs) / sizeof(dbs[0]); d++) {
		char path[512];
		struct opmfu_trace t;
		struct opmfu_flops fl;
		struct opmfu_err err;
		size_t with = 0, have = 0;
		FILE *f;
		snprintf(path, sizeof(path), "%s/../shared/real/%s", OPMFU_SOURCE_ROOT, dbs[d]);
		if (!(f = fopen(path, "rb"))) {
			fprintf(stderr, "t_bytes: %s: absent\n", path);
			CHECK(0);
			continue;
		}
		fclose(f);
		opmfu_trace_init(&t);
		opmfu_flops_init(&fl);
		memset(&err, 0, sizeof(err));
		CHECK_INT(opmfu_read_ascend(path, &t, &err), OPMFU_OK);
		CHECK_INT(opmfu_flops_run(&fl, &t, NULL, 0, &err), OPMFU_OK);
		CHECK(t.shape_scope == OPMFU_SHAPES_KERNEL);
		CHECK(fl.bytes != NULL);
		for (i = 0; fl.bytes && i < t.n_compute; i++) {
			const struct opmfu_link *l = &t.links[i];
			int known = (l->in_shapes && l->in_shapes != t.shape_unknown) ||
				    (l->out_shapes && l->out_shapes != t.shape_unknown);
			if (!known)
				continue;
			with++;
			if (fl.bytes[i] >= 0) {
				have++;
			} else {
				fprintf(stderr, "t_bytes: %s: kernel %zu (%s, %s -> %s): no bytes\n", dbs[d], i,
					t.kx ? opmfu_strtab_str(&t.strs, t.kx[i].type) : "?",
					l->in_shapes && l->in_shapes != t.shape_unknown
						? opmfu_strtab_str(&t.strs, l->in_shapes) : "N/A",
					l->out_shapes && l->out_shapes != t.shape_unknown
						? opmfu_strtab_str(&t.strs, l->out_shapes) : "N/A");
			}
		}
		fprintf(stderr, "t_bytes: %s: %zu of %zu kernels with shapes have bytes\n", dbs[d], have, with);
		CHECK(with > 0);
		CHECK_INT(have, with);
		opmfu_flops_release(&fl);
		opmfu_trace_release(&t);
	}
}

int main(void)
{
	t_matmul();
	t_attention();
	t_conv();
	t_elementwise();
	t_copies();
	t_reductions();
	t_norms();
	t_gather();
	t_pooling();
	t_unknown();
	t_ascend_real();
	return check_done();
}
