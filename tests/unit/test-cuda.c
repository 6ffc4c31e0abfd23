/* test-cuda.c: the CUDA backend's parts that need no GPU: op spaces and their constraints
 * (Triton's fields, the template's rules, redundancy), NVRTC options of a config, cubin
 * cache keys, the 16-bit conversions, the float64 references and the check's NaN rule, and
 * an NVRTC compile of every template for sm_80 and sm_90a (NVRTC runs without a device);
 * then availability: on a machine without a GPU the backend says why.  Skips (77) in a
 * build without CUDA. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef HAVE_CUDA
int main(void)
{
	printf("SKIP: this build has no CUDA backend (configure --with-cuda)\n");
	return 77;
}
#else

#include <check.h>
#include <float.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "kernels/backend.h"
#include "kernels/catalog.h"
#include "kernels/cuda/compile.h"
#include "kernels/cuda/gemm-config.h"
#include "kernels/space.h"
#include "tests/unit/testutil.h"

static void op_workload(struct workload *w, const char *op, const char *dtype,
			const char *const *names, const int64_t *vals, size_t n)
{
	memset(w, 0, sizeof(*w));
	w->kind = WORKLOAD_OP;
	w->op = (char *)op;
	w->name = (char *)op;
	w->dtype = (char *)dtype;
	w->batch = 2;
	w->shape = xcalloc(n, sizeof(*w->shape));
	w->nshape = n;
	for (size_t i = 0; i < n; i++) {
		w->shape[i].name = (char *)names[i];
		w->shape[i].value = vals[i];
	}
}

static void gemm_ctx(struct cuda_space_ctx *x, int64_t m, int64_t n, int64_t k,
		     const char *dtype, int tf32)
{
	static const char *const names[] = { "m", "n", "k" };
	int64_t v[] = { m, n, k };
	struct workload w;
	char *cause = NULL;
	op_workload(&w, "gemm", dtype, names, v, 3);
	w.tf32 = tf32;
	ck_assert_msg(!cuda_shape_from_workload(&x->shape, &w, &cause), "%s", cause);
	free(w.shape);
	cuda_devinfo_default(&x->dev);
}

static int64_t val_of(const struct space *sp, const struct config *c, const char *name)
{
	for (size_t f = 0; f < sp->nfields; f++)
		if (!strcmp(sp->fields[f].name, name))
			return c->val[f];
	ck_abort_msg("no field %s", name);
	return -1;
}

START_TEST(test_catalog_ops)
{
	/* every op the backend has is in the catalog, and its op_space works */
	for (int op = 0; op < CUDA_NOPS; op++) {
		struct space sp;
		ck_assert_ptr_nonnull(catalog_op(cuda_op_name(op)));
		ck_assert_int_eq(cuda_op_space(cuda_op_name(op), &sp), 0);
		ck_assert(sp.has_vendor);
		ck_assert_ptr_null(sp.valid);
	}
	struct space sp;
	ck_assert_int_eq(cuda_op_space("sgemm", &sp), -1);
}
END_TEST

START_TEST(test_gemm_space)
{
	struct cuda_space_ctx x;
	struct space sp;
	struct config c;
	const char *why = NULL;
	static const char *const triton[] = { "BLOCK_M", "BLOCK_N", "BLOCK_K", "WARPS",
					      "STAGES", "SPLIT_K", "GROUP_M" };

	gemm_ctx(&x, 4096, 4096, 4096, "float16", 0);
	cuda_space_init(&sp, &x);
	ck_assert_str_eq(sp.op, "gemm");
	ck_assert_uint_eq(sp.nfields, ARRAY_SIZE(triton));
	for (size_t f = 0; f < ARRAY_SIZE(triton); f++)
		ck_assert_str_eq(sp.fields[f].name, triton[f]);

	/* the rule of thumb on Hopper is a valid point on the wgmma path: 128 x 256 x 64,
	 * 8 warps, 4 stages */
	sp.heuristic(&sp, &c);
	ck_assert(space_check(&sp, &c, &why));
	ck_assert_int_eq(val_of(&sp, &c, "BLOCK_M"), 128);
	ck_assert_int_eq(val_of(&sp, &c, "BLOCK_N"), 256);
	ck_assert_int_eq(val_of(&sp, &c, "BLOCK_K"), 64);
	ck_assert_int_eq(val_of(&sp, &c, "WARPS"), 8);
	ck_assert_int_eq(val_of(&sp, &c, "STAGES"), 4);
	ck_assert_int_eq(val_of(&sp, &c, "SPLIT_K"), 1);
	struct cuda_gemm_config g;
	cuda_gemm_config_get(&x, &c, &g);
	ck_assert_int_eq(g.wgmma, 1);
	ck_assert_int_eq(cuda_gemm_threads(&g), 8 * 32 + 128);

	/* shared memory over the device's limit */
	struct config big = c;
	big.val[0] = 256, big.val[1] = 128, big.val[2] = 128, big.val[3] = 8, big.val[4] = 5;
	ck_assert(!space_check(&sp, &big, &why));
	ck_assert_ptr_nonnull(strstr(why, "shared memory"));

	/* a smaller limit (sm_86-class 99 KiB) excludes more */
	x.dev.smem_optin = 99 * 1024;
	struct config mid = c;
	mid.val[1] = 128, mid.val[3] = 4, mid.val[4] = 5; /* 5 x 256 x 128 + 2048 = 165888 B */
	ck_assert(!space_contains(&sp, &mid));
	x.dev.smem_optin = 227 * 1024;
	ck_assert(space_contains(&sp, &mid));
	/* 128 x 256 x 64 at 5 stages: 5 x 384 x 128 + 2048 bytes, over 227 KiB */
	mid = c;
	mid.val[4] = 5;
	ck_assert(!space_check(&sp, &mid, &why));
	ck_assert_ptr_nonnull(strstr(why, "shared memory"));

	/* smaller grids take smaller wgmma tiles: 128 x 128 when those fill half the SMs,
	 * 64 x 128 below */
	gemm_ctx(&x, 6272, 256, 2304, "bfloat16", 0);
	sp.heuristic(&sp, &c);
	ck_assert(space_contains(&sp, &c));
	ck_assert_int_eq(val_of(&sp, &c, "BLOCK_N"), 128);
	ck_assert_int_eq(val_of(&sp, &c, "WARPS"), 4);
	gemm_ctx(&x, 1024, 1024, 1024, "float16", 0);
	sp.heuristic(&sp, &c);
	ck_assert(space_contains(&sp, &c));
	ck_assert_int_eq(val_of(&sp, &c, "BLOCK_M"), 64);
	ck_assert_int_eq(val_of(&sp, &c, "BLOCK_N"), 128);
	cuda_gemm_config_get(&x, &c, &g);
	ck_assert_int_eq(g.wgmma, 1);

	/* off Hopper: Triton's default, 128 x 128 x 64, 4 warps, 3 stages, on mma.sync */
	gemm_ctx(&x, 4096, 4096, 4096, "float16", 0);
	snprintf(x.dev.arch, sizeof(x.dev.arch), "sm_80");
	x.dev.smem_optin = 163 * 1024;
	sp.heuristic(&sp, &c);
	ck_assert(space_contains(&sp, &c));
	ck_assert_int_eq(val_of(&sp, &c, "BLOCK_N"), 128);
	ck_assert_int_eq(val_of(&sp, &c, "STAGES"), 3);
	cuda_gemm_config_get(&x, &c, &g);
	ck_assert_int_eq(g.wgmma, 0);
	ck_assert_int_eq(cuda_gemm_threads(&g), 4 * 32);
	gemm_ctx(&x, 4096, 4096, 4096, "float16", 0);

	/* redundant tiles on a small shape; an empty split.  On Hopper a short m keeps the
	 * smallest wgmma tile (64 rows for 4 warps), which is not redundant; 128 rows is, and
	 * so is 64 rows on mma.sync (BLOCK_N 32 leaves the wgmma path) */
	gemm_ctx(&x, 20, 4096, 64, "float16", 0);
	cuda_space_init(&sp, &x);
	sp.heuristic(&sp, &c);
	ck_assert(space_contains(&sp, &c));
	ck_assert_int_eq(val_of(&sp, &c, "BLOCK_M"), 64);
	cuda_gemm_config_get(&x, &c, &g);
	ck_assert_int_eq(g.wgmma, 1);
	struct config r = c;
	r.val[0] = 128;
	ck_assert(!space_check(&sp, &r, &why));
	ck_assert_ptr_nonnull(strstr(why, "BLOCK_M"));
	r = c;
	r.val[1] = 32;
	ck_assert(!space_check(&sp, &r, &why));
	ck_assert_ptr_nonnull(strstr(why, "BLOCK_M"));
	r = c;
	r.val[5] = 8; /* k = 64, BLOCK_K 64: one k-tile, 8 splits */
	ck_assert(!space_check(&sp, &r, &why));
	ck_assert_ptr_nonnull(strstr(why, "SPLIT_K"));

	/* a tall-skinny product on few tiles gets split-K from the heuristic */
	gemm_ctx(&x, 128, 128, 65536, "bfloat16", 0);
	cuda_space_init(&sp, &x);
	sp.heuristic(&sp, &c);
	ck_assert(space_contains(&sp, &c));
	ck_assert_int_gt(val_of(&sp, &c, "SPLIT_K"), 1);

	/* FFMA float32 and TF32 rules differ: FFMA takes BLOCK_K 16 by default */
	gemm_ctx(&x, 1024, 1024, 1024, "float32", 0);
	cuda_space_init(&sp, &x);
	sp.heuristic(&sp, &c);
	ck_assert(space_contains(&sp, &c));
	ck_assert_int_eq(val_of(&sp, &c, "BLOCK_K"), 16);
	gemm_ctx(&x, 1024, 1024, 1024, "float32", 1);
	cuda_space_init(&sp, &x);
	sp.heuristic(&sp, &c);
	ck_assert(space_contains(&sp, &c));
}
END_TEST

/* The GEMM space's prunings (kernels/cuda/space-cuda.c, gemm_valid): the valid points of the
 * shapes that matter, against scripts/gemm-space.py's independent count of the same rules
 * (H100: 132 SMs, 227 KiB of shared memory a block, sm_90a), and what stays reachable. */
static size_t count_valid(int64_t m, int64_t n, int64_t k, const char *dtype, int tf32)
{
	struct cuda_space_ctx x;
	struct space sp;
	struct config c;
	size_t valid = 0;
	gemm_ctx(&x, m, n, k, dtype, tf32);
	cuda_space_init(&sp, &x);
	for (size_t i = 0; i < space_grid_size(&sp); i++)
		valid += !space_grid_point(&sp, i, &c) && space_contains(&sp, &c);
	return valid;
}

START_TEST(test_gemm_space_pruned)
{
	/* scripts/gemm-space.py: fc50 fp16 116, fc18 tf32 116, 4096^3 fp16 168, 1024^3 fp16
	 * 277 (2108, 1816, 10848 and 10428 before the prunings; 148 at the fc layers before 8
	 * warps' 128-row tiles went where 64 rows cover m) */
	ck_assert_uint_eq(count_valid(32, 1000, 2048, "float16", 0), 116);
	ck_assert_uint_eq(count_valid(32, 1000, 512, "float32", 1), 116);
	ck_assert_uint_eq(count_valid(4096, 4096, 4096, "float16", 0), 168);
	ck_assert_uint_eq(count_valid(1024, 1024, 1024, "float16", 0), 277);

	struct cuda_space_ctx x;
	struct space sp;
	struct config c;
	const char *why = NULL;
	gemm_ctx(&x, 32, 1000, 2048, "float16", 0);
	cuda_space_init(&sp, &x);
	/* the fc's best measured config (docs/BENCHMARKS.md: 80.6% of cuBLASLt), unreachable
	 * before: 64 x 128 x 64, 4 warps, 4 stages, SPLIT_K 8 on wgmma at m = 32 */
	memset(&c, 0, sizeof(c));
	const int64_t best[] = { 64, 128, 64, 4, 4, 8, 1 };
	memcpy(c.val, best, sizeof(best));
	ck_assert(space_check(&sp, &c, &why));
	/* the heuristic's pick there: the same tile at 5 stages */
	sp.heuristic(&sp, &c);
	ck_assert(space_contains(&sp, &c));
	ck_assert_int_eq(val_of(&sp, &c, "BLOCK_M"), 64);
	ck_assert_int_eq(val_of(&sp, &c, "SPLIT_K"), 8);
	/* 8 warps' smallest wgmma tile (128 rows) where 64 rows cover m: redundant */
	const int64_t tall[] = { 128, 128, 64, 8, 4, 1, 1 };
	memcpy(c.val, tall, sizeof(tall));
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "redundant: a smaller BLOCK_M covers m");
	/* each pruning names itself */
	const int64_t pruned[][7] = {
		{ 32, 128, 128, 4, 4, 1, 1 }, /* BLOCK_K 256 bytes */
		{ 32, 128, 64, 2, 4, 1, 1 },  /* 2 warps */
		{ 32, 128, 64, 4, 2, 1, 1 },  /* 2 stages */
		{ 32, 128, 64, 4, 5, 1, 1 },  /* 5 stages on mma.sync */
		{ 32, 256, 64, 8, 4, 1, 1 },  /* an mma.sync tile side of 256 on Hopper */
	};
	for (size_t i = 0; i < ARRAY_SIZE(pruned); i++) {
		memcpy(c.val, pruned[i], sizeof(pruned[i]));
		ck_assert_msg(!space_check(&sp, &c, &why), "point %zu is valid", i);
		ck_assert_msg(!strncmp(why, "pruned:", 7), "point %zu: %s", i, why);
	}
	/* m 256: 8 x 16 tiles of 32 x 64; SPLIT_K 2 leaves 128 blocks (fewer than 132 SMs),
	 * so 4 is pruned */
	gemm_ctx(&x, 256, 1000, 2048, "float16", 0);
	cuda_space_init(&sp, &x);
	const int64_t sk[] = { 32, 64, 64, 4, 4, 2, 1 };
	memcpy(c.val, sk, sizeof(sk));
	ck_assert(space_check(&sp, &c, &why));
	c.val[5] = 4;
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "pruned: SPLIT_K beyond the one that fills every SM");
	gemm_ctx(&x, 4096, 4096, 4096, "float16", 0);
	cuda_space_init(&sp, &x);
	const int64_t g4[] = { 128, 256, 64, 8, 4, 1, 4 };
	memcpy(c.val, g4, sizeof(g4));
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "pruned: GROUP_M 4 (between 1 and 8)");
}
END_TEST

