/*
 * intern.h - strings kept in an arena of blocks, and a set that gives each
 * distinct string a dense id (in order of first addition) over base/idtab.
 */
#ifndef OPMFU_INTERN_H
#define OPMFU_INTERN_H

#include <stddef.h>
#include <stdint.h>

#include "base/idtab.h"

/*
 * Copies of strings, NUL-terminated, in 64 KiB blocks (a long string gets a
 * block of its own). All zero bytes is an empty arena. The blocks may be
 * handed over: blk[0, n) are opmfu_malloc'd, and freeing each and blk itself
 * releases everything.
 */
struct opmfu_arena {
	char **blk;
	size_t n, cap;
	char *cur; /* free space of the current block */
	size_t left;
};

/* A copy of s[0, len) with a NUL after it, valid until the arena is
 * released; NULL when out of memory (the arena stays usable). */
char *opmfu_arena_put(struct opmfu_arena *a, const char *s, size_t len);
void opmfu_arena_release(struct opmfu_arena *a);

/* A set of strings: id -> (s, len), the strings copied into an arena the
 * caller owns (it may hold other strings too and outlive the set). */
struct opmfu_intern {
	struct opmfu_istr {
		const char *s;
		size_t len;
	} *v; /* by id */
	size_t n, cap;
	struct opmfu_idtab tab;
	struct opmfu_arena *ar;
};

void opmfu_intern_init(struct opmfu_intern *ss, struct opmfu_arena *ar);
/* Releases the set; its strings stay in the arena. */
void opmfu_intern_release(struct opmfu_intern *ss);
/* Empties the set, keeping its memory: ids start again from 0. Its strings
 * stay in the arena (which the caller may release). */
void opmfu_intern_clear(struct opmfu_intern *ss);

/* The id of s[0, len), added if new; OPMFU_IDTAB_NONE when out of memory
 * (the set stays usable). */
uint32_t opmfu_intern_add(struct opmfu_intern *ss, const char *s, size_t len);

/* The string of an id (NUL-terminated), and its length. */
static inline const char *opmfu_intern_str(const struct opmfu_intern *ss, uint32_t id)
{
	return ss->v[id].s;
}
static inline size_t opmfu_intern_len(const struct opmfu_intern *ss, uint32_t id)
{
	return ss->v[id].len;
}

#endif
