/* gemm-config.h: the validity rules of templates/gemm.cu as a C function, so a backend can
 * reject a config before spending an NVRTC compile on it. Header-only, no CUDA headers. */
#ifndef CUDA_GEMM_CONFIG_H
#define CUDA_GEMM_CONFIG_H

/* One gemm.cu config: the -D fields; warps_m = 0 takes the template's default split. */
struct cuda_gemm_config {
	int block_m, block_n, block_k;
	int warps, warps_m;
	int stages, split_k, group_m;
	int elem_bytes; /* 2 for float16/bfloat16, 4 for float32 */
	int tf32;       /* float32 only: 1 = TF32 tensor cores, 0 = FFMA */
	int wgmma;      /* 1 = the wgmma path (sm_90a, 16-bit or TF32): derived,
			 * cuda_gemm_use_wgmma() */
	int swap_ab;    /* conv.cu's SWAP_AB (0 elsewhere): each consumer warpgroup takes 64 of
			 * BLOCK_N as wgmma's m and all BLOCK_M rows as its n */
};

/* Whether config c takes the Hopper path on target sm90a, derived from the Triton fields as
 * Triton does on Hopper (no field of its own, so every tuner reaches it): float16/bfloat16
 * or float32 on TF32 (operands rounded to TF32 in shared memory; checked on an H100,
 * docs/BENCHMARKS.md), WARPS 4 or 8 (1 or 2 consumer
 * warpgroups; the block gets one more, the producer), BLOCK_M 64 or 128 rows per consumer
 * warpgroup, BLOCK_N 64, 112, 128 or 256 (112: conv.c's, for tile counts that fit the SMs),
 * BLOCK_K a multiple of 128 bytes (one swizzle atom: 64
 * 16-bit or 32 tf32 elements); or WARPS 12, three consumer warpgroups of 64 rows (BLOCK_M
 * 192) and BLOCK_N 64 or 128 (CUDA_WGMMA_WARPS3_MAX_N: what their register budget holds).
 * Every other config takes mma.sync (or FFMA). */
#define CUDA_WGMMA_WARPS3_MAX_N 128
static inline int cuda_wgmma_block_n(int n)
{
	return n == 64 || n == 112 || n == 128 || n == 256;
}
/* With SWAP_AB (conv.c's field; wgmma.cuh) the path is 16-bit, 4 or 8 warps with BLOCK_N
 * 64 a consumer warpgroup, and BLOCK_M wgmma's n: 64, 96, 112, 128, 192 or 256. */
static inline int cuda_wgmma_swap_ok(const struct cuda_gemm_config *c)
{
	int m = c->block_m;
	return c->elem_bytes == 2 && (c->warps == 4 || c->warps == 8) &&
	       c->block_n == 16 * c->warps && c->block_k % 64 == 0 &&
	       (m == 64 || m == 96 || m == 112 || m == 128 || m == 192 || m == 256);
}
static inline int cuda_gemm_use_wgmma(const struct cuda_gemm_config *c, int sm90a)
{
	int wg = c->warps / 4;
	if (c->swap_ab)
		return sm90a && cuda_wgmma_swap_ok(c);
	if (!sm90a || (c->elem_bytes != 2 && !(c->elem_bytes == 4 && c->tf32)) ||
	    (c->warps != 4 && c->warps != 8 && c->warps != 12))
		return 0;
	if (c->block_m % (64 * wg) != 0 || c->block_m / (64 * wg) > (wg == 3 ? 1 : 2))
		return 0;
	if (!cuda_wgmma_block_n(c->block_n))
		return 0;
	if (wg == 3 && c->block_n > CUDA_WGMMA_WARPS3_MAX_N)
		return 0;
	return c->block_k % (128 / c->elem_bytes) == 0;
}

/* The smallest BLOCK_M the wgmma path takes with warps WARPS: 64 rows a consumer warpgroup
 * (0 when warps is not 4, 8 or 12). */
static inline int cuda_gemm_wgmma_min_m(int warps)
{
	return warps == 4 || warps == 8 || warps == 12 ? 64 * (warps / 4) : 0;
}

/* Threads of a block of config c: 32 * WARPS, plus the producer warpgroup on wgmma. */
static inline int cuda_gemm_threads(const struct cuda_gemm_config *c)
{
	return 32 * c->warps + (c->wgmma ? 128 : 0);
}

/* The template's default WARPS_M for a config (see gemm.cu's header). */
static inline int cuda_gemm_warps_m(const struct cuda_gemm_config *c)
{
	if (c->warps_m > 0)
		return c->warps_m;
	switch (c->warps) {
	case 1:
		return 1;
	case 2:
		return c->block_m >= c->block_n ? 2 : 1;
	case 4:
		return 2;
	case 8:
		return c->block_m >= c->block_n ? 4 : 2;
	default:
		return 4;
	}
}

/* Dynamic shared memory gemm needs for c, in bytes (tiles padded by 16 bytes a row). */
static inline long cuda_gemm_smem_bytes(const struct cuda_gemm_config *c)
{
	long epc = 16 / c->elem_bytes;
	if (c->wgmma) /* swizzled 128-byte rows, 1 KiB to align the base, 1 KiB of mbarriers */
		return (long)c->stages * (c->block_m + c->block_n) * c->block_k * c->elem_bytes +
		       2048;
	return (long)c->stages * (c->block_m + c->block_n) * (c->block_k + epc) * c->elem_bytes;
}

/* use_tma's flags on the wgmma path (wgmma.cuh's WG_CLUSTER_M, WG_RES_TMA and
 * WG_CLUSTER_CM_SHIFT, the same values: test-cuda checks them against the template): a
 * cluster's blocks all along m, sharing B; the epilogue's second operand by its own tensor
 * map; the shift of a 2-D cluster's log2 of its blocks along m (two bits). */
