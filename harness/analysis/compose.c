/* compose.c: why per-op wins do or do not add up end to end (report.h, struct rep_comp;
 * docs/report-format.md, "Per-op versus end to end").  Per workload and mode, paired by
 * block: the e2e ratio the op cells predict when each is weighted by its count and its time
 * (Amdahl: the time outside the op cells held fixed), the measured e2e ratio, their ratio
 * (the interaction) and the op cells' coverage of the forward; then Kendall's tau of the
 * unweighted and of the predicted ranking against the measured one, and which explanation
 * the data support when they disagree. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "harness/analysis/report-int.h"
#include "harness/base/util.h"
#include "stats/stats.h"

enum { Q_PRED = 0, Q_MEAS, Q_INTER, Q_COVB, Q_COVM, NQ };

const char *rep_compose_name(enum rep_compose v)
{
	return v == COMPOSE_YES ? "composes" : v == COMPOSE_NO ? "does not compose" : "undecided";
}

double report_host_bound_ratio(const struct report *r, size_t c, size_t *graph,
			       size_t *nblocks)
{
	const struct analysis *a = r->a;
	if (strcmp(a->cells[c].kind, "e2e") || strstr(a->cells[c].shape, "launch=graph"))
		return NAN;
	double q = NAN;
	double *x = xmalloc((a->nblocks + 1) * sizeof(*x)), *w = xmalloc((a->nblocks + 1) * sizeof(*w));
	size_t wl = a->cell_workload[c]; /* the other cells of c's workload, in cell order */
	for (size_t k = a->workload_first[wl]; k < a->workload_first[wl + 1] && isnan(q); k++) {
		size_t g = a->workload_cells[k];
		if (g == c || strcmp(a->cells[g].kind, "e2e") ||
		    !strstr(a->cells[g].shape, "launch=graph"))
			continue;
		size_t n = 0;
		for (size_t b = 0; b < a->nblocks; b++) {
			double s = an_med(a, r->baseline, c, b), t = an_med(a, r->baseline, g, b);
			if (!isnan(s) && !isnan(t) && s > 0 && t > 0)
				x[n++] = s / t;
		}
		if (n) {
			q = stats_median(x, 1, n, w);
			if (graph)
				*graph = g;
			if (nblocks)
				*nblocks = n;
		}
	}
	free(x);
	free(w);
	return q;
}

/* The report's warning for each e2e cell report_host_bound_ratio finds host-bound (the CUDA
 * backend's stream forward on cuDNN's legacy API: calls of about 100 us of host time each). */
void report_host_bound(struct report *r)
{
	const struct analysis *a = r->a;
	for (size_t c = 0; c < a->ncells; c++) {
		size_t g = 0, n = 0;
		double q = report_host_bound_ratio(r, c, &g, &n);
		if (!isnan(q) && q >= REP_HOST_BOUND)
			report_warn(r, "'%s' takes %.2fx the time of '%s' under '%s' (median "
				    "over %zu blocks): launched op by op, the forward waits on "
				    "the host, so '%s' times the host's launch and library work "
				    "as much as the GPU; its ratios between modes and its A/A "
				    "noise floor say as much about the host as about the kernels, "
				    "and '%s' is the cell for the GPU's work", a->cells[c].name, q,
				    a->cells[g].name, a->modes[r->baseline], n, a->cells[c].name,
				    a->cells[g].name);
	}
}

/* The five per-block quantities of one block (docs/report-format.md):
 * q[Q_PRED] = (E_B + S_m - S_B) / E_B, q[Q_MEAS] = E_m / E_B, q[Q_INTER] = q[Q_MEAS] /
 * q[Q_PRED], q[Q_COVB] = S_B / E_B, q[Q_COVM] = S_m / E_m, where S = sum_c n_c o_c.
 * 0 when every value is there and positive (and the prediction is), else -1. */
