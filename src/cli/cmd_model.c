/*
 * cmd_model.c - `opmfu model CONFIG`: model FLOPs per token, per step and
 * per device under every seed convention (SPEC 12), and the MFU they give
 * with a step time and a peak; side by side, each with how it counts.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/model_args.h"

static const char usage_model[] =
	"usage: opmfu model CONFIG [options]\n"
	"\n"
	"Model FLOPs and MFU of a training (or forward-only) step under the conventions\n"
	"palm (nanoGPT), kempnerforge, maxtext and verl-omni, side by side. CONFIG is a\n"
	"Hugging Face config.json (llama, mistral, mixtral, qwen2, qwen3, qwen2_moe,\n"
	"qwen3_moe, deepseek, deepseek_v2, deepseek_v3, gpt2) or a diffusers transformer\n"
	"config.json (QwenImageTransformer2DModel, WanTransformer3DModel).\n"
	"\n"
	"options:\n"
	"      --seq-len N          tokens per sequence (diffusion: latent tokens per sample)\n"
	"      --global-batch N     sequences (samples) per step, all devices\n"
	"      --tokens-per-step N  instead of --global-batch (decoder LMs)\n"
	"      --prompt-len N       diffusion: prompt (text) tokens per sample\n"
	"      --world-size N       devices (default 1)\n"
	"      --dp N               data-parallel size; verl-omni divides by it (default: world size)\n"
	"      --timesteps N        diffusion: denoising steps per training step (default 1)\n"
	"      --cfg N              diffusion: forward passes per timestep, 2 with classifier-free\n"
	"                           guidance (default 1)\n"
	"      --forward-only       no backward pass (a third of training's FLOPs)\n"
	"      --no-causal          decoder LMs: attention over every (query, key) pair\n"
	"      --step-time SECONDS  wall time of one step: gives the MFU\n"
	"      --chip NAME          the peak from the built-in table (see 'opmfu chips')\n"
	"      --peak SPEC          peak TFLOPS per class, e.g. fp16=989.4 (also OPMFU_PEAK)\n"
	"      --dtype CLASS        the peak class MFU divides by: fp16 (= bf16, default), fp8, int8,\n"
	"                           fp32, tf32\n"
	"      --convention LIST    only these, e.g. palm,maxtext (default: every one that applies)\n"
	"      --set FIELD=VALUE    supply or replace a config field, e.g. --set num_key_value_heads=8\n"
	"      --format text|tsv    tsv: one row per convention, exact numbers\n"
	"  -h, --help               show this help\n"
	"\n"
	"exit status: 0 ok, 1 the config cannot be read or lacks a field, 2 usage error\n";

enum { O_TIME = OPMFU_MO_END, O_CHIP, O_PEAK, O_FORMAT };

static const struct option longopts[] = {
	OPMFU_MODEL_LONGOPTS,
	{ "step-time", required_argument, NULL, O_TIME }, { "chip", required_argument, NULL, O_CHIP },
	{ "peak", required_argument, NULL, O_PEAK },      { "format", required_argument, NULL, O_FORMAT },
	{ "help", no_argument, NULL, 'h' },               { NULL, 0, NULL, 0 },
};

struct model_args {
	struct opmfu_model_args m; /* the run options, shared with analyze --model */
	int tsv;
};

/* The options only `opmfu model` takes. */
static void take_option(struct model_args *a, int c, const char *arg, int *have_cli_peak)
{
	struct opmfu_model_opts *o = &a->m.o;
	char msg[256], *end;

	switch (c) {
	case O_TIME:
		errno = 0;
		o->step_time = strtod(arg, &end);
		if (end == arg || *end || errno || !(o->step_time > 0) || o->step_time > 1e9)
			opmfu_die_usage("model ", "--step-time: '%s' is not a positive number of seconds", arg);
		break;
	case O_CHIP: o->chip = arg; break;
	case O_PEAK:
		if (opmfu_parse_peak_spec(arg, o->peak_tflops, NULL, msg, sizeof(msg)))
			opmfu_die_usage("model ", "--peak: %s", msg);
		o->peak_origin = "--peak";
		*have_cli_peak = 1;
		break;
	case O_FORMAT:
		if (strcmp(arg, "text") && strcmp(arg, "tsv"))
			opmfu_die_usage("model ", "--format: '%s' is not text or tsv", arg);
		a->tsv = !strcmp(arg, "tsv");
		break;
	}
}

