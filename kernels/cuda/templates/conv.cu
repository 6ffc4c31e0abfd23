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
 * The main loop is mainloop.cuh's, the one gemm.cu's mma.sync / FFMA kernel runs: the tiles
 * land in padded shared memory by cp.async and feed ldmatrix + mma.sync (or FFMA); this file
 * gives it the gather of A's rows (load_a below) and the weights as B (load_tile), and adds
 * the fused epilogue.  The headers are spliced in place of their include lines before NVRTC
 * sees the text (kernels/cuda/nvrtc.c).  One compiled config serves every shape: all sizes
 * are kernel arguments.
 *
 * Config fields (-D macros, Triton's vocabulary, the same as gemm.cu's; defaults in brackets):
 *   BLOCK_M [128], BLOCK_N [128], BLOCK_K [32]  tile of Y (pixels x channels) and its k step
 *   WARPS [4], STAGES [3], GROUP_M [8]          as gemm.cu (WARPS_M as gemm.cu too)
 *   SPLIT_K [1]   the reduction RS*RS*C cut into SPLIT_K runs (grid z); each writes its fp32
 *                 partial to ws, conv_splitk_reduce sums them in a fixed order and applies the
 *                 epilogue (deterministic; no atomics)
 *   STREAM_K [0]  (WGMMA=1, SPLIT_K 1) 1: the persistent blocks share the k-tiles of all
 *                 tiles evenly (wgmma.cuh's stream-K), a tile cut between blocks summed through
 *                 fp32 slots of ws in a fixed order (deterministic); the backend picks the
 *                 grid (its values 1 and 2: one or two blocks an SM, as they fit)
 *   CLUSTER_K [1] (WGMMA=1, X by a map, no STREAM_K or SPLIT_K) 2: a cluster of two blocks
 *                 takes one tile, half its k-tiles each, one half's fp32 sums handed to the
 *                 other through a slot of ws (L2) in a fixed order (wgmma.cuh's wg_ck_sum);
 *                 the backend launches two blocks a tile
 *   SWAP_AB [0]   (WGMMA=1, 16-bit, TMA-only, whole tiles) 1: each consumer warpgroup
 *                 multiplies 64 of the tile's output channels as wgmma's m by its BLOCK_M
 *                 pixels (96 and 112 too) as the n and stores the transpose (wgmma.cuh's
 *                 wg_acc_h16t); the fused epilogue without a residual alone (it traps
 *                 otherwise: the backend's rules)
 *   WG_RT_STAGES [0]  (WGMMA=1) 1: the pipeline's depth is the kernel's argument `stages`
 *                 (3 to 12), not STAGES: the backend's on this path with 4 or 8 warps, so
 *                 configs that differ only in STAGES share one module (wgmma.cuh)
 * Epilogue: a kernel argument, not a macro, so one cubin per config serves all four conv
 *   ops (conv2d, conv2d_bias, conv2d_bias_relu, conv2d_bias_relu_add): epi bit 0 adds
 *   bias[k], bit 1 adds Res (the bottleneck's identity), bit 2 applies ReLU; the branches
 *   are uniform across the grid.  On the 16-bit wgmma path each thread writes runs of 8
 *   outputs, 16-byte stores of Y: wgmma.cuh's wg_acc_h16 sums bias, Res and ReLU in the
 *   accumulators' own layout (the bias a register an n8 tile; Res read by ldmatrix from
 *   shared memory when RES_TMA brought it, else two-element loads of the same places) and
 *   moves the 16-bit outputs through shared memory by stmatrix (stop 68; on an H200 the
 *   best config 3% faster at 64 -> 256 1x1 at 56x56, neutral at the 7x7 layers).  The 16-byte
 *   runs, measured on an H100 (docs/BENCHMARKS.md, 2026-11-25): over ResNet-50's 24
 *   convolutions the best template went from 53% to 74% of cuDNN's throughput, the 1x1
 *   convolutions with large outputs from about half of cuDNN's to par; the two-element
 *   stores covered half of each 32-byte sector.  The TF32 wgmma path and mma.sync store
 *   pairs (out_pair), FFMA single elements.
 * The fused epilogue has one form a kernel, with no fallback inside: the backend (conv.c,
 *   conv_fused) launches it only where its wide accesses are legal (16-bit wgmma: K a
 *   multiple of 8 and Y, Res and bias 16-byte aligned; pairs: K even and Y and Res aligned
 *   for two elements).  Anywhere else, as with split-K, the kernel writes its fp32 sums to
 *   the workspace (out_partial) and conv_splitk_reduce applies the epilogue element by
 *   element.  The fallbacks inlined at every store site had made a 16-bit module twice the
 *   machine code, and its compile nearly twice as long (docs/kernels.md, "Compile time").
 * Data type: DTYPE_FLOAT16 / DTYPE_BFLOAT16 (mma.sync m16n8k16, fp32 accumulate),
 *   DTYPE_FLOAT32 with TF32=1 (mma.sync m16n8k8 on operands rounded with cvt.rna.tf32;
 *   wgmma reads them as stored; Y stored rounded to TF32, dtype.cuh),
 *   DTYPE_FLOAT32 (plain FFMA).
 * WGMMA [0]: 1 (sm_90a, 16-bit or TF32; derived from the fields as for gemm.cu,
 *   gemm-config.h cuda_gemm_use_wgmma) builds wgmma.cuh's warp-specialized kernel instead:
 *   the producer warpgroup gathers A's rows into the 128-byte-swizzled stages with cp.async
 *   (load_a_sw below; WG_PRODUCER_LOADS) and the weights with wgmma.cuh's load_tile_sw,
 *   announcing each stage on its mbarrier, while the consumers only multiply.  The
 *   backend passes use_tma = 2 and a tensor map of the weights (K x RS*RS*C) when their
 *   rows are 16-byte aligned: then one producer thread loads B by TMA and the producer
 *   threads gather A alone.  When the convolution is a plain GEMM (1x1, stride 1, no
 *   padding, C and the pointers 16-byte aligned) it passes use_tma = 1 and maps of X as an
 *   M x C matrix and of the weights, and the producer loads both by TMA, as gemm.cu does.
 *   Otherwise, when C is a multiple of BLOCK_K (so a k-tile lies inside one filter tap) and
 *   X is 16-byte aligned, it passes use_tma = 3 and an im2col map of X (N x H x W x C,
 *   bounding box -pad .. pad + 1 - RS, elementStrides the stride, BLOCK_M pixels of AW
 *   channels a box): one producer thread loads A's k-tile as the im2col box of its tap
 *   (tma_load_im2col), zeros at the padding from the copy engine, and B by TMA, so no
 *   producer thread gathers.  HARNESS_CUDA_CONV_IM2COL=0 keeps the gather (the A/B).
 *   WG_TMA_ONLY [0]: 1 (the backend's, cuda_conv_tma_only: the shape's X has a map, so the
 *   launch always passes use_tma 1 or 3) leaves the gather out: no producer thread loads,
 *   so the producer keeps few registers and the consumers take the rest (wgmma.cuh's
 *   REG_PRODUCER), and the module is smaller and compiles faster.
 *
 * Kernels and launch:
 *   conv(const T *X, const T *Wt, const T *bias, const T *Res, T *Y, float *ws,
 *        int N, int H, int W, int C, int K, int P, int Q, int RS, int stride, int pad, int epi)
 *     grid = (ceil(M / BLOCK_M) * ceil(K / BLOCK_N), 1, SPLIT_K), block = 32 * WARPS,
 *     dynamic shared memory as gemm.cu: STAGES * (BLOCK_M + BLOCK_N) * (BLOCK_K + 16 /
 *     sizeof(T)) * sizeof(T) bytes.  ws: NULL (the fused epilogue), or SPLIT_K * M * K
 *     floats for the partials (SPLIT_K > 1 always; the fallback at SPLIT_K 1).
 *   WGMMA=1: conv(..., epi, tmA, tmB, use_tma, flags, pw, tmR, stages), the maps as gemm.cu's (A: X
 *     as M x C, B: the weights as K x RS*RS*C); use_tma 0 (any maps), 1 (both), 2 (tmB only),
 *     3 (both, tmA X's im2col map), with wgmma.cuh's flags: WG_CLUSTER_M (a cluster along
 *     m; or the field from WG_CLUSTER_CM_SHIFT, a 2-D cluster's blocks along m), WG_RES_TMA
 *     (tmR maps Res as M x K, boxes of 128 bytes x a consumer warpgroup's rows, read by
 *     TMA into shared memory: the space's RES_TMA; compiled in with WG_RES=1,
 *     the backend's for a residual op, the shared memory RES_BYTES more);
 *     grid = (G, 1, SPLIT_K) for any G >= 1 (persistent, as gemm.cu), block = 32 * WARPS
 *     + 128, dynamic shared memory as gemm.cu's wgmma kernel.  STREAM_K: G no more than
 *     fit at once, ws G * BLOCK_M * BLOCK_N floats, flags G * WARPS / 4 zeroed words (each
 *     launch leaves them zero); otherwise ws and flags are unused.  pw: the partials, as
 *     the other kernel's ws (NULL: the fused epilogue).  stages: the depth with
 *     WG_RT_STAGES=1 (the dynamic shared memory sized for it), ignored without.
 *   conv_splitk_reduce(const float *ws, const T *bias, const T *Res, T *Y, int M, int K, int epi)
 *     grid = ceil(M * K / 256), block = 256.
 *   conv_epilogue(T *Y, const T *bias, const T *Res, long long total, int K, int epi)
 *     in place, Y = act(Y + bias + Res): the epilogue after a vendor convolution (cuDNN's
 *     cudnnConvolutionForward when its fused call does not serve the op); grid-stride,
 *     block = 256, any grid.
 *   conv_s2d(const T *X, const T *Wt, T *Z, T *W2, int N, int H, int W, int C, int K, int RS,
 *            int pad, int C2, int RS2, int zblocks)
 *     the space-to-depth pre-pass of a stride-2 convolution over few channels (below).
 *   EPILOGUE_ONLY=1 (the backend's vendor point): conv_epilogue alone, the others left
 *     out, so the vendor's module compiles in a tenth of the time (no main loop for ptxas).
 *
 * Gathers: when C % (16 / sizeof(T)) == 0 and X is 16-byte aligned, a 16-byte chunk of A's
 * row never crosses a filter tap, and comes in with one cp.async (zero-filled outside the
 * image: that is the padding); otherwise (odd channel counts) element by element, right for
 * any shape.  A stride-2 convolution over such a C (the 7x7 stem's 3 channels) the backend
 * turns into a stride-1 one over whole chunks first: conv_s2d below, conv.c's
 * cuda_conv_s2d.  Each thread owns one chunk column of the tile, so it decodes (r, s, c)
 * of its k once per k-tile and (n, p, q) of its rows once per block.
 */

#include "mainloop.cuh"

#define EPI_BIAS 1
#define EPI_RESIDUAL 2
#define EPI_RELU 4

static_assert(THREADS % CPR == 0, "a tile row's chunks must divide the threads");

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

#ifndef EPILOGUE_ONLY
#define EPILOGUE_ONLY 0
#endif
#if !EPILOGUE_ONLY /* the vendor point's module needs conv_epilogue alone (see the header) */

/* Outputs (row, col) and (row, col + 1) of the implicit GEMM (col even), each inside M x K
 * only, as fp32 partials into Pw (split-K's, or the fallback's: the backend's rule, header). */
static __device__ __forceinline__ void out_partial(float *__restrict__ Pw, int M, int K, int row,
						   int col, float v0, float v1)
{
	if (row >= M || col >= K)
		return;
	const long long i = (long long)row * K + col;
	Pw[i] = v0;
	if (col + 1 < K)
		Pw[i + 1] = v1;
}

/* The same two outputs into Y through the epilogue, by one two-element load of Res and store
 * of Y: the backend launches this only with K even and Y and Res aligned for them (col is
 * even, so a pair never crosses a row); the sums and the rounding are epilogue()'s.  rs:
 * the pair of Res at that shared address (wgmma.cuh's res_at), or 0: from Res. */
[[maybe_unused]] static __device__ __forceinline__ void
out_pair(elem_t *__restrict__ Y, const elem_t *__restrict__ bias, const elem_t *__restrict__ Res,
	 int M, int K, int row, int col, float v0, float v1, int epi, unsigned rs = 0)
{
	if (row >= M || col >= K)
		return;
	const long long i = (long long)row * K + col;
	float a = v0, b = v1;
	if (epi & EPI_BIAS) {
		a += to_float(bias[col]);
		b += to_float(bias[col + 1]);
	}
#if defined(DTYPE_FLOAT16) || defined(DTYPE_BFLOAT16)
	if (epi & EPI_RESIDUAL) {
		unsigned r;
		if (rs)
			asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(r) : "r"(rs));
		else
			r = *(const unsigned *)(Res + i);
		a += to_float((elem_t)(r & 0xffffu));
		b += to_float((elem_t)(r >> 16));
	}
	if (epi & EPI_RELU) {
		a = a > 0.0f ? a : 0.0f;
		b = b > 0.0f ? b : 0.0f;
	}
	*(unsigned *)(Y + i) = (unsigned)from_float(a) | ((unsigned)from_float(b) << 16);
#else
	if (epi & EPI_RESIDUAL) {
		float2 r;
		if (rs)
			asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];\n"
				     : "=f"(r.x), "=f"(r.y)
				     : "r"(rs));
		else
			r = *(const float2 *)(Res + i);
		a += r.x;
		b += r.y;
	}
	if (epi & EPI_RELU) {
		a = a > 0.0f ? a : 0.0f;
		b = b > 0.0f ? b : 0.0f;
	}
	*(float2 *)(Y + i) = make_float2(from_float(a), from_float(b));
#endif
}


/* ---- the implicit-GEMM kernel -------------------------------------------------------- */


/* EPC elements as one 16-byte chunk (the gathers and conv_s2d assemble them one by one). */
union chunk_u {
	elem_t e[EPC];
	uint4 v;
};

/* One 16-byte chunk of A gathered element by element (C not a multiple of EPC, or X not
 * 16-byte aligned: odd channel counts, the stem with HARNESS_CUDA_CONV_S2D=0): the EPC
 * elements from k = gk on,
 * the first at filter tap (sy, sx) and channel c, of the row whose window corner is (y0, x0)
 * and whose corner element is X[off]; zero outside the image, past KK, and for a row that is
 * not (row_ok false: past M).  Both kernels' gathers take it.  The element loop stays rolled:
 * unrolled at every chunk site of a tile it was a fifth of a wgmma module's machine code, for
 * a path no ResNet layer takes. */
[[maybe_unused]] static __device__ __forceinline__ uint4
gather_chunk(const elem_t *__restrict__ X, bool row_ok, long long off, int y0, int x0, int H,
	     int W, int C, int RS, int KK, int gk, int c, int sx, int sy)
{
	chunk_u u;
#pragma unroll 1
	for (int e = 0; e < EPC; ++e) {
		const bool ok = row_ok && gk + e < KK && (unsigned)(y0 + sy) < (unsigned)H &&
				(unsigned)(x0 + sx) < (unsigned)W;
		u.e[e] = ok ? X[off + (long long)((sy * W + sx) * C + c)] : (elem_t)0;
		if (++c == C) {
			c = 0;
			if (++sx == RS) {
				sx = 0;
				++sy;
			}
		}
	}
	return u.v;
}

#if !WGMMA
/* ---- mma.sync / FFMA: mainloop.cuh's loop with the gathered A ---------------------------- */
#if defined(STREAM_K) && STREAM_K
#error "STREAM_K needs WGMMA=1"
#endif

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
			const long long off =
				ar.base[i] + (long long)(ar.y0[i] * W + ar.x0[i]) * C;
			*(uint4 *)dst = gather_chunk(X, ar.base[i] >= 0, off, ar.y0[i], ar.x0[i], H,
						     W, C, RS, KK, gk, ci, rx, ry);
		}
	}
}

extern "C" __global__ void __launch_bounds__(THREADS)
	conv(const elem_t *__restrict__ X, const elem_t *__restrict__ Wt,
	     const elem_t *__restrict__ bias, const elem_t *__restrict__ Res, elem_t *__restrict__ Y,
	     float *__restrict__ ws, int N, int H, int W, int C, int K, int P, int Q, int RS,
	     int stride, int pad, int epi)
{
	const int M = N * P * Q, KK = RS * RS * C;
	acc_t acc;
	tile_pos tile;
	mainloop(acc, &tile, M, K, KK, [&](const tile_pos &p) {
		const bool vec_a = (C % EPC) == 0 && (((unsigned long long)X) & 15) == 0;
		const bool vec_b = (KK % EPC) == 0 && (((unsigned long long)Wt) & 15) == 0;
		const int tid = threadIdx.x;
		arow ar;
#pragma unroll
		for (int i = 0; i < AITERS; ++i) {
			int gm = p.m0 + tid / CPR + i * AROWS;
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
		return [=](elem_t *a, elem_t *b, int k0) {
			load_a(a, X, ar, H, W, C, RS, KK, k0, vec_a);
			load_tile<BLOCK_N>(b, Wt, KK, K, p.n0, KK, k0, vec_b);
		};
	});

	/* epilogue: Y directly, or (ws not NULL: split-K, or the fallback) this split's fp32
	 * partial into ws[z][M][K] */
	float *Pw = ws ? ws + (long long)blockIdx.z * M * K : (float *)0;
#if USE_MMA
	const int tid = threadIdx.x;
	acc_pairs<MMA_M, MMA_N, 16>(acc, tile.m0 + warp_m0(), 0, 0, tile.n0 + warp_n0(), tid % 32,
				    [&](int row, int col, float v0, float v1) {
					    if (SPLIT_K > 1 || Pw)
						    out_partial(Pw, M, K, row, col, v0, v1);
					    else
						    out_pair(Y, bias, Res, M, K, row, col, v0, v1,
							     epi);
				    });
#else
	acc_each(acc, tile.m0, tile.n0, M, K, [&](int row, int col, float v) {
		long long o = (long long)row * K + col;
		if (SPLIT_K > 1 || Pw)
			Pw[o] = v;
		else
			Y[o] = epilogue(v, bias, Res, o, col, epi);
	});
#endif
}

#else /* WGMMA */
/* ---- wgmma (sm_90a): wgmma.cuh's body with A gathered into the swizzled stages ---------- */

/* The producer warpgroup gathers (wgmma.cuh's producer_cpasync), so the consumers only
 * multiply: the gather's address arithmetic and its latency stay off the tensor cores' path;
 * a TMA-only module (WG_TMA_ONLY) has no gather. */
#ifndef WG_TMA_ONLY
#define WG_TMA_ONLY 0
#endif
#define WG_PRODUCER_LOADS (!WG_TMA_ONLY)
#define WG_CONV 1 /* (wgmma.cuh's WG_MIN_BLOCKS) */
#include "wgmma.cuh"

#if !WG_TMA_ONLY

/* The A rows a loading thread (ltid, of LTHREADS) gathers: chunk column ltid % 8 of each
 * 128-byte atom, rows ltid / 8 + j * WROWS; per row the image's first element offset and
 * the window's corner. */
#define WROWS (LTHREADS / 8)
#define WITERS (BLOCK_M / WROWS)
static_assert(BLOCK_M % WROWS == 0, "WGMMA: the loading threads' rows must tile BLOCK_M");

/* A row past M: its corner so far outside that every tap misses the image. */
#define ROW_OUT (-(1 << 29))

struct arow_w {
	long long off[WITERS]; /* X's offset of the window's corner, n * H * W * C + (y0 * W +
				* x0) * C (negative at the padding; only read inside the image) */
	int y0[WITERS], x0[WITERS]; /* the corner; ROW_OUT past M */
};

/* Stage A (shared address s) for k-tile k0: BLOCK_K / AW atoms of BLOCK_M rows x 128 bytes,
 * 16-byte chunk cc of row r at r * 128 + ((cc ^ (r % 8)) * 16), as load_tile_sw lays out;
 * zeros outside the image (the padding), past M and past KK.  A thread's k (so its filter
 * tap and channel, and their offset in X) is the same for all its rows: it is decoded once
 * an atom, and a row costs two compares and an add.  vec: C % EPC == 0 and X 16-byte
 * aligned, so a chunk never crosses a filter tap (one cp.async); else element loads and one
 * 16-byte shared store. */
static __device__ __forceinline__ void load_a_sw(unsigned s, const elem_t *__restrict__ X,
						 const arow_w &ar, int H, int W, int C, int RS,
						 int KK, int k0, bool vec, int ltid)
{
	const int cc = ltid % 8, r0 = ltid / 8;
#pragma unroll
	for (int a = 0; a < BLOCK_K / AW; ++a) {
		const int gk = k0 + a * AW + cc * EPC;
		const int ci = gk % C, t = gk / C, rx = t % RS;
		const int ry = gk < KK ? t / RS : (1 << 29); /* past KK: no row is inside */
		const int tap = (ry * W + rx) * C + ci;
#pragma unroll
		for (int j = 0; j < WITERS; ++j) {
			const int r = r0 + j * WROWS;
			const unsigned dst = s + a * BLOCK_M * 128 + r * 128 + ((cc ^ (r & 7)) << 4);
			if (vec) {
				const bool ok = (unsigned)(ar.y0[j] + ry) < (unsigned)H &&
						(unsigned)(ar.x0[j] + rx) < (unsigned)W;
				const elem_t *src = ok ? X + (ar.off[j] + tap) : X;
				cp_async16(dst, src, ok ? 16 : 0);
			} else {
				const uint4 u = gather_chunk(X, true, ar.off[j], ar.y0[j], ar.x0[j], H,
							     W, C, RS, KK, gk, ci, rx, t / RS);
				asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst),
					     "r"(u.x), "r"(u.y), "r"(u.z), "r"(u.w));
			}
		}
	}
}

