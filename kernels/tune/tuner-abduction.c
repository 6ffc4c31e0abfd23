/* tuner-abduction.c: the "abduction" tuner, the seed study's three versions (its rules are
 * in docs/kernels.md, precisely enough to re-implement; this comment is a summary):
 *
 * v1 (version = 1): coordinate descent over a hand-authored static transition graph between
 *   fields (option graph = { BM = ["BK", "num_warps"], ... }).  A round measures every
 *   single-field move (radius 1) of the incumbent along the round's fields, then moves to
 *   the fastest if it beats the incumbent by the threshold; the next round's fields are the
 *   moved field's graph edges (when it has any), else every field in field_order; a round
 *   along edges that finds nothing is followed by a round over every field; a round over
 *   every field that finds nothing ends the search.
 * v2 (version = 2): the same graph and rounds, but the first move that beats the incumbent
 *   by the threshold is taken at once (the round restarts from the new incumbent).
 * v3 (version = 3): typed hypotheses per field and direction (FIELD_BOUND up and down) and
 *   NEAR_OPT, with multiplicative likelihoods updated from each (before, after, field)
 *   observation; the next experiment is the untried move of the most likely hypothesis;
 *   a move is accepted only on composed evidence: its first measurement beats the
 *   incumbent by min_effect, and after confirm paired re-measurements the median of its
 *   measurements still does.
 * Every version starts from the heuristic's point, skips invalid points, never re-measures
 * a config to explore (it compares a config met again with its first median), and never
 * chooses a config whose trial was not ok. */
#include "config.h"
#include "kernels/tune/tuner-int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

extern const struct tuner_ops tuner_abduction;

#define AB_QUEUE 64
#define AB_REPS 16
#define AB_LMIN 0.05
#define AB_LMAX 20.0

struct reps {
	struct config c;
	double ms[AB_REPS]; /* every ok median of c, in order (first = the one explored on) */
	size_t n;
	int ok;             /* the first trial was ok */
};

struct tuner {
	const struct space *space;
	int version;
	double threshold, min_effect, scale;
	int64_t confirm;
	size_t order[SPACE_MAX_FIELDS], norder;
	int64_t limit[SPACE_MAX_FIELDS];
	size_t graph[SPACE_MAX_FIELDS][SPACE_MAX_FIELDS];
	size_t ngraph[SPACE_MAX_FIELDS];
	struct reps *seen;
	size_t nseen, capseen;
	struct config queue[AB_QUEUE];
	size_t nq, qi;
	int started, done, have_best;
	struct config best;
	/* v1 and v2: the round's fields (Q) and whether it is every field */
	size_t q[SPACE_MAX_FIELDS], nq_fields;
	int q_all;
	int round_open;                 /* v1: the round's candidates were queued */
	struct config round[2 * SPACE_MAX_FIELDS];
	size_t nround;
	size_t fi, ni, nneigh;          /* v2: position in Q and in the field's neighbours */
	int64_t neigh[2];
	/* v3 */
	double w[SPACE_MAX_FIELDS][2], w0;
	int confirming, probing;
	struct config probe;
	size_t probe_f;
	int probe_d;
};

/* graph: a table of field = [fields it leads to], every name a field of the space. */
static int ab_check_graph(const struct tuner_option *o, const struct tuner_check *c, char **cause)
{
	if (o->type != TUNER_OPT_TABLE) {
		*cause = xasprintf("%d:%d: 'graph' must be a table of field = [fields it "
				   "leads to], not %s", o->line, o->col,
				   tuner_option_type_phrase(o->type));
		return -1;
	}
	if (tuner_check_field_option(o, c, cause))
		return -1;
	for (size_t k = 0; k < o->nitems; k++) {
		const struct tuner_option *e = &o->items[k];
		if (e->type != TUNER_OPT_LIST) {
			*cause = xasprintf("%d:%d: 'graph': the edges of field '%s' must "
					   "be a list of field names, not %s", e->line,
					   e->col, e->key,
					   tuner_option_type_phrase(e->type));
			return -1;
		}
		struct tuner_option named = *e;
		named.key = o->key; /* messages name 'graph' */
		if (tuner_check_field_option(&named, c, cause))
			return -1;
	}
	return 0;
}

