/*
 * model_config.c - config.json into struct opmfu_model_cfg (model_config.h).
 *
 * One pass of yajl keeps the top-level members opmfu reads (a fixed list of
 * field names: values of 63 bytes at most, arrays as their length, their
 * first numbers and how many layer_types entries slide or chunk); --set
 * then supplies or replaces fields; then the family the config names
 * (model_type or _class_name) decides which fields it needs, their
 * defaults (those of the transformers / diffusers class) and the layer
 * rules (which layers are MoE, which slide).
 */
#include "read/model_config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "read/dirwalk.h"
#include "read/json_stream.h"

#define CONFIG_MAX_BYTES (16 << 20)
#define FIELD_MAX 2147483647LL /* no count in a config is larger */
#define ARRAY_NUMS 8           /* numbers kept of an array (mlp_only_layers) */

enum field {
	F_MODEL_TYPE, F_CLASS_NAME,
	F_HIDDEN, F_LAYERS, F_HEADS, F_KV_HEADS, F_HEAD_DIM, F_FFN, F_VOCAB, F_TIED, F_ATTN_BIAS, F_MLP_BIAS,
	F_WINDOW, F_USE_WINDOW, F_MAX_WINDOW_LAYERS, F_LAYER_TYPES, F_CHUNK,
	F_LOCAL_EXPERTS, F_NUM_EXPERTS, F_ROUTED_EXPERTS, F_TOP_K, F_MOE_FFN, F_SHARED_FFN, F_SHARED_EXPERTS,
	F_FIRST_DENSE, F_MOE_FREQ, F_SPARSE_STEP, F_MLP_ONLY, F_TOPK_METHOD,
	F_Q_LORA, F_KV_LORA, F_QK_NOPE, F_QK_ROPE, F_V_HEAD,
	F_N_LAYER, F_N_EMBD, F_N_HEAD, F_N_INNER, F_N_POSITIONS,
	F_NUM_LAYERS, F_ATTN_HEAD_DIM, F_IN_CHANNELS, F_OUT_CHANNELS, F_PATCH, F_JOINT_DIM, F_FFN_DIM,
	F_ADDED_KV, F_GUIDANCE,
	F__N
};

/* JSON name, and what it is for the "no FIELD (...)" message */
static const struct {
	const char *key, *what;
} fields[F__N] = {
	{ "model_type", "the Hugging Face architecture" }, { "_class_name", "the diffusers class" },
	{ "hidden_size", "the model width" }, { "num_hidden_layers", "the number of layers" },
	{ "num_attention_heads", "query heads per layer" }, { "num_key_value_heads", "key/value heads" },
	{ "head_dim", "the size of one head" }, { "intermediate_size", "the MLP width" },
	{ "vocab_size", "the vocabulary" }, { "tie_word_embeddings", "LM head shared with the embedding" },
	{ "attention_bias", "biases on the attention projections" }, { "mlp_bias", "biases on the MLP" },
	{ "sliding_window", "the sliding-window size in tokens" }, { "use_sliding_window", "sliding window on" },
	{ "max_window_layers", "layers before the sliding ones" }, { "layer_types", "attention kind per layer" },
	{ "attention_chunk_size", "the chunk size of chunked attention" },
	{ "num_local_experts", "experts per MoE layer" }, { "num_experts", "experts per MoE layer" },
	{ "n_routed_experts", "routed experts per MoE layer" }, { "num_experts_per_tok", "experts per token" },
	{ "moe_intermediate_size", "the MLP width of one expert" },
	{ "shared_expert_intermediate_size", "the MLP width of the shared expert" },
	{ "n_shared_experts", "always-on experts per MoE layer" },
	{ "first_k_dense_replace", "dense layers before the MoE ones" }, { "moe_layer_freq", "every how many layers MoE" },
	{ "decoder_sparse_step", "every how many layers MoE" }, { "mlp_only_layers", "layers kept dense" },
	{ "topk_method", "the router's top-k method" },
	{ "q_lora_rank", "the query low rank" }, { "kv_lora_rank", "the key/value low rank" },
	{ "qk_nope_head_dim", "the query/key head size without RoPE" }, { "qk_rope_head_dim", "the RoPE head size" },
	{ "v_head_dim", "the value head size" },
	{ "n_layer", "the number of layers" }, { "n_embd", "the model width" }, { "n_head", "heads per layer" },
	{ "n_inner", "the MLP width" }, { "n_positions", "learned positions" },
	{ "num_layers", "the number of blocks" }, { "attention_head_dim", "the size of one head" },
	{ "in_channels", "latent channels in" }, { "out_channels", "latent channels out" },
	{ "patch_size", "the patch size" }, { "joint_attention_dim", "the text encoder's width" },
	{ "ffn_dim", "the MLP width" }, { "added_kv_proj_dim", "the cross-attention key/value input width" },
	{ "guidance_embeds", "guidance-distilled" },
};

