/* ops.c: the CUDA backend's ops: names, shapes from workloads, config spaces in the
 * templates' vocabulary (Triton's for GEMM), NVRTC options of a config, host conversions of
 * the 16-bit types, and the float64 references every config is checked against
 * (docs/kernels.md).  Needs no device. */
#include "config.h"
#include "kernels/cuda/cuda.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/cuda/gemm-config.h"

/* ---- names ----------------------------------------------------------------------------- */

static const char *const op_names[CU_NOPS] = {
	[CU_GEMM] = "gemm",
	[CU_MAXPOOL] = "maxpool",
	[CU_MAXPOOL_BWD] = "maxpool_bwd",
	[CU_AVGPOOL] = "avgpool",
	[CU_SUM] = "sum",
	[CU_BIAS_RELU] = "bias_relu",
	[CU_BIAS_RELU_ADD] = "bias_relu_add",
	[CU_CONV] = "conv2d",
	[CU_CONV_BIAS] = "conv2d_bias",
	[CU_CONV_BIAS_RELU] = "conv2d_bias_relu",
	[CU_CONV_BIAS_RELU_ADD] = "conv2d_bias_relu_add",
};

static const char *const op_templates[CU_NOPS] = {
	[CU_GEMM] = "gemm.cu",
	[CU_MAXPOOL] = "maxpool.cu",
	[CU_MAXPOOL_BWD] = "maxpool.cu",
	[CU_AVGPOOL] = "avgpool.cu",
	[CU_SUM] = "reduce.cu",
	[CU_BIAS_RELU] = "bias_relu.cu",
	[CU_BIAS_RELU_ADD] = "bias_relu.cu",
	[CU_CONV] = "conv.cu",
	[CU_CONV_BIAS] = "conv.cu",
	[CU_CONV_BIAS_RELU] = "conv.cu",
	[CU_CONV_BIAS_RELU_ADD] = "conv.cu",
};

static const char *const dtype_names[] = { "float32", "float16", "bfloat16" };

const char *cuda_op_name(enum cuda_op op)
{
	return op < CU_NOPS ? op_names[op] : "unknown";
}

int cuda_op_from_name(const char *name)
{
	for (int op = 0; op < CU_NOPS; op++)
		if (!strcmp(op_names[op], name))
			return op;
	return -1;
}

const char *cuda_op_template(enum cuda_op op)
{
	return op < CU_NOPS ? op_templates[op] : "unknown";
}

const char *cuda_dtype_name(enum cuda_dtype t)
{
	return (unsigned)t < ARRAY_SIZE(dtype_names) ? dtype_names[t] : "unknown";
}

int cuda_dtype_from_name(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(dtype_names); i++)
		if (!strcmp(dtype_names[i], name))
			return (int)i;
	return -1;
}

size_t cuda_dtype_size(enum cuda_dtype t)
{
	return t == CU_F32 ? 4 : 2;
}

/* ---- the device ------------------------------------------------------------------------ */

void cuda_arch_name(int major, int minor, char out[16])
{
	if (major == 9 && minor == 0)
		snprintf(out, 16, "sm_90a");
	else
		snprintf(out, 16, "sm_%d%d", major, minor);
}

void cuda_devinfo_default(struct cuda_devinfo *d)
{
	memset(d, 0, sizeof(*d));
	d->cc_major = 9;
	d->cc_minor = 0;
	d->sms = 132;
	d->smem_optin = 227 * 1024;
	d->l2_bytes = 50L << 20;
	cuda_arch_name(9, 0, d->arch);
}

/* ---- shapes ---------------------------------------------------------------------------- */

#define MAX_DIM ((int64_t)1 << 30)
#define MAX_ELEMS ((int64_t)1 << 34)

static int get_dim(const struct workload *w, const char *name, int64_t lo, int64_t hi,
		   int64_t *out, char **cause)
{
	for (size_t i = 0; i < w->nshape; i++) {
		if (strcmp(w->shape[i].name, name))
			continue;
		if (w->shape[i].value < lo || w->shape[i].value > hi) {
			*cause = xasprintf("shape field '%s' = %" PRId64 " is outside %" PRId64
					   "..%" PRId64, name, w->shape[i].value, lo, hi);
			return -1;
		}
		*out = w->shape[i].value;
		return 0;
	}
	*cause = xasprintf("op '%s' needs shape field '%s'", w->op, name);
	return -1;
}

