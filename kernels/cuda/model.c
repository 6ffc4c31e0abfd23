/* model.c: ResNet-18 and ResNet-50 on the CUDA backend (docs/kernels.md, "Models on the
 * GPU").  The layer structure is torchvision's (torchvision/models/resnet.py, as the cpu
 * backend's kernels/cpu/models.c): conv1 7x7/2, maxpool 3x3/2, BasicBlock [2,2,2,2] or
 * Bottleneck [3,4,6,3] with the stride on the 3x3 conv, 1x1 downsample convs, global average
 * pool, fc 1000.  Inference form, NHWC, batch norm folded into the convs' bias, every
 * epilogue fused: a conv followed by bn and relu is one conv2d_bias_relu, a downsample conv
 * one conv2d_bias, and a block's last conv one conv2d_bias_relu_add that takes the identity
 * (or the downsample's output) as its residual.  The fc is a gemm (cuBLASLt as its vendor)
 * and its bias conv.cu's conv_epilogue, outside every op cell (as the cpu's fc bias).
 *
 * Cells (backend-cuda.c makes them through cuda_model_add): one op cell per distinct (op,
 * shape) with its count of occurrences in one forward, then two e2e cells: "<w>/e2e" (the
 * forward as plain launches on the backend's stream) and "<w>/e2e-graph" (the same forward
 * captured once into a CUDA graph, outside every timed region, and replayed).  Each forward
 * step runs its op cell's current config (the mode's choice; a vendor config on cuDNN or
 * cuBLASLt) on the model's own buffers.  The e2e check compares the forward's logits with
 * the vendor forward's (every op on its cell's first vendor candidate: cuDNN's and
 * cuBLASLt's heuristic choice, the memory-bound templates at their defaults), by the
 * relative norm of the difference over a bound per dtype (cuda_model_tolerance); a forward
 * that misses it, or is not finite, fails the e2e cell and with it the unit.
 *
 * The model's construction (cuda_model_build) is model-build.c's, and needs no device. */
#include "config.h"
#include "kernels/cuda/device.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- cells ------------------------------------------------------------------------------ */

/* The device side of an e2e cell.  The stream cell owns the model and its buffers; the graph
 * cell points at them (shared) and owns only its graph. */
struct cuda_e2e {
	struct cuda_model *m;
	struct cuda_e2e *shared;       /* the graph cell: the stream cell's e2e; else NULL */
	int graph;
	size_t first_cell;           /* the workload's op cells: [first_cell, e2e cell) */
	/* device data (stream cell), allocated at the first prepare of either cell */
	int has_data;
	void *d_input, *d_slot[CUDA_MODEL_SLOTS];
	void **d_param;              /* per step */
	void *h_buf;                 /* the logits, copied back for the check */
	double *ref;                 /* the vendor forward's logits (host, float64) */
	cudaKernel_t bias_k;         /* conv_epilogue of a vendor conv module (the fc bias) */
	/* the graph cell */
	cudaGraph_t g;
	cudaGraphExec_t ge;
	int ok;                      /* the last prepare passed its check */
	double err;                  /* its relative error against the vendor forward */
	/* itemised forward (describe_end), measured once after the check */
	int64_t *part_ns;            /* per step, event-timed */
};

