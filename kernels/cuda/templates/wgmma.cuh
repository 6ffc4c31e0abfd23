/* wgmma.cuh: the Hopper (sm_90a) kernel that gemm.cu and conv.cu build with WGMMA=1: the
 * wgmma and tensor-copy (TMA) instructions, mbarriers, the swizzled tile loader, and the
 * warp-specialized body (wgmma_body) over a block's tiles.  What differs between the two
 * templates is passed in, as mainloop.cuh does for the mma.sync kernel: how the consumer
 * threads fill a stage on the cp.async path (gemm.cu: rows of A and B with load_tile_sw;
 * conv.cu: A's im2col rows gathered from the image into the same swizzled layout, B the
 * weights) and the epilogue of a warpgroup's accumulators.  On the TMA path the tensor maps
 * say where the operands are, so both templates take it exactly when their A is a plain
 * matrix (every GEMM with 16-byte strides; a 1x1 stride-1 unpadded convolution).
 * kernels/cuda/nvrtc.c splices this file in place of its include line.
 *
 * The kernel's design:
 * * Warp-specialized: warpgroup 0 is the producer, warpgroups 1..NC (NC 1 to 3) the
 * consumers. Consumer warpgroup g owns rows [g * BLOCK_M / NC, (g + 1) * BLOCK_M / NC) of
 * the tile as MW m64 slabs (MW 1 or 2; 1 with three consumers, tiles of 192 rows: at
 * ResNet's 28 x 28 layers, batch 32, the 25088 pixels make 131 such tiles for 132 SMs,
 * where tiles of 128 or 256 rows leave a quarter of the last wave idle), each times the
 * whole BLOCK_N: one wgmma.m64nBLOCK_Nk16 (TF32: k8) per slab and k step, A and B straight
 * from shared memory. Tiles are stored K-major with the 128-byte
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
 * fence.proxy.async and synchronized on named barrier 1; the producer idles.
 * STREAM_K [0] (conv.cu's field; SPLIT_K 1): instead of whole tiles, block b of G takes the
 * k-tiles [b T / G, (b + 1) T / G) of all T = tiles x k-tiles in tile order (Osama et al.,
 * "Stream-K", PPoPP 2023), so every SM gets the same share of the work when the tiles are
 * fewer than a whole number of waves (ResNet's 7x7 and 14x14 layers: about 100 tiles on
 * 132 SMs).  A tile cut between blocks is finished by the block holding its first k-tile:
 * its last segment, so the others (each the first segment of a later block) are usually in
 * by then.  Each of those writes its fp32 accumulators to its slot of ws and raises its flag
 * (release); the finisher waits for each flag (acquire), adds the slots in block order (the
 * sum's order is fixed: deterministic) and resets the flag, so every launch leaves the flags
 * zero.  Waiting needs every block resident: the backend launches at most as many as fit.
 * Clusters (TMA path only, use_tma 1; the launch decides, so one module serves both): launched
 * in clusters of ncl blocks (%cluster_nctarank; 1 without a cluster launch), cm along m by
 * cn = ncl / cm along n (use_tma's WG_CLUSTER_M or WG_CLUSTER_CM_SHIFT), the blocks of a
 * cluster take the cm x cn tiles of one cm BLOCK_M x cn BLOCK_N tile (tile_at's ncl, rank,
 * cm; rank i cn + j the tile in row i, column j).  The cn blocks of a row share its A: each
 * loads BLOCK_M / cn rows of A's stage by TMA multicast into all of their shared memory
 * (same offset, completing on each block's "full" mbarrier); the cm blocks of a column
 * share its B the same way, each loading BLOCK_N / cm rows.  So A comes from L2 once for a
 * row's tiles and B once for a column's (a pair along n: a quarter fewer operand bytes at
 * square tiles; 2 x 2 half: what Hopper's clusters are for; cuBLASLt's candidates at
 * ResNet-50's 3x3 layers all run in clusters, docs/benchmarks-archive.md 2026-11-27).
 * Each "full" barrier still expects the whole stage's bytes; each "empty" barrier counts the
 * consumer warps of every block of the cluster (a consumer warp releases a stage in its own
 * block and in every other one, wg_release: a superset of the row and column whose
 * multicasts write the stage here).  The cluster barrier orders the mbarriers'
 * initialisation before any remote use, and no block exits while its peer may still write
 * into it or arrive on its barriers.  The schedule (segments, stream-K's shares and flags)
 * runs over clusters: unit blockIdx.x / ncl of gridDim.x / ncl.
 * CLUSTER_K 2 (conv.cu's field, a macro; below): a cluster of two blocks that share no
 * operand (ncl 1 to all of the above) but one tile, each its half of the k-tiles (wg_next),
 * the halves summed by wg_ck_sum; one tile a pair. */
#ifndef WGMMA_CUH
#define WGMMA_CUH
#include "mainloop.cuh"

#if !defined(DTYPE_FLOAT16) && !defined(DTYPE_BFLOAT16) && !TF32
#error "WGMMA=1 needs DTYPE_FLOAT16, DTYPE_BFLOAT16 or DTYPE_FLOAT32 with TF32=1"
#endif
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "WGMMA=1 needs the sm_90a target"
#endif
static_assert(BLOCK_K % (128 / (int)sizeof(elem_t)) == 0,
	      "WGMMA: BLOCK_K must be a multiple of 128 bytes of elements (swizzle atoms)");
static_assert(WARPS == 4 || WARPS == 8 || WARPS == 12,
	      "WGMMA: WARPS must be 4, 8 or 12 (1, 2 or 3 warpgroups)");
static_assert(BLOCK_N == 64 || BLOCK_N == 112 || BLOCK_N == 128 || BLOCK_N == 256,
	      "WGMMA: BLOCK_N 64, 112, 128, 256");
/* SWAP_AB [0] (conv.cu's field): 1, each consumer warpgroup multiplies its 64 of the tile's
 * BLOCK_N columns (B's rows: a convolution's output channels) as wgmma's m64 side by all
 * BLOCK_M rows (A's: its pixels) as the instruction's n, D^T = B A^T, and its epilogue
 * stores the transpose (wg_acc_h16t).  Only the consumers change: the producer loads the
 * same stages.  What it buys is the tile shapes whose pixel side is no m64 slab (BLOCK_M 96
 * and 112: cuBLASLt's one-wave tile counts at ResNet-50's 1x1 layers), not fewer shared-
 * memory reads (at 192 x 64, 8 KiB a k-step against 12, the k-tile took the same time on an
 * H200: docs/kernels.md, "Swapped operands").  TMA-only modules, whole tiles, 16-bit. */
#ifndef SWAP_AB
#define SWAP_AB 0
#endif
#if SWAP_AB
static_assert(BLOCK_N == 64 * (WARPS / 4) &&
		      (BLOCK_M == 64 || BLOCK_M == 96 || BLOCK_M == 112 || BLOCK_M == 128 ||
		       BLOCK_M == 192 || BLOCK_M == 256),
	      "SWAP_AB: 64 of BLOCK_N a consumer warpgroup, BLOCK_M 64 to 256 its n");
#else
static_assert(BLOCK_M % (64 * (WARPS / 4)) == 0 &&
		      BLOCK_M / (64 * (WARPS / 4)) <= (WARPS == 12 ? 1 : 2),
	      "WGMMA: BLOCK_M must be 64 or 128 per warpgroup (64 with three)");
static_assert(WARPS != 12 || BLOCK_N <= 128,
	      "WGMMA: three consumer warpgroups take BLOCK_N 64 or 128 (their registers)");
#endif

#define ES ((int)sizeof(elem_t))       /* element bytes: 2, or 4 for tf32 */
#define AW (128 / ES)                 /* elements across one 128-byte swizzle atom */
#define NC (WARPS / 4)              /* consumer warpgroups */
#if SWAP_AB
#define MW 1      /* one m64 slab a consumer warpgroup: its 64 of BLOCK_N */
#define WG_NI BLOCK_M /* the instruction's n: the tile's BLOCK_M rows */
#else
#define MW (BLOCK_M / (64 * NC))      /* m64 slabs per consumer warpgroup */
#define WG_NI BLOCK_N /* the instruction's n */
#endif
#define CTHREADS (32 * WARPS)         /* consumer threads */
#define THREADS_WG (32 * WARPS + 128) /* + the producer warpgroup */
/* WG_PRODUCER_LOADS (the including template defines it, default 0): 1, the producer
 * warpgroup's 128 threads fill the stages with cp.async when there are no tensor maps
 * (producer_cpasync); 0, the consumers do (consumer_cpasync).  LTHREADS: the threads that
 * share a stage's cp.async loads. */
#ifndef WG_PRODUCER_LOADS
#define WG_PRODUCER_LOADS 0
#endif
#if WG_PRODUCER_LOADS
#define LTHREADS 128
/* (the producer's cp.async loads complete ns - 2 stages behind the newest before it
 * announces them, as a stage is released one k-tile after the consumers read it: ns at least
 * 3, producer_cpasync) */
#else
#define LTHREADS CTHREADS
#endif
/* WG_TMA_ONLY (the backend's, default 0): 1, the module is launched with use_tma 1 only (a
 * convolution's 3 too, which the body reads as 1), so the consumers' cp.async path
 * (consumer_cpasync) and the producer's (producer_cpasync) are left out: the first was half
 * of a gemm.cu module's machine code and compile time, the second costs conv.cu's consumers
 * their registers (REG_PRODUCER), at shapes whose maps serve, where the backend never takes
 * them (cuda_gemm_tma_only, cuda_conv_tma_only; a launch without the maps traps). */
#ifndef WG_TMA_ONLY
#define WG_TMA_ONLY 0
#endif
/* WG_RT_STAGES (the including template's, default 0): 1, the pipeline's depth ns is the
 * launch's (conv.cu's kernel argument `stages`), not the STAGES macro, so configs that
 * differ only in STAGES share one module (NVRTC's time is most of an exhaustive walk's on
 * the GPU).  The TMA and producer paths walk the ring with a stage index and a phase bit
 * (wg_ring), never it % ns: a division by a run-time value on the one producer thread is on
 * the k-loop's path (tma-probe.c).  consumer_cpasync's cp.async waits need STAGES as a
 * constant: such modules (WG_PRODUCER_LOADS and WG_TMA_ONLY 0) keep the macro. */
