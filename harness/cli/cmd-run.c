/* cmd-run.c: `harness run EXPERIMENT` and `harness run --resume FILE` */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness/analysis/analysis.h"
#include "harness/analysis/audit.h"
#include "harness/analysis/hyp.h"
#include "harness/analysis/report.h"
#include "harness/analysis/sequential.h"
#include "harness/base/util.h"
#include "harness/cli/cmd.h"
#include "harness/config/experiment.h"
#include "harness/config/hypothesis.h"
#include "harness/output/write.h"
#include "harness/record/recorder.h"
#include "harness/run/sched.h"
#include "kernels/backend.h"

enum { OPT_RESUME = 256, OPT_BACKEND, OPT_RESULTS_DIR, OPT_PREREG, OPT_JOBS, OPT_GPUS,
       OPT_MAX_TIME, OPT_SHARD, OPT_ESTIMATES, OPT_REPEATS, OPT_SHARE_SPLIT, OPT_UNTIL_DECIDED,
       OPT_UNTIL, OPT_MODE, OPT_WORKLOAD, OPT_COMMIT_DIGEST, OPT_SUBMISSION };

static const struct cmd_opt run_opts[] = {
	{ "resume", OPT_RESUME, 1 },
	{ "backend", OPT_BACKEND, 1 },
	{ "results-dir", OPT_RESULTS_DIR, 1 },
	{ "output", 'o', 1 },
	{ "quiet", 'q', 0 },
	{ "require-preregistered", OPT_PREREG, 0 },
	{ "jobs", OPT_JOBS, 1 },
	{ "gpus", OPT_GPUS, 1 },
	{ "max-time", OPT_MAX_TIME, 1 },
	{ "estimates", OPT_ESTIMATES, 1 },
	{ "shard", OPT_SHARD, 1 },
	{ "submission", OPT_SUBMISSION, 1 },
	{ "repeats", OPT_REPEATS, 1 },
	{ "share-split-blocks", OPT_SHARE_SPLIT, 0 },
	{ "until-decided", OPT_UNTIL_DECIDED, 1 },
	{ "until", OPT_UNTIL, 1 },
	{ "set", 'D', 1 },
	{ "mode", OPT_MODE, 1 },
	{ "workload", OPT_WORKLOAD, 1 },
	{ "commit-digest", OPT_COMMIT_DIGEST, 0 },
	{ NULL, 0, 0 },
};

/* 1 when path (a results file, or NULL) records a sequential design still going: its
 * sessions print no closing summary. */
static int seq_resumed(const char *path)
{
	struct rec *f = NULL;
	struct rec_meta m;
	rec_meta_init(&m);
	int on = 0;
	if (path && access(path, F_OK) == 0 && rec_open(path, 0, &f) == 0 &&
	    rec_read_meta(f, &m) == 0) {
		const char *s = rec_meta_get(&m, "sequential"), *st = rec_meta_get(&m, "sequential_stopped");
		on = s && *s && !(st && *st);
	}
	rec_close(f);
	rec_meta_release(&m);
	return on;
}

/* The sequential design's loop (sequential.h): while the run is sequential and every unit
 * of its plan is recorded ok, look; record the look; stop when decided, at max_repeats or
 * when --max-time's budget is spent, else resume with one block more.  o is the first
 * session's options (a new run or --resume); res holds the last session's result.  Returns
 * the last session's outcome, or SCHED_ERROR (reported). */
