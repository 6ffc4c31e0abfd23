/* report.c: the statistics of a run (report_build; see report.h); their markdown, JSON and
 * CSV forms are harness/output/report-write.c's (docs/report-format.md) */
#include "config.h"
#include "harness/analysis/report.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <jansson.h>

#include "harness/analysis/report-int.h"
#include "harness/base/util.h"

const char *rep_adjust_name(enum rep_adjust a)
{
	return a == REP_ADJUST_BY ? "by" : a == REP_ADJUST_HOLM ? "holm" : "bh";
}

int rep_adjust_parse(const char *s, enum rep_adjust *a)
{
	if (!strcmp(s, "bh"))
		*a = REP_ADJUST_BH;
	else if (!strcmp(s, "by"))
		*a = REP_ADJUST_BY;
	else if (!strcmp(s, "holm"))
		*a = REP_ADJUST_HOLM;
	else
		return -1;
	return 0;
}

void rep_adjust_p(enum rep_adjust a, const double *p, size_t n, double *adj)
{
	if (a == REP_ADJUST_BY)
		stats_by(p, n, adj);
	else if (a == REP_ADJUST_HOLM)
		stats_holm(p, n, adj);
	else
		stats_bh(p, n, adj);
}

const char *rep_floor_src_name(enum rep_floor_src s)
{
	return s == REP_FLOOR_AA ? "aa" : s == REP_FLOOR_PAIRS ? "comparisons" : "none";
}

int report_ci_short(const struct report *r, size_t n)
{
	return r->o.test != STATS_TEST_RANK ? n < 2 : stats_ci_short(n, n, r->o.conf, 1);
}

void report_opts_init(struct report_opts *o)
{
	o->baseline = NULL;
	o->alpha = 0.05;
	o->margin = NAN;
	o->alpha_given = 0;
	o->alpha_scale = 1;
	o->test = STATS_TEST_T;
	o->adjust = REP_ADJUST_BH;
	o->family_workload = 0;
	o->conf = 0.95;
	o->power = 0.8;
	o->nboot = 10000;
	o->seed = 20261121;
	o->coverage_min = 0.5;
	o->repo = NULL;
}

void report_warn(struct report *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *w = xvasprintf(fmt, ap);
	va_end(ap);
	r->warnings = xrealloc(r->warnings, (r->nwarnings + 1) * sizeof(*r->warnings));
	r->warnings[r->nwarnings++] = w;
}

/* ---- building ------------------------------------------------------------------------ */

static void summarize(struct report *r)
{
	const struct analysis *a = r->a;
	size_t nb = a->nblocks;
	double *x = xmalloc((nb ? nb : 1) * sizeof(*x)), *w = xmalloc((nb ? nb : 1) * sizeof(*w));
	r->sum = xcalloc(a->nmodes * a->ncells, sizeof(*r->sum));
	for (size_t m = 0; m < a->nmodes; m++) {
		for (size_t c = 0; c < a->ncells; c++) {
			struct rep_summary *s = &r->sum[m * a->ncells + c];
			const double *st = &a->setup[(m * a->ncells + c) * nb];
			size_t ns = 0;
			for (size_t b = 0; b < nb; b++)
				if (!isnan(st[b]))
					x[ns++] = st[b];
			stats_summarize(x, 1, ns, w, &s->setup);
			size_t n = analysis_column(a, m, c, x);
			s->n = n;
			stats_summarize(x, 1, n, w, &s->s);
			/* one unit has no spread (not a spread of 0: that made a mode run once
			 * look least spread, and every ratio over it infinite) */
			s->spread = n >= 2 ? s->s.iqr / s->s.median : NAN;
			analysis_variance(a, m, c, &s->unit_se, &s->vc);
		}
	}
	free(x);
	free(w);
}

/* Each bootstrap's stream is seeded from the report seed and the names it concerns (FNV-1a),
 * so a comparison's CI does not depend on which other modes or cells the file holds or on
 * their order: export then import reproduces every number. */
void report_reseed(gsl_rng *rng, uint64_t seed, const char *a, const char *b, const char *c)
{
	uint64_t h = 1469598103934665603ULL ^ seed;
	const char *parts[] = { a, b, c };
	for (size_t i = 0; i < 3; i++) {
		for (const unsigned char *p = (const unsigned char *)(parts[i] ? parts[i] : ""); *p; p++)
			h = (h ^ *p) * 1099511628211ULL;
		h = (h ^ 0xff) * 1099511628211ULL; /* separator */
	}
	gsl_rng_set(rng, (unsigned long)h);
}

