/* progress.h: the progress line on stderr for long runs: units done of total, the current
 * mode and cell, elapsed time and an ETA.  On a terminal one line is redrawn in place (at
 * most 5 times a second); otherwise a plain line is printed when each unit starts.
 * quiet silences it. */
#ifndef HARNESS_PROGRESS_H
#define HARNESS_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

struct progress {
	int quiet, tty;
	size_t total, done;      /* units in the plan; units finished (this session) */
	size_t already;          /* units finished before this session (resume) */
	int64_t start_ns, last_draw_ns;
	int drawn;               /* a redrawable line is on the screen */
};

void progress_init(struct progress *p, size_t total, size_t already, int quiet);
/* A unit starts (plain mode prints here). */
/* workload: the unit's one workload (unit_scope = "workload"), or NULL / "". */
void progress_unit_start(struct progress *p, int64_t id, const char *mode, const char *workload,
			 int64_t block, int warm);
/* Something happened inside the running unit (terminal mode redraws, rate-limited). */
void progress_tick(struct progress *p, const char *mode, const char *cell);
/* A unit finished with status (and why, when it says: message, or NULL / ""). */
void progress_unit_end(struct progress *p, const char *mode, const char *status,
		       const char *message);
/* Clear the redrawn line before other output. */
void progress_clear(struct progress *p);

#endif
