/* device.h: the CUDA device and the backend's state on it: the device's state through NVML
 * and the libraries loaded (state.c); struct backend and its cells (backend-cuda.c: cells,
 * launches, prepare and sample, open and close), a cell's data and float64 reference
 * (data.c, reference.c), timing by graph replay (graph-replay.c), the GEMM, convolution and
 * cuDNN cells (gemm.c, conv.c, cudnn.c, cudnn-graph.c) and the models' forwards (model.c).
 * Private to kernels/cuda/ (ops.h says how its headers divide). */
#ifndef HARNESS_KERNELS_CUDA_DEVICE_H
#define HARNESS_KERNELS_CUDA_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include <cublasLt.h>
#include <cudnn.h>
#include <cuda_runtime_api.h>

#include "kernels/cuda/compile.h"
#include "kernels/cuda/ops.h"

/* ---- the device's state and the libraries loaded (state.c) --------------------------- */

/* NVML, opened with dlopen("libnvidia-ml.so.1") at run time.  NULL with *why (heap) when
 * the library or the device cannot be opened; the backend then records why and takes no
 * clock readings. */
struct cuda_nvml;
struct cuda_nvml *cuda_nvml_open(const char *pci_bus_id, char **why);
void cuda_nvml_close(struct cuda_nvml *n);
/* The SM clock now (MHz; NAN when it cannot be read), whether a clock-event reason other
 * than idle is active (1, 0, or -1 unknown), and NVML's reasons bitmask itself (-1 when it
 * cannot be read). */
void cuda_nvml_sample(struct cuda_nvml *n, double *mhz, int *throttle, int64_t *reasons);
/* The device's state as "<prefix>key=value" lines: name, uuid, pci, clocks, temperature,
 * power and limit, clock-event reasons, ECC mode and counts, persistence, compute mode,
 * MIG mode, other processes.  Reads only; never changes a setting. */
void cuda_nvml_state(struct cuda_nvml *n, const char *prefix, struct sbuf *out);
/* "cuda_lib_<name>=<path>" for every CUDA library this process has loaded (libcudart,
 * libnvrtc, libcublas, libcublasLt, libcudnn*, libcuda, libnvidia-ml), by
 * dl_iterate_phdr. */
void cuda_loaded_libraries(struct sbuf *out);
/* The versions of the CUDA runtime, driver, NVRTC, cuBLASLt and cuDNN as key=value
 * lines; touches no device. */
void cuda_versions(struct sbuf *out);
/* A combination of libraries that cannot work (cuBLASLt or cuDNN built for another CUDA
 * major version than the runtime loaded): -1 with *cause naming both versions. */
int cuda_versions_check(char **cause);

#define RT CUDA_LIB_RT
#define LT CUDA_LIB_CUBLAS
#define DNN CUDA_LIB_CUDNN

/* A cell whose single launch takes less than this is timed as a batch of back-to-back
 * launches per warm sample (launches recorded per sample): event resolution is about 0.5 us
 * and a launch costs a few us of CPU, so one 3 us launch per sample would time mostly the
 * gap.  Cold (flushed) samples always time one launch: the second launch of a batch would
 * find its data in L2. */
#define BATCH_THRESHOLD_NS 20000
#define BATCH_MAX 256
/* cuBLASLt's workspace, and the number of heuristic algorithms asked for. */
#define LT_WORKSPACE ((size_t)32 << 20)
#define LT_MAX_ALGOS SPACE_MAX_VENDORS

enum { REF_GEMM = 0, REF_MAXPOOL, REF_MAXPOOL_BWD, REF_AVGPOOL, REF_SUM, REF_BIAS_RELU,
       REF_CONV, REF_ERROR, REF_FILL, REF_NKERNELS };
struct cuda_refmod {
	int loaded;
	cudaLibrary_t lib;
	cudaKernel_t k[REF_NKERNELS];
};

struct cuda_dnn;       /* cudnn.c: the cuDNN handle (both APIs) and the legacy API's workspace */
struct cuda_dnn_cell;  /* cudnn.c: a conv cell's descriptors and cuDNN's algorithms */
struct cuda_dnng_cell; /* cudnn-graph.c: a conv cell's graphs, engine configs and plans */

