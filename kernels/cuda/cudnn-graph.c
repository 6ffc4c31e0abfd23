/* cudnn-graph.c: cuDNN as the vendor path of the conv ops through its graph API, the default
 * (HARNESS_CUDA_DNN_API=legacy takes cudnn.c's legacy API instead; docs/kernels.md,
 * "Convolutions", says what each costs).  Per conv cell two operation graphs: the
 * convolution with the op's epilogue (residual, bias, ReLU as pointwise nodes on float
 * intermediates, in the legacy call's order), and, for ops with an epilogue, the convolution
 * alone, followed by conv.cu's conv_epilogue kernel.  The cell's vendor candidates are the
 * engine configs cuDNN's heuristic (mode A, else its fallback list) ranks for each graph, the
 * fused graph's first, each "vendor:engine=E,rank=R,fused=F", with an execution plan built
 * once (the first candidate's at cell set-up, so it always runs; the rest when first tried)
 * and a workspace of its own, so a launch is one cudnnBackendExecute with a variant pack
 * cached per set of buffers: about 5-13 us of host time a call against the legacy call's
 * 47-185 us (docs/BENCHMARKS.md, 2026-11-26, eighth session), which makes the stream-launched
 * ResNet-50 fp16 forward 9x faster than the legacy API's (2026-11-29). */
#include "config.h"
#include "kernels/cuda/device.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cudnn.h>

typedef cudnnBackendDescriptor_t dnn_desc;

/* the tensors' unique ids in every graph and variant pack */
enum { UID_X = 1, UID_W, UID_Y, UID_BIAS, UID_RES, UID_V0 };
#define DNN_VPS 12 /* variant packs cached a cell: its own buffers and a forward's layers */
/* engine configs kept as candidates (each plan built when first tried, a runtime-compiled
 * engine's in up to a second) */
#define DNN_CANDIDATES 8 /* a graph */
_Static_assert(2 * DNN_CANDIDATES <= SPACE_MAX_VENDORS, "candidates are vendor points");

struct dnn_plan {
	dnn_desc plan;     /* NULL until built */
	/* its own workspace (NULL when it needs none), freed with the cell: a plan shares none
	 * with another (docs/kernels.md says why) */
	void *ws_buf;
	int failed;        /* its plan did not build (its first launch said why) */
	int64_t engine;    /* cuDNN's global engine index */
	int rank;          /* its place in the heuristic's list */
	int fused;         /* 1: its graph holds the op's epilogue; 0: conv_epilogue follows */
};

struct dnn_vp {
	const void *ptr[6]; /* x, w, bias, res, y, workspace */
	size_t plan;
	dnn_desc vp;
};

struct cuda_dnng_cell {
	cudnnHandle_t h;   /* the backend's (cuda_dnn_handle), borrowed */
	dnn_desc *owned;   /* every descriptor made for the cell, destroyed at free */
	size_t nowned, owncap;
	dnn_desc cfg[SPACE_MAX_VENDORS];
	struct dnn_plan plan[SPACE_MAX_VENDORS];
	size_t nplan;
	int64_t bias_align; /* bytes: the biases' offset after the weights, as a power of two */
	int64_t build_ns;  /* spent building plans */
	struct dnn_vp vps[DNN_VPS];
	size_t nvps, vpnext;
	cudaKernel_t epi;  /* conv_epilogue of epi_mod, looked up once */
	const struct cuda_module *epi_mod;
};

void cuda_dnng_cell_free(struct cuda_cell *c)
{
	struct cuda_dnng_cell *d = c->dnng;
	if (!d)
		return;
	for (size_t i = 0; i < d->nvps; i++)
		cudnnBackendDestroyDescriptor(d->vps[i].vp);
	for (size_t k = 0; k < d->nplan; k++)
		if (d->plan[k].ws_buf)
			cudaFree(d->plan[k].ws_buf);
	/* the latest first: a plan before its config, an operation before its tensors */
	for (size_t i = d->nowned; i-- > 0;)
		cudnnBackendDestroyDescriptor(d->owned[i]);
	free(d->owned);
	free(d);
	c->dnng = NULL;
}

/* ---- building the graph ---------------------------------------------------------------- */

static int mk(struct cuda_dnng_cell *d, cudnnBackendDescriptorType_t type, dnn_desc *out,
	      char **cause)
{
	if (CUDA_CHECK(DNN, cudnnBackendCreateDescriptor(type, out), cause))
		return -1;
	XGROW(d->owned, d->owncap, d->nowned + 1);
	d->owned[d->nowned++] = *out;
	return 0;
}

