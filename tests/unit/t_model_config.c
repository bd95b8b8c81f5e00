/*
 * t_model_config.c - config.json into struct opmfu_model_cfg
 * (read/model_config.c): the real-looking configs of tests/models/tree/
 * (their README says where each comes from), every family's defaults and
 * layer rules, --set, the exact messages for missing and malformed fields,
 * and every allocation failing in turn.
 *
 * t_model_config MODELS_DIR
 *
 * The parameter totals are opmfu_mflops_params on what was read; each is the
 * model's published count, worked out by hand in tests/models/README.md.
 */
#include <stdio.h>
#include <string.h>

#include "base/mem.h"
#include "check.h"
#include "mflops/mflops.h"
#include "read/model_config.h"

static const char *dir;
static struct opmfu_model_cfg c;
static struct opmfu_err e;

static enum opmfu_status file(const char *name)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	memset(&e, 0, sizeof(e));
	return opmfu_model_config_read(path, NULL, 0, &c, &e);
}

static enum opmfu_status text_set(const char *text, const char *const *set, size_t n)
{
	memset(&e, 0, sizeof(e));
	return opmfu_model_config_parse(text, strlen(text), "cfg.json", set, n, &c, &e);
}

static enum opmfu_status text(const char *t)
{
	return text_set(t, NULL, 0);
}

static void test_dense(void)
{
	/* GPT-2: n_* names, biases, LayerNorm, 2-matrix MLP of 4·n_embd (n_inner
	 * absent), 1024 learned positions, tied */
	CHECK_INT(file("gpt2.json"), OPMFU_OK);
	CHECK_STR(c.name, "gpt2");
	CHECK_INT(c.family, OPMFU_MF_DECODER);
	CHECK_INT(c.layers, 12);
	CHECK_INT(c.hidden, 768);
	CHECK_INT(c.heads, 12);
	CHECK_INT(c.kv_heads, 12);
	CHECK_INT(c.head_dim, 64);
	CHECK_INT(c.ffn, 3072);
	CHECK_INT(c.vocab, 50257);
	CHECK_INT(c.pos_embed, 786432);
	CHECK(c.tied && !c.gated && c.qkv_bias && c.o_bias && c.mlp_bias && c.norm_bias && !c.qk_norm);
	CHECK_DBL(opmfu_mflops_params(&c), 124439808);

	CHECK_INT(file("llama3_8b.json"), OPMFU_OK);
	CHECK_STR(c.name, "llama");
	CHECK_INT(c.kv_heads, 8);
	CHECK_INT(c.head_dim, 128); /* 4096 / 32 */
	CHECK(!c.tied && c.gated && !c.qkv_bias && !c.o_bias && !c.mlp_bias && !c.norm_bias);
	CHECK_INT(c.experts, 0);
	CHECK_INT(c.window_layers, 0);
	CHECK_DBL(opmfu_mflops_params(&c), 8030261248.0);

	/* Mistral: sliding_window 4096 on every layer */
	CHECK_INT(file("mistral_7b.json"), OPMFU_OK);
	CHECK_INT(c.window, 4096);
	CHECK_INT(c.window_layers, 32);
	CHECK_DBL(opmfu_mflops_params(&c), 7241732096.0);

	/* Qwen2: q, k, v biases, tied; use_sliding_window false: no window */
	CHECK_INT(file("qwen2_0_5b.json"), OPMFU_OK);
	CHECK(c.qkv_bias && !c.o_bias && c.tied);
	CHECK_INT(c.head_dim, 64);
	CHECK_INT(c.window_layers, 0);
	CHECK_DBL(opmfu_mflops_params(&c), 494032768.0);

	/* Qwen3: head_dim 128 though 1024 / 16 = 64; q and k norms */
	CHECK_INT(file("qwen3_0_6b.json"), OPMFU_OK);
	CHECK_INT(c.head_dim, 128);
	CHECK(c.qk_norm && !c.qkv_bias);
	CHECK_DBL(opmfu_mflops_params(&c), 596049920.0);
}