/* Compare mode m against ref in cell c over the blocks where both have a unit median. */
static void compare(struct report *r, size_t m, size_t ref, size_t c, gsl_rng *rng,
		    struct rep_cmp *out)
{
	const struct analysis *a = r->a;
	size_t nb = a->nblocks, n = 0;
	double *xm = xmalloc((nb ? nb : 1) * sizeof(*xm)), *xr = xmalloc((nb ? nb : 1) * sizeof(*xr));
	/* paired: the blocks where both have a unit; without pairing, each mode's own units */
	size_t nm = 0, nr = 0;
	if (a->paired) {
		for (size_t b = 0; b < nb; b++) {
			double vm = an_med(a, m, c, b), vr = an_med(a, ref, c, b);
			if (!isnan(vm) && !isnan(vr)) {
				xm[n] = vm;
				xr[n++] = vr;
			}
		}
	} else {
		nm = analysis_column(a, m, c, xm);
		nr = analysis_column(a, ref, c, xr);
	}
	memset(out, 0, sizeof(*out));
	out->mode = m;
	out->ref = ref;
	out->cell = c;
	struct stats_compare_opts co = { .conf = r->o.conf, .alpha = r->o.alpha,
					 .floor = r->floor[c], .margin = r->margin,
					 .power = r->o.power, .nboot = r->o.nboot,
					 .test = r->o.test };
	char *cause = NULL;
	report_reseed(rng, r->o.seed, a->cells[c].name, a->modes[m], a->modes[ref]);
	if (!a->paired) {
		if (!nm || !nr)
			snprintf(out->note, sizeof(out->note), "no ok units of one of the modes");
		else if (stats_compare_unpaired(xm, nm, xr, nr, &co, rng, &out->c, &cause)) {
			snprintf(out->note, sizeof(out->note), "%s", cause);
			free(cause);
		} else
			out->ok = 1;
	} else if (n == 0 && !analysis_runs(a, m, a->cells[c].workload)) {
		snprintf(out->note, sizeof(out->note), "'%s' does not run workload '%s' (its "
			 "'workloads')", a->modes[m], a->cells[c].workload);
	} else if (n == 0 && !analysis_runs(a, ref, a->cells[c].workload)) {
		snprintf(out->note, sizeof(out->note), "'%s' does not run workload '%s' (its "
			 "'workloads')", a->modes[ref], a->cells[c].workload);
	} else if (n == 0) {
		snprintf(out->note, sizeof(out->note), "no block has both modes");
	} else if (stats_compare_paired(xm, xr, n, &co, rng, &out->c, &cause)) {
		snprintf(out->note, sizeof(out->note), "%s", cause);
		free(cause);
	} else {
		out->ok = 1;
	}
	const struct rep_summary *sm = &r->sum[m * a->ncells + c], *sr = &r->sum[ref * a->ncells + c];
	out->iqr_overlap = sm->n && sr->n && sm->s.q1 <= sr->s.q3 && sr->s.q1 <= sm->s.q3;
	out->spread_ratio = sr->spread > 0 ? sm->spread / sr->spread : NAN;
	free(xm);
	free(xr);
}

/* The families of the comparisons (docs/report-format.md, "Families"): each row of cmp
 * (n rows) gets its family's name in ->family, the adjusted p of its family's method
 * (r->o.adjust) and the verdict at it.  A/A copies (against their original or the baseline)
 * form the family "aa", apart from every real claim; the other rows one family per run
 * ("run") or per workload (the cell's workload name, family_workload).  The pre-registered
 * primary hypotheses are a family of their own, Holm-adjusted by verify (hyp-eval.c). */
