/*
 * op_mfu.h - kernel-level MFU (SPEC 2 steps 4-6): the FLOPs stage's facts
 * charged to the kernels they cover, per kernel key, in OperatorMFU order.
 */
#ifndef OPMFU_OP_MFU_H
#define OPMFU_OP_MFU_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "flops/flops.h"
#include "trace/dtype.h"
#include "trace/peaks.h"
#include "trace/trace.h"

#define OPMFU_NO_ENTRY UINT32_MAX

/* One element of M: a kernel charged with one fact's FLOPs. 16 bytes: its
 * throughput and MFU are worked out when read (opmfu_op_mfu_tput, _mfu),
 * from the fact's FLOPs and the link's duration, as they were charged. */
struct opmfu_mfu_entry {
	uint32_t link;   /* the covered link (index into trace links) */
	uint32_t fact;   /* index into the FLOPs stage's facts (opmfu_op_mfu_fact) */
	uint32_t next;   /* next entry with the same kernel key, or OPMFU_NO_ENTRY */
	uint32_t prec;   /* the class (enum opmfu_prec) whose peak it is charged at */
};

/* Counts of one run, for the summary. */
struct opmfu_op_mfu_stats {
	size_t used[OPMFU_FLOPS__NSRC];  /* facts that gave at least one entry, by source */
	size_t drops[OPMFU_DROP__COUNT]; /* facts that gave none: duration .. no peak */
	size_t kernels_with_mfu;         /* distinct kernel keys with an entry */
	size_t rows;                     /* OperatorMFU rows (the writers size their output by it) */
	size_t rows_above_one;           /* of those, rows whose MFU (4 decimals) is above 1 */
	char bad_dtype[48];              /* an example unsupported dtype (or dtype list) */
	/* FLOPs of the used facts (each once) and the sum of their kernels'
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
	const struct opmfu_flops *fl; /* the facts m points into (the run's; borrowed) */
	const struct opmfu_trace *t;  /* the links m points into (borrowed) */
	double peak[OPMFU_PREC__COUNT]; /* the rank's FLOPS by class, as charged */
	struct opmfu_op_mfu_stats stats;
	/* from opmfu_op_mfu_prepare until the run is done: the kernel-key
	 * number of every link (non-NULL only once prepared) */
	uint32_t *key;
	size_t n_keys;
};

void opmfu_op_mfu_init(struct opmfu_op_mfu *res);
void opmfu_op_mfu_release(struct opmfu_op_mfu *res);
/* Frees R, the entries and the links' first entries, keeping the stats: for
 * a rank whose readers of them are done (trace/analysis.h, stage OPS). */
void opmfu_op_mfu_drop_entries(struct opmfu_op_mfu *res);

/*
 * The part of the run that needs only the links (R, kernel keys), so that
 * it can run before the FLOPs ranges are read (res freshly initialised; t's
 * links complete and left as they are). R is then res->r, which the FLOPs
 * stage can take as its by_op. Optional: run does it when it was not done.
 * Returns OPMFU_OK or OPMFU_ERR_NOMEM.
 */
enum opmfu_status opmfu_op_mfu_prepare(const struct opmfu_trace *t, struct opmfu_op_mfu *res,
				       struct opmfu_err *err);

/*
 * Computes M (the facts OperatorMFU charges, in fl's order: records, or
 * shape facts for a format without records (t->shape_only); each one's
 * kernels in its cover order)
 * and the OperatorMFU row order for trace t from the FLOPs stage's result
 * fl, which must outlive res. peaks gives the rank's FLOPS per SPEC 8 class.
 * Each fact's peak is that of its first kernel's class: the reference's
 * class (FLOAT, FLOAT16, BF16: fp16; INT8; FP8) when t->ref_classes (the
 * Ascend reader's traces), otherwise the kernel's SPEC 8 class (fp32, tf32,
 * fp16, fp8, int8, fp4), the one OpmfuOps uses (SPEC 16). A fact whose
 * class is unsupported, or (SPEC 8's rule) none, is counted in
 * OPMFU_DROP_DTYPE; one whose class has no peak in OPMFU_DROP_NO_PEAK.
 * Returns OPMFU_OK or OPMFU_ERR_NOMEM.
 */
enum opmfu_status opmfu_op_mfu_run(const struct opmfu_trace *t, const struct opmfu_flops *fl,
				   const struct opmfu_rank_peaks *peaks, struct opmfu_op_mfu *res,
				   struct opmfu_err *err);

/* First entry (index into res->m) for the kernel key of link, or OPMFU_NO_ENTRY. */
uint32_t opmfu_op_mfu_first(const struct opmfu_op_mfu *res, const struct opmfu_trace *t,
			    const struct opmfu_link *link);

/* The fact entry m charges: its FLOPs and their op name. */
static inline const struct opmfu_flops_fact *opmfu_op_mfu_fact(const struct opmfu_op_mfu *res,
							       const struct opmfu_mfu_entry *m)
{
	return &res->fl->facts[m->fact];
}

/* The peak FLOPS entry m is charged at. */
static inline double opmfu_op_mfu_peak(const struct opmfu_op_mfu *res, const struct opmfu_mfu_entry *m)
{
	return res->peak[m->prec];
}

/* Its achieved FLOPS: FLOPs / (duration x 1e-9), in this order (the reference's). */
static inline double opmfu_op_mfu_tput(const struct opmfu_op_mfu *res, const struct opmfu_mfu_entry *m)
{
	const struct opmfu_link *l = &res->t->links[m->link];
	int64_t dur = l->k_end - l->k_start;
	return (double)opmfu_op_mfu_fact(res, m)->flops / ((double)dur * 1e-9);
}

/* Its MFU, the unrounded ratio of the two. */
static inline double opmfu_op_mfu_mfu(const struct opmfu_op_mfu *res, const struct opmfu_mfu_entry *m)
{
	return opmfu_op_mfu_tput(res, m) / opmfu_op_mfu_peak(res, m);
}

#endif
