/* corr.c: rank correlations, Spearman's rho and Kendall's tau-b, with two-sided p (see stats.h) */
#include "config.h"
#include "stats/stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_sort.h>

#include "harness/base/util.h"

/* Kendall: exact p without ties up to this n, as scipy.stats.kendalltau(method="auto")
 * in SciPy 1.10 (beyond it the exact p is kept only when at most one pair is discordant or
 * concordant, where it has a closed form). */
#define KENDALL_EXACT_MAX 33

/* Check both samples; on failure *cause names the sample ("x: value 3 is NaN"). */
static int check_pair(const double *x, const double *y, size_t n, char **cause)
{
	char *why = NULL;
	const char *which = NULL;
	if (stats_check_finite(x, n, 0, &why))
		which = "x";
	else if (stats_check_finite(y, n, 0, &why))
		which = "y";
	if (!which)
		return 0;
	*cause = xasprintf("%s: %s", which, why);
	free(why);
	return -1;
}

/* Spearman: the exact permutation p up to this n (10! = 3,628,800 pairings, 9 ms at -O2 on
 * the 2-core development VM);
 * beyond it the t approximation.  The approximation is no test at small n: it gives p = 0
 * for rho = +-1 over 3 points, whose exact p is 2 / 3! = 0.33 (a drift check flagged three
 * units in increasing order on it). */
#define SPEARMAN_EXACT_MAX 10

/* Exact two-sided p of Spearman's rho for the mid-ranks rx, ry (n <= SPEARMAN_EXACT_MAX):
 * every pairing of ry with rx (Heap's algorithm), rho monotone in sum rx_i ry_i (the other
 * terms are fixed), p = 2 min(P(S <= s), P(S >= s)) capped at 1, as R's cor.test for small
 * n without ties and scipy.stats.permutation_test(permutation_type="pairings"); with ties
 * it is the permutation test conditional on them.  Twice a mid-rank is an integer, so the
 * sums are exact. */
static double spearman_p_exact(const double *rx, const double *ry, size_t n)
{
	int64_t a[SPEARMAN_EXACT_MAX], b[SPEARMAN_EXACT_MAX], obs = 0;
	size_t c[SPEARMAN_EXACT_MAX] = { 0 };
	for (size_t i = 0; i < n; i++) {
		a[i] = llround(2 * rx[i]);
		b[i] = llround(2 * ry[i]);
		obs += a[i] * b[i];
	}
	uint64_t le = 1, ge = 1, tot = 1; /* the observed pairing */
	int64_t s = obs;
	for (size_t i = 1; i < n;) {
		if (c[i] < i) {
			size_t j = i % 2 ? c[i] : 0;
			s += (a[j] - a[i]) * (b[i] - b[j]);
			int64_t t = b[i];
			b[i] = b[j];
			b[j] = t;
			le += s <= obs;
			ge += s >= obs;
			tot++;
			c[i]++;
			i = 1;
		} else {
			c[i++] = 0;
		}
	}
	return fmin(1, 2 * (double)(le < ge ? le : ge) / (double)tot);
}

/* Spearman's (1904) rho: Pearson's correlation of the mid-ranks.  Its two-sided p is exact
 * for n <= SPEARMAN_EXACT_MAX (spearman_p_exact); beyond, that of
 *     t = rho sqrt((n - 2) / ((1 + rho)(1 - rho)))
 * on n - 2 degrees of freedom (p = 0 when |rho| = 1), as scipy.stats.spearmanr.  A
 * constant x or y has no correlation: rho = p = NaN (SciPy warns and returns the same). */
int stats_spearman(const double *x, const double *y, size_t n, double *rho, double *p,
		   char **cause)
{
	if (n < 3) {
		*cause = xasprintf("too few pairs for Spearman's rho: need at least 3, got %zu", n);
		return -1;
	}
	if (check_pair(x, y, n, cause))
		return -1;
	double *rx = xmalloc(n * sizeof(*rx));
	double *ry = xmalloc(n * sizeof(*ry));
	size_t *perm = xmalloc(n * sizeof(*perm));
	stats_midranks(x, n, perm, rx);
	stats_midranks(y, n, perm, ry);
	double mean = ((double)n + 1) / 2; /* of any set of n mid-ranks */
	double sxx = 0, syy = 0, sxy = 0;
	for (size_t i = 0; i < n; i++) {
		double a = rx[i] - mean, b = ry[i] - mean;
		sxx += a * a;
		syy += b * b;
		sxy += a * b;
	}
	free(perm);
	if (!(sxx > 0) || !(syy > 0)) {
		*rho = *p = NAN;
	} else {
		double r = fmax(-1, fmin(1, sxy / sqrt(sxx * syy)));
		double dof = (double)n - 2;
		*rho = r;
		if (n <= SPEARMAN_EXACT_MAX)
			*p = spearman_p_exact(rx, ry, n);
		else if (fabs(r) >= 1)
			*p = 0;
		else
			*p = fmin(1, 2 * gsl_cdf_tdist_Q(fabs(r * sqrt(dof / ((r + 1) * (1 - r)))),
							dof));
	}
	free(ry);
	free(rx);
	return 0;
}

/* Sum over tie groups of sorted v of t(t-1)/2 (tied pairs), t(t-1)(t-2) and t(t-1)(2t+5). */
static void tie_sums(double *v, size_t n, double *pairs, double *s0, double *s1)
{
	*pairs = *s0 = *s1 = 0;
	gsl_sort(v, 1, n);
	for (size_t a = 0; a < n;) {
		size_t b = a + 1;
		while (b < n && v[b] == v[a])
			b++;
		double t = (double)(b - a);
		*pairs += t * (t - 1) / 2;
		*s0 += t * (t - 1) * (t - 2);
		*s1 += t * (t - 1) * (2 * t + 5);
		a = b;
	}
}

