/* backend-cuda.c: the "cuda" backend: workloads to cells, configs compiled by NVRTC into the
 * unit's cache directory and loaded as libraries, cuBLASLt as the GEMM vendor path, every
 * config checked against float64 on random inputs after the output is poisoned with NaN,
 * samples timed with CUDA events on a dedicated stream (L2 flushed before cold samples,
 * short cells batched), the SM clock and throttle flag read through NVML (docs/kernels.md) */
#include "config.h"
#include "kernels/cuda/device.h"
#include "harness/base/sysinfo.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

/* ---- availability ---------------------------------------------------------------------- */

static int cuda_available(char **why)
{
	int n = 0, drv = 0, rt = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e == cudaErrorNoDevice || (e == cudaSuccess && n == 0)) {
		*why = xstrdup("no CUDA device (the driver sees none; CUDA_VISIBLE_DEVICES?)");
		return 0;
	}
	if (e == cudaErrorInsufficientDriver) {
		cudaDriverGetVersion(&drv);
		cudaRuntimeGetVersion(&rt);
		*why = drv ? xasprintf("the CUDA driver supports CUDA %d.%d, older than the runtime "
				       "%d.%d this build loads", drv / 1000, drv % 1000 / 10,
				       rt / 1000, rt % 1000 / 10)
			   : xstrdup("no CUDA device (no CUDA driver: libcuda.so.1 is not installed)");
		return 0;
	}
	if (e != cudaSuccess) {
		*why = xasprintf("no usable CUDA device: %s", cuda_status_string(RT, e));
		return 0;
	}
	if (cuda_versions_check(why))
		return 0;
	return 1;
}

/* ---- cells ----------------------------------------------------------------------------- */

static void free_cell(struct cuda_cell *c)
{
	free(c->pub.name);
	free(c->pub.workload);
	free(c->pub.op);
	free(c->pub.shape);
	for (int i = 0; i < 3; i++) {
		free(c->h_in[i]);
		if (c->d_in[i])
			cudaFree(c->d_in[i]);
	}
	cuda_replay_release(c);
	free(c->vendor_kernels);
	free(c->h_out);
	if (c->d_out)
		cudaFree(c->d_out);
	if (c->d_ws)
		cudaFree(c->d_ws);
	cuda_gemm_release(c);
	if (c->la)
		cublasLtMatrixLayoutDestroy(c->la);
	if (c->lb)
		cublasLtMatrixLayoutDestroy(c->lb);
	if (c->lc)
		cublasLtMatrixLayoutDestroy(c->lc);
	if (c->desc)
		cublasLtMatmulDescDestroy(c->desc);
	if (c->d_ref)
		cudaFree(c->d_ref);
	cuda_dnn_cell_free(c);
	cuda_model_cell_free(c);
	free(c);
}

static cudaDataType_t lt_type(enum cuda_dtype t)
{
	return t == CUDA_F16 ? CUDA_R_16F : t == CUDA_BF16 ? CUDA_R_16BF : CUDA_R_32F;
}

/* C[m,n] = A[m,k] B[n,k]^T with row-major C is, column-major, C^T (n x m) = B A^T: cuBLASLt's
 * A is our B (k x n, ld k) transposed, its B our A (k x m, ld k), its C n x m with ld n. */
