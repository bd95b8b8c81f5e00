/*
 * chips.c - peak FLOPS and memory bandwidth table. One line per chip; values
 * are the vendors' dense TFLOPS as listed in SPEC 6 (fp32 / tf32 / bf16=fp16
 * / fp8 / int8), then the peak device-memory bandwidth in TB/s (SPEC 18),
 * each with the document it comes from.
 */
#include "chips/chips.h"

#include <ctype.h>
#include <string.h>

#include "base/fold.h"

static const struct opmfu_chip chips[] = {
	/* Ascend: 24 AI cores x 1800 MHz x 8192 (fp16) or 16384 (int8) FLOPs per cycle; the cube unit
	 * runs fp32 and hf32 inputs at the fp16 rate (OPMFU_CHIP_CUBE). Huawei publishes no HBM bandwidth
	 * for the 910B (only third-party estimates, from 0.4 to 2 TB/s): none, give --peak-bw */
	{ "Ascend910B", "910B|Ascend 910B", 0, 0, 353.8944, 0, 707.7888, "24 AI cores at 1800 MHz, cube formula",
	  OPMFU_CHIP_CUBE, 0, "no vendor-published figure" },
	/* the A100's FLOPs are one for every form; its memory is not: 80 GB SXM4 (HBM2e), 40 GB (HBM2),
	 * 80 GB PCIe (HBM2e at a lower clock) */
	{ "A100", "A100 SXM|A100 SXM 80GB|NVIDIA A100-SXM4-80GB", 19.5, 156, 312, 0, 624,
	  "NVIDIA A100 datasheet, dense", 0, 2.039, "NVIDIA A100 datasheet, 80GB SXM HBM2e" },
	{ "A100 40GB", "A100 SXM 40GB|A100 PCIe 40GB|NVIDIA A100-SXM4-40GB|NVIDIA A100-PCIE-40GB", 19.5, 156, 312,
	  0, 624, "NVIDIA A100 datasheet, dense", 0, 1.555, "NVIDIA A100 datasheet, 40GB HBM2" },
	{ "A100 PCIe", "A100 PCIe 80GB|NVIDIA A100 80GB PCIe|NVIDIA A100-PCIE-80GB", 19.5, 156, 312, 0, 624,
	  "NVIDIA A100 datasheet, dense", 0, 1.935, "NVIDIA A100 datasheet, 80GB PCIe HBM2e" },
	{ "H100 SXM", "H100 SXM5|NVIDIA H100 80GB HBM3|NVIDIA H100 SXM5 80GB", 67, 494.7, 989.4, 1978.9, 1978.9,
	  "NVIDIA H100 datasheet, dense", 0, 3.35, "NVIDIA H100 datasheet, SXM HBM3" },
	{ "H200 SXM", "NVIDIA H200|NVIDIA H200 141GB HBM3e", 67, 494.7, 989.4, 1978.9, 1978.9,
	  "NVIDIA H200 datasheet, dense", 0, 4.8, "NVIDIA H200 datasheet, HBM3e" },
	{ "H800", "H800 SXM|NVIDIA H800|NVIDIA H800 80GB HBM3", 67, 494.7, 989.4, 1978.9, 1978.9,
	  "same silicon and clocks as H100 SXM", 0, 3.35, "same 80GB HBM3 as H100 SXM (NVIDIA H100 datasheet)" },
	{ "H100 PCIe", "NVIDIA H100 PCIe", 51, 378, 756, 1513, 1513, "NVIDIA H100 datasheet, dense", 0, 2.0,
	  "NVIDIA H100 datasheet, PCIe HBM2e" },
	{ "H100 NVL", "NVIDIA H100 NVL", 60, 417.5, 835.5, 1670.5, 1670.5, "NVIDIA H100 NVL datasheet, dense", 0,
	  3.9, "NVIDIA H100 datasheet, NVL HBM3" },
	{ "H200 NVL", "NVIDIA H200 NVL", 60, 417.5, 835.5, 1670.5, 1670.5, "NVIDIA H200 NVL datasheet, dense", 0,
	  4.8, "NVIDIA H200 datasheet, NVL HBM3e" },
	{ "H20", "NVIDIA H20", 44, 74, 148, 296, 296, "NVIDIA H20 datasheet, dense", 0, 4.0,
	  "NVIDIA H20 datasheet, 96GB HBM3" },
	{ "L40S", "NVIDIA L40S", 91.6, 183, 362.05, 733, 733, "NVIDIA L40S datasheet, dense", 0, 0.864,
	  "NVIDIA L40S datasheet, GDDR6" },
	{ "L4", "NVIDIA L4", 30.3, 60, 121, 242.5, 242.5, "NVIDIA L4 datasheet, dense", 0, 0.3,
	  "NVIDIA L4 datasheet, GDDR6" },
	{ "B200", "NVIDIA B200", 75, 1125, 2250, 4500, 4500, "NVIDIA B200 datasheet, dense", 0, 8.0,
	  "NVIDIA HGX B200 datasheet, HBM3e per GPU" },
	{ "GB200", "NVIDIA GB200", 80, 1250, 2500, 5000, 5000, "NVIDIA GB200 datasheet, dense, per GPU", 0, 8.0,
	  "NVIDIA GB200 NVL72 datasheet, HBM3e per GPU" },
	{ "V100 SXM2", "Tesla V100-SXM2-32GB|Tesla V100-SXM2-16GB|V100", 15.7, 0, 125, 0, 0,
	  "NVIDIA V100 datasheet, SXM2 (fp16 tensor core)", 0, 0.9, "NVIDIA V100 datasheet, HBM2" },
	{ "MI300X", "AMD Instinct MI300X", 163.4, 653.7, 1307.4, 2614.9, 2614.9, "AMD MI300X datasheet, dense", 0,
	  5.3, "AMD Instinct MI300X datasheet, HBM3" },
	{ "MI325X", "AMD Instinct MI325X", 163.4, 653.7, 1307.4, 2614.9, 2614.9, "AMD MI325X datasheet, dense", 0,
	  6.0, "AMD Instinct MI325X datasheet, HBM3E" },
	{ "TPU v5p", "v5p", 0, 0, 459, 0, 0, "Google Cloud TPU v5p, bf16", 0, 2.765,
	  "Google Cloud TPU v5p documentation, HBM2e 2765 GBps" },
	{ "TPU v6e", "v6e|Trillium", 0, 0, 918, 0, 0, "Google Cloud TPU v6e, bf16", 0, 1.64,
	  "Google Cloud TPU v6e documentation, HBM 1640 GBps" },
	{ NULL, NULL, 0, 0, 0, 0, 0, NULL, 0, 0, NULL },
};

