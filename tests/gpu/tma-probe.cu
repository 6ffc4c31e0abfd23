/* tma-probe.cu: the tensor copy engine's load path alone, as conv.cu's wgmma kernel drives it
 * (tests/gpu/tma-probe.c compiles it with NVRTC for sm_90a and times it; issue 49): one block
 * an SM, a ring of STAGES stages of `rows` rows x 128 bytes (one swizzle atom of A: 64
 * 16-bit channels), one producer thread issuing a copy a stage once the stage's "empty"
 * mbarrier says it is free, one consumer thread that only waits for each stage's "full"
 * mbarrier and frees it (STAGES a kernel argument, so one module times every depth).  No tensor core, no epilogue: the time a k-tile is what the loads
 * alone cost.  mode 0: one im2col box of `rows` output pixels (conv.cu's use_tma 3); 1: two
 * im2col boxes of rows / 2 pixels each (a cluster's half boxes, loaded by one block); 2: one
 * plain box of `rows` rows of X seen as an (N H W) x C matrix, at the tap's row offset (the
 * same bytes as mode 0 at a stride-1 layer, without im2col's padding); 3: two plain half
 * boxes.  Block b takes the output pixels from (b rows) mod M on and walks the taps and
 * channel atoms of k in conv.cu's order, T k-tiles in all.  hoist 0: the producer decodes
 * each copy's corner, tap and channel from k and m with integer divisions, as conv.cu's
 * producer did until 2026-11-29; 1: once a box, stepping the tap and channel after. */
struct __align__(64) tmap_t {
	unsigned long long opaque[16];
};

static __device__ __forceinline__ unsigned smem_u32(const void *p)
{
	return (unsigned)__cvta_generic_to_shared(p);
}

static __device__ __forceinline__ void wait_parity(unsigned bar, unsigned parity)
{
	asm volatile("{\n.reg .pred done;\nW_%=:\n"
		     "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
		     "@!done bra W_%=;\n}\n" ::"r"(bar),
		     "r"(parity)
		     : "memory");
}

static __device__ __forceinline__ void im2col(unsigned dst, const tmap_t *map, int c, int w,
					      int h, int n, int s, int r, unsigned bar)
{
	asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::"
		     "complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8};\n" ::"r"(dst),
		     "l"((unsigned long long)map), "r"(c), "r"(w), "r"(h), "r"(n), "r"(bar),
		     "h"((unsigned short)s), "h"((unsigned short)r)
		     : "memory");
}

static __device__ __forceinline__ void tiled(unsigned dst, const tmap_t *map, int x, int y,
					     unsigned bar)
{
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
		     " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
		     "l"((unsigned long long)map), "r"(x), "r"(y), "r"(bar)
		     : "memory");
}

/* The ring's barriers (thread 0): full[s] expecting `full` arrivals, empty[s] one. */
static __device__ __forceinline__ void ring_init(unsigned bars, int stages, unsigned full)
{
	for (int s = 0; s < stages; ++s) {
		asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bars + 8 * s), "r"(full));
		asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(bars + 8 * (stages + s)));
	}
	asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
	asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/* The consumer thread: waits for each of T k-tiles' stage to land and frees it at once. */
static __device__ __forceinline__ void drain(unsigned bars, int stages, int T)
{
	for (int it = 0, s = 0, ph = 0; it < T; ++it) {
		wait_parity(bars + 8 * s, ph);
		asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bars + 8 * (stages + s))
			     : "memory");
		if (++s == stages) {
			s = 0;
			ph ^= 1;
		}
	}
}

