/*
 * t_idtab.c - base/idtab: ids under int64 keys against a brute-force
 * reference, growth at 3/4, reserve (no allocation after it), hashes that
 * all collide, clear by generation (also across the renumbering and the
 * wipe), allocation failure leaving the table as it was, and the per-record
 * set of (kernel start, kernel end) pairs that op_mfu keeps.
 */
#include <stdint.h>
#include <string.h>

#include "base/idtab.h"
#include "base/mem.h"
#include "check.h"

#define NONE OPMFU_IDTAB_NONE

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* keys by id (the few huge ids t_clear uses wrap around); the probe is the
 * key itself */
#define NKEYS 20000
static int64_t keys[NKEYS];

static int key_eq(const void *probe, uint32_t id)
{
	return keys[id % NKEYS] == *(const int64_t *)probe;
}

static uint64_t key_hash(int64_t k)
{
	return opmfu_mix64((uint64_t)k);
}

/* every hash the same: the ids are told apart by key_eq alone */
static uint64_t bad_hash(int64_t k)
{
	(void)k;
	return 42;
}

/* Adds key k (id n if new) as a set of keys[0, *n) would. */
static uint32_t add(struct opmfu_idtab *t, uint64_t (*hash)(int64_t), int64_t k, size_t *n)
{
	uint32_t id = opmfu_idtab_get(t, hash(k), key_eq, &k, (uint32_t)*n);
	if (id == *n)
		keys[(*n)++] = k;
	return id;
}

static uint32_t find(const struct opmfu_idtab *t, uint64_t (*hash)(int64_t), int64_t k)
{
	return opmfu_idtab_find(t, hash(k), key_eq, &k);
}

/* the id a linear scan gives, or NONE */
static uint32_t scan(int64_t k, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (keys[i] == k)
			return (uint32_t)i;
	return NONE;
}

/* Random keys from a small range (many repeats), against the scan. */
static void t_reference(uint64_t (*hash)(int64_t), size_t n_ops, int64_t range)
{
	struct opmfu_idtab t;
	size_t n = 0, i, bad = 0;

	opmfu_idtab_init(&t);
	CHECK_INT(find(&t, hash, 5), NONE); /* empty, nothing allocated */
	for (i = 0; i < n_ops; i++) {
		int64_t k = (int64_t)(next() % (uint64_t)range) - range / 2;
		uint32_t want = scan(k, n), got;
		if (find(&t, hash, k) != want)
			bad++;
		got = add(&t, hash, k, &n);
		if (got != (want == NONE ? n - 1 : want))
			bad++;
	}
	CHECK_INT(bad, 0);
	CHECK_INT(t.n, n);
	for (i = 0; i < n; i++)
		if (find(&t, hash, keys[i]) != i)
			bad++;
	CHECK_INT(bad, 0);
	CHECK_INT(find(&t, hash, range * 10), NONE);
	opmfu_idtab_release(&t);
}

/* Starts at 64 slots; the 49th id (over 3/4 of 64) doubles them. */
static void t_grow(void)
{
	struct opmfu_idtab t;
	size_t n = 0, i;

	opmfu_idtab_init(&t);
	for (i = 0; i < 48; i++)
		add(&t, key_hash, (int64_t)i * 7, &n);
	CHECK_INT(t.cap, 64);
	add(&t, key_hash, 1000, &n);
	CHECK_INT(t.cap, 128);
	CHECK_INT(n, 49);
	for (i = 0; i < 48; i++)
		CHECK_INT(find(&t, key_hash, (int64_t)i * 7), i);
	opmfu_idtab_release(&t);
	CHECK(t.slot == NULL && t.cap == 0);
}

