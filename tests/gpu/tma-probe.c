/* tma-probe.c: what the tensor copy engine's loads alone cost a k-tile at ResNet-50's 3x3
 * layers, im2col boxes against plain boxes of the same bytes (issue 49: the 512-channel 3x3
 * layers' k-loop, docs/benchmarks-archive.md 2026-11-29).  Compiles tests/gpu/tma-probe.cu
 * with NVRTC for sm_90a, encodes the maps as kernels/cuda/gemm.c does, and times the kernel
 * with CUDA events (one warm launch, then the median of 5) on one block an SM and on 100
 * blocks (one wave of ResNet-50's 7 x 7 tiles of 64 x 128), with rings of 4 stages (conv.cu's
 * usual depth) and, at the 7 x 7 layer, of 8 (2 and 16 gave the same as 4 and 8), each with
 * the producer decoding every copy's coordinates by integer division and with them hoisted
 * (tma-probe.cu's hoist): whether a k-tile's time is the copies' round trip over the
 * stages in flight, the engine's rate, or the one producer thread's own instructions.  One line a case: the layer, the mode (tma-probe.cu's header), the box rows, the
 * stages, the blocks, microseconds a k-tile and the bytes a second over all blocks.  Needs a Hopper GPU; prints and exits 77 without one.
 *
 *     cc -std=gnu11 -O2 -I$CUDA/include tests/gpu/tma-probe.c -L$CUDA/lib64 -lcudart -lnvrtc
 *     ./a.out tests/gpu/tma-probe.cu [ab]
 *
 * With "ab" it runs only the second part instead (probe_ab, below: both operands' copies).
 */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROBE_NAME "tma-probe"
#include "probe-common.h"

typedef PFN_cuTensorMapEncodeIm2col_v12000 encode_im2col_fn;

struct layer {
	const char *name;
	int n, h, w, c, rs, stride, pad;
};

/* The second part (argument "ab"): what an SM takes in when it loads both operands of a 1x1
 * layer (tma-probe.cu's probe_ab), by how the copies are issued, the maps' L2 promotion, the
 * tile's rows of A and B and the blocks busy (28: batch 8's whole tiles; 100: batch 32's; 132:
 * every SM).  One line a case: how, promotion, A rows, B rows, stages, blocks, microseconds a
 * k-tile (the median of 5 timed launches after a warm one, over T), block 0's SM clocks a
 * k-tile, GB/s an SM and bytes a clock an SM (by those clocks), TB/s over all blocks. */
