/* hyp-eval.c: each hypothesis CORROBORATED, FALSIFIED or INCONCLUSIVE on a run's report
 * (hypothesis.h; the rules are docs/hypothesis-format.md's).  The statistics come from
 * report.h and stats.h: this file only picks targets, applies criteria and decides. */
#include "config.h"
#include "harness/analysis/hyp.h"
#include "harness/analysis/hyp-int.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "harness/base/util.h"
#include "stats/stats.h"

static const char *const verdict_names[] = { "CORROBORATED", "FALSIFIED", "INCONCLUSIVE" };

const char *hyp_verdict_name(enum hyp_verdict v)
{
	return (unsigned)v < ARRAY_SIZE(verdict_names) ? verdict_names[v] : "?";
}

/* ---- evaluation -------------------------------------------------------------------------- */

/* One report per baseline the hypotheses use (report_build compares against one): the
 * caller's for its baseline, the others built here with the caller's options. */
struct rcache {
	size_t *base;
	struct report **r;
	size_t n;
};

static const struct report *report_for(const struct report *rep, size_t base, struct rcache *rc)
{
	const struct analysis *a = rep->a;
	if (rep->baseline == base)
		return rep; /* the caller's: not cached, never freed here */
	for (size_t i = 0; i < rc->n; i++)
		if (rc->base[i] == base)
			return rc->r[i];
	struct report_opts ro = rep->o;
	ro.baseline = a->modes[base];
	struct report *r = NULL;
	if (report_build(a, &ro, &r))
		return NULL;
	rc->base = xrealloc(rc->base, (rc->n + 1) * sizeof(*rc->base));
	rc->r = xrealloc(rc->r, (rc->n + 1) * sizeof(*rc->r));
	rc->base[rc->n] = base;
	rc->r[rc->n++] = r;
	return r;
}

