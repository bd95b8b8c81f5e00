/*
 * peaks.c - which peak FLOPS a rank uses and where each came from (SPEC 1.4,
 * 6, 8): an override, then the built-in chip table, then what the trace's
 * own device information implies (its reader worked that out).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "chips/chips.h"
#include "lib/lib.h"
#include "model/parse.h"

_Static_assert(OPMFU_DEVICE_NCLASS == OPMFU_DT__COUNT, "a device's peaks are indexed by dtype class");

/* SPEC 8's classes from the reference's: fp16, int8 and fp8 as they are.
 * NEEDSWORK: fp32, tf32 and fp4 (issue 19: per-class table and device
 * peaks, stated fallback rules). */
static void set_prec_peaks(struct peak_choice *pc)
{
	static const int from[][2] = { { OPMFU_PREC_FP16, OPMFU_DT_FP16 },
				       { OPMFU_PREC_INT8, OPMFU_DT_INT8 },
				       { OPMFU_PREC_FP8, OPMFU_DT_FP8 } };
	size_t i;

	memset(&pc->prec, 0, sizeof(pc->prec));
	for (i = 0; i < sizeof(from) / sizeof(from[0]); i++) {
		pc->prec.flops[from[i][0]] = pc->pk.flops[from[i][1]];
		pc->prec.source[from[i][0]] = pc->src[from[i][1]];
	}
}

void opmfu_resolve_peaks(const struct opmfu_opts *o, const struct opmfu_device *dev, struct peak_choice *pc)
{
	int c, any = 0;

	memset(pc, 0, sizeof(*pc));
	snprintf(pc->labels[0], sizeof(pc->labels[0]), "override (%s)", o->peak_origin ? o->peak_origin : "--peak");
	for (c = 0; c < OPMFU_NCLASS; c++)
		if (o->peak_tflops[c] > 0) {
			pc->pk.flops[c] = o->peak_tflops[c] * 1e12;
			pc->src[c] = pc->labels[0];
		}
	if (o->chip) {
		const struct opmfu_chip *chip = opmfu_chip_find(o->chip);
		if (chip) {
			double v[OPMFU_NCLASS] = { chip->fp16, chip->int8, chip->fp8 };
			snprintf(pc->labels[1], sizeof(pc->labels[1]), "built-in table: %s (%s)", chip->name,
				 chip->source);
			for (c = 0; c < OPMFU_NCLASS; c++)
				if (!pc->src[c] && v[c] > 0) {
					pc->pk.flops[c] = v[c] * 1e12;
					pc->src[c] = pc->labels[1];
				}
		}
	}
	for (c = 0; c < OPMFU_NCLASS; c++)
		any |= dev->peak_flops[c] > 0;
	if (!any) {
		/* why, for when nothing else gives a peak either */
		snprintf(pc->no_peak_why, sizeof(pc->no_peak_why), "%s", dev->no_peak);
	} else {
		snprintf(pc->labels[2], sizeof(pc->labels[2]), "%s", dev->source);
		for (c = 0; c < OPMFU_NCLASS; c++)
			if (!pc->src[c] && dev->peak_flops[c] > 0) {
				pc->pk.flops[c] = dev->peak_flops[c];
				pc->src[c] = pc->labels[2];
			}
	}
	set_prec_peaks(pc);
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

/* "fp16, int8 from info.json ...; fp8 from override (--peak)" */
void opmfu_peak_source_text(const struct peak_choice *pc, char *out, size_t size)
{
	int l, c, any;
	static const char *const names[] = { "fp16", "int8", "fp8" };

	out[0] = '\0';
	for (l = 0; l < 3; l++) {
		const char *label = pc->labels[l];
		any = 0;
		for (c = 0; c < OPMFU_NCLASS; c++) {
			if (pc->src[c] != label)
				continue;
			if (!any && out[0])
				opmfu_bufcat(out, size, "; ");
			opmfu_bufcat(out, size, "%s%s", any ? ", " : "", names[c]);
			any = 1;
		}
		if (any)
			opmfu_bufcat(out, size, " from %s", label);
	}
}

int opmfu_parse_peak_spec(const char *spec, double *tflops, char *msg, size_t msgsz)
{
	const char *p = spec;
	int c;
	for (c = 0; c < OPMFU_NCLASS; c++)
		tflops[c] = 0;
	while (*p) {
		const char *eq = strchr(p, '='), *comma;
		char name[16], *end;
		size_t n;
		double v;
		if (!eq) {
			snprintf(msg, msgsz, "'%s': expected CLASS=TFLOPS (classes fp16, bf16, int8, fp8)", p);
			return -1;
		}
		n = (size_t)(eq - p);
		if (n >= sizeof(name))
			n = sizeof(name) - 1;
		memcpy(name, p, n);
		name[n] = '\0';
		if (!strcmp(name, "fp16") || !strcmp(name, "bf16"))
			c = OPMFU_CLASS_FP16;
		else if (!strcmp(name, "int8"))
			c = OPMFU_CLASS_INT8;
		else if (!strcmp(name, "fp8"))
			c = OPMFU_CLASS_FP8;
		else {
			snprintf(msg, msgsz, "unknown peak class '%s' (use fp16, bf16, int8 or fp8)", name);
			return -1;
		}
		errno = 0;
		v = strtod(eq + 1, &end);
		comma = strchr(eq + 1, ',');
		if (end == eq + 1 || errno || !(v > 0) || v > 1e9 || (*end && *end != ',')) {
			snprintf(msg, msgsz, "peak for %s must be a positive number of TFLOPS", name);
			return -1;
		}
		tflops[c] = v;
		p = comma ? comma + 1 : end;
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
	*row = (struct opmfu_chip_row){ c[i].name, c[i].aliases, c[i].source, c[i].fp32,
					c[i].tf32, c[i].fp16, c[i].fp8, c[i].int8 };
	return 1;
}
