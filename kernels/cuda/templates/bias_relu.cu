/* bias_relu.cu: y = max(x + bias[c] (+ res), 0) over NHWC (c the fastest index); NVRTC template.
 *
 * Fields: BLOCK [256] threads, VEC [8 for 16-bit, 4 for fp32] elements per access, RESIDUAL
 * [0]: 1 adds res before the ReLU (ResNet's relu(bn(conv) + identity)); DTYPE_FLOAT16 /
 * DTYPE_BFLOAT16 / DTYPE_FLOAT32. Valid: the prelude's rules. In place (y == x) is allowed.
 *
 * bias_relu(const T *x, const T *bias, const T *res, T *y, long long total, int C)
 *   total = N * H * W * C elements, bias [C], res like x (ignored unless RESIDUAL).
 *   Grid-stride: grid = any (ceil(total / (VEC * BLOCK)) covers it in one pass), block = BLOCK.
 */
#ifndef RESIDUAL
#define RESIDUAL 0
#endif
#include "prelude.cuh" /* the dtype prelude: elem_t, VEC, BLOCK, conversions, vector loads */

extern "C" __global__ void __launch_bounds__(BLOCK)
	bias_relu(const elem_t *x, const elem_t *__restrict__ bias, const elem_t *res, elem_t *y,
		  long long total, int C)
{
	const bool vec = C % VEC == 0 && aligned(x) && aligned(y) && aligned(bias) &&
			 (!RESIDUAL || aligned(res));
	const long long chunks = (total + VEC - 1) / VEC;
	for (long long i = (long long)blockIdx.x * BLOCK + threadIdx.x; i < chunks;
	     i += (long long)gridDim.x * BLOCK) {
		const long long e = i * VEC;
		const int n = total - e < VEC ? (int)(total - e) : VEC;
		float v[VEC], b[VEC];
		load_vec(v, x + e, vec, n);
		if (vec) {
			load_vec(b, bias + (int)(e % C), true, VEC);
		} else {
#pragma unroll
			for (int k = 0; k < VEC; ++k)
				b[k] = k < n ? to_float(bias[(int)((e + k) % C)]) : 0.0f;
		}
#if RESIDUAL
		float r[VEC];
		load_vec(r, res + e, vec, n);
#pragma unroll
		for (int k = 0; k < VEC; ++k)
			v[k] += r[k];
#endif
#pragma unroll
		for (int k = 0; k < VEC; ++k)
			v[k] = fmaxf(v[k] + b[k], 0.0f);
		store_vec(y + e, v, vec, n);
	}
}
