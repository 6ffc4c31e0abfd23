/* ops-cpu.c: the CPU backend's ops: shapes, config spaces, the vendor path (OpenBLAS and plain
 * C), im2col, and the float64 reference each config is checked against (docs/kernels.md) */
#include "config.h"
#include "kernels/cpu/cpu.h"

#include <cblas.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/catalog.h"

/* ---- names ----------------------------------------------------------------------------- */

static const char *const op_names[CPU_NOPS] = {
	[CPU_SGEMM] = "sgemm",
	[CPU_CONV2D] = "conv2d",
	[CPU_MAXPOOL] = "maxpool",
	[CPU_REDUCE] = "reduce",
	[CPU_BIAS_RELU] = "bias_relu",
};

const char *cpu_op_name(enum cpu_op op)
{
	return op < CPU_NOPS ? op_names[op] : "unknown";
}

int cpu_op_from_name(const char *name)
{
	for (int op = 0; op < CPU_NOPS; op++)
		if (!strcmp(op_names[op], name))
			return op;
	return -1;
}

enum cpu_op cpu_op_template(enum cpu_op op)
{
	return op == CPU_CONV2D ? CPU_SGEMM : op;
}

/* ---- shapes ---------------------------------------------------------------------------- */

/* Largest element count of one buffer: 2^34 floats (64 GiB), far beyond any real cell; it
 * keeps every size product below 2^63. */
#define MAX_ELEMS ((int64_t)1 << 34)
#define MAX_DIM ((int64_t)1 << 24)

/* a * b when both are in [0, MAX_ELEMS] and so is the product; else -1. */
static int64_t mul_capped(int64_t a, int64_t b)
{
	if (a < 0 || b < 0 || (b && a > MAX_ELEMS / b))
		return -1;
	return a * b;
}

static int64_t prod(int64_t a, int64_t b, int64_t c, int64_t d)
{
	return mul_capped(mul_capped(mul_capped(a, b), c), d);
}

/* Output size of a window r with stride and padding over n inputs (torch's floor rule);
 * 0 when the window does not fit. */
static int64_t out_size(int64_t n, int64_t r, int64_t stride, int64_t pad)
{
	if (n + 2 * pad < r)
		return 0;
	return (n + 2 * pad - r) / stride + 1;
}

int cpu_shape_init(struct cpu_shape *s, enum cpu_op op, int64_t batch, const int64_t *d,
		   char **cause)
{
	const struct op_info *info = catalog_op(cpu_op_name(op));
	memset(s, 0, sizeof(*s));
	s->op = op;
	s->batch = op == CPU_SGEMM || op == CPU_REDUCE ? 1 : batch;
	if (s->batch < 1 || s->batch > MAX_DIM) {
		*cause = xasprintf("batch %" PRId64 " is out of range (1 to %" PRId64 ")", batch,
				   MAX_DIM);
		return -1;
	}
	for (size_t i = 0; info->shape_fields[i]; i++) {
		const char *f = info->shape_fields[i];
		int64_t lo = !strcmp(f, "pad") ? 0 : 1;
		if (d[i] < lo || d[i] > MAX_DIM) {
			*cause = xasprintf("%s shape field '%s' = %" PRId64
					   " is out of range (%" PRId64 " to %" PRId64 ")",
					   cpu_op_name(op), f, d[i], lo, MAX_DIM);
			return -1;
		}
	}
	switch (op) {
	case CPU_SGEMM:
		s->m = d[0], s->n = d[1], s->k = d[2];
		break;
	case CPU_CONV2D:
		s->c = d[0], s->h = d[1], s->w = d[2], s->kout = d[3], s->r = d[4];
		s->stride = d[5], s->pad = d[6];
		break;
	case CPU_MAXPOOL:
		s->c = d[0], s->h = d[1], s->w = d[2], s->r = d[3], s->stride = d[4], s->pad = d[5];
		if (2 * s->pad > s->r) {
			*cause = xasprintf("maxpool pad %" PRId64 " is more than half the window %"
					   PRId64, s->pad, s->r);
			return -1;
		}
		break;
	case CPU_REDUCE:
		s->rows = d[0], s->cols = d[1];
		break;
	case CPU_BIAS_RELU:
		s->c = d[0], s->hw = d[1];
		break;
	default:
		*cause = xasprintf("unknown op %d", (int)op);
		return -1;
	}
	if (op == CPU_CONV2D || op == CPU_MAXPOOL) {
		s->oh = out_size(s->h, s->r, s->stride, s->pad);
		s->ow = out_size(s->w, s->r, s->stride, s->pad);
		if (!s->oh || !s->ow) {
			*cause = xasprintf("%s window %" PRId64 " does not fit a %" PRId64 "x%" PRId64
					   " input with padding %" PRId64, cpu_op_name(op), s->r,
					   s->h, s->w, s->pad);
			return -1;
		}
	}
	if (op == CPU_CONV2D) {
		s->m = s->kout;
		s->n = s->oh * s->ow;
		s->k = prod(s->c, s->r, s->r, 1);
	}
	struct cpu_sizes z;
	cpu_shape_sizes(s, &z);
	if (s->k < 0 || z.x == SIZE_MAX || z.w == SIZE_MAX || z.y == SIZE_MAX ||
	    z.work == SIZE_MAX) {
		*cause = xasprintf("%s shape is too large", cpu_op_name(op));
		return -1;
	}
	return 0;
}

