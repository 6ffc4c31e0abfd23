/* reduce.c: row-mean template (global average pooling), compiled at run time with:
 *   UNROLL  independent partial sums per row (breaks the add dependency chain; changes
 *           the summation order, which the correctness bound allows) */
#include <stdint.h>

#include "kernel.h"

#if !defined(UNROLL) || UNROLL < 1 || UNROLL > 16
#error "reduce template needs 1 <= UNROLL <= 16"
#endif

void harness_reduce(int64_t rows, int64_t cols, const float *x, float *y)
{
	for (int64_t i = 0; i < rows; i++) {
		const float *row = x + i * cols;
		float acc[UNROLL];
		for (int u = 0; u < UNROLL; u++)
			acc[u] = 0.0f;
		int64_t j = 0;
		for (; j + UNROLL <= cols; j += UNROLL)
			for (int u = 0; u < UNROLL; u++)
				acc[u] += row[j + u];
		float s = 0.0f;
		for (int u = 0; u < UNROLL; u++)
			s += acc[u];
		for (; j < cols; j++)
			s += row[j];
		y[i] = s / (float)cols;
	}
}