#define SET(desc, attr, type, n, val) \
	CUDA_CHECK(DNN, cudnnBackendSetAttribute(desc, attr, type, n, val), cause)

/* A tensor of logical dimensions n, c, h, w laid out NHWC; virtual ones are the epilogue's
 * float intermediates, never in memory. */
static int mk_tensor(struct cuda_dnng_cell *d, dnn_desc *t, int64_t uid, int64_t n, int64_t ch,
		     int64_t h, int64_t w, cudnnDataType_t type, bool virt, char **cause)
{
	int64_t dim[4] = { n, ch, h, w }, st[4] = { ch * h * w, 1, w * ch, ch }, align = 16;
	if (uid == UID_BIAS) /* the biases follow the weights in one buffer (data.c, model.c) */
		align = d->bias_align;
	return mk(d, CUDNN_BACKEND_TENSOR_DESCRIPTOR, t, cause) ||
	       SET(*t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type) ||
	       SET(*t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dim) ||
	       SET(*t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, st) ||
	       SET(*t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid) ||
	       SET(*t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align) ||
	       SET(*t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &virt) ||
	       CUDA_CHECK(DNN, cudnnBackendFinalize(*t), cause) ? -1 : 0;
}

/* y = mode(x, b) in float (b NULL for ReLU). */
static int mk_pointwise(struct cuda_dnng_cell *d, dnn_desc *op, cudnnPointwiseMode_t mode,
			dnn_desc x, dnn_desc b, dnn_desc y, char **cause)
{
	dnn_desc pw;
	cudnnDataType_t f = CUDNN_DATA_FLOAT;
	if (mk(d, CUDNN_BACKEND_POINTWISE_DESCRIPTOR, &pw, cause) ||
	    SET(pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode) ||
	    SET(pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &f) ||
	    CUDA_CHECK(DNN, cudnnBackendFinalize(pw), cause) ||
	    mk(d, CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, op, cause) ||
	    SET(*op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
		&pw) ||
	    SET(*op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x) ||
	    (b && SET(*op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
		      &b)) ||
	    SET(*op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y) ||
	    CUDA_CHECK(DNN, cudnnBackendFinalize(*op), cause))
		return -1;
	return 0;
}

/* The operation graph of cell c: the convolution, and with epilogue set the op's residual,
 * bias and ReLU after it. */
static int mk_graph(struct cuda_dnng_cell *d, const struct cuda_shape *s, int epilogue,
		    dnn_desc *graph, char **cause)
{
	cudnnDataType_t t = cuda_dnn_type(s->dtype), f = CUDNN_DATA_FLOAT;
	int epi = epilogue ? cuda_conv_epi(s->op) : 0;
	int64_t uid = UID_V0;
	dnn_desc x, w, y, conv, ops[4], acc;
	size_t nops = 0;
	if (mk_tensor(d, &x, UID_X, s->batch, s->c, s->h, s->w, t, false, cause) ||
	    mk_tensor(d, &w, UID_W, s->kout, s->c, s->r, s->r, t, false, cause) ||
	    mk_tensor(d, &y, UID_Y, s->batch, s->kout, s->oh, s->ow, t, false, cause))
		return -1;
	acc = y;
	if (epi && mk_tensor(d, &acc, uid++, s->batch, s->kout, s->oh, s->ow, f, true, cause))
		return -1;
	int64_t dims = 2, pad[2] = { s->pad, s->pad }, str[2] = { s->stride, s->stride };
	int64_t dil[2] = { 1, 1 };
	cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
	float one = 1.0f, zero = 0.0f;
	if (mk(d, CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &conv, cause) ||
	    SET(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f) ||
	    SET(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode) ||
	    SET(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &dims) ||
	    SET(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pad) ||
	    SET(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, pad) ||
	    SET(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, str) ||
	    SET(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dil) ||
	    CUDA_CHECK(DNN, cudnnBackendFinalize(conv), cause) ||
	    mk(d, CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, &ops[nops], cause) ||
	    SET(ops[nops], CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
		CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x) ||
	    SET(ops[nops], CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
		CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &w) ||
	    SET(ops[nops], CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
		CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &acc) ||
	    SET(ops[nops], CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
		CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &conv) ||
	    SET(ops[nops], CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1,
		&one) ||
	    SET(ops[nops], CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1,
		&zero) ||
	    CUDA_CHECK(DNN, cudnnBackendFinalize(ops[nops]), cause))
		return -1;
	nops++;
	/* each step into a fresh float intermediate, the last into y */
	/* the residual before the bias, as the legacy call computes act(conv + z + bias):
	 * in this order cuDNN serves conv+residual+bias+ReLU with precompiled engines; with the
	 * bias first only runtime-compiled ones serve it, 17-51% slower on ResNet-50 fp16's
	 * residual layers (docs/BENCHMARKS.md, 2026-11-29) */
	int steps[3], nsteps = 0;
	if (epi & 2)
		steps[nsteps++] = UID_RES;
	if (epi & 1)
		steps[nsteps++] = UID_BIAS;
	if (epi & 4)
		steps[nsteps++] = 0;
	for (int i = 0; i < nsteps; i++) {
		dnn_desc operand = NULL, out = y;
		if (steps[i] == UID_BIAS &&
		    mk_tensor(d, &operand, UID_BIAS, 1, s->kout, 1, 1, t, false, cause))
			return -1;
		if (steps[i] == UID_RES &&
		    mk_tensor(d, &operand, UID_RES, s->batch, s->kout, s->oh, s->ow, t, false, cause))
			return -1;
		if (i + 1 < nsteps &&
		    mk_tensor(d, &out, uid++, s->batch, s->kout, s->oh, s->ow, f, true, cause))
			return -1;
		if (mk_pointwise(d, &ops[nops++], steps[i] ? CUDNN_POINTWISE_ADD
							   : CUDNN_POINTWISE_RELU_FWD,
				 acc, operand, out, cause))
			return -1;
		acc = out;
	}
	if (mk(d, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, graph, cause) ||
	    SET(*graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
		(int64_t)nops, ops) ||
	    SET(*graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &d->h) ||
	    CUDA_CHECK(DNN, cudnnBackendFinalize(*graph), cause))
		return -1;
	return 0;
}

