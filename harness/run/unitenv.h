/* unitenv.h: what a unit is given (docs/record-protocol.md): its argv, built from the
 * backend registry's entry for the unit's mode (kernels/backend.h), and its environment,
 * built (never inherited) from an allowlist, the experiment's [environment] and the
 * variables the harness sets for every unit (backend_unit_vars). */
#ifndef HARNESS_UNITENV_H
#define HARNESS_UNITENV_H

#include <stddef.h>
#include <stdint.h>

#include "harness/config/experiment.h"
#include "kernels/backend.h"

/* Variables a unit inherits from the harness when set; NULL-terminated. */
extern const char *const unitenv_allowlist[];

/* The environment of unit `unit` of mode m on backend (its resolved registry name): the
 * allowlist and the experiment's `pass` names (when set), then every backend_unit_vars
 * entry (caches pointing into cache_dir; thread counts from experiment_unit_measure), for a
 * command mode PYTHONPATH=<kernel dir>/python and PYTHONPYCACHEPREFIX=<cache_dir>/pycache,
 * then the experiment's `set` table, the mode's [modes.environment], and HARNESS_UNIT_SPEC
 * (the unit specification in cache_dir, unitspec.h).  Heap vector of heap "NAME=value"
 * strings, NULL-terminated; free with unitenv_free. */
char **unitenv_env(const struct experiment *e, const struct mode *m, const char *backend,
		   const char *cache_dir, int64_t unit);

/* What a unit's argv is made from. */
struct unitenv_start {
	const char *self;        /* the harness binary ("/proc/self/exe": the very binary of the run) */
	const char *spec;        /* the unit's specification (unitspec_path) */
	const char *const *command; /* BACKEND_START_COMMAND: the mode's argv as run */
};

/* The argv that starts a unit of a mode on backend be, as the registry says it starts:
 * `SELF __worker --spec FILE` for the harness's own worker, the mode's command as run for
 * an external command mode.  Heap vector of heap strings, NULL-terminated (free with
 * unitenv_free); NULL with *cause (heap) when the backend has no way to start a unit. */
char **unitenv_argv(const struct backend_entry *be, const struct unitenv_start *s,
		    char **cause);

/* Set NAME=value in *env (a unitenv_env vector): replaces NAME's entry, else appends. */
void unitenv_set(char ***env, const char *name, const char *value);

/* Free a vector from unitenv_env or unitenv_argv (NULL is fine). */
void unitenv_free(char **v);

#endif
