/* sched-int.h: the scheduler's state for one run, shared by sched.c (the run: plan, meta,
 * journal, summary), sched-units.c (one unit, and the slots that run units side by side),
 * sched-resume.c (--resume from the journal) and sched-backends.c (each mode's backend:
 * resolved through the registry, recorded, described).  Private to harness/run/sched*.c. */
#ifndef HARNESS_SCHED_INT_H
#define HARNESS_SCHED_INT_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/config/experiment.h"
#include "harness/record/recorder.h"
#include "harness/run/progress.h"
#include "harness/run/sched.h"
#include "harness/run/slots.h"
#include "harness/run/unit.h"
#include "kernels/backend.h"

/* A mode's backend: what it asked for, what runs it and why. */
struct mode_backend {
	char *requested;                    /* heap */
	const struct backend_entry *entry;  /* the registry's */
	char *reason;                       /* heap */
	char **command;  /* a command mode's argv as run (heap, NULL-terminated), else NULL:
			  * resolved when the run started, read back from mode_backends on
			  * --resume (the run folder's copy lies away from the paths) */
	char **command_sha256; /* parallel to command (heap, heap strings): the SHA-256 of each
				* element that named a regular file when the run started (the
				* program, a script, its data), NULL for the others; itself NULL
				* when there is no command or a resumed run recorded none */
};

/* A slot while the run goes: the block it works through and the unit it runs. */
struct slot_run {
	size_t index;                 /* into the run's slots */
	const struct slot_def *def;   /* the slot's share of the host, or NULL: not pinned */
	size_t *queue, nqueue, next;  /* the plan ids of its block still to run, in order */
	int64_t block;                /* the block it works through, or -1 */
	int running;                  /* a unit has started and not yet ended */
	int64_t noted_ns;             /* when its unit's running note was last written */
	int dealt_out;                /* no block left to deal it: it starts nothing more */
	const struct rec_plan *p;     /* the unit */
	struct rec_unit_data u;       /* its record, filled as it runs */
	struct unit_spec spec;
	struct unit_job job;
	char **env, **argv;           /* heap, for spec */
	char *cache, *out_log, *err_log;
	char *protect;            /* the results folder, read-only to its unit (sandbox.h) */
	char *check;              /* the run's check folder, writable to an own-worker unit */
};

/* Wall time of recorded units per (mode, workload, warm), whatever their status (a unit that
 * timed out was long too): this run's, a resumed journal's and --estimates' earlier run's;
 * and of units a lost session left running (the journal's running notes); what --max-time
 * estimates from. */
struct estimate {
	char *mode;
	char *workload; /* "" for a unit of every workload of its mode */
	int warm;
	int64_t max_ns;        /* the longest recorded unit (when n > 0) */
	size_t n;              /* recorded units noted */
	int64_t unfinished_ns; /* the longest a unit ran without being recorded (0: none) */
};

struct run {
	const struct sched_opts *o;
	struct experiment *exp;
	struct mode_backend *mb;  /* per experiment mode */
	char *h5path, *dir, *exp_copy;
	struct rec_journal *jr;   /* the run's write-ahead journal (dir/journal) */
	int dir_lock;             /* a new run's lock on dir (rec_run_dir_create), or -1 */
	int64_t session_ns;       /* when this session started (util_now_ns) */
	int64_t assemble_ns;      /* time spent assembling the results file so far */
	struct rec_plan *plan;
	size_t nplan;
	char **cache_of;  /* per plan id: the unit's cache dir (heap) once known */
	int *done;        /* per plan id: 1 when recorded */
	char self[PATH_MAX];
	struct progress prog;
	size_t nfailed;
	struct slots slots;       /* --jobs / --gpus: n > 0; else none (one unit at a time) */
	int64_t shard_k, shard_n; /* this run's share of the blocks: block % n == k (n 0: all) */
	char *mine;               /* per plan id: 1 when it is this run's (its shard's) */
	long *pin;                /* per plan id, or NULL: the slot its block must run on (a block
				   * resumed after part of it ran on that slot's device), -1 any */
	char *shared;             /* per plan id, or NULL: 1 when its block's units may run on
				   * several slots (--share-split-blocks: part of the block ran on
				   * a device no slot of this session has, or on two devices) */
	struct estimate *est;
	size_t nest, est_cap;
	int notes_off;            /* a running note could not be written: no more this session */
};