#ifndef WG_RT_STAGES
#define WG_RT_STAGES 0
#endif
static_assert(!WG_RT_STAGES || WG_PRODUCER_LOADS || WG_TMA_ONLY,
	      "WG_RT_STAGES: consumer_cpasync needs STAGES at compile time");
static_assert(WG_RT_STAGES || !WG_PRODUCER_LOADS || STAGES >= 3,
	      "WG_PRODUCER_LOADS: STAGES must be at least 3");
/* the cp.async fallback: tiles loaded DIST ahead, WAITN wgmma groups left in flight */
#define WAITN (STAGES >= 3 ? 1 : 0)
#define DIST (STAGES - 1 - WAITN)
#ifndef STREAM_K
#define STREAM_K 0
#endif
static_assert(!STREAM_K || SPLIT_K == 1, "STREAM_K needs SPLIT_K 1");

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

/* A walk over a ring of ns stages, k-tile it of a block: its stage it % ns (ring_s), the
 * phase of that stage's mbarriers (it / ns) & 1 (ring_ph), the stage of k-tile it - 1
 * (ring_before), and the step to it + 1.  With WG_RT_STAGES, a stage index and a phase bit,
 * kept without dividing; without, the count it itself, STAGES a constant (a mask and a
 * shift), as the kernel kept it before the depth could be the launch's.  The producers keep
 * their count it either way; a ring beside it in the macro build made the three-warpgroup
 * configs spill more (ptxas -v at 192 x 128: 368 / 400 bytes stored / loaded against
 * 276 / 312), so there they use it alone, and the macro build's code is the old one. */
#if WG_RT_STAGES
struct wg_ring {
	unsigned s, ph;
};

static __device__ __forceinline__ unsigned ring_s(const wg_ring &r, unsigned) { return r.s; }
static __device__ __forceinline__ unsigned ring_ph(const wg_ring &r, unsigned) { return r.ph; }
static __device__ __forceinline__ unsigned ring_before(const wg_ring &r, unsigned ns)
{
	return r.s ? r.s - 1 : ns - 1;
}

static __device__ __forceinline__ void ring_step(wg_ring &r, unsigned ns)
{
	if (++r.s == ns) {
		r.s = 0;
		r.ph ^= 1;
	}
}
#else
struct wg_ring {
	unsigned it;
};

static __device__ __forceinline__ unsigned ring_s(const wg_ring &r, unsigned)
{
	return r.it % STAGES;
}
static __device__ __forceinline__ unsigned ring_ph(const wg_ring &r, unsigned)
{
	return (r.it / STAGES) & 1;
}
static __device__ __forceinline__ unsigned ring_before(const wg_ring &r, unsigned)
{
	return (r.it - 1) % STAGES;
}
static __device__ __forceinline__ void ring_step(wg_ring &r, unsigned) { ++r.it; }
#endif

/* wgmma.mma_async m64nNkK, fp32 accumulators d (N / 2 a thread), A and B from shared memory
 * (descriptors da, db), d scaled by scale_d (0: overwrite): the instruction for the element
 * type, and its immediates (scale A and B 1, and for 16-bit types no transpose: K-major). */
#if defined(DTYPE_FLOAT16)
#define WG_MMA(n) "wgmma.mma_async.sync.aligned.m64n" #n "k16.f32.f16.f16 "
#define WG_IMM "p, 1, 1, 0, 0"
#elif defined(DTYPE_BFLOAT16)
#define WG_MMA(n) "wgmma.mma_async.sync.aligned.m64n" #n "k16.f32.bf16.bf16 "
#define WG_IMM "p, 1, 1, 0, 0"
#else /* TF32: K-major only, no transpose immediates.  The tensor cores read each float32
       * operand's top 19 bits (truncation), exact on operands already rounded to TF32: the
       * harness draws a TF32 cell's inputs and a TF32 model's weights rounded, and every TF32
       * kernel rounds what it stores (dtype.cuh's from_float), so the next one reads exact
       * operands.  Until 2026-11-26 each stage was rounded in shared memory (cvt.rna, a proxy
       * fence and a consumer barrier per k-tile) instead: 46% of cuDNN's throughput on
       * ResNet-18's TF32 convolutions, against 61% without the pass on the same rounded
       * inputs (docs/BENCHMARKS.md, 2026-11-26 (second session)).  Plain truncation of
       * unrounded operands took a ResNet-50 forward 1.35% off cuDNN's. */
#define WG_MMA(n) "wgmma.mma_async.sync.aligned.m64n" #n "k8.f32.tf32.tf32 "
#define WG_IMM "p, 1, 1"
#endif
#if WG_NI == 64
static __device__ __forceinline__ void wgmma_n64(float *d, unsigned long long da,
						 unsigned long long db, int scale_d)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
		     WG_MMA(64)
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, " WG_IMM ";\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
		     : "l"(da), "l"(db), "r"(scale_d)
		     : "memory");
}
#endif
#if WG_NI == 96
static __device__ __forceinline__ void wgmma_n96(float *d, unsigned long long da,
						unsigned long long db, int scale_d)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %50, 0;\n"
		     WG_MMA(96)
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47}, %48, %49, " WG_IMM ";\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47])
		     : "l"(da), "l"(db), "r"(scale_d)
		     : "memory");
}
#endif
#if WG_NI == 112
static __device__ __forceinline__ void wgmma_n112(float *d, unsigned long long da,
						 unsigned long long db, int scale_d)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %58, 0;\n"
		     WG_MMA(112)
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55}, %56, %57, " WG_IMM ";\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55])
		     : "l"(da), "l"(db), "r"(scale_d)
		     : "memory");
}
#endif
#if WG_NI == 128
static __device__ __forceinline__ void wgmma_n128(float *d, unsigned long long da,
						 unsigned long long db, int scale_d)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
		     WG_MMA(128)
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, " WG_IMM ";\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
		     : "l"(da), "l"(db), "r"(scale_d)
		     : "memory");
}
#endif
#if WG_NI == 256
static __device__ __forceinline__ void wgmma_n256(float *d, unsigned long long da,
						 unsigned long long db, int scale_d)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
		     WG_MMA(256)
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, " WG_IMM ";\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
		     : "l"(da), "l"(db), "r"(scale_d)
		     : "memory");
}
#endif
#if WG_NI == 192
static __device__ __forceinline__ void wgmma_n192(float *d, unsigned long long da,
						 unsigned long long db, int scale_d)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
		     WG_MMA(192)
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95}, %96, %97, " WG_IMM ";\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
		     : "l"(da), "l"(db), "r"(scale_d)
		     : "memory");
}
#endif

static __device__ __forceinline__ void wgmma_tile(float *d, unsigned long long da,
						  unsigned long long db)
{
#if WG_NI == 64
	wgmma_n64(d, da, db, 1);
#elif WG_NI == 96
	wgmma_n96(d, da, db, 1);
#elif WG_NI == 112
	wgmma_n112(d, da, db, 1);
#elif WG_NI == 128
	wgmma_n128(d, da, db, 1);
#elif WG_NI == 192
	wgmma_n192(d, da, db, 1);
#else
	wgmma_n256(d, da, db, 1);
#endif
}

/* Rows [row0, row0 + ROWS) x [k0, k0 + BLOCK_K) of G into the swizzled tile at shared
 * address s: BLOCK_K / AW atoms of ROWS x 128 bytes, one after the other; 16-byte chunk c
 * of row r of an atom at r * 128 + ((c ^ (r % 8)) * 16).  tid: this thread among the
 * LTHREADS loading threads. */
