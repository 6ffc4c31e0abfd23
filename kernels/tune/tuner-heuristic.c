/* tuner-heuristic.c: the "heuristic" tuner: the backend's rule-of-thumb config for the
 * cell's shape (space->heuristic), compiled and checked once, never benchmarked */
#include "config.h"
#include "kernels/tuner.h"

#include <stdlib.h>
#include <string.h>

extern const struct tuner_ops tuner_heuristic;

struct tuner {
	const struct space *space;
	struct config pick;
	int have_pick;   /* the space offered a point */
	int proposed;
	int ok;          /* the worker observed the pick with status ok */
};

static int heuristic_check_options(const struct tuner_check *c, char **cause)
{
	return tuner_check_known_options(&tuner_heuristic, c, NULL, cause);
}

/* The pick: space->heuristic() when it names a point of the space; else the first valid
 * grid point (a backend without a rule still gets a deterministic, compilable choice). */
static struct tuner *heuristic_alloc(const struct tuner_args *a, char **cause)
{
	const struct space *s = a->space;
	struct tuner *t = xcalloc(1, sizeof(*t));
	t->space = s;
	if (s->heuristic) {
		memset(&t->pick, 0, sizeof(t->pick));
		s->heuristic(s, &t->pick);
		t->have_pick = space_contains(s, &t->pick);
	}
	size_t n = space_npoints(s);
	for (size_t i = 0; !t->have_pick && i < n; i++)
		if (!space_point(s, i, &t->pick) && space_contains(s, &t->pick))
			t->have_pick = 1;
	return t;
}

static int heuristic_next(struct tuner *t, struct config *c)
{
	if (t->proposed || !t->have_pick)
		return 0;
	t->proposed = 1;
	*c = t->pick;
	return 1;
}

/* What heuristic_next will propose: it never looks at what it observed (compiled ahead). */
static size_t heuristic_plan(const struct tuner *t, struct config *out, size_t max)
{
	return tuner_plan_by_copy(t, sizeof(*t), heuristic_next, out, max);
}

static void heuristic_observe(struct tuner *t, const struct config *c,
			      const struct trial_result *r)
{
	if (config_equal(t->space, c, &t->pick))
		t->ok = r->status == TRIAL_OK;
}

/* The pick if the worker compiled and checked it successfully, else -1. */
static int heuristic_best(struct tuner *t, struct config *out)
{
	if (!t->ok)
		return -1;
	*out = t->pick;
	return 0;
}

static void heuristic_free(struct tuner *t)
{
	free(t);
}

const struct tuner_ops tuner_heuristic = {
	.name = "heuristic",
	.flags = TUNER_COMPILES,
	.check_options = heuristic_check_options,
	.alloc = heuristic_alloc,
	.next = heuristic_next,
	.plan = heuristic_plan,
	.observe = heuristic_observe,
	.best = heuristic_best,
	.free = heuristic_free,
};
