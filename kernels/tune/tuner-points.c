/* tuner-points.c: a space's valid points as vectors of value indices, and Kernel Tuner's
 * neighbour methods over them (its searchspace.py, read for the definitions), for the
 * population searches (genetic-algorithm, pso) */
#include "config.h"
#include "kernels/tune/tuner-int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int tuner_points_init(struct tuner_points *p, const struct space *s, size_t max, const char *who,
		      char **cause)
{
	memset(p, 0, sizeof(*p));
	p->valid = tuner_valid_points(s, max, who, &p->n, cause);
	if (!p->valid)
		return -1;
	p->space = s;
	p->nf = s->nfields;
	p->idx = xmalloc((p->n * p->nf > 0 ? p->n * p->nf : 1) * sizeof(*p->idx));
	for (size_t i = 0; i < p->n; i++) {
		struct config c;
		space_point(s, p->valid[i], &c);
		for (size_t f = 0; f < p->nf; f++)
			p->idx[i * p->nf + f] = (uint16_t)space_value_index(&s->fields[f], c.val[f]);
	}
	return 0;
}

void tuner_points_release(struct tuner_points *p)
{
	free(p->valid);
	free(p->idx);
	memset(p, 0, sizeof(*p));
}

void tuner_points_config_of(const struct tuner_points *p, const uint16_t *g, struct config *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t f = 0; f < p->nf; f++)
		out->val[f] = p->space->fields[f].values[g[f]];
}

void tuner_points_config(const struct tuner_points *p, size_t i, struct config *out)
{
	tuner_points_config_of(p, &p->idx[i * p->nf], out);
}

/* The space_point number k among the valid points (ascending): a binary search. */
size_t tuner_points_find(const struct tuner_points *p, const uint16_t *g)
{
	struct config c;
	tuner_points_config_of(p, g, &c);
	return tuner_points_at(p, &c);
}

size_t tuner_points_at(const struct tuner_points *p, const struct config *c)
{
	size_t i = tuner_valid_find(p->space, p->valid, p->n, c);
	return i < p->n ? i : TUNER_NO_POINT;
}

/* A partial Fisher-Yates shuffle of 0..n-1: its first k. */
void tuner_points_sample(const struct tuner_points *p, uint64_t *rng, size_t k, size_t *out)
{
	size_t *perm = xmalloc((p->n ? p->n : 1) * sizeof(*perm));
	for (size_t i = 0; i < p->n; i++)
		perm[i] = i;
	for (size_t i = 0; i < k && i < p->n; i++) {
		size_t j = i + (size_t)tuner_rand_below(rng, p->n - i);
		size_t x = perm[i];
		perm[i] = perm[j];
		perm[j] = x;
		out[i] = perm[i];
	}
	free(perm);
}

static int cmp_size(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	return a < b ? -1 : a > b;
}

/* Hamming: each other value of each field in turn, looked up (no scan of the points). */
static size_t hamming(const struct tuner_points *p, const uint16_t *g, size_t **out, size_t *cap)
{
	uint16_t x[SPACE_MAX_FIELDS];
	size_t n = 0;
	memcpy(x, g, p->nf * sizeof(*x));
	for (size_t f = 0; f < p->nf; f++) {
		for (size_t v = 0; v < p->space->fields[f].nvalues; v++) {
			if (v == g[f])
				continue;
			x[f] = (uint16_t)v;
			size_t i = tuner_points_find(p, x);
			if (i != TUNER_NO_POINT) {
				XGROW(*out, *cap, n + 1);
				(*out)[n++] = i;
			}
		}
		x[f] = g[f];
	}
	qsort(*out, n, sizeof(**out), cmp_size);
	return n;
}

/* The adjacent methods scan the points.  lo[f] <= d <= hi[f] for every field's index
 * difference d, and some field differs. */
static size_t within(const struct tuner_points *p, const uint16_t *g, const long *lo,
		     const long *hi, size_t **out, size_t *cap)
{
	size_t n = 0;
	for (size_t i = 0; i < p->n; i++) {
		const uint16_t *x = &p->idx[i * p->nf];
		int ok = 1, same = 1;
		for (size_t f = 0; f < p->nf && ok; f++) {
			long d = (long)x[f] - (long)g[f];
			ok = d >= lo[f] && d <= hi[f];
			same &= d == 0;
		}
		if (ok && !same) {
			XGROW(*out, *cap, n + 1);
			(*out)[n++] = i;
		}
	}
	return n;
}

size_t tuner_points_neighbours(const struct tuner_points *p, const uint16_t *g,
			       enum tuner_neighbours m, size_t **out, size_t *cap)
{
	long lo[SPACE_MAX_FIELDS], hi[SPACE_MAX_FIELDS];
	if (m == TUNER_HAMMING)
		return hamming(p, g, out, cap);
	for (size_t f = 0; f < p->nf; f++) {
		lo[f] = -1;
		hi[f] = 1;
	}
	if (m == TUNER_ADJACENT) {
		/* per field, the nearest index difference on either side any valid point has
		 * (none on a side: that side is unbounded, as Kernel Tuner's dtype limits) */
		for (size_t f = 0; f < p->nf; f++) {
			lo[f] = -(long)SPACE_MAX_VALUES;
			hi[f] = (long)SPACE_MAX_VALUES;
		}
		for (size_t i = 0; i < p->n; i++)
			for (size_t f = 0; f < p->nf; f++) {
				long d = (long)p->idx[i * p->nf + f] - (long)g[f];
				if (d > 0 && d < hi[f])
					hi[f] = d;
				else if (d < 0 && d > lo[f])
					lo[f] = d;
			}
	}
	return within(p, g, lo, hi, out, cap);
}

void tuner_scores_init(struct tuner_scores *sc, size_t n)
{
	sc->ns = xmalloc((n ? n : 1) * sizeof(*sc->ns));
	for (size_t i = 0; i < n; i++)
		sc->ns[i] = NAN;
	sc->nmeasured = 0;
	sc->best_at = TUNER_NO_POINT;
	sc->best_ns = INFINITY;
}

void tuner_scores_release(struct tuner_scores *sc)
{
	free(sc->ns);
	sc->ns = NULL;
}

void tuner_scores_observe(struct tuner_scores *sc, const struct tuner_points *p,
			  const struct config *c, const struct trial_result *r)
{
	size_t i = tuner_points_at(p, c);
	if (i == TUNER_NO_POINT)
		return;
	sc->nmeasured += isnan(sc->ns[i]);
	sc->ns[i] = tuner_result_ok(r) ? r->median_ns : INFINITY;
	if (sc->ns[i] < sc->best_ns) {
		sc->best_ns = sc->ns[i];
		sc->best_at = i;
	}
}

int tuner_scores_pending(const struct tuner_scores *sc, size_t at, double *score)
{
	if (at == TUNER_NO_POINT) {
		*score = INFINITY;
		return 0;
	}
	if (isnan(sc->ns[at]))
		return 1;
	*score = sc->ns[at];
	return 0;
}

int tuner_scores_best(const struct tuner_scores *sc, const struct tuner_points *p,
		      struct config *out)
{
	if (sc->best_at == TUNER_NO_POINT)
		return -1;
	tuner_points_config(p, sc->best_at, out);
	return 0;
}
