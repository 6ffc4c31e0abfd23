/* plot-figs.c: one function per kind of figure (docs/plots.md): each writes its data files
 * and its part of the gnuplot script (plot-int.h); plot.c runs the script */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/util.h"
#include "harness/output/plot-int.h"
#include "harness/record/recorder.h"
#include "stats/stats.h"

/* ---- the figures ------------------------------------------------------------------------ */

/* Forest: every comparison against the baseline, one row each, top to bottom in the
 * report's order.  Columns: row, ratio, lo, hi, verdict (0..3 as enum stats_verdict), label. */
int fig_forest(struct gp *g)
{
	const struct report *r = g->r;
	const struct analysis *a = r->a;
	size_t rows = 0;
	for (size_t i = 0; i < r->ncmp; i++)
		rows += r->cmp[i].ok;
	if (!rows) {
		plot_skip(g, "forest: no comparison against the baseline could be made");
		return 0;
	}
	char *path = NULL;
	FILE *f = data_open(g, &path);
	if (!f) {
		free(path);
		return -1;
	}
	size_t row = rows;
	for (size_t i = 0; i < r->ncmp; i++) {
		const struct rep_cmp *x = &r->cmp[i];
		if (!x->ok)
			continue;
		double lo = isnan(x->c.lo) ? x->c.ratio : x->c.lo, hi = isnan(x->c.hi) ? x->c.ratio : x->c.hi;
		fprintf(f, "%zu", row--);
		data_num(f, x->c.ratio);
		data_num(f, lo);
		data_num(f, hi);
		fprintf(f, " %d ", (int)x->c.verdict);
		char *label = xasprintf("%s | %s", a->cells[x->cell].name, a->modes[x->mode]);
		data_label(f, label);
		free(label);
		fputc('\n', f);
	}
	int ret = data_close(f, path);
	char *title = xasprintf("Ratio to the baseline '%s' per cell and mode (%s)",
				a->modes[r->baseline], a->paired ? "paired by block" : "unpaired");
	int h = rows > (PLOT_H - 150) / FOREST_ROW_PX ? (int)rows * FOREST_ROW_PX + 150 : PLOT_H;
	figure_begin(g, "forest", NULL, title, path, h);
	sbuf_addf(&g->script, "nrows = %zu\n", rows);
	gp_setnum(&g->script, "margin", r->margin);
	sbuf_adds(&g->script, "array verdict_names[4] = ['FASTER', 'SLOWER', 'SAME', 'INCONCLUSIVE']\n");
	free(title);
	free(path);
	return ret ? ret : figure_end(g, "forest");
}

/* A deterministic jitter in [-0.18, 0.18) for the i-th point of a strip (golden ratio). */
static double jitter(size_t i)
{
	double u = (double)i * 0.6180339887498949;
	return 0.36 * (u - floor(u) - 0.5);
}

/* Per cell: unit medians per mode.  Index block m (one per mode, in order): columns
 * mode number (1-based), unit median (us), jittered x. */
int fig_cell(struct gp *g, size_t c)
{
	const struct report *r = g->r;
	const struct analysis *a = r->a;
	char *path = NULL;
	FILE *f = data_open(g, &path);
	if (!f) {
		free(path);
		return -1;
	}
	for (size_t m = 0; m < a->nmodes; m++) {
		size_t k = 0;
		if (m)
			fputs("\n\n", f);
		for (size_t b = 0; b < a->nblocks; b++) {
			double v = an_med(a, m, c, b);
			if (isnan(v))
				continue;
			fprintf(f, "%zu", m + 1);
			data_num(f, v / 1e3);
			data_num(f, (double)(m + 1) + jitter(k++));
			fputc('\n', f);
		}
		if (!k)
			fprintf(f, "%zu NaN NaN\n", m + 1);
	}
	int ret = data_close(f, path);
	const struct stats_summary *bs = &r->sum[r->baseline * a->ncells + c].s;
	char *title = xasprintf("%s (%s): unit medians by mode", a->cells[c].name, a->cells[c].kind);
	figure_begin(g, "cell", g->slug[c], title, path, PLOT_H);
	gp_setnum(&g->script, "base_q1", bs->q1 / 1e3);
	gp_setnum(&g->script, "base_med", bs->median / 1e3);
	gp_setnum(&g->script, "base_q3", bs->q3 / 1e3);
	free(title);
	free(path);
	return ret ? ret : figure_end(g, "cell");
}

struct front_pt {
	double x, y;
};

