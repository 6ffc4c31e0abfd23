/* replay.h: re-running tuners offline on one unit's recorded trials (an exhaustive unit's,
 * usually): no compiler, no device.  The recorded samples of a trial stand in for
 * benchmarking it; the tuning driver (kernels/tune.h) is the live one, so a replay with
 * the same measurements and seed makes the same choices as the live run.  Scores follow
 * the autotuning-methodology convention: 0 = the expected best of random search at that
 * budget, 1 = the best config known (docs/replay.md). */
#ifndef HARNESS_REPLAY_H
#define HARNESS_REPLAY_H

#include <stddef.h>
#include <stdint.h>

struct replay_opts {
	/* What to replay (borrowed), ntuners of them, each "NAME" (default options),
	 * "NAME:KEY=VALUE:KEY=VALUE..." (scalar options: true/false, integers, numbers, else
	 * strings; checked by the tuner's check_options) or "mode:MODE" (the tuner and the
	 * options of a mode of the recorded experiment).  docs/replay.md. */
	char **tuners;
	size_t ntuners;
	int64_t budget_trials;  /* > 0, or 0 with budget_ns */
	int64_t budget_ns;      /* > 0: a budget of recorded compile + check + benchmark time */
	size_t seeds;           /* >= 1 */
	long unit;              /* the source unit's plan id; -1: the ok unit with most trials */
	int noise;              /* 1: each trial's samples redrawn with replacement */
	/* Where a tuner that starts from a point (coordinate descent, beam) starts: NULL or
	 * "heuristic" (the heuristic tuner's recorded choice for the cell, else the first valid
	 * point), "first" (the first valid grid point), "random" (a valid point drawn per seed)
	 * or a config ("BM=64,BN=128"), which every replayed cell must hold */
	const char *start;
	/* What a config scores as, for the tuners and the curves: its samples' median
	 * (REPLAY_MEDIAN, the default), mean or least sample, or the value its source stored
	 * (REPLAY_SOURCE: an imported cache's `time`, what autotuning-methodology scores; the
	 * samples' median where a trial has none) */
	enum replay_objective { REPLAY_MEDIAN = 0, REPLAY_MEAN, REPLAY_MIN, REPLAY_SOURCE }
		objective;
	/* --score methodology: autotuning-methodology's score beside harness's own, at the
	 * cutoff percentiles p_end and p_start (0.96 and 0.5: the paper's) on res time points */
	int methodology;
	double p_end, p_start;
	size_t res;
};
/* "median", "mean", "min", "source" */
const char *replay_objective_name(enum replay_objective k);

/* One tuner on one op cell, over seeds. */
struct replay_row {
	char *tuner, *cell;
	size_t nvalid, nmeasured;  /* valid grid points; of them ok and measured */
	double best_ns;            /* the best known (the source's fastest ok point, by the
				    * objective) */
	/* budget_trials long: the normalised best-so-far over seeds: its mean with Student's t
	 * 95% CI (score_lo, score_hi), and its median */
	double *score_mean, *score_lo, *score_hi, *score_med;
	double *seed_best_ns;      /* seeds x budget_trials, seed-major: each seed's best-so-far
				    * (the recorded median of its best config; the slowest ok
				    * median before its first ok trial) */
	double *random_ns;         /* budget_trials long: expected best of random search over
				    * the valid points (a point not ok standing at the slowest) */
	double ratio_med;          /* true median of the chosen config / best_ns, median over seeds */
	double trials_med;         /* trials spent, median over seeds */
	char *config;              /* the config chosen with seed 0 */
	int64_t to95;              /* first budget where the mean score >= 0.95; -1: never */
	size_t unmeasured;         /* proposals of a config the source never measured (penalty) */
	/* --score methodology: autotuning-methodology's score (replay-method.c) */
	struct replay_method {
		int ok;                  /* 0: not computed (why says why) */
		char *why;
		int64_t fevals_start, fevals_end, budget; /* the budget range, and the runs' */
		double time_start, time_end;  /* seconds */
		double t_med, t_pf;      /* a point's median time; the mean time per evaluation */
		double opt, median;      /* of the ok values */
		double score;            /* seeds pooled, as the package pools repeats */
		double seed_mean, seed_lo, seed_hi; /* each seed alone: mean, Student's t 95% CI */
		double *seed_score;      /* seeds long */
		double *curve, *baseline, *time_range; /* res long: standardised curve, B, seconds */
		size_t res;
	} m;
};

/* One tuner over the replay's cells: the mean, standard deviation, least and greatest of its
 * cells' mean scores at the full budget (replay_aggregate). */
struct replay_agg {
	const char *tuner;         /* borrowed from its first row */
	size_t ncells;
	double mean, sd, min, max;
	/* --score methodology: the mean over the cells of their scores, and the package's
	 * "error", the standard deviation over the time axis of the cells' mean curve */
	size_t mcells;
	double mscore, merror;
};

struct replay {
	char *path;
	int64_t unit;              /* the source unit's plan id */
	char *source_mode;
	int64_t budget;            /* trials on the curves (the trial budget, or with a seconds
				    * budget the most valid points of a cell) */
	int64_t budget_ns;         /* the seconds budget, or 0 */
	size_t seeds;
	int noise;
	char *start;               /* the start as asked ("heuristic" by default) */
	enum replay_objective objective;
	int methodology;           /* --score methodology: rows' m and agg's mscore are set */
	double p_end, p_start;
	size_t res;
	struct replay_row *rows;
	size_t nrows;
	size_t nsources;           /* results files merged in (replay_merge); 0: this one alone */
	struct replay_agg *agg;    /* per tuner over the cells, in the rows' tuner order */
	size_t nagg;
	char **left_out;           /* "cell: why" for each op cell of the source with a recorded
				    * space that could not be replayed (over the space limits, no
				    * ok trial); each also warned of on stderr */
	size_t nleft_out;
};

/* Replay o's tuners on the results file at path.  0 and *out (replay_free), or -1
 * reported (a bad file, no usable unit, an unknown tuner). */
int replay_run(const char *path, const struct replay_opts *o, struct replay **out);
void replay_free(struct replay *r);
/* Fill r->agg from r's rows (replay_run does; replay-agg.c). */
void replay_aggregate(struct replay *r);
/* Move from's rows and left-out cells into `into`, each cell named "FILE: cell" (into's own
 * too, at the first merge), and aggregate again: one table over every file's spaces.  The
 * budgets must be alike (-1 reported otherwise); from keeps its header (free it). */
int replay_merge(struct replay *into, struct replay *from);

/* The expected minimum of t draws without replacement from the n values v (sorted
 * ascending): sum_i v_i C(n - i - 1, t - 1) / C(n, t), i 0-based. */
double replay_expected_min(const double *v, size_t n, size_t t);

#endif
