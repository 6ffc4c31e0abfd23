/* backend.c: the backend registry (names, auto order, availability, how units start), the
 * variables every unit is given, and where the kernel templates live */
#include "config.h"
#include "kernels/backend.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern const struct backend_ops backend_cpu;
#ifdef HAVE_CUDA
extern const struct backend_ops backend_cuda;
#define CUDA_OPS (&backend_cuda)
#else
#define CUDA_OPS NULL
#endif

/* The one table of backends.  Order: how messages list them.  `auto` takes the available
 * backend of lowest nonzero auto_rank.  A backend this build lacks keeps its entry (its
 * name stays known, and every message can say why it cannot run). */
const struct backend_entry backend_registry[] = {
	{ .name = "cpu", .ops = &backend_cpu, .auto_rank = 2,
	  .auto_first = "the CPU backend is always available", .start = BACKEND_START_WORKER },
	{ .name = "cuda", .ops = CUDA_OPS, .missing = "this build has no CUDA backend", .auto_rank = 1,
	  .auto_first = "a CUDA device is available", .start = BACKEND_START_WORKER },
	/* An external program per mode (`command = [...]`): no ops in this process; the
	 * program builds, tunes and times its own cells.  Never chosen by `auto`. */
	{ .name = "command", .ops = NULL,
	  .missing = "the command backend runs a mode's own program: it needs `command = [...]`",
	  .auto_rank = 0, .start = BACKEND_START_COMMAND },
	{ .name = NULL },
};

/* The same names with "auto" first, for the TOML enum (kept in step by backend_choices). */
static const char *choices[ARRAY_SIZE(backend_registry) + 1];

const struct backend_entry *backend_entry(const char *name)
{
	for (const struct backend_entry *e = backend_registry; e->name; e++)
		if (!strcmp(e->name, name))
			return e;
	return NULL;
}

const struct backend_ops *backend_find(const char *name)
{
	const struct backend_entry *e = backend_entry(name);
	return e ? e->ops : NULL;
}

const char *const *backend_choices(void)
{
	if (!choices[0]) {
		size_t n = 0;
		choices[n++] = "auto";
		for (const struct backend_entry *e = backend_registry; e->name; e++)
			choices[n++] = e->name;
		choices[n] = NULL;
	}
	return choices;
}

const char *backend_names(void)
{
	static char *list;
	if (!list) {
		const char *const *c = backend_choices();
		struct sbuf sb;
		sbuf_init(&sb);
		for (size_t i = 0; c[i]; i++)
			sbuf_addf(&sb, "%s%s", i ? (c[i + 1] ? ", " : " or ") : "", c[i]);
		list = sbuf_detach(&sb);
	}
	return list;
}

int backend_is_choice(const char *name)
{
	return !strcmp(name, "auto") || backend_entry(name) != NULL;
}

int backend_available(const struct backend_entry *e, char **why)
{
	*why = NULL;
	if (e->start == BACKEND_START_COMMAND)
		return 1; /* whether its program can run is known when it starts */
	if (!e->ops) {
		*why = xstrdup(e->missing ? e->missing : "not in this build");
		return 0;
	}
	if (!e->ops->available(why)) {
		if (!*why)
			*why = xasprintf("no usable %s device", e->name);
		return 0;
	}
	return 1;
}

/* The names this build has, for "not available in this build (built: cpu)". */
static char *built_names(void)
{
	struct sbuf sb;
	sbuf_init(&sb);
	for (const struct backend_entry *e = backend_registry; e->name; e++)
		if (e->ops)
			sbuf_addf(&sb, "%s%s", sb.len ? ", " : "", e->name);
	if (!sb.len)
		sbuf_adds(&sb, "none");
	return sbuf_detach(&sb);
}

int backend_workload_for(const struct workload *w, const char *backend)
{
	return !w->backend || !strcmp(w->backend, backend);
}

