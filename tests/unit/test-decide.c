/* test-decide.c: stats/boot.c and stats/decide.c: verdicts, noise floors, power formulas,
 * group-sequential levels, Pareto fronts, bootstrap CIs, comparisons by the t and the rank
 * tests, and simulations of their error rates with fixed seeds */
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

/* A report's defaults with a declared 2% margin and no noise floor, by the t test (OPTS) and
 * by the rank tests (OPTS_RANK). */
static const struct stats_compare_opts OPTS = {
	.conf = 0.95, .alpha = 0.05, .floor = NAN, .margin = 0.02, .power = 0.8, .nboot = 10000,
	.test = STATS_TEST_T,
};
static const struct stats_compare_opts OPTS_RANK = {
	.conf = 0.95, .alpha = 0.05, .floor = NAN, .margin = 0.02, .power = 0.8, .nboot = 10000,
	.test = STATS_TEST_RANK,
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

/* The names a configuration file and a report use, both ways; anything else is refused and
 * leaves the output alone. */
START_TEST(test_and_spending_names)
{
	ck_assert_str_eq(stats_test_name(STATS_TEST_T), "t");
	ck_assert_str_eq(stats_test_name(STATS_TEST_RANK), "signed-rank");
	ck_assert_str_eq(stats_test_name(STATS_TEST_TRIMMED), "trimmed-t");
	enum stats_test t = STATS_TEST_RANK;
	ck_assert_int_eq(stats_test_parse("trimmed-t", &t), 0);
	ck_assert_int_eq(t, STATS_TEST_TRIMMED);
	ck_assert(stats_test_trim(STATS_TEST_TRIMMED) == 0.2 && stats_test_trim(STATS_TEST_T) == 0);
	ck_assert_int_eq(stats_test_parse("t", &t), 0);
	ck_assert_int_eq(t, STATS_TEST_T);
	ck_assert_int_eq(stats_test_parse("signed-rank", &t), 0);
	ck_assert_int_eq(t, STATS_TEST_RANK);
	ck_assert_int_eq(stats_test_parse("T", &t), -1);
	ck_assert_int_eq(stats_test_parse("wilcoxon", &t), -1);
	ck_assert_int_eq(stats_test_parse("", &t), -1);
	ck_assert_int_eq(t, STATS_TEST_RANK);

	ck_assert_str_eq(stats_spending_name(STATS_SPEND_POCOCK), "pocock");
	ck_assert_str_eq(stats_spending_name(STATS_SPEND_OBF), "obrien-fleming");
	enum stats_spending sp = STATS_SPEND_OBF;
	ck_assert_int_eq(stats_spending_parse("pocock", &sp), 0);
	ck_assert_int_eq(sp, STATS_SPEND_POCOCK);
	ck_assert_int_eq(stats_spending_parse("obrien-fleming", &sp), 0);
	ck_assert_int_eq(sp, STATS_SPEND_OBF);
	ck_assert_int_eq(stats_spending_parse("obf", &sp), -1);
	ck_assert_int_eq(stats_spending_parse("Pocock", &sp), -1);
	ck_assert_int_eq(sp, STATS_SPEND_OBF);
}
END_TEST

/* stats_decide(lo, hi, p, alpha, floor, margin, &inside_margin): the rule of stats.h, case by
 * case.  inside_margin is set to 1 before every call, to see that each call writes it. */
static enum stats_verdict decide(double lo, double hi, double p, double floor, double margin,
				 int *in)
{
	*in = 1;
	return stats_decide(lo, hi, p, 0.05, floor, margin, in);
}

START_TEST(verdict_table)
{
	const double f = 0.005, m = 0.02;
	int in;
	/* FASTER: the CI lies below 1 and p < alpha */
	ck_assert_int_eq(decide(0.9317, 0.9742, 0.0039, f, m, &in), VERDICT_FASTER);
	ck_assert_int_eq(in, 0); /* reaches beyond the 2% margin */
	/* ... but not without p < alpha, strictly */
	ck_assert_int_eq(decide(0.9317, 0.9742, 0.0713, f, m, &in), VERDICT_INCONCLUSIVE);
	ck_assert_int_eq(in, 0);
	ck_assert_int_eq(decide(0.9317, 0.9742, 0.05, f, m, &in), VERDICT_INCONCLUSIVE);
	/* ... nor when the CI touches 1 */
	ck_assert_int_eq(decide(0.9317, 1.0, 0.0039, f, m, &in), VERDICT_INCONCLUSIVE);
	/* SLOWER, mirrored */
	ck_assert_int_eq(decide(1.0312, 1.0873, 0.0117, f, m, &in), VERDICT_SLOWER);
	ck_assert_int_eq(in, 0);
	ck_assert_int_eq(decide(1.0312, 1.0873, 0.2461, f, m, &in), VERDICT_INCONCLUSIVE);
	ck_assert_int_eq(decide(1.0, 1.0873, 0.0117, f, m, &in), VERDICT_INCONCLUSIVE);

	/* the noise floor first: a CI inside [1 - floor, 1 + floor] is SAME even with p < alpha
	 * and a CI that excludes 1 (a difference smaller than two processes of one configuration
	 * show), with or without a declared margin */
	ck_assert_int_eq(decide(0.9953, 0.9981, 0.0010, f, m, &in), VERDICT_SAME);
	ck_assert_int_eq(in, 0);
	ck_assert_int_eq(decide(0.9953, 0.9981, 0.0010, f, NAN, &in), VERDICT_SAME);
	ck_assert_int_eq(decide(1.0017, 1.0049, 0.0010, f, NAN, &in), VERDICT_SAME);
	ck_assert_int_eq(decide(0.9853, 0.9951, 0.0010, 0.02, m, &in), VERDICT_SAME);
	/* floor edges are inside; a hair beyond, the floor says nothing and the next rules
	 * decide (here: no declared margin, a CI straddling 1: INCONCLUSIVE) */
	ck_assert_int_eq(decide(1 - f, 1 + f, 0.0010, f, NAN, &in), VERDICT_SAME);
	ck_assert_int_eq(decide(nextafter(1 - f, 0), 1 + f, 0.6377, f, NAN, &in),
			 VERDICT_INCONCLUSIVE);
	ck_assert_int_eq(decide(1 - f, nextafter(1 + f, 2), 0.6377, f, NAN, &in),
			 VERDICT_INCONCLUSIVE);
	ck_assert_int_eq(decide(nextafter(1 - f, 0), 0.9981, 0.0010, f, NAN, &in),
			 VERDICT_FASTER);

	/* regression: a detected 10.8% speed-up (CI [0.887, 0.900], p 0.002) in a cell whose
	 * floor is 2% is FASTER.  Until 2026-11-28 one run-wide margin (the noisiest cells'
	 * floor, 12% there) came first and made it SAME ("SAME wins over a clear difference");
	 * now no floor or margin below the effect hides it, and a declared margin that covers
	 * it only adds inside_margin */
	ck_assert_int_eq(decide(0.887, 0.900, 0.002, 0.02, NAN, &in), VERDICT_FASTER);
	ck_assert_int_eq(in, 0);
	ck_assert_int_eq(decide(0.887, 0.900, 0.002, 0.02, m, &in), VERDICT_FASTER);
	ck_assert_int_eq(in, 0);
	ck_assert_int_eq(decide(0.887, 0.900, 0.002, STATS_FLOOR_MAX, 0.12, &in), VERDICT_FASTER);
	ck_assert_int_eq(in, 1);

	/* detected inside the declared margin (but beyond the floor): FASTER / SLOWER with
	 * inside_margin, not SAME (a user's "under 2% does not matter" does not hide a detected
	 * 1% change) */
	ck_assert_int_eq(decide(0.9853, 0.9951, 0.0010, f, m, &in), VERDICT_FASTER);
	ck_assert_int_eq(in, 1);
	ck_assert_int_eq(decide(1.0043, 1.0137, 0.0010, f, m, &in), VERDICT_SLOWER);
	ck_assert_int_eq(in, 1);
	ck_assert_int_eq(decide(0.9853, 0.9951, 0.0010, NAN, m, &in), VERDICT_FASTER);
	ck_assert_int_eq(in, 1);
	/* inside_margin's edges are inside too */
	ck_assert_int_eq(decide(1 - m, 0.9951, 0.0010, f, m, &in), VERDICT_FASTER);
	ck_assert_int_eq(in, 1);
	ck_assert_int_eq(decide(nextafter(1 - m, 0), 0.9951, 0.0010, f, m, &in), VERDICT_FASTER);
	ck_assert_int_eq(in, 0);
	ck_assert_int_eq(decide(1.0043, 1 + m, 0.0010, f, m, &in), VERDICT_SLOWER);
	ck_assert_int_eq(in, 1);
	ck_assert_int_eq(decide(1.0043, nextafter(1 + m, 2), 0.0010, f, m, &in), VERDICT_SLOWER);
	ck_assert_int_eq(in, 0);
	/* no declared margin: detected is simply FASTER */
	ck_assert_int_eq(decide(0.9853, 0.9951, 0.0010, f, NAN, &in), VERDICT_FASTER);
	ck_assert_int_eq(in, 0);
	/* the pointer may be NULL */
	ck_assert_int_eq(stats_decide(0.9853, 0.9951, 0.0010, 0.05, f, m, NULL), VERDICT_FASTER);

	/* not detected and inside the declared margin: SAME, whatever p (a CI that excludes 1
	 * with p >= alpha, the rank test's p disagreeing with the CI, included) */
	ck_assert_int_eq(decide(0.9913, 1.0128, 0.6377, f, m, &in), VERDICT_SAME);
	ck_assert_int_eq(in, 0);
	ck_assert_int_eq(decide(0.9853, 0.9951, 0.0713, f, m, &in), VERDICT_SAME);
	ck_assert_int_eq(decide(0.9913, 1.0128, NAN, f, m, &in), VERDICT_SAME);
	/* margin edges are inside */
	ck_assert_int_eq(decide(1 - m, 1.0128, 0.6377, f, m, &in), VERDICT_SAME);
	ck_assert_int_eq(decide(0.9913, 1 + m, 0.6377, f, m, &in), VERDICT_SAME);
	ck_assert_int_eq(decide(nextafter(1 - m, 0), 1.0128, 0.6377, f, m, &in),
			 VERDICT_INCONCLUSIVE);
	ck_assert_int_eq(decide(0.9913, nextafter(1 + m, 2), 0.6377, f, m, &in),
			 VERDICT_INCONCLUSIVE);
	/* a CI straddling 1 and wider than the margin */
	ck_assert_int_eq(decide(0.9713, 1.0288, 0.4221, f, m, &in), VERDICT_INCONCLUSIVE);
	ck_assert_int_eq(in, 0);

	/* no CI (n = 1) or no p: never FASTER or SLOWER, and a NaN bound never SAME */
	ck_assert_int_eq(decide(NAN, NAN, 0.0010, f, m, &in), VERDICT_INCONCLUSIVE);
	ck_assert_int_eq(in, 0);
	ck_assert_int_eq(decide(0.9317, NAN, 0.0010, f, m, &in), VERDICT_INCONCLUSIVE);
	ck_assert_int_eq(decide(NAN, 1.0012, 0.0010, f, m, &in), VERDICT_INCONCLUSIVE);
	ck_assert_int_eq(decide(NAN, NAN, 0.0010, 0.5, 0.5, &in), VERDICT_INCONCLUSIVE);
	ck_assert_int_eq(decide(0.9317, 0.9742, NAN, f, m, &in), VERDICT_INCONCLUSIVE);
	/* a NaN floor and margin: neither SAME rule applies */
	ck_assert_int_eq(decide(0.9991, 1.0012, 0.81, NAN, NAN, &in), VERDICT_INCONCLUSIVE);
	ck_assert_int_eq(decide(0.9317, 0.9742, 0.0039, NAN, NAN, &in), VERDICT_FASTER);
	ck_assert_int_eq(in, 0);
	/* a floor of 0 does not apply either (a degenerate CI at 1 is not "inside the noise");
	 * a margin of 0 does: only a degenerate CI at exactly 1 is SAME */
	ck_assert_int_eq(decide(1.0, 1.0, 1.0, 0, NAN, &in), VERDICT_INCONCLUSIVE);
	ck_assert_int_eq(decide(1.0, 1.0, 1.0, NAN, 0, &in), VERDICT_SAME);
	ck_assert_int_eq(decide(0.9991, 1.0012, 0.81, 0, 0, &in), VERDICT_INCONCLUSIVE);
}
END_TEST

/* A comparison decided again at its family's adjusted p: stats_comparison_decide and
 * stats_comparison_redecide use the floor and margin the comparison carries. */
START_TEST(redecide_after_adjustment)
{
	struct stats_comparison c = { .paired = 1, .test = STATS_TEST_T, .lo = 0.9317,
				      .hi = 0.9742, .p = 0.0039, .p_adj = 0.0039, .floor = NAN,
				      .margin = 0.02, .blocks_needed = 9 };
	c.verdict = stats_comparison_decide(&c, c.p, 0.05);
	ck_assert_int_eq(c.verdict, VERDICT_FASTER);
	stats_comparison_redecide(&c, 0.0624, 0.05, 16);
	ck_assert_double_eq_tol(c.p_adj, 0.0624, 1e-15);
	ck_assert_double_eq_tol(c.p, 0.0039, 1e-15);
	ck_assert_int_eq(c.verdict, VERDICT_INCONCLUSIVE);
	stats_comparison_redecide(&c, 0.0117, 0.05, 16);
	ck_assert_int_eq(c.verdict, VERDICT_FASTER);
	ck_assert_int_eq(c.inside_margin, 0);
	ck_assert_double_eq(c.blocks_needed, 9); /* the t test has no floor on the blocks */

	/* detected inside the margin: inside_margin follows the verdict; once the adjusted p
	 * no longer detects it, the CI inside the margin is SAME */
	c.lo = 0.9853;
	c.hi = 0.9951;
	stats_comparison_redecide(&c, 0.0010, 0.05, 3);
	ck_assert_int_eq(c.verdict, VERDICT_FASTER);
	ck_assert_int_eq(c.inside_margin, 1);
	stats_comparison_redecide(&c, 0.0713, 0.05, 3);
	ck_assert_int_eq(c.verdict, VERDICT_SAME);
	ck_assert_int_eq(c.inside_margin, 0);
	ck_assert_int_eq(stats_comparison_decide(&c, 0.0010, 0.05), VERDICT_FASTER);
	/* the comparison's floor decides first */
	c.floor = 0.02;
	stats_comparison_redecide(&c, 0.0010, 0.05, 3);
	ck_assert_int_eq(c.verdict, VERDICT_SAME);
	ck_assert_int_eq(stats_comparison_decide(&c, 0.0010, 0.05), VERDICT_SAME);
	/* too few for a CI: INCONCLUSIVE at any p */
	c.ci_short = 1;
	ck_assert_int_eq(stats_comparison_decide(&c, 0.0010, 0.05), VERDICT_INCONCLUSIVE);
	stats_comparison_redecide(&c, 0.0010, 0.05, 3);
	ck_assert_int_eq(c.verdict, VERDICT_INCONCLUSIVE);
	ck_assert_double_eq_tol(c.p_adj, 0.0010, 1e-15);
}
END_TEST

/* A family's adjusted p decide each member: three comparisons whose raw p all pass 0.05,
 * adjusted by BH (0.006 x 3 = 0.018; min(0.03 x 3/2, 0.04) = 0.04; 0.04 x 3/3 = 0.04) and
 * by Holm (0.006 x 3 = 0.018; 0.03 x 2 = 0.06; max(0.06, 0.04) = 0.06). */
START_TEST(redecide_family)
{
	const double p[3] = { 0.006, 0.03, 0.04 };
	double bh[3], holm[3];
	stats_bh(p, 3, bh);
	stats_holm(p, 3, holm);
	struct stats_comparison c[3];
	for (int i = 0; i < 3; i++)
		c[i] = (struct stats_comparison){ .paired = 1, .test = STATS_TEST_T, .lo = 1.0213,
						  .hi = 1.0642, .p = p[i], .floor = 0.005,
						  .margin = NAN };
	static const enum stats_verdict want_bh[3] = { VERDICT_SLOWER, VERDICT_SLOWER,
						       VERDICT_SLOWER };
	static const enum stats_verdict want_holm[3] = { VERDICT_SLOWER, VERDICT_INCONCLUSIVE,
							 VERDICT_INCONCLUSIVE };
	for (int i = 0; i < 3; i++) {
		stats_comparison_redecide(&c[i], bh[i], 0.05, 3);
		ck_assert_int_eq(c[i].verdict, want_bh[i]);
		stats_comparison_redecide(&c[i], holm[i], 0.05, 3);
		ck_assert_int_eq(c[i].verdict, want_holm[i]);
		ck_assert_double_eq_tol(c[i].p_adj, holm[i], 1e-15);
	}
	ck_assert_double_eq_tol(bh[0], 0.018, 1e-15);
	ck_assert_double_eq_tol(bh[1], 0.04, 1e-15);
	ck_assert_double_eq_tol(bh[2], 0.04, 1e-15);
	ck_assert_double_eq_tol(holm[1], 0.06, 1e-15);
}
END_TEST

/* The rank tests' floor on the blocks after the family's adjustment: with m comparisons no
 * exact paired p can survive before 2 / 2^n < 0.05 / m (m = 196: 2^13 = 8192 > 7840 =
 * 2 x 196 / 0.05, 2^12 = 4096 is not), and unpaired before 2 / C(2k, k) < 0.05 / m (m = 20:
 * C(12, 6) = 924 > 800 = 2 x 20 / 0.05, C(10, 5) = 252 is not, so k = 6); a family of one
 * leaves the formula's number alone, and so does the t test, whose p has no such floor. */
START_TEST(blocks_needed_after_holm)
{
	struct stats_comparison c = { .paired = 1, .test = STATS_TEST_RANK, .lo = 0.98,
				      .hi = 1.03, .p = 0.0078, .floor = NAN, .margin = 0.0143,
				      .blocks_needed = 6 };
	stats_comparison_redecide(&c, 1.0, 0.05, 196);
	ck_assert_double_eq(c.blocks_needed, 13);
	c.blocks_needed = 40; /* a larger need from the effect size stays */
	stats_comparison_redecide(&c, 1.0, 0.05, 196);
	ck_assert_double_eq(c.blocks_needed, 40);
	c.blocks_needed = 6;
	stats_comparison_redecide(&c, 0.0078, 0.05, 1);
	ck_assert_double_eq(c.blocks_needed, 6);
	struct stats_comparison u = { .paired = 0, .test = STATS_TEST_RANK, .lo = 0.98,
				      .hi = 1.03, .p = 0.03, .floor = NAN, .margin = 0.0143,
				      .blocks_needed = 4 };
	stats_comparison_redecide(&u, 0.6, 0.05, 20);
	ck_assert_double_eq(u.blocks_needed, 6);
	u.blocks_needed = NAN; /* nothing to say stays nothing */
	stats_comparison_redecide(&u, 0.6, 0.05, 20);
	ck_assert(isnan(u.blocks_needed));

	/* the t test: 2 blocks stay 2 in a family of 196, paired or not */
	struct stats_comparison t = c;
	t.test = STATS_TEST_T;
	t.blocks_needed = 2;
	stats_comparison_redecide(&t, 1.0, 0.05, 196);
	ck_assert_double_eq(t.blocks_needed, 2);
	t.paired = 0;
	stats_comparison_redecide(&t, 1.0, 0.05, 196);
	ck_assert_double_eq(t.blocks_needed, 2);
}
END_TEST

/* No rank verdict below the n where a distribution-free CI can have the level (METHOD.md
 * "Small samples"): paired [min, max] covers 1 - 2^(1-n), 93.75% at 5 and 96.9% at 6;
 * unpaired the Mann-Whitney CI at most 1 - 2 / C(n1 + n2, n1): 0.9 at 3 and 3, 0.971 at 4
 * and 4, 0.993 at 3 and 10.  Five blocks of ratios all within 0.1% of 1 inside a 2% margin
 * were SAME until 2026-11-26; by the rank test six are (inside a 0.5% noise floor; with the
 * declared margin alone, all six ratios above 1 are a detected slowdown inside it).  The t
 * test has a CI from 2 blocks on: Python's scipy.stats.ttest_1samp of the log ratios gives
 * at n = 5 the CI [1.0000714, 1.0008925], p = 0.0311, at n = 2 [0.99843, 1.00227]. */
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
	struct stats_compare_opts o = OPTS_RANK;
	o.floor = 0.005;
	gsl_rng *r = rng_new(7);
	struct stats_comparison c;
	char *cause = NULL;
	ck_assert_int_eq(stats_compare_paired(mode, base, 5, &o, r, &c, &cause), 0);
	ck_assert(c.lo >= 0.995 && c.hi <= 1.005); /* inside the floor ... */
	ck_assert_int_eq(c.ci_short, 1);
	ck_assert_int_eq(c.verdict, VERDICT_INCONCLUSIVE); /* ... but 5 blocks cannot say so */
	stats_comparison_redecide(&c, c.p, 0.05, 1);
	ck_assert_int_eq(c.verdict, VERDICT_INCONCLUSIVE);
	ck_assert_int_eq(stats_compare_paired(mode, base, 6, &o, r, &c, &cause), 0);
	ck_assert_int_eq(c.ci_short, 0);
	ck_assert_int_eq(c.verdict, VERDICT_SAME);
	o.floor = NAN;
	ck_assert_int_eq(stats_compare_paired(mode, base, 6, &o, r, &c, &cause), 0);
	ck_assert_double_eq_tol(c.p, 0.03125, 1e-12);
	ck_assert_int_eq(c.verdict, VERDICT_SLOWER);
	ck_assert_int_eq(c.inside_margin, 1);
	ck_assert_int_eq(stats_compare_unpaired(mode, 3, base, 3, &o, r, &c, &cause), 0);
	ck_assert_int_eq(c.ci_short, 1);
	ck_assert_int_eq(c.verdict, VERDICT_INCONCLUSIVE);

	/* the t test */
	o = OPTS;
	o.floor = 0.005;
	ck_assert_int_eq(stats_compare_paired(mode, base, 5, &o, r, &c, &cause), 0);
	ck_assert_int_eq(c.ci_short, 0);
	ck_assert_double_eq_tol(c.lo, 1.0000714128466033, 1e-9);
	ck_assert_double_eq_tol(c.hi, 1.0008925174856227, 1e-9);
	ck_assert_double_eq_tol(c.p, 0.03109241010328865, 1e-8);
	ck_assert_int_eq(c.verdict, VERDICT_SAME);
	o.floor = NAN;
	ck_assert_int_eq(stats_compare_paired(mode, base, 5, &o, r, &c, &cause), 0);
	ck_assert_int_eq(c.verdict, VERDICT_SLOWER);
	ck_assert_int_eq(c.inside_margin, 1);
	ck_assert_int_eq(stats_compare_paired(mode, base, 2, &o, r, &c, &cause), 0);
	ck_assert_int_eq(c.ci_short, 0);
	ck_assert_double_eq_tol(c.lo, 0.9984323259269072, 1e-9);
	ck_assert_double_eq_tol(c.hi, 1.0022693504868951, 1e-9);
	ck_assert_int_eq(c.verdict, VERDICT_SAME); /* inside the 2% margin, not detected */
	ck_assert_int_eq(stats_compare_paired(mode, base, 1, &o, r, &c, &cause), 0);
	ck_assert_int_eq(c.ci_short, 1);
	ck_assert_int_eq(c.verdict, VERDICT_INCONCLUSIVE);
	ck_assert_int_eq(stats_compare_unpaired(mode, 2, base, 2, &o, r, &c, &cause), 0);
	ck_assert_int_eq(c.ci_short, 0);
	ck_assert_int_eq(stats_compare_unpaired(mode, 1, base, 3, &o, r, &c, &cause), 0);
	ck_assert_int_eq(c.ci_short, 1);
	ck_assert_int_eq(c.verdict, VERDICT_INCONCLUSIVE);
	gsl_rng_free(r);
}
END_TEST

