/* tuner-diffevo.c: the "differential-evolution" tuner, Kernel Tuner's differential evolution
 * (its strategies/diff_evo.py, read for the algorithm) over the valid points of a space.
 * Individuals are valid points, seen as vectors of value indices (one per field; Kernel
 * Tuner's values_to_indices).  The first population is a Latin hypercube sample of popsize
 * index vectors, each mapped to the valid point nearest it (least sum of index differences,
 * the first such point in grid order), duplicates dropped and made up with random valid
 * points, then its first member replaced by a random valid point (Kernel Tuner's start
 * position).  Each generation builds popsize distinct trial points, the i-th from target i:
 * a donor from the method's mutation on index vectors (best1: best + F (b - c); rand1:
 * a + F (b - c); best2 / rand2: base + F (b + c - d - e); currenttobest1: i + F (best - i +
 * b - c); randtobest1: a + F (best - a + b - c); a..e distinct random members other than
 * i), rounded half to even and clipped to each field's indices; crossover with the target
 * (bin: each field from the donor with probability CR, at least one; exp: a run of fields
 * from a random one while a draw is below CR); an invalid result repaired to a random one of
 * the valid points nearest it in index distance (Kernel Tuner's "closest-param-indices").  A
 * trial point already in this generation is redrawn; after 20 redraws a random valid point
 * is taken.  The generation's unknown points are then measured one by one, and trial i
 * replaces target i when it is as fast or faster and not in the population already; the
 * best moves to a strictly faster point.  After more than two generations that change
 * nothing the next trial population is a fresh Latin hypercube sample.
 * Options (Kernel Tuner's defaults): popsize 16, popsize_times_dimensions true (popsize x the
 * fields whose valid points take more than one value), F 0.7, CR 0.6, method "best1bin" (or
 * any of rand1bin, best2bin, rand2bin, best1exp, rand1exp, best2exp, rand2exp,
 * currenttobest1bin, currenttobest1exp, randtobest1bin, randtobest1exp), maxiter
 * (generations; default, and at most, the number of valid points: Kernel Tuner's
 * min(maxiter, size)); and max_trials, max_seconds, accept, accept_repeats, accept_alpha
 * (tuner-int.h).
 * Departures: a point already measured is never measured again: its median is reused and costs
 * no trial, so the budget counts unique points (Kernel Tuner's cache of unique results; the
 * per-point medians are the memo, looked up in constant time); a failed point (compile error,
 * incorrect, no timing) stands at +infinity, as its error value; the population is always
 * constraint-aware (Kernel Tuner's constraint_aware = true; the option is not taken) and
 * popsize is at most the number of valid points; the restart counts consecutive unchanged
 * generations and starts again from 0 after a restart (Kernel Tuner's counter never resets, so
 * after its third unchanged generation every later generation is a fresh sample); and the
 * search also stops when every valid point is known or after 20 generations in a row that
 * measure nothing new (Kernel Tuner stops only at maxiter or its budget).  Ties in the nearest
 * point map and in argmin go to the earlier point; the random stream is the cell seed's
 * SplitMix64, not numpy's.  Until July 2025 Kernel Tuner's diff_evo called scipy's continuous
 * differential_evolution (popsize 20, maxiter 100) and snapped each vector to the nearest
 * values; its current one (read at commit 96a6abc, June 2026), followed here, works on index
 * vectors itself, so a vector becomes a grid point by rounding and a valid point by the repair
 * above. */
#include "config.h"
#include "kernels/tune/tuner-int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

extern const struct tuner_ops tuner_differential_evolution;

/* Spaces with more grid points than this are refused (the valid points are listed). */
#define DE_MAX_GRID ((size_t)1 << 22)
/* Redraws of a trial point already in the generation before a random one is taken. */
#define DE_MAX_STUCK 20
/* Generations in a row that measure nothing new before the search stops. */
#define DE_MAX_STALE 20

enum de_base { DE_BEST, DE_RAND, DE_CURRENT_TO_BEST, DE_RAND_TO_BEST };

static const char *const de_methods[] = {
	"best1bin", "rand1bin", "best2bin", "rand2bin", "best1exp", "rand1exp", "best2exp",
	"rand2exp", "currenttobest1bin", "currenttobest1exp", "randtobest1bin", "randtobest1exp",
	NULL,
};

