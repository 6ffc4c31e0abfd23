/* kernel-check.c: compile the CUDA templates with NVRTC for this GPU, check them against
 * references on fresh random inputs and time them against cuBLASLt / a device copy.
 *
 * usage: kernel-check TEMPLATE_DIR [--no-timing | --gemm-timing | --mb-timing | --tf32]
 * exit: 0 every check passed, 1 a check or compile failed, 77 no GPU, 2 usage.
 *
 * Correctness: inputs uniform in [-1, 1) (fixed seeds, a new seed per check, never zeros),
 * outputs poisoned with NaN (all bits set) before each run; error = ||out - ref|| / ||ref||
 * in float64 against a float64 CPU reference (small GEMMs, every memory-bound op) or cuBLASLt
 * (GEMMs from 1e6 multiply-adds; fp32 compute for the TF32 kernels); bounds fp32 1e-5, TF32
 * 1e-3, fp16/bf16 1e-2; a non-finite element fails.
 * Timing: CUDA events on a dedicated stream; before each sample a buffer of 2x the L2 size is
 * written (cudaMemsetAsync, outside the events); median of the samples.
 * Environment: KC_MB_ONLY=PREFIX checks and times only the memory-bound ops whose name starts
 * so (and no GEMM); KC_SKIP_COMPILE_ALL=1 skips the NVRTC sweep over every config;
 * KC_MB_FAST=1 times float16 and float32 only, at BLOCK 128 and 256; KC_MB_DTYPE=NAME times
 * that dtype only; KC_MB_VEC16=V uses VEC V for the 16-bit types; KC_MB_DEFS="-DX=1 ..." adds
 * template macros (a variant, e.g. -DFWD_OW=2); KC_MB_BWD_OW=K checks and times maxpool_bwd at
 * BWD_OW K only; KC_MB_BATCH=B times the image ops at batch B; KC_MB_GRID=G launches the
 * max-pool kernels on at most G blocks per SM (their loops stride by the grid).
 * maxpool_bwd is checked and timed at BWD_OW 1, 2 and 4 (templates/maxpool.cu). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda.h>
#include <cuda_runtime.h>
#include <cublasLt.h>
#include <nvrtc.h>

#include "nvrtc-common.h"
#include "../../kernels/cuda/gemm-config.h"

/* ---- one error path for every CUDA, driver and cuBLASLt status ------------------------ */

static void gpu_fail(const char *lib, long code, const char *msg, const char *expr,
		     const char *file, int line)
{
	fprintf(stderr, "kernel-check: %s error %ld (%s) in '%s' at %s:%d\n", lib, code,
		msg ? msg : "?", expr, file, line);
	exit(1);
}

#define CK(x)                                                                                  \
	do {                                                                                   \
		cudaError_t e_ = (x);                                                          \
		if (e_ != cudaSuccess)                                                         \
			gpu_fail("cuda", e_, cudaGetErrorString(e_), #x, __FILE__, __LINE__);  \
	} while (0)
#define CKD(x)                                                                                 \
	do {                                                                                   \
		CUresult e_ = (x);                                                             \
		if (e_ != CUDA_SUCCESS) {                                                      \
			const char *s_ = NULL;                                                 \
			cuGetErrorString(e_, &s_);                                             \
			gpu_fail("driver", e_, s_, #x, __FILE__, __LINE__);                    \
		}                                                                              \
	} while (0)
#define CKL(x)                                                                                 \
	do {                                                                                   \
		cublasStatus_t e_ = (x);                                                       \
		if (e_ != CUBLAS_STATUS_SUCCESS)                                               \
			gpu_fail("cublasLt", e_, cublasLtGetStatusString(e_), #x, __FILE__,    \
				 __LINE__);                                                    \
	} while (0)

/* ---- globals of the run --------------------------------------------------------------- */

static const char *tdir;
static char arch[16];
static struct cudaDeviceProp prop;
static long smem_optin;
static cudaStream_t stream;
static void *flush_buf;
static size_t flush_bytes;
static int failures, checks;
static cublasLtHandle_t lt;
static void *lt_ws;
static const size_t lt_ws_bytes = 64u << 20;

enum dtype { F16, BF16, TF32, F32 };
static const char *dtype_name[] = {"float16", "bfloat16", "tf32", "float32"};
static const char *dtype_def[] = {"-DDTYPE_FLOAT16", "-DDTYPE_BFLOAT16",
				  "-DDTYPE_FLOAT32 -DTF32=1", "-DDTYPE_FLOAT32"};
static const double dtype_bound[] = {1e-2, 1e-2, 1e-3, 1e-5};
static size_t esize(enum dtype t)
{
	return t == F16 || t == BF16 ? 2 : 4;
}

/* ---- host conversions and random data -------------------------------------------------- */

static uint16_t f2h(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	uint32_t sign = (x >> 16) & 0x8000, e = (x >> 23) & 0xff, m = x & 0x7fffff;
	int ex = (int)e - 127 + 15;
	if (e == 0xff)
		return (uint16_t)(sign | 0x7c00 | (m ? 0x200 : 0));
	if (ex >= 31)
		return (uint16_t)(sign | 0x7c00);
	if (ex <= 0) {
		if (ex < -10)
			return (uint16_t)sign;
		m |= 0x800000;
		int shift = 14 - ex;
		uint32_t h = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
		if (rem > half || (rem == half && (h & 1)))
			h++;
		return (uint16_t)(sign | h);
	}
	uint32_t h = ((uint32_t)ex << 10) | (m >> 13), rem = m & 0x1fff;
	if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
		h++;
	return (uint16_t)(sign | h);
}

static float h2f(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, x;
	float f;
	if (e == 0) {
		f = ldexpf((float)m, -24);
		return sign ? -f : f;
	}
	if (e == 31)
		x = sign | 0x7f800000 | (m << 13);
	else
		x = sign | ((e - 15 + 127) << 23) | (m << 13);
	memcpy(&f, &x, 4);
	return f;
}

static uint16_t f2bf(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	if ((x & 0x7fffffff) > 0x7f800000)
		return (uint16_t)((x >> 16) | 0x40);
	x += 0x7fff + ((x >> 16) & 1);
	return (uint16_t)(x >> 16);
}

static float bf2f(uint16_t h)
{
	uint32_t x = (uint32_t)h << 16;
	float f;
	memcpy(&f, &x, 4);
	return f;
}

/* value i of a device-format host array of type t, as a double */
static double getv(const void *p, size_t i, enum dtype t)
{
	if (t == F16)
		return h2f(((const uint16_t *)p)[i]);
	if (t == BF16)
		return bf2f(((const uint16_t *)p)[i]);
	return ((const float *)p)[i];
}

static uint64_t rng_state;
static int coarse_values; /* host_random draws from {-1, -0.5, 0, 0.5} only: many ties */
static const char *mb_only; /* $KC_MB_ONLY */
static int mb_grid_per_sm;  /* $KC_MB_GRID, read once (not inside a timed launch); 0: unset */
static double urand(void) /* xorshift64*, uniform in [-1, 1) */
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * 2685821657736338717ull) >> 11) * (2.0 / 9007199254740992.0) -
	       1.0;
}

/* n random elements of type t in host memory (caller frees), from seed. */
static void *host_random(size_t n, enum dtype t, uint64_t seed)
{
	void *p = malloc(n * esize(t));
	size_t i;
	if (!p)
		abort();
	rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
	for (i = 0; i < n; ++i) {
		float f = (float)urand();
		if (coarse_values)
			f = floorf(f * 2) / 2;
		if (t == F16) {
			((uint16_t *)p)[i] = f2h(f);
		} else if (t == BF16) {
			((uint16_t *)p)[i] = f2bf(f);
		} else if (t == TF32) { /* TF32 operands come rounded (wgmma.cuh): cvt.rna in bits */
			uint32_t x;
			memcpy(&x, &f, 4);
			x = (x + 0x1000u) & 0xffffe000u;
			memcpy(&f, &x, 4);
			((float *)p)[i] = f;
		} else {
			((float *)p)[i] = f;
		}
	}
	return p;
}

static void *dev_upload(const void *h, size_t bytes)
{
	void *d;
	CK(cudaMalloc(&d, bytes));
	CK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
	CK(cudaDeviceSynchronize()); /* a pageable copy may return before its DMA ends */
	return d;
}

