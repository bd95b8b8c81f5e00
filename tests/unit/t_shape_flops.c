/*
 * t_shape_flops.c - the shape FLOPs formulas (SPEC 9, flops/shape_flops.h)
 * against three oracles: the real Ascend rows of the level1 export
 * (../shared/real/level1, COMPUTE_TASK_INFO), TraceLens's own reports of
 * the real Kineto traces (the perf_report_csvs folders of ../shared/real/kineto: every
 * distinct op and shape of GEMM.csv, SDPA_fwd.csv, CONV_fwd.csv and
 * CONV_bwd.csv), and hand cases for every family, layout and failure.
 * Every expected value is worked out in the comment beside it from the
 * formula: a multiply-add is 2 FLOPs, only the matrix/attention body.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "flops/shape_flops.h"
#include "trace/trace.h"

#define OK OPMFU_SHAPE_OK
#define NOF OPMFU_SHAPE_NO_FORMULA
#define UNK OPMFU_SHAPE_UNKNOWN
#define MIS OPMFU_SHAPE_MISMATCH
#define OVF OPMFU_SHAPE_OVERFLOW
#define NOA OPMFU_SHAPE_NO_ATTR

static struct opmfu_text txt(const char *s)
{
	struct opmfu_text t = { s, s ? strlen(s) : 0 };
	return t;
}

/* attrs are written with '|' between entries (OPMFU_ATTR_SEP in a trace) */
static int64_t got;
static enum opmfu_shape_status run(const char *type, const char *in, const char *out, const char *inf,
				   const char *outf, const char *attrs)
{
	static char a[1024];
	struct opmfu_shape_call c;
	size_t i;
	if (attrs) {
		for (i = 0; attrs[i] && i + 1 < sizeof(a); i++)
			a[i] = attrs[i] == '|' ? OPMFU_ATTR_SEP : attrs[i];
		a[i] = '\0';
	}
	c.type = txt(type);
	c.in_shapes = txt(in);
	c.out_shapes = txt(out);
	c.in_formats = txt(inf);
	c.out_formats = txt(outf);
	c.attrs = txt(attrs ? a : NULL);
	got = -1;
	return opmfu_shape_flops(&c, &got);
}

/* the call's status and FLOPs (0 whenever the status is not OK) */
#define FL(st, f, type, in, out, inf, outf, attrs)                        \
	do {                                                              \
		CHECK_INT(run(type, in, out, inf, outf, attrs), st);      \
		CHECK_INT(got, f);                                        \
	} while (0)
/* a Kineto op: no outputs, no formats, Concrete Inputs as attrs */
#define K(st, f, type, in, attrs) FL(st, f, type, in, NULL, NULL, NULL, attrs)

/* ---- families and names ---- */

static void t_family(void)
{
	static const struct {
		const char *type;
		enum opmfu_flops_family fam;
	} cases[] = {
		{ "MatMulV2", OPMFU_FAM_MATMUL }, { "MatMulV3", OPMFU_FAM_MATMUL }, { "MatMul", OPMFU_FAM_MATMUL },
		{ "BatchMatMulV2", OPMFU_FAM_MATMUL }, { "QuantBatchMatmulV3", OPMFU_FAM_MATMUL },
		{ "WeightQuantBatchMatmulV2", OPMFU_FAM_MATMUL }, { "GroupedMatmul", OPMFU_FAM_MATMUL },
		{ "aten::mm", OPMFU_FAM_MATMUL }, { "mm", OPMFU_FAM_MATMUL }, { "aten::addmm", OPMFU_FAM_MATMUL },
		{ "aten::bmm", OPMFU_FAM_MATMUL }, { "aten::baddbmm", OPMFU_FAM_MATMUL },
		{ "aten::matmul", OPMFU_FAM_MATMUL }, { "linear", OPMFU_FAM_MATMUL },
		{ "FlashAttentionScore", OPMFU_FAM_ATTENTION }, { "FlashAttentionScoreGrad", OPMFU_FAM_ATTENTION },
		{ "FusedInferAttentionScore", OPMFU_FAM_ATTENTION },
		{ "aten::_scaled_dot_product_flash_attention", OPMFU_FAM_ATTENTION },
		{ "aten::_scaled_dot_product_efficient_attention_backward", OPMFU_FAM_ATTENTION },
		{ "aten::scaled_dot_product_attention", OPMFU_FAM_ATTENTION },
		{ "aten::_flash_attention_forward", OPMFU_FAM_ATTENTION },
		{ "flash_attn::_flash_attn_forward", OPMFU_FAM_ATTENTION },
		{ "Conv2D", OPMFU_FAM_CONV }, { "Conv2DBackpropInput", OPMFU_FAM_CONV },
		{ "Conv3DBackpropFilterV2", OPMFU_FAM_CONV }, { "aten::convolution", OPMFU_FAM_CONV },
		{ "aten::_convolution", OPMFU_FAM_CONV }, { "aten::conv2d", OPMFU_FAM_CONV },
		{ "aten::cudnn_convolution", OPMFU_FAM_CONV }, { "aten::miopen_convolution", OPMFU_FAM_CONV },
		{ "aten::convolution_backward", OPMFU_FAM_CONV },
		/* no formula: their time still counts, without FLOPs */
		{ "TransData", OPMFU_FAM_NONE }, { "aten::add", OPMFU_FAM_NONE }, { "aten::mm_", OPMFU_FAM_NONE },
		{ "aten::", OPMFU_FAM_NONE }, { "", OPMFU_FAM_NONE }, { "matmulv2", OPMFU_FAM_NONE },
		{ "flash_attn::_flash_attn_forwardx", OPMFU_FAM_NONE }, { "aten::aten::mm", OPMFU_FAM_NONE },
	};
	size_t i;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum opmfu_flops_family f = opmfu_shape_family(txt(cases[i].type));
		if (f != cases[i].fam)
			fprintf(stderr, "family of \"%s\"\n", cases[i].type);
		CHECK_INT(f, cases[i].fam);
	}
	CHECK_INT(opmfu_shape_family(txt(NULL)), OPMFU_FAM_NONE);
	CHECK_STR(opmfu_flops_family_name(OPMFU_FAM_MATMUL), "matmul");
	CHECK_STR(opmfu_flops_family_name(OPMFU_FAM_ATTENTION), "attention");
	CHECK_STR(opmfu_flops_family_name(OPMFU_FAM_CONV), "conv");
	CHECK_STR(opmfu_flops_family_name(OPMFU_FAM_NONE), "none");
	CHECK_STR(opmfu_shape_status_name(OK), "ok");
	CHECK_STR(opmfu_shape_status_name(NOF), "no formula");
	CHECK_STR(opmfu_shape_status_name(UNK), "unknown shapes");
	CHECK_STR(opmfu_shape_status_name(MIS), "shape mismatch");
	CHECK_STR(opmfu_shape_status_name(OVF), "overflow");
	CHECK_STR(opmfu_shape_status_name(NOA), "no attribute");
}

/* ---- the real Ascend rows (level1 rank 0, COMPUTE_TASK_INFO) ---- */

