/*
 * t_chips.c - chip name matching is exact up to case, spaces, '-' and '_'.
 */
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
	CHECK(opmfu_chip_find("L20") == NULL);
	CHECK(opmfu_chip_find("L20X") == NULL);
	CHECK(opmfu_chip_find("H100") == NULL); /* ambiguous: SXM, PCIe or NVL */
	CHECK(opmfu_chip_find("B20") == NULL);
	CHECK(opmfu_chip_find("GB2000") == NULL);
	CHECK(opmfu_chip_find("L4S") == NULL);
	CHECK(opmfu_chip_find("") == NULL);
	CHECK(opmfu_chip_find("Ascend910B3") == NULL); /* 20 cores: not the 24-core entry */
	return check_done();
}
