/* plot-figs.c: one function per kind of figure (docs/plots.md): each writes its data files
 * and its part of the gnuplot script (plot-int.h); plot.c runs the script */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/analysis/report.h"
#include "harness/base/util.h"
#include "harness/output/plot-int.h"
#include "stats/stats.h"

/* ---- the figures ------------------------------------------------------------------------ */

/* The ticks of a log ratio axis over [lo, hi]: from a ladder of round ratios, the most
 * telling first (1, then halves and doubles, ...), each kept when it is at least an eighth
 * of the axis (in log) from every one kept, so that no two labels run together; written as
 * the gnuplot array xtic_at[]. */
static void log_ticks(struct sbuf *s, double lo, double hi)
{
	static const double ladder[] = { 1, 0.5, 2, 0.8, 1.25, 0.1, 10, 0.2, 5, 0.9, 1.1, 0.25, 4,
					 0.67, 1.5, 0.95, 1.05, 0.05, 20, 0.33, 3, 0.98, 1.02,
					 0.01, 100, 0.99, 1.01, 0.02, 50, 0.001, 1000 };
	double t[ARRAY_SIZE(ladder)], sep = log(hi / lo) / 8;
	size_t n = 0;
	for (size_t i = 0; i < ARRAY_SIZE(ladder); i++) {
		int ok = ladder[i] >= lo && ladder[i] <= hi;
		for (size_t j = 0; ok && j < n; j++)
			ok = fabs(log(ladder[i] / t[j])) >= sep;
		if (ok)
			t[n++] = ladder[i];
	}
	sbuf_addf(s, "array xtic_at[%zu] = [", n ? n : 1);
	for (size_t i = 0; i < n; i++)
		sbuf_addf(s, "%s%g", i ? ", " : "", t[i]);
	sbuf_adds(s, n ? "]\n" : "1]\n");
}

/* One forest figure: the comparisons rows[0..n) of r->cmp (report_forest_rows' order) top
 * to bottom, a header row before each workload.  Columns: y, ratio, CI low, CI high (NaN
 * where the report gives none, report_cmp_ci), verdict (0..3 as enum stats_verdict; -1 on a
 * header), "cell | mode" (a header: the workload), has a CI (0/1).  note: the figure's
 * line on what it leaves out. */
