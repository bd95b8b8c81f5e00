/*
 * model_args.h - the run options of a model (SPEC 12) that `opmfu model` and
 * `opmfu analyze --model` share: their getopt_long entries and their
 * parsing into struct opmfu_model_opts, so both commands take them alike.
 */
#ifndef OPMFU_MODEL_ARGS_H
#define OPMFU_MODEL_ARGS_H

#include "opmfu.h"

/* getopt_long codes of the run options; a command's own codes start at OPMFU_MO_END */
enum {
	OPMFU_MO_SEQ = 256, OPMFU_MO_BATCH, OPMFU_MO_TOKENS, OPMFU_MO_PROMPT, OPMFU_MO_WORLD, OPMFU_MO_DP,
	OPMFU_MO_STEPS, OPMFU_MO_CFG, OPMFU_MO_FWD, OPMFU_MO_NOCAUSAL, OPMFU_MO_DTYPE, OPMFU_MO_CONV, OPMFU_MO_SET,
	OPMFU_MO_END
};

/* The entries for a command's struct option array (needs <getopt.h>). */
#define OPMFU_MODEL_LONGOPTS                                                                                   \
	{ "seq-len", required_argument, NULL, OPMFU_MO_SEQ },                                                   \
	{ "global-batch", required_argument, NULL, OPMFU_MO_BATCH },                                            \
	{ "tokens-per-step", required_argument, NULL, OPMFU_MO_TOKENS },                                        \
	{ "prompt-len", required_argument, NULL, OPMFU_MO_PROMPT },                                             \
	{ "world-size", required_argument, NULL, OPMFU_MO_WORLD },                                              \
	{ "dp", required_argument, NULL, OPMFU_MO_DP },                                                         \
	{ "timesteps", required_argument, NULL, OPMFU_MO_STEPS },                                               \
	{ "cfg", required_argument, NULL, OPMFU_MO_CFG },                                                       \
	{ "forward-only", no_argument, NULL, OPMFU_MO_FWD },                                                    \
	{ "no-causal", no_argument, NULL, OPMFU_MO_NOCAUSAL },                                                  \
	{ "dtype", required_argument, NULL, OPMFU_MO_DTYPE },                                                   \
	{ "convention", required_argument, NULL, OPMFU_MO_CONV },                                               \
	{ "set", required_argument, NULL, OPMFU_MO_SET }

struct opmfu_model_args {
	struct opmfu_model_opts o;
	const char **sets; /* owned: the --set values (argv strings) */
	const char *first; /* the first run option given, e.g. "--seq-len"; NULL: none */
};

/* Defaults (the fp16 class, no prompt length given) and room for argc
 * --set values; exits when there is no memory for them. */
void opmfu_model_args_init(struct opmfu_model_args *a, int argc);
/* Takes getopt_long's code c and its argument into a when c is a run
 * option, and returns 1; otherwise returns 0. A bad value is a usage error
 * of the command cmd ("model ", "analyze "), which exits. */
int opmfu_model_args_take(struct opmfu_model_args *a, const char *cmd, int c, const char *arg);
void opmfu_model_args_release(struct opmfu_model_args *a);

/* 855166464 -> "8.552e8" (four digits); "-" for v < 0 */
const char *opmfu_format_sci(double v, char *buf, size_t size);

#endif
