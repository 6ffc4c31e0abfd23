/* workload.h: what a backend is asked to build cells for (a model or one op at one shape).
 * The experiment file fills it (harness/config/experiment.c); backends read it.  Plain data:
 * every string is owned by whoever owns the array (the experiment, for a loaded file). */
#ifndef HARNESS_WORKLOAD_H
#define HARNESS_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

/* One workload: a model (all its distinct op shapes become per-op cells, plus one e2e
 * cell) or a single op at one shape (one per-op cell). */
enum workload_kind { WORKLOAD_MODEL = 0, WORKLOAD_OP };
struct shape_dim {
	char *name;  /* e.g. "m", "n", "k", "c", "h", "w", "kh", "stride" */
	int64_t value;
};
struct workload {
	char *name;            /* cell-name prefix; defaults to the model or op name   */
	enum workload_kind kind;
	char *model;           /* WORKLOAD_MODEL: "resnet18", "resnet50"              */
	char *op;              /* WORKLOAD_OP: "sgemm", "conv2d", "maxpool", "reduce", "bias_relu" */
	struct shape_dim *shape; /* WORKLOAD_OP: the op's shape fields                 */
	size_t nshape;
	int64_t batch;         /* default 1 */
	int64_t resolution;    /* model input height = width; default 224 */
	char *dtype;           /* "float32" (the only one the CPU backend has), "float16",
				* "bfloat16" */
	int tf32;              /* float32 on TF32 tensor cores (`tf32 = true`); 0 by default */
	char *backend;         /* `only_on`: only for modes on this backend ("cpu", "cuda",
				* "command"); NULL: every backend */
	int line, col;         /* where the workload was declared */
	int model_line, model_col; /* where its model's name is written (0 when none) */
};

#endif
