/* prelude.cuh: the dtype prelude of every memory-bound template (avgpool, bias_relu, maxpool,
 * reduce).
 * DTYPE_FLOAT16, DTYPE_BFLOAT16 or DTYPE_FLOAT32 (default): storage type elem_t, arithmetic
 * in float. VEC elements (VEC * sizeof(elem_t) <= 16 bytes, a power of two) move as one
 * access when the shape and pointers allow it (checked at run time), element by element
 * otherwise, so any shape is right. The backend (kernels/cuda/module.c) and
 * tests/gpu/ put this file in place of a template's line that includes it, before NVRTC sees
 * the template, so NVRTC needs no include path and the cubin cache key covers it. */
#ifndef BLOCK
#define BLOCK 256
#endif
#if defined(DTYPE_FLOAT16) || defined(DTYPE_BFLOAT16)
typedef unsigned short elem_t;
#ifndef VEC
#define VEC 8
#endif
#else
typedef float elem_t;
#ifndef VEC
#define VEC 4
#endif
#endif
static_assert(VEC >= 1 && (VEC & (VEC - 1)) == 0 && VEC * sizeof(elem_t) <= 16,
	      "VEC must be a power of two and VEC elements at most 16 bytes");
static_assert(BLOCK >= 32 && BLOCK <= 1024 && BLOCK % 32 == 0, "BLOCK must be 32..1024, x32");

static __device__ __forceinline__ float to_float(elem_t h)
{
#if defined(DTYPE_FLOAT16)
	float f;
	asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
	return f;
#elif defined(DTYPE_BFLOAT16)
	return __uint_as_float((unsigned)h << 16);
#else
	return h;
#endif
}

static __device__ __forceinline__ elem_t from_float(float f)
{
#if defined(DTYPE_FLOAT16)
	unsigned short h;
	asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
	return h;
#elif defined(DTYPE_BFLOAT16)
	unsigned short h;
	asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
	return h;
#else
	return f;
#endif
}

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

static __device__ __forceinline__ bool aligned(const void *p)
{
	return ((unsigned long long)p & (VEC * sizeof(elem_t) - 1)) == 0;
}
