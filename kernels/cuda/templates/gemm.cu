/* gemm.cu: C[M,N] = A[M,K] x B[N,K]^T ("TN", K contiguous in both operands), NVRTC template.
 *
 * The mma.sync / FFMA kernel is mainloop.cuh's main loop (shared with conv.cu) with A's and
 * B's rows as the operand tiles, and a store of C; the wgmma kernel (WGMMA=1) is this file's
 * own. The headers are spliced in place of their include lines before NVRTC sees the text
 * (kernels/cuda/nvrtc.c), so NVRTC needs no include path, and the tensor-core and copy
 * instructions are inline PTX. One compiled config serves every shape: M, N, K and the
 * leading dimensions are kernel arguments.
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
 *   WGMMA [0]     1: the Hopper path (sm_90a only; float16/bfloat16, or float32 with
 *                 TF32=1): warp-specialized, a producer warpgroup loading with the tensor
 *                 copy engine (TMA) and WARPS / 4 consumer warpgroups on wgmma.mma_async;
 *                 see "the wgmma kernel" below. The backend derives it from the other
 *                 fields (gemm-config.h, cuda_gemm_use_wgmma), as Triton does on Hopper
 * Data type (one of; default float32):
 *   DTYPE_FLOAT16, DTYPE_BFLOAT16  operands and C in 16 bits, fp32 accumulate, tensor cores
 *                                  (mma.sync m16n8k16, ldmatrix), sm_80 or newer
 *   DTYPE_FLOAT32 with TF32=1      tensor cores in TF32 (mma.sync m16n8k8, operands rounded
 *                                  with cvt.rna.tf32.f32; wgmma reads them as stored), fp32
 *                                  accumulate, C stored rounded to TF32 (dtype.cuh), sm_80
 *                                  or newer
 *   DTYPE_FLOAT32 (TF32 unset/0)   plain FFMA on the CUDA cores, fp32 throughout
 *
 * Kernels and launch (the backend's contract):
 *   gemm(const T *A, const T *B, T *C, float *ws, int M, int N, int K, int lda, int ldb, int ldc)
 *     grid  = (ceil(M / BLOCK_M) * ceil(N / BLOCK_N), 1, SPLIT_K), block = (32 * WARPS)
 *     dynamic shared memory = STAGES * (BLOCK_M + BLOCK_N) * (BLOCK_K + 16 / sizeof(T))
 *                             * sizeof(T) bytes (raise cudaFuncAttributeMaxDynamicSharedMemorySize
 *                             above 48 KiB)
 *   WGMMA=1: gemm(A, B, C, ws, M, N, K, lda, ldb, ldc, tmA, tmB, use_tma), tmA and tmB
 *     const __grid_constant__ tensor maps (CUtensorMap, 128 bytes): A as a K x M (B: K x N)
 *     2-D map of the element type (float32 for TF32), box 128 bytes of k x BLOCK_M (B:
 *     BLOCK_N) rows, CU_TENSOR_MAP_SWIZZLE_128B, no interleave, zero OOB fill; used only
 *     when use_tma != 0, which needs A, B 16-byte aligned and lda, ldb multiples of 16
 *     bytes; use_tma = 0 (any maps) takes the cp.async path.  WG_TMA_ONLY=1 (the backend's,
 *     for a shape whose k takes the maps: cuda_gemm_tma_only) leaves that path out of the
 *     module, half its machine code; then use_tma must be 1
 *     grid  = (G, 1, SPLIT_K) for any G >= 1 (block b computes tiles b, b + G, ...; the
 *             backend uses min(tiles, blocks resident at once)), block = (32 * WARPS + 128)
 *     dynamic shared memory = STAGES * (BLOCK_M + BLOCK_N) * BLOCK_K * sizeof(T) + 2048
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
 * Valid configs (checked with static_assert in mainloop.cuh and below; gemm-config.h has
 * the same rules as a C function, cuda_gemm_config_check(), so the backend can reject a
 * config before compiling):
 *   - WARPS in {1, 2, 4, 8, 16}; WARPS_M divides WARPS
 *   - tensor-core dtypes: (BLOCK_M / WARPS_M) % 16 == 0, (BLOCK_N / WARPS_N) % 16 == 0,
 *     BLOCK_K % 16 == 0 (fp16/bf16) or BLOCK_K % 8 == 0 (tf32)
 *   - FFMA: (BLOCK_M / WARPS_M) % 8 == 0, (BLOCK_N / WARPS_N) % 4 == 0, BLOCK_K % 4 == 0
 *   - accumulators per thread, BLOCK_M * BLOCK_N / (32 * WARPS) <= 128 (more spills)
 *   - 2 <= STAGES <= 8, SPLIT_K >= 1, GROUP_M >= 1
 *   - WGMMA=1: target sm_90a, float16/bfloat16 or TF32, BLOCK_K a multiple of 128 bytes
 *     (64, TF32: 32), WARPS 4 or 8 (1 or 2 consumer warpgroups), BLOCK_N in {64, 128, 256},
 *     BLOCK_M = 64 or 128 per consumer warpgroup
 *   - shared memory (formula above) <= the device's opt-in limit per block
 *     (cudaDevAttrMaxSharedMemoryPerBlockOptin: 227 KiB on sm_90, 163 KiB on sm_80,
 *     99 KiB on sm_86/sm_89)
 */

