/* space-cuda.c: the CUDA backend's config spaces in the templates' vocabulary (Triton's for
 * GEMM), their validity rules and rule-of-thumb heuristics, the NVRTC options of a config,
 * the correctness bound per dtype, and the roofline estimate model-topk ranks by
 * (docs/kernels.md).  Needs no device. */
#include "config.h"
#include "kernels/cuda/ops.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "kernels/cuda/gemm-config.h"

/* ---- config spaces --------------------------------------------------------------------- */

enum { G_BM = 0, G_BN, G_BK, G_WARPS, G_STAGES, G_SPLIT_K, G_GROUP_M };
enum { M_BLOCK = 0, M_VEC, M_ROWS };


void cuda_tile_fields(struct space *sp, const int64_t *const *vals, const size_t *n)
{
	static const char *const names[] = { "BLOCK_M", "BLOCK_N", "BLOCK_K", "WARPS", "STAGES",
					     "SPLIT_K", "GROUP_M" };
	size_t at = sp->nfields;
	for (size_t f = 0; f < ARRAY_SIZE(names); f++)
		space_add_field(sp, names[f], vals[f], n[f]);
	/* how local searches step (space.h): Inductor doubles and halves tiles, warps and
	 * split factors, moves stages by one, GROUP_M by allowed value */
	for (size_t f = G_BM; f <= G_SPLIT_K; f++)
		sp->fields[at + f].step = SPACE_STEP_POW2;
	sp->fields[at + G_STAGES].step = SPACE_STEP_UNIT;
	sp->fields[at + G_GROUP_M].step = SPACE_STEP_ORDINAL;
}

void cuda_tile_config(const struct cuda_shape *s, const struct config *c,
		      struct cuda_gemm_config *g)
{
	memset(g, 0, sizeof(*g));
	g->block_m = (int)c->val[G_BM];
	g->block_n = (int)c->val[G_BN];
	g->block_k = (int)c->val[G_BK];
	g->warps = (int)c->val[G_WARPS];
	g->stages = (int)c->val[G_STAGES];
	g->split_k = (int)c->val[G_SPLIT_K];
	g->group_m = (int)c->val[G_GROUP_M];
	g->elem_bytes = (int)cuda_dtype_size(s->dtype);
	g->tf32 = s->tf32;
}

void cuda_gemm_config_get(const struct cuda_space_ctx *x, const struct config *c,
			  struct cuda_gemm_config *g)
{
	cuda_tile_config(&x->shape, c, g);
	g->swap_ab = cuda_conv_is(x->shape.op) && cuda_conv_swap_ab(c);
	g->wgmma = cuda_gemm_use_wgmma(g, !strcmp(x->dev.arch, "sm_90a"));
}

/* ---- the roofline estimate ------------------------------------------------------------ */

/* Throughput per SM per clock, dense, from NVIDIA's architecture whitepapers (V100, A100,
 * GA102 professional parts, Ada L40S, H100 SXM5, B200): FP32 lanes x 2, and tensor-core
 * flops with FP32 accumulation for float16 / bfloat16 / TF32.  Each row reproduces the
 * data sheet's peak as rate x SMs x boost clock (H100 SXM5: 4096 x 132 x 1.83 GHz = 989
 * TFLOP/s float16). */
static const struct {
	int major, minor;
	double ffma, f16, bf16, tf32;
} roofline_rates[] = {
	{ 7, 0, 128, 1024, 0, 0 },       /* V100 */
	{ 8, 0, 128, 2048, 2048, 1024 }, /* A100 */
	{ 8, 6, 256, 1024, 1024, 512 },  /* A40, RTX A6000 */
	{ 8, 9, 256, 1024, 1024, 512 },  /* L40S */
	{ 9, 0, 256, 4096, 4096, 2048 }, /* H100 */
	{ 10, 0, 256, 8192, 8192, 4096 },/* B200 */
};