static int cmp_front(const void *p, const void *q)
{
	const struct front_pt *a = p, *b = q;
	return a->x < b->x ? -1 : a->x > b->x ? 1 : (a->y > b->y) - (a->y < b->y);
}

/* Per cell: latency against setup time.  Index 0, a row per mode with units: setup
 * median, q1, q3 (s), latency median, q1, q3 (us), on the front (0/1), mode number,
 * name.  Index 1: the front's points by setup time, to draw it as a line. */
int fig_pareto(struct gp *g, size_t c)
{
	const struct report *r = g->r;
	const struct analysis *a = r->a;
	char *path = NULL;
	FILE *f = data_open(g, &path);
	if (!f) {
		free(path);
		return -1;
	}
	struct front_pt *fr = xcalloc(a->nmodes, sizeof(*fr));
	size_t nf = 0;
	for (size_t m = 0; m < a->nmodes; m++) {
		const struct rep_summary *s = &r->sum[m * a->ncells + c];
		if (!s->n)
			continue;
		int on = r->front[m * a->ncells + c];
		data_num(f, s->setup.median);
		data_num(f, s->setup.q1);
		data_num(f, s->setup.q3);
		data_num(f, s->s.median / 1e3);
		data_num(f, s->s.q1 / 1e3);
		data_num(f, s->s.q3 / 1e3);
		fprintf(f, " %d %zu ", on, m + 1);
		data_label(f, a->modes[m]);
		fputc('\n', f);
		if (on)
			fr[nf++] = (struct front_pt){ s->setup.median, s->s.median / 1e3 };
	}
	qsort(fr, nf, sizeof(*fr), cmp_front);
	fputs("\n\n", f);
	for (size_t i = 0; i < nf; i++)
		fprintf(f, "%.9g %.9g\n", fr[i].x, fr[i].y);
	if (!nf)
		fputs("NaN NaN\n", f);
	free(fr);
	int ret = data_close(f, path);
	char *title = xasprintf("%s: latency against setup time (Pareto front circled)", a->cells[c].name);
	figure_begin(g, "pareto", g->slug[c], title, path, PLOT_H);
	free(title);
	free(path);
	return ret ? ret : figure_end(g, "pareto");
}

/* Drift: per mode (index block m), each ok unit's run position and level, the geometric
 * mean over cells of its median relative to the mode's median in the cell (the level
 * report.c's drift() correlates with run order). */
int fig_drift(struct gp *g)
{
	const struct report *r = g->r;
	const struct analysis *a = r->a;
	size_t nb = a->nblocks;
	char *path = NULL;
	FILE *f = data_open(g, &path);
	if (!f) {
		free(path);
		return -1;
	}
	/* the report's per-unit levels (report.c drift()), in run order */
	struct front_pt *pt = xcalloc(nb ? nb : 1, sizeof(*pt));
	for (size_t m = 0; m < a->nmodes; m++) {
		size_t k = 0;
		if (m)
			fputs("\n\n", f);
		for (size_t i = 0; i < r->ndrift; i++)
			if (r->drift[i].mode == m)
				for (size_t j = 0; j < r->drift[i].n; j++)
					pt[k++] = (struct front_pt){ r->drift[i].order[j],
								     r->drift[i].level[j] };
		qsort(pt, k, sizeof(*pt), cmp_front); /* in run order */
		for (size_t i = 0; i < k; i++)
			fprintf(f, "%.0f %.9g\n", pt[i].x, pt[i].y);
		if (!k)
			fputs("NaN NaN\n", f);
	}
	free(pt);
	int ret = data_close(f, path);
	figure_begin(g, "drift", NULL, "Unit level against run order, per mode", path, PLOT_H);
	sbuf_addf(&g->script, "array mode_notes[%zu] = [", a->nmodes);
	for (size_t m = 0; m < a->nmodes; m++) {
		char *note = NULL;
		for (size_t i = 0; i < r->ndrift; i++)
			if (r->drift[i].mode == m && !isnan(r->drift[i].rho))
				note = xasprintf("%s (rho %.2f, p %.3g%s)", a->modes[m], r->drift[i].rho,
						 r->drift[i].p, r->drift[i].flagged ? ", DRIFT" : "");
		if (m)
			sbuf_adds(&g->script, ", ");
		gp_str(&g->script, note ? note : a->modes[m]);
		free(note);
	}
	sbuf_adds(&g->script, "]\n");
	free(path);
	return ret ? ret : figure_end(g, "drift");
}

/* Per-op against e2e: per workload with an e2e cell (index block w), a row per mode: op
 * geomean ratio, lo, hi, e2e ratio, lo, hi, label.  The baseline sits at (1, 1). */
