/* sched.c: runs an experiment's units and records them (see sched.h) */
#include "config.h"
#include "harness/run/sched.h"

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
#include "harness/run/sched-int.h"
#include "harness/run/unit.h"
#include "harness/run/unitenv.h"
#include "kernels/backend.h"
#include "stats/stats.h"

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

static char *json_strv(const char *const *v)
{
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_adds(&sb, "[");
	for (size_t i = 0; v[i]; i++) {
		if (i)
			sbuf_adds(&sb, ",");
		sbuf_add_json_string(&sb, v[i]);
	}
	sbuf_adds(&sb, "]");
	return sbuf_detach(&sb);
}

static char *json_env(char *const *env)
{
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_adds(&sb, "{");
	for (size_t i = 0; env[i]; i++) {
		const char *eq = strchr(env[i], '=');
		char *name = xstrndup(env[i], (size_t)(eq - env[i]));
		if (i)
			sbuf_adds(&sb, ",");
		sbuf_add_json_string(&sb, name);
		sbuf_adds(&sb, ":");
		sbuf_add_json_string(&sb, eq + 1);
		free(name);
	}
	sbuf_adds(&sb, "}");
	return sbuf_detach(&sb);
}

/* ---- one unit --------------------------------------------------------------------- */

static void summ_add(struct run *r, const char *mode, const char *cell, double med)
{
	struct summ *s = NULL;
	for (size_t i = 0; i < r->nsumm; i++)
		if (!strcmp(r->summ[i].mode, mode) && !strcmp(r->summ[i].cell, cell))
			s = &r->summ[i];
	if (!s) {
		XGROW(r->summ, r->summ_cap, r->nsumm + 1);
		s = &r->summ[r->nsumm++];
		memset(s, 0, sizeof(*s));
		s->mode = xstrdup(mode);
		s->cell = xstrdup(cell);
	}
	XGROW(s->med, s->cap, s->n + 1);
	s->med[s->n++] = med;
}

/* Per-cell medians of an ok cold unit, for the closing summary. */
static void summ_unit(struct run *r, const struct rec_unit_data *u)
{
	if (strcmp(u->unit.status, REC_STATUS_OK) || u->unit.warm)
		return;
	double *med = xmalloc((u->ncells ? u->ncells : 1) * sizeof(*med));
	stats_cell_medians(u->sample_cell, u->sample_ns, u->nsamples, u->ncells, med);
	for (size_t c = 0; c < u->ncells; c++)
		if (!isnan(med[c]))
			summ_add(r, u->unit.mode, u->cells[c].name, med[c]);
	free(med);
}

/* An ok unit's samples must all be positive (a unit is ok only if its samples are): one
 * that is not is recorded as bad output. */
static void check_samples(struct rec_unit_data *u)
{
	if (strcmp(u->unit.status, REC_STATUS_OK))
		return;
	for (size_t i = 0; i < u->nsamples; i++) {
		if (u->sample_ns[i] > 0)
			continue;
		free(u->unit.status);
		free(u->unit.message);
		u->unit.status = xstrdup(REC_STATUS_BAD_OUTPUT);
		u->unit.message = xasprintf("sample %zu of cell '%s' is %" PRId64 " ns: not a timing",
					    i, u->cells[u->sample_cell[i]].name, u->sample_ns[i]);
		return;
	}
}

/* Assemble the results file from the journal (rec_assemble).  -1 reported. */
static int assemble(struct run *r)
{
	const char *dirs[1] = { r->dir };
	int64_t t0 = util_now_ns();
	int rc = rec_assemble(dirs, 1, r->h5path);
	r->assemble_ns += util_now_ns() - t0;
	return rc;
}

/* After a unit: the results file assembled anew, unless that would take the time spent
 * assembling past 1% of the session's wall time (a long run's file is then assembled at
 * the end, at a stop or by --resume; the journal holds every finished unit regardless).
 * -1 reported. */
static int maybe_assemble(struct run *r)
{
	int64_t elapsed = util_now_ns() - r->session_ns;
	if (r->assemble_ns * 100 > elapsed)
		return 0;
	return assemble(r);
}

