/* hyp-targets.c: what a hypothesis is decided on (hyp-int.h): its targets (one cell, a
 * geometric mean over cells, a workload's composition), the statistics a criterion names,
 * criteria and rules applied to a target, targets combined by aggregate, and a target's
 * numbers as the verdict's evidence.  The statistics come from report.h and stats.h. */
#include "config.h"
#include "harness/analysis/hyp-int.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>

#include "harness/base/util.h"
#include "stats/stats.h"

struct hyp_target *hyp_target_new(struct hyp_result *res, enum hyp_target_kind kind)
{
	res->t = xrealloc(res->t, (res->nt + 1) * sizeof(*res->t));
	struct hyp_target *t = &res->t[res->nt++];
	memset(t, 0, sizeof(*t));
	t->kind = kind;
	t->ratio = t->hl_ratio = t->lo = t->hi = t->tau = t->p_raw = t->p = NAN;
	t->tau_pred = t->p_pred = t->pred = t->pred_lo = t->pred_hi = t->e2e_lo = t->e2e_hi = NAN;
	t->inter = t->cov = t->cov_lo = t->cov_hi = t->cov_mode = t->geomean = NAN;
	t->mde = t->repeats = t->repeats_fixed = t->spread = t->floor = NAN;
	t->verdict = VERDICT_INCONCLUSIVE;
	t->result = HYP_INCONCLUSIVE;
	return t;
}

void hyp_target_cell(struct hyp_result *res, const struct report *r, size_t m, size_t c)
{
	const struct analysis *a = r->a;
	struct hyp_target *t = hyp_target_new(res, HYP_T_CELL);
	t->mode = xstrdup(a->modes[m]);
	t->label = xasprintf("%s/%s", a->modes[m], a->cells[c].name);
	const struct rep_cmp *x = NULL;
	for (size_t i = 0; i < r->ncmp && !x; i++)
		if (r->cmp[i].mode == m && r->cmp[i].cell == c)
			x = &r->cmp[i];
	if (!x || !x->ok) {
		snprintf(t->note, sizeof(t->note), "%s", x ? x->note : "not compared");
		return;
	}
	t->ok = 1;
	t->n = t->nblocks = x->c.n;
	t->ci_short = x->c.ci_short;
	t->spread = x->spread_ratio;
	t->ratio = x->c.ratio;
	t->hl_ratio = x->c.hl_ratio;
	t->lo = x->c.lo;
	t->hi = x->c.hi;
	t->p_raw = t->p = x->c.p;
	t->floor = x->c.floor;
	t->mde = x->c.mde;
	if (res->min_effect > 0) {
		t->repeats = ceil(stats_blocks_needed(res->min_effect, x->c.sigma_log, res->alpha,
						      r->o.power, r->o.test));
		t->repeats_fixed = ceil(stats_blocks_needed(res->min_effect, x->c.sigma_log,
							    res->alpha / r->o.alpha_scale,
							    r->o.power, r->o.test));
	}
}

/* The blocks that would detect min_effect with a geomean target's statistic: its block
 * standard deviation read off its t CI (sigma = sqrt(n) (log hi - log lo) / (2 t_{(1+conf)/2,
 * df}), df the test's, over stats_test_sd_factor (the trimmed t's 1.03): the sigma the planning
 * formulas inflate again), then stats_blocks_needed as for a cell. */
static void geomean_repeats(struct hyp_target *t, double lo, double hi,
			    const struct hyp_result *res, const struct report *r)
{
	if (!(res->min_effect > 0) || t->nblocks < 2 || !(lo > 0) || !(hi >= lo))
		return;
	enum stats_test test = r->o.test == STATS_TEST_RANK ? STATS_TEST_T : r->o.test;
	double trim = stats_test_trim(test);
	double q = stats_t_quantile((1 + r->o.conf) / 2, stats_t_df(t->nblocks, trim));
	double sigma = sqrt((double)t->nblocks) * (log(hi) - log(lo)) / (2 * q) /
		       stats_test_sd_factor(test);
	t->repeats = ceil(stats_blocks_needed(res->min_effect, sigma, res->alpha, r->o.power,
					      test));
	t->repeats_fixed = ceil(stats_blocks_needed(res->min_effect, sigma,
						    res->alpha / r->o.alpha_scale, r->o.power, test));
}

