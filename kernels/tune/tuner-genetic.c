/* tuner-genetic.c: the "genetic-algorithm" tuner, Kernel Tuner's genetic algorithm (its
 * strategies/genetic_algorithm.py, read for the algorithm) over the valid points.  A config
 * is its vector of value indices, one gene per field.  The first generation is popsize
 * distinct valid points drawn from the cell's seed, its first member replaced by another
 * random valid point (Kernel Tuner's start point x0, random when none is given).  Each
 * generation is scored (its points measured), ranked fastest first (stable), and bred:
 * two distinct parents drawn at rank int(Beta(1, 2.5) x members), crossed over by `method`
 * (single_point: one cut at int(U x fields); two_point: two distinct cuts, inside the ends
 * from 5 fields on; uniform: each gene from either parent, 50/50; disruptive_uniform: half
 * the differing genes, rounded up, swapped), each child repaired when it is not valid (a
 * random valid strictly-adjacent neighbour, else adjacent, else Hamming: tuner-int.h) and
 * mutated with chance 1 in mutation_chance (a random valid Hamming neighbour); a child
 * joins the next generation when it is valid and not already in it, until the generation
 * has popsize members or the members scored so far (every member of every finished
 * generation, repeats and failures included: Kernel Tuner's num_evaluated) plus the new
 * ones reach the number of valid points.  It stops after maxiter generations, when breeding adds no member, or
 * when every valid point is measured.
 * A space with fewer than 2 x popsize valid points gets Kernel Tuner's smaller population,
 * min(max(round(3 x points / maxiter), 2), popsize).
 * With constraint_aware = false, as Kernel Tuner's: the first members (but the start) take
 * each field's value at random from the grid, children are not repaired, a mutation sets
 * one random field to another of its values, and a member that is not a valid point stays
 * in the generation, scored as failed and never proposed.
 * Options (Kernel Tuner's defaults): popsize 26 (2 to 4096), maxiter 90 (generations),
 * method "single_point" (or "two_point", "uniform", "disruptive_uniform"),
 * mutation_chance 55, constraint_aware true; and max_trials, max_seconds, accept,
 * accept_repeats, accept_alpha (tuner-int.h).
 * Departures from Kernel Tuner:
 * - one evaluation is one trial of a point not measured before: a member whose point was
 *   measured (in an earlier generation, or earlier in its own) takes that median without a
 *   trial and costs no budget (Kernel Tuner's runner counts such a cache hit against
 *   max_fevals); the budget (max_trials, max_seconds) may stop the search mid-generation;
 * - a failed trial scores +infinity (Kernel Tuner's error value, the largest float);
 * - it stops once every valid point is measured (Kernel Tuner goes on, from its cache);
 * - breeding gives up after 1,000 parent pairs in a row that add no member (Kernel
 *   Tuner's loop has no bound), and a generation of one member is its own two parents
 *   (Kernel Tuner's parent draw would never end);
 * - two_point with one field leaves the children as their parents (Kernel Tuner raises);
 * - a random neighbour is uniform among all of its kind (Kernel Tuner's is approximately
 *   random, taken from a partial cache); no x0 option: the start is always random. */
#include "config.h"
#include "kernels/tune/tuner-int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

extern const struct tuner_ops tuner_genetic_algorithm;

/* Spaces with more candidates than this are refused (each valid point is held). */
#define GA_MAX_GRID ((size_t)1 << 22)
/* Parent pairs in a row that add no member before breeding stops filling a generation. */
#define GA_MAX_FUTILE 1000

enum crossover { SINGLE_POINT, TWO_POINT, UNIFORM, DISRUPTIVE_UNIFORM };
static const char *const methods[] = { "single_point", "two_point", "uniform",
				       "disruptive_uniform", NULL };

struct member {
	uint16_t g[SPACE_MAX_FIELDS]; /* the value index of each field */
	size_t at;                    /* its valid point (tuner_points), or TUNER_NO_POINT */
	double ns;                    /* its score once known: the median, INFINITY failed */
	size_t order;                 /* its place in the generation (a stable ranking) */
};

