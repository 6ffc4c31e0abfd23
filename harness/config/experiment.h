/* experiment.h: the in-memory experiment (schema version 1) and its loader/validator.
 * The TOML text is read through toml-bridge.h; this module owns the schema, the defaults
 * and every range check, so the scheduler and worker never look at TOML. */
#ifndef HARNESS_EXPERIMENT_H
#define HARNESS_EXPERIMENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kernels/options.h"
#include "kernels/tuner.h"
#include "kernels/workload.h"

#define EXPERIMENT_SCHEMA_VERSION 1

enum order_kind { ORDER_RANDOMIZED = 0, ORDER_ABBA, ORDER_SEQUENTIAL };
/* What one unit runs: every workload of its mode (the default), or one workload, so that a
 * block holds a unit per (mode, workload) and no unit outgrows a time limit (`unit_scope`). */
enum unit_scope { UNIT_SCOPE_MODE = 0, UNIT_SCOPE_WORKLOAD };
/* Deliberate faults a mode can inject into its own worker, to test the harness itself. */
enum fault_kind { FAULT_NONE = 0, FAULT_CRASH, FAULT_HANG, FAULT_EXIT, FAULT_BAD_RECORD };

const char *order_kind_name(enum order_kind k);     /* "randomized", "abba", "sequential" */
const char *unit_scope_name(enum unit_scope k);     /* "mode", "workload" */
const char *fault_kind_name(enum fault_kind k);     /* "none", "crash", "hang", "exit", "bad-record" */

/* [measure]: how each cell is sampled inside a unit.  Defaults in experiment.c and
 * docs/experiment-format.md. */
struct measure_settings {
	double warmup_s;          /* warm-up lasts at least this long ...              */
	int64_t warmup_count;     /* ... and at least this many calls                  */
	int64_t min_samples;      /* never stop before this many samples               */
	int64_t max_samples;      /* stop at this many samples                         */
	double max_time_s;        /* stop after this much sampling time per cell       */
	double target_rel_precision; /* stop when rel. std. error of the median <= this */
	int flush;                /* 1: flush caches before every sample               */
	int64_t trial_samples;    /* samples per tuning trial (tuners' benchmarks)     */
	int64_t threads;          /* threads the vendor library may use (OpenBLAS)     */
};


/* [run]: how the units of a run are spread over the host (harness run --jobs / --gpus give
 * the same; either on the command line replaces both of these). */
struct run_settings {
	int64_t jobs;             /* jobs = N: N units at once, each on its share of the cores; 0 unset */
	char *gpus;               /* gpus = "all" | [0, 1, 3]: as --gpus takes it ("all", "0,1,3"),
				   * heap, or NULL unset */
};

/* [limits]: what one unit may send (docs/experiment-format.md; harness/record/proto.h's
 * defaults where unset). */
struct limit_settings {
	int64_t samples;          /* 0: PROTO_LIMIT_SAMPLES */
	int64_t info_bytes;       /* 0: PROTO_LIMIT_INFO */
	int64_t output_bytes;     /* 0: PROTO_LIMIT_OUTPUT */
};

/* The most blocks a run may plan: the experiment's repeats and max_repeats, an
 * [on.BACKEND]'s, harness run --repeats (a new run's override, a resumed run's extension)
 * and --until-decided (docs/experiment-format.md). */
#define EXPERIMENT_MAX_REPEATS 10000

/* [sequential]: blocks added one at a time after the experiment's repeats until what is
 * asked is decided or max_repeats blocks are spent (docs/experiment-format.md; each look's
 * level the one alpha spending gives it, calibrated for Student's t, stats_seq_levels_t;
 * harness run --until-decided gives the same). */
struct seq_settings {
	int on;                   /* the table is there */
	int64_t max_repeats;      /* the budget in blocks, >= repeats */
	int spending;             /* enum stats_spending (stats.h): "pocock" (default) */
	int until_cells;          /* 0: every primary hypothesis decided; 1: and every cell's
				   * comparison with the baseline (not INCONCLUSIVE) */
	int line, col;            /* where max_repeats is written (for messages) */
};

/* `[on.BACKEND]`: what a run whose modes all run on BACKEND uses instead of the
 * experiment's own repeats, max_repeats and [measure] (experiment_apply_on). */
