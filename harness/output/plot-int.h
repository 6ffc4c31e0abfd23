/* plot-int.h: what plot.c (the script, gnuplot) and plot-figs.c (one function per kind of
 * figure) share; private to the plots, not part of plot.h's interface.  A figure function
 * writes its data file into g->tmp (data_open()), hands it to figure_begin(), which adds
 * the figure, adds its own variables and ends with figure_end() (its template), or says why
 * it drew nothing with plot_skip(). */
#ifndef HARNESS_PLOT_INT_H
#define HARNESS_PLOT_INT_H

#include <stdio.h>

#include "harness/base/util.h"
#include "harness/output/plot.h"

#define PLOT_W 1200      /* png and svg, pixels; pdf: PLOT_W / PLOT_DPI inches */
#define PLOT_H 800
#define PLOT_DPI 200
#define FOREST_ROW_PX 22 /* the forest plot grows beyond PLOT_H by this much a row */
#define FOREST_PAGE_ROWS 40 /* comparisons on one page of the forest plot's pages */
#define PLOT_DEFAULT_CELLS 3 /* cells whose cell and Pareto figures the default set draws */
#define CDF_POINTS 400   /* at most this many points of each unit's CDF (its quantiles) */

/* A line of points: one unit's sample CDF, or one mode's tuning trace. */
struct plot_curve {
	size_t mode;          /* index into the analysis' modes */
	char *name;           /* the trace's legend entry (heap), NULL for a CDF */
	double *x, *y;        /* n points (heap) */
	size_t n;
};

/* What plot_src_read() read (plot.h). */
struct plot_src {
	size_t cdf_cell;          /* the cell of the sample distributions (when there are cells) */
	long trace_cell;          /* the op cell of the tuning traces, or -1 */
	struct plot_curve *cdf;   /* per ok cold unit with samples of cdf_cell, in /units order */
	size_t ncdf;
	struct plot_curve *trace; /* per mode that benchmarked candidates of trace_cell */
	size_t ntrace;
};

/* One gnuplot run: every figure of a report in one script. */
struct gp {
	const struct report *r;
	const struct plot_src *src;
	const struct plot_opts *o;
	const char *dir;      /* where the figures go, as given */
	char *tmp;            /* the private folder DIR/.plot.XXXXXX: data files, the script,
	                         gnuplot's messages and the figures it draws (its working folder,
	                         so the script names them relative to it) */
	char **slug;          /* per cell: its part of figure ids */
	struct sbuf script;
	struct plot_set *set;
	size_t figs_cap, skipped_cap, files_cap;
};

/* ---- building the script (plot.c) ---------------------------------------------------- */
void gp_str(struct sbuf *sb, const char *s);
void gp_setstr(struct sbuf *sb, const char *name, const char *value);
void gp_setnum(struct sbuf *sb, const char *name, double v);
void gp_setarr(struct sbuf *sb, const char *name, const char *const *v, size_t n);
void data_label(FILE *f, const char *s);
void data_num(FILE *f, double v);
FILE *data_open(struct gp *g, char **path);
void plot_skip(struct gp *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int figure_begin(struct gp *g, FILE *f, char *path, const char *kind, const char *cell_slug,
		 int height, const char *title_fmt, ...) __attribute__((format(printf, 7, 8)));
int figure_end(struct gp *g, const char *kind);

/* ---- the figures (plot-figs.c); each returns 0 (also when it skipped), -1 reported ---- */
int fig_forest(struct gp *g);
int fig_cell(struct gp *g, size_t c);
int fig_pareto(struct gp *g, size_t c);
int fig_drift(struct gp *g);
int fig_op_e2e(struct gp *g);
int fig_composition(struct gp *g);
int fig_cdf(struct gp *g);
int fig_trace(struct gp *g);

#endif
