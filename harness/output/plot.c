/* plot.c: a report's figures, drawn by gnuplot from the templates in plots/ (plot.h,
 * docs/plots.md).  This file only writes data and gnuplot variables; what a figure looks
 * like is in its template. */
#include "config.h"
#include "harness/output/plot.h"

#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/record/recorder.h"
#include "harness/base/spawn.h"
#include "harness/base/util.h"
#include "stats/stats.h"

#define PLOT_W 1200      /* png and svg, pixels; pdf: PLOT_W / PLOT_DPI inches */
#define PLOT_H 800
#define PLOT_DPI 200
#define FOREST_ROW_PX 22 /* the forest plot grows beyond PLOT_H by this much a row */
#define CDF_POINTS 400   /* at most this many points of each unit's CDF (its quantiles) */

/* How to read each kind of figure: the HTML report's captions (docs/plots.md says more). */
static const struct {
	const char *kind, *how;
} figure_how[] = {
	{ "forest", "Each row is a cell and a mode: the point is the median ratio to the baseline over "
		    "paired blocks (< 1: faster), the bar its 95% bootstrap CI, the colour the verdict. "
		    "The shaded band is the equivalence margin: a CI entirely inside it is SAME." },
	{ "cell", "Unit medians of one cell, one point per unit (the unit is the replicate), a box "
		  "per mode (quartiles and median, whiskers to 1.5 IQR). The shaded band is the "
		  "baseline's IQR, the dashed line its median." },
	{ "pareto", "Each mode's median latency against its median setup time (compile + tuning + "
		    "search) in one cell; bars are the IQRs over units. Circled modes are on the cell's "
		    "Pareto front (latency needs a significant difference, spread and setup time count "
		    "as equal within 5%)." },
	{ "drift", "Each unit's level (geometric mean over cells of its median relative to the "
		   "mode's median) against its position in the run. A trend means the machine "
		   "drifted; the legend gives Spearman's rho and its p." },
	{ "op-e2e", "Per workload and mode: the geometric mean of the op-cell ratios (x) against "
		    "the end-to-end ratio (y), with 95% CIs. Points off the diagonal are per-op "
		    "gains that do not compose end to end (or the reverse)." },
	{ "cdf", "The distribution of the raw samples inside each unit of one cell, one line per "
		 "unit, coloured by mode. Lines of one mode that disagree mean units differ more "
		 "than samples inside a unit do." },
	{ "trace", "Tuning trace of one op cell: the best candidate a tuner had found so far against "
		   "the tuning time it had spent (compile + benchmark), for each mode's first cold "
		   "unit that benchmarked candidates. A tuner that reaches its final choice early "
		   "spent the rest of its budget for nothing." },
};

static const char *how_of(const char *kind)
{
	for (size_t i = 0; i < ARRAY_SIZE(figure_how); i++)
		if (!strcmp(figure_how[i].kind, kind))
			return figure_how[i].how;
	return "";
}

void plot_opts_init(struct plot_opts *o)
{
	o->format = PLOT_PNG;
	o->cell = NULL;
}

int plot_format_parse(const char *s, enum plot_format *out)
{
	static const char *const names[] = { "png", "svg", "pdf" };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i])) {
			*out = (enum plot_format)i;
			return 0;
		}
	return -1;
}

const char *plot_format_ext(enum plot_format f)
{
	return f == PLOT_SVG ? "svg" : f == PLOT_PDF ? "pdf" : "png";
}

void plot_set_init(struct plot_set *s)
{
	memset(s, 0, sizeof(*s));
}

void plot_set_release(struct plot_set *s)
{
	for (size_t i = 0; i < s->nfigs; i++) {
		free(s->figs[i].id);
		free(s->figs[i].kind);
		free(s->figs[i].title);
		free(s->figs[i].path);
	}
	free(s->figs);
	for (size_t i = 0; i < s->nskipped; i++)
		free(s->skipped[i]);
	free(s->skipped);
	plot_set_init(s);
}

long plot_find_cell(const struct analysis *a, const char *name)
{
	for (size_t c = 0; c < a->ncells; c++)
		if (!strcmp(a->cells[c].name, name))
			return (long)c;
	return -1;
}

char *plot_cell_list(const struct analysis *a)
{
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t c = 0; c < a->ncells; c++)
		sbuf_addf(&sb, "%s'%s'", c ? ", " : "", a->cells[c].name);
	return sbuf_detach(&sb);
}

/* ---- where things are ----------------------------------------------------------------- */

const char *plot_template_dir(void)
{
	static char *dir;
	if (!dir)
		dir = util_data_dir("HARNESS_PLOT_DIR", "plots");
	return dir;
}

