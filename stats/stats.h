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
 *              exact order-statistic CI of the median
 *   ttest.c    Student's paired and Welch's two-sample t tests and their CIs
 *   multi.c    multiple comparisons: Holm, Benjamini-Hochberg, Benjamini-Yekutieli
 *   corr.c     Spearman rho, Kendall tau-b
 *   boot.c     bootstrap CIs (percentile) of a median and of a block geometric mean
 *   decide.c   noise floors, equivalence, verdicts, minimum detectable effect, repeats
 *              needed, group-sequential levels, Pareto */
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

/* ---- multi.c ------------------------------------------------------------------------ */

/* Adjusted p-values of a family of n tests, each written back in the input's order, monotone
 * in p and at most 1; a NaN p stays NaN and counts in n (a comparison was made).
 *   stats_holm  Holm's step-down (1979): family-wise error control under any dependence
 *               (R's p.adjust "holm")
 *   stats_bh    Benjamini & Hochberg's step-up (1995): false-discovery rate, valid for
 *               independent or positively dependent tests ("BH", statsmodels "fdr_bh")
 *   stats_by    Benjamini & Yekutieli (2001): the same scaled by sum_{k<=n} 1/k, valid under
 *               any dependence ("BY", "fdr_by") */
void stats_holm(const double *p, size_t n, double *adj);
void stats_bh(const double *p, size_t n, double *adj);
void stats_by(const double *p, size_t n, double *adj);

/* ---- ttest.c ------------------------------------------------------------------------ */

/* A t test's result: est is the mean (one sample) or the difference of the means (Welch),
 * se its standard error, t = est / se on df degrees of freedom, p two-sided, [lo, hi] the
 * CI at the level asked for, est -/+ t_{(1+conf)/2, df} se.  sd is the sample standard
 * deviation (one sample) or the pooled one (Welch).  With se = 0 (no scatter) the CI is the
 * point, t is 0 or +-inf and p is 1 when est == 0, else 0. */
struct stats_ttest {
	size_t n, n2;     /* values (one sample), or of x and y (Welch) */
	double est, sd, se, t, df, p, lo, hi;
};
/* Student's one-sample t test of d against 0 (a paired test on differences; SciPy
 * ttest_1samp(d, 0) and its confidence_interval(conf)).  n >= 2; -1 and *cause on bad input
 * (NaN, inf, n < 2, conf outside (0, 1)). */
int stats_t_test(const double *d, size_t n, double conf, struct stats_ttest *out, char **cause);
/* Welch's two-sample t test of mean(x) - mean(y) with Welch-Satterthwaite degrees of
 * freedom (SciPy ttest_ind(x, y, equal_var=False)).  nx, ny >= 2. */
int stats_welch_test(const double *x, size_t nx, const double *y, size_t ny, double conf,
		     struct stats_ttest *out, char **cause);
/* The trimmed t test (Tukey & McLaughlin 1963; Wilcox's trimci): of d against 0, its mean
 * trimmed by g = floor(trim n) values at each end (est), the winsorized standard deviation
 * (sd) over (1 - 2 trim) sqrt(n) as its standard error, on n - 2g - 1 degrees of freedom; and
 * Yuen's two-sample form (Yuen 1974; SciPy ttest_ind(x, y, equal_var=False, trim=trim)).
 * trim in [0, 0.5): where nothing is cut (g = 0) the one-sample test is stats_t_test itself
 * and Yuen's is Welch's; at least 2 values are always kept.  A trimmed mean is robust to the
 * process that runs 30% slow for its whole life: one such block in six moves it by nothing,
 * a mean by a sixth of it. */
int stats_trimmed_t_test(const double *d, size_t n, double trim, double conf,
			 struct stats_ttest *out, char **cause);
int stats_yuen_test(const double *x, size_t nx, const double *y, size_t ny, double trim,
		    double conf, struct stats_ttest *out, char **cause);
/* The p-quantile of Student's t on df degrees of freedom (GSL); NaN outside (0, 1). */
double stats_t_quantile(double p, double df);

/* ---- decide.c ------------------------------------------------------------------------ */

