/*
 * analyses.c - the registry of analyses (trace/analysis.h) and how the pool
 * runs it. Order matters: a per-rank analysis runs after those it needs,
 * and the tables of the run are the registry's in this order (OperatorMFU
 * and ModuleMFU first: a rank's workbook bits are their files bits).
 */
#include <string.h>

#include "analyze/account.h"
#include "analyze/collectives.h"
#include "analyze/hotspots.h"
#include "analyze/module_classes.h"
#include "analyze/modules.h"
#include "analyze/shapes.h"
#include "analyze/ops.h"
#include "analyze/steps.h"
#include "base/mem.h"
#include "lib/lib.h"
#include "reference/module_table.h"
#include "reference/operator_mfu.h"

const struct opmfu_analysis *const opmfu_analyses[] = {
	&opmfu_analysis_operator_mfu, /* OperatorMFU (SPEC 2) */
	&opmfu_analysis_module_mfu,   /* ModuleMFU (SPEC 3) */
	&opmfu_analysis_ops,          /* OpmfuOps (SPEC 10) */
	&opmfu_analysis_modules,      /* OpmfuModules */
	&opmfu_analysis_module_classes, /* OpmfuModuleClasses (SPEC 18) */
	&opmfu_analysis_steps,        /* OpmfuSteps (SPEC 11) */
	&opmfu_analysis_hotspots,     /* OpmfuOpTypes, OpmfuKernels */
	&opmfu_analysis_shapes,       /* OpmfuShapes (SPEC 18) */
	&opmfu_analysis_collectives,  /* OpmfuCollCalls (internal, SPEC 19) */
	&opmfu_analysis_collectives_run, /* per run: OpmfuCollectives, the held OpmfuSteps (SPEC 19) */
	&opmfu_analysis_account,      /* per run: OpmfuRun, OpmfuHotspots, OpmfuStragglers (SPEC 16) */
	NULL,
};
_Static_assert(sizeof(opmfu_analyses) / sizeof(opmfu_analyses[0]) <= OPMFU_MAX_ANALYSES + 1,
	       "OPMFU_MAX_ANALYSES holds the registry");

enum opmfu_status opmfu_states_new(void **state, enum opmfu_analysis_scope scope, struct opmfu_err *err)
{
	size_t i;
	for (i = 0; opmfu_analyses[i]; i++) {
		const struct opmfu_analysis *a = opmfu_analyses[i];
		state[i] = NULL;
		if (a->scope != scope)
			continue;
		if (!(state[i] = opmfu_calloc(1, a->state_size ? a->state_size : 1))) {
			opmfu_states_free(state, scope);
			return opmfu_err_set(err, OPMFU_ERR_NOMEM, "out of memory starting the %s analysis", a->name);
		}
		if (a->init)
			a->init(state[i]);
	}
	return OPMFU_OK;
}

void opmfu_states_free(void **state, enum opmfu_analysis_scope scope)
{
	size_t i;
	for (i = 0; opmfu_analyses[i]; i++) {
		if (opmfu_analyses[i]->scope != scope || !state[i])
			continue;
		if (opmfu_analyses[i]->release)
			opmfu_analyses[i]->release(state[i]);
		opmfu_free(state[i]);
		state[i] = NULL;
	}
}

void *opmfu_run_state(void *const *state, const struct opmfu_analysis *a)
{
	size_t i;
	for (i = 0; opmfu_analyses[i]; i++)
		if (opmfu_analyses[i] == a)
			return state[i];
	return NULL;
}

enum opmfu_status opmfu_analyses_run(int stage, const struct opmfu_rank_ctx *ctx, struct opmfu_err *err)
{
	enum opmfu_status st = OPMFU_OK;
	size_t i;
	for (i = 0; opmfu_analyses[i] && st == OPMFU_OK; i++) {
		const struct opmfu_analysis *a = opmfu_analyses[i];
		if (a->scope == OPMFU_PER_RANK && a->stage == stage && ctx->state[i])
			st = a->run(ctx->state[i], ctx, err);
	}
	return st;
}

enum opmfu_status opmfu_analyses_tables(int stage, const struct opmfu_rank_ctx *ctx, struct opmfu_table *out,
				       size_t cap, size_t *n, struct opmfu_err *err)
{
	enum opmfu_status st = OPMFU_OK;
	size_t i, k;
	*n = 0;
	for (i = 0; opmfu_analyses[i] && st == OPMFU_OK; i++) {
		const struct opmfu_analysis *a = opmfu_analyses[i];
		if (a->scope == OPMFU_PER_RANK && a->stage == stage && ctx->state[i] && *n + OPMFU_MAX_TABLES <= cap) {
			st = a->tables(ctx->state[i], ctx, out + *n, &k, err);
			*n += st == OPMFU_OK ? k : 0;
		}
	}
	return st;
}

void opmfu_analyses_written(int stage, const struct opmfu_rank_ctx *ctx)
{
	size_t i;
	for (i = 0; opmfu_analyses[i]; i++) {
		const struct opmfu_analysis *a = opmfu_analyses[i];
		if (a->scope == OPMFU_PER_RANK && a->stage == stage && ctx->state[i] && a->written)
			a->written(ctx->state[i]);
	}
}

size_t opmfu_analyses_defs(const struct opmfu_table_def **out, size_t cap)
{
	size_t i, k, n = 0;
	for (i = 0; opmfu_analyses[i]; i++)
		for (k = 0; opmfu_analyses[i]->makes && opmfu_analyses[i]->makes[k] && n < cap; k++)
			if (!(opmfu_analyses[i]->makes[k]->flags & OPMFU_TABLE_INTERNAL))
				out[n++] = opmfu_analyses[i]->makes[k];
	return n;
}
