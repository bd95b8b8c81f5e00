/*
 * read_kineto.c - one Kineto rank into a struct opmfu_trace (read/reader.h):
 * the file streams through zlib and yajl in chunks (kineto_input.c,
 * kineto_events.c), the links are made once the last event is in
 * (kineto_link.c), then the modules, steps and the GPU.
 */
#include <stdio.h>
#include <string.h>

#include "base/mem.h"
#include "read/kineto/kineto.h"
#include "read/kineto/kineto_parse.h"

/* The device that ran most kernels (ties: the lowest id). */
static int main_device(const struct kin_parse *p)
{
	int d, best = -1;
	for (d = 0; d < KIN_DEVICE_COUNTS; d++)
		if (p->device_kernels[d] && (best < 0 || p->device_kernels[d] > p->device_kernels[best]))
			best = d;
	return best;
}

/* The name every deviceProperties entry gives, or NULL when they differ
 * (or there are none). */
static const char *one_name(const struct kin_parse *p)
{
	const char *name = p->n_devprops ? p->devprops[0].name : NULL;
	size_t i;
	for (i = 1; i < p->n_devprops && name; i++)
		if (strcmp(p->devprops[i].name, name))
			name = NULL;
	return name;
}

/*
 * t->device: the deviceProperties entry of the GPU that ran the kernels, or
 * the only name the entries give. The name is kept verbatim; the peak comes
 * from matching it against the chip table (lib/peaks.c: exact names,
 * aliases, " VF" and MIG suffixes), not from here. A trace whose kernels ran
 * on a device id no entry has (a VM's GPU 2 described as id 0) still names
 * its GPU when all entries are one device type: that name is taken and
 * *other says so (the device id the kernels ran on).
 */
static enum opmfu_status set_device(const struct kin_parse *p, struct opmfu_device *dev, int *other,
				    struct opmfu_err *err)
{
	int d = main_device(p);
	size_t i;
	const char *name = NULL;

	*other = -1;
	for (i = 0; i < p->n_devprops && !name && d >= 0; i++)
		if (p->devprops[i].has_id && p->devprops[i].id == d)
			name = p->devprops[i].name;
	if (!name && (name = one_name(p)) && d >= 0)
		*other = d;
	if (!name || !name[0]) {
		snprintf(dev->no_peak, sizeof(dev->no_peak), "%s names no GPU (deviceProperties) for its kernels", p->path);
		return OPMFU_OK;
	}
	if (!(dev->path = opmfu_strdup(p->path)))
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory", p->path);
	/* no_peak stays empty: whether the name gives a peak is the chip
	 * table's to say (lib/peaks.c), with its suggestions */
	snprintf(dev->chip, sizeof(dev->chip), "%s", name);
	return OPMFU_OK;
}

/* The summary's input line. The counts by flow, and of External ids taken
 * as correlation ids, appear only when there are some (traces with
 * correlation ids and honest External ids read as before). */
static void set_note(struct opmfu_trace *t, const struct kin_parse *p, const struct kin_counts *c, int other)
{
	size_t k = c->by_ext + c->by_corr + c->by_flow + c->fixed + c->none;
	char flow[48] = "", fixed[120] = "", dev[64] = "";

	if (c->by_flow)
		snprintf(flow, sizeof(flow), ", %zu by flow (ac2g)", c->by_flow);
	if (c->fixed)
		snprintf(fixed, sizeof(fixed), ", %zu through their launch (their External id's op did not hold it)",
			 c->fixed);
	if (other >= 0 && t->device.chip[0])
		snprintf(dev, sizeof(dev), " (deviceProperties' only type; kernels on device %d)", other);
	/* a long GPU name may cut the note: it is a summary line, cut at its size */
	if (snprintf(t->note, sizeof(t->note),
		     "%zu GPU kernel%s: %zu linked by External id, %zu by correlation%s%s, %zu to no op; %zu "
		     "communication kernel%s (%zu linked); %zu nn.Module call%s; %zu step%s%s%s%s%s",
		     k, k == 1 ? "" : "s", c->by_ext, c->by_corr, flow, fixed, c->none, c->comm, c->comm == 1 ? "" : "s",
		     c->comm_linked, t->mods.n, t->mods.n == 1 ? "" : "s", t->steps.n, t->steps.n == 1 ? "" : "s",
		     t->device.chip[0] ? "; GPU \"" : "", t->device.chip, t->device.chip[0] ? "\"" : "",
		     dev) >= (int)sizeof(t->note))
		t->note[sizeof(t->note) - 1] = '\0';
	if (p->n_kernels == 0) {
		/* what it holds instead, so the user knows what to collect */
		if (p->n_counters)
			snprintf(t->note, sizeof(t->note),
				 "%s holds no GPU kernels, only %zu counter or profiler-range event%s (CUPTI range "
				 "profiling) and %zu cpu_op%s: profile with the CUDA or HIP activity to analyse it",
				 p->path, p->n_counters, p->n_counters == 1 ? "" : "s", p->n_ops, p->n_ops == 1 ? "" : "s");
		else
			snprintf(t->note, sizeof(t->note),
				 "%s holds no GPU kernels (%zu cpu_op%s): profile with the CUDA or HIP activity to "
				 "analyse it",
				 p->path, p->n_ops, p->n_ops == 1 ? "" : "s");
	}
}

