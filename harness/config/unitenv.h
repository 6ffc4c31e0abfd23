/* unitenv.h: what a unit is given (docs/record-protocol.md): its argv, built from the
 * backend registry's entry for the unit's mode (kernels/backend.h), and its environment,
 * built (never inherited) from an allowlist, the experiment's [environment] and the
 * variables the harness sets for every unit (unitenv_vars, the policy's one table: the
 * experiment check refuses them in [environment], the audit reads the cache ones). */
#ifndef HARNESS_CONFIG_UNITENV_H
#define HARNESS_CONFIG_UNITENV_H

#include <stddef.h>
#include <stdint.h>

#include "harness/config/experiment.h"
#include "kernels/backend.h"

/* Variables the harness sets for every unit (docs/record-protocol.md), in the order they
 * are set.  An experiment may neither set nor pass them; the audit checks the cache ones.
 * Terminated by an entry with a NULL name. */
enum unit_var_kind {
	UNIT_VAR_CACHE = 0,  /* a folder for a cache: <unit cache dir>[/sub] */
	UNIT_VAR_THREADS,    /* [measure] threads */
	UNIT_VAR_RECORD_FD,  /* the record pipe's descriptor */
	UNIT_VAR_UNIT,       /* the unit's plan id */
	UNIT_VAR_MODE,       /* the unit's mode name */
	UNIT_VAR_CHECK,      /* the run's check folder, <unit cache dir>/../check: what the
			      * backend's correctness check compiles for itself (the CUDA
			      * backend's float64 reference), shared by the run's units; never
			      * anything a mode chose or tuned (docs/audit.md) */
};
struct unit_var {
	const char *name;
	enum unit_var_kind kind;
	const char *sub;     /* UNIT_VAR_CACHE: path under the unit's cache dir, "" for itself */
};
extern const struct unit_var unitenv_vars[];
/* The entry for name, or NULL when the harness does not set it. */
const struct unit_var *unitenv_var(const char *name);

/* Variables a unit inherits from the harness when set; NULL-terminated. */
extern const char *const unitenv_allowlist[];

/* What identifies one unit to its environment. */
struct unitenv_unit {
	int64_t id;              /* its plan id (HARNESS_UNIT) */
	const char *backend;     /* its mode's resolved backend (the registry name) */
	const char *cache_dir;   /* its cache directory */
	const char *spec;        /* its specification's path (HARNESS_UNIT_SPEC; unitspec.h) */
	int record_fd;           /* the record pipe's descriptor (HARNESS_RECORD_FD) */
};

/* The environment of unit u of mode m: the allowlist and the experiment's `pass` names
 * (when set), then every unitenv_vars entry (caches pointing into u's cache directory;
 * thread counts from experiment_unit_measure), for a command mode
 * PYTHONPATH=<kernel dir>/python and PYTHONPYCACHEPREFIX=<cache_dir>/pycache, then the
 * experiment's `set` table, the mode's [modes.environment], and HARNESS_UNIT_SPEC.  Heap
 * vector of heap "NAME=value" strings, NULL-terminated; free with unitenv_free. */
char **unitenv_env(const struct experiment *e, const struct mode *m, const struct unitenv_unit *u);

/* What a unit's argv is made from. */
struct unitenv_start {
	const char *self;        /* the harness binary ("/proc/self/exe": the very binary of the run) */
	const char *spec;        /* the unit's specification (unitspec_path) */
	const char *const *command; /* BACKEND_START_COMMAND: the mode's argv as run */
	int timed;               /* 1: a command mode with timing = "process": the harness's
				  * own worker starts and times the command (timeworker.h) */
};

/* The argv that starts a unit of a mode on backend be, as the registry says it starts:
 * `SELF __worker --spec FILE` for the harness's own worker, the mode's command as run for
 * an external command mode (the own worker again when s->timed: it times the command).  Heap vector of heap strings, NULL-terminated (free with
 * unitenv_free); NULL with *cause (heap) when the backend has no way to start a unit. */
char **unitenv_argv(const struct backend_entry *be, const struct unitenv_start *s,
		    char **cause);

/* Set NAME=value in *env (a unitenv_env vector): replaces NAME's entry, else appends. */
void unitenv_set(char ***env, const char *name, const char *value);

/* Free a vector from unitenv_env or unitenv_argv (NULL is fine). */
void unitenv_free(char **v);

#endif
