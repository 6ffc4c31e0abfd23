/* html-int.h: the page's cell writers, shared by html.c (the summary, the run, the
 * hypotheses, the audit, the figures) and html-tables.c (the long tables).  Private to
 * harness/output/html*.c. */
#ifndef HARNESS_HTML_INT_H
#define HARNESS_HTML_INT_H

#include <stddef.h>
#include <stdio.h>

#include "harness/analysis/report.h"
#include "harness/output/plot.h"

/* Text with &, <, >, " and ' escaped (for element content and attribute values); invalid
 * UTF-8 as U+FFFD, so the page stays UTF-8. */
void html_esc(FILE *f, const char *str);
/* A number as report-write.c's markdown writes it: 'r' ratio, 'p' p-value, '1' and '2'
 * percent with 1 or 2 decimals, 'u' %.3f, 'n' a count, 's' %.2f; "-" for NaN.  In buf. */
const char *html_num(char *buf, size_t n, char style, double v);
/* A table cell: <td> with escaped text. */
void html_td(FILE *f, const char *s);
/* A cell name, escaped, with a break opportunity after each ',', '/' and ':'. */
void html_td_name(FILE *f, const char *s);
/* A number cell (html_num's styles) and a CI cell "[lo, hi]". */
void html_td_num(FILE *f, char style, double v);
void html_td_ci(FILE *f, double lo, double hi);
/* Every figure of one kind (none when set is NULL); 0, or -1 when one could not be inlined. */
int html_figures(FILE *f, const struct plot_set *set, const char *kind);

/* ---- the long tables (html-tables.c), each a section folded in <details> ---- */
void html_write_verdicts(const struct report *r, FILE *f);
void html_write_aggregates(const struct report *r, FILE *f);
void html_write_cells(const struct report *r, FILE *f);
/* The A/A, drift (with the device stratum) and per-op vs e2e (with the composition)
 * sections and their figures; *bad |= a figure that failed. */
void html_write_aa_drift_tau(const struct report *r, FILE *f, const struct plot_set *set,
			     int *bad);
/* Where a mode's units chose differently: <section id="choices">, when some unit recorded
 * a choice (the analysis's choice array). */
void html_write_choices(const struct report *r, FILE *f);
/* <section id="progress"> (tables progress-blocks, progress-groups) when some planned unit is
 * not recorded; nothing otherwise. */
void html_write_progress(const struct report *r, FILE *f);

#endif
