/* avgpool.cu: global average pool, NHWC [N, H, W, C] -> [N, C]; NVRTC template.
 *
 * Fields: BLOCK [256] threads, VEC [8 for 16-bit, 4 for fp32] channels per thread, ROWS [8]
 * threads along H x W (BLOCK / ROWS threads along C); DTYPE_FLOAT16 / DTYPE_BFLOAT16 /
 * DTYPE_FLOAT32. Valid: the prelude's rules, ROWS a power of two dividing BLOCK.
 *
 * avgpool_global(const T *x, T *y, int N, int HW, int C)
 *   y[n * C + c] = (sum over hw of x[(n * HW + hw) * C + c]) / HW, summed in fp32, each
 *   thread's rows in order then a fixed tree over ROWS: deterministic.
 *   grid = (ceil(ceil(C / VEC) / (BLOCK / ROWS)), N), block = BLOCK,
 *   static shared memory BLOCK * VEC * 4 bytes.
 */
/* ---- dtype prelude (the same in every memory-bound template) ----------------------------
 * DTYPE_FLOAT16, DTYPE_BFLOAT16 or DTYPE_FLOAT32 (default): storage type elem_t, arithmetic
 * in float. VEC elements (VEC * sizeof(elem_t) <= 16 bytes, a power of two) move as one
 * access when the shape and pointers allow it (checked at run time), element by element
 * otherwise, so any shape is right. No #include: NVRTC needs no include path. */
#ifndef ROWS
#define ROWS 8
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
static_assert((ROWS & (ROWS - 1)) == 0 && BLOCK % ROWS == 0, "ROWS: a power of two dividing BLOCK");
#define CT (BLOCK / ROWS)

extern "C" __global__ void __launch_bounds__(BLOCK)
	avgpool_global(const elem_t *__restrict__ x, elem_t *__restrict__ y, int N, int HW, int C)
{
	__shared__ float part[ROWS][VEC][CT];
	const int tc = threadIdx.x % CT, r = threadIdx.x / CT, n = blockIdx.y;
	const int c = (blockIdx.x * CT + tc) * VEC;
	const bool vec = C % VEC == 0 && aligned(x) && aligned(y);
	float s[VEC];
#pragma unroll
	for (int k = 0; k < VEC; ++k)
		s[k] = 0.0f;
	if (c < C) {
		const elem_t *p = x + (long long)n * HW * C + c;
#pragma unroll 4
		for (int hw = r; hw < HW; hw += ROWS) {
			float v[VEC];
			load_vec(v, p + (long long)hw * C, vec, C - c);
#pragma unroll
			for (int k = 0; k < VEC; ++k)
				s[k] += v[k];
		}
	}
#pragma unroll
	for (int k = 0; k < VEC; ++k)
		part[r][k][tc] = s[k];
	__syncthreads();
#pragma unroll
	for (int half = ROWS / 2; half > 0; half /= 2) {
		if (r < half)
#pragma unroll
			for (int k = 0; k < VEC; ++k)
				part[r][k][tc] += part[r + half][k][tc];
		__syncthreads();
	}
	if (r == 0 && c < C) {
		float o[VEC];
		const float inv = 1.0f / (float)HW;
#pragma unroll
		for (int k = 0; k < VEC; ++k)
			o[k] = part[0][k][tc] * inv;
		store_vec(y + (long long)n * C + c, o, vec, C - c);
	}
}
