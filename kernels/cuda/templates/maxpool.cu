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
 *   FWD_OH, FWD_OW [1, 1] (template constants, not fields): a thread takes an FWD_OH x
 *   FWD_OW block of outputs and loads the (2 FWD_OH + 1) x (2 FWD_OW + 1) inputs under it
 *   once each; 2 x 1, 1 x 2 and 2 x 2 were measured slower than 1 x 1 (docs/BENCHMARKS.md,
 *   2026-11-25). FWD_MIN_THREADS [unset]: resident threads per SM asked of ptxas.
 *   grid = ceil(N * ceil(OH / FWD_OH) * ceil(OW / FWD_OW) * ceil(C / VEC) / BLOCK),
 *   block = BLOCK.
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
 *   With VEC >= 4 and whole vectors (the packed path) the windows' idx and dy stay in the
 *   32-bit words loaded, and each input position is summed and stored before the next, so
 *   few floats are live; BWD_MIN_THREADS [1024] resident threads per SM are asked of ptxas
 *   (64 registers: no spill at VEC 8). Both took the 16-bit backward from 67.6% to 87% of
 *   the copy bandwidth; the cap alone, on the unpacked code, to 71% (docs/BENCHMARKS.md).
 *   grid = ceil(N * OH * ceil(OW / BWD_OW) * ceil(C / VEC) / BLOCK) (a larger grid is
 *   harmless: the loop strides by the grid), block = BLOCK.
 *
 * maxpool_fwd and maxpool_bwd index their threads in 32-bit arithmetic when the thread
 * count and grid fit (a branch per launch, 64-bit otherwise), and keep their element paths
 * (ragged C, unaligned pointers, VEC < 4 in the backward) in loops not unrolled, so that
 * those paths' registers do not set the kernel's (ptxas sizes a kernel for its heaviest
 * path). The 32-bit index alone took the 16-bit forward from 77% to 79% of the copy
 * bandwidth; with the lean element path it measured 92% (docs/BENCHMARKS.md, 2026-11-25).
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

#ifndef FWD_OW
#define FWD_OW 1 /* output columns per thread in maxpool_fwd (see the header) */
#endif
#ifndef FWD_OH
#define FWD_OH 1 /* output rows per thread in maxpool_fwd (see the header) */
#endif
static_assert(FWD_OW >= 1 && FWD_OW <= 8 && FWD_OH >= 1 && FWD_OH <= 8,
	      "FWD_OW and FWD_OH must be 1..8");

/* Element-wise max of two vectors of VEC elements, as stored (NaN loses, as v > m does). */
static __device__ __forceinline__ vec_t vec_max(vec_t a, vec_t b)
{
#if PACKED_MAX /* 16-bit pairs compared as they are (max.f16x2 / max.bf16x2) */
	union {
		vec_t v;
		unsigned w[VEC / 2];
	} x, y;
	x.v = a;
	y.v = b;
#pragma unroll
	for (int k = 0; k < VEC / 2; ++k)
		x.w[k] = max2(x.w[k], y.w[k]);
	return x.v;
#else
#pragma unroll
	for (int k = 0; k < VEC; ++k)
		a.e[k] = from_float(fmaxf(to_float(a.e[k]), to_float(b.e[k])));
	return a;
#endif
}

static __device__ __forceinline__ vec_t vec_neg_inf()
{
	vec_t v;
#pragma unroll
	for (int k = 0; k < VEC; ++k)
		v.e[k] = from_float(-__int_as_float(0x7f800000));
	return v;
}

/* maxpool_fwd over index type I (unsigned 32-bit when the thread count fits, else 64-bit):
 * thread i takes channel vector i % CV of the strip of FWD_OW output columns i / CV. */
