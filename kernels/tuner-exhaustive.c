/* tuner-exhaustive.c: the "exhaustive" tuner: every vendor candidate and every valid grid
 * point (up to max_configs proposals), each compiled, checked and benchmarked; the lowest median
 * among the correct ones wins.
 * Options: include_vendor (bool, default true), max_configs (int >= 1, default unlimited). */
#include "config.h"
#include "kernels/tuner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

extern const struct tuner_ops tuner_exhaustive;

struct tuner {
	const struct space *space;
	int include_vendor;
	int64_t max_configs;  /* proposals allowed in all; 0: unlimited */
	int64_t proposed;
	size_t next_vendor;   /* next vendor candidate to propose */
	size_t nvendors;      /* candidates to propose (0 when include_vendor is false) */
	size_t next_idx;      /* next grid index to look at */
	size_t grid;          /* space_grid_size() */
	int have_best;
	struct config best;
	double best_ns;
};

static const char *const exhaustive_known[] = { "include_vendor", "max_configs", NULL };

static int exhaustive_check_options(const struct tuner_check *c, char **cause)
{
	if (tuner_check_known_options(&tuner_exhaustive, c, exhaustive_known, cause))
		return -1;
	for (size_t i = 0; i < c->noptions; i++) {
		const struct tuner_option *o = &c->options[i];
		if (!strcmp(o->key, "include_vendor") && o->type != TUNER_OPT_BOOL) {
			*cause = xasprintf("%d:%d: 'include_vendor' must be a boolean", o->line,
					   o->col);
			return -1;
		}
		if (!strcmp(o->key, "max_configs") && (o->type != TUNER_OPT_INT || o->i < 1)) {
			*cause = xasprintf("%d:%d: 'max_configs' must be an integer >= 1", o->line,
					   o->col);
			return -1;
		}
	}
	return 0;
}

/* Options were checked by check_options; anything else falls back to the default. */
static struct tuner *exhaustive_alloc(const struct tuner_args *a, char **cause)
{
	struct tuner *t = xcalloc(1, sizeof(*t));
	const struct tuner_option *o;

	t->space = a->space;
	t->include_vendor = 1;
	o = tuner_option_find(a->options, a->noptions, "include_vendor");
	if (o && o->type == TUNER_OPT_BOOL)
		t->include_vendor = o->i != 0;
	o = tuner_option_find(a->options, a->noptions, "max_configs");
	if (o && o->type == TUNER_OPT_INT && o->i >= 1)
		t->max_configs = o->i;
	t->nvendors = t->include_vendor ? space_nvendors(a->space) : 0;
	t->grid = space_grid_size(a->space);
	t->best_ns = INFINITY;
	return t;
}

/* The vendor candidates first, then the grid in space_grid_point() order, skipping points
 * the space's constraint excludes. */
static int exhaustive_next(struct tuner *t, struct config *c)
{
	if (t->max_configs && t->proposed >= t->max_configs)
		return 0;
	if (t->next_vendor < t->nvendors) {
		space_vendor_point(t->space, t->next_vendor++, c);
		t->proposed++;
		return 1;
	}
	while (t->next_idx < t->grid) {
		if (space_grid_point(t->space, t->next_idx++, c))
			break;
		if (space_contains(t->space, c)) {
			t->proposed++;
			return 1;
		}
	}
	return 0;
}

/* What exhaustive_next will propose: it never looks at what it observed. */
static size_t exhaustive_plan(const struct tuner *t, struct config *out, size_t max)
{
	return tuner_plan_by_copy(t, sizeof(*t), exhaustive_next, out, max);
}

/* Keep the strictly lowest median of a correct trial: ties go to the earlier proposal. */
static void exhaustive_observe(struct tuner *t, const struct config *c,
			       const struct trial_result *r)
{
	if (r->status != TRIAL_OK || r->nsamples < 1 || !isfinite(r->median_ns))
		return;
	if (!t->have_best || r->median_ns < t->best_ns) {
		t->have_best = 1;
		t->best = *c;
		t->best_ns = r->median_ns;
	}
}

static int exhaustive_best(struct tuner *t, struct config *out)
{
	if (!t->have_best)
		return -1;
	*out = t->best;
	return 0;
}

static void exhaustive_free(struct tuner *t)
{
	free(t);
}

const struct tuner_ops tuner_exhaustive = {
	.name = "exhaustive",
	.flags = TUNER_COMPILES | TUNER_BENCHMARKS,
	.check_options = exhaustive_check_options,
	.alloc = exhaustive_alloc,
	.next = exhaustive_next,
	.plan = exhaustive_plan,
	.observe = exhaustive_observe,
	.best = exhaustive_best,
	.free = exhaustive_free,
};
