/*
 * dtype.c - names of the dtype classes.
 */
#include "trace/dtype.h"

const char *opmfu_dtclass_name(enum opmfu_dtclass c)
{
	switch (c) {
	case OPMFU_DT_FP16: return "fp16";
	case OPMFU_DT_INT8: return "int8";
	case OPMFU_DT_FP8: return "fp8";
	default: return "none";
	}
}

const char *opmfu_prec_name(enum opmfu_prec p)
{
	switch (p) {
	case OPMFU_PREC_FP32: return "fp32";
	case OPMFU_PREC_TF32: return "tf32";
	case OPMFU_PREC_FP16: return "fp16";
	case OPMFU_PREC_FP8: return "fp8";
	case OPMFU_PREC_INT8: return "int8";
	case OPMFU_PREC_FP4: return "fp4";
	default: return "none";
	}
}