/* The geometric mean of mode m's ratios over cells: the report's aggregate when cells are
 * exactly the op cells of one of its scopes, else stats_geomean_t over the blocks. */
void hyp_target_geomean(struct hyp_result *res, const struct report *r, size_t m,
			const size_t *cells, size_t ncells, gsl_rng *rng)
{
	const struct analysis *a = r->a;
	struct hyp_target *t = hyp_target_new(res, HYP_T_GEOMEAN);
	t->mode = xstrdup(a->modes[m]);
	t->label = xasprintf("%s/geomean(%zu cells)", a->modes[m], ncells);
	t->n = ncells;
	/* the median over the cells of the mode's spread across units over the baseline's */
	double *sr = xmalloc((ncells + 1) * sizeof(*sr)), *w = xmalloc((ncells + 1) * sizeof(*w));
	size_t nsr = 0;
	for (size_t i = 0; i < r->ncmp; i++)
		for (size_t k = 0; k < ncells; k++)
			if (r->cmp[i].mode == m && r->cmp[i].cell == cells[k] &&
			    !isnan(r->cmp[i].spread_ratio))
				sr[nsr++] = r->cmp[i].spread_ratio;
	t->spread = nsr ? stats_median(sr, 1, nsr, w) : NAN;
	free(sr);
	free(w);
	for (size_t g = 0; g < r->nagg; g++) {
		const struct rep_agg *ag = &r->agg[g];
		if (ag->mode != m || isnan(ag->geomean))
			continue;
		int all = !strcmp(ag->scope, "all");
		size_t k = 0, match = 1;
		for (size_t c = 0; c < a->ncells; c++) {
			/* the report's aggregates leave out the cells of the workloads the mode
			 * or the baseline does not run (their `workloads`) */
			int in_scope = !strcmp(a->cells[c].kind, "op") &&
				       (all || !strcmp(a->cells[c].workload, ag->scope)) &&
				       analysis_runs(a, m, a->cells[c].workload) &&
				       analysis_runs(a, r->baseline, a->cells[c].workload);
			int in_mine = k < ncells && cells[k] == c;
			k += in_mine;
			match &= in_scope == in_mine;
		}
		if (match && k == ncells && ag->ncells == ncells) {
			t->ok = 1;
			t->ratio = ag->geomean;
			t->lo = ag->lo;
			t->hi = ag->hi;
			t->nblocks = ag->nblocks;
			t->ci_short = t->nblocks < 2;
			geomean_repeats(t, ag->lo, ag->hi, res, r);
			return;
		}
	}
	if (!a->paired) {
		snprintf(t->note, sizeof(t->note),
			 "unpaired data: only the report's op-cell geomeans are available");
		return;
	}
	double *logr = xmalloc(a->nblocks * ncells * sizeof(*logr));
	for (size_t b = 0; b < a->nblocks; b++)
		for (size_t k = 0; k < ncells; k++) {
			double x = an_med(a, m, cells[k], b), y = an_med(a, r->baseline, cells[k], b);
			logr[b * ncells + k] = x > 0 && y > 0 ? log(x / y) : NAN;
		}
	double p;
	stats_geomean_t(logr, a->nblocks, ncells, stats_test_trim(r->o.test), r->o.conf, &t->ratio,
			&t->lo, &t->hi, &p, &t->nblocks);
	if (isnan(t->ratio)) {
		snprintf(t->note, sizeof(t->note), "no block has every one of its %zu cells",
			 ncells);
	} else {
		t->ok = 1;
		t->ci_short = t->nblocks < 2;
		geomean_repeats(t, t->lo, t->hi, res, r);
	}
	free(logr);
}

/* The report's composition of mode m in each workload in scope (every workload with op and
 * e2e cells, or the hypothesis's one): one target each. */