/* The placement pad: a multiple of 2 MiB under 128 MiB, the same for the same (seed, unit),
 * and spread over its range across units (not one fixed offset). */
START_TEST(test_placement_pad)
{
	size_t seen[CUDA_PLACEMENT_STEPS] = { 0 }, distinct = 0;
	for (int64_t u = 0; u < 200; u++) {
		size_t p = cuda_placement_pad(20261121, u);
		ck_assert_uint_eq(p % CUDA_PLACEMENT_STEP, 0);
		ck_assert_uint_lt(p, (size_t)128 << 20);
		ck_assert_uint_eq(p, cuda_placement_pad(20261121, u));
		distinct += !seen[p / CUDA_PLACEMENT_STEP]++;
	}
	ck_assert_uint_ge(distinct, 40); /* 200 draws from 64 values: about 61 expected */
	int differ = 0;
	for (int64_t u = 0; u < 8; u++)
		differ += cuda_placement_pad(1, u) != cuda_placement_pad(2, u);
	ck_assert_int_ge(differ, 4); /* the seed matters too */
}
END_TEST

/* Options o (n of them, cuda_config_options' heap strings) freed. */
static void free_opts(char **o, size_t n)
{
	for (size_t k = 0; k < n; k++)
		free(o[k]);
}

/* The wgmma path is derived from the Triton fields (no field of its own), so every tuner
 * reaches it: sm_90a, 16-bit, WARPS 4 or 8, BLOCK_M 64 or 128 a warpgroup, BLOCK_N 64, 128
 * or 256, BLOCK_K a multiple of 64; the NVRTC options say -DWGMMA=1 exactly then. */
static int has_opt(char **opts, size_t n, const char *o)
{
	int found = 0;
	for (size_t i = 0; i < n; i++)
		found |= !strcmp(opts[i], o);
	return found;
}

START_TEST(test_gemm_wgmma_derived)
{
	static const struct {
		int64_t bm, bn, bk, warps;
		const char *dtype;
		int tf32, wgmma;
	} cases[] = {
		{ 128, 256, 64, 8, "float16", 0, 1 },  { 256, 128, 64, 8, "bfloat16", 0, 1 },
		{ 128, 128, 128, 4, "float16", 0, 1 }, { 64, 64, 64, 4, "float16", 0, 1 },
		{ 128, 128, 32, 4, "float16", 0, 0 },  /* BLOCK_K 32 */
		{ 64, 128, 64, 8, "float16", 0, 0 },   /* 32 rows a warpgroup */
		{ 256, 128, 64, 4, "float16", 0, 0 },  /* 256 rows a warpgroup */
		{ 128, 32, 64, 4, "float16", 0, 0 },   /* BLOCK_N 32 */
		{ 128, 128, 64, 2, "float16", 0, 0 },  /* not whole warpgroups */
		{ 128, 128, 64, 4, "float32", 0, 0 },  /* FFMA */
		{ 128, 128, 32, 4, "float32", 1, 1 },  /* TF32: atoms of 32 elements */
		{ 128, 256, 32, 8, "float32", 1, 1 },
		{ 128, 256, 16, 8, "float32", 1, 0 },  /* BLOCK_K 16: half an atom */
		{ 128, 256, 32, 8, "float32", 0, 0 },  /* FFMA */
	};
	struct cuda_space_ctx x;
	struct space sp;
	struct config c;
	struct cuda_gemm_config g;
	char *opts[CUDA_MAX_OPTS];
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		gemm_ctx(&x, 4096, 4096, 4096, cases[i].dtype, cases[i].tf32);
		cuda_space_init(&sp, &x);
		sp.heuristic(&sp, &c);
		c.val[0] = cases[i].bm, c.val[1] = cases[i].bn, c.val[2] = cases[i].bk;
		c.val[3] = cases[i].warps, c.val[4] = 2;
		cuda_gemm_config_get(&x, &c, &g);
		ck_assert_msg(g.wgmma == cases[i].wgmma, "case %zu", i);
		size_t n = cuda_config_options(&sp, &c, "sm_90a", opts);
		ck_assert_int_eq(has_opt(opts, n, "-DWGMMA=1"), cases[i].wgmma);
		/* k 4096: the tensor maps serve, so a wgmma module leaves the cp.async path out */
		ck_assert_int_eq(has_opt(opts, n, "-DWG_TMA_ONLY=1"), cases[i].wgmma);
		free_opts(opts, n);
		/* never off sm_90a */
		n = cuda_config_options(&sp, &c, "sm_80", opts);
		ck_assert(!has_opt(opts, n, "-DWGMMA=1"));
		ck_assert(!has_opt(opts, n, "-DWG_TMA_ONLY=1"));
		free_opts(opts, n);
		snprintf(x.dev.arch, sizeof(x.dev.arch), "sm_80");
		cuda_gemm_config_get(&x, &c, &g);
		ck_assert_int_eq(g.wgmma, 0);
	}
	/* k whose rows are not 16-byte multiples (4100 float16 elements: 8200 bytes): the same
	 * wgmma config keeps the cp.async path; a row of whole 16 bytes (4104) drops it */
	static const int64_t ks[] = { 4100, 4104 };
	for (size_t i = 0; i < ARRAY_SIZE(ks); i++) {
		gemm_ctx(&x, 4096, 4096, ks[i], "float16", 0);
		cuda_space_init(&sp, &x);
		sp.heuristic(&sp, &c);
		c.val[0] = 128, c.val[1] = 256, c.val[2] = 64, c.val[3] = 8, c.val[4] = 2;
		size_t n = cuda_config_options(&sp, &c, "sm_90a", opts);
		ck_assert(has_opt(opts, n, "-DWGMMA=1"));
		ck_assert_int_eq(has_opt(opts, n, "-DWG_TMA_ONLY=1"), (int)i);
		free_opts(opts, n);
	}
	/* the wgmma shared memory: STAGES x (BLOCK_M + BLOCK_N) x BLOCK_K x 2 + 2048 */
	struct cuda_gemm_config w = { 128, 256, 64, 8, 0, 4, 1, 8, 2, 0, 1, 0 };
	const char *why = NULL;
	ck_assert_int_eq(cuda_gemm_smem_bytes(&w), 4 * 384 * 64 * 2 + 2048);
	ck_assert_int_eq(cuda_gemm_config_check(&w, 227 * 1024, 1, &why), 4 * 384 * 128 + 2048);
	ck_assert_int_lt(cuda_gemm_config_check(&w, 227 * 1024, 0, &why), 0);
	ck_assert_ptr_nonnull(strstr(why, "sm_90a"));
	w.block_k = 96;
	ck_assert_int_lt(cuda_gemm_config_check(&w, 227 * 1024, 1, &why), 0);
	ck_assert_ptr_nonnull(strstr(why, "multiple of 128 bytes"));
	/* TF32: 4-byte elements, atoms of 32; float32 without TF32 stays on FFMA */
	w.block_k = 32, w.elem_bytes = 4, w.tf32 = 0;
	ck_assert_int_eq(cuda_gemm_use_wgmma(&w, 1), 0);
	w.tf32 = 1;
	ck_assert_int_eq(cuda_gemm_use_wgmma(&w, 1), 1);
	ck_assert_int_eq(cuda_gemm_config_check(&w, 227 * 1024, 1, &why), 4 * 384 * 128 + 2048);
}
END_TEST

START_TEST(test_mem_spaces)
{
	static const char *const pool[] = { "c", "h", "w", "r", "stride", "pad" };
	int64_t v[] = { 64, 112, 112, 3, 2, 1 };
	struct cuda_space_ctx x;
	struct space sp;
	struct config c;
	struct workload w;
	char *cause = NULL;
	const char *why;

	op_workload(&w, "maxpool", "float16", pool, v, 6);
	ck_assert_int_eq(cuda_shape_from_workload(&x.shape, &w, &cause), 0);
	ck_assert_int_eq(x.shape.oh, 56);
	cuda_devinfo_default(&x.dev);
	cuda_space_init(&sp, &x);
	sp.heuristic(&sp, &c);
	ck_assert(space_contains(&sp, &c));
	ck_assert_int_eq(c.val[1], 8);
	c.val[1] = 16; /* not a value */
	ck_assert(!space_contains(&sp, &c));
	x.shape.dtype = CUDA_F32;
	c.val[1] = 8; /* 8 floats are 32 bytes */
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_ptr_nonnull(strstr(why, "16 bytes"));

	/* the template is 3x3/2 pad 1 only */
	w.shape[4].value = 1;
	ck_assert_int_eq(cuda_shape_from_workload(&x.shape, &w, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "stride 2"));
	free(cause);
	cause = NULL;
	free(w.shape);

	/* bad dtypes and tf32 on the wrong op */
	static const char *const br[] = { "c", "hw" };
	int64_t bv[] = { 64, 3136 };
	op_workload(&w, "bias_relu", "float64", br, bv, 2);
	ck_assert_int_eq(cuda_shape_from_workload(&x.shape, &w, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "float64"));
	free(cause);
	cause = NULL;
	w.dtype = "float32";
	w.tf32 = 1;
	ck_assert_int_eq(cuda_shape_from_workload(&x.shape, &w, &cause), -1);
	free(cause);
	cause = NULL;
	free(w.shape);

	/* ROWS must leave a warp across */
	static const char *const av[] = { "c", "h", "w" };
	int64_t avv[] = { 2048, 7, 7 };
	op_workload(&w, "avgpool", "float32", av, avv, 3);
	ck_assert_int_eq(cuda_shape_from_workload(&x.shape, &w, &cause), 0);
	cuda_space_init(&sp, &x);
	sp.heuristic(&sp, &c);
	ck_assert(space_contains(&sp, &c));
	c.val[0] = 64, c.val[2] = 16;
	ck_assert(!space_check(&sp, &c, &why));
	free(w.shape);
}
END_TEST

START_TEST(test_options_and_keys)
{
	struct cuda_space_ctx x;
	struct space sp;
	struct config c;
	char *opts[CUDA_MAX_OPTS];
	char k1[65], k2[65];

	gemm_ctx(&x, 512, 512, 512, "float32", 1);
	cuda_space_init(&sp, &x);
	sp.heuristic(&sp, &c);
	size_t n = cuda_config_options(&sp, &c, "sm_90a", opts);
	/* TF32 on sm_90a takes wgmma: -DWGMMA=1, and k 512 the tensor maps: -DWG_TMA_ONLY=1 */
	ck_assert_uint_eq(n, 6 + 7);
	ck_assert_str_eq(opts[0], "--gpu-architecture=sm_90a");
	ck_assert_str_eq(opts[2], "-DDTYPE_FLOAT32");
	ck_assert_str_eq(opts[3], "-DTF32=1");
	ck_assert_str_eq(opts[4], "-DWGMMA=1");
	ck_assert_str_eq(opts[5], "-DWG_TMA_ONLY=1");
	ck_assert_str_eq(opts[6], "-DBLOCK_M=64"); /* 16 tiles of 128 x 128 fill few SMs */
	ck_assert_str_eq(opts[8], "-DBLOCK_K=32");

	const char *src = "extern \"C\" __global__ void f() {}";
	cuda_cache_key("gemm.cu", src, strlen(src), opts, n, "13.0", "sm_90a", k1);
	cuda_cache_key("gemm.cu", src, strlen(src), opts, n, "13.0", "sm_90a", k2);
	ck_assert_str_eq(k1, k2);
	ck_assert_uint_eq(strlen(k1), 64);
	cuda_cache_key("gemm.cu", src, strlen(src), opts, n, "13.1", "sm_90a", k2);
	ck_assert_str_ne(k1, k2);
	cuda_cache_key("gemm.cu", src, strlen(src), opts, n, "13.0", "sm_80", k2);
	ck_assert_str_ne(k1, k2);
	cuda_cache_key("gemm.cu", src, strlen(src) - 1, opts, n, "13.0", "sm_90a", k2);
	ck_assert_str_ne(k1, k2);
	cuda_cache_key("gemm.cu", src, strlen(src), opts, n - 1, "13.0", "sm_90a", k2);
	ck_assert_str_ne(k1, k2);
	for (size_t i = 0; i < n; i++)
		free(opts[i]);

	/* the memory-bound vendor point is the template's defaults: no field macros */
	static const char *const br[] = { "c", "hw" };
	int64_t bv[] = { 64, 100 };
	struct workload w;
	char *cause = NULL;
	op_workload(&w, "bias_relu_add", "bfloat16", br, bv, 2);
	ck_assert_int_eq(cuda_shape_from_workload(&x.shape, &w, &cause), 0);
	cuda_space_init(&sp, &x);
	space_vendor_point(&sp, 0, &c);
	n = cuda_config_options(&sp, &c, "sm_80", opts);
	ck_assert_uint_eq(n, 4);
	ck_assert_str_eq(opts[3], "-DRESIDUAL=1");
	for (size_t i = 0; i < n; i++)
		free(opts[i]);
	free(w.shape);

	char arch[16];
	cuda_arch_name(9, 0, arch);
	ck_assert_str_eq(arch, "sm_90a");
	cuda_arch_name(8, 6, arch);
	ck_assert_str_eq(arch, "sm_86");
}
END_TEST

static char *tmpl_dir; /* kernels/cuda/templates (main: $HARNESS_KERNEL_DIR or the build's) */
static int have_templates; /* tmpl_dir holds the templates */

/* A template's include lines become the headers' text (nested, each header once), so NVRTC
 * needs no include path, and the cubin cache key over that text changes with any header. */
static void put(const char *name, const char *text)
{
	char *path = testutil_path(name);
	ck_assert_int_eq(util_write_file(path, text, strlen(text), 0644), 0);
	free(path);
}

