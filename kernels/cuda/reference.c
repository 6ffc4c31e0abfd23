/* reference.c: the check's float64 reference on the GPU (templates/reference.cu), computed
 * once per cell from its device inputs, and the relative-norm error of a config's output
 * against it, also on the GPU (device.h).  The host's float64 reference (host.c,
 * cuda_ref_compute) stays the one the unit tests check, and HARNESS_CUDA_REF_VERIFY=1 runs
 * it beside this one on every cell (tests/cli/cuda.sh does, on a GPU). */
#include "config.h"
#include "kernels/cuda/device.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

static int64_t cdiv(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

static int launch(struct backend *b, cudaKernel_t k, int64_t gx, int64_t gy, unsigned bx,
		  unsigned by, void **args, char **cause)
{
	dim3 grid = { (unsigned)gx, (unsigned)gy, 1 }, block = { bx, by, 1 };
	return CUDA_CHECK(RT, cudaLaunchKernel((const void *)k, grid, block, args, 0, b->stream),
			  cause);
}

/* A grid-stride grid for n items of 256 threads: at most 32 blocks per SM. */
static int64_t grid_of(const struct backend *b, int64_t n)
{
	int64_t g = cdiv(n > 0 ? n : 1, 256), cap = (int64_t)b->di.sms * 32;
	return g < cap ? g : cap;
}

int cuda_dev_fill_uniform(struct backend *b, enum cuda_dtype t, void *d, size_t n, uint64_t seed,
		    int tf32, char **cause)
{
	struct cuda_refmod *r;
	long long nn = (long long)n;
	unsigned long long sd = seed;
	void *args[] = { &d, &nn, &sd, &tf32 };
	if (cuda_ref_module(b, t, &r, cause))
		return -1;
	return launch(b, r->k[REF_FILL], grid_of(b, (int64_t)n), 1, 256, 1, args, cause);
}

/* The host reference beside the GPU's: every output the host computes (every step-th of a
 * large GEMM) must agree to 1e-12 in relative norm.  The inputs drawn on the GPU are copied
 * to the host for it. */
static int verify(struct backend *b, struct cuda_cell *c, char **cause)
{
	const struct cuda_shape *s = &c->sctx.shape;
	struct cuda_sizes z;
	struct cuda_ref ref;
	int ret = -1;
	cuda_shape_sizes(s, &z);
	size_t n[3] = { z.in0, z.in1, z.in2 };
	for (int i = 0; i < 3; i++) {
		size_t bytes = n[i] * cuda_input_esize(s, i);
		if (!n[i] || c->h_in[i])
			continue;
		c->h_in[i] = xmalloc(bytes);
		if (CUDA_CHECK(RT, cudaMemcpyAsync(c->h_in[i], c->d_in[i], bytes,
						   cudaMemcpyDeviceToHost, b->stream), cause) ||
		    CUDA_CHECK(RT, cudaStreamSynchronize(b->stream), cause))
			return -1;
	}
	double *g = xmalloc((z.out ? z.out : 1) * sizeof(*g));
	cuda_ref_compute(s, c->h_in[0], c->h_in[1], c->h_in[2], &ref);
	if (CUDA_CHECK(RT, cudaMemcpyAsync(g, c->d_ref, z.out * sizeof(*g),
					   cudaMemcpyDeviceToHost, b->stream), cause) ||
	    CUDA_CHECK(RT, cudaStreamSynchronize(b->stream), cause))
		goto done;
	double num = 0, den = 0;
	for (size_t i = 0; i < ref.n; i++) {
		double d = g[i * ref.step] - ref.val[i];
		num += d * d;
		den += ref.val[i] * ref.val[i];
	}
	double e = den > 0 ? sqrt(num / den) : sqrt(num);
	if (!(e <= 1e-12)) {
		*cause = xasprintf("the GPU's float64 reference of cell '%s' differs from the host's "
				   "by %.3g (relative norm over %zu outputs)", c->pub.name, e, ref.n);
		goto done;
	}
	b->ref_verified++;
	ret = 0;
done:
	cuda_ref_release(&ref);
	free(g);
	return ret;
}

int cuda_dev_ref_compute(struct backend *b, struct cuda_cell *c, char **cause)
{
	const struct cuda_shape *s = &c->sctx.shape;
	struct cuda_sizes z;
	struct cuda_refmod *r;
	int64_t t0 = util_now_ns(), c0 = b->ref_compile_ns;
	cuda_shape_sizes(s, &z);
	if (cuda_ref_module(b, s->dtype, &r, cause))
		return -1;
	if (!b->d_err && CUDA_CHECK(RT, cudaMalloc((void **)&b->d_err, 4 * sizeof(double)), cause))
		return -1;
	if (CUDA_CHECK(RT, cudaMalloc((void **)&c->d_ref, (z.out ? z.out : 1) * sizeof(double)),
		       cause))
		return -1;
	int M = (int)s->m, N = (int)s->n, K = (int)s->k;
	int nb = (int)s->batch, H = (int)s->h, W = (int)s->w, C = (int)s->c;
	void **in = c->d_in;
	int rc;
	switch (s->op) {
	case CUDA_GEMM: {
		void *args[] = { &in[0], &in[1], &c->d_ref, &M, &N, &K };
		rc = launch(b, r->k[REF_GEMM], cdiv(N, 16), cdiv(M, 16), 16, 16, args, cause);
		break;
	}
	case CUDA_MAXPOOL: {
		void *args[] = { &in[0], &c->d_ref, &nb, &H, &W, &C };
		rc = launch(b, r->k[REF_MAXPOOL], grid_of(b, (int64_t)z.out), 1, 256, 1, args, cause);
		break;
	}
	case CUDA_MAXPOOL_BWD: {
		void *args[] = { &in[0], &in[1], &c->d_ref, &nb, &H, &W, &C };
		rc = launch(b, r->k[REF_MAXPOOL_BWD], grid_of(b, (int64_t)z.out), 1, 256, 1, args,
			    cause);
		break;
	}
	case CUDA_AVGPOOL: {
		int HW = H * W;
		void *args[] = { &in[0], &c->d_ref, &nb, &HW, &C };
		rc = launch(b, r->k[REF_AVGPOOL], grid_of(b, (int64_t)z.out), 1, 256, 1, args, cause);
		break;
	}
	case CUDA_SUM: {
		int R = (int)s->rows, S = (int)s->cols, dim = (int)s->dim;
		void *args[] = { &in[0], &c->d_ref, &R, &S, &dim };
		rc = launch(b, r->k[REF_SUM], grid_of(b, (int64_t)z.out), 1, 256, 1, args, cause);
		break;
	}
	case CUDA_CONV:
	case CUDA_CONV_BIAS:
	case CUDA_CONV_BIAS_RELU:
	case CUDA_CONV_BIAS_RELU_ADD: {
		/* the epilogue from the op itself, not from conv.c's cuda_conv_epi: the check
		 * shares nothing with what it checks */
		int ko = (int)s->kout, P = (int)s->oh, Q = (int)s->ow, R = (int)s->r;
		int st = (int)s->stride, pad = (int)s->pad;
		int bias = s->op != CUDA_CONV, add = s->op == CUDA_CONV_BIAS_RELU_ADD;
		int relu = s->op == CUDA_CONV_BIAS_RELU || add;
		void *args[] = { &in[0], &in[1], &in[2], &c->d_ref, &nb, &H, &W, &C, &ko, &P, &Q,
				 &R, &st, &pad, &bias, &add, &relu };
		int64_t tiles = cdiv(s->m, 16) * cdiv(s->kout, 16), cap = (int64_t)b->di.sms * 32;
		rc = launch(b, r->k[REF_CONV], tiles < cap ? tiles : cap, 1, 16, 16, args, cause);
		break;
	}
	default: {
		long long total = (long long)z.out;
		void *args[] = { &in[0], &in[1], &in[2], &c->d_ref, &total, &C };
		rc = launch(b, r->k[REF_BIAS_RELU], grid_of(b, (int64_t)z.out), 1, 256, 1, args,
			    cause);
		break;
	}
	}
	if (rc || CUDA_CHECK(RT, cudaStreamSynchronize(b->stream), cause))
		return -1;
	if (getenv("HARNESS_CUDA_REF_VERIFY") && !strcmp(getenv("HARNESS_CUDA_REF_VERIFY"), "1") &&
	    verify(b, c, cause))
		return -1;
	/* the check's cost, its kernels' first compile included */
	c->ref_ns = util_now_ns() - t0;
	b->ref_ns += c->ref_ns - (b->ref_compile_ns - c0);
	return 0;
}

int cuda_dev_ref_error(struct backend *b, struct cuda_cell *c, double *err, size_t *bad, char **cause)
{
	const struct cuda_shape *s = &c->sctx.shape;
	struct cuda_sizes z;
	struct cuda_refmod *r = &b->ref[s->dtype];
	double h[4];
	cuda_shape_sizes(s, &z);
	long long n = (long long)z.out;
	unsigned long long *first = (unsigned long long *)&b->d_err[2];
	void *args[] = { &c->d_out, &c->d_ref, &n, &b->d_err, &first };
	if (CUDA_CHECK(RT, cudaMemsetAsync(b->d_err, 0, 2 * sizeof(double), b->stream), cause) ||
	    CUDA_CHECK(RT, cudaMemsetAsync(first, 0xff, sizeof(*first), b->stream), cause) ||
	    launch(b, r->k[REF_ERROR], grid_of(b, n), 1, 256, 1, args, cause) ||
	    CUDA_CHECK(RT, cudaMemcpyAsync(h, b->d_err, sizeof(h), cudaMemcpyDeviceToHost,
					   b->stream), cause) ||
	    CUDA_CHECK(RT, cudaStreamSynchronize(b->stream), cause))
		return -1;
	unsigned long long f;
	memcpy(&f, &h[2], sizeof(f));
	if (f != ~0ULL) {
		*bad = (size_t)f;
		*err = INFINITY;
		return 0;
	}
	*bad = SIZE_MAX;
	*err = h[1] > 0 ? sqrt(h[0] / h[1]) : sqrt(h[0]);
	return 0;
}