static void t_ascend_real(void)
{
	/* AlexNet's convolutions, fp32 (C0 = 8) in NC1HWC0 with FRACTAL_Z
	 * weights (C1*Kh*Kw, N1, 16, C0). FLOPs = 2 * numel(y) * dim0 * C0.
	 * conv1: y 32*8*55*55*8 = 6195200 (64 channels), R = 121*8 = 968
	 * (3 channels padded to 8, 11x11): 2 * 6195200 * 968 = 11993907200 */
	FL(OK, 11993907200, "Conv2D", "32,1,224,224,8;121,4,16,8;64", "32,8,55,55,8", "NC1HWC0;FRACTAL_Z;NCHW",
	   "NC1HWC0", NULL);
	/* conv2: y 32*24*27*27*8 = 4478976, R = 200*8 = 1600 (64 ch, 5x5): 14332723200 */
	FL(OK, 14332723200, "Conv2D", "32,8,27,27,8;200,12,16,8;192", "32,24,27,27,8", "NC1HWC0;FRACTAL_Z;NCHW",
	   "NC1HWC0", NULL);
	/* conv3: y 32*48*13*13*8 = 2076672, R = 216*8 = 1728: 7176978432 */
	FL(OK, 7176978432, "Conv2D", "32,24,13,13,8;216,24,16,8;384", "32,48,13,13,8", "NC1HWC0;FRACTAL_Z;NCHW",
	   "NC1HWC0", NULL);
	/* conv4: y 32*32*13*13*8 = 1384448, R = 432*8 = 3456: 9569304576 */
	FL(OK, 9569304576, "Conv2D", "32,48,13,13,8;432,16,16,8;256", "32,32,13,13,8", "NC1HWC0;FRACTAL_Z;NCHW",
	   "NC1HWC0", NULL);
	/* conv5: y 1384448, R = 288*8 = 2304: 6379536384 */
	FL(OK, 6379536384, "Conv2D", "32,32,13,13,8;288,16,16,8;256", "32,32,13,13,8", "NC1HWC0;FRACTAL_Z;NCHW",
	   "NC1HWC0", NULL);
	/* weight grads (x, filter_size, out_backprop) -> dw: numel(dy) * R of
	 * dw, each the same as its forward above */
	FL(OK, 6379536384, "Conv2DBackpropFilter", "32,32,13,13,8;4;32,32,13,13,8", "288,16,16,8",
	   "NC1HWC0;NCHW;NC1HWC0", "FRACTAL_Z", "N/A");
	FL(OK, 9569304576, "Conv2DBackpropFilter", "32,48,13,13,8;4;32,32,13,13,8", "432,16,16,8",
	   "NC1HWC0;NCHW;NC1HWC0", "FRACTAL_Z", NULL);
	FL(OK, 7176978432, "Conv2DBackpropFilter", "32,24,13,13,8;4;32,48,13,13,8", "216,24,16,8",
	   "NC1HWC0;NCHW;NC1HWC0", "FRACTAL_Z", NULL);
	FL(OK, 14332723200, "Conv2DBackpropFilter", "32,8,27,27,8;4;32,24,27,27,8", "200,12,16,8",
	   "NC1HWC0;NCHW;NC1HWC0", "FRACTAL_Z", NULL);
	FL(OK, 11993907200, "Conv2DBackpropFilter", "32,1,224,224,8;4;32,8,55,55,8", "121,4,16,8",
	   "NC1HWC0;NCHW;NC1HWC0", "FRACTAL_Z", NULL);
	/* input grads (input_size, filter, out_backprop) -> dx: the same */
	FL(OK, 6379536384, "Conv2DBackpropInput", "4;288,16,16,8;32,32,13,13,8", "32,32,13,13,8",
	   "NCHW;FRACTAL_Z;NC1HWC0", "NC1HWC0", NULL);
	FL(OK, 9569304576, "Conv2DBackpropInput", "4;432,16,16,8;32,32,13,13,8", "32,48,13,13,8",
	   "NCHW;FRACTAL_Z;NC1HWC0", "NC1HWC0", NULL);
	FL(OK, 7176978432, "Conv2DBackpropInput", "4;216,24,16,8;32,48,13,13,8", "32,24,13,13,8",
	   "NCHW;FRACTAL_Z;NC1HWC0", "NC1HWC0", NULL);
	FL(OK, 14332723200, "Conv2DBackpropInput", "4;200,12,16,8;32,24,27,27,8", "32,8,27,27,8",
	   "NCHW;FRACTAL_Z;NC1HWC0", "NC1HWC0", NULL);

	/* the classifier's matmuls, FORMAT_ND as Ascend writes it.
	 * fc1 forward, x (32, 9216) @ W^T, W (4096, 9216): 2*32*4096*9216 = 2415919104 */
	FL(OK, 2415919104, "MatMulV2", "32,9216;4096,9216;4096", "32,4096", "FORMAT_ND;FORMAT_ND;FORMAT_ND",
	   "FORMAT_ND", "N/A");
	/* fc2: 2*32*4096*4096 = 1073741824; fc3: 2*32*1000*4096 = 262144000 */
	FL(OK, 1073741824, "MatMulV2", "32,4096;4096,4096;4096", "32,4096", "FORMAT_ND;FORMAT_ND;FORMAT_ND",
	   "FORMAT_ND", NULL);
	FL(OK, 262144000, "MatMulV2", "32,4096;1000,4096;1000", "32,1000", "FORMAT_ND;FORMAT_ND;FORMAT_ND",
	   "FORMAT_ND", NULL);
	/* fc3 input grad (32, 1000) @ (1000, 4096): 2*32*4096*1000 = 262144000 */
	FL(OK, 262144000, "MatMulV2", "32,1000;1000,4096", "32,4096", "FORMAT_ND;FORMAT_ND", "FORMAT_ND", NULL);
	/* fc3 weight grad dy^T @ x: A (32, 1000) transposed, K = 32: 2*1000*4096*32 = 262144000 */
	FL(OK, 262144000, "MatMulV2", "32,1000;32,4096", "1000,4096", "FORMAT_ND;FORMAT_ND", "FORMAT_ND", NULL);
	FL(OK, 1073741824, "MatMulV2", "32,4096;4096,4096", "32,4096", "FORMAT_ND;FORMAT_ND", "FORMAT_ND", NULL);
	/* fc2 weight grad: (32,4096)^T @ (32,4096) -> (4096,4096), K = 32: 2*4096*4096*32 = 1073741824 */
	FL(OK, 1073741824, "MatMulV2", "32,4096;32,4096", "4096,4096", "FORMAT_ND;FORMAT_ND", "FORMAT_ND", NULL);
	/* fc1 input grad: 2*32*9216*4096 = 2415919104; weight grad (V3): 2*4096*9216*32 */
	FL(OK, 2415919104, "MatMulV2", "32,4096;4096,9216", "32,9216", "FORMAT_ND;FORMAT_ND", "FORMAT_ND", NULL);
	FL(OK, 2415919104, "MatMulV3", "32,4096;32,9216", "4096,9216", "FORMAT_ND;FORMAT_ND", "FORMAT_ND", NULL);
}

/* ---- TraceLens's reports of the real Kineto traces ---- */

