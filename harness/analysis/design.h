/* design.h: what an experiment's design can decide, said before the run (harness check):
 * its blocks against the deciding test (the t test needs 2, the exact signed-rank test 6
 * to reach 0.05), its sequential looks, and, given an earlier run of it (a prior results
 * file) or an A/A noise floor, the minimum detectable effect each cell would have and the
 * blocks each primary hypothesis needs, naming the key to change (`repeats` at its
 * line:col).  docs/experiment-format.md, "What a design can decide". */
#ifndef HARNESS_DESIGN_H
#define HARNESS_DESIGN_H

#include <stdio.h>

#include "harness/config/experiment.h"

/* What to assess a design against (either, both or none). */
struct design_prior {
	const char *results;   /* an earlier run's results file (its spread per cell), or NULL */
	double aa_floor;       /* a noise floor to assume in every cell (0.01 = 1%), NAN: none */
};

/* Say what the design of e (its own repeats and [sequential], and each [on.BACKEND]'s) can
 * decide: one line each to out (NULL: none), and a warning on stderr (util.h warning())
 * for each design that cannot decide anything (fewer than 2 blocks) or, given a prior, each
 * primary hypothesis that needs more blocks than the design may take, naming the key to
 * change; *undecidable is set then.  0, or -1 reported (the prior cannot be read). */
int design_assess(const struct experiment *e, const struct design_prior *p, FILE *out,
		  int *undecidable);

#endif