int cuda_model_add(struct backend *b, const struct workload *w, const char *name, char **cause)
{
	struct cuda_model *m = NULL;
	int t = cuda_dtype_from_name(w->dtype ? w->dtype : "float32");
	if (t < 0) {
		*cause = xasprintf("dtype '%s' is not one the cuda backend has", w->dtype);
		return -1;
	}
	if (cuda_model_build(w->model, w->batch > 0 ? w->batch : 1, w->resolution,
			     (enum cuda_dtype)t, w->tf32 > 0, &m, cause))
		return -1;
	size_t first = b->ncells;
	struct sbuf shape;
	sbuf_init(&shape);
	for (size_t i = 0; i < m->nsteps; i++) {
		struct cuda_model_step *st = &m->steps[i];
		sbuf_reset(&shape);
		cuda_shape_format(&st->shape, &shape);
		const char *op = cuda_op_name(st->shape.op);
		size_t c = first;
		while (c < b->ncells && (strcmp(b->cells[c]->pub.op, op) ||
					 strcmp(b->cells[c]->pub.shape, shape.buf)))
			c++;
		if (c == b->ncells) {
			struct cuda_cell *cell = cuda_op_cell_add(b, name, op, &st->shape, cause);
			if (!cell) {
				sbuf_release(&shape);
				cuda_model_free(m);
				return -1;
			}
			cell->pub.count = 0;
		}
		b->cells[c]->pub.count++;
		st->cell = c;
	}
	for (int graph = 0; graph < 2; graph++) {
		struct cuda_cell *e = xcalloc(1, sizeof(*e));
		e->pub.kind = CELL_E2E;
		e->pub.workload = xstrdup(name);
		e->pub.op = xstrdup("e2e");
		e->pub.shape = xasprintf("batch=%" PRId64 ",resolution=%" PRId64 "%s", m->batch,
					 m->resolution, graph ? ",launch=graph" : "");
		e->pub.name = xasprintf("%s/%s", name, graph ? "e2e-graph" : "e2e");
		e->pub.count = 1;
		e->pub.flops = cuda_model_flops(m);
		e->sctx.shape.dtype = m->dtype;
		e->sctx.shape.tf32 = m->tf32;
		e->launches = 1;
		e->e2e = xcalloc(1, sizeof(*e->e2e));
		e->e2e->graph = graph;
		e->e2e->first_cell = first;
		if (graph)
			e->e2e->shared = b->cells[b->ncells - 1]->e2e;
		else
			e->e2e->m = m;
		XGROW(b->cells, b->cap, b->ncells + 1);
		b->cells[b->ncells++] = e;
	}
	sbuf_release(&shape);
	return 0;
}

void cuda_model_cell_free(struct cuda_cell *c)
{
	struct cuda_e2e *e = c->e2e;
	if (!e)
		return;
	if (e->ge)
		cudaGraphExecDestroy(e->ge);
	if (e->g)
		cudaGraphDestroy(e->g);
	if (!e->shared) {
		if (e->d_input)
			cudaFree(e->d_input);
		for (int s = 0; s < CUDA_MODEL_SLOTS; s++)
			if (e->d_slot[s])
				cudaFree(e->d_slot[s]);
		for (size_t i = 0; e->d_param && i < e->m->nsteps; i++)
			if (e->d_param[i])
				cudaFree(e->d_param[i]);
		free(e->d_param);
		free(e->h_buf);
		free(e->ref);
		free(e->part_ns);
		cuda_model_free(e->m);
	}
	free(e);
	c->e2e = NULL;
}

