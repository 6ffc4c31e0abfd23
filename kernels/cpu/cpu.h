/* cpu.h: internals of the CPU backend shared by its files: op shapes, spaces, vendor code
 * and float64 references (ops-cpu.c); the run-time compiler and kernel cache (jit.c); the model
 * builders (models.c); the backend_ops glue (backend-cpu.c).  Nothing outside kernels/cpu/
 * includes this; the rest of the program sees only `backend_cpu` (backend.h). */
#ifndef HARNESS_KERNELS_CPU_H
#define HARNESS_KERNELS_CPU_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "harness/base/util.h"
#include "kernels/backend.h"
#include "kernels/cpu/templates/kernel.h"
#include "kernels/space.h"

/* The backend (backend-cpu.c), listed in backend_registry. */
extern const struct backend_ops backend_cpu;

/* ---- ops and shapes (ops-cpu.c) ------------------------------------------------------------ */

enum cpu_op { CPU_SGEMM = 0, CPU_CONV2D, CPU_MAXPOOL, CPU_REDUCE, CPU_BIAS_RELU, CPU_NOPS };

const char *cpu_op_name(enum cpu_op op);       /* the catalog name, "conv2d" */
int cpu_op_from_name(const char *name);         /* enum cpu_op, or -1 when unknown */
/* The template that implements op: conv2d runs the sgemm template on its im2col matrix. */
enum cpu_op cpu_op_template(enum cpu_op op);

/* One op at one shape, with the derived sizes every file needs.  Images are square or not
 * as given; all tensors float32, dense, NCHW. */
struct cpu_shape {
	enum cpu_op op;
	int64_t batch;          /* images (conv2d, maxpool, bias_relu); 1 for sgemm, reduce */
	int64_t c, h, w;        /* input channels and size (conv2d, maxpool); bias_relu: c */
	int64_t kout, r;        /* conv2d output channels; window r x r (conv2d, maxpool) */
	int64_t stride, pad;
	int64_t oh, ow;         /* output size (conv2d, maxpool) */
	int64_t hw;             /* bias_relu: elements per channel */
	int64_t rows, cols;     /* reduce: mean over cols of each of rows rows */
	int64_t m, n, k;        /* the GEMM: sgemm's own; conv2d's per image: kout, oh*ow, c*r*r */
};

/* Build and check a shape from its catalog fields in catalog order (dims) and the
 * workload's batch.  -1 with *cause (heap) when a field is out of range. */
int cpu_shape_init(struct cpu_shape *s, enum cpu_op op, int64_t batch, const int64_t *dims,
		   char **cause);
/* The same from an op workload's named shape fields. */
int cpu_shape_from_workload(struct cpu_shape *s, const struct workload *w, char **cause);
/* "c=64,h=8,w=8,k=64,r=3,stride=1,pad=1": the catalog fields in catalog order. */
void cpu_shape_format(const struct cpu_shape *s, struct sbuf *out);
double cpu_shape_flops(const struct cpu_shape *s);

/* Buffer sizes in floats: x input, w weights (conv2d, sgemm's B) or bias (bias_relu),
 * y output, work the im2col matrix of one image (0 when the op needs none). */
struct cpu_sizes {
	size_t x, w, y, work;
};
void cpu_shape_sizes(const struct cpu_shape *s, struct cpu_sizes *out);

/* The config space of an op cell: fields, allowed values, constraint and heuristic for
 * shape->op; sp->ctx = shape (borrowed: it must outlive sp). */
void cpu_space_init(struct space *sp, const struct cpu_shape *shape);

/* A compiled template loaded from the cache directory (jit.c owns it). */
struct cpu_kernel {
	char hash[65];
	enum cpu_op tmpl;
	void *handle;
	union {
		harness_sgemm_fn *sgemm;
		harness_maxpool_fn *maxpool;
		harness_reduce_fn *reduce;
		harness_bias_relu_fn *bias_relu;
	} fn;
};

/* Find OpenBLAS's cblas_sgemm for the vendor path (once per process; cpu_op_run needs it).
 * -1 with *cause when this build's OpenBLAS cannot be found. */
int cpu_vendor_init(char **cause);
const char *cpu_vendor_library(void); /* the file the vendor GEMM comes from */

/* Run op s once with kernel k (NULL: the vendor path: OpenBLAS for sgemm and conv2d, the
 * built-in C code for the others).  Buffers as cpu_shape_sizes() (work may be NULL when its
 * size is 0); for bias_relu y may be x. */
void cpu_op_run(const struct cpu_shape *s, const struct cpu_kernel *k, const float *x,
		const float *w, float *y, float *work);

/* The float64 reference of one op on given inputs, for a subset of the outputs (all of
 * them unless that costs more than CPU_REF_MAX_MACS multiply-adds; then every step-th).
 * scale[i] is the magnitude the error bound is relative to (sum |a||b| for a dot product). */
#define CPU_REF_MAX_MACS ((size_t)1 << 25)
struct cpu_ref {
	size_t n;         /* outputs checked */
	size_t step;      /* output index of check i is i * step */
	double *val;
	double *scale;
	double tol;       /* largest allowed |y - val| / scale */
	int64_t len;      /* accumulation length the tolerance is for (0: exact op) */
};
void cpu_ref_compute(const struct cpu_shape *s, const float *x, const float *w,
		     struct cpu_ref *ref);
