/* tune.h: the tuning driver: one tuner over one op cell's space, against anything that
 * measures configs.  The worker measures live (its backend's prepare and sample); a replay
 * of a results file measures from the recorded trials, with no compiler or device.  The
 * driver owns the loop (propose, measure, observe, choose, fall back to the vendor path),
 * so both give the same choices for the same measurements and seed. */
#ifndef HARNESS_TUNE_H
#define HARNESS_TUNE_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/sample.h"
#include "kernels/space.h"
#include "kernels/tuner.h"

/* One measured proposal, as the measurer fills it. */
struct tune_trial {
	enum trial_status status;
	int cache_hit;         /* its compiled kernel came from the cache */
	int64_t compile_ns;    /* compiler time (0 on a hit) */
	int64_t check_ns;      /* time checking it against the reference */
	int64_t bench_ns;      /* wall time of taking its samples */
	struct sample *samples; /* heap, nsamples long (0 when not benchmarked); owned */
	size_t nsamples;
	char *detail;          /* heap message on a failed status, or NULL; owned */
};
void tune_trial_release(struct tune_trial *t);

/* Something that measures configs of one cell. */
struct tune_measurer {
	void *ctx;
	/* Make c current (compile, check) and, when nsamples > 0 and it is correct, take
	 * nsamples samples of it into *out (zeroed by the caller; the driver releases it).
	 * A bad config is a status; -1 with *cause (heap) only when measuring itself failed. */
	int (*trial)(void *ctx, const struct config *c, int64_t nsamples, struct tune_trial *out,
		     char **cause);
	/* Optional (NULL: nothing): the configs the tuner will propose, before the first is
	 * measured (when its plan() knows them), so that they can be compiled together, in
	 * parallel.  A failure here is not an error: trial() meets it again.  Called again
	 * with c NULL and n 0 when the search ends: nothing more of the plan is needed. */
	void (*ahead)(void *ctx, const struct config *c, size_t n);
	/* Optional (NULL: nothing): told of every trial after it was measured, with its
	 * median (NaN without samples), e.g. to record it.  -1 with *cause stops tuning. */
	int (*record)(void *ctx, const struct config *c, const struct tune_trial *t,
		      double median_ns, char **cause);
};

/* How the config a cell is measured with was chosen. */
enum tune_reason {
	TUNE_NONE = 0,       /* nothing usable and no vendor path: the cell cannot be measured */
	TUNE_VENDOR,         /* a tuner that neither compiles nor benchmarks: "vendor" */
	TUNE_RULE,           /* compiled and checked, never timed: "rule" */
	TUNE_TUNED,          /* the fastest of the timed proposals: "tuned" */
	TUNE_FALLBACK_VENDOR /* the tuner chose nothing usable; the first vendor candidate */
};
const char *tune_reason_name(enum tune_reason r); /* "", "vendor", "rule", "tuned", "fallback-vendor" */

struct tune_result {
	struct config best;    /* valid unless reason is TUNE_NONE */
	enum tune_reason reason;
	int64_t ntrials;       /* proposals measured */
	int64_t benchmarks;    /* proposals timed */
	int64_t compile_ns, check_ns, bench_ns; /* summed over the trials (duels included) */
	/* accept = "paired" (docs/kernels.md): duels run, won, and what they cost */
	int64_t duels, duels_won, duel_ns;
	char note[512];        /* the tuner's note (tuner_ops.note), or "" */
	int fell_back;         /* 1: the note says the tuner fell back (tuner_ops.note's return) */
	int failed;            /* 1: tune_cell failed because the tuner did (tuner_ops.error), not
				* because it could not start or the measurer failed */
};

/* Tune one cell: ops->alloc with a (its space, cell, options, seed), m->ahead with the
 * tuner's plan when both exist (TUNE_AHEAD_MAX configs at a time), then next / measure /
 * observe until the tuner is done or the budget (max_trials, max_seconds, a's budgets) is
 * spent, then best (or the vendor fallback).  With the option accept = "paired", a trial
 * faster than the believed incumbent is re-measured against it in accept_repeats paired,
 * interleaved repeats before the tuner is told it is faster (docs/kernels.md).  trial_samples:
 * samples per proposal for a tuner with TUNER_BENCHMARKS.  Returns 0 with *out, or -1 with
 * *cause (heap) when the tuner cannot start, the measurer failed or the tuner failed while
 * tuning (tuner_ops.error; out->failed is then 1). */
#define TUNE_AHEAD_MAX 4096
int tune_cell(const struct tuner_ops *ops, const struct tuner_args *a, int64_t trial_samples,
	      const struct tune_measurer *m, struct tune_result *out, char **cause);

/* What tune_cell will propose for cell a with ops, in order, before it measures anything:
 * the tuner's plan (tuner_ops.plan) clipped to the trial budget (max_trials, the caller's
 * budget_trials), at most max configs into out; 0 when the tuner has no plan or cannot
 * start (tune_cell reports that).  For compiling a whole unit's configs ahead, every cell's
 * at once (harness/run/worker.c). */
size_t tune_plan(const struct tuner_ops *ops, const struct tuner_args *a, struct config *out,
		 size_t max);

/* The median of n samples' ns (NaN when n is 0), as the tuners see it. */
double tune_median_ns(const struct sample *s, size_t n);

#endif
