/* write.h: the output layer's text writers: a report, a comparison of two runs, the
 * hypotheses' verdicts and an audit, each built by the analysis layer (report.h,
 * hypothesis.h, audit.h) and only formatted here.  Formats: docs/report-format.md,
 * docs/hypothesis-format.md, docs/audit.md.  The HTML page is html.h's.
 *
 * Every writer borrows what it writes, writes to out and returns 0, or reports and returns
 * -1 on a write error. */
#ifndef HARNESS_WRITE_H
#define HARNESS_WRITE_H

#include <stdio.h>

#include "harness/analysis/audit.h"
#include "harness/analysis/hyp.h"
#include "harness/analysis/report.h"
#include "harness/analysis/timesum.h"

enum report_format { REPORT_MD = 0, REPORT_JSON, REPORT_CSV, REPORT_HTML };

/* report-write.c: REPORT_MD, REPORT_JSON or REPORT_CSV (REPORT_HTML is html.h's: reported
 * and -1 here). */
int report_write(const struct report *r, enum report_format fmt, FILE *out);
/* report-csv.c: REPORT_CSV's rows, for report_write, which checks out for write errors. */
void report_write_csv(const struct report *r, FILE *out);
/* compare-write.c: REPORT_MD, REPORT_JSON or REPORT_CSV. */
int run_compare_write(const struct run_compare *rc, enum report_format fmt, FILE *out);
/* hyp-write.c: REPORT_MD or REPORT_JSON. */
int hyp_eval_write(const struct hyp_eval *e, enum report_format fmt, FILE *out);

/* answer-write.c: the closing lines of `harness run` (docs/report-format.md, "The answer
 * after a run"): per workload and mode against the baseline, each e2e cell's ratio, CI and
 * verdict and the op cells' geometric mean and verdict counts; the audit's counts and the
 * checks that make the run exit 4 (au may be NULL: not audited); the next commands. */
int run_answer_write(const struct report *r, const struct audit *au, FILE *out);

/* time-write.c: harness time's answer, a table of its commands (docs/harness-time.md). */
int timesum_write(const struct timesum *s, FILE *out);

/* audit-write.c */
enum audit_format { AUDIT_MD = 0, AUDIT_JSON };
int audit_write(const struct audit *a, enum audit_format fmt, FILE *out);

#endif
