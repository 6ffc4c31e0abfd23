/* compare.c: the same (mode, cell) across two runs, unpaired (two machines, two days, two
 * harness versions): Welch's t test on the log unit medians (or Mann-Whitney with
 * --test signed-rank), each row judged against its noise floor in run A, the rows one family
 * (see report.h) */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>

#include "harness/analysis/report.h"
#include "harness/base/util.h"

int run_compare_build(const struct analysis *a, const struct analysis *b,
		      const struct report_opts *o, struct run_compare **out)
{
	struct run_compare *rc = xcalloc(1, sizeof(*rc));
	rc->a = a;
	rc->b = b;
	rc->o = *o;
	rc->margin = !isnan(o->margin) ? o->margin : a->margin; /* NAN: none declared */
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!rng) {
		free(rc);
		return error("cannot allocate the bootstrap's random number generator");
	}
	gsl_rng_set(rng, (unsigned long)o->seed);
	size_t nmax = (a->nblocks > b->nblocks ? a->nblocks : b->nblocks) + 1;
	double *xa = xmalloc(nmax * sizeof(*xa)), *xb = xmalloc(nmax * sizeof(*xb));
	double *w = xmalloc(nmax * sizeof(*w));
	struct stats_compare_opts co = { .conf = o->conf, .alpha = o->alpha, .margin = rc->margin,
					 .power = o->power, .nboot = o->nboot, .test = o->test };
	for (size_t m = 0; m < a->nmodes; m++) {
		long mb = analysis_mode(b, a->modes[m]);
		for (size_t c = 0; c < a->ncells; c++) {
			long cb = mb < 0 ? -1 : analysis_cell(b, a->cells[c].name);
			if (cb < 0) {
				rc->only_a++;
				continue;
			}
			rc->rows = xrealloc(rc->rows, (rc->nrows + 1) * sizeof(*rc->rows));
			struct cmp_row *row = &rc->rows[rc->nrows++];
			memset(row, 0, sizeof(*row));
			row->cell = a->cells[c].name;
			row->mode = a->modes[m];
			row->na = analysis_column(a, m, c, xa);
			row->nb = analysis_column(b, (size_t)mb, (size_t)cb, xb);
			row->med_a = row->na ? stats_median(xa, 1, row->na, w) : NAN;
			row->med_b = row->nb ? stats_median(xb, 1, row->nb, w) : NAN;
			/* the row's noise floor: two processes of run A (stats_noise_floor) */
			for (size_t i = 0; i < row->na; i++)
				w[i] = log(xa[i]);
			co.floor = row->na >= 3 ? stats_noise_floor(M_SQRT2 * gsl_stats_sd(w, 1, row->na))
					       : NAN;
			char *cause = NULL;
			if (!row->na || !row->nb)
				snprintf(row->note, sizeof(row->note), "no ok units in %s",
					 row->na ? "B" : "A");
			else if (stats_compare_unpaired(xb, row->nb, xa, row->na, &co, rng, &row->c,
							&cause)) {
				snprintf(row->note, sizeof(row->note), "%s", cause);
				free(cause);
			} else
				row->ok = 1;
		}
	}
	for (size_t m = 0; m < b->nmodes; m++)
		for (size_t c = 0; c < b->ncells; c++)
			if (analysis_mode(a, b->modes[m]) < 0 || analysis_cell(a, b->cells[c].name) < 0)
				rc->only_b++;
	/* the rows are one family, adjusted by the report's method (default BH) */
	double *p = xmalloc((rc->nrows + 1) * sizeof(*p)), *adj = xmalloc((rc->nrows + 1) * sizeof(*adj));
	size_t k = 0;
	for (size_t i = 0; i < rc->nrows; i++)
		if (rc->rows[i].ok)
			p[k++] = rc->rows[i].c.p;
	rep_adjust_p(o->adjust, p, k, adj);
	size_t nfam = k;
	k = 0;
	for (size_t i = 0; i < rc->nrows; i++)
		if (rc->rows[i].ok)
			stats_comparison_redecide(&rc->rows[i].c, adj[k++], o->alpha, nfam);
	free(p);
	free(adj);
	free(xa);
	free(xb);
	free(w);
	gsl_rng_free(rng);
	*out = rc;
	return 0;
}

void run_compare_free(struct run_compare *rc)
{
	if (!rc)
		return;
	free(rc->rows);
	free(rc);
}
