/*
 * peaks.h - a rank's peak FLOPS per SPEC 8 class, each with where it came
 * from: what every MFU beyond the reference's OperatorMFU divides by. The
 * policy that fills it (override > --chip > the trace's device) is
 * lib/peaks.c's; analyses only read it.
 */
#ifndef OPMFU_PEAKS_H
#define OPMFU_PEAKS_H

#include "trace/dtype.h"

struct opmfu_rank_peaks {
	double flops[OPMFU_PREC__COUNT];       /* FLOPS per enum opmfu_prec; 0: no peak for the class */
	const char *source[OPMFU_PREC__COUNT]; /* where each came from ("override (--peak)", "built-in
						  table: H100 SXM (...)", "info.json PATH (...)", or a stated
						  fallback rule); NULL: none. Owned by the filler. */
	double bw;                             /* dense peak memory bandwidth, bytes/s (SPEC 18); 0: none */
	const char *bw_source;                 /* where it came from, as source[]; NULL: none */
};

/* The peak for class p (enum opmfu_prec), 0 when p has none or is no class. */
static inline double opmfu_rank_peak(const struct opmfu_rank_peaks *pk, int p)
{
	return p >= 0 && p < OPMFU_PREC__COUNT ? pk->flops[p] : 0;
}

/* Whether any class has a peak: without one no MFU beyond OperatorMFU exists. */
static inline int opmfu_rank_any_peak(const struct opmfu_rank_peaks *pk)
{
	int p;
	for (p = 0; p < OPMFU_PREC__COUNT; p++)
		if (pk->flops[p] > 0)
			return 1;
	return 0;
}

#endif
