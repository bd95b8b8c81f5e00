/*
 * idtab.c - the slow paths of the hash table: allocation, growth, renumbering
 * and the clear. The probes are inline in idtab.h.
 */
#include "base/idtab.h"

#include <string.h>

#include "base/mem.h"

void opmfu_idtab_init(struct opmfu_idtab *t)
{
	memset(t, 0, sizeof(*t));
}

void opmfu_idtab_release(struct opmfu_idtab *t)
{
	opmfu_free(t->slot);
	opmfu_idtab_init(t);
}

/* Moves the live ids into ncap slots (a power of two) and renumbers them
 * from base 0, which also drops the slots of earlier generations. */
static int resize(struct opmfu_idtab *t, size_t ncap)
{
	struct opmfu_idslot *ns = opmfu_malloc(ncap * sizeof(*ns));
	uint32_t top = 0;
	size_t i;

	if (!ns)
		return -1;
	memset(ns, 0xff, ncap * sizeof(*ns));
	for (i = 0; i < t->cap; i++) {
		uint32_t id = t->slot[i].id - t->base;
		size_t j;
		if (id >= t->lim)
			continue;
		j = t->slot[i].h & (ncap - 1);
		while (ns[j].id != OPMFU_IDTAB_NONE)
			j = (j + 1) & (ncap - 1);
		ns[j].id = id;
		ns[j].h = t->slot[i].h;
		if (id >= top)
			top = id + 1;
	}
	opmfu_free(t->slot);
	t->slot = ns;
	t->cap = ncap;
	t->base = 0;
	t->lim = OPMFU_IDTAB_NONE;
	t->top = top;
	return 0;
}

/* The slots for n ids: 64 at least, doubled until n fill no more than 3/4;
 * 0 when that many cannot be allocated. */
static size_t cap_for(size_t cap, size_t n)
{
	if (!cap)
		cap = 64;
	while (n * 4 > cap * 3) {
		if (cap > SIZE_MAX / 8 / sizeof(struct opmfu_idslot))
			return 0;
		cap *= 2;
	}
	return cap;
}

int opmfu_idtab_reserve(struct opmfu_idtab *t, size_t n)
{
	size_t ncap;

	if (n > SIZE_MAX / 8)
		return -1;
	ncap = cap_for(t->cap, n);
	if (!ncap)
		return -1;
	return ncap > t->cap ? resize(t, ncap) : 0;
}

int opmfu_idtab_make_room(struct opmfu_idtab *t, uint32_t new_id)
{
	size_t ncap = cap_for(t->cap, t->n + 1);

	if (new_id == OPMFU_IDTAB_NONE || !ncap)
		return -1;
	/* the same size when only new_id needs room over the base */
	return resize(t, ncap);
}

void opmfu_idtab_clear(struct opmfu_idtab *t)
{
	t->n = 0;
	if (!t->cap)
		return;
	if (t->top > OPMFU_IDTAB_NONE / 2) {
		/* the base would leave too little room for ids: empty every slot */
		memset(t->slot, 0xff, t->cap * sizeof(*t->slot));
		t->top = 0;
	}
	t->base = t->top;
	t->lim = OPMFU_IDTAB_NONE - t->base;
}
