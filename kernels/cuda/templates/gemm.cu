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
 *                                  with cvt.rna.tf32.f32), fp32 accumulate, sm_80 or newer
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
 *     bytes; use_tma = 0 (any maps) takes the cp.async path
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

#if WGMMA
#if !defined(DTYPE_FLOAT16) && !defined(DTYPE_BFLOAT16) && !TF32
#error "WGMMA=1 needs DTYPE_FLOAT16, DTYPE_BFLOAT16 or DTYPE_FLOAT32 with TF32=1"
#endif
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "WGMMA=1 needs the sm_90a target"
#endif
static_assert(BLOCK_K % (128 / (int)sizeof(elem_t)) == 0,
	      "WGMMA: BLOCK_K must be a multiple of 128 bytes of elements (swizzle atoms)");
static_assert(WARPS == 4 || WARPS == 8, "WGMMA: WARPS must be 4 or 8 (1 or 2 warpgroups)");
static_assert(BLOCK_N == 64 || BLOCK_N == 128 || BLOCK_N == 256, "WGMMA: BLOCK_N 64, 128, 256");
static_assert(BLOCK_M % (64 * (WARPS / 4)) == 0 && BLOCK_M / (64 * (WARPS / 4)) <= 2,
	      "WGMMA: BLOCK_M must be 64 or 128 per warpgroup");
#endif

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

/* ---- the wgmma kernel (WGMMA=1, sm_90a) ------------------------------------------------
 * Warp-specialized: warpgroup 0 is the producer, warpgroups 1..NC the consumers. Consumer
 * warpgroup g owns rows [g * BLOCK_M / NC, (g + 1) * BLOCK_M / NC) of the tile as MW m64
 * slabs, each times the whole BLOCK_N: one wgmma.m64nBLOCK_Nk16 (TF32: k8) per slab and k
 * step, A and B straight from shared memory. Tiles are stored K-major with the 128-byte
 * swizzle (16-byte chunk c of row r at r * 128 + ((c ^ (r % 8)) * 16), 1024-byte aligned
 * atoms of 128 bytes of k x the tile's rows, BLOCK_K / AW atoms a stage); the k-th step
 * starts in atom k / 4, 32 * (k % 4) bytes in.
 * TMA path (use_tma): one producer thread issues cp.async.bulk.tensor copies into stage
 * it % STAGES once its "empty" mbarrier says the consumers released it, announcing the
 * bytes on the stage's "full" mbarrier; consumers wait on "full", multiply, keep one wgmma
 * group in flight (wait_group 1) and release the previous stage (one arrival per consumer
 * warp). Blocks loop over tiles (persistent grid) with it counting k-tiles across them, so
 * the next tile's first loads overlap this tile's epilogue.
 * cp.async path (!use_tma: unaligned strides or pointers): the consumers load the stages
 * themselves (predicated cp.async or element loads), made visible to the tensor cores with
 * fence.proxy.async and synchronized on named barrier 1; the producer idles. */
#define ES ((int)sizeof(elem_t))       /* element bytes: 2, or 4 for tf32 */
#define AW (128 / ES)                 /* elements across one 128-byte swizzle atom */
#define NC (WARPS / 4)              /* consumer warpgroups */
#define MW (BLOCK_M / (64 * NC))      /* m64 slabs per consumer warpgroup */
#define CTHREADS (32 * WARPS)         /* consumer threads */
#define THREADS_WG (32 * WARPS + 128) /* + the producer warpgroup */
/* the cp.async fallback: tiles loaded DIST ahead, WAITN wgmma groups left in flight */
#define WAITN (STAGES >= 3 ? 1 : 0)
#define DIST (STAGES - 1 - WAITN)

