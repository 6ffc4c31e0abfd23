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
#include <sched.h>
#include <sys/resource.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "harness/base/git-version.h"
#include "harness/base/util.h"
#include "harness/config/experiment.h"
#include "harness/config/lut.h"
#include "harness/record/prereg.h"
#include "harness/record/recorder.h"
#include "harness/run/envcap.h"
#include "harness/run/plan.h"
#include "harness/run/progress.h"
#include "harness/run/sched-int.h"
#include "harness/run/unit.h"
#include "harness/config/unitenv.h"
#include "harness/run/unitspec.h"
#include "kernels/backend.h"
#include "stats/stats.h"

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

/* ---- the run ----------------------------------------------------------------------- */

/* The closing summary's first lines on stdout: the results file, the backends, the units
 * (harness run goes on with the answer, built from the file by its caller). */
static void print_summary(struct run *r)
{
	progress_clear(&r->prog);
	size_t ok = 0;
	size_t mine = 0;
	for (size_t i = 0; i < r->nplan; i++) {
		ok += r->done[i] && r->mine[i];
		mine += r->mine[i];
	}
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
	if (r->shard_n > 0)
		printf("shard: %" PRId64 " of %" PRId64 ": %zu of the plan's %zu units\n", r->shard_k,
		       r->shard_n, mine, r->nplan);
	printf("units: %zu recorded of %zu planned, %zu not ok\n", ok, mine, r->nfailed);
}

/* What this session runs on and which share of the plan: "slots" (the slots and the drawn
 * order, JSON, or "" one unit at a time), "shard" ("k/n", or "" for every block) and the
 * batch system's ids when there is one (Slurm's job, array job and task ids, host). */
void sched_session_meta(struct run *r, struct rec_meta *m)
{
	char *sj = r->slots.n ? slots_json(&r->slots) : xstrdup("");
	rec_meta_set(m, "slots", sj);
	free(sj);
	char shard[64] = "";
	if (r->shard_n > 0)
		snprintf(shard, sizeof(shard), "%" PRId64 "/%" PRId64, r->shard_k, r->shard_n);
	rec_meta_set(m, "shard", shard);
	static const char *const slurm[] = { "SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID",
					     "SLURM_ARRAY_TASK_ID", "SLURM_JOB_NODELIST",
					     "SLURM_CLUSTER_NAME" };
	for (size_t i = 0; i < ARRAY_SIZE(slurm); i++) {
		const char *v = getenv(slurm[i]);
		char *key = xstrdup(slurm[i]);
		for (char *c = key; *c; c++)
			*c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
		rec_meta_set(m, key, v ? v : "");
		free(key);
	}
}

/* Which units are this run's: its shard's blocks (block % n == k), or all. */
void sched_mark_mine(struct run *r)
{
	free(r->mine);
	r->mine = xcalloc(r->nplan ? r->nplan : 1, 1);
	for (size_t i = 0; i < r->nplan; i++)
		r->mine[i] = r->shard_n <= 0 || r->plan[i].block % r->shard_n == r->shard_k;
}

/* The slots of --jobs / --gpus, else of the experiment's [run] jobs / gpus (either option
 * replaces both keys); none: one unit at a time, not pinned.  -1 reported. */
