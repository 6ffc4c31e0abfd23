/* tuner-coordinate.c: the "coordinate-descent" tuner, with the semantics of Inductor's
 * CoordescTuner (torch/_inductor/runtime/coordinate_descent_tuner.py):
 *
 *   best = start (the heuristic config), best_t = its median (infinity when not ok)
 *   repeat:
 *     improved = false
 *     for each field f in field_order:
 *       for v in neighbours(f, best[f], radius 1, limit[f]):   -- computed once per field
 *         cand = best with f = v                                -- best as it is now
 *         if cand is a valid point and t(cand) < best_t * (1 - threshold):
 *           best, best_t, improved = cand, t(cand), true
 *     if not improved and check_all_directions:
 *       for cand in product over fields of neighbours(f, best[f], radius, limit[f], self):
 *         the same test and move
 *       improved = any move in that pass
 *   until not improved
 *
 * neighbours: space_neighbour_values() (double/halve, +-1 or next allowed value, per the
 * field's declared step; ups first, then downs).  t(c) is measured once per config: a
 * config met again is compared with its first median, not re-measured (Inductor's cache).
 * An invalid point is skipped, as Inductor skips a config that fails to compile.
 * Options: threshold (default 0.001), radius (default 1, used by the all-directions pass
 * as in Inductor), check_all_directions (default false), field_order, field_limits, and
 * the common max_trials, max_seconds, accept* (tuner-int.h). */
#include "config.h"
#include "kernels/tune/tuner-int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

extern const struct tuner_ops tuner_coordinate_descent;

#define CD_MAX_RADIUS 3
#define CD_MAX_NEIGH (2 * CD_MAX_RADIUS + 1)

enum cd_phase { CD_START, CD_FIELDS, CD_ALL, CD_DONE };

struct tuner {
	const struct space *space;
	double threshold;
	int radius, check_all;
	size_t order[SPACE_MAX_FIELDS], norder;
	int64_t limit[SPACE_MAX_FIELDS];
	struct tuner_memo memo;
	enum cd_phase phase;
	struct config start, best;
	double best_ns;        /* INFINITY until an ok trial is the incumbent */
	int improved;          /* a move in the current pass */
	/* per-field pass */
	size_t fi;             /* index into order */
	int field_started;
	int64_t cand[CD_MAX_NEIGH];
	size_t ncand, ci;
	/* all-directions pass: an odometer over the fields' neighbour lists */
	int64_t vals[SPACE_MAX_FIELDS][CD_MAX_NEIGH];
	size_t nvals[SPACE_MAX_FIELDS], odo[SPACE_MAX_FIELDS];
	int odo_done;
	int have_pending, baseline; /* a proposal awaits observe(); it is the start */
	struct config pending;
};

static int cd_check_options(const struct tuner_check *c, char **cause)
{
	static const struct tuner_rule rules[] = {
		{ "threshold", RULE_FLOAT, 0, 0.99, NULL },
		{ "radius", RULE_INT, 1, CD_MAX_RADIUS, NULL },
		{ "check_all_directions", RULE_BOOL, 0, 0, NULL },
		{ "field_order", RULE_FIELD_ORDER, 0, 0, NULL },
		{ "field_limits", RULE_FIELD_LIMITS, 0, 0, NULL },
		{ NULL },
	};
	return tuner_check_rules(&tuner_coordinate_descent, c, rules, cause);
}

static struct tuner *cd_alloc(const struct tuner_args *a, char **cause)
{
	struct tuner *t = xcalloc(1, sizeof(*t));
	t->space = a->space;
	t->threshold = tuner_opt_float(a, "threshold", 0.001);
	t->radius = (int)tuner_opt_int(a, "radius", 1);
	t->check_all = tuner_opt_bool(a, "check_all_directions", 0);
	tuner_field_order(a, t->order, &t->norder);
	tuner_field_limits(a, t->limit);
	t->best_ns = INFINITY;
	if (tuner_start_point(a->space, &t->start))
		t->phase = CD_DONE; /* no valid grid point: nothing to propose */
	t->best = t->start;
	return t;
}

/* Inductor's has_improvement: test < baseline * (1 - threshold). */
static void consider(struct tuner *t, const struct config *c, int ok, double ns)
{
	if (ok && ns < t->best_ns * (1.0 - t->threshold)) {
		t->best = *c;
		t->best_ns = ns;
		t->improved = 1;
	}
}