static int forest_fig(struct gp *g, const size_t *rows, size_t n, const char *slug,
		      const char *what, const char *note)
{
	const struct report *r = g->r;
	const struct analysis *a = r->a;
	size_t ngroups = 0, noci = 0;
	for (size_t i = 0; i < n; i++)
		ngroups += !i || strcmp(a->cells[r->cmp[rows[i]].cell].workload,
					a->cells[r->cmp[rows[i - 1]].cell].workload);
	char *path;
	FILE *f = data_open(g, &path);
	if (!f)
		return -1;
	size_t y = n + ngroups;
	double lo_all = 1, hi_all = 1;
	for (size_t i = 0; i < n; i++) {
		const struct rep_cmp *x = &r->cmp[rows[i]];
		const char *w = a->cells[x->cell].workload;
		if (!i || strcmp(w, a->cells[r->cmp[rows[i - 1]].cell].workload)) {
			fprintf(f, "%zu NaN NaN NaN -1 ", y--);
			char *head = xasprintf("workload %s:", *w ? w : "(none)");
			data_label(f, head);
			free(head);
			fputs(" 0\n", f);
		}
		double lo, hi;
		int ci = report_cmp_ci(x, &lo, &hi);
		noci += !ci;
		fprintf(f, "%zu", y--);
		data_num(f, x->c.ratio);
		data_num(f, lo);
		data_num(f, hi);
		fprintf(f, " %d ", (int)x->c.verdict);
		char *label = xasprintf("%s | %s", a->cells[x->cell].name, a->modes[x->mode]);
		data_label(f, label);
		free(label);
		fprintf(f, " %d\n", ci);
		lo_all = fmin(lo_all, fmin(x->c.ratio, ci ? lo : x->c.ratio));
		hi_all = fmax(hi_all, fmax(x->c.ratio, ci ? hi : x->c.ratio));
	}
	size_t nrows = n + ngroups;
	int h = nrows > (PLOT_H - 170) / FOREST_ROW_PX ? (int)nrows * FOREST_ROW_PX + 170 : PLOT_H;
	if (figure_begin(g, f, path, "forest", slug, h, "Ratio to the baseline '%s' (%s): %s",
			 a->modes[r->baseline], a->paired ? "paired by block" : "unpaired", what))
		return -1;
	sbuf_addf(&g->script, "nrows = %zu\n", nrows);
	/* the band: the declared margin, else the median of the cells' noise floors */
	double band = r->margin;
	if (isnan(band)) {
		double *fl = xcalloc(a->ncells + 1, sizeof(*fl)), *w = xcalloc(a->ncells + 1, sizeof(*w));
		size_t nf = 0;
		for (size_t c = 0; c < a->ncells; c++)
			if (!isnan(r->floor[c]))
				fl[nf++] = r->floor[c];
		band = nf ? stats_median(fl, 1, nf, w) : NAN;
		free(fl);
		free(w);
	}
	gp_setnum(&g->script, "margin", band);
	if (!isnan(band)) {
		lo_all = fmin(lo_all, 1 - band);
		hi_all = fmax(hi_all, 1 + band);
	}
	/* a log axis a little wider than the data, at least 0.9 to 1.1 */
	double xlo = fmin(lo_all / 1.04, 0.9), xhi = fmax(hi_all * 1.04, 1.1);
	gp_setnum(&g->script, "xmin", xlo);
	gp_setnum(&g->script, "xmax", xhi);
	log_ticks(&g->script, xlo, xhi);
	char *notes = noci ? xasprintf("%s%s%zu without a 95%% CI (the report gives none): hollow, "
				       "no bar", note, *note ? "; " : "", noci)
			   : xstrdup(note);
	gp_setstr(&g->script, "note", notes);
	free(notes);
	sbuf_addf(&g->script, "noci = %zu\n", noci);
	sbuf_adds(&g->script, "array verdict_names[4] = ['FASTER', 'SLOWER', 'SAME', 'INCONCLUSIVE']\n");
	return figure_end(g, "forest");
}

/* Forest: by default the comparisons that decided (FASTER, SLOWER, SAME) and every e2e
 * cell's (report_forest_rows), saying how many it leaves out; with forest_pages, when it
 * left some out, every comparison too, FOREST_PAGE_ROWS to a page (forest-all-<k>). */
