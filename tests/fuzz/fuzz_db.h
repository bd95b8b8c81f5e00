/*
 * fuzz_db.h - what the whole-rank fuzz targets (fuzz_rank_db.c,
 * fuzz_nsys_db.c) share: how a value of the input database is bound, and
 * what they check of a run's output (counts in the result database, every
 * JSON Lines file a line of valid JSON per row, the rank's rows as its
 * report says). Static functions: each target is one file.
 */
#ifndef OPMFU_FUZZ_DB_H
#define OPMFU_FUZZ_DB_H

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "fuzz.h"
#include "fuzz_input.h"
#include "lib/report.h"

/* Binds to s's parameter col one value of kind (0-8 and 10, any other: a
 * small integer as REAL): NULL, small integers and timestamps near each other
 * (ids meet, ranges overlap), any int64, a word of dict, raw bytes as text
 * (NULs, invalid UTF-8) or as a blob, any double, a timestamp as TEXT; 10: a
 * text of any length up to 65535 (a 2-byte length first: real names). */
static inline void fuzz_bind(struct reader *r, sqlite3_stmt *s, int col, unsigned kind, const char *const *dict,
		      size_t n_dict)
{
	unsigned len, i;
	char buf[32];

	switch (kind) {
	case 0:
		sqlite3_bind_null(s, col);
		break;
	case 1:
		sqlite3_bind_int64(s, col, byte(r) % 16);
		break;
	case 2:
		sqlite3_bind_int64(s, col, 1000 + (int64_t)(byte(r) << 8 | byte(r)));
		break;
	case 3:
		sqlite3_bind_int64(s, col, (int64_t)u64(r));
		break;
	case 4:
		sqlite3_bind_text(s, col, dict[byte(r) % n_dict], -1, SQLITE_STATIC);
		break;
	case 5: /* raw bytes as text: NULs, invalid UTF-8 */
	case 7: /* or as a blob */
		len = byte(r) % 24;
		if (len > r->n)
			len = (unsigned)r->n;
		if (kind == 5)
			sqlite3_bind_text(s, col, (const char *)r->p, (int)len, SQLITE_TRANSIENT);
		else
			sqlite3_bind_blob(s, col, r->p, (int)len, SQLITE_TRANSIENT);
		r->p += len;
		r->n -= len;
		break;
	case 6: { /* any double: NaN, infinities, subnormals */
		uint64_t bits = u64(r);
		double d;
		memcpy(&d, &bits, sizeof(d));
		sqlite3_bind_double(s, col, d);
		break;
	}
	case 10: /* a long text: a big-endian 2-byte length, then the bytes */
		len = byte(r) << 8;
		len |= byte(r);
		if (len > r->n)
			len = (unsigned)r->n;
		sqlite3_bind_text(s, col, (const char *)r->p, (int)len, SQLITE_TRANSIENT);
		r->p += len;
		r->n -= len;
		break;
	case 8: /* a timestamp as TEXT, as real PYTORCH_API has them */
		i = 1000 + (byte(r) << 8 | byte(r));
		snprintf(buf, sizeof(buf), "%u", i);
		sqlite3_bind_text(s, col, buf, -1, SQLITE_TRANSIENT);
		break;
	default: /* a small integer as REAL */
		sqlite3_bind_double(s, col, (double)(byte(r) % 16));
		break;
	}
}

/* The whole file at path, NUL-terminated (the schema a target builds its
 * database from); never NULL. */
static inline char *fuzz_read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s;
	long n;

	FUZZ_ASSERT(f != NULL);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	s = calloc((size_t)n + 1, 1);
	FUZZ_ASSERT(s && fread(s, 1, (size_t)n, f) == (size_t)n);
	fclose(f);
	return s;
}

static inline long long count(sqlite3 *db, const char *sql, int rank)
{
	sqlite3_stmt *s;
	long long n = -1;
	FUZZ_ASSERT(sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK);
	sqlite3_bind_int(s, 1, rank);
	if (sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

/* out/cluster_analysis_output/json/<table>.jsonl: rows lines, each a valid JSON text. */
static inline void check_jsonl(const char *out, const char *table, size_t rows)
{
	char path[256], *buf = NULL;
	size_t n = 0, cap = 0, got, lines = 0, from = 0, i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cluster_analysis_output/json/%s.jsonl", out, table);
	f = fopen(path, "rb");
	FUZZ_ASSERT(f != NULL);
	do {
		if (n + 65536 > cap) {
			buf = realloc(buf, cap = cap * 2 + 65536);
			FUZZ_ASSERT(buf != NULL);
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	fclose(f);
	FUZZ_ASSERT(n == 0 || buf[n - 1] == '\n');
	for (i = 0; i < n; i++) {
		yajl_handle h;
		if (buf[i] != '\n')
			continue;
		h = yajl_alloc(NULL, NULL, NULL);
		FUZZ_ASSERT(h != NULL);
		FUZZ_ASSERT(yajl_parse(h, (const unsigned char *)buf + from, i - from) == yajl_status_ok &&
			    yajl_complete_parse(h) == yajl_status_ok);
		yajl_free(h);
		lines++;
		from = i + 1;
	}
	free(buf);
	FUZZ_ASSERT(lines == rows);
}

/* The rank's summary row, and its OperatorMFU and ModuleMFU rows as many as its report says. */
/* What holds of any rank's report, whatever the input: counts within
 * their wholes, a reason where the state needs one. st: the run's status. */
static inline void check_rank_report(const struct opmfu_rank_report *k, enum opmfu_status st)
{
	FUZZ_ASSERT(k->recs_used <= k->recs_read);
	FUZZ_ASSERT(k->kernels_with_mfu <= k->kernels);
	/* every key with an entry has a row of R, each writing one row per
	 * entry of its key (SPEC 2.6): at least as many rows as such keys */
	FUZZ_ASSERT(k->op_rows >= k->kernels_with_mfu && (k->op_rows == 0) == (k->kernels_with_mfu == 0));
	FUZZ_ASSERT(memchr(k->reason, '\0', sizeof(k->reason)) != NULL);
	FUZZ_ASSERT(k->units_above_one <= k->units_flops && k->units_flops <= k->units);
	FUZZ_ASSERT(k->rec_agree <= k->rec_compared && k->flops_ns <= k->busy_ns);
	FUZZ_ASSERT(k->flops_coverage <= 1 && (k->mfu_busy < 0 || k->mfu_busy <= k->mfu_recorded * (1 + 1e-9)));
	switch (k->state) {
	case OPMFU_RANK_OK:
		FUZZ_ASSERT(k->mfu_recorded >= 0);
		break;
	case OPMFU_RANK_NO_MFU:
		FUZZ_ASSERT(k->mfu_recorded < 0 && k->reason[0]);
		break;
	case OPMFU_RANK_FAILED:
		FUZZ_ASSERT(k->reason[0] && st != OPMFU_OK);
		break;
	}
}

static inline void check_rank_rows(sqlite3 *db, const struct opmfu_rank_report *k)
{
	FUZZ_ASSERT(count(db, "SELECT count(*) FROM OpmfuRankSummary WHERE rank_id = ?", k->rank) == 1);
	if (k->state != OPMFU_RANK_FAILED) {
		FUZZ_ASSERT(count(db, "SELECT count(*) FROM OperatorMFU WHERE rank_id = ?", k->rank) ==
			    (long long)k->op_rows);
		FUZZ_ASSERT(count(db, "SELECT count(*) FROM ModuleMFU WHERE rank_id = ?", k->rank) ==
			    (long long)k->module_rows);
	}
}

#endif
