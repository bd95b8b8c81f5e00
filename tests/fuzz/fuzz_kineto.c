/*
 * fuzz_kineto.c - any bytes as a Kineto trace file, read as they are and
 * gzip'd (read/kineto/: the probe, zlib, the yajl walk, the links): both
 * reads agree, errors name the file, and a trace that reads is one the
 * stages after the reader can trust (counts add up, every id and sid in
 * range, spans not reversed, shapes in the model's form, ranges in order,
 * launch times for every link, one device step per number, one collective
 * call per COMM range with its sizes bounded).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "fuzz_json.h"
#include "trace/shape.h"
#include "read/kineto/kineto.h"
#include "trace/coll.h"

static char dir[64];

static void put(const char *path, const uint8_t *data, size_t size, int gz)
{
	FILE *f = fopen(path, "wb");
	FUZZ_ASSERT(f != NULL);
	if (gz) {
		/* deflate with a gzip wrapper, in memory */
		z_stream z;
		uLong cap = compressBound((uLong)size) + 64;
		unsigned char *out = malloc(cap);
		FUZZ_ASSERT(out != NULL);
		memset(&z, 0, sizeof(z));
		FUZZ_ASSERT(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
		z.next_in = (unsigned char *)data;
		z.avail_in = (uInt)size;
		z.next_out = out;
		z.avail_out = (uInt)cap;
		FUZZ_ASSERT(deflate(&z, Z_FINISH) == Z_STREAM_END);
		FUZZ_ASSERT(fwrite(out, 1, z.total_out, f) == z.total_out);
		deflateEnd(&z);
		free(out);
	} else {
		FUZZ_ASSERT(size == 0 || fwrite(data, 1, size, f) == size);
	}
	fclose(f);
}

static int valid_sid(const struct opmfu_trace *t, uint32_t sid)
{
	return sid > 0 && sid < t->strs.n;
}

static void check_shapes(const struct opmfu_trace *t, uint32_t sid)
{
	int64_t dims[64];
	uint32_t end[64];
	struct opmfu_shape sh = { dims, end, 64, 64, 0, 0 };
	const char *s;
	if (sid == t->shape_unknown)
		return;
	FUZZ_ASSERT(valid_sid(t, sid));
	s = opmfu_strtab_str(&t->strs, sid);
	FUZZ_ASSERT(opmfu_shape_parse(s, opmfu_strtab_len(&t->strs, sid), &sh) != -1);
}

static void check_ranges(const struct opmfu_trace *t, const struct opmfu_ranges *rs, int sorted, int named)
{
	size_t i;
	for (i = 0; i < rs->n; i++) {
		FUZZ_ASSERT(rs->v[i].start <= rs->v[i].end);
		FUZZ_ASSERT(named ? valid_sid(t, rs->v[i].name) : rs->v[i].name == 0);
		if (sorted && i)
			FUZZ_ASSERT(rs->v[i - 1].start <= rs->v[i].start);
	}
}

static void check_trace(const struct opmfu_trace *t)
{
	size_t i;
	FUZZ_ASSERT(t->n_links == t->n_compute + t->n_comm_op && t->n_comm_sched == 0);
	FUZZ_ASSERT((t->kx != NULL) == (t->n_compute > 0));
	FUZZ_ASSERT(t->launch != NULL);
	FUZZ_ASSERT(t->shape_scope == OPMFU_SHAPES_OP);
	FUZZ_ASSERT(t->note[0] != '\0');
	for (i = 0; i < t->n_links; i++) {
		const struct opmfu_link *l = &t->links[i];
		FUZZ_ASSERT(l->op < t->n_ops);
		FUZZ_ASSERT(valid_sid(t, l->k_name) && valid_sid(t, l->op_name));
		FUZZ_ASSERT(l->k_start <= l->k_end && l->op_start <= l->op_end);
		FUZZ_ASSERT(l->dtype == 0 || l->dtype < t->n_dtypes);
		FUZZ_ASSERT(l->out_shapes == 0);
		if (i < t->n_compute) {
			check_shapes(t, l->in_shapes);
			FUZZ_ASSERT(t->kx[i].type == l->op_name);
			FUZZ_ASSERT(t->kx[i].attrs == 0 || valid_sid(t, t->kx[i].attrs));
			/* links come in kernel start order within each source */
			if (i)
				FUZZ_ASSERT(t->links[i - 1].k_start <= l->k_start);
		} else {
			FUZZ_ASSERT(l->in_shapes == 0 && l->dtype == 0);
		}
	}
	for (i = 1; i < t->n_dtypes; i++)
		FUZZ_ASSERT(valid_sid(t, t->dtypes[i].text));
	check_ranges(t, &t->mods, 1, 1);
	check_ranges(t, &t->steps, 1, 0);
	check_ranges(t, &t->kernels, 1, 1);
	check_ranges(t, &t->comm, 1, 1);
	check_ranges(t, &t->memcpy, 1, 1);
	check_ranges(t, &t->devsteps, 1, 0);
	for (i = 0; i < t->devsteps.n; i++) {
		size_t j;
		for (j = 0; j < i; j++)
			FUZZ_ASSERT(t->devsteps.v[j].value != t->devsteps.v[i].value);
	}
	FUZZ_ASSERT(t->comm.n >= t->n_comm_op && t->recs.n == 0);
	/* one collective call per COMM range, the same span (SPEC 19) */
	FUZZ_ASSERT(t->colls.n == t->comm.n);
	for (i = 0; i < t->colls.n; i++) {
		const struct opmfu_coll *c = &t->colls.v[i];
		FUZZ_ASSERT(c->start == t->comm.v[i].start && c->end == t->comm.v[i].end);
		FUZZ_ASSERT(valid_sid(t, c->name) && c->kind < OPMFU_COLL__N);
		FUZZ_ASSERT(c->group == 0 || valid_sid(t, c->group));
		FUZZ_ASSERT(c->dtype == 0 || valid_sid(t, c->dtype));
		FUZZ_ASSERT(c->group == 0 || opmfu_strtab_len(&t->strs, c->group) <= KIN_COLL_TEXT_MAX);
		FUZZ_ASSERT(c->bytes >= OPMFU_COLL_UNKNOWN && c->ranks >= 0 && c->ranks <= KIN_COLL_MAX_RANKS);
		FUZZ_ASSERT(c->wait_ns == OPMFU_COLL_UNKNOWN && c->transfer_ns == OPMFU_COLL_UNKNOWN && c->transport == 0);
	}
	for (i = 1; i < t->steps.n; i++)
		FUZZ_ASSERT(t->steps.v[i].value >= 0);
}

