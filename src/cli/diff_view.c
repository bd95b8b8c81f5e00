/*
 * diff_view.c - what `opmfu diff` prints: one screen (at most 40 lines of
 * at most 120 columns whatever the runs): the two sides, the terms, where
 * the step time went before and after (with the waiting part of exposed
 * communication), the ten largest changes in lost time over module paths,
 * op types and collectives (their exposed time; up to NCOLL of the ten),
 * the model MFU, and the ranks on one side only. The whole comparison is in
 * the OpmfuDiff table (-o).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

#define WIDTH 120
#define NTOP 10
#define NCOLL 3 /* of the NTOP lines, at most this many for collectives: modules and op types keep 7 */

static const char *const side_name[2] = { "BASE", "NEW" };

/* A time, or "-" when unknown. */
static const char *t_ns(double ns, char *buf, size_t size)
{
	if (isnan(ns))
		snprintf(buf, size, "-");
	else if (ns < 0) {
		buf[0] = '-';
		opmfu_format_ns(-ns, buf + 1, size - 1);
	} else
		opmfu_format_ns(ns, buf, size);
	return buf;
}

/* A change in time: "+3.00 us", "-500 ns", "0 ns"; "-" when unknown. */
static const char *t_delta(double ns, char *buf, size_t size)
{
	if (isnan(ns) || ns == 0)
		return t_ns(ns, buf, size);
	buf[0] = ns > 0 ? '+' : '-';
	opmfu_format_ns(fabs(ns), buf + 1, size - 1);
	return buf;
}

static const char *t_pct(double v, char *buf, size_t size)
{
	if (isnan(v))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.1f%%", v * 100);
	return buf;
}

/* s in at most w columns: its tail after "..." when longer (a module path's
 * last parts say most). */
static void fit(const char *s, size_t w, char *out, size_t size)
{
	size_t n = strlen(s);
	if (n <= w || w < 4)
		snprintf(out, size, "%s", s);
	else
		snprintf(out, size, "...%s", s + n - (w - 3));
}

static void print_sides(const struct opmfu_diff *d)
{
	char ranks[200], path[WIDTH];
	int s;

	for (s = 0; s < 2; s++) {
		const struct opmfu_diff_side *sd = &d->side[s];
		char what[64];
		snprintf(what, sizeof(what), ": %s, %zu rank%s", sd->analysed ? "input, analysed now" : "result",
			 sd->ranks, sd->ranks == 1 ? "" : "s");
		fit(sd->db && !sd->analysed ? sd->db : sd->path, WIDTH - 6 - strlen(what), path, sizeof(path));
		opmfu_printf("%-5s %s%s\n", side_name[s], path, what);
	}
	opmfu_format_ranks(d->compared, d->n_compared, ranks, 50);
	opmfu_printf("compared: %zu rank%s (%s), %zu step%s in BASE, %zu in NEW\n", d->n_compared,
	       d->n_compared == 1 ? "" : "s", ranks, d->side[0].steps, d->side[0].steps == 1 ? "" : "s",
	       d->side[1].steps);
	puts("times are sums over the compared ranks; lost = kernel time beyond what its FLOPs need at peak (all of it");
	puts("without FLOPs); MFU = FLOPs / (kernel time with FLOPs x peak); change = NEW - BASE");
}

static const struct opmfu_diff_row *find(const struct opmfu_diff *d, enum opmfu_diff_kind kind, const char *name)
{
	size_t i;
	for (i = 0; i < d->n_rows; i++)
		if (d->rows[i].kind == kind && !strcmp(d->rows[i].name, name))
			return &d->rows[i];
	return NULL;
}

static void share_line(const char *label, double a, double b, double ta, double tb)
{
	char pa[16], pb[16], xa[24], xb[24], dx[24];
	double delta = tb - ta; /* unknown (NAN) when either is */
	t_pct(a, pa, sizeof(pa));
	t_pct(b, pb, sizeof(pb));
	if (isnan(a) && isnan(b))
		pa[0] = pb[0] = '\0'; /* the step time itself: no share */
	opmfu_printf("  %-40s %8s %8s %11s %11s %11s\n", label, pa, pb, t_ns(ta, xa, 24), t_ns(tb, xb, 24),
	       t_delta(delta, dx, 24));
}