int cuda_shape_from_workload(struct cuda_shape *s, const struct workload *w, char **cause)
{
	memset(s, 0, sizeof(*s));
	int op = cuda_op_from_name(w->op ? w->op : "");
	if (op < 0) {
		struct sbuf sb;
		sbuf_init(&sb);
		for (int k = 0; k < CU_NOPS; k++)
			sbuf_addf(&sb, "%s%s", k ? ", " : "", op_names[k]);
		*cause = xasprintf("op '%s' is not one the cuda backend has (%s)", w->op ? w->op : "",
				   sb.buf);
		sbuf_release(&sb);
		return -1;
	}
	s->op = (enum cuda_op)op;
	int t = cuda_dtype_from_name(w->dtype ? w->dtype : "float32");
	if (t < 0) {
		*cause = xasprintf("dtype '%s' is not one the cuda backend has (float32, float16, "
				   "bfloat16)", w->dtype);
		return -1;
	}
	s->dtype = (enum cuda_dtype)t;
	s->tf32 = w->tf32 > 0;
	if (s->tf32 && (s->dtype != CU_F32 || (s->op != CU_GEMM && !cuda_conv_is(s->op)))) {
		*cause = xstrdup("'tf32 = true' is for float32 gemm and conv workloads only");
		return -1;
	}
	s->batch = w->batch > 0 ? w->batch : 1;
	switch (s->op) {
	case CU_GEMM:
		if (get_dim(w, "m", 1, MAX_DIM, &s->m, cause) ||
		    get_dim(w, "n", 1, MAX_DIM, &s->n, cause) ||
		    get_dim(w, "k", 1, MAX_DIM, &s->k, cause))
			return -1;
		s->batch = 1;
		break;
	case CU_MAXPOOL:
	case CU_MAXPOOL_BWD: {
		int64_t r, stride, pad;
		if (get_dim(w, "c", 1, MAX_DIM, &s->c, cause) ||
		    get_dim(w, "h", 1, MAX_DIM, &s->h, cause) ||
		    get_dim(w, "w", 1, MAX_DIM, &s->w, cause) ||
		    get_dim(w, "r", 1, MAX_DIM, &r, cause) ||
		    get_dim(w, "stride", 1, MAX_DIM, &stride, cause) ||
		    get_dim(w, "pad", 0, MAX_DIM, &pad, cause))
			return -1;
		if (r != 3 || stride != 2 || pad != 1) {
			*cause = xasprintf("the cuda %s template is 3x3, stride 2, padding 1 only "
					   "(r = 3, stride = 2, pad = 1)", op_names[s->op]);
			return -1;
		}
		s->oh = (s->h - 1) / 2 + 1;
		s->ow = (s->w - 1) / 2 + 1;
		break;
	}
	case CU_AVGPOOL:
		if (get_dim(w, "c", 1, MAX_DIM, &s->c, cause) ||
		    get_dim(w, "h", 1, MAX_DIM, &s->h, cause) ||
		    get_dim(w, "w", 1, MAX_DIM, &s->w, cause))
			return -1;
		break;
	case CU_SUM:
		if (get_dim(w, "rows", 1, MAX_DIM, &s->rows, cause) ||
		    get_dim(w, "cols", 1, MAX_DIM, &s->cols, cause) ||
		    get_dim(w, "dim", 0, 1, &s->dim, cause))
			return -1;
		s->batch = 1;
		break;
	case CU_BIAS_RELU:
	case CU_BIAS_RELU_ADD:
		if (get_dim(w, "c", 1, MAX_DIM, &s->c, cause) ||
		    get_dim(w, "hw", 1, MAX_DIM, &s->hw, cause))
			return -1;
		break;
	default: { /* the conv ops (every other op has its case): the cpu backend's conv2d fields */
		static const char *const f[] = { "c", "h", "w", "k", "r", "stride", "pad" };
		int64_t v[7] = { 0 };
		for (int i = 0; i < 7; i++)
			if (get_dim(w, f[i], i == 6 ? 0 : 1, MAX_DIM, &v[i], cause))
				return -1;
		if (cuda_conv_shape_set(s, v[0], v[1], v[2], v[3], v[4], v[5], v[6], cause))
			return -1;
		break;
	}
	}
	struct cuda_sizes z;
	cuda_shape_sizes(s, &z);
	if (z.in0 > (size_t)MAX_ELEMS || z.in1 > (size_t)MAX_ELEMS || z.out > (size_t)MAX_ELEMS ||
	    (s->op == CU_GEMM && (s->m > INT32_MAX || s->n > INT32_MAX ||
				  s->m * s->n > INT32_MAX))) {
		*cause = xstrdup("the shape is too large for the cuda templates (int indices)");
		return -1;
	}
	return 0;
}

