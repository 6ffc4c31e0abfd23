/* ops.h: what the CUDA backend computes, on the host: the one status check every CUDA,
 * NVRTC, cuBLAS, cuDNN and NVML call goes through (check.c); ops and shapes (ops-cuda.c),
 * spaces, options and the roofline (space-cuda.c), host numerics and the float64
 * references (host.c), convolution geometry (conv.c) and the ResNets as op sequences
 * (model-build.c).  Needs no device: tests/unit/test-cuda.c runs it on every machine with
 * CUDA.  One of kernels/cuda/'s three private headers, by concern: ops.h (this), compile.h
 * (NVRTC, templates, modules), device.h (the device and the backend's state on it).
 * Nothing outside kernels/cuda/ includes them (tests/cli/lint.sh); the rest of the program
 * sees only `backend_cuda`. */
#ifndef HARNESS_KERNELS_CUDA_OPS_H
#define HARNESS_KERNELS_CUDA_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "harness/base/util.h"
#include "kernels/backend.h"
#include "kernels/space.h"

/* The backend (backend-cuda.c), listed in backend_registry. */
extern const struct backend_ops backend_cuda;

/* ---- the one status check (check.c; STYLE.md item 9) ----------------------------------- */

enum cuda_lib { CUDA_LIB_RT = 0, CUDA_LIB_NVRTC, CUDA_LIB_CUBLAS, CUDA_LIB_CUDNN, CUDA_LIB_NVML };

/* Every failed status of every CUDA library reaches this one function (set a breakpoint
 * here): it fills *cause (heap) with "<library> call '<expr>' failed at file:line: <name>
 * (<status>)" and returns -1.  cause may be NULL (the message is then dropped). */
int cuda_fail(enum cuda_lib lib, int status, const char *expr, const char *file, int line,
	      char **cause);
/* The library's own name for a status ("cudaErrorMemoryAllocation: out of memory"). */
const char *cuda_status_string(enum cuda_lib lib, int status);

