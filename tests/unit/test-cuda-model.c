/* test-cuda-model.c: the CUDA backend's ResNet construction (kernels/cuda/model.c), which
 * needs no GPU: ResNet-18 and ResNet-50's convolutions (channels, sizes, windows, strides,
 * padding, in forward order) are exactly the cpu backend's (kernels/cpu/models.c, itself
 * torchvision's), each conv with the fused epilogue its place in the block asks for, the
 * residual wired to the block's input or its downsample, maxpool/avgpool/fc shapes, the
 * number of distinct op shapes, the FLOPs, and the errors.  Skips (77) without CUDA. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef HAVE_CUDA
int main(void)
{
	printf("SKIP: this build has no CUDA backend (configure --with-cuda)\n");
	return 77;
}
#else

#include <check.h>
#include <math.h>
#include <string.h>

#include "kernels/cpu/cpu.h"
#include "kernels/cuda/device.h"
#include "tests/unit/testutil.h"

static struct cuda_model *build(const char *name, int64_t batch, int64_t res, enum cuda_dtype t,
				int tf32)
{
	struct cuda_model *m = NULL;
	char *cause = NULL;
	int rc = cuda_model_build(name, batch, res, t, tf32, &m, &cause);
	ck_assert_msg(rc == 0, "%s: %s", name, cause ? cause : "");
	return m;
}

/* The conv steps of both models against the cpu model's, in order, shape by shape. */
static void same_convs(const char *name, int64_t batch, int64_t res)
{
	struct cuda_model *g = build(name, batch, res, CUDA_F16, 0);
	struct cpu_model *c = NULL;
	char *cause = NULL;
	ck_assert_int_eq(cpu_model_build(name, batch, res, &c, &cause), 0);
	size_t gi = 0, nconv = 0;
	for (size_t i = 0; i < c->nsteps; i++) {
		const struct cpu_step *st = &c->steps[i];
		if (st->kind != CPU_STEP_OP || st->shape.op != CPU_CONV2D)
			continue;
		while (gi < g->nsteps && !cuda_conv_is(g->steps[gi].shape.op))
			gi++;
		ck_assert_msg(gi < g->nsteps, "%s: the cuda model has fewer convs", name);
		const struct cuda_shape *s = &g->steps[gi].shape;
		ck_assert_int_eq(s->batch, st->shape.batch);
		if (s->op == CUDA_CONV_BIAS && i + 1 < c->nsteps) {
			/* the cpu model runs a block's downsample after its last conv, the cuda
			 * model before it (the last conv takes its output as the residual) */
			const struct cpu_step *nx = NULL;
			for (size_t k = i + 1; k < c->nsteps && !nx; k++)
				if (c->steps[k].kind == CPU_STEP_OP && c->steps[k].shape.op == CPU_CONV2D)
					nx = &c->steps[k];
			ck_assert_ptr_nonnull(nx);
			/* swap: compare the cuda downsample with the cpu's next conv, and the cuda
			 * model's next conv (the block's last) with this cpu conv */
			ck_assert_int_eq(s->c, nx->shape.c);
			ck_assert_int_eq(s->h, nx->shape.h);
			ck_assert_int_eq(s->kout, nx->shape.kout);
			ck_assert_int_eq(s->r, 1);
			ck_assert_int_eq(s->stride, nx->shape.stride);
			ck_assert_int_eq(s->pad, 0);
			const struct cuda_shape *last = &g->steps[gi + 1].shape;
			ck_assert_int_eq(last->op, CUDA_CONV_BIAS_RELU_ADD);
			ck_assert_int_eq(last->c, st->shape.c);
			ck_assert_int_eq(last->h, st->shape.h);
			ck_assert_int_eq(last->kout, st->shape.kout);
			ck_assert_int_eq(last->r, st->shape.r);
			ck_assert_int_eq(last->stride, st->shape.stride);
			ck_assert_int_eq(last->pad, st->shape.pad);
			ck_assert_int_eq(g->steps[gi + 1].res, g->steps[gi].out);
			nconv += 2;
			gi += 2;
			i = (size_t)(nx - c->steps);
			continue;
		}
		ck_assert_int_eq(s->c, st->shape.c);
		ck_assert_int_eq(s->h, st->shape.h);
		ck_assert_int_eq(s->w, st->shape.w);
		ck_assert_int_eq(s->kout, st->shape.kout);
		ck_assert_int_eq(s->r, st->shape.r);
		ck_assert_int_eq(s->stride, st->shape.stride);
		ck_assert_int_eq(s->pad, st->shape.pad);
		ck_assert_int_eq(s->oh, st->shape.oh);
		nconv++;
		gi++;
	}
	while (gi < g->nsteps && !cuda_conv_is(g->steps[gi].shape.op))
		gi++;
	ck_assert_msg(gi == g->nsteps, "%s: the cuda model has more convs", name);
	ck_assert_uint_eq(nconv, strcmp(name, "resnet18") ? 53 : 20);
	cpu_model_free(c);
	cuda_model_free(g);
}

