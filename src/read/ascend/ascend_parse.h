/*
 * ascend_parse.h - parsers of the strings only Ascend profiler databases
 * hold (SPEC 1.2, 1.3, 2.4, 5.1): mfu_flops messages, dtype name lists, and
 * shape strings in quotes with N/A for unknown. The reader turns them into
 * the model's format-neutral forms. Pure functions but the last: no
 * allocation, safe on any bytes (they are fuzzed).
 */
#ifndef OPMFU_ASCEND_PARSE_H
#define OPMFU_ASCEND_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "trace/dtype.h"
#include "trace/strtab.h"
#include "trace/trace.h"

/*
 * Parses "<FLOPs>-<name>" (SPEC 1.3). On success returns 0 and sets *flops
 * and *name_off (offset of the name in msg). Otherwise returns -1 and sets
 * *why to OPMFU_DROP_FORMAT, _ZERO or _OVERFLOW. msg may contain any bytes.
 */
int opmfu_ascend_flops_msg(const char *msg, size_t len, int64_t *flops, size_t *name_off, enum opmfu_drop *why);

/*
 * The reference's peak class of an input dtype list such as "INT64;FLOAT16"
 * (SPEC 2.4 with the deviation of 5.1): the first entry, trimmed and
 * upper-cased, that is no index type. NULL, empty or all-blank lists give
 * FP16, as in the reference. For OPMFU_DT_UNSUPPORTED the offending entry is
 * copied (trimmed, upper-cased, truncated) to bad when bad is not NULL.
 */
enum opmfu_dtclass opmfu_ascend_dtype_ref(const char *dtypes, size_t len, char *bad, size_t badsz);

/* The same list's class under SPEC 8 (FLOAT is fp32; an empty list: none). */
enum opmfu_prec opmfu_ascend_dtype_prec(const char *dtypes, size_t len);

/* The dtype table entry of the list with sid (not 0) in strs. */
void opmfu_ascend_dtype(const struct opmfu_strtab *strs, uint32_t sid, struct opmfu_dtype *out);

/* Strips leading and trailing '"' and '\'' (Python str.strip("\"'")). */
void opmfu_ascend_shape_strip(const char *s, size_t len, size_t *start, size_t *out_len);

/* 1 if the stripped shape string is the literal N/A (unknown). */
int opmfu_ascend_shape_is_na(const char *s, size_t len);

/*
 * The model's form (model/shape.h) of every string of strs taken as a shape:
 * map[sid] is the sid of the string stripped of its quotes (interned when
 * new), or *unknown, the sid of "N/A", for the unknown ones. map holds room
 * for strs->n + 1 entries on entry; *n_map is set to the number filled (the
 * sids before this call). Unlike the rest, this interns strings. Returns 0,
 * or -1 when out of memory.
 */
int opmfu_ascend_shape_map(struct opmfu_strtab *strs, uint32_t *map, size_t *n_map, uint32_t *unknown);

/*
 * Normalises a tensor format list as model/trace.h's struct opmfu_kext
 * wants it: each ';'-separated entry loses a "FORMAT_" prefix and a ":N"
 * sub-format suffix ("FORMAT_ND;NC1HWC0:1" -> "ND;NC1HWC0"). Writes at
 * most len bytes to out; returns the length written, or -1 when s is
 * already normal (nothing to change). Pure.
 */
long opmfu_ascend_format_norm(const char *s, size_t len, char *out);

/*
 * map[sid] for sid < n: the sid of the normalised format list of every
 * string that opmfu_ascend_format_norm changes (interned when new), sid
 * itself otherwise. Interns strings. Returns 0, or -1 when out of memory.
 */
int opmfu_ascend_format_map(struct opmfu_strtab *strs, uint32_t *map, size_t n);

#endif
