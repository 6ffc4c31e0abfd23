/* boot.c: percentile bootstrap CIs (Efron) of a median and of a block geometric mean (see stats.h) */
#include "config.h"
#include "stats/stats.h"

#include <math.h>
#include <string.h>
#include <stdlib.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "harness/base/util.h"

/* The fewest resamples we accept: below ~1000 the 2.5% and 97.5% percentiles of the
 * bootstrap distribution rest on a couple of dozen draws each (Efron & Tibshirani 1993,
 * ch. 13, recommend 1000 or more for percentile intervals). */
#define BOOT_MIN_RESAMPLES 1000

/* Check what every bootstrap shares: a level strictly inside (0, 1), enough resamples and a
 * generator.  0, or -1 with *cause (heap). */
static int boot_check_args(double conf, size_t nboot, const gsl_rng *rng, char **cause)
{
	if (!(conf > 0 && conf < 1)) {
		*cause = xasprintf("confidence level %g is out of range: it must lie strictly "
				   "between 0 and 1", conf);
		return -1;
	}
	if (nboot < BOOT_MIN_RESAMPLES) {
		*cause = xasprintf("%zu bootstrap resamples are too few: at least %d are needed",
				   nboot, BOOT_MIN_RESAMPLES);
		return -1;
	}
	if (!rng) {
		*cause = xstrdup("no random number generator for the bootstrap");
		return -1;
	}
	return 0;
}

/* The percentile interval: the (1 - conf)/2 and (1 + conf)/2 quantiles of the nboot
 * bootstrap replicates in rep (sorted here), by GSL's quantile_from_sorted_data (linear
 * interpolation, Hyndman & Fan type 7). */
static void boot_percentiles(double *rep, size_t nboot, double conf, double *lo, double *hi)
{
	gsl_sort(rep, 1, nboot);
	*lo = gsl_stats_quantile_from_sorted_data(rep, 1, nboot, (1 - conf) / 2);
	*hi = gsl_stats_quantile_from_sorted_data(rep, 1, nboot, (1 + conf) / 2);
}

/* Efron's percentile bootstrap of the median (Efron 1979; Efron & Tibshirani 1993, §13.3):
 * draw n values of x with replacement nboot times, take each resample's median (GSL's
 * quickselect gsl_stats_median), and report the central conf share of those medians.
 * The caller seeds rng and records the seed; nothing here reseeds it.  The two buffers
 * (one resample, nboot replicates) are allocated once, outside the resampling loop. */
int stats_boot_median_ci(const double *x, size_t n, double conf, size_t nboot,
			 gsl_rng *rng, double *lo, double *hi, char **cause)
{
	*lo = *hi = NAN;
	if (n == 0) {
		*cause = xstrdup("no values to bootstrap");
		return -1;
	}
	if (boot_check_args(conf, nboot, rng, cause) < 0)
		return -1;
	if (stats_check_finite(x, n, 0, cause) < 0)
		return -1;

	/* A resample is a multiset of indices: count how often each index is drawn, then walk
	 * the indices in the order of their values to the middle.  O(n) per resample with no
	 * selection, and the same medians as selecting from the resampled values. */
	size_t *perm = xmalloc(n * sizeof(*perm));
	size_t *count = xmalloc(n * sizeof(*count));
	double *rep = xmalloc(nboot * sizeof(*rep));
	gsl_sort_index(perm, x, 1, n);
	size_t k1 = (n - 1) / 2, k2 = n / 2; /* the middle order statistics, 0-based */
	for (size_t b = 0; b < nboot; b++) {
		memset(count, 0, n * sizeof(*count));
		for (size_t i = 0; i < n; i++)
			count[gsl_rng_uniform_int(rng, n)]++;
		double v1 = NAN, v2 = NAN;
		size_t seen = 0;
		for (size_t k = 0; k < n && isnan(v2); k++) {
			size_t c = count[perm[k]];
			if (isnan(v1) && seen + c > k1)
				v1 = x[perm[k]];
			if (seen + c > k2)
				v2 = x[perm[k]];
			seen += c;
		}
		rep[b] = (v1 + v2) / 2;
	}
	boot_percentiles(rep, nboot, conf, lo, hi);
	free(rep);
	free(count);
	free(perm);
	return 0;
}