static int gemm_vendor_init(struct backend *b, struct cuda_cell *c, char **cause)
{
	const struct cuda_shape *s = &c->sctx.shape;
	cudaDataType_t t = lt_type(s->dtype);
	cublasComputeType_t ct = s->tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
	cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
	cublasLtMatmulPreference_t pref = NULL;
	uint64_t ws = LT_WORKSPACE;
	int returned = 0, ret = -1;

	if (CUDA_CHECK(LT, cublasLtMatmulDescCreate(&c->desc, ct, CUDA_R_32F), cause) ||
	    CUDA_CHECK(LT, cublasLtMatmulDescSetAttribute(c->desc, CUBLASLT_MATMUL_DESC_TRANSA,
							  &ta, sizeof(ta)), cause) ||
	    CUDA_CHECK(LT, cublasLtMatmulDescSetAttribute(c->desc, CUBLASLT_MATMUL_DESC_TRANSB,
							  &tb, sizeof(tb)), cause) ||
	    CUDA_CHECK(LT, cublasLtMatrixLayoutCreate(&c->la, t, (uint64_t)s->k, (uint64_t)s->n,
						      s->k), cause) ||
	    CUDA_CHECK(LT, cublasLtMatrixLayoutCreate(&c->lb, t, (uint64_t)s->k, (uint64_t)s->m,
						      s->k), cause) ||
	    CUDA_CHECK(LT, cublasLtMatrixLayoutCreate(&c->lc, t, (uint64_t)s->n, (uint64_t)s->m,
						      s->n), cause) ||
	    CUDA_CHECK(LT, cublasLtMatmulPreferenceCreate(&pref), cause) ||
	    CUDA_CHECK(LT, cublasLtMatmulPreferenceSetAttribute(
				   pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)),
		       cause) ||
	    CUDA_CHECK(LT, cublasLtMatmulAlgoGetHeuristic(b->lt, c->desc, c->la, c->lb, c->lc,
							  c->lc, pref, LT_MAX_ALGOS, c->algos,
							  &returned), cause))
		goto done;
	if (returned <= 0) {
		*cause = xasprintf("cuBLASLt offers no algorithm for '%s' (%s)", c->pub.name,
				   cuda_dtype_name(s->dtype));
		goto done;
	}
	/* Each algorithm a vendor candidate "vendor:algo=A,tile=T,stages=S,splitk=K", the
	 * heuristic's first one first; a repeat of the same four numbers is dropped. */
	c->space.nvendors = 0;
	for (int i = 0; i < returned; i++) {
		int32_t id = 0, split = 0;
		uint32_t tile = 0, stages = 0;
		const cublasLtMatmulAlgo_t *a = &c->algos[i].algo;
		/* an attribute cuBLASLt cannot give stays 0 in the candidate's name */
		CUDA_CHECK(LT, cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_ID, &id,
								    sizeof(id), NULL), NULL);
		CUDA_CHECK(LT, cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_TILE_ID,
								    &tile, sizeof(tile), NULL),
			   NULL);
		CUDA_CHECK(LT, cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_STAGES_ID,
								    &stages, sizeof(stages), NULL),
			   NULL);
		CUDA_CHECK(LT, cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM,
								    &split, sizeof(split), NULL),
			   NULL);
		struct vendor_point v = { .nparams = 4 };
		v.params[0] = (struct vendor_param){ "algo", id };
		v.params[1] = (struct vendor_param){ "tile", tile };
		v.params[2] = (struct vendor_param){ "stages", stages };
		v.params[3] = (struct vendor_param){ "splitk", split };
		int dup = 0;
		for (size_t k = 0; k < c->space.nvendors && !dup; k++)
			dup = !memcmp(c->space.vendors[k].params, v.params, sizeof(v.params));
		if (dup)
			continue;
		c->algos[c->space.nvendors] = c->algos[i];
		c->space.vendors[c->space.nvendors++] = v;
	}
	c->nalgos = c->space.nvendors;
	ret = 0;
done:
	if (pref)
		cublasLtMatmulPreferenceDestroy(pref);
	return ret;
}

/* Op workloads whose op and shape cuda_shape_from_workload knows; models cuda_model_build
 * builds (model.c). */
static int cuda_supports(const struct workload *w, char **why)
{
	const char *name = w->name ? w->name : (w->model ? w->model : w->op);
	struct cuda_shape s;
	char *e = NULL;
	if (w->kind == WORKLOAD_MODEL) {
		struct cuda_model *m = NULL;
		int t = cuda_dtype_from_name(w->dtype ? w->dtype : "float32");
		if (t < 0)
			e = xasprintf("dtype '%s' is not one the cuda backend has (float32, "
				      "float16, bfloat16)", w->dtype);
		else if (!cuda_model_build(w->model, w->batch > 0 ? w->batch : 1, w->resolution,
					   (enum cuda_dtype)t, w->tf32 > 0, &m, &e))
			cuda_model_free(m);
		if (!e)
			return 1;
		*why = xasprintf("workload '%s': %s", name, e);
		free(e);
		return 0;
	}
	if (cuda_shape_from_workload(&s, w, &e)) {
		*why = xasprintf("workload '%s': %s", name, e);
		free(e);
		return 0;
	}
	return 1;
}

struct cuda_cell *cuda_op_cell_add(struct backend *b, const char *name, const char *op,
			       const struct cuda_shape *s, char **cause)
{
	struct cuda_cell *c = xcalloc(1, sizeof(*c));
	struct sbuf shape;
	c->sctx.shape = *s;
	c->sctx.dev = b->di;
	c->sctx.conv_maps = cuda_conv_maps(b, s);
	cuda_space_init(&c->space, &c->sctx);
	sbuf_init(&shape);
	cuda_shape_format(&c->sctx.shape, &shape);
	c->pub.kind = CELL_OP;
	c->pub.workload = xstrdup(name);
	c->pub.op = xstrdup(op);
	c->pub.shape = sbuf_detach(&shape);
	c->pub.name = xasprintf("%s/%s:%s", name, op, c->pub.shape);
	c->pub.count = 1;
	c->pub.flops = cuda_shape_flops(&c->sctx.shape);
	c->launches = 1;
	if ((c->sctx.shape.op == CUDA_GEMM && gemm_vendor_init(b, c, cause)) ||
	    (cuda_conv_is(c->sctx.shape.op) && cuda_dnn_cell_init(b, c, cause))) {
		free_cell(c);
		return NULL;
	}
	XGROW(b->cells, b->cap, b->ncells + 1);
	b->cells[b->ncells++] = c;
	return c;
}

