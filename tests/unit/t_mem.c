/*
 * t_mem.c - the growable-array helpers of base/mem.c: opmfu_grow doubles from
 * 16, opmfu_reserve makes room for exactly what is asked and never shrinks;
 * both keep the contents, refuse sizes that overflow, and leave the array as
 * it was when the allocation fails.
 */
#include <stdint.h>

#include "base/mem.h"
#include "check.h"

/*
 * resize (opmfu_grow or opmfu_reserve) refuses a size whose bytes overflow,
 * and fails when asked for n elements while allocations fail; either way the
 * array keeps its capacity and contents (element i_kept still holds kept).
 */
static void check_refusals(int (*resize)(void **, size_t *, size_t, size_t), int64_t **v, size_t *cap, size_t n,
			   size_t i_kept, int64_t kept)
{
	size_t was = *cap;

	CHECK_INT(resize((void **)v, cap, SIZE_MAX / 4, sizeof(**v)), -1); /* bytes overflow */
	CHECK_INT(*cap, was);
	opmfu_mem_fail_after(1);
	CHECK_INT(resize((void **)v, cap, n, sizeof(**v)), -1);
	opmfu_mem_fail_after(0);
	CHECK_INT(*cap, was);
	CHECK_INT((*v)[i_kept], kept);
}

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
	check_refusals(opmfu_grow, &v, &cap, 129, 15, 105);
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
	check_refusals(opmfu_reserve, &v, &cap, 5000, 999, 499);
	opmfu_free(v);
}

int main(void)
{
	grow();
	reserve();
	return check_done();
}
