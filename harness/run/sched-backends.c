/* sched-backends.c: each mode's backend in a run: what it asked for, resolved through the
 * registry (kernels/backend.h) with the reason, recorded as run metadata (sched-int.h) */
#include "config.h"
#include "harness/run/sched-int.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "harness/base/git-version.h"
#include "harness/base/util.h"
#include "harness/config/experiment.h"
#include "harness/record/prereg.h"
#include "harness/record/recorder.h"
#include "harness/run/envcap.h"
#include "harness/run/plan.h"
#include "harness/run/progress.h"
#include "harness/run/unit.h"
#include "harness/config/unitenv.h"
#include "kernels/backend.h"
#include "stats/stats.h"

/* ---- backends per mode ------------------------------------------------------------- */

/* What mode m asks for: its own `backend`, else --backend, else the experiment's. */
static const char *requested_backend(const struct run *r, const struct mode *m)
{
	if (m->backend)
		return m->backend;
	return r->o->backend ? r->o->backend : r->exp->backend;
}

/* Modes with keep[i] 0 leave this run: moved past e->nmodes (still owned by the experiment),
 * with their resolutions, saying so on stderr.  The baseline is never left out (the
 * experiment's check). */
static void leave_out_modes(struct run *r, const char *keep)
{
	struct experiment *e = r->exp;
	size_t n = 0;
	const char *base = e->modes[e->baseline].name;
	for (size_t i = 0; i < e->nmodes; i++) {
		const struct mode *m = &e->modes[i];
		if (!keep[i]) {
			if (r->mb[i].entry)
				fprintf(stderr, "harness: mode '%s' is left out of this run: it is "
					"only_on '%s', and runs on '%s' here\n", m->name, m->only_on,
					r->mb[i].entry->name);
			else
				fprintf(stderr, "harness: mode '%s' is left out of this run, as when it "
					"started (only_on '%s')\n", m->name,
					m->only_on ? m->only_on : "");
			continue;
		}
		if (n != i) { /* rotate mode i down to n, the left-out ones up */
			struct mode tm = e->modes[i];
			struct mode_backend tb = r->mb[i];
			memmove(&e->modes[n + 1], &e->modes[n], (i - n) * sizeof(*e->modes));
			memmove(&r->mb[n + 1], &r->mb[n], (i - n) * sizeof(*r->mb));
			e->modes[n] = tm;
			r->mb[n] = tb;
		}
		n++;
	}
	e->nmodes_left_out += e->nmodes - n;
	e->nmodes = n;
	for (size_t i = 0; i < e->nmodes; i++)
		if (!strcmp(e->modes[i].name, base))
			e->baseline = i;
}

void sched_settle_modes(struct run *r, const char *keep)
{
	leave_out_modes(r, keep);
	/* a run whose modes all run on one backend takes its [on.BACKEND] settings */
	size_t same = 1;
	for (size_t i = 1; i < r->exp->nmodes; i++)
		same &= r->mb[i].entry == r->mb[0].entry;
	if (r->exp->nmodes && same)
		experiment_apply_on(r->exp, r->mb[0].entry->name);
}

/* Resolve every mode's backend through the registry (backend_resolve) for the workloads
 * the mode runs (its `workloads`, else every one); a backend that cannot run is refused
 * before anything is created.  -1 reported. */
int sched_resolve_modes(struct run *r)
{
	const struct experiment *e = r->exp;
	struct workload *mine = xcalloc(e->nworkloads, sizeof(*mine));
	char *keep = xcalloc(e->nmodes + 1, 1);
	r->mb = xcalloc(e->nmodes, sizeof(*r->mb));
	for (size_t i = 0; i < e->nmodes; i++) {
		const struct mode *m = &e->modes[i];
		struct mode_backend *b = &r->mb[i];
		char *cause = NULL;
		size_t nmine = 0;
		for (size_t w = 0; w < e->nworkloads; w++) /* shallow copies: still e's */
			if (mode_has_workload(m, e->workloads[w].name))
				mine[nmine++] = e->workloads[w];
		b->requested = xstrdup(requested_backend(r, m));
		if (backend_resolve(b->requested, mine, nmine, &b->entry, &b->reason, &cause)) {
			if (m->backend)
				error("mode '%s': %s", m->name, cause);
			else
				error("%s", cause);
			free(cause);
			free(mine);
			free(keep);
			return -1;
		}
		if (m->command_argv) {
			b->command = sched_strv_dup(m->command_argv);
			sched_command_hash(b);
		}
		/* `only_on` another backend than the mode resolved to: it leaves this run */
		keep[i] = !m->only_on || !strcmp(m->only_on, b->entry->name);
	}
	free(mine);
	sched_settle_modes(r, keep);
	free(keep);
	return 0;
}