void cuda_shape_format(const struct cuda_shape *s, struct sbuf *out)
{
	switch (s->op) {
	case CU_GEMM:
		sbuf_addf(out, "m=%" PRId64 ",n=%" PRId64 ",k=%" PRId64, s->m, s->n, s->k);
		break;
	case CU_MAXPOOL:
	case CU_MAXPOOL_BWD:
		sbuf_addf(out, "c=%" PRId64 ",h=%" PRId64 ",w=%" PRId64 ",r=3,stride=2,pad=1", s->c,
			  s->h, s->w);
		break;
	case CU_AVGPOOL:
		sbuf_addf(out, "c=%" PRId64 ",h=%" PRId64 ",w=%" PRId64, s->c, s->h, s->w);
		break;
	case CU_SUM:
		sbuf_addf(out, "rows=%" PRId64 ",cols=%" PRId64 ",dim=%" PRId64, s->rows, s->cols,
			  s->dim);
		break;
	default:
		if (cuda_conv_is(s->op)) /* the cpu backend's conv2d names */
			sbuf_addf(out, "c=%" PRId64 ",h=%" PRId64 ",w=%" PRId64 ",k=%" PRId64
				  ",r=%" PRId64 ",stride=%" PRId64 ",pad=%" PRId64, s->c, s->h, s->w,
				  s->kout, s->r, s->stride, s->pad);
		else
			sbuf_addf(out, "c=%" PRId64 ",hw=%" PRId64, s->c, s->hw);
		break;
	}
}

void cuda_shape_sizes(const struct cuda_shape *s, struct cuda_sizes *z)
{
	memset(z, 0, sizeof(*z));
	switch (s->op) {
	case CU_GEMM:
		z->in0 = (size_t)(s->m * s->k);
		z->in1 = (size_t)(s->n * s->k);
		z->out = (size_t)(s->m * s->n);
		break;
	case CU_MAXPOOL:
		z->in0 = (size_t)(s->batch * s->h * s->w * s->c);
		z->out = (size_t)(s->batch * s->oh * s->ow * s->c);
		break;
	case CU_MAXPOOL_BWD: /* in0: the forward's window positions (1 byte each), in1: dy */
		z->in0 = (size_t)(s->batch * s->oh * s->ow * s->c);
		z->in1 = z->in0;
		z->out = (size_t)(s->batch * s->h * s->w * s->c);
		break;
	case CU_AVGPOOL:
		z->in0 = (size_t)(s->batch * s->h * s->w * s->c);
		z->out = (size_t)(s->batch * s->c);
		break;
	case CU_SUM:
		z->in0 = (size_t)(s->rows * s->cols);
		z->out = (size_t)(s->dim ? s->rows : s->cols);
		break;
	case CU_BIAS_RELU:
	case CU_BIAS_RELU_ADD:
		z->in0 = (size_t)(s->batch * s->hw * s->c);
		z->in1 = (size_t)s->c;
		z->in2 = s->op == CU_BIAS_RELU_ADD ? z->in0 : 0;
		z->out = z->in0;
		break;
	default:
		if (cuda_conv_is(s->op))
			cuda_conv_sizes(s, z);
		break;
	}
}

double cuda_shape_flops(const struct cuda_shape *s)
{
	struct cuda_sizes z;
	cuda_shape_sizes(s, &z);
	switch (s->op) {
	case CU_GEMM: return 2.0 * (double)s->m * (double)s->n * (double)s->k;
	case CU_MAXPOOL: return 9.0 * (double)z.out;
	case CU_MAXPOOL_BWD: return 9.0 * (double)z.in1;
	default: /* a conv's implicit GEMM */
		return cuda_conv_is(s->op) ? 2.0 * (double)s->m * (double)s->n * (double)s->k
					   : (double)z.in0;
	}
}

