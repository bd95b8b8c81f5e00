/*
 * fold.h - names compared the way people type them: without case, spaces,
 * dashes and underscores ("h100-sxm" is "H100 SXM", "all_reduce" is
 * "allReduce").
 */
#ifndef OPMFU_FOLD_H
#define OPMFU_FOLD_H

#include <stddef.h>

/* s[0..n) folded into out (at most outsz - 1 bytes, then a NUL); returns its length. */
size_t opmfu_fold_name(const char *s, size_t n, char *out, size_t outsz);

/* Whether s[0..n) holds lower (lower case) in any case: kernel names' words ("tf32", "bf16"). */
int opmfu_contains_nocase(const char *s, size_t n, const char *lower);

#endif
