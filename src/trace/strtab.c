/*
 * strtab.c - interned string table with a database-id index.
 * Ids in real files are dense (0..n), so most lookups are one array read.
 */
#include "trace/strtab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/lbound.h"
#include "base/mem.h"
#include "base/sort.h"

void opmfu_strtab_init(struct opmfu_strtab *t)
{
	memset(t, 0, sizeof(*t));
}

void opmfu_strtab_release(struct opmfu_strtab *t)
{
	opmfu_free(t->pool);
	opmfu_free(t->ent);
	opmfu_idtab_release(&t->hash);
	opmfu_free(t->dense);
	opmfu_free(t->sparse);
	opmfu_strtab_init(t);
}

struct probe {
	const struct opmfu_strtab *t;
	const char *s;
	size_t len;
};

static int str_eq(const void *probe, uint32_t sid)
{
	const struct probe *p = probe;
	return p->t->ent[sid].len == p->len && memcmp(p->t->pool + p->t->ent[sid].off, p->s, p->len) == 0;
}

/* s[0..len), longer than OPMFU_STR_MAX, cut with its marker. */
static uint32_t intern_cut(struct opmfu_strtab *t, const char *s, size_t len)
{
	char buf[OPMFU_STR_MAX];
	/* room for the marker (at most 37 bytes): the result is no longer than
	 * OPMFU_STR_MAX, so it is not cut again */
	size_t k = OPMFU_STR_MAX - 48, n0 = t->n;
	uint32_t sid;
	int m;

	/* not inside a UTF-8 character: back over continuation bytes */
	while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
		k--;
	memcpy(buf, s, k);
	m = snprintf(buf + k, sizeof(buf) - k, OPMFU_STR_CUT_MARK "%zu bytes]", len);
	sid = opmfu_strtab_intern(t, buf, k + (size_t)m);
	if (sid && t->n > n0)
		t->n_cut++;
	return sid;
}

uint32_t opmfu_strtab_intern(struct opmfu_strtab *t, const char *s, size_t len)
{
	struct probe p = { t, s, len };
	uint32_t sid;

	if (len > OPMFU_STR_MAX)
		return intern_cut(t, s, len);
	if (len > UINT32_MAX - 1)
		return 0;
	if (t->n == 0) {
		/* sid 0 is the NULL string */
		if (OPMFU_GROW(t->ent, t->cap, 1))
			return 0;
		t->ent[0].off = 0;
		t->ent[0].len = 0;
		t->n = 1;
	}
	if (t->n >= UINT32_MAX - 1 || OPMFU_GROW(t->ent, t->cap, t->n + 1))
		return 0;
	sid = opmfu_idtab_get(&t->hash, opmfu_hash_bytes(s, len), str_eq, &p, (uint32_t)t->n);
	if (sid == OPMFU_IDTAB_NONE)
		return 0;
	if (sid < t->n)
		return sid;
	if (opmfu_grow((void **)&t->pool, &t->pool_cap, t->pool_len + len + 1, 1)) {
		/* the table holds sid n without a string: make it equal to no
		 * string (lengths stop at UINT32_MAX - 1) until n is reused */
		t->ent[sid].len = UINT32_MAX;
		return 0;
	}
	memcpy(t->pool + t->pool_len, s, len);
	t->pool[t->pool_len + len] = '\0';
	t->n++;
	t->ent[sid].off = t->pool_len;
	t->ent[sid].len = (uint32_t)len;
	t->pool_len += len + 1;
	return sid;
}

int opmfu_strtab_map_id(struct opmfu_strtab *t, int64_t id, uint32_t sid)
{
	/* dense ids are the norm; fall back to a sorted sparse list for the rest */
	if (id >= 0 && id < (int64_t)16 * 1024 * 1024 + (int64_t)t->n * 4) {
		size_t need = (size_t)id + 1;
		if (need > t->dense_n) {
			size_t cap = t->dense_n, old = t->dense_n;
			if (opmfu_grow((void **)&t->dense, &cap, need, sizeof(*t->dense)))
				return -1;
			memset(t->dense + old, 0, (cap - old) * sizeof(*t->dense));
			t->dense_n = cap;
		}
		if (!t->dense[id])
			t->dense[id] = sid;
		return 0;
	}
	if (t->sparse_n >= UINT32_MAX || OPMFU_GROW(t->sparse, t->sparse_cap, t->sparse_n + 1))
		return -1;
	t->sparse[t->sparse_n] = (struct opmfu_strid){ id, sid, (uint32_t)t->sparse_n };
	t->sparse_n++;
	return 0;
}

static int less_strid(const void *a, const void *b)
{
	const struct opmfu_strid *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id;
	return x->pos < y->pos;
}

int opmfu_strtab_finish(struct opmfu_strtab *t)
{
	size_t i, k = 0;

	opmfu_idtab_release(&t->hash); /* no more interning after loading */
	if (opmfu_sort_array(t->sparse, t->sparse_n, sizeof(*t->sparse), less_strid))
		return -1;
	for (i = 0; i < t->sparse_n; i++)
		if (!k || t->sparse[k - 1].id != t->sparse[i].id) /* first mapping wins */
			t->sparse[k++] = t->sparse[i];
	t->sparse_n = k;
	return 0;
}

static int id_before(const void *ctx, size_t i, const void *key)
{
	return ((const struct opmfu_strid *)ctx)[i].id < *(const int64_t *)key;
}

uint32_t opmfu_strtab_lookup(const struct opmfu_strtab *t, int64_t id)
{
	size_t lo;
	if (id >= 0 && (uint64_t)id < t->dense_n)
		return t->dense[id];
	lo = opmfu_lbound(0, t->sparse_n, id_before, t->sparse, &id);
	return (lo < t->sparse_n && t->sparse[lo].id == id) ? t->sparse[lo].sid : 0;
}
