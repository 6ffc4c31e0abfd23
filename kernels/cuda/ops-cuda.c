/* ops-cuda.c: the CUDA backend's ops: names, templates, dtypes, the device's architecture name,
 * and shapes from workloads (sizes, flops, bytes).  The config spaces and the roofline are in
 * space-cuda.c, the host numerics and the float64 reference in host.c (docs/kernels.md).  Needs no
 * device. */
#include "config.h"
#include "kernels/cuda/ops.h"

#include <inttypes.h>
#include <string.h>

#include <gsl/gsl_rng.h>

/* ---- names ----------------------------------------------------------------------------- */

static const char *const op_names[CUDA_NOPS] = {
	[CUDA_GEMM] = "gemm",
	[CUDA_MAXPOOL] = "maxpool",
	[CUDA_MAXPOOL_BWD] = "maxpool_bwd",
	[CUDA_AVGPOOL] = "avgpool",
	[CUDA_SUM] = "sum",
	[CUDA_BIAS_RELU] = "bias_relu",
	[CUDA_BIAS_RELU_ADD] = "bias_relu_add",
	[CUDA_CONV] = "conv2d",
	[CUDA_CONV_BIAS] = "conv2d_bias",
	[CUDA_CONV_BIAS_RELU] = "conv2d_bias_relu",
	[CUDA_CONV_BIAS_RELU_ADD] = "conv2d_bias_relu_add",
};

static const char *const op_templates[CUDA_NOPS] = {
	[CUDA_GEMM] = "gemm.cu",
	[CUDA_MAXPOOL] = "maxpool.cu",
	[CUDA_MAXPOOL_BWD] = "maxpool.cu",
	[CUDA_AVGPOOL] = "avgpool.cu",
	[CUDA_SUM] = "reduce.cu",
	[CUDA_BIAS_RELU] = "bias_relu.cu",
	[CUDA_BIAS_RELU_ADD] = "bias_relu.cu",
	[CUDA_CONV] = "conv.cu",
	[CUDA_CONV_BIAS] = "conv.cu",
	[CUDA_CONV_BIAS_RELU] = "conv.cu",
	[CUDA_CONV_BIAS_RELU_ADD] = "conv.cu",
};

static const char *const dtype_names[] = { "float32", "float16", "bfloat16" };

const char *cuda_op_name(enum cuda_op op)
{
	return op < CUDA_NOPS ? op_names[op] : "unknown";
}

int cuda_op_from_name(const char *name)
{
	for (int op = 0; op < CUDA_NOPS; op++)
		if (!strcmp(op_names[op], name))
			return op;
	return -1;
}

