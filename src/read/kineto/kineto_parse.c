/*
 * kineto_parse.c - timestamp, dtype, event name and file name parsers of
 * PyTorch profiler (Kineto) traces.
 */
#include "read/kineto/kineto_parse.h"

#include <stdio.h>
#include <string.h>

#include "trace/coll.h"

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* ---- numbers ---- */

/* v * 10 + d within int64 (v >= 0, 0 <= d <= 9); -1 on overflow */
static int push_digit(int64_t *v, int d)
{
	if (*v > (INT64_MAX - d) / 10)
		return -1;
	*v = *v * 10 + d;
	return 0;
}

/* The syntax of a JSON number: -?d+(.d+)?([eE][+-]?d+)?, split into its
 * integer digits [ib, ie), fraction digits [fb, fe) and exponent (clamped:
 * beyond +-100000 the result is 0 or overflows whatever the digits). */
struct num {
	int neg;
	size_t ib, ie, fb, fe;
	long exp;
};

static int scan_number(const char *s, size_t len, struct num *n)
{
	size_t i = 0;
	int eneg = 0;

	memset(n, 0, sizeof(*n));
	if (i < len && s[i] == '-') {
		n->neg = 1;
		i++;
	}
	n->ib = i;
	while (i < len && is_digit(s[i]))
		i++;
	n->ie = i;
	if (n->ie == n->ib)
		return -1;
	n->fb = n->fe = i;
	if (i < len && s[i] == '.') {
		n->fb = ++i;
		while (i < len && is_digit(s[i]))
			i++;
		n->fe = i;
		if (n->fe == n->fb)
			return -1;
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		size_t e0;
		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			eneg = s[i++] == '-';
		e0 = i;
		while (i < len && is_digit(s[i])) {
			if (n->exp < 100000)
				n->exp = n->exp * 10 + (s[i] - '0');
			i++;
		}
		if (i == e0)
			return -1;
		if (eneg)
			n->exp = -n->exp;
	}
	return i == len ? 0 : -1;
}

/* Digit k of the number's digits (integer then fraction), 0 past them. */
static int digit_at(const char *s, const struct num *n, long k)
{
	long ni = (long)(n->ie - n->ib), nf = (long)(n->fe - n->fb);
	if (k < 0 || k >= ni + nf)
		return 0;
	return k < ni ? s[n->ib + (size_t)k] - '0' : s[n->fb + (size_t)(k - ni)] - '0';
}

/* Plain digits s[*i..len) while they last, at most max of them, into *v
 * (which they extend); returns how many. */
static size_t digits(const char *s, size_t len, size_t *i, size_t max, int64_t *v)
{
	size_t k = 0;
	while (*i < len && k < max && is_digit(s[*i])) {
		*v = *v * 10 + (s[*i] - '0');
		(*i)++;
		k++;
	}
	return k;
}

/* What a trace's ts and dur nearly always are, "1419247333430.849" or
 * "12": up to 15 integer digits, no sign, no exponent. The same value as
 * the general rule below: the first three fraction digits, rounded half
 * away from zero by the fourth. Returns -1 for anything else. */
static int us_to_ns_plain(const char *s, size_t len, int64_t *ns)
{
	size_t i = 0, f;
	int64_t v = 0, frac = 0;

	if (digits(s, len, &i, 15, &v) == 0 || (i < len && s[i] != '.'))
		return -1;
	if (i < len) {
		size_t dot = ++i;
		f = digits(s, len, &i, 3, &frac);
		if (f == 0)
			return -1;
		for (; f < 3; f++)
			frac *= 10;
		if (i < len && s[i] >= '5' && s[i] <= '9')
			frac++;
		while (i < len && is_digit(s[i]))
			i++;
		if (i < len || i == dot)
			return -1;
	}
	*ns = v * 1000 + frac;
	return 0;
}