/* Reads path, whose text is text_len bytes (0: unknown); returns the
 * status, and the message after "path: ". */
static enum opmfu_status read_one(const char *path, size_t text_len, struct opmfu_trace *t, char *msg)
{
	struct opmfu_err e = OPMFU_ERR_INIT;
	enum opmfu_status st;
	struct opmfu_rank_input in;
	size_t n = strlen(path);

	memset(&in, 0, sizeof(in));
	/* a named *.json file is always offered to the reader */
	FUZZ_ASSERT(opmfu_kineto_probe_file(path, 1, &in, NULL) >= OPMFU_PROBE_MAYBE);
	opmfu_rank_input_release(&in);
	opmfu_trace_init(t);
	st = opmfu_read_kineto(path, t, NULL, &e);
	if (st == OPMFU_OK) {
		check_trace(t);
		msg[0] = '\0';
	} else {
		FUZZ_ASSERT(st == OPMFU_ERR_FORMAT || st == OPMFU_ERR_LIMIT);
		FUZZ_ASSERT(!strncmp(e.msg, path, n) && e.msg[n] == ':' && e.msg[n + 2] != '\0');
		snprintf(msg, OPMFU_ERR_MSG_MAX, "%s", e.msg + n + 2);
		if (text_len)
			fuzz_json_cap_check("fuzz_kineto", msg, text_len);
	}
	return st;
}

/* a note past the file's name, which a trace without kernels starts with */
static const char *note_rest(const char *note, const char *path)
{
	size_t n = strlen(path);
	return !strncmp(note, path, n) ? note + n : note;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char plain[96], gz[96], m1[OPMFU_ERR_MSG_MAX], m2[OPMFU_ERR_MSG_MAX];
	struct opmfu_trace t1, t2;
	enum opmfu_status s1, s2;
	size_t text_len;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/opmfu-fuzz-kineto-%ld", (long)getpid());
		FUZZ_ASSERT(mkdir(dir, 0700) == 0 || access(dir, W_OK) == 0);
	}
	snprintf(plain, sizeof(plain), "%s/t.json", dir);
	snprintf(gz, sizeof(gz), "%s/t.json.gz", dir);
	put(plain, data, size, 0);
	put(gz, data, size, 1);
	/* a text starting with gzip's magic bytes is inflated: its length unknown */
	text_len = size >= 2 && data[0] == 0x1f && data[1] == 0x8b ? 0 : size;
	s1 = read_one(plain, text_len, &t1, m1);
	s2 = read_one(gz, text_len, &t2, m2);
	/* the same text gives the same result, gzip'd or not (a text that
	 * itself starts with gzip's magic bytes is inflated: not compared) */
	if (size < 2 || data[0] != 0x1f || data[1] != 0x8b) {
		FUZZ_ASSERT(s1 == s2);
		FUZZ_ASSERT(!strcmp(m1, m2));
		FUZZ_ASSERT(t1.n_links == t2.n_links && t1.n_ops == t2.n_ops && t1.kernels.n == t2.kernels.n);
		FUZZ_ASSERT(t1.memcpy.n == t2.memcpy.n && t1.devsteps.n == t2.devsteps.n);
		FUZZ_ASSERT(!strcmp(note_rest(t1.note, plain), note_rest(t2.note, gz)));
	}
	opmfu_trace_release(&t1);
	opmfu_trace_release(&t2);
	unlink(plain);
	unlink(gz);
	return 0;
}
