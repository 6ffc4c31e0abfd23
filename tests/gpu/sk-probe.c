/* sk-probe.c: where a stream-K launch of conv.cu's wgmma kernel spends its time, block by
 * block (issue 49: at ResNet-50's 7x7 layers conv.cu's stream-K took about twice its ideal,
 * docs/benchmarks-archive.md 2026-11-30, stop 63).  Compiles kernels/cuda/templates/conv.cu
 * with NVRTC for sm_90a as the backend would (TMA-only, the run-time depth at 4 or 8 warps)
 * plus -DWG_SK_PROBE=1 (wgmma.cuh: consumer warpgroup 0 stamps %globaltimer at its start and,
 * per segment, at its first stage's arrival, its k-loop's end, stream-K's fix-up and the
 * store), encodes the maps as kernels/cuda/gemm.c does (X by im2col, or as an M x C matrix at
 * the 1x1 layer; the weights as K x RS*RS*C; in a cluster of two along n each block's box
 * half of A's rows), launches it on zeroed buffers as conv.c would (stream-K: STREAM_K blocks
 * an SM, 3 one an SM cut to a multiple of the tiles (conv.c's sk_grid); else the persistent
 * grid; both at most what fits, in clusters what
 * cudaOccupancyMaxActiveClusters allows), times it with CUDA events (one
 * warm launch, the median of 5), then launches once more and reads the stamps back.  One line
 * a case: the layer, batch, config, blocks, the event median (us), an empty kernel's launched
 * alike, the stamps' span (the first block's first instruction to the last consumer's end),
 * and the medians over blocks of the prologue (first instruction to the consumers' start),
 * the pipeline's fill, a k-tile, the finishers' fix-up (their waits and sums), the
 * hand-overs' and the store, with the block ends' lowest, median and highest (us), then the
 * time a launch of 20 back-to-back launches in one CUDA graph (as the harness's warm trials
 * replay them) as plain launches and as programmatic dependents (PDL: wgmma.cuh's
 * griddepcontrol; added at stop 65), and an empty kernel's launched alike both ways, then
 * (stop 68) the prologue's parts' medians: first instruction to past the barriers' set-up
 * (__syncthreads), to past griddepcontrol.wait, to past the consumers' setmaxnreg; and the
 * first segment's store call alone (before its stage's release) and up to its first
 * stmatrix (wgmma.cuh's wg_acc_h16: the bias loads and the sums); each
 * block's stamps into $SK_PROBE_CSV when set.  Needs a Hopper GPU; prints and exits 77
 * without one.  The cases in clusters and at 128 x 256, and the printed block ends' lowest
 * and median (the stop-63 runs printed the highest; the archive took the rest from the CSV),
 * ran first at stop 64; the STREAM_K 3 cases were added then.  SK_PROBE_SET picks another
 * list of configs (stop 67): "cluster", whole tiles and stream-K with and without clusters
 * of 2 and 2 x 2 at the 7x7 layers; "bk", k-tiles of 128 (BLOCK_K 128, two atoms a stage)
 * against 64; "ck" (stop 69), pairs of blocks splitting each tile's k-tiles (conv.cu's
 * CLUSTER_K 2, summed through distributed shared memory at stop 69, through a slot of the
 * workspace since stop 70: two blocks a tile, in clusters of two, whatever the waves)
 * against the best one-block configs; "1x1" (stop 71), the two 1x1 layers of 32 images that sat
 * near 80% of cuDNN, one-block configs, clusters and SWAP_AB's (wgmma.cuh: 64 of the channels
 * a consumer warpgroup as wgmma's m, the pixels as its n).  Stop 71's switches:
 * SK_PROBE_FLUSH=1 overwrites L2 before each timed launch by a memset of twice its size (the
 * harness's cold samples: its lines left dirty), 2 then relaunches the kernel with no tiles
 * (its prologue's code and maps back in L2), 3 overwrites it by reads instead (lines left
 * clean); SK_PROBE_CHECK=N fills the operands with random values and launches each config N
 * more times, each Y against the first config's first (how many differ bit for bit, the
 * largest |dY|, how many outside 0.02 + 1% of it, and Y's nonzero count);
 * SK_PROBE_PROMO (0, 64, 128, 256) the plain maps' L2 promotion; SK_PROBE_DEFINE one more
 * NVRTC option for every module.  (Stop 67's "gather" set, A
 * gathered by the producer warpgroup with cp.async .cg, .ca and tap-inner against A by TMA,
 * ran on probe hooks in conv.cu taken out after it: commit e51fe70.)
 *
 *     cc -std=gnu11 -O2 -I$CUDA/include tests/gpu/sk-probe.c -L$CUDA/lib64 -lcudart -lnvrtc -lm
 *     ./a.out kernels/cuda/templates
 */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#define PROBE_NAME "sk-probe"
#include "probe-common.h"