int opmfu_kineto_us_to_ns(const char *s, size_t len, int64_t *ns)
{
	struct num n;
	long point, k, nd;
	int64_t v = 0;

	if (s && !us_to_ns_plain(s, len, ns))
		return 0;
	if (!s || scan_number(s, len, &n))
		return -1;
	nd = (long)(n.ie - n.ib) + (long)(n.fe - n.fb);
	/* the decimal point of the nanoseconds, counted in digits from the first */
	point = (long)(n.ie - n.ib) + n.exp + 3;
	for (k = 0; k < point; k++) {
		int d = digit_at(s, &n, k);
		if (k >= nd && v == 0)
			break; /* zeros all the way: 0 */
		if (push_digit(&v, d))
			return -1;
	}
	/* round half away from zero; v is non-negative here, so test before adding */
	if (point >= 0 && digit_at(s, &n, point) >= 5) {
		if (v == INT64_MAX)
			return -1;
		v++;
	}
	*ns = n.neg ? -v : v;
	return 0;
}

int opmfu_kineto_int(const char *s, size_t len, int64_t *out)
{
	struct num n;
	size_t i;
	int64_t v = 0;

	/* up to 18 digits cannot overflow: the common case without scan_number */
	if (s && len > 0 && len <= 18) {
		i = 0;
		if (digits(s, len, &i, 18, &v) == len) {
			*out = v;
			return 0;
		}
		v = 0;
	}
	if (!s || scan_number(s, len, &n) || n.fe != n.fb || n.exp != 0 || n.ie != len)
		return -1;
	for (i = n.ib; i < n.ie; i++)
		if (push_digit(&v, s[i] - '0'))
			return -1;
	*out = n.neg ? -v : v;
	return 0;
}

/* ---- dtypes ---- */

#define SKIP (-3)   /* an index or mask tensor: never the op's data type */
#define NOT_T (-4)  /* no tensor at all: passed over like a blank entry */

/* torch's dtype names (caffe2 TypeMeta, as the profiler writes them) and the
 * kinds of non-tensor arguments. Case matters: "bool" is a tensor, "Bool" a
 * Python bool. */
static const struct dt_name {
	const char *name;
	int8_t ref, prec;
} dt_names[] = {
	{ "float", OPMFU_DT_FP16, OPMFU_PREC_FP32 },
	{ "c10::Half", OPMFU_DT_FP16, OPMFU_PREC_FP16 },
	{ "c10::BFloat16", OPMFU_DT_FP16, OPMFU_PREC_FP16 },
	{ "signed char", OPMFU_DT_INT8, OPMFU_PREC_INT8 },
	{ "c10::qint8", OPMFU_DT_INT8, OPMFU_PREC_INT8 },
	{ "c10::quint8", OPMFU_DT_INT8, OPMFU_PREC_INT8 },
	{ "c10::Float8_e4m3fn", OPMFU_DT_FP8, OPMFU_PREC_FP8 },
	{ "c10::Float8_e5m2", OPMFU_DT_FP8, OPMFU_PREC_FP8 },
	{ "c10::Float8_e4m3fnuz", OPMFU_DT_FP8, OPMFU_PREC_FP8 },
	{ "c10::Float8_e5m2fnuz", OPMFU_DT_FP8, OPMFU_PREC_FP8 },
	/* SPEC 8 only */
	{ "c10::Float4_e2m1fn_x2", OPMFU_DT_UNSUPPORTED, OPMFU_PREC_FP4 },
	/* indexes, masks, block scales */
	{ "bool", SKIP, SKIP },
	{ "unsigned char", SKIP, SKIP },
	{ "short", SKIP, SKIP },
	{ "short int", SKIP, SKIP },
	{ "int", SKIP, SKIP },
	{ "long", SKIP, SKIP },
	{ "long int", SKIP, SKIP },
	{ "long long", SKIP, SKIP },
	{ "long long int", SKIP, SKIP },
	{ "unsigned short", SKIP, SKIP },
	{ "unsigned int", SKIP, SKIP },
	{ "unsigned long", SKIP, SKIP },
	{ "unsigned long int", SKIP, SKIP },
	{ "c10::qint32", SKIP, SKIP },
	{ "c10::Float8_e8m0fnu", SKIP, SKIP },
	/* arguments that are no tensor */
	{ "Scalar", NOT_T, NOT_T },
	{ "ScalarList", NOT_T, NOT_T },
	{ "TensorList", NOT_T, NOT_T },
	{ "GenericList", NOT_T, NOT_T },
	{ "None", NOT_T, NOT_T },
	{ "Bool", NOT_T, NOT_T },
	{ "Int", NOT_T, NOT_T },
	{ "Double", NOT_T, NOT_T },
	{ "String", NOT_T, NOT_T },
	{ "Device", NOT_T, NOT_T },
	{ "Layout", NOT_T, NOT_T },
	{ "MemoryFormat", NOT_T, NOT_T },
	{ "ScalarType", NOT_T, NOT_T },
	{ "Generator", NOT_T, NOT_T },
	{ "Tuple", NOT_T, NOT_T },
	{ "Stream", NOT_T, NOT_T },
};