int sched_make_slots(struct run *r)
{
	const char *gpus = r->o->gpus;
	int64_t jobs = r->o->jobs;
	if (jobs > 0 && gpus)
		return error("--jobs and --gpus both given: --gpus runs one unit per GPU, --jobs one "
			     "per share of the cores; choose one");
	int from_file = jobs <= 0 && !gpus;
	if (from_file) {
		gpus = r->exp->run.gpus;
		jobs = r->exp->run.jobs;
	}
	char *what = from_file ? xasprintf("[run] %s in '%s'", gpus ? "gpus" : "jobs", r->exp->path)
			       : xstrdup(gpus ? "--gpus" : "--jobs");
	int rc = gpus ? slots_gpus(gpus, what, &r->slots)
		 : jobs > 0 ? slots_cpu((int)jobs, what, &r->slots) : 0;
	free(what);
	if (rc)
		return -1;
	if (r->slots.n && slots_shuffle(&r->slots, r->exp->seed))
		return -1;
	if (r->slots.n && !r->o->quiet)
		for (size_t i = 0; i < r->slots.n; i++)
			fprintf(stderr, "harness: slot %zu: %s%s%s (cores %s)\n", i,
				r->slots.s[i].gpu_index ? "GPU " : "",
				r->slots.s[i].gpu_index ? r->slots.s[i].gpu_index : "",
				r->slots.s[i].gpu_index ? ", " : "", r->slots.s[i].cpus);
	for (size_t i = 0; r->slots.n && i < r->exp->nmodes; i++) {
		struct measure_settings ms = experiment_unit_measure(r->exp, &r->exp->modes[i],
								     r->mb[i].entry->name);
		if (ms.threads > 0 && (size_t)ms.threads > (size_t)CPU_COUNT(&r->slots.s[0].set)) {
			warning("mode '%s': threads = %" PRId64 " but each slot has %d core%s: the "
				"unit's threads share them", r->exp->modes[i].name, ms.threads,
				CPU_COUNT(&r->slots.s[0].set),
				CPU_COUNT(&r->slots.s[0].set) == 1 ? "" : "s");
			break;
		}
	}
	return 0;
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
	/* What the command line applied to the file's bytes (-D, --mode, --workload): each
	 * reader of the run applies them again (experiment_parse_edits) */
	const struct exp_edits *ed = &r->exp->edits;
	struct {
		const char *key;
		char *const *v;
		size_t n;
	} edk[] = { { "overrides", ed->sets, ed->nsets }, { "mode_filter", ed->modes, ed->nmodes },
		    { "workload_filter", ed->workloads, ed->nworkloads } };
	for (size_t i = 0; i < ARRAY_SIZE(edk); i++)
		if (edk[i].n) {
			char *j = exp_edits_json(edk[i].v, edk[i].n);
			rec_meta_set(m, edk[i].key, j);
			free(j);
		}
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
	rec_meta_set(m, "unit_scope", unit_scope_name(r->exp->unit_scope));
	snprintf(num, sizeof(num), "%" PRId64, r->exp->repeats);
	rec_meta_set(m, "repeats", num);
	/* A sequential design (the experiment's [sequential], or --until-decided), before the
	 * first sample; its looks are appended as they happen (cmd-run.c) */
	if (r->exp->seq.on || r->o->until_max) {
		int64_t mx = r->o->until_max ? r->o->until_max : r->exp->seq.max_repeats;
		int cells = r->o->until_max ? r->o->until_cells : r->exp->seq.until_cells;
		rec_meta_set(m, "sequential", stats_spending_name((enum stats_spending)r->exp->seq.spending));
		snprintf(num, sizeof(num), "%" PRId64, mx);
		rec_meta_set(m, "sequential_max_repeats", num);
		rec_meta_set(m, "sequential_until", cells ? "cells" : "primary");
		rec_meta_set(m, "sequential_alpha_total", "0.05");
		rec_meta_set(m, "sequential_looks", "[]");
		rec_meta_set(m, "sequential_alpha", "");
		rec_meta_set(m, "sequential_stopped", "");
	}
	rec_meta_set(m, "start_utc", t);
	rec_meta_set(m, "end_utc", "");
	rec_meta_set(m, "status", "running");
	rec_meta_set(m, "run_dir", strrchr(r->dir, '/') ? strrchr(r->dir, '/') + 1 : r->dir);
	/* the submission a shard is of: harness merge joins only shards of one */
	rec_meta_set(m, "submission_id", r->o->submission ? r->o->submission : "");
	sched_session_meta(r, m);
	char *argv = sched_json_strv((const char *const *)r->o->argv);
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

/* Refuse a new run's paths when taken, naming the one command that gets on: a run folder
 * with a journal is resumed; one without (a run killed before it recorded anything, by a
 * harness before the folder was staged, or not a run folder) holds nothing recorded and is
 * removed by hand.  -1 reported, 0 free. */
static int refuse_taken(const struct run *r)
{
	struct stat st;
	if (stat(r->dir, &st) == 0) {
		char *j = xasprintf("%s/journal", r->dir);
		int has = access(j, F_OK) == 0;
		free(j);
		if (has)
			return error("'%s' already exists: its run folder '%s' holds a run; continue "
				     "it with 'harness run --resume %s' (or remove '%s' to start anew)",
				     r->h5path, r->dir, r->h5path, r->dir);
		return error("'%s' already exists and holds no journal (a run killed before it "
			     "recorded anything, or not a run folder); to start again, remove it: "
			     "rm -r '%s'", r->dir, r->dir);
	}
	if (access(r->h5path, F_OK) == 0)
		return error("'%s' already exists; not overwriting a run", r->h5path);
	return 0;
}

/* Set up a new run: metadata (and the pre-registration check) first, so a refused run
 * creates nothing; then the run folder, staged whole (rec_run_dir_stage: its lock, the
 * folders for logs and caches, the experiment copy, its tables, the journal with meta and
 * plan) and renamed into place, so a kill leaves either no run folder (starting again
 * works; --resume names the command) or one with a journal (--resume works); then the
 * results file assembled from the journal.  Returns 0, -1 (run failed) or -2 (refused:
 * bad input). */
static int start_new(struct run *r)
{
	char stamp[32];
	util_utc_stamp(stamp);
	const char *rd = r->o->results_dir ? r->o->results_dir : "results";
	struct rec_meta m;
	rec_meta_init(&m);
	int rc = -1;
	char *stage = NULL, *final = NULL;
	if (r->o->output) {
		r->h5path = xstrdup(r->o->output);
	} else {
		/* NAME-STAMP.h5, or NAME-STAMP-2.h5, ... when a run of the same name started in
		 * the same second (harness time, then harness run of the file it wrote) */
		r->h5path = xasprintf("%s/%s-%s.h5", rd, r->exp->name, stamp);
		for (int k = 2; k < 100; k++) {
			char *d = xstrndup(r->h5path, strlen(r->h5path) - 3);
			int taken = access(r->h5path, F_OK) == 0 || access(d, F_OK) == 0;
			free(d);
			if (!taken)
				break;
			free(r->h5path);
			r->h5path = xasprintf("%s/%s-%s-%d.h5", rd, r->exp->name, stamp, k);
		}
	}
	size_t l = strlen(r->h5path);
	r->dir = l > 3 && !strcmp(r->h5path + l - 3, ".h5") ? xstrndup(r->h5path, l - 3)
							     : xasprintf("%s.d", r->h5path);
	if (refuse_taken(r))
		goto done;
	if (write_meta(r, &m))
		goto done;
	if (r->o->require_preregistered && hyp_require_preregistered(&m)) {
		rc = -2;
		goto done;
	}
	if (!r->o->output && util_mkdir_p(rd, 0755))
		goto done;
	char *parent = xstrdup(r->dir), *slash = strrchr(parent, '/');
	int pk = 0;
	if (slash && slash != parent) {
		*slash = '\0';
		pk = util_mkdir_p(parent, 0755);
	}
	free(parent);
	/* what killed starts of this run left beside it holds nothing recorded: removed (one
	 * under way in another process stops this one here) */
	int promoted = 0;
	char *cmd = NULL;
	if (pk || rec_run_dir_leftovers(r->dir, 0, &promoted, &cmd))
		goto done;
	free(cmd);
	/* the stage and its lock before anything is written: a second run started together
	 * on the same output stops at the lock or at the rename */
	if (rec_run_dir_stage(r->dir, (const char *const *)r->o->argv, &stage, &r->dir_lock))
		goto done;
	final = r->dir;
	r->dir = stage;
	char *sub = xasprintf("%s/logs", stage);
	int mk = util_mkdir_p(sub, 0755);
	free(sub);
	sub = xasprintf("%s/cache", stage);
	mk = mk ? mk : util_mkdir_p(sub, 0700);
	free(sub);
	r->exp_copy = xasprintf("%s/experiment.toml", stage);
	if (mk || util_write_file(r->exp_copy, r->exp->text, r->exp->text_len, 0444) ||
	    experiment_write_tables(r->exp, stage) ||
	    rec_journal_create(stage, &m, r->plan, r->nplan, &r->jr))
		goto done;
	if (rec_run_dir_commit(stage, final))
		goto done;
	r->dir = final;
	final = NULL;
	free(stage);
	stage = NULL;
	rec_journal_moved(r->jr, r->dir);
	if (sched_make_dir_absolute(r))
		goto done;
	free(r->exp_copy);
	r->exp_copy = xasprintf("%s/experiment.toml", r->dir);
	/* The (empty) results file, assembled from the journal. */
	if (sched_assemble(r))
		goto done;
	if (!r->o->quiet) {
		char *phrase = sched_backends_phrase(r);
		fprintf(stderr, "harness: backend%s %s; %zu units; results in '%s'\n",
			sched_backends_uniform(r) ? "" : "s:", phrase, r->nplan, r->h5path);
		free(phrase);
	}
	rc = 0;
done:
	if (final) /* r->dir was the stage's path, which stage owns */
		r->dir = final;
	if (stage) { /* never in place: nothing of it stays */
		rec_journal_close(r->jr);
		r->jr = NULL;
		util_rm_rf(stage);
		free(stage);
	}
	rec_meta_release(&m);
	return rc;
}

enum sched_outcome sched_run(const struct sched_opts *o, struct sched_result *res)
{
	struct run r = { .o = o, .dir_lock = -1 };
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
			if (!o->no_summary)
				print_summary(&r);
			ret = r.nfailed ? SCHED_UNIT_FAILED : SCHED_ALL_OK;
			goto done;
		}
	} else {
		if (experiment_load_edits(o->experiment, 0, o->edits, &r.exp)) {
			ret = SCHED_REFUSED;
			goto done;
		}
		if (sched_resolve_modes(&r)) {
			ret = SCHED_REFUSED;
			goto done;
		}
		if (o->shard_n > 0 && (o->shard_k < 0 || o->shard_k >= o->shard_n)) {
			error("--shard %" PRId64 "/%" PRId64 ": the task must be 0 to %" PRId64,
			      o->shard_k, o->shard_n, o->shard_n - 1);
			ret = SCHED_REFUSED;
			goto done;
		}
		/* say it before the first unit when the design cannot decide (harness check
		 * says more: design.h) */
		if (r.exp->repeats < 2 && !r.exp->seq.on && !o->until_max) {
			if (r.exp->repeats_line)
				warning("'%s':%d:%d: repeats = 1: one block carries no CI and no test, "
					"so nothing this run records can be decided; 2 blocks or more "
					"can ('harness check' says what the design can decide)",
					r.exp->path, r.exp->repeats_line, r.exp->repeats_col);
			else
				warning("'%s': 1 block (repeats not written): nothing this run records "
					"can be decided; 2 blocks or more can", r.exp->path);
		}
		if (o->until_max && o->until_max < r.exp->repeats) {
			error("--until-decided %" PRId64 ": below the %" PRId64 " blocks the run "
			      "starts with (the first look is after them)", o->until_max,
			      r.exp->repeats);
			ret = SCHED_REFUSED;
			goto done;
		}
		r.shard_k = o->shard_k;
		r.shard_n = o->shard_n;
		if (sched_make_slots(&r)) {
			ret = SCHED_REFUSED;
			goto done;
		}
		if (sched_plan_build(&r))
			goto done;
		sched_mark_mine(&r);
		r.done = xcalloc(r.nplan, sizeof(*r.done));
		r.cache_of = xcalloc(r.nplan, sizeof(*r.cache_of));
		int sn = start_new(&r);
		if (sn) {
			ret = sn == -2 ? SCHED_REFUSED : SCHED_ERROR;
			goto done;
		}
	}

	/* --estimates: another run's recorded units, as if this run had recorded them (the
	 * longest per mode, workload and kind counts, whatever the status, as for this run's) */
	for (size_t i = 0; i < o->nest_units; i++)
		sched_estimate_note(&r, o->est_units[i].mode, o->est_units[i].workload,
				    o->est_units[i].warm, o->est_units[i].wall_ns);
	size_t already = 0, mine = 0;
	for (size_t i = 0; i < r.nplan; i++) {
		already += r.done[i] && r.mine[i];
		mine += r.mine[i];
	}
	progress_init(&r.prog, mine, already, o->quiet);
	int failed_infra = 0, time_limit = 0;
	if (sched_run_slots(&r, &stop_signal, &failed_infra, &time_limit))
		failed_infra = 1;
	char t[32], rss_self[32], rss_units[32];
	util_utc_now(t);
	const char *status = stop_signal    ? "interrupted"
			     : failed_infra ? "failed"
			     : time_limit   ? "time-limit"
					    : "complete";
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
	if (rec_journal_set_meta(r.jr, kv, ARRAY_SIZE(kv) / 2) || sched_assemble(&r))
		failed_infra = 1;
	if (stop_signal) {
		progress_clear(&r.prog);
		fprintf(stderr, "harness: stopped by signal %d; finished units are in '%s'; continue "
				"with 'harness run --resume %s'\n",
			(int)stop_signal, r.h5path, r.h5path);
	}
	if (time_limit && !stop_signal && !failed_infra) {
		progress_clear(&r.prog);
		fprintf(stderr, "harness: --max-time %.0f s reached: no further unit could finish "
				"in time; finished units are in '%s'; continue with 'harness run "
				"--resume %s'\n",
			o->max_time_s, r.h5path, r.h5path);
	}
	if (!o->no_summary)
		print_summary(&r);
	ret = stop_signal ? SCHED_INTERRUPTED
	      : failed_infra ? SCHED_ERROR
	      : time_limit ? SCHED_TIME_LIMIT
	      : r.nfailed ? SCHED_UNIT_FAILED : SCHED_ALL_OK;