static __device__ __forceinline__ unsigned long long wgmma_desc(unsigned addr)
{
	unsigned long long d = (unsigned long long)((addr & 0x3ffff) >> 4);
	d |= 1ull << 16;                 /* leading byte offset: unused for swizzled K-major */
	d |= (unsigned long long)(1024 >> 4) << 32; /* stride byte offset: 8 rows x 128 B */
	d |= 1ull << 62;                 /* 128-byte swizzle */
	return d;
}

static __device__ __forceinline__ void wgmma_fence(void)
{
	asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

static __device__ __forceinline__ void wgmma_commit(void)
{
	asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

template <int N> static __device__ __forceinline__ void wgmma_wait(void)
{
	asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

#if defined(DTYPE_FLOAT16)
#if BLOCK_N == 64
static __device__ __forceinline__ void wgmma_n64(float *d, unsigned long long da,
						 unsigned long long db, int scale_d)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
		     "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
		     : "l"(da), "l"(db), "r"(scale_d)
		     : "memory");
}
#endif
#if BLOCK_N == 128
static __device__ __forceinline__ void wgmma_n128(float *d, unsigned long long da,
						 unsigned long long db, int scale_d)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
		     "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
		     : "l"(da), "l"(db), "r"(scale_d)
		     : "memory");
}
#endif
#if BLOCK_N == 256
static __device__ __forceinline__ void wgmma_n256(float *d, unsigned long long da,
						 unsigned long long db, int scale_d)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
		     "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1, 0, 0;\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
		     : "l"(da), "l"(db), "r"(scale_d)
		     : "memory");
}
#endif
#elif defined(DTYPE_BFLOAT16)
#if BLOCK_N == 64
static __device__ __forceinline__ void wgmma_n64(float *d, unsigned long long da,
						 unsigned long long db, int scale_d)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
		     "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
		     : "l"(da), "l"(db), "r"(scale_d)
		     : "memory");
}
#endif
#if BLOCK_N == 128
static __device__ __forceinline__ void wgmma_n128(float *d, unsigned long long da,
						 unsigned long long db, int scale_d)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
		     "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
		     : "l"(da), "l"(db), "r"(scale_d)
		     : "memory");
}
#endif
#if BLOCK_N == 256
static __device__ __forceinline__ void wgmma_n256(float *d, unsigned long long da,
						 unsigned long long db, int scale_d)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
		     "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1, 0, 0;\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
		     : "l"(da), "l"(db), "r"(scale_d)
		     : "memory");
}
#endif
#else /* TF32 */
#if BLOCK_N == 64
static __device__ __forceinline__ void wgmma_n64(float *d, unsigned long long da,
						 unsigned long long db, int scale_d)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
		     "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1;\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
		     : "l"(da), "l"(db), "r"(scale_d)
		     : "memory");
}
#endif
#if BLOCK_N == 128
static __device__ __forceinline__ void wgmma_n128(float *d, unsigned long long da,
						 unsigned long long db, int scale_d)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
		     "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1;\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
		     : "l"(da), "l"(db), "r"(scale_d)
		     : "memory");
}
#endif
#if BLOCK_N == 256
static __device__ __forceinline__ void wgmma_n256(float *d, unsigned long long da,
						 unsigned long long db, int scale_d)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
		     "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1;\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
		     : "l"(da), "l"(db), "r"(scale_d)
		     : "memory");
}
#endif
#endif

static __device__ __forceinline__ void wgmma_tile(float *d, unsigned long long da,
						  unsigned long long db)
{
#if BLOCK_N == 64
	wgmma_n64(d, da, db, 1);
#elif BLOCK_N == 128
	wgmma_n128(d, da, db, 1);
#else
	wgmma_n256(d, da, db, 1);
#endif
}

/* Rows [row0, row0 + ROWS) x [k0, k0 + BLOCK_K) of G into the swizzled tile at shared
 * address s: BLOCK_K / AW atoms of ROWS x 128 bytes, one after the other; 16-byte chunk c
 * of row r of an atom at r * 128 + ((c ^ (r % 8)) * 16). */