/* Streams the file through the parse; with a second thread, a gzip'd file
 * is inflated on it meanwhile (the parse's callbacks stay on this one). */
static enum opmfu_status parse_file(struct kin_parse *p, const char *path, int threads, struct opmfu_err *err)
{
	struct kin_in in;
	const unsigned char *buf;
	enum opmfu_status st;
	size_t n;

	st = opmfu_kin_in_open(&in, path, err);
	if (!st && threads > 1)
		opmfu_kin_in_ahead(&in);
	while (!st) {
		if ((st = opmfu_kin_in_next(&in, &buf, &n, err)))
			break;
		if (n == 0) {
			if ((st = opmfu_json_finish(&p->json, err)))
				opmfu_err_prefix(err, "%s", path);
			break;
		}
		if ((st = opmfu_json_feed(&p->json, buf, n, err)))
			opmfu_err_prefix(err, "%s", path);
	}
	opmfu_kin_in_close(&in);
	return st ? st : opmfu_kin_parse_check(p, err);
}

/* rank: the rank discovery gave the file (-2: none, a direct read), which
 * the note compares with distributedInfo's. */
static enum opmfu_status read_file(const char *path, int rank, struct opmfu_trace *t, const struct opmfu_read_opts *o,
				   struct opmfu_err *err)
{
	struct kin_parse p;
	struct kin_counts c;
	enum opmfu_status st;
	int other = -1;

	t->why_no_links = "no GPU kernel links to a cpu_op (profile with both CPU and CUDA/HIP activities)";
	t->why_no_records = "a PyTorch profiler trace holds no mfu_flops records: its FLOPs come from the ops' "
			    "shapes (profile with record_shapes=True)";
	st = opmfu_kin_parse_init(&p, t, path, err);
	if (!st)
		st = parse_file(&p, path, o ? o->threads : 1, err);
	if (!st)
		st = opmfu_kin_link(&p, &c, err);
	/* before the analyses' first arrays (on_links): the trace holds the links now */
	opmfu_kin_drop_events(&p);
	if (!st && o && o->on_links)
		o->on_links(o->ctx, t);
	if (!st)
		st = opmfu_kin_ranges(&p, err);
	if (!st)
		st = set_device(&p, &t->device, &other, err);
	if (!st) {
		t->n_bad_rows += p.n_bad;
		set_note(t, &p, &c, other);
		/* a trace with no kernels says so, naming the file and what it
		 * holds, rather than an empty report; like an Ascend rank without
		 * kernels it is a rank with no MFU, not a failed one */
		if (p.n_kernels == 0)
			t->why_no_links = t->note;
		/* the probe reads only a gzip'd file's head: a distributedInfo
		 * after traceEvents there is seen only now. A rank the probe could
		 * not number takes it (lib/rank.c); one numbered otherwise (its
		 * file name) keeps its number, which grouped it with its run,
		 * and the note says so rather than keep quiet */
		if (p.rank >= 0 && p.rank <= INT32_MAX)
			t->dist_rank = p.rank;
		if (rank == -1 && p.rank >= 0 && p.rank <= INT32_MAX) {
			size_t n = strlen(t->note);
			snprintf(t->note + n, sizeof(t->note) - n, "; rank %lld from distributedInfo after traceEvents",
				 (long long)p.rank);
		} else if (rank != -2 && p.rank >= 0 && p.rank != rank) {
			size_t n = strlen(t->note);
			snprintf(t->note + n, sizeof(t->note) - n,
				 "; distributedInfo (after traceEvents) says rank %lld, read as rank %d", (long long)p.rank,
				 rank);
		}
	}
	opmfu_kin_parse_release(&p);
	return st;
}

enum opmfu_status opmfu_read_kineto(const char *path, struct opmfu_trace *t, const struct opmfu_read_opts *o,
				    struct opmfu_err *err)
{
	return read_file(path, -2, t, o, err);
}

static enum opmfu_status read_rank(const struct opmfu_rank_input *in, struct opmfu_trace *t,
				   const struct opmfu_read_opts *o, struct opmfu_err *err)
{
	return read_file(in->path, in->rank, t, o, err);
}

const struct opmfu_reader opmfu_reader_kineto = {
	"kineto", "PyTorch profiler traces (*.json, *.json.gz)",
	NULL, opmfu_kineto_probe_file, read_rank, opmfu_kineto_trace_name
};