/* 1 when e serves every workload meant for it (at least one); else 0 and *why (heap). */
static int serves(const struct backend_entry *e, const struct workload *w, size_t nw, char **why)
{
	size_t mine = 0;
	for (size_t i = 0; i < nw; i++) {
		if (!backend_workload_for(&w[i], e->name))
			continue;
		mine++;
		if (e->ops && e->ops->supports && !e->ops->supports(&w[i], why))
			return 0;
	}
	if (nw && !mine) {
		*why = xasprintf("no workload is for backend '%s' (each names another 'backend')",
				 e->name);
		return 0;
	}
	return 1;
}

int backend_resolve(const char *requested, const struct workload *w, size_t nw,
		    const struct backend_entry **entry, char **reason, char **cause)
{
	*entry = NULL;
	*reason = *cause = NULL;
	char *why = NULL;
	if (!strcmp(requested, "auto")) {
		/* the auto order: ranks 1, 2, ...; the reasons of those passed over are kept */
		struct sbuf skipped;
		sbuf_init(&skipped);
		int first = 1;
		for (int rank = 1; rank <= (int)ARRAY_SIZE(backend_registry); rank++) {
			for (const struct backend_entry *e = backend_registry; e->name; e++) {
				if (e->auto_rank != rank)
					continue;
				if (backend_available(e, &why) && serves(e, w, nw, &why)) {
					*entry = e;
					*reason = first ? xasprintf("auto: %s", e->auto_first)
							: xasprintf("auto: %s", skipped.buf);
					sbuf_release(&skipped);
					return 0;
				}
				sbuf_addf(&skipped, "%s%s", skipped.len ? "; " : "", why);
				free(why);
				why = NULL;
				first = 0;
			}
		}
		*cause = xasprintf("'auto' found no backend that can run here (%s)",
				   skipped.len ? skipped.buf : "none is built");
		sbuf_release(&skipped);
		return -1;
	}
	const struct backend_entry *e = backend_entry(requested);
	if (!e) {
		*cause = xasprintf("unknown backend '%s' (%s)", requested, backend_names());
		return -1;
	}
	if (!e->ops && e->start != BACKEND_START_COMMAND) {
		char *built = built_names();
		*cause = xasprintf("backend '%s' is not available in this build (built: %s)",
				   requested, built);
		free(built);
		return -1;
	}
	if (!backend_available(e, &why)) {
		*cause = xasprintf("backend '%s' was asked for but cannot run here: %s", requested,
				   why);
		free(why);
		return -1;
	}
	if (!serves(e, w, nw, &why)) {
		*cause = xasprintf("backend '%s' was asked for but cannot run this experiment: %s",
				   requested, why);
		free(why);
		return -1;
	}
	*entry = e;
	*reason = xstrdup(e->start == BACKEND_START_COMMAND ? "the mode runs a command"
							    : "requested by name");
	return 0;
}

const char *backend_auto_preferred(void)
{
	const struct backend_entry *best = NULL;
	for (const struct backend_entry *e = backend_registry; e->name; e++)
		if (e->auto_rank > 0 && (!best || e->auto_rank < best->auto_rank))
			best = e;
	return best ? best->name : "";
}

void prepare_result_release(struct prepare_result *r)
{
	free(r->detail);
	r->detail = NULL;
}

int backend_env_dir(const char *name, mode_t mode, const char *fallback, char **out,
		    char **cause)
{
	const char *v = getenv(name);
	*out = NULL;
	if (v && *v && mkdir(v, mode) < 0 && errno != EEXIST) {
		*cause = xasprintf("cannot create %s '%s': %s", name, v, strerror(errno));
		return -1;
	}
	*out = xstrdup(v && *v ? v : fallback);
	return 0;
}

/* Computed once per process; see backend.h for the order of the rules. */
const char *backend_kernel_dir(void)
{
	static char *dir;
	if (!dir)
		dir = util_data_dir("HARNESS_KERNEL_DIR", "kernels");
	return dir;
}