/* ---- noise floor and group-sequential levels ------------------------------------------ */

/* exp(z_0.975 s) - 1 (z_0.975 = scipy.stats.norm.ppf(0.975) = 1.959963984540054), clamped to
 * [0.5%, 5%]: s = 0.01 gives 0.019792973812775096, s = 0.0123 0.024400493419393647; the
 * clamps bite below s = log(1.005) / z = 0.0025447 and above log(1.05) / z = 0.0248934
 * (s = 0.00255: 0.0050104; s = 0.02485: 0.0499107). */
START_TEST(noise_floor_clamps)
{
	ck_assert_double_eq_tol(stats_noise_floor(0.01), 0.019792973812775096, 1e-14);
	ck_assert_double_eq_tol(stats_noise_floor(0.0123), 0.024400493419393647, 1e-14);
	ck_assert_double_eq_tol(stats_noise_floor(0.00255), 0.005010418536788321, 1e-14);
	ck_assert_double_eq_tol(stats_noise_floor(0.02485), 0.04991069168700636, 1e-14);
	/* the clamps */
	ck_assert_double_eq_tol(stats_noise_floor(0), STATS_FLOOR_MIN, 1e-15);
	ck_assert_double_eq_tol(stats_noise_floor(0.001), STATS_FLOOR_MIN, 1e-15);
	ck_assert_double_eq_tol(stats_noise_floor(0.0025), STATS_FLOOR_MIN, 1e-15);
	ck_assert_double_eq_tol(stats_noise_floor(0.025), STATS_FLOOR_MAX, 1e-15);
	ck_assert_double_eq_tol(stats_noise_floor(0.5), STATS_FLOOR_MAX, 1e-15);
	ck_assert_double_eq_tol(stats_noise_floor(1e300), STATS_FLOOR_MAX, 1e-15);
	ck_assert_double_eq_tol(STATS_FLOOR_MIN, 0.005, 1e-15);
	ck_assert_double_eq_tol(STATS_FLOOR_MAX, 0.05, 1e-15);
	/* no estimate: NaN */
	ck_assert(isnan(stats_noise_floor(NAN)));
	ck_assert(isnan(stats_noise_floor(INFINITY)));
	ck_assert(isnan(stats_noise_floor(-0.01)));
	/* monotone between the clamps */
	double prev = 0;
	for (double s = 0; s < 0.04; s += 0.00037) {
		double fl = stats_noise_floor(s);
		ck_assert_msg(fl >= prev, "floor %g at s = %g below %g", fl, s, prev);
		prev = fl;
	}
}
END_TEST

