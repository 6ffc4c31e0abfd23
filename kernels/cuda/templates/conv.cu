/* conv.cu: 2-D convolution, NHWC, as an implicit GEMM with a fused epilogue; NVRTC template.
 *
 * Y[n, p, q, k] = act(sum_{r, s, c} X[n, p*stride - pad + r, q*stride - pad + s, c]
 *                                   * Wt[k, r, s, c] + bias[k] + Res[n, p, q, k])
 * X is N x H x W x C, Wt is K x RS x RS x C ("KRSC": torchvision's OIHW weights permuted so C
 * is contiguous), Y and Res are N x P x Q x K, bias has K elements (batch norm folded into
 * the weights and this bias at load time).  As a GEMM: M = N * P * Q output pixels, the N of
 * the GEMM is K (output channels), its K is RS * RS * C; A[m, kk] is gathered from X on the
 * fly (no im2col buffer), B[k, kk] = Wt[k][kk] is the GEMM's "TN" operand as in gemm.cu.
 *
 * Self-contained (no #include), like gemm.cu, whose mma.sync / FFMA main loop this template
 * shares: the tiles land in padded shared memory by cp.async and feed ldmatrix + mma.sync.
 * One compiled config serves every shape: all sizes are kernel arguments.
 *
 * Config fields (-D macros, Triton's vocabulary, the same as gemm.cu's; defaults in brackets):
 *   BLOCK_M [128], BLOCK_N [128], BLOCK_K [32]  tile of Y (pixels x channels) and its k step
 *   WARPS [4], STAGES [3], GROUP_M [8]          as gemm.cu (WARPS_M as gemm.cu too)
 *   SPLIT_K [1]   the reduction RS*RS*C cut into SPLIT_K runs (grid z); each writes its fp32
 *                 partial to ws, conv_splitk_reduce sums them in a fixed order and applies the
 *                 epilogue (deterministic; no atomics)
 * Epilogue: a kernel argument, not a macro, so one cubin per config serves all four conv
 *   ops (conv2d, conv2d_bias, conv2d_bias_relu, conv2d_bias_relu_add): epi bit 0 adds
 *   bias[k], bit 1 adds Res (the bottleneck's identity), bit 2 applies ReLU; the branches
 *   are uniform across the grid.
 * Data type: DTYPE_FLOAT16 / DTYPE_BFLOAT16 (mma.sync m16n8k16, fp32 accumulate),
 *   DTYPE_FLOAT32 with TF32=1 (mma.sync m16n8k8 on operands rounded with cvt.rna.tf32),
 *   DTYPE_FLOAT32 (plain FFMA).  No WGMMA path yet (see docs/kernels.md).
 *
 * Kernels and launch:
 *   conv(const T *X, const T *Wt, const T *bias, const T *Res, T *Y, float *ws,
 *        int N, int H, int W, int C, int K, int P, int Q, int RS, int stride, int pad, int epi)
 *     grid = (ceil(M / BLOCK_M) * ceil(K / BLOCK_N), 1, SPLIT_K), block = 32 * WARPS,
 *     dynamic shared memory as gemm.cu: STAGES * (BLOCK_M + BLOCK_N) * (BLOCK_K + 16 /
 *     sizeof(T)) * sizeof(T) bytes.  ws: SPLIT_K * M * K floats when SPLIT_K > 1.
 *   conv_splitk_reduce(const float *ws, const T *bias, const T *Res, T *Y, int M, int K, int epi)
 *     grid = ceil(M * K / 256), block = 256.
 *   conv_epilogue(T *Y, const T *bias, const T *Res, long long total, int K, int epi)
 *     in place, Y = act(Y + bias + Res): the epilogue after a vendor convolution (cuDNN's
 *     cudnnConvolutionForward when its fused call does not serve the op); grid-stride,
 *     block = 256, any grid.
 *
 * Gathers: when C % (16 / sizeof(T)) == 0 and X is 16-byte aligned, a 16-byte chunk of A's
 * row never crosses a filter tap, and comes in with one cp.async (zero-filled outside the
 * image: that is the padding); otherwise (the 7x7 stem's C = 3, odd channel counts) element
 * by element, right for any shape.  Each thread owns one chunk column of the tile, so it
 * decodes (r, s, c) of its k once per k-tile and (n, p, q) of its rows once per block.
 */