static void test_moe(void)
{
	/* Mixtral: every layer MoE, intermediate_size is the experts' */
	CHECK_INT(file("mixtral_8x7b.json"), OPMFU_OK);
	CHECK_INT(c.experts, 8);
	CHECK_INT(c.top_k, 2);
	CHECK_INT(c.moe_ffn, 14336);
	CHECK_INT(c.moe_layers, 32);
	CHECK_INT(c.shared, 0);
	CHECK_INT(c.window_layers, 0); /* sliding_window null */
	CHECK_DBL(opmfu_mflops_params(&c), 46702792704.0);

	/* Qwen1.5-MoE: one shared expert of 5632 with its gate, every layer MoE */
	CHECK_INT(file("qwen1_5_moe_a2_7b.json"), OPMFU_OK);
	CHECK_INT(c.experts, 60);
	CHECK_INT(c.top_k, 4);
	CHECK_INT(c.moe_ffn, 1408);
	CHECK_INT(c.shared, 1);
	CHECK_INT(c.shared_ffn, 5632);
	CHECK_INT(c.router_extra, 2048);
	CHECK_INT(c.moe_layers, 24);
	CHECK_DBL(opmfu_mflops_params(&c), 14315784192.0);

	/* DeepSeekMoE: 2 shared experts of the expert size, the first layer dense */
	CHECK_INT(file("deepseek_moe_16b.json"), OPMFU_OK);
	CHECK_INT(c.experts, 64);
	CHECK_INT(c.top_k, 6);
	CHECK_INT(c.shared, 2);
	CHECK_INT(c.shared_ffn, 1408);
	CHECK_INT(c.ffn, 10944);
	CHECK_INT(c.moe_layers, 27);
	CHECK_INT(c.router_extra, 0);
	CHECK_DBL(opmfu_mflops_params(&c), 16375728128.0);

	/* DeepSeek-V3: latent attention, 3 dense layers first, noaux_tc bias */
	CHECK_INT(file("deepseek_v3.json"), OPMFU_OK);
	CHECK_INT(c.kv_lora, 512);
	CHECK_INT(c.q_lora, 1536);
	CHECK_INT(c.qk_nope, 128);
	CHECK_INT(c.qk_rope, 64);
	CHECK_INT(c.v_head, 128);
	CHECK_INT(c.moe_layers, 58);
	CHECK_INT(c.router_extra, 256);
	CHECK_DBL(opmfu_mflops_params(&c), 671026419200.0);
}

static void test_diffusers(void)
{
	CHECK_INT(file("qwen_image.json"), OPMFU_OK);
	CHECK_STR(c.name, "QwenImageTransformer2DModel");
	CHECK_INT(c.family, OPMFU_MF_QWEN_IMAGE);
	CHECK_INT(c.layers, 60);
	CHECK_INT(c.heads, 24);
	CHECK_INT(c.head_dim, 128);
	CHECK_INT(c.hidden, 3072);
	CHECK_INT(c.in_channels, 64);
	CHECK_INT(c.out_channels, 16);
	CHECK_INT(c.patch, 2);
	CHECK_INT(c.joint_dim, 3584);
	CHECK(!c.guidance_embeds);
	CHECK_DBL(opmfu_mflops_params(&c), 0);

	/* Wan: added_kv_proj_dim null (the model width), patch_size a list (not read) */
	CHECK_INT(file("wan2_1_t2v_1_3b.json"), OPMFU_OK);
	CHECK_INT(c.family, OPMFU_MF_WAN);
	CHECK_INT(c.layers, 30);
	CHECK_INT(c.heads, 12);
	CHECK_INT(c.hidden, 1536);
	CHECK_INT(c.ffn, 8960);
	CHECK_INT(c.added_kv, 0);

	/* the estimator's defaults: patch 2, out_channels = in_channels */
	CHECK_INT(text("{\"_class_name\":\"QwenImageTransformer2DModel\",\"num_layers\":2,\"num_attention_heads\":2,"
		       "\"attention_head_dim\":8,\"in_channels\":4,\"joint_attention_dim\":16,\"out_channels\":null,"
		       "\"guidance_embeds\":true}"), OPMFU_OK);
	CHECK_INT(c.patch, 2);
	CHECK_INT(c.out_channels, 4);
	CHECK(c.guidance_embeds);
	CHECK_INT(text("{\"_class_name\":\"WanTransformer3DModel\",\"num_layers\":2,\"num_attention_heads\":2,"
		       "\"attention_head_dim\":8}"), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "cfg.json: no ffn_dim (the MLP width); give it with --set ffn_dim=N");
	CHECK_INT(text("{\"_class_name\":\"FluxTransformer2DModel\"}"), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "cfg.json: _class_name \"FluxTransformer2DModel\" is not a transformer opmfu knows "
			 "(QwenImageTransformer2DModel, WanTransformer3DModel); if it has one's fields, say so with "
			 "--set _class_name=NAME");
}

