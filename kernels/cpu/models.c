/* models.c: ResNet-18 and ResNet-50 as sequences of CPU ops, with torchvision's layer
 * structure (torchvision/models/resnet.py: conv1 7x7/2, maxpool 3x3/2, BasicBlock [2,2,2,2]
 * or Bottleneck [3,4,6,3] with the stride on the 3x3 conv, 1x1 downsample convs, global
 * average pool, fc 1000) at any batch and resolution.  Inference form: batch norm folded
 * into a per-channel bias, so every conv is followed by bias_relu, and a block's last conv
 * gets the residual added (plain C) before its bias_relu (the downsample's bias folds into
 * that same bias: relu(y + b2 + (d + bd)) = relu((y + d) + (b2 + bd))). */
#include "config.h"
#include "kernels/cpu/cpu.h"

#include "kernels/catalog.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FC_OUT 1000

struct builder {
	struct cpu_model *m;
	int64_t h;       /* current spatial size (square) */
	int64_t ch;      /* current channels */
	int cur;         /* slot holding the current activation */
	char *err;       /* first error */
};

static struct cpu_step *new_step(struct builder *bd, enum cpu_step_kind kind, int in, int out)
{
	struct cpu_model *m = bd->m;
	XGROW(m->steps, m->cap, m->nsteps + 1);
	struct cpu_step *st = &m->steps[m->nsteps++];
	memset(st, 0, sizeof(*st));
	st->kind = kind;
	st->in = in;
	st->out = out;
	return st;
}

static void grow(size_t *have, size_t want)
{
	if (want > *have)
		*have = want;
}

/* Append one op step; its activations size the slots, its im2col the work buffer. */
static struct cpu_step *add_op(struct builder *bd, enum cpu_op op, const int64_t *dims, int in,
			       int out)
{
	struct cpu_step *st = new_step(bd, CPU_STEP_OP, in, out);
	struct cpu_sizes z;
	char *cause = NULL;

	if (cpu_shape_init(&st->shape, op, bd->m->batch, dims, &cause)) {
		if (!bd->err)
			bd->err = cause;
		else
			free(cause);
		bd->m->nsteps--;
		return NULL;
	}
	cpu_shape_sizes(&st->shape, &z);
	if (in != CPU_MODEL_INPUT)
		grow(&bd->m->slot_elems, z.x);
	grow(&bd->m->slot_elems, z.y);
	grow(&bd->m->work_elems, z.work);
	if (op == CPU_CONV2D || op == CPU_SGEMM || op == CPU_BIAS_RELU)
		st->nparam = z.w;
	st->fan_in = op == CPU_CONV2D || op == CPU_SGEMM ? (double)st->shape.k : 1.0;
	return st;
}

/* conv (c -> k channels, r x r, stride, pad) from slot in to out; returns its output size. */
static int64_t conv(struct builder *bd, int64_t c, int64_t h, int64_t k, int64_t r,
		    int64_t stride, int64_t pad, int in, int out)
{
	const int64_t d[] = { c, h, h, k, r, stride, pad };
	struct cpu_step *st = add_op(bd, CPU_CONV2D, d, in, out);
	return st ? st->shape.oh : 1;
}

static void bias_relu(struct builder *bd, int64_t c, int64_t h, int slot)
{
	const int64_t d[] = { c, h * h };
	add_op(bd, CPU_BIAS_RELU, d, slot, slot);
}

static void add(struct builder *bd, int from, int to, int64_t c, int64_t h)
{
	struct cpu_step *st = new_step(bd, CPU_STEP_ADD, from, to);
	st->nelems = (size_t)(bd->m->batch * c * h * h);
}

/* A free activation slot for a block's scratch (bit i of used: slot i). */
static int slot(unsigned *used)
{
	return catalog_free_slot(used, CPU_MODEL_SLOTS);
}

/* torchvision BasicBlock: conv3x3(stride) bn relu, conv3x3 bn, + identity or downsample
 * (conv1x1(stride) bn), relu. */
static void basic_block(struct builder *bd, int64_t planes, int64_t stride)
{
	unsigned used = 1u << bd->cur;
	int a = slot(&used), b = slot(&used), ds = slot(&used);
	int64_t h = bd->h;
	int64_t oh = conv(bd, bd->ch, h, planes, 3, stride, 1, bd->cur, a);
	bias_relu(bd, planes, oh, a);
	conv(bd, planes, oh, planes, 3, 1, 1, a, b);
	if (stride != 1 || bd->ch != planes) {
		conv(bd, bd->ch, h, planes, 1, stride, 0, bd->cur, ds);
		add(bd, ds, b, planes, oh);
	} else {
		add(bd, bd->cur, b, planes, oh);
	}
	bias_relu(bd, planes, oh, b);
	bd->cur = b;
	bd->ch = planes;
	bd->h = oh;
}