struct fval {
	enum opmfu_json_type type; /* a JSON null is OPMFU_JSON_ABSENT */
	size_t len;                /* of a number's text or a string */
	char text[64];             /* its first 63 bytes */
	int truth;
	int null;                  /* it was a JSON null (some fields default otherwise) */
	unsigned n;                /* arrays: elements */
	unsigned n_num;            /* of which numbers kept in num[] (the first ARRAY_NUMS elements) */
	double num[ARRAY_NUMS];
	int odd;                   /* an element among the first ARRAY_NUMS that is no number */
	unsigned n_sliding, n_chunked; /* layer_types entries */
	int from_set;
};

struct reader {
	struct opmfu_json json;
	struct fval v[F__N];
	size_t depth; /* containers open */
	int cur;      /* the field of the top-level member being read, or -1 */
};

static int field_find(const char *key, size_t len)
{
	int f;
	for (f = 0; f < F__N; f++)
		if (strlen(fields[f].key) == len && !memcmp(fields[f].key, key, len))
			return f;
	return -1;
}

static void keep_text(struct fval *v, const char *s, size_t len)
{
	size_t c = len < sizeof(v->text) ? len : sizeof(v->text) - 1;
	memcpy(v->text, s, c);
	v->text[c] = '\0';
	v->len = len;
}

/* A value starts at the reader's depth: a member's own value, or an array element. */
static int value(void *ctx, enum opmfu_json_type type, const char *s, size_t len, int truth)
{
	struct reader *r = ctx;
	struct fval *v;

	if (r->depth == 0 && type != OPMFU_JSON_OBJECT)
		return opmfu_json_stop(&r->json, OPMFU_ERR_FORMAT, "not a JSON object (a config.json is one)");
	if (r->depth > OPMFU_JSON_MAX_DEPTH) {
		size_t at = opmfu_json_offset(&r->json);
		return opmfu_json_stop(&r->json, OPMFU_ERR_FORMAT, "invalid JSON at byte %zu: nesting too deep",
				       at ? at - 1 : 0);
	}
	if (r->cur < 0 || r->depth == 0 || r->depth > 2)
		return 1;
	v = &r->v[r->cur];
	if (r->depth == 1) { /* the member's value: the last of a key given twice counts */
		memset(v, 0, sizeof(*v));
		v->type = type == OPMFU_JSON_NULL ? OPMFU_JSON_ABSENT : type;
		v->null = type == OPMFU_JSON_NULL;
		v->truth = truth;
		if (s)
			keep_text(v, s, len);
		return 1;
	}
	if (v->type != OPMFU_JSON_ARRAY)
		return 1; /* inside an object member: not read */
	if (v->n < ARRAY_NUMS) {
		char buf[64], *end;
		double d = 0;
		if (type == OPMFU_JSON_NUMBER && len < sizeof(buf)) {
			memcpy(buf, s, len);
			buf[len] = '\0';
			d = strtod(buf, &end);
		}
		if (type == OPMFU_JSON_NUMBER && len < sizeof(buf) && isfinite(d))
			v->num[v->n_num++] = d;
		else
			v->odd = 1;
	}
	if (type == OPMFU_JSON_STRING && len == 17 && !memcmp(s, "sliding_attention", 17))
		v->n_sliding++;
	if (type == OPMFU_JSON_STRING && len == 17 && !memcmp(s, "chunked_attention", 17))
		v->n_chunked++;
	v->n++;
	return 1;
}

