/*
 * nsys_nvtx.c - what an NVTX text says (PyTorch's emit_nvtx grammar,
 * nsys.h) and the dtype a kernel's name implies. Pure functions over any
 * bytes: the fuzz target tests/fuzz/fuzz_nsys_text.c drives them.
 */
#include <string.h>

#include "base/fold.h"
#include "read/kineto/kineto_parse.h"
#include "read/nsys/nsys.h"

#define MODULE_PREFIX "nn.Module: "

#define MARKER(lit) { lit, sizeof(lit) - 1 }
static const struct { const char *s; size_t n; } markers[] = {
	MARKER(", seq = "), MARKER(", op_id = "), MARKER(", sizes = "), MARKER(", input_op_ids = ")
};
#define N_MARKERS (sizeof(markers) / sizeof(markers[0]))

/* The first occurrence of w in s[from..n), or n. */
static size_t find(const char *s, size_t n, size_t from, const char *w)
{
	size_t k = strlen(w), i;
	for (i = from; i + k <= n; i++)
		if (s[i] == w[0] && !memcmp(s + i, w, k))
			return i;
	return n;
}

/* A non-negative integer of at most 18 digits at s[*at..n); -1 otherwise. */
static int64_t number_at(const char *s, size_t n, size_t *at)
{
	uint64_t v = 0; /* 19 digits fit unsigned; a 19th is read only to refuse the number */
	size_t i = *at, lim = n - i > 19 ? i + 19 : n, d;
	while (i < lim && (unsigned char)(s[i] - '0') <= 9) {
		v = v * 10 + (uint64_t)(s[i] - '0');
		i++;
	}
	d = i - *at;
	*at = i;
	return d == 0 || d > 18 ? -1 : (int64_t)v;
}

/* A seq or op_id field's number at s[i..n): it must end the text or meet the
 * next field's ','. "seq = 12abc" is no number PyTorch writes: the field is
 * refused (absent, -1) rather than read as 12. */
static int64_t field_number(const char *s, size_t n, size_t i)
{
	int64_t v = number_at(s, n, &i);
	return i == n || s[i] == ',' ? v : -1;
}

static void skip_spaces(const char *s, size_t n, size_t *i)
{
	while (*i < n && s[*i] == ' ')
		(*i)++;
}

/* "[[4096, 4096], [], [7]]" at s[i..n) into shapes as "4096,4096;;7".
 * Returns 1 when it parses, 0 otherwise (shapes then holds a part). */
static int sizes_at(const char *s, size_t n, size_t i, struct sbuf *shapes)
{
	char *o;
	int first = 1;
	if (i >= n || s[i++] != '[')
		return 0;
	/* the normal form is never longer than the text it comes from (each
	 * ',' and ';' written stands for a ',' read): room for it once, then
	 * bytes written straight in, not an append per number (a tenth of the
	 * reader's time on 10^6 ops) */
	sbuf_add(shapes, s + i, n - i);
	if (shapes->oom)
		return 0;
	o = shapes->buf;
	skip_spaces(s, n, &i);
	if (i < n && s[i] == ']') {
		shapes->len = 0;
		shapes->buf[0] = '\0';
		return 1; /* no inputs */
	}
	for (;;) {
		int dfirst = 1;
		skip_spaces(s, n, &i);
		if (i >= n || s[i++] != '[')
			return 0;
		if (!first)
			*o++ = ';';
		first = 0;
		skip_spaces(s, n, &i);
		if (i < n && s[i] == ']') {
			i++;
		} else {
			for (;;) {
				size_t from;
				skip_spaces(s, n, &i);
				from = i;
				if (number_at(s, n, &i) < 0)
					return 0;
				if (!dfirst)
					*o++ = ',';
				dfirst = 0;
				memcpy(o, s + from, i - from);
				o += i - from;
				skip_spaces(s, n, &i);
				if (i < n && s[i] == ',') {
					i++;
					continue;
				}
				if (i < n && s[i] == ']') {
					i++;
					break;
				}
				return 0;
			}
		}
		skip_spaces(s, n, &i);
		if (i < n && s[i] == ',') {
			i++;
			continue;
		}
		shapes->len = (size_t)(o - shapes->buf);
		*o = '\0';
		return i < n && s[i] == ']';
	}
}