/* torchvision Bottleneck (v1.5): conv1x1 bn relu, conv3x3(stride) bn relu, conv1x1
 * (4 x planes) bn, + identity or downsample (conv1x1(stride) bn), relu. */
static void bottleneck(struct builder *bd, int64_t planes, int64_t stride)
{
	unsigned used = 1u << bd->cur;
	int a = slot(&used), b = slot(&used), c = slot(&used);
	int ds = slot(&used);
	int64_t h = bd->h, out = 4 * planes;
	conv(bd, bd->ch, h, planes, 1, 1, 0, bd->cur, a);
	bias_relu(bd, planes, h, a);
	int64_t oh = conv(bd, planes, h, planes, 3, stride, 1, a, b);
	bias_relu(bd, planes, oh, b);
	conv(bd, planes, oh, out, 1, 1, 0, b, c);
	if (stride != 1 || bd->ch != out) {
		conv(bd, bd->ch, h, out, 1, stride, 0, bd->cur, ds);
		add(bd, ds, c, out, oh);
	} else {
		add(bd, bd->cur, c, out, oh);
	}
	bias_relu(bd, out, oh, c);
	bd->cur = c;
	bd->ch = out;
	bd->h = oh;
}

int cpu_model_build(const char *name, int64_t batch, int64_t resolution,
		    struct cpu_model **out, char **cause)
{
	const struct catalog_resnet *arch = catalog_resnet(name, batch, resolution, cause);
	if (!arch)
		return -1;

	struct cpu_model *m = xcalloc(1, sizeof(*m));
	struct builder bd = { .m = m, .h = resolution, .ch = 3 };
	m->batch = batch;
	m->resolution = resolution;
	m->input_elems = (size_t)(batch * 3 * resolution * resolution);

	/* stem: conv1 7x7/2 pad 3, bn, relu, maxpool 3x3/2 pad 1 */
	bd.h = conv(&bd, 3, resolution, 64, 7, 2, 3, CPU_MODEL_INPUT, 0);
	bd.ch = 64;
	bias_relu(&bd, 64, bd.h, 0);
	const int64_t pool[] = { 64, bd.h, bd.h, 3, 2, 1 };
	struct cpu_step *st = add_op(&bd, CPU_MAXPOOL, pool, 0, 1);
	bd.h = st ? st->shape.oh : 1;
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

	/* global average pool as the mean over h*h of each of batch*channels rows, then fc */
	unsigned used = 1u << bd.cur;
	int pooled = slot(&used), logits = slot(&used);
	const int64_t red[] = { batch * bd.ch, bd.h * bd.h };
	add_op(&bd, CPU_REDUCE, red, bd.cur, pooled);
	const int64_t fc[] = { batch, FC_OUT, bd.ch };
	add_op(&bd, CPU_SGEMM, fc, pooled, logits);
	st = new_step(&bd, CPU_STEP_BIAS, logits, logits);
	st->nelems = (size_t)(batch * FC_OUT);
	st->nparam = FC_OUT;
	st->fan_in = (double)bd.ch;
	m->out_slot = logits;
	m->nout = (size_t)(batch * FC_OUT);

	if (bd.err) {
		*cause = xasprintf("%s at resolution %" PRId64 ": %s", name, resolution, bd.err);
		free(bd.err);
		cpu_model_free(m);
		return -1;
	}
	*out = m;
	return 0;
}

static float *uniform(gsl_rng *rng, size_t n, double a)
{
	float *p = xmalloc((n ? n : 1) * sizeof(*p));
	for (size_t i = 0; i < n; i++)
		p[i] = (float)(a * (2.0 * gsl_rng_uniform(rng) - 1.0));
	return p;
}

/* Weights He-uniform, U(-sqrt(6 / fan_in), +sqrt(6 / fan_in)) (He et al. 2015), so the
 * activations keep their scale through the depth; biases U(-0.1, 0.1); image U(-1, 1). */
void cpu_model_init_data(struct cpu_model *m, gsl_rng *rng)
{
	for (size_t i = 0; i < m->nsteps; i++) {
		struct cpu_step *st = &m->steps[i];
		if (!st->nparam)
			continue;
		int weights = st->kind == CPU_STEP_OP && st->shape.op != CPU_BIAS_RELU;
		st->param = uniform(rng, st->nparam, weights ? sqrt(6.0 / st->fan_in) : 0.1);
	}
	m->input = uniform(rng, m->input_elems, 1.0);
	for (int s = 0; s < CPU_MODEL_SLOTS; s++)
		m->slots[s] = xcalloc(m->slot_elems ? m->slot_elems : 1, sizeof(float));
	m->work = xcalloc(m->work_elems ? m->work_elems : 1, sizeof(float));
}

