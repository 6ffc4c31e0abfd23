/* test-decide.c: stats/boot.c and stats/decide.c: verdicts, power formulas, Pareto fronts,
 * bootstrap CIs, comparisons, and simulations of their error rates with fixed seeds */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "harness/base/util.h"
#include "stats/stats.h"
#include "tests/unit/testutil.h"

static const struct stats_compare_opts OPTS = {
	.conf = 0.95, .alpha = 0.05, .margin = 0.02, .power = 0.8, .nboot = 10000,
};

static gsl_rng *rng_new(unsigned long seed)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	ck_assert_ptr_nonnull(r);
	gsl_rng_set(r, seed);
	return r;
}

/* Under valgrind (HARNESS_VALGRIND=1 from make check) simulations run a twentieth of their
 * repetitions: they check memory, not rates, so the rate assertions are skipped. */
static int under_valgrind(void)
{
	const char *v = getenv("HARNESS_VALGRIND");
	return v && *v && strcmp(v, "0");
}

/* ---- verdicts ------------------------------------------------------------------------ */

START_TEST(verdict_names)
{
	ck_assert_str_eq(stats_verdict_name(VERDICT_FASTER), "FASTER");
	ck_assert_str_eq(stats_verdict_name(VERDICT_SLOWER), "SLOWER");
	ck_assert_str_eq(stats_verdict_name(VERDICT_SAME), "SAME");
	ck_assert_str_eq(stats_verdict_name(VERDICT_INCONCLUSIVE), "INCONCLUSIVE");
}
END_TEST

START_TEST(verdict_table)
{
	const double a = 0.05, m = 0.02;
	/* FASTER: the CI lies below 1 (and reaches below the margin) and p < alpha */
	ck_assert_int_eq(stats_decide(0.9317, 0.9742, 0.0039, a, m), VERDICT_FASTER);
	/* ... but not without p < alpha, strictly */
	ck_assert_int_eq(stats_decide(0.9317, 0.9742, 0.0713, a, m), VERDICT_INCONCLUSIVE);
	ck_assert_int_eq(stats_decide(0.9317, 0.9742, a, a, m), VERDICT_INCONCLUSIVE);
	/* ... nor when the CI touches 1 */
	ck_assert_int_eq(stats_decide(0.9317, 1.0, 0.0039, a, m), VERDICT_INCONCLUSIVE);
	/* SLOWER, mirrored */
	ck_assert_int_eq(stats_decide(1.0312, 1.0873, 0.0117, a, m), VERDICT_SLOWER);
	ck_assert_int_eq(stats_decide(1.0312, 1.0873, 0.2461, a, m), VERDICT_INCONCLUSIVE);
	ck_assert_int_eq(stats_decide(1.0, 1.0873, 0.0117, a, m), VERDICT_INCONCLUSIVE);
	/* SAME: the CI inside [1 - m, 1 + m], whatever p */
	ck_assert_int_eq(stats_decide(0.9913, 1.0128, 0.6377, a, m), VERDICT_SAME);
	ck_assert_int_eq(stats_decide(0.9913, 1.0128, 0.0212, a, m), VERDICT_SAME);
	/* a CI straddling 1 and wider than the margin */
	ck_assert_int_eq(stats_decide(0.9713, 1.0288, 0.4221, a, m), VERDICT_INCONCLUSIVE);
	/* margin edges are inside */
	ck_assert_int_eq(stats_decide(1 - m, 1.0128, 0.6377, a, m), VERDICT_SAME);
	ck_assert_int_eq(stats_decide(0.9913, 1 + m, 0.6377, a, m), VERDICT_SAME);
	ck_assert_int_eq(stats_decide(nextafter(1 - m, 0), 1.0128, 0.6377, a, m),
			 VERDICT_INCONCLUSIVE);
	ck_assert_int_eq(stats_decide(0.9913, nextafter(1 + m, 2), 0.6377, a, m),
			 VERDICT_INCONCLUSIVE);
	/* inside the margin AND excluding 1 with p < alpha: SAME wins (a real but negligible
	 * effect); with a narrower margin the same CI is FASTER / SLOWER */
	ck_assert_int_eq(stats_decide(0.9853, 0.9951, 0.0010, a, m), VERDICT_SAME);
	ck_assert_int_eq(stats_decide(0.9853, 0.9951, 0.0010, a, 0.01), VERDICT_FASTER);
	ck_assert_int_eq(stats_decide(1.0043, 1.0137, 0.0010, a, m), VERDICT_SAME);
	ck_assert_int_eq(stats_decide(1.0043, 1.0137, 0.0010, a, 0.01), VERDICT_SLOWER);
	/* no CI (n = 1) or no p: never FASTER or SLOWER */
	ck_assert_int_eq(stats_decide(NAN, NAN, 0.0010, a, m), VERDICT_INCONCLUSIVE);
	ck_assert_int_eq(stats_decide(0.9317, NAN, 0.0010, a, m), VERDICT_INCONCLUSIVE);
	ck_assert_int_eq(stats_decide(0.9317, 0.9742, NAN, a, m), VERDICT_INCONCLUSIVE);
	/* margin 0: only a degenerate CI at exactly 1 is SAME */
	ck_assert_int_eq(stats_decide(1.0, 1.0, 1.0, a, 0), VERDICT_SAME);
	ck_assert_int_eq(stats_decide(0.9991, 1.0012, 0.81, a, 0), VERDICT_INCONCLUSIVE);
}
END_TEST

START_TEST(redecide_after_holm)
{
	struct stats_comparison c = { .lo = 0.9317, .hi = 0.9742, .p = 0.0039, .p_holm = 0.0039 };
	c.verdict = stats_decide(c.lo, c.hi, c.p, 0.05, 0.02);
	ck_assert_int_eq(c.verdict, VERDICT_FASTER);
	stats_comparison_redecide(&c, 0.0624, 0.05, 0.02, 16);
	ck_assert_double_eq_tol(c.p_holm, 0.0624, 1e-15);
	ck_assert_double_eq_tol(c.p, 0.0039, 1e-15);
	ck_assert_int_eq(c.verdict, VERDICT_INCONCLUSIVE);
	stats_comparison_redecide(&c, 0.0117, 0.05, 0.02, 16);
	ck_assert_int_eq(c.verdict, VERDICT_FASTER);
}
END_TEST

