/*
 * kineto_input.c - a trace file's text in chunks: read as it is, or
 * inflated when it starts with gzip's magic bytes (whatever its name says),
 * members of a concatenated gzip file one after the other, as `gzip -dc`
 * does. zlib allocates through base/mem.
 */
#include "read/kineto/kineto.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "base/thread.h"
#include "read/dirwalk.h"

#define ZBUF_SIZE (256 * 1024)
#define OUT_SIZE (256 * 1024)
/* chunks inflated ahead, the one being parsed included: two, not four, as
 * the buffers are held through the parse, when its records make a trace's
 * peak; smaller chunks instead cost more hand-overs than the memory was
 * worth (docs/performance.md) */
#define RING 2

/* The inflating thread's chunks: slot k % RING holds chunk k; chunks below
 * made are inflated, below taken handed out (the last of those still being
 * parsed). The thread stops at the end, at a fault (kept with its chunk, to
 * be told in order) or when told to. */
struct kin_ring {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned char *slot[RING];
	size_t len[RING];
	enum opmfu_status st[RING];
	struct opmfu_err err[RING];
	uint64_t made, taken;
	int stop;
};

static voidpf z_alloc(voidpf opaque, uInt items, uInt size)
{
	(void)opaque;
	if (size && items > SIZE_MAX / size)
		return Z_NULL;
	return opmfu_malloc((size_t)items * size);
}

static void z_free(voidpf opaque, voidpf p)
{
	(void)opaque;
	opmfu_free(p);
}

/* Reads more of the file into zbuf after what is left in it. */
static enum opmfu_status fill(struct kin_in *in, struct opmfu_err *err)
{
	ssize_t k;
	size_t keep = in->z.avail_in;

	if (keep && in->z.next_in != in->zbuf)
		memmove(in->zbuf, in->z.next_in, keep);
	in->z.next_in = in->zbuf;
	do
		k = read(in->fd, in->zbuf + keep, ZBUF_SIZE - keep);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return opmfu_err_set(err, OPMFU_ERR_IO, "%s: read error: %s", in->path, strerror(errno));
	if (k == 0)
		in->eof = 1;
	in->zread += (uint64_t)k;
	in->z.avail_in = (uInt)(keep + (size_t)k);
	return OPMFU_OK;
}

enum opmfu_status opmfu_kin_in_open(struct kin_in *in, const char *path, struct opmfu_err *err)
{
	enum opmfu_status st;

	memset(in, 0, sizeof(*in));
	in->path = path;
	in->fd = -1;
	in->zbuf = opmfu_malloc(ZBUF_SIZE);
	if (!in->zbuf)
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory opening the trace", path);
	/* never blocking: a FIFO named like a trace is refused (SPEC 26) */
	if ((in->fd = opmfu_open_regular(path, NULL, "cannot read", err)) < 0)
		return OPMFU_ERR_IO;
	/* two bytes decide: fill until they are in or the file ends */
	while (in->z.avail_in < 2 && !in->eof)
		if ((st = fill(in, err)))
			return st;
	if (in->z.avail_in >= 2 && in->zbuf[0] == 0x1f && in->zbuf[1] == 0x8b) {
		int rc;
		in->gz = 1;
		in->z.zalloc = z_alloc;
		in->z.zfree = z_free;
		in->z.opaque = Z_NULL;
		rc = inflateInit2(&in->z, 15 + 16); /* gzip wrapper only */
		if (rc == Z_MEM_ERROR)
			return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory opening the trace", path);
		if (rc != Z_OK)
			return opmfu_err_set(err, OPMFU_ERR_IO, "%s: zlib cannot start (%d)", path, rc);
		in->z_live = 1;
	}
	return OPMFU_OK;
}

/* After a gzip member: another one follows, or the text ends (bytes after
 * the last member that are no gzip header are ignored, as gzip does). */
static enum opmfu_status next_member(struct kin_in *in, struct opmfu_err *err)
{
	enum opmfu_status st;
	while (in->z.avail_in < 2 && !in->eof)
		if ((st = fill(in, err)))
			return st;
	if (in->z.avail_in < 2 || in->z.next_in[0] != 0x1f || in->z.next_in[1] != 0x8b) {
		in->done = 1;
		return OPMFU_OK;
	}
	if (inflateReset(&in->z) != Z_OK)
		return opmfu_err_set(err, OPMFU_ERR_IO, "%s: zlib cannot restart", in->path);
	return OPMFU_OK;
}

static enum opmfu_status inflate_some(struct kin_in *in, unsigned char *buf, size_t cap, size_t *n,
				      struct opmfu_err *err)
{
	enum opmfu_status st;

	*n = 0;
	while (*n == 0 && !in->done) {
		int rc;
		if (in->z.avail_in == 0 && !in->eof && (st = fill(in, err)))
			return st;
		in->z.next_out = buf;
		in->z.avail_out = (uInt)(cap > UINT32_MAX ? UINT32_MAX : cap);
		rc = inflate(&in->z, Z_NO_FLUSH);
		*n = (size_t)(in->z.next_out - buf);
		in->out += *n;
		if (rc == Z_STREAM_END) {
			if ((st = next_member(in, err)))
				return st;
		} else if (rc == Z_MEM_ERROR) {
			return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory inflating the trace", in->path);
		} else if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_STREAM_ERROR) {
			return opmfu_err_set(err, OPMFU_ERR_FORMAT, "%s: corrupt gzip data near compressed byte %llu: %s",
					     in->path, (unsigned long long)(in->zread - in->z.avail_in),
					     in->z.msg ? in->z.msg : "bad data");
		} else if (*n == 0 && in->z.avail_in == 0 && in->eof) {
			return opmfu_err_set(err, OPMFU_ERR_FORMAT,
					     "%s: truncated gzip file: it ends after %llu compressed bytes (%llu bytes of "
					     "text), inside its compressed stream",
					     in->path, (unsigned long long)in->zread, (unsigned long long)in->out);
		}
	}
	return OPMFU_OK;
}