/* Levels of the looks against Python (alpha g(t_k) - g(t_{k-1}) with g of stats.h: Pocock
 * alpha log(1 + (e - 1) t), O'Brien-Fleming 2 - 2 scipy.stats.norm.cdf(norm.ppf(1 - alpha/2)
 * / sqrt(t))): looks at 4, 8, 12, 16 of 16 and at 3, 7, 20 of 20, alpha 0.05, and at 5, 10
 * of 10, alpha 0.01.  The levels of all looks sum to alpha. */
START_TEST(seq_alpha_spending)
{
	struct {
		double alpha;
		size_t n_max, looks[4], nlooks;
		enum stats_spending s;
		double want[4];
	} cases[] = {
		{ 0.05, 16, { 4, 8, 12, 16 }, 4, STATS_SPEND_POCOCK,
		  { 0.01786870097543942, 0.013137024372474455, 0.010393721614229613,
		    0.008600553037856513 } },
		{ 0.05, 20, { 3, 7, 20 }, 3, STATS_SPEND_POCOCK,
		  { 0.011465913393450993, 0.01207795647527767, 0.02645613013127134 } },
		{ 0.01, 10, { 5, 10 }, 2, STATS_SPEND_POCOCK,
		  { 0.006201145069582775, 0.003798854930417225 } },
		{ 0.05, 16, { 4, 8, 12, 16 }, 4, STATS_SPEND_OBF,
		  { 8.857543832130332e-05, 0.005486021242463002, 0.018050524636817,
		    0.02637487868239874 } },
		{ 0.05, 20, { 3, 7, 20 }, 3, STATS_SPEND_OBF,
		  { 4.1792768579185235e-07, 0.0009227773548805551, 0.0490768047174337 } },
		{ 0.01, 10, { 5, 10 }, 2, STATS_SPEND_OBF,
		  { 0.00026971695663147166, 0.009730283043368537 } },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double sum = 0;
		size_t prev = 0;
		for (size_t k = 0; k < cases[i].nlooks; k++) {
			double a = stats_seq_alpha(cases[i].alpha, prev, cases[i].looks[k],
						   cases[i].n_max, cases[i].s);
			/* O'Brien-Fleming's first looks are 2 - 2 Phi(z) with Phi(z) near 1, which
			 * both sides compute to about 1e-16 absolute */
			ck_assert_msg(fabs(a - cases[i].want[k]) <= 1e-9 * cases[i].want[k] + 1e-15,
				      "case %zu look %zu: %.17g, want %.17g", i, k, a,
				      cases[i].want[k]);
			ck_assert(a > 0);
			sum += a;
			prev = cases[i].looks[k];
		}
		ck_assert_double_eq_tol(sum, cases[i].alpha, 1e-15);
	}
	/* Pocock spends evenly, O'Brien-Fleming keeps nearly all for the end: at the first of
	 * four looks 0.0179 against 0.0000886 */
	ck_assert(stats_seq_alpha(0.05, 0, 4, 16, STATS_SPEND_POCOCK) >
		  100 * stats_seq_alpha(0.05, 0, 4, 16, STATS_SPEND_OBF));
	/* one look at the end is the whole alpha; every look at n_max leaves nothing behind */
	for (int s = 0; s < 2; s++) {
		enum stats_spending sp = s ? STATS_SPEND_OBF : STATS_SPEND_POCOCK;
		ck_assert_double_eq_tol(stats_seq_alpha(0.05, 0, 12, 12, sp), 0.05, 1e-17);
		double sum = 0;
		for (size_t n = 1; n <= 37; n++)
			sum += stats_seq_alpha(0.05, n - 1, n, 37, sp);
		ck_assert_double_eq_tol(sum, 0.05, 1e-15);
		/* NaN unless 0 <= prev < n <= n_max and 0 < alpha < 1 */
		ck_assert(isnan(stats_seq_alpha(0.05, 4, 4, 16, sp)));
		ck_assert(isnan(stats_seq_alpha(0.05, 8, 4, 16, sp)));
		ck_assert(isnan(stats_seq_alpha(0.05, 0, 17, 16, sp)));
		ck_assert(isnan(stats_seq_alpha(0.05, 0, 0, 16, sp)));
		ck_assert(isnan(stats_seq_alpha(0, 0, 4, 16, sp)));
		ck_assert(isnan(stats_seq_alpha(1, 0, 4, 16, sp)));
		ck_assert(isnan(stats_seq_alpha(NAN, 0, 4, 16, sp)));
	}
}
END_TEST

