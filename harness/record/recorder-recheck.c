/* recorder-recheck.c: a results file re-checked against the journal it was assembled from
 * (rec_recheck, recorder.h; `harness verify`) */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/util.h"
#include "harness/record/recorder-int.h"
#include "harness/record/recorder.h"

/* One unit's record as both files hold it: its row, info, and samples by cell name. */
struct unit_rec {
	struct rec_unit *u;    /* borrowed */
	const char *info;      /* borrowed */
	struct rec_cell *cells; /* borrowed: the file's /cells */
	int64_t *cell, *ns, *launches, *reasons;
	double *clock;
	int *throttle;
	size_t n;
};

static int read_samples(struct rec *r, size_t row, struct unit_rec *x)
{
	size_t n2 = 0;
	if (rec_read_unit_samples(r, row, &x->cell, &x->ns, &x->n) ||
	    rec_read_unit_sample_extras(r, row, &x->clock, &x->throttle, &x->launches,
					&x->reasons, &n2))
		return -1;
	if (n2 != x->n)
		return error("%zu sample extras for %zu samples", n2, x->n);
	return 0;
}

static void release_samples(struct unit_rec *x)
{
	free(x->cell);
	free(x->ns);
	free(x->launches);
	free(x->reasons);
	free(x->clock);
	free(x->throttle);
}

