/*
 * dtype.c - names of the dtype classes.
 */
#include "trace/dtype.h"

#include "base/fold.h"

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

int opmfu_kernel_runs_tf32(const char *name, size_t n)
{
	if (!name)
		return 0;
	/* NVIDIA tensor cores have no fp32 multiply: a tensor-op kernel on fp32
	 * data multiplies in TF32 (or 3xTF32), so these names say TF32 */
	return opmfu_contains_nocase(name, n, "tf32") || opmfu_contains_nocase(name, n, "tensorop_s1688") ||
	       opmfu_contains_nocase(name, n, "tensorop_s1684");
}