extern "C" __global__ void __launch_bounds__(64, 1)
	probe(const __grid_constant__ tmap_t map, int mode, int T, int rows, int N, int H, int W,
	      int C, int P, int Q, int RS, int stride, int pad, int STAGES, int hoist)
{
	extern __shared__ __align__(16) unsigned char raw[];
	const unsigned base = (smem_u32(raw) + 1023) & ~1023u;
	const unsigned bars = base + STAGES * rows * 128;
	const int tid = threadIdx.x, M = N * P * Q, katoms = RS * RS * C / 64;
	if (tid == 0)
		ring_init(bars, STAGES, 1);
	__syncthreads();
	const int m0 = (int)(((long long)blockIdx.x * rows) % M);
	if (tid == 0 && !hoist) {
		for (int it = 0; it < T; ++it) {
			const int s = it % STAGES;
			if (it >= STAGES)
				wait_parity(bars + 8 * (STAGES + s), ((it / STAGES) - 1) & 1);
			const unsigned full = bars + 8 * s, dst = base + s * rows * 128;
			asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(
					     full),
				     "r"(rows * 128)
				     : "memory");
			const int k = (it % katoms) * 64, t = k / C, c = k % C;
			const int parts = (mode == 1 || mode == 3) ? 2 : 1;
			for (int h = 0; h < parts; ++h) {
				const int m = m0 + h * (rows / parts);
				const unsigned d = dst + h * (rows / parts) * 128;
				if (mode <= 1) {
					const int n = m / (P * Q), pq = m % (P * Q);
					im2col(d, &map, c, (pq % Q) * stride - pad,
					       (pq / Q) * stride - pad, n, t % RS, t / RS, full);
				} else {
					tiled(d, &map, c, m + (t / RS - pad) * W + (t % RS - pad), full);
				}
			}
		}
	} else if (tid == 0) {
		/* hoisted: each box's corner decoded once, the tap and channel stepped (no
		 * division in the loop), as a producer can keep them across a tile's k-tiles */
		const int parts = (mode == 1 || mode == 3) ? 2 : 1, half = rows / parts;
		int n[2], w0[2], h0[2];
		for (int h = 0; h < parts; ++h) {
			const int m = m0 + h * half, pq = m % (P * Q);
			n[h] = m / (P * Q), w0[h] = (pq % Q) * stride - pad, h0[h] = (pq / Q) * stride - pad;
		}
		int c = 0, sx = 0, ry = 0, s = 0;
		unsigned phase = 0;
		for (int it = 0; it < T; ++it) {
			if (it >= STAGES)
				wait_parity(bars + 8 * (STAGES + s), phase ^ 1);
			const unsigned full = bars + 8 * s, dst = base + s * rows * 128;
			asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(
					     full),
				     "r"(rows * 128)
				     : "memory");
			for (int h = 0; h < parts; ++h) {
				const unsigned d = dst + h * half * 128;
				if (mode <= 1)
					im2col(d, &map, c, w0[h], h0[h], n[h], sx, ry, full);
				else
					tiled(d, &map, c, m0 + h * half + (ry - pad) * W + (sx - pad), full);
			}
			if ((c += 64) == C) {
				c = 0;
				if (++sx == RS) {
					sx = 0;
					if (++ry == RS)
						ry = 0;
				}
			}
			if (++s == STAGES) {
				s = 0;
				phase ^= 1;
			}
		}
	} else if (tid == 32) {
		drain(bars, STAGES, T);
	}
}

/* probe_ab: what one SM takes in a k-tile when it loads both operands, as conv.cu's 1x1
 * layers do (tests/gpu/tma-probe.c's second part): a ring of STAGES stages of arows + brows
 * rows x 128 bytes, A a plain box of arows rows of X seen as an M x C matrix and B a plain box
 * of brows rows of the weights (a K x KK matrix), both walking k (a channel atom at a time)
 * from the block's own rows on.  how 0: one producer thread issues both boxes (conv.cu); 1:
 * thread 0 issues A and thread 64 issues B, each waiting for the stage's empty barrier itself
 * (the full barrier expects both arrivals); 2: one bulk copy (cp.async.bulk, no tensor map)
 * of the same bytes from X, contiguous: the copy engine without a map's boxes.  Block 0's
 * thread 32 (the consumer) writes the SM clocks of its k-loop to *clk. */
extern "C" __global__ void __launch_bounds__(96, 1)
	probe_ab(const __grid_constant__ tmap_t mapa, const __grid_constant__ tmap_t mapb,
		 const unsigned char *x, long long xbytes, int T, int arows, int brows, int M,
		 int K, int katoms, int STAGES, int how, long long *clk)
{
	extern __shared__ __align__(16) unsigned char raw[];
	const unsigned base = (smem_u32(raw) + 1023) & ~1023u;
	const unsigned sbytes = (unsigned)(arows + brows) * 128;
	const unsigned bars = base + STAGES * sbytes;
	const int tid = threadIdx.x;
	if (tid == 0)
		ring_init(bars, STAGES, how == 1 ? 2 : 1);
	__syncthreads();
	const int m0 = (int)(((long long)blockIdx.x * arows) % M);
	const int n0 = (int)(((long long)blockIdx.x * brows) % K);
	if (tid == 0 || (tid == 64 && how == 1)) {
		const bool loads_a = tid == 0, loads_b = how != 1 || tid == 64;
		const unsigned bytes = how == 1 ? (loads_a ? arows : brows) * 128 : sbytes;
		int s = 0, ka = 0;
		unsigned phase = 0;
		long long off = ((long long)blockIdx.x * sbytes) % (xbytes - sbytes);
		off &= ~127ll;
		for (int it = 0; it < T; ++it) {
			if (it >= STAGES)
				wait_parity(bars + 8 * (STAGES + s), phase ^ 1);
			const unsigned full = bars + 8 * s, dst = base + s * sbytes;
			asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(
					     full),
				     "r"(bytes)
				     : "memory");
			if (how == 2) {
				asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::"
					     "bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
					     "l"(x + off), "r"(sbytes), "r"(full)
					     : "memory");
			} else {
				if (loads_a)
					tiled(dst, &mapa, ka * 64, m0, full);
				if (loads_b)
					tiled(dst + arows * 128, &mapb, ka * 64, n0, full);
			}
			if (++ka == katoms)
				ka = 0;
			if (++s == STAGES) {
				s = 0;
				phase ^= 1;
			}
		}
	} else if (tid == 32) {
		const long long t0 = clock64();
		drain(bars, STAGES, T);
		if (blockIdx.x == 0)
			*clk = clock64() - t0;
	}
}
