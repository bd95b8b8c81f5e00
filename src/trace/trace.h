/*
 * trace.h - one rank's data as a reader leaves it, whatever the format:
 * (kernel, framework op) links, named time ranges by kind, and the distinct
 * input dtype lists. Readers fill it (normalising their formats' strings:
 * shapes as model/shape.h says, dtype lists parsed once each); the stages
 * after them only read it, except that the FLOPs stage sorts the FLOPs
 * ranges. Strings are strtab sids.
 */
#ifndef OPMFU_TRACE_H
#define OPMFU_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "trace/coll.h"
#include "trace/device.h"
#include "trace/dtype.h"
#include "trace/strtab.h"

/* Where a (kernel, framework op) row came from (SPEC 3.1 order). */
enum opmfu_link_src { OPMFU_SRC_COMPUTE = 0, OPMFU_SRC_COMM_OP = 1, OPMFU_SRC_COMM_SCHED = 2 };

/* One (kernel, framework op) row: the join of SPEC 1.2. 56 bytes. Ties in
 * every order of links are broken by the link's index. */
struct opmfu_link {
	int64_t k_start, k_end;   /* kernel (device task) span, ns */
	int64_t op_start, op_end; /* framework op span, ns */
	uint32_t k_name, op_name; /* sids */
	/* input shapes: a normalised shape list (model/shape.h) as a sid; 0 =
	 * none (communication rows, NULL columns); t->shape_unknown = not known */
	uint32_t in_shapes;
	uint32_t dtype;      /* input dtype list: index into t->dtypes (opmfu_trace_dtype); 0 = none */
	uint32_t out_shapes; /* as in_shapes */
	uint32_t op;         /* op instance: the links of one framework op call share it; < t->n_ops */
};

/* Kinds of named time ranges. */
enum opmfu_range_kind {
	OPMFU_RANGE_MODULE = 0, /* a module call (Ascend Module ranges, Kineto nn.Module events) */
	OPMFU_RANGE_FLOPS = 1,  /* a FLOPs record (SPEC 1.3): value = FLOPs */
	OPMFU_RANGE_STEP = 2,   /* a training step (STEP_TIME, ProfilerStep#N): value = step number */
	OPMFU_RANGE_COMM = 3,   /* communication on the device, linked to an op or not: name = its type */
	OPMFU_RANGE_KERNEL = 4, /* a compute kernel on the device that links to no framework op: name = kernel */
	OPMFU_RANGE_MEMCPY = 5, /* a copy or memset on the device: name = what the trace calls it ("Memcpy HtoD
				   (Pageable -> Device)", "Memset (Device)", an Ascend task type) */
	OPMFU_RANGE_DEVSTEP = 6, /* a step as the device timeline marks it (Kineto gpu_user_annotation
				    ProfilerStep#N): value = step number; at most one per number */
	OPMFU_RANGE_COMM_WAIT = 7, /* a collective's own task that waits for other ranks (Ascend's Notify_Wait):
				      value = the call's index in t->colls; name = the task's */
	OPMFU_RANGE__COUNT
};

/*
 * What the shape FLOPs formulas (SPEC 9) need of a compute link beyond its
 * shapes and dtypes, parallel to links[0 .. n_compute) when the reader has
 * it (t->kx non-NULL). All sids; 0: unknown. 20 bytes. The FLOPs stage is
 * its only reader: a rank frees it (t->kx NULL) once that stage has run.
 */
struct opmfu_kext {
	uint32_t type;        /* the op type the shapes describe: Ascend opType ("MatMulV2"), Kineto the
				 framework op's name ("aten::addmm") */
	uint32_t in_formats;  /* ';'-joined input tensor formats, normalised names (ND, NCHW, NC1HWC0,
				 FRACTAL_Z, FRACTAL_NZ, ...); 0: all ND */
	uint32_t out_formats; /* the same for the outputs */
	uint32_t attrs;       /* attributes, entries separated by OPMFU_ATTR_SEP: "key=value" is named
				 (Ascend: "sparse_mode=3"), anything else is the next positional value
				 (Kineto's Concrete Inputs, in order; an empty entry is a tensor) */
	uint32_t out_dtypes;  /* ';'-joined output dtypes as the trace names them (Ascend outputDataTypes), for
				 the bytes of SPEC 18; 0: not given (Kineto: outputs are inferred) */
};
#define OPMFU_ATTR_SEP '\x1f'

