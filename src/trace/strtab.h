/*
 * strtab.h - the rank's string table (STRING_IDS), interned.
 * Strings are addressed by a small "sid": 0 means NULL/missing, 1..n are
 * distinct values (equal values loaded under different ids share one sid).
 */
#ifndef OPMFU_STRTAB_H
#define OPMFU_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/idtab.h"

/*
 * Names and shape strings longer than OPMFU_STR_MAX bytes (16 KiB) are cut
 * where they enter the trace: their first OPMFU_STR_MAX - 48 bytes (less,
 * to end on a whole UTF-8 character), then "…[cut, N bytes]", N the
 * original length; at most OPMFU_STR_MAX bytes in all. Every output then
 * holds the cut string; n_cut counts the distinct strings cut.
 */
#define OPMFU_STR_MAX 16384
#define OPMFU_STR_CUT_MARK "\xE2\x80\xA6[cut, "

struct opmfu_strtab {
	char *pool;          /* NUL-terminated strings back to back */
	size_t pool_len, pool_cap;
	struct opmfu_strent { size_t off; uint32_t len; } *ent; /* by sid; [0] unused */
	size_t n, cap;       /* sids in use, including sid 0 */
	struct opmfu_idtab hash; /* sids by value, while loading */
	/* mapping from the database's STRING_IDS.id to sid */
	uint32_t *dense;     /* dense[id] for 0 <= id < dense_n */
	size_t dense_n;
	/* ids outside the dense range, sorted by id after opmfu_strtab_finish;
	 * pos (the order of mapping) lets the first mapping of an id win */
	struct opmfu_strid { int64_t id; uint32_t sid, pos; } *sparse;
	size_t sparse_n, sparse_cap;
	size_t n_cut;        /* distinct strings cut at OPMFU_STR_MAX */
};

void opmfu_strtab_init(struct opmfu_strtab *t);
void opmfu_strtab_release(struct opmfu_strtab *t);

/* Interns s[0..len) and returns its sid (>0), or 0 on allocation failure. */
uint32_t opmfu_strtab_intern(struct opmfu_strtab *t, const char *s, size_t len);

/* Records that database id maps to sid. Ids may come in any order; the
 * first mapping of an id wins. Returns 0 or -1 on allocation failure. */
int opmfu_strtab_map_id(struct opmfu_strtab *t, int64_t id, uint32_t sid);
/* Must be called once after the last map_id and before lookup; frees the
 * interning hash (no more interning after loading). Returns 0, or -1 when
 * out of memory (then the table serves only to be released). */
int opmfu_strtab_finish(struct opmfu_strtab *t);
/* sid of database id, or 0 when the id is unknown. */
uint32_t opmfu_strtab_lookup(const struct opmfu_strtab *t, int64_t id);

/* The string of sid; NULL for sid 0. */
static inline const char *opmfu_strtab_str(const struct opmfu_strtab *t, uint32_t sid)
{
	return sid ? t->pool + t->ent[sid].off : NULL;
}
static inline uint32_t opmfu_strtab_len(const struct opmfu_strtab *t, uint32_t sid)
{
	return sid ? t->ent[sid].len : 0;
}

#endif