/* ---- data ------------------------------------------------------------------------------- */

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Weights He-uniform, U(-sqrt(6 / fan_in), +sqrt(6 / fan_in)), biases U(-0.1, 0.1), the image
 * U(-1, 1), all from the run's seed and the workload's name (as the cpu backend's models). */
static int alloc_model(struct backend *b, struct cuda_e2e *e, uint64_t seed, char **cause)
{
	struct cuda_model *m = e->m;
	size_t es = cuda_dtype_size(m->dtype);
	size_t big = m->input_elems;
	uint64_t rng = seed | 1;
	for (size_t i = 0; i < m->nsteps; i++)
		if (m->steps[i].nparam > big)
			big = m->steps[i].nparam;
	void *h = xmalloc(big * es);
	int ret = -1;
	e->d_param = xcalloc(m->nsteps, sizeof(*e->d_param));
	for (size_t i = 0; i < m->nsteps; i++) {
		const struct cuda_model_step *st = &m->steps[i];
		if (!st->nparam)
			continue;
		size_t nw = st->nparam - (size_t)(cuda_conv_is(st->shape.op) ? st->shape.kout
									     : st->shape.n);
		double a = sqrt(6.0 / st->fan_in);
		for (size_t j = 0; j < st->nparam; j++) {
			double u = (double)(xorshift(&rng) >> 11) * 0x1.0p-53;
			float v = (float)((j < nw ? a : 0.1) * (2.0 * u - 1.0));
			cuda_store_float(h, m->dtype, j, m->tf32 ? cuda_tf32_round(v) : v);
		}
		if (cuda_upload(b, &e->d_param[i], h, st->nparam * es, cause))
			goto done;
	}
	cuda_fill_uniform(h, m->dtype, m->input_elems, &rng);
	for (size_t j = 0; m->tf32 && j < m->input_elems; j++) /* TF32 operands: wgmma.cuh */
		((float *)h)[j] = cuda_tf32_round(((float *)h)[j]);
	if (cuda_upload(b, &e->d_input, h, m->input_elems * es, cause))
		goto done;
	for (int s = 0; s < CUDA_MODEL_SLOTS; s++)
		if (CUDA_CHECK(RT, cudaMalloc(&e->d_slot[s], m->slot_elems * es), cause) ||
		    CUDA_CHECK(RT, cudaMemsetAsync(e->d_slot[s], 0, m->slot_elems * es, b->stream),
			       cause))
			goto done;
	e->h_buf = xmalloc(m->nout * es);
	e->part_ns = xcalloc(m->nsteps, sizeof(*e->part_ns));
	e->has_data = 1;
	ret = 0;
done:
	free(h);
	return ret;
}

/* ---- the forward ------------------------------------------------------------------------ */

/* One step on the model's buffers: the op cell's buffers pointed at them for the launch, the
 * output into y (NULL: the step's slot). */
static int run_step(struct backend *b, struct cuda_e2e *e, size_t i, const struct config *cfg,
		    struct cuda_module *mod, void *y, char **cause)
{
	const struct cuda_model *m = e->m;
	const struct cuda_model_step *st = &m->steps[i];
	struct cuda_cell *c = b->cells[st->cell];
	void *in[3], *out = c->d_out;
	if (!y)
		y = e->d_slot[st->out];
	memcpy(in, c->d_in, sizeof(in));
	c->d_in[0] = st->in == CUDA_MODEL_INPUT ? e->d_input : e->d_slot[st->in];
	c->d_in[1] = e->d_param[i];
	c->d_in[2] = st->res >= 0 ? e->d_slot[st->res] : NULL;
	c->d_out = y;
	int rc = cuda_cell_run(b, c, cfg, mod, cause);
	memcpy(c->d_in, in, sizeof(in));
	c->d_out = out;
	if (rc || !st->fc_bias)
		return rc;
	/* the fc's bias, in place on the logits */
	const void *bias = (const char *)e->d_param[i] +
			   (size_t)(st->shape.n * st->shape.k) * cuda_dtype_size(m->dtype);
	long long total = (long long)(st->shape.m * st->shape.n);
	int K = (int)st->shape.n, epi = 1;
	void *args[] = { &y, (void *)&bias, &y, &total, &K, &epi };
	dim3 g = { (unsigned)((total + 255) / 256), 1, 1 }, bl = { 256, 1, 1 };
	return CUDA_CHECK(RT, cudaLaunchKernel((const void *)e->bias_k, g, bl, args, 0, b->stream),
			  cause);
}

/* The whole forward: each step on its op cell's current config, or (vendor) on its first
 * vendor candidate with the modules in vmod.  ev: NULL, or nsteps + 1 events recorded around
 * the steps (the itemised forward). */
static int forward(struct backend *b, struct cuda_e2e *e, struct cuda_module **vmod,
		   cudaEvent_t *ev, char **cause)
{
	static const struct config vendor = { .vendor = 1, .vendor_idx = 0 };
	/* HARNESS_CUDA_MODEL_FAULT=1 (tests/cli/cuda-model.sh): the forward on the current
	 * configs leaves out its maxpool, so the e2e check must fail the unit */
	const char *fault = getenv("HARNESS_CUDA_MODEL_FAULT");
	int skip_pool = !vmod && fault && !strcmp(fault, "1");
	for (size_t i = 0; i < e->m->nsteps; i++) {
		struct cuda_cell *c = b->cells[e->m->steps[i].cell];
		if (skip_pool && c->sctx.shape.op == CUDA_MAXPOOL)
			continue;
		if (ev && CUDA_CHECK(RT, cudaEventRecord(ev[i], b->stream), cause))
			return -1;
		if (run_step(b, e, i, vmod ? &vendor : &c->cur, vmod ? vmod[i] : c->mod, NULL,
			     cause))
			return -1;
	}
	if (ev && CUDA_CHECK(RT, cudaEventRecord(ev[e->m->nsteps], b->stream), cause))
		return -1;
	return 0;
}

/* The logits on the host as float64 (into out, nout of them), after the stream is done. */
static int logits(struct backend *b, struct cuda_e2e *e, double *out, char **cause)
{
	const struct cuda_model *m = e->m;
	size_t es = cuda_dtype_size(m->dtype);
	if (CUDA_CHECK(RT, cudaMemcpyAsync(e->h_buf, e->d_slot[m->out_slot], m->nout * es,
					   cudaMemcpyDeviceToHost, b->stream), cause) ||
	    CUDA_CHECK(RT, cudaStreamSynchronize(b->stream), cause))
		return -1;
	for (size_t i = 0; i < m->nout; i++)
		out[i] = cuda_elem_get(e->h_buf, m->dtype, i);
	return 0;
}

/* The vendor forward's logits, once per model: each op cell's first vendor candidate (its
 * module compiled or loaded like any config's; the vendor conv module also gives the fc's
 * bias kernel). */
static int vendor_modules(struct backend *b, struct cuda_e2e *e, struct cuda_module **vmod,
			  char **cause)
{
	static const struct config vendor = { .vendor = 1, .vendor_idx = 0 };
	const struct cuda_model *m = e->m;
	for (size_t i = 0; i < m->nsteps; i++) {
		struct cuda_cell *c = b->cells[m->steps[i].cell];
		if (c->sctx.shape.op == CUDA_GEMM)
			continue; /* cuBLASLt: no module */
		struct prepare_result res = { 0 };
		if (cuda_get_module(b, c, &vendor, &vmod[i], &res, cause))
			return -1;
		if (res.status != PREPARE_OK) {
			*cause = xasprintf("the vendor config of '%s' does not build: %s", c->pub.name,
					   res.detail ? res.detail : "compile error");
			prepare_result_release(&res);
			return -1;
		}
		prepare_result_release(&res);
		if (!e->bias_k && cuda_conv_is(c->sctx.shape.op) &&
		    CUDA_CHECK(RT, cudaLibraryGetKernel(&e->bias_k, vmod[i]->lib, "conv_epilogue"),
			       cause))
			return -1;
	}
	return 0;
}

static int vendor_forward(struct backend *b, struct cuda_e2e *e, char **cause)
{
	const struct cuda_model *m = e->m;
	struct cuda_module **vmod = xcalloc(m->nsteps, sizeof(*vmod));
	int ret = -1;
	if (vendor_modules(b, e, vmod, cause))
		goto done;
	e->ref = xmalloc(m->nout * sizeof(*e->ref));
	if (forward(b, e, vmod, NULL, cause) || logits(b, e, e->ref, cause))
		goto done;
	ret = 0;
done:
	free(vmod);
	return ret;
}

/* ||y - ref|| / ||ref|| (INFINITY when y has a non-finite value, *bad its index). */
static double rel_error(const double *y, const double *ref, size_t n, size_t *bad)
{
	double num = 0, den = 0;
	*bad = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(y[i])) {
			*bad = i;
			return INFINITY;
		}
		num += (y[i] - ref[i]) * (y[i] - ref[i]);
		den += ref[i] * ref[i];
	}
	return den > 0 ? sqrt(num / den) : sqrt(num);
}