#define LLAMA_HEAD "{\"model_type\":\"llama\",\"hidden_size\":64,\"num_attention_heads\":4,\"vocab_size\":100,"

/* Which layers slide, and which are MoE, by each family's rule. */
static void test_layer_rules(void)
{
	/* Qwen2 with the window on: layers from max_window_layers on slide */
	CHECK_INT(text("{\"model_type\":\"qwen2\",\"hidden_size\":64,\"num_attention_heads\":4,\"vocab_size\":10,"
		       "\"num_hidden_layers\":24,\"intermediate_size\":128,\"use_sliding_window\":true,"
		       "\"sliding_window\":1024,\"max_window_layers\":20}"), OPMFU_OK);
	CHECK_INT(c.window, 1024);
	CHECK_INT(c.window_layers, 4);
	/* a null window is none, even when switched on */
	CHECK_INT(text("{\"model_type\":\"qwen2\",\"hidden_size\":64,\"num_attention_heads\":4,\"vocab_size\":10,"
		       "\"num_hidden_layers\":24,\"intermediate_size\":128,\"use_sliding_window\":true,"
		       "\"sliding_window\":null,\"max_window_layers\":20}"), OPMFU_OK);
	CHECK_INT(c.window_layers, 0);
	/* Mistral without the key: MistralConfig's 4096 */
	CHECK_INT(text("{\"model_type\":\"mistral\",\"hidden_size\":64,\"num_attention_heads\":4,\"vocab_size\":10,"
		       "\"num_hidden_layers\":2,\"intermediate_size\":128}"), OPMFU_OK);
	CHECK_INT(c.window, 4096);
	CHECK_INT(c.window_layers, 2);
	/* layer_types written out (newer transformers) decide */
	CHECK_INT(text("{\"model_type\":\"qwen3\",\"hidden_size\":64,\"num_attention_heads\":4,\"vocab_size\":10,"
		       "\"num_hidden_layers\":4,\"intermediate_size\":128,\"sliding_window\":512,\"layer_types\":"
		       "[\"full_attention\",\"sliding_attention\",\"full_attention\",\"sliding_attention\"]}"), OPMFU_OK);
	CHECK_INT(c.window, 512);
	CHECK_INT(c.window_layers, 2);
	CHECK_INT(c.head_dim, 128); /* Qwen3Config's default */
	CHECK_INT(text("{\"model_type\":\"qwen3\",\"hidden_size\":64,\"num_attention_heads\":4,\"vocab_size\":10,"
		       "\"num_hidden_layers\":3,\"intermediate_size\":128,\"layer_types\":[\"full_attention\"]}"),
		  OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "cfg.json: layer_types has 1 entries for 3 layers");
	CHECK_INT(text("{\"model_type\":\"qwen3\",\"hidden_size\":64,\"num_attention_heads\":4,\"vocab_size\":10,"
		       "\"num_hidden_layers\":1,\"intermediate_size\":128,\"layer_types\":[\"sliding_attention\"]}"),
		  OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "cfg.json: no sliding_window (the sliding-window size in tokens); give it with --set "
			 "sliding_window=N");
	/* Qwen-MoE: (i + 1) % decoder_sparse_step == 0 unless in mlp_only_layers:
	 * 8 layers, step 2: i = 1, 3, 5, 7; mlp_only [3, 4, 3, 99]: 3 leaves
	 * (4 was dense anyway, the second 3 and 99 count nothing): 3 MoE */
	CHECK_INT(text("{\"model_type\":\"qwen3_moe\",\"hidden_size\":64,\"num_attention_heads\":4,\"vocab_size\":10,"
		       "\"num_hidden_layers\":8,\"intermediate_size\":128,\"num_experts\":4,\"num_experts_per_tok\":2,"
		       "\"moe_intermediate_size\":32,\"decoder_sparse_step\":2,\"mlp_only_layers\":[3,4,3,99]}"), OPMFU_OK);
	CHECK_INT(c.moe_layers, 3);
	CHECK_INT(c.shared, 0);
	CHECK_INT(text("{\"model_type\":\"qwen3_moe\",\"hidden_size\":64,\"num_attention_heads\":4,\"vocab_size\":10,"
		       "\"num_hidden_layers\":8,\"num_experts\":4,\"num_experts_per_tok\":2,"
		       "\"moe_intermediate_size\":32,\"mlp_only_layers\":[0,1,2,3,4,5,6,7,8]}"), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "cfg.json: mlp_only_layers has 9 entries: at most 8 are supported");
	CHECK_INT(text("{\"model_type\":\"qwen3_moe\",\"hidden_size\":64,\"num_attention_heads\":4,\"vocab_size\":10,"
		       "\"num_hidden_layers\":8,\"num_experts\":4,\"num_experts_per_tok\":2,"
		       "\"moe_intermediate_size\":32,\"mlp_only_layers\":[\"a\"]}"), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "cfg.json: mlp_only_layers holds something other than layer numbers");
	/* every layer MoE: intermediate_size is not needed; a dense one needs it */
	CHECK_INT(text("{\"model_type\":\"qwen3_moe\",\"hidden_size\":64,\"num_attention_heads\":4,\"vocab_size\":10,"
		       "\"num_hidden_layers\":8,\"num_experts\":4,\"num_experts_per_tok\":2,"
		       "\"moe_intermediate_size\":32}"), OPMFU_OK);
	CHECK_INT(c.moe_layers, 8);
	CHECK_INT(text("{\"model_type\":\"qwen3_moe\",\"hidden_size\":64,\"num_attention_heads\":4,\"vocab_size\":10,"
		       "\"num_hidden_layers\":8,\"num_experts\":4,\"num_experts_per_tok\":2,"
		       "\"moe_intermediate_size\":32,\"mlp_only_layers\":[0]}"), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "cfg.json: no intermediate_size (the MLP width); give it with --set intermediate_size=N");
	/* DeepSeek: i >= first_k_dense_replace and i % moe_layer_freq == 0: 10
	 * layers, 2 dense, freq 3: i = 3, 6, 9 */
	CHECK_INT(text("{\"model_type\":\"deepseek\",\"hidden_size\":64,\"num_attention_heads\":4,\"vocab_size\":10,"
		       "\"num_hidden_layers\":10,\"intermediate_size\":128,\"n_routed_experts\":4,"
		       "\"num_experts_per_tok\":2,\"moe_intermediate_size\":32,\"first_k_dense_replace\":2,"
		       "\"moe_layer_freq\":3,\"n_shared_experts\":null}"), OPMFU_OK);
	CHECK_INT(c.moe_layers, 3);
	CHECK_INT(c.shared, 0);
	CHECK_INT(text("{\"model_type\":\"deepseek\",\"hidden_size\":64,\"num_attention_heads\":4,\"vocab_size\":10,"
		       "\"num_hidden_layers\":10,\"intermediate_size\":128,\"n_routed_experts\":4,"
		       "\"num_experts_per_tok\":5,\"moe_intermediate_size\":32}"), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "cfg.json: num_experts_per_tok 5 is more than the 4 experts");
}