/* Whether engine config cfg may serve a cell of shape s: float32 never takes an engine that
 * converts its inputs down (to fp16 or bf16), and plain float32 (no TF32 asked) none with
 * tensor-core math or a reduced-precision reduction (they would miss the 1e-5 bound), as
 * PyTorch filters them.  Its global index into *engine, and into *runtime whether its plan
 * compiles a kernel when built. */
static int cfg_allowed(dnn_desc cfg, const struct cuda_shape *s, int64_t *engine, int *runtime)
{
	dnn_desc eng;
	int64_t n = 0, nb = 0;
	cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
	cudnnBackendBehaviorNote_t behave[CUDNN_BEHAVIOR_NOTE_TYPE_COUNT];
	*engine = -1;
	*runtime = 0;
	if (cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &eng))
		return 0;
	int ok = cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE,
					  CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &eng) ==
			 CUDNN_STATUS_SUCCESS &&
		 cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1,
					  &n, engine) == CUDNN_STATUS_SUCCESS &&
		 cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE,
					  CUDNN_TYPE_NUMERICAL_NOTE, (int64_t)ARRAY_SIZE(notes), &n,
					  notes) == CUDNN_STATUS_SUCCESS &&
		 cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE,
					  CUDNN_TYPE_BEHAVIOR_NOTE, (int64_t)ARRAY_SIZE(behave), &nb,
					  behave) == CUDNN_STATUS_SUCCESS;
	for (int64_t i = 0; ok && i < nb; i++)
		*runtime |= behave[i] == CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION;
	for (int64_t i = 0; ok && i < n && s->dtype == CUDA_F32; i++)
		ok = notes[i] != CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS &&
		     (s->tf32 || (notes[i] != CUDNN_NUMERICAL_NOTE_TENSOR_CORE &&
				  notes[i] != CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION));
	cudnnBackendDestroyDescriptor(eng);
	return ok;
}

/* The engine configs heuristic mode hm ranks for graph, the allowed ones appended to d->cfg
 * (at most DNN_CANDIDATES, of them one whose plan compiles a kernel: building one took 0.2
 * to 0.9 s on an H100, cuDNN 9.19, against microseconds for a precompiled engine's), each
 * with its rank and engine. */