START_TEST(test_convs_match_cpu)
{
	same_convs("resnet18", 1, 96);
	same_convs("resnet50", 1, 96);
	same_convs("resnet18", 32, 224);
	same_convs("resnet50", 2, 224);
}
END_TEST

/* Fused epilogues and residual wiring, op by op: every block ends in a conv2d_bias_relu_add
 * whose residual is the block's input or its downsample's output. */
START_TEST(test_structure)
{
	struct cuda_model *m = build("resnet50", 32, 224, CUDA_F32, 1);
	size_t n[CUDA_NOPS] = { 0 };
	for (size_t i = 0; i < m->nsteps; i++) {
		const struct cuda_model_step *st = &m->steps[i];
		n[st->shape.op]++;
		if (st->shape.op == CUDA_CONV_BIAS_RELU_ADD)
			ck_assert_int_ge(st->res, 0);
		else
			ck_assert_int_eq(st->res, -1);
		ck_assert_int_eq(st->shape.tf32, st->shape.op == CUDA_GEMM || cuda_conv_is(st->shape.op));
		ck_assert_int_ne(st->in, st->out);
		ck_assert_int_ne(st->res, st->out);
	}
	ck_assert_uint_eq(n[CUDA_CONV_BIAS_RELU], 1 + 2 * 16);  /* stem, two per bottleneck */
	ck_assert_uint_eq(n[CUDA_CONV_BIAS_RELU_ADD], 16);      /* one per block */
	ck_assert_uint_eq(n[CUDA_CONV_BIAS], 4);                /* a downsample per layer */
	ck_assert_uint_eq(n[CUDA_MAXPOOL], 1);
	ck_assert_uint_eq(n[CUDA_AVGPOOL], 1);
	ck_assert_uint_eq(n[CUDA_GEMM], 1);
	/* stem 224 -> 112, maxpool -> 56, layer 4 at 7x7 with 2048 channels, fc 2048 -> 1000 */
	ck_assert_int_eq(m->steps[0].shape.oh, 112);
	ck_assert_int_eq(m->steps[0].in, CUDA_MODEL_INPUT);
	ck_assert_int_eq(m->steps[1].shape.op, CUDA_MAXPOOL);
	ck_assert_int_eq(m->steps[1].shape.oh, 56);
	const struct cuda_model_step *avg = &m->steps[m->nsteps - 2], *fc = &m->steps[m->nsteps - 1];
	ck_assert_int_eq(avg->shape.op, CUDA_AVGPOOL);
	ck_assert_int_eq(avg->shape.c, 2048);
	ck_assert_int_eq(avg->shape.h, 7);
	ck_assert_int_eq(fc->shape.m, 32);
	ck_assert_int_eq(fc->shape.n, 1000);
	ck_assert_int_eq(fc->shape.k, 2048);
	ck_assert_int_eq(fc->fc_bias, 1);
	ck_assert_int_eq(fc->in, avg->out);
	ck_assert_int_eq(fc->out, m->out_slot);
	ck_assert_uint_eq(m->nout, 32000);
	ck_assert_uint_eq(fc->nparam, 2048 * 1000 + 1000);
	ck_assert_uint_eq(m->steps[0].nparam, 64 * 7 * 7 * 3 + 64);
	/* the largest activation: 32 x 112 x 112 x 64 = 32 x 56 x 56 x 256 */
	ck_assert_uint_eq(m->slot_elems, (size_t)32 * 112 * 112 * 64);
	/* ResNet-50 at 224: about 4.1 GMACs per image (torchvision's figure), 2 flops each */
	double gflop = cuda_model_flops(m) / 32 / 1e9;
	ck_assert_msg(gflop > 8.0 && gflop < 8.4, "ResNet-50 GFLOP per image %.3f", gflop);
	cuda_model_free(m);

	m = build("resnet18", 1, 224, CUDA_F16, 0);
	gflop = cuda_model_flops(m) / 1e9; /* 1.8 GMACs */
	ck_assert_msg(gflop > 3.5 && gflop < 3.75, "ResNet-18 GFLOP %.3f", gflop);
	for (size_t i = 0; i < m->nsteps; i++) {
		ck_assert_int_eq(m->steps[i].shape.dtype, CUDA_F16);
		ck_assert_int_eq(m->steps[i].shape.tf32, 0);
	}
	cuda_model_free(m);
}
END_TEST