int cuda_roofline_rates(int major, int minor, struct cuda_roofline *r)
{
	for (size_t i = 0; i < ARRAY_SIZE(roofline_rates); i++) {
		if (roofline_rates[i].major != major || roofline_rates[i].minor != minor)
			continue;
		r->ffma_flops_clk = roofline_rates[i].ffma;
		r->tensor_flops_clk[CUDA_F32] = roofline_rates[i].tf32;
		r->tensor_flops_clk[CUDA_F16] = roofline_rates[i].f16;
		r->tensor_flops_clk[CUDA_BF16] = roofline_rates[i].bf16;
		return 0;
	}
	return -1;
}

static double cdivd(int64_t a, int64_t b)
{
	return (double)((a + b - 1) / b);
}

double cuda_estimate_ns(const struct cuda_roofline *r, const struct cuda_space_ctx *x,
			const struct config *c)
{
	const struct cuda_shape *s = &x->shape;
	if (!c || c->vendor || !(r->mem_bytes_ns > 0) || cuda_conv_is(s->op))
		return NAN; /* no model for the conv ops yet (their implicit GEMM is the next step) */
	if (s->op != CUDA_GEMM) /* memory-bound: the bytes it must move, once */
		return cuda_shape_bytes(s) / r->mem_bytes_ns;
	int64_t bm = c->val[G_BM], bn = c->val[G_BN], bk = c->val[G_BK], sk = c->val[G_SPLIT_K];
	if (bm <= 0 || bn <= 0 || bk <= 0 || sk <= 0 || r->sms <= 0 || !(r->clock_ghz > 0))
		return NAN;
	double rate = s->dtype == CUDA_F32 && !s->tf32 ? r->ffma_flops_clk
						      : r->tensor_flops_clk[s->dtype];
	if (!(rate > 0))
		return NAN;
	double es = (double)cuda_dtype_size(s->dtype);
	double tm = cdivd(s->m, bm), tn = cdivd(s->n, bn);
	/* k-tiles per split, as the kernel divides them; one CTA's k extent */
	int64_t ktiles = (s->k + bk - 1) / bk, per = (ktiles + sk - 1) / sk;
	double kcta = (double)(per * bk);
	double ctas = tm * tn * (double)sk;
	double waves = ceil(ctas / (double)r->sms);
	/* every SM busy for every wave: a wave costs one CTA's padded tile at one SM's rate */
	double t_comp = waves * 2.0 * (double)bm * (double)bn * kcta / (rate * r->clock_ghz);
	double bytes = es * (double)s->m * (double)s->k * tn +  /* A, once per column of tiles */
		       es * (double)s->n * (double)s->k * tm +  /* B, once per row of tiles */
		       es * (double)s->m * (double)s->n;        /* C, written once */
	if (sk > 1) /* float partials written by the splits, read back by the finishing kernel */
		bytes += 2.0 * 4.0 * (double)sk * (double)s->m * (double)s->n;
	double t_mem = bytes / r->mem_bytes_ns;
	return t_comp > t_mem ? t_comp : t_mem;
}

/* gemm.cu's rules (gemm-config.h), the redundancy rules, and prunings that bound exhaustive
 * tuning's cost, each with its reason (recorded in /spaces, docs/kernels.md "The GEMM
 * space").  Measured (docs/BENCHMARKS.md, 2026-11-23 "GEMM on TMA and warp specialization"):
 * every best config of the sweep over nine shapes had a BLOCK_K of 128 bytes, 4 or 8 warps,
 * 3 to 6 stages; on Hopper mma.sync peaks at ~31% of cuBLASLt where wgmma reaches 89%.  The
 * space keeps Triton's fields and values (local searches step through them as Inductor's
 * do); the prunings only make points invalid: ResNet-50's fc (m 32, n 1000, k 2048) goes
 * from 2108 valid points to 116 in float16 and TF32, 4096^3 float16 from 10848 to 168
 * (scripts/gemm-space.py counts them independently). */
