/* worker.h: the harness's own unit process.  One worker = one mode x one repeat: it opens
 * the backend on the unit's cache directory, tunes every op cell with the mode's tuner
 * (every trial recorded), then measures every cell (warm-up, then samples until a stop rule)
 * and streams it all as protocol records (proto.h) on fd 3.  It never touches the results
 * file.  Started by the scheduler as `harness __worker ...` (cmd-worker.c). */
#ifndef HARNESS_WORKER_H
#define HARNESS_WORKER_H

#include <stdint.h>

struct worker_args {
	const char *experiment;  /* the run's copy of the experiment file */
	const char *mode;        /* mode name */
	int64_t unit;            /* plan id */
	const char *backend;     /* the backend the scheduler resolved ("cpu") */
	const char *cache_dir;   /* this unit's cache directory */
	const char *workload;    /* the one workload to run (unit_scope = "workload"), or NULL:
				  * every workload of the mode (its `workloads`) for the backend */
	int record_fd;           /* where records go (PROTO_FD) */
};

/* Run the unit.  Returns the process exit code: 0 when the unit completed (its own verdict,
 * ok or not, is in the done record), 1 when it could not (reported on stderr, and in a done
 * record with status "failed" when the stream still works). */
int worker_main(const struct worker_args *a);

#endif
