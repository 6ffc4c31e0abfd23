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

#include <gsl/gsl_statistics_double.h>

#include "harness/base/util.h"

/* The methodology score over the cells of row i's tuner: the cells' curves averaged point
 * by point (the package's aggregation: the cells' axes have one length), their mean its
 * score, the standard deviation of that curve over its points its "error". */
static void method_aggregate(const struct replay *r, size_t i, struct replay_agg *a)
{
	const char *tuner = r->rows[i].tuner;
	size_t res = 0;
	double *A = NULL;
	a->mscore = a->merror = NAN;
	for (size_t j = i; j < r->nrows; j++) {
		const struct replay_method *m = &r->rows[j].m;
		if (strcmp(r->rows[j].tuner, tuner) || !m->ok || (res && m->res != res))
			continue;
		if (!res)
			A = xcalloc((res = m->res), sizeof(*A));
		for (size_t k = 0; k < res; k++)
			A[k] += m->curve[k];
		a->mcells++;
	}
	if (!a->mcells)
		return;
	for (size_t k = 0; k < res; k++)
		A[k] /= (double)a->mcells;
	a->mscore = gsl_stats_mean(A, 1, res);
	a->merror = sqrt(gsl_stats_variance_with_fixed_mean(A, 1, res, a->mscore));
	free(A);
}

void replay_aggregate(struct replay *r)
{
	r->agg = xcalloc(r->nrows + 1, sizeof(*r->agg));
	r->nagg = 0;
	double *v = xcalloc(r->nrows + 1, sizeof(*v));
	for (size_t i = 0; i < r->nrows; i++) {
		const char *tuner = r->rows[i].tuner;
		size_t k = 0, n = 0;
		while (k < r->nagg && strcmp(r->agg[k].tuner, tuner))
			k++;
		if (k < r->nagg)
			continue; /* this tuner's cells were gathered at its first row */
		for (size_t j = i; j < r->nrows; j++)
			if (!strcmp(r->rows[j].tuner, tuner))
				v[n++] = r->rows[j].score_mean[r->budget - 1];
		struct replay_agg *a = &r->agg[r->nagg++];
		*a = (struct replay_agg){ .tuner = tuner, .ncells = n,
					  .mean = gsl_stats_mean(v, 1, n),
					  .sd = n > 1 ? gsl_stats_sd(v, 1, n) : 0 };
		gsl_stats_minmax(&a->min, &a->max, v, 1, n);
		method_aggregate(r, i, a);
	}
	free(v);
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