/* The launch's use_tma flags (gemm-config.h) are the values wgmma.cuh reads. */
START_TEST(test_use_tma_flags)
{
	char *text = NULL, *cause = NULL, *want;
	size_t len = 0;
	if (!have_templates)
		return;
	ck_assert_msg(!cuda_template_read(tmpl_dir, "wgmma.cuh", &text, &len, &cause), "%s",
		      cause ? cause : "");
	want = xasprintf("#define WG_CLUSTER_M %d\n", CUDA_USE_TMA_CLUSTER_M);
	ck_assert_msg(strstr(text, want), "wgmma.cuh lacks '%s'", want);
	free(want);
	want = xasprintf("#define WG_RES_TMA %d\n", CUDA_USE_TMA_RES);
	ck_assert_msg(strstr(text, want), "wgmma.cuh lacks '%s'", want);
	free(want);
	want = xasprintf("#define WG_CLUSTER_CM_SHIFT %d\n", CUDA_USE_TMA_CM_SHIFT);
	ck_assert_msg(strstr(text, want), "wgmma.cuh lacks '%s'", want);
	free(want);
	free(text);
}
END_TEST

static void key_of(const char *name, char out[65])
{
	char *text = NULL, *cause = NULL, *opts[] = { "--gpu-architecture=sm_90a" };
	size_t len = 0;
	ck_assert_msg(!cuda_template_read(testutil_scratch, name, &text, &len, &cause), "%s",
		      cause ? cause : "");
	cuda_cache_key(name, text, len, opts, 1, "13.0", "sm_90a", out);
	free(text);
}

START_TEST(test_template_include)
{
	char *text = NULL, *cause = NULL;
	size_t len = 0;
	char k1[65], k2[65], k3[65];

	testutil_scratch_setup();
	put("t.cu", "// t\n#include \"a.cuh\" /* a and b */\nint x;\n#include \"b.cuh\"\n"
		    "#include <cuda.h>\n");
	put("a.cuh", "#include \"b.cuh\"\nint a;"); /* no final newline: one is added */
	put("b.cuh", "int b = 2.385;\n");
	ck_assert_msg(!cuda_template_read(testutil_scratch, "t.cu", &text, &len, &cause), "%s",
		      cause ? cause : "");
	/* b.cuh once (where a.cuh includes it), a system include left to NVRTC */
	ck_assert_str_eq(text, "// t\nint b = 2.385;\nint a;\nint x;\n#include <cuda.h>\n");
	ck_assert_uint_eq(len, strlen(text));
	free(text);

	key_of("t.cu", k1);
	key_of("t.cu", k2);
	ck_assert_str_eq(k1, k2);
	put("b.cuh", "int b = 2.386;\n"); /* a nested header, same length */
	key_of("t.cu", k2);
	ck_assert_str_ne(k1, k2);
	put("a.cuh", "#include \"b.cuh\"\nint c;");
	key_of("t.cu", k3);
	ck_assert_str_ne(k2, k3);

	/* a header that is not there names the template, the including file and its line */
	put("u.cu", "int u;\n#include \"a.cuh\"\n");
	put("a.cuh", "int a;\n\n#include \"missing.cuh\"\n");
	testutil_stderr_begin();
	ck_assert_int_eq(cuda_template_read(testutil_scratch, "u.cu", &text, &len, &cause), -1);
	free(testutil_stderr_end());
	ck_assert_ptr_nonnull(cause);
	ck_assert_msg(strstr(cause, "'u.cu'") && strstr(cause, "'a.cuh':3") &&
			      strstr(cause, "missing.cuh"),
		      "%s", cause);
	free(cause);

	/* the shipped templates: every include line spliced, each header once */
	for (int op = 0; have_templates && op < CUDA_NOPS; op++) {
		ck_assert_msg(!cuda_template_read(tmpl_dir, cuda_op_template(op), &text, &len,
						  &cause),
			      "%s", cause ? cause : "");
		ck_assert_msg(!strstr(text, "\n#include \""), "%s", cuda_op_template(op));
		char *d = strstr(text, "#define DTYPE_CUH");
		ck_assert_msg(d && !strstr(d + 1, "#define DTYPE_CUH"), "%s", cuda_op_template(op));
		free(text);
	}
	testutil_scratch_teardown();
}
END_TEST

START_TEST(test_halves)
{
	static const float v[] = { 0.0f, 1.0f, -2.5f, 0.333333f, 65504.0f, 6.1e-5f, 1e-7f };
	for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
		float h = cuda_f16_to_f32(cuda_f32_to_f16(v[i]));
		ck_assert(fabs(h - v[i]) <= fabs(v[i]) * 0x1p-11 + 0x1p-24);
		float b = cuda_bf16_to_f32(cuda_f32_to_bf16(v[i]));
		ck_assert(fabs(b - v[i]) <= fabs(v[i]) * 0x1p-8);
	}
	ck_assert_uint_eq(cuda_f32_to_f16(1.0f), 0x3c00);
	ck_assert_uint_eq(cuda_f32_to_f16(1e6f), 0x7c00);       /* overflow: inf */
	ck_assert_uint_eq(cuda_f32_to_f16(1.0f + 0x1p-11f), 0x3c00); /* tie to even */
	ck_assert_uint_eq(cuda_f32_to_bf16(1.0f), 0x3f80);
	ck_assert(isnan(cuda_f16_to_f32(0xffff)));  /* the poison */
	ck_assert(isnan(cuda_bf16_to_f32(0xffff)));
	/* TF32 (10 mantissa bits), to the nearest with ties away from zero, as cvt.rna */
	ck_assert(cuda_tf32_round(1.0f) == 1.0f);
	ck_assert(cuda_tf32_round(1.0f + 0x1p-11f) == 1.0f + 0x1p-10f);   /* a tie: away */
	ck_assert(cuda_tf32_round(-1.0f - 0x1p-11f) == -1.0f - 0x1p-10f);
	ck_assert(cuda_tf32_round(1.0f + 0x1p-11f - 0x1p-23f) == 1.0f);   /* below the tie */
	ck_assert(cuda_tf32_round(1.0f + 0x1p-10f + 0x1p-12f) == 1.0f + 0x1p-10f);
	ck_assert(cuda_tf32_round(0.333333f) == 0x1.554p-2f);
	ck_assert(isinf(cuda_tf32_round(FLT_MAX)));                      /* past the largest TF32 */
	ck_assert(isinf(cuda_tf32_round(-INFINITY)) && cuda_tf32_round(-INFINITY) < 0);
	ck_assert(isnan(cuda_tf32_round(NAN)));
	for (size_t i = 0; i < ARRAY_SIZE(v); i++) { /* a TF32 value is its own rounding */
		float t = cuda_tf32_round(v[i]);
		ck_assert(cuda_tf32_round(t) == t && fabs(t - v[i]) <= fabs(v[i]) * 0x1p-11);
	}
}
END_TEST

/* The reference of a small GEMM and the check: exact output passes, a perturbed one fails
 * by the right amount, a NaN (an element never written) is INFINITY. */
START_TEST(test_reference_check)
{
	struct cuda_space_ctx x;
	gemm_ctx(&x, 17, 9, 33, "float32", 0);
	struct cuda_sizes z;
	cuda_shape_sizes(&x.shape, &z);
	uint64_t rng = 2385;
	float *a = xmalloc(z.in0 * 4), *b = xmalloc(z.in1 * 4), *y = xmalloc(z.out * 4);
	cuda_fill_uniform(a, CUDA_F32, z.in0, &rng);
	cuda_fill_uniform(b, CUDA_F32, z.in1, &rng);
	struct cuda_ref ref;
	cuda_ref_compute(&x.shape, a, b, NULL, &ref);
	ck_assert_uint_eq(ref.n, z.out);
	for (size_t i = 0; i < z.out; i++) {
		double s = 0;
		for (int p = 0; p < 33; p++)
			s += (double)a[i / 9 * 33 + p] * b[i % 9 * 33 + p];
		y[i] = (float)s;
	}
	size_t bad;
	double e = cuda_ref_error(&ref, y, CUDA_F32, z.out, &bad);
	ck_assert(e < 1e-7);
	ck_assert_uint_eq(bad, SIZE_MAX);
	y[5] *= 1.01f;
	e = cuda_ref_error(&ref, y, CUDA_F32, z.out, &bad);
	ck_assert(e > 1e-5 && e < 1e-2);
	memset(&y[100], 0xff, 4);
	ck_assert(isinf(cuda_ref_error(&ref, y, CUDA_F32, z.out, &bad)));
	ck_assert_uint_eq(bad, 100);
	cuda_ref_release(&ref);
	ck_assert(cuda_tolerance(&x.shape) == 1e-5);
	free(a);
	free(b);
	free(y);
}
END_TEST

/* The roofline estimate (docs/kernels.md): an H100's figures filled in by hand (no GPU),
 * and the orderings the model must give on cases whose answer is known. */
static double est(const struct cuda_roofline *r, int64_t m, int64_t n, int64_t k,
		  const char *dtype, int tf32, int64_t bm, int64_t bn, int64_t bk, int64_t sk)
{
	struct cuda_space_ctx x;
	struct config c;
	gemm_ctx(&x, m, n, k, dtype, tf32);
	memset(&c, 0, sizeof(c));
	int64_t v[] = { bm, bn, bk, 8, 4, sk, 8 }; /* BLOCK_M..GROUP_M, the space's order */
	memcpy(c.val, v, sizeof(v));
	return cuda_estimate_ns(r, &x, &c);
}

START_TEST(test_roofline_estimate)
{
	struct cuda_roofline r = { .sms = 132, .clock_ghz = 1.83, .mem_bytes_ns = 3352.6 };
	ck_assert_int_eq(cuda_roofline_rates(9, 0, &r), 0);
	ck_assert_int_eq(cuda_roofline_rates(6, 1, &r), -1); /* not in the table: no model */
	/* H100 SXM5's data sheet peak, dense float16: 989 TFLOP/s */
	ck_assert_double_eq_tol(r.tensor_flops_clk[CUDA_F16] * r.sms * r.clock_ghz / 1e3, 989.5,
				0.5);
	/* compute-bound (FFMA float32) and exact: 132 tiles of 128 x 128 in one wave */
	double one = est(&r, 128 * 12, 128 * 11, 8192, "float32", 0, 128, 128, 32, 1);
	ck_assert_double_eq_tol(one, 2.0 * 128 * 128 * 8192 / (256 * 1.83), 1e-6);
	/* one more column of tiles: 144 CTAs, two waves, twice the time */
	double two = est(&r, 128 * 12, 128 * 11 + 1, 8192, "float32", 0, 128, 128, 32, 1);
	ck_assert_double_eq_tol(two / one, 2.0, 1e-9);
	/* big tiles beat small ones on a large square GEMM (operand traffic) */
	double big = est(&r, 4096, 4096, 4096, "float16", 0, 128, 256, 64, 1);
	double small = est(&r, 4096, 4096, 4096, "float16", 0, 32, 32, 64, 1);
	ck_assert_double_gt(small, 2 * big);
	/* memory-bound small tiles: A read 4096/32 times, B 4096/32 times, C once */
	ck_assert_double_eq_tol(small, 2.0 * (4096.0 * 4096 * 128 * 2 + 4096.0 * 4096) /
					       r.mem_bytes_ns, 1e-3);
	/* one tile, deep k: split-K fills the machine and wins despite its partials */
	double sk1 = est(&r, 128, 128, 65536, "float16", 0, 128, 128, 64, 1);
	double sk8 = est(&r, 128, 128, 65536, "float16", 0, 128, 128, 64, 8);
	ck_assert_double_lt(sk8, sk1 / 4);
	/* but not on a GEMM that already fills every SM in whole waves */
	ck_assert_double_ge(est(&r, 128 * 12, 128 * 11, 8192, "float32", 0, 128, 128, 32, 2),
			    one);
	/* FFMA float32 is slower than TF32 at the same config (8x the compute; TF32 is
	 * memory-bound here) */
	double ffma = est(&r, 4096, 4096, 4096, "float32", 0, 128, 128, 32, 1);
	double tf = est(&r, 4096, 4096, 4096, "float32", 1, 128, 128, 32, 1);
	ck_assert_double_gt(ffma, 1.5 * tf);
	/* a vendor point, and a device without a bandwidth, have no estimate */
	struct cuda_space_ctx x;
	struct config v = { .vendor = 1 };
	gemm_ctx(&x, 64, 64, 64, "float16", 0);
	ck_assert(isnan(cuda_estimate_ns(&r, &x, &v)));
	struct cuda_roofline none = r;
	none.mem_bytes_ns = 0;
	ck_assert(isnan(est(&none, 64, 64, 64, "float16", 0, 64, 64, 64, 1)));
	/* a memory-bound op: the bytes it must move over the bandwidth, whatever the config */
	static const char *const pool[] = { "c", "h", "w", "r", "stride", "pad" };
	int64_t pv[] = { 64, 112, 112, 3, 2, 1 };
	struct workload w;
	char *cause = NULL;
	op_workload(&w, "maxpool", "float16", pool, pv, 6);
	ck_assert_msg(!cuda_shape_from_workload(&x.shape, &w, &cause), "%s", cause);
	free(w.shape);
	struct config p;
	memset(&p, 0, sizeof(p));
	p.val[0] = 128;
	p.val[1] = 8;
	p.val[2] = 1;
	ck_assert_double_eq_tol(cuda_estimate_ns(&r, &x, &p),
				cuda_shape_bytes(&x.shape) / r.mem_bytes_ns, 1e-9);
}
END_TEST

static void conv_ctx(struct cuda_space_ctx *x, const char *op, const char *dtype, int tf32,
		     int64_t batch, int64_t c, int64_t h, int64_t w, int64_t k, int64_t r,
		     int64_t stride, int64_t pad)
{
	static const char *const names[] = { "c", "h", "w", "k", "r", "stride", "pad" };
	int64_t v[] = { c, h, w, k, r, stride, pad };
	struct workload wl;
	char *cause = NULL;
	op_workload(&wl, op, dtype, names, v, 7);
	wl.tf32 = tf32;
	wl.batch = batch;
	ck_assert_msg(!cuda_shape_from_workload(&x->shape, &wl, &cause), "%s", cause);
	free(wl.shape);
	cuda_devinfo_default(&x->dev);
	x->conv_maps = 0;
}

/* ResNet-50's convolutions at batch 32, 224x224 (kernels/cpu/models.c's structure): c, h,
 * k, r, stride, pad; h = w. */