typedef PFN_cuTensorMapEncodeIm2col_v12000 encode_im2col_fn;

struct layer {
	const char *name;
	int n, h, w, c, k, rs, stride, pad;
};
struct cfg {
	int bm, bn, warps, stages, sk, cl; /* cl: CLUSTER (2: two blocks along n share A by
					    * multicast; 4: 2 x 2, sharing A and B) */
	int bk; /* BLOCK_K (0: 64) */
	int ck; /* CLUSTER_K (0: 1): 2, each tile's k-tiles split over a cluster's two blocks,
		 * summed through a slot of ws; two blocks a tile, no cap */
	int sw; /* SWAP_AB (stop 71): 1, each consumer warpgroup 64 of BLOCK_N by BLOCK_M */
};

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
	return x < y ? -1 : x > y;
}

/* The median of v[0..n) (sorted in place), 0 for none. */
static double med(unsigned long long *v, int n)
{
	if (n == 0)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_ull);
	return (double)v[n / 2];
}

static cudaKernel_t empty_k;

/* n 16-bit floats at device d, uniform in [-scale, scale) (a fixed sequence) */
static void fill16(void *d, size_t n, float scale)
{
	static unsigned long long s = 88172645463325252ull;
	_Float16 *h = malloc(n * sizeof(*h));
	for (size_t i = 0; i < n; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		h[i] = (_Float16)(scale * ((float)(s >> 40) / 8388608.0f - 1.0f));
	}
	CK(cudaMemcpy(d, h, n * sizeof(*h), cudaMemcpyHostToDevice));
	free(h);
}

static double h2f(unsigned short u)
{
	_Float16 h;
	memcpy(&h, &u, 2);
	return (double)h;
}

/* The event median (us, of 5 after a warm launch) of an empty kernel launched as a config's:
 * what the launch and the events cost alone. */
static float empty_us(int grid, int threads, int smem)
{
	cudaEvent_t a, b;
	float ms[6];
	CK(cudaFuncSetAttribute((const void *)empty_k, cudaFuncAttributeMaxDynamicSharedMemorySize,
				smem));
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	for (int i = 0; i < 6; i++) {
		CK(cudaEventRecord(a, 0));
		CK(cudaLaunchKernel((const void *)empty_k, (dim3){ (unsigned)grid, 1, 1 },
				    (dim3){ (unsigned)threads, 1, 1 }, NULL, (size_t)smem, 0));
		CK(cudaEventRecord(b, 0));
		CK(cudaEventSynchronize(b));
		CK(cudaEventElapsedTime(&ms[i], a, b));
	}
	return median5(ms) * 1e3f;
}

/* The time a launch (us) of BATCH back-to-back launches of lc's kernel k captured into one
 * graph, as the harness's warm trials replay them (kernels/cuda/graph-replay.c), the launches
 * programmatic dependents (the backend's HARNESS_CUDA_PDL, wgmma.cuh's griddepcontrol) when
 * pdl: the median of 5 replays after a warm one. */
#define BATCH 20
static float batch_us(cudaLaunchConfig_t lc, const void *k, void **args, int pdl)
{
	cudaStream_t st;
	cudaGraph_t g;
	cudaGraphExec_t ge;
	cudaEvent_t a, b;
	float ms[6];
	cudaLaunchAttribute attr[2] = { lc.attrs[0] };
	attr[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
	attr[1].val.programmaticStreamSerializationAllowed = 1;
	lc.attrs = attr;
	lc.numAttrs = 1 + (pdl != 0);
	CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	lc.stream = st;
	CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeRelaxed));
	for (int i = 0; i < BATCH; i++)
		CK(cudaLaunchKernelExC(&lc, k, args));
	CK(cudaStreamEndCapture(st, &g));
	CK(cudaGraphInstantiate(&ge, g, 0));
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	for (int i = 0; i < 7; i++) {
		CK(cudaEventRecord(a, st));
		CK(cudaGraphLaunch(ge, st));
		CK(cudaEventRecord(b, st));
		CK(cudaEventSynchronize(b));
		if (i > 0)
			CK(cudaEventElapsedTime(&ms[i - 1], a, b));
	}
	CK(cudaEventDestroy(a));
	CK(cudaEventDestroy(b));
	CK(cudaGraphExecDestroy(ge));
	CK(cudaGraphDestroy(g));
	CK(cudaStreamDestroy(st));
	return median5(ms) * 1e3f / BATCH;
}

