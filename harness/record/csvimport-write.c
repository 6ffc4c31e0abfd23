/* csvimport-write.c: an imported CSV file (csvimport.c) out as a complete results file,
 * built in memory and written atomically (rec_write_results) */
#include "config.h"
#include "harness/record/csvimport.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/git-version.h"
#include "harness/base/util.h"
#include "harness/record/recorder.h"

/* ---- writing ----------------------------------------------------------------------------- */

/* The run metadata of an import (docs/import-format.md, "The results file"). */
static void import_meta(const struct csvimport *imp, struct rec_meta *m)
{
	char t[32], num[32];
	util_utc_now(t);
	rec_meta_set(m, "harness_version", PACKAGE_VERSION);
	rec_meta_set(m, "git_commit", HARNESS_GIT_COMMIT);
	rec_meta_set(m, "git_dirty", HARNESS_GIT_DIRTY ? "1" : "0");
	rec_meta_set(m, "experiment_name", imp->name);
	rec_meta_set(m, "source", "import");
	rec_meta_set(m, "source_path", imp->path);
	rec_meta_set(m, "source_sha256", imp->sha256);
	snprintf(num, sizeof(num), "%zu", imp->nrows);
	rec_meta_set(m, "source_rows", num);
	snprintf(num, sizeof(num), "%" PRIu64, imp->len);
	rec_meta_set(m, "source_bytes", num);
	rec_meta_set(m, "source_unit", imp->units_seen);
	rec_meta_set(m, "source_unit_from", imp->unit_from_option ? "option" : "column");
	rec_meta_set(m, "imported_utc", t);
	rec_meta_set(m, "baseline", imp->modes[imp->baseline]);
	rec_meta_set(m, "pairing", imp->paired ? "block" : "none");
	rec_meta_set(m, "backend", "imported");
	rec_meta_set(m, "status", "complete");
	if (imp->text) /* at most CSVIMPORT_KEEP_MAX: larger, source_sha256 and _bytes say it */
		rec_meta_add_file(m, "import-source", imp->path, imp->text, (size_t)imp->len);
}

/* Split a cell name the way harness names cells: "W/OP:SHAPE" for an op, "W/e2e" or
 * "W/e2e:SHAPE" for a whole forward (e.g. "launch=graph", as the CUDA backend's graph
 * forward says in its shape).  Parts a name does not have are "". */
static void split_cell_name(const char *name, const char *kind, struct rec_cell *c)
{
	const char *slash = strchr(name, '/');
	const char *colon = slash ? strchr(slash + 1, ':') : NULL;
	c->workload = xstrndup(name, slash ? (size_t)(slash - name) : strlen(name));
	if (!strcmp(kind, "e2e")) {
		c->op = xstrdup(slash ? "e2e" : "");
		c->shape = xstrdup(colon ? colon + 1 : "");
		return;
	}
	c->op = slash ? xstrndup(slash + 1, colon ? (size_t)(colon - slash - 1) : strlen(slash + 1))
		      : xstrdup("");
	c->shape = xstrdup(colon ? colon + 1 : "");
}

/* Build unit i's records in d (whose arrays and strings it owns and frees).  local is
 * imp->ncells long and all -1 on entry and on return (the caller allocates it once, so
 * that building every unit costs time in its samples, not in the file's cells). */
static void import_unit(const struct csvimport *imp, size_t i, int64_t *local,
			struct rec_unit_data *d)
{
	const struct csvimport_unit *u = &imp->units[i];
	size_t n = u->nsamples ? u->nsamples : 1; /* at least as many as the unit's cells */
	int64_t *count = xmalloc(n * sizeof(*count));
	int64_t *global = xmalloc(n * sizeof(*global));
	rec_unit_data_init(d);
	d->unit = (struct rec_unit){
		.id = (int64_t)i,
		.mode = xstrdup(imp->modes[u->mode]),
		.repeat = u->block,
		.block = u->block,
		.position = u->position,
		.cache_dir = xstrdup(""),
		.status = xstrdup(REC_STATUS_OK),
		.compile_ns = u->setup_ns,
		.start_utc = xstrdup(""),
		.end_utc = xstrdup(""),
		.stdout_log = xstrdup(""),
		.stderr_log = xstrdup(""),
		.argv_json = xstrdup("[]"), .slot = -1,
		.env_json = xstrdup("{}"),
		.message = xstrdup(""),
	};
	d->sample_cell = xmalloc(n * sizeof(*d->sample_cell));
	d->sample_index = xmalloc(n * sizeof(*d->sample_index));
	d->sample_ns = xmalloc(n * sizeof(*d->sample_ns));
	d->nsamples = d->samples_cap = u->nsamples;
	for (size_t s = 0; s < u->nsamples; s++) {
		int64_t g = u->sample_cell[s];
		if (local[g] < 0) {
			const struct csvimport_cell *cell = &imp->cells[g];
			XGROW(d->cells, d->cells_cap, d->ncells + 1);
			struct rec_cell *rc = &d->cells[d->ncells];
			*rc = (struct rec_cell){ .name = xstrdup(cell->name), .kind = xstrdup(cell->kind),
						 .count = cell->count };
			split_cell_name(cell->name, cell->kind, rc);
			if (!strcmp(cell->kind, "op")) {
				XGROW(d->choices, d->choices_cap, d->nchoices + 1);
				d->choices[d->nchoices++] = (struct rec_choice){
					.cell = (int64_t)d->ncells, .config = xstrdup("imported"),
					.reason = xstrdup("imported")
				};
			}
			global[d->ncells] = g;
			count[d->ncells] = 0;
			local[g] = (int64_t)d->ncells++;
		}
		d->sample_cell[s] = local[g];
		d->sample_index[s] = count[local[g]]++;
		d->sample_ns[s] = u->sample_ns[s];
	}
	for (size_t c = 0; c < d->ncells; c++)
		local[global[c]] = -1;
	free(global);
	free(count);
}

