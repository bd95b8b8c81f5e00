/*
 * stage.h - files written under a temporary name beside their final one and
 * renamed into place when complete, so a reader never sees half a file and
 * a failed run leaves the previous one (the xlsx, CSV, JSON and database
 * writers).
 *
 * Every staged name is kept in a process-wide registry until the file is
 * renamed or removed, so that a signal handler can remove them all
 * (opmfu_remove_staged in opmfu.h, async-signal-safe). A later run removes
 * the staged files that a dead process left (opmfu_stage_sweep).
 */
#ifndef OPMFU_STAGE_H
#define OPMFU_STAGE_H

#include "base/err.h"

/*
 * Creates an empty file with a fresh name next to path, ".NAME.PID.N.tmp":
 * O_EXCL, so two writers never share one, mode 0666 so the umask applies
 * as for any other output file. *tmp gets the name (opmfu_free), *fd a
 * descriptor open for writing. The name is registered (see above) until
 * opmfu_stage_done. On error neither is set and no file is left.
 */
enum opmfu_status opmfu_stage_file(const char *path, char **tmp, int *fd, struct opmfu_err *err);

/* tmp (a name from opmfu_stage_file) was renamed or removed, or is about to
 * be kept under another name: a signal no longer removes it. NULL is a
 * no-op. Call it after the rename or unlink. */
void opmfu_stage_done(const char *tmp);

/* Unlinks every registered staged file (opmfu_remove_staged, opmfu.h):
 * async-signal-safe, atomic loads and unlink(2) only. */
void opmfu_stage_remove_all(void);

/* Removes tmp and forgets it (opmfu_stage_done); NULL is a no-op. */
void opmfu_stage_discard(const char *tmp);

/* Renames tmp to path and forgets tmp; -1 with errno as rename(2). */
int opmfu_stage_rename(const char *tmp, const char *path);

/*
 * Removes, in the folder dir, the staged files of processes that no longer
 * exist: names ".NAME.PID.N.tmp" where NAME ends in one of opmfu's output
 * suffixes (.csv, .jsonl, .xlsx, .db, .html) and no process PID exists (kill(PID,
 * 0) fails with ESRCH). Files of live processes (another run, this one) stay.
 * Errors are ignored: a file that cannot be removed is left. Returns how many
 * were removed.
 */
unsigned opmfu_stage_sweep(const char *dir);

/* A hidden scratch folder in dir (`.scratch.xlsx.PID.N.tmp`) for
 * libxlsxwriter's own temporary files, which it creates and unlinks at
 * once: listed like a staged file, so a signal handler removes it when
 * empty and a later run sweeps it with what a signal left in it. */
enum opmfu_status opmfu_stage_scratch(const char *dir, char **tmp, struct opmfu_err *err);
/* Removes the (empty) folder, forgets it and frees tmp; NULL is a no-op. */
void opmfu_stage_scratch_done(char *tmp);

#endif