int fig_forest(struct gp *g)
{
	const struct report *r = g->r;
	size_t made = 0, notmade = 0;
	for (size_t i = 0; i < r->ncmp; i++) {
		made += r->cmp[i].ok;
		notmade += !r->cmp[i].ok;
	}
	if (!made) {
		plot_skip(g, "forest: no comparison against the baseline could be made");
		return 0;
	}
	size_t *rows = xcalloc(r->ncmp, sizeof(*rows));
	size_t n = report_forest_rows(r, 0, rows);
	char *note, *what;
	if (!n) {
		n = report_forest_rows(r, 1, rows);
		what = xstrdup("every comparison (none decided, no e2e cell)");
		note = xstrdup("");
	} else {
		what = xstrdup(n == made ? "every comparison" : "the decided cells and the e2e cells");
		note = n < made ? xasprintf("%zu of %zu comparisons: %zu INCONCLUSIVE left out (--all "
					    "draws them)", n, made + notmade, made - n)
				: xasprintf("%zu of %zu comparisons", n, made + notmade);
	}
	if (notmade) {
		char *t = xasprintf("%s%s%zu not compared", note, *note ? "; " : "", notmade);
		free(note);
		note = t;
	}
	g->set->forest_left = made - n;
	int ret = forest_fig(g, rows, n, NULL, what, note);
	free(note);
	free(what);
	if (!ret && g->o->forest_pages && n < made) {
		n = report_forest_rows(r, 1, rows);
		size_t pages = (n + FOREST_PAGE_ROWS - 1) / FOREST_PAGE_ROWS;
		for (size_t p = 0; !ret && p < pages; p++) {
			size_t first = p * FOREST_PAGE_ROWS;
			size_t k = n - first < FOREST_PAGE_ROWS ? n - first : FOREST_PAGE_ROWS;
			char *slug = xasprintf("all-%zu", p + 1);
			what = xasprintf("every comparison, page %zu of %zu", p + 1, pages);
			note = xasprintf("rows %zu to %zu of %zu, by workload and ratio", first + 1,
					 first + k, n);
			ret = forest_fig(g, rows + first, k, slug, what, note);
			free(slug);
			free(what);
			free(note);
		}
	}
	free(rows);
	return ret;
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
	size_t any = 0;
	for (size_t m = 0; m < a->nmodes; m++)
		for (size_t b = 0; b < a->nblocks; b++)
			any += !isnan(an_med(a, m, c, b));
	if (!any) {
		plot_skip(g, "cell: no unit has a median in '%s'", a->cells[c].name);
		return 0;
	}
	char *path;
	FILE *f = data_open(g, &path);
	if (!f)
		return -1;
	struct sbuf boxes; /* the modes with a unit here: gnuplot's boxplot fails on an empty one */
	sbuf_init(&boxes);
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
		else
			sbuf_addf(&boxes, "%s%zu", boxes.len ? " " : "", m + 1);
	}
	const struct stats_summary *bs = &r->sum[r->baseline * a->ncells + c].s;
	if (figure_begin(g, f, path, "cell", g->slug[c], PLOT_H, "%s (%s): unit medians by mode",
			 a->cells[c].name, a->cells[c].kind)) {
		sbuf_release(&boxes);
		return -1;
	}
	gp_setstr(&g->script, "box_modes", boxes.buf);
	sbuf_release(&boxes);
	gp_setnum(&g->script, "base_q1", bs->q1 / 1e3);
	gp_setnum(&g->script, "base_med", bs->median / 1e3);
	gp_setnum(&g->script, "base_q3", bs->q3 / 1e3);
	return figure_end(g, "cell");
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
 * median, q1, q3 (s), latency median, q1, q3 (us), on the plotted front (0/1,
 * report_front2d), mode number, name, on the report's front over latency, spread and setup
 * (0/1, r->front).  Index 1: the plotted front's points by setup time, to draw it as a
 * line. */
int fig_pareto(struct gp *g, size_t c)
{
	const struct report *r = g->r;
	const struct analysis *a = r->a;
	size_t any = 0;
	for (size_t m = 0; m < a->nmodes; m++)
		any += r->sum[m * a->ncells + c].n > 0;
	if (!any) {
		plot_skip(g, "pareto: no mode has units in '%s'", a->cells[c].name);
		return 0;
	}
	char *path;
	FILE *f = data_open(g, &path);
	if (!f)
		return -1;
	int *on = xcalloc(a->nmodes, sizeof(*on));
	report_front2d(r, c, on);
	struct front_pt *fr = xcalloc(a->nmodes, sizeof(*fr));
	size_t nf = 0, hidden = 0;
	for (size_t m = 0; m < a->nmodes; m++) {
		const struct rep_summary *s = &r->sum[m * a->ncells + c];
		if (!s->n)
			continue;
		int on3 = r->front[m * a->ncells + c];
		data_num(f, s->setup.median);
		data_num(f, s->setup.q1);
		data_num(f, s->setup.q3);
		data_num(f, s->s.median / 1e3);
		data_num(f, s->s.q1 / 1e3);
		data_num(f, s->s.q3 / 1e3);
		fprintf(f, " %d %zu ", on[m], m + 1);
		data_label(f, a->modes[m]);
		fprintf(f, " %d\n", on3);
		hidden += on3 && !on[m];
		if (on[m])
			fr[nf++] = (struct front_pt){ s->setup.median, s->s.median / 1e3 };
	}
	free(on);
	qsort(fr, nf, sizeof(*fr), cmp_front);
	fputs("\n\n", f);
	for (size_t i = 0; i < nf; i++)
		fprintf(f, "%.9g %.9g\n", fr[i].x, fr[i].y);
	if (!nf)
		fputs("NaN NaN\n", f);
	free(fr);
	if (figure_begin(g, f, path, "pareto", g->slug[c], PLOT_H,
			 "%s: latency against setup time (Pareto front circled)", a->cells[c].name))
		return -1;
	sbuf_addf(&g->script, "nhidden = %zu\n", hidden);
	return figure_end(g, "pareto");
}

