/*
 * mflops.h - model FLOPs under the four seed conventions (SPEC 12): palm
 * (nanoGPT), kempnerforge, maxtext and verl-omni, each exactly as its seed
 * document writes it. Format-neutral: a reader fills struct opmfu_model_cfg
 * from whatever file describes the network, the caller fills struct
 * opmfu_model_run, and one function per convention gives FLOPs per token,
 * per step and per device, or says why it does not apply.
 *
 * Arithmetic is in double: every count and product stays exact while it is
 * below 2^53 (any real model's parameters and FLOPs per token), and values
 * from a hostile file cannot overflow into undefined behaviour.
 */
#ifndef OPMFU_MFLOPS_H
#define OPMFU_MFLOPS_H

enum opmfu_mfamily {
	OPMFU_MF_DECODER,    /* decoder-only LM: LLaMA, Mistral, Mixtral, Qwen, DeepSeek, GPT-2 */
	OPMFU_MF_QWEN_IMAGE, /* diffusers QwenImageTransformer2DModel: joint attention */
	OPMFU_MF_WAN,        /* diffusers WanTransformer3DModel: self- plus cross-attention */
};

/* The architecture numbers the conventions need. Counts are whole numbers;
 * 0 means "none" where a field is optional. */
struct opmfu_model_cfg {
	enum opmfu_mfamily family;
	char name[64];        /* model_type or _class_name, for messages */
	long long layers, hidden, heads, kv_heads, head_dim;
	/* decoder */
	long long ffn;        /* intermediate size of a dense layer's MLP */
	long long vocab;
	long long pos_embed;  /* learned position-embedding parameters (GPT-2's wpe); 0 with RoPE */
	int tied;             /* the LM head is the input embedding */
	int gated;            /* MLP of 3 matrices (gate, up, down) rather than 2 (up, down) */
	int qkv_bias, o_bias, mlp_bias; /* biases, which only palm's N counts */
	int norm_bias;        /* LayerNorm with a bias (GPT-2) rather than RMSNorm */
	int qk_norm;          /* a norm on each head's q and k (Qwen3) */
	/* multi-head latent attention (DeepSeek-V2/V3), when kv_lora > 0 */
	long long q_lora, kv_lora, qk_nope, qk_rope, v_head;
	/* mixture of experts, when experts > 0 */
	long long experts, top_k, moe_ffn;
	long long shared, shared_ffn; /* always-on experts per MoE layer, each with MLP size shared_ffn */
	long long moe_layers;         /* layers whose MLP is the MoE one; the others are dense */
	long long router_extra;       /* router parameters besides its hidden x experts matrix */
	/* attention span: sliding window and chunked attention, on some layers */
	long long window, window_layers;
	long long chunk, chunk_layers;
	/* diffusion transformers */
	long long in_channels, out_channels, patch, joint_dim, added_kv;
	int guidance_embeds;  /* guidance-distilled: one forward pass per step whatever the CFG */
};

/* One run: what a step processes and on how many devices. */
struct opmfu_model_run {
	long long seq_len;    /* tokens per sequence; diffusion: latent tokens per sample */
	long long prompt_len; /* diffusion: prompt (text) tokens per sample */
	long long batch;      /* sequences (samples) per step; 0 when only tokens is known */
	long long tokens;     /* tokens per step; LMs: batch x seq_len unless given */
	long long world;      /* devices */
	long long dp;         /* data-parallel size (verl-omni divides by it) */
	long long timesteps;  /* diffusion: denoising steps per call */
	long long cfg_passes; /* diffusion: forward passes per step (2 with classifier-free guidance) */
	int forward_only;     /* no backward pass: a third of training */
	int causal;           /* causal attention mask (maxtext halves the attention) */
};

enum opmfu_mconv { OPMFU_MC_PALM, OPMFU_MC_KEMPNERFORGE, OPMFU_MC_MAXTEXT, OPMFU_MC_VERL_OMNI, OPMFU_MC_N };

struct opmfu_mflops {
	int applies;
	double per_token;  /* FLOPs per token; < 0 when the convention has none (verl-omni) */
	double per_step;   /* FLOPs of one step, all devices */
	double per_device; /* per step on one device: / world, verl-omni / dp */
	double weights, attention; /* the parts of per_step: weight matmuls, attention body */
	double params;     /* the P of its 6·P term: palm's N, kempnerforge's active; else 0 */
	char text[480];    /* what it counts and how it differs; or why it does not apply */
};

/* "palm", "kempnerforge", "maxtext", "verl-omni"; NULL past the end. */
const char *opmfu_mconv_name(int conv);
/* The convention of that name, or -1. */
int opmfu_mconv_find(const char *name);

/* One convention (an enum opmfu_mconv) on a config and a run. A run with
 * tokens (or batch) 0 still gives per_token; per_step and per_device are 0. */
void opmfu_mflops(int conv, const struct opmfu_model_cfg *c, const struct opmfu_model_run *r,
		  struct opmfu_mflops *out);
void opmfu_mflops_palm(const struct opmfu_model_cfg *c, const struct opmfu_model_run *r, struct opmfu_mflops *out);
void opmfu_mflops_kempnerforge(const struct opmfu_model_cfg *c, const struct opmfu_model_run *r,
			       struct opmfu_mflops *out);
void opmfu_mflops_maxtext(const struct opmfu_model_cfg *c, const struct opmfu_model_run *r,
			  struct opmfu_mflops *out);
void opmfu_mflops_verl_omni(const struct opmfu_model_cfg *c, const struct opmfu_model_run *r,
			    struct opmfu_mflops *out);

/* Every parameter of a decoder (embeddings, biases and norms included), as
 * sum(p.numel()) over the model would give; 0 for diffusion configs. */
double opmfu_mflops_params(const struct opmfu_model_cfg *c);

/* Layers i in [0, layers) that are MoE under the rule "i >= first_dense and
 * (i + phase) % every == 0": KempnerForge and Qwen-MoE use phase 1
 * ((i + 1) % freq == 0), DeepSeek phase 0 after its first dense layers. */
long long opmfu_mflops_moe_layers(long long layers, long long first_dense, long long every, long long phase);

#endif
