/* plot.h: the figures of a report (report.h), drawn by gnuplot (docs/plots.md).
 *
 * gnuplot is an external program, started through spawn.h with an argv and a built
 * environment, never a shell.  Each figure is a template (plots/<kind>.gp) preceded by the
 * variables it needs; the data goes to temporary files in a private mkdtemp() folder that
 * is removed before plot_draw() returns.  The results file is only read.
 *
 * Templates are found in $HARNESS_PLOT_DIR, else in the source tree's plots/ when the
 * program runs from its build tree, else in PKGDATADIR/plots (plot_template_dir()). */
#ifndef HARNESS_PLOT_H
#define HARNESS_PLOT_H

#include <stddef.h>

#include "harness/analysis/report.h"

enum plot_format { PLOT_PNG = 0, PLOT_SVG, PLOT_PDF };

struct plot_opts {
	enum plot_format format; /* PLOT_PNG */
	const char *cell;        /* the CDF's cell; NULL: the first e2e cell, else the first cell */
};
void plot_opts_init(struct plot_opts *o);
/* "png", "svg", "pdf" -> *out; -1 (not reported) for anything else. */
int plot_format_parse(const char *s, enum plot_format *out);
const char *plot_format_ext(enum plot_format f);

/* One figure drawn.  Every string is owned by the plot_set that holds it. */
struct plot_fig {
	char *id;      /* stable and unique in a report: "forest", "cell-<cell>", ... (docs/plots.md) */
	char *kind;    /* "cell", "forest", "pareto", "drift", "op-e2e", "cdf" */
	char *title;   /* the figure's title */
	const char *how; /* how to read it (static text) */
	char *path;    /* DIR/<id>.<ext> */
};

/* The figures of one plot_draw(), and the ones it left out with why. */
struct plot_set {
	struct plot_fig *figs;
	size_t nfigs;
	char **skipped; /* "op-e2e: no workload has both op cells and an e2e cell" */
	size_t nskipped;
};
void plot_set_init(struct plot_set *s);
void plot_set_release(struct plot_set *s);

/* The cell row of name in a, or -1 (not reported; see plot_cell_list()). */
long plot_find_cell(const struct analysis *a, const char *name);
/* "'a', 'b', ..." for messages; the caller frees it. */
char *plot_cell_list(const struct analysis *a);

/* Where the templates are; computed once per process. */
const char *plot_template_dir(void);
/* The gnuplot program: $HARNESS_GNUPLOT, else 'gnuplot' searched in PATH.  Returns a heap
 * path the caller frees, or NULL when there is none (not reported). */
char *plot_find_gnuplot(void);

/* Draw every figure of r into dir (made when missing; files there with the same names
 * are replaced).  Fills *out (initialized by the caller with plot_set_init; released by
 * the caller on success and on failure).  Reports and returns -1: gnuplot missing (naming
 * the Debian package), an unknown o->cell, a template that cannot be read, gnuplot
 * failing (with its messages), a figure it did not write. */
int plot_draw(const struct report *r, const struct plot_opts *o, const char *dir,
	      struct plot_set *out);

#endif