template <int ROWS>
static __device__ __forceinline__ void load_tile_sw(unsigned s, const elem_t *__restrict__ G,
						    int ld, int R, int row0, int K, int k0, bool vec,
						    int tid)
{
	constexpr int CH = ROWS * (BLOCK_K / EPC);
#pragma unroll
	for (int i = 0; i < (CH + LTHREADS - 1) / LTHREADS; ++i) {
		int c = tid + i * LTHREADS;
		if (CH % LTHREADS != 0 && c >= CH)
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

/* Bytes the tensor copies will bring to this phase, without arriving (producer_cpasync). */
[[maybe_unused]] static __device__ __forceinline__ void mbar_tx(unsigned bar, unsigned bytes)
{
	asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;\n" ::"r"(bar),
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

/* ---- clusters (see the header) ------------------------------------------------------------ */

/* Blocks in this block's cluster (1 when launched without one) and this block's rank in it. */
static __device__ __forceinline__ unsigned cluster_nranks(void)
{
	unsigned r;
	asm volatile("mov.u32 %0, %%cluster_nctarank;\n" : "=r"(r));
	return r;
}

static __device__ __forceinline__ unsigned cluster_rank(void)
{
	unsigned r;
	asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
	return r;
}

/* Every thread of the cluster: arrive (release) and wait (acquire). */
static __device__ __forceinline__ void cluster_sync(void)
{
	asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::
			     : "memory");
}

/* One arrival on the mbarrier at this block's shared address bar, in cluster block `rank`,
 * with the instruction's default semantics (release at CTA scope, as CUTLASS's cluster
 * barriers arrive): the stage's reads it announces are the tensor cores', complete at
 * wgmma.wait_group, and the peer's next write is its copy engine's.  An arrive with
 * .release.cluster cost the 3x3 convolutions 1.44x their time against 1.03x with this one
 * (docs/benchmarks-archive.md, 2026-11-29). */
static __device__ __forceinline__ void mbar_arrive_remote(unsigned bar, unsigned rank)
{
	asm volatile("{\n.reg .b32 ra;\nmapa.shared::cluster.u32 ra, %0, %1;\n"
		     "mbarrier.arrive.shared::cluster.b64 _, [ra];\n}\n" ::"r"(bar),
		     "r"(rank)
		     : "memory");
}

/* tma_load's box into shared address dst of every block of the cluster in mask, each
 * completing on its own mbarrier at bar. */
static __device__ __forceinline__ void tma_load_mc(unsigned dst, const tmap_t *map, int x, int y,
						   unsigned bar, unsigned short mask)
{
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
		     ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
		     "l"((unsigned long long)map), "r"(x), "r"(y), "r"(bar), "h"(mask)
		     : "memory");
}

/* use_tma's flag (wgmma_body): the cluster's blocks lie along m and share B's stages by
 * multicast (each loads BLOCK_N / ncl rows of B, and its own A), instead of along n sharing
 * A's. */
#define WG_CLUSTER_M 16
/* CLUSTER_K (default 1): 2, a cluster of two blocks splits each tile's k-tiles in halves
 * (no operand shared) and sums them through L2 (wg_ck_sum, ws's slots); one tile
 * a cluster, the grid two blocks a tile (the backend's). */
#ifndef CLUSTER_K
#define CLUSTER_K 1
#endif
static_assert(!SWAP_AB || (CLUSTER_K == 1 && ES == 2 && WG_TMA_ONLY && !STREAM_K &&
			   SPLIT_K == 1),
	      "SWAP_AB: 16-bit TMA-only modules of whole tiles, summed in one block");
static_assert(CLUSTER_K == 1 || (CLUSTER_K == 2 && !STREAM_K && SPLIT_K == 1),
	      "CLUSTER_K: pairs, without stream-K or split-K");
/* use_tma's field (two bits from WG_CLUSTER_CM_SHIFT; without WG_CLUSTER_M): log2 of the
 * cluster's blocks along m, cm, the other ncl / cm along n: 2 x 2 and 2 x 4 or 4 x 2
 * clusters, each block loading its share of both operands (BLOCK_M / cn rows of A for its
 * row's blocks, BLOCK_N / cm of B for its column's), as cuBLASLt's 4 x 2 clusters at
 * ResNet-50's 2048 -> 512 1x1 layer do (docs/benchmarks-archive.md, stop 65).  0: along n. */
#define WG_CLUSTER_CM_SHIFT 6
/* use_tma's flag (wgmma_body): the epilogue's second operand (conv.cu's residual, an M x N
 * matrix like the result) comes by the tensor copy engine into shared memory (wg_res, tmR),
 * and the store reads it there.  Both flags' values are the backend's too (gemm-config.h's
 * CUDA_USE_TMA_CLUSTER_M and CUDA_USE_TMA_RES; test-cuda checks they agree). */
#define WG_RES_TMA 32

/* Register budgets of the roles (setmaxnreg, sm_90a): with two consumer warpgroups the
 * launch cap is 168 a thread (384 threads, one block per SM), and setmaxnreg.inc can only
 * take what setmaxnreg.dec gave back (else it waits for ever): the consumers' gain times
 * 256 must not exceed the producer's loss times 128.  The producer gives back to 40 and the
 * consumers take 232 (128 * 128 = 64 * 256); a producer that gathers (WG_PRODUCER_LOADS)
 * keeps 96 for its addresses and the consumers take 200 (72 * 128 >= 32 * 256).  With
 * three (512 threads) the cap is 128 and the consumers, 64 x BLOCK_N each (at most 64
 * accumulators a thread), take 152 from a producer at 56 (72 * 128 = 24 * 384), or 136 from
 * one that gathers at 96 (32 * 128 >= 8 * 384).  With one consumer warpgroup (256 threads)
 * the cap is already 255: no reallocation.  Each is a multiple of 8, as setmaxnreg needs. */
#if NC == 2 && WG_PRODUCER_LOADS
#define REG_PRODUCER 96
#define REG_CONSUMER 200
#elif NC == 2
#define REG_PRODUCER 40
#define REG_CONSUMER 232
#elif NC == 3 && WG_PRODUCER_LOADS
#define REG_PRODUCER 96
#define REG_CONSUMER 136
#elif NC == 3
#define REG_PRODUCER 56
#define REG_CONSUMER 152
#endif
#ifdef REG_PRODUCER
#define REG_CAP (65536 / THREADS_WG / 8 * 8) /* the launch's registers a thread, one block */
static_assert((REG_CAP - REG_PRODUCER) * 128 >= (REG_CONSUMER - REG_CAP) * 128 * NC,
	      "setmaxnreg: the consumers cannot take more than the producer gives back");
#endif

#define TILE_BYTES ((BLOCK_M + BLOCK_N) * BLOCK_K * ES) /* one stage, both operands */

/* Blocks an SM should hold at once (__launch_bounds__'s second argument).  conv.cu's kernel
 * (WG_CONV: gathering, or TMA-only) with one consumer warpgroup, few accumulators (MW * BLOCK_N / 2 a
 * thread: 32 for 64 x 64, 64 for 64 x 128 or 128 x 64) and one swizzle atom a stage fits in
 * 80 or 128 registers a thread without spilling (ptxas -v, sm_90a, fp16 and TF32, STAGES 3
 * and 4), so 3 or 2 blocks share an SM where the compiler would otherwise take 93-160
 * registers and leave room for one or two (shared memory may still allow fewer).  gemm.cu
 * keeps 1: at 128 registers some of its configs spill (12-16 bytes). */
#if defined(DTYPE_FLOAT16) || defined(DTYPE_BFLOAT16)
#define AW_PP 64 /* AW for the preprocessor (no sizeof there) */
#else
#define AW_PP 32
#endif
#ifndef WG_CONV
#define WG_CONV 0
#endif
#if WG_CONV && NC == 1 && BLOCK_K == AW_PP && MW * WG_NI / 2 <= 32
#define WG_MIN_BLOCKS 3
#elif WG_CONV && NC == 1 && BLOCK_K == AW_PP && MW * WG_NI / 2 <= 64
#define WG_MIN_BLOCKS 2
#else
#define WG_MIN_BLOCKS 1
#endif

/* One k-tile (stage at shared tA / tB) into the accumulators of consumer warpgroup cw. */
static __device__ __forceinline__ void mma_stage(float (*acc)[WG_NI / 2], unsigned tA,
						 unsigned tB, int cw)
{
	wgmma_fence();
#pragma unroll
	for (int k = 0; k < BLOCK_K / KSTEP; ++k) /* KSTEP * ES = 32 bytes, 4 per atom */
#if SWAP_AB /* B's 64 rows of this warpgroup by all of A's */
		wgmma_tile(acc[0],
			   wgmma_desc(tB + (k / 4) * BLOCK_N * 128 + cw * 64 * 128 + (k % 4) * 32),
			   wgmma_desc(tA + (k / 4) * BLOCK_M * 128 + (k % 4) * 32));
#else
#pragma unroll
		for (int i = 0; i < MW; ++i)
			wgmma_tile(acc[i],
				   wgmma_desc(tA + (k / 4) * BLOCK_M * 128 +
					      (cw * MW + i) * 64 * 128 + (k % 4) * 32),
				   wgmma_desc(tB + (k / 4) * BLOCK_N * 128 + (k % 4) * 32));
#endif
	wgmma_commit();
}

/* A consumer warpgroup's accumulators: MW slabs of m64 x BLOCK_N, warp w of the group
 * holding rows 16 w + [0, 16) of each as BLOCK_N / 8 tiles of 16 x 8 in mma.sync's fragment
 * layout (so mainloop.cuh's acc_pairs walks them, RSTEP 64); with SWAP_AB one slab of its 64
 * columns (as rows) x BLOCK_M rows (as columns), the transpose. */
typedef float wg_acc_t[MW][WG_NI / 2];

/* WG_SK_PROBE (tests/gpu/sk-probe.c's, default 0): 1, consumer warpgroup 0's first thread
 * stamps %globaltimer (ns) into wg_probe[blockIdx.x * 32 + i]: 0 at its start; for its first
 * three segments j, 1 + 4j the first stage's arrival, 2 + 4j the k-loop's end, 3 + 4j stream-K's
 * fix-up done (the finisher's waits and sums, or the hand-over), 4 + 4j the store done; 13 + j
 * the segment's kt0 << 16 | nkt; 16 the kernel's first instruction (wgmma_body), 17 its
 * consumers' end, 18 past the barriers' set-up (__syncthreads), 19 past griddepcontrol.wait,
 * 20 past the consumers' setmaxnreg, 21 the first segment's store returned (before the stage's
 * release), 22 wg_acc_h16's first stmatrix issued (the bias loads and the sums before it).
 * What a stream-K launch spends where, block by block. */
#ifndef WG_SK_PROBE
#define WG_SK_PROBE 0
#endif
#if WG_SK_PROBE
__device__ unsigned long long wg_probe[2048 * 32];
static __device__ __forceinline__ void sk_stamp(int cw, int i)
{
	if (cw == 0 && threadIdx.x % 128 == 0 && i < 32) {
		unsigned long long t;
		asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(t));
		wg_probe[blockIdx.x * 32 + i] = t;
	}
}
/* segment seg's stamp k (0 its first stage, 1 its k-loop's end, 2 the fix-up, 3 the store:
 * then its kt0 and nkt too), for the first three segments */
static __device__ __forceinline__ void sk_stamp_seg(int cw, int seg, int k, const tile_pos &p)
{
	if (seg >= 3)
		return;
	sk_stamp(cw, 1 + 4 * seg + k);
	if (k == 3 && cw == 0 && threadIdx.x % 128 == 0)
		wg_probe[blockIdx.x * 32 + 13 + seg] = ((unsigned long long)p.kt0 << 16) | p.nkt;
}
#define SK_STAMP(cw, i) sk_stamp(cw, i)
#define SK_SEG(cw, seg, k, p) sk_stamp_seg(cw, seg, k, p)
#else
#define SK_STAMP(cw, i) ((void)0)
#define SK_SEG(cw, seg, k, p) ((void)0)
#endif

/* Shared address of the element at row r of a warpgroup's rows and column c of the tile in
 * Res buffer rs (wg_res, below): its atom, then the 128-byte swizzle (16-byte chunk ^ row % 8). */
static __device__ __forceinline__ unsigned res_at(unsigned rs, int r, int c)
{
	const int b = (c % AW) * ES;
	return rs + (c / AW) * (MW * 64 * 128) + r * 128 + (((b >> 4) ^ (r & 7)) << 4) +
	       (b & 15);
}

/* f(row, col, v0, v1) for every pair of consumer warpgroup cw's accumulators of the tile at
 * (m0, n0): rows and columns of the whole result, no bounds check (f's). */