size_t cuda_input_esize(const struct cuda_shape *s, int i)
{
	return s->op == CU_MAXPOOL_BWD && i == 0 ? 1 : cuda_dtype_size(s->dtype);
}

double cuda_shape_bytes(const struct cuda_shape *s)
{
	struct cuda_sizes z;
	cuda_shape_sizes(s, &z);
	return (double)z.in0 * (double)cuda_input_esize(s, 0) +
	       (double)(z.in1 + z.in2 + z.out) * (double)cuda_dtype_size(s->dtype);
}

/* ---- config spaces --------------------------------------------------------------------- */

enum { G_BM = 0, G_BN, G_BK, G_WARPS, G_STAGES, G_SPLIT_K, G_GROUP_M };
enum { M_BLOCK = 0, M_VEC, M_ROWS };

static void set_field(struct space *sp, const char *name, const int64_t *v, size_t n)
{
	struct space_field *f = &sp->fields[sp->nfields++];
	f->name = name;
	memcpy(f->values, v, n * sizeof(*v));
	f->nvalues = n;
}

/* A tile value is redundant for a dimension d when a smaller value of the field already
 * covers d: both give the same single block, so the space keeps only the smaller one. */
static int redundant(const struct space_field *f, int64_t v, int64_t d)
{
	for (size_t i = 0; i < f->nvalues && f->values[i] < v; i++)
		if (f->values[i] >= d)
			return 1;
	return 0;
}


void cuda_gemm_config_get(const struct cuda_space_ctx *x, const struct config *c,
			  struct cuda_gemm_config *g)
{
	memset(g, 0, sizeof(*g));
	g->block_m = (int)c->val[G_BM];
	g->block_n = (int)c->val[G_BN];
	g->block_k = (int)c->val[G_BK];
	g->warps = (int)c->val[G_WARPS];
	g->stages = (int)c->val[G_STAGES];
	g->split_k = (int)c->val[G_SPLIT_K];
	g->group_m = (int)c->val[G_GROUP_M];
	g->elem_bytes = (int)cuda_dtype_size(x->shape.dtype);
	g->tf32 = x->shape.tf32;
	g->wgmma = cuda_gemm_use_wgmma(g, !strcmp(x->dev.arch, "sm_90a"));
}

/* ---- the roofline estimate ------------------------------------------------------------ */

/* Throughput per SM per clock, dense, from NVIDIA's architecture whitepapers (V100, A100,
 * GA102 professional parts, Ada L40S, H100 SXM5, B200): FP32 lanes x 2, and tensor-core
 * flops with FP32 accumulation for float16 / bfloat16 / TF32.  Each row reproduces the
 * data sheet's peak as rate x SMs x boost clock (H100 SXM5: 4096 x 132 x 1.83 GHz = 989
 * TFLOP/s float16). */
static const struct {
	int major, minor;
	double ffma, f16, bf16, tf32;
} roofline_rates[] = {
	{ 7, 0, 128, 1024, 0, 0 },       /* V100 */
	{ 8, 0, 128, 2048, 2048, 1024 }, /* A100 */
	{ 8, 6, 256, 1024, 1024, 512 },  /* A40, RTX A6000 */
	{ 8, 9, 256, 1024, 1024, 512 },  /* L40S */
	{ 9, 0, 256, 4096, 4096, 2048 }, /* H100 */
	{ 10, 0, 256, 8192, 8192, 4096 },/* B200 */
};

int cuda_roofline_rates(int major, int minor, struct cuda_roofline *r)
{
	for (size_t i = 0; i < ARRAY_SIZE(roofline_rates); i++) {
		if (roofline_rates[i].major != major || roofline_rates[i].minor != minor)
			continue;
		r->ffma_flops_clk = roofline_rates[i].ffma;
		r->tensor_flops_clk[CU_F32] = roofline_rates[i].tf32;
		r->tensor_flops_clk[CU_F16] = roofline_rates[i].f16;
		r->tensor_flops_clk[CU_BF16] = roofline_rates[i].bf16;
		return 0;
	}
	return -1;
}

static double cdivd(int64_t a, int64_t b)
{
	return (double)((a + b - 1) / b);
}

