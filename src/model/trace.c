/*
 * trace.c - lifecycle of struct opmfu_trace.
 */
#include "model/trace.h"

#include <string.h>

#include "base/mem.h"
#include "base/sort.h"

void opmfu_trace_init(struct opmfu_trace *t)
{
	memset(t, 0, sizeof(*t));
	opmfu_strtab_init(&t->strs);
}

void opmfu_trace_release(struct opmfu_trace *t)
{
	opmfu_strtab_release(&t->strs);
	opmfu_free(t->links);
	opmfu_free(t->recs);
	opmfu_free(t->mods);
	opmfu_device_release(&t->device);
	opmfu_trace_init(t);
}

static int rec_before(const void *a, const void *b)
{
	return ((const struct opmfu_flops_rec *)a)->start < ((const struct opmfu_flops_rec *)b)->start;
}

int opmfu_trace_sort_recs(struct opmfu_trace *t)
{
	size_t i;
	for (i = 1; i < t->n_recs && t->recs[i - 1].start <= t->recs[i].start; i++)
		;
	/* stable: records that start together keep their read order */
	return i < t->n_recs ? opmfu_sort_array(t->recs, t->n_recs, sizeof(*t->recs), rec_before) : 0;
}

const char *opmfu_drop_name(enum opmfu_drop why)
{
	switch (why) {
	case OPMFU_DROP_FORMAT: return "malformed message";
	case OPMFU_DROP_ZERO: return "zero FLOPs";
	case OPMFU_DROP_OVERFLOW: return "FLOPs out of range";
	case OPMFU_DROP_RANGE: return "bad time range";
	case OPMFU_DROP_NO_KERNEL: return "no kernel inside";
	case OPMFU_DROP_DURATION: return "zero kernel time";
	case OPMFU_DROP_DTYPE: return "unsupported dtype";
	case OPMFU_DROP_NO_PEAK: return "no peak for dtype";
	case OPMFU_DROP__COUNT: break;
	}
	return "?";
}