const char *cuda_op_template(enum cuda_op op)
{
	return op < CUDA_NOPS ? op_templates[op] : "unknown";
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
	return t == CUDA_F32 ? 4 : 2;
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
		for (int k = 0; k < CUDA_NOPS; k++)
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
	if (s->tf32 && (s->dtype != CUDA_F32 || (s->op != CUDA_GEMM && !cuda_conv_is(s->op)))) {
		*cause = xstrdup("'tf32 = true' is for float32 gemm and conv workloads only");
		return -1;
	}
	s->batch = w->batch > 0 ? w->batch : 1;
	switch (s->op) {
	case CUDA_GEMM:
		if (get_dim(w, "m", 1, MAX_DIM, &s->m, cause) ||
		    get_dim(w, "n", 1, MAX_DIM, &s->n, cause) ||
		    get_dim(w, "k", 1, MAX_DIM, &s->k, cause))
			return -1;
		s->batch = 1;
		break;
	case CUDA_MAXPOOL:
	case CUDA_MAXPOOL_BWD: {
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
	case CUDA_AVGPOOL:
		if (get_dim(w, "c", 1, MAX_DIM, &s->c, cause) ||
		    get_dim(w, "h", 1, MAX_DIM, &s->h, cause) ||
		    get_dim(w, "w", 1, MAX_DIM, &s->w, cause))
			return -1;
		break;
	case CUDA_SUM:
		if (get_dim(w, "rows", 1, MAX_DIM, &s->rows, cause) ||
		    get_dim(w, "cols", 1, MAX_DIM, &s->cols, cause) ||
		    get_dim(w, "dim", 0, 1, &s->dim, cause))
			return -1;
		s->batch = 1;
		break;
	case CUDA_BIAS_RELU:
	case CUDA_BIAS_RELU_ADD:
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
	    (s->op == CUDA_GEMM && (s->m > INT32_MAX || s->n > INT32_MAX ||
				  s->m * s->n > INT32_MAX))) {
		*cause = xstrdup("the shape is too large for the cuda templates (int indices)");
		return -1;
	}
	return 0;
}

void cuda_shape_format(const struct cuda_shape *s, struct sbuf *out)
{
	switch (s->op) {
	case CUDA_GEMM:
		sbuf_addf(out, "m=%" PRId64 ",n=%" PRId64 ",k=%" PRId64, s->m, s->n, s->k);
		break;
	case CUDA_MAXPOOL:
	case CUDA_MAXPOOL_BWD:
		sbuf_addf(out, "c=%" PRId64 ",h=%" PRId64 ",w=%" PRId64 ",r=3,stride=2,pad=1", s->c,
			  s->h, s->w);
		break;
	case CUDA_AVGPOOL:
		sbuf_addf(out, "c=%" PRId64 ",h=%" PRId64 ",w=%" PRId64, s->c, s->h, s->w);
		break;
	case CUDA_SUM:
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
	case CUDA_GEMM:
		z->in0 = (size_t)(s->m * s->k);
		z->in1 = (size_t)(s->n * s->k);
		z->out = (size_t)(s->m * s->n);
		break;
	case CUDA_MAXPOOL:
		z->in0 = (size_t)(s->batch * s->h * s->w * s->c);
		z->out = (size_t)(s->batch * s->oh * s->ow * s->c);
		break;
	case CUDA_MAXPOOL_BWD: /* in0: the forward's window positions (1 byte each), in1: dy */
		z->in0 = (size_t)(s->batch * s->oh * s->ow * s->c);
		z->in1 = z->in0;
		z->out = (size_t)(s->batch * s->h * s->w * s->c);
		break;
	case CUDA_AVGPOOL:
		z->in0 = (size_t)(s->batch * s->h * s->w * s->c);
		z->out = (size_t)(s->batch * s->c);
		break;
	case CUDA_SUM:
		z->in0 = (size_t)(s->rows * s->cols);
		z->out = (size_t)(s->dim ? s->rows : s->cols);
		break;
	case CUDA_BIAS_RELU:
	case CUDA_BIAS_RELU_ADD:
		z->in0 = (size_t)(s->batch * s->hw * s->c);
		z->in1 = (size_t)s->c;
		z->in2 = s->op == CUDA_BIAS_RELU_ADD ? z->in0 : 0;
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
	case CUDA_GEMM: return 2.0 * (double)s->m * (double)s->n * (double)s->k;
	case CUDA_MAXPOOL: return 9.0 * (double)z.out;
	case CUDA_MAXPOOL_BWD: return 9.0 * (double)z.in1;
	default: /* a conv's implicit GEMM */
		return cuda_conv_is(s->op) ? 2.0 * (double)s->m * (double)s->n * (double)s->k
					   : (double)z.in0;
	}
}

size_t cuda_input_esize(const struct cuda_shape *s, int i)
{
	return s->op == CUDA_MAXPOOL_BWD && i == 0 ? 1 : cuda_dtype_size(s->dtype);
}

double cuda_shape_bytes(const struct cuda_shape *s)
{
	struct cuda_sizes z;
	cuda_shape_sizes(s, &z);
	return (double)z.in0 * (double)cuda_input_esize(s, 0) +
	       (double)(z.in1 + z.in2 + z.out) * (double)cuda_dtype_size(s->dtype);
}

/* ---- placement ------------------------------------------------------------------------- */

size_t cuda_placement_pad(uint64_t seed, int64_t unit)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, (unsigned long)(seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(unit + 1))));
	size_t pad = (size_t)gsl_rng_uniform_int(r, CUDA_PLACEMENT_STEPS) * CUDA_PLACEMENT_STEP;
	gsl_rng_free(r);
	return pad;
}