struct tuner {
	const struct space *space;
	uint64_t rng;
	size_t *valid;         /* space_point indices of the valid points */
	size_t nvalid, nf;
	uint16_t *vidx;        /* their value indices, point-major (tuner_value_indices) */
	double *ns;            /* per valid point: NaN unknown, INFINITY failed, else its median */
	size_t nknown;
	size_t gbest;          /* the fastest ok point measured (nvalid: none) */
	/* the method */
	enum de_base base;
	int ndiff;             /* difference pairs: 1 or 2 */
	int exp_cross;         /* exponential crossover, else binomial */
	double F, CR;
	size_t popsize;
	int64_t maxiter, generation;
	/* the search */
	size_t *pop;           /* the population, valid-point positions */
	double *pop_cost;
	size_t *trial;         /* this generation's trial points */
	size_t *batch;         /* pop (the first) or trial: what is being measured */
	size_t cursor;         /* batch[0..cursor) are known */
	int first;             /* the batch is the first population */
	size_t best;           /* Kernel Tuner's best_solution (a position) */
	double best_cost;
	int stabilized;        /* generations in a row that changed nothing */
	int64_t stale;         /* generations in a row that measured nothing new */
	size_t known_before;   /* nknown when the batch began */
	double *donor;         /* scratch: one index vector each */
	uint16_t *lhs;         /* scratch: popsize index vectors */
};

static int de_check_method(const struct tuner_option *o, const struct tuner_check *c,
			   char **cause)
{
	(void)c;
	return tuner_check_enum(o, de_methods, cause);
}

static int de_check_options(const struct tuner_check *c, char **cause)
{
	static const struct tuner_rule rules[] = {
		{ "popsize", RULE_INT, 1, 100000, NULL },
		{ "popsize_times_dimensions", RULE_BOOL, 0, 0, NULL },
		{ "maxiter", RULE_INT, 1, 1e15, NULL },
		{ "F", RULE_FLOAT, 0, 2, NULL },
		{ "CR", RULE_FLOAT, 0, 1, NULL },
		{ "method", RULE_CUSTOM, 0, 0, de_check_method },
		{ NULL },
	};
	return tuner_check_rules(&tuner_differential_evolution, c, rules, cause);
}

/* ---- points as index vectors -------------------------------------------------------------- */

static const uint16_t *point_idx(const struct tuner *t, size_t p)
{
	return &t->vidx[p * t->nf];
}

/* The valid points at least index distance (sum over fields of |index difference|) from x:
 * the first of them in grid order (pick_random 0), or a random one (1). */
static size_t nearest_valid(struct tuner *t, const uint16_t *x, int pick_random)
{
	long best = -1;
	size_t nbest = 0, first = 0;
	for (size_t p = 0; p < t->nvalid; p++) {
		const uint16_t *y = point_idx(t, p);
		long d = 0;
		for (size_t f = 0; f < t->nf; f++)
			d += labs((long)x[f] - (long)y[f]);
		if (best < 0 || d < best) {
			best = d;
			nbest = 1;
			first = p;
		} else if (d == best) {
			nbest++;
		}
	}
	if (!pick_random || nbest == 1)
		return first;
	size_t want = (size_t)tuner_rand_below(&t->rng, nbest);
	for (size_t p = first; p < t->nvalid; p++) {
		const uint16_t *y = point_idx(t, p);
		long d = 0;
		for (size_t f = 0; f < t->nf; f++)
			d += labs((long)x[f] - (long)y[f]);
		if (d == best && want-- == 0)
			return p;
	}
	return first; /* not reached */
}

/* The valid point whose index vector is x, or nvalid when x is not valid. */
static size_t find_point(const struct tuner *t, const uint16_t *x)
{
	struct config c;
	memset(&c, 0, sizeof(c));
	for (size_t f = 0; f < t->nf; f++)
		c.val[f] = t->space->fields[f].values[x[f]];
	return tuner_valid_find(t->space, t->valid, t->nvalid, &c);
}

static int contains(const size_t *v, size_t n, size_t p)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == p)
			return 1;
	return 0;
}

/* popsize distinct valid points into out: a Latin hypercube sample mapped to the nearest
 * valid points, duplicates made up with random valid points (Kernel Tuner's
 * get_LHS_sample). */
static void lhs_population(struct tuner *t, size_t *out)
{
	size_t n = 0;
	tuner_lhs_sample(t->space, t->popsize, &t->rng, t->lhs);
	for (size_t i = 0; i < t->popsize; i++) {
		const uint16_t *x = &t->lhs[i * t->nf];
		size_t p = find_point(t, x);
		if (p == t->nvalid)
			p = nearest_valid(t, x, 0);
		if (!contains(out, n, p))
			out[n++] = p;
	}
	while (n < t->popsize) {
		size_t p = (size_t)tuner_rand_below(&t->rng, t->nvalid);
		if (!contains(out, n, p))
			out[n++] = p;
	}
}

