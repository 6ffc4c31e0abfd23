/* tuner-pso.c: the "pso" tuner, Kernel Tuner's particle swarm optimisation (its
 * strategies/pso.py and the scaling of strategies/common.py, read for the algorithm) over
 * the valid points.  Positions are continuous, scaled as Kernel Tuner scales them: with
 * eps = 1 / (the most values any field has), field f spans [0, eps x its values] and its
 * k-th value sits at the centre (k + 0.5) x eps of its cell; a position stands for the
 * config whose every field takes the value of the cell it lies in (the nearest centre,
 * the lower of two equally near).
 * The swarm has min(round(valid points / 2), popsize) particles (at least 1), each with a
 * velocity uniform in [-1, 1] and a position uniform in the bounds (its first personal
 * best), then moved to the centre of a distinct valid point drawn from the cell's seed;
 * the first particle then moves to another random valid point (Kernel Tuner's start x0).
 * Each iteration scores every particle's config, updates each personal best (strictly
 * faster) and the global best (as fast or faster, in particle order), then moves each
 * particle: v = w v + c1 r1 (personal best - x) + c2 r2 (global best - x), r1 and r2
 * uniform in [0, 1) per particle, x = x + v clipped to the bounds.  A config that is not a
 * valid point is repaired: the valid strictly-adjacent neighbour (tuner-int.h) whose centre
 * is nearest x (Euclidean; the first in grid order of equals), else the nearest adjacent,
 * else Hamming one; with none, the particle scores as failed and nothing is proposed.  It
 * stops after maxiter iterations, or when every valid point is measured.
 * With constraint_aware = false the positions stay uniform in the bounds (but the first
 * particle's) and a config that is not valid is not repaired: it scores as failed,
 * unmeasured.
 * Options (Kernel Tuner's defaults): popsize 50 (1 to 4096), maxiter 190 (iterations),
 * w 0.5 (inertia, 0 to 10), c1 3.5 (cognitive, 0 to 100), c2 1.0 (social, 0 to 100),
 * constraint_aware true; and max_trials, max_seconds, accept, accept_repeats,
 * accept_alpha (tuner-int.h).
 * Departures from Kernel Tuner:
 * - constraint_aware governs the repair too: Kernel Tuner's cost function reads the option
 *   from the user's options only, so unless it is given explicitly an invalid config
 *   scores its error value instead of being repaired (its default true moves only the
 *   start positions);
 * - one evaluation is one trial of a point not measured before: a particle on a point
 *   already measured (this iteration or earlier) takes that median without a trial and
 *   costs no budget (Kernel Tuner's runner counts such a cache hit against max_fevals);
 *   the budget (max_trials, max_seconds) may stop the search mid-iteration;
 * - a failed trial scores +infinity (Kernel Tuner's error value, the largest float);
 * - it stops once every valid point is measured (Kernel Tuner goes on, from its cache);
 * - a space of one valid point gets one particle (Kernel Tuner's swarm would be empty);
 * - no x0 option: the start is always random. */
#include "config.h"
#include "kernels/tune/tuner-int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

extern const struct tuner_ops tuner_pso;

/* Spaces with more candidates than this are refused (each valid point is held). */
#define PSO_MAX_GRID ((size_t)1 << 22)

struct particle {
	double x[SPACE_MAX_FIELDS];    /* position */
	double v[SPACE_MAX_FIELDS];    /* velocity */
	double best[SPACE_MAX_FIELDS]; /* its best position */
	double score, best_score;      /* INFINITY: failed, or not yet scored */
	size_t at;                     /* the valid point x stands for (repaired), or none */
};

struct tuner {
	struct tuner_points pts;
	uint64_t rng;
	size_t np;                  /* particles */
	int64_t maxiter;
	double w, c1, c2;
	int aware;                  /* constraint_aware */
	double eps;
	double hi[SPACE_MAX_FIELDS]; /* field f's bounds: [0, hi[f]] */
	struct particle *swarm;
	double gbest[SPACE_MAX_FIELDS], gbest_score;
	struct tuner_scores sc;     /* per valid point: its median; the fastest */
	size_t cursor;              /* the particles before it are scored this iteration */
	int64_t iter;
	int done;
	size_t *nbr, nbr_cap;       /* neighbour scratch */
};

