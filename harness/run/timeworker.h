/* timeworker.h: the harness's own unit process for a command mode with timing = "process"
 * (docs/experiment-format.md, "Timing a command's processes").  Started by the scheduler as
 * `harness __worker --spec FILE` with all of a unit's isolation, it reads the unit's
 * specification and times the mode's command itself: `setup` once, `warmup` untimed runs,
 * then `runs` timed runs, each after `prepare` (untimed), then `cleanup`; every run is a
 * process started through spawn.h, timed on the monotonic clock from just before its start
 * to its reaping, its user and system CPU time from wait4's rusage.  It answers with the
 * record protocol: one op cell, "process/wall" (workload "process"), whose samples are the
 * runs' wall times, and the runs' CPU times as `info` (process_user_ns=..., process_sys_ns=
 * ...).  The command's stdout goes to the unit's stdout log, its stderr to the unit's stderr
 * log after each run (the tail of a failing run's is in the unit's message). */
#ifndef HARNESS_TIMEWORKER_H
#define HARNESS_TIMEWORKER_H

#include "harness/record/proto.h"
#include "harness/run/unitspec.h"

/* Run the unit of spec (timing = "process") and write its records to out, `done` last
 * (status "failed" with why when a command failed).  0 when the done record was written,
 * -1 reported when it could not be (the caller ends the stream). */
int timeworker_run(const struct unitspec *spec, struct proto_out *out);

#endif
