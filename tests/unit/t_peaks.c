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
	/* the trace names Ascend910B, whose bandwidth has no public figure: none, however its FLOPs came */
	CHECK_DBL(pc.prec.bw, 0);
	CHECK(pc.prec.bw_source == NULL);

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
	/* the bandwidth by the same order: here the trace's device */
	CHECK_DBL(pc.prec.bw, 3.35 * 1e12);
	CHECK_STR(pc.prec.bw_source, "built-in table: H100 SXM (NVIDIA H100 datasheet, SXM HBM3), the trace's "
				     "device 'NVIDIA H100 80GB HBM3'");

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
	/* --chip over the trace's device */
	CHECK_DBL(pc.prec.bw, 2.039 * 1e12); /* as the table's TB/s times 10^12 */
	CHECK_STR(pc.prec.bw_source, "built-in table: A100 (NVIDIA A100 datasheet, 80GB SXM HBM2e)");
	/* an override over --chip, with where it came from */
	o.peak_bw_tbps = 1.5;
	o.peak_bw_origin = "--peak-bw";
	opmfu_resolve_peaks(&o, &dev, &pc);
	CHECK_DBL(pc.prec.bw, 1.5e12);
	CHECK_STR(pc.prec.bw_source, "override (--peak-bw)");
	o.peak_bw_origin = "OPMFU_PEAK";
	opmfu_resolve_peaks(&o, &dev, &pc);
	CHECK_STR(pc.prec.bw_source, "override (OPMFU_PEAK)");
	/* a bandwidth override alone leaves the FLOPs to the chip, and the other way round */
	CHECK_DBL(pc.prec.flops[OPMFU_PREC_FP16], 312e12);
	o.peak_bw_tbps = 0;
	o.peak_bw_origin = NULL;
	/* --chip without a figure (Ascend910B): the next source, the trace's device, gives it */
	o.chip = "Ascend910B";
	opmfu_resolve_peaks(&o, &dev, &pc);
	CHECK_DBL(pc.prec.bw, 3.35 * 1e12);
	CHECK_STR(pc.prec.bw_source, "built-in table: H100 SXM (NVIDIA H100 datasheet, SXM HBM3), the trace's "
				     "device 'NVIDIA H100 80GB HBM3'");

	/* a GPU the table does not know */
	memset(&o, 0, sizeof(o));
	snprintf(dev.chip, sizeof(dev.chip), "NVIDIA GeForce RTX 4090");
	opmfu_resolve_peaks(&o, &dev, &pc);
	CHECK_DBL(pc.prec.flops[OPMFU_PREC_FP16], 0);
	CHECK_STR(pc.no_peak_why, "the trace's device 'NVIDIA GeForce RTX 4090' is not in the built-in table; the "
				  "trace names its chip 'NVIDIA GeForce RTX 4090'");
	CHECK_DBL(pc.prec.bw, 0);
	CHECK(pc.prec.bw_source == NULL);
	/* nor a trace that names no chip, but an override still gives one */
	memset(&dev, 0, sizeof(dev));
	opmfu_resolve_peaks(&o, &dev, &pc);
	CHECK(pc.prec.bw == 0 && pc.prec.bw_source == NULL);
	o.peak_bw_tbps = 2;
	opmfu_resolve_peaks(&o, &dev, &pc);
	CHECK_DBL(pc.prec.bw, 2e12);
	CHECK_STR(pc.prec.bw_source, "override (--peak-bw)");
}

