/* test-stats.c: stats/rank.c, stats/ttest.c, stats/multi.c, stats/corr.c and stats_median /
 * stats_check_finite against the SciPy and statsmodels reference files in tests/data/stats/
 * (made by make-reference.py), plus every error path on purpose */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/util.h"
#include "stats/stats.h"
#include "tests/unit/testutil.h"

/* Relative tolerances: values the C code and the reference both compute exactly (counts,
 * ranks, exact p-values, order statistics) agree to rounding; normal and t approximations
 * go through different library functions (GSL against SciPy's cephes). */
#define TOL_EXACT 1e-9
#define TOL_APPROX 1e-6
/* Absolute floor for expected zeros and underflow (Kendall's exact p = 2/n! is 0 from
 * n = 171 in SciPy and here). */
#define TOL_ABS 1e-300

/* ---- reference files ---------------------------------------------------------------- */

/* One case: a line "name,params,x,y,expected", each of the last four a ';'-separated list
 * of numbers (possibly empty).  See tests/data/stats/README.md. */
enum { F_PARAMS, F_X, F_Y, F_EXPECTED, F_COUNT };
struct ref_case {
	const char *name;
	size_t line;
	double *v[F_COUNT];
	size_t n[F_COUNT];
};
struct ref_file {
	char *path;
	char *text;
	struct ref_case *c;
	size_t n, cap;
	int bad; /* mismatches reported so far */
};

static double *parse_list(const char *path, size_t line, char *s, size_t *n)
{
	double *v = NULL;
	size_t cap = 0;
	*n = 0;
	if (!*s)
		return NULL;
	for (char *tok = s;;) {
		char *semi = strchr(tok, ';');
		if (semi)
			*semi = '\0';
		char *end;
		double d = strtod(tok, &end);
		if (end == tok || *end)
			ck_abort_msg("'%s':%zu: '%s' is not a number", path, line, tok);
		XGROW(v, cap, *n + 1);
		v[(*n)++] = d;
		if (!semi)
			break;
		tok = semi + 1;
	}
	return v;
}

/* Read tests/data/stats/<name> from $top_srcdir (set by make check) or the source tree
 * this test was configured from.  A missing or empty file fails the test. */
static void ref_load(struct ref_file *f, const char *name)
{
	const char *top = getenv("top_srcdir");
	if (!top || !*top)
		top = HARNESS_ABS_SRCDIR;
	memset(f, 0, sizeof(*f));
	f->path = xasprintf("%s/tests/data/stats/%s", top, name);
	size_t len;
	if (util_read_file(f->path, &f->text, &len))
		ck_abort_msg("reference file '%s' is missing (make it with tests/data/stats/make-reference.py)",
			     f->path);
	size_t line = 0;
	for (char *s = f->text; s && *s;) {
		char *nl = strchr(s, '\n');
		if (nl)
			*nl = '\0';
		line++;
		if (*s && *s != '#') {
			char *field[F_COUNT + 1];
			size_t k = 0;
			field[k++] = s;
			for (char *p = s; *p; p++) {
				if (*p != ',')
					continue;
				if (k == F_COUNT + 1)
					ck_abort_msg("'%s':%zu: more than %d fields", f->path, line, F_COUNT + 1);
				*p = '\0';
				field[k++] = p + 1;
			}
			if (k != F_COUNT + 1)
				ck_abort_msg("'%s':%zu: %zu fields, expected %d", f->path, line, k, F_COUNT + 1);
			XGROW(f->c, f->cap, f->n + 1);
			struct ref_case *c = &f->c[f->n++];
			c->name = field[0];
			c->line = line;
			for (int j = 0; j < F_COUNT; j++)
				c->v[j] = parse_list(f->path, line, field[j + 1], &c->n[j]);
		}
		s = nl ? nl + 1 : NULL;
	}
	ck_assert_msg(f->n > 0, "reference file '%s' has no cases", f->path);
}

/* Fail (after every case has been compared) when there were mismatches. */
static void ref_finish(struct ref_file *f)
{
	int bad = f->bad;
	size_t n = f->n;
	char *path = xstrdup(f->path);
	for (size_t i = 0; i < f->n; i++)
		for (int j = 0; j < F_COUNT; j++)
			free(f->c[i].v[j]);
	free(f->c);
	free(f->text);
	free(f->path);
	ck_assert_msg(bad == 0, "%d mismatches against %zu cases of '%s' (listed on stderr)", bad, n,
		      path);
	free(path);
}

static int close_to(double got, double want, double tol)
{
	if (isnan(want))
		return isnan(got);
	if (isnan(got))
		return 0;
	double diff = fabs(got - want);
	return diff <= tol * fabs(want) || diff <= TOL_ABS;
}

static void expect(struct ref_file *f, const struct ref_case *c, const char *what, double got,
		   double want, double tol)
{
	if (close_to(got, want, tol))
		return;
	fprintf(stderr, "%s:%zu: %s: %s = %.17g, want %.17g (relative tolerance %g)\n", f->path,
		c->line, c->name, what, got, want, tol);
	f->bad++;
}

/* The expected list must have exactly k entries. */
static const double *want(struct ref_file *f, const struct ref_case *c, size_t k)
{
	ck_assert_msg(c->n[F_EXPECTED] == k, "'%s':%zu: %zu expected values, want %zu", f->path,
		      c->line, c->n[F_EXPECTED], k);
	return c->v[F_EXPECTED];
}

/* ---- comparisons with the reference files -------------------------------------------- */

START_TEST(ref_wilcoxon)
{
	struct ref_file f;
	ref_load(&f, "wilcoxon.csv");
	for (size_t i = 0; i < f.n; i++) {
		const struct ref_case *c = &f.c[i];
		const double *w = want(&f, c, 4);
		struct stats_wilcoxon r;
		char *cause = NULL;
		ck_assert_int_eq(stats_wilcoxon_signed_rank(c->v[F_X], c->n[F_X], &r, &cause), 0);
		double tol = w[3] > 0.5 ? TOL_EXACT : TOL_APPROX;
		expect(&f, c, "m", (double)r.m, w[0], TOL_EXACT);
		expect(&f, c, "w_plus", r.w_plus, w[1], TOL_EXACT);
		expect(&f, c, "p", r.p, w[2], tol);
		expect(&f, c, "exact", r.exact, w[3], 0);
	}
	ref_finish(&f);
}
END_TEST