enum opmfu_status opmfu_kin_in_read(struct kin_in *in, void *buf, size_t cap, size_t *n, struct opmfu_err *err)
{
	ssize_t k;

	if (in->gz)
		return inflate_some(in, buf, cap, n, err);
	if (in->z.avail_in) {
		/* what the magic-byte check read first */
		size_t c = in->z.avail_in < cap ? in->z.avail_in : cap;
		memcpy(buf, in->z.next_in, c);
		in->z.next_in += c;
		in->z.avail_in -= (uInt)c;
		in->out += c;
		*n = c;
		return OPMFU_OK;
	}
	do
		k = read(in->fd, buf, cap);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return opmfu_err_set(err, OPMFU_ERR_IO, "%s: read error: %s", in->path, strerror(errno));
	*n = (size_t)k;
	in->out += *n;
	return OPMFU_OK;
}

static void *ring_run(void *arg)
{
	struct kin_in *in = arg;
	struct kin_ring *r = in->ring;
	for (;;) {
		unsigned k;
		int last;
		pthread_mutex_lock(&r->mu);
		/* the chunk being parsed is not overwritten: RING - 1 ahead */
		while (!r->stop && r->made - r->taken >= RING - 1)
			pthread_cond_wait(&r->cv, &r->mu);
		if (r->stop) {
			pthread_mutex_unlock(&r->mu);
			return NULL;
		}
		k = (unsigned)(r->made % RING);
		pthread_mutex_unlock(&r->mu);
		memset(&r->err[k], 0, sizeof(r->err[k]));
		r->st[k] = inflate_some(in, r->slot[k], OUT_SIZE, &r->len[k], &r->err[k]);
		last = r->st[k] || r->len[k] == 0;
		pthread_mutex_lock(&r->mu);
		r->made++;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
		if (last)
			return NULL;
	}
}

static void ring_free(struct kin_ring *r)
{
	unsigned k;
	for (k = 0; k < RING; k++)
		opmfu_free(r->slot[k]);
	opmfu_free(r);
}

void opmfu_kin_in_ahead(struct kin_in *in)
{
	struct kin_ring *r;
	unsigned k;
	int mu = 0, cv = 0;

	if (!in->gz || in->ring || !(r = opmfu_calloc(1, sizeof(*r))))
		return;
	for (k = 0; k < RING; k++)
		if (!(r->slot[k] = opmfu_malloc(OUT_SIZE)))
			goto fail;
	if (!(mu = !pthread_mutex_init(&r->mu, NULL)) || !(cv = !pthread_cond_init(&r->cv, NULL)))
		goto fail;
	in->ring = r;
	if (opmfu_thread_start(&r->th, ring_run, in) == 0)
		return;
	in->ring = NULL;
fail:
	if (cv)
		pthread_cond_destroy(&r->cv);
	if (mu)
		pthread_mutex_destroy(&r->mu);
	ring_free(r);
}

enum opmfu_status opmfu_kin_in_next(struct kin_in *in, const unsigned char **p, size_t *n, struct opmfu_err *err)
{
	struct kin_ring *r = in->ring;
	unsigned k;

	if (!r) {
		if (!in->obuf && !(in->obuf = opmfu_malloc(OUT_SIZE)))
			return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory reading the trace", in->path);
		*p = in->obuf;
		return opmfu_kin_in_read(in, in->obuf, OUT_SIZE, n, err);
	}
	pthread_mutex_lock(&r->mu);
	if (r->taken > 0 && r->made >= r->taken) {
		/* the chunk handed out last is parsed: its slot is free */
		k = (unsigned)((r->taken - 1) % RING);
		if (r->st[k] || r->len[k] == 0) {
			/* the end or a fault, told again */
			pthread_mutex_unlock(&r->mu);
			*n = 0;
			*p = r->slot[k];
			return r->st[k] ? opmfu_err_set(err, r->st[k], "%s", r->err[k].msg) : OPMFU_OK;
		}
	}
	while (r->made <= r->taken)
		pthread_cond_wait(&r->cv, &r->mu);
	k = (unsigned)(r->taken++ % RING);
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	*p = r->slot[k];
	*n = r->len[k];
	return r->st[k] ? opmfu_err_set(err, r->st[k], "%s", r->err[k].msg) : OPMFU_OK;
}

void opmfu_kin_in_close(struct kin_in *in)
{
	if (in->ring) {
		struct kin_ring *r = in->ring;
		pthread_mutex_lock(&r->mu);
		r->stop = 1;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
		pthread_join(r->th, NULL);
		pthread_cond_destroy(&r->cv);
		pthread_mutex_destroy(&r->mu);
		ring_free(r);
		in->ring = NULL;
	}
	opmfu_free(in->obuf);
	if (in->z_live)
		inflateEnd(&in->z);
	if (in->fd >= 0)
		close(in->fd);
	opmfu_free(in->zbuf);
	memset(in, 0, sizeof(*in));
	in->fd = -1;
}