done:
	rec_journal_close(r.jr);
	r.jr = NULL;
	if (r.dir_lock >= 0)
		close(r.dir_lock);
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
	for (size_t i = 0; i < r.nest; i++) {
		free(r.est[i].mode);
		free(r.est[i].workload);
	}
	free(r.est);
	free(r.mine);
	free(r.pin);
	free(r.shared);
	slots_release(&r.slots);
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

int sched_parse_duration(const char *s, int slurm, double *seconds)
{
	double f[4];
	int nf = 0, days = 0;
	const char *p = s;
	char *end;
	if (!s || !*s)
		return -1;
	const char *dash = strchr(s, '-');
	if (dash) {
		errno = 0;
		long d = strtol(s, &end, 10);
		if (end != dash || d < 0 || errno)
			return -1;
		days = 1;
		f[nf++] = (double)d;
		p = dash + 1;
	}
	for (;;) {
		errno = 0;
		double v = strtod(p, &end);
		if (end == p || errno || !(v >= 0) || nf == 4)
			return -1;
		f[nf++] = v;
		p = end;
		if (*p != ':')
			break;
		p++;
	}
	double mult = slurm ? 60 : 1;
	if (*p && !p[1] && nf == 1 && !days) {
		switch (*p) {
		case 's': mult = 1; break;
		case 'm': mult = 60; break;
		case 'h': mult = 3600; break;
		case 'd': mult = 86400; break;
		default: return -1;
		}
		p++;
	}
	if (*p)
		return -1;
	if (!days) {
		if (nf == 1)
			*seconds = f[0] * mult;
		else if (nf == 2)
			*seconds = f[0] * 60 + f[1];
		else if (nf == 3)
			*seconds = f[0] * 3600 + f[1] * 60 + f[2];
		else
			return -1;
	} else {
		/* D-HH, D-HH:MM, D-HH:MM:SS */
		double t = f[0] * 86400;
		if (nf >= 2)
			t += f[1] * 3600;
		if (nf >= 3)
			t += f[2] * 60;
		if (nf == 4)
			t += f[3];
		*seconds = t;
	}
	return isfinite(*seconds) ? 0 : -1;
}

