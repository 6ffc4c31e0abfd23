/* tune.c: the tuning driver (see tune.h): the loop that was the worker's, now shared by the
 * live run and by replays of recorded trials */
#include "config.h"
#include "kernels/tune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/util.h"
#include "stats/stats.h"

void tune_trial_release(struct tune_trial *t)
{
	free(t->samples);
	free(t->detail);
	memset(t, 0, sizeof(*t));
}

const char *tune_reason_name(enum tune_reason r)
{
	switch (r) {
	case TUNE_NONE: return "";
	case TUNE_VENDOR: return "vendor";
	case TUNE_RULE: return "rule";
	case TUNE_TUNED: return "tuned";
	case TUNE_FALLBACK_VENDOR: return "fallback-vendor";
	}
	return "";
}

/* The sample median as stats_summarize computes it (the same numbers the worker always
 * gave the tuners). */
static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

double tune_median_ns(const struct sample *s, size_t n)
{
	if (!n)
		return NAN;
	int64_t *ns = xmalloc(n * sizeof(*ns));
	double *x = xmalloc(n * sizeof(*x)), *work = xmalloc(n * sizeof(*work));
	struct stats_summary sum;
	for (size_t i = 0; i < n; i++)
		ns[i] = sample_exec_ns(s[i].ns, s[i].launches);
	stats_from_ns(ns, n, x);
	stats_summarize(x, 1, n, work, &sum);
	free(ns);
	free(x);
	free(work);
	return sum.median;
}

/* accept = "paired": the driver's believed incumbent and the duel settings. */
struct accept {
	int paired;
	int64_t repeats;
	double alpha;
	int have_inc;
	struct config inc;
	double inc_ns;
};

/* Add a duel trial's costs to out; 0, or -1 with *cause when measuring failed. */
static int duel_measure(const struct tune_measurer *m, const struct config *c, int64_t n,
			struct tune_result *out, double *median, char **cause)
{
	struct tune_trial tr;
	memset(&tr, 0, sizeof(tr));
	int r = m->trial(m->ctx, c, n, &tr, cause);
	if (!r) {
		int64_t ns = tr.compile_ns + tr.check_ns + tr.bench_ns;
		out->compile_ns += tr.compile_ns;
		out->check_ns += tr.check_ns;
		out->bench_ns += tr.bench_ns;
		out->duel_ns += ns;
		*median = tr.status == TRIAL_OK ? tune_median_ns(tr.samples, tr.nsamples) : NAN;
	}
	tune_trial_release(&tr);
	return r;
}

/* The median the tuner is told for an ok trial of c with median med.  Paired acceptance:
 * when med beats the believed incumbent, accept_repeats repeats each measure c and the
 * incumbent (trial_samples samples each; c first in even repeats, the incumbent first in
 * odd ones); d_r = ln(c_r / inc_r); c is believed only when the Wilcoxon signed-rank test
 * of d rejects 0 at accept_alpha (two-sided) and the median of d is negative.  Otherwise
 * the tuner is told the incumbent's median: a tie, which no tuner counts as a gain. */
static int accept_median(struct accept *ac, const struct tune_measurer *m, const struct space *s,
			 const struct config *c, double med, int64_t n, struct tune_result *out,
			 double *told, char **cause)
{
	*told = med;
	if (!ac->paired || !isfinite(med))
		return 0;
	if (!ac->have_inc || config_equal(s, c, &ac->inc)) {
		ac->have_inc = 1;
		ac->inc = *c;
		ac->inc_ns = med;
		return 0;
	}
	if (med >= ac->inc_ns)
		return 0;
	double *d = xmalloc((size_t)ac->repeats * sizeof(*d));
	size_t nd = 0;
	int ret = -1;
	out->duels++;
	for (int64_t r = 0; r < ac->repeats; r++) {
		double mc = NAN, mi = NAN;
		if (r % 2 == 0 ? duel_measure(m, c, n, out, &mc, cause) ||
					 duel_measure(m, &ac->inc, n, out, &mi, cause)
			       : duel_measure(m, &ac->inc, n, out, &mi, cause) ||
					 duel_measure(m, c, n, out, &mc, cause))
			goto done;
		if (isfinite(mc) && isfinite(mi) && mc > 0 && mi > 0)
			d[nd++] = log(mc / mi);
	}
	int won = 0;
	if (nd >= 3) {
		struct stats_wilcoxon w;
		char *why = NULL;
		double *work = xmalloc(nd * sizeof(*work));
		memcpy(work, d, nd * sizeof(*work));
		qsort(work, nd, sizeof(*work), cmp_double);
		double mid = nd % 2 ? work[nd / 2] : (work[nd / 2 - 1] + work[nd / 2]) / 2;
		free(work);
		if (!stats_wilcoxon_signed_rank(d, nd, &w, &why))
			won = w.p < ac->alpha && mid < 0;
		free(why);
	}
	if (won) {
		out->duels_won++;
		ac->inc = *c;
		ac->inc_ns = med;
	} else {
		*told = ac->inc_ns;
	}
	ret = 0;
done:
	free(d);
	return ret;
}

/* The trial budget: the options' max_trials and the caller's, the tighter (0: none). */
static int64_t max_trials_of(const struct tuner_args *a)
{
	int64_t max_trials = 0;
	const struct tuner_option *o = tuner_option_find(a->options, a->noptions, "max_trials");
	if (o && o->type == TUNER_OPT_INT && o->i > 0)
		max_trials = o->i;
	if (a->budget_trials > 0 && (!max_trials || a->budget_trials < max_trials))
		max_trials = a->budget_trials;
	return max_trials;
}