/* The block statistic of stats_boot_geomean: the mean over cells of each cell's median over
 * the blocks listed in idx (nblocks of them, repeats allowed), skipping NaN entries; a cell
 * with no value among those blocks is left out of the mean.  col holds nblocks doubles.
 * NaN when no cell has a value (stats_boot_geomean never passes such a set). */
static double boot_cell_median_mean(const double *logr, size_t ncells, const size_t *idx,
				    size_t nblocks, double *col)
{
	double sum = 0;
	size_t used = 0;
	for (size_t j = 0; j < ncells; j++) {
		size_t m = 0;
		for (size_t b = 0; b < nblocks; b++) {
			double v = logr[idx[b] * ncells + j];
			if (!isnan(v))
				col[m++] = v;
		}
		if (m == 0)
			continue;
		sum += gsl_stats_median(col, 1, m);
		used++;
	}
	return used ? sum / (double)used : NAN;
}

/* 1 when block b of logr[][ncells] has a value that is not NaN. */
static int block_has_data(const double *logr, size_t b, size_t ncells)
{
	for (size_t j = 0; j < ncells; j++)
		if (!isnan(logr[b * ncells + j]))
			return 1;
	return 0;
}

size_t stats_blocks_with_data(const double *logr, size_t nblocks, size_t ncells)
{
	size_t n = 0;
	for (size_t b = 0; b < nblocks; b++)
		n += block_has_data(logr, b, ncells);
	return n;
}

/* Block (cluster) bootstrap of a geometric mean of ratios (Davison & Hinkley 1997, §3.8:
 * resample the independent units, here whole blocks, so the correlation between cells of
 * one block is kept).  The statistic is the mean over cells of the per-cell median log
 * ratio; est = exp of it on the data, and [lo, hi] = exp of the percentile interval of the
 * statistic over nboot resamples of the blocks with replacement (exp is monotone, so this
 * is the percentile interval of the geometric mean itself).
 *
 * Missing cells: a NaN entry contributes nothing to its cell, and in a resample where a
 * cell has no value at all that cell is left out of that resample's mean.  A block with no
 * value in any cell carries no information and is left out of the resampling (the blocks
 * resampled are those with data), so every resample has at least one cell.  A cell with no
 * value in any block is an error, as is an infinite entry: the set of cells averaged must be
 * the one the caller meant. */
int stats_boot_geomean(const double *logr, size_t nblocks, size_t ncells, double conf,
		       size_t nboot, gsl_rng *rng, double *est, double *lo, double *hi,
		       char **cause)
{
	*est = *lo = *hi = NAN;
	if (nblocks == 0 || ncells == 0) {
		*cause = xasprintf("no data for the geometric mean (%zu blocks, %zu cells)",
				   nblocks, ncells);
		return -1;
	}
	if (boot_check_args(conf, nboot, rng, cause) < 0)
		return -1;
	for (size_t j = 0; j < ncells; j++) {
		size_t have = 0;
		for (size_t b = 0; b < nblocks; b++) {
			double v = logr[b * ncells + j];
			if (isinf(v)) {
				*cause = xasprintf("log ratio of block %zu, cell %zu is %g", b, j, v);
				return -1;
			}
			have += !isnan(v);
		}
		if (!have) {
			*cause = xasprintf("cell %zu has no value in any of the %zu blocks", j,
					   nblocks);
			return -1;
		}
	}

	/* keep: the blocks with at least one value (at least one, as every cell has one) */
	size_t *keep = xmalloc(nblocks * sizeof(*keep));
	size_t *idx = xmalloc(nblocks * sizeof(*idx));
	double *col = xmalloc(nblocks * sizeof(*col));
	double *rep = xmalloc(nboot * sizeof(*rep));
	size_t nkeep = 0;
	for (size_t b = 0; b < nblocks; b++)
		if (block_has_data(logr, b, ncells))
			keep[nkeep++] = b;
	double stat = boot_cell_median_mean(logr, ncells, keep, nkeep, col);
	for (size_t r = 0; r < nboot; r++) {
		for (size_t b = 0; b < nkeep; b++)
			idx[b] = keep[gsl_rng_uniform_int(rng, nkeep)];
		rep[r] = boot_cell_median_mean(logr, ncells, idx, nkeep, col);
	}
	double qlo, qhi;
	boot_percentiles(rep, nboot, conf, &qlo, &qhi);
	*est = exp(stat);
	*lo = exp(qlo);
	*hi = exp(qhi);
	free(rep);
	free(col);
	free(idx);
	free(keep);
	return 0;
}