int cpu_shape_from_workload(struct cpu_shape *s, const struct workload *w, char **cause)
{
	int op = cpu_op_from_name(w->op ? w->op : "");
	if (op < 0) {
		*cause = xasprintf("unknown op '%s'", w->op ? w->op : "");
		return -1;
	}
	const struct op_info *info = catalog_op(w->op);
	int64_t d[8] = { 0 };
	size_t nf = 0;
	for (; info->shape_fields[nf]; nf++) {
		size_t j = 0;
		while (j < w->nshape && strcmp(w->shape[j].name, info->shape_fields[nf]))
			j++;
		if (j == w->nshape) {
			*cause = xasprintf("%s shape needs field '%s'", w->op, info->shape_fields[nf]);
			return -1;
		}
		d[nf] = w->shape[j].value;
	}
	if (w->nshape != nf) {
		for (size_t j = 0; j < w->nshape; j++) {
			size_t f = 0;
			while (info->shape_fields[f] && strcmp(w->shape[j].name, info->shape_fields[f]))
				f++;
			if (!info->shape_fields[f]) {
				*cause = xasprintf("%s has no shape field '%s'", w->op, w->shape[j].name);
				return -1;
			}
		}
		*cause = xasprintf("%s shape repeats a field", w->op);
		return -1;
	}
	return cpu_shape_init(s, op, w->batch, d, cause);
}

void cpu_shape_format(const struct cpu_shape *s, struct sbuf *out)
{
	switch (s->op) {
	case CPU_SGEMM:
		sbuf_addf(out, "m=%" PRId64 ",n=%" PRId64 ",k=%" PRId64, s->m, s->n, s->k);
		break;
	case CPU_CONV2D:
		sbuf_addf(out, "c=%" PRId64 ",h=%" PRId64 ",w=%" PRId64 ",k=%" PRId64 ",r=%" PRId64
			  ",stride=%" PRId64 ",pad=%" PRId64, s->c, s->h, s->w, s->kout, s->r,
			  s->stride, s->pad);
		break;
	case CPU_MAXPOOL:
		sbuf_addf(out, "c=%" PRId64 ",h=%" PRId64 ",w=%" PRId64 ",r=%" PRId64
			  ",stride=%" PRId64 ",pad=%" PRId64, s->c, s->h, s->w, s->r, s->stride,
			  s->pad);
		break;
	case CPU_REDUCE:
		sbuf_addf(out, "rows=%" PRId64 ",cols=%" PRId64, s->rows, s->cols);
		break;
	case CPU_BIAS_RELU:
		sbuf_addf(out, "c=%" PRId64 ",hw=%" PRId64, s->c, s->hw);
		break;
	default:
		break;
	}
}