/* A planted 6 blocks x 3 cells matrix of log ratios; blocks 1 and 3 lack a cell, so the
 * blocks used are 0, 2, 4, 5 with cell means -0.0044, -0.0031333, -0.0068333, -0.0035667.
 * scipy.stats.ttest_1samp of those four, confidence_interval(0.95), exponentiated:
 *   est 0.9955267018030005, CI [0.9929124141242104, 0.9981478727677383],
 *   p 0.012282622803294192; at 0.90 [0.9935928197292087, 0.9974643478934005]. */
START_TEST(geomean_t_complete_blocks)
{
	const double logr[] = {
		0.0213, -0.0412, 0.0067,
		-0.0105, NAN, 0.0121,
		0.0347, -0.0288, -0.0153,
		0.0081, -0.0501, NAN,
		-0.0062, -0.0337, 0.0194,
		0.0158, -0.0219, -0.0046,
	};
	double est, lo, hi, p;
	size_t nc;
	stats_geomean_t(logr, 6, 3, 0, 0.95, &est, &lo, &hi, &p, &nc);
	ck_assert_uint_eq(nc, 4);
	ck_assert_double_eq_tol(est, 0.9955267018030005, 1e-14);
	ck_assert_double_eq_tol(lo, 0.9929124141242104, 1e-9);
	ck_assert_double_eq_tol(hi, 0.9981478727677383, 1e-9);
	ck_assert_double_eq_tol(p, 0.012282622803294192, 1e-8);
	stats_geomean_t(logr, 6, 3, 0, 0.90, &est, &lo, &hi, &p, &nc);
	ck_assert_double_eq_tol(lo, 0.9935928197292087, 1e-9);
	ck_assert_double_eq_tol(hi, 0.9974643478934005, 1e-9);
	/* a block with a missing cell moves nothing: filling block 1's gap with any value
	 * makes it complete and changes the estimate, leaving the gap does not */
	double filled[18];
	memcpy(filled, logr, sizeof(filled));
	filled[4] = 0.25;
	double est2, lo2, hi2, p2;
	stats_geomean_t(filled, 6, 3, 0, 0.95, &est2, &lo2, &hi2, &p2, &nc);
	ck_assert_uint_eq(nc, 5);
	ck_assert(fabs(est2 - est) > 1e-3);
	/* -inf is missing too (not finite) */
	filled[4] = -INFINITY;
	stats_geomean_t(filled, 6, 3, 0, 0.95, &est2, &lo2, &hi2, &p2, &nc);
	ck_assert_uint_eq(nc, 4);
	ck_assert_double_eq_tol(est2, est, 1e-15);
	/* one complete block: an estimate, no CI or p */
	stats_geomean_t(logr + 3, 2, 3, 0, 0.95, &est, &lo, &hi, &p, &nc);
	ck_assert_uint_eq(nc, 1);
	ck_assert_double_eq_tol(est, exp((0.0347 - 0.0288 - 0.0153) / 3), 1e-15);
	ck_assert(isnan(lo) && isnan(hi) && isnan(p));
	/* none: nothing */
	stats_geomean_t(logr + 3, 1, 3, 0, 0.95, &est, &lo, &hi, &p, &nc);
	ck_assert_uint_eq(nc, 0);
	ck_assert(isnan(est) && isnan(lo) && isnan(hi) && isnan(p));
	stats_geomean_t(logr, 0, 3, 0, 0.95, &est, &lo, &hi, &p, &nc);
	ck_assert_uint_eq(nc, 0);
	ck_assert(isnan(est) && isnan(lo) && isnan(hi) && isnan(p));
	stats_geomean_t(logr, 6, 0, 0, 0.95, &est, &lo, &hi, &p, &nc);
	ck_assert_uint_eq(nc, 0);
	ck_assert(isnan(est));
	/* no scatter: the CI is the point */
	const double flat[] = { -0.0315, 0.0172, -0.0315, 0.0172, -0.0315, 0.0172 };
	stats_geomean_t(flat, 3, 2, 0, 0.95, &est, &lo, &hi, &p, &nc);
	ck_assert_uint_eq(nc, 3);
	ck_assert_double_eq_tol(est, exp((-0.0315 + 0.0172) / 2), 1e-15);
	ck_assert_double_eq_tol(lo, est, 1e-15);
	ck_assert_double_eq_tol(hi, est, 1e-15);
	ck_assert_double_eq_tol(p, 0, 1e-15);
}
END_TEST

/* ---- minimum detectable effect and blocks needed -------------------------------------- */

/* The signed-rank test, by hand (z from the normal quantile function, ARE factor
 * sqrt(pi/3)):
 *   z_0.975 = 1.959963984540054, z_0.8 = 0.841621233572914, sum 2.801585218112968
 *   sqrt(pi/3) = 1.023326707946489
 *   n = 10, sigma = 0.0317: delta = 2.801585 * 0.0317 * 1.023327 / sqrt(10) = 0.028739381
 *                           mde = exp(delta) - 1 = 0.029156342
 *   margin 0.02: n = (2.801585 * 0.0317 * 1.023327 / log(1.02))^2 = 21.0625 -> 22
 *   alpha 0.01, power 0.9: z_0.995 + z_0.9 = 2.575829304 + 1.281551566 = 3.857380869
 *   n = 17, sigma = 0.0483: delta = 3.857381 * 0.0483 * 1.023327 / sqrt(17) = 0.046241243
 *                           mde = 0.047327041
 *   margin 0.035: n = (3.857381 * 0.0483 * 1.023327 / log(1.035))^2 = 30.7153 -> 31 */
START_TEST(mde_and_blocks_needed_rank)
{
	const enum stats_test R = STATS_TEST_RANK;
	ck_assert_double_eq_tol(stats_mde(10, 0.0317, 0.05, 0.8, R), 0.029156342, 1e-8);
	ck_assert_double_eq_tol(stats_blocks_needed(0.02, 0.0317, 0.05, 0.8, R), 22, 1e-12);
	ck_assert_double_eq_tol(stats_mde(17, 0.0483, 0.01, 0.9, R), 0.047327041, 1e-8);
	ck_assert_double_eq_tol(stats_blocks_needed(0.035, 0.0483, 0.01, 0.9, R), 31, 1e-12);
	/* the two agree: the blocks needed detect the margin, one fewer does not */
	ck_assert(stats_mde(22, 0.0317, 0.05, 0.8, R) <= 0.02);
	ck_assert(stats_mde(21, 0.0317, 0.05, 0.8, R) > 0.02);
	/* the floor: (2.801585 * 0.004 * 1.023327 / log(1.05))^2 = 0.055 would be 1 block, but
	 * the exact signed-rank p needs 2/2^n < alpha: n = 6 at 0.05, n = 8 at 0.01 (2/256) */
	ck_assert_double_eq_tol(stats_blocks_needed(0.05, 0.004, 0.05, 0.8, R), 6, 1e-12);
	ck_assert_double_eq_tol(stats_blocks_needed(0.05, 0.004, 0.01, 0.8, R), 8, 1e-12);
	ck_assert_double_eq_tol(stats_blocks_needed(0.05, 0, 0.05, 0.8, R), 6, 1e-12);
	ck_assert_double_eq_tol(stats_mde(10, 0, 0.05, 0.8, R), 0, 1e-15);
	/* one block has a (normal-approximation) figure for the rank test */
	ck_assert(isfinite(stats_mde(1, 0.0317, 0.05, 0.8, R)));
	/* NaN where nothing can be said */
	ck_assert(isnan(stats_mde(10, NAN, 0.05, 0.8, R)));
	ck_assert(isnan(stats_mde(10, INFINITY, 0.05, 0.8, R)));
	ck_assert(isnan(stats_mde(10, -0.0317, 0.05, 0.8, R)));
	ck_assert(isnan(stats_mde(0, 0.0317, 0.05, 0.8, R)));
	ck_assert(isnan(stats_mde(10, 0.0317, 0, 0.8, R)));
	ck_assert(isnan(stats_mde(10, 0.0317, 0.05, 1, R)));
	ck_assert(isnan(stats_blocks_needed(0.02, NAN, 0.05, 0.8, R)));
	ck_assert(isnan(stats_blocks_needed(0, 0.0317, 0.05, 0.8, R)));
	ck_assert(isnan(stats_blocks_needed(-0.02, 0.0317, 0.05, 0.8, R)));
	ck_assert(isnan(stats_blocks_needed(INFINITY, 0.0317, 0.05, 0.8, R)));
	ck_assert(isnan(stats_blocks_needed(0.02, 0.0317, 1.5, 0.8, R)));
	ck_assert(isnan(stats_blocks_needed(0.02, 0.0317, 0.05, 0, R)));
}
END_TEST

/* The t test, against Python (scipy.stats.t.ppf):
 *   mde = expm1((t.ppf(1 - alpha/2, n-1) + t.ppf(power, n-1)) sigma / sqrt(n))
 *   n = 10, sigma 0.0317, 0.05, 0.8: t 2.2621571627 + 0.8834038597: 0.03203483919479094
 *   n = 17, sigma 0.0483, 0.01, 0.9: t 2.9207816223 + 1.3367571673: 0.05113949951703842
 *   n = 3,  sigma 0.0317, 0.05, 0.8: t 4.3026527299 + 1.0606601718: 0.10313858014524595
 *   n = 2,  sigma 0.004,  0.05, 0.8: t 12.706204736 + 1.3763819205: 0.040635485286639045
 * and blocks needed, the smallest n >= 2 with that sum times sigma / sqrt(n) at most
 * log(1 + effect), by walking n up in Python:
 *   effect 0.02,  sigma 0.0317, 0.05, 0.8: 23 (mde 0.0195702 at 23, 0.0200596 at 22; the
 *                                          normal formula's 20.11 is a lower bound)
 *   effect 0.035, sigma 0.0483, 0.01, 0.9: 33 (0.0346130 at 33, 0.0352160 at 32)
 *   effect 0.05,  sigma 0.004,  0.05, 0.8: 2  (the rank test: 6)
 *   effect 0.05,  sigma 0.004,  0.01, 0.8: 3  (mde 0.0256945 at 3, 0.2019454 at 2; rank: 8)
 *   effect 0.005, sigma 0.0317, 0.05, 0.8: 320 (0.0049923 at 320, 0.0050002 at 319)
 * SciPy 1.10's t.ppf is good to about 2e-9 relative (GSL's is closer), so the figures are
 * compared to 1e-10; the boundaries above are far wider apart than that. */
