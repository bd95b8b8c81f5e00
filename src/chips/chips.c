/*
 * chips.c - peak FLOPS table. One line per chip; values are the vendors'
 * dense TFLOPS as listed in SPEC 6 (fp32 / tf32 / bf16=fp16 / fp8 / int8).
 */
#include "chips/chips.h"

#include <ctype.h>
#include <string.h>

static const struct opmfu_chip chips[] = {
	/* Ascend: 24 AI cores x 1800 MHz x 8192 (fp16) or 16384 (int8) FLOPs per cycle */
	{ "Ascend910B", "910B|Ascend 910B", 0, 0, 353.8944, 0, 707.7888, "24 AI cores at 1800 MHz, cube formula" },
	{ "A100", "A100 SXM|A100 PCIe", 19.5, 156, 312, 0, 624, "NVIDIA A100 datasheet, dense" },
	{ "H100 SXM", "H100 SXM5", 67, 494.7, 989.4, 1978.9, 1978.9, "NVIDIA H100 datasheet, dense" },
	{ "H200 SXM", NULL, 67, 494.7, 989.4, 1978.9, 1978.9, "NVIDIA H200 datasheet, dense" },
	{ "H800", "H800 SXM", 67, 494.7, 989.4, 1978.9, 1978.9, "same silicon and clocks as H100 SXM" },
	{ "H100 PCIe", NULL, 51, 378, 756, 1513, 1513, "NVIDIA H100 datasheet, dense" },
	{ "H100 NVL", NULL, 60, 417.5, 835.5, 1670.5, 1670.5, "NVIDIA H100 NVL datasheet, dense" },
	{ "H200 NVL", NULL, 60, 417.5, 835.5, 1670.5, 1670.5, "NVIDIA H200 NVL datasheet, dense" },
	{ "H20", NULL, 44, 74, 148, 296, 296, "NVIDIA H20 datasheet, dense" },
	{ "L40S", NULL, 91.6, 183, 362.05, 733, 733, "NVIDIA L40S datasheet, dense" },
	{ "L4", NULL, 30.3, 60, 121, 242.5, 242.5, "NVIDIA L4 datasheet, dense" },
	{ "B200", NULL, 75, 1125, 2250, 4500, 4500, "NVIDIA B200 datasheet, dense" },
	{ "GB200", NULL, 80, 1250, 2500, 5000, 5000, "NVIDIA GB200 datasheet, dense, per GPU" },
	{ "MI300X", NULL, 163.4, 653.7, 1307.4, 2614.9, 2614.9, "AMD MI300X datasheet, dense" },
	{ "MI325X", NULL, 163.4, 653.7, 1307.4, 2614.9, 2614.9, "AMD MI325X datasheet, dense" },
	{ "TPU v5p", "v5p", 0, 0, 459, 0, 0, "Google Cloud TPU v5p, bf16" },
	{ "TPU v6e", "v6e|Trillium", 0, 0, 918, 0, 0, "Google Cloud TPU v6e, bf16" },
	{ NULL, NULL, 0, 0, 0, 0, 0, NULL },
};

const struct opmfu_chip *opmfu_chips(void)
{
	return chips;
}

/* Lower-cases and drops ' ', '-' and '_' so "h100-sxm" equals "H100 SXM". */
static size_t normalize(const char *s, size_t n, char *out, size_t outsz)
{
	size_t i, o = 0;
	for (i = 0; i < n && o + 1 < outsz; i++) {
		char c = s[i];
		if (c == ' ' || c == '-' || c == '_')
			continue;
		out[o++] = (char)tolower((unsigned char)c);
	}
	out[o] = '\0';
	return o;
}

static int same(const char *a, size_t na, const char *want)
{
	char x[64], y[64];
	if (na >= sizeof(x))
		return 0;
	normalize(a, na, x, sizeof(x));
	normalize(want, strlen(want), y, sizeof(y));
	return y[0] && strcmp(x, y) == 0;
}

const struct opmfu_chip *opmfu_chip_find(const char *name)
{
	const struct opmfu_chip *c;
	for (c = chips; c->name; c++) {
		const char *a = c->aliases;
		if (same(c->name, strlen(c->name), name))
			return c;
		while (a && *a) {
			const char *bar = strchr(a, '|');
			size_t n = bar ? (size_t)(bar - a) : strlen(a);
			if (same(a, n, name))
				return c;
			a = bar ? bar + 1 : NULL;
		}
	}
	return NULL;
}
