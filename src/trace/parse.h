/*
 * parse.h - number parsing and formatting that is no format's own: numpy's
 * round and Python's float repr (the reference's output), timestamps stored
 * as text. The parsers of one format's strings live with its reader
 * (read/ascend/ascend_parse.h). Pure functions: no allocation, safe on any
 * bytes.
 */
#ifndef OPMFU_PARSE_H
#define OPMFU_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* A timestamp or key stored as TEXT (real files declare some timestamps
 * TEXT): optional sign and decimal digits, trailing spaces allowed, within
 * int64. txt[n] must be '\0'. Returns 0, or -1 for anything else (empty,
 * leading space, junk, fraction, overflow). */
int opmfu_parse_ns_text(const char *txt, size_t n, int64_t *out);

/* numpy-style round(x, n): rint(x * 10^n) / 10^n, half to even. */
double opmfu_round(double x, int ndigits);

/*
 * Writes x as Python's repr(float) does (shortest round-trip digits,
 * "50.0", "1e+16", "inf"). out must hold 32 bytes. Returns the length.
 */
int opmfu_format_pyfloat(double x, char *out);

#endif