START_TEST(mde_and_blocks_needed_t)
{
	const enum stats_test T = STATS_TEST_T;
	ck_assert_double_eq_tol(stats_mde(10, 0.0317, 0.05, 0.8, T), 0.03203483919479094, 1e-10);
	ck_assert_double_eq_tol(stats_mde(17, 0.0483, 0.01, 0.9, T), 0.05113949951703842, 1e-10);
	ck_assert_double_eq_tol(stats_mde(3, 0.0317, 0.05, 0.8, T), 0.10313858014524595, 1e-10);
	ck_assert_double_eq_tol(stats_mde(2, 0.004, 0.05, 0.8, T), 0.040635485286639045, 1e-10);
	ck_assert_double_eq_tol(stats_blocks_needed(0.02, 0.0317, 0.05, 0.8, T), 23, 1e-12);
	ck_assert_double_eq_tol(stats_blocks_needed(0.035, 0.0483, 0.01, 0.9, T), 33, 1e-12);
	ck_assert_double_eq_tol(stats_blocks_needed(0.05, 0.004, 0.05, 0.8, T), 2, 1e-12);
	ck_assert_double_eq_tol(stats_blocks_needed(0.05, 0.004, 0.01, 0.8, T), 3, 1e-12);
	ck_assert_double_eq_tol(stats_blocks_needed(0.005, 0.0317, 0.05, 0.8, T), 320, 1e-12);
	/* the two agree at the boundary */
	ck_assert(stats_mde(23, 0.0317, 0.05, 0.8, T) <= 0.02);
	ck_assert(stats_mde(22, 0.0317, 0.05, 0.8, T) > 0.02);
	ck_assert(stats_mde(320, 0.0317, 0.05, 0.8, T) <= 0.005);
	ck_assert(stats_mde(319, 0.0317, 0.05, 0.8, T) > 0.005);
	/* at 10 blocks the t quantiles ask for more than the rank test's normal approximation,
	 * its 3/pi efficiency included; but the t test has no floor at small n (above) */
	ck_assert(stats_mde(10, 0.0317, 0.05, 0.8, T) > stats_mde(10, 0.0317, 0.05, 0.8,
								  STATS_TEST_RANK));
	/* the 20%-trimmed t: h - 1 degrees of freedom (g = floor(0.2 n) cut from each end) and
	 * sigma / sqrt(0.94); SciPy 1.10's t.ppf: at 5 blocks 0.0815800734856513, at 10
	 * 0.03674480020541174, at 4 (nothing cut) 0.07038972258085968; 25 blocks for 2% */
	const enum stats_test TR = STATS_TEST_TRIMMED;
	ck_assert_double_eq_tol(stats_mde(5, 0.0317, 0.05, 0.8, TR), 0.0815800734856513, 1e-10);
	ck_assert_double_eq_tol(stats_mde(10, 0.0317, 0.05, 0.8, TR), 0.03674480020541174, 1e-10);
	ck_assert_double_eq_tol(stats_mde(4, 0.0317, 0.05, 0.8, TR), 0.07038972258085968, 1e-10);
	ck_assert_double_eq_tol(stats_blocks_needed(0.02, 0.0317, 0.05, 0.8, TR), 25, 1e-12);
	ck_assert(stats_t_df(5, 0.2) == 2 && stats_t_df(4, 0.2) == 3 && stats_t_df(10, 0.2) == 5 &&
		  stats_t_df(2, 0.4) == 1 && stats_t_df(10, 0) == 9);
	/* no scatter: 2 blocks, nothing undetectable */
	ck_assert_double_eq_tol(stats_blocks_needed(0.05, 0, 0.05, 0.8, T), 2, 1e-12);
	ck_assert_double_eq_tol(stats_mde(10, 0, 0.05, 0.8, T), 0, 1e-15);
	/* beyond reach: the most blocks a plan counts */
	ck_assert_double_eq_tol(stats_blocks_needed(1e-6, 0.5, 0.05, 0.8, T), 100000, 1e-12);
	/* NaN where nothing can be said: one block has no t */
	ck_assert(isnan(stats_mde(1, 0.0317, 0.05, 0.8, T)));
	ck_assert(isnan(stats_mde(0, 0.0317, 0.05, 0.8, T)));
	ck_assert(isnan(stats_mde(10, NAN, 0.05, 0.8, T)));
	ck_assert(isnan(stats_mde(10, INFINITY, 0.05, 0.8, T)));
	ck_assert(isnan(stats_mde(10, -0.0317, 0.05, 0.8, T)));
	ck_assert(isnan(stats_mde(10, 0.0317, 0, 0.8, T)));
	ck_assert(isnan(stats_mde(10, 0.0317, 0.05, 1, T)));
	ck_assert(isnan(stats_blocks_needed(0.02, NAN, 0.05, 0.8, T)));
	ck_assert(isnan(stats_blocks_needed(0, 0.0317, 0.05, 0.8, T)));
	ck_assert(isnan(stats_blocks_needed(-0.02, 0.0317, 0.05, 0.8, T)));
	ck_assert(isnan(stats_blocks_needed(0.02, 0.0317, 1.5, 0.8, T)));
	ck_assert(isnan(stats_blocks_needed(0.02, 0.0317, 0.05, NAN, T)));
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
 * By the rank tests:
 *   ratio     median ratio (exp(-0.0383) + exp(-0.0361)) / 2 = 0.963484002301749
 *   hl_ratio  exp(median of the 55 Walsh averages) = exp(-0.03765) = 0.963049949393559
 *   p         exact signed-rank, all 10 of one sign: 2 / 2^10 = 0.001953125; sign test alike
 *   os CI     P(B(10, 1/2) <= 1) = 11/1024, so (x_(2), x_(9)) covers 1 - 22/1024 = 0.978515625
 *             (x_(3), x_(8) would cover 0.890625 < 0.95): exp(-0.0535), exp(-0.0259)
 *   sigma_log sample sd of the log ratios = 0.012679397111500
 * By the t test (scipy.stats.ttest_1samp of the log ratios, its confidence_interval(0.95),
 * exponentiated; the planning figures as in mde_and_blocks_needed_t):
 *   ratio     exp(-0.03834) = 0.9623856741297986
 *   CI        [0.9536960212770389, 0.9711545032242714], t -9.5621049, 9 df,
 *   p         5.18775453603068e-06
 *   mde       0.012692241838433366, blocks for 2%: 6 */
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

	/* the rank tests */
	ck_assert_int_eq(stats_compare_paired(mode, PLANTED_BASE, 10, &OPTS_RANK, r, &c, &cause),
			 0);
	ck_assert_int_eq(c.paired, 1);
	ck_assert_int_eq(c.test, STATS_TEST_RANK);
	ck_assert_uint_eq(c.n, 10);
	ck_assert_uint_eq(c.n_base, 10);
	ck_assert_double_eq_tol(c.ratio, 0.963484002301749, 1e-12);
	ck_assert_double_eq_tol(c.median_ratio, 0.963484002301749, 1e-12);
	ck_assert_double_eq_tol(c.hl_ratio, 0.963049949393559, 1e-12);
	ck_assert_double_eq_tol(c.p, 0.001953125, 1e-12);
	ck_assert_double_eq_tol(c.p_rank, 0.001953125, 1e-12);
	ck_assert_int_eq(c.p_rank_exact, 1);
	ck_assert_double_eq_tol(c.p_sign, 0.001953125, 1e-12);
	ck_assert_double_eq_tol(c.p_adj, c.p, 1e-15);
	ck_assert_double_eq_tol(c.os_lo, exp(-0.0535), 1e-12);
	ck_assert_double_eq_tol(c.os_hi, exp(-0.0259), 1e-12);
	ck_assert_double_eq_tol(c.os_coverage, 0.978515625, 1e-12);
	/* the deciding CI is the order-statistic one */
	ck_assert_double_eq_tol(c.lo, c.os_lo, 1e-15);
	ck_assert_double_eq_tol(c.hi, c.os_hi, 1e-15);
	ck_assert_double_eq_tol(c.sigma_log, 0.012679397111500, 1e-12);
	/* the t test's p is reported beside it */
	ck_assert_double_eq_tol(c.p_t, 5.18775453603068e-06, 5.18775453603068e-12);
	ck_assert_double_eq_tol(c.df, 9, 1e-12);
	ck_assert_double_eq_tol(c.mde, stats_mde(10, c.sigma_log, 0.05, 0.8, STATS_TEST_RANK),
				1e-15);
	ck_assert_double_eq_tol(c.blocks_needed,
				stats_blocks_needed(0.02, c.sigma_log, 0.05, 0.8, STATS_TEST_RANK),
				1e-15);
	ck_assert(isnan(c.floor));
	ck_assert_double_eq_tol(c.margin, 0.02, 1e-15);
	ck_assert_int_eq(c.ci_short, 0);
	ck_assert_int_eq(c.verdict, VERDICT_FASTER);
	ck_assert_int_eq(c.inside_margin, 0);
	/* swapped: SLOWER, the ratio inverted */
	ck_assert_int_eq(stats_compare_paired(PLANTED_BASE, mode, 10, &OPTS_RANK, r, &c, &cause),
			 0);
	ck_assert_int_eq(c.verdict, VERDICT_SLOWER);
	ck_assert_double_eq_tol(c.hl_ratio, 1 / 0.963049949393559, 1e-12);

	/* the t test */
	ck_assert_int_eq(stats_compare_paired(mode, PLANTED_BASE, 10, &OPTS, r, &c, &cause), 0);
	ck_assert_int_eq(c.test, STATS_TEST_T);
	ck_assert_double_eq_tol(c.ratio, 0.9623856741297986, 1e-12);
	ck_assert_double_eq_tol(c.lo, 0.9536960212770389, 1e-9);
	ck_assert_double_eq_tol(c.hi, 0.9711545032242714, 1e-9);
	ck_assert_double_eq_tol(c.p, 5.18775453603068e-06, 5.18775453603068e-12);
	ck_assert_double_eq_tol(c.p_t, c.p, 1e-15);
	ck_assert_double_eq_tol(c.p_adj, c.p, 1e-15);
	ck_assert_double_eq_tol(c.df, 9, 1e-12);
	/* everything else is computed all the same */
	ck_assert_double_eq_tol(c.median_ratio, 0.963484002301749, 1e-12);
	ck_assert_double_eq_tol(c.hl_ratio, 0.963049949393559, 1e-12);
	ck_assert_double_eq_tol(c.p_rank, 0.001953125, 1e-12);
	ck_assert_double_eq_tol(c.p_sign, 0.001953125, 1e-12);
	ck_assert_double_eq_tol(c.os_lo, exp(-0.0535), 1e-12);
	ck_assert_double_eq_tol(c.os_hi, exp(-0.0259), 1e-12);
	ck_assert_double_eq_tol(c.sigma_log, 0.012679397111500, 1e-12);
	ck_assert_double_eq_tol(c.mde, 0.012692241838433366, 1e-10);
	ck_assert_double_eq_tol(c.blocks_needed, 6, 1e-12);
	ck_assert_int_eq(c.ci_short, 0);
	ck_assert_int_eq(c.verdict, VERDICT_FASTER);
	ck_assert_int_eq(c.inside_margin, 0);
	/* the planning figure aims at the larger of floor and margin */
	struct stats_compare_opts o = OPTS;
	o.floor = 0.03;
	ck_assert_int_eq(stats_compare_paired(mode, PLANTED_BASE, 10, &o, r, &c, &cause), 0);
	ck_assert_double_eq_tol(c.blocks_needed,
				stats_blocks_needed(0.03, c.sigma_log, 0.05, 0.8, STATS_TEST_T), 1e-15);
	ck_assert_int_eq(c.verdict, VERDICT_FASTER); /* the CI reaches beyond 3% */
	o.floor = NAN;
	o.margin = NAN;
	ck_assert_int_eq(stats_compare_paired(mode, PLANTED_BASE, 10, &o, r, &c, &cause), 0);
	ck_assert_double_eq_tol(c.blocks_needed,
				stats_blocks_needed(0.01, c.sigma_log, 0.05, 0.8, STATS_TEST_T), 1e-15);
	/* swapped: SLOWER, the ratio and the CI inverted */
	ck_assert_int_eq(stats_compare_paired(PLANTED_BASE, mode, 10, &OPTS, r, &c, &cause), 0);
	ck_assert_int_eq(c.verdict, VERDICT_SLOWER);
	ck_assert_double_eq_tol(c.ratio, 1 / 0.9623856741297986, 1e-12);
	ck_assert_double_eq_tol(c.lo, 1 / 0.9711545032242714, 1e-9);
	ck_assert_double_eq_tol(c.hi, 1 / 0.9536960212770389, 1e-9);
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
	ck_assert(isnan(c.p_t) && isnan(c.df));
	ck_assert_double_eq_tol(c.ratio, 0.5127 / 1.7231, 1e-12);
	ck_assert(isnan(c.sigma_log) && isnan(c.mde) && isnan(c.blocks_needed));
	ck_assert_int_eq(c.ci_short, 1);
	ck_assert_int_eq(c.verdict, VERDICT_INCONCLUSIVE);
	ck_assert_int_eq(stats_compare_paired(&m1, &b1, 1, &OPTS_RANK, r, &c, &cause), 0);
	ck_assert_double_eq_tol(c.p, 1, 1e-15);
	ck_assert_double_eq_tol(c.ratio, 0.5127 / 1.7231, 1e-12);
	ck_assert(isnan(c.sigma_log) && isnan(c.mde) && isnan(c.blocks_needed));
	ck_assert_int_eq(c.ci_short, 1);
	ck_assert_int_eq(c.verdict, VERDICT_INCONCLUSIVE);
	/* every ratio exactly 1: CI [1, 1], p = 1 (no scatter and no difference; no non-zero
	 * differences for the signed-rank test): SAME inside the declared margin, by both */
	for (int k = 0; k < 2; k++) {
		const struct stats_compare_opts *o = k ? &OPTS_RANK : &OPTS;
		ck_assert_int_eq(stats_compare_paired(PLANTED_BASE, PLANTED_BASE, 10, o, r, &c,
						      &cause), 0);
		ck_assert_double_eq_tol(c.ratio, 1, 1e-15);
		ck_assert_double_eq_tol(c.lo, 1, 1e-15);
		ck_assert_double_eq_tol(c.hi, 1, 1e-15);
		ck_assert_double_eq_tol(c.p, 1, 1e-15);
		ck_assert_double_eq_tol(c.p_t, 1, 1e-15);
		ck_assert_double_eq_tol(c.p_rank, 1, 1e-15);
		ck_assert_double_eq_tol(c.sigma_log, 0, 1e-15);
		ck_assert_int_eq(c.verdict, VERDICT_SAME);
	}
	/* every ratio 0.95: CI [0.95, 0.95]: FASTER by both, the signed-rank p from all ten
	 * signs agreeing, the t test's from no scatter at all (p = 0, or the t of rounding) */
	double mode[10];
	for (int i = 0; i < 10; i++)
		mode[i] = PLANTED_BASE[i] * 0.95;
	ck_assert_int_eq(stats_compare_paired(mode, PLANTED_BASE, 10, &OPTS_RANK, r, &c, &cause),
			 0);
	ck_assert_double_eq_tol(c.lo, 0.95, 1e-12);
	ck_assert_double_eq_tol(c.hi, 0.95, 1e-12);
	ck_assert_double_eq_tol(c.p, 0.001953125, 1e-12);
	ck_assert_int_eq(c.verdict, VERDICT_FASTER);
	ck_assert_int_eq(stats_compare_paired(mode, PLANTED_BASE, 10, &OPTS, r, &c, &cause), 0);
	ck_assert_double_eq_tol(c.ratio, 0.95, 1e-12);
	ck_assert_double_eq_tol(c.lo, 0.95, 1e-12);
	ck_assert_double_eq_tol(c.hi, 0.95, 1e-12);
	ck_assert(c.p < 1e-10);
	ck_assert_int_eq(c.verdict, VERDICT_FASTER);
	/* three blocks, all faster by 5%: the signed-rank p is 2/2^3 = 0.25 at best, so
	 * INCONCLUSIVE; the t test, whose power grows with the effect over the noise and not
	 * with 2^n, says FASTER */
	ck_assert_int_eq(stats_compare_paired(mode, PLANTED_BASE, 3, &OPTS_RANK, r, &c, &cause), 0);
	ck_assert_double_eq_tol(c.p, 0.25, 1e-12);
	ck_assert_int_eq(c.verdict, VERDICT_INCONCLUSIVE);
	ck_assert_double_eq_tol(c.os_lo, 0.95, 1e-12);
	ck_assert_double_eq_tol(c.os_coverage, 0.75, 1e-12); /* [min, max] of 3: 1 - 2/8 */
	ck_assert_int_eq(stats_compare_paired(mode, PLANTED_BASE, 3, &OPTS, r, &c, &cause), 0);
	ck_assert_double_eq_tol(c.p_rank, 0.25, 1e-12);
	ck_assert(c.p < 1e-10);
	ck_assert_int_eq(c.verdict, VERDICT_FASTER);
	gsl_rng_free(r);
}
END_TEST

