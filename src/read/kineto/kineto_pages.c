/*
 * kineto_pages.c - the parse's large record arrays (kineto.h, kin_grow):
 * past KIN_PAGED_MIN bytes an array lives in pages of its own, grown by
 * mremap, so growing never copies it and its room not yet written is never
 * resident; dropping it hands its pages back at once. A malloc'd array
 * grown by doubling left every old block behind, resident, in a heap that
 * is never trimmed (cli/main.c): that was most of a trace's peak memory
 * (docs/performance.md, "The Kineto trace against SPEC 24").
 */
#ifdef __linux__
#define _GNU_SOURCE /* mremap */
#include <sys/mman.h>
#include <unistd.h>
#endif
#include <string.h>

#include "base/mem.h"
#include "read/kineto/kineto.h"

#ifdef __linux__
static size_t page_size(void)
{
	long n = sysconf(_SC_PAGESIZE);
	return n > 0 ? (size_t)n : 4096;
}

/* the length of an array's mapping: its capacity's bytes in whole pages */
static size_t map_len(size_t cap, size_t elem)
{
	size_t pg = page_size();
	return (cap * elem + pg - 1) / pg * pg;
}
#endif

int opmfu_kin_grow(struct kin_parse *p, unsigned bit, void **v, size_t *cap, size_t need, size_t elem)
{
#ifdef __linux__
	size_t len, old;
	void *m;

	if (need <= *cap)
		return 0;
	if (need > SIZE_MAX / 2 / elem)
		return -1;
	if (!(p->paged & bit) && need * elem * 2 <= KIN_PAGED_MIN)
		return opmfu_grow(v, cap, need, elem);
	old = *cap ? map_len(*cap, elem) : 0;
	len = map_len(need, elem);
	if (len < 2 * old)
		len = 2 * old;
	if (p->paged & bit) {
		m = mremap(*v, old, len, MREMAP_MAYMOVE);
		if (m == MAP_FAILED)
			return -1;
	} else {
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return -1;
		if (*cap)
			memcpy(m, *v, *cap * elem);
		opmfu_free(*v);
		p->paged |= bit;
	}
	*v = m;
	*cap = len / elem;
	return 0;
#else
	(void)p;
	(void)bit;
	return opmfu_grow(v, cap, need, elem);
#endif
}

void opmfu_kin_shrink(struct kin_parse *p, unsigned bit, void **v, size_t *cap, size_t n, size_t elem)
{
#ifdef __linux__
	size_t old, len;
	if (!(p->paged & bit) || n >= *cap)
		return;
	old = map_len(*cap, elem);
	len = map_len(n ? n : 1, elem);
	if (len < old && munmap((char *)*v + len, old - len) == 0)
		*cap = len / elem;
#else
	(void)p;
	(void)bit;
	(void)v;
	(void)cap;
	(void)n;
	(void)elem;
#endif
}

void opmfu_kin_drop(struct kin_parse *p, unsigned bit, void **v, size_t *cap, size_t elem)
{
#ifdef __linux__
	if (p->paged & bit) {
		if (*v)
			(void)munmap(*v, map_len(*cap, elem));
		p->paged &= ~bit;
	} else {
		opmfu_free(*v);
	}
#else
	(void)p;
	(void)bit;
	(void)elem;
	opmfu_free(*v);
#endif
	*v = NULL;
	*cap = 0;
}