static void adjust_families(struct report *r, struct rep_cmp *cmp, size_t n, int all_aa)
{
	const struct analysis *a = r->a;
	for (size_t i = 0; i < n; i++)
		cmp[i].family = all_aa || a->aa_of[cmp[i].mode] ? "aa"
				: r->o.family_workload ? a->cells[cmp[i].cell].workload
						       : "run";
	/* each row's family as a number (0 "aa", 1 "run", 2 + w workload w), then the rows
	 * in order of family, each family's in row order (a counting sort: linear in n) */
	size_t nfam = a->nworkloads + 2, *start = xcalloc(nfam + 1, sizeof(*start));
	size_t *fam = xmalloc((n + 1) * sizeof(*fam)), *order = xmalloc((n + 1) * sizeof(*order));
	for (size_t i = 0; i < n; i++)
		start[1 + (fam[i] = !strcmp(cmp[i].family, "aa") ? 0 : !strcmp(cmp[i].family, "run")
			? 1 : 2 + a->cell_workload[cmp[i].cell])]++;
	for (size_t f = 0; f < nfam; f++)
		start[f + 1] += start[f];
	for (size_t i = 0; i < n; i++)
		order[start[fam[i]]++] = i;
	double *p = xmalloc((n + 1) * sizeof(*p)), *adj = xmalloc((n + 1) * sizeof(*adj));
	size_t *idx = xmalloc((n + 1) * sizeof(*idx));
	for (size_t f = 0, i = 0; f < nfam; f++) {
		size_t k = 0;
		for (; i < n && fam[order[i]] == f; i++)
			if (cmp[order[i]].ok) {
				idx[k] = order[i];
				p[k++] = cmp[order[i]].c.p;
			}
		if (!k)
			continue;
		rep_adjust_p(r->o.adjust, p, k, adj);
		for (size_t j = 0; j < k; j++) {
			cmp[idx[j]].family_size = k;
			stats_comparison_redecide(&cmp[idx[j]].c, adj[j], r->o.alpha, k);
		}
	}
	free(order);
	free(start);
	free(fam);
	free(idx);
	free(p);
	free(adj);
}

/* The standard deviation of log(an_med(m) / an_med(ref)) over the blocks where both have a
 * unit median in cell c, into *s; 1 when there were 3 or more, else 0.  x holds nblocks. */
static int pair_sd(const struct analysis *a, size_t m, size_t ref, size_t c, double *x,
		   double *s)
{
	size_t n = 0;
	for (size_t b = 0; b < a->nblocks; b++) {
		double u = an_med(a, m, c, b), v = an_med(a, ref, c, b);
		if (u > 0 && v > 0)
			x[n++] = log(u / v);
	}
	if (n < 3)
		return 0;
	*s = gsl_stats_sd(x, 1, n);
	return 1;
}

/* Each cell's noise floor (report.h, stats_noise_floor): s, the standard deviation of the
 * log ratio of two processes over the blocks where both have a unit median, each from 3
 * blocks or more: of the first A/A pair whose original is the baseline (else the first A/A
 * pair), two processes of one configuration; without one, the median over the cell's
 * comparisons with the baseline (the A/A copies apart) of theirs.  Both are paired by
 * block, so a block effect (drift, a slow stretch of the machine) cancels in them, as in the
 * test.  Until 2026-11-28 (first version of this rule) the fallback was sqrt(2) times the
 * standard deviation of the baseline's log unit medians, which holds the block effects: with
 * blocks 1% apart a 2% speed-up measured to +-0.03% read SAME (tests/bench/sim-verdicts.py). */
static void cell_floors(struct report *r)
{
	const struct analysis *a = r->a;
	size_t nb = a->nblocks;
	r->floor = xcalloc(a->ncells + 1, sizeof(*r->floor));
	r->floor_s = xcalloc(a->ncells + 1, sizeof(*r->floor_s));
	r->floor_src = xcalloc(a->ncells + 1, sizeof(*r->floor_src));
	long aa = -1, of = -1;
	for (size_t m = 0; m < a->nmodes; m++) {
		long o = a->aa_of[m] ? analysis_mode(a, a->aa_of[m]) : -1;
		if (o >= 0 && (aa < 0 || ((size_t)o == r->baseline && (size_t)of != r->baseline))) {
			aa = (long)m;
			of = o;
		}
	}
	double *x = xmalloc((nb + 1) * sizeof(*x)), *sd = xmalloc((a->nmodes + 1) * sizeof(*sd));
	double *w = xmalloc((a->nmodes + 1) * sizeof(*w));
	for (size_t c = 0; c < a->ncells; c++) {
		double s = NAN;
		if (aa >= 0 && pair_sd(a, (size_t)aa, (size_t)of, c, x, &s)) {
			r->floor_src[c] = REP_FLOOR_AA;
		} else {
			size_t k = 0;
			for (size_t m = 0; m < a->nmodes; m++)
				if (m != r->baseline && !a->aa_of[m] &&
				    pair_sd(a, m, r->baseline, c, x, &sd[k]))
					k++;
			s = k ? stats_median(sd, 1, k, w) : NAN;
			r->floor_src[c] = k ? REP_FLOOR_PAIRS : REP_FLOOR_NONE;
		}
		r->floor_s[c] = s;
		r->floor[c] = stats_noise_floor(s);
	}
	free(x);
	free(sd);
	free(w);
}

