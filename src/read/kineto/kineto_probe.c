/*
 * kineto_probe.c - which files are Kineto ranks (SPEC 13): a *.json or
 * *.json.gz file whose text, within its first MiB, is an object with a
 * "traceEvents" key. The rank is distributedInfo.rank when it comes before
 * traceEvents (where torch.profiler writes it), else a number after "rank"
 * in the file name, else -1; the timestamp that settles duplicate ranks is
 * the one torch.profiler's default file names carry. Reading more than the
 * head of a trace here would cost as much as analysing it.
 */
#include <string.h>

#include "base/mem.h"
#include "read/dirwalk.h"
#include "read/kineto/kineto.h"
#include "read/kineto/kineto_parse.h"

struct sniff {
	struct opmfu_json json;
	size_t depth;
	int top_object;   /* the text is an object */
	int found;        /* its traceEvents key was met */
	int key_dist;     /* the value after the last top-level key is distributedInfo */
	int in_dist;      /* inside distributedInfo (depth 2) */
	int key_rank;     /* the next value is distributedInfo.rank */
	int64_t rank;
	int has_rank;
};

static int sniff_value(struct sniff *s, int open, int is_number, const char *text, size_t n)
{
	if (s->depth == 0 && !open)
		return opmfu_json_stop(&s->json, OPMFU_ERR_FORMAT, "not an object");
	if (s->depth == 2 && s->in_dist && s->key_rank && is_number && !s->has_rank) {
		int64_t v;
		if (!opmfu_kineto_int(text, n, &v) && v >= 0 && v <= 0x7fffffff) {
			s->rank = v;
			s->has_rank = 1;
		}
	}
	if (open) {
		s->in_dist = s->depth == 1 && s->key_dist && open == 1;
		s->depth++;
	}
	s->key_rank = 0;
	return 1;
}

static int s_null(void *ctx)
{
	return sniff_value(ctx, 0, 0, NULL, 0);
}

static int s_bool(void *ctx, int b)
{
	(void)b;
	return sniff_value(ctx, 0, 0, NULL, 0);
}

static int s_number(void *ctx, const char *t, size_t n)
{
	return sniff_value(ctx, 0, 1, t, n);
}

static int s_string(void *ctx, const unsigned char *t, size_t n)
{
	(void)t;
	(void)n;
	return sniff_value(ctx, 0, 0, NULL, 0);
}

static int s_map(void *ctx)
{
	struct sniff *s = ctx;
	if (s->depth == 0)
		s->top_object = 1;
	return sniff_value(ctx, 1, 0, NULL, 0);
}

static int s_array(void *ctx)
{
	struct sniff *s = ctx;
	if (s->depth == 0)
		return opmfu_json_stop(&s->json, OPMFU_ERR_FORMAT, "not an object");
	return sniff_value(ctx, 2, 0, NULL, 0);
}

static int s_end(void *ctx)
{
	struct sniff *s = ctx;
	if (--s->depth == 1)
		s->in_dist = 0;
	return 1;
}

static int s_key(void *ctx, const unsigned char *k, size_t n)
{
	struct sniff *s = ctx;
	if (s->depth == 1) {
		if (n == 11 && !memcmp(k, "traceEvents", 11)) {
			/* enough: it is a trace, and what follows is its events */
			s->found = 1;
			return opmfu_json_stop(&s->json, OPMFU_ERR_FORMAT, "found");
		}
		s->key_dist = n == 15 && !memcmp(k, "distributedInfo", 15);
	} else if (s->depth == 2 && s->in_dist) {
		s->key_rank = n == 4 && !memcmp(k, "rank", 4);
	}
	return 1;
}

static const yajl_callbacks sniff_callbacks = {
	s_null, s_bool, NULL, NULL, s_number, s_string, s_map, s_key, s_end, s_array, s_end
};

/* Reads the head of path. Returns 1 if it is a trace, 0 if not (or it
 * cannot be read: reading it says why), -1 when out of memory. */
static int sniff_file(const char *path, int *rank)
{
	struct sniff s;
	struct kin_in in;
	struct opmfu_err e = OPMFU_ERR_INIT;
	unsigned char *buf = opmfu_malloc(64 * 1024);
	enum opmfu_status st;
	size_t n, total = 0;
	int oom = 0;

	memset(&s, 0, sizeof(s));
	if (!buf)
		return -1;
	st = opmfu_kin_in_open(&in, path, &e);
	if (!st)
		st = opmfu_json_init(&s.json, &sniff_callbacks, &s, &e);
	while (!st && total < OPMFU_KINETO_SNIFF_MAX) {
		if ((st = opmfu_kin_in_read(&in, buf, 64 * 1024, &n, &e)) || n == 0)
			break;
		total += n;
		st = opmfu_json_feed(&s.json, buf, n, &e);
	}
	oom = st == OPMFU_ERR_NOMEM && !s.found;
	opmfu_json_release(&s.json);
	opmfu_kin_in_close(&in);
	opmfu_free(buf);
	if (oom)
		return -1;
	*rank = s.has_rank ? (int)s.rank : -1;
	return s.found && s.top_object;
}

/* in's path, dir, name and stamp from path. -1 when out of memory. */
static int fill_input(const char *path, struct opmfu_rank_input *in)
{
	const char *base = opmfu_base_of(path);
	size_t off = 0, len = opmfu_kineto_name_stamp(base, &off);

	in->path = opmfu_strdup(path);
	in->dir = opmfu_dir_of(path);
	in->name = in->path;
	if (len && in->path && !(in->stamp = opmfu_strndup(base + off, len)))
		return -1;
	return in->path && in->dir ? 0 : -1;
}

enum opmfu_probe opmfu_kineto_probe_file(const char *path, int named, struct opmfu_rank_input *in)
{
	int rank = -1, is;

	if (!opmfu_kineto_trace_name(opmfu_base_of(path)))
		return OPMFU_PROBE_NO;
	is = sniff_file(path, &rank);
	if (is < 0)
		return OPMFU_PROBE_NOMEM;
	if (!is && !named)
		return OPMFU_PROBE_NO;
	in->rank = rank >= 0 ? rank : opmfu_kineto_name_rank(opmfu_base_of(path));
	if (fill_input(path, in)) {
		opmfu_rank_input_release(in);
		return OPMFU_PROBE_NOMEM;
	}
	return is ? OPMFU_PROBE_YES : OPMFU_PROBE_MAYBE;
}
