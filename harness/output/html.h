/* html.h: a run's report as one self-contained HTML page (docs/plots.md, "HTML report"),
 * assembled from results already built: the report (report.h), the audit (audit.h), the
 * hypotheses' verdicts (hypothesis.h) and the figures (plot.h).  This module computes no
 * statistic, runs no check and decides no hypothesis: the caller (cmd-report.c) builds
 * each part and hands it in, so nothing here points back at the analysis.
 *
 * The page answers first: a summary per mode (the e2e ratio with its CI and verdict, the
 * per-op geometric mean, the verdict counts), the audit's overall status and the
 * hypotheses' verdicts, beside the forest plot; the long tables come after, fitted to the
 * page width and folded in <details> (no script). */
#ifndef HARNESS_HTML_H
#define HARNESS_HTML_H

#include <stdio.h>

#include "harness/analysis/audit.h"
#include "harness/analysis/hyp.h"
#include "harness/analysis/replay.h"
#include "harness/analysis/report.h"
#include "harness/output/plot.h"

/* The parts of one page; everything is borrowed. */
struct html_parts {
	const struct report *report;   /* required */
	const struct audit *audit;     /* NULL: the audit could not run (the page says so) */
	size_t nhyp_files;             /* hypothesis files recorded in the run (0: no section) */
	const struct hyp_set *hyp_set; /* with hyp: the files and their verdicts; both NULL */
	const struct hyp_eval *hyp;    /* with nhyp_files > 0: they could not be evaluated */
	const struct plot_set *figs;   /* NULL: no figures (gnuplot missing; the page says so) */
	const struct replay *replay;   /* tuners replayed on the recorded trials, or NULL: none
					* (replay_failed: the replay failed; the page says so) */
	int replay_failed;
};

/* Write the page to out.  Returns 0, or reports and returns -1 (a figure that cannot be
 * read, a write error). */
int html_write(const struct html_parts *p, FILE *out);

/* The figures of the page: every figure of r and src (plot_src_read, which the caller
 * calls first: a results file it cannot read is a bad input, not a failed drawing) drawn
 * as SVG into a fresh temporary folder (*dir, heap).  Without gnuplot, warns ("the HTML
 * report has no figures") and returns 0 with *dir NULL and set empty.  Reports and returns
 * -1 when drawing fails (the folder is removed).  The caller initializes set
 * (plot_set_init) and, after html_write, calls html_figures_release(set, *dir), which
 * removes the folder; -1 when it cannot. */
int html_figures_draw(const struct report *r, const struct plot_src *src, struct plot_set *set,
		      char **dir);
int html_figures_release(struct plot_set *set, char *dir);

#endif