/* The A/A noise floor: over the cells, the 95th percentile (type 7) of |log r_c|, where r_c
 * is the cell's A/A ratio estimate (median over blocks of copy / original).  It is the
 * relative difference an identical configuration shows in 95% of cells, reported as
 * exp(.) - 1, and over every cell it is the default equivalence margin.  With kind, only
 * the cells of that kind count: the floor of the op cells, or of the e2e cells, whose
 * target is set apart (with two to four e2e cells the p95 is near their largest); with
 * no_host_bound, not the forwards that time the host (report_host_bound_ratio), so that
 * the e2e floor of the CUDA backend's graph forwards is seen apart from its stream ones'. */
double report_aa_floor(const struct report *r, size_t m, size_t of, long dev, const char *kind,
		       int no_host_bound)
{
	const struct analysis *a = r->a;
	double *ratio = xmalloc((a->nblocks + 1) * sizeof(*ratio));
	double *w = xmalloc((a->nblocks + a->ncells + 1) * sizeof(*w));
	double *d = xmalloc((a->ncells + 1) * sizeof(*d));
	double floor = NAN;
	size_t nd = 0;
	for (size_t c = 0; c < a->ncells; c++) {
		if (kind && strcmp(a->cells[c].kind, kind) != 0)
			continue;
		if (no_host_bound && report_host_bound_ratio(r, c, NULL, NULL) >= REP_HOST_BOUND)
			continue;
		size_t n = 0;
		for (size_t b = 0; b < a->nblocks; b++) {
			if (dev != ALL_DEVICES && a->block_device[b] != dev)
				continue;
			double x = an_med(a, m, c, b), y = an_med(a, of, c, b);
			if (!isnan(x) && !isnan(y) && x > 0 && y > 0)
				ratio[n++] = x / y;
		}
		/* a cell counts from 3 pairs, as a cell's own floor (cell_floors): a floor from
		 * one or two between-process ratios is noise itself (torch-resnet part-run: 110%
		 * from a cell with one pair) */
		if (n >= 3)
			d[nd++] = fabs(log(stats_median(ratio, 1, n, w)));
	}
	if (nd) {
		for (size_t i = 0; i < nd; i++)
			w[i] = d[i];
		gsl_sort(w, 1, nd);
		floor = exp(gsl_stats_quantile_from_sorted_data(w, 1, nd, 0.95)) - 1;
	}
	free(ratio);
	free(w);
	free(d);
	return floor;
}

static void aa_noise(struct report *r)
{
	const struct analysis *a = r->a;
	for (size_t m = 0; m < a->nmodes; m++) {
		if (!a->aa_of[m])
			continue;
		long of = analysis_mode(a, a->aa_of[m]);
		if (of < 0)
			continue;
		r->aa = xrealloc(r->aa, (r->naa + 1) * sizeof(*r->aa));
		struct rep_aa *q = &r->aa[r->naa++];
		memset(q, 0, sizeof(*q));
		q->mode = m;
		q->of = (size_t)of;
		q->noise_floor = report_aa_floor(r, m, (size_t)of, ALL_DEVICES, NULL, 0);
		q->noise_floor_op = report_aa_floor(r, m, (size_t)of, ALL_DEVICES, "op", 0);
		q->noise_floor_e2e = report_aa_floor(r, m, (size_t)of, ALL_DEVICES, "e2e", 0);
		q->noise_floor_e2e_nhb = report_aa_floor(r, m, (size_t)of, ALL_DEVICES, "e2e", 1);
	}
}

/* The declared practical margin: --margin, else the experiment's `margin`, else none (each
 * cell is judged against its own noise floor alone). */
static void choose_margin(struct report *r)
{
	if (!isnan(r->o.margin)) {
		r->margin = r->o.margin;
		r->margin_source = "option";
	} else if (!isnan(r->a->margin)) {
		r->margin = r->a->margin;
		r->margin_source = "experiment";
	} else {
		r->margin = NAN;
		r->margin_source = "none";
	}
}

/* Pareto: latency better only with a FASTER verdict of one against the other; spread and
 * median setup compared numerically, equal within 5% (setup and spread are themselves noisy). */
struct pareto_ctx {
	struct report *r;
	size_t cell;
	size_t *modes;
	enum stats_verdict *lat; /* [a * n + b]: verdict of modes[a] against modes[b] */
	size_t n;
};

