/* plot-read.c: what the figures need from the results file beyond the report (plot.h,
 * struct plot_src): each unit's sample distribution in one cell and the tuning traces.  It
 * is all read here, before anything is drawn, so that a damaged results file is a bad input
 * (the caller's exit status 2), never a failed drawing. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/util.h"
#include "harness/output/plot-int.h"
#include "harness/record/recorder.h"

static int cmp_double(const void *p, const void *q)
{
	double a = *(const double *)p, b = *(const double *)q;
	return (a > b) - (a < b);
}

/* A new curve at the end of s's list (grown as needed); owned by s. */
static struct plot_curve *add_curve(struct plot_curve **list, size_t *n, size_t *cap)
{
	XGROW(*list, *cap, *n + 1);
	struct plot_curve *c = &(*list)[(*n)++];
	memset(c, 0, sizeof(*c));
	return c;
}

static void add_point(struct plot_curve *c, size_t *cap, double x, double y)
{
	if (c->n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		c->x = xrealloc(c->x, *cap * sizeof(*c->x));
		c->y = xrealloc(c->y, *cap * sizeof(*c->y));
	}
	c->x[c->n] = x;
	c->y[c->n++] = y;
}

/* The within-unit sample CDF of cell c for every ok cold unit, in /units order: at most
 * CDF_POINTS quantiles per unit, x in us, y the fraction of the unit's samples <= x. */
static int read_cdf(const struct analysis *a, struct rec *rec, const struct rec_unit *units,
		    size_t nunits, size_t c, struct plot_src *s)
{
	size_t cap = 0;
	for (size_t i = 0; i < nunits; i++) {
		const struct rec_unit *u = &units[i];
		long m = analysis_mode(a, u->mode);
		if (u->warm || strcmp(u->status, REC_STATUS_OK) || m < 0)
			continue;
		int64_t *cell = NULL, *ns = NULL;
		size_t n = 0, k = 0;
		if (rec_read_unit_samples(rec, i, &cell, &ns, &n))
			return -1;
		double *x = xmalloc((n ? n : 1) * sizeof(*x));
		for (size_t j = 0; j < n; j++)
			if (cell[j] == (int64_t)c)
				x[k++] = (double)ns[j] / 1e3;
		free(cell);
		free(ns);
		if (k) {
			qsort(x, k, sizeof(*x), cmp_double);
			struct plot_curve *cv = add_curve(&s->cdf, &s->ncdf, &cap);
			size_t pts = k < CDF_POINTS ? k : CDF_POINTS, pcap = 0;
			cv->mode = (size_t)m;
			for (size_t q = 0; q < pts; q++) {
				size_t j = pts == k ? q : (size_t)((double)(q + 1) * (double)k / (double)pts) - 1;
				add_point(cv, &pcap, x[j], (double)(j + 1) / (double)k);
			}
		}
		free(x);
	}
	return 0;
}

/* The tuning trace of op cell c: per mode, its first cold ok unit that benchmarked
 * candidates of the cell; points are (tuning time so far in s, best median so far in us)
 * in trial order. */
static int read_trace(const struct analysis *a, struct rec *rec, const struct rec_unit *units,
		      size_t nunits, size_t c, struct plot_src *s)
{
	struct rec_trial *trials = NULL;
	int64_t *trial_unit = NULL;
	size_t ntrials = 0, cap = 0;
	if (rec_read_trials(rec, &trial_unit, &trials, &ntrials))
		return -1;
	for (size_t m = 0; m < a->nmodes; m++) {
		size_t pick = nunits;
		for (size_t u = 0; u < nunits && pick == nunits; u++) {
			if (units[u].warm || strcmp(units[u].status, REC_STATUS_OK) ||
			    strcmp(units[u].mode, a->modes[m]))
				continue;
			for (size_t t = 0; t < ntrials; t++)
				if ((size_t)trial_unit[t] == u && (size_t)trials[t].cell == c &&
				    trials[t].nsamples > 0) {
					pick = u;
					break;
				}
		}
		if (pick == nunits)
			continue;
		struct plot_curve *cv = add_curve(&s->trace, &s->ntrace, &cap);
		size_t pcap = 0;
		double spent = 0, best = NAN;
		cv->mode = m;
		cv->name = xasprintf("%s (unit %" PRId64 ")", a->modes[m], units[pick].id);
		for (size_t t = 0; t < ntrials; t++) {
			if ((size_t)trial_unit[t] != pick || (size_t)trials[t].cell != c)
				continue;
			spent += (double)(trials[t].compile_ns + trials[t].bench_ns) / 1e9;
			if (!strcmp(trials[t].status, "ok") && trials[t].nsamples > 0 &&
			    (isnan(best) || trials[t].median_ns < best))
				best = trials[t].median_ns;
			if (!isnan(best))
				add_point(cv, &pcap, spent, best / 1e3);
		}
	}
	rec_trials_free(trial_unit, trials, ntrials);
	return 0;
}

int plot_src_read(const struct report *r, const char *cell, struct plot_src **out)
{
	const struct analysis *a = r->a;
	struct plot_src *s = xcalloc(1, sizeof(*s));
	struct rec *rec = NULL;
	struct rec_unit *units = NULL;
	size_t nunits = 0;
	int ret = -1;
	*out = NULL;
	s->trace_cell = -1;
	/* the CDF's cell: the one asked for, else the first e2e cell, else the first cell */
	if (cell) {
		long c = analysis_cell(a, cell);
		if (c < 0) {
			char *list = analysis_cell_list(a);
			error("'%s' has no cell '%s' (cells: %s)", a->path, cell, list);
			free(list);
			goto done;
		}
		s->cdf_cell = (size_t)c;
	} else {
		for (size_t c = a->ncells; c-- > 0;)
			if (!strcmp(a->cells[c].kind, "e2e"))
				s->cdf_cell = c;
	}
	/* the tuning trace's: the CDF's cell when it is an op cell, else the first op cell */
	if (a->ncells && !strcmp(a->cells[s->cdf_cell].kind, "op"))
		s->trace_cell = (long)s->cdf_cell;
	for (size_t c = 0; c < a->ncells && s->trace_cell < 0; c++)
		if (!strcmp(a->cells[c].kind, "op"))
			s->trace_cell = (long)c;
	if (!a->ncells) {
		ret = 0;
		goto done;
	}
	if (rec_open(a->path, 0, &rec) || rec_read_units(rec, &units, &nunits) ||
	    read_cdf(a, rec, units, nunits, s->cdf_cell, s) ||
	    (s->trace_cell >= 0 && read_trace(a, rec, units, nunits, (size_t)s->trace_cell, s)))
		goto done;
	ret = 0;
done:
	rec_units_free(units, nunits);
	if (rec && rec_close(rec))
		ret = -1;
	if (ret)
		plot_src_free(s);
	else
		*out = s;
	return ret;
}

static void free_curves(struct plot_curve *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].x);
		free(c[i].y);
		free(c[i].name);
	}
	free(c);
}

void plot_src_free(struct plot_src *s)
{
	if (!s)
		return;
	free_curves(s->cdf, s->ncdf);
	free_curves(s->trace, s->ntrace);
	free(s);
}
