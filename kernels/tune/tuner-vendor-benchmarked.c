/* tuner-vendor-benchmarked.c: the "vendor-benchmarked" tuner: every vendor candidate (each
 * algorithm cuBLASLt's heuristic offers, say) checked and benchmarked, the fastest correct
 * one chosen, as `torch.backends.cudnn.benchmark = True` does.  Its benchmarking is work a
 * cold unit must do, so the audit's cache-leak check covers it.  No options. */
#include "config.h"
#include "kernels/tuner.h"

#include <math.h>
#include <stdlib.h>

extern const struct tuner_ops tuner_vendor_benchmarked;

struct tuner {
	const struct space *space;
	size_t next, n;
	int have_best;
	struct config best;
	double best_ns;
};

static int vb_check_options(const struct tuner_check *c, char **cause)
{
	return tuner_check_known_options(&tuner_vendor_benchmarked, c, NULL, cause);
}

static struct tuner *vb_alloc(const struct tuner_args *a, char **cause)
{
	struct tuner *t = xcalloc(1, sizeof(*t));
	t->space = a->space;
	t->n = space_nvendors(a->space);
	t->best_ns = INFINITY;
	return t;
}

static int vb_next(struct tuner *t, struct config *c)
{
	if (t->next >= t->n)
		return 0;
	space_vendor_point(t->space, t->next++, c);
	return 1;
}

/* What vb_next will propose: it never looks at what it observed (compiled ahead). */
static size_t vb_plan(const struct tuner *t, struct config *out, size_t max)
{
	return tuner_plan_by_copy(t, sizeof(*t), vb_next, out, max);
}

/* The strictly lowest median of a correct trial; ties go to the earlier (the heuristic's
 * higher-ranked) candidate. */
static void vb_observe(struct tuner *t, const struct config *c, const struct trial_result *r)
{
	if (r->status != TRIAL_OK || r->nsamples < 1 || !isfinite(r->median_ns))
		return;
	if (!t->have_best || r->median_ns < t->best_ns) {
		t->have_best = 1;
		t->best = *c;
		t->best_ns = r->median_ns;
	}
}

static int vb_best(struct tuner *t, struct config *out)
{
	if (!t->have_best)
		return -1;
	*out = t->best;
	return 0;
}

static void vb_free(struct tuner *t)
{
	free(t);
}

const struct tuner_ops tuner_vendor_benchmarked = {
	.name = "vendor-benchmarked",
	.flags = TUNER_BENCHMARKS,
	.check_options = vb_check_options,
	.alloc = vb_alloc,
	.next = vb_next,
	.plan = vb_plan,
	.observe = vb_observe,
	.best = vb_best,
	.free = vb_free,
};