static void *dev_random(size_t n, enum dtype t, uint64_t seed, void **host)
{
	void *h = host_random(n, t, seed), *d = dev_upload(h, n * esize(t));
	if (host)
		*host = h;
	else
		free(h);
	return d;
}

/* Compare n device-format values against ref (doubles); returns the relative error, or
 * INFINITY when a value is not finite. */
static double rel_error(const void *out, enum dtype t, const double *ref, size_t n)
{
	double num = 0, den = 0;
	size_t i;
	for (i = 0; i < n; ++i) {
		double v = getv(out, i, t), d = v - ref[i];
		if (!isfinite(v))
			return INFINITY;
		num += d * d;
		den += ref[i] * ref[i];
	}
	return den > 0 ? sqrt(num / den) : sqrt(num);
}

static void *download(const void *d, size_t bytes)
{
	void *h = malloc(bytes);
	if (!h)
		abort();
	CK(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
	return h;
}

static void report(const char *what, double err, double bound)
{
	int ok = err <= bound;
	checks++;
	if (!ok)
		failures++;
	printf("%-4s %-78s err %.2e (bound %.0e)\n", ok ? "ok" : "FAIL", what, err, bound);
	fflush(stdout);
}

/* ---- modules ---------------------------------------------------------------------------- */

struct module {
	CUmodule mod;
	int ok;
};

/* Compile file with defines for this device and load it; ok = 0 (and a FAIL line) on error. */
static struct module load_module(const char *file, const char *defines)
{
	struct module m = {NULL, 0};
	struct kc_result r;
	char path[4096], *src = NULL;

	snprintf(path, sizeof(path), "%s/%s", tdir, file);
	if (kc_read_file(path, &src) != 0)
		exit(2);
	kc_compile(src, file, arch, defines, &r);
	free(src);
	if (!r.ok) {
		printf("FAIL compile %s %s\n%s\n", file, defines, r.log ? r.log : "");
		failures++;
		kc_result_release(&r);
		return m;
	}
	CKD(cuModuleLoadData(&m.mod, r.cubin));
	m.ok = 1;
	kc_result_release(&r);
	return m;
}

static CUfunction get_fn(struct module *m, const char *name)
{
	CUfunction f;
	CKD(cuModuleGetFunction(&f, m->mod, name));
	return f;
}

/* ---- timing ----------------------------------------------------------------------------- */

typedef void (*launch_fn)(void *ctx);

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x > y) - (x < y);
}

/* Median time in ms of n samples of fn(ctx), each after an L2 flush outside the events. */
static double time_median(launch_fn fn, void *ctx, int n)
{
	cudaEvent_t ev[2 * 64];
	float ms[64];
	int i;
	if (n > 64)
		n = 64;
	for (i = 0; i < 3; ++i) /* warm-up */
		fn(ctx);
	CK(cudaGetLastError());
	for (i = 0; i < 2 * n; ++i)
		CK(cudaEventCreate(&ev[i]));
	for (i = 0; i < n; ++i) {
		CK(cudaMemsetAsync(flush_buf, i & 0xff, flush_bytes, stream));
		CK(cudaEventRecord(ev[2 * i], stream));
		fn(ctx);
		CK(cudaEventRecord(ev[2 * i + 1], stream));
	}
	CK(cudaGetLastError());
	CK(cudaStreamSynchronize(stream));
	for (i = 0; i < n; ++i)
		CK(cudaEventElapsedTime(&ms[i], ev[2 * i], ev[2 * i + 1]));
	for (i = 0; i < 2 * n; ++i)
		CK(cudaEventDestroy(ev[i]));
	qsort(ms, (size_t)n, sizeof(float), cmp_float);
	return n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
}

/* ---- GEMM: our kernel ------------------------------------------------------------------- */

struct gemm_cfg {
	int bm, bn, bk, warps, stages, split_k, group_m;
};

struct gemm_kernel {
	struct gemm_cfg c;
	enum dtype t;
	int wgmma; /* derived: cuda_gemm_use_wgmma() */
	struct module m;
	CUfunction gemm, reduce;
	long smem;
	int threads, resident; /* blocks of it that fit on the device at once */
	char name[160];
};

/* 1: wgmma kernels take their cp.async path even where tensor maps are possible */
static int force_no_tma;
/* --tf32: the TF32 GEMM checks and timings alone (mma.sync and wgmma configs) */
static int only_tf32;
/* wgmma kernels' grid: 0 one block per tile; -1 persistent, min(tiles, blocks that fit on
 * the device at once); n > 0 min(tiles, n) (many tiles a block, for the checks) */
static int grid_cap = -1;

static void *gemm_ws;
static size_t gemm_ws_bytes;

static int gemm_kernel_init(struct gemm_kernel *k, enum dtype t, struct gemm_cfg c)
{
	struct cuda_gemm_config cc = {c.bm,    c.bn,     c.bk,           c.warps, 0,
				      c.stages, c.split_k, c.group_m, (int)esize(t), t == TF32,
				      0};
	const char *why = NULL;
	char defs[512];

	cc.wgmma = cuda_gemm_use_wgmma(&cc, !strcmp(arch, "sm_90a"));
	memset(k, 0, sizeof(*k));
	k->c = c;
	k->t = t;
	k->wgmma = cc.wgmma;
	k->threads = cuda_gemm_threads(&cc);
	snprintf(k->name, sizeof(k->name), "%s%dx%dx%d w%d s%d sk%d g%d", cc.wgmma ? "wg " : "",
		 c.bm, c.bn, c.bk, c.warps, c.stages, c.split_k, c.group_m);
	k->smem = cuda_gemm_config_check(&cc, smem_optin, !strcmp(arch, "sm_90a"), &why);
	if (k->smem < 0) {
		printf("skip %s %s: %s\n", dtype_name[t], k->name, why);
		return -1;
	}
	snprintf(defs, sizeof(defs),
		 "%s -DBLOCK_M=%d -DBLOCK_N=%d -DBLOCK_K=%d -DWARPS=%d -DSTAGES=%d -DSPLIT_K=%d "
		 "-DGROUP_M=%d -DWGMMA=%d",
		 dtype_def[t], c.bm, c.bn, c.bk, c.warps, c.stages, c.split_k, c.group_m, cc.wgmma);
	k->m = load_module("gemm.cu", defs);
	if (!k->m.ok)
		return -1;
	k->gemm = get_fn(&k->m, "gemm");
	k->reduce = get_fn(&k->m, "gemm_splitk_reduce");
	CKD(cuFuncSetAttribute(k->gemm, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
			       (int)k->smem));
	{
		int per_sm = 0;
		CKD(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k->gemm, k->threads,
								(size_t)k->smem));
		k->resident = (per_sm > 0 ? per_sm : 1) * prop.multiProcessorCount;
	}
	return 0;
}

static void gemm_kernel_release(struct gemm_kernel *k)
{
	if (k->m.ok)
		CKD(cuModuleUnload(k->m.mod));
	k->m.ok = 0;
}

struct gemm_args {
	struct gemm_kernel *k;
	void *A, *B, *C;
	int M, N, K, lda, ldb, ldc;
	/* wgmma kernels: tensor maps of A and B, built once by gemm_args_maps (outside every
	 * timed region); use_tma 0 where the strides or pointers do not allow them */
	CUtensorMap ta, tb;
	int use_tma;
	int grid_cap; /* see the global; copied by gemm_args_maps */
};

