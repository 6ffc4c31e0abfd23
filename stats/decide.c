/* decide.c: verdicts, equivalence, minimum detectable effect, repeats needed, Pareto (stats.h) */
#include "config.h"
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
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

/* The four-outcome rule of METHOD.md "Deciding" (equivalence by two one-sided tests,
 * Schuirmann 1987: a (1 - 2a) CI inside the margin is TOST at level a; Lakens 2017).
 *
 *   SAME          lo >= 1 - margin and hi <= 1 + margin (edges included)
 *   FASTER        hi < 1 and p < alpha, and not SAME
 *   SLOWER        lo > 1 and p < alpha, and not SAME
 *   INCONCLUSIVE  anything else, including a NaN bound (no CI: n = 1) or a NaN p
 *
 * A CI can lie inside the margin and exclude 1 at once: a real but negligible effect
 * (Lakens' "statistically different but equivalent").  SAME wins.  The margin is the
 * largest change the experimenter declared to be of no practical interest (set from an A/A
 * control), so a CI that rules out every change beyond it has shown equivalence, and calling
 * it FASTER would claim a speed-up the design itself calls negligible.  That is the
 * conservative reading for a null-result audit: a FASTER or SLOWER verdict always means an
 * effect that may exceed the margin, and a drift or order effect smaller than the margin
 * cannot turn an A/A control into a false FASTER.  The CI and p stay in the comparison, so a
 * report can still say "SAME (0.4% faster, p = 0.002, inside the 2% margin)". */