template <int ROWS>
static __device__ __forceinline__ void load_tile_sw(unsigned s, const elem_t *__restrict__ G,
						    int ld, int R, int row0, int K, int k0, bool vec,
						    int tid)
{
	constexpr int CH = ROWS * (BLOCK_K / EPC);
#pragma unroll
	for (int i = 0; i < (CH + CTHREADS - 1) / CTHREADS; ++i) {
		int c = tid + i * CTHREADS;
		if (CH % CTHREADS != 0 && c >= CH)
			break;
		int a = c / (ROWS * 8), r = (c / 8) % ROWS, cc = c % 8;
		int gr = row0 + r, gk = k0 + a * AW + cc * EPC;
		unsigned dst = s + a * ROWS * 128 + r * 128 + ((cc ^ (r & 7)) << 4);
		if (vec) {
			int valid = gr < R ? K - gk : 0;
			valid = valid < 0 ? 0 : (valid > EPC ? EPC : valid);
			const elem_t *src = valid > 0 ? G + (long long)gr * ld + gk : G;
			cp_async16(dst, src, valid * ES);
		} else {
			union {
				elem_t e[EPC];
				unsigned w[4];
			} t;
#pragma unroll
			for (int e = 0; e < EPC; ++e)
				t.e[e] = (gr < R && gk + e < K) ? G[(long long)gr * ld + gk + e]
								: (elem_t)0;
			asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst),
				     "r"(t.w[0]), "r"(t.w[1]), "r"(t.w[2]), "r"(t.w[3]));
		}
	}
}

/* ---- mbarriers and the tensor copy engine (TMA) ---------------------------------------- */

/* The driver's CUtensorMap, opaque: 128 bytes, 64-byte aligned (cuda.h is not available to
 * NVRTC). Built on the host with cuTensorMapEncodeTiled and passed by value. */
struct __align__(64) tmap_t {
	unsigned long long opaque[16];
};

static __device__ __forceinline__ void mbar_init(unsigned bar, unsigned count)
{
	asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count));
}

static __device__ __forceinline__ void mbar_expect_tx(unsigned bar, unsigned bytes)
{
	asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar),
		     "r"(bytes)
		     : "memory");
}

static __device__ __forceinline__ void mbar_arrive(unsigned bar)
{
	asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

static __device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity)
{
	asm volatile("{\n.reg .pred done;\nWAIT_%=:\n"
		     "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
		     "@!done bra WAIT_%=;\n}\n" ::"r"(bar),
		     "r"(parity)
		     : "memory");
}

/* Box (x = k, y = row) of the tensor map into shared address dst, completing on bar. */
static __device__ __forceinline__ void tma_load(unsigned dst, const tmap_t *map, int x, int y,
						unsigned bar)
{
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
		     " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
		     "l"((unsigned long long)map), "r"(x), "r"(y), "r"(bar)
		     : "memory");
}

/* Register budgets of the roles (setmaxnreg, sm_90a): with two consumer warpgroups the
 * launch cap is 168 a thread (384 threads, one block per SM); the producer gives back to
 * 40 and the consumers take 232 (40 * 128 + 232 * 256 <= 65536). With one consumer
 * warpgroup (256 threads) the cap is already 255: no reallocation. */
#if NC == 2
#define REG_PRODUCER 40
#define REG_CONSUMER 232
#endif

#define TILE_BYTES ((BLOCK_M + BLOCK_N) * BLOCK_K * ES) /* one stage, both operands */

#if TF32
/* TF32: the tensor cores read a float32's top 19 bits (truncation, relative error up to
 * 2^-10 a product, biased). Round every element of the stage at shared tA / tB to TF32
 * in place (cvt.rna, as the mma.sync path does), then make the writes visible to the
 * tensor cores and wait for every consumer: wgmma reads rounded operands. */
