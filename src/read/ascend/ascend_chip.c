/*
 * ascend_chip.c - NPU_INFO and AICORE_FREQ (see ascend_chip.h).
 */
#include "read/ascend/ascend_chip.h"

#include <stdio.h>
#include <string.h>

#include "read/sqlite_in.h"

/* The first row's first column of sql as text into out, or "" */
static void first_text(sqlite3 *db, const char *sql, char *out, size_t size)
{
	sqlite3_stmt *s = NULL;
	out[0] = '\0';
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW &&
	    sqlite3_column_type(s, 0) == SQLITE_TEXT)
		snprintf(out, size, "%s", (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
}

static int has_columns(sqlite3 *db, const char *table, const char *col)
{
	char sql[96];
	sqlite3_stmt *s = NULL;
	const char *cols[] = { col, NULL };
	int found = opmfu_sqlite_has_columns(db, table, cols);
	if (found) /* 1, or -1: an optional table not waited for twice */
		return found > 0;
	snprintf(sql, sizeof(sql), "PRAGMA table_info(\"%s\")", table);
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK)
		while (!found && sqlite3_step(s) == SQLITE_ROW) {
			const unsigned char *name = sqlite3_column_text(s, 1);
			found = name && !strcmp((const char *)name, col);
		}
	sqlite3_finalize(s);
	return found;
}

/* " AICORE_FREQ 1800 MHz" or "... 1650-1800 MHz" into out; "" without rows */
static void read_freq(sqlite3 *db, char *out, size_t size)
{
	sqlite3_stmt *s = NULL;
	out[0] = '\0';
	if (!has_columns(db, "AICORE_FREQ", "freq"))
		return;
	if (sqlite3_prepare_v2(db, "SELECT min(freq), max(freq) FROM AICORE_FREQ WHERE typeof(freq) IN "
			       "('integer','real') AND freq > 0", -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL) {
		double lo = sqlite3_column_double(s, 0), hi = sqlite3_column_double(s, 1);
		if (lo == hi)
			snprintf(out, size, "AICORE_FREQ %g MHz", lo);
		else
			snprintf(out, size, "AICORE_FREQ %g-%g MHz", lo, hi);
	}
	sqlite3_finalize(s);
}

void opmfu_ascend_chip_seen(sqlite3 *db, struct opmfu_device *dev)
{
	char name[64] = "", freq[64];
	size_t i;

	dev->cube = 1;
	if (has_columns(db, "NPU_INFO", "name"))
		first_text(db, "SELECT name FROM NPU_INFO WHERE name IS NOT NULL ORDER BY rowid", name, sizeof(name));
	for (i = 0; name[i]; i++)
		if ((unsigned char)name[i] < 0x20)
			name[i] = '?'; /* one line in messages */
	read_freq(db, freq, sizeof(freq));
	if (name[0] && !dev->chip[0])
		snprintf(dev->chip, sizeof(dev->chip), "%s", name);
	if (name[0])
		snprintf(dev->seen, sizeof(dev->seen), "NPU_INFO %s%s%s", name, freq[0] ? ", " : "", freq);
	else
		snprintf(dev->seen, sizeof(dev->seen), "%s", freq);
}