/* Unpaired planted data: all 8 mode units below all 11 baseline units.  By the rank tests:
 *   ratio    median(mode) / median(base) = 1.63005 / 1.7145 = 0.950743657042870
 *   hl_ratio exp(median of the 88 log differences) = 0.950821641119933
 *   p        exact Mann-Whitney, complete separation: 2 / C(19, 8) = 2 / 75582
 *   sigma    pooled sd of the logs = 0.015964693693290
 *   mde      exp(2.801585 * 0.0159647 * 1.023327 * sqrt(1/8 + 1/11)) - 1 = 0.021495153004518
 *   units    2 * (2.801585 * 0.0159647 * 1.023327 / log(1.02))^2 = 10.68 -> 11 per arm
 * By Welch's t test of the logs (scipy.stats.ttest_ind(equal_var=False); the CI from the
 * Welch-Satterthwaite df and scipy.stats.t.ppf; planning with t on 8 + 11 - 2 df):
 *   ratio    exp(mean log mode - mean log base) = 0.9501273791995919
 *   CI       [0.9340874684970153, 0.9664427231394441], t -6.5412776, 12.092734821154128 df
 *   p        2.6640912356532834e-05
 *   mde      expm1((t.ppf(0.975, 17) + t.ppf(0.8, 17)) sigma sqrt(1/8 + 1/11))
 *            = 0.022299891059976838
 *   units    the smallest k with (t.ppf(0.975, 2k-2) + t.ppf(0.8, 2k-2)) sigma sqrt(2/k)
 *            <= log(1.02): 12 per arm
 *   3 and 3  t -2.9072686, p 0.05446360475612728 */
static const double U_MODE[8] = { 1.6342, 1.5987, 1.6718, 1.6120, 1.6495, 1.5831, 1.6603, 1.6259 };
static const double U_BASE[11] = { 1.7011, 1.7352, 1.6894, 1.7520, 1.7198, 1.6775,
				   1.7436, 1.7089, 1.7263, 1.6950, 1.7145 };