static enum sched_outcome run_sequential(struct sched_opts *o, struct sched_result *res)
{
	int64_t t0 = util_now_ns();
	double budget = o->max_time_s;
	o->no_summary |= o->until_max > 0 || seq_resumed(o->resume);
	enum sched_outcome out = sched_run(o, res);
	while (out == SCHED_ALL_OK && res->results_path) {
		struct rec *f = NULL;
		struct rec_meta m;
		rec_meta_init(&m);
		struct seq_design d;
		int bad = rec_open(res->results_path, 0, &f) || rec_read_meta(f, &m) ||
			  seq_design_read(&m, res->results_path, &d);
		rec_close(f);
		if (bad) {
			rec_meta_release(&m);
			return SCHED_ERROR;
		}
		if (!d.on || *d.stopped) { /* not sequential, or its design has ended */
			seq_design_release(&d);
			rec_meta_release(&m);
			break;
		}
		struct seq_look l;
		int look_bad = seq_look(res->results_path, &d, &l);
		size_t nlooks = d.nlooks;
		int64_t max_repeats = d.max_repeats;
		seq_design_release(&d);
		if (look_bad) {
			rec_meta_release(&m);
			return SCHED_ERROR;
		}
		double spent = (double)(util_now_ns() - t0) / 1e9;
		const char *stop = l.done ? "decided" : l.blocks >= max_repeats ? "max_repeats" : "";
		/* --max-time ends this session, not the design: a lease spent goes on with
		 * --resume, as a fixed run does */
		int out_of_time = !*stop && budget > 0 && spent >= budget;
		char *looks = seq_looks_append(rec_meta_get(&m, "sequential_looks"), &l);
		char lvl[40];
		snprintf(lvl, sizeof(lvl), "%.17g", l.alpha);
		const char *kv[] = { "sequential_looks", looks, "sequential_alpha", lvl,
				     "sequential_stopped", stop };
		int rc = sched_record_meta(res->results_path, kv, ARRAY_SIZE(kv) / 2);
		free(looks);
		rec_meta_release(&m);
		if (!o->quiet)
			fprintf(stderr, "harness: look %zu after %" PRId64 " blocks at level %.4g: "
					"%zu of %zu primary hypotheses decided%s%s%s; %zu of %zu cells; "
					"%s\n", nlooks + 1, l.blocks, l.alpha, l.decided, l.primary,
				*l.undecided ? " (undecided: " : "", l.undecided,
				*l.undecided ? ")" : "", l.cells_decided, l.cells,
				!strcmp(stop, "decided") ? "decided: the run stops"
				: !strcmp(stop, "max_repeats") ? "max_repeats reached: the run stops undecided"
				: out_of_time ? "--max-time spent: resume it for the next block"
					      : "one block more");
		seq_look_release(&l);
		if (rc)
			return SCHED_ERROR;
		if (*stop)
			break;
		if (out_of_time)
			return SCHED_TIME_LIMIT;
		/* one block more, as a resumed session of the same run */
		char *path = xstrdup(res->results_path);
		struct sched_opts next = { .resume = path, .quiet = o->quiet, .no_summary = 1,
					   .jobs = o->jobs,
					   .gpus = o->gpus, .repeats = l.blocks + 1,
					   .argc = o->argc, .argv = o->argv };
		if (budget > 0)
			next.max_time_s = budget - spent;
		sched_result_release(res);
		out = sched_run(&next, res);
		free(path);
	}
	return out;
}

/* What the run found, from what it recorded: its pre-registered hypotheses decided (as
 * Markdown, when it has any), then the answer per workload and mode, the audit's counts and
 * the next commands (run_answer_write).  Loaded, the report and the audit built and the
 * hypotheses decided here; written by the output layer.  *falsified: a pre-registered
 * primary was FALSIFIED; *mismeasured: audit checks whose FAIL means a mode did not measure
 * what it names (audit_mismeasures).  0, or -1 reported. */
static int run_answer(const char *results_path, FILE *out, int *falsified, size_t *mismeasured)
{
	struct analysis *a = NULL;
	struct hyp_set *s = NULL;
	struct hyp_eval *e = NULL;
	struct report *r = NULL;
	struct audit *au = NULL;
	struct report_opts o;
	int ret = -1;
	*falsified = 0;
	*mismeasured = 0;
	report_opts_init(&o);
	if (analysis_load(results_path, &a) || report_build(a, &o, &r))
		goto done;
	if (hyp_set_load(results_path, &a->meta, NULL, 0, NULL, &s))
		goto done;
	if (s->n) {
		fflush(stdout);
		fprintf(out, "\n");
		if (hyp_evaluate(r, s, &e) || hyp_eval_write(e, REPORT_MD, out))
			goto done;
		*falsified = e->prereg_primary_falsified;
	}
	if (audit_build(a, r, &au))
		goto done;
	*mismeasured = audit_mismeasures(au);
	if (run_answer_write(r, au, out))
		goto done;
	ret = 0;
done:
	audit_free(au);
	hyp_eval_free(e);
	hyp_set_free(s);
	report_free(r);
	analysis_free(a);
	return ret;
}

/* The values of every occurrence of option key, in command-line order, appended to *v
 * (borrowed from argv; *v heap). */