struct backend_settings {
	char *backend;            /* a registry name (built here or not), never "auto" */
	int has_repeats;
	int64_t repeats;
	int repeats_line, repeats_col;
	int has_max_repeats;
	int64_t max_repeats;      /* [sequential]'s max_repeats on this backend */
	struct measure_settings measure; /* the experiment's [measure] with this table's
					  * [on.BACKEND.measure] keys over it */
};

struct env_var {
	char *name;
	char *value;
};

/* How a command mode is timed (`timing`): its program speaks the record protocol and
 * times itself (the default), or the harness times each process it starts. */
enum mode_timing { TIMING_PROTOCOL = 0, TIMING_PROCESS };
const char *mode_timing_name(enum mode_timing t); /* "protocol", "process" */

/* A command mode with timing = "process" (docs/experiment-format.md, "Timing a command"):
 * per unit, `setup` once, `warmup` untimed runs, then `runs` timed runs of the command, each
 * after `prepare` (untimed), then `cleanup`.  Owned by its mode. */
struct mode_process {
	int64_t runs;          /* `runs`: timed runs per unit (default 10) */
	int64_t warmup;        /* `warmup`: untimed runs before them (default 0) */
	char **setup, **prepare, **cleanup; /* argvs (NULL-terminated, heap), or NULL */
	char *workdir;         /* `workdir`: an absolute folder the command runs in, or NULL:
				* the unit's cache directory */
	int ignore_failure;    /* `ignore_failure`: a run that exits non-zero is timed and
				* counted, not a failed unit */
};
#define MODE_PROCESS_DEFAULT_RUNS 10

struct mode {
	char *name;            /* unique within the experiment */
	char *tuner;           /* "vendor", "heuristic", "exhaustive", ... (checked by the tuner registry) */
	char *backend;         /* "auto" or a backend registry name (kernels/backend.h); NULL:
				* the experiment's (see mode_backend) */
	struct tuner_option *options; /* the mode's `options` table, in file order (kernels/options.h) */
	size_t noptions;
	int baseline;          /* exactly one mode has baseline = true (default: the first mode) */
	char *aa_of;           /* A/A control: the mode whose configuration this one repeats, or NULL */
	char *only_on;         /* `only_on`: the mode takes part only in a run where it resolves to
				* this backend (left out of the others); NULL: every run */
	char **workloads;      /* `workloads`: the names of the only workloads the mode runs, in
				* file order, each one of the experiment's [[workloads]], no two
				* alike (heap, nworkloads of them); NULL: every workload.  Never
				* on the baseline mode (mode_has_workload) */
	size_t nworkloads;
	int warm_probe;        /* 1: after each cold unit, a warm unit reuses its cache directory */
	enum fault_kind fault; /* testing the harness: make this mode's worker misbehave */
	int line, col;         /* where the mode was declared */
	/* The "lut" tuner's table (options.table), read by harness/config/lut.c; NULL for
	 * another tuner or a past run's experiment.  Owned. */
	struct tuner_lut *lut;
	/* The "model-topk" tuner's training files (options.train) as resolved: relative to the
	 * experiment file's folder, or in a unit the run folder's copies
	 * (tables/MODE-train-K.h5); ntrain of them.  Owned. */
	char **train;
	size_t ntrain;
	/* An external command mode (docs/record-protocol.md): `command` set, backend "command",
	 * tuner "command".  NULL/0 for the harness's own tuners. */
	char **command;        /* argv as written, NULL-terminated (heap) */
	char **command_argv;   /* argv as run: relative paths resolved against the experiment's
				* folder, then the kernel folder (NULL-terminated, heap) */
	unsigned expects;      /* MODE_EXPECTS_*: what a cold unit must do (the leak check) */
	double timeout_s;      /* `timeout`: this mode's unit timeout; 0: the experiment's */
	enum mode_timing timing; /* `timing` (command modes) */
	struct mode_process process; /* timing = "process": its keys; zero otherwise */
	struct env_var *env;   /* [modes.environment]: NAME = "value", set after [environment] */
	size_t nenv;
	struct measure_settings measure; /* [modes.measure]: the keys it sets (measure_set) go
					  * over the run's [measure] for this mode's units */
	unsigned measure_set;  /* bit k: measure_keys[k] set (experiment.c's order) */
};
#define MODE_EXPECTS_COMPILE 0x1
#define MODE_EXPECTS_BENCHMARK 0x2