static int ab_check_options(const struct tuner_check *c, char **cause)
{
	static const struct tuner_rule rules[] = {
		{ "version", RULE_INT, 1, 3, NULL },
		{ "graph", RULE_CUSTOM, 0, 0, ab_check_graph },
		{ "threshold", RULE_FLOAT, 0, 0.99, NULL },
		{ "min_effect", RULE_FLOAT, 0, 0.99, NULL },
		{ "confirm", RULE_INT, 1, AB_REPS / 2, NULL },
		{ "evidence_scale", RULE_FLOAT, 1e-6, 10, NULL },
		{ "field_order", RULE_FIELD_ORDER, 0, 0, NULL },
		{ "field_limits", RULE_FIELD_LIMITS, 0, 0, NULL },
		{ NULL },
	};
	return tuner_check_rules(&tuner_abduction, c, rules, cause);
}

static struct reps *seen_find(struct tuner *t, const struct config *c)
{
	for (size_t i = 0; i < t->nseen; i++)
		if (config_equal(t->space, &t->seen[i].c, c))
			return &t->seen[i];
	return NULL;
}

/* The first median of c (INFINITY when not ok); -1 when c was never measured. */
static int first_ns(struct tuner *t, const struct config *c, double *ns)
{
	const struct reps *r = seen_find(t, c);
	if (!r)
		return -1;
	*ns = r->ok && r->n ? r->ms[0] : INFINITY;
	return 0;
}

static double reps_median(const struct reps *r)
{
	double x[AB_REPS];
	size_t n = r->n;
	if (!r->ok || !n)
		return INFINITY;
	memcpy(x, r->ms, n * sizeof(*x));
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && x[j - 1] > x[j]; j--) {
			double tmp = x[j];
			x[j] = x[j - 1];
			x[j - 1] = tmp;
		}
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

static void set_all_fields(struct tuner *t)
{
	memcpy(t->q, t->order, t->norder * sizeof(*t->q));
	t->nq_fields = t->norder;
	t->q_all = 1;
}

/* After a move along field f: Q = f's edges, or every field when it has none. */
static void follow_edges(struct tuner *t, size_t f)
{
	if (!t->ngraph[f]) {
		set_all_fields(t);
		return;
	}
	memcpy(t->q, t->graph[f], t->ngraph[f] * sizeof(*t->q));
	t->nq_fields = t->ngraph[f];
	t->q_all = 0;
}

static struct tuner *ab_alloc(const struct tuner_args *a, char **cause)
{
	struct tuner *t = xcalloc(1, sizeof(*t));
	const struct space *s = a->space;
	t->space = s;
	t->version = (int)tuner_opt_int(a, "version", 3);
	t->threshold = tuner_opt_float(a, "threshold", 0.001);
	t->min_effect = tuner_opt_float(a, "min_effect", 0.05);
	t->confirm = tuner_opt_int(a, "confirm", 2);
	t->scale = tuner_opt_float(a, "evidence_scale", 0.05);
	tuner_field_order(a, t->order, &t->norder);
	tuner_field_limits(a, t->limit);
	const struct tuner_option *g = tuner_option_find(a->options, a->noptions, "graph");
	for (size_t k = 0; g && g->type == TUNER_OPT_TABLE && k < g->nitems; k++) {
		size_t f = space_field_find(s, g->items[k].key);
		if (f >= s->nfields || g->items[k].type != TUNER_OPT_LIST)
			continue;
		for (size_t j = 0; j < g->items[k].nitems; j++) {
			const struct tuner_option *e = &g->items[k].items[j];
			size_t to = e->type == TUNER_OPT_STRING ? space_field_find(s, e->s) : s->nfields;
			if (to < s->nfields && t->ngraph[f] < SPACE_MAX_FIELDS)
				t->graph[f][t->ngraph[f]++] = to;
		}
	}
	for (size_t f = 0; f < SPACE_MAX_FIELDS; f++)
		t->w[f][0] = t->w[f][1] = 1;
	t->w0 = 1;
	set_all_fields(t);
	if (tuner_start_point(s, &t->best))
		t->done = 1;
	(void)cause;
	return t;
}