static void tmap_encode(CUtensorMap *map, enum dtype t, void *base, int rows, int cols, int ld,
			int box_rows)
{
	cuuint64_t dim[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
	cuuint64_t stride[1] = {(cuuint64_t)ld * esize(t)};
	cuuint32_t box[2] = {(cuuint32_t)(128 / esize(t)), (cuuint32_t)box_rows};
	cuuint32_t estride[2] = {1, 1};
	CKD(cuTensorMapEncodeTiled(map, t == F16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
				   : t == BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
					       : CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
				   2, base, dim, stride, box, estride,
				   CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
				   CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
				   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
}

/* The tensor maps of a wgmma kernel's launch: 128-byte x BLOCK_M (A) and x BLOCK_N (B) boxes,
 * 128-byte swizzle, zeros outside the matrix (the ragged edges). Needs 16-byte aligned
 * pointers and row strides, else the kernel's cp.async path. */
static void gemm_args_maps(struct gemm_args *a)
{
	struct gemm_kernel *k = a->k;
	size_t es = esize(k->t);
	memset(&a->ta, 0, sizeof(a->ta));
	memset(&a->tb, 0, sizeof(a->tb));
	a->grid_cap = grid_cap;
	a->use_tma = k->wgmma && !force_no_tma && (a->lda * es) % 16 == 0 &&
		     (a->ldb * es) % 16 == 0 && ((uintptr_t)a->A % 16) == 0 &&
		     ((uintptr_t)a->B % 16) == 0;
	if (!a->use_tma)
		return;
	tmap_encode(&a->ta, k->t, a->A, a->M, a->K, a->lda, k->c.bm);
	tmap_encode(&a->tb, k->t, a->B, a->N, a->K, a->ldb, k->c.bn);
}

static void gemm_launch(void *ctx)
{
	struct gemm_args *a = ctx;
	struct gemm_kernel *k = a->k;
	unsigned gx = (unsigned)(((a->M + k->c.bm - 1) / k->c.bm) * ((a->N + k->c.bn - 1) / k->c.bn));
	void *ws = NULL;
	if (k->wgmma && a->grid_cap != 0) {
		unsigned cap = a->grid_cap > 0 ? (unsigned)a->grid_cap : (unsigned)k->resident;
		gx = gx < cap ? gx : cap;
	}
	if (k->c.split_k > 1) {
		size_t need = (size_t)k->c.split_k * a->M * a->N * 4;
		if (need > gemm_ws_bytes) {
			CK(cudaStreamSynchronize(stream));
			CK(cudaFree(gemm_ws));
			CK(cudaMalloc(&gemm_ws, need));
			gemm_ws_bytes = need;
		}
		ws = gemm_ws;
	}
	void *args[] = {&a->A,   &a->B,   &a->C,   &ws,  &a->M,  &a->N,      &a->K,
			&a->lda, &a->ldb, &a->ldc, &a->ta, &a->tb, &a->use_tma};
	CKD(cuLaunchKernel(k->gemm, gx, 1, (unsigned)k->c.split_k, (unsigned)k->threads, 1, 1,
			   (unsigned)k->smem, stream, args, NULL));
	if (k->c.split_k > 1) {
		long long mn = (long long)a->M * a->N;
		void *rargs[] = {&ws, &a->C, &a->M, &a->N, &a->ldc};
		CKD(cuLaunchKernel(k->reduce, (unsigned)((mn + 255) / 256), 1, 1, 256, 1, 1, 0,
				   stream, rargs, NULL));
	}
}

/* ---- GEMM: cuBLASLt, first heuristic algorithm ------------------------------------------ */

struct lt_plan {
	cublasLtMatmulDesc_t op;
	cublasLtMatrixLayout_t a, b, c;
	cublasLtMatmulAlgo_t algo;
	void *A, *B, *C;
	float alpha, beta;
};

/* C[M,N] = A[M,K] B[N,K]^T in row-major terms is, column-major, C^T (N x M) = B^T' A' with
 * B as a K x N column-major matrix transposed: transa = T on B, transb = N on A. For TF32
 * kernels exact = 1 asks for fp32 compute (the check's reference), else TF32 compute. */
static void lt_plan_init(struct lt_plan *p, enum dtype t, int exact, int M, int N, int K,
			 int lda, int ldb, int ldc, void *A, void *B, void *C)
{
	cudaDataType_t dt = t == F16 ? CUDA_R_16F : (t == BF16 ? CUDA_R_16BF : CUDA_R_32F);
	cublasComputeType_t ct =
		(t == TF32 && !exact) ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
	cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
	cublasLtMatmulPreference_t pref;
	cublasLtMatmulHeuristicResult_t heur;
	int found = 0;

	CKL(cublasLtMatmulDescCreate(&p->op, ct, CUDA_R_32F));
	CKL(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)));
	CKL(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)));
	CKL(cublasLtMatrixLayoutCreate(&p->a, dt, K, N, ldb));
	CKL(cublasLtMatrixLayoutCreate(&p->b, dt, K, M, lda));
	CKL(cublasLtMatrixLayoutCreate(&p->c, dt, N, M, ldc));
	CKL(cublasLtMatmulPreferenceCreate(&pref));
	CKL(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
						 &lt_ws_bytes, sizeof(lt_ws_bytes)));
	CKL(cublasLtMatmulAlgoGetHeuristic(lt, p->op, p->a, p->b, p->c, p->c, pref, 1, &heur,
					   &found));
	CKL(cublasLtMatmulPreferenceDestroy(pref));
	if (found < 1)
		gpu_fail("cublasLt", 0, "no heuristic algorithm", "lt_plan_init", __FILE__,
			 __LINE__);
	p->algo = heur.algo;
	p->A = A;
	p->B = B;
	p->C = C;
	p->alpha = 1.0f;
	p->beta = 0.0f;
}

static void lt_run(void *ctx)
{
	struct lt_plan *p = ctx;
	CKL(cublasLtMatmul(lt, p->op, &p->alpha, p->B, p->a, p->A, p->b, &p->beta, p->C, p->c,
			   p->C, p->c, &p->algo, lt_ws, lt_ws_bytes, stream));
}

static void lt_plan_release(struct lt_plan *p)
{
	cublasLtMatrixLayoutDestroy(p->a);
	cublasLtMatrixLayoutDestroy(p->b);
	cublasLtMatrixLayoutDestroy(p->c);
	cublasLtMatmulDescDestroy(p->op);
}

/* ---- GEMM checks ------------------------------------------------------------------------ */

static uint64_t seed_counter = 1;

/* Check k at one shape: CPU float64 reference for small shapes, cuBLASLt from 1e6 MACs. */
static void gemm_check(struct gemm_kernel *k, int M, int N, int K, int lda, int ldb, int ldc)
{
	enum dtype t = k->t;
	size_t es = esize(t), nc = (size_t)M * ldc;
	void *hA, *hB, *hC, *hR;
	void *dA = dev_random((size_t)M * lda, t, seed_counter++, &hA);
	void *dB = dev_random((size_t)N * ldb, t, seed_counter++, &hB);
	void *dC, *dR;
	double *ref = malloc((size_t)M * N * sizeof(double)), macs = (double)M * N * K;
	struct gemm_args ga = {.k = k, .A = dA, .B = dB, .M = M, .N = N, .K = K,
			       .lda = lda, .ldb = ldb, .ldc = ldc};
	char what[256], path[32];
	int i, j, l;

	if (!ref)
		abort();
	CK(cudaMalloc(&dC, nc * es));
	CK(cudaMalloc(&dR, nc * es));
	CK(cudaMemsetAsync(dC, 0xff, nc * es, stream)); /* NaN in every dtype */
	ga.C = dC;
	gemm_args_maps(&ga);
	snprintf(path, sizeof(path), "%s%s", !k->wgmma ? "" : (ga.use_tma ? " tma" : " cp.async"),
		 !k->wgmma ? "" : (grid_cap < 0 ? " pers" : (grid_cap ? " g3" : " tiles")));
	gemm_launch(&ga);
	CK(cudaGetLastError());
	CK(cudaStreamSynchronize(stream));
	hC = download(dC, nc * es);
	/* gather C's M x N (ldc may pad) */
	void *packed = malloc((size_t)M * N * es);
	if (!packed)
		abort();
	for (i = 0; i < M; ++i)
		memcpy((char *)packed + (size_t)i * N * es, (char *)hC + (size_t)i * ldc * es,
		       (size_t)N * es);
	if (macs <= 64e6) {
		for (i = 0; i < M; ++i)
			for (j = 0; j < N; ++j) {
				double s = 0;
				for (l = 0; l < K; ++l)
					s += getv(hA, (size_t)i * lda + l, t) *
					     getv(hB, (size_t)j * ldb + l, t);
				ref[(size_t)i * N + j] = s;
			}
		snprintf(what, sizeof(what), "gemm %-8s %-26s M%d N%d K%d ld%d,%d,%d%s vs cpu",
			 dtype_name[t], k->name, M, N, K, lda, ldb, ldc, path);
		report(what, rel_error(packed, t, ref, (size_t)M * N), dtype_bound[t]);
	}
	if (macs >= 1e6) {
		struct lt_plan p;
		CK(cudaMemsetAsync(dR, 0xff, nc * es, stream));
		lt_plan_init(&p, t, 1, M, N, K, lda, ldb, ldc, dA, dB, dR);
		lt_run(&p);
		CK(cudaStreamSynchronize(stream));
		lt_plan_release(&p);
		hR = download(dR, nc * es);
		for (i = 0; i < M; ++i)
			for (j = 0; j < N; ++j)
				ref[(size_t)i * N + j] = getv(hR, (size_t)i * ldc + j, t);
		snprintf(what, sizeof(what), "gemm %-8s %-26s M%d N%d K%d ld%d,%d,%d%s vs cublasLt",
			 dtype_name[t], k->name, M, N, K, lda, ldb, ldc, path);
		report(what, rel_error(packed, t, ref, (size_t)M * N), dtype_bound[t]);
		free(hR);
	}
	free(packed);
	free(hA);
	free(hB);
	free(hC);
	free(ref);
	CK(cudaFree(dA));
	CK(cudaFree(dB));
	CK(cudaFree(dC));
	CK(cudaFree(dR));
}

