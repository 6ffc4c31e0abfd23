/* hypothesis.h: pre-registered hypothesis files (docs/hypothesis-format.md): parse them,
 * record whether each was committed in git before a run, and decide each hypothesis
 * CORROBORATED, FALSIFIED or INCONCLUSIVE from a run's report (report.h).
 *
 * Lifecycle in a run (the scheduler, sched.c):
 *   1. at run start, for the n-th attached hypothesis file (0-based, the order in which the
 *      files are added to rec_meta with role "hypothesis"), call
 *      hyp_capture_git(path, meta, n) before rec_create(): it stores the file's git state as
 *      run metadata (hypothesis_<n>_path, _abspath, _git_commit, _git_time, _git_clean,
 *      _git_state);
 *   2. with --require-preregistered, call hyp_require_preregistered(meta) after the
 *      captures and before anything is written: -1 means refuse the run (exit 2);
 *   3. at run end (after end_utc and status are written and the file is closed), call
 *      hyp_evaluate_run(results_path, stdout) to print the verdict table.
 * `harness verify` (cmd-verify.c) does 3 with options and extra files: hyp_set_load(),
 * hyp_evaluate(), hyp_eval_write().
 *
 * Ownership: every struct here owns all it points to, except where a field says
 * "borrowed"; each *_free() accepts NULL.  Functions that can fail report once (util.h
 * error()) and return -1, except hyp_file_parse(), which fills *cause for its caller. */
#ifndef HARNESS_HYPOTHESIS_H
#define HARNESS_HYPOTHESIS_H

#include <stddef.h>
#include <stdio.h>

#include "harness/analysis/analysis.h"
#include "harness/record/recorder.h"
#include "harness/analysis/report.h"
#include "harness/config/toml-bridge.h"

#define HYP_SCHEMA 1

enum hyp_prediction {
	HYP_PRED_NONE = 0, /* explicit criteria only */
	HYP_PRED_FASTER,
	HYP_PRED_SLOWER,
	HYP_PRED_SAME,
	HYP_PRED_NOT_FASTER,
	HYP_PRED_NOT_SLOWER
};
enum hyp_scope { HYP_SCOPE_ALL = 0, HYP_SCOPE_OPS, HYP_SCOPE_E2E, HYP_SCOPE_CELLS };
enum hyp_aggregate {
	HYP_AGG_EACH = 0,
	HYP_AGG_ALL,
	HYP_AGG_ANY,
	HYP_AGG_AT_LEAST,
	HYP_AGG_GEOMEAN,
	HYP_AGG_OP_VS_E2E
};
enum hyp_op { HYP_OP_LT = 0, HYP_OP_LE, HYP_OP_GT, HYP_OP_GE, HYP_OP_EQ, HYP_OP_NE };
enum hyp_verdict { HYP_CORROBORATED = 0, HYP_FALSIFIED, HYP_INCONCLUSIVE };
enum hyp_status { HYP_PREREGISTERED = 0, HYP_UNCOMMITTED, HYP_MODIFIED, HYP_POSTHOC };

const char *hyp_verdict_name(enum hyp_verdict v); /* "CORROBORATED", ... */
const char *hyp_status_name(enum hyp_status s);   /* "PRE-REGISTERED", ... */

/* A criterion: statistic, operator, value (scienceverse's result, operator, comparator). */
struct hyp_criterion {
	char *id;
	char *statistic;   /* one of the statistics of the hypothesis's targets */
	enum hyp_op op;
	double value;      /* numeric statistics */
	char *svalue;      /* "verdict": FASTER, SLOWER, SAME or INCONCLUSIVE; else NULL */
	struct tb_pos pos;
};

/* A boolean expression over criteria ("a and (b or not c)"). */
struct hyp_expr {
	enum { HYP_X_CRIT, HYP_X_NOT, HYP_X_AND, HYP_X_OR } kind;
	size_t crit;                /* HYP_X_CRIT: index into the hypothesis's criteria */
	struct hyp_expr *l, *r;     /* operands (HYP_X_NOT uses l) */
};

struct hypothesis {
	char *id, *claim;
	int primary;
	char **modes;               /* compared modes; "*": every mode but the baseline and
	                               A/A copies; empty for op-vs-e2e */
	size_t nmodes;
	char *baseline;             /* NULL: the run's (or verify --baseline) */
	enum hyp_scope scope;
	char *workload;             /* NULL: every workload */
	char **cells;               /* HYP_SCOPE_CELLS */
	size_t ncells;
	enum hyp_aggregate aggregate;
	size_t at_least;            /* HYP_AGG_AT_LEAST */
	enum hyp_prediction prediction;
	double min_effect;          /* NAN: the report's margin */
	double alpha;               /* NAN: verify --alpha, else 0.05 */
	struct hyp_criterion *crit; /* explicit criteria (none: from the prediction) */
	size_t ncrit;
	struct hyp_expr *corroborate, *falsify; /* NULL with no explicit criteria */
	/* where things are written, for the errors found when evaluating */
	struct tb_pos pos, modes_pos, baseline_pos, cells_pos, workload_pos, at_least_pos;
};

struct hyp_file {
	char *path;                 /* as given (or as recorded) */
	char sha256[65];
	char *text;                 /* the bytes, NUL-terminated */
	size_t len;
	char *description;          /* NULL when none */
	struct hypothesis *h;
	size_t nh;
};

/* Parse len bytes of a hypothesis file that came from path (used in messages).  0 and *out
 * (the caller's), or -1 with *out NULL and *cause a heap "'path':LINE:COL: message". */
int hyp_file_parse(const char *path, const char *text, size_t len, struct hyp_file **out,
		   char **cause);
