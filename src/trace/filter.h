/*
 * filter.h - `--steps` and `--time-range` (SPEC 22): what of a rank's trace
 * is kept, applied after the reader and before the FLOPs stage, so every
 * table, the run account included, describes only what is kept. Format
 * neutral: it sees struct opmfu_trace alone. The rules are in
 * docs/architecture.md ("Filters") and docs/cli.md.
 */
#ifndef OPMFU_FILTER_H
#define OPMFU_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "trace/trace.h"

/* No end: a time range open on the right. */
#define OPMFU_FILTER_OPEN INT64_MAX

struct opmfu_filter {
	/* --steps: the step numbers to keep (any order, repeats allowed); n_steps 0: no step filter */
	const int *steps;
	size_t n_steps;
	const char *steps_text; /* as the user wrote it, for messages */
	/* --time-range: [from_ns, to_ns) after the rank's first device activity; to_ns
	 * OPMFU_FILTER_OPEN: to the end. has_time 0: no time filter */
	int has_time;
	int64_t from_ns, to_ns;
	const char *time_text;
};

/* Whether f filters anything. */
int opmfu_filter_active(const struct opmfu_filter *f);

/*
 * Keeps in t only what f selects: whole op instances (every link of a kept
 * op, its kx and launch entries; op ids renumbered in order), the ranges and
 * collective calls the rules keep (a wait follows its call, whose index it
 * is renumbered to); everything else stays in order. O(n log s) for n
 * items and s steps. A rank that keeps nothing, or whose trace has no steps
 * for --steps, is OPMFU_ERR_USAGE with a message naming the option's value;
 * OPMFU_ERR_NOMEM leaves t as it was.
 */
enum opmfu_status opmfu_trace_filter(struct opmfu_trace *t, const struct opmfu_filter *f, struct opmfu_err *err);

/*
 * --time-range's text: "START:END", each a decimal number (fraction
 * allowed) with a unit ns, us, ms or s (0 needs none), START empty for 0 and END empty for
 * the end (OPMFU_FILTER_OPEN), not both; START < END, both at most 2^62 ns. Returns 0,
 * or -1 for anything else (out untouched).
 */
int opmfu_filter_parse_time(const char *s, int64_t *from_ns, int64_t *to_ns);

#endif
