/*
 * writer.c - the registry of writers. A new format is one file defining
 * `const struct opmfu_writer_type opmfu_writer_NAME` and one X(NAME) below,
 * at the index of its OPMFU_EXPORT_* bit.
 */
#include "write/writer.h"

#include <string.h>

#define WRITERS(X) \
	X(db)      \
	X(xlsx)    \
	X(csv)     \
	X(json)    \
	X(html)

#define DECLARE(n) extern const struct opmfu_writer_type opmfu_writer_##n;
#define ENTRY(n) &opmfu_writer_##n,

WRITERS(DECLARE)

const struct opmfu_writer_type *const opmfu_writer_types[] = { WRITERS(ENTRY) NULL };

const struct opmfu_writer_type *opmfu_writer_type_find(const char *name)
{
	size_t i;
	for (i = 0; opmfu_writer_types[i]; i++)
		if (!strcmp(opmfu_writer_types[i]->name, name))
			return opmfu_writer_types[i];
	return NULL;
}
