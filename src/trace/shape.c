/*
 * shape.c - the shape list parser: one pass, counting on past the caller's
 * capacities so that a retry knows how much room to give.
 */
#include "trace/shape.h"

int opmfu_shape_parse(const char *s, size_t len, struct opmfu_shape *sh)
{
	size_t i = 0, nd = 0, nt = 0;
	int rc = 0;

	for (;;) {
		/* one tensor: empty (a scalar) or dims separated by ',' */
		if (i < len && s[i] != ';') {
			for (;;) {
				uint64_t v = 0;
				size_t d0 = i;
				for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
					unsigned dig = (unsigned)(s[i] - '0');
					if (v > ((uint64_t)INT64_MAX - dig) / 10)
						return -1;
					v = v * 10 + dig;
				}
				if (i == d0)
					return -1;
				if (nd < sh->cap_dims)
					sh->dims[nd] = (int64_t)v;
				else
					rc = -2;
				nd++;
				if (i == len || s[i] == ';')
					break;
				if (s[i] != ',')
					return -1;
				i++;
			}
		}
		if (nt < sh->cap_tensors && nd <= UINT32_MAX)
			sh->end[nt] = (uint32_t)nd;
		else
			rc = -2;
		nt++;
		sh->n_dims = nd;
		sh->n_tensors = nt;
		if (i == len)
			return rc;
		i++; /* the ';' */
	}
}
