/* cmd-slurm.c: `harness slurm EXPERIMENT`: a Slurm job-array batch script whose task k runs
 * shard k of one plan into RUN/shard-k.h5 (docs/cluster.md), submitted with sbatch when
 * asked, or run here as local processes (--local); `harness merge` makes one file of them */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "harness/base/spawn.h"
#include "harness/base/util.h"
#include "harness/cli/cmd.h"
#include "harness/config/experiment.h"
#include "harness/record/recorder.h"
#include "harness/run/sched.h"

enum { OPT_TASKS = 256, OPT_GPT, OPT_PARTITION, OPT_TIME, OPT_SUBMIT, OPT_LOCAL,
       OPT_RESULTS_DIR, OPT_JOBS };

static const struct cmd_opt slurm_opts[] = {
	{ "tasks", OPT_TASKS, 1 },
	{ "gpus-per-task", OPT_GPT, 1 },
	{ "partition", OPT_PARTITION, 1 },
	{ "time", OPT_TIME, 1 },
	{ "submit", OPT_SUBMIT, 0 },
	{ "local", OPT_LOCAL, 0 },
	{ "results-dir", OPT_RESULTS_DIR, 1 },
	{ "output", 'o', 1 },
	{ "jobs", OPT_JOBS, 1 },
	{ NULL, 0, 0 },
};

/* Single-quote s for bash. */
static void add_quoted(struct sbuf *sb, const char *s)
{
	sbuf_adds(sb, "'");
	for (; *s; s++) {
		if (*s == '\'')
			sbuf_adds(sb, "'\\''");
		else
			sbuf_addf(sb, "%c", *s);
	}
	sbuf_adds(sb, "'");
}

/* A value written into an #SBATCH line.  sbatch reads those lines itself, not bash: a line
 * break would end the directive and start a command of the script, a quote or a space
 * would be split by sbatch's own word rules, and % is a Slurm file pattern.  So only these
 * bytes pass; anything else is refused (reported, -1), never escaped. */