static int cuda_add_workload(struct backend *b, const struct workload *w, char **cause)
{
	const char *name = w->name ? w->name : (w->model ? w->model : w->op);
	struct cuda_shape s;
	char *why = NULL;

	if (!cuda_supports(w, cause))
		return -1;
	for (size_t i = 0; i < b->ncells; i++)
		if (!strcmp(b->cells[i]->pub.workload, name)) {
			*cause = xasprintf("workload '%s' is given twice", name);
			return -1;
		}
	if (w->kind == WORKLOAD_MODEL)
		return cuda_model_add(b, w, name, cause);
	if (cuda_shape_from_workload(&s, w, &why)) {
		*cause = xasprintf("workload '%s': %s", name, why);
		free(why);
		return -1;
	}
	return cuda_op_cell_add(b, name, w->op, &s, cause) ? 0 : -1;
}

static size_t cuda_ncells(const struct backend *b)
{
	return b->ncells;
}

static const struct cell *cuda_cell(const struct backend *b, size_t i)
{
	return i < b->ncells ? &b->cells[i]->pub : NULL;
}

static const struct space *cuda_space(const struct backend *b, size_t i)
{
	return i < b->ncells && !b->cells[i]->e2e ? &b->cells[i]->space : NULL;
}

/* ---- launches -------------------------------------------------------------------------- */

