/* rank.c: rank tests (Wilcoxon signed-rank, sign, Mann-Whitney U), Hodges-Lehmann
 * estimates, the order-statistic CI of the median and Holm's adjustment (see stats.h) */
#include "config.h"
#include "stats/stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "harness/base/util.h"

/* Largest number of non-zero differences for which the signed-rank p is exact; the null
 * distribution then has at most m(m+1)+1 doubled rank sums and 2^50 sign patterns, so the
 * counts are exact in uint64_t.  (SciPy's method="auto" uses the same 50.) */
#define WILCOXON_EXACT_MAX 50
/* Largest sample size (each) for the exact Mann-Whitney distribution (SciPy's "exact"
 * method has no limit; its "auto" stops at min(nx, ny) <= 8). */
#define MWU_EXACT_MAX 50

/* Mid-ranks (1-based; a tie group occupying sorted positions a..b gets (a + b) / 2) of
 * v[0..n-1] into rank, with perm (n entries) as scratch.  Returns the tie term
 * sum over tie groups of t^3 - t, 0 when all values differ.  Ties are exact equality, as in
 * scipy.stats.rankdata(method="average"). */
double stats_midranks(const double *v, size_t n, size_t *perm, double *rank)
{
	double tie_term = 0;
	gsl_sort_index(perm, v, 1, n);
	for (size_t a = 0; a < n;) {
		size_t b = a + 1;
		while (b < n && v[perm[b]] == v[perm[a]])
			b++;
		/* positions a..b-1 (0-based) are ranks a+1..b: mid-rank (a + 1 + b) / 2 */
		double r = (double)(a + 1 + b) / 2;
		for (size_t i = a; i < b; i++)
			rank[perm[i]] = r;
		double t = (double)(b - a);
		tie_term += t * t * t - t;
		a = b;
	}
	return tie_term;
}

/* P(Bin(n, 1/2) <= k), with GSL's incomplete-beta form (relative accuracy near 1e-15 in
 * both tails). */
static double binom_half_cdf(size_t k, size_t n)
{
	if (k >= n)
		return 1;
	return gsl_cdf_binomial_P((unsigned)k, 0.5, (unsigned)n);
}

/* Wilcoxon (1945) signed-rank test, two-sided.
 *
 * Differences equal to 0 are dropped (Wilcoxon's own rule, SciPy zero_method="wilcox");
 * the remaining m get mid-ranks of |d|.  W+ is the sum of the ranks of positive d.
 *
 * Exact (m <= 50): under H0 each rank carries a + or - sign independently with probability
 * 1/2, conditional on the observed ranks (ties included).  Doubled mid-ranks are integers,
 * so the 2^m sign patterns are counted by the subset-sum recurrence
 *     N_i(s) = N_{i-1}(s) + N_{i-1}(s - 2 r_i),   N_0(0) = 1,
 * over doubled rank sums s = 0..m(m+1), and p = min(1, 2 min(P(W+ <= w), P(W+ >= w))).
 * Without ties or zeros this is SciPy's method="exact"; with them SciPy 1.10 either
 * switches to the normal approximation (zeros) or truncates W+ to an integer and uses the
 * no-ties distribution (ties), while this stays exact (the permutation distribution,
 * Lehmann, Nonparametrics, 1975, ch. 4).
 *
 * Normal (m > 50): T = min(W+, W-), mean m(m+1)/4, variance
 *     m(m+1)(2m+1)/24 - sum (t^3 - t)/48        (t = sizes of tie groups of |d|),
 * z = (T - mean + 0.5 sign(mean - T)) / sd and p = 2 Q(|z|): SciPy method="approx",
 * correction=True. */
int stats_wilcoxon_signed_rank(const double *d, size_t n, struct stats_wilcoxon *out, char **cause)
{
	if (n < 1) {
		*cause = xasprintf("too few differences for the signed-rank test: need at least 1, got %zu", n);
		return -1;
	}
	if (stats_check_finite(d, n, 0, cause))
		return -1;

	double *a = xmalloc(n * sizeof(*a));
	double *rank = xmalloc(n * sizeof(*rank));
	size_t *perm = xmalloc(n * sizeof(*perm));
	unsigned char *pos = xmalloc(n);
	uint64_t *count = NULL;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (d[i] == 0)
			continue;
		a[m] = fabs(d[i]);
		pos[m] = d[i] > 0;
		m++;
	}
	out->m = m;
	out->w_plus = 0;
	out->p = 1;
	out->exact = 1;
	if (m == 0)
		goto done;

	double tie_term = stats_midranks(a, m, perm, rank);
	for (size_t i = 0; i < m; i++)
		if (pos[i])
			out->w_plus += rank[i];

	if (m <= WILCOXON_EXACT_MAX) {
		size_t top = m * (m + 1); /* largest doubled rank sum */
		count = xcalloc(top + 1, sizeof(*count));
		count[0] = 1;
		size_t reach = 0;
		for (size_t i = 0; i < m; i++) {
			size_t r2 = (size_t)lround(2 * rank[i]);
			reach += r2;
			for (size_t s = reach; s >= r2; s--)
				count[s] += count[s - r2];
		}
		size_t w2 = (size_t)lround(2 * out->w_plus);
		uint64_t below = 0, above = 0; /* patterns with W+ <= w and W+ >= w */
		for (size_t s = 0; s <= top; s++) {
			if (s <= w2)
				below += count[s];
			if (s >= w2)
				above += count[s];
		}
		uint64_t tail = below < above ? below : above;
		out->p = fmin(1, ldexp((double)tail, 1 - (int)m));
		out->exact = 1;
	} else {
		double md = (double)m;
		double mean = md * (md + 1) / 4;
		double sd = sqrt((md * (md + 1) * (2 * md + 1) - tie_term / 2) / 24);
		double w_minus = md * (md + 1) / 2 - out->w_plus;
		double t = fmin(out->w_plus, w_minus);
		double cc = t < mean ? -0.5 : t > mean ? 0.5 : 0;
		double z = (t - mean - cc) / sd;
		out->p = fmin(1, 2 * gsl_cdf_ugaussian_Q(fabs(z)));
		out->exact = 0;
	}
