/* tuner-annealing.c: the "simulated-annealing" tuner, Kernel Tuner's simulated annealing
 * (its strategies/simulated_annealing.py, read for the algorithm; issue 47) over the valid
 * grid points.  It starts at a valid point drawn from the cell's seed; each step proposes a
 * neighbour (with probability 0.2 one that differs in one field, any value: Kernel Tuner's
 * "Hamming"; else one whose every field is the same or one value away: "strictly-adjacent";
 * a point without valid neighbours jumps to a random valid one) and moves there with
 * probability 1 when it is faster, 0 when it failed, exp(((old - new) / old) / T)
 * otherwise (always when the current point failed).  The temperature follows the
 * evaluations: T = T_start * alpha^(max_iter / max_fevals * unique), max_iter =
 * ceil(log(T_min) / log(alpha)), until T <= T_min; after 100 steps that evaluate nothing new
 * it restarts at a random valid point, and it stops after 10 x max_iter steps or when every
 * valid point is known.  A neighbour already measured is not measured again: its recorded
 * median is used (Kernel Tuner's cache of unique results).
 * Options (Kernel Tuner's defaults): T 1.0, T_min 0.001, alpha 0.995, maxiter 1 (steps per
 * temperature), max_fevals (the schedule's length; default max_trials when set, else
 * max_iter); and max_trials, max_seconds, accept, accept_repeats, accept_alpha (tuner-int.h).
 * The strictly-adjacent neighbours are the 3^fields - 1 combinations of steps, or, where
 * there are more combinations than valid points (a space of 20 fields), the valid points
 * found one value away at most by a scan of them: the same set, in grid order.
 * Departures: the step count that bounds the search counts every step (Kernel Tuner's counts
 * only when verbose), and a point that failed stands at +infinity, as its error value. */
#include "config.h"
#include "kernels/tune/tuner-int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

extern const struct tuner_ops tuner_simulated_annealing;

/* Spaces with more grid points than this are refused (the valid points are listed). */
#define SA_MAX_GRID ((size_t)1 << 22)

struct tuner {
	const struct space *space;
	uint64_t rng;
	size_t *valid;          /* space_point indices of the valid points */
	size_t nvalid;
	struct tuner_memo memo; /* every point measured, with its median */
	struct config pos;      /* where the walk is */
	double pos_ns;          /* its median; INFINITY when it failed or is not measured */
	int started;            /* the start was proposed */
	struct config pending;  /* the proposal awaiting observe() */
	int have_pending;
	int pending_start;      /* the pending proposal is the start: its median is pos_ns */
	double T, T_start, T_min, alpha;
	int64_t niter, inner;   /* steps per temperature, and this temperature's so far */
	double max_iter, max_fevals;
	int64_t steps, stuck;
	size_t unique, unique_old;
};

static int sa_check_options(const struct tuner_check *c, char **cause)
{
	static const struct tuner_rule rules[] = {
		{ "T", RULE_FLOAT, 1e-9, 1e9, NULL },
		{ "T_min", RULE_FLOAT, 1e-12, 1e9, NULL },
		{ "alpha", RULE_FLOAT, 1e-6, 0.999999, NULL },
		{ "maxiter", RULE_INT, 1, 1e6, NULL },
		{ "max_fevals", RULE_INT, 1, 1e9, NULL },
		{ NULL },
	};
	return tuner_check_rules(&tuner_simulated_annealing, c, rules, cause);
}

static double uniform01(uint64_t *rng)
{
	return (double)(tuner_rand_next(rng) >> 11) * (1.0 / 9007199254740992.0);
}

static void random_point(struct tuner *t, struct config *c)
{
	space_point(t->space, t->valid[tuner_rand_below(&t->rng, t->nvalid)], c);
}

/* The index of value v in field f (the field's values are distinct). */
static size_t value_index(const struct space_field *fd, int64_t v)
{
	size_t k = space_value_index(fd, v);
	return k < fd->nvalues ? k : 0;
}

/* A random neighbour of t->pos into *c: Hamming (one field changed, to any value) with
 * probability 0.2, else strictly adjacent (every field the same or one value away, not all
 * the same); a random valid point when pos has no valid neighbour of that kind. */
static void neighbour(struct tuner *t, struct config *c)
{
	const struct space *s = t->space;
	size_t nf = s->nfields, n = 0, cap = 0;
	struct config *cand = NULL;
	if (uniform01(&t->rng) < 0.2) {
		for (size_t f = 0; f < nf; f++)
			for (size_t k = 0; k < s->fields[f].nvalues; k++) {
				struct config x = t->pos;
				if (s->fields[f].values[k] == x.val[f])
					continue;
				x.val[f] = s->fields[f].values[k];
				if (space_contains(s, &x)) {
					XGROW(cand, cap, n + 1);
					cand[n++] = x;
				}
			}
	} else {
		size_t combos = 1;
		for (size_t f = 0; f < nf && combos <= t->nvalid; f++)
			combos *= 3;
		if (combos > t->nvalid) {
			/* more combinations than valid points (many fields: 3^20 of them): the
			 * valid points one field value away at most, found by scanning them */
			for (size_t i = 0; i < t->nvalid; i++) {
				struct config x;
				int near = 1, same = 1;
				space_point(s, t->valid[i], &x);
				for (size_t f = 0; f < nf && near; f++) {
					const struct space_field *fd = &s->fields[f];
					long d = (long)value_index(fd, x.val[f]) -
						 (long)value_index(fd, t->pos.val[f]);
					near = d >= -1 && d <= 1;
					same &= !d;
				}
				if (near && !same) {
					XGROW(cand, cap, n + 1);
					cand[n++] = x;
				}
			}
			combos = 0;
		}
		for (size_t m = 1; m < combos; m++) { /* m = 0: every field the same */
			struct config x = t->pos;
			size_t code = m;
			int ok = 1;
			for (size_t f = 0; f < nf && ok; f++, code /= 3) {
				const struct space_field *fd = &s->fields[f];
				long k = (long)value_index(fd, x.val[f]) + (long)(code % 3) - 1;
				if (k < 0 || k >= (long)fd->nvalues)
					ok = 0;
				else
					x.val[f] = fd->values[k];
			}
			if (ok && space_contains(s, &x)) {
				XGROW(cand, cap, n + 1);
				cand[n++] = x;
			}
		}
	}
	if (n)
		*c = cand[tuner_rand_below(&t->rng, n)];
	else
		random_point(t, c);
	free(cand);
}

