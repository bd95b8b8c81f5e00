/*
 * coll.c - collective kinds, bus factors and element sizes (coll.h).
 */
#include "trace/coll.h"

#include <string.h>

#include "base/fold.h"
#include "base/mem.h"
#include "base/sbuf.h"

const char *opmfu_coll_kind_name(int kind)
{
	static const char *const names[OPMFU_COLL__N] = { NULL,	       "allreduce", "allgather", "reducescatter", "alltoall",
							  "broadcast", "reduce",    "send",	 "recv",	  "barrier" };
	return kind > 0 && kind < OPMFU_COLL__N ? names[kind] : NULL;
}

void opmfu_coll_key(struct sbuf *sb, const char *kind, size_t kn, const char *group, size_t gn)
{
	if (kind)
		sbuf_add(sb, kind, kn);
	if (group) {
		sbuf_add(sb, " [group ", 8);
		sbuf_add(sb, group, gn);
		sbuf_add(sb, "]", 1);
	}
}

int opmfu_coll_kind_of(const char *s, size_t n)
{
	/* longer words first: "reducescatter" holds "reduce", "allreduce" holds "reduce" */
	static const struct {
		const char *word;
		int kind;
	} words[] = {
		{ "sendrecv", OPMFU_COLL_OTHER },	 { "reducescatter", OPMFU_COLL_REDUCESCATTER },
		{ "allreduce", OPMFU_COLL_ALLREDUCE },	 { "allgather", OPMFU_COLL_ALLGATHER },
		{ "alltoall", OPMFU_COLL_ALLTOALL },	 { "broadcast", OPMFU_COLL_BROADCAST },
		{ "barrier", OPMFU_COLL_BARRIER },	 { "reduce", OPMFU_COLL_REDUCE },
		{ "send", OPMFU_COLL_SEND },		 { "recv", OPMFU_COLL_RECV },
		{ "receive", OPMFU_COLL_RECV },
	};
	char buf[256];
	size_t m = opmfu_fold_name(s, n, buf, sizeof(buf)), k;
	for (k = 0; k < sizeof(words) / sizeof(words[0]); k++)
		if (m && strstr(buf, words[k].word))
			return words[k].kind;
	return OPMFU_COLL_OTHER;
}

double opmfu_coll_bus_factor(int kind, int64_t n)
{
	if (n < 1)
		return 0;
	switch (kind) {
	case OPMFU_COLL_ALLREDUCE: return 2.0 * (double)(n - 1) / (double)n;
	case OPMFU_COLL_ALLGATHER:
	case OPMFU_COLL_REDUCESCATTER:
	case OPMFU_COLL_ALLTOALL: return (double)(n - 1) / (double)n;
	case OPMFU_COLL_BROADCAST:
	case OPMFU_COLL_REDUCE:
	case OPMFU_COLL_SEND:
	case OPMFU_COLL_RECV: return 1;
	default: return 0;
	}
}

int opmfu_coll_dtype_size(const char *s, size_t n)
{
	static const struct {
		const char *name;
		int size;
	} sizes[] = {
		/* PyTorch scalar types, their torch.* names, NCCL's and HCCL's (ENUM_HCCL_DATA_TYPE) */
		{ "float", 4 },	   { "float32", 4 },  { "fp32", 4 },	{ "f32", 4 },	  { "double", 8 },   { "float64", 8 },
		{ "fp64", 8 },	   { "f64", 8 },      { "half", 2 },	{ "float16", 2 }, { "fp16", 2 },	    { "f16", 2 },
		{ "bfloat16", 2 }, { "bf16", 2 },     { "int8", 1 },	{ "char", 1 },	  { "uint8", 1 },    { "byte", 1 },
		{ "bool", 1 },	   { "int16", 2 },    { "short", 2 },	{ "uint16", 2 },  { "int32", 4 },    { "int", 4 },
		{ "uint32", 4 },   { "int64", 8 },    { "long", 8 },	{ "uint64", 8 },  { "int128", 16 },
		{ "float8e4m3fn", 1 }, { "float8e5m2", 1 }, { "fp8e4m3", 1 }, { "fp8e5m2", 1 }, { "hif8", 1 },
		/* the C type names PyTorch's "Input type" prints (caffe2 TypeMeta): int64 "long int" (DLRM),
		 * uint8 "unsigned char", int8 "signed char", int16 "short int" */
		{ "longint", 8 }, { "unsignedchar", 1 }, { "signedchar", 1 }, { "shortint", 2 },
	};
	char buf[64];
	const char *p;
	size_t m, k;
	if (n >= 6 && !strncmp(s, "c10::", 5))
		s += 5, n -= 5;
	else if (n >= 7 && !strncmp(s, "torch.", 6))
		s += 6, n -= 6;
	m = opmfu_fold_name(s, n, buf, sizeof(buf));
	p = m > 4 && !strncmp(buf, "nccl", 4) ? buf + 4 : buf;
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
		if (!strcmp(p, sizes[k].name))
			return sizes[k].size;
	return 0;
}

int opmfu_colls_add(struct opmfu_colls *cs, const struct opmfu_coll *c)
{
	if (OPMFU_GROW(cs->v, cs->cap, cs->n + 1))
		return -1;
	cs->v[cs->n++] = *c;
	return 0;
}

void opmfu_colls_release(struct opmfu_colls *cs)
{
	opmfu_free(cs->v);
	memset(cs, 0, sizeof(*cs));
}

struct opmfu_coll opmfu_coll_blank(int64_t start, int64_t end, uint32_t name, int kind)
{
	struct opmfu_coll c;
	memset(&c, 0, sizeof(c));
	c.start = start;
	c.end = end;
	c.bytes = c.wait_ns = c.transfer_ns = c.link_bytes = c.link_ns = OPMFU_COLL_UNKNOWN;
	c.name = name;
	c.kind = (uint8_t)kind;
	return c;
}
