/*
 * steps.h - where the step went (SPEC 11, 15: OpmfuSteps): per step, the
 * union of the device's intervals split into compute with FLOPs, other
 * compute, exposed and overlapped communication, and idle time, and the
 * waterfall: trace MFU plus the shares lost to idle, exposed
 * communication, compute without FLOPs and the FLOP-bearing kernels'
 * inefficiency, which sum to 1.
 */
#ifndef OPMFU_STEPS_H
#define OPMFU_STEPS_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/ops.h"
#include "base/err.h"
#include "trace/analysis.h"
#include "trace/table.h"

struct opmfu_step_row {
	int64_t step;            /* the step number; OPMFU_NO_STEP: the whole trace (no step marks) */
	int64_t start, end;      /* first to last device activity of the step */
	int64_t flops_ns;        /* union of the kernels of ops with FLOPs (and a peak, when the rank has one) */
	int64_t other_ns;        /* other compute, not under FLOP compute */
	int64_t comm_exposed_ns; /* communication under no compute */
	int64_t comm_overlapped_ns;
	int64_t idle_ns;
	int64_t flops, flops_record, flops_shape; /* of the ops that start in the step (OpmfuOps.step) */
	double flops_peaked;     /* FLOPs of those with a peak */
	double cap;              /* their kernel time x peak (FLOPs at peak) */
	double unit_ns;          /* their kernel time */
};

struct opmfu_steps {
	struct opmfu_step_row *v; /* in step order */
	size_t n;
	const struct opmfu_ops *ops;
	int64_t outside_ns;       /* device time that starts in no step's window (with step marks) */
	size_t median;            /* the median step (docs/glossary.md); SIZE_MAX: no step with activity */
	double step_ns_median;    /* its window; -1 without steps with activity */
	double trace_mfu;         /* sum FLOPs / sum (window x peak) over the steps; -1: none */
};

void opmfu_steps_init(struct opmfu_steps *res);
void opmfu_steps_release(struct opmfu_steps *res);

/* The steps of ops->t from its step ranges (or one for the whole trace),
 * and the units of ops. ops must outlive res. Returns OPMFU_OK or
 * OPMFU_ERR_NOMEM. */
enum opmfu_status opmfu_steps_run(const struct opmfu_ops *ops, struct opmfu_steps *res, struct opmfu_err *err);

/* A step's window in ns, its effective peak (FLOP-time-weighted, FLOPS; 0:
 * none), its trace MFU (-1: none) and the four shares of the waterfall
 * (idle, exposed communication, other compute, inefficiency; meaningless
 * for an empty window, and the inefficiency without a trace MFU). */
int64_t opmfu_step_window(const struct opmfu_step_row *s);
double opmfu_step_peak(const struct opmfu_step_row *s);
double opmfu_step_trace_mfu(const struct opmfu_step_row *s);
void opmfu_step_shares(const struct opmfu_step_row *s, double shares[4]);

extern const struct opmfu_table_def opmfu_steps_def;
struct opmfu_steps_table {
	const struct opmfu_steps *steps;
	int rank;
};
struct opmfu_table opmfu_steps_table(const struct opmfu_steps_table *src);

/* The registered analysis "steps" (OpmfuSteps; needs "ops"). */
struct opmfu_steps_state {
	struct opmfu_steps steps;
	struct opmfu_steps_table view;
};
extern const struct opmfu_analysis opmfu_analysis_steps;

#endif
