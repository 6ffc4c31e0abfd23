/* timesum.h: what `harness time` answers at the end of its run (docs/harness-time.md):
 * per mode, its wall time (the median over blocks of its units' medians), its paired ratio
 * to the baseline with the report's CI and verdict, and its runs' CPU times (the units'
 * process_user_ns_median and process_sys_ns_median, timeworker.h), all taken from the
 * report (report.h) and the results file, never computed apart from them. */
#ifndef HARNESS_TIMESUM_H
#define HARNESS_TIMESUM_H

#include <stddef.h>

#include "harness/analysis/report.h"
#include "stats/stats.h"

#define TIMESUM_CELL "process/wall"

struct timesum_mode {
	const char *name;            /* borrowed from the report's analysis */
	int baseline;
	size_t units;                /* ok units with the wall cell */
	double wall_ns;              /* the median of the units' medians; NAN: none */
	double user_ns, sys_ns;      /* the median over ok units of their runs' medians; NAN */
	int compared;                /* 0: the baseline, or too few pairs (note says why) */
	double ratio, lo, hi;        /* the report's, mode over baseline */
	enum stats_verdict verdict;
	const char *note;            /* borrowed: why not compared, or "" */
};

struct timesum {
	const char *path;            /* the results file (borrowed) */
	double conf;                 /* the CIs' level */
	struct timesum_mode *modes;  /* in the experiment's order */
	size_t nmodes;
};

/* Build it from r (a report of the results file at path, whose runs time their commands'
 * processes) and the units' info read from path.  0 and *out (timesum_free), or -1
 * reported (no process/wall cell: not a run of process-timed modes). */
int timesum_build(const char *path, const struct report *r, struct timesum **out);
void timesum_free(struct timesum *s);

#endif