done:
	free(count);
	free(pos);
	free(perm);
	free(rank);
	free(a);
	return 0;
}

/* Sign test (Dixon & Mood 1946): k positive among the m non-zero d is Bin(m, 1/2) under
 * H0; p = min(1, 2 P(Bin(m, 1/2) <= min(k, m - k))), and 1 when m == 0.  For p = 1/2 the
 * distribution is symmetric, so this equals scipy.stats.binomtest's two-sided p (the sum
 * of the probabilities no larger than that of k); make-reference.py checks it. */
int stats_sign_test(const double *d, size_t n, double *p, char **cause)
{
	if (n < 1) {
		*cause = xasprintf("too few differences for the sign test: need at least 1, got %zu", n);
		return -1;
	}
	if (stats_check_finite(d, n, 0, cause))
		return -1;
	size_t m = 0, k = 0;
	for (size_t i = 0; i < n; i++) {
		if (d[i] != 0)
			m++;
		if (d[i] > 0)
			k++;
	}
	if (m == 0) {
		*p = 1;
		return 0;
	}
	size_t lo = k < m - k ? k : m - k;
	*p = fmin(1, 2 * binom_half_cdf(lo, m));
	return 0;
}

/* The exact null distribution of U for samples of sizes nx and ny without ties: the
 * C(nx+ny, nx) placements of the x among the pooled order are equally likely.  Walking the
 * pooled order j = 1..N, an x placed as the k-th x has j - k y's below it, which it adds
 * to U, so
 *     N_j(k, u) = N_{j-1}(k, u) + N_{j-1}(k - 1, u - (j - k)),   j - k <= ny,
 * the counting form of Mann & Whitney's (1947) recurrence.  Only additions, so the counts
 * (up to C(100, 50) ~ 1e29, in doubles) keep full relative precision.  Returns
 * P(U >= u) for an integer u. */
static double mwu_upper_tail(size_t nx, size_t ny, size_t u)
{
	size_t umax = nx * ny;
	size_t w = umax + 1;
	double *c = xcalloc((nx + 1) * w, sizeof(*c)); /* c[k * w + v] */
	c[0] = 1;
	size_t big = nx + ny;
	for (size_t j = 1; j <= big; j++) {
		size_t kmax = j < nx ? j : nx;
		size_t kmin = j > ny ? j - ny : 1;
		for (size_t k = kmax; k >= kmin && k >= 1; k--) {
			size_t add = j - k;
			double *dst = c + k * w, *src = c + (k - 1) * w;
			for (size_t v = umax; v >= add; v--) {
				dst[v] += src[v - add];
				if (v == 0)
					break;
			}
		}
	}
	double total = 0, tail = 0;
	for (size_t v = 0; v <= umax; v++) {
		total += c[nx * w + v];
		if (v >= u)
			tail += c[nx * w + v];
	}
	free(c);
	return tail / total;
}

/* Mann-Whitney (1947) U test, two-sided; U of x = R_x - nx(nx+1)/2 with R_x the sum of the
 * mid-ranks of x in the pooled sample.
 *
 * Exact (no ties, nx <= 50 and ny <= 50): p = min(1, 2 P(U >= max(U_x, U_y))) from the
 * distribution above (SciPy method="exact").
 * Normal otherwise: U = max(U_x, U_y), mean nx ny / 2, variance
 *     nx ny / 12 ((N + 1) - sum (t^3 - t) / (N (N - 1))),
 * z = (U - mean - 0.5) / sd and p = min(1, 2 Q(z)) (SciPy method="asymptotic",
 * use_continuity=True); p = 1 when every value is tied (sd = 0). */
int stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
		       struct stats_mwu *out, char **cause)
{
	char *why = NULL;
	if (nx < 1 || ny < 1) {
		*cause = xasprintf("too few values for the Mann-Whitney test: need at least 1 in each sample, got %zu and %zu",
				   nx, ny);
		return -1;
	}
	const char *which = NULL;
	if (stats_check_finite(x, nx, 0, &why))
		which = "x";
	else if (stats_check_finite(y, ny, 0, &why))
		which = "y";
	if (which) {
		*cause = xasprintf("%s: %s", which, why);
		free(why);
		return -1;
	}

