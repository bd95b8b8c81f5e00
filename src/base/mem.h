/*
 * mem.h - allocation through one place, so out-of-memory paths can be tested
 * (opmfu_mem_fail_after) and growable arrays share one overflow-checked helper.
 */
#ifndef OPMFU_MEM_H
#define OPMFU_MEM_H

#include <stddef.h>

void *opmfu_malloc(size_t size);
void *opmfu_calloc(size_t n, size_t size);
void *opmfu_realloc(void *p, size_t size);
void opmfu_free(void *p);
char *opmfu_strndup(const char *s, size_t n);
char *opmfu_strdup(const char *s);

/*
 * Makes room for `need` elements of `elem` bytes in *p (capacity *cap),
 * doubling. Returns 0 on success, -1 on overflow or allocation failure
 * (then *p and *cap are unchanged).
 */
int opmfu_grow(void **p, size_t *cap, size_t need, size_t elem);

/*
 * Makes room for exactly n elements of elem bytes in *p when its capacity
 * *cap is smaller: for arrays whose final size is known in advance, which
 * then skip the copies and fresh pages of growing by doubling. Returns 0, or
 * -1 (then *p and *cap are unchanged).
 */
int opmfu_reserve(void **p, size_t *cap, size_t n, size_t elem);

/*
 * Hands the heap's free pages back to the system when rows (what the step
 * that just freed its scratch worked on: links, task rows) is at least
 * OPMFU_TRIM_ROWS; glibc only (malloc_trim). The CLI keeps glibc from
 * trimming on free (cli/main.c), so what a large rank's step freed stayed
 * resident under the next step's new arrays (docs/performance.md, "One
 * rank's memory"). Small ranks skip it: their pages are few and the
 * per-rank overhead counts.
 */
#define OPMFU_TRIM_ROWS 65536
void opmfu_trim(size_t rows);

/* Test hook: the n-th allocation from now fails (0 disables). Tests only. */
void opmfu_mem_fail_after(long n);
/* Test hook: allocations made so far. */
long opmfu_mem_count(void);

#define OPMFU_GROW(ptr, cap, need) \
	opmfu_grow((void **)&(ptr), &(cap), (need), sizeof(*(ptr)))

#define OPMFU_RESERVE(ptr, cap, n) \
	opmfu_reserve((void **)&(ptr), &(cap), (n), sizeof(*(ptr)))

#endif
