/* reference.cu: the check's float64 references on the GPU, and the check's error; NVRTC
 * template.  Not a tuned kernel: plain code that shares nothing with the templates it checks
 * but dtype.cuh (storage type and its exact conversion to float), every product and sum in
 * double.  One program per dtype (DTYPE_FLOAT16 / DTYPE_BFLOAT16 / DTYPE_FLOAT32);
 * every kernel takes a grid-stride loop, so any grid is right, block = 256 (ref_gemm, ref_conv:
 * 16 x 16).
 *
 * ref_gemm(A, B, double *C, M, N, K)        C = A B^T (TN), 16 x 16 tiles of A and B in
 *   shared memory as doubles; grid (ceil(N / 16), ceil(M / 16)), block (16, 16).
 * ref_maxpool(x, double *y, N, H, W, C)     3x3/2 pad 1 max, NHWC.
 * ref_maxpool_bwd(idx, dy, double *dx, N, H, W, C)
 *   per dx element, the dy of every window whose idx (kh * 3 + kw) names it, in window order.
 * ref_avgpool(x, double *y, N, HW, C)       mean over HW per (n, c).
 * ref_sum(x, double *y, R, S, dim)          dim 1: per row; dim 0: per column.
 * ref_bias_relu(x, bias, res, double *y, total, C)   max(x + bias[i % C] (+ res), 0); res
 *   may be NULL.
 * ref_conv(x, w, res, double *y, N, H, W, C, K, P, Q, R, stride, pad, bias, add, relu)
 *   the direct convolution NHWC x KRSC (w: K x R x R x C, then the K biases), output
 *   N x P x Q x K, as ref_gemm's 16 x 16 tiles over its implicit GEMM (rows: output pixels,
 *   columns: output channels, the reduction (r, s, c) in that order, zero outside the
 *   image); then + the bias (bias), + res (add), max(., 0) (relu), in that order.  Its own
 *   grid-stride loop over the tiles: any 1-D grid, block (16, 16).
 * ref_fill(y, n, seed, tf32)
 *   y[i] = uniform(-1, 1) rounded to the dtype (tf32: to TF32 first), from splitmix64
 *   (Steele, Lea and Flood 2014) of seed + i * 0x9e3779b97f4a7c15: a counter-based draw,
 *   the same for any grid (a cell's inputs, data.c).  Not a reference: it lives here
 *   because this program is already compiled once per dtype per unit.
 * ref_error(y, ref, n, double *acc, unsigned long long *bad)
 *   acc[0] += sum (y - ref)^2, acc[1] += sum ref^2 over the n outputs, *bad = the smallest
 *   index of a non-finite y (atomicMin; the caller sets it to ~0 and acc to 0 first).
 */
#include "dtype.cuh"

static __device__ __forceinline__ double get(const elem_t *p, long long i)
{
	return (double)to_float(p[i]);
}

#define GRID_STRIDE(i, n)                                                                \
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (n);    \
	     i += (long long)gridDim.x * blockDim.x)

extern "C" __global__ void ref_gemm(const elem_t *A, const elem_t *B, double *Cout, int M, int N,
				    int K)
{
	__shared__ double as[16][17], bs[16][17];
	int tx = threadIdx.x, ty = threadIdx.y;
	int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
	double acc = 0;
	for (int k0 = 0; k0 < K; k0 += 16) {
		int ar = blockIdx.y * 16 + ty, br = blockIdx.x * 16 + ty;
		as[ty][tx] = ar < M && k0 + tx < K ? get(A, (long long)ar * K + k0 + tx) : 0.0;
		bs[ty][tx] = br < N && k0 + tx < K ? get(B, (long long)br * K + k0 + tx) : 0.0;
		__syncthreads();
#pragma unroll
		for (int k = 0; k < 16; ++k)
			acc += as[ty][k] * bs[tx][k];
		__syncthreads();
	}
	if (row < M && col < N)
		Cout[(long long)row * N + col] = acc;
}

extern "C" __global__ void ref_maxpool(const elem_t *x, double *y, int N, int H, int W, int C)
{
	const int OH = (H - 1) / 2 + 1, OW = (W - 1) / 2 + 1;
	GRID_STRIDE(o, (long long)N * OH * OW * C)
	{
		int c = (int)(o % C);
		long long p = o / C;
		int ow = (int)(p % OW), oh = (int)(p / OW % OH), n = (int)(p / ((long long)OW * OH));
		double m = -__longlong_as_double(0x7ff0000000000000LL);
		for (int kh = 0; kh < 3; ++kh)
			for (int kw = 0; kw < 3; ++kw) {
				int h = 2 * oh - 1 + kh, w = 2 * ow - 1 + kw;
				if (h < 0 || h >= H || w < 0 || w >= W)
					continue;
				double v = get(x, (((long long)n * H + h) * W + w) * C + c);
				if (v > m)
					m = v;
			}
		y[o] = m;
	}
}