static void probe_ab(cudaLibrary_t lib, encode_tiled_fn tiled, const struct cudaDeviceProp *prop)
{
	cudaKernel_t k;
	CK(cudaLibraryGetKernel(&k, lib, "probe_ab"));
	const int M = 32 * 7 * 7, C = 2048, K = 512, T = 4000;
	const long long xbytes = (long long)M * C * 2;
	void *x, *w;
	long long *clk;
	CK(cudaMalloc(&x, (size_t)xbytes));
	CK(cudaMalloc(&w, (size_t)K * C * 2));
	CK(cudaMalloc((void **)&clk, sizeof(long long)));
	CK(cudaMemset(x, 0, (size_t)xbytes));
	CK(cudaMemset(w, 0, (size_t)K * C * 2));
	static const char *const hows[] = { "one-thread", "two-threads", "bulk-1d" };
	static const CUtensorMapL2promotion promos[] = { CU_TENSOR_MAP_L2_PROMOTION_NONE,
							 CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
							 CU_TENSOR_MAP_L2_PROMOTION_L2_256B };
	static const char *const promo_names[] = { "none", "128B", "256B" };
	static const int shapes[][2] = { { 64, 128 }, { 128, 64 }, { 128, 128 }, { 64, 256 } };
	static const int grids[] = { 28, 100, 132 };
	printf("how promotion arows brows stages blocks us_per_ktile clk_per_ktile GB_s_per_sm "
	       "B_per_clk TB_s\n");
	for (int how = 0; how < 3; how++)
		for (int pi = 0; pi < 3; pi++)
			for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
				if (how == 2 && pi != 0)
					continue; /* no map: no promotion */
				if (pi != 2 && si != 0)
					continue; /* the other shapes at conv.cu's promotion */
				int arows = shapes[si][0], brows = shapes[si][1];
				CUtensorMap ma __attribute__((aligned(64)));
				CUtensorMap mb __attribute__((aligned(64)));
				if (map_rows16(tiled, &ma, x, M, C, (unsigned)arows, promos[pi]) !=
					    CUDA_SUCCESS ||
				    map_rows16(tiled, &mb, w, K, C, (unsigned)brows, promos[pi]) !=
					    CUDA_SUCCESS) {
					printf("%s %s %d %d: map encoding failed\n", hows[how],
					       promo_names[pi], arows, brows);
					continue;
				}
				int stages = 8;
				while (stages * (arows + brows) * 128 + 2048 + 16 * stages >
				       (int)prop->sharedMemPerBlockOptin)
					stages--;
				int smem = stages * (arows + brows) * 128 + 2048 + 16 * stages;
				CK(cudaFuncSetAttribute((const void *)k,
							cudaFuncAttributeMaxDynamicSharedMemorySize,
							smem));
				for (size_t gi = 0; gi < sizeof grids / sizeof grids[0]; gi++) {
					int t = T, ka = C / 64, h = how, m = M, kk = K;
					long long xb = xbytes;
					void *args[] = { &ma, &mb, &x, &xb, &t, &arows, &brows, &m, &kk,
							 &ka, &stages, &h, &clk };
					const float ms = launch_ms((const void *)k, (unsigned)grids[gi],
								   96, args, (size_t)smem);
					long long c = 0;
					CK(cudaMemcpy(&c, clk, sizeof c, cudaMemcpyDeviceToHost));
					double us = ms * 1e3 / T, bytes = (arows + brows) * 128.0;
					double ck = (double)c / T;
					printf("%s %s %d %d %d %d %.4f %.1f %.1f %.1f %.2f\n", hows[how],
					       promo_names[pi], arows, brows, stages, grids[gi], us, ck,
					       bytes / (us * 1e-6) / 1e9, bytes / ck,
					       grids[gi] * bytes / (us * 1e-6) / 1e12);
				}
			}
	CK(cudaFree(x));
	CK(cudaFree(w));
	CK(cudaFree(clk));
}

