/*
 * ascend_steps.c - STEP_TIME, else ProfilerStep#N (see ascend_steps.h).
 */
#include "read/ascend/ascend_steps.h"

#include <stdlib.h>
#include <string.h>

#include "trace/parse.h"

/* A time from INTEGER or TEXT (PYTORCH_API declares them TEXT); -1 when neither. */
static int col_ns(sqlite3_stmt *s, int i, int64_t *out)
{
	if (sqlite3_column_type(s, i) == SQLITE_INTEGER) {
		*out = sqlite3_column_int64(s, i);
		return 0;
	}
	if (sqlite3_column_type(s, i) == SQLITE_TEXT) {
		const char *txt = (const char *)sqlite3_column_text(s, i);
		return txt ? opmfu_parse_ns_text(txt, (size_t)sqlite3_column_bytes(s, i), out) : -1;
	}
	return -1;
}

/* "ProfilerStep#12" -> 12; -1 when the rest is not a number */
static int64_t step_number(const unsigned char *name)
{
	const char *p = (const char *)name + strlen("ProfilerStep#");
	char *end;
	long long v;
	if (!*p)
		return -1;
	v = strtoll(p, &end, 10);
	return *end || v < 0 ? -1 : (int64_t)v;
}

/* Rows of (start, end, number) from sql into t->steps. */
static int take(sqlite3 *db, const char *sql, int named, struct opmfu_trace *t)
{
	sqlite3_stmt *s = NULL;
	int rc = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
		sqlite3_finalize(s);
		return 0; /* a table of another shape: no steps from it */
	}
	while (!rc && sqlite3_step(s) == SQLITE_ROW) {
		struct opmfu_range r = { 0, 0, 0, 0, 0 };
		if (col_ns(s, 0, &r.start) || col_ns(s, 1, &r.end) || r.end <= r.start)
			continue;
		if (named) {
			const unsigned char *name = sqlite3_column_text(s, 2);
			if (!name || (r.value = step_number(name)) < 0)
				continue;
		} else if (sqlite3_column_type(s, 2) == SQLITE_INTEGER) {
			r.value = sqlite3_column_int64(s, 2);
		} else {
			continue;
		}
		rc = opmfu_ranges_add(&t->steps, &r);
	}
	sqlite3_finalize(s);
	return rc;
}

/* Whether a string of t, which holds STRING_IDS' values, may be a step
 * name: what "value LIKE 'ProfilerStep#%'" matches (ASCII case ignored, as
 * LIKE does; not the locale's). Searched in memory: a second scan of
 * STRING_IDS by that query cost a small rank more than reading its steps.
 * A string the reader added itself may match too; then the query of
 * PYTORCH_API below finds no step, as it would have anyway. */
static int any_step_name(const struct opmfu_strtab *s)
{
	static const char want[] = "profilerstep#";
	uint32_t sid, k;
	for (sid = 1; sid < s->n; sid++) {
		const char *v = opmfu_strtab_str(s, sid);
		if (opmfu_strtab_len(s, sid) < sizeof(want) - 1)
			continue;
		for (k = 0; k < sizeof(want) - 1; k++) {
			char c = v[k];
			if ((c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c) != want[k])
				break;
		}
		if (k == sizeof(want) - 1)
			return 1;
	}
	return 0;
}

int opmfu_ascend_steps(sqlite3 *db, struct opmfu_trace *t)
{
	if (take(db, "SELECT startNs, endNs, id FROM STEP_TIME ORDER BY startNs", 0, t))
		return -1;
	/* PYTORCH_API is large: scanned again only when a step name exists */
	if (!t->steps.n && any_step_name(&t->strs) &&
	    take(db, "SELECT startNs, endNs, (SELECT value FROM STRING_IDS WHERE id = name) FROM PYTORCH_API "
		     "WHERE name IN (SELECT id FROM STRING_IDS WHERE value LIKE 'ProfilerStep#%')",
		 1, t))
		return -1;
	return opmfu_ranges_sort(&t->steps);
}
