/* bias_relu.c: fused per-channel bias and ReLU template, y = max(x + bias[c], 0), compiled
 * at run time with:
 *   UNROLL  elements per iteration of the inner loop
 * y may equal x (in place), so no restrict here. */
#include <stdint.h>

#include "kernel.h"

#if !defined(UNROLL) || UNROLL < 1 || UNROLL > 16
#error "bias_relu template needs 1 <= UNROLL <= 16"
#endif

void harness_bias_relu(int64_t n, int64_t c, int64_t hw, const float *x, const float *bias,
		       float *y)
{
	for (int64_t p = 0; p < n * c; p++) {
		const float b = bias[p % c];
		const float *xp = x + p * hw;
		float *yp = y + p * hw;
		int64_t i = 0;
		for (; i + UNROLL <= hw; i += UNROLL) {
			for (int u = 0; u < UNROLL; u++) {
				const float v = xp[i + u] + b;
				yp[i + u] = v > 0.0f ? v : 0.0f;
			}
		}
		for (; i < hw; i++) {
			const float v = xp[i] + b;
			yp[i] = v > 0.0f ? v : 0.0f;
		}
	}
}