static int block_quantities(double eb, double em, double sb, double sm, double *q)
{
	if (!(eb > 0) || !(em > 0) || isnan(sb) || isnan(sm))
		return -1;
	q[Q_PRED] = (eb + sm - sb) / eb;
	if (!(q[Q_PRED] > 0))
		return -1;
	q[Q_MEAS] = em / eb;
	q[Q_INTER] = q[Q_MEAS] / q[Q_PRED];
	q[Q_COVB] = sb / eb;
	q[Q_COVM] = sm / em;
	return 0;
}

/* sum_c n_c o_c over the op cells ops[0..nops) of mode m in block b (b = SIZE_MAX: the
 * median of the mode's unit medians instead, for unpaired data); NAN when one is missing. */
static double weighted_ops(const struct report *r, size_t m, const size_t *ops, size_t nops,
			   size_t b)
{
	const struct analysis *a = r->a;
	double s = 0;
	for (size_t k = 0; k < nops; k++) {
		double v = b == SIZE_MAX ? r->sum[m * a->ncells + ops[k]].s.median
					 : an_med(a, m, ops[k], b);
		if (isnan(v))
			return NAN;
		s += (double)a->cells[ops[k]].count * v;
	}
	return s;
}

/* Median over the n rows of q (NQ columns, row stride NQ) of column j, through rows idx
 * (n of them, repeats allowed; NULL: every row once).  work holds n doubles. */
static double column_median(const double *q, const size_t *idx, size_t n, size_t j,
			    double *work)
{
	for (size_t i = 0; i < n; i++)
		work[i] = q[(idx ? idx[i] : i) * NQ + j];
	gsl_sort(work, 1, n);
	return gsl_stats_median_from_sorted_data(work, 1, n);
}

/* Point estimates and CIs of the five per-block quantities.  The t tests (t, the report's
 * default, and trimmed-t): the geometric mean over blocks and exp of Student's t CI of the
 * mean log (every quantity is positive).  Untrimmed under trimmed-t too: the quantities are
 * tied (interaction = e2e / predicted, block by block), and only the plain mean of logs
 * keeps the tie in the estimates; a trimmed mean of each would cut different blocks.  The
 * signed-rank test: medians over blocks and block-bootstrap percentile CIs (Efron &
 * Tibshirani 1993, ch. 13), each resample drawing n blocks with replacement and taking every
 * statistic over the same drawn blocks, so they stay paired. */
static void estimate(const struct report *r, const double *q, size_t n, gsl_rng *rng,
		     struct rep_est *out[NQ])
{
	size_t nboot = r->o.nboot;
	double *work = xmalloc(n * sizeof(*work));
	double *rep = xmalloc((nboot ? nboot : 1) * NQ * sizeof(*rep));
	size_t *idx = xmalloc(n * sizeof(*idx));
	for (size_t j = 0; j < NQ; j++) {
		out[j]->est = column_median(q, NULL, n, j, work);
		out[j]->lo = out[j]->hi = NAN;
	}
	if (r->o.test != STATS_TEST_RANK) {
		for (size_t j = 0; j < NQ; j++) {
			for (size_t i = 0; i < n; i++)
				work[i] = log(q[i * NQ + j]);
			struct stats_ttest t;
			char *cause = NULL;
			out[j]->est = exp(gsl_stats_mean(work, 1, n));
			if (r->a->paired && n >= 2 &&
			    !stats_t_test(work, n, r->o.conf, &t, &cause)) {
				out[j]->est = exp(t.est);
				out[j]->lo = exp(t.lo);
				out[j]->hi = exp(t.hi);
			}
			free(cause);
		}
	} else if (r->a->paired && n >= 2 && nboot) {
		for (size_t t = 0; t < nboot; t++) {
			for (size_t i = 0; i < n; i++)
				idx[i] = gsl_rng_uniform_int(rng, n);
			for (size_t j = 0; j < NQ; j++)
				rep[j * nboot + t] = column_median(q, idx, n, j, work);
		}
		for (size_t j = 0; j < NQ; j++) {
			double *x = rep + j * nboot;
			gsl_sort(x, 1, nboot);
			out[j]->lo = gsl_stats_quantile_from_sorted_data(x, 1, nboot, (1 - r->o.conf) / 2);
			out[j]->hi = gsl_stats_quantile_from_sorted_data(x, 1, nboot, (1 + r->o.conf) / 2);
		}
	}
	free(work);
	free(rep);
	free(idx);
}