static void t_spec(void)
{
	double v[OPMFU_NCLASS], bw;
	char msg[256];
	CHECK_INT(opmfu_parse_peak_spec("hf32=1,hif8=2,fp4=3.5,bf16=4,fp32=5,int8=6", v, NULL, msg, sizeof(msg)), 0);
	CHECK_DBL(v[OPMFU_CLASS_TF32], 1);
	CHECK_DBL(v[OPMFU_CLASS_FP8], 2);
	CHECK_DBL(v[OPMFU_CLASS_FP4], 3.5);
	CHECK_DBL(v[OPMFU_CLASS_FP16], 4);
	CHECK_DBL(v[OPMFU_CLASS_FP32], 5);
	CHECK_DBL(v[OPMFU_CLASS_INT8], 6);
	CHECK_INT(opmfu_parse_peak_spec("fp64=1", v, NULL, msg, sizeof(msg)), -1);
	CHECK_STR(msg, "unknown peak class 'fp64' (use fp32, tf32 (= hf32), fp16 (= bf16), fp8 (= hif8), int8, fp4)");
	CHECK_DBL(v[OPMFU_CLASS_FP16], 0);
	/* without room for a bandwidth (opmfu model), bw= is no class */
	CHECK_INT(opmfu_parse_peak_spec("bw=3", v, NULL, msg, sizeof(msg)), -1);
	CHECK_STR(msg, "unknown peak class 'bw' (use fp32, tf32 (= hf32), fp16 (= bf16), fp8 (= hif8), int8, fp4)");

	/* OPMFU_PEAK's bw=TBPS beside the classes, anywhere in the list */
	CHECK_INT(opmfu_parse_peak_spec("fp16=100,bw=3.35,int8=200", v, &bw, msg, sizeof(msg)), 0);
	CHECK_DBL(bw, 3.35);
	CHECK_DBL(v[OPMFU_CLASS_FP16], 100);
	CHECK_DBL(v[OPMFU_CLASS_INT8], 200);
	CHECK_INT(opmfu_parse_peak_spec("bw=1.6", v, &bw, msg, sizeof(msg)), 0);
	CHECK_DBL(bw, 1.6);
	CHECK_DBL(v[OPMFU_CLASS_FP16], 0);
	CHECK_INT(opmfu_parse_peak_spec("fp16=1", v, &bw, msg, sizeof(msg)), 0);
	CHECK_DBL(bw, 0);
	CHECK_INT(opmfu_parse_peak_spec("fp16=1,bw=fast", v, &bw, msg, sizeof(msg)), -1);
	CHECK_STR(msg, "bw=fast: the memory bandwidth must be a positive number of TB/s");
	CHECK_INT(opmfu_parse_peak_spec("bw=-2,fp16=1", v, &bw, msg, sizeof(msg)), -1);
	CHECK_STR(msg, "bw=-2: the memory bandwidth must be a positive number of TB/s");
	CHECK_INT(opmfu_parse_peak_spec("bw=0", v, &bw, msg, sizeof(msg)), -1);
	CHECK_INT(opmfu_parse_peak_spec("bw=1e6", v, &bw, msg, sizeof(msg)), -1);
	CHECK_INT(opmfu_parse_peak_spec("bw=3x", v, &bw, msg, sizeof(msg)), -1);
	CHECK_STR(msg, "bw=3x: the memory bandwidth must be a positive number of TB/s");
	CHECK_INT(opmfu_parse_peak_spec("fp64=1", v, &bw, msg, sizeof(msg)), -1);
	CHECK_STR(msg, "unknown peak class 'fp64' (use fp32, tf32 (= hf32), fp16 (= bf16), fp8 (= hif8), int8, fp4; bw "
		       "for the memory bandwidth in TB/s)");
	CHECK_INT(opmfu_parse_peak_spec("bw", v, &bw, msg, sizeof(msg)), -1);
	CHECK_STR(msg, "'bw': expected CLASS=TFLOPS (classes fp32, tf32 (= hf32), fp16 (= bf16), fp8 (= hif8), int8, "
		       "fp4) or bw=TBPS");

	/* --peak-bw TBPS */
	CHECK_INT(opmfu_parse_peak_bw("3.35", &bw, msg, sizeof(msg)), 0);
	CHECK_DBL(bw, 3.35);
	CHECK_INT(opmfu_parse_peak_bw("0", &bw, msg, sizeof(msg)), -1);
	CHECK_STR(msg, "'0' is not a positive number of TB/s (at most 1000)");
	CHECK_INT(opmfu_parse_peak_bw("3.35,", &bw, msg, sizeof(msg)), -1);
	CHECK_STR(msg, "'3.35,' is not a positive number of TB/s (at most 1000)");
	CHECK_INT(opmfu_parse_peak_bw("", &bw, msg, sizeof(msg)), -1);
	CHECK_INT(opmfu_parse_peak_bw("nan", &bw, msg, sizeof(msg)), -1);
	CHECK_INT(opmfu_parse_peak_bw("1001", &bw, msg, sizeof(msg)), -1);
}

int main(void)
{
	t_ascend();
	t_gpu();
	t_spec();
	return check_done();
}