static void gemm_correctness(void)
{
	/* on sm_90a the configs with BLOCK_K % 64 == 0, WARPS 4 or 8 and BLOCK_M 64 or 128 a
	 * warpgroup take the wgmma kernel (cuda_gemm_use_wgmma), the others mma.sync */
	static const struct gemm_cfg cfgs[] = {
		{128, 128, 32, 4, 3, 1, 8},  {64, 64, 32, 4, 4, 3, 1},   {32, 32, 16, 1, 2, 1, 4},
		{256, 128, 32, 8, 4, 2, 8},  {128, 128, 64, 2, 3, 1, 8},  {128, 256, 64, 8, 3, 1, 8},
		{128, 256, 64, 8, 4, 1, 8},  {128, 128, 64, 4, 4, 2, 8},  {64, 64, 64, 4, 3, 1, 1},
		{256, 128, 64, 8, 3, 3, 8},  {128, 128, 128, 4, 2, 1, 8}, {128, 256, 64, 8, 2, 1, 8},
		{64, 256, 64, 4, 4, 1, 8},   {128, 64, 64, 8, 5, 1, 4},   {256, 64, 128, 8, 2, 2, 8},
	};
	static const struct gemm_cfg ffma[] = {{64, 64, 16, 4, 2, 1, 8}, {128, 128, 16, 8, 3, 2, 4}};
	/* TF32: wgmma where BLOCK_K is a multiple of 32, mma.sync below */
	static const struct gemm_cfg tf32[] = {
		{128, 128, 16, 4, 3, 1, 8},  {64, 64, 16, 4, 4, 3, 1},   {32, 32, 16, 1, 2, 1, 4},
		{128, 256, 32, 8, 4, 1, 8},  {128, 128, 32, 4, 4, 2, 8},  {64, 64, 32, 4, 3, 1, 1},
		{256, 128, 32, 8, 3, 3, 8},  {128, 128, 64, 4, 2, 1, 8},  {64, 256, 32, 4, 4, 1, 8},
	};
	static const int shapes[][6] = {
		/* M, N, K, lda, ldb, ldc */
		{1, 1, 1, 1, 1, 1},         {7, 9, 5, 5, 5, 9},
		{37, 53, 29, 29, 29, 53},   {129, 67, 1001, 1001, 1001, 67},
		{300, 200, 333, 336, 344, 208}, {256, 256, 256, 256, 256, 256},
		{1000, 1000, 1000, 1000, 1000, 1000}, {2048, 1536, 999, 1000, 1008, 1536},
	};
	enum dtype t;
	size_t i, s;

	for (t = F16; t <= F32; ++t) {
		if (only_tf32 && t != TF32)
			continue;
		const struct gemm_cfg *cs = t == F32 ? ffma : t == TF32 ? tf32 : cfgs;
		size_t nc = t == F32 ? 2 : t == TF32 ? sizeof(tf32) / sizeof(tf32[0])
						     : sizeof(cfgs) / sizeof(cfgs[0]);
		for (i = 0; i < nc; ++i) {
			struct gemm_kernel k;
			if (gemm_kernel_init(&k, t, cs[i]) != 0)
				continue;
			for (s = 0; s < sizeof(shapes) / sizeof(shapes[0]); ++s)
				gemm_check(&k, shapes[s][0], shapes[s][1], shapes[s][2],
					   shapes[s][3], shapes[s][4], shapes[s][5]);
			if (k.wgmma) {
				/* a grid of 3 blocks: many tiles a block, stages and barrier
				 * phases carried from tile to tile; one block per tile */
				for (grid_cap = 3; grid_cap >= 0; grid_cap -= 3) {
					gemm_check(&k, 1000, 1000, 1000, 1000, 1000, 1000);
					gemm_check(&k, 2048, 1536, 999, 1000, 1008, 1536);
					gemm_check(&k, 300, 200, 333, 336, 344, 208);
				}
				/* the cp.async path on shapes that would take tensor maps */
				force_no_tma = 1;
				for (grid_cap = 3; grid_cap >= -1; grid_cap -= 4) {
					gemm_check(&k, 1000, 1000, 1000, 1000, 1000, 1000);
					gemm_check(&k, 2048, 1536, 999, 1000, 1008, 1536);
				}
				force_no_tma = 0;
				grid_cap = -1;
			}
			gemm_kernel_release(&k);
		}
	}
}

/* ---- GEMM timing sweep ------------------------------------------------------------------ */

static void gemm_sweep(enum dtype t, const int (*shapes)[3], size_t nshapes,
		       const struct gemm_cfg *cfgs, size_t ncfg, int samples)
{
	struct gemm_kernel *ks = calloc(ncfg, sizeof(*ks));
	int *ok = calloc(ncfg, sizeof(int));
	size_t s, i, es = esize(t);
	if (!ks || !ok)
		abort();
	for (i = 0; i < ncfg; ++i)
		ok[i] = gemm_kernel_init(&ks[i], t, cfgs[i]) == 0;
	for (s = 0; s < nshapes; ++s) {
		int M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
		double flop = 2.0 * M * N * K, best = 0, lt_tf;
		void *hA;
		void *dA = dev_random((size_t)M * K, t, seed_counter++, &hA);
		void *dB = dev_random((size_t)N * K, t, seed_counter++, NULL);
		void *dC, *dR, *hR = NULL;
		const char *best_name = "-";
		struct lt_plan p;
		free(hA);
		CK(cudaMalloc(&dC, (size_t)M * N * es));
		CK(cudaMalloc(&dR, (size_t)M * N * es));
		lt_plan_init(&p, t, 0, M, N, K, K, K, N, dA, dB, dR);
		lt_tf = flop / (time_median(lt_run, &p, samples) * 1e-3) / 1e12;
		lt_plan_release(&p);
		if (t == TF32) { /* the check's reference: fp32 compute */
			lt_plan_init(&p, t, 1, M, N, K, K, K, N, dA, dB, dR);
			lt_run(&p);
			lt_plan_release(&p);
		}
		CK(cudaStreamSynchronize(stream));
		hR = download(dR, (size_t)M * N * es);
		double *ref = malloc((size_t)M * N * sizeof(double));
		if (!ref)
			abort();
		for (i = 0; i < (size_t)M * N; ++i)
			ref[i] = getv(hR, i, t);
		free(hR);
		for (i = 0; i < ncfg; ++i) {
			struct gemm_args ga = {.k = &ks[i], .A = dA, .B = dB, .C = dC, .M = M,
					       .N = N, .K = K, .lda = K, .ldb = K, .ldc = N};
			double err, tf;
			void *hC;
			if (!ok[i])
				continue;
			gemm_args_maps(&ga); /* once per (config, buffers): outside the timing */
			CK(cudaMemsetAsync(dC, 0xff, (size_t)M * N * es, stream));
			gemm_launch(&ga);
			CK(cudaStreamSynchronize(stream));
			hC = download(dC, (size_t)M * N * es);
			err = rel_error(hC, t, ref, (size_t)M * N);
			free(hC);
			checks++;
			if (!(err <= dtype_bound[t])) {
				failures++;
				printf("FAIL gemm %s %s M%d N%d K%d err %.2e (not timed)\n",
				       dtype_name[t], ks[i].name, M, N, K, err);
				continue;
			}
			if (ks[i].wgmma) { /* one block per tile too, beside the persistent grid */
				ga.grid_cap = 0;
				tf = flop / (time_median(gemm_launch, &ga, samples) * 1e-3) / 1e12;
				printf("time gemm %-8s M%-6d N%-5d K%-5d %-26s %7.1f TFLOP/s (%5.1f%% "
				       "of cublasLt) one block a tile\n",
				       dtype_name[t], M, N, K, ks[i].name, tf, 100 * tf / lt_tf);
				ga.grid_cap = -1;
			}
			tf = flop / (time_median(gemm_launch, &ga, samples) * 1e-3) / 1e12;
			printf("time gemm %-8s M%-6d N%-5d K%-5d %-26s %7.1f TFLOP/s (%5.1f%% of "
			       "cublasLt) err %.1e\n",
			       dtype_name[t], M, N, K, ks[i].name, tf, 100 * tf / lt_tf, err);
			if (tf > best) {
				best = tf;
				best_name = ks[i].name;
			}
		}
		printf("BEST gemm %-8s M%-6d N%-5d K%-5d cublasLt %7.1f TFLOP/s, best %-26s %7.1f "
		       "TFLOP/s = %5.1f%%\n",
		       dtype_name[t], M, N, K, lt_tf, best_name, best, 100 * best / lt_tf);
		fflush(stdout);
		free(ref);
		CK(cudaFree(dA));
		CK(cudaFree(dB));
		CK(cudaFree(dC));
		CK(cudaFree(dR));
	}
	for (i = 0; i < ncfg; ++i)
		gemm_kernel_release(&ks[i]);
	free(ks);
	free(ok);
}

