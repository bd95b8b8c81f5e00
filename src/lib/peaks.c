/*
 * peaks.c - which peak FLOPS and peak memory bandwidth a rank uses and where
 * each came from (SPEC 1.4, 6, 8, 18): an override, then the built-in chip
 * table, then what the trace's own device information implies (its reader
 * worked that out).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "chips/chips.h"
#include "lib/lib.h"
#include "trace/parse.h"

_Static_assert(OPMFU_DEVICE_NCLASS == OPMFU_PREC__COUNT, "a device's peaks are indexed by SPEC 8 class");
_Static_assert((int)OPMFU_CLASS_FP32 == (int)OPMFU_PREC_FP32 && (int)OPMFU_CLASS_TF32 == (int)OPMFU_PREC_TF32 &&
		       (int)OPMFU_CLASS_FP16 == (int)OPMFU_PREC_FP16 && (int)OPMFU_CLASS_FP8 == (int)OPMFU_PREC_FP8 &&
		       (int)OPMFU_CLASS_INT8 == (int)OPMFU_PREC_INT8 && (int)OPMFU_CLASS_FP4 == (int)OPMFU_PREC_FP4 &&
		       (int)OPMFU_NCLASS == (int)OPMFU_PREC__COUNT,
	       "the API's peak classes are SPEC 8's");

/* A chip's table value for class c, TFLOPS (0: none). */
static double chip_tflops(const struct opmfu_chip *chip, int c)
{
	switch (c) {
	case OPMFU_PREC_FP32: return chip->fp32;
	case OPMFU_PREC_TF32: return chip->tf32;
	case OPMFU_PREC_FP16: return chip->fp16;
	case OPMFU_PREC_FP8: return chip->fp8;
	case OPMFU_PREC_INT8: return chip->int8;
	case OPMFU_PREC_FP4: return chip->fp4;
	}
	return 0;
}

static void take(struct peak_choice *pc, int c, double flops, int label)
{
	if (!pc->prec.source[c] && flops > 0) {
		pc->prec.flops[c] = flops;
		pc->prec.source[c] = pc->labels[label];
	}
}

static void take_chip(struct peak_choice *pc, const struct opmfu_chip *chip, int label)
{
	int c;
	for (c = 0; c < OPMFU_PREC__COUNT; c++)
		take(pc, c, chip_tflops(chip, c) * 1e12, label);
}

/* "; the trace names its chip 'Ascend910B' (NPU_INFO ...): ..." - what to give instead */
static void suggest_chip(const struct opmfu_device *dev, char *out, size_t size)
{
	const struct opmfu_chip *near[3];
	size_t n, i;
	if (!dev->chip[0])
		return;
	opmfu_bufcat(out, size, "; the trace names its chip '%s'%s%s%s", dev->chip, dev->seen[0] ? " (" : "",
		     dev->seen, dev->seen[0] ? ")" : "");
	if ((near[0] = opmfu_chip_find_device(dev->chip))) {
		opmfu_bufcat(out, size, ": the built-in %s is %s; if that is this chip, give --chip %s", near[0]->name,
			     near[0]->source, near[0]->name);
		return;
	}
	n = opmfu_chip_suggest(dev->chip, near, 3);
	for (i = 0; i < n; i++)
		opmfu_bufcat(out, size, "%s%s", i ? ", " : ": built-in chips with a similar name: ", near[i]->name);
}

/* The device's own peaks: what its files imply (Ascend info.json), else its
 * name in the built-in table. An NPU's family name says nothing of its
 * cores, so it is only suggested (suggest_chip), never taken. */
static void take_device(const struct opmfu_device *dev, struct peak_choice *pc)
{
	const struct opmfu_chip *dc;
	int c, any = 0;

	snprintf(pc->labels[PL_DEVICE], sizeof(pc->labels[PL_DEVICE]), "%s", dev->source);
	for (c = 0; c < OPMFU_PREC__COUNT; c++) {
		any |= dev->peak_flops[c] > 0;
		take(pc, c, dev->peak_flops[c], PL_DEVICE);
	}
	if (!any && !dev->cube && dev->chip[0] && (dc = opmfu_chip_find_device(dev->chip))) {
		snprintf(pc->labels[PL_DEVICE], sizeof(pc->labels[PL_DEVICE]), "built-in table: %s (%s), the trace's device '%s'",
			 dc->name, dc->source, dev->chip);
		take_chip(pc, dc, PL_DEVICE);
	}
}

/* Why no source gave any class a peak, and what would. */
static void explain_no_peak(const struct opmfu_device *dev, struct peak_choice *pc)
{
	if (dev->no_peak[0])
		snprintf(pc->no_peak_why, sizeof(pc->no_peak_why), "%s", dev->no_peak);
	else if (dev->chip[0] && !dev->cube)
		snprintf(pc->no_peak_why, sizeof(pc->no_peak_why), "the trace's device '%s' is not in the built-in table",
			 dev->chip);
	else
		snprintf(pc->no_peak_why, sizeof(pc->no_peak_why), "the trace does not say which chip it ran on");
	suggest_chip(dev, pc->no_peak_why, sizeof(pc->no_peak_why));
}