/* Holm's floor on the blocks: with m comparisons no exact paired p can survive before
 * 2 / 2^n < 0.05 / m (m = 196: 2^13 = 8192 > 7840 = 2 x 196 / 0.05, 2^12 = 4096 is not), and
 * unpaired before 2 / C(2k, k) < 0.05 / m (m = 20: C(12, 6) = 924 > 800 = 2 x 20 / 0.05,
 * C(10, 5) = 252 is not, so k = 6); a family of one leaves the formula's number alone. */
START_TEST(blocks_needed_after_holm)
{
	struct stats_comparison c = { .paired = 1, .lo = 0.98, .hi = 1.03, .p = 0.0078,
				      .blocks_needed = 6 };
	stats_comparison_redecide(&c, 1.0, 0.05, 0.0143, 196);
	ck_assert_double_eq(c.blocks_needed, 13);
	c.blocks_needed = 40; /* a larger need from the effect size stays */
	stats_comparison_redecide(&c, 1.0, 0.05, 0.0143, 196);
	ck_assert_double_eq(c.blocks_needed, 40);
	c.blocks_needed = 6;
	stats_comparison_redecide(&c, 0.0078, 0.05, 0.0143, 1);
	ck_assert_double_eq(c.blocks_needed, 6);
	struct stats_comparison u = { .paired = 0, .lo = 0.98, .hi = 1.03, .p = 0.03,
				      .blocks_needed = 4 };
	stats_comparison_redecide(&u, 0.6, 0.05, 0.0143, 20);
	ck_assert_double_eq(u.blocks_needed, 6);
	u.blocks_needed = NAN; /* nothing to say stays nothing */
	stats_comparison_redecide(&u, 0.6, 0.05, 0.0143, 20);
	ck_assert(isnan(u.blocks_needed));
}
END_TEST

/* No verdict below the n where a distribution-free CI can have the level (METHOD.md "Small
 * samples"): paired [min, max] covers 1 - 2^(1-n), 93.75% at 5 and 96.9% at 6; unpaired
 * the Mann-Whitney CI at most 1 - 2 / C(n1 + n2, n1): 0.9 at 3 and 3, 0.971 at 4 and 4,
 * 0.993 at 3 and 10.  Five blocks of ratios all within 0.1% of 1 inside a 2% margin were
 * SAME until 2026-11-26; six are. */
START_TEST(ci_short_below_six_blocks)
{
	ck_assert_int_eq(stats_ci_short(5, 5, 0.95, 1), 1);
	ck_assert_int_eq(stats_ci_short(6, 6, 0.95, 1), 0);
	ck_assert_int_eq(stats_ci_short(6, 6, 0.99, 1), 1);
	ck_assert_int_eq(stats_ci_short(3, 3, 0.95, 0), 1);
	ck_assert_int_eq(stats_ci_short(4, 4, 0.95, 0), 0);
	ck_assert_int_eq(stats_ci_short(3, 10, 0.95, 0), 0);
	ck_assert_int_eq(stats_ci_short(600, 600, 0.95, 0), 0); /* no overflow */
	const double base[] = { 100, 101, 99, 100.5, 99.5, 100.2 };
	const double mode[] = { 100.05, 101.02, 99.08, 100.51, 99.58, 100.23 };
	struct stats_compare_opts o = { .conf = 0.95, .alpha = 0.05, .margin = 0.02,
					.power = 0.8, .nboot = 10000 };
	gsl_rng *r = rng_new(7);
	struct stats_comparison c;
	char *cause = NULL;
	ck_assert_int_eq(stats_compare_paired(mode, base, 5, &o, r, &c, &cause), 0);
	ck_assert(c.lo >= 0.98 && c.hi <= 1.02); /* inside the margin ... */
	ck_assert_int_eq(c.ci_short, 1);
	ck_assert_int_eq(c.verdict, VERDICT_INCONCLUSIVE); /* ... but 5 blocks cannot say so */
	stats_comparison_redecide(&c, c.p, 0.05, 0.02, 1);
	ck_assert_int_eq(c.verdict, VERDICT_INCONCLUSIVE);
	ck_assert_int_eq(stats_compare_paired(mode, base, 6, &o, r, &c, &cause), 0);
	ck_assert_int_eq(c.ci_short, 0);
	ck_assert_int_eq(c.verdict, VERDICT_SAME);
	ck_assert_int_eq(stats_compare_unpaired(mode, 3, base, 3, &o, r, &c, &cause), 0);
	ck_assert_int_eq(c.ci_short, 1);
	ck_assert_int_eq(c.verdict, VERDICT_INCONCLUSIVE);
	gsl_rng_free(r);
}
END_TEST

/* ---- minimum detectable effect and blocks needed -------------------------------------- */

/* Hand arithmetic (z from the normal quantile function, ARE factor sqrt(pi/3)):
 *   z_0.975 = 1.959963984540054, z_0.8 = 0.841621233572914, sum 2.801585218112968
 *   sqrt(pi/3) = 1.023326707946489
 *   n = 10, sigma = 0.0317: delta = 2.801585 * 0.0317 * 1.023327 / sqrt(10) = 0.028739381
 *                           mde = exp(delta) - 1 = 0.029156342
 *   margin 0.02: n = (2.801585 * 0.0317 * 1.023327 / log(1.02))^2 = 21.0625 -> 22
 *   alpha 0.01, power 0.9: z_0.995 + z_0.9 = 2.575829304 + 1.281551566 = 3.857380869
 *   n = 17, sigma = 0.0483: delta = 3.857381 * 0.0483 * 1.023327 / sqrt(17) = 0.046241243
 *                           mde = 0.047327041
 *   margin 0.035: n = (3.857381 * 0.0483 * 1.023327 / log(1.035))^2 = 30.7153 -> 31 */