static int64_t cdiv(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

/* The field value of config c, or the template's documented default for the memory-bound
 * vendor point (BLOCK 256, VEC 16 bytes, ROWS 8). */
static int64_t field(const struct cuda_cell *c, const struct config *cfg, const char *name)
{
	for (size_t f = 0; f < c->space.nfields; f++)
		if (!strcmp(c->space.fields[f].name, name) && !cfg->vendor)
			return cfg->val[f];
	if (!strcmp(name, "BLOCK"))
		return 256;
	if (!strcmp(name, "VEC"))
		return 16 / (int64_t)cuda_dtype_size(c->sctx.shape.dtype);
	return 8; /* ROWS */
}

static int launch_kernel(struct backend *b, cudaKernel_t k, int64_t gx, int64_t gy, int64_t gz,
			 int64_t threads, size_t smem, void **args, char **cause)
{
	dim3 grid = { (unsigned)gx, (unsigned)gy, (unsigned)gz };
	dim3 block = { (unsigned)threads, 1, 1 };
	return CUDA_CHECK(RT, cudaLaunchKernel((const void *)k, grid, block, args, smem, b->stream),
			  cause);
}

/* One execution of cell c's current implementation, config cfg and module m (m NULL: the
 * cuBLASLt algorithm cfg names), enqueued on the backend's stream. */
static int run_once(struct backend *b, struct cuda_cell *c, const struct config *cfg,
		    struct cuda_module *m, char **cause)
{
	const struct cuda_shape *s = &c->sctx.shape;
	if (cuda_conv_is(s->op))
		return cuda_conv_run(b, c, cfg, m, cause);
	if (!m) {
		float alpha = 1.0f, beta = 0.0f;
		const cublasLtMatmulHeuristicResult_t *h = &c->algos[cfg->vendor_idx];
		return CUDA_CHECK(LT, cublasLtMatmul(b->lt, c->desc, &alpha, c->d_in[1], c->la,
						     c->d_in[0], c->lb, &beta, c->d_out, c->lc,
						     c->d_out, c->lc, &h->algo, b->lt_ws,
						     h->workspaceSize, b->stream), cause);
	}
	int64_t block = field(c, cfg, "BLOCK"), vec = field(c, cfg, "VEC");
	int64_t rows = field(c, cfg, "ROWS");
	int nb = (int)s->batch, H = (int)s->h, W = (int)s->w, C = (int)s->c;
	switch (s->op) {
	case CUDA_GEMM:
		return cuda_gemm_run(b, c, cfg, m, cause);
	case CUDA_MAXPOOL: {
		void *args[] = { &c->d_in[0], &c->d_out, &nb, &H, &W, &C };
		return launch_kernel(b, m->k[0], cdiv(s->batch * s->oh * s->ow * cdiv(C, vec), block),
				     1, 1, block, 0, args, cause);
	}
	case CUDA_MAXPOOL_BWD: {
		void *args[] = { &c->d_in[0], &c->d_in[1], &c->d_out, &nb, &H, &W, &C };
		return launch_kernel(b, m->k[0], cdiv(s->batch * s->oh * s->ow * cdiv(C, vec), block),
				     1, 1, block, 0, args, cause);
	}
	case CUDA_AVGPOOL: {
		int HW = H * W;
		void *args[] = { &c->d_in[0], &c->d_out, &nb, &HW, &C };
		return launch_kernel(b, m->k[0], cdiv(cdiv(C, vec), block / rows), nb, 1, block, 0,
				     args, cause);
	}
	case CUDA_SUM: {
		int R = (int)s->rows, S = (int)s->cols, ld = S;
		if (s->dim) {
			void *args[] = { &c->d_in[0], &c->d_out, &R, &S, &ld };
			return launch_kernel(b, m->k[0], R < 65535 ? R : 65535, 1, 1, block, 0, args,
					     cause);
		}
		/* SPLITS: enough runs of rows that the grid has 2 blocks per SM, each run at
		 * least ROWS * 8 rows long */
		int64_t gx = cdiv(cdiv(S, vec), block / rows);
		int64_t splits = cdiv(2 * b->di.sms, gx);
		int64_t most = cdiv(R, rows * 8);
		splits = splits < 1 ? 1 : splits > most ? (most < 1 ? 1 : most) : splits;
		if (splits > 65535)
			splits = 65535;
		if (splits > 1 && cuda_ensure_ws(c, (size_t)(splits * S) * 4, cause))
			return -1;
		float *ws = c->d_ws;
		int sp = (int)splits;
		void *args[] = { &c->d_in[0], &c->d_out, &ws, &R, &S, &ld };
		if (launch_kernel(b, m->k[0], gx, splits, 1, block, 0, args, cause))
			return -1;
		if (splits > 1) {
			void *f[] = { &ws, &c->d_out, &S, &sp };
			return launch_kernel(b, m->k[1], cdiv(S, 256), 1, 1, 256, 0, f, cause);
		}
		return 0;
	}
	default: {
		long long total = (long long)(s->batch * s->hw * s->c);
		void *res = s->op == CUDA_BIAS_RELU_ADD ? c->d_in[2] : c->d_in[0];
		void *args[] = { &c->d_in[0], &c->d_in[1], &res, &c->d_out, &total, &C };
		int64_t grid = cdiv(total, vec * block), cap = (int64_t)b->di.sms * 32;
		return launch_kernel(b, m->k[0], grid < cap ? grid : cap, 1, 1, block, 0, args,
				     cause);
	}
	}
}

int cuda_cell_run(struct backend *b, struct cuda_cell *c, const struct config *cfg,
		struct cuda_module *m, char **cause)
{
	return run_once(b, c, cfg, m, cause);
}

/* The run-time error of what the stream ran; a sticky one (the context is lost) is an
 * infrastructure failure, any other a bad config. */
static int sync_stream(struct backend *b, char **detail, char **cause)
{
	cudaError_t e = cudaStreamSynchronize(b->stream);
	if (e == cudaSuccess)
		return 0;
	char *why = NULL;
	CUDA_CHECK(RT, e, &why);
	if (cudaGetLastError() != cudaSuccess && cudaDeviceSynchronize() != cudaSuccess) {
		*cause = xasprintf("the device failed and cannot go on: %s", why);
		free(why);
		return -1;
	}
	*detail = why;
	return 1;
}

/* ---- prepare and sample ---------------------------------------------------------------- */

static int cuda_prepare(struct backend *b, size_t i, const struct config *cfg,
		      struct prepare_result *res, char **cause)
{
	memset(res, 0, sizeof(*res));
	res->status = PREPARE_OK;
	if (i >= b->ncells) {
		*cause = xasprintf("no cell %zu (there are %zu)", i, b->ncells);
		return -1;
	}
	struct cuda_cell *c = b->cells[i];
	const struct cuda_shape *s = &c->sctx.shape;
	if (c->e2e) {
		if (cfg) {
			*cause = xasprintf("cell '%s' takes no config", c->pub.name);
			return -1;
		}
		return cuda_model_prepare(b, c, res, cause);
	}
	if (!cfg || !space_contains(&c->space, cfg)) {
		struct sbuf sb;
		sbuf_init(&sb);
		if (cfg)
			config_format(&c->space, cfg, &sb);
		*cause = xasprintf("config '%s' is not a point of cell '%s''s space",
				   cfg ? sb.buf : "(none)", c->pub.name);
		sbuf_release(&sb);
		return -1;
	}
	c->has_impl = 0;
	cuda_replay_release(c);
	if (!c->has_data && cuda_alloc_data(b, c, cause))
		return -1;
	struct cuda_module *m = NULL;
	if (!(cfg->vendor && s->op == CUDA_GEMM)) {
		if (cuda_get_module(b, c, cfg, &m, res, cause))
			return -1;
		if (res->status != PREPARE_OK)
			return 0;
	}

	/* the check: output poisoned with NaN (all-ones bytes are a NaN in every dtype), one
	 * run, every output finite, the relative norm of the error within the bound */
	struct cuda_sizes z;
	cuda_shape_sizes(s, &z);
	size_t bytes = z.out * cuda_dtype_size(s->dtype);
	char *detail = NULL;
	int64_t t0 = util_now_ns();
	if (CUDA_CHECK(RT, cudaMemsetAsync(c->d_out, 0xff, bytes, b->stream), cause))
		return -1;
	int rc = run_once(b, c, cfg, m, &detail);
	if (!rc)
		rc = sync_stream(b, &detail, cause);
	if (rc < 0 && !detail)
		return -1;
	if (rc) {
		res->status = PREPARE_COMPILE_ERROR;
		res->detail = xasprintf("the launch failed: %s", detail);
		free(detail);
		return 0;
	}
	size_t bad;
	double tol = cuda_tolerance(s);
	if (cuda_dev_ref_error(b, c, &res->max_rel_err, &bad, cause))
		return -1;
	if (bad != SIZE_MAX &&
	    CUDA_CHECK(RT, cudaMemcpyAsync(c->h_out, (char *)c->d_out + bad * cuda_dtype_size(s->dtype),
					   cuda_dtype_size(s->dtype), cudaMemcpyDeviceToHost,
					   b->stream), cause))
		return -1;
	if (CUDA_CHECK(RT, cudaStreamSynchronize(b->stream), cause))
		return -1;
	/* the cell's reference, computed once, is charged to its first check */
	res->check_ns = util_now_ns() - t0 + c->ref_ns;
	c->ref_ns = 0;
	if (!(res->max_rel_err <= tol)) {
		res->status = PREPARE_INCORRECT;
		res->detail = bad != SIZE_MAX
			? xasprintf("output %zu of %zu is not finite (%g): unwritten or overflowed",
				    bad, z.out, cuda_elem_get(c->h_out, s->dtype, 0))
			: xasprintf("relative error %.3g over the %s bound %.0e (norm over all %zu "
				    "outputs against float64)", res->max_rel_err,
				    s->tf32 ? "tf32" : cuda_dtype_name(s->dtype), tol, z.out);
		return 0;
	}
	c->cur = *cfg;
	c->mod = m;
	if (cuda_replay_prepare(b, c, cause))
		return -1;
	c->has_impl = 1;
	return 0;
}

static int cuda_sample(struct backend *b, size_t i, int flush, struct sample *out, char **cause)
{
	if (i >= b->ncells) {
		*cause = xasprintf("no cell %zu (there are %zu)", i, b->ncells);
		return -1;
	}
	struct cuda_cell *c = b->cells[i];
	if (c->e2e)
		return cuda_model_sample(b, c, flush, out, cause);
	if (!c->has_impl) {
		*cause = xasprintf("cell '%s' has no current config", c->pub.name);
		return -1;
	}
	return cuda_replay_sample(b, c, flush, out, cause);
}

/* ---- open, describe, close -------------------------------------------------------------- */

static void cuda_close(struct backend *b);

/* Placement (docs/kernels.md "Placement"): where a unit's buffers land in device memory
 * moves the same kernel by a few percent (the main job on an H100: cuDNN's same algorithm
 * 5.3% slower in every exhaustive unit than in every default unit, whose allocations differ;
 * A/A copies, allocating alike, agreed within 2%).  A process's allocations are otherwise the
 * same every time, so that effect is a fixed bias of a mode, which no number of blocks
 * removes.  With HARNESS_CUDA_PLACEMENT=random (the default) each unit first allocates a pad
 * of 0 to 126 MiB in 2 MiB steps, drawn from (seed, unit): the placement differs from unit
 * to unit, so the effect becomes variance between processes, which the paired blocks and
 * the A/A control see, as pyperf and Stabilizer randomise layout for the same reason; fixed:
 * no pad.  0, or -1 with *cause (a bad value, or the pad cannot be allocated). */
static int cuda_placement(struct backend *b, const struct backend_ctx *ctx, char **cause)
{
	const char *v = getenv("HARNESS_CUDA_PLACEMENT");
	if (!v || !*v || !strcmp(v, "random")) {
		b->placement_random = 1;
	} else if (!strcmp(v, "fixed")) {
		b->placement_random = 0;
		return 0;
	} else {
		*cause = xasprintf("HARNESS_CUDA_PLACEMENT='%s': expected random or fixed", v);
		return -1;
	}
	b->pad_len = cuda_placement_pad(ctx->seed, ctx->unit);
	if (b->pad_len && CUDA_CHECK(RT, cudaMalloc(&b->pad, b->pad_len), cause))
		return -1;
	return 0;
}

/* A backend switch read from environment variable name: 1 (the default, also when unset or
 * empty) or 0 into *out.  0, or -1 with *cause. */
static int cuda_switch(const char *name, int *out, char **cause)
{
	const char *v = getenv(name);
	if (!v || !*v || !strcmp(v, "1"))
		*out = 1;
	else if (!strcmp(v, "0"))
		*out = 0;
	else {
		*cause = xasprintf("%s='%s': expected 1 or 0", name, v);
		return -1;
	}
	return 0;
}

/* The A/B switches, each 1 by default (device.h's fields; the A/Bs that set the defaults:
 * docs/kernels.md).  0, or -1 with *cause. */
static int cuda_conv_switches(struct backend *b, char **cause)
{
	return cuda_switch("HARNESS_CUDA_CONV_IM2COL", &b->conv_im2col, cause) ||
	       cuda_switch("HARNESS_CUDA_CONV_S2D", &b->conv_s2d, cause) ||
	       cuda_switch("HARNESS_CUDA_CONV_TMA_ONLY", &b->conv_tma_only, cause) ||
	       cuda_switch("HARNESS_CUDA_CLUSTER_ALONG_N", &b->cluster_along_n, cause) ||
	       cuda_switch("HARNESS_CUDA_PDL", &b->pdl, cause) ? -1 : 0;
}

/* HARNESS_CUDA_DNN_API: "graph" (the default: cudnn-graph.c) or "legacy" (cudnn.c; what each
 * costs: docs/kernels.md, "Convolutions").  0, or -1 with *cause. */
static int cuda_dnn_api(struct backend *b, char **cause)
{
	const char *v = getenv("HARNESS_CUDA_DNN_API");
	if (!v || !*v || !strcmp(v, "graph"))
		b->dnn_graph = 1;
	else if (!strcmp(v, "legacy"))
		b->dnn_graph = 0;
	else {
		*cause = xasprintf("HARNESS_CUDA_DNN_API='%s': expected graph or legacy", v);
		return -1;
	}
	return 0;
}

static struct backend *cuda_open(const struct backend_ctx *ctx, char **cause)
{
	struct backend *b = xcalloc(1, sizeof(*b));
	char *why = NULL;
	int l2 = 0, optin = 0;

	for (size_t i = 0; i < ARRAY_SIZE(b->tmpl); i++)
		b->tmpl[i].name = cuda_template_names[i];
	/* as the cpu backend: a kernel cache shared across units on purpose (docs/audit.md) */
	/* the check's float64 reference compiles once a run, not once a unit (1.5-1.8 s of
	 * each cold unit on an H100 host): its cubin is the checker's, the same for every
	 * mode, and no mode's choice depends on it (docs/audit.md, "The check folder") */
	if (backend_env_dir("HARNESS_KERNEL_CACHE_DIR", 0777, ctx->cache_dir, &b->cache_dir,
			    cause) ||
	    backend_env_dir("HARNESS_CHECK_DIR", 0700, b->cache_dir, &b->check_dir, cause))
		goto fail;
	b->kernel_dir = xstrdup(ctx->kernel_dir ? ctx->kernel_dir : backend_kernel_dir());
	b->seed = ctx->seed;
	if ((b->op_graph = cuda_replay_mode(cause)) < 0 || cuda_ahead_init(b, cause))
		goto fail;
	if (!cuda_available(&why)) {
		*cause = why;
		goto fail;
	}
	b->dev = 0;
	if (CUDA_CHECK(RT, cudaSetDevice(b->dev), cause) ||
	    CUDA_CHECK(RT, cudaGetDeviceProperties(&b->prop, b->dev), cause) ||
	    CUDA_CHECK(RT, cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, b->dev), cause) ||
	    CUDA_CHECK(RT, cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
						  b->dev), cause) ||
	    CUDA_CHECK(RT, cudaDeviceGetPCIBusId(b->pci, sizeof(b->pci), b->dev), cause))
		goto fail;
	b->di.cc_major = b->prop.major;
	b->di.cc_minor = b->prop.minor;
	b->di.sms = b->prop.multiProcessorCount;
	b->di.l2_bytes = l2;
	b->di.smem_optin = optin;
	cuda_arch_name(b->prop.major, b->prop.minor, b->di.arch);
	if (CUDA_CHECK(RT, cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking), cause) ||
	    CUDA_CHECK(RT, cudaEventCreate(&b->ev0), cause) ||
	    CUDA_CHECK(RT, cudaEventCreate(&b->ev1), cause) ||
	    CUDA_CHECK(LT, cublasLtCreate(&b->lt), cause) ||
	    CUDA_CHECK(RT, cudaMalloc(&b->lt_ws, LT_WORKSPACE), cause))
		goto fail;
	/* the flush buffer: twice the L2, allocated once, outside every timed region */
	b->flush_len = 2 * (size_t)(l2 > 0 ? l2 : 64 << 20);
	if (CUDA_CHECK(RT, cudaMalloc(&b->flush, b->flush_len), cause) ||
	    cuda_placement(b, ctx, cause) || cuda_conv_switches(b, cause) || cuda_dnn_api(b, cause))
		goto fail;
	b->nvml = cuda_nvml_open(b->pci, &b->nvml_why);
	struct sbuf st;
	sbuf_init(&st);
	cuda_nvml_state(b->nvml, "gpu_open_", &st);
	b->state_open = sbuf_detach(&st);
	return b;
