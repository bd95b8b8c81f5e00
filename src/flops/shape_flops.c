/*
 * shape_flops.c - the entry of the shape formulas (SPEC 9): which family a
 * type belongs to, the parse of its shape lists, and the readers of
 * attributes and formats the families share. The formulas themselves are
 * in shape_matmul.c, shape_attention.c and shape_conv.c.
 */
#include "flops/shape_int.h"

#include <string.h>

#include "trace/trace.h"

const char *opmfu_flops_family_name(enum opmfu_flops_family f)
{
	switch (f) {
	case OPMFU_FAM_MATMUL: return "matmul";
	case OPMFU_FAM_ATTENTION: return "attention";
	case OPMFU_FAM_CONV: return "conv";
	case OPMFU_FAM_NONE:
	case OPMFU_FAM__COUNT: break;
	}
	return "none";
}

const char *opmfu_shape_status_name(enum opmfu_shape_status st)
{
	switch (st) {
	case OPMFU_SHAPE_OK: return "ok";
	case OPMFU_SHAPE_NO_FORMULA: return "no formula";
	case OPMFU_SHAPE_UNKNOWN: return "unknown shapes";
	case OPMFU_SHAPE_MISMATCH: return "shape mismatch";
	case OPMFU_SHAPE_OVERFLOW: return "overflow";
	case OPMFU_SHAPE_NO_ATTR: return "no attribute";
	case OPMFU_SHAPE__COUNT: break;
	}
	return "?";
}

/* The type as the tables name it: aten's namespace dropped ("aten::mm"
 * and "mm" are one op); other namespaces (flash_attn::) stay. */
static struct opmfu_text bare_name(struct opmfu_text type)
{
	static const char aten[] = "aten::";
	size_t n = sizeof(aten) - 1;
	if (type.s && type.n >= n && memcmp(type.s, aten, n) == 0) {
		type.s += n;
		type.n -= n;
	}
	return type;
}

enum opmfu_flops_family opmfu_shape_family(struct opmfu_text type)
{
	struct opmfu_text name = bare_name(type);
	if (!name.s || name.n == 0)
		return OPMFU_FAM_NONE;
	if (sf_matmul_knows(name))
		return OPMFU_FAM_MATMUL;
	if (sf_attention_knows(name))
		return OPMFU_FAM_ATTENTION;
	if (sf_conv_knows(name))
		return OPMFU_FAM_CONV;
	return OPMFU_FAM_NONE;
}

int sf_parse_list(struct opmfu_text t, struct sf_shapes *s)
{
	s->sh = (struct opmfu_shape){ s->dims, s->end, SF_MAX_DIMS, SF_MAX_TENSORS, 0, 0 };
	s->known = 0;
	if (!t.s)
		return 0;
	if (opmfu_shape_parse(t.s, t.n, &s->sh) != 0)
		return -1;
	s->known = 1;
	return 0;
}

enum opmfu_shape_status opmfu_shape_flops(const struct opmfu_shape_call *c, int64_t *flops)
{
	return opmfu_shape_flops_fam(c, opmfu_shape_family(c->type), flops);
}

enum opmfu_shape_status opmfu_shape_flops_fam(const struct opmfu_shape_call *c, enum opmfu_flops_family fam,
					      int64_t *flops)
{
	struct sf_call k;
	enum opmfu_shape_status st = OPMFU_SHAPE_NO_FORMULA;
	int64_t f = 0;

	*flops = 0;
	if (fam == OPMFU_FAM_NONE)
		return opmfu_kernel_flop(c->attrs, flops) ? OPMFU_SHAPE_OK : OPMFU_SHAPE_NO_FORMULA;
	k.c = c;
	k.name = bare_name(c->type);
	/* the inputs are what every formula reads; outputs only refine */
	if (sf_parse_list(c->in_shapes, &k.in) != 0 || !k.in.known)
		return OPMFU_SHAPE_UNKNOWN;
	if (sf_parse_list(c->out_shapes, &k.out) != 0)
		k.out.known = 0;
	switch (fam) {
	case OPMFU_FAM_MATMUL: st = sf_matmul(&k, &f); break;
	case OPMFU_FAM_ATTENTION: st = sf_attention(&k, &f); break;
	case OPMFU_FAM_CONV: st = sf_conv(&k, &f); break;
	case OPMFU_FAM_NONE:
	case OPMFU_FAM__COUNT: break;
	}
	if (st == OPMFU_SHAPE_OK)
		*flops = f;
	return st;
}

int opmfu_kernel_flop(struct opmfu_text attrs, int64_t *flops)
{
	struct opmfu_text v;
	int64_t x;
	/* Inductor's count for the kernel it generated (no shape formula
	 * reaches inside a fused Triton kernel); 0 means none was counted */
	if (!sf_attr_named(attrs, "kernel_flop", &v) || sf_int(v, &x) != 0 || x <= 0)
		return 0;
	*flops = x;
	return 1;
}

/* ---- shapes and formats ---- */