static int num_cmp(double x, double y)
{
	if (isnan(x) || isnan(y))
		return 0;
	double tol = 0.05 * fmax(fabs(x), fabs(y));
	return x < y - tol ? -1 : x > y + tol ? 1 : 0;
}

static int pareto_cmp(size_t i, size_t j, size_t obj, void *vctx)
{
	struct pareto_ctx *p = vctx;
	const struct analysis *a = p->r->a;
	const struct rep_summary *si = &p->r->sum[p->modes[i] * a->ncells + p->cell];
	const struct rep_summary *sj = &p->r->sum[p->modes[j] * a->ncells + p->cell];
	if (obj == 0) {
		enum stats_verdict v = p->lat[i * p->n + j];
		return v == VERDICT_FASTER ? -1 : v == VERDICT_SLOWER ? 1 : 0;
	}
	if (obj == 1)
		return num_cmp(si->spread, sj->spread);
	return num_cmp(si->setup.median, sj->setup.median);
}

static void pareto(struct report *r, gsl_rng *rng)
{
	const struct analysis *a = r->a;
	r->front = xcalloc(a->nmodes * a->ncells, sizeof(*r->front));
	size_t *modes = xmalloc(a->nmodes * sizeof(*modes));
	enum stats_verdict *lat = xmalloc(a->nmodes * a->nmodes * sizeof(*lat));
	int *front = xmalloc(a->nmodes * sizeof(*front));
	for (size_t c = 0; c < a->ncells; c++) {
		size_t n = 0;
		for (size_t m = 0; m < a->nmodes; m++)
			if (r->sum[m * a->ncells + c].n)
				modes[n++] = m;
		/* one paired comparison per unordered pair; the reverse verdict mirrors it
		 * (FASTER <-> SLOWER): the signed-rank test of -log r is the same test */
		for (size_t i = 0; i < n * n; i++)
			lat[i] = VERDICT_INCONCLUSIVE;
		for (size_t i = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++) {
				/* a pair with the baseline was compared already (r->cmp: mode
				 * against baseline); its raw-p verdict is what compare() would give */
				size_t other = modes[i] == r->baseline ? modes[j] : modes[i];
				int with_base = modes[i] == r->baseline || modes[j] == r->baseline;
				struct rep_cmp x;
				if (with_base)
					x = r->cmp[c * (a->nmodes - 1) +
						   (other < r->baseline ? other : other - 1)];
				else
					compare(r, modes[i], modes[j], c, rng, &x);
				if (!x.ok)
					continue;
				enum stats_verdict v =
					with_base ? stats_comparison_decide(&x.c, x.c.p, r->o.alpha)
						  : x.c.verdict;
				if (modes[i] == r->baseline) /* x is other against the baseline */
					v = v == VERDICT_FASTER   ? VERDICT_SLOWER
					    : v == VERDICT_SLOWER ? VERDICT_FASTER
								  : v;
				lat[i * n + j] = v;
				lat[j * n + i] = v == VERDICT_FASTER   ? VERDICT_SLOWER
						 : v == VERDICT_SLOWER ? VERDICT_FASTER
								       : v;
			}
		struct pareto_ctx ctx = { r, c, modes, lat, n };
		stats_pareto(n, 3, pareto_cmp, &ctx, front);
		for (size_t i = 0; i < n; i++)
			r->front[modes[i] * a->ncells + c] = front[i];
		/* not dominated by the baseline: the seed study's "Pareto-equivalent-or-better" */
		for (size_t i = 0; i < n; i++) {
			size_t bi = n;
			for (size_t j = 0; j < n; j++)
				if (modes[j] == r->baseline)
					bi = j;
			if (bi == n || modes[i] == r->baseline)
				continue;
			int worse = 0, better = 0;
			for (size_t obj = 0; obj < 3; obj++) {
				int v = pareto_cmp(bi, i, obj, &ctx);
				worse |= v < 0;
				better |= v > 0;
			}
			int dominated = worse && !better;
			size_t scope[2] = { a->cell_workload[c], a->nworkloads };
			for (size_t k = 0; k < 2; k++) {
				struct rep_agg *ag = &r->agg[report_agg_index(r, scope[k], modes[i])];
				ag->pareto_cells++;
				ag->pareto_ok += !dominated;
			}
		}
	}
	free(modes);
	free(lat);
	free(front);
}