static const int64_t r50_convs[][6] = {
	{ 3, 224, 64, 7, 2, 3 },    { 64, 56, 64, 1, 1, 0 },    { 64, 56, 64, 3, 1, 1 },
	{ 64, 56, 256, 1, 1, 0 },   { 256, 56, 64, 1, 1, 0 },   { 256, 56, 128, 1, 1, 0 },
	{ 128, 56, 128, 3, 2, 1 },  { 128, 28, 512, 1, 1, 0 },  { 256, 56, 512, 1, 2, 0 },
	{ 512, 28, 128, 1, 1, 0 },  { 128, 28, 128, 3, 1, 1 },  { 512, 28, 256, 1, 1, 0 },
	{ 256, 28, 256, 3, 2, 1 },  { 256, 14, 1024, 1, 1, 0 }, { 512, 28, 1024, 1, 2, 0 },
	{ 1024, 14, 256, 1, 1, 0 }, { 256, 14, 256, 3, 1, 1 },  { 1024, 14, 512, 1, 1, 0 },
	{ 512, 14, 512, 3, 2, 1 },  { 512, 7, 2048, 1, 1, 0 },  { 1024, 14, 2048, 1, 2, 0 },
	{ 2048, 7, 512, 1, 1, 0 },  { 512, 7, 512, 3, 1, 1 },
};

/* Two configs' module options o1 (n1) and o2 (n2) the same, so one module serves both, none
 * naming `absent` (NULL: no such check); frees both. */
static void same_module(char **o1, size_t n1, char **o2, size_t n2, const char *absent)
{
	ck_assert_uint_eq(n1, n2);
	for (size_t k = 0; k < n1; k++) {
		if (absent)
			ck_assert_ptr_null(strstr(o1[k], absent));
		ck_assert_str_eq(o1[k], o2[k]);
		free(o1[k]);
		free(o2[k]);
	}
}

/* STREAM_K: an eighth field of the conv space; valid on the wgmma path alone, without
 * SPLIT_K, where whole tiles leave SMs idle (3: where they fill at most half); 1, 2 and 3
 * (the grid) compile the same module. */
START_TEST(test_conv_stream_k)
{
	struct cuda_space_ctx x;
	struct space sp;
	struct config c;
	const char *why = NULL;
	char *o1[CUDA_MAX_OPTS], *o2[CUDA_MAX_OPTS];
	/* ResNet-50's 512 -> 512 3x3 at 7x7: m 1568, n 512; 64 x 128 tiles: 100 on 132 SMs */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 32, 512, 7, 7, 512, 3, 1, 1);
	cuda_space_init(&sp, &x);
	ck_assert_uint_eq(sp.nfields, 12);
	ck_assert_str_eq(sp.fields[7].name, "STREAM_K");
	sp.heuristic(&sp, &c);
	ck_assert_int_eq(val_of(&sp, &c, "STREAM_K"), 0);
	c.val[0] = 64, c.val[1] = 128, c.val[2] = 64, c.val[3] = 4, c.val[4] = 4, c.val[5] = 1;
	c.val[7] = 1;
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	size_t n1 = cuda_config_options(&sp, &c, "sm_90a", o1);
	c.val[7] = 2;
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	size_t n2 = cuda_config_options(&sp, &c, "sm_90a", o2);
	ck_assert(has_opt(o1, n1, "-DSTREAM_K=1"));
	same_module(o1, n1, o2, n2, NULL);
	/* 3 (runs of equal length a tile): not where the 100 tiles are over half the SMs */
	c.val[7] = 3;
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "STREAM_K 3 where the tiles are more than half the SMs (a run a "
			      "tile: whole tiles)");
	/* 128 x 128, 8 warps: 52 tiles, two runs each; the same module as 1 */
	c.val[0] = 128, c.val[3] = 8;
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	char *o3[CUDA_MAX_OPTS];
	size_t n3 = cuda_config_options(&sp, &c, "sm_90a", o3);
	c.val[7] = 1;
	n2 = cuda_config_options(&sp, &c, "sm_90a", o2);
	same_module(o3, n3, o2, n2, NULL);
	c.val[0] = 64, c.val[3] = 4;
	/* tests/data/cuda/conv.toml's sk3-f16 (64 -> 128, 3x3 at 14 x 14, batch 8: m 1568, 9
	 * k-tiles), whose exhaustive walk cuda-conv.sh counts on the GPU: STREAM_K 3 points */
	{
		struct cuda_space_ctx y;
		struct space sq;
		struct config d;
		size_t n3pts = 0;
		conv_ctx(&y, "conv2d_bias_relu", "float16", 0, 8, 64, 14, 14, 128, 3, 1, 1);
		y.conv_maps = 1;
		cuda_space_init(&sq, &y);
		for (size_t i = 0; i < space_grid_size(&sq); i++)
			n3pts += !space_grid_point(&sq, i, &d) && space_contains(&sq, &d) &&
				 val_of(&sq, &d, "STREAM_K") == 3;
		ck_assert_msg(n3pts >= 2, "sk3-f16: %zu STREAM_K 3 points", n3pts);
	}
	/* with SPLIT_K; off the wgmma path (a 32-wide k step in 16 bits) */
	c.val[5] = 2;
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "STREAM_K with SPLIT_K (stream-K splits k itself)");
	c.val[5] = 1, c.val[2] = 32;
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "STREAM_K needs the wgmma path");
	/* 128 x 256 tiles, 8 warps: 13 x 2 = 26 tiles, still idle SMs; two blocks do not fit
	 * (3 stages of 48 KiB) */
	c.val[0] = 128, c.val[1] = 256, c.val[2] = 64, c.val[3] = 8, c.val[4] = 3, c.val[7] = 1;
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	c.val[7] = 2;
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "STREAM_K 2 when two blocks do not fit an SM's shared memory");
	/* not on the 1x1 TMA path (2048 -> 512 at 7x7, the same tiles) */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 32, 2048, 7, 7, 512, 1, 1, 0);
	cuda_space_init(&sp, &x);
	c.val[0] = 64, c.val[1] = 128, c.val[2] = 64, c.val[3] = 4, c.val[4] = 4, c.val[5] = 1;
	c.val[6] = 8, c.val[7] = 1;
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "STREAM_K on a 1x1 convolution's TMA path (measured 1.1-1.5x "
			      "slower there)");
	/* whole waves: 64x56x56 -> 64, 3x3: 100352 / 128 = 784 tiles of 128 x 64, 5.9 waves of
	 * 132 (99% of their capacity) */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 32, 64, 56, 56, 64, 3, 1, 1);
	cuda_space_init(&sp, &x);
	sp.heuristic(&sp, &c);
	c.val[0] = 128, c.val[1] = 64, c.val[2] = 64, c.val[3] = 4, c.val[4] = 4, c.val[5] = 1;
	c.val[7] = 0;
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	c.val[7] = 1;
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "STREAM_K when whole tiles keep the SMs busy (85% or more of the "
			      "last wave)");
}
END_TEST

/* CLUSTER: the ninth field of the conv space, the launch's alone (clusters of two blocks
 * sharing A by TMA multicast, of four or eight sharing both operands, wgmma.cuh): no macro,
 * so 1, 2, 4 and 8 compile one module; valid on the wgmma path where X has a tensor map (a
 * 1x1 GEMM or im2col), without SPLIT_K, with two columns of tiles or more (4 and 8: as many
 * rows and columns as the cluster has blocks along m and n); a text without it (written
 * before it) takes CLUSTER=1, and every text carries it. */
START_TEST(test_conv_cluster)
{
	struct cuda_space_ctx x;
	struct space sp;
	struct config c, d;
	const char *why = NULL;
	char *cause = NULL;
	char *o1[CUDA_MAX_OPTS], *o2[CUDA_MAX_OPTS];
	struct sbuf sb;
	/* ResNet-50's 512 -> 512 3x3 at 7x7 (im2col: C a multiple of BLOCK_K) */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 32, 512, 7, 7, 512, 3, 1, 1);
	cuda_space_init(&sp, &x);
	ck_assert_uint_eq(sp.nfields, 12);
	ck_assert_str_eq(sp.fields[8].name, "CLUSTER");
	sp.heuristic(&sp, &c);
	ck_assert_int_eq(val_of(&sp, &c, "CLUSTER"), 1);
	c.val[0] = 128, c.val[1] = 128, c.val[2] = 64, c.val[3] = 8, c.val[4] = 4, c.val[5] = 1;
	c.val[7] = 0, c.val[8] = 1;
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	size_t n1 = cuda_config_options(&sp, &c, "sm_90a", o1);
	c.val[8] = 2;
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	size_t n2 = cuda_config_options(&sp, &c, "sm_90a", o2);
	same_module(o1, n1, o2, n2, "-DCLUSTER=");
	c.val[7] = 1; /* with stream-K */
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	sbuf_init(&sb);
	config_format(&sp, &c, &sb);
	ck_assert_str_eq(sb.buf, "BLOCK_M=128,BLOCK_N=128,BLOCK_K=64,WARPS=8,STAGES=4,SPLIT_K=1,"
				 "GROUP_M=8,STREAM_K=1,CLUSTER=2,RES_TMA=0,CLUSTER_K=1,SWAP_AB=0");
	sbuf_release(&sb);
	/* a text from before the field: CLUSTER=1 */
	ck_assert_msg(!config_parse(&sp, "BLOCK_M=128,BLOCK_N=128,BLOCK_K=64,WARPS=8,STAGES=4,"
					 "SPLIT_K=1,GROUP_M=8,STREAM_K=1", &d, &cause), "%s", cause);
	ck_assert_int_eq(val_of(&sp, &d, "CLUSTER"), 1);
	ck_assert(config_parse(&sp, "BLOCK_M=128,BLOCK_N=128,BLOCK_K=64,WARPS=8,STAGES=4,"
				    "SPLIT_K=1,GROUP_M=8,STREAM_K=1,CLUSTER=3", &d, &cause));
	ck_assert_ptr_nonnull(strstr(cause, "CLUSTER"));
	free(cause);
	cause = NULL;
	/* the rules */
	c.val[7] = 0, c.val[0] = 64, c.val[1] = 128, c.val[3] = 4, c.val[5] = 2;
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "CLUSTER with SPLIT_K");
	c.val[5] = 1, c.val[1] = 256, c.val[3] = 8, c.val[0] = 128, c.val[4] = 3;
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why); /* two columns of 256 */
	c.val[2] = 32, c.val[1] = 128, c.val[3] = 4, c.val[0] = 128;
	ck_assert(!space_check(&sp, &c, &why)); /* a 32-wide k step in 16 bits: mma.sync */
	ck_assert_str_eq(why, "CLUSTER needs the wgmma path");
	/* one column of tiles: 64 channels out */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 32, 64, 56, 56, 64, 3, 1, 1);
	cuda_space_init(&sp, &x);
	c.val[0] = 128, c.val[1] = 64, c.val[2] = 64, c.val[3] = 4, c.val[4] = 4;
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "CLUSTER with one column of tiles (nothing to share A with)");
	/* the stem (3 channels: space-to-depth, then a gather) has no map for X */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 32, 3, 224, 224, 64, 7, 2, 3);
	cuda_space_init(&sp, &x);
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_msg(strstr(why, "CLUSTER needs X read by a tensor map"), "%s", why);
	/* a 1x1 GEMM: X is a plain matrix */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 32, 2048, 7, 7, 512, 1, 1, 0);
	cuda_space_init(&sp, &x);
	c.val[1] = 128;
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	/* two-dimensional clusters: at 64 x 128 (25 rows of tiles, 4 columns) 4 (2 x 2) and 8
	 * (4 x 2: 4 along m, BLOCK_N the longer side) both fit, in the same module as 1 */
	c.val[0] = 64, c.val[3] = 4;
	for (int64_t cl = 4; cl <= 8; cl *= 2) {
		c.val[8] = 1;
		n1 = cuda_config_options(&sp, &c, "sm_90a", o1);
		c.val[8] = cl;
		ck_assert_msg(space_check(&sp, &c, &why), "CLUSTER=%d: %s", (int)cl, why);
		n2 = cuda_config_options(&sp, &c, "sm_90a", o2);
		same_module(o1, n1, o2, n2, "-DCLUSTER=");
	}
	/* 256 x 128 over 256 channels: two columns of tiles; 8 is 2 x 4 there (BLOCK_M the
	 * longer side), more columns than the tiles have; 4 (2 x 2) fits */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 32, 256, 14, 14, 256, 3, 1, 1);
	cuda_space_init(&sp, &x);
	c.val[0] = 256, c.val[1] = 128, c.val[3] = 8, c.val[4] = 3, c.val[8] = 8;
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why,
			 "CLUSTER 4 or 8 with fewer columns of tiles than the cluster's blocks along n");
	c.val[8] = 4;
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	/* one image of 7 x 7: one row of 64-pixel tiles, where 2 x 2 needs two */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 1, 512, 7, 7, 512, 3, 1, 1);
	cuda_space_init(&sp, &x);
	c.val[0] = 64, c.val[1] = 128, c.val[3] = 4, c.val[4] = 4;
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why,
			 "CLUSTER 4 or 8 with fewer rows of tiles than the cluster's blocks along m");
	c.val[8] = 2;
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
}
END_TEST

/* Point c of the conv space (its ten fields in cuda_conv_fields' order; GROUP_M 8). */
static void conv_point(struct config *c, int64_t bm, int64_t bn, int64_t bk, int64_t warps,
		       int64_t stages, int64_t split, int64_t sk, int64_t cl, int64_t rt)
{
	/* (GROUP_M 8, CLUSTER_K 1) */
	const int64_t v[] = { bm, bn, bk, warps, stages, split, 8, sk, cl, rt, 1 };
	memset(c, 0, sizeof(*c));
	memcpy(c->val, v, sizeof(v));
}

/* BLOCK_N 112: on the wgmma path alone, where 112-wide tiles fill the SMs' waves by 5 points
 * more than 64 and 128 do (ResNet-50's 2048 -> 512 1x1 at 7 x 7, batch 32: 64 x 112 makes 125
 * tiles for 132 SMs, 64 x 128 100), without RES_TMA (no whole 128-byte atoms in 16 bits),
 * in clusters only where each block's share of B is whole 8-row atoms. */
