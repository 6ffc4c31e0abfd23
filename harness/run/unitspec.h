/* unitspec.h: the unit specification an external command unit is given
 * (docs/record-protocol.md, "The unit specification"): a JSON file in its cache directory,
 * named by HARNESS_UNIT_SPEC, saying what to measure (workloads, the cells' names when the
 * harness knows them, the measure rules, the seed, the mode's options, what it is expected
 * to do). */
#ifndef HARNESS_UNITSPEC_H
#define HARNESS_UNITSPEC_H

#include <stdint.h>

#include "harness/config/experiment.h"

#define UNITSPEC_VERSION 1

/* Where unit `unit`'s specification lives: <cache_dir>/harness-unit-NNNN.json (one per unit:
 * a warm probe's sits beside its cold unit's).  Heap. */
char *unitspec_path(const char *cache_dir, int64_t unit);

/* What the specification says about one unit. */
struct unitspec_unit {
	int64_t id, repeat, block;
	int warm;
	const char *cache_dir;
	double timeout_s;
	const char *workload;      /* the one workload (unit_scope = "workload"), or NULL: all
				    * the mode runs (its `workloads`, those for backend "command") */
	const char *const *cells;  /* names the harness knows for the mode (NULL-terminated), or
				    * NULL: unknown (the unit declares its own) */
};

/* The specification as JSON text: heap, caller frees. */
char *unitspec_json(const struct experiment *e, const struct mode *m,
		    const struct unitspec_unit *u);

/* Write it to path (mode 0400, replacing an earlier one: a resumed unit).  0, or -1
 * reported. */
int unitspec_write(const char *path, const struct experiment *e, const struct mode *m,
		   const struct unitspec_unit *u);

#endif