#ifndef BLOCK_M
#define BLOCK_M 128
#endif
#ifndef BLOCK_N
#define BLOCK_N 128
#endif
#ifndef BLOCK_K
#define BLOCK_K 32
#endif
#ifndef WARPS
#define WARPS 4
#endif
#ifndef STAGES
#define STAGES 3
#endif
#ifndef SPLIT_K
#define SPLIT_K 1
#endif
#ifndef GROUP_M
#define GROUP_M 8
#endif
#ifndef TF32
#define TF32 0
#endif
#define EPI_BIAS 1
#define EPI_RESIDUAL 2
#define EPI_RELU 4

#if defined(DTYPE_FLOAT16) || defined(DTYPE_BFLOAT16)
typedef unsigned short elem_t;
#define USE_MMA 1
#define KSTEP 16
#else
typedef float elem_t;
#if TF32
#define USE_MMA 1
#define KSTEP 8
#else
#define USE_MMA 0
#define KSTEP 1
#endif
#endif

#ifndef WARPS_M
#if WARPS == 1
#define WARPS_M 1
#elif WARPS == 2
#define WARPS_M (BLOCK_M >= BLOCK_N ? 2 : 1)
#elif WARPS == 4
#define WARPS_M 2
#elif WARPS == 8
#define WARPS_M (BLOCK_M >= BLOCK_N ? 4 : 2)
#else
#define WARPS_M 4
#endif
#endif
#define WARPS_N (WARPS / WARPS_M)

#define THREADS (32 * WARPS)
#define EPC (16 / (int)sizeof(elem_t))  /* elements per 16-byte chunk */
#define SROW (BLOCK_K + EPC)            /* padded shared-memory row, in elements */
#define WM (BLOCK_M / WARPS_M)
#define WN (BLOCK_N / WARPS_N)
#define CPR (BLOCK_K / EPC)             /* 16-byte chunks per tile row */

static_assert(WARPS == 1 || WARPS == 2 || WARPS == 4 || WARPS == 8 || WARPS == 16,
	      "WARPS must be 1, 2, 4, 8 or 16");
static_assert(WARPS % WARPS_M == 0, "WARPS_M must divide WARPS");
static_assert(STAGES >= 2 && STAGES <= 8, "STAGES must be 2..8");
static_assert(SPLIT_K >= 1 && GROUP_M >= 1, "SPLIT_K and GROUP_M must be >= 1");
static_assert(BLOCK_K % EPC == 0, "BLOCK_K must be a multiple of 16 bytes of elements");
static_assert(BLOCK_K % KSTEP == 0, "BLOCK_K must be a multiple of the mma k (16, tf32: 8)");
static_assert(THREADS % CPR == 0, "a tile row's chunks must divide the threads");
#if USE_MMA
static_assert(WM % 16 == 0 && WN % 16 == 0, "warp tile must be a multiple of 16x16");
#else
static_assert(WM % 8 == 0 && WN % 4 == 0, "FFMA warp tile must be a multiple of 8x4");
#endif
static_assert(BLOCK_M * BLOCK_N / THREADS <= 128, "more than 128 accumulators per thread");

/* ---- helpers ------------------------------------------------------------------------- */

static __device__ __forceinline__ float to_float(elem_t h)
{
#if defined(DTYPE_FLOAT16)
	float f;
	asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
	return f;
#elif defined(DTYPE_BFLOAT16)
	return __uint_as_float((unsigned)h << 16);
#else
	return h;
#endif
}

