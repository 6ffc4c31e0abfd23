/* report-int.h: what the parts of report_build share (report.c, compose.c); not an API */
#ifndef HARNESS_REPORT_INT_H
#define HARNESS_REPORT_INT_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "harness/analysis/report.h"

/* Seed rng from the report seed and the names a bootstrap concerns (FNV-1a). */
void report_reseed(gsl_rng *rng, uint64_t seed, const char *a, const char *b, const char *c);
/* The A/A noise floor of mode m against of over the blocks whose device is d (analysis.h's
 * block_device; ALL_DEVICES: every block) and the cells of kind (an_cell's kind, "op" or
 * "e2e", compared whole: "e2e" is not "e2e-part"; NULL: every cell; borrowed): the 95th
 * percentile (type 7) over those cells of |log r_c|, r_c the median over those blocks of
 * copy / original, as exp(.) - 1, over the cells with 3 pairs or more; NAN when no cell has
 * them.  With no_host_bound, the
 * cells report_host_bound_ratio finds host-bound (REP_HOST_BOUND or more) are left out too. */
#define ALL_DEVICES (-3L)
double report_aa_floor(const struct report *r, size_t m, size_t of, long d, const char *kind,
		       int no_host_bound);
/* Mode m's drift over the blocks whose device is d (ALL_DEVICES: every block) into *out
 * (its points heap, freed by report_free); flagged at the report's alpha (a device's
 * drift needs 5 points too: report-devices.c). */
void report_drift_mode(const struct report *r, size_t m, long d, struct rep_drift *out);
/* The device stratum (report-devices.c): r->dev, r->devdiff and their warnings. */
void report_devices(struct report *r);
void report_devices_free(struct report *r);
/* Per-op versus end to end (compose.c): r->comp, r->tau and their warnings; needs the
 * aggregates. */
void report_composition(struct report *r, gsl_rng *rng);
/* A workload's e2e cell launched op by op that takes REP_HOST_BOUND times its one-graph
 * e2e cell's time or more under the baseline (compose.c): a warning each. */
void report_host_bound(struct report *r);
/* Where a mode's units chose differently (report-choices.c): r->choices. */
void report_choices(struct report *r);
void report_choices_free(struct report *r);
/* How much of the plan is recorded (report-progress.c): r->progress. */
void report_progress(struct report *r);
void report_progress_free(struct report *r);

#endif
