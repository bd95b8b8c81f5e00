/*
 * t_mflops.c - the four model FLOPs conventions (mflops/, SPEC 12) on
 * hand-built configs, each expected number derived below from the seed
 * document's own formula (../shared/seeds/): 002 nanoGPT (palm), 000
 * KempnerForge, 003 MaxText, 001 VeRL-Omni. Every value compared exactly
 * is a whole number below 2^53, so double holds it exactly.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "mflops/mflops.h"

static struct opmfu_model_run run(long long seq, long long batch)
{
	struct opmfu_model_run r;
	memset(&r, 0, sizeof(r));
	r.seq_len = seq;
	r.batch = batch;
	r.tokens = seq * batch;
	r.world = r.dp = 1;
	r.timesteps = r.cfg_passes = 1;
	r.causal = 1;
	return r;
}

/* GPT-2 124M as Hugging Face's config.json (and nanoGPT's from_pretrained) has it. */
static struct opmfu_model_cfg gpt2(long long vocab)
{
	struct opmfu_model_cfg c;
	memset(&c, 0, sizeof(c));
	strcpy(c.name, "gpt2");
	c.layers = 12, c.hidden = 768, c.heads = c.kv_heads = 12, c.head_dim = 64;
	c.ffn = 3072, c.vocab = vocab, c.pos_embed = 1024 * 768, c.tied = 1;
	c.qkv_bias = c.o_bias = c.mlp_bias = c.norm_bias = 1;
	return c;
}

/* Llama-3-8B: 32 layers, 4096 wide, 32 heads of 128, 8 KV heads, SwiGLU 14336, vocab 128256, untied. */
static struct opmfu_model_cfg llama3_8b(void)
{
	struct opmfu_model_cfg c;
	memset(&c, 0, sizeof(c));
	strcpy(c.name, "llama");
	c.layers = 32, c.hidden = 4096, c.heads = 32, c.kv_heads = 8, c.head_dim = 128;
	c.ffn = 14336, c.vocab = 128256, c.gated = 1;
	return c;
}

/*
 * palm (seed 002, nanoGPT estimate_mfu): flops_per_token = 6N + 12·L·H·Q·T,
 * N = get_num_params() = every parameter less the position embeddings (wpe).
 *
 * GPT-2 124M (D = 768, L = 12, H = 12, Q = 64, T = 1024, vocab 50257):
 *   per layer: ln_1 2D + c_attn D·3D + 3D + c_proj D·D + D + ln_2 2D
 *              + c_fc D·4D + 4D + c_proj 4D·D + D = 12D² + 13D
 *            = 7,077,888 + 9,984 = 7,087,872;  x 12 = 85,054,464
 *   wte 50257·768 = 38,597,376 (the LM head is tied to it), wpe 1024·768 =
 *   786,432, ln_f 2·768 = 1,536: all = 124,439,808 (GPT-2's published count)
 *   N = 124,439,808 - 786,432 = 123,653,376
 *   6N = 741,920,256;  12·12·12·64·1024 = 113,246,208
 *   flops_per_token = 855,166,464
 * nanoGPT's own GPTConfig pads the vocab to 50304: 47·768 = 36,096 more, N =
 * 123,689,472 (train.py prints "number of parameters: 123.69M"), 6N =
 * 742,136,832, flops_per_token = 855,383,040.
 * flops_per_fwdbwd = flops_per_token · T; per iteration x sequences: with 8
 * sequences, 855,166,464 · 8,192 = 7,005,523,673,088.
 */