static void t_tracelens_gemm(void)
{
	/* bert-small GEMM.csv: four addmm shapes. TraceLens adds the bias M*N;
	 * opmfu counts the product only (SPEC 9), the one allowed difference.
	 * (141,512)@(512,512): 2*141*512*512 = 73924608; TraceLens 0.0739968 GFLOPS = 73996800 = + 141*512 */
	K(OK, 73996800 - 141 * 512, "aten::addmm", "512;141,512;512,512;;", "|||1|1");
	/* (141,512)@(512,30522): 2*141*30522*512 = 4406888448; TraceLens 4.41119205 = + 141*30522 */
	K(OK, 4411192050 - 141 * 30522, "aten::addmm", "30522;141,512;512,30522;;", "|||1|1");
	/* (141,2048)@(2048,512): 295698432; TraceLens 0.295770624 = + 141*512 */
	K(OK, 295770624 - 141 * 512, "aten::addmm", "512;141,2048;2048,512;;", "|||1|1");
	/* (141,512)@(512,2048): 295698432; TraceLens 0.2959872 = + 141*2048 */
	K(OK, 295987200 - 141 * 2048, "aten::addmm", "2048;141,512;512,2048;;", "|||1|1");
	/* the linear ops around them: 2 * prod(x[:-1]) * out * in = 2*141*512*512 */
	K(OK, 73924608, "aten::linear", "1,141,512;512,512;512", "||");

	/* Qwen1.5-0.5B GEMM.csv. mm (8944,1024)@(1024,2816): 2*8944*2816*1024 = 51581550592 = TraceLens 51.581550592 */
	K(OK, 51581550592, "aten::mm", "8944,1024;1024,2816", "|");
	/* addmm (8944,1024)@(1024,1024): 2*8944*1024*1024 = 18756927488; TraceLens 18.766086144 = + 8944*1024 */
	K(OK, 18766086144 - 8944 * 1024, "aten::addmm", "1024;8944,1024;1024,1024;;", "|||1|1");
	K(OK, 51581550592, "aten::mm", "8944,2816;2816,1024", "|");
	/* 2*8944*1024*1024 = 18756927488 = TraceLens 18.756927488 */
	K(OK, 18756927488, "aten::mm", "8944,1024;1024,1024", "|");
	/* bmm (1,32,1)@(1,1,559): 2*1*32*559*1 = 35776 = TraceLens 3.5776e-05 GFLOPS */
	K(OK, 35776, "aten::bmm", "1,32,1;1,1,559", "|");
	/* the matmul and linear around them: the same products */
	K(OK, 35776, "aten::matmul", "1,32,1;1,1,559", "|");
	K(OK, 18756927488, "aten::linear", "16,559,1024;1024,1024;1024", "||");

	/* ResNet GEMM.csv: 2*10*512*1000 = 10240000 = TraceLens 0.01024 (both mm) */
	K(OK, 10240000, "aten::mm", "10,1000;1000,512", "|");
	K(OK, 10240000, "aten::mm", "1000,10;10,512", "|");
	/* addmm: TraceLens 0.01025 = 10240000 + 10*1000 */
	K(OK, 10250000 - 10 * 1000, "aten::addmm", "1000;10,512;512,1000;;", "|||1|1");
	K(OK, 10240000, "aten::linear", "10,512;1000,512;1000", "||");

	/* traces without Concrete Inputs (recsys, DLRM): shapes alone do
	 * 2*4096*64*100 = 52428800; bmm 2*16*16*27*27 = 373248 */
	K(OK, 52428800, "aten::addmm", "64;4096,100;100,64;;", NULL);
	K(OK, 373248, "aten::bmm", "16,16,27;16,27,27", NULL);
}

static void t_tracelens_sdpa(void)
{
	/* bert-small SDPA_fwd.csv: B 1, H 8, S 141, D 64, not causal:
	 * 2*1*8*141*141*64 * 2 (QK and PV) = 40716288 = TraceLens 0.040716288 */
	K(OK, 40716288, "aten::_scaled_dot_product_flash_attention", "1,8,141,64;1,8,141,64;1,8,141,64;;;;",
	  "|||0.|False|False|0.125");
	/* the same call as its parent and its child op see it (the child is
	 * (B, S, H, D), is_causal its 9th argument) */
	K(OK, 40716288, "aten::scaled_dot_product_attention", "1,8,141,64;1,8,141,64;1,8,141,64;;;;;",
	  "||||0.|False||False");
	K(OK, 40716288, "aten::_flash_attention_forward",
	  "1,141,8,64;1,141,8,64;1,141,8,64;;;;;;;;;;;;", "|||||141|141|0.|False|False|0.125||||");
	/* Qwen SDPA_fwd.csv: B 16, H 16, S 559, D 64, causal: 4*16*16*559*559*64 / 2
	 * = 10239377408 = TraceLens 10.239377408 */
	K(OK, 10239377408, "aten::_scaled_dot_product_flash_attention",
	  "16,16,559,64;16,16,559,64;16,16,559,64;;;;", "|||0.|True|False|0.125");
	K(OK, 10239377408, "aten::scaled_dot_product_attention", "16,16,559,64;16,16,559,64;16,16,559,64;;;;;",
	  "||||0.|True|0.125|False");
	K(OK, 10239377408, "aten::_flash_attention_forward",
	  "16,559,16,64;16,559,16,64;16,559,16,64;;;;;;;;;;;;", "|||||559|559|0.|True|False|0.125||||");
}

/* ResNet CONV_fwd.csv / CONV_bwd.csv: every distinct shape (the rows with
 * is_recompute True repeat the same calls) */