struct tuner {
	struct tuner_points pts;
	uint64_t rng;
	size_t popsize;
	int64_t maxiter, mutation_chance;
	enum crossover method;
	int aware;                  /* constraint_aware */
	struct tuner_scores sc;     /* per valid point: its median; the fastest */
	struct member *pop, *kids;  /* this generation, and the next one being bred */
	size_t npop;
	size_t cursor;              /* the members before it are scored */
	size_t nevaluated;          /* members of the finished generations */
	int64_t generation;
	int done;
	size_t *nbr, nbr_cap;       /* neighbour scratch */
};

static int ga_check_method(const struct tuner_option *o, const struct tuner_check *c,
			   char **cause)
{
	(void)c;
	return tuner_check_enum(o, methods, cause);
}

static int ga_check_options(const struct tuner_check *c, char **cause)
{
	static const struct tuner_rule rules[] = {
		{ "popsize", RULE_INT, 2, 4096, NULL },
		{ "maxiter", RULE_INT, 1, 1e9, NULL },
		{ "method", RULE_CUSTOM, 0, 0, ga_check_method },
		{ "mutation_chance", RULE_INT, 1, 1e9, NULL },
		{ "constraint_aware", RULE_BOOL, 0, 0, NULL },
		{ NULL },
	};
	return tuner_check_rules(&tuner_genetic_algorithm, c, rules, cause);
}

/* m becomes valid point i, unscored. */
static void set_point(const struct tuner *t, struct member *m, size_t i)
{
	memcpy(m->g, &t->pts.idx[i * t->pts.nf], t->pts.nf * sizeof(m->g[0]));
	m->at = i;
	m->ns = NAN;
}

/* m's genes changed: which valid point they are, if any. */
static void locate(const struct tuner *t, struct member *m)
{
	m->at = tuner_points_find(&t->pts, m->g);
	m->ns = NAN;
}

/* A random valid m-neighbour of x into x; 0, or -1 when there is none. */
static int random_neighbour(struct tuner *t, struct member *x, enum tuner_neighbours m)
{
	size_t n = tuner_points_neighbours(&t->pts, x->g, m, &t->nbr, &t->nbr_cap);
	if (!n)
		return -1;
	set_point(t, x, t->nbr[tuner_rand_below(&t->rng, n)]);
	return 0;
}

/* The first generation: popsize distinct valid points (or, not constraint-aware, random
 * values per field), the first replaced by a random valid point (the start). */
static void first_generation(struct tuner *t)
{
	size_t n = t->pts.n, nf = t->pts.nf;
	if (t->aware) {
		size_t k = t->popsize < n ? t->popsize : n;
		size_t *s = xmalloc(k * sizeof(*s));
		tuner_points_sample(&t->pts, &t->rng, k, s);
		for (size_t i = 0; i < k; i++)
			set_point(t, &t->pop[i], s[i]);
		free(s);
		t->npop = k;
	} else {
		for (size_t i = 0; i < t->popsize; i++) {
			struct member *m = &t->pop[i];
			memset(m, 0, sizeof(*m));
			for (size_t f = 0; f < nf; f++)
				m->g[f] = (uint16_t)tuner_rand_below(&t->rng,
								     t->pts.space->fields[f].nvalues);
			locate(t, m);
		}
		t->npop = t->popsize;
	}
	set_point(t, &t->pop[0], (size_t)tuner_rand_below(&t->rng, n));
}

static struct tuner *ga_alloc(const struct tuner_args *a, char **cause)
{
	struct tuner_points pts;
	if (tuner_points_init(&pts, a->space, GA_MAX_GRID, "the genetic algorithm", cause))
		return NULL;
	struct tuner *t = xcalloc(1, sizeof(*t));
	t->pts = pts;
	t->rng = a->seed;
	t->maxiter = tuner_opt_int(a, "maxiter", 90);
	t->mutation_chance = tuner_opt_int(a, "mutation_chance", 55);
	t->aware = tuner_opt_bool(a, "constraint_aware", 1);
	const char *m = tuner_opt_string(a, "method", "single_point");
	for (size_t k = 0; methods[k]; k++)
		if (!strcmp(m, methods[k]))
			t->method = (enum crossover)k;
	int64_t popsize = tuner_opt_int(a, "popsize", 26);
	/* Kernel Tuner's population for a small space (round: half to even, as Python's) */
	if (popsize < 2 || (uint64_t)popsize > pts.n / 2) {
		double r = nearbyint((double)pts.n / (double)t->maxiter * 3.0);
		int64_t want = r < 2 ? 2 : (int64_t)r;
		popsize = want < popsize ? want : popsize;
	}
	t->popsize = (size_t)popsize;
	t->pop = xcalloc(t->popsize, sizeof(*t->pop));
	t->kids = xcalloc(t->popsize, sizeof(*t->kids));
	tuner_scores_init(&t->sc, pts.n);
	if (!pts.n)
		t->done = 1;
	else
		first_generation(t);
	return t;
}

