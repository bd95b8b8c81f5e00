/*
 * shape_flops.h - FLOPs of one call from its shapes (SPEC 9): the matmul,
 * attention and convolution families, for Ascend kernels (opType, formats,
 * attributes) and framework ops (aten names, Input Dims, Concrete Inputs)
 * alike. A multiply-add is 2 FLOPs; only the matrix or attention body
 * counts. Pure functions over texts: no allocation, safe on any bytes.
 * docs/flops.md has the table of types, formulas and layouts.
 */
#ifndef OPMFU_SHAPE_FLOPS_H
#define OPMFU_SHAPE_FLOPS_H

#include <stddef.h>
#include <stdint.h>

/* A text that need not be NUL-terminated; s NULL: absent. */
struct opmfu_text {
	const char *s;
	size_t n;
};

/* One call as a trace describes it (struct opmfu_link + struct opmfu_kext). */
struct opmfu_shape_call {
	struct opmfu_text type;        /* "MatMulV2", "FlashAttentionScoreGrad", "aten::addmm" */
	struct opmfu_text in_shapes;   /* normalised shape list (model/shape.h); absent: unknown */
	struct opmfu_text out_shapes;  /* the same for the outputs; may be absent */
	struct opmfu_text in_formats;  /* ';'-joined, one per input tensor ("NC1HWC0;FRACTAL_Z;NCHW");
					  absent or a missing entry: ND */
	struct opmfu_text out_formats;
	struct opmfu_text attrs;       /* entries separated by OPMFU_ATTR_SEP (model/trace.h): "key=value"
					  named, anything else the next positional value */
};

enum opmfu_flops_family {
	OPMFU_FAM_NONE = 0,  /* no formula for this type: no FLOPs fact */
	OPMFU_FAM_MATMUL,
	OPMFU_FAM_ATTENTION,
	OPMFU_FAM_CONV,
	OPMFU_FAM__COUNT
};

/* "none", "matmul", "attention", "conv" */
const char *opmfu_flops_family_name(enum opmfu_flops_family f);

/* The family a type belongs to (whether or not its shapes will do). */
enum opmfu_flops_family opmfu_shape_family(struct opmfu_text type);

enum opmfu_shape_status {
	OPMFU_SHAPE_OK = 0,       /* *flops set (may be 0 for an empty tensor) */
	OPMFU_SHAPE_NO_FORMULA,   /* the type has no formula */
	OPMFU_SHAPE_UNKNOWN,      /* shapes absent or not a shape list */
	OPMFU_SHAPE_MISMATCH,     /* shapes that do not fit the formula (ranks, K that disagree, ...) */
	OPMFU_SHAPE_OVERFLOW,     /* the FLOPs do not fit in int64 */
	OPMFU_SHAPE_NO_ATTR,      /* an attribute the formula needs is absent or unreadable (a convolution's
				     stride, a TND attention's sequence lengths, an is_causal that is no bool) */
	OPMFU_SHAPE__COUNT
};

/* "ok", "no formula", "unknown shapes", "shape mismatch", "overflow", "no attribute" */
const char *opmfu_shape_status_name(enum opmfu_shape_status st);

/* The FLOPs of c: *flops >= 0 when OPMFU_SHAPE_OK, else 0. c's texts may
 * hold any bytes. Uses about 40 KiB of stack. */
enum opmfu_shape_status opmfu_shape_flops(const struct opmfu_shape_call *c, int64_t *flops);

/* The same for a caller that already knows c->type's family (fam, as
 * opmfu_shape_family gives it): a trace's calls have few distinct types. */
enum opmfu_shape_status opmfu_shape_flops_fam(const struct opmfu_shape_call *c, enum opmfu_flops_family fam,
					      int64_t *flops);

/* A type with no formula whose attrs carry kernel_flop=N (N > 0, Inductor's
 * count for a Triton kernel, docs/flops.md): 1 and *flops = N; else 0. */
int opmfu_kernel_flop(struct opmfu_text attrs, int64_t *flops);

/*
 * The bytes c must move to and from device memory (SPEC 18, docs/roofline.md,
 * flops/bytes.c), or -1 when its shapes or dtypes do not say. in_dtypes and
 * out_dtypes: ';'-joined dtype names, one per tensor of in_shapes and
 * out_shapes (absent: unknown; outputs then take their inputs'). op_scope:
 * c is a framework op whose in_shapes are its arguments (Kineto: outputs
 * inferred from the op's semantics); else a kernel with inputs and outputs.
 */
int64_t opmfu_shape_bytes(const struct opmfu_shape_call *c, struct opmfu_text in_dtypes, struct opmfu_text out_dtypes,
			  int op_scope);

#endif
