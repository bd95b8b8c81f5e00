/*
 * t_peaks.c - which peak a rank uses per SPEC 8 class and where it comes
 * from (lib/peaks.c): override > --chip > the trace's device (info.json's
 * cube formula, or a GPU name in the built-in table), the stated Ascend rule
 * for fp32/hf32, the reference's classes for OperatorMFU, why there is no
 * peak and what to give, --chip against the trace, and --peak's classes.
 */
#include <string.h>

#include "check.h"
#include "lib/lib.h"

static void ascend_device(struct opmfu_device *dev, int with_info)
{
	memset(dev, 0, sizeof(*dev));
	dev->cube = 1;
	snprintf(dev->chip, sizeof(dev->chip), "Ascend910B");
	snprintf(dev->seen, sizeof(dev->seen), "NPU_INFO Ascend910B, AICORE_FREQ 1800 MHz");
	if (with_info) {
		dev->peak_flops[OPMFU_PREC_FP16] = 24 * 1800e6 * 8192;
		dev->peak_flops[OPMFU_PREC_INT8] = 24 * 1800e6 * 16384;
		snprintf(dev->source, sizeof(dev->source), "info.json X (24 AI cores at 1800 MHz)");
	} else {
		snprintf(dev->no_peak, sizeof(dev->no_peak), "no chip info file under R");
	}
}

static void t_ascend(void)
{
	struct opmfu_opts o;
	struct opmfu_device dev;
	struct peak_choice pc;
	char text[2000];

	memset(&o, 0, sizeof(o));
	ascend_device(&dev, 1);
	opmfu_resolve_peaks(&o, &dev, &pc);
	/* 24 x 1800e6 x 8192 = 3.538944e14; fp32 and tf32 at that rate by the stated rule */
	CHECK_DBL(pc.prec.flops[OPMFU_PREC_FP16], 353894400000000.0);
	CHECK_DBL(pc.prec.flops[OPMFU_PREC_INT8], 707788800000000.0);
	CHECK_DBL(pc.prec.flops[OPMFU_PREC_FP32], 353894400000000.0);
	CHECK_DBL(pc.prec.flops[OPMFU_PREC_TF32], 353894400000000.0);
	CHECK_DBL(pc.prec.flops[OPMFU_PREC_FP8], 0);
	opmfu_peak_source_text(&pc, text, sizeof(text));
	CHECK_STR(text, "fp16, int8 from info.json X (24 AI cores at 1800 MHz); fp32, tf32 at the fp16 rate (the "
			"Ascend cube unit runs fp32 and hf32 inputs at it, the reference's rule)");
	CHECK_STR(pc.no_peak_why, "");
	CHECK_STR(pc.chip_warn, "");

	/* an fp16 override on an NPU without info.json: fp32/tf32 follow it, int8 has none */
	ascend_device(&dev, 0);
	o.peak_tflops[OPMFU_CLASS_FP16] = 100;
	o.peak_origin = "OPMFU_PEAK";
	opmfu_resolve_peaks(&o, &dev, &pc);
	CHECK_DBL(pc.prec.flops[OPMFU_PREC_FP16], 1e14);
	CHECK_DBL(pc.prec.flops[OPMFU_PREC_FP32], 1e14);
	CHECK_DBL(pc.prec.flops[OPMFU_PREC_INT8], 0);
	opmfu_peak_source_text(&pc, text, sizeof(text));
	CHECK_STR(text, "fp16 from override (OPMFU_PEAK); fp32, tf32 at the fp16 rate (the Ascend cube unit runs "
			"fp32 and hf32 inputs at it, the reference's rule)");

	/* no peak at all: why, and the --chip the trace's name suggests (never taken by itself) */
	memset(&o, 0, sizeof(o));
	opmfu_resolve_peaks(&o, &dev, &pc);
	CHECK_DBL(pc.prec.flops[OPMFU_PREC_FP16], 0);
	CHECK_STR(pc.no_peak_why, "no chip info file under R; the trace names its chip 'Ascend910B' (NPU_INFO "
				  "Ascend910B, AICORE_FREQ 1800 MHz): the built-in Ascend910B is 24 AI cores at 1800 "
				  "MHz, cube formula; if that is this chip, give --chip Ascend910B");

	/* --chip of a GPU for an NPU trace: used, and warned about */
	o.chip = "h100-sxm";
	opmfu_resolve_peaks(&o, &dev, &pc);
	CHECK_DBL(pc.prec.flops[OPMFU_PREC_FP32], 67e12);
	CHECK_STR(pc.chip_warn, "--chip H100 SXM, but the trace says it ran on Ascend910B");
}

