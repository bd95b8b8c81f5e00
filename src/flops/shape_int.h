/*
 * shape_int.h - what the shape FLOPs families share (flops/ only): the
 * parsed call, attribute and format readers, checked arithmetic. Every
 * reader is bounded by the text's length and never reads past it.
 */
#ifndef OPMFU_SHAPE_INT_H
#define OPMFU_SHAPE_INT_H

#include "flops/shape_flops.h"
#include "trace/shape.h"

/* room for the shapes of one call: grouped matmuls list every group's tensors */
#define SF_MAX_DIMS 2048
#define SF_MAX_TENSORS 512

struct sf_shapes {
	struct opmfu_shape sh;
	int64_t dims[SF_MAX_DIMS];
	uint32_t end[SF_MAX_TENSORS];
	int known; /* parsed (0: the text was absent) */
};

/* A tensor's dims, read out of a parse (rank 0 for one that is not there). */
struct sf_t {
	const int64_t *d;
	size_t rank;
	int present;
};

/* Formats as the formulas tell them apart; anything else is SF_OTHER. */
enum sf_fmt {
	SF_ND = 0, SF_NCHW, SF_NHWC, SF_HWCN, SF_NC1HWC0, SF_FRACTAL_Z, SF_FRACTAL_NZ,
	SF_NCDHW, SF_NDHWC, SF_DHWCN, SF_NDC1HWC0, SF_FRACTAL_Z_3D, SF_OTHER
};

/* The call once parsed: both shape lists, the texts kept for attributes. */
struct sf_call {
	const struct opmfu_shape_call *c;
	struct opmfu_text name; /* the type without "aten::" */
	struct sf_shapes in, out;
};

/* tensor i of s (absent past the end or when s was not known) */
struct sf_t sf_tensor(const struct sf_shapes *s, size_t i);
size_t sf_count(const struct sf_shapes *s);
enum sf_fmt sf_format(struct opmfu_text formats, size_t i);

/* -- attributes (model/trace.h OPMFU_ATTR_SEP entries) -- */
/* 1 and *v set when the named entry key=... is there, else 0 */
int sf_attr_named(struct opmfu_text attrs, const char *key, struct opmfu_text *v);
/* 1 and *v set when positional entry i is there, else 0 */
int sf_attr_pos(struct opmfu_text attrs, size_t i, struct opmfu_text *v);
/* a positional entry that holds a value (Kineto's Concrete Inputs were
 * recorded: entries that are all empty are tensors only, and say nothing) */
int sf_attr_has_pos(struct opmfu_text attrs);
/* "True"/"true"/"1": 1; "False"/"false"/"0": 0; anything else -1 */
int sf_bool(struct opmfu_text v);
/* one integer (sign allowed, spaces around): 0 and *x set, else -1 */
int sf_int(struct opmfu_text v, int64_t *x);
/* a cursor over a list of integers: "[1, 2]", "(1,2)", "1 2", "3" */
struct sf_cur {
	struct opmfu_text v;
	size_t k;
	int bad;
};
void sf_cur_init(struct sf_cur *cu, struct opmfu_text v);
/* 1 with *x the next value, 0 at the end, -1 when it is no such list */
int sf_cur_next(struct sf_cur *cu, int64_t *x);
/* the whole list: 0 with *n set (values past cap are
 * counted, not stored); -1 when it is not a list of integers */
int sf_ints(struct opmfu_text v, int64_t *x, size_t cap, size_t *n);
/* out[0 .. n) read for ns values: one value stands for all ns (copied), else n must be ns; 0, or -1 */
int sf_each(int64_t *out, size_t n, size_t ns);
/* t parsed into s (s->known: given); 0, or -1 when t is present but not a shape list that fits s */
int sf_parse_list(struct opmfu_text t, struct sf_shapes *s);
/* a named boolean attribute: 1/0, or dflt when absent or unreadable */
int sf_named_bool(struct opmfu_text attrs, const char *key, int dflt);
/* a case-insensitive match of v against s */
int sf_text_is(struct opmfu_text v, const char *s);

/* -- checked arithmetic: 0, or -1 when the result leaves [0, INT64_MAX] -- */
int sf_mul(int64_t *acc, int64_t v);
int sf_add(int64_t *acc, int64_t v);
/* *acc = product of d[0..n) (1 when n == 0; 0 when any is 0, whatever the rest) */
int sf_prod(int64_t *acc, const int64_t *d, size_t n);

/* 1 when name starts with prefix, is s (case-sensitive) */
int sf_starts(struct opmfu_text name, const char *prefix);
int sf_eq(struct opmfu_text name, const char *s);

/* -- the families: whether a type is theirs (name without "aten::"), and
 * OPMFU_SHAPE_OK with *flops set, or why not -- */
int sf_matmul_knows(struct opmfu_text name);
int sf_attention_knows(struct opmfu_text name);
int sf_conv_knows(struct opmfu_text name);
enum opmfu_shape_status sf_matmul(const struct sf_call *k, int64_t *flops);
enum opmfu_shape_status sf_attention(const struct sf_call *k, int64_t *flops);
enum opmfu_shape_status sf_conv(const struct sf_call *k, int64_t *flops);
/* an aten convolution's forward output numel (bytes.c); not for transposed ones or the backward */
enum opmfu_shape_status sf_conv_numel(const struct sf_call *k, int64_t *numel);

#endif