enum stats_verdict { VERDICT_FASTER = 0, VERDICT_SLOWER, VERDICT_SAME, VERDICT_INCONCLUSIVE };
const char *stats_verdict_name(enum stats_verdict v); /* "FASTER", "SLOWER", "SAME", "INCONCLUSIVE" */

/* The test that decides a comparison (docs/report-format.md, "Verdicts"):
 *   STATS_TEST_T     Student's paired t test on the log ratios of unit medians (Welch's
 *                    unpaired), the t CI of their mean: the ratio is the geometric mean of
 *                    the per-block ratios.  The default: its level is exact for normal log
 *                    ratios at any n.
 *   STATS_TEST_TRIMMED  the paired trimmed t test on the log ratios (20% cut from each end,
 *                    STATS_TRIM; Yuen's on the logs when unpaired) and its CI: the ratio is
 *                    exp of the trimmed mean of the log ratios.  On request: a block that one
 *                    slow process put off moves it little, but on normal log ratios it
 *                    rejects a true null in 5.3-6.3% of runs at alpha 0.05 from 5 to 20
 *                    blocks (tests/bench/seq-levels.py); below 5 blocks it is Student's.
 *   STATS_TEST_RANK  the exact Wilcoxon signed-rank test (Mann-Whitney unpaired) and the
 *                    distribution-free order-statistic CI of the median ratio (percentile
 *                    bootstrap unpaired): no normality, but p >= 2 / 2^n and no CI below
 *                    6 pairs at 95%.
 * The t tests' power grows with the effect over the between-process noise, not with 2^n. */
enum stats_test { STATS_TEST_T = 0, STATS_TEST_TRIMMED, STATS_TEST_RANK };
#define STATS_TRIM 0.2 /* the share cut from each end by STATS_TEST_TRIMMED (Wilcox's 20%) */
/* sqrt(1 / 0.94): the 20%-trimmed mean's asymptotic efficiency against the mean on normal
 * data is about 0.94 (Wilcox 2012, 3.3), so the planning figures of STATS_TEST_TRIMMED
 * (stats_mde, stats_blocks_needed) inflate sigma by this. */
#define STATS_TRIM_SD_FACTOR 1.0314212462587933
/* The factor the planning figures (stats_mde, stats_blocks_needed) inflate sigma by for a
 * test, its efficiency against Student's t on normal data: STATS_TRIM_SD_FACTOR for the
 * trimmed t, sqrt(pi/3) for the rank tests (3/pi, Hodges & Lehmann 1956), 1 for Student's. */
double stats_test_sd_factor(enum stats_test t);
/* The degrees of freedom of a t-family test of n paired values at trim: n - 2g - 1, g =
 * floor(trim n) (at least 2 values kept; stats_trimmed_t_test). */
double stats_t_df(size_t n, double trim);
const char *stats_test_name(enum stats_test t);  /* "trimmed-t", "t", "signed-rank" */
int stats_test_parse(const char *s, enum stats_test *t); /* those names: 0, else -1 */
/* The trim of a t-family test (STATS_TRIM for STATS_TEST_TRIMMED, 0 for STATS_TEST_T). */
double stats_test_trim(enum stats_test t);

/* A cell's noise floor: the relative difference two processes show in 95% of single pairs,
 * exp(z_{0.975} s) - 1, where s is the standard deviation of their log ratio over blocks (an
 * A/A pair's; else the median over the cell's comparisons of theirs: report.c).  Clamped to
 * [STATS_FLOOR_MIN, STATS_FLOOR_MAX]; NaN when s is (fewer than 3 blocks: no estimate).  It
 * is the margin SAME is judged against. */
#define STATS_FLOOR_MIN 0.005 /* nvbench's comparator's 0.5%: below it clocks and placement
			       * differ between processes whatever the noise estimate says */
#define STATS_FLOOR_MAX 0.05  /* the seed study's 5%: a noisier cell shows equivalence only
			       * within 5%, never within its own (large) noise */
double stats_noise_floor(double s);

