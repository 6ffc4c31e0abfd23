/* unitenv.c: a unit's argv and environment, and the table of what the harness sets for
 * every unit (see unitenv.h) */
#include "config.h"
#include "harness/config/unitenv.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/util.h"

/* The order is the order units have always been given them (recorded env_json). */
const struct unit_var unitenv_vars[] = {
	{ "HOME", UNIT_VAR_CACHE, "" },
	{ "TMPDIR", UNIT_VAR_CACHE, "tmp" },
	{ "XDG_CACHE_HOME", UNIT_VAR_CACHE, "" },
	{ "HARNESS_CACHE_DIR", UNIT_VAR_CACHE, "" },
	{ "TRITON_CACHE_DIR", UNIT_VAR_CACHE, "triton" },
	{ "TORCHINDUCTOR_CACHE_DIR", UNIT_VAR_CACHE, "inductor" },
	{ "CUDA_CACHE_PATH", UNIT_VAR_CACHE, "cuda" },
	{ "OPENBLAS_NUM_THREADS", UNIT_VAR_THREADS, NULL },
	{ "OMP_NUM_THREADS", UNIT_VAR_THREADS, NULL },
	{ "HARNESS_RECORD_FD", UNIT_VAR_RECORD_FD, NULL },
	{ "HARNESS_UNIT", UNIT_VAR_UNIT, NULL },
	{ "HARNESS_MODE", UNIT_VAR_MODE, NULL },
	{ "HARNESS_CHECK_DIR", UNIT_VAR_CHECK, NULL },
	{ NULL, 0, NULL },
};

const struct unit_var *unitenv_var(const char *name)
{
	for (const struct unit_var *v = unitenv_vars; v->name; v++)
		if (!strcmp(v->name, name))
			return v;
	return NULL;
}

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
			    const struct mode *m, const struct unitenv_unit *u)
{
	const char *cache_dir = u->cache_dir;
	switch (v->kind) {
	case UNIT_VAR_CACHE:
		return *v->sub ? xasprintf("%s/%s", cache_dir, v->sub) : xstrdup(cache_dir);
	case UNIT_VAR_THREADS:
		return xasprintf("%" PRId64, experiment_unit_measure(e, m, u->backend).threads);
	case UNIT_VAR_RECORD_FD:
		return xasprintf("%d", u->record_fd);
	case UNIT_VAR_UNIT:
		return xasprintf("%" PRId64, u->id);
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

char **unitenv_env(const struct experiment *e, const struct mode *m, const struct unitenv_unit *u)
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
	for (const struct unit_var *v = unitenv_vars; v->name; v++) {
		char *val = unit_var_value(v, e, m, u);
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
		py = xasprintf("%s/pycache", u->cache_dir);
		env_put(&s, "PYTHONPYCACHEPREFIX", py);
		free(py);
	}
	for (size_t i = 0; i < e->nenv_set; i++)
		env_put(&s, e->env_set[i].name, e->env_set[i].value);
	for (size_t i = 0; i < m->nenv; i++)
		env_put(&s, m->env[i].name, m->env[i].value);
	env_put(&s, "HARNESS_UNIT_SPEC", u->spec);
	return s.v;
}

char **unitenv_argv(const struct backend_entry *be, const struct unitenv_start *st,
		    char **cause)
{
	struct strv s = { 0 };
	*cause = NULL;
	if (st->timed && be->start == BACKEND_START_COMMAND) {
		if (!st->command || !st->command[0])
			goto none;
		strv_push(&s, xstrdup(st->self));
		strv_push(&s, xstrdup("__worker"));
		strv_push(&s, xstrdup("--spec"));
		strv_push(&s, xstrdup(st->spec));
		return s.v;
	}
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
none:
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