/* Drift: per mode (index block m), each ok unit's run position and level, the geometric
 * mean over cells of its median relative to the mode's median in the cell (the level
 * report.c's drift() correlates with run order). */
int fig_drift(struct gp *g)
{
	const struct report *r = g->r;
	const struct analysis *a = r->a;
	size_t nb = a->nblocks, any = 0;
	for (size_t i = 0; i < r->ndrift; i++)
		any += r->drift[i].n;
	if (!any) {
		plot_skip(g, "drift: no ok unit has a level");
		return 0;
	}
	char *path;
	FILE *f = data_open(g, &path);
	if (!f)
		return -1;
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
	if (figure_begin(g, f, path, "drift", NULL, PLOT_H, "Unit level against run order, per mode"))
		return -1;
	char **notes = xcalloc(a->nmodes + 1, sizeof(*notes));
	for (size_t m = 0; m < a->nmodes; m++) {
		for (size_t i = 0; i < r->ndrift; i++)
			if (r->drift[i].mode == m && !isnan(r->drift[i].rho)) {
				free(notes[m]);
				notes[m] = xasprintf("%s (rho %.2f, p %.3g%s)", a->modes[m], r->drift[i].rho,
						     r->drift[i].p, r->drift[i].flagged ? ", DRIFT" : "");
			}
		if (!notes[m])
			notes[m] = xstrdup(a->modes[m]);
	}
	gp_setarr(&g->script, "mode_notes", (const char *const *)notes, a->nmodes);
	for (size_t m = 0; m < a->nmodes; m++)
		free(notes[m]);
	free(notes);
	return figure_end(g, "drift");
}

/* One point of a two-ratio figure (op-e2e, composition): a mode's x ratio with its CI and
 * its y ratio with its CI, in a workload. */
struct xy_row {
	const char *workload;  /* borrowed */
	size_t mode;
	double v[6];           /* x, x lo, x hi, y, y lo, y hi; a CI the report withholds NAN */
};

/* A two-ratio figure: an index block per workload of work (in that order), the baseline at
 * (1, 1) and then the workload's rows in their order: six numbers (a CI the report withholds
 * NaN), the mode's name, has an x CI, has a y CI (0/1; the baseline 1, 1 with no bar); the
 * template gets nwork, workload_names and note (how many points have no CI on an axis).  No
 * workload: skipped, saying skip. */