static __device__ __forceinline__ elem_t from_float(float f)
{
#if defined(DTYPE_FLOAT16)
	unsigned short h;
	asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
	return h;
#elif defined(DTYPE_BFLOAT16)
	unsigned short h;
	asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
	return h;
#else
	return f;
#endif
}

static __device__ __forceinline__ unsigned smem_u32(const void *p)
{
	unsigned r;
	asm("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }" : "=r"(r) : "l"(p));
	return r;
}

static __device__ __forceinline__ void cp_async16(unsigned dst, const void *src, int bytes)
{
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
		     "r"(bytes));
}

static __device__ __forceinline__ void cp_async_commit(void)
{
	asm volatile("cp.async.commit_group;\n" ::);
}

template <int NW> static __device__ __forceinline__ void cp_async_wait(void)
{
	asm volatile("cp.async.wait_group %0;\n" ::"n"(NW));
}

#if USE_MMA
static __device__ __forceinline__ void ldmatrix_x4(unsigned r[4], unsigned addr)
{
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
		     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
		     : "r"(addr));
}

#if TF32 && !defined(DTYPE_FLOAT16) && !defined(DTYPE_BFLOAT16)
static __device__ __forceinline__ unsigned to_tf32(unsigned x)
{
	unsigned r;
	asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(__uint_as_float(x)));
	return r;
}
#endif

static __device__ __forceinline__ void mma(float d[4], const unsigned a[4], const unsigned b[2])
{
#if defined(DTYPE_FLOAT16)
	asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
		     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
		     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#elif defined(DTYPE_BFLOAT16)
	asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
		     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
		     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
	asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
		     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
		     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}
#endif

/* The epilogue of one output: v + bias[k] + Res[i], then ReLU, rounded once to T. */
static __device__ __forceinline__ elem_t epilogue(float v, const elem_t *__restrict__ bias,
						  const elem_t *__restrict__ Res, long long i, int k,
						  int epi)
{
	if (epi & EPI_BIAS)
		v += to_float(bias[k]);
	if (epi & EPI_RESIDUAL)
		v += to_float(Res[i]);
	if (epi & EPI_RELU)
		v = v > 0.0f ? v : 0.0f;
	return from_float(v);
}

/* Rows [row0, row0 + BLOCK_N) x [k0, k0 + BLOCK_K) of the weights (rows < R, columns < KK,
 * leading dimension KK) into the shared tile s, zeros outside (gemm.cu's load_tile). */
static __device__ __forceinline__ void load_b(elem_t *s, const elem_t *__restrict__ G, int R,
					      int row0, int KK, int k0, bool vec)
{
	constexpr int CH = BLOCK_N * CPR;
	const int tid = threadIdx.x;
#pragma unroll
	for (int i = 0; i < (CH + THREADS - 1) / THREADS; ++i) {
		int c = tid + i * THREADS;
		if (CH % THREADS != 0 && c >= CH)
			break;
		int r = c / CPR, kc = (c % CPR) * EPC;
		int gr = row0 + r, gk = k0 + kc;
		elem_t *dst = s + r * SROW + kc;
		if (vec) {
			int valid = gr < R ? KK - gk : 0;
			valid = valid < 0 ? 0 : (valid > EPC ? EPC : valid);
			const elem_t *src = valid > 0 ? G + (long long)gr * KK + gk : G;
			cp_async16(smem_u32(dst), src, valid * (int)sizeof(elem_t));
		} else {
			union {
				elem_t e[EPC];
				uint4 v;
			} t;
#pragma unroll
			for (int e = 0; e < EPC; ++e)
				t.e[e] = (gr < R && gk + e < KK) ? G[(long long)gr * KK + gk + e]
								 : (elem_t)0;
			*(uint4 *)dst = t.v;
		}
	}
}