static struct tuner *de_alloc(const struct tuner_args *a, char **cause)
{
	size_t n;
	size_t *valid = tuner_valid_points(a->space, DE_MAX_GRID, "differential evolution", &n,
					   cause);
	if (!valid)
		return NULL;
	struct tuner *t = xcalloc(1, sizeof(*t));
	t->space = a->space;
	t->rng = a->seed;
	t->valid = valid;
	t->nvalid = n;
	t->nf = a->space->nfields;
	t->gbest = n;
	if (!n)
		return t;
	t->vidx = tuner_value_indices(a->space, valid, n);
	t->ns = xmalloc(n * sizeof(*t->ns));
	for (size_t p = 0; p < n; p++)
		t->ns[p] = NAN;
	const char *m = tuner_opt_string(a, "method", "best1bin");
	t->base = !strncmp(m, "currenttobest", 13) ? DE_CURRENT_TO_BEST
		  : !strncmp(m, "randtobest", 10)  ? DE_RAND_TO_BEST
		  : !strncmp(m, "best", 4)         ? DE_BEST
						   : DE_RAND;
	t->ndiff = strstr(m, "2") ? 2 : 1;
	t->exp_cross = strstr(m, "exp") != NULL;
	t->F = tuner_opt_float(a, "F", 0.7);
	t->CR = tuner_opt_float(a, "CR", 0.6);
	/* popsize x the fields that vary over the valid points (get_true_tunable_params) */
	size_t ntrue = 0;
	for (size_t f = 0; f < t->nf; f++)
		for (size_t p = 1; p < n; p++)
			if (t->vidx[p * t->nf + f] != t->vidx[f]) {
				ntrue++;
				break;
			}
	int64_t pop = tuner_opt_int(a, "popsize", 16);
	if (tuner_opt_bool(a, "popsize_times_dimensions", 1))
		pop *= (int64_t)(ntrue ? ntrue : 1);
	t->popsize = (size_t)pop < n ? (size_t)pop : n;
	t->maxiter = tuner_opt_int(a, "maxiter", (int64_t)n);
	if (t->maxiter > (int64_t)n)
		t->maxiter = (int64_t)n;
	t->pop = xmalloc(t->popsize * sizeof(*t->pop));
	t->pop_cost = xmalloc(t->popsize * sizeof(*t->pop_cost));
	t->trial = xmalloc(t->popsize * sizeof(*t->trial));
	t->donor = xmalloc(t->nf * sizeof(*t->donor));
	t->lhs = xmalloc((t->popsize * t->nf + 1) * sizeof(*t->lhs));
	lhs_population(t, t->pop);
	t->pop[0] = (size_t)tuner_rand_below(&t->rng, n); /* the start position */
	t->batch = t->pop;
	t->first = 1;
	return t;
}

/* ---- one generation ----------------------------------------------------------------------- */

/* k distinct members other than i into r (with replacement when there are too few), as
 * numpy's choice(idxs, k, replace=k >= len(idxs)). */
static void draw_members(struct tuner *t, size_t i, size_t k, size_t *r)
{
	size_t others = t->popsize - 1;
	for (size_t j = 0; j < k; j++) {
		size_t m;
		do {
			m = others ? (size_t)tuner_rand_below(&t->rng, others) : 0;
			if (others && m >= i)
				m++; /* skip i itself */
			if (!others)
				m = i;
		} while (k < others && contains(r, j, m));
		r[j] = m;
	}
}

/* The donor for target i into t->donor (index space, rounded and clipped). */
static void mutate(struct tuner *t, size_t i)
{
	size_t r[5];
	size_t k = (size_t)(2 * t->ndiff) + (t->base == DE_BEST ? 0 : 1);
	draw_members(t, i, k, r);
	if (t->base == DE_CURRENT_TO_BEST)
		r[0] = i;
	const uint16_t *best = point_idx(t, t->best);
	for (size_t f = 0; f < t->nf; f++) {
		double x[5], v;
		for (size_t j = 0; j < k; j++)
			x[j] = point_idx(t, t->pop[r[j]])[f];
		switch (t->base) {
		case DE_BEST:
			v = best[f] + (t->ndiff == 1 ? t->F * (x[0] - x[1])
						      : t->F * (x[0] + x[1] - x[2] - x[3]));
			break;
		case DE_RAND:
			v = x[0] + (t->ndiff == 1 ? t->F * (x[1] - x[2])
						  : t->F * (x[1] + x[2] - x[3] - x[4]));
			break;
		default: /* current-to-best (x[0] is the target), rand-to-best */
			v = x[0] + t->F * (best[f] - x[0] + x[1] - x[2]);
			break;
		}
		v = nearbyint(v); /* half to even, as numpy's round */
		double hi = (double)(t->space->fields[f].nvalues - 1);
		t->donor[f] = v < 0 ? 0 : v > hi ? hi : v;
	}
}

