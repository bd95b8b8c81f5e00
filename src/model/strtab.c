/*
 * strtab.c - interned string table with a database-id index.
 * Ids in real files are dense (0..n), so most lookups are one array read.
 */
#include "model/strtab.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

void opmfu_strtab_init(struct opmfu_strtab *t)
{
	memset(t, 0, sizeof(*t));
}

void opmfu_strtab_release(struct opmfu_strtab *t)
{
	opmfu_free(t->pool);
	opmfu_free(t->ent);
	opmfu_free(t->hash);
	opmfu_free(t->dense);
	opmfu_free(t->sparse);
	opmfu_strtab_init(t);
}

static uint32_t hash_bytes(const char *s, size_t len)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	size_t i;
	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

static int rehash(struct opmfu_strtab *t, size_t ncap)
{
	uint32_t *nh = opmfu_calloc(ncap, sizeof(*nh));
	size_t sid;
	if (!nh)
		return -1;
	for (sid = 1; sid < t->n; sid++) {
		size_t h = hash_bytes(t->pool + t->ent[sid].off, t->ent[sid].len) & (ncap - 1);
		while (nh[h])
			h = (h + 1) & (ncap - 1);
		nh[h] = (uint32_t)sid;
	}
	opmfu_free(t->hash);
	t->hash = nh;
	t->hash_cap = ncap;
	return 0;
}

uint32_t opmfu_strtab_intern(struct opmfu_strtab *t, const char *s, size_t len)
{
	size_t h, sid;

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
	if ((t->n + 1) * 2 > t->hash_cap && rehash(t, t->hash_cap ? t->hash_cap * 2 : 1024))
		return 0;
	h = hash_bytes(s, len) & (t->hash_cap - 1);
	while (t->hash[h]) {
		sid = t->hash[h];
		if (t->ent[sid].len == len && memcmp(t->pool + t->ent[sid].off, s, len) == 0)
			return (uint32_t)sid;
		h = (h + 1) & (t->hash_cap - 1);
	}
	if (t->n >= UINT32_MAX)
		return 0;
	if (OPMFU_GROW(t->ent, t->cap, t->n + 1))
		return 0;
	if (opmfu_grow((void **)&t->pool, &t->pool_cap, t->pool_len + len + 1, 1))
		return 0;
	memcpy(t->pool + t->pool_len, s, len);
	t->pool[t->pool_len + len] = '\0';
	sid = t->n++;
	t->ent[sid].off = t->pool_len;
	t->ent[sid].len = (uint32_t)len;
	t->pool_len += len + 1;
	t->hash[h] = (uint32_t)sid;
	return (uint32_t)sid;
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

static int cmp_strid(const void *a, const void *b)
{
	const struct opmfu_strid *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->pos < y->pos ? -1 : (x->pos > y->pos);
}

void opmfu_strtab_finish(struct opmfu_strtab *t)
{
	size_t i, k = 0;

	opmfu_free(t->hash); /* no more interning after loading */
	t->hash = NULL;
	t->hash_cap = 0;
	if (t->sparse_n > 1)
		qsort(t->sparse, t->sparse_n, sizeof(*t->sparse), cmp_strid);
	for (i = 0; i < t->sparse_n; i++)
		if (!k || t->sparse[k - 1].id != t->sparse[i].id) /* first mapping wins */
			t->sparse[k++] = t->sparse[i];
	t->sparse_n = k;
}

uint32_t opmfu_strtab_lookup(const struct opmfu_strtab *t, int64_t id)
{
	size_t lo = 0, hi = t->sparse_n;
	if (id >= 0 && (uint64_t)id < t->dense_n)
		return t->dense[id];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->sparse[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo < t->sparse_n && t->sparse[lo].id == id) ? t->sparse[lo].sid : 0;
}