/* The interaction against the margin: composes when its CI lies inside [1 - margin,
 * 1 + margin], does not compose when it lies wholly outside, else undecided. */
static enum rep_compose decide(const struct rep_est *x, double margin)
{
	if (isnan(x->lo) || isnan(x->hi))
		return COMPOSE_UNDECIDED;
	if (x->lo >= 1 - margin && x->hi <= 1 + margin)
		return COMPOSE_YES;
	if (x->lo > 1 + margin || x->hi < 1 - margin)
		return COMPOSE_NO;
	return COMPOSE_UNDECIDED;
}

/* One (workload, mode) composition; ops are the workload's op cells. */
static void compose_one(struct report *r, const char *workload, size_t m, size_t e2e,
			const size_t *ops, size_t nops, gsl_rng *rng, struct rep_comp *c)
{
	const struct analysis *a = r->a;
	size_t nb = a->nblocks, B = r->baseline;
	memset(c, 0, sizeof(*c));
	c->workload = xstrdup(workload);
	c->mode = m;
	c->e2e = e2e;
	c->nops = nops;
	c->geomean = NAN;
	struct rep_est *est[NQ] = { &c->pred, &c->meas, &c->inter, &c->cov_base, &c->cov_mode };
	for (size_t j = 0; j < NQ; j++)
		est[j]->est = est[j]->lo = est[j]->hi = NAN;
	long w = analysis_workload(a, workload);
	if (w >= 0)
		c->geomean = r->agg[report_agg_index(r, (size_t)w, m)].geomean;
	for (size_t k = 0; k < nops; k++)
		if (a->cells[ops[k]].count < 1) {
			snprintf(c->note, sizeof(c->note), "op cell has no count (occurrences)");
			return;
		}
	double *q = xmalloc((nb + 1) * NQ * sizeof(*q));
	size_t n = 0;
	if (a->paired) {
		for (size_t b = 0; b < nb; b++)
			n += !block_quantities(an_med(a, B, e2e, b), an_med(a, m, e2e, b),
					       weighted_ops(r, B, ops, nops, b),
					       weighted_ops(r, m, ops, nops, b), q + n * NQ);
	} else {
		/* no blocks: one "block" of the medians of each mode's unit medians */
		n = !block_quantities(r->sum[B * a->ncells + e2e].s.median,
				      r->sum[m * a->ncells + e2e].s.median,
				      weighted_ops(r, B, ops, nops, SIZE_MAX),
				      weighted_ops(r, m, ops, nops, SIZE_MAX), q);
	}
	c->n = n;
	if (!n) {
		snprintf(c->note, sizeof(c->note), "no block has the e2e cell and every op cell of "
						   "both modes");
		free(q);
		return;
	}
	report_reseed(rng, r->o.seed, workload, a->modes[m], "composition");
	estimate(r, q, n, rng, est);
	/* the interaction's margin: the declared one, else the e2e cell's noise floor, else 1% */
	c->margin = !isnan(r->margin) ? r->margin : !isnan(r->floor[e2e]) ? r->floor[e2e] : 0.01;
	/* too few blocks for a CI at the report's level: no CIs, undecided (report_ci_short) */
	if (report_ci_short(r, n)) {
		for (size_t j = 0; j < NQ; j++)
			est[j]->lo = est[j]->hi = NAN;
		c->verdict = COMPOSE_UNDECIDED;
	} else {
		c->verdict = decide(&c->inter, c->margin);
	}
	c->ok = 1;
	free(q);
}