static __device__ __forceinline__ void tf32_round_stage(unsigned tA, unsigned tB)
{
	constexpr int NA = BLOCK_M * BLOCK_K / 4, N4 = (BLOCK_M + BLOCK_N) * BLOCK_K / 4;
	const int ctid = threadIdx.x - 128;
#pragma unroll 4
	for (int i = ctid; i < N4; i += CTHREADS) {
		unsigned a = i < NA ? tA + 16 * i : tB + 16 * (i - NA), v[4];
		asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
			     : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3])
			     : "r"(a));
#pragma unroll
		for (int j = 0; j < 4; ++j)
			asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(v[j]) : "f"(__uint_as_float(v[j])));
		asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"r"(a), "r"(v[0]),
			     "r"(v[1]), "r"(v[2]), "r"(v[3])
			     : "memory");
	}
	asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
	asm volatile("bar.sync 1, %0;\n" ::"n"(CTHREADS) : "memory");
}
#define TF32_ROUND_STAGE(tA, tB) tf32_round_stage((tA), (tB))
#else
#define TF32_ROUND_STAGE(tA, tB) ((void)0)
#endif

/* One k-tile (stage at shared tA / tB) into the accumulators of consumer warpgroup cw. */
static __device__ __forceinline__ void mma_stage(float (*acc)[BLOCK_N / 2], unsigned tA,
						 unsigned tB, int cw)
{
	wgmma_fence();
#pragma unroll
	for (int k = 0; k < BLOCK_K / KSTEP; ++k) /* KSTEP * ES = 32 bytes, 4 per atom */
#pragma unroll
		for (int i = 0; i < MW; ++i)
			wgmma_tile(acc[i],
				   wgmma_desc(tA + (k / 4) * BLOCK_M * 128 +
					      (cw * MW + i) * 64 * 128 + (k % 4) * 32),
				   wgmma_desc(tB + (k / 4) * BLOCK_N * 128 + (k % 4) * 32));
	wgmma_commit();
}

/* The accumulators of consumer warpgroup cw to C (or this split's fp32 partial): MW slabs
 * of m64 x BLOCK_N, warp w of the group holding rows 16 w + [0, 16) of each as BLOCK_N / 8
 * tiles of 16 x 8 in mma.sync's fragment layout, so store_tiles is the epilogue here too. */
static __device__ __forceinline__ void store_acc(float (*acc)[BLOCK_N / 2], elem_t *__restrict__ C,
						 float *__restrict__ ws, int M, int N, int ldc,
						 int m0, int n0, int cw)
{
	const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
	store_tiles<MW, BLOCK_N / 8, 64>(*(const float(*)[MW][BLOCK_N / 8][4])acc, C, ws, M, N,
					 ldc, m0, cw * MW, warp * 16, n0, lane);
}

/* Consumer warpgroup cw on the TMA path, for each of its tiles: wait for a stage's tensor
 * copies (full barrier), multiply, and once the stage's wgmma group has retired release it
 * (empty barrier, one arrival per consumer warp); then the epilogue, while the producer
 * already loads the next tile's first stages. it counts k-tiles over all tiles of the block:
 * stage it % STAGES, phase (it / STAGES) & 1. */