/* Record warm probe p as skipped: its cold unit's cache directory is gone.  0 recorded,
 * -1 failed. */
static int record_skipped(struct run *r, const struct rec_plan *p, const char *cache)
{
	struct rec_unit_data u;
	char t[32];
	rec_unit_data_init(&u);
	util_utc_now(t);
	const char *base = strrchr(r->dir, '/') ? strrchr(r->dir, '/') + 1 : r->dir;
	u.unit = (struct rec_unit){
		.id = p->id, .mode = xstrdup(p->mode), .repeat = p->repeat, .block = p->block,
		.position = p->position, .warm = 1, .cache_dir = xstrdup(cache),
		.status = xstrdup(REC_STATUS_SKIPPED), .exit_code = 0, .start_utc = xstrdup(t),
		.end_utc = xstrdup(t),
		.stdout_log = xasprintf("%s/logs/u%04" PRId64 ".out", base, p->id),
		.stderr_log = xasprintf("%s/logs/u%04" PRId64 ".err", base, p->id),
		.argv_json = xstrdup("[]"), .env_json = xstrdup("{}"),
		.message = xasprintf("not run: its cold unit's cache directory '%s' is gone (deleted "
				     "before --resume); a warm probe cannot be measured without it",
				     cache),
	};
	warning("unit %" PRId64 " (warm probe of %s) skipped: its cold unit's cache directory "
		"'%s' is gone", p->id, p->mode, cache);
	r->nfailed++;
	int rc = rec_journal_write_unit(r->jr, &u);
	if (rc == 0) {
		r->done[p->id] = 1;
		progress_unit_end(&r->prog, p->mode, u.unit.status);
		rc = maybe_assemble(r);
	}
	rec_unit_data_release(&u);
	return rc;
}

/* Run plan entry p in a cache directory of its own (a warm probe: its cold unit's) and
 * append it to the results file.  0 recorded, 1 stopped (not recorded), -1 failed. */
