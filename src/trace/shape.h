/*
 * shape.h - normalised shape lists, the form every reader gives shapes in:
 * tensors separated by ';', a tensor's dims by ',', dims as decimal digits,
 * an empty tensor is a scalar: "4096,12288;4608,12288", "64,8;;" (three
 * tensors, the last two scalars). As with Python's split, "" is one scalar.
 * No quotes, no spaces; a shape the trace does not know is not a string of
 * this form but the trace's shape_unknown sid (model/trace.h).
 */
#ifndef OPMFU_SHAPE_H
#define OPMFU_SHAPE_H

#include <stddef.h>
#include <stdint.h>

/* A parsed shape list, in arrays the caller provides. */
struct opmfu_shape {
	int64_t *dims;   /* every tensor's dims, tensor after tensor (cap_dims of them) */
	uint32_t *end;   /* end[i]: one past tensor i's last dim in dims (cap_tensors of them) */
	size_t cap_dims, cap_tensors;
	size_t n_dims, n_tensors; /* set by opmfu_shape_parse */
};

/*
 * Parses s[0..len) into sh. Returns 0; -1 when s is not a shape list (a
 * dim that is empty, not plain digits or past INT64_MAX, as in "4,,4",
 * "4,", "-1", " 4"); -2 when it does not fit in the caller's arrays:
 * n_dims and n_tensors then say how many it needs, and nothing past the
 * capacities is written. Pure: no allocation, safe on any bytes.
 */
int opmfu_shape_parse(const char *s, size_t len, struct opmfu_shape *sh);

/* Tensor i's rank and dims (i < sh->n_tensors, after a parse that returned 0). */
static inline size_t opmfu_shape_rank(const struct opmfu_shape *sh, size_t i)
{
	return sh->end[i] - (i ? sh->end[i - 1] : 0);
}
static inline const int64_t *opmfu_shape_dims(const struct opmfu_shape *sh, size_t i)
{
	return sh->dims + (i ? sh->end[i - 1] : 0);
}

#endif