static void t_tracelens_conv(void)
{
	static const char a1[] = "|||[1, 1]|[1, 1]|[1, 1]|False|[0, 0]|1"; /* stride 1, pad 1 */
	static const char a2[] = "|||[2, 2]|[1, 1]|[1, 1]|False|[0, 0]|1"; /* stride 2, pad 1 */
	static const char a3[] = "|||[2, 2]|[0, 0]|[1, 1]|False|[0, 0]|1"; /* stride 2, pad 0 */
	static const char b1[] = "|||[0]|[1, 1]|[1, 1]|[1, 1]|False|[0, 0]|1|[True, True, False]";
	static const char b2[] = "|||[0]|[2, 2]|[1, 1]|[1, 1]|False|[0, 0]|1|[True, True, False]";
	static const char b3[] = "|||[0]|[2, 2]|[0, 0]|[1, 1]|False|[0, 0]|1|[True, True, False]";

	/* 3x3 stride 1, output = input: 2 * N*Cout*H*W * Cin*9.
	 * 2*(10*64*56*56)*(64*9) = 2*2007040*576 = 2312110080 = TraceLens 2.31211008,
	 * and so for 512@7, 256@14, 128@28 (the same products) */
	K(OK, 2312110080, "aten::convolution", "10,64,56,56;64,64,3,3;;;;;;;", a1);
	K(OK, 2312110080, "aten::convolution", "10,512,7,7;512,512,3,3;;;;;;;", a1);
	K(OK, 2312110080, "aten::convolution", "10,256,14,14;256,256,3,3;;;;;;;", a1);
	K(OK, 2312110080, "aten::convolution", "10,128,28,28;128,128,3,3;;;;;;;", a1);
	/* stem 7x7 stride 2 pad 3: out (224+6-6-1)/2+1 = 112; 2*(10*64*112*112)*(3*49)
	 * = 2*8028160*147 = 2360279040 = TraceLens 2.36027904 */
	K(OK, 2360279040, "aten::convolution", "10,3,224,224;64,3,7,7;;;;;;;", "|||[2, 2]|[3, 3]|[1, 1]|False|[0, 0]|1");
	/* 3x3 stride 2 pad 1: out (28+2-2-1)/2+1 = 14; 2*(10*256*14*14)*(128*9) = 2*501760*1152
	 * = 1156055040 = TraceLens 1.15605504; 56 -> 28 (Cin 64), 14 -> 7 (Cin 256) the same */
	K(OK, 1156055040, "aten::convolution", "10,128,28,28;256,128,3,3;;;;;;;", a2);
	K(OK, 1156055040, "aten::convolution", "10,64,56,56;128,64,3,3;;;;;;;", a2);
	K(OK, 1156055040, "aten::convolution", "10,256,14,14;512,256,3,3;;;;;;;", a2);
	/* 1x1 stride 2: out (56-1)/2+1 = 28; 2*(10*128*28*28)*64 = 2*1003520*64 = 128450560
	 * = TraceLens 0.12845056; 14 -> 7 and 28 -> 14 the same */
	K(OK, 128450560, "aten::convolution", "10,64,56,56;128,64,1,1;;;;;;;", a3);
	K(OK, 128450560, "aten::convolution", "10,256,14,14;512,256,1,1;;;;;;;", a3);
	K(OK, 128450560, "aten::convolution", "10,128,28,28;256,128,1,1;;;;;;;", a3);
	/* the ops under it in the trace, each with its own argument order */
	K(OK, 1156055040, "aten::_convolution", "10,256,14,14;512,256,3,3;;;;;;;;;;;",
	  "|||[2, 2]|[1, 1]|[1, 1]|False|[0, 0]|1|False|False|True|True");
	K(OK, 1156055040, "aten::conv2d", "10,256,14,14;512,256,3,3;;;;;", "|||[2, 2]|[1, 1]|[1, 1]|1");
	K(OK, 1156055040, "aten::miopen_convolution", "10,256,14,14;512,256,3,3;;;;;;;",
	  "|||[1, 1]|[2, 2]|[1, 1]|1|False|False");
	K(OK, 1156055040, "aten::cudnn_convolution", "10,256,14,14;512,256,3,3;;;;;;;",
	  "||[1, 1]|[2, 2]|[1, 1]|1|False|False|True");

	/* convolution_backward (grad_output, input, weight, ...), output_mask
	 * [True, True, False]: input grad + weight grad = 2 forwards.
	 * 2*2312110080 = 4624220160 = TraceLens 4.62422016 */
	K(OK, 4624220160, "aten::convolution_backward", "10,64,56,56;10,64,56,56;64,64,3,3;;;;;;;;", b1);
	K(OK, 4624220160, "aten::convolution_backward", "10,512,7,7;10,512,7,7;512,512,3,3;;;;;;;;", b1);
	K(OK, 4624220160, "aten::convolution_backward", "10,128,28,28;10,128,28,28;128,128,3,3;;;;;;;;", b1);
	K(OK, 4624220160, "aten::convolution_backward", "10,256,14,14;10,256,14,14;256,256,3,3;;;;;;;;", b1);
	/* stride 2: numel(grad_output) * R: 2*(10*512*7*7)*(256*9)*2 = 2*250880*2304*2 = 2312110080
	 * = TraceLens 2.31211008; likewise 28 (Cin 64) and 14 (Cin 128) */
	K(OK, 2312110080, "aten::convolution_backward", "10,512,7,7;10,256,14,14;512,256,3,3;;;;;;;;", b2);
	K(OK, 2312110080, "aten::convolution_backward", "10,128,28,28;10,64,56,56;128,64,3,3;;;;;;;;", b2);
	K(OK, 2312110080, "aten::convolution_backward", "10,256,14,14;10,128,28,28;256,128,3,3;;;;;;;;", b2);
	/* 1x1 stride 2: 2*501760*128*2 = 256901120 = TraceLens 0.25690112 (and the two like it) */
	K(OK, 256901120, "aten::convolution_backward", "10,256,14,14;10,128,28,28;256,128,1,1;;;;;;;;", b3);
	K(OK, 256901120, "aten::convolution_backward", "10,128,28,28;10,64,56,56;128,64,1,1;;;;;;;;", b3);
	K(OK, 256901120, "aten::convolution_backward", "10,512,7,7;10,256,14,14;512,256,1,1;;;;;;;;", b3);
	/* the stem's backward has output_mask [False, True, False]: the image
	 * needs no gradient, only the weight grad runs: one pass,
	 * 2*8028160*147 = 2360279040. TraceLens's 4.72055808 counts both passes
	 * whatever the mask: the second difference, documented in docs/flops.md */
	K(OK, 4720558080 / 2, "aten::convolution_backward", "10,64,112,112;10,3,224,224;64,3,7,7;;;;;;;;",
	  "|||[0]|[2, 2]|[3, 3]|[1, 1]|False|[0, 0]|1|[False, True, False]");
}

/* ---- hand cases: matmul ---- */

static void t_matmul(void)
{
	/* FRACTAL_NZ: an (R, C) matrix as (C/C0, R/16, 16, C0).
	 * A (32, 64) as NZ (4, 2, 16, 16) @ B (64, 48) -> (32, 48): 2*32*48*64 = 196608 */
	FL(OK, 196608, "MatMulV2", "4,2,16,16;64,48", "32,48", "FRACTAL_NZ;ND", "ND", NULL);
	/* B stored transposed (48, 64) as NZ (4, 3, 16, 16): the same product */
	FL(OK, 196608, "MatMulV2", "4,2,16,16;4,3,16,16", "32,48", "FRACTAL_NZ;FRACTAL_NZ", "ND", NULL);
	/* A transposed: (64, 32) ND, B (64, 48): K = 64 either way: 196608 */
	FL(OK, 196608, "MatMulV2", "64,32;64,48", "32,48", "ND;ND", "ND", NULL);
	/* the output in NZ too: (32, 48) as (3, 2, 16, 16) */
	FL(OK, 196608, "MatMulV2", "32,64;64,48", "3,2,16,16", "ND;ND", "FRACTAL_NZ", NULL);
	/* padding: M = 30 padded to 32 in A's NZ (4, 2, 16, 16), the output says 30;
	 * the cube runs 32 rows: 2*32*48*64 = 196608 */
	FL(OK, 196608, "MatMulV2", "4,2,16,16;64,48", "30,48", "FRACTAL_NZ;ND", "ND", NULL);
	/* 32 is no padding of 30 when A is ND: mismatch */
	FL(MIS, 0, "MatMulV2", "32,64;64,48", "30,48", "ND;ND", "ND", NULL);
	/* a transposition attribute picks among readings that fit: (64, 64) @
	 * (64, 64) -> (64, 64) fits all four, each 2*64^3 = 524288 */
	FL(OK, 524288, "MatMul", "64,64;64,64", "64,64", NULL, NULL, "transpose_x1=true|transpose_x2=false");
	/* an attribute that contradicts the shapes: the reading that fits */
	FL(OK, 196608, "MatMulV2", "32,64;64,48", "32,48", NULL, NULL, "transpose_x1=true");
	/* without an output: the untransposed reading first, (8, 16) @ (16, 4): 2*8*4*16 = 1024 */
	FL(OK, 1024, "MatMulV2", "8,16;16,4", NULL, NULL, NULL, NULL);
	/* K that agrees in no reading */
	FL(MIS, 0, "MatMulV2", "8,16;15,4", "8,4", NULL, NULL, NULL);
	FL(MIS, 0, "MatMulV2", "8,16;15,4", NULL, NULL, NULL, NULL);
	/* batch broadcast: (2, 1, 4, 8) @ (3, 8, 5): batch (2, 3) = 6, 2*6*4*5*8 = 1920,
	 * with the output's batch or without an output */
	FL(OK, 1920, "BatchMatMulV2", "2,1,4,8;3,8,5", "2,3,4,5", NULL, NULL, "adj_x1=0|adj_x2=0");
	FL(OK, 1920, "BatchMatMulV2", "2,1,4,8;3,8,5", NULL, NULL, NULL, NULL);
	FL(MIS, 0, "BatchMatMulV2", "2,2,4,8;3,8,5", NULL, NULL, NULL, NULL);
	/* batched NZ: (6, 64, 32) as (6, 2, 4, 16, 16) @ (6, 64, 48) -> (6, 32, 48): A transposed, 6*196608 */
	FL(OK, 1179648, "BatchMatMulV3", "6,2,4,16,16;6,64,48", "6,32,48", "FRACTAL_NZ;ND", NULL, NULL);
	/* quantized: int8 x1 (128, 256) @ x2 (256, 512) + scale: 2*128*512*256 = 33554432 */
	FL(OK, 33554432, "QuantBatchMatmulV3", "128,256;256,512;512", "128,512", NULL, NULL, NULL);
	/* weight-quant with int4 packed 8 to an int32: weight (256, 64) for N = 512;
	 * A and the output decide: 2*128*512*256 = 33554432 */
	FL(OK, 33554432, "WeightQuantBatchMatmulV2", "128,256;256,64;512,1", "128,512", NULL, NULL, NULL);
	/* ... which only weight-quant is allowed */
	FL(MIS, 0, "MatMulV2", "128,256;256,64", "128,512", NULL, NULL, NULL);

	/* aten: fixed roles. mm (3,4)@(4,5): 2*3*5*4 = 120; rank or K wrong: mismatch */
	K(OK, 120, "mm", "3,4;4,5", NULL);
	K(MIS, 0, "aten::mm", "3,4;5,4", NULL);
	K(MIS, 0, "aten::mm", "2,3,4;2,4,5", NULL);
	/* baddbmm (bias, b1, b2): 2*2*3*5*4 = 240, the bias adds nothing */
	K(OK, 240, "aten::baddbmm", "2,3,5;2,3,4;2,4,5;;", "|||1|1");
	K(MIS, 0, "aten::bmm", "2,3,4;3,4,5", NULL);
	/* matmul: vector @ vector 2*4 = 8; vector @ batched matrix (2, 4, 5): 2*2*5*4 = 80;
	 * (2, 1, 3, 4) @ (5, 4, 6) broadcast to batch 10: 2*10*3*6*4 = 1440; matrix @ vector 2*3*4 = 24 */
	K(OK, 8, "aten::matmul", "4;4", NULL);
	K(OK, 80, "aten::matmul", "4;2,4,5", NULL);
	K(OK, 1440, "aten::matmul", "2,1,3,4;5,4,6", NULL);
	K(OK, 24, "aten::matmul", "3,4;4", NULL);
	K(MIS, 0, "aten::matmul", "2,3,4;3,4,6", NULL);
	K(MIS, 0, "aten::matmul", ";4", NULL);
	/* linear with a 1-D weight: 2 * 6 * 4 = 48; in features that disagree */
	K(OK, 48, "aten::linear", "2,3,4;4", NULL);
	K(MIS, 0, "aten::linear", "2,3,4;5,3", NULL);
	/* empty tensors: 0 FLOPs, OK */
	K(OK, 0, "aten::mm", "0,4;4,5", NULL);
}

