/* tuner.h: the generic tuner interface.  A tuner proposes configs of a space and reads
 * back the measurement of each; the tuning driver (kernels/tune.h) does the asking and
 * hands each proposal to whatever measures configs (the worker's backend, or recorded
 * trials).  To add a tuner: write kernels/tune/tuner-<name>.c exporting one
 * `const struct tuner_ops tuner_<name>`, add it to the table in tuner.c, document its
 * options in docs/kernels.md and docs/experiment-format.md and test it in
 * tests/unit/test-kernels.c. */
#ifndef HARNESS_TUNER_H
#define HARNESS_TUNER_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/options.h"
#include "kernels/sample.h"
#include "kernels/space.h"

enum trial_status { TRIAL_OK = 0, TRIAL_COMPILE_ERROR, TRIAL_INCORRECT, TRIAL_FAILED };
const char *trial_status_name(enum trial_status s); /* "ok", "compile-error", "incorrect", "failed" */

/* What was measured for one proposed config (borrowed by observe() for the call only). */
struct trial_result {
	enum trial_status status;
	const struct sample *samples; /* every sample of the trial, in the order taken */
	size_t nsamples;              /* 0 when the tuner does not benchmark */
	double median_ns;             /* of the samples' ns; NaN when nsamples == 0 */
	int64_t compile_ns;           /* its compiler time (0 on a cache hit or when not known) */
};

/* Flags: what a cold unit of this tuner is expected to do (a cold unit that did neither
 * is a cache leak).  TUNER_BENCHMARKS: each proposal is timed (trial_samples samples);
 * without it a proposal is only compiled and checked. */
#define TUNER_COMPILES   0x1
#define TUNER_BENCHMARKS 0x2

/* The op cell being tuned (strings borrowed for the tuner's lifetime). */
struct tuner_cell {
	const char *name;   /* "<workload>/<op>:<shape>" */
	const char *op;     /* "sgemm" */
	const char *shape;  /* "m=512,n=512,k=512" */
};

/* What check_options sees: the mode's options and the op spaces the mode's workloads
 * produce (shape-free: fields, values and vendor candidates, no constraint).  nspaces 0:
 * the spaces are not known here, so option values that name fields are not checked. */
struct tuner_check {
	const struct tuner_option *options;
	size_t noptions;
	const struct space *const *spaces;
	size_t nspaces;
};

/* A lookup table for the "lut" tuner, as the configuration layer read it from its TOML file
 * (harness/config/lut.c fills it; kernels never read TOML).  One entry per [[entries]]
 * table: an op, its shape (integer keys) and a config in config_format() syntax.
 * Ownership: a struct tuner_lut owns everything it points to; tuner_lut_release() frees
 * it (not the struct itself). */
struct tuner_lut_entry {
	char *op;                 /* "sgemm" */
	char **shape_keys;        /* "m", "n", "k", in the table's order */
	int64_t *shape_vals;
	size_t nshape;
	char *config;             /* "BM=64,BN=64,BK=32" or "vendor" */
	int line, col;            /* where the entry's config is written in the table file */
};
struct tuner_lut {
	char *path;               /* the file as named (messages) */
	char sha256[65];          /* of its bytes ("" when it could not be read) */
	char *text;               /* its bytes (NUL-terminated), text_len long; NULL when unread */
	size_t text_len;
	char *error;              /* NULL, or why the table is unusable ("'path':line:col: ...");
				   * the tuner then falls back to the heuristic with this reason */
	struct tuner_lut_entry *e;
	size_t n;
};
void tuner_lut_release(struct tuner_lut *l);

/* Training data for the "model-topk" tuner: ok trials of earlier runs (their results files,
 * read by harness/record/train.c), with where they came from.  Ownership: a struct
 * tuner_train owns everything it points to; tuner_train_release() frees it. */
struct tuner_train_row {
	char *op, *shape, *config; /* the cell's op and shape, the trial's config text */
	double ns;                 /* the trial's median */
};
struct tuner_train {
	struct tuner_train_row *rows;
	size_t n;
	char **files;              /* the results files read, nfiles of them */
	char (*sha256)[65];        /* of each file's bytes */
	size_t *ntrials;           /* rows each file gave */
	size_t nfiles;
	char *error;               /* NULL, or why the data is unusable (the tuner then ranks
				    * without a model and says so) */
};
void tuner_train_release(struct tuner_train *t);