static void opt_all(const struct cmd_args *a, int key, char ***v, size_t *n)
{
	for (size_t i = 0; i < a->nopts; i++)
		if (a->opts[i].key == key) {
			*v = xrealloc(*v, (*n + 2) * sizeof(**v));
			(*v)[(*n)++] = (char *)a->opts[i].value;
		}
}

/* Say which modes a --mode filter keeps that it does not name: the baseline, A/A pairs. */
static void say_kept(const struct experiment *e, const struct exp_edits *ed)
{
	for (size_t i = 0; ed->nmodes && i < e->nmodes; i++) {
		const struct mode *m = &e->modes[i];
		size_t k = 0;
		while (k < ed->nmodes && strcmp(ed->modes[k], m->name))
			k++;
		if (k < ed->nmodes)
			continue;
		if (i == e->baseline)
			fprintf(stderr, "harness: --mode: also planning '%s', the baseline (every "
					"comparison is with it)\n", m->name);
		else if (m->aa_of)
			fprintf(stderr, "harness: --mode: also planning '%s', the A/A copy of '%s'\n",
				m->name, m->aa_of);
		else
			fprintf(stderr, "harness: --mode: also planning '%s', whose A/A copy is "
					"planned\n", m->name);
	}
}

/* The experiment of a new run with its edits: --repeats N becomes the overrides
 * repeats=N and, for each [on.BACKEND] table that sets repeats, on.BACKEND.repeats=N (so
 * that N blocks run whichever backend runs them), appended to ed (heap strings in *own).
 * Hypothesis files checked too (cmd_load_experiment).  0, or EXIT_USAGE reported. */
static int load_new(const char *path, const char *rep, struct exp_edits *ed, char ***own,
		    size_t *nown, struct experiment **out)
{
	if (cmd_load_experiment(path, ed, out))
		return EXIT_USAGE;
	if (!rep)
		return 0;
	const struct experiment *e = *out;
	for (size_t i = 0; i <= e->non; i++) {
		if (i < e->non && !e->on[i].has_repeats)
			continue;
		char *s = i < e->non ? xasprintf("on.%s.repeats=%s", e->on[i].backend, rep)
				     : xasprintf("repeats=%s", rep);
		*own = xrealloc(*own, (*nown + 1) * sizeof(**own));
		(*own)[(*nown)++] = s;
		ed->sets = xrealloc(ed->sets, (ed->nsets + 2) * sizeof(*ed->sets));
		ed->sets[ed->nsets++] = s;
	}
	experiment_free(*out);
	return cmd_load_experiment(path, ed, out) ? EXIT_USAGE : 0;
}

/* --commit-digest (docs/results-format.md, "Digests"): the record digest of the results
 * file at path, printed for a lab notebook, and committed on the current branch of the git
 * repository that holds dir (an empty commit whose message holds it; staged changes stay
 * staged), where there is one.  EXIT_OK, or EXIT_RUN_FAILED (reported): the file does not
 * match its own digests, or git failed. */
static int commit_digest(const char *path, const char *dir)
{
	struct rec_seal s;
	struct rec_meta m;
	struct rec *f = NULL;
	rec_meta_init(&m);
	if (rec_seal_check(path, &s))
		return EXIT_RUN_FAILED;
	int rc = EXIT_RUN_FAILED;
	if (!s.sealed || rec_seal_altered(&s)) {
		error("'%s': %s: no record digest to commit", path,
		      s.sealed ? "does not match its own digests" : "carries no digests");
		goto done;
	}
	if (rec_open(path, 0, &f) || rec_read_meta(f, &m))
		goto done;
	printf("record digest: sha256:%s  %s\n", s.record, path);
	char *msg = xasprintf("harness record sha256:%s\n\nresults: %s\nexperiment: %s\n"
			      "status: %s\nstart: %s\nend: %s\n", s.record, path,
			      rec_meta_get(&m, "experiment_name") ? rec_meta_get(&m, "experiment_name") : "",
			      rec_meta_get(&m, "status") ? rec_meta_get(&m, "status") : "",
			      rec_meta_get(&m, "start_utc") ? rec_meta_get(&m, "start_utc") : "",
			      rec_meta_get(&m, "end_utc") ? rec_meta_get(&m, "end_utc") : "");
	char *commit = NULL;
	int g = hyp_git_anchor_commit(dir, msg, &commit);
	free(msg);
	if (g < 0)
		goto done;
	if (g > 0) {
		warning("'%s' is in no git repository: the record digest was committed nowhere; note "
			"it (harness verify --digest sha256:%s checks a file against it)", dir, s.record);
	} else if (hyp_git_reachable(dir, commit) != 1) {
		warning("'%s': commit %.12s holds the record digest, but no branch holds it (a "
			"detached HEAD?): harness verify --anchor finds it once a branch or tag does",
			dir, commit);
	} else {
		printf("record digest committed: commit %.12s in '%s' (push it: a commit only you "
		       "hold proves nothing to others)\n", commit, dir);
	}
	free(commit);
	rc = EXIT_OK;
done:
	rec_close(f);
	rec_meta_release(&m);
	rec_seal_release(&s);
	return rc;
}