static int gemm_valid(const struct space *sp, const struct config *c, const char **why)
{
	const struct cuda_space_ctx *x = sp->ctx;
	const struct cuda_shape *s = &x->shape;
	const char *no = NULL, *rule = NULL;
	struct cuda_gemm_config g;
	cuda_gemm_config_get(x, c, &g);
	int sm90a = !strcmp(x->dev.arch, "sm_90a");
	int has_wgmma = sm90a && (s->dtype != CUDA_F32 || s->tf32);
	int64_t bytes_k = c->val[G_BK] * (int64_t)cuda_dtype_size(s->dtype);
	int64_t ktiles = (s->k + c->val[G_BK] - 1) / c->val[G_BK];
	int64_t per = (ktiles + c->val[G_SPLIT_K] - 1) / c->val[G_SPLIT_K];
	int64_t grid_m = (s->m + c->val[G_BM] - 1) / c->val[G_BM];
	int64_t tiles = grid_m * ((s->n + c->val[G_BN] - 1) / c->val[G_BN]);
	/* the smallest tile the wgmma path takes (64 rows, one consumer warpgroup) is never
	 * redundant: a smaller BLOCK_M that covers m runs on mma.sync (the fc's best measured
	 * config is 64 x 128 on wgmma at m = 32).  Eight warps' smallest, 128 rows, is: where 64
	 * rows cover m it computes at least half its rows for nothing, and at ResNet's fc
	 * layers (m 32) its best config ran 1.148 (float16) and 1.172 (TF32) times the best of
	 * all (the stop-63 main job's exhaustive trials; docs/benchmarks-archive.md,
	 * 2026-11-30 (stop 64)) */
	int wgmma_floor = g.wgmma && c->val[G_BM] == cuda_gemm_wgmma_min_m(4);
	if (cuda_gemm_config_check(&g, x->dev.smem_optin, sm90a, &rule) < 0)
		no = rule;
	else if (!wgmma_floor && space_field_redundant(&sp->fields[G_BM], c->val[G_BM], s->m))
		no = "redundant: a smaller BLOCK_M covers m";
	else if (space_field_redundant(&sp->fields[G_BN], c->val[G_BN], s->n))
		no = "redundant: a smaller BLOCK_N covers n";
	else if (space_field_redundant(&sp->fields[G_BK], c->val[G_BK], s->k))
		no = "redundant: a smaller BLOCK_K covers k";
	else if (per * (c->val[G_SPLIT_K] - 1) >= ktiles)
		no = "SPLIT_K leaves a split without k-tiles";
	else if (space_field_redundant(&sp->fields[G_GROUP_M], c->val[G_GROUP_M], grid_m))
		no = "redundant: a smaller GROUP_M covers the rows of tiles";
	else if (bytes_k != 64 && bytes_k != 128)
		no = "pruned: BLOCK_K other than 64 or 128 bytes (every measured best: 128)";
	else if (c->val[G_WARPS] != 4 && c->val[G_WARPS] != 8)
		no = "pruned: WARPS other than 4 or 8 (every measured best)";
	else if (c->val[G_STAGES] < 3 || (c->val[G_STAGES] > 4 && !g.wgmma))
		no = "pruned: STAGES 2, or 5 off the wgmma path";
	else if (has_wgmma && !g.wgmma && (c->val[G_BM] > 128 || c->val[G_BN] > 128))
		no = "pruned: an mma.sync tile side over 128 where wgmma covers large tiles";
	else if (c->val[G_SPLIT_K] > 1 && tiles * c->val[G_SPLIT_K] / 2 >= x->dev.sms)
		no = "pruned: SPLIT_K beyond the one that fills every SM";
	else if (c->val[G_GROUP_M] == 4)
		no = "pruned: GROUP_M 4 (between 1 and 8)";
	if (no && why)
		*why = no;
	return !no;
}

