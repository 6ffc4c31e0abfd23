/* gemm.cu: C[M,N] = A[M,K] x B[N,K]^T ("TN", K contiguous in both operands), NVRTC template.
 *
 * Self-contained: no #include at all, so NVRTC needs no include path (every helper below is
 * declared here, the tensor-core and copy instructions as inline PTX). One compiled config
 * serves every shape: M, N, K and the leading dimensions are kernel arguments.
 *
 * Config fields (-D macros, Triton's vocabulary; defaults in brackets):
 *   BLOCK_M [128], BLOCK_N [128], BLOCK_K [32]  the tile of C one block computes, and its k step
 *   WARPS [4]     warps per block (1, 2, 4, 8 or 16); threads = 32 * WARPS
 *   STAGES [3]    shared-memory pipeline depth (cp.async multi-stage), 2..8
 *   SPLIT_K [1]   K is cut into SPLIT_K ranges (grid z); see "split-K" below
 *   GROUP_M [8]   Triton's grouped ordering: GROUP_M rows of tiles are walked column by column
 *                 so that consecutive blocks share A and B panels in L2
 *   WARPS_M       optional: warps along M (WARPS_N = WARPS / WARPS_M); default: 1x1, 2x1 or
 *                 1x2, 2x2, 4x2 or 2x4, 4x4 (the longer side of the tile gets more warps)
 * Data type (one of; default float32):
 *   DTYPE_FLOAT16, DTYPE_BFLOAT16  operands and C in 16 bits, fp32 accumulate, tensor cores
 *                                  (mma.sync m16n8k16, ldmatrix), sm_80 or newer
 *   DTYPE_FLOAT32 with TF32=1      tensor cores in TF32 (mma.sync m16n8k8, operands rounded
 *                                  with cvt.rna.tf32.f32), fp32 accumulate, sm_80 or newer
 *   DTYPE_FLOAT32 (TF32 unset/0)   plain FFMA on the CUDA cores, fp32 throughout
 *
 * Kernels and launch (the backend's contract):
 *   gemm(const T *A, const T *B, T *C, float *ws, int M, int N, int K, int lda, int ldb, int ldc)
 *     grid  = (ceil(M / BLOCK_M) * ceil(N / BLOCK_N), 1, SPLIT_K), block = (32 * WARPS)
 *     dynamic shared memory = STAGES * (BLOCK_M + BLOCK_N) * (BLOCK_K + 16 / sizeof(T))
 *                             * sizeof(T) bytes (raise cudaFuncAttributeMaxDynamicSharedMemorySize
 *                             above 48 KiB)
 *     A[m * lda + k], B[n * ldb + k], C[m * ldc + n]; lda >= K, ldb >= K, ldc >= N.
 *     ws: unused (may be NULL) when SPLIT_K == 1; else SPLIT_K * M * N floats, and
 *     gemm_splitk_reduce must run after gemm on the same stream.
 *   gemm_splitk_reduce(const float *ws, T *C, int M, int N, int ldc)
 *     grid = ceil(M * N / 256), block = 256, no shared memory.
 *
 * Split-K: block (tile, z) multiplies the z-th run of ceil(ceil(K / BLOCK_K) / SPLIT_K)
 * k-tiles and writes its fp32 partial tile to ws[z][M][N]; gemm_splitk_reduce sums the
 * SPLIT_K partials in order z = 0, 1, ... and rounds once to T. No atomics: the result is
 * bitwise deterministic from run to run, and the same for every dtype.
 *
 * Ragged shapes: every global load is predicated and zero-filled (rows past M or N, columns
 * past K), every store bounds-checked. When lda, ldb and the pointers allow 16-byte loads
 * (lda % (16 / sizeof(T)) == 0, same for ldb, A and B 16-byte aligned) tiles come in with
 * cp.async (16 bytes, src-size clipped at K); otherwise (e.g. K = lda = 1001) the same tiles
 * are filled by element loads, slower but right. The choice is made per launch, at run time.
 *
 * Valid configs (checked below with static_assert; gemm-config.h has the same rules as a C
 * function, cuda_gemm_config_check(), so the backend can reject a config before compiling):
 *   - WARPS in {1, 2, 4, 8, 16}; WARPS_M divides WARPS
 *   - tensor-core dtypes: (BLOCK_M / WARPS_M) % 16 == 0, (BLOCK_N / WARPS_N) % 16 == 0,
 *     BLOCK_K % 16 == 0 (fp16/bf16) or BLOCK_K % 8 == 0 (tf32)
 *   - FFMA: (BLOCK_M / WARPS_M) % 8 == 0, (BLOCK_N / WARPS_N) % 4 == 0, BLOCK_K % 4 == 0
 *   - accumulators per thread, BLOCK_M * BLOCK_N / (32 * WARPS) <= 128 (more spills)
 *   - 2 <= STAGES <= 8, SPLIT_K >= 1, GROUP_M >= 1
 *   - shared memory (formula above) <= the device's opt-in limit per block
 *     (cudaDevAttrMaxSharedMemoryPerBlockOptin: 227 KiB on sm_90, 163 KiB on sm_80,
 *     99 KiB on sm_86/sm_89)
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

static_assert(WARPS == 1 || WARPS == 2 || WARPS == 4 || WARPS == 8 || WARPS == 16,
	      "WARPS must be 1, 2, 4, 8 or 16");
static_assert(WARPS % WARPS_M == 0, "WARPS_M must divide WARPS");
static_assert(STAGES >= 2 && STAGES <= 8, "STAGES must be 2..8");
static_assert(SPLIT_K >= 1 && GROUP_M >= 1, "SPLIT_K and GROUP_M must be >= 1");
static_assert(BLOCK_K % EPC == 0, "BLOCK_K must be a multiple of 16 bytes of elements");
static_assert(BLOCK_K % KSTEP == 0, "BLOCK_K must be a multiple of the mma k (16, tf32: 8)");
#if USE_MMA
static_assert(WM % 16 == 0 && WN % 16 == 0, "warp tile must be a multiple of 16x16");
#else
static_assert(WM % 8 == 0 && WN % 4 == 0, "FFMA warp tile must be a multiple of 8x4");
#endif
static_assert(BLOCK_M * BLOCK_N / THREADS <= 128, "more than 128 accumulators per thread");

/* ---- helpers: conversions, shared addresses, copies, tensor-core instructions ---------- */

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