static void gemm_timing(void)
{
	static const int shapes[][3] = {
		{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192},
		{32 * 56 * 56, 64, 64}, {32 * 56 * 56, 256, 64}, {32 * 14 * 14, 256, 2304},
		{32 * 7 * 7, 2048, 512}, {32, 1000, 2048},
	};
	static const struct gemm_cfg cfgs[] = {
		{128, 128, 32, 4, 4, 1, 8},   {128, 256, 64, 8, 3, 1, 8},  {128, 256, 64, 8, 4, 1, 8},
		{128, 256, 64, 8, 4, 1, 16},  {128, 256, 64, 8, 4, 1, 4},  {256, 128, 64, 8, 3, 1, 8},
		{256, 128, 64, 8, 4, 1, 8},   {128, 128, 64, 4, 4, 1, 8},  {128, 128, 64, 4, 6, 1, 8},
		{128, 128, 64, 8, 5, 1, 8},   {128, 128, 128, 4, 3, 1, 8}, {128, 256, 128, 8, 2, 1, 8},
		{64, 256, 64, 4, 4, 1, 8},    {128, 64, 64, 8, 6, 1, 8},   {64, 128, 64, 4, 6, 1, 8},
		{128, 128, 64, 4, 4, 4, 8},   {64, 128, 64, 4, 4, 8, 8},   {128, 256, 64, 8, 4, 2, 8},
		{64, 128, 64, 4, 5, 1, 8},    {128, 128, 64, 4, 3, 1, 8},
	};
	static const struct gemm_cfg tcfgs[] = {
		{128, 128, 16, 4, 4, 1, 8},  {128, 256, 32, 8, 4, 1, 8},  {128, 256, 32, 8, 3, 1, 8},
		{256, 128, 32, 8, 4, 1, 8},  {128, 128, 32, 4, 4, 1, 8},  {128, 128, 32, 8, 5, 1, 8},
		{128, 256, 64, 8, 2, 1, 8},  {128, 128, 64, 4, 3, 1, 8},  {64, 128, 32, 4, 5, 1, 8},
	};
	static const struct gemm_cfg fcfgs[] = {
		{128, 128, 16, 8, 3, 1, 8}, {64, 64, 16, 4, 3, 1, 8},
	};
	size_t ns = sizeof(shapes) / sizeof(shapes[0]);
	if (only_tf32) {
		gemm_sweep(TF32, shapes, 4, tcfgs, sizeof(tcfgs) / sizeof(tcfgs[0]), 11);
		return;
	}
	gemm_sweep(F16, shapes, ns, cfgs, sizeof(cfgs) / sizeof(cfgs[0]), 21);
	gemm_sweep(BF16, shapes, ns, cfgs, sizeof(cfgs) / sizeof(cfgs[0]), 21);
	gemm_sweep(TF32, shapes + 2, 2, tcfgs, sizeof(tcfgs) / sizeof(tcfgs[0]), 11);
	gemm_sweep(F32, shapes + 2, 1, fcfgs, sizeof(fcfgs) / sizeof(fcfgs[0]), 11);
}

/* ---- memory-bound ops --------------------------------------------------------------------- */

struct mb_cfg {
	int block, vec, rows;
	int ow; /* maxpool_bwd: output columns per thread (BWD_OW) */
};

enum mb_op { MAXPOOL_FWD, MAXPOOL_BWD, AVGPOOL, SUM_DIM1, SUM_DIM0, BIAS_RELU, BIAS_RELU_RES };
static const char *mb_name[] = {"maxpool_fwd", "maxpool_bwd", "avgpool",      "sum_dim1",
				"sum_dim0",    "bias_relu",   "bias_relu_res"};
static const char *mb_file[] = {"maxpool.cu", "maxpool.cu",   "avgpool.cu",  "reduce.cu",
				"reduce.cu",  "bias_relu.cu", "bias_relu.cu"};

struct mb_kernel {
	enum mb_op op;
	enum dtype t;
	struct mb_cfg c;
	struct module m;
	CUfunction f, fin;
	char name[64];
};

static int mb_kernel_init(struct mb_kernel *k, enum mb_op op, enum dtype t, struct mb_cfg c)
{
	char defs[512];
	static const char *fn[] = {"maxpool_fwd", "maxpool_bwd", "avgpool_global", "sum_dim1",
				   "sum_dim0",    "bias_relu",   "bias_relu"};
	memset(k, 0, sizeof(*k));
	k->op = op;
	k->t = t;
	k->c = c;
	if (c.ow < 1)
		c.ow = 1;
	k->c = c;
	if (op == MAXPOOL_BWD)
		snprintf(k->name, sizeof(k->name), "block%d vec%d ow%d", c.block, c.vec, c.ow);
	else
		snprintf(k->name, sizeof(k->name), "block%d vec%d rows%d", c.block, c.vec, c.rows);
	snprintf(defs, sizeof(defs), "%s -DBLOCK=%d -DVEC=%d -DROWS=%d -DRESIDUAL=%d -DBWD_OW=%d %s",
		 dtype_def[t], c.block, c.vec, c.rows, op == BIAS_RELU_RES, c.ow,
		 getenv("KC_MB_DEFS") ? getenv("KC_MB_DEFS") : "");
	k->m = load_module(mb_file[op], defs);
	if (!k->m.ok)
		return -1;
	k->f = get_fn(&k->m, fn[op]);
	if (op == SUM_DIM0)
		k->fin = get_fn(&k->m, "sum_dim0_finish");
	if (op == MAXPOOL_BWD) /* the training forward that saves the backward's idx */
		k->fin = get_fn(&k->m, "maxpool_fwd_idx");
	return 0;
}

/* Shape: maxpool/avgpool/bias_relu: N, H, W, C (avgpool HW = H * W); sums: R = d[0], S = d[1],
 * ld = d[2]. */
struct mb_args {
	struct mb_kernel *k;
	int d[4];
	void *x, *y, *z, *w; /* inputs / outputs by op, see mb_launch */
	void *ws;
	void *idx, *yf; /* maxpool: the window positions (one byte per output) and y */
};

static unsigned cdiv(long long a, long long b)
{
	return (unsigned)((a + b - 1) / b);
}

/* The max-pool grid for t threads of blocks of b: every thread its own, or at most
 * $KC_MB_GRID blocks per SM. */
static unsigned mb_grid(long long t, int b)
{
	unsigned g = cdiv(t, b);
	if (mb_grid_per_sm > 0 && g > (unsigned)(mb_grid_per_sm * prop.multiProcessorCount))
		g = (unsigned)(mb_grid_per_sm * prop.multiProcessorCount);
	return g;
}