template <class F>
static __device__ __forceinline__ void wg_acc_pairs(const wg_acc_t &acc, int m0, int n0, int cw,
						    const F &f)
{
	const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
	acc_pairs<MW, BLOCK_N / 8, 64>(*(const float(*)[MW][BLOCK_N / 8][4])acc, m0, cw * MW,
				       warp * 16, n0, lane, f);
}

#if defined(DTYPE_FLOAT16) || defined(DTYPE_BFLOAT16)
/* The 16-bit epilogue's walk over consumer warpgroup cw's accumulators of the tile at (m0,
 * n0): cvt(v0, v1, b, r) turns a pair of them, a row's columns col = n0 + 8 nt + 2 (lane % 4)
 * and col + 1, into their two 16-bit outputs packed in 32 bits, in the accumulators' own
 * (fragment) layout, where a lane's columns are the same in every row: b = ldb(nt), the
 * pair of a per-column operand (a bias, loaded before: conv.cu's epre), and r the same pair
 * of a second operand in the result's layout, from Res buffer rs by ldmatrix (wg_res's,
 * res_at's layout) when rs is not 0, else ldr(row, col) from global memory when gres (a
 * half's all issued before any is used), else 0.  stmatrix then writes a warp's 16 rows of
 * 64 columns (2 KiB, its share of the scratch stg) in 16 bits, and put(row, col, u) gets them
 * back 16 bytes at a time: u the 8 outputs (row, col + [0, 8)), 8 lanes a row's 128 bytes,
 * rows and columns of the whole result, no bounds check (put's; ldr's too).  16-byte chunk c
 * of row r at chunk c ^ (r % 8): stmatrix's 8 rows a matrix and the loads' 4 rows of 8
 * chunks meet in no bank.
 * It replaced (stop 68) a walk that traded a quad's fp32 accumulators through shared memory
 * (8 two-float stores and 4 16-byte loads a lane each 32 columns) and summed in rows: half
 * the bytes through shared memory, a quarter of the shared stores, and one form for every
 * 16-bit epilogue (the other, inlined beside it, had made a module's compile 20-30%
 * longer).  The store of a 64 x 128 warpgroup tile took about 1.1 us on an H200 either way
 * (tests/gpu/sk-probe.c): with the bias loaded after the k-loop its loads and first sums
 * took 0.4 us of it wherever the bias was cached, loaded before (conv.cu's epre) 0.2; a
 * second identical store right after it took 1.5 us, so it does not wait on the
 * instruction cache. */
template <class Ldb, class Ldr, class Cvt, class Put>
static __device__ __forceinline__ void wg_acc_h16(const wg_acc_t &acc, int m0, int n0, int cw,
						  unsigned rs, unsigned stg, bool gres,
						  const Ldb &ldb, const Ldr &ldr, const Cvt &cvt,
						  const Put &put)
{
	static_assert(BLOCK_N % 16 == 0, "wg_acc_h16: stmatrix stores n8 tiles in pairs");
	const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
	const unsigned wb = stg + (unsigned)warp * 2048u;
	/* stmatrix: lane l gives row l % 8 + 8 ((l / 8) % 2), chunk l / 16 of the pair's two */
	const unsigned sr = (unsigned)(lane % 8 + 8 * ((lane / 8) % 2)), sc = (unsigned)(lane / 16);
	const int lr = lane / 8, lc = lane % 8; /* the loads: rows lr + 4 j, chunk lc */
#pragma unroll
	for (int i = 0; i < MW; ++i) {
		const int row0 = m0 + (cw * MW + i) * 64 + warp * 16;
#pragma unroll
		for (int h = 0; h < (BLOCK_N + 63) / 64; ++h) {
			unsigned g[8][2]; /* the half's pairs from global memory: tile t, rows e */
#pragma unroll
			for (int t = 0; t < 8; ++t)
#pragma unroll
				for (int e = 0; e < 2; ++e)
					g[t][e] = gres && 8 * h + t < BLOCK_N / 8
							  ? ldr(row0 + lane / 4 + 8 * e,
								n0 + 8 * (8 * h + t) + 2 * (lane % 4))
							  : 0u;
			__syncwarp(); /* the last half's loads are done */
#pragma unroll
			for (int t = 0; t < 8; t += 2) {
				const int nt = 8 * h + t;
				if (nt >= BLOCK_N / 8) /* (112: the second half has 6 tiles) */
					break;
				unsigned q[4] = { g[t][0], g[t][1], g[t + 1][0], g[t + 1][1] };
				if (rs) /* the same four 8 x 8 tiles of the operand, lane l's row */
					asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 "
						     "{%0, %1, %2, %3}, [%4];\n"
						     : "=r"(q[0]), "=r"(q[1]), "=r"(q[2]), "=r"(q[3])
						     : "r"(res_at(rs, i * 64 + warp * 16 + (int)sr,
								  8 * (nt + (int)sc))));
				const unsigned b0 = ldb(nt), b1 = ldb(nt + 1);
				const unsigned r0 = cvt(acc[i][nt * 4], acc[i][nt * 4 + 1], b0, q[0]);
				const unsigned r1 = cvt(acc[i][nt * 4 + 2], acc[i][nt * 4 + 3], b0, q[1]);
				const unsigned r2 = cvt(acc[i][nt * 4 + 4], acc[i][nt * 4 + 5], b1, q[2]);
				const unsigned r3 = cvt(acc[i][nt * 4 + 6], acc[i][nt * 4 + 7], b1, q[3]);
				asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], "
					     "{%1, %2, %3, %4};\n" ::"r"(wb + sr * 128u +
									   ((((unsigned)t + sc) ^
									     (sr % 8u))
									    << 4)),
					     "r"(r0), "r"(r1), "r"(r2), "r"(r3)
					     : "memory");
				if (i == 0 && h == 0 && t == 0)
					SK_STAMP(cw, 22);
			}
			__syncwarp();
#pragma unroll
			for (int j = 0; j < 4; ++j) {
				const int r = lr + 4 * j;
				uint4 u;
				asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
					     : "=r"(u.x), "=r"(u.y), "=r"(u.z), "=r"(u.w)
					     : "r"(wb + (unsigned)r * 128u +
						   ((unsigned)(lc ^ (r % 8)) << 4))
					     : "memory");
				if (8 * h + lc < BLOCK_N / 8)
					put(row0 + r, n0 + 64 * h + 8 * lc, u);
			}
		}
	}
}

#if SWAP_AB
/* wg_acc_h16's walk for SWAP_AB's transposed accumulators (no second operand): consumer
 * warpgroup cw's slab holds the tile's columns n0 + 64 cw + [0, 64) as its rows (warp w's
 * 16 w + lane / 4 and 8 more) by the BLOCK_M rows as its columns, so cvt(v0, v1, b, 0) turns
 * one column's outputs at two adjacent rows, b = ldb(0) for the lane's first column (its
 * bias in both halves) or ldb(1) for its second.  stmatrix .trans writes each 8 x 8 tile
 * transposed: a warp's 64 rows of its 16 columns (32 bytes a row, 2 KiB: its share of the
 * scratch stg) a half (the last of 32 or 48 at BLOCK_M 96 and 112), and put(row, col, u)
 * gets them back 16 bytes at a time, u the 8 outputs (row, col + [0, 8)), two lanes a row.
 * 16-byte chunk c of row r at chunk c ^ (r / 4 % 2): a stored tile's 8 rows meet in no
 * bank. */
template <class Ldb, class Cvt, class Put>
static __device__ __forceinline__ void wg_acc_h16t(const wg_acc_t &acc, int m0, int n0, int cw,
						   unsigned stg, const Ldb &ldb, const Cvt &cvt,
						   const Put &put)
{
	const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
	const unsigned wb = stg + (unsigned)warp * 2048u;
	/* stmatrix .x4: lane l addresses row l % 8 of tile q = l / 8, which holds the lane
	 * group's columns q % 2 (of the warp's two eights) at n8 tile t + q / 2 */
	const unsigned q = (unsigned)lane / 8u, l8 = (unsigned)lane % 8u;
	const unsigned b0 = ldb(0), b1 = ldb(1);
	const int col = n0 + cw * 64 + warp * 16;
#pragma unroll
	for (int h = 0; h < (BLOCK_M + 63) / 64; ++h) {
#pragma unroll
		for (int t = 0; t < 8; t += 2) {
			const int nt = 8 * h + t;
			if (nt >= BLOCK_M / 8) /* (96 and 112: a last half of 4 or 6 tiles) */
				break;
			const unsigned r0 = cvt(acc[0][nt * 4], acc[0][nt * 4 + 1], b0, 0u);
			const unsigned r1 = cvt(acc[0][nt * 4 + 2], acc[0][nt * 4 + 3], b1, 0u);
			const unsigned r2 = cvt(acc[0][nt * 4 + 4], acc[0][nt * 4 + 5], b0, 0u);
			const unsigned r3 = cvt(acc[0][nt * 4 + 6], acc[0][nt * 4 + 7], b1, 0u);
			const unsigned row = 8u * ((unsigned)t + q / 2u) + l8; /* of the half's */
			asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], "
				     "{%1, %2, %3, %4};\n" ::"r"(wb + row * 32u +
								 (((q % 2u) ^ (row / 4u % 2u)) << 4)),
				     "r"(r0), "r"(r1), "r"(r2), "r"(r3)
				     : "memory");
		}
		__syncwarp();
#pragma unroll
		for (int j = 0; j < 4; ++j) {
			if (64 * h + 16 * j >= BLOCK_M)
				break;
			const unsigned r = 16u * (unsigned)j + (unsigned)lane / 2u, c = lane % 2u;
			uint4 u;
			asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
				     : "=r"(u.x), "=r"(u.y), "=r"(u.z), "=r"(u.w)
				     : "r"(wb + r * 32u + ((c ^ (r / 4u % 2u)) << 4))
				     : "memory");
			put(m0 + 64 * h + (int)r, col + 8 * (int)c, u);
		}
		__syncwarp(); /* the half's loads are done before the next half's stores */
	}
}
#endif
#endif

/* The work of this block, segment by segment (the producer and the consumers walk the same
 * sequence): whole tiles blockIdx.x, blockIdx.x + gridDim.x, ... (tile_at's k-tiles: split
 * blockIdx.z's), or with STREAM_K the block's run of k-tiles over all tiles, cut at tile
 * boundaries (see the header).  at: the segment's first k-tile in that order. */