/* Floating-point operations of one call: 2 per multiply-add; one per comparison (maxpool),
 * addition (reduce) or bias-add and max (bias_relu: 2 per element). */
double cpu_shape_flops(const struct cpu_shape *s)
{
	double b = (double)s->batch;
	switch (s->op) {
	case CPU_SGEMM: return 2.0 * s->m * s->n * s->k;
	case CPU_CONV2D: return 2.0 * b * s->m * s->n * s->k;
	case CPU_MAXPOOL: return b * s->c * s->oh * s->ow * s->r * s->r;
	case CPU_REDUCE: return (double)s->rows * s->cols;
	case CPU_BIAS_RELU: return 2.0 * b * s->c * s->hw;
	default: return 0;
	}
}

/* A 1x1 conv with stride 1 and no padding multiplies the image itself: no im2col. */
static int conv_pointwise(const struct cpu_shape *s)
{
	return s->r == 1 && s->stride == 1 && s->pad == 0;
}

/* Sizes of the buffers; SIZE_MAX for one that would exceed MAX_ELEMS. */
void cpu_shape_sizes(const struct cpu_shape *s, struct cpu_sizes *out)
{
	int64_t x = 0, w = 0, y = 0, work = 0;
	switch (s->op) {
	case CPU_SGEMM:
		x = mul_capped(s->m, s->k), w = mul_capped(s->k, s->n), y = mul_capped(s->m, s->n);
		break;
	case CPU_CONV2D:
		x = prod(s->batch, s->c, s->h, s->w);
		w = mul_capped(s->kout, s->k);
		y = prod(s->batch, s->kout, s->oh, s->ow);
		if (!conv_pointwise(s))
			work = mul_capped(s->k, s->n);
		break;
	case CPU_MAXPOOL:
		x = prod(s->batch, s->c, s->h, s->w);
		y = prod(s->batch, s->c, s->oh, s->ow);
		break;
	case CPU_REDUCE:
		x = mul_capped(s->rows, s->cols), y = s->rows;
		break;
	case CPU_BIAS_RELU:
		x = prod(s->batch, s->c, s->hw, 1), w = s->c, y = x;
		break;
	default:
		break;
	}
	out->x = x < 0 ? SIZE_MAX : (size_t)x;
	out->w = w < 0 ? SIZE_MAX : (size_t)w;
	out->y = y < 0 ? SIZE_MAX : (size_t)y;
	out->work = work < 0 ? SIZE_MAX : (size_t)work;
}

/* ---- config spaces --------------------------------------------------------------------- */

/* sgemm (and conv2d's GEMM): BM, BN, BK tiles over the GEMM's m, n, k; UNROLL over k. */
enum { F_BM = 0, F_BN, F_BK, F_UNROLL };

static int gemm_valid(const struct space *sp, const struct config *c, const char **why)
{
	const struct cpu_shape *s = sp->ctx;
	const char *no = NULL;
	if (space_field_redundant(&sp->fields[F_BM], c->val[F_BM], s->m))
		no = "redundant: a smaller BM covers m";
	else if (space_field_redundant(&sp->fields[F_BN], c->val[F_BN], s->n))
		no = "redundant: a smaller BN covers n";
	else if (space_field_redundant(&sp->fields[F_BK], c->val[F_BK], s->k))
		no = "redundant: a smaller BK covers k";
	else if (space_field_redundant(&sp->fields[F_UNROLL], c->val[F_UNROLL], s->k))
		no = "redundant: a smaller UNROLL covers k";
	if (no && why)
		*why = no;
	return !no;
}

/* Rule of thumb: a BK x BN panel of B of about 64 KiB (16384 floats, so it stays in L2
 * while BM rows of A stream past it), as wide as possible because the inner loop runs
 * along a row; BK the largest value <= sqrt(16384) = 128; BM 64; UNROLL 4; every
 * tile clipped to the shape. */