static int cb_null(void *ctx)
{
	return value(ctx, OPMFU_JSON_NULL, NULL, 0, 0);
}

static int cb_bool(void *ctx, int b)
{
	return value(ctx, OPMFU_JSON_BOOL, NULL, 0, b != 0);
}

static int cb_number(void *ctx, const char *s, size_t len)
{
	return value(ctx, OPMFU_JSON_NUMBER, s, len, 0);
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
	return value(ctx, OPMFU_JSON_STRING, (const char *)s, len, 0);
}

static int open_container(void *ctx, enum opmfu_json_type type)
{
	struct reader *r = ctx;
	if (!value(ctx, type, NULL, 0, 0))
		return 0;
	r->depth++;
	return 1;
}

static int cb_start_map(void *ctx)
{
	return open_container(ctx, OPMFU_JSON_OBJECT);
}

static int cb_start_array(void *ctx)
{
	return open_container(ctx, OPMFU_JSON_ARRAY);
}

static int cb_end(void *ctx)
{
	((struct reader *)ctx)->depth--;
	return 1;
}

static int cb_key(void *ctx, const unsigned char *key, size_t len)
{
	struct reader *r = ctx;
	if (r->depth > OPMFU_JSON_MAX_DEPTH) {
		size_t at = opmfu_json_offset(&r->json);
		return opmfu_json_stop(&r->json, OPMFU_ERR_FORMAT, "invalid JSON at byte %zu: nesting too deep",
				       at ? at - 1 : 0);
	}
	if (r->depth == 1)
		r->cur = field_find((const char *)key, len);
	return 1;
}

static const yajl_callbacks callbacks = {
	cb_null, cb_bool, NULL, NULL, cb_number, cb_string,
	cb_start_map, cb_key, cb_end, cb_start_array, cb_end
};

static enum opmfu_status reader_init(struct reader *r, struct opmfu_err *err)
{
	memset(r, 0, sizeof(*r));
	r->cur = -1;
	return opmfu_json_init(&r->json, &callbacks, r, err);
}

/* ---- --set FIELD=VALUE ---- */

static enum opmfu_status apply_set(struct reader *r, const char *set, struct opmfu_err *err)
{
	const char *eq = strchr(set, '=');
	struct fval *v;
	char *end;
	int f;

	if (!eq || eq == set)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "--set '%s': expected FIELD=VALUE", set);
	if ((f = field_find(set, (size_t)(eq - set))) < 0)
		return opmfu_err_set(err, OPMFU_ERR_USAGE, "--set '%s': '%.*s' is not a config field opmfu reads "
				     "(docs/model-mfu.md lists them)", set, (int)(eq - set), set);
	v = &r->v[f];
	memset(v, 0, sizeof(*v));
	v->from_set = 1;
	eq++;
	errno = 0;
	if (!strcmp(eq, "null")) {
		v->type = OPMFU_JSON_ABSENT;
		v->null = 1;
	} else if (!strcmp(eq, "true") || !strcmp(eq, "false")) {
		v->type = OPMFU_JSON_BOOL;
		v->truth = eq[0] == 't';
	} else {
		double d = strtod(eq, &end);
		v->type = *eq && !*end && !errno && isfinite(d) && *eq != ' ' ? OPMFU_JSON_NUMBER : OPMFU_JSON_STRING;
		keep_text(v, eq, strlen(eq));
	}
	return OPMFU_OK;
}

/* ---- fields into numbers ---- */

struct build {
	const char *name; /* the file, for messages */
	struct fval *v;
	struct opmfu_model_cfg *cfg;
	struct opmfu_err *err;
	enum opmfu_status st;
};

/* Where a value came from, for messages. */
static const char *origin(const struct build *b, int f)
{
	return b->v[f].from_set ? " (from --set)" : "";
}