/* The class of entry s[0..n) under a rule (prec or reference); -1 unknown. */
static int entry_class(const char *s, size_t n, int prec)
{
	size_t k;
	for (k = 0; k < sizeof(dt_names) / sizeof(dt_names[0]); k++)
		if (strlen(dt_names[k].name) == n && !memcmp(dt_names[k].name, s, n))
			return prec ? dt_names[k].prec : dt_names[k].ref;
	return -1; /* the unsupported value of both enums */
}

/* As read/ascend's rule: the first entry that is not skipped decides; only
 * skipped entries: none (-2); no tensor entry: empty_class. *bad gets the
 * entry at fault. */
static int list_class(const char *list, size_t len, int prec, int empty_class, const char **bad, size_t *bad_len)
{
	size_t i = 0;
	int seen = 0;

	if (!list)
		return empty_class;
	while (i <= len) {
		size_t s = i, e;
		int cls;
		while (i < len && list[i] != ';')
			i++;
		e = i++;
		if (s == e)
			continue;
		cls = entry_class(list + s, e - s, prec);
		if (cls == NOT_T)
			continue;
		seen = 1;
		if (cls == SKIP)
			continue;
		*bad = list + s;
		*bad_len = e - s;
		return cls;
	}
	return seen ? -2 : empty_class; /* -2: the none value of both enums */
}

void opmfu_kineto_dtype(const char *list, size_t len, uint32_t text, struct opmfu_dtype *out)
{
	const char *bad = NULL, *unused = NULL;
	size_t bad_len = 0, unused_len = 0;
	int ref = list_class(list, len, 0, OPMFU_DT_FP16, &bad, &bad_len);

	memset(out, 0, sizeof(*out));
	out->text = text;
	out->ref = (int8_t)ref;
	out->prec = (int8_t)list_class(list, len, 1, OPMFU_PREC_NONE, &unused, &unused_len);
	/* the summary's example: the entry at fault, or the whole list when it
	 * holds only index types (as read/ascend does) */
	if (ref == OPMFU_DT_UNSUPPORTED && bad)
		snprintf(out->example, sizeof(out->example), "%.*s", (int)(bad_len < 40 ? bad_len : 40), bad);
	else if (ref == OPMFU_DT_NONE && list)
		snprintf(out->example, sizeof(out->example), "%.*s", (int)(len < 40 ? len : 40), list);
}

/* ---- event names ---- */

int opmfu_kineto_step(const char *name, size_t len, int64_t *n)
{
	static const char pre[] = "ProfilerStep#";
	size_t p = sizeof(pre) - 1;
	if (len <= p || len > p + 18 || memcmp(name, pre, p) != 0)
		return 0;
	return opmfu_kineto_int(name + p, len - p, n) == 0 && name[p] != '-';
}

int opmfu_kineto_is_module(const char *name, size_t len)
{
	return len > OPMFU_KINETO_MODULE_PREFIX_LEN &&
	       !memcmp(name, OPMFU_KINETO_MODULE_PREFIX, OPMFU_KINETO_MODULE_PREFIX_LEN);
}