static void t_grouped(void)
{
	/* split lists: x_i (M_i, K) then w_i (K, N) then y_i (M_i, N), 3 groups:
	 * 2*(10 + 20 + 30)*64*32 = 245760 */
	FL(OK, 245760, "GroupedMatmul", "10,64;20,64;30,64;64,32;64,32;64,32", "10,32;20,32;30,32", NULL, NULL,
	   "split_item=0");
	/* groups with their own K and N: 2*(4*8*16 + 6*32*8) = 2*(512 + 1536) = 4096 */
	FL(OK, 4096, "GroupedMatmulV2", "4,8;6,32;8,16;32,8", "4,16;6,8", NULL, NULL, NULL);
	/* weights stored (N, K) (transpose_weight): the same 4096 */
	FL(OK, 4096, "GroupedMatmulV2", "4,8;6,32;16,8;8,32", "4,16;6,8", NULL, NULL, "transpose_weight=true");
	/* an output that does not fit its group */
	FL(MIS, 0, "GroupedMatmulV2", "4,8;6,32;8,16;32,8", "4,16;6,9", NULL, NULL, NULL);
	/* one x (96, 64), weights (E 8, 64, 32), group_list (8): every row once,
	 * 2*96*64*32 = 393216 */
	FL(OK, 393216, "GroupedMatmulV4", "96,64;8,64,32;8", "96,32", NULL, NULL, "split_item=3|group_type=0");
	/* the same in FRACTAL_NZ weights: (8, 64, 32) as (8, 2, 4, 16, 16) */
	FL(OK, 393216, "GroupedMatmulV4", "96,64;8,2,4,16,16;8", "96,32", "ND;FRACTAL_NZ;ND", NULL, NULL);
	/* no outputs: an even run split in half when the pairs fit (2 groups),
	 * 2*(10*64*32 + 20*64*32) = 122880 */
	FL(OK, 122880, "GroupedMatmul", "10,64;20,64;64,32;64,32", NULL, NULL, NULL, NULL);
	FL(MIS, 0, "GroupedMatmul", "10,64;7,32;8", NULL, NULL, NULL, NULL);
	FL(MIS, 0, "GroupedMatmul", "10,64", NULL, NULL, NULL, NULL);
}

/* ---- hand cases: attention ---- */

