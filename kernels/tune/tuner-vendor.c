/* tuner-vendor.c: the "vendor" tuner: the vendor library's own choice (cuBLAS, OpenBLAS, or
 * the backend's built-in code), proposed once and never compiled or benchmarked */
#include "config.h"
#include "kernels/tuner.h"

#include <stdlib.h>
#include <string.h>

extern const struct tuner_ops tuner_vendor;

struct tuner {
	const struct space *space;
	int proposed;
	int failed;  /* an observation said the vendor path did not work */
};

static int vendor_check_options(const struct tuner_check *c, char **cause)
{
	return tuner_check_known_options(&tuner_vendor, c, NULL, cause);
}

static struct tuner *vendor_alloc(const struct tuner_args *a, char **cause)
{
	struct tuner *t = xcalloc(1, sizeof(*t));
	t->space = a->space;
	return t;
}

/* One proposal, the first vendor candidate (the library's own choice), when the space has
 * one. */
static int vendor_next(struct tuner *t, struct config *c)
{
	if (t->proposed || !t->space->has_vendor)
		return 0;
	t->proposed = 1;
	space_vendor_point(t->space, 0, c);
	return 1;
}

/* What vendor_next will propose: it never looks at what it observed (compiled ahead). */
static size_t vendor_plan(const struct tuner *t, struct config *out, size_t max)
{
	return tuner_plan_by_copy(t, sizeof(*t), vendor_next, out, max);
}

static void vendor_observe(struct tuner *t, const struct config *c, const struct trial_result *r)
{
	if (c->vendor && r->status != TRIAL_OK)
		t->failed = 1;
}

/* The vendor point, unless the space has none or the worker found it broken. */
static int vendor_best(struct tuner *t, struct config *out)
{
	if (!t->space->has_vendor || t->failed)
		return -1;
	space_vendor_point(t->space, 0, out);
	return 0;
}

static void vendor_free(struct tuner *t)
{
	free(t);
}

const struct tuner_ops tuner_vendor = {
	.name = "vendor",
	.flags = 0,
	.check_options = vendor_check_options,
	.alloc = vendor_alloc,
	.next = vendor_next,
	.plan = vendor_plan,
	.observe = vendor_observe,
	.best = vendor_best,
	.free = vendor_free,
};
