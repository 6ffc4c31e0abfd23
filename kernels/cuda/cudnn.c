/* cudnn.c: cuDNN as the vendor path of the conv ops (docs/kernels.md, "Convolutions") by its
 * legacy API, chosen by HARNESS_CUDA_DNN_API=legacy (the default, cudnn-graph.c's graph API,
 * costs the host a tenth as much a call): one
 * handle per backend on the backend's stream, NHWC tensor and KRSC filter descriptors per
 * conv cell, the algorithms cudnnGetConvolutionForwardAlgorithm_v7 ranks (its heuristic, no
 * benchmarking: what Inductor's default dispatch gets) as the cell's vendor candidates in
 * its order, and the launch: cudnnConvolutionBiasActivationForward (convolution, bias,
 * residual and ReLU in one call) where cuDNN serves it for the algorithm, else
 * cudnnConvolutionForward followed by conv.cu's conv_epilogue kernel. */
#include "config.h"
#include "kernels/cuda/device.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cudnn.h>

struct cuda_dnn {
	cudnnHandle_t h;
	void *ws;
	size_t ws_len;
	/* workspaces outgrown, freed only at close: a CUDA graph of a model's forward
	 * (model.c) may hold an older one's address */
	void **retired;
	size_t nretired, retcap;
};

struct cuda_dnn_cell {
	cudnnTensorDescriptor_t x, y, bias;
	cudnnFilterDescriptor_t w;
	cudnnConvolutionDescriptor_t conv;
	cudnnActivationDescriptor_t act;
	cudnnConvolutionFwdAlgoPerf_t perf[SPACE_MAX_VENDORS];
	int fused[SPACE_MAX_VENDORS];   /* 1 fused call works, -1 not supported, 0 untried */
	size_t nperf;
	cudaKernel_t epi;               /* conv_epilogue of epi_mod, looked up once */
	const struct cuda_module *epi_mod;
};

/* The math the cell's dtype allows: tensor cores for 16-bit types, TF32 only when the
 * workload asked for it, plain FMA otherwise. */
static cudnnMathType_t dnn_math(const struct cuda_shape *s)
{
	if (s->dtype != CUDA_F32)
		return CUDNN_TENSOR_OP_MATH;
	return s->tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
}

static int dnn_open(struct backend *b, char **cause)
{
	if (b->dnn)
		return 0;
	struct cuda_dnn *d = xcalloc(1, sizeof(*d));
	if (CUDA_CHECK(DNN, cudnnCreate(&d->h), cause) ||
	    CUDA_CHECK(DNN, cudnnSetStream(d->h, b->stream), cause)) {
		if (d->h)
			cudnnDestroy(d->h);
		free(d);
		return -1;
	}
	b->dnn = d;
	return 0;
}

int cuda_dnn_handle(struct backend *b, cudnnHandle_t *out, char **cause)
{
	if (dnn_open(b, cause))
		return -1;
	*out = b->dnn->h;
	return 0;
}

void cuda_dnn_close(struct backend *b)
{
	if (!b->dnn)
		return;
	if (b->dnn->ws)
		cudaFree(b->dnn->ws);
	for (size_t i = 0; i < b->dnn->nretired; i++)
		cudaFree(b->dnn->retired[i]);
	free(b->dnn->retired);
	cudnnDestroy(b->dnn->h);
	free(b->dnn);
	b->dnn = NULL;
}

void cuda_dnn_cell_free(struct cuda_cell *c)
{
	cuda_dnng_cell_free(c);
	struct cuda_dnn_cell *d = c->dnn;
	if (!d)
		return;
	if (d->x)
		cudnnDestroyTensorDescriptor(d->x);
	if (d->y)
		cudnnDestroyTensorDescriptor(d->y);
	if (d->bias)
		cudnnDestroyTensorDescriptor(d->bias);
	if (d->w)
		cudnnDestroyFilterDescriptor(d->w);
	if (d->conv)
		cudnnDestroyConvolutionDescriptor(d->conv);
	if (d->act)
		cudnnDestroyActivationDescriptor(d->act);
	free(d);
	c->dnn = NULL;
}