/* "'a', 'b'" of a list of names. */
static int where_error(const struct hyp_file *f, struct tb_pos pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int where_error(const struct hyp_file *f, struct tb_pos pos, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	error("'%s':%d:%d: %s", f->path, pos.line, pos.col, msg);
	free(msg);
	return -1;
}

static int find_mode(const struct analysis *a, const struct hyp_file *f,
		     const struct hypothesis *h, const char *name, struct tb_pos pos, size_t *out)
{
	long m = analysis_mode(a, name);
	if (m >= 0) {
		*out = (size_t)m;
		return 0;
	}
	char *list = analysis_mode_list(a);
	where_error(f, pos, "hypothesis '%s': no mode '%s' in '%s' (modes: %s)", h->id, name,
		    a->path, list);
	free(list);
	return -1;
}

/* The cells a hypothesis covers, in the run's cell order (or as listed). */
static int resolve_cells(const struct analysis *a, const struct hyp_file *f,
			 const struct hypothesis *h, size_t **cells, size_t *n)
{
	*cells = xcalloc(a->ncells + h->ncells + 1, sizeof(**cells));
	*n = 0;
	if (h->scope == HYP_SCOPE_CELLS) {
		for (size_t i = 0; i < h->ncells; i++) {
			long c = analysis_cell(a, h->cells[i]);
			if (c < 0) {
				char *list = analysis_cell_list(a);
				where_error(f, h->cells_pos, "hypothesis '%s': no cell '%s' in '%s' "
							     "(cells: %s)", h->id, h->cells[i], a->path,
					    list);
				free(list);
				return -1;
			}
			(*cells)[(*n)++] = (size_t)c;
		}
		return 0;
	}
	if (h->workload) {
		size_t c = 0;
		while (c < a->ncells && strcmp(a->cells[c].workload, h->workload))
			c++;
		if (c == a->ncells) {
			struct sbuf sb;
			sbuf_init(&sb);
			for (size_t k = 0; k < a->ncells; k++) {
				size_t j = 0;
				while (j < k && strcmp(a->cells[j].workload, a->cells[k].workload))
					j++;
				if (j == k)
					sbuf_addf(&sb, "%s'%s'", sb.len ? ", " : "", a->cells[k].workload);
			}
			where_error(f, h->workload_pos, "hypothesis '%s': no workload '%s' in '%s' "
							"(workloads: %s)", h->id, h->workload, a->path,
				    sb.buf);
			sbuf_release(&sb);
			return -1;
		}
	}
	for (size_t c = 0; c < a->ncells; c++) {
		const struct an_cell *cell = &a->cells[c];
		if (h->workload && strcmp(cell->workload, h->workload))
			continue;
		if (h->scope == HYP_SCOPE_OPS && strcmp(cell->kind, "op"))
			continue;
		if (h->scope == HYP_SCOPE_E2E && strcmp(cell->kind, "e2e"))
			continue;
		(*cells)[(*n)++] = c;
	}
	if (*n == 0)
		return where_error(f, h->pos, "hypothesis '%s': its scope ('%s'%s%s) selects no "
					      "cell of '%s'", h->id, hyp_scope_name(h->scope),
				   h->workload ? " in workload " : "", h->workload ? h->workload : "",
				   a->path);
	return 0;
}

/* The default rule of a prediction (docs/hypothesis-format.md, "Predictions"), with
 * m = min_effect: criteria into res->crit, expressions as text. */
static void default_rule(struct hyp_result *res, enum hyp_prediction pred, int with_p)
{
	double m = res->min_effect;
	struct {
		const char *id, *stat;
		enum hyp_op op;
		double v;
	} c[6];
	size_t n = 0;
	const char *cor = NULL, *fal = NULL;
#define CRIT(i, s, o, v_) (c[n].id = (i), c[n].stat = (s), c[n].op = (o), c[n].v = (v_), n++)
	switch (pred) {
	case HYP_PRED_FASTER:
		CRIT("faster_by_min", "ci_hi", HYP_OP_LT, 1 - m);
		CRIT("short_of_min", "ci_lo", HYP_OP_GT, 1 - m);
		cor = with_p ? "faster_by_min and significant" : "faster_by_min";
		fal = "short_of_min";
		break;
	case HYP_PRED_SLOWER:
		CRIT("slower_by_min", "ci_lo", HYP_OP_GT, 1 + m);
		CRIT("short_of_min", "ci_hi", HYP_OP_LT, 1 + m);
		cor = with_p ? "slower_by_min and significant" : "slower_by_min";
		fal = "short_of_min";
		break;
	case HYP_PRED_SAME:
		CRIT("lo_inside", "ci_lo", HYP_OP_GE, 1 - m);
		CRIT("hi_inside", "ci_hi", HYP_OP_LE, 1 + m);
		CRIT("faster_by_min", "ci_hi", HYP_OP_LT, 1 - m);
		CRIT("slower_by_min", "ci_lo", HYP_OP_GT, 1 + m);
		cor = "lo_inside and hi_inside";
		fal = with_p ? "(faster_by_min or slower_by_min) and significant" :
			       "faster_by_min or slower_by_min";
		break;
	case HYP_PRED_NOT_FASTER:
		CRIT("short_of_min", "ci_lo", HYP_OP_GT, 1 - m);
		CRIT("faster_by_min", "ci_hi", HYP_OP_LT, 1 - m);
		cor = "short_of_min";
		fal = with_p ? "faster_by_min and significant" : "faster_by_min";
		break;
	case HYP_PRED_NOT_SLOWER:
	default:
		CRIT("short_of_min", "ci_hi", HYP_OP_LT, 1 + m);
		CRIT("slower_by_min", "ci_lo", HYP_OP_GT, 1 + m);
		cor = "short_of_min";
		fal = with_p ? "slower_by_min and significant" : "slower_by_min";
		break;
	}
	if (with_p)
		CRIT("significant", "p", HYP_OP_LT, res->alpha);
#undef CRIT
	res->crit = xcalloc(n, sizeof(*res->crit));
	res->ncrit = n;
	for (size_t i = 0; i < n; i++) {
		res->crit[i].id = xstrdup(c[i].id);
		res->crit[i].statistic = xstrdup(c[i].stat);
		res->crit[i].op = c[i].op;
		res->crit[i].value = c[i].v;
	}
	char *err = NULL;
	size_t at;
	res->cx = hyp_expr_parse(cor, res->crit, n, &err, &at);
	res->fx = hyp_expr_parse(fal, res->crit, n, &err, &at);
	if (!res->cx || !res->fx)
		die("default rule does not parse: %s", err ? err : "?");
}

static void copy_rule(struct hyp_result *res, const struct hypothesis *h)
{
	res->crit = xcalloc(h->ncrit, sizeof(*res->crit));
	res->ncrit = h->ncrit;
	for (size_t i = 0; i < h->ncrit; i++) {
		res->crit[i] = h->crit[i];
		res->crit[i].id = xstrdup(h->crit[i].id);
		res->crit[i].statistic = xstrdup(h->crit[i].statistic);
		res->crit[i].svalue = h->crit[i].svalue ? xstrdup(h->crit[i].svalue) : NULL;
	}
	struct sbuf sb;
	sbuf_init(&sb);
	hyp_expr_text(h->corroborate, h->crit, &sb, 0);
	char *err = NULL;
	size_t at;
	res->cx = hyp_expr_parse(sb.buf, res->crit, res->ncrit, &err, &at);
	sbuf_reset(&sb);
	hyp_expr_text(h->falsify, h->crit, &sb, 0);
	res->fx = hyp_expr_parse(sb.buf, res->crit, res->ncrit, &err, &at);
	sbuf_release(&sb);
	if (!res->cx || !res->fx)
		die("a parsed rule does not parse again: %s", err ? err : "?");
}

static void result_release(struct hyp_result *res)
{
	free(res->baseline);
	for (size_t i = 0; i < res->ncrit; i++)
		hyp_crit_release(&res->crit[i]);
	free(res->crit);
	free(res->corroborate);
	free(res->falsify);
	hyp_expr_free(res->cx);
	hyp_expr_free(res->fx);
	for (size_t i = 0; i < res->nt; i++) {
		free(res->t[i].label);
		free(res->t[i].mode);
	}
	free(res->t);
	free(res->deciding);
	free(res->hb);
}

void hyp_eval_free(struct hyp_eval *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->nr; i++)
		result_release(&e->r[i]);
	free(e->r);
	free(e->left_out);
	free(e);
}

