/*
 * flops.c - the FLOPs stage: the registry of sources, run in order, and
 * the fact arrays they fill.
 */
#include "flops/flops.h"

#include <string.h>

#include "base/mem.h"

_Static_assert(sizeof(struct opmfu_flops_fact) == 32, "a fact per FLOPs record: keep it small");

/* The sources, in enum opmfu_flops_src order (NULL: none yet). A source
 * later in the table may read the facts of the earlier ones, e.g. to derive
 * FLOPs only for kernels no record covers. */
static const struct opmfu_flops_source *const sources[OPMFU_FLOPS__NSRC] = {
	[OPMFU_FLOPS_RECORD] = &opmfu_flops_records,
	[OPMFU_FLOPS_SHAPE] = &opmfu_flops_shape,
};

const char *opmfu_flops_src_name(enum opmfu_flops_src src)
{
	switch (src) {
	case OPMFU_FLOPS_RECORD: return "record";
	case OPMFU_FLOPS_SHAPE: return "shape";
	case OPMFU_FLOPS__NSRC: break;
	}
	return "none";
}

void opmfu_flops_init(struct opmfu_flops *fl)
{
	memset(fl, 0, sizeof(*fl));
}

static void free_states(struct opmfu_flops *fl)
{
	int i;
	for (i = 0; i < OPMFU_FLOPS__NSRC; i++) {
		if (fl->state[i] && sources[i] && sources[i]->free_state)
			sources[i]->free_state(fl->state[i]);
		fl->state[i] = NULL;
	}
	fl->prepared = 0;
}

void opmfu_flops_release(struct opmfu_flops *fl)
{
	free_states(fl);
	opmfu_free(fl->facts);
	opmfu_free(fl->cover);
	opmfu_free(fl->bytes);
	opmfu_flops_init(fl);
}

static enum opmfu_status nomem(struct opmfu_err *err)
{
	return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory computing FLOPs");
}

enum opmfu_status opmfu_flops_prepare(struct opmfu_flops *fl, const struct opmfu_trace *t, const uint32_t *by_op,
				      size_t n_by_op, struct opmfu_err *err)
{
	uint32_t *own = NULL;
	int i, rc = 0;

	if (fl->prepared)
		return OPMFU_OK;
	if (!by_op) {
		/* every source so far wants it; one that does not could skip this */
		n_by_op = t->n_compute;
		own = opmfu_malloc((n_by_op ? n_by_op : 1) * sizeof(*own));
		if (!own || opmfu_trace_op_order(t, own)) {
			opmfu_free(own);
			return nomem(err);
		}
		by_op = own;
	}
	for (i = 0; i < OPMFU_FLOPS__NSRC && !rc; i++)
		if (sources[i] && sources[i]->prepare)
			rc = sources[i]->prepare(t, by_op, n_by_op, &fl->state[i]);
	opmfu_free(own);
	if (rc) {
		free_states(fl);
		return nomem(err);
	}
	fl->prepared = 1;
	return OPMFU_OK;
}

enum opmfu_status opmfu_flops_run(struct opmfu_flops *fl, struct opmfu_trace *t, const uint32_t *by_op,
				  size_t n_by_op, struct opmfu_err *err)
{
	enum opmfu_status st;
	int i, rc = 0;

	if ((st = opmfu_flops_prepare(fl, t, by_op, n_by_op, err)))
		return st;
	/* in start order, ties in read order; the reader delivers them so */
	if (opmfu_ranges_sort(&t->recs))
		rc = -1;
	for (i = 0; i < OPMFU_FLOPS__NSRC && !rc; i++)
		if (sources[i])
			rc = sources[i]->run(fl, t, fl->state[i]);
	free_states(fl);
	if (!rc)
		rc = opmfu_flops_bytes(fl, t);
	return rc ? nomem(err) : OPMFU_OK;
}

uint32_t *opmfu_flops_room(struct opmfu_flops *fl, size_t n)
{
	if (n >= UINT32_MAX - 1 - fl->n_cover || OPMFU_GROW(fl->cover, fl->cap_cover, fl->n_cover + n))
		return NULL;
	return fl->cover + fl->n_cover;
}

int opmfu_flops_add(struct opmfu_flops *fl, struct opmfu_flops_fact *f, size_t n)
{
	if (fl->n_facts >= UINT32_MAX - 1 || OPMFU_GROW(fl->facts, fl->cap_facts, fl->n_facts + 1))
		return -1;
	f->first = (uint32_t)fl->n_cover;
	f->n = (uint32_t)n;
	fl->facts[fl->n_facts++] = *f;
	fl->n_cover += n;
	return 0;
}