#if defined(DTYPE_FLOAT16) || defined(DTYPE_BFLOAT16)
/* Two floats as the 32-bit pair (lo at the lower address) of 16-bit elements. */
static __device__ __forceinline__ unsigned pack2(float lo, float hi)
{
	unsigned r;
#if defined(DTYPE_FLOAT16)
	asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
#else
	asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
#endif
	return r;
}
#endif

static __device__ __forceinline__ unsigned smem_u32(const void *p)
{
	unsigned r;
	asm("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }" : "=r"(r) : "l"(p));
	return r;
}

/* 16-byte asynchronous copy; bytes < 16 reads only that many and zero-fills the rest. */
static __device__ __forceinline__ void cp_async16(unsigned dst, const void *src, int bytes)
{
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
		     "r"(bytes));
}

static __device__ __forceinline__ void cp_async_commit(void)
{
	asm volatile("cp.async.commit_group;\n" ::);
}

template <int N> static __device__ __forceinline__ void cp_async_wait(void)
{
	asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
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

/* d += a * b on one 16 x 8 tile (k = 16 for 16-bit types, 8 for tf32). */
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

/* Copy rows [row0, row0 + ROWS) x columns [k0, k0 + BLOCK_K) of G (rows < R, columns < K,
 * leading dimension ld) into the shared tile s (row stride SROW), zeros outside. */
template <int ROWS>
static __device__ __forceinline__ void load_tile(elem_t *s, const elem_t *__restrict__ G, int ld,
						 int R, int row0, int K, int k0, bool vec)
{
	constexpr int CPR = BLOCK_K / EPC; /* 16-byte chunks per row */
	constexpr int CH = ROWS * CPR;
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
			int valid = gr < R ? K - gk : 0;
			valid = valid < 0 ? 0 : (valid > EPC ? EPC : valid);
			const elem_t *src = valid > 0 ? G + (long long)gr * ld + gk : G;
			cp_async16(smem_u32(dst), src, valid * (int)sizeof(elem_t));
		} else {
			union {
				elem_t e[EPC];
				uint4 v;
			} t;
#pragma unroll
			for (int e = 0; e < EPC; ++e)
				t.e[e] = (gr < R && gk + e < K) ? G[(long long)gr * ld + gk + e]
								: (elem_t)0;
			*(uint4 *)dst = t.v;
		}
	}
}

/* ---- the kernel ------------------------------------------------------------------------ */