static int fail_kind(struct build *b, int f, const char *want)
{
	const struct fval *v = &b->v[f];
	char what[96];
	if (v->type == OPMFU_JSON_STRING)
		snprintf(what, sizeof(what), "\"%s\"", v->text);
	else if (v->type == OPMFU_JSON_NUMBER)
		snprintf(what, sizeof(what), "%s", v->text);
	else if (v->type == OPMFU_JSON_BOOL)
		snprintf(what, sizeof(what), "%s", v->truth ? "true" : "false");
	else
		snprintf(what, sizeof(what), "%s", v->type == OPMFU_JSON_ARRAY ? "an array" : "an object");
	b->st = opmfu_err_set(b->err, OPMFU_ERR_FORMAT, "%s: %s is %s%s, not %s", b->name, fields[f].key, what,
			      origin(b, f), want);
	return -1;
}

/* A whole number >= lo: 1 and *out, 0 when absent (null), -1 on a fault. */
static int whole(struct build *b, int f, long long lo, long long *out)
{
	const struct fval *v = &b->v[f];
	double d;
	char *end;

	if (b->st)
		return -1;
	if (v->type == OPMFU_JSON_ABSENT)
		return 0;
	if (v->type != OPMFU_JSON_NUMBER || v->len >= sizeof(v->text))
		return fail_kind(b, f, "a whole number");
	errno = 0;
	d = strtod(v->text, &end);
	if (*end || errno || d != floor(d))
		return fail_kind(b, f, "a whole number");
	if (d < (double)lo || d > (double)FIELD_MAX) {
		b->st = opmfu_err_set(b->err, OPMFU_ERR_FORMAT, "%s: %s = %s%s is out of range (%lld to %lld)",
				      b->name, fields[f].key, v->text, origin(b, f), lo, FIELD_MAX);
		return -1;
	}
	*out = (long long)d;
	return 1;
}

/* A whole number that must be there. */
static long long need(struct build *b, int f, long long lo)
{
	long long x = 0;
	int got = whole(b, f, lo, &x);
	if (got == 0 && !b->st)
		b->st = opmfu_err_set(b->err, OPMFU_ERR_FORMAT, "%s: no %s (%s); give it with --set %s=N", b->name,
				      fields[f].key, fields[f].what, fields[f].key);
	return got > 0 ? x : 0;
}

static long long opt(struct build *b, int f, long long lo, long long dflt)
{
	long long x = dflt;
	whole(b, f, lo, &x);
	return x;
}

static int flag(struct build *b, int f, int dflt)
{
	const struct fval *v = &b->v[f];
	if (b->st || v->type == OPMFU_JSON_ABSENT)
		return dflt;
	if (v->type != OPMFU_JSON_BOOL) {
		fail_kind(b, f, "true or false");
		return dflt;
	}
	return v->truth;
}

static int is_str(const struct build *b, int f, const char *s)
{
	return b->v[f].type == OPMFU_JSON_STRING && !strcmp(b->v[f].text, s);
}

/* ---- Hugging Face decoders ---- */

enum moe_rule { MOE_NONE, MOE_MIXTRAL, MOE_QWEN, MOE_DEEPSEEK };
enum win_rule { WIN_NONE, WIN_ALL, WIN_QWEN };