static int run_unit(struct run *r, const struct rec_plan *p)
{
	struct rec_unit_data u;
	rec_unit_data_init(&u);
	char **env = NULL, **argv = NULL;
	char *cache = NULL, *out_log = NULL, *err_log = NULL, *cause = NULL;
	int ret = -1;

	ssize_t mi = experiment_mode_index(r->exp, p->mode);
	if (mi < 0) {
		error("unit %" PRId64 " names mode '%s', which the experiment lacks", p->id, p->mode);
		goto done;
	}
	/* The cache dir: new for a cold unit, the cold unit's for a warm probe. */
	if (p->warm) {
		if (p->warm_of < 0 || !r->cache_of[p->warm_of]) {
			error("warm unit %" PRId64 " has no cold unit's cache directory", p->id);
			goto done;
		}
		cache = xstrdup(r->cache_of[p->warm_of]);
		struct stat cst;
		if (stat(cache, &cst) < 0 || !S_ISDIR(cst.st_mode)) {
			/* Resumed after the cache was deleted: the probe cannot measure a warm
			 * cache, and re-running its cold unit would record that unit twice. */
			ret = record_skipped(r, p, cache);
			goto done;
		}
	} else {
		char *cdir = xasprintf("%s/cache", r->dir);
		int mk = util_mkdir_p(cdir, 0700); /* a resumed run's cache/ may be gone */
		free(cdir);
		if (mk)
			goto done;
		cache = xasprintf("%s/cache/u%04" PRId64 "-XXXXXX", r->dir, p->id);
		if (!mkdtemp(cache)) {
			error_errno("cannot create the cache directory '%s'", cache);
			goto done;
		}
		free(r->cache_of[p->id]);
		r->cache_of[p->id] = xstrdup(cache);
	}
	int empty = util_dir_is_empty(cache);
	if (empty < 0)
		goto done;
	char *tmp = xasprintf("%s/tmp", cache);
	if (mkdir(tmp, 0700) < 0 && errno != EEXIST) {
		error_errno("cannot create '%s'", tmp);
		free(tmp);
		goto done;
	}
	free(tmp);

	out_log = xasprintf("%s/logs/u%04" PRId64 ".out", r->dir, p->id);
	err_log = xasprintf("%s/logs/u%04" PRId64 ".err", r->dir, p->id);
	/* /proc/self/exe, not the path: every unit runs the very binary that started the run,
	 * even if it is rebuilt or replaced meanwhile (the path is in the run metadata). */
	struct unitenv_start us = { .self = "/proc/self/exe", .experiment = r->exp_copy,
				    .mode = p->mode, .unit = p->id, .cache_dir = cache };
	argv = unitenv_argv(r->mb[mi].entry, &us, &cause);
	if (!argv) {
		error("mode '%s': %s", p->mode, cause);
		goto done;
	}
	env = unitenv_env(r->exp, cache, p->id, p->mode);

	struct rec_unit *x = &u.unit;
	x->id = p->id;
	x->mode = xstrdup(p->mode);
	x->repeat = p->repeat;
	x->block = p->block;
	x->position = p->position;
	x->warm = p->warm;
	x->cache_dir = xstrdup(cache);
	x->cache_dir_empty = empty;
	/* Paths in the file are relative to the results file's folder. */
	const char *base = strrchr(r->dir, '/') ? strrchr(r->dir, '/') + 1 : r->dir;
	x->stdout_log = xasprintf("%s/logs/u%04" PRId64 ".out", base, p->id);
	x->stderr_log = xasprintf("%s/logs/u%04" PRId64 ".err", base, p->id);
	x->argv_json = json_strv((const char *const *)argv);
	x->env_json = json_env(env);

	struct unit_spec spec = { .id = p->id, .mode = p->mode,
				  .argv = (const char *const *)argv,
				  .env = (const char *const *)env, .cache_dir = cache,
				  .stdout_path = out_log, .stderr_path = err_log,
				  .timeout_s = r->exp->unit_timeout_s, .block = p->block,
				  .warm = p->warm };
	int ur = unit_run(&spec, &r->prog, &stop_signal, &u);
	if (ur) {
		ret = ur; /* 1: an interrupted unit is not recorded: --resume runs it again */
		goto done;
	}
	check_samples(&u);
	if (strcmp(x->status, REC_STATUS_OK))
		r->nfailed++;
	/* In the journal, verified, before the next unit starts. */
	if (rec_journal_write_unit(r->jr, &u))
		goto done;
	r->done[p->id] = 1;
	summ_unit(r, &u);
	progress_unit_end(&r->prog, p->mode, x->status);
	ret = maybe_assemble(r) ? -1 : 0;
done:
	unitenv_free(env);
	unitenv_free(argv);
	rec_unit_data_release(&u);
	free(cause);
	free(cache);
	free(out_log);
	free(err_log);
	return ret;
}

/* ---- the run ----------------------------------------------------------------------- */

/* Median of a (mode, cell)'s unit medians, or NaN when it has none. */
static double summ_median(const struct run *r, const char *mode, const char *cell)
{
	for (size_t i = 0; i < r->nsumm; i++) {
		const struct summ *s = &r->summ[i];
		if (strcmp(s->mode, mode) || strcmp(s->cell, cell))
			continue;
		double *w = xmalloc(s->n * sizeof(*w));
		struct stats_summary ss;
		stats_summarize(s->med, 1, s->n, w, &ss);
		free(w);
		return ss.median;
	}
	return NAN;
}