/* Where a wrong forward goes wrong: the vendor forward again, step by step, each step first
 * run on its current config into a scratch buffer poisoned with NaN, on the same (vendor)
 * inputs, and compared with the vendor step's output.  "; first off: ..." naming the first
 * step over its op cell's bound (cuda_tolerance), else the step the furthest off, into
 * *where (heap); 0, or -1 on an error. */
static int localize(struct backend *b, struct cuda_e2e *e, char **where, char **cause)
{
	static const struct config vendor = { .vendor = 1, .vendor_idx = 0 };
	const struct cuda_model *m = e->m;
	size_t es = cuda_dtype_size(m->dtype), worst = SIZE_MAX, first = SIZE_MAX;
	double worst_err = -1, first_err = 0;
	struct cuda_module **vmod = xcalloc(m->nsteps, sizeof(*vmod));
	void *scratch = NULL, *h_cur = xmalloc(m->slot_elems * es);
	void *h_ven = xmalloc(m->slot_elems * es);
	double *yc = xmalloc(m->slot_elems * sizeof(*yc));
	double *yv = xmalloc(m->slot_elems * sizeof(*yv));
	const char *fault = getenv("HARNESS_CUDA_MODEL_FAULT");
	int ret = -1;
	if (vendor_modules(b, e, vmod, cause) ||
	    CUDA_CHECK(RT, cudaMalloc(&scratch, m->slot_elems * es), cause))
		goto done;
	for (size_t i = 0; i < m->nsteps && first == SIZE_MAX; i++) {
		const struct cuda_model_step *st = &m->steps[i];
		struct cuda_cell *c = b->cells[st->cell];
		struct cuda_sizes z;
		cuda_shape_sizes(&st->shape, &z);
		size_t bad;
		/* the fault of forward() (cuda-model.sh): the current maxpool writes nothing */
		int skip = fault && !strcmp(fault, "1") && st->shape.op == CUDA_MAXPOOL;
		if (CUDA_CHECK(RT, cudaMemsetAsync(scratch, 0xff, z.out * es, b->stream), cause) ||
		    (!skip && run_step(b, e, i, &c->cur, c->mod, scratch, cause)) ||
		    run_step(b, e, i, &vendor, vmod[i], NULL, cause) ||
		    CUDA_CHECK(RT, cudaMemcpyAsync(h_cur, scratch, z.out * es,
						   cudaMemcpyDeviceToHost, b->stream), cause) ||
		    CUDA_CHECK(RT, cudaMemcpyAsync(h_ven, e->d_slot[st->out], z.out * es,
						   cudaMemcpyDeviceToHost, b->stream), cause) ||
		    CUDA_CHECK(RT, cudaStreamSynchronize(b->stream), cause))
			goto done;
		for (size_t j = 0; j < z.out; j++) {
			yc[j] = cuda_elem_get(h_cur, m->dtype, j);
			yv[j] = cuda_elem_get(h_ven, m->dtype, j);
		}
		double err = rel_error(yc, yv, z.out, &bad);
		if (!(err <= cuda_tolerance(&st->shape)))
			first = i, first_err = err;
		if (err > worst_err)
			worst = i, worst_err = err;
	}
	size_t i = first != SIZE_MAX ? first : worst;
	if (i != SIZE_MAX) {
		struct cuda_cell *c = b->cells[m->steps[i].cell];
		struct sbuf cfg;
		sbuf_init(&cfg);
		config_format(&c->space, &c->cur, &cfg);
		*where = xasprintf("; %s: step %zu of %zu, '%s' on '%s', %.3g off the vendor "
				   "config's output on the same inputs (the op's bound %.0e)",
				   first != SIZE_MAX ? "first off" : "none over its op's bound, the "
				   "furthest off", i + 1, m->nsteps, c->pub.name, cfg.buf,
				   first != SIZE_MAX ? first_err : worst_err,
				   cuda_tolerance(&m->steps[i].shape));
		sbuf_release(&cfg);
	}
	ret = 0;
done:
	if (scratch)
		cudaFree(scratch);
	free(vmod), free(h_cur), free(h_ven), free(yc), free(yv);
	return ret;
}