template <typename I>
static __device__ __forceinline__ void fwd_loop(const elem_t *__restrict__ x,
						elem_t *__restrict__ y, int N, int H, int W, int C,
						bool vec)
{
	const int OH = (H - 1) / 2 + 1, OW = (W - 1) / 2 + 1, CV = (C + VEC - 1) / VEC;
	const int OWS = (OW + FWD_OW - 1) / FWD_OW, OHS = (OH + FWD_OH - 1) / FWD_OH;
	const I total = (I)N * OHS * OWS * CV;
	for (I i = (I)blockIdx.x * BLOCK + threadIdx.x; i < total; i += (I)gridDim.x * BLOCK) {
		int c = (int)(i % CV) * VEC;
		I p = i / CV;
		int ow0 = (int)(p % OWS) * FWD_OW, oh0 = (int)(p / OWS % OHS) * FWD_OH;
		int n = (int)(p / ((I)OWS * OHS));
		if (vec) { /* the (2 FWD_OH + 1) x (2 FWD_OW + 1) input block, each vector loaded
			    * once; row r lies in windows (r - 2) / 2 .. r / 2, as columns do */
			vec_t m[FWD_OH][FWD_OW];
#pragma unroll
			for (int i2 = 0; i2 < FWD_OH; ++i2)
#pragma unroll
				for (int j = 0; j < FWD_OW; ++j)
					m[i2][j] = vec_neg_inf();
#pragma unroll
			for (int r = 0; r <= 2 * FWD_OH; ++r) {
				int h = oh0 * 2 - 1 + r;
				if (h < 0 || h >= H)
					continue;
				const elem_t *row = x + ((long long)n * H + h) * W * C + c;
#pragma unroll
				for (int k = 0; k <= 2 * FWD_OW; ++k) {
					int w = ow0 * 2 - 1 + k;
					if (w < 0 || w >= W)
						continue;
					vec_t t = *(const vec_t *)(row + (long long)w * C);
#pragma unroll
					for (int i2 = 0; i2 < FWD_OH; ++i2)
#pragma unroll
						for (int j = 0; j < FWD_OW; ++j)
							if (r >= 2 * i2 && r <= 2 * i2 + 2 &&
							    k >= 2 * j && k <= 2 * j + 2)
								m[i2][j] = vec_max(m[i2][j], t);
				}
			}
#pragma unroll
			for (int i2 = 0; i2 < FWD_OH; ++i2)
#pragma unroll
				for (int j = 0; j < FWD_OW; ++j)
					if (oh0 + i2 < OH && ow0 + j < OW)
						*(vec_t *)(y + (((long long)n * OH + oh0 + i2) * OW + ow0 +
								j) * C + c) = m[i2][j];
			continue;
		}
		/* the element path (ragged C, unaligned pointers), its loops not unrolled so that
		 * its registers stay under the vector path's (a kernel's count is its heaviest
		 * path's) */
#pragma unroll 1
		for (int q = 0; q < FWD_OH * FWD_OW; ++q) {
			int oh = oh0 + q / FWD_OW, ow = ow0 + q % FWD_OW;
			if (oh >= OH || ow >= OW)
				continue;
			float m[VEC];
#pragma unroll
			for (int k = 0; k < VEC; ++k)
				m[k] = -__int_as_float(0x7f800000);
#pragma unroll 1
			for (int kh = 0; kh < 3; ++kh) {
				int h = oh * 2 - 1 + kh;
#pragma unroll 1
				for (int kw = 0; kw < 3; ++kw) {
					int w = ow * 2 - 1 + kw;
					if (h < 0 || h >= H || w < 0 || w >= W)
						continue;
					float v[VEC];
					load_vec(v, x + (((long long)n * H + h) * W + w) * C + c, false,
						 C - c);
#pragma unroll
					for (int k = 0; k < VEC; ++k)
						if (v[k] > m[k])
							m[k] = v[k];
				}
			}
			store_vec(y + (((long long)n * OH + oh) * OW + ow) * C + c, m, false, C - c);
		}
	}
}

#ifdef FWD_MIN_THREADS /* resident threads per SM asked of maxpool_fwd (a register cap) */
#define FWD_MINB_ARG , FWD_MIN_THREADS / BLOCK
#else
#define FWD_MINB_ARG
#endif