START_TEST(ref_sign)
{
	struct ref_file f;
	ref_load(&f, "sign.csv");
	for (size_t i = 0; i < f.n; i++) {
		const struct ref_case *c = &f.c[i];
		const double *w = want(&f, c, 1);
		double p;
		char *cause = NULL;
		ck_assert_int_eq(stats_sign_test(c->v[F_X], c->n[F_X], &p, &cause), 0);
		expect(&f, c, "p", p, w[0], TOL_EXACT);
	}
	ref_finish(&f);
}
END_TEST

START_TEST(ref_mann_whitney)
{
	struct ref_file f;
	ref_load(&f, "mannwhitney.csv");
	for (size_t i = 0; i < f.n; i++) {
		const struct ref_case *c = &f.c[i];
		const double *w = want(&f, c, 3);
		struct stats_mwu r, s;
		char *cause = NULL;
		ck_assert_int_eq(stats_mann_whitney(c->v[F_X], c->n[F_X], c->v[F_Y], c->n[F_Y], &r,
						    &cause), 0);
		double tol = w[2] > 0.5 ? TOL_EXACT : TOL_APPROX;
		expect(&f, c, "u", r.u, w[0], TOL_EXACT);
		expect(&f, c, "p", r.p, w[1], tol);
		expect(&f, c, "exact", r.exact, w[2], 0);
		/* swapping the samples: U_y = nx ny - U_x, the same two-sided p */
		ck_assert_int_eq(stats_mann_whitney(c->v[F_Y], c->n[F_Y], c->v[F_X], c->n[F_X], &s,
						    &cause), 0);
		expect(&f, c, "u of y", s.u, (double)(c->n[F_X] * c->n[F_Y]) - w[0], TOL_EXACT);
		expect(&f, c, "p swapped", s.p, w[1], tol);
	}
	ref_finish(&f);
}
END_TEST

START_TEST(ref_hodges_lehmann)
{
	struct ref_file f;
	ref_load(&f, "hl_paired.csv");
	for (size_t i = 0; i < f.n; i++) {
		const struct ref_case *c = &f.c[i];
		const double *w = want(&f, c, 1);
		expect(&f, c, "estimate", stats_hodges_lehmann_paired(c->v[F_X], c->n[F_X]), w[0],
		       TOL_EXACT);
	}
	ref_finish(&f);
	ref_load(&f, "hl_2.csv");
	for (size_t i = 0; i < f.n; i++) {
		const struct ref_case *c = &f.c[i];
		const double *w = want(&f, c, 1);
		expect(&f, c, "estimate",
		       stats_hodges_lehmann_2(c->v[F_X], c->n[F_X], c->v[F_Y], c->n[F_Y]), w[0],
		       TOL_EXACT);
	}
	ref_finish(&f);
}
END_TEST

START_TEST(ref_median_ci)
{
	struct ref_file f;
	ref_load(&f, "median_ci.csv");
	for (size_t i = 0; i < f.n; i++) {
		const struct ref_case *c = &f.c[i];
		const double *w = want(&f, c, 4);
		ck_assert_uint_eq(c->n[F_PARAMS], 1);
		double lo, hi, achieved;
		int ret = stats_median_ci_exact(c->v[F_X], c->n[F_X], c->v[F_PARAMS][0], &lo, &hi,
						&achieved);
		expect(&f, c, "return", ret, w[0], 0);
		expect(&f, c, "lo", lo, w[1], TOL_EXACT);
		expect(&f, c, "hi", hi, w[2], TOL_EXACT);
		expect(&f, c, "achieved", achieved, w[3], TOL_EXACT);
	}
	ref_finish(&f);
}
END_TEST

/* The 8 values stats_t_test and stats_welch_test fill, against est;sd;se;t;df;p;lo;hi: the
 * arithmetic to TOL_EXACT, what goes through the t distribution to TOL_APPROX. */
static void expect_ttest(struct ref_file *f, const struct ref_case *c, const char *side,
			 const struct stats_ttest *t, const double *w)
{
	char what[48];
	static const char *const name[8] = { "est", "sd", "se", "t", "df", "p", "lo", "hi" };
	const double got[8] = { t->est, t->sd, t->se, t->t, t->df, t->p, t->lo, t->hi };
	for (int k = 0; k < 8; k++) {
		snprintf(what, sizeof(what), "%s%s", name[k], side);
		expect(f, c, what, got[k], w[k], k < 5 ? TOL_EXACT : TOL_APPROX);
	}
}

START_TEST(ref_ttest)
{
	struct ref_file f;
	ref_load(&f, "ttest.csv");
	for (size_t i = 0; i < f.n; i++) {
		const struct ref_case *c = &f.c[i];
		const double *w = want(&f, c, 8);
		ck_assert_uint_eq(c->n[F_PARAMS], 1);
		size_t n = c->n[F_X];
		struct stats_ttest t;
		char *cause = NULL;
		ck_assert_int_eq(stats_t_test(c->v[F_X], n, c->v[F_PARAMS][0], &t, &cause), 0);
		ck_assert_uint_eq(t.n, n);
		ck_assert_uint_eq(t.n2, 0);
		expect_ttest(&f, c, "", &t, w);
		/* the values negated: est, t and the CI mirrored, the same sd, se, df and p */
		double *neg = xmalloc(n * sizeof(*neg));
		for (size_t k = 0; k < n; k++)
			neg[k] = -c->v[F_X][k];
		ck_assert_int_eq(stats_t_test(neg, n, c->v[F_PARAMS][0], &t, &cause), 0);
		const double mirrored[8] = { -w[0], w[1], w[2], -w[3], w[4], w[5], -w[7], -w[6] };
		expect_ttest(&f, c, " (negated)", &t, mirrored);
		free(neg);
	}
	ref_finish(&f);
}
END_TEST

