/*
 * ops.h - honest op-level MFU (SPEC 10, 15: OpmfuOps): one unit per op
 * instance, or per FLOPs record with the op instances it covers; its FLOPs
 * over the time of all its kernels, each kernel once. A record's FLOPs
 * belong to the call as a whole, so helper kernels (casts, layout changes)
 * lower its MFU instead of each showing the whole FLOPs as their own.
 */
#ifndef OPMFU_OPS_H
#define OPMFU_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "flops/flops.h"
#include "trace/peaks.h"
#include "trace/analysis.h"
#include "trace/table.h"
#include "trace/trace.h"

#define OPMFU_UNIT_NONE UINT32_MAX
#define OPMFU_NO_STEP INT64_MIN

/* One OpmfuOps row. 64 bytes. */
struct opmfu_unit {
	int64_t start, end;  /* its op instances' span */
	int64_t kernel_ns;   /* its compute kernels' time, a kernel span counted once */
	int64_t flops;       /* 0 when src is -1 */
	int64_t bytes;       /* bytes its kernels move (struct opmfu_flops' bytes, over its distinct
				kernels), -1: none known */
	int64_t step;        /* index into t->steps of the step whose window holds its (first) op's
				start, or OPMFU_NO_STEP */
	uint32_t first_link; /* a link of its first op instance (the op name) */
	uint32_t main_link;  /* its longest kernel (the first of them) */
	uint32_t kernels;    /* distinct kernel spans */
	uint32_t module;     /* innermost module path (struct opmfu_modules), or OPMFU_UNIT_NONE */
	uint32_t fact;       /* the record fact it stands for, or OPMFU_UNIT_NONE */
	int8_t src;          /* enum opmfu_flops_src of its FLOPs, -1: none */
	int8_t prec;         /* enum opmfu_prec of its FLOPs (or of its first kernel without) */
	uint8_t pad[2];
};

/* The rank-level sums over all units (SPEC 10). Capacities are FLOPs the
 * device could have done in that kernel time at peak. */
struct opmfu_ops_stats {
	double busy_ns;       /* kernel time of all units */
	double flops_ns;      /* kernel time of units with FLOPs */
	double flops;         /* FLOPs of all units */
	double flops_src[OPMFU_FLOPS__NSRC]; /* by the source each unit took */
	double cap_flops;     /* sum of kernel time x peak over units with FLOPs and a peak */
	double flops_peaked;  /* FLOPs of those units */
	double cap_all;       /* cap_flops, plus every other unit's kernel time at main_peak */
	double main_peak;     /* FLOPS of the class with the most FLOP-bearing kernel time (fp16 without) */
	int main_prec;
	size_t n_flops;       /* units with FLOPs */
	size_t n_no_peak;     /* units with FLOPs but no peak for their class */
	size_t n_above_one;   /* units whose MFU is above 1: FLOPs or peak wrong */
	size_t rec_compared;  /* record units whose kernels also have shape FLOPs */
	size_t rec_agree;     /* of those, the ones within 1 % of the record */
	size_t recs_nested;   /* record facts whose op instances all belong to an inner record */
	double compiled_noflops_ns; /* GEMM/conv/attention kernels without FLOPs launched by a torch.compile
				       region's op (CompiledFunction, ...: no shapes), their time (SPEC 20) */
};

struct opmfu_ops {
	struct opmfu_unit *v; /* in start order, ties in the order made */
	size_t n, cap;
	uint32_t *op_unit;    /* per op instance (t->n_ops): its unit, or OPMFU_UNIT_NONE */
	struct opmfu_ops_stats st;
	const struct opmfu_trace *t;
	const struct opmfu_flops *fl;
	const struct opmfu_rank_peaks *pk;
	/* module paths by id, for the table (set by opmfu_modules_run; NULL: none) */
	const struct opmfu_intern *paths;
};

void opmfu_ops_init(struct opmfu_ops *res);
void opmfu_ops_release(struct opmfu_ops *res);

/*
 * The units of trace t from the FLOPs stage's facts fl and the rank's
 * peaks pk (all three must outlive res). res freshly initialised. Returns
 * OPMFU_OK or OPMFU_ERR_NOMEM (res then empty).
 */
enum opmfu_status opmfu_ops_run(const struct opmfu_trace *t, const struct opmfu_flops *fl,
				const struct opmfu_rank_peaks *pk, struct opmfu_ops *res, struct opmfu_err *err);

/* A unit's peak (FLOPS; 0: none) and MFU (-1: none). */
double opmfu_unit_peak(const struct opmfu_ops *res, const struct opmfu_unit *u);
double opmfu_unit_mfu(const struct opmfu_ops *res, const struct opmfu_unit *u);
/* Kernel time the unit would save at peak, ns: all of it without FLOPs or
 * peak, none with an MFU above 1. */
double opmfu_unit_lost_ns(const struct opmfu_ops *res, const struct opmfu_unit *u);
/* SPEC 18. The least time the unit could take on this chip: max(FLOPs / peak,
 * bytes / bandwidth), from what is known of the two (ns; -1: neither). Its
 * recoverable time: kernel_ns minus that, at least 0; all of kernel_ns when
 * nothing is known (as lost time). Its bound: "compute" or "memory" by the
 * chip's ridge point (peak / bandwidth) against its FLOPs per byte; "memory"
 * for work with bytes and no FLOPs; "unknown" otherwise. */
double opmfu_unit_roofline_ns(const struct opmfu_ops *res, const struct opmfu_unit *u);
double opmfu_unit_recoverable_ns(const struct opmfu_ops *res, const struct opmfu_unit *u);
const char *opmfu_unit_bound(const struct opmfu_ops *res, const struct opmfu_unit *u);

/* The index of the step range whose [start, end) holds ts, or
 * OPMFU_NO_STEP; steps in start order. */
int64_t opmfu_step_at(const struct opmfu_ranges *steps, int64_t ts);

/* OpmfuOps: one row per unit, for rank. */
extern const struct opmfu_table_def opmfu_ops_def;
/* how the database stores it (trace/table.h) */
extern const struct opmfu_store opmfu_ops_store;
struct opmfu_ops_table {
	const struct opmfu_ops *ops;
	int rank;
};
struct opmfu_table opmfu_ops_table(const struct opmfu_ops_table *src);

/* The registered analysis "ops" (OpmfuOps); its state begins with the units. */
struct opmfu_ops_state {
	struct opmfu_ops ops;
	struct opmfu_ops_table view;
};
extern const struct opmfu_analysis opmfu_analysis_ops;

#endif