/* The forward on the current configs (or the graph's replay) against the vendor forward:
 * every activation is poisoned with NaN first, so a step that writes nothing fails. */
static int check(struct backend *b, struct cuda_cell *c, struct cuda_e2e *e, int graph,
		 struct prepare_result *res, char **cause)
{
	const struct cuda_model *m = e->m;
	size_t es = cuda_dtype_size(m->dtype), bad;
	double *y = xmalloc(m->nout * sizeof(*y));
	int ret = -1;
	/* every activation poisoned (all-ones bytes are a NaN in every dtype), not only the
	 * logits: the vendor forward left right values in the slots, which a step that writes
	 * nothing would pass on */
	for (int k = 0; k < CUDA_MODEL_SLOTS; k++)
		if (CUDA_CHECK(RT, cudaMemsetAsync(e->d_slot[k], 0xff, m->slot_elems * es,
						   b->stream), cause))
			goto done;
	if (graph ? CUDA_CHECK(RT, cudaGraphLaunch(c->e2e->ge, b->stream), cause)
		  : forward(b, e, NULL, NULL, cause))
		goto done;
	if (logits(b, e, y, cause))
		goto done;
	double tol = cuda_model_tolerance(m->dtype, m->tf32);
	c->e2e->err = res->max_rel_err = rel_error(y, e->ref, m->nout, &bad);
	if (bad == SIZE_MAX && res->max_rel_err <= tol) {
		ret = 0;
		goto done;
	}
	char *where = NULL;
	if (localize(b, e, &where, cause))
		goto done;
	res->status = PREPARE_INCORRECT;
	if (bad != SIZE_MAX)
		res->detail = xasprintf("the %s forward's logit %zu of %zu is not finite (%g)%s",
					graph ? "graph's" : "stream", bad, m->nout, y[bad],
					where ? where : "");
	else
		res->detail = xasprintf("the %s forward's logits are off the vendor forward's by "
					"%.3g (relative norm over %zu logits), over the %s bound "
					"%.0e%s", graph ? "graph's" : "stream", res->max_rel_err,
					m->nout, m->tf32 ? "tf32" : cuda_dtype_name(m->dtype), tol,
					where ? where : "");
	free(where);
	ret = 0;
done:
	free(y);
	return ret;
}