static void t_attention(void)
{
	/* B 2, N 4, Sq 8, Sk 16, D 32: X = 2*8*16*(4*32 + 4*32) = 65536, forward 2X = 131072 */
	FL(OK, 131072, "FlashAttentionScore", "2,4,8,32;2,4,16,32;2,4,16,32", NULL, NULL, NULL,
	   "input_layout=BNSD|head_num=4|sparse_mode=0");
	FL(OK, 131072, "FlashAttentionScore", "2,8,4,32;2,16,4,32;2,16,4,32", NULL, NULL, NULL, "input_layout=BSND");
	FL(OK, 131072, "FlashAttentionScore", "2,8,128;2,16,128;2,16,128", NULL, NULL, NULL, "input_layout=BSH");
	FL(OK, 131072, "FlashAttentionScore", "8,2,128;16,2,128;16,2,128", NULL, NULL, NULL, "input_layout=SBH");
	/* the input part of input_output layouts */
	FL(OK, 131072, "FusedInferAttentionScore", "2,4,8,32;2,4,16,32;2,4,16,32", NULL, NULL, NULL,
	   "num_heads=4|input_layout=BNSD_BSND");
	/* causal: sparse_mode 2 or 3 halves it (65536); 0, 1 and 4 do not */
	FL(OK, 65536, "FlashAttentionScore", "2,4,8,32;2,4,16,32;2,4,16,32", NULL, NULL, NULL,
	   "input_layout=BNSD|sparse_mode=2");
	FL(OK, 65536, "FlashAttentionScore", "2,8,128;2,16,128;2,16,128", NULL, NULL, NULL,
	   "input_layout=BSH|sparse_mode=3");
	FL(OK, 131072, "FlashAttentionScore", "2,8,128;2,16,128;2,16,128", NULL, NULL, NULL,
	   "input_layout=BSH|sparse_mode=4");
	FL(NOA, 0, "FlashAttentionScore", "2,8,128;2,16,128;2,16,128", NULL, NULL, NULL,
	   "input_layout=BSH|sparse_mode=x");
	/* backward: 2.5 x forward = 5X = 327680; causal 5X/2 = 163840 */
	FL(OK, 327680, "FlashAttentionScoreGrad", "2,4,8,32;2,4,16,32;2,4,16,32;2,4,8,32", NULL, NULL, NULL,
	   "input_layout=BNSD");
	FL(OK, 163840, "FlashAttentionScoreGrad", "2,4,8,32;2,4,16,32;2,4,16,32;2,4,8,32", NULL, NULL, NULL,
	   "input_layout=BNSD|sparse_mode=2");
	/* half up: X = 1*1*1*(1*1 + 1*1) = 2... take B 1, N 1, S 1, D 1, Dv 1:
	 * X = 2, causal backward 5*2/2 = 5; with Dv 2: X = 3, 15/2 = 7.5 -> 8 */
	FL(OK, 5, "FlashAttentionScoreGrad", "1,1,1,1;1,1,1,1;1,1,1,1", NULL, NULL, NULL,
	   "input_layout=BNSD|sparse_mode=3");
	FL(OK, 8, "FlashAttentionScoreGrad", "1,1,1,1;1,1,1,1;1,1,1,2", NULL, NULL, NULL,
	   "input_layout=BNSD|sparse_mode=3");
	/* GQA: 8 query heads, 2 K/V heads, D 32, Dv 16 (per query head):
	 * X = 1*4*4*(8*32 + 8*16) = 16*384 = 6144, forward 12288 */
	FL(OK, 12288, "FlashAttentionScore", "1,8,4,32;1,2,4,32;1,2,4,16", NULL, NULL, NULL, "input_layout=BNSD");
	/* BSH with GQA: Hq 256, Hk 64, Hv 32: Nq*Dv = 256*32/64 = 128: X = 1*4*4*(256+128) = 6144 */
	FL(OK, 12288, "FlashAttentionScore", "1,4,256;1,4,64;1,4,32", NULL, NULL, NULL, "input_layout=BSH");
	/* query heads not a multiple of K/V heads, K/V lengths that differ */
	FL(MIS, 0, "FlashAttentionScore", "1,6,4,32;1,4,4,32;1,4,4,32", NULL, NULL, NULL, "input_layout=BNSD");
	FL(MIS, 0, "FlashAttentionScore", "1,4,4,32;1,4,4,32;1,4,5,32", NULL, NULL, NULL, "input_layout=BNSD");
	/* Hq * Hv / Hk = 99 * 32 / 64 is no whole number of query-head dims */
	FL(MIS, 0, "FlashAttentionScore", "1,4,99;1,4,64;1,4,32", NULL, NULL, NULL, "input_layout=BSH");
	/* a layout we do not know */
	FL(MIS, 0, "FlashAttentionScore", "1,4,96;1,4,64;1,4,32", NULL, NULL, NULL, "input_layout=XYZ");
	/* TND: N 2, D 16, Dv 16, sequences q (3, 5), kv (4, 6) as cumulative ends:
	 * X = (3*4 + 5*6) * 2 * 32 = 42 * 64 = 2688, forward 5376, causal 2688 */
	FL(OK, 5376, "FlashAttentionScore", "8,2,16;10,2,16;10,2,16", NULL, NULL, NULL,
	   "input_layout=TND|actual_seq_qlen=[3, 8]|actual_seq_kvlen=[4, 10]");
	FL(OK, 2688, "FlashAttentionScore", "8,2,16;10,2,16;10,2,16", NULL, NULL, NULL,
	   "input_layout=TND|actual_seq_qlen=3,8|actual_seq_kvlen=4,10|sparse_mode=3");
	FL(OK, 5376, "FusedInferAttentionScore", "2,8,16;2,10,16;2,10,16", NULL, NULL, NULL,
	   "input_layout=NTD_TND|actual_seq_lengths=[3,8]|actual_seq_lengths_kv=[4,10]");
	/* TND without the lengths, with lists that disagree, fall, or pass T */
	FL(NOA, 0, "FlashAttentionScore", "8,2,16;10,2,16;10,2,16", NULL, NULL, NULL, "input_layout=TND");
	FL(NOA, 0, "FlashAttentionScore", "8,2,16;10,2,16;10,2,16", NULL, NULL, NULL,
	   "input_layout=TND|actual_seq_qlen=[3, x]|actual_seq_kvlen=[4, 10]");
	FL(MIS, 0, "FlashAttentionScore", "8,2,16;10,2,16;10,2,16", NULL, NULL, NULL,
	   "input_layout=TND|actual_seq_qlen=[3, 8]|actual_seq_kvlen=[10]");
	FL(MIS, 0, "FlashAttentionScore", "8,2,16;10,2,16;10,2,16", NULL, NULL, NULL,
	   "input_layout=TND|actual_seq_qlen=[5, 3]|actual_seq_kvlen=[4, 10]");
	FL(MIS, 0, "FlashAttentionScore", "8,2,16;10,2,16;10,2,16", NULL, NULL, NULL,
	   "input_layout=TND|actual_seq_qlen=[3, 9]|actual_seq_kvlen=[4, 10]");
	/* no input_layout: rank 4 is BNSD; rank 3 TND with lengths, BSH when Q and K
	 * share dim 0, SBH when they share dim 1 only */
	FL(OK, 131072, "FlashAttentionScore", "2,4,8,32;2,4,16,32;2,4,16,32", NULL, NULL, NULL, NULL);
	FL(OK, 5376, "FlashAttentionScore", "8,2,16;10,2,16;10,2,16", NULL, NULL, NULL,
	   "actual_seq_qlen=[3, 8]|actual_seq_kvlen=[4, 10]");
	FL(OK, 131072, "FlashAttentionScore", "2,8,128;2,16,128;2,16,128", NULL, NULL, NULL, NULL);
	FL(OK, 131072, "FlashAttentionScore", "8,2,128;16,2,128;16,2,128", NULL, NULL, NULL, NULL);
	FL(MIS, 0, "FlashAttentionScore", "8,2,128;16,3,128;16,3,128", NULL, NULL, NULL, NULL);
	FL(MIS, 0, "FlashAttentionScore", "2,4,8,32;2,4,16,32", NULL, NULL, NULL, NULL);

	/* aten: SDPA (B, H, S, D); efficient's is_causal is its 7th argument */
	K(OK, 65536, "aten::_scaled_dot_product_efficient_attention", "2,4,8,32;2,4,16,32;2,4,16,32;;;;",
	  "||||True|0.0|True");
	/* SDPA with GQA (enable_gqa): 8 query heads over 2: 12288 */
	K(OK, 12288, "aten::scaled_dot_product_attention", "1,8,4,32;1,2,4,32;1,2,4,16;;;;;", "||||0.|False||True");
	/* rank 3 (B*H, S, D): X = 8*8*16*(32+32) = 65536, 131072 */
	K(OK, 131072, "aten::_scaled_dot_product_cudnn_attention", "8,8,32;8,16,32;8,16,32;;;;;;",
	  "|||||0.|False|False|");
	/* backward ops (grad_out first): 5X = 327680, causal 163840 */
	K(OK, 327680, "aten::_scaled_dot_product_flash_attention_backward",
	  "2,4,8,32;2,4,8,32;2,4,16,32;2,4,16,32;2,4,8,32;2,4,8;;;;;;;;;", "||||||||8|16|0.|False|||");
	K(OK, 163840, "aten::_scaled_dot_product_efficient_attention_backward",
	  "2,4,8,32;2,4,8,32;2,4,16,32;2,4,16,32;;2,4,8,32;2,4,8;;;;;;", "||||||||||[True, True, True, False]|True|");
	K(OK, 327680, "aten::_scaled_dot_product_cudnn_attention_backward",
	  "2,4,8,32;2,4,8,32;2,4,16,32;2,4,16,32;2,4,8,32;2,4,8;;;;;;;;;;", "|||||||||||8|16|0.|False|");
	/* flash-attn (B, S, H, D): causal 5th argument */
	K(OK, 65536, "flash_attn::_flash_attn_forward", "2,8,4,32;2,16,4,32;2,16,4,32;;;;;;;;",
	  "|||0.0|0.17|True|-1|-1|0.0||False");
	K(OK, 327680, "flash_attn::_flash_attn_backward", "2,8,4,32;2,8,4,32;2,16,4,32;2,16,4,32;;;;;;;;;;;;;;",
	  "|||||||||0.0|0.17|False|-1|-1|0.0||False|");
	/* efficient's custom_mask_type 1 (causal from the top left) */
	K(OK, 65536, "aten::_efficient_attention_forward", "2,8,4,32;2,16,4,32;2,16,4,32;;;;;;;;;",
	  "||||||||0.0|1|False|");
	K(NOA, 0, "aten::_efficient_attention_forward", "2,8,4,32;2,16,4,32;2,16,4,32;;;;;;;;;",
	  "||||||||0.0|7|False|");
	/* varlen: the sequence lengths are tensors, their values are not in the trace */
	K(NOA, 0, "flash_attn::_flash_attn_varlen_forward", "8,2,16;10,2,16;10,2,16;3;3;;;;;", "|||||8|10|0.0|0.2|True");
	K(NOA, 0, "aten::_flash_attention_forward", "1,8,2,16;1,10,2,16;1,10,2,16;3;3;;;;;;;;;;",
	  "|||||8|10|0.0|False|False|||||");
	/* no Concrete Inputs: not causal (the schema's default) */
	K(OK, 131072, "aten::_scaled_dot_product_flash_attention", "2,4,8,32;2,4,16,32;2,4,16,32;;;;", NULL);
	/* Concrete Inputs that are all tensors say nothing either */
	K(OK, 131072, "aten::_scaled_dot_product_flash_attention", "2,4,8,32;2,4,16,32;2,4,16,32;;;;", "||||||");
	/* Concrete Inputs whose is_causal is no bool, or is missing */
	K(NOA, 0, "aten::_scaled_dot_product_flash_attention", "2,4,8,32;2,4,16,32;2,4,16,32;;;;", "|||0.|maybe|False|");
	K(NOA, 0, "aten::_scaled_dot_product_flash_attention", "2,4,8,32;2,4,16,32;2,4,16,32;;;;", "|||0.");
	/* head dims of Q and K that differ */
	K(MIS, 0, "aten::scaled_dot_product_attention", "2,4,8,32;2,4,16,16;2,4,16,32;;;;;", NULL);
}

