/*
 * ascend_parse.c - FLOPs message, dtype list and shape string parsers of
 * Ascend profiler databases.
 */
#include "read/ascend/ascend_parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

/* ---- FLOPs messages ---- */

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Length of a decimal float as Python's str() prints it: d+(.d+)?([eE][+-]?d+)? */
static size_t scan_decimal(const char *s, size_t len, int *is_integer)
{
	size_t i = 0;
	while (i < len && is_digit(s[i]))
		i++;
	if (i == 0)
		return 0;
	*is_integer = 1;
	if (i + 1 < len && s[i] == '.' && is_digit(s[i + 1])) {
		*is_integer = 0;
		i++;
		while (i < len && is_digit(s[i]))
			i++;
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		size_t j = i + 1;
		if (j < len && (s[j] == '+' || s[j] == '-'))
			j++;
		if (j < len && is_digit(s[j])) {
			*is_integer = 0;
			while (j < len && is_digit(s[j]))
				j++;
			i = j;
		}
	}
	return i;
}

int opmfu_ascend_flops_msg(const char *msg, size_t len, int64_t *flops, size_t *name_off, enum opmfu_drop *why)
{
	int is_integer = 0;
	size_t n = scan_decimal(msg, len, &is_integer), i;

	*why = OPMFU_DROP_FORMAT;
	if (n == 0 || n >= len || msg[n] != '-' || n + 1 == len)
		return -1;
	/* the name is Python's ".+": any characters but a line break */
	for (i = n + 1; i < len; i++)
		if (msg[i] == '\n' || msg[i] == '\0')
			return -1;
	if (is_integer) {
		uint64_t v = 0;
		for (i = 0; i < n; i++) {
			unsigned d = (unsigned)(msg[i] - '0');
			if (v > (uint64_t)(INT64_MAX - d) / 10) {
				*why = OPMFU_DROP_OVERFLOW;
				return -1;
			}
			v = v * 10 + d;
		}
		*flops = (int64_t)v;
	} else {
		char buf[400];
		double d;
		if (n >= sizeof(buf)) {
			*why = OPMFU_DROP_OVERFLOW;
			return -1;
		}
		memcpy(buf, msg, n);
		buf[n] = '\0';
		errno = 0;
		d = strtod(buf, NULL);
		d = rint(d);
		/* 2^63 is the first double that does not fit */
		if (!isfinite(d) || d >= 9223372036854775808.0) {
			*why = OPMFU_DROP_OVERFLOW;
			return -1;
		}
		*flops = (int64_t)d;
	}
	if (*flops == 0) {
		*why = OPMFU_DROP_ZERO;
		return -1;
	}
	*name_off = n + 1;
	return 0;
}

/* ---- dtype lists ---- */

/* Marks an index or mask type: never the matmul's data type, so skipped. */
#define SKIP (-3)

/* A dtype name and its class under each rule. Names the reference does not
 * know have ref OPMFU_DT_UNSUPPORTED: its rule stops at them. */
