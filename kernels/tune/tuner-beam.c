/* tuner-beam.c: the "beam" tuner, tinygrad's BEAM search (tinygrad/engine/search.py,
 * beam_search) over a config space:
 *
 *   round 0 times the start (the heuristic's point); beam = [start] (its median, or
 *   infinity when it was not ok: tinygrad starts from the untimed kernel)
 *   repeat:
 *     cands = every single-field move (radius 1, space_neighbour_values) of every beam
 *             member, in beam order, fields in order, ups before downs; a config already
 *             timed or queued, or invalid, is skipped (tinygrad's seen_libs)
 *     time them all; opts = the ok ones sorted by median (stable: ties keep proposal order)
 *     exiting = no opts, or beam[0] - opts[0] < min_progress
 *     if not exiting: beam = opts[:width]
 *     elif opts and opts[0] < beam[0]: beam = opts[:1]
 *   until exiting; the choice is beam[0]
 *
 * With width 1 this is greedy steepest descent.  Options: width (1..64, default 4, tinygrad's
 * BEAM=4), min_progress_us (number >= 0, default 0.01: tinygrad's BEAM_MIN_PROGRESS),
 * field_order, field_limits (as coordinate-descent's), and the common options. */
#include "config.h"
#include "kernels/tune/tuner-int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

extern const struct tuner_ops tuner_beam;

struct beam_item {
	struct config c;
	double ns;
};

struct tuner {
	const struct space *space;
	size_t width;
	double min_progress_ns;
	size_t order[SPACE_MAX_FIELDS], norder;
	int64_t limit[SPACE_MAX_FIELDS];
	struct tuner_memo memo;            /* every config timed or queued */
	struct beam_item *beam;            /* sorted, at most width */
	size_t nbeam;
	struct config *queue;              /* this round's proposals */
	size_t nqueue, qcap, qnext;
	struct beam_item *timed;           /* this round's ok results, in proposal order */
	size_t ntimed, tcap;
	struct config start;
	int done;
};

static int beam_check_options(const struct tuner_check *c, char **cause)
{
	static const struct tuner_rule rules[] = {
		{ "width", RULE_INT, 1, 64, NULL },
		{ "min_progress_us", RULE_FLOAT, 0, 1e6, NULL },
		{ "field_order", RULE_FIELD_ORDER, 0, 0, NULL },
		{ "field_limits", RULE_FIELD_LIMITS, 0, 0, NULL },
		{ NULL },
	};
	return tuner_check_rules(&tuner_beam, c, rules, cause);
}

static void enqueue(struct tuner *t, const struct config *c)
{
	static const struct trial_result queued = { .status = TRIAL_FAILED };
	if (!space_contains(t->space, c) || tuner_memo_find(&t->memo, t->space, c))
		return;
	tuner_memo_add(&t->memo, t->space, c, &queued);
	XGROW(t->queue, t->qcap, t->nqueue + 1);
	t->queue[t->nqueue++] = *c;
}

static struct tuner *beam_alloc(const struct tuner_args *a, char **cause)
{
	struct tuner *t = xcalloc(1, sizeof(*t));
	t->space = a->space;
	t->width = (size_t)tuner_opt_int(a, "width", 4);
	t->min_progress_ns = tuner_opt_float(a, "min_progress_us", 0.01) * 1e3;
	tuner_field_order(a, t->order, &t->norder);
	tuner_field_limits(a, t->limit);
	t->beam = xcalloc(t->width, sizeof(*t->beam));
	if (tuner_start_point(a->space, &t->start))
		t->done = 1;
	else
		enqueue(t, &t->start);
	return t;
}

static int by_ns(const void *x, const void *y)
{
	const struct beam_item *a = x, *b = y;
	return a->ns < b->ns ? -1 : a->ns > b->ns;
}

/* Stable sort by median (insertion sort: the round is small, and qsort is not stable). */
static void sort_stable(struct beam_item *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct beam_item x = v[i];
		size_t j = i;
		while (j > 0 && by_ns(&v[j - 1], &x) > 0) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

/* The round is measured: update the beam, queue the next round. */
static void end_round(struct tuner *t)
{
	sort_stable(t->timed, t->ntimed);
	int first = t->nbeam == 0;
	int exiting = t->ntimed == 0 ||
		      (!first && t->beam[0].ns - t->timed[0].ns < t->min_progress_ns);
	if (first && !t->ntimed) {
		/* the start was not ok: expand it untimed, as tinygrad's beam starts */
		t->beam[0].c = t->start;
		t->beam[0].ns = INFINITY;
		t->nbeam = 1;
		exiting = 0;
	} else if (!exiting) {
		t->nbeam = t->ntimed < t->width ? t->ntimed : t->width;
		memcpy(t->beam, t->timed, t->nbeam * sizeof(*t->beam));
	} else if (t->ntimed && (first || t->timed[0].ns < t->beam[0].ns)) {
		t->beam[0] = t->timed[0];
		t->nbeam = 1;
	}
	t->ntimed = 0;
	t->nqueue = t->qnext = 0;
	if (exiting) {
		t->done = 1;
		return;
	}
	for (size_t b = 0; b < t->nbeam; b++)
		for (size_t k = 0; k < t->norder; k++) {
			size_t f = t->order[k];
			int64_t v[4];
			size_t n = space_neighbour_values(t->space, f, t->beam[b].c.val[f], 1,
							  t->limit[f], 0, v);
			for (size_t j = 0; j < n; j++) {
				struct config c = t->beam[b].c;
				c.val[f] = v[j];
				enqueue(t, &c);
			}
		}
	if (!t->nqueue)
		t->done = 1;
}

static int beam_next(struct tuner *t, struct config *c)
{
	while (!t->done) {
		if (t->qnext < t->nqueue) {
			*c = t->queue[t->qnext++];
			return 1;
		}
		end_round(t);
	}
	return 0;
}

static void beam_observe(struct tuner *t, const struct config *c, const struct trial_result *r)
{
	tuner_memo_add(&t->memo, t->space, c, r);
	if (!tuner_result_ok(r))
		return;
	XGROW(t->timed, t->tcap, t->ntimed + 1);
	t->timed[t->ntimed].c = *c;
	t->timed[t->ntimed++].ns = r->median_ns;
}

/* beam[0], or, stopped by a budget mid-round, the best of the beam and this round. */
static int beam_best(struct tuner *t, struct config *out)
{
	const struct beam_item *b = t->nbeam && isfinite(t->beam[0].ns) ? &t->beam[0] : NULL;
	for (size_t i = 0; i < t->ntimed; i++)
		if (!b || t->timed[i].ns < b->ns)
			b = &t->timed[i];
	if (!b)
		return -1;
	*out = b->c;
	return 0;
}

static void beam_free(struct tuner *t)
{
	tuner_memo_release(&t->memo);
	free(t->beam);
	free(t->queue);
	free(t->timed);
	free(t);
}

const struct tuner_ops tuner_beam = {
	.name = "beam",
	.flags = TUNER_COMPILES | TUNER_BENCHMARKS,
	.check_options = beam_check_options,
	.alloc = beam_alloc,
	.next = beam_next,
	.observe = beam_observe,
	.best = beam_best,
	.free = beam_free,
};