/* The folder of path ("." when it names none). */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? xstrndup(path, (size_t)(slash - path) + (slash == path)) : xstrdup(".");
}

static int run_exec(const struct cmd_args *a)
{
	struct sched_opts o = {
		.resume = cmd_args_value(a, OPT_RESUME),
		.backend = cmd_args_value(a, OPT_BACKEND),
		.results_dir = cmd_args_value(a, OPT_RESULTS_DIR),
		.output = cmd_args_value(a, 'o'),
		.quiet = cmd_args_count(a, 'q') > 0,
		.require_preregistered = cmd_args_count(a, OPT_PREREG) > 0,
		.gpus = cmd_args_value(a, OPT_GPUS),
		.share_split = cmd_args_count(a, OPT_SHARE_SPLIT) > 0,
		.argc = a->argc, /* the whole command line, for the results file */
		.argv = a->argv,
	};
	const char *jobs = cmd_args_value(a, OPT_JOBS), *mt = cmd_args_value(a, OPT_MAX_TIME);
	const char *shard = cmd_args_value(a, OPT_SHARD);
	if (jobs) {
		int64_t v;
		if (parse_i64(jobs, 1, 4096, &v))
			return cmd_usage_error(a->entry, "--jobs: '%s' is not a number of units to run "
							 "at once (1 to 4096)", jobs);
		o.jobs = (int)v;
	}
	if (mt && (sched_parse_duration(mt, 0, &o.max_time_s) || o.max_time_s <= 0 ||
		   o.max_time_s > SCHED_MAX_TIME_S))
		return cmd_usage_error(a->entry, "--max-time: '%s' is not a duration (90, 90s, 15m, "
						 "2h, 1:30:00) of at most 366 days", mt);
	if (shard && rec_shard_parse(shard, &o.shard_k, &o.shard_n))
		return cmd_usage_error(a->entry, "--shard: '%s' is not K/N with 0 <= K < N <= %d",
				       shard, REC_MAX_SHARDS);
	o.submission = cmd_args_value(a, OPT_SUBMISSION);
	if (o.submission && !rec_submission_id_ok(o.submission))
		return cmd_usage_error(a->entry, "--submission: '%s' is not a submission id (1 to "
						 "64 of A-Z a-z 0-9 . _ -)", o.submission);
	if (o.submission && !shard && !o.resume)
		return cmd_usage_error(a->entry, "--submission names the submission a shard is of: "
						 "only with --shard K/N (or --resume of a shard)");
	const char *rep = cmd_args_value(a, OPT_REPEATS);
	/* bounded as the experiment's repeats is, before anything is planned or written (a
	 * resumed plan, once grown, never shrinks) */
	if (rep && parse_i64(rep, 1, EXPERIMENT_MAX_REPEATS, &o.repeats))
		return cmd_usage_error(a->entry, "--repeats: '%s' is not a number of blocks (1 to "
						 "%d, the most an experiment's repeats may be)", rep,
				       EXPERIMENT_MAX_REPEATS);
	if (o.share_split && !o.resume)
		return cmd_usage_error(a->entry, "--share-split-blocks: only with --resume (a new run "
						 "has no block that ran on another device)");
	const char *ud = cmd_args_value(a, OPT_UNTIL_DECIDED), *until = cmd_args_value(a, OPT_UNTIL);
	if (ud && parse_i64(ud, 2, EXPERIMENT_MAX_REPEATS, &o.until_max))
		return cmd_usage_error(a->entry, "--until-decided: '%s' is not a number of blocks "
						 "(2 to 10000), the most the run may take", ud);
	if (until && strcmp(until, "primary") && strcmp(until, "cells"))
		return cmd_usage_error(a->entry, "--until: '%s' is not primary or cells", until);
	if (until && !ud)
		return cmd_usage_error(a->entry, "--until only qualifies --until-decided N");
	o.until_cells = until && !strcmp(until, "cells");
	if (ud && o.resume)
		return cmd_usage_error(a->entry, "--until-decided designs a new run; a resumed run "
						 "continues the design it recorded");
	if (ud && o.shard_n)
		return cmd_usage_error(a->entry, "--until-decided looks at the whole run: not with "
						 "--shard");
	const char *est = cmd_args_value(a, OPT_ESTIMATES);
	if (est && !mt)
		return cmd_usage_error(a->entry, "--estimates only informs --max-time: give both");
	if (a->npos == 1)
		o.experiment = a->pos[0];
	if (!o.resume && !o.experiment)
		return cmd_usage_error(a->entry, "'run' needs an experiment file (or --resume FILE)");
	if (o.resume && (o.output || o.results_dir || o.backend))
		return cmd_usage_error(a->entry, "--resume continues a run as it was recorded; it "
						 "takes no --output, --results-dir or --backend");
	if (o.backend && !backend_is_choice(o.backend))
		return cmd_usage_error(a->entry, "unknown backend '%s' (%s)", o.backend,
				       backend_names());
	/* -D, --mode, --workload: a new run applies them to the experiment and records them;
	 * --resume applies what the run recorded (sched-resume.c) */
	struct exp_edits ed = { 0 };
	char **own = NULL;
	size_t nown = 0;
	opt_all(a, 'D', &ed.sets, &ed.nsets);
	opt_all(a, OPT_MODE, &ed.modes, &ed.nmodes);
	opt_all(a, OPT_WORKLOAD, &ed.workloads, &ed.nworkloads);
	o.edits = &ed;
	/* Hypothesis files are parsed, and the names they use checked, before anything is
	 * written (sched_run only reads them once the run exists); --resume relies on what
	 * the run's start checked. */
	int ret = EXIT_OK;
	if (!o.resume) {
		struct experiment *e = NULL;
		ret = load_new(o.experiment, rep, &ed, &own, &nown, &e);
		if (!ret) {
			o.no_summary = e->seq.on;
			say_kept(e, &ed);
		}
		experiment_free(e);
		o.repeats = 0; /* a new run's --repeats is the override repeats=N */
	}
	if (ret)
		goto done;
	/* --estimates: read now, so that an unreadable file stops the run before it starts */
	struct rec_unit *eu = NULL;
	if (est) {
		struct rec *f = NULL;
		int bad = rec_open(est, 0, &f) || rec_read_units(f, &eu, &o.nest_units);
		bad |= rec_close(f) < 0;
		if (bad) {
			rec_units_free(eu, o.nest_units);
			ret = EXIT_USAGE;
			goto done;
		}
		o.est_units = eu;
	}
	struct sched_result res;
	enum sched_outcome out = run_sequential(&o, &res);
	rec_units_free(eu, o.nest_units);
	ret = out == SCHED_ALL_OK        ? EXIT_OK
		  : out == SCHED_REFUSED     ? EXIT_USAGE
		  : out == SCHED_INTERRUPTED ? EXIT_INTERRUPTED
		  : out == SCHED_TIME_LIMIT  ? EXIT_RESUMABLE
					     : EXIT_RUN_FAILED;
	/* What the run found.  A falsified hypothesis is a finding, not a failed run (`harness
	 * verify` exits 3 for it); a mode that did not measure what it names is a run that
	 * cannot answer its question: exit 4.  A shard's file holds a share of the blocks (the
	 * answer is its merge's), and a sequential run still going answers at its last look. */
	if ((ret == EXIT_OK || ret == EXIT_RUN_FAILED) && res.results_path && !o.shard_n &&
	    !seq_resumed(res.results_path)) {
		int falsified;
		size_t mism;
		if (run_answer(res.results_path, stdout, &falsified, &mism) < 0) {
			if (ret == EXIT_OK)
				ret = EXIT_RUN_FAILED;
		} else if (mism && ret == EXIT_OK) {
			ret = EXIT_MISMEASURED;
		}
	}
	/* --commit-digest: whatever the session left, the file as it is now */
	if (cmd_args_count(a, OPT_COMMIT_DIGEST) && res.results_path && out != SCHED_REFUSED) {
		char *dir = dir_of(o.experiment ? o.experiment : res.results_path);
		int c = commit_digest(res.results_path, dir);
		free(dir);
		if (c && ret == EXIT_OK)
			ret = c;
	}
	sched_result_release(&res);
done:
	for (size_t i = 0; i < nown; i++)
		free(own[i]);
	free(own);
	free(ed.sets);
	free(ed.modes);
	free(ed.workloads);
	return ret;
}