int fig_op_e2e(struct gp *g)
{
	const struct report *r = g->r;
	const struct analysis *a = r->a;
	const char **work = xcalloc(r->nagg + 1, sizeof(*work));
	size_t nw = 0;
	for (size_t i = 0; i < r->nagg; i++) {
		const struct rep_agg *x = &r->agg[i];
		if (!x->has_e2e || !strcmp(x->scope, "all") || isnan(x->geomean) || !x->ncells)
			continue;
		size_t w = 0;
		while (w < nw && strcmp(work[w], x->scope))
			w++;
		if (w == nw)
			work[nw++] = x->scope;
	}
	if (!nw) {
		free(work);
		plot_skip(g, "op-e2e: no workload has both op cells and an e2e cell");
		return 0;
	}
	char *path = NULL;
	FILE *f = data_open(g, &path);
	if (!f) {
		free(work);
		free(path);
		return -1;
	}
	for (size_t w = 0; w < nw; w++) {
		if (w)
			fputs("\n\n", f);
		long e2e = -1;
		for (size_t c = 0; c < a->ncells; c++)
			if (!strcmp(a->cells[c].workload, work[w]) && !strcmp(a->cells[c].kind, "e2e"))
				e2e = (long)c;
		fputs("1 1 1 1 1 1 ", f);
		data_label(f, a->modes[r->baseline]);
		fputc('\n', f);
		for (size_t i = 0; i < r->nagg; i++) {
			const struct rep_agg *x = &r->agg[i];
			if (strcmp(x->scope, work[w]) || isnan(x->geomean) || isnan(x->e2e_ratio))
				continue;
			double elo = x->e2e_ratio, ehi = x->e2e_ratio;
			for (size_t k = 0; k < r->ncmp; k++)
				if (r->cmp[k].ok && (long)r->cmp[k].cell == e2e && r->cmp[k].mode == x->mode &&
				    !isnan(r->cmp[k].c.lo)) {
					elo = r->cmp[k].c.lo;
					ehi = r->cmp[k].c.hi;
				}
			data_num(f, x->geomean);
			data_num(f, isnan(x->lo) ? x->geomean : x->lo);
			data_num(f, isnan(x->hi) ? x->geomean : x->hi);
			data_num(f, x->e2e_ratio);
			data_num(f, elo);
			data_num(f, ehi);
			fputc(' ', f);
			data_label(f, a->modes[x->mode]);
			fputc('\n', f);
		}
	}
	int ret = data_close(f, path);
	figure_begin(g, "op-e2e", NULL, "Per-op against end-to-end ratios to the baseline", path, PLOT_H);
	sbuf_addf(&g->script, "nwork = %zu\narray workload_names[%zu] = [", nw, nw);
	for (size_t w = 0; w < nw; w++) {
		if (w)
			sbuf_adds(&g->script, ", ");
		gp_str(&g->script, work[w]);
	}
	sbuf_adds(&g->script, "]\n");
	free(work);
	free(path);
	return ret ? ret : figure_end(g, "op-e2e");
}

static int cmp_double(const void *p, const void *q)
{
	double a = *(const double *)p, b = *(const double *)q;
	return (a > b) - (a < b);
}

/* The within-unit sample CDFs of cell c: index block m per mode, a curve per ok cold unit
 * (curves separated by one blank line): sample (us), fraction of the unit's samples <= it.
 * At most CDF_POINTS quantiles per unit.  The results file is opened read-only. */
