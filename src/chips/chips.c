/*
 * chips.c - peak FLOPS and memory bandwidth table. One line per chip; values
 * are the vendors' dense TFLOPS as listed in SPEC 6 (fp32 / tf32 / bf16=fp16
 * / fp8 / int8), then the peak device-memory bandwidth in TB/s (SPEC 18),
 * each with the document it comes from.
 */
#include "chips/chips.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/fold.h"

static const struct opmfu_chip chips[] = {
	/* Ascend: AI cores x cube clock x 8192 (fp16: a 16x16x16 cube, 4096 MACs) or 16384 (int8: K doubled,
	 * DtypeMKN DT_INT8=16,32,16) FLOPs per cycle; the cube unit runs fp32 and hf32 inputs at the fp16
	 * rate (OPMFU_CHIP_CUBE). Core counts and clocks are CANN's own platform files
	 * (data/platform_config/<SoC>.ini: ai_core_cnt, cube_freq). Huawei publishes no HBM bandwidth for
	 * the 910B (only third-party estimates, from 0.4 to 2 TB/s): none, give --peak-bw */
	{ "Ascend910B", "910B|Ascend 910B", 0, 0, 353.8944, 0, 707.7888, 0, "24 AI cores at 1800 MHz, cube formula",
	  OPMFU_CHIP_CUBE, 0, "no vendor-published figure" },
	{ "Ascend910B1", "910B1|Ascend 910B1", 0, 0, 363.7248, 0, 727.4496, 0,
	  "24 AI cores at 1850 MHz, cube formula (CANN Ascend910B1.ini)", OPMFU_CHIP_CUBE, 0,
	  "no vendor-published figure" },
	{ "Ascend910B2", "910B2|Ascend 910B2", 0, 0, 353.8944, 0, 707.7888, 0,
	  "24 AI cores at 1800 MHz, cube formula (CANN Ascend910B2.ini)", OPMFU_CHIP_CUBE, 0,
	  "no vendor-published figure" },
	{ "Ascend910B3", "910B3|Ascend 910B3", 0, 0, 294.912, 0, 589.824, 0,
	  "20 AI cores at 1800 MHz, cube formula (CANN Ascend910B3.ini)", OPMFU_CHIP_CUBE, 0,
	  "no vendor-published figure" },
	{ "Ascend910B4", "910B4|Ascend 910B4", 0, 0, 245.76, 0, 491.52, 0,
	  "20 AI cores at 1500 MHz, cube formula (CANN Ascend910B4.ini)", OPMFU_CHIP_CUBE, 0,
	  "no vendor-published figure" },
	/* a 910C package is two dies and each die is one device (one rank) to the profiler: the peak is a
	 * die's, CANN's Ascend910_9391 */
	{ "Ascend910C", "910C|Ascend 910C|Ascend910_9391", 0, 0, 363.7248, 0, 727.4496, 0,
	  "one die: 24 AI cores at 1850 MHz, cube formula (CANN Ascend910_9391.ini)", OPMFU_CHIP_CUBE, 0,
	  "no vendor-published figure" },
	/* the A100's FLOPs are one for every form; its memory is not: 80 GB SXM4 (HBM2e), 40 GB (HBM2),
	 * 80 GB PCIe (HBM2e at a lower clock) */
	{ "A100", "A100 SXM|A100 SXM 80GB|NVIDIA A100-SXM4-80GB", 19.5, 156, 312, 0, 624, 0,
	  "NVIDIA A100 datasheet, dense", 0, 2.039, "NVIDIA A100 datasheet, 80GB SXM HBM2e" },
	{ "A100 40GB", "A100 SXM 40GB|A100 PCIe 40GB|NVIDIA A100-SXM4-40GB|NVIDIA A100-PCIE-40GB", 19.5, 156, 312,
	  0, 624, 0, "NVIDIA A100 datasheet, dense", 0, 1.555, "NVIDIA A100 datasheet, 40GB HBM2" },
	{ "A100 PCIe", "A100 PCIe 80GB|NVIDIA A100 80GB PCIe|NVIDIA A100-PCIE-80GB", 19.5, 156, 312, 0, 624, 0,
	  "NVIDIA A100 datasheet, dense", 0, 1.935, "NVIDIA A100 datasheet, 80GB PCIe HBM2e" },
	/* the A800 is the A100 with a slower NVLink: the same tensor cores and clocks */
	{ "A800 SXM", "A800 SXM4|NVIDIA A800-SXM4-80GB", 19.5, 156, 312, 0, 624, 0,
	  "NVIDIA A800 datasheet, dense", 0, 2.039, "NVIDIA A800 datasheet, 80GB SXM HBM2e" },
	{ "A800 PCIe", "A800 PCIe 80GB|NVIDIA A800 80GB PCIe|NVIDIA A800-PCIE-80GB", 19.5, 156, 312, 0, 624, 0,
	  "NVIDIA A800 datasheet, dense", 0, 1.935, "NVIDIA A800 datasheet, 80GB PCIe HBM2e" },
	{ "A10", "NVIDIA A10", 31.2, 62.5, 125, 0, 250, 0, "NVIDIA A10 datasheet, dense", 0, 0.6,
	  "NVIDIA A10 datasheet, GDDR6" },
	{ "H100 SXM", "H100 SXM5|NVIDIA H100 80GB HBM3|NVIDIA H100 SXM5 80GB", 67, 494.7, 989.4, 1978.9, 1978.9, 0,
	  "NVIDIA H100 datasheet, dense", 0, 3.35, "NVIDIA H100 datasheet, SXM HBM3" },
	{ "H200 SXM", "NVIDIA H200|NVIDIA H200 141GB HBM3e", 67, 494.7, 989.4, 1978.9, 1978.9, 0,
	  "NVIDIA H200 datasheet, dense", 0, 4.8, "NVIDIA H200 datasheet, HBM3e" },
	{ "H800", "H800 SXM|NVIDIA H800|NVIDIA H800 80GB HBM3", 67, 494.7, 989.4, 1978.9, 1978.9, 0,
	  "same silicon and clocks as H100 SXM", 0, 3.35, "same 80GB HBM3 as H100 SXM (NVIDIA H100 datasheet)" },
	{ "H100 PCIe", "NVIDIA H100 PCIe", 51, 378, 756, 1513, 1513, 0, "NVIDIA H100 datasheet, dense", 0, 2.0,
	  "NVIDIA H100 datasheet, PCIe HBM2e" },
	{ "H100 NVL", "NVIDIA H100 NVL", 60, 417.5, 835.5, 1670.5, 1670.5, 0, "NVIDIA H100 NVL datasheet, dense", 0,
	  3.9, "NVIDIA H100 datasheet, NVL HBM3" },
	{ "H200 NVL", "NVIDIA H200 NVL", 60, 417.5, 835.5, 1670.5, 1670.5, 0, "NVIDIA H200 NVL datasheet, dense", 0,
	  4.8, "NVIDIA H200 datasheet, NVL HBM3e" },
	{ "H20", "NVIDIA H20", 44, 74, 148, 296, 296, 0, "NVIDIA H20 datasheet, dense", 0, 4.0,
	  "NVIDIA H20 datasheet, 96GB HBM3" },
	{ "L40S", "NVIDIA L40S", 91.6, 183, 362.05, 733, 733, 0, "NVIDIA L40S datasheet, dense", 0, 0.864,
	  "NVIDIA L40S datasheet, GDDR6" },
	{ "L20", "NVIDIA L20", 59.8, 59.8, 119.5, 239, 239, 0, "NVIDIA L20 datasheet, dense (half its sparse figures)",
	  0, 0.864, "NVIDIA L20 datasheet, 48GB GDDR6" },
	{ "L4", "NVIDIA L4", 30.3, 60, 121, 242.5, 242.5, 0, "NVIDIA L4 datasheet, dense", 0, 0.3,
	  "NVIDIA L4 datasheet, GDDR6" },
	/* Blackwell fp4: half the datasheets' sparse figures (HGX B200 144 PF for 8 GPUs, GB200 NVL72 1440 PF
	 * for 72), as for every other class */
	{ "B200", "NVIDIA B200", 75, 1125, 2250, 4500, 4500, 9000, "NVIDIA B200 datasheet, dense", 0, 8.0,
	  "NVIDIA HGX B200 datasheet, HBM3e per GPU" },
	{ "GB200", "NVIDIA GB200", 80, 1250, 2500, 5000, 5000, 10000, "NVIDIA GB200 datasheet, dense, per GPU", 0, 8.0,
	  "NVIDIA GB200 NVL72 datasheet, HBM3e per GPU" },
	{ "V100 SXM2", "Tesla V100-SXM2-32GB|Tesla V100-SXM2-16GB|V100", 15.7, 0, 125, 0, 0, 0,
	  "NVIDIA V100 datasheet, SXM2 (fp16 tensor core)", 0, 0.9, "NVIDIA V100 datasheet, HBM2" },
	/* MI250X: fp32 is the matrix rate (95.7; vector 47.9), as MI300X's; CDNA2 has no tf32 */
	{ "MI250X", "AMD Instinct MI250X", 95.7, 0, 383, 0, 383, 0, "AMD MI250X datasheet (fp32 matrix)", 0, 3.2768,
	  "AMD Instinct MI250X datasheet, HBM2e" },
	{ "MI300X", "AMD Instinct MI300X", 163.4, 653.7, 1307.4, 2614.9, 2614.9, 0, "AMD MI300X datasheet, dense", 0,
	  5.3, "AMD Instinct MI300X datasheet, HBM3" },
	{ "MI325X", "AMD Instinct MI325X", 163.4, 653.7, 1307.4, 2614.9, 2614.9, 0, "AMD MI325X datasheet, dense", 0,
	  6.0, "AMD Instinct MI325X datasheet, HBM3E" },
	/* MI355X: 256 CUs at 2400 MHz, 8192 fp8 FLOPs per CU per clock (AMD Instinct MI355X datasheet): fp8 and int8
	 * 5033.1648, fp16 half that, MXFP4 twice; fp32 157.3 (vector, AMD); CDNA4 has no tf32 */
	{ "MI355X", "AMD Instinct MI355X", 157.3, 0, 2516.5824, 5033.1648, 5033.1648, 10066.3296,
	  "AMD MI355X datasheet: 256 CUs at 2400 MHz, dense", 0, 8.0, "AMD Instinct MI355X datasheet, HBM3E" },
	{ "TPU v5p", "v5p", 0, 0, 459, 0, 0, 0, "Google Cloud TPU v5p, bf16", 0, 2.765,
	  "Google Cloud TPU v5p documentation, HBM2e 2765 GBps" },
	{ "TPU v6e", "v6e|Trillium", 0, 0, 918, 0, 0, 0, "Google Cloud TPU v6e, bf16", 0, 1.64,
	  "Google Cloud TPU v6e documentation, HBM 1640 GBps" },
	{ NULL, NULL, 0, 0, 0, 0, 0, 0, NULL, 0, 0, NULL },
};