START_TEST(mde_and_blocks_needed)
{
	ck_assert_double_eq_tol(stats_mde(10, 0.0317, 0.05, 0.8), 0.029156342, 1e-8);
	ck_assert_double_eq_tol(stats_blocks_needed(0.02, 0.0317, 0.05, 0.8), 22, 1e-12);
	ck_assert_double_eq_tol(stats_mde(17, 0.0483, 0.01, 0.9), 0.047327041, 1e-8);
	ck_assert_double_eq_tol(stats_blocks_needed(0.035, 0.0483, 0.01, 0.9), 31, 1e-12);
	/* the two agree: the blocks needed detect the margin, one fewer does not */
	ck_assert(stats_mde(22, 0.0317, 0.05, 0.8) <= 0.02);
	ck_assert(stats_mde(21, 0.0317, 0.05, 0.8) > 0.02);
	/* the floor: (2.801585 * 0.004 * 1.023327 / log(1.05))^2 = 0.055 would be 1 block, but
	 * the exact signed-rank p needs 2/2^n < alpha: n = 6 at 0.05, n = 8 at 0.01 (2/256) */
	ck_assert_double_eq_tol(stats_blocks_needed(0.05, 0.004, 0.05, 0.8), 6, 1e-12);
	ck_assert_double_eq_tol(stats_blocks_needed(0.05, 0.004, 0.01, 0.8), 8, 1e-12);
	ck_assert_double_eq_tol(stats_blocks_needed(0.05, 0, 0.05, 0.8), 6, 1e-12);
	ck_assert_double_eq_tol(stats_mde(10, 0, 0.05, 0.8), 0, 1e-15);
	/* NaN where nothing can be said */
	ck_assert(isnan(stats_mde(10, NAN, 0.05, 0.8)));
	ck_assert(isnan(stats_mde(10, INFINITY, 0.05, 0.8)));
	ck_assert(isnan(stats_mde(0, 0.0317, 0.05, 0.8)));
	ck_assert(isnan(stats_mde(10, 0.0317, 0, 0.8)));
	ck_assert(isnan(stats_mde(10, 0.0317, 0.05, 1)));
	ck_assert(isnan(stats_blocks_needed(0.02, NAN, 0.05, 0.8)));
	ck_assert(isnan(stats_blocks_needed(0, 0.0317, 0.05, 0.8)));
	ck_assert(isnan(stats_blocks_needed(-0.02, 0.0317, 0.05, 0.8)));
	ck_assert(isnan(stats_blocks_needed(0.02, 0.0317, 1.5, 0.8)));
}
END_TEST

/* ---- Pareto ---------------------------------------------------------------------------- */

/* Six configurations, objective 0 latency (better only when flagged FASTER than the other,
 * whatever the measured numbers say), objective 1 setup time (numeric). */
struct pareto_ctx {
	int faster[6][6]; /* faster[a][b]: a was judged FASTER than b */
	double latency[6];
	double setup[6];
};

static int pareto_cmp(size_t a, size_t b, size_t j, void *ctx)
{
	const struct pareto_ctx *c = ctx;
	if (j == 0)
		return c->faster[a][b] ? -1 : c->faster[b][a] ? 1 : 0;
	return c->setup[a] < c->setup[b] ? -1 : c->setup[a] > c->setup[b] ? 1 : 0;
}

START_TEST(pareto_planted)
{
	struct pareto_ctx c = {
		.latency = { 0.9413, 0.9871, 1.0025, 1.0346, 0.9932, 0.9127 },
		.setup = { 10.5, 3.25, 12.0, 2.0, 3.25, 3.5 },
	};
	/* 0 beats everyone; 1 beats 3 and 4; 5 beats 3.  5 has the lowest measured latency
	 * but no FASTER verdict, so on latency it ties with 1 (and with 2) */
	for (int b = 1; b < 6; b++)
		c.faster[0][b] = 1;
	c.faster[1][3] = c.faster[1][4] = 1;
	c.faster[5][3] = 1;
	int front[6];
	stats_pareto(6, 2, pareto_cmp, &c, front);
	/* 0: fastest; 1: nothing as fast is cheaper; 2: 0 is faster and cheaper;
	 * 3: the cheapest; 4: 1 is faster at the same setup; 5: ties 1, costs more */
	static const int want[6] = { 1, 1, 0, 1, 0, 0 };
	for (int i = 0; i < 6; i++)
		ck_assert_msg(front[i] == want[i], "point %d: front %d, want %d", i, front[i],
			      want[i]);
	/* equivalent points do not dominate each other; one point is its own front */
	c.faster[1][4] = 0;
	c.faster[4][3] = 1; /* else 3, as fast as 4 and cheaper, would dominate it */
	stats_pareto(6, 2, pareto_cmp, &c, front);
	ck_assert_int_eq(front[1], 1);
	ck_assert_int_eq(front[4], 1);
	stats_pareto(1, 2, pareto_cmp, &c, front);
	ck_assert_int_eq(front[0], 1);
}
END_TEST

/* ---- bootstrap ------------------------------------------------------------------------- */

START_TEST(boot_median_contains_and_tightens)
{
	gsl_rng *d = rng_new(31337), *b = rng_new(4242);
	double x[400], w[400];
	for (int rep = 0; rep < 5; rep++) {
		double width[2];
		size_t ns[2] = { 12, 400 };
		for (int k = 0; k < 2; k++) {
			size_t n = ns[k];
			for (size_t i = 0; i < n; i++)
				x[i] = 2.385 * exp(gsl_ran_gaussian(d, 0.04));
			double lo, hi, med = stats_median(x, 1, n, w);
			char *cause = NULL;
			ck_assert_int_eq(stats_boot_median_ci(x, n, 0.95, 2000, b, &lo, &hi,
							      &cause), 0);
			ck_assert_msg(lo <= med && med <= hi,
				      "median %g outside [%g, %g] at n = %zu", med, lo, hi, n);
			width[k] = hi - lo;
		}
		/* width ~ 1/sqrt(n): sqrt(400/12) = 5.8 times narrower on average; the width at
		 * n = 12 is itself noisy, so ask for 2 */
		ck_assert_msg(width[1] < width[0] / 2, "width %g at n = 400 vs %g at n = 12",
			      width[1], width[0]);
	}
	/* the same seed gives the same interval; the input is untouched */
	double y[] = { 1.0213, 0.9871, 1.0342, 0.9968, 1.0105, 1.0027, 0.9912 };
	double lo1, hi1, lo2, hi2;
	char *cause = NULL;
	gsl_rng_set(b, 99);
	ck_assert_int_eq(stats_boot_median_ci(y, 7, 0.9, 1000, b, &lo1, &hi1, &cause), 0);
	gsl_rng_set(b, 99);
	ck_assert_int_eq(stats_boot_median_ci(y, 7, 0.9, 1000, b, &lo2, &hi2, &cause), 0);
	ck_assert_double_eq_tol(lo1, lo2, 1e-15);
	ck_assert_double_eq_tol(hi1, hi2, 1e-15);
	ck_assert_double_eq_tol(y[0], 1.0213, 1e-15);
	/* bounds are data values or averages of two: inside [min, max] */
	ck_assert(lo1 >= 0.9871 && hi1 <= 1.0342 && lo1 <= hi1);
	/* one value: a degenerate interval */
	ck_assert_int_eq(stats_boot_median_ci(y, 1, 0.95, 1000, b, &lo1, &hi1, &cause), 0);
	ck_assert_double_eq_tol(lo1, 1.0213, 1e-15);
	ck_assert_double_eq_tol(hi1, 1.0213, 1e-15);
	gsl_rng_free(b);
	gsl_rng_free(d);
}
END_TEST