int main(int argc, char **argv)
{
	if (argc != 2 && !(argc == 3 && !strcmp(argv[2], "ab"))) {
		fprintf(stderr, "usage: tma-probe tests/gpu/tma-probe.cu [ab]\n");
		return 2;
	}
	struct cudaDeviceProp prop;
	require_hopper(&prop);
	char *src = slurp(argv[1]);
	const char *opts[] = { "--gpu-architecture=sm_90a", "-std=c++17" };
	cudaLibrary_t lib = nvrtc_library(src, "tma-probe.cu", 2, opts);
	cudaKernel_t k;
	CK(cudaLibraryGetKernel(&k, lib, "probe"));
	encode_tiled_fn tiled = (encode_tiled_fn)driver("cuTensorMapEncodeTiled");
	encode_im2col_fn im2col = (encode_im2col_fn)driver("cuTensorMapEncodeIm2col");
	printf("device %s, %d SMs\n", prop.name, prop.multiProcessorCount);
	if (argc == 3) {
		probe_ab(lib, tiled, &prop);
		return 0;
	}
	printf("layer mode rows stages blocks us_per_ktile TB_per_s\n");

	static const struct layer layers[] = {
		{ "512x3x3@7", 32, 7, 7, 512, 3, 1, 1 },
		{ "512x3x3/2@14", 32, 14, 14, 512, 3, 2, 1 },
		{ "256x3x3@14", 32, 14, 14, 256, 3, 1, 1 },
		{ "128x3x3@28", 32, 28, 28, 128, 3, 1, 1 },
	};
	static const char *const modes[] = { "im2col", "im2col-halves", "plain", "plain-halves" };
	for (size_t l = 0; l < sizeof(layers) / sizeof(layers[0]); l++) {
		const struct layer *g = &layers[l];
		int P = (g->h + 2 * g->pad - g->rs) / g->stride + 1;
		int Q = (g->w + 2 * g->pad - g->rs) / g->stride + 1;
		size_t xbytes = (size_t)g->n * g->h * g->w * g->c * 2;
		void *x;
		CK(cudaMalloc(&x, xbytes));
		CK(cudaMemset(x, 0, xbytes));
		static const int depths[] = { 4, 8 };
		for (int rows = 128; rows >= 64; rows /= 2)
			for (int di = 0; di < (l == 0 ? 2 : 1); di++)
			for (int hoist = 0; hoist < 2; hoist++)
			for (int mode = 0; mode < 4; mode++) {
				int stages = depths[di];
				if (mode >= 2 && g->stride != 1)
					continue; /* a plain box has no stride */
				int parts = (mode == 1 || mode == 3) ? 2 : 1;
				CUtensorMap map __attribute__((aligned(64)));
				CUresult r;
				if (mode <= 1) {
					cuuint64_t dim[4] = { (cuuint64_t)g->c, (cuuint64_t)g->w,
							      (cuuint64_t)g->h, (cuuint64_t)g->n };
					cuuint64_t st[3] = { (cuuint64_t)g->c * 2,
							     (cuuint64_t)g->w * g->c * 2,
							     (cuuint64_t)g->h * g->w * g->c * 2 };
					int lo[2] = { -g->pad, -g->pad };
					int hi[2] = { g->pad + 1 - g->rs, g->pad + 1 - g->rs };
					cuuint32_t es[4] = { 1, (cuuint32_t)g->stride,
							     (cuuint32_t)g->stride, 1 };
					r = im2col(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 4, x, dim, st, lo,
						   hi, 64, (cuuint32_t)(rows / parts), es,
						   CU_TENSOR_MAP_INTERLEAVE_NONE,
						   CU_TENSOR_MAP_SWIZZLE_128B,
						   CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
						   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
				} else {
					cuuint64_t dim[2] = { (cuuint64_t)g->c,
							      (cuuint64_t)g->n * g->h * g->w };
					cuuint64_t st[1] = { (cuuint64_t)g->c * 2 };
					cuuint32_t box[2] = { 64, (cuuint32_t)(rows / parts) };
					cuuint32_t es[2] = { 1, 1 };
					r = tiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, x, dim, st, box,
						  es, CU_TENSOR_MAP_INTERLEAVE_NONE,
						  CU_TENSOR_MAP_SWIZZLE_128B,
						  CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
						  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
				}
				if (r != CUDA_SUCCESS) {
					printf("%s %s %d: map encoding failed (%d)\n", g->name,
					       modes[mode], rows, (int)r);
					continue;
				}
				int smem = stages * rows * 128 + 1024 + 16 * stages;
				if (smem > (int)prop.sharedMemPerBlockOptin)
					continue; /* the ring does not fit */
				CK(cudaFuncSetAttribute((const void *)k,
							cudaFuncAttributeMaxDynamicSharedMemorySize,
							smem));
				int grids[2] = { prop.multiProcessorCount, 100 };
				for (int gi = 0; gi < 2; gi++) {
					int T = 72 * 16, mm = mode, rr = rows, N = g->n, H = g->h;
					int W = g->w, C = g->c, RS = g->rs, S = g->stride, pad = g->pad;
					void *args[] = { &map, &mm, &T, &rr, &N, &H, &W, &C, &P, &Q, &RS,
							 &S, &pad, &stages, &hoist };
					/* the median of the 5 after the warm one */
					double us = launch_ms((const void *)k, (unsigned)grids[gi], 64,
							      args, (size_t)smem) *
						    1e3 / T;
					double tbs = (double)grids[gi] * rows * 128 / (us * 1e-6) / 1e12;
					printf("%s %s%s %d %d %d %.3f %.2f\n", g->name, modes[mode],
					       hoist ? "-hoisted" : "", rows, stages, grids[gi], us, tbs);
				}
			}
		CK(cudaFree(x));
	}
	return 0;
}