#define GEMM_PANEL_FLOATS 16384
static void gemm_heuristic(const struct space *sp, struct config *c)
{
	const struct cpu_shape *s = sp->ctx;
	memset(c, 0, sizeof(*c));
	c->val[F_BK] = space_field_pick(&sp->fields[F_BK], 128, s->k);
	c->val[F_BN] = space_field_pick(&sp->fields[F_BN], GEMM_PANEL_FLOATS / c->val[F_BK], s->n);
	c->val[F_BM] = space_field_pick(&sp->fields[F_BM], 64, s->m);
	c->val[F_UNROLL] = space_field_pick(&sp->fields[F_UNROLL], 4, s->k);
}

/* The others: UNROLL over the innermost dimension (output columns for maxpool, the
 * reduced columns for reduce with one accumulator each, elements per channel for
 * bias_relu). */
static int64_t inner_dim(const struct cpu_shape *s)
{
	switch (s->op) {
	case CPU_MAXPOOL: return s->ow;
	case CPU_REDUCE: return s->cols;
	default: return s->hw;
	}
}

static int small_valid(const struct space *sp, const struct config *c, const char **why)
{
	if (!space_field_redundant(&sp->fields[0], c->val[0], inner_dim(sp->ctx)))
		return 1;
	if (why)
		*why = "redundant: a smaller UNROLL covers the inner dimension";
	return 0;
}

static void small_heuristic(const struct space *sp, struct config *c)
{
	memset(c, 0, sizeof(*c));
	c->val[0] = space_field_pick(&sp->fields[0], 4, inner_dim(sp->ctx));
}

void cpu_space_init(struct space *sp, const struct cpu_shape *shape)
{
	static const int64_t bm[] = { 16, 64 }, bn[] = { 32, 128, 512 }, bk[] = { 32, 256 };
	static const int64_t gemm_unroll[] = { 2, 4, 8 }, unroll[] = { 1, 2, 4, 8 };

	memset(sp, 0, sizeof(*sp));
	sp->op = cpu_op_name(shape->op);
	sp->has_vendor = 1; /* one candidate, OpenBLAS (or the built-in C code) as it is */
	sp->ctx = shape;
	if (shape->op == CPU_SGEMM || shape->op == CPU_CONV2D) {
		space_add_field(sp, "BM", bm, ARRAY_SIZE(bm));
		space_add_field(sp, "BN", bn, ARRAY_SIZE(bn));
		space_add_field(sp, "BK", bk, ARRAY_SIZE(bk));
		space_add_field(sp, "UNROLL", gemm_unroll, ARRAY_SIZE(gemm_unroll));
		sp->valid = gemm_valid;
		sp->heuristic = gemm_heuristic;
	} else {
		space_add_field(sp, "UNROLL", unroll, ARRAY_SIZE(unroll));
		sp->valid = small_valid;
		sp->heuristic = small_heuristic;
	}
}

/* ---- the vendor path ------------------------------------------------------------------- */

typedef void cblas_sgemm_fn(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta,
			    enum CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k, float alpha,
			    const float *a, blasint lda, const float *b, blasint ldb, float beta,
			    float *c, blasint ldc);

static cblas_sgemm_fn *vendor_sgemm;
static const char *vendor_library;

/* OpenBLAS's own cblas_sgemm, looked up in the shared object that defines
 * openblas_get_config.  A plain call to cblas_sgemm is not enough: GSL's reference CBLAS
 * (libgslcblas, part of GSL_LIBS) exports the same name and, when it comes first on the
 * link line, silently takes OpenBLAS's place, so "vendor" would time a naive triple loop. */