double cuda_estimate_ns(const struct cuda_roofline *r, const struct cuda_space_ctx *x,
			const struct config *c)
{
	const struct cuda_shape *s = &x->shape;
	if (!c || c->vendor || !(r->mem_bytes_ns > 0) || cuda_conv_is(s->op))
		return NAN; /* no model for the conv ops yet (their implicit GEMM is the next step) */
	if (s->op != CU_GEMM) /* memory-bound: the bytes it must move, once */
		return cuda_shape_bytes(s) / r->mem_bytes_ns;
	int64_t bm = c->val[G_BM], bn = c->val[G_BN], bk = c->val[G_BK], sk = c->val[G_SPLIT_K];
	if (bm <= 0 || bn <= 0 || bk <= 0 || sk <= 0 || r->sms <= 0 || !(r->clock_ghz > 0))
		return NAN;
	double rate = s->dtype == CU_F32 && !s->tf32 ? r->ffma_flops_clk
						      : r->tensor_flops_clk[s->dtype];
	if (!(rate > 0))
		return NAN;
	double es = (double)cuda_dtype_size(s->dtype);
	double tm = cdivd(s->m, bm), tn = cdivd(s->n, bn);
	/* k-tiles per split, as the kernel divides them; one CTA's k extent */
	int64_t ktiles = (s->k + bk - 1) / bk, per = (ktiles + sk - 1) / sk;
	double kcta = (double)(per * bk);
	double ctas = tm * tn * (double)sk;
	double waves = ceil(ctas / (double)r->sms);
	/* every SM busy for every wave: a wave costs one CTA's padded tile at one SM's rate */
	double t_comp = waves * 2.0 * (double)bm * (double)bn * kcta / (rate * r->clock_ghz);
	double bytes = es * (double)s->m * (double)s->k * tn +  /* A, once per column of tiles */
		       es * (double)s->n * (double)s->k * tm +  /* B, once per row of tiles */
		       es * (double)s->m * (double)s->n;        /* C, written once */
	if (sk > 1) /* float partials written by the splits, read back by the finishing kernel */
		bytes += 2.0 * 4.0 * (double)sk * (double)s->m * (double)s->n;
	double t_mem = bytes / r->mem_bytes_ns;
	return t_comp > t_mem ? t_comp : t_mem;
}

static int gemm_valid(const struct space *sp, const struct config *c, const char **why)
{
	const struct cuda_space_ctx *x = sp->ctx;
	const struct cuda_shape *s = &x->shape;
	const char *no = NULL, *rule = NULL;
	struct cuda_gemm_config g;
	cuda_gemm_config_get(x, c, &g);
	int64_t ktiles = (s->k + c->val[G_BK] - 1) / c->val[G_BK];
	int64_t per = (ktiles + c->val[G_SPLIT_K] - 1) / c->val[G_SPLIT_K];
	int64_t grid_m = (s->m + c->val[G_BM] - 1) / c->val[G_BM];
	if (cuda_gemm_config_check(&g, x->dev.smem_optin, !strcmp(x->dev.arch, "sm_90a"),
				   &rule) < 0)
		no = rule;
	else if (redundant(&sp->fields[G_BM], c->val[G_BM], s->m))
		no = "redundant: a smaller BLOCK_M covers m";
	else if (redundant(&sp->fields[G_BN], c->val[G_BN], s->n))
		no = "redundant: a smaller BLOCK_N covers n";
	else if (redundant(&sp->fields[G_BK], c->val[G_BK], s->k))
		no = "redundant: a smaller BLOCK_K covers k";
	else if (per * (c->val[G_SPLIT_K] - 1) >= ktiles)
		no = "SPLIT_K leaves a split without k-tiles";
	else if (redundant(&sp->fields[G_GROUP_M], c->val[G_GROUP_M], grid_m))
		no = "redundant: a smaller GROUP_M covers the rows of tiles";
	if (no && why)
		*why = no;
	return !no;
}

/* The largest value <= want (or the smallest value), lowered to the smallest value that
 * covers d, so the result is never redundant. */
static int64_t pick(const struct space_field *f, int64_t want, int64_t d)
{
	int64_t v = f->values[0];
	for (size_t i = 0; i < f->nvalues; i++)
		if (f->values[i] <= want)
			v = f->values[i];
	for (size_t i = 0; i < f->nvalues; i++)
		if (f->values[i] >= d && f->values[i] < v)
			return f->values[i];
	return v;
}