/* The cells of cells[0..n) in which mode m is compared with base: those of the workloads
 * both run (analysis_runs: a mode's `workloads` leaves the others out by design), into out
 * (room for n); returns how many.  The workloads left out, when some are, are said on
 * stderr with what becomes of the mode in hypothesis h. */
static size_t compared_cells(const struct analysis *a, const struct hypothesis *h, size_t m,
			     size_t base, const size_t *cells, size_t n, size_t *out)
{
	size_t k = 0, nout = 0;
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t i = 0; i < n; i++) {
		const char *w = a->cells[cells[i]].workload;
		if (analysis_runs(a, m, w) && analysis_runs(a, base, w)) {
			out[k++] = cells[i];
			continue;
		}
		size_t j = 0;
		while (j < i && strcmp(a->cells[cells[j]].workload, w))
			j++;
		if (j == i) {
			sbuf_addf(&sb, "%s'%s'", nout ? ", " : "", w);
			nout++;
		}
	}
	if (nout)
		warning("hypothesis '%s': no comparison of mode '%s' with '%s' in workload%s %s (a "
			"mode's 'workloads' leaves %s out): %s", h->id, a->modes[m], a->modes[base],
			nout > 1 ? "s" : "", sb.buf, nout > 1 ? "them" : "it",
			k ? "those cells are left out of it" : "the mode is left out of it");
	sbuf_release(&sb);
	return k;
}