/* What the transformers class of each model_type hard-codes. */
static const struct hf_family {
	const char *type;
	int qkv_bias, o_bias; /* -1: from attention_bias */
	int qk_norm;
	long long head_dim;   /* default head_dim; 0: hidden / heads */
	enum moe_rule moe;
	enum win_rule win;
	int mla, mlp_bias_field;
	long long window;     /* sliding_window when the key is not there */
} hf_families[] = {
	{ "llama", -1, -1, 0, 0, MOE_NONE, WIN_NONE, 0, 1, 0 },
	{ "mistral", 0, 0, 0, 0, MOE_NONE, WIN_ALL, 0, 0, 4096 },
	{ "mixtral", 0, 0, 0, 0, MOE_MIXTRAL, WIN_ALL, 0, 0, 0 },
	{ "qwen2", 1, 0, 0, 0, MOE_NONE, WIN_QWEN, 0, 0, 4096 },
	{ "qwen2_moe", 1, 0, 0, 0, MOE_QWEN, WIN_QWEN, 0, 0, 4096 },
	{ "qwen3", -1, -1, 1, 128, MOE_NONE, WIN_QWEN, 0, 0, 4096 },
	{ "qwen3_moe", -1, -1, 1, 128, MOE_QWEN, WIN_QWEN, 0, 0, 4096 },
	{ "deepseek", -1, -1, 0, 0, MOE_DEEPSEEK, WIN_NONE, 0, 0, 0 },
	{ "deepseek_v2", -1, -1, 0, 0, MOE_DEEPSEEK, WIN_NONE, 1, 0, 0 },
	{ "deepseek_v3", -1, -1, 0, 0, MOE_DEEPSEEK, WIN_NONE, 1, 0, 0 },
};
#define N_HF (sizeof(hf_families) / sizeof(hf_families[0]))

static const char known_types[] = "llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, deepseek, "
				  "deepseek_v2, deepseek_v3, gpt2";

/* Qwen-MoE: layer i is MoE unless listed in mlp_only_layers, when (i + 1) % step == 0. */
static long long qwen_moe_layers(struct build *b, long long layers, long long step)
{
	const struct fval *v = &b->v[F_MLP_ONLY];
	long long n = opmfu_mflops_moe_layers(layers, 0, step, 1);
	unsigned k, j;

	if (v->type == OPMFU_JSON_ABSENT)
		return n;
	if (v->type != OPMFU_JSON_ARRAY) {
		fail_kind(b, F_MLP_ONLY, "a list of layer numbers");
		return 0;
	}
	if (v->odd) {
		b->st = opmfu_err_set(b->err, OPMFU_ERR_FORMAT, "%s: mlp_only_layers holds something other than "
				      "layer numbers", b->name);
		return 0;
	}
	if (v->n > ARRAY_NUMS) {
		b->st = opmfu_err_set(b->err, OPMFU_ERR_FORMAT, "%s: mlp_only_layers has %u entries: at most %d are "
				      "supported", b->name, v->n, ARRAY_NUMS);
		return 0;
	}
	for (k = 0; k < v->n_num; k++) {
		double i = v->num[k];
		int dup = 0;
		for (j = 0; j < k; j++)
			dup |= v->num[j] == i;
		if (!dup && i >= 0 && i < (double)layers && i == floor(i) && fmod(i + 1, (double)step) == 0)
			n--;
	}
	return n;
}

static void hf_moe(struct build *b, const struct hf_family *fam)
{
	struct opmfu_model_cfg *c = b->cfg;

	switch (fam->moe) {
	case MOE_NONE:
		return;
	case MOE_MIXTRAL:
		c->experts = need(b, F_LOCAL_EXPERTS, 1);
		c->moe_layers = c->layers;
		c->moe_ffn = c->ffn;
		break;
	case MOE_QWEN:
		c->experts = need(b, F_NUM_EXPERTS, 1);
		c->moe_ffn = need(b, F_MOE_FFN, 1);
		c->shared_ffn = opt(b, F_SHARED_FFN, 0, 0);
		c->shared = c->shared_ffn > 0;
		c->router_extra = c->shared ? c->hidden : 0; /* shared_expert_gate: hidden -> 1 */
		c->moe_layers = qwen_moe_layers(b, c->layers, opt(b, F_SPARSE_STEP, 1, 1));
		break;
	case MOE_DEEPSEEK:
		if (!(c->experts = opt(b, F_ROUTED_EXPERTS, 1, 0)))
			return; /* n_routed_experts null: a dense model */
		c->moe_ffn = need(b, F_MOE_FFN, 1);
		c->shared = opt(b, F_SHARED_EXPERTS, 0, 0);
		c->shared_ffn = c->moe_ffn;
		c->moe_layers = opmfu_mflops_moe_layers(c->layers, opt(b, F_FIRST_DENSE, 0, 0), opt(b, F_MOE_FREQ, 1, 1), 0);
		/* noaux_tc routers carry a per-expert score correction bias */
		c->router_extra = is_str(b, F_TOPK_METHOD, "noaux_tc") ? c->experts : 0;
		break;
	}
	c->top_k = need(b, F_TOP_K, 1);
	if (!b->st && c->top_k > c->experts)
		b->st = opmfu_err_set(b->err, OPMFU_ERR_FORMAT, "%s: num_experts_per_tok %lld is more than the %lld "
				      "experts", b->name, c->top_k, c->experts);
}

