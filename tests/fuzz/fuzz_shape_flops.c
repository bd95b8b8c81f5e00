/*
 * fuzz_shape_flops.c - the shape FLOPs formulas (flops/shape_flops.h) on
 * any texts. The input is six fields separated by '\n': type, input
 * shapes, output shapes, input formats, output formats, attributes (the
 * last takes the rest; '|' in it stands for OPMFU_ATTR_SEP). A type of one
 * byte picks one of the known types, so random inputs reach the formulas.
 * Each field is copied to a buffer of its exact size (no terminating NUL),
 * so AddressSanitizer catches a read past it.
 *
 * The same call goes through the bytes of SPEC 18 (opmfu_shape_bytes), the
 * two format fields standing for the input and output dtype lists, at op
 * and at kernel scope: bytes >= -1, the same answer twice.
 *
 * Invariants: no crash; a status in range; FLOPs >= 0 when OK and 0
 * otherwise; NO_FORMULA exactly for types of no family; the same answer
 * twice; a field left absent (NULL) behaves as documented (no input
 * shapes: UNKNOWN).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flops/shape_flops.h"
#include "fuzz.h"
#include "trace/trace.h"

static const char *const types[] = {
	"MatMulV2", "BatchMatMulV2", "QuantBatchMatmulV3", "WeightQuantBatchMatmulV2", "GroupedMatmul",
	"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::matmul", "aten::linear",
	"FlashAttentionScore", "FlashAttentionScoreGrad", "FusedInferAttentionScore",
	"aten::scaled_dot_product_attention", "aten::_scaled_dot_product_flash_attention",
	"aten::_scaled_dot_product_efficient_attention_backward", "aten::_flash_attention_forward",
	"aten::_efficient_attention_forward", "flash_attn::_flash_attn_varlen_forward",
	"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "Conv3DBackpropInputD", "Conv2DTranspose",
	"aten::convolution", "aten::conv2d", "aten::cudnn_convolution", "aten::convolution_backward",
	"aten::conv_transpose2d", "TransData",
	/* SPEC 20: fp8 and grouped GEMMs, Inductor's kernel_flop (any name without a formula) */
	"aten::_scaled_mm", "aten::_grouped_mm", "aten::_scaled_grouped_mm", "triton_tem_fused_mm_0",
	/* bytes only */
	"aten::add_", "aten::mul", "aten::where", "aten::eq", "aten::copy_", "aten::_to_copy", "aten::mean",
	"aten::max", "aten::native_layer_norm", "aten::native_batch_norm_backward", "aten::embedding",
	"aten::index_select", "aten::gather", "aten::_softmax", "Cast", "aten::max_pool2d_with_indices",
	"aten::avg_pool2d", "aten::adaptive_avg_pool2d", "aten::mse_loss",
};

static char *dup_exact(const uint8_t *p, size_t n, int attrs)
{
	char *s = malloc(n ? n : 1);
	size_t i;
	FUZZ_ASSERT(s != NULL);
	for (i = 0; i < n; i++)
		s[i] = attrs && p[i] == '|' ? OPMFU_ATTR_SEP : (char)p[i];
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct opmfu_text f[6];
	char *buf[6] = { NULL };
	struct opmfu_shape_call c;
	size_t i, k = 0;
	int64_t flops = -1, again = -1;
	enum opmfu_shape_status st, st2;

	for (i = 0; i < 6; i++) {
		size_t e = k;
		while (i < 5 && e < size && data[e] != '\n')
			e++;
		if (i == 5)
			e = size;
		if (k > size) {
			f[i] = (struct opmfu_text){ NULL, 0 }; /* absent */
		} else {
			buf[i] = dup_exact(data + k, e - k, i == 5);
			f[i] = (struct opmfu_text){ buf[i], e - k };
		}
		k = e + 1;
	}
	if (f[0].s && f[0].n == 1)
		f[0] = (struct opmfu_text){ types[(unsigned char)f[0].s[0] % (sizeof(types) / sizeof(types[0]))],
					    strlen(types[(unsigned char)f[0].s[0] % (sizeof(types) / sizeof(types[0]))]) };
	c = (struct opmfu_shape_call){ f[0], f[1], f[2], f[3], f[4], f[5] };

	st = opmfu_shape_flops(&c, &flops);
	FUZZ_ASSERT(st >= OPMFU_SHAPE_OK && st < OPMFU_SHAPE__COUNT);
	FUZZ_ASSERT(st == OPMFU_SHAPE_OK ? flops >= 0 : flops == 0);
	FUZZ_ASSERT((st == OPMFU_SHAPE_NO_FORMULA) == (opmfu_shape_family(c.type) == OPMFU_FAM_NONE));
	FUZZ_ASSERT(strcmp(opmfu_shape_status_name(st), "?") != 0);
	st2 = opmfu_shape_flops(&c, &again);
	FUZZ_ASSERT(st2 == st && again == flops);
	for (k = 0; k < 2; k++) {
		int64_t b = opmfu_shape_bytes(&c, f[3], f[4], (int)k);
		FUZZ_ASSERT(b >= -1);
		FUZZ_ASSERT(opmfu_shape_bytes(&c, f[3], f[4], (int)k) == b);
	}
	/* without input shapes nothing with a formula is known */
	c.in_shapes = (struct opmfu_text){ NULL, 0 };
	st2 = opmfu_shape_flops(&c, &again);
	FUZZ_ASSERT(st2 == (st == OPMFU_SHAPE_NO_FORMULA ? OPMFU_SHAPE_NO_FORMULA : OPMFU_SHAPE_UNKNOWN));
	FUZZ_ASSERT(again == 0);
	for (i = 0; i < 6; i++)
		free(buf[i]);
	return 0;
}
