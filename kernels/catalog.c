/* catalog.c: op and model names, and each op's shape fields (see catalog.h) */
#include "config.h"
#include "kernels/catalog.h"

#include <inttypes.h>
#include <string.h>

#include "harness/base/util.h"

static const char *const sgemm_fields[] = { "m", "n", "k", NULL };
/* conv2d: input c x h x w (batch from the workload), k output channels, r x r filter */
static const char *const conv2d_fields[] = { "c", "h", "w", "k", "r", "stride", "pad", NULL };
static const char *const maxpool_fields[] = { "c", "h", "w", "r", "stride", "pad", NULL };
/* reduce: mean over the last dimension of a rows x cols matrix (global average pool) */
static const char *const reduce_fields[] = { "rows", "cols", NULL };
/* bias_relu: y = max(x + bias[c], 0) over c channels of hw elements */
static const char *const bias_relu_fields[] = { "c", "hw", NULL };
/* gemm: C = A B^T with A m x k and B n x k ("TN": k contiguous in both), the CUDA layout */
static const char *const gemm_fields[] = { "m", "n", "k", NULL };
/* avgpool: global average pool of c channels of h x w (NHWC on the GPU) */
static const char *const avgpool_fields[] = { "c", "h", "w", NULL };
/* sum: over dimension dim (0: down the rows, 1: along each row) of a rows x cols matrix */
static const char *const sum_fields[] = { "rows", "cols", "dim", NULL };

const struct op_info catalog_ops[] = {
	{ "sgemm", sgemm_fields, "C = A B, A m x k, B k x n, float32 row-major" },
	{ "conv2d", conv2d_fields, "2-D convolution as im2col + GEMM, NCHW float32" },
	{ "maxpool", maxpool_fields, "2-D max pooling, NCHW float32" },
	{ "reduce", reduce_fields, "mean over the last dimension (global average pool)" },
	{ "bias_relu", bias_relu_fields, "fused per-channel bias add and ReLU" },
	{ "gemm", gemm_fields, "C = A B^T, A m x k, B n x k (TN), float32/float16/bfloat16 (cuda)" },
	{ "maxpool_bwd", maxpool_fields, "backward of 3x3/2 max pooling, NHWC (cuda)" },
	{ "avgpool", avgpool_fields, "global average pool, NHWC (cuda)" },
	{ "sum", sum_fields, "sum over one dimension of a matrix (cuda)" },
	{ "bias_relu_add", bias_relu_fields, "fused bias add, residual add and ReLU, NHWC (cuda)" },
	{ "conv2d_bias", conv2d_fields, "conv2d + folded batch-norm bias, NHWC implicit GEMM (cuda)" },
	{ "conv2d_bias_relu", conv2d_fields, "conv2d + bias + ReLU, NHWC implicit GEMM (cuda)" },
	{ "conv2d_bias_relu_add", conv2d_fields,
	  "conv2d + bias + residual add + ReLU, NHWC implicit GEMM (cuda)" },
};
const size_t catalog_nops = sizeof(catalog_ops) / sizeof(catalog_ops[0]);

const char *const catalog_models[] = { "resnet18", "resnet50", NULL };

const struct op_info *catalog_op(const char *name)
{
	for (size_t i = 0; i < catalog_nops; i++)
		if (!strcmp(catalog_ops[i].name, name))
			return &catalog_ops[i];
	return NULL;
}

int catalog_model_known(const char *name)
{
	for (size_t i = 0; catalog_models[i]; i++)
		if (!strcmp(catalog_models[i], name))
			return 1;
	return 0;
}

static const struct catalog_resnet resnets[] = {
	{ "resnet18", { 2, 2, 2, 2 }, 0 },
	{ "resnet50", { 3, 4, 6, 3 }, 1 },
};

const struct catalog_resnet *catalog_resnet(const char *name, int64_t batch,
					    int64_t resolution, char **cause)
{
	const struct catalog_resnet *r = NULL;
	for (size_t i = 0; i < sizeof(resnets) / sizeof(resnets[0]); i++)
		if (!strcmp(resnets[i].name, name))
			r = &resnets[i];
	if (!r) {
		*cause = xasprintf("unknown model '%s' (models: resnet18, resnet50)", name);
		return NULL;
	}
	if (batch < 1 || batch > 65536 || resolution < 1 || resolution > 65536) {
		*cause = xasprintf("%s: batch %" PRId64 " or resolution %" PRId64
				   " out of range (1 to 65536)", name, batch, resolution);
		return NULL;
	}
	return r;
}

int catalog_free_slot(unsigned *used, int nslots)
{
	for (int i = 0; i < nslots; i++) {
		if (!(*used & (1u << i))) {
			*used |= 1u << i;
			return i;
		}
	}
	return 0;
}