char *plot_find_gnuplot(void)
{
	const char *prog = getenv("HARNESS_GNUPLOT");
	char *path = spawn_find_program(prog && *prog ? prog : "gnuplot", NULL);
	if (path && access(path, X_OK)) { /* a path given with '/' is not checked by the search */
		free(path);
		return NULL;
	}
	return path;
}

/* ---- building the script ---------------------------------------------------------------- */

/* One gnuplot run: every figure of a report in one script. */
struct gp {
	const struct report *r;
	const struct plot_opts *o;
	const char *dir;      /* where the figures go, as given */
	char *absdir;         /* the same, absolute (gnuplot runs in tmp) */
	char *tmp;            /* the private folder of data files and the script */
	char **slug;          /* per cell: its part of figure ids */
	struct sbuf script;
	struct plot_set *set;
	size_t figs_cap, skipped_cap;
};

/* A gnuplot string literal: single-quoted ('' for '), so neither backslashes, backquotes
 * nor macros are interpreted; control characters (a newline would end the command)
 * become spaces. */
static void gp_str(struct sbuf *sb, const char *s)
{
	sbuf_adds(sb, "'");
	for (; *s; s++) {
		if (*s == '\'')
			sbuf_adds(sb, "''");
		else if ((unsigned char)*s < 0x20 || *s == 0x7f)
			sbuf_adds(sb, " ");
		else
			sbuf_add(sb, s, 1);
	}
	sbuf_adds(sb, "'");
}

/* name = 'value' */
static void gp_setstr(struct sbuf *sb, const char *name, const char *value)
{
	sbuf_addf(sb, "%s = ", name);
	gp_str(sb, value);
	sbuf_adds(sb, "\n");
}

/* name = number (NaN spelled so gnuplot reads it) */
static void gp_setnum(struct sbuf *sb, const char *name, double v)
{
	if (isnan(v) || isinf(v))
		sbuf_addf(sb, "%s = NaN\n", name);
	else
		sbuf_addf(sb, "%s = %.9g\n", name, v);
}

/* A string column of a data file: double-quoted, with no " or control characters. */
static void data_label(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++)
		fputc(*s == '"' ? '\'' : (unsigned char)*s < 0x20 ? ' ' : *s, f);
	fputc('"', f);
}

/* A number column; NaN for what is missing (gnuplot skips the point). */
static void data_num(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputs(" NaN", f);
	else
		fprintf(f, " %.9g", v);
}

/* A new data file in the private folder; its path in *path (heap).  NULL reported. */
static FILE *data_open(struct gp *g, char **path)
{
	*path = xasprintf("%s/data-XXXXXX", g->tmp);
	int fd = mkstemp(*path);
	if (fd < 0) {
		error_errno("cannot create a temporary file in '%s'", g->tmp);
		return NULL;
	}
	FILE *f = fdopen(fd, "w");
	if (!f) {
		error_errno("cannot open '%s'", *path);
		close(fd);
	}
	return f;
}

static int data_close(FILE *f, const char *path)
{
	if (ferror(f) | fclose(f))
		return error_errno("cannot write '%s'", path);
	return 0;
}

