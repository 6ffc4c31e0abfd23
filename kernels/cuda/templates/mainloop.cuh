/* mainloop.cuh: the implicit- and explicit-GEMM main loop that gemm.cu (its mma.sync / FFMA
 * kernel) and conv.cu share, and what it stands on: the config fields and their rules, the
 * copy and tensor-core instructions, where a block's tile and k-tiles are, the loader of a
 * "TN" operand tile, the multi-stage cp.async pipeline over the k-tiles with ldmatrix +
 * mma.sync (or FFMA) on each, and the walk over the accumulators for an epilogue.
 * What differs between the two templates is passed in: how a stage's A and B tiles are
 * filled (gemm.cu: rows of A and B with load_tile; conv.cu: A's im2col rows gathered from
 * the image, B = the weights with load_tile) and what the epilogue does with each
 * accumulator.  The Hopper kernel (gemm.cu with WGMMA=1) has its own loop but shares the
 * fields, instructions and tile order.  kernels/cuda/nvrtc.c splices this file (and
 * dtype.cuh, which it includes) in place of the template's include line, so the cubin cache
 * key covers it.
 *
 * Config fields (-D macros, Triton's vocabulary; defaults in brackets; gemm.cu documents them):
 *   BLOCK_M [128], BLOCK_N [128], BLOCK_K [32], WARPS [4], STAGES [3], SPLIT_K [1],
 *   GROUP_M [8], WARPS_M [by WARPS and the tile's shape], TF32 [0], WGMMA [0] (gemm.cu only)
 * Shared memory of the mma.sync / FFMA kernels: STAGES stages of A (BLOCK_M rows) then
 * STAGES stages of B (BLOCK_N rows), rows of SROW = BLOCK_K + 16 bytes' worth of elements
 * (the padding keeps ldmatrix free of bank conflicts): STAGES * (BLOCK_M + BLOCK_N) * SROW *
 * sizeof(elem_t) bytes of dynamic shared memory. */
#ifndef MAINLOOP_CUH
#define MAINLOOP_CUH
#include "dtype.cuh"

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
#ifndef WGMMA
#define WGMMA 0
#endif

#if defined(DTYPE_FLOAT16) || defined(DTYPE_BFLOAT16)
#define USE_MMA 1
#define KSTEP 16
#elif TF32
#define USE_MMA 1
#define KSTEP 8
#else
#define USE_MMA 0
#define KSTEP 1
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
#define CPR (BLOCK_K / EPC)             /* 16-byte chunks per tile row */
#define SROW (BLOCK_K + EPC)            /* padded shared-memory row, in elements */
#define WM (BLOCK_M / WARPS_M)          /* the warp's tile */
#define WN (BLOCK_N / WARPS_N)

static_assert(WARPS == 1 || WARPS == 2 || WARPS == 4 || WARPS == 8 || WARPS == 16 ||
		      (WGMMA && WARPS == 12),
	      "WARPS must be 1, 2, 4, 8 or 16 (12: wgmma's three consumer warpgroups)");
static_assert(WARPS % WARPS_M == 0, "WARPS_M must divide WARPS");
static_assert(STAGES >= 2 && STAGES <= 8, "STAGES must be 2..8");
static_assert(SPLIT_K >= 1 && GROUP_M >= 1, "SPLIT_K and GROUP_M must be >= 1");
static_assert(BLOCK_K % EPC == 0, "BLOCK_K must be a multiple of 16 bytes of elements");
static_assert(BLOCK_K % KSTEP == 0, "BLOCK_K must be a multiple of the mma k (16, tf32: 8)");
#if WGMMA
#elif USE_MMA
static_assert(WM % 16 == 0 && WN % 16 == 0, "warp tile must be a multiple of 16x16");
#else
static_assert(WM % 8 == 0 && WN % 4 == 0, "FFMA warp tile must be a multiple of 8x4");
#endif
static_assert(BLOCK_M * BLOCK_N / THREADS <= 128, "more than 128 accumulators per thread");

/* ---- shared addresses, copies, tensor-core instructions ------------------------------- */

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

#if USE_MMA && !WGMMA
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

/* ---- where a block works: its tile (Triton's grouped order) and its split's k-tiles ---- */

struct tile_pos {
	int m0, n0;   /* the tile's first row and column of the M x N result */
	int kt0, nkt; /* this split's (blockIdx.z) first k-tile and how many */
};

/* Tile t of the M x N result, reduction K: GROUP_M rows of tiles walked column by column so
 * that consecutive blocks share panels of A and B in L2; split z = blockIdx.z gets the z-th
 * run of ceil(ceil(K / BLOCK_K) / SPLIT_K) k-tiles (none past the end).  ncl > 1 (wgmma.cuh's
 * clusters of cm blocks along m by ncl / cm = cn along n): t counts the cluster's tiles of
 * cm BLOCK_M x cn BLOCK_N and the block of cluster rank `rank` takes the tile in its row
 * rank / cn and column rank % cn, past M or N when the tiles' rows or columns are not a
 * multiple of cm or cn: a block that loads its share for its peers and stores nothing of its
 * own. */