/* Whose shapes the links carry. */
enum opmfu_shape_scope {
	OPMFU_SHAPES_KERNEL = 0, /* each kernel's own (Ascend COMPUTE_TASK_INFO): FLOPs per kernel */
	OPMFU_SHAPES_OP = 1,     /* the framework op's, the same on every link of an op instance (Kineto):
				    FLOPs per op instance */
};

/*
 * The host time a piece of device work was launched at (SPEC 17: a gap on
 * the device whose next work was launched after the gap began is the host's
 * fault), or OPMFU_NO_LAUNCH: the trace has no launch for it (Kineto: no
 * runtime call with its correlation id; such work that runs before the
 * first step is the backlog queued before profiling began).
 */
#define OPMFU_NO_LAUNCH INT64_MIN

/* One named time range. 32 bytes. For KERNEL, COMM and MEMCPY ranges value
 * is the launch time (OPMFU_NO_LAUNCH: none in the trace). */
struct opmfu_range {
	int64_t start, end; /* ns */
	int64_t value;      /* by kind; 0 for modules */
	uint32_t name;      /* sid of the text that holds the name */
	uint32_t name_off;  /* the name starts this many bytes into it (a record's: after "<FLOPs>-") */
};

/* The ranges of one kind, in the reader's order unless sorted. */
struct opmfu_ranges {
	struct opmfu_range *v;
	size_t n, cap;
};

/* Why a FLOPs record was dropped; counted per rank and reported. */
enum opmfu_drop {
	OPMFU_DROP_FORMAT,    /* message does not match <number>-<name> */
	OPMFU_DROP_ZERO,      /* FLOPs is 0 (after rounding) */
	OPMFU_DROP_OVERFLOW,  /* FLOPs does not fit in int64 */
	OPMFU_DROP_RANGE,     /* endNs <= startNs, or NULL/junk timestamps */
	OPMFU_DROP_NO_KERNEL, /* no framework op with a shaped kernel inside */
	OPMFU_DROP_DURATION,  /* kernels inside have no positive total duration */
	OPMFU_DROP_DTYPE,     /* no supported input dtype (SPEC 5.1) */
	OPMFU_DROP_NO_PEAK,   /* no peak for the record's dtype class */
	OPMFU_DROP__COUNT
};

/* Short reason names for summaries ("bad message", ...). */
const char *opmfu_drop_name(enum opmfu_drop why);

struct opmfu_trace {
	struct opmfu_strtab strs;
	struct opmfu_link *links; /* compute kernels first, then comm sources */
	size_t n_links, cap_links;
	struct opmfu_kext *kx;    /* [n_compute] or NULL (struct opmfu_kext) */
	enum opmfu_shape_scope shape_scope;
	int shape_only;           /* the format never carries FLOPs records (Kineto): OperatorMFU charges
				     the shape FLOPs instead */
	int ref_classes;          /* OperatorMFU divides by the peak of the reference's dtype class
				     (FLOAT at the fp16 rate, SPEC 2.4): the Ascend reader sets it,
				     since the reference reads that format; 0 (every other format):
				     the peak of the kernel's SPEC 8 class (SPEC 16) */
	size_t n_compute, n_comm_op, n_comm_sched; /* links per source, in that order */
	int comm_from_tasks;      /* the COMM ranges alone are the communication on the device timeline, the
				     comm links' spans taking no part. No reader sets it today: on the real
				     Ascend exports torch_npu counts each collective's whole span (the gaps
				     between its tasks included), and opmfu agrees with it */
	size_t n_ops;             /* op instance ids in use (0 .. n_ops - 1) */
	uint32_t shape_unknown;   /* the sid links carry for shapes not known (init: matches none) */
	struct opmfu_dtype *dtypes; /* [0] is "no list"; see opmfu_trace_dtype */
	size_t n_dtypes, cap_dtypes;
	/* named ranges by kind (opmfu_trace_ranges) */
	struct opmfu_ranges mods, recs, steps, comm, kernels, memcpy, devsteps, waits;
	/* the collective calls (SPEC 19), one per call whatever its kernels or tasks; empty when the
	 * reader does not tell them apart */
	struct opmfu_colls colls;
	/* launch[i]: when link i's kernel was launched (host ns; OPMFU_NO_LAUNCH:
	 * unknown), for all n_links; NULL: the reader has no launch times, and
	 * the op's start stands in (an op starts before it launches its kernels) */
	int64_t *launch;
	size_t n_recs_read;          /* FLOPs records seen, parsed or not */
	size_t drops[OPMFU_DROP__COUNT]; /* read-time drops (format..range) */
	size_t n_bad_rows;           /* link/module rows skipped for junk timestamps */
	size_t n_clamped;            /* rows with a time beyond +-OPMFU_TIME_LIMIT (clamped to it) or a
					FLOPs record above OPMFU_FLOPS_LIMIT (kept): opmfu_trace_clamp */
	/* the reader's words for what the trace lacks, for the summary (static
	 * strings; NULL: the model's plain words) */
	const char *why_no_links;   /* no compute kernel links to a framework op */
	const char *why_no_records; /* no FLOPs records */
	/* what the reader tells about its input beyond the links, one line for
	 * the summary (Kineto: kernels linked by each rule, modules, steps,
	 * GPU); empty: nothing */
	char note[400];
	/* the rank the trace itself names (Kineto's distributedInfo, read wherever it is in the
	 * file); -1: none. The pool takes it for a rank its probe could not number (SPEC 20). */
	int64_t dist_rank;
	struct opmfu_device device;  /* the chip, as the trace describes it */
};

