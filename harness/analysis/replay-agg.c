/* replay-agg.c: a replay's tuners over its cells (replay.h, replay_aggregate): each tuner's
 * mean score at the full budget averaged over the cells, with its spread, as the field
 * aggregates over spaces (issue 47) */
#include "config.h"
#include "harness/analysis/replay.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/util.h"

void replay_aggregate(struct replay *r)
{
	r->agg = xcalloc(r->nrows + 1, sizeof(*r->agg));
	r->nagg = 0;
	for (size_t i = 0; i < r->nrows; i++) {
		size_t k = 0;
		while (k < r->nagg && strcmp(r->agg[k].tuner, r->rows[i].tuner))
			k++;
		if (k == r->nagg)
			r->agg[r->nagg++] = (struct replay_agg){ .tuner = r->rows[i].tuner,
								  .min = INFINITY, .max = -INFINITY };
		struct replay_agg *a = &r->agg[k];
		double v = r->rows[i].score_mean[r->budget - 1];
		a->ncells++;
		a->mean += v;
		a->sd += v * v;
		a->min = v < a->min ? v : a->min;
		a->max = v > a->max ? v : a->max;
	}
	for (size_t k = 0; k < r->nagg; k++) {
		struct replay_agg *a = &r->agg[k];
		double n = (double)a->ncells, m = a->mean / n;
		a->sd = a->ncells > 1 ? sqrt(fmax(0, (a->sd - n * m * m) / (n - 1))) : 0;
		a->mean = m;
	}
}
