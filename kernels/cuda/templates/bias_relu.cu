/* bias_relu.cu: y = max(x + bias[c] (+ res), 0) over NHWC (c the fastest index); NVRTC template.
 *
 * Fields: BLOCK [256] threads, VEC [8 for 16-bit, 4 for fp32] elements per access, RESIDUAL
 * [0]: 1 adds res before the ReLU (ResNet's relu(bn(conv) + identity)); DTYPE_FLOAT16 /
 * DTYPE_BFLOAT16 / DTYPE_FLOAT32. Valid: the prelude's rules. In place (y == x) is allowed.
 *
 * bias_relu(const T *x, const T *bias, const T *res, T *y, long long total, int C)
 *   total = N * H * W * C elements, bias [C], res like x (ignored unless RESIDUAL).
 *   Grid-stride: grid = any (ceil(total / (VEC * BLOCK)) covers it in one pass), block = BLOCK.
 */
/* ---- dtype prelude (the same in every memory-bound template) ----------------------------
 * DTYPE_FLOAT16, DTYPE_BFLOAT16 or DTYPE_FLOAT32 (default): storage type elem_t, arithmetic
 * in float. VEC elements (VEC * sizeof(elem_t) <= 16 bytes, a power of two) move as one
 * access when the shape and pointers allow it (checked at run time), element by element
 * otherwise, so any shape is right. No #include: NVRTC needs no include path. */
#ifndef RESIDUAL
#define RESIDUAL 0
#endif
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
/* ---- end of the dtype prelude ---------------------------------------------------------- */

extern "C" __global__ void __launch_bounds__(BLOCK)
	bias_relu(const elem_t *x, const elem_t *__restrict__ bias, const elem_t *res, elem_t *y,
		  long long total, int C)
{
	const bool vec = C % VEC == 0 && aligned(x) && aligned(y) && aligned(bias) &&
			 (!RESIDUAL || aligned(res));
	const long long chunks = (total + VEC - 1) / VEC;
	for (long long i = (long long)blockIdx.x * BLOCK + threadIdx.x; i < chunks;
	     i += (long long)gridDim.x * BLOCK) {
		const long long e = i * VEC;
		const int n = total - e < VEC ? (int)(total - e) : VEC;
		float v[VEC], b[VEC];
		load_vec(v, x + e, vec, n);
		if (vec) {
			load_vec(b, bias + (int)(e % C), true, VEC);
		} else {
#pragma unroll
			for (int k = 0; k < VEC; ++k)
				b[k] = k < n ? to_float(bias[(int)((e + k) % C)]) : 0.0f;
		}
#if RESIDUAL
		float r[VEC];
		load_vec(r, res + e, vec, n);
#pragma unroll
		for (int k = 0; k < VEC; ++k)
			v[k] += r[k];
#endif
#pragma unroll
		for (int k = 0; k < VEC; ++k)
			v[k] = fmaxf(v[k] + b[k], 0.0f);
		store_vec(y + e, v, vec, n);
	}
}
