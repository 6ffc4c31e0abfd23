/* multi.c: multiple comparisons: Holm's family-wise step-down, and the false-discovery
 * step-ups of Benjamini-Hochberg and Benjamini-Yekutieli (stats.h) */
#include "config.h"
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_sort.h>

#include "harness/base/util.h"

/* The p that are not NaN, in ascending order: v[k] = p[where[k]], k < *m.  NaN p get adj NaN.
 * Heap v and where. */
static void sorted_finite(const double *p, size_t n, double *adj, double **v_out,
			  size_t **where_out, size_t *m_out)
{
	double *v = xmalloc((n ? n : 1) * sizeof(*v)), *tmp = xmalloc((n ? n : 1) * sizeof(*tmp));
	size_t *where = xmalloc((n ? n : 1) * sizeof(*where)), *w = xmalloc((n ? n : 1) * sizeof(*w));
	size_t *perm = xmalloc((n ? n : 1) * sizeof(*perm));
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (isnan(p[i])) {
			adj[i] = NAN;
			continue;
		}
		tmp[m] = p[i];
		w[m] = i;
		m++;
	}
	if (m > 0)
		gsl_sort_index(perm, tmp, 1, m);
	for (size_t k = 0; k < m; k++) {
		v[k] = tmp[perm[k]];
		where[k] = w[perm[k]];
	}
	free(perm);
	free(w);
	free(tmp);
	*v_out = v;
	*where_out = where;
	*m_out = m;
}

/* Holm (1979) step-down adjustment: with the p sorted ascending, p_(1) <= ... <= p_(n),
 *     adj_(i) = min(1, max_{j <= i} (n - j + 1) p_(j)),
 * written back in the original order (R's p.adjust(p, "holm")).  NaN p stay NaN and still
 * count in n (conservative: a comparison was made), as R's p.adjust(p, n = length(p)) does;
 * R's default n counts only the p that are not NA. */
void stats_holm(const double *p, size_t n, double *adj)
{
	if (n == 0)
		return;
	double *v;
	size_t *where, m;
	sorted_finite(p, n, adj, &v, &where, &m);
	double run = 0;
	for (size_t j = 0; j < m; j++) {
		double a = fmin(1, (double)(n - j) * v[j]);
		run = fmax(run, a);
		adj[where[j]] = run;
	}
	free(where);
	free(v);
}

/* The step-up of Benjamini & Hochberg (1995), scaled by c: with the p sorted ascending,
 *     adj_(i) = min(1, min_{j >= i} c n p_(j) / j),
 * written back in the original order; c = 1 is BH (R's p.adjust "BH", statsmodels
 * "fdr_bh"), c = sum_{k=1}^{n} 1/k is Benjamini & Yekutieli (2001) ("BY", "fdr_by").  NaN p
 * stay NaN and count in n, as in stats_holm. */
static void step_up(const double *p, size_t n, double c, double *adj)
{
	if (n == 0)
		return;
	double *v;
	size_t *where, m;
	sorted_finite(p, n, adj, &v, &where, &m);
	double run = 1;
	for (size_t j = m; j-- > 0;) {
		run = fmin(run, c * (double)n * v[j] / (double)(j + 1));
		adj[where[j]] = fmin(1, run);
	}
	free(where);
	free(v);
}

void stats_bh(const double *p, size_t n, double *adj)
{
	step_up(p, n, 1, adj);
}

void stats_by(const double *p, size_t n, double *adj)
{
	double c = 0;
	for (size_t k = 1; k <= n; k++)
		c += 1.0 / (double)k;
	step_up(p, n, c, adj);
}
