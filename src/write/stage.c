/*
 * stage.c - temporary names for files written before they are made final,
 * the registry of those names that a signal handler empties, and the sweep
 * of names that dead processes left.
 */
#include "write/stage.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/mem.h"
#include "base/sbuf.h"

/*
 * The registry: chunks of slots, allocated on demand and never freed nor
 * moved, so a signal handler can walk them at any moment. A slot is FREE,
 * BUSY (its path being written: the handler skips it) or LIVE (a staged
 * file: the handler unlinks path). A slot is claimed with a compare and
 * swap, so the writer thread and others may stage at once.
 */
enum { SLOT_FREE, SLOT_BUSY, SLOT_LIVE };
#define SLOTS_PER_CHUNK 256
#define CHUNKS 256 /* 65,536 files staged at once; more are not registered (a later run sweeps them) */

struct slot {
	atomic_int state;
	const char *owner; /* the caller's copy of the name, to find the slot fast */
	char *path;        /* the registry's copy, for the handler */
	size_t cap;
};

static _Atomic(struct slot *) chunks[CHUNKS];

static struct slot *claim(void)
{
	size_t c, i;
	for (c = 0; c < CHUNKS; c++) {
		struct slot *ch = atomic_load(&chunks[c]);
		if (!ch) {
			struct slot *fresh = opmfu_calloc(SLOTS_PER_CHUNK, sizeof(*fresh)), *expect = NULL;
			if (!fresh)
				return NULL;
			if (!atomic_compare_exchange_strong(&chunks[c], &expect, fresh)) {
				opmfu_free(fresh);
				ch = expect;
			} else {
				ch = fresh;
			}
		}
		for (i = 0; i < SLOTS_PER_CHUNK; i++) {
			int free_state = SLOT_FREE;
			if (atomic_load_explicit(&ch[i].state, memory_order_relaxed) == SLOT_FREE &&
			    atomic_compare_exchange_strong(&ch[i].state, &free_state, SLOT_BUSY))
				return &ch[i];
		}
	}
	return NULL;
}

/* Registers tmp; when the registry is full or out of memory the file is
 * only not removed by a signal. */
static void enlist(const char *tmp)
{
	size_t n = strlen(tmp) + 1;
	struct slot *s = claim();

	if (!s)
		return;
	if (s->cap < n) {
		char *p = opmfu_malloc(n);
		if (!p) {
			atomic_store(&s->state, SLOT_FREE);
			return;
		}
		opmfu_free(s->path);
		s->path = p;
		s->cap = n;
	}
	memcpy(s->path, tmp, n);
	s->owner = tmp;
	atomic_store(&s->state, SLOT_LIVE);
}

void opmfu_stage_done(const char *tmp)
{
	size_t c, i;
	int pass;

	if (!tmp)
		return;
	/* by the caller's pointer first, then by name */
	for (pass = 0; pass < 2; pass++)
		for (c = 0; c < CHUNKS; c++) {
			struct slot *ch = atomic_load(&chunks[c]);
			if (!ch)
				break;
			for (i = 0; i < SLOTS_PER_CHUNK; i++) {
				struct slot *s = &ch[i];
				int live = SLOT_LIVE;
				if (atomic_load(&s->state) != SLOT_LIVE ||
				    (pass == 0 ? s->owner != tmp : strcmp(s->path, tmp) != 0))
					continue;
				if (atomic_compare_exchange_strong(&s->state, &live, SLOT_FREE))
					return;
			}
		}
}

void opmfu_stage_discard(const char *tmp)
{
	if (!tmp)
		return;
	unlink(tmp);
	opmfu_stage_done(tmp);
}

int opmfu_stage_rename(const char *tmp, const char *path)
{
	if (rename(tmp, path) != 0)
		return -1;
	opmfu_stage_done(tmp);
	return 0;
}

/* Async-signal-safe: atomic loads and unlink(2) only. */
void opmfu_stage_remove_all(void)
{
	size_t c, i;
	int saved = errno;

	for (c = 0; c < CHUNKS; c++) {
		struct slot *ch = atomic_load(&chunks[c]);
		if (!ch)
			break;
		for (i = 0; i < SLOTS_PER_CHUNK; i++)
			if (atomic_load(&ch[i].state) == SLOT_LIVE && unlink(ch[i].path) != 0)
				rmdir(ch[i].path); /* a scratch folder: gone if empty, else swept by a later run */
	}
	errno = saved;
}

/* Makes the staged name of path, listed, then creates it: a file (its
 * descriptor in *fd) or, with fd NULL, a folder. */