struct cuda_cell {
	struct cell pub;
	struct cuda_space_ctx sctx;
	struct space space;                  /* ctx = &sctx */
	/* GEMM: cuBLASLt's operation and the algorithms of its heuristic, in its order */
	cublasLtMatmulDesc_t desc;
	cublasLtMatrixLayout_t la, lb, lc;
	cublasLtMatmulHeuristicResult_t algos[LT_MAX_ALGOS];
	size_t nalgos;
	/* data, allocated at the first prepare */
	void *h_in[3], *h_out;
	void *d_in[3], *d_out;
	float *d_ws;                         /* split-K / sum_dim0 partials */
	struct cuda_gemm_maps *gemm_maps;      /* GEMM: tensor maps of the wgmma path (gemm.c) */
	size_t ws_bytes;
	double *d_ref;                       /* the float64 reference of every output, on the GPU */
	int64_t ref_ns;                      /* its cost (once per cell), charged to the first check */
	int has_data;
	/* the current implementation */
	int has_impl;
	struct config cur;
	struct cuda_module *mod;               /* NULL: the cuBLASLt algorithm cur names */
	int64_t launches;                    /* per warm sample */
	/* its timing (graph-replay.c): graphs of one launch (cold samples) and of `launches` (warm;
	 * g1 itself when that is 1), or graph 0: launches on the stream */
	int graph;
	cudaGraphExec_t g1, gn;
	struct cuda_dnn_cell *dnn;             /* conv cells: cuDNN's legacy API (cudnn.c) */
	struct cuda_dnng_cell *dnng;           /* or its graph API (cudnn-graph.c) */
	struct cuda_e2e *e2e;                  /* e2e cells: the model's forward (model.c) */
	char *vendor_kernels;                /* owned: "config: kernel ...", the first vendor
					      * candidate's (graph-replay.c's name_vendor) */
};