/* Set c's tile fields, each clipped to the shape (pick). */
static void gemm_tiles(const struct space *sp, struct config *c, int64_t bm, int64_t bn,
		       int64_t bk, int64_t warps, int64_t stages)
{
	const struct cuda_shape *s = &((const struct cuda_space_ctx *)sp->ctx)->shape;
	c->val[G_BM] = pick(&sp->fields[G_BM], bm, s->m);
	c->val[G_BN] = pick(&sp->fields[G_BN], bn, s->n);
	c->val[G_BK] = pick(&sp->fields[G_BK], bk, s->k);
	c->val[G_WARPS] = warps;
	c->val[G_STAGES] = stages;
}

/* Rule of thumb.  Hopper (sm_90a) and 16-bit types: the wgmma + TMA kernel at the tile that
 * measured fastest for the grid the shape gives (docs/BENCHMARKS.md, 2026-11-23): 128 x 256
 * x 64, 8 warps, 4 stages when those tiles fill the SMs (90% or more), else 128 x 128 x 64,
 * 4 warps, 4 stages when those fill half of them, else 64 x 128 x 64, 4 warps, 5 stages.
 * Elsewhere (Triton's matmul tutorial defaults): tensor cores: 128 x 128 x 32 (64 for
 * 16-bit types), 4 warps, 3 stages; FFMA: 64 x 64 x 16.  GROUP_M 8.  Tiles clipped to the
 * shape; SPLIT_K raised while the tiles fill less than half the SMs and k has room.  When
 * that breaks a rule, the Triton default, then the first valid grid point. */
static void gemm_heuristic(const struct space *sp, struct config *c)
{
	const struct cuda_space_ctx *x = sp->ctx;
	const struct cuda_shape *s = &x->shape;
	int mma = s->dtype != CU_F32 || s->tf32;
	int hopper = s->dtype != CU_F32 && !strcmp(x->dev.arch, "sm_90a");
	int64_t hk = 64; /* one 128-byte swizzle atom */
	memset(c, 0, sizeof(*c));
	for (int attempt = hopper ? 0 : 1; attempt < 2; attempt++) {
		if (attempt == 0) {
			int64_t t256 = ((s->m + 127) / 128) * ((s->n + 255) / 256);
			int64_t t128 = ((s->m + 127) / 128) * ((s->n + 127) / 128);
			if (t256 * 10 >= (int64_t)x->dev.sms * 9)
				gemm_tiles(sp, c, 128, 256, hk, 8, 4);
			else if (t128 * 2 >= (int64_t)x->dev.sms)
				gemm_tiles(sp, c, 128, 128, hk, 4, 4);
			else
				gemm_tiles(sp, c, 64, 128, hk, 4, 5);
		} else {
			gemm_tiles(sp, c, mma ? 128 : 64, mma ? 128 : 64,
				   s->dtype != CU_F32 ? 64 : (mma ? 32 : 16), 4, 3);
		}
		c->val[G_GROUP_M] = pick(&sp->fields[G_GROUP_M], 8,
					 (s->m + c->val[G_BM] - 1) / c->val[G_BM]);
		int64_t tiles = ((s->m + c->val[G_BM] - 1) / c->val[G_BM]) *
				((s->n + c->val[G_BN] - 1) / c->val[G_BN]);
		int64_t split = 1;
		while (split < 8 && tiles * split * 2 <= x->dev.sms &&
		       (s->k / c->val[G_BK]) >= split * 2 * 4)
			split *= 2;
		c->val[G_SPLIT_K] = split;
		if (gemm_valid(sp, c, NULL))
			return;
	}
	size_t n = space_grid_size(sp);
	for (size_t i = 0; i < n; i++)
		if (!space_grid_point(sp, i, c) && gemm_valid(sp, c, NULL))
			return;
}

/* The memory-bound templates: BLOCK threads, VEC elements per access (VEC * size <= 16
 * bytes), ROWS threads along the reduced dimension where the template has it. */
static int mem_valid(const struct space *sp, const struct config *c, const char **why)
{
	const struct cuda_space_ctx *x = sp->ctx;
	const char *no = NULL;
	int64_t size = (int64_t)cuda_dtype_size(x->shape.dtype);
	if (c->val[M_VEC] * size > 16)
		no = "VEC * the element size is over 16 bytes";
	else if (sp->nfields > M_ROWS && (c->val[M_BLOCK] % c->val[M_ROWS] ||
					  c->val[M_BLOCK] / c->val[M_ROWS] < 32))
		no = "ROWS must divide BLOCK and leave a warp or more across";
	if (no && why)
		*why = no;
	return !no;
}