/* ---- hand cases: convolution ---- */

static void t_conv(void)
{
	/* groups 2: x (1, 8, 10, 10), w (16, 4, 3, 3), stride 1 pad 0: out 8x8,
	 * 2*(1*16*8*8)*(4*9) = 2*1024*36 = 73728 */
	K(OK, 73728, "aten::conv2d", "1,8,10,10;16,4,3,3;;;;;", "|||[1, 1]|[0, 0]|[1, 1]|2");
	/* groups that contradict the channels (8 != 4*3) */
	K(MIS, 0, "aten::conv2d", "1,8,10,10;16,4,3,3;;;;;", "|||[1, 1]|[0, 0]|[1, 1]|3");
	/* dilation 2, a single-value list broadcast, padding 'same' and 'valid':
	 * k 3 dil 2 spans 5: out 10+2-5+1 = 8 (pad 1): 2*(1*16*8*8)*36 = 73728 */
	K(OK, 73728, "aten::conv2d", "1,8,10,10;16,4,3,3;;;;;", "|||[1]|[1]|[2]|2");
	K(OK, 2 * 16 * 100 * 36, "aten::conv2d", "1,8,10,10;16,4,3,3;;;;;", "|||[1, 1]|same|[1, 1]|2");
	K(OK, 73728, "aten::_convolution_mode", "1,8,10,10;16,4,3,3;;;;;", "|||[1, 1]|valid|[1, 1]|2");
	/* 3-D: x (2, 3, 4, 8, 8), w (6, 3, 3, 3, 3), stride 1 pad 1: out = in:
	 * 2*(2*6*4*8*8)*(3*27) = 2*3072*81 = 497664 */
	K(OK, 497664, "aten::conv3d", "2,3,4,8,8;6,3,3,3,3;;;;;", "|||[1, 1, 1]|[1, 1, 1]|[1, 1, 1]|1");
	/* unbatched (C, H, W): out 8x8, 2*(16*64)*36 = 73728 */
	K(OK, 73728, "aten::conv2d", "8,10,10;16,4,3,3;;;;;", "|||[1, 1]|[0, 0]|[1, 1]|2");
	/* transposed: x (1, 16, 8, 8), w (16, 4, 3, 3) (Cin, Cout/g, k): 2*numel(x)*(4*9) = 2*1024*36 */
	K(OK, 73728, "aten::convolution", "1,16,8,8;16,4,3,3;;;;;;;", "|||[1, 1]|[0, 0]|[1, 1]|True|[0, 0]|1");
	K(OK, 73728, "aten::conv_transpose2d", "1,16,8,8;16,4,3,3;;;;;;", "|||[1, 1]|[0, 0]|[0, 0]|1|[1, 1]");
	K(MIS, 0, "aten::conv_transpose2d", "1,8,8,8;16,4,3,3;;;;;;", "|||[1, 1]|[0, 0]|[0, 0]|1|[1, 1]");
	/* an output the trace gives takes the place of the arithmetic */
	FL(OK, 73728, "aten::convolution", "1,8,10,10;16,4,3,3", "1,16,8,8", NULL, NULL, NULL);
	/* no Concrete Inputs and no output: the stride is not known */
	K(NOA, 0, "aten::convolution", "10,64,56,56;64,64,3,3;;;;;;;", NULL);
	K(NOA, 0, "aten::convolution", "10,64,56,56;64,64,3,3;;;;;;;", "|||[1, 1]|[1, 1]|[0, 1]|False|[0, 0]|1");
	K(NOA, 0, "aten::convolution", "10,64,56,56;64,64,3,3;;;;;;;", "|||[1, 1, 1]|[1, 1]|[1, 1]|False|[0, 0]|1");
	K(NOA, 0, "aten::convolution", "10,64,56,56;64,64,3,3;;;;;;;", "|||[1, 1]|[1, 1]|[1, 1]|maybe|[0, 0]|1");
	/* a kernel larger than the padded input */
	K(MIS, 0, "aten::convolution", "1,4,2,2;4,4,5,5;;;;;;;", "|||[1, 1]|[0, 0]|[1, 1]|False|[0, 0]|1");
	/* backward: each pass the forward's 2*numel(dy)*R; mask [True, False, False]: one pass;
	 * [False, False, True] (bias only): 0; no Concrete Inputs: both passes */
	K(OK, 73728, "aten::convolution_backward", "1,16,8,8;1,8,10,10;16,4,3,3;;;;;;;;",
	  "|||[16]|[1, 1]|[0, 0]|[1, 1]|False|[0, 0]|2|[True, False, False]");
	K(OK, 0, "aten::convolution_backward", "1,16,8,8;1,8,10,10;16,4,3,3;;;;;;;;",
	  "|||[16]|[1, 1]|[0, 0]|[1, 1]|False|[0, 0]|2|[False, False, True]");
	K(OK, 2 * 73728, "aten::convolution_backward", "1,16,8,8;1,8,10,10;16,4,3,3;;;;;;;;", NULL);
	K(NOA, 0, "aten::convolution_backward", "1,16,8,8;1,8,10,10;16,4,3,3;;;;;;;;",
	  "|||[16]|[1, 1]|[0, 0]|[1, 1]|False|[0, 0]|2|[True]");
	/* transposed backward: 2*numel(input)*R per pass */
	K(OK, 2 * 73728, "aten::convolution_backward", "1,4,10,10;1,16,8,8;16,4,3,3;;;;;;;;",
	  "|||[4]|[1, 1]|[0, 0]|[1, 1]|True|[0, 0]|1|[True, True, False]");
	/* grad_output whose channels are not the weight's Cout */
	K(MIS, 0, "aten::convolution_backward", "1,15,8,8;1,8,10,10;16,4,3,3;;;;;;;;", NULL);

	/* Ascend Conv3D in NDC1HWC0 (N, D, C1, H, W, C0) with FRACTAL_Z_3D
	 * (C1*Kd*Kh*Kw, N1, 16, C0): x 16 channels (C1 1, C0 16), 3x3x3 kernel,
	 * 32 out channels: y (1, 4, 2, 8, 8, 16) = 8192, R = 27*16 = 432: 2*8192*432 = 7077888 */
	FL(OK, 7077888, "Conv3D", "1,4,1,8,8,16;27,2,16,16", "1,4,2,8,8,16", "NDC1HWC0;FRACTAL_Z_3D",
	   "NDC1HWC0", NULL);
	/* the D variants take sizes as attributes: (filter, out_backprop) -> dx */
	FL(OK, 7077888, "Conv3DBackpropInputD", "27,2,16,16;1,4,2,8,8,16", "1,4,1,8,8,16",
	   "FRACTAL_Z_3D;NDC1HWC0", "NDC1HWC0", NULL);
	/* (x, out_backprop) -> dw */
	FL(OK, 7077888, "Conv3DBackpropFilterD", "1,4,1,8,8,16;1,4,2,8,8,16", "27,2,16,16",
	   "NDC1HWC0;NDC1HWC0", "FRACTAL_Z_3D", NULL);
	/* Conv2DTranspose (input_size, x, filter) -> y: the input grad of the
	 * conv whose output is x: 2*numel(x)*dim0*C0 = 2*(1*2*8*8*16)*(9*16) = 589824 */
	FL(OK, 589824, "Conv2DTranspose", "4;1,2,8,8,16;9,2,16,16", "1,1,10,10,16",
	   "NCHW;NC1HWC0;FRACTAL_Z", "NC1HWC0", NULL);
	/* plain formats: NCHW weight (Cout, Cin/g, Kh, Kw) with groups 2:
	 * y (1, 16, 8, 8) = 1024, R = 4*9 = 36: 73728; HWCN (Kh, Kw, Cin/g, Cout): the same */
	FL(OK, 73728, "Conv2D", "1,8,10,10;16,4,3,3", "1,16,8,8", "NCHW;NCHW", "NCHW", "groups=2");
	FL(OK, 73728, "Conv2D", "1,10,10,8;3,3,4,16", "1,8,8,16", "NHWC;HWCN", "NHWC", "groups=2");
	/* FRACTAL_Z with groups 2: R = dim0*C0 / 2 = 18*16/2 = 144 (all groups' slices in dim0):
	 * y (1, 2, 8, 8, 16) = 2048: 2*2048*144 = 589824 */
	FL(OK, 589824, "Conv2D", "1,2,10,10,16;18,2,16,16", "1,2,8,8,16", "NC1HWC0:1;FRACTAL_Z", "NC1HWC0", "groups=2");
	FL(NOA, 0, "Conv2D", "1,2,10,10,16;18,2,16,16", "1,2,8,8,16", "NC1HWC0;FRACTAL_Z", "NC1HWC0", "groups=0");
	/* a FRACTAL_Z that does not fit its input: dim0 9 is no multiple of C1 2; C0 8 != 16 */
	FL(MIS, 0, "Conv2D", "1,2,10,10,16;9,2,16,16", "1,2,8,8,16", "NC1HWC0;FRACTAL_Z", "NC1HWC0", NULL);
	FL(MIS, 0, "Conv2D", "1,2,10,10,16;18,2,16,8", "1,2,8,8,16", "NC1HWC0;FRACTAL_Z", "NC1HWC0", NULL);
	/* a format with no reading, a missing output, a weight of rank 3 in FRACTAL_Z */
	FL(MIS, 0, "Conv2D", "1,2,10,10,16;18,2,16,16", "1,2,8,8,16", "NC1HWC0;FRACTAL_ZN_LSTM", "NC1HWC0", NULL);
	FL(MIS, 0, "Conv2D", "1,2,10,10,16;18,2,16,16", NULL, "NC1HWC0;FRACTAL_Z", NULL, NULL);
	FL(MIS, 0, "Conv2D", "1,2,10,10,16;18,2,16", "1,2,8,8,16", "NC1HWC0;FRACTAL_Z", NULL, NULL);
	FL(MIS, 0, "Conv2DBackpropInput", "4;18,2,16,16", "1,2,8,8,16", NULL, NULL, NULL);
}