/* The waterfall of SPEC 11 before and after: shares of the step time and
 * the time each part took. */
static void print_steps(const struct opmfu_diff *d)
{
	static const struct {
		const char *name, *label;
	} parts[] = {
		{ "inefficiency", "FLOP kernels below peak" },
		{ "other_compute", "busy without FLOPs" },
		{ "comm_exposed", "communication not hidden under compute" },
		{ "idle", "idle device (nothing ran)" },
	};
	const struct opmfu_diff_row *m = find(d, OPMFU_DIFF_STEP_SHARE, "trace_mfu");
	double useful[2];
	size_t k;
	int s;

	if (!m)
		return;
	opmfu_printf("\n%-42s %8s %8s %11s %11s %11s\n", "where the step time went", "BASE", "NEW", "BASE time", "NEW time",
	       "change");
	share_line("step time", NAN, NAN, m->kernel_ns[0], m->kernel_ns[1]);
	for (s = 0; s < 2; s++)
		useful[s] = m->kernel_ns[s] - m->lost_ns[s];
	share_line("useful math (trace MFU over all steps)", m->mfu[0], m->mfu[1], useful[0], useful[1]);
	for (k = 0; k < sizeof(parts) / sizeof(parts[0]); k++) {
		const struct opmfu_diff_row *r = find(d, OPMFU_DIFF_STEP_SHARE, parts[k].name);
		if (r)
			share_line(parts[k].label, r->mfu[0], r->mfu[1], r->lost_ns[0], r->lost_ns[1]);
		/* its part spent waiting for other ranks (SPEC 19), when a side knows it */
		if (r && !strcmp(parts[k].name, "comm_exposed") &&
		    (r = find(d, OPMFU_DIFF_STEP_SHARE, "comm_wait")) && (!isnan(r->lost_ns[0]) || !isnan(r->lost_ns[1])))
			share_line("  of which waiting for other ranks", r->mfu[0], r->mfu[1], r->lost_ns[0],
				   r->lost_ns[1]);
	}
}

/* Nonzero when row a's change is larger than b's (by size; an increase
 * first, then module before op type, then in table order). */
static int larger(const struct opmfu_diff_row *a, const struct opmfu_diff_row *b)
{
	if (fabs(a->delta_lost_ns) != fabs(b->delta_lost_ns))
		return fabs(a->delta_lost_ns) > fabs(b->delta_lost_ns);
	if (a->delta_lost_ns != b->delta_lost_ns)
		return a->delta_lost_ns > b->delta_lost_ns;
	return a->kind < b->kind;
}

/* Inserts r into top[0, *n) (at most max, the largest change first). */
static void keep_top(const struct opmfu_diff_row **top, size_t *n, size_t max, const struct opmfu_diff_row *r)
{
	size_t k;
	for (k = *n; k > 0 && larger(r, top[k - 1]); k--)
		if (k < max)
			top[k] = top[k - 1];
	if (k < max) {
		top[k] = r;
		if (*n < max)
			(*n)++;
	}
}

/* The NTOP largest changes in lost time among module paths, op types and
 * collectives: the NCOLL largest collectives' (so that they are seen beside
 * hundreds of module changes), the others' in the rest, by size. */