START_TEST(test_conv_bn112)
{
	struct cuda_space_ctx x;
	struct space sp;
	struct config c;
	const char *why = NULL;
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 32, 2048, 7, 7, 512, 1, 1, 0);
	cuda_space_init(&sp, &x);
	conv_point(&c, 64, 112, 64, 4, 8, 1, 0, 1, 0);
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	c.val[8] = 4; /* 2 x 2: 56 rows of B a block */
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	c.val[8] = 8; /* 4 x 2: 28 rows of B a block */
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "CLUSTER whose blocks' shares of the tile are not whole 8-row "
			      "swizzle atoms");
	/* deeper rings where the tiles are one wave: 10 stages of 64 x 112 fill the 227 KiB
	 * exactly, 9 of 64 x 128 fit and 10 do not; above 8 only on the wgmma path (the
	 * launch's depth there; three warpgroups' 192-row stages never fit 9) */
	for (int64_t st = 9; st <= 10; st++) {
		c.val[4] = st, c.val[8] = 1;
		ck_assert_msg(space_check(&sp, &c, &why), "STAGES=%d: %s", (int)st, why);
	}
	conv_point(&c, 64, 128, 64, 4, 9, 1, 0, 1, 0);
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	c.val[4] = 10;
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_msg(strstr(why, "shared memory"), "%s", why);
	conv_point(&c, 64, 64, 32, 4, 9, 1, 0, 1, 0); /* mma.sync: its depth a macro */
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "STAGES must be 2..8 (2..12 on the wgmma path)");
	conv_point(&c, 128, 112, 64, 8, 4, 1, 0, 1, 0); /* 13 x 5 = 65 tiles, 64's 104 */
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "pruned: BLOCK_N 112 where its tiles fill the SMs' waves no better "
			      "than 64's and 128's");
	conv_point(&c, 128, 112, 32, 4, 4, 1, 0, 1, 0); /* a 32-wide k step: mma.sync */
	ck_assert(!space_check(&sp, &c, &why)); /* (its warp tiles already refuse 112) */
	/* a residual op: RES_TMA needs whole 128-byte atoms of the tile's row */
	conv_ctx(&x, "conv2d_bias_relu_add", "float16", 0, 32, 2048, 7, 7, 512, 1, 1, 0);
	cuda_space_init(&sp, &x);
	conv_point(&c, 64, 112, 64, 4, 4, 1, 0, 1, 1);
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "RES_TMA with a BLOCK_N of no whole 128-byte atoms (112 in 16 bits)");
	c.val[9] = 0;
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	/* 56 x 56 at batch 32: 784 rows of tiles, many waves whatever the width */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 32, 64, 56, 56, 256, 1, 1, 0);
	cuda_space_init(&sp, &x);
	conv_point(&c, 128, 112, 64, 8, 4, 1, 0, 1, 0);
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_msg(strstr(why, "BLOCK_N 112 where its tiles fill"), "%s", why);
}
END_TEST

/* BLOCK_K 128 (two atoms a stage): in 16 bits on the wgmma path where X has a tensor map
 * (im2col: C a multiple of 128), where the whole tiles are one wave or less; stages as
 * shared memory holds them. */
START_TEST(test_conv_bk128)
{
	struct cuda_space_ctx x;
	struct space sp;
	struct config c;
	const char *why = NULL;
	/* ResNet-50's 512-channel 3x3 at 7 x 7: 100 tiles of 64 x 128 */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 32, 512, 7, 7, 512, 3, 1, 1);
	cuda_space_init(&sp, &x);
	conv_point(&c, 64, 128, 128, 4, 4, 1, 0, 1, 0);
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	c.val[4] = 8; /* 8 stages of 48 KiB */
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_msg(strstr(why, "shared memory"), "%s", why);
	conv_point(&c, 128, 128, 128, 8, 3, 1, 3, 1, 0); /* two warpgroups, stream-K */
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	/* TF32: untried, pruned (64 x 64, 3 stages of 64 KiB: shared memory holds it) */
	conv_ctx(&x, "conv2d_bias_relu", "float32", 1, 32, 512, 7, 7, 512, 3, 1, 1);
	cuda_space_init(&sp, &x);
	conv_point(&c, 64, 64, 128, 4, 3, 1, 0, 1, 0);
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_msg(strstr(why, "BLOCK_K 128 off 16-bit wgmma with X by tensor map"), "%s", why);
	/* a 3x3 with C = 64: no k-tile of 128 inside one tap, so no im2col map */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 8, 64, 14, 14, 64, 3, 1, 1);
	cuda_space_init(&sp, &x);
	conv_point(&c, 64, 64, 128, 4, 4, 1, 0, 1, 0);
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_msg(strstr(why, "BLOCK_K 128 off 16-bit wgmma with X by tensor map"), "%s", why);
	/* 256 -> 64 1x1 at 56 x 56: 1,568 tiles of 64 x 64, many waves */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 32, 256, 56, 56, 64, 1, 1, 0);
	cuda_space_init(&sp, &x);
	conv_point(&c, 64, 64, 128, 4, 4, 1, 0, 1, 0);
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_msg(strstr(why, "BLOCK_K 128 where the tiles are more than one wave"), "%s",
		      why);
	c.val[2] = 64;
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	/* 1024 -> 256 1x1 at 14 x 14: 192 x 64 on three warpgroups, 132 tiles for 132 SMs */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 32, 1024, 14, 14, 256, 1, 1, 0);
	cuda_space_init(&sp, &x);
	conv_point(&c, 192, 64, 128, 12, 3, 1, 0, 1, 0);
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
}
END_TEST

/* CLUSTER_K 2 (a pair of blocks splits each tile's k-tiles, summing through a slot of the
 * workspace): a macro of its own module; on the wgmma path with X by a tensor map, alone
 * (no stream-K, split-K, CLUSTER or RES_TMA), where the tiles' pairs fit one wave, at any
 * depth (the sums no longer pass through the B stages, stop 70). */
START_TEST(test_conv_cluster_k)
{
	struct cuda_space_ctx x;
	struct space sp;
	struct config c;
	const char *why = NULL;
	char *o1[CUDA_MAX_OPTS], *o2[CUDA_MAX_OPTS];
	/* ResNet-50's 512-channel 3x3 at 7 x 7: 52 tiles of 128 x 128, 104 blocks */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 32, 512, 7, 7, 512, 3, 1, 1);
	x.conv_maps = 1; /* the backend's default (cuda_conv_maps) */
	cuda_space_init(&sp, &x);
	ck_assert_str_eq(sp.fields[10].name, "CLUSTER_K");
	conv_point(&c, 128, 128, 128, 8, 3, 1, 0, 1, 0);
	size_t n1 = cuda_config_options(&sp, &c, "sm_90a", o1);
	c.val[10] = 2;
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	size_t n2 = cuda_config_options(&sp, &c, "sm_90a", o2);
	ck_assert(has_opt(o1, n1, "-DCLUSTER_K=1"));
	ck_assert(has_opt(o2, n2, "-DCLUSTER_K=2"));
	c.val[2] = 64, c.val[4] = 3; /* 3 stages of 64 (refused while the sums used B's) */
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	c.val[2] = 128, c.val[7] = 3; /* with stream-K */
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "CLUSTER_K splits k alone (no STREAM_K, SPLIT_K, CLUSTER or "
			      "RES_TMA)");
	c.val[7] = 0;
	/* the cell's maps off (HARNESS_CUDA_CONV_IM2COL=0 or TMA_ONLY=0): X gathered, no pair */
	x.conv_maps = 0;
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "CLUSTER_K needs the wgmma path with X read by a tensor map (a 1x1 "
			      "GEMM, or im2col; the cell's maps on)");
	x.conv_maps = 1;
	/* 64 x 128: 100 tiles, 200 blocks */
	conv_point(&c, 64, 128, 128, 4, 4, 1, 0, 1, 0);
	c.val[10] = 2;
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "CLUSTER_K where the tiles' pairs are more than one wave");
	/* a 3x3 with C = 64 through im2col at BLOCK_K 64: 7 tiles of 64 x 64, 14 blocks */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 2, 64, 14, 14, 64, 3, 1, 1);
	x.conv_maps = 1;
	cuda_space_init(&sp, &x);
	conv_point(&c, 64, 64, 64, 4, 4, 1, 0, 1, 0);
	c.val[10] = 2;
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	/* C = 24: no im2col map */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 2, 24, 14, 14, 64, 3, 1, 1);
	x.conv_maps = 1;
	cuda_space_init(&sp, &x);
	conv_point(&c, 64, 64, 32, 4, 4, 1, 0, 1, 0);
	c.val[10] = 2;
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_msg(strstr(why, "CLUSTER_K needs the wgmma path with X read by a tensor map") ||
			      strstr(why, "redundant"),
		      "%s", why);
	free_opts(o1, n1);
	free_opts(o2, n2);
}
END_TEST

/* SWAP_AB (stop 71: each consumer warpgroup 64 of BLOCK_N as wgmma's m, all BLOCK_M rows as
 * its n): a macro of its own module, on the wgmma path (16-bit, BLOCK_N 64 a consumer
 * warpgroup) at a 1x1 convolution read by tensor maps, whole tiles in one block, no
 * residual, one wave; BLOCK_M 96 and 112 with it alone. */
START_TEST(test_conv_swap_ab)
{
	struct cuda_space_ctx x;
	struct space sp;
	struct config c;
	const char *why = NULL;
	char *o[CUDA_MAX_OPTS];
	/* ResNet-50's 1024 -> 256 1x1 at 14 x 14: 96 x 128 makes 66 x 2 tiles, one wave */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 32, 1024, 14, 14, 256, 1, 1, 0);
	x.conv_maps = 1;
	cuda_space_init(&sp, &x);
	ck_assert_str_eq(sp.fields[11].name, "SWAP_AB");
	conv_point(&c, 96, 128, 64, 8, 4, 1, 0, 1, 0);
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "BLOCK_M 96 and 112 go with SWAP_AB alone (wgmma's n there)");
	c.val[11] = 1;
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	size_t n = cuda_config_options(&sp, &c, "sm_90a", o);
	ck_assert(has_opt(o, n, "-DSWAP_AB=1"));
	ck_assert(has_opt(o, n, "-DWG_TMA_ONLY=1"));
	free_opts(o, n);
	c.val[8] = 2; /* in clusters of two sharing the 96 rows of X */
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	c.val[8] = 1;
	conv_point(&c, 192, 64, 128, 4, 3, 1, 0, 1, 0); /* 33 x 4 tiles, one warpgroup */
	c.val[11] = 1;
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	c.val[3] = 12; /* three warpgroups of 64 rows: not 64 of BLOCK_N each */
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_ptr_nonnull(strstr(why, "SWAP_AB needs the wgmma path"));
	c.val[3] = 4, c.val[9] = 1; /* RES_TMA */
	ck_assert(!space_check(&sp, &c, &why));
	c.val[9] = 0;
	/* refused: more than one wave, a residual op, a 3x3 (im2col), TF32 */
	static const struct {
		const char *op, *dtype;
		int tf32;
		int64_t c, h, k, r, pad, bm, bk, stages;
		const char *why;
	} no[] = {
		{ "conv2d_bias_relu", "float16", 0, 1024, 14, 256, 1, 0, 128, 64, 4,
		  "pruned: SWAP_AB where the tiles are more than one wave (built for the 1x1 "
		  "layers' one-wave tiles)" }, /* 49 x 4 tiles */
		{ "conv2d_bias_relu_add", "float16", 0, 1024, 14, 256, 1, 0, 96, 64, 4,
		  "SWAP_AB without a residual and with K a multiple of 8 (its epilogue's)" },
		{ "conv2d_bias_relu", "float16", 0, 512, 7, 512, 3, 1, 128, 64, 4,
		  "SWAP_AB on a 1x1 convolution's TMA-only path alone (X and the weights by "
		  "tensor maps; the 3x3 layers untried)" },
		{ "conv2d_bias_relu", "float32", 1, 1024, 14, 256, 1, 0, 192, 32, 3,
		  "SWAP_AB needs the wgmma path" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(no); i++) {
		conv_ctx(&x, no[i].op, no[i].dtype, no[i].tf32, 32, no[i].c, no[i].h, no[i].h,
			 no[i].k, no[i].r, 1, no[i].pad);
		x.conv_maps = 1;
		cuda_space_init(&sp, &x);
		conv_point(&c, no[i].bm, 64 * (no[i].bm == 96 ? 2 : 1), no[i].bk,
			   no[i].bm == 96 ? 8 : 4, no[i].stages, 1, 0, 1, 0);
		c.val[11] = 1;
		ck_assert_msg(!space_check(&sp, &c, &why), "case %zu", i);
		ck_assert_msg(strstr(why, no[i].why) != NULL, "case %zu: %s", i, why);
	}
}
END_TEST

/* TMA-only modules (WG_TMA_ONLY, cuda_conv_tma_only): where the backend reads X by a map
 * (the cell's conv_maps) and the shape has one: a plain GEMM's rows, or im2col's C a multiple
 * of BLOCK_K; not off the wgmma path, not without conv_maps (HARNESS_CUDA_CONV_TMA_ONLY=0,
 * IM2COL=0, space-to-depth), not where C leaves no map. */
START_TEST(test_conv_tma_only)
{
	static const struct {
		int64_t c, k, r, stride, pad, bk;
		int maps, want;
	} cases[] = {
		{ 512, 512, 3, 1, 1, 64, 1, 1 }, /* im2col: C a multiple of BLOCK_K */
		{ 512, 512, 3, 1, 1, 64, 0, 0 }, /* the backend keeps the gather */
		{ 512, 2048, 1, 1, 0, 64, 1, 1 }, /* a plain GEMM: X as an M x C matrix */
		{ 256, 512, 1, 2, 0, 64, 1, 1 }, /* 1x1 stride 2: im2col */
		{ 96, 128, 3, 1, 1, 64, 1, 0 },  /* C no multiple of BLOCK_K: no im2col map */
		{ 512, 512, 3, 1, 1, 32, 1, 0 }, /* a 32-wide k step in 16 bits: mma.sync */
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct cuda_space_ctx x;
		struct space sp;
		struct config c;
		struct cuda_gemm_config g;
		const char *why = NULL;
		char *o[CUDA_MAX_OPTS];
		conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 8, cases[i].c, 14, 14, cases[i].k,
			 cases[i].r, cases[i].stride, cases[i].pad);
		x.conv_maps = cases[i].maps;
		cuda_space_init(&sp, &x);
		conv_point(&c, 64, 128, cases[i].bk, 4, 4, 1, 0, 1, 0);
		ck_assert_msg(space_check(&sp, &c, &why), "case %zu: %s", i, why);
		cuda_gemm_config_get(&x, &c, &g);
		ck_assert_int_eq(cuda_conv_tma_only(&x, &g), cases[i].want);
		size_t n = cuda_config_options(&sp, &c, "sm_90a", o);
		ck_assert_msg(has_opt(o, n, "-DWG_TMA_ONLY=1") == cases[i].want, "case %zu", i);
		free_opts(o, n);
	}
}
END_TEST

