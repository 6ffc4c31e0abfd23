/* maxpool.c: max pooling template (NCHW planes), compiled at run time with its config:
 *   UNROLL  output columns computed together: UNROLL running maxima per window row pass
 * Padded positions never win, as with torch's -inf padding. */
#include <math.h>
#include <stdint.h>

#include "kernel.h"

#if !defined(UNROLL) || UNROLL < 1 || UNROLL > 16
#error "maxpool template needs 1 <= UNROLL <= 16"
#endif

static inline int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

void harness_maxpool(int64_t planes, int64_t h, int64_t w, int64_t r, int64_t stride,
		     int64_t pad, int64_t oh, int64_t ow, const float *x, float *y)
{
	for (int64_t p = 0; p < planes; p++) {
		const float *xp = x + p * h * w;
		float *yp = y + p * oh * ow;
		for (int64_t oy = 0; oy < oh; oy++) {
			const int64_t iy0 = oy * stride - pad;
			const int64_t ky0 = iy0 < 0 ? -iy0 : 0, ky1 = min64(r, h - iy0);
			for (int64_t ox = 0; ox < ow; ox += UNROLL) {
				const int64_t nu = min64(UNROLL, ow - ox);
				float m[UNROLL];
				for (int u = 0; u < UNROLL; u++)
					m[u] = -INFINITY;
				for (int64_t ky = ky0; ky < ky1; ky++) {
					const float *row = xp + (iy0 + ky) * w;
					for (int64_t kx = 0; kx < r; kx++) {
						for (int64_t u = 0; u < nu; u++) {
							int64_t ix = (ox + u) * stride - pad + kx;
							if (ix >= 0 && ix < w && row[ix] > m[u])
								m[u] = row[ix];
						}
					}
				}
				for (int64_t u = 0; u < nu; u++)
					yp[oy * ow + ox + u] = m[u];
			}
		}
	}
}
