/* decide.c: verdicts, equivalence, minimum detectable effect, repeats needed, Pareto (stats.h) */
#include "config.h"
#include "stats/stats.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "harness/base/util.h"

const char *stats_verdict_name(enum stats_verdict v)
{
	switch (v) {
	case VERDICT_FASTER:
		return "FASTER";
	case VERDICT_SLOWER:
		return "SLOWER";
	case VERDICT_SAME:
		return "SAME";
	case VERDICT_INCONCLUSIVE:
		return "INCONCLUSIVE";
	}
	return "INCONCLUSIVE";
}

const char *stats_test_name(enum stats_test t)
{
	return t == STATS_TEST_RANK ? "signed-rank" : t == STATS_TEST_T ? "t" : "trimmed-t";
}

int stats_test_parse(const char *s, enum stats_test *t)
{
	if (!strcmp(s, "trimmed-t"))
		*t = STATS_TEST_TRIMMED;
	else if (!strcmp(s, "t"))
		*t = STATS_TEST_T;
	else if (!strcmp(s, "signed-rank"))
		*t = STATS_TEST_RANK;
	else
		return -1;
	return 0;
}

double stats_test_trim(enum stats_test t)
{
	return t == STATS_TEST_TRIMMED ? STATS_TRIM : 0;
}

double stats_t_df(size_t n, double trim)
{
	size_t g = (size_t)floor(trim * (double)n);
	if (n >= 2 && n - 2 * g < 2)
		g = (n - 2) / 2;
	return (double)n - 2 * (double)g - 1;
}

/* z_{0.975}: the floor is the two-sided 95% range of one pair's log ratio. */
#define Z975 1.959963984540054

double stats_noise_floor(double s)
{
	if (!isfinite(s) || s < 0)
		return NAN;
	return fmin(STATS_FLOOR_MAX, fmax(STATS_FLOOR_MIN, expm1(Z975 * s)));
}

/* 1 when [lo, hi] lies inside [1 - m, 1 + m] (edges included); 0 for a NaN or negative m. */
static int inside(double lo, double hi, double m)
{
	return m >= 0 && lo >= 1 - m && hi <= 1 + m;
}

/* The rule of stats.h (METHOD.md "Deciding"; equivalence by two one-sided tests, Schuirmann
 * 1987: a (1 - 2a) CI inside the margin is TOST at level a, so a 95% CI inside it is TOST at
 * 2.5%; Lakens 2017).  The noise floor comes first: a CI inside it rules out every change
 * larger than what two processes of the same configuration show, so whatever the test says,
 * the difference is below what a re-run would reproduce (nvbench's SAME).  The declared margin
 * comes after the test: a user's "differences under 5% do not matter" does not hide a
 * detected 3% speed-up, which is reported FASTER with inside_margin set ("FASTER, inside the
 * declared 5%").  Before 2026-11-28 one run-wide margin (the A/A floor's 95th percentile over
 * cells) came first for every cell, so the noisiest cells made a 10.8% speed-up read SAME. */
enum stats_verdict stats_decide(double lo, double hi, double p, double alpha, double floor,
				double margin, int *inside_margin)
{
	if (inside_margin)
		*inside_margin = 0;
	if (isnan(lo) || isnan(hi))
		return VERDICT_INCONCLUSIVE;
	if (floor > 0 && inside(lo, hi, floor))
		return VERDICT_SAME;
	if (p < alpha && (hi < 1 || lo > 1)) {
		if (inside_margin)
			*inside_margin = inside(lo, hi, margin);
		return hi < 1 ? VERDICT_FASTER : VERDICT_SLOWER;
	}
	if (inside(lo, hi, margin))
		return VERDICT_SAME;
	return VERDICT_INCONCLUSIVE;
}

/* z_{1-alpha/2} + z_{power}: the standard normal quantiles of a two-sided test at alpha with
 * the given power (e.g. 1.959964 + 0.841621 = 2.801585 at 0.05 and 0.8).  NaN when alpha
 * or power is outside (0, 1). */
