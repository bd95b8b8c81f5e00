/*
 * cell_text.h - a text cell of a table row as a C string, for the tests'
 * comparisons: "(null)" for NULL, else its text (cut at 127 bytes). The
 * buffer is static: one call's result at a time.
 */
#ifndef OPMFU_CELL_TEXT_H
#define OPMFU_CELL_TEXT_H

#include <stdio.h>

#include "trace/table.h"

static const char *cell_text(const struct opmfu_cell *c)
{
	static char buf[128];
	if (c->null)
		return "(null)";
	snprintf(buf, sizeof(buf), "%.*s", (int)c->v.t.n, c->v.t.s);
	return buf;
}

#endif