/* Each bad argument, provoked on purpose, with its message. */
static void expect_boot_error(const double *x, size_t n, double conf, size_t nboot,
			      gsl_rng *r, const char *want)
{
	double lo = 0, hi = 0;
	char *cause = NULL;
	ck_assert_int_eq(stats_boot_median_ci(x, n, conf, nboot, r, &lo, &hi, &cause), -1);
	ck_assert_ptr_nonnull(cause);
	ck_assert_msg(strstr(cause, want) != NULL, "cause '%s' lacks '%s'", cause, want);
	ck_assert(isnan(lo) && isnan(hi));
	free(cause);
}

START_TEST(boot_errors)
{
	gsl_rng *r = rng_new(5);
	double x[] = { 1.0213, 0.9871, NAN, 0.9968 };
	double y[] = { 1.0213, INFINITY, 0.9968 };
	expect_boot_error(x, 0, 0.95, 1000, r, "no values to bootstrap");
	expect_boot_error(x, 2, 0.95, 999, r,
			  "999 bootstrap resamples are too few: at least 1000 are needed");
	expect_boot_error(x, 2, 1.0, 1000, r, "confidence level 1 is out of range");
	expect_boot_error(x, 2, 0, 1000, r, "confidence level 0 is out of range");
	expect_boot_error(x, 2, NAN, 1000, r, "confidence level nan is out of range");
	expect_boot_error(x, 2, 0.95, 1000, NULL, "no random number generator");
	expect_boot_error(x, 4, 0.95, 1000, r, "NaN");
	expect_boot_error(y, 3, 0.95, 1000, r, "inf");
	gsl_rng_free(r);
}
END_TEST

/* A planted 4 blocks x 3 cells matrix of log ratios with missing cells:
 *   cell 0: 0.0213 -0.0105 0.0347 0.0081   median (0.0081 + 0.0213)/2 = 0.0147
 *   cell 1: -0.0412 NaN -0.0288 -0.0501    median -0.0412
 *   cell 2: 0.0067 0.0121 NaN NaN          median 0.0094
 * estimate exp((0.0147 - 0.0412 + 0.0094) / 3) = exp(-0.0057). */
START_TEST(boot_geomean_planted)
{
	const double logr[] = {
		0.0213, -0.0412, 0.0067,
		-0.0105, NAN, 0.0121,
		0.0347, -0.0288, NAN,
		0.0081, -0.0501, NAN,
	};
	gsl_rng *r = rng_new(8675309);
	double est, lo, hi;
	char *cause = NULL;
	ck_assert_int_eq(stats_boot_geomean(logr, 4, 3, 0.95, 4000, r, &est, &lo, &hi, &cause), 0);
	ck_assert_double_eq_tol(est, exp(-0.0057), 1e-12);
	ck_assert_msg(lo < est && est < hi, "estimate %g outside [%g, %g]", est, lo, hi);
	/* every resample's statistic is a mean of per-cell medians of the data, so the bounds
	 * lie between the smallest and largest possible: exp of the mean of cell minima/maxima */
	ck_assert(lo >= exp((-0.0105 - 0.0501 + 0.0067) / 3) - 1e-12);
	ck_assert(hi <= exp((0.0347 - 0.0288 + 0.0121) / 3) + 1e-12);

	/* no spread: a degenerate interval at the estimate (with a NaN in the last block this
	 * would not hold: a resample of that block alone averages cell 0 only) */
	const double flat[] = { -0.0315, 0.0172, -0.0315, 0.0172, -0.0315, 0.0172 };
	ck_assert_int_eq(stats_boot_geomean(flat, 3, 2, 0.95, 1000, r, &est, &lo, &hi, &cause), 0);
	ck_assert_double_eq_tol(est, exp((-0.0315 + 0.0172) / 2), 1e-12);
	ck_assert_double_eq_tol(lo, est, 1e-12);
	ck_assert_double_eq_tol(hi, est, 1e-12);

	/* a block with no value at all is allowed, and left out of the resampling */
	const double sparse[] = { 0.0213, -0.0412, NAN, NAN, -0.0105, -0.0288 };
	ck_assert_int_eq(stats_boot_geomean(sparse, 3, 2, 0.95, 2000, r, &est, &lo, &hi, &cause),
			 0);
	ck_assert_double_eq_tol(est, exp((0.0054 - 0.035) / 2), 1e-12);
	ck_assert(lo <= est && est <= hi);

	/* errors */
	const double empty_cell[] = { 0.0213, NAN, -0.0105, NAN };
	ck_assert_int_eq(stats_boot_geomean(empty_cell, 2, 2, 0.95, 1000, r, &est, &lo, &hi,
					    &cause), -1);
	ck_assert_str_eq(cause, "cell 1 has no value in any of the 2 blocks");
	free(cause);
	const double inf_cell[] = { 0.0213, -INFINITY, -0.0105, 0.0121 };
	ck_assert_int_eq(stats_boot_geomean(inf_cell, 2, 2, 0.95, 1000, r, &est, &lo, &hi,
					    &cause), -1);
	ck_assert_str_eq(cause, "log ratio of block 0, cell 1 is -inf");
	free(cause);
	ck_assert_int_eq(stats_boot_geomean(logr, 0, 3, 0.95, 1000, r, &est, &lo, &hi, &cause),
			 -1);
	ck_assert_str_eq(cause, "no data for the geometric mean (0 blocks, 3 cells)");
	free(cause);
	ck_assert_int_eq(stats_boot_geomean(logr, 4, 3, 0.95, 10, r, &est, &lo, &hi, &cause), -1);
	ck_assert_str_eq(cause, "10 bootstrap resamples are too few: at least 1000 are needed");
	free(cause);
	ck_assert(isnan(est) && isnan(lo) && isnan(hi));
	gsl_rng_free(r);
}
END_TEST

