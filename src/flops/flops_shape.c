/*
 * flops_shape.c - the `shape` FLOPs source (SPEC 9): FLOPs derived from the
 * shapes of the calls the trace describes (flops/shape_flops.h). With
 * kernel-scope shapes (Ascend) each compute link with a formula gets a fact
 * covering that kernel; with op-scope shapes (Kineto) each op instance gets
 * one fact, from its first link, covering all its kernels. Every call is
 * computed, records or not: the analyses decide which source counts where,
 * and compare the two where both exist.
 */
#include "flops/flops.h"

#include "base/mem.h"
#include "flops/shape_flops.h"

static struct opmfu_text text_of(const struct opmfu_trace *t, uint32_t sid)
{
	struct opmfu_text x = { NULL, 0 };
	if (sid && sid != t->shape_unknown && sid < t->strs.n) {
		x.s = opmfu_strtab_str(&t->strs, sid);
		x.n = opmfu_strtab_len(&t->strs, sid);
	}
	return x;
}

/* The call link i describes. */
static void call_of(const struct opmfu_trace *t, size_t i, struct opmfu_shape_call *c)
{
	const struct opmfu_link *l = &t->links[i];
	const struct opmfu_kext *kx = &t->kx[i];
	c->type = text_of(t, kx->type);
	c->in_shapes = text_of(t, l->in_shapes);
	c->out_shapes = text_of(t, l->out_shapes);
	c->in_formats = text_of(t, kx->in_formats);
	c->out_formats = text_of(t, kx->out_formats);
	c->attrs = text_of(t, kx->attrs);
}

/* The family of each type string, looked up once per distinct type: a
 * rank's calls have few types, and the lookup compares names. fam[sid] is
 * the family + 1, 0 while not looked up. */
struct memo {
	unsigned char *fam;
	size_t n;
};

static enum opmfu_flops_family family_of(struct memo *m, const struct opmfu_trace *t, uint32_t sid)
{
	if (sid >= m->n)
		return opmfu_shape_family(text_of(t, sid));
	if (!m->fam[sid])
		m->fam[sid] = (unsigned char)(opmfu_shape_family(text_of(t, sid)) + 1);
	return (enum opmfu_flops_family)(m->fam[sid] - 1);
}

/* One fact of flops for link i, of family fam, covering the n links of cover (or just i). */
static int add(struct opmfu_flops *fl, const struct opmfu_trace *t, size_t i, enum opmfu_flops_family fam,
	       int64_t flops, const uint32_t *cover, size_t n)
{
	struct opmfu_flops_fact f;
	uint32_t *w = opmfu_flops_room(fl, cover ? n : 1);
	size_t k;
	if (!w)
		return -1;
	if (cover)
		for (k = 0; k < n; k++)
			w[k] = cover[k];
	else
		w[0] = (uint32_t)i;
	f.flops = flops;
	f.name = t->kx[i].type;
	f.name_off = 0;
	f.src = OPMFU_FLOPS_SHAPE;
	f.ref = (uint32_t)fam;
	return opmfu_flops_add(fl, &f, cover ? n : 1);
}

/* The FLOPs of link i's call, or 0 when it has no formula or its shapes do not fit. */
static int64_t link_flops(const struct opmfu_trace *t, size_t i, enum opmfu_flops_family fam, size_t *failed)
{
	struct opmfu_shape_call c;
	int64_t flops = 0;
	enum opmfu_shape_status st;
	if (!t->kx[i].type)
		return 0;
	call_of(t, i, &c);
	st = opmfu_shape_flops_fam(&c, fam, &flops);
	/* unknown shapes (N/A) are not a misfit: the trace just does not say */
	if (st != OPMFU_SHAPE_OK && st != OPMFU_SHAPE_NO_FORMULA && st != OPMFU_SHAPE_UNKNOWN)
		(*failed)++;
	return st == OPMFU_SHAPE_OK ? flops : 0;
}

static int by_kernel(struct opmfu_flops *fl, const struct opmfu_trace *t, struct memo *m)
{
	size_t i;
	int64_t flops;
	for (i = 0; i < t->n_compute; i++) {
		enum opmfu_flops_family fam = family_of(m, t, t->kx[i].type);
		if ((flops = link_flops(t, i, fam, &fl->shape_failed)) > 0 && add(fl, t, i, fam, flops, NULL, 0))
			return -1;
	}
	return 0;
}

/* Op scope: the links of each op instance together, the first in index order giving the call. */
static int by_op(struct opmfu_flops *fl, const struct opmfu_trace *t, struct memo *m)
{
	uint32_t *off = NULL, *ord = NULL;
	size_t o;
	int rc = -1;

	if (opmfu_trace_group_by_op(t, &off, &ord))
		return -1;
	for (o = 0; o < t->n_ops; o++) {
		int64_t flops;
		enum opmfu_flops_family fam;
		size_t i;
		if (off[o] == off[o + 1])
			continue;
		i = ord[off[o]];
		fam = family_of(m, t, t->kx[i].type);
		flops = link_flops(t, i, fam, &fl->shape_failed);
		if (flops > 0 && add(fl, t, i, fam, flops, ord + off[o], off[o + 1] - off[o]))
			goto out;
	}
	rc = 0;
out:
	opmfu_free(off);
	opmfu_free(ord);
	return rc;
}

static int run(struct opmfu_flops *fl, const struct opmfu_trace *t, void *state)
{
	struct memo m;
	int rc;
	(void)state;
	if (!t->kx || !t->n_compute)
		return 0;
	m.n = t->strs.n;
	if (!(m.fam = opmfu_calloc(m.n ? m.n : 1, 1)))
		return -1;
	rc = t->shape_scope == OPMFU_SHAPES_OP ? by_op(fl, t, &m) : by_kernel(fl, t, &m);
	opmfu_free(m.fam);
	return rc;
}

const struct opmfu_flops_source opmfu_flops_shape = { OPMFU_FLOPS_SHAPE, NULL, run, NULL };