size_t sf_count(const struct sf_shapes *s)
{
	return s->known ? s->sh.n_tensors : 0;
}

struct sf_t sf_tensor(const struct sf_shapes *s, size_t i)
{
	struct sf_t t = { NULL, 0, 0 };
	if (i < sf_count(s)) {
		t.d = opmfu_shape_dims(&s->sh, i);
		t.rank = opmfu_shape_rank(&s->sh, i);
		t.present = 1;
	}
	return t;
}

static int lower(int ch)
{
	return ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch;
}

int sf_text_is(struct opmfu_text v, const char *s)
{
	size_t i, n = strlen(s);
	if (!v.s || v.n != n)
		return 0;
	for (i = 0; i < n; i++)
		if (lower((unsigned char)v.s[i]) != lower((unsigned char)s[i]))
			return 0;
	return 1;
}

int sf_starts(struct opmfu_text name, const char *prefix)
{
	size_t n = strlen(prefix);
	return name.s && name.n >= n && memcmp(name.s, prefix, n) == 0;
}

int sf_eq(struct opmfu_text name, const char *s)
{
	return name.n == strlen(s) && sf_starts(name, s);
}

enum sf_fmt sf_format(struct opmfu_text formats, size_t i)
{
	static const struct {
		const char *name;
		enum sf_fmt f;
	} known[] = {
		{ "ND", SF_ND }, { "NCHW", SF_NCHW }, { "NHWC", SF_NHWC }, { "HWCN", SF_HWCN },
		{ "NC1HWC0", SF_NC1HWC0 }, { "FRACTAL_Z", SF_FRACTAL_Z }, { "FRACTAL_NZ", SF_FRACTAL_NZ },
		{ "NCDHW", SF_NCDHW }, { "NDHWC", SF_NDHWC }, { "DHWCN", SF_DHWCN },
		{ "NDC1HWC0", SF_NDC1HWC0 }, { "FRACTAL_Z_3D", SF_FRACTAL_Z_3D }, { "NCL", SF_ND },
	};
	struct opmfu_text v = { NULL, 0 };
	size_t p = 0, start = 0, k;

	if (!formats.s)
		return SF_ND;
	/* entry i of the ';'-joined list */
	for (k = 0; k <= formats.n; k++) {
		if (k == formats.n || formats.s[k] == ';') {
			if (p == i) {
				v.s = formats.s + start;
				v.n = k - start;
				break;
			}
			p++;
			start = k + 1;
		}
	}
	if (!v.s || v.n == 0)
		return SF_ND;
	/* Ascend writes FORMAT_ND and sub-formats as NAME:N; both name one format */
	if (v.n > 7 && memcmp(v.s, "FORMAT_", 7) == 0) {
		v.s += 7;
		v.n -= 7;
	}
	for (k = 0; k < v.n; k++)
		if (v.s[k] == ':') {
			v.n = k;
			break;
		}
	for (k = 0; k < sizeof(known) / sizeof(known[0]); k++)
		if (sf_text_is(v, known[k].name))
			return known[k].f;
	return SF_OTHER;
}

/* ---- attributes ---- */

/* entry [*pos, end) of attrs: 1 while there is one, *pos moved past it */
static int next_entry(struct opmfu_text attrs, size_t *pos, struct opmfu_text *e)
{
	size_t k = *pos;
	if (!attrs.s || *pos > attrs.n)
		return 0;
	while (k < attrs.n && attrs.s[k] != OPMFU_ATTR_SEP)
		k++;
	e->s = attrs.s + *pos;
	e->n = k - *pos;
	*pos = k + 1;
	return 1;
}

/* the length of e's key when e is key=value (key an identifier), else 0 */
static size_t key_len(struct opmfu_text e)
{
	size_t k;
	for (k = 0; k < e.n; k++) {
		int ch = (unsigned char)e.s[k];
		if (ch == '=')
			return k;
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' ||
		      (k > 0 && ((ch >= '0' && ch <= '9') || ch == '.'))))
			return 0;
	}
	return 0;
}

int sf_attr_named(struct opmfu_text attrs, const char *key, struct opmfu_text *v)
{
	struct opmfu_text e;
	size_t pos = 0, n = strlen(key), kl;
	while (next_entry(attrs, &pos, &e)) {
		kl = key_len(e);
		if (kl == n && memcmp(e.s, key, n) == 0) {
			v->s = e.s + kl + 1;
			v->n = e.n - kl - 1;
			return 1;
		}
	}
	return 0;
}

int sf_attr_pos(struct opmfu_text attrs, size_t i, struct opmfu_text *v)
{
	struct opmfu_text e;
	size_t pos = 0, p = 0;
	while (next_entry(attrs, &pos, &e)) {
		if (key_len(e))
			continue;
		if (p++ == i) {
			*v = e;
			return 1;
		}
	}
	return 0;
}