/* ---- comparisons ------------------------------------------------------------------------ */

/* Ten blocks whose log ratios are planted (all negative: the mode is faster in every block):
 * sorted -0.0609 -0.0535 -0.0466 -0.0412 -0.0383 -0.0361 -0.0324 -0.0287 -0.0259 -0.0198.
 *   ratio     (exp(-0.0383) + exp(-0.0361)) / 2 = 0.963484002301749
 *   hl_ratio  exp(median of the 55 Walsh averages) = exp(-0.03765) = 0.963049949393559
 *   p         exact signed-rank, all 10 of one sign: 2 / 2^10 = 0.001953125; sign test alike
 *   os CI     P(B(10, 1/2) <= 1) = 11/1024, so (x_(2), x_(9)) covers 1 - 22/1024 = 0.978515625
 *             (x_(3), x_(8) would cover 0.890625 < 0.95): exp(-0.0535), exp(-0.0259)
 *   sigma_log sample sd of the log ratios = 0.012679397111500 */
static const double PLANTED_LOG[10] = {
	-0.0412, -0.0287, -0.0535, -0.0361, -0.0198, -0.0466, -0.0324, -0.0259, -0.0609, -0.0383,
};
static const double PLANTED_BASE[10] = {
	1.7231, 1.6894, 1.7508, 1.7012, 1.6637, 1.7345, 1.6983, 1.7120, 1.6759, 1.7442,
};

START_TEST(compare_paired_planted)
{
	double mode[10];
	for (int i = 0; i < 10; i++)
		mode[i] = PLANTED_BASE[i] * exp(PLANTED_LOG[i]);
	gsl_rng *r = rng_new(2718);
	struct stats_comparison c;
	char *cause = NULL;
	ck_assert_int_eq(stats_compare_paired(mode, PLANTED_BASE, 10, &OPTS, r, &c, &cause), 0);
	ck_assert_int_eq(c.paired, 1);
	ck_assert_uint_eq(c.n, 10);
	ck_assert_uint_eq(c.n_base, 10);
	ck_assert_double_eq_tol(c.ratio, 0.963484002301749, 1e-12);
	ck_assert_double_eq_tol(c.hl_ratio, 0.963049949393559, 1e-12);
	ck_assert_double_eq_tol(c.p, 0.001953125, 1e-12);
	ck_assert_int_eq(c.p_exact, 1);
	ck_assert_double_eq_tol(c.p_sign, 0.001953125, 1e-12);
	ck_assert_double_eq_tol(c.p_holm, c.p, 1e-15);
	ck_assert_double_eq_tol(c.os_lo, exp(-0.0535), 1e-12);
	ck_assert_double_eq_tol(c.os_hi, exp(-0.0259), 1e-12);
	ck_assert_double_eq_tol(c.os_coverage, 0.978515625, 1e-12);
	ck_assert_double_eq_tol(c.sigma_log, 0.012679397111500, 1e-12);
	ck_assert_double_eq_tol(c.mde, stats_mde(10, c.sigma_log, 0.05, 0.8), 1e-15);
	ck_assert_double_eq_tol(c.blocks_needed, stats_blocks_needed(0.02, c.sigma_log, 0.05, 0.8),
				1e-15);
	/* the bootstrap interval brackets the median and lies within the data */
	ck_assert(c.lo < c.ratio && c.ratio < c.hi);
	ck_assert(c.lo >= exp(-0.0609) && c.hi <= exp(-0.0198));
	ck_assert_int_eq(c.verdict, VERDICT_FASTER);
	/* swapped: SLOWER, the ratio inverted */
	ck_assert_int_eq(stats_compare_paired(PLANTED_BASE, mode, 10, &OPTS, r, &c, &cause), 0);
	ck_assert_int_eq(c.verdict, VERDICT_SLOWER);
	ck_assert_double_eq_tol(c.hl_ratio, 1 / 0.963049949393559, 1e-12);
	gsl_rng_free(r);
}
END_TEST

START_TEST(compare_paired_degenerate)
{
	gsl_rng *r = rng_new(161803);
	struct stats_comparison c;
	char *cause = NULL;
	/* one block: no CI, p = 1, never FASTER however large the effect */
	double m1 = 0.5127, b1 = 1.7231;
	ck_assert_int_eq(stats_compare_paired(&m1, &b1, 1, &OPTS, r, &c, &cause), 0);
	ck_assert(isnan(c.lo) && isnan(c.hi));
	ck_assert_double_eq_tol(c.p, 1, 1e-15);
	ck_assert_double_eq_tol(c.ratio, 0.5127 / 1.7231, 1e-12);
	ck_assert(isnan(c.sigma_log) && isnan(c.mde) && isnan(c.blocks_needed));
	ck_assert_int_eq(c.verdict, VERDICT_INCONCLUSIVE);
	/* every ratio exactly 1: CI [1, 1], no non-zero differences so p = 1: SAME */
	ck_assert_int_eq(stats_compare_paired(PLANTED_BASE, PLANTED_BASE, 10, &OPTS, r, &c, &cause),
			 0);
	ck_assert_double_eq_tol(c.lo, 1, 1e-15);
	ck_assert_double_eq_tol(c.hi, 1, 1e-15);
	ck_assert_double_eq_tol(c.p, 1, 1e-15);
	ck_assert_double_eq_tol(c.sigma_log, 0, 1e-15);
	ck_assert_int_eq(c.verdict, VERDICT_SAME);
	/* every ratio 0.95: CI [0.95, 0.95], all ten signs agree: FASTER */
	double mode[10];
	for (int i = 0; i < 10; i++)
		mode[i] = PLANTED_BASE[i] * 0.95;
	ck_assert_int_eq(stats_compare_paired(mode, PLANTED_BASE, 10, &OPTS, r, &c, &cause), 0);
	ck_assert_double_eq_tol(c.lo, 0.95, 1e-12);
	ck_assert_double_eq_tol(c.hi, 0.95, 1e-12);
	ck_assert_double_eq_tol(c.p, 0.001953125, 1e-12);
	ck_assert_int_eq(c.verdict, VERDICT_FASTER);
	/* three blocks, all faster by 5%: p = 2/2^3 = 0.25 at best, so INCONCLUSIVE */
	ck_assert_int_eq(stats_compare_paired(mode, PLANTED_BASE, 3, &OPTS, r, &c, &cause), 0);
	ck_assert_double_eq_tol(c.p, 0.25, 1e-12);
	ck_assert_int_eq(c.verdict, VERDICT_INCONCLUSIVE);
	ck_assert_double_eq_tol(c.os_lo, 0.95, 1e-12);
	ck_assert_double_eq_tol(c.os_coverage, 0.75, 1e-12); /* [min, max] of 3: 1 - 2/8 */
	gsl_rng_free(r);
}
END_TEST

