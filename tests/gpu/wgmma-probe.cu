/* wgmma-probe.cu: tests/gpu/wgmma-probe.c's kernel (compiled by NVRTC for sm_90a after the
 * mma() the host writes for the case's instruction width NN: wgmma m64nNNk16, f16 operands
 * from shared memory, fp32 accumulators).  WGS consumer warpgroups each keep CHAINS
 * accumulators (independent chains), split along m (each chain its own 64 rows of A) or, with
 * SPLIT_N, along n (one A, each chain its own NN columns of B); a k-tile is BLOCK_K 64 (four
 * k16 steps, 128-byte swizzle, conv.cu's descriptors) and each is issued as conv.cu's
 * consumers do (wgmma.cuh's consumer_tma: fence, the k-tile's instructions, commit, wait for
 * all groups but WAIT).  LOADS 0: the consumers multiply one zeroed tile T times, no copy at
 * all (the tensor cores' own rate).  With LOADS, a producer warpgroup (the block's last) has
 * one thread stream the tile's operands by TMA into a ring of `stages` stages (A a box of the
 * tile's rows of mapa's matrix, B of mapb's, walking k a 128-byte atom at a time, each block
 * from its own rows on): LOADS 1, the copies and the products independent (the consumers
 * multiply a zeroed tile apart from the ring; the producer reuses a stage once its own
 * copies into it have landed): what the copies and the tensor cores cost each other inside
 * the SM; LOADS 2, conv.cu's pipeline (the consumers multiply each stage once it has landed
 * and release it on its empty barrier once the next stage's group is issued and the stage's
 * has retired; the producer refills a stage once released).  Block 0's consumer thread 0
 * writes the SM clocks of its k-loop to *clk. */
struct __align__(64) tmap_t {
	unsigned long long opaque[16];
};

__device__ __forceinline__ unsigned long long desc(unsigned a)
{
	return ((a & 0x3ffff) >> 4) | 1ull << 16 | (1024ull >> 4) << 32 | 1ull << 62;
}

__device__ __forceinline__ void bar_wait(unsigned bar, unsigned parity)
{
	asm volatile("{\n.reg .pred done;\nW_%=:\n"
		     "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
		     "@!done bra W_%=;\n}\n" ::"r"(bar),
		     "r"(parity)
		     : "memory");
}

__device__ __forceinline__ void tma2d(unsigned dst, const tmap_t *map, int x, int y, unsigned bar)
{
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
		     " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
		     "l"((unsigned long long)map), "r"(x), "r"(y), "r"(bar)
		     : "memory");
}

#define AROWS (WGS * (SPLIT_N ? 1 : CHAINS) * 64)
#define BROWS (SPLIT_N ? CHAINS * NN : NN)
#define TILE ((AROWS + BROWS) * 128)

/* One k-tile of consumer warpgroup wg from the tile at shared address t. */
__device__ __forceinline__ void ktile(float (*acc)[NN / 2], unsigned t, int wg)
{
	const unsigned a0 = t + wg * (SPLIT_N ? 1 : CHAINS) * 64 * 128, b0 = t + AROWS * 128;
	asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
	for (int k = 0; k < 4; k++)
#pragma unroll
		for (int c = 0; c < CHAINS; c++)
			mma(acc[c], desc(a0 + (SPLIT_N ? 0 : c) * 64 * 128 + k * 32),
			    desc(b0 + (SPLIT_N ? c : 0) * NN * 128 + k * 32));
	asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
	asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(WAIT) : "memory");
}

extern "C" __global__ void __launch_bounds__(128 * WGS + (LOADS ? 128 : 0))
	probe(int T, float *out, long long *clk, const __grid_constant__ tmap_t mapa,
	      const __grid_constant__ tmap_t mapb, int M, int N, int katoms, int stages)
{
	extern __shared__ __align__(16) unsigned char sm[];
	const unsigned s0 = (unsigned)__cvta_generic_to_shared(sm);
	const unsigned base = (s0 + 1023) & ~1023u;
	/* the zeroed tile, then (LOADS) the ring and its barriers: full[stages], empty[stages] */
	const unsigned ring = base + TILE, bars = ring + stages * TILE;
	const int tid = threadIdx.x, wg = tid / 128;
	for (int i = tid; i < TILE / 16; i += blockDim.x)
		((int4 *)(sm + (base - s0)))[i] = make_int4(0, 0, 0, 0);
	if (LOADS && tid == 0) {
		for (int s = 0; s < stages; s++) {
			asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(bars + 8 * s));
			asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(
					     bars + 8 * (stages + s)),
				     "r"(WGS));
		}
		asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
	}
	asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
	__syncthreads();
	if (LOADS && wg == WGS) { /* the producer warpgroup: one thread copies */
		if (tid != 128 * WGS)
			return;
		const int m0 = (int)((long long)blockIdx.x * AROWS % M);
		const int n0 = (int)((long long)blockIdx.x * BROWS % N);
		for (int it = 0, s = 0, ka = 0; it < T; it++) {
			const unsigned ph = (unsigned)(it / stages - 1) & 1;
			if (it >= stages) /* LOADS 2: released; 1: its last copies landed */
				bar_wait(bars + 8 * (LOADS == 2 ? stages + s : s), ph);
			const unsigned full = bars + 8 * s, dst = ring + s * TILE;
			asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(
					     full),
				     "r"(TILE)
				     : "memory");
			tma2d(dst, &mapa, ka * 64, m0, full);
			tma2d(dst + AROWS * 128, &mapb, ka * 64, n0, full);
			if (++ka == katoms)
				ka = 0;
			if (++s == stages)
				s = 0;
		}
		return;
	}
	float acc[CHAINS][NN / 2];
#pragma unroll
	for (int c = 0; c < CHAINS; c++)
#pragma unroll
		for (int j = 0; j < NN / 2; j++)
			acc[c][j] = 0.0f;
	const long long t0 = clock64();
	for (int t = 0, s = 0; t < T; t++) {
		if (LOADS == 2) {
			bar_wait(bars + 8 * s, (unsigned)(t / stages) & 1);
			ktile(acc, ring + s * TILE, wg);
			if (t > 0 && tid % 128 == 0) /* the previous stage's group has retired */
				asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(
						     bars + 8 * (stages + (s ? s - 1 : stages - 1)))
					     : "memory");
			if (++s == stages)
				s = 0;
		} else {
			ktile(acc, base, wg);
		}
	}
	asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
	const long long t1 = clock64();
	if (blockIdx.x == 0 && tid == 0)
		*clk = t1 - t0;
	if (LOADS == 1 && tid == 0) /* the ring's last copies land before the block ends */
		for (int j = T > stages ? T - stages : 0; j < T; j++)
			bar_wait(bars + 8 * (j % stages), (unsigned)(j / stages) & 1);
	float sum = 0.0f;
#pragma unroll
	for (int c = 0; c < CHAINS; c++)
#pragma unroll
		for (int j = 0; j < NN / 2; j++)
			sum += acc[c][j];
	if (sum != 0.0f) /* never: the operands are zeros; keeps the products live */
		out[blockIdx.x * blockDim.x + tid] = sum;
}