/* Kendall's tau between x and y (n points), NAN when fewer than 3. */
static void tau_of(const double *x, const double *y, size_t n, double *tau, double *p)
{
	char *cause = NULL;
	*tau = *p = NAN;
	if (n >= 3)
		stats_kendall(x, y, n, tau, p, &cause);
	free(cause);
}

/* Which explanation the data support for per-op and e2e disagreeing in one workload
 * (docs/report-format.md): an interaction outside the margin is real unless the op cells
 * cover too little of the forward to say where the time went (low coverage); without one,
 * the time-weighted prediction explains the e2e ratio (weighting), diluted by time outside
 * the op cells when their coverage is low; else undecided.  The workload's compositions are
 * r->comp[from ..]: report_composition has just added them. */
static void explain(struct report *r, struct rep_tau *t, size_t from)
{
	const struct analysis *a = r->a;
	const struct rep_comp *bad = NULL;
	double cov_hi = NAN, cov = NAN;
	size_t ok = 0, composes = 0;
	for (size_t i = from; i < r->ncomp; i++) {
		const struct rep_comp *c = &r->comp[i];
		if (strcmp(c->workload, t->workload) || !c->ok)
			continue;
		ok++;
		composes += c->verdict == COMPOSE_YES;
		if (c->verdict == COMPOSE_NO &&
		    (!bad || fabs(log(c->inter.est)) > fabs(log(bad->inter.est))))
			bad = c;
		/* the baseline's coverage is the same statistic for every mode; take the
		 * highest upper end seen (the resamples differ by mode's missing blocks) */
		if (!isnan(c->cov_base.est)) {
			cov = c->cov_base.est;
			double hi = isnan(c->cov_base.hi) ? c->cov_base.est : c->cov_base.hi;
			if (isnan(cov_hi) || hi > cov_hi)
				cov_hi = hi;
		}
	}
	if (!ok)
		return;
	int low = !isnan(cov_hi) && cov_hi < r->o.coverage_min;
	if (bad) {
		t->explanation = low ? "low coverage" : "real interaction";
		t->why = xasprintf("'%s' measures %.3f where its op cells predict %.3f (interaction "
				   "%.3f [%.3f, %.3f], outside the margin of %.2f%%); the baseline's "
				   "op cells cover %.1f%% of the forward%s",
				   a->modes[bad->mode], bad->meas.est, bad->pred.est, bad->inter.est,
				   bad->inter.lo, bad->inter.hi, 100 * bad->margin, 100 * cov,
				   low ? ", too little to tell an interaction from time outside them"
				       : "");
	}
	/* the widest margin the workload's compositions were judged against */
	double margin = NAN;
	for (size_t i = from; i < r->ncomp; i++)
		if (!strcmp(r->comp[i].workload, t->workload) && r->comp[i].ok &&
		    !(r->comp[i].margin <= margin))
			margin = r->comp[i].margin;
	if (bad) {
		/* said above */
	} else if (composes == ok || (!isnan(t->tau_pred) && t->tau_pred >= 0.5)) {
		t->explanation = low ? "low coverage" : "weighting";
		t->why = xasprintf("weighted by count x time the op cells predict the e2e ratios "
				   "(%zu of %zu modes compose within %.2f%%, predicted-vs-measured tau "
				   "%.2f); the baseline's op cells cover %.1f%% of the forward%s",
				   composes, ok, 100 * margin, t->tau_pred, 100 * cov,
				   low ? ": the time outside them dilutes every per-op difference"
				       : ": per-op wins on ops that take little of the forward's time "
					 "do not show end to end");
	} else {
		t->explanation = "undecided";
		t->why = xasprintf("no interaction lies outside the margin of %.2f%%, but only %zu "
				   "of %zu modes compose within it; more blocks would decide",
				   100 * margin, composes, ok);
	}
}