/* t's plan as far as the trial budget lets it go: at most max configs into out. */
static size_t plan_in_budget(const struct tuner_ops *ops, const struct tuner *t,
			     const struct tuner_args *a, struct config *out, size_t max)
{
	int64_t max_trials = max_trials_of(a);
	if (max_trials > 0 && (uint64_t)max_trials < max)
		max = (size_t)max_trials;
	return ops->plan(t, out, max);
}

size_t tune_plan(const struct tuner_ops *ops, const struct tuner_args *a, struct config *out,
		 size_t max)
{
	char *cause = NULL;
	if (!ops->plan)
		return 0;
	struct tuner *t = ops->alloc(a, &cause);
	if (!t) {
		free(cause); /* tune_cell meets it again and reports it */
		return 0;
	}
	size_t n = plan_in_budget(ops, t, a, out, max);
	ops->free(t);
	return n;
}

int tune_cell(const struct tuner_ops *ops, const struct tuner_args *a, int64_t trial_samples,
	      const struct tune_measurer *m, struct tune_result *out, char **cause)
{
	struct tuner *t = NULL;
	struct tune_trial tr;
	struct config c;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	memset(&tr, 0, sizeof(tr));
	t = ops->alloc(a, cause);
	if (!t) {
		if (!*cause)
			*cause = xasprintf("tuner '%s' cannot tune this cell", ops->name);
		goto done;
	}
	int64_t bench = ops->flags & TUNER_BENCHMARKS ? trial_samples : 0;
	/* the budget: the options' max_trials / max_seconds and the caller's, the tighter */
	int64_t max_trials = max_trials_of(a), max_ns = 0;
	if (m->ahead && ops->plan) {
		struct config *plan = xmalloc(TUNE_AHEAD_MAX * sizeof(*plan));
		size_t n = plan_in_budget(ops, t, a, plan, TUNE_AHEAD_MAX);
		if (n)
			m->ahead(m->ctx, plan, n);
		free(plan);
	}
	const struct tuner_option *o = tuner_option_find(a->options, a->noptions, "max_seconds");
	if (o && (o->type == TUNER_OPT_INT || o->type == TUNER_OPT_FLOAT) && o->f > 0)
		max_ns = (int64_t)(o->f * 1e9);
	if (a->budget_ns > 0 && (!max_ns || a->budget_ns < max_ns))
		max_ns = a->budget_ns;
	struct accept ac = { .repeats = 10, .alpha = 0.05 };
	o = tuner_option_find(a->options, a->noptions, "accept");
	ac.paired = o && o->type == TUNER_OPT_STRING && o->s && !strcmp(o->s, "paired");
	o = tuner_option_find(a->options, a->noptions, "accept_repeats");
	if (o && o->type == TUNER_OPT_INT && o->i >= 3)
		ac.repeats = o->i;
	o = tuner_option_find(a->options, a->noptions, "accept_alpha");
	if (o && (o->type == TUNER_OPT_INT || o->type == TUNER_OPT_FLOAT) && o->f > 0)
		ac.alpha = o->f;
	for (;;) {
		if (max_trials && out->ntrials >= max_trials)
			break;
		if (max_ns && out->compile_ns + out->check_ns + out->bench_ns >= max_ns)
			break;
		if (ops->next(t, &c) != 1)
			break;
		if (m->trial(m->ctx, &c, bench, &tr, cause))
			goto done;
		out->ntrials++;
		out->compile_ns += tr.compile_ns;
		out->check_ns += tr.check_ns;
		if (tr.nsamples) {
			out->benchmarks++;
			out->bench_ns += tr.bench_ns;
		}
		struct trial_result r = { .status = tr.status, .samples = tr.samples,
					  .nsamples = tr.nsamples,
					  .median_ns = tune_median_ns(tr.samples, tr.nsamples),
					  .compile_ns = tr.compile_ns };
		if (m->record && m->record(m->ctx, &c, &tr, r.median_ns, cause))
			goto done;
		if (tr.status == TRIAL_OK &&
		    accept_median(&ac, m, a->space, &c, r.median_ns, bench, out, &r.median_ns,
				  cause))
			goto done;
		ops->observe(t, &c, &r);
		tune_trial_release(&tr);
	}
	/* the plan is over (a budget may have cut it short): configs not yet compiled ahead
	 * are not needed */
	if (m->ahead && ops->plan)
		m->ahead(m->ctx, NULL, 0);
	if (ops->error && ops->error(t)) {
		*cause = xstrdup(ops->error(t));
		out->failed = 1;
		goto done;
	}
	out->reason = ops->flags & TUNER_BENCHMARKS ? TUNE_TUNED
		      : ops->flags & TUNER_COMPILES ? TUNE_RULE
						    : TUNE_VENDOR;
	if (ops->note)
		out->fell_back = ops->note(t, out->note, sizeof(out->note)) == 1;
	if (ops->best(t, &out->best)) {
		if (a->space->has_vendor) {
			space_vendor_point(a->space, 0, &out->best);
			out->reason = TUNE_FALLBACK_VENDOR;
		} else {
			out->reason = TUNE_NONE;
		}
	}
	ret = 0;
done:
	tune_trial_release(&tr);
	if (t)
		ops->free(t);
	return ret;
}
