/* ttest.c: Student's one-sample (paired) t test and Welch's two-sample t test, with their
 * confidence intervals (stats.h) */
#include "config.h"
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
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
	char *c = NULL;
	const char *which = stats_check_finite(x, nx, 0, &c) ? "x"
			    : stats_check_finite(y, ny, 0, &c) ? "y"
								: NULL;
	if (which) {
		*cause = xasprintf("%s: %s", which, c);
		free(c);
		return -1;
	}
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