/* 1 when c is to be measured now (*c proposed); 0 when it was skipped (invalid, or met
 * before and compared from the memo). */
static int offer(struct tuner *t, const struct config *c)
{
	if (!space_contains(t->space, c))
		return 0;
	const struct tuner_memo_entry *m = tuner_memo_find(&t->memo, t->space, c);
	if (m) {
		consider(t, c, m->ok, m->ns);
		return 0;
	}
	t->pending = *c;
	t->have_pending = 1;
	return 1;
}

static void start_all_directions(struct tuner *t)
{
	for (size_t k = 0; k < t->norder; k++) {
		size_t f = t->order[k];
		t->nvals[k] = space_neighbour_values(t->space, f, t->best.val[f], t->radius,
						     t->limit[f], 1, t->vals[k]);
		t->odo[k] = 0;
	}
	t->odo_done = 0;
}

/* The odometer's current point (the first list slowest, as itertools.product), then the
 * odometer advanced. */
static void odometer_point(struct tuner *t, struct config *c)
{
	*c = t->best;
	for (size_t k = 0; k < t->norder; k++)
		c->val[t->order[k]] = t->vals[k][t->odo[k]];
	for (size_t k = t->norder; k-- > 0;) {
		if (++t->odo[k] < t->nvals[k])
			return;
		t->odo[k] = 0;
	}
	t->odo_done = 1;
}

static int cd_next(struct tuner *t, struct config *c)
{
	for (;;) {
		switch (t->phase) {
		case CD_DONE:
			return 0;
		case CD_START:
			t->phase = CD_FIELDS;
			t->fi = 0;
			t->field_started = 0;
			t->improved = 0;
			t->pending = t->start;
			t->have_pending = 1;
			t->baseline = 1;
			*c = t->start;
			return 1;
		case CD_FIELDS: {
			if (t->fi >= t->norder) {
				if (t->improved) {
					t->improved = 0;
					t->fi = 0;
					t->field_started = 0;
				} else if (t->check_all) {
					start_all_directions(t);
					t->phase = CD_ALL;
				} else {
					t->phase = CD_DONE;
				}
				continue;
			}
			size_t f = t->order[t->fi];
			if (!t->field_started) {
				t->ncand = space_neighbour_values(t->space, f, t->best.val[f], 1,
								  t->limit[f], 0, t->cand);
				t->ci = 0;
				t->field_started = 1;
			}
			if (t->ci >= t->ncand) {
				t->fi++;
				t->field_started = 0;
				continue;
			}
			struct config cand = t->best;
			cand.val[f] = t->cand[t->ci++];
			if (offer(t, &cand)) {
				*c = cand;
				return 1;
			}
			continue;
		}
		case CD_ALL: {
			if (t->odo_done || !t->norder) {
				if (t->improved) {
					t->improved = 0;
					t->phase = CD_FIELDS;
					t->fi = 0;
					t->field_started = 0;
				} else {
					t->phase = CD_DONE;
				}
				continue;
			}
			struct config cand;
			odometer_point(t, &cand);
			if (offer(t, &cand)) {
				*c = cand;
				return 1;
			}
			continue;
		}
		}
	}
}

static void cd_observe(struct tuner *t, const struct config *c, const struct trial_result *r)
{
	tuner_memo_add(&t->memo, t->space, c, r);
	if (!t->have_pending || !config_equal(t->space, c, &t->pending))
		return;
	t->have_pending = 0;
	if (t->baseline) {
		/* the baseline: its timing, whatever it is, or infinity */
		t->baseline = 0;
		t->best_ns = tuner_result_ok(r) ? r->median_ns : INFINITY;
		return;
	}
	consider(t, c, tuner_result_ok(r), r->median_ns);
}

static int cd_best(struct tuner *t, struct config *out)
{
	if (!isfinite(t->best_ns))
		return -1;
	*out = t->best;
	return 0;
}

static void cd_free(struct tuner *t)
{
	tuner_memo_release(&t->memo);
	free(t);
}

const struct tuner_ops tuner_coordinate_descent = {
	.name = "coordinate-descent",
	.flags = TUNER_COMPILES | TUNER_BENCHMARKS,
	.check_options = cd_check_options,
	.alloc = cd_alloc,
	.next = cd_next,
	.observe = cd_observe,
	.best = cd_best,
	.free = cd_free,
};