static void test_palm(void)
{
	struct opmfu_model_cfg c = gpt2(50257);
	struct opmfu_model_run r = run(1024, 8);
	struct opmfu_mflops f;

	CHECK_DBL(opmfu_mflops_params(&c), 124439808);
	opmfu_mflops_palm(&c, &r, &f);
	CHECK(f.applies);
	CHECK_DBL(f.params, 123653376);
	CHECK_DBL(f.per_token, 855166464);
	CHECK_DBL(f.per_step, 7005523673088.0);
	CHECK_DBL(f.per_device, 7005523673088.0);
	/* the parts: 6N·tokens and 12LHQT·tokens */
	CHECK_DBL(f.weights, 741920256.0 * 8192);
	CHECK_DBL(f.attention, 113246208.0 * 8192);
	CHECK_STR(f.text, "6N + 12·L·H·Q·T: N = 123,653,376, every parameter but position embeddings; attention "
			  "over all T² pairs (no causal halving)");
	c = gpt2(50304);
	opmfu_mflops_palm(&c, &r, &f);
	CHECK_DBL(f.params, 123689472);
	CHECK_DBL(f.per_token, 855383040);
	/* 8 devices: nanoGPT's per-process iteration is an eighth of the global one */
	c = gpt2(50257);
	r.world = 8;
	opmfu_mflops_palm(&c, &r, &f);
	CHECK_DBL(f.per_device, 7005523673088.0 / 8);
	/* forward only: 2N + 4·L·H·Q·T = 247,306,752 + 37,748,736 = 285,055,488 */
	r.forward_only = 1;
	opmfu_mflops_palm(&c, &r, &f);
	CHECK_DBL(f.per_token, 285055488);
	/* causal makes no difference to palm; no batch gives per token only */
	r = run(1024, 0);
	r.causal = 0;
	opmfu_mflops_palm(&c, &r, &f);
	CHECK_DBL(f.per_token, 855166464);
	CHECK_DBL(f.per_step, 0);
}

/*
 * kempnerforge (seed 000): flops_per_token = 6·active + 12·L·D·S,
 * attn = D·(H·hd) + 2·D·(KV·hd) + (H·hd)·D, mlp = 3·D·ffn (SwiGLU),
 * output = V·D; active = L·(attn + mlp) + output (dense).
 *
 * Llama-3-8B at S = 8192:
 *   attn = 16,777,216 + 8,388,608 + 16,777,216 = 41,943,040
 *   mlp = 3·4096·14336 = 176,160,768;  per layer 218,103,808, x 32 = 6,979,321,856
 *   output = 128256·4096 = 525,336,576;  active = 7,504,658,432
 *   6·active = 45,027,950,592;  12·32·4096·8192 = 12,884,901,888
 *   flops_per_token = 57,912,852,480
 */
static void test_kempnerforge_dense(void)
{
	struct opmfu_model_cfg c = llama3_8b();
	struct opmfu_model_run r = run(8192, 4);
	struct opmfu_mflops f;

	opmfu_mflops_kempnerforge(&c, &r, &f);
	CHECK(f.applies);
	CHECK_DBL(f.params, 7504658432.0);
	CHECK_DBL(f.per_token, 57912852480.0);
	CHECK_DBL(f.per_step, 57912852480.0 * 32768);
	/* GQA is not discounted in the attention term: 8 or 32 KV heads change
	 * only attn (2·D·KV·hd): 32 KV heads add 2·4096·24·128 = 25,165,824 per
	 * layer, x 32 x 6 = 4,831,838,208 */
	c.kv_heads = 32;
	opmfu_mflops_kempnerforge(&c, &r, &f);
	CHECK_DBL(f.per_token, 57912852480.0 + 4831838208.0);
	/* a two-matrix MLP is not the seed's SwiGLU */
	c = gpt2(50257);
	opmfu_mflops_kempnerforge(&c, &r, &f);
	CHECK(!f.applies);
	CHECK_STR(f.text, "KempnerForge counts a SwiGLU MLP of 3 matrices (gate, up, down); gpt2's MLP has 2");
}

/*
 * kempnerforge MoE: n_moe_layers = #{i : (i + 1) % moe_frequency == 0};
 * dense_active = n_dense·(attn + mlp); moe_active = n_moe·(attn + top_k·mlp
 * + shared·mlp); active = dense + moe + output.
 *
 * A KempnerForge-style model: L = 4, D = 512, 8 heads of 64 (8 KV), ffn
 * 1408, vocab 32000, 8 experts, top 2, 1 shared expert, moe_frequency 2,
 * S = 2048:
 *   MoE layers: i = 1, 3 (2 of 4); attn = 4·512² = 1,048,576; mlp = 3·512·1408 = 2,162,688
 *   dense = 2·(1,048,576 + 2,162,688) = 6,422,528
 *   moe = 2·(1,048,576 + 2·2,162,688 + 2,162,688) = 15,073,280
 *   output = 16,384,000;  active = 37,879,808;  6·active = 227,278,848
 *   12·4·512·2048 = 50,331,648;  flops_per_token = 277,610,496
 *
 * DeepSeekMoE 16B (HF config: 28 layers, D 2048, 16 heads of 128, ffn 10944,
 * 64 routed experts of 1408, top 6, 2 shared, first_k_dense_replace 1,
 * vocab 102400) at S = 4096; the dense layer's MLP uses its own 10944:
 *   attn = 4·2048² = 16,777,216; dense layer 16,777,216 + 3·2048·10944 = 84,017,152
 *   expert mlp = 3·2048·1408 = 8,650,752; MoE layer 16,777,216 + 8·8,650,752 = 85,983,232, x 27 = 2,321,547,264
 *   output 209,715,200; active = 2,615,279,616; 6·active = 15,691,677,696
 *   12·28·2048·4096 = 2,818,572,288; flops_per_token = 18,510,249,984
 */
