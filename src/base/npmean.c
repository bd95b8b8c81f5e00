/*
 * npmean.c - numpy's mean: the add reduction's pairwise summation over
 * buffers, then a division.
 */
#include "base/npmean.h"

/* numpy's pairwise summation: a plain loop under 8 values, 8 accumulators up
 * to 128, halves (at a multiple of 8) above. */
static double pairwise_sum(const double *a, size_t n)
{
	if (n < 8) {
		double res = 0.;
		size_t i;
		for (i = 0; i < n; i++)
			res += a[i];
		return res;
	} else if (n <= 128) {
		double r[8], res;
		size_t i, j;
		for (j = 0; j < 8; j++)
			r[j] = a[j];
		for (i = 8; i < n - n % 8; i += 8)
			for (j = 0; j < 8; j++)
				r[j] += a[i + j];
		res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
		for (; i < n; i++)
			res += a[i];
		return res;
	} else {
		size_t n2 = n / 2;
		n2 -= n2 % 8;
		return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
	}
}

/* The add reduction starts from its identity 0 and sums buffers of 8192
 * values pairwise. */
double opmfu_np_mean(const double *a, size_t n)
{
	double s = 0.;
	size_t i;
	for (i = 0; i < n; i += 8192)
		s += pairwise_sum(a + i, n - i < 8192 ? n - i : 8192);
	return s / (double)n;
}
