/*
 * t_model_check.c - the likely reason a step's FLOPs coverage (trace FLOPs /
 * model FLOPs per device) is far from 1 (lib/model_check.c, the rules of
 * docs/model-mfu.md "The notes"): each note inside its band and just
 * outside it, and the order in which they are tried.
 */
#include "check.h"
#include "lib/model_check.h"

#define NONE NULL
#define NO_FLOPS "no FLOPs in the trace for this step"
#define PALM_MOE "palm counts every expert (6N, not 6·active)"
#define BACKWARD "≈ 1/3: backward not recorded (torch_npu records forward)"
#define FWD_TRACE "≈ 1/3: a forward-only trace? (give --forward-only)"
#define HAS_BACKWARD "≈ 3: the trace has a backward (leave out --forward-only)"
#define RECOMPUTE "≈ 4/3: recomputation (activation checkpointing)"
#define FAR_ABOVE "far above 1: is --model the model that ran?"
#define FAR_BELOW "far below 1: is --model the model that ran?"
#define ABOVE "above 1: trace overcounts, or config/options undercount"
#define FEW "the trace lacks FLOPs for over half its GEMM/conv/attention time"
#define FULL_ATTN "counts all T² attention pairs (no causal halving)"
#define BELOW "below 1: work without FLOPs, or config/options overcount"

/* training (1) or forward-only (0); records only; palm on MoE; full attention; compute coverage */
static const char *note(double coverage, int training, int records_only, int palm_moe, int full_attention,
			double compute_cov)
{
	struct opmfu_note_in in = { coverage, compute_cov, training, records_only, palm_moe, full_attention };
	return opmfu_model_note(&in);
}

static void check_note(const char *got, const char *want, int line)
{
	check_count++;
	if ((got == NULL) != (want == NULL) || (got && strcmp(got, want))) {
		check_failures++;
		fprintf(stderr, "%s:%d: note \"%s\", expected \"%s\"\n", __FILE__, line, got ? got : "(none)",
			want ? want : "(none)");
	}
}
#define NOTE(want, ...) check_note(note(__VA_ARGS__), want, __LINE__)

int main(void)
{
	/* unknown coverage, no FLOPs at all, and the band around 1 where conventions differ */
	NOTE(NONE, -1, 1, 0, 0, 0, 1);
	NOTE(NO_FLOPS, 0, 1, 1, 1, 1, 0);
	NOTE(NONE, 0.8, 1, 1, 0, 1, 0.1);
	NOTE(NONE, 1.0, 0, 0, 1, 0, 1);
	NOTE(NONE, 1.2, 1, 0, 0, 0, 1);

	/* palm on an MoE counts every expert: first of the reasons below 1, even near 1/3 */
	NOTE(PALM_MOE, 0.28, 1, 1, 1, 1, 1);
	NOTE(PALM_MOE, 0.05, 1, 1, 1, 1, 0.2);
	NOTE(ABOVE, 2.0, 1, 0, 1, 1, 1); /* not above 1 */

	/* around 1/3 of a training step: [0.25, 0.42] */
	NOTE(BACKWARD, 1.0 / 3, 1, 1, 0, 0, 0.4);
	NOTE(BACKWARD, 0.25, 1, 1, 0, 1, 0.4);
	NOTE(BACKWARD, 0.42, 1, 1, 0, 0, 0.9);
	NOTE(FWD_TRACE, 1.0 / 3, 1, 0, 0, 0, 1);
	/* outside the band with records only: few kernels with FLOPs, or the generic reason */
	NOTE(FEW, 0.24, 1, 1, 0, 0, 0.4);
	NOTE(BELOW, 0.43, 1, 1, 0, 0, 0.6);
	/* forward only: 1/3 is no backward to miss */
	NOTE(FEW, 1.0 / 3, 0, 1, 0, 0, 0.4);
	NOTE(BELOW, 1.0 / 3, 0, 1, 0, 0, 0.6);

	/* around 3 against forward-only FLOPs: [2.2, 4] */
	NOTE(HAS_BACKWARD, 3.0, 0, 0, 0, 0, 1);
	NOTE(HAS_BACKWARD, 2.2, 0, 1, 0, 1, 1);
	NOTE(HAS_BACKWARD, 4.0, 0, 0, 0, 0, 1);
	NOTE(ABOVE, 2.19, 0, 0, 0, 0, 1);
	NOTE(ABOVE, 4.01, 0, 0, 0, 0, 1);
	NOTE(ABOVE, 3.0, 1, 0, 0, 0, 1); /* a training run: 3x is no missing --forward-only */

	/* up to about 4/3 in training: (1.2, 1.45] */
	NOTE(RECOMPUTE, 1.3333, 1, 0, 0, 0, 1);
	NOTE(RECOMPUTE, 1.45, 1, 1, 0, 0, 1);
	NOTE(ABOVE, 1.46, 1, 0, 0, 0, 1);
	NOTE(ABOVE, 1.3, 0, 0, 0, 0, 1);

	/* 10x either way: no counting difference explains it */
	NOTE(ABOVE, 10.0, 1, 0, 0, 0, 1);
	NOTE(FAR_ABOVE, 10.01, 1, 0, 0, 0, 1);
	NOTE(FAR_ABOVE, 1675.96, 1, 0, 0, 1, 0.46);
	NOTE(FAR_BELOW, 0.09, 1, 0, 0, 1, 0.9);
	NOTE(FAR_BELOW, 0.09, 1, 0, 0, 0, -1); /* compute coverage unknown */
	NOTE(FEW, 0.09, 1, 0, 0, 0, 0.49);     /* the trace knows few kernels' FLOPs: that explains it */
	NOTE(BELOW, 0.1, 1, 0, 0, 0, 0.9);

	/* below 1 otherwise: few kernels with FLOPs, a convention counting every attention pair, or generic */
	NOTE(FEW, 0.6, 1, 0, 0, 1, 0.49);
	NOTE(FULL_ATTN, 0.776, 1, 0, 0, 1, 1);
	NOTE(FULL_ATTN, 0.5, 1, 1, 0, 1, 0.5);
	NOTE(BELOW, 0.49, 1, 0, 0, 1, 1);
	NOTE(BELOW, 0.776, 1, 0, 0, 0, 1);
	NOTE(BELOW, 0.79, 0, 0, 0, 0, -1);
	return check_done();
}