/* Which plan entries are this run's (r->mine): its shard's blocks, or all. */
void sched_mark_mine(struct run *r);
/* The slots of --jobs / --gpus into r->slots (none: one unit at a time).  -1 reported. */
int sched_make_slots(struct run *r);
/* This session's slots, shard and batch-system ids into m (keys "slots", "shard",
 * "slurm_*"). */
void sched_session_meta(struct run *r, struct rec_meta *m);
/* Note a finished unit's wall time for --max-time's estimates. */
void sched_estimate_note(struct run *r, const char *mode, const char *workload, int warm,
			 int64_t wall_ns);
/* Note that a unit ran elapsed_ns without being recorded (a lost session's running note):
 * a lower bound on the length of its mode's units of that workload and kind. */
void sched_estimate_note_unfinished(struct run *r, const char *mode, const char *workload,
				    int warm, int64_t elapsed_ns);

/* Hash the files of b's command as they are now (a fresh run: b->command_sha256). */
void sched_command_hash(struct mode_backend *b);
/* Before a unit of mode mi starts: every file its command named when the run started is
 * still there with the same SHA-256, so every unit of the run runs one program.  A file gone
 * or changed stops the run (the unit not started, nothing recorded for it: it is the
 * machine's fault, not the unit's), with what to do.  0, or -1 reported. */
int sched_command_check(const struct run *r, size_t mi, int64_t unit);

/* ---- the units (sched-units.c) ---- */
/* Run the plan's units still to run on the slots (one at a time without slots), recording
 * each in the journal as it ends; a signal number in *stop stops the running units (not
 * recorded); --max-time's budget starts no unit that cannot finish (docs/cluster.md).
 * 0 (*failed: an infrastructure failure stopped the run; *time_limit: the budget did) or
 * -1 reported. */
int sched_run_slots(struct run *r, const volatile sig_atomic_t *stop, int *failed,
		    int *time_limit);
/* Assemble the results file from the journal (rec_assemble).  -1 reported. */
int sched_assemble(struct run *r);
/* A JSON array of the NULL-terminated strings v.  Heap. */
char *sched_json_strv(const char *const *v);

/* ---- each mode's backend (sched-backends.c) ---- */
/* Resolve every mode's backend through the registry (backend_resolve); a backend that
 * cannot run is refused before anything is created.  -1 reported. */
int sched_resolve_modes(struct run *r);
/* The modes with keep[i] 0 (per experiment mode) leave the run (moved past exp->nmodes,
 * said on stderr), and a run whose remaining modes all run on one backend takes the
 * experiment's [on.BACKEND] settings: the one resolution a fresh run (sched_resolve_modes)
 * and --resume (from the recorded mode_backends) share, so both plan the same units. */
void sched_settle_modes(struct run *r, const char *keep);
/* plan_build over the run's experiment and its modes' backends (r->mb): r->plan, r->nplan.
 * 0, or -1 reported. */
int sched_plan_build(struct run *r);
/* 1 when every mode runs on the same backend for the same reason. */
int sched_backends_uniform(const struct run *r);
/* The run's backend in one word: the backend every mode runs on, or the distinct ones in
 * mode order joined by commas ("cpu,cuda").  Heap. */
char *sched_backends_joined(const struct run *r);
/* mode_backends: {"mode": {"requested": ..., "backend": ..., "reason": ...}, ...}. Heap. */
char *sched_backends_json(const struct run *r);
/* The backends' own build provenance (describe_build: "openblas" for cpu), once each. */
void sched_backends_describe_build(const struct run *r, struct rec_meta *m);
/* "backend 'cpu' (auto: ...)", or one "mode 'x' on 'cpu' (...)" per mode when they differ,
 * for the start line and the closing summary.  Heap. */
char *sched_backends_phrase(const struct run *r);
void sched_free_backends(struct run *r);
/* A heap copy of a NULL-terminated string vector (free with unitenv_free). */
char **sched_strv_dup(char *const *v);


/* ---- shared by the run (sched.c) and its resume (sched-resume.c) ---- */
/* Units start in their cache directory: every path they are given is absolute. */
int sched_make_dir_absolute(struct run *r);
/* Reopen a run for --resume from its journal.  The experiment is the run folder's copy
 * (or the one given, which must be the same bytes), checked against the recorded SHA-256
 * before anything is written: a refused resume changes nothing.  *complete is set when
 * every unit is recorded and the results file already says so (nothing to do). */
int sched_start_resume(struct run *r, int *usage, int *complete);

#endif