static __device__ __forceinline__ tile_pos tile_at(int t, int M, int N, int K, int ncl = 1,
						   int rank = 0, int cm = 1)
{
	const int tm = (M + BLOCK_M - 1) / BLOCK_M, tn = (N + BLOCK_N - 1) / BLOCK_N;
	const int cn = ncl / cm;
	const int grid_m = (tm + cm - 1) / cm, grid_n = (tn + cn - 1) / cn;
	const int in_group = GROUP_M * grid_n;
	const int first_m = (t / in_group) * GROUP_M;
	const int group_m = min(grid_m - first_m, GROUP_M);
	const int pid_m = first_m + (t % in_group) % group_m;
	const int pid_n = (t % in_group) / group_m;
	const int m0 = (pid_m * cm + rank / cn) * BLOCK_M;
	const int n0 = (pid_n * cn + rank % cn) * BLOCK_N;
	const int kt_all = (K + BLOCK_K - 1) / BLOCK_K;
	const int kt_per = (kt_all + SPLIT_K - 1) / SPLIT_K;
	const int kt0 = blockIdx.z * kt_per;
	return tile_pos{ m0, n0, kt0, max(0, min(kt_all, kt0 + kt_per) - kt0) };
}

/* ---- the "TN" operand loader ---------------------------------------------------------- */

/* Rows [row0, row0 + ROWS) x [k0, k0 + BLOCK_K) of G (R rows, K columns, leading dimension
 * ld, K contiguous) into the padded shared tile s, zeros past R and K.  vec: ld and G allow
 * 16-byte loads (one cp.async a chunk, its size clipped at K); else element loads and one
 * 16-byte shared store a chunk. */