static void mem_heuristic(const struct space *sp, struct config *c)
{
	const struct cuda_space_ctx *x = sp->ctx;
	memset(c, 0, sizeof(*c));
	c->val[M_BLOCK] = 256;
	c->val[M_VEC] = 16 / (int64_t)cuda_dtype_size(x->shape.dtype);
	if (sp->nfields > M_ROWS)
		c->val[M_ROWS] = 8;
}

static void fields_of(struct space *sp, enum cuda_op op)
{
	static const int64_t bm[] = { 16, 32, 64, 128, 256 }, bk[] = { 16, 32, 64, 128 };
	static const int64_t warps[] = { 1, 2, 4, 8 }, stages[] = { 2, 3, 4, 5 };
	static const int64_t split[] = { 1, 2, 4, 8 }, group[] = { 1, 4, 8 };
	static const int64_t block[] = { 64, 128, 256, 512, 1024 }, vec[] = { 1, 2, 4, 8 };
	static const int64_t rows[] = { 1, 2, 4, 8, 16 };

	if (cuda_conv_is(op)) {
		cuda_conv_fields(sp, op);
		return;
	}
	sp->op = cuda_op_name(op);
	sp->has_vendor = 1;
	if (op == CU_GEMM) {
		set_field(sp, "BLOCK_M", bm, ARRAY_SIZE(bm));
		set_field(sp, "BLOCK_N", bm, ARRAY_SIZE(bm));
		set_field(sp, "BLOCK_K", bk, ARRAY_SIZE(bk));
		set_field(sp, "WARPS", warps, ARRAY_SIZE(warps));
		set_field(sp, "STAGES", stages, ARRAY_SIZE(stages));
		set_field(sp, "SPLIT_K", split, ARRAY_SIZE(split));
		set_field(sp, "GROUP_M", group, ARRAY_SIZE(group));
		/* how local searches step (space.h): Inductor doubles and halves tiles, warps
		 * and split factors, moves stages by one; GROUP_M {1, 4, 8} by allowed value */
		for (size_t f = G_BM; f <= G_SPLIT_K; f++)
			sp->fields[f].step = SPACE_STEP_POW2;
		sp->fields[G_STAGES].step = SPACE_STEP_UNIT;
		sp->fields[G_GROUP_M].step = SPACE_STEP_ORDINAL;
		return;
	}
	set_field(sp, "BLOCK", block, ARRAY_SIZE(block));
	set_field(sp, "VEC", vec, ARRAY_SIZE(vec));
	if (op == CU_AVGPOOL || op == CU_SUM)
		set_field(sp, "ROWS", rows, ARRAY_SIZE(rows));
	for (size_t f = 0; f < sp->nfields; f++)
		sp->fields[f].step = SPACE_STEP_POW2; /* every value a power of two */
}

void cuda_space_init(struct space *sp, const struct cuda_space_ctx *ctx)
{
	if (cuda_conv_is(ctx->shape.op)) {
		cuda_conv_space_init(sp, ctx);
		return;
	}
	memset(sp, 0, sizeof(*sp));
	fields_of(sp, ctx->shape.op);
	sp->ctx = ctx;
	sp->valid = ctx->shape.op == CU_GEMM ? gemm_valid : mem_valid;
	sp->heuristic = ctx->shape.op == CU_GEMM ? gemm_heuristic : mem_heuristic;
}

int cuda_op_space(const char *op, struct space *out)
{
	int k = cuda_op_from_name(op);
	if (k < 0)
		return -1;
	memset(out, 0, sizeof(*out));
	fields_of(out, (enum cuda_op)k);
	return 0;
}