static void mb_launch(void *ctx)
{
	struct mb_args *a = ctx;
	struct mb_kernel *k = a->k;
	int N = a->d[0], H = a->d[1], W = a->d[2], C = a->d[3], B = k->c.block, V = k->c.vec;
	switch (k->op) {
	case MAXPOOL_FWD: { /* x -> y */
		long long t = (long long)N * ((H - 1) / 2 + 1) * ((W - 1) / 2 + 1) * cdiv(C, V);
		void *args[] = {&a->x, &a->y, &N, &H, &W, &C};
		CKD(cuLaunchKernel(k->f, mb_grid(t, B), 1, 1, B, 1, 1, 0, stream, args, NULL));
		break;
	}
	case MAXPOOL_BWD: { /* idx (maxpool_fwd_idx of x), dy = z -> dx = y */
		long long t = (long long)N * ((H - 1) / 2 + 1) * cdiv((W - 1) / 2 + 1, k->c.ow) *
			      cdiv(C, V);
		void *args[] = {&a->idx, &a->z, &a->y, &N, &H, &W, &C};
		CKD(cuLaunchKernel(k->f, mb_grid(t, B), 1, 1, B, 1, 1, 0, stream, args, NULL));
		break;
	}
	case AVGPOOL: { /* x -> y */
		int HW = H * W;
		void *args[] = {&a->x, &a->y, &N, &HW, &C};
		CKD(cuLaunchKernel(k->f, cdiv(cdiv(C, V), B / k->c.rows), (unsigned)N, 1, B, 1, 1,
				   0, stream, args, NULL));
		break;
	}
	case SUM_DIM1: { /* x -> y */
		int R = a->d[0], S = a->d[1], ld = a->d[2];
		void *args[] = {&a->x, &a->y, &R, &S, &ld};
		CKD(cuLaunchKernel(k->f, (unsigned)(R < 1048576 ? R : 1048576), 1, 1, B, 1, 1, 0,
				   stream, args, NULL));
		break;
	}
	case SUM_DIM0: { /* x -> y, ws */
		int R = a->d[0], S = a->d[1], ld = a->d[2];
		unsigned gx = cdiv(cdiv(S, V), B / k->c.rows);
		int splits = (int)cdiv(4LL * prop.multiProcessorCount, gx);
		int maxs = R / (4 * k->c.rows);
		if (splits > maxs)
			splits = maxs;
		if (splits < 1)
			splits = 1;
		void *args[] = {&a->x, &a->y, &a->ws, &R, &S, &ld};
		CKD(cuLaunchKernel(k->f, gx, (unsigned)splits, 1, B, 1, 1, 0, stream, args, NULL));
		if (splits > 1) {
			void *fargs[] = {&a->ws, &a->y, &S, &splits};
			CKD(cuLaunchKernel(k->fin, cdiv(S, 256), 1, 1, 256, 1, 1, 0, stream, fargs,
					   NULL));
		}
		break;
	}
	case BIAS_RELU:
	case BIAS_RELU_RES: { /* x, bias = z, res = w -> y */
		long long total = (long long)N * H * W * C;
		void *args[] = {&a->x, &a->z, &a->w, &a->y, &total, &C};
		CKD(cuLaunchKernel(k->f, cdiv(cdiv(total, V), B), 1, 1, B, 1, 1, 0, stream, args,
				   NULL));
		break;
	}
	}
}

/* Sizes in elements of x, y, z, w for op at shape d. */
static void mb_sizes(enum mb_op op, const int d[4], size_t sz[4])
{
	size_t N = d[0], H = d[1], W = d[2], C = d[3];
	size_t OH = (H - 1) / 2 + 1, OW = (W - 1) / 2 + 1;
	memset(sz, 0, 4 * sizeof(size_t));
	switch (op) {
	case MAXPOOL_FWD:
		sz[0] = N * H * W * C, sz[1] = N * OH * OW * C;
		break;
	case MAXPOOL_BWD:
		sz[0] = N * H * W * C, sz[1] = N * H * W * C, sz[2] = N * OH * OW * C;
		break;
	case AVGPOOL:
		sz[0] = N * H * W * C, sz[1] = N * C;
		break;
	case SUM_DIM1:
		sz[0] = (size_t)d[0] * d[2], sz[1] = d[0];
		break;
	case SUM_DIM0:
		sz[0] = (size_t)d[0] * d[2], sz[1] = d[1];
		break;
	case BIAS_RELU:
	case BIAS_RELU_RES:
		sz[0] = N * H * W * C, sz[1] = sz[0], sz[2] = C, sz[3] = op == BIAS_RELU_RES ? sz[0] : 0;
		break;
	}
}

/* float64 reference of op into ref (sized as y) from host inputs hx, hz, hw. */
static void mb_reference(enum mb_op op, enum dtype t, const int d[4], const void *hx,
			 const void *hz, const void *hw, double *ref)
{
	long N = d[0], H = d[1], W = d[2], C = d[3], OH = (H - 1) / 2 + 1, OW = (W - 1) / 2 + 1;
	long n, h, w, c, kh, kw;
	switch (op) {
	case MAXPOOL_FWD:
	case MAXPOOL_BWD:
		if (op == MAXPOOL_BWD)
			memset(ref, 0, sizeof(double) * N * H * W * C);
		for (n = 0; n < N; ++n)
			for (h = 0; h < OH; ++h)
				for (w = 0; w < OW; ++w)
					for (c = 0; c < C; ++c) {
						double m = -INFINITY;
						long arg = -1;
						for (kh = 0; kh < 3; ++kh)
							for (kw = 0; kw < 3; ++kw) {
								long ih = 2 * h - 1 + kh, iw = 2 * w - 1 + kw;
								if (ih < 0 || ih >= H || iw < 0 || iw >= W)
									continue;
								long i = ((n * H + ih) * W + iw) * C + c;
								double v = getv(hx, i, t);
								if (v > m)
									m = v, arg = i;
							}
						long o = ((n * OH + h) * OW + w) * C + c;
						if (op == MAXPOOL_FWD)
							ref[o] = m;
						else
							ref[arg] += getv(hz, o, t);
					}
		break;
	case AVGPOOL:
		for (n = 0; n < N; ++n)
			for (c = 0; c < C; ++c) {
				double s = 0;
				for (h = 0; h < H * W; ++h)
					s += getv(hx, (n * H * W + h) * C + c, t);
				ref[n * C + c] = s / (H * W);
			}
		break;
	case SUM_DIM1:
		for (n = 0; n < d[0]; ++n) {
			double s = 0;
			for (c = 0; c < d[1]; ++c)
				s += getv(hx, n * d[2] + c, t);
			ref[n] = s;
		}
		break;
	case SUM_DIM0:
		for (c = 0; c < d[1]; ++c)
			ref[c] = 0;
		for (n = 0; n < d[0]; ++n)
			for (c = 0; c < d[1]; ++c)
				ref[c] += getv(hx, n * d[2] + c, t);
		break;
	case BIAS_RELU:
	case BIAS_RELU_RES:
		for (n = 0; n < N * H * W * C; ++n) {
			double v = getv(hx, n, t) + getv(hz, n % C, t);
			if (op == BIAS_RELU_RES)
				v += getv(hw, n, t);
			ref[n] = v > 0 ? v : 0;
		}
		break;
	}
}

/* Bytes the op must move: inputs read once, outputs written once (maxpool_bwd: idx, one byte
 * per output of the forward, in place of x). */
static double mb_bytes(enum mb_op op, const int d[4], enum dtype t)
{
	size_t sz[4];
	mb_sizes(op, d, sz);
	if (op == SUM_DIM1 || op == SUM_DIM0)
		sz[0] = (size_t)d[0] * d[1];
	if (op == MAXPOOL_BWD)
		return (double)(sz[1] + sz[2]) * esize(t) + (double)sz[2];
	return (double)(sz[0] + sz[1] + sz[2] + sz[3]) * esize(t);
}