#endif /* !WG_TMA_ONLY */

/* TMA's im2col mode: BLOCK_M / ncl (the map's pixelsPerColumn) output pixels' windows from the
 * corner (w, h) of image n on, in output order (the map's elementStrides are the stride,
 * its bounding box the corners' range, so the walk wraps rows and images as m does), each
 * AW channels from c on at filter tap (s, r) of the window; zeros outside the image (the
 * padding) and past the last image; mask not 0: into the blocks of the cluster in it. */
static __device__ __forceinline__ void tma_load_im2col(unsigned dst, const tmap_t *map, int c,
						       int w, int h, int n, int s, int r,
						       unsigned bar, unsigned short mask)
{
	if (mask) /* multicast to the blocks of the cluster in mask (wgmma.cuh's clusters) */
		asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::"
			     "complete_tx::bytes.multicast::cluster [%0], [%1, {%2, %3, %4, %5}], "
			     "[%6], {%7, %8}, %9;\n" ::"r"(dst),
			     "l"((unsigned long long)map), "r"(c), "r"(w), "r"(h), "r"(n), "r"(bar),
			     "h"((unsigned short)s), "h"((unsigned short)r), "h"(mask)
			     : "memory");
	else
		asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::"
			     "complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8};\n" ::"r"(dst),
			     "l"((unsigned long long)map), "r"(c), "r"(w), "r"(h), "r"(n), "r"(bar),
			     "h"((unsigned short)s), "h"((unsigned short)r)
			     : "memory");
}

