/* data.c: a CUDA cell's data (device.h): inputs drawn on the host from the run's seed
 * and the cell's name and uploaded, the output buffer, the float64 reference of every
 * output (reference.c), the split-K / reduction workspace, and stream-K's flags. */
#include "config.h"
#include "kernels/cuda/device.h"

#include <stdint.h>
#include <stdlib.h>

#include "harness/base/util.h"

/* Device memory of bytes at *d holding the host's h, copied in the backend's stream and
 * waited for: a plain cudaMemcpy from pageable memory may return before its DMA lands, and
 * the non-blocking stream would not wait for it.  0, or -1 with *cause. */
int cuda_upload(struct backend *b, void **d, const void *h, size_t bytes, char **cause)
{
	if (CUDA_CHECK(RT, cudaMalloc(d, bytes ? bytes : 1), cause) ||
	    CUDA_CHECK(RT, cudaMemcpyAsync(*d, h, bytes, cudaMemcpyHostToDevice, b->stream),
		       cause) ||
	    CUDA_CHECK(RT, cudaStreamSynchronize(b->stream), cause))
		return -1;
	return 0;
}

/* Inputs uniform(-1, 1) in the cell's dtype, drawn on the GPU from the run's seed, the cell's
 * name and the input's number (cuda_dev_fill_uniform: a draw on the host and its upload took 5.4 s
 * of a ResNet-50 unit's set-up on an H100); a maxpool_bwd cell's window positions uniform
 * among each window's own, drawn on the host and uploaded.  The host keeps no copy (the
 * reference's cross-check copies them back).  Then the float64 reference of every output on
 * the GPU (reference.c). */
int cuda_alloc_data(struct backend *b, struct cuda_cell *c, char **cause)
{
	const struct cuda_shape *s = &c->sctx.shape;
	struct cuda_sizes z;
	size_t es = cuda_dtype_size(s->dtype);
	size_t n[3];
	uint64_t rng = cuda_seed_for(b->seed, c->pub.name);
	struct cuda_refmod *r;
	/* the reference kernels (ref_fill among them) compiled at a dtype's first cell: charged
	 * to that cell's reference, as before they drew the inputs */
	int64_t t0 = util_now_ns();
	if (cuda_ref_module(b, s->dtype, &r, cause))
		return -1;
	int64_t compile_ns = util_now_ns() - t0;
	t0 = util_now_ns();

	cuda_shape_sizes(s, &z);
	n[0] = z.in0, n[1] = z.in1, n[2] = z.in2;
	for (int i = 0; i < 3; i++) {
		if (!n[i])
			continue;
		size_t bytes = n[i] * cuda_input_esize(s, i);
		if (s->op == CUDA_MAXPOOL_BWD && i == 0) {
			c->h_in[i] = xmalloc(bytes);
			cuda_fill_maxpool_idx(s, c->h_in[i], &rng);
			if (cuda_upload(b, &c->d_in[i], c->h_in[i], bytes, cause))
				return -1;
			continue;
		}
		if (CUDA_CHECK(RT, cudaMalloc(&c->d_in[i], bytes), cause) ||
		    cuda_dev_fill_uniform(b, s->dtype, c->d_in[i], n[i],
				    rng + (uint64_t)(i + 1) * 0xd1b54a32d192ed03ULL, s->tf32, cause))
			return -1;
	}
	if (CUDA_CHECK(RT, cudaStreamSynchronize(b->stream), cause))
		return -1;
	c->h_out = xmalloc(es);
	b->t_data_ns += util_now_ns() - t0;
	if (CUDA_CHECK(RT, cudaMalloc(&c->d_out, z.out * es), cause) ||
	    cuda_dev_ref_compute(b, c, cause))
		return -1;
	c->ref_ns += compile_ns;
	c->has_data = 1;
	return 0;
}

int cuda_ensure_ws(struct cuda_cell *c, size_t bytes, char **cause)
{
	if (bytes <= c->ws_bytes)
		return 0;
	if (c->d_ws)
		cudaFree(c->d_ws);
	c->d_ws = NULL;
	c->ws_bytes = 0;
	if (CUDA_CHECK(RT, cudaMalloc((void **)&c->d_ws, bytes), cause))
		return -1;
	c->ws_bytes = bytes;
	return 0;
}

int cuda_ensure_sk_flags(struct backend *b, char **cause)
{
	if (b->d_sk_flags)
		return 0;
	int64_t n = 4 * (int64_t)b->prop.multiProcessorCount;
	if (CUDA_CHECK(RT, cudaMalloc((void **)&b->d_sk_flags, (size_t)n * sizeof(unsigned)),
		       cause))
		return -1;
	if (CUDA_CHECK(RT, cudaMemsetAsync(b->d_sk_flags, 0, (size_t)n * sizeof(unsigned),
					   b->stream), cause)) {
		cudaFree(b->d_sk_flags);
		b->d_sk_flags = NULL;
		return -1;
	}
	b->sk_flags_len = n;
	return 0;
}