static void test_faults(void)
{
	const char *set[3];

	CHECK_INT(text(LLAMA_HEAD "\"intermediate_size\":128}"), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "cfg.json: no num_hidden_layers (the number of layers); give it with --set num_hidden_layers=N");
	CHECK_INT(text(LLAMA_HEAD "\"num_hidden_layers\":null,\"intermediate_size\":128}"), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "cfg.json: no num_hidden_layers (the number of layers); give it with --set num_hidden_layers=N");
	CHECK_INT(text(LLAMA_HEAD "\"num_hidden_layers\":\"2\",\"intermediate_size\":128}"), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "cfg.json: num_hidden_layers is \"2\", not a whole number");
	CHECK_INT(text(LLAMA_HEAD "\"num_hidden_layers\":2.5,\"intermediate_size\":128}"), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "cfg.json: num_hidden_layers is 2.5, not a whole number");
	CHECK_INT(text(LLAMA_HEAD "\"num_hidden_layers\":0,\"intermediate_size\":128}"), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "cfg.json: num_hidden_layers = 0 is out of range (1 to 2147483647)");
	CHECK_INT(text(LLAMA_HEAD "\"num_hidden_layers\":3e9,\"intermediate_size\":128}"), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "cfg.json: num_hidden_layers = 3e9 is out of range (1 to 2147483647)");
	CHECK_INT(text(LLAMA_HEAD "\"num_hidden_layers\":[2],\"intermediate_size\":128}"), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "cfg.json: num_hidden_layers is an array, not a whole number");
	CHECK_INT(text(LLAMA_HEAD "\"num_hidden_layers\":2,\"intermediate_size\":128,\"tie_word_embeddings\":1}"),
		  OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "cfg.json: tie_word_embeddings is 1, not true or false");
	CHECK_INT(text("{\"model_type\":\"llama\",\"hidden_size\":65,\"num_attention_heads\":4,\"vocab_size\":10,"
		       "\"num_hidden_layers\":2,\"intermediate_size\":128}"), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "cfg.json: no head_dim, and hidden_size 65 is not a multiple of num_attention_heads 4; "
			 "give it with --set head_dim=N");
	CHECK_INT(text("{\"model_type\":\"bert\",\"hidden_size\":64}"), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "cfg.json: model_type \"bert\" is not one opmfu knows (llama, mistral, mixtral, qwen2, "
			 "qwen2_moe, qwen3, qwen3_moe, deepseek, deepseek_v2, deepseek_v3, gpt2); if its fields follow "
			 "one of them, say which with --set model_type=NAME");
	CHECK_INT(text("{\"hidden_size\":64}"), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "cfg.json: no model_type (Hugging Face) or _class_name (diffusers); give one with --set "
			 "model_type=NAME (llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, deepseek, "
			 "deepseek_v2, deepseek_v3, gpt2)");
	CHECK_INT(text("{\"model_type\":7}"), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "cfg.json: model_type is 7, not a name");
	CHECK_INT(text("[1,2]"), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "cfg.json: not a JSON object (a config.json is one)");
	CHECK_INT(text("{\"model_type\":\"llama\","), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "cfg.json: invalid JSON at byte 22: unexpected end of input");
	{
		/* 129 arrays inside the object: the 129th opens at byte 5 + 128 */
		char deep[300];
		strcpy(deep, "{\"a\":");
		memset(deep + 5, '[', 200);
		deep[205] = '\0';
		CHECK_INT(text(deep), OPMFU_ERR_FORMAT);
		CHECK_STR(e.msg, "cfg.json: invalid JSON at byte 133: nesting too deep");
	}
	/* the last of a key given twice counts, as in Python's json */
	CHECK_INT(text(LLAMA_HEAD "\"num_hidden_layers\":1,\"intermediate_size\":128,\"num_hidden_layers\":7}"), OPMFU_OK);
	CHECK_INT(c.layers, 7);

	/* --set supplies, replaces, or names the fault */
	set[0] = "num_hidden_layers=3";
	CHECK_INT(text_set(LLAMA_HEAD "\"intermediate_size\":128}", set, 1), OPMFU_OK);
	CHECK_INT(c.layers, 3);
	set[0] = "model_type=mistral";
	set[1] = "sliding_window=null";
	set[2] = "num_key_value_heads=2";
	CHECK_INT(text_set(LLAMA_HEAD "\"num_hidden_layers\":2,\"intermediate_size\":128}", set, 3), OPMFU_OK);
	CHECK_STR(c.name, "mistral");
	CHECK_INT(c.window_layers, 0);
	CHECK_INT(c.kv_heads, 2);
	set[0] = "tie_word_embeddings=true";
	CHECK_INT(text_set(LLAMA_HEAD "\"num_hidden_layers\":2,\"intermediate_size\":128}", set, 1), OPMFU_OK);
	CHECK(c.tied);
	set[0] = "num_hidden_layers=two";
	CHECK_INT(text_set(LLAMA_HEAD "\"intermediate_size\":128}", set, 1), OPMFU_ERR_FORMAT);
	CHECK_STR(e.msg, "cfg.json: num_hidden_layers is \"two\" (from --set), not a whole number");
	set[0] = "layers=3";
	CHECK_INT(text_set(LLAMA_HEAD "\"intermediate_size\":128}", set, 1), OPMFU_ERR_USAGE);
	CHECK_STR(e.msg, "--set 'layers=3': 'layers' is not a config field opmfu reads (docs/model-mfu.md lists them)");
	set[0] = "num_hidden_layers";
	CHECK_INT(text_set(LLAMA_HEAD "\"intermediate_size\":128}", set, 1), OPMFU_ERR_USAGE);
	CHECK_STR(e.msg, "--set 'num_hidden_layers': expected FIELD=VALUE");
	set[0] = "=3";
	CHECK_INT(text_set(LLAMA_HEAD "\"intermediate_size\":128}", set, 1), OPMFU_ERR_USAGE);
	CHECK_STR(e.msg, "--set '=3': expected FIELD=VALUE");
	/* a file that is not there */
	CHECK_INT(file("no_such.json"), OPMFU_ERR_IO);
	CHECK(strstr(e.msg, "no_such.json: cannot read: No such file or directory") != NULL);
}

