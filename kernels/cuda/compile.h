/* compile.h: how the CUDA backend compiles: NVRTC, its cubin cache and its thread pool
 * (nvrtc.c); the templates in kernels/cuda/templates/, loaded modules and compiling a
 * unit's configs ahead (module.c).  NVRTC needs no device.  Private to kernels/cuda/ (ops.h
 * says how its headers divide). */
#ifndef HARNESS_KERNELS_CUDA_COMPILE_H
#define HARNESS_KERNELS_CUDA_COMPILE_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "kernels/cuda/ops.h"

/* ---- NVRTC, the cubin cache and the compile pool (nvrtc.c) --------------------------- */

/* One compile: what goes in, what comes out.  Thread-safe (NVRTC programs are
 * independent); touches no device. */
struct cuda_compile {
	/* in (borrowed) */
	const char *tmpl_name;   /* "gemm.cu" */
	const char *source;
	size_t source_len;
	char **opts;
	size_t nopts;
	/* out (owned; cuda_compile_release frees) */
	int ok;                  /* 1: cubin holds the machine code */
	char *cubin;
	size_t cubin_len;
	char *log;               /* NVRTC's log, or why NVRTC could not run; NULL when empty */
	int64_t ns;              /* wall time of the compile */
};
void cuda_compile_run(struct cuda_compile *c);
/* Template name from folder dir as NVRTC compiles it: each line that starts with
 * `#include "H"` (H a plain file name) replaced by dir/H, itself read the same way (nested
 * includes), each header once per template (a later include of it: nothing), so NVRTC needs
 * no include path and a cache key over the text covers every header (docs/kernels.md).
 * 0 and *out (heap, NUL-terminated, *len bytes), or -1 and *cause (heap). */
int cuda_template_read(const char *dir, const char *name, char **out, size_t *len, char **cause);
void cuda_compile_release(struct cuda_compile *c);

/* "13.0": the NVRTC this process loaded. */
const char *cuda_nvrtc_version(void);
/* SHA-256 (hex) of (template bytes, options, NVRTC version, arch): the cubin's cache key. */
void cuda_cache_key(const char *tmpl_name, const char *source, size_t len, char *const *opts,
		    size_t nopts, const char *nvrtc_version, const char *arch, char out[65]);

/* Compile n programs on up to threads threads (0: the online CPUs), results in place. */
void cuda_compile_many(struct cuda_compile *c, size_t n, int threads);
/* The CPUs this process may run on (its affinity mask; the online CPUs without one). */
int cuda_compile_cpus(void);

/* The compile queue: compiles in the background on a pool of threads while its owner does
 * other work (module.c: benchmarks on the GPU), each job under a key (the cubin's cache key).
 * Jobs start in the order added, at most `window` beyond the last one taken (0: no limit),
 * so a search that stops early leaves at most that many compiled in vain.  The owner takes a
 * job's result when it needs it, waiting for exactly that job: until the thread compiling it
 * is done, or compiling it on its own thread when no thread has started it.  Every job is
 * compiled at most once and counted once; its `done` hook runs on the thread that compiled
 * it, right after, and says why the result cannot be used (heap) or NULL.  Thread-safe;
 * touches no device.  Queue state is behind one mutex; the jobs' compiles run outside it. */
struct cuda_cq;
typedef char *(*cuda_cq_done_fn)(void *ctx, const char *key, const struct cuda_compile *c);
struct cuda_cq_stats {
	int64_t added;       /* jobs queued */
	int64_t compiled;    /* compiles finished (on the pool or a taker's thread) */
	int64_t cancelled;   /* jobs dropped before any thread started them */
	int64_t taken;       /* results handed out */
	int64_t running, pending; /* now */
	int64_t busy_ns;     /* wall time during which at least one compile ran (the compiler's) */
	int64_t compile_ns;  /* the compiles' own wall times, summed (>= busy_ns with threads) */
	int64_t waited_ns;   /* wall time takers and cuda_cq_wait_all spent waiting, summed */
	int64_t stop_ns;     /* wall time cuda_cq_drain and cuda_cq_stop waited for compiles
			      * under way that nobody had asked for */
};
/* A queue of `threads` pool threads (0: none; every job is then compiled by its taker).
 * NULL with *cause when no thread can be started. */
struct cuda_cq *cuda_cq_open(int threads, size_t window, cuda_cq_done_fn done, void *ctx,
			     char **cause);
/* Queue job c under key (at most 64 characters); the queue owns c->opts (the array and its strings) from now, and
 * c->source must outlive the queue (or its stop).  0 queued; 1 when key is queued already
 * (c->opts freed, nothing queued). */
int cuda_cq_add(struct cuda_cq *q, const char *key, struct cuda_compile *c);
/* 1 when key is queued and not taken (pending, compiling or compiled). */
int cuda_cq_has(struct cuda_cq *q, const char *key);
/* The result of key's job, waiting for exactly it: 1 with *out (ok, cubin, log, ns: the
 * caller's; cuda_compile_release frees), *detail (the done hook's, heap, or NULL) and
 * *waited_ns (0 when it was compiled already); 0 when key is not queued, or is being taken
 * by another thread (nothing waited). */