/* The closing summary on stdout: one row per cell, one column per mode (declared order). */
static void print_summary(struct run *r)
{
	progress_clear(&r->prog);
	size_t ok = 0;
	for (size_t i = 0; i < r->nplan; i++)
		ok += r->done[i];
	printf("run: %s\n", r->h5path);
	if (sched_backends_uniform(r)) {
		printf("backend: %s (%s)\n", r->mb[0].entry->name, r->mb[0].reason);
	} else {
		char *joined = sched_backends_joined(r);
		printf("backend: %s, per mode:\n", joined);
		free(joined);
		for (size_t i = 0; i < r->exp->nmodes; i++)
			printf("  %s: %s (%s)\n", r->exp->modes[i].name, r->mb[i].entry->name,
			       r->mb[i].reason);
	}
	printf("units: %zu recorded of %zu planned, %zu not ok\n", ok, r->nplan, r->nfailed);
	if (!r->nsumm)
		return;
	/* cells in first-seen order */
	const char **cells = xcalloc(r->nsumm, sizeof(*cells));
	size_t ncells = 0, width = 4;
	for (size_t i = 0; i < r->nsumm; i++) {
		size_t j = 0;
		while (j < ncells && strcmp(cells[j], r->summ[i].cell))
			j++;
		if (j == ncells) {
			cells[ncells++] = r->summ[i].cell;
			if (strlen(r->summ[i].cell) > width)
				width = strlen(r->summ[i].cell);
		}
	}
	printf("\nmedian over this session's cold ok units of each unit's median, in microseconds\n"
	       "(descriptive only: this version computes no paired tests or verdicts)\n\n%-*s",
	       (int)width, "cell");
	for (size_t m = 0; m < r->exp->nmodes; m++)
		printf(" %12.12s", r->exp->modes[m].name);
	printf("\n");
	for (size_t c = 0; c < ncells; c++) {
		printf("%-*s", (int)width, cells[c]);
		for (size_t m = 0; m < r->exp->nmodes; m++) {
			double v = summ_median(r, r->exp->modes[m].name, cells[c]);
			if (isnan(v))
				printf(" %12s", "-");
			else
				printf(" %12.2f", v / 1e3);
		}
		printf("\n");
	}
	free(cells);
}

static int write_meta(struct run *r, struct rec_meta *m)
{
	char t[32];
	util_utc_now(t);
	rec_meta_set(m, "harness_version", PACKAGE_VERSION);
	rec_meta_set(m, "harness_binary", r->self);
	rec_meta_set(m, "git_commit", HARNESS_GIT_COMMIT);
	rec_meta_set(m, "git_dirty", HARNESS_GIT_DIRTY ? "1" : "0");
	rec_meta_set(m, "experiment_name", r->exp->name);
	rec_meta_set(m, "experiment_path", r->exp->path);
	rec_meta_set(m, "experiment_sha256", r->exp->sha256);
	/* The run's backend as before per-mode backends (the default's request; what ran and
	 * why when every mode agrees), and every mode's own in mode_backends. */
	rec_meta_set(m, "backend_requested", r->o->backend ? r->o->backend : r->exp->backend);
	char *joined = sched_backends_joined(r), *mbj = sched_backends_json(r);
	rec_meta_set(m, "backend", joined);
	rec_meta_set(m, "backend_reason",
		     sched_backends_uniform(r) ? r->mb[0].reason : "per mode: see mode_backends");
	rec_meta_set(m, "mode_backends", mbj);
	free(joined);
	free(mbj);
	char num[32];
	snprintf(num, sizeof(num), "%" PRIu64, r->exp->seed);
	rec_meta_set(m, "seed", num);
	rec_meta_set(m, "order", order_kind_name(r->exp->order));
	snprintf(num, sizeof(num), "%" PRId64, r->exp->repeats);
	rec_meta_set(m, "repeats", num);
	rec_meta_set(m, "start_utc", t);
	rec_meta_set(m, "end_utc", "");
	rec_meta_set(m, "status", "running");
	rec_meta_set(m, "run_dir", strrchr(r->dir, '/') ? strrchr(r->dir, '/') + 1 : r->dir);
	char *argv = json_strv((const char *const *)r->o->argv);
	rec_meta_set(m, "harness_argv", argv);
	free(argv);
	struct sbuf al;
	sbuf_init(&al);
	for (size_t i = 0; unitenv_allowlist[i]; i++)
		sbuf_addf(&al, "%s%s", i ? "," : "", unitenv_allowlist[i]);
	rec_meta_set(m, "unit_env_allowlist", al.buf);
	sbuf_release(&al);
	envcap_collect(m);
	sched_backends_describe_build(r, m);
	rec_meta_add_file(m, "experiment", r->exp->path, r->exp->text, r->exp->text_len);
	/* Hypothesis files, verbatim with their hashes, before the first sample. */
	const char *slash = strrchr(r->exp->path, '/');
	char *edir = slash ? xstrndup(r->exp->path, (size_t)(slash - r->exp->path) + 1) : xstrdup("");
	for (size_t i = 0; i < r->exp->nhypotheses; i++) {
		const char *h = r->exp->hypotheses[i];
		char *hp = h[0] == '/' ? xstrdup(h) : xasprintf("%s%s", edir, h);
		char *text = NULL;
		size_t len = 0;
		if (util_read_file(hp, &text, &len)) {
			free(hp);
			free(edir);
			return -1;
		}
		rec_meta_add_file(m, "hypothesis", hp, text, len);
		/* the git state of these very bytes at run start: what pre-registration is
		 * judged on */
		int rc = hyp_capture_git(hp, text, len, m, i);
		free(text);
		if (rc) {
			free(hp);
			free(edir);
			return -1;
		}
		free(hp);
	}
	free(edir);
	return 0;
}