/* Kernel Tuner's weighted choice: a rank int(Beta(1, 2.5) x n), by inverting its CDF
 * 1 - (1 - x)^2.5; low ranks (the fastest members) likeliest. */
static size_t beta_rank(struct tuner *t, size_t n)
{
	double x = 1.0 - pow(1.0 - tuner_rand_unit(&t->rng), 1.0 / 2.5);
	size_t i = (size_t)(x * (double)n);
	return i < n ? i : n - 1;
}

static void swap_gene(uint16_t *a, uint16_t *b)
{
	uint16_t x = *a;
	*a = *b;
	*b = x;
}

/* The two children of parents a and b (genes only) by t's method, into k[0] and k[1]. */
static void crossover(struct tuner *t, const struct member *a, const struct member *b,
		      struct member *k)
{
	size_t nf = t->pts.nf;
	memset(k, 0, 2 * sizeof(*k));
	memcpy(k[0].g, a->g, nf * sizeof(a->g[0]));
	memcpy(k[1].g, b->g, nf * sizeof(b->g[0]));
	switch (t->method) {
	case SINGLE_POINT: { /* genes from pos on come from the other parent */
		size_t pos = (size_t)(tuner_rand_unit(&t->rng) * (double)nf);
		for (size_t f = pos; f < nf; f++)
			swap_gene(&k[0].g[f], &k[1].g[f]);
		break;
	}
	case TWO_POINT: { /* genes in [pos1, pos2) come from the other parent */
		size_t lo = nf < 5 ? 0 : 1, hi = nf < 5 ? nf : nf - 1;
		if (hi - lo < 2)
			break;
		size_t p1 = lo + (size_t)tuner_rand_below(&t->rng, hi - lo), p2;
		do
			p2 = lo + (size_t)tuner_rand_below(&t->rng, hi - lo);
		while (p2 == p1);
		if (p2 < p1) {
			size_t x = p1;
			p1 = p2;
			p2 = x;
		}
		for (size_t f = p1; f < p2; f++)
			swap_gene(&k[0].g[f], &k[1].g[f]);
		break;
	}
	case UNIFORM:
		for (size_t f = 0; f < nf; f++)
			if (!(tuner_rand_unit(&t->rng) > 0.5))
				swap_gene(&k[0].g[f], &k[1].g[f]);
		break;
	case DISRUPTIVE_UNIFORM: { /* sweeps over the differing genes, each swapped 50/50,
				    * until half of them (rounded up) are */
		size_t diff = 0, swaps = 0;
		for (size_t f = 0; f < nf; f++)
			diff += a->g[f] != b->g[f];
		while (swaps < (diff + 1) / 2)
			for (size_t f = 0; f < nf; f++)
				if (a->g[f] != b->g[f] && k[0].g[f] != b->g[f] &&
				    tuner_rand_unit(&t->rng) < 0.5 && swaps < (diff + 1) / 2) {
					swap_gene(&k[0].g[f], &k[1].g[f]);
					swaps++;
				}
		break;
	}
	}
	locate(t, &k[0]);
	locate(t, &k[1]);
}

/* A child that is not valid becomes a random valid strictly-adjacent neighbour, else an
 * adjacent one, else a Hamming one; it stays as it is when it has none. */
static void repair(struct tuner *t, struct member *k)
{
	static const enum tuner_neighbours order[] = { TUNER_STRICTLY_ADJACENT, TUNER_ADJACENT,
						       TUNER_HAMMING };
	if (k->at != TUNER_NO_POINT)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(order); i++)
		if (!random_neighbour(t, k, order[i]))
			return;
}

/* With chance 1 in mutation_chance: a random valid Hamming neighbour (constraint-aware;
 * unchanged when there is none), or one random field set to another of its values. */