/* max |y - val| / scale over the checked outputs (INFINITY for a non-finite y or a nonzero
 * error against a zero scale); *worst: the output index where it occurred. */
double cpu_ref_error(const struct cpu_ref *ref, const float *y, size_t *worst);
void cpu_ref_release(struct cpu_ref *ref);

/* ---- the run-time compiler and kernel cache (jit.c) ----------------------------------- */

struct cpu_jit;
/* Read the templates and kernel.h from kernel_dir/cpu/templates and ask the compiler for its
 * version ($HARNESS_KERNEL_CC, else HARNESS_KERNEL_CC from config.h; extra flags from
 * $HARNESS_KERNEL_CFLAGS).  NULL with *cause when a template cannot be read. */
struct cpu_jit *cpu_jit_alloc(const char *cache_dir, const char *kernel_dir, char **cause);
/* The kernel of template tmpl for config c of space s: loaded already, found in the cache
 * directory (res->cache_hit = 1) or compiled now (res->compile_ns).  A compile or load
 * failure sets res->status = PREPARE_COMPILE_ERROR and res->detail, *out = NULL, returns 0.
 * -1 with *cause only when the cache directory cannot be written.  The kernel is owned by
 * j and valid until cpu_jit_free. */
int cpu_jit_get(struct cpu_jit *j, enum cpu_op tmpl, const struct space *s,
		const struct config *c, const struct cpu_kernel **out, struct prepare_result *res,
		char **cause);
void cpu_jit_counters(const struct cpu_jit *j, struct backend_counters *out);
void cpu_jit_describe(const struct cpu_jit *j, struct sbuf *out);
void cpu_jit_free(struct cpu_jit *j);

/* ---- models (models.c) ---------------------------------------------------------------- */

#define CPU_MODEL_INPUT (-1)  /* slot number of the input image */
#define CPU_MODEL_SLOTS 5     /* activation buffers a forward rotates through */

enum cpu_step_kind {
	CPU_STEP_OP = 0,  /* an op, run through its cell's current implementation */
	CPU_STEP_ADD,     /* out += in (residual connection), plain C */
	CPU_STEP_BIAS,    /* out[i] += param[i % nparam] (the fc bias), plain C */
};

struct cpu_step {
	enum cpu_step_kind kind;
	struct cpu_shape shape;  /* CPU_STEP_OP */
	int in, out;             /* slots (CPU_MODEL_INPUT for the image) */
	size_t nelems;           /* CPU_STEP_ADD, CPU_STEP_BIAS: elements of out */
	size_t nparam;           /* floats of param: weights, bias (0: none) */
	float *param;            /* allocated by cpu_model_init_data */
	double fan_in;           /* for the weights' scale */
	/* Filled by the backend: the op cell that implements this step, and its current
	 * kernel (a pointer into the cell, so the forward follows the cell's config). */
	size_t cell;
	const struct cpu_kernel *const *kernel;
};

struct cpu_model {
	int64_t batch, resolution;
	struct cpu_step *steps;
	size_t nsteps, cap;
	size_t input_elems, slot_elems, work_elems;
	int out_slot;            /* the logits, batch x 1000 */
	size_t nout;
	float *input, *slots[CPU_MODEL_SLOTS], *work;  /* NULL until cpu_model_init_data */
};

/* The forward of model name ("resnet18", "resnet50") at batch and resolution, as steps;
 * no data is allocated yet.  -1 with *cause when unknown or the resolution is too small. */
int cpu_model_build(const char *name, int64_t batch, int64_t resolution,
		    struct cpu_model **out, char **cause);
/* Allocate and fill the parameters (He-uniform weights, small biases) and the input image
 * (uniform(-1, 1)) from rng. */
void cpu_model_init_data(struct cpu_model *m, gsl_rng *rng);
/* One forward pass; every step's *kernel must be current (the backend checks). */
void cpu_model_forward(struct cpu_model *m);
double cpu_model_flops(const struct cpu_model *m);
void cpu_model_free(struct cpu_model *m);

/* Where one forward's time goes, step by step (models.c): the op steps by op kind (each
 * as its cell's current kernel runs it, im2col included for conv2d) and the work no op
 * cell measures (residual adds, the fc bias).  Consecutive clock reads bound the steps, so
 * the loop's own overhead lands in the step it follows; other_ns is 0 by construction and
 * kept for a backend whose steps leave gaps. */
struct cpu_forward_parts {
	int64_t total_ns;
	int64_t op_ns[CPU_NOPS];
	int64_t add_ns, bias_ns, other_ns;
};
/* One forward, timed step by step into *p. */
void cpu_model_forward_parts(struct cpu_model *m, struct cpu_forward_parts *p);
/* reps itemised forwards of the e2e cell named cell; the median of each part as
 * "e2e_part.<cell>.<part>_ns=N" lines on out (docs/report-format.md, "Coverage"). */
void cpu_model_describe_parts(struct cpu_model *m, const char *cell, size_t reps,
			      struct sbuf *out);

#endif
