/* probe-common.h: what the GPU probes (tests/gpu/tma-probe.c, tests/gpu/sk-probe.c) share:
 * a CUDA runtime check that exits naming the probe (PROBE_NAME, defined before the include),
 * the skip (77) without a Hopper GPU, a whole file read into memory, a driver entry point
 * looked up by name, a program compiled by NVRTC and loaded, and the median of the five timed
 * launches after a warm one. */
#ifndef PROBE_COMMON_H
#define PROBE_COMMON_H

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

#endif