#if STREAM_K
typedef long long wg_pos_t; /* T reaches 2^31 at the largest tiles-by-k-tiles products */
#else
typedef int wg_pos_t;
#endif
struct wg_sched {
	wg_pos_t next, end, at, T;
	int kt_all;
	int ncl, rank, unit, units; /* the cluster's blocks, this block's rank; clusters */
	int cm; /* the cluster's blocks along m (B shared among them), ncl / cm along n */
};

static __device__ __forceinline__ wg_sched wg_sched_of(int M, int N, int K, int cm = 1)
{
	wg_sched s;
	s.kt_all = (K + BLOCK_K - 1) / BLOCK_K;
#if CLUSTER_K > 1 /* the pair's blocks share no operand: each its half of the k-tiles */
	s.ncl = 1;
	s.rank = 0;
	s.unit = (int)blockIdx.x / CLUSTER_K;
	s.units = (int)gridDim.x / CLUSTER_K;
#else
	s.ncl = (int)cluster_nranks();
	s.rank = (int)cluster_rank();
	s.unit = (int)blockIdx.x / s.ncl;
	s.units = (int)gridDim.x / s.ncl;
#endif
	s.cm = cm;
	const int tm = (M + BLOCK_M - 1) / BLOCK_M, tn = (N + BLOCK_N - 1) / BLOCK_N;
	const int cn = s.ncl / cm;
	const wg_pos_t tiles = (wg_pos_t)((tm + cm - 1) / cm) * ((tn + cn - 1) / cn);
#if STREAM_K
	s.T = tiles * s.kt_all;
	s.next = (long long)s.unit * s.T / s.units;
	s.end = (long long)(s.unit + 1) * s.T / s.units;
#else
	s.T = tiles;
	s.next = s.unit;
	s.end = tiles;
#endif
	s.at = 0;
	return s;
}

/* The next segment into p; false when the block has no more. */
static __device__ __forceinline__ bool wg_next(wg_sched &s, tile_pos &p, int M, int N, int K)
{
	if (s.next >= s.end)
		return false;
#if STREAM_K
	const int t = (int)(s.next / s.kt_all), kb = (int)(s.next % s.kt_all);
	const int n = (int)min((long long)(s.kt_all - kb), s.end - s.next);
	p = tile_at(t, M, N, K, s.ncl, s.rank, s.cm);
	p.kt0 = kb;
	p.nkt = n;
	s.at = s.next;
	s.next += n;
#else
	p = tile_at(s.next, M, N, K, s.ncl, s.rank, s.cm);
	s.next += s.units;
#if CLUSTER_K > 1
	const int per = (s.kt_all + CLUSTER_K - 1) / CLUSTER_K;
	p.kt0 = (int)cluster_rank() * per;
	p.nkt = max(0, min(s.kt_all, p.kt0 + per) - p.kt0);
#endif
#endif
	return true;
}

/* Stream-K's fix-up of consumer warpgroup cw's accumulators of segment p (s.at its first
 * k-tile) before the epilogue: true when this block finishes the tile (a whole tile, or
 * its first segment, the later segments' partials added in block order), false when the
 * segment went to ws[blockIdx.x] for the finisher.  Slots hold each thread's registers
 * four at a time, 128 consecutive float4s a group (coalesced); flags[b * NC + cw] is block
 * b's warpgroup cw's.  helper (the TMA path, where the producer warpgroup's warps 1 to NC
 * idle): the threads only arrive on named barrier 5 + cw after their stores and go on to
 * their next segment, and warp 1 + cw raises the flag once they all have (sk_helper); else
 * they wait for one another (named barrier 2 + cw) and one of them raises it.  The finisher
 * waits for every flag it needs first, then reads the partials.  Measured
 * (tests/gpu/sk-probe.c, docs/benchmarks-archive.md 2026-11-30, stop 63): the hand-over
 * had cost its block 2-3.4 us mid-run, the finisher about 1.1 us a partial.  Without
 * STREAM_K every segment is a whole tile: true. */
static __device__ __forceinline__ bool sk_stores(const tile_pos &p, const wg_sched &s)
{
	return !STREAM_K || p.nkt == s.kt_all || p.kt0 == 0;
}

static __device__ __forceinline__ bool sk_fixup(wg_acc_t &acc, const tile_pos &p,
						const wg_sched &s, int cw, float *__restrict__ ws,
						unsigned *__restrict__ flags, bool helper)
{
	if (!STREAM_K || p.nkt == s.kt_all)
		return true; /* (sk_stores: a segment stores when this returns true) */
	constexpr int REGS = MW * (BLOCK_N / 2);
	static_assert(BLOCK_N / 2 % 4 == 0, "sk_fixup: whole float4s of registers");
	const int l = threadIdx.x % 128;
	if (p.kt0 > 0) { /* a later segment: hand it over */
		float4 *mine = (float4 *)(ws + ((long long)blockIdx.x * NC + cw) * 128 * REGS) + l;
#pragma unroll
		for (int i = 0; i < MW; ++i)
#pragma unroll
			for (int j = 0; j < BLOCK_N / 2; j += 4) {
				float4 v;
				v.x = acc[i][j], v.y = acc[i][j + 1], v.z = acc[i][j + 2];
				v.w = acc[i][j + 3];
				__stcg(mine + (i * (BLOCK_N / 2) + j) / 4 * 128, v);
			}
		if (helper) {
			asm volatile("bar.arrive %0, 160;\n" ::"r"(5 + cw) : "memory");
			return false;
		}
		asm volatile("bar.sync %0, 128;\n" ::"r"(2 + cw) : "memory");
		if (l == 0) {
			__threadfence();
			asm volatile("st.release.gpu.global.u32 [%0], %1;\n" ::"l"(
					     flags + blockIdx.x * NC + cw),
				     "r"(1u)
				     : "memory");
		}
		return false;
	}
	/* the first segment: the units (blocks, or clusters: their block of this rank) after
	 * this one hold the rest, up to the owner of the tile's last k-tile (unit u starts at
	 * floor(u T / G)) */
	const long long last = s.at + s.kt_all - 1;
	const int owner = (int)(((last + 1) * s.units + s.T - 1) / s.T) - 1;
	if (l == 0)
		for (int u = s.unit + 1; u <= owner; ++u) {
			unsigned *f = flags + (u * s.ncl + s.rank) * NC + cw, v;
			do
				asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n"
					     : "=r"(v)
					     : "l"(f)
					     : "memory");
			while (v == 0);
			*f = 0; /* consumed: the flags end every launch zero */
		}
	asm volatile("bar.sync %0, 128;\n" ::"r"(2 + cw) : "memory");
	for (int u = s.unit + 1; u <= owner; ++u) {
		const int o = u * s.ncl + s.rank;
		const float4 *theirs = (const float4 *)(ws + ((long long)o * NC + cw) * 128 * REGS) + l;
#pragma unroll
		for (int i = 0; i < MW; ++i)
#pragma unroll
			for (int j = 0; j < BLOCK_N / 2; j += 4) {
				const float4 v = __ldcg(theirs + (i * (BLOCK_N / 2) + j) / 4 * 128);
				acc[i][j] += v.x, acc[i][j + 1] += v.y, acc[i][j + 2] += v.z;
				acc[i][j + 3] += v.w;
			}
	}
	return true;
}

/* The producer warpgroup's warp 1 + hc on the TMA path with STREAM_K: consumer warpgroup hc's
 * hand-over flag (sk_fixup's helper), raised for each of the block's segments that hands a
 * partial over, once hc's 128 threads have written it and arrived on named barrier 5 + hc;
 * the release orders their stores (ordered before it by the barrier) before the flag. */
static __device__ __forceinline__ void sk_helper(int M, int N, int K, int cm, int hc,
						 unsigned *__restrict__ flags)
{
	wg_sched sch = wg_sched_of(M, N, K, cm);
	tile_pos p;
	while (wg_next(sch, p, M, N, K))
		if (p.nkt != sch.kt_all && p.kt0 > 0) {
			asm volatile("bar.sync %0, 160;\n" ::"r"(5 + hc) : "memory");
			if (threadIdx.x % 32 == 0)
				asm volatile("st.release.gpu.global.u32 [%0], %1;\n" ::"l"(
						     flags + blockIdx.x * NC + hc),
					     "r"(1u)
					     : "memory");
		}
}

/* A consumer warp's release of a stage (its "empty" barrier at empty): in its own block, and
 * in a cluster in every other block too, whose multicast writes this stage here. */
static __device__ __forceinline__ void wg_release(unsigned empty, const wg_sched &s)
{
	mbar_arrive(empty);
	for (int r = 0; r < s.ncl; ++r)
		if (r != s.rank)
			mbar_arrive_remote(empty, (unsigned)r);
}

/* ---- the epilogue's second operand by TMA (WG_RES_TMA) -------------------------------- */

/* Each consumer warpgroup's rows of a tile of the M x N second operand (conv.cu's residual),
 * MW * 64 x BLOCK_N, as BLOCK_N / AW swizzled 128-byte atoms (B's stage layout, the map's
 * box 128 bytes x MW * 64 rows), in one of two buffers of its own, after the stages and
 * their barriers (RES_OFF from the 1 KiB-aligned base; the backend adds RES_BYTES to the
 * block's shared memory).  Its first thread issues the copies two finishing segments ahead
 * (those that store, sk_fixup's: kt0 0; the backend uses it only without SPLIT_K), on the
 * buffer's mbarrier (barriers 2 ns + 2 cw + j); the warpgroup waits on it before its
 * epilogue and, once every thread has read the buffer (named barrier 2 + cw), refills it.
 * So a tile's residual is in flight from the end of the epilogue two tiles back: the global
 * loads the epilogue issued itself, two rows at a time between its stores, left a 1x1
 * layer's latency exposed at each tile. */
#ifndef WG_RES
#define WG_RES 0 /* 1: the module carries this path (the backend's, for a residual op's cells:
		  * compiled into every conv.cu module it made each a third slower to compile,
		  * before wg_res_store's one call site: docs/kernels.md) */