static double z_sum(double alpha, double power)
{
	if (!(alpha > 0 && alpha < 1 && power > 0 && power < 1))
		return NAN;
	return gsl_cdf_ugaussian_Pinv(1 - alpha / 2) + gsl_cdf_ugaussian_Pinv(power);
}

/* t_{1-alpha/2, df} + t_{power, df}: the central-t approximation of the paired t test's
 * power (Julious 2004, "Sample sizes for clinical trials with normal data"). */
static double t_sum(double alpha, double power, double df)
{
	if (!(alpha > 0 && alpha < 1 && power > 0 && power < 1) || !(df > 0))
		return NAN;
	return stats_t_quantile(1 - alpha / 2, df) + stats_t_quantile(power, df);
}

/* sqrt(pi / 3): the rank tests' (signed-rank, Mann-Whitney) asymptotic relative efficiency
 * against the t test on normal data is 3/pi (Hodges & Lehmann 1956), so they need pi/3 times
 * the t test's sample: the standard deviation is inflated by sqrt(pi/3) = 1.0233. */
#define RANK_ARE_SD_FACTOR 1.0233267079464885

/* The smallest number of pairs whose exact two-sided signed-rank p can fall below alpha:
 * the most extreme outcome (all differences of one sign, no ties) has p = 2 / 2^n
 * (METHOD.md "Small samples": 6 pairs at 0.05). */
static double signed_rank_min_n(double alpha)
{
	double n = 1;
	while (2 / pow(2, n) >= alpha)
		n++;
	return n;
}

/* The smallest equal arm size k whose exact two-sided Mann-Whitney p can fall below alpha:
 * the most extreme ordering has p = 2 / C(2k, k) (METHOD.md: 4 per arm at 0.05). */
static double mann_whitney_min_n(double alpha)
{
	unsigned int k = 1;
	while (2 / gsl_sf_choose(2 * k, k) >= alpha)
		k++;
	return k;
}

/* The most blocks a planning figure counts to (beyond it: "more than that"). */
#define BLOCKS_MAX 100000

double stats_test_sd_factor(enum stats_test t)
{
	return t == STATS_TEST_RANK ? RANK_ARE_SD_FACTOR
	       : t == STATS_TEST_TRIMMED ? STATS_TRIM_SD_FACTOR
					 : 1;
}

/* The arguments every blocks-needed figure shares are usable: sigma finite and not
 * negative, effect positive and finite, alpha and power inside (0, 1). */
static int needed_args_ok(double effect, double sigma, double alpha, double power)
{
	return isfinite(sigma) && sigma >= 0 && effect > 0 && isfinite(effect) &&
	       !isnan(z_sum(alpha, power));
}

/* Minimum detectable effect (stats.h).  t: on the log scale
 *   delta = (t_{1-alpha/2, n-1} + t_{power, n-1}) sigma / sqrt(n),  n >= 2;
 * signed-rank: the normal approximation (Lehr 1992; Chow, Shao & Wang, "Sample size
 * calculations in clinical research", §3.1) with the rank test's efficiency,
 *   delta = (z_{1-alpha/2} + z_{power}) sigma sqrt(pi/3) / sqrt(n).
 * Returns exp(delta) - 1.  NaN when n (2 for t) is too small, sigma is not finite or
 * negative, or alpha or power is outside (0, 1). */
double stats_mde(size_t n, double sigma, double alpha, double power, enum stats_test test)
{
	if (!isfinite(sigma) || sigma < 0 || n == 0)
		return NAN;
	double q = test == STATS_TEST_RANK ? z_sum(alpha, power)
		   : n >= 2 ? t_sum(alpha, power, stats_t_df(n, stats_test_trim(test)))
			    : NAN;
	return isnan(q) ? NAN : expm1(q * stats_test_sd_factor(test) * sigma / sqrt((double)n));
}

/* Blocks needed to detect a relative change of effect (stats.h): the smallest n >= 2 whose
 * stats_mde is at most effect (t), or the normal formula solved for n and raised to the
 * signed-rank test's floor (6 at 0.05).  BLOCKS_MAX when none below it does; NaN when sigma
 * is not finite or negative, effect is not positive, or alpha or power is outside (0, 1). */
