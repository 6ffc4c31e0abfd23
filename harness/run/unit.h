/* unit.h: one unit, start to finish: spawn it with its argv and environment (unitenv.h),
 * read its records (proto.h) until it exits, kill it at its deadline or when the run is
 * stopped, and decide its status.  The scheduler (sched.h) chooses its cache directory and
 * records it; nothing here touches the results file. */
#ifndef HARNESS_UNIT_H
#define HARNESS_UNIT_H

#include <signal.h>
#include <stdint.h>

#include "harness/base/spawn.h"
#include "harness/base/sysinfo.h"
#include "harness/config/experiment.h"
#include "harness/record/proto.h"
#include "harness/record/recorder.h"
#include "harness/run/progress.h"

/* How a unit ended, as the status ladder sees it. */
struct unit_exit {
	int timed_out;             /* killed at its deadline */
	double timeout_s;          /* the deadline, for the message */
	int signaled, sig;         /* it died of signal sig */
	int code;                  /* its exit status (when not signaled) */
	const char *stream_error;  /* the first malformed record, or NULL */
	int over_limit;            /* killed for sending more than its [limits]: bad-output */
	int saw_done;              /* it sent a 'done' record ... */
	const char *done_status;   /* ... with this status (borrowed) ... */
	const char *done_message;  /* ... and message (may be NULL) */
};

/* The unit's status, first match wins: timeout, crashed (signal), failed (nonzero exit),
 * bad-output (a malformed record; no 'done' record; a status the harness does not know),
 * else the status its 'done' record gave (ok, compile-error, incorrect, failed).  Returns
 * a REC_STATUS_* constant or x->done_status (borrowed); *message: heap, why (may be ""). */
const char *unit_status(const struct unit_exit *x, char **message);

/* A cache leak: a cold unit that finished ok, whose tuner compiles or benchmarks when cold,
 * but that compiled nothing and benchmarked nothing, so it found its work already done in a
 * cache directory that was supposed to be new.  Flagged per unit in the results. */
int unit_is_cache_leak(const struct rec_unit *u);
/* The same for an external command unit: a cold ok unit whose mode expects it to compile
 * (expects, MODE_EXPECTS_COMPILE) but that recorded no compilation, or to benchmark but
 * that recorded no benchmark, judged from its recorded counters. */
int unit_is_command_cache_leak(const struct rec_unit *u, unsigned expects);

/* What the scheduler gives one unit. */
struct unit_spec {
	int64_t id;
	const char *mode;
	const char *const *argv;    /* unitenv_argv */
	const char *const *env;     /* unitenv_env */
	const char *cache_dir;      /* its working directory */
	const char *stdout_path, *stderr_path;
	const char *protect_dir;    /* NULL, or the folder it runs sandboxed from (sandbox.h:
				     * read-only but for cache_dir and check_dir); what held
				     * goes into its info as host_unit_isolation (below) */
	const char *check_dir;      /* NULL, or the run's check folder, writable to it (the
				     * harness's own worker: docs/audit.md, "The check folder") */
	int no_sandbox;             /* the experiment turned the sandbox off: recorded so */
	double timeout_s;           /* SIGTERM at the deadline, SIGKILL a grace period later */
	int64_t block;              /* for the progress line */
	const char *workload;       /* for the progress line: its one workload, or NULL */
	int warm;
	int command;                /* an external command unit: what it expects to do is the
				     * mode's `expects`, whatever its setup record says */
	unsigned expects;           /* MODE_EXPECTS_* (command units) */
	struct limit_settings limits; /* what it may send (0s: the defaults) */
	int note_host;              /* append the host's CPU note to its info (below); not for
				     * `harness selftest-unit`, which judges what the worker
				     * itself sent */
};

/* The host's CPU note, what the harness adds to a unit's info when it ends
 * (docs/results-format.md, `info`): host_cpus (the host's online CPUs), host_busy_cpus (how
 * many of them were busy on average while the unit ran, any process's work) and
 * host_unit_cpus (the unit's own CPU time over its wall time: its process and the
 * descendants it waited for).  The difference is other work on the host: contention that
 * host-bound cells (a stream-launched forward, CPU ops) time as well (the audit's
 * host-load check).  Nothing is added where /proc/stat or the unit's CPU time cannot be
 * read.  Then, each where known: host_unit_voluntary_switches and
 * host_unit_involuntary_switches (the unit's context switches, rusage: an involuntary one is
 * the scheduler preempting it), host_unit_minor_faults and host_unit_major_faults (its page
 * faults, the same rusage), host_unit_migrations (its main thread's moves between CPUs)
 * and host_unit_last_cpu (the CPU it ran on last), read from /proc once it has exited and
 * before it is reaped, as a zombie (never while it measures; absent only where /proc
 * cannot tell): which CPU a host-bound unit ran on, and how
 * often it moved, are candidate causes of a process that is slow for its whole life. */

/* Run one unit.  Its records go into *u (initialised by the caller, whose u->unit already
 * holds the plan's fields); this fills u->unit's pid, times, exit code, signal, status,
 * message and cache_leak.  *stop is polled: once nonzero the unit is killed.
 * Returns 0 when the unit ended (its status decided), 1 when it was stopped (not to be
 * recorded: --resume runs it again), -1 on an infrastructure failure (reported). */
int unit_run(const struct unit_spec *s, struct progress *prog, volatile sig_atomic_t *stop,
	     struct rec_unit_data *u);

/* The same in three steps, for a scheduler that watches several units at once (one
 * thread, one writer): unit_start spawns it (-1 reported: nothing to finish);
 * unit_step(j, stop, wait_ms) watches it (kill at the deadline or once stop is nonzero,
 * read its records waiting up to wait_ms, reap it): 1 exited, 0 running, -1 failed
 * (reported); unit_finish(j, failed) decides its status as unit_run does (failed: kill and
 * reap it, return -1) and releases the job.  *s, *prog and *u must outlive the job. */
struct unit_job {
	const struct unit_spec *spec;
	struct progress *prog;
	struct rec_unit_data *u;
	struct spawn sp;
	struct proto_in in;
	struct spawn_status st;
	int64_t t0, deadline, kill_at;
	int open, timed_out, stopped, started;
	struct sandbox sb;         /* its sandbox, when spec->protect_dir is set */
	struct sysinfo_cpu cpu0;   /* the host's CPU time when it started ... */
	int cpu0_ok;               /* ... where /proc/stat could be read */
};
int unit_start(const struct unit_spec *s, struct progress *prog, struct rec_unit_data *u,
	       struct unit_job *j);
int unit_step(struct unit_job *j, int stop, int wait_ms);
int unit_finish(struct unit_job *j, int failed);

#endif