int cpu_vendor_init(char **cause)
{
	Dl_info info;
	if (vendor_sgemm)
		return 0;
	if (!dladdr((void *)openblas_get_config, &info) || !info.dli_fname) {
		*cause = xstrdup("cannot find the OpenBLAS library this program is linked with");
		return -1;
	}
	void *h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
	void *sym = h ? dlsym(h, "cblas_sgemm") : NULL;
	if (!sym) {
		*cause = xasprintf("no cblas_sgemm in OpenBLAS '%s'", info.dli_fname);
		return -1;
	}
	/* h stays open: the library is loaded for the life of the process anyway, and
	 * dli_fname points into the loader's record of it. */
	vendor_sgemm = (cblas_sgemm_fn *)sym;
	vendor_library = info.dli_fname;
	return 0;
}

const char *cpu_vendor_library(void)
{
	return vendor_library ? vendor_library : "unknown";
}

static void gemm(const struct cpu_kernel *k, int64_t m, int64_t n, int64_t kk, const float *a,
		 const float *b, float *c)
{
	if (k)
		k->fn.sgemm(m, n, kk, a, b, c);
	else
		vendor_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)m, (blasint)n,
			     (blasint)kk, 1.0f, a, (blasint)kk, b, (blasint)n, 0.0f, c, (blasint)n);
}

/* col[(ci r + ky) r + kx][oy ow + ox] = x[ci][oy stride - pad + ky][ox stride - pad + kx],
 * 0 in the padding: the k x n matrix of one image that conv2d multiplies by its weights. */
static void im2col(const struct cpu_shape *s, const float *x, float *col)
{
	for (int64_t ci = 0; ci < s->c; ci++) {
		const float *xc = x + ci * s->h * s->w;
		for (int64_t ky = 0; ky < s->r; ky++) {
			for (int64_t kx = 0; kx < s->r; kx++) {
				float *row = col + ((ci * s->r + ky) * s->r + kx) * s->n;
				for (int64_t oy = 0; oy < s->oh; oy++) {
					int64_t iy = oy * s->stride - s->pad + ky;
					float *dst = row + oy * s->ow;
					if (iy < 0 || iy >= s->h) {
						memset(dst, 0, (size_t)s->ow * sizeof(*dst));
						continue;
					}
					const float *src = xc + iy * s->w;
					for (int64_t ox = 0; ox < s->ow; ox++) {
						int64_t ix = ox * s->stride - s->pad + kx;
						dst[ox] = ix >= 0 && ix < s->w ? src[ix] : 0.0f;
					}
				}
			}
		}
	}
}

/* Padded positions never win (torch pads max pooling with -inf). */
static void vendor_maxpool(const struct cpu_shape *s, const float *x, float *y)
{
	for (int64_t p = 0; p < s->batch * s->c; p++) {
		const float *xp = x + p * s->h * s->w;
		float *yp = y + p * s->oh * s->ow;
		for (int64_t oy = 0; oy < s->oh; oy++) {
			for (int64_t ox = 0; ox < s->ow; ox++) {
				float m = -INFINITY;
				for (int64_t ky = 0; ky < s->r; ky++) {
					int64_t iy = oy * s->stride - s->pad + ky;
					if (iy < 0 || iy >= s->h)
						continue;
					for (int64_t kx = 0; kx < s->r; kx++) {
						int64_t ix = ox * s->stride - s->pad + kx;
						if (ix >= 0 && ix < s->w && xp[iy * s->w + ix] > m)
							m = xp[iy * s->w + ix];
					}
				}
				yp[oy * s->ow + ox] = m;
			}
		}
	}
}

static void vendor_reduce(const struct cpu_shape *s, const float *x, float *y)
{
	for (int64_t i = 0; i < s->rows; i++) {
		float sum = 0.0f;
		for (int64_t j = 0; j < s->cols; j++)
			sum += x[i * s->cols + j];
		y[i] = sum / (float)s->cols;
	}
}

/* ReLU as (v + |v|) / 2, exact in IEEE arithmetic and branch-free: gcc -O2 turns
 * `v > 0 ? v : 0` into a branch that mispredicts half the time on signed data (690 us
 * against 94 us for c=64, hw=2304), and fmaxf() into a libm call. */