/* Module of config f (NVRTC, sm_90a), its kernel "conv" into *k and the stamps into *probe. */
static void build(const char *dir, const char *src, const struct cfg *f, cudaKernel_t *k,
		  unsigned long long **probe)
{
	char o[9][64], inc[4096];
	snprintf(o[0], 64, "-DBLOCK_M=%d", f->bm);
	snprintf(o[1], 64, "-DBLOCK_N=%d", f->bn);
	snprintf(o[2], 64, "-DWARPS=%d", f->warps);
	snprintf(o[3], 64, "-DSTREAM_K=%d", f->sk);
	if (f->warps <= 8) /* the backend's: the depth the launch's with 4 or 8 warps */
		snprintf(o[4], 64, "-DWG_RT_STAGES=1");
	else
		snprintf(o[4], 64, "-DSTAGES=%d", f->stages);
	snprintf(o[5], 64, "-DWG_TMA_ONLY=1");
	snprintf(o[6], 64, "-DBLOCK_K=%d", f->bk ? f->bk : 64);
	snprintf(o[7], 64, "-DCLUSTER_K=%d", f->ck ? f->ck : 1);
	snprintf(o[8], 64, "-DSWAP_AB=%d", f->sw);
	snprintf(inc, sizeof(inc), "--include-path=%s", dir);
	const char *opts[20] = { "--gpu-architecture=sm_90a", "-std=c++17", "-DDTYPE_FLOAT16",
				 "-DWGMMA=1", "-DWG_SK_PROBE=1", o[6], "-DSPLIT_K=1",
				 "-DGROUP_M=8", o[0], o[1], o[2], o[3], o[4], o[5], inc, o[8], o[7] };
	/* SK_PROBE_DEFINE (stop 71): one more option for every module (a template's A/B macro) */
	const char *def = getenv("SK_PROBE_DEFINE");
	int nopt = f->ck ? 17 : 16;
	if (def && *def)
		opts[nopt++] = def;
	cudaLibrary_t lib = nvrtc_library(src, "conv.cu", nopt, opts);
	size_t bytes;
	CK(cudaLibraryGetKernel(k, lib, "conv"));
	CK(cudaLibraryGetGlobal((void **)probe, &bytes, lib, "wg_probe"));
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: sk-probe kernels/cuda/templates\n");
		return 2;
	}
	struct cudaDeviceProp prop;
	require_hopper(&prop);
	char path[4096];
	snprintf(path, sizeof(path), "%s/conv.cu", argv[1]);
	char *src = slurp(path);
	encode_tiled_fn tiled = (encode_tiled_fn)driver("cuTensorMapEncodeTiled");
	encode_im2col_fn im2col = (encode_im2col_fn)driver("cuTensorMapEncodeIm2col");
	const char *csv_path = getenv("SK_PROBE_CSV");
	FILE *csv = csv_path && *csv_path ? fopen(csv_path, "w") : NULL;
	if (csv)
		fprintf(csv, "layer,batch,config,block,top,consumers_end,entry,s0_first,s0_kend,s0_fix,s0_store,"
			     "s1_first,s1_kend,s1_fix,s1_store,s2_first,s2_kend,s2_fix,s2_store,"
			     "seg0,seg1,seg2\n");
	int sms = prop.multiProcessorCount;
	printf("device %s, %d SMs\n", prop.name, sms);
	printf("layer batch config blocks event_us empty_us span_us prologue_us fill_us ktile_us "
	       "fixup_fin_us handover_us store_us end_min_us end_med_us end_max_us batch_us "
	       "batch_pdl_us empty_batch_us empty_batch_pdl_us pro_sync_us pro_wait_us pro_reg_us "
	       "store_fn_us store_pre_us\n");

	static const struct layer layers[] = {
		{ "512x3x3@7", 8, 7, 7, 512, 512, 3, 1, 1 },
		{ "512x3x3@7", 32, 7, 7, 512, 512, 3, 1, 1 },
		{ "2048x1x1@7", 32, 7, 7, 2048, 512, 1, 1, 0 },
		{ "1024x1x1@14", 32, 14, 14, 1024, 256, 1, 1, 0 },
	};
	static const struct cfg cfgs[] = {
		{ 64, 128, 4, 8, 0, 1 },  { 64, 128, 4, 8, 1, 1 },   { 128, 128, 8, 4, 0, 1 },
		{ 128, 128, 8, 4, 1, 1 }, { 192, 128, 12, 4, 0, 1 }, { 192, 128, 12, 4, 1, 1 },
		{ 64, 128, 4, 8, 1, 2 },  { 128, 128, 8, 4, 1, 2 },  { 128, 256, 8, 4, 0, 1 },
		{ 128, 256, 8, 4, 1, 1 }, { 128, 128, 8, 4, 3, 1 },  { 128, 128, 8, 4, 3, 2 },
		{ 192, 128, 12, 4, 3, 1 }, { 128, 256, 8, 4, 3, 1 },
	};
	/* SK_PROBE_SET=cluster: whole tiles and stream-K with and without clusters of 2 and 4 */
	static const struct cfg ccfgs[] = {
		{ 64, 128, 4, 8, 0, 1 },  { 64, 128, 4, 8, 0, 2 },  { 64, 128, 4, 8, 0, 4 },
		{ 128, 64, 4, 8, 0, 1 },  { 128, 64, 4, 8, 0, 2 },  { 128, 64, 4, 8, 0, 4 },
		{ 128, 128, 8, 4, 0, 1 }, { 128, 128, 8, 4, 0, 4 }, { 128, 128, 8, 4, 3, 1 },
		{ 128, 128, 8, 4, 3, 2 }, { 128, 128, 8, 4, 3, 4 }, { 64, 128, 4, 8, 1, 1 },
		{ 64, 128, 4, 8, 1, 4 },
	};
	/* SK_PROBE_SET=bk: k-tiles of 128 (two atoms a stage) against 64 */
	static const struct cfg kcfgs[] = {
		{ 64, 128, 4, 8, 0, 1, 64 },   { 64, 128, 4, 4, 0, 1, 128 },
		{ 128, 64, 4, 8, 0, 1, 64 },   { 128, 64, 4, 4, 0, 1, 128 },
		{ 128, 128, 8, 4, 0, 1, 64 },  { 128, 128, 8, 3, 0, 1, 128 },
		{ 128, 128, 8, 4, 3, 1, 64 },  { 128, 128, 8, 3, 3, 1, 128 },
		{ 64, 64, 4, 8, 0, 1, 64 },    { 64, 64, 4, 4, 0, 1, 128 },
		{ 192, 128, 12, 4, 3, 1, 64 }, { 64, 128, 4, 4, 0, 1, 64 },
	};
	/* SK_PROBE_SET=ck (stop 69): pairs splitting k (CLUSTER_K 2) against the best one-block
	 * configs of the 7 x 7 and 14 x 14 layers */
	static const struct cfg kkcfgs[] = {
		{ 64, 128, 4, 4, 0, 1, 128, 0 },  { 64, 128, 4, 4, 0, 1, 128, 2 },
		{ 128, 128, 8, 3, 3, 1, 128, 0 }, { 128, 128, 8, 3, 0, 1, 128, 2 },
		{ 128, 128, 8, 4, 0, 1, 64, 2 },  { 128, 64, 4, 4, 0, 1, 128, 2 },
		{ 128, 256, 8, 4, 0, 1, 64, 2 },  { 192, 64, 12, 3, 0, 1, 128, 0 },
	};
	/* SK_PROBE_SET=1x1 (stop 71): the two 1x1 layers of 32 images below 80% of cuDNN in the
	 * flushed walk, their best one-block configs (the first one-atom, so unaffected by the
	 * scratch of stop 71's fix: the check's reference), a cluster of two sharing A, and
	 * SWAP_AB's */
	static const struct cfg gcfgs[] = {
		{ 128, 128, 8, 4, 0, 1, 64 },  { 64, 128, 4, 4, 0, 1, 128 },
		{ 192, 64, 12, 3, 0, 1, 128 }, { 128, 128, 8, 3, 0, 1, 128 },
		{ 128, 64, 4, 4, 0, 1, 128 },
		/* SWAP_AB */
		{ 192, 64, 4, 3, 0, 1, 128, 0, 1 }, { 192, 64, 4, 3, 0, 2, 128, 0, 1 },
		{ 96, 128, 8, 4, 0, 1, 64, 0, 1 },  { 96, 128, 8, 3, 0, 1, 128, 0, 1 },
		{ 96, 128, 8, 6, 0, 2, 64, 0, 1 },  { 96, 128, 8, 3, 0, 2, 128, 0, 1 },
		{ 112, 64, 4, 4, 0, 1, 128, 0, 1 }, { 112, 64, 4, 8, 0, 1, 64, 0, 1 },
		{ 112, 64, 4, 4, 0, 2, 128, 0, 1 },
	};
	const char *set = getenv("SK_PROBE_SET");
	const int kset = set && !strcmp(set, "bk");
	const int cset = set && !strcmp(set, "cluster");
	const int ckset = set && !strcmp(set, "ck");
	const int gset = set && !strcmp(set, "1x1");
	const struct cfg *list = gset ? gcfgs : ckset ? kkcfgs : cset ? ccfgs : kset ? kcfgs : cfgs;
	const int ncfg = (int)(gset ? sizeof(gcfgs) / sizeof(gcfgs[0])
			       : ckset ? sizeof(kkcfgs) / sizeof(kkcfgs[0])
			       : cset ? sizeof(ccfgs) / sizeof(ccfgs[0])
			       : kset ? sizeof(kcfgs) / sizeof(kcfgs[0])
				      : sizeof(cfgs) / sizeof(cfgs[0]));
	cudaKernel_t kern[16];
	unsigned long long *probe[16];
	_Static_assert(sizeof(cfgs) / sizeof(cfgs[0]) <= 16 &&
			       sizeof(ccfgs) / sizeof(ccfgs[0]) <= 16 &&
			       sizeof(kcfgs) / sizeof(kcfgs[0]) <= 16 &&
			       sizeof(gcfgs) / sizeof(gcfgs[0]) <= 16,
		       "sk-probe: at most 16 configs");
	for (int i = 0; i < ncfg; i++)
		build(argv[1], src, &list[i], &kern[i], &probe[i]);
	static const char esrc[] = "extern \"C\" __global__ void empty() {}\n";
	const char *eo[] = { "--gpu-architecture=sm_90a" };
	CK(cudaLibraryGetKernel(&empty_k, nvrtc_library(esrc, "empty.cu", 1, eo), "empty"));
	static const char rsrc[] =
		"extern \"C\" __global__ void rd(const uint4 *p, unsigned long long n, unsigned *o)\n"
		"{\n\tunsigned a = 0;\n"
		"\tfor (unsigned long long i = blockIdx.x * 256ull + threadIdx.x; i < n;\n"
		"\t     i += gridDim.x * 256ull) {\n"
		"\t\tuint4 v = p[i];\n\t\ta ^= v.x ^ v.y ^ v.z ^ v.w;\n\t}\n"
		"\tif (a == 0x9e3779b9u)\n\t\t*o = a;\n}\n";
	cudaKernel_t read_k;
	CK(cudaLibraryGetKernel(&read_k, nvrtc_library(rsrc, "read.cu", 1, eo), "rd"));
	unsigned long long *host = malloc(2048 * 32 * sizeof(*host));
	/* SK_PROBE_FLUSH (stop 71): 1, each timed launch after L2 is overwritten (a memset of
	 * twice its size, as kernels/cuda/backend-cuda.c's cold samples: the walk's flush =
	 * true); 2, and then a launch of the kernel with no tiles (batch 0: the prologue's code
	 * and the tensor maps back in L2, the operands not); 3, L2 overwritten by reading
	 * twice its size instead (its lines left clean, where a memset leaves them dirty) */
	const char *ce = getenv("SK_PROBE_CHECK");
	const int check = ce ? atoi(ce) : 0; /* launches to check a config */
	const char *fl = getenv("SK_PROBE_FLUSH");
	const int cold = fl ? atoi(fl) : 0;
	const size_t flush_len = 2 * (size_t)(prop.l2CacheSize > 0 ? prop.l2CacheSize : 64 << 20);
	void *flushbuf = NULL;
	if (cold)
		CK(cudaMalloc(&flushbuf, flush_len));
	printf("flush %d (%zu bytes)\n", cold, cold ? flush_len : (size_t)0);
	/* SK_PROBE_PROMO (stop 71): the plain maps' L2 promotion, none, 64, 128 or 256 (the
	 * backend's, the default) */
	const char *pe = getenv("SK_PROBE_PROMO");
	const int pv = pe ? atoi(pe) : 256;
	const CUtensorMapL2promotion promo = pv == 64	 ? CU_TENSOR_MAP_L2_PROMOTION_L2_64B
					     : pv == 128 ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B
					     : pv == 256 ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B
							 : CU_TENSOR_MAP_L2_PROMOTION_NONE;
	for (size_t l = 0; l < sizeof(layers) / sizeof(layers[0]); l++) {
		const struct layer *g = &layers[l];
		if (((cset || kset || gset) && g->n != 32) || (cset && g->h != 7) ||
		    (gset && g->rs != 1))
			continue; /* the sets: batch 32's layers (clusters: 7 x 7's; 1x1: 1x1's) */
		int P = (g->h + 2 * g->pad - g->rs) / g->stride + 1;
		int Q = (g->w + 2 * g->pad - g->rs) / g->stride + 1;
		int M = g->n * P * Q, KK = g->rs * g->rs * g->c, K = g->k;
		void *x, *w, *bias, *y, *ws;
		unsigned *flags;
		CK(cudaMalloc(&x, (size_t)g->n * g->h * g->w * g->c * 2));
		CK(cudaMemset(x, 0, (size_t)g->n * g->h * g->w * g->c * 2));
		CK(cudaMalloc(&w, (size_t)K * KK * 2));
		CK(cudaMemset(w, 0, (size_t)K * KK * 2));
		CK(cudaMalloc(&bias, (size_t)K * 2));
		CK(cudaMemset(bias, 0, (size_t)K * 2));
		/* SK_PROBE_CHECK (stop 71): random operands, every config's Y against the first's */
		unsigned short *yref = NULL, *yh = NULL;
		const size_t ny = (size_t)M * K;
		if (check) {
			fill16(x, (size_t)g->n * g->h * g->w * g->c, 1.0f);
			fill16(w, (size_t)K * KK, 1.0f / sqrtf((float)KK));
			fill16(bias, (size_t)K, 0.5f);
			yref = malloc(ny * 2), yh = malloc(ny * 2);
		}
		CK(cudaMalloc(&y, (size_t)M * K * 2));
		CK(cudaMalloc(&ws, (size_t)2 * sms * 192 * 256 * 4));
		CK(cudaMalloc((void **)&flags, (size_t)2 * sms * 3 * sizeof(unsigned)));
		CK(cudaMemset(flags, 0, (size_t)2 * sms * 3 * sizeof(unsigned)));
		for (int ci = 0; ci < ncfg; ci++) {
			const struct cfg *f = &list[ci];
			CUtensorMap ma __attribute__((aligned(64))), mb __attribute__((aligned(64)));
			CUtensorMap mr __attribute__((aligned(64)));
			memset(&mr, 0, sizeof(mr));
			/* gemm.c's cluster shape: cm blocks along m (sharing B), cn along n */
			const int cm = f->cl == 4 ? 2 : 1, cn = f->cl / cm;
			const int cl = f->ck ? f->ck : f->cl; /* the launch's cluster */
			int use_tma;
			CUresult r;
			if (g->rs == 1 && g->stride == 1 && g->pad == 0) {
				cuuint64_t dim[2] = { (cuuint64_t)g->c, (cuuint64_t)M };
				cuuint64_t st[1] = { (cuuint64_t)g->c * 2 };
				cuuint32_t box[2] = { 64, (cuuint32_t)(f->bm / cn) }, es[2] = { 1, 1 };
				r = tiled(&ma, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, x, dim, st, box, es,
					  CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
					  promo,
					  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
				use_tma = 1;
			} else {
				cuuint64_t dim[4] = { (cuuint64_t)g->c, (cuuint64_t)g->w,
						      (cuuint64_t)g->h, (cuuint64_t)g->n };
				cuuint64_t st[3] = { (cuuint64_t)g->c * 2, (cuuint64_t)g->w * g->c * 2,
						     (cuuint64_t)g->h * g->w * g->c * 2 };
				int lo[2] = { -g->pad, -g->pad };
				int hi[2] = { g->pad + 1 - g->rs, g->pad + 1 - g->rs };
				cuuint32_t es[4] = { 1, (cuuint32_t)g->stride, (cuuint32_t)g->stride, 1 };
				r = im2col(&ma, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 4, x, dim, st, lo, hi, 64,
					   (cuuint32_t)(f->bm / cn), es, CU_TENSOR_MAP_INTERLEAVE_NONE,
					   CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
					   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
				use_tma = 3;
			}
			cuuint64_t bdim[2] = { (cuuint64_t)KK, (cuuint64_t)K };
			cuuint64_t bst[1] = { (cuuint64_t)KK * 2 };
			cuuint32_t bbox[2] = { 64, (cuuint32_t)(f->bn / cm) }, bes[2] = { 1, 1 };
			if (cm == 2)
				use_tma |= 1 << 6; /* wgmma.cuh's WG_CLUSTER_CM_SHIFT: log2 cm */
			if (r == CUDA_SUCCESS)
				r = tiled(&mb, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, w, bdim, bst, bbox,
					  bes, CU_TENSOR_MAP_INTERLEAVE_NONE,
					  CU_TENSOR_MAP_SWIZZLE_128B, promo,
					  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
			if (r != CUDA_SUCCESS) {
				printf("%s %d: map encoding failed (%d)\n", g->name, g->n, (int)r);
				continue;
			}
			const int bk = f->bk ? f->bk : 64;
			int smem = f->stages * (f->bm + f->bn) * bk * 2 + 2048;
			int threads = 32 * f->warps + 128, occ = 0;
			CK(cudaFuncSetAttribute((const void *)kern[ci],
						cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
			/* in clusters (along n: a pair takes a BLOCK_M x 2 BLOCK_N tile) */
			cudaLaunchAttribute attr = { .id = cudaLaunchAttributeClusterDimension };
			attr.val.clusterDim.x = (unsigned)cl;
			attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
			cudaLaunchConfig_t lc = { .gridDim = { (unsigned)(cl * sms), 1, 1 },
						  .blockDim = { (unsigned)threads, 1, 1 },
						  .dynamicSmemBytes = (size_t)smem,
						  .attrs = &attr,
						  .numAttrs = 1 };
			if (cl > 1) {
				CK(cudaOccupancyMaxActiveClusters(&occ, (const void *)kern[ci], &lc));
				occ = occ * cl; /* blocks that fit, over all SMs */
			} else {
				CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
					&occ, (const void *)kern[ci], threads, (size_t)smem));
				occ *= sms;
			}
			int tn = ((K + f->bn - 1) / f->bn + cn - 1) / cn * cn;
			int tiles = ((M + f->bm - 1) / f->bm + cm - 1) / cm * cm * tn;
			int grid = f->sk ? (f->sk == 2 ? 2 : 1) * sms : tiles;
			if (grid > occ)
				grid = occ;
			grid = grid / f->cl * f->cl;
			if (f->sk == 3 && grid / f->cl >= tiles / f->cl) /* conv.c's sk_grid */
				grid = grid / f->cl / (tiles / f->cl) * tiles;
			if (f->ck) /* one tile a pair, however many waves */
				grid = f->ck * tiles;
			lc.gridDim.x = (unsigned)grid;
			int N = g->n, H = g->h, W = g->w, C = g->c, RS = g->rs, S = g->stride;
			int pad = g->pad, epi = 1 | 4, stages = f->stages;
			void *res = x, *pw = NULL;
			void *args[] = { &x, &w, &bias, &res, &y, &ws, &N, &H, &W, &C, &K, &P, &Q, &RS,
					 &S, &pad, &epi, &ma, &mb, &use_tma, &flags, &pw, &mr, &stages };
			cudaEvent_t a, b;
			CK(cudaEventCreate(&a));
			CK(cudaEventCreate(&b));
			float ms[6];
			for (int i = 0; i < 7; i++) {
				if (i == 6)
					CK(cudaMemset(probe[ci], 0, 2048 * 32 * sizeof(*host)));
				if (cold == 1 || cold == 2) /* L2 overwritten, as the harness's
							     * cold samples: its lines dirty */
					CK(cudaMemset(flushbuf, i + 1, flush_len));
				if (cold == 3) { /* by reads: its lines clean */
					unsigned long long n16 = flush_len / 16;
					void *ra[] = { &flushbuf, &n16, &flushbuf };
					CK(cudaLaunchKernel((const void *)read_k, (dim3){ 8u * sms, 1, 1 },
							    (dim3){ 256, 1, 1 }, ra, 0, 0));
				}
				if (cold == 2) { /* then the prologue alone (no tiles): its code
						  * and the maps back in L2, the operands not */
					int n0 = 0;
					void *a0[sizeof(args) / sizeof(args[0])];
					memcpy(a0, args, sizeof(args));
					a0[6] = &n0;
					CK(cudaLaunchKernelExC(&lc, (const void *)kern[ci], a0));
				}
				CK(cudaEventRecord(a, 0));
				CK(cudaLaunchKernelExC(&lc, (const void *)kern[ci], args));
				CK(cudaEventRecord(b, 0));
				CK(cudaEventSynchronize(b));
				if (i < 6)
					CK(cudaEventElapsedTime(&ms[i], a, b));
			}
			CK(cudaMemcpy(host, probe[ci], (size_t)grid * 32 * sizeof(*host),
				      cudaMemcpyDeviceToHost));
			/* the median of the 5 timed launches (after the warm one) */
			const float ev = median5(ms);
			unsigned long long t0 = ~0ull, tend = 0;
			unsigned long long *fill = malloc(sizeof(*fill) * grid * 3),
					   *kt = malloc(sizeof(*kt) * grid * 3),
					   *fin = malloc(sizeof(*fin) * grid * 3),
					   *hand = malloc(sizeof(*hand) * grid * 3),
					   *store = malloc(sizeof(*store) * grid * 3),
					   *ends = malloc(sizeof(*ends) * grid),
					   *pro = malloc(sizeof(*pro) * grid),
					   *pro_sync = calloc(grid, sizeof(*pro)),
					   *pro_wait = calloc(grid, sizeof(*pro)),
					   *pro_reg = calloc(grid, sizeof(*pro)),
					   *st_fn = calloc(grid, sizeof(*pro)),
					   *st_pre = calloc(grid, sizeof(*pro));
			int npro = 0, nfill = 0, nkt = 0, nfin = 0, nhand = 0, nstore = 0;
			int ktall = (KK + bk - 1) / bk;
			for (int bi = 0; bi < grid; bi++)
				if (host[bi * 32 + 16] && host[bi * 32 + 16] < t0)
					t0 = host[bi * 32 + 16];
			for (int bi = 0; bi < grid; bi++) {
				const unsigned long long *h = host + bi * 32;
				unsigned long long last = h[0];
				for (int j = 0; j < 3; j++) {
					const unsigned long long *sg = h + 1 + 4 * j;
					if (!sg[0])
						continue;
					int k0 = (int)(h[13 + j] >> 16), nk = (int)(h[13 + j] & 0xffff);
					if (j == 0)
						fill[nfill++] = sg[0] - h[0];
					if (nk > 0)
						kt[nkt++] = (sg[1] - sg[0]) * 1000 / (unsigned)nk;
					if (k0 == 0 && nk < ktall)
						fin[nfin++] = sg[2] - sg[1];
					else if (k0 > 0)
						hand[nhand++] = sg[2] - sg[1];
					if (!(k0 > 0))
						store[nstore++] = sg[3] - sg[2];
					last = sg[3];
				}
				pro[npro++] = h[0] - h[16];
				if (h[18] && h[19] && h[20]) { /* the prologue's parts */
					pro_sync[npro - 1] = h[18] - h[16];
					pro_wait[npro - 1] = h[19] - h[18];
					pro_reg[npro - 1] = h[20] - h[19];
				}
				if (h[3] && h[21]) /* the first segment's store: its call, and up
						    * to its first stmatrix (wg_acc_h16) */
					st_fn[npro - 1] = h[21] - h[3];
				if (h[3] && h[22] > h[3])
					st_pre[npro - 1] = h[22] - h[3];
				if (h[17] > last)
					last = h[17];
				ends[bi] = last - t0;
				if (last > tend)
					tend = last;
				if (csv) {
					fprintf(csv, "%s,%d,%dx%dw%ds%dsk%dcl%d,%d", g->name, g->n,
						f->bm, f->bn, f->warps, f->stages, f->sk, f->cl, bi);
					fprintf(csv, ",%lld,%lld", (long long)(h[16] - t0),
						h[17] ? (long long)(h[17] - t0) : -1ll);
					for (int i = 0; i < 13; i++)
						fprintf(csv, ",%lld",
							h[i] ? (long long)(h[i] - t0) : -1ll);
					for (int j = 0; j < 3; j++)
						fprintf(csv, ",%llu:%llu", h[13 + j] >> 16,
							h[13 + j] & 0xffff);
					fprintf(csv, "\n");
				}
			}
			float em = empty_us(grid, threads, smem);
			/* back to back in a graph, as a warm trial: without and with PDL, and an
			 * empty kernel's launched alike (the cluster attribute kept) */
			float bt = batch_us(lc, (const void *)kern[ci], args, 0);
			float btp = batch_us(lc, (const void *)kern[ci], args, 1);
			float eb = batch_us(lc, (const void *)empty_k, NULL, 0);
			float ebp = batch_us(lc, (const void *)empty_k, NULL, 1);
			const double endmed = med(ends, grid); /* (sorts ends) */
			printf("%s %d %dx%d,w%d,s%d,sk%d,cl%d,k%d%s %d %.2f %.2f %.2f %.2f %.2f "
			       "%.3f %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f "
			       "%.2f %.2f %.2f\n",
			       g->name, g->n, f->bm, f->bn, f->warps, f->stages, f->sk, f->cl,
			       bk, f->ck ? ",ck2" : f->sw ? ",sw" : "", grid, ev * 1e3, em,
			       (double)(tend - t0) / 1e3,
			       med(pro, npro) / 1e3,
			       med(fill, nfill) / 1e3,
			       med(kt, nkt) / 1e6, med(fin, nfin) / 1e3, med(hand, nhand) / 1e3,
			       med(store, nstore) / 1e3, (double)ends[0] / 1e3, endmed / 1e3,
			       (double)ends[grid - 1] / 1e3, bt, btp, eb, ebp, med(pro_sync, npro) / 1e3,
			       med(pro_wait, npro) / 1e3, med(pro_reg, npro) / 1e3,
			       med(st_fn, npro) / 1e3, med(st_pre, npro) / 1e3);
			/* check launches more, each Y against the first config's first */
			double worst = 0;
			size_t bad = 0, nz = 0;
			int differ = 0;
			for (int rep = 0; rep < check; rep++) {
				CK(cudaMemset(y, 0, ny * 2));
				CK(cudaLaunchKernelExC(&lc, (const void *)kern[ci], args));
				const int ref = ci == 0 && rep == 0;
				CK(cudaMemcpy(ref ? yref : yh, y, ny * 2, cudaMemcpyDeviceToHost));
				if (ref)
					continue;
				int same = !memcmp(yh, yref, ny * 2);
				differ += !same;
				for (size_t i = 0; !same && i < ny; i++) {
					double a = h2f(yh[i]), r = h2f(yref[i]), d = fabs(a - r);
					if (d > worst)
						worst = d;
					bad += !(d <= 0.02 + 0.01 * fabs(r));
				}
			}
			for (size_t i = 0; check && i < ny; i++)
				nz += yref[i] != 0;
			if (check)
				printf("check %s %dx%d,w%d,k%d%s: %d of %d launches differ from the "
				       "first config's Y bit for bit; max |dY| %.4g, %zu out; %zu "
				       "nonzero\n", g->name, f->bm, f->bn, f->warps, bk,
				       f->sw ? ",sw" : "", differ, check - (ci == 0), worst, bad, nz);
			fflush(stdout);
			free(fill), free(kt), free(fin), free(hand), free(store), free(ends), free(pro);
			free(pro_sync), free(pro_wait), free(pro_reg), free(st_fn), free(st_pre);
		}
		cudaFree(x), cudaFree(w), cudaFree(bias), cudaFree(y), cudaFree(ws), cudaFree(flags);
		free(yref), free(yh);
	}
	if (csv)
		fclose(csv);
	return 0;
}
