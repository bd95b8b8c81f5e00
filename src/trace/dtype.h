/*
 * dtype.h - what a kernel's input dtype list means for its peak, whatever
 * the format: the class under the reference's rule (OperatorMFU, SPEC 2.4
 * with 5.1) and under SPEC 8's. Readers parse their formats' names into a
 * struct opmfu_dtype per distinct list (struct opmfu_trace's dtype table).
 */
#ifndef OPMFU_DTYPE_H
#define OPMFU_DTYPE_H

#include <stddef.h>
#include <stdint.h>

/* Peak classes under the reference's rule; index into struct opmfu_peaks. */
enum opmfu_dtclass {
	OPMFU_DT_FP16 = 0, /* FLOAT, FLOAT16, BF16: the cube's fp16-class rate */
	OPMFU_DT_INT8 = 1,
	OPMFU_DT_FP8 = 2,  /* FP8/HiFloat8: only with a table or override peak */
	OPMFU_DT__COUNT,
	OPMFU_DT_UNSUPPORTED = -1, /* first data dtype is none of the above */
	OPMFU_DT_NONE = -2         /* only index types (INT32, INT64, BOOL, ...) */
};

const char *opmfu_dtclass_name(enum opmfu_dtclass c);

/* SPEC 8's classes: fp32 counts as itself, not as fp16. */
enum opmfu_prec {
	OPMFU_PREC_FP32 = 0,
	OPMFU_PREC_TF32 = 1, /* Ascend hf32 */
	OPMFU_PREC_FP16 = 2, /* fp16 and bf16 */
	OPMFU_PREC_FP8 = 3,  /* e4m3, e5m2, HiFloat8 */
	OPMFU_PREC_INT8 = 4,
	OPMFU_PREC_FP4 = 5,
	OPMFU_PREC__COUNT,
	OPMFU_PREC_UNSUPPORTED = -1, /* the first data dtype is of no class */
	OPMFU_PREC_NONE = -2         /* no data dtype (none listed, or only index types) */
};

/* "fp32", "tf32", "fp16", "fp8", "int8", "fp4"; "none" otherwise. */
const char *opmfu_prec_name(enum opmfu_prec p);

/*
 * Whether a kernel of that name runs fp32 data on TF32 tensor cores
 * (docs/gpu-traces.md, TF32): "tf32" anywhere in it, any case (cuBLAS,
 * cuBLASLt, cuDNN, CUTLASS and xmma name the math), or a CUTLASS tensor-op
 * kernel with fp32 accumulation and no 16-bit operand type named,
 * "tensorop_s1688" or "tensorop_s1684" (sm80's mma.m16n8k8 / m16n8k4: for
 * 32-bit operands they exist only as TF32). Safe on any bytes.
 */
int opmfu_kernel_runs_tf32(const char *name, size_t n);

/* One distinct input dtype list of a trace. 48 bytes. */
struct opmfu_dtype {
	uint32_t text;  /* sid of the list as the trace has it; 0 = no list */
	int8_t ref;     /* enum opmfu_dtclass: the reference's class (no list: fp16) */
	int8_t prec;    /* enum opmfu_prec */
	/* ref < 0: the text the summary's "unsupported dtype" names (at most 40 bytes) */
	char example[42];
};

#endif