static enum opmfu_status stage_make(const char *path, char **tmp, int *fd, struct opmfu_err *err)
{
	static atomic_uint counter;
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	/* the folder, for messages: "/" for a file at the root, "." for a bare name */
	int dir_len = slash ? (int)(slash - path) + (slash == path) : 1;
	const char *dir = slash ? path : ".", *what = fd ? "file" : "folder";
	struct sbuf sb;
	int tries;

	sbuf_init(&sb);
	for (tries = 0; tries < 100; tries++) {
		int f, e;
		sbuf_reset(&sb);
		sbuf_addf(&sb, "%.*s.%s.%ld.%u.tmp", (int)(base - path), path, base, (long)getpid(),
			  atomic_fetch_add(&counter, 1u));
		if (sb.oom) {
			sbuf_release(&sb);
			return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory naming its temporary %s", path, what);
		}
		/* listed before it exists: a signal between the two finds a name to remove */
		enlist(sb.buf);
		f = fd ? open(sb.buf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666) : mkdir(sb.buf, 0700);
		if (f >= 0) {
			*tmp = sb.buf;
			if (fd)
				*fd = f;
			return OPMFU_OK;
		}
		e = errno;
		opmfu_stage_done(sb.buf);
		if (e != EEXIST) {
			sbuf_release(&sb);
			return opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot create a %s in %.*s: %s", path, what, dir_len, dir,
					     strerror(e));
		}
	}
	sbuf_release(&sb);
	return opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot find a free temporary name in %.*s", path, dir_len, dir);
}

enum opmfu_status opmfu_stage_file(const char *path, char **tmp, int *fd, struct opmfu_err *err)
{
	return stage_make(path, tmp, fd, err);
}

enum opmfu_status opmfu_stage_scratch(const char *dir, char **tmp, struct opmfu_err *err)
{
	/* named as the staged form of DIR/scratch.xlsx: .scratch.xlsx.PID.N.tmp */
	char *path = opmfu_path_join(dir, "scratch.xlsx");
	enum opmfu_status st;
	if (!path)
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory naming a scratch folder", dir);
	st = stage_make(path, tmp, NULL, err);
	opmfu_free(path);
	return st;
}

/* ---- the sweep ---- */

static int all_digits(const char *s, size_t n)
{
	size_t i;
	if (!n || n > 18)
		return 0;
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n > k && !memcmp(s + n - k, suffix, k);
}

/* The PID of a staged name of opmfu's, or 0. */
static long staged_pid(const char *name)
{
	static const char *const suffixes[] = { ".csv", ".jsonl", ".xlsx", ".db", ".html" };
	size_t n = strlen(name), i;
	const char *end, *dot_n, *dot_pid;

	if (n < 8 || name[0] != '.' || !ends_with(name, n, ".tmp"))
		return 0;
	end = name + n - 4; /* ".tmp" */
	for (dot_n = end; dot_n > name && dot_n[-1] != '.'; dot_n--)
		;
	if (dot_n <= name + 1 || !all_digits(dot_n, (size_t)(end - dot_n)))
		return 0;
	dot_n--; /* the '.' before N */
	for (dot_pid = dot_n; dot_pid > name && dot_pid[-1] != '.'; dot_pid--)
		;
	if (dot_pid <= name + 1 || !all_digits(dot_pid, (size_t)(dot_n - dot_pid)))
		return 0;
	/* NAME is name[1 .. dot_pid - 1) */
	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
		if (ends_with(name + 1, (size_t)(dot_pid - 1 - (name + 1)), suffixes[i]))
			return strtol(dot_pid, NULL, 10);
	return 0;
}

void opmfu_stage_scratch_done(char *tmp)
{
	if (!tmp)
		return;
	rmdir(tmp);
	opmfu_stage_done(tmp);
	opmfu_free(tmp);
}

/* Empties and removes the scratch folder name in dir (a dead process's). */
static int remove_scratch(int parent, const char *name)
{
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((e = readdir(d))) {
		struct stat sb;
		if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(sb.st_mode))
			unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
	return unlinkat(parent, name, AT_REMOVEDIR);
}

unsigned opmfu_stage_sweep(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned removed = 0;
	long self = (long)getpid();

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		long pid = staged_pid(e->d_name);
		struct stat sb;
		if (pid <= 0 || pid == self || (pid_t)pid != pid)
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (S_ISDIR(sb.st_mode) && !strncmp(e->d_name, ".scratch.xlsx.", 14)) {
			if (remove_scratch(dirfd(d), e->d_name) == 0)
				removed++;
			continue;
		}
		if (!S_ISREG(sb.st_mode))
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0)
			removed++;
	}
	closedir(d);
	return removed;
}