/* Geometric means per workload and overall, wins/losses by verdict, spread ratios. */
static int aggregates(struct report *r, gsl_rng *rng)
{
	const struct analysis *a = r->a;
	/* scopes: every workload (a->workloads), then "all"; report_agg_index finds them */
	size_t ns = a->nworkloads + 1, nb = a->nblocks;
	double *logr = xmalloc((nb * a->ncells + 1) * sizeof(*logr));
	double *sr = xmalloc((a->ncells + 1) * sizeof(*sr)), *w = xmalloc((a->ncells + 1) * sizeof(*w));
	size_t *rows = xmalloc((a->ncells + 1) * sizeof(*rows)), nrows;
	r->agg = xcalloc(ns * (a->nmodes ? a->nmodes : 1), sizeof(*r->agg));
	for (size_t s = 0; s < ns; s++)
		for (size_t m = 0; m < a->nmodes; m++) {
			if (m == r->baseline)
				continue;
			struct rep_agg *g = &r->agg[r->nagg++];
			memset(g, 0, sizeof(*g));
			int all = s == a->nworkloads;
			g->scope = xstrdup(all ? "all" : a->workloads[s]);
			g->mode = m;
			g->geomean = g->lo = g->hi = g->p = g->e2e_ratio = NAN;
			g->e2e_verdict = VERDICT_INCONCLUSIVE;
			nrows = 0; /* the scope's rows of mode m, in cell order */
			for (size_t k = all ? 0 : a->workload_first[s];
			     k < (all ? a->ncells : a->workload_first[s + 1]); k++)
				rows[nrows++] = report_cmp_index(r, all ? k : a->workload_cells[k], m);
			size_t ncol = 0, nsr = 0;
			for (size_t ri = 0; ri < nrows; ri++) {
				const struct rep_cmp *x = &r->cmp[rows[ri]];
				const struct an_cell *cell = &a->cells[x->cell];
				/* a cell of a workload that the mode or the baseline does not
				 * run (its `workloads`) is in no aggregate of the pair */
				if (!analysis_runs(a, m, cell->workload) ||
				    !analysis_runs(a, r->baseline, cell->workload))
					continue;
				if (!isnan(x->spread_ratio))
					sr[nsr++] = x->spread_ratio;
				if (x->ok) {
					g->wins += x->c.verdict == VERDICT_FASTER;
					g->losses += x->c.verdict == VERDICT_SLOWER;
					g->same += x->c.verdict == VERDICT_SAME;
					g->inconclusive += x->c.verdict == VERDICT_INCONCLUSIVE;
				}
				if (!strcmp(cell->kind, "e2e")) {
					/* the workload's e2e cell its op cells are compared with
					 * (compose.c's too): the cuda backend's graph forward */
					if (!all && x->ok && !g->has_e2e &&
					    x->cell == analysis_workload_e2e(a, cell->workload)) {
						g->has_e2e = 1;
						g->e2e_ratio = x->c.ratio;
						g->e2e_verdict = x->c.verdict;
					}
					continue;
				}
				for (size_t b = 0; b < nb; b++) {
					double vm = an_med(a, m, x->cell, b),
					       vb = an_med(a, r->baseline, x->cell, b);
					logr[b * a->ncells + ncol] = isnan(vm) || isnan(vb) ? NAN : log(vm / vb);
				}
				ncol++;
			}
			g->ncells = ncol;
			g->spread_ratio_median = nsr ? stats_median(sr, 1, nsr, w) : NAN;
			if (ncol && !a->paired) {
				/* no blocks to resample: the point estimate alone, from the ratio
				 * of medians of each op cell */
				double sum = 0;
				size_t k = 0;
				for (size_t ri = 0; ri < nrows; ri++) {
					const struct rep_cmp *x = &r->cmp[rows[ri]];
					const struct an_cell *cell = &a->cells[x->cell];
					if (x->ok && strcmp(cell->kind, "e2e")) {
						sum += log(x->c.ratio);
						k++;
					}
				}
				g->geomean = k ? exp(sum / (double)k) : NAN;
			} else if (ncol) {
				/* compact the matrix to ncol columns (rows were written with stride ncells) */
				double *mat = xmalloc(nb * ncol * sizeof(*mat));
				for (size_t b = 0; b < nb; b++)
					for (size_t k = 0; k < ncol; k++)
						mat[b * ncol + k] = logr[b * a->ncells + k];
				stats_geomean_t(mat, nb, ncol, stats_test_trim(r->o.test), r->o.conf,
						&g->geomean, &g->lo, &g->hi, &g->p, &g->nblocks);
				if (isnan(g->geomean))
					report_warn(r, "geometric mean of '%s' in '%s' not computed: no "
						    "block has every one of its %zu op cells", a->modes[m],
						    g->scope, ncol);
				free(mat);
			}
		}
	free(logr);
	free(sr);
	free(w);
	free(rows);
	return 0;
}