static int sbatch_safe(const char *what, const char *v)
{
	for (const char *p = v; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_./:,+=@-", *p))
			return error("%s cannot be written into an #SBATCH line of job.sbatch: its "
				     "byte 0x%02x at offset %td is not one of A-Z a-z 0-9 _ . / : , + "
				     "= @ - (sbatch reads those lines itself: a line break there would "
				     "start a command of the script)",
				     what, (unsigned char)*p, p - v);
	return 0;
}

/* What a task is given of the environment (as a unit is, plus Slurm's configuration). */
static const char *const pass_env[] = { "PATH", "HOME", "LANG", "LC_ALL", "TZ", "USER",
					"LD_LIBRARY_PATH", "HARNESS_KERNEL_DIR", "SLURM_CONF",
					"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS" };

/* pass_env's variables that are set, plus room for extra more; NULL-terminated, heap. */
static char **task_env(size_t extra)
{
	char **env = xcalloc(ARRAY_SIZE(pass_env) + extra + 1, sizeof(*env));
	size_t n = 0;
	for (size_t i = 0; i < ARRAY_SIZE(pass_env); i++)
		if (getenv(pass_env[i]))
			env[n++] = xasprintf("%s=%s", pass_env[i], getenv(pass_env[i]));
	return env;
}

static void env_free(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

struct job {
	const char *name, *partition, *time;
	int64_t tasks, gpus, jobs;
	double max_time_s;
	char *run, *harness, *experiment, *sha256;
	char submission[64]; /* this submission's id, given to every task (--submission) */
};

/* The batch script (docs/cluster.md explains it line by line). */
static char *batch_script(const struct job *j)
{
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_addf(&sb, "#!/bin/bash\n"
		       "# written by harness %s slurm: experiment '%s', %" PRId64 " tasks\n",
		  PACKAGE_VERSION, j->name, j->tasks);
	sbuf_addf(&sb, "#SBATCH --job-name=harness-%s\n", j->name);
	sbuf_addf(&sb, "#SBATCH --array=0-%" PRId64 "\n", j->tasks - 1);
	sbuf_adds(&sb, "#SBATCH --ntasks=1\n");
	if (j->gpus > 0)
		sbuf_addf(&sb, "#SBATCH --gres=gpu:%" PRId64 "\n", j->gpus);
	if (j->jobs > 0)
		sbuf_addf(&sb, "#SBATCH --cpus-per-task=%" PRId64 "\n", j->jobs);
	if (j->partition)
		sbuf_addf(&sb, "#SBATCH --partition=%s\n", j->partition);
	if (j->time)
		sbuf_addf(&sb, "#SBATCH --time=%s\n", j->time);
	sbuf_addf(&sb, "#SBATCH --output=%s/slurm-%%A_%%a.out\n", j->run);
	sbuf_adds(&sb, "set -eu\n");
	sbuf_adds(&sb, "RUN=");
	add_quoted(&sb, j->run);
	sbuf_adds(&sb, "\nHARNESS=");
	add_quoted(&sb, j->harness);
	sbuf_adds(&sb, "\nEXPERIMENT=");
	add_quoted(&sb, j->experiment);
	sbuf_addf(&sb, "\nK=${SLURM_ARRAY_TASK_ID:?not started as a task of a job array}\n");
	sbuf_addf(&sb, "echo \"%s  $EXPERIMENT\" | sha256sum --check --status || {\n"
		       "\techo \"harness: '$EXPERIMENT' has changed since it was submitted; "
		       "refusing to run shard $K\" >&2; exit 2; }\n", j->sha256);
	struct sbuf opts;
	sbuf_init(&opts);
	sbuf_adds(&opts, "");
	if (j->gpus > 0)
		sbuf_adds(&opts, " --gpus all");
	else if (j->jobs > 0)
		sbuf_addf(&opts, " --jobs %" PRId64, j->jobs);
	if (j->max_time_s > 0)
		sbuf_addf(&opts, " --max-time %.0f", j->max_time_s);
	sbuf_addf(&sb, "if [ -d \"$RUN/shard-$K/journal\" ]; then\n"
		       "\texec \"$HARNESS\" run -q%s --resume \"$RUN/shard-$K.h5\"\n"
		       "else\n"
		       "\texec \"$HARNESS\" run -q%s --shard \"$K/%" PRId64 "\" --submission %s "
		       "-o \"$RUN/shard-$K.h5\" \"$EXPERIMENT\"\n"
		       "fi\n", opts.buf, opts.buf, j->tasks, j->submission);
	sbuf_release(&opts);
	return sbuf_detach(&sb);
}

/* Run the script's tasks here, side by side, as Slurm would (SLURM_ARRAY_TASK_ID set);
 * each task's output in RUN/local-K.out.  0 when every task exited 0, else 1. */
static int run_local(const struct job *j, const char *script)
{
	struct spawn *sp = xcalloc((size_t)j->tasks, sizeof(*sp));
	char ***envs = xcalloc((size_t)j->tasks, sizeof(*envs));
	char **outs = xcalloc((size_t)j->tasks, sizeof(*outs));
	const char *argv[] = { "bash", script, NULL };
	int ret = 0;
	for (int64_t k = 0; k < j->tasks; k++) {
		char **env = task_env(2);
		size_t n = 0;
		while (env[n])
			n++;
		env[n++] = xasprintf("SLURM_ARRAY_TASK_ID=%" PRId64, k);
		env[n++] = xasprintf("SLURM_ARRAY_JOB_ID=local-%ld", (long)getpid());
		envs[k] = env;
		outs[k] = xasprintf("%s/local-%" PRId64 ".out", j->run, k);
		spawn_init(&sp[k]);
		sp[k].argv = argv;
		sp[k].env = (const char *const *)env;
		sp[k].stdout_path = outs[k];
		sp[k].stderr_path = outs[k];
		if (spawn_start(&sp[k])) {
			ret = 1;
			break;
		}
	}
	for (int64_t k = 0; k < j->tasks; k++) {
		struct spawn_status st;
		if (!sp[k].pid)
			continue;
		if (spawn_wait(&sp[k], &st)) {
			ret = 1;
		} else {
			fprintf(stderr, "harness: task %" PRId64 ": exit status %d (%s)\n", k, st.code,
				outs[k]);
			if (st.code)
				ret = 1;
		}
		spawn_release(&sp[k]);
	}
	for (int64_t k = 0; k < j->tasks; k++) {
		env_free(envs[k]);
		free(outs[k]);
	}
	free(envs);
	free(outs);
	free(sp);
	return ret;
}

/* sbatch --parsable SCRIPT; the job id on stdout.  -1 reported. */
static int submit(const char *script)
{
	const char *argv[] = { "sbatch", "--parsable", script, NULL };
	struct spawn sp;
	struct spawn_status st;
	struct sbuf out;
	sbuf_init(&out);
	spawn_init(&sp);
	/* sbatch gives the job the environment it has (--export=ALL): the same as a unit's */
	char **env = task_env(0);
	sp.argv = argv;
	sp.env = (const char *const *)env;
	sp.inherit_stderr = 1;
	int rc = spawn_run(&sp, &out, &st);
	env_free(env);
	if (rc == 0 && st.code)
		rc = error("sbatch failed (status %d); the batch script is '%s'", st.code, script);
	if (rc == 0)
		printf("submitted job %s", out.buf ? out.buf : "\n");
	sbuf_release(&out);
	return rc;
}

static int slurm_exec(const struct cmd_args *a)
{
	struct job j = { .tasks = 1 };
	struct experiment *e = NULL;
	char *script_path = NULL, *script = NULL, *sub = NULL;
	char self[PATH_MAX];
	int ret = EXIT_USAGE;
	const char *v;
	if ((v = cmd_args_value(a, OPT_TASKS)) && parse_i64(v, 1, REC_MAX_SHARDS, &j.tasks))
		return cmd_usage_error(a->entry, "--tasks: '%s' is not a number of tasks (1 to %d)",
				       v, REC_MAX_SHARDS);
	if ((v = cmd_args_value(a, OPT_GPT)) && parse_i64(v, 0, 1024, &j.gpus))
		return cmd_usage_error(a->entry, "--gpus-per-task: '%s' is not a number of GPUs", v);
	if ((v = cmd_args_value(a, OPT_JOBS)) && parse_i64(v, 1, 4096, &j.jobs))
		return cmd_usage_error(a->entry, "--jobs: '%s' is not a number of units", v);
	if (j.gpus > 0 && j.jobs > 0)
		return cmd_usage_error(a->entry, "--gpus-per-task and --jobs: a task runs one unit "
						 "per GPU, or --jobs units on its cores; choose one");
	j.partition = cmd_args_value(a, OPT_PARTITION);
	j.time = cmd_args_value(a, OPT_TIME);
	if ((j.partition && sbatch_safe("--partition", j.partition)) ||
	    (j.time && sbatch_safe("--time", j.time)))
		return EXIT_USAGE;
	if (j.time) {
		double s;
		if (sched_parse_duration(j.time, 1, &s) || s <= 0)
			return cmd_usage_error(a->entry, "--time: '%s' is not a Slurm time limit "
							 "(MM, MM:SS, HH:MM:SS, D-HH:MM:SS)", j.time);
		/* Each task stops starting units at 90% of its limit (and at least a minute
		 * before it), so it ends resumable (exit 75) rather than killed. */
		j.max_time_s = s * 0.9 < s - 60 ? s * 0.9 : s - 60;
		if (j.max_time_s < 1)
			j.max_time_s = s * 0.9;
	}
	int local = cmd_args_count(a, OPT_LOCAL) > 0, sbatch = cmd_args_count(a, OPT_SUBMIT) > 0;
	if (local && sbatch)
		return cmd_usage_error(a->entry, "--local runs the tasks here; --submit gives them "
						 "to Slurm: choose one");
	if (cmd_load_experiment(a->pos[0], NULL, &e))
		return EXIT_USAGE;
	if ((int64_t)e->repeats < j.tasks)
		warning("%" PRId64 " tasks for %" PRId64 " blocks: tasks %" PRId64 " and up run "
			"nothing", j.tasks, e->repeats, e->repeats);
	ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (sl < 0) {
		error_errno("cannot find the harness binary (/proc/self/exe)");
		ret = EXIT_RUN_FAILED;
		goto done;
	}
	self[sl] = '\0';
	j.name = e->name;
	if (sbatch_safe("the experiment's name", e->name)) {
		ret = EXIT_USAGE;
		goto done;
	}
	j.harness = xstrdup(self);
	j.sha256 = xstrdup(e->sha256);
	j.experiment = realpath(a->pos[0], NULL);
	if (!j.experiment) {
		error_errno("cannot resolve '%s'", a->pos[0]);
		goto done;
	}
	const char *out = cmd_args_value(a, 'o');
	char stamp[32];
	util_utc_stamp(stamp);
	char *rel = out ? xstrdup(out)
			: xasprintf("%s/%s-%s", cmd_args_value(a, OPT_RESULTS_DIR)
						  ? cmd_args_value(a, OPT_RESULTS_DIR) : "results",
				    e->name, stamp);
	if (access(rel, F_OK) == 0) {
		error("'%s' already exists; not overwriting a run", rel);
		free(rel);
		goto done;
	}
	ret = EXIT_RUN_FAILED;
	if (util_mkdir_p(rel, 0755)) {
		free(rel);
		goto done;
	}
	j.run = realpath(rel, NULL);
	if (!j.run) {
		error_errno("cannot resolve the run folder");
		free(rel);
		goto done;
	}
	if (sbatch_safe("the run folder's path", j.run)) {
		rmdir(rel); /* made just now, empty */
		free(rel);
		ret = EXIT_USAGE;
		goto done;
	}
	free(rel);
	/* This submission's id, once: every task records it, and harness merge joins only
	 * shards of one (the name, the time and 32 random bits) */
	uint32_t nonce = 0;
	if (getrandom(&nonce, sizeof(nonce), 0) != (ssize_t)sizeof(nonce))
		nonce = (uint32_t)(util_now_ns() ^ ((int64_t)getpid() << 16));
	snprintf(j.submission, sizeof(j.submission), "%.32s-%.16s-%08" PRIx32, e->name, stamp, nonce);
	for (char *c = j.submission; *c; c++)
		if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-", *c))
			*c = '_';
	/* The submission record first: the experiment, hypotheses and git state now. */
	sub = xasprintf("%s/submission.h5", j.run);
	struct sched_opts so = { .experiment = a->pos[0], .quiet = 1, .argc = a->argc,
				 .argv = a->argv, .submission = j.submission };
	int sr = sched_write_submission(&so, sub);
	if (sr) {
		ret = sr == -2 ? EXIT_USAGE : EXIT_RUN_FAILED;
		goto done;
	}
	script = batch_script(&j);
	script_path = xasprintf("%s/job.sbatch", j.run);
	if (util_write_file(script_path, script, strlen(script), 0755))
		goto done;
	printf("batch script: %s\nsubmission: %s\n", script_path, j.submission);
	if (sbatch) {
		if (submit(script_path))
			goto done;
	} else if (local) {
		fflush(stdout);
		if (run_local(&j, script_path))
			goto done;
	} else {
		printf("submit it with: sbatch %s\n", script_path);
	}
	printf("then merge with: harness merge %s/shard-*.h5 -o %s.h5\n", j.run, j.run);
	ret = EXIT_OK;
done:
	experiment_free(e);
	free(j.harness);
	free(j.sha256);
	free(j.experiment);
	free(j.run);
	free(script);
	free(script_path);
	free(sub);
	return ret;
}

const struct cmd_entry cmd_slurm_entry = {
	.name = "slurm",
	.usage = "slurm [options] EXPERIMENT",
	.summary = "write (and submit) a Slurm job array running shards of one plan",
	.help = "options:\n"
		"  --tasks N            array tasks; task k runs the blocks with block mod N == k\n"
		"                       into RUN/shard-k.h5 (default 1; at most 4096)\n"
		"  --gpus-per-task G    each task asks for G GPUs and runs one unit per GPU\n"
		"  --jobs N             each task asks for N cores and runs N units at once\n"
		"  --partition P        the Slurm partition\n"
		"  --time T             each task's time limit (Slurm's forms: MM, HH:MM:SS,\n"
		"                       D-HH:MM:SS); tasks stop starting units at 90% of it\n"
		"  -o, --output DIR     the run folder (default RESULTS-DIR/NAME-STAMP)\n"
		"  --results-dir DIR    where the run folder goes (default: results)\n"
		"  --submit             submit the script with sbatch\n"
		"  --local              run the tasks here as local processes instead\n"
		"  -h, --help           this text\n"
		"Writes RUN/submission.h5 (the experiment, hypotheses and their git state now,\n"
		"and this submission's id, which every task records: merge joins one's shards)\n"
		"and RUN/job.sbatch; a task resubmitted after a failure or time-out resumes its\n"
		"shard.  Merge the shards with 'harness merge RUN/shard-*.h5 -o RUN.h5'.\n"
		"exit status: 0 written (and submitted, or every local task exited 0),\n"
		"             1 writing, submitting or a local task failed, 2 bad input\n",
	.opts = slurm_opts,
	.min_args = 1,
	.max_args = 1,
	.flags = 0,
	.exec = slurm_exec,
};
