/* sched.h: the scheduler: from an experiment to a results file.  It resolves the backend,
 * builds the plan (plan.h), makes the run folder, and runs every unit as a fresh worker
 * process (spawn.h) with its own cache directory, an allowlisted environment, logs beside
 * the results and a timeout; it reads each unit's records (proto.h) and appends the unit to
 * the results file (recorder.h) before starting the next.  It computes no statistics. */
#ifndef HARNESS_SCHED_H
#define HARNESS_SCHED_H

#include <stdint.h>

#include "harness/config/experiment.h"
#include "harness/record/recorder.h"

struct sched_opts {
	const char *experiment;   /* experiment file (new run); with resume: optional, checked */
	const char *resume;       /* results file to resume, or NULL */
	const char *backend;      /* --backend override, or NULL */
	const char *results_dir;  /* where new runs go (default "results") */
	const char *output;       /* exact results file path for a new run, or NULL */
	int quiet;
	int require_preregistered; /* refuse unless every hypothesis file is committed and clean */
	int argc;                 /* the harness's own argv, recorded */
	char **argv;
};

/* Run (or resume) and return the exit code (enum harness_exit): 0 every unit ok, 1 some
 * unit failed or the run could not continue, 2 bad input (nothing run or written),
 * 130 stopped by SIGINT/SIGTERM. */
int sched_run(const struct sched_opts *o);

/* The environment a unit gets: an allowlist of the parent's variables plus the cache
 * variables pointing into cache_dir (see docs/record-protocol.md).  Heap vector of heap
 * "NAME=value" strings, NULL-terminated; free with sched_env_free. */
char **sched_unit_env(const struct experiment *e, const char *cache_dir, int64_t unit,
		      const char *mode);
void sched_env_free(char **env);

/* A cache leak: a cold unit that finished ok, whose tuner compiles or benchmarks when cold,
 * but that compiled nothing and benchmarked nothing, so it found its work already done in a
 * cache directory that was supposed to be new.  Flagged per unit in the results. */
int sched_is_cache_leak(const struct rec_unit *u);

#endif