/* --chip against what the trace says it ran on */
static void check_chip(const struct opmfu_chip *chip, const struct opmfu_device *dev, struct peak_choice *pc)
{
	const struct opmfu_chip *dc = dev->chip[0] ? opmfu_chip_find_device(dev->chip) : NULL;
	int named = dc && strcmp(dc->name, dev->chip); /* the table's name says more */
	if ((dc && dc != chip) || (dev->cube && !(chip->flags & OPMFU_CHIP_CUBE)))
		snprintf(pc->chip_warn, sizeof(pc->chip_warn), "--chip %s, but the trace says it ran on %s%s%s%s",
			 chip->name, dev->chip[0] ? dev->chip : "an Ascend NPU", named ? " (" : "",
			 named ? dc->name : "", named ? ")" : "");
}

/* The peak memory bandwidth by the same order as the FLOPs: an override,
 * --chip, then the chip the trace names (a GPU's device name, an NPU's chip)
 * in the table. A chip without a public figure (bw 0) gives none, so the
 * next source is tried; no source leaves bw 0 and bw_source NULL. */
static void resolve_bw(const struct opmfu_opts *o, const struct opmfu_chip *chip, const struct opmfu_device *dev,
		       struct peak_choice *pc)
{
	const struct opmfu_chip *dc;
	char *l = pc->bw_label;
	size_t n = sizeof(pc->bw_label);

	if (o->peak_bw_tbps > 0) {
		pc->prec.bw = o->peak_bw_tbps * 1e12;
		snprintf(l, n, "override (%s)", o->peak_bw_origin ? o->peak_bw_origin : "--peak-bw");
	} else if (chip && chip->bw > 0) {
		pc->prec.bw = chip->bw * 1e12;
		snprintf(l, n, "built-in table: %s (%s)", chip->name, chip->bw_source);
	} else if (dev->chip[0] && (dc = opmfu_chip_find_device(dev->chip)) && dc->bw > 0) {
		pc->prec.bw = dc->bw * 1e12;
		snprintf(l, n, "built-in table: %s (%s), the trace's device '%s'", dc->name, dc->bw_source, dev->chip);
	} else {
		return;
	}
	pc->prec.bw_source = l;
}

void opmfu_resolve_peaks(const struct opmfu_opts *o, const struct opmfu_device *dev, struct peak_choice *pc)
{
	const struct opmfu_chip *chip = o->chip ? opmfu_chip_find(o->chip) : NULL;
	int c, cube = dev->cube;

	memset(pc, 0, sizeof(*pc));
	snprintf(pc->labels[PL_OVERRIDE], sizeof(pc->labels[PL_OVERRIDE]), "override (%s)",
		 o->peak_origin ? o->peak_origin : "--peak");
	for (c = 0; c < OPMFU_PREC__COUNT; c++)
		take(pc, c, o->peak_tflops[c] * 1e12, PL_OVERRIDE);
	if (chip) {
		snprintf(pc->labels[PL_CHIP], sizeof(pc->labels[PL_CHIP]), "built-in table: %s (%s)", chip->name,
			 chip->source);
		take_chip(pc, chip, PL_CHIP);
		check_chip(chip, dev, pc);
		cube = (chip->flags & OPMFU_CHIP_CUBE) != 0;
	}
	take_device(dev, pc);
	/* the stated rule for classes an Ascend chip has no number for */
	if (cube && pc->prec.source[OPMFU_PREC_FP16]) {
		snprintf(pc->labels[PL_FALLBACK], sizeof(pc->labels[PL_FALLBACK]),
			 "the fp16 rate (the Ascend cube unit runs fp32 and hf32 inputs at it, the reference's rule)");
		take(pc, OPMFU_PREC_FP32, pc->prec.flops[OPMFU_PREC_FP16], PL_FALLBACK);
		take(pc, OPMFU_PREC_TF32, pc->prec.flops[OPMFU_PREC_FP16], PL_FALLBACK);
	}
	resolve_bw(o, chip, dev, pc);
	if (!opmfu_rank_any_peak(&pc->prec))
		explain_no_peak(dev, pc);
}

void opmfu_bufcat(char *buf, size_t size, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;
	if (n + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, size - n, fmt, ap);
	va_end(ap);
}

static const char *const class_names[OPMFU_PREC__COUNT] = { "fp32", "tf32", "fp16", "fp8", "int8", "fp4" };