/* SIGINT and SIGTERM while writing.  Blocking them in this thread is not enough: threads
 * other libraries started (OpenBLAS) would take them and end the process with the temporary
 * file still there.  So a handler notes the signal wherever it lands, csvimport_write
 * cleans up, and the signal is raised again once the old actions are back. */
static volatile sig_atomic_t write_stop;

static void on_stop(int sig)
{
	write_stop = sig;
}

static const int stop_signals[] = { SIGINT, SIGTERM };

/* Hold SIGINT and SIGTERM off in this thread and catch them elsewhere (unless ignored). */
static void stop_catch(struct sigaction old[], sigset_t *old_mask)
{
	struct sigaction sa = { .sa_handler = on_stop, .sa_flags = SA_RESTART };
	sigset_t hold;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&hold);
	write_stop = 0;
	for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++) {
		sigaddset(&hold, stop_signals[i]);
		sigaction(stop_signals[i], &sa, &old[i]);
		if (old[i].sa_handler == SIG_IGN)
			sigaction(stop_signals[i], &old[i], NULL);
	}
	sigprocmask(SIG_BLOCK, &hold, old_mask);
}

/* 1 when SIGINT or SIGTERM arrived since stop_catch(). */
static int stop_requested(void)
{
	sigset_t pending;
	if (write_stop)
		return 1;
	sigpending(&pending);
	for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++)
		if (sigismember(&pending, stop_signals[i]))
			return 1;
	return 0;
}

/* Put the old actions and mask back; a signal that arrived meanwhile takes effect now. */
static void stop_release(const struct sigaction old[], const sigset_t *old_mask)
{
	for (size_t i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaction(stop_signals[i], &old[i], NULL);
	sigprocmask(SIG_SETMASK, old_mask, NULL); /* delivers a pending one */
	if (write_stop)
		raise(write_stop);
	write_stop = 0;
}

/* The import's units for rec_write_results: unit i built on demand (cheap; headers or not),
 * with import_unit's cell map allocated once. */
struct import_src {
	const struct csvimport *imp;
	int64_t *local;
};

static int import_get(void *ctx, size_t i, int headers, struct rec_unit_data *scratch,
		      const struct rec_unit_data **out)
{
	struct import_src *is = ctx;
	(void)headers;
	if (stop_requested())
		return -1; /* csvimport_write says so */
	rec_unit_data_release(scratch);
	import_unit(is->imp, i, is->local, scratch);
	*out = NULL;
	return 0;
}

int csvimport_write(const struct csvimport *imp, const char *out_path)
{
	struct rec_meta meta;
	struct rec_plan *plan = NULL;
	int64_t *local = NULL; /* import_unit's map from file cells to a unit's cells */
	int rc = -1;
	struct sigaction old_act[ARRAY_SIZE(stop_signals)];
	sigset_t old_mask;
	struct stat st;

	stop_catch(old_act, &old_mask);
	rec_meta_init(&meta);

	if (lstat(out_path, &st) == 0) {
		error("'%s': already exists; not overwriting it", out_path);
		goto done;
	}
	import_meta(imp, &meta);
	plan = xcalloc(imp->nunits ? imp->nunits : 1, sizeof(*plan));
	for (size_t i = 0; i < imp->nunits; i++)
		plan[i] = (struct rec_plan){ .id = (int64_t)i, .mode = imp->modes[imp->units[i].mode],
					     .repeat = imp->units[i].block,
					     .block = imp->units[i].block,
					     .position = imp->units[i].position, .warm_of = -1 };
	/* Built in memory, written whole under a temporary name and linked into place (never
	 * over an existing file): a full disk or a signal leaves no partial output. */
	local = xmalloc((imp->ncells ? imp->ncells : 1) * sizeof(*local));
	for (size_t c = 0; c < imp->ncells; c++)
		local[c] = -1;
	struct import_src is = { imp, local };
	struct rec_unit_source src = { .n = imp->nunits, .get = import_get, .ctx = &is };
	if (rec_write_results(out_path, 1, &meta, plan, imp->nunits, &src) < 0) {
		if (stop_requested())
			error("interrupted; '%s' was not written", out_path);
		goto done;
	}
	if (stop_requested()) { /* during the final write: the whole file, but we stop */
		unlink(out_path);
		error("interrupted; '%s' was not written", out_path);
		goto done;
	}
	rc = 0;
done:
	free(local);
	free(plan);
	rec_meta_release(&meta);
	stop_release(old_act, &old_mask);
	return rc;
}