/* Every allocation failing in turn: NOMEM with a message, nothing leaked
 * (the sanitizer build checks that), then success. */
static void test_nomem(void)
{
	long n;
	enum opmfu_status st = OPMFU_ERR_NOMEM;
	char path[512];

	snprintf(path, sizeof(path), "%s/deepseek_v3.json", dir);
	for (n = 1; st == OPMFU_ERR_NOMEM && n < 200; n++) {
		memset(&e, 0, sizeof(e));
		opmfu_mem_fail_after(n);
		st = opmfu_model_config_read(path, NULL, 0, &c, &e);
		opmfu_mem_fail_after(0);
		if (st == OPMFU_ERR_NOMEM)
			CHECK(strstr(e.msg, "out of memory") != NULL);
	}
	CHECK_INT(st, OPMFU_OK);
	CHECK(n > 2); /* at least the reader and yajl's handle failed once */
	CHECK_INT(c.moe_layers, 58);
	st = OPMFU_ERR_NOMEM;
	for (n = 1; st == OPMFU_ERR_NOMEM && n < 200; n++) {
		opmfu_mem_fail_after(n);
		st = text("{\"_class_name\":\"WanTransformer3DModel\",\"num_layers\":2,\"num_attention_heads\":2,"
			  "\"attention_head_dim\":8,\"ffn_dim\":64,\"x\":[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]}");
		opmfu_mem_fail_after(0);
	}
	CHECK_INT(st, OPMFU_OK);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: t_model_config MODELS_DIR\n");
		return 2;
	}
	dir = argv[1];
	test_dense();
	test_moe();
	test_diffusers();
	test_layer_rules();
	test_faults();
	test_nomem();
	return check_done();
}