START_TEST(ref_trimmed)
{
	struct ref_file f;
	ref_load(&f, "trimmed.csv");
	for (size_t i = 0; i < f.n; i++) {
		const struct ref_case *c = &f.c[i];
		const double *w = want(&f, c, 8);
		ck_assert_uint_eq(c->n[F_PARAMS], 2);
		struct stats_ttest t;
		char *cause = NULL;
		ck_assert_int_eq(stats_trimmed_t_test(c->v[F_X], c->n[F_X], c->v[F_PARAMS][0],
						      c->v[F_PARAMS][1], &t, &cause), 0);
		ck_assert_uint_eq(t.n, c->n[F_X]);
		expect_ttest(&f, c, "", &t, w);
	}
	ref_finish(&f);
	/* where nothing is cut (trim 0, or 4 values at 20%) it is Student's test */
	double d[] = { 0.0213, -0.0087, 0.0319, 0.0114, 0.0027 };
	for (size_t k = 0; k < 2; k++) {
		size_t n = k ? 4 : 5;
		struct stats_ttest a, b;
		char *cause = NULL;
		ck_assert_int_eq(stats_trimmed_t_test(d, n, k ? 0.2 : 0, 0.95, &a, &cause), 0);
		ck_assert_int_eq(stats_t_test(d, n, 0.95, &b, &cause), 0);
		ck_assert(a.est == b.est && a.df == b.df);
		ck_assert(fabs(a.se - b.se) <= 1e-14 * b.se && fabs(a.p - b.p) <= 1e-14 &&
			  fabs(a.lo - b.lo) <= 1e-14 * fabs(b.lo));
	}
}
END_TEST

START_TEST(ref_yuen)
{
	struct ref_file f;
	ref_load(&f, "yuen.csv");
	for (size_t i = 0; i < f.n; i++) {
		const struct ref_case *c = &f.c[i];
		const double *w = want(&f, c, 8);
		ck_assert_uint_eq(c->n[F_PARAMS], 2);
		struct stats_ttest t;
		char *cause = NULL;
		ck_assert_int_eq(stats_yuen_test(c->v[F_X], c->n[F_X], c->v[F_Y], c->n[F_Y],
						 c->v[F_PARAMS][0], c->v[F_PARAMS][1], &t, &cause),
				 0);
		expect_ttest(&f, c, "", &t, w);
	}
	ref_finish(&f);
}
END_TEST

/* Exact group-sequential levels (stats_seq_level) against SciPy's multivariate normal
 * probabilities: every prefix of each case's looks.  The first look's level is its increment
 * itself; every later one is above its increment (the looks are correlated) and below alpha. */
START_TEST(ref_seqbounds)
{
	struct ref_file f;
	ref_load(&f, "seqbounds.csv");
	for (size_t i = 0; i < f.n; i++) {
		const struct ref_case *c = &f.c[i];
		size_t k = c->n[F_X];
		const double *w = want(&f, c, k);
		ck_assert_uint_eq(c->n[F_PARAMS], 3);
		double alpha = c->v[F_PARAMS][0];
		enum stats_spending sp = c->v[F_PARAMS][1] > 0.5 ? STATS_SPEND_OBF : STATS_SPEND_POCOCK;
		size_t n_max = (size_t)c->v[F_PARAMS][2];
		size_t *looks = xmalloc(k * sizeof(*looks));
		for (size_t j = 0; j < k; j++)
			looks[j] = (size_t)c->v[F_X][j];
		for (size_t j = 0; j < k; j++) {
			char what[48];
			snprintf(what, sizeof(what), "level of look %zu", j + 1);
			double l = stats_seq_level(alpha, looks, j + 1, n_max, sp);
			expect(&f, c, what, l, w[j], 1e-6);
			double inc = stats_seq_alpha(alpha, j ? looks[j - 1] : 0, looks[j], n_max, sp);
			if (j == 0)
				ck_assert(l == inc);
			else
				ck_assert(l > inc && l < alpha);
		}
		free(looks);
	}
	ref_finish(&f);
	/* NaN where the looks are not a design */
	size_t bad[][3] = { { 5, 5, 7 }, { 0, 3, 4 }, { 5, 6, 9 } };
	for (size_t i = 0; i < 3; i++)
		ck_assert(isnan(stats_seq_level(0.05, bad[i], 3, 8, STATS_SPEND_POCOCK)));
	ck_assert(isnan(stats_seq_level(0.05, bad[0], 0, 8, STATS_SPEND_POCOCK)));
	ck_assert(isnan(stats_seq_level(0, (size_t[]){ 3 }, 1, 8, STATS_SPEND_POCOCK)));
}
END_TEST

/* Levels calibrated for Student's t (stats_seq_levels_t) against a separate simulation
 * (numpy's generator, ten times the paths): each level within its tolerance (y: five
 * standard errors of the C code's estimate); the first look's level is its increment.  A
 * level depends only on the looks up to it: every prefix gives the same levels. */