double stats_blocks_needed(double effect, double sigma, double alpha, double power,
			   enum stats_test test)
{
	if (!needed_args_ok(effect, sigma, alpha, power))
		return NAN;
	double d = log1p(effect), k = stats_test_sd_factor(test);
	double r = z_sum(alpha, power) * k * sigma / d;
	if (test == STATS_TEST_RANK)
		return fmin(BLOCKS_MAX, fmax(ceil(r * r), signed_rank_min_n(alpha)));
	if (sigma == 0)
		return 2;
	/* the normal formula is a lower bound; the t quantiles only add, so walk up from it */
	double trim = stats_test_trim(test);
	size_t n = (size_t)fmax(2, fmin(BLOCKS_MAX, ceil(r * r)));
	while (n < BLOCKS_MAX &&
	       t_sum(alpha, power, stats_t_df(n, trim)) * k * sigma / sqrt((double)n) > d)
		n++;
	return (double)n;
}

/* Options shared by both comparisons.  0, or -1 with *cause. */
static int check_opts(const struct stats_compare_opts *o, const gsl_rng *rng, char **cause)
{
	if (!(o->conf > 0 && o->conf < 1)) {
		*cause = xasprintf("confidence level %g is out of range: it must lie strictly "
				   "between 0 and 1", o->conf);
		return -1;
	}
	if (!(o->alpha > 0 && o->alpha < 1)) {
		*cause = xasprintf("test level alpha %g is out of range: it must lie strictly "
				   "between 0 and 1", o->alpha);
		return -1;
	}
	if (!(o->power > 0 && o->power < 1)) {
		*cause = xasprintf("power %g is out of range: it must lie strictly between 0 and 1",
				   o->power);
		return -1;
	}
	if (!isnan(o->margin) && !(o->margin >= 0 && o->margin < 1)) {
		*cause = xasprintf("equivalence margin %g is out of range: it must lie in [0, 1)",
				   o->margin);
		return -1;
	}
	if (!isnan(o->floor) && !(o->floor >= 0 && o->floor < 1)) {
		*cause = xasprintf("noise floor %g is out of range: it must lie in [0, 1)",
				   o->floor);
		return -1;
	}
	if (o->nboot < 1000) {
		*cause = xasprintf("%zu bootstrap resamples are too few: at least %d are needed",
				   o->nboot, 1000);
		return -1;
	}
	if (!rng) {
		*cause = xstrdup("no random number generator for the bootstrap");
		return -1;
	}
	return 0;
}

/* stats_check_finite with positive set, its cause prefixed by what was checked. */
static int check_positive(const char *what, const double *x, size_t n, char **cause)
{
	char *c = NULL;
	if (stats_check_finite(x, n, 1, &c) == 0)
		return 0;
	*cause = xasprintf("%s: %s", what, c);
	free(c);
	return -1;
}

int stats_ci_short(size_t n, size_t n_base, double conf, int paired)
{
	double most = paired ? 1 - 2 / pow(2, (double)n)
			     : 1 - 2 * exp(-gsl_sf_lnchoose((unsigned)(n + n_base), (unsigned)n));
	return !(most >= conf);
}

enum stats_verdict stats_comparison_decide(const struct stats_comparison *c, double p,
					   double alpha)
{
	return c->ci_short ? VERDICT_INCONCLUSIVE
			   : stats_decide(c->lo, c->hi, p, alpha, c->floor, c->margin, NULL);
}

/* The effect a comparison's planning figure aims at: the larger of the floor and the
 * declared margin, else 1%. */
static double planning_effect(const struct stats_compare_opts *o)
{
	double e = fmax(isnan(o->floor) ? 0 : o->floor, isnan(o->margin) ? 0 : o->margin);
	return e > 0 ? e : 0.01;
}

/* Decide c at its own p (no family yet). */
static void decide_alone(struct stats_comparison *c, double alpha)
{
	c->p_adj = c->p;
	c->verdict = c->ci_short ? VERDICT_INCONCLUSIVE
				 : stats_decide(c->lo, c->hi, c->p, alpha, c->floor, c->margin,
						&c->inside_margin);
}

