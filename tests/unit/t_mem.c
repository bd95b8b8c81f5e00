/*
 * t_mem.c - the growable-array helpers of base/mem.c: opmfu_grow doubles from
 * 16, opmfu_reserve makes room for exactly what is asked and never shrinks;
 * both keep the contents, refuse sizes that overflow, and leave the array as
 * it was when the allocation fails.
 */
#include <stdint.h>

#include "base/mem.h"
#include "check.h"

static void grow(void)
{
	int64_t *v = NULL;
	size_t cap = 0, i;

	CHECK_INT(OPMFU_GROW(v, cap, 1), 0);
	CHECK_INT(cap, 16);
	CHECK_INT(OPMFU_GROW(v, cap, 16), 0);
	CHECK_INT(cap, 16);
	for (i = 0; i < 16; i++)
		v[i] = (int64_t)i * 7;
	CHECK_INT(OPMFU_GROW(v, cap, 17), 0);
	CHECK_INT(cap, 32);
	CHECK_INT(OPMFU_GROW(v, cap, 100), 0);
	CHECK_INT(cap, 128);
	for (i = 0; i < 16; i++)
		CHECK_INT(v[i], (int64_t)i * 7);
	CHECK_INT(OPMFU_GROW(v, cap, SIZE_MAX / 4), -1); /* bytes overflow */
	CHECK_INT(cap, 128);
	opmfu_mem_fail_after(1);
	CHECK_INT(OPMFU_GROW(v, cap, 129), -1);
	opmfu_mem_fail_after(0);
	CHECK_INT(cap, 128);
	CHECK_INT(v[15], 105);
	opmfu_free(v);
}

static void reserve(void)
{
	int64_t *v = NULL;
	size_t cap = 0, i;

	CHECK_INT(OPMFU_RESERVE(v, cap, 0), 0); /* nothing asked: nothing allocated */
	CHECK(v == NULL);
	CHECK_INT(cap, 0);
	CHECK_INT(OPMFU_RESERVE(v, cap, 1000), 0);
	CHECK_INT(cap, 1000);
	for (i = 0; i < 1000; i++)
		v[i] = (int64_t)i - 500;
	CHECK_INT(OPMFU_RESERVE(v, cap, 10), 0); /* never shrinks */
	CHECK_INT(cap, 1000);
	CHECK_INT(OPMFU_GROW(v, cap, 1000), 0);  /* the reserved room is used */
	CHECK_INT(cap, 1000);
	CHECK_INT(OPMFU_GROW(v, cap, 1001), 0);  /* then doubling resumes */
	CHECK_INT(cap, 2000);
	CHECK_INT(OPMFU_RESERVE(v, cap, 2001), 0);
	CHECK_INT(cap, 2001);
	for (i = 0; i < 1000; i++)
		CHECK_INT(v[i], (int64_t)i - 500);
	CHECK_INT(OPMFU_RESERVE(v, cap, SIZE_MAX / 4), -1);
	CHECK_INT(cap, 2001);
	opmfu_mem_fail_after(1);
	CHECK_INT(OPMFU_RESERVE(v, cap, 5000), -1);
	opmfu_mem_fail_after(0);
	CHECK_INT(cap, 2001);
	CHECK_INT(v[999], 499);
	opmfu_free(v);
}

int main(void)
{
	grow();
	reserve();
	return check_done();
}