/* "fp16, int8 from info.json ...; fp32, tf32 at the fp16 rate (...)" */
void opmfu_peak_source_text(const struct peak_choice *pc, char *out, size_t size)
{
	int l, c, any;

	out[0] = '\0';
	for (l = 0; l < PL__COUNT; l++) {
		const char *label = pc->labels[l];
		any = 0;
		for (c = 0; c < OPMFU_PREC__COUNT; c++) {
			if (pc->prec.source[c] != label)
				continue;
			if (!any && out[0])
				opmfu_bufcat(out, size, "; ");
			opmfu_bufcat(out, size, "%s%s", any ? ", " : "", class_names[c]);
			any = 1;
		}
		if (any)
			opmfu_bufcat(out, size, l == PL_FALLBACK ? " at %s" : " from %s", label);
	}
}

/* the largest peak bandwidth taken, TB/s: far above any chip, below nonsense */
#define OPMFU_PEAK_BW_MAX 1000.0

/* SPEC 8's class of a --peak name, or -1 */
static int peak_class(const char *name)
{
	static const struct {
		const char *name;
		int c;
	} names[] = { { "fp32", OPMFU_PREC_FP32 }, { "tf32", OPMFU_PREC_TF32 }, { "hf32", OPMFU_PREC_TF32 },
		      { "fp16", OPMFU_PREC_FP16 }, { "bf16", OPMFU_PREC_FP16 }, { "fp8", OPMFU_PREC_FP8 },
		      { "hif8", OPMFU_PREC_FP8 },  { "int8", OPMFU_PREC_INT8 }, { "fp4", OPMFU_PREC_FP4 } };
	size_t i;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i].name))
			return names[i].c;
	return -1;
}

/* a positive number up to max, the whole of s or up to a ',' when comma; 0, or -1 */
static int positive(const char *s, double max, int comma, double *v, const char **end)
{
	char *e;
	errno = 0;
	*v = strtod(s, &e);
	if (e == s || errno || !(*v > 0) || *v > max || (*e && !(comma && *e == ',')))
		return -1;
	*end = e;
	return 0;
}

int opmfu_parse_peak_spec(const char *spec, double *tflops, double *bw_tbps, char *msg, size_t msgsz)
{
	const char *p = spec;
	int c;
	for (c = 0; c < OPMFU_NCLASS; c++)
		tflops[c] = 0;
	if (bw_tbps)
		*bw_tbps = 0;
	while (*p) {
		const char *eq = strchr(p, '='), *end;
		char name[16];
		size_t n;
		double v;
		if (!eq) {
			snprintf(msg, msgsz, "'%s': expected CLASS=TFLOPS (classes %s)%s", p, OPMFU_PEAK_CLASSES,
				 bw_tbps ? " or bw=TBPS" : "");
			return -1;
		}
		n = (size_t)(eq - p);
		if (n >= sizeof(name))
			n = sizeof(name) - 1;
		memcpy(name, p, n);
		name[n] = '\0';
		if (bw_tbps && !strcmp(name, "bw")) {
			if (positive(eq + 1, OPMFU_PEAK_BW_MAX, 1, &v, &end)) {
				snprintf(msg, msgsz, "bw=%.*s: the memory bandwidth must be a positive number of TB/s",
					 (int)strcspn(eq + 1, ","), eq + 1);
				return -1;
			}
			*bw_tbps = v;
		} else if ((c = peak_class(name)) < 0) {
			snprintf(msg, msgsz, "unknown peak class '%s' (use %s%s)", name, OPMFU_PEAK_CLASSES,
				 bw_tbps ? "; bw for the memory bandwidth in TB/s" : "");
			return -1;
		} else if (positive(eq + 1, 1e9, 1, &v, &end)) {
			snprintf(msg, msgsz, "peak for %s must be a positive number of TFLOPS", name);
			return -1;
		} else {
			tflops[c] = v;
		}
		p = *end ? end + 1 : end;
	}
	return 0;
}

int opmfu_parse_peak_bw(const char *arg, double *bw_tbps, char *msg, size_t msgsz)
{
	const char *end;
	if (positive(arg, OPMFU_PEAK_BW_MAX, 0, bw_tbps, &end)) {
		snprintf(msg, msgsz, "'%s' is not a positive number of TB/s (at most %g)", arg, OPMFU_PEAK_BW_MAX);
		return -1;
	}
	return 0;
}

int opmfu_chip_row(size_t i, struct opmfu_chip_row *row)
{
	const struct opmfu_chip *c = opmfu_chips();
	size_t k;
	for (k = 0; k < i; k++)
		if (!c[k].name)
			return 0;
	if (!c[i].name)
		return 0;
	*row = (struct opmfu_chip_row){ c[i].name, c[i].aliases, c[i].source, c[i].fp32, c[i].tf32,
					c[i].fp16,  c[i].fp8,     c[i].int8,   c[i].fp4,  c[i].bw, c[i].bw_source };
	return 1;
}