/* Paired comparison (METHOD.md "Deciding"): the observation of block i is the log ratio
 * d_i = log(mode_i / base_i), so the block effect cancels.  Always computed:
 *   median_ratio  median of the per-block ratios
 *   hl_ratio      exp of the Hodges-Lehmann estimate (median of Walsh averages) of d
 *   os_*          exact order-statistic CI of the median ratio and its real coverage
 *   p_t, df       Student's one-sample t test of d against 0 (n >= 2)
 *   p_rank        Wilcoxon signed-rank test of d (all ratios 1: p = 1), p_sign the sign test
 *   sigma_log     sample standard deviation of d (NaN when n < 2)
 * Then by opts.test:
 *   t            ratio = exp(mean d), [lo, hi] = exp of the t CI, p = p_t; ci_short when
 *                n < 2
 *   signed-rank  ratio = median_ratio, [lo, hi] = the order-statistic CI, p = p_rank;
 *                ci_short when fewer than 6 pairs at 95% (stats_ci_short)
 *   mde, blocks_needed   for that test; the verdict stats_decide at p, unadjusted. */
int stats_compare_paired(const double *mode, const double *base, size_t n,
			 const struct stats_compare_opts *o, gsl_rng *rng,
			 struct stats_comparison *out, char **cause)
{
	if (n == 0) {
		*cause = xstrdup("no pairs to compare");
		return -1;
	}
	if (check_opts(o, rng, cause) < 0 || check_positive("mode", mode, n, cause) < 0 ||
	    check_positive("baseline", base, n, cause) < 0)
		return -1;

	int ret = -1;
	double *r = xmalloc(n * sizeof(*r));
	double *lr = xmalloc(n * sizeof(*lr));
	double *work = xmalloc(n * sizeof(*work));
	for (size_t i = 0; i < n; i++)
		r[i] = mode[i] / base[i];
	if (check_positive("per-block ratio", r, n, cause) < 0)
		goto done;
	for (size_t i = 0; i < n; i++)
		lr[i] = log(r[i]);

	struct stats_comparison c = { .paired = 1, .test = o->test, .n = n, .n_base = n,
				      .floor = o->floor, .margin = o->margin };
	c.median_ratio = stats_median(r, 1, n, work);
	c.hl_ratio = exp(stats_hodges_lehmann_paired(lr, n));
	c.os_coverage = NAN;
	stats_median_ci_exact(r, n, o->conf, &c.os_lo, &c.os_hi, &c.os_coverage);

	struct stats_wilcoxon w;
	if (stats_wilcoxon_signed_rank(lr, n, &w, cause) < 0 ||
	    stats_sign_test(lr, n, &c.p_sign, cause) < 0)
		goto done;
	c.p_rank = n >= 2 ? w.p : 1;
	c.p_rank_exact = w.exact;
	c.sigma_log = n >= 2 ? gsl_stats_sd(lr, 1, n) : NAN;
	c.p_t = c.df = NAN;
	struct stats_ttest t = { 0 };
	if (n >= 2) {
		if (stats_t_test(lr, n, o->conf, &t, cause) < 0)
			goto done;
		c.p_t = t.p;
		c.df = t.df;
		if (o->test == STATS_TEST_TRIMMED &&
		    stats_trimmed_t_test(lr, n, STATS_TRIM, o->conf, &t, cause) < 0)
			goto done;
	}
	if (o->test == STATS_TEST_RANK) {
		c.ratio = c.median_ratio;
		c.lo = n >= 2 ? c.os_lo : NAN; /* one ratio is no interval */
		c.hi = n >= 2 ? c.os_hi : NAN;
		c.p = c.p_rank;
		c.ci_short = stats_ci_short(n, n, o->conf, 1);
	} else {
		c.ratio = exp(n >= 2 ? t.est : lr[0]);
		c.lo = n >= 2 ? exp(t.lo) : NAN;
		c.hi = n >= 2 ? exp(t.hi) : NAN;
		c.p = n >= 2 ? t.p : 1;
		c.df = n >= 2 ? t.df : NAN;
		c.ci_short = n < 2;
	}
	c.mde = stats_mde(n, c.sigma_log, o->alpha, o->power, o->test);
	c.blocks_needed = stats_blocks_needed(planning_effect(o), c.sigma_log, o->alpha, o->power,
					      o->test);
	decide_alone(&c, o->alpha);
	*out = c;
	ret = 0;
done:
	free(work);
	free(lr);
	free(r);
	return ret;
}