void opmfu_trace_init(struct opmfu_trace *t);
void opmfu_trace_release(struct opmfu_trace *t);

/* The ranges of kind k. */
struct opmfu_ranges *opmfu_trace_ranges(struct opmfu_trace *t, enum opmfu_range_kind k);
/* Appends r; returns 0, or -1 when out of memory (nothing added). */
int opmfu_ranges_add(struct opmfu_ranges *rs, const struct opmfu_range *r);
/*
 * SPEC 26: clamps every link's and range's times to +-OPMFU_TIME_LIMIT
 * (base/sat.h), so that any difference of two fits in int64, and adds to
 * t->n_clamped the rows that changed and the FLOPs records above
 * OPMFU_FLOPS_LIMIT. Idempotent: a second call counts nothing more, except
 * that the FLOPs records are counted by opmfu_trace_clamp alone (call it once,
 * after reading; opmfu_trace_clamp_links may come before it).
 */
void opmfu_trace_clamp_links(struct opmfu_trace *t);
void opmfu_trace_clamp(struct opmfu_trace *t);

/* Puts them in start order, ties in their order (nothing to do when they
 * are). Returns 0, or -1 when out of memory (order unchanged). */
int opmfu_ranges_sort(struct opmfu_ranges *rs);
void opmfu_ranges_release(struct opmfu_ranges *rs);

/* The dtype list of a link's dtype index; 0 (and any index out of range)
 * gives the "no list" entry: class fp16 by the reference's rule, none by
 * SPEC 8's. */
const struct opmfu_dtype *opmfu_trace_dtype(const struct opmfu_trace *t, uint32_t idx);
/* Appends d to the dtype table and sets *idx to its index (>= 1). Returns
 * 0, or -1 when out of memory or the table is full. */
int opmfu_trace_add_dtype(struct opmfu_trace *t, const struct opmfu_dtype *d, uint32_t *idx);

/*
 * TF32 by kernel name (SPEC 20, docs/gpu-traces.md): every compute link of
 * an op instance with a kernel that opmfu_kernel_runs_tf32 names, and whose
 * dtype class is fp32, gets a copy of its dtype entry of class tf32 (the
 * text and the reference's class unchanged). Returns the links changed, or
 * -1 when out of memory (then some links may have changed, consistently
 * per op instance).
 */
long opmfu_trace_tf32(struct opmfu_trace *t);

/*
 * The compute links in (op start, kernel start, index) order (SPEC 2's R)
 * into out[0 .. t->n_compute). Returns 0, or -1 when out of memory.
 */
int opmfu_trace_op_order(const struct opmfu_trace *t, uint32_t *out);

/*
 * The compute links grouped by op instance, in index order within each: op
 * o's are ord[off[o] .. off[o + 1]). *off_out (t->n_ops + 1 entries) and
 * *ord_out are allocated here and owned by the caller. Returns 0, or -1 when
 * out of memory (nothing allocated).
 */
int opmfu_trace_group_by_op(const struct opmfu_trace *t, uint32_t **off_out, uint32_t **ord_out);

#endif
