/*
 * ascend.h - the Ascend reader (read/reader.h): which directories and files
 * are its ranks (SPEC 1.1) and the chip info that gives their peak FLOPS
 * (SPEC 1.4). The database itself is read_ascend.h's.
 */
#ifndef OPMFU_ASCEND_H
#define OPMFU_ASCEND_H

#include <stddef.h>

#include "base/err.h"
#include "trace/device.h"
#include "read/reader.h"

extern const struct opmfu_reader opmfu_reader_ascend;

/* A rank directory: it has ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler*.db
 * (the first in name order that is no directory). */
enum opmfu_probe opmfu_ascend_probe_dir(const char *dir, struct opmfu_rank_input *in);
/* A file the user named is a database: YES when its name says so, else
 * MAYBE (any other reader's YES wins). Files met in a walk are not. */
enum opmfu_probe opmfu_ascend_probe_file(const char *path, int named, struct opmfu_rank_input *in,
					 struct opmfu_rank_list *more);

/* The rank number in a database file name (ascend_pytorch_profiler_3.db -> 3),
 * -1 without a number, -2 when the name does not match. */
int opmfu_db_name_rank(const char *name);

/*
 * Finds the chip info file (first info.json.N inside a device_N directory, up
 * to 10 levels below dir, in name order). On OPMFU_OK *path is a malloc'd
 * path, or NULL when there is none; OPMFU_ERR_NOMEM if the search ran out of
 * memory (then *path is NULL).
 */
enum opmfu_status opmfu_find_info_json(const char *dir, char **path, struct opmfu_err *err);

/* Peak FLOPS from info.json content (SPEC 1.4). */
struct opmfu_chip_info {
	long long ai_core_num;
	double aic_mhz;
	double peak_fp16, peak_int8; /* FLOPS */
};

/* Parses info.json text. On failure returns OPMFU_ERR_FORMAT with a message
 * naming the field at fault, or where the JSON is malformed (the caller
 * prefixes the file name); OPMFU_ERR_NOMEM when out of memory. */
enum opmfu_status opmfu_parse_info_json(const char *text, size_t len, struct opmfu_chip_info *out,
					struct opmfu_err *err);

/* Reads and parses the file (at most 16 MiB, streamed); messages start with path. */
enum opmfu_status opmfu_read_info_json(const char *path, struct opmfu_chip_info *out,
				       struct opmfu_err *err);

/*
 * Fills dev from the chip info file under the rank directory dir: its path,
 * cores, clock, and the cube peaks (fp16 and int8 class); or, when there is
 * no usable file, dev->no_peak says why. Only running out of memory is an
 * error (OPMFU_ERR_NOMEM); a missing or malformed file is not.
 */
enum opmfu_status opmfu_ascend_device(const char *dir, struct opmfu_device *dev, struct opmfu_err *err);

#endif
