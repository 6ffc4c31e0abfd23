/* backend.h: the interface every backend implements (cpu now; cuda and command later), and
 * the one registry of backends: their names, the order `auto` tries them in, whether this
 * build has them and how a unit of a mode on each is started.  Every message, check and
 * audit that names backends derives from the registry (the variables the harness sets for
 * every unit are harness/config/unitenv.c's, beside the code that builds the environment).
 * A backend turns workloads into cells, compiles and checks configs of each op cell into
 * the unit's cache directory, and times one call of a cell.  The worker drives it; the
 * backend never decides what to tune or how many samples to take.
 * To add a backend: implement struct backend_ops in kernels/<name>/, point its entry of
 * backend_registry in backend.c at it, and make available() say honestly why it cannot
 * run.  A new cache variable a framework reads goes in unitenv_vars
 * (harness/config/unitenv.c). */
#ifndef HARNESS_BACKEND_H
#define HARNESS_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "harness/base/util.h"
#include "kernels/sample.h"
#include "kernels/space.h"
#include "kernels/workload.h"

enum cell_kind { CELL_OP = 0, CELL_E2E };

/* One timed thing.  Owned by the backend; valid until backend close. */
struct cell {
	char *name;      /* "<workload>/<op>:<shape>" or "<workload>/e2e"; unique in the run */
	enum cell_kind kind;
	char *workload;  /* the workload's name */
	char *op;        /* "sgemm", "conv2d", ... or "e2e" */
	char *shape;     /* "m=512,n=512,k=512"; for e2e: "batch=1,resolution=64" */
	int64_t count;   /* occurrences of this op shape in one forward (1 for op workloads/e2e) */
	double flops;    /* floating-point operations per call (0 when not meaningful) */
};

/* What the worker gives a backend. */
struct backend_ctx {
	const char *cache_dir;   /* the unit's private cache directory (exists, mode 0700) */
	const char *kernel_dir;  /* folder holding the backend's templates (kernels/) */
	int64_t threads;         /* threads a vendor library may use ([measure] threads; 0:
				  * the library's default) */
	uint64_t seed;           /* for input data */
	int64_t unit;            /* the unit's plan id: per-unit draws (the CUDA backend's
				  * placement pad, docs/kernels.md "Placement") */
};

enum prepare_status { PREPARE_OK = 0, PREPARE_COMPILE_ERROR, PREPARE_INCORRECT };

/* Result of making a config current for a cell. */
struct prepare_result {
	enum prepare_status status;
	int cache_hit;           /* 1: the compiled kernel came from the cache directory */
	int64_t compile_ns;      /* compiler time spent (0 on a hit) */
	int64_t check_ns;        /* time checking against the float64 reference */
	double max_rel_err;      /* worst error found by the check */
	char *detail;            /* heap message for compile errors / incorrect results, or NULL */
};

struct backend_counters {
	int64_t compiles;        /* compiler invocations */
	int64_t cache_hits;      /* kernels found compiled in the cache directory */
	int64_t compile_ns;      /* total compiler wall time */
};

struct backend; /* a backend's private state for one unit */

struct backend_ops {
	const char *name;
	/* 1 when this machine and build can run the backend; else 0 and *why (heap). */
	int (*available)(char **why);
	struct backend *(*open)(const struct backend_ctx *ctx, char **cause);
	/* Whether the backend can build cells for w at all, without a device (NULL: every
	 * workload): 1, or 0 and *why (heap, "workload 'x': ...").  `auto` passes over a
	 * backend that cannot serve a mode's workloads, and a backend asked for by name that
	 * cannot is refused when the run starts, before any unit. */
	int (*supports)(const struct workload *w, char **why);
	/* Append the cells of a workload (validates op/model names and shapes). */
	int (*add_workload)(struct backend *b, const struct workload *w, char **cause);
	size_t (*ncells)(const struct backend *b);
	const struct cell *(*cell)(const struct backend *b, size_t i);
	/* Config space of op cell i (borrowed, valid until close); NULL for e2e cells. */
	const struct space *(*space)(const struct backend *b, size_t i);
	/* The space every cell of op has, without a shape (fields, values and vendor
	 * candidates; no constraint, no heuristic), for checking tuner options before a run;
	 * -1 when the backend has no tunable space for op.  Needs no open backend. */
	int (*op_space)(const char *op, struct space *out);
	/* Make config c current for op cell i: compile into the cache dir or load it from
	 * there, run it once and check it against the float64 reference.  For an e2e cell, c
	 * is NULL: check the whole forward built from every op cell's current config.  Bad
	 * configs are statuses in *res; -1 (with *cause) only for infrastructure failures. */
	int (*prepare)(struct backend *b, size_t i, const struct config *c,
		       struct prepare_result *res, char **cause);
	/* Optional (NULL: each config is compiled when prepared): compile the n configs of op
	 * cell i into the cache directory now, in parallel, so that their prepare() only
	 * loads them (the tuning driver's plan, kernels/tune.h).  Plans of several cells
	 * queue one after another, in the order given (the worker gives every cell's before
	 * tuning the first); c NULL and n 0: no plan needs anything more, so what was not
	 * started is dropped.  Failures are kept for prepare() to report; nothing here is an
	 * error. */
	void (*prepare_ahead)(struct backend *b, size_t i, const struct config *c, size_t n);
	/* One sample of cell i's current implementation into *out (the caller starts it at
	 * SAMPLE_INIT): out->ns the wall time of out->launches calls (1 unless the backend
	 * batches launches), and what the device says about the clock and throttling when it
	 * can say it.  flush: evict the caches (a buffer larger than the last-level cache)
	 * before the timed region. */
	int (*sample)(struct backend *b, size_t i, int flush, struct sample *out, char **cause);
	void (*counters)(const struct backend *b, struct backend_counters *out);
	/* Provenance as "key=value" lines (compiler version, vendor library, cache sizes). */
	void (*describe)(const struct backend *b, struct sbuf *out);
	/* Optional (may be NULL): provenance at the end of the unit, after measuring (the
	 * device's state then, libraries loaded on first use), as "key=value" lines. */
	void (*describe_end)(const struct backend *b, struct sbuf *out);
	/* Provenance that needs no open backend (the vendor library this build loads), as
	 * "key=value" lines the scheduler records in the run's metadata; may be NULL. */
	void (*describe_build)(struct sbuf *out);
	/* Optional (NULL: no model): a modelled time of config c of op cell i in ns, from the
	 * device's figures alone (no compile, no launch), or NaN when the backend has no model
	 * for that op, config or device.  The "model-topk" tuner ranks a cell's configs by it
	 * when it has no training data (docs/kernels.md, "The roofline estimate"). */
	double (*estimate)(const struct backend *b, size_t cell, const struct config *c);
	void (*close)(struct backend *b);
};

