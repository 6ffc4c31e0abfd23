/* experiment-int.h: what the parts of the experiment parser share (experiment.c: the root
 * table, [measure], [environment], hypotheses and the entry points; experiment-get.c: typed
 * values with their range checks; experiment-workloads.c: [[workloads]];
 * experiment-modes.c: [[modes]] and the tuners' option checks).  Private to
 * harness/config/experiment*.c.  Every function reports through the parser (tc_fail: the
 * cause with file:line:col) and returns -1, or 0. */
#ifndef HARNESS_EXPERIMENT_INT_H
#define HARNESS_EXPERIMENT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "harness/config/experiment.h"
#include "harness/config/tomlcheck.h"

/* Defaults and limits (docs/experiment-format.md). */
#define DEFAULT_REPEATS 5
#define MAX_REPEATS EXPERIMENT_MAX_REPEATS
#define DEFAULT_SEED 1
#define DEFAULT_UNIT_TIMEOUT_S 600.0
#define DEFAULT_WARMUP_S 0.05
#define DEFAULT_WARMUP_COUNT 3
#define DEFAULT_MIN_SAMPLES 10
#define DEFAULT_MAX_SAMPLES 200
#define DEFAULT_MAX_TIME_S 2.0
#define DEFAULT_TARGET_PRECISION 0.01
#define DEFAULT_TRIAL_SAMPLES 5
#define DEFAULT_THREADS 1
#define MAX_COUNT 1000000000 /* warmup_count */
#define MAX_SAMPLES 10000000 /* min_samples, max_samples, trial_samples */
#define MAX_THREADS 4096
#define MAX_JOBS 4096   /* [run] jobs, as --jobs */
#define MAX_GPU_INDEX 1023 /* [run] gpus entries */
#define DEFAULT_BATCH 1
#define MAX_BATCH 65536
#define DEFAULT_RESOLUTION 224
#define MIN_RESOLUTION 8
#define MAX_RESOLUTION 16384
#define MAX_SHAPE_DIM INT32_MAX
#define MAX_EXPERIMENT_NAME 200
#define DEFAULT_DTYPE "float32"
#define NUM_LO_OPEN 0x1 /* the lower bound itself is excluded */
#define NUM_HI 0x2      /* there is an upper bound, and it is excluded */
#define MAX_UNIT_TIMEOUT_S (7 * 86400.0) /* unit_timeout: 7 days */
#define MAX_MEASURE_TIME_S 86400.0      /* warmup_time, max_time: 1 day */

/* ---- typed values (experiment-get.c) ---- */
/* An integer in [min, max]; max INT64_MAX means "no upper bound" in the message. */
int exp_get_int(struct tc_parser *p, const struct tc_field *f, int64_t min, int64_t max,
		   int64_t *out);
/* A finite number (integer or float) above lo, and below hi when flags has NUM_HI. */
int exp_get_number(struct tc_parser *p, const struct tc_field *f, double lo, double hi,
		      unsigned flags, double *out);
/* A duration in seconds: a number as get_number takes it, and at most max_s (phrase: the
 * bound in words, for the message). */
int exp_get_duration(struct tc_parser *p, const struct tc_field *f, unsigned flags, double max_s,
			const char *phrase, double *out);
int exp_get_bool(struct tc_parser *p, const struct tc_field *f, int *out);
/* A string without NUL bytes, copied to a new heap string in *out (freeing the old one). */
int exp_get_string(struct tc_parser *p, const struct tc_field *f, char **out);
int exp_is_name(const char *s);
/* A table of NAME = "value" ([environment] set, [modes.environment]) into a new heap array
 * *out of *n variables (those parsed so far when it fails): a name that is not an
 * environment variable's, or one the harness sets for every unit (unitenv_vars), is
 * refused at its line and column. */
int exp_get_env_table(struct tc_parser *p, const struct tc_field *f, struct env_var **out,
		      size_t *n);
/* A name: [A-Za-z0-9._-]+ (experiment, workload and mode names). */
int exp_get_name(struct tc_parser *p, const struct tc_field *f, char **out);
/* One of names (NULL-terminated); *out gets its index. */
int exp_get_enum(struct tc_parser *p, const struct tc_field *f, const char *const *names, int *out);
/* An array of strings into a new heap vector *out of *n copies. */
int exp_get_string_list(struct tc_parser *p, const struct tc_field *f, char ***out, size_t *n);
/* An array of tables ([[key]]) with at least one entry. */
int exp_want_table_array(struct tc_parser *p, const struct tc_field *f);
/* backend = "auto" or a registry name (backend.h) that this build has, refused at its
 * line:col otherwise. */