	size_t n = nx + ny;
	double *v = xmalloc(n * sizeof(*v));
	double *rank = xmalloc(n * sizeof(*rank));
	size_t *perm = xmalloc(n * sizeof(*perm));
	memcpy(v, x, nx * sizeof(*v));
	memcpy(v + nx, y, ny * sizeof(*v));
	double tie_term = stats_midranks(v, n, perm, rank);
	double rx = 0;
	for (size_t i = 0; i < nx; i++)
		rx += rank[i];
	double dx = (double)nx, dy = (double)ny, dn = (double)n;
	double ux = rx - dx * (dx + 1) / 2;
	double umax = fmax(ux, dx * dy - ux);
	out->u = ux;
	if (tie_term == 0 && nx <= MWU_EXACT_MAX && ny <= MWU_EXACT_MAX) {
		out->p = fmin(1, 2 * mwu_upper_tail(nx, ny, (size_t)lround(umax)));
		out->exact = 1;
	} else {
		double sd = sqrt(dx * dy / 12 * ((dn + 1) - tie_term / (dn * (dn - 1))));
		out->p = sd > 0 ? fmin(1, 2 * gsl_cdf_ugaussian_Q((umax - dx * dy / 2 - 0.5) / sd)) : 1;
		out->exact = 0;
	}
	free(perm);
	free(rank);
	free(v);
	return 0;
}

static int all_finite(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return 0;
	return 1;
}

/* Median of the n(n+1)/2 Walsh averages (d_i + d_j) / 2, i <= j: the Hodges-Lehmann (1963)
 * estimate of the centre of a symmetric distribution, the point estimate that goes with
 * the signed-rank test.  NaN when n == 0 or some d is not finite. */
double stats_hodges_lehmann_paired(const double *d, size_t n)
{
	if (n == 0 || !all_finite(d, n) || n > (size_t)-1 / sizeof(double) / (n + 1))
		return NAN;
	size_t m = n * (n + 1) / 2, k = 0;
	double *w = xmalloc(m * sizeof(*w));
	for (size_t i = 0; i < n; i++)
		for (size_t j = i; j < n; j++)
			w[k++] = (d[i] + d[j]) / 2;
	gsl_sort(w, 1, m);
	double est = gsl_stats_median_from_sorted_data(w, 1, m);
	free(w);
	return est;
}

/* Median of the nx ny differences x_i - y_j: the Hodges-Lehmann (1963) estimate of the
 * shift between two samples, the point estimate that goes with the Mann-Whitney test.
 * NaN when either sample is empty or has a value that is not finite. */
double stats_hodges_lehmann_2(const double *x, size_t nx, const double *y, size_t ny)
{
	if (nx == 0 || ny == 0 || !all_finite(x, nx) || !all_finite(y, ny) ||
	    nx > (size_t)-1 / sizeof(double) / ny)
		return NAN;
	size_t m = nx * ny, k = 0;
	double *w = xmalloc(m * sizeof(*w));
	for (size_t i = 0; i < nx; i++)
		for (size_t j = 0; j < ny; j++)
			w[k++] = x[i] - y[j];
	gsl_sort(w, 1, m);
	double est = gsl_stats_median_from_sorted_data(w, 1, m);
	free(w);
	return est;
}

/* Distribution-free CI of the median from order statistics (Thompson 1936; Conover,
 * Practical Nonparametric Statistics, 3rd ed., 3.2): the pair (x_(k), x_(n+1-k)), 1-based,
 * covers the median with probability 1 - 2 P(Bin(n, 1/2) <= k - 1) whatever the
 * distribution.  The coverage falls as k grows; the largest k (the narrowest pair) whose
 * coverage is >= conf is taken.  When even k = 1 ([min, max], coverage 1 - 2^(1-n)) falls
 * short, [min, max] is returned with 1.  n == 0 or a value that is not finite gives NaNs
 * and 1. */
int stats_median_ci_exact(const double *x, size_t n, double conf, double *lo, double *hi,
			  double *achieved)
{
	if (n == 0 || !all_finite(x, n)) {
		*lo = *hi = *achieved = NAN;
		return 1;
	}
	double *s = xmalloc(n * sizeof(*s));
	memcpy(s, x, n * sizeof(*s));
	gsl_sort(s, 1, n);
	size_t best = 0;
	double best_cov = NAN;
	for (size_t k = 1; k <= (n + 1) / 2; k++) {
		double cov = 1 - 2 * binom_half_cdf(k - 1, n);
		if (!(cov >= conf))
			break;
		best = k;
		best_cov = cov;
	}
	int short_of_conf = best == 0;
	if (short_of_conf) {
		best = 1;
		best_cov = 1 - 2 * binom_half_cdf(0, n);
	}
	*lo = s[best - 1];
	*hi = s[n - best];
	*achieved = best_cov;
	free(s);
	return short_of_conf;
}