/* Set c's tile fields, each clipped to the shape (pick). */
static void gemm_tiles(const struct space *sp, struct config *c, int64_t bm, int64_t bn,
		       int64_t bk, int64_t warps, int64_t stages)
{
	const struct cuda_shape *s = &((const struct cuda_space_ctx *)sp->ctx)->shape;
	c->val[G_BM] = space_field_pick(&sp->fields[G_BM], bm, s->m);
	c->val[G_BN] = space_field_pick(&sp->fields[G_BN], bn, s->n);
	c->val[G_BK] = space_field_pick(&sp->fields[G_BK], bk, s->k);
	c->val[G_WARPS] = warps;
	c->val[G_STAGES] = stages;
}

/* Rule of thumb.  Hopper (sm_90a), 16-bit types and TF32: the wgmma + TMA kernel at the tile
 * that measured fastest for the grid the shape gives (docs/BENCHMARKS.md, 2026-11-23): 128 x
 * 256 x 64, 8 warps, 4 stages when those tiles fill the SMs (90% or more), else 128 x 128 x
 * 64, 4 warps, 4 stages when those fill half of them, else 64 x 128 x 64, 4 warps, 5 stages
 * (BLOCK_K 32 on TF32: the same 128-byte atom; its best at 2048^3 to 8192^3 is 128 x 256 x
 * 32, 8 warps, 4 stages too); BLOCK_M never below the wgmma tile's 64 rows a warpgroup.
 * Elsewhere (Triton's matmul tutorial defaults): tensor cores: 128 x 128 x 32 (64 for
 * 16-bit types), 4 warps, 3 stages; FFMA: 64 x 64 x 16.  GROUP_M 8.  Tiles clipped to the
 * shape; SPLIT_K raised while the tiles fill less than half the SMs and k has room.  When
 * that breaks a rule, the Triton default, then the first valid grid point. */
static void gemm_heuristic(const struct space *sp, struct config *c)
{
	const struct cuda_space_ctx *x = sp->ctx;
	const struct cuda_shape *s = &x->shape;
	int mma = s->dtype != CUDA_F32 || s->tf32;
	int hopper = (s->dtype != CUDA_F32 || s->tf32) && !strcmp(x->dev.arch, "sm_90a");
	int64_t hk = s->dtype == CUDA_F32 ? 32 : 64; /* one 128-byte swizzle atom */
	memset(c, 0, sizeof(*c));
	for (int attempt = hopper ? 0 : 1; attempt < 2; attempt++) {
		if (attempt == 0) {
			int64_t t256 = ((s->m + 127) / 128) * ((s->n + 255) / 256);
			int64_t t128 = ((s->m + 127) / 128) * ((s->n + 127) / 128);
			if (t256 * 10 >= (int64_t)x->dev.sms * 9)
				gemm_tiles(sp, c, 128, 256, hk, 8, 4);
			else if (t128 * 2 >= (int64_t)x->dev.sms)
				gemm_tiles(sp, c, 128, 128, hk, 4, 4);
			else
				gemm_tiles(sp, c, 64, 128, hk, 4, 5);
			/* a short m keeps the wgmma tile (its smallest, 64 rows a warpgroup), as the
			 * best measured config of the fc (m 32) did, rather than dropping to mma.sync */
			if (c->val[G_BM] < cuda_gemm_wgmma_min_m((int)c->val[G_WARPS]))
				c->val[G_BM] = cuda_gemm_wgmma_min_m((int)c->val[G_WARPS]);
		} else {
			gemm_tiles(sp, c, mma ? 128 : 64, mma ? 128 : 64,
				   s->dtype != CUDA_F32 ? 64 : (mma ? 32 : 16), 4, 3);
		}
		c->val[G_GROUP_M] = space_field_pick(&sp->fields[G_GROUP_M], 8,
					 (s->m + c->val[G_BM] - 1) / c->val[G_BM]);
		int64_t tiles = ((s->m + c->val[G_BM] - 1) / c->val[G_BM]) *
				((s->n + c->val[G_BN] - 1) / c->val[G_BN]);
		int64_t split = 1;
		while (split < 8 && tiles * split * 2 <= x->dev.sms &&
		       (s->k / c->val[G_BK]) >= split * 2 * 4)
			split *= 2;
		c->val[G_SPLIT_K] = split;
		if (gemm_valid(sp, c, NULL))
			return;
	}
	size_t n = space_grid_size(sp);
	for (size_t i = 0; i < n; i++)
		if (!space_grid_point(sp, i, c) && gemm_valid(sp, c, NULL))
			return;
}

