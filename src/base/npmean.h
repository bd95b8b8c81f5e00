/*
 * npmean.h - numpy's ndarray.mean() of float64 values, bit for bit (SPEC 3.5
 * averages MFU values as the reference does).
 */
#ifndef OPMFU_NPMEAN_H
#define OPMFU_NPMEAN_H

#include <stddef.h>

/* ndarray.mean() of a[0, n), n > 0. */
double opmfu_np_mean(const double *a, size_t n);

#endif
