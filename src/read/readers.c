/*
 * readers.c - the input formats opmfu knows, in the order discovery asks
 * them (a directory or file two readers claim goes to the first). A new
 * format is one entry here.
 */
#include "read/ascend/ascend.h"
#include "read/kineto/kineto.h"
#include "read/nsys/nsys.h"
#include "read/reader.h"

/* Kineto first: of two MAYBE answers for a file the user named, its own
 * ("*.json" that is no trace: reading it says so) beats Ascend's (any file).
 * nsys before Ascend: it says YES only for a database with nsys's tables,
 * where Ascend's MAYBE takes any database. */
static const struct opmfu_reader *const readers[] = {
	&opmfu_reader_kineto,
	&opmfu_reader_nsys,
	&opmfu_reader_ascend,
	NULL
};

const struct opmfu_reader *const *opmfu_readers(void)
{
	return readers;
}