START_TEST(ref_seqbounds_t)
{
	struct ref_file f;
	ref_load(&f, "seqbounds-t.csv");
	for (size_t i = 0; i < f.n; i++) {
		const struct ref_case *c = &f.c[i];
		size_t k = c->n[F_X];
		const double *w = want(&f, c, k);
		ck_assert_uint_eq(c->n[F_PARAMS], 3);
		ck_assert_uint_eq(c->n[F_Y], k);
		double alpha = c->v[F_PARAMS][0];
		enum stats_spending sp = c->v[F_PARAMS][1] > 0.5 ? STATS_SPEND_OBF : STATS_SPEND_POCOCK;
		size_t n_max = (size_t)c->v[F_PARAMS][2];
		size_t *looks = xmalloc(k * sizeof(*looks));
		double *lv = xmalloc(k * sizeof(*lv));
		for (size_t j = 0; j < k; j++)
			looks[j] = (size_t)c->v[F_X][j];
		ck_assert_int_eq(stats_seq_levels_t(alpha, looks, k, n_max, sp, lv), 0);
		for (size_t j = 0; j < k; j++) {
			char what[48];
			snprintf(what, sizeof(what), "level of look %zu", j + 1);
			expect(&f, c, what, lv[j], w[j], c->v[F_Y][j]);
			if (j == 0)
				ck_assert(lv[0] == stats_seq_alpha(alpha, 0, looks[0], n_max, sp));
		}
		size_t pre = k > 2 ? k / 2 : 1;
		ck_assert(stats_seq_level_t(alpha, looks, pre, n_max, sp) == lv[pre - 1]);
		free(looks);
		free(lv);
	}
	ref_finish(&f);
	double lv[3];
	ck_assert_int_eq(stats_seq_levels_t(0.05, (size_t[]){ 5, 5, 7 }, 3, 8, STATS_SPEND_POCOCK,
					    lv), -1);
	ck_assert_int_eq(stats_seq_levels_t(0.05, (size_t[]){ 5, 6, 9 }, 3, 8, STATS_SPEND_POCOCK,
					    lv), -1);
	ck_assert(isnan(stats_seq_level_t(0.05, (size_t[]){ 3 }, 0, 8, STATS_SPEND_POCOCK)));
	ck_assert(isnan(stats_seq_level_t(1, (size_t[]){ 3 }, 1, 8, STATS_SPEND_POCOCK)));
	/* a look at 1 block has no t: it rejects nothing and its level is its increment */
	ck_assert_int_eq(stats_seq_levels_t(0.05, (size_t[]){ 1, 4 }, 2, 8, STATS_SPEND_POCOCK,
					    lv), 0);
	ck_assert(lv[0] == stats_seq_alpha(0.05, 0, 1, 8, STATS_SPEND_POCOCK));
	ck_assert(lv[1] > stats_seq_alpha(0.05, 1, 4, 8, STATS_SPEND_POCOCK) && lv[1] < 0.05);
}
END_TEST

START_TEST(ref_welch)
{
	struct ref_file f;
	ref_load(&f, "welch.csv");
	for (size_t i = 0; i < f.n; i++) {
		const struct ref_case *c = &f.c[i];
		const double *w = want(&f, c, 8);
		ck_assert_uint_eq(c->n[F_PARAMS], 1);
		struct stats_ttest t;
		char *cause = NULL;
		ck_assert_int_eq(stats_welch_test(c->v[F_X], c->n[F_X], c->v[F_Y], c->n[F_Y],
						  c->v[F_PARAMS][0], &t, &cause), 0);
		ck_assert_uint_eq(t.n, c->n[F_X]);
		ck_assert_uint_eq(t.n2, c->n[F_Y]);
		expect_ttest(&f, c, "", &t, w);
		/* the samples swapped: est, t and the CI mirrored */
		ck_assert_int_eq(stats_welch_test(c->v[F_Y], c->n[F_Y], c->v[F_X], c->n[F_X],
						  c->v[F_PARAMS][0], &t, &cause), 0);
		const double mirrored[8] = { -w[0], w[1], w[2], -w[3], w[4], w[5], -w[7], -w[6] };
		expect_ttest(&f, c, " (swapped)", &t, mirrored);
	}
	ref_finish(&f);
}
END_TEST

/* An adjustment of p-values (stats_holm, stats_bh, stats_by) against a reference file. */
static void ref_adjust(const char *file, void (*adjust)(const double *, size_t, double *))
{
	struct ref_file f;
	ref_load(&f, file);
	for (size_t i = 0; i < f.n; i++) {
		const struct ref_case *c = &f.c[i];
		size_t n = c->n[F_X];
		const double *w = want(&f, c, n);
		double *adj = xmalloc(n * sizeof(*adj));
		adjust(c->v[F_X], n, adj);
		for (size_t j = 0; j < n; j++) {
			char what[32];
			snprintf(what, sizeof(what), "adj[%zu]", j);
			expect(&f, c, what, adj[j], w[j], TOL_EXACT);
		}
		free(adj);
	}
	ref_finish(&f);
}

START_TEST(ref_bh)
{
	ref_adjust("bh.csv", stats_bh);
}
END_TEST

START_TEST(ref_by)
{
	ref_adjust("by.csv", stats_by);
}
END_TEST

START_TEST(ref_holm)
{
	ref_adjust("holm.csv", stats_holm);
}
END_TEST

START_TEST(ref_spearman)
{
	struct ref_file f;
	ref_load(&f, "spearman.csv");
	for (size_t i = 0; i < f.n; i++) {
		const struct ref_case *c = &f.c[i];
		const double *w = want(&f, c, 2);
		ck_assert_uint_eq(c->n[F_X], c->n[F_Y]);
		double rho, p;
		char *cause = NULL;
		ck_assert_int_eq(stats_spearman(c->v[F_X], c->v[F_Y], c->n[F_X], &rho, &p, &cause), 0);
		expect(&f, c, "rho", rho, w[0], TOL_EXACT);
		/* exact permutation p up to 10 pairs (corr.c), the t approximation beyond */
		expect(&f, c, "p", p, w[1], c->n[F_X] <= 10 ? TOL_EXACT : TOL_APPROX);
	}
	ref_finish(&f);
}
END_TEST

START_TEST(ref_kendall)
{
	struct ref_file f;
	ref_load(&f, "kendall.csv");
	for (size_t i = 0; i < f.n; i++) {
		const struct ref_case *c = &f.c[i];
		const double *w = want(&f, c, 3);
		ck_assert_uint_eq(c->n[F_X], c->n[F_Y]);
		double tau, p;
		char *cause = NULL;
		ck_assert_int_eq(stats_kendall(c->v[F_X], c->v[F_Y], c->n[F_X], &tau, &p, &cause), 0);
		expect(&f, c, "tau", tau, w[0], TOL_EXACT);
		expect(&f, c, "p", p, w[1], w[2] > 0.5 ? TOL_EXACT : TOL_APPROX);
	}
	ref_finish(&f);
}
END_TEST

