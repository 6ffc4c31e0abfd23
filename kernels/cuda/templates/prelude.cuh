/* prelude.cuh: the dtype prelude of every memory-bound template (avgpool, bias_relu, maxpool,
 * reduce).
 * DTYPE_FLOAT16, DTYPE_BFLOAT16 or DTYPE_FLOAT32 (default): storage type elem_t and its
 * conversions (dtype.cuh), arithmetic in float. VEC elements (VEC * sizeof(elem_t) <= 16
 * bytes, a power of two) move as one access when the shape and pointers allow it (checked at
 * run time), element by element otherwise, so any shape is right. The backend
 * (kernels/cuda/nvrtc.c) and tests/gpu/ put this file in place of a template's line that
 * includes it, and dtype.cuh in place of this file's line that includes that, before NVRTC
 * sees the template, so NVRTC needs no include path and the cubin cache key covers both. */
#ifndef PRELUDE_CUH
#define PRELUDE_CUH
#include "dtype.cuh"

#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef VEC
#if defined(DTYPE_FLOAT16) || defined(DTYPE_BFLOAT16)
#define VEC 8
#else
#define VEC 4
#endif
#endif
static_assert(VEC >= 1 && (VEC & (VEC - 1)) == 0 && VEC * sizeof(elem_t) <= 16,
	      "VEC must be a power of two and VEC elements at most 16 bytes");
static_assert(BLOCK >= 32 && BLOCK <= 1024 && BLOCK % 32 == 0, "BLOCK must be 32..1024, x32");

struct __align__(VEC * sizeof(elem_t)) vec_t {
	elem_t e[VEC];
};

/* Load VEC elements at p into f (as floats); n = how many are valid (the rest read 0). */
static __device__ __forceinline__ void load_vec(float f[VEC], const elem_t *p, bool vec, int n)
{
	if (vec && n >= VEC) {
		vec_t v = *(const vec_t *)p;
#pragma unroll
		for (int i = 0; i < VEC; ++i)
			f[i] = to_float(v.e[i]);
	} else {
#pragma unroll
		for (int i = 0; i < VEC; ++i)
			f[i] = i < n ? to_float(p[i]) : 0.0f;
	}
}

static __device__ __forceinline__ void store_vec(elem_t *p, const float f[VEC], bool vec, int n)
{
	if (vec && n >= VEC) {
		vec_t v;
#pragma unroll
		for (int i = 0; i < VEC; ++i)
			v.e[i] = from_float(f[i]);
		*(vec_t *)p = v;
	} else {
#pragma unroll
		for (int i = 0; i < VEC; ++i)
			if (i < n)
				p[i] = from_float(f[i]);
	}
}

/* s[i] += the VEC elements at p, one vector access (p aligned, VEC elements valid). */
[[maybe_unused]] static __device__ __forceinline__ void add_vec(float s[VEC], const elem_t *p)
{
	vec_t v = *(const vec_t *)p;
#pragma unroll
	for (int i = 0; i < VEC; ++i)
		s[i] += to_float(v.e[i]);
}

/* s[i] += the VEC elements at p + k * step for k = 0 .. NL - 1: the NL loads issued before
 * the adds, so NL vector accesses are in flight at once. */
template <int NL>
static __device__ __forceinline__ void add_vecs(float s[VEC], const elem_t *p, long long step)
{
	vec_t v[NL];
#pragma unroll
	for (int k = 0; k < NL; ++k)
		v[k] = *(const vec_t *)(p + k * step);
#pragma unroll
	for (int k = 0; k < NL; ++k)
#pragma unroll
		for (int i = 0; i < VEC; ++i)
			s[i] += to_float(v[k].e[i]);
}

/* s[i] += the VEC elements at p + k * step for every k * step_rows + r0 < n (rows r0, r0 +
 * step_rows, ... below n): INFLIGHT loads at a time, then 4 (when INFLIGHT > 4), then one by
 * one. */
#ifndef INFLIGHT
#define INFLIGHT 8 /* vector loads in flight per thread in the reductions' vector paths */
#endif
static_assert(INFLIGHT >= 1 && INFLIGHT <= 16, "INFLIGHT must be 1..16");
[[maybe_unused]] static __device__ __forceinline__ void add_rows(float s[VEC], const elem_t *p,
								 long long stride, int r0,
								 int step_rows, int n)
{
	int r = r0;
	for (; r + (INFLIGHT - 1) * step_rows < n; r += INFLIGHT * step_rows)
		add_vecs<INFLIGHT>(s, p + (long long)r * stride, (long long)step_rows * stride);
	if (INFLIGHT > 4 && r + 3 * step_rows < n) {
		add_vecs<4>(s, p + (long long)r * stride, (long long)step_rows * stride);
		r += 4 * step_rows;
	}
	for (; r < n; r += step_rows)
		add_vec(s, p + (long long)r * stride);
}

static __device__ __forceinline__ bool aligned(const void *p)
{
	return ((unsigned long long)p & (VEC * sizeof(elem_t) - 1)) == 0;
}

#endif /* PRELUDE_CUH */
