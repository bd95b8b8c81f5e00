/*
 * model_args.c - the run options `opmfu model` and `opmfu analyze --model`
 * share (model_args.h): whole numbers in their ranges, --dtype's classes,
 * --convention's names and --set's values, each fault a usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/model_args.h"

static const struct option run_opts[] = { OPMFU_MODEL_LONGOPTS };

void opmfu_model_args_init(struct opmfu_model_args *a, int argc)
{
	memset(a, 0, sizeof(*a));
	a->o.dtype_class = OPMFU_CLASS_FP16;
	a->o.prompt_len = -1;
	if (!(a->sets = calloc((size_t)argc + 1, sizeof(*a->sets)))) {
		fprintf(stderr, "%s: error: out of memory\n", opmfu_prog);
		exit(1);
	}
	a->o.set = a->sets;
}

void opmfu_model_args_release(struct opmfu_model_args *a)
{
	free(a->sets);
	a->sets = NULL;
}

/* A whole number in [lo, hi] for option opt; usage errors exit. */
static long long count(const char *cmd, const char *opt, const char *arg, long long lo, long long hi)
{
	char *end, msg[128];
	long long v;
	errno = 0;
	v = strtoll(arg, &end, 10);
	if (end == arg || *end || errno || v < lo || v > hi) {
		snprintf(msg, sizeof(msg), "%s: '%%s' is not a whole number from %lld to %lld", opt, lo, hi);
		opmfu_die_usage(cmd, msg, arg);
	}
	return v;
}

static unsigned parse_conventions(const char *cmd, const char *arg)
{
	char name[32];
	unsigned bits = 0;
	const char *p = arg;
	while (1) {
		size_t n = strcspn(p, ",");
		int c = -1;
		if (n < sizeof(name)) {
			memcpy(name, p, n);
			name[n] = '\0';
			c = opmfu_convention_find(name);
		}
		if (c < 0)
			opmfu_die_usage(cmd, "--convention: '%s' is not a list of palm, kempnerforge, maxtext, verl-omni",
					arg);
		bits |= 1u << c;
		if (!p[n])
			return bits;
		p += n + 1;
	}
}

static int parse_dtype(const char *cmd, const char *arg)
{
	static const struct {
		const char *name;
		int cls;
	} names[] = { { "fp16", OPMFU_CLASS_FP16 }, { "bf16", OPMFU_CLASS_FP16 }, { "fp8", OPMFU_CLASS_FP8 },
		      { "int8", OPMFU_CLASS_INT8 }, { "fp32", OPMFU_CLASS_FP32 }, { "tf32", OPMFU_CLASS_TF32 } };
	size_t i;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(arg, names[i].name))
			return names[i].cls;
	opmfu_die_usage(cmd, "--dtype: '%s' is not fp16, bf16, fp8, int8, fp32 or tf32", arg);
}

int opmfu_model_args_take(struct opmfu_model_args *a, const char *cmd, int c, const char *arg)
{
	const long long big = 2147483647LL;
	size_t i;

	if (c < OPMFU_MO_SEQ || c >= OPMFU_MO_END)
		return 0;
	for (i = 0; !a->first && i < sizeof(run_opts) / sizeof(run_opts[0]); i++)
		if (run_opts[i].val == c)
			a->first = run_opts[i].name;
	switch (c) {
	case OPMFU_MO_SEQ: a->o.seq_len = count(cmd, "--seq-len", arg, 1, big); break;
	case OPMFU_MO_BATCH: a->o.global_batch = count(cmd, "--global-batch", arg, 1, big); break;
	case OPMFU_MO_TOKENS: a->o.tokens_per_step = count(cmd, "--tokens-per-step", arg, 1, 1000000000000000LL); break;
	case OPMFU_MO_PROMPT: a->o.prompt_len = count(cmd, "--prompt-len", arg, 0, big); break;
	case OPMFU_MO_WORLD: a->o.world_size = count(cmd, "--world-size", arg, 1, big); break;
	case OPMFU_MO_DP: a->o.dp = count(cmd, "--dp", arg, 1, big); break;
	case OPMFU_MO_STEPS: a->o.timesteps = count(cmd, "--timesteps", arg, 1, 1000000); break;
	case OPMFU_MO_CFG: a->o.cfg_passes = count(cmd, "--cfg", arg, 1, 2); break;
	case OPMFU_MO_FWD: a->o.forward_only = 1; break;
	case OPMFU_MO_NOCAUSAL: a->o.no_causal = 1; break;
	case OPMFU_MO_DTYPE: a->o.dtype_class = parse_dtype(cmd, arg); break;
	case OPMFU_MO_CONV: a->o.conventions = parse_conventions(cmd, arg); break;
	case OPMFU_MO_SET: a->sets[a->o.n_set++] = arg; break;
	}
	return 1;
}

/* 855166464 -> "8.552e8": four digits, as the tables show FLOPs */
const char *opmfu_format_sci(double v, char *buf, size_t size)
{
	char tmp[24], *e;
	if (v < 0 || isnan(v))
		return "-";
	snprintf(tmp, sizeof(tmp), "%.3e", v);
	if (!(e = strchr(tmp, 'e')))
		return snprintf(buf, size, "%s", tmp), buf;
	*e = '\0';
	snprintf(buf, size, "%se%d", tmp, atoi(e + 1));
	return buf;
}