START_TEST(ref_median)
{
	struct ref_file f;
	ref_load(&f, "median.csv");
	for (size_t i = 0; i < f.n; i++) {
		const struct ref_case *c = &f.c[i];
		const double *w = want(&f, c, 1);
		double *work = xmalloc(c->n[F_X] * sizeof(*work));
		expect(&f, c, "median", stats_median(c->v[F_X], 1, c->n[F_X], work), w[0], TOL_EXACT);
		free(work);
	}
	ref_finish(&f);
}
END_TEST

START_TEST(ref_median_se)
{
	struct ref_file f;
	ref_load(&f, "median_se.csv");
	for (size_t i = 0; i < f.n; i++) {
		const struct ref_case *c = &f.c[i];
		const double *w = want(&f, c, 2);
		size_t n = c->n[F_X];
		int64_t *cell = xcalloc(n + 1, sizeof(*cell)), *ns = xmalloc((n + 1) * sizeof(*ns));
		for (size_t k = 0; k < n; k++)
			ns[k] = (int64_t)c->v[F_X][k];
		cell[n] = 1; /* a sample of another cell, which must not count */
		ns[n] = 1;
		double med[2], se[2];
		stats_cell_medians_se(cell, ns, n + 1, 2, med, se);
		expect(&f, c, "median", med[0], w[0], TOL_EXACT);
		expect(&f, c, "rel_se", se[0], w[1], TOL_EXACT);
		double plain[2];
		stats_cell_medians(cell, ns, n + 1, 2, plain);
		expect(&f, c, "median (stats_cell_medians)", plain[0], w[0], TOL_EXACT);
		free(cell);
		free(ns);
	}
	ref_finish(&f);
}
END_TEST

START_TEST(ref_variance_components)
{
	struct ref_file f;
	ref_load(&f, "vc.csv");
	for (size_t i = 0; i < f.n; i++) {
		const struct ref_case *c = &f.c[i];
		const double *w = want(&f, c, 5);
		ck_assert_uint_eq(c->n[F_X], c->n[F_Y]);
		struct stats_vc vc;
		stats_variance_components(c->v[F_X], c->v[F_Y], c->n[F_X], &vc);
		expect(&f, c, "n", (double)vc.n, w[0], TOL_EXACT);
		expect(&f, c, "between", vc.between, w[1], TOL_EXACT);
		expect(&f, c, "within", vc.within, w[2], TOL_EXACT);
		expect(&f, c, "process", vc.process, w[3], TOL_EXACT);
		expect(&f, c, "share", vc.share, w[4], TOL_EXACT);
	}
	ref_finish(&f);
}
END_TEST

/* ---- figures quoted in docs (shared/METHOD.md "Small samples") ----------------------- */

START_TEST(method_small_samples)
{
	/* smallest two-sided exact Mann-Whitney p with n units per arm, and the coverage of
	 * [min, max] as a CI of the median */
	static const double mwu_p[] = { 0.1, 2.0 / 70, 2.0 / 252, 2.0 / 924 };
	static const double cover[] = { 0.75, 0.875, 0.9375, 0.96875 };
	for (size_t n = 3; n <= 6; n++) {
		double a[6], b[6];
		for (size_t i = 0; i < n; i++) {
			a[i] = 1.0 + 0.0173 * (double)i;
			b[i] = 1.2 + 0.0219 * (double)i;
		}
		struct stats_mwu r;
		char *cause = NULL;
		ck_assert_int_eq(stats_mann_whitney(a, n, b, n, &r, &cause), 0);
		ck_assert_int_eq(r.exact, 1);
		ck_assert_double_eq_tol(r.p, mwu_p[n - 3], 1e-12);
		double lo, hi, achieved;
		ck_assert_int_eq(stats_median_ci_exact(a, n, 0.95, &lo, &hi, &achieved), n < 6);
		ck_assert_double_eq_tol(achieved, cover[n - 3], 1e-12);
		ck_assert_double_eq_tol(lo, a[0], 1e-15);
		ck_assert_double_eq_tol(hi, a[n - 1], 1e-15);
	}
	/* signed-rank: 2 / 2^n with every difference of one sign */
	double d[] = { 0.0213, 0.0371, 0.0119, 0.0442, 0.0287, 0.0305 };
	struct stats_wilcoxon w;
	char *cause = NULL;
	ck_assert_int_eq(stats_wilcoxon_signed_rank(d, 5, &w, &cause), 0);
	ck_assert_double_eq_tol(w.p, 0.0625, 1e-15);
	ck_assert_int_eq(stats_wilcoxon_signed_rank(d, 6, &w, &cause), 0);
	ck_assert_double_eq_tol(w.p, 0.03125, 1e-15);
	ck_assert_double_eq_tol(w.w_plus, 21, 1e-15);
}
END_TEST

/* ---- error paths ------------------------------------------------------------------------ */

/* The call returned -1 with this cause; the cause is freed. */
#define ck_fails_with(call, cause, msg)                  \
	do {                                             \
		ck_assert_int_eq((call), -1);            \
		ck_assert_ptr_nonnull(cause);            \
		ck_assert_str_eq((cause), (msg));        \
		free(cause);                             \
		(cause) = NULL;                          \
	} while (0)

START_TEST(check_finite)
{
	char *cause = NULL;
	double ok[] = { 2.385, -1.094, 0.0 };
	ck_assert_int_eq(stats_check_finite(ok, 3, 0, &cause), 0);
	ck_assert_int_eq(stats_check_finite(ok, 0, 1, &cause), 0);
	ck_assert_int_eq(stats_check_finite(ok, 1, 1, &cause), 0);
	ck_assert_ptr_null(cause);
	double x[] = { 1.25, 0.75, 2.5, NAN, INFINITY };
	ck_fails_with(stats_check_finite(x, 5, 0, &cause), cause, "value 3 is NaN");
	x[3] = 3.125;
	ck_fails_with(stats_check_finite(x, 5, 0, &cause), cause, "value 4 is inf");
	x[1] = -INFINITY;
	ck_fails_with(stats_check_finite(x, 5, 1, &cause), cause, "value 1 is -inf");
	double r[] = { 1.02, 0.97, -0.5, 0.0 };
	ck_fails_with(stats_check_finite(r, 4, 1, &cause), cause,
		      "value 2 is -0.5: ratios must be positive");
	ck_fails_with(stats_check_finite(r + 3, 1, 1, &cause), cause,
		      "value 0 is 0: ratios must be positive");
	ck_assert_int_eq(stats_check_finite(r, 4, 0, &cause), 0);
}
END_TEST