extern "C" __global__ void __launch_bounds__(THREADS)
	gemm(const elem_t *__restrict__ A, const elem_t *__restrict__ B, elem_t *__restrict__ C,
	     float *__restrict__ ws, int M, int N, int K, int lda, int ldb, int ldc)
{
	extern __shared__ __align__(16) unsigned char smem[];
	elem_t *sA = (elem_t *)smem;
	elem_t *sB = sA + STAGES * BLOCK_M * SROW;
	const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;

	/* grouped block order (Triton's matmul tutorial) */
	const int grid_m = (M + BLOCK_M - 1) / BLOCK_M, grid_n = (N + BLOCK_N - 1) / BLOCK_N;
	const int pid = blockIdx.x, in_group = GROUP_M * grid_n;
	const int first_m = (pid / in_group) * GROUP_M;
	const int group_m = min(grid_m - first_m, GROUP_M);
	const int pid_m = first_m + (pid % in_group) % group_m;
	const int pid_n = (pid % in_group) / group_m;
	const int m0 = pid_m * BLOCK_M, n0 = pid_n * BLOCK_N;

	/* this split's k-tiles */
	const int kt_all = (K + BLOCK_K - 1) / BLOCK_K;
	const int kt_per = (kt_all + SPLIT_K - 1) / SPLIT_K;
	const int kt0 = blockIdx.z * kt_per;
	const int nkt = max(0, min(kt_all, kt0 + kt_per) - kt0);

	const bool vec = (lda % EPC) == 0 && (ldb % EPC) == 0 &&
			 (((unsigned long long)A | (unsigned long long)B) & 15) == 0;

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

	/* prologue: STAGES - 1 tiles in flight */
#pragma unroll
	for (int s = 0; s < STAGES - 1; ++s) {
		if (s < nkt) {
			int k0 = (kt0 + s) * BLOCK_K;
			load_tile<BLOCK_M>(sA + s * BLOCK_M * SROW, A, lda, M, m0, K, k0, vec);
			load_tile<BLOCK_N>(sB + s * BLOCK_N * SROW, B, ldb, N, n0, K, k0, vec);
		}
		cp_async_commit();
	}

	for (int kt = 0; kt < nkt; ++kt) {
		cp_async_wait<STAGES - 2>();
		__syncthreads(); /* tile kt landed; stage (kt - 1) % STAGES is free */
		{
			int nt = kt + STAGES - 1, s = nt % STAGES;
			if (nt < nkt) {
				int k0 = (kt0 + nt) * BLOCK_K;
				load_tile<BLOCK_M>(sA + s * BLOCK_M * SROW, A, lda, M, m0, K, k0, vec);
				load_tile<BLOCK_N>(sB + s * BLOCK_N * SROW, B, ldb, N, n0, K, k0, vec);
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

	/* epilogue: C directly, or this split's fp32 partial into ws[z][M][N] */
	float *P = SPLIT_K > 1 ? ws + (long long)blockIdx.z * M * N : (float *)0;
#if USE_MMA
	const bool pair_c = (ldc % 2) == 0 && ((unsigned long long)C & (2 * sizeof(elem_t) - 1)) == 0;
	const bool pair_p = (N % 2) == 0;
#pragma unroll
	for (int mt = 0; mt < MT; ++mt)
#pragma unroll
		for (int nt = 0; nt < NT; ++nt)
#pragma unroll
			for (int h = 0; h < 2; ++h) {
				int row = m0 + wm0 + mt * 16 + lane / 4 + 8 * h;
				int col = n0 + wn0 + nt * 8 + (lane % 4) * 2;
				float v0 = acc[mt][nt][2 * h], v1 = acc[mt][nt][2 * h + 1];
				if (row >= M || col >= N)
					continue;
				if (SPLIT_K > 1) {
					float *p = P + (long long)row * N + col;
					if (pair_p && col + 1 < N) {
						*(float2 *)p = make_float2(v0, v1);
					} else {
						p[0] = v0;
						if (col + 1 < N)
							p[1] = v1;
					}
					continue;
				}
				elem_t *c = C + (long long)row * ldc + col;
				if (pair_c && col + 1 < N) {
#if defined(DTYPE_FLOAT16) || defined(DTYPE_BFLOAT16)
					*(unsigned *)c = pack2(v0, v1);
#else
					*(float2 *)c = make_float2(v0, v1);
#endif
				} else {
					c[0] = from_float(v0);
					if (col + 1 < N)
						c[1] = from_float(v1);
				}
			}
#else
	const int lr = lane / 4, lc = lane % 4;
#pragma unroll
	for (int i = 0; i < TM; ++i)
#pragma unroll
		for (int j = 0; j < TN; ++j) {
			int row = m0 + wm0 + lr + 8 * i, col = n0 + wn0 + lc + 4 * j;
			if (row >= M || col >= N)
				continue;
			if (SPLIT_K > 1)
				P[(long long)row * N + col] = acc[i][j];
			else
				C[(long long)row * ldc + col] = acc[i][j];
		}
#endif
}

/* Sum the SPLIT_K fp32 partials of each element in a fixed order and round once to T. */
extern "C" __global__ void __launch_bounds__(256)
	gemm_splitk_reduce(const float *__restrict__ ws, elem_t *__restrict__ C, int M, int N, int ldc)
{
	long long i = (long long)blockIdx.x * 256 + threadIdx.x, mn = (long long)M * N;
	if (i >= mn)
		return;
	float s = 0.0f;
#pragma unroll
	for (int z = 0; z < SPLIT_K; ++z)
		s += ws[z * mn + i];
	C[(i / N) * ldc + i % N] = from_float(s);
}
