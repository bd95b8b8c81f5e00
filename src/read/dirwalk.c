/*
 * dirwalk.c - sorted directory listings and the walk path (see dirwalk.h).
 */
#include "read/dirwalk.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
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
