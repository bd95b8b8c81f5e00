/*
 * t_chips.c - chip name matching is exact up to case, spaces, '-' and '_'.
 */
#include <string.h>

#include "check.h"
#include "chips/chips.h"

int main(void)
{
	const struct opmfu_chip *c;

	CHECK((c = opmfu_chip_find("H100 SXM")) != NULL && c->fp16 == 989.4);
	CHECK((c = opmfu_chip_find("h100-sxm")) != NULL && c->int8 == 1978.9);
	CHECK((c = opmfu_chip_find("H100_SXM5")) != NULL && c->fp16 == 989.4);
	CHECK((c = opmfu_chip_find("B200")) != NULL && c->fp16 == 2250);
	CHECK((c = opmfu_chip_find("GB200")) != NULL && c->fp16 == 2500);
	CHECK((c = opmfu_chip_find("ascend910b")) != NULL && c->fp16 == 353.8944 && c->int8 == 707.7888);
	CHECK((c = opmfu_chip_find("910B")) != NULL && c->fp16 == 353.8944);
	CHECK((c = opmfu_chip_find("H800")) != NULL && c->fp8 == 1978.9);
	CHECK((c = opmfu_chip_find("Trillium")) != NULL && c->fp16 == 918);
	/* never a loose substring or prefix */
	CHECK((c = opmfu_chip_find("L20")) != NULL && c->fp16 == 119.5);
	CHECK(opmfu_chip_find("L20X") == NULL);
	CHECK(opmfu_chip_find("H100") == NULL); /* ambiguous: SXM, PCIe or NVL */
	CHECK(opmfu_chip_find("B20") == NULL);
	CHECK(opmfu_chip_find("GB2000") == NULL);
	CHECK(opmfu_chip_find("L4S") == NULL);
	CHECK(opmfu_chip_find("") == NULL);
	/* 20 cores x 1800 MHz x 8192 = 294.912e12, not the 24-core entry */
	CHECK((c = opmfu_chip_find("Ascend910B3")) != NULL && c->fp16 == 294.912 && c->int8 == 589.824);
	/* 24 x 1850e6 x 8192 = 363.7248e12; 20 x 1500e6 x 8192 = 245.76e12 */
	CHECK((c = opmfu_chip_find("910B1")) != NULL && c->fp16 == 363.7248 && c->int8 == 727.4496);
	CHECK((c = opmfu_chip_find("Ascend910B4")) != NULL && c->fp16 == 245.76 && (c->flags & OPMFU_CHIP_CUBE));
	CHECK((c = opmfu_chip_find("Ascend910_9391")) != NULL && !strcmp(c->name, "Ascend910C"));
	/* MI355X: 256 CUs x 2.4e9 x 8192 fp8 FLOPs = 5033.1648e12; fp4 twice */
	CHECK((c = opmfu_chip_find("MI355X")) != NULL && c->fp8 == 5033.1648 && c->fp4 == 10066.3296);
	CHECK((c = opmfu_chip_find("B200")) != NULL && c->fp4 == 9000);

	/* device names as traces give them: explicit aliases, and a trailing VF or MIG slice */
	CHECK((c = opmfu_chip_find_device("NVIDIA H100 80GB HBM3")) != NULL && !strcmp(c->name, "H100 SXM"));
	CHECK((c = opmfu_chip_find_device("NVIDIA A100-SXM4-80GB")) != NULL && !strcmp(c->name, "A100"));
	CHECK((c = opmfu_chip_find_device("AMD Instinct MI300X")) != NULL && c->fp16 == 1307.4);
	CHECK((c = opmfu_chip_find_device("AMD Instinct MI300X VF")) != NULL && !strcmp(c->name, "MI300X"));
	CHECK((c = opmfu_chip_find_device("Tesla V100-SXM2-32GB")) != NULL && c->fp16 == 125 && c->fp32 == 15.7);
	CHECK((c = opmfu_chip_find_device("NVIDIA A100-SXM4-40GB MIG 1g.5gb")) != NULL &&
	      !strcmp(c->name, "A100 40GB"));
	CHECK((c = opmfu_chip_find_device("NVIDIA H100 80GB HBM3 ")) != NULL && !strcmp(c->name, "H100 SXM"));
	CHECK(opmfu_chip_find_device("NVIDIA H100") == NULL);      /* SXM, PCIe or NVL: not said */
	CHECK(opmfu_chip_find_device("NVIDIA GeForce RTX 4090") == NULL);
	CHECK(opmfu_chip_find_device("VF") == NULL);
	CHECK(opmfu_chip_find_device(" VF") == NULL);
	CHECK((c = opmfu_chip_find("Ascend910B")) != NULL && (c->flags & OPMFU_CHIP_CUBE));
	CHECK((c = opmfu_chip_find("H20")) != NULL && !(c->flags & OPMFU_CHIP_CUBE));

	/* peak memory bandwidth, TB/s (SPEC 18): every chip has a figure and its source, or 0 and why not */
	CHECK((c = opmfu_chip_find_device("NVIDIA H100 80GB HBM3")) != NULL && c->bw == 3.35 &&
	      !strcmp(c->bw_source, "NVIDIA H100 datasheet, SXM HBM3"));
	/* the A100's FLOPs are one, its memory three: 80 GB SXM4, 40 GB, 80 GB PCIe */
	CHECK((c = opmfu_chip_find_device("NVIDIA A100-SXM4-80GB")) != NULL && c->bw == 2.039 && c->fp16 == 312);
	CHECK((c = opmfu_chip_find_device("NVIDIA A100-PCIE-40GB")) != NULL && c->bw == 1.555 && c->fp16 == 312);
	CHECK((c = opmfu_chip_find_device("NVIDIA A100 80GB PCIe")) != NULL && c->bw == 1.935 && c->fp16 == 312);
	CHECK((c = opmfu_chip_find("A100 PCIe")) != NULL && c->bw == 1.935);
	CHECK((c = opmfu_chip_find("H100 PCIe")) != NULL && c->bw == 2.0);
	CHECK((c = opmfu_chip_find("H200 SXM")) != NULL && c->bw == 4.8);
	CHECK((c = opmfu_chip_find("B200")) != NULL && c->bw == 8.0);
	CHECK((c = opmfu_chip_find("V100")) != NULL && c->bw == 0.9);
	CHECK((c = opmfu_chip_find("MI300X")) != NULL && c->bw == 5.3);
	/* no vendor-published figure: 0, and the source says so */
	CHECK((c = opmfu_chip_find("Ascend910B")) != NULL && c->bw == 0 &&
	      !strcmp(c->bw_source, "no vendor-published figure"));
	for (c = opmfu_chips(); c->name; c++) {
		CHECK(c->bw >= 0 && c->bw < 100);
		CHECK(c->bw_source != NULL && c->bw_source[0]);
		CHECK(c->bw == 0 || strstr(c->bw_source, "datasheet") || strstr(c->bw_source, "documentation"));
	}

	/* did you mean: closest first (optimal string alignment distance of the folded names), then the
	 * longest common prefix, then table order */
	{
		const struct opmfu_chip *near[16];
		size_t n = opmfu_chip_suggest("L2O", near, 3);
		/* l2o: l20 1 substitution; l4 1 substitution + 1 deletion = 2, prefix "l"; h20 2, no prefix */
		CHECK_INT(n, 3);
		CHECK(n == 3 && !strcmp(near[0]->name, "L20") && !strcmp(near[1]->name, "L4") &&
		      !strcmp(near[2]->name, "H20"));
		/* l04: l4 1 deletion; l40s a transposition + 1 insertion = 2; l20 2; both prefix "l": table order */
		n = opmfu_chip_suggest("L04", near, 3);
		CHECK(n == 3 && !strcmp(near[0]->name, "L4") && !strcmp(near[1]->name, "L40S") &&
		      !strcmp(near[2]->name, "L20"));
		n = opmfu_chip_suggest("h100sxn", near, 3); /* one substitution from h100sxm */
		CHECK(n >= 1 && !strcmp(near[0]->name, "H100 SXM"));
		CHECK_INT(opmfu_chip_suggest("completely different", near, 3), 0);
		CHECK_INT(opmfu_chip_suggest("L2O", near, 1), 1);

		/* families: the members by the table, across a digit-letter border only */
		n = opmfu_chip_family("H100", near, 16);
		CHECK(n == 3 && !strcmp(near[0]->name, "H100 SXM") && !strcmp(near[1]->name, "H100 PCIe") &&
		      !strcmp(near[2]->name, "H100 NVL"));
		n = opmfu_chip_family("a800", near, 16);
		CHECK(n == 2 && !strcmp(near[0]->name, "A800 SXM") && !strcmp(near[1]->name, "A800 PCIe"));
		CHECK_INT(opmfu_chip_family("Ascend910", near, 16), 6);
		CHECK_INT(opmfu_chip_family("MI3", near, 16), 0);    /* "mi300x" goes on with a digit */
		CHECK_INT(opmfu_chip_family("MI300", near, 16), 0);  /* one member is no family */
		CHECK_INT(opmfu_chip_family("A100", near, 16), 0);   /* a chip itself */
	}
	{
		char msg[400];
		opmfu_chip_unknown("H100", msg, sizeof(msg));
		CHECK_STR(msg, "chip 'H100' is a family: H100 SXM, H100 PCIe or H100 NVL; pick one (see 'opmfu chips')");
		opmfu_chip_unknown("L2O", msg, sizeof(msg));
		CHECK_STR(msg, "unknown chip 'L2O'; did you mean L20, L4 or H20? (see 'opmfu chips')");
		opmfu_chip_unknown("nothing like it", msg, sizeof(msg));
		CHECK_STR(msg, "unknown chip 'nothing like it' (see 'opmfu chips')");
	}
	return check_done();
}