static void vendor_bias_relu(const struct cpu_shape *s, const float *x, const float *b, float *y)
{
	for (int64_t p = 0; p < s->batch * s->c; p++) {
		const float bias = b[p % s->c];
		const float *xp = x + p * s->hw;
		float *yp = y + p * s->hw;
		for (int64_t i = 0; i < s->hw; i++) {
			const float v = xp[i] + bias;
			yp[i] = (v + fabsf(v)) * 0.5f;
		}
	}
}

void cpu_op_run(const struct cpu_shape *s, const struct cpu_kernel *k, const float *x,
		const float *w, float *y, float *work)
{
	switch (s->op) {
	case CPU_SGEMM:
		gemm(k, s->m, s->n, s->k, x, w, y);
		break;
	case CPU_CONV2D:
		for (int64_t b = 0; b < s->batch; b++) {
			const float *xb = x + b * s->c * s->h * s->w;
			if (!conv_pointwise(s)) {
				im2col(s, xb, work);
				xb = work;
			}
			gemm(k, s->m, s->n, s->k, w, xb, y + b * s->m * s->n);
		}
		break;
	case CPU_MAXPOOL:
		if (k)
			k->fn.maxpool(s->batch * s->c, s->h, s->w, s->r, s->stride, s->pad, s->oh,
				      s->ow, x, y);
		else
			vendor_maxpool(s, x, y);
		break;
	case CPU_REDUCE:
		if (k)
			k->fn.reduce(s->rows, s->cols, x, y);
		else
			vendor_reduce(s, x, y);
		break;
	case CPU_BIAS_RELU:
		if (k)
			k->fn.bias_relu(s->batch, s->c, s->hw, x, w, y);
		else
			vendor_bias_relu(s, x, w, y);
		break;
	default:
		break;
	}
}

/* ---- the float64 reference ------------------------------------------------------------- */

/* Unit roundoff of float32 and Higham's gamma_n = n u / (1 - n u): any evaluation order of
 * a float32 sum of n products satisfies |fl(s) - s| <= gamma_n sum |a_i b_i| (Higham,
 * Accuracy and Stability of Numerical Algorithms, 2nd ed., eq. 3.5), with or without fused
 * multiply-adds.  So that bound is the tolerance: any correct kernel passes, whatever its
 * blocking, and an error beyond it is a bug, not rounding. */
#define FLOAT32_U (1.0 / 16777216.0)
static double gamma_n(int64_t n)
{
	double nu = (double)n * FLOAT32_U;
	return nu / (1.0 - nu);
}