void prepare_result_release(struct prepare_result *r);

/* ---- the registry ------------------------------------------------------------------- */

/* How a unit of a mode on a backend is started. */
enum backend_start {
	BACKEND_START_NONE = 0,  /* no way yet (the backend is not implemented) */
	BACKEND_START_WORKER,    /* the harness's own worker: `harness __worker ... --backend NAME` */
	BACKEND_START_COMMAND,   /* the mode's own `command` (an external program speaking the
				  * record protocol, told what to measure by HARNESS_UNIT_SPEC) */
};

/* One backend the harness knows by name, built into this binary or not. */
struct backend_entry {
	const char *name;               /* "cpu", "cuda", "command" */
	const struct backend_ops *ops;  /* NULL: this build does not have it */
	const char *missing;            /* why ops is NULL ("this build has no CUDA backend") */
	int auto_rank;                  /* `auto` tries ranks 1, 2, ... in order; 0: never */
	const char *auto_first;         /* auto's reason when it takes this backend first */
	enum backend_start start;
};

/* Every backend name, in the order messages list them; terminated by an entry with a NULL
 * name. */
extern const struct backend_entry backend_registry[];

/* The entry named name (built or not); NULL when the name is unknown ("auto" included). */
const struct backend_entry *backend_entry(const char *name);
/* The ops of a backend this build has; NULL when unknown or not built. */
const struct backend_ops *backend_find(const char *name);
/* The names a backend may be asked for, "auto" first: NULL-terminated, static. */
const char *const *backend_choices(void);
/* The same for messages: "auto, cpu, cuda or command" (static). */
const char *backend_names(void);
/* 1 when name is "auto" or a registry name. */
int backend_is_choice(const char *name);
/* 1 when this build has the backend, and it can run here: else 0 and *why (heap), which
 * says whether the build lacks it or the machine cannot run it. */
int backend_available(const struct backend_entry *e, char **why);

/* Resolve what a mode asked for ("auto" or a name) to a backend this build has, this
 * machine can run and that supports every one of the nw workloads w (backend_ops
 * supports).  `auto` tries the registry's auto order and takes the first that qualifies,
 * saying why in *reason ("auto: a CUDA device is available", "auto: workload 'resnet18':
 * models are not on the cuda backend yet"); a backend asked for by name that cannot run or
 * cannot serve a workload is an error, never a fallback.  0: *entry (static) and *reason
 * (heap, caller frees).  -1: *cause (heap). */
int backend_resolve(const char *requested, const struct workload *w, size_t nw,
		    const struct backend_entry **entry, char **reason, char **cause);

/* 1 when workload w is for backend (its `backend` key is unset or names it). */
int backend_workload_for(const struct workload *w, const char *backend);

/* The auto order's first backend: what `auto` is meant to find ("cuda"); an `auto` that
 * resolved to another one fell back (the audit warns). */
const char *backend_auto_preferred(void);


/* The folder of kernel templates: $HARNESS_KERNEL_DIR, else the source tree's kernels/
 * when running from the build tree, else $(pkgdatadir)/kernels.  Borrowed string. */
const char *backend_kernel_dir(void);

/* A folder a backend takes from environment variable name when it is set and not empty
 * (created with mode when missing; its parent must exist), else fallback: a heap copy in
 * *out and 0, or -1 and *cause ("cannot create NAME 'path': reason").  For the folders
 * shared across units on purpose: HARNESS_KERNEL_CACHE_DIR (a planted cache leak) and
 * HARNESS_CHECK_DIR (the check's own compiled reference). */
int backend_env_dir(const char *name, mode_t mode, const char *fallback, char **out,
		    char **cause);

#endif
