/* replay-int.h: replay's private pieces: one recorded op cell as a space of listed points with
 * each point's recorded trial (replay-cell.c builds it; replay.c re-runs tuners on it). */
#ifndef HARNESS_REPLAY_INT_H
#define HARNESS_REPLAY_INT_H

#include <stddef.h>
#include <stdint.h>

#include "harness/analysis/replay.h"
#include "harness/record/recorder.h"
#include "kernels/space.h"
#include "kernels/tune.h"

/* One valid point of a recorded cell, with its trial when the source measured it. */
struct rpoint {
	int measured;
	enum trial_status status;
	int64_t *ns;             /* its trial's samples (borrowed from the file's arrays) */
	size_t n;
	double median;           /* its value by the objective: the samples' median (or mean,
				    * least, the source's stored value); NaN when not ok */
	double time_s;           /* what measuring it took, as the methodology charges it:
				    * compile + benchmark + verification + the source's
				    * framework and strategy time, in seconds; NaN: none known */
	int64_t compile_ns, bench_ns;
};

/* One op cell of the source unit, as recorded: its space lists the valid points (the grid's
 * less the recorded exclusions, or, for an imported cache, the configurations measured), so a
 * space of any grid size replays without enumerating its grid. */
struct rcell {
	struct space s;
	char *names[SPACE_MAX_FIELDS];
	int64_t *vals[SPACE_MAX_FIELDS];  /* each field's values (owned; s borrows them) */
	char **labels[SPACE_MAX_FIELDS];  /* a float or string field's labels (owned) */
	struct config *points;   /* the valid points in grid order (s.listed; owned) */
	struct rpoint *pts;      /* per valid point (owned) */
	size_t npoints;
	double *ok;              /* the ok points' medians, ascending (owned) */
	size_t nok;
	struct config start;
	int have_start;          /* start is set: the heuristic's choice or --start's */
	int random_start;        /* --start random: start drawn per seed (replay_cell) */
	double worst;            /* the slowest ok median: what a failed proposal scores */
	/* one tuning's bookkeeping */
	enum replay_objective objective;
	uint64_t noise_rng;
	int noise;
	size_t unmeasured;
	double obs_best, true_best; /* best observed median so far, and its recorded median */
	double *curve;              /* true_best after each trial */
	int64_t budget, t;
	/* the methodology score's trajectory (replay-method.c), when these are set: after
	 * each trial the cumulative time charged (a point measured again costs 0) and
	 * true_best (NaN before the first ok one) */
	double *tcurve, *fcurve;
	unsigned char *seen;        /* per point: measured in this tuning */
	double tcum;
};

/* One tuner to replay: its ops, options and table, parsed from a --tuners spec. */
struct rtuner {
	const struct tuner_ops *ops;
	struct tuner_option *opts;
	size_t nopts;
	struct tuner_lut *lut;
	struct tuner_train *train;
	char *label;
};

/* What a results file holds that rcell_build reads, borrowed. */
struct rsource {
	const char *path;
	int64_t unit;                       /* the source unit's row */
	const struct rec_cell *cells;
	size_t ncells;
	const int64_t *tunit;
	const struct rec_trial *trials;
	size_t ntrials;
	const int64_t *ts_ns;               /* every trial's samples, in trial order */
	const size_t *ts_off, *ts_cnt;
	const struct rec_choice *choices;
	size_t nchoices;
	const struct rec_spaces *sp;
	int walked_all; /* the unit's mode ran the exhaustive tuner: its trials in a cell are
			 * every valid point, so a grid too large for the file to record its
			 * outcomes is replayed over them (rcell_build) */
};

/* 1 when space row's grid is too large for a results file to record its outcomes
 * (/space_invalid holds none of it; nvalid -1). */
static inline int rspace_unrecorded(const struct rec_space *row)
{
	return row->grid < 0 || row->grid > REC_MAX_POINTS;
}

/* Build the cell of space row si of src into *rc (zeroed here; rcell_release either way):
 * 0 built, 1 left out (*why, heap: over a limit, nothing ok; *warn 1 when the data cannot be
 * used rather than holds nothing to replay), -1 reported (--start names no valid point). */
int rcell_build(const struct rsource *src, size_t si, const char *start,
		enum replay_objective objective, struct rcell *rc, char **why, int *warn);
/* The objective's value of n samples (NaN for none); the median as tune_median_ns has it. */
double rcell_objective(enum replay_objective k, const int64_t *ns, size_t n);
void rcell_release(struct rcell *rc);
/* The measurer's callbacks over rc (replay.c): a trial is the point's recorded one. */
int rcell_trial(void *ctx, const struct config *c, int64_t n, struct tune_trial *out,
		char **cause);
int rcell_record(void *ctx, const struct config *c, const struct tune_trial *t,
		 double median_ns, char **cause);

/* ---- the methodology score (replay-method.c; docs/replay.md, "The methodology score") */

/* One cell's budget range and random baseline, as autotuning-methodology computes them. */
struct rmethod {
	double *asc;               /* the ok points' values, ascending (owned) */
	size_t n, nall;            /* ok points; points with a known time */
	double opt, median;
	double t_med, t_pf;        /* median time of a point; mean time per evaluation */
	int64_t fevals_start, fevals_end;
	double time_start, time_end; /* seconds */
	int64_t budget;            /* ceil(1.1 fevals_end) evaluations, at most the points */
	size_t res;                /* points on the time axis */
	double *time_range, *baseline; /* res long (owned) */
};
/* Fill *m for rc at the cutoff percentiles p_end, p_start over res time points.  0, or -1
 * with *why (heap): too few ok points, no times, an empty range. */
int rmethod_cell(const struct rcell *rc, double p_end, double p_start, size_t res,
		 struct rmethod *m, char **why);
void rmethod_release(struct rmethod *m);
/* The score of the trajectories of nseeds runs (t[k], y[k]: n[k] trials, cumulative seconds
 * and best-so-far, NaN before the first ok one), pooled as the package pools repeats: the
 * isotonic fit of the value's rank over time, held after the runs' median stop; its
 * standardised curve into curve (res long).  0 and *score, or -1 with *why (heap). */
int rmethod_score(const struct rmethod *m, double *const *t, double *const *y,
		  const size_t *n, size_t nseeds, double *curve, double *score, char **why);

#endif