fail:
	cuda_close(b);
	return NULL;
}

static void cuda_counters(const struct backend *b, struct backend_counters *out)
{
	cuda_compile_counters(b, out);
}

static void cuda_describe(const struct backend *b, struct sbuf *out)
{
	sbuf_adds(out, "backend=cuda\n");
	sbuf_addf(out, "kernel_dir=%s\n", b->kernel_dir);
	sbuf_addf(out, "device_name=%s\n", b->prop.name);
	sbuf_addf(out, "device_pci_bus_id=%s\n", b->pci);
	/* the GPU's NUMA node (-1: unknown), beside the host notes' (host_numa_*) */
	sbuf_addf(out, "device_numa_node=%d\n", sysinfo_pci_node(b->pci));
	sbuf_addf(out, "compute_capability=%d.%d\n", b->di.cc_major, b->di.cc_minor);
	sbuf_addf(out, "nvrtc_arch=%s\n", b->di.arch);
	sbuf_addf(out, "sms=%d\n", b->di.sms);
	sbuf_addf(out, "l2_bytes=%ld\n", b->di.l2_bytes);
	sbuf_addf(out, "smem_optin_bytes=%ld\n", b->di.smem_optin);
	sbuf_addf(out, "flush_bytes=%zu\n", b->flush_len);
	sbuf_addf(out, "placement=%s\nplacement_pad_bytes=%zu\n",
		  b->placement_random ? "random" : "fixed", b->pad_len);
	sbuf_addf(out, "nvrtc_fast_compile=%s\ncheck_dir=%s\n",
		  b->fast_compile ? b->fast_compile : "0", b->check_dir);
	sbuf_addf(out, "batch_threshold_ns=%d\n", BATCH_THRESHOLD_NS);
	sbuf_addf(out, "conv_im2col=%d\nconv_s2d=%d\nconv_tma_only=%d\ncluster_along=%s\n"
		  "cudnn_api=%s\npdl=%d\n", b->conv_im2col, b->conv_s2d, b->conv_tma_only,
		  b->cluster_along_n ? "n" : "m", b->dnn_graph ? "graph" : "legacy", b->pdl);
	cuda_ahead_describe(b, out);
	sbuf_addf(out, "timer=cuda events on a dedicated non-blocking stream\n");
	sbuf_addf(out, "op_timing=%s\n", b->op_graph ? "graph (each config's launches replayed "
		  "from a CUDA graph; stream where a capture fails)" : "stream (HARNESS_CUDA_OP_TIMING)");
	sbuf_addf(out, "clock_source=%s\n", b->nvml ? "nvml (read after each sample)" : "none");
	if (b->nvml_why)
		sbuf_addf(out, "nvml_unavailable=%s\n", b->nvml_why);
	cuda_versions(out);
	sbuf_adds(out, "tolerance=relative norm against float64: float32 1e-5, tf32 1e-3, "
		       "float16/bfloat16 1e-2\n");
	sbuf_adds(out, b->state_open);
	cuda_loaded_libraries(out);
}