void sched_command_hash(struct mode_backend *b)
{
	size_t n = 0;
	while (b->command[n])
		n++;
	b->command_sha256 = xcalloc(n + 1, sizeof(*b->command_sha256));
	for (size_t k = 0; k < n; k++) {
		char h[65];
		if (b->command[k][0] == '/' && util_sha256_file(b->command[k], h) == 0)
			b->command_sha256[k] = xstrdup(h);
	}
}

int sched_command_check(const struct run *r, size_t mi, int64_t unit)
{
	const struct mode_backend *b = &r->mb[mi];
	const char *mode = r->exp->modes[mi].name;
	for (size_t k = 0; b->command && b->command_sha256 && b->command[k]; k++) {
		const char *want = b->command_sha256[k], *f = b->command[k];
		char h[65];
		if (!want)
			continue;
		if (util_sha256_file(f, h) < 0) {
			const char *why = errno == ENOENT   ? "is gone"
					  : errno == EINVAL ? "is no longer a regular file"
							    : strerror(errno);
			error("mode '%s': '%s', a file of its command, %s (it was there when the run "
			      "started): unit %" PRId64 " not started, nothing recorded for it; put "
			      "the file back and continue with 'harness run --resume %s'",
			      mode, f, why, unit, r->h5path);
			return -1;
		}
		if (strcmp(h, want)) {
			error("mode '%s': '%s', a file of its command, changed since the run started "
			      "(sha256 %.16s..., now %.16s...): unit %" PRId64 " not started, so that "
			      "every unit of the run runs one program; put the original back and "
			      "continue with 'harness run --resume %s', or start a new run",
			      mode, f, want, h, unit, r->h5path);
			return -1;
		}
	}
	return 0;
}

int sched_plan_build(struct run *r)
{
	const char **names = xcalloc(r->exp->nmodes ? r->exp->nmodes : 1, sizeof(*names));
	for (size_t i = 0; i < r->exp->nmodes; i++)
		names[i] = r->mb && r->mb[i].entry ? r->mb[i].entry->name : NULL;
	int rc = plan_build(r->exp, names, &r->plan, &r->nplan);
	free(names);
	return rc;
}

char **sched_strv_dup(char *const *v)
{
	size_t n = 0;
	while (v[n])
		n++;
	char **out = xcalloc(n + 1, sizeof(*out));
	for (size_t i = 0; i < n; i++)
		out[i] = xstrdup(v[i]);
	return out;
}

/* 1 when every mode runs on the same backend for the same reason. */
int sched_backends_uniform(const struct run *r)
{
	for (size_t i = 1; i < r->exp->nmodes; i++)
		if (r->mb[i].entry != r->mb[0].entry || strcmp(r->mb[i].reason, r->mb[0].reason))
			return 0;
	return 1;
}

/* The run's backend in one word: the backend every mode runs on, or the distinct ones in
 * mode order joined by commas ("cpu,cuda").  Heap. */
char *sched_backends_joined(const struct run *r)
{
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t i = 0; i < r->exp->nmodes; i++) {
		size_t j = 0;
		while (j < i && r->mb[j].entry != r->mb[i].entry)
			j++;
		if (j == i)
			sbuf_addf(&sb, "%s%s", i ? "," : "", r->mb[i].entry->name);
	}
	return sbuf_detach(&sb);
}

/* mode_backends: {"mode": {"requested": ..., "backend": ..., "reason": ...[, "command":
 * [argv as run]][, "workloads": [its `workloads`]]}, ...}. Heap. */
