/* host.c: the CUDA backend's numerics on the host: the 16-bit types, random inputs (and
 * maxpool_bwd's window positions), and the float64 reference every config is checked
 * against when the GPU reference is off (docs/kernels.md).  Needs no device. */
#include "config.h"
#include "kernels/cuda/ops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- 16-bit types on the host ---------------------------------------------------------- */

uint16_t cuda_f32_to_f16(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	uint32_t sign = (x >> 16) & 0x8000u, mant = x & 0x7fffffu;
	int32_t exp = (int32_t)((x >> 23) & 0xff);
	if (exp == 0xff) /* inf, nan */
		return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0));
	int32_t e = exp - 127 + 15;
	if (e >= 0x1f)
		return (uint16_t)(sign | 0x7c00u);
	if (e <= 0) {
		if (e < -10)
			return (uint16_t)sign;
		mant |= 0x800000u;
		uint32_t shift = (uint32_t)(14 - e);
		uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
		if (rem > half || (rem == half && (h & 1)))
			h++;
		return (uint16_t)(sign | h);
	}
	uint32_t h = ((uint32_t)e << 10) | (mant >> 13), rem = mant & 0x1fffu;
	if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
		h++; /* may carry into the exponent: still right, up to inf */
	return (uint16_t)(sign | h);
}