/* The memory-bound templates: BLOCK threads, VEC elements per access (VEC * size <= 16
 * bytes), ROWS threads along the reduced dimension where the template has it. */
static int mem_valid(const struct space *sp, const struct config *c, const char **why)
{
	const struct cuda_space_ctx *x = sp->ctx;
	const char *no = NULL;
	int64_t size = (int64_t)cuda_dtype_size(x->shape.dtype);
	if (c->val[M_VEC] * size > 16)
		no = "VEC * the element size is over 16 bytes";
	else if (sp->nfields > M_ROWS && (c->val[M_BLOCK] % c->val[M_ROWS] ||
					  c->val[M_BLOCK] / c->val[M_ROWS] < 32))
		no = "ROWS must divide BLOCK and leave a warp or more across";
	if (no && why)
		*why = no;
	return !no;
}

static void mem_heuristic(const struct space *sp, struct config *c)
{
	const struct cuda_space_ctx *x = sp->ctx;
	memset(c, 0, sizeof(*c));
	c->val[M_BLOCK] = 256;
	c->val[M_VEC] = 16 / (int64_t)cuda_dtype_size(x->shape.dtype);
	if (sp->nfields > M_ROWS)
		c->val[M_ROWS] = 8;
}

static void fields_of(struct space *sp, enum cuda_op op)
{
	static const int64_t bm[] = { 16, 32, 64, 128, 256 }, bk[] = { 16, 32, 64, 128 };
	static const int64_t warps[] = { 1, 2, 4, 8 }, stages[] = { 2, 3, 4, 5 };
	static const int64_t split[] = { 1, 2, 4, 8 }, group[] = { 1, 4, 8 };
	static const int64_t block[] = { 64, 128, 256, 512, 1024 }, vec[] = { 1, 2, 4, 8 };
	static const int64_t rows[] = { 1, 2, 4, 8, 16 };

	if (cuda_conv_is(op)) {
		cuda_conv_fields(sp, op);
		return;
	}
	sp->op = cuda_op_name(op);
	sp->has_vendor = 1;
	if (op == CUDA_GEMM) {
		const int64_t *const v[] = { bm, bm, bk, warps, stages, split, group };
		const size_t n[] = { ARRAY_SIZE(bm), ARRAY_SIZE(bm), ARRAY_SIZE(bk),
				     ARRAY_SIZE(warps), ARRAY_SIZE(stages), ARRAY_SIZE(split),
				     ARRAY_SIZE(group) };
		cuda_tile_fields(sp, v, n);
		return;
	}
	space_add_field(sp, "BLOCK", block, ARRAY_SIZE(block));
	space_add_field(sp, "VEC", vec, ARRAY_SIZE(vec));
	if (op == CUDA_AVGPOOL || op == CUDA_SUM)
		space_add_field(sp, "ROWS", rows, ARRAY_SIZE(rows));
	for (size_t f = 0; f < sp->nfields; f++)
		sp->fields[f].step = SPACE_STEP_POW2; /* every value a power of two */
}

void cuda_space_init(struct space *sp, const struct cuda_space_ctx *ctx)
{
	if (cuda_conv_is(ctx->shape.op)) {
		cuda_conv_space_init(sp, ctx);
		return;
	}
	memset(sp, 0, sizeof(*sp));
	fields_of(sp, ctx->shape.op);
	sp->ctx = ctx;
	sp->valid = ctx->shape.op == CUDA_GEMM ? gemm_valid : mem_valid;
	sp->heuristic = ctx->shape.op == CUDA_GEMM ? gemm_heuristic : mem_heuristic;
}