/* STAGES 8: only where the whole tiles (times SPLIT_K) are at most one a SM, as at the 7x7
 * layers' long k-loops; the same 64 x 128 tiles at 28 x 28 (392 of them) leave it out.  On
 * the wgmma path with 4 or 8 warps the depth is the launch's (WG_RT_STAGES): 8 and 3 share
 * a module; with 12, and off the path, STAGES stays a macro; 2 is no value of the field
 * (wgmma.cuh's rings trap below 3). */
START_TEST(test_conv_stages8)
{
	struct cuda_space_ctx x;
	struct space sp;
	struct config c;
	const char *why = NULL;
	char *o1[CUDA_MAX_OPTS], *o2[CUDA_MAX_OPTS];
	/* ResNet-50's 512 -> 512 3x3 at 7x7: 100 tiles of 64 x 128 on 132 SMs */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 32, 512, 7, 7, 512, 3, 1, 1);
	cuda_space_init(&sp, &x);
	ck_assert_str_eq(sp.fields[4].name, "STAGES");
	conv_point(&c, 64, 128, 64, 4, 8, 1, 0, 1, 0);
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	size_t n1 = cuda_config_options(&sp, &c, "sm_90a", o1);
	ck_assert(has_opt(o1, n1, "-DWG_RT_STAGES=1"));
	c.val[4] = 3;
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	size_t n2 = cuda_config_options(&sp, &c, "sm_90a", o2);
	same_module(o1, n1, o2, n2, "-DSTAGES=");
	c.val[4] = 2; /* (wgmma.cuh traps below 3: no such value in the field) */
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "a value outside its field");
	conv_point(&c, 192, 128, 64, 12, 4, 1, 0, 1, 0); /* three consumer warpgroups: a macro */
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	n1 = cuda_config_options(&sp, &c, "sm_90a", o1);
	ck_assert(has_opt(o1, n1, "-DWGMMA=1") && has_opt(o1, n1, "-DSTAGES=4"));
	ck_assert(!has_opt(o1, n1, "-DWG_RT_STAGES=1"));
	free_opts(o1, n1);
	conv_point(&c, 64, 128, 64, 4, 3, 1, 0, 1, 0);
	c.val[4] = 3, c.val[2] = 32; /* a 32-wide k step in 16 bits: mma.sync, a macro depth */
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	n1 = cuda_config_options(&sp, &c, "sm_90a", o1);
	ck_assert(has_opt(o1, n1, "-DSTAGES=3"));
	ck_assert(!has_opt(o1, n1, "-DWG_RT_STAGES=1"));
	free_opts(o1, n1);
	conv_point(&c, 64, 128, 64, 4, 8, 1, 0, 1, 0);
	c.val[7] = 1; /* with stream-K too */
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	c.val[7] = 0;
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 32, 128, 28, 28, 128, 3, 1, 1);
	cuda_space_init(&sp, &x);
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "STAGES 8 where the tiles are more than one wave of one block an SM");
	c.val[4] = 4;
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
}
END_TEST

/* RES_TMA: the tenth field, the launch's alone (the residual by TMA into shared buffers,
 * wgmma.cuh's wg_res): valid only where there is a residual, on the wgmma path without
 * SPLIT_K, and where the tile's two buffers fit beside the stages (two blocks' worth with
 * STREAM_K 2); the same module as RES_TMA 0; a text without it takes 0. */
START_TEST(test_conv_res_tma)
{
	struct cuda_space_ctx x;
	struct space sp;
	struct config c, d;
	const char *why = NULL;
	char *cause = NULL;
	char *o1[CUDA_MAX_OPTS], *o2[CUDA_MAX_OPTS];
	/* ResNet-50's 128 -> 512 1x1 at 28 x 28 with the residual */
	conv_ctx(&x, "conv2d_bias_relu_add", "float16", 0, 32, 128, 28, 28, 512, 1, 1, 0);
	cuda_space_init(&sp, &x);
	ck_assert_uint_eq(sp.nfields, 12);
	ck_assert_str_eq(sp.fields[9].name, "RES_TMA");
	sp.heuristic(&sp, &c);
	ck_assert_int_eq(val_of(&sp, &c, "RES_TMA"), 0);
	conv_point(&c, 64, 128, 64, 4, 3, 1, 0, 1, 0);
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	size_t n1 = cuda_config_options(&sp, &c, "sm_90a", o1);
	c.val[9] = 1;
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	size_t n2 = cuda_config_options(&sp, &c, "sm_90a", o2);
	ck_assert(has_opt(o1, n1, "-DWG_RES=1")); /* a residual op's modules carry its code */
	same_module(o1, n1, o2, n2, "RES_TMA");
	/* a text from before the field: RES_TMA=0 */
	ck_assert_msg(!config_parse(&sp, "BLOCK_M=64,BLOCK_N=128,BLOCK_K=64,WARPS=4,STAGES=3,"
					 "SPLIT_K=1,GROUP_M=8,STREAM_K=0,CLUSTER=1", &d, &cause), "%s", cause);
	ck_assert_int_eq(val_of(&sp, &d, "RES_TMA"), 0);
	/* the rules: off the wgmma path; the buffers over the shared memory (128 x
	 * 256 tiles, 4 stages: 194 KiB of stages and 128 KiB of buffers) */
	c.val[2] = 32;
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "RES_TMA needs the wgmma path without SPLIT_K (a fused epilogue)");
	conv_point(&c, 128, 256, 64, 8, 4, 1, 0, 1, 1);
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "RES_TMA: the residual's two buffers over the shared memory");
	c.val[9] = 0;
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	/* no residual: the same config is no point of the space, and at RES_TMA 0 its module
	 * leaves the code out (WG_RES: it cost every module a third of its compile) */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 32, 128, 28, 28, 512, 1, 1, 0);
	cuda_space_init(&sp, &x);
	conv_point(&c, 64, 128, 64, 4, 3, 1, 0, 1, 1);
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "RES_TMA without a residual");
	c.val[9] = 0;
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	n1 = cuda_config_options(&sp, &c, "sm_90a", o1);
	ck_assert(has_opt(o1, n1, "-DWGMMA=1"));
	ck_assert(!has_opt(o1, n1, "-DWG_RES=1"));
	free_opts(o1, n1);
	/* SPLIT_K, where it is valid (batch 1, 512 -> 2048 1x1 at 7 x 7: 16 tiles) */
	conv_ctx(&x, "conv2d_bias_relu_add", "float16", 0, 1, 512, 7, 7, 2048, 1, 1, 0);
	cuda_space_init(&sp, &x);
	c.val[9] = 0, c.val[5] = 2;
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	c.val[9] = 1;
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "RES_TMA needs the wgmma path without SPLIT_K (a fused epilogue)");
}
END_TEST

/* Three consumer warpgroups (WARPS 12, BLOCK_M 192: templates/wgmma.cuh): on the wgmma path
 * alone, 64 rows a warpgroup, BLOCK_N 64 or 128; valid where they fit, with -DWARPS=12 and
 * -DWGMMA=1 in the module's options; never off sm_90a or on FFMA; redundant where 128 rows
 * cover m; the local searches' pow2 steps never reach them (as Inductor's cannot). */
START_TEST(test_conv_three_warpgroups)
{
	struct cuda_space_ctx x;
	struct space sp;
	struct config c;
	struct cuda_gemm_config g;
	const char *why = NULL;
	char *opts[CUDA_MAX_OPTS];
	/* ResNet-50's 128 -> 128 3x3 at 28x28: m 25088, 131 tiles of 192 rows on 132 SMs */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 32, 128, 28, 28, 128, 3, 1, 1);
	cuda_space_init(&sp, &x);
	sp.heuristic(&sp, &c);
	c.val[0] = 192, c.val[1] = 128, c.val[2] = 64, c.val[3] = 12, c.val[4] = 4, c.val[5] = 1;
	c.val[7] = 0;
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	cuda_gemm_config_get(&x, &c, &g);
	ck_assert_int_eq(g.wgmma, 1);
	ck_assert_int_eq(cuda_gemm_threads(&g), 512);
	size_t n = cuda_config_options(&sp, &c, "sm_90a", opts);
	ck_assert(has_opt(opts, n, "-DWGMMA=1"));
	ck_assert(has_opt(opts, n, "-DWARPS=12"));
	ck_assert(has_opt(opts, n, "-DBLOCK_M=192"));
	free_opts(opts, n);
	c.val[1] = 64; /* 192 x 64 too */
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	/* 192 x 256: three warpgroups' 128 accumulators a thread in 128 registers */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 32, 128, 28, 28, 512, 1, 1, 0);
	cuda_space_init(&sp, &x);
	c.val[1] = 256;
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "WARPS 12 (three consumer warpgroups) needs the wgmma path: sm_90a, "
			      "16-bit or TF32, BLOCK_M 192, BLOCK_N 64 or 128");
	/* 12 warps on other tiles; 192 rows on 4 or 8 warps (mma.sync, a side over 128) */
	c.val[1] = 128, c.val[0] = 128;
	ck_assert(!space_check(&sp, &c, &why));
	c.val[0] = 192, c.val[3] = 8;
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "pruned: an mma.sync tile side over 128 (256 was never the fastest "
			      "at a ResNet-50 layer)");
	/* off the wgmma path: FFMA float32, and sm_80 */
	conv_ctx(&x, "conv2d_bias_relu", "float32", 0, 32, 128, 28, 28, 128, 3, 1, 1);
	cuda_space_init(&sp, &x);
	c.val[0] = 192, c.val[1] = 128, c.val[2] = 32, c.val[3] = 12;
	ck_assert(!space_check(&sp, &c, &why));
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 32, 128, 28, 28, 128, 3, 1, 1);
	snprintf(x.dev.arch, sizeof(x.dev.arch), "sm_80");
	cuda_space_init(&sp, &x);
	c.val[2] = 64;
	ck_assert(!space_check(&sp, &c, &why));
	/* TF32 takes them (BLOCK_K 32: the 128-byte atom) */
	conv_ctx(&x, "conv2d_bias_relu", "float32", 1, 32, 128, 28, 28, 128, 3, 1, 1);
	cuda_space_init(&sp, &x);
	c.val[2] = 32;
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	/* redundant where 128 rows cover m (batch 1, 7x7: m 49) */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 1, 512, 7, 7, 512, 3, 1, 1);
	cuda_space_init(&sp, &x);
	c.val[2] = 64;
	ck_assert(!space_check(&sp, &c, &why));
	ck_assert_str_eq(why, "redundant: a smaller BLOCK_M covers m");
	/* (test_conv_wgmma_derived: every 16-bit ResNet-50 layer has some of them) a pow2 step
	 * from 128 or 256 rows (or 8 warps) never lands on them */
	int64_t nb[8];
	size_t k = space_neighbour_values(&sp, 0, 128, 1, 0, 0, nb);
	for (size_t j = 0; j < k; j++)
		ck_assert_int_ne(nb[j], 192);
	k = space_neighbour_values(&sp, 3, 8, 1, 0, 0, nb);
	for (size_t j = 0; j < k; j++)
		ck_assert_int_ne(nb[j], 12);
}
END_TEST

/* conv.cu takes the wgmma path exactly where gemm.cu does (the same derivation from the
 * fields): its NVRTC options say -DWGMMA=1 then, never off sm_90a, never for the vendor's
 * epilogue module; and 16-bit ResNet-50 layers have wgmma points in their space. */
START_TEST(test_conv_wgmma_derived)
{
	static const struct {
		int64_t bm, bn, bk, warps;
		const char *dtype;
		int tf32, wgmma;
	} cases[] = {
		{ 128, 128, 64, 4, "float16", 0, 1 }, { 128, 64, 64, 8, "bfloat16", 0, 1 },
		{ 64, 64, 64, 4, "float16", 0, 1 },   { 128, 128, 32, 4, "float16", 0, 0 },
		{ 128, 32, 64, 4, "float16", 0, 0 },  { 64, 128, 64, 8, "float16", 0, 0 },
		{ 128, 128, 32, 4, "float32", 1, 1 }, { 128, 128, 32, 4, "float32", 0, 0 },
	};
	struct cuda_space_ctx x;
	struct space sp;
	struct config c;
	char *opts[CUDA_MAX_OPTS];
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		conv_ctx(&x, "conv2d_bias_relu", cases[i].dtype, cases[i].tf32, 32, 64, 56, 56, 64,
			 3, 1, 1);
		cuda_space_init(&sp, &x);
		sp.heuristic(&sp, &c);
		c.val[0] = cases[i].bm, c.val[1] = cases[i].bn, c.val[2] = cases[i].bk;
		c.val[3] = cases[i].warps, c.val[5] = 1;
		size_t n = cuda_config_options(&sp, &c, "sm_90a", opts);
		ck_assert_msg(has_opt(opts, n, "-DWGMMA=1") == cases[i].wgmma, "case %zu", i);
		free_opts(opts, n);
		n = cuda_config_options(&sp, &c, "sm_80", opts);
		ck_assert(!has_opt(opts, n, "-DWGMMA=1"));
		free_opts(opts, n);
	}
	/* the vendor point: cuDNN convolves, the module is the epilogue alone */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 32, 64, 56, 56, 64, 3, 1, 1);
	cuda_space_init(&sp, &x);
	space_vendor_point(&sp, 0, &c);
	size_t n = cuda_config_options(&sp, &c, "sm_90a", opts);
	ck_assert(!has_opt(opts, n, "-DWGMMA=1"));
	ck_assert(has_opt(opts, n, "-DEPILOGUE_ONLY=1"));
	free_opts(opts, n);
	/* every 16-bit ResNet-50 layer but the stem (C = 3) has valid wgmma points, among them
	 * tiles of 192 rows on three warpgroups (and those never off wgmma or at other rows),
	 * and its heuristic point is one (128 x 128 x 64, 4 warps) */
	for (size_t i = 1; i < ARRAY_SIZE(r50_convs); i++) {
		const int64_t *v = r50_convs[i];
		struct cuda_gemm_config g;
		size_t wg = 0, three = 0;
		conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 32, v[0], v[1], v[1], v[2], v[3],
			 v[4], v[5]);
		cuda_space_init(&sp, &x);
		for (size_t p = 0; p < space_grid_size(&sp); p++) {
			if (space_grid_point(&sp, p, &c) || !space_contains(&sp, &c))
				continue;
			cuda_gemm_config_get(&x, &c, &g);
			wg += g.wgmma;
			three += g.warps == 12;
			ck_assert(g.warps != 12 || (g.wgmma && g.block_m == 192));
		}
		ck_assert_msg(wg >= 4, "shape %zu: %zu wgmma points", i, wg);
		ck_assert_msg(three >= 2, "shape %zu: %zu points of three warpgroups", i, three);
		sp.heuristic(&sp, &c);
		cuda_gemm_config_get(&x, &c, &g);
		ck_assert_msg(g.wgmma, "shape %zu: the heuristic is off wgmma", i);
	}
}
END_TEST