/* Drift: per mode, Spearman's rho between each unit's run position and its level, the
 * geometric mean over cells of the unit's median relative to the cell's median for the
 * mode.  One point per unit: the cells of a unit are not independent observations. */
void report_drift_mode(const struct report *r, size_t m, long dev, struct rep_drift *d)
{
	const struct analysis *a = r->a;
	size_t nb = a->nblocks;
	double *x = xmalloc((nb + 1) * sizeof(*x)), *y = xmalloc((nb + 1) * sizeof(*y));
	size_t n = 0;
	for (size_t b = 0; b < nb; b++) {
		if (dev != ALL_DEVICES && a->block_device[b] != dev)
			continue;
		double o = a->order[m * nb + b], sum = 0;
		size_t k = 0;
		for (size_t c = 0; c < a->ncells; c++) {
			double v = an_med(a, m, c, b), med = r->sum[m * a->ncells + c].s.median;
			if (!isnan(v) && med > 0) {
				sum += log(v / med);
				k++;
			}
		}
		if (!isnan(o) && k) {
			x[n] = o;
			y[n++] = exp(sum / (double)k);
		}
	}
	memset(d, 0, sizeof(*d));
	d->mode = m;
	d->n = n;
	d->order = x;
	d->level = y;
	d->rho = d->p = NAN;
	char *cause = NULL;
	if (n >= 3 && !stats_spearman(x, y, n, &d->rho, &d->p, &cause))
		d->flagged = !isnan(d->p) && d->p < r->o.alpha;
	free(cause);
}

static void drift(struct report *r)
{
	const struct analysis *a = r->a;
	r->drift = xcalloc(a->nmodes, sizeof(*r->drift));
	for (size_t m = 0; m < a->nmodes; m++) {
		struct rep_drift *d = &r->drift[r->ndrift++];
		report_drift_mode(r, m, ALL_DEVICES, d);
		if (d->flagged)
			report_warn(r, "mode '%s' drifts with run order (Spearman rho %.2f over %zu units, p %.3g)",
			     a->modes[m], d->rho, d->n, d->p);
	}
}

static void sample_size_warnings(struct report *r)
{
	const struct analysis *a = r->a;
	size_t nb = a->nblocks;
	if (r->o.test == STATS_TEST_RANK && nb < 6)
		report_warn(r, "%zu blocks: the exact signed-rank test cannot reach p < %.3g below 6 pairs "
			"(smallest two-sided p with %zu pairs: %.4g), and no verdict, SAME included, "
			"rests on a CI from fewer than 6; add repeats (a recorded run: harness run "
			"--resume FILE --repeats N) or decide by the t test (--test t)",
		     nb, r->o.alpha, nb, nb ? 2.0 / pow(2.0, (double)nb) : 1.0);
	else if (a->paired && nb < 3)
		report_warn(r, "%zu block(s): a t test on %zu pair(s) has %s degree of freedom, so its "
			    "CIs are %s; add repeats (a recorded run: harness run --resume FILE "
			    "--repeats N)", nb, nb, nb == 2 ? "one" : "no",
			    nb == 2 ? "12.7 standard errors wide each way" : "not there at all");
	for (size_t k = 0; k < a->nfailed; k++)
		for (size_t m = 0; m < a->nmodes; m++)
			if (a->failed[k].count[m])
				report_warn(r, "mode '%s': %zu unit(s) with status '%s' are left out",
				     a->modes[m], a->failed[k].count[m], a->failed[k].status);
	for (size_t i = 0; i < r->ncmp; i++) {
		const struct rep_cmp *x = &r->cmp[i];
		if (x->ok && x->c.verdict == VERDICT_FASTER && !strcmp(a->cells[x->cell].kind, "e2e"))
			report_warn(r, "'%s' is FASTER than the baseline '%s' end to end in '%s': the baseline "
				"is not the strongest configuration",
			     a->modes[x->mode], a->modes[r->baseline], a->cells[x->cell].name);
	}
	for (size_t i = 0; i < r->naa; i++) {
		const struct rep_aa *q = &r->aa[i];
		if (q->cells && (double)q->false_positives / (double)q->cells > r->o.alpha)
			report_warn(r, "A/A control '%s' differs from '%s' in %zu of %zu cells: above alpha, the "
				"tests are anti-conservative here",
			     a->modes[q->mode], a->modes[q->of], q->false_positives, q->cells);
	}
}