/* The verdict on a ratio mode/baseline (< 1: the mode is faster) with CI [lo, hi] and
 * (adjusted) p, in order:
 *   SAME          the CI lies inside [1 - floor, 1 + floor], the cell's noise floor (a
 *                 difference, detected or not, smaller than two processes of one
 *                 configuration show)
 *   FASTER        hi < 1 and p < alpha
 *   SLOWER        lo > 1 and p < alpha (*inside_margin = 1 when the CI also lies inside the
 *                 declared margin [1 - margin, 1 + margin]: detected, and smaller than the
 *                 user said matters; inside_margin may be NULL)
 *   SAME          the CI lies inside the declared margin
 *   INCONCLUSIVE  anything else, a NaN bound or p included.
 * floor or margin NaN (or 0 for the floor): that rule does not apply.  So a clearly detected
 * difference larger than the cell's noise is never SAME, and SAME means a CI inside a margin
 * and nothing else. */
enum stats_verdict stats_decide(double lo, double hi, double p, double alpha, double floor,
				double margin, int *inside_margin);

/* Minimum detectable effect (a relative change of the ratio) at two-sided alpha and the
 * given power, of a paired design of n blocks whose log ratios have standard deviation
 * sigma: for the t test (t_{1-alpha/2, n-1} + t_{power, n-1}) sigma / sqrt(n) (the central-t
 * approximation to the noncentral power; Julious 2004), for the signed-rank test the normal
 * approximation with its asymptotic relative efficiency 3/pi.  And the blocks needed to
 * detect a relative change of effect (the smallest such n; for the signed-rank test at least
 * the pairs whose exact p can reach alpha at all, 6 at 0.05).  NaN when sigma is not finite. */
double stats_mde(size_t n, double sigma, double alpha, double power, enum stats_test test);
double stats_blocks_needed(double effect, double sigma, double alpha, double power,
			   enum stats_test test);

/* One comparison of a mode against the baseline in one cell.  Inputs are per-unit medians
 * (the unit is the replicate).  Paired: mode[i] and base[i] come from block i, and the
 * per-block ratio mode[i] / base[i] is the observation.  Unpaired: two independent samples. */
struct stats_compare_opts {
	double conf;    /* CI level, 0.95 */
	double alpha;   /* test level, 0.05 */
	double floor;   /* the cell's noise floor (stats_noise_floor), NaN: none */
	double margin;  /* the declared practical margin, NaN: none */
	double power;   /* for the minimum detectable effect, 0.8 */
	size_t nboot;   /* bootstrap resamples (the rank test's unpaired CI), >= 1000 */
	enum stats_test test;
};
struct stats_comparison {
	int paired;
	enum stats_test test;/* the test that decides (opts.test) */
	size_t n, n_base;    /* pairs (paired), or mode and baseline units (unpaired) */
	double ratio;        /* trimmed-t (t): exp of the trimmed (plain) mean of the per-block log
			      * ratios (paired), of the difference of the logs' means (unpaired);
			      * signed-rank: the median per-block ratio (paired), the ratio of
			      * medians (unpaired) */
	double lo, hi;       /* the deciding CI of ratio: trimmed-t, t: exp of the t CI; signed-rank:
			      * the exact order-statistic CI (paired), the percentile bootstrap of
			      * the ratio of medians (unpaired); NaN: none */
	double median_ratio; /* the median per-block ratio (paired), ratio of medians (unpaired) */
	double hl_ratio;     /* exp(Hodges-Lehmann estimate of the log-ratio shift) */
	double os_lo, os_hi; /* paired: exact order-statistic CI of the median ratio; NaN unpaired */
	double os_coverage;  /* its real coverage (below conf when n < 6 at 95%) */
	double p;            /* the deciding test's two-sided p */
	double p_t;          /* Student's paired t on log ratios (Welch on logs unpaired), whatever
			      * decides; NaN when n < 2 */
	double df;           /* the deciding t-family test's degrees of freedom (signed-rank: those
			      * of p_t's); NaN when n < 2 */
	double p_rank;       /* Wilcoxon signed-rank (paired), Mann-Whitney (unpaired) */
	int p_rank_exact;
	double p_sign;       /* paired: sign test; NaN when unpaired */
	double p_adj;        /* p adjusted within its family, set by the caller (initially p) */
	double sigma_log;    /* standard deviation of the log ratios (paired) or pooled of the logs */
	double floor, margin;/* opts.floor and opts.margin, which the verdict used */
	double mde;          /* minimum detectable relative effect at opts.power for this n */
	double blocks_needed;/* blocks (units per arm unpaired) that would detect the larger of
			      * floor and margin (1% when neither) */
	int ci_short;        /* no CI at conf: t with n < 2 (per arm unpaired); signed-rank with
			      * too few for any distribution-free CI (stats_ci_short) */
	int inside_margin;   /* FASTER/SLOWER with the CI inside the declared margin */
	enum stats_verdict verdict;
};
/* 1 when n pairs (paired) or n and n_base units (unpaired) are too few for any
 * distribution-free CI of conf's coverage: the order-statistic CI of a median covers at
 * most 1 - 2^(1-n) (6 pairs for 95%), the Mann-Whitney CI of a shift at most
 * 1 - 2 / C(n + n_base, n) (4 and 4 units for 95%).  There, a percentile bootstrap CI covers
 * less than it says, and no rank verdict rests on it (METHOD.md "Small samples"). */
