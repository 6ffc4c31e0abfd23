/* summary.c: medians, quartiles and the median's standard error (see stats.h) */
#include "config.h"
#include "stats/stats.h"
#include "harness/base/util.h"

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

/* Median of x[0], x[stride], ..., x[(n-1)*stride]: a sorted copy in work (n doubles), then
 * GSL's median_from_sorted_data (the middle value, or the mean of the two middle ones). */
double stats_median(const double *x, size_t stride, size_t n, double *work)
{
	if (n == 0)
		return NAN;
	for (size_t i = 0; i < n; i++)
		work[i] = x[i * stride];
	gsl_sort(work, 1, n);
	return gsl_stats_median_from_sorted_data(work, 1, n);
}

/* The first bad value, by its 0-based index: NaN and infinities always, and with positive
 * set anything <= 0 (including -0) as well.  NaN is spelled "NaN"; numbers as %g. */
int stats_check_finite(const double *x, size_t n, int positive, char **cause)
{
	for (size_t i = 0; i < n; i++) {
		if (isnan(x[i])) {
			*cause = xasprintf("value %zu is NaN", i);
			return -1;
		}
		if (isinf(x[i])) {
			*cause = xasprintf("value %zu is %s", i, x[i] > 0 ? "inf" : "-inf");
			return -1;
		}
		if (positive && !(x[i] > 0)) {
			*cause = xasprintf("value %zu is %g: ratios must be positive", i, x[i]);
			return -1;
		}
	}
	return 0;
}

void stats_cell_medians(const int64_t *cell, const int64_t *ns, size_t n, size_t ncells,
			double *med)
{
	stats_cell_medians_se(cell, ns, n, ncells, med, NULL);
}

void stats_cell_medians_se(const int64_t *cell, const int64_t *ns, size_t n, size_t ncells,
			   double *med, double *rel_se)
{
	size_t *start = xcalloc(ncells + 1, sizeof(*start));
	for (size_t j = 0; j < n; j++)
		if (cell[j] >= 0 && (size_t)cell[j] < ncells)
			start[cell[j] + 1]++;
	for (size_t c = 0; c < ncells; c++)
		start[c + 1] += start[c];
	double *x = xmalloc((n ? n : 1) * sizeof(*x));
	size_t *fill = xmalloc((ncells + 1) * sizeof(*fill));
	memcpy(fill, start, (ncells + 1) * sizeof(*fill));
	for (size_t j = 0; j < n; j++)
		if (cell[j] >= 0 && (size_t)cell[j] < ncells)
			x[fill[cell[j]]++] = (double)ns[j];
	double *w = rel_se ? xmalloc((n ? n : 1) * sizeof(*w)) : NULL;
	for (size_t c = 0; c < ncells; c++) {
		size_t k = start[c + 1] - start[c];
		if (rel_se) { /* sorts a copy: the median is the same order statistic */
			struct stats_summary s;
			stats_summarize(x + start[c], 1, k, w, &s);
			med[c] = k ? s.median : NAN;
			rel_se[c] = stats_median_rel_se(&s);
		} else {
			med[c] = k ? gsl_stats_median(x + start[c], 1, k) : NAN;
		}
	}
	free(w);
	free(x);
	free(fill);
	free(start);
}

void stats_variance_components(const double *med, const double *rel_se, size_t n,
			       struct stats_vc *out)
{
	double mean = 0, m2 = 0, within = 0;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) { /* Welford's update of the logs' mean and variance */
		if (!(med[i] > 0) || isnan(rel_se[i]) || isinf(med[i]))
			continue;
		double l = log(med[i]), d = l - mean;
		k++;
		mean += d / (double)k;
		m2 += d * (l - mean);
		within += rel_se[i] * rel_se[i];
	}
	out->n = k;
	out->between = out->within = out->process = out->share = NAN;
	if (k < 2)
		return;
	out->between = m2 / (double)(k - 1);
	out->within = within / (double)k;
	if (!(out->between > 0))
		return;
	out->process = out->between > out->within ? out->between - out->within : 0.0;
	out->share = out->process / out->between;
}
