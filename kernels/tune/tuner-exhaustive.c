/* tuner-exhaustive.c: the "exhaustive" tuner: every vendor candidate and every valid grid
 * point (up to max_configs proposals), each compiled, checked and benchmarked; the lowest median
 * among the correct ones wins.
 * Options: include_vendor (bool, default true), max_configs (int >= 1, default unlimited),
 * field_values (a table of field = [values]: only the grid points whose field takes one of
 * them; an ablation of a field as a mode of its own, e.g. { STREAM_K = [0] }). */
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
	struct space_walk walk; /* the next point (space_point's order) to look at */
	/* field_values: per field of the space, the values allowed (nallow[f] == 0: all) */
	int64_t allow[SPACE_MAX_FIELDS][SPACE_MAX_VALUES];
	size_t nallow[SPACE_MAX_FIELDS];
	int have_best;
	struct config best;
	double best_ns;
};

static const char *const exhaustive_known[] = { "include_vendor", "max_configs", "field_values",
						 NULL };

/* field_values: a table keyed by field name (tuner_check_field_option: known fields, none
 * twice), each a non-empty list of integers >= 0. */
static int check_field_values(const struct tuner_option *o, const struct tuner_check *c,
			      char **cause)
{
	if (o->type != TUNER_OPT_TABLE) {
		*cause = xasprintf("%d:%d: 'field_values' must be a table of field = [values], not "
				   "%s", o->line, o->col, tuner_option_type_phrase(o->type));
		return -1;
	}
	if (tuner_check_field_option(o, c, cause))
		return -1;
	for (size_t i = 0; i < o->nitems; i++) {
		const struct tuner_option *e = &o->items[i];
		if (e->type != TUNER_OPT_LIST || e->nitems == 0 || e->nitems > SPACE_MAX_VALUES) {
			*cause = xasprintf("%d:%d: 'field_values': field '%s' needs a list of 1 to %d "
					   "values", e->line, e->col, e->key, SPACE_MAX_VALUES);
			return -1;
		}
		for (size_t k = 0; k < e->nitems; k++)
			if (e->items[k].type != TUNER_OPT_INT || e->items[k].i < 0) {
				*cause = xasprintf("%d:%d: 'field_values': the values of field '%s' "
						   "must be integers >= 0", e->items[k].line,
						   e->items[k].col, e->key);
				return -1;
			}
	}
	return 0;
}

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
		if (!strcmp(o->key, "field_values") && check_field_values(o, c, cause))
			return -1;
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
	o = tuner_option_find(a->options, a->noptions, "field_values");
	for (size_t i = 0; o && o->type == TUNER_OPT_TABLE && i < o->nitems; i++) {
		const struct tuner_option *e = &o->items[i];
		size_t f = space_field_find(a->space, e->key);
		if (f >= a->space->nfields || e->type != TUNER_OPT_LIST)
			continue; /* a field of another op's space */
		for (size_t k = 0; k < e->nitems && t->nallow[f] < SPACE_MAX_VALUES; k++)
			t->allow[f][t->nallow[f]++] = e->items[k].i;
	}
	t->nvendors = t->include_vendor ? space_nvendors(a->space) : 0;
	space_walk_init(a->space, &t->walk);
	t->best_ns = INFINITY;
	return t;
}

/* 1 when c's fields take values field_values allows. */
static int allowed(const struct tuner *t, const struct config *c)
{
	for (size_t f = 0; f < t->space->nfields; f++) {
		if (!t->nallow[f])
			continue;
		size_t k = 0;
		while (k < t->nallow[f] && t->allow[f][k] != c->val[f])
			k++;
		if (k == t->nallow[f])
			return 0;
	}
	return 1;
}

/* The vendor candidates first, then the grid in space_point() order, skipping points
 * the space's constraint excludes and those field_values leaves out. */
static int exhaustive_next(struct tuner *t, struct config *c)
{
	if (t->max_configs && t->proposed >= t->max_configs)
		return 0;
	if (t->next_vendor < t->nvendors) {
		space_vendor_point(t->space, t->next_vendor++, c);
		t->proposed++;
		return 1;
	}
	while (!space_walk_next(t->space, &t->walk, c, NULL)) {
		if (allowed(t, c) && space_check_grid(t->space, c, NULL)) {
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