int stats_ci_short(size_t n, size_t n_base, double conf, int paired);
/* stats_decide(c->lo, c->hi, p, alpha, c->floor, c->margin), or INCONCLUSIVE where
 * c->ci_short. */
enum stats_verdict stats_comparison_decide(const struct stats_comparison *c, double p,
					   double alpha);
/* Fill *out; -1 and *cause on bad input (n < 1, NaN, inf, values <= 0). */
int stats_compare_paired(const double *mode, const double *base, size_t n,
			 const struct stats_compare_opts *o, gsl_rng *rng,
			 struct stats_comparison *out, char **cause);
int stats_compare_unpaired(const double *mode, size_t nm, const double *base, size_t nb,
			   const struct stats_compare_opts *o, gsl_rng *rng,
			   struct stats_comparison *out, char **cause);
/* Re-decide at the family's adjusted p (stats_holm, stats_bh, stats_by over family tests):
 * sets p_adj and verdict; for the signed-rank test, raises blocks_needed to the pairs whose
 * exact p can reach alpha / family at all. */
void stats_comparison_redecide(struct stats_comparison *c, double p_adj, double alpha,
			       size_t family);

/* Group-sequential looks (docs/report-format.md, "Blocks until decided"): a design that
 * looks at the data after n_1 < n_2 < ... blocks, up to n_max, and stops once decided,
 * spends alpha over the looks by an alpha-spending function g of Lan & DeMets (1983),
 * g(0) = 0 and g(1) = alpha:
 *   STATS_SPEND_POCOCK  g(t) = alpha ln(1 + (e - 1) t)           (Pocock-type: spends
 *                       evenly, so a large effect stops early)
 *   STATS_SPEND_OBF     g(t) = 2 - 2 Phi(z_{1-alpha/2} / sqrt(t)) (O'Brien-Fleming-type:
 *                       spends little early, keeps nearly all of alpha for the last look)
 * stats_seq_alpha returns the increment alpha_k = g(n_k / n_max) - g(n_{k-1} / n_max) that
 * look k may spend, for a look at n blocks after one at prev (0: the first), NaN unless
 * 0 <= prev < n <= n_max and alpha is in (0, 1).  The increments sum to alpha. */
enum stats_spending { STATS_SPEND_POCOCK = 0, STATS_SPEND_OBF };
const char *stats_spending_name(enum stats_spending s); /* "pocock", "obrien-fleming" */
int stats_spending_parse(const char *s, enum stats_spending *out);
double stats_seq_alpha(double alpha, size_t prev, size_t n, size_t n_max,
		       enum stats_spending spending);