template <int ROWS>
static __device__ __forceinline__ void load_tile(elem_t *s, const elem_t *__restrict__ G, int ld,
						 int R, int row0, int K, int k0, bool vec)
{
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

#if !WGMMA
/* ---- the mma.sync / FFMA main loop ---------------------------------------------------- */

/* A thread's accumulators: MMA_M x MMA_N tiles of 16 x 8 (mma.sync's fragment layout: lane
 * l holds rows l / 4 and l / 4 + 8, columns 2 (l % 4) and 2 (l % 4) + 1, in that order), or
 * FFMA_M x FFMA_N single outputs (rows l / 4 + 8 i, columns l % 4 + 4 j), of its warp's tile
 * at (warp_m0(), warp_n0()) in the block's. */
#if USE_MMA
#define MMA_M (WM / 16)
#define MMA_N (WN / 8)
typedef float acc_t[MMA_M][MMA_N][4];
#else
#define FFMA_M (WM / 8)
#define FFMA_N (WN / 4)
typedef float acc_t[FFMA_M][FFMA_N];
#endif

static __device__ __forceinline__ int warp_m0(void)
{
	const int tid = threadIdx.x, warp = tid / 32;
	return (warp / WARPS_N) * WM;
}

static __device__ __forceinline__ int warp_n0(void)
{
	const int tid = threadIdx.x, warp = tid / 32;
	return (warp % WARPS_N) * WN;
}

/* The block's tile of the M x N result (reduction K) and its split's k-tiles into *pos, and
 * acc = the product over those k-tiles.  make_loader(tile) runs once, when the tile is
 * known (a loader's per-block set-up: which loads may be 16 bytes wide, conv.cu's gather
 * rows), and returns the loader: load(a, b, k0) fills one stage, the BLOCK_M x BLOCK_K tile
 * of A at shared a and the BLOCK_N x BLOCK_K tile of B at shared b, columns [k0, k0 +
 * BLOCK_K), with cp.async (or plain stores) issued by every thread and no commit (the loop
 * commits one group a stage).  STAGES - 1 stages are in flight ahead of the one being
 * multiplied; on return every copy has landed. */
template <class MakeLoader>
static __device__ __forceinline__ void mainloop(acc_t &acc, tile_pos *pos, int M, int N, int K,
						const MakeLoader &make_loader)
{
	extern __shared__ __align__(16) unsigned char smem[];
	elem_t *sA = (elem_t *)smem;
	elem_t *sB = sA + STAGES * BLOCK_M * SROW;
	const int tid = threadIdx.x, lane = tid % 32;
	const tile_pos p = tile_at(blockIdx.x, M, N, K);
	const auto load = make_loader(p);
	const int wm0 = warp_m0(), wn0 = warp_n0();

#pragma unroll
	for (int i = 0; i < sizeof(acc) / sizeof(float); ++i)
		((float *)acc)[i] = 0.0f;

	/* prologue: STAGES - 1 tiles in flight */
#pragma unroll
	for (int s = 0; s < STAGES - 1; ++s) {
		if (s < p.nkt)
			load(sA + s * BLOCK_M * SROW, sB + s * BLOCK_N * SROW,
			     (p.kt0 + s) * BLOCK_K);
		cp_async_commit();
	}

	for (int kt = 0; kt < p.nkt; ++kt) {
		cp_async_wait<STAGES - 2>();
		__syncthreads(); /* tile kt landed; stage (kt - 1) % STAGES is free */
		{
			int nt = kt + STAGES - 1, s = nt % STAGES;
			if (nt < p.nkt)
				load(sA + s * BLOCK_M * SROW, sB + s * BLOCK_N * SROW,
				     (p.kt0 + nt) * BLOCK_K);
			cp_async_commit();
		}
		const elem_t *tA = sA + (kt % STAGES) * BLOCK_M * SROW;
		const elem_t *tB = sB + (kt % STAGES) * BLOCK_N * SROW;
#if USE_MMA
#pragma unroll
		for (int ks = 0; ks < BLOCK_K; ks += KSTEP) {
			unsigned af[MMA_M][4], bf[MMA_N][2];
#pragma unroll
			for (int mt = 0; mt < MMA_M; ++mt) {
				int r = wm0 + mt * 16 + (lane % 16), k = ks + (lane / 16) * EPC;
				ldmatrix_x4(af[mt], smem_u32(tA + r * SROW + k));
			}
#pragma unroll
			for (int np = 0; np < MMA_N / 2; ++np) {
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
			for (int mt = 0; mt < MMA_M; ++mt)
#pragma unroll
				for (int j = 0; j < 4; ++j)
					af[mt][j] = to_tf32(af[mt][j]);
#pragma unroll
			for (int nt = 0; nt < MMA_N; ++nt)
#pragma unroll
				for (int j = 0; j < 2; ++j)
					bf[nt][j] = to_tf32(bf[nt][j]);
#endif
#pragma unroll
			for (int mt = 0; mt < MMA_M; ++mt)
#pragma unroll
				for (int nt = 0; nt < MMA_N; ++nt)
					mma(acc[mt][nt], af[mt], bf[nt]);
		}
#else
		const int lr = lane / 4, lc = lane % 4;
#pragma unroll 4
		for (int k = 0; k < BLOCK_K; ++k) {
			float a[FFMA_M], b[FFMA_N];
#pragma unroll
			for (int i = 0; i < FFMA_M; ++i)
				a[i] = tA[(wm0 + lr + 8 * i) * SROW + k];
#pragma unroll
			for (int j = 0; j < FFMA_N; ++j)
				b[j] = tB[(wn0 + lc + 4 * j) * SROW + k];
#pragma unroll
			for (int i = 0; i < FFMA_M; ++i)
#pragma unroll
				for (int j = 0; j < FFMA_N; ++j)
					acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
		}
#endif
	}
	cp_async_wait<0>();
	*pos = p;
}
#endif /* !WGMMA */

/* ---- the accumulators' places, for the epilogues -------------------------------------- */

/* f(row, col, v0, v1) for every pair of a thread's MT x NT tiles of 16 x 8 in mma.sync's
 * fragment layout (also each warp's share of a wgmma m64 slab): tile (mt, nt) at rows
 * row0 + (mt0 + mt) * RSTEP + rw + [0, 16), columns col0 + nt * 8 + [0, 8); the pair is the
 * outputs (row, col) and (row, col + 1).  No bounds check: f's.  lane: threadIdx.x % 32. */
template <int MT, int NT, int RSTEP, class F>
static __device__ __forceinline__ void acc_pairs(const float (&acc)[MT][NT][4], int row0, int mt0,
						 int rw, int col0, int lane, const F &f)
{
#pragma unroll
	for (int mt = 0; mt < MT; ++mt)
#pragma unroll
		for (int nt = 0; nt < NT; ++nt)
#pragma unroll
			for (int h = 0; h < 2; ++h)
				f(row0 + (mt0 + mt) * RSTEP + rw + lane / 4 + 8 * h,
				  col0 + nt * 8 + (lane % 4) * 2, acc[mt][nt][2 * h],
				  acc[mt][nt][2 * h + 1]);
}

#if !WGMMA && !USE_MMA
/* f(row, col, v) for every accumulator of mainloop()'s FFMA acc whose place (row, col) in
 * the result is inside R x S, the block's tile starting at (m0, n0). */
template <class F>
static __device__ __forceinline__ void acc_each(const acc_t &acc, int m0, int n0, int R, int S,
						const F &f)
{
	const int tid = threadIdx.x, lane = tid % 32, lr = lane / 4, lc = lane % 4;
	const int wm0 = warp_m0(), wn0 = warp_n0();
#pragma unroll
	for (int i = 0; i < FFMA_M; ++i)
#pragma unroll
		for (int j = 0; j < FFMA_N; ++j) {
			int row = m0 + wm0 + lr + 8 * i, col = n0 + wn0 + lc + 4 * j;
			if (row >= R || col >= S)
				continue;
			f(row, col, acc[i][j]);
		}
}
#endif

#endif /* MAINLOOP_CUH */
