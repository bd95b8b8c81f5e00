/*
 * intern.c - an arena of string blocks, and the interning set over it.
 */
#include "base/intern.h"

#include <string.h>

#include "base/mem.h"

#define ARENA_BLOCK 65536

char *opmfu_arena_put(struct opmfu_arena *a, const char *s, size_t len)
{
	size_t need = len + 1;
	char *p;
	if (OPMFU_GROW(a->blk, a->cap, a->n + 1))
		return NULL;
	if (need > ARENA_BLOCK / 16) {
		/* a long string gets its own block, the current one stays in use */
		if (!(p = opmfu_malloc(need)))
			return NULL;
		a->blk[a->n++] = p;
	} else {
		if (need > a->left) {
			a->left = 0;
			if (!(a->cur = opmfu_malloc(ARENA_BLOCK)))
				return NULL;
			a->blk[a->n++] = a->cur;
			a->left = ARENA_BLOCK;
		}
		p = a->cur;
		a->cur += need;
		a->left -= need;
	}
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

void opmfu_arena_release(struct opmfu_arena *a)
{
	size_t i;
	for (i = 0; i < a->n; i++)
		opmfu_free(a->blk[i]);
	opmfu_free(a->blk);
	memset(a, 0, sizeof(*a));
}

void opmfu_intern_init(struct opmfu_intern *ss, struct opmfu_arena *ar)
{
	memset(ss, 0, sizeof(*ss));
	ss->ar = ar;
}

void opmfu_intern_release(struct opmfu_intern *ss)
{
	opmfu_free(ss->v);
	opmfu_idtab_release(&ss->tab);
	ss->v = NULL;
	ss->n = ss->cap = 0;
}

void opmfu_intern_clear(struct opmfu_intern *ss)
{
	ss->n = 0;
	opmfu_idtab_clear(&ss->tab);
}

struct probe {
	const struct opmfu_intern *ss;
	const char *s;
	size_t len;
};

static int str_eq(const void *probe, uint32_t id)
{
	const struct probe *p = probe;
	const struct opmfu_istr *e = &p->ss->v[id];
	return e->len == p->len && memcmp(e->s, p->s, p->len) == 0;
}

uint32_t opmfu_intern_add(struct opmfu_intern *ss, const char *s, size_t len)
{
	struct probe p = { ss, s, len };
	uint32_t id;
	char *c;

	if (ss->n >= OPMFU_IDTAB_NONE - 1 || OPMFU_GROW(ss->v, ss->cap, ss->n + 1))
		return OPMFU_IDTAB_NONE;
	id = opmfu_idtab_get(&ss->tab, opmfu_hash_bytes(s, len), str_eq, &p, (uint32_t)ss->n);
	if (id != (uint32_t)ss->n)
		return id;
	if (!(c = opmfu_arena_put(ss->ar, s, len))) {
		/* the table now holds id n without a string: make it equal to no
		 * string until n is given to the next one (then it is that one's) */
		ss->v[ss->n].s = "";
		ss->v[ss->n].len = SIZE_MAX;
		return OPMFU_IDTAB_NONE;
	}
	ss->v[ss->n].s = c;
	ss->v[ss->n].len = len;
	ss->n++;
	return id;
}