int fig_cdf(struct gp *g, size_t c)
{
	const struct analysis *a = g->r->a;
	struct rec *rec = NULL;
	struct rec_unit *units = NULL;
	size_t nunits = 0;
	char *path = NULL;
	FILE *f = NULL;
	int ret = -1;
	if (rec_open(a->path, 0, &rec) || rec_read_units(rec, &units, &nunits))
		goto done;
	f = data_open(g, &path);
	if (!f)
		goto done;
	for (size_t m = 0; m < a->nmodes; m++) {
		size_t curves = 0;
		if (m)
			fputs("\n\n", f);
		for (size_t i = 0; i < nunits; i++) {
			const struct rec_unit *u = &units[i];
			if (u->warm || strcmp(u->status, REC_STATUS_OK) || strcmp(u->mode, a->modes[m]))
				continue;
			int64_t *cell = NULL, *ns = NULL;
			size_t n = 0, k = 0;
			if (rec_read_unit_samples(rec, i, &cell, &ns, &n))
				goto done;
			double *x = xmalloc((n ? n : 1) * sizeof(*x));
			for (size_t j = 0; j < n; j++)
				if (cell[j] == (int64_t)c)
					x[k++] = (double)ns[j] / 1e3;
			free(cell);
			free(ns);
			if (k) {
				qsort(x, k, sizeof(*x), cmp_double);
				if (curves++)
					fputc('\n', f);
				size_t pts = k < CDF_POINTS ? k : CDF_POINTS;
				for (size_t q = 0; q < pts; q++) {
					size_t j = pts == k ? q : (size_t)((double)(q + 1) * (double)k / (double)pts) - 1;
					fprintf(f, "%.9g %.9g\n", x[j], (double)(j + 1) / (double)k);
				}
			}
			free(x);
		}
		if (!curves)
			fputs("NaN NaN\n", f);
	}
	ret = data_close(f, path);
	f = NULL;
	if (ret)
		goto done;
	char *title = xasprintf("%s: within-unit sample distributions (one line per unit)",
				a->cells[c].name);
	figure_begin(g, "cdf", g->slug[c], title, path, PLOT_H);
	free(title);
	ret = figure_end(g, "cdf");
done:
	if (f)
		fclose(f);
	free(path);
	rec_units_free(units, nunits);
	rec_close(rec);
	return ret;
}

/* Per cell, a file-name-safe slug of its name ([A-Za-z0-9._-], others '_'); a slug that an
 * earlier cell already has gets "-<row>" appended, so ids are unique and stable. */
/* Tuning trace of op cell c: per mode, its first cold ok unit that benchmarked candidates
 * of the cell; points are (tuning time so far, best median so far) in trial order.  Index
 * block per series.  Returns 0 (also when there is nothing to draw: then skipped), -1. */
int fig_trace(struct gp *g, size_t c)
{
	const struct analysis *a = g->r->a;
	struct rec *rec = NULL;
	struct rec_unit *units = NULL;
	struct rec_trial *trials = NULL;
	int64_t *trial_unit = NULL;
	size_t nunits = 0, ntrials = 0, nseries = 0;
	char *path = NULL;
	FILE *f = NULL;
	int ret = -1;
	char **names = xcalloc(a->nmodes + 1, sizeof(*names));
	if (rec_open(a->path, 0, &rec) || rec_read_units(rec, &units, &nunits) ||
	    rec_read_trials(rec, &trial_unit, &trials, &ntrials))
		goto done;
	for (size_t m = 0; m < a->nmodes; m++) {
		/* the mode's first cold ok unit with benchmarked trials of the cell */
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
		if (!f && !(f = data_open(g, &path)))
			goto done;
		if (nseries)
			fputs("\n\n", f);
		double spent = 0, best = NAN;
		for (size_t t = 0; t < ntrials; t++) {
			if ((size_t)trial_unit[t] != pick || (size_t)trials[t].cell != c)
				continue;
			spent += (double)(trials[t].compile_ns + trials[t].bench_ns) / 1e9;
			if (!strcmp(trials[t].status, "ok") && trials[t].nsamples > 0 &&
			    (isnan(best) || trials[t].median_ns < best))
				best = trials[t].median_ns;
			if (!isnan(best))
				fprintf(f, "%.9g %.9g\n", spent, best / 1e3);
		}
		names[nseries++] = xasprintf("%s (unit %" PRId64 ")", a->modes[m], units[pick].id);
	}
	if (!nseries) {
		plot_skip(g, "trace: no mode benchmarked candidates of '%s'", a->cells[c].name);
		ret = 0;
		goto done;
	}
	if (data_close(f, path)) {
		f = NULL;
		goto done;
	}
	f = NULL;
	char *title = xasprintf("Tuning trace of %s", a->cells[c].name);
	figure_begin(g, "trace", g->slug[c], title, path, PLOT_H);
	free(title);
	sbuf_addf(&g->script, "nseries = %zu\narray series_names[%zu] = [", nseries, nseries);
	for (size_t i = 0; i < nseries; i++) {
		if (i)
			sbuf_adds(&g->script, ", ");
		gp_str(&g->script, names[i]);
	}
	sbuf_adds(&g->script, "]\n");
	ret = figure_end(g, "trace");
done:
	if (f)
		fclose(f);
	for (size_t i = 0; i < nseries; i++)
		free(names[i]);
	free(names);
	free(path);
	rec_trials_free(trial_unit, trials, ntrials);
	rec_units_free(units, nunits);
	rec_close(rec);
	return ret;
}
