/*
 * read_ascend.h - reads one Ascend PyTorch profiler database (SPEC 1.2) into
 * a struct opmfu_trace. The database is opened read-only and never written.
 */
#ifndef OPMFU_READ_ASCEND_H
#define OPMFU_READ_ASCEND_H

#include "base/err.h"
#include "trace/trace.h"
#include "read/reader.h"

/*
 * Fills t (which must be initialised) from the database at path: strings,
 * the (kernel, op) links of all three kernel sources, the mfu_flops records
 * (parsed; malformed ones counted in t->drops; in start order) and the
 * Module ranges.
 * Returns OPMFU_OK, or an error naming the file and the table at fault;
 * on error t holds whatever was read and must still be released.
 * An optional table (MSTX_EVENTS, the communication tables) may be absent.
 */
enum opmfu_status opmfu_read_ascend(const char *path, struct opmfu_trace *t,
				    struct opmfu_err *err);

/*
 * The same with up to `threads` threads: with 2 or more, a second connection
 * scans PYTORCH_API and MSTX_EVENTS while this thread scans the other tables.
 * The result is identical for every thread count. on_links (may be NULL;
 * read/reader.h) is called once the links are complete, while the second
 * thread still reads the FLOPs records and Module ranges, unless reading
 * failed before. The Ascend reader of read/reader.h (opmfu_reader_ascend,
 * read/ascend/ascend.h) is this plus the chip info of the rank directory.
 */
enum opmfu_status opmfu_read_ascend_threads(const char *path, struct opmfu_trace *t, int threads,
					    opmfu_links_fn on_links, void *ctx, struct opmfu_err *err);

#endif