static struct tuner *sa_alloc(const struct tuner_args *a, char **cause)
{
	size_t n;
	size_t *valid = tuner_valid_points(a->space, SA_MAX_GRID, "simulated annealing", &n,
					   cause);
	if (!valid)
		return NULL;
	struct tuner *t = xcalloc(1, sizeof(*t));
	t->space = a->space;
	t->rng = a->seed;
	t->valid = valid;
	t->nvalid = n;
	t->T = t->T_start = tuner_opt_float(a, "T", 1.0);
	t->T_min = tuner_opt_float(a, "T_min", 0.001);
	t->alpha = tuner_opt_float(a, "alpha", 0.995);
	t->niter = tuner_opt_int(a, "maxiter", 1);
	t->max_iter = ceil(log(t->T_min / t->T_start) / log(t->alpha));
	if (t->max_iter < 1)
		t->max_iter = 1;
	int64_t budget = a->budget_trials > 0 ? a->budget_trials : tuner_opt_int(a, "max_trials", 0);
	t->max_fevals = (double)tuner_opt_int(a, "max_fevals", budget > 0 ? budget
							       : (int64_t)t->max_iter);
	t->pos_ns = INFINITY;
	return t;
}

/* After a step: the temperature from the unique evaluations, the stuck count and the
 * restart (Kernel Tuner's loop body after its inner steps). */
static void end_of_temperature(struct tuner *t)
{
	t->T = t->T_start * pow(t->alpha, t->max_iter / t->max_fevals * (double)t->unique);
	t->stuck = t->unique == t->unique_old ? t->stuck + 1 : 0;
	t->unique_old = t->unique;
	if (t->stuck > 100) {
		random_point(t, &t->pos);
		const struct tuner_memo_entry *e = tuner_memo_find(&t->memo, t->space, &t->pos);
		t->pos_ns = e && e->ok ? e->ns : INFINITY;
		t->stuck = 0;
	}
}

/* Move to c (its median ns, INFINITY when it failed) or stay, by the acceptance rule. */
static void step(struct tuner *t, const struct config *c, double ns)
{
	double ap = !isfinite(t->pos_ns) ? 1.0
		    : !isfinite(ns)       ? 0.0
		    : ns < t->pos_ns      ? 1.0
					  : exp(((t->pos_ns - ns) / t->pos_ns) / t->T);
	if (ap > uniform01(&t->rng)) {
		t->pos = *c;
		t->pos_ns = ns;
	}
	t->steps++;
	if (++t->inner >= t->niter) {
		t->inner = 0;
		end_of_temperature(t);
	}
}

static int sa_next(struct tuner *t, struct config *c)
{
	if (!t->nvalid)
		return 0;
	if (!t->started) { /* the start: a valid point drawn from the seed */
		random_point(t, &t->pos);
		t->started = 1;
		t->pending = t->pos;
		t->have_pending = t->pending_start = 1;
		*c = t->pos;
		return 1;
	}
	while (t->T > t->T_min && t->steps <= 10 * (int64_t)t->max_iter &&
	       t->unique < t->nvalid) {
		struct config x;
		neighbour(t, &x);
		const struct tuner_memo_entry *e = tuner_memo_find(&t->memo, t->space, &x);
		if (e) { /* known: its recorded median, nothing measured */
			step(t, &x, e->ok ? e->ns : INFINITY);
			continue;
		}
		t->pending = x;
		t->have_pending = 1;
		*c = x;
		return 1;
	}
	return 0;
}

static void sa_observe(struct tuner *t, const struct config *c, const struct trial_result *r)
{
	int known = tuner_memo_find(&t->memo, t->space, c) != NULL;
	tuner_memo_add(&t->memo, t->space, c, r);
	t->unique += !known;
	if (!t->have_pending || !config_equal(t->space, c, &t->pending))
		return;
	t->have_pending = 0;
	double ns = tuner_result_ok(r) ? r->median_ns : INFINITY;
	if (t->pending_start) {
		t->pending_start = 0;
		t->pos_ns = ns; /* the start's own evaluation */
		return;
	}
	step(t, c, ns);
}

static int sa_best(struct tuner *t, struct config *out)
{
	return tuner_memo_best(&t->memo, out);
}

static void sa_free(struct tuner *t)
{
	free(t->valid);
	tuner_memo_release(&t->memo);
	free(t);
}

const struct tuner_ops tuner_simulated_annealing = {
	.name = "simulated-annealing",
	.flags = TUNER_COMPILES | TUNER_BENCHMARKS,
	.check_options = sa_check_options,
	.alloc = sa_alloc,
	.next = sa_next,
	.observe = sa_observe,
	.best = sa_best,
	.free = sa_free,
};