/* Space-to-depth (cuda_conv_s2d): which shapes take it, the shape conv.cu then runs, and
 * its math: X and the weights rearranged as ops.h and conv.cu's conv_s2d define it, the
 * float64 reference of the rewritten stride-1 convolution equals the original's. */
START_TEST(test_conv_s2d)
{
	struct cuda_space_ctx x;
	struct cuda_shape t;
	/* ResNet's stem in 16 bits: 3 -> 16 channels, a 4x4 window, pad 2 */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 32, 3, 224, 224, 64, 7, 2, 3);
	ck_assert_int_eq(cuda_conv_s2d(&x.shape, &t), 1);
	ck_assert_int_eq(t.c, 16);
	ck_assert_int_eq(t.h, 112);
	ck_assert_int_eq(t.w, 112);
	ck_assert_int_eq(t.r, 4);
	ck_assert_int_eq(t.stride, 1);
	ck_assert_int_eq(t.pad, 2);
	ck_assert_int_eq(t.k, 256);
	ck_assert_int_eq(t.oh, 112);
	ck_assert_int_eq(t.m, x.shape.m);
	size_t w_off, bytes = cuda_conv_s2d_bytes(&t, &w_off);
	ck_assert_uint_eq(w_off, (size_t)32 * 112 * 112 * 16 * 2);
	ck_assert_uint_eq(bytes, w_off + 64 * 256 * 2);
	/* in TF32, 4-byte elements: 12 channels, k 192 */
	conv_ctx(&x, "conv2d_bias_relu", "float32", 1, 32, 3, 224, 224, 64, 7, 2, 3);
	ck_assert_int_eq(cuda_conv_s2d(&x.shape, &t), 1);
	ck_assert_int_eq(t.c, 12);
	ck_assert_int_eq(t.k, 192);
	/* not: stride 1, whole chunks already, or k more than doubled (3x3 over 3 channels:
	 * 64 against 27) */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 2, 3, 16, 16, 8, 7, 1, 3);
	ck_assert_int_eq(cuda_conv_s2d(&x.shape, &t), 0);
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 2, 64, 16, 16, 8, 3, 2, 1);
	ck_assert_int_eq(cuda_conv_s2d(&x.shape, &t), 0);
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 2, 3, 16, 16, 8, 3, 2, 1);
	ck_assert_int_eq(cuda_conv_s2d(&x.shape, &t), 0);

	/* the math, in float32: c, h, w, k, r, pad (odd and even pads and sizes) */
	static const int64_t cases[][6] = {
		{ 3, 17, 13, 5, 7, 3 }, { 3, 9, 10, 4, 5, 2 }, { 5, 8, 7, 3, 3, 1 }, { 6, 11, 6, 2, 3, 1 },
	};
	for (size_t q = 0; q < ARRAY_SIZE(cases); q++) {
		const int64_t *v = cases[q];
		conv_ctx(&x, "conv2d_bias_relu_add", "float32", 0, 2, v[0], v[1], v[2], v[3], v[4], 2,
			 v[5]);
		const struct cuda_shape *s = &x.shape;
		ck_assert_msg(cuda_conv_s2d(s, &t) == 1, "case %zu", q);
		struct cuda_sizes z;
		cuda_shape_sizes(s, &z);
		uint64_t rng = 91 + q;
		float *in[3];
		size_t nin[3] = { z.in0, z.in1, z.in2 };
		for (int i = 0; i < 3; i++) {
			in[i] = xmalloc(nin[i] * 4);
			cuda_fill_uniform(in[i], CUDA_F32, nin[i], &rng);
		}
		int64_t C = s->c, C2 = t.c, e0 = s->pad % 2;
		float *zx = xcalloc((size_t)(s->batch * t.h * t.w * C2), 4);
		float *zw = xcalloc((size_t)(s->kout * t.k + s->kout), 4);
		for (int64_t n = 0; n < s->batch; n++)
			for (int64_t y2 = 0; y2 < t.h; y2++)
				for (int64_t x2 = 0; x2 < t.w; x2++)
					for (int64_t j = 0; j < 4 * C; j++) {
						int64_t b = j / C / 2, d = j / C % 2, y = 2 * y2 + b,
							xx = 2 * x2 + d;
						if (y < s->h && xx < s->w)
							zx[((n * t.h + y2) * t.w + x2) * C2 + j] =
								in[0][((n * s->h + y) * s->w + xx) * C + j % C];
					}
		for (int64_t k = 0; k < s->kout; k++) {
			for (int64_t a = 0; a < t.r; a++)
				for (int64_t e = 0; e < t.r; e++)
					for (int64_t j = 0; j < 4 * C; j++) {
						int64_t ry = 2 * a + j / C / 2 - e0, rx = 2 * e + j / C % 2 - e0;
						if (ry >= 0 && ry < s->r && rx >= 0 && rx < s->r)
							zw[k * t.k + (a * t.r + e) * C2 + j] =
								in[1][k * s->k + (ry * s->r + rx) * C + j % C];
					}
			zw[s->kout * t.k + k] = in[1][s->kout * s->k + k]; /* the bias */
		}
		double worst = 0;
		for (size_t o = 0; o < z.out; o++) {
			double want = cuda_conv_ref_one(s, in[0], in[1], in[2], o);
			double got = cuda_conv_ref_one(&t, zx, zw, in[2], o);
			worst = fmax(worst, fabs(want - got));
		}
		ck_assert_msg(worst < 1e-12, "case %zu: off by %g", q, worst);
		free(zx);
		free(zw);
		for (int i = 0; i < 3; i++)
			free(in[i]);
	}
}
END_TEST

/* Conv shapes (output size, the implicit GEMM, the cpu backend's names), spaces (gemm.cu's
 * fields; every ResNet-50 shape has valid points and a valid heuristic), options (the
 * epilogue is an argument: one cubin for the four ops), the float64 reference. */
START_TEST(test_conv)
{
	struct cuda_space_ctx x;
	struct space sp;
	struct config c;
	struct sbuf sb;
	const char *why = NULL;
	char *cause = NULL;

	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 32, 3, 224, 224, 64, 7, 2, 3);
	ck_assert_int_eq(x.shape.oh, 112);
	ck_assert_int_eq(x.shape.ow, 112);
	ck_assert_int_eq(x.shape.m, 32 * 112 * 112);
	ck_assert_int_eq(x.shape.n, 64);
	ck_assert_int_eq(x.shape.k, 147);
	ck_assert(cuda_shape_flops(&x.shape) == 2.0 * 32 * 112 * 112 * 64 * 147);
	sbuf_init(&sb);
	cuda_shape_format(&x.shape, &sb);
	ck_assert_str_eq(sb.buf, "c=3,h=224,w=224,k=64,r=7,stride=2,pad=3");
	sbuf_release(&sb);
	struct cuda_sizes z;
	cuda_shape_sizes(&x.shape, &z);
	ck_assert_uint_eq(z.in0, 32 * 224 * 224 * 3);
	ck_assert_uint_eq(z.in1, 64 * 147 + 64); /* weights, then the bias */
	ck_assert_uint_eq(z.in2, 0);
	ck_assert_uint_eq(z.out, 32 * 112 * 112 * 64);

	/* odd sizes: 1x1 stride 2 on an odd map; tf32 is accepted for conv */
	conv_ctx(&x, "conv2d_bias_relu_add", "float32", 1, 1, 5, 9, 11, 7, 1, 2, 0);
	ck_assert_int_eq(x.shape.oh, 5);
	ck_assert_int_eq(x.shape.ow, 6);
	ck_assert(cuda_tolerance(&x.shape) == 1e-3);
	cuda_shape_sizes(&x.shape, &z);
	ck_assert_uint_eq(z.in2, z.out);
	char *opts[CUDA_MAX_OPTS];
	cuda_space_init(&sp, &x);
	sp.heuristic(&sp, &c);
	ck_assert_msg(space_check(&sp, &c, &why), "%s", why);
	size_t n = cuda_config_options(&sp, &c, "sm_90a", opts);
	int tf32 = 0;
	for (size_t i = 0; i < n; i++) {
		tf32 |= !strcmp(opts[i], "-DTF32=1");
		ck_assert_ptr_null(strstr(opts[i], "RESIDUAL")); /* an argument, not a macro */
		free(opts[i]);
	}
	ck_assert(tf32);
	ck_assert_int_eq(cuda_conv_epi(CUDA_CONV), 0);
	ck_assert_int_eq(cuda_conv_epi(CUDA_CONV_BIAS_RELU_ADD), 7);

	/* bad shapes: a window larger than the padded input; pad >= r; a missing field */
	static const char *const names[] = { "c", "h", "w", "k", "r", "stride", "pad" };
	int64_t big[] = { 3, 4, 4, 8, 7, 1, 1 };
	struct workload wl;
	op_workload(&wl, "conv2d", "float16", names, big, 7);
	ck_assert_int_eq(cuda_shape_from_workload(&x.shape, &wl, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "window"));
	free(cause);
	cause = NULL;
	wl.nshape = 6;
	ck_assert_int_eq(cuda_shape_from_workload(&x.shape, &wl, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "pad"));
	free(cause);
	cause = NULL;
	free(wl.shape);

	/* the space: gemm.cu's fields; every ResNet-50 shape in every dtype has a valid
	 * heuristic point and tens of valid points; SPLIT_K only where the tiles are few */
	static const char *const dtypes[] = { "float16", "bfloat16", "float32" };
	for (size_t d = 0; d < 3; d++)
		for (size_t i = 0; i < ARRAY_SIZE(r50_convs); i++) {
			const int64_t *v = r50_convs[i];
			conv_ctx(&x, "conv2d_bias_relu", dtypes[d], d == 2 && i % 2, 32, v[0], v[1],
				 v[1], v[2], v[3], v[4], v[5]);
			cuda_space_init(&sp, &x);
			ck_assert_str_eq(sp.fields[0].name, "BLOCK_M");
			ck_assert_str_eq(sp.fields[6].name, "GROUP_M");
			sp.heuristic(&sp, &c);
			ck_assert_msg(space_check(&sp, &c, &why), "shape %zu %s: %s", i, dtypes[d],
				      why);
			size_t valid = 0, split = 0, sk = 0, skmods = 0; /* skmods: STREAM_K 1 */
			for (size_t g = 0; g < space_grid_size(&sp); g++) {
				if (space_grid_point(&sp, g, &c) || !space_contains(&sp, &c))
					continue;
				valid++;
				split += val_of(&sp, &c, "SPLIT_K") > 1;
				sk += val_of(&sp, &c, "STREAM_K") > 0;
				skmods += val_of(&sp, &c, "STREAM_K") == 1;
			}
			/* stream-K only where whole tiles leave SMs idle: never at the 56x56
			 * layers (thousands of tiles), at every 7x7 3x3 layer in 16 bits; never
			 * on the 1x1 TMA path */
			if (x.shape.m >= 100352)
				ck_assert_uint_eq(sk, 0);
			if (d < 2 && x.shape.m == 1568 && v[3] == 3)
				ck_assert_msg(skmods >= 8, "shape %zu: %zu stream-K points", i, skmods);
			if (v[3] == 1 && v[4] == 1)
				ck_assert_uint_eq(sk, 0);
			ck_assert_uint_le(skmods, sk);
			ck_assert_msg(valid >= 8, "shape %zu %s: %zu valid", i, dtypes[d], valid);
			if (x.shape.m >= 100352)
				ck_assert_uint_eq(split, 0);
		}

	/* the reference against a direct sum: 2 images 5x4x3, 4 filters 3x3, stride 2, pad 1,
	 * bias, residual, ReLU */
	conv_ctx(&x, "conv2d_bias_relu_add", "float32", 0, 2, 3, 5, 4, 4, 3, 2, 1);
	cuda_shape_sizes(&x.shape, &z);
	uint64_t rng = 77;
	float *in[3], *y = xmalloc(z.out * 4);
	size_t nin[3] = { z.in0, z.in1, z.in2 };
	for (int i = 0; i < 3; i++) {
		in[i] = xmalloc(nin[i] * 4);
		cuda_fill_uniform(in[i], CUDA_F32, nin[i], &rng);
	}
	struct cuda_ref ref;
	cuda_ref_compute(&x.shape, in[0], in[1], in[2], &ref);
	ck_assert_uint_eq(ref.n, z.out);
	ck_assert_uint_eq(z.out, 2 * 3 * 2 * 4);
	size_t positive = 0;
	for (int img = 0; img < 2; img++)
		for (int oy = 0; oy < 3; oy++)
			for (int ox = 0; ox < 2; ox++)
				for (int k = 0; k < 4; k++) {
					double s = in[1][4 * 27 + k];
					for (int ry = 0; ry < 3; ry++)
						for (int rx = 0; rx < 3; rx++) {
							int iy = oy * 2 - 1 + ry, ix = ox * 2 - 1 + rx;
							if (iy < 0 || iy >= 5 || ix < 0 || ix >= 4)
								continue;
							for (int ch = 0; ch < 3; ch++)
								s += (double)in[0][((img * 5 + iy) * 4 + ix) * 3 + ch] *
								     in[1][k * 27 + (ry * 3 + rx) * 3 + ch];
						}
					size_t o = (size_t)(((img * 3 + oy) * 2 + ox) * 4 + k);
					s += in[2][o];
					ck_assert(fabs(ref.val[o] - (s > 0 ? s : 0)) < 1e-12);
					y[o] = (float)(s > 0 ? s : 0);
					positive += s > 0;
				}
	ck_assert_uint_gt(positive, 0);
	ck_assert_uint_lt(positive, z.out); /* the ReLU cut something */
	size_t bad;
	ck_assert(cuda_ref_error(&ref, y, CUDA_F32, z.out, &bad) < 1e-7);
	cuda_ref_release(&ref);
	for (int i = 0; i < 3; i++)
		free(in[i]);
	free(y);

	/* a big layer's reference checks every step-th output, step odd */
	conv_ctx(&x, "conv2d_bias_relu", "float16", 0, 32, 64, 56, 56, 64, 3, 1, 1);
	ck_assert_uint_gt((double)x.shape.m * x.shape.n * x.shape.k, CUDA_REF_MAX_MACS);

	/* no roofline model for the conv ops yet: NaN (model-topk then starts nearest the
	 * heuristic's point), not the memory-bound ops' bytes over the bandwidth */
	struct cuda_roofline rl = { .sms = 132, .clock_ghz = 1.83, .mem_bytes_ns = 3352.6 };
	ck_assert_int_eq(cuda_roofline_rates(9, 0, &rl), 0);
	cuda_space_init(&sp, &x);
	sp.heuristic(&sp, &c);
	ck_assert(isnan(cuda_estimate_ns(&rl, &x, &c)));
}
END_TEST