/* Output o of the op in float64: *val, and *scale, the magnitude its bound scales with. */
static void ref_one(const struct cpu_shape *s, const float *x, const float *w, size_t o,
		    double *val, double *scale)
{
	double v = 0, a = 0;
	switch (s->op) {
	case CPU_SGEMM: {
		int64_t i = (int64_t)o / s->n, j = (int64_t)o % s->n;
		for (int64_t p = 0; p < s->k; p++) {
			double t = (double)x[i * s->k + p] * (double)w[p * s->n + j];
			v += t;
			a += fabs(t);
		}
		break;
	}
	case CPU_CONV2D: {
		int64_t ox = (int64_t)o % s->ow, oy = (int64_t)o / s->ow % s->oh;
		int64_t ko = (int64_t)o / (s->ow * s->oh) % s->kout;
		int64_t b = (int64_t)o / (s->ow * s->oh * s->kout);
		for (int64_t ci = 0; ci < s->c; ci++) {
			const float *xc = x + (b * s->c + ci) * s->h * s->w;
			const float *wc = w + (ko * s->c + ci) * s->r * s->r;
			for (int64_t ky = 0; ky < s->r; ky++) {
				int64_t iy = oy * s->stride - s->pad + ky;
				if (iy < 0 || iy >= s->h)
					continue;
				for (int64_t kx = 0; kx < s->r; kx++) {
					int64_t ix = ox * s->stride - s->pad + kx;
					if (ix < 0 || ix >= s->w)
						continue;
					double t = (double)wc[ky * s->r + kx] * (double)xc[iy * s->w + ix];
					v += t;
					a += fabs(t);
				}
			}
		}
		break;
	}
	case CPU_MAXPOOL: {
		int64_t ox = (int64_t)o % s->ow, oy = (int64_t)o / s->ow % s->oh;
		const float *xp = x + (int64_t)o / (s->ow * s->oh) * s->h * s->w;
		v = -INFINITY;
		for (int64_t ky = 0; ky < s->r; ky++) {
			int64_t iy = oy * s->stride - s->pad + ky;
			for (int64_t kx = 0; kx < s->r; kx++) {
				int64_t ix = ox * s->stride - s->pad + kx;
				if (iy >= 0 && iy < s->h && ix >= 0 && ix < s->w)
					v = fmax(v, (double)xp[iy * s->w + ix]);
			}
		}
		a = fabs(v) > 0 ? fabs(v) : 1.0;
		break;
	}
	case CPU_REDUCE:
		for (int64_t j = 0; j < s->cols; j++) {
			v += x[(int64_t)o * s->cols + j];
			a += fabs(x[(int64_t)o * s->cols + j]);
		}
		v /= (double)s->cols;
		a /= (double)s->cols;
		break;
	case CPU_BIAS_RELU: {
		double b = w[(int64_t)o / s->hw % s->c];
		v = fmax((double)x[o] + b, 0.0);
		a = fabs((double)x[o]) + fabs(b);
		break;
	}
	default:
		break;
	}
	*val = v;
	*scale = a;
}

/* Accumulation length of one output, the n of its gamma_n (0: the op is exact).  reduce
 * adds one rounding for the division; bias_relu rounds once. */
static int64_t acc_len(const struct cpu_shape *s)
{
	switch (s->op) {
	case CPU_SGEMM:
	case CPU_CONV2D: return s->k;
	case CPU_REDUCE: return s->cols + 1;
	case CPU_BIAS_RELU: return 1;
	default: return 0;
	}
}

void cpu_ref_compute(const struct cpu_shape *s, const float *x, const float *w,
		     struct cpu_ref *ref)
{
	struct cpu_sizes z;
	cpu_shape_sizes(s, &z);
	int64_t len = acc_len(s);
	double cost = (double)z.y * (double)(len > 1 ? len : 1);
	size_t step = 1;
	if (cost > (double)CPU_REF_MAX_MACS) {
		step = (size_t)ceil(cost / (double)CPU_REF_MAX_MACS);
		step |= 1; /* odd, so the checked outputs do not all fall in one column */
	}
	memset(ref, 0, sizeof(*ref));
	ref->step = step;
	ref->n = (z.y + step - 1) / step;
	ref->val = xmalloc(ref->n * sizeof(*ref->val));
	ref->scale = xmalloc(ref->n * sizeof(*ref->scale));
	ref->len = len;
	ref->tol = len ? gamma_n(len) : 0.0;
	for (size_t i = 0; i < ref->n; i++)
		ref_one(s, x, w, i * step, &ref->val[i], &ref->scale[i]);
}

double cpu_ref_error(const struct cpu_ref *ref, const float *y, size_t *worst)
{
	double err = 0;
	*worst = 0;
	for (size_t i = 0; i < ref->n; i++) {
		double yi = y[i * ref->step], d = fabs(yi - ref->val[i]), e;
		if (!isfinite(yi))
			e = INFINITY;
		else if (ref->scale[i] > 0)
			e = d / ref->scale[i];
		else
			e = d > 0 ? INFINITY : 0.0;
		if (e > err) {
			err = e;
			*worst = i * ref->step;
		}
	}
	return err;
}

void cpu_ref_release(struct cpu_ref *ref)
{
	free(ref->val);
	free(ref->scale);
	memset(ref, 0, sizeof(*ref));
}