/* The submission record: what a new run of o->experiment would record before its first
 * unit (run metadata with the experiment and hypothesis files and their git state, and the
 * plan), no units, written to path (never replaced).  -1 reported, or -2 refused. */
int sched_write_submission(const struct sched_opts *o, const char *path)
{
	struct run r = { .o = o };
	struct rec_meta m;
	rec_meta_init(&m);
	int rc = -1;
	ssize_t sl = readlink("/proc/self/exe", r.self, sizeof(r.self) - 1);
	if (sl < 0) {
		error_errno("cannot find the harness binary (/proc/self/exe)");
		goto done;
	}
	r.self[sl] = '\0';
	if (experiment_load_edits(o->experiment, 0, o->edits, &r.exp) || sched_resolve_modes(&r)) {
		rc = -2;
		goto done;
	}
	if (sched_plan_build(&r))
		goto done;
	r.dir = xstrdup(path);
	if (write_meta(&r, &m))
		goto done;
	rec_meta_set(&m, "status", "submitted");
	rec_meta_set(&m, "run_dir", "");
	struct rec_unit_source none = { .n = 0, .get = NULL, .ctx = NULL };
	rc = rec_write_results(path, 1, &m, r.plan, r.nplan, &none);
done:
	rec_meta_release(&m);
	rec_plan_free(r.plan, r.nplan);
	if (r.exp)
		sched_free_backends(&r);
	free(r.dir);
	experiment_free(r.exp);
	return rc;
}