struct backend {
	char *cache_dir, *kernel_dir;
	char *check_dir;         /* HARNESS_CHECK_DIR, else cache_dir: the reference's cubins */
	const char *fast_compile; /* HARNESS_CUDA_FAST_COMPILE (cuda_ahead_init): NULL, "min",
				   * "mid" or "max" (static strings): NVRTC's --Ofast-compile
				   * for the configs */
	uint64_t seed;
	int dev;
	struct cuda_devinfo di;
	struct cudaDeviceProp prop;
	char pci[32];
	cudaStream_t stream;
	cudaEvent_t ev0, ev1;
	cublasLtHandle_t lt;
	void *lt_ws;
	void *flush;
	size_t flush_len;
	void *pad;               /* the placement pad (cuda_placement), or NULL */
	size_t pad_len;
	int placement_random;    /* HARNESS_CUDA_PLACEMENT: 1 random (default), 0 fixed */
	int cluster_along_n;     /* HARNESS_CUDA_CLUSTER_ALONG_N: 1 (default) a cluster's
				  * blocks share A (along n), 0 B (along m) */
	int conv_im2col;         /* HARNESS_CUDA_CONV_IM2COL: 1 (default) conv.cu's wgmma path
				  * reads X by TMA's im2col mode where it can, 0 it gathers */
	int conv_s2d;            /* HARNESS_CUDA_CONV_S2D: 1 (default) the stem by
				  * space-to-depth (cuda_conv_s2d), 0 its element gather */
	int conv_tma_only;       /* HARNESS_CUDA_CONV_TMA_ONLY: 1 (default) conv.cu's wgmma
				  * modules leave the gather out where X has a map
				  * (cuda_conv_tma_only), 0 they keep it (the A/B) */
	int dnn_graph;           /* HARNESS_CUDA_DNN_API: 1 graph (default), 0 legacy */
	int pdl;                 /* HARNESS_CUDA_PDL: 1 (default) wgmma modules that wait for
				  * their predecessor (harness_wg_pdl) are launched as
				  * programmatic dependents, 0 never (the A/B) */
	unsigned flush_gen;
	struct cuda_nvml *nvml;
	char *nvml_why;
	char *state_open;                    /* the device's state when the unit started */
	struct cuda_template tmpl[CUDA_NTEMPLATES];
	struct cuda_module **mods;
	size_t nmods, modcap;
	char (*made)[65];                    /* keys of the cubins this unit compiled itself */
	size_t nmade, madecap;
	/* compiling ahead (module.c): the mode and pool read at open; the queue (NULL until the
	 * first plan; its threads only touch it and the immutable cache_dir and di.arch); the
	 * cell whose plan it holds (NULL once another cell is prepared); what trials still owe */
	enum cuda_ahead_mode ahead_mode;
	int ahead_threads;
	size_t ahead_window;
	struct cuda_cq *cq;
	struct cuda_ahead *ahead;
	size_t nahead, aheadcap;
	struct cuda_refmod ref[3];             /* by enum cuda_dtype */
	double *d_err;                       /* ref_error's two sums and its first bad index */
	unsigned *d_sk_flags;                /* conv.cu's stream-K flags (sk_flags_len words,
					      * zero between launches; data.c), or NULL */
	int64_t sk_flags_len;
	int64_t ref_compile_ns, ref_ns;      /* the reference kernels' compiles and runs */
	int64_t ref_verified;                /* cells whose GPU reference matched the host's */
	int64_t im2col_maps;                 /* im2col maps of X encoded (gemm.c) */
	int64_t s2d_launches;                /* conv_s2d pre-passes enqueued (conv.c) */
	int64_t conv_partials;               /* template convs at SPLIT_K 1 whose epilogue
					      * conv_splitk_reduce applied (conv.c, conv_fused) */
	int64_t cluster_launches;            /* wgmma launches in clusters (gemm.c) */
	int64_t pdl_launches;                /* wgmma launches as programmatic dependents */
	int64_t cluster_fallbacks;           /* CLUSTER 2 configs launched without one: no
					      * tensor map for A there (conv.c) */
	int64_t res_tma_launches;            /* conv.cu launches reading Res by TMA (RES_TMA) */
	int64_t res_tma_fallbacks;           /* RES_TMA 1 configs launched without it: Res not
					      * 16-byte aligned, or the epilogue not fused */
	int64_t tma_only_launches;           /* conv.cu launches of TMA-only modules (no
					      * gather: cuda_conv_tma_only) */
	struct cuda_cell **cells;
	size_t ncells, cap;
	int64_t compiles, cache_hits, compile_ns;
	struct cuda_dnn *dnn;                  /* NULL until the first conv cell */
	int op_graph;                        /* op cells timed by graph replay (graph-replay.c) */
	int64_t graph_configs, stream_configs; /* configs timed each way */
	char *stream_why;                    /* the first capture that failed, or NULL */
	/* where a unit's set-up goes (describe_end's setup_*_ns): drawing and uploading op
	 * cells' inputs, cuDNN's descriptors and heuristic, capturing and timing each config's
	 * launches, the models' weights, vendor forward, checks and graphs */
	int64_t t_data_ns, t_dnn_ns, t_replay_ns, t_model_ns;
};

/* The module of config c for cell: loaded already, from the cache directory (a hit), or
 * compiled now.  A compile or load failure is res->status = PREPARE_COMPILE_ERROR with
 * the NVRTC log in res->detail, *out NULL, 0 returned; -1 with *cause only when the cache
 * cannot be written or the device fails. */
int cuda_get_module(struct backend *b, struct cuda_cell *cell, const struct config *c,
		      struct cuda_module **out, struct prepare_result *res, char **cause);

/* ---- data.c ---- */
/* Cell c's inputs (uniform(-1, 1) in its dtype from the run's seed and the cell's name; a
 * maxpool_bwd cell's window positions uniform among each window's own) on the host and the
 * device, its output buffer, and the float64 reference of every output on the GPU.  0, or
 * -1 with *cause. */
int cuda_alloc_data(struct backend *b, struct cuda_cell *c, char **cause);
/* Device memory of bytes at *d holding the host's h (the backend's stream, waited for).
 * 0, or -1 with *cause. */
int cuda_upload(struct backend *b, void **d, const void *h, size_t bytes, char **cause);

/* n elements of dtype t at device address d drawn uniform(-1, 1) on the GPU (ref_fill:
 * splitmix64 of seed + i, templates/reference.cu), rounded to TF32 first when tf32 (a TF32
 * cell's operands: the tensor cores' truncation of them is then exact), enqueued on the
 * backend's stream.  0, or -1 with *cause. */
int cuda_dev_fill_uniform(struct backend *b, enum cuda_dtype t, void *d, size_t n, uint64_t seed,
		    int tf32, char **cause);