static void hf_window(struct build *b, const struct hf_family *fam)
{
	struct opmfu_model_cfg *c = b->cfg;
	const struct fval *lt = &b->v[F_LAYER_TYPES];

	if (fam->win == WIN_NONE)
		return;
	if (lt->type != OPMFU_JSON_ABSENT) {
		/* newer transformers write the kind of each layer out */
		if (lt->type != OPMFU_JSON_ARRAY) {
			fail_kind(b, F_LAYER_TYPES, "a list of attention kinds");
			return;
		}
		if ((long long)lt->n != c->layers) {
			b->st = opmfu_err_set(b->err, OPMFU_ERR_FORMAT, "%s: layer_types has %u entries for %lld layers",
					      b->name, lt->n, c->layers);
			return;
		}
		if ((c->window_layers = lt->n_sliding) > 0)
			c->window = need(b, F_WINDOW, 1);
		if ((c->chunk_layers = lt->n_chunked) > 0)
			c->chunk = need(b, F_CHUNK, 1);
		return;
	}
	/* a null sliding_window is none; a missing one the class's default */
	if (fam->win == WIN_ALL) {
		c->window = b->v[F_WINDOW].null ? 0 : opt(b, F_WINDOW, 1, fam->window);
		c->window_layers = c->window > 0 ? c->layers : 0;
	} else if (flag(b, F_USE_WINDOW, 0)) {
		/* Qwen: the layers from max_window_layers on slide */
		long long first = opt(b, F_MAX_WINDOW_LAYERS, 0, 28);
		c->window = b->v[F_WINDOW].null ? 0 : opt(b, F_WINDOW, 1, fam->window);
		c->window_layers = c->window > 0 && first < c->layers ? c->layers - first : 0;
	}
}

static void hf_attention(struct build *b, const struct hf_family *fam)
{
	struct opmfu_model_cfg *c = b->cfg;
	int bias = flag(b, F_ATTN_BIAS, 0);

	c->kv_heads = opt(b, F_KV_HEADS, 1, c->heads);
	c->qkv_bias = fam->qkv_bias < 0 ? bias : fam->qkv_bias;
	c->o_bias = fam->o_bias < 0 ? bias : fam->o_bias;
	c->qk_norm = fam->qk_norm;
	if (fam->mla) {
		c->kv_lora = need(b, F_KV_LORA, 1);
		c->q_lora = opt(b, F_Q_LORA, 0, 0);
		c->qk_nope = need(b, F_QK_NOPE, 0);
		c->qk_rope = need(b, F_QK_ROPE, 0);
		c->v_head = need(b, F_V_HEAD, 1);
		c->head_dim = c->qk_nope + c->qk_rope;
		return;
	}
	if (fam->head_dim || b->v[F_HEAD_DIM].type != OPMFU_JSON_ABSENT) {
		c->head_dim = opt(b, F_HEAD_DIM, 1, fam->head_dim);
	} else if (!b->st && c->hidden % c->heads) {
		b->st = opmfu_err_set(b->err, OPMFU_ERR_FORMAT, "%s: no head_dim, and hidden_size %lld is not a "
				      "multiple of num_attention_heads %lld; give it with --set head_dim=N", b->name,
				      c->hidden, c->heads);
	} else if (!b->st) {
		c->head_dim = c->hidden / c->heads;
	}
}

