/*
 * kineto_probe.c - which files are Kineto ranks (SPEC 13): a *.json or
 * *.json.gz file whose text, within its first MiB, is an object with a
 * "traceEvents" key. The rank is distributedInfo.rank when it comes before
 * traceEvents (where torch.profiler writes it) or, in a plain file, in its
 * last MiB, else a number after "rank" in the file name, else -1; the timestamp that settles duplicate ranks is
 * the one torch.profiler's default file names carry. Reading more than the
 * head of a trace here would cost as much as analysing it.
 *
 * The run a rank is of (SPEC 17) comes from the same head: the ranks of one
 * job share distributedInfo.world_size and, running on one kind of GPU,
 * the name of deviceProperties' first device (when it comes before
 * traceEvents); ranks numbered only by their file names are one run per
 * folder; a trace with neither is a run of its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/sbuf.h"
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
	int key_world;    /* the next value is distributedInfo.world_size */
	int key_devs;     /* the value after the last top-level key is deviceProperties */
	int in_devs;      /* inside deviceProperties (an array, depth 2) */
	int devs_seen;    /* objects opened in it */
	int key_name;     /* the next value is the first device's name */
	int64_t rank, world;
	int has_rank, has_world;
	char gpu[128];    /* the first device's name; "" when not met */
};

static int sniff_value(struct sniff *s, int open, int is_number, const char *text, size_t n)
{
	if (s->depth == 0 && !open)
		return opmfu_json_stop(&s->json, OPMFU_ERR_FORMAT, "not an object");
	if (s->depth == 2 && s->in_dist && (s->key_rank || s->key_world) && is_number) {
		int64_t v;
		int *has = s->key_rank ? &s->has_rank : &s->has_world;
		if (!*has && !opmfu_kineto_int(text, n, &v) && v >= 0 && v <= 0x7fffffff) {
			*(s->key_rank ? &s->rank : &s->world) = v;
			*has = 1;
		}
	}
	if (open) {
		if (s->depth == 1) {
			s->in_dist = s->key_dist && open == 1;
			s->in_devs = s->key_devs && open == 2;
		}
		if (s->depth == 2 && s->in_devs && open == 1)
			s->devs_seen++;
		s->depth++;
	}
	s->key_rank = s->key_world = s->key_name = 0;
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
	struct sniff *s = ctx;
	if (s->depth == 3 && s->in_devs && s->devs_seen == 1 && s->key_name && !s->gpu[0])
		snprintf(s->gpu, sizeof(s->gpu), "%.*s", (int)(n < sizeof(s->gpu) ? n : sizeof(s->gpu) - 1), t);
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
		s->in_dist = s->in_devs = 0;
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
		s->key_devs = n == 16 && !memcmp(k, "deviceProperties", 16);
	} else if (s->depth == 2 && s->in_dist) {
		s->key_rank = n == 4 && !memcmp(k, "rank", 4);
		s->key_world = n == 10 && !memcmp(k, "world_size", 10);
	} else if (s->depth == 3 && s->in_devs) {
		s->key_name = n == 4 && !memcmp(k, "name", 4);
	}
	return 1;
}

static const yajl_callbacks sniff_callbacks = {
	s_null, s_bool, NULL, NULL, s_number, s_string, s_map, s_key, s_end, s_array, s_end
};

/* Reads the head of path into s. Returns 1 if it is a trace, 0 if not (or
 * it cannot be read: reading it says why), -1 when out of memory. */
static int sniff_file(const char *path, struct sniff *sp)
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
	*sp = s;
	if (oom)
		return -1;
	return s.found && s.top_object;
}

/* How much of a plain file's end the probe reads for a distributedInfo
 * written after traceEvents. */
#define TAIL_MAX (1024 * 1024)

/* the last "distributedInfo" key in buf[0..n), or NULL */
static const char *last_dist_key(const char *buf, size_t n)
{
	static const char key[] = "\"distributedInfo\"";
	size_t k = sizeof(key) - 1, i;
	for (i = n >= k ? n - k + 1 : 0; i-- > 0;)
		if (!memcmp(buf + i, key, k))
			return buf + i;
	return NULL;
}

/*
 * distributedInfo after traceEvents (a trace re-serialised by a tool that
 * appends it, or sorts keys its own way): the head says nothing, so for a
 * plain file its last MiB is searched for the key and parsed from there as
 * the rest of the top-level object ("{" + the text from the key). A gzip'd
 * file cannot be read from its end without inflating all of it, as costly
 * as analysing it: its rank stays the file name's (docs/gpu-traces.md).
 * Fills s's rank, world size and GPU name when found there.
 */
