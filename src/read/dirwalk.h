/*
 * dirwalk.h - what every search of the file system in read/ shares: sorted
 * directory listings (results never depend on the order the file system
 * returns), and the directories on the current walk path, so a symbolic link
 * back to an ancestor is seen as a loop.
 */
#ifndef OPMFU_DIRWALK_H
#define OPMFU_DIRWALK_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * The names in dir (without . and ..), sorted bytewise, each and the array
 * malloc'd. Returns their count, or -1 with errno set (ENOMEM when out of
 * memory); free with opmfu_dir_names_free, which takes any count.
 */
long opmfu_dir_names(const char *dir, char ***names);
void opmfu_dir_names_free(char **names, long n);

/* 1 if path is a directory (symbolic links followed). */
int opmfu_is_dir(const char *path);

/* 1 if s[0..n) is one or more ASCII digits. */
int opmfu_all_digits(const char *s, size_t n);

/* The folder of path (malloc'd; "." without a '/', "/" for a file at the
 * root), or NULL when out of memory. */
char *opmfu_dir_of(const char *path);
/* The last component of path (a pointer into it). */
const char *opmfu_base_of(const char *path);

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
