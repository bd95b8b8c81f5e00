/*
 * device.h - what a rank's trace says about the chip it ran on: the source
 * of the peak FLOPS a trace implies (SPEC 1.4, 8). Readers fill it; the
 * peak policy (override, then --chip, then this) lives in lib/peaks.c.
 */
#ifndef OPMFU_DEVICE_H
#define OPMFU_DEVICE_H

#include "base/mem.h"

/* Peak classes, indexed as enum opmfu_prec (model/dtype.h; lib/peaks.c
 * checks that the two agree). */
#define OPMFU_DEVICE_NCLASS 6

struct opmfu_device {
	char *path;            /* the file the device information came from (malloc'd); NULL: none found */
	char chip[64];         /* the chip's name as the trace gives it; empty: none */
	long long ai_core_num; /* Ascend (info.json): AI cores; 0: unknown */
	double aic_mhz;        /* Ascend (info.json): AI core clock in MHz; 0: unknown */
	double peak_flops[OPMFU_DEVICE_NCLASS]; /* FLOPS per SPEC 8 class the trace implies; 0: none */
	int cube;              /* an Ascend NPU: fp32 and hf32 inputs run at the fp16 cube rate */
	char seen[256];        /* what else the trace says of its chip, for the summary: "NPU_INFO
				  Ascend910B, AICORE_FREQ 1800 MHz"; empty: nothing */
	char source[600];      /* where those peaks come from, as results name it:
				  "info.json PATH (24 AI cores at 1800 MHz)" */
	char no_peak[1200];    /* when no class has a peak: why, naming the file and field at fault */
};

/* Frees what dev owns and empties it (a zeroed device is empty). */
static inline void opmfu_device_release(struct opmfu_device *dev)
{
	opmfu_free(dev->path);
	dev->path = NULL;
}

#endif