/* Units start in their cache directory: every path they are given is absolute. */
int sched_make_dir_absolute(struct run *r)
{
	char *abs = realpath(r->dir, NULL);
	if (!abs)
		return error_errno("cannot resolve the run folder '%s'", r->dir);
	free(r->dir);
	r->dir = abs;
	return 0;
}

/* Set up a new run: metadata (and the pre-registration check) first, so a refused run
 * creates nothing; then the folder, the experiment copy, the results file with meta and
 * plan.  Returns 0, -1 (run failed) or -2 (refused: bad input). */
static int start_new(struct run *r)
{
	char stamp[32];
	util_utc_stamp(stamp);
	const char *rd = r->o->results_dir ? r->o->results_dir : "results";
	struct rec_meta m;
	rec_meta_init(&m);
	int rc = -1;
	if (r->o->output)
		r->h5path = xstrdup(r->o->output);
	else
		r->h5path = xasprintf("%s/%s-%s.h5", rd, r->exp->name, stamp);
	size_t l = strlen(r->h5path);
	r->dir = l > 3 && !strcmp(r->h5path + l - 3, ".h5") ? xstrndup(r->h5path, l - 3)
							     : xasprintf("%s.d", r->h5path);
	if (access(r->h5path, F_OK) == 0 || access(r->dir, F_OK) == 0) {
		error("'%s' already exists; not overwriting a run", r->h5path);
		goto done;
	}
	if (write_meta(r, &m))
		goto done;
	if (r->o->require_preregistered && hyp_require_preregistered(&m)) {
		rc = -2;
		goto done;
	}
	if (!r->o->output && util_mkdir_p(rd, 0755))
		goto done;
	char *sub = xasprintf("%s/logs", r->dir);
	int mk = util_mkdir_p(sub, 0755);
	free(sub);
	sub = xasprintf("%s/cache", r->dir);
	mk = mk ? mk : util_mkdir_p(sub, 0700);
	free(sub);
	if (mk || sched_make_dir_absolute(r))
		goto done;
	r->exp_copy = xasprintf("%s/experiment.toml", r->dir);
	if (util_write_file(r->exp_copy, r->exp->text, r->exp->text_len, 0444))
		goto done;
	/* The journal first, then the (empty) results file assembled from it. */
	if (rec_journal_create(r->dir, &m, r->plan, r->nplan, &r->jr) || assemble(r))
		goto done;
	if (!r->o->quiet) {
		char *phrase = sched_backends_phrase(r);
		fprintf(stderr, "harness: backend%s %s; %zu units; results in '%s'\n",
			sched_backends_uniform(r) ? "" : "s:", phrase, r->nplan, r->h5path);
		free(phrase);
	}
	rc = 0;
done:
	rec_meta_release(&m);
	return rc;
}

enum sched_outcome sched_run(const struct sched_opts *o, struct sched_result *res)
{
	struct run r = { .o = o };
	enum sched_outcome ret = SCHED_ERROR;
	int usage = 0, complete = 0;
	struct sigaction sa = { .sa_handler = on_stop }, old_int, old_term;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	signal(SIGPIPE, SIG_IGN);
	stop_signal = 0;
	memset(res, 0, sizeof(*res));

	ssize_t sl = readlink("/proc/self/exe", r.self, sizeof(r.self) - 1);
	if (sl < 0) {
		error_errno("cannot find the harness binary (/proc/self/exe)");
		goto done;
	}
	r.self[sl] = '\0';
	r.session_ns = util_now_ns();