extern "C" __global__ void ref_maxpool_bwd(const unsigned char *idx, const elem_t *dy,
					   double *dx, int N, int H, int W, int C)
{
	const int OH = (H - 1) / 2 + 1, OW = (W - 1) / 2 + 1;
	GRID_STRIDE(o, (long long)N * H * W * C)
	{
		int c = (int)(o % C);
		long long p = o / C;
		int w = (int)(p % W), h = (int)(p / W % H), n = (int)(p / ((long long)W * H));
		double s = 0;
		/* windows oh with 2 oh - 1 <= h <= 2 oh + 1, in order */
		for (int oh = h / 2 - 1; oh <= h / 2 + 1; ++oh)
			for (int ow = w / 2 - 1; ow <= w / 2 + 1; ++ow) {
				int kh = h - 2 * oh + 1, kw = w - 2 * ow + 1;
				if (oh < 0 || oh >= OH || ow < 0 || ow >= OW || kh < 0 || kh > 2 ||
				    kw < 0 || kw > 2)
					continue;
				long long q = (((long long)n * OH + oh) * OW + ow) * C + c;
				if (idx[q] == kh * 3 + kw)
					s += get(dy, q);
			}
		dx[o] = s;
	}
}

extern "C" __global__ void ref_avgpool(const elem_t *x, double *y, int N, int HW, int C)
{
	GRID_STRIDE(o, (long long)N * C)
	{
		long long n = o / C, c = o % C;
		double s = 0;
		for (int p = 0; p < HW; ++p)
			s += get(x, (n * HW + p) * C + c);
		y[o] = s / HW;
	}
}

extern "C" __global__ void ref_sum(const elem_t *x, double *y, int R, int S, int dim)
{
	GRID_STRIDE(o, dim ? (long long)R : (long long)S)
	{
		double s = 0;
		if (dim)
			for (int j = 0; j < S; ++j)
				s += get(x, o * S + j);
		else
			for (int r = 0; r < R; ++r)
				s += get(x, (long long)r * S + o);
		y[o] = s;
	}
}

extern "C" __global__ void ref_bias_relu(const elem_t *x, const elem_t *bias, const elem_t *res,
					 double *y, long long total, int C)
{
	GRID_STRIDE(o, total)
	{
		double v = get(x, o) + get(bias, o % C);
		if (res)
			v += get(res, o);
		y[o] = v > 0 ? v : 0;
	}
}

extern "C" __global__ void ref_conv(const elem_t *x, const elem_t *wt, const elem_t *res,
				    double *y, int N, int H, int W, int C, int K, int P, int Q, int R,
				    int stride, int pad, int bias, int add, int relu)
{
	__shared__ double as[16][17], bs[16][17];
	const long long M = (long long)N * P * Q, KK = (long long)R * R * C;
	const long long tm = (M + 15) / 16, tn = (K + 15) / 16;
	const int tx = threadIdx.x, ty = threadIdx.y;
	for (long long t = blockIdx.x; t < tm * tn; t += gridDim.x) {
		const long long m0 = t / tn * 16, n0 = t % tn * 16;
		/* the output pixel of this thread's row of A, and the weights' row of B */
		const long long am = m0 + ty, bn = n0 + ty;
		const int q = (int)(am % Q), p = (int)(am / Q % P), img = (int)(am / ((long long)Q * P));
		double acc = 0;
		for (long long k0 = 0; k0 < KK; k0 += 16) {
			const long long kk = k0 + tx;
			double a = 0.0;
			if (am < M && kk < KK) {
				const int c = (int)(kk % C), rs = (int)(kk / C);
				const int h = p * stride - pad + rs / R, w = q * stride - pad + rs % R;
				if (h >= 0 && h < H && w >= 0 && w < W)
					a = get(x, (((long long)img * H + h) * W + w) * C + c);
			}
			as[ty][tx] = a;
			bs[ty][tx] = bn < K && kk < KK ? get(wt, bn * KK + kk) : 0.0;
			__syncthreads();
#pragma unroll
			for (int k = 0; k < 16; ++k)
				acc += as[ty][k] * bs[tx][k];
			__syncthreads();
		}
		const long long row = m0 + ty, col = n0 + tx;
		if (row < M && col < K) {
			const long long o = row * K + col;
			if (bias)
				acc += get(wt, (long long)K * KK + col);
			if (add)
				acc += get(res, o);
			if (relu)
				acc = acc > 0 ? acc : 0;
			y[o] = acc;
		}
	}
}

extern "C" __global__ void ref_fill(elem_t *y, long long n, unsigned long long seed, int tf32)
{
	GRID_STRIDE(i, n) {
		unsigned long long z = seed + (unsigned long long)i * 0x9e3779b97f4a7c15ULL;
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		z ^= z >> 31;
		double u = (double)(z >> 11) * 0x1.0p-53;
		float v = (float)(2.0 * u - 1.0);
		if (tf32) /* to the nearest TF32, ties away (cvt.rna), in bits: |v| < 1, no overflow */
			v = __uint_as_float((__float_as_uint(v) + 0x1000u) & 0xffffe000u);
		y[i] = from_float(v);
	}
}

extern "C" __global__ void ref_error(const elem_t *y, const double *ref, long long n,
				     double *acc, unsigned long long *bad)
{
	__shared__ double s0[256], s1[256];
	double num = 0, den = 0;
	GRID_STRIDE(i, n)
	{
		float v = to_float(y[i]);
		if (!isfinite(v)) {
			atomicMin(bad, (unsigned long long)i);
			continue;
		}
		double d = (double)v - ref[i];
		num += d * d;
		den += ref[i] * ref[i];
	}
	s0[threadIdx.x] = num;
	s1[threadIdx.x] = den;
	__syncthreads();
	for (int k = blockDim.x / 2; k > 0; k /= 2) {
		if (threadIdx.x < k) {
			s0[threadIdx.x] += s0[threadIdx.x + k];
			s1[threadIdx.x] += s1[threadIdx.x + k];
		}
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		atomicAdd(&acc[0], s0[0]);
		atomicAdd(&acc[1], s1[0]);
	}
}