int cuda_cq_take(struct cuda_cq *q, const char *key, struct cuda_compile *out, char **detail,
		 int64_t *waited_ns);
/* Wait until every queued job is compiled, compiling pending ones on this thread too (the
 * window does not apply); returns the wall time waited. */
int64_t cuda_cq_wait_all(struct cuda_cq *q);
/* Drop the jobs no thread has started (a new plan replaces the old); the window counts from
 * the next job added.  Returns how many were dropped. */
size_t cuda_cq_cancel(struct cuda_cq *q);
/* Cancel, then wait for the compiles under way (their wait counts in stop_ns); the threads
 * stay, for jobs added later.  Returns how many were dropped. */
size_t cuda_cq_drain(struct cuda_cq *q);
/* Cancel, wait for the compiles under way and join the threads (idempotent).  Compiled jobs
 * stay takeable; a job added after it is compiled by its taker. */
void cuda_cq_stop(struct cuda_cq *q);
void cuda_cq_stats(struct cuda_cq *q, struct cuda_cq_stats *out);
int cuda_cq_threads(const struct cuda_cq *q);   /* pool threads started at open */
size_t cuda_cq_window(const struct cuda_cq *q);
/* Stop and free, with every result not taken. */
void cuda_cq_close(struct cuda_cq *q);

/* ---- templates and modules (module.c) ------------------------------------------------- */

/* The templates in kernels/cuda/templates/, in the order of struct backend's tmpl[]. */
#define CUDA_NTEMPLATES 7
extern const char *const cuda_template_names[CUDA_NTEMPLATES];

struct cuda_template {
	const char *name;  /* "gemm.cu" */
	char *text;        /* NULL until first needed */
	size_t len;
	char sha256[65];
};

/* A loaded cubin and the kernels of one op in it.  Two ops may share a cubin (maxpool and
 * maxpool_bwd, sum over either dimension: one template, the same options), never a
 * module: the kernel handles are the op's own. */
struct cuda_module {
	char hash[65];
	const char *kname;   /* the op's first kernel (static), with hash the module's identity */
	const char *tmpl;
	cudaLibrary_t lib;
	cudaKernel_t k[3];   /* the op's kernel, its finishing kernel (split-K, sum_dim0) and
			      * its pre-pass (conv.cu's conv_s2d) */
	size_t smem_set;     /* dynamic shared memory the first kernel was raised to */
	int pdl;             /* the cubin has harness_wg_pdl (wgmma.cuh): its first kernel
			      * waits for the stream's previous one itself */
};

/* How a cell's plan is compiled ahead (HARNESS_CUDA_COMPILE_AHEAD; docs/kernels.md "NVRTC
 * and the cubin cache"): in the background while the GPU benchmarks (the default), all of
 * it before the first trial, or not at all (each config compiled when prepared). */
enum cuda_ahead_mode { CUDA_AHEAD_OVERLAPPED = 0, CUDA_AHEAD_CHUNKED, CUDA_AHEAD_OFF };

/* What prepare() must still be told of a config compiled ahead: in chunked mode its share
 * of the batch's wall time until a trial has it; in either mode its compile error, reported
 * on every prepare of it (never compiled twice).  The results themselves are in the queue. */
struct cuda_ahead {
	char hash[65];
	int64_t ns;          /* share not yet charged to a trial */
	char *detail;        /* the compile error, NVRTC's log quoted (heap), or NULL */
};

/* The check's float64 reference kernels of one dtype (templates/reference.cu), loaded at the
 * first cell of that dtype.  Not a config: their compile is neither counted as one nor a
 * cache hit (the cubin is kept in the cache directory as cuda-reference-<key>.cubin). */
struct backend;
struct cuda_cell;

/* ---- compiling ahead (module.c) ---- */
/* backend_ops.prepare_ahead: queue the configs of cell i's plan (those not compiled or
 * queued yet) on the compile queue, after the ones there; cs NULL and n 0: drop the ones
 * not started and wait for those under way.  Overlapped: returns at once; prepare() waits for exactly the config it
 * needs.  Chunked: returns when all are compiled.  Off: nothing. */
void cuda_prepare_ahead(struct backend *b, size_t i, const struct config *cs, size_t n);
/* The mode, pool threads and window from HARNESS_CUDA_COMPILE_AHEAD and
 * HARNESS_CUDA_COMPILE_THREADS: 0, or -1 with *cause naming the bad value. */
int cuda_ahead_init(struct backend *b, char **cause);
/* describe(): compile_ahead=overlapped|chunked|off, its threads and window. */
void cuda_ahead_describe(const struct backend *b, struct sbuf *out);
/* The end of the unit's compiling: no compile starts any more, the ones under way finish
 * (idempotent).  describe_end() and counters() call it first; close() too. */
void cuda_ahead_finish(const struct backend *b);
/* describe_end(): the queue's counts and times (cuda_compile_ahead_*), after finishing it. */
void cuda_ahead_describe_end(const struct backend *b, struct sbuf *out);
/* counters(): compiles (prepare's own and the queue's, each once), cache hits, compile_ns. */
void cuda_compile_counters(const struct backend *b, struct backend_counters *out);
/* Finish and free the queue and what trials were still owed (close()). */
void cuda_ahead_close(struct backend *b);

#endif