/* Read and parse path; reports and returns -1. */
int hyp_file_load(const char *path, struct hyp_file **out);
void hyp_file_free(struct hyp_file *f);

/* ---- pre-commitment ---------------------------------------------------------------- */

/* Run git (through spawn.h, in the file's folder) on path and store, as rec_meta keys with
 * prefix "hypothesis_<index>_": path (as given), abspath, git_commit (the commit that last
 * touched it, "" when none), git_time (its committer date, ISO 8601, "" when none),
 * git_clean ("1": tracked, committed and without changes at this moment; else "0") and
 * git_state ("clean", "modified", "staged", "untracked", "ignored", "not-committed",
 * "not-a-repository", "git-failed").  No git, or a file outside a repository, is not an
 * error: it is recorded as such.  Reports and returns -1 only when path cannot be
 * resolved. */
int hyp_capture_git(const char *path, struct rec_meta *meta, size_t index);
/* For `harness run --require-preregistered`: 0 when every hypothesis_<n>_git_clean in meta
 * is "1"; else reports each file that is not ("'h.toml' is not pre-registered: it has
 * uncommitted changes") and returns -1. */
int hyp_require_preregistered(const struct rec_meta *meta);

/* ---- the files of one evaluation, with their status -------------------------------- */

struct hyp_entry {
	struct hyp_file *file;
	enum hyp_status status;
	char *why;                  /* one line: why the status */
	int recorded;               /* 1: read from the results file */
};
struct hyp_set {
	struct hyp_entry *e;
	size_t n;
};
/* The hypothesis files recorded in meta (from their recorded bytes, with their status from
 * the captured git state and the bytes now on disk), then each of extra[] (POST-HOC, unless
 * its bytes equal a recorded file's: then it is that file and adds nothing).  results_path
 * is for messages.  Reports and returns -1 when a file does not parse. */
int hyp_set_load(const char *results_path, const struct rec_meta *meta,
		 const char *const *extra, size_t nextra, struct hyp_set **out);
void hyp_set_free(struct hyp_set *s);

/* ---- evaluation ---------------------------------------------------------------------- */

struct hyp_eval_opts {
	struct report_opts ro;      /* ro.baseline: for hypotheses naming none; ro.alpha: for
	                               hypotheses without alpha; ro.margin: for those without
	                               min_effect (NAN: the report's margin) */
	const struct report *report; /* optional, borrowed: a report already built from the same
	                               analysis with ro, reused for its baseline (NULL: none) */
};
void hyp_eval_opts_init(struct hyp_eval_opts *o);

enum hyp_target_kind { HYP_T_CELL = 0, HYP_T_GEOMEAN, HYP_T_TAU };

/* One thing a hypothesis is decided on: a (mode, cell) comparison, a mode's geometric mean
 * over the scope, or a workload's Kendall tau. */
struct hyp_target {
	enum hyp_target_kind kind;
	char *label;                /* "fast/net/e2e", "fast/geomean(net: 3 cells)", "tau(net)" */
	char *mode;                 /* NULL for tau */
	int ok;                     /* 0: no statistics (note says why) */
	char note[128];
	size_t n;                   /* pairs; cells of the geomean; modes ranked */
	double ratio, hl_ratio, lo, hi, tau;
	double p_raw, p;            /* p: Holm-adjusted within the primaries' family, else p_raw */
	int in_family;              /* 1: p is Holm-adjusted */
	double mde, repeats;        /* minimum detectable effect; blocks to detect min_effect */
	enum stats_verdict verdict; /* stats_decide(lo, hi, p, alpha, min_effect) */
	enum hyp_verdict result;
};

struct hyp_result {
	const struct hyp_entry *entry;      /* borrowed from the set */
	const struct hypothesis *h;         /* borrowed */
	double alpha, min_effect;           /* as used */
	const char *min_effect_source;      /* "hypothesis", "option", "experiment", ... */
	char *baseline;
	struct hyp_criterion *crit;         /* as used: explicit, or from the prediction */
	size_t ncrit;
	char *corroborate, *falsify;        /* the expressions as text */
	struct hyp_expr *cx, *fx;           /* and parsed, over crit */
	int uses_p;                         /* the rule reads p or verdict */
	struct hyp_target *t;
	size_t nt;
	enum hyp_verdict verdict;
	int exploratory;                    /* the file is not PRE-REGISTERED */
	char *deciding;                     /* the numbers that decided it, one line */
	double mde;                         /* largest over the deciding targets, NAN if none */
	double repeats;                     /* blocks that would decide it, NAN if unknown */
};

struct hyp_eval {
	const struct analysis *a;           /* borrowed */
	const struct hyp_set *set;          /* borrowed */
	struct hyp_result *r;
	size_t nr;
	size_t family;                      /* p-values in the primaries' Holm family */
	int prereg_primary_falsified;       /* 1: exit code 3 */
};

/* Decide every hypothesis of every file in s on the run a.  Unknown modes, cells,
 * workloads and baselines are reported as 'file':LINE:COL: errors listing the valid names,
 * and return -1. */
int hyp_evaluate(const struct analysis *a, const struct hyp_set *s,
		 const struct hyp_eval_opts *o, struct hyp_eval **out);
void hyp_eval_free(struct hyp_eval *e);
/* REPORT_MD or REPORT_JSON; -1 on a write error (reported). */
int hyp_eval_write(const struct hyp_eval *e, enum report_format fmt, FILE *out);

/* For the end of `harness run`: evaluate the hypotheses recorded in results_path with the
 * default options and print the markdown table to out.  Prints nothing when the run has
 * no hypothesis files.  Returns 1 when a pre-registered primary hypothesis was FALSIFIED,
 * 0 otherwise, -1 on an error (reported). */
int hyp_evaluate_run(const char *results_path, FILE *out);

#endif