void hyp_target_comp(struct hyp_result *res, const struct report *r,
		     const struct hypothesis *h, size_t m)
{
	const struct analysis *a = r->a;
	size_t before = res->nt;
	for (size_t i = 0; i < r->ncomp; i++) {
		const struct rep_comp *c = &r->comp[i];
		if (c->mode != m || (h->workload && strcmp(h->workload, c->workload)))
			continue;
		struct hyp_target *t = hyp_target_new(res, HYP_T_COMP);
		t->mode = xstrdup(a->modes[m]);
		t->label = xasprintf("%s/composition(%s)", a->modes[m], c->workload);
		if (!c->ok) {
			snprintf(t->note, sizeof(t->note), "%s", c->note);
			continue;
		}
		t->ok = 1;
		t->n = t->nblocks = c->n;
		t->ci_short = report_ci_short(r, c->n);
		t->ratio = c->meas.est, t->e2e_lo = c->meas.lo, t->e2e_hi = c->meas.hi;
		t->pred = c->pred.est, t->pred_lo = c->pred.lo, t->pred_hi = c->pred.hi;
		t->inter = c->inter.est, t->lo = c->inter.lo, t->hi = c->inter.hi;
		t->cov = c->cov_base.est, t->cov_lo = c->cov_base.lo, t->cov_hi = c->cov_base.hi;
		t->cov_mode = c->cov_mode.est;
		t->geomean = c->geomean;
	}
	if (res->nt == before) {
		struct hyp_target *t = hyp_target_new(res, HYP_T_COMP);
		t->mode = xstrdup(a->modes[m]);
		t->label = xasprintf("%s/composition", a->modes[m]);
		snprintf(t->note, sizeof(t->note), "no workload in scope with both op and e2e cells");
	}
}

static double target_stat(const struct hyp_target *t, const char *s)
{
	size_t len = strlen(s);
	/* every CI bound (ci_lo, e2e_hi, coverage_lo, ...): none from too few blocks */
	if (t->ci_short && len > 3 && (!strcmp(s + len - 3, "_lo") || !strcmp(s + len - 3, "_hi")))
		return NAN;
	if (!strcmp(s, "ratio"))
		return t->ratio;
	if (!strcmp(s, "hl_ratio"))
		return t->hl_ratio;
	if (!strcmp(s, "ci_lo"))
		return t->lo;
	if (!strcmp(s, "ci_hi"))
		return t->hi;
	if (!strcmp(s, "p"))
		return t->p;
	if (!strcmp(s, "p_raw"))
		return t->p_raw;
	if (!strcmp(s, "n"))
		return t->ok ? (double)t->n : NAN;
	if (!strcmp(s, "mde"))
		return t->mde;
	if (!strcmp(s, "tau"))
		return t->tau;
	static const struct {
		const char *name;
		size_t off;
	} more[] = {
#define F(n, f) { n, offsetof(struct hyp_target, f) }
		F("tau_pred", tau_pred), F("p_pred", p_pred), F("pred_ratio", pred),
		F("pred_lo", pred_lo), F("pred_hi", pred_hi), F("e2e_lo", e2e_lo), F("e2e_hi", e2e_hi),
		F("interaction", inter), F("coverage", cov), F("coverage_lo", cov_lo),
		F("coverage_hi", cov_hi), F("coverage_mode", cov_mode), F("geomean", geomean),
		F("spread_ratio", spread),
#undef F
	};
	for (size_t i = 0; i < ARRAY_SIZE(more); i++)
		if (!strcmp(s, more[i].name))
			return *(const double *)((const char *)t + more[i].off);
	return NAN;
}

/* A criterion on a target: false when the statistic is not available (NaN). */
static int crit_holds(const struct hyp_criterion *c, const struct hyp_target *t)
{
	if (c->svalue) {
		if (!t->ok)
			return 0;
		int eq = !strcmp(stats_verdict_name(t->verdict), c->svalue);
		return c->op == HYP_OP_EQ ? eq : !eq;
	}
	double v = target_stat(t, c->statistic);
	if (isnan(v))
		return 0;
	switch (c->op) {
	case HYP_OP_LT: return v < c->value;
	case HYP_OP_LE: return v <= c->value;
	case HYP_OP_GT: return v > c->value;
	case HYP_OP_GE: return v >= c->value;
	case HYP_OP_EQ: return v == c->value;
	case HYP_OP_NE: return v != c->value;
	}
	return 0;
}