/* Target i crossed with the donor, repaired to a valid point: its position. */
static size_t cross(struct tuner *t, size_t i)
{
	uint16_t x[SPACE_MAX_FIELDS];
	memcpy(x, point_idx(t, t->pop[i]), t->nf * sizeof(*x));
	size_t d = t->nf;
	if (t->exp_cross) {
		size_t start = (size_t)tuner_rand_below(&t->rng, d);
		for (size_t l = 0; l < d && tuner_rand_unit(&t->rng) < t->CR; l++)
			x[(start + l) % d] = (uint16_t)t->donor[(start + l) % d];
	} else {
		int any = 0, take[SPACE_MAX_FIELDS];
		for (size_t f = 0; f < d; f++)
			any |= take[f] = tuner_rand_unit(&t->rng) < t->CR;
		if (!any)
			take[tuner_rand_below(&t->rng, d)] = 1;
		for (size_t f = 0; f < d; f++)
			if (take[f])
				x[f] = (uint16_t)t->donor[f];
	}
	size_t p = find_point(t, x);
	return p < t->nvalid ? p : nearest_valid(t, x, 1);
}

/* This generation's popsize distinct trial points into t->trial. */
static void make_trials(struct tuner *t)
{
	if (t->stabilized > 2) { /* nothing changed for three generations: a fresh sample */
		lhs_population(t, t->trial);
		t->stabilized = 0;
		return;
	}
	size_t n = 0, i = 0;
	int stuck = 0;
	while (n < t->popsize) {
		mutate(t, i);
		size_t p = cross(t, i);
		if (!contains(t->trial, n, p)) {
			t->trial[n++] = p;
			i++;
			stuck = 0;
		} else if (++stuck >= DE_MAX_STUCK) {
			t->trial[n++] = (size_t)tuner_rand_below(&t->rng, t->nvalid);
			i++;
			stuck = 0;
		}
	}
}

/* The first population is known: its costs and best. */
static void first_known(struct tuner *t)
{
	t->best = t->pop[0];
	t->best_cost = INFINITY;
	for (size_t i = 0; i < t->popsize; i++) {
		t->pop_cost[i] = t->ns[t->pop[i]];
		if (i == 0 || t->pop_cost[i] < t->best_cost) {
			t->best_cost = t->pop_cost[i];
			t->best = t->pop[i];
		}
	}
}

/* The trial points are known: Kernel Tuner's selection. */
static void select_trials(struct tuner *t)
{
	int changed = 0;
	for (size_t i = 0; i < t->popsize; i++) {
		size_t p = t->trial[i];
		double cost = t->ns[p];
		if (!(cost <= t->pop_cost[i]))
			continue;
		if (!contains(t->pop, t->popsize, p)) {
			t->pop[i] = p;
			t->pop_cost[i] = cost;
			changed = 1;
		}
		if (cost < t->best_cost) {
			t->best_cost = cost;
			t->best = p;
		}
	}
	t->stabilized = changed ? 0 : t->stabilized + 1;
}

static int de_next(struct tuner *t, struct config *c)
{
	if (!t->nvalid)
		return 0;
	for (;;) {
		for (; t->cursor < t->popsize; t->cursor++) {
			size_t p = t->batch[t->cursor];
			if (isnan(t->ns[p])) { /* unknown: measure it (observe fills it in) */
				space_point(t->space, t->valid[p], c);
				return 1;
			}
		}
		if (t->first)
			first_known(t);
		else
			select_trials(t);
		t->stale = t->nknown == t->known_before ? t->stale + 1 : 0;
		if (t->generation >= t->maxiter || t->nknown >= t->nvalid || t->stale >= DE_MAX_STALE)
			return 0;
		t->generation++;
		make_trials(t);
		t->batch = t->trial;
		t->first = 0;
		t->cursor = 0;
		t->known_before = t->nknown;
	}
}

static void de_observe(struct tuner *t, const struct config *c, const struct trial_result *r)
{
	size_t p = tuner_valid_find(t->space, t->valid, t->nvalid, c);
	if (p == t->nvalid)
		return; /* not one of ours */
	if (isnan(t->ns[p]))
		t->nknown++;
	t->ns[p] = tuner_result_ok(r) ? r->median_ns : INFINITY;
	if (isfinite(t->ns[p]) && (t->gbest == t->nvalid || t->ns[p] < t->ns[t->gbest]))
		t->gbest = p;
}

static int de_best(struct tuner *t, struct config *out)
{
	if (t->gbest == t->nvalid)
		return -1;
	return space_point(t->space, t->valid[t->gbest], out);
}

static void de_free(struct tuner *t)
{
	free(t->valid);
	free(t->vidx);
	free(t->ns);
	free(t->pop);
	free(t->pop_cost);
	free(t->trial);
	free(t->donor);
	free(t->lhs);
	free(t);
}

const struct tuner_ops tuner_differential_evolution = {
	.name = "differential-evolution",
	.flags = TUNER_COMPILES | TUNER_BENCHMARKS,
	.check_options = de_check_options,
	.alloc = de_alloc,
	.next = de_next,
	.observe = de_observe,
	.best = de_best,
	.free = de_free,
};