static void test_kempnerforge_moe(void)
{
	struct opmfu_model_cfg c;
	struct opmfu_model_run r = run(2048, 1);
	struct opmfu_mflops f;

	CHECK_INT(opmfu_mflops_moe_layers(4, 0, 2, 1), 2);  /* i = 1, 3 */
	CHECK_INT(opmfu_mflops_moe_layers(6, 0, 3, 1), 2);  /* i = 2, 5 */
	CHECK_INT(opmfu_mflops_moe_layers(28, 1, 1, 0), 27); /* DeepSeek: i >= 1 */
	CHECK_INT(opmfu_mflops_moe_layers(61, 3, 1, 0), 58);
	CHECK_INT(opmfu_mflops_moe_layers(10, 2, 2, 0), 4); /* i = 2, 4, 6, 8 */
	CHECK_INT(opmfu_mflops_moe_layers(10, 0, 0, 0), 0);
	{
		/* the closed form against counting layer by layer */
		long long L, k, f, ph, i, n, bad = 0;
		for (L = 0; L <= 13; L++)
			for (k = 0; k <= 5; k++)
				for (f = 1; f <= 4; f++)
					for (ph = 0; ph <= 1; ph++) {
						for (n = 0, i = k; i < L; i++)
							n += (i + ph) % f == 0;
						bad += opmfu_mflops_moe_layers(L, k, f, ph) != n;
					}
		CHECK_INT(bad, 0);
	}

	memset(&c, 0, sizeof(c));
	strcpy(c.name, "toy");
	c.layers = 4, c.hidden = 512, c.heads = c.kv_heads = 8, c.head_dim = 64, c.ffn = 1408, c.vocab = 32000;
	c.gated = 1, c.experts = 8, c.top_k = 2, c.moe_ffn = 1408, c.shared = 1, c.shared_ffn = 1408;
	c.moe_layers = opmfu_mflops_moe_layers(4, 0, 2, 1);
	opmfu_mflops_kempnerforge(&c, &r, &f);
	CHECK(f.applies);
	CHECK_DBL(f.params, 37879808);
	CHECK_DBL(f.per_token, 277610496);
	CHECK_STR(f.text, "6·active + 12·L·D·S: active = 37,879,808 (2 of 4 MoE layers: top 2 of 8 experts plus the "
			  "shared, router ignored); output projection counted, input embedding, biases and norms not; "
			  "attention 12·L·D·S in full (no causal halving, GQA not discounted)");

	memset(&c, 0, sizeof(c));
	strcpy(c.name, "deepseek");
	c.layers = 28, c.hidden = 2048, c.heads = c.kv_heads = 16, c.head_dim = 128, c.ffn = 10944, c.vocab = 102400;
	c.gated = 1, c.experts = 64, c.top_k = 6, c.moe_ffn = 1408, c.shared = 2, c.shared_ffn = 1408;
	c.moe_layers = 27;
	r = run(4096, 2);
	opmfu_mflops_kempnerforge(&c, &r, &f);
	CHECK_DBL(f.params, 2615279616.0);
	CHECK_DBL(f.per_token, 18510249984.0);
	/* forward only: a third, 6,170,083,328 */
	r.forward_only = 1;
	opmfu_mflops_kempnerforge(&c, &r, &f);
	CHECK_DBL(f.per_token, 6170083328.0);
	/* latent attention has no heads x head_dim projections */
	c.kv_lora = 512;
	opmfu_mflops_kempnerforge(&c, &r, &f);
	CHECK(!f.applies);
}