/* Targets of one hypothesis (statistics only; decided later, after Holm).  0, or 1 when
 * none of its modes is compared in its scope (hypothesis not decided, said on stderr), or
 * -1 reported. */
static int build_targets(const struct report *rep,
			 const struct hyp_entry *en, const struct hypothesis *h,
			 struct hyp_result *res, struct rcache *rc, gsl_rng *rng)
{
	const struct analysis *a = rep->a;
	const struct hyp_file *f = en->file;
	size_t base = rep->baseline; /* the report's: verify --baseline, else the run's */
	if (h->baseline && find_mode(a, f, h, h->baseline, h->baseline_pos, &base))
		return -1;
	res->baseline = xstrdup(a->modes[base]);
	const struct report *r = report_for(rep, base, rc);
	if (!r)
		return -1;
	res->alpha = isnan(h->alpha) ? rep->o.alpha : h->alpha * rep->o.alpha_scale;
	/* the smallest effect that matters: the hypothesis's, else the declared margin, else
	 * (set with the cells below) the largest noise floor of its cells */
	if (!isnan(h->min_effect)) {
		res->min_effect = h->min_effect;
		res->min_effect_source = "hypothesis";
	} else if (!isnan(r->margin)) {
		res->min_effect = r->margin;
		res->min_effect_source = r->margin_source;
	} else {
		res->min_effect = 0.01;
		res->min_effect_source = "default";
	}
	int with_p = h->aggregate != HYP_AGG_GEOMEAN && h->aggregate != HYP_AGG_COMPOSITION;
	if (h->ncrit)
		copy_rule(res, h);
	else
		default_rule(res, h->prediction, with_p);
	struct sbuf sb;
	sbuf_init(&sb);
	hyp_expr_text(res->cx, res->crit, &sb, 0);
	res->corroborate = xstrdup(sb.buf);
	sbuf_reset(&sb);
	hyp_expr_text(res->fx, res->crit, &sb, 0);
	res->falsify = sbuf_detach(&sb);
	res->uses_p = hyp_expr_reads(res->cx, res->crit, "p") || hyp_expr_reads(res->fx, res->crit, "p") ||
		      hyp_expr_reads(res->cx, res->crit, "verdict") ||
		      hyp_expr_reads(res->fx, res->crit, "verdict");