/* Percentile bootstrap CI of median(x) / median(y) for two independent samples: each
 * resample draws nx values of x and ny of y with replacement, separately (Efron &
 * Tibshirani 1993, §8.3, the two-sample bootstrap).  Buffers are allocated once. */
static void boot_ratio_of_medians(const double *x, size_t nx, const double *y, size_t ny,
				  double conf, size_t nboot, gsl_rng *rng, double *lo, double *hi)
{
	double *rx = xmalloc(nx * sizeof(*rx));
	double *ry = xmalloc(ny * sizeof(*ry));
	double *rep = xmalloc(nboot * sizeof(*rep));
	for (size_t b = 0; b < nboot; b++) {
		for (size_t i = 0; i < nx; i++)
			rx[i] = x[gsl_rng_uniform_int(rng, nx)];
		for (size_t i = 0; i < ny; i++)
			ry[i] = y[gsl_rng_uniform_int(rng, ny)];
		rep[b] = gsl_stats_median(rx, 1, nx) / gsl_stats_median(ry, 1, ny);
	}
	gsl_sort(rep, 1, nboot);
	*lo = gsl_stats_quantile_from_sorted_data(rep, 1, nboot, (1 - conf) / 2);
	*hi = gsl_stats_quantile_from_sorted_data(rep, 1, nboot, (1 + conf) / 2);
	free(rep);
	free(ry);
	free(rx);
}

/* Two-sample planning figures: with pooled log standard deviation sigma, the t test's
 *   delta = (t_{1-alpha/2, df} + t_{power, df}) sigma sqrt(1/nm + 1/nb),  df = nm + nb - 2,
 * the rank test's (Noether 1987) the same with z quantiles and sqrt(pi/3); the units needed
 * PER ARM with equal arms, k, from delta = log(1 + effect) with 1/nm + 1/nb = 2/k (the
 * smallest such k for t; the formula raised to the arm size whose exact Mann-Whitney p can
 * reach alpha for the rank test). */
static double mde_unpaired(size_t nm, size_t nb, double sigma, double alpha, double power,
			   enum stats_test test)
{
	if (nm == 0 || nb == 0 || !isfinite(sigma) || sigma < 0)
		return NAN;
	double q = test == STATS_TEST_RANK ? z_sum(alpha, power)
					   : t_sum(alpha, power, (double)(nm + nb) - 2);
	return isnan(q) ? NAN
			: expm1(q * stats_test_sd_factor(test) * sigma * sqrt(1.0 / nm + 1.0 / nb));
}

static double units_needed_unpaired(double effect, double sigma, double alpha, double power,
				    enum stats_test test)
{
	if (!needed_args_ok(effect, sigma, alpha, power))
		return NAN;
	double d = log1p(effect), f = stats_test_sd_factor(test);
	if (test == STATS_TEST_RANK) {
		double r = z_sum(alpha, power) * sigma * f / d;
		return fmin(BLOCKS_MAX, fmax(ceil(2 * r * r), mann_whitney_min_n(alpha)));
	}
	size_t k = 2;
	while (k < BLOCKS_MAX &&
	       t_sum(alpha, power, 2.0 * (double)k - 2) * f * sigma * sqrt(2.0 / (double)k) > d)
		k++;
	return (double)k;
}

