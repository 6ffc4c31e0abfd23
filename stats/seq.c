/* seq.c: group-sequential looks (stats.h): alpha spending, the exact boundaries for normal
 * statistics, and the levels calibrated for Student's t that the harness tests at */
#include "config.h"
#include "stats/stats.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "harness/base/util.h"

const char *stats_spending_name(enum stats_spending s)
{
	return s == STATS_SPEND_OBF ? "obrien-fleming" : "pocock";
}

int stats_spending_parse(const char *s, enum stats_spending *out)
{
	if (!strcmp(s, "pocock"))
		*out = STATS_SPEND_POCOCK;
	else if (!strcmp(s, "obrien-fleming"))
		*out = STATS_SPEND_OBF;
	else
		return -1;
	return 0;
}

/* The spending function g(t) of stats.h at information fraction t in [0, 1]. */
static double spend(double alpha, double t, enum stats_spending s)
{
	if (t <= 0)
		return 0;
	if (t >= 1)
		return alpha;
	if (s == STATS_SPEND_OBF)
		return 2 - 2 * gsl_cdf_ugaussian_P(gsl_cdf_ugaussian_Pinv(1 - alpha / 2) / sqrt(t));
	return alpha * log1p((M_E - 1) * t);
}

double stats_seq_alpha(double alpha, size_t prev, size_t n, size_t n_max,
		       enum stats_spending spending)
{
	if (!(alpha > 0 && alpha < 1) || !(prev < n && n <= n_max))
		return NAN;
	return spend(alpha, (double)n / (double)n_max, spending) -
	       spend(alpha, (double)prev / (double)n_max, spending);
}

/* stats.h, stats_seq_level: the exact boundaries of Armitage, McPherson & Rowe (1969) by
 * the numerical integration of Jennison & Turnbull (2000, ch. 19), on the score scale
 * S_j = Z_j sqrt(n_j): S_1 ~ N(0, n_1) and S_j - S_{j-1} ~ N(0, n_j - n_{j-1}) independent.
 * f holds the sub-density of S_j on the continuation region (-b_j, b_j) (paths that crossed
 * no earlier boundary) at np points; look j + 1's exit probability is
 *   int f(u) [Q((b - u) / s) + Q((b + u) / s)] du,  s = sqrt(n_{j+1} - n_j),
 * solved for b by bisection (it falls as b grows), and the next sub-density is f convolved
 * with N(0, s^2) on (-b, b).  Simpson's rule, the grid at most a 24th of the narrowest
 * normal it integrates against (Simpson error about 1e-8 relative). */
#define SEQ_GRID_MIN 101
#define SEQ_GRID_MAX 4001

static size_t seq_grid(double b, double s)
{
	double want = ceil(2 * b / (s / 24));
	size_t np = want > SEQ_GRID_MAX ? SEQ_GRID_MAX : (size_t)fmax(want, SEQ_GRID_MIN);
	return np | 1; /* odd, for Simpson's rule */
}

/* Simpson's weight of point i of np over a step h */
static double simpson(size_t i, size_t np, double h)
{
	if (i == 0 || i == np - 1)
		return h / 3;
	return (i & 1 ? 4 : 2) * h / 3;
}

static double seq_exit(const double *x, const double *fw, size_t np, double b, double s)
{
	double e = 0;
	for (size_t i = 0; i < np; i++)
		e += fw[i] * (gsl_cdf_ugaussian_Q((b - x[i]) / s) + gsl_cdf_ugaussian_Q((b + x[i]) / s));
	return e;
}

double stats_seq_level(double alpha, const size_t *looks, size_t k, size_t n_max,
		       enum stats_spending spending)
{
	if (!k || !looks || !(alpha > 0 && alpha < 1) || !looks[0] || looks[k - 1] > n_max)
		return NAN;
	for (size_t j = 1; j < k; j++)
		if (looks[j] <= looks[j - 1])
			return NAN;
	double a = stats_seq_alpha(alpha, 0, looks[0], n_max, spending);
	if (k == 1)
		return a;
	/* look 1: S_1 ~ N(0, n_1) on (-b, b), b = z_{1 - a/2} sqrt(n_1) */
	double sd1 = sqrt((double)looks[0]);
	double b = gsl_cdf_ugaussian_Qinv(a / 2) * sd1;
	size_t np = seq_grid(b, fmin(sd1, sqrt((double)(looks[1] - looks[0]))));
	double *x = xmalloc(SEQ_GRID_MAX * sizeof(*x)), *fw = xmalloc(SEQ_GRID_MAX * sizeof(*fw));
	double *y = xmalloc(SEQ_GRID_MAX * sizeof(*y)), *gw = xmalloc(SEQ_GRID_MAX * sizeof(*gw));
	double h = 2 * b / (double)(np - 1);
	for (size_t i = 0; i < np; i++) {
		x[i] = -b + h * (double)i;
		fw[i] = simpson(i, np, h) * gsl_ran_gaussian_pdf(x[i], sd1); /* weight x density */
	}
	double level = NAN;
	for (size_t j = 1; j < k; j++) {
		a = stats_seq_alpha(alpha, looks[j - 1], looks[j], n_max, spending);
		double s = sqrt((double)(looks[j] - looks[j - 1])), sdj = sqrt((double)looks[j]);
		/* the standardised boundary c in [0, 40]: exit(0) is the mass still going on
		 * (at least 1 - alpha > a), exit(40 sqrt(n_j)) is nothing */
		double lo = 0, hi = 40;
		for (int it = 0; it < 200 && hi - lo > 1e-13 * hi; it++) {
			double mid = (lo + hi) / 2;
			if (seq_exit(x, fw, np, mid * sdj, s) > a)
				lo = mid;
			else
				hi = mid;
		}
		double c = (lo + hi) / 2;
		level = 2 * gsl_cdf_ugaussian_Q(c);
		if (j == k - 1)
			break;
		/* the sub-density of S_j on (-c sqrt(n_j), c sqrt(n_j)) */
		double bj = c * sdj;
		size_t nq = seq_grid(bj, fmin(s, sqrt((double)(looks[j + 1] - looks[j]))));
		double hq = 2 * bj / (double)(nq - 1);
		for (size_t m = 0; m < nq; m++) {
			y[m] = -bj + hq * (double)m;
			double g = 0;
			for (size_t i = 0; i < np; i++)
				g += fw[i] * gsl_ran_gaussian_pdf(y[m] - x[i], s);
			gw[m] = simpson(m, nq, hq) * g;
		}
		double *t = x;
		x = y;
		y = t;
		t = fw;
		fw = gw;
		gw = t;
		np = nq;
	}
	free(x);
	free(fw);
	free(y);
	free(gw);
	return level;
}

