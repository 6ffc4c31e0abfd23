/* wgmma-probe.c: the tensor cores' rate from shared memory, by how a block's tile is cut into
 * accumulator chains, and what the operands' copies cost it inside the SM (issue 49:
 * conv.cu's whole 64 x 128 tile took 0.235-0.265 us a k-tile with 28 SMs busy or 100, "bound
 * in the SM", docs/BENCHMARKS.md row 44, where its products alone take 0.13 us at the SM's
 * 4,096 FLOP a clock).  Compiles tests/gpu/wgmma-probe.cu (its header: the kernel) with NVRTC
 * for sm_90a once a case, after an mma() written here for the case's instruction width.  A
 * case is a tile shape and its cut: warpgroups a block, chains (independent accumulators) a
 * warpgroup, each chain's m64nN instruction, whether a warpgroup's chains split its rows (m,
 * as conv.cu's MW) or its columns (n), blocks an SM, the groups left in flight, and the
 * copies: none (LOADS 0), beside the products (1) or feeding them as conv.cu does (2), from a
 * 1x1 layer's X (1568 x 2048) and weights (512 x 2048) by TMA, on the blocks given.  One line
 * a case: the tile, the cut, blocks an SM, wait, loads, the ring's stages, the blocks,
 * microseconds a k-tile of the tile (the median of 5 timed launches after a warm one, by CUDA
 * events, over T), the SM clocks a k-tile (clock64 over block 0's k-loop), the clock's MHz
 * (clocks over time), the rate over all blocks (TFLOP/s) and the fraction of the tensor peak
 * the clocks imply (4,096 dense 16-bit FLOP a clock an SM).  Needs a Hopper GPU; prints and
 * exits 77 without one.
 *
 *     cc -std=gnu11 -O2 -I$CUDA/include tests/gpu/wgmma-probe.c -L$CUDA/lib64 -lcudart -lnvrtc
 *     ./a.out tests/gpu/wgmma-probe.cu
 */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROBE_NAME "wgmma-probe"
#include "probe-common.h"

struct probe_case {
	const char *tile; /* what conv.cu config it stands for */
	int n, chains, split_n, wgs, per_sm, wait;
	int loads, grid; /* wgmma-probe.cu's LOADS; the blocks (0: per_sm an SM) */
};


/* The kernel for instruction width n (owned by the caller): mma(), wgmma m64n<n>k16 f16 with
 * fp32 accumulators, written here, then body (tests/gpu/wgmma-probe.cu). */