/* What the epilogue of a tile loads before its k-loop (wgmma.cuh's epre): in 16 bits the
 * bias of the lane's two columns of each n8 tile, in registers through the k-loop
 * (wg_acc_h16's b). */
struct conv_pre {
	unsigned b[BLOCK_N / 8];
};

extern "C" __global__ void __launch_bounds__(THREADS_WG, WG_MIN_BLOCKS)
	conv(const elem_t *__restrict__ X, const elem_t *__restrict__ Wt,
	     const elem_t *__restrict__ bias, const elem_t *__restrict__ Res, elem_t *__restrict__ Y,
	     float *__restrict__ ws, int N, int H, int W, int C, int K, int P, int Q, int RS,
	     int stride, int pad, int epi, const __grid_constant__ tmap_t tmA,
	     const __grid_constant__ tmap_t tmB, int use_tma, unsigned *__restrict__ flags,
	     float *__restrict__ pw, const __grid_constant__ tmap_t tmR, int stages)
{
	const int M = N * P * Q, KK = RS * RS * C;
	[[maybe_unused]] const bool vec_a = (C % EPC) == 0 && (((unsigned long long)X) & 15) == 0;
	[[maybe_unused]] const bool vec_b = (KK % EPC) == 0 && (((unsigned long long)Wt) & 15) == 0;
	float *Pw = pw ? pw + (long long)blockIdx.z * M * K : (float *)0;
	constexpr int flags_tma = WG_CLUSTER_M | WG_RES_TMA | 3 << WG_CLUSTER_CM_SHIFT;
	const bool im2col = (use_tma & ~flags_tma) == 3;
	wgmma_body(
		M, K, KK, &tmA, &tmB, &tmR, im2col ? 1 | (use_tma & flags_tma) : use_tma,
		WG_RT_STAGES ? (unsigned)stages : (unsigned)STAGES, ws, flags,
		[&](const tile_pos &p, int k, int row) {
			/* the box's first output pixel's window corner (in a cluster, this
			 * block's share of the tile's rows from row on) and k's filter tap
			 * (s, r) and channel c, decoded once: the loader steps them an atom at
			 * a time (a k-tile lies inside one tap: the backend's C % BLOCK_K) */
			const int m = p.m0 + row;
			int n = 0, w0 = 0, h0 = 0, c = 0, s = 0, r = 0;
			if (im2col) { /* a plain box needs none of it: no division there */
				const int pq = m % (P * Q), t = k / C;
				n = m / (P * Q), w0 = (pq % Q) * stride - pad;
				h0 = (pq / Q) * stride - pad, c = k % C, s = t % RS, r = t / RS;
			}
			return [&tmA, im2col, m, n, w0, h0, C, RS, k, c, s,
				r](unsigned dst, unsigned bar, unsigned short mask) mutable {
				if (!im2col) {
					if (mask)
						tma_load_mc(dst, &tmA, k, m, bar, mask);
					else
						tma_load(dst, &tmA, k, m, bar);
					k += AW;
					return;
				}
				tma_load_im2col(dst, &tmA, c, w0, h0, n, s, r, bar, mask);
				if ((c += AW) == C) {
					c = 0;
					if (++s == RS) {
						s = 0;
						++r;
					}
				}
			};
		},
#if WG_TMA_ONLY
		[](const tile_pos &, int) { /* (never called: no producer_cpasync) */
			return [](unsigned, unsigned, int, bool) {};
		},
#else
		[&](const tile_pos &p, int ltid) {
			const int r0 = ltid / 8;
			arow_w ar;
#pragma unroll
			for (int j = 0; j < WITERS; ++j) {
				const int gm = p.m0 + r0 + j * WROWS;
				if (gm < M) {
					const int n = gm / (P * Q), pq = gm % (P * Q);
					ar.y0[j] = (pq / Q) * stride - pad;
					ar.x0[j] = (pq % Q) * stride - pad;
					ar.off[j] = (long long)n * H * W * C +
						    (long long)(ar.y0[j] * W + ar.x0[j]) * C;
				} else {
					ar.off[j] = 0;
					ar.y0[j] = ar.x0[j] = ROW_OUT;
				}
			}
			return [=](unsigned a, unsigned b, int k0, bool load_b) {
				load_a_sw(a, X, ar, H, W, C, RS, KK, k0, vec_a, ltid);
				if (load_b)
					load_tile_sw<BLOCK_N>(b, Wt, KK, K, p.n0, KK, k0, vec_b,
							      ltid);
			};
		},
#endif
		[&](const tile_pos &p) {
			/* only where the store is the fused one: it alone reads them, and only
			 * there are K even and bias aligned for two elements (conv.c's
			 * conv_fused) */
			const bool fused = ES == 2 && SPLIT_K == 1 && !Pw && (epi & EPI_BIAS);
			conv_pre pre;
#if SWAP_AB /* the lane's two columns (wg_acc_h16t's), each bias twice */
			const int c1 = p.n0 + (int)(threadIdx.x / 128 - 1) * 64 +
				       (int)(threadIdx.x / 32 % 4) * 16 + (int)(threadIdx.x % 32) / 4;
#pragma unroll
			for (int e = 0; e < 2; ++e) {
				const unsigned v = fused && c1 + 8 * e < K
							   ? *(const unsigned short *)(bias + c1 + 8 * e)
							   : 0u;
				pre.b[e] = v | v << 16;
			}
#else
			const int c2 = p.n0 + 2 * (threadIdx.x % 4);
#pragma unroll
			for (int nt = 0; nt < BLOCK_N / 8; ++nt)
				pre.b[nt] = fused && c2 + 8 * nt < K
						    ? *(const unsigned *)(bias + c2 + 8 * nt)
						    : 0u;
#endif
			return pre;
		},
		[&](const wg_acc_t &acc, const tile_pos &p, int cw, unsigned rs, unsigned stg,
		    const conv_pre &pre) {
			if (SPLIT_K > 1 || Pw) {
				if (SWAP_AB)
					__trap(); /* (the backend's: the fused epilogue alone) */
				wg_acc_pairs(acc, p.m0, p.n0, cw,
					     [&](int row, int col, float v0, float v1) {
						     out_partial(Pw, M, K, row, col, v0, v1);
					     });
				return;
			}
#if defined(DTYPE_FLOAT16) || defined(DTYPE_BFLOAT16)
			/* bias, Res and ReLU in the accumulators' layout; Res by TMA from shared
			 * memory (rs), else from global memory */
			const bool res = epi & EPI_RESIDUAL;
			const auto cvt = [&](float v0, float v1, unsigned b, unsigned r) {
				if (epi & EPI_BIAS) {
					v0 += to_float((elem_t)(b & 0xffffu));
					v1 += to_float((elem_t)(b >> 16));
				}
				if (res) {
					v0 += to_float((elem_t)(r & 0xffffu));
					v1 += to_float((elem_t)(r >> 16));
				}
				if (epi & EPI_RELU) {
					v0 = v0 > 0.0f ? v0 : 0.0f;
					v1 = v1 > 0.0f ? v1 : 0.0f;
				}
				return (unsigned)from_float(v0) | ((unsigned)from_float(v1) << 16);
			};
			const auto put = [&](int row, int col, const uint4 &u) {
				if (row < M && col < K)
					*(uint4 *)(Y + (long long)row * K + col) = u;
			};
			const auto ldb = [&](int nt) { return pre.b[nt]; };
#if SWAP_AB
			if (res)
				__trap(); /* (the backend's: no second operand with SWAP_AB) */
			wg_acc_h16t(acc, p.m0, p.n0, cw, stg, ldb, cvt, put);
#else
			wg_acc_h16(
				acc, p.m0, p.n0, cw, res ? rs : 0u, stg, res && !rs, ldb,
				[&](int row, int col) {
					return row < M && col < K
						       ? *(const unsigned *)(Res + (long long)row * K + col)
						       : 0u;
				},
				cvt, put);
#endif
#else
			/* Res from shared memory (rs: the warpgroup's rows, wg_res) or global */
			const int r0 = p.m0 + cw * MW * 64;
			wg_acc_pairs(acc, p.m0, p.n0, cw, [&](int row, int col, float v0, float v1) {
				out_pair(Y, bias, Res, M, K, row, col, v0, v1, epi,
					 rs ? res_at(rs, row - r0, col - p.n0) : 0u);
			});
#endif
		});
}
#endif /* WGMMA */