static void skip(struct gp *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void skip(struct gp *g, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	XGROW(g->set->skipped, g->skipped_cap, g->set->nskipped + 1);
	g->set->skipped[g->set->nskipped++] = xvasprintf(fmt, ap);
	va_end(ap);
}

/* Start a figure: its entry in the set, then the terminal, the output and the variables
 * every template gets (fig_title, data, nmodes, baseline, mode_names[]). */
static void figure_begin(struct gp *g, const char *kind, const char *cell_slug, const char *title,
			 const char *data, int height)
{
	const struct analysis *a = g->r->a;
	XGROW(g->set->figs, g->figs_cap, g->set->nfigs + 1);
	struct plot_fig *fig = &g->set->figs[g->set->nfigs++];
	fig->kind = xstrdup(kind);
	fig->id = cell_slug ? xasprintf("%s-%s", kind, cell_slug) : xstrdup(kind);
	fig->title = xstrdup(title);
	fig->how = how_of(kind);
	fig->path = xasprintf("%s/%s.%s", g->dir, fig->id, plot_format_ext(g->o->format));

	struct sbuf *s = &g->script;
	sbuf_addf(s, "\n# ---- %s\nreset\n", fig->id);
	switch (g->o->format) {
	case PLOT_SVG:
		sbuf_addf(s, "set terminal svg size %d,%d noenhanced font 'sans,12' linewidth 1.2 "
			     "background rgb 'white'\n", PLOT_W, height);
		break;
	case PLOT_PDF:
		sbuf_addf(s, "set terminal pdfcairo size %.2fin,%.2fin noenhanced font 'sans,8' "
			     "linewidth 1\n", (double)PLOT_W / PLOT_DPI, (double)height / PLOT_DPI);
		break;
	default:
		sbuf_addf(s, "set terminal pngcairo size %d,%d noenhanced font 'sans,12' "
			     "linewidth 1.2 background rgb 'white'\n", PLOT_W, height);
		break;
	}
	char *abs = xasprintf("%s/%s.%s", g->absdir, fig->id, plot_format_ext(g->o->format));
	sbuf_adds(s, "set encoding utf8\nset output ");
	gp_str(s, abs);
	sbuf_adds(s, "\n");
	free(abs);
	gp_setstr(s, "fig_title", title);
	gp_setstr(s, "data", data);
	sbuf_addf(s, "nmodes = %zu\nbaseline = %zu\narray mode_names[%zu] = [", a->nmodes,
		  g->r->baseline + 1, a->nmodes);
	for (size_t m = 0; m < a->nmodes; m++) {
		if (m)
			sbuf_adds(s, ", ");
		gp_str(s, a->modes[m]);
	}
	sbuf_adds(s, "]\n");
}

/* End a figure: its template, then close the output. */
static int figure_end(struct gp *g, const char *kind)
{
	char *path = xasprintf("%s/%s.gp", plot_template_dir(), kind), *text = NULL;
	size_t len;
	if (util_read_file(path, &text, &len)) {
		error("cannot read the plot template '%s' (set HARNESS_PLOT_DIR to the folder of "
		      "the *.gp templates)", path);
		free(path);
		return -1;
	}
	sbuf_addf(&g->script, "# template %s\n", path);
	sbuf_add(&g->script, text, len);
	sbuf_adds(&g->script, "\nunset output\n");
	free(text);
	free(path);
	return 0;
}

/* ---- the figures ------------------------------------------------------------------------ */

/* Forest: every comparison against the baseline, one row each, top to bottom in the
 * report's order.  Columns: row, ratio, lo, hi, verdict (0..3 as enum stats_verdict), label. */
static int fig_forest(struct gp *g)
{
	const struct report *r = g->r;
	const struct analysis *a = r->a;
	size_t rows = 0;
	for (size_t i = 0; i < r->ncmp; i++)
		rows += r->cmp[i].ok;
	if (!rows) {
		skip(g, "forest: no comparison against the baseline could be made");
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
static int fig_cell(struct gp *g, size_t c)
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
static int fig_pareto(struct gp *g, size_t c)
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
static int fig_drift(struct gp *g)
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
static int fig_op_e2e(struct gp *g)
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
		skip(g, "op-e2e: no workload has both op cells and an e2e cell");
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
static int fig_cdf(struct gp *g, size_t c)
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

/* ---- running gnuplot ------------------------------------------------------------------ */

/* Per cell, a file-name-safe slug of its name ([A-Za-z0-9._-], others '_'); a slug that an
 * earlier cell already has gets "-<row>" appended, so ids are unique and stable. */
/* Tuning trace of op cell c: per mode, its first cold ok unit that benchmarked candidates
 * of the cell; points are (tuning time so far, best median so far) in trial order.  Index
 * block per series.  Returns 0 (also when there is nothing to draw: then skipped), -1. */
static int fig_trace(struct gp *g, size_t c)
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
		skip(g, "trace: no mode benchmarked candidates of '%s'", a->cells[c].name);
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

static char **make_slugs(const struct analysis *a)
{
	char **slug = xcalloc(a->ncells ? a->ncells : 1, sizeof(*slug));
	for (size_t c = 0; c < a->ncells; c++) {
		char *s = xstrdup(*a->cells[c].name ? a->cells[c].name : "cell");
		for (char *p = s; *p; p++)
			if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			      (*p >= '0' && *p <= '9') || *p == '.' || *p == '-' || *p == '_'))
				*p = '_';
		for (size_t d = 0; d < c; d++)
			if (!strcmp(slug[d], s)) {
				char *t = xasprintf("%s-%zu", s, c);
				free(s);
				s = t;
				break;
			}
		slug[c] = s;
	}
	return slug;
}

/* Print what gnuplot said (at most 40 lines) under a heading. */
static void show_messages(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	if (util_read_file(path, &text, &len))
		return;
	size_t lines = 0;
	for (char *p = text, *nl; *p && lines < 40; p = nl + 1, lines++) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p) - 1;
		fprintf(stderr, "  gnuplot: %.*s\n", (int)(nl - p + (*nl != '\n')), p);
		if (!nl[1])
			break;
	}
	free(text);
}