#include "mainloop.cuh"


/* ---- the store of C --------------------------------------------------------------------- */

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

#if defined(DTYPE_FLOAT16) || defined(DTYPE_BFLOAT16) || TF32
/* Store (v0, v1) at C[row][col], C[row][col + 1] (or this split's fp32 partial in P when
 * SPLIT_K > 1), each inside M x N only; pair_c: ldc and C allow one 2-element store. */
static __device__ __forceinline__ void store_pair(elem_t *__restrict__ C, float *__restrict__ P,
						  int row, int col, float v0, float v1, int M, int N,
						  int ldc, bool pair_c)
{
	if (row >= M || col >= N)
		return;
	if (SPLIT_K > 1) {
		float *p = P + (long long)row * N + col;
		if ((N % 2) == 0 && col + 1 < N) {
			*(float2 *)p = make_float2(v0, v1);
		} else {
			p[0] = v0;
			if (col + 1 < N)
				p[1] = v1;
		}
		return;
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

/* The MT x NT accumulator tiles of 16 x 8 in mma.sync's fragment layout (acc_pairs: tile
 * (mt, nt) at row row0 + (mt0 + mt) * RSTEP + rw, column col0 + nt * 8) to C, or to this
 * split's fp32 partial ws[z][M][N] when SPLIT_K > 1: the epilogue of both tensor-core
 * kernels (mma.sync: a warp's tiles, RSTEP 16; wgmma: a warp's 16 rows of each m64 slab,
 * RSTEP 64). */
template <int MT, int NT, int RSTEP>
static __device__ __forceinline__ void store_tiles(const float (&acc)[MT][NT][4],
						   elem_t *__restrict__ C, float *__restrict__ ws,
						   int M, int N, int ldc, int row0, int mt0, int rw,
						   int col0, int lane)
{
	float *P = SPLIT_K > 1 ? ws + (long long)blockIdx.z * M * N : (float *)0;
	const bool pair_c = (ldc % 2) == 0 && ((unsigned long long)C & (2 * sizeof(elem_t) - 1)) == 0;
	acc_pairs<MT, NT, RSTEP>(acc, row0, mt0, rw, col0, lane,
				 [&](int row, int col, float v0, float v1) {
					 store_pair(C, P, row, col, v0, v1, M, N, ldc, pair_c);
				 });
}
#endif

#if !WGMMA
/* ---- the mma.sync / FFMA kernel: mainloop.cuh's loop over rows of A and B --------------- */

extern "C" __global__ void __launch_bounds__(THREADS)
	gemm(const elem_t *__restrict__ A, const elem_t *__restrict__ B, elem_t *__restrict__ C,
	     float *__restrict__ ws, int M, int N, int K, int lda, int ldb, int ldc)
{
	acc_t acc;
	tile_pos tile;
	mainloop(acc, &tile, M, N, K, [&](const tile_pos &p) {
		const bool vec = (lda % EPC) == 0 && (ldb % EPC) == 0 &&
				 (((unsigned long long)A | (unsigned long long)B) & 15) == 0;
		return [=](elem_t *a, elem_t *b, int k0) {
			load_tile<BLOCK_M>(a, A, lda, M, p.m0, K, k0, vec);
			load_tile<BLOCK_N>(b, B, ldb, N, p.n0, K, k0, vec);
		};
	});

	/* epilogue: C directly, or this split's fp32 partial into ws[z][M][N] */
#if USE_MMA
	const int tid = threadIdx.x;
	store_tiles<MMA_M, MMA_N, 16>(acc, C, ws, M, N, ldc, tile.m0 + warp_m0(), 0, 0,
				      tile.n0 + warp_n0(), tid % 32);
#else
	float *P = SPLIT_K > 1 ? ws + (long long)blockIdx.z * M * N : (float *)0;
	acc_each(acc, tile.m0, tile.n0, M, N, [&](int row, int col, float v) {
		if (SPLIT_K > 1)
			P[(long long)row * N + col] = v;
		else
			C[(long long)row * ldc + col] = v;
	});
#endif
}

#else /* WGMMA */

/* ---- the wgmma kernel (WGMMA=1, sm_90a): wgmma.cuh's body over rows of A and B ---------- */

#include "wgmma.cuh"

extern "C" __global__ void __launch_bounds__(THREADS_WG, WG_MIN_BLOCKS)
	gemm(const elem_t *__restrict__ A, const elem_t *__restrict__ B, elem_t *__restrict__ C,
	     float *__restrict__ ws, int M, int N, int K, int lda, int ldb, int ldc,
	     const __grid_constant__ tmap_t tmA, const __grid_constant__ tmap_t tmB, int use_tma)
{
	const bool vec = (lda % EPC) == 0 && (ldb % EPC) == 0 &&
			 (((unsigned long long)A | (unsigned long long)B) & 15) == 0;
	wgmma_body(
		M, N, K, &tmA, &tmB, nullptr, use_tma, STAGES, nullptr, nullptr,
		[&](const tile_pos &p, int k, int row) {
			const int m = p.m0 + row;
			return [&tmA, m, k](unsigned dst, unsigned bar, unsigned short mask) mutable {
				if (mask)
					tma_load_mc(dst, &tmA, k, m, bar, mask);
				else
					tma_load(dst, &tmA, k, m, bar);
				k += AW;
			};
		},
		[&](const tile_pos &p, int ltid) {
			return [=](unsigned a, unsigned b, int k0, bool) {
				load_tile_sw<BLOCK_M>(a, A, lda, M, p.m0, K, k0, vec, ltid);
				load_tile_sw<BLOCK_N>(b, B, ldb, N, p.n0, K, k0, vec, ltid);
			};
		},
		[](const tile_pos &) { return 0; },
		[&](const wg_acc_t &acc, const tile_pos &p, int cw, unsigned, unsigned, int) {
			float *P = SPLIT_K > 1 ? ws + (long long)blockIdx.z * M * N : (float *)0;
			const bool pair_c = (ldc % 2) == 0 &&
					    ((unsigned long long)C & (2 * sizeof(elem_t) - 1)) == 0;
			wg_acc_pairs(acc, p.m0, p.n0, cw, [&](int row, int col, float v0, float v1) {
				store_pair(C, P, row, col, v0, v1, M, N, ldc, pair_c);
			});
		});
}
#endif /* WGMMA */

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