#define CUDA_USE_TMA_CLUSTER_M 16
#define CUDA_USE_TMA_RES 32
#define CUDA_USE_TMA_CM_SHIFT 6

/* Shared memory wgmma.cuh's WG_RES_TMA adds to config c's (RES_BYTES: two buffers of the
 * tile's rows of the epilogue's second operand, each consumer warpgroup's own). */
static inline long cuda_wgmma_res_bytes(const struct cuda_gemm_config *c)
{
	return 2L * c->block_m * c->block_n * c->elem_bytes;
}

/* Check c against gemm.cu's static_asserts and the device's opt-in shared memory per block
 * (smem_limit, bytes; cudaDevAttrMaxSharedMemoryPerBlockOptin). sm90a: the target is sm_90a
 * (wgmma allowed). Returns the shared memory the config needs, or -1 with *why (a static
 * string) saying which rule it breaks. */
static inline long cuda_gemm_config_check(const struct cuda_gemm_config *c, long smem_limit,
					  int sm90a, const char **why)
{
	int mma = c->elem_bytes == 2 || c->tf32;
	int kstep = c->elem_bytes == 2 ? 16 : (c->tf32 ? 8 : 1);
	int wm, wn, warps_m;
	long smem;

	if (c->elem_bytes != 2 && c->elem_bytes != 4)
		return *why = "element size must be 2 or 4 bytes", -1;
	if (c->swap_ab && !c->wgmma)
		return *why = "SWAP_AB needs the wgmma path: sm_90a, 16-bit, BLOCK_N 64 a consumer "
			      "warpgroup (WARPS 4 or 8), BLOCK_M 64, 96, 112, 128, 192 or 256",
		       -1;
	if (c->warps == 12 && !c->wgmma)
		return *why = "WARPS 12 (three consumer warpgroups) needs the wgmma path: sm_90a, "
			      "16-bit or TF32, BLOCK_M 192, BLOCK_N 64 or 128",
		       -1;
	if (c->warps != 1 && c->warps != 2 && c->warps != 4 && c->warps != 8 && c->warps != 12 &&
	    c->warps != 16)
		return *why = "WARPS must be 1, 2, 4, 8 or 16 (12 on wgmma)", -1;
	if (c->wgmma) {
		int wg = c->warps / 4;
		if (!sm90a)
			return *why = "WGMMA needs the sm_90a target", -1;
		if (c->elem_bytes != 2 && !c->tf32)
			return *why = "WGMMA needs float16, bfloat16 or TF32", -1;
		if (c->block_k % (128 / c->elem_bytes) != 0)
			return *why = "WGMMA: BLOCK_K must be a multiple of 128 bytes (64, tf32: 32)",
			       -1;
		if (c->warps != 4 && c->warps != 8 && c->warps != 12)
			return *why = "WGMMA: WARPS must be 4, 8 or 12", -1;
		if (!c->swap_ab && !cuda_wgmma_block_n(c->block_n))
			return *why = "WGMMA: BLOCK_N must be 64, 112, 128 or 256", -1;
		if (!c->swap_ab &&
		    (c->block_m % (64 * wg) != 0 || c->block_m / (64 * wg) > (wg == 3 ? 1 : 2)))
			return *why = "WGMMA: BLOCK_M must be 64 or 128 per warpgroup (64 of 3)", -1;
		if (wg == 3 && c->block_n > CUDA_WGMMA_WARPS3_MAX_N)
			return *why = "WGMMA: three warpgroups take BLOCK_N 64 or 128 (registers)", -1;
	}
	/* (SWAP_AB's rows go to the instruction's n: no warp splits them) */
	warps_m = cuda_gemm_warps_m(c);
	if (warps_m < 1 || c->warps % warps_m != 0)
		return *why = "WARPS_M must divide WARPS", -1;
	if (c->block_m <= 0 || c->block_n <= 0 || c->block_k <= 0)
		return *why = "BLOCK_M, BLOCK_N and BLOCK_K must be positive", -1;
	if (c->stages < 2 || c->stages > (c->wgmma ? 12 : 8))
		return *why = "STAGES must be 2..8 (2..12 on the wgmma path)", -1;
	if (c->split_k < 1 || c->group_m < 1)
		return *why = "SPLIT_K and GROUP_M must be >= 1", -1;
	if (c->block_k % (16 / c->elem_bytes) != 0 || c->block_k % kstep != 0)
		return *why = "BLOCK_K must be a multiple of 16 bytes and of the mma k", -1;
	/* (on wgmma a consumer warpgroup takes whole m64 slabs: checked above) */
	if (!c->wgmma && (c->block_m % warps_m != 0 || c->block_n % (c->warps / warps_m) != 0))
		return *why = "the warps must split the tile evenly", -1;
	wm = c->block_m / warps_m;
	wn = c->block_n / (c->warps / warps_m);
	if (mma && !c->wgmma && (wm % 16 != 0 || wn % 16 != 0))
		return *why = "warp tile must be a multiple of 16x16", -1;
	if (!mma && (wm % 8 != 0 || wn % 4 != 0))
		return *why = "FFMA warp tile must be a multiple of 8x4", -1;
	if ((long)c->block_m * c->block_n / (32 * c->warps) > 128)
		return *why = "more than 128 accumulators per thread", -1;
	smem = cuda_gemm_smem_bytes(c);
	if (smem > smem_limit)
		return *why = "shared memory over the device's limit per block", -1;
	return smem;
}

#endif