#endif
#define RES_SLAB (MW * 64 * BLOCK_N * ES)
#define RES_OFF(ns) ((ns) * TILE_BYTES + 1024)
#define RES_BYTES (2 * NC * RES_SLAB)
static_assert(!WG_RES || BLOCK_N % AW == 0, "WG_RES_TMA: BLOCK_N whole 128-byte atoms");

struct wg_res {
	const tmap_t *map; /* NULL: the store reads the operand from global memory itself */
	unsigned buf, bar; /* this warpgroup's two buffers, their two barriers */
	int row;           /* this warpgroup's first row of a tile */
	wg_sched s;        /* the consumer's walk, ahead of it */
	unsigned issued, used;
};

/* The next finishing segment's rows into buffer issued % 2, when there is one. */
static __device__ __forceinline__ void wg_res_issue(wg_res &r, int M, int N, int K)
{
	tile_pos q;
	while (wg_next(r.s, q, M, N, K)) {
		if (q.kt0 != 0)
			continue; /* a later stream-K segment: its partials go to the finisher */
		if (threadIdx.x % 128 == 0) {
			const unsigned j = r.issued % 2, bar = r.bar + 8 * j;
			mbar_expect_tx(bar, RES_SLAB);
#pragma unroll
			for (int a = 0; a < BLOCK_N / AW; ++a)
				tma_load(r.buf + j * RES_SLAB + a * (MW * 64 * 128), r.map,
					 q.n0 + a * AW, q.m0 + r.row, bar);
		}
		++r.issued;
		return;
	}
}

/* Consumer warpgroup cw's Res pipeline over walk s (base: the ns stages' shared address,
 * bars their barriers), its first two copies issued; map NULL: none. */
static __device__ __forceinline__ wg_res wg_res_of(const tmap_t *map, const wg_sched &s,
						   unsigned base, unsigned bars, unsigned ns, int cw,
						   int M, int N, int K)
{
	wg_res r;
	r.map = map;
	r.buf = base + RES_OFF(ns) + 2 * cw * RES_SLAB;
	r.bar = bars + 8 * (2 * ns + 2 * cw);
	r.row = cw * MW * 64;
	r.s = s;
	r.issued = r.used = 0;
	if (map) {
		wg_res_issue(r, M, N, K);
		wg_res_issue(r, M, N, K);
	}
	return r;
}

/* The store of a finishing segment: store(acc, p, cw, rs, stg, pre), rs the shared address of
 * its rows of the operand once they landed (0 without WG_RES_TMA), stg the warpgroup's
 * scratch (wg_scratch), pre what epre(p) gave before the k-loop (wgmma_body), then the
 * buffer refilled.
 * One call site: the epilogue inlined once, choosing by rs (two calls, one with rs 0, put
 * the whole epilogue in the module twice: a WG_RES module's machine code 45% larger). */
template <class Pre, class Store>
static __device__ __forceinline__ void wg_res_store(wg_res &r, const wg_acc_t &acc,
						    const tile_pos &p, int cw, int M, int N,
						    int K, unsigned stg, const Pre &pre,
						    const Store &store)
{
	const unsigned j = r.used % 2;
	if (r.map)
		mbar_wait(r.bar + 8 * j, (r.used / 2) & 1);
	store(acc, p, cw, r.map ? r.buf + j * RES_SLAB : 0u, stg, pre);
	if (!r.map)
		return;
	asm volatile("bar.sync %0, 128;\n" ::"r"(2 + cw) : "memory"); /* all read it */
	++r.used;
	wg_res_issue(r, M, N, K);
}

#if CLUSTER_K > 1
/* A CLUSTER_K pair's sum of consumer warpgroup cw's accumulators of its tile, each block
 * having run half the k-tiles: warpgroup cw of block cw % 2 finishes its rows (true: acc the
 * sum, to store), the other's gives its registers (false).  The giver stores them to the
 * tile's slot of ws (conv.c's conv_slot_bytes: BLOCK_M * BLOCK_N floats a pair, warpgroup
 * cw's MW * 64 rows of it), four a thread at a time, 128 consecutive float4s a group, and
 * arrives on the finisher's barrier 2 ns + 2 NC + cw (release at cluster scope, every
 * thread); the finisher waits on it (acquire) and reads them from L2 (.cg: never a stale
 * line of its own L1), adds them, and stores as a whole tile would.  Through L2, not the
 * giver's shared memory: on an H200 the finisher's wait and sum of 32 KiB took 2.05-2.11 us
 * by ld.shared::cluster against 1.50-1.57 us through L2, and the giver no longer waits for
 * the finisher's reads (docs/benchmarks-archive.md, stop 70).
 * wg_ck_arrive, not mbar_arrive_remote: its release must be the cluster's, since what it
 * announces is the giver's generic stores, which the peer then reads (mbar_arrive_remote's
 * announce the tensor cores' reads, complete at wgmma.wait_group). */
static __device__ __forceinline__ void wg_ck_arrive(unsigned bar, unsigned rank)
{
	asm volatile("{\n.reg .b32 ra;\nmapa.shared::cluster.u32 ra, %0, %1;\n"
		     "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [ra];\n}\n" ::"r"(bar),
		     "r"(rank)
		     : "memory");
}

static __device__ __forceinline__ bool wg_ck_sum(wg_acc_t &acc, int cw, unsigned bars,
						 unsigned ns, float *ws)
{
	constexpr int Q = MW * (BLOCK_N / 2) / 4; /* float4s a thread */
	static_assert(BLOCK_N / 2 % 4 == 0, "wg_ck_sum: whole float4s of registers");
	const unsigned rank = cluster_rank(), t = threadIdx.x % 128;
	float *g = ws + ((size_t)(blockIdx.x / CLUSTER_K) * NC + (unsigned)cw) *
				(MW * 64 * BLOCK_N) +
		   4 * t;
	const unsigned full = bars + 8 * (2 * ns + 2 * NC + cw);
	float *a = &acc[0][0];
	if ((unsigned)cw % 2 != rank) {
#pragma unroll
		for (int q = 0; q < Q; ++q)
			asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(g + 512 * q),
				     "f"(a[4 * q]), "f"(a[4 * q + 1]), "f"(a[4 * q + 2]),
				     "f"(a[4 * q + 3])
				     : "memory");
		wg_ck_arrive(full, rank ^ 1u);
		return false;
	}
	/* mbar_wait's acquire is the block's; the giver's stores are another block's */
	asm volatile("{\n.reg .pred done;\nWAIT_%=:\n"
		     "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%0], 0;\n"
		     "@!done bra WAIT_%=;\n}\n" ::"r"(full)
		     : "memory");
	float v[4 * Q];
#pragma unroll
	for (int q = 0; q < Q; ++q)
		asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];\n"
			     : "=f"(v[4 * q]), "=f"(v[4 * q + 1]), "=f"(v[4 * q + 2]),
			       "=f"(v[4 * q + 3])
			     : "l"(g + 512 * q)
			     : "memory");
#pragma unroll
	for (int j = 0; j < 4 * Q; ++j)
		a[j] += v[j];
	return true;
}
#endif

/* Consumer warpgroup cw's scratch for the epilogue (wg_acc_h16's 8 KiB): its MW * 64 rows
 * of stage s's A in the stage's first 128-byte atom (MW 8 KiB), which no other warpgroup
 * reads and no copy writes while the warpgroup holds the stage (consumer_tma keeps the last
 * k-tile's stage of a segment that stores until its epilogue is done, or to the end after
 * the block's last segment); with SWAP_AB, where every warpgroup reads all of A's, its own
 * 64 rows of B's first atom.  In the first atom: a stage of two atoms (BLOCK_K 128 in 16
 * bits) holds each atom's rows apart, so the warpgroup's rows of both are not one run, and
 * until stop 71 warpgroup 1's scratch began at the second atom's first row, warpgroup 0's
 * own, which its last k-tile's wgmma may still be reading.  consumer_cpasync has none to
 * give: its one user, gemm.cu's cp.async path, stores without it (conv.cu always loads by
 * its producer or by TMA: consumer_tma). */
static __device__ __forceinline__ unsigned wg_scratch(unsigned sA, unsigned sB, unsigned s,
						     int cw)
{
	static_assert(MW * 64 * 128 >= 8192, "wg_scratch: 8 KiB a warpgroup");
	if (SWAP_AB)
		return sB + s * BLOCK_N * BLOCK_K * ES + (unsigned)cw * 64 * 128;
	return sA + s * BLOCK_M * BLOCK_K * ES + (unsigned)cw * MW * 64 * 128;
}

/* Consumer warpgroup cw when the producer fills the stages (TMA, or WG_PRODUCER_LOADS), for
 * each of its tiles: epre(p) (wgmma_body), then wait for a stage's copies (full barrier),
 * multiply, and once the stage's wgmma group has retired release it (empty barrier, one
 * arrival per consumer warp); then the epilogue store(acc, p, cw, rs, stg, pre), while the
 * producer already loads the next tile's first stages.  The ring r walks the ns stages over
 * all tiles of the block. */