static int heuristic(struct cuda_dnng_cell *d, const struct cuda_shape *s, dnn_desc graph,
		     int fused, cudnnBackendHeurMode_t hm, char **cause)
{
	dnn_desc heur, all[64];
	int64_t n = 0;
	if (mk(d, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur, cause) ||
	    SET(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
		&graph) ||
	    SET(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &hm))
		return -1;
	if (cudnnBackendFinalize(heur) != CUDNN_STATUS_SUCCESS)
		return 0; /* nothing serves this graph in this mode */
	if (CUDA_CHECK(DNN, cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
						     CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &n, NULL),
		       cause))
		return -1;
	if (n > (int64_t)ARRAY_SIZE(all))
		n = (int64_t)ARRAY_SIZE(all);
	for (int64_t i = 0; i < n; i++)
		if (mk(d, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &all[i], cause))
			return -1;
	int64_t got = 0;
	if (CUDA_CHECK(DNN, cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
						     CUDNN_TYPE_BACKEND_DESCRIPTOR, n, &got, all),
		       cause))
		return -1;
	for (int64_t i = 0, kept = 0, compiled = 0; i < got && kept < DNN_CANDIDATES; i++) {
		int64_t engine;
		int runtime;
		if (!cfg_allowed(all[i], s, &engine, &runtime) || (runtime && compiled++))
			continue;
		d->cfg[d->nplan] = all[i];
		d->plan[d->nplan++] = (struct dnn_plan){ .engine = engine, .rank = (int)i,
							 .fused = fused };
		kept++;
	}
	return 0;
}

/* Build candidate k's execution plan once; 1 when cuDNN cannot (the candidate is unusable
 * here, *cause says why), -1 on an error. */
static int build_plan(struct cuda_cell *c, size_t k, char **cause)
{
	struct cuda_dnng_cell *d = c->dnng;
	struct dnn_plan *p = &d->plan[k];
	if (p->plan)
		return 0;
	dnn_desc plan;
	int64_t t0 = util_now_ns(), n = 0, ws = 0;
	if (mk(d, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan, cause) ||
	    SET(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &d->h) ||
	    SET(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
		&d->cfg[k]))
		return -1;
	cudnnStatus_t st = cudnnBackendFinalize(plan);
	d->build_ns += util_now_ns() - t0;
	if (st != CUDNN_STATUS_SUCCESS) {
		p->failed = 1;
		*cause = xasprintf("cuDNN cannot build engine %" PRId64 " (rank %d) for '%s': %s",
				   p->engine, p->rank, c->pub.name, cudnnGetErrorString(st));
		return 1;
	}
	if (CUDA_CHECK(DNN, cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
						     CUDNN_TYPE_INT64, 1, &n, &ws), cause) ||
	    (ws > 0 && CUDA_CHECK(RT, cudaMalloc(&p->ws_buf, (size_t)ws), cause)))
		return -1;
	p->plan = plan;
	return 0;
}

/* Append graph's candidates: mode A's configs, else the fallback list's.  The first list
 * (first set) starts at the first config whose plan builds, so candidate 0, the heuristic's
 * choice, always runs. */
static int candidates(struct cuda_cell *c, dnn_desc graph, int fused, int first, char **cause)
{
	struct cuda_dnng_cell *d = c->dnng;
	const cudnnBackendHeurMode_t modes[2] = { CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK };
	size_t start = d->nplan;
	for (size_t m = 0; m < ARRAY_SIZE(modes); m++) {
		d->nplan = start;
		if (heuristic(d, &c->sctx.shape, graph, fused, modes[m], cause))
			return -1;
		if (!first && d->nplan > start)
			return 0;
		for (size_t k = start; first && k < d->nplan; k++) {
			char *why = NULL;
			int rc = build_plan(c, k, &why);
			free(why);
			if (rc < 0)
				return -1;
			if (rc)
				continue;
			memmove(d->cfg + start, d->cfg + k, (d->nplan - k) * sizeof(d->cfg[0]));
			memmove(d->plan + start, d->plan + k, (d->nplan - k) * sizeof(d->plan[0]));
			d->nplan -= k - start;
			return 0;
		}
	}
	d->nplan = start;
	return 0;
}

int cuda_dnng_cell_init(struct backend *b, struct cuda_cell *c, char **cause)
{
	const struct cuda_shape *s = &c->sctx.shape;
	int64_t t0 = util_now_ns();
	struct cuda_dnng_cell *d = xcalloc(1, sizeof(*d));
	c->dnng = d;
	if (cuda_dnn_handle(b, &d->h, cause))
		return -1;
	int64_t off = s->kout * s->k * (int64_t)cuda_dtype_size(s->dtype);
	d->bias_align = off & -off;
	if (d->bias_align > 16)
		d->bias_align = 16;
	/* the fused graph's candidates, then the convolution's alone (for an op with an
	 * epilogue); the first list the one that has a usable plan */
	dnn_desc fused, plain;
	if (mk_graph(d, s, 1, &fused, cause) || candidates(c, fused, 1, 1, cause))
		return -1;
	if (s->op != CUDA_CONV &&
	    (mk_graph(d, s, 0, &plain, cause) || candidates(c, plain, 0, !d->nplan, cause)))
		return -1;
	c->space.nvendors = 0;
	for (size_t k = 0; k < d->nplan; k++) {
		struct vendor_point v = { .nparams = 3 };
		v.params[0] = (struct vendor_param){ "engine", d->plan[k].engine };
		v.params[1] = (struct vendor_param){ "rank", d->plan[k].rank };
		v.params[2] = (struct vendor_param){ "fused", d->plan[k].fused };
		c->space.vendors[k] = v;
	}
	c->space.nvendors = d->nplan;
	b->t_dnn_ns += util_now_ns() - t0;
	if (!d->nplan) {
		*cause = xasprintf("cuDNN offers no engine for '%s' (%s%s)", c->pub.name,
				   cuda_dtype_name(s->dtype), s->tf32 ? ", tf32" : "");
		return -1;
	}
	return 0;
}