/* The neighbour of c along f in direction d (0 up, 1 down): 0 and *out, or -1. */
static int step(struct tuner *t, const struct config *c, size_t f, int d, struct config *out)
{
	int64_t v[4];
	size_t n = space_neighbour_values(t->space, f, c->val[f], 1, t->limit[f], 0, v);
	for (size_t k = 0; k < n; k++)
		if ((d == 0 && v[k] > c->val[f]) || (d == 1 && v[k] < c->val[f])) {
			*out = *c;
			out->val[f] = v[k];
			return space_contains(t->space, out) ? 0 : -1;
		}
	return -1;
}

static double best_ns(struct tuner *t)
{
	double ns;
	return first_ns(t, &t->best, &ns) ? INFINITY : ns;
}

static void push(struct tuner *t, const struct config *c)
{
	if (t->nq < AB_QUEUE)
		t->queue[t->nq++] = *c;
}

/* v1: evaluate the finished round (move or widen or stop), then queue the next one. */
static void v1_decide(struct tuner *t)
{
	for (;;) {
		if (t->round_open) {
			t->round_open = 0;
			double inc = best_ns(t), bt = INFINITY;
			size_t bi = t->nround;
			for (size_t k = 0; k < t->nround; k++) {
				double ns;
				if (!first_ns(t, &t->round[k], &ns) && ns < bt) {
					bt = ns;
					bi = k;
				}
			}
			if (bi < t->nround && bt < inc * (1 - t->threshold)) {
				size_t f = 0;
				while (f < t->space->nfields && t->round[bi].val[f] == t->best.val[f])
					f++;
				t->best = t->round[bi];
				follow_edges(t, f);
			} else if (!t->q_all) {
				set_all_fields(t);
			} else {
				t->done = 1;
				return;
			}
		}
		t->nround = 0;
		for (size_t k = 0; k < t->nq_fields; k++)
			for (int d = 0; d < 2; d++) {
				struct config c;
				if (step(t, &t->best, t->q[k], d, &c))
					continue;
				int dup = 0;
				for (size_t j = 0; j < t->nround; j++)
					dup |= config_equal(t->space, &t->round[j], &c);
				if (dup)
					continue;
				t->round[t->nround++] = c;
				if (!seen_find(t, &c))
					push(t, &c);
			}
		t->round_open = 1;
		if (t->nq)
			return;
		/* every candidate known already: evaluate at once */
	}
}

/* v2: walk Q's moves from the incumbent, taking the first that improves. */
static void v2_decide(struct tuner *t)
{
	for (;;) {
		if (t->fi >= t->nq_fields) {
			if (t->q_all) {
				t->done = 1;
				return;
			}
			set_all_fields(t);
			t->fi = 0;
			t->ni = 0;
			t->nneigh = 0;
			continue;
		}
		if (t->ni >= 2) {
			t->fi++;
			t->ni = 0;
			continue;
		}
		size_t f = t->q[t->fi];
		struct config c;
		int d = (int)t->ni++;
		if (step(t, &t->best, f, d, &c))
			continue;
		double ns;
		if (first_ns(t, &c, &ns)) {
			push(t, &c); /* measured, then judged in v2_judge */
			t->probe = c;
			t->probe_f = f;
			t->probing = 1;
			return;
		}
		if (ns < best_ns(t) * (1 - t->threshold)) {
			t->best = c;
			follow_edges(t, f);
			t->fi = 0;
			t->ni = 0;
		}
	}
}

static void v2_judge(struct tuner *t)
{
	double ns;
	t->probing = 0;
	if (!first_ns(t, &t->probe, &ns) && ns < best_ns(t) * (1 - t->threshold)) {
		t->best = t->probe;
		follow_edges(t, t->probe_f);
		t->fi = 0;
		t->ni = 0;
	}
}

/* v3: the likelihood update for the observation (incumbent -> probe along f, d). */
static void v3_update(struct tuner *t, double r)
{
	double L = isfinite(r) ? exp(-r / t->scale) : AB_LMIN;
	L = L < AB_LMIN ? AB_LMIN : L > AB_LMAX ? AB_LMAX : L;
	t->w[t->probe_f][t->probe_d] *= L;
	t->w[t->probe_f][1 - t->probe_d] /= L;
	double n0 = isfinite(r) && r < 0 ? exp(r / t->scale) : 1;
	t->w0 *= n0 < AB_LMIN ? AB_LMIN : n0;
}