/* Unpaired planted data: all 8 mode units below all 11 baseline units.
 *   ratio    median(mode) / median(base) = 1.63005 / 1.7145 = 0.950743657042870
 *   hl_ratio exp(median of the 88 log differences) = 0.950821641119933
 *   p        exact Mann-Whitney, complete separation: 2 / C(19, 8) = 2 / 75582
 *   sigma    pooled sd of the logs = 0.015964693693290
 *   mde      exp(2.801585 * 0.0159647 * 1.023327 * sqrt(1/8 + 1/11)) - 1 = 0.021495153004518
 *   units    2 * (2.801585 * 0.0159647 * 1.023327 / log(1.02))^2 = 10.68 -> 11 per arm */
static const double U_MODE[8] = { 1.6342, 1.5987, 1.6718, 1.6120, 1.6495, 1.5831, 1.6603, 1.6259 };
static const double U_BASE[11] = { 1.7011, 1.7352, 1.6894, 1.7520, 1.7198, 1.6775,
				   1.7436, 1.7089, 1.7263, 1.6950, 1.7145 };

START_TEST(compare_unpaired_planted)
{
	gsl_rng *r = rng_new(1414);
	struct stats_comparison c;
	char *cause = NULL;
	ck_assert_int_eq(stats_compare_unpaired(U_MODE, 8, U_BASE, 11, &OPTS, r, &c, &cause), 0);
	ck_assert_int_eq(c.paired, 0);
	ck_assert_uint_eq(c.n, 8);
	ck_assert_uint_eq(c.n_base, 11);
	ck_assert_double_eq_tol(c.ratio, 0.950743657042870, 1e-12);
	ck_assert_double_eq_tol(c.hl_ratio, 0.950821641119933, 1e-12);
	ck_assert_double_eq_tol(c.p, 2.0 / 75582, 1e-12);
	ck_assert(isnan(c.p_sign) && isnan(c.os_lo) && isnan(c.os_hi) && isnan(c.os_coverage));
	ck_assert_double_eq_tol(c.sigma_log, 0.015964693693290, 1e-12);
	ck_assert_double_eq_tol(c.mde, 0.021495153004518, 1e-10);
	ck_assert_double_eq_tol(c.blocks_needed, 11, 1e-12);
	ck_assert(c.lo < c.ratio && c.ratio < c.hi && c.hi < 1);
	ck_assert_int_eq(c.verdict, VERDICT_FASTER);
	/* three units a side can never reach p < 0.05 (2 / C(6, 3) = 0.1): INCONCLUSIVE */
	ck_assert_int_eq(stats_compare_unpaired(U_MODE, 3, U_BASE, 3, &OPTS, r, &c, &cause), 0);
	ck_assert_double_eq_tol(c.p, 0.1, 1e-12);
	ck_assert_int_eq(c.verdict, VERDICT_INCONCLUSIVE);
	/* one unit on a side: no CI */
	ck_assert_int_eq(stats_compare_unpaired(U_MODE, 1, U_BASE, 11, &OPTS, r, &c, &cause), 0);
	ck_assert(isnan(c.lo) && isnan(c.hi));
	ck_assert_int_eq(c.verdict, VERDICT_INCONCLUSIVE);
	ck_assert(isfinite(c.sigma_log)); /* the baseline's spread alone */
	ck_assert_int_eq(stats_compare_unpaired(U_MODE, 1, U_BASE, 1, &OPTS, r, &c, &cause), 0);
	ck_assert(isnan(c.sigma_log) && isnan(c.mde));
	/* the floor: a tiny spread still needs 4 units per arm at 0.05 (2 / C(8, 4) = 0.029) */
	const double tight[4] = { 1.0001, 1.0002, 1.0003, 1.0004 };
	ck_assert_int_eq(stats_compare_unpaired(tight, 4, tight, 4, &OPTS, r, &c, &cause), 0);
	ck_assert_double_eq_tol(c.blocks_needed, 4, 1e-12);
	gsl_rng_free(r);
}
END_TEST

static void expect_paired_error(const double *mode, const double *base, size_t n,
				const struct stats_compare_opts *o, gsl_rng *r, const char *want)
{
	struct stats_comparison c;
	char *cause = NULL;
	ck_assert_int_eq(stats_compare_paired(mode, base, n, o, r, &c, &cause), -1);
	ck_assert_ptr_nonnull(cause);
	ck_assert_msg(strstr(cause, want) == cause, "cause '%s' does not start with '%s'", cause,
		      want);
	free(cause);
}