/* The space-to-depth pre-pass (conv.c, cuda_conv_s2d): a stride-2 convolution over C
 * channels (X N x H x W x C, Wt K x RS x RS x C) rewritten as a stride-1 one conv() runs over
 * Z (N x ceil(H/2) x ceil(W/2) x C2) and W2 (K x RS2 x RS2 x C2).  Z's channel j < 4C of block
 * (y2, x2) is X[2 y2 + b, 2 x2 + d, c] with j = (2b + d) C + c, zero outside X and for j >= 4C;
 * W2[k, a, e, j] is Wt[k, 2a + b - pad % 2, 2e + d - pad % 2, c], zero outside the RS x RS
 * window.  Blocks [0, zblocks) write Z a 16-byte chunk a thread, the rest W2 an element a
 * thread.  grid = zblocks + ceil(K RS2 RS2 C2 / 256), block = 256. */
extern "C" __global__ void __launch_bounds__(256)
	conv_s2d(const elem_t *__restrict__ X, const elem_t *__restrict__ Wt, elem_t *__restrict__ Z,
		 elem_t *__restrict__ W2, int N, int H, int W, int C, int K, int RS, int pad, int C2,
		 int RS2, int zblocks)
{
	/* 32-bit index arithmetic throughout (the backend bounds Z's chunks and X below 2^31):
	 * 64-bit division costs the GPU several times more */
	const unsigned H2 = (H + 1) / 2, Wd = (W + 1) / 2, CH = C2 / EPC;
	if ((int)blockIdx.x < zblocks) {
		const unsigned i = blockIdx.x * 256u + threadIdx.x; /* Z's chunk */
		if (i >= (unsigned)N * H2 * Wd * CH)
			return;
		const unsigned pix = i / CH, ch = i - pix * CH;
		const unsigned row = pix / Wd, x2 = pix - row * Wd;
		const unsigned n = row / H2, y2 = row - n * H2;
		chunk_u u;
#pragma unroll
		for (int e = 0; e < EPC; ++e) {
			const int j = (int)ch * EPC + e, bd = j / C, c = j - bd * C;
			const int y = 2 * (int)y2 + (bd >> 1), x = 2 * (int)x2 + (bd & 1);
			const bool ok = bd < 4 && y < H && x < W;
			u.e[e] = ok ? X[(((int)n * H + y) * W + x) * C + c] : (elem_t)0;
		}
		*(uint4 *)(Z + (size_t)i * EPC) = u.v;
		return;
	}
	const int i = ((int)blockIdx.x - zblocks) * 256 + (int)threadIdx.x;
	if (i >= K * RS2 * RS2 * C2)
		return;
	const int t = i / C2, j = i - t * C2, bd = j / C, c = j - bd * C;
	const int ex = t % RS2, ey = t / RS2 % RS2, k = t / (RS2 * RS2);
	const int ry = 2 * ey + (bd >> 1) - pad % 2, rx = 2 * ex + (bd & 1) - pad % 2;
	const bool ok = bd < 4 && ry >= 0 && ry < RS && rx >= 0 && rx < RS;
	W2[i] = ok ? Wt[(k * RS * RS + ry * RS + rx) * C + c] : (elem_t)0;
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

#endif /* !EPILOGUE_ONLY */

/* The epilogue alone, in place, after a vendor convolution. */
extern "C" __global__ void __launch_bounds__(256)
	conv_epilogue(elem_t *Y, const elem_t *__restrict__ bias, const elem_t *__restrict__ Res,
		      long long total, int K, int epi)
{
	for (long long i = (long long)blockIdx.x * 256 + threadIdx.x; i < total;
	     i += (long long)gridDim.x * 256)
		Y[i] = epilogue(to_float(Y[i]), bias, Res, i, (int)(i % K), epi);
}