float cuda_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ffu;
	uint32_t x;
	if (exp == 0x1f) {
		x = sign | 0x7f800000u | (mant << 13);
	} else if (exp == 0) {
		if (!mant) {
			x = sign;
		} else {
			int e = -1;
			do {
				mant <<= 1;
				e++;
			} while (!(mant & 0x400u));
			x = sign | ((uint32_t)(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
		}
	} else {
		x = sign | ((exp + 127 - 15) << 23) | (mant << 13);
	}
	float f;
	memcpy(&f, &x, 4);
	return f;
}

uint16_t cuda_f32_to_bf16(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	if ((x & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((x >> 16) | 0x40u);
	x += 0x7fffu + ((x >> 16) & 1);
	return (uint16_t)(x >> 16);
}

float cuda_bf16_to_f32(uint16_t h)
{
	uint32_t x = (uint32_t)h << 16;
	float f;
	memcpy(&f, &x, 4);
	return f;
}

double cuda_elem_get(const void *buf, enum cuda_dtype t, size_t i)
{
	switch (t) {
	case CUDA_F16: return cuda_f16_to_f32(((const uint16_t *)buf)[i]);
	case CUDA_BF16: return cuda_bf16_to_f32(((const uint16_t *)buf)[i]);
	default: return ((const float *)buf)[i];
	}
}

/* xorshift64* (Vigna 2016) */
static double next_uniform(uint64_t *s)
{
	uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ULL;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return (double)((x * 0x2545f4914f6cdd1dULL) >> 11) * (1.0 / 9007199254740992.0);
}

uint64_t cuda_seed_for(uint64_t seed, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a, then splitmix64's finaliser */
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	uint64_t z = (seed ^ h) + 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (z ^ (z >> 31)) | 1;
}

void cuda_store_float(void *buf, enum cuda_dtype t, size_t i, float v)
{
	if (t == CUDA_F16)
		((uint16_t *)buf)[i] = cuda_f32_to_f16(v);
	else if (t == CUDA_BF16)
		((uint16_t *)buf)[i] = cuda_f32_to_bf16(v);
	else
		((float *)buf)[i] = v;
}

float cuda_tf32_round(float v)
{
	uint32_t u;
	memcpy(&u, &v, sizeof(u));
	if ((u & 0x7f800000u) != 0x7f800000u) /* finite: to the nearest, ties away (cvt.rna) */
		u = (u + 0x1000u) & 0xffffe000u;
	memcpy(&v, &u, sizeof(v));
	return v;
}

void cuda_fill_uniform(void *buf, enum cuda_dtype t, size_t n, uint64_t *rng)
{
	for (size_t i = 0; i < n; i++)
		cuda_store_float(buf, t, i, (float)(2.0 * next_uniform(rng) - 1.0));
}

/* ---- the float64 reference ------------------------------------------------------------- */

/* Output o of op s in float64 from the inputs as stored (16-bit values exactly). */
static double ref_one(const struct cuda_shape *s, const void *in0, const void *in1,
		      const void *in2, size_t o)
{
	enum cuda_dtype t = s->dtype;
	double v = 0;
	switch (s->op) {
	case CUDA_GEMM: {
		size_t i = o / (size_t)s->n, j = o % (size_t)s->n, k = (size_t)s->k;
		for (size_t p = 0; p < k; p++)
			v += cuda_elem_get(in0, t, i * k + p) * cuda_elem_get(in1, t, j * k + p);
		return v;
	}
	case CUDA_MAXPOOL: {
		size_t c = o % (size_t)s->c, rest = o / (size_t)s->c;
		int64_t ox = (int64_t)(rest % (size_t)s->ow), oy = (int64_t)(rest / (size_t)s->ow %
								       (size_t)s->oh);
		int64_t n = (int64_t)(rest / (size_t)(s->ow * s->oh));
		v = -INFINITY;
		for (int64_t ky = 0; ky < 3; ky++)
			for (int64_t kx = 0; kx < 3; kx++) {
				int64_t iy = oy * 2 - 1 + ky, ix = ox * 2 - 1 + kx;
				if (iy < 0 || iy >= s->h || ix < 0 || ix >= s->w)
					continue;
				double e = cuda_elem_get(in0, t, (size_t)(((n * s->h + iy) * s->w + ix) *
									  s->c) + c);
				if (e > v)
					v = e;
			}
		return v;
	}
	case CUDA_AVGPOOL: {
		size_t c = o % (size_t)s->c, n = o / (size_t)s->c, hw = (size_t)(s->h * s->w);
		for (size_t p = 0; p < hw; p++)
			v += cuda_elem_get(in0, t, (n * hw + p) * (size_t)s->c + c);
		return v / (double)hw;
	}
	case CUDA_SUM:
		if (s->dim) {
			for (int64_t j = 0; j < s->cols; j++)
				v += cuda_elem_get(in0, t, o * (size_t)s->cols + (size_t)j);
		} else {
			for (int64_t r = 0; r < s->rows; r++)
				v += cuda_elem_get(in0, t, (size_t)r * (size_t)s->cols + o);
		}
		return v;
	case CUDA_BIAS_RELU:
	case CUDA_BIAS_RELU_ADD:
		v = cuda_elem_get(in0, t, o) + cuda_elem_get(in1, t, o % (size_t)s->c);
		if (s->op == CUDA_BIAS_RELU_ADD)
			v += cuda_elem_get(in2, t, o);
		return v > 0 ? v : 0;
	default:
		return cuda_conv_is(s->op) ? cuda_conv_ref_one(s, in0, in1, in2, o) : 0;
	}
}

/* Window position kh * 3 + kw (0..8) uniform among those of window (oy, ox) inside the
 * image, for every output of a maxpool_bwd cell: a valid index tensor as the forward would
 * save it (which maximum won does not change the backward's work). */
void cuda_fill_maxpool_idx(const struct cuda_shape *s, unsigned char *idx, uint64_t *rng)
{
	size_t C = (size_t)s->c, o = 0;
	for (int64_t n = 0; n < s->batch; n++)
		for (int64_t oy = 0; oy < s->oh; oy++)
			for (int64_t ox = 0; ox < s->ow; ox++) {
				int64_t ky0 = oy == 0, ky1 = oy * 2 + 1 < s->h ? 2 : 1;
				int64_t kx0 = ox == 0, kx1 = ox * 2 + 1 < s->w ? 2 : 1;
				for (size_t c = 0; c < C; c++, o++) {
					int64_t ky = ky0 + (int64_t)(next_uniform(rng) *
								     (double)(ky1 - ky0 + 1));
					int64_t kx = kx0 + (int64_t)(next_uniform(rng) *
								     (double)(kx1 - kx0 + 1));
					idx[o] = (unsigned char)((ky > ky1 ? ky1 : ky) * 3 +
								 (kx > kx1 ? kx1 : kx));
				}
			}
}

/* maxpool backward over the whole output: dx[the element idx names in each window] += dy. */
static void ref_maxpool_bwd(const struct cuda_shape *s, const unsigned char *idx,
			    const void *dy, double *dx)
{
	enum cuda_dtype t = s->dtype;
	size_t C = (size_t)s->c, o = 0;
	for (int64_t n = 0; n < s->batch; n++)
		for (int64_t oy = 0; oy < s->oh; oy++)
			for (int64_t ox = 0; ox < s->ow; ox++)
				for (size_t c = 0; c < C; c++, o++) {
					int64_t iy = oy * 2 - 1 + idx[o] / 3, ix = ox * 2 - 1 + idx[o] % 3;
					if (iy < 0 || iy >= s->h || ix < 0 || ix >= s->w)
						continue;
					dx[(size_t)((n * s->h + iy) * s->w + ix) * C + c] +=
						cuda_elem_get(dy, t, o);
				}
}

void cuda_ref_compute(const struct cuda_shape *s, const void *in0, const void *in1,
		      const void *in2, struct cuda_ref *ref)
{
	struct cuda_sizes z;
	cuda_shape_sizes(s, &z);
	memset(ref, 0, sizeof(*ref));
	ref->step = 1;
	if (s->op == CUDA_GEMM || cuda_conv_is(s->op)) {
		double cost = (double)z.out * (double)s->k;
		if (cost > (double)CUDA_REF_MAX_MACS)
			ref->step = (size_t)ceil(cost / (double)CUDA_REF_MAX_MACS) | 1;
	}
	ref->n = (z.out + ref->step - 1) / ref->step;
	if (s->op == CUDA_MAXPOOL_BWD) {
		ref->val = xcalloc(z.out ? z.out : 1, sizeof(*ref->val));
		ref_maxpool_bwd(s, in0, in1, ref->val);
		return;
	}
	ref->val = xmalloc((ref->n ? ref->n : 1) * sizeof(*ref->val));
	for (size_t i = 0; i < ref->n; i++)
		ref->val[i] = ref_one(s, in0, in1, in2, i * ref->step);
}

double cuda_ref_error(const struct cuda_ref *ref, const void *y, enum cuda_dtype t, size_t nout,
		      size_t *bad)
{
	*bad = SIZE_MAX;
	for (size_t i = 0; i < nout; i++) {
		if (!isfinite(cuda_elem_get(y, t, i))) {
			*bad = i;
			return INFINITY;
		}
	}
	double num = 0, den = 0;
	for (size_t i = 0; i < ref->n; i++) {
		double d = cuda_elem_get(y, t, i * ref->step) - ref->val[i];
		num += d * d;
		den += ref->val[i] * ref->val[i];
	}
	return den > 0 ? sqrt(num / den) : sqrt(num);
}

void cuda_ref_release(struct cuda_ref *ref)
{
	free(ref->val);
	memset(ref, 0, sizeof(*ref));
}