int cuda_dnn_cell_init(struct backend *b, struct cuda_cell *c, char **cause)
{
	if (b->dnn_graph)
		return cuda_dnng_cell_init(b, c, cause);
	const struct cuda_shape *s = &c->sctx.shape;
	cudnnDataType_t t = cuda_dnn_type(s->dtype);
	int n = 0, on = 0, oc = 0, oh = 0, ow = 0;
	int64_t t0 = util_now_ns();
	if (dnn_open(b, cause))
		return -1;
	struct cuda_dnn_cell *d = xcalloc(1, sizeof(*d));
	c->dnn = d;
	cudnnConvolutionFwdAlgoPerf_t all[CUDNN_CONVOLUTION_FWD_ALGO_COUNT * 2];
	if (CUDA_CHECK(DNN, cudnnCreateTensorDescriptor(&d->x), cause) ||
	    CUDA_CHECK(DNN, cudnnCreateTensorDescriptor(&d->y), cause) ||
	    CUDA_CHECK(DNN, cudnnCreateTensorDescriptor(&d->bias), cause) ||
	    CUDA_CHECK(DNN, cudnnCreateFilterDescriptor(&d->w), cause) ||
	    CUDA_CHECK(DNN, cudnnCreateConvolutionDescriptor(&d->conv), cause) ||
	    CUDA_CHECK(DNN, cudnnCreateActivationDescriptor(&d->act), cause) ||
	    CUDA_CHECK(DNN, cudnnSetTensor4dDescriptor(d->x, CUDNN_TENSOR_NHWC, t, (int)s->batch,
						       (int)s->c, (int)s->h, (int)s->w), cause) ||
	    CUDA_CHECK(DNN, cudnnSetFilter4dDescriptor(d->w, t, CUDNN_TENSOR_NHWC, (int)s->kout,
						       (int)s->c, (int)s->r, (int)s->r), cause) ||
	    CUDA_CHECK(DNN, cudnnSetConvolution2dDescriptor(d->conv, (int)s->pad, (int)s->pad,
							    (int)s->stride, (int)s->stride, 1, 1,
							    CUDNN_CROSS_CORRELATION,
							    CUDNN_DATA_FLOAT), cause) ||
	    CUDA_CHECK(DNN, cudnnSetConvolutionMathType(d->conv, dnn_math(s)), cause) ||
	    CUDA_CHECK(DNN, cudnnGetConvolution2dForwardOutputDim(d->conv, d->x, d->w, &on, &oc,
								  &oh, &ow), cause))
		return -1;
	if (on != s->batch || oc != s->kout || oh != s->oh || ow != s->ow) {
		*cause = xasprintf("cuDNN's output of '%s' is %dx%dx%dx%d, not the %" PRId64 "x%"
				   PRId64 "x%" PRId64 "x%" PRId64 " of the template", c->pub.name,
				   on, oh, ow, oc, s->batch, s->oh, s->ow, s->kout);
		return -1;
	}
	if (CUDA_CHECK(DNN, cudnnSetTensor4dDescriptor(d->y, CUDNN_TENSOR_NHWC, t, on, oc, oh, ow),
		       cause) ||
	    CUDA_CHECK(DNN, cudnnSetTensor4dDescriptor(d->bias, CUDNN_TENSOR_NHWC, t, 1, oc, 1, 1),
		       cause) ||
	    CUDA_CHECK(DNN, cudnnSetActivationDescriptor(
				    d->act, s->op == CUDA_CONV_BIAS ? CUDNN_ACTIVATION_IDENTITY
								  : CUDNN_ACTIVATION_RELU,
				    CUDNN_NOT_PROPAGATE_NAN, 0.0), cause) ||
	    CUDA_CHECK(DNN, cudnnGetConvolutionForwardAlgorithm_v7(
				    b->dnn->h, d->x, d->w, d->conv, d->y, (int)ARRAY_SIZE(all), &n,
				    all), cause))
		return -1;
	/* every algorithm cuDNN can run here, in its heuristic's order; plain float32 keeps
	 * only FMA math (a TF32 algorithm would miss the 1e-5 bound) */
	c->space.nvendors = 0;
	for (int i = 0; i < n && d->nperf < SPACE_MAX_VENDORS; i++) {
		if (all[i].status != CUDNN_STATUS_SUCCESS)
			continue;
		if (s->dtype == CUDA_F32 && !s->tf32 && all[i].mathType == CUDNN_TENSOR_OP_MATH)
			continue;
		int dup = 0;
		for (size_t k = 0; k < d->nperf && !dup; k++)
			dup = d->perf[k].algo == all[i].algo && d->perf[k].mathType == all[i].mathType;
		if (dup)
			continue;
		struct vendor_point v = { .nparams = 2 };
		v.params[0] = (struct vendor_param){ "algo", (int64_t)all[i].algo };
		v.params[1] = (struct vendor_param){ "math", (int64_t)all[i].mathType };
		d->perf[d->nperf] = all[i];
		c->space.vendors[d->nperf++] = v;
	}
	c->space.nvendors = d->nperf;
	b->t_dnn_ns += util_now_ns() - t0;
	if (!d->nperf) {
		*cause = xasprintf("cuDNN offers no algorithm for '%s' (%s%s)", c->pub.name,
				   cuda_dtype_name(s->dtype), s->tf32 ? ", tf32" : "");
		return -1;
	}
	return 0;
}

