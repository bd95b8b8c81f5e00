/*
 * modules.h - honest module-level MFU (SPEC 10, 15: OpmfuModules): every
 * module path with all its calls together, time-weighted over the units
 * of analyze/ops.h under it (inclusive of its sub-modules, and its own
 * units apart), ordered by the time lost to peak.
 */
#ifndef OPMFU_MODULES_H
#define OPMFU_MODULES_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/ops.h"
#include "base/err.h"
#include "base/intern.h"
#include "trace/analysis.h"
#include "trace/table.h"

/* Sums over a set of units (inclusive or self). */
struct opmfu_msum {
	int64_t kernel_ns;       /* all their kernel time */
	int64_t flops_kernel_ns; /* that of units with FLOPs */
	int64_t flops;           /* saturating at INT64_MAX */
	double cap_flops;       /* kernel time x peak of units with FLOPs and a peak */
	double flops_peaked;    /* FLOPs of those */
	double cap_all;         /* cap_flops and the rest at the rank's main peak */
	double lost_ns;
	double recoverable_ns;  /* sum of opmfu_unit_recoverable_ns (SPEC 18) */
	double roofline_ns;     /* sum of opmfu_unit_roofline_ns of the units that have one */
	int64_t roofline_kernel_ns; /* their kernel time; 0: none has a roofline */
};

struct opmfu_mrow {
	uint32_t path;   /* id in paths */
	uint32_t depth;  /* 1 for a top-level module */
	size_t calls;    /* Module ranges with this path */
	int64_t first;   /* start of its first call */
	struct opmfu_msum all, self; /* everything under it; the units directly under it */
};

struct opmfu_modules {
	struct opmfu_arena ar;
	struct opmfu_intern paths; /* "A/B/C" by id */
	struct opmfu_mrow *rows;   /* by lost time, most first; ties by first call */
	size_t n_rows;
	const struct opmfu_ops *ops;
	/* Module ranges nested deeper than OPMFU_MODULE_MAX_DEPTH (20, the
	 * reference's cap) have no path of their own: their units count in
	 * their ancestor at depth 20 (its own and inclusive sums), their calls
	 * nowhere. How many ranges were cut so, and the units they held. */
	size_t modules_cut, units_folded;
};

void opmfu_modules_init(struct opmfu_modules *res);
void opmfu_modules_release(struct opmfu_modules *res);

/*
 * Places every unit of ops in its innermost module (the Module range that
 * fully contains its span; SPEC 3's rule, any depth), sets ops->v[i].module
 * and ops->paths, and sums the units up per module path. ops must outlive
 * res. Returns OPMFU_OK or OPMFU_ERR_NOMEM.
 */
enum opmfu_status opmfu_modules_run(struct opmfu_ops *ops, struct opmfu_modules *res, struct opmfu_err *err);

/* Adds unit u of ops to s. */
void opmfu_msum_add(struct opmfu_msum *s, const struct opmfu_ops *ops, const struct opmfu_unit *u);

/* MFU of a sum: FLOPs over the FLOP-bearing time's capacity (-1: none),
 * and over all its time's (mfu_all). */
double opmfu_msum_mfu(const struct opmfu_msum *s);
double opmfu_msum_mfu_all(const struct opmfu_msum *s);
/* The sum's roofline time as a cell: NULL when none of its units has one. */
struct opmfu_cell opmfu_msum_roofline_cell(const struct opmfu_msum *s);

extern const struct opmfu_table_def opmfu_modules_def;
struct opmfu_modules_table {
	const struct opmfu_modules *mods;
	int rank;
};
struct opmfu_table opmfu_modules_table(const struct opmfu_modules_table *src);

/* The registered analysis "modules" (OpmfuModules; needs "ops"). */
struct opmfu_modules_state {
	struct opmfu_modules mods;
	struct opmfu_modules_table view;
};
extern const struct opmfu_analysis opmfu_analysis_modules;

#endif