/* Unpaired comparison of two independent samples of units (no blocks).  Always computed:
 *   median_ratio  median(mode) / median(base)
 *   hl_ratio      exp of the two-sample Hodges-Lehmann shift of the logs
 *   p_t, df       Welch's t test of the logs (both samples with 2 or more units)
 *   p_rank        Mann-Whitney U of the logs; p_sign, os_* NaN (no pairs)
 *   sigma_log     pooled standard deviation of the logs; NaN when nm + nb < 3
 * Then by opts.test:
 *   t            ratio = exp(mean log mode - mean log base), [lo, hi] the Welch CI, p = p_t;
 *                ci_short unless both have 2 or more units
 *   signed-rank  (Mann-Whitney) ratio = median_ratio, [lo, hi] the two-sample percentile
 *                bootstrap of the ratio of medians, p = p_rank; ci_short below 4 and 4
 *                units at 95% (stats_ci_short)
 *   mde, blocks_needed (units per arm)   for that test; the verdict at p, unadjusted. */
int stats_compare_unpaired(const double *mode, size_t nm, const double *base, size_t nb,
			   const struct stats_compare_opts *o, gsl_rng *rng,
			   struct stats_comparison *out, char **cause)
{
	if (nm == 0 || nb == 0) {
		*cause = xasprintf("no units to compare (%zu of the mode, %zu of the baseline)",
				   nm, nb);
		return -1;
	}
	if (check_opts(o, rng, cause) < 0 || check_positive("mode", mode, nm, cause) < 0 ||
	    check_positive("baseline", base, nb, cause) < 0)
		return -1;

	int ret = -1;
	double *lm = xmalloc(nm * sizeof(*lm));
	double *lb = xmalloc(nb * sizeof(*lb));
	double *work = xmalloc((nm > nb ? nm : nb) * sizeof(*work));
	for (size_t i = 0; i < nm; i++)
		lm[i] = log(mode[i]);
	for (size_t i = 0; i < nb; i++)
		lb[i] = log(base[i]);

	struct stats_comparison c = { .paired = 0, .test = o->test, .n = nm, .n_base = nb,
				      .floor = o->floor, .margin = o->margin };
	c.median_ratio = stats_median(mode, 1, nm, work) / stats_median(base, 1, nb, work);
	double gm = exp(gsl_stats_mean(lm, 1, nm) - gsl_stats_mean(lb, 1, nb));
	if (!(isfinite(c.median_ratio) && c.median_ratio > 0 && isfinite(gm) && gm > 0)) {
		*cause = xasprintf("ratio of medians is %g: the values span too wide a range",
				   c.median_ratio);
		goto done;
	}
	c.hl_ratio = exp(stats_hodges_lehmann_2(lm, nm, lb, nb));
	c.os_lo = c.os_hi = c.os_coverage = c.p_sign = NAN;

	struct stats_mwu u;
	if (stats_mann_whitney(lm, nm, lb, nb, &u, cause) < 0)
		goto done;
	c.p_rank = u.p;
	c.p_rank_exact = u.exact;
	c.sigma_log = NAN;
	if (nm + nb >= 3) {
		double ss = 0;
		if (nm >= 2)
			ss += (nm - 1) * gsl_stats_variance(lm, 1, nm);
		if (nb >= 2)
			ss += (nb - 1) * gsl_stats_variance(lb, 1, nb);
		c.sigma_log = sqrt(ss / (double)(nm + nb - 2));
	}
	c.p_t = c.df = NAN;
	struct stats_ttest t = { 0 };
	int have_t = nm >= 2 && nb >= 2;
	if (have_t) {
		if (stats_welch_test(lm, nm, lb, nb, o->conf, &t, cause) < 0)
			goto done;
		c.p_t = t.p;
		if (o->test == STATS_TEST_TRIMMED &&
		    stats_yuen_test(lm, nm, lb, nb, STATS_TRIM, o->conf, &t, cause) < 0)
			goto done;
		c.df = t.df;
	}
	c.lo = c.hi = NAN;
	if (o->test == STATS_TEST_RANK) {
		c.ratio = c.median_ratio;
		if (nm >= 2 && nb >= 2)
			boot_ratio_of_medians(mode, nm, base, nb, o->conf, o->nboot, rng, &c.lo,
					      &c.hi);
		c.p = c.p_rank;
		c.ci_short = stats_ci_short(nm, nb, o->conf, 0);
	} else {
		c.ratio = have_t ? exp(t.est) : gm;
		if (have_t) {
			c.lo = exp(t.lo);
			c.hi = exp(t.hi);
		}
		c.p = have_t ? t.p : 1;
		c.ci_short = !have_t;
	}
	c.mde = mde_unpaired(nm, nb, c.sigma_log, o->alpha, o->power, o->test);
	c.blocks_needed = units_needed_unpaired(planning_effect(o), c.sigma_log, o->alpha,
						o->power, o->test);
	decide_alone(&c, o->alpha);
	*out = c;
	ret = 0;
done:
	free(work);
	free(lb);
	free(lm);
	return ret;
}

