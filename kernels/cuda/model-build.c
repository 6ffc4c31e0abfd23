/* model-build.c: the CUDA backend's ResNet-18 and ResNet-50 as a list of steps, with no device
 * (unit tests build them): torchvision's layer structure (torchvision/models/resnet.py, as
 * the cpu backend's kernels/cpu/models.c) in inference form, each step an op at its shape
 * and the activation slots it reads and writes; its flops and the e2e check's bound per
 * dtype.  model.c runs them (docs/kernels.md, "Models on the GPU"). */
#include "config.h"
#include "kernels/cuda/device.h"

#include "kernels/catalog.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define FC_OUT 1000

struct builder {
	struct cuda_model *m;
	int64_t h;   /* current spatial size (square) */
	int64_t ch;  /* current channels */
	int cur;     /* slot holding the current activation */
	char *err;   /* first error */
};

/* A shape of op through the workload parser (the same checks as an op workload). */
static int shape_of(struct builder *bd, const char *op, const char *const *names,
		    const int64_t *v, size_t n, int64_t batch, struct cuda_shape *s)
{
	struct shape_dim d[8];
	for (size_t i = 0; i < n; i++)
		d[i] = (struct shape_dim){ (char *)names[i], v[i] };
	int tf32 = bd->m->tf32 && (!strcmp(op, "gemm") || !strncmp(op, "conv2d", 6));
	struct workload w = { .kind = WORKLOAD_OP, .op = (char *)op, .shape = d, .nshape = n,
			      .batch = batch, .dtype = (char *)cuda_dtype_name(bd->m->dtype),
			      .tf32 = tf32 };
	char *cause = NULL;
	if (cuda_shape_from_workload(s, &w, &cause)) {
		if (!bd->err)
			bd->err = cause;
		else
			free(cause);
		return -1;
	}
	return 0;
}

static struct cuda_model_step *add_step(struct builder *bd, const struct cuda_shape *s, int in,
					int out, int res)
{
	struct cuda_model *m = bd->m;
	struct cuda_sizes z;
	XGROW(m->steps, m->cap, m->nsteps + 1);
	struct cuda_model_step *st = &m->steps[m->nsteps++];
	memset(st, 0, sizeof(*st));
	st->shape = *s;
	st->in = in, st->out = out, st->res = res;
	cuda_shape_sizes(s, &z);
	if (in != CUDA_MODEL_INPUT && z.in0 > m->slot_elems)
		m->slot_elems = z.in0;
	if (z.out > m->slot_elems)
		m->slot_elems = z.out;
	if (cuda_conv_is(s->op)) {
		st->nparam = z.in1;   /* K x R x R x C weights, then K biases */
		st->fan_in = (double)s->k;
	} else if (s->op == CUDA_GEMM) {
		st->nparam = z.in1 + (size_t)s->n; /* N x K weights, then the fc's N biases */
		st->fan_in = (double)s->k;
		st->fc_bias = 1;
	}
	return st;
}

static int64_t conv(struct builder *bd, const char *op, int64_t c, int64_t h, int64_t k,
		    int64_t r, int64_t stride, int64_t pad, int in, int out, int res)
{
	static const char *const f[] = { "c", "h", "w", "k", "r", "stride", "pad" };
	const int64_t v[] = { c, h, h, k, r, stride, pad };
	struct cuda_shape s;
	if (bd->err || shape_of(bd, op, f, v, 7, bd->m->batch, &s))
		return 1;
	add_step(bd, &s, in, out, res);
	return s.oh;
}

/* A free activation slot for a block's scratch (bit i of used: slot i). */
static int slot(unsigned *used)
{
	return catalog_free_slot(used, CUDA_MODEL_SLOTS);
}

/* torchvision BasicBlock: conv3x3(stride) bn relu, conv3x3 bn, + identity or downsample
 * (conv1x1(stride) bn), relu. */
static void basic_block(struct builder *bd, int64_t planes, int64_t stride)
{
	unsigned used = 1u << bd->cur;
	int a = slot(&used), b = slot(&used), ds = slot(&used);
	int64_t h = bd->h, res = bd->cur;
	int64_t oh = conv(bd, "conv2d_bias_relu", bd->ch, h, planes, 3, stride, 1, bd->cur, a, -1);
	if (stride != 1 || bd->ch != planes) {
		conv(bd, "conv2d_bias", bd->ch, h, planes, 1, stride, 0, bd->cur, ds, -1);
		res = ds;
	}
	conv(bd, "conv2d_bias_relu_add", planes, oh, planes, 3, 1, 1, a, b, (int)res);
	bd->cur = b, bd->ch = planes, bd->h = oh;
}

/* torchvision Bottleneck (v1.5): conv1x1 bn relu, conv3x3(stride) bn relu, conv1x1
 * (4 x planes) bn, + identity or downsample (conv1x1(stride) bn), relu. */