/*
 * maxtext (seed 003; calculate_tflops_training_per_device, which the seed
 * links): per step, T = B·S tokens,
 *   qkv = 2·T·D·(H + 2·KV)·hd, projection = 2·T·D·H·hd,
 *   ffn = 2·T·F·D·(matrices before the activation: 2 gated) + 2·T·F·D,
 *   embedding (LM head) = 2·T·D·V,
 *   attention = 4·B·S²·H·hd, / 2 when causal,
 *   training = 3 x ((ffn + qkv + projection)·L + embedding) + 3 x attention·L.
 *
 * Llama-3-8B, S = 8192, B = 1 (T = 8192; T·D = 33,554,432):
 *   qkv = 2·33,554,432·48·128 = 412,316,860,416
 *   projection = 2·33,554,432·4096 = 274,877,906,944
 *   ffn = 6·8192·14336·4096 = 2,886,218,022,912
 *   per layer 3,573,412,790,272, x 32 = 114,349,209,288,704
 *   embedding = 2·33,554,432·128256 = 8,607,114,461,184
 *   weights = 122,956,323,749,888, x 3 = 368,868,971,249,664
 *   attention 4·8192²·32·128 = 1,099,511,627,776 per layer; causal 549,755,813,888;
 *   x 32 = 17,592,186,044,416, x 3 = 52,776,558,133,248
 *   step = 421,645,529,382,912;  per token (/ 8192) = 51,470,401,536
 *   non-causal: attention x 2: 474,422,087,516,160
 */
static void test_maxtext_causal(void)
{
	struct opmfu_model_cfg c = llama3_8b();
	struct opmfu_model_run r = run(8192, 1);
	struct opmfu_mflops f;

	opmfu_mflops_maxtext(&c, &r, &f);
	CHECK(f.applies);
	CHECK_DBL(f.weights, 368868971249664.0);
	CHECK_DBL(f.attention, 52776558133248.0);
	CHECK_DBL(f.per_step, 421645529382912.0);
	CHECK_DBL(f.per_token, 51470401536.0);
	CHECK_DBL(f.params, 0);
	r.causal = 0;
	opmfu_mflops_maxtext(&c, &r, &f);
	CHECK_DBL(f.per_step, 474422087516160.0);
	CHECK_STR(f.text, "3 × Σ matmuls: QKV (GQA: fewer K, V heads), out projection, MLP, LM head; attention "
			  "4·S²·B·H·d in full (--no-causal); biases and norms not counted");
	/* kempnerforge is this exactly: 6·active·T + 12·L·D·S·T with H·hd = D,
	 * no router, no biases: 57,912,852,480 x 8192 = 474,422,087,516,160 */
	{
		struct opmfu_mflops k;
		opmfu_mflops_kempnerforge(&c, &r, &k);
		CHECK_DBL(k.per_step, f.per_step);
	}
	/* forward only: the sum without x 3 */
	r.causal = 1;
	r.forward_only = 1;
	opmfu_mflops_maxtext(&c, &r, &f);
	CHECK_DBL(f.per_step, 421645529382912.0 / 3);
	/* per device: / world size (the seed's per_device_batch_size) */
	r = run(8192, 16);
	r.world = 16;
	opmfu_mflops_maxtext(&c, &r, &f);
	CHECK_DBL(f.per_device, 421645529382912.0);
	CHECK_DBL(f.per_token, 51470401536.0);
}

/*
 * maxtext sliding window (seed 003: linear in sequence and window; MaxText
 * writes a local layer as 4·B·S·min(W, S)·H·hd and halves it as causal too).
 * Mistral-7B (as Llama-3-8B but vocab 32000, every layer a 4096 window),
 * S = 8192, B = 1:
 *   per layer weights as above 3,573,412,790,272, x 32 = 114,349,209,288,704
 *   embedding = 2·33,554,432·32000 = 2,147,483,648,000; weights x 3 = 349,490,078,810,112
 *   window layer 4·8192·4096·32·128 = 549,755,813,888, causal 274,877,906,944,
 *   x 32 x 3 = 26,388,279,066,624;  step = 375,878,357,876,736
 * At S = 4096 the window holds the whole sequence: the same as full attention,
 * 187,939,178,938,368 either way.
 */