static void t_gpu(void)
{
	struct opmfu_opts o;
	struct opmfu_device dev;
	struct peak_choice pc;
	char text[2000];

	memset(&o, 0, sizeof(o));
	memset(&dev, 0, sizeof(dev));
	snprintf(dev.chip, sizeof(dev.chip), "NVIDIA H100 80GB HBM3");
	opmfu_resolve_peaks(&o, &dev, &pc);
	/* SPEC 6: H100 SXM 67 / 494.7 / 989.4 / 1978.9 / 1978.9, no fp4 */
	CHECK_DBL(pc.prec.flops[OPMFU_PREC_FP32], 67e12);
	CHECK_DBL(pc.prec.flops[OPMFU_PREC_TF32], 494.7e12);
	CHECK_DBL(pc.prec.flops[OPMFU_PREC_FP16], 989.4e12);
	CHECK_DBL(pc.prec.flops[OPMFU_PREC_FP8], 1978.9e12);
	CHECK_DBL(pc.prec.flops[OPMFU_PREC_INT8], 1978.9e12);
	CHECK_DBL(pc.prec.flops[OPMFU_PREC_FP4], 0);
	opmfu_peak_source_text(&pc, text, sizeof(text));
	CHECK_STR(text, "fp32, tf32, fp16, fp8, int8 from built-in table: H100 SXM (NVIDIA H100 datasheet, dense), "
			"the trace's device 'NVIDIA H100 80GB HBM3'");

	/* --chip against the trace's device: the chip wins, with a warning; an override wins over both */
	o.chip = "A100";
	o.peak_tflops[OPMFU_CLASS_FP8] = 500;
	opmfu_resolve_peaks(&o, &dev, &pc);
	CHECK_DBL(pc.prec.flops[OPMFU_PREC_FP16], 312e12);
	CHECK_DBL(pc.prec.flops[OPMFU_PREC_FP8], 500e12);
	CHECK_STR(pc.chip_warn, "--chip A100, but the trace says it ran on NVIDIA H100 80GB HBM3 (H100 SXM)");
	opmfu_peak_source_text(&pc, text, sizeof(text));
	CHECK_STR(text, "fp8 from override (--peak); fp32, tf32, fp16, int8 from built-in table: A100 (NVIDIA A100 "
			"datasheet, dense)");

	/* a GPU the table does not know */
	memset(&o, 0, sizeof(o));
	snprintf(dev.chip, sizeof(dev.chip), "NVIDIA GeForce RTX 4090");
	opmfu_resolve_peaks(&o, &dev, &pc);
	CHECK_DBL(pc.prec.flops[OPMFU_PREC_FP16], 0);
	CHECK_STR(pc.no_peak_why, "the trace's device 'NVIDIA GeForce RTX 4090' is not in the built-in table; the "
				  "trace names its chip 'NVIDIA GeForce RTX 4090'");
}

static void t_spec(void)
{
	double v[OPMFU_NCLASS];
	char msg[256];
	CHECK_INT(opmfu_parse_peak_spec("hf32=1,hif8=2,fp4=3.5,bf16=4,fp32=5,int8=6", v, msg, sizeof(msg)), 0);
	CHECK_DBL(v[OPMFU_CLASS_TF32], 1);
	CHECK_DBL(v[OPMFU_CLASS_FP8], 2);
	CHECK_DBL(v[OPMFU_CLASS_FP4], 3.5);
	CHECK_DBL(v[OPMFU_CLASS_FP16], 4);
	CHECK_DBL(v[OPMFU_CLASS_FP32], 5);
	CHECK_DBL(v[OPMFU_CLASS_INT8], 6);
	CHECK_INT(opmfu_parse_peak_spec("fp64=1", v, msg, sizeof(msg)), -1);
	CHECK_STR(msg, "unknown peak class 'fp64' (use fp32, tf32 (= hf32), fp16 (= bf16), fp8 (= hif8), int8, fp4)");
	CHECK_DBL(v[OPMFU_CLASS_FP16], 0);
}

int main(void)
{
	t_ascend();
	t_gpu();
	t_spec();
	return check_done();
}