enum stats_verdict stats_decide(double lo, double hi, double p, double alpha, double margin)
{
	if (isnan(lo) || isnan(hi))
		return VERDICT_INCONCLUSIVE;
	if (lo >= 1 - margin && hi <= 1 + margin)
		return VERDICT_SAME;
	if (hi < 1 && p < alpha)
		return VERDICT_FASTER;
	if (lo > 1 && p < alpha)
		return VERDICT_SLOWER;
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

/* Paired minimum detectable effect by the normal approximation (Lehr 1992; Chow, Shao &
 * Wang, "Sample size calculations in clinical research", §3.1): on the log scale
 *   delta = (z_{1-alpha/2} + z_{power}) * sigma * sqrt(pi/3) / sqrt(n),
 * sigma * sqrt(pi/3) being the signed-rank test's effective standard deviation (ARE 3/pi).
 * Returns the relative change exp(delta) - 1.  NaN when n == 0, sigma is not finite or
 * negative, or alpha or power is outside (0, 1). */
double stats_mde(size_t n, double sigma, double alpha, double power)
{
	double z = z_sum(alpha, power);
	if (n == 0 || !isfinite(sigma) || sigma < 0 || isnan(z))
		return NAN;
	return expm1(z * sigma * RANK_ARE_SD_FACTOR / sqrt((double)n));
}

/* Blocks needed to detect a relative change of margin: the paired formula above solved for
 * n with delta = log(1 + margin),
 *   n = ((z_{1-alpha/2} + z_{power}) * sigma * sqrt(pi/3) / log(1 + margin))^2,
 * rounded up, and never fewer than the pairs whose exact signed-rank p can reach alpha at
 * all (6 at 0.05): the normal approximation would otherwise promise a decision from 2 or 3
 * blocks that the exact test can never give.  NaN when sigma is not finite or negative,
 * margin is not positive, or alpha or power is outside (0, 1). */
double stats_blocks_needed(double margin, double sigma, double alpha, double power)
{
	double z = z_sum(alpha, power);
	if (!isfinite(sigma) || sigma < 0 || !(margin > 0) || !isfinite(margin) || isnan(z))
		return NAN;
	double r = z * sigma * RANK_ARE_SD_FACTOR / log1p(margin);
	return fmax(ceil(r * r), signed_rank_min_n(alpha));
}

/* Two-sample versions for stats_compare_unpaired (Noether 1987, normal approximation to
 * Mann-Whitney with ARE 3/pi against the t test): with pooled log standard deviation sigma,
 *   delta = (z_{1-alpha/2} + z_{power}) * sigma * sqrt(pi/3) * sqrt(1/nm + 1/nb)
 * and the mde is exp(delta) - 1; units needed PER ARM with equal arms, from
 * delta = log(1 + margin):  k = 2 * ((z_{1-alpha/2} + z_{power}) * sigma * sqrt(pi/3) / delta)^2,
 * rounded up and at least the arm size whose exact Mann-Whitney p can reach alpha. */
static double mde_unpaired(size_t nm, size_t nb, double sigma, double alpha, double power)
{
	double z = z_sum(alpha, power);
	if (nm == 0 || nb == 0 || !isfinite(sigma) || sigma < 0 || isnan(z))
		return NAN;
	return expm1(z * sigma * RANK_ARE_SD_FACTOR * sqrt(1.0 / nm + 1.0 / nb));
}

static double units_needed_unpaired(double margin, double sigma, double alpha, double power)
{
	double z = z_sum(alpha, power);
	if (!isfinite(sigma) || sigma < 0 || !(margin > 0) || !isfinite(margin) || isnan(z))
		return NAN;
	double r = z * sigma * RANK_ARE_SD_FACTOR / log1p(margin);
	return fmax(ceil(2 * r * r), mann_whitney_min_n(alpha));
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
	if (!(o->margin >= 0 && o->margin < 1)) {
		*cause = xasprintf("equivalence margin %g is out of range: it must lie in [0, 1)",
				   o->margin);
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
					   double alpha, double margin)
{
	return c->ci_short ? VERDICT_INCONCLUSIVE : stats_decide(c->lo, c->hi, p, alpha, margin);
}

/* Paired comparison (METHOD.md "Deciding"): the observation of block i is the ratio
 * r_i = mode_i / base_i, so the block effect cancels.
 *   ratio       median of r_i
 *   hl_ratio    exp of the Hodges-Lehmann estimate (median of Walsh averages) of log r_i
 *   lo, hi      percentile bootstrap CI of the median ratio, blocks resampled (boot.c);
 *               NaN when n = 1 (one block says nothing about the spread)
 *   os_*        exact order-statistic CI of the median ratio and its real coverage
 *   p, p_exact  Wilcoxon signed-rank test of log r_i against 0 (all ratios 1: p = 1)
 *   p_sign      sign test of log r_i
 *   sigma_log   sample standard deviation of log r_i (n - 1 denominator; NaN when n < 2)
 *   mde, blocks_needed   stats_mde(n, sigma_log) and stats_blocks_needed(margin, sigma_log)
 *   p_holm = p and verdict = stats_decide(lo, hi, p, alpha, margin), INCONCLUSIVE when
 *   ci_short (fewer than 6 pairs at 95%: stats_ci_short).
 * With n = 1 there is no CI, p = 1 and the verdict is INCONCLUSIVE. */
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

	struct stats_comparison c = { .paired = 1, .n = n, .n_base = n };
	c.ratio = stats_median(r, 1, n, work);
	c.hl_ratio = exp(stats_hodges_lehmann_paired(lr, n));
	c.lo = c.hi = NAN;
	if (n >= 2 && stats_boot_median_ci(r, n, o->conf, o->nboot, rng, &c.lo, &c.hi, cause) < 0)
		goto done;
	c.os_coverage = NAN;
	stats_median_ci_exact(r, n, o->conf, &c.os_lo, &c.os_hi, &c.os_coverage);

	struct stats_wilcoxon w;
	if (stats_wilcoxon_signed_rank(lr, n, &w, cause) < 0 ||
	    stats_sign_test(lr, n, &c.p_sign, cause) < 0)
		goto done;
	c.p = n >= 2 ? w.p : 1;
	c.p_exact = w.exact;
	c.sigma_log = n >= 2 ? gsl_stats_sd(lr, 1, n) : NAN;
	c.mde = stats_mde(n, c.sigma_log, o->alpha, o->power);
	c.blocks_needed = stats_blocks_needed(o->margin, c.sigma_log, o->alpha, o->power);
	c.p_holm = c.p;
	c.ci_short = stats_ci_short(n, n, o->conf, 1);
	c.verdict = stats_comparison_decide(&c, c.p, o->alpha, o->margin);
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

/* Unpaired comparison of two independent samples of units (no blocks):
 *   ratio       median(mode) / median(base)
 *   hl_ratio    exp of the two-sample Hodges-Lehmann shift of the logs (median of
 *               log mode_i - log base_j)
 *   lo, hi      two-sample percentile bootstrap CI of the ratio of medians; NaN unless
 *               both samples have at least 2 units (one unit carries no spread)
 *   p, p_exact  Mann-Whitney U of the logs
 *   p_sign, os_lo, os_hi, os_coverage   NaN (no pairs)
 *   sigma_log   pooled standard deviation of the logs,
 *               sqrt(((nm - 1) s_m^2 + (nb - 1) s_b^2) / (nm + nb - 2)); NaN when nm + nb < 3
 *   mde         exp((z_{1-alpha/2} + z_{power}) sigma_log sqrt(pi/3) sqrt(1/nm + 1/nb)) - 1
 *   blocks_needed   units needed per arm (equal arms) to detect margin (see
 *               units_needed_unpaired), at least the arm size whose exact Mann-Whitney p
 *               can reach alpha (4 at 0.05)
 *   p_holm = p and verdict = stats_decide(lo, hi, p, alpha, margin), INCONCLUSIVE when
 *   ci_short (fewer than 4 and 4 units at 95%: stats_ci_short). */
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

	struct stats_comparison c = { .paired = 0, .n = nm, .n_base = nb };
	c.ratio = stats_median(mode, 1, nm, work) / stats_median(base, 1, nb, work);
	if (!(isfinite(c.ratio) && c.ratio > 0)) {
		*cause = xasprintf("ratio of medians is %g: the values span too wide a range",
				   c.ratio);
		goto done;
	}
	c.hl_ratio = exp(stats_hodges_lehmann_2(lm, nm, lb, nb));
	c.lo = c.hi = NAN;
	if (nm >= 2 && nb >= 2)
		boot_ratio_of_medians(mode, nm, base, nb, o->conf, o->nboot, rng, &c.lo, &c.hi);
	c.os_lo = c.os_hi = c.os_coverage = c.p_sign = NAN;

	struct stats_mwu u;
	if (stats_mann_whitney(lm, nm, lb, nb, &u, cause) < 0)
		goto done;
	c.p = u.p;
	c.p_exact = u.exact;
	c.sigma_log = NAN;
	if (nm + nb >= 3) {
		double ss = 0;
		if (nm >= 2)
			ss += (nm - 1) * gsl_stats_variance(lm, 1, nm);
		if (nb >= 2)
			ss += (nb - 1) * gsl_stats_variance(lb, 1, nb);
		c.sigma_log = sqrt(ss / (double)(nm + nb - 2));
	}
	c.mde = mde_unpaired(nm, nb, c.sigma_log, o->alpha, o->power);
	c.blocks_needed = units_needed_unpaired(o->margin, c.sigma_log, o->alpha, o->power);
	c.p_holm = c.p;
	c.ci_short = stats_ci_short(nm, nb, o->conf, 0);
	c.verdict = stats_comparison_decide(&c, c.p, o->alpha, o->margin);
	*out = c;
	ret = 0;
done:
	free(work);
	free(lb);
	free(lm);
	return ret;
}

/* After Holm's adjustment across a report (stats_holm), the verdict uses the adjusted p,
 * and the blocks needed to detect the margin are at least those whose exact test can reach
 * alpha after the adjustment.  Holm's adjusted p of any comparison is at least family x the
 * family's smallest p (the first step of the step-down is in every maximum), and no exact
 * p at n blocks is below the most extreme ordering's (paired 2 / 2^n, unpaired 2 / C(2k, k)),
 * so with family comparisons nothing is FASTER or SLOWER before that floor reaches alpha /
 * family: 13 blocks for 196 comparisons at 0.05, whatever the effect size. */
void stats_comparison_redecide(struct stats_comparison *c, double p_holm, double alpha,
			       double margin, size_t family)
{
	c->p_holm = p_holm;
	c->verdict = stats_comparison_decide(c, p_holm, alpha, margin);
	if (family > 1 && !isnan(c->blocks_needed)) {
		double a = alpha / (double)family;
		c->blocks_needed = fmax(c->blocks_needed, c->paired ? signed_rank_min_n(a)
								    : mann_whitney_min_n(a));
	}
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