static const struct dt_name {
	const char *name;
	int8_t ref, prec;
} dt_names[] = {
	{ "FLOAT", OPMFU_DT_FP16, OPMFU_PREC_FP32 },
	{ "FLOAT32", OPMFU_DT_FP16, OPMFU_PREC_FP32 },
	{ "DT_FLOAT", OPMFU_DT_FP16, OPMFU_PREC_FP32 },
	{ "FLOAT16", OPMFU_DT_FP16, OPMFU_PREC_FP16 },
	{ "DT_FLOAT16", OPMFU_DT_FP16, OPMFU_PREC_FP16 },
	{ "BF16", OPMFU_DT_FP16, OPMFU_PREC_FP16 },
	{ "DT_BF16", OPMFU_DT_FP16, OPMFU_PREC_FP16 },
	{ "INT8", OPMFU_DT_INT8, OPMFU_PREC_INT8 },
	{ "DT_INT8", OPMFU_DT_INT8, OPMFU_PREC_INT8 },
	{ "DT_HIFLOAT8", OPMFU_DT_FP8, OPMFU_PREC_FP8 },
	{ "DT_FLOAT8_E5M2", OPMFU_DT_FP8, OPMFU_PREC_FP8 },
	{ "DT_FLOAT8_E4M3FN", OPMFU_DT_FP8, OPMFU_PREC_FP8 },
	{ "HIFLOAT8", OPMFU_DT_FP8, OPMFU_PREC_FP8 },
	{ "FLOAT8_E5M2", OPMFU_DT_FP8, OPMFU_PREC_FP8 },
	{ "FLOAT8_E4M3FN", OPMFU_DT_FP8, OPMFU_PREC_FP8 },
	/* SPEC 8 only */
	{ "DT_FLOAT32", OPMFU_DT_UNSUPPORTED, OPMFU_PREC_FP32 },
	{ "BFLOAT16", OPMFU_DT_UNSUPPORTED, OPMFU_PREC_FP16 },
	{ "DT_BFLOAT16", OPMFU_DT_UNSUPPORTED, OPMFU_PREC_FP16 },
	{ "HFLOAT32", OPMFU_DT_UNSUPPORTED, OPMFU_PREC_TF32 },
	{ "DT_HFLOAT32", OPMFU_DT_UNSUPPORTED, OPMFU_PREC_TF32 },
	{ "HIFLOAT32", OPMFU_DT_UNSUPPORTED, OPMFU_PREC_TF32 },
	{ "DT_HIFLOAT32", OPMFU_DT_UNSUPPORTED, OPMFU_PREC_TF32 },
	{ "FLOAT4_E2M1", OPMFU_DT_UNSUPPORTED, OPMFU_PREC_FP4 },
	{ "FLOAT4_E1M2", OPMFU_DT_UNSUPPORTED, OPMFU_PREC_FP4 },
	{ "DT_FLOAT4_E2M1", OPMFU_DT_UNSUPPORTED, OPMFU_PREC_FP4 },
	{ "DT_FLOAT4_E1M2", OPMFU_DT_UNSUPPORTED, OPMFU_PREC_FP4 },
	/* index and mask tensors never carry the matmul's data type */
	{ "INT16", SKIP, SKIP },
	{ "INT32", SKIP, SKIP },
	{ "INT64", SKIP, SKIP },
	{ "UINT16", SKIP, SKIP },
	{ "UINT32", SKIP, SKIP },
	{ "UINT64", SKIP, SKIP },
	{ "BOOL", SKIP, SKIP },
	{ "DT_INT16", SKIP, SKIP },
	{ "DT_INT32", SKIP, SKIP },
	{ "DT_INT64", SKIP, SKIP },
	{ "DT_UINT16", SKIP, SKIP },
	{ "DT_UINT32", SKIP, SKIP },
	{ "DT_UINT64", SKIP, SKIP },
	{ "DT_BOOL", SKIP, SKIP },
};

/*
 * The class of the first entry of the list that the rule (prec: SPEC 8's,
 * else the reference's) does not skip; none_class when every entry is
 * skipped, empty_class when there is no entry. An entry of no class gives
 * unsupported, and is copied to bad (trimmed, upper-cased, truncated).
 */
static int dtype_walk(const char *dtypes, size_t len, int prec, int empty_class, char *bad, size_t badsz)
{
	size_t i = 0, k;
	int seen = 0;

	if (!dtypes)
		return empty_class;
	while (i <= len) {
		char name[48];
		size_t s = i, e, n = 0;
		int cls = -1; /* the unsupported value of both enums */
		while (i < len && dtypes[i] != ';')
			i++;
		e = i++;
		while (s < e && isspace((unsigned char)dtypes[s]))
			s++;
		while (e > s && isspace((unsigned char)dtypes[e - 1]))
			e--;
		if (s == e)
			continue;
		seen = 1;
		for (k = s; k < e && n + 1 < sizeof(name); k++)
			name[n++] = (char)toupper((unsigned char)dtypes[k]);
		name[n] = '\0';
		/* no known name is sizeof(name) long */
		for (k = 0; e - s < sizeof(name) && k < sizeof(dt_names) / sizeof(dt_names[0]); k++)
			if (strcmp(name, dt_names[k].name) == 0) {
				cls = prec ? dt_names[k].prec : dt_names[k].ref;
				break;
			}
		if (cls == SKIP)
			continue;
		if (cls == -1 && bad && badsz) {
			size_t m = n < badsz - 1 ? n : badsz - 1;
			memcpy(bad, name, m);
			bad[m] = '\0';
		}
		return cls;
	}
	return seen ? -2 : empty_class; /* -2: the none value of both enums */
}

enum opmfu_dtclass opmfu_ascend_dtype_ref(const char *dtypes, size_t len, char *bad, size_t badsz)
{
	return (enum opmfu_dtclass)dtype_walk(dtypes, len, 0, OPMFU_DT_FP16, bad, badsz);
}

enum opmfu_prec opmfu_ascend_dtype_prec(const char *dtypes, size_t len)
{
	return (enum opmfu_prec)dtype_walk(dtypes, len, 1, OPMFU_PREC_NONE, NULL, 0);
}

