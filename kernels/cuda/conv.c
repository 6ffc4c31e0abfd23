/* conv.c: the CUDA backend's convolutions (docs/kernels.md, "Convolutions"): conv shapes,
 * their config space (templates/conv.cu shares gemm.cu's fields and rules over the
 * implicit GEMM), the epilogue macros, the host's float64 reference (the check's own runs on
 * the GPU: ref_conv in templates/reference.cu, reference.c), and the launch of a config
 * (the vendor configs go to cuDNN, cudnn.c).  Everything above the launch needs no device. */
#include "config.h"
#include "kernels/cuda/device.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/cuda/gemm-config.h"

enum { F_BM = 0, F_BN, F_BK, F_WARPS, F_STAGES, F_SPLIT_K, F_GROUP_M, F_STREAM_K, F_CLUSTER,
       F_RES_TMA, F_CLUSTER_K, F_SWAP_AB };

int cuda_conv_is(enum cuda_op op)
{
	return op == CUDA_CONV || op == CUDA_CONV_BIAS || op == CUDA_CONV_BIAS_RELU ||
	       op == CUDA_CONV_BIAS_RELU_ADD;
}

/* ---- shapes ---------------------------------------------------------------------------- */

int cuda_conv_shape_set(struct cuda_shape *s, int64_t c, int64_t h, int64_t w, int64_t kout,
			int64_t r, int64_t stride, int64_t pad, char **cause)
{
	s->c = c, s->h = h, s->w = w, s->kout = kout, s->r = r, s->stride = stride, s->pad = pad;
	if (r > 64 || stride > 64 || pad >= r) {
		*cause = xasprintf("conv window r = %" PRId64 ", stride %" PRId64 ", pad %" PRId64
				   ": the cuda template takes r, stride <= 64 and pad < r", r,
				   stride, pad);
		return -1;
	}
	if (h + 2 * pad < r || w + 2 * pad < r) {
		*cause = xasprintf("conv: the %" PRId64 "x%" PRId64 " window does not fit the padded "
				   "%" PRId64 "x%" PRId64 " input", r, r, h + 2 * pad, w + 2 * pad);
		return -1;
	}
	s->oh = (h + 2 * pad - r) / stride + 1;
	s->ow = (w + 2 * pad - r) / stride + 1;
	s->m = s->batch * s->oh * s->ow;
	s->n = kout;
	s->k = r * r * c;
	if (s->m > INT32_MAX / 2 || s->k > INT32_MAX / 2 || s->batch * h * w * c > INT32_MAX ||
	    s->m * kout > INT32_MAX || kout * s->k > INT32_MAX) {
		*cause = xstrdup("the conv shape is too large for the cuda template (int indices)");
		return -1;
	}
	return 0;
}

void cuda_conv_sizes(const struct cuda_shape *s, struct cuda_sizes *z)
{
	z->in0 = (size_t)(s->batch * s->h * s->w * s->c);
	z->in1 = (size_t)(s->kout * s->k + s->kout);
	z->in2 = s->op == CUDA_CONV_BIAS_RELU_ADD ? (size_t)(s->m * s->kout) : 0;
	z->out = (size_t)(s->m * s->kout);
}