START_TEST(rank_errors)
{
	char *cause = NULL;
	double nan_at_1[] = { 0.413, NAN, 1.27 };
	double inf_at_2[] = { 0.413, -0.88, INFINITY };
	double fine[] = { 0.413, -0.88, 1.27 };
	struct stats_wilcoxon w;
	ck_fails_with(stats_wilcoxon_signed_rank(fine, 0, &w, &cause), cause,
		      "too few differences for the signed-rank test: need at least 1, got 0");
	ck_fails_with(stats_wilcoxon_signed_rank(nan_at_1, 3, &w, &cause), cause, "value 1 is NaN");
	ck_fails_with(stats_wilcoxon_signed_rank(inf_at_2, 3, &w, &cause), cause, "value 2 is inf");
	double p;
	ck_fails_with(stats_sign_test(fine, 0, &p, &cause), cause,
		      "too few differences for the sign test: need at least 1, got 0");
	ck_fails_with(stats_sign_test(nan_at_1, 3, &p, &cause), cause, "value 1 is NaN");
	ck_fails_with(stats_sign_test(inf_at_2, 3, &p, &cause), cause, "value 2 is inf");
	struct stats_mwu u;
	ck_fails_with(stats_mann_whitney(fine, 0, fine, 3, &u, &cause), cause,
		      "too few values for the Mann-Whitney test: need at least 1 in each sample, got 0 and 3");
	ck_fails_with(stats_mann_whitney(fine, 3, fine, 0, &u, &cause), cause,
		      "too few values for the Mann-Whitney test: need at least 1 in each sample, got 3 and 0");
	ck_fails_with(stats_mann_whitney(nan_at_1, 3, fine, 3, &u, &cause), cause,
		      "x: value 1 is NaN");
	ck_fails_with(stats_mann_whitney(fine, 3, inf_at_2, 3, &u, &cause), cause,
		      "y: value 2 is inf");

	/* functions that cannot fail give NaN */
	ck_assert(isnan(stats_hodges_lehmann_paired(fine, 0)));
	ck_assert(isnan(stats_hodges_lehmann_paired(nan_at_1, 3)));
	ck_assert(isnan(stats_hodges_lehmann_2(fine, 3, fine, 0)));
	ck_assert(isnan(stats_hodges_lehmann_2(fine, 0, fine, 3)));
	ck_assert(isnan(stats_hodges_lehmann_2(fine, 3, inf_at_2, 3)));
	double lo, hi, achieved;
	ck_assert_int_eq(stats_median_ci_exact(fine, 0, 0.95, &lo, &hi, &achieved), 1);
	ck_assert(isnan(lo) && isnan(hi) && isnan(achieved));
	ck_assert_int_eq(stats_median_ci_exact(nan_at_1, 3, 0.95, &lo, &hi, &achieved), 1);
	ck_assert(isnan(lo) && isnan(hi) && isnan(achieved));
	double work[4];
	ck_assert(isnan(stats_median(fine, 1, 0, work)));
	stats_holm(fine, 0, work); /* nothing to do, nothing touched */
}
END_TEST

/* NaN handling of the three adjustments: a NaN p stays NaN and counts in n.  Worked by hand
 * for {0.0173, NaN, 0.0418, 0.0009}, n = 4:
 *   Holm  sorted 0.0009 x 4 = 0.0036, 0.0173 x 3 = 0.0519, 0.0418 x 2 = 0.0836
 *   BH    0.0418 x 4/3 = 0.0557333, 0.0173 x 4/2 = 0.0346, 0.0009 x 4/1 = 0.0036
 *   BY    BH x (1 + 1/2 + 1/3 + 1/4) = x 25/12: 0.1161111, 0.0720833, 0.0075
 * which is what each gives with the NaN replaced by a p of 1 (it sorts last and lowers
 * nothing). */
START_TEST(adjust_nan)
{
	const double p[4] = { 0.0173, NAN, 0.0418, 0.0009 };
	const double p1[4] = { 0.0173, 1, 0.0418, 0.0009 };
	static const double want[3][4] = {
		{ 0.0519, NAN, 0.0836, 0.0036 },
		{ 0.0346, NAN, 0.0418 * 4 / 3, 0.0036 },
		{ 0.0346 * 25 / 12, NAN, 0.0418 * 4 / 3 * 25 / 12, 0.0075 },
	};
	void (*const adjust[3])(const double *, size_t, double *) = { stats_holm, stats_bh,
								     stats_by };
	for (int m = 0; m < 3; m++) {
		double adj[4], adj1[4];
		adjust[m](p, 4, adj);
		adjust[m](p1, 4, adj1);
		for (int i = 0; i < 4; i++) {
			if (isnan(want[m][i])) {
				ck_assert_msg(isnan(adj[i]), "method %d: adj[%d] = %g, want NaN", m, i,
					      adj[i]);
				continue;
			}
			ck_assert_msg(fabs(adj[i] - want[m][i]) <= 1e-15,
				      "method %d: adj[%d] = %.17g, want %.17g", m, i, adj[i],
				      want[m][i]);
			ck_assert_double_eq_tol(adj[i], adj1[i], 1e-15);
		}
		/* every p NaN: every adjusted p NaN; none: nothing written */
		const double all_nan[3] = { NAN, NAN, NAN };
		adjust[m](all_nan, 3, adj);
		ck_assert(isnan(adj[0]) && isnan(adj[1]) && isnan(adj[2]));
		adj[0] = 2.385;
		adjust[m](p, 0, adj);
		ck_assert_double_eq(adj[0], 2.385);
		/* one p: itself */
		adjust[m](p + 3, 1, adj);
		ck_assert_double_eq_tol(adj[0], 0.0009, 1e-18);
	}
}
END_TEST