/* Options into a; returns 1 when --help was printed. Usage errors exit. */
static int parse_args(int argc, char **argv, struct model_args *a)
{
	const char *env_peak = getenv("OPMFU_PEAK");
	char msg[256];
	int c, have_cli_peak = 0;

	a->tsv = 0;
	opmfu_model_args_init(&a->m, argc);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_model, stdout);
			return 1;
		} else if (c == ':' || c == '?') {
			opmfu_die_bad_option("model ", c, argv);
		}
		if (!opmfu_model_args_take(&a->m, "model ", c, optarg))
			take_option(a, c, optarg, &have_cli_peak);
	}
	if (optind >= argc)
		opmfu_die_usage("model ", "%s", "model needs a CONFIG (a config.json)");
	if (optind + 1 < argc)
		opmfu_die_usage("model ", "model takes one CONFIG, got also '%s'", argv[optind + 1]);
	a->m.o.config = argv[optind];
	if (!have_cli_peak && env_peak && *env_peak) {
		double bw; /* model MFU needs no bandwidth: OPMFU_PEAK's bw= is for analyze */
		if (opmfu_parse_peak_spec(env_peak, a->m.o.peak_tflops, &bw, msg, sizeof(msg)))
			opmfu_die_usage("model ", "OPMFU_PEAK: %s", msg);
		a->m.o.peak_origin = "OPMFU_PEAK";
	}
	return 0;
}

