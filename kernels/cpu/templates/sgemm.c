/* sgemm.c: tiled single-precision GEMM template, C = A B (row-major), compiled at run time
 * with its config as macros:
 *   BM      rows of A and C per block
 *   BN      columns of B and C per block
 *   BK      depth per block: a BK x BN panel of B is reused by the BM rows of a block
 *   UNROLL  depth unrolling of the inner loop: each pass over a row of C adds UNROLL
 *           rank-1 terms, so C is loaded and stored once per UNROLL terms
 *   HARNESS_TEST_CORRUPT  (tests only) when 1, drops the last k term: a deliberate
 *           off-by-one that the backend's correctness check must catch
 * The inner loop runs along a row of C and B, which the compiler vectorizes. */
#include <stdint.h>

#include "kernel.h"

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(UNROLL)
#error "sgemm template needs BM, BN, BK and UNROLL"
#endif
#if BM < 1 || BN < 1 || BK < 1 || UNROLL < 1 || UNROLL > 16
#error "sgemm template needs BM, BN, BK >= 1 and 1 <= UNROLL <= 16"
#endif
#ifndef HARNESS_TEST_CORRUPT
#define HARNESS_TEST_CORRUPT 0
#endif

static inline int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* crow[j0..j1) += sum over p in [p0, p1) of arow[p] * B[p, j0..j1). */
static void row_block(int64_t n, int64_t p0, int64_t p1, int64_t j0, int64_t j1,
		      const float *restrict arow, const float *restrict b, float *restrict crow)
{
	int64_t p = p0;
	for (; p + UNROLL <= p1; p += UNROLL) {
		float s[UNROLL];
		const float *restrict bp = b + p * n;
		for (int u = 0; u < UNROLL; u++)
			s[u] = arow[p + u];
		for (int64_t j = j0; j < j1; j++) {
			float t = crow[j];
#pragma GCC unroll 16
			for (int u = 0; u < UNROLL; u++)
				t += s[u] * bp[u * n + j];
			crow[j] = t;
		}
	}
	for (; p < p1; p++) {
		const float s = arow[p];
		const float *restrict bp = b + p * n;
		for (int64_t j = j0; j < j1; j++)
			crow[j] += s * bp[j];
	}
}

void harness_sgemm(int64_t m, int64_t n, int64_t k, const float *a, const float *b, float *c)
{
	const int64_t kk = k - (HARNESS_TEST_CORRUPT ? 1 : 0);

	for (int64_t i = 0; i < m * n; i++)
		c[i] = 0.0f;
	for (int64_t i0 = 0; i0 < m; i0 += BM) {
		const int64_t i1 = min64(i0 + BM, m);
		for (int64_t p0 = 0; p0 < kk; p0 += BK) {
			const int64_t p1 = min64(p0 + BK, kk);
			for (int64_t j0 = 0; j0 < n; j0 += BN) {
				const int64_t j1 = min64(j0 + BN, n);
				for (int64_t i = i0; i < i1; i++)
					row_block(n, p0, p1, j0, j1, a + i * k, b, c + i * n);
			}
		}
	}
}