/* The device's state at the end of the unit, and the libraries loaded by then (NVRTC's
 * builtins and cuBLASLt's kernels are loaded at first use). */
static void cuda_describe_end(const struct backend *b, struct sbuf *out)
{
	cuda_nvml_state(b->nvml, "gpu_close_", out);
	cuda_ahead_describe_end(b, out);
	cuda_model_describe(b, out);
	cuda_replay_describe(b, out);
	for (size_t i = 0; i < ARRAY_SIZE(b->tmpl); i++)
		if (b->tmpl[i].text)
			sbuf_addf(out, "template_%s_sha256=%s\n", b->tmpl[i].name, b->tmpl[i].sha256);
	/* the check's float64 reference on the GPU: compiling its kernels, running them */
	sbuf_addf(out, "cuda_ref_compile_ns=%" PRId64 "\ncuda_ref_ns=%" PRId64 "\n",
		  b->ref_compile_ns, b->ref_ns);
	if (b->ref_verified)
		sbuf_addf(out, "cuda_ref_verified_cells=%" PRId64 "\n", b->ref_verified);
	sbuf_addf(out, "cuda_conv_im2col_maps=%" PRId64 "\n", b->im2col_maps);
	sbuf_addf(out, "cuda_conv_s2d_launches=%" PRId64 "\n", b->s2d_launches);
	sbuf_addf(out, "cuda_conv_partial_launches=%" PRId64 "\n", b->conv_partials);
	sbuf_addf(out, "cuda_cluster_launches=%" PRId64 "\ncuda_conv_cluster_fallbacks=%" PRId64
		  "\ncuda_conv_res_tma_launches=%" PRId64 "\ncuda_conv_res_tma_fallbacks=%" PRId64
		  "\ncuda_conv_tma_only_launches=%" PRId64 "\ncuda_pdl_launches=%" PRId64 "\n",
		  b->cluster_launches, b->cluster_fallbacks, b->res_tma_launches,
		  b->res_tma_fallbacks, b->tma_only_launches, b->pdl_launches);
	cuda_loaded_libraries(out);
}