template <class EPre, class Store>
static __device__ __forceinline__ void consumer_tma(int M, int N, int K, unsigned sA, unsigned sB,
						    unsigned bars, unsigned ns, int cw,
						    float *sk_ws, unsigned *sk_flags, int cm,
						    bool helper, const tmap_t *tmR, const EPre &epre,
						    const Store &store)
{
	const int lane = threadIdx.x % 32;
	wg_ring r = {};
	wg_sched sch = wg_sched_of(M, N, K, cm);
	wg_res res = wg_res_of(tmR, sch, sA, bars, ns, cw, M, N, K);
	tile_pos p;
	int seg = 0;
	SK_STAMP(cw, 0);
	while (wg_next(sch, p, M, N, K)) {
		const auto pre = epre(p); /* its loads land while the k-loop runs */
		wg_acc_t acc;
#pragma unroll
		for (int i = 0; i < MW; ++i)
#pragma unroll
			for (int j = 0; j < WG_NI / 2; ++j)
				acc[i][j] = 0.0f;
		for (int kt = 0; kt < p.nkt; ++kt) {
			const unsigned s = ring_s(r, ns);
			mbar_wait(bars + 8 * s, ring_ph(r, ns));
			if (kt == 0)
				SK_SEG(cw, seg, 0, p);
			mma_stage(acc, sA + s * BLOCK_M * BLOCK_K * ES,
				  sB + s * BLOCK_N * BLOCK_K * ES, cw);
			wgmma_wait<1>(); /* the previous k-tile's group retired: free its stage */
			if (kt > 0 && lane == 0)
				wg_release(bars + 8 * (ns + ring_before(r, ns)), sch);
			ring_step(r, ns);
		}
		wgmma_wait<0>();
		/* the last k-tile's stage; a segment that stores keeps it until its epilogue is
		 * done: the epilogue's scratch (wg_scratch) */
		const unsigned last = ring_before(r, ns);
		const bool keep = p.nkt > 0 && sk_stores(p, sch);
		if (p.nkt > 0 && !keep && lane == 0)
			wg_release(bars + 8 * (ns + last), sch);
		SK_SEG(cw, seg, 1, p);
#if CLUSTER_K > 1
		if (seg > 0)
			__trap(); /* one tile a pair (the backend's grid) */
		const bool fin = wg_ck_sum(acc, cw, bars, ns, sk_ws);
#else
		const bool fin = sk_fixup(acc, p, sch, cw, sk_ws, sk_flags, helper);
#endif
		SK_SEG(cw, seg, 2, p);
		if (fin)
			wg_res_store(res, acc, p, cw, M, N, K, wg_scratch(sA, sB, last, cw), pre,
				     store);
		if (seg == 0)
			SK_STAMP(cw, 21);
		wg_sched ahead = sch;
		tile_pos q;
		if (keep && wg_next(ahead, q, M, N, K)) {
			/* the scratch's generic-proxy accesses before the copies that refill it;
			 * after the block's last segment no copy comes (nor a peer's: a cluster's
			 * blocks walk alike), and the fence there held the consumer about 1 us
			 * (tests/gpu/sk-probe.c) */
			asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
			__syncwarp();
			if (lane == 0)
				wg_release(bars + 8 * (ns + last), sch);
		}
		SK_SEG(cw, seg, 3, p);
		++seg;
	}
	SK_STAMP(cw, 17);
}

/* Consumer warpgroup cw when the operands are not plain matrices a tensor map can describe
 * (and WG_PRODUCER_LOADS is 0): the consumer threads fill the stages themselves,
 * load_for(p, ltid) giving tile p's loader for loading thread ltid, load(stage A, stage B,
 * k0, load_b) (cp.async or st.shared into the swizzled layout, not committed; B too when
 * load_b), synchronized among
 * themselves on named barrier 1. */
template <class LoadFor, class EPre, class Store>
static __device__ __forceinline__ void consumer_cpasync(int M, int N, int K, unsigned sA,
							unsigned sB, int cw, float *sk_ws,
							unsigned *sk_flags, const LoadFor &load_for, const EPre &epre,
							const Store &store)
{
	const int ctid = threadIdx.x - 128;
	wg_sched sch = wg_sched_of(M, N, K);
	tile_pos p;
	while (wg_next(sch, p, M, N, K)) {
		const auto load = load_for(p, ctid);
		const auto pre = epre(p);
		wg_acc_t acc;
#pragma unroll
		for (int i = 0; i < MW; ++i)
#pragma unroll
			for (int j = 0; j < BLOCK_N / 2; ++j)
				acc[i][j] = 0.0f;
		/* every warpgroup is done with the last tile's stages */
		asm volatile("bar.sync 1, %0;\n" ::"n"(CTHREADS) : "memory");
#pragma unroll
		for (int s = 0; s < DIST; ++s) {
			if (s < p.nkt)
				load(sA + s * BLOCK_M * BLOCK_K * ES, sB + s * BLOCK_N * BLOCK_K * ES,
				     (p.kt0 + s) * BLOCK_K, true);
			cp_async_commit();
		}
		for (int kt = 0; kt < p.nkt; ++kt) {
			cp_async_wait<DIST - 1>();
			asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
			/* tile kt landed for every consumer, and the wgmma group that read the
			 * stage about to be refilled has retired in every warpgroup */
			asm volatile("bar.sync 1, %0;\n" ::"n"(CTHREADS) : "memory");
			const int s = kt % STAGES;
			mma_stage(acc, sA + s * BLOCK_M * BLOCK_K * ES,
				  sB + s * BLOCK_N * BLOCK_K * ES, cw);
			{
				int nt = kt + DIST, ns = nt % STAGES;
				if (nt < p.nkt)
					load(sA + ns * BLOCK_M * BLOCK_K * ES,
					     sB + ns * BLOCK_N * BLOCK_K * ES, (p.kt0 + nt) * BLOCK_K,
					     true);
				cp_async_commit();
			}
			wgmma_wait<WAITN>();
		}
		wgmma_wait<0>();
		cp_async_wait<0>();
		/* (no scratch, and WG_RES_TMA needs a map: wg_scratch) */
		if (sk_fixup(acc, p, sch, cw, sk_ws, sk_flags, false))
			store(acc, p, cw, 0u, 0u, pre);
	}
}

#if WG_PRODUCER_LOADS
/* cp.async.wait_group n for a run-time n (the instruction takes a constant): 1 to 10, the
 * lags of 3 to 12 stages; any other waits for all, which is always correct. */
static __device__ __forceinline__ void cp_async_wait_n(unsigned n)
{
	switch (n) {
	case 1: cp_async_wait<1>(); break;
	case 2: cp_async_wait<2>(); break;
	case 3: cp_async_wait<3>(); break;
	case 4: cp_async_wait<4>(); break;
	case 5: cp_async_wait<5>(); break;
	case 6: cp_async_wait<6>(); break;
	case 7: cp_async_wait<7>(); break;
	case 8: cp_async_wait<8>(); break;
	case 9: cp_async_wait<9>(); break;
	case 10: cp_async_wait<10>(); break;
	default: cp_async_wait<0>(); break;
	}
}

/* The producer warpgroup filling the ns stages itself (A not a plain matrix): its 128
 * threads issue tile p's cp.async loads (load_for(p, tid)) into the ring's stage once the
 * consumers released it (empty barrier), and announce a stage on its full barrier (one
 * arrival per thread) once their copies of it have landed, lag = ns - 2 stages later (ring
 * a, behind r): cp.async.wait_group, then fence.proxy.async so the tensor cores (the async
 * proxy) see the writes.  tmB (or NULL): B's tensor map; then thread 0 loads B by TMA, its
 * bytes announced on the same full barrier, and the loader fills A alone (load_b false). */
template <class LoadFor>
static __device__ __forceinline__ void producer_cpasync(int M, int N, int K, unsigned sA,
							unsigned sB, unsigned bars, unsigned ns,
							const tmap_t *tmB, const LoadFor &load_for)
{
	const int ptid = threadIdx.x;
	const unsigned lag = ns - 2;
	unsigned it = 0;
#if WG_RT_STAGES
	wg_ring r = {}, a = {}; /* k-tile it's stage, and k-tile it - lag's */
#endif
	wg_sched sch = wg_sched_of(M, N, K);
	tile_pos p;
	while (wg_next(sch, p, M, N, K)) {
		const auto load = load_for(p, ptid);
		for (int kt = 0; kt < p.nkt; ++kt, ++it) {
#if WG_RT_STAGES
			const unsigned s = ring_s(r, ns);
			if (it >= ns) /* the consumers released its last use */
				mbar_wait(bars + 8 * (ns + s), ring_ph(r, ns) ^ 1);
			ring_step(r, ns);
#else /* the count alone (wg_ring's note): a second counter here spilled */
			const int s = it % STAGES;
			if (it >= STAGES) /* the consumers released its last use */
				mbar_wait(bars + 8 * (STAGES + s), ((it / STAGES) - 1) & 1);
#endif
			const int k0 = (p.kt0 + kt) * BLOCK_K;
			if (tmB && ptid == 0) {
				const unsigned full = bars + 8 * s;
				mbar_tx(full, BLOCK_N * BLOCK_K * ES);
#pragma unroll
				for (int a = 0; a < BLOCK_K / AW; ++a)
					tma_load(sB + s * BLOCK_N * BLOCK_K * ES + a * BLOCK_N * 128,
						 tmB, k0 + a * AW, p.n0, full);
			}
			load(sA + s * BLOCK_M * BLOCK_K * ES, sB + s * BLOCK_N * BLOCK_K * ES, k0,
			     !tmB);
			cp_async_commit();
			if (it >= lag) {
				cp_async_wait_n(lag);
				asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#if WG_RT_STAGES
				mbar_arrive(bars + 8 * ring_s(a, ns)); /* k-tile it - lag's */
				ring_step(a, ns);
#else
				mbar_arrive(bars + 8 * ((it - lag) % STAGES));
#endif
			}
		}
	}
	cp_async_wait<0>();
	asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#if WG_RT_STAGES
	for (unsigned j = it > lag ? it - lag : 0; j < it; ++j, ring_step(a, ns))
		mbar_arrive(bars + 8 * ring_s(a, ns));
#else
	for (unsigned j = it > lag ? it - lag : 0; j < it; ++j)
		mbar_arrive(bars + 8 * (j % STAGES));
#endif
}
#endif

/* The backend launches a module with the programmatic-stream-serialization attribute only
 * where this symbol is in its cubin (module.c, cudaLibraryGetGlobal): wgmma_body waits with
 * griddepcontrol.wait before its first global access.  Templates without the wait (an older
 * copy under HARNESS_KERNEL_DIR) lack it and are launched as before. */
extern "C" __device__ const int harness_wg_pdl = 1;