	if (h->aggregate == HYP_AGG_OP_VS_E2E) {
		if (h->workload) {
			size_t *cells, n;
			int bad = resolve_cells(a, f, h, &cells, &n);
			free(cells);
			if (bad)
				return -1;
		}
		for (size_t i = 0; i < r->ntau; i++) {
			const struct rep_tau *x = &r->tau[i];
			if (h->workload && strcmp(h->workload, x->workload))
				continue;
			struct hyp_target *t = hyp_target_new(res, HYP_T_TAU);
			t->label = xasprintf("tau(%s)", x->workload);
			t->n = x->nmodes;
			t->tau = x->tau;
			t->p_raw = t->p = x->p;
			t->tau_pred = x->tau_pred;
			t->p_pred = x->p_pred;
			t->ok = !isnan(x->tau);
			if (!t->ok)
				snprintf(t->note, sizeof(t->note), "Kendall tau not computable");
		}
		if (res->nt == 0) {
			struct hyp_target *t = hyp_target_new(res, HYP_T_TAU);
			t->label = xstrdup("tau");
			snprintf(t->note, sizeof(t->note), "no workload in scope with both op and "
							    "e2e cells");
		}
		return 0;
	}
	/* modes */
	size_t *modes = xcalloc(a->nmodes, sizeof(*modes)), nm = 0;
	for (size_t i = 0; i < h->nmodes; i++) {
		if (!strcmp(h->modes[i], "*")) {
			for (size_t m = 0; m < a->nmodes; m++)
				if (m != base && !a->aa_of[m])
					modes[nm++] = m;
			break;
		}
		size_t m;
		if (find_mode(a, f, h, h->modes[i], h->modes_pos, &m)) {
			free(modes);
			return -1;
		}
		if (m == base) {
			free(modes);
			return where_error(f, h->modes_pos, "hypothesis '%s': mode '%s' is its own "
							    "baseline", h->id, h->modes[i]);
		}
		modes[nm++] = m;
	}
	size_t *cells = NULL, nc = 0;
	if (nm == 0 || resolve_cells(a, f, h, &cells, &nc)) {
		if (nm == 0)
			where_error(f, h->modes_pos, "hypothesis '%s': \"*\" selects no mode besides "
						     "the baseline '%s'", h->id, a->modes[base]);
		free(modes);
		free(cells);
		return -1;
	}
	if (h->aggregate == HYP_AGG_AT_LEAST && h->at_least > nc) {
		free(modes);
		free(cells);
		return where_error(f, h->at_least_pos, "hypothesis '%s': at_least = %zu but its "
						       "scope has %zu cell(s)", h->id, h->at_least,
				   nc);
	}
	/* the host-bound e2e cells of its scope (a composition takes each workload's graph
	 * cell itself).  A primary hypothesis whose cells come from its scope (not named in
	 * `cells`) is not decided on them: they leave its scope, said in its deciding numbers
	 * (docs/hypothesis-format.md, "Host-bound cells"). */
	size_t kept_cells = 0;
	for (size_t i = 0; i < nc; i++) {
		size_t g = 0;
		double q = h->aggregate == HYP_AGG_COMPOSITION
				   ? NAN
				   : report_host_bound_ratio(r, cells[i], &g, NULL);
		int hb = !isnan(q) && q >= REP_HOST_BOUND;
		int leave = hb && h->primary && h->scope != HYP_SCOPE_CELLS;
		if (hb) {
			res->hb = xrealloc(res->hb, (res->nhb + 1) * sizeof(*res->hb));
			res->hb[res->nhb++] = (struct hyp_host_bound){ cells[i], g, q, leave };
		}
		if (!leave)
			cells[kept_cells++] = cells[i];
	}
	if (kept_cells < nc && !kept_cells)
		warning("hypothesis '%s': every cell of its scope is host-bound, and a primary "
			"hypothesis is not decided on such cells: name them in `cells` to claim "
			"something of the host's launches, or the graph cells to claim something of "
			"the GPU's work", h->id);
	nc = kept_cells;
	/* without a declared effect: the largest noise floor of its cells */
	if (!strcmp(res->min_effect_source, "default")) {
		double fl = NAN;
		for (size_t i = 0; i < nc; i++)
			if (!isnan(r->floor[cells[i]]) && !(r->floor[cells[i]] <= fl))
				fl = r->floor[cells[i]];
		if (!isnan(fl)) {
			res->min_effect = fl;
			res->min_effect_source = "noise-floor";
		}
	}
	/* each mode on the cells of the workloads it and the baseline run; a mode that runs
	 * none of them is not part of the hypothesis */
	size_t *mine = xcalloc(nc + 1, sizeof(*mine)), kept = 0;
	for (size_t i = 0; i < nm; i++) {
		size_t nmine = compared_cells(a, h, modes[i], base, cells, nc, mine);
		if (!nmine)
			continue;
		kept++;
		if (h->aggregate == HYP_AGG_COMPOSITION)
			hyp_target_comp(res, r, h, modes[i]);
		else if (h->aggregate == HYP_AGG_GEOMEAN)
			hyp_target_geomean(res, r, modes[i], mine, nmine, rng);
		else
			for (size_t k = 0; k < nmine; k++)
				hyp_target_cell(res, r, modes[i], mine[k]);
	}
	free(mine);
	free(modes);
	free(cells);
	if (!kept)
		warning("hypothesis '%s': not decided on this run: none of its modes is compared "
			"with '%s' in its scope (their 'workloads')", h->id, a->modes[base]);
	return kept ? 0 : 1;
}

