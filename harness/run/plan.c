/* plan.c: blocks and orders of units (see plan.h) */
#include "config.h"
#include "harness/run/plan.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "harness/base/util.h"
#include "kernels/backend.h"

/* One unit of a block before ordering: a mode, and the workload it runs (-1: all). */
struct block_unit {
	size_t mode;
	ptrdiff_t workload;
};

int plan_build(const struct experiment *e, const char *const *backends, struct rec_plan **plan,
	       size_t *n)
{
	/* the units of one block: a mode each, or (unit_scope = "workload") a mode and one of
	 * the workloads it runs (its `workloads`, those for its backend), mode by mode in
	 * declared order */
	struct block_unit *units = NULL;
	size_t nunits = 0, cap = 0, per_block = 0;
	for (size_t m = 0; m < e->nmodes; m++) {
		size_t from = nunits;
		for (size_t w = 0; w < e->nworkloads && e->unit_scope == UNIT_SCOPE_WORKLOAD; w++) {
			if ((backends && backends[m] &&
			     !backend_workload_for(&e->workloads[w], backends[m])) ||
			    !mode_has_workload(&e->modes[m], e->workloads[w].name))
				continue;
			XGROW(units, cap, nunits + 1);
			units[nunits++] = (struct block_unit){ m, (ptrdiff_t)w };
		}
		if (nunits == from) { /* unit_scope = "mode", or no workload for its backend */
			XGROW(units, cap, nunits + 1);
			units[nunits++] = (struct block_unit){ m, -1 };
		}
		per_block += (nunits - from) * (e->modes[m].warm_probe ? 2 : 1);
	}
	size_t total = per_block * (size_t)e->repeats;
	struct rec_plan *p = xcalloc(total ? total : 1, sizeof(*p));
	size_t *order = xcalloc(nunits ? nunits : 1, sizeof(*order));
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!rng) {
		free(units);
		free(p);
		free(order);
		return error("cannot allocate the GSL random number generator");
	}
	gsl_rng_set(rng, (unsigned long)e->seed);

	size_t k = 0;
	for (int64_t r = 0; r < e->repeats; r++) {
		for (size_t m = 0; m < nunits; m++)
			order[m] = m;
		if (e->order == ORDER_RANDOMIZED)
			gsl_ran_shuffle(rng, order, nunits, sizeof(*order));
		else if (e->order == ORDER_ABBA && (r % 2) == 1)
			for (size_t m = 0; m < nunits / 2; m++) {
				size_t t = order[m];
				order[m] = order[nunits - 1 - m];
				order[nunits - 1 - m] = t;
			}
		int64_t pos = 0;
		for (size_t j = 0; j < nunits; j++) {
			const struct block_unit *sl = &units[order[j]];
			const struct mode *md = &e->modes[sl->mode];
			const char *wl = sl->workload >= 0 ? e->workloads[sl->workload].name : NULL;
			for (int warm = 0; warm <= (md->warm_probe ? 1 : 0); warm++) {
				struct rec_plan *u = &p[k];
				u->id = (int64_t)k;
				u->mode = xstrdup(md->name);
				u->workload = wl ? xstrdup(wl) : NULL;
				u->repeat = r;
				u->block = r;
				u->position = pos++;
				u->warm = warm;
				u->warm_of = warm ? (int64_t)k - 1 : -1;
				k++;
			}
		}
	}
	gsl_rng_free(rng);
	free(order);
	free(units);
	*plan = p;
	*n = total;
	return 0;
}