START_TEST(compare_unpaired_planted)
{
	gsl_rng *r = rng_new(1414);
	struct stats_comparison c;
	char *cause = NULL;
	/* the rank tests */
	ck_assert_int_eq(stats_compare_unpaired(U_MODE, 8, U_BASE, 11, &OPTS_RANK, r, &c, &cause),
			 0);
	ck_assert_int_eq(c.paired, 0);
	ck_assert_uint_eq(c.n, 8);
	ck_assert_uint_eq(c.n_base, 11);
	ck_assert_double_eq_tol(c.ratio, 0.950743657042870, 1e-12);
	ck_assert_double_eq_tol(c.median_ratio, 0.950743657042870, 1e-12);
	ck_assert_double_eq_tol(c.hl_ratio, 0.950821641119933, 1e-12);
	ck_assert_double_eq_tol(c.p, 2.0 / 75582, 1e-12);
	ck_assert_double_eq_tol(c.p_rank, 2.0 / 75582, 1e-12);
	ck_assert_int_eq(c.p_rank_exact, 1);
	ck_assert(isnan(c.p_sign) && isnan(c.os_lo) && isnan(c.os_hi) && isnan(c.os_coverage));
	ck_assert_double_eq_tol(c.sigma_log, 0.015964693693290, 1e-12);
	ck_assert_double_eq_tol(c.mde, 0.021495153004518, 1e-10);
	ck_assert_double_eq_tol(c.blocks_needed, 11, 1e-12);
	ck_assert_double_eq_tol(c.p_t, 2.6640912356532834e-05, 2.7e-11);
	ck_assert_double_eq_tol(c.df, 12.092734821154128, 1e-9);
	/* the bootstrap interval brackets the ratio */
	ck_assert(c.lo < c.ratio && c.ratio < c.hi && c.hi < 1);
	ck_assert_int_eq(c.verdict, VERDICT_FASTER);
	/* three units a side can never reach p < 0.05 (2 / C(6, 3) = 0.1): INCONCLUSIVE */
	ck_assert_int_eq(stats_compare_unpaired(U_MODE, 3, U_BASE, 3, &OPTS_RANK, r, &c, &cause),
			 0);
	ck_assert_double_eq_tol(c.p, 0.1, 1e-12);
	ck_assert_int_eq(c.verdict, VERDICT_INCONCLUSIVE);
	/* one unit on a side: no CI */
	ck_assert_int_eq(stats_compare_unpaired(U_MODE, 1, U_BASE, 11, &OPTS_RANK, r, &c, &cause),
			 0);
	ck_assert(isnan(c.lo) && isnan(c.hi));
	ck_assert(isnan(c.p_t));
	ck_assert_int_eq(c.verdict, VERDICT_INCONCLUSIVE);
	ck_assert(isfinite(c.sigma_log)); /* the baseline's spread alone */
	ck_assert_int_eq(stats_compare_unpaired(U_MODE, 1, U_BASE, 1, &OPTS_RANK, r, &c, &cause),
			 0);
	ck_assert(isnan(c.sigma_log) && isnan(c.mde));
	/* the floor: a tiny spread still needs 4 units per arm at 0.05 (2 / C(8, 4) = 0.029) */
	const double tight[4] = { 1.0001, 1.0002, 1.0003, 1.0004 };
	ck_assert_int_eq(stats_compare_unpaired(tight, 4, tight, 4, &OPTS_RANK, r, &c, &cause), 0);
	ck_assert_double_eq_tol(c.blocks_needed, 4, 1e-12);

	/* Welch's t test */
	ck_assert_int_eq(stats_compare_unpaired(U_MODE, 8, U_BASE, 11, &OPTS, r, &c, &cause), 0);
	ck_assert_int_eq(c.test, STATS_TEST_T);
	ck_assert_double_eq_tol(c.ratio, 0.9501273791995919, 1e-12);
	ck_assert_double_eq_tol(c.lo, 0.9340874684970153, 1e-9);
	ck_assert_double_eq_tol(c.hi, 0.9664427231394441, 1e-9);
	ck_assert_double_eq_tol(c.p, 2.6640912356532834e-05, 2.7e-11);
	ck_assert_double_eq_tol(c.df, 12.092734821154128, 1e-9);
	ck_assert_double_eq_tol(c.median_ratio, 0.950743657042870, 1e-12);
	ck_assert_double_eq_tol(c.p_rank, 2.0 / 75582, 1e-12);
	ck_assert_double_eq_tol(c.sigma_log, 0.015964693693290, 1e-12);
	ck_assert_double_eq_tol(c.mde, 0.022299891059976838, 1e-10);
	ck_assert_double_eq_tol(c.blocks_needed, 12, 1e-12);
	ck_assert_int_eq(c.ci_short, 0);
	ck_assert_int_eq(c.verdict, VERDICT_FASTER);
	/* three a side: p 0.054 misses 0.05; the CI is wider than the margin */
	ck_assert_int_eq(stats_compare_unpaired(U_MODE, 3, U_BASE, 3, &OPTS, r, &c, &cause), 0);
	ck_assert_double_eq_tol(c.p, 0.05446360475612728, 1e-8);
	ck_assert_int_eq(c.verdict, VERDICT_INCONCLUSIVE);
	/* one unit on a side: no Welch test, no CI, p = 1 */
	ck_assert_int_eq(stats_compare_unpaired(U_MODE, 1, U_BASE, 11, &OPTS, r, &c, &cause), 0);
	ck_assert(isnan(c.lo) && isnan(c.hi) && isnan(c.p_t));
	ck_assert_double_eq_tol(c.p, 1, 1e-15);
	ck_assert_int_eq(c.ci_short, 1);
	ck_assert_int_eq(c.verdict, VERDICT_INCONCLUSIVE);
	/* no floor on the units: 2 per arm for a tiny spread */
	ck_assert_int_eq(stats_compare_unpaired(tight, 4, tight, 4, &OPTS, r, &c, &cause), 0);
	ck_assert_double_eq_tol(c.blocks_needed, 2, 1e-12);
	ck_assert_int_eq(c.verdict, VERDICT_SAME);
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
	o.margin = 1;
	expect_paired_error(good, good, 3, &o, r, "equivalence margin 1 is out of range");
	o = OPTS;
	o.floor = -0.005;
	expect_paired_error(good, good, 3, &o, r, "noise floor -0.005 is out of range");
	o.floor = 1.5;
	expect_paired_error(good, good, 3, &o, r, "noise floor 1.5 is out of range");
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
 * per-block ratio is ratio * exp(e_m - e_b), whose median and geometric mean are ratio. */
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
static struct stats_compare_opts sim_opts(enum stats_test test)
{
	struct stats_compare_opts o = test == STATS_TEST_RANK ? OPTS_RANK : OPTS;
	o.nboot = 2000;
	o.test = test;
	return o;
}

/* The bound on a false-call rate measured in nsim trials: alpha plus 3 binomial standard
 * errors, sqrt(alpha (1 - alpha) / nsim). */
static double rate_bound(double alpha, int nsim)
{
	return alpha + 3 * sqrt(alpha * (1 - alpha) / nsim);
}

static int is_call(enum stats_verdict v)
{
	return v == VERDICT_FASTER || v == VERDICT_SLOWER;
}

/* (a) No true effect, n = 10, sigma 2-5%: FASTER or SLOWER at most 5% of the time, plus 3
 * Monte Carlo standard errors, by either test on the same data (the exact signed-rank test's
 * real size at n = 10 is below 0.05; the t test's is 0.05 on these normal log ratios; the CI
 * condition only removes calls). */
START_TEST(sim_false_positive_rate)
{
	int nsim = under_valgrind() ? 50 : 1000;
	gsl_rng *d = rng_new(20241121), *b = rng_new(11);
	struct stats_compare_opts o[2] = { sim_opts(STATS_TEST_RANK), sim_opts(STATS_TEST_T) };
	double mode[10], base[10];
	int calls[2] = { 0, 0 }, same[2] = { 0, 0 };
	for (int s = 0; s < nsim; s++) {
		double sigma = 0.02 + 0.03 * gsl_rng_uniform(d);
		sim_paired(d, 10, 1.0, sigma, mode, base);
		for (int k = 0; k < 2; k++) {
			struct stats_comparison c;
			char *cause = NULL;
			ck_assert_int_eq(stats_compare_paired(mode, base, 10, &o[k], b, &c, &cause),
					 0);
			calls[k] += is_call(c.verdict);
			same[k] += c.verdict == VERDICT_SAME;
		}
	}
	double bound = rate_bound(0.05, nsim);
	for (int k = 0; k < 2; k++) {
		double rate = (double)calls[k] / nsim;
		fprintf(stderr, "test-decide: A/A n=10, %s test: %d of %d FASTER/SLOWER (%.2f%%, "
			"bound %.2f%%), %d SAME\n", stats_test_name(o[k].test), calls[k], nsim,
			100 * rate, 100 * bound, same[k]);
		if (!under_valgrind())
			ck_assert_msg(rate <= bound,
				      "%s test: false FASTER/SLOWER rate %.4f > %.4f (%d of %d)",
				      stats_test_name(o[k].test), rate, bound, calls[k], nsim);
	}
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
 * at least 90% of simulations at n = 12 by either test, and never by the signed-rank test at
 * n = 3, where its exact p cannot fall below 2 / 2^3 = 0.25.  The t test's power at n = 3 is
 * 0.4127 by the noncentral t (scipy.stats.nct, noncentrality 3.1411 on 2 df): its rate there
 * must lie within 4 binomial standard errors of that, never SLOWER. */
START_TEST(sim_power_and_small_n)
{
	int nsim = under_valgrind() ? 25 : 500;
	gsl_rng *d = rng_new(1618033), *b = rng_new(13);
	struct stats_compare_opts o[2] = { sim_opts(STATS_TEST_RANK), sim_opts(STATS_TEST_T) };
	double mode[12], base[12];
	int faster[2] = { 0, 0 };
	for (int s = 0; s < nsim; s++) {
		sim_paired(d, 12, 0.95, 0.02, mode, base);
		for (int k = 0; k < 2; k++) {
			struct stats_comparison c;
			char *cause = NULL;
			ck_assert_int_eq(stats_compare_paired(mode, base, 12, &o[k], b, &c, &cause),
					 0);
			faster[k] += c.verdict == VERDICT_FASTER;
		}
	}
	for (int k = 0; k < 2; k++) {
		double rate = (double)faster[k] / nsim;
		fprintf(stderr, "test-decide: ratio 0.95, n=12, %s test: FASTER in %.2f%% (%d of %d)\n",
			stats_test_name(o[k].test), 100 * rate, faster[k], nsim);
		if (!under_valgrind())
			ck_assert_msg(rate >= 0.90, "%s test: power %.4f < 0.90 (%d of %d)",
				      stats_test_name(o[k].test), rate, faster[k], nsim);
	}

	double pmin = 1;
	int t_faster = 0;
	for (int s = 0; s < nsim; s++) {
		sim_paired(d, 3, 0.95, 0.02, mode, base);
		struct stats_comparison c;
		char *cause = NULL;
		ck_assert_int_eq(stats_compare_paired(mode, base, 3, &o[0], b, &c, &cause), 0);
		ck_assert_msg(c.p >= 0.25 - 1e-12, "p %g < 0.25 with 3 pairs", c.p);
		ck_assert_int_ne(c.verdict, VERDICT_FASTER);
		pmin = fmin(pmin, c.p);
		ck_assert_int_eq(stats_compare_paired(mode, base, 3, &o[1], b, &c, &cause), 0);
		ck_assert_int_ne(c.verdict, VERDICT_SLOWER);
		t_faster += c.verdict == VERDICT_FASTER;
	}
	double t_rate = (double)t_faster / nsim, t_se = sqrt(0.4127 * 0.5873 / nsim);
	fprintf(stderr, "test-decide: ratio 0.95, n=3: signed-rank never FASTER, smallest p %.4f; "
		"t FASTER in %.2f%% (%d of %d; noncentral t 41.27%%)\n", pmin, 100 * t_rate,
		t_faster, nsim);
	if (!under_valgrind())
		ck_assert_msg(fabs(t_rate - 0.4127) <= 4 * t_se,
			      "t test's power %.4f at n = 3, want 0.4127 +- %.4f", t_rate, 4 * t_se);
	gsl_rng_free(b);
	gsl_rng_free(d);
}
END_TEST

/* Unpaired A/A at 8 units a side: Mann-Whitney's exact size bounds the false calls, and
 * Welch's test's (0.05 on normal logs) too. */
START_TEST(sim_unpaired_false_positive_rate)
{
	int nsim = under_valgrind() ? 20 : 400;
	gsl_rng *d = rng_new(141421), *b = rng_new(14);
	struct stats_compare_opts o[2] = { sim_opts(STATS_TEST_RANK), sim_opts(STATS_TEST_T) };
	double mode[8], base[8];
	int calls[2] = { 0, 0 };
	for (int s = 0; s < nsim; s++) {
		for (int i = 0; i < 8; i++) {
			mode[i] = 1.7 * exp(gsl_ran_gaussian(d, 0.03));
			base[i] = 1.7 * exp(gsl_ran_gaussian(d, 0.03));
		}
		for (int k = 0; k < 2; k++) {
			struct stats_comparison c;
			char *cause = NULL;
			ck_assert_int_eq(stats_compare_unpaired(mode, 8, base, 8, &o[k], b, &c,
								&cause), 0);
			calls[k] += is_call(c.verdict);
		}
	}
	double bound = rate_bound(0.05, nsim);
	for (int k = 0; k < 2; k++) {
		double rate = (double)calls[k] / nsim;
		const char *name = k ? "Welch's t" : "Mann-Whitney";
		fprintf(stderr, "test-decide: unpaired A/A 8+8, %s test: %d of %d FASTER/SLOWER "
			"(%.2f%%)\n", name, calls[k], nsim, 100 * rate);
		if (!under_valgrind())
			ck_assert_msg(rate <= bound, "%s test: unpaired false call rate %.4f > %.4f",
				      name, rate, bound);
	}
	gsl_rng_free(b);
	gsl_rng_free(d);
}
END_TEST

/* (d) The t test's size when the per-unit medians are not log-normal: one process in five
 * runs 30% slower for its whole life (a bad placement, a throttled clock), in both arms
 * alike, on top of the block effect and a 1% per-unit noise.  The log ratio of a block is
 * then a symmetric mixture with atoms near 0 and +-log(1.3); a paired t test on 3, 6 and 10
 * such blocks must still call FASTER/SLOWER at most 5% of the time (plus 3 binomial
 * standard errors).  At n = 3 all three blocks have the slow process on the same side
 * 2 x 0.16^3 = 0.8% of the time, and t is then large; at n = 10 the mixture is closest to
 * normal. */
static double sim_unit(gsl_rng *d, double block, double sigma)
{
	double slow = gsl_rng_uniform(d) < 0.2 ? log(1.3) : 0;
	return 1.7 * exp(block + slow + gsl_ran_gaussian(d, sigma));
}

START_TEST(sim_t_mixture_false_positive_rate)
{
	int nsim = under_valgrind() ? 100 : 4000;
	gsl_rng *d = rng_new(300530), *b = rng_new(15);
	struct stats_compare_opts o[2] = { sim_opts(STATS_TEST_T), sim_opts(STATS_TEST_TRIMMED) };
	static const size_t ns[3] = { 3, 6, 10 };
	double bound = rate_bound(0.05, nsim);
	for (int k = 0; k < 3; k++) {
		size_t n = ns[k];
		double mode[10], base[10];
		int calls[2] = { 0, 0 };
		for (int s = 0; s < nsim; s++) {
			for (size_t i = 0; i < n; i++) {
				double block = gsl_ran_gaussian(d, 0.05);
				base[i] = sim_unit(d, block, 0.01);
				mode[i] = sim_unit(d, block, 0.01);
			}
			for (int j = 0; j < 2; j++) {
				struct stats_comparison c;
				char *cause = NULL;
				ck_assert_int_eq(stats_compare_paired(mode, base, n, &o[j], b, &c,
								      &cause),
						 0);
				calls[j] += is_call(c.verdict);
			}
		}
		for (int j = 0; j < 2; j++) {
			double rate = (double)calls[j] / nsim;
			fprintf(stderr, "test-decide: A/A with 1 in 5 processes 30%% slower, n=%zu, "
				"%s test: %d of %d FASTER/SLOWER (%.2f%%, bound %.2f%%)\n", n,
				stats_test_name(o[j].test), calls[j], nsim, 100 * rate,
				100 * bound);
			if (!under_valgrind())
				ck_assert_msg(rate <= bound,
					      "%s, n = %zu: false FASTER/SLOWER rate %.4f > %.4f "
					      "(%d of %d)",
					      stats_test_name(o[j].test), n, rate, bound, calls[j],
					      nsim);
		}
	}
	gsl_rng_free(b);
	gsl_rng_free(d);
}
END_TEST

/* (d') Why the default is the trimmed t: on the same mixture with the mode truly 10% faster
 * and 8 blocks, the 20%-trimmed t test (one block cut from each end) finds the difference
 * more often than Student's t, whose variance the slow processes inflate; the difference in
 * calls must exceed 4 standard errors of a difference of two proportions. */
START_TEST(sim_trimmed_mixture_power)
{
	int nsim = under_valgrind() ? 50 : 2000;
	gsl_rng *d = rng_new(300531), *b = rng_new(17);
	struct stats_compare_opts o[2] = { sim_opts(STATS_TEST_T), sim_opts(STATS_TEST_TRIMMED) };
	double mode[8], base[8];
	int faster[2] = { 0, 0 }, wrong[2] = { 0, 0 };
	for (int s = 0; s < nsim; s++) {
		for (size_t i = 0; i < 8; i++) {
			double block = gsl_ran_gaussian(d, 0.05);
			base[i] = sim_unit(d, block, 0.01);
			mode[i] = 0.9 * sim_unit(d, block, 0.01);
		}
		for (int j = 0; j < 2; j++) {
			struct stats_comparison c;
			char *cause = NULL;
			ck_assert_int_eq(stats_compare_paired(mode, base, 8, &o[j], b, &c, &cause), 0);
			faster[j] += c.verdict == VERDICT_FASTER;
			wrong[j] += c.verdict == VERDICT_SLOWER || c.verdict == VERDICT_SAME;
		}
	}
	double p0 = (double)faster[0] / nsim, p1 = (double)faster[1] / nsim;
	double se = sqrt((p0 * (1 - p0) + p1 * (1 - p1)) / nsim);
	fprintf(stderr, "test-decide: mode 10%% faster, 1 in 5 processes 30%% slower, n=8: t test "
		"FASTER %d of %d, trimmed-t %d (difference %.1f standard errors); wrong %d, %d\n",
		faster[0], nsim, faster[1], se > 0 ? (p1 - p0) / se : 0, wrong[0], wrong[1]);
	if (!under_valgrind())
		ck_assert_msg(p1 - p0 > 4 * se, "trimmed-t %.3f, t %.3f", p1, p0);
	ck_assert_int_eq(wrong[0] + wrong[1], 0);
	gsl_rng_free(b);
	gsl_rng_free(d);
}
END_TEST

/* (e) A large effect on quiet data: the mode 73% slower (or faster, 1/1.73) with 0.3%
 * per-unit noise, 8 blocks.  The t test decides it every time, also after a family of 196
 * comparisons (p_adj = min(1, 196 p), Holm's largest factor); the signed-rank test's p is
 * 2 / 2^8 = 0.0078 at best, which such a family turns into 1. */
START_TEST(sim_t_large_effect)
{
	int nsim = under_valgrind() ? 20 : 500;
	gsl_rng *d = rng_new(1730003), *b = rng_new(16);
	struct stats_compare_opts o = sim_opts(STATS_TEST_T), orank = sim_opts(STATS_TEST_RANK);
	double mode[8], base[8], pmax = 0;
	int decided = 0, rank_after = 0;
	for (int s = 0; s < nsim; s++) {
		int slower = s % 2 == 0;
		sim_paired(d, 8, slower ? 1.73 : 1 / 1.73, 0.003, mode, base);
		struct stats_comparison c;
		char *cause = NULL;
		ck_assert_int_eq(stats_compare_paired(mode, base, 8, &o, b, &c, &cause), 0);
		enum stats_verdict want = slower ? VERDICT_SLOWER : VERDICT_FASTER;
		ck_assert_msg(c.verdict == want, "simulation %d: %s, p %g, CI [%g, %g]", s,
			      stats_verdict_name(c.verdict), c.p, c.lo, c.hi);
		pmax = fmax(pmax, c.p);
		stats_comparison_redecide(&c, fmin(1, 196 * c.p), 0.05, 196);
		ck_assert_int_eq(c.verdict, want);
		decided++;
		ck_assert_int_eq(stats_compare_paired(mode, base, 8, &orank, b, &c, &cause), 0);
		ck_assert_int_eq(c.verdict, want);
		stats_comparison_redecide(&c, fmin(1, 196 * c.p), 0.05, 196);
		rank_after += is_call(c.verdict);
	}
	fprintf(stderr, "test-decide: ratio 1.73 or 1/1.73, 0.3%% noise, n=8, t test: decided %d "
		"of %d (largest p %.3g), in a family of 196 too; signed-rank in that family: %d\n",
		decided, nsim, pmax, rank_after);
	ck_assert_int_eq(rank_after, 0);
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
	tcase_add_test(tc, test_and_spending_names);
	tcase_add_test(tc, verdict_table);
	tcase_add_test(tc, redecide_after_adjustment);
	tcase_add_test(tc, redecide_family);
	tcase_add_test(tc, ci_short_below_six_blocks);
	tcase_add_test(tc, blocks_needed_after_holm);
	tcase_add_test(tc, noise_floor_clamps);
	tcase_add_test(tc, seq_alpha_spending);
	tcase_add_test(tc, geomean_t_complete_blocks);
	tcase_add_test(tc, mde_and_blocks_needed_rank);
	tcase_add_test(tc, mde_and_blocks_needed_t);
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
	tcase_add_test(sim, sim_t_mixture_false_positive_rate);
	tcase_add_test(sim, sim_trimmed_mixture_power);
	tcase_add_test(sim, sim_t_large_effect);
	suite_add_tcase(s, sim);
	return testutil_run(s);
}