/* Monotone in p, never below p, at most 1, and ordered BH <= Holm (n p_(i) / i <=
 * (n - i + 1) p_(i), as (i - 1)(n - i) >= 0) and BH <= BY, on 23 p with ties, a 0 and a 1;
 * the input is not touched. */
START_TEST(adjust_monotone)
{
	const double p[23] = {
		0.0213, 0.4137, 0.0009, 0.0481, 0.0207, 0.8861, 0.0031, 0.0207, 0.1173, 0.0,
		0.0391, 0.6629, 0.0113, 0.2517, 1.0, 0.0107, 0.0458, 0.0447, 0.0436, 0.0412,
		0.0091, 0.3358, 0.0207,
	};
	double copy[23], holm[23], bh[23], by[23];
	memcpy(copy, p, sizeof(copy));
	stats_holm(p, 23, holm);
	stats_bh(p, 23, bh);
	stats_by(p, 23, by);
	ck_assert(memcmp(copy, p, sizeof(copy)) == 0);
	const double *adj[3] = { holm, bh, by };
	for (int m = 0; m < 3; m++)
		for (int i = 0; i < 23; i++) {
			ck_assert_msg(adj[m][i] >= p[i] && adj[m][i] <= 1,
				      "method %d: adj[%d] = %g for p %g", m, i, adj[m][i], p[i]);
			for (int j = 0; j < 23; j++)
				if (p[i] <= p[j])
					ck_assert_msg(adj[m][i] <= adj[m][j],
						      "method %d: p %g <= %g but adj %g > %g", m,
						      p[i], p[j], adj[m][i], adj[m][j]);
		}
	for (int i = 0; i < 23; i++) {
		ck_assert_msg(bh[i] <= holm[i], "p %g: BH %g > Holm %g", p[i], bh[i], holm[i]);
		ck_assert_msg(bh[i] <= by[i], "p %g: BH %g > BY %g", p[i], bh[i], by[i]);
	}
	/* ties get one adjusted p; 0 stays 0; 1 stays 1 */
	ck_assert_double_eq(bh[4], bh[7]);
	ck_assert_double_eq(bh[4], bh[22]);
	ck_assert_double_eq(by[4], by[22]);
	ck_assert_double_eq(bh[9], 0);
	ck_assert_double_eq(by[9], 0);
	ck_assert_double_eq(holm[9], 0);
	ck_assert_double_eq(bh[14], 1);
}
END_TEST

/* The t tests' contract beyond the reference files: no scatter, the quantile function, and
 * every error path. */
START_TEST(ttest_contract)
{
	struct stats_ttest t;
	char *cause = NULL;
	/* no scatter: the CI is the point; p 0 with a difference, 1 without */
	const double flat[3] = { 0.0213, 0.0213, 0.0213 }, zero[3] = { 0, 0, 0 };
	ck_assert_int_eq(stats_t_test(flat, 3, 0.95, &t, &cause), 0);
	ck_assert_double_eq_tol(t.est, 0.0213, 1e-17);
	ck_assert_double_eq(t.se, 0);
	ck_assert(isinf(t.t) && t.t > 0);
	ck_assert_double_eq(t.p, 0);
	ck_assert_double_eq(t.lo, t.est);
	ck_assert_double_eq(t.hi, t.est);
	ck_assert_double_eq(t.df, 2);
	ck_assert_int_eq(stats_t_test(zero, 3, 0.95, &t, &cause), 0);
	ck_assert_double_eq(t.t, 0);
	ck_assert_double_eq(t.p, 1);
	ck_assert_double_eq(t.lo, 0);
	ck_assert_double_eq(t.hi, 0);
	const double x2[2] = { 1.0625, 1.0625 }, y2[3] = { 2.385, 2.385, 2.385 };
	ck_assert_int_eq(stats_welch_test(x2, 2, y2, 3, 0.95, &t, &cause), 0);
	ck_assert_double_eq_tol(t.est, 1.0625 - 2.385, 1e-15);
	ck_assert(isinf(t.t) && t.t < 0);
	ck_assert_double_eq(t.p, 0);
	ck_assert_double_eq(t.df, 3); /* the pooled degrees of freedom */
	ck_assert_double_eq(t.lo, t.est);
	ck_assert_double_eq(t.hi, t.est);
	ck_assert_int_eq(stats_welch_test(x2, 2, x2, 2, 0.95, &t, &cause), 0);
	ck_assert_double_eq(t.p, 1);

	/* quantiles: closed forms at 1 df, tan(pi (p - 1/2)), and at 2 df, (2p - 1) /
	 * sqrt(2p(1 - p)); elsewhere the t CDF (a regularized incomplete beta) inverted in
	 * mpmath at 40 digits.  (SciPy 1.10's t.ppf is off by up to 2e-9 relative on these,
	 * 2.2621571627409915 at 0.975 and 9 df: the reference files' CIs are checked to 1e-6.) */
	ck_assert_double_eq_tol(stats_t_quantile(0.975, 1), 12.706204736174693, 1e-13);
	ck_assert_double_eq_tol(stats_t_quantile(0.9, 2), 1.8856180831641270, 1e-14);
	ck_assert_double_eq_tol(stats_t_quantile(0.975, 9), 2.2621571627982050, 1e-13);
	ck_assert_double_eq_tol(stats_t_quantile(0.025, 9), -2.2621571627982050, 1e-13);
	ck_assert_double_eq_tol(stats_t_quantile(0.8, 17), 0.86327901742005320, 1e-14);
	ck_assert_double_eq_tol(stats_t_quantile(0.995, 3), 5.8409093097333554, 1e-13);
	ck_assert_double_eq_tol(stats_t_quantile(0.5, 3), 0, 1e-15);
	ck_assert(isnan(stats_t_quantile(0, 9)));
	ck_assert(isnan(stats_t_quantile(1, 9)));
	ck_assert(isnan(stats_t_quantile(NAN, 9)));
	ck_assert(isnan(stats_t_quantile(0.975, 0)));
	ck_assert(isnan(stats_t_quantile(0.975, -1)));
	ck_assert(isnan(stats_t_quantile(0.975, NAN)));

	/* errors */
	const double d[3] = { 0.0213, -0.0087, 0.0319 };
	const double nan_at_1[3] = { 0.0213, NAN, 0.0319 }, inf_at_2[3] = { 0.0213, -0.0087,
									   INFINITY };
	ck_fails_with(stats_t_test(d, 1, 0.95, &t, &cause), cause,
		      "1 value(s): a t test needs 2 or more");
	ck_fails_with(stats_t_test(d, 0, 0.95, &t, &cause), cause,
		      "0 value(s): a t test needs 2 or more");
	ck_fails_with(stats_t_test(d, 3, 1, &t, &cause), cause,
		      "confidence level 1 is out of range (0, 1)");
	ck_fails_with(stats_t_test(d, 3, 0, &t, &cause), cause,
		      "confidence level 0 is out of range (0, 1)");
	ck_fails_with(stats_t_test(d, 3, NAN, &t, &cause), cause,
		      "confidence level nan is out of range (0, 1)");
	ck_fails_with(stats_t_test(nan_at_1, 3, 0.95, &t, &cause), cause, "value 1 is NaN");
	ck_fails_with(stats_t_test(inf_at_2, 3, 0.95, &t, &cause), cause, "value 2 is inf");
	ck_fails_with(stats_welch_test(d, 1, d, 3, 0.95, &t, &cause), cause,
		      "1 and 3 value(s): Welch's test needs 2 or more in each");
	ck_fails_with(stats_welch_test(d, 3, d, 1, 0.95, &t, &cause), cause,
		      "3 and 1 value(s): Welch's test needs 2 or more in each");
	ck_fails_with(stats_welch_test(d, 3, d, 3, 1.5, &t, &cause), cause,
		      "confidence level 1.5 is out of range (0, 1)");
	ck_fails_with(stats_welch_test(nan_at_1, 3, d, 3, 0.95, &t, &cause), cause,
		      "x: value 1 is NaN");
	ck_fails_with(stats_welch_test(d, 3, inf_at_2, 3, 0.95, &t, &cause), cause,
		      "y: value 2 is inf");
}
END_TEST