static int pso_check_options(const struct tuner_check *c, char **cause)
{
	static const struct tuner_rule rules[] = {
		{ "popsize", RULE_INT, 1, 4096, NULL },
		{ "maxiter", RULE_INT, 1, 1e9, NULL },
		{ "w", RULE_FLOAT, 0, 10, NULL },
		{ "c1", RULE_FLOAT, 0, 100, NULL },
		{ "c2", RULE_FLOAT, 0, 100, NULL },
		{ "constraint_aware", RULE_BOOL, 0, 0, NULL },
		{ NULL },
	};
	return tuner_check_rules(&tuner_pso, c, rules, cause);
}

/* The centre of valid point i into x. */
static void centre(const struct tuner *t, size_t i, double *x)
{
	for (size_t f = 0; f < t->pts.nf; f++)
		x[f] = (0.5 + (double)t->pts.idx[i * t->pts.nf + f]) * t->eps;
}

/* The squared distance from x to the centre of valid point i. */
static double dist2(const struct tuner *t, const double *x, size_t i)
{
	double c[SPACE_MAX_FIELDS], d = 0;
	centre(t, i, c);
	for (size_t f = 0; f < t->pts.nf; f++)
		d += (x[f] - c[f]) * (x[f] - c[f]);
	return d;
}

/* The valid point p's position stands for: each field's cell (the lower of two equally
 * near centres: ceil(x / eps) - 1), repaired when constraint-aware. */
static void snap(struct tuner *t, struct particle *p)
{
	static const enum tuner_neighbours order[] = { TUNER_STRICTLY_ADJACENT, TUNER_ADJACENT,
						       TUNER_HAMMING };
	uint16_t g[SPACE_MAX_FIELDS];
	for (size_t f = 0; f < t->pts.nf; f++) {
		double k = ceil(p->x[f] / t->eps) - 1;
		double top = (double)t->pts.space->fields[f].nvalues - 1;
		g[f] = (uint16_t)(k < 0 ? 0 : k > top ? top : k);
	}
	p->at = tuner_points_find(&t->pts, g);
	if (p->at != TUNER_NO_POINT || !t->aware)
		return;
	for (size_t m = 0; m < ARRAY_SIZE(order) && p->at == TUNER_NO_POINT; m++) {
		size_t n = tuner_points_neighbours(&t->pts, g, order[m], &t->nbr, &t->nbr_cap);
		double best = INFINITY;
		for (size_t j = 0; j < n; j++) {
			double d = dist2(t, p->x, t->nbr[j]);
			if (d < best) {
				best = d;
				p->at = t->nbr[j];
			}
		}
	}
}

/* Uniform in [lo, hi). */
static double uniform(struct tuner *t, double lo, double hi)
{
	return lo + (hi - lo) * tuner_rand_unit(&t->rng);
}

static void init_swarm(struct tuner *t)
{
	size_t nf = t->pts.nf;
	for (size_t i = 0; i < t->np; i++) {
		struct particle *p = &t->swarm[i];
		for (size_t f = 0; f < nf; f++) {
			p->v[f] = uniform(t, -1, 1);
			p->x[f] = p->best[f] = uniform(t, 0, t->hi[f]);
		}
		p->score = p->best_score = INFINITY;
	}
	if (t->aware) { /* start from distinct valid points */
		size_t *s = xmalloc(t->np * sizeof(*s));
		tuner_points_sample(&t->pts, &t->rng, t->np, s);
		for (size_t i = 0; i < t->np; i++)
			centre(t, s[i], t->swarm[i].x);
		free(s);
	}
	centre(t, (size_t)tuner_rand_below(&t->rng, t->pts.n), t->swarm[0].x);
	for (size_t i = 0; i < t->np; i++)
		snap(t, &t->swarm[i]);
}