/* After the family's adjustment (stats_holm, stats_bh, stats_by), the verdict uses the
 * adjusted p.  For the signed-rank test the blocks needed are at least those whose exact test
 * can reach alpha after the adjustment: Holm's adjusted p of any comparison is at least
 * family x the family's smallest p, BH's of the smallest is family x it, and no exact p at n
 * blocks is below the most extreme ordering's (paired 2 / 2^n, unpaired 2 / C(2k, k)), so
 * with family comparisons the smallest p decides nothing before that floor reaches alpha /
 * family: 13 blocks for 196 comparisons at 0.05, whatever the effect size.  The t test has
 * no such floor. */
void stats_comparison_redecide(struct stats_comparison *c, double p_adj, double alpha,
			       size_t family)
{
	c->p_adj = p_adj;
	c->verdict = c->ci_short ? VERDICT_INCONCLUSIVE
				 : stats_decide(c->lo, c->hi, p_adj, alpha, c->floor, c->margin,
						&c->inside_margin);
	if (c->test == STATS_TEST_RANK && family > 1 && !isnan(c->blocks_needed)) {
		double a = alpha / (double)family;
		c->blocks_needed = fmax(c->blocks_needed, c->paired ? signed_rank_min_n(a)
								    : mann_whitney_min_n(a));
	}
}

/* stats.h: only complete blocks, so that every g_b averages the same cells (a block that
 * lost a cell would otherwise move its mean by that cell's level). */
void stats_geomean_t(const double *logr, size_t nblocks, size_t ncells, double trim,
		     double conf, double *est, double *lo, double *hi, double *p,
		     size_t *ncomplete)
{
	double *g = xmalloc((nblocks ? nblocks : 1) * sizeof(*g));
	size_t n = 0;
	for (size_t b = 0; b < nblocks && ncells; b++) {
		double sum = 0;
		size_t k = 0;
		for (size_t c = 0; c < ncells; c++)
			if (isfinite(logr[b * ncells + c])) {
				sum += logr[b * ncells + c];
				k++;
			}
		if (k == ncells)
			g[n++] = sum / (double)ncells;
	}
	*ncomplete = n;
	*est = n ? exp(gsl_stats_mean(g, 1, n)) : NAN;
	*lo = *hi = *p = NAN;
	struct stats_ttest t;
	char *cause = NULL;
	if (n >= 2 && stats_trimmed_t_test(g, n, trim, conf, &t, &cause) == 0) {
		*est = exp(t.est);
		*lo = exp(t.lo);
		*hi = exp(t.hi);
		*p = t.p;
	}
	free(cause);
	free(g);
}

/* Pareto front by pairwise dominance (O(n^2 k) calls of cmp): b dominates a when
 * cmp(b, a, j) <= 0 for every objective j and < 0 for at least one.  cmp need not be a
 * numeric order (a verdict-based "better" is not transitive), which is why every pair is
 * checked rather than sorting first (Kung, Luccio & Preparata 1975 assume a total order). */
void stats_pareto(size_t n, size_t k, int (*cmp)(size_t a, size_t b, size_t j, void *ctx),
		  void *ctx, int *front)
{
	for (size_t a = 0; a < n; a++) {
		front[a] = 1;
		for (size_t b = 0; b < n && front[a]; b++) {
			if (b == a)
				continue;
			int better = 0, worse = 0;
			for (size_t j = 0; j < k && !worse; j++) {
				int s = cmp(b, a, j, ctx);
				better |= s < 0;
				worse |= s > 0;
			}
			if (better && !worse)
				front[a] = 0;
		}
	}
}