extern "C" __global__ void __launch_bounds__(BLOCK FWD_MINB_ARG)
	maxpool_fwd(const elem_t *__restrict__ x, elem_t *__restrict__ y, int N, int H, int W,
		    int C)
{
	const int OH = (H - 1) / 2 + 1, OW = (W - 1) / 2 + 1, CV = (C + VEC - 1) / VEC;
	const bool vec = C % VEC == 0 && aligned(x) && aligned(y);
	if ((long long)N * ((OH + FWD_OH - 1) / FWD_OH) * ((OW + FWD_OW - 1) / FWD_OW) * CV +
		    (long long)gridDim.x * BLOCK <
	    0x7fffffffLL)
		fwd_loop<unsigned>(x, y, N, H, W, C, vec);
	else
		fwd_loop<unsigned long long>(x, y, N, H, W, C, vec);
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

#ifndef BWD_MIN_THREADS
/* resident threads per SM asked of maxpool_bwd: a cap of 64 registers, under which the packed
 * path does not spill (measured: docs/BENCHMARKS.md, 2026-11-25) */
#define BWD_MIN_THREADS 1024
#endif

#if VEC >= 4 /* whole 32-bit words of window positions (and so of dy) */
#define BWD_PACKED 1
#define DWORDS (VEC * (int)sizeof(elem_t) / 4) /* 32-bit words in VEC elements */
union idx_words_t {
	idx_vec_t v;
	unsigned w[VEC / 4];
};
union dy_words_t {
	vec_t v;
	unsigned w[DWORDS];
};

/* Element k of VEC elements held as 32-bit words, as a float. */
static __device__ __forceinline__ float word_elem(const unsigned w[DWORDS], int k)
{
#if defined(DTYPE_FLOAT16) || defined(DTYPE_BFLOAT16)
	return to_float((elem_t)(w[k / 2] >> (16 * (k % 2))));
#else
	return __uint_as_float(w[k]);
#endif
}
#else
#define BWD_PACKED 0
#endif

/* maxpool_bwd over index type I, as fwd_loop. */
template <typename I>
static __device__ __forceinline__ void bwd_loop(const unsigned char *__restrict__ idx,
						const elem_t *__restrict__ dy,
						elem_t *__restrict__ dx, int N, int H, int W, int C,
						bool vec)
{
	const int OH = (H - 1) / 2 + 1, OW = (W - 1) / 2 + 1, CV = (C + VEC - 1) / VEC;
	const int OWS = (OW + BWD_OW - 1) / BWD_OW; /* strips of BWD_OW output columns */
	const I total = (I)N * OH * OWS * CV;
	for (I i = (I)blockIdx.x * BLOCK + threadIdx.x; i < total; i += (I)gridDim.x * BLOCK) {
		int c = (int)(i % CV) * VEC;
		I p = i / CV;
		int ow0 = (int)(p % OWS) * BWD_OW, oh = (int)(p / OWS % OH);
		int n = (int)(p / ((I)OWS * OH));
		/* windows (oh + a, ow0 + b), b = 0 .. BWD_OW (the last one shared with the next
		 * strip); input (2 oh + i2, 2 ow0 + j2) is at kh = i2 - 2 a + 1, kw = j2 - 2 b + 1
		 * of window (a, b). Each input position's VEC sums are made and stored before the
		 * next one's, in window order (a, then b), in fp32. */
#if BWD_PACKED
		if (vec) { /* every window's idx and dy loaded once, kept as the words loaded */
			unsigned iw[2][BWD_OW + 1][VEC / 4], dw[2][BWD_OW + 1][DWORDS];
#pragma unroll
			for (int a = 0; a < 2; ++a)
#pragma unroll
				for (int b = 0; b <= BWD_OW; ++b) {
					long long q = (((long long)n * OH + oh + a) * OW + ow0 + b) * C + c;
					bool in = oh + a < OH && ow0 + b < OW;
					idx_words_t u;
					dy_words_t v;
					if (in) {
						u.v = *(const idx_vec_t *)(idx + q);
						v.v = *(const vec_t *)(dy + q);
					} else {
#pragma unroll
						for (int k = 0; k < VEC / 4; ++k)
							u.w[k] = 0x09090909u; /* position 9: never */
					}
#pragma unroll
					for (int k = 0; k < VEC / 4; ++k)
						iw[a][b][k] = u.w[k];
#pragma unroll
					for (int k = 0; k < DWORDS; ++k)
						dw[a][b][k] = in ? v.w[k] : 0u;
				}
#pragma unroll
			for (int i2 = 0; i2 < 2; ++i2)
#pragma unroll
				for (int j2 = 0; j2 < 2 * BWD_OW; ++j2) {
					int h = 2 * oh + i2, w = 2 * ow0 + j2;
					if (h >= H || w >= W)
						continue;
					float g[VEC];
#pragma unroll
					for (int k = 0; k < VEC; ++k)
						g[k] = 0.0f;
#pragma unroll
					for (int a = 0; a < 2; ++a)
#pragma unroll
						for (int b = 0; b <= BWD_OW; ++b) {
							const int kh = i2 - 2 * a + 1, kw = j2 - 2 * b + 1;
							if (kh < 0 || kh > 2 || kw < 0 || kw > 2)
								continue;
#pragma unroll
							for (int k = 0; k < VEC; ++k)
								if (((iw[a][b][k / 4] >> (8 * (k % 4))) &
								     0xffu) == (unsigned)(kh * 3 + kw))
									g[k] += word_elem(dw[a][b], k);
						}
					store_vec(dx + (((long long)n * H + h) * W + w) * C + c, g, true,
						  VEC);
				}
			continue;
		}
#endif
		/* the element path (ragged C, unaligned, small VEC): windows re-read per
		 * position, loops not unrolled so that its registers stay under the packed
		 * path's (a kernel's count is its heaviest path's) */
#pragma unroll 1
		for (int i2 = 0; i2 < 2; ++i2)
#pragma unroll 1
			for (int j2 = 0; j2 < 2 * BWD_OW; ++j2) {
				int h = 2 * oh + i2, w = 2 * ow0 + j2;
				if (h >= H || w >= W)
					continue;
				float g[VEC];
#pragma unroll
				for (int k = 0; k < VEC; ++k)
					g[k] = 0.0f;
#pragma unroll 1
				for (int a = 0; a < 2; ++a)
#pragma unroll 1
					for (int b = 0; b <= BWD_OW; ++b) {
						int kh = i2 - 2 * a + 1, kw = j2 - 2 * b + 1;
						if (kh < 0 || kh > 2 || kw < 0 || kw > 2 ||
						    oh + a >= OH || ow0 + b >= OW)
							continue;
						long long q = (((long long)n * OH + oh + a) * OW + ow0 + b) *
							      C + c;
						float d[VEC];
						int arg[VEC];
						load_idx(arg, idx + q, vec, C - c);
						load_vec(d, dy + q, vec, C - c);
#pragma unroll
						for (int k = 0; k < VEC; ++k)
							if (arg[k] == kh * 3 + kw)
								g[k] += d[k];
					}
				store_vec(dx + (((long long)n * H + h) * W + w) * C + c, g, vec, C - c);
			}
	}
}

extern "C" __global__ void __launch_bounds__(BLOCK, BWD_MIN_THREADS / BLOCK > 0 ? BWD_MIN_THREADS / BLOCK : 1)
	maxpool_bwd(const unsigned char *__restrict__ idx, const elem_t *__restrict__ dy,
		    elem_t *__restrict__ dx, int N, int H, int W, int C)
{
	const int OH = (H - 1) / 2 + 1, OW = (W - 1) / 2 + 1, CV = (C + VEC - 1) / VEC;
	const bool vec = C % VEC == 0 && aligned(dy) && aligned(dx) &&
			 ((unsigned long long)idx & (VEC - 1)) == 0;
	if ((long long)N * OH * ((OW + BWD_OW - 1) / BWD_OW) * CV + (long long)gridDim.x * BLOCK <
	    0x7fffffffLL)
		bwd_loop<unsigned>(idx, dy, dx, N, H, W, C, vec);
	else
		bwd_loop<unsigned long long>(idx, dy, dx, N, H, W, C, vec);
}