/* The variant pack of plan k on these buffers, made once per set (a forward's layers each
 * have their own; the cell's sampling reuses one). */
static int variant_pack(struct cuda_dnng_cell *d, enum cuda_op op, size_t k,
			const struct cuda_conv_io *io, void *ws, dnn_desc *out, char **cause)
{
	const void *key[6] = { io->x, io->w, io->bias, io->res, io->y, ws };
	for (size_t i = 0; i < d->nvps; i++)
		if (d->vps[i].plan == k && !memcmp(d->vps[i].ptr, key, sizeof(key))) {
			*out = d->vps[i].vp;
			return 0;
		}
	int64_t uids[5] = { UID_X, UID_W, UID_Y };
	void *ptrs[5] = { (void *)io->x, (void *)io->w, io->y };
	int64_t n = 3;
	int epi = d->plan[k].fused ? cuda_conv_epi(op) : 0;
	if (epi & 1) {
		uids[n] = UID_BIAS;
		ptrs[n++] = (void *)io->bias;
	}
	if (epi & 2) {
		if (!io->res) {
			*cause = xasprintf("no residual for a conv2d_bias_relu_add launch");
			return -1;
		}
		uids[n] = UID_RES;
		ptrs[n++] = (void *)io->res;
	}
	dnn_desc vp;
	if (CUDA_CHECK(DNN, cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp),
		       cause))
		return -1;
	if (SET(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, n, uids) ||
	    SET(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, n, ptrs) ||
	    SET(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws) ||
	    CUDA_CHECK(DNN, cudnnBackendFinalize(vp), cause)) {
		cudnnBackendDestroyDescriptor(vp);
		return -1;
	}
	struct dnn_vp *slot = &d->vps[d->nvps < DNN_VPS ? d->nvps++ : d->vpnext++ % DNN_VPS];
	if (slot->vp)
		cudnnBackendDestroyDescriptor(slot->vp);
	memcpy(slot->ptr, key, sizeof(key));
	slot->plan = k;
	slot->vp = vp;
	*out = vp;
	return 0;
}

int cuda_dnng_launch(struct backend *b, struct cuda_cell *c, size_t k, const struct cuda_conv_io *io,
		  struct cuda_module *m, char **cause)
{
	const struct cuda_shape *s = &c->sctx.shape;
	struct cuda_dnng_cell *d = c->dnng;
	if (!d || k >= d->nplan) {
		*cause = xasprintf("cell '%s' has no cuDNN engine config %zu", c->pub.name, k);
		return -1;
	}
	struct dnn_plan *p = &d->plan[k];
	if (p->failed) {
		*cause = xasprintf("cuDNN cannot build engine %" PRId64 " (rank %d) for '%s'",
				   p->engine, p->rank, c->pub.name);
		return -1;
	}
	if (!p->plan) {
		/* a candidate first tried: its build is the cell's set-up time too */
		int64_t before = d->build_ns;
		int rc = build_plan(c, k, cause);
		b->t_dnn_ns += d->build_ns - before;
		if (rc)
			return -1;
	}
	dnn_desc vp;
	if (variant_pack(d, s->op, k, io, p->ws_buf, &vp, cause) ||
	    CUDA_CHECK(DNN, cudnnBackendExecute(d->h, p->plan, vp), cause))
		return -1;
	if (p->fused || s->op == CUDA_CONV)
		return 0;
	return cuda_dnn_epilogue(b, &d->epi, &d->epi_mod, s, io, m, cause);
}

int cuda_dnng_fused(const struct cuda_cell *c, size_t k)
{
	if (!c->dnng || k >= c->dnng->nplan || !c->dnng->plan[k].plan)
		return -1;
	return c->dnng->plan[k].fused;
}