size_t cuda_config_options(const struct space *sp, const struct config *c, const char *arch,
			   char **opts)
{
	const struct cuda_space_ctx *x = sp->ctx;
	const struct cuda_shape *s = &x->shape;
	static const char *const dtype_macro[] = { "-DDTYPE_FLOAT32", "-DDTYPE_FLOAT16",
						   "-DDTYPE_BFLOAT16" };
	size_t n = 0;
	opts[n++] = xasprintf("--gpu-architecture=%s", arch);
	opts[n++] = xstrdup("-std=c++17");
	opts[n++] = xstrdup(dtype_macro[s->dtype]);
	if (s->op == CU_GEMM && s->tf32)
		opts[n++] = xstrdup("-DTF32=1");
	if (s->op == CU_GEMM && !c->vendor) {
		struct cuda_gemm_config g;
		struct cuda_space_ctx xa = *x;
		snprintf(xa.dev.arch, sizeof(xa.dev.arch), "%s", arch);
		cuda_gemm_config_get(&xa, c, &g);
		if (g.wgmma)
			opts[n++] = xstrdup("-DWGMMA=1");
	}
	if (s->op == CU_BIAS_RELU || s->op == CU_BIAS_RELU_ADD)
		opts[n++] = xasprintf("-DRESIDUAL=%d", s->op == CU_BIAS_RELU_ADD);
	if (cuda_conv_is(s->op)) /* TF32; the vendor point: conv_epilogue after cuDNN */
		n += cuda_conv_options(s, opts + n);
	if (c->vendor)
		return n; /* memory-bound "vendor": the template's documented defaults */
	for (size_t f = 0; f < sp->nfields && n < CUDA_MAX_OPTS; f++)
		opts[n++] = xasprintf("-D%s=%" PRId64, sp->fields[f].name, c->val[f]);
	return n;
}

double cuda_tolerance(const struct cuda_shape *s)
{
	if (s->dtype != CU_F32)
		return 1e-2;
	return s->tf32 ? 1e-3 : 1e-5;
}

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
	case CU_F16: return cuda_f16_to_f32(((const uint16_t *)buf)[i]);
	case CU_BF16: return cuda_bf16_to_f32(((const uint16_t *)buf)[i]);
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

void cuda_fill_uniform(void *buf, enum cuda_dtype t, size_t n, uint64_t *rng)
{
	for (size_t i = 0; i < n; i++) {
		float v = (float)(2.0 * next_uniform(rng) - 1.0);
		if (t == CU_F16)
			((uint16_t *)buf)[i] = cuda_f32_to_f16(v);
		else if (t == CU_BF16)
			((uint16_t *)buf)[i] = cuda_f32_to_bf16(v);
		else
			((float *)buf)[i] = v;
	}
}

/* ---- the float64 reference ------------------------------------------------------------- */

/* Output o of op s in float64 from the inputs as stored (16-bit values exactly). */
static double ref_one(const struct cuda_shape *s, const void *in0, const void *in1,
		      const void *in2, size_t o)
{
	enum cuda_dtype t = s->dtype;
	double v = 0;
	switch (s->op) {
	case CU_GEMM: {
		size_t i = o / (size_t)s->n, j = o % (size_t)s->n, k = (size_t)s->k;
		for (size_t p = 0; p < k; p++)
			v += cuda_elem_get(in0, t, i * k + p) * cuda_elem_get(in1, t, j * k + p);
		return v;
	}
	case CU_MAXPOOL: {
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
	case CU_AVGPOOL: {
		size_t c = o % (size_t)s->c, n = o / (size_t)s->c, hw = (size_t)(s->h * s->w);
		for (size_t p = 0; p < hw; p++)
			v += cuda_elem_get(in0, t, (n * hw + p) * (size_t)s->c + c);
		return v / (double)hw;
	}
	case CU_SUM:
		if (s->dim) {
			for (int64_t j = 0; j < s->cols; j++)
				v += cuda_elem_get(in0, t, o * (size_t)s->cols + (size_t)j);
		} else {
			for (int64_t r = 0; r < s->rows; r++)
				v += cuda_elem_get(in0, t, (size_t)r * (size_t)s->cols + o);
		}
		return v;
	case CU_BIAS_RELU:
	case CU_BIAS_RELU_ADD:
		v = cuda_elem_get(in0, t, o) + cuda_elem_get(in1, t, o % (size_t)s->c);
		if (s->op == CU_BIAS_RELU_ADD)
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
	if (s->op == CU_GEMM || cuda_conv_is(s->op)) {
		double cost = (double)z.out * (double)s->k;
		if (cost > (double)CUDA_REF_MAX_MACS)
			ref->step = (size_t)ceil(cost / (double)CUDA_REF_MAX_MACS) | 1;
	}
	ref->n = (z.out + ref->step - 1) / ref->step;
	if (s->op == CU_MAXPOOL_BWD) {
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