/* The A rows a thread gathers: it owns chunk column (tid % CPR) and rows tid / CPR + i *
 * (THREADS / CPR); per row the image's first element offset and the window's corner. */
#define AROWS (THREADS / CPR)
#define AITERS ((BLOCK_M + AROWS - 1) / AROWS)

struct arow {
	long long base[AITERS]; /* n * H * W * C, or -1 past M */
	int y0[AITERS], x0[AITERS];
};

static __device__ __forceinline__ void load_a(elem_t *s, const elem_t *__restrict__ X,
					      const arow &ar, int H, int W, int C, int RS, int KK,
					      int k0, bool vec)
{
	const int tid = threadIdx.x, kc = (tid % CPR) * EPC, r0 = tid / CPR;
	const int gk = k0 + kc;
	/* the filter tap and channel of this thread's first k */
	int ci = gk % C, t = gk / C;
	int rx = t % RS, ry = t / RS;
#pragma unroll
	for (int i = 0; i < AITERS; ++i) {
		int r = r0 + i * AROWS;
		if (BLOCK_M % AROWS != 0 && r >= BLOCK_M)
			break;
		elem_t *dst = s + r * SROW + kc;
		if (vec) {
			int iy = ar.y0[i] + ry, ix = ar.x0[i] + rx;
			bool ok = ar.base[i] >= 0 && gk < KK && iy >= 0 && iy < H && ix >= 0 &&
				  ix < W;
			const elem_t *src = ok ? X + ar.base[i] + ((long long)iy * W + ix) * C + ci
					       : X;
			cp_async16(smem_u32(dst), src, ok ? 16 : 0);
		} else {
			union {
				elem_t e[EPC];
				uint4 v;
			} u;
			int c = ci, sx = rx, sy = ry;
#pragma unroll
			for (int e = 0; e < EPC; ++e) {
				int iy = ar.y0[i] + sy, ix = ar.x0[i] + sx;
				bool ok = ar.base[i] >= 0 && gk + e < KK && iy >= 0 && iy < H &&
					  ix >= 0 && ix < W;
				u.e[e] = ok ? X[ar.base[i] + ((long long)iy * W + ix) * C + c]
					    : (elem_t)0;
				if (++c == C) {
					c = 0;
					if (++sx == RS) {
						sx = 0;
						++sy;
					}
				}
			}
			*(uint4 *)dst = u.v;
		}
	}
}

/* ---- the implicit-GEMM kernel -------------------------------------------------------- */