/* The graph cell's graph: the forward on the current configs captured once (relaxed mode:
 * the launches' host-side calls are not stream work), instantiated; the stream forward ran
 * just before, so no workspace grows during the capture. */
static int capture(struct backend *b, struct cuda_e2e *g, struct cuda_e2e *e,
		   struct prepare_result *res, char **cause)
{
	cudaGraph_t graph = NULL;
	char *why = NULL;
	if (g->ge)
		cudaGraphExecDestroy(g->ge);
	if (g->g)
		cudaGraphDestroy(g->g);
	g->ge = NULL, g->g = NULL;
	if (CUDA_CHECK(RT, cudaStreamBeginCapture(b->stream, cudaStreamCaptureModeRelaxed), cause))
		return -1;
	int rc = forward(b, e, NULL, NULL, &why);
	cudaError_t end = cudaStreamEndCapture(b->stream, &graph);
	if (rc || end != cudaSuccess) {
		if (graph)
			cudaGraphDestroy(graph);
		cudaGetLastError();
		res->status = PREPARE_COMPILE_ERROR;
		res->detail = xasprintf("the forward cannot be captured into a CUDA graph: %s",
					why ? why : cuda_status_string(RT, end));
		free(why);
		return 0;
	}
	g->g = graph;
	return CUDA_CHECK(RT, cudaGraphInstantiate(&g->ge, graph, 0), cause) ||
	       CUDA_CHECK(RT, cudaGraphUpload(g->ge, b->stream), cause);
}

/* The itemised forward: each step's time from events around it, the median of 5 forwards. */
static int itemise(struct backend *b, struct cuda_e2e *e, char **cause)
{
	enum { REPS = 5 };
	size_t n = e->m->nsteps;
	cudaEvent_t *ev = xcalloc(n + 1, sizeof(*ev));
	int64_t *v = xmalloc(REPS * n * sizeof(*v));
	int ret = -1;
	for (size_t i = 0; i <= n; i++)
		if (CUDA_CHECK(RT, cudaEventCreate(&ev[i]), cause))
			goto done;
	for (int r = 0; r < REPS; r++) {
		if (forward(b, e, NULL, ev, cause) ||
		    CUDA_CHECK(RT, cudaEventSynchronize(ev[n]), cause))
			goto done;
		for (size_t i = 0; i < n; i++) {
			float ms = 0;
			if (CUDA_CHECK(RT, cudaEventElapsedTime(&ms, ev[i], ev[i + 1]), cause))
				goto done;
			v[i * REPS + r] = llround((double)ms * 1e6);
		}
	}
	for (size_t i = 0; i < n; i++) {
		int64_t *x = v + i * REPS; /* median of 5 by insertion sort */
		for (int a = 1; a < REPS; a++)
			for (int k = a; k > 0 && x[k - 1] > x[k]; k--) {
				int64_t t = x[k];
				x[k] = x[k - 1], x[k - 1] = t;
			}
		e->part_ns[i] = x[REPS / 2];
	}
	ret = 0;
done:
	for (size_t i = 0; i <= n; i++)
		if (ev[i])
			cudaEventDestroy(ev[i]);
	free(ev);
	free(v);
	return ret;
}

