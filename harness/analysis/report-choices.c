/* report-choices.c: where a mode's units chose differently (report.h, struct rep_choice).
 * A mode run again in a fresh process may choose other kernels: a tuner that measures picks
 * among near-equal candidates by noise (Inductor's launch-time autotuning), a heuristic may
 * read the device.  Per mode, with its A/A copies (the same configuration), and cell, the
 * configs its ok cold units chose and the median of each group's unit medians: what the slow
 * units ran that the fast ones did not. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/analysis/report-int.h"
#include "harness/base/util.h"

static int dbl_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

static int row_cmp(const void *x, const void *y)
{
	const struct rep_choice *a = x, *b = y;
	return dbl_cmp(&a->median_ns, &b->median_ns);
}

/* The mode mode g is an A/A copy of, or NULL. */
static const char *copy_of(const struct analysis *a, size_t g)
{
	return a->aa_of ? a->aa_of[g] : NULL;
}

/* 1 when mode g belongs to m's group: m itself or an A/A copy of it. */
static int in_group(const struct analysis *a, size_t g, size_t m)
{
	return g == m || (copy_of(a, g) && !strcmp(copy_of(a, g), a->modes[m]));
}

/* The rows of mode m's group in cell c, appended to r->choices when its units chose two
 * configs or more.  v: scratch for nmodes * nblocks values. */
static void cell_rows(struct report *r, size_t m, size_t c, double *v)
{
	const struct analysis *a = r->a;
	size_t nc = a->ncells, nb = a->nblocks, start = r->nchoices, copies = 0;
	for (size_t g = 0; g < a->nmodes; g++)
		copies += g != m && in_group(a, g, m);
	for (size_t g = 0; g < a->nmodes; g++) {
		for (size_t b = 0; in_group(a, g, m) && b < nb; b++) {
			const char *cfg = a->choice[(g * nc + c) * nb + b];
			if (!cfg || isnan(an_med(a, g, c, b)))
				continue;
			size_t k = start;
			while (k < r->nchoices && strcmp(r->choices[k].config, cfg))
				k++;
			if (k == r->nchoices) {
				r->choices = xrealloc(r->choices, (k + 1) * sizeof(*r->choices));
				r->choices[k] = (struct rep_choice){ .mode = m, .cell = c,
								     .with_copies = copies > 0,
								     .config = cfg };
				r->nchoices++;
			}
		}
	}
	if (r->nchoices - start < 2) { /* one config (or none): nothing differs */
		for (size_t k = start; k < r->nchoices; k++)
			free(r->choices[k].blocks);
		r->nchoices = start;
		return;
	}
	for (size_t k = start; k < r->nchoices; k++) {
		struct rep_choice *q = &r->choices[k];
		size_t n = 0, len = 0;
		q->blocks = xstrdup("");
		for (size_t g = 0; g < a->nmodes; g++)
			for (size_t b = 0; in_group(a, g, m) && b < nb; b++) {
				const char *cfg = a->choice[(g * nc + c) * nb + b];
				if (!cfg || strcmp(cfg, q->config) || isnan(an_med(a, g, c, b)))
					continue;
				v[n++] = an_med(a, g, c, b);
				char *more = xasprintf("%s%s%lld%s%s", q->blocks, len ? ", " : "",
						       (long long)a->blocks[b], g == m ? "" : " ",
						       g == m ? "" : a->modes[g]);
				free(q->blocks);
				q->blocks = more;
				len = strlen(more);
			}
		qsort(v, n, sizeof(*v), dbl_cmp);
		q->units = n;
		q->median_ns = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
	}
	qsort(r->choices + start, r->nchoices - start, sizeof(*r->choices), row_cmp);
	for (size_t k = start; k < r->nchoices; k++)
		r->choices[k].ratio = r->choices[k].median_ns / r->choices[start].median_ns;
}

void report_choices(struct report *r)
{
	const struct analysis *a = r->a;
	if (!a->choice)
		return;
	double *v = xmalloc((a->nmodes * a->nblocks + 1) * sizeof(*v));
	for (size_t m = 0; m < a->nmodes; m++)
		for (size_t c = 0; !copy_of(a, m) && c < a->ncells; c++)
			cell_rows(r, m, c, v);
	free(v);
}

void report_choices_free(struct report *r)
{
	for (size_t k = 0; k < r->nchoices; k++)
		free(r->choices[k].blocks);
	free(r->choices);
}