/* reserve(1000): 2048 slots (1000 > 3/4 of 1024), then 1000 ids allocate nothing. */
static void t_reserve(void)
{
	struct opmfu_idtab t;
	size_t n = 0, i;
	long before;

	opmfu_idtab_init(&t);
	CHECK_INT(opmfu_idtab_reserve(&t, 1000), 0);
	CHECK_INT(t.cap, 2048);
	before = opmfu_mem_count();
	for (i = 0; i < 1000; i++)
		add(&t, key_hash, (int64_t)(next() >> 1), &n);
	CHECK_INT(opmfu_mem_count(), before);
	CHECK_INT(t.cap, 2048);
	CHECK_INT(opmfu_idtab_reserve(&t, 10), 0); /* never shrinks */
	CHECK_INT(t.cap, 2048);
	CHECK_INT(opmfu_idtab_reserve(&t, 1537), 0);
	CHECK_INT(t.cap, 4096);
	for (i = 0; i < n; i++)
		CHECK_INT(find(&t, key_hash, keys[i]), i);
	opmfu_idtab_release(&t);
}

/* A failed growth, reserve or renumbering leaves the table as it was. */
static void t_nomem(void)
{
	struct opmfu_idtab t;
	size_t n = 0, i;
	int64_t k = 999;

	opmfu_idtab_init(&t);
	opmfu_mem_fail_after(1);
	CHECK_INT(opmfu_idtab_get(&t, key_hash(k), key_eq, &k, 0), NONE); /* the first allocation */
	opmfu_mem_fail_after(0);
	CHECK_INT(t.cap, 0);
	for (i = 0; i < 48; i++)
		add(&t, key_hash, (int64_t)i, &n);
	opmfu_mem_fail_after(1);
	CHECK_INT(opmfu_idtab_get(&t, key_hash(k), key_eq, &k, (uint32_t)n), NONE);
	opmfu_mem_fail_after(1);
	CHECK_INT(opmfu_idtab_reserve(&t, 5000), -1);
	opmfu_mem_fail_after(0);
	CHECK_INT(t.cap, 64);
	CHECK_INT(t.n, 48);
	for (i = 0; i < 48; i++)
		CHECK_INT(find(&t, key_hash, (int64_t)i), i);
	CHECK_INT(find(&t, key_hash, k), NONE);
	CHECK_INT(add(&t, key_hash, k, &n), 48); /* and it grows now */
	CHECK_INT(t.cap, 128);
	/* an id past the room over the base needs a renumbering, which may fail too */
	opmfu_idtab_clear(&t);
	n = 0;
	add(&t, key_hash, 1, &n);
	opmfu_mem_fail_after(1);
	CHECK_INT(opmfu_idtab_get(&t, key_hash(k), key_eq, &k, NONE - 1), NONE);
	CHECK_INT(opmfu_idtab_get(&t, key_hash(k), key_eq, &k, NONE), NONE); /* never a valid id */
	opmfu_mem_fail_after(0);
	CHECK_INT(find(&t, key_hash, 1), 0);
	opmfu_idtab_release(&t);
}

/*
 * Clear by generation: the same slots, nothing allocated, every key gone.
 * Ids restart from 0 and may repeat earlier generations' ids. An id past the
 * room left over the base (NONE - base) renumbers the slots; a base past
 * 2^31 makes the next clear wipe them.
 */