/* The reference kernels of dtype t (compiled or read from the cache directory once per unit):
 * 0, or -1 with *cause. */
int cuda_ref_module(struct backend *b, enum cuda_dtype t, struct cuda_refmod **out, char **cause);

/* Cell c's float64 reference of every output into c->d_ref (GPU), from its device inputs;
 * with HARNESS_CUDA_REF_VERIFY=1 also on the host (cuda_ref_compute), and a disagreement
 * beyond 1e-12 (relative norm) is an error.  0, or -1 with *cause. */
int cuda_dev_ref_compute(struct backend *b, struct cuda_cell *c, char **cause);

/* ||y - ref|| / ||ref|| of c->d_out against c->d_ref on the GPU (INFINITY and *bad = the
 * first non-finite output, else *bad = SIZE_MAX).  0, or -1 with *cause. */
int cuda_dev_ref_error(struct backend *b, struct cuda_cell *c, double *err, size_t *bad, char **cause);

/* ---- graph-replay.c ---- */
/* 1 (graph replay, the default) or 0 (stream launches) from HARNESS_CUDA_OP_TIMING; -1 with
 * *cause for a value that is neither. */
int cuda_replay_mode(char **cause);
/* Cell c's current config (c->cur, c->mod, checked) made ready to time: captured into graphs
 * when b->op_graph and the capture works, else on the stream; c->launches per warm sample
 * from one launch's time.  0, or -1 with *cause. */
int cuda_replay_prepare(struct backend *b, struct cuda_cell *c, char **cause);
/* One sample of op cell c (backend_ops.sample). */
int cuda_replay_sample(struct backend *b, struct cuda_cell *c, int flush, struct sample *out,
		     char **cause);
void cuda_replay_release(struct cuda_cell *c);
/* Configs timed each way, the first fallback's reason, each op cell's timing. */
void cuda_replay_describe(const struct backend *b, struct sbuf *out);

/* The split-K / sum_dim0 workspace of cell c, grown to bytes or more (data.c). */
int cuda_ensure_ws(struct cuda_cell *c, size_t bytes, char **cause);
/* The backend's stream-K flags, allocated zeroed on first use (never during a capture: the
 * eager check runs first): 4 words an SM (two blocks an SM, two consumer warpgroups). */
int cuda_ensure_sk_flags(struct backend *b, char **cause);

/* gemm.c: one execution of GEMM config cfg (module m) of cell c on the backend's stream,
 * building (or finding cached) the tensor maps its wgmma path needs; its tensor-map cache
 * released with the cell. */
int cuda_gemm_run(struct backend *b, struct cuda_cell *c, const struct config *cfg,
		struct cuda_module *m, char **cause);
void cuda_gemm_release(struct cuda_cell *c);
/* The driver's entry point name of CUDA version `version` (12000: 12.0) into *fn, looked up
 * at run time (the wgmma path's tensor-map encoders, graph-replay.c's kernel names); -1 with
 * *cause (heap) when the driver has none. */
int cuda_driver_fn(const char *name, int version, void **fn, char **cause);
struct cuda_gemm_config; /* gemm-config.h */
/* The wgmma kernel's operands (gemm.cu and conv.cu with WGMMA=1), in the GEMM view: A (a, m x k,
 * leading dimension lda) and B (b, n x k, ldb); tma: A and B are those plain matrices, so
 * the tensor copy engine may load them (used when they are 16-byte aligned too); tma_b: B
 * alone is (conv.cu's weights; the kernel gathers A). */
struct cuda_im2col; /* below */
struct cuda_wgmma_operands {
	const void *a, *b;
	int64_t m, n, k, lda, ldb;
	int tma, tma_b;
	const struct cuda_im2col *im2col; /* borrowed; non-NULL: a is a convolution's X, read
					 * through an im2col map (conv.cu's use_tma 3) */
	int cluster;                      /* blocks a cluster asked for: 1, 2, 4 or 8
					 * (wgmma.cuh's clusters, operands shared by multicast;
					 * served only where A has a tensor map) */
	int cluster_m;                    /* of those, the blocks along m (sharing B; 1 to
					 * cluster, dividing it), the rest along n (sharing A) */
	const void *r;                    /* NULL, or the epilogue's m x n second operand (ld
					 * n, conv.cu's residual) to read by TMA (WG_RES_TMA;
					 * the caller adds cuda_wgmma_res_bytes to smem) */
};
/* A convolution's X (N x H x W x C) as TMA's im2col mode reads it: the filter (RS x RS),
 * stride and padding set the map's bounding box and traversal. */
