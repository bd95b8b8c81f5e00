/*
 * flops.h - the FLOPs stage (SPEC 9), between reading and analysis: FLOPs
 * facts, "these FLOPs belong to these kernels", attached to a trace's links
 * by registered sources (flops.c). The first source is `record` (SPEC 2
 * steps 2-3, flops_records.c): each FLOPs range covers the op instances
 * that start inside it. The stage knows the model only: no format, no peaks.
 */
#ifndef OPMFU_FLOPS_H
#define OPMFU_FLOPS_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "trace/trace.h"

/* Where a fact's FLOPs come from; also the sources' order in the stage. */
enum opmfu_flops_src {
	OPMFU_FLOPS_RECORD = 0, /* a FLOPs range of the trace (torch_npu mfu_flops) */
	OPMFU_FLOPS_SHAPE = 1,  /* derived from shapes (flops_shape.c): ref = enum opmfu_flops_family */
	OPMFU_FLOPS__NSRC
};

/* "record", "shape" (SPEC 9's flops_source values). */
const char *opmfu_flops_src_name(enum opmfu_flops_src src);

/* One FLOPs fact. 32 bytes. */
struct opmfu_flops_fact {
	int64_t flops;
	uint32_t name, name_off; /* the FLOPs' op name (flops_op_name): sid, and where in it it starts */
	uint32_t first, n;       /* the kernels it covers: links fl->cover[first .. first + n), n >= 1 */
	uint32_t src;            /* enum opmfu_flops_src */
	uint32_t ref;            /* the source's: for `record`, the index into t->recs */
};

/*
 * The stage's result for one trace. Facts come by source, in source order;
 * a `record` fact covers the S rows (compute links with known shapes) whose
 * op start lies in the record, in S order, later duplicates of a (kernel
 * start, kernel end) pair left out: the kernels SPEC 2 charges with its
 * FLOPs. The op instances a fact covers are those links' op ids.
 */
struct opmfu_flops {
	struct opmfu_flops_fact *facts;
	size_t n_facts, cap_facts;
	uint32_t *cover;                 /* link indexes, one slice per fact */
	size_t n_cover, cap_cover;
	size_t drops[OPMFU_DROP__COUNT]; /* FLOPs ranges that gave no fact (no kernel inside) */
	size_t shape_failed;             /* calls of a type with a formula whose shapes did not fit it */
	/* bytes[i] (i < t->n_compute; NULL: none known): the bytes compute link i's work must move to
	 * and from device memory (SPEC 18, docs/roofline.md), -1 unknown. Shapes of the op (Kineto):
	 * the op instance's bytes on its first link by index, 0 on its others; of the kernel
	 * (Ascend): each kernel's own. */
	int64_t *bytes;
	/* from opmfu_flops_prepare until the run: each source's link-only work */
	void *state[OPMFU_FLOPS__NSRC];
	int prepared;
};

void opmfu_flops_init(struct opmfu_flops *fl);
void opmfu_flops_release(struct opmfu_flops *fl);

/*
 * The part of the stage that needs only the links (t's links complete, its
 * ranges maybe still being read), so that it can overlap the reading.
 * Optional: the run does it when it was not done. by_op: the compute links
 * in (op start, kernel start, index) order (opmfu_trace_op_order, SPEC 2's
 * R), n_by_op == t->n_compute; NULL to have it made here. Returns OPMFU_OK,
 * or OPMFU_ERR_NOMEM (nothing is kept).
 */
enum opmfu_status opmfu_flops_prepare(struct opmfu_flops *fl, const struct opmfu_trace *t, const uint32_t *by_op,
				      size_t n_by_op, struct opmfu_err *err);

/*
 * Runs every source on t (fl initialised, or prepared on the same t): puts
 * t's FLOPs ranges in start order (nothing to do when the reader did), then
 * appends each source's facts. by_op as for prepare. Returns OPMFU_OK, or
 * OPMFU_ERR_NOMEM.
 */
enum opmfu_status opmfu_flops_run(struct opmfu_flops *fl, struct opmfu_trace *t, const uint32_t *by_op,
				  size_t n_by_op, struct opmfu_err *err);

/* Fills fl->bytes from t's shapes and dtypes (flops/bytes.c, docs/roofline.md); the run calls it
 * last. Returns 0, or -1 when out of memory (fl->bytes then NULL). */
int opmfu_flops_bytes(struct opmfu_flops *fl, const struct opmfu_trace *t);

/* ---- for sources ---- */

/* A FLOPs source: one file, one entry in flops.c's table. */
struct opmfu_flops_source {
	enum opmfu_flops_src src;
	/* Link-only work, which may run while the ranges are still being read
	 * (NULL: none): its result in *state. Returns 0, or -1 when out of
	 * memory (*state then NULL). */
	int (*prepare)(const struct opmfu_trace *t, const uint32_t *by_op, size_t n_by_op, void **state);
	/* Appends the source's facts (opmfu_flops_room, opmfu_flops_add);
	 * state is prepare's. Returns 0, or -1 when out of memory. */
	int (*run)(struct opmfu_flops *fl, const struct opmfu_trace *t, void *state);
	void (*free_state)(void *state); /* NULL when there is no state */
};

extern const struct opmfu_flops_source opmfu_flops_records, opmfu_flops_shape;

/* Room for n more covered links at fl->cover + fl->n_cover, for the next
 * fact; NULL when out of memory (or past 2^32 - 2 of them). */
uint32_t *opmfu_flops_room(struct opmfu_flops *fl, size_t n);

/* Appends f, covering the n links just written into the room (f->first and
 * f->n are set here; n >= 1). Returns 0, or -1 when out of memory. */
int opmfu_flops_add(struct opmfu_flops *fl, struct opmfu_flops_fact *f, size_t n);

#endif