/* What a run applies to its experiment file as it builds it (harness run -D KEY=VALUE,
 * --mode NAME, --workload NAME; docs/experiment-format.md, "Overrides and filters"): the
 * file's bytes stay as they are, and every reader of the run (resume, report, verify)
 * applies the same edits, which the results file records (overrides, mode_filter,
 * workload_filter).  Each list in command-line order.  Ownership: a caller's instance is
 * borrowed by the parser; an experiment's own (experiment.edits) is a copy it frees. */
struct exp_edits {
	char **sets;           /* "KEY=VALUE", KEY a TOML key (dotted), VALUE a TOML value */
	size_t nsets;
	char **modes;          /* --mode: only these modes (with the baseline and A/A pairs) */
	size_t nmodes;
	char **workloads;      /* --workload: only these workloads */
	size_t nworkloads;
};
/* 1 when e is NULL or sets nothing. */
int exp_edits_none(const struct exp_edits *e);
/* 1 when a and b say the same (NULL as nothing). */
int exp_edits_equal(const struct exp_edits *a, const struct exp_edits *b);
void exp_edits_copy(struct exp_edits *dst, const struct exp_edits *src);
void exp_edits_release(struct exp_edits *e);
/* One list as the results file records it: a JSON array of strings (heap). */
char *exp_edits_json(char *const *v, size_t n);
/* The edits a results file records (its overrides, mode_filter and workload_filter: each a
 * JSON array of strings, or NULL/"" when absent) into *out (the caller's,
 * exp_edits_release).  0, or -1 with *cause a heap message (the key that is not an array
 * of strings). */
int exp_edits_from_json(const char *sets, const char *modes, const char *workloads,
			struct exp_edits *out, char **cause);

struct experiment {
	int64_t schema;        /* schema = 1 */
	char *name;            /* [A-Za-z0-9._-]+, used in the results file name */
	char *description;
	char *backend;         /* "auto" or a backend registry name (kernels/backend.h) that this
				* build has; the default of modes that name none */
	int64_t repeats;       /* blocks; >= 1 */
	int repeats_line, repeats_col; /* where `repeats` is written (0: not written, the
				* default); after experiment_apply_on, the [on.BACKEND]'s */
	uint64_t seed;
	enum order_kind order;
	enum unit_scope unit_scope; /* `unit_scope`: "mode" (default) or "workload" */
	double unit_timeout_s; /* per unit; SIGTERM, then SIGKILL after a grace period */
	double margin;         /* equivalence margin for verdicts (0.02 = +-2%); NAN when unset */
	struct measure_settings measure;
	struct run_settings run;
	struct seq_settings seq;
	struct limit_settings limits;
	struct workload *workloads;
	size_t nworkloads;
	struct mode *modes;
	size_t nmodes;
	struct backend_settings *on; /* [on.BACKEND] tables */
	size_t non, onc;
	size_t nmodes_left_out; /* modes[nmodes ...] left out of this run by `only_on` (sched);
				 * owned, freed with the rest */
	size_t baseline;       /* index into modes */
	char **hypotheses;     /* paths as written (relative to the experiment file's folder) */
	size_t nhypotheses;
	char **env_pass;       /* [environment] pass: extra variable names units inherit */
	size_t nenv_pass;
	struct env_var *env_set; /* [environment] set: NAME = "value" given to every unit */
	size_t nenv_set;
	int no_sandbox;        /* [environment] sandbox = false: units run outside the sandbox
				* (sandbox.h; the audit's isolation check WARNs) */

	struct exp_edits edits; /* what the command line applied to the file (owned) */
	int has_axes;          /* some [[modes]] or [[workloads]] entry was expanded by `axes` */
	char *path;            /* the file it was loaded from */
	char *text;            /* the file verbatim (NUL-terminated), len text_len */
	size_t text_len;
	char sha256[65];       /* of text */
};

/* Parse and validate an experiment from memory.  path is used in messages and to find the
 * hypothesis files (relative to its folder), which must exist.
 * On success returns 0 and *out (caller frees with experiment_free).  On failure returns -1,
 * *out is NULL and *cause is a heap message "'path':line:col: what" (caller prints and frees). */
