/* stats.h: statistics on GSL, for deciding whether a mode differs from the baseline.
 * Data are passed GSL-style as (const double *x, size_t stride, size_t n) or plain arrays;
 * nothing here prints, allocates only what it frees, and reports bad input (n too small,
 * NaN, inf, non-positive ratios) by returning -1 with *cause (heap) where a function can
 * fail.  Every function names the formula or paper it implements and is checked against
 * SciPy reference values in tests/data/stats/ (made by tests/data/stats/make-reference.py).
 *
 *   summary.c  medians, quartiles, the median's standard error, where the variance of
 *              unit medians lives (within units or between processes)
 *   rank.c     Wilcoxon signed-rank, sign test, Mann-Whitney U, Hodges-Lehmann,
 *              exact order-statistic CI of the median, Holm
 *   corr.c     Spearman rho, Kendall tau-b
 *   boot.c     bootstrap CIs (percentile) of a median and of a block geometric mean
 *   decide.c   equivalence, verdicts, minimum detectable effect, repeats needed, Pareto */
#ifndef HARNESS_STATS_H
#define HARNESS_STATS_H

#include <stddef.h>
#include <stdint.h>

/* gsl_rng is a typedef of an anonymous struct, so it cannot be forward-declared. */
#include <gsl/gsl_rng.h>

/* Robust summary of n values. */
struct stats_summary {
	size_t n;
	double median;
	double q1, q3;   /* quartiles, GSL's quantile_from_sorted_data (linear interpolation,
	                    Hyndman & Fan type 7, as R's default and numpy's "linear") */
	double iqr;      /* q3 - q1 */
	double min, max;
};

/* Summarise x (not modified; a sorted copy is made in work, which must hold n doubles).
 * n == 0 gives NaNs. */
void stats_summarize(const double *x, size_t stride, size_t n, double *work,
		     struct stats_summary *out);

/* Relative standard error of the median: 1.2533 * sigma / sqrt(n) / median, with the robust
 * sigma = IQR / 1.349 (the asymptotic standard error of a normal sample's median, sqrt(pi/2)
 * sigma / sqrt(n); Kendall & Stuart).  NaN when n < 4 or the median is not positive.
 * The worker stops sampling a cell once this falls to the target precision. */
double stats_median_rel_se(const struct stats_summary *s);

/* Convert int64 nanoseconds to doubles into out (n values). */
void stats_from_ns(const int64_t *ns, size_t n, double *out);

/* The unit's observation per cell: med[c] = median of the ns[i] whose cell[i] == c, for
 * c < ncells (NaN for a cell without samples; samples of other cells are ignored).  One pass
 * to bucket by cell, then a linear-time selection per cell (GSL's gsl_stats_median). */
void stats_cell_medians(const int64_t *cell, const int64_t *ns, size_t n, size_t ncells,
			double *med);

/* As stats_cell_medians, and rel_se[c] = stats_median_rel_se of cell c's samples (NaN where
 * it is; rel_se may be NULL).  The medians are the same values stats_cell_medians gives. */
void stats_cell_medians_se(const int64_t *cell, const int64_t *ns, size_t n, size_t ncells,
			   double *med, double *rel_se);

/* Where the variance of n units' medians lives: the one-way random-effects decomposition of
 * the log unit medians (Kalibera & Jones, ISMM 2013: repeat most at the level where most
 * variance arises). Units whose median or relative standard error is NaN or whose median is
 * not positive are left out; n counts the rest.
 *   between = the sample variance (n - 1) of log(med)          (what the units show)
 *   within  = the mean of rel_se^2, each the variance of its log median by the delta method
 *             (what each unit's own sampling error explains)
 *   process = max(0, between - within)                         (the method-of-moments
 *             estimate of the variance between processes: E[between] = process + within)
 *   share   = process / between, in [0, 1]
 * With n < 2 every field but n is NaN; with between == 0 (no spread to apportion) process and
 * share are. Where share is high, more units narrow a CI and more samples per unit do not. */
struct stats_vc {
	size_t n;
	double between, within, process, share;
};
void stats_variance_components(const double *med, const double *rel_se, size_t n,
			       struct stats_vc *out);

/* Median of n values (a sorted copy in work, n doubles). NaN when n == 0. */
double stats_median(const double *x, size_t stride, size_t n, double *work);

/* 0 when every x is finite (and > 0 when positive is set); else -1 and *cause naming the
 * first bad index, 0-based ("value 3 is NaN", "value 2 is -0.5: ratios must be positive"). */
int stats_check_finite(const double *x, size_t n, int positive, char **cause);

/* ---- rank.c -------------------------------------------------------------------------- */

/* Wilcoxon signed-rank test of d (paired differences, e.g. log ratios) against 0,
 * two-sided.  Zero differences are dropped (Wilcoxon's method, SciPy zero_method="wilcox");
 * ties get mid-ranks.  With m <= 50 non-zero differences the p-value is exact (the null
 * distribution of W+ enumerated by dynamic programming over doubled mid-ranks, so ties are
 * handled exactly); beyond, the normal approximation with the tie correction of the
 * variance and a continuity correction of 0.5 (SciPy method="approx", correction=True).
 * Fills *w_plus (sum of positive ranks), *p, *exact; m == 0 gives p = 1. */