static void bottleneck(struct builder *bd, int64_t planes, int64_t stride)
{
	unsigned used = 1u << bd->cur;
	int a = slot(&used), b = slot(&used), c = slot(&used);
	int ds = slot(&used);
	int64_t h = bd->h, out = 4 * planes, res = bd->cur;
	conv(bd, "conv2d_bias_relu", bd->ch, h, planes, 1, 1, 0, bd->cur, a, -1);
	int64_t oh = conv(bd, "conv2d_bias_relu", planes, h, planes, 3, stride, 1, a, b, -1);
	if (stride != 1 || bd->ch != out) {
		conv(bd, "conv2d_bias", bd->ch, h, out, 1, stride, 0, bd->cur, ds, -1);
		res = ds;
	}
	conv(bd, "conv2d_bias_relu_add", planes, oh, out, 1, 1, 0, b, c, (int)res);
	bd->cur = c, bd->ch = out, bd->h = oh;
}

int cuda_model_build(const char *name, int64_t batch, int64_t resolution, enum cuda_dtype t,
		     int tf32, struct cuda_model **out, char **cause)
{
	const struct catalog_resnet *arch = catalog_resnet(name, batch, resolution, cause);
	if (!arch)
		return -1;
	if (tf32 && t != CUDA_F32) {
		*cause = xstrdup("'tf32 = true' is for float32 only");
		return -1;
	}
	struct cuda_model *m = xcalloc(1, sizeof(*m));
	struct builder bd = { .m = m, .h = resolution, .ch = 3 };
	m->batch = batch, m->resolution = resolution, m->dtype = t, m->tf32 = tf32;
	m->input_elems = (size_t)(batch * resolution * resolution * 3);

	/* stem: conv1 7x7/2 pad 3, bn, relu; maxpool 3x3/2 pad 1 */
	bd.h = conv(&bd, "conv2d_bias_relu", 3, resolution, 64, 7, 2, 3, CUDA_MODEL_INPUT, 0, -1);
	bd.ch = 64;
	static const char *const pf[] = { "c", "h", "w", "r", "stride", "pad" };
	const int64_t pool[] = { 64, bd.h, bd.h, 3, 2, 1 };
	struct cuda_shape s;
	if (!bd.err && !shape_of(&bd, "maxpool", pf, pool, 6, batch, &s)) {
		add_step(&bd, &s, 0, 1, -1);
		bd.h = s.oh;
	}
	bd.cur = 1;
	for (int layer = 0; layer < 4 && !bd.err; layer++) {
		int64_t planes = (int64_t)64 << layer;
		for (int b = 0; b < arch->blocks[layer]; b++) {
			int64_t stride = layer > 0 && b == 0 ? 2 : 1;
			if (arch->bottleneck)
				bottleneck(&bd, planes, stride);
			else
				basic_block(&bd, planes, stride);
		}
	}
	/* global average pool NHWC -> N x C, then fc (gemm: logits = pooled W^T) + bias */
	unsigned used = 1u << bd.cur;
	int pooled = slot(&used), logits = slot(&used);
	static const char *const af[] = { "c", "h", "w" }, *const gf[] = { "m", "n", "k" };
	const int64_t avg[] = { bd.ch, bd.h, bd.h }, fc[] = { batch, FC_OUT, bd.ch };
	if (!bd.err && !shape_of(&bd, "avgpool", af, avg, 3, batch, &s))
		add_step(&bd, &s, bd.cur, pooled, -1);
	if (!bd.err && !shape_of(&bd, "gemm", gf, fc, 3, 1, &s))
		add_step(&bd, &s, pooled, logits, -1);
	m->out_slot = logits;
	m->nout = (size_t)(batch * FC_OUT);
	if (bd.err) {
		*cause = xasprintf("%s at resolution %" PRId64 ": %s", name, resolution, bd.err);
		free(bd.err);
		cuda_model_free(m);
		return -1;
	}
	*out = m;
	return 0;
}

void cuda_model_free(struct cuda_model *m)
{
	if (!m)
		return;
	free(m->steps);
	free(m);
}

double cuda_model_flops(const struct cuda_model *m)
{
	double f = 0;
	for (size_t i = 0; i < m->nsteps; i++)
		f += cuda_shape_flops(&m->steps[i].shape) +
		     (m->steps[i].fc_bias ? (double)(m->steps[i].shape.m * m->steps[i].shape.n) : 0);
	return f;
}

double cuda_model_tolerance(enum cuda_dtype t, int tf32)
{
	if (t == CUDA_F16)
		return CUDA_MODEL_TOL_F16;
	if (t == CUDA_BF16)
		return CUDA_MODEL_TOL_BF16;
	return tf32 ? CUDA_MODEL_TOL_TF32 : CUDA_MODEL_TOL_F32;
}

