/*
 * fuzz_tables.h - for the targets that build a result database the input
 * describes (fuzz_result_db.c, fuzz_shard_db.c): a table declared from one
 * of the library's defs as the database writer declares it.
 */
#ifndef OPMFU_FUZZ_TABLES_H
#define OPMFU_FUZZ_TABLES_H

#include <sqlite3.h>
#include <stdio.h>

#include "fuzz.h"
#include "fuzz_input.h"
#include "trace/table.h"

/* Creates def's table with its first ncols columns (INTEGER, REAL, TEXT, BLOB)
 * and returns the prepared INSERT of a row of them. */
static inline sqlite3_stmt *fuzz_declare(sqlite3 *db, const struct opmfu_table_def *def, size_t ncols)
{
	static const char *const types[] = { "INTEGER", "REAL", "TEXT", "BLOB" };
	char cols[4096], q[1024], sql[5200];
	size_t n = 0, m = 0, c;
	sqlite3_stmt *ins = NULL;

	for (c = 0; c < ncols; c++) {
		n += (size_t)snprintf(cols + n, sizeof(cols) - n, "%s\"%s\" %s", c ? ", " : "", def->cols[c].name,
				      types[def->cols[c].type]);
		m += (size_t)snprintf(q + m, sizeof(q) - m, "%s?", c ? ", " : "");
		FUZZ_ASSERT(n < sizeof(cols) && m < sizeof(q));
	}
	FUZZ_ASSERT(snprintf(sql, sizeof(sql), "CREATE TABLE \"%s\" (%s)", def->name, cols) < (int)sizeof(sql));
	FUZZ_ASSERT(sqlite3_exec(db, sql, 0, 0, 0) == SQLITE_OK);
	FUZZ_ASSERT(snprintf(sql, sizeof(sql), "INSERT INTO \"%s\" VALUES (%s)", def->name, q) < (int)sizeof(sql));
	FUZZ_ASSERT(sqlite3_prepare_v2(db, sql, -1, &ins, NULL) == SQLITE_OK);
	return ins;
}

/* The rows the rest of the input describes, until it ends: a table byte (its
 * index mod n; a table without an INSERT, left out, takes none), then ncols[k]
 * values, each of the kind value() reads. counted[k] (NULL: not counted) gets
 * table k's rows. */
static inline void fuzz_fill(struct reader *r, sqlite3_stmt *const *ins, const size_t *ncols, size_t n,
			     void (*value)(struct reader *, sqlite3_stmt *, int), size_t *counted)
{
	while (r->n) {
		size_t k = byte(r) % n, c;
		if (!ins[k])
			continue;
		for (c = 0; c < ncols[k]; c++)
			value(r, ins[k], (int)c + 1);
		FUZZ_ASSERT(sqlite3_step(ins[k]) == SQLITE_DONE);
		sqlite3_reset(ins[k]);
		if (counted)
			counted[k]++;
	}
}

#endif
