/*
 * steps.h - where the step went (SPEC 11, 17, 25: OpmfuSteps): per step, a
 * window on the device timeline (windows never overlap), every ns of it in
 * one category (enum opmfu_tcat), and the waterfall: trace MFU plus the
 * shares lost to idle, exposed communication, work without FLOPs and the
 * FLOP-bearing kernels' inefficiency, which sum to 1. Device work queued
 * before profiling began is a row of its own (the backlog).
 */
#ifndef OPMFU_STEPS_H
#define OPMFU_STEPS_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/ops.h"
#include "base/err.h"
#include "trace/analysis.h"
#include "trace/table.h"

/* What a row of OpmfuSteps is (its `kind` column). */
enum opmfu_window_kind {
	OPMFU_WINDOW_STEP = 0,    /* a step */
	OPMFU_WINDOW_BACKLOG = 1, /* device work queued before profiling began, before the first step (step NULL) */
	OPMFU_WINDOW_TRACE = 2,   /* the whole trace: it has no step marks (step NULL) */
};

/* Device time by category (SPEC 17): every ns of a window in exactly one
 * of flops .. idle; comm_overlapped beside them. */
enum opmfu_tcat {
	OPMFU_T_FLOPS,       /* kernels of ops with FLOPs (and a peak, when the rank has one) */
	OPMFU_T_MATMUL,      /* GEMM, convolution or attention kernels whose FLOPs are unknown */
	OPMFU_T_MEMBOUND,    /* kernels of ops without FLOPs whose bytes are known (memory-bound work) */
	OPMFU_T_OTHER,       /* other compute */
	OPMFU_T_COMM,        /* communication under no compute (exposed) */
	OPMFU_T_COPY,        /* copies and memsets under no compute or communication */
	OPMFU_T_IDLE_HOST,   /* nothing ran, and the next work was launched after the gap began */
	OPMFU_T_IDLE,        /* nothing ran otherwise */
	OPMFU_T_COMM_OVERLAP, /* communication under compute (not one of the categories that sum to the window) */
	OPMFU_T_COMM_WAIT,    /* exposed communication while a collective's own task waits for other ranks
				 (a part of OPMFU_T_COMM; only when the trace has such tasks: res->wait_known) */
	OPMFU_T_N
};
#define OPMFU_T_NSUM OPMFU_T_COMM_OVERLAP /* the categories that add up to the window */

struct opmfu_step_row {
	int64_t step;            /* the step number; OPMFU_NO_STEP for the backlog and whole-trace rows */
	enum opmfu_window_kind kind;
	int64_t start, end;      /* the window on the device timeline (docs/glossary.md) */
	int64_t host_start, host_end; /* the step's host span (STEP_TIME, ProfilerStep#N); equal: none */
	int64_t ns[OPMFU_T_N];   /* device time by category */
	int64_t flops, flops_record, flops_shape; /* of the ops that start in the step (OpmfuOps.step) */
	double flops_peaked;     /* FLOPs of those with a peak */
	double cap;              /* their kernel time x peak (FLOPs at peak) */
	double unit_ns;          /* their kernel time */
	double mb_roof_ns;       /* ops without FLOPs with known bytes that start in the step: bytes / bandwidth */
	double mb_unit_ns;       /* their kernel time */
};

struct opmfu_steps {
	struct opmfu_step_row *v; /* the steps in step order (v[i] is t->steps.v[i]'s), then the backlog row */
	size_t n, n_steps;        /* rows; the steps among them (v[0 .. n_steps)) */
	const struct opmfu_ops *ops;
	int64_t outside_ns;       /* device time in no row's window */
	int from_device;          /* the windows are the trace's device-side step annotations */
	size_t n_spill;           /* steps whose work runs past the next step's start (a warning) */
	int64_t spill_step[4];    /* the first of them by step order */
	size_t median;            /* the median step (docs/glossary.md); SIZE_MAX: no step with activity */
	double step_ns_median;    /* its window; -1 without steps with activity */
	double trace_mfu;         /* sum FLOPs / sum (window x peak) over the steps; -1: none */
	int wait_known;           /* the trace marks its collectives' waiting (t->waits): OPMFU_T_COMM_WAIT is
				     measured; else it comes from the other ranks (analyze/collectives.h) */
	/* the exposed communication as disjoint intervals in time order (every row's and outside them),
	 * for the part of each collective that was exposed (analyze/collectives.h) */
	struct opmfu_span { int64_t start, end; } *exposed;
	size_t n_exposed, cap_exposed;
};

void opmfu_steps_init(struct opmfu_steps *res);
void opmfu_steps_release(struct opmfu_steps *res);

/* The steps of ops->t from its step ranges (or one for the whole trace),
 * and the units of ops. ops must outlive res. Returns OPMFU_OK or
 * OPMFU_ERR_NOMEM. */
enum opmfu_status opmfu_steps_run(const struct opmfu_ops *ops, struct opmfu_steps *res, struct opmfu_err *err);

/* A step's window in ns, its effective peak (FLOP-time-weighted, FLOPS; 0:
 * none), its trace MFU (-1: none) and the four shares of the waterfall
 * (idle, exposed communication, busy without FLOPs, inefficiency;
 * meaningless for an empty window, and the inefficiency without a trace
 * MFU), which sum to 1 with the trace MFU. */
int64_t opmfu_step_window(const struct opmfu_step_row *s);
double opmfu_step_peak(const struct opmfu_step_row *s);
double opmfu_step_trace_mfu(const struct opmfu_step_row *s);
void opmfu_step_shares(const struct opmfu_step_row *s, double shares[4]);
/* The share of the window in category c (-1 for an empty window). */
double opmfu_step_share(const struct opmfu_step_row *s, enum opmfu_tcat c);
/* The step's memory-bound work's bandwidth efficiency: the time its bytes need
 * at the peak bandwidth over its kernel time (-1: none). */
double opmfu_step_mb_eff(const struct opmfu_step_row *s);
/* Whether a kernel or op name names GEMM, convolution or attention work
 * (docs/glossary.md lists the words). */
int opmfu_matmul_name(const char *s, size_t n);

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