int sf_attr_has_pos(struct opmfu_text attrs)
{
	struct opmfu_text e;
	size_t pos = 0;
	while (next_entry(attrs, &pos, &e))
		if (e.n && !key_len(e))
			return 1;
	return 0;
}

static struct opmfu_text trim(struct opmfu_text v)
{
	while (v.n && (v.s[0] == ' ' || v.s[0] == '\t' || v.s[0] == '\'' || v.s[0] == '"')) {
		v.s++;
		v.n--;
	}
	while (v.n && (v.s[v.n - 1] == ' ' || v.s[v.n - 1] == '\t' || v.s[v.n - 1] == '\'' ||
		       v.s[v.n - 1] == '"'))
		v.n--;
	return v;
}

int sf_bool(struct opmfu_text v)
{
	v = trim(v);
	if (sf_text_is(v, "true") || sf_text_is(v, "1"))
		return 1;
	if (sf_text_is(v, "false") || sf_text_is(v, "0"))
		return 0;
	return -1;
}

int sf_named_bool(struct opmfu_text attrs, const char *key, int dflt)
{
	struct opmfu_text v;
	int b;
	if (!sf_attr_named(attrs, key, &v))
		return dflt;
	b = sf_bool(v);
	return b < 0 ? dflt : b;
}

/* an integer at s[*k..n): digits with an optional sign; *k moved past it */
static int scan_int(const char *s, size_t n, size_t *k, int64_t *x)
{
	uint64_t v = 0, lim = (uint64_t)INT64_MAX;
	size_t i = *k, d0;
	int neg = 0;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	d0 = i;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		unsigned dig = (unsigned)(s[i] - '0');
		if (v > (lim - dig) / 10)
			return -1;
		v = v * 10 + dig;
	}
	if (i == d0)
		return -1;
	*x = neg ? -(int64_t)v : (int64_t)v;
	*k = i;
	return 0;
}

int sf_int(struct opmfu_text v, int64_t *x)
{
	size_t k = 0;
	v = trim(v);
	if (!v.s || scan_int(v.s, v.n, &k, x) != 0 || k != v.n)
		return -1;
	return 0;
}

void sf_cur_init(struct sf_cur *cu, struct opmfu_text v)
{
	v = trim(v);
	cu->bad = !v.s;
	if (v.s && v.n && (v.s[0] == '[' || v.s[0] == '(')) {
		char close = v.s[0] == '[' ? ']' : ')';
		if (v.n < 2 || v.s[v.n - 1] != close)
			cu->bad = 1;
		else {
			v.s++;
			v.n -= 2;
		}
	}
	cu->v = v;
	cu->k = 0;
}

int sf_cur_next(struct sf_cur *cu, int64_t *x)
{
	const char *s = cu->v.s;
	size_t n = cu->v.n;
	if (cu->bad)
		return -1;
	while (cu->k < n && s[cu->k] == ' ')
		cu->k++;
	if (cu->k == n)
		return 0;
	if (scan_int(s, n, &cu->k, x) != 0) {
		cu->bad = 1;
		return -1;
	}
	/* values are separated by ',' or spaces */
	while (cu->k < n && s[cu->k] == ' ')
		cu->k++;
	if (cu->k < n && s[cu->k] == ',')
		cu->k++;
	else if (cu->k < n && !(s[cu->k] >= '0' && s[cu->k] <= '9') && s[cu->k] != '-' && s[cu->k] != '+') {
		cu->bad = 1;
		return -1;
	}
	return 1;
}

int sf_each(int64_t *out, size_t n, size_t ns)
{
	size_t i;
	if (n == 1)
		for (i = 1; i < ns; i++)
			out[i] = out[0];
	else if (n != ns)
		return -1;
	return 0;
}

int sf_ints(struct opmfu_text v, int64_t *x, size_t cap, size_t *n)
{
	struct sf_cur cu;
	size_t cnt = 0;
	int64_t val;
	int r;
	sf_cur_init(&cu, v);
	while ((r = sf_cur_next(&cu, &val)) == 1) {
		if (cnt < cap)
			x[cnt] = val;
		cnt++;
	}
	if (r < 0)
		return -1;
	*n = cnt;
	return 0;
}

/* ---- checked arithmetic ---- */

int sf_mul(int64_t *acc, int64_t v)
{
	if (*acc < 0 || v < 0)
		return -1;
	if (v != 0 && *acc > INT64_MAX / v)
		return -1;
	*acc *= v;
	return 0;
}

int sf_add(int64_t *acc, int64_t v)
{
	if (*acc < 0 || v < 0 || *acc > INT64_MAX - v)
		return -1;
	*acc += v;
	return 0;
}

int sf_prod(int64_t *acc, const int64_t *d, size_t n)
{
	size_t i;
	/* a zero anywhere makes it 0, however large the rest */
	for (i = 0; i < n; i++)
		if (d[i] == 0) {
			*acc = 0;
			return 0;
		}
	*acc = 1;
	for (i = 0; i < n; i++)
		if (sf_mul(acc, d[i]) != 0)
			return -1;
	return 0;
}