int opmfu_nsys_parse_text(const char *s, size_t n, struct nsys_text *out, struct sbuf *shapes)
{
	size_t k, name_end = n, at[N_MARKERS], i, left = N_MARKERS;
	const char *c, *end = s + n;
	int marked = 0;

	memset(out, 0, sizeof(*out));
	out->seq = out->op_id = out->step = -1;
	sbuf_reset(shapes);
	if (!s)
		return 0;
	/* one pass: every marker starts with ", " and its third byte tells
	 * which it may be, so each ',' is checked against those, and each
	 * marker's first place kept */
	for (k = 0; k < N_MARKERS; k++)
		at[k] = n;
	for (c = s; left && (c = memchr(c, ',', (size_t)(end - c))) != NULL; c++) {
		i = (size_t)(c - s);
		if (i + 2 >= n || s[i + 1] != ' ')
			continue;
		for (k = 0; k < N_MARKERS; k++)
			if (markers[k].s[2] == s[i + 2] && at[k] == n && i + markers[k].n <= n &&
			    !memcmp(s + i, markers[k].s, markers[k].n)) {
				at[k] = i;
				left--;
			}
	}
	for (k = 0; k < N_MARKERS; k++) {
		if (at[k] < name_end)
			name_end = at[k];
		marked |= at[k] < n;
	}
	out->name = s;
	out->name_len = name_end;
	/* each field once, wherever it is after the name */
	if (at[0] < n)
		out->seq = field_number(s, n, at[0] + markers[0].n);
	if (at[1] < n)
		out->op_id = field_number(s, n, at[1] + markers[1].n);
	if (at[2] < n) {
		out->has_sizes = 1;
		out->shapes_ok = sizes_at(s, n, at[2] + markers[2].n, shapes);
		if (shapes->oom)
			return -1;
		if (!out->shapes_ok)
			sbuf_reset(shapes);
	}
	if (opmfu_kineto_step(s, name_end, &out->step))
		out->kind = NSYS_TEXT_STEP;
	else if (name_end > strlen(MODULE_PREFIX) && !memcmp(s, MODULE_PREFIX, strlen(MODULE_PREFIX)))
		out->kind = NSYS_TEXT_MODULE;
	else if (name_end && (marked || find(s, name_end, 0, "::") < name_end))
		out->kind = NSYS_TEXT_OP;
	return 0;
}

/*
 * The first rule that matches, narrowest types first: a GEMM named
 * "bf16bf16_bf16f32" has bf16 inputs and fp32 accumulation, so fp32 words
 * come last. The names are those of cuBLAS/cuBLASLt/CUTLASS/xmma kernels
 * and of PyTorch's templated kernels (c10::BFloat16, c10::Half, float).
 */
const char *opmfu_nsys_kernel_dtype(const char *name, size_t n)
{
	static const struct { const char *word, *dtype; } rules[] = {
		{ "e4m3", "c10::Float8_e4m3fn" }, { "e5m2", "c10::Float8_e5m2" }, { "fp8", "c10::Float8_e4m3fn" },
		{ "bf16", "c10::BFloat16" }, { "bfloat16", "c10::BFloat16" },
		{ "fp16", "c10::Half" }, { "f16", "c10::Half" }, { "half", "c10::Half" }, { "h16816", "c10::Half" },
		{ "h1688", "c10::Half" }, { "h884", "c10::Half" },
		{ "int8", "signed char" }, { "i8i8", "signed char" }, { "imma", "signed char" },
		{ "f32", "float" }, { "fp32", "float" }, { "sgemm", "float" }, { "tf32", "float" }, { "float", "float" },
	};
	size_t k;
	if (!name)
		return NULL;
	for (k = 0; k < sizeof(rules) / sizeof(rules[0]); k++)
		if (opmfu_contains_nocase(name, n, rules[k].word))
			return rules[k].dtype;
	return NULL;
}
