/*
 * t_intern.c - base/intern (the arena: copies, NUL-terminated, long strings
 * in blocks of their own; the set: dense ids in order of first addition,
 * bytes not C strings, allocation failure leaving the set usable, a clear
 * starting the ids again) and
 * base/lbound (every key of sorted arrays with runs, against a linear scan).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/intern.h"
#include "base/lbound.h"
#include "base/mem.h"
#include "check.h"

#define NONE OPMFU_IDTAB_NONE

static void t_arena(void)
{
	struct opmfu_arena a;
	char big[10000], buf[32];
	const char *p[8000];
	size_t i, bad = 0;

	memset(&a, 0, sizeof(a));
	memset(big, 'x', sizeof(big));
	for (i = 0; i < 8000; i++) {
		snprintf(buf, sizeof(buf), "string %zu", i);
		p[i] = opmfu_arena_put(&a, buf, strlen(buf));
	}
	for (i = 0; i < 8000; i++) {
		snprintf(buf, sizeof(buf), "string %zu", i);
		if (!p[i] || strcmp(p[i], buf) != 0)
			bad++;
	}
	CHECK_INT(bad, 0);
	CHECK(a.n >= 2); /* 8000 strings of about 12 bytes: more than one 64 KiB block */
	i = a.n;
	p[0] = opmfu_arena_put(&a, big, sizeof(big));
	CHECK_INT(a.n, i + 1); /* a block of its own ... */
	CHECK(p[0] && p[0][sizeof(big) - 1] == 'x' && p[0][sizeof(big)] == '\0');
	p[1] = opmfu_arena_put(&a, "tail", 4);
	CHECK_INT(a.n, i + 1); /* ... while the current block stays in use */
	CHECK_STR(p[1], "tail");
	p[2] = opmfu_arena_put(&a, "a\0b", 3); /* bytes, NUL and all */
	CHECK(p[2] && memcmp(p[2], "a\0b", 4) == 0);
	opmfu_mem_fail_after(1);
	CHECK(opmfu_arena_put(&a, big, sizeof(big)) == NULL);
	opmfu_mem_fail_after(0);
	CHECK_STR(opmfu_arena_put(&a, "after", 5), "after");
	opmfu_arena_release(&a);
	CHECK(a.blk == NULL && a.n == 0);
}

static void t_set(void)
{
	struct opmfu_arena a;
	struct opmfu_intern ss;
	char buf[32];
	size_t i, bad = 0;

	memset(&a, 0, sizeof(a));
	opmfu_intern_init(&ss, &a);
	CHECK_INT(opmfu_intern_add(&ss, "", 0), 0);
	CHECK_INT(opmfu_intern_add(&ss, "mm", 2), 1);
	CHECK_INT(opmfu_intern_add(&ss, "mm/add", 2), 1); /* the first 2 bytes */
	CHECK_INT(opmfu_intern_add(&ss, "m\0m", 3), 2);
	CHECK_INT(opmfu_intern_add(&ss, "m", 1), 3);
	CHECK_INT(opmfu_intern_add(&ss, "", 0), 0);
	CHECK_INT(ss.n, 4);
	CHECK_STR(opmfu_intern_str(&ss, 1), "mm");
	CHECK_INT(opmfu_intern_len(&ss, 2), 3);
	CHECK(memcmp(opmfu_intern_str(&ss, 2), "m\0m", 4) == 0);
	/* many: ids in order of first addition, through the table's growth */
	for (i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "k%zu", i % 2500);
		if (opmfu_intern_add(&ss, buf, strlen(buf)) != 4 + i % 2500)
			bad++;
	}
	CHECK_INT(bad, 0);
	CHECK_INT(ss.n, 2504);
	CHECK_STR(opmfu_intern_str(&ss, 2503), "k2499");
	/* cleared (the database writer's dimensions, a set a rank): ids from 0 again, to strings
	 * old or new, and none it held before found */
	opmfu_intern_clear(&ss);
	CHECK_INT(ss.n, 0);
	opmfu_arena_release(&a); /* its strings are no longer the set's */
	CHECK_INT(opmfu_intern_add(&ss, "k2499", 5), 0);
	CHECK_INT(opmfu_intern_add(&ss, "new", 3), 1);
	CHECK_INT(opmfu_intern_add(&ss, "mm", 2), 2);
	CHECK_INT(opmfu_intern_add(&ss, "k2499", 5), 0);
	CHECK_STR(opmfu_intern_str(&ss, 1), "new");
	CHECK_INT(ss.n, 3);
	opmfu_intern_release(&ss);
	opmfu_arena_release(&a);
}

/* Every allocation of an add failing in turn: NONE, and the set as before. */
static void t_nomem(void)
{
	struct opmfu_arena a;
	struct opmfu_intern ss;
	char big[5000];
	long k;
	int failed = 0;

	memset(&a, 0, sizeof(a));
	memset(big, 'y', sizeof(big));
	opmfu_intern_init(&ss, &a);
	CHECK_INT(opmfu_intern_add(&ss, "one", 3), 0);
	for (k = 1; k < 10; k++) {
		uint32_t id;
		opmfu_mem_fail_after(k);
		id = opmfu_intern_add(&ss, big, sizeof(big)); /* a block of its own: one more allocation */
		opmfu_mem_fail_after(0);
		if (id != NONE)
			break;
		failed++;
		CHECK_INT(ss.n, 1);
		CHECK_INT(opmfu_intern_add(&ss, "one", 3), 0);
	}
	CHECK(failed >= 1);
	CHECK_INT(ss.n, 2);
	CHECK_INT(opmfu_intern_add(&ss, big, sizeof(big)), 1);
	CHECK_INT(opmfu_intern_add(&ss, "two", 3), 2);
	CHECK_INT(opmfu_intern_add(&ss, "one", 3), 0);
	CHECK_INT(opmfu_intern_len(&ss, 1), sizeof(big));
	opmfu_intern_release(&ss);
	opmfu_arena_release(&a);
}

static int before_int(const void *ctx, size_t i, const void *key)
{
	return ((const int *)ctx)[i] < *(const int *)key;
}

/* Sorted arrays of every length up to 40 with runs of equal values: the
 * lower bound of every key (and ones between and beyond), over subranges. */
static void t_lbound(void)
{
	int v[40] = { 0 };
	size_t n, i, lo, hi, bad = 0;
	int key = 0;

	CHECK_INT(opmfu_lbound(0, 0, before_int, v, &key), 0);
	for (n = 0; n <= 40; n++) {
		for (i = 0; i < n; i++)
			v[i] = (int)(i / 3) * 2; /* 0 0 0 2 2 2 4 ... */
		for (lo = 0; lo <= n; lo += 5)
			for (hi = lo; hi <= n; hi++)
				for (key = -1; key <= (int)n; key++) {
					size_t want = lo;
					while (want < hi && v[want] < key)
						want++;
					if (opmfu_lbound(lo, hi, before_int, v, &key) != want)
						bad++;
				}
	}
	CHECK_INT(bad, 0);
}

int main(void)
{
	t_arena();
	t_set();
	t_nomem();
	t_lbound();
	return check_done();
}
