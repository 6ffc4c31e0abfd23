/* worker.h: the harness's own unit process.  One worker = one mode x one repeat: it reads
 * the unit's specification (unitspec.h: backend, tuner, workloads, measure settings, seed,
 * options; never the experiment file), opens the backend on the unit's cache directory,
 * tunes every op cell with the tuner (every trial recorded), then measures every cell
 * (warm-up, then samples until a stop rule) and streams it all as protocol records
 * (proto.h) on fd 3.  It never touches the results file.  Started by the scheduler as
 * `harness __worker --spec FILE` (cmd-worker.c). */
#ifndef HARNESS_WORKER_H
#define HARNESS_WORKER_H

#include <stdint.h>

struct worker_args {
	const char *spec;        /* the unit's specification (HARNESS_UNIT_SPEC) */
	int record_fd;           /* where records go (PROTO_FD) */
};

/* Run the unit.  Returns the process exit code: 0 when the unit completed (its own verdict,
 * ok or not, is in the done record), 1 when it could not (reported on stderr, and in a done
 * record with status "failed" when the stream still works). */
int worker_main(const struct worker_args *a);

#endif
