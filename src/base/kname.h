/*
 * kname.h - kernel names as views show them (SPEC 20): the trace's whole
 * name is often hundreds of characters of template arguments and parameter
 * types, and cutting it from the left leaves only a tail of them.
 */
#ifndef OPMFU_KNAME_H
#define OPMFU_KNAME_H

#include <stddef.h>

/*
 * name[0..n) (a text of the trace's, not NUL-terminated) shortened into out (at most size - 1 bytes, then a NUL): a leading
 * "void " dropped; each template argument list (a matched <...>) dropped,
 * keeping the outer name, except a lone identifier ("cutlass::Kernel2<
 * cutlass_80_tensorop_s1688gemm_...>": the argument is the kernel's real
 * name); each function parameter list (a matched (...)) dropped, except a
 * scope such as "(anonymous namespace)::"; then, when longer than width
 * bytes (0: no limit), cut from the right to width - 3 bytes (never inside a
 * UTF-8 character) and "...". A name without <, ( or "void " is unchanged
 * but for the cut. Returns the length of out.
 */
size_t opmfu_kernel_short(const char *name, size_t n, size_t width, char *out, size_t size);

#endif
