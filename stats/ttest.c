/* ttest.c: Student's one-sample (paired) t test and Welch's two-sample t test, with their
 * confidence intervals (stats.h) */
#include "config.h"
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "harness/base/util.h"

double stats_t_quantile(double p, double df)
{
	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	return gsl_cdf_tdist_Pinv(p, df);
}

/* Two-sided p and the CI of an estimate est with standard error se on df degrees of
 * freedom.  se == 0 (every value alike): the CI is the point and p is 1 when est == 0,
 * else 0 (a difference with no scatter at all; SciPy returns NaN there). */
static void t_finish(struct stats_ttest *o, double est, double se, double df, double conf)
{
	o->est = est;
	o->se = se;
	o->df = df;
	if (se == 0) {
		o->t = est == 0 ? 0 : copysign(INFINITY, est);
		o->p = est == 0 ? 1 : 0;
		o->lo = o->hi = est;
		return;
	}
	o->t = est / se;
	o->p = fmin(1, 2 * gsl_cdf_tdist_Q(fabs(o->t), df));
	double q = stats_t_quantile((1 + conf) / 2, df);
	o->lo = est - q * se;
	o->hi = est + q * se;
}

int stats_t_test(const double *d, size_t n, double conf, struct stats_ttest *out, char **cause)
{
	if (n < 2) {
		*cause = xasprintf("%zu value(s): a t test needs 2 or more", n);
		return -1;
	}
	if (!(conf > 0 && conf < 1)) {
		*cause = xasprintf("confidence level %g is out of range (0, 1)", conf);
		return -1;
	}
	if (stats_check_finite(d, n, 0, cause))
		return -1;
	out->n = n;
	out->n2 = 0;
	double mean = gsl_stats_mean(d, 1, n);
	out->sd = gsl_stats_sd_m(d, 1, n, mean);
	t_finish(out, mean, out->sd / sqrt((double)n), (double)(n - 1), conf);
	return 0;
}

/* Both samples finite: 0, else -1 and *cause (heap) naming the sample, x or y. */
static int two_finite(const double *x, size_t nx, const double *y, size_t ny, char **cause)
{
	char *c = NULL;
	const char *which = stats_check_finite(x, nx, 0, &c) ? "x"
			    : stats_check_finite(y, ny, 0, &c) ? "y"
								: NULL;
	if (!which)
		return 0;
	*cause = xasprintf("%s: %s", which, c);
	free(c);
	return -1;
}

int stats_welch_test(const double *x, size_t nx, const double *y, size_t ny, double conf,
		     struct stats_ttest *out, char **cause)
{
	if (nx < 2 || ny < 2) {
		*cause = xasprintf("%zu and %zu value(s): Welch's test needs 2 or more in each", nx,
				   ny);
		return -1;
	}
	if (!(conf > 0 && conf < 1)) {
		*cause = xasprintf("confidence level %g is out of range (0, 1)", conf);
		return -1;
	}
	if (two_finite(x, nx, y, ny, cause))
		return -1;
	out->n = nx;
	out->n2 = ny;
	double mx = gsl_stats_mean(x, 1, nx), my = gsl_stats_mean(y, 1, ny);
	double vx = gsl_stats_variance_m(x, 1, nx, mx) / (double)nx;
	double vy = gsl_stats_variance_m(y, 1, ny, my) / (double)ny;
	double v = vx + vy;
	/* Welch-Satterthwaite degrees of freedom; with no scatter at all they are the pooled
	 * ones (the CI is the point either way) */
	double df = v > 0 ? v * v / (vx * vx / (double)(nx - 1) + vy * vy / (double)(ny - 1))
			  : (double)(nx + ny - 2);
	out->sd = sqrt(((double)(nx - 1) * vx * (double)nx + (double)(ny - 1) * vy * (double)ny) /
		       (double)(nx + ny - 2));
	t_finish(out, mx - my, sqrt(v), df, conf);
	return 0;
}

/* The sorted copy of x (n values) into s, and its trimmed mean and winsorized variance at
 * g values cut from each end (Wilcox 2012, "Introduction to robust estimation", 3.3 and 4.3:
 * the winsorized sample replaces the g lowest by the (g+1)-th and the g highest by the
 * (n-g)-th, and its variance has n - 1 in the denominator). */
