/* report-int.h: what the parts of report_build share (report.c, compose.c); not an API */
#ifndef HARNESS_REPORT_INT_H
#define HARNESS_REPORT_INT_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "harness/analysis/report.h"

/* Seed rng from the report seed and the names a bootstrap concerns (FNV-1a). */
void report_reseed(gsl_rng *rng, uint64_t seed, const char *a, const char *b, const char *c);
/* Append a warning (formatted) to r->warnings. */
void report_warn(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Per-op versus end to end (compose.c): r->comp, r->tau and their warnings; needs the
 * aggregates. */
void report_composition(struct report *r, gsl_rng *rng);

#endif