static int lower(char c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* s[0..len) starts with the lower-case word w, any case */
static int starts_nocase(const char *s, size_t len, const char *w)
{
	size_t i, n = strlen(w);
	if (len < n)
		return 0;
	for (i = 0; i < n; i++)
		if (lower(s[i]) != w[i])
			return 0;
	return 1;
}

/*
 * The communication kernels by name (docs/gpu-traces.md, Communication):
 * the one list of them. Collectives' kernels are not compute: counting
 * DeepEP's dispatch and combine or symmetric-memory all-reduce as compute
 * gives a MoE or TP trace compute time it does not have. kind: what every
 * kernel of the family does, when its name says (in `words`), else 0.
 */
static const struct comm_family {
	const char *prefix;  /* lower case, after an optional "void " */
	const char *words[2];
	int kind;
} comm_families[] = {
	{ "nccl", { NULL, NULL }, 0 },                    /* ncclDevKernel_*, ncclKernel_* */
	{ "rccl", { NULL, NULL }, 0 },                    /* RCCL's own names */
	{ "deep_ep::", { "dispatch", "combine" }, OPMFU_COLL_ALLTOALL }, /* DeepEP intranode, internode, _ll */
	{ "c10d::symmetric_memory::", { NULL, NULL }, 0 }, /* one_shot_/two_shot_/multimem_all_reduce_kernel */
	{ "nvshmem", { NULL, NULL }, 0 },                 /* NVSHMEM's own kernels */
	{ "mscclpp", { NULL, NULL }, 0 },                 /* MSCCL++ */
};

static const struct comm_family *comm_family(const char *name, size_t len)
{
	size_t i;
	if (len >= 5 && !memcmp(name, "void ", 5)) {
		name += 5;
		len -= 5;
	}
	for (i = 0; i < sizeof(comm_families) / sizeof(comm_families[0]); i++)
		if (starts_nocase(name, len, comm_families[i].prefix))
			return &comm_families[i];
	return NULL;
}

int opmfu_kineto_is_comm(const char *name, size_t len)
{
	return comm_family(name, len) != NULL;
}

/* s[0..n) holds the word w (exact case) */
static int holds(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w), i;
	for (i = 0; i + k <= n; i++)
		if (!memcmp(s + i, w, k))
			return 1;
	return 0;
}

int opmfu_kineto_comm_kind(const char *name, size_t len)
{
	const struct comm_family *f = comm_family(name, len);
	size_t i;
	if (!f || !f->kind)
		return 0;
	for (i = 0; i < 2; i++)
		if (f->words[i] && holds(name, len, f->words[i]))
			return f->kind;
	return 0;
}

/* ---- file names ---- */

static int ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && !memcmp(s + n - k, suffix, k);
}

int opmfu_kineto_trace_name(const char *base)
{
	size_t n = strlen(base);
	return (n > 5 && ends_with(base, n, ".json")) || (n > 8 && ends_with(base, n, ".json.gz"));
}

static int is_letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

int opmfu_kineto_name_rank(const char *base)
{
	size_t n = strlen(base), i;
	int rank = -1;

	for (i = 0; i + 4 < n; i++) {
		size_t d, e;
		int v = 0;
		if ((i > 0 && is_letter(base[i - 1])) || !starts_nocase(base + i, n - i, "rank"))
			continue;
		d = i + 4;
		if (base[d] == '_' || base[d] == '-' || base[d] == '.')
			d++;
		for (e = d; e < n && is_digit(base[e]); e++)
			;
		if (e == d || e - d > 9)
			continue;
		for (; d < e; d++)
			v = v * 10 + (base[d] - '0');
		rank = v;
	}
	return rank;
}

size_t opmfu_kineto_name_stamp(const char *base, size_t *off)
{
	size_t n = strlen(base), e, b;

	if (ends_with(base, n, ".gz"))
		n -= 3;
	if (!ends_with(base, n, ".json"))
		return 0;
	n -= 5;
	if (ends_with(base, n, ".pt.trace"))
		n -= 9;
	e = n;
	for (b = e; b > 0 && is_digit(base[b - 1]); b--)
		;
	/* "{worker}.{ms}": digits after a '.', with a worker name before */
	if (e - b < 10 || b < 2 || base[b - 1] != '.')
		return 0;
	*off = b;
	return e - b;
}