/* What alloc gets; everything borrowed for the tuner's lifetime. */
struct tuner_args {
	const struct space *space;
	const struct tuner_cell *cell;
	const struct tuner_option *options; /* checked by check_options beforehand */
	size_t noptions;
	uint64_t seed;
	/* Budgets imposed by the caller on top of the options' max_trials and max_seconds
	 * (the tighter wins; 0: none): a replay's --budget.  Enforced by the tuning driver
	 * (kernels/tune.h), not by the tuner. */
	int64_t budget_trials;
	int64_t budget_ns;
	/* The "lut" tuner's table (NULL: none was given or read). */
	const struct tuner_lut *lut;
	/* The "model-topk" tuner's training data (NULL: none was given). */
	const struct tuner_train *train;
	/* Optional (NULL: none): a modelled time of config c on this cell in ns, or NaN when
	 * there is no model for it (the worker passes its backend's backend_ops.estimate);
	 * ctx is estimate_ctx.  "model-topk" ranks by it when it has no training data. */
	double (*estimate)(const void *ctx, const struct config *c);
	const void *estimate_ctx;
};

struct tuner; /* a tuner's private state for one cell */

struct tuner_ops {
	const char *name;
	unsigned flags;
	/* Check the mode's options (unknown keys, types, ranges, field names) at
	 * experiment-check time.  Returns 0, or -1 with *cause (heap) "line:col: ..." naming
	 * the option (or the element of it that is wrong). */
	int (*check_options)(const struct tuner_check *c, char **cause);
	/* Start tuning one cell.  NULL with *cause (heap) when the tuner cannot tune this
	 * space (the caller reports it and frees *cause). */
	struct tuner *(*alloc)(const struct tuner_args *a, char **cause);
	/* 1 and *c: the next config to try; 0: done. */
	int (*next)(struct tuner *t, struct config *c);
	void (*observe)(struct tuner *t, const struct config *c, const struct trial_result *r);
	/* Optional (NULL: not known in advance): the proposals next() will make, in order,
	 * at most max of them into out; their number returned.  Only for a tuner whose
	 * proposals do not depend on what it observes (exhaustive, heuristic, vendor,
	 * vendor-benchmarked: tuner_plan_by_copy), so a backend can compile them all at once
	 * before the first is measured, every cell's (harness/run/worker.c); or the first of
	 * them, which it always makes (lut: the table's config; its fallback is compiled when
	 * proposed).  Changes nothing in t. */
	size_t (*plan)(const struct tuner *t, struct config *out, size_t max);
	/* The chosen config; -1 when no proposal was usable (never chooses an incorrect one). */
	int (*best)(struct tuner *t, struct config *out);
	void (*free)(struct tuner *t);
	/* Optional (NULL: nothing to say): after tuning, a one-line note on how the choice was
	 * made, for the record (the "lut" tuner: the entry used, or why it fell back), written
	 * into out (size bytes, NUL-terminated); "" for nothing.  Returns 1 when the choice is
	 * the tuner's fallback rather than what it was given (a table without a usable entry,
	 * no fitted model: the audit's tuner-fallback check), else 0. */
	int (*note)(const struct tuner *t, char *out, size_t size);
	/* Optional (NULL: the tuner cannot fail once started): NULL, or why the tuner failed
	 * while tuning (a program it talks to died, timed out or broke the protocol: the
	 * "external" tuner).  A tuner that has failed proposes nothing more (next() returns
	 * 0); the driver then stops with this as its error (tune_result.failed).  The string
	 * is t's, valid until free(). */
	const char *(*error)(const struct tuner *t);
};

/* NULL when unknown. */
const struct tuner_ops *tuner_find(const char *name);
/* NULL-terminated list of all tuners, for messages listing the valid names. */
extern const struct tuner_ops *const tuner_table[];

/* A plan (tuner_ops.plan) for a tuner whose proposals never depend on what it observed:
 * next() run on a copy of t's size bytes of state (a shallow copy: next() must change only
 * the state's own fields) until it is done or max configs are in out; their number. */
size_t tuner_plan_by_copy(const struct tuner *t, size_t size,
			  int (*next)(struct tuner *t, struct config *c), struct config *out,
			  size_t max);

/* Helpers for check_options.
 *
 * tuner_check_known_options: -1 with *cause "line:col: unknown option 'x' for tuner 'y'
 * (...)" when one of the options is not in known (NULL-terminated; NULL: the tuner takes
 * none).
 *
 * tuner_check_field_option: o must name fields of the spaces: a list of distinct strings
 * (a field order, `field_order = ["BM", "BN"]`) or a table keyed by field name (per-field
 * settings, `field_limits = { BK = 64 }`; the values are the tuner's to check).  A name
 * that is a field of none of c's spaces is an error at the element's line:col, listing
 * the fields there are.  Nothing is checked against an empty c->spaces. */
int tuner_check_known_options(const struct tuner_ops *t, const struct tuner_check *c,
			      const char *const *known, char **cause);
int tuner_check_field_option(const struct tuner_option *o, const struct tuner_check *c,
			     char **cause);

#endif
