/* avgpool.cu: global average pool, NHWC [N, H, W, C] -> [N, C]; NVRTC template.
 *
 * Fields: BLOCK [256] threads, VEC [8 for 16-bit, 4 for fp32] channels per thread, ROWS [8]
 * threads along H x W (BLOCK / ROWS threads along C); DTYPE_FLOAT16 / DTYPE_BFLOAT16 /
 * DTYPE_FLOAT32. Valid: the prelude's rules, ROWS a power of two dividing BLOCK.
 *
 * avgpool_global(const T *x, T *y, int N, int HW, int C)
 *   y[n * C + c] = (sum over hw of x[(n * HW + hw) * C + c]) / HW, summed in fp32, each
 *   thread's rows in order then a fixed tree over ROWS: deterministic.
 *   grid = (ceil(ceil(C / VEC) / (BLOCK / ROWS)), N), block = BLOCK,
 *   static shared memory BLOCK * VEC * 4 bytes.
 *   The vector path sums its rows INFLIGHT [8] loads at a time (prelude.cuh's add_rows, a
 *   template constant: 8 measured 84.8% -> 85.4% of copy bandwidth against 4 in float16 at
 *   1024 x 7 x 7 x 2048, docs/BENCHMARKS.md, 2026-11-25); the element path (ragged C,
 *   unaligned pointers) is a loop not unrolled, so that its registers do not set the
 *   kernel's.
 */
#ifndef ROWS
#define ROWS 8
#endif
#include "prelude.cuh" /* the dtype prelude: elem_t, VEC, BLOCK, conversions, vector loads */
static_assert((ROWS & (ROWS - 1)) == 0 && BLOCK % ROWS == 0, "ROWS: a power of two dividing BLOCK");
#define CT (BLOCK / ROWS)

extern "C" __global__ void __launch_bounds__(BLOCK)
	avgpool_global(const elem_t *__restrict__ x, elem_t *__restrict__ y, int N, int HW, int C)
{
	__shared__ float part[ROWS][VEC][CT];
	const int tc = threadIdx.x % CT, r = threadIdx.x / CT, n = blockIdx.y;
	const int c = (blockIdx.x * CT + tc) * VEC;
	const bool vec = C % VEC == 0 && aligned(x) && aligned(y);
	float s[VEC];
#pragma unroll
	for (int k = 0; k < VEC; ++k)
		s[k] = 0.0f;
	if (c < C && vec) { /* INFLIGHT vector loads at a time (prelude.cuh) */
		add_rows(s, x + (long long)n * HW * C + c, C, r, ROWS, HW);
	} else if (c < C) { /* the element path, not unrolled: its registers stay under the
			     * vector path's (ptxas sizes a kernel for its heaviest path) */
		const elem_t *p = x + (long long)n * HW * C + c;
#pragma unroll 1
		for (int hw = r; hw < HW; hw += ROWS) {
			float v[VEC];
			load_vec(v, p + (long long)hw * C, false, C - c);
#pragma unroll
			for (int k = 0; k < VEC; ++k)
				s[k] += v[k];
		}
	}
#pragma unroll
	for (int k = 0; k < VEC; ++k)
		part[r][k][tc] = s[k];
	__syncthreads();
#pragma unroll
	for (int half = ROWS / 2; half > 0; half /= 2) {
		if (r < half)
#pragma unroll
			for (int k = 0; k < VEC; ++k)
				part[r][k][tc] += part[r + half][k][tc];
		__syncthreads();
	}
	if (r == 0 && c < C) {
		float o[VEC];
		const float inv = 1.0f / (float)HW;
#pragma unroll
		for (int k = 0; k < VEC; ++k)
			o[k] = part[0][k][tc] * inv;
		store_vec(y + (long long)n * C + c, o, vec, C - c);
	}
}