int cuda_op_space(const char *op, struct space *out)
{
	int k = cuda_op_from_name(op);
	if (k < 0)
		return -1;
	memset(out, 0, sizeof(*out));
	fields_of(out, (enum cuda_op)k);
	return 0;
}

int cuda_gemm_tma_only(const struct cuda_shape *s, const struct cuda_gemm_config *g)
{
	return g->wgmma && (s->k * (int64_t)cuda_dtype_size(s->dtype)) % 16 == 0;
}

size_t cuda_config_options(const struct space *sp, const struct config *c, const char *arch,
			   char **opts)
{
	const struct cuda_space_ctx *x = sp->ctx;
	const struct cuda_shape *s = &x->shape;
	static const char *const dtype_macro[] = { "-DDTYPE_FLOAT32", "-DDTYPE_FLOAT16",
						   "-DDTYPE_BFLOAT16" };
	size_t n = 0;
	int rt_stages = 0; /* conv.cu's wgmma path at 4 or 8 warps: STAGES the launch's */
	opts[n++] = xasprintf("--gpu-architecture=%s", arch);
	opts[n++] = xstrdup("-std=c++17");
	opts[n++] = xstrdup(dtype_macro[s->dtype]);
	if (s->op == CUDA_GEMM && s->tf32)
		opts[n++] = xstrdup("-DTF32=1");
	if ((s->op == CUDA_GEMM || cuda_conv_is(s->op)) && !c->vendor) {
		struct cuda_gemm_config g;
		struct cuda_space_ctx xa = *x;
		snprintf(xa.dev.arch, sizeof(xa.dev.arch), "%s", arch);
		cuda_gemm_config_get(&xa, c, &g);
		if (g.wgmma)
			opts[n++] = xstrdup("-DWGMMA=1");
		if (s->op == CUDA_GEMM ? cuda_gemm_tma_only(s, &g) : cuda_conv_tma_only(x, &g))
			opts[n++] = xstrdup("-DWG_TMA_ONLY=1");
		if (g.wgmma && s->op == CUDA_CONV_BIAS_RELU_ADD &&
		    g.block_n % (128 / g.elem_bytes) == 0) /* RES_TMA's code (wgmma.cuh) */
			opts[n++] = xstrdup("-DWG_RES=1");
		if (g.wgmma && cuda_conv_is(s->op) && g.warps <= 8) {
			/* (three consumer warpgroups keep the macro: the run-time rings cost
			 * them spills at the 128-register cap, wgmma.cuh's wg_ring) */
			opts[n++] = xstrdup("-DWG_RT_STAGES=1");
			rt_stages = 1;
		}
	}
	if (s->op == CUDA_BIAS_RELU || s->op == CUDA_BIAS_RELU_ADD)
		opts[n++] = xasprintf("-DRESIDUAL=%d", s->op == CUDA_BIAS_RELU_ADD);
	if (cuda_conv_is(s->op)) /* TF32; the vendor point: conv_epilogue after cuDNN */
		n += cuda_conv_options(s, c->vendor, opts + n);
	if (c->vendor)
		return n; /* memory-bound "vendor": the template's documented defaults */
	for (size_t f = 0; f < sp->nfields && n < CUDA_MAX_OPTS; f++) {
		const struct space_field *fd = &sp->fields[f];
		if (fd->macro_max < 0 || (rt_stages && !strcmp(fd->name, "STAGES")))
			continue; /* the launch's alone (conv.cu's CLUSTER; its wgmma STAGES) */
		int64_t v = fd->macro_max > 0 && c->val[f] > fd->macro_max ? fd->macro_max : c->val[f];
		opts[n++] = xasprintf("-D%s=%" PRId64, fd->name, v);
	}
	return n;
}

double cuda_tolerance(const struct cuda_shape *s)
{
	if (s->dtype != CUDA_F32)
		return 1e-2;
	return s->tf32 ? 1e-3 : 1e-5;
}