static __device__ __forceinline__ void consumer_tma(elem_t *__restrict__ C, float *__restrict__ ws,
						    int M, int N, int K, int ldc, int ntiles,
						    unsigned sA, unsigned sB, unsigned bars, int cw)
{
	const int lane = threadIdx.x % 32;
	unsigned it = 0;
	for (int t = blockIdx.x; t < ntiles; t += gridDim.x) {
		const tile_pos p = tile_at(t, M, N, K);
		float acc[MW][BLOCK_N / 2];
#pragma unroll
		for (int i = 0; i < MW; ++i)
#pragma unroll
			for (int j = 0; j < BLOCK_N / 2; ++j)
				acc[i][j] = 0.0f;
		for (int kt = 0; kt < p.nkt; ++kt, ++it) {
			const int s = it % STAGES;
			mbar_wait(bars + 8 * s, (it / STAGES) & 1);
			TF32_ROUND_STAGE(sA + s * BLOCK_M * BLOCK_K * ES,
					 sB + s * BLOCK_N * BLOCK_K * ES);
			mma_stage(acc, sA + s * BLOCK_M * BLOCK_K * ES,
				  sB + s * BLOCK_N * BLOCK_K * ES, cw);
			wgmma_wait<1>(); /* the group of k-tile it - 1 retired: free its stage */
			if (kt > 0 && lane == 0)
				mbar_arrive(bars + 8 * (STAGES + (it - 1) % STAGES));
		}
		wgmma_wait<0>();
		if (p.nkt > 0 && lane == 0)
			mbar_arrive(bars + 8 * (STAGES + (it - 1) % STAGES));
		store_acc(acc, C, ws, M, N, ldc, p.m0, p.n0, cw);
	}
}

/* Consumer warpgroup cw when the operands do not allow tensor maps (a stride or pointer not
 * 16-byte aligned): cp.async (or element loads) by the consumer threads, synchronized among
 * themselves on named barrier 1. */
static __device__ __forceinline__ void consumer_cpasync(const elem_t *__restrict__ A,
							const elem_t *__restrict__ B,
							elem_t *__restrict__ C, float *__restrict__ ws,
							int M, int N, int K, int lda, int ldb,
							int ldc, int ntiles, unsigned sA, unsigned sB,
							int cw)
{
	const int ctid = threadIdx.x - 128;
	const bool vec = (lda % EPC) == 0 && (ldb % EPC) == 0 &&
			 (((unsigned long long)A | (unsigned long long)B) & 15) == 0;
	for (int t = blockIdx.x; t < ntiles; t += gridDim.x) {
		const tile_pos p = tile_at(t, M, N, K);
		float acc[MW][BLOCK_N / 2];
#pragma unroll
		for (int i = 0; i < MW; ++i)
#pragma unroll
			for (int j = 0; j < BLOCK_N / 2; ++j)
				acc[i][j] = 0.0f;
		/* every warpgroup is done with the last tile's stages */
		asm volatile("bar.sync 1, %0;\n" ::"n"(CTHREADS) : "memory");
#pragma unroll
		for (int s = 0; s < DIST; ++s) {
			if (s < p.nkt) {
				int k0 = (p.kt0 + s) * BLOCK_K;
				load_tile_sw<BLOCK_M>(sA + s * BLOCK_M * BLOCK_K * ES, A, lda, M, p.m0,
						      K, k0, vec, ctid);
				load_tile_sw<BLOCK_N>(sB + s * BLOCK_N * BLOCK_K * ES, B, ldb, N, p.n0,
						      K, k0, vec, ctid);
			}
			cp_async_commit();
		}
		for (int kt = 0; kt < p.nkt; ++kt) {
			cp_async_wait<DIST - 1>();
			asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
			/* tile kt landed for every consumer, and the wgmma group that read the
			 * stage about to be refilled has retired in every warpgroup */
			asm volatile("bar.sync 1, %0;\n" ::"n"(CTHREADS) : "memory");
			const int s = kt % STAGES;
			TF32_ROUND_STAGE(sA + s * BLOCK_M * BLOCK_K * ES,
					 sB + s * BLOCK_N * BLOCK_K * ES);
			mma_stage(acc, sA + s * BLOCK_M * BLOCK_K * ES,
				  sB + s * BLOCK_N * BLOCK_K * ES, cw);
			{
				int nt = kt + DIST, ns = nt % STAGES;
				if (nt < p.nkt) {
					int k0 = (p.kt0 + nt) * BLOCK_K;
					load_tile_sw<BLOCK_M>(sA + ns * BLOCK_M * BLOCK_K * ES, A, lda,
							      M, p.m0, K, k0, vec, ctid);
					load_tile_sw<BLOCK_N>(sB + ns * BLOCK_N * BLOCK_K * ES, B, ldb,
							      N, p.n0, K, k0, vec, ctid);
				}
				cp_async_commit();
			}
			wgmma_wait<WAITN>();
		}
		wgmma_wait<0>();
		cp_async_wait<0>();
		store_acc(acc, C, ws, M, N, ldc, p.m0, p.n0, cw);
	}
}

