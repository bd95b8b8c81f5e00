/*
 * shapes.h - op shapes as hotspots (SPEC 18, OpmfuShapes): the OpmfuOps
 * units of a rank summed per (op name, input shapes, input dtype list), so
 * that "aten::mm at 2 % MFU" comes with the (M, N, K) that causes it. A
 * unit's name is its first op's; its shapes and dtypes are those of its
 * longest kernel's link (on Kineto the op's, on Ascend that kernel's own).
 * Most recoverable time first.
 */
#ifndef OPMFU_SHAPES_H
#define OPMFU_SHAPES_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/ops.h"
#include "base/err.h"
#include "trace/analysis.h"
#include "trace/table.h"

struct opmfu_shape_row {
	uint32_t op_name, shapes, dtypes; /* sids; 0: none (shapes also 0 when not known) */
	uint32_t first;                   /* its first unit */
	int64_t calls, kernel_ns, flops_kernel_ns, flops;
	int64_t bytes;                    /* -1 when a unit's bytes are not known */
	double roofline_ns;               /* -1 when a unit's roofline time is not known */
	double roofline_known_ns;         /* the roofline time of the units that have one */
	int64_t roofline_kernel_ns;       /* their kernel time; 0: none has a roofline */
	double recoverable_ns, lost_ns;
	double cap_flops, flops_peaked;   /* for the MFU, as struct opmfu_hot */
	int8_t src, prec;                 /* its first unit's, for the bound */
};

struct opmfu_shapes {
	struct opmfu_shape_row *v; /* most recoverable first; ties by first unit */
	size_t n;
	double per_step_ns;        /* steps with device activity x the median step (ns); 0: no step time */
	const struct opmfu_ops *ops;
};

void opmfu_shapes_init(struct opmfu_shapes *res);
void opmfu_shapes_release(struct opmfu_shapes *res);
/* Sums ops' units; per_step_ns as above (0: none). ops must outlive res.
 * Returns OPMFU_OK or OPMFU_ERR_NOMEM. */
enum opmfu_status opmfu_shapes_run(const struct opmfu_ops *ops, double per_step_ns, struct opmfu_shapes *res,
				   struct opmfu_err *err);
/* A row's bound (opmfu_unit_bound over its sums) and MFU (-1: none). */
const char *opmfu_shape_bound(const struct opmfu_shapes *res, const struct opmfu_shape_row *r);

extern const struct opmfu_table_def opmfu_shapes_def;
struct opmfu_shapes_table {
	const struct opmfu_shapes *sh;
	int rank;
};
struct opmfu_table opmfu_shapes_table(const struct opmfu_shapes_table *src);

/* The registered analysis "shapes" (OpmfuShapes; needs "ops" and "steps"). */
struct opmfu_shapes_state {
	struct opmfu_shapes sh;
	struct opmfu_shapes_table view;
};
extern const struct opmfu_analysis opmfu_analysis_shapes;

#endif