int cuda_model_prepare(struct backend *b, struct cuda_cell *c, struct prepare_result *res,
		     char **cause)
{
	struct cuda_e2e *e = c->e2e->shared ? c->e2e->shared : c->e2e;
	const struct cuda_model *m = e->m;
	c->e2e->ok = 0;
	for (size_t i = 0; i < m->nsteps; i++) {
		const struct cuda_cell *oc = b->cells[m->steps[i].cell];
		if (!oc->has_impl) {
			*cause = xasprintf("cell '%s' needs every op cell prepared: '%s' has no "
					   "current config", c->pub.name, oc->pub.name);
			return -1;
		}
	}
	int64_t t0 = util_now_ns();
	if (!e->has_data) {
		uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a of the workload's name */
		for (const unsigned char *p = (const unsigned char *)c->pub.workload; *p; p++)
			h = (h ^ *p) * 0x100000001b3ULL;
		if (alloc_model(b, e, b->seed ^ h, cause))
			return -1;
	}
	if (!e->ref && vendor_forward(b, e, cause))
		return -1;
	/* the stream forward first (its check also grows every workspace, so that nothing is
	 * allocated while the graph is captured), then the graph's replay */
	if (check(b, c, e, 0, res, cause))
		return -1;
	if (c->e2e->graph && res->status == PREPARE_OK &&
	    (capture(b, c->e2e, e, res, cause) ||
	     (res->status == PREPARE_OK && check(b, c, e, 1, res, cause))))
		return -1;
	res->check_ns = util_now_ns() - t0;
	if (res->status == PREPARE_OK && !c->e2e->graph && itemise(b, e, cause))
		return -1;
	b->t_model_ns += util_now_ns() - t0;
	if (res->status != PREPARE_OK)
		return 0;
	c->e2e->ok = 1;
	return 0;
}

int cuda_model_sample(struct backend *b, struct cuda_cell *c, int flush, struct sample *out,
		    char **cause)
{
	struct cuda_e2e *e = c->e2e->shared ? c->e2e->shared : c->e2e;
	float ms = 0;
	if (!c->e2e->ok) {
		*cause = xasprintf("cell '%s' was not prepared", c->pub.name);
		return -1;
	}
	if (flush && CUDA_CHECK(RT, cudaMemsetAsync(b->flush, (int)(++b->flush_gen & 0xff),
						    b->flush_len, b->stream), cause))
		return -1;
	if (CUDA_CHECK(RT, cudaEventRecord(b->ev0, b->stream), cause))
		return -1;
	if (c->e2e->graph ? CUDA_CHECK(RT, cudaGraphLaunch(c->e2e->ge, b->stream), cause)
			  : forward(b, e, NULL, NULL, cause))
		return -1;
	if (CUDA_CHECK(RT, cudaEventRecord(b->ev1, b->stream), cause) ||
	    CUDA_CHECK(RT, cudaEventSynchronize(b->ev1), cause) ||
	    CUDA_CHECK(RT, cudaEventElapsedTime(&ms, b->ev0, b->ev1), cause))
		return -1;
	out->ns = llround((double)ms * 1e6);
	out->launches = 1;
	cuda_nvml_sample(b->nvml, &out->clock_mhz, &out->throttle, &out->clock_reasons);
	return 0;
}

/* The captured forward's shape: its nodes, its kernel nodes, its edges and of them the
 * programmatic ones (a kernel launched with programmatic dependent launch may start before
 * the one it depends on has finished: `to` waits at its griddepcontrol.wait, the edge's
 * port says from where, the trigger or the launch's completion).  A forward of a library's
 * kernels that chain this way overlaps each kernel's start with the last one's tail, and a
 * kernel that does not (the harness's templates) breaks the chain on both sides.  Measured
 * (docs/BENCHMARKS.md, 2026-11-27): cuDNN's graph API chains some of its kernels, its legacy
 * API none, so on the legacy path this is not why op-cell wins fail to compose. */