/* grid.x = any number of blocks up to the tile count (the backend: one per SM times the
 * blocks that fit, "persistent"); block b does tiles b, b + grid.x, ... */
extern "C" __global__ void __launch_bounds__(THREADS_WG, 1)
	gemm(const elem_t *__restrict__ A, const elem_t *__restrict__ B, elem_t *__restrict__ C,
	     float *__restrict__ ws, int M, int N, int K, int lda, int ldb, int ldc,
	     const __grid_constant__ tmap_t tmA, const __grid_constant__ tmap_t tmB, int use_tma)
{
	extern __shared__ __align__(16) unsigned char smem_raw[];
	const unsigned base = (smem_u32(smem_raw) + 1023) & ~1023u;
	const unsigned sA = base, sB = base + STAGES * BLOCK_M * BLOCK_K * ES;
	const unsigned bars = base + STAGES * TILE_BYTES; /* full[STAGES], empty[STAGES] */
	const int tid = threadIdx.x, wg = tid / 128;
	const int ntiles = ((M + BLOCK_M - 1) / BLOCK_M) * ((N + BLOCK_N - 1) / BLOCK_N);

	if (use_tma && tid == 0) {
		asm volatile("prefetch.tensormap [%0];\n" ::"l"((unsigned long long)&tmA)
			     : "memory");
		asm volatile("prefetch.tensormap [%0];\n" ::"l"((unsigned long long)&tmB)
			     : "memory");
		for (int s = 0; s < STAGES; ++s) {
			mbar_init(bars + 8 * s, 1);
			mbar_init(bars + 8 * (STAGES + s), 4 * NC);
		}
		asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
		asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
	}
	__syncthreads();

	if (wg == 0) {
		/* ---- the producer warpgroup: one thread issues every tensor copy ---- */
#ifdef REG_PRODUCER
		asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REG_PRODUCER));
#endif
		if (use_tma && tid == 0) {
			unsigned it = 0;
			for (int t = blockIdx.x; t < ntiles; t += gridDim.x) {
				const tile_pos p = tile_at(t, M, N, K);
				for (int kt = 0; kt < p.nkt; ++kt, ++it) {
					const int s = it % STAGES;
					if (it >= STAGES) /* the consumers released its last use */
						mbar_wait(bars + 8 * (STAGES + s),
							  ((it / STAGES) - 1) & 1);
					const unsigned full = bars + 8 * s;
					mbar_expect_tx(full, TILE_BYTES);
					const int k0 = (p.kt0 + kt) * BLOCK_K;
#pragma unroll
					for (int a = 0; a < BLOCK_K / AW; ++a) {
						tma_load(sA + s * BLOCK_M * BLOCK_K * ES +
								 a * BLOCK_M * 128,
							 &tmA, k0 + a * AW, p.m0, full);
						tma_load(sB + s * BLOCK_N * BLOCK_K * ES +
								 a * BLOCK_N * 128,
							 &tmB, k0 + a * AW, p.n0, full);
					}
				}
			}
		}
	} else {
		/* ---- the consumer warpgroups ---- */
#ifdef REG_CONSUMER
		asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REG_CONSUMER));
#endif
		const int cw = wg - 1;
		if (use_tma)
			consumer_tma(C, ws, M, N, K, ldc, ntiles, sA, sB, bars, cw);
		else
			consumer_cpasync(A, B, C, ws, M, N, K, lda, ldb, ldc, ntiles, sA, sB, cw);
	}
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
