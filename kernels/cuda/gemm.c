/* gemm.c: launches of the GEMM template (templates/gemm.cu) for the CUDA backend: the
 * config's kernel path (gemm-config.h: wgmma on sm_90a, mma.sync or FFMA elsewhere), its
 * dynamic shared memory, the split-K workspace and finishing kernel, and on the wgmma path
 * the tensor maps (TMA descriptors) of A and B and the persistent grid (cuda_wgmma_setup,
 * which conv.c's wgmma launches use too, with the weights as B).
 *
 * Tensor maps are encoded on the host with the driver's cuTensorMapEncodeTiled, obtained
 * through cudaGetDriverEntryPointByVersion (so the program gains no link dependency on
 * libcuda), and kept per cell in a small cache keyed by (A, B, M, N, K, lda, ldb, BLOCK_M,
 * BLOCK_N, dtype, and a convolution's geometry when A is its X read through an im2col map:
 * cuTensorMapEncodeIm2col, looked up on first use).  A config's first launch is always its
 * correctness check (prepare), so every map is built there and every timed launch finds it
 * cached: map building is outside the timed region, as cuBLASLt's descriptors are. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cudaTypedefs.h>

#include "kernels/cuda/device.h"
#include "kernels/cuda/gemm-config.h"

#define GEMM_MAPS 16 /* every (BLOCK_M, BLOCK_N) pair of the GEMM or conv space on wgmma: 11 */

/* The driver's encoders, looked up at run time (cuda_driver_fn): the toolkit's own typedefs. */
typedef PFN_cuTensorMapEncodeTiled_v12000 encode_tiled_fn;
typedef PFN_cuTensorMapEncodeIm2col_v12000 encode_im2col_fn;

struct gemm_map {
	CUtensorMap a, b, r; /* 128-byte aligned (the struct is); r: the second operand's */
	const void *pa, *pb, *pr;
	int64_t m, n, k, lda, ldb;
	int bm, bn, rr, dtype, used; /* rr: r's box rows (a consumer warpgroup's) */
	int im2col;           /* a is an im2col map of geometry geo */
	struct cuda_im2col geo;
};

/* Blocks of a module's gemm kernel that fit on the device at once (occupancy x SMs, or in
 * clusters of `cluster` blocks: the clusters that fit times their blocks). */
struct gemm_occ {
	const struct cuda_module *m;
	int cluster;
	size_t smem;
	int resident;
};

struct cuda_gemm_maps {
	struct gemm_map e[GEMM_MAPS];
	struct gemm_occ occ[GEMM_MAPS];
	unsigned next;        /* the entry the next miss replaces, round robin */
	encode_tiled_fn encode;
	encode_im2col_fn encode_im2col; /* NULL until a convolution's first im2col map */
	int64_t built;        /* map pairs encoded */
};

void cuda_gemm_release(struct cuda_cell *c)
{
	free(c->gemm_maps);
	c->gemm_maps = NULL;
}

int cuda_driver_fn(const char *name, int version, void **fn, char **cause)
{
	enum cudaDriverEntryPointQueryResult q;
	*fn = NULL;
	if (CUDA_CHECK(RT, cudaGetDriverEntryPointByVersion(name, fn, (unsigned)version,
							    cudaEnableDefault, &q),
		       cause))
		return -1;
	if (q != cudaDriverEntryPointSuccess || !*fn) {
		*fn = NULL;
		*cause = xasprintf("the driver has no %s (query result %d): it needs a CUDA %d.%d "
				   "driver or newer", name, (int)q, version / 1000,
				   version % 1000 / 10);
		return -1;
	}
	return 0;
}