int experiment_parse(const char *path, const char *text, size_t len, struct experiment **out,
		     char **cause);
/* Read path and parse it; reports the error itself and returns -1 on failure. */
int experiment_load(const char *path, struct experiment **out);
/* The same with flags: EXPERIMENT_NO_FILE_CHECKS skips the check that the hypothesis files
 * exist (a unit reads the run folder's copy of the experiment, away from them);
 * EXPERIMENT_PAST_RUN reads an experiment recorded by an earlier run: names checked against
 * today's registries (tuners, ops, models, the backends this build has) and the tuners'
 * option checks are not errors there (a tuner may have been renamed or removed since, the
 * run may come from a build with another backend): only the file's own structure is. */
#define EXPERIMENT_NO_FILE_CHECKS 0x1
#define EXPERIMENT_PAST_RUN 0x2
int experiment_parse_flags(const char *path, const char *text, size_t len, unsigned flags,
			   struct experiment **out, char **cause);
int experiment_load_flags(const char *path, unsigned flags, struct experiment **out);
/* The same with the run's edits (NULL: none) applied to the parsed text before the
 * experiment is built: -D values first (an error in one names `-D KEY=VALUE`), then the
 * axes expanded, then the filters.  text, its SHA-256 and path stay the file's. */
int experiment_parse_edits(const char *path, const char *text, size_t len, unsigned flags,
			   const struct exp_edits *ed, struct experiment **out, char **cause);
int experiment_load_edits(const char *path, unsigned flags, const struct exp_edits *ed,
			  struct experiment **out);
void experiment_free(struct experiment *e);
/* Free the strings and shape a workload owns (w itself is the caller's): a loaded
 * experiment's, or one read back from a unit specification (unitspec.c). */
void workload_release(struct workload *w);

/* Lookups; return NULL / -1 when absent. */
const struct mode *experiment_mode(const struct experiment *e, const char *name);
ssize_t experiment_mode_index(const struct experiment *e, const char *name);
const struct tuner_option *mode_option(const struct mode *m, const char *key);
/* 1 when a and b time their commands alike (timing and the process-timing keys). */
int mode_process_equal(const struct mode *a, const struct mode *b);
/* The unit timeout of mode m: its own `timeout`, else the experiment's unit_timeout. */
double mode_timeout(const struct experiment *e, const struct mode *m);
/* The backend mode m asks for: its own `backend`, else the experiment's (borrowed). */
const char *mode_backend(const struct experiment *e, const struct mode *m);
/* 1 when mode m runs the workload called name: m has no `workloads`, or names it; else 0.
 * Whether its backend runs it too (a workload's `only_on`) is backend_workload_for's. */
int mode_has_workload(const struct mode *m, const char *name);

/* Use e's [on.backend] settings (repeats, measure), when it has a table for backend: for a
 * run whose modes all run there (the scheduler). */
void experiment_apply_on(struct experiment *e, const char *backend);
/* The measure settings of a unit of mode m on backend (a registry name, "command" too): e's
 * [on.backend] [measure] when it has that table, else its [measure], with m's
 * [modes.measure] keys over them.  The one place a unit's settings are composed: the unit
 * specification (unitspec.c), the unit's thread variables (unitenv.c) and the scheduler's
 * checks all take them from here. */
struct measure_settings experiment_unit_measure(const struct experiment *e, const struct mode *m,
						const char *backend);
/* base with mode m's [modes.measure] keys over it: what m's units measure by. */
struct measure_settings experiment_mode_measure(struct measure_settings base, const struct mode *m);
/* 1 when a and b set every measure key alike. */
int experiment_measure_equal(const struct measure_settings *a, const struct measure_settings *b);
/* m's [modes.measure] as written keys and values, "flush = true, max_samples = 7" (heap), or
 * NULL when it sets none. */
char *experiment_mode_measure_text(const struct mode *m);
/* Every [measure] key of ms, "warmup_time = 0.05, warmup_count = 3, ...", in the keys'
 * order, as the file writes them (seconds bare): heap (`harness check --settings`). */
char *experiment_measure_text(const struct measure_settings *ms);

#endif
