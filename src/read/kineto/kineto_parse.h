/*
 * kineto_parse.h - parsers of the strings only PyTorch profiler (Kineto)
 * traces hold (SPEC 13): microsecond timestamps, dtype names, ProfilerStep
 * and nn.Module event names, communication kernel names, and what a trace's
 * file name says (rank, timestamp). Pure functions: no allocation, safe on
 * any bytes (they are fuzzed through tests/fuzz/fuzz_kineto.c).
 */
#ifndef OPMFU_KINETO_PARSE_H
#define OPMFU_KINETO_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "trace/dtype.h"

/*
 * A JSON number of microseconds ("1419247333430.849", "3", "1.5e3", "-2")
 * as integer nanoseconds, exactly from its decimal text: digits past the
 * nanosecond are rounded half away from zero. Returns 0, or -1 when s is not
 * a number or the result does not fit in int64.
 */
int opmfu_kineto_us_to_ns(const char *s, size_t len, int64_t *ns);

/* A JSON integer ("17", "-3") within int64. Returns 0, or -1 otherwise
 * (fraction, exponent, junk, overflow). */
int opmfu_kineto_int(const char *s, size_t len, int64_t *out);

/*
 * The classes of an "Input type" list, its names joined with ';'
 * ("c10::BFloat16;c10::BFloat16;Scalar"): the first tensor dtype that is
 * not an index or mask type decides (SPEC 5.1, 8). Entries that are no
 * tensor ("Scalar", "ScalarList", "TensorList", "", ...) are passed over
 * like blank ones. The reference's class: float, half and bfloat16 are
 * fp16-class, int8 and quantized 8-bit int8, float8 fp8; SPEC 8's: float is
 * fp32, float4 fp4. text is the list's sid; example names the entry at
 * fault (verbatim) when no class fits.
 */
void opmfu_kineto_dtype(const char *list, size_t len, uint32_t text, struct opmfu_dtype *out);

/* "ProfilerStep#N": 1 and *n = N (at most 18 digits), else 0. */
int opmfu_kineto_step(const char *name, size_t len, int64_t *n);

#define OPMFU_KINETO_MODULE_PREFIX "nn.Module: "
#define OPMFU_KINETO_MODULE_PREFIX_LEN 11

/* "nn.Module: NAME" with a non-empty NAME: 1, else 0. */
int opmfu_kineto_is_module(const char *name, size_t len);

/* A collective's kernel: its name, after an optional "void ", starts with
 * one of the communication prefixes (any case): "nccl", "rccl", "deep_ep::",
 * "c10d::symmetric_memory::", "nvshmem", "mscclpp" (kineto_parse.c holds
 * the one list; docs/gpu-traces.md). */
int opmfu_kineto_is_comm(const char *name, size_t len);

/* The collective kind a communication kernel's family gives its name
 * beyond what its words say to opmfu_coll_kind_of: DeepEP's dispatch and
 * combine are all-to-alls (OPMFU_COLL_ALLTOALL, trace/coll.h); 0 when the
 * family says nothing. */
int opmfu_kineto_comm_kind(const char *name, size_t len);

/* A file name a trace may have: "*.json" or "*.json.gz". */
int opmfu_kineto_trace_name(const char *base);

/*
 * The rank a file name gives: the digits after the last "rank" that starts
 * the name or follows a non-letter, optionally after one '_', '-' or '.'
 * ("rank3.json", "trace_rank-12.pt.trace.json.gz"; any case). -1 when none
 * (or more than 9 digits).
 */
int opmfu_kineto_name_rank(const char *base);

/*
 * The timestamp a file name gives: torch.profiler's default handler writes
 * "{worker}.{milliseconds}.pt.trace.json": the last '.'-separated field
 * before ".pt.trace.json", ".json" (and ".gz") when it is 10 or more digits
 * and something comes before it. Returns its length (*off its offset in
 * base), or 0 when there is none.
 */
size_t opmfu_kineto_name_stamp(const char *base, size_t *off);

#endif
