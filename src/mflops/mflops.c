/*
 * mflops.c - the four seed conventions of model FLOPs (SPEC 12). Each
 * function follows its seed document term by term; docs/model-mfu.md gives
 * the formulas and where each number comes from.
 */
#include "mflops/mflops.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const conv_names[OPMFU_MC_N] = { "palm", "kempnerforge", "maxtext", "verl-omni" };

const char *opmfu_mconv_name(int conv)
{
	return conv >= 0 && conv < OPMFU_MC_N ? conv_names[conv] : NULL;
}

int opmfu_mconv_find(const char *name)
{
	int c;
	for (c = 0; c < OPMFU_MC_N; c++)
		if (!strcmp(name, conv_names[c]))
			return c;
	return -1;
}

/* Multiples of m in [0, x]. */
static long long multiples(long long x, long long m)
{
	return x < 0 ? 0 : x / m + 1;
}

long long opmfu_mflops_moe_layers(long long layers, long long first_dense, long long every, long long phase)
{
	long long lo = first_dense > 0 ? first_dense : 0;
	if (every < 1 || lo >= layers)
		return 0;
	/* i in [lo, layers) with i + phase a multiple of every */
	return multiples(layers - 1 + phase, every) - multiples(lo - 1 + phase, every);
}

/* 1234567 -> "1,234,567" (whole numbers below 1e18; others as %.4g) */
static const char *grouped(double v, char *buf, size_t size)
{
	char digits[32];
	size_t n, i, o = 0;
	if (!(fabs(v) < 1e18) || v != floor(v)) {
		snprintf(buf, size, "%.4g", v);
		return buf;
	}
	snprintf(digits, sizeof(digits), "%.0f", v);
	n = strlen(digits);
	for (i = 0; i < n && o + 2 < size; i++) {
		if (i > 0 && digits[i - 1] != '-' && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

/* Appends to out->text. */
static void say(struct opmfu_mflops *out, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
static void say(struct opmfu_mflops *out, const char *fmt, ...)
{
	size_t n = strlen(out->text);
	va_list ap;
	if (n + 1 >= sizeof(out->text))
		return;
	va_start(ap, fmt);
	vsnprintf(out->text + n, sizeof(out->text) - n, fmt, ap);
	va_end(ap);
}

/* The convention does not apply: out says why. */
#define NO(out, ...) (memset((out), 0, sizeof(*(out))), (out)->per_token = -1, say((out), __VA_ARGS__))

static int is_mla(const struct opmfu_model_cfg *c)
{
	return c->kv_lora > 0;
}

/* Tokens of one step, and the sequences they make (maxtext's B). */
static double run_tokens(const struct opmfu_model_run *r)
{
	if (r->tokens > 0)
		return (double)r->tokens;
	return (double)r->batch * (double)r->seq_len;
}

static void per_step(struct opmfu_mflops *out, double step, double divisor)
{
	out->per_step = step;
	out->per_device = divisor > 0 ? step / divisor : 0;
}

/* palm and kempnerforge: per token 6·P + att (the attention term), a
 * third of it forward only; per step x the step's tokens. */
static void six_p(struct opmfu_mflops *out, const struct opmfu_model_run *r, double P, double att)
{
	double tok = 6 * P + att;
	if (r->forward_only) {
		tok /= 3;
		att /= 3;
	}
	out->applies = 1;
	out->params = P;
	out->per_token = tok;
	out->weights = (r->forward_only ? 2 : 6) * P * run_tokens(r);
	out->attention = att * run_tokens(r);
	per_step(out, tok * run_tokens(r), (double)r->world);
}

/* ---- parameters (palm's N) ---- */

static double attn_params_all(const struct opmfu_model_cfg *c)
{
	double D = (double)c->hidden, H = (double)c->heads, hd = (double)c->head_dim, kv = (double)c->kv_heads;
	double p;

	if (is_mla(c)) {
		double dq = (double)(c->qk_nope + c->qk_rope), lq = (double)c->q_lora, lkv = (double)c->kv_lora;
		/* q through a low-rank pair with a norm between (q_lora) or one
		 * projection; kv down to kv_lora (+ the shared rope key), norm, up */
		p = lq > 0 ? D * lq + lq + lq * H * dq : D * H * dq;
		p += D * (lkv + (double)c->qk_rope) + lkv + lkv * H * (double)(c->qk_nope + c->v_head);
		p += H * (double)c->v_head * D;
		if (c->qkv_bias)
			p += (lq > 0 ? lq : 0) + lkv + (double)c->qk_rope;
		if (c->o_bias)
			p += D;
		return p;
	}
	p = D * H * hd + 2 * D * kv * hd + H * hd * D;
	if (c->qkv_bias)
		p += H * hd + 2 * kv * hd;
	if (c->o_bias)
		p += D;
	if (c->qk_norm)
		p += 2 * hd;
	return p;
}

static double mlp_params_all(const struct opmfu_model_cfg *c, long long f)
{
	double D = (double)c->hidden, F = (double)f;
	double p = (c->gated ? 3 : 2) * D * F;
	if (c->mlp_bias)
		p += (c->gated ? 2 * F : F) + D;
	return p;
}

double opmfu_mflops_params(const struct opmfu_model_cfg *c)
{
	double D = (double)c->hidden, V = (double)c->vocab, L = (double)c->layers, M = (double)c->moe_layers;
	double norm = c->norm_bias ? 2 * D : D, common, dense, moe = 0;

	if (c->family != OPMFU_MF_DECODER)
		return 0;
	common = attn_params_all(c) + 2 * norm;
	dense = common + mlp_params_all(c, c->ffn);
	if (c->experts > 0)
		moe = common + (double)c->experts * mlp_params_all(c, c->moe_ffn) +
		      (double)c->shared * mlp_params_all(c, c->shared_ffn) + D * (double)c->experts +
		      (double)c->router_extra;
	return (L - M) * dense + M * moe + V * D + (c->tied ? 0 : V * D) + (double)c->pos_embed + norm;
}

/* ---- palm: nanoGPT's estimate_mfu (seed 002) ---- */

void opmfu_mflops_palm(const struct opmfu_model_cfg *c, const struct opmfu_model_run *r, struct opmfu_mflops *out)
{
	double N, L = (double)c->layers, H = (double)c->heads, T = (double)r->seq_len, att;
	char b[32];

	if (c->family != OPMFU_MF_DECODER) {
		NO(out, "%s is a diffusion transformer: nanoGPT's 6N + 12·L·H·Q·T is for a decoder LM over one "
			"token stream", c->name);
		return;
	}
	memset(out, 0, sizeof(*out));
	N = opmfu_mflops_params(c) - (double)c->pos_embed;
	/* 12·L·H·Q·T: Q·K^T and scores·V, 2·T²·Q each per head, x3 for
	 * forward and backward; with MLA the two head sizes differ, so each
	 * matmul keeps its own: 6·L·H·T·(Dqk + Dv) */
	if (is_mla(c))
		att = 6 * L * H * T * (double)(c->qk_nope + c->qk_rope + c->v_head);
	else
		att = 12 * L * H * (double)c->head_dim * T;
	six_p(out, r, N, att);
	say(out, "%s: N = %s, every parameter but position embeddings", r->forward_only ? "(6N + 12·L·H·Q·T) / 3" :
	    "6N + 12·L·H·Q·T", grouped(N, b, sizeof(b)));
	if (c->experts > 0)
		say(out, " (all %lld experts: 6N, not 6·active)", c->experts);
	say(out, "; attention over all T² pairs (no causal halving)");
	if (c->window_layers > 0 || c->chunk_layers > 0)
		say(out, ", its sliding window or chunks not modelled");
}

/* ---- kempnerforge: metrics/mfu.py (seed 000) ---- */

void opmfu_mflops_kempnerforge(const struct opmfu_model_cfg *c, const struct opmfu_model_run *r,
			       struct opmfu_mflops *out)
{
	double D = (double)c->hidden, H = (double)c->heads, hd = (double)c->head_dim, kv = (double)c->kv_heads;
	double L = (double)c->layers, M = (double)c->moe_layers, attn, active;
	char b[32];

	if (c->family != OPMFU_MF_DECODER) {
		NO(out, "%s is a diffusion transformer: KempnerForge's formula is for a decoder LM", c->name);
		return;
	}
	if (!c->gated) {
		NO(out, "KempnerForge counts a SwiGLU MLP of 3 matrices (gate, up, down); %s's MLP has 2", c->name);
		return;
	}
	if (is_mla(c)) {
		NO(out, "KempnerForge's attention parameters are Q, K, V, O projections of heads × head_dim; "
			"%s uses multi-head latent attention (kv_lora_rank)", c->name);
		return;
	}
	memset(out, 0, sizeof(*out));
	attn = D * (H * hd) + 2 * D * (kv * hd) + (H * hd) * D;
	/* dense layers: attention + 3·D·ffn; MoE layers: top_k routed experts
	 * and the shared ones, always on; router ignored; output projection
	 * counted, input embedding not */
	active = (L - M) * (attn + 3 * D * (double)c->ffn) + D * (double)c->vocab;
	if (c->experts > 0)
		active += M * (attn + (double)c->top_k * 3 * D * (double)c->moe_ffn +
			       (double)c->shared * 3 * D * (double)c->shared_ffn);
	six_p(out, r, active, 12 * L * D * (double)r->seq_len);
	say(out, "%s: active = %s", r->forward_only ? "(6·active + 12·L·D·S) / 3" : "6·active + 12·L·D·S",
	    grouped(active, b, sizeof(b)));
	if (c->experts > 0)
		say(out, " (%lld of %lld MoE layers: top %lld of %lld experts%s, router ignored)", c->moe_layers,
		    c->layers, c->top_k, c->experts, c->shared > 0 ? " plus the shared" : "");
	say(out, "; output projection counted, input embedding, biases and norms not; "
		 "attention 12·L·D·S in full (no causal halving, GQA not discounted)");
	if (c->window_layers > 0 || c->chunk_layers > 0)
		say(out, ", sliding window not modelled");
}

/* ---- maxtext: calculate_tflops_training_per_device (seed 003) ---- */

/* Non-causal attention FLOPs of one layer over span keys per query (MLA:
 * the two matmuls have their own head sizes). */
static double mt_attention(const struct opmfu_model_cfg *c, double T, double span)
{
	double H = (double)c->heads;
	if (is_mla(c))
		return 2 * T * span * H * (double)(c->qk_nope + c->qk_rope + c->v_head);
	return 4 * T * span * H * (double)c->head_dim;
}

static double mt_ffn(const struct opmfu_model_cfg *c, double T, long long f)
{
	/* ffn1 has one matrix per activation (2 when gated), ffn2 one */
	return 2 * T * (double)f * (double)c->hidden * (c->gated ? 2 : 1) + 2 * T * (double)f * (double)c->hidden;
}

static double mt_weights(const struct opmfu_model_cfg *c, double T)
{
	double D = (double)c->hidden, H = (double)c->heads, L = (double)c->layers, M = (double)c->moe_layers;
	double qkv, proj, ffn;

	if (is_mla(c)) {
		double dq = (double)(c->qk_nope + c->qk_rope), lq = (double)c->q_lora, lkv = (double)c->kv_lora;
		qkv = lq > 0 ? 2 * T * (D * lq + lq * H * dq) : 2 * T * D * H * dq;
		qkv += 2 * T * (D * (lkv + (double)c->qk_rope) + lkv * H * (double)(c->qk_nope + c->v_head));
		proj = 2 * T * D * H * (double)c->v_head;
	} else {
		qkv = 2 * T * D * (H + 2 * (double)c->kv_heads) * (double)c->head_dim;
		proj = 2 * T * D * H * (double)c->head_dim;
	}
	ffn = (L - M) * mt_ffn(c, T, c->ffn);
	if (c->experts > 0)
		ffn += M * (2 * T * D * (double)c->experts + (double)c->top_k * mt_ffn(c, T, c->moe_ffn) +
			    (double)c->shared * mt_ffn(c, T, c->shared_ffn));
	return ffn + L * (qkv + proj) + 2 * T * D * (double)c->vocab;
}

static double mt_attention_all(const struct opmfu_model_cfg *c, double T, double S)
{
	double full = (double)(c->layers - c->window_layers - c->chunk_layers), a;

	a = full * mt_attention(c, T, S);
	if (c->window_layers > 0)
		a += (double)c->window_layers * mt_attention(c, T, fmin((double)c->window, S));
	if (c->chunk_layers > 0) {
		/* sum of the squares of the chunk lengths, per sequence */
		double C = (double)c->chunk, n = floor(S / C), rem = S - n * C;
		a += (double)c->chunk_layers * mt_attention(c, T / S, n * C * C + rem * rem);
	}
	return a;
}

void opmfu_mflops_maxtext(const struct opmfu_model_cfg *c, const struct opmfu_model_run *r, struct opmfu_mflops *out)
{
	double S = (double)r->seq_len, T = run_tokens(r), k = r->forward_only ? 1 : 3, w1, a1;

	if (c->family != OPMFU_MF_DECODER) {
		NO(out, "%s is a diffusion transformer: MaxText's matmul sum is for a decoder LM", c->name);
		return;
	}
	memset(out, 0, sizeof(*out));
	out->applies = 1;
	/* per token from one sequence: every term is linear in B */
	w1 = mt_weights(c, S);
	a1 = mt_attention_all(c, S, S);
	if (r->causal)
		a1 /= 2;
	out->per_token = k * (w1 + a1) / S;
	if (T > 0) {
		out->weights = k * mt_weights(c, T);
		out->attention = mt_attention_all(c, T, S) * (r->causal ? k / 2 : k);
		per_step(out, out->weights + out->attention, (double)r->world);
	}
	say(out, "%sΣ matmuls: QKV%s, out projection, MLP%s, LM head", r->forward_only ? "" : "3 × ",
	    is_mla(c) ? " (latent attention)" : c->kv_heads < c->heads ? " (GQA: fewer K, V heads)" : "",
	    c->experts > 0 ? " (top-k and shared experts, router counted)" : "");
	if (r->causal)
		say(out, "; attention 4·S²·B·H·d halved for the causal mask");
	else
		say(out, "; attention 4·S²·B·H·d in full (--no-causal)");
	if (c->window_layers > 0)
		say(out, "; %lld layers with a %lld-token window: 4·B·S·min(W,S)·H·d%s", c->window_layers, c->window,
		    r->causal ? ", halved too" : "");
	if (c->chunk_layers > 0)
		say(out, "; %lld layers in %lld-token chunks", c->chunk_layers, c->chunk);
	say(out, "; biases and norms not counted");
}

/* ---- verl-omni: DiffusionModelFlops estimators (seed 001) ---- */

static double qwen_image(const struct opmfu_model_cfg *c, double B, double img, double txt, double *attn)
{
	double L = (double)c->layers, dim = (double)c->heads * (double)c->head_dim, p = (double)c->patch;
	double img_dense, txt_dense, mod;

	img_dense = 6 * (L * 12 * dim * dim + (double)c->in_channels * dim + p * p * (double)c->out_channels * dim) *
		    (B * img);
	txt_dense = 6 * (L * 12 * dim * dim + (double)c->joint_dim * dim) * (B * txt);
	mod = 6 * L * 12 * dim * dim * B;
	*attn = 12 * L * (double)c->heads * (double)c->head_dim * B * (img + txt) * (img + txt);
	return img_dense + txt_dense + mod;
}

static double wan(const struct opmfu_model_cfg *c, double B, double img, double txt, double *attn)
{
	double L = (double)c->layers, dim = (double)c->heads * (double)c->head_dim;
	double kv = c->added_kv > 0 ? (double)c->added_kv : dim, hd = 12 * L * (double)c->heads * (double)c->head_dim;
	double latent, cross, mod;

	latent = 6 * L * (4 * dim * dim + 2 * dim * (double)c->ffn) * (B * img);
	cross = 6 * L * (2 * dim * dim) * (B * img) + 6 * L * (2 * dim * kv) * (B * txt);
	mod = 6 * L * (6 * dim * dim) * B;
	*attn = hd * B * img * img + hd * B * img * txt;
	return latent + cross + mod;
}

void opmfu_mflops_verl_omni(const struct opmfu_model_cfg *c, const struct opmfu_model_run *r,
			    struct opmfu_mflops *out)
{
	double B = (double)r->batch, dense, attn, mult;
	long long passes = c->guidance_embeds ? 1 : r->cfg_passes;

	if (c->family == OPMFU_MF_DECODER) {
		NO(out, "VeRL-Omni's estimators are for diffusion transformers (Qwen-Image, Wan); %s is a decoder LM",
		   c->name);
		return;
	}
	memset(out, 0, sizeof(*out));
	out->applies = 1;
	out->per_token = -1;
	if (c->family == OPMFU_MF_QWEN_IMAGE)
		dense = qwen_image(c, B, (double)r->seq_len, (double)r->prompt_len, &attn);
	else
		dense = wan(c, B, (double)r->seq_len, (double)r->prompt_len, &attn);
	mult = (double)r->timesteps * (double)passes;
	out->weights = dense * mult;
	out->attention = attn * mult;
	if (r->forward_only) {
		/* the seed divides the MFU by 3; dividing the FLOPs gives the same MFU */
		out->weights /= 3;
		out->attention /= 3;
	}
	per_step(out, out->weights + out->attention, (double)r->dp);
	if (c->family == OPMFU_MF_QWEN_IMAGE)
		say(out, "Qwen-Image: 6·(L·12·dim² + in·dim + p²·out·dim)·img + 6·(L·12·dim² + joint·dim)·txt + "
			 "6·L·12·dim²·B + 12·L·H·d·Σ(img+txt)²");
	else
		say(out, "Wan: 6·L·(6·dim² + 2·dim·ffn)·img + 6·L·2·dim·kv·txt + 6·L·6·dim²·B + "
			 "12·L·H·d·Σ(img² + img·txt)");
	say(out, ", × %lld timesteps × %lld forward passes%s%s; bidirectional attention (no causal halving); "
		 "per device ÷ dp %lld", r->timesteps, passes,
	    c->guidance_embeds && r->cfg_passes > 1 ? " (guidance_embeds: one pass whatever --cfg)" : "",
	    r->forward_only ? ", ÷ 3 forward only" : "", r->dp);
}

void opmfu_mflops(int conv, const struct opmfu_model_cfg *c, const struct opmfu_model_run *r,
		  struct opmfu_mflops *out)
{
	switch (conv) {
	case OPMFU_MC_PALM:
		opmfu_mflops_palm(c, r, out);
		break;
	case OPMFU_MC_KEMPNERFORGE:
		opmfu_mflops_kempnerforge(c, r, out);
		break;
	case OPMFU_MC_MAXTEXT:
		opmfu_mflops_maxtext(c, r, out);
		break;
	case OPMFU_MC_VERL_OMNI:
		opmfu_mflops_verl_omni(c, r, out);
		break;
	default:
		NO(out, "no convention number %d", conv);
	}
}