static void graph_shape(cudaGraph_t g, const char *name, struct sbuf *out)
{
	size_t nn = 0, ne = 0, kernels = 0, prog = 0, launch = 0;
	if (cudaGraphGetNodes(g, NULL, &nn) != cudaSuccess ||
	    cudaGraphGetEdges(g, NULL, NULL, NULL, &ne) != cudaSuccess) {
		cudaGetLastError();
		return;
	}
	cudaGraphNode_t *nodes = xcalloc(nn + 1, sizeof(*nodes));
	cudaGraphNode_t *from = xcalloc(ne + 1, sizeof(*from)), *to = xcalloc(ne + 1, sizeof(*to));
	cudaGraphEdgeData *ed = xcalloc(ne + 1, sizeof(*ed));
	if (cudaGraphGetNodes(g, nodes, &nn) != cudaSuccess ||
	    cudaGraphGetEdges(g, from, to, ed, &ne) != cudaSuccess) {
		cudaGetLastError();
		goto done;
	}
	for (size_t i = 0; i < nn; i++) {
		enum cudaGraphNodeType t;
		if (cudaGraphNodeGetType(nodes[i], &t) == cudaSuccess && t == cudaGraphNodeTypeKernel)
			kernels++;
	}
	for (size_t i = 0; i < ne; i++)
		if (ed[i].type == cudaGraphDependencyTypeProgrammatic) {
			prog++;
			launch += ed[i].from_port == cudaGraphKernelNodePortLaunchCompletion;
		}
	sbuf_addf(out,
		  "e2e_%s_graph_nodes=%zu\ne2e_%s_graph_kernels=%zu\ne2e_%s_graph_edges=%zu\n"
		  "e2e_%s_graph_programmatic_edges=%zu\ne2e_%s_graph_launch_completion_edges=%zu\n",
		  name, nn, name, kernels, name, ne, name, prog, name, launch);
done:
	free(nodes);
	free(from);
	free(to);
	free(ed);
}

/* Per checked stream e2e cell: each op kind's event-timed share of the forward (the median
 * of 5 itemised forwards, per step), the fc's bias inside op_gemm, and their sum; per
 * checked graph cell, its graph's shape (graph_shape). */
void cuda_model_describe(const struct backend *b, struct sbuf *out)
{
	for (size_t i = 0; i < b->ncells; i++) {
		const struct cuda_cell *c = b->cells[i];
		if (!c->e2e || c->e2e->graph || !c->e2e->ok)
			continue;
		const struct cuda_e2e *e = c->e2e;
		int64_t per[CUDA_NOPS] = { 0 }, total = 0;
		int used[CUDA_NOPS] = { 0 };
		for (size_t k = 0; k < e->m->nsteps; k++) {
			enum cuda_op op = e->m->steps[k].shape.op;
			per[op] += e->part_ns[k];
			used[op] = 1;
			total += e->part_ns[k];
		}
		for (int k = 0; k < CUDA_NOPS; k++)
			if (used[k])
				sbuf_addf(out, "e2e_part.%s.op_%s_ns=%" PRId64 "\n", c->pub.name,
					  cuda_op_name((enum cuda_op)k), per[k]);
		sbuf_addf(out, "e2e_part.%s.forward_ns=%" PRId64 "\n", c->pub.name, total);
		sbuf_addf(out, "e2e_%s_steps=%zu\ne2e_%s_rel_err=%.3g\n", c->pub.name,
			  e->m->nsteps, c->pub.name, e->err);
		if (i + 1 < b->ncells && b->cells[i + 1]->e2e && b->cells[i + 1]->e2e->graph &&
		    b->cells[i + 1]->e2e->ok) {
			const struct cuda_cell *gc = b->cells[i + 1];
			sbuf_addf(out, "e2e_%s_rel_err=%.3g\n", gc->pub.name, gc->e2e->err);
			if (gc->e2e->g)
				graph_shape(gc->e2e->g, gc->pub.name, out);
		}
	}
}