START_TEST(compare_errors)
{
	gsl_rng *r = rng_new(7);
	double good[3] = { 1.0213, 0.9871, 1.0342 };
	double nan3[3] = { 1.0213, NAN, 1.0342 };
	double inf3[3] = { 1.0213, 0.9871, INFINITY };
	double neg3[3] = { 1.0213, -0.5, 1.0342 };
	double zero3[3] = { 0, 0.9871, 1.0342 };
	double huge[3] = { 1e300, 0.9871, 1.0342 };
	double tiny[3] = { 1e-300, 0.9871, 1.0342 };
	expect_paired_error(good, good, 0, &OPTS, r, "no pairs to compare");
	expect_paired_error(nan3, good, 3, &OPTS, r, "mode: ");
	expect_paired_error(good, inf3, 3, &OPTS, r, "baseline: ");
	expect_paired_error(neg3, good, 3, &OPTS, r, "mode: ");
	expect_paired_error(good, zero3, 3, &OPTS, r, "baseline: ");
	expect_paired_error(huge, tiny, 3, &OPTS, r, "per-block ratio: ");
	struct stats_comparison c;
	char *cause = NULL;
	/* the inner message names the bad value */
	ck_assert_int_eq(stats_compare_paired(nan3, good, 3, &OPTS, r, &c, &cause), -1);
	ck_assert_msg(strstr(cause, "NaN"), "%s", cause);
	free(cause);
	ck_assert_int_eq(stats_compare_paired(neg3, good, 3, &OPTS, r, &c, &cause), -1);
	ck_assert_msg(strstr(cause, "-0.5"), "%s", cause);
	free(cause);
	ck_assert_int_eq(stats_compare_paired(good, inf3, 3, &OPTS, r, &c, &cause), -1);
	ck_assert_msg(strstr(cause, "inf"), "%s", cause);
	free(cause);

	struct stats_compare_opts o = OPTS;
	o.nboot = 500;
	expect_paired_error(good, good, 3, &o, r,
			    "500 bootstrap resamples are too few: at least 1000 are needed");
	o = OPTS;
	o.conf = 1.5;
	expect_paired_error(good, good, 3, &o, r, "confidence level 1.5 is out of range");
	o = OPTS;
	o.alpha = 0;
	expect_paired_error(good, good, 3, &o, r, "test level alpha 0 is out of range");
	o = OPTS;
	o.power = NAN;
	expect_paired_error(good, good, 3, &o, r, "power nan is out of range");
	o = OPTS;
	o.margin = -0.02;
	expect_paired_error(good, good, 3, &o, r, "equivalence margin -0.02 is out of range");
	expect_paired_error(good, good, 3, &OPTS, NULL, "no random number generator");

	ck_assert_int_eq(stats_compare_unpaired(good, 0, good, 3, &OPTS, r, &c, &cause), -1);
	ck_assert_str_eq(cause, "no units to compare (0 of the mode, 3 of the baseline)");
	free(cause);
	ck_assert_int_eq(stats_compare_unpaired(good, 3, nan3, 3, &OPTS, r, &c, &cause), -1);
	ck_assert_msg(strstr(cause, "baseline: ") == cause, "%s", cause);
	free(cause);
	ck_assert_int_eq(stats_compare_unpaired(zero3, 3, good, 3, &OPTS, r, &c, &cause), -1);
	ck_assert_msg(strstr(cause, "mode: ") == cause, "%s", cause);
	free(cause);
	double huge3[3] = { 1e300, 2e300, 3e300 }, tiny3[3] = { 1e-300, 2e-300, 3e-300 };
	ck_assert_int_eq(stats_compare_unpaired(huge3, 3, tiny3, 3, &OPTS, r, &c, &cause), -1);
	ck_assert_str_eq(cause, "ratio of medians is inf: the values span too wide a range");
	free(cause);
	gsl_rng_free(r);
}
END_TEST

/* ---- simulations ------------------------------------------------------------------------- */

/* Simulated paired blocks: unit i of each arm is a log-normal per-unit median,
 * 1.7 * exp(block_i + e), block_i ~ N(0, 0.05) shared by both arms of block i (a noisy
 * machine state), e ~ N(0, sigma) per unit; the mode's is multiplied by ratio.  So the
 * per-block ratio is ratio * exp(e_m - e_b), whose median is exactly ratio. */
static void sim_paired(gsl_rng *d, size_t n, double ratio, double sigma, double *mode,
		       double *base)
{
	for (size_t i = 0; i < n; i++) {
		double block = gsl_ran_gaussian(d, 0.05);
		base[i] = 1.7 * exp(block + gsl_ran_gaussian(d, sigma));
		mode[i] = 1.7 * ratio * exp(block + gsl_ran_gaussian(d, sigma));
	}
}

/* Simulations use nboot = 2000 (not the 10000 a report uses) to fit the time budget: the
 * percentile bounds then move by about 0.1% of the interval's width from run to run. */
static struct stats_compare_opts sim_opts(void)
{
	struct stats_compare_opts o = OPTS;
	o.nboot = 2000;
	return o;
}

/* (a) No true effect, n = 10, sigma 2-5%: FASTER or SLOWER at most 5% of the time, plus 3
 * Monte Carlo standard errors (the exact signed-rank test's real size at n = 10 is below
 * 0.05, and the CI condition only removes calls). */
START_TEST(sim_false_positive_rate)
{
	int nsim = under_valgrind() ? 50 : 1000;
	gsl_rng *d = rng_new(20241121), *b = rng_new(11);
	struct stats_compare_opts o = sim_opts();
	double mode[10], base[10];
	int calls = 0, same = 0;
	for (int s = 0; s < nsim; s++) {
		double sigma = 0.02 + 0.03 * gsl_rng_uniform(d);
		sim_paired(d, 10, 1.0, sigma, mode, base);
		struct stats_comparison c;
		char *cause = NULL;
		ck_assert_int_eq(stats_compare_paired(mode, base, 10, &o, b, &c, &cause), 0);
		calls += c.verdict == VERDICT_FASTER || c.verdict == VERDICT_SLOWER;
		same += c.verdict == VERDICT_SAME;
	}
	double rate = (double)calls / nsim;
	double bound = 0.05 + 3 * sqrt(0.05 * 0.95 / nsim);
	fprintf(stderr, "test-decide: A/A n=10: %d of %d FASTER/SLOWER (%.2f%%, bound %.2f%%), "
		"%d SAME\n", calls, nsim, 100 * rate, 100 * bound, same);
	if (!under_valgrind())
		ck_assert_msg(rate <= bound, "false FASTER/SLOWER rate %.4f > %.4f (%d of %d)",
			      rate, bound, calls, nsim);
	gsl_rng_free(b);
	gsl_rng_free(d);
}
END_TEST

/* (b) Coverage of the 95% percentile bootstrap CI of the median ratio at n = 20 (true ratio
 * 0.97, sigma 3% per arm): between 93% and 97%.  4000 simulations put the Monte Carlo
 * standard error at 0.35%. */
