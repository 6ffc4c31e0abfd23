/* hyp.h: the verdicts of pre-registered hypotheses (docs/hypothesis-format.md):
 * the files of one evaluation with their pre-registration status (hyp-set.c), and each
 * hypothesis CORROBORATED, FALSIFIED or INCONCLUSIVE on a run's report (hyp-eval.c).
 * Reading the files is the configuration layer's (harness/config/hypothesis.h), their git
 * state in a results file the record layer's (harness/record/prereg.h), and writing the
 * verdicts the output layer's (harness/output/write.h: hyp_eval_write); `harness run`'s
 * closing verdicts are built by its caller (cmd-run.c) and written the same way.
 *
 * `harness verify` (cmd-verify.c): analysis_load(), hyp_set_load(), report_build(),
 * hyp_evaluate(), hyp_eval_write().
 *
 * Ownership: every struct here owns all it points to, except where a field says
 * "borrowed"; each *_free() accepts NULL.  Functions that can fail report once (util.h
 * error()) and return -1. */
#ifndef HARNESS_HYPOTHESIS_H
#define HARNESS_HYPOTHESIS_H

#include <stddef.h>

#include "harness/analysis/analysis.h"
#include "harness/analysis/report.h"
#include "harness/config/hypothesis.h"
#include "harness/record/recorder.h"

enum hyp_verdict { HYP_CORROBORATED = 0, HYP_FALSIFIED, HYP_INCONCLUSIVE };
enum hyp_status { HYP_PREREGISTERED = 0, HYP_UNCOMMITTED, HYP_MODIFIED, HYP_POSTHOC };

const char *hyp_verdict_name(enum hyp_verdict v); /* "CORROBORATED", ... */
const char *hyp_status_name(enum hyp_status s);   /* "PRE-REGISTERED", ... */

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
 * its bytes equal a recorded file's: then it is that file and adds nothing).  repo (NULL:
 * none): a git repository in which a file that was not committed where the run started
 * (a run from a bundle or a copy) is looked up by its recorded bytes; a commit that holds
 * them from before the run's start makes it PRE-REGISTERED (docs/hypothesis-format.md).
 * results_path is for messages.  Reports and returns -1 when a file does not parse. */
int hyp_set_load(const char *results_path, const struct rec_meta *meta,
		 const char *const *extra, size_t nextra, const char *repo, struct hyp_set **out);
void hyp_set_free(struct hyp_set *s);

/* ---- evaluation ---------------------------------------------------------------------- */

enum hyp_target_kind { HYP_T_CELL = 0, HYP_T_GEOMEAN, HYP_T_TAU, HYP_T_COMP };

/* One thing a hypothesis is decided on: a (mode, cell) comparison, a mode's geometric mean
 * over the scope, or a workload's Kendall tau. */
struct hyp_target {
	enum hyp_target_kind kind;
	char *label;                /* "fast/net/e2e", "fast/geomean(net: 3 cells)", "tau(net)" */
	char *mode;                 /* NULL for tau */
	int ok;                     /* 0: no statistics (note says why) */
	char note[128];
	size_t n;                   /* pairs; cells of the geomean; modes ranked */
	size_t nblocks;             /* blocks behind its CIs (cell: its pairs) */
	int ci_short;               /* too few blocks for a distribution-free CI at the
				     * report's level (stats_ci_short): its CI bounds are not
				     * statistics a criterion can use, its verdict INCONCLUSIVE */
	double spread;              /* spread_ratio: the mode's spread across units over the
				     * baseline's (cell), their median over the cells (geomean) */
	double ratio, hl_ratio, lo, hi, tau;
	double tau_pred, p_pred;    /* tau: the predicted (count x time) ranking's */
	/* composition (HYP_T_COMP; report.h struct rep_comp): ratio is the measured e2e
	 * ratio, lo and hi the interaction's CI */
	double pred, pred_lo, pred_hi, e2e_lo, e2e_hi, inter, cov, cov_lo, cov_hi, cov_mode,
		geomean;
	double floor;               /* cell: the cell's noise floor (report.h), NAN otherwise */
	double p_raw, p;            /* p: Holm-adjusted within the primaries' family, else p_raw */
	int in_family;              /* 1: p is Holm-adjusted */
	double mde, repeats;        /* minimum detectable effect; blocks to detect min_effect */
	double repeats_fixed;       /* blocks a fixed design needs to detect min_effect at the
				     * total alpha (a sequential run's, not its last look's) */
	enum stats_verdict verdict; /* stats_decide(lo, hi, p, alpha, floor, min_effect) */
	enum hyp_verdict result;
};

/* An e2e cell launched op by op that takes REP_HOST_BOUND or more times its workload's
 * graph e2e cell under the hypothesis's baseline (report_host_bound_ratio). */
struct hyp_host_bound {
	size_t cell, graph;                 /* the analysis's cells */
	double ratio;
	int left_out;                       /* 1: a primary hypothesis's scope held it, and it
					     * was left out of the decision */
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
	char *deciding;                     /* the numbers that decided it, one line (with the
					     * host-bound cells below named at its end) */
	struct hyp_host_bound *hb;          /* the e2e cells of its scope that time the host as
					     * much as the GPU (report.h, REP_HOST_BOUND) */
	size_t nhb;
	double mde;                         /* largest over the deciding targets, NAN if none */
	double repeats;                     /* blocks that would decide it, NAN if unknown */
	double repeats_fixed;               /* a fixed design's blocks to detect min_effect at
					     * the total alpha with 80% power, the largest over
					     * its targets (a sequential run's cost against it),
					     * NAN if unknown */
};

struct hyp_eval {
	const struct analysis *a;           /* borrowed */
	const struct hyp_set *set;          /* borrowed */
	struct hyp_result *r;
	size_t nr;
	size_t family;                      /* p-values in the primaries' Holm family */
	int prereg_primary_falsified;       /* 1: exit code 3 */
	const struct hypothesis **left_out; /* only_on a backend none of the run's modes ran
					     * on: not decided, listed by the writers (heap
					     * array, borrowed entries) */
	size_t nleft_out;
};

/* Decide every hypothesis of every file in s on the run rep->a, with rep's options: its
 * baseline for hypotheses that name none (verify --baseline, else the run's), its alpha
 * for those without alpha, its margin for those without min_effect, its seed and
 * resamples for the bootstraps.  rep is borrowed (and e->a points into it); hypotheses
 * naming another baseline get a report built here with rep's options (freed here).
 * Unknown modes, cells, workloads and baselines are reported as 'file':LINE:COL: errors
 * listing the valid names, and return -1 with *out NULL. */
int hyp_evaluate(const struct report *rep, const struct hyp_set *s, struct hyp_eval **out);
void hyp_eval_free(struct hyp_eval *e);

#endif