char *sched_backends_json(const struct run *r)
{
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_adds(&sb, "{");
	for (size_t i = 0; i < r->exp->nmodes; i++) {
		sbuf_adds(&sb, i ? "," : "");
		sbuf_add_json_string(&sb, r->exp->modes[i].name);
		sbuf_adds(&sb, ":{\"requested\":");
		sbuf_add_json_string(&sb, r->mb[i].requested);
		sbuf_adds(&sb, ",\"backend\":");
		sbuf_add_json_string(&sb, r->mb[i].entry->name);
		sbuf_adds(&sb, ",\"reason\":");
		sbuf_add_json_string(&sb, r->mb[i].reason);
		if (r->mb[i].command) {
			sbuf_adds(&sb, ",\"command\":[");
			for (size_t k = 0; r->mb[i].command[k]; k++) {
				sbuf_adds(&sb, k ? "," : "");
				sbuf_add_json_string(&sb, r->mb[i].command[k]);
			}
			sbuf_adds(&sb, "]");
		}
		if (r->mb[i].command && r->mb[i].command_sha256) {
			sbuf_adds(&sb, ",\"command_sha256\":[");
			for (size_t k = 0; r->mb[i].command[k]; k++) {
				sbuf_adds(&sb, k ? "," : "");
				if (r->mb[i].command_sha256[k])
					sbuf_add_json_string(&sb, r->mb[i].command_sha256[k]);
				else
					sbuf_adds(&sb, "null");
			}
			sbuf_adds(&sb, "]");
		}
		const struct mode *m = &r->exp->modes[i];
		if (m->workloads) {
			sbuf_adds(&sb, ",\"workloads\":[");
			for (size_t k = 0; k < m->nworkloads; k++) {
				sbuf_adds(&sb, k ? "," : "");
				sbuf_add_json_string(&sb, m->workloads[k]);
			}
			sbuf_adds(&sb, "]");
		}
		sbuf_adds(&sb, "}");
	}
	sbuf_adds(&sb, "}");
	return sbuf_detach(&sb);
}

/* The backends' own build provenance (describe_build: "openblas" for cpu), once each. */
void sched_backends_describe_build(const struct run *r, struct rec_meta *m)
{
	for (size_t i = 0; i < r->exp->nmodes; i++) {
		const struct backend_entry *e = r->mb[i].entry;
		size_t j = 0;
		while (j < i && r->mb[j].entry != e)
			j++;
		if (j < i || !e->ops || !e->ops->describe_build)
			continue;
		struct sbuf sb;
		sbuf_init(&sb);
		e->ops->describe_build(&sb);
		for (char *line = sb.buf; line && *line;) {
			char *nl = strchr(line, '\n');
			if (nl)
				*nl = '\0';
			char *eq = strchr(line, '=');
			if (eq) {
				*eq = '\0';
				rec_meta_set(m, line, eq + 1);
			}
			line = nl ? nl + 1 : NULL;
		}
		sbuf_release(&sb);
	}
}

/* "backend 'cpu' (auto: ...)", or one "mode 'x' on 'cpu' (...)" per mode when they differ,
 * for the start line and the closing summary.  Heap. */
char *sched_backends_phrase(const struct run *r)
{
	if (sched_backends_uniform(r))
		return xasprintf("'%s' (%s)", r->mb[0].entry->name, r->mb[0].reason);
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t i = 0; i < r->exp->nmodes; i++)
		sbuf_addf(&sb, "%smode '%s' on '%s' (%s)", i ? "; " : "", r->exp->modes[i].name,
			  r->mb[i].entry->name, r->mb[i].reason);
	return sbuf_detach(&sb);
}

void sched_free_backends(struct run *r)
{
	for (size_t i = 0; r->mb && i < r->exp->nmodes + r->exp->nmodes_left_out; i++) {
		free(r->mb[i].requested);
		free(r->mb[i].reason);
		for (size_t k = 0; r->mb[i].command_sha256 && r->mb[i].command[k]; k++)
			free(r->mb[i].command_sha256[k]);
		free(r->mb[i].command_sha256);
		unitenv_free(r->mb[i].command);
	}
	free(r->mb);
	r->mb = NULL;
}