int report_build(const struct analysis *a, const struct report_opts *o, struct report **out)
{
	struct report *r = xcalloc(1, sizeof(*r));
	r->a = a;
	r->o = *o;
	r->baseline = a->baseline;
	*out = NULL;
	if (o->baseline) {
		long b = analysis_mode(a, o->baseline);
		if (b < 0) {
			char *list = analysis_mode_list(a);
			error("'%s' has no mode '%s' (modes: %s)", a->path, o->baseline, list);
			free(list);
			report_free(r);
			return -1;
		}
		r->baseline = (size_t)b;
	}
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!rng) {
		report_free(r);
		return error("cannot allocate the bootstrap's random number generator");
	}
	gsl_rng_set(rng, (unsigned long)o->seed);

	for (size_t i = 0; i < a->nwarnings; i++)
		report_warn(r, "%s", a->warnings[i]);
	/* a sequential run is read at the level of the look it stopped at (sequential.h) */
	const char *sa = rec_meta_get(&a->meta, "sequential_alpha");
	const char *st = rec_meta_get(&a->meta, "sequential_alpha_total");
	double lvl, tot = 0.05;
	if (!o->alpha_given && sa && *sa && !parse_double(sa, 1e-300, 0.5, &lvl)) {
		if (st && *st)
			parse_double(st, 1e-9, 0.5, &tot);
		r->o.alpha = lvl;
		r->o.conf = 1 - lvl;
		r->o.alpha_scale = lvl / tot;
	}
	summarize(r);
	aa_noise(r);
	choose_margin(r);
	cell_floors(r);

	/* every mode against the baseline, per cell, adjusted within its family */
	r->cmp = xcalloc(a->nmodes * a->ncells, sizeof(*r->cmp));
	for (size_t c = 0; c < a->ncells; c++)
		for (size_t m = 0; m < a->nmodes; m++)
			if (m != r->baseline)
				compare(r, m, r->baseline, c, rng, &r->cmp[r->ncmp++]);
	adjust_families(r, r->cmp, r->ncmp, 0);

	/* A/A copies against their originals: the false-positive rate of this design, in a
	 * family of their own */
	for (size_t i = 0; i < r->naa; i++) {
		struct rep_aa *q = &r->aa[i];
		r->aacmp = xrealloc(r->aacmp, (r->naacmp + a->ncells) * sizeof(*r->aacmp));
		for (size_t c = 0; c < a->ncells; c++)
			compare(r, q->mode, q->of, c, rng, &r->aacmp[r->naacmp++]);
	}
	adjust_families(r, r->aacmp, r->naacmp, 1);
	for (size_t i = 0, start = 0; i < r->naa; i++, start += a->ncells) {
		struct rep_aa *q = &r->aa[i];
		for (size_t k = start; k < start + a->ncells; k++)
			if (r->aacmp[k].ok) {
				q->cells++;
				q->false_positives += r->aacmp[k].c.verdict == VERDICT_FASTER ||
						      r->aacmp[k].c.verdict == VERDICT_SLOWER;
			}
	}
	aggregates(r, rng);
	pareto(r, rng);
	drift(r);
	report_devices(r);
	report_composition(r, rng);
	report_host_bound(r);
	report_choices(r);
	report_progress(r);
	sample_size_warnings(r);
	gsl_rng_free(rng);
	*out = r;
	return 0;
}

void report_free(struct report *r)
{
	if (!r)
		return;
	free(r->sum);
	free(r->floor);
	free(r->floor_s);
	free(r->floor_src);
	free(r->cmp);
	free(r->aacmp);
	for (size_t i = 0; i < r->nagg; i++)
		free(r->agg[i].scope);
	free(r->agg);
	free(r->front);
	for (size_t i = 0; i < r->ndrift; i++) {
		free(r->drift[i].order);
		free(r->drift[i].level);
	}
	free(r->drift);
	report_devices_free(r);
	free(r->aa);
	for (size_t i = 0; i < r->ncomp; i++)
		free(r->comp[i].workload);
	free(r->comp);
	for (size_t i = 0; i < r->ntau; i++) {
		free(r->tau[i].workload);
		free(r->tau[i].why);
	}
	free(r->tau);
	report_choices_free(r);
	report_progress_free(r);
	for (size_t i = 0; i < r->nwarnings; i++)
		free(r->warnings[i]);
	free(r->warnings);
	free(r);
}
