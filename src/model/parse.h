/*
 * parse.h - parsers for strings that come from the profiler: FLOPs messages,
 * dtype lists and shape strings (SPEC 1.2, 1.3, 2.4, 5.1). Pure functions:
 * no allocation, safe on any bytes (they are fuzzed).
 */
#ifndef OPMFU_PARSE_H
#define OPMFU_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "model/trace.h"

/*
 * Parses "<FLOPs>-<name>" (SPEC 1.3). On success returns 0 and sets *flops
 * and *name_off (offset of the name in msg). Otherwise returns -1 and sets
 * *why to OPMFU_DROP_FORMAT, _ZERO or _OVERFLOW. msg may contain any bytes.
 */
int opmfu_parse_flops_msg(const char *msg, size_t len, int64_t *flops, size_t *name_off,
			  enum opmfu_drop *why);

/* Peak classes a kernel's input dtype selects. */
enum opmfu_dtclass {
	OPMFU_DT_FP16 = 0, /* FLOAT, FLOAT16, BF16: the cube's fp16-class rate */
	OPMFU_DT_INT8 = 1,
	OPMFU_DT_FP8 = 2,  /* FP8/HiFloat8: only with a table or override peak */
	OPMFU_DT__COUNT,
	OPMFU_DT_UNSUPPORTED = -1, /* first data dtype is none of the above */
	OPMFU_DT_NONE = -2         /* only index types (INT32, INT64, BOOL, ...) */
};

const char *opmfu_dtclass_name(enum opmfu_dtclass c);

/*
 * Picks the peak class from an input dtype list such as "INT64;FLOAT16"
 * (SPEC 2.4 with the deviation of 5.1). NULL, empty or all-blank lists give
 * FP16, as in the reference. For OPMFU_DT_UNSUPPORTED the offending entry is
 * copied (trimmed, upper-cased, truncated) to bad when bad is not NULL.
 */
enum opmfu_dtclass opmfu_dtype_pick(const char *dtypes, size_t len, char *bad, size_t badsz);

/* Strips leading and trailing '"' and '\'' (Python str.strip("\"'")). */
void opmfu_shape_strip(const char *s, size_t len, size_t *start, size_t *out_len);

/* 1 if the stripped shape string is the literal N/A. */
int opmfu_shape_is_na(const char *s, size_t len);

/* numpy-style round(x, n): rint(x * 10^n) / 10^n, half to even. */
/* A timestamp or key stored as TEXT (real files declare some timestamps
 * TEXT): optional sign and decimal digits, trailing spaces allowed, within
 * int64. txt[n] must be '\0'. Returns 0, or -1 for anything else (empty,
 * leading space, junk, fraction, overflow). */
int opmfu_parse_ns_text(const char *txt, size_t n, int64_t *out);

double opmfu_round(double x, int ndigits);

/*
 * Writes x as Python's repr(float) does (shortest round-trip digits,
 * "50.0", "1e+16", "inf"). out must hold 32 bytes. Returns the length.
 */
int opmfu_format_pyfloat(double x, char *out);

#endif
