/* replay-agg.c: a replay's tuners over its cells (replay.h, replay_aggregate): each tuner's
 * mean score at the full budget averaged over the cells, with its spread, as the field
 * aggregates over spaces (issue 47); and several files' replays in one table
 * (replay_merge) */
#include "config.h"
#include "harness/analysis/replay.h"

#include <inttypes.h>
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

/* "prefix: text" in place of *s. */
static void prefix(char **s, const char *p)
{
	char *n = xasprintf("%s: %s", p, *s);
	free(*s);
	*s = n;
}

int replay_merge(struct replay *into, struct replay *from)
{
	if (into->budget != from->budget) {
		error("'%s' replays over %" PRId64 " trials and '%s' over %" PRId64 ": several files "
		      "share one table only with a budget in trials (--budget N)", into->path,
		      into->budget, from->path, from->budget);
		return -1;
	}
	if (!into->nsources) { /* the first file's rows, named by their file from now on */
		for (size_t i = 0; i < into->nrows; i++)
			prefix(&into->rows[i].cell, into->path);
		for (size_t i = 0; i < into->nleft_out; i++)
			prefix(&into->left_out[i], into->path);
		into->nsources = 1;
	}
	into->rows = xrealloc(into->rows, (into->nrows + from->nrows) * sizeof(*into->rows));
	for (size_t i = 0; i < from->nrows; i++) {
		into->rows[into->nrows] = from->rows[i];
		prefix(&into->rows[into->nrows++].cell, from->path);
	}
	from->nrows = 0;
	into->left_out = xrealloc(into->left_out, (into->nleft_out + from->nleft_out + 1) *
						  sizeof(*into->left_out));
	for (size_t i = 0; i < from->nleft_out; i++) {
		into->left_out[into->nleft_out] = from->left_out[i];
		prefix(&into->left_out[into->nleft_out++], from->path);
	}
	from->nleft_out = 0;
	into->nsources++;
	free(into->agg);
	replay_aggregate(into);
	return 0;
}