void report_composition(struct report *r, gsl_rng *rng)
{
	const struct analysis *a = r->a;
	size_t *ops = xmalloc((a->ncells + 1) * sizeof(*ops));
	double *x = xmalloc((a->nmodes + 1) * sizeof(*x)), *y = xmalloc((a->nmodes + 1) * sizeof(*y));
	double *xp = xmalloc((a->nmodes + 1) * sizeof(*xp)), *yp = xmalloc((a->nmodes + 1) * sizeof(*yp));
	/* each workload once, in order (its aggregates are r->agg[report_agg_index(r, w, .)]) */
	size_t first_mode = r->baseline == 0 ? 1 : 0;
	for (size_t w = 0; w < a->nworkloads && a->nmodes > 1; w++) {
		const struct rep_agg *ag = &r->agg[report_agg_index(r, w, first_mode)];
		size_t from = r->ncomp; /* this workload's compositions: r->comp[from ..] */
		/* the workload's e2e cell to compare its op cells with, and its op cells */
		size_t e2e = a->workload_e2e[w], nops = 0;
		for (size_t k = a->workload_first[w]; k < a->workload_first[w + 1]; k++)
			if (!strcmp(a->cells[a->workload_cells[k]].kind, "op"))
				ops[nops++] = a->workload_cells[k];
		if (e2e == a->ncells)
			continue;
		for (size_t m = 0; m < a->nmodes && nops; m++) {
			/* a mode that does not run the workload (its `workloads`) has none */
			if (m == r->baseline || !analysis_runs(a, m, ag->scope))
				continue;
			r->comp = xrealloc(r->comp, (r->ncomp + 1) * sizeof(*r->comp));
			compose_one(r, ag->scope, m, e2e, ops, nops, rng, &r->comp[r->ncomp++]);
		}
		/* rankings: the baseline counts as 1 everywhere */
		size_t n = 1, np = 1;
		x[0] = y[0] = xp[0] = yp[0] = 1;
		const struct rep_agg *wa = &r->agg[report_agg_index(r, w, first_mode)];
		size_t nwa = a->nmodes - 1; /* the workload's aggregates: wa[0 .. nwa) */
		for (size_t h = 0; h < nwa; h++) {
			const struct rep_agg *bg = &wa[h];
			if (isnan(bg->geomean) || isnan(bg->e2e_ratio))
				continue;
			x[n] = bg->geomean;
			y[n++] = bg->e2e_ratio;
		}
		for (size_t i = from; i < r->ncomp; i++) {
			const struct rep_comp *c = &r->comp[i];
			if (!c->ok)
				continue;
			xp[np] = c->pred.est;
			yp[np++] = c->meas.est;
		}
		if (!ag->has_e2e) {
			/* another mode's aggregate may have the e2e ratio: rank with that one */
			int other = 0;
			for (size_t h = 0; h < nwa; h++)
				other |= wa[h].has_e2e;
			if (!other)
				continue;
		}
		r->tau = xrealloc(r->tau, (r->ntau + 1) * sizeof(*r->tau));
		struct rep_tau *t = &r->tau[r->ntau++];
		memset(t, 0, sizeof(*t));
		t->workload = xstrdup(ag->scope);
		t->nmodes = n;
		t->nmodes_pred = np;
		tau_of(x, y, n, &t->tau, &t->p);
		tau_of(xp, yp, np, &t->tau_pred, &t->p_pred);
		int disagree = (!isnan(t->tau) && t->tau < 0.5) ||
			       (!isnan(t->tau_pred) && t->tau_pred < 0.5);
		explain(r, t, from);
		if (disagree)
			report_warn(r, "in '%s' the per-op ranking of modes and the e2e ranking disagree "
				       "(Kendall tau %.2f unweighted, %.2f predicted by count x time): "
				       "the data support '%s': %s",
				    t->workload, t->tau, t->tau_pred,
				    t->explanation ? t->explanation : "no explanation",
				    t->why ? t->why : "no composition could be computed");
	}
	free(ops);
	free(x);
	free(y);
	free(xp);
	free(yp);
}