/* The nominal two-sided level of look k for normal statistics of known variance: the
 * exact group-sequential boundary (Armitage, McPherson & Rowe 1969; Lan & DeMets 1983) of
 * the looks at looks[0] < ... < looks[k - 1] <= n_max blocks, c_k such that under the null
 * P(|Z_j| < c_j for j < k, |Z_k| >= c_k) = alpha_k, Z_j the standardised statistic at look j
 * with corr(Z_i, Z_j) = sqrt(n_i / n_j) (the statistics share their first blocks); level =
 * 2 (1 - Phi(c_k)).  The chance of a false decision at any look is then alpha exactly for
 * normal statistics with known variance, not the union bound's sum of increments: looks at
 * 5, 6 and 7 of 7 blocks test at 0.0400, 0.0217 and 0.0192 where the increments are 0.0400,
 * 0.0052 and 0.0047.  The harness's looks tested at these levels from 2026-11-29 until
 * stats_seq_levels_t below replaced them: a t test at them, on its own degrees of freedom,
 * rejects a true null in 4.9-5.9% of normal runs (tests/bench/seq-levels.py).  Numerical
 * integration (Jennison & Turnbull 2000, ch. 19), about 1e-8 relative.
 * NaN unless k >= 1, 0 < looks[0] < ... <= n_max and 0 < alpha < 1. */
double stats_seq_level(double alpha, const size_t *looks, size_t k, size_t n_max,
		       enum stats_spending spending);

/* The levels the harness's looks test at: calibrated for Student's t statistics, which
 * the boundaries above are not (a look's t with few degrees of freedom has heavier tails
 * than its z: looks from 3 blocks reject a true null in up to 5.9% of runs at their exact
 * levels, tests/bench/seq-levels.py).  Under the null and normal data the sequence of t
 * statistics at the looks has a law free of the unknown variance, so STATS_SEQ_T_PATHS
 * paths simulated from seed STATS_SEQ_T_SEED fix every level: the first look's level is its
 * increment alpha_1 exactly (its t has a known law); look j's threshold on |t| is the one
 * that exactly floor(alpha_j R) of the R paths cross first there, and its level the t
 * distribution's two-sided p at it (n_j - 1 degrees of freedom).  The chance of a false
 * decision at some look is then alpha up to the simulation's error (sqrt(alpha / R), 0.04
 * points at alpha 0.05) for Student's t on normal data; a look at 1 block has no t and
 * spends nothing (its level is its increment).  A level depends only on the looks up to
 * it, so the levels of a run's looks never change as looks are added.  About 0.02 s per
 * 1000 paths and block looked at.  stats_seq_levels_t fills levels[0..k) (0), -1 unless
 * k >= 1, 0 < looks[0] < ... <= n_max and 0 < alpha < 1; stats_seq_level_t returns the
 * last (NaN on bad input). */
#define STATS_SEQ_T_PATHS 400000
#define STATS_SEQ_T_SEED 20261129UL
int stats_seq_levels_t(double alpha, const size_t *looks, size_t k, size_t n_max,
		       enum stats_spending spending, double *levels);
double stats_seq_level_t(double alpha, const size_t *looks, size_t k, size_t n_max,
			 enum stats_spending spending);

/* The geometric mean over cells of a mode's ratios with a t CI over blocks: logr is an
 * nblocks x ncells matrix of log ratios (NaN where missing).  The blocks with every cell
 * (complete) give g_b = the mean over cells of block b's log ratios; est = exp of their
 * (trimmed, by trim: stats_trimmed_t_test) mean, [lo, hi] = exp of its t CI at conf, p its
 * two-sided test against 0, *ncomplete the blocks used.  NaN est with none; NaN CI and p
 * with fewer than 2. */
void stats_geomean_t(const double *logr, size_t nblocks, size_t ncells, double trim,
		     double conf, double *est, double *lo, double *hi, double *p,
		     size_t *ncomplete);

/* Pareto front over n points and k objectives.  cmp(a, b, j, ctx) compares points a and b on
 * objective j: -1 when a is better, 0 when they are equivalent, +1 when a is worse (so a
 * caller can say "latency is better only with a FASTER verdict" and compare spread or setup
 * time numerically).  Point i is dominated when some b is at least as good on every
 * objective and better on one; front[i] = 1 when it is not dominated. */
void stats_pareto(size_t n, size_t k, int (*cmp)(size_t a, size_t b, size_t j, void *ctx),
		  void *ctx, int *front);

#endif