static void test_maxtext_window(void)
{
	struct opmfu_model_cfg c = llama3_8b();
	struct opmfu_model_run r = run(8192, 1);
	struct opmfu_mflops f;
	double full;

	c.vocab = 32000;
	c.window = 4096;
	c.window_layers = 32;
	opmfu_mflops_maxtext(&c, &r, &f);
	CHECK_DBL(f.weights, 349490078810112.0);
	CHECK_DBL(f.attention, 26388279066624.0);
	CHECK_DBL(f.per_step, 375878357876736.0);
	r = run(4096, 1);
	opmfu_mflops_maxtext(&c, &r, &f);
	CHECK_DBL(f.per_step, 187939178938368.0);
	c.window_layers = 0;
	opmfu_mflops_maxtext(&c, &r, &f);
	CHECK_DBL(f.per_step, 187939178938368.0);
	/* half the layers sliding at S = 8192: attention 16 x 549,755,813,888
	 * (full, causal) + 16 x 274,877,906,944, x 3 = 39,582,418,599,936 */
	c.window_layers = 16;
	r = run(8192, 1);
	opmfu_mflops_maxtext(&c, &r, &f);
	CHECK_DBL(f.attention, 39582418599936.0);
	full = f.attention;
	/* chunked attention (MaxText's Llama 4 formula), chunks of 3000 at S =
	 * 8192: 2 chunks of 3000 and one of 2192: Σ squares 18,000,000 +
	 * 4,804,864 = 22,804,864; 4·22,804,864·32·128 = 373,634,891,776 per
	 * layer, causal 186,817,445,888; on the 16 other layers instead of full:
	 * 16 x (186,817,445,888 + 274,877,906,944) x 3 = 22,161,376,935,936 */
	c.chunk = 3000;
	c.chunk_layers = 16;
	opmfu_mflops_maxtext(&c, &r, &f);
	CHECK_DBL(f.attention, 22161376935936.0);
	CHECK(f.attention < full);
}

/*
 * maxtext MoE, DeepSeek-style (calculate_routed_and_shared_ffn_tflops_per_device):
 * gate 2·T·D·E plus top_k and shared experts of moe_mlp_dim on the MoE
 * layers, the dense MLP on the first dense ones. DeepSeekMoE 16B, S = 4096,
 * B = 1 (T·D = 8,388,608):
 *   qkv = 2·8,388,608·48·128 = 103,079,215,104; projection = 34,359,738,368
 *   dense ffn 6·8,388,608·10944 = 550,829,555,712
 *   expert ffn 6·8,388,608·1408 = 70,866,960,384; gate 2·8,388,608·64 = 1,073,741,824
 *   MoE layer ffn = 1,073,741,824 + 8·70,866,960,384 = 568,009,424,896, x 27
 *   ffn total = 550,829,555,712 + 15,336,254,472,192 = 15,887,084,027,904
 *   28·(qkv + projection) = 3,848,290,697,216; embedding 2·8,388,608·102400 = 1,717,986,918,400
 *   weights = 21,453,361,643,520; causal attention 28·68,719,476,736 = 1,924,145,348,608
 *   step = 3·23,377,506,992,128 = 70,132,520,976,384
 */
static void test_maxtext_moe(void)
{
	struct opmfu_model_cfg c;
	struct opmfu_model_run r = run(4096, 1);
	struct opmfu_mflops f;

	memset(&c, 0, sizeof(c));
	c.layers = 28, c.hidden = 2048, c.heads = c.kv_heads = 16, c.head_dim = 128, c.ffn = 10944, c.vocab = 102400;
	c.gated = 1, c.experts = 64, c.top_k = 6, c.moe_ffn = 1408, c.shared = 2, c.shared_ffn = 1408;
	c.moe_layers = 27;
	opmfu_mflops_maxtext(&c, &r, &f);
	CHECK_DBL(f.weights, 3 * 21453361643520.0);
	CHECK_DBL(f.per_step, 70132520976384.0);
}

/* Wan as the seed's test writes it (WAN_CONFIG): 16 heads of 128 (dim
 * 2048), 30 layers, ffn_dim 8192, added_kv_proj_dim 2048. */
