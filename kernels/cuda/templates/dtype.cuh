/* dtype.cuh: the storage type of every CUDA template and its exact conversions to and from
 * float: DTYPE_FLOAT16 or DTYPE_BFLOAT16 (elem_t = the 16 bits as unsigned short) or
 * DTYPE_FLOAT32 (the default; elem_t = float); arithmetic is in float.  Included by
 * prelude.cuh (the memory-bound templates), mainloop.cuh (gemm.cu, conv.cu) and reference.cu;
 * kernels/cuda/nvrtc.c splices it in place of the including line, once per template.
 * [[maybe_unused]]: a template that needs one direction only gets no NVRTC warning. */
#ifndef DTYPE_CUH
#define DTYPE_CUH

#if defined(DTYPE_FLOAT16) || defined(DTYPE_BFLOAT16)
typedef unsigned short elem_t;
#else
typedef float elem_t;
#endif

[[maybe_unused]] static __device__ __forceinline__ float to_float(elem_t h)
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

[[maybe_unused]] static __device__ __forceinline__ elem_t from_float(float f)
{
#if defined(DTYPE_FLOAT16)
	unsigned short h;
	asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
	return h;
#elif defined(DTYPE_BFLOAT16)
	unsigned short h;
	asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
	return h;
#elif defined(TF32) && TF32
	/* a TF32 kernel's outputs are the next TF32 kernel's operands: rounded here, once, to
	 * TF32 (cvt.rna), the tensor cores' truncation of them is exact (wgmma.cuh) */
	unsigned r;
	asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(f));
	return __uint_as_float(r);
#else
	return f;
#endif
}

#endif /* DTYPE_CUH */