/* stats.h, stats_seq_levels_t: Student's t statistics of STATS_SEQ_T_PATHS simulated
 * normal paths (the law of the t sequence has no unknown parameter under the null, so one
 * seeded simulation fixes the levels).  Blocks are drawn in block-major order, path after
 * path, so the draws of the first n blocks, and with them the levels of the looks up to n,
 * do not depend on later looks: a look recomputed after more looks gets the level it had. */
static double nth_largest_pair(double *v, size_t n, size_t m, double *next)
{
	/* v[0..n) rearranged; the m-th largest (1-based) returned and the (m + 1)-th in *next,
	 * 0 < m < n: Hoare's selection of index n - m (everything before it is no larger),
	 * then the largest before it */
	ptrdiff_t want = (ptrdiff_t)(n - m), lo = 0, hi = (ptrdiff_t)n - 1;
	while (lo < hi) {
		double piv = v[lo + (hi - lo) / 2];
		ptrdiff_t i = lo, j = hi;
		while (i <= j) {
			while (v[i] < piv)
				i++;
			while (v[j] > piv)
				j--;
			if (i <= j) {
				double t = v[i];
				v[i++] = v[j];
				v[j--] = t;
			}
		}
		if (want <= j)
			hi = j;
		else if (want >= i)
			lo = i;
		else
			break;
	}
	double below = -INFINITY;
	for (ptrdiff_t i = 0; i < want; i++)
		below = fmax(below, v[i]);
	*next = below;
	return v[want];
}

int stats_seq_levels_t(double alpha, const size_t *looks, size_t k, size_t n_max,
		       enum stats_spending spending, double *levels)
{
	if (!k || !looks || !(alpha > 0 && alpha < 1) || !looks[0] || looks[k - 1] > n_max)
		return -1;
	for (size_t j = 1; j < k; j++)
		if (looks[j] <= looks[j - 1])
			return -1;
	const size_t R = STATS_SEQ_T_PATHS;
	double *sum = xcalloc(R, sizeof(*sum)), *ss = xcalloc(R, sizeof(*ss));
	double *at = xmalloc(R * sizeof(*at));
	unsigned char *out = xcalloc(R, 1); /* rejected at an earlier look */
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, STATS_SEQ_T_SEED);
	size_t j = 0, prev = 0;
	for (size_t n = 1; n <= looks[k - 1]; n++) {
		for (size_t r = 0; r < R; r++) {
			double x = gsl_ran_gaussian_ziggurat(rng, 1);
			sum[r] += x;
			ss[r] += x * x;
		}
		if (n != looks[j])
			continue;
		double inc = stats_seq_alpha(alpha, prev, n, n_max, spending), c;
		prev = n;
		if (n < 2) {
			levels[j++] = inc; /* no t statistic: nothing rejects, the increment is lost */
			continue;
		}
		double df = (double)(n - 1);
		size_t alive = 0;
		for (size_t r = 0; r < R; r++) {
			if (out[r])
				continue;
			double mean = sum[r] / (double)n;
			double var = fmax(ss[r] - mean * sum[r], 0) / df;
			at[alive++] = fabs(mean) / sqrt(var / (double)n);
		}
		if (j == 0) {
			c = gsl_cdf_tdist_Qinv(inc / 2, df); /* the first look's law is known */
			levels[j] = inc;
		} else {
			/* m of the R paths may reject first here: the threshold midway between the
			 * m-th and (m + 1)-th largest |t| still going on */
			size_t m = (size_t)floor(inc * (double)R + 1e-9);
			if (m == 0 || m >= alive) {
				double mx = 0;
				for (size_t i = 0; i < alive; i++)
					mx = fmax(mx, at[i]);
				c = m ? 0 : mx * (1 + 1e-9);
			} else {
				double next, mth = nth_largest_pair(at, alive, m, &next);
				c = (mth + next) / 2;
			}
			levels[j] = 2 * gsl_cdf_tdist_Q(c, df);
		}
		for (size_t r = 0; r < R; r++) {
			if (out[r])
				continue;
			double mean = sum[r] / (double)n;
			double var = fmax(ss[r] - mean * sum[r], 0) / df;
			if (fabs(mean) / sqrt(var / (double)n) > c)
				out[r] = 1;
		}
		if (++j == k)
			break;
	}
	gsl_rng_free(rng);
	free(sum);
	free(ss);
	free(at);
	free(out);
	return 0;
}

double stats_seq_level_t(double alpha, const size_t *looks, size_t k, size_t n_max,
			 enum stats_spending spending)
{
	if (!k)
		return NAN;
	double *lv = xmalloc(k * sizeof(*lv)), l = NAN;
	if (stats_seq_levels_t(alpha, looks, k, n_max, spending, lv) == 0)
		l = lv[k - 1];
	free(lv);
	return l;
}