/* Exact two-sided p of Kendall's statistic for n untied pairs with c concordant pairs
 * (Kendall, Rank Correlation Methods, 4th ed., 1970): the number of permutations of n
 * with i inversions (Mahonian numbers) follows
 *     M_j(i) = sum_{l=0}^{min(i, j-1)} M_{j-1}(i - l),   M_1(0) = 1,
 * and p = 2 sum_{i <= c'} M_n(i) / n! with c' = min(c, n(n-1)/2 - c), capped at 1.  The
 * closed forms for c' = 0, 1 and the centre of the distribution, and the cut-off at n! out
 * of range (n >= 171), follow SciPy's _kendall_p_exact. */
static double kendall_p_exact(size_t n, uint64_t c)
{
	uint64_t tot = (uint64_t)n * (n - 1) / 2;
	if (tot - c < c)
		c = tot - c;
	if (n <= 2)
		return 1;
	/* n! is out of double range beyond GSL_SF_FACT_NMAX (170): the p underflows to 0 */
	if (c == 0)
		return n <= GSL_SF_FACT_NMAX ? 2 / gsl_sf_fact((unsigned)n) : 0;
	if (c == 1)
		return n - 1 <= GSL_SF_FACT_NMAX ? 2 / gsl_sf_fact((unsigned)(n - 1)) : 0;
	if (4 * c == (uint64_t)n * (n - 1))
		return 1;
	if (n > GSL_SF_FACT_NMAX)
		return 0;
	double nfact = gsl_sf_fact((unsigned)n);
	double *cur = xcalloc(c + 1, sizeof(*cur));
	double *next = xcalloc(c + 1, sizeof(*next));
	cur[0] = 1; /* M_1 */
	for (size_t j = 2; j <= n; j++) {
		for (uint64_t i = 0; i <= c; i++) {
			double s = 0;
			for (uint64_t l = 0; l <= i && l < j; l++)
				s += cur[i - l];
			next[i] = s;
		}
		double *tmp = cur;
		cur = next;
		next = tmp;
	}
	double sum = 0;
	for (uint64_t i = 0; i <= c; i++)
		sum += cur[i];
	free(next);
	free(cur);
	return fmin(1, 2 * sum / nfact);
}

/* Kendall's (1945) tau-b: (C - D) / sqrt((P - X)(P - Y)) over the P = n(n-1)/2 pairs,
 * C concordant, D discordant, X tied in x, Y tied in y (pairs tied in both count in X and
 * Y).  All pairs tied in x or in y: tau = p = NaN.
 *
 * p as scipy.stats.kendalltau(method="auto") in SciPy 1.10: exact (kendall_p_exact) when
 * there are no ties and n <= 33 or min(D, P - D) <= 1; otherwise the normal approximation
 * of S = C - D, without continuity correction, with the tie-corrected variance (Kendall
 * 1970, eq. 4.3)
 *     v = (m(2n+5) - sum_x t(t-1)(2t+5) - sum_y u(u-1)(2u+5)) / 18
 *         + 2 X Y / m + sum_x t(t-1)(t-2) sum_y u(u-1)(u-2) / (9 m (n - 2)),   m = n(n-1),
 * and p = 2 Q(|S| / sqrt(v)).  Pairs are counted directly, O(n^2). */
int stats_kendall(const double *x, const double *y, size_t n, double *tau, double *p,
		  char **cause)
{
	if (n < 2) {
		*cause = xasprintf("too few pairs for Kendall's tau: need at least 2, got %zu", n);
		return -1;
	}
	if (check_pair(x, y, n, cause))
		return -1;
	uint64_t con = 0, dis = 0, xtie = 0, ytie = 0;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = i + 1; j < n; j++) {
			int tx = x[i] == x[j], ty = y[i] == y[j];
			if (tx || ty) {
				xtie += tx;
				ytie += ty;
			} else if ((x[i] < x[j]) == (y[i] < y[j])) {
				con++;
			} else {
				dis++;
			}
		}
	}
	uint64_t tot = (uint64_t)n * (n - 1) / 2;
	if (xtie == tot || ytie == tot) {
		*tau = *p = NAN;
		return 0;
	}
	double s = (double)con - (double)dis;
	double t = s / sqrt((double)(tot - xtie)) / sqrt((double)(tot - ytie));
	*tau = fmax(-1, fmin(1, t));
	uint64_t dmin = dis < tot - dis ? dis : tot - dis;
	if (xtie == 0 && ytie == 0 && (n <= KENDALL_EXACT_MAX || dmin <= 1)) {
		*p = kendall_p_exact(n, con);
		return 0;
	}
	double *v = xmalloc(n * sizeof(*v));
	double xp, x0, x1, yp, y0, y1;
	for (size_t i = 0; i < n; i++)
		v[i] = x[i];
	tie_sums(v, n, &xp, &x0, &x1);
	for (size_t i = 0; i < n; i++)
		v[i] = y[i];
	tie_sums(v, n, &yp, &y0, &y1);
	free(v);
	double dn = (double)n, m = dn * (dn - 1);
	double var = (m * (2 * dn + 5) - x1 - y1) / 18 + 2 * xp * yp / m;
	if (n > 2)
		var += x0 * y0 / (9 * m * (dn - 2));
	*p = fmin(1, 2 * gsl_cdf_ugaussian_Q(fabs(s) / sqrt(var)));
	return 0;
}