/* The tensor map's element type of t (TF32 operands travel as float32). */
static CUtensorMapDataType map_dtype(enum cuda_dtype t)
{
	return t == CUDA_F16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
	       : t == CUDA_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
			      : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

/* A 2-D map of a row-major rows x cols matrix (leading dimension ld elements): boxes of
 * 128 bytes of columns (one swizzle atom: 64 16-bit or 32 fp32 elements) x box_rows rows,
 * 128-byte swizzle, zeros outside the matrix (the ragged edges).  TF32 operands travel as
 * float32; the tensor cores read their top 19 bits. */
static int encode(encode_tiled_fn fn, CUtensorMap *map, enum cuda_dtype t, const void *base,
		  int64_t rows, int64_t cols, int64_t ld, int box_rows, char **cause)
{
	cuuint64_t dim[2] = { (cuuint64_t)cols, (cuuint64_t)rows };
	size_t es = cuda_dtype_size(t);
	cuuint64_t stride[1] = { (cuuint64_t)ld * es };
	cuuint32_t box[2] = { (cuuint32_t)(128 / es), (cuuint32_t)box_rows }, estride[2] = { 1, 1 };
	CUresult r = fn(map, map_dtype(t), 2, (void *)base, dim, stride, box, estride, CU_TENSOR_MAP_INTERLEAVE_NONE,
			CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
			CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
	if (r != CUDA_SUCCESS) {
		*cause = xasprintf("cuTensorMapEncodeTiled failed (CUresult %d) for a %lld x %lld "
				   "matrix, leading dimension %lld, box %d x %d",
				   (int)r, (long long)rows, (long long)cols, (long long)ld,
				   (int)box[0], box_rows);
		return -1;
	}
	return 0;
}

/* An im2col map of a convolution's X (x: N x H x W x C, 16-byte aligned, C a multiple of
 * the 128-byte atom's elements): box_pixels output pixels' windows of 128 bytes of channels
 * a copy, the bounding box of the windows' corners -pad .. pad + 1 - RS from the image's
 * edges (so the walk covers exactly the P x Q corners), elementStrides the stride, 128-byte
 * swizzle (as encode's boxes, so the consumers read both alike), zeros outside the image. */
static int encode_im2col(struct cuda_gemm_maps *mc, CUtensorMap *map, enum cuda_dtype t,
			 const void *x, const struct cuda_im2col *g, int box_pixels, char **cause)
{
	if (!mc->encode_im2col &&
	    cuda_driver_fn("cuTensorMapEncodeIm2col", 12000, (void **)&mc->encode_im2col, cause))
		return -1;
	size_t es = cuda_dtype_size(t);
	cuuint64_t dim[4] = { (cuuint64_t)g->c, (cuuint64_t)g->w, (cuuint64_t)g->h,
			      (cuuint64_t)g->n };
	cuuint64_t stride[3] = { (cuuint64_t)g->c * es, (cuuint64_t)(g->w * g->c) * es,
				 (cuuint64_t)(g->h * g->w * g->c) * es };
	int lo[2] = { -g->pad, -g->pad }, hi[2] = { g->pad + 1 - g->rs, g->pad + 1 - g->rs };
	cuuint32_t estride[4] = { 1, (cuuint32_t)g->stride, (cuuint32_t)g->stride, 1 };
	CUresult r = mc->encode_im2col(map, map_dtype(t), 4, (void *)x, dim, stride, lo, hi,
				       (cuuint32_t)(128 / es), (cuuint32_t)box_pixels, estride,
				       CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
				       CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
				       CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
	if (r != CUDA_SUCCESS) {
		*cause = xasprintf("cuTensorMapEncodeIm2col failed (CUresult %d) for X of %lld x "
				   "%lld x %lld x %lld, filter %d, stride %d, padding %d, %d pixels "
				   "a box",
				   (int)r, (long long)g->n, (long long)g->h, (long long)g->w,
				   (long long)g->c, g->rs, g->stride, g->pad, box_pixels);
		return -1;
	}
	return 0;
}

static int geo_eq(const struct cuda_im2col *a, const struct cuda_im2col *b)
{
	return a->n == b->n && a->h == b->h && a->w == b->w && a->c == b->c && a->rs == b->rs &&
	       a->stride == b->stride && a->pad == b->pad;
}

/* The maps of A (pa: m x k, leading dimension lda; box 128 bytes x a_rows, BLOCK_M or in a
 * cluster of two its half; pa NULL: none, a zero map; geo non-NULL: pa is a convolution's X
 * and its map the im2col one), B (pb: n x k, ldb; x BLOCK_N) and the epilogue's second
 * operand (pr: m x n, ld n; x a consumer warpgroup's rows; NULL: none) for cell c under
 * config g: cached, else encoded now into the next entry. */
static int gemm_maps(struct cuda_cell *c, const struct cuda_gemm_config *g, int a_rows,
		     int b_rows, const void *pa, const void *pb, const void *pr, int64_t m,
		     int64_t n, int64_t k, int64_t lda, int64_t ldb, const struct cuda_im2col *geo,
		     const struct gemm_map **out, char **cause)
{
	int r_rows = g->block_m / (g->warps / 4);
	const struct cuda_shape *s = &c->sctx.shape;
	struct cuda_gemm_maps *mc = c->gemm_maps;
	for (int i = 0; i < GEMM_MAPS; i++) {
		const struct gemm_map *e = &mc->e[i];
		if (e->used && e->pa == pa && e->pb == pb && e->pr == pr &&
		    (!pr || e->rr == r_rows) && e->m == m && e->n == n && e->k == k &&
		    e->lda == lda && e->ldb == ldb && e->bm == a_rows && e->bn == b_rows &&
		    e->dtype == (int)s->dtype && e->im2col == (geo != NULL) &&
		    (!geo || geo_eq(&e->geo, geo))) {
			*out = e;
			return 0;
		}
	}
	struct gemm_map *e = &mc->e[mc->next++ % GEMM_MAPS];
	e->used = 0;
	memset(&e->a, 0, sizeof(e->a));
	if (pa && (geo ? encode_im2col(mc, &e->a, s->dtype, pa, geo, a_rows, cause)
		       : encode(mc->encode, &e->a, s->dtype, pa, m, k, lda, a_rows, cause)))
		return -1;
	if (encode(mc->encode, &e->b, s->dtype, pb, n, k, ldb, b_rows, cause))
		return -1;
	memset(&e->r, 0, sizeof(e->r));
	if (pr && encode(mc->encode, &e->r, s->dtype, pr, m, n, n, r_rows, cause))
		return -1;
	e->pa = pa;
	e->pb = pb;
	e->pr = pr;
	e->m = m, e->n = n, e->k = k, e->lda = lda, e->ldb = ldb;
	e->bm = a_rows, e->bn = b_rows, e->rr = r_rows, e->dtype = (int)s->dtype;
	e->im2col = geo != NULL;
	if (geo)
		e->geo = *geo;
	e->used = 1;
	mc->built++;
	*out = e;
	return 0;
}

/* Cell c's cache, allocated (and the encoder looked up) on first use. */
static int gemm_cache(struct cuda_cell *c, char **cause)
{
	struct cuda_gemm_maps *mc = c->gemm_maps;
	if (!mc) {
		/* CUtensorMap is 128-byte aligned, so the size is a multiple of 128 */
		mc = aligned_alloc(128, sizeof(*mc));
		if (!mc) {
			*cause = xasprintf("cannot allocate the tensor-map cache: %s",
					   strerror(ENOMEM));
			return -1;
		}
		memset(mc, 0, sizeof(*mc));
		if (cuda_driver_fn("cuTensorMapEncodeTiled", 12000, (void **)&mc->encode, cause)) {
			free(mc);
			return -1;
		}
		c->gemm_maps = mc;
	}
	return 0;
}

/* The launch configuration of w's blocks in clusters of cl along x (attr: its one
 * attribute's storage). */
static cudaLaunchConfig_t cluster_config(struct backend *b, dim3 grid, dim3 block, size_t smem,
					 int cl, cudaLaunchAttribute *attr)
{
	cudaLaunchConfig_t lc = { .gridDim = grid, .blockDim = block,
				  .dynamicSmemBytes = smem, .stream = b->stream };
	attr->id = cudaLaunchAttributeClusterDimension;
	attr->val.clusterDim.x = (unsigned)cl;
	attr->val.clusterDim.y = attr->val.clusterDim.z = 1;
	lc.attrs = attr;
	lc.numAttrs = 1;
	return lc;
}

/* Blocks of module m's gemm kernel (threads, smem) that fit on the device at once, in
 * clusters of cl blocks (cudaOccupancyMaxActiveClusters: the GPCs' SMs decide how many
 * pairs fit, not the SM count alone). */
static int gemm_resident(struct backend *b, struct cuda_cell *c, struct cuda_module *m,
			 int threads, size_t smem, int cl, int *out, char **cause)
{
	struct cuda_gemm_maps *mc = c->gemm_maps;
	int free_slot = -1, per_sm = 0;
	for (int i = 0; i < GEMM_MAPS; i++) {
		if (mc->occ[i].m == m && mc->occ[i].cluster == cl && mc->occ[i].smem == smem) {
			*out = mc->occ[i].resident;
			return 0;
		}
		if (!mc->occ[i].m && free_slot < 0)
			free_slot = i;
	}
	if (cl > 1) {
		cudaLaunchAttribute attr;
		dim3 grid = { (unsigned)(cl * b->prop.multiProcessorCount), 1, 1 };
		dim3 block = { (unsigned)threads, 1, 1 };
		cudaLaunchConfig_t lc = cluster_config(b, grid, block, smem, cl, &attr);
		int clusters = 0;
		if (CUDA_CHECK(RT, cudaOccupancyMaxActiveClusters(&clusters, (const void *)m->k[0],
								   &lc), cause))
			return -1;
		if (clusters <= 0) { /* (a launch would fail: say why here) */
			*cause = xasprintf("no cluster of %d blocks of %d threads and %zu bytes of "
					   "shared memory fits the device",
					   cl, threads, smem);
			return -1;
		}
		*out = clusters * cl;
	} else {
		if (CUDA_CHECK(RT, cudaOccupancyMaxActiveBlocksPerMultiprocessor(
					   &per_sm, (const void *)m->k[0], threads, smem), cause))
			return -1;
		*out = (per_sm > 0 ? per_sm : 1) * b->prop.multiProcessorCount;
	}
	if (free_slot < 0)
		free_slot = (int)(mc->built % GEMM_MAPS);
	mc->occ[free_slot].m = m;
	mc->occ[free_slot].cluster = cl;
	mc->occ[free_slot].smem = smem;
	mc->occ[free_slot].resident = *out;
	return 0;
}

static int64_t cdiv(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

static int aligned16(const void *p, int64_t ld, int elem_bytes)
{
	return ((uintptr_t)p % 16) == 0 && (ld * elem_bytes) % 16 == 0;
}

int cuda_wgmma_setup(struct backend *b, struct cuda_cell *c, struct cuda_module *m,
		   const struct cuda_gemm_config *g, size_t smem, const struct cuda_wgmma_operands *op,
		   struct cuda_wgmma_launch *out, char **cause)
{
	static const CUtensorMap none; /* the cp.async path reads no map */
	int resident;
	if (gemm_cache(c, cause))
		return -1;
	out->ta = out->tb = out->tr = &none;
	out->use_tma = 0;
	out->cluster = 1;
	out->pdl = b->pdl && m->pdl;
	int b_ok = aligned16(op->b, op->ldb, g->elem_bytes);
	int im2col = op->im2col && b_ok && aligned16(op->a, op->im2col->c, g->elem_bytes);
	int plain = !im2col && op->tma && b_ok && aligned16(op->a, op->lda, g->elem_bytes);
	/* a cluster shares its operands by multicast: only where A comes by a tensor map; cm
	 * x cn blocks, each loading its share of A's rows (for the cn along n, which share
	 * A) and of B's (for the cm along m, which share B) */
	int cl = (im2col || plain) && op->cluster > 1 ? op->cluster : 1;
	int cm = cl > 1 && op->cluster_m > 1 && cl % op->cluster_m == 0 ? op->cluster_m : 1;
	int cn = cl / cm, cm_log2 = 0;
	while ((1 << cm_log2) < cm)
		cm_log2++;
	/* the second operand by TMA (CUDA_USE_TMA_RES) where its rows are 16-byte aligned and
	 * the consumers wait on barriers (consumer_tma: some operand by a tensor map) */
	const void *pr = op->r && aligned16(op->r, op->n, g->elem_bytes) &&
				 (im2col || plain || (op->tma_b && b_ok))
			 ? op->r
			 : NULL;
	if (im2col || plain) {
		const struct gemm_map *e;
		int64_t built = c->gemm_maps->built;
		if (gemm_maps(c, g, g->block_m / cn, g->block_n / cm, op->a,
			      op->b, pr, op->m, op->n, op->k, op->lda, op->ldb,
			      im2col ? op->im2col : NULL, &e, cause))
			return -1;
		if (im2col)
			b->im2col_maps += c->gemm_maps->built - built;
		out->ta = &e->a, out->tb = &e->b, out->tr = &e->r;
		/* all along m: the flag older templates (HARNESS_KERNEL_DIR) know too */
		out->use_tma = (im2col ? 3 : 1) | (cl > 1 && cm == cl ? CUDA_USE_TMA_CLUSTER_M
								  : cm_log2 << CUDA_USE_TMA_CM_SHIFT);
	} else if (op->tma_b && b_ok) {
		const struct gemm_map *e;
		if (gemm_maps(c, g, g->block_m, g->block_n, NULL, op->b, pr, op->m, op->n, op->k,
			      op->lda, op->ldb, NULL, &e, cause))
			return -1;
		out->tb = &e->b, out->tr = &e->r, out->use_tma = 2;
	}
	if (pr)
		out->use_tma |= CUDA_USE_TMA_RES;
	/* persistent: no more blocks than fit at once, each looping over tiles (a cluster's
	 * tile: cm x cn tiles) */
	int64_t tiles = cdiv(cdiv(op->m, g->block_m), cm) * cdiv(cdiv(op->n, g->block_n), cn);
	if (gemm_resident(b, c, m, cuda_gemm_threads(g), smem, cl, &resident, cause))
		return -1;
	out->grid = cl * (tiles < resident / cl ? tiles : resident / cl);
	out->resident = resident;
	out->tiles = tiles;
	out->cluster = cl;
	return 0;
}

int cuda_wgmma_launch_kernel(struct backend *b, struct cuda_module *m,
			     const struct cuda_wgmma_launch *w, unsigned z, unsigned threads,
			     size_t smem, void **args, char **cause)
{
	dim3 grid = { (unsigned)w->grid, 1, z }, block = { threads, 1, 1 };
	if (w->cluster <= 1 && !w->pdl)
		return CUDA_CHECK(RT, cudaLaunchKernel((const void *)m->k[0], grid, block, args,
						       smem, b->stream), cause);
	cudaLaunchAttribute attr[2];
	cudaLaunchConfig_t lc = cluster_config(b, grid, block, smem, w->cluster, attr);
	if (w->cluster > 1)
		b->cluster_launches++;
	else
		lc.numAttrs = 0;
	if (w->pdl) { /* it may start under the stream's previous kernel (wgmma.cuh) */
		attr[lc.numAttrs].id = cudaLaunchAttributeProgrammaticStreamSerialization;
		attr[lc.numAttrs++].val.programmaticStreamSerializationAllowed = 1;
		b->pdl_launches++;
	}
	return CUDA_CHECK(RT, cudaLaunchKernelExC(&lc, (const void *)m->k[0], args), cause);
}

int cuda_gemm_run(struct backend *b, struct cuda_cell *c, const struct config *cfg,
		struct cuda_module *m, char **cause)
{
	const struct cuda_shape *s = &c->sctx.shape;
	struct cuda_gemm_config g;
	cuda_gemm_config_get(&c->sctx, cfg, &g);
	size_t smem = (size_t)cuda_gemm_smem_bytes(&g);
	if (smem > m->smem_set) {
		if (CUDA_CHECK(RT, cudaFuncSetAttribute((const void *)m->k[0],
							cudaFuncAttributeMaxDynamicSharedMemorySize,
							(int)smem), cause))
			return -1;
		m->smem_set = smem;
	}
	if (g.split_k > 1 && cuda_ensure_ws(c, (size_t)((int64_t)g.split_k * s->m * s->n) * 4, cause))
		return -1;
	float *ws = c->d_ws;
	int M = (int)s->m, N = (int)s->n, K = (int)s->k, lda = K, ldb = K, ldc = N;
	struct cuda_wgmma_launch w = { .grid = cdiv(M, g.block_m) * cdiv(N, g.block_n),
				       .cluster = 1 };
	if (g.wgmma) {
		struct cuda_wgmma_operands op = { .a = c->d_in[0], .b = c->d_in[1], .m = M, .n = N,
						.k = K, .lda = lda, .ldb = ldb, .tma = 1 };
		if (cuda_wgmma_setup(b, c, m, &g, smem, &op, &w, cause))
			return -1;
		if (w.use_tma != 1 && cuda_gemm_tma_only(s, &g)) {
			*cause = xasprintf("gemm: the config's module has no cp.async path "
					   "(WG_TMA_ONLY), and A or B is not 16-byte aligned");
			return -1;
		}
	}
	void *args[] = { &c->d_in[0], &c->d_in[1], &c->d_out, &ws,	    &M,
			 &N,	      &K,	   &lda,      &ldb,	    &ldc,
			 (void *)w.ta, (void *)w.tb, &w.use_tma };
	if (cuda_wgmma_launch_kernel(b, m, &w, (unsigned)g.split_k,
				     (unsigned)cuda_gemm_threads(&g), smem, args, cause))
		return -1;
	if (g.split_k > 1) {
		void *r[] = { &ws, &c->d_out, &M, &N, &ldc };
		dim3 rg = { (unsigned)cdiv((int64_t)M * N, 256), 1, 1 }, rb = { 256, 1, 1 };
		return CUDA_CHECK(RT, cudaLaunchKernel((const void *)m->k[1], rg, rb, r, 0,
						       b->stream), cause);
	}
	return 0;
}

/* backend_ops.estimate: the roofline (space-cuda.c, cuda_estimate_ns) with the device's figures:
 * SMs and bus width from cudaDeviceProp, the SM and memory clocks from their attributes
 * (CUDA 13's cudaDeviceProp has no clocks), the per-clock rates by compute capability. */
double cuda_estimate(const struct backend *b, size_t i, const struct config *c)
{
	struct cuda_roofline r = { .sms = b->prop.multiProcessorCount };
	int clk = 0, memclk = 0;
	if (i >= b->ncells || cuda_roofline_rates(b->prop.major, b->prop.minor, &r) ||
	    cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, b->dev) != cudaSuccess ||
	    cudaDeviceGetAttribute(&memclk, cudaDevAttrMemoryClockRate, b->dev) != cudaSuccess)
		return NAN;
	r.clock_ghz = clk / 1e6;
	r.mem_bytes_ns = 2.0 * memclk * 1e3 * (b->prop.memoryBusWidth / 8.0) / 1e9;
	return cuda_estimate_ns(&r, &b->cells[i]->sctx, c);
}