static int fig_xy_ratios(struct gp *g, const char *kind, const char *skip, const char *title,
			 const char **work, size_t nw, const struct xy_row *rows, size_t nrows)
{
	const struct analysis *a = g->r->a;
	if (!nw) {
		plot_skip(g, "%s: %s", kind, skip);
		return 0;
	}
	char *path;
	FILE *f = data_open(g, &path);
	if (!f)
		return -1;
	for (size_t w = 0; w < nw; w++) {
		if (w)
			fputs("\n\n", f);
		fputs("1 1 1 1 1 1 ", f);
		data_label(f, a->modes[g->r->baseline]);
		fputs(" 1 1\n", f);
		for (size_t i = 0; i < nrows; i++) {
			if (strcmp(rows[i].workload, work[w]))
				continue;
			for (size_t k = 0; k < 6; k++)
				data_num(f, rows[i].v[k]);
			fputc(' ', f);
			data_label(f, a->modes[rows[i].mode]);
			fprintf(f, " %d %d\n", !isnan(rows[i].v[1]), !isnan(rows[i].v[4]));
		}
	}
	size_t nox = 0, noy = 0;
	for (size_t i = 0; i < nrows; i++) {
		nox += isnan(rows[i].v[1]);
		noy += isnan(rows[i].v[4]);
	}
	if (figure_begin(g, f, path, kind, NULL, PLOT_H, "%s", title))
		return -1;
	sbuf_addf(&g->script, "nwork = %zu\n", nw);
	gp_setarr(&g->script, "workload_names", work, nw);
	char *note = nox || noy ? xasprintf("without a 95%% CI (the report gives none: too few "
					    "blocks, or no blocks), drawn without a bar: %zu of %zu "
					    "points on x, %zu on y", nox, nrows, noy)
				: xstrdup("");
	gp_setstr(&g->script, "note", note);
	free(note);
	return figure_end(g, kind);
}

/* Add name to the nw names of work unless it is there. */
static void work_add(const char **work, size_t *nw, const char *name)
{
	size_t w = 0;
	while (w < *nw && strcmp(work[w], name))
		w++;
	if (w == *nw)
		work[(*nw)++] = name;
}

/* Per-op against e2e: per workload with an e2e cell, a point per mode: the op geomean ratio
 * and its CI, the e2e ratio and its CI.  The baseline sits at (1, 1). */
int fig_op_e2e(struct gp *g)
{
	const struct report *r = g->r;
	const char **work = xcalloc(r->nagg + 1, sizeof(*work));
	struct xy_row *rows = xcalloc(r->nagg + 1, sizeof(*rows));
	size_t nw = 0, nrows = 0;
	for (size_t i = 0; i < r->nagg; i++) {
		const struct rep_agg *x = &r->agg[i];
		if (!x->has_e2e || !strcmp(x->scope, "all") || isnan(x->geomean) || !x->ncells)
			continue;
		work_add(work, &nw, x->scope);
		if (isnan(x->e2e_ratio))
			continue;
		/* the CIs the tables print: the aggregate's, and the e2e cell's comparison's */
		size_t e2e = analysis_workload_e2e(r->a, x->scope);
		double elo = NAN, ehi = NAN;
		for (size_t k = 0; k < r->ncmp; k++)
			if (r->cmp[k].cell == e2e && r->cmp[k].mode == x->mode)
				report_cmp_ci(&r->cmp[k], &elo, &ehi);
		int ci = !isnan(x->lo) && !isnan(x->hi);
		rows[nrows++] = (struct xy_row){
			.workload = x->scope, .mode = x->mode,
			.v = { x->geomean, ci ? x->lo : NAN, ci ? x->hi : NAN, x->e2e_ratio, elo, ehi },
		};
	}
	int ret = fig_xy_ratios(g, "op-e2e", "no workload has both op cells and an e2e cell",
				"Per-op against end-to-end ratios to the baseline", work, nw, rows,
				nrows);
	free(rows);
	free(work);
	return ret;
}

/* Measured against predicted e2e ratio (report.h struct rep_comp): per workload with a
 * composition, a point per mode: the predicted ratio and its CI, the measured ratio and
 * its CI; the identity line is the template's. */