/* maxpool backward's reference takes the forward's window positions (kh * 3 + kw per output)
 * and dy: dx at each named element is the sum of the dy that name it. */
START_TEST(test_maxpool_bwd_ref)
{
	static const char *const f[] = { "c", "h", "w", "r", "stride", "pad" };
	int64_t v[] = { 1, 3, 3, 3, 2, 1 };
	struct workload w;
	struct cuda_shape s;
	struct cuda_sizes z;
	char *cause = NULL;
	op_workload(&w, "maxpool_bwd", "float32", f, v, 6);
	w.batch = 1;
	ck_assert_int_eq(cuda_shape_from_workload(&s, &w, &cause), 0);
	cuda_shape_sizes(&s, &z);
	ck_assert_uint_eq(z.in0, 4); /* one position per output of the forward */
	ck_assert_uint_eq(z.in1, 4);
	ck_assert_uint_eq(z.out, 9);
	ck_assert_uint_eq(cuda_input_esize(&s, 0), 1);
	ck_assert_uint_eq(cuda_input_esize(&s, 1), 4);
	ck_assert(cuda_shape_bytes(&s) == 4 * 1 + 4 * 4 + 9 * 4);
	/* window (0,0) names (ky 1, kx 2) = x(0,1); window (0,1) (1, 0) = x(0,1) too; window
	 * (1,0) (0, 1) = x(1,0); window (1,1) (0, 0) = x(1,1) */
	unsigned char idx[4] = { 5, 3, 1, 0 };
	float dy[4] = { 1, 2, 4, 8 };
	struct cuda_ref ref;
	cuda_ref_compute(&s, idx, dy, NULL, &ref);
	ck_assert_uint_eq(ref.n, 9);
	ck_assert(ref.val[0] == 0.0);
	ck_assert(ref.val[1] == 3.0);
	ck_assert(ref.val[2] == 0.0);
	ck_assert(ref.val[3] == 4.0);
	ck_assert(ref.val[4] == 8.0);
	for (int i = 5; i < 9; i++)
		ck_assert(ref.val[i] == 0.0);
	cuda_ref_release(&ref);
	free(w.shape);
}
END_TEST

/* The backward's generated positions lie inside the image, and every one of an interior
 * window's 9 positions occurs. */
START_TEST(test_maxpool_idx_fill)
{
	static const char *const f[] = { "c", "h", "w", "r", "stride", "pad" };
	int64_t v[] = { 3, 7, 6, 3, 2, 1 };
	struct workload w;
	struct cuda_shape s;
	struct cuda_sizes z;
	char *cause = NULL;
	int seen[9] = { 0 };
	uint64_t rng = 12345;
	op_workload(&w, "maxpool_bwd", "float16", f, v, 6);
	w.batch = 40;
	ck_assert_int_eq(cuda_shape_from_workload(&s, &w, &cause), 0);
	cuda_shape_sizes(&s, &z);
	unsigned char *idx = xmalloc(z.in0);
	cuda_fill_maxpool_idx(&s, idx, &rng);
	for (size_t o = 0; o < z.in0; o++) {
		int64_t p = (int64_t)(o / 3), ox = p % s.ow, oy = p / s.ow % s.oh;
		int64_t iy = oy * 2 - 1 + idx[o] / 3, ix = ox * 2 - 1 + idx[o] % 3;
		ck_assert_int_lt(idx[o], 9);
		ck_assert(iy >= 0 && iy < s.h && ix >= 0 && ix < s.w);
		if (oy == 1 && ox == 1)
			seen[idx[o]]++;
	}
	for (int k = 0; k < 9; k++)
		ck_assert_int_gt(seen[k], 0);
	free(idx);
	free(w.shape);
}
END_TEST

/* Every template compiles with NVRTC, through the backend's own options, at its heuristic
 * config and its vendor (default) point in every dtype, for sm_80 and sm_90a in turn; the
 * pool runs them in parallel. */
START_TEST(test_nvrtc_templates)
{
	static const char *const archs[] = { "sm_80", "sm_90a" };
	static const char *const dtypes[] = { "float32", "float16", "bfloat16" };
	struct cuda_compile jobs[CUDA_NOPS * 3 * 2 * 2 + 4];
	char *texts[CUDA_NOPS];
	size_t lens[CUDA_NOPS];
	struct cuda_space_ctx ctx[CUDA_NOPS * 3 * 2 * 2];
	size_t n = 0;

	memset(jobs, 0, sizeof(jobs));
	for (int op = 0; op < CUDA_NOPS; op++) {
		char *cause = NULL;
		ck_assert_msg(!cuda_template_read(tmpl_dir, cuda_op_template(op), &texts[op], &lens[op],
						  &cause), "%s", cause ? cause : "");
	}
	for (int op = 0; op < CUDA_NOPS; op++)
		for (size_t d = 0; d < 3; d++)
			for (size_t a = 0; a < 2; a++)
				for (int vendor = 0; vendor < 2; vendor++) {
					/* each (op, dtype, config) once, the architectures in turn
					 * (tests/gpu/nvrtc-compile.sh compiles every template for both) */
					if ((d + (size_t)vendor + (size_t)op) % 2 != a)
						continue;
					struct cuda_space_ctx *x = &ctx[n];
					struct space sp;
					struct config c;
					memset(x, 0, sizeof(*x));
					cuda_devinfo_default(&x->dev);
					x->shape.op = (enum cuda_op)op;
					x->shape.dtype = (enum cuda_dtype)cuda_dtype_from_name(dtypes[d]);
					x->shape.m = x->shape.n = x->shape.k = 1024;
					x->shape.c = 256, x->shape.h = x->shape.w = 56;
					x->shape.rows = x->shape.cols = 1024;
					x->shape.hw = 3136;
					x->shape.batch = 1;
					cuda_space_init(&sp, x);
					if (vendor && op == CUDA_GEMM) {
						/* float32 on TF32 instead (gemm's vendor is cuBLASLt) */
						if (x->shape.dtype != CUDA_F32)
							continue;
						x->shape.tf32 = 1;
						sp.heuristic(&sp, &c);
					} else if (vendor) {
						space_vendor_point(&sp, 0, &c);
					} else {
						sp.heuristic(&sp, &c);
					}
					jobs[n].tmpl_name = cuda_op_template(op);
					jobs[n].source = texts[op];
					jobs[n].source_len = lens[op];
					jobs[n].opts = xcalloc(CUDA_MAX_OPTS, sizeof(char *));
					jobs[n].nopts = cuda_config_options(&sp, &c, archs[a], jobs[n].opts);
					n++;
				}
	/* the check's reference kernels, one program per dtype */
	char *rtext;
	size_t rlen;
	char *rcause = NULL;
	ck_assert_msg(!cuda_template_read(tmpl_dir, "reference.cu", &rtext, &rlen, &rcause), "%s",
		      rcause ? rcause : "");
	for (size_t d = 0; d < 3; d++) {
		static const char *const macro[] = { "-DDTYPE_FLOAT32", "-DDTYPE_FLOAT16",
						     "-DDTYPE_BFLOAT16" };
		jobs[n].tmpl_name = "reference.cu";
		jobs[n].source = rtext;
		jobs[n].source_len = rlen;
		jobs[n].opts = xcalloc(CUDA_MAX_OPTS, sizeof(char *));
		jobs[n].opts[0] = xasprintf("--gpu-architecture=%s", archs[d % 2]);
		jobs[n].opts[1] = xstrdup("-std=c++17");
		jobs[n].opts[2] = xstrdup(macro[d]);
		jobs[n].nopts = 3;
		n++;
	}
	cuda_compile_many(jobs, n, 0);
	for (size_t i = 0; i < n; i++) {
		/* every kernel the backend looks up in the reference's program (module.c),
		 * ref_conv (the conv ops' direct convolution and epilogue) among them */
		static const char *const ref_kernels[] = { "ref_gemm", "ref_maxpool",
							   "ref_maxpool_bwd", "ref_avgpool",
							   "ref_sum", "ref_bias_relu", "ref_conv",
							   "ref_error" };
		ck_assert_msg(jobs[i].ok, "%s %s %s: %s", jobs[i].tmpl_name, jobs[i].opts[0],
			      jobs[i].opts[2], jobs[i].log ? jobs[i].log : "");
		ck_assert_uint_gt(jobs[i].cubin_len, 0);
		ck_assert_int_gt(jobs[i].ns, 0);
		for (size_t k = 0; !strcmp(jobs[i].tmpl_name, "reference.cu") &&
				   k < ARRAY_SIZE(ref_kernels); k++)
			ck_assert_msg(memmem(jobs[i].cubin, jobs[i].cubin_len, ref_kernels[k],
					     strlen(ref_kernels[k]) + 1),
				      "%s: no kernel '%s' in the %s cubin", jobs[i].opts[2],
				      ref_kernels[k], jobs[i].opts[0]);
		for (size_t k = 0; k < jobs[i].nopts; k++)
			free(jobs[i].opts[k]);
		free(jobs[i].opts);
		cuda_compile_release(&jobs[i]);
	}
	for (int op = 0; op < CUDA_NOPS; op++)
		free(texts[op]);
	free(rtext);
}
END_TEST

/* A compile error comes back as a log, never as a crash. */
START_TEST(test_nvrtc_error)
{
	const char *src = "extern \"C\" __global__ void f() { static_assert(BLOCK == 1, \"no\"); }";
	char *opts[] = { "--gpu-architecture=sm_80", "-DBLOCK=2" };
	struct cuda_compile c = { .tmpl_name = "bad.cu", .source = src, .source_len = strlen(src),
				  .opts = opts, .nopts = 2 };
	cuda_compile_run(&c);
	ck_assert(!c.ok);
	ck_assert_ptr_nonnull(c.log);
	ck_assert_ptr_nonnull(strstr(c.log, "NVRTC"));
	cuda_compile_release(&c);
	ck_assert_str_ne(cuda_nvrtc_version(), "unknown");
}
END_TEST

/* Without a GPU the backend says why, and never claims to be available. */
START_TEST(test_available)
{
	char *why = NULL;
	const struct backend_entry *e = backend_entry("cuda");
	ck_assert_ptr_nonnull(e);
	ck_assert_ptr_nonnull(e->ops);
	if (backend_available(e, &why)) {
		ck_assert_ptr_null(why);
		return;
	}
	ck_assert_ptr_nonnull(why);
	ck_assert_msg(strstr(why, "no CUDA device") || strstr(why, "driver"), "%s", why);
	printf("cuda backend not available here: %s\n", why);
	free(why);
	struct sbuf sb;
	sbuf_init(&sb);
	e->ops->describe_build(&sb);
	ck_assert_ptr_nonnull(strstr(sb.buf, "cuda_runtime="));
	ck_assert_ptr_nonnull(strstr(sb.buf, "cuda_unavailable="));
	ck_assert_ptr_nonnull(strstr(sb.buf, "cuda_lib_libcudart="));
	sbuf_release(&sb);
}
END_TEST

static Suite *cuda_suite(int with_templates)
{
	Suite *s = suite_create("cuda");
	TCase *tc = tcase_create("cuda");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_catalog_ops);
	tcase_add_test(tc, test_gemm_space);
	tcase_add_test(tc, test_gemm_space_pruned);
	tcase_add_test(tc, test_placement_pad);
	tcase_add_test(tc, test_gemm_wgmma_derived);
	tcase_add_test(tc, test_mem_spaces);
	tcase_add_test(tc, test_options_and_keys);
	tcase_add_test(tc, test_template_include);
	tcase_add_test(tc, test_use_tma_flags);
	tcase_add_test(tc, test_halves);
	tcase_add_test(tc, test_roofline_estimate);
	tcase_add_test(tc, test_reference_check);
	tcase_add_test(tc, test_maxpool_bwd_ref);
	tcase_add_test(tc, test_maxpool_idx_fill);
	tcase_add_test(tc, test_conv);
	tcase_add_test(tc, test_conv_s2d);
	tcase_add_test(tc, test_conv_wgmma_derived);
	tcase_add_test(tc, test_conv_three_warpgroups);
	tcase_add_test(tc, test_conv_stream_k);
	tcase_add_test(tc, test_conv_cluster);
	tcase_add_test(tc, test_conv_bn112);
	tcase_add_test(tc, test_conv_bk128);
	tcase_add_test(tc, test_conv_cluster_k);
	tcase_add_test(tc, test_conv_swap_ab);
	tcase_add_test(tc, test_conv_res_tma);
	tcase_add_test(tc, test_conv_stages8);
	tcase_add_test(tc, test_conv_tma_only);
	tcase_add_test(tc, test_nvrtc_error);
	tcase_add_test(tc, test_available);
	if (with_templates)
		tcase_add_test(tc, test_nvrtc_templates);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	const char *kd = getenv("HARNESS_KERNEL_DIR");
	struct stat st;
	tmpl_dir = xasprintf("%s/cuda/templates", kd && *kd ? kd : backend_kernel_dir());
	char *gemm = xasprintf("%s/gemm.cu", tmpl_dir);
	int with = !stat(gemm, &st);
	have_templates = with;
	if (!with)
		printf("note: no CUDA templates in '%s': the NVRTC compile of every template is not "
		       "run\n", tmpl_dir);
	free(gemm);
	int r = testutil_run(cuda_suite(with));
	free(tmpl_dir);
	return r;
}
#endif
