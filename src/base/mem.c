/*
 * mem.c - allocation wrappers with a failure-injection hook for tests.
 */
#include "base/mem.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* atomic because ranks allocate on worker threads */
static _Atomic long fail_countdown;
static _Atomic long alloc_count;

void opmfu_mem_fail_after(long n)
{
	atomic_store(&fail_countdown, n);
}

long opmfu_mem_count(void)
{
	return atomic_load(&alloc_count);
}

static int should_fail(void)
{
	atomic_fetch_add(&alloc_count, 1);
	if (atomic_load(&fail_countdown) <= 0)
		return 0;
	return atomic_fetch_sub(&fail_countdown, 1) == 1;
}

void *opmfu_malloc(size_t size)
{
	if (should_fail())
		return NULL;
	return malloc(size ? size : 1);
}

void *opmfu_calloc(size_t n, size_t size)
{
	if (should_fail())
		return NULL;
	return calloc(n ? n : 1, size ? size : 1);
}

void *opmfu_realloc(void *p, size_t size)
{
	if (should_fail())
		return NULL;
	return realloc(p, size ? size : 1);
}

void opmfu_free(void *p)
{
	free(p);
}

char *opmfu_strndup(const char *s, size_t n)
{
	char *d = opmfu_malloc(n + 1);
	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *opmfu_strdup(const char *s)
{
	return opmfu_strndup(s, strlen(s));
}

int opmfu_reserve(void **p, size_t *cap, size_t n, size_t elem)
{
	void *np;
	if (n <= *cap)
		return 0;
	if (n > SIZE_MAX / elem || !(np = opmfu_realloc(*p, n * elem)))
		return -1;
	*p = np;
	*cap = n;
	return 0;
}

int opmfu_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -1;
		ncap *= 2;
	}
	return opmfu_reserve(p, cap, ncap, elem);
}

void opmfu_trim(size_t rows)
{
#ifdef __GLIBC__
	if (rows >= OPMFU_TRIM_ROWS)
		(void)malloc_trim(0);
#else
	(void)rows;
#endif
}