	if (o->resume) {
		if (sched_start_resume(&r, &usage, &complete)) {
			ret = usage ? SCHED_REFUSED : SCHED_ERROR;
			goto done;
		}
		if (complete) {
			if (!o->quiet)
				fprintf(stderr, "harness: '%s' is complete: every unit is recorded; "
						"nothing to do\n", r.h5path);
			print_summary(&r);
			ret = r.nfailed ? SCHED_UNIT_FAILED : SCHED_ALL_OK;
			goto done;
		}
	} else {
		if (experiment_load(o->experiment, &r.exp)) {
			ret = SCHED_REFUSED;
			goto done;
		}
		if (sched_resolve_modes(&r)) {
			ret = SCHED_REFUSED;
			goto done;
		}
		if (plan_build(r.exp, &r.plan, &r.nplan))
			goto done;
		r.done = xcalloc(r.nplan, sizeof(*r.done));
		r.cache_of = xcalloc(r.nplan, sizeof(*r.cache_of));
		int sn = start_new(&r);
		if (sn) {
			ret = sn == -2 ? SCHED_REFUSED : SCHED_ERROR;
			goto done;
		}
	}

	size_t already = 0;
	for (size_t i = 0; i < r.nplan; i++)
		already += r.done[i];
	progress_init(&r.prog, r.nplan, already, o->quiet);
	int failed_infra = 0;
	for (size_t i = 0; i < r.nplan && !stop_signal; i++) {
		if (r.done[i])
			continue;
		int u = run_unit(&r, &r.plan[i]);
		if (u < 0) {
			failed_infra = 1;
			break;
		}
	}
	char t[32], rss_self[32], rss_units[32];
	util_utc_now(t);
	const char *status = stop_signal ? "interrupted" : failed_infra ? "failed" : "complete";
	/* Peak memory: the scheduler's own, and the largest unit's. */
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	snprintf(rss_self, sizeof(rss_self), "%ld", ru.ru_maxrss);
	getrusage(RUSAGE_CHILDREN, &ru);
	snprintf(rss_units, sizeof(rss_units), "%ld", ru.ru_maxrss);
	const char *kv[] = { "end_utc", t, "status", status, "harness_peak_rss_kb", rss_self,
			     "units_peak_rss_kb", rss_units };
	/* The journal's run.h5 says how the run ended; the results file is assembled from
	 * the journal (a full disk fails both, reported; the journal keeps every unit). */
	if (rec_journal_set_meta(r.jr, kv, ARRAY_SIZE(kv) / 2) || assemble(&r))
		failed_infra = 1;
	if (stop_signal) {
		progress_clear(&r.prog);
		fprintf(stderr, "harness: stopped by signal %d; finished units are in '%s'; continue "
				"with 'harness run --resume %s'\n",
			(int)stop_signal, r.h5path, r.h5path);
	}
	print_summary(&r);
	ret = stop_signal ? SCHED_INTERRUPTED
	      : failed_infra ? SCHED_ERROR
	      : r.nfailed ? SCHED_UNIT_FAILED : SCHED_ALL_OK;
done:
	rec_journal_close(r.jr);
	r.jr = NULL;
	if (r.h5path && access(r.h5path, F_OK) == 0) {
		res->results_path = r.h5path;
		r.h5path = NULL;
	}
	res->nhypotheses = r.exp ? r.exp->nhypotheses : 0;
	for (size_t i = 0; r.cache_of && i < r.nplan; i++)
		free(r.cache_of[i]);
	free(r.cache_of);
	free(r.done);
	rec_plan_free(r.plan, r.nplan);
	for (size_t i = 0; i < r.nsumm; i++) {
		free(r.summ[i].mode);
		free(r.summ[i].cell);
		free(r.summ[i].med);
	}
	free(r.summ);
	if (r.exp)
		sched_free_backends(&r);
	free(r.h5path);
	free(r.dir);
	free(r.exp_copy);
	experiment_free(r.exp);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return ret;
}

void sched_result_release(struct sched_result *res)
{
	free(res->results_path);
	res->results_path = NULL;
}