void opmfu_ascend_dtype(const struct opmfu_strtab *strs, uint32_t sid, struct opmfu_dtype *out)
{
	const char *dt = opmfu_strtab_str(strs, sid);
	size_t len = opmfu_strtab_len(strs, sid);
	char bad[48];
	enum opmfu_dtclass ref = opmfu_ascend_dtype_ref(dt, len, bad, sizeof(bad));

	memset(out, 0, sizeof(*out));
	out->text = sid;
	out->ref = (int8_t)ref;
	out->prec = (int8_t)opmfu_ascend_dtype_prec(dt, len);
	/* the summary's example: the entry at fault, or the whole list when
	 * it holds only index types */
	if (ref == OPMFU_DT_UNSUPPORTED)
		snprintf(out->example, sizeof(out->example), "%.40s", bad);
	else if (ref == OPMFU_DT_NONE)
		snprintf(out->example, sizeof(out->example), "%.40s", dt);
}

/* ---- shapes ---- */

void opmfu_ascend_shape_strip(const char *s, size_t len, size_t *start, size_t *out_len)
{
	size_t a = 0, b = len;
	while (a < b && (s[a] == '"' || s[a] == '\''))
		a++;
	while (b > a && (s[b - 1] == '"' || s[b - 1] == '\''))
		b--;
	*start = a;
	*out_len = b - a;
}

int opmfu_ascend_shape_is_na(const char *s, size_t len)
{
	size_t a, n;
	opmfu_ascend_shape_strip(s, len, &a, &n);
	return n == 3 && memcmp(s + a, "N/A", 3) == 0;
}


int opmfu_ascend_shape_map(struct opmfu_strtab *strs, uint32_t *map, size_t *n_map, uint32_t *unknown)
{
	uint32_t na = opmfu_strtab_intern(strs, "N/A", 3);
	size_t n = strs->n, sid, cap = 0;
	char *tmp = NULL;
	int rc = -1;

	*n_map = 0;
	if (!na)
		return -1;
	for (sid = 0; sid < n; sid++) {
		const char *v = opmfu_strtab_str(strs, (uint32_t)sid);
		size_t len = opmfu_strtab_len(strs, (uint32_t)sid), a = 0, m = len;
		if (v)
			opmfu_ascend_shape_strip(v, len, &a, &m);
		map[sid] = (uint32_t)sid;
		if (m == 3 && memcmp(v + a, "N/A", 3) == 0) {
			map[sid] = na;
		} else if (m != len) {
			/* interning may move the pool under v: copy first */
			if (opmfu_grow((void **)&tmp, &cap, m + 1, 1))
				goto out;
			memcpy(tmp, v + a, m);
			if (!(map[sid] = opmfu_strtab_intern(strs, tmp, m)))
				goto out;
		}
	}
	*n_map = n;
	*unknown = na;
	rc = 0;
out:
	opmfu_free(tmp);
	return rc;
}

long opmfu_ascend_format_norm(const char *s, size_t len, char *out)
{
	size_t i = 0, o = 0;
	int changed = 0;

	while (i <= len) {
		size_t e = i, cut;
		while (e < len && s[e] != ';')
			e++;
		if (e - i > 7 && !memcmp(s + i, "FORMAT_", 7)) {
			i += 7;
			changed = 1;
		}
		for (cut = i; cut < e && s[cut] != ':'; cut++)
			;
		changed |= cut != e;
		memcpy(out + o, s + i, cut - i);
		o += cut - i;
		if (e < len)
			out[o++] = ';';
		i = e + 1;
	}
	return changed ? (long)o : -1;
}

int opmfu_ascend_format_map(struct opmfu_strtab *strs, uint32_t *map, size_t n)
{
	size_t sid, cap = 0;
	char *tmp = NULL;
	int rc = -1;

	for (sid = 0; sid < n; sid++) {
		const char *v = opmfu_strtab_str(strs, (uint32_t)sid);
		size_t len = opmfu_strtab_len(strs, (uint32_t)sid);
		long m;
		map[sid] = (uint32_t)sid;
		/* only strings that can change: most are kernel names, not formats */
		if (!v || (!memchr(v, ':', len) && !strstr(v, "FORMAT_")))
			continue;
		/* interning may move the pool under v: normalise into a copy */
		if (opmfu_grow((void **)&tmp, &cap, len + 1, 1))
			goto out;
		if ((m = opmfu_ascend_format_norm(v, len, tmp)) >= 0 &&
		    !(map[sid] = opmfu_strtab_intern(strs, tmp, (size_t)m)))
			goto out;
	}
	rc = 0;
out:
	opmfu_free(tmp);
	return rc;
}
