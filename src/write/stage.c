/*
 * stage.c - temporary names for files written before they are made final.
 */
#include "write/stage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "base/sbuf.h"

enum opmfu_status opmfu_stage_file(const char *path, char **tmp, int *fd, struct opmfu_err *err)
{
	static atomic_uint counter;
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	/* the folder, for messages: "/" for a file at the root, "." for a bare name */
	int dir_len = slash ? (int)(slash - path) + (slash == path) : 1;
	const char *dir = slash ? path : ".";
	struct sbuf sb;
	int tries;

	sbuf_init(&sb);
	for (tries = 0; tries < 100; tries++) {
		int f;
		sbuf_reset(&sb);
		sbuf_addf(&sb, "%.*s.%s.%ld.%u.tmp", (int)(base - path), path, base, (long)getpid(),
			  atomic_fetch_add(&counter, 1u));
		if (sb.oom) {
			sbuf_release(&sb);
			return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory naming its temporary file", path);
		}
		f = open(sb.buf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (f >= 0) {
			*tmp = sb.buf;
			*fd = f;
			return OPMFU_OK;
		}
		if (errno != EEXIST) {
			int e = errno;
			sbuf_release(&sb);
			return opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot create a file in %.*s: %s", path, dir_len, dir,
					     strerror(e));
		}
	}
	sbuf_release(&sb);
	return opmfu_err_set(err, OPMFU_ERR_IO, "%s: cannot find a free temporary name in %.*s", path, dir_len, dir);
}
