/*
 * trace.h - one rank's data as read from its database, format-independent.
 * Readers fill it; map/analyze stages only read it. Strings are strtab sids.
 */
#ifndef OPMFU_TRACE_H
#define OPMFU_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "model/device.h"
#include "model/strtab.h"

/* Where a (kernel, framework op) row came from (SPEC 3.1 order). */
enum opmfu_link_src { OPMFU_SRC_COMPUTE = 0, OPMFU_SRC_COMM_OP = 1, OPMFU_SRC_COMM_SCHED = 2 };

/* One (kernel, framework op) row: the join of SPEC 1.2. 56 bytes. */
struct opmfu_link {
	int64_t k_start, k_end;   /* kernel (device task) span, ns */
	int64_t op_start, op_end; /* framework op (PYTORCH_API) span, ns */
	uint32_t k_name, op_name; /* sids */
	uint32_t in_shapes, in_dtypes, out_shapes; /* sids, 0 = NULL (compute only) */
	uint32_t seq;             /* read order, the last tie-breaker of sorts */
};

/* One mfu_flops MSTX range that parsed (SPEC 1.3). */
struct opmfu_flops_rec {
	int64_t start, end, flops;
	uint32_t msg;      /* sid of the whole message */
	uint32_t name_off; /* flops_op_name = message + name_off */
};

/* One Module MSTX range. */
struct opmfu_module_range {
	int64_t start, end;
	uint32_t name; /* sid */
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
	size_t n_compute, n_comm_op, n_comm_sched; /* links per source, in that order */
	struct opmfu_flops_rec *recs;
	size_t n_recs, cap_recs;
	struct opmfu_module_range *mods;
	size_t n_mods, cap_mods;
	size_t n_recs_read;          /* mfu_flops rows seen, parsed or not */
	size_t drops[OPMFU_DROP__COUNT]; /* read-time drops (format..range) */
	size_t n_bad_rows;           /* link/module rows skipped for junk timestamps */
	int has_mstx;                /* MSTX_EVENTS exists */
	struct opmfu_device device;  /* the chip, as the trace describes it */
};

void opmfu_trace_init(struct opmfu_trace *t);
void opmfu_trace_release(struct opmfu_trace *t);
/* Puts t->recs in start order, ties in read order (nothing to do when they
 * are). Returns 0, or -1 when out of memory (recs unchanged). */
int opmfu_trace_sort_recs(struct opmfu_trace *t);

#endif
