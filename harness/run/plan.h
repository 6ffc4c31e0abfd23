/* plan.h: the run plan: which unit runs when.  Repeat r is block r; every mode runs once
 * (cold) in every block, in an order set by the experiment's `order`:
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
 * rec_plan_free().  Returns 0, or -1 reported (a GSL failure). */
int plan_build(const struct experiment *e, struct rec_plan **plan, size_t *n);

#endif
