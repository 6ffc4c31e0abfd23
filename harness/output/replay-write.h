/* replay-write.h: `harness replay`'s output (harness/analysis/replay.h) as Markdown, JSON
 * or CSV (docs/replay.md).  Its own header, so that write.h stays the report's. */
#ifndef HARNESS_REPLAY_WRITE_H
#define HARNESS_REPLAY_WRITE_H

#include <stdio.h>

#include "harness/analysis/replay.h"
#include "harness/output/write.h"

/* REPORT_MD, REPORT_JSON or REPORT_CSV to out; 0, or -1 reported. */
int replay_write(const struct replay *r, enum report_format fmt, FILE *out);

/* The curves as one gnuplot figure at out (.png, .svg or .pdf; replay-plot.c): the median
 * over cells of each tuner's median score per budget, with the cells' interquartile band.
 * 0, or -1 reported (gnuplot missing or failing, a bad name); out is replaced only whole. */
int replay_plot(const struct replay *r, const char *out);

/* The HTML report's replay section (<section id="replay">), for the results file at path:
 * random, coordinate-descent and beam replayed on the unit with the most recorded trials
 * (budget: the largest cell's valid points, at most 20; 10 seeds), each tuner's median
 * score at the budget over cells and the trials it needs to reach 0.95.  Nothing when the
 * file has no unit with a recorded space and trials (an imported file, a run of vendor
 * tuners).  A replay that fails (a damaged file) is said in the section. */
void replay_html(const char *path, FILE *f);

#endif
