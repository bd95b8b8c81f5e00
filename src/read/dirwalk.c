/*
 * dirwalk.c - sorted directory listings and the walk path (see dirwalk.h).
 */
#include "read/dirwalk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "base/sbuf.h"
#include "base/sort.h"

static int less_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b) < 0;
}

long opmfu_dir_names(const char *dir, char ***names)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t n = 0, cap = 0;

	*names = NULL;
	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (OPMFU_GROW(v, cap, n + 1) || !(v[n] = opmfu_strdup(e->d_name))) {
			opmfu_dir_names_free(v, (long)n);
			closedir(d);
			errno = ENOMEM;
			return -1;
		}
		n++;
	}
	closedir(d);
	if (opmfu_sort_array(v, n, sizeof(*v), less_str)) {
		opmfu_dir_names_free(v, (long)n);
		errno = ENOMEM;
		return -1;
	}
	*names = v;
	return (long)n;
}

void opmfu_dir_names_free(char **names, long n)
{
	while (n > 0)
		opmfu_free(names[--n]);
	opmfu_free(names);
}

int opmfu_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *opmfu_file_kind(mode_t mode)
{
	if (S_ISREG(mode))
		return "a regular file";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISLNK(mode))
		return "a symbolic link";
	return "of an unknown kind";
}

enum opmfu_status opmfu_not_regular(const char *path, mode_t mode, struct opmfu_err *err)
{
	return opmfu_err_set(err, OPMFU_ERR_IO, "%s: not a regular file (%s): opmfu reads only regular files", path,
			     opmfu_file_kind(mode));
}

enum opmfu_status opmfu_check_regular(const char *path, const char *fail, struct opmfu_err *err)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return opmfu_err_set(err, OPMFU_ERR_IO, "%s: %s: %s", path, fail, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return opmfu_not_regular(path, st.st_mode, err);
	return OPMFU_OK;
}

int opmfu_open_regular(const char *path, struct stat *out, const char *fail, struct opmfu_err *err)
{
	struct stat st;
	int fd, fl;

	if (opmfu_check_regular(path, fail, err))
		return -1;
	do
		fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		opmfu_err_set(err, OPMFU_ERR_IO, "%s: %s: %s", path, fail, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		opmfu_err_set(err, OPMFU_ERR_IO, "%s: %s: %s", path, fail, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		opmfu_not_regular(path, st.st_mode, err);
		close(fd);
		return -1;
	}
	/* a regular file never blocks; plain reads from here on */
	if ((fl = fcntl(fd, F_GETFL)) != -1)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	if (out)
		*out = st;
	return fd;
}

FILE *opmfu_fopen_regular(const char *path, const char *fail, struct opmfu_err *err)
{
	int fd = opmfu_open_regular(path, NULL, fail, err);
	FILE *f;
	if (fd < 0)
		return NULL;
	if (!(f = fdopen(fd, "rb"))) {
		opmfu_err_set(err, OPMFU_ERR_IO, "%s: %s: %s", path, fail, strerror(errno));
		close(fd);
	}
	return f;
}

int opmfu_path_inside(const char *real, const char *root)
{
	size_t n = strlen(root);
	if (n == 1 && root[0] == '/')
		return 1;
	return !strncmp(real, root, n) && (real[n] == '\0' || real[n] == '/');
}

int opmfu_system_dir(const char *real)
{
	return opmfu_path_inside(real, "/proc") || opmfu_path_inside(real, "/sys");
}

char *opmfu_entry_real(const char *dir_real, const char *sub, const char *name, int is_link)
{
	char *r, *copy;
	if (!is_link) {
		if (!(r = opmfu_path_join(dir_real, name)))
			errno = ENOMEM;
		return r;
	}
	if (!(r = realpath(sub, NULL))) {
		if (errno == ENOMEM)
			return NULL;
		errno = ENOENT;
		return NULL;
	}
	copy = opmfu_strdup(r); /* realpath allocates with libc's malloc */
	free(r);
	if (!copy)
		errno = ENOMEM;
	return copy;
}

int opmfu_all_digits(const char *s, size_t n)
{
	size_t i;
	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

char *opmfu_dir_of(const char *path)
{
	const char *s = strrchr(path, '/');
	if (!s)
		return opmfu_strdup(".");
	if (s == path)
		return opmfu_strdup("/");
	return opmfu_strndup(path, (size_t)(s - path));
}

const char *opmfu_base_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

void opmfu_run_by_file(const char *fmt, const char *path, const char *dir, int name_rank, size_t stem,
		       struct sbuf *key, struct sbuf *name)
{
	char *real = realpath(name_rank >= 0 ? dir : path, NULL);
	if (name_rank >= 0) {
		sbuf_addf(key, "%s ranks by file name in %s", fmt, real ? real : dir);
		sbuf_addf(name, "%s %s", fmt, opmfu_base_of(dir));
	} else {
		sbuf_addf(key, "%s file %s", fmt, real ? real : path);
		sbuf_addf(name, "%s %.*s", fmt, (int)stem, opmfu_base_of(path));
	}
	free(real);
}

int opmfu_visit_seen(const struct opmfu_visit *v, const struct stat *st)
{
	int k;
	for (k = 0; k < v->n; k++)
		if (v->dev[k] == st->st_dev && v->ino[k] == st->st_ino)
			return 1;
	return 0;
}

void opmfu_visit_push(struct opmfu_visit *v, const struct stat *st)
{
	v->dev[v->n] = st->st_dev;
	v->ino[v->n] = st->st_ino;
	v->n++;
}
