/* maxpool.cu: 3x3 max-pool, stride 2, padding 1, NHWC, forward and backward; NVRTC template.
 *
 * Fields: BLOCK [256] threads per block, VEC [8 for 16-bit, 4 for fp32] channels per thread;
 * DTYPE_FLOAT16 / DTYPE_BFLOAT16 / DTYPE_FLOAT32. Valid: BLOCK a multiple of 32 up to 1024,
 * VEC a power of two with VEC * sizeof(T) <= 16. Any N, H, W, C (C % VEC != 0 takes the
 * element-by-element path). OH = (H - 1) / 2 + 1, OW = (W - 1) / 2 + 1 (torch's with pad 1).
 *
 * maxpool_fwd(const T *x, T *y, int N, int H, int W, int C)
 *   x [N, H, W, C], y [N, OH, OW, C]; padding never wins (-inf); ties go to the first
 *   element in window order (kh, then kw), as in torch.
 *   grid = ceil(N * OH * OW * ceil(C / VEC) / BLOCK), block = BLOCK.
 * maxpool_fwd_idx(const T *x, T *y, unsigned char *idx, int N, int H, int W, int C)
 *   the training forward: y as maxpool_fwd, and idx [N, OH, OW, C] (one byte per output) the
 *   position of each window's first maximum in the window, kh * 3 + kw (0..8), which the
 *   backward takes instead of x (as torch's max_pool2d_with_indices saves int64 indices).
 *   grid and block as for maxpool_fwd.
 * maxpool_bwd(const unsigned char *idx, const T *dy, T *dx, int N, int H, int W, int C)
 *   dx [N, H, W, C] = the sum of dy over the windows whose idx points at that element.
 *   One thread per output position and channel vector writes the 2x2 input block (2 oh ..
 *   2 oh + 1, 2 ow .. 2 ow + 1), which lies in windows (oh .. oh + 1, ow .. ow + 1) only: it
 *   reads those 4 windows' idx and dy (VEC bytes and VEC elements each) and writes every dx
 *   element of its block exactly once, summing in window order in fp32, without atomics,
 *   so the result is deterministic.  An idx that points into the padding drops that dy (the
 *   forward never produces one unless a whole window is -inf).
 *   BWD_OW [1] (a template constant, not a field): a thread takes BWD_OW consecutive output
 *   columns, the 2 x 2 BWD_OW input block under them, reading 2 (BWD_OW + 1) windows
 *   instead of 4 BWD_OW (the window column between two strips is read by both).
 *   grid = ceil(N * OH * ceil(OW / BWD_OW) * ceil(C / VEC) / BLOCK) (a larger grid is
 *   harmless: the loop strides by the grid), block = BLOCK.
 */
#include "prelude.cuh" /* the dtype prelude: elem_t, VEC, BLOCK, conversions, vector loads */

/* Max of window (oh, ow) for VEC channels from c, and its first argmax 0..8 (kh * 3 + kw). */
static __device__ __forceinline__ void window_max(const elem_t *__restrict__ x, int n, int H,
						  int W, int C, int oh, int ow, int c, bool vec,
						  float m[VEC], int arg[VEC])
{
#pragma unroll
	for (int i = 0; i < VEC; ++i) {
		m[i] = -__int_as_float(0x7f800000);
		arg[i] = 0;
	}
#pragma unroll
	for (int kh = 0; kh < 3; ++kh) {
		int h = oh * 2 - 1 + kh;
		if (h < 0 || h >= H)
			continue;
#pragma unroll
		for (int kw = 0; kw < 3; ++kw) {
			int w = ow * 2 - 1 + kw;
			if (w < 0 || w >= W)
				continue;
			float v[VEC];
			load_vec(v, x + (((long long)n * H + h) * W + w) * C + c, vec, C - c);
#pragma unroll
			for (int i = 0; i < VEC; ++i)
				if (v[i] > m[i]) {
					m[i] = v[i];
					arg[i] = kh * 3 + kw;
				}
		}
	}
}

