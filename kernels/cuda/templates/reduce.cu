/* reduce.cu: sum over one dimension of a 2-D tensor x [R, S] (row stride ld); NVRTC template.
 *
 * Fields: BLOCK [256] threads, VEC [8 for 16-bit, 4 for fp32] elements per access, ROWS [8]
 * (sum_dim0: threads along R in a block); DTYPE_FLOAT16 / DTYPE_BFLOAT16 / DTYPE_FLOAT32.
 * Valid: the prelude's rules, ROWS a power of two dividing BLOCK. Sums in fp32, each in a
 * fixed order (no atomics): results are deterministic.
 *
 * sum_dim1(const T *x, T *y, int R, int S, int ld)      y[r] = sum_s x[r * ld + s]
 *   one block per row (grid-stride over rows): grid = min(R, 65535 * k), block = BLOCK.
 * sum_dim0(const T *x, T *y, float *ws, int R, int S, int ld)   y[s] = sum_r x[r * ld + s]
 *   grid = (ceil(ceil(S / VEC) / (BLOCK / ROWS)), SPLITS), block = BLOCK. SPLITS (the grid's y,
 *   chosen by the caller to fill the device, e.g. so that the grid has >= 2 blocks per SM)
 *   cuts R into SPLITS runs; with SPLITS == 1 the kernel writes y itself (ws unused), else
 *   each run writes fp32 partials to ws[SPLITS][S] and
 * sum_dim0_finish(const float *ws, T *y, int S, int splits)
 *   grid = ceil(S / 256), block = 256, adds them in order and writes y.
 * sum_dim0's vector path sums its rows INFLIGHT [8] loads at a time (prelude.cuh's add_rows)
 * and its element path is a loop not unrolled, as in avgpool.cu: float16 at 32768 x 4096 went
 * from 80% to 86-87% of copy bandwidth (the split alone; INFLIGHT 4 and 8 measured the same).
 */
#ifndef ROWS
#define ROWS 8
#endif
#include "prelude.cuh" /* the dtype prelude: elem_t, VEC, BLOCK, conversions, vector loads */
static_assert((ROWS & (ROWS - 1)) == 0 && BLOCK % ROWS == 0, "ROWS: a power of two dividing BLOCK");
#define CT (BLOCK / ROWS)

extern "C" __global__ void __launch_bounds__(BLOCK)
	sum_dim1(const elem_t *__restrict__ x, elem_t *__restrict__ y, int R, int S, int ld)
{
	__shared__ float warp_sum[BLOCK / 32];
	const bool vec = S % VEC == 0 && ld % VEC == 0 && aligned(x);
	for (int r = blockIdx.x; r < R; r += gridDim.x) {
		const elem_t *p = x + (long long)r * ld;
		float s = 0.0f;
#pragma unroll 4
		for (int c = threadIdx.x * VEC; c < S; c += BLOCK * VEC) {
			float v[VEC];
			load_vec(v, p + c, vec, S - c);
#pragma unroll
			for (int k = 0; k < VEC; ++k)
				s += v[k];
		}
#pragma unroll
		for (int o = 16; o > 0; o /= 2)
			s += __shfl_xor_sync(0xffffffffu, s, o);
		if (threadIdx.x % 32 == 0)
			warp_sum[threadIdx.x / 32] = s;
		__syncthreads();
		if (threadIdx.x < 32) {
			s = threadIdx.x < BLOCK / 32 ? warp_sum[threadIdx.x] : 0.0f;
#pragma unroll
			for (int o = 16; o > 0; o /= 2)
				s += __shfl_xor_sync(0xffffffffu, s, o);
			if (threadIdx.x == 0)
				y[r] = from_float(s);
		}
		__syncthreads();
	}
}

extern "C" __global__ void __launch_bounds__(BLOCK)
	sum_dim0(const elem_t *__restrict__ x, elem_t *__restrict__ y, float *__restrict__ ws, int R,
		 int S, int ld)
{
	__shared__ float part[ROWS][VEC][CT];
	const int tc = threadIdx.x % CT, r0 = threadIdx.x / CT;
	const int c = (blockIdx.x * CT + tc) * VEC;
	const int per = (R + gridDim.y - 1) / gridDim.y;
	const int rb = blockIdx.y * per, re = min(R, rb + per);
	const bool vec = S % VEC == 0 && ld % VEC == 0 && aligned(x) && aligned(y);
	float s[VEC];
#pragma unroll
	for (int k = 0; k < VEC; ++k)
		s[k] = 0.0f;
	if (c < S && vec) { /* INFLIGHT vector loads at a time (prelude.cuh) */
		add_rows(s, x + c, ld, rb + r0, ROWS, re);
	} else if (c < S) { /* the element path, not unrolled: its registers stay under the
			     * vector path's (ptxas sizes a kernel for its heaviest path) */
#pragma unroll 1
		for (int r = rb + r0; r < re; r += ROWS) {
			float v[VEC];
			load_vec(v, x + (long long)r * ld + c, false, S - c);
#pragma unroll
			for (int k = 0; k < VEC; ++k)
				s[k] += v[k];
		}
	}
#pragma unroll
	for (int k = 0; k < VEC; ++k)
		part[r0][k][tc] = s[k];
	__syncthreads();
#pragma unroll
	for (int half = ROWS / 2; half > 0; half /= 2) {
		if (r0 < half)
#pragma unroll
			for (int k = 0; k < VEC; ++k)
				part[r0][k][tc] += part[r0 + half][k][tc];
		__syncthreads();
	}
	if (r0 != 0 || c >= S)
		return;
	float o[VEC];
#pragma unroll
	for (int k = 0; k < VEC; ++k)
		o[k] = part[0][k][tc];
	if (gridDim.y == 1) {
		store_vec(y + c, o, vec, S - c);
	} else {
#pragma unroll
		for (int k = 0; k < VEC; ++k)
			if (c + k < S)
				ws[(long long)blockIdx.y * S + c + k] = o[k];
	}
}

extern "C" __global__ void __launch_bounds__(256)
	sum_dim0_finish(const float *__restrict__ ws, elem_t *__restrict__ y, int S, int splits)
{
	int c = blockIdx.x * 256 + threadIdx.x;
	if (c >= S)
		return;
	float s = 0.0f;
	for (int z = 0; z < splits; ++z)
		s += ws[(long long)z * S + c];
	y[c] = from_float(s);
}