struct stats_wilcoxon {
	size_t m;       /* non-zero differences used */
	double w_plus;  /* sum of ranks of positive differences */
	double p;       /* two-sided p */
	int exact;
};
int stats_wilcoxon_signed_rank(const double *d, size_t n, struct stats_wilcoxon *out, char **cause);

/* Sign test: exact two-sided binomial p of the count of positive among non-zero d. */
int stats_sign_test(const double *d, size_t n, double *p, char **cause);

/* Mann-Whitney U of x (nx) against y (ny), two-sided.  Exact null distribution when there
 * are no ties and nx, ny <= 50 (SciPy method="exact"); otherwise the normal approximation
 * with tie correction and continuity correction (method="asymptotic").  u is U of x. */
struct stats_mwu {
	double u;
	double p;
	int exact;
};
int stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
		       struct stats_mwu *out, char **cause);

/* Hodges-Lehmann estimates: paired = median of the Walsh averages (d_i + d_j)/2, i <= j;
 * two-sample = median of all differences x_i - y_j.  NaN when n == 0. */
double stats_hodges_lehmann_paired(const double *d, size_t n);
double stats_hodges_lehmann_2(const double *x, size_t nx, const double *y, size_t ny);

/* Distribution-free CI of the median from order statistics: the narrowest symmetric pair
 * (x_(k), x_(n+1-k)) whose binomial(n, 1/2) coverage is >= conf.  When even [min, max]
 * covers less than conf (n < 6 at 95%), returns 1 with lo = min, hi = max and *achieved
 * its real coverage; else 0.  x need not be sorted. */
int stats_median_ci_exact(const double *x, size_t n, double conf, double *lo, double *hi,
			  double *achieved);

/* Mid-ranks (1-based; ties get the mean of the positions they share, as
 * scipy.stats.rankdata(method="average")) of v[0..n-1] into rank, with perm (n entries) as
 * scratch.  Returns the tie term, the sum over tie groups of t^3 - t (0 without ties). */
double stats_midranks(const double *v, size_t n, size_t *perm, double *rank);

/* Holm's step-down adjustment of n p-values (Holm 1979): adj[i] is monotone and <= 1. */
void stats_holm(const double *p, size_t n, double *adj);

/* ---- corr.c -------------------------------------------------------------------------- */

/* Spearman's rho (Pearson on mid-ranks) with a two-sided p: exact (every pairing) for
 * n <= 10, else from the t distribution with n-2 degrees of freedom (SciPy spearmanr).
 * n >= 3; constant input gives rho = NaN. */
int stats_spearman(const double *x, const double *y, size_t n, double *rho, double *p,
		   char **cause);
/* Kendall's tau-b with ties, two-sided p: exact without ties when n <= 33 (or at most one
 * pair is discordant or concordant), else the normal approximation with tie-corrected
 * variance (SciPy 1.10 kendalltau, method="auto").  n >= 2; constant input gives NaN. */
int stats_kendall(const double *x, const double *y, size_t n, double *tau, double *p,
		  char **cause);

/* ---- boot.c -------------------------------------------------------------------------- */

/* Percentile bootstrap CI (Efron) of the median of x: nboot resamples with replacement
 * drawn from rng (the caller seeds and records it). */
int stats_boot_median_ci(const double *x, size_t n, double conf, size_t nboot,
			 gsl_rng *rng, double *lo, double *hi, char **cause);
/* Block bootstrap of a geometric mean: logr is an nblocks x ncells matrix (row = block) of
 * log ratios, NaN where a cell is missing in a block.  The estimate is exp(mean over cells
 * of the per-cell median over blocks); the CI resamples whole blocks (keeping each block's
 * cells together), percentile method. */
int stats_boot_geomean(const double *logr, size_t nblocks, size_t ncells, double conf,
		       size_t nboot, gsl_rng *rng, double *est, double *lo, double *hi,
		       char **cause);
/* The rows (blocks) of logr[nblocks][ncells] with at least one value that is not NaN: the
 * blocks stats_boot_geomean resamples. */
size_t stats_blocks_with_data(const double *logr, size_t nblocks, size_t ncells);

/* ---- decide.c ------------------------------------------------------------------------ */

enum stats_verdict { VERDICT_FASTER = 0, VERDICT_SLOWER, VERDICT_SAME, VERDICT_INCONCLUSIVE };
const char *stats_verdict_name(enum stats_verdict v); /* "FASTER", "SLOWER", "SAME", "INCONCLUSIVE" */

/* The verdict on a ratio mode/baseline (< 1: the mode is faster) with CI [lo, hi] and
 * (Holm-adjusted) p: FASTER when hi < 1 and p < alpha; SLOWER when lo > 1 and p < alpha;
 * SAME when [lo, hi] lies inside [1 - margin, 1 + margin] (equivalence by two one-sided
 * tests at the CI's level); otherwise INCONCLUSIVE. */