static void print_top(const struct opmfu_diff *d)
{
	const struct opmfu_diff_row *top[NTOP], *coll[NCOLL];
	size_t i, n = 0, n_coll = 0;
	char c[7][24], name[WIDTH];

	for (i = 0; i < d->n_rows; i++) {
		const struct opmfu_diff_row *r = &d->rows[i];
		if ((r->kind != OPMFU_DIFF_MODULE && r->kind != OPMFU_DIFF_OP_TYPE && r->kind != OPMFU_DIFF_COLLECTIVE) ||
		    isnan(r->delta_lost_ns) || r->delta_lost_ns == 0)
			continue;
		if (r->kind == OPMFU_DIFF_COLLECTIVE)
			keep_top(coll, &n_coll, NCOLL, r);
		else
			keep_top(top, &n, NTOP, r);
	}
	if (n > NTOP - n_coll)
		n = NTOP - n_coll;
	for (i = 0; i < n_coll; i++)
		keep_top(top, &n, NTOP, coll[i]);
	if (n == 0) {
		puts("\nno module path or op type changed its lost time");
		return;
	}
	opmfu_printf("\nlargest changes in lost time (module: the ops directly under the path%s)\n",
		     n_coll ? "; coll: a collective's exposed time" : "");
	opmfu_printf("  %-7s %10s %10s %10s %10s %10s %9s %8s  %s\n", "kind", "BASE time", "NEW time", "BASE lost", "NEW lost",
	       "change", "BASE MFU", "NEW MFU", "name");
	for (i = 0; i < n; i++) {
		const struct opmfu_diff_row *r = top[i];
		if (r->kind == OPMFU_DIFF_OP_TYPE) /* an op type may be a kernel's name (SPEC 20) */
			opmfu_kernel_short_name(r->name, WIDTH - 87, name, sizeof(name));
		else
			fit(r->name, WIDTH - 87, name, sizeof(name));
		opmfu_printf("  %-7s %10s %10s %10s %10s %10s %9s %8s  %s\n",
			     r->kind == OPMFU_DIFF_MODULE ? "module" : r->kind == OPMFU_DIFF_COLLECTIVE ? "coll" : "op",
		       t_ns(r->kernel_ns[0], c[0], 24), t_ns(r->kernel_ns[1], c[1], 24), t_ns(r->lost_ns[0], c[2], 24),
		       t_ns(r->lost_ns[1], c[3], 24), t_delta(r->delta_lost_ns, c[4], 24), t_pct(r->mfu[0], c[5], 24),
		       t_pct(r->mfu[1], c[6], 24), name);
	}
}

/* Model MFU per convention (OpmfuModel, the run), when both sides have it. */
static void print_model(const struct opmfu_diff *d)
{
	char a[16], b[16];
	size_t i;

	if (!d->side[0].has_model && !d->side[1].has_model)
		return;
	if (!d->side[0].has_model || !d->side[1].has_model) {
		opmfu_printf("\nmodel MFU: only %s has OpmfuModel (opmfu analyze --model): not compared\n",
		       d->side[0].has_model ? "BASE" : "NEW");
		return;
	}
	opmfu_printf("\n%-42s %8s %8s\n", "model MFU of the run (OpmfuModel)", "BASE", "NEW");
	for (i = 0; i < d->n_rows; i++)
		if (d->rows[i].kind == OPMFU_DIFF_MODEL)
			opmfu_printf("  %-40s %8s %8s\n", d->rows[i].name, t_pct(d->rows[i].mfu[0], a, 16),
			       t_pct(d->rows[i].mfu[1], b, 16));
}

/* Ranks on one side only, and ranks whose analysis failed. */
static void print_ranks(const struct opmfu_diff *d)
{
	char list[WIDTH];
	int s;

	for (s = 0; s < 2; s++) {
		const struct opmfu_diff_side *sd = &d->side[s];
		if (sd->n_only) {
			opmfu_format_ranks(sd->only, sd->n_only, list, 64);
			opmfu_printf("%s %s only (not compared): %s\n", sd->n_only == 1 ? "rank" : "ranks", s ? "in NEW" : "in BASE",
			       list);
		}
		if (sd->n_failed) {
			opmfu_format_ranks(sd->failed, sd->n_failed, list, 64);
			opmfu_printf("%s whose analysis failed in %s (not compared): %s\n", sd->n_failed == 1 ? "rank" : "ranks",
			       side_name[s], list);
		}
	}
}

void opmfu_print_diff(const struct opmfu_diff *d)
{
	print_sides(d);
	print_steps(d);
	print_top(d);
	print_model(d);
	if (d->side[0].n_only || d->side[1].n_only || d->side[0].n_failed || d->side[1].n_failed)
		putchar('\n');
	print_ranks(d);
}