static inline int cuda_check(enum cuda_lib lib, int status, const char *expr, const char *file,
			     int line, char **cause)
{
	return status == 0 ? 0 : cuda_fail(lib, status, expr, file, line, cause);
}
/* 0 when call returned its library's success (0 in all of them), else -1 with *cause. */
#define CUDA_CHECK(lib, call, cause) \
	cuda_check((lib), (int)(call), #call, __FILE__, __LINE__, (cause))

/* ---- ops, shapes (ops-cuda.c), spaces (space-cuda.c), host numerics (host.c) ------------------- */

enum cuda_op {
	CUDA_GEMM = 0,     /* C[m,n] = A[m,k] B[n,k]^T (TN), templates/gemm.cu */
	CUDA_MAXPOOL,      /* 3x3/2 pad 1 max pool forward, NHWC, templates/maxpool.cu */
	CUDA_MAXPOOL_BWD,  /* its backward */
	CUDA_AVGPOOL,      /* global average pool NHWC -> NC, templates/avgpool.cu */
	CUDA_SUM,          /* sum over one dimension of a rows x cols matrix, templates/reduce.cu */
	CUDA_BIAS_RELU,    /* y = max(x + bias[c], 0), NHWC, templates/bias_relu.cu */
	CUDA_BIAS_RELU_ADD,/* y = max(x + bias[c] + res, 0) */
	CUDA_CONV,         /* 2-D convolution NHWC x KRSC, implicit GEMM, templates/conv.cu (conv.c) */
	CUDA_CONV_BIAS,    /* the same + bias[k] (batch norm folded) */
	CUDA_CONV_BIAS_RELU,     /* + bias, then ReLU */
	CUDA_CONV_BIAS_RELU_ADD, /* + bias + residual, then ReLU (a block's last conv) */
	CUDA_NOPS
};

enum cuda_dtype { CUDA_F32 = 0, CUDA_F16, CUDA_BF16 };

const char *cuda_op_name(enum cuda_op op);     /* the catalog name: "gemm", "maxpool", ... */
int cuda_op_from_name(const char *name);        /* enum cuda_op, or -1 */
const char *cuda_op_template(enum cuda_op op);  /* "gemm.cu", "maxpool.cu", ... */
const char *cuda_dtype_name(enum cuda_dtype t); /* "float32", "float16", "bfloat16" */
int cuda_dtype_from_name(const char *name);     /* enum cuda_dtype, or -1 */
size_t cuda_dtype_size(enum cuda_dtype t);

/* What the device says that spaces and launches need (defaults without a device). */
struct cuda_devinfo {
	int cc_major, cc_minor;   /* compute capability; 9.0 by default */
	int sms;                  /* multiprocessors */
	long smem_optin;          /* cudaDevAttrMaxSharedMemoryPerBlockOptin, bytes */
	long l2_bytes;
	char arch[16];            /* NVRTC target: "sm_90a" on Hopper, "sm_80", ... */
};
/* Hopper (sm_90a, 132 SMs, 227 KiB shared memory per block, 50 MiB L2) for tests. */
void cuda_devinfo_default(struct cuda_devinfo *d);
/* The placement pad a unit allocates before its cells' buffers under
 * HARNESS_CUDA_PLACEMENT=random (backend-cuda.c, cuda_placement): a multiple of 2 MiB (the
 * driver's large page) from 0 to 126 MiB, drawn by GSL's MT19937 from (seed, unit), so the
 * same unit of the same plan gets the same pad. */
#define CUDA_PLACEMENT_STEP ((size_t)2 << 20)
#define CUDA_PLACEMENT_STEPS 64
size_t cuda_placement_pad(uint64_t seed, int64_t unit);
/* The NVRTC target for a compute capability: "sm_90a" for 9.0 (so wgmma is available),
 * "sm_<major><minor>" otherwise. */
void cuda_arch_name(int major, int minor, char out[16]);

/* One op at one shape and dtype. */
struct cuda_shape {
	enum cuda_op op;
	enum cuda_dtype dtype;
	int tf32;                 /* float32 GEMM on tensor cores (TF32) */
	int64_t m, n, k;          /* gemm */
	int64_t batch, c, h, w;   /* pools, bias_relu (h*w = hw) */
	int64_t oh, ow;           /* maxpool output */
	int64_t rows, cols, dim;  /* sum: over dim (0: rows, 1: cols) of rows x cols */
	int64_t hw;               /* bias_relu: elements per channel */
	int64_t kout, r, stride, pad; /* conv: output channels, r x r window (m, n, k: its GEMM,
				       * batch * oh * ow, kout, r * r * c) */
};

/* Build a shape from an op workload (its named shape fields, batch, dtype, tf32).  -1 with
 * *cause (heap) when the op, a field or the dtype is not one the CUDA backend has. */
int cuda_shape_from_workload(struct cuda_shape *s, const struct workload *w, char **cause);
/* "m=512,n=512,k=512": the catalog fields in catalog order (dtype not included). */
void cuda_shape_format(const struct cuda_shape *s, struct sbuf *out);
double cuda_shape_flops(const struct cuda_shape *s);
/* Bytes the op must move at least (read + write), for the bandwidth figures. */
double cuda_shape_bytes(const struct cuda_shape *s);
/* Bytes per element of input i (0..2): the dtype's, but 1 for a maxpool_bwd cell's in0 (the
 * forward's window positions). */
size_t cuda_input_esize(const struct cuda_shape *s, int i);

/* Element counts of the buffers: in0 (A, x; maxpool_bwd: the forward's window positions,
 * kh * 3 + kw, one byte each), in1 (B, bias, dy), in2 (residual), out. */
struct cuda_sizes {
	size_t in0, in1, in2, out;
};
void cuda_shape_sizes(const struct cuda_shape *s, struct cuda_sizes *out);

/* Per-cell context of a space: the shape and the device it is for. */
struct cuda_space_ctx {
	struct cuda_shape shape;
	struct cuda_devinfo dev;
	int conv_maps; /* the backend's (cuda_conv_maps): a conv cell's X reaches conv.cu's
			* wgmma kernel by a tensor map wherever the shape allows, so its
			* modules may leave the gather out (cuda_conv_tma_only) */
};
/* The config space of an op cell (sp->ctx = ctx, borrowed).  Fields use the templates'
 * macro names (Triton's vocabulary for gemm).  has_vendor always; GEMM vendor candidates
 * are filled by the backend from cuBLASLt's heuristic (cuda_space_set_vendors). */
void cuda_space_init(struct space *sp, const struct cuda_space_ctx *ctx);
/* The same without a shape (op_space): fields and values, no constraint. */
int cuda_op_space(const char *op, struct space *out);

/* The NVRTC options of config c of a cell (heap strings into opts, count returned; at most
 * CUDA_MAX_OPTS): "--gpu-architecture=<arch>", "-std=c++17", the dtype macro, "-DTF32=1"
 * for TF32, then "-D<FIELD>=<value>" for each field but the launch's (conv.cu's CLUSTER and
 * RES_TMA; on its wgmma path with 4 or 8 warps STAGES too, with "-DWG_RT_STAGES=1": one
 * module for every depth).  The vendor point of a memory-bound op is the template at its
 * documented defaults (no field macros). */
#define CUDA_MAX_OPTS 16
size_t cuda_config_options(const struct space *sp, const struct config *c, const char *arch,
			   char **opts);

struct cuda_gemm_config;
/* gemm.cu's seven Triton fields (BLOCK_M, BLOCK_N, BLOCK_K, WARPS, STAGES, SPLIT_K, GROUP_M,
 * in that order) over vals[f] (n[f] values each), appended to sp with the step local
 * searches take on each: the GEMM space's and the conv space's (conv.c) values differ, the
 * fields do not. */
void cuda_tile_fields(struct space *sp, const int64_t *const *vals, const size_t *n);
/* Config c of such a space as gemm.cu's rules see it, with shape s's dtype; wgmma 0 (the
 * GEMM space derives it: cuda_gemm_config_get). */
void cuda_tile_config(const struct cuda_shape *s, const struct config *c,
		      struct cuda_gemm_config *g);
/* Config c of a gemm cell as gemm-config.h's struct, its kernel path (wgmma on sm_90a)
 * derived from the fields for the cell's device (cuda_gemm_use_wgmma). */
void cuda_gemm_config_get(const struct cuda_space_ctx *x, const struct config *c,
			  struct cuda_gemm_config *g);
/* Whether gemm cell s's module at config g is compiled with WG_TMA_ONLY=1 (wgmma.cuh: the
 * consumers' cp.async path left out): a wgmma config whose k makes A's and B's rows whole
 * 16-byte multiples, so the tensor maps serve (the backend's buffers are 16-byte aligned;
 * a launch whose are not fails instead of falling back). */
int cuda_gemm_tma_only(const struct cuda_shape *s, const struct cuda_gemm_config *g);

/* ---- the roofline estimate (space-cuda.c; backend_ops.estimate, docs/kernels.md) ------------- */

/* What the roofline needs of a device: counts and clocks the device reports, and the
 * architecture's throughput per SM per clock (cuda_roofline_rates). */
struct cuda_roofline {
	int sms;                 /* multiProcessorCount */
	double clock_ghz;        /* peak SM clock (cudaDevAttrClockRate, kHz / 1e6) */
	double mem_bytes_ns;     /* DRAM bandwidth in bytes/ns: 2 x memory clock (cudaDevAttr
				  * MemoryClockRate) x bus width (memoryBusWidth) / 8 */
	double ffma_flops_clk;   /* FP32 FFMA flops per SM per clock (2 x FP32 lanes) */
	double tensor_flops_clk[3]; /* dense tensor-core flops per SM per clock by enum
				  * cuda_dtype, FP32 accumulation (CUDA_F32: TF32); 0: none */
};
/* The architecture's rates for compute capability major.minor into r (sms, clock and
 * bandwidth untouched): 0, or -1 when the table has no entry for it (no model). */
int cuda_roofline_rates(int major, int minor, struct cuda_roofline *r);
/* The modelled time in ns of config c (NULL or vendor: NaN) of the op cell x on the device
 * r: for gemm max(compute, memory) over the tiles' work and traffic in waves; for the
 * memory-bound ops the bytes they must move over the bandwidth.  NaN when r lacks a figure
 * the op needs, and for the conv ops (no model for them yet). */
double cuda_estimate_ns(const struct cuda_roofline *r, const struct cuda_space_ctx *x,
			const struct config *c);

/* Relative-norm bounds of the check (docs/kernels.md): float32 1e-5, TF32 1e-3,
 * float16 and bfloat16 1e-2. */
double cuda_tolerance(const struct cuda_shape *s);

/* Host-side conversions between float and the 16-bit types (round to nearest even). */
uint16_t cuda_f32_to_f16(float f);
float cuda_f16_to_f32(uint16_t h);
uint16_t cuda_f32_to_bf16(float f);
float cuda_bf16_to_f32(uint16_t h);
/* Element i of a host buffer of dtype t, as a double. */
double cuda_elem_get(const void *buf, enum cuda_dtype t, size_t i);
/* A cell's xorshift state (never 0) from the run's seed and the cell's name. */
uint64_t cuda_seed_for(uint64_t seed, const char *name);
/* Element i of a host buffer of dtype t set to v (rounded to the 16-bit types). */
void cuda_store_float(void *buf, enum cuda_dtype t, size_t i, float v);
/* Fill n elements of dtype t with uniform(-1, 1) values from the xorshift state *rng. */
void cuda_fill_uniform(void *buf, enum cuda_dtype t, size_t n, uint64_t *rng);
/* v rounded to the nearest TF32 (10 mantissa bits), ties away from zero (cvt.rna.tf32.f32);
 * floats within half a TF32 ulp of FLT_MAX round to infinity; infinities and NaN unchanged. */
float cuda_tf32_round(float v);
/* A maxpool_bwd cell's in0: for every output, a window position (kh * 3 + kw) uniform among
 * those of its window inside the image, as the forward (maxpool_fwd_idx) would save it. */
void cuda_fill_maxpool_idx(const struct cuda_shape *s, unsigned char *idx, uint64_t *rng);

/* The float64 reference of an op on host inputs (in0, in1, in2 as cuda_shape_sizes, in the
 * op's dtype; the unit tests' and HARNESS_CUDA_REF_VERIFY's: the check itself uses the GPU's,
 * kernels/cuda/reference.c), for the outputs it checks: all of them, or every step-th when that would
 * cost more than CUDA_REF_MAX_MACS multiply-adds (large GEMMs and convolutions). */
#define CUDA_REF_MAX_MACS ((size_t)1 << 26)
struct cuda_ref {
	size_t n, step;
	double *val;
};
void cuda_ref_compute(const struct cuda_shape *s, const void *in0, const void *in1,
		      const void *in2, struct cuda_ref *ref);
/* ||y - ref|| / ||ref|| over the checked outputs (||y - ref|| when ref is 0), INFINITY when
 * any of the nout outputs is not finite (the NaN poison of an unwritten element
 * included); *bad: an output index that is not finite, or SIZE_MAX. */
double cuda_ref_error(const struct cuda_ref *ref, const void *y, enum cuda_dtype t,
		      size_t nout, size_t *bad);
void cuda_ref_release(struct cuda_ref *ref);

/* ---- convolutions (conv.c) ----------------------------------------------------------- */

/* 1 for the conv ops (conv2d, conv2d_bias, conv2d_bias_relu, conv2d_bias_relu_add). */
int cuda_conv_is(enum cuda_op op);
/* A conv shape of op (a conv op), dtype and batch already in *s: input c x h x w (NHWC),
 * kout output channels, r x r window, stride, pad; fills oh, ow and the GEMM view m, n, k.
 * -1 with *cause when the output would be empty or the sizes too large. */
int cuda_conv_shape_set(struct cuda_shape *s, int64_t c, int64_t h, int64_t w, int64_t kout,
			int64_t r, int64_t stride, int64_t pad, char **cause);
/* Space-to-depth (docs/kernels.md, "The stem by space-to-depth"): when conv shape s has
 * stride 2 and a C that is no whole number of 16-byte chunks (the 7x7/2 stem's 3 channels),
 * the same convolution as a stride-1 one over X rearranged by 2 x 2 blocks: 1 and *t the
 * shape conv.cu runs, N x ceil(H/2) x ceil(W/2) x C2 with C2 = 4C rounded up to whole
 * chunks, a ceil((r + pad % 2) / 2) window, stride 1, pad (pad + pad % 2) / 2, s's oh, ow
 * and m; its k is r2 * r2 * C2.  0 where s is not such a shape, where k would more than
 * double, or where the rearranged buffers outgrow int indices (then the element gather
 * stays). */
int cuda_conv_s2d(const struct cuda_shape *s, struct cuda_shape *t);
/* The pre-pass's buffers at shape s (t its cuda_conv_s2d): X rearranged, then the weights
 * (K x r2 x r2 x C2), each 256-byte aligned; bytes in all. */
size_t cuda_conv_s2d_bytes(const struct cuda_shape *t, size_t *w_off);
/* Buffers: in0 the input N x H x W x C, in1 the weights K x R x R x C then the K biases,
 * in2 the residual (conv2d_bias_relu_add; like out), out N x OH x OW x K. */
void cuda_conv_sizes(const struct cuda_shape *s, struct cuda_sizes *z);
/* The conv space: gemm.cu's fields and rules over the implicit GEMM (m, n, k), no WGMMA
 * yet; SPLIT_K's fp32 partials limited to CUDA_CONV_WS_MAX bytes. */
#define CUDA_CONV_WS_MAX ((int64_t)256 << 20)
void cuda_conv_fields(struct space *sp, enum cuda_op op); /* fields only (op_space) */
void cuda_conv_space_init(struct space *sp, const struct cuda_space_ctx *ctx);
/* The NVRTC options a conv shape adds ("-DTF32=1" or none; for a vendor point, whose module
 * is conv.cu's epilogue kernel alone after cuDNN's convolution, "-DEPILOGUE_ONLY=1"): count
 * added.  The epilogue is a kernel argument (cuda_conv_epi: bit 0 bias, bit 1 residual,
 * bit 2 ReLU), so one cubin per config serves all four conv ops. */
size_t cuda_conv_options(const struct cuda_shape *s, int vendor, char **opts);
/* Whether conv cell x's module at config g is compiled with WG_TMA_ONLY=1 (conv.cu: no
 * gather): the wgmma path where x->conv_maps and the shape's X has a map (a plain GEMM's
 * rows of 16-byte multiples, or im2col's rules).  Its launch fails, not falls back, where the
 * pointers are not 16-byte aligned. */
int cuda_conv_tma_only(const struct cuda_space_ctx *x, const struct cuda_gemm_config *g);
/* Config c's SWAP_AB (a conv space's; 0 in a text from before the field). */
int cuda_conv_swap_ab(const struct config *c);
int cuda_conv_epi(enum cuda_op op);
/* Output o of a conv op in float64 from the stored inputs: the host's reference (through
 * cuda_ref_compute), for the unit tests and HARNESS_CUDA_REF_VERIFY's cross-check of the
 * GPU's (ref_conv, templates/reference.cu). */
double cuda_conv_ref_one(const struct cuda_shape *s, const void *in0, const void *in1,
			 const void *in2, size_t o);

/* ---- models (model.c) ------------------------------------------------------------------ */

/* ResNet-18/50 as a sequence of CUDA ops (torchvision's structure, NHWC, batch norm folded
 * into the convs' bias, epilogues fused): conv2d_bias_relu, conv2d_bias (downsample),
 * conv2d_bias_relu_add (a block's last conv, the residual its third input), maxpool, avgpool
 * and the fc as a gemm followed by its bias.  Built without a device. */
#define CUDA_MODEL_SLOTS 6
#define CUDA_MODEL_INPUT (-1)
struct cuda_model_step {
	struct cuda_shape shape;  /* the op at its shape, dtype and tf32 */
	int in, out, res;         /* activation slots; in CUDA_MODEL_INPUT: the image; res -1: none */
	size_t nparam;            /* conv: K x R x R x C weights then K biases; gemm: N x K then N */
	double fan_in;            /* the weights' fan-in (He-uniform init) */
	int fc_bias;              /* gemm: the fc's bias added after it (outside the op cell) */
	size_t cell;              /* the op cell it runs as (set by the backend) */
};
struct cuda_model {
	int64_t batch, resolution;
	enum cuda_dtype dtype;
	int tf32;
	struct cuda_model_step *steps;
	size_t nsteps, cap;
	size_t slot_elems;        /* elements of each activation slot (the largest tensor) */
	size_t input_elems, nout; /* the image, the logits (batch x 1000) */
	int out_slot;
};
/* 0 and *out, or -1 and *cause ("unknown model 'x' (models: resnet18, resnet50)"). */
int cuda_model_build(const char *name, int64_t batch, int64_t resolution, enum cuda_dtype t,
		     int tf32, struct cuda_model **out, char **cause);
void cuda_model_free(struct cuda_model *m);
/* Floating-point operations of one forward (the fc's bias included). */
double cuda_model_flops(const struct cuda_model *m);

#endif