static void sniff_tail(const char *path, struct sniff *s)
{
	FILE *f = fopen(path, "rb");
	unsigned char magic[2];
	char *buf = NULL;
	const char *at;
	struct sniff t;
	struct opmfu_err e = OPMFU_ERR_INIT;
	long size, from;
	size_t n;

	if (!f)
		return;
	if (fread(magic, 1, 2, f) != 2 || (magic[0] == 0x1f && magic[1] == 0x8b) || fseek(f, 0, SEEK_END) ||
	    (size = ftell(f)) < 0)
		goto out;
	from = size > TAIL_MAX ? size - TAIL_MAX : 0;
	if (fseek(f, from, SEEK_SET) || !(buf = opmfu_malloc((size_t)(size - from) + 1)))
		goto out;
	n = fread(buf, 1, (size_t)(size - from), f);
	if (!(at = last_dist_key(buf, n)))
		goto out;
	memset(&t, 0, sizeof(t));
	if (opmfu_json_init(&t.json, &sniff_callbacks, &t, &e))
		goto out;
	/* errors past the object (the tail's end) do not matter: what was read is kept */
	if (!opmfu_json_feed(&t.json, "{", 1, &e))
		(void)opmfu_json_feed(&t.json, at, n - (size_t)(at - buf), &e);
	opmfu_json_release(&t.json);
	if (t.has_rank || t.has_world) {
		s->rank = t.rank;
		s->has_rank = t.has_rank;
		s->world = t.world;
		s->has_world = t.has_world;
		if (!s->gpu[0])
			memcpy(s->gpu, t.gpu, sizeof(s->gpu));
	}
out:
	opmfu_free(buf);
	fclose(f);
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

/* The file's name without .json, .json.gz and a .pt.trace before them. */
static size_t stem_len(const char *base)
{
	size_t n = strlen(base);
	if (n > 3 && !strcmp(base + n - 3, ".gz"))
		n -= 3;
	if (n > 5 && !memcmp(base + n - 5, ".json", 5))
		n -= 5;
	if (n > 9 && !memcmp(base + n - 9, ".pt.trace", 9))
		n -= 9;
	return n;
}

/* in's run (reader.h): its key groups ranks, its name makes the run's ID
 * ("kineto-w8-tesla-v100-sxm2-32gb"). Paths in keys are real paths, so a
 * folder or file reached two ways is one run. -1 when out of memory. */
static int fill_run(const char *path, const struct sniff *s, int name_rank, struct opmfu_rank_input *in)
{
	struct sbuf key, name;

	sbuf_init(&key);
	sbuf_init(&name);
	if (s->has_rank || s->has_world) {
		/* one job: one world size, one kind of GPU; either may be unknown */
		sbuf_addf(&key, "kineto world %lld on %s", s->has_world ? (long long)s->world : -1LL,
			  s->gpu[0] ? s->gpu : "?");
		sbuf_adds(&name, "kineto");
		if (s->has_world)
			sbuf_addf(&name, " w%lld", (long long)s->world);
		if (s->gpu[0])
			sbuf_addf(&name, " %s", s->gpu);
	} else {
		/* ranks numbered by their file names: those of one folder; else a
		 * single-device trace: a run of its own, named by its file */
		opmfu_run_by_file("kineto", path, in->dir, name_rank, stem_len(opmfu_base_of(path)), &key, &name);
	}
	return opmfu_rank_set_run(in, &key, &name);
}

enum opmfu_probe opmfu_kineto_probe_file(const char *path, int named, struct opmfu_rank_input *in,
					 struct opmfu_rank_list *more)
{
	struct sniff s;
	int is, name_rank;

	(void)more; /* one trace is one rank */
	if (!opmfu_kineto_trace_name(opmfu_base_of(path)))
		return OPMFU_PROBE_NO;
	is = sniff_file(path, &s);
	if (is < 0)
		return OPMFU_PROBE_NOMEM;
	if (!is && !named)
		return OPMFU_PROBE_NO;
	if (is && !s.has_rank && !s.has_world)
		sniff_tail(path, &s);
	name_rank = opmfu_kineto_name_rank(opmfu_base_of(path));
	in->rank = s.has_rank ? (int)s.rank : name_rank;
	if (fill_input(path, in) || fill_run(path, &s, name_rank, in)) {
		opmfu_rank_input_release(in);
		return OPMFU_PROBE_NOMEM;
	}
	return is ? OPMFU_PROBE_YES : OPMFU_PROBE_MAYBE;
}