/* The training forward of a maxpool_bwd kernel's args: x -> yf, idx. */
static void mb_fwd_idx_launch(void *ctx)
{
	struct mb_args *a = ctx;
	struct mb_kernel *k = a->k;
	int N = a->d[0], H = a->d[1], W = a->d[2], C = a->d[3];
	long long t = (long long)N * ((H - 1) / 2 + 1) * ((W - 1) / 2 + 1) * cdiv(C, k->c.vec);
	void *args[] = {&a->x, &a->yf, &a->idx, &N, &H, &W, &C};
	CKD(cuLaunchKernel(k->fin, cdiv(t, k->c.block), 1, 1, k->c.block, 1, 1, 0, stream, args,
			   NULL));
}

/* Run op once on fresh inputs and compare with the float64 reference. If ms is not NULL,
 * also time it (median of samples) into *ms. Returns 0 when the check passed. */
static int mb_run(struct mb_kernel *k, const int d[4], int samples, double *ms)
{
	enum dtype t = k->t;
	size_t sz[4], es = esize(t), i;
	void *h[4] = {NULL, NULL, NULL, NULL}, *dv[4] = {NULL, NULL, NULL, NULL};
	struct mb_args a;
	double *ref, err;
	int out = 1; /* index of the output: y */
	char what[256];

	mb_sizes(k->op, d, sz);
	for (i = 0; i < 4; ++i) {
		if (!sz[i])
			continue;
		if (i == (size_t)out) {
			CK(cudaMalloc(&dv[i], sz[i] * es));
			CK(cudaMemsetAsync(dv[i], 0xff, sz[i] * es, stream));
		} else {
			dv[i] = dev_random(sz[i], t, seed_counter++, &h[i]);
		}
	}
	memset(&a, 0, sizeof(a));
	a.k = k;
	memcpy(a.d, d, sizeof(a.d));
	a.x = dv[0], a.y = dv[1], a.z = dv[2], a.w = dv[3];
	if (k->op == SUM_DIM0)
		CK(cudaMalloc(&a.ws, (size_t)d[1] * 4 * 4096));
	if (k->op == MAXPOOL_BWD) { /* idx from the training forward on x (untimed) */
		long long nt = (long long)sz[2] / (size_t)d[3] * cdiv(d[3], k->c.vec);
		int N = d[0], H = d[1], W = d[2], C = d[3];
		void *fargs[] = {&a.x, &a.yf, &a.idx, &N, &H, &W, &C};
		CK(cudaMalloc(&a.idx, sz[2]));
		CK(cudaMalloc(&a.yf, sz[2] * es));
		CKD(cuLaunchKernel(k->fin, cdiv(nt, k->c.block), 1, 1, k->c.block, 1, 1, 0, stream,
				   fargs, NULL));
		if (ms) {
			double fms = time_median(mb_fwd_idx_launch, &a, samples);
			printf("time %-13s %-8s %-22s %8.3f ms %6.0f GB/s (x read, y and idx "
			       "written)\n", "maxpool_fwd_idx", dtype_name[t], k->name, fms,
			       ((double)(sz[0] + sz[2]) * es + (double)sz[2]) / (fms * 1e-3) / 1e9);
		}
	}
	mb_launch(&a);
	CK(cudaGetLastError());
	CK(cudaStreamSynchronize(stream));
	h[1] = download(dv[1], sz[1] * es);
	ref = malloc(sz[1] * sizeof(double));
	if (!ref)
		abort();
	mb_reference(k->op, t, d, h[0], h[2], h[3], ref);
	err = rel_error(h[1], t, ref, sz[1]);
	snprintf(what, sizeof(what), "%-13s %-8s %-22s %d,%d,%d,%d", mb_name[k->op], dtype_name[t],
		 k->name, d[0], d[1], d[2], d[3]);
	if (!ms)
		report(what, err, dtype_bound[t]);
	else if (!(err <= dtype_bound[t]))
		report(what, err, dtype_bound[t]);
	else
		checks++;
	if (ms && err <= dtype_bound[t])
		*ms = time_median(mb_launch, &a, samples);
	free(ref);
	for (i = 0; i < 4; ++i) {
		free(h[i]);
		if (dv[i])
			CK(cudaFree(dv[i]));
	}
	if (a.ws)
		CK(cudaFree(a.ws));
	if (a.idx)
		CK(cudaFree(a.idx));
	if (a.yf)
		CK(cudaFree(a.yf));
	return err <= dtype_bound[t] ? 0 : -1;
}

static struct mb_cfg mb_default(enum dtype t)
{
	struct mb_cfg c = {256, t == F32 ? 4 : 8, 8, 1};
	if (t != F32 && getenv("KC_MB_VEC16"))
		c.vec = atoi(getenv("KC_MB_VEC16"));
	return c;
}

/* Whether this run skips dtype t (KC_MB_DTYPE) or maxpool_bwd's BWD_OW ow (KC_MB_BWD_OW). */
static int mb_skip(enum dtype t, int ow)
{
	const char *d = getenv("KC_MB_DTYPE"), *o = getenv("KC_MB_BWD_OW");
	return (d && strcmp(d, dtype_name[t])) || (o && atoi(o) != ow);
}

static void mb_correctness(void)
{
	static const int img[][4] = {{2, 7, 9, 3}, {3, 13, 12, 67}, {2, 16, 16, 64}, {1, 1, 1, 8},
				     {4, 11, 5, 24}};
	static const int mat[][4] = {{1, 1, 1, 0}, {37, 1001, 1003, 0}, {300, 64, 64, 0},
				     {5000, 24, 24, 0}, {129, 2048, 2056, 0}};
	enum mb_op op;
	enum dtype t;
	size_t s;
	for (op = MAXPOOL_FWD; op <= BIAS_RELU_RES; ++op)
		for (t = F16; t <= F32; ++t)
		for (int ow = 1; ow <= (op == MAXPOOL_BWD ? 4 : 1); ow *= 2) {
			struct mb_kernel k;
			struct mb_cfg cf = mb_default(t);
			int sum = op == SUM_DIM0 || op == SUM_DIM1;
			if (t == TF32 || mb_skip(t, op == MAXPOOL_BWD ? ow : 1))
				continue;
			if (mb_only && strncmp(mb_name[op], mb_only, strlen(mb_only)))
				continue;
			cf.ow = ow; /* maxpool_bwd: 1, 2 and 4 output columns per thread */
			if (mb_kernel_init(&k, op, t, cf) != 0)
				continue;
			for (s = 0; s < 5; ++s)
				mb_run(&k, sum ? mat[s] : img[s], 0, NULL);
			if (op == MAXPOOL_BWD) { /* ties everywhere: the first maximum must win */
				coarse_values = 1;
				for (s = 0; s < 5; ++s)
					mb_run(&k, img[s], 0, NULL);
				coarse_values = 0;
			}
			CKD(cuModuleUnload(k.m.mod));
		}
}

struct copy_args {
	void *dst, *src;
	size_t bytes;
};

static void copy_launch(void *ctx)
{
	struct copy_args *c = ctx;
	CK(cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, stream));
}