int fig_composition(struct gp *g)
{
	const struct report *r = g->r;
	const char **work = xcalloc(r->ncomp + 1, sizeof(*work));
	struct xy_row *rows = xcalloc(r->ncomp + 1, sizeof(*rows));
	size_t nw = 0, nrows = 0;
	for (size_t i = 0; i < r->ncomp; i++) {
		const struct rep_comp *c = &r->comp[i];
		if (!c->ok)
			continue;
		work_add(work, &nw, c->workload);
		struct xy_row *x = &rows[nrows++];
		x->workload = c->workload;
		x->mode = c->mode;
		const struct rep_est *e[] = { &c->pred, &c->meas };
		for (size_t k = 0; k < 2; k++) {
			int ci = !isnan(e[k]->lo) && !isnan(e[k]->hi);
			x->v[3 * k] = e[k]->est;
			x->v[3 * k + 1] = ci ? e[k]->lo : NAN;
			x->v[3 * k + 2] = ci ? e[k]->hi : NAN;
		}
	}
	int ret = fig_xy_ratios(g, "composition", "no workload has op cells with counts and an "
				"e2e cell in the same blocks",
				"Measured against predicted (count x time) e2e ratios to the baseline",
				work, nw, rows, nrows);
	free(rows);
	free(work);
	return ret;
}

/* The within-unit sample CDFs of src's cell: index block m per mode, a curve per ok cold
 * unit (curves separated by one blank line): sample (us), fraction of the unit's samples
 * <= it (plot-read.c). */
int fig_cdf(struct gp *g)
{
	const struct analysis *a = g->r->a;
	const struct plot_src *src = g->src;
	size_t c = src->cdf_cell;
	if (!src->ncdf) {
		plot_skip(g, "cdf: no ok unit has samples of '%s'", a->cells[c].name);
		return 0;
	}
	char *path;
	FILE *f = data_open(g, &path);
	if (!f)
		return -1;
	for (size_t m = 0; m < a->nmodes; m++) {
		size_t curves = 0;
		if (m)
			fputs("\n\n", f);
		for (size_t i = 0; i < src->ncdf; i++) {
			const struct plot_curve *cv = &src->cdf[i];
			if (cv->mode != m)
				continue;
			if (curves++)
				fputc('\n', f);
			for (size_t j = 0; j < cv->n; j++)
				fprintf(f, "%.9g %.9g\n", cv->x[j], cv->y[j]);
		}
		if (!curves)
			fputs("NaN NaN\n", f);
	}
	if (figure_begin(g, f, path, "cdf", g->slug[c], PLOT_H,
			 "%s: within-unit sample distributions (one line per unit)", a->cells[c].name))
		return -1;
	return figure_end(g, "cdf");
}

/* The tuning traces of src's op cell: per mode, its first cold ok unit that benchmarked
 * candidates of the cell; points are (tuning time so far, best median so far) in trial
 * order, an index block per series (plot-read.c). */
int fig_trace(struct gp *g)
{
	const struct analysis *a = g->r->a;
	const struct plot_src *src = g->src;
	if (src->trace_cell < 0)
		return 0;
	size_t c = (size_t)src->trace_cell;
	if (!src->ntrace) {
		plot_skip(g, "trace: no mode benchmarked candidates of '%s'", a->cells[c].name);
		return 0;
	}
	char *path;
	FILE *f = data_open(g, &path);
	if (!f)
		return -1;
	for (size_t i = 0; i < src->ntrace; i++) {
		if (i)
			fputs("\n\n", f);
		for (size_t j = 0; j < src->trace[i].n; j++)
			fprintf(f, "%.9g %.9g\n", src->trace[i].x[j], src->trace[i].y[j]);
	}
	if (figure_begin(g, f, path, "trace", g->slug[c], PLOT_H, "Tuning trace of %s",
			 a->cells[c].name))
		return -1;
	const char **names = xcalloc(src->ntrace, sizeof(*names));
	for (size_t i = 0; i < src->ntrace; i++)
		names[i] = src->trace[i].name;
	sbuf_addf(&g->script, "nseries = %zu\n", src->ntrace);
	gp_setarr(&g->script, "series_names", names, src->ntrace);
	free(names);
	return figure_end(g, "trace");
}