static void hf_decoder(struct build *b, const struct hf_family *fam)
{
	struct opmfu_model_cfg *c = b->cfg;

	c->family = OPMFU_MF_DECODER;
	c->gated = 1;
	c->layers = need(b, F_LAYERS, 1);
	c->hidden = need(b, F_HIDDEN, 1);
	c->heads = need(b, F_HEADS, 1);
	c->vocab = need(b, F_VOCAB, 1);
	c->tied = flag(b, F_TIED, 0);
	c->mlp_bias = fam->mlp_bias_field ? flag(b, F_MLP_BIAS, 0) : 0;
	if (b->st)
		return;
	hf_attention(b, fam);
	/* Mixtral's intermediate_size is its experts'; the MoE families
	 * need theirs only for the layers they keep dense */
	if (fam->moe == MOE_NONE || fam->moe == MOE_MIXTRAL)
		c->ffn = need(b, F_FFN, 1);
	else
		c->ffn = opt(b, F_FFN, 1, 0);
	if (!b->st)
		hf_moe(b, fam);
	if (!b->st && c->moe_layers < c->layers && c->ffn == 0)
		need(b, F_FFN, 1);
	if (!b->st)
		hf_window(b, fam);
}

static void gpt2(struct build *b)
{
	struct opmfu_model_cfg *c = b->cfg;

	c->family = OPMFU_MF_DECODER;
	c->layers = need(b, F_N_LAYER, 1);
	c->hidden = need(b, F_N_EMBD, 1);
	c->heads = need(b, F_N_HEAD, 1);
	c->vocab = need(b, F_VOCAB, 1);
	c->ffn = opt(b, F_N_INNER, 1, 4 * c->hidden);
	c->pos_embed = opt(b, F_N_POSITIONS, 1, 1024) * c->hidden;
	c->tied = flag(b, F_TIED, 1);
	if (!b->st && c->hidden % c->heads)
		b->st = opmfu_err_set(b->err, OPMFU_ERR_FORMAT, "%s: n_embd %lld is not a multiple of n_head %lld",
				      b->name, c->hidden, c->heads);
	c->kv_heads = c->heads;
	c->head_dim = c->heads ? c->hidden / c->heads : 0;
	/* Conv1D layers with biases, LayerNorm with biases, a 2-matrix MLP */
	c->qkv_bias = c->o_bias = c->mlp_bias = c->norm_bias = 1;
}

/* ---- diffusers transformers ---- */

static void diffusers(struct build *b, enum opmfu_mfamily family)
{
	struct opmfu_model_cfg *c = b->cfg;

	c->family = family;
	c->layers = need(b, F_NUM_LAYERS, 1);
	c->heads = need(b, F_HEADS, 1);
	c->head_dim = need(b, F_ATTN_HEAD_DIM, 1);
	c->hidden = c->heads * c->head_dim;
	c->kv_heads = c->heads;
	if (family == OPMFU_MF_QWEN_IMAGE) {
		c->in_channels = need(b, F_IN_CHANNELS, 1);
		c->joint_dim = need(b, F_JOINT_DIM, 1);
		/* the estimator's own defaults: patch 2, out_channels or in_channels */
		c->patch = opt(b, F_PATCH, 1, 2);
		if (!(c->out_channels = opt(b, F_OUT_CHANNELS, 0, 0)))
			c->out_channels = c->in_channels;
		c->guidance_embeds = flag(b, F_GUIDANCE, 0);
	} else {
		c->ffn = need(b, F_FFN_DIM, 1);
		c->added_kv = opt(b, F_ADDED_KV, 0, 0); /* null: the model width */
	}
}

static enum opmfu_status build(struct build *b)
{
	const struct fval *mt = &b->v[F_MODEL_TYPE], *cn = &b->v[F_CLASS_NAME];
	size_t i;

