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
 * over cells of each tuner's mean score per budget, with the cells' interquartile band.
 * 0, or -1 reported (gnuplot missing or failing, a bad name); out is replaced only whole. */
int replay_plot(const struct replay *r, const char *out);

/* The HTML report's replay section (<section id="replay">) from a replay the caller ran
 * (cmd-report.c: random, coordinate-descent and beam on the unit with the most recorded
 * trials): the median over cells of each tuner's mean score at the budget, in the replay's tuner
 * order, and the trials it needs to reach 0.95.  r NULL: nothing, or (failed) a note that
 * the replay failed.  Computes nothing but the medians of what it shows. */
void replay_html(const struct replay *r, int failed, FILE *f);

#endif