const struct opmfu_chip *opmfu_chips(void)
{
	return chips;
}


/* Calls fn(folded form, ctx) on c's name, then each alias (a form of 64
 * bytes or more is none), until fn returns nonzero; that value, else 0. */
static int each_form(const struct opmfu_chip *c, int (*fn)(const char *y, void *ctx), void *ctx)
{
	const char *a = c->aliases, *form = c->name;
	size_t n = strlen(c->name);
	char y[64];
	int r;

	for (;;) {
		if (n < sizeof(y)) {
			opmfu_fold_name(form, n, y, sizeof(y));
			if ((r = fn(y, ctx)))
				return r;
		}
		if (!a || !*a)
			return 0;
		form = a;
		a = strchr(a, '|');
		n = a ? (size_t)(a - form) : strlen(form);
		a = a ? a + 1 : NULL;
	}
}

static int same_form(const char *y, void *x)
{
	return y[0] && strcmp(x, y) == 0;
}

static const struct opmfu_chip *find_n(const char *name, size_t n)
{
	char x[64];
	const struct opmfu_chip *c;
	if (n >= sizeof(x))
		return NULL;
	opmfu_fold_name(name, n, x, sizeof(x));
	for (c = chips; c->name; c++)
		if (each_form(c, same_form, x))
			return c;
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

/* Optimal string alignment distance of two short strings (at most 63 bytes
 * each): Levenshtein plus adjacent transpositions, the commonest typo
 * ("H010" for "H100") */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, d[64][64];
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++)
		for (j = 1; j <= lb; j++) {
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

static size_t common_prefix(const char *a, const char *b)
{
	size_t n = 0;
	while (a[n] && a[n] == b[n])
		n++;
	return n;
}

struct closeness {
	const char *x;
	size_t dist, prefix;
};

static int closer_form(const char *y, void *ctx)
{
	struct closeness *k = ctx;
	size_t d = distance(k->x, y), p = common_prefix(k->x, y);
	if (d < k->dist || (d == k->dist && p > k->prefix)) {
		k->dist = d;
		k->prefix = p;
	}
	return 0;
}

/* The closeness of x to c's name or an alias (all folded): the smallest
 * distance, and among the forms at that distance the longest common prefix. */
static void chip_distance(const struct opmfu_chip *c, const char *x, size_t *dist, size_t *prefix)
{
	struct closeness k = { x, SIZE_MAX, 0 };
	each_form(c, closer_form, &k);
	*dist = k.dist;
	*prefix = k.prefix;
}

size_t opmfu_chip_suggest(const char *name, const struct opmfu_chip **out, size_t max)
{
	char x[64];
	size_t n = 0, limit, xl, i, nchips = 0, dist[64], pre[64];
	const struct opmfu_chip *c;

	if (strlen(name) >= sizeof(x))
		return 0;
	xl = opmfu_fold_name(name, strlen(name), x, sizeof(x));
	limit = xl / 3 > 2 ? xl / 3 : 2;
	for (c = chips; c->name && nchips < 64; c++, nchips++)
		chip_distance(c, x, &dist[nchips], &pre[nchips]);
	/* closest first, then the longest common prefix, ties in table order: pick the best left, max times
	 * (the table is small) */
	while (n < max) {
		size_t best = nchips;
		for (i = 0; i < nchips; i++) {
			size_t k;
			int taken = 0;
			for (k = 0; k < n; k++)
				taken |= out[k] == &chips[i];
			if (taken || dist[i] > limit)
				continue;
			if (best == nchips || dist[i] < dist[best] || (dist[i] == dist[best] && pre[i] > pre[best]))
				best = i;
		}
		if (best == nchips)
			break;
		out[n++] = &chips[best];
	}
	return n;
}

static int is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/* folded form y starts with x and goes on across a digit-letter border */
static int family_form(const char *y, void *ctx)
{
	const char *x = ctx;
	size_t xl = strlen(x);
	return strncmp(x, y, xl) == 0 && y[xl] && is_digit(x[xl - 1]) != is_digit(y[xl]);
}

size_t opmfu_chip_family(const char *name, const struct opmfu_chip **out, size_t max)
{
	char x[64];
	size_t n = 0;
	const struct opmfu_chip *c;

	if (strlen(name) >= sizeof(x) || opmfu_chip_find(name))
		return 0;
	if (!opmfu_fold_name(name, strlen(name), x, sizeof(x)))
		return 0;
	for (c = chips; c->name && n < max; c++)
		if (each_form(c, family_form, x))
			out[n++] = c;
	return n >= 2 ? n : 0;
}

/* snprintf that appends to buf */
static void cat(char *buf, size_t size, const char *a, const char *b, const char *c)
{
	size_t len = strlen(buf);
	if (len + 1 < size)
		snprintf(buf + len, size - len, "%s%s%s", a, b, c);
}

void opmfu_chip_unknown(const char *name, char *buf, size_t size)
{
	const struct opmfu_chip *near[16];
	size_t n, i;

	if (!size)
		return;
	buf[0] = '\0';
	if ((n = opmfu_chip_family(name, near, 16))) {
		cat(buf, size, "chip '", name, "' is a family: ");
		for (i = 0; i < n; i++)
			cat(buf, size, i == 0 ? "" : i + 1 == n ? " or " : ", ", near[i]->name, "");
		cat(buf, size, "; pick one (see 'opmfu chips')", "", "");
		return;
	}
	n = opmfu_chip_suggest(name, near, 3);
	cat(buf, size, "unknown chip '", name, "'");
	for (i = 0; i < n; i++)
		cat(buf, size, i == 0 ? "; did you mean " : i + 1 == n ? " or " : ", ", near[i]->name, "");
	cat(buf, size, n ? "?" : "", " (see 'opmfu chips')", "");
}