/* rec_read_unit_infos's array (NULL: nothing). */
static void free_infos(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

#define SAME_I64(f) (a->u->f == b->u->f)

/* What differs between the two records of a unit, or NULL (static text). */
static const char *differs(const struct unit_rec *a, const struct unit_rec *b)
{
	if (!SAME_I64(id) || strcmp(a->u->mode, b->u->mode) || !SAME_I64(repeat) ||
	    !SAME_I64(block) || a->u->warm != b->u->warm)
		return "its identity (id, mode, repeat, block)";
	if (strcmp(a->u->status, b->u->status) || !SAME_I64(exit_code) || !SAME_I64(signal) ||
	    strcmp(a->u->message, b->u->message))
		return "its status";
	if (!SAME_I64(compile_ns) || !SAME_I64(tune_ns) || !SAME_I64(search_ns) ||
	    !SAME_I64(compiles) || !SAME_I64(cache_hits) || !SAME_I64(benchmarks) ||
	    !SAME_I64(wall_ns) || a->u->cache_leak != b->u->cache_leak)
		return "its setup counters or times";
	if (strcmp(a->info, b->info))
		return "its info";
	if (a->n != b->n)
		return "its number of samples";
	for (size_t k = 0; k < a->n; k++) {
		if (a->ns[k] != b->ns[k] || a->launches[k] != b->launches[k])
			return "its samples";
		if (strcmp(a->cells[a->cell[k]].name, b->cells[b->cell[k]].name))
			return "the cells of its samples";
		if (memcmp(&a->clock[k], &b->clock[k], sizeof(double)) ||
		    a->throttle[k] != b->throttle[k] || a->reasons[k] != b->reasons[k])
			return "its samples' clocks or throttle flags";
	}
	return NULL;
}

/* The run folder a unit's journal file is in: its stdout log's folder's parent, as the
 * results file names it (relative to the results file's folder), or NULL. */
static char *unit_rundir(const char *base, const struct rec_unit *u)
{
	const char *log = u->stdout_log;
	const char *logs = log ? strstr(log, "/logs/") : NULL;
	if (!logs)
		return NULL;
	const char *p = logs;
	while ((p = strstr(p + 1, "/logs/")))
		logs = p; /* the last one */
	if (log[0] == '/')
		return xstrndup(log, (size_t)(logs - log));
	return xasprintf("%s/%.*s", base, (int)(logs - log), log);
}

static void note(char **first, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(char **first, const char *fmt, ...)
{
	if (*first)
		return;
	va_list ap;
	va_start(ap, fmt);
	*first = xvasprintf(fmt, ap);
	va_end(ap);
}

/* Unit row i of the results file (rx) against its journal file. */
static void recheck_unit(const char *base, struct unit_rec *rx, size_t row, char ***dig,
			 char **dig_dir, size_t nplan, struct rec_recheck *out)
{
	const struct rec_unit *u = rx->u;
	char *rundir = unit_rundir(base, u), *jdir = NULL, *path = NULL;
	struct rec *jr = NULL;
	struct rec_unit *ju = NULL;
	char **jinfo = NULL;
	struct rec_cell *jcells = NULL;
	size_t nju = 0, nji = 0, njc = 0;
	struct unit_rec jx = { 0 };
	struct stat st;
	if (!rundir) {
		out->no_journal++;
		note(&out->first_missing, "unit %" PRId64 " names no run folder", u->id);
		goto done;
	}
	jdir = xasprintf("%s/journal", rundir);
	path = xasprintf("%s/unit-%04" PRId64 ".h5", jdir, u->id);
	if (stat(path, &st) < 0) {
		out->no_journal++;
		note(&out->first_missing, "'%s' is not there", path);
		goto done;
	}
	if (!*dig_dir || strcmp(*dig_dir, jdir)) {
		rec_digests_free(*dig, nplan);
		free(*dig_dir);
		*dig_dir = xstrdup(jdir);
		*dig = rec_digests_load(jdir, nplan);
	}
	if (!*dig) {
		out->no_journal++;
		note(&out->first_missing, "'%s/digests' is not there (a journal from before them)",
		     jdir);
		goto done;
	}
	const char *why = NULL;
	if (rec_digest_check(*dig, u->id, path, &why)) {
		out->bad++;
		note(&out->first_bad, "unit %" PRId64 ": '%s': %s", u->id, path, why);
		goto done;
	}
	if (rec_open(path, 0, &jr) || rec_read_units(jr, &ju, &nju) ||
	    rec_read_unit_infos(jr, &jinfo, &nji) || rec_read_cells(jr, &jcells, &njc) ||
	    nju != 1 || nji != 1 || read_samples(jr, 0, &jx)) {
		out->bad++;
		note(&out->first_bad, "unit %" PRId64 ": '%s' cannot be read", u->id, path);
		goto done;
	}
	jx.u = &ju[0];
	jx.info = jinfo[0];
	jx.cells = jcells;
	for (size_t k = 0; k < jx.n; k++)
		if (jx.cell[k] < 0 || (size_t)jx.cell[k] >= njc) {
			out->bad++;
			note(&out->first_bad, "unit %" PRId64 ": '%s': a sample's cell is out of "
					      "range", u->id, path);
			goto done;
		}
	const char *d = differs(rx, &jx);
	if (d) {
		out->bad++;
		note(&out->first_bad, "unit %" PRId64 " (row %zu): %s in the results file differ "
				      "from its journal file '%s' (which has the SHA-256 recorded "
				      "when it was written)", u->id, row, d, path);
		goto done;
	}
	out->matched++;
done:
	release_samples(&jx);
	if (jr)
		rec_close(jr);
	rec_units_free(ju, nju);
	free_infos(jinfo, nji);
	rec_cells_free(jcells, njc);
	free(path);
	free(jdir);
	free(rundir);
}

int rec_recheck(const char *results, struct rec_recheck *out)
{
	memset(out, 0, sizeof(*out));
	struct rec *r = NULL;
	struct rec_unit *units = NULL;
	struct rec_cell *cells = NULL;
	struct rec_plan *plan = NULL;
	char **infos = NULL, **dig = NULL, *dig_dir = NULL;
	size_t nu = 0, ni = 0, nc = 0, nplan = 0;
	int ret = -1;
	const char *slash = strrchr(results, '/');
	char *base = slash ? xstrndup(results, (size_t)(slash - results)) : xstrdup(".");
	if (!*base) {
		free(base);
		base = xstrdup("/");
	}
	if (rec_open(results, 0, &r))
		goto done;
	if (rec_format_version(r) < 2) {
		/* version 1: from before the journal's digests; its strings are read in a
		 * child process only (recorder-open.c) */
		ret = 0;
		goto done;
	}
	if (rec_read_units(r, &units, &nu) || rec_read_unit_infos(r, &infos, &ni) ||
	    rec_read_cells(r, &cells, &nc) || rec_read_plan(r, &plan, &nplan))
		goto done;
	if (ni != nu) {
		error("'%s': %zu unit infos for %zu units", results, ni, nu);
		goto done;
	}
	out->units = nu;
	for (size_t i = 0; i < nu; i++) {
		struct unit_rec rx = { .u = &units[i], .info = infos[i], .cells = cells };
		if (read_samples(r, i, &rx)) {
			release_samples(&rx);
			goto done;
		}
		int in_range = 1;
		for (size_t k = 0; k < rx.n; k++)
			if (rx.cell[k] < 0 || (size_t)rx.cell[k] >= nc)
				in_range = 0;
		if (in_range)
			recheck_unit(base, &rx, i, &dig, &dig_dir, nplan, out);
		else
			error("'%s': unit row %zu: a sample's cell is out of range", results, i);
		release_samples(&rx);
		if (!in_range)
			goto done;
	}
	ret = 0;
done:
	rec_digests_free(dig, nplan);
	free(dig_dir);
	if (r && rec_close(r))
		ret = -1;
	rec_units_free(units, nu);
	free_infos(infos, ni);
	rec_cells_free(cells, nc);
	rec_plan_free(plan, nplan);
	free(base);
	return ret;
}

void rec_recheck_release(struct rec_recheck *c)
{
	free(c->first_bad);
	free(c->first_missing);
	memset(c, 0, sizeof(*c));
}
