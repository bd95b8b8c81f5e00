/*
 * t_sat.c - base/sat.h (SPEC 26): saturating sums and differences at both
 * ends of int64, the time clamp, and rounding of doubles beyond int64; and
 * opmfu_trace_clamp counting each changed row once.
 */
#include <math.h>
#include <stdint.h>

#include "base/sat.h"
#include "check.h"
#include "trace/trace.h"

static void arith(void)
{
	CHECK_INT(opmfu_sat_add(INT64_MAX, INT64_MAX), INT64_MAX);
	CHECK_INT(opmfu_sat_add(INT64_MAX - 5, 5), INT64_MAX);
	CHECK_INT(opmfu_sat_add(INT64_MAX - 5, 4), INT64_MAX - 1);
	CHECK_INT(opmfu_sat_add(INT64_MIN, 0), INT64_MIN);
	CHECK_INT(opmfu_sat_sum(INT64_MIN, -1), INT64_MIN);
	CHECK_INT(opmfu_sat_sum(INT64_MIN, INT64_MAX), -1);
	CHECK_INT(opmfu_sat_sum(-3, 5), 2);
	CHECK_INT(opmfu_sat_sub(INT64_MAX, INT64_MIN), INT64_MAX);
	CHECK_INT(opmfu_sat_sub(INT64_MIN, INT64_MAX), INT64_MIN);
	CHECK_INT(opmfu_sat_sub(INT64_MIN, 1), INT64_MIN);
	CHECK_INT(opmfu_sat_sub(-1, INT64_MIN), INT64_MAX);
	CHECK_INT(opmfu_sat_sub(10, 3), 7);
	CHECK_INT(opmfu_time_clamp(INT64_MIN), -OPMFU_TIME_LIMIT);
	CHECK_INT(opmfu_time_clamp(INT64_MAX), OPMFU_TIME_LIMIT);
	CHECK_INT(opmfu_time_clamp(1700000000000000000), 1700000000000000000);
	/* any two clamped times: their difference fits */
	CHECK(OPMFU_TIME_LIMIT - -OPMFU_TIME_LIMIT == INT64_MAX - 1);
	CHECK_INT(opmfu_sat_round(1e30), INT64_MAX);
	CHECK_INT(opmfu_sat_round(9223372036854775807.0), INT64_MAX);
	CHECK_INT(opmfu_sat_round(-1e30), INT64_MIN);
	CHECK_INT(opmfu_sat_round(2.5), 3);
	CHECK_INT(opmfu_sat_round(-2.5), -3);
	CHECK_INT(opmfu_sat_round(NAN), 0);
}

static void trace_clamp(void)
{
	struct opmfu_trace t;
	struct opmfu_link l = { 0 };
	struct opmfu_range r = { 0 };
	opmfu_trace_init(&t);
	t.links = &l;
	t.n_links = t.cap_links = 1;
	l.k_start = INT64_MIN;
	l.k_end = 5;
	l.op_start = INT64_MIN;
	l.op_end = INT64_MAX;
	r.start = 1;
	r.end = 2;
	r.value = INT64_MAX; /* absurd FLOPs, sane times */
	CHECK_INT(opmfu_ranges_add(&t.recs, &r), 0);
	r.value = 7;
	r.end = INT64_MAX;
	CHECK_INT(opmfu_ranges_add(&t.steps, &r), 0);
	r.end = 3;
	CHECK_INT(opmfu_ranges_add(&t.comm, &r), 0);
	opmfu_trace_clamp_links(&t);
	CHECK_INT((long long)t.n_clamped, 1);
	CHECK_INT(l.k_start, -OPMFU_TIME_LIMIT);
	CHECK_INT(l.op_end, OPMFU_TIME_LIMIT);
	opmfu_trace_clamp(&t); /* the link again: already clamped, not counted twice */
	CHECK_INT((long long)t.n_clamped, 3);
	CHECK_INT(t.steps.v[0].end, OPMFU_TIME_LIMIT);
	CHECK_INT(t.recs.v[0].value, INT64_MAX);
	CHECK_INT(t.comm.v[0].end, 3);
	t.links = NULL;
	t.n_links = t.cap_links = 0;
	opmfu_trace_release(&t);
}

int main(void)
{
	arith();
	trace_clamp();
	return check_done();
}