static void trim_stats(const double *x, size_t n, size_t g, double *s, double *tmean,
		       double *wvar)
{
	for (size_t i = 0; i < n; i++)
		s[i] = x[i];
	gsl_sort(s, 1, n);
	double sum = 0;
	for (size_t i = g; i < n - g; i++)
		sum += s[i];
	*tmean = sum / (double)(n - 2 * g);
	double wmean = 0;
	for (size_t i = 0; i < n; i++)
		wmean += i < g ? s[g] : i >= n - g ? s[n - g - 1] : s[i];
	wmean /= (double)n;
	double ss = 0;
	for (size_t i = 0; i < n; i++) {
		double w = (i < g ? s[g] : i >= n - g ? s[n - g - 1] : s[i]) - wmean;
		ss += w * w;
	}
	*wvar = ss / (double)(n - 1);
}

/* Tukey & McLaughlin (1963): g = floor(trim n) values cut from each end, h = n - 2g kept;
 * the trimmed mean's squared standard error is the winsorized sum of squares over h (h - 1),
 * on h - 1 degrees of freedom: one sample of Yuen's test, and Student's t exactly when g is 0
 * (R's trimci divides by (1 - 2 trim) sqrt(n) instead, which widens the interval by 1 / 0.6
 * at 4 values, where nothing is cut). */
int stats_trimmed_t_test(const double *d, size_t n, double trim, double conf,
			 struct stats_ttest *out, char **cause)
{
	if (n < 2) {
		*cause = xasprintf("%zu value(s): a trimmed t test needs 2 or more", n);
		return -1;
	}
	if (!(trim >= 0 && trim < 0.5) || !(conf > 0 && conf < 1)) {
		*cause = xasprintf("trim %g or confidence level %g out of range ([0, 0.5), (0, 1))",
				   trim, conf);
		return -1;
	}
	if (stats_check_finite(d, n, 0, cause))
		return -1;
	size_t g = (size_t)floor(trim * (double)n);
	if (n - 2 * g < 2)
		g = (n - 2) / 2;
	if (g == 0) /* nothing cut: Student's test, to the last bit */
		return stats_t_test(d, n, conf, out, cause);
	double *s = xmalloc(n * sizeof(*s)), tm, wv;
	trim_stats(d, n, g, s, &tm, &wv);
	free(s);
	out->n = n;
	out->n2 = 0;
	out->sd = sqrt(wv);
	double h = (double)(n - 2 * g);
	t_finish(out, tm, sqrt((double)(n - 1) * wv / (h * (h - 1))), h - 1, conf);
	return 0;
}

/* Yuen (1974), as SciPy's ttest_ind(trim=...) and R's yuen (Wilcox): per sample h_j kept
 * values and d_j = (n_j - 1) s_wj^2 / (h_j (h_j - 1)); t = (tmean_x - tmean_y) /
 * sqrt(d_x + d_y) on (d_x + d_y)^2 / (d_x^2 / (h_x - 1) + d_y^2 / (h_y - 1)) degrees of
 * freedom. */
int stats_yuen_test(const double *x, size_t nx, const double *y, size_t ny, double trim,
		    double conf, struct stats_ttest *out, char **cause)
{
	if (nx < 2 || ny < 2) {
		*cause = xasprintf("%zu and %zu value(s): Yuen's test needs 2 or more in each", nx,
				   ny);
		return -1;
	}
	if (!(trim >= 0 && trim < 0.5) || !(conf > 0 && conf < 1)) {
		*cause = xasprintf("trim %g or confidence level %g out of range ([0, 0.5), (0, 1))",
				   trim, conf);
		return -1;
	}
	if (two_finite(x, nx, y, ny, cause))
		return -1;
	size_t gx = (size_t)floor(trim * (double)nx), gy = (size_t)floor(trim * (double)ny);
	if (nx - 2 * gx < 2)
		gx = (nx - 2) / 2;
	if (ny - 2 * gy < 2)
		gy = (ny - 2) / 2;
	double *s = xmalloc((nx > ny ? nx : ny) * sizeof(*s)), tx, ty, vx, vy;
	trim_stats(x, nx, gx, s, &tx, &vx);
	trim_stats(y, ny, gy, s, &ty, &vy);
	free(s);
	double hx = (double)(nx - 2 * gx), hy = (double)(ny - 2 * gy);
	double dx = (double)(nx - 1) * vx / (hx * (hx - 1)), dy = (double)(ny - 1) * vy / (hy * (hy - 1));
	double v = dx + dy;
	double df = v > 0 ? v * v / (dx * dx / (hx - 1) + dy * dy / (hy - 1)) : hx + hy - 2;
	out->n = nx;
	out->n2 = ny;
	out->sd = sqrt(((double)(nx - 1) * vx + (double)(ny - 1) * vy) / (double)(nx + ny - 2));
	t_finish(out, tx - ty, sqrt(v), df, conf);
	return 0;
}
