/* unitenv.c: a unit's argv and environment (see unitenv.h) */
#include "config.h"
#include "harness/run/unitenv.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/util.h"
#include "harness/record/proto.h"
#include "harness/run/unitspec.h"

const char *const unitenv_allowlist[] = {
	"PATH", "LANG", "LC_ALL", "TZ", "USER", "LOGNAME", "LD_LIBRARY_PATH",
	"HARNESS_KERNEL_DIR", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER",
	"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", NULL,
};

struct strv {
	char **v;
	size_t n, cap;
};

static void strv_push(struct strv *s, char *owned)
{
	XGROW(s->v, s->cap, s->n + 2);
	s->v[s->n++] = owned;
	s->v[s->n] = NULL;
}

/* Set name=value, replacing an earlier value in place (the order stays first-set). */
static void env_put(struct strv *s, const char *name, const char *value)
{
	size_t l = strlen(name);
	for (size_t i = 0; i < s->n; i++) {
		if (!strncmp(s->v[i], name, l) && s->v[i][l] == '=') {
			free(s->v[i]);
			s->v[i] = xasprintf("%s=%s", name, value);
			return;
		}
	}
	strv_push(s, xasprintf("%s=%s", name, value));
}

/* The value the harness gives unit variable v. */
static char *unit_var_value(const struct unit_var *v, const struct experiment *e,
			    const struct mode *m, const char *backend, const char *cache_dir,
			    int64_t unit)
{
	switch (v->kind) {
	case UNIT_VAR_CACHE:
		return *v->sub ? xasprintf("%s/%s", cache_dir, v->sub) : xstrdup(cache_dir);
	case UNIT_VAR_THREADS:
		return xasprintf("%" PRId64, experiment_unit_measure(e, m, backend).threads);
	case UNIT_VAR_RECORD_FD:
		return xasprintf("%d", PROTO_FD);
	case UNIT_VAR_UNIT:
		return xasprintf("%" PRId64, unit);
	case UNIT_VAR_MODE:
		return xstrdup(m->name);
	case UNIT_VAR_CHECK: {
		/* beside the units' cache directories: <run>/cache/check */
		const char *slash = strrchr(cache_dir, '/');
		return slash ? xasprintf("%.*s/check", (int)(slash - cache_dir), cache_dir)
			     : xstrdup("check");
	}
	}
	return xstrdup("");
}

char **unitenv_env(const struct experiment *e, const struct mode *m, const char *backend,
		   const char *cache_dir, int64_t unit)
{
	struct strv s = { 0 };
	XGROW(s.v, s.cap, 1);
	s.v[0] = NULL;
	for (size_t i = 0; unitenv_allowlist[i]; i++) {
		const char *v = getenv(unitenv_allowlist[i]);
		if (v)
			env_put(&s, unitenv_allowlist[i], v);
	}
	if (!getenv("PATH"))
		env_put(&s, "PATH", "/usr/local/bin:/usr/bin:/bin");
	for (size_t i = 0; i < e->nenv_pass; i++) {
		const char *v = getenv(e->env_pass[i]);
		if (v)
			env_put(&s, e->env_pass[i], v);
	}
	/* Every cache a unit could fill points into its own directory. */
	for (const struct unit_var *v = backend_unit_vars; v->name; v++) {
		char *val = unit_var_value(v, e, m, backend, cache_dir, unit);
		env_put(&s, v->name, val);
		free(val);
	}
	int command = m->command != NULL;
	/* A command unit finds the protocol module (kernels/python/harness_unit.py); the
	 * experiment may point PYTHONPATH elsewhere. */
	if (command) {
		char *py = xasprintf("%s/python", backend_kernel_dir());
		env_put(&s, "PYTHONPATH", py);
		free(py);
		/* Python's bytecode cache is a cache too: the unit's own, never the source tree */
		py = xasprintf("%s/pycache", cache_dir);
		env_put(&s, "PYTHONPYCACHEPREFIX", py);
		free(py);
	}
	for (size_t i = 0; i < e->nenv_set; i++)
		env_put(&s, e->env_set[i].name, e->env_set[i].value);
	for (size_t i = 0; i < m->nenv; i++)
		env_put(&s, m->env[i].name, m->env[i].value);
	char *spec = unitspec_path(cache_dir, unit);
	env_put(&s, "HARNESS_UNIT_SPEC", spec);
	free(spec);
	return s.v;
}

char **unitenv_argv(const struct backend_entry *be, const struct unitenv_start *st,
		    char **cause)
{
	struct strv s = { 0 };
	*cause = NULL;
	switch (be->start) {
	case BACKEND_START_WORKER:
		strv_push(&s, xstrdup(st->self));
		strv_push(&s, xstrdup("__worker"));
		strv_push(&s, xstrdup("--spec"));
		strv_push(&s, xstrdup(st->spec));
		return s.v;
	case BACKEND_START_COMMAND:
		if (!st->command || !st->command[0])
			break;
		for (size_t i = 0; st->command[i]; i++)
			strv_push(&s, xstrdup(st->command[i]));
		return s.v;
	case BACKEND_START_NONE:
		break;
	}
	*cause = xasprintf("backend '%s' has no way to start a unit yet%s%s", be->name,
			   be->missing ? ": " : "", be->missing ? be->missing : "");
	return NULL;
}

void unitenv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

void unitenv_set(char ***env, const char *name, const char *value)
{
	size_t n = 0, l = strlen(name);
	char *entry = xasprintf("%s=%s", name, value);
	for (; (*env)[n]; n++) {
		if (!strncmp((*env)[n], name, l) && (*env)[n][l] == '=') {
			free((*env)[n]);
			(*env)[n] = entry;
			return;
		}
	}
	*env = xrealloc(*env, (n + 2) * sizeof(**env));
	(*env)[n] = entry;
	(*env)[n + 1] = NULL;
}