#if (defined(DTYPE_FLOAT16) || defined(DTYPE_BFLOAT16)) && VEC >= 2
#define PACKED_MAX 1
/* Element-wise max of two pairs of 16-bit values, without converting them. */
static __device__ __forceinline__ unsigned max2(unsigned a, unsigned b)
{
	unsigned r;
#if defined(DTYPE_FLOAT16)
	asm("max.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
#else
	asm("max.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
#endif
	return r;
}
#else
#define PACKED_MAX 0
#endif

/* VEC bytes of window positions as one access (maxpool_fwd_idx, maxpool_bwd). */
struct __align__(VEC) idx_vec_t {
	unsigned char b[VEC];
};

extern "C" __global__ void __launch_bounds__(BLOCK)
	maxpool_fwd(const elem_t *__restrict__ x, elem_t *__restrict__ y, int N, int H, int W,
		    int C)
{
	const int OH = (H - 1) / 2 + 1, OW = (W - 1) / 2 + 1, CV = (C + VEC - 1) / VEC;
	const long long total = (long long)N * OH * OW * CV;
	const bool vec = C % VEC == 0 && aligned(x) && aligned(y);
	for (long long i = (long long)blockIdx.x * BLOCK + threadIdx.x; i < total;
	     i += (long long)gridDim.x * BLOCK) {
		int c = (int)(i % CV) * VEC;
		long long p = i / CV;
		int ow = (int)(p % OW), oh = (int)(p / OW % OH), n = (int)(p / ((long long)OW * OH));
#if PACKED_MAX
		if (vec) { /* 16-bit pairs compared as they are (max.f16x2 / max.bf16x2) */
			union {
				vec_t v;
				unsigned w[VEC / 2];
			} m, t;
#pragma unroll
			for (int k = 0; k < VEC / 2; ++k)
#if defined(DTYPE_FLOAT16)
				m.w[k] = 0xfc00fc00u; /* -inf, -inf */
#else
				m.w[k] = 0xff80ff80u;
#endif
#pragma unroll
			for (int kh = 0; kh < 3; ++kh) {
				int h = oh * 2 - 1 + kh;
				if (h < 0 || h >= H)
					continue;
#pragma unroll
				for (int kw = 0; kw < 3; ++kw) {
					int w = ow * 2 - 1 + kw;
					if (w < 0 || w >= W)
						continue;
					t.v = *(const vec_t *)(x + (((long long)n * H + h) * W + w) * C + c);
#pragma unroll
					for (int k = 0; k < VEC / 2; ++k)
						m.w[k] = max2(m.w[k], t.w[k]);
				}
			}
			*(vec_t *)(y + p * C + c) = m.v;
			continue;
		}
#endif
		float m[VEC];
		int arg[VEC];
		window_max(x, n, H, W, C, oh, ow, c, vec, m, arg);
		store_vec(y + p * C + c, m, vec, C - c);
	}
}

extern "C" __global__ void __launch_bounds__(BLOCK)
	maxpool_fwd_idx(const elem_t *__restrict__ x, elem_t *__restrict__ y,
			unsigned char *__restrict__ idx, int N, int H, int W, int C)
{
	const int OH = (H - 1) / 2 + 1, OW = (W - 1) / 2 + 1, CV = (C + VEC - 1) / VEC;
	const long long total = (long long)N * OH * OW * CV;
	const bool vec = C % VEC == 0 && aligned(x) && aligned(y) &&
			 ((unsigned long long)idx & (VEC - 1)) == 0;
	for (long long i = (long long)blockIdx.x * BLOCK + threadIdx.x; i < total;
	     i += (long long)gridDim.x * BLOCK) {
		int c = (int)(i % CV) * VEC;
		long long p = i / CV;
		int ow = (int)(p % OW), oh = (int)(p / OW % OH), n = (int)(p / ((long long)OW * OH));
		float m[VEC];
		int arg[VEC];
		window_max(x, n, H, W, C, oh, ow, c, vec, m, arg);
		store_vec(y + p * C + c, m, vec, C - c);
		if (vec) {
			idx_vec_t u;
#pragma unroll
			for (int k = 0; k < VEC; ++k)
				u.b[k] = (unsigned char)arg[k];
			*(idx_vec_t *)(idx + p * C + c) = u;
		} else {
#pragma unroll
			for (int k = 0; k < VEC; ++k)
				if (c + k < C)
					idx[p * C + c + k] = (unsigned char)arg[k];
		}
	}
}

/* VEC window positions (one byte each) at p; n = how many are valid (the rest read 0). */
static __device__ __forceinline__ void load_idx(int a[VEC], const unsigned char *p, bool vec,
						int n)
{
	if (vec && n >= VEC) {
		idx_vec_t u = *(const idx_vec_t *)p;
#pragma unroll
		for (int k = 0; k < VEC; ++k)
			a[k] = u.b[k];
	} else {
#pragma unroll
		for (int k = 0; k < VEC; ++k)
			a[k] = k < n ? p[k] : 0;
	}
}

#ifndef BWD_OW
#define BWD_OW 1 /* output columns per thread in maxpool_bwd (see the header) */
#endif

extern "C" __global__ void __launch_bounds__(BLOCK)
	maxpool_bwd(const unsigned char *__restrict__ idx, const elem_t *__restrict__ dy,
		    elem_t *__restrict__ dx, int N, int H, int W, int C)
{
	const int OH = (H - 1) / 2 + 1, OW = (W - 1) / 2 + 1, CV = (C + VEC - 1) / VEC;
	const int OWS = (OW + BWD_OW - 1) / BWD_OW; /* strips of BWD_OW output columns */
	const long long total = (long long)N * OH * OWS * CV;
	const bool vec = C % VEC == 0 && aligned(dy) && aligned(dx) &&
			 ((unsigned long long)idx & (VEC - 1)) == 0;
	for (long long i = (long long)blockIdx.x * BLOCK + threadIdx.x; i < total;
	     i += (long long)gridDim.x * BLOCK) {
		int c = (int)(i % CV) * VEC;
		long long p = i / CV;
		int ow0 = (int)(p % OWS) * BWD_OW, oh = (int)(p / OWS % OH);
		int n = (int)(p / ((long long)OWS * OH));
		/* the thread's input block: rows 2 oh .. 2 oh + 1, columns 2 ow0 .. 2 ow0 +
		 * 2 BWD_OW - 1 */
		float g[2][2 * BWD_OW][VEC];
#pragma unroll
		for (int a = 0; a < 2; ++a)
#pragma unroll
			for (int j = 0; j < 2 * BWD_OW; ++j)
#pragma unroll
				for (int k = 0; k < VEC; ++k)
					g[a][j][k] = 0.0f;
		/* windows (oh + a, ow0 + b), b = 0 .. BWD_OW (the last one shared with the next
		 * strip); input (2 oh + i, 2 ow0 + j) is at kh = i - 2 a + 1, kw = j - 2 b + 1 */
#pragma unroll
		for (int a = 0; a < 2; ++a)
#pragma unroll
			for (int b = 0; b <= BWD_OW; ++b) {
				if (oh + a >= OH || ow0 + b >= OW)
					continue;
				long long q = (((long long)n * OH + oh + a) * OW + ow0 + b) * C + c;
				float d[VEC];
				int arg[VEC];
				load_idx(arg, idx + q, vec, C - c);
				load_vec(d, dy + q, vec, C - c);
#pragma unroll
				for (int k = 0; k < VEC; ++k) {
					int kh = (arg[k] * 11) >> 5, kw = arg[k] - 3 * kh; /* / 3, % 3 */
					int ii = kh - 1 + 2 * a, jj = kw - 1 + 2 * b;
					/* does the maximum lie in this thread's block? */
#pragma unroll
					for (int i2 = 0; i2 < 2; ++i2)
#pragma unroll
						for (int j2 = 2 * b - 1; j2 <= 2 * b + 1; ++j2)
							if (j2 >= 0 && j2 < 2 * BWD_OW && ii == i2 &&
							    jj == j2)
								g[i2][j2][k] += d[k];
				}
			}
#pragma unroll
		for (int i2 = 0; i2 < 2; ++i2)
#pragma unroll
			for (int j2 = 0; j2 < 2 * BWD_OW; ++j2) {
				int h = 2 * oh + i2, w = 2 * ow0 + j2;
				if (h < H && w < W)
					store_vec(dx + (((long long)n * H + h) * W + w) * C + c,
						  g[i2][j2], vec, C - c);
			}
	}
}
