/*
 * analysis.c - finding an analysis's state on a rank (trace/analysis.h).
 */
#include "trace/analysis.h"

void *opmfu_rank_state(const struct opmfu_rank_ctx *ctx, const struct opmfu_analysis *a)
{
	size_t i;
	for (i = 0; ctx->registry && ctx->registry[i]; i++)
		if (ctx->registry[i] == a)
			return ctx->state[i];
	return NULL;
}