int hyp_expr_holds(const struct hyp_expr *x, const struct hyp_criterion *crit,
		   const struct hyp_target *t)
{
	switch (x->kind) {
	case HYP_X_CRIT: return crit_holds(&crit[x->crit], t);
	case HYP_X_NOT: return !hyp_expr_holds(x->l, crit, t);
	case HYP_X_AND: return hyp_expr_holds(x->l, crit, t) && hyp_expr_holds(x->r, crit, t);
	case HYP_X_OR: return hyp_expr_holds(x->l, crit, t) || hyp_expr_holds(x->r, crit, t);
	}
	return 0;
}

/* Combine the results of n targets by aggregate: each/all (every one corroborated; one
 * falsified falsifies), any (one corroborated; all falsified falsifies), at_least k (k
 * corroborated; more than n - k falsified falsifies). */
enum hyp_verdict hyp_combine(const struct hyp_target *t, size_t n, enum hyp_aggregate g,
			     size_t k)
{
	size_t nc = 0, nf = 0;
	for (size_t i = 0; i < n; i++) {
		nc += t[i].result == HYP_CORROBORATED;
		nf += t[i].result == HYP_FALSIFIED;
	}
	switch (g) {
	case HYP_AGG_ANY:
		return nc ? HYP_CORROBORATED : nf == n ? HYP_FALSIFIED : HYP_INCONCLUSIVE;
	case HYP_AGG_AT_LEAST: /* fewer than k targets (a mode's `workloads`): never falsified */
		return nc >= k ? HYP_CORROBORATED : k <= n && nf > n - k ? HYP_FALSIFIED :
								   HYP_INCONCLUSIVE;
	default:
		return nf ? HYP_FALSIFIED : nc == n ? HYP_CORROBORATED : HYP_INCONCLUSIVE;
	}
}

/* v with prec digits after the point ('g' style when g is set), or "n/a". */
static void fmt_num(struct sbuf *sb, double v, int prec, int g)
{
	if (isnan(v))
		sbuf_adds(sb, "n/a");
	else if (g)
		sbuf_addf(sb, "%.*g", prec, v);
	else
		sbuf_addf(sb, "%.*f", prec, v);
}

void hyp_target_numbers(struct sbuf *sb, const struct hyp_target *t)
{
	sbuf_addf(sb, "%s: ", t->label);
	if (!t->ok) {
		sbuf_addf(sb, "not decidable (%s)", t->note);
		return;
	}
	if (t->kind == HYP_T_TAU) {
		sbuf_adds(sb, "tau ");
		fmt_num(sb, t->tau, 3, 0);
		sbuf_adds(sb, " (predicted ");
		fmt_num(sb, t->tau_pred, 3, 0);
		sbuf_adds(sb, ")");
	} else if (t->kind == HYP_T_COMP) {
		const char *what[] = { "interaction ", " [", ", ", "], predicted ", ", measured ",
				       ", coverage " };
		const double v[] = { t->inter, t->lo, t->hi, t->pred, t->ratio, t->cov };
		for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
			sbuf_adds(sb, what[i]);
			fmt_num(sb, v[i], i == 5 ? 3 : 4, 0);
		}
	} else {
		sbuf_adds(sb, "ratio ");
		fmt_num(sb, t->ratio, 4, 0);
		sbuf_adds(sb, " [");
		fmt_num(sb, t->lo, 4, 0);
		sbuf_adds(sb, ", ");
		fmt_num(sb, t->hi, 4, 0);
		sbuf_adds(sb, "]");
	}
	if (!isnan(t->p)) {
		sbuf_adds(sb, ", p ");
		fmt_num(sb, t->p, 3, 1);
		if (t->in_family)
			sbuf_adds(sb, " (Holm)");
	}
	if (t->ci_short)
		sbuf_addf(sb, ", %zu block(s): too few for a CI at its level, undecided", t->nblocks);
	if (t->kind == HYP_T_CELL)
		sbuf_addf(sb, ", %s", stats_verdict_name(t->verdict));
}
