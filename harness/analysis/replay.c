/* replay.c: tuners re-run on one unit's recorded trials (see replay.h) */
#include "config.h"
#include "harness/analysis/replay-int.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/util.h"
#include "harness/config/experiment.h"
#include "harness/config/lut.h"
#include "harness/record/recorder.h"
#include "kernels/sample.h"
#include "harness/record/train.h"
#include "kernels/tune.h"
#include "kernels/tuner.h"
#include "stats/stats.h"

/* SplitMix64, for the noise draws. */
static uint64_t rnext(uint64_t *st)
{
	uint64_t z = (*st += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

int rcell_trial(void *ctx, const struct config *c, int64_t n, struct tune_trial *out,
		       char **cause)
{
	struct rcell *rc = ctx;
	size_t idx;
	if (c->vendor || space_point_find(&rc->s, c, &idx) || !rc->pts[idx].measured) {
		/* the documented penalty: a config the source never measured fails */
		rc->unmeasured++;
		out->status = TRIAL_FAILED;
		return 0;
	}
	const struct rpoint *p = &rc->pts[idx];
	out->status = p->status;
	out->compile_ns = p->compile_ns;
	if (p->status != TRIAL_OK || n <= 0 || !p->n)
		return 0;
	out->bench_ns = p->bench_ns;
	out->samples = xcalloc(p->n, sizeof(*out->samples));
	for (size_t k = 0; k < p->n; k++) {
		out->samples[k] = (struct sample)SAMPLE_INIT;
		size_t j = rc->noise ? (size_t)(rnext(&rc->noise_rng) % p->n) : k;
		out->samples[k].ns = p->ns[j];
	}
	out->nsamples = p->n;
	if (rc->objective == REPLAY_SOURCE) {
		out->samples[0].ns = llround(p->median); /* the stored value, as it is */
		out->nsamples = 1;
	} else if (rc->objective != REPLAY_MEDIAN) {
		/* the tuner sees the objective's value (of the redrawn samples, with --noise)
		 * as the trial's one sample: the driver's median of it is the value itself */
		int64_t *ns = xcalloc(p->n, sizeof(*ns));
		for (size_t k = 0; k < p->n; k++)
			ns[k] = out->samples[k].ns;
		out->samples[0].ns = llround(rcell_objective(rc->objective, ns, p->n));
		out->nsamples = 1;
		free(ns);
	}
	return 0;
}

/* Best-so-far: the recorded median of the config with the lowest observed median (a tuner
 * that does not benchmark, heuristic or lut, observes none: its ok config counts with its
 * recorded median). */
int rcell_record(void *ctx, const struct config *c, const struct tune_trial *t,
			double median_ns, char **cause)
{
	struct rcell *rc = ctx;
	size_t idx;
	int at = !c->vendor && !space_point_find(&rc->s, c, &idx);
	if (t->status == TRIAL_OK && !isfinite(median_ns) && !t->nsamples && at &&
	    rc->pts[idx].measured)
		median_ns = rc->pts[idx].median;
	if (t->status == TRIAL_OK && isfinite(median_ns) && median_ns < rc->obs_best && at) {
		rc->obs_best = median_ns;
		rc->true_best = rc->pts[idx].median;
	}
	if (rc->t < rc->budget && rc->curve)
		rc->curve[rc->t] = isfinite(rc->true_best) ? rc->true_best : rc->worst;
	if (rc->t < rc->budget && rc->tcurve) {
		/* the methodology's clock: a point's recorded time, once */
		if (at && !rc->seen[idx] && isfinite(rc->pts[idx].time_s)) {
			rc->tcum += rc->pts[idx].time_s;
			rc->seen[idx] = 1;
		}
		rc->tcurve[rc->t] = rc->tcum;
		rc->fcurve[rc->t] = rc->true_best;
	}
	rc->t++;
	return 0;
}

const char *replay_objective_name(enum replay_objective k)
{
	return k == REPLAY_MEAN ? "mean" : k == REPLAY_MIN ? "min" : k == REPLAY_SOURCE ? "source"
											 : "median";
}

double replay_expected_min(const double *v, size_t n, size_t t)
{
	if (!n || !t)
		return NAN;
	if (t >= n)
		return v[0];
	/* P(the minimum is v_i) = C(n-i-1, t-1) / C(n, t), computed in logs */
	double lc = lgamma((double)n + 1) - lgamma((double)t + 1) - lgamma((double)(n - t) + 1);
	double e = 0;
	for (size_t i = 0; i + t <= n; i++) {
		size_t m = n - i - 1;
		double lp = lgamma((double)m + 1) - lgamma((double)t) -
			    lgamma((double)(m - (t - 1)) + 1) - lc;
		e += v[i] * exp(lp);
	}
	return e;
}

static int cmp_d(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

static double median_of(double *x, size_t n)
{
	qsort(x, n, sizeof(*x), cmp_d);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

void replay_free(struct replay *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nrows; i++) {
		struct replay_row *w = &r->rows[i];
		free(w->tuner);
		free(w->cell);
		free(w->score_mean);
		free(w->score_med);
		free(w->score_lo);
		free(w->score_hi);
		free(w->random_ns);
		free(w->seed_best_ns);
		free(w->config);
		free(w->m.why);
		free(w->m.seed_score);
		free(w->m.curve);
		free(w->m.baseline);
		free(w->m.time_range);
	}
	free(r->rows);
	free(r->agg);
	for (size_t i = 0; i < r->nleft_out; i++)
		free(r->left_out[i]);
	free(r->left_out);
	free(r->path);
	free(r->start);
	free(r->source_mode);
	free(r);
}

static void rtuner_release(struct rtuner *t)
{
	for (size_t i = 0; i < t->nopts; i++)
		tuner_option_release(&t->opts[i]);
	free(t->opts);
	if (t->lut)
		tuner_lut_release(t->lut);
	free(t->lut);
	if (t->train)
		tuner_train_release(t->train);
	free(t->train);
	free(t->label);
	memset(t, 0, sizeof(*t));
}

static void option_copy(struct tuner_option *dst, const struct tuner_option *src)
{
	*dst = *src;
	dst->key = src->key ? xstrdup(src->key) : NULL;
	dst->s = src->s ? xstrdup(src->s) : NULL;
	dst->items = src->nitems ? xcalloc(src->nitems, sizeof(*dst->items)) : NULL;
	for (size_t i = 0; i < src->nitems; i++)
		option_copy(&dst->items[i], &src->items[i]);
}

/* The experiment meta records (its first file of role "experiment", with the run's -D,
 * --mode and --workload) into *e (owned by the caller; NULL: none recorded); -1 with *cause
 * (heap) when it does not parse. */
static int recorded_experiment(const struct rec_meta *meta, struct experiment **e, char **cause)
{
	*e = NULL;
	for (size_t i = 0; i < meta->nfiles && !*e; i++) {
		if (strcmp(meta->files[i].role, "experiment"))
			continue;
		struct exp_edits ed;
		int bad = exp_edits_from_json(rec_meta_get(meta, "overrides"),
					      rec_meta_get(meta, "mode_filter"),
					      rec_meta_get(meta, "workload_filter"), &ed, cause) ||
			  experiment_parse_edits(meta->files[i].path, meta->files[i].text,
						 meta->files[i].len, EXPERIMENT_NO_FILE_CHECKS |
						 EXPERIMENT_PAST_RUN, &ed, e, cause);
		exp_edits_release(&ed);
		if (bad) {
			experiment_free(*e);
			*e = NULL;
			return -1;
		}
	}
	return 0;
}

/* Whether unit row u ran the exhaustive tuner to its end (by the recorded experiment's mode:
 * none of the options that cut a walk, exhaustive's max_configs and field_values or every
 * tuner's max_trials and max_seconds; the unit ok): then its trials in a cell are the
 * cell's every valid point. */
static int walked_all(const struct rec_meta *meta, const struct rec_unit *u)
{
	static const char *const cuts[] = { "max_configs", "field_values", "max_trials",
					    "max_seconds" };
	struct experiment *e = NULL;
	char *cause = NULL;
	int r = 0;
	if (!strcmp(u->status, REC_STATUS_OK) && !recorded_experiment(meta, &e, &cause) && e) {
		const struct mode *m = experiment_mode(e, u->mode);
		r = m && m->tuner && !strcmp(m->tuner, "exhaustive");
		for (size_t i = 0; r && i < m->noptions; i++)
			for (size_t k = 0; r && k < ARRAY_SIZE(cuts); k++)
				r = strcmp(m->options[i].key, cuts[k]) != 0;
	}
	free(cause);
	experiment_free(e);
	return r;
}

/* "NAME", "NAME:K=V:K=V" or "mode:MODE" (the recorded experiment in meta) into *t.
 * Reports and returns -1. */
static int rtuner_parse(const char *spec, const struct rec_meta *meta, struct rtuner *t)
{
	char *copy = xstrdup(spec), *colon = strchr(copy, ':');
	int ret = -1;
	memset(t, 0, sizeof(*t));
	t->label = xstrdup(spec);
	if (colon)
		*colon = '\0';
	if (!strcmp(copy, "mode")) {
		const char *want = colon ? colon + 1 : "";
		struct experiment *e = NULL;
		char *cause = NULL;
		if (recorded_experiment(meta, &e, &cause)) {
			error("--tuners '%s': the recorded experiment does not parse: %s", spec,
			      cause);
			free(cause);
			goto done;
		}
		const struct mode *m = e ? experiment_mode(e, want) : NULL;
		if (!m) {
			error("--tuners '%s': %s", spec, e ? "no such mode in the recorded experiment"
						     : "the file records no experiment");
			experiment_free(e);
			goto done;
		}
		t->ops = tuner_find(m->tuner);
		if (!t->ops) {
			error("--tuners '%s': mode '%s' runs tuner '%s', which this build lacks", spec,
			      want, m->tuner);
			experiment_free(e);
			goto done;
		}
		t->nopts = m->noptions;
		t->opts = xcalloc(t->nopts ? t->nopts : 1, sizeof(*t->opts));
		for (size_t i = 0; i < t->nopts; i++)
			option_copy(&t->opts[i], &m->options[i]);
		experiment_free(e);
	} else {
		t->ops = tuner_find(copy);
		if (!t->ops) {
			struct sbuf sb;
			sbuf_init(&sb);
			for (size_t i = 0; tuner_table[i]; i++)
				sbuf_addf(&sb, "%s%s", i ? ", " : "", tuner_table[i]->name);
			error("unknown tuner '%s' (tuners: %s; or mode:MODE)", copy, sb.buf);
			sbuf_release(&sb);
			goto done;
		}
		for (char *item = colon ? colon + 1 : NULL, *next; item; item = next) {
			next = strchr(item, ':');
			if (next)
				*next++ = '\0';
			char *eq = strchr(item, '=');
			if (!eq || eq == item) {
				error("--tuners '%s': '%s' is not KEY=VALUE", spec, item);
				goto done;
			}
			*eq = '\0';
			t->opts = xrealloc(t->opts, (t->nopts + 1) * sizeof(*t->opts));
			struct tuner_option *o = &t->opts[t->nopts++];
			memset(o, 0, sizeof(*o));
			o->key = xstrdup(item);
			o->line = 1;
			o->col = (int)(item - copy) + 1;
			const char *v = eq + 1;
			char *end = NULL;
			if (!strcmp(v, "true") || !strcmp(v, "false")) {
				o->type = TUNER_OPT_BOOL;
				o->i = !strcmp(v, "true");
			} else if (!parse_i64(v, INT64_MIN, INT64_MAX, &o->i)) {
				o->type = TUNER_OPT_INT;
				o->f = (double)o->i;
			} else if (*v && (o->f = strtod(v, &end), end && !*end)) {
				o->type = TUNER_OPT_FLOAT;
			} else {
				o->type = TUNER_OPT_STRING;
				o->s = xstrdup(v);
			}
		}
	}
	if (t->ops->check_options) {
		struct tuner_check c = { .options = t->opts, .noptions = t->nopts };
		char *cause = NULL;
		if (t->ops->check_options(&c, &cause)) {
			error("--tuners '%s': %s", spec, cause ? cause : "invalid options");
			free(cause);
			goto done;
		}
	}
	const struct tuner_option *tab = tuner_option_find(t->opts, t->nopts, "table");
	if (!strcmp(t->ops->name, "lut")) {
		if (!tab || tab->type != TUNER_OPT_STRING) {
			error("--tuners '%s': the lut tuner needs table=FILE", spec);
			goto done;
		}
		t->lut = xcalloc(1, sizeof(*t->lut));
		if (lut_read(tab->s, tab->s, t->lut)) {
			error("--tuners '%s': %s", spec, t->lut->error);
			goto done;
		}
	}
	const struct tuner_option *tr = tuner_option_find(t->opts, t->nopts, "train");
	if (!strcmp(t->ops->name, "model-topk") && tr) {
		/* the training files as named (relative to the current folder) */
		t->train = xcalloc(1, sizeof(*t->train));
		size_t n = tr->type == TUNER_OPT_LIST ? tr->nitems : 1;
		for (size_t k = 0; k < n; k++) {
			const char *file = tr->type == TUNER_OPT_LIST ? tr->items[k].s : tr->s;
			if (rec_train_read(file, t->train)) {
				error("--tuners '%s': cannot read training file '%s'", spec, file);
				goto done;
			}
		}
	}
	ret = 0;
done:
	free(copy);
	if (ret)
		rtuner_release(t);
	return ret;
}

/* Leave op cell `cell` out of the replay, saying why in the replay, and on stderr when warn
 * (recorded data replay cannot use; not a cell without ok trials, which has none). */
static void left_out(struct replay *r, const char *cell, int warn, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void left_out(struct replay *r, const char *cell, int warn, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *why = xvasprintf(fmt, ap);
	va_end(ap);
	r->left_out = xrealloc(r->left_out, (r->nleft_out + 1) * sizeof(*r->left_out));
	r->left_out[r->nleft_out++] = xasprintf("%s: %s", cell, why);
	if (warn)
		warning("'%s': op cell '%s' left out of the replay: %s", r->path, cell, why);
	free(why);
}

/* A tuning of rc begins with seed `seed` (the run's seed + k) of cell row cell_idx: the
 * noise draws, the start when it is drawn per seed, an empty best-so-far. */
static void seed_begin(struct rcell *rc, int noise, uint64_t seed, size_t cell_idx)
{
	rc->noise = noise;
	rc->noise_rng = seed * 0x2545f4914f6cdd1dULL + cell_idx;
	if (rc->random_start) {
		uint64_t st = seed * 0x9e3779b97f4a7c15ULL ^ (cell_idx + 1);
		rc->start = rc->points[rnext(&st) % rc->npoints];
	}
	rc->obs_best = INFINITY;
	rc->true_best = NAN;
	rc->t = 0;
}

/* One tuner on one cell over the seeds: a row.  0, or -1 reported when the tuner itself
 * failed (tune_result.failed: an external tuner's command died or broke its protocol),
 * which stops the replay; a tuner that cannot tune the cell only says so in the row. */
static int replay_cell(struct rcell *rc, const struct rtuner *rt, const struct tuner_cell *id,
			const struct replay_opts *o, uint64_t base_seed, size_t cell_idx,
			const double *ok_sorted, size_t nok, size_t nvalid, struct replay_row *w)
{
	size_t B = (size_t)rc->budget, S = o->seeds;
	double *curves = xcalloc(B * S, sizeof(*curves));
	double *ratio = xcalloc(S, sizeof(*ratio)), *spent = xcalloc(S, sizeof(*spent));
	double *col = xcalloc(S, sizeof(*col));
	w->score_mean = xcalloc(B, sizeof(double));
	w->score_med = xcalloc(B, sizeof(double));
	w->score_lo = xcalloc(B, sizeof(double));
	w->score_hi = xcalloc(B, sizeof(double));
	w->random_ns = xcalloc(B, sizeof(double));
	w->best_ns = ok_sorted[0];
	/* Random search's expectation over what it draws from: every valid point, one not ok
	 * (failed, never measured) at the slowest ok median, where a curve starts */
	size_t nv = nvalid > nok ? nvalid : nok;
	double *vals = xmalloc(nv * sizeof(*vals));
	memcpy(vals, ok_sorted, nok * sizeof(*vals));
	for (size_t k = nok; k < nv; k++)
		vals[k] = rc->worst;
	for (size_t t = 0; t < B; t++)
		w->random_ns[t] = replay_expected_min(vals, nv, t + 1);
	free(vals);
	rc->curve = xcalloc(B, sizeof(double));
	for (size_t k = 0; k < S; k++) {
		struct tuner_args a = { .space = &rc->s, .cell = id, .seed = (base_seed + k) ^ cell_idx,
					.options = rt->opts, .noptions = rt->nopts, .lut = rt->lut,
					.train = rt->train,
					.budget_trials = o->budget_trials, .budget_ns = o->budget_ns };
		struct tune_measurer m = { .ctx = rc, .trial = rcell_trial, .record = rcell_record };
		struct tune_result res;
		char *cause = NULL;
		seed_begin(rc, o->noise, base_seed + k, cell_idx);
		double ratio_k = NAN;
		if (!tune_cell(rt->ops, &a, 1, &m, &res, &cause)) {
			size_t idx;
			if (!res.best.vendor && !space_point_find(&rc->s, &res.best, &idx) &&
			    rc->pts[idx].measured)
				ratio_k = rc->pts[idx].median / w->best_ns;
			if (k == 0) {
				struct sbuf sb;
				sbuf_init(&sb);
				if (res.reason == TUNE_NONE || res.reason == TUNE_FALLBACK_VENDOR)
					sbuf_adds(&sb, "(none)");
				else
					config_format(&rc->s, &res.best, &sb);
				w->config = sbuf_detach(&sb);
			}
		} else if (res.failed) {
			error("--tuners '%s': cell '%s', seed %zu: %s", rt->label, id->name, k, cause);
			free(cause);
			free(curves);
			free(ratio);
			free(spent);
			free(col);
			free(rc->curve);
			rc->curve = NULL;
			return -1;
		} else if (k == 0) {
			w->config = xasprintf("(error: %s)", cause);
		}
		free(cause);
		ratio[k] = isfinite(ratio_k) ? ratio_k : INFINITY;
		spent[k] = (double)rc->t;
		double last = rc->worst;
		for (size_t t = 0; t < B; t++) {
			if ((int64_t)t < rc->t)
				last = rc->curve[t];
			curves[k * B + t] = last;
		}
	}
	/* Over seeds, the mean with Student's t 95% CI (stats_t_test): the score is linear in
	 * the best-so-far, so random search's mean is 0 in expectation (its skewed median is
	 * not).  One seed: the point. */
	for (size_t t = 0; t < B; t++) {
		double R = w->random_ns[t];
		for (size_t k = 0; k < S; k++) {
			double v = curves[k * B + t];
			col[k] = R - w->best_ns > 0 ? (R - v) / (R - w->best_ns) : (v <= w->best_ns);
		}
		struct stats_ttest tt = { .est = col[0], .lo = col[0], .hi = col[0] };
		char *why = NULL;
		if (S > 1 && stats_t_test(col, S, 0.95, &tt, &why))
			free(why); /* scores are finite: not reached */
		w->score_mean[t] = tt.est;
		w->score_lo[t] = tt.lo;
		w->score_hi[t] = tt.hi;
		w->score_med[t] = median_of(col, S);
	}
	w->seed_best_ns = curves; /* the per-seed trajectories, kept whole */
	curves = NULL;
	w->to95 = -1;
	for (size_t t = 0; t < B && w->to95 < 0; t++)
		if (w->score_mean[t] >= 0.95)
			w->to95 = (int64_t)t + 1;
	w->ratio_med = median_of(ratio, S);
	w->trials_med = median_of(spent, S);
	w->unmeasured = rc->unmeasured;
	free(rc->curve);
	rc->curve = NULL;
	free(curves);
	free(ratio);
	free(spent);
	free(col);
	return 0;
}

/* Autotuning-methodology's score of one tuner on one cell (replay-method.c): each seed run
 * with the range's budget, its trajectory on the methodology's clock; the pooled score and
 * each seed's alone. */
static void method_cell(struct rcell *rc, const struct rmethod *m, const struct rtuner *rt,
			const struct tuner_cell *id, const struct replay_opts *o,
			uint64_t base_seed, size_t cell_idx, struct replay_method *w)
{
	size_t S = o->seeds, B = (size_t)m->budget;
	double **t = xcalloc(S, sizeof(*t)), **y = xcalloc(S, sizeof(*y));
	char *failed = NULL; /* the first seed's failure (heap; w->why takes it) */
	size_t *n = xcalloc(S, sizeof(*n));
	w->fevals_start = m->fevals_start;
	w->fevals_end = m->fevals_end;
	w->budget = m->budget;
	w->time_start = m->time_start;
	w->time_end = m->time_end;
	w->t_med = m->t_med;
	w->t_pf = m->t_pf;
	w->opt = m->opt;
	w->median = m->median;
	w->res = m->res;
	w->curve = xcalloc(m->res, sizeof(double));
	w->baseline = xmalloc(m->res * sizeof(double));
	w->time_range = xmalloc(m->res * sizeof(double));
	memcpy(w->baseline, m->baseline, m->res * sizeof(double));
	memcpy(w->time_range, m->time_range, m->res * sizeof(double));
	w->seed_score = xcalloc(S, sizeof(double));
	rc->seen = xcalloc(rc->npoints + 1, 1);
	rc->budget = m->budget;
	for (size_t k = 0; k < S; k++) {
		struct tuner_args a = { .space = &rc->s, .cell = id, .seed = (base_seed + k) ^ cell_idx,
					.options = rt->opts, .noptions = rt->nopts, .lut = rt->lut,
					.train = rt->train, .budget_trials = m->budget };
		struct tune_measurer ms = { .ctx = rc, .trial = rcell_trial, .record = rcell_record };
		struct tune_result res;
		char *cause = NULL;
		t[k] = rc->tcurve = xcalloc(B, sizeof(double));
		y[k] = rc->fcurve = xcalloc(B, sizeof(double));
		memset(rc->seen, 0, rc->npoints + 1);
		rc->tcum = 0;
		seed_begin(rc, o->noise, base_seed + k, cell_idx);
		if (tune_cell(rt->ops, &a, 1, &ms, &res, &cause) && !failed)
			failed = xasprintf("seed %zu: %s", k, cause ? cause : "the tuning failed");
		free(cause);
		n[k] = (size_t)(rc->t < m->budget ? rc->t : m->budget);
	}
	rc->tcurve = rc->fcurve = NULL;
	free(rc->seen);
	rc->seen = NULL;
	char *why = NULL;
	/* a seed whose tuning failed has no trajectory to score: say why, not "no points" */
	w->ok = !failed && !rmethod_score(m, t, y, n, S, w->curve, &w->score, &why);
	if (!w->ok)
		w->why = failed ? failed : why;
	double *one = xcalloc(m->res, sizeof(double)), *fin = xcalloc(S, sizeof(double));
	size_t nseed = 0;
	for (size_t k = 0; k < S; k++) {
		why = NULL;
		w->seed_score[k] = NAN;
		if (w->ok && rmethod_score(m, &t[k], &y[k], &n[k], 1, one, &w->seed_score[k], &why))
			free(why); /* a seed with too few points in range: NaN, out of the spread */
		else if (w->ok)
			fin[nseed++] = w->seed_score[k];
	}
	struct stats_ttest tt = { .est = NAN, .lo = NAN, .hi = NAN };
	if (nseed == 1)
		tt.est = tt.lo = tt.hi = fin[0];
	else if (nseed > 1 && stats_t_test(fin, nseed, 0.95, &tt, &why))
		free(why);
	free(fin);
	w->seed_mean = tt.est;
	w->seed_lo = tt.lo;
	w->seed_hi = tt.hi;
	free(one);
	for (size_t k = 0; k < S; k++) {
		free(t[k]);
		free(y[k]);
	}
	free(t);
	free(y);
	free(n);
}

int replay_run(const char *path, const struct replay_opts *o, struct replay **out)
{
	struct rec *f = NULL;
	struct rec_meta meta;
	struct rec_unit *units = NULL;
	struct rec_cell *cells = NULL;
	int64_t *tunit = NULL, *cunit = NULL, *sunit = NULL;
	struct rec_trial *trials = NULL;
	struct rec_choice *choices = NULL;
	struct rec_trial_sample *ts = NULL;
	struct rec_spaces sp;
	size_t nunits = 0, ncells = 0, ntrials = 0, nchoices = 0, nts = 0;
	int64_t *ts_ns = NULL;
	size_t *ts_off = NULL, *ts_cnt = NULL;
	struct replay *r = NULL;
	int ret = -1;

	struct rtuner *rt = xcalloc(o->ntuners ? o->ntuners : 1, sizeof(*rt));
	size_t nrt = 0;
	rec_meta_init(&meta);
	memset(&sp, 0, sizeof(sp));
	*out = NULL;
	if (rec_open(path, 0, &f) || rec_read_meta(f, &meta))
		goto done;
	for (; nrt < o->ntuners; nrt++)
		if (rtuner_parse(o->tuners[nrt], &meta, &rt[nrt]))
			goto done;
	if (rec_read_units(f, &units, &nunits) ||
	    rec_read_cells(f, &cells, &ncells) || rec_read_trials(f, &tunit, &trials, &ntrials) ||
	    rec_read_choices(f, &cunit, &choices, &nchoices) ||
	    rec_read_trial_samples(f, &sunit, &ts, &nts) || rec_read_spaces(f, &sp))
		goto done;

	/* the source unit */
	size_t *per = xcalloc(nunits ? nunits : 1, sizeof(*per));
	for (size_t i = 0; i < ntrials; i++)
		if (tunit[i] >= 0 && (size_t)tunit[i] < nunits)
			per[tunit[i]]++;
	long u = -1;
	for (size_t i = 0; i < nunits; i++) {
		if (o->unit >= 0) {
			if (units[i].id == o->unit)
				u = (long)i;
			continue;
		}
		if (!strcmp(units[i].status, REC_STATUS_OK) && !units[i].warm &&
		    (u < 0 || per[i] > per[u]))
			u = (long)i;
	}
	free(per);
	if (u < 0 || (o->unit < 0 && !ntrials)) {
		if (o->unit >= 0)
			error("'%s': no unit %ld", path, o->unit);
		else
			error("'%s': no ok unit with recorded trials to replay", path);
		goto done;
	}
	/* every trial's samples, in trial order */
	ts_off = xcalloc(ntrials + 1, sizeof(*ts_off));
	ts_cnt = xcalloc(ntrials + 1, sizeof(*ts_cnt));
	ts_ns = xcalloc(nts ? nts : 1, sizeof(*ts_ns));
	for (size_t i = 0; i < nts; i++)
		if (ts[i].trial >= 0 && (size_t)ts[i].trial < ntrials)
			ts_cnt[ts[i].trial]++;
	for (size_t i = 0, acc = 0; i < ntrials; i++) {
		ts_off[i] = acc;
		acc += ts_cnt[i];
		ts_cnt[i] = 0;
	}
	for (size_t i = 0; i < nts; i++)
		if (ts[i].trial >= 0 && (size_t)ts[i].trial < ntrials) {
			size_t t = (size_t)ts[i].trial;
			ts_ns[ts_off[t] + ts_cnt[t]++] = sample_exec_ns(ts[i].ns, ts[i].launches);
		}

	uint64_t base_seed = 0;
	const char *seed_text = rec_meta_get(&meta, "seed");
	int64_t sv;
	if (seed_text && !parse_i64(seed_text, INT64_MIN, INT64_MAX, &sv))
		base_seed = (uint64_t)sv;

	r = xcalloc(1, sizeof(*r));
	r->path = xstrdup(path);
	r->unit = units[u].id;
	r->source_mode = xstrdup(units[u].mode);
	r->budget = o->budget_trials;
	r->budget_ns = o->budget_ns;
	const int all = walked_all(&meta, &units[u]);
	if (!r->budget) {
		/* a seconds budget: curves as long as the largest cell's valid points (an
		 * exhaustive unit's trials in a cell whose grid the file could not enumerate) */
		for (size_t si = 0; si < sp.nspaces; si++) {
			if (sp.space_unit[si] != u)
				continue;
			int64_t n = sp.spaces[si].nvalid;
			const int over = !sp.spaces[si].listed && rspace_unrecorded(&sp.spaces[si]);
			if (over && all) {
				n = 0;
				for (size_t k = 0; k < ntrials; k++)
					n += tunit[k] == (int64_t)u &&
					     trials[k].cell == sp.spaces[si].cell &&
					     strncmp(trials[k].config, "vendor", 6);
			} else if (over) {
				continue;
			}
			if (n > r->budget)
				r->budget = n;
		}
		if (!r->budget)
			r->budget = 1;
	}
	r->seeds = o->seeds;
	r->noise = o->noise;
	r->start = xstrdup(o->start && *o->start ? o->start : "heuristic");
	r->objective = o->objective;
	r->methodology = o->methodology;
	r->p_end = o->p_end;
	r->p_start = o->p_start;
	r->res = o->res;
	struct rsource src = { .path = path, .unit = u, .cells = cells, .ncells = ncells,
			       .tunit = tunit, .trials = trials, .ntrials = ntrials,
			       .ts_ns = ts_ns, .ts_off = ts_off, .ts_cnt = ts_cnt,
			       .choices = choices, .nchoices = nchoices, .sp = &sp,
			       .walked_all = all };
	size_t cap = 0;
	for (size_t si = 0; si < sp.nspaces; si++) {
		if (sp.space_unit[si] != u)
			continue;
		int64_t c = sp.spaces[si].cell;
		if (c < 0 || (size_t)c >= ncells || (sp.spaces[si].grid == 0 && !sp.spaces[si].listed))
			continue;
		struct rcell rc;
		char *why = NULL;
		int warn = 0, built = rcell_build(&src, si, r->start, o->objective, &rc, &why, &warn);
		if (built) {
			if (built > 0)
				left_out(r, cells[c].name, warn, "%s", why);
			free(why);
			rcell_release(&rc);
			if (built < 0)
				goto done;
			continue;
		}
		struct tuner_cell id = { .name = cells[c].name, .op = cells[c].op,
					 .shape = cells[c].shape };
		struct rmethod m;
		char *mwhy = NULL;
		int have_m = o->methodology &&
			     !rmethod_cell(&rc, o->p_end, o->p_start, o->res, &m, &mwhy);
		for (size_t tk = 0; tk < o->ntuners; tk++) {
			XGROW(r->rows, cap, r->nrows + 1);
			struct replay_row *w = &r->rows[r->nrows++];
			memset(w, 0, sizeof(*w));
			w->tuner = xstrdup(rt[tk].label);
			w->cell = xstrdup(cells[c].name);
			w->nvalid = rc.npoints;
			w->nmeasured = rc.nok;
			rc.unmeasured = 0;
			rc.budget = r->budget;
			if (replay_cell(&rc, &rt[tk], &id, o, base_seed, (size_t)c, rc.ok, rc.nok,
					rc.npoints, w)) {
				if (have_m)
					rmethod_release(&m);
				free(mwhy);
				rcell_release(&rc);
				goto done;
			}
			if (have_m)
				method_cell(&rc, &m, &rt[tk], &id, o, base_seed, (size_t)c, &w->m);
			else if (o->methodology)
				w->m.why = xstrdup(mwhy);
		}
		if (o->methodology)
			rmethod_release(&m); /* filled in part when it failed */
		free(mwhy);
		rcell_release(&rc);
	}
	if (!r->nrows) {
		error("'%s': unit %" PRId64 " has no op cell with a recorded space and ok trials",
		      path, r->unit);
		goto done;
	}
	replay_aggregate(r);
	*out = r;
	r = NULL;
	ret = 0;
done:
	for (size_t k = 0; k < nrt; k++)
		rtuner_release(&rt[k]);
	free(rt);
	replay_free(r);
	free(ts_ns);
	free(ts_off);
	free(ts_cnt);
	rec_spaces_release(&sp);
	free(sunit);
	free(ts);
	rec_choices_free(cunit, choices, nchoices);
	rec_trials_free(tunit, trials, ntrials);
	rec_cells_free(cells, ncells);
	rec_units_free(units, nunits);
	rec_meta_release(&meta);
	if (f && rec_close(f))
		ret = -1;
	return ret;
}