extern "C" __global__ void __launch_bounds__(THREADS)
	conv(const elem_t *__restrict__ X, const elem_t *__restrict__ Wt,
	     const elem_t *__restrict__ bias, const elem_t *__restrict__ Res, elem_t *__restrict__ Y,
	     float *__restrict__ ws, int N, int H, int W, int C, int K, int P, int Q, int RS,
	     int stride, int pad, int epi)
{
	extern __shared__ __align__(16) unsigned char smem[];
	elem_t *sA = (elem_t *)smem;
	elem_t *sB = sA + STAGES * BLOCK_M * SROW;
	const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
	const int M = N * P * Q, KK = RS * RS * C;

	const int grid_m = (M + BLOCK_M - 1) / BLOCK_M, grid_n = (K + BLOCK_N - 1) / BLOCK_N;
	const int pid = blockIdx.x, in_group = GROUP_M * grid_n;
	const int first_m = (pid / in_group) * GROUP_M;
	const int group_m = min(grid_m - first_m, GROUP_M);
	const int pid_m = first_m + (pid % in_group) % group_m;
	const int pid_n = (pid % in_group) / group_m;
	const int m0 = pid_m * BLOCK_M, n0 = pid_n * BLOCK_N;

	const int kt_all = (KK + BLOCK_K - 1) / BLOCK_K;
	const int kt_per = (kt_all + SPLIT_K - 1) / SPLIT_K;
	const int kt0 = blockIdx.z * kt_per;
	const int nkt = max(0, min(kt_all, kt0 + kt_per) - kt0);

	const bool vec_a = (C % EPC) == 0 && (((unsigned long long)X) & 15) == 0;
	const bool vec_b = (KK % EPC) == 0 && (((unsigned long long)Wt) & 15) == 0;

	arow ar;
#pragma unroll
	for (int i = 0; i < AITERS; ++i) {
		int gm = m0 + tid / CPR + i * AROWS;
		if (gm < M) {
			int n = gm / (P * Q), pq = gm % (P * Q);
			ar.base[i] = (long long)n * H * W * C;
			ar.y0[i] = (pq / Q) * stride - pad;
			ar.x0[i] = (pq % Q) * stride - pad;
		} else {
			ar.base[i] = -1;
			ar.y0[i] = ar.x0[i] = 0;
		}
	}

	const int wm0 = (warp / WARPS_N) * WM, wn0 = (warp % WARPS_N) * WN;
#if USE_MMA
	constexpr int MT = WM / 16, NT = WN / 8;
	float acc[MT][NT][4];
#else
	constexpr int TM = WM / 8, TN = WN / 4;
	float acc[TM][TN];
#endif
#pragma unroll
	for (int i = 0; i < sizeof(acc) / sizeof(float); ++i)
		((float *)acc)[i] = 0.0f;

#pragma unroll
	for (int s = 0; s < STAGES - 1; ++s) {
		if (s < nkt) {
			int k0 = (kt0 + s) * BLOCK_K;
			load_a(sA + s * BLOCK_M * SROW, X, ar, H, W, C, RS, KK, k0, vec_a);
			load_b(sB + s * BLOCK_N * SROW, Wt, K, n0, KK, k0, vec_b);
		}
		cp_async_commit();
	}

	for (int kt = 0; kt < nkt; ++kt) {
		cp_async_wait<STAGES - 2>();
		__syncthreads();
		{
			int nt = kt + STAGES - 1, s = nt % STAGES;
			if (nt < nkt) {
				int k0 = (kt0 + nt) * BLOCK_K;
				load_a(sA + s * BLOCK_M * SROW, X, ar, H, W, C, RS, KK, k0, vec_a);
				load_b(sB + s * BLOCK_N * SROW, Wt, K, n0, KK, k0, vec_b);
			}
			cp_async_commit();
		}
		const elem_t *tA = sA + (kt % STAGES) * BLOCK_M * SROW;
		const elem_t *tB = sB + (kt % STAGES) * BLOCK_N * SROW;
#if USE_MMA
#pragma unroll
		for (int ks = 0; ks < BLOCK_K; ks += KSTEP) {
			unsigned af[MT][4], bf[NT][2];
#pragma unroll
			for (int mt = 0; mt < MT; ++mt) {
				int r = wm0 + mt * 16 + (lane % 16), k = ks + (lane / 16) * EPC;
				ldmatrix_x4(af[mt], smem_u32(tA + r * SROW + k));
			}
#pragma unroll
			for (int np = 0; np < NT / 2; ++np) {
				int n = wn0 + np * 16 + (lane % 8) + (lane / 16) * 8;
				int k = ks + ((lane / 8) % 2) * EPC;
				unsigned r[4];
				ldmatrix_x4(r, smem_u32(tB + n * SROW + k));
				bf[2 * np][0] = r[0];
				bf[2 * np][1] = r[1];
				bf[2 * np + 1][0] = r[2];
				bf[2 * np + 1][1] = r[3];
			}
#if TF32 && !defined(DTYPE_FLOAT16) && !defined(DTYPE_BFLOAT16)
#pragma unroll
			for (int mt = 0; mt < MT; ++mt)
#pragma unroll
				for (int j = 0; j < 4; ++j)
					af[mt][j] = to_tf32(af[mt][j]);
#pragma unroll
			for (int nt = 0; nt < NT; ++nt)
#pragma unroll
				for (int j = 0; j < 2; ++j)
					bf[nt][j] = to_tf32(bf[nt][j]);
#endif
#pragma unroll
			for (int mt = 0; mt < MT; ++mt)
#pragma unroll
				for (int nt = 0; nt < NT; ++nt)
					mma(acc[mt][nt], af[mt], bf[nt]);
		}
#else
		const int lr = lane / 4, lc = lane % 4;
#pragma unroll 4
		for (int k = 0; k < BLOCK_K; ++k) {
			float a[TM], b[TN];
#pragma unroll
			for (int i = 0; i < TM; ++i)
				a[i] = tA[(wm0 + lr + 8 * i) * SROW + k];
#pragma unroll
			for (int j = 0; j < TN; ++j)
				b[j] = tB[(wn0 + lc + 4 * j) * SROW + k];
#pragma unroll
			for (int i = 0; i < TM; ++i)
#pragma unroll
				for (int j = 0; j < TN; ++j)
					acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
		}
#endif
	}
	cp_async_wait<0>();

	/* epilogue: Y directly, or this split's fp32 partial into ws[z][M][K] */
	float *Pw = SPLIT_K > 1 ? ws + (long long)blockIdx.z * M * K : (float *)0;
#if USE_MMA
#pragma unroll
	for (int mt = 0; mt < MT; ++mt)
#pragma unroll
		for (int nt = 0; nt < NT; ++nt)
#pragma unroll
			for (int h = 0; h < 2; ++h) {
				int row = m0 + wm0 + mt * 16 + lane / 4 + 8 * h;
				int col = n0 + wn0 + nt * 8 + (lane % 4) * 2;
				if (row >= M)
					continue;
#pragma unroll
				for (int e = 0; e < 2; ++e) {
					if (col + e >= K)
						continue;
					long long i = (long long)row * K + col + e;
					float v = acc[mt][nt][2 * h + e];
					if (SPLIT_K > 1)
						Pw[i] = v;
					else
						Y[i] = epilogue(v, bias, Res, i, col + e, epi);
				}
			}
#else
	const int lr = lane / 4, lc = lane % 4;
#pragma unroll
	for (int i = 0; i < TM; ++i)
#pragma unroll
		for (int j = 0; j < TN; ++j) {
			int row = m0 + wm0 + lr + 8 * i, col = n0 + wn0 + lc + 4 * j;
			if (row >= M || col >= K)
				continue;
			long long o = (long long)row * K + col;
			if (SPLIT_K > 1)
				Pw[o] = acc[i][j];
			else
				Y[o] = epilogue(acc[i][j], bias, Res, o, col, epi);
		}
#endif
}

/* Sum the SPLIT_K partials of each output in a fixed order, then the epilogue. */
extern "C" __global__ void __launch_bounds__(256)
	conv_splitk_reduce(const float *__restrict__ ws, const elem_t *__restrict__ bias,
			   const elem_t *__restrict__ Res, elem_t *__restrict__ Y, int M, int K, int epi)
{
	long long i = (long long)blockIdx.x * 256 + threadIdx.x, mk = (long long)M * K;
	if (i >= mk)
		return;
	float s = 0.0f;
#pragma unroll
	for (int z = 0; z < SPLIT_K; ++z)
		s += ws[z * mk + i];
	Y[i] = epilogue(s, bias, Res, i, (int)(i % K), epi);
}

/* The epilogue alone, in place, after a vendor convolution. */
extern "C" __global__ void __launch_bounds__(256)
	conv_epilogue(elem_t *Y, const elem_t *__restrict__ bias, const elem_t *__restrict__ Res,
		      long long total, int K, int epi)
{
	for (long long i = (long long)blockIdx.x * 256 + threadIdx.x; i < total;
	     i += (long long)gridDim.x * 256)
		Y[i] = epilogue(to_float(Y[i]), bias, Res, i, (int)(i % K), epi);
}
