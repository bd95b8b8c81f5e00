/*
 * t_sbuf.c - base/sbuf.h: sbuf_add_i64 prints as "%" PRId64 does, at both
 * ends of int64, and appends to what the buffer holds.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include "base/sbuf.h"
#include "check.h"

static void one(int64_t v)
{
	struct sbuf sb;
	char want[32];
	snprintf(want, sizeof(want), "x%" PRId64, v);
	sbuf_init(&sb);
	sbuf_add(&sb, "x", 1);
	sbuf_add_i64(&sb, v);
	CHECK_STR(sb.buf, want);
	sbuf_release(&sb);
}

int main(void)
{
	static const int64_t v[] = { 0, 1, -1, 9, 10, -10, 123456789, INT64_MAX, INT64_MIN, INT64_MIN + 1 };
	size_t i;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		one(v[i]);
	return check_done();
}
