/* plan.c: blocks and orders of units (see plan.h) */
#include "config.h"
#include "harness/run/plan.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "harness/base/util.h"

int plan_build(const struct experiment *e, struct rec_plan **plan, size_t *n)
{
	size_t per_block = 0;
	for (size_t m = 0; m < e->nmodes; m++)
		per_block += e->modes[m].warm_probe ? 2 : 1;
	size_t total = per_block * (size_t)e->repeats;
	struct rec_plan *p = xcalloc(total, sizeof(*p));
	size_t *order = xcalloc(e->nmodes, sizeof(*order));
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!rng) {
		free(p);
		free(order);
		return error("cannot allocate the GSL random number generator");
	}
	gsl_rng_set(rng, (unsigned long)e->seed);

	size_t k = 0;
	for (int64_t r = 0; r < e->repeats; r++) {
		for (size_t m = 0; m < e->nmodes; m++)
			order[m] = m;
		if (e->order == ORDER_RANDOMIZED)
			gsl_ran_shuffle(rng, order, e->nmodes, sizeof(*order));
		else if (e->order == ORDER_ABBA && (r % 2) == 1)
			for (size_t m = 0; m < e->nmodes / 2; m++) {
				size_t t = order[m];
				order[m] = order[e->nmodes - 1 - m];
				order[e->nmodes - 1 - m] = t;
			}
		int64_t pos = 0;
		for (size_t j = 0; j < e->nmodes; j++) {
			const struct mode *md = &e->modes[order[j]];
			struct rec_plan *u = &p[k];
			u->id = (int64_t)k;
			u->mode = xstrdup(md->name);
			u->repeat = r;
			u->block = r;
			u->position = pos++;
			u->warm = 0;
			u->warm_of = -1;
			k++;
			if (md->warm_probe) {
				struct rec_plan *w = &p[k];
				w->id = (int64_t)k;
				w->mode = xstrdup(md->name);
				w->repeat = r;
				w->block = r;
				w->position = pos++;
				w->warm = 1;
				w->warm_of = u->id;
				k++;
			}
		}
	}
	gsl_rng_free(rng);
	free(order);
	*plan = p;
	*n = total;
	return 0;
}
