/* report-figs.c: what the figures draw beyond the report's tables (report.h "figures"):
 * the CIs the tables stand behind, the forest plot's rows and the plotted Pareto front */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/analysis/report.h"
#include "harness/base/util.h"

int report_cmp_ci(const struct rep_cmp *x, double *lo, double *hi)
{
	int ok = x->ok && !x->c.ci_short && !isnan(x->c.lo) && !isnan(x->c.hi);
	*lo = ok ? x->c.lo : NAN;
	*hi = ok ? x->c.hi : NAN;
	return ok;
}

int report_forest_shown(const struct report *r, const struct rep_cmp *x)
{
	return x->ok && (x->c.verdict != VERDICT_INCONCLUSIVE ||
			 !strcmp(r->a->cells[x->cell].kind, "e2e"));
}

/* qsort context: qsort has none, so the keys are computed first. */
struct forest_key {
	size_t cmp, group;
	double ratio;
};

static int cmp_forest(const void *p, const void *q)
{
	const struct forest_key *a = p, *b = q;
	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	if (a->ratio != b->ratio)
		return a->ratio < b->ratio ? -1 : 1;
	return a->cmp < b->cmp ? -1 : a->cmp > b->cmp;
}

size_t report_forest_rows(const struct report *r, int all, size_t *rows)
{
	const struct analysis *a = r->a;
	struct forest_key *k = xcalloc(r->ncmp + 1, sizeof(*k));
	size_t n = 0;
	for (size_t i = 0; i < r->ncmp; i++) {
		const struct rep_cmp *x = &r->cmp[i];
		if (!x->ok || (!all && !report_forest_shown(r, x)))
			continue;
		/* the workload's place: the first cell of it in the analysis' order */
		size_t g = 0;
		while (g < a->ncells && strcmp(a->cells[g].workload, a->cells[x->cell].workload))
			g++;
		k[n++] = (struct forest_key){ i, g, x->c.ratio };
	}
	qsort(k, n, sizeof(*k), cmp_forest);
	for (size_t i = 0; i < n; i++)
		rows[i] = k[i].cmp;
	free(k);
	return n;
}

void report_front2d(const struct report *r, size_t c, int *on)
{
	const struct analysis *a = r->a;
	for (size_t m = 0; m < a->nmodes; m++) {
		const struct rep_summary *s = &r->sum[m * a->ncells + c];
		double x = s->setup.median, y = s->s.median;
		on[m] = s->n > 0 && !isnan(x) && !isnan(y);
		for (size_t k = 0; on[m] && k < a->nmodes; k++) {
			const struct rep_summary *t = &r->sum[k * a->ncells + c];
			double tx = t->setup.median, ty = t->s.median;
			if (k == m || !t->n || isnan(tx) || isnan(ty))
				continue;
			if (tx <= x && ty <= y && (tx < x || ty < y))
				on[m] = 0;
		}
	}
}
