/* stats.h: statistics on GSL.  This issue needs only the robust summaries the worker uses
 * to stop sampling and `show` uses to summarise; paired tests, bootstrap CIs, Pareto fronts
 * and verdicts arrive with the statistics issue.  Data are passed GSL-style as
 * (const double *x, size_t stride, size_t n); nothing here prints. */
#ifndef HARNESS_STATS_H
#define HARNESS_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Robust summary of n values. */
struct stats_summary {
	size_t n;
	double median;
	double q1, q3;   /* quartiles, GSL's quantile_from_sorted_data (linear interpolation,
	                    Hyndman & Fan type 7, as R's default and numpy's "linear") */
	double iqr;      /* q3 - q1 */
	double min, max;
};

/* Summarise x (not modified; a sorted copy is made in work, which must hold n doubles).
 * n == 0 gives NaNs. */
void stats_summarize(const double *x, size_t stride, size_t n, double *work,
		     struct stats_summary *out);

/* Relative standard error of the median: 1.2533 * sigma / sqrt(n) / median, with the robust
 * sigma = IQR / 1.349 (the asymptotic standard error of a normal sample's median, sqrt(pi/2)
 * sigma / sqrt(n); Kendall & Stuart).  NaN when n < 4 or the median is not positive.
 * The worker stops sampling a cell once this falls to the target precision. */
double stats_median_rel_se(const struct stats_summary *s);

/* Convert int64 nanoseconds to doubles into out (n values). */
void stats_from_ns(const int64_t *ns, size_t n, double *out);

#endif