static void v3_accept(struct tuner *t)
{
	size_t f = t->probe_f;
	t->best = t->probe;
	t->w[f][0] = t->w[f][1] = 1;
	for (size_t k = 0; k < t->ngraph[f]; k++)
		t->w[t->graph[f][k]][0] = t->w[t->graph[f][k]][1] = 1;
	t->w0 = 1;
}

static void v3_decide(struct tuner *t)
{
	if (t->confirming) {
		/* composed evidence: every measurement of each, medians compared */
		t->confirming = 0;
		const struct reps *ri = seen_find(t, &t->best), *rc = seen_find(t, &t->probe);
		double mi = ri ? reps_median(ri) : INFINITY, mc = rc ? reps_median(rc) : INFINITY;
		if (isfinite(mc) && mc <= (1 - t->min_effect) * mi)
			v3_accept(t);
	} else if (t->probing) {
		t->probing = 0;
		double before = best_ns(t), after;
		if (first_ns(t, &t->probe, &after))
			after = INFINITY;
		double r = isfinite(before) && isfinite(after) ? log(after / before)
			   : isfinite(after) ? -INFINITY : INFINITY;
		v3_update(t, r);
		if (isfinite(after) && after <= (1 - t->min_effect) * before) {
			if (t->confirm <= 1 || !isfinite(before)) {
				v3_accept(t);
			} else {
				for (int64_t k = 1; k < t->confirm; k++) {
					push(t, &t->best);
					push(t, &t->probe);
				}
				t->confirming = 1;
				return;
			}
		}
	}
	/* the next experiment: the untried move of the most likely hypothesis */
	double bw = -1;
	size_t bf = 0;
	int bd = 0;
	struct config bc = t->best;
	for (size_t k = 0; k < t->norder; k++)
		for (int d = 0; d < 2; d++) {
			size_t f = t->order[k];
			struct config c;
			if (step(t, &t->best, f, d, &c) || seen_find(t, &c))
				continue;
			if (t->w[f][d] > bw) {
				bw = t->w[f][d];
				bf = f;
				bd = d;
				bc = c;
			}
		}
	if (bw < 0 || t->w0 > bw) {
		t->done = 1;
		return;
	}
	t->probe = bc;
	t->probe_f = bf;
	t->probe_d = bd;
	t->probing = 1;
	push(t, &bc);
}

static int ab_next(struct tuner *t, struct config *c)
{
	for (;;) {
		if (t->qi < t->nq) {
			*c = t->queue[t->qi++];
			return 1;
		}
		t->nq = t->qi = 0;
		if (t->done)
			return 0;
		if (!t->started) {
			t->started = 1;
			push(t, &t->best);
			continue;
		}
		if (t->version == 1)
			v1_decide(t);
		else if (t->version == 2) {
			if (t->probing)
				v2_judge(t);
			v2_decide(t);
		} else {
			v3_decide(t);
		}
		if (!t->nq && t->done)
			return 0;
	}
}

static void ab_observe(struct tuner *t, const struct config *c, const struct trial_result *r)
{
	struct reps *e = seen_find(t, c);
	if (!e) {
		XGROW(t->seen, t->capseen, t->nseen + 1);
		e = &t->seen[t->nseen++];
		memset(e, 0, sizeof(*e));
		e->c = *c;
		e->ok = tuner_result_ok(r);
	}
	if (e->ok && tuner_result_ok(r) && e->n < AB_REPS)
		e->ms[e->n++] = r->median_ns;
}

static int ab_best(struct tuner *t, struct config *out)
{
	if (!isfinite(best_ns(t)))
		return -1;
	*out = t->best;
	return 0;
}

static void ab_free(struct tuner *t)
{
	free(t->seen);
	free(t);
}

const struct tuner_ops tuner_abduction = {
	.name = "abduction",
	.flags = TUNER_COMPILES | TUNER_BENCHMARKS,
	.check_options = ab_check_options,
	.alloc = ab_alloc,
	.next = ab_next,
	.observe = ab_observe,
	.best = ab_best,
	.free = ab_free,
};