	if (cn->type == OPMFU_JSON_STRING) {
		snprintf(b->cfg->name, sizeof(b->cfg->name), "%s", cn->text);
		if (!strcmp(cn->text, "QwenImageTransformer2DModel"))
			diffusers(b, OPMFU_MF_QWEN_IMAGE);
		else if (!strcmp(cn->text, "WanTransformer3DModel"))
			diffusers(b, OPMFU_MF_WAN);
		else
			return opmfu_err_set(b->err, OPMFU_ERR_FORMAT, "%s: _class_name \"%s\" is not a transformer "
					     "opmfu knows (QwenImageTransformer2DModel, WanTransformer3DModel); if it has "
					     "one's fields, say so with --set _class_name=NAME", b->name, cn->text);
		return b->st;
	}
	if (mt->type != OPMFU_JSON_STRING) {
		if (mt->type != OPMFU_JSON_ABSENT || cn->type != OPMFU_JSON_ABSENT) {
			fail_kind(b, mt->type != OPMFU_JSON_ABSENT ? F_MODEL_TYPE : F_CLASS_NAME, "a name");
			return b->st;
		}
		return opmfu_err_set(b->err, OPMFU_ERR_FORMAT, "%s: no model_type (Hugging Face) or _class_name "
				     "(diffusers); give one with --set model_type=NAME (%s)", b->name, known_types);
	}
	snprintf(b->cfg->name, sizeof(b->cfg->name), "%s", mt->text);
	if (!strcmp(mt->text, "gpt2")) {
		gpt2(b);
		return b->st;
	}
	for (i = 0; i < N_HF; i++)
		if (!strcmp(mt->text, hf_families[i].type)) {
			hf_decoder(b, &hf_families[i]);
			return b->st;
		}
	return opmfu_err_set(b->err, OPMFU_ERR_FORMAT, "%s: model_type \"%s\" is not one opmfu knows (%s); if its "
			     "fields follow one of them, say which with --set model_type=NAME", b->name, mt->text,
			     known_types);
}

static enum opmfu_status finish(struct reader *r, const char *name, const char *const *set, size_t n_set,
				struct opmfu_model_cfg *cfg, struct opmfu_err *err)
{
	struct build b = { name, r->v, cfg, err, OPMFU_OK };
	enum opmfu_status st;
	size_t i;

	for (i = 0; i < n_set; i++)
		if ((st = apply_set(r, set[i], err)))
			return st;
	memset(cfg, 0, sizeof(*cfg));
	if ((st = build(&b)))
		memset(cfg, 0, sizeof(*cfg));
	return st;
}

enum opmfu_status opmfu_model_config_parse(const char *text, size_t len, const char *name, const char *const *set,
					   size_t n_set, struct opmfu_model_cfg *cfg, struct opmfu_err *err)
{
	struct reader *r = opmfu_malloc(sizeof(*r));
	enum opmfu_status st;

	if (!r)
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory", name);
	if (!(st = reader_init(r, err)) && !(st = opmfu_json_feed(&r->json, text, len, err)))
		st = opmfu_json_finish(&r->json, err);
	opmfu_json_release(&r->json);
	if (st)
		opmfu_err_prefix(err, "%s", name);
	else
		st = finish(r, name, set, n_set, cfg, err);
	opmfu_free(r);
	return st;
}

enum opmfu_status opmfu_model_config_read(const char *path, const char *const *set, size_t n_set,
					  struct opmfu_model_cfg *cfg, struct opmfu_err *err)
{
	struct reader *r;
	enum opmfu_status st;
	/* never blocking: a FIFO is refused (SPEC 26) */
	FILE *f = opmfu_fopen_regular(path, "cannot read", err);

	if (!f)
		return OPMFU_ERR_IO;
	if (!(r = opmfu_malloc(sizeof(*r)))) {
		fclose(f);
		return opmfu_err_set(err, OPMFU_ERR_NOMEM, "%s: out of memory", path);
	}
	st = reader_init(r, err);
	st = opmfu_json_feed_file(&r->json, st, f, CONFIG_MAX_BYTES, "a model config", err);
	opmfu_json_release(&r->json);
	fclose(f);
	if (st)
		opmfu_err_prefix(err, "%s", path);
	else
		st = finish(r, path, set, n_set, cfg, err);
	opmfu_free(r);
	return st;
}