static char *kernel_source(int n, const char *body)
{
	size_t cap = 8192 + strlen(body), len = 0;
	char *s = malloc(cap);
	if (!s)
		exit(1);
#define PUT(...) (len += (size_t)snprintf(s + len, cap - len, __VA_ARGS__))
	PUT("__device__ __forceinline__ void mma(float *d, unsigned long long da,"
	    " unsigned long long db)\n{\n\tasm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %%%d,"
	    " 0;\\nwgmma.mma_async.sync.aligned.m64n%dk16.f32.f16.f16 {",
	    n / 2 + 2, n);
	for (int i = 0; i < n / 2; i++)
		PUT("%s%%%d", i ? ", " : "", i);
	PUT("}, %%%d, %%%d, p, 1, 1, 0, 0;\\n}\\n\"\n\t\t: ", n / 2, n / 2 + 1);
	for (int i = 0; i < n / 2; i++)
		PUT("%s\"+f\"(d[%d])", i ? ", " : "", i);
	PUT("\n\t\t: \"l\"(da), \"l\"(db), \"r\"(1) : \"memory\");\n}\n%s", body);
#undef PUT
	if (len >= cap) {
		fprintf(stderr, PROBE_NAME ": kernel source past %zu bytes\n", cap);
		exit(1);
	}
	return s;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: wgmma-probe tests/gpu/wgmma-probe.cu\n");
		return 2;
	}
	struct cudaDeviceProp prop;
	require_hopper(&prop);
	char *body = slurp(argv[1]);
	encode_tiled_fn tiled = (encode_tiled_fn)driver("cuTensorMapEncodeTiled");
	static const struct probe_case cases[] = {
		{ "64x128 (conv.cu w4)", 128, 1, 0, 1, 1, 1, 0, 0 },
		{ "64x128 (conv.cu w4)", 128, 1, 0, 1, 1, 0, 0, 0 },
		{ "64x128 (conv.cu w4)", 128, 1, 0, 1, 2, 1, 0, 0 },
		{ "64x128 as two n64", 64, 2, 1, 1, 1, 1, 0, 0 },
		{ "128x64 (cuDNN 1x1x1)", 64, 2, 0, 1, 1, 1, 0, 0 },
		{ "64x64 (conv.cu w4)", 64, 1, 0, 1, 1, 1, 0, 0 },
		{ "64x64 (conv.cu w4)", 64, 1, 0, 1, 2, 1, 0, 0 },
		{ "128x128 (conv.cu w4)", 128, 2, 0, 1, 1, 1, 0, 0 },
		{ "128x128 (conv.cu w8)", 128, 1, 0, 2, 1, 1, 0, 0 },
		{ "192x128 (conv.cu w12)", 128, 1, 0, 3, 1, 1, 0, 0 },
		{ "64x256 (conv.cu w4)", 256, 1, 0, 1, 1, 1, 0, 0 },
		{ "128x256 (conv.cu w8)", 256, 1, 0, 2, 1, 1, 0, 0 },
		{ "64x112 (conv.cu w4)", 112, 1, 0, 1, 1, 1, 0, 0 },
		/* with copies: beside the products (1) and feeding them (2), on 28 and 100 SMs */
		{ "64x128 (conv.cu w4)", 128, 1, 0, 1, 1, 1, 1, 28 },
		{ "64x128 (conv.cu w4)", 128, 1, 0, 1, 1, 1, 2, 28 },
		{ "64x128 (conv.cu w4)", 128, 1, 0, 1, 1, 1, 1, 100 },
		{ "64x128 (conv.cu w4)", 128, 1, 0, 1, 1, 1, 2, 100 },
		{ "128x64 (cuDNN 1x1x1)", 64, 2, 0, 1, 1, 1, 1, 28 },
		{ "128x64 (cuDNN 1x1x1)", 64, 2, 0, 1, 1, 1, 2, 28 },
		{ "128x64 (cuDNN 1x1x1)", 64, 2, 0, 1, 1, 1, 2, 104 },
		{ "128x128 (conv.cu w8)", 128, 1, 0, 2, 1, 1, 1, 28 },
		{ "128x128 (conv.cu w8)", 128, 1, 0, 2, 1, 1, 2, 28 },
		{ "128x128 (conv.cu w8)", 128, 1, 0, 2, 1, 1, 2, 52 },
		{ "64x256 (conv.cu w4)", 256, 1, 0, 1, 1, 1, 1, 28 },
		{ "64x256 (conv.cu w4)", 256, 1, 0, 1, 1, 1, 2, 28 },
		{ "64x256 (conv.cu w4)", 256, 1, 0, 1, 1, 1, 2, 50 },
		{ "128x256 (conv.cu w8)", 256, 1, 0, 2, 1, 1, 2, 28 },
	};
	const int T = 20000, M = 32 * 7 * 7, N = 512, C = 2048; /* the copies: a 1x1 layer's */
	float *out;
	long long *clk;
	void *x, *w;
	CK(cudaMalloc((void **)&out, (size_t)4 * 132 * 512 * sizeof(float)));
	CK(cudaMalloc((void **)&clk, sizeof(long long)));
	CK(cudaMalloc(&x, (size_t)M * C * 2));
	CK(cudaMalloc(&w, (size_t)N * C * 2));
	CK(cudaMemset(x, 0, (size_t)M * C * 2));
	CK(cudaMemset(w, 0, (size_t)N * C * 2));
	printf("device %s, %d SMs\n", prop.name, prop.multiProcessorCount);
	printf("tile cut inst blocks_per_sm wait loads stages blocks us_ktile clk_ktile mhz tflops "
	       "peak_frac\n");
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct probe_case *p = &cases[i];
		char d[6][32];
		snprintf(d[0], sizeof d[0], "-DNN=%d", p->n);
		snprintf(d[1], sizeof d[1], "-DCHAINS=%d", p->chains);
		snprintf(d[2], sizeof d[2], "-DSPLIT_N=%d", p->split_n);
		snprintf(d[3], sizeof d[3], "-DWGS=%d", p->wgs);
		snprintf(d[4], sizeof d[4], "-DWAIT=%d", p->wait);
		snprintf(d[5], sizeof d[5], "-DLOADS=%d", p->loads);
		const char *opts[] = { "--gpu-architecture=sm_90a", "-std=c++17", d[0], d[1],
				       d[2], d[3], d[4], d[5] };
		char *src = kernel_source(p->n, body);
		cudaLibrary_t lib = nvrtc_library(src, "wgmma-probe.cu", 8, opts);
		free(src);
		cudaKernel_t k;
		CK(cudaLibraryGetKernel(&k, lib, "probe"));
		int arows = p->wgs * (p->split_n ? 1 : p->chains) * 64;
		int brows = p->split_n ? p->chains * p->n : p->n, tile = (arows + brows) * 128;
		int max = (int)prop.sharedMemPerBlockOptin, stages = 0, smem;
		if (p->loads) /* the deepest ring up to 8 beside the zeroed tile */
			for (stages = 8; stages > 2 && (stages + 1) * tile + 1024 + 16 * stages > max;)
				stages--;
		smem = (stages + 1) * tile + 1024 + 16 * stages;
		if (p->per_sm == 1 && smem < 120 * 1024)
			smem = 120 * 1024; /* one block an SM: more than half its shared memory */
		if (smem > max ||
		    (p->per_sm == 2 && 2 * (smem + 1024) > (int)prop.sharedMemPerMultiprocessor)) {
			printf("%s: does not fit (%d bytes)\n", p->tile, smem);
			continue;
		}
		CUtensorMap ma __attribute__((aligned(64)));
		CUtensorMap mb __attribute__((aligned(64)));
		memset(&ma, 0, sizeof ma);
		memset(&mb, 0, sizeof mb);
		if (p->loads) {
			const CUtensorMapL2promotion pr = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
			if (map_rows16(tiled, &ma, x, M, C, (unsigned)arows, pr) != CUDA_SUCCESS ||
			    map_rows16(tiled, &mb, w, N, C, (unsigned)brows, pr) != CUDA_SUCCESS) {
				printf("%s: map encoding failed\n", p->tile);
				continue;
			}
		}
		CK(cudaFuncSetAttribute((const void *)k,
					cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
		int blocks = p->grid ? p->grid : prop.multiProcessorCount * p->per_sm;
		int t = T, m = M, n = N, katoms = C / 64;
		void *args[] = { &t, &out, &clk, &ma, &mb, &m, &n, &katoms, &stages };
		const float ms = launch_ms((const void *)k, (unsigned)blocks,
					   (unsigned)(128 * p->wgs + (p->loads ? 128 : 0)), args,
					   (size_t)smem);
		long long c = 0;
		CK(cudaMemcpy(&c, clk, sizeof c, cudaMemcpyDeviceToHost));
		double us = ms * 1e3 / T;
		double flop = 2.0 * arows * brows * 64; /* a k-tile of the tile */
		double clk_kt = (double)c / T;
		printf("%s %s%d,wg%d n%d %d %d %d %d %d %.4f %.1f %.0f %.1f %.3f\n", p->tile,
		       p->split_n ? "n" : "m", p->chains, p->wgs, p->n, p->per_sm, p->wait,
		       p->loads, stages, blocks, us, clk_kt, clk_kt / us,
		       blocks * flop / (us * 1e-6) / 1e12, flop * p->per_sm / 4096.0 / clk_kt);
		CK(cudaLibraryUnload(lib));
	}
	return 0;
}