static int run_gnuplot(struct gp *g, const char *gnuplot)
{
	char *script = xasprintf("%s/figures.gp", g->tmp), *err = xasprintf("%s/gnuplot.err", g->tmp);
	char *home = xasprintf("HOME=%s", g->tmp);
	int ret = -1;
	if (util_write_file(script, g->script.buf, g->script.len, 0600))
		goto done;
	/* a built environment: no user start-up file (~/.gnuplot); the C locale's numbers with
	 * UTF-8 text (the labels' µ and ±) */
	const char *env[] = { "LC_ALL=C.UTF-8", "TZ=UTC", home, NULL };
	const char *argv[] = { gnuplot, script, NULL };
	struct spawn sp;
	struct spawn_status st;
	spawn_init(&sp);
	sp.argv = argv;
	sp.env = env;
	sp.dir = g->tmp;
	sp.stderr_path = err;
	if (spawn_run(&sp, NULL, &st)) {
		spawn_release(&sp);
		goto done;
	}
	spawn_release(&sp);
	if (!st.exited || st.code) {
		show_messages(err);
		error("gnuplot ('%s') failed (%s %d) drawing the figures", gnuplot,
		      st.signaled ? "signal" : "exit status", st.signaled ? st.sig : st.code);
		goto done;
	}
	for (size_t i = 0; i < g->set->nfigs; i++) {
		struct stat sb;
		if (stat(g->set->figs[i].path, &sb) || sb.st_size == 0) {
			show_messages(err);
			error("gnuplot did not write '%s'", g->set->figs[i].path);
			goto done;
		}
	}
	ret = 0;
done:
	free(script);
	free(err);
	free(home);
	return ret;
}

int plot_draw(const struct report *r, const struct plot_opts *o, const char *dir,
	      struct plot_set *out)
{
	const struct analysis *a = r->a;
	struct gp g = { .r = r, .o = o, .dir = dir, .set = out };
	char *gnuplot = NULL;
	int ret = -1;
	sbuf_init(&g.script);

	long cdf_cell = 0;
	if (o->cell) {
		if ((cdf_cell = plot_find_cell(a, o->cell)) < 0) {
			char *list = plot_cell_list(a);
			error("'%s' has no cell '%s' (cells: %s)", a->path, o->cell, list);
			free(list);
			goto done;
		}
	} else {
		for (size_t c = a->ncells; c-- > 0;)
			if (!strcmp(a->cells[c].kind, "e2e"))
				cdf_cell = (long)c;
	}
	if (strpbrk(dir, "\n\r")) {
		error("the output folder '%s' has a line break in its name", dir);
		goto done;
	}
	if (!(gnuplot = plot_find_gnuplot())) {
		error("gnuplot not found in PATH: install it (Debian package gnuplot-nox) or set "
		      "HARNESS_GNUPLOT to the program");
		goto done;
	}
	if (util_mkdir_p(dir, 0777))
		goto done;
	if (!(g.absdir = realpath(dir, NULL))) {
		error_errno("cannot resolve '%s'", dir);
		goto done;
	}
	const char *tmpdir = getenv("TMPDIR");
	g.tmp = xasprintf("%s/harness-plot.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(g.tmp)) {
		error_errno("cannot create a temporary folder '%s'", g.tmp);
		free(g.tmp);
		g.tmp = NULL;
		goto done;
	}
	g.slug = make_slugs(a);
	sbuf_adds(&g.script, "# figures.gp: written by harness plot (harness/plot.c) from the "
			     "templates in plots/\n");
	if (fig_forest(&g))
		goto done;
	for (size_t c = 0; c < a->ncells; c++)
		if (fig_cell(&g, c) || fig_pareto(&g, c))
			goto done;
	if (fig_drift(&g) || fig_op_e2e(&g) || (a->ncells && fig_cdf(&g, (size_t)cdf_cell)))
		goto done;
	/* the tuning trace of the chosen cell when it is an op cell, else of the first op cell */
	long trace_cell = -1;
	if (a->ncells && !strcmp(a->cells[cdf_cell].kind, "op"))
		trace_cell = cdf_cell;
	for (size_t c = 0; c < a->ncells && trace_cell < 0; c++)
		if (!strcmp(a->cells[c].kind, "op"))
			trace_cell = (long)c;
	if (trace_cell >= 0 && fig_trace(&g, (size_t)trace_cell))
		goto done;
	ret = run_gnuplot(&g, gnuplot);
done:
	if (g.tmp && util_rm_rf(g.tmp))
		ret = -1;
	free(g.tmp);
	free(g.absdir);
	if (g.slug)
		for (size_t c = 0; c < a->ncells; c++)
			free(g.slug[c]);
	free(g.slug);
	sbuf_release(&g.script);
	free(gnuplot);
	return ret;
}
