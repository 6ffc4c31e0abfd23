/* kernel.h: the entry point of each CPU kernel template, shared by the templates (compiled
 * at run time into <op>-<hash>.so) and the backend that dlopens them.  Each template defines
 * exactly one of these functions with external linkage; everything else in it is static.
 * All tensors are float32, dense, row-major (NCHW for images); shapes come as arguments so
 * one compiled config serves every shape.  This file is part of every kernel's cache key:
 * changing it recompiles everything. */
#ifndef HARNESS_KERNEL_H
#define HARNESS_KERNEL_H

#include <stdint.h>

#define HARNESS_KERNEL_ABI 1

/* C[m x n] = A[m x k] B[k x n] (C is overwritten).  The GEMM of conv2d too. */
#define HARNESS_SGEMM_SYMBOL "harness_sgemm"
typedef void harness_sgemm_fn(int64_t m, int64_t n, int64_t k, const float *a,
			      const float *b, float *c);

/* Max pooling of planes x h x w into planes x oh x ow with an r x r window, stride and
 * padding (padded positions never win, as torch's -inf padding). */
#define HARNESS_MAXPOOL_SYMBOL "harness_maxpool"
typedef void harness_maxpool_fn(int64_t planes, int64_t h, int64_t w, int64_t r,
				int64_t stride, int64_t pad, int64_t oh, int64_t ow,
				const float *x, float *y);

/* y[i] = mean(x[i, 0..cols-1]) for rows rows. */
#define HARNESS_REDUCE_SYMBOL "harness_reduce"
typedef void harness_reduce_fn(int64_t rows, int64_t cols, const float *x, float *y);

/* y = max(x + bias[c], 0) over n x c x hw elements; y may equal x (in place). */
#define HARNESS_BIAS_RELU_SYMBOL "harness_bias_relu"
typedef void harness_bias_relu_fn(int64_t n, int64_t c, int64_t hw, const float *x,
				  const float *bias, float *y);

harness_sgemm_fn harness_sgemm;
harness_maxpool_fn harness_maxpool;
harness_reduce_fn harness_reduce;
harness_bias_relu_fn harness_bias_relu;

#endif