/* Versions and the device's state once per run, from the scheduler's process (creates no
 * context: NVML and version queries only). */
static void cuda_describe_build(struct sbuf *out)
{
	char *why = NULL;
	cuda_versions(out);
	cuda_loaded_libraries(out);
	if (!cuda_available(&why)) {
		sbuf_addf(out, "cuda_unavailable=%s\n", why);
		free(why);
		return;
	}
	char pci[32];
	if (CUDA_CHECK(RT, cudaDeviceGetPCIBusId(pci, sizeof(pci), 0), NULL))
		return;
	struct cuda_nvml *n = cuda_nvml_open(pci, &why);
	if (!n) {
		sbuf_addf(out, "nvml_unavailable=%s\n", why);
		free(why);
		return;
	}
	cuda_nvml_state(n, "gpu_run_", out);
	cuda_nvml_close(n);
}

static void cuda_close(struct backend *b)
{
	if (!b)
		return;
	cuda_ahead_close(b);
	for (size_t i = 0; i < b->ncells; i++)
		free_cell(b->cells[i]);
	free(b->cells);
	cuda_dnn_close(b);
	for (size_t i = 0; i < b->nmods; i++) {
		cudaLibraryUnload(b->mods[i]->lib);
		free(b->mods[i]);
	}
	free(b->mods);
	free(b->made);
	free(b->stream_why);
	for (size_t i = 0; i < ARRAY_SIZE(b->ref); i++)
		if (b->ref[i].loaded)
			cudaLibraryUnload(b->ref[i].lib);
	if (b->d_err)
		cudaFree(b->d_err);
	if (b->d_sk_flags)
		cudaFree(b->d_sk_flags);
	for (size_t i = 0; i < ARRAY_SIZE(b->tmpl); i++)
		free(b->tmpl[i].text);
	if (b->flush)
		cudaFree(b->flush);
	if (b->pad)
		cudaFree(b->pad);
	if (b->lt_ws)
		cudaFree(b->lt_ws);
	if (b->lt)
		cublasLtDestroy(b->lt);
	if (b->ev0)
		cudaEventDestroy(b->ev0);
	if (b->ev1)
		cudaEventDestroy(b->ev1);
	if (b->stream)
		cudaStreamDestroy(b->stream);
	cuda_nvml_close(b->nvml);
	free(b->nvml_why);
	free(b->state_open);
	free(b->cache_dir);
	free(b->check_dir);
	free(b->kernel_dir);
	free(b);
}

const struct backend_ops backend_cuda = {
	.name = "cuda",
	.available = cuda_available,
	.open = cuda_open,
	.supports = cuda_supports,
	.add_workload = cuda_add_workload,
	.ncells = cuda_ncells,
	.cell = cuda_cell,
	.space = cuda_space,
	.op_space = cuda_op_space,
	.prepare = cuda_prepare,
	.prepare_ahead = cuda_prepare_ahead,
	.sample = cuda_sample,
	.counters = cuda_counters,
	.describe = cuda_describe,
	.describe_end = cuda_describe_end,
	.describe_build = cuda_describe_build,
	.estimate = cuda_estimate,
	.close = cuda_close,
};