const struct opmfu_chip *opmfu_chips(void)
{
	return chips;
}


static int same(const char *a, size_t na, const char *want)
{
	char x[64], y[64];
	if (na >= sizeof(x))
		return 0;
	opmfu_fold_name(a, na, x, sizeof(x));
	opmfu_fold_name(want, strlen(want), y, sizeof(y));
	return y[0] && strcmp(x, y) == 0;
}

static const struct opmfu_chip *find_n(const char *name, size_t n)
{
	const struct opmfu_chip *c;
	for (c = chips; c->name; c++) {
		const char *a = c->aliases;
		if (same(name, n, c->name))
			return c;
		while (a && *a) {
			const char *bar = strchr(a, '|');
			size_t an = bar ? (size_t)(bar - a) : strlen(a);
			char alias[64];
			if (an < sizeof(alias)) {
				memcpy(alias, a, an);
				alias[an] = '\0';
				if (same(name, n, alias))
					return c;
			}
			a = bar ? bar + 1 : NULL;
		}
	}
	return NULL;
}

const struct opmfu_chip *opmfu_chip_find(const char *name)
{
	return find_n(name, strlen(name));
}

/* s[0..n) ends with the word w (case-insensitive), after a space */
static int ends_with_word(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w), i;
	if (n <= k || s[n - k - 1] != ' ')
		return 0;
	for (i = 0; i < k; i++)
		if (tolower((unsigned char)s[n - k + i]) != tolower((unsigned char)w[i]))
			return 0;
	return 1;
}

const struct opmfu_chip *opmfu_chip_find_device(const char *name)
{
	size_t n = strlen(name);
	const char *mig;
	const struct opmfu_chip *c;

	while (n && name[n - 1] == ' ')
		n--;
	if ((c = find_n(name, n)))
		return c;
	/* a MIG slice ("... MIG 1g.10gb") runs on its GPU's tensor cores */
	if ((mig = strstr(name, " MIG ")) && (size_t)(mig - name) < n && (c = find_n(name, (size_t)(mig - name))))
		return c;
	/* a virtual function of the same GPU (cloud instances) */
	if (ends_with_word(name, n, "VF"))
		return find_n(name, n - 3);
	return NULL;
}

/* Levenshtein distance of two short strings (at most 63 bytes each) */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, row[64];
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

/* the smallest distance from x to c's name or an alias (all normalised) */
static size_t chip_distance(const struct opmfu_chip *c, const char *x)
{
	char y[64];
	const char *a = c->aliases;
	size_t best;
	opmfu_fold_name(c->name, strlen(c->name), y, sizeof(y));
	best = distance(x, y);
	while (a && *a) {
		const char *bar = strchr(a, '|');
		size_t an = bar ? (size_t)(bar - a) : strlen(a), d;
		if (an < sizeof(y)) {
			opmfu_fold_name(a, an, y, sizeof(y));
			if ((d = distance(x, y)) < best)
				best = d;
		}
		a = bar ? bar + 1 : NULL;
	}
	return best;
}

size_t opmfu_chip_suggest(const char *name, const struct opmfu_chip **out, size_t max)
{
	char x[64];
	size_t n = 0, limit, xl, best;
	const struct opmfu_chip *c;

	if (strlen(name) >= sizeof(x))
		return 0;
	xl = opmfu_fold_name(name, strlen(name), x, sizeof(x));
	limit = xl / 3 > 2 ? xl / 3 : 2;
	/* closest first, ties in table order: one pass per distance (the table is small) */
	for (best = 0; best <= limit && n < max; best++)
		for (c = chips; c->name && n < max; c++)
			if (chip_distance(c, x) == best)
				out[n++] = c;
	return n;
}
