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
double tune_median_ns(const struct sample *s, size_t n)
{
	if (!n)
		return NAN;
	int64_t *ns = xmalloc(n * sizeof(*ns));
	double *x = xmalloc(n * sizeof(*x)), *work = xmalloc(n * sizeof(*work));
	struct stats_summary sum;
	for (size_t i = 0; i < n; i++)
		ns[i] = s[i].ns;
	stats_from_ns(ns, n, x);
	stats_summarize(x, 1, n, work, &sum);
	free(ns);
	free(x);
	free(work);
	return sum.median;
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
	if (m->ahead && ops->plan) {
		struct config *plan = xmalloc(TUNE_AHEAD_MAX * sizeof(*plan));
		size_t n = ops->plan(t, plan, TUNE_AHEAD_MAX);
		if (n)
			m->ahead(m->ctx, plan, n);
		free(plan);
	}
	/* the budget: the options' max_trials / max_seconds and the caller's, the tighter */
	int64_t max_trials = 0, max_ns = 0;
	const struct tuner_option *o = tuner_option_find(a->options, a->noptions, "max_trials");
	if (o && o->type == TUNER_OPT_INT && o->i > 0)
		max_trials = o->i;
	o = tuner_option_find(a->options, a->noptions, "max_seconds");
	if (o && (o->type == TUNER_OPT_INT || o->type == TUNER_OPT_FLOAT) && o->f > 0)
		max_ns = (int64_t)(o->f * 1e9);
	if (a->budget_trials > 0 && (!max_trials || a->budget_trials < max_trials))
		max_trials = a->budget_trials;
	if (a->budget_ns > 0 && (!max_ns || a->budget_ns < max_ns))
		max_ns = a->budget_ns;
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
					  .median_ns = tune_median_ns(tr.samples, tr.nsamples) };
		if (m->record && m->record(m->ctx, &c, &tr, r.median_ns, cause))
			goto done;
		ops->observe(t, &c, &r);
		tune_trial_release(&tr);
	}
	out->reason = ops->flags & TUNER_BENCHMARKS ? TUNE_TUNED
		      : ops->flags & TUNER_COMPILES ? TUNE_RULE
						    : TUNE_VENDOR;
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