struct cuda_im2col {
	int64_t n, h, w, c;
	int rs, stride, pad;
};
/* Its launch: blocks (persistent: no more than fit at once), the tensor maps passed by value
 * (CUtensorMap; zero maps where unused) and use_tma: 0 none, 1 A and B, 2 B alone, 3 A by
 * its im2col map and B, with gemm-config.h's flags CUDA_USE_TMA_CLUSTER_M and
 * CUDA_USE_TMA_RES. */
struct cuda_wgmma_launch {
	int64_t grid;
	int64_t resident; /* blocks that fit at once (the persistent grid's cap), in clusters
			   * of `cluster` */
	int64_t tiles;    /* the work units the blocks (clusters) walk: tiles, or clusters'
			   * tiles of `cluster` tiles side by side */
	const void *ta, *tb, *tr; /* borrowed: the cell's tensor-map cache (tr: op's r) */
	int use_tma;
	int cluster;      /* blocks a cluster: op's where A has a map (use_tma 1 or 3), else 1 */
	int pdl;          /* launched as a programmatic dependent (backend's pdl, module's) */
};
/* Fill *out for module m's kernel under config g (dynamic shared memory smem) on cell c,
 * encoding the tensor maps or finding them in c's cache. */
int cuda_wgmma_setup(struct backend *b, struct cuda_cell *c, struct cuda_module *m,
		   const struct cuda_gemm_config *g, size_t smem, const struct cuda_wgmma_operands *op,
		   struct cuda_wgmma_launch *out, char **cause);
/* Enqueue module m's first kernel on b's stream as w says (in clusters of w->cluster
 * blocks along x when it is over 1: cudaLaunchKernelExC), grid (w->grid, 1, z). */
int cuda_wgmma_launch_kernel(struct backend *b, struct cuda_module *m,
			     const struct cuda_wgmma_launch *w, unsigned z, unsigned threads,
			     size_t smem, void **args, char **cause);
/* backend_ops.estimate (gemm.c): the roofline of cuda_estimate_ns with this device's figures. */
double cuda_estimate(const struct backend *b, size_t i, const struct config *c);

/* ---- convolutions (conv.c, cudnn.c) ---------------------------------------------------- */

/* The device buffers of one convolution: x, weights, bias (K elements), residual (NULL
 * unless conv2d_bias_relu_add), y, and the workspace (conv.c: space-to-depth's buffers,
 * stream-K's slots, the fp32 partials). */
struct cuda_conv_io {
	const void *x, *w, *bias, *res;
	void *y;
	float *ws;
	size_t ws_bytes;
};
/* Whether b reads X of conv shape s by a tensor map wherever its rules allow: b's
 * conv_tma_only, no space-to-depth pass, and im2col on unless s is a plain GEMM (the cell's
 * cuda_space_ctx conv_maps). */
int cuda_conv_maps(const struct backend *b, const struct cuda_shape *s);
/* Enqueue config cfg of conv cell c (module m: conv.cu at cfg; for a vendor config the
 * template at its defaults, whose conv_epilogue finishes what cuDNN cannot fuse); with
 * b->conv_s2d, a shape cuda_conv_s2d takes runs conv_s2d into the front of io->ws first. */
int cuda_conv_launch(struct backend *b, struct cuda_cell *c, const struct config *cfg,
		   struct cuda_module *m, const struct cuda_conv_io *io, char **cause);
/* The same on the cell's own buffers (the workspace grown as needed). */
int cuda_conv_run(struct backend *b, struct cuda_cell *c, const struct config *cfg,
		struct cuda_module *m, char **cause);
/* cuDNN: descriptors of conv cell c and its vendor candidates.  With b->dnn_graph (the
 * default), the graph API (cudnn-graph.c): the engine configs its heuristic ranks,
 * "vendor:engine=E,rank=R,fused=F".  Else the legacy API (cudnn.c): the algorithms
 * cudnnGetConvolutionForwardAlgorithm_v7 ranks, "vendor:algo=A,math=M" in its order.  Either
 * way the first is the heuristic's choice. */
