/*
 * model.c - opmfu_model_compute (SPEC 12): the config through
 * read/model_config.c, the run options checked against what the config
 * is, the peak of the class asked for, and every convention of mflops/.
 */
#include <stdio.h>
#include <string.h>

#include "chips/chips.h"
#include "lib/lib.h"
#include "lib/model_check.h"
#include "mflops/mflops.h"
#include "read/model_config.h"

_Static_assert((int)OPMFU_NCONV == (int)OPMFU_MC_N && (int)OPMFU_CONV_PALM == (int)OPMFU_MC_PALM &&
		       (int)OPMFU_CONV_KEMPNERFORGE == (int)OPMFU_MC_KEMPNERFORGE &&
		       (int)OPMFU_CONV_MAXTEXT == (int)OPMFU_MC_MAXTEXT && (int)OPMFU_CONV_VERL_OMNI == (int)OPMFU_MC_VERL_OMNI,
	       "the public conventions are mflops/'s");

const char *opmfu_convention_name(int conv)
{
	return opmfu_mconv_name(conv);
}

int opmfu_convention_find(const char *name)
{
	return opmfu_mconv_find(name);
}

static const char *const class_names[OPMFU_NCLASS] = { "fp32", "tf32", "bf16/fp16", "fp8", "int8", "fp4" };
static const char *const class_keys[OPMFU_NCLASS] = { "fp32", "tf32", "fp16", "fp8", "int8", "fp4" };

/* An option the config's kind has no use for. */
static enum opmfu_status not_for(struct opmfu_err *err, const char *opt, const struct opmfu_model_cfg *c)
{
	if (c->family == OPMFU_MF_DECODER)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "%s is for diffusion transformers; %s is a decoder LM", opt,
				     c->name);
	return opmfu_err_set(err, OPMFU_ERR_USAGE, "%s is for decoder LMs; %s is a diffusion transformer", opt,
			     c->name);
}

/* The run from the options, or a usage error naming the one at fault. */
static enum opmfu_status make_run(const struct opmfu_model_opts *o, const struct opmfu_model_cfg *c,
				  struct opmfu_model_run *r, struct opmfu_err *err)
{
	int diffusion = c->family != OPMFU_MF_DECODER;

	memset(r, 0, sizeof(*r));
	/* a data-parallel size alone is the world size (no other parallelism) */
	r->world = o->world_size > 0 ? o->world_size : o->dp > 0 ? o->dp : 1;
	r->dp = o->dp > 0 ? o->dp : r->world;
	r->timesteps = o->timesteps > 0 ? o->timesteps : 1;
	r->cfg_passes = o->cfg_passes > 0 ? o->cfg_passes : 1;
	r->forward_only = o->forward_only;
	r->causal = !o->no_causal && !diffusion;
	r->seq_len = o->seq_len;
	r->batch = o->global_batch;
	if (o->seq_len <= 0)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "--seq-len is needed: %s", diffusion ?
				     "latent tokens per sample" : "tokens per sequence (attention grows with it)");
	if (o->dp > r->world)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "--dp %lld is more than the world size %lld", o->dp, r->world);
	if (!diffusion) {
		if (o->prompt_len >= 0)
			return not_for(err, "--prompt-len", c);
		if (o->timesteps > 0)
			return not_for(err, "--timesteps", c);
		if (o->cfg_passes > 0)
			return not_for(err, "--cfg", c);
		if (o->dp > 0)
			return opmfu_err_set(err, OPMFU_ERR_USAGE, "--dp is for verl-omni (diffusion transformers); "
					     "the conventions for %s divide by the world size", c->name);
		if (o->global_batch > 0 && o->tokens_per_step > 0)
			return opmfu_err_set(err, OPMFU_ERR_USAGE, "give --global-batch or --tokens-per-step, not both");
		r->tokens = o->tokens_per_step > 0 ? o->tokens_per_step : o->global_batch * o->seq_len;
		return OPMFU_OK;
	}
	if (o->tokens_per_step > 0)
		return not_for(err, "--tokens-per-step", c);
	if (o->no_causal)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "--no-causal: %s's attention is bidirectional already",
				     c->name);
	if (o->prompt_len < 0)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "--prompt-len is needed: prompt (text) tokens per sample "
				     "(0 for none)");
	if (o->global_batch <= 0)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "--global-batch is needed: samples per step");
	r->prompt_len = o->prompt_len;
	r->tokens = o->global_batch * o->seq_len;
	return OPMFU_OK;
}