/* `only_on`: one backend name of the registry (built or not), never "auto". */
int exp_get_only_on(struct tc_parser *p, const struct tc_field *f, char **out);
int exp_get_backend(struct tc_parser *p, const struct tc_field *f, char **out);

/* The fault names a mode may inject ("none", "crash", ...), NULL-terminated. */
extern const char *const exp_fault_names[];

/* [[workloads]] (experiment-workloads.c), [[modes]] and the tuners' option checks, which
 * need every mode and workload parsed first (experiment-modes.c). */
int exp_parse_workloads(struct tc_parser *p, const struct tc_field *f, struct experiment *e);
/* 0, or an error at the workload when a model the catalog does not know has a mode that is
 * not a command mode to run it. */
int exp_check_models(struct tc_parser *p, const struct experiment *e);
int exp_parse_modes(struct tc_parser *p, const struct tc_field *f, struct experiment *e);
/* Each mode's tuner's check of its options, then the files it names (experiment-tuners.c). */
int exp_check_tuner_options(struct tc_parser *p, const struct experiment *e);
/* The folder of the experiment file at path (heap, absolute when it exists). */
char *exp_experiment_dir(const char *path);
/* A path as a unit will run it: an absolute path, or one that names an existing file in dir
 * (the experiment's folder), else in the kernel folder; heap, or NULL when neither has it. */
char *exp_resolve_in(const char *dir, const char *rel);
/* 1 when two NULL-terminated string vectors (either may be NULL) hold the same strings. */
int exp_strv_equal(char *const *a, char *const *b);
/* Each mode's `workloads` against the experiment's [[workloads]], the baseline's and the A/A
 * copies' rules; f is the [[modes]] field (for the entries' line:col), after both arrays
 * are parsed. */
int exp_check_mode_workloads(struct tc_parser *p, const struct tc_field *f,
			     const struct experiment *e);
/* A [measure] table (the root's, an [on.BACKEND]'s or a mode's: then *set gets a bit per
 * key written, in the measure_keys order experiment_mode_measure follows). */
int exp_parse_measure(struct tc_parser *p, const struct tc_field *f, struct measure_settings *m,
		      unsigned *set);
/* Each mode's [modes.measure] over the run's [measure] (and each [on.BACKEND]'s): still
 * min_samples <= max_samples; an A/A copy measures as its original.  After parse_on. */
int exp_check_mode_measure(struct tc_parser *p, const struct tc_field *f,
			   const struct experiment *e);
/* The run's edits on the parsed document (experiment-edit.c): -D values merged in,
 * [[modes]] and [[workloads]] entries with `axes` expanded, the --mode and --workload
 * filters; p->sets is ed's (for the -D messages).  Then the walk reads root as the file. */
#define MAX_AXES_PRODUCT 1000 /* entries one [[modes]] or [[workloads]] entry expands to */
int exp_apply_edits(struct tc_parser *p, struct tb_node *root, const struct exp_edits *ed,
		    int *has_axes);
/* Free what a command mode holds (command, command_argv, env). */
void exp_free_mode_command(struct mode *m);

/* ---- timing = "process" (experiment-process.c) ---- */
/* One key of a [[modes]] table if it is `timing` or a process-timing key: 0 parsed, -1
 * failed, 1 not one of them.  *first gets the position of the first process-timing key
 * (not `timing`), its key borrowed from the tree, when it has none yet. */
int exp_parse_mode_process_key(struct tc_parser *p, const struct tc_field *g, struct mode *m,
			       struct tc_field *first);
/* After the mode's keys: timing = "process" needs a command and takes neither
 * [modes.measure] nor `expects`; the process-timing keys need it (first: the first
 * written, key NULL: none); fills the defaults.  Positions of line 0: key not written. */
int exp_check_mode_process(struct tc_parser *p, struct mode *m, int has_command,
			   struct tb_pos timing, const struct tc_field *first, int has_measure,
			   struct tb_pos measure, int has_expects, struct tb_pos expects);
void exp_free_mode_process(struct mode *m);

#endif
