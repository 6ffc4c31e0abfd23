/* replay-method.c: autotuning-methodology's score (Willemsen et al. 2024; the package's
 * searchspace_statistics.py, baseline.py, curves.py and report_experiments.py at v1.1.0,
 * read for the definition, issue 47) computed on a replayed cell (replay-int.h):
 * - the budget range: the values a percentile of the way from the median to the optimum
 *   (target(p) = opt + (median - opt)(1 - p)) turned into evaluations by the package's
 *   inverse of its random baseline (i values worse than the target: ceil(i / (N + 1 - i)))
 *   and into seconds at the median time of a point;
 * - the random baseline: the value at rank round(M (N + 1) / (M + 1)) from the worst of the
 *   N ok values after M evaluations, M = round(max(t / T_pf, 1)) at time t (T_pf: the mean
 *   time of an ok point plus the failed fraction times the mean time of a failed one),
 *   smoothed by a monotone cubic (PCHIP) over an evenly spaced grid of M;
 * - a tuner's curve: every seed's (time, best-so-far) points inside [0.9 t0, 1.1 t_end]
 *   pooled, the best's rank among the ok values fitted by isotonic regression (decreasing)
 *   over time, read at the axis's points by linear interpolation and rounded; held after
 *   the median over seeds of the time they stopped;
 * - the score: the mean over the axis of (curve - B) / (opt - B), unclipped.
 * The package fits its curve by bagging isotonic regressions without a seed (a random
 * score); this is its own isotonic fit before bagging, deterministic (docs/replay.md). */
#include "config.h"
#include "harness/analysis/replay-int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/util.h"