static struct tuner *pso_alloc(const struct tuner_args *a, char **cause)
{
	struct tuner_points pts;
	if (tuner_points_init(&pts, a->space, PSO_MAX_GRID, "particle swarm optimisation",
			      cause))
		return NULL;
	struct tuner *t = xcalloc(1, sizeof(*t));
	t->pts = pts;
	t->rng = a->seed;
	t->maxiter = tuner_opt_int(a, "maxiter", 190);
	t->w = tuner_opt_float(a, "w", 0.5);
	t->c1 = tuner_opt_float(a, "c1", 3.5);
	t->c2 = tuner_opt_float(a, "c2", 1.0);
	t->aware = tuner_opt_bool(a, "constraint_aware", 1);
	/* round: half to even, as Python's */
	double half = nearbyint((double)pts.n / 2.0);
	int64_t np = tuner_opt_int(a, "popsize", 50);
	if (half < (double)np)
		np = (int64_t)half;
	t->np = np < 1 ? 1 : (size_t)np;
	size_t most = 1;
	for (size_t f = 0; f < pts.nf; f++)
		if (a->space->fields[f].nvalues > most)
			most = a->space->fields[f].nvalues;
	t->eps = 1.0 / (double)most;
	for (size_t f = 0; f < pts.nf; f++)
		t->hi[f] = t->eps * (double)a->space->fields[f].nvalues;
	t->swarm = xcalloc(t->np, sizeof(*t->swarm));
	t->gbest_score = INFINITY;
	tuner_scores_init(&t->sc, pts.n);
	if (!pts.n)
		t->done = 1;
	else
		init_swarm(t);
	return t;
}

/* Every particle scored: the bests, then the moves (or the end). */
static void end_iteration(struct tuner *t)
{
	size_t nf = t->pts.nf;
	for (size_t i = 0; i < t->np; i++) {
		struct particle *p = &t->swarm[i];
		if (p->score < p->best_score) {
			memcpy(p->best, p->x, nf * sizeof(p->x[0]));
			p->best_score = p->score;
		}
		if (p->score <= t->gbest_score) {
			memcpy(t->gbest, p->x, nf * sizeof(p->x[0]));
			t->gbest_score = p->score;
		}
	}
	if (++t->iter >= t->maxiter) {
		t->done = 1;
		return;
	}
	for (size_t i = 0; i < t->np; i++) {
		struct particle *p = &t->swarm[i];
		double r1 = tuner_rand_unit(&t->rng), r2 = tuner_rand_unit(&t->rng);
		for (size_t f = 0; f < nf; f++) {
			p->v[f] = t->w * p->v[f] + t->c1 * r1 * (p->best[f] - p->x[f]) +
				  t->c2 * r2 * (t->gbest[f] - p->x[f]);
			double x = p->x[f] + p->v[f];
			p->x[f] = x < 0 ? 0 : x > t->hi[f] ? t->hi[f] : x;
		}
		snap(t, p);
	}
	t->cursor = 0;
}

static int pso_next(struct tuner *t, struct config *c)
{
	while (!t->done && t->sc.nmeasured < t->pts.n) {
		while (t->cursor < t->np) {
			struct particle *p = &t->swarm[t->cursor];
			/* a point measured before scores its median again; one not valid, +inf */
			if (tuner_scores_pending(&t->sc, p->at, &p->score)) {
				tuner_points_config(&t->pts, p->at, c);
				return 1;
			}
			t->cursor++;
		}
		end_iteration(t);
	}
	return 0;
}

static void pso_observe(struct tuner *t, const struct config *c, const struct trial_result *r)
{
	tuner_scores_observe(&t->sc, &t->pts, c, r);
}

static int pso_best(struct tuner *t, struct config *out)
{
	return tuner_scores_best(&t->sc, &t->pts, out);
}

static void pso_free(struct tuner *t)
{
	tuner_points_release(&t->pts);
	tuner_scores_release(&t->sc);
	free(t->swarm);
	free(t->nbr);
	free(t);
}

const struct tuner_ops tuner_pso = {
	.name = "pso",
	.flags = TUNER_COMPILES | TUNER_BENCHMARKS,
	.check_options = pso_check_options,
	.alloc = pso_alloc,
	.next = pso_next,
	.observe = pso_observe,
	.best = pso_best,
	.free = pso_free,
};
