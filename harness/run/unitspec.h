/* unitspec.h: the unit specification every unit is given (docs/record-protocol.md, "The
 * unit specification"): a JSON file in its cache directory, named by HARNESS_UNIT_SPEC,
 * saying what to measure (backend, tuner, workloads, the cells' names when the harness
 * knows them, the measure rules, the seed, the mode's options, what it is expected to do).
 * The scheduler resolves each unit once and writes it here; an external command unit and
 * the harness's own worker (worker.c, which reads it back with unitspec_read and never the
 * experiment file) are told the same things the same way. */
#ifndef HARNESS_UNITSPEC_H
#define HARNESS_UNITSPEC_H

#include <stdint.h>

#include "harness/config/experiment.h"
#include "kernels/options.h"
#include "kernels/workload.h"

#define UNITSPEC_VERSION 1

/* Where unit `unit`'s specification lives: <cache_dir>/harness-unit-NNNN.json (one per unit:
 * a warm probe's sits beside its cold unit's).  Heap. */
char *unitspec_path(const char *cache_dir, int64_t unit);

/* What the specification says about one unit. */
struct unitspec_unit {
	int64_t id, repeat, block;
	int warm;
	const char *backend;       /* the mode's resolved backend (a registry name: "cpu",
				    * "cuda", "command") */
	const char *run_dir;       /* the run folder, where its copies of the lookup tables and
				    * training files are (lut.h); NULL: none */
	const char *cache_dir;
	double timeout_s;
	const char *workload;      /* the one workload (unit_scope = "workload"), or NULL: all
				    * the mode runs (its `workloads`, those for backend "command") */
	const char *const *cells;  /* names the harness knows for the mode (NULL-terminated), or
				    * NULL: unknown (the unit declares its own) */
	const char *const *command; /* a command mode's argv as run (the run metadata's), or
				     * NULL: the mode's command_argv */
};

/* The specification as JSON text: heap, caller frees. */
char *unitspec_json(const struct experiment *e, const struct mode *m,
		    const struct unitspec_unit *u);

/* Write it to path (mode 0400, replacing an earlier one: a resumed unit).  0, or -1
 * reported. */
int unitspec_write(const char *path, const struct experiment *e, const struct mode *m,
		   const struct unitspec_unit *u);

/* A specification read back (the harness's own worker).  Owns everything it points to;
 * free with unitspec_free. */
struct unitspec {
	char *path;                /* the file it was read from */
	char *experiment, *mode, *backend, *tuner, *cache_dir;
	char *workload;            /* the one workload (unit_scope = "workload"), or NULL */
	int64_t unit, repeat, block;
	int warm;
	uint64_t seed;
	double timeout_s;
	unsigned expects;          /* MODE_EXPECTS_* */
	struct measure_settings measure; /* composed (experiment_unit_measure) */
	struct workload *workloads; /* the workloads the unit runs, in the experiment's order */
	size_t nworkloads;
	struct tuner_option *options; /* the mode's options, in file order (no line:col) */
	size_t noptions;
	char *lut;                 /* tuner "lut": the run folder's copy of its table, or NULL */
	char **train;              /* tuner "model-topk": the run folder's training files */
	size_t ntrain;
	enum fault_kind fault;
	enum mode_timing timing;   /* "timing": how a command mode is timed */
	char **command;            /* timing = "process": the argv to time (NULL-terminated),
				    * else NULL */
	struct mode_process process; /* timing = "process": its keys (owned) */
};

/* Read and check the specification at path.  0 with *out, or -1 reported (the file, and the
 * line:col or key that is wrong). */
int unitspec_read(const char *path, struct unitspec **out);
void unitspec_free(struct unitspec *s);

#endif