/* Decide each target, then the hypothesis: per mode by the aggregate, across modes (and
 * across the workloads of op-vs-e2e) every one must hold. */
static void decide(struct hyp_result *res, const struct hyp_entry *en,
		   const struct analysis *a)
{
	const struct hypothesis *h = res->h;
	for (size_t i = 0; i < res->nt; i++) {
		struct hyp_target *t = &res->t[i];
		if (t->ci_short)
			t->verdict = VERDICT_INCONCLUSIVE;
		else if (t->kind == HYP_T_CELL)
			t->verdict = stats_decide(t->lo, t->hi, t->p, res->alpha, t->floor,
						  res->min_effect, NULL);
		else if (t->kind == HYP_T_GEOMEAN || t->kind == HYP_T_COMP)
			t->verdict = stats_decide(t->lo, t->hi, 0, res->alpha, NAN, res->min_effect,
						  NULL);
		if (!t->ok)
			t->result = HYP_INCONCLUSIVE;
		else if (hyp_expr_holds(res->fx, res->crit, t))
			t->result = HYP_FALSIFIED;
		else if (hyp_expr_holds(res->cx, res->crit, t))
			t->result = HYP_CORROBORATED;
		else
			t->result = HYP_INCONCLUSIVE;
	}
	/* groups: consecutive targets of one mode (cell aggregates), else one per target */
	size_t nc = 0, nf = 0, ng = 0;
	for (size_t i = 0; i < res->nt;) {
		size_t j = i + 1;
		if (res->t[i].kind == HYP_T_CELL)
			while (j < res->nt && !strcmp(res->t[j].mode, res->t[i].mode))
				j++;
		enum hyp_verdict v = res->t[i].kind == HYP_T_CELL ?
					     hyp_combine(res->t + i, j - i, h->aggregate, h->at_least) :
					     res->t[i].result;
		nc += v == HYP_CORROBORATED;
		nf += v == HYP_FALSIFIED;
		ng++;
		i = j;
	}
	res->verdict = nf ? HYP_FALSIFIED : nc == ng ? HYP_CORROBORATED : HYP_INCONCLUSIVE;
	res->exploratory = en->status != HYP_PREREGISTERED;
	/* the deciding numbers: targets with the verdict (undecided ones when inconclusive) */
	struct sbuf sb;
	sbuf_init(&sb);
	size_t shown = 0, more = 0;
	res->mde = res->repeats = res->repeats_fixed = NAN;
	for (size_t i = 0; i < res->nt; i++)
		if (!isnan(res->t[i].repeats_fixed) && !(res->t[i].repeats_fixed <= res->repeats_fixed))
			res->repeats_fixed = res->t[i].repeats_fixed;
	for (size_t i = 0; i < res->nt; i++) {
		const struct hyp_target *t = &res->t[i];
		if (t->result != res->verdict)
			continue;
		if (!isnan(t->mde) && !(t->mde <= res->mde))
			res->mde = t->mde;
		if (res->verdict == HYP_INCONCLUSIVE && !isnan(t->repeats) &&
		    !(t->repeats <= res->repeats))
			res->repeats = t->repeats;
		if (shown < 3) {
			if (shown++)
				sbuf_adds(&sb, "; ");
			hyp_target_numbers(&sb, t);
		} else {
			more++;
		}
	}
	if (more)
		sbuf_addf(&sb, "; and %zu more", more);
	for (size_t i = 0; i < res->nhb; i++)
		sbuf_addf(&sb, "%s'%s' %.2fx '%s'%s%s", i ? ", " : "; host-bound: ",
			  a->cells[res->hb[i].cell].name, res->hb[i].ratio,
			  a->cells[res->hb[i].graph].name, res->hb[i].left_out ? " (left out)" : "",
			  i + 1 < res->nhb ? "" : " (launched op by op, they time the host's "
						  "launch and library work as well as the GPU's)");
	res->deciding = sbuf_detach(&sb);
}

