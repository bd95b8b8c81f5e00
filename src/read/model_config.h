/*
 * model_config.h - a model's config.json into struct opmfu_model_cfg
 * (mflops/): Hugging Face configs (llama, mistral, mixtral, qwen2, qwen3,
 * qwen2_moe, qwen3_moe, deepseek, deepseek_v2, deepseek_v3, gpt2 by their
 * model_type) and diffusers transformer configs (QwenImageTransformer2DModel,
 * WanTransformer3DModel by their _class_name). Read through yajl
 * (read/json_stream.h); a top-level key given twice counts as Python's json
 * reads it: the last one.
 */
#ifndef OPMFU_MODEL_CONFIG_H
#define OPMFU_MODEL_CONFIG_H

#include <stddef.h>

#include "base/err.h"
#include "mflops/mflops.h"

/*
 * Reads the file at path. set[0..n_set) are "FIELD=VALUE" (--set): they
 * supply or replace a top-level field before the config is interpreted
 * (VALUE: a number, true, false, null or a string). Faults: OPMFU_ERR_IO
 * (unreadable), OPMFU_ERR_FORMAT (not JSON, not an object, an unknown
 * model_type or _class_name, a field missing or of the wrong kind: the
 * message names the file, the field and the --set that supplies it),
 * OPMFU_ERR_USAGE (a malformed --set or a field opmfu does not read),
 * OPMFU_ERR_NOMEM.
 */
enum opmfu_status opmfu_model_config_read(const char *path, const char *const *set, size_t n_set,
					  struct opmfu_model_cfg *cfg, struct opmfu_err *err);

/* The same over text[0..len); name stands for the file in messages. */
enum opmfu_status opmfu_model_config_parse(const char *text, size_t len, const char *name, const char *const *set,
					   size_t n_set, struct opmfu_model_cfg *cfg, struct opmfu_err *err);

#endif
