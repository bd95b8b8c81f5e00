/*
 * idtab.h - the open-addressing hash table of the code base. It stores ids,
 * not keys: the caller keeps its keys (in arrays indexed by id, or wherever
 * an id leads) and says through an equality callback whether the key of an
 * id equals the one probed. Each slot is 8 bytes (the id and 32 bits of the
 * hash, compared before the callback), linear probing, grown at 3/4 full.
 *
 * The probe loops are inline, so a callback known at the call site is
 * inlined too: a probe costs what a hand-written table's would.
 *
 * A table can be emptied in O(1) (opmfu_idtab_clear), for sets rebuilt per
 * record: slots hold base + id, and a clear moves base past every id stored,
 * which turns all slots into empty ones without touching them.
 */
#ifndef OPMFU_IDTAB_H
#define OPMFU_IDTAB_H

#include <stddef.h>
#include <stdint.h>

#define OPMFU_IDTAB_NONE UINT32_MAX

/* A 64-bit finalizer (murmur3's): every input bit affects every output bit. */
static inline uint64_t opmfu_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* A hash of the bytes s[0, n): FNV-1a, then mixed. */
static inline uint64_t opmfu_hash_bytes(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;
	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return opmfu_mix64(h ^ n);
}

/*
 * All zero bytes is an empty table (as is opmfu_idtab_init); it allocates on
 * the first insertion. Read the fields only through the functions below.
 */
struct opmfu_idtab {
	struct opmfu_idslot {
		uint32_t id, h; /* id: base + the caller's id; empty when not below base + lim */
	} *slot;
	size_t cap, n; /* slots (0 or a power of two); ids stored since the last clear */
	uint32_t base, lim, top; /* lim: 0 before the first allocation, else NONE - base; top: 1 + the largest slot id */
};

/* Nonzero when the key of id equals the probed one. */
typedef int (*opmfu_id_eq_fn)(const void *probe, uint32_t id);

void opmfu_idtab_init(struct opmfu_idtab *t);
void opmfu_idtab_release(struct opmfu_idtab *t);

/* Room for n ids in all (since the last clear) without growing. Returns 0, or
 * -1 when out of memory (the table is unchanged). */
int opmfu_idtab_reserve(struct opmfu_idtab *t, size_t n);

/* Empties the table, keeping its slots: O(1), but for a pass over the slots
 * once every 2^31 ids stored. */
void opmfu_idtab_clear(struct opmfu_idtab *t);

/* The slow path of opmfu_idtab_get: grows the table, or renumbers its slots
 * when new_id would not fit over the base. Returns 0 or -1 (table unchanged). */
int opmfu_idtab_make_room(struct opmfu_idtab *t, uint32_t new_id);

/* The id whose key equals the probe (hash is the probe key's), or
 * OPMFU_IDTAB_NONE. */
static inline uint32_t opmfu_idtab_find(const struct opmfu_idtab *t, uint64_t hash, opmfu_id_eq_fn eq,
					const void *probe)
{
	uint32_t h = (uint32_t)hash, base = t->base, lim = t->lim;
	size_t mask = t->cap - 1, i;

	if (!t->cap)
		return OPMFU_IDTAB_NONE;
	for (i = h & mask;; i = (i + 1) & mask) {
		uint32_t id = t->slot[i].id - base;
		if (id >= lim)
			return OPMFU_IDTAB_NONE;
		if (t->slot[i].h == h && eq(probe, id))
			return id;
	}
}

/*
 * The id whose key equals the probe, else stores new_id (< OPMFU_IDTAB_NONE)
 * for it and returns new_id; OPMFU_IDTAB_NONE when out of memory (the table is
 * unchanged and usable). Ids need not be distinct or dense, but eq must be
 * able to take every id stored.
 */
static inline uint32_t opmfu_idtab_get(struct opmfu_idtab *t, uint64_t hash, opmfu_id_eq_fn eq, const void *probe,
				       uint32_t new_id)
{
	uint32_t h = (uint32_t)hash, base, lim, s;
	size_t mask, i;

	if (((t->n + 1) * 4 > t->cap * 3 || new_id >= t->lim) && opmfu_idtab_make_room(t, new_id))
		return OPMFU_IDTAB_NONE;
	base = t->base;
	lim = t->lim;
	mask = t->cap - 1;
	for (i = h & mask;; i = (i + 1) & mask) {
		uint32_t id = t->slot[i].id - base;
		if (id >= lim)
			break;
		if (t->slot[i].h == h && eq(probe, id))
			return id;
	}
	s = base + new_id;
	t->slot[i].id = s;
	t->slot[i].h = h;
	t->n++;
	if (s >= t->top)
		t->top = s + 1;
	return new_id;
}

#endif
