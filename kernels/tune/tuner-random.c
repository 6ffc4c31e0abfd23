/* tuner-random.c: the "random" tuner, the baseline every search must beat: valid grid
 * points drawn uniformly without replacement (a Fisher-Yates shuffle of the valid points,
 * drawn lazily from a SplitMix64 stream seeded with the cell's seed), each compiled, checked
 * and benchmarked, until the budget (max_trials, max_seconds; default: every valid point)
 * is spent; the lowest median among ok trials wins, ties to the earlier trial.
 * Options: max_trials, max_seconds, accept, accept_repeats, accept_alpha (tuner-int.h). */
#include "config.h"
#include "kernels/tune/tuner-int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

extern const struct tuner_ops tuner_random;

/* Spaces with more grid points than this are refused (the shuffle holds one index each). */
#define RANDOM_MAX_GRID ((size_t)1 << 22)

struct tuner {
	const struct space *space;
	uint64_t rng;
	size_t *valid;      /* space_point indices of the valid points; shuffled as they are drawn */
	size_t nvalid, drawn;
	int have_best;
	struct config best;
	double best_ns;
};

static int random_check_options(const struct tuner_check *c, char **cause)
{
	static const struct tuner_rule rules[] = { { NULL } };
	return tuner_check_rules(&tuner_random, c, rules, cause);
}

static struct tuner *random_alloc(const struct tuner_args *a, char **cause)
{
	size_t n;
	size_t *valid = tuner_valid_points(a->space, RANDOM_MAX_GRID, "random search", &n, cause);
	if (!valid)
		return NULL;
	struct tuner *t = xcalloc(1, sizeof(*t));
	t->space = a->space;
	t->rng = a->seed;
	t->valid = valid;
	t->nvalid = n;
	t->best_ns = INFINITY;
	return t;
}

/* Draw k-th point: swap a uniform pick of [drawn, nvalid) into place drawn. */
static int random_next(struct tuner *t, struct config *c)
{
	if (t->drawn >= t->nvalid)
		return 0;
	size_t j = t->drawn + (size_t)tuner_rand_below(&t->rng, t->nvalid - t->drawn);
	size_t tmp = t->valid[j];
	t->valid[j] = t->valid[t->drawn];
	t->valid[t->drawn] = tmp;
	space_point(t->space, t->valid[t->drawn++], c);
	return 1;
}

static void random_observe(struct tuner *t, const struct config *c, const struct trial_result *r)
{
	if (!tuner_result_ok(r))
		return;
	if (!t->have_best || r->median_ns < t->best_ns) {
		t->have_best = 1;
		t->best = *c;
		t->best_ns = r->median_ns;
	}
}

static int random_best(struct tuner *t, struct config *out)
{
	if (!t->have_best)
		return -1;
	*out = t->best;
	return 0;
}

static void random_free(struct tuner *t)
{
	free(t->valid);
	free(t);
}

const struct tuner_ops tuner_random = {
	.name = "random",
	.flags = TUNER_COMPILES | TUNER_BENCHMARKS,
	.check_options = random_check_options,
	.alloc = random_alloc,
	.next = random_next,
	.observe = random_observe,
	.best = random_best,
	.free = random_free,
};