static struct opmfu_model_cfg wan_seed(void)
{
	struct opmfu_model_cfg c;
	memset(&c, 0, sizeof(c));
	strcpy(c.name, "WanTransformer3DModel");
	c.family = OPMFU_MF_WAN;
	c.layers = 30, c.heads = c.kv_heads = 16, c.head_dim = 128, c.hidden = 2048;
	c.ffn = 8192, c.added_kv = 2048;
	return c;
}

static struct opmfu_model_run diff_run(long long latent, long long prompt, long long batch, long long steps)
{
	struct opmfu_model_run r = run(latent, batch);
	r.prompt_len = prompt;
	r.timesteps = steps;
	r.causal = 0;
	return r;
}

/*
 * verl-omni Wan (seed 001, WanFlops.estimate_flops; compute_dense_flops(n, t) = 6·n·t):
 *   latent_dense = 6·L·(4·dim² + 2·dim·ffn)·latent_tot
 *   cross_dense = 6·L·(2·dim²)·latent_tot + 6·L·(2·dim·added_kv)·prompt_tot
 *   mod = 6·L·(6·dim²)·B;  self = 12·L·H·d·Σ latent²;  cross = 12·L·H·d·Σ latent·prompt
 *   x timesteps x forward passes.
 * dim² = 4,194,304; 6·L = 180; 12·L·H·d = 737,280.
 *
 * The seed's test_linear_in_num_timesteps: latents [512]x2, prompts [64]x2:
 *   latent_dense = 180·(16,777,216 + 33,554,432)·1024 = 9,277,129,359,360
 *   cross_dense = 180·8,388,608·1024 + 180·8,388,608·128 = 1,739,461,754,880
 *   mod = 180·25,165,824·2 = 9,059,696,640
 *   self = 737,280·524,288 = 386,547,056,640;  cross = 737,280·65,536 = 48,318,382,080
 *   one timestep 11,460,516,249,600;  10: 114,605,162,496,000;  30: 343,815,487,488,000;
 *   ratio 3 exactly, as the seed asserts.
 *
 * The seed's test_quadratic_in_latent_seqlen: prompt [64], latent [256] vs [512], B = 1:
 *   256: 2,319,282,339,840 + (386,547,056,640 + 96,636,764,160) + 4,529,848,320
 *        + 48,318,382,080 + 12,079,595,520 = 2,867,393,986,560
 *   512: 4,638,564,679,680 + (773,094,113,280 + 96,636,764,160) + 4,529,848,320
 *        + 193,273,528,320 + 24,159,191,040 = 5,730,258,124,800
 *   ratio 1.99842...: the seed's "2 < ratio < 4" does NOT hold for its own
 *   formula and config. The terms that do not grow with the latent (mod
 *   4,529,848,320 and the prompt-side K/V projection 96,636,764,160) lose
 *   more than the self-attention gains (2 x 48,318,382,080 = exactly that
 *   projection): 512 - 2 x 256 = -mod. Without those constant terms the
 *   latent-dependent part grows 5,629,091,512,320 / 2,766,227,374,080 =
 *   2.0349..., between linear and quadratic, which is the property the
 *   seed's comment means.
 */
static void test_verl_omni_wan(void)
{
	struct opmfu_model_cfg c = wan_seed();
	struct opmfu_model_run r = diff_run(512, 64, 2, 10);
	struct opmfu_mflops f, g;
	double a, b, konst = 4529848320.0 + 96636764160.0;

	opmfu_mflops_verl_omni(&c, &r, &f);
	CHECK(f.applies);
	CHECK_DBL(f.per_token, -1);
	CHECK_DBL(f.per_step, 114605162496000.0);
	CHECK_DBL(f.attention, 10 * (386547056640.0 + 48318382080.0));
	r.timesteps = 30;
	opmfu_mflops_verl_omni(&c, &r, &g);
	CHECK_DBL(g.per_step, 343815487488000.0);
	CHECK_DBL(g.per_step / f.per_step, 3.0);

	r = diff_run(256, 64, 1, 1);
	opmfu_mflops_verl_omni(&c, &r, &f);
	a = f.per_step;
	r = diff_run(512, 64, 1, 1);
	opmfu_mflops_verl_omni(&c, &r, &g);
	b = g.per_step;
	CHECK_DBL(a, 2867393986560.0);
	CHECK_DBL(b, 5730258124800.0);
	CHECK_DBL(b - 2 * a, -4529848320.0);
	CHECK(b / a < 2.0);
	CHECK((b - konst) / (a - konst) > 2.0 && (b - konst) / (a - konst) < 4.0);
	/* added_kv_proj_dim null: the K/V input is the model width (here the same 2048) */
	c.added_kv = 0;
	opmfu_mflops_verl_omni(&c, &r, &f);
	CHECK_DBL(f.per_step, b);
	/* two forward passes (CFG) double it; per device / dp */
	r.cfg_passes = 2;
	r.world = 8;
	r.dp = 4;
	opmfu_mflops_verl_omni(&c, &r, &f);
	CHECK_DBL(f.per_step, 2 * b);
	CHECK_DBL(f.per_device, 2 * b / 4);
}