int cuda_dnn_cell_init(struct backend *b, struct cuda_cell *c, char **cause);
/* Enqueue candidate k of cell c on io (module m: conv.cu's epilogue where cuDNN does not fuse
 * the op's); the graph API builds k's plan on first use (-1 with *cause when it cannot). */
int cuda_dnn_launch(struct backend *b, struct cuda_cell *c, size_t k, const struct cuda_conv_io *io,
		  struct cuda_module *m, char **cause);
/* 1 when candidate k of cell c ran as one fused cuDNN call, 0 when as the convolution and
 * conv.cu's epilogue, -1 when it has not run yet. */
int cuda_dnn_fused(const struct cuda_cell *c, size_t k);
void cuda_dnn_cell_free(struct cuda_cell *c);
void cuda_dnn_close(struct backend *b);
/* cuDNN's data type for dtype t (both APIs). */
static inline cudnnDataType_t cuda_dnn_type(enum cuda_dtype t)
{
	return t == CUDA_F16 ? CUDNN_DATA_HALF : t == CUDA_BF16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_FLOAT;
}
/* The backend's cuDNN handle on its stream, made on first use (both APIs share it; closed by
 * cuda_dnn_close, after the cells). */
int cuda_dnn_handle(struct backend *b, cudnnHandle_t *out, char **cause);
/* conv.cu's conv_epilogue (module m) on io->y in place: what cuDNN did not fuse of cell shape
 * s's op.  *k caches the kernel of module *kmod (the caller's, per cell). */
int cuda_dnn_epilogue(struct backend *b, cudaKernel_t *k, const struct cuda_module **kmod,
		    const struct cuda_shape *s, const struct cuda_conv_io *io, struct cuda_module *m,
		    char **cause);
/* cudnn-graph.c, the same for the graph API (called by cudnn.c's functions above) */
int cuda_dnng_cell_init(struct backend *b, struct cuda_cell *c, char **cause);
int cuda_dnng_launch(struct backend *b, struct cuda_cell *c, size_t k, const struct cuda_conv_io *io,
		   struct cuda_module *m, char **cause);
int cuda_dnng_fused(const struct cuda_cell *c, size_t k);
void cuda_dnng_cell_free(struct cuda_cell *c);

/* ---- models (model.c) ------------------------------------------------------------------ */

/* Relative-norm bounds of the e2e check, the forward's logits against the vendor forward's
 * (both accumulate rounding through every layer; a wrong forward is off by O(1)):
 * float32 1e-4, TF32 1e-2, float16 3e-2, bfloat16 1e-1 (docs/kernels.md). */
#define CUDA_MODEL_TOL_F32 1e-4
#define CUDA_MODEL_TOL_TF32 1e-2
#define CUDA_MODEL_TOL_F16 3e-2
#define CUDA_MODEL_TOL_BF16 1e-1
double cuda_model_tolerance(enum cuda_dtype t, int tf32);
/* A model workload's cells (named name): one op cell per distinct op shape with its count,
 * then "<name>/e2e" (stream launches) and "<name>/e2e-graph" (one CUDA graph). */
int cuda_model_add(struct backend *b, const struct workload *w, const char *name, char **cause);
/* prepare() and sample() of an e2e cell, and its release. */
int cuda_model_prepare(struct backend *b, struct cuda_cell *c, struct prepare_result *res,
		     char **cause);
int cuda_model_sample(struct backend *b, struct cuda_cell *c, int flush, struct sample *out,
		    char **cause);
void cuda_model_cell_free(struct cuda_cell *c);
/* The itemised forward of every checked stream e2e cell as e2e_part lines. */
void cuda_model_describe(const struct backend *b, struct sbuf *out);

/* backend-cuda.c, for model.c: an op cell of workload name at shape s (appended to the
 * backend's cells, its vendor candidates set up), or NULL with *cause; one execution of
 * config cfg (module m) of op cell c on its current buffers d_in/d_out. */
struct cuda_cell *cuda_op_cell_add(struct backend *b, const char *name, const char *op,
			       const struct cuda_shape *s, char **cause);
int cuda_cell_run(struct backend *b, struct cuda_cell *c, const struct config *cfg,
		struct cuda_module *m, char **cause);

#endif
