/*
 * t_sort.c - base/sort.c against a plain stable insertion sort: index sorts
 * and struct sorts (merged, and lean: through an index) of many sizes and
 * shapes (random with many equal keys, sorted, reversed, sorted runs, the short runs MIN_RUN extends), stability
 * checked through each element's original position, and allocation failure.
 */
#include <stdint.h>
#include <string.h>

#include "base/mem.h"
#include "base/sort.h"
#include "check.h"

/* 24 and 32 bytes: the sizes the analysis sorts, and an odd one */
struct e24 {
	int64_t key, pos;
	uint32_t pad;
};
struct e32 {
	int64_t key, pos, more;
	uint32_t pad;
};
struct e12 {
	int32_t key, pos, pad;
};

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* shape 0 random over few keys, 1 sorted, 2 reversed, 3 sorted runs of
 * random length, 4 sorted but every 40th element random */
static int64_t key_at(int shape, size_t i, size_t n)
{
	switch (shape) {
	case 0: return (int64_t)(next() % 50);
	case 1: return (int64_t)i / 3;
	case 2: return (int64_t)(n - i) / 3;
	case 3: return (int64_t)((i % 997) * 7 + (next() % 3));
	default: return i % 40 ? (int64_t)i : (int64_t)(next() % (n + 1));
	}
}

static int less_key24(const void *a, const void *b)
{
	return ((const struct e24 *)a)->key < ((const struct e24 *)b)->key;
}

static int less_key32(const void *a, const void *b)
{
	return ((const struct e32 *)a)->key < ((const struct e32 *)b)->key;
}

static int less_key12(const void *a, const void *b)
{
	return ((const struct e12 *)a)->key < ((const struct e12 *)b)->key;
}

static int less_idx(const void *ctx, uint32_t a, uint32_t b)
{
	const int64_t *k = ctx;
	return k[a] < k[b];
}

/* stable by construction: an element moves left only past strictly greater keys */
static void reference(int64_t *key, int64_t *pos, size_t n)
{
	size_t i, j;
	for (i = 1; i < n; i++) {
		int64_t k = key[i], p = pos[i];
		for (j = i; j > 0 && key[j - 1] > k; j--) {
			key[j] = key[j - 1];
			pos[j] = pos[j - 1];
		}
		key[j] = k;
		pos[j] = p;
	}
}

static void one(size_t n, int shape)
{
	struct e24 *a = opmfu_malloc((n + 1) * sizeof(*a));
	struct e32 *b = opmfu_malloc((n + 1) * sizeof(*b));
	struct e12 *c = opmfu_malloc((n + 1) * sizeof(*c));
	struct e24 *d = opmfu_malloc((n + 1) * sizeof(*d));
	struct e12 *e = opmfu_malloc((n + 1) * sizeof(*e));
	uint32_t *ix = opmfu_malloc((n + 1) * sizeof(*ix));
	int64_t *key = opmfu_malloc((n + 1) * sizeof(*key)), *rk = opmfu_malloc((n + 1) * sizeof(*rk));
	int64_t *rp = opmfu_malloc((n + 1) * sizeof(*rp));
	size_t i, bad = 0;

	if (!a || !b || !c || !d || !e || !ix || !key || !rk || !rp) {
		CHECK(0);
		goto out;
	}
	for (i = 0; i < n; i++) {
		key[i] = rk[i] = key_at(shape, i, n);
		rp[i] = (int64_t)i;
		a[i] = (struct e24){ key[i], (int64_t)i, 0 };
		b[i] = (struct e32){ key[i], (int64_t)i, -key[i], 0 };
		c[i] = (struct e12){ (int32_t)key[i], (int32_t)i, 0 };
		d[i] = a[i];
		e[i] = c[i];
		ix[i] = (uint32_t)i;
	}
	reference(rk, rp, n);
	CHECK_INT(opmfu_sort_array(a, n, sizeof(*a), less_key24), 0);
	CHECK_INT(opmfu_sort_array(b, n, sizeof(*b), less_key32), 0);
	CHECK_INT(opmfu_sort_array(c, n, sizeof(*c), less_key12), 0);
	CHECK_INT(opmfu_sort_idx(ix, n, less_idx, key), 0);
	CHECK_INT(opmfu_sort_array_lean(d, n, sizeof(*d), less_key24), 0);
	CHECK_INT(opmfu_sort_array_lean(e, n, sizeof(*e), less_key12), 0);
	for (i = 0; i < n; i++) {
		bad += a[i].key != rk[i] || a[i].pos != rp[i];
		bad += b[i].key != rk[i] || b[i].pos != rp[i] || b[i].more != -rk[i];
		bad += c[i].key != rk[i] || c[i].pos != rp[i];
		bad += ix[i] != (uint32_t)rp[i];
		bad += d[i].key != rk[i] || d[i].pos != rp[i];
		bad += e[i].key != rk[i] || e[i].pos != rp[i];
	}
	if (bad)
		fprintf(stderr, "n %zu shape %d: %zu elements out of place\n", n, shape, bad);
	CHECK_INT(bad, 0);
out:
	opmfu_free(a);
	opmfu_free(b);
	opmfu_free(c);
	opmfu_free(d);
	opmfu_free(e);
	opmfu_free(ix);
	opmfu_free(key);
	opmfu_free(rk);
	opmfu_free(rp);
}

/* A failed allocation leaves the array as it was. */
static void nomem(void)
{
	struct e24 a[100];
	size_t i;
	long k;
	for (i = 0; i < 100; i++)
		a[i] = (struct e24){ (int64_t)(100 - i), (int64_t)i, 0 };
	opmfu_mem_fail_after(1);
	CHECK_INT(opmfu_sort_array(a, 100, sizeof(*a), less_key24), -1);
	opmfu_mem_fail_after(0);
	for (i = 0; i < 100; i++)
		CHECK(a[i].key == (int64_t)(100 - i) && a[i].pos == (int64_t)i);
	/* the lean sort: its index array, then the index sort's buffer */
	for (k = 1; k <= 3; k++) {
		opmfu_mem_fail_after(k);
		CHECK_INT(opmfu_sort_array_lean(a, 100, sizeof(*a), less_key24), -1);
		opmfu_mem_fail_after(0);
		for (i = 0; i < 100; i++)
			CHECK(a[i].key == (int64_t)(100 - i) && a[i].pos == (int64_t)i);
	}
	CHECK_INT(opmfu_sort_array_lean(a, 10, OPMFU_SORT_MAX_ELEM + 1, less_key24), -1);
	/* elements larger than the sort takes */
	CHECK_INT(opmfu_sort_array(a, 10, OPMFU_SORT_MAX_ELEM + 1, less_key24), -1);
}

int main(void)
{
	static const size_t sizes[] = { 0, 1, 2, 31, 32, 33, 64, 65, 100, 1000, 4099, 9000 };
	size_t i;
	int shape;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (shape = 0; shape < 5; shape++)
			one(sizes[i], shape);
	nomem();
	return check_done();
}