/* Distinct op shapes (the op cells) and their counts, as the backend groups them. */
START_TEST(test_distinct_shapes)
{
	static const struct {
		const char *name;
		size_t steps, distinct;
	} want[] = { { "resnet18", 23, 18 }, { "resnet50", 56, 27 } };
	for (size_t w = 0; w < 2; w++) {
		struct cuda_model *m = build(want[w].name, 32, 224, CUDA_F16, 0);
		ck_assert_uint_eq(m->nsteps, want[w].steps);
		size_t distinct = 0;
		for (size_t i = 0; i < m->nsteps; i++) {
			struct sbuf a, b;
			sbuf_init(&a);
			cuda_shape_format(&m->steps[i].shape, &a);
			int seen = 0;
			for (size_t j = 0; j < i && !seen; j++) {
				sbuf_init(&b);
				cuda_shape_format(&m->steps[j].shape, &b);
				seen = m->steps[j].shape.op == m->steps[i].shape.op && !strcmp(a.buf, b.buf);
				sbuf_release(&b);
			}
			distinct += !seen;
			sbuf_release(&a);
		}
		ck_assert_msg(distinct == want[w].distinct, "%s: %zu distinct op shapes",
			      want[w].name, distinct);
		cuda_model_free(m);
	}
}
END_TEST

START_TEST(test_errors)
{
	struct cuda_model *m = NULL;
	char *cause = NULL;
	ck_assert_int_eq(cuda_model_build("vgg16", 1, 224, CUDA_F32, 0, &m, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "unknown model 'vgg16'"));
	free(cause);
	cause = NULL;
	ck_assert_int_eq(cuda_model_build("resnet18", 0, 224, CUDA_F32, 0, &m, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "out of range"));
	free(cause);
	cause = NULL;
	ck_assert_int_eq(cuda_model_build("resnet18", 1, 224, CUDA_F16, 1, &m, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "tf32"));
	free(cause);
	cause = NULL;
	ck_assert_int_eq(cuda_model_build("resnet50", 65537, 224, CUDA_F32, 0, &m, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "batch 65537"));
	free(cause);
	ck_assert_ptr_null(m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cuda-model");
	TCase *tc = tcase_create("model");
	tcase_add_test(tc, test_convs_match_cpu);
	tcase_add_test(tc, test_structure);
	tcase_add_test(tc, test_distinct_shapes);
	tcase_add_test(tc, test_errors);
	suite_add_tcase(s, tc);
	return testutil_run(s);
}

#endif