/*
 * verl-omni Qwen-Image (seed 001, closed form), diffusers' config: 60 layers,
 * 24 heads of 128 (dim 3072), in_channels 64, out_channels 16, patch_size 2,
 * joint_attention_dim 3584. One 1024x1024 image: 128x128 latent in 2x2
 * patches = 4096 latent tokens; a 256-token prompt; B = 1.
 *   dim² = 9,437,184;  L·12·dim² = 6,794,772,480
 *   in·dim = 196,608;  p²·out·dim = 4·16·3072 = 196,608;  joint·dim = 11,010,048
 *   img_dense = 6·6,795,165,696·4096 = 166,997,992,144,896
 *   txt_dense = 6·6,805,782,528·256 = 10,453,681,963,008
 *   mod = 6·6,794,772,480·1 = 40,768,634,880
 *   attn = 12·60·24·128·(4096 + 256)² = 2,211,840·18,939,904 = 41,892,037,263,360
 *   flops_per_call = 219,384,480,006,144 (one timestep, one pass)
 * Forward only: the seed divides the MFU by 3; the FLOPs / 3 = 73,128,160,002,048
 * give the same MFU. guidance_embeds: one pass whatever the CFG.
 */
static void test_verl_omni_qwen_image(void)
{
	struct opmfu_model_cfg c;
	struct opmfu_model_run r = diff_run(4096, 256, 1, 1);
	struct opmfu_mflops f;

	memset(&c, 0, sizeof(c));
	strcpy(c.name, "QwenImageTransformer2DModel");
	c.family = OPMFU_MF_QWEN_IMAGE;
	c.layers = 60, c.heads = c.kv_heads = 24, c.head_dim = 128, c.hidden = 3072;
	c.in_channels = 64, c.out_channels = 16, c.patch = 2, c.joint_dim = 3584;
	opmfu_mflops_verl_omni(&c, &r, &f);
	CHECK(f.applies);
	CHECK_DBL(f.attention, 41892037263360.0);
	CHECK_DBL(f.weights, 166997992144896.0 + 10453681963008.0 + 40768634880.0);
	CHECK_DBL(f.per_step, 219384480006144.0);
	r.forward_only = 1;
	opmfu_mflops_verl_omni(&c, &r, &f);
	CHECK_DBL(f.per_step, 73128160002048.0);
	r.forward_only = 0;
	r.cfg_passes = 2;
	opmfu_mflops_verl_omni(&c, &r, &f);
	CHECK_DBL(f.per_step, 2 * 219384480006144.0);
	c.guidance_embeds = 1;
	opmfu_mflops_verl_omni(&c, &r, &f);
	CHECK_DBL(f.per_step, 219384480006144.0);
	CHECK(strstr(f.text, "× 1 forward passes (guidance_embeds: one pass whatever --cfg)") != NULL);
	/* the LM conventions do not apply, and say why */
	opmfu_mflops_palm(&c, &r, &f);
	CHECK(!f.applies);
	CHECK_STR(f.text, "QwenImageTransformer2DModel is a diffusion transformer: nanoGPT's 6N + 12·L·H·Q·T is "
			  "for a decoder LM over one token stream");
	opmfu_mflops_maxtext(&c, &r, &f);
	CHECK(!f.applies);
	opmfu_mflops_kempnerforge(&c, &r, &f);
	CHECK(!f.applies);
	c = llama3_8b();
	opmfu_mflops_verl_omni(&c, &r, &f);
	CHECK(!f.applies);
	CHECK_STR(f.text, "VeRL-Omni's estimators are for diffusion transformers (Qwen-Image, Wan); llama is a "
			  "decoder LM");
}