START_TEST(sim_bootstrap_coverage)
{
	int nsim = under_valgrind() ? 100 : 4000;
	gsl_rng *d = rng_new(577215), *b = rng_new(12);
	double mode[20], base[20], r[20];
	int covered = 0;
	for (int s = 0; s < nsim; s++) {
		sim_paired(d, 20, 0.97, 0.03, mode, base);
		for (int i = 0; i < 20; i++)
			r[i] = mode[i] / base[i];
		double lo, hi;
		char *cause = NULL;
		ck_assert_int_eq(stats_boot_median_ci(r, 20, 0.95, 2000, b, &lo, &hi, &cause), 0);
		covered += lo <= 0.97 && 0.97 <= hi;
	}
	double rate = (double)covered / nsim;
	fprintf(stderr, "test-decide: bootstrap 95%% CI coverage at n=20: %.2f%% (%d of %d)\n",
		100 * rate, covered, nsim);
	if (!under_valgrind())
		ck_assert_msg(rate >= 0.93 && rate <= 0.97,
			      "coverage %.4f of the 95%% CI outside [0.93, 0.97] (%d of %d)", rate,
			      covered, nsim);
	gsl_rng_free(b);
	gsl_rng_free(d);
}
END_TEST

/* (c) A true 5% speed-up (ratio 0.95), sigma 2% per arm (2.8% on the log ratio): FASTER in
 * at least 90% of simulations at n = 12, and never at n = 3, where the exact signed-rank p
 * cannot fall below 2 / 2^3 = 0.25. */
START_TEST(sim_power_and_small_n)
{
	int nsim = under_valgrind() ? 25 : 500;
	gsl_rng *d = rng_new(1618033), *b = rng_new(13);
	struct stats_compare_opts o = sim_opts();
	double mode[12], base[12];
	int faster = 0;
	for (int s = 0; s < nsim; s++) {
		sim_paired(d, 12, 0.95, 0.02, mode, base);
		struct stats_comparison c;
		char *cause = NULL;
		ck_assert_int_eq(stats_compare_paired(mode, base, 12, &o, b, &c, &cause), 0);
		faster += c.verdict == VERDICT_FASTER;
	}
	double rate = (double)faster / nsim;
	fprintf(stderr, "test-decide: ratio 0.95, n=12: FASTER in %.2f%% (%d of %d)\n",
		100 * rate, faster, nsim);
	if (!under_valgrind())
		ck_assert_msg(rate >= 0.90, "power %.4f < 0.90 (%d of %d)", rate, faster, nsim);

	double pmin = 1;
	for (int s = 0; s < nsim; s++) {
		sim_paired(d, 3, 0.95, 0.02, mode, base);
		struct stats_comparison c;
		char *cause = NULL;
		ck_assert_int_eq(stats_compare_paired(mode, base, 3, &o, b, &c, &cause), 0);
		ck_assert_msg(c.p >= 0.25 - 1e-12, "p %g < 0.25 with 3 pairs", c.p);
		ck_assert_int_ne(c.verdict, VERDICT_FASTER);
		pmin = fmin(pmin, c.p);
	}
	fprintf(stderr, "test-decide: ratio 0.95, n=3: never FASTER, smallest p %.4f\n", pmin);
	gsl_rng_free(b);
	gsl_rng_free(d);
}
END_TEST

/* Unpaired A/A at 8 units a side: Mann-Whitney's exact size bounds the false calls too. */
START_TEST(sim_unpaired_false_positive_rate)
{
	int nsim = under_valgrind() ? 20 : 400;
	gsl_rng *d = rng_new(141421), *b = rng_new(14);
	struct stats_compare_opts o = sim_opts();
	double mode[8], base[8];
	int calls = 0;
	for (int s = 0; s < nsim; s++) {
		for (int i = 0; i < 8; i++) {
			mode[i] = 1.7 * exp(gsl_ran_gaussian(d, 0.03));
			base[i] = 1.7 * exp(gsl_ran_gaussian(d, 0.03));
		}
		struct stats_comparison c;
		char *cause = NULL;
		ck_assert_int_eq(stats_compare_unpaired(mode, 8, base, 8, &o, b, &c, &cause), 0);
		calls += c.verdict == VERDICT_FASTER || c.verdict == VERDICT_SLOWER;
	}
	double rate = (double)calls / nsim;
	double bound = 0.05 + 3 * sqrt(0.05 * 0.95 / nsim);
	fprintf(stderr, "test-decide: unpaired A/A 8+8: %d of %d FASTER/SLOWER (%.2f%%)\n", calls,
		nsim, 100 * rate);
	if (!under_valgrind())
		ck_assert_msg(rate <= bound, "unpaired false call rate %.4f > %.4f", rate, bound);
	gsl_rng_free(b);
	gsl_rng_free(d);
}
END_TEST

int main(void)
{
	gsl_set_error_handler_off();
	testutil_name = "test-decide";
	Suite *s = suite_create("decide");
	TCase *tc = tcase_create("decide");
	tcase_add_checked_fixture(tc, testutil_scratch_setup, testutil_scratch_teardown);
	tcase_add_test(tc, verdict_names);
	tcase_add_test(tc, verdict_table);
	tcase_add_test(tc, redecide_after_holm);
	tcase_add_test(tc, ci_short_below_six_blocks);
	tcase_add_test(tc, blocks_needed_after_holm);
	tcase_add_test(tc, mde_and_blocks_needed);
	tcase_add_test(tc, pareto_planted);
	tcase_add_test(tc, boot_median_contains_and_tightens);
	tcase_add_test(tc, boot_errors);
	tcase_add_test(tc, boot_geomean_planted);
	tcase_add_test(tc, compare_paired_planted);
	tcase_add_test(tc, compare_paired_degenerate);
	tcase_add_test(tc, compare_unpaired_planted);
	tcase_add_test(tc, compare_errors);
	suite_add_tcase(s, tc);
	TCase *sim = tcase_create("simulation");
	tcase_set_timeout(sim, 120);
	tcase_add_test(sim, sim_false_positive_rate);
	tcase_add_test(sim, sim_bootstrap_coverage);
	tcase_add_test(sim, sim_power_and_small_n);
	tcase_add_test(sim, sim_unpaired_false_positive_rate);
	suite_add_tcase(s, sim);
	return testutil_run(s);
}