enum stats_verdict stats_decide(double lo, double hi, double p, double alpha, double margin);

/* Minimum detectable effect (as a relative change of the ratio) of a paired design with n
 * blocks whose log ratios have standard deviation sigma, at two-sided alpha and the given
 * power, by the normal approximation (z_{1-alpha/2} + z_{power}) * sigma / sqrt(n), with
 * the signed-rank test's asymptotic relative efficiency 3/pi against the t test.  And the
 * number of blocks needed to detect margin.  NaN when sigma is not finite. */
double stats_mde(size_t n, double sigma, double alpha, double power);
double stats_blocks_needed(double margin, double sigma, double alpha, double power);

/* One comparison of a mode against the baseline in one cell.  Inputs are per-unit medians
 * (the unit is the replicate).  Paired: mode[i] and base[i] come from block i, and the
 * per-block ratio mode[i] / base[i] is the observation.  Unpaired: two independent samples. */
struct stats_compare_opts {
	double conf;    /* CI level, 0.95 */
	double alpha;   /* test level, 0.05 */
	double margin;  /* equivalence margin: SAME needs the CI inside [1 - margin, 1 + margin] */
	double power;   /* for the minimum detectable effect, 0.8 */
	size_t nboot;   /* bootstrap resamples, >= 10000 */
};
struct stats_comparison {
	int paired;
	size_t n, n_base;    /* pairs (paired), or mode and baseline units (unpaired) */
	double ratio;        /* paired: median of per-block ratios; unpaired: median(mode) / median(base) */
	double hl_ratio;     /* exp(Hodges-Lehmann estimate of the log-ratio shift) */
	double lo, hi;       /* bootstrap percentile CI of ratio (blocks resampled when paired) */
	double os_lo, os_hi; /* paired: exact order-statistic CI of the median ratio; NaN when unpaired */
	double os_coverage;  /* its real coverage (below conf when n < 6 at 95%) */
	double p;            /* two-sided: Wilcoxon signed-rank on log ratios (paired), Mann-Whitney on logs (unpaired) */
	int p_exact;
	double p_sign;       /* paired: sign test; NaN when unpaired */
	double p_holm;       /* Holm-adjusted p, set by the caller across a report (initially p) */
	double sigma_log;    /* standard deviation of the log ratios (paired) or pooled of log values */
	double mde;          /* minimum detectable relative effect at opts.power for this n */
	double blocks_needed;/* repeats that would detect opts.margin */
	int ci_short;        /* too few for any distribution-free CI at conf (stats_ci_short) */
	enum stats_verdict verdict; /* from lo, hi and p_holm; INCONCLUSIVE when ci_short */
};
/* 1 when n pairs (paired) or n and n_base units (unpaired) are too few for any
 * distribution-free CI of conf's coverage: the order-statistic CI of a median covers at
 * most 1 - 2^(1-n) (6 pairs for 95%), the Mann-Whitney CI of a shift at most
 * 1 - 2 / C(n + n_base, n) (4 and 4 units for 95%).  There, a percentile bootstrap CI covers
 * less than it says, and no verdict rests on it, SAME included (METHOD.md "Small samples"). */
int stats_ci_short(size_t n, size_t n_base, double conf, int paired);
/* stats_decide(c->lo, c->hi, p, alpha, margin), or INCONCLUSIVE where c->ci_short: a
 * comparison decided again at another p or margin (Holm, the report's Pareto). */
enum stats_verdict stats_comparison_decide(const struct stats_comparison *c, double p,
					   double alpha, double margin);
/* Fill *out; -1 and *cause on bad input (n < 1, NaN, inf, values <= 0). */
int stats_compare_paired(const double *mode, const double *base, size_t n,
			 const struct stats_compare_opts *o, gsl_rng *rng,
			 struct stats_comparison *out, char **cause);
int stats_compare_unpaired(const double *mode, size_t nm, const double *base, size_t nb,
			   const struct stats_compare_opts *o, gsl_rng *rng,
			   struct stats_comparison *out, char **cause);
/* Re-decide after Holm across family comparisons: sets p_holm and verdict, and raises
 * blocks_needed to the repeats whose exact test can reach alpha / family at all. */
void stats_comparison_redecide(struct stats_comparison *c, double p_holm, double alpha,
			       double margin, size_t family);

/* Pareto front over n points and k objectives.  cmp(a, b, j, ctx) compares points a and b on
 * objective j: -1 when a is better, 0 when they are equivalent, +1 when a is worse (so a
 * caller can say "latency is better only with a FASTER verdict" and compare spread or setup
 * time numerically).  Point i is dominated when some b is at least as good on every
 * objective and better on one; front[i] = 1 when it is not dominated. */
void stats_pareto(size_t n, size_t k, int (*cmp)(size_t a, size_t b, size_t j, void *ctx),
		  void *ctx, int *front);

#endif