static int cmp_d(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

/* NumPy's round: half to even. */
static double round_even(double x)
{
	return nearbyint(x); /* the default rounding mode rounds half to even */
}

static double median_sorted(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void rmethod_release(struct rmethod *m)
{
	free(m->asc);
	free(m->time_range);
	free(m->baseline);
	memset(m, 0, sizeof(*m));
}

/* The package's cutoff for percentile p: evaluations and the target's index. */
static int64_t cutoff_fevals(const struct rmethod *m, double p)
{
	double target = m->opt + (m->median - m->opt) * (1 - p);
	size_t i = 0;
	for (size_t k = m->n; k-- > 0 && m->asc[k] > target;)
		i++;
	return (int64_t)ceil((double)i / (double)(m->n + 1 - i));
}

/* The baseline's value after M evaluations: desc[min(N - 1, round(M (N + 1) / (M + 1)))]. */
static double draw(const struct rmethod *m, double M)
{
	double r = round_even(M * (double)(m->n + 1) / (M + 1));
	size_t idx = r > (double)(m->n - 1) ? m->n - 1 : (size_t)r;
	return m->asc[m->n - 1 - idx];
}

/* scipy's PchipInterpolator through (x[i], y[i]), n >= 2, x ascending, at xs (ns points). */
static void pchip(const double *x, const double *y, size_t n, const double *xs, size_t ns,
		  double *out)
{
	double *h = xcalloc(n, sizeof(*h)), *d = xcalloc(n, sizeof(*d));
	double *mk = xcalloc(n, sizeof(*mk));
	for (size_t i = 0; i + 1 < n; i++) {
		h[i] = x[i + 1] - x[i];
		mk[i] = (y[i + 1] - y[i]) / h[i];
	}
	if (n == 2) {
		d[0] = d[1] = mk[0];
	} else {
		for (size_t i = 1; i + 1 < n; i++) {
			if (mk[i - 1] * mk[i] <= 0) {
				d[i] = 0;
				continue;
			}
			double w1 = 2 * h[i] + h[i - 1], w2 = h[i] + 2 * h[i - 1];
			d[i] = (w1 + w2) / (w1 / mk[i - 1] + w2 / mk[i]);
		}
		/* the ends: a three-point estimate, kept monotone */
		for (int end = 0; end < 2; end++) {
			size_t a = end ? n - 2 : 0, b = end ? n - 3 : 1; /* the end's interval, next */
			double h0 = h[a], h1 = h[b], m0 = mk[a], m1 = mk[b];
			double e = ((2 * h0 + h1) * m0 - h0 * m1) / (h0 + h1);
			if ((e > 0) != (m0 > 0) || e == 0)
				e = 0;
			else if ((m0 > 0) != (m1 > 0) && fabs(e) > fabs(3 * m0))
				e = 3 * m0;
			d[end ? n - 1 : 0] = e;
		}
	}
	for (size_t j = 0, i = 0; j < ns; j++) {
		while (i + 2 < n && xs[j] > x[i + 1])
			i++;
		double t = xs[j] - x[i];
		double c0 = (d[i] + d[i + 1] - 2 * mk[i]) / (h[i] * h[i]);
		double c1 = (3 * mk[i] - 2 * d[i] - d[i + 1]) / h[i];
		out[j] = ((c0 * t + c1) * t + d[i]) * t + y[i];
	}
	free(h);
	free(d);
	free(mk);
}

int rmethod_cell(const struct rcell *rc, double p_end, double p_start, size_t res,
		 struct rmethod *m, char **why)
{
	memset(m, 0, sizeof(*m));
	m->res = res;
	m->asc = xcalloc(rc->npoints + 1, sizeof(*m->asc));
	double *all = xcalloc(rc->npoints + 1, sizeof(*all));
	double sum_ok = 0, sum_bad = 0;
	size_t n_ok_t = 0, n_bad_t = 0, nbad = 0, nall = 0;
	for (size_t k = 0; k < rc->npoints; k++) {
		const struct rpoint *p = &rc->pts[k];
		if (!p->measured)
			continue;
		int ok = p->status == TRIAL_OK && isfinite(p->median);
		if (ok)
			m->asc[m->n++] = p->median;
		nbad += !ok;
		if (isfinite(p->time_s)) {
			all[nall++] = p->time_s;
			if (ok)
				sum_ok += p->time_s, n_ok_t++;
			else
				sum_bad += p->time_s, n_bad_t++;
		}
	}
	m->nall = nall;
	if (m->n < 2 || !nall || !n_ok_t) {
		free(all);
		*why = xasprintf("%s", m->n < 2 ? "fewer than 2 ok points"
					     : "no recorded times (compile, benchmark) to put on a time axis");
		return -1;
	}
	qsort(m->asc, m->n, sizeof(*m->asc), cmp_d);
	qsort(all, nall, sizeof(*all), cmp_d);
	m->opt = m->asc[0];
	m->median = median_sorted(m->asc, m->n);
	m->t_med = median_sorted(all, nall);
	free(all);
	size_t ntotal = m->n + nbad;
	m->t_pf = sum_ok / (double)n_ok_t +
		  (n_bad_t ? (double)nbad / (double)ntotal * sum_bad / (double)n_bad_t : 0);
	m->fevals_start = cutoff_fevals(m, p_start);
	m->fevals_end = cutoff_fevals(m, p_end);
	m->time_start = (double)m->fevals_start * m->t_med;
	m->time_end = (double)m->fevals_end * m->t_med;
	int64_t b = (int64_t)ceil((double)m->fevals_end * 1.1);
	m->budget = b < (int64_t)ntotal ? b : (int64_t)ntotal;
	if (!(m->time_end > m->time_start) || m->budget < 1) {
		/* (the budget range is empty: the package would divide by zero or raise) */
		*why = xasprintf("an empty budget range (%lld to %lld evaluations)",
				 (long long)m->fevals_start, (long long)m->fevals_end);
		return -1;
	}
	/* the axis and the baseline on it */
	m->time_range = xcalloc(res, sizeof(double));
	m->baseline = xcalloc(res, sizeof(double));
	double *k = xcalloc(res, sizeof(double)), *y = xcalloc(res, sizeof(double));
	double *kx = xcalloc(res, sizeof(double)), *grid = xcalloc(res, sizeof(double));
	size_t nk = 0;
	for (size_t j = 0; j < res; j++) {
		m->time_range[j] = res > 1 ? m->time_start + (m->time_end - m->time_start) *
								 (double)j / (double)(res - 1)
					   : m->time_start;
		double M = round_even(fmax(m->time_range[j] / m->t_pf, 1));
		if (!nk || M > k[nk - 1]) {
			k[nk] = M;
			y[nk++] = draw(m, M);
		}
		kx[j] = M;
	}
	if (nk < 2) {
		for (size_t j = 0; j < res; j++)
			m->baseline[j] = draw(m, kx[j]); /* v1.2.0's rule: unsmoothed */
	} else {
		for (size_t j = 0; j < res; j++)
			grid[j] = k[0] + (k[nk - 1] - k[0]) * (double)j / (double)(res - 1);
		pchip(k, y, nk, grid, res, m->baseline);
	}
	free(k);
	free(y);
	free(kx);
	free(grid);
	for (size_t j = 0; j < res; j++)
		if (!(m->baseline[j] > m->opt)) {
			/* a small space: random search's baseline reaches the optimum inside the
			 * range, and the standardised curve divides by zero there (the package's
			 * v1.1.0 gives NaN, its v1.2.0 raises) */
			*why = xasprintf("the random baseline reaches the optimum %.0f%% of the way "
					 "along the time axis (%zu ok points): the score is undefined",
					 100.0 * (double)j / (double)res, m->n);
			return -1;
		}
	return 0;
}

/* A point of the pooled fit: a time, the mean rank there, its weight. */
struct iso {
	double t, v, w;
};

static int iso_cmp(const void *x, const void *y)
{
	const struct iso *a = x, *b = y;
	return a->t < b->t ? -1 : a->t > b->t;
}

/* Index of value v in asc (searchsorted, left). */
static size_t rank_of(const struct rmethod *m, double v)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->asc[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int rmethod_score(const struct rmethod *m, double *const *t, double *const *y,
		  const size_t *n, size_t nseeds, double *curve, double *score, char **why)
{
	size_t total = 0, np = 0;
	for (size_t s = 0; s < nseeds; s++)
		total += n[s];
	struct iso *pt = xcalloc(total + 1, sizeof(*pt));
	double *stops = xcalloc(nseeds + 1, sizeof(*stops));
	double lo = 0.9 * m->time_range[0], hi = 1.1 * m->time_range[m->res - 1];
	for (size_t s = 0; s < nseeds; s++) {
		size_t inside = 0;
		stops[s] = NAN;
		for (size_t i = 0; i < n[s]; i++) {
			if (!isfinite(y[s][i]))
				continue;
			stops[s] = t[s][i];
			if (t[s][i] < lo || t[s][i] > hi)
				continue;
			pt[np++] = (struct iso){ t[s][i], (double)rank_of(m, y[s][i]), 1 };
			inside++;
		}
		if (inside < 2) {
			*why = xasprintf("seed %zu has %zu points inside the budget range (the package "
					 "needs 2)", s, inside);
			free(pt);
			free(stops);
			return -1;
		}
	}
	qsort(stops, nseeds, sizeof(*stops), cmp_d);
	double stop = median_sorted(stops, nseeds);
	free(stops);
	if (stop <= m->time_range[0]) {
		*why = xstrdup("the runs stopped before the budget range starts");
		free(pt);
		return -1;
	}
	/* duplicate times merged (mean rank, weight their count), then pool adjacent
	 * violators for a non-increasing fit */
	qsort(pt, np, sizeof(*pt), iso_cmp);
	size_t nb = 0;
	for (size_t i = 0; i < np; i++) {
		if (nb && pt[nb - 1].t == pt[i].t) {
			struct iso *b = &pt[nb - 1];
			b->v = (b->v * b->w + pt[i].v) / (b->w + 1);
			b->w += 1;
		} else {
			pt[nb++] = pt[i];
		}
	}
	double *bv = xcalloc(nb, sizeof(double)), *bw = xcalloc(nb, sizeof(double));
	size_t *bend = xcalloc(nb, sizeof(size_t)), nblk = 0;
	for (size_t i = 0; i < nb; i++) {
		bv[nblk] = pt[i].v;
		bw[nblk] = pt[i].w;
		bend[nblk++] = i;
		while (nblk > 1 && bv[nblk - 2] < bv[nblk - 1]) { /* increasing: pool */
			double w = bw[nblk - 2] + bw[nblk - 1];
			bv[nblk - 2] = (bv[nblk - 2] * bw[nblk - 2] + bv[nblk - 1] * bw[nblk - 1]) / w;
			bw[nblk - 2] = w;
			bend[nblk - 2] = bend[nblk - 1];
			nblk--;
		}
	}
	double *fit = xcalloc(nb, sizeof(double));
	for (size_t b = 0, i = 0; b < nblk; b++)
		for (; i <= bend[b]; i++)
			fit[i] = bv[b];
	/* read at the axis: linear between fitted points, clipped beyond them */
	size_t hold = m->res;
	for (size_t j = 0; j < m->res; j++)
		if (m->time_range[j] > stop) {
			hold = j;
			break;
		}
	double sum = 0;
	for (size_t j = 0, i = 0; j < m->res; j++) {
		double x = m->time_range[j < hold ? j : hold], r;
		if (x <= pt[0].t) {
			r = fit[0];
		} else if (x >= pt[nb - 1].t) {
			r = fit[nb - 1];
		} else {
			while (i + 1 < nb && pt[i + 1].t < x)
				i++;
			double f = (x - pt[i].t) / (pt[i + 1].t - pt[i].t);
			r = fit[i] + f * (fit[i + 1] - fit[i]);
		}
		double ri = round_even(r);
		size_t idx = ri < 0 ? 0 : ri > (double)(m->n - 1) ? m->n - 1 : (size_t)ri;
		double c = m->asc[idx], B = m->baseline[j];
		curve[j] = (c - B) / (m->opt - B);
		sum += curve[j];
	}
	*score = sum / (double)m->res;
	free(bv);
	free(bw);
	free(bend);
	free(fit);
	free(pt);
	return 0;
}