static int any_peak(const struct opmfu_model_opts *o)
{
	int c;
	for (c = 0; c < OPMFU_NCLASS; c++)
		if (o->peak_tflops[c] > 0)
			return 1;
	return 0;
}

/* The peak of the class asked for: --peak, then --chip. */
static enum opmfu_status find_peak(const struct opmfu_model_opts *o, struct opmfu_model_result *res,
				   struct opmfu_err *err)
{
	int k = o->dtype_class >= 0 && o->dtype_class < OPMFU_NCLASS ? o->dtype_class : OPMFU_CLASS_FP16;
	const struct opmfu_chip *chip = NULL;

	if (o->chip && !(chip = opmfu_chip_find(o->chip))) {
		char msg[400];
		opmfu_chip_unknown(o->chip, msg, sizeof(msg));
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "%s", msg);
	}
	if (o->peak_tflops[k] > 0) {
		res->peak_tflops = o->peak_tflops[k];
		snprintf(res->peak_source, sizeof(res->peak_source), "%s, %s", class_names[k],
			 o->peak_origin ? o->peak_origin : "--peak");
	} else if (chip) {
		double v[OPMFU_NCLASS] = { chip->fp32, chip->tf32, chip->fp16, chip->fp8, chip->int8, chip->fp4 };
		if ((res->peak_tflops = v[k]) > 0)
			snprintf(res->peak_source, sizeof(res->peak_source), "%s, built-in table: %s", class_names[k],
				 chip->name);
		else
			snprintf(res->peak_source, sizeof(res->peak_source), "the table has no %s peak for %s: give "
				 "--peak %s=TFLOPS", class_keys[k], chip->name, class_keys[k]);
	} else if (any_peak(o)) {
		snprintf(res->peak_source, sizeof(res->peak_source), "none for %s: add %s=TFLOPS to %s, or choose the "
			 "class with --dtype", class_names[k], class_keys[k], o->peak_origin ? o->peak_origin : "--peak");
	} else {
		snprintf(res->peak_source, sizeof(res->peak_source), "none: give --chip or --peak for MFU");
	}
	return OPMFU_OK;
}

/* The architecture in one line. */
static void describe(const struct opmfu_model_cfg *c, char *out, size_t size)
{
	out[0] = '\0';
	if (c->family != OPMFU_MF_DECODER) {
		opmfu_bufcat(out, size, "%lld blocks, %lld heads × %lld (dim %lld)", c->layers, c->heads, c->head_dim,
			     c->hidden);
		if (c->family == OPMFU_MF_QWEN_IMAGE)
			opmfu_bufcat(out, size, ", in %lld, out %lld, patch %lld, text width %lld", c->in_channels,
				     c->out_channels, c->patch, c->joint_dim);
		else
			opmfu_bufcat(out, size, ", FFN %lld, cross-attention K/V from %lld", c->ffn,
				     c->added_kv > 0 ? c->added_kv : c->hidden);
		return;
	}
	opmfu_bufcat(out, size, "%lld layers, hidden %lld, ", c->layers, c->hidden);
	if (c->kv_lora > 0)
		opmfu_bufcat(out, size, "%lld heads of latent attention (q rank %lld, kv rank %lld, qk %lld+%lld, v %lld)",
			     c->heads, c->q_lora, c->kv_lora, c->qk_nope, c->qk_rope, c->v_head);
	else
		opmfu_bufcat(out, size, "%lld heads × %lld (%lld KV heads)", c->heads, c->head_dim, c->kv_heads);
	if (c->moe_layers < c->layers)
		opmfu_bufcat(out, size, ", MLP %lld (%s)", c->ffn, c->gated ? "gated, 3 matrices" : "2 matrices");
	if (c->experts > 0) {
		opmfu_bufcat(out, size, ", MoE on %lld of %lld layers: %lld experts of %lld, top %lld", c->moe_layers,
			     c->layers, c->experts, c->moe_ffn, c->top_k);
		if (c->shared > 0)
			opmfu_bufcat(out, size, ", %lld shared of %lld", c->shared, c->shared_ffn);
	}
	opmfu_bufcat(out, size, ", vocab %lld%s", c->vocab, c->tied ? " (tied)" : "");
	if (c->pos_embed > 0)
		opmfu_bufcat(out, size, ", %lld learned positions", c->pos_embed / c->hidden);
	if (c->window_layers > 0)
		opmfu_bufcat(out, size, ", sliding window %lld on %lld layers", c->window, c->window_layers);
	if (c->chunk_layers > 0)
		opmfu_bufcat(out, size, ", %lld-token chunks on %lld layers", c->chunk, c->chunk_layers);
}

