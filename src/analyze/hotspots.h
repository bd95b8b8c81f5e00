/*
 * hotspots.h - where the lost time is, by name (SPEC 11, issue 20): the
 * OpmfuOps units summed per op name (OpmfuOpTypes) and the compute kernels
 * summed per kernel name (OpmfuKernels), each with its time, count, FLOPs,
 * MFU and lost time (a kernel gets its op's lost time in proportion to its
 * share of the op's kernel time). Most lost time first.
 */
#ifndef OPMFU_HOTSPOTS_H
#define OPMFU_HOTSPOTS_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/ops.h"
#include "base/err.h"
#include "trace/analysis.h"
#include "trace/table.h"

struct opmfu_hot {
	uint32_t name;           /* sid */
	uint32_t pad;
	int64_t count;           /* units, or kernel links */
	int64_t kernel_ns, flops_kernel_ns, flops;
	double cap_flops;        /* kernel time x peak of those with FLOPs and a peak */
	double flops_peaked;
	double lost_ns;
	double recoverable_ns;   /* opmfu_unit_recoverable_ns, shared as lost_ns */
	double roofline_ns;      /* opmfu_unit_roofline_ns of the units that have one, shared as lost_ns */
	int64_t roofline_kernel_ns; /* their kernel time; 0: none has a roofline */
};

struct opmfu_hotspots {
	struct opmfu_hot *ops, *kernels; /* most lost first; ties by name's first appearance */
	size_t n_ops, n_kernels;
	const struct opmfu_ops *src;
};

void opmfu_hotspots_init(struct opmfu_hotspots *res);
void opmfu_hotspots_release(struct opmfu_hotspots *res);
/* ops (and its trace) must outlive res. Returns OPMFU_OK or OPMFU_ERR_NOMEM. */
enum opmfu_status opmfu_hotspots_run(const struct opmfu_ops *ops, struct opmfu_hotspots *res, struct opmfu_err *err);

/* MFU of a sum (-1: none). */
double opmfu_hot_mfu(const struct opmfu_hot *h);

extern const struct opmfu_table_def opmfu_op_types_def, opmfu_kernels_def;
struct opmfu_hotspots_table {
	const struct opmfu_hotspots *hot;
	int rank;
};
struct opmfu_table opmfu_op_types_table(const struct opmfu_hotspots_table *src);
struct opmfu_table opmfu_kernels_table(const struct opmfu_hotspots_table *src);

/* The registered analysis "hotspots" (OpmfuOpTypes, OpmfuKernels; needs "ops"). */
struct opmfu_hotspots_state {
	struct opmfu_hotspots hot;
	struct opmfu_hotspots_table view;
};
extern const struct opmfu_analysis opmfu_analysis_hotspots;

#endif