/*
 * Multi-head latent attention (DeepSeek-V3: D 7168, 128 heads, q rank 1536,
 * kv rank 512, qk 128 + 64, v 128, 61 layers of which 58 MoE with 256
 * experts of 2048 + 1 shared, dense MLP 18432, vocab 129280, untied, the
 * noaux_tc router's 256-entry correction bias):
 *   attention: q_a 7168·1536 = 11,010,048 + norm 1,536 + q_b 1536·128·192 = 37,748,736
 *     + kv_a 7168·(512 + 64) = 4,128,768 + norm 512 + kv_b 512·128·256 = 16,777,216
 *     + o 128·128·7168 = 117,440,512 = 187,107,328; norms 2·7168 = 14,336
 *   dense layer 187,107,328 + 14,336 + 3·7168·18432 = 583,483,392, x 3 = 1,750,450,176
 *   MoE layer 187,107,328 + 14,336 + 257·44,040,192 + 256·7168 + 256
 *     = 11,507,286,272, x 58 = 667,422,603,776
 *   embeddings 2·129280·7168 = 1,853,358,080; final norm 7,168
 *   all = 671,026,419,200 (DeepSeek-V3's published 671B)
 * palm per token at T = 4096: 6N = 4,026,158,515,200 and the attention with
 * each matmul's own head size, 6·L·H·T·(Dqk + Dv) = 6·61·128·4096·320 =
 * 61,404,610,560: 4,087,563,125,760.
 */
static void test_mla(void)
{
	struct opmfu_model_cfg c;
	struct opmfu_model_run r = run(4096, 1);
	struct opmfu_mflops f;

	memset(&c, 0, sizeof(c));
	strcpy(c.name, "deepseek_v3");
	c.layers = 61, c.hidden = 7168, c.heads = c.kv_heads = 128, c.head_dim = 192, c.gated = 1;
	c.q_lora = 1536, c.kv_lora = 512, c.qk_nope = 128, c.qk_rope = 64, c.v_head = 128;
	c.ffn = 18432, c.vocab = 129280, c.experts = 256, c.top_k = 8, c.moe_ffn = 2048, c.shared = 1;
	c.shared_ffn = 2048, c.moe_layers = 58, c.router_extra = 256;
	CHECK_DBL(opmfu_mflops_params(&c), 671026419200.0);
	opmfu_mflops_palm(&c, &r, &f);
	CHECK_DBL(f.per_token, 4087563125760.0);
	/*
	 * maxtext's MLA (calculate_mla_tflops_per_device), per token (T = 1,
	 * S = 4096), x 3:
	 *   q: 2·(7168·1536 + 1536·128·192) = 2·48,758,784 = 97,517,568
	 *   kv: 2·(7168·576 + 512·128·256) = 2·20,905,984 = 41,811,968
	 *   projection 2·7168·128·128 = 234,881,024; per layer 374,210,560, x 61 = 22,826,844,160
	 *   dense ffn 6·18432·7168 = 792,723,456, x 3 = 2,378,170,368
	 *   MoE ffn: gate 2·7168·256 = 3,670,016 + 9·6·2048·7168 = 792,723,456
	 *     = 796,393,472, x 58 = 46,190,821,376
	 *   embedding 2·7168·129280 = 1,853,358,080
	 *   weights 73,249,193,984; attention 2·4096·128·320 / 2 = 167,772,160, x 61 = 10,234,101,760
	 *   per token 3·83,483,295,744 = 250,449,887,232
	 */
	opmfu_mflops_maxtext(&c, &r, &f);
	CHECK_DBL(f.per_token, 250449887232.0);
}

int main(void)
{
	test_palm();
	test_kempnerforge_dense();
	test_kempnerforge_moe();
	test_maxtext_causal();
	test_maxtext_window();
	test_maxtext_moe();
	test_verl_omni_wan();
	test_verl_omni_qwen_image();
	test_mla();
	CHECK_STR(opmfu_mconv_name(OPMFU_MC_VERL_OMNI), "verl-omni");
	CHECK(opmfu_mconv_name(OPMFU_MC_N) == NULL);
	CHECK_INT(opmfu_mconv_find("kempnerforge"), OPMFU_MC_KEMPNERFORGE);
	CHECK_INT(opmfu_mconv_find("PaLM"), -1);
	return check_done();
}