const struct cmd_entry cmd_run_entry = {
	.name = "run",
	.usage = "run [options] EXPERIMENT\n       harness run --resume RESULTS.h5 [EXPERIMENT]",
	.summary = "run an experiment: every mode x repeat as an isolated unit, raw timings to HDF5",
	.help = "options:\n"
		"  --backend NAME       auto, cpu, cuda or command: the backend of every mode\n"
		"                       that names none (overrides the experiment's)\n"
		"  --results-dir DIR    where the run goes (default: results)\n"
		"  -o, --output FILE    the results file's exact path (its folder: FILE without .h5)\n"
		"  --resume FILE        run only the units FILE lacks; refuses when the experiment\n"
		"                       file's SHA-256 differs from the one recorded; applies the\n"
		"                       -D, --mode and --workload the run recorded\n"
		"  -q, --quiet          no progress line\n"
		"  --jobs N             N units at once, each pinned to its own share of the\n"
		"                       cores; every unit of a block on one slot, in order\n"
		"  --gpus all|0,1,3     one unit per GPU at a time (CUDA_VISIBLE_DEVICES=UUID)\n"
		"  --max-time DURATION  start no unit that could not finish within DURATION\n"
		"                       (90, 90s, 15m, 2h, 1:30:00; at most 366 days); then\n"
		"                       exit 75: resume it\n"
		"  --estimates FILE     with --max-time: also judge a unit by FILE's recorded\n"
		"                       units of its mode, workload and kind (an earlier run)\n"
		"  --shard K/N          only the blocks with block mod N == K (harness slurm;\n"
		"                       N at most 4096)\n"
		"  --submission ID      with --shard: the submission the shard is of (1 to 64\n"
		"                       of A-Z a-z 0-9 . _ -), the same for every shard of it;\n"
		"                       harness merge joins only shards of one\n"
		"  --repeats N          a new run: N blocks (recorded as the override repeats=N);\n"
		"                       1 to 10000, as the experiment's repeats;\n"
		"                       with --resume: extend the plan to N blocks, the recorded\n"
		"                       blocks unchanged (the file says it was extended)\n"
		"  -D, --set KEY=VALUE  set KEY of the experiment to VALUE (TOML: a dotted key,\n"
		"                       a TOML value or a bare word) before it is checked, as if\n"
		"                       the file said it: -D measure.min_samples=5, -D\n"
		"                       modes.NAME.options.max_trials=50; repeatable, recorded\n"
		"  --mode NAME          plan only mode NAME (repeatable), with the baseline and\n"
		"                       A/A pairs it needs; recorded\n"
		"  --workload NAME      plan only workload NAME (repeatable); recorded\n"
		"  --share-split-blocks with --resume and slots: a slot with no block left takes\n"
		"                       units of a block that already ran on another device\n"
		"  --until-decided N    a sequential design: after the experiment's repeats, look\n"
		"                       after each block (alpha spent over the looks) and add one\n"
		"                       until every primary hypothesis is decided, or N blocks\n"
		"                       (the experiment's [sequential] says the same)\n"
		"  --until primary|cells  with --until-decided: wait for every cell's comparison\n"
		"                       with the baseline too (cells)\n"
		"  --commit-digest      at the end, print the results file's record digest and\n"
		"                       commit it (an empty commit) on the current branch of the\n"
		"                       git repository of the experiment file (--resume: of the\n"
		"                       results file); harness verify --anchor DIR finds it\n"
		"  --require-preregistered\n"
		"                       refuse to start unless every hypothesis file the\n"
		"                       experiment attaches is committed and clean in git\n"
		"  -h, --help           this text\n"
		"exit status: 0 every unit ok, 1 some unit not ok or the run failed,\n"
		"             2 bad input (nothing run), 4 every unit ok but the audit found a\n"
		"             mode that did not measure what it names (a cache leak or a cold\n"
		"             unit that did no work, a tuner that fell back, another backend:\n"
		"             see harness audit),\n"
		"             75 --max-time reached (resume it), 130 interrupted (resume it)\n",
	.opts = run_opts,
	.min_args = 0,
	.max_args = 1,
	.flags = 0,
	.exec = run_exec,
};