START_TEST(corr_errors)
{
	char *cause = NULL;
	double x[] = { 0.413, -0.88, 1.27, 2.385 };
	double y[] = { 1.094, 0.2, -0.57, 3.3 };
	double bad[] = { 1.094, 0.2, NAN, -INFINITY };
	double rho, p;
	ck_fails_with(stats_spearman(x, y, 2, &rho, &p, &cause), cause,
		      "too few pairs for Spearman's rho: need at least 3, got 2");
	ck_fails_with(stats_spearman(x, bad, 4, &rho, &p, &cause), cause, "y: value 2 is NaN");
	ck_fails_with(stats_spearman(bad + 1, y, 3, &rho, &p, &cause), cause, "x: value 1 is NaN");
	ck_fails_with(stats_spearman(bad + 3, y, 1, &rho, &p, &cause), cause,
		      "too few pairs for Spearman's rho: need at least 3, got 1");
	ck_fails_with(stats_kendall(x, y, 1, &rho, &p, &cause), cause,
		      "too few pairs for Kendall's tau: need at least 2, got 1");
	ck_fails_with(stats_kendall(bad, y, 4, &rho, &p, &cause), cause, "x: value 2 is NaN");
	double inf_y[] = { 1.094, -INFINITY, 0.25 };
	ck_fails_with(stats_kendall(x, inf_y, 3, &rho, &p, &cause), cause, "y: value 1 is -inf");
}
END_TEST

/* stride and the untouched input */
START_TEST(median_stride)
{
	double y[] = { 1.5, 0, 8.125, 0, 2.25, 0, 3.0, 0 };
	double work[4];
	ck_assert_double_eq_tol(stats_median(y, 2, 4, work), 2.625, 1e-15);
	ck_assert_double_eq_tol(stats_median(y, 2, 3, work), 2.25, 1e-15);
	ck_assert_double_eq(y[0], 1.5);
}
END_TEST

int main(void)
{
	/* GSL's default handler stays on here: a GSL domain error in the statistics aborts the
	 * test loudly instead of passing unnoticed. */
	Suite *s = suite_create("stats");
	TCase *ref = tcase_create("reference");
	tcase_set_timeout(ref, 60);
	tcase_add_test(ref, ref_wilcoxon);
	tcase_add_test(ref, ref_sign);
	tcase_add_test(ref, ref_mann_whitney);
	tcase_add_test(ref, ref_hodges_lehmann);
	tcase_add_test(ref, ref_median_ci);
	tcase_add_test(ref, ref_holm);
	tcase_add_test(ref, ref_bh);
	tcase_add_test(ref, ref_by);
	tcase_add_test(ref, ref_ttest);
	tcase_add_test(ref, ref_welch);
	tcase_add_test(ref, ref_trimmed);
	tcase_add_test(ref, ref_yuen);
	tcase_add_test(ref, ref_seqbounds);
	tcase_add_test(ref, ref_seqbounds_t);
	tcase_add_test(ref, ref_spearman);
	tcase_add_test(ref, ref_kendall);
	tcase_add_test(ref, ref_median);
	tcase_add_test(ref, ref_median_se);
	tcase_add_test(ref, ref_variance_components);
	suite_add_tcase(s, ref);
	TCase *tc = tcase_create("contract");
	tcase_add_test(tc, method_small_samples);
	tcase_add_test(tc, check_finite);
	tcase_add_test(tc, rank_errors);
	tcase_add_test(tc, adjust_nan);
	tcase_add_test(tc, adjust_monotone);
	tcase_add_test(tc, ttest_contract);
	tcase_add_test(tc, corr_errors);
	tcase_add_test(tc, median_stride);
	suite_add_tcase(s, tc);
	return testutil_run(s);
}
