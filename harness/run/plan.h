/* plan.h: the run plan: which unit runs when.  Repeat r is block r; every mode runs once
 * (cold) in every block, or with the experiment's unit_scope = "workload" once for each
 * workload it runs (those its `workloads` names, or every one, less those only_on another
 * backend than its own; the unit then runs that workload alone, and the block's units are
 * the (mode, workload) pairs), in an order set by the experiment's `order`:
 *   randomized  a fresh permutation per block from GSL's MT19937 seeded with the seed
 *   abba        declared order in even blocks, reversed in odd blocks (A B | B A | A B ...)
 *   sequential  declared order in every block (for studying order effects)
 * A mode with warm_probe gets a warm unit right after each of its cold units, in the same
 * block, reusing that cold unit's cache directory.  The plan depends only on the
 * experiment, so --resume rebuilds it and runs what the file lacks. */
#ifndef HARNESS_PLAN_H
#define HARNESS_PLAN_H

#include <stddef.h>

#include "harness/config/experiment.h"
#include "harness/record/recorder.h"

/* Build the plan; *plan is a heap array of *n entries the caller frees with
 * rec_plan_free().  backends[m]: the backend mode m resolved to (backend_workload_for picks
 * its workloads under unit_scope = "workload"), or backends NULL: every workload of each
 * mode (mode_has_workload).  Returns 0, or -1 reported (a GSL failure). */
int plan_build(const struct experiment *e, const char *const *backends, struct rec_plan **plan,
	       size_t *n);

#endif