static void run_step(struct cpu_model *m, const struct cpu_step *st);

void cpu_model_forward(struct cpu_model *m)
{
	for (size_t i = 0; i < m->nsteps; i++)
		run_step(m, &m->steps[i]);
}

/* One step of the forward (cpu_model_forward's loop body). */
static void run_step(struct cpu_model *m, const struct cpu_step *st)
{
	const float *in = st->in == CPU_MODEL_INPUT ? m->input : m->slots[st->in];
	float *out = m->slots[st->out];
	switch (st->kind) {
	case CPU_STEP_OP:
		cpu_op_run(&st->shape, *st->kernel, in, st->param, out, m->work);
		break;
	case CPU_STEP_ADD:
		for (size_t j = 0; j < st->nelems; j++)
			out[j] += in[j];
		break;
	case CPU_STEP_BIAS:
		for (size_t j = 0; j < st->nelems; j++)
			out[j] += st->param[j % st->nparam];
		break;
	}
}

void cpu_model_forward_parts(struct cpu_model *m, struct cpu_forward_parts *p)
{
	memset(p, 0, sizeof(*p));
	int64_t start = util_now_ns(), t = start;
	for (size_t i = 0; i < m->nsteps; i++) {
		const struct cpu_step *st = &m->steps[i];
		run_step(m, st);
		int64_t now = util_now_ns(), d = now - t;
		t = now;
		if (st->kind == CPU_STEP_OP)
			p->op_ns[st->shape.op] += d;
		else if (st->kind == CPU_STEP_ADD)
			p->add_ns += d;
		else
			p->bias_ns += d;
	}
	p->total_ns = t - start;
	p->other_ns = p->total_ns - p->add_ns - p->bias_ns;
	for (int k = 0; k < CPU_NOPS; k++)
		p->other_ns -= p->op_ns[k];
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return a < b ? -1 : a > b;
}

/* The median of n values (sorted in place). */
static int64_t median_i64(int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_i64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void cpu_model_describe_parts(struct cpu_model *m, const char *cell, size_t reps,
			      struct sbuf *out)
{
	enum { P_TOTAL = CPU_NOPS, P_ADD, P_BIAS, P_OTHER, NP };
	if (!reps)
		return;
	int64_t *v = xmalloc(NP * reps * sizeof(*v));
	for (size_t r = 0; r < reps; r++) {
		struct cpu_forward_parts p;
		cpu_model_forward_parts(m, &p);
		for (int k = 0; k < CPU_NOPS; k++)
			v[k * reps + r] = p.op_ns[k];
		v[P_TOTAL * reps + r] = p.total_ns;
		v[P_ADD * reps + r] = p.add_ns;
		v[P_BIAS * reps + r] = p.bias_ns;
		v[P_OTHER * reps + r] = p.other_ns;
	}
	for (int k = 0; k < CPU_NOPS; k++) {
		int used = 0;
		for (size_t i = 0; i < m->nsteps; i++)
			used |= m->steps[i].kind == CPU_STEP_OP && m->steps[i].shape.op == (enum cpu_op)k;
		if (used)
			sbuf_addf(out, "e2e_part.%s.op_%s_ns=%" PRId64 "\n", cell, cpu_op_name(k),
				  median_i64(v + k * reps, reps));
	}
	sbuf_addf(out, "e2e_part.%s.residual_add_ns=%" PRId64 "\n", cell,
		  median_i64(v + P_ADD * reps, reps));
	sbuf_addf(out, "e2e_part.%s.fc_bias_ns=%" PRId64 "\n", cell, median_i64(v + P_BIAS * reps, reps));
	sbuf_addf(out, "e2e_part.%s.forward_ns=%" PRId64 "\n", cell, median_i64(v + P_TOTAL * reps, reps));
	free(v);
}

double cpu_model_flops(const struct cpu_model *m)
{
	double f = 0;
	for (size_t i = 0; i < m->nsteps; i++) {
		const struct cpu_step *st = &m->steps[i];
		if (st->kind == CPU_STEP_OP)
			f += cpu_shape_flops(&st->shape);
		else
			f += (double)st->nelems;
	}
	return f;
}

void cpu_model_free(struct cpu_model *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nsteps; i++)
		free(m->steps[i].param);
	free(m->steps);
	free(m->input);
	for (int s = 0; s < CPU_MODEL_SLOTS; s++)
		free(m->slots[s]);
	free(m->work);
	free(m);
}