/* The kernel's body over the M x N result with reduction K (the GEMM view), grid.x = any
 * number of blocks up to the tile count (the backend: one per SM times the blocks that fit,
 * "persistent"); block b does tiles b, b + grid.x, ...  use_tma 1: tmA / tmB (boxes of 128
 * bytes of k x BLOCK_M / BLOCK_N rows) describe A (M x K) and B (N x K); 0: load_for fills
 * the stages (producer_cpasync when WG_PRODUCER_LOADS, else consumer_cpasync); 2
 * (WG_PRODUCER_LOADS only): tmB describes B, load_for fills A.  tma_a(p, k, row): with
 * use_tma 1, the loader of tile p's A from k on and from its row `row` on (0, or in a
 * cluster this block's share, the map's box BLOCK_M / ncl rows): a callable (dst, bar, mask)
 * that copies the next 128-byte atom into dst, completing on bar, multicast to the blocks in
 * mask when it is not 0 (gemm.cu: tmA's box at (k, p.m0 + row); conv.cu: that, or an im2col
 * box of X), and steps k by one atom.  The loader decodes its coordinates once a
 * segment: the one producer thread's own instructions bound the copies.  Decoding an im2col
 * box's corner, tap and channel from k and m by eight integer divisions every atom held the
 * load path alone at 0.41 us a k-tile on an H200, whatever the box's rows or the stages in
 * flight; decoded once, 0.14 us at 64 rows, and the 3x3 layers' best configs ran 6-9%
 * faster (tests/gpu/tma-probe.c; docs/benchmarks-archive.md, 2026-11-29 (stop 60)).
 * Clusters need use_tma 1 (the backend's rule: a cluster launch otherwise traps).
 * epre(p): what the epilogue of tile p can load before p's k-loop (conv.cu: the bias, in
 * registers: loaded after the k-loop it held the store of a 64 x 128 tile about 0.4 us on an
 * H200, tests/gpu/sk-probe.c), given to the store.
 * store(acc, p, cw, rs, stg, pre): the epilogue of warpgroup cw's share of tile p, rs the
 * shared address of its rows of tmR's matrix (use_tma's WG_RES_TMA, wg_res) or 0, stg its 8
 * KiB of scratch (wg_scratch; wg_acc_h16's), pre epre(p)'s.  sk_ws, sk_flags:
 * STREAM_K's partial slots (grid.x * BLOCK_M * BLOCK_N floats) and flags (grid.x * NC,
 * zero), unused otherwise.  ns: the stages (STAGES, or the launch's with WG_RT_STAGES).
 * The block has THREADS_WG threads and the dynamic shared memory gemm.cu's header gives. */
template <class TmaA, class LoadFor, class EPre, class Store>
static __device__ __forceinline__ void wgmma_body(int M, int N, int K, const tmap_t *tmA,
						  const tmap_t *tmB, const tmap_t *tmR, int use_tma,
						  unsigned ns, float *sk_ws, unsigned *sk_flags,
						  const TmaA &tma_a, const LoadFor &load_for,
						  const EPre &epre, const Store &store)
{
	extern __shared__ __align__(16) unsigned char smem_raw[];
	const unsigned base = (smem_u32(smem_raw) + 1023) & ~1023u;
	const unsigned sA = base, sB = base + ns * BLOCK_M * BLOCK_K * ES;
	const unsigned bars = base + ns * TILE_BYTES; /* full[ns], empty[ns] */
	const int tid = threadIdx.x, wg = tid / 128;
	SK_STAMP(wg - 1, 16); /* (thread 128: consumer warpgroup 0's first) */
	/* (a CLUSTER_K pair shares no operand: its blocks load alone) */
	const int ncl = CLUSTER_K > 1 ? 1 : (int)cluster_nranks();
	/* the cluster's shape: cm blocks along m (sharing B) times ncl / cm along n (sharing A) */
	const int cm = (use_tma & WG_CLUSTER_M) ? ncl : 1 << ((use_tma >> WG_CLUSTER_CM_SHIFT) & 3);
	if (!WG_RES || !(use_tma & WG_RES_TMA) || SPLIT_K > 1 || CLUSTER_K > 1)
		tmR = nullptr; /* (the backend asks for it only without split-K, on WG_RES modules) */
	use_tma &= ~(WG_CLUSTER_M | WG_RES_TMA | 3 << WG_CLUSTER_CM_SHIFT);
	if (((ncl > 1 || WG_TMA_ONLY) && use_tma != 1) || ncl % cm != 0)
		__trap(); /* a cluster shares A by TMA multicast; a TMA-only module has no other
			   * path: the backend launches neither without the maps (nor a shape that
			   * does not divide the cluster) */
	if (WG_RT_STAGES && (ns < 3 || ns > 12))
		__trap(); /* the launch's depth out of the rings' bounds (the backend's rules) */
	if (CLUSTER_K > 1 && (use_tma != 1 || cluster_nranks() != CLUSTER_K))
		__trap(); /* wg_ck_sum's: the maps and the pair */

	if ((use_tma || WG_PRODUCER_LOADS || tmR) && tid == 0) {
		if (use_tma == 1)
			asm volatile("prefetch.tensormap [%0];\n" ::"l"((unsigned long long)tmA)
				     : "memory");
		if (use_tma)
			asm volatile("prefetch.tensormap [%0];\n" ::"l"((unsigned long long)tmB)
				     : "memory");
		for (unsigned s = 0; s < ns; ++s) {
			/* full: the TMA thread's arrival, or every producer thread's */
			mbar_init(bars + 8 * s, use_tma == 1 ? 1 : 128);
			/* empty: every consumer warp of the cluster's blocks */
			mbar_init(bars + 8 * (ns + s), 4 * NC * ncl);
		}
		if (tmR) {
			asm volatile("prefetch.tensormap [%0];\n" ::"l"((unsigned long long)tmR)
				     : "memory");
			for (int j = 0; j < 2 * NC; ++j) /* the Res buffers': the copies' arrival */
				mbar_init(bars + 8 * (2 * ns + j), 1);
		}
		for (int j = 0; CLUSTER_K > 1 && j < NC; ++j) /* wg_ck_sum's, 128 threads */
			mbar_init(bars + 8 * (2 * ns + 2 * NC + j), 128);
		asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
		asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
	}
	if (ncl > 1 || CLUSTER_K > 1)
		cluster_sync(); /* the peer's barriers are initialised before any remote use */
	else
		__syncthreads();
	SK_STAMP(wg - 1, 18);
	/* programmatic dependent launch (harness_wg_pdl): everything above touched only shared
	 * memory and the kernel's parameters (and, under WG_SK_PROBE, the probe's own stamp),
	 * so it may run under the stream's previous kernel;
	 * every global access below waits for that kernel to complete and its memory to be
	 * visible (a no-op without the launch attribute), and the stream's next kernel may
	 * start its own prologue on whatever SMs free up (its blocks wait the same way) */
	asm volatile("griddepcontrol.wait;\n" ::: "memory");
	if (tid == 0)
		asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
	SK_STAMP(wg - 1, 19);

	if (wg == 0) {
		/* ---- the producer warpgroup: one thread issues every tensor copy ---- */
#ifdef REG_PRODUCER
		asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REG_PRODUCER));
#endif
		if (use_tma == 1 && tid == 0) {
			unsigned it = 0;
#if WG_RT_STAGES
			wg_ring rg = {};
#endif
			wg_sched sch = wg_sched_of(M, N, K, cm);
			tile_pos p;
			/* in a cluster of cm x cn (rank = i cn + j: tile_at's row i, column j): this
			 * block's share of A's rows multicast to its row's blocks, which share A,
			 * and of B's to its column's, which share B */
			const int cn = ncl / cm, ri = sch.rank / cn, rj = sch.rank % cn;
			const int arow = rj * (BLOCK_M / cn), brow = ri * (BLOCK_N / cm);
			const unsigned short amask =
				cn > 1 ? (unsigned short)(((1u << cn) - 1) << (ri * cn)) : 0;
			unsigned short bmask = 0;
			for (int i = 0; cm > 1 && i < cm; ++i)
				bmask |= (unsigned short)(1u << (i * cn + rj));
			while (wg_next(sch, p, M, N, K)) {
				/* the segment's A loader: its coordinates decoded once, then stepped */
				auto load_a = tma_a(p, p.kt0 * BLOCK_K, arow);
				for (int kt = 0; kt < p.nkt; ++kt, ++it) {
#if WG_RT_STAGES
					const unsigned s = ring_s(rg, ns);
					if (it >= ns) /* the consumers released its last use */
						mbar_wait(bars + 8 * (ns + s), ring_ph(rg, ns) ^ 1);
					ring_step(rg, ns);
#else /* the count alone (wg_ring's note) */
					const int s = it % STAGES;
					if (it >= STAGES) /* the consumers released its last use */
						mbar_wait(bars + 8 * (STAGES + s),
							  ((it / STAGES) - 1) & 1);
#endif
					const unsigned full = bars + 8 * s;
					/* the whole stage: A's other rows come from the peers */
					mbar_expect_tx(full, TILE_BYTES);
					const int k0 = (p.kt0 + kt) * BLOCK_K;
#pragma unroll
					for (int a = 0; a < BLOCK_K / AW; ++a) {
						load_a(sA + s * BLOCK_M * BLOCK_K * ES +
							       a * BLOCK_M * 128 + arow * 128,
						       full, amask);
						const unsigned db = sB + s * BLOCK_N * BLOCK_K * ES +
								    a * BLOCK_N * 128 + brow * 128;
						if (bmask)
							tma_load_mc(db, tmB, k0 + a * AW, p.n0 + brow,
								    full, bmask);
						else
							tma_load(db, tmB, k0 + a * AW, p.n0 + brow, full);
					}
				}
			}
		}
		if (STREAM_K && use_tma == 1 && tid / 32 >= 1 && tid / 32 <= NC)
			sk_helper(M, N, K, cm, tid / 32 - 1, sk_flags);
#if WG_PRODUCER_LOADS
		if (use_tma != 1)
			producer_cpasync(M, N, K, sA, sB, bars, ns, use_tma == 2 ? tmB : nullptr,
					 load_for);
#endif
	} else {
		/* ---- the consumer warpgroups ---- */
#ifdef REG_CONSUMER
		asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REG_CONSUMER));
#endif
		const int cw = wg - 1;
		SK_STAMP(cw, 20);
		if (use_tma || WG_PRODUCER_LOADS || WG_TMA_ONLY)
			consumer_tma(M, N, K, sA, sB, bars, ns, cw, sk_ws, sk_flags, cm,
				     use_tma == 1, tmR, epre, store);
#if !WG_PRODUCER_LOADS && !WG_TMA_ONLY
		else
			consumer_cpasync(M, N, K, sA, sB, cw, sk_ws, sk_flags, load_for, epre,
					 store);
#endif
	}
	if (ncl > 1)
		cluster_sync(); /* no block leaves while its peer may write into it */
}

#endif /* WGMMA_CUH */