static void fill_conv(const struct opmfu_model_opts *o, const struct opmfu_model_cfg *c,
		      const struct opmfu_model_run *r, struct opmfu_model_result *res, int k)
{
	struct opmfu_model_conv *mc = &res->conv[k];
	struct opmfu_mflops f;

	opmfu_mflops(k, c, r, &f);
	mc->name = opmfu_mconv_name(k);
	mc->applies = f.applies;
	mc->shown = o->conventions ? (o->conventions >> k & 1) != 0 : f.applies;
	mc->params = f.params;
	snprintf(mc->text, sizeof(mc->text), "%s", f.text);
	mc->flag[0] = '\0';
	/* palm's 6N holds every expert's weights while a token runs only top_k of them: beside the other
	 * conventions its MFU looks several times higher, so the row says why (SPEC 20) */
	if (k == OPMFU_CONV_PALM && f.applies && c->experts > 0)
		snprintf(mc->flag, sizeof(mc->flag), "counts all %lld experts, not the top %lld", c->experts, c->top_k);
	mc->flops_per_token = f.applies ? f.per_token : -1;
	mc->flops_per_step = mc->flops_per_device = mc->mfu = -1;
	if (!f.applies || r->tokens <= 0)
		return;
	mc->flops_per_step = f.per_step;
	mc->flops_per_device = f.per_device;
	if (o->step_time > 0 && res->peak_tflops > 0)
		mc->mfu = f.per_device / (o->step_time * res->peak_tflops * 1e12);
}

enum opmfu_status opmfu_model_compute(const struct opmfu_model_opts *o, struct opmfu_model_result *res,
				      struct opmfu_err *err)
{
	struct opmfu_model_cfg cfg;
	return opmfu_model_compute_cfg(o, res, &cfg, err);
}

enum opmfu_status opmfu_model_compute_cfg(const struct opmfu_model_opts *o, struct opmfu_model_result *res,
					  struct opmfu_model_cfg *cfg, struct opmfu_err *err)
{
	struct opmfu_model_run run;
	enum opmfu_status st;
	int k;

	memset(res, 0, sizeof(*res));
	if (!o->config)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "no model config given");
	if (o->conventions >> OPMFU_NCONV)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "no convention number %u", o->conventions);
	if ((st = opmfu_model_config_read(o->config, o->set, o->n_set, cfg, err)) ||
	    (st = make_run(o, cfg, &run, err)) || (st = find_peak(o, res, err)))
		return st;
	snprintf(res->arch, sizeof(res->arch), "%s", cfg->name);
	res->diffusion = cfg->family != OPMFU_MF_DECODER;
	describe(cfg, res->model, sizeof(res->model));
	res->params = opmfu_mflops_params(cfg);
	res->seq_len = run.seq_len;
	res->prompt_len = run.prompt_len;
	res->global_batch = run.batch;
	res->tokens_per_step = (double)run.tokens;
	res->world_size = run.world;
	res->world_defaulted = o->world_size <= 0 && o->dp <= 0;
	res->dp = run.dp;
	res->timesteps = run.timesteps;
	res->cfg_passes = run.cfg_passes;
	res->forward_only = run.forward_only;
	res->causal = run.causal;
	res->step_time = o->step_time;
	for (k = 0; k < OPMFU_NCONV; k++)
		fill_conv(o, cfg, &run, res, k);
	return OPMFU_OK;
}