static int64_t cdiv(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

/* Y[p, q] sums X[2p - pad + i, 2q - pad + j] over the r x r taps.  With e = pad % 2 zero taps
 * put before the window (so it starts at the even 2p - (pad + e)) and zero taps after it up
 * to an even r + e, tap i = 2a + b reads X row 2(p - (pad + e) / 2 + a) + b: row
 * p - (pad + e) / 2 + a, sub-row b, of X by 2 x 2 blocks.  So the stride-2 window of r taps
 * over C channels is a stride-1 window of ceil((r + e) / 2) taps over 4C, each block's
 * channels ordered (b, d, c) with d the sub-column, and its weights the r x r ones shifted by
 * e and cut the same way (conv.cu's conv_s2d makes both).  What it buys: each 16-byte chunk
 * of a row of A is contiguous in the rearranged X, so the gather is one cp.async a chunk, at
 * the price of the zero taps and the padding of 4C to whole chunks in k (the stem: 256
 * against 147 in 16 bits, 192 in 32). */
int cuda_conv_s2d(const struct cuda_shape *s, struct cuda_shape *t)
{
	int64_t epc = 16 / (int64_t)cuda_dtype_size(s->dtype);
	if (!cuda_conv_is(s->op) || s->stride != 2 || s->c % epc == 0)
		return 0;
	int64_t e = s->pad % 2, r2 = (s->r + e + 1) / 2, c2 = cdiv(4 * s->c, epc) * epc;
	if (r2 * r2 * c2 > 2 * s->k ||
	    s->batch * cdiv(s->h, 2) * cdiv(s->w, 2) * c2 > INT32_MAX || /* conv_s2d's int */
	    s->kout * r2 * r2 * c2 > INT32_MAX)                          /* indices */
		return 0;
	*t = *s;
	t->c = c2;
	t->h = cdiv(s->h, 2);
	t->w = cdiv(s->w, 2);
	t->r = r2;
	t->stride = 1;
	t->pad = (s->pad + e) / 2;
	t->k = r2 * r2 * c2;
	return 1;
}

size_t cuda_conv_s2d_bytes(const struct cuda_shape *t, size_t *w_off)
{
	size_t es = cuda_dtype_size(t->dtype);
	size_t z = (size_t)(t->batch * t->h * t->w * t->c) * es;
	*w_off = (z + 255) & ~(size_t)255;
	return *w_off + (((size_t)(t->kout * t->k) * es + 255) & ~(size_t)255);
}

/* gemm.cu's fields over values that suit an implicit GEMM whose m (pixels) is large and
 * whose n (channels) is 64 to 2048: tiles of 64 to 256 pixels (96 and 112 with SWAP_AB) and
 * 32 to 256 channels (112 where its tile count fits the SMs, bn112_fills), k steps of 32, 64
 * or 128 (128 in 16 bits where X has a tensor map: two atoms a stage halve the ring's barrier
 * round trips a byte; a whole 64 x 128 tile's k-loop 12% faster at ResNet-50's 7x7 layers on
 * an H200, 5% at 128 x 128 on two warpgroups, docs/benchmarks-archive.md stop 67), 4, 8 or
 * 12 warps,
 * 3, 4, 8, 9, 10 or 12 stages (above 4 only where the tiles fit one wave of one block an SM:
 * the 7x7 layers' long k-loops, which a deeper ring keeps fed: at 2048 -> 512 the best
 * template took 21.3, 16.9 and 14.8 us at 3, 4 and 8 on an H200, flat past 8,
 * docs/benchmarks-archive.md stop 66;
 * above 8 only on the wgmma path, where shared memory holds them: the launch's depth,
 * WG_RT_STAGES, no module more), SPLIT_K up to 4 (for layer 4's 7x7 maps), GROUP_M 8;
 * conv.cu's STREAM_K: 0 (whole tiles), 1 or 2 (stream-K over one or two blocks an SM, as
 * they fit), 3 (one block an SM, the grid a whole number of blocks a tile: sk_grid); and
 * CLUSTER: 1, 2, 4 or 8 (the launch's alone, no macro: 2, two blocks of adjacent columns of
 * tiles sharing A's stages by TMA multicast, wgmma.cuh; 4 and 8 two-dimensional,
 * conv_cluster_m, each block loading a share of both operands); and
 * RES_TMA: 0, or 1 (the launch's too: the residual comes by TMA into two shared buffers a
 * consumer warpgroup, two tiles ahead, wgmma.cuh's wg_res); and CLUSTER_K: 1, or 2 (a
 * macro: a cluster of two blocks splits each tile's k-tiles in halves and sums them through
 * a slot of the workspace, wgmma.cuh's wg_ck_sum; one tile a pair, where the pairs fit one
 * wave: 128 x 128 at the 512-channel 3x3 layers of 7 x 7 output took 18.0 us a launch's
 * span on an H200 against 20.5 for the best one-block tile, tests/gpu/sk-probe.c,
 * docs/benchmarks-archive.md stops 69 and 70); and SWAP_AB: 0, or 1 (a macro: each consumer
 * warpgroup multiplies 64 of the tile's channels as wgmma's m by its BLOCK_M pixels as the
 * instruction's n and stores the transpose, wgmma.cuh; at the 1x1 layers of one wave alone,
 * where BLOCK_M 96 and 112, its alone, give cuBLASLt's tile counts: 1024 -> 256 at 14 x 14
 * went from 80% of cuDNN to 89% on an H200, docs/benchmarks-archive.md stop 71): 622,080
 * points, of which conv_valid keeps 36 to 96 at a ResNet-50 layer in 16 bits on sm_90a
 * without stream-K, clusters, RES_TMA, eight stages, BLOCK_K 128, pairs or SWAP_AB, and
 * those where they apply (docs/kernels.md).  192 pixels go with 12 warps alone (wgmma's
 * three consumer warpgroups): 131 tiles for 132 SMs at the 28 x 28 layers, where 128 and
 * 256 leave a quarter of the last wave idle. */
void cuda_conv_fields(struct space *sp, enum cuda_op op)
{
	static const int64_t bm[] = { 64, 96, 112, 128, 192, 256 };
	static const int64_t bn[] = { 32, 64, 112, 128, 256 };
	static const int64_t bk[] = { 32, 64, 128 }, warps[] = { 4, 8, 12 };
	static const int64_t stages[] = { 3, 4, 8, 9, 10, 12 };
	static const int64_t split[] = { 1, 2, 4 }, group[] = { 8 }, sk[] = { 0, 1, 2, 3 };
	static const int64_t cl[] = { 1, 2, 4, 8 }, rt[] = { 0, 1 }, ck[] = { 1, 2 };
	static const int64_t sw[] = { 0, 1 };
	const int64_t *const v[] = { bm, bn, bk, warps, stages, split, group };
	const size_t n[] = { ARRAY_SIZE(bm), ARRAY_SIZE(bn), ARRAY_SIZE(bk), ARRAY_SIZE(warps),
			     ARRAY_SIZE(stages), ARRAY_SIZE(split), ARRAY_SIZE(group) };
	sp->op = cuda_op_name(op);
	sp->has_vendor = 1;
	cuda_tile_fields(sp, v, n);
	space_add_field(sp, "STREAM_K", sk, ARRAY_SIZE(sk));
	sp->fields[F_STREAM_K].step = SPACE_STEP_UNIT;
	sp->fields[F_STREAM_K].macro_max = 1; /* 1, 2 and 3 pick the grid: one module */
	space_add_field(sp, "CLUSTER", cl, ARRAY_SIZE(cl));
	sp->fields[F_CLUSTER].step = SPACE_STEP_UNIT;
	sp->fields[F_CLUSTER].macro_max = -1; /* the launch's: every value one module */
	sp->fields[F_CLUSTER].optional = 1;   /* texts from before it name CLUSTER=1 */
	space_add_field(sp, "RES_TMA", rt, ARRAY_SIZE(rt));
	sp->fields[F_RES_TMA].step = SPACE_STEP_UNIT;
	sp->fields[F_RES_TMA].macro_max = -1; /* the launch's (use_tma's WG_RES_TMA) */
	sp->fields[F_RES_TMA].optional = 1;   /* texts from before it name RES_TMA=0 */
	space_add_field(sp, "CLUSTER_K", ck, ARRAY_SIZE(ck));
	sp->fields[F_CLUSTER_K].step = SPACE_STEP_UNIT;
	sp->fields[F_CLUSTER_K].optional = 1; /* texts from before it name CLUSTER_K=1 */
	space_add_field(sp, "SWAP_AB", sw, ARRAY_SIZE(sw));
	sp->fields[F_SWAP_AB].step = SPACE_STEP_UNIT;
	sp->fields[F_SWAP_AB].optional = 1; /* texts from before it name SWAP_AB=0 */
}

int cuda_conv_swap_ab(const struct config *c)
{
	return !c->vendor && c->val[F_SWAP_AB] != 0;
}

/* The blocks along m of a cluster of ncl under config c (the rest along n): a pair along n
 * (sharing A) or, along_n 0 (HARNESS_CUDA_CLUSTER_ALONG_N=0, the A/B), along m; 4 as 2 x 2;
 * 8 with 4 along the tile's longer side of B's and A's (4 x 2 where BLOCK_N >= BLOCK_M):
 * a block loads BLOCK_M / cn rows of A and BLOCK_N / cm of B a k-tile, so at 64 x 128, 32 +
 * 32 rows against 16 + 64 the other way, and 64 + 128 alone (cuBLASLt's 64 x 112 tiles in 4
 * x 2 clusters at ResNet-50's 2048 -> 512 1x1 layer: docs/benchmarks-archive.md, stop 65). */
static int conv_cluster_m(int64_t ncl, const struct config *c, int along_n)
{
	if (ncl <= 2)
		return ncl == 2 && !along_n ? 2 : 1;
	if (ncl == 4)
		return 2;
	return c->val[F_BN] >= c->val[F_BM] ? 4 : 2;
}

/* Stream-K's blocks an SM at most for cfg: STREAM_K 2 two, 1 and 3 one, 0 none. */
static int64_t sk_per_sm(const struct config *cfg)
{
	return cfg->val[F_STREAM_K] == 2 ? 2 : cfg->val[F_STREAM_K] > 0;
}

/* Stream-K's grid for config cfg of launch w (cuda_wgmma_setup's: its work units, tiles or
 * clusters' tiles, its clusters and what fits) on a device of sms SMs: blocks an SM
 * (sk_per_sm) times the SMs, at most resident (what fits at once: the finisher of a cut
 * tile waits for later blocks), a whole number of clusters, and at most the units' k-tiles
 * there are; with STREAM_K 3 then the largest multiple of the units at most that (each
 * unit's k-tiles cut into the same number of equal runs: a finisher waits for blocks that
 * end when it does and reads fewer partials, where 1 spreads the k-tiles over every SM and
 * cuts a tile where a run ends: at the 7x7 3x3 layers its finishers' fix-up and store came
 * 5-6 us after the median block's end, docs/benchmarks-archive.md 2026-11-30 (stop 64));
 * 0 without stream-K. */
static int64_t sk_grid(const struct cuda_shape *s, const struct config *cfg, int64_t sms,
		       const struct cuda_wgmma_launch *w)
{
	if (cfg->vendor || cfg->val[F_STREAM_K] == 0)
		return 0;
	int64_t ncl = w->cluster, t = w->tiles * cdiv(s->k, cfg->val[F_BK]);
	int64_t g = sk_per_sm(cfg) * sms;
	if (g > w->resident)
		g = w->resident;
	g = g < t * ncl ? g : t * ncl;
	g = g / ncl; /* clusters */
	if (cfg->val[F_STREAM_K] == 3 && g >= w->tiles)
		g = g / w->tiles * w->tiles;
	return g * ncl;
}

/* The waves' work over their capacity, in percent, of tiles whole tiles on sms SMs. */
static int64_t wave_fill(int64_t tiles, int64_t sms)
{
	return sms > 0 && tiles > 0 ? tiles * 100 / (cdiv(tiles, sms) * sms) : 100;
}

/* 1 when BLOCK_N 112 at BLOCK_M bm fills the waves of shape s's tiles on sms SMs by 5 points
 * more than 64 and 128 do: what the width is for (cuBLASLt's 64 x 112 at ResNet-50's 2048 ->
 * 512 1x1 layer: 125 tiles for 132 SMs, against 100 of 64 x 128 and 200 of 64 x 64). */
static int bn112_fills(const struct cuda_shape *s, int64_t bm, int64_t sms)
{
	int64_t rows = cdiv(s->m, bm), f = wave_fill(rows * cdiv(s->n, 112), sms);
	return f >= wave_fill(rows * cdiv(s->n, 64), sms) + 5 &&
	       f >= wave_fill(rows * cdiv(s->n, 128), sms) + 5;
}

/* 1 when tiles whole tiles on sms SMs leave little idle: the waves' work over their
 * capacity, tiles / (ceil(tiles / sms) * sms), at 85% or more (ResNet-50's 7x7 and 14x14
 * layers: 100 tiles on 132 SMs, 76%). */
static int sk_full_waves(int64_t tiles, int64_t sms)
{
	if (sms <= 0)
		return 1;
	return tiles * 100 >= 85 * cdiv(tiles, sms) * sms;
}

/* A 1x1, stride-1, unpadded convolution: the GEMM X (m x C) by the weights (K x C), whose
 * operands the tensor copy engine loads when they are 16-byte aligned (the TMA path). */
static int conv_is_gemm(const struct cuda_shape *s)
{
	return s->r == 1 && s->stride == 1 && s->pad == 0;
}

/* The shape rules of TMA's im2col mode for X (conv.cu's use_tma 3): not a plain GEMM (that
 * has its own map), a k-tile inside one filter tap (C a multiple of BLOCK_K, itself whole
 * 128-byte atoms on this path), and the map's limits: elementStrides up to 8, corners
 * within a 4-D map's [-128, 127]. */
static int conv_im2col_shape(const struct cuda_shape *s, int64_t block_k)
{
	int64_t lo = -s->pad, hi = s->pad + 1 - s->r; /* the corners' box, as gemm.c encodes it */
	return !conv_is_gemm(s) && s->c % block_k == 0 && s->stride <= 8 && lo >= -128 &&
	       lo <= 127 && hi >= -128 && hi <= 127;
}

/* Whether conv.cu's wgmma kernel reads X at shape s through a tensor map, as a plain matrix
 * (rows of 16-byte multiples) or by im2col: what a cluster's multicast needs.  The pointers'
 * alignment and HARNESS_CUDA_CONV_IM2COL are the launch's to judge (the backend's
 * cluster_fallbacks counts a cluster config launched without one). */
static int conv_tma_shape(const struct cuda_shape *s, int64_t block_k)
{
	if (conv_is_gemm(s))
		return (s->c * (int64_t)cuda_dtype_size(s->dtype)) % 16 == 0;
	return conv_im2col_shape(s, block_k);
}

int cuda_conv_tma_only(const struct cuda_space_ctx *x, const struct cuda_gemm_config *g)
{
	return x->conv_maps && g->wgmma && conv_tma_shape(&x->shape, g->block_k);
}

/* gemm.cu's rules (conv.cu has the same static_asserts), the same redundancy rules over
 * the implicit GEMM, split-K's fp32 partials within CUDA_CONV_WS_MAX, and two prunings that
 * bound exhaustive tuning's cost (the main job on the GPU): tiles of 256 pixels or channels
 * off the wgmma path, and SPLIT_K 4, are left out.  In the full-space run over ResNet-50's
 * 24 conv shapes (docs/BENCHMARKS.md, 2026-11-23, conv.cu vs cuDNN) no mma.sync 256 tile
 * was ever the fastest and SPLIT_K 4 once.  On the wgmma path 256 tiles stay: they were the
 * fastest at 6 of 24 layers (2026-11-24; leaving them out cost 2.8% in the geometric mean
 * and up to 16% a layer); STAGES 5 and 6 were tried there too and left out of the fields
 * (0.6% in the geometric mean, at most 5% a layer, for a fifth more compiles, before the
 * wgmma path's depth became the launch's: cuda_config_options' WG_RT_STAGES). */
static int conv_valid(const struct space *sp, const struct config *c, const char **why)
{
	const struct cuda_space_ctx *x = sp->ctx;
	struct cuda_shape s2d; /* the rules judge the implicit GEMM conv.cu runs */
	const struct cuda_shape *s = cuda_conv_s2d(&x->shape, &s2d) ? &s2d : &x->shape;
	const char *no = NULL, *rule = NULL;
	struct cuda_gemm_config g;
	cuda_gemm_config_get(x, c, &g);
	int64_t ktiles = (s->k + c->val[F_BK] - 1) / c->val[F_BK];
	int64_t per = (ktiles + c->val[F_SPLIT_K] - 1) / c->val[F_SPLIT_K];
	int64_t grid_m = (s->m + c->val[F_BM] - 1) / c->val[F_BM];
	int64_t tiles = grid_m * cdiv(s->n, c->val[F_BN]); /* the output's (a split's each) */
	if (cuda_gemm_config_check(&g, x->dev.smem_optin, !strcmp(x->dev.arch, "sm_90a"), &rule) < 0)
		no = rule;
	else if ((c->val[F_BM] == 96 || c->val[F_BM] == 112) && !c->val[F_SWAP_AB])
		no = "BLOCK_M 96 and 112 go with SWAP_AB alone (wgmma's n there)";
	else if (space_field_redundant(&sp->fields[F_BM], c->val[F_BM], s->m))
		no = "redundant: a smaller BLOCK_M covers m";
	else if (space_field_redundant(&sp->fields[F_BN], c->val[F_BN], s->n))
		no = "redundant: a smaller BLOCK_N covers n";
	else if (space_field_redundant(&sp->fields[F_BK], c->val[F_BK], s->k))
		no = "redundant: a smaller BLOCK_K covers k";
	else if (c->val[F_BK] == 128 &&
		 (!g.wgmma || g.elem_bytes != 2 || s != &x->shape || !conv_tma_shape(s, 128)))
		no = "pruned: BLOCK_K 128 off 16-bit wgmma with X by tensor map (the gather and "
		     "TF32 untried)";
	else if (c->val[F_BK] == 128 && tiles * c->val[F_SPLIT_K] > x->dev.sms)
		no = "pruned: BLOCK_K 128 where the tiles are more than one wave (it won only at "
		     "one-wave layers; elsewhere its modules cost the exhaustive unit's compiles)";
	else if (!g.wgmma && (c->val[F_BM] > 128 || c->val[F_BN] > 128))
		no = "pruned: an mma.sync tile side over 128 (256 was never the fastest at a "
		     "ResNet-50 layer)";
	else if (c->val[F_SPLIT_K] > 2)
		no = "pruned: SPLIT_K above 2 (won 1 of 24 ResNet-50 layers, by a few %)";
	else if (c->val[F_BN] == 112 && !g.wgmma)
		no = "BLOCK_N 112 needs the wgmma path";
	else if (c->val[F_BN] == 112 && !bn112_fills(s, c->val[F_BM], x->dev.sms))
		no = "pruned: BLOCK_N 112 where its tiles fill the SMs' waves no better than 64's "
		     "and 128's";
	else if (per * (c->val[F_SPLIT_K] - 1) >= ktiles)
		no = "SPLIT_K leaves a split without k-tiles";
	else if (c->val[F_SPLIT_K] > 1 && c->val[F_SPLIT_K] * s->m * s->n * 4 > CUDA_CONV_WS_MAX)
		no = "SPLIT_K's fp32 partials over 256 MiB";
	else if (c->val[F_SPLIT_K] > 1 && tiles >= x->dev.sms)
		no = "SPLIT_K when the tiles fill every SM already";
	else if (space_field_redundant(&sp->fields[F_GROUP_M], c->val[F_GROUP_M], grid_m))
		no = "redundant: a smaller GROUP_M covers the rows of tiles";
	else if (c->val[F_STAGES] > 4 && tiles * c->val[F_SPLIT_K] > x->dev.sms)
		no = "STAGES 8 where the tiles are more than one wave of one block an SM";
	else if (c->val[F_STREAM_K] && !g.wgmma)
		no = "STREAM_K needs the wgmma path";
	else if (c->val[F_STREAM_K] && c->val[F_SPLIT_K] > 1)
		no = "STREAM_K with SPLIT_K (stream-K splits k itself)";
	else if (c->val[F_STREAM_K] && ktiles < 2)
		no = "STREAM_K with one k-tile (nothing to share)";
	else if (c->val[F_STREAM_K] && conv_is_gemm(s))
		no = "STREAM_K on a 1x1 convolution's TMA path (measured 1.1-1.5x slower there)";
	else if (c->val[F_STREAM_K] && sk_full_waves(tiles, x->dev.sms))
		no = "STREAM_K when whole tiles keep the SMs busy (85% or more of the last wave)";
	else if (c->val[F_STREAM_K] == 2 && 2 * cuda_gemm_smem_bytes(&g) > x->dev.smem_optin)
		no = "STREAM_K 2 when two blocks do not fit an SM's shared memory";
	else if (c->val[F_STREAM_K] == 3 && 2 * tiles > x->dev.sms)
		no = "STREAM_K 3 where the tiles are more than half the SMs (a run a tile: whole "
		     "tiles)";
	else if (c->val[F_STREAM_K] &&
		 sk_per_sm(c) * x->dev.sms * c->val[F_BM] * c->val[F_BN] * 4 > CUDA_CONV_WS_MAX)
		no = "STREAM_K's fp32 partials over 256 MiB";
	else if (c->val[F_CLUSTER] > 1 && !g.wgmma)
		no = "CLUSTER needs the wgmma path";
	else if (c->val[F_CLUSTER] > 1 && (s != &x->shape || !conv_tma_shape(s, c->val[F_BK])))
		no = "CLUSTER needs X read by a tensor map (a 1x1 GEMM, or im2col: C a multiple "
		     "of BLOCK_K)";
	else if (c->val[F_CLUSTER] > 1 && c->val[F_SPLIT_K] > 1)
		no = "CLUSTER with SPLIT_K";
	else if (c->val[F_CLUSTER] > 1 && cdiv(s->n, c->val[F_BN]) < 2) /* (pairs along m, the
									  * A/B, go unjudged) */
		no = "CLUSTER with one column of tiles (nothing to share A with)";
	else if (c->val[F_CLUSTER] > 2 &&
		 cdiv(s->m, c->val[F_BM]) < conv_cluster_m(c->val[F_CLUSTER], c, 1))
		no = "CLUSTER 4 or 8 with fewer rows of tiles than the cluster's blocks along m";
	else if (c->val[F_CLUSTER] > 2 &&
		 cdiv(s->n, c->val[F_BN]) <
			 c->val[F_CLUSTER] / conv_cluster_m(c->val[F_CLUSTER], c, 1))
		no = "CLUSTER 4 or 8 with fewer columns of tiles than the cluster's blocks along n";
	else if (c->val[F_CLUSTER] > 1 &&
		 (c->val[F_BN] / conv_cluster_m(c->val[F_CLUSTER], c, 1) % 8 ||
		  c->val[F_BM] * conv_cluster_m(c->val[F_CLUSTER], c, 1) / c->val[F_CLUSTER] % 8))
		no = "CLUSTER whose blocks' shares of the tile are not whole 8-row swizzle atoms";
	else if (c->val[F_RES_TMA] && c->val[F_BN] * g.elem_bytes % 128)
		no = "RES_TMA with a BLOCK_N of no whole 128-byte atoms (112 in 16 bits)";
	else if (c->val[F_RES_TMA] && s->op != CUDA_CONV_BIAS_RELU_ADD)
		no = "RES_TMA without a residual";
	else if (c->val[F_RES_TMA] && (!g.wgmma || c->val[F_SPLIT_K] > 1))
		no = "RES_TMA needs the wgmma path without SPLIT_K (a fused epilogue)";
	else if (c->val[F_RES_TMA] &&
		 (c->val[F_STREAM_K] == 2 ? 2 : 1) *
				 (cuda_gemm_smem_bytes(&g) + cuda_wgmma_res_bytes(&g)) >
			 x->dev.smem_optin)
		no = "RES_TMA: the residual's two buffers over the shared memory";
	else if (c->val[F_CLUSTER_K] > 1 && (s != &x->shape || !cuda_conv_tma_only(x, &g)))
		no = "CLUSTER_K needs the wgmma path with X read by a tensor map (a 1x1 GEMM, or "
		     "im2col; the cell's maps on)";
	else if (c->val[F_CLUSTER_K] > 1 && (c->val[F_STREAM_K] || c->val[F_SPLIT_K] > 1 ||
					     c->val[F_CLUSTER] > 1 || c->val[F_RES_TMA]))
		no = "CLUSTER_K splits k alone (no STREAM_K, SPLIT_K, CLUSTER or RES_TMA)";
	else if (c->val[F_CLUSTER_K] > 1 && 2 * tiles > x->dev.sms)
		no = "CLUSTER_K where the tiles' pairs are more than one wave";
	else if (c->val[F_CLUSTER_K] > 1 && ktiles < 2)
		no = "CLUSTER_K with one k-tile (nothing to split)";
	else if (c->val[F_SWAP_AB] &&
		 (s != &x->shape || !conv_is_gemm(s) || !cuda_conv_tma_only(x, &g)))
		no = "SWAP_AB on a 1x1 convolution's TMA-only path alone (X and the weights by "
		     "tensor maps; the 3x3 layers untried)";
	else if (c->val[F_SWAP_AB] && (c->val[F_STREAM_K] || c->val[F_SPLIT_K] > 1 ||
				       c->val[F_CLUSTER_K] > 1 || c->val[F_RES_TMA]))
		no = "SWAP_AB with whole tiles summed in one block (no STREAM_K, SPLIT_K, "
		     "CLUSTER_K or RES_TMA)";
	else if (c->val[F_SWAP_AB] && (s->op == CUDA_CONV_BIAS_RELU_ADD || s->n % 8))
		no = "SWAP_AB without a residual and with K a multiple of 8 (its epilogue's)";
	else if (c->val[F_SWAP_AB] && tiles > x->dev.sms)
		no = "pruned: SWAP_AB where the tiles are more than one wave (built for the 1x1 "
		     "layers' one-wave tiles)";
	if (no && why)
		*why = no;
	return !no;
}

/* The GEMM rule of thumb on the implicit GEMM: tensor cores 128 x 128 x 32 (64 for 16-bit
 * types), 4 warps, 3 stages, GROUP_M 8; FFMA 64 x 64 x 16; SPLIT_K raised while the tiles
 * fill less than half the SMs; the first valid grid point when that breaks a rule. */
static void conv_heuristic(const struct space *sp, struct config *c)
{
	const struct cuda_space_ctx *x = sp->ctx;
	struct cuda_shape s2d;
	const struct cuda_shape *s = cuda_conv_s2d(&x->shape, &s2d) ? &s2d : &x->shape;
	int mma = s->dtype != CUDA_F32 || s->tf32;
	memset(c, 0, sizeof(*c));
	c->val[F_BM] = space_field_pick(&sp->fields[F_BM], mma ? 128 : 64, s->m);
	c->val[F_BN] = space_field_pick(&sp->fields[F_BN], mma ? 128 : 64, s->n);
	c->val[F_BK] = space_field_pick(&sp->fields[F_BK], s->dtype != CUDA_F32 ? 64 : (mma ? 32 : 16), s->k);
	c->val[F_WARPS] = 4;
	c->val[F_STAGES] = 3;
	c->val[F_CLUSTER] = 1;
	c->val[F_CLUSTER_K] = 1;
	c->val[F_GROUP_M] = space_field_pick(&sp->fields[F_GROUP_M], 8,
				 (s->m + c->val[F_BM] - 1) / c->val[F_BM]);
	int64_t tiles = ((s->m + c->val[F_BM] - 1) / c->val[F_BM]) *
			((s->n + c->val[F_BN] - 1) / c->val[F_BN]);
	int64_t split = 1;
	while (split < 8 && tiles * split * 2 <= x->dev.sms &&
	       (s->k / c->val[F_BK]) >= split * 2 * 4)
		split *= 2;
	c->val[F_SPLIT_K] = split;
	if (conv_valid(sp, c, NULL))
		return;
	size_t n = space_grid_size(sp);
	for (size_t i = 0; i < n; i++)
		if (!space_grid_point(sp, i, c) && conv_valid(sp, c, NULL))
			return;
}

void cuda_conv_space_init(struct space *sp, const struct cuda_space_ctx *ctx)
{
	memset(sp, 0, sizeof(*sp));
	cuda_conv_fields(sp, ctx->shape.op);
	sp->ctx = ctx;
	sp->valid = conv_valid;
	sp->heuristic = conv_heuristic;
}

size_t cuda_conv_options(const struct cuda_shape *s, int vendor, char **opts)
{
	size_t n = 0;
	if (s->tf32)
		opts[n++] = xstrdup("-DTF32=1");
	if (vendor) /* cuDNN convolves: the module is the epilogue kernel alone */
		opts[n++] = xstrdup("-DEPILOGUE_ONLY=1");
	return n;
}

int cuda_conv_epi(enum cuda_op op)
{
	switch (op) {
	case CUDA_CONV_BIAS: return 1;
	case CUDA_CONV_BIAS_RELU: return 1 | 4;
	case CUDA_CONV_BIAS_RELU_ADD: return 1 | 2 | 4;
	default: return 0;
	}
}

/* ---- the host's float64 reference (unit tests, HARNESS_CUDA_REF_VERIFY) ----------------- */

double cuda_conv_ref_one(const struct cuda_shape *s, const void *in0, const void *in1,
			 const void *in2, size_t o)
{
	enum cuda_dtype t = s->dtype;
	size_t K = (size_t)s->kout, C = (size_t)s->c, kk = (size_t)s->k;
	size_t k = o % K, pix = o / K;
	int64_t ox = (int64_t)(pix % (size_t)s->ow), oy = (int64_t)(pix / (size_t)s->ow %
								   (size_t)s->oh);
	int64_t n = (int64_t)(pix / (size_t)(s->ow * s->oh));
	double v = 0;
	for (int64_t ry = 0; ry < s->r; ry++) {
		int64_t iy = oy * s->stride - s->pad + ry;
		if (iy < 0 || iy >= s->h)
			continue;
		for (int64_t rx = 0; rx < s->r; rx++) {
			int64_t ix = ox * s->stride - s->pad + rx;
			if (ix < 0 || ix >= s->w)
				continue;
			size_t xi = (size_t)((n * s->h + iy) * s->w + ix) * C;
			size_t wi = k * kk + (size_t)(ry * s->r + rx) * C;
			for (size_t c = 0; c < C; c++)
				v += cuda_elem_get(in0, t, xi + c) * cuda_elem_get(in1, t, wi + c);
		}
	}
	if (s->op == CUDA_CONV)
		return v;
	v += cuda_elem_get(in1, t, K * kk + k);
	if (s->op == CUDA_CONV_BIAS_RELU_ADD)
		v += cuda_elem_get(in2, t, o);
	if (s->op == CUDA_CONV_BIAS)
		return v;
	return v > 0 ? v : 0;
}

/* ---- the launch ------------------------------------------------------------------------ */

/* Whether the wgmma kernel may read X through TMA's im2col mode (conv.cu, use_tma 3): its
 * shape rules, unless HARNESS_CUDA_CONV_IM2COL=0. */
static int conv_im2col_ok(const struct backend *b, const struct cuda_shape *s,
			  const struct cuda_gemm_config *g)
{
	return b->conv_im2col && conv_im2col_shape(s, g->block_k);
}

int cuda_conv_maps(const struct backend *b, const struct cuda_shape *s)
{
	struct cuda_shape t;
	return cuda_conv_is(s->op) && b->conv_tma_only && !(b->conv_s2d && cuda_conv_s2d(s, &t)) &&
	       (conv_is_gemm(s) || b->conv_im2col);
}

/* conv.cu's conv_s2d (module m): X and the weights of io rearranged for shape t (the
 * cuda_conv_s2d of the cell's shape s) into the front of io's workspace; *out = io on them,
 * the workspace after them. */
static int s2d_launch(struct backend *b, const struct cuda_shape *s, const struct cuda_shape *t,
		      struct cuda_module *m, const struct cuda_conv_io *io, struct cuda_conv_io *out,
		      char **cause)
{
	size_t w_off, need = cuda_conv_s2d_bytes(t, &w_off);
	if (!io->ws || io->ws_bytes < need) {
		*cause = xasprintf("conv: space-to-depth needs %zu bytes of workspace, %zu given",
				   need, io->ws_bytes);
		return -1;
	}
	int64_t epc = 16 / (int64_t)cuda_dtype_size(s->dtype);
	int64_t zblocks = cdiv(t->batch * t->h * t->w * (t->c / epc), 256);
	int64_t wblocks = cdiv(t->kout * t->k, 256);
	*out = *io;
	out->x = io->ws;
	out->w = (char *)io->ws + w_off;
	out->ws = (float *)((char *)io->ws + need);
	out->ws_bytes = io->ws_bytes - need;
	int N = (int)s->batch, H = (int)s->h, W = (int)s->w, C = (int)s->c, K = (int)s->kout;
	int RS = (int)s->r, pad = (int)s->pad, C2 = (int)t->c, RS2 = (int)t->r, zb = (int)zblocks;
	void *args[] = { (void *)&io->x, (void *)&io->w, (void *)&out->x, (void *)&out->w,
			 &N, &H, &W, &C, &K, &RS, &pad, &C2, &RS2, &zb };
	dim3 grid = { (unsigned)(zblocks + wblocks), 1, 1 }, block = { 256, 1, 1 };
	b->s2d_launches++;
	return CUDA_CHECK(RT, cudaLaunchKernel((const void *)m->k[2], grid, block, args, 0,
					       b->stream), cause);
}

/* Whether conv.cu's kernel at config g may store Y through its fused epilogue, whose wide
 * accesses it no longer checks (the template's header): 16-bit wgmma writes runs of 8
 * (wg_acc_h16: K a multiple of 8, Y, Res and bias 16-byte aligned; it reads bias and Res two
 * elements at a time, so that is more than it needs), the TF32 wgmma and mma.sync
 * kernels pairs (out_pair: K even, Y and Res aligned to two elements), FFMA any element.
 * Otherwise the kernel writes fp32 partials and conv_splitk_reduce finishes, as at split-K;
 * b->conv_partials counts those launches.  Only what epi (cuda_conv_epi: bit 0 the bias, bit
 * 1 the residual) reads is judged. */
static int conv_fused(const struct cuda_gemm_config *g, int64_t k, int epi,
		      const struct cuda_conv_io *io)
{
	uintptr_t y = (uintptr_t)io->y, res = (epi & 2) ? (uintptr_t)io->res : 0;
	uintptr_t bias = (epi & 1) ? (uintptr_t)io->bias : 0;
	if (g->split_k > 1)
		return 0;
	if (g->wgmma && g->elem_bytes == 2)
		return k % 8 == 0 && ((y | res | bias) & 15) == 0;
	if (g->elem_bytes == 2 || g->tf32)
		return k % 2 == 0 && ((y | res) & (uintptr_t)(2 * g->elem_bytes - 1)) == 0;
	return 1;
}

/* Bytes of stream-K's slots for cfg on sms SMs (a tile's fp32 accumulators a block, at most
 * sk_per_sm blocks an SM), or of a CLUSTER_K pair's sums (a tile's a pair, at most one pair
 * every two SMs: conv_valid's one wave): the front of the workspace, before any partials. */
static size_t conv_slot_bytes(const struct config *cfg, int64_t sms)
{
	int64_t per = cfg->val[F_CLUSTER_K] > 1 ? sms / cfg->val[F_CLUSTER_K] : sk_per_sm(cfg) * sms;
	return (size_t)(per * cfg->val[F_BM] * cfg->val[F_BN]) * 4;
}

int cuda_conv_launch(struct backend *b, struct cuda_cell *c, const struct config *cfg,
		   struct cuda_module *m, const struct cuda_conv_io *io, char **cause)
{
	const struct cuda_shape *s = &c->sctx.shape;
	if (cfg->vendor)
		return cuda_dnn_launch(b, c, cfg->vendor_idx, io, m, cause);
	/* the stem: X and the weights rearranged by space-to-depth, then the stride-1
	 * convolution over them (s from here on) */
	struct cuda_shape t;
	struct cuda_conv_io io2;
	int s2d = b->conv_s2d && cuda_conv_s2d(s, &t);
	if (s2d) {
		if (s2d_launch(b, s, &t, m, io, &io2, cause))
			return -1;
		s = &t;
		io = &io2;
	}
	struct cuda_gemm_config g;
	cuda_gemm_config_get(&c->sctx, cfg, &g);
	int epi = cuda_conv_epi(s->op), fused = conv_fused(&g, s->kout, epi, io);
	/* RES_TMA: the residual's buffers too (conv_valid: only a residual op, wgmma,
	 * SPLIT_K 1); unfused (Res or Y misaligned), the partials' kernel reads it */
	int rt = cfg->val[F_RES_TMA] && io->res && fused; /* (vendor points returned above) */
	size_t smem = (size_t)(cuda_gemm_smem_bytes(&g) + (rt ? cuda_wgmma_res_bytes(&g) : 0));
	int64_t split = cfg->val[F_SPLIT_K];
	if (smem > m->smem_set) {
		if (CUDA_CHECK(RT, cudaFuncSetAttribute((const void *)m->k[0],
							cudaFuncAttributeMaxDynamicSharedMemorySize,
							(int)smem), cause))
			return -1;
		m->smem_set = smem;
	}
	int N = (int)s->batch, H = (int)s->h, W = (int)s->w, C = (int)s->c, K = (int)s->kout;
	int P = (int)s->oh, Q = (int)s->ow, RS = (int)s->r, st = (int)s->stride;
	int pad = (int)s->pad, M = (int)s->m;
	const void *res = io->res ? io->res : io->x;
	/* the partials (split-K, or the fallback of conv_fused) after stream-K's slots */
	size_t slots = conv_slot_bytes(cfg, b->prop.multiProcessorCount);
	float *ws = io->ws, *pw = NULL;
	if (!fused && cfg->val[F_SWAP_AB]) {
		*cause = xasprintf("conv: SWAP_AB needs the fused epilogue (K a multiple of 8; Y "
				   "and the bias 16-byte aligned)");
		return -1;
	}
	if (!fused) {
		size_t need = slots + (size_t)(split * s->m * s->n) * 4;
		if (!io->ws || io->ws_bytes < need) {
			*cause = xasprintf("conv: %s needs %zu bytes of workspace, %zu given",
					   split > 1 ? "split-K" : "the unfused epilogue", need,
					   io->ws_bytes);
			return -1;
		}
		pw = (float *)((char *)io->ws + slots);
		if (split == 1)
			b->conv_partials++;
	}
	unsigned *flags = b->d_sk_flags;
	struct cuda_wgmma_launch w = { .grid = cdiv(s->m, cfg->val[F_BM]) * cdiv(s->n, cfg->val[F_BN]),
				       .cluster = 1 };
	if (g.wgmma) {
		/* a plain GEMM's operands both by the tensor copy engine; otherwise X by
		 * its im2col map where conv_im2col_ok, else the weights alone (K x
		 * RS*RS*C) and the kernel gathers X */
		struct cuda_im2col geo = { .n = s->batch, .h = s->h, .w = s->w, .c = s->c,
					 .rs = (int)s->r, .stride = (int)s->stride,
					 .pad = (int)s->pad };
		struct cuda_wgmma_operands op = { .a = io->x, .b = io->w, .m = s->m, .n = s->n,
						.k = s->k, .lda = s->k, .ldb = s->k,
						.tma = !s2d && conv_is_gemm(s),
						.tma_b = 1,
						.im2col = !s2d && conv_im2col_ok(b, s, &g) ? &geo
											  : NULL,
						.cluster = (int)cfg->val[F_CLUSTER],
						.cluster_m = conv_cluster_m(
							cfg->val[F_CLUSTER], cfg,
							b->cluster_along_n),
						.r = rt ? io->res : NULL };
		if (cuda_wgmma_setup(b, c, m, &g, smem, &op, &w, cause))
			return -1;
		if (cuda_conv_tma_only(&c->sctx, &g)) {
			if (!(w.use_tma & 1)) { /* neither 1 nor 3: no map for X */
				*cause = xasprintf("conv: the config's module has no gather "
						   "(WG_TMA_ONLY), and X or the weights are not "
						   "16-byte aligned");
				return -1;
			}
			b->tma_only_launches++;
		}
		if (w.cluster < op.cluster)
			b->cluster_fallbacks++;
		if (w.use_tma & CUDA_USE_TMA_RES)
			b->res_tma_launches++;
		else if (cfg->val[F_RES_TMA])
			b->res_tma_fallbacks++;
		int64_t sk = sk_grid(s, cfg, b->prop.multiProcessorCount, &w);
		if (sk > 0) {
			size_t need = (size_t)(sk * cfg->val[F_BM] * cfg->val[F_BN]) * 4;
			if (!io->ws || io->ws_bytes < need || !flags ||
			    sk * (g.warps / 4) > b->sk_flags_len) {
				*cause = xasprintf("conv: stream-K over %" PRId64 " blocks needs %zu "
						   "bytes of workspace (%zu given) and its flags",
						   sk, need, io->ws_bytes);
				return -1;
			}
			w.grid = sk;
		}
		if (cfg->val[F_CLUSTER_K] > 1) { /* a pair a tile (conv_valid: one wave) */
			if (!(w.use_tma & 1)) {
				*cause = xasprintf("conv: CLUSTER_K needs X and the weights by "
						   "tensor maps, and they are not 16-byte aligned");
				return -1;
			}
			w.cluster = (int)cfg->val[F_CLUSTER_K];
			w.grid = w.cluster * w.tiles;
			size_t need = (size_t)(w.tiles * cfg->val[F_BM] * cfg->val[F_BN]) * 4;
			if (!io->ws || io->ws_bytes < need) {
				*cause = xasprintf("conv: CLUSTER_K over %" PRId64 " tiles needs %zu "
						   "bytes of workspace, %zu given",
						   w.tiles, need, io->ws_bytes);
				return -1;
			}
		}
	}
	/* mma.sync / FFMA: ws is the partials alone, and the arguments end at epi; wgmma: the
	 * depth last (WG_RT_STAGES, cuda_config_options) */
	int stages = g.stages;
	void *args[] = { (void *)&io->x, (void *)&io->w, (void *)&io->bias, (void *)&res,
			 (void *)&io->y, g.wgmma ? (void *)&ws : (void *)&pw, &N, &H, &W, &C, &K,
			 &P, &Q, &RS, &st, &pad, &epi, (void *)w.ta, (void *)w.tb, &w.use_tma,
			 &flags, &pw, (void *)w.tr, &stages };
	if (cuda_wgmma_launch_kernel(b, m, &w, (unsigned)split, (unsigned)cuda_gemm_threads(&g),
				     smem, args, cause))
		return -1;
	if (fused)
		return 0;
	void *r[] = { &pw, (void *)&io->bias, (void *)&res, (void *)&io->y, &M, &K, &epi };
	dim3 rg = { (unsigned)cdiv(s->m * s->n, 256), 1, 1 }, rb = { 256, 1, 1 };
	return CUDA_CHECK(RT, cudaLaunchKernel((const void *)m->k[1], rg, rb, r, 0, b->stream),
			  cause);
}

int cuda_conv_run(struct backend *b, struct cuda_cell *c, const struct config *cfg,
		struct cuda_module *m, char **cause)
{
	const struct cuda_shape *s = &c->sctx.shape;
	struct cuda_conv_io io = {
		.x = c->d_in[0],
		.w = c->d_in[1],
		.bias = (const char *)c->d_in[1] +
			(size_t)(s->kout * s->k) * cuda_dtype_size(s->dtype),
		.res = s->op == CUDA_CONV_BIAS_RELU_ADD ? c->d_in[2] : NULL,
		.y = c->d_out,
	};
	/* the workspace: space-to-depth's X and weights where it applies, stream-K's slots,
	 * the partials where the kernel does not fuse the epilogue (split-K, conv_fused) */
	size_t need = 0;
	if (!cfg->vendor) {
		struct cuda_gemm_config g;
		struct cuda_shape t;
		size_t w_off;
		cuda_gemm_config_get(&c->sctx, cfg, &g);
		need = cuda_conv_s2d(s, &t) ? cuda_conv_s2d_bytes(&t, &w_off) : 0;
		need += conv_slot_bytes(cfg, b->prop.multiProcessorCount);
		if (!conv_fused(&g, s->kout, cuda_conv_epi(s->op), &io))
			need += (size_t)(cfg->val[F_SPLIT_K] * s->m * s->n) * 4;
	}
	if (cuda_ensure_ws(c, need, cause) ||
	    (!cfg->vendor && cfg->val[F_STREAM_K] && cuda_ensure_sk_flags(b, cause)))
		return -1;
	io.ws = c->d_ws;
	io.ws_bytes = c->ws_bytes;
	return cuda_conv_launch(b, c, cfg, m, &io, cause);
}
