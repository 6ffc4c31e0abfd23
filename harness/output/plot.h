/* plot.h: the figures of a report (report.h), drawn by gnuplot (docs/plots.md).
 *
 * Two steps, so that the caller can tell a bad input from a failed drawing:
 * plot_src_read() reads what the figures need from the results file beyond the report
 * (sample distributions, tuning traces); plot_draw() then writes nothing but figures.
 *
 * gnuplot is an external program, started through spawn.h with an argv and a built
 * environment, never a shell.  Each figure is a template (plots/<kind>.gp) preceded by the
 * variables it needs, every string in them a single-quoted gnuplot literal (no command,
 * macro or backquote in a cell name is ever run).  Everything is written into a private
 * folder made inside the output folder (DIR/.plot.XXXXXX, so that renames stay on one file
 * system): the data files, the script, and the figures gnuplot draws.  Only when gnuplot
 * exits 0 and every figure is there, whole, is each renamed into DIR, replacing a file or a
 * symlink of that name (never writing through it).  The private folder is removed on every
 * path: a failure (gnuplot's, a full disk's) leaves DIR as it was.  The results file is only
 * read.
 *
 * Templates are found in $HARNESS_PLOT_DIR, else in the source tree's plots/ when the
 * program runs from its build tree, else in PKGDATADIR/plots (plot_template_dir()). */
#ifndef HARNESS_PLOT_H
#define HARNESS_PLOT_H

#include <stddef.h>

#include "harness/analysis/report.h"

enum plot_format { PLOT_PNG = 0, PLOT_SVG, PLOT_PDF };

/* The longest figure id: a cell's part of it is cut to PLOT_SLUG_MAX bytes, the last 9 of
 * them "-" and 8 hex digits of the SHA-256 of the whole name, so that a long cell name
 * (an imported one can be any length) never makes a file name longer than NAME_MAX. */
#define PLOT_SLUG_MAX 64
#define PLOT_ID_MAX (PLOT_SLUG_MAX + 32)

struct plot_opts {
	enum plot_format format; /* PLOT_PNG */
	const char *cell;        /* the CDF's cell (plot_src_read); NULL: the first e2e cell, else
	                            the first cell */
	int all_cells;           /* 0: the cell and Pareto figures of the default set's cells only
	                            (the e2e cells, at most PLOT_DEFAULT_CELLS, else the CDF's
	                            cell); 1: of every cell */
	int forest_pages;        /* 1: also the forest plot of every comparison, in pages, when
	                            the default forest leaves some out */
	int index;               /* 1: also write DIR/index.md, a line per figure */
	int data;                /* 1: also write each figure's data, DIR/<id>.dat, and the
	                            gnuplot script that draws them all, DIR/figures.gp */
};
void plot_opts_init(struct plot_opts *o);
/* "png", "svg", "pdf" -> *out; -1 (not reported) for anything else. */
int plot_format_parse(const char *s, enum plot_format *out);
const char *plot_format_ext(enum plot_format f);

/* One figure drawn.  Every string is owned by the plot_set that holds it. */
struct plot_fig {
	char *id;      /* stable and unique in a report: "forest", "cell-<slug>", ... (docs/plots.md);
	                  [A-Za-z0-9._-] only, at most PLOT_ID_MAX bytes */
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
	char **files;   /* the other files written: DIR/index.md, data files, the script */
	size_t nfiles;
	size_t cells_left;  /* cells whose cell and Pareto figures were left out (all_cells) */
	size_t forest_left; /* comparisons the forest plot left out (forest_pages draws them) */
};
void plot_set_init(struct plot_set *s);
void plot_set_release(struct plot_set *s);

/* Where the templates are; computed once per process. */
const char *plot_template_dir(void);
/* The gnuplot program: $HARNESS_GNUPLOT, else 'gnuplot' searched in PATH.  Returns a heap
 * path the caller frees, or NULL when there is none (not reported). */
char *plot_find_gnuplot(void);

/* What the figures read from r's results file (plot-read.c): the sample distributions of
 * one cell (cell, else the first e2e cell, else the first cell) and the tuning traces of one
 * op cell.  *out is the caller's, freed with plot_src_free (NULL is a no-op).  Reports and
 * returns -1: an unknown cell, a results file that cannot be read (a bad input). */
struct plot_src;
int plot_src_read(const struct report *r, const char *cell, struct plot_src **out);
void plot_src_free(struct plot_src *s);

/* Draw every figure of r and src into dir (made when missing; files or symlinks there with
 * the figures' names are replaced, as described above).  Fills *out (initialized by the
 * caller with plot_set_init; released by the caller on success and on failure).  Reports and
 * returns -1, leaving dir as it was: gnuplot missing (naming the Debian package), a template
 * that cannot be read, gnuplot failing (with its messages), a figure it did not write
 * whole, a file that cannot be written or renamed (a full disk). */
int plot_draw(const struct report *r, const struct plot_src *src, const struct plot_opts *o,
	      const char *dir, struct plot_set *out);

#endif