static void t_clear(void)
{
	struct opmfu_idtab t;
	size_t n, i, gen, bad = 0;
	long before;
	int64_t k;

	opmfu_idtab_init(&t);
	for (gen = 0; gen < 200; gen++) {
		n = 0;
		opmfu_idtab_clear(&t);
		before = opmfu_mem_count();
		for (i = 0; i < 40; i++)
			add(&t, key_hash, (int64_t)(gen * 1000 + next() % 60), &n);
		if (opmfu_mem_count() != before && gen > 0)
			bad++;
		for (i = 0; i < n; i++)
			if (find(&t, key_hash, keys[i]) != i)
				bad++;
		if (gen > 0 && find(&t, key_hash, (int64_t)((gen - 1) * 1000 + 1)) != NONE)
			bad++;
		if (t.n != n)
			bad++;
	}
	CHECK_INT(bad, 0);
	CHECK_INT(t.cap, 64);

	/* a large id: the base moves past it */
	opmfu_idtab_clear(&t);
	k = 77;
	keys[(1u << 30) % NKEYS] = 77;
	CHECK_INT(opmfu_idtab_get(&t, key_hash(k), key_eq, &k, 1u << 30), 1u << 30);
	CHECK_INT(opmfu_idtab_find(&t, key_hash(k), key_eq, &k), 1u << 30);
	opmfu_idtab_clear(&t);
	CHECK(t.base > (1u << 30));
	CHECK_INT(find(&t, key_hash, 77), NONE);
	/* an id that does not fit over the base: renumbered to base 0, same size */
	n = 0;
	add(&t, key_hash, 5, &n);
	k = 6;
	keys[(NONE - 1) % NKEYS] = 6;
	CHECK_INT(opmfu_idtab_get(&t, key_hash(k), key_eq, &k, NONE - 1), NONE - 1);
	CHECK_INT(t.base, 0);
	CHECK_INT(t.cap, 64);
	CHECK_INT(find(&t, key_hash, 5), 0);
	/* the top is now past 2^31: the next clear wipes the slots */
	opmfu_idtab_clear(&t);
	CHECK_INT(t.base, 0);
	CHECK_INT(t.n, 0);
	CHECK_INT(find(&t, key_hash, 5), NONE);
	n = 0;
	CHECK_INT(add(&t, key_hash, 6, &n), 0);
	CHECK_INT(find(&t, key_hash, 6), 0);
	opmfu_idtab_release(&t);
}

/*
 * op_mfu's set of (kernel start, kernel end) per FLOPs record, on idtab:
 * the window win[] holds the kept pairs (the ids), reserve() sizes the
 * table for the record, clear() empties it. Against a quadratic scan.
 */
struct pair {
	int64_t a, b;
};

struct pair_probe {
	const struct pair *win;
	int64_t a, b;
};

static int pair_eq(const void *probe, uint32_t id)
{
	const struct pair_probe *p = probe;
	return p->win[id].a == p->a && p->win[id].b == p->b;
}

static void t_pair_set(void)
{
	static struct pair in[500], win[500];
	struct opmfu_idtab seen;
	size_t rec, i, j, bad = 0;

	opmfu_idtab_init(&seen);
	for (rec = 0; rec < 300; rec++) {
		size_t n = 1 + next() % 500, n_win = 0, want = 0;
		for (i = 0; i < n; i++)
			in[i] = (struct pair){ (int64_t)(next() % 20), (int64_t)(next() % 20) };
		opmfu_idtab_clear(&seen);
		if (opmfu_idtab_reserve(&seen, n))
			bad++;
		for (i = 0; i < n; i++) {
			struct pair_probe p = { win, in[i].a, in[i].b };
			uint64_t h = opmfu_mix64((uint64_t)in[i].a * 31 + (uint64_t)in[i].b);
			if (opmfu_idtab_get(&seen, h, pair_eq, &p, (uint32_t)n_win) == n_win)
				win[n_win++] = in[i];
		}
		for (i = 0; i < n; i++) {
			for (j = 0; j < i && !(in[j].a == in[i].a && in[j].b == in[i].b); j++)
				;
			want += j == i;
		}
		if (n_win != want)
			bad++;
	}
	CHECK_INT(bad, 0);
	opmfu_idtab_release(&seen);
}

static void t_hash_bytes(void)
{
	CHECK(opmfu_hash_bytes("ab", 2) == opmfu_hash_bytes("ab", 2));
	CHECK(opmfu_hash_bytes("ab", 2) != opmfu_hash_bytes("ba", 2));
	CHECK(opmfu_hash_bytes("", 0) != opmfu_hash_bytes("\0", 1));
	CHECK(opmfu_mix64(1) != opmfu_mix64(2));
}

int main(void)
{
	t_reference(key_hash, NKEYS, 30000);
	t_reference(key_hash, 20000, 1000);
	t_reference(bad_hash, 2000, 4000); /* every probe walks the one chain */
	t_grow();
	t_reserve();
	t_nomem();
	t_clear();
	t_pair_set();
	t_hash_bytes();
	return check_done();
}
