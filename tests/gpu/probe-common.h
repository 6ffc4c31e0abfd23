/* probe-common.h: what the GPU probes (tests/gpu/tma-probe.c, sk-probe.c, wgmma-probe.c)
 * share: a CUDA runtime check that exits naming the probe (PROBE_NAME, defined before the
 * include), the skip (77) without a Hopper GPU, a whole file read into memory, a driver entry
 * point looked up by name, a program compiled by NVRTC and loaded, the median of the five
 * timed launches after a warm one (median5; launch_ms times them), and a 16-bit matrix's
 * tensor map as conv.cu's plain operands are encoded (map_rows16). */
#ifndef PROBE_COMMON_H
#define PROBE_COMMON_H

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(x)                                                                                 \
	do {                                                                                  \
		cudaError_t e_ = (x);                                                         \
		if (e_ != cudaSuccess) {                                                      \
			fprintf(stderr, PROBE_NAME ": %s: %s\n", #x, cudaGetErrorString(e_)); \
			exit(1);                                                              \
		}                                                                             \
	} while (0)

/* Device 0's properties into *prop, or exit 77 (a skip) saying why: no device, or not
 * Hopper (the probes' kernels are sm_90a's). */
static void require_hopper(struct cudaDeviceProp *prop)
{
	int ndev = 0;
	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
		printf("SKIP: " PROBE_NAME ": no CUDA device\n");
		exit(77);
	}
	CK(cudaGetDeviceProperties(prop, 0));
	if (prop->major != 9) {
		printf("SKIP: " PROBE_NAME ": %s is not a Hopper GPU\n", prop->name);
		exit(77);
	}
}

/* The file at path, NUL-terminated (owned by the caller); exits when it cannot be read. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *p = malloc((size_t)n + 1);
	if (!p || fread(p, 1, (size_t)n, f) != (size_t)n)
		exit(1);
	p[n] = 0;
	fclose(f);
	return p;
}

/* The driver's function name (CUDA 12 or newer); exits without it. */
static void *driver(const char *name)
{
	void *fn = NULL;
	enum cudaDriverEntryPointQueryResult q;
	CK(cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q));
	if (!fn) {
		fprintf(stderr, PROBE_NAME ": the driver has no %s\n", name);
		exit(1);
	}
	return fn;
}

/* Program src (named name in NVRTC's messages) compiled with its nopts options and loaded;
 * exits with NVRTC's log when it does not compile. */
static cudaLibrary_t nvrtc_library(const char *src, const char *name, int nopts,
				   const char *const *opts)
{
	nvrtcProgram prog;
	size_t n;
	if (nvrtcCreateProgram(&prog, src, name, 0, NULL, NULL) != NVRTC_SUCCESS) {
		fprintf(stderr, PROBE_NAME ": NVRTC cannot create the program of %s\n", name);
		exit(1);
	}
	nvrtcResult rc = nvrtcCompileProgram(prog, nopts, opts);
	nvrtcGetProgramLogSize(prog, &n);
	if (rc != NVRTC_SUCCESS) {
		char *log = malloc(n);
		nvrtcGetProgramLog(prog, log);
		fprintf(stderr, PROBE_NAME ": NVRTC, %s: %s\n", name, log);
		exit(1);
	}
	nvrtcGetCUBINSize(prog, &n);
	char *cubin = malloc(n);
	nvrtcGetCUBIN(prog, cubin);
	nvrtcDestroyProgram(&prog);
	cudaLibrary_t lib;
	CK(cudaLibraryLoadData(&lib, cubin, NULL, NULL, 0, NULL, NULL, 0));
	free(cubin);
	return lib;
}

/* The median of ms[1..5] (ms[0]: the warm launch), sorting them in place. */
static float median5(float ms[6])
{
	for (int i = 1; i < 6; i++)
		for (int j = i + 1; j < 6; j++)
			if (ms[j] < ms[i]) {
				float t = ms[i];
				ms[i] = ms[j];
				ms[j] = t;
			}
	return ms[3];
}

typedef PFN_cuTensorMapEncodeTiled_v12000 encode_tiled_fn; /* the toolkit's typedefs */

/* The rows x cols row-major 16-bit matrix at p into *m as kernels/cuda/gemm.c encodes a plain
 * operand: boxes of one 128-byte swizzle atom (64 columns) by box_rows rows, L2 promotion
 * promo; the driver's result. */
static inline CUresult map_rows16(encode_tiled_fn tiled, CUtensorMap *m, void *p,
				  long long rows, long long cols, unsigned box_rows,
				  CUtensorMapL2promotion promo)
{
	cuuint64_t dim[2] = { (cuuint64_t)cols, (cuuint64_t)rows };
	cuuint64_t st[1] = { (cuuint64_t)cols * 2 };
	cuuint32_t box[2] = { 64, box_rows }, es[2] = { 1, 1 };
	return tiled(m, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, p, dim, st, box, es,
		     CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, promo,
		     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

/* Kernel k on grid x block threads with smem bytes of dynamic shared memory: the median of
 * five launches timed by CUDA events on the default stream after a warm one (ms). */
static inline float launch_ms(const void *k, unsigned grid, unsigned block, void **args,
				     size_t smem)
{
	cudaEvent_t a, b;
	float ms[6];
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	for (int i = 0; i < 6; i++) {
		CK(cudaEventRecord(a, 0));
		CK(cudaLaunchKernel(k, (dim3){ grid, 1, 1 }, (dim3){ block, 1, 1 }, args, smem, 0));
		CK(cudaEventRecord(b, 0));
		CK(cudaEventSynchronize(b));
		CK(cudaEventElapsedTime(&ms[i], a, b));
	}
	CK(cudaEventDestroy(a));
	CK(cudaEventDestroy(b));
	return median5(ms);
}

#endif
