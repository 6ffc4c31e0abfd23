/* data.c: a CUDA cell's data (backend-int.h): inputs drawn on the host from the run's seed
 * and the cell's name and uploaded, the output buffer, the float64 reference of every
 * output (reference.c), and the split-K / reduction workspace. */
#include "config.h"
#include "kernels/cuda/backend-int.h"

#include <stdint.h>
#include <stdlib.h>

#include "harness/base/util.h"

/* Device memory of bytes at *d holding the host's h, copied in the backend's stream and
 * waited for: a plain cudaMemcpy from pageable memory may return before its DMA lands, and
 * the non-blocking stream would not wait for it.  0, or -1 with *cause. */
int cu_upload(struct backend *b, void **d, const void *h, size_t bytes, char **cause)
{
	if (CUDA_CHECK(RT, cudaMalloc(d, bytes ? bytes : 1), cause) ||
	    CUDA_CHECK(RT, cudaMemcpyAsync(*d, h, bytes, cudaMemcpyHostToDevice, b->stream),
		       cause) ||
	    CUDA_CHECK(RT, cudaStreamSynchronize(b->stream), cause))
		return -1;
	return 0;
}

/* Inputs uniform(-1, 1) in the cell's dtype from the run's seed and the cell's name (a
 * maxpool_bwd cell's window positions uniform among each window's own), on the host and the
 * device; the float64 reference of every output on the GPU (reference.c). */
int cu_alloc_data(struct backend *b, struct cu_cell *c, char **cause)
{
	const struct cuda_shape *s = &c->sctx.shape;
	struct cuda_sizes z;
	size_t es = cuda_dtype_size(s->dtype);
	size_t n[3];
	uint64_t rng = cuda_seed_for(b->seed, c->pub.name);

	cuda_shape_sizes(s, &z);
	n[0] = z.in0, n[1] = z.in1, n[2] = z.in2;
	for (int i = 0; i < 3; i++) {
		if (!n[i])
			continue;
		size_t bytes = n[i] * cuda_input_esize(s, i);
		c->h_in[i] = xmalloc(bytes);
		if (s->op == CU_MAXPOOL_BWD && i == 0)
			cuda_fill_maxpool_idx(s, c->h_in[i], &rng);
		else
			cuda_fill_uniform(c->h_in[i], s->dtype, n[i], &rng);
		if (cu_upload(b, &c->d_in[i], c->h_in[i], bytes, cause))
			return -1;
	}
	c->h_out = xmalloc(es);
	if (CUDA_CHECK(RT, cudaMalloc(&c->d_out, z.out * es), cause) ||
	    cu_ref_compute(b, c, cause))
		return -1;
	c->has_data = 1;
	return 0;
}

int cu_ensure_ws(struct cu_cell *c, size_t bytes, char **cause)
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