/* ---- failures ---- */

static void t_failures(void)
{
	/* no formula, whatever the shapes */
	FL(NOF, 0, "TransData", "1,2;3,4", "1,2", NULL, NULL, NULL);
	FL(NOF, 0, NULL, "1,2;3,4", NULL, NULL, NULL, NULL);
	/* shapes absent or not a shape list */
	FL(UNK, 0, "MatMulV2", NULL, "32,4096", NULL, NULL, NULL);
	FL(UNK, 0, "MatMulV2", "\"32,9216;4096,9216\"", "32,4096", NULL, NULL, NULL);
	FL(UNK, 0, "aten::mm", "[[3, 4], [4, 5]]", NULL, NULL, NULL, NULL);
	FL(UNK, 0, "Conv2D", "N/A", NULL, NULL, NULL, NULL);
	FL(UNK, 0, "aten::mm", "3,-4;4,5", NULL, NULL, NULL, NULL);
	/* an output that is no shape list is left out, the inputs still do */
	FL(OK, 120, "MatMulV2", "3,4;4,5", "garbage", NULL, NULL, NULL);
	/* ranks that do not fit */
	FL(MIS, 0, "MatMulV2", "4096;4096", "1", NULL, NULL, NULL);
	FL(MIS, 0, "MatMulV2", "4,4,16", "4,4", "FRACTAL_NZ", NULL, NULL);
	FL(MIS, 0, "FlashAttentionScore", "2,8;2,8;2,8", NULL, NULL, NULL, "input_layout=BSH");
	FL(MIS, 0, "aten::convolution", "1,8;16,4,3,3", NULL, NULL, NULL, "|||[1, 1]|[0, 0]|[1, 1]|False|[0, 0]|1");
	FL(MIS, 0, "aten::mm", "", NULL, NULL, NULL, NULL);
	/* overflow past int64: 2 * M * N * K = 2 * 2^31 * 1 * 2^31 = 2^63 */
	FL(OVF, 0, "aten::mm", "2147483648,2147483648;2147483648,1", NULL, NULL, NULL, NULL);
	/* 2*M*N*K = 2*(2^31)^2*2 = 2^64: just past INT64_MAX; half of it fits */
	FL(OVF, 0, "aten::mm", "2147483648,2;2,2147483648", NULL, NULL, NULL, NULL);
	FL(OK, 4611686018427387904, "aten::mm", "2147483648,1;1,1073741824", NULL, NULL, NULL, NULL);
	FL(OVF, 0, "MatMulV2", "9223372036854775807,4,16,16;64,48", "32,48", "FRACTAL_NZ", NULL, NULL);
	FL(OVF, 0, "FlashAttentionScore", "3037000500,1,3037000500,1;3037000500,1,3037000500,1;3037000500,1,3037000500,1",
	   NULL, NULL, NULL, "input_layout=BNSD");
	FL(OVF, 0, "aten::convolution", "4611686018427387904,1,1,1;4,1,1,1;;;;;;;", NULL, NULL, NULL,
	   "|||[1, 1]|[0, 0]|[1, 1]|False|[0, 0]|1");
	/* a zero anywhere gives 0, however large the rest */
	FL(OK, 0, "aten::mm", "9223372036854775807,9223372036854775807;9223372036854775807,0", NULL, NULL, NULL, NULL);
	/* bytes that are not text at all */
	{
		static const char junk[] = { 'M', 'a', 't', 'M', 'u', 'l', '\0', '\xff' };
		struct opmfu_shape_call c = { { junk, sizeof(junk) }, { "3,4;4,5", 7 }, { NULL, 0 }, { junk, 8 },
					      { NULL, 0 }, { junk, 8 } };
		int64_t f = -1;
		CHECK_INT(opmfu_shape_flops(&c, &f), OK); /* the type starts with MatMul; attrs and formats are junk */
		CHECK_INT(f, 120);
	}
}

int main(void)
{
	t_family();
	t_ascend_real();
	t_tracelens_gemm();
	t_tracelens_sdpa();
	t_tracelens_conv();
	t_matmul();
	t_grouped();
	t_attention();
	t_conv();
	t_failures();
	return check_done();
}