/* 1 when some mode of the run ran on backend (the run's mode_backends says so). */
static int ran_on(const struct analysis *a, const char *backend)
{
	const char *mb = rec_meta_get(&a->meta, "mode_backends");
	char *key = xasprintf("\"backend\":\"%s\"", backend);
	int yes = mb && strstr(mb, key);
	free(key);
	return yes;
}

int hyp_evaluate(const struct report *rep, const struct hyp_set *s, struct hyp_eval **out)
{
	const struct analysis *a = rep->a;
	struct hyp_eval *e = xcalloc(1, sizeof(*e));
	struct rcache rc = { NULL, NULL, 0 };
	int ret = -1;
	e->a = a;
	e->set = s;
	*out = NULL;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!rng) {
		error("cannot allocate the bootstrap's random number generator");
		goto done;
	}
	gsl_rng_set(rng, (unsigned long)rep->o.seed);
	for (size_t i = 0; i < s->n; i++)
		for (size_t k = 0; k < s->e[i].file->nh; k++) {
			const struct hypothesis *h = &s->e[i].file->h[k];
			if (h->only_on && !ran_on(a, h->only_on)) {
				/* by design, not a fault: the writers list it */
				e->left_out = xrealloc(e->left_out,
						       (e->nleft_out + 1) * sizeof(*e->left_out));
				e->left_out[e->nleft_out++] = h;
				continue;
			}
			e->r = xrealloc(e->r, (e->nr + 1) * sizeof(*e->r));
			struct hyp_result *res = &e->r[e->nr++];
			memset(res, 0, sizeof(*res));
			res->entry = &s->e[i];
			res->h = &s->e[i].file->h[k];
			int b = build_targets(rep, &s->e[i], res->h, res, &rc, rng);
			if (b < 0)
				goto done;
			if (b > 0) /* not decided here: none of its modes is compared */
				result_release(&e->r[--e->nr]);
		}
	/* Holm across the primaries: every p of a primary hypothesis whose rule reads p or a
	 * verdict, in one family */
	size_t nfam = 0;
	for (size_t i = 0; i < e->nr; i++)
		if (e->r[i].h->primary && e->r[i].uses_p)
			for (size_t k = 0; k < e->r[i].nt; k++)
				nfam += !isnan(e->r[i].t[k].p_raw);
	if (nfam) {
		double *p = xmalloc(nfam * sizeof(*p)), *adj = xmalloc(nfam * sizeof(*adj));
		size_t j = 0;
		for (size_t i = 0; i < e->nr; i++)
			if (e->r[i].h->primary && e->r[i].uses_p)
				for (size_t k = 0; k < e->r[i].nt; k++)
					if (!isnan(e->r[i].t[k].p_raw))
						p[j++] = e->r[i].t[k].p_raw;
		stats_holm(p, nfam, adj);
		j = 0;
		for (size_t i = 0; i < e->nr; i++)
			if (e->r[i].h->primary && e->r[i].uses_p)
				for (size_t k = 0; k < e->r[i].nt; k++)
					if (!isnan(e->r[i].t[k].p_raw)) {
						e->r[i].t[k].p = adj[j++];
						e->r[i].t[k].in_family = 1;
					}
		free(p);
		free(adj);
	}
	e->family = nfam;
	for (size_t i = 0; i < e->nr; i++) {
		decide(&e->r[i], e->r[i].entry, a);
		if (e->r[i].h->primary && e->r[i].verdict == HYP_FALSIFIED &&
		    e->r[i].entry->status == HYP_PREREGISTERED)
			e->prereg_primary_falsified = 1;
	}
	ret = 0;
done:
	for (size_t i = 0; i < rc.n; i++)
		report_free(rc.r[i]);
	free(rc.r);
	free(rc.base);
	if (rng)
		gsl_rng_free(rng);
	if (ret)
		hyp_eval_free(e);
	else
		*out = e;
	return ret;
}