static int64_t cdiv(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

int cuda_dnn_epilogue(struct backend *b, cudaKernel_t *k, const struct cuda_module **kmod,
		    const struct cuda_shape *s, const struct cuda_conv_io *io, struct cuda_module *m,
		    char **cause)
{
	if (*kmod != m) {
		if (CUDA_CHECK(RT, cudaLibraryGetKernel(k, m->lib, "conv_epilogue"), cause))
			return -1;
		*kmod = m;
	}
	long long total = (long long)(s->m * s->kout);
	int K = (int)s->kout, epi = cuda_conv_epi(s->op);
	const void *res = io->res ? io->res : io->x;
	void *args[] = { (void *)&io->y, (void *)&io->bias, (void *)&res, &total, &K, &epi };
	int64_t grid = cdiv(total, 256), cap = (int64_t)b->di.sms * 16;
	dim3 g = { (unsigned)(grid < cap ? grid : cap), 1, 1 }, bl = { 256, 1, 1 };
	return CUDA_CHECK(RT, cudaLaunchKernel((const void *)*k, g, bl, args, 0, b->stream),
			  cause);
}

int cuda_dnn_launch(struct backend *b, struct cuda_cell *c, size_t algo, const struct cuda_conv_io *io,
		  struct cuda_module *m, char **cause)
{
	if (b->dnn_graph)
		return cuda_dnng_launch(b, c, algo, io, m, cause);
	const struct cuda_shape *s = &c->sctx.shape;
	struct cuda_dnn_cell *d = c->dnn;
	struct cuda_dnn *h = b->dnn;
	if (!d || algo >= d->nperf) {
		*cause = xasprintf("cell '%s' has no cuDNN algorithm %zu", c->pub.name, algo);
		return -1;
	}
	const cudnnConvolutionFwdAlgoPerf_t *p = &d->perf[algo];
	if (p->memory > h->ws_len) {
		if (h->ws) {
			XGROW(h->retired, h->retcap, h->nretired + 1);
			h->retired[h->nretired++] = h->ws;
		}
		h->ws = NULL;
		h->ws_len = 0;
		if (CUDA_CHECK(RT, cudaMalloc(&h->ws, p->memory), cause))
			return -1;
		h->ws_len = p->memory;
	}
	float one = 1.0f, zero = 0.0f, alpha2 = io->res ? 1.0f : 0.0f;
	if (CUDA_CHECK(DNN, cudnnSetConvolutionMathType(d->conv, p->mathType), cause))
		return -1;
	if (s->op != CUDA_CONV && d->fused[algo] >= 0) {
		cudnnStatus_t st = cudnnConvolutionBiasActivationForward(
			h->h, &one, d->x, io->x, d->w, io->w, d->conv, p->algo, h->ws, p->memory,
			&alpha2, d->y, io->res ? io->res : io->y, d->bias, io->bias, d->act, d->y,
			io->y);
		if (st == CUDNN_STATUS_SUCCESS) {
			d->fused[algo] = 1;
			return 0;
		}
		if (st != CUDNN_STATUS_NOT_SUPPORTED && st != CUDNN_STATUS_BAD_PARAM)
			return CUDA_CHECK(DNN, st, cause);
		d->fused[algo] = -1; /* from now on: the convolution, then the epilogue kernel */
	}
	if (CUDA_CHECK(DNN, cudnnConvolutionForward(h->h, &one, d->x, io->x, d->w, io->w, d->conv,
						    p->algo, h->ws, p->memory, &zero, d->y,
						    io->y), cause))
		return -1;
	if (s->op == CUDA_CONV)
		return 0;
	return cuda_dnn_epilogue(b, &d->epi, &d->epi_mod, s, io, m, cause);
}

int cuda_dnn_fused(const struct cuda_cell *c, size_t algo)
{
	if (c->dnng)
		return cuda_dnng_fused(c, algo);
	if (!c->dnn || algo >= c->dnn->nperf || !c->dnn->fused[algo])
		return -1;
	return c->dnn->fused[algo] > 0;
}
