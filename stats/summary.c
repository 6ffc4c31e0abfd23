/* summary.c: medians, quartiles and the median's standard error (see stats.h) */
#include "config.h"
#include "stats/stats.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

void stats_summarize(const double *x, size_t stride, size_t n, double *work,
		     struct stats_summary *out)
{
	out->n = n;
	if (n == 0) {
		out->median = out->q1 = out->q3 = out->iqr = out->min = out->max = NAN;
		return;
	}
	for (size_t i = 0; i < n; i++)
		work[i] = x[i * stride];
	gsl_sort(work, 1, n);
	out->median = gsl_stats_median_from_sorted_data(work, 1, n);
	out->q1 = gsl_stats_quantile_from_sorted_data(work, 1, n, 0.25);
	out->q3 = gsl_stats_quantile_from_sorted_data(work, 1, n, 0.75);
	out->iqr = out->q3 - out->q1;
	out->min = work[0];
	out->max = work[n - 1];
}

double stats_median_rel_se(const struct stats_summary *s)
{
	if (s->n < 4 || !(s->median > 0))
		return NAN;
	double sigma = s->iqr / 1.349;
	return 1.2533 * sigma / sqrt((double)s->n) / s->median;
}

void stats_from_ns(const int64_t *ns, size_t n, double *out)
{
	for (size_t i = 0; i < n; i++)
		out[i] = (double)ns[i];
}