static void mutate(struct tuner *t, struct member *k)
{
	if ((int64_t)(tuner_rand_unit(&t->rng) * (double)t->mutation_chance) != 0)
		return;
	if (t->aware) {
		random_neighbour(t, k, TUNER_HAMMING);
		return;
	}
	if (!t->pts.nf)
		return;
	size_t f = (size_t)tuner_rand_below(&t->rng, t->pts.nf);
	size_t nv = t->pts.space->fields[f].nvalues;
	if (nv < 2)
		return;
	size_t v = (size_t)tuner_rand_below(&t->rng, nv - 1);
	k->g[f] = (uint16_t)(v >= k->g[f] ? v + 1 : v);
	locate(t, k);
}

static int same_genes(const struct tuner *t, const struct member *a, const struct member *b)
{
	return !memcmp(a->g, b->g, t->pts.nf * sizeof(a->g[0]));
}

static int by_score(const void *x, const void *y)
{
	const struct member *a = x, *b = y;
	if (a->ns != b->ns)
		return a->ns < b->ns ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* The next generation from the scored one (Kernel Tuner's loop body after scoring). */
static void breed(struct tuner *t)
{
	size_t n = t->pts.n, nkids = 0, futile = 0;
	for (size_t i = 0; i < t->npop; i++)
		t->pop[i].order = i;
	qsort(t->pop, t->npop, sizeof(*t->pop), by_score);
	while (nkids < t->popsize && n > t->nevaluated + nkids && futile < GA_MAX_FUTILE) {
		size_t i1 = beta_rank(t, t->npop), i2 = i1;
		while (t->npop > 1 && i2 == i1)
			i2 = beta_rank(t, t->npop);
		struct member k[2];
		crossover(t, &t->pop[i1], &t->pop[i2], k);
		if (t->aware) {
			repair(t, &k[0]);
			repair(t, &k[1]);
		}
		int added = 0;
		for (size_t j = 0; j < 2 && nkids < t->popsize; j++) {
			mutate(t, &k[j]);
			if (t->aware && k[j].at == TUNER_NO_POINT)
				continue;
			int dup = 0;
			for (size_t i = 0; i < nkids && !dup; i++)
				dup = same_genes(t, &t->kids[i], &k[j]);
			if (!dup) {
				t->kids[nkids++] = k[j];
				added = 1;
			}
		}
		futile = added ? 0 : futile + 1;
	}
	struct member *x = t->pop;
	t->pop = t->kids;
	t->kids = x;
	t->npop = nkids;
}

/* Every member scored: on to the next generation, or the end. */
static void end_generation(struct tuner *t)
{
	t->nevaluated += t->npop;
	if (++t->generation >= t->maxiter) {
		t->done = 1;
		return;
	}
	breed(t);
	t->cursor = 0;
	if (!t->npop)
		t->done = 1;
}

static int ga_next(struct tuner *t, struct config *c)
{
	while (!t->done && t->sc.nmeasured < t->pts.n) {
		while (t->cursor < t->npop) {
			struct member *m = &t->pop[t->cursor];
			/* a point measured before scores its median again; one not valid, +inf */
			if (tuner_scores_pending(&t->sc, m->at, &m->ns)) {
				tuner_points_config(&t->pts, m->at, c);
				return 1;
			}
			t->cursor++;
		}
		end_generation(t);
	}
	return 0;
}

static void ga_observe(struct tuner *t, const struct config *c, const struct trial_result *r)
{
	tuner_scores_observe(&t->sc, &t->pts, c, r);
}

static int ga_best(struct tuner *t, struct config *out)
{
	return tuner_scores_best(&t->sc, &t->pts, out);
}

static void ga_free(struct tuner *t)
{
	tuner_points_release(&t->pts);
	tuner_scores_release(&t->sc);
	free(t->pop);
	free(t->kids);
	free(t->nbr);
	free(t);
}

const struct tuner_ops tuner_genetic_algorithm = {
	.name = "genetic-algorithm",
	.flags = TUNER_COMPILES | TUNER_BENCHMARKS,
	.check_options = ga_check_options,
	.alloc = ga_alloc,
	.next = ga_next,
	.observe = ga_observe,
	.best = ga_best,
	.free = ga_free,
};