static void mb_timing(void)
{
	static const int shapes0[][4] = {
		[MAXPOOL_FWD] = {128, 112, 112, 64}, [MAXPOOL_BWD] = {128, 112, 112, 64},
		[AVGPOOL] = {1024, 7, 7, 2048},      [SUM_DIM1] = {32768, 4096, 4096, 0},
		[SUM_DIM0] = {32768, 4096, 4096, 0}, [BIAS_RELU] = {128, 56, 56, 256},
		[BIAS_RELU_RES] = {128, 56, 56, 256},
	};
	struct copy_args cp;
	double copy_ms, copy_bw;
	enum mb_op op;
	enum dtype t;
	int b, r;
	int shapes[sizeof(shapes0) / sizeof(shapes0[0])][4];

	memcpy(shapes, shapes0, sizeof(shapes));
	if (getenv("KC_MB_BATCH")) /* the image ops at another batch */
		shapes[MAXPOOL_FWD][0] = shapes[MAXPOOL_BWD][0] = shapes[BIAS_RELU][0] =
			shapes[BIAS_RELU_RES][0] = atoi(getenv("KC_MB_BATCH"));

	cp.bytes = (size_t)512 << 20;
	CK(cudaMalloc(&cp.dst, cp.bytes));
	CK(cudaMalloc(&cp.src, cp.bytes));
	CK(cudaMemset(cp.src, 0x3c, cp.bytes));
	copy_ms = time_median(copy_launch, &cp, 31);
	copy_bw = 2.0 * cp.bytes / (copy_ms * 1e-3) / 1e9;
	printf("time copy d2d %zu MiB: %.3f ms, %.0f GB/s (read + write)\n", cp.bytes >> 20,
	       copy_ms, copy_bw);

	for (op = MAXPOOL_FWD; op <= BIAS_RELU_RES; ++op)
		for (t = F16; t <= F32; ++t) {
			double best = 0;
			if (mb_only && strncmp(mb_name[op], mb_only, strlen(mb_only)))
				continue;
			char best_name[64] = "-";
			if (t == TF32 || (getenv("KC_MB_FAST") && t == BF16))
				continue;
			for (b = 128; b <= 512; b *= 2)
				for (r = 4; r <= 16; r *= 2)
				for (int ow = 1; ow <= (op == MAXPOOL_BWD ? 4 : 1); ow *= 2) {
					struct mb_kernel k;
					struct mb_cfg c = mb_default(t);
					double ms = 0, bw;
					int rows_matter = op == AVGPOOL || op == SUM_DIM0;
					if (!rows_matter && r != 8)
						continue;
					if (rows_matter && (b == 128) != (r == 4))
						continue; /* 128x4, 256x8, 256x16, 512x8, 512x16 */
					if (getenv("KC_MB_FAST") && b == 512)
						continue; /* KC_MB_FAST: blocks 128, 256 */
					if (mb_skip(t, op == MAXPOOL_BWD ? ow : 1))
						continue;
					c.block = b;
					c.rows = r;
					c.ow = ow;
					if (mb_kernel_init(&k, op, t, c) != 0)
						continue;
					if (mb_run(&k, shapes[op], 21, &ms) == 0) {
						bw = mb_bytes(op, shapes[op], t) / (ms * 1e-3) / 1e9;
						printf("time %-13s %-8s %-22s %8.3f ms %6.0f GB/s "
						       "%5.1f%% of copy\n",
						       mb_name[op], dtype_name[t], k.name, ms, bw,
						       100 * bw / copy_bw);
						if (bw > best) {
							best = bw;
							snprintf(best_name, sizeof(best_name), "%s",
								 k.name);
						}
					}
					CKD(cuModuleUnload(k.m.mod));
				}
			{ /* a copy moving the same bytes, flushed the same way: the fixed costs
			   * (launch, the flush's dirty lines written back) weigh the same */
				struct copy_args same = cp;
				double same_bw;
				same.bytes = (size_t)(mb_bytes(op, shapes[op], t) / 2) & ~(size_t)255;
				if (same.bytes > cp.bytes)
					same.bytes = cp.bytes;
				same_bw = 2.0 * same.bytes /
					  (time_median(copy_launch, &same, 31) * 1e-3) / 1e9;
				printf("BEST %-13s %-8s %d,%d,%d,%d %-22s %6.0f GB/s = %5.1f%% of "
				       "copy (%.0f GB/s), %5.1f%% of a same-size copy (%.0f GB/s)\n",
				       mb_name[op], dtype_name[t], shapes[op][0], shapes[op][1],
				       shapes[op][2], shapes[op][3], best_name, best,
				       100 * best / copy_bw, copy_bw, 100 * best / same_bw, same_bw);
			}
			fflush(stdout);
		}
	CK(cudaFree(cp.dst));
	CK(cudaFree(cp.src));
}

/* ---- main --------------------------------------------------------------------------------- */

static int compile_all(void)
{
	const char **sources = calloc(kc_check_nconfigs, sizeof(*sources));
	struct kc_result *res = calloc(kc_check_nconfigs, sizeof(*res));
	size_t i;
	int failed = 0;
	double t0 = kc_now();
	if (!sources || !res)
		abort();
	for (i = 0; i < kc_check_nconfigs; ++i) {
		char path[4096], *text;
		snprintf(path, sizeof(path), "%s/%s", tdir, kc_check_configs[i].file);
		if (kc_read_file(path, &text) != 0)
			exit(2);
		sources[i] = text;
	}
	kc_compile_many(kc_check_configs, sources, kc_check_nconfigs, arch,
			(int)sysconf(_SC_NPROCESSORS_ONLN), res);
	for (i = 0; i < kc_check_nconfigs; ++i) {
		if (!res[i].ok && !res[i].skipped) {
			failed++;
			printf("FAIL compile %s %s %s\n%s\n", arch, kc_check_configs[i].file,
			       kc_check_configs[i].defines, res[i].log ? res[i].log : "");
		}
		kc_result_release(&res[i]);
		free((char *)sources[i]);
	}
	printf("compile check %s: %zu configs, %d failed, %.1fs\n", arch, kc_check_nconfigs,
	       failed, kc_now() - t0);
	free(sources);
	free(res);
	return failed;
}

int main(int argc, char **argv)
{
	int ndev = 0, v_rt = 0, v_drv = 0, nv_major = 0, nv_minor = 0, timing = 1;

	if (argc < 2 || !strcmp(argv[1], "-h")) {
		fprintf(argc < 2 ? stderr : stdout,
			"usage: kernel-check TEMPLATE_DIR [--no-timing | --gemm-timing | "
			"--mb-timing | --tf32]\n");
		return argc < 2 ? 2 : 0;
	}
	tdir = argv[1];
	mb_only = getenv("KC_MB_ONLY");
	mb_grid_per_sm = getenv("KC_MB_GRID") ? atoi(getenv("KC_MB_GRID")) : 0;
	if (argc > 2 && !strcmp(argv[2], "--no-timing"))
		timing = 0;
	if (argc > 2 && !strcmp(argv[2], "--gemm-timing"))
		timing = 2;
	if (argc > 2 && !strcmp(argv[2], "--mb-timing"))
		timing = 3;
	if (argc > 2 && !strcmp(argv[2], "--tf32"))
		timing = 2, only_tf32 = 1;
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
		printf("kernel-check: no CUDA device, skipping\n");
		return 77;
	}
	CK(cudaSetDevice(0));
	CK(cudaGetDeviceProperties(&prop, 0));
	CK(cudaFree(NULL));
	{
		int v;
		CK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
		smem_optin = v;
	}
	if (prop.major == 9 && prop.minor == 0)
		snprintf(arch, sizeof(arch), "sm_90a");
	else
		snprintf(arch, sizeof(arch), "sm_%d%d", prop.major, prop.minor);
	CK(cudaRuntimeGetVersion(&v_rt));
	CK(cudaDriverGetVersion(&v_drv));
	nvrtcVersion(&nv_major, &nv_minor);
	printf("device %s, %d SMs, L2 %d KiB, smem opt-in %ld B, arch %s\n", prop.name,
	       prop.multiProcessorCount, prop.l2CacheSize >> 10, smem_optin, arch);
	printf("versions: driver %d, runtime %d, nvrtc %d.%d, cublasLt %zu\n", v_drv, v_rt,
	       nv_major, nv_minor, cublasLtGetVersion());
	fflush(stdout);

	CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
	flush_bytes = 2 * (size_t)prop.l2CacheSize;
	CK(cudaMalloc(&flush_buf, flush_bytes));
	CKL(cublasLtCreate(&lt));
	CK(cudaMalloc(&lt_ws, lt_ws_bytes));

	if (!only_tf32 && !getenv("KC_SKIP_COMPILE_ALL")) /* the NVRTC sweep of every config */
		failures += compile_all();
	if (!mb_only) /* KC_MB_ONLY=maxpool: the memory-bound ops whose name starts so, only */
		gemm_correctness();
	if (!only_tf32)
		mb_correctness();
	printf("correctness: %d checks, %d failed\n", checks, failures);
	fflush(stdout);
	if (timing) {
		if (timing == 1 || timing == 3)
			mb_timing();
		if (timing == 1 || timing == 2)
			gemm_timing();
	}
	printf("total: %d checks, %d failed\n", checks, failures);

	CK(cudaFree(lt_ws));
	CKL(cublasLtDestroy(lt));
	CK(cudaFree(flush_buf));
	CK(cudaFree(gemm_ws));
	CK(cudaStreamDestroy(stream));
	if (fflush(stdout) != 0 || ferror(stdout))
		return 2;
	return failures ? 1 : 0;
}
