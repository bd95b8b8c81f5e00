/*
 * lib.h - what the pipeline's files share: one rank's work between reading
 * and writing, its peaks, and the stages the pool runs (lib/ only).
 */
#ifndef OPMFU_LIB_H
#define OPMFU_LIB_H

#include <stddef.h>

#include "analyze/module_mfu.h"
#include "analyze/op_mfu.h"
#include "base/err.h"
#include "flops/flops.h"
#include "model/trace.h"
#include "opmfu.h"
#include "read/rankdir.h"
#include "write/write_sqlite.h"
#include "write/write_xlsx.h"

struct peak_choice {
	struct opmfu_peaks pk;
	const char *src[OPMFU_NCLASS]; /* index into labels */
	char labels[3][600];
	char no_peak_why[1200];
};

/* Everything one rank needs between reading and writing. */
struct rank_work {
	struct opmfu_trace trace;
	struct opmfu_flops flops; /* the FLOPs stage's facts, which op's entries point into */
	struct opmfu_op_mfu op;
	struct opmfu_module_mfu mod;
	struct peak_choice pc;
	/* how far the analysis got (under the pool's lock): 1 kernel MFU done,
	 * so OperatorMFU can be written while 2 (everything) is still to come */
	int stage;
	int have_ops; /* trace, flops and op are valid */
	int analysed; /* trace, op and mod are valid */
	int read_threads; /* threads its reader may use: the -j that fewer ranks than workers leave idle */
	/* the writer's: the kernel workbook waiting for the rank to succeed */
	struct opmfu_xlsx_staged kernel_xlsx;
	struct opmfu_xlsx_stats xs;
};


double opmfu_now_s(void);
void opmfu_warn(const struct opmfu_opts *o, const char *msg);
/* Appends to a fixed buffer (truncating), so reports never need memory. */
void opmfu_bufcat(char *buf, size_t size, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

/* Fills pc; OPMFU_ERR_NOMEM (message in err) only if the search ran out of memory. */
enum opmfu_status opmfu_resolve_peaks(const struct opmfu_opts *o, const struct opmfu_rank_input *in,
				      struct peak_choice *pc, struct opmfu_err *err);
/* "fp16, int8 from info.json ...; fp8 from override (--peak)" */
void opmfu_peak_source_text(const struct peak_choice *pc, char *out, size_t size);

/* Stage 1 of a rank: read, peaks, FLOPs, kernel MFU. */
void opmfu_rank_analyse_ops(const struct opmfu_opts *o, const struct opmfu_rank_input *in, struct rank_work *w,
			    struct opmfu_rank_report *rr);
/* Stage 2: module MFU, and what the rank's report says. */
void opmfu_rank_analyse_modules(struct rank_work *w, struct opmfu_rank_report *rr);
void opmfu_rank_work_release(struct rank_work *w);

/* Analyses and writes every rank of list (the rank pool, lib/pool.c). */
enum opmfu_status opmfu_run_ranks(const struct opmfu_opts *o, const struct opmfu_rank_list *list,
				  struct opmfu_report *rep, struct opmfu_sqlite_out **dbp, double t0,
				  struct opmfu_err *err);

#endif
