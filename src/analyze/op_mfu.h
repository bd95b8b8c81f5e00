/*
 * op_mfu.h - kernel-level MFU (SPEC 2): FLOPs records mapped onto the
 * kernels of the framework ops that start inside them.
 */
#ifndef OPMFU_OP_MFU_H
#define OPMFU_OP_MFU_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "model/parse.h"
#include "model/trace.h"

#define OPMFU_NO_ENTRY UINT32_MAX

/* One element of M: a kernel charged with one record's FLOPs. 40 bytes. */
struct opmfu_mfu_entry {
	double mfu;      /* unrounded ratio */
	double tput;     /* achieved FLOPS: flops / (duration_ns * 1e-9) */
	double peak;     /* FLOPS used */
	uint32_t link;   /* the S row (index into trace links) */
	uint32_t rec;    /* index into trace recs (sorted by start) */
	uint32_t next;   /* next entry with the same kernel key, or OPMFU_NO_ENTRY */
};

/* Per-class peaks of a rank, FLOPS; 0 = unknown. */
struct opmfu_peaks {
	double flops[OPMFU_DT__COUNT];
};

/* Counts of one record-mapping pass, for the summary. */
struct opmfu_op_mfu_stats {
	size_t recs_used;                /* records that gave at least one entry */
	size_t drops[OPMFU_DROP__COUNT]; /* analysis-time drops (no kernel .. no peak) */
	size_t kernels_with_mfu;         /* distinct kernel keys with an entry */
	size_t rows;                     /* OperatorMFU rows (the writers size their output by it) */
	char bad_dtype[48];              /* an example unsupported dtype */
	/* FLOPs of the used records (each once) and the sum of their kernels'
	 * time x peak: their ratio is the MFU of the recorded ops. */
	double sum_flops, sum_capacity;
};

struct opmfu_op_mfu {
	uint32_t *r;   /* R: compute link indices in output order */
	size_t n_r;
	struct opmfu_mfu_entry *m;
	size_t n_m, cap_m;
	uint32_t *first; /* by link index (all sources): first entry of the link's kernel key */
	size_t n_first;
	struct opmfu_op_mfu_stats stats;
	/* from opmfu_op_mfu_prepare until the run is done: S, its op starts,
	 * and the kernel-key number of every link (key: non-NULL only once
	 * prepared) */
	uint32_t *s, *key;
	int64_t *s_start;
	size_t n_s, n_keys;
};

void opmfu_op_mfu_init(struct opmfu_op_mfu *res);
void opmfu_op_mfu_release(struct opmfu_op_mfu *res);

/*
 * The part of the run that needs only the links (R, S, kernel keys), so
 * that it can run before the FLOPs records are read (res freshly
 * initialised; t's links complete and left as they are). Optional: run does
 * it when it was not done. Returns OPMFU_OK or OPMFU_ERR_NOMEM.
 */
enum opmfu_status opmfu_op_mfu_prepare(const struct opmfu_trace *t, struct opmfu_op_mfu *res,
				       struct opmfu_err *err);

/*
 * Computes M and the OperatorMFU row order for trace t (which this sorts:
 * t->recs by start time). peaks gives the FLOPS per dtype class.
 * Returns OPMFU_OK or OPMFU_ERR_NOMEM.
 */
enum opmfu_status opmfu_op_mfu_run(struct opmfu_trace *t, const struct opmfu_peaks *peaks,
				   struct opmfu_op_mfu *res, struct opmfu_err *err);

/* First entry (index into res->m) for the kernel key of link, or OPMFU_NO_ENTRY. */
uint32_t opmfu_op_mfu_first(const struct opmfu_op_mfu *res, const struct opmfu_trace *t,
			    const struct opmfu_link *link);

#endif