/* 8192 -> "8,192" */
static const char *grouped(double v, char *buf, size_t size)
{
	char digits[32];
	size_t n, i, o = 0;
	snprintf(digits, sizeof(digits), "%.0f", v);
	n = strlen(digits);
	for (i = 0; i < n && o + 2 < size; i++) {
		if (i > 0 && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

static void print_run(const struct opmfu_model_result *r)
{
	char b1[48], b2[48];

	opmfu_printf("run       %s", r->forward_only ? "forward only" : "training (forward + backward)");
	if (r->diffusion) {
		opmfu_printf("; %lld latent + %lld prompt tokens per sample × %lld samples; %lld timesteps × %lld forward "
		       "passes; world size %lld, dp %lld\n", r->seq_len, r->prompt_len, r->global_batch, r->timesteps,
		       r->cfg_passes, r->world_size, r->dp);
		return;
	}
	opmfu_printf("; %s attention; sequence %lld", r->causal ? "causal" : "non-causal", r->seq_len);
	if (r->tokens_per_step > 0 && r->global_batch > 0)
		opmfu_printf(" × %s sequences = %s tokens per step", grouped((double)r->global_batch, b1, sizeof(b1)),
		       grouped(r->tokens_per_step, b2, sizeof(b2)));
	else if (r->tokens_per_step > 0)
		opmfu_printf("; %s tokens per step", grouped(r->tokens_per_step, b2, sizeof(b2)));
	opmfu_printf("; world size %lld\n", r->world_size);
}

static void print_table(const struct opmfu_model_result *r)
{
	char b[3][48];
	int k, any = 0;

	opmfu_printf("%-14s %12s %12s %18s %9s\n", "convention", "FLOPs/token", "FLOPs/step", "FLOPs/step/device", "MFU");
	for (k = 0; k < OPMFU_NCONV; k++) {
		const struct opmfu_model_conv *c = &r->conv[k];
		if (!c->shown)
			continue;
		any = 1;
		opmfu_printf("%-14s %12s %12s %18s", c->name, c->applies ? opmfu_format_sci(c->flops_per_token, b[0], sizeof(b[0])) : "-",
		       c->applies ? opmfu_format_sci(c->flops_per_step, b[1], sizeof(b[1])) : "-",
		       c->applies ? opmfu_format_sci(c->flops_per_device, b[2], sizeof(b[2])) : "-");
		if (c->mfu >= 0)
			opmfu_printf(" %8.2f%%", 100 * c->mfu);
		else
			opmfu_printf(" %9s", "-");
		opmfu_printf("%s%s\n", c->flag[0] ? "  ! " : "", c->flag);
	}
	if (!any)
		opmfu_printf("(none of the conventions applies)\n");
}

static void print_text(const struct opmfu_model_opts *o, const struct opmfu_model_result *r)
{
	char b[48];
	int k;

	opmfu_printf("model     %s (%s)\n          %s\n", r->arch, o->config, r->model);
	if (r->params > 0)
		opmfu_printf("          %s parameters\n", grouped(r->params, b, sizeof(b)));
	print_run(r);
	if (r->peak_tflops > 0)
		opmfu_printf("peak      %g TFLOPS (%s)\n", r->peak_tflops, r->peak_source);
	else
		opmfu_printf("peak      %s\n", r->peak_source);
	if (r->step_time > 0)
		opmfu_printf("step time %g s\n", r->step_time);
	putchar('\n');
	print_table(r);
	putchar('\n');
	/* how each counts: every convention, shown or not, so the differences are all there */
	for (k = 0; k < OPMFU_NCONV; k++)
		opmfu_printf("%-13s %s%s\n", r->conv[k].name, r->conv[k].applies ? "" : "does not apply: ", r->conv[k].text);
	for (k = 0; k < OPMFU_NCONV; k++)
		if (r->conv[k].shown && r->conv[k].flag[0])
			opmfu_printf("! %s %s: its MFU is not comparable with the others'\n", r->conv[k].name,
				     r->conv[k].flag);
	if (!r->diffusion && r->tokens_per_step <= 0)
		opmfu_printf("FLOPs per step and MFU: give --global-batch or --tokens-per-step\n");
	else if (r->step_time <= 0)
		opmfu_printf("MFU: give --step-time\n");
}

/* One warning on stderr for every MFU above 100 %: it cannot be real, and
 * the likeliest cause is the world size, 1 when not given. */
static void warn_over_100(const struct opmfu_model_result *r)
{
	char list[256] = "";
	size_t len = 0;
	int k;
	for (k = 0; k < OPMFU_NCONV; k++)
		if (r->conv[k].shown && r->conv[k].mfu > 1 && len + 1 < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s %.2f%%", len ? ", " : "",
						r->conv[k].name, 100 * r->conv[k].mfu);
	if (!list[0])
		return;
	if (r->world_defaulted)
		opmfu_fprintf(stderr, "%s: warning: MFU above 100%% cannot be real (%s): the FLOPs per device are the "
			      "whole step's, as --world-size was not given (world size 1); give --world-size N, the "
			      "devices that ran the step\n", opmfu_prog, list);
	else
		opmfu_fprintf(stderr, "%s: warning: MFU above 100%% cannot be real (%s): check --world-size %lld, "
			      "--step-time and the peak, or the convention counts more than the step computed\n",
			      opmfu_prog, list, r->world_size);
}

/* exact: shortest round trip; unknown: empty */
static void tsv_num(double v)
{
	if (v >= 0)
		printf("\t%.17g", v);
	else
		fputs("\t", stdout);
}

static void print_tsv(const struct opmfu_model_result *r)
{
	int k;
	puts("convention\tapplies\tflops_per_token\tflops_per_step\tflops_per_device\tmfu\tparams\ttext");
	for (k = 0; k < OPMFU_NCONV; k++) {
		const struct opmfu_model_conv *c = &r->conv[k];
		if (!c->shown)
			continue;
		opmfu_printf("%s", c->name); /* tabs are the format's: raw; the texts neutralised */
		printf("\t%d", c->applies);
		tsv_num(c->flops_per_token);
		tsv_num(c->flops_per_step);
		tsv_num(c->flops_per_device);
		tsv_num(c->mfu);
		tsv_num(c->applies && c->params > 0 ? c->params : -1);
		fputs("\t", stdout);
		opmfu_printf("%s\n", c->text);
	}
}

int opmfu_cmd_model(int argc, char **argv)
{
	struct model_args a;
	struct opmfu_model_result res;
	struct opmfu_err err = OPMFU_ERR_INIT;
	enum opmfu_status st;

	if (parse_args(argc, argv, &a)) {
		opmfu_model_args_release(&a.m);
		return 0;
	}
	st = opmfu_model_compute(&a.m.o, &res, &err);
	if (st == OPMFU_OK) {
		if (a.tsv)
			print_tsv(&res);
		else
			print_text(&a.m.o, &res);
		warn_over_100(&res);
	} else {
		opmfu_fprintf(stderr, "%s: error: %s\n", opmfu_prog, err.msg);
	}
	opmfu_model_args_release(&a.m);
	return st == OPMFU_OK ? 0 : st == OPMFU_ERR_USAGE ? EXIT_USAGE : 1;
}
