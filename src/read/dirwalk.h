/*
 * dirwalk.h - what every search of the file system in read/ shares: sorted
 * directory listings (results never depend on the order the file system
 * returns), and the directories on the current walk path, so a symbolic link
 * back to an ancestor is seen as a loop.
 */
#ifndef OPMFU_DIRWALK_H
#define OPMFU_DIRWALK_H

#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "base/err.h"

/*
 * The names in dir (without . and ..), sorted bytewise, each and the array
 * malloc'd. Returns their count, or -1 with errno set (ENOMEM when out of
 * memory); free with opmfu_dir_names_free, which takes any count.
 */
long opmfu_dir_names(const char *dir, char ***names);
void opmfu_dir_names_free(char **names, long n);

/* 1 if path is a directory (symbolic links followed). */
int opmfu_is_dir(const char *path);

/* "a FIFO", "a socket", "a character device", ... for a stat mode (what
 * the messages call a file that is not a regular one). */
const char *opmfu_file_kind(mode_t mode);

/*
 * Every input is opened this way (SPEC 26): never blocking, and only if it
 * is a regular file. A FIFO, socket or device named like an input would
 * block open() or read() forever; it is refused with "PATH: not a regular
 * file (a FIFO): opmfu reads only regular files" (OPMFU_ERR_IO). Symbolic
 * links are followed. The path is stat'ed before the open (so a device is
 * never even opened), opened with O_NONBLOCK, checked again with fstat
 * (the file may have been replaced in between), then O_NONBLOCK is
 * cleared. fail starts the other messages ("cannot read": "PATH: cannot
 * read: No such file or directory"). Returns the descriptor (O_CLOEXEC), or -1 with err set; st,
 * if not NULL, receives the fstat.
 */
int opmfu_open_regular(const char *path, struct stat *st, const char *fail, struct opmfu_err *err);
/* The same as a stdio stream ("rb"); NULL with err set. */
FILE *opmfu_fopen_regular(const char *path, const char *fail, struct opmfu_err *err);
/* The message above for a file of kind mode (OPMFU_ERR_IO). */
enum opmfu_status opmfu_not_regular(const char *path, mode_t mode, struct opmfu_err *err);
/* Only the stat check, for files another library opens by name (SQLite):
 * OPMFU_OK for a regular file, else the message above (or fail's). */
enum opmfu_status opmfu_check_regular(const char *path, const char *fail, struct opmfu_err *err);

/* 1 if the real path real (no "." or ".." or links in it) is root or
 * below it; root "/" holds everything. */
int opmfu_path_inside(const char *real, const char *root);
/* 1 if the real path real is /proc, /sys or below them: never walked. */
int opmfu_system_dir(const char *real);
/* The real path of a directory the walk may enter as dir/name, where
 * dir_real is dir's real path and is_link says the entry is a symbolic
 * link (malloc'd with base/mem; NULL when out of memory or, for a link,
 * when it cannot be resolved, errno telling which: ENOMEM). */
char *opmfu_entry_real(const char *dir_real, const char *sub, const char *name, int is_link);

/* 1 if s[0..n) is one or more ASCII digits. */
int opmfu_all_digits(const char *s, size_t n);

/* The folder of path (malloc'd; "." without a '/', "/" for a file at the
 * root), or NULL when out of memory. */
char *opmfu_dir_of(const char *path);
/* The last component of path (a pointer into it). */
const char *opmfu_base_of(const char *path);

struct sbuf;
/* The run (reader.h's run_key and run_name) of a rank its trace does not
 * place in a job: ranks numbered by their file names (name_rank >= 0) are one
 * run per folder (its real path: a folder reached two ways is one run),
 * named by the folder; any other file is a run of its own, named by the
 * first stem bytes of its name. fmt ("kineto", "nsys") starts both. */
void opmfu_run_by_file(const char *fmt, const char *path, const char *dir, int name_rank, size_t stem,
		       struct sbuf *key, struct sbuf *name);

/* Walks are depth-bounded (5 levels for ranks, 10 for chip info), far below this. */
#define OPMFU_VISIT_MAX 64

/* The directories on the current walk path (device and inode). */
struct opmfu_visit {
	dev_t dev[OPMFU_VISIT_MAX];
	ino_t ino[OPMFU_VISIT_MAX];
	int n;
};

/* 1 if st is a directory already on the walk path. */
int opmfu_visit_seen(const struct opmfu_visit *v, const struct stat *st);
/* Enters a directory (the caller leaves it with v->n--). */
void opmfu_visit_push(struct opmfu_visit *v, const struct stat *st);

#endif
