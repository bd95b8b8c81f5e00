/*
 * stage.h - files written under a temporary name beside their final one and
 * renamed into place when complete, so a reader never sees half a file and
 * a failed run leaves the previous one (the xlsx, CSV and JSON writers).
 */
#ifndef OPMFU_STAGE_H
#define OPMFU_STAGE_H

#include "base/err.h"

/*
 * Creates an empty file with a fresh name next to path, ".NAME.PID.N.tmp":
 * O_EXCL, so two writers never share one, mode 0666 so the umask applies
 * as for any other output file. *tmp gets the name (opmfu_free), *fd a
 * descriptor open for writing. On error neither is set and no file is left.
 */
enum opmfu_status opmfu_stage_file(const char *path, char **tmp, int *fd, struct opmfu_err *err);

#endif
