/* cmd-run.c: `harness run EXPERIMENT` and `harness run --resume FILE` */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness/base/util.h"
#include "harness/cli/cmd.h"
#include "harness/config/experiment.h"
#include "harness/output/write.h"
#include "harness/record/recorder.h"
#include "harness/run/sched.h"
#include "kernels/backend.h"

enum { OPT_RESUME = 256, OPT_BACKEND, OPT_RESULTS_DIR, OPT_PREREG, OPT_JOBS, OPT_GPUS,
       OPT_MAX_TIME, OPT_SHARD, OPT_ESTIMATES, OPT_REPEATS, OPT_SHARE_SPLIT };

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
	{ "repeats", OPT_REPEATS, 1 },
	{ "share-split-blocks", OPT_SHARE_SPLIT, 0 },
	{ NULL, 0, 0 },
};

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
	if (mt && (sched_parse_duration(mt, 0, &o.max_time_s) || o.max_time_s <= 0))
		return cmd_usage_error(a->entry, "--max-time: '%s' is not a duration (90, 90s, 15m, "
						 "2h, 1:30:00)", mt);
	if (shard) {
		char tail;
		if (sscanf(shard, "%" SCNd64 "/%" SCNd64 "%c", &o.shard_k, &o.shard_n, &tail) != 2 ||
		    o.shard_n < 1 || o.shard_k < 0 || o.shard_k >= o.shard_n)
			return cmd_usage_error(a->entry, "--shard: '%s' is not K/N with 0 <= K < N",
					       shard);
	}
	const char *rep = cmd_args_value(a, OPT_REPEATS);
	if (rep && parse_i64(rep, 1, INT32_MAX, &o.repeats))
		return cmd_usage_error(a->entry, "--repeats: '%s' is not a number of blocks", rep);
	if (o.share_split && !o.resume)
		return cmd_usage_error(a->entry, "--share-split-blocks: only with --resume (a new run "
						 "has no block that ran on another device)");
	if (rep && !o.resume)
		return cmd_usage_error(a->entry, "--repeats extends a recorded run's plan: give "
						 "--resume FILE (a new run takes its repeats from "
						 "the experiment)");
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
	/* Hypothesis files are parsed, and the names they use checked, before anything is
	 * written (sched_run only reads them once the run exists); --resume relies on what
	 * the run's start checked. */
	if (!o.resume) {
		struct experiment *e = NULL;
		if (cmd_load_experiment(o.experiment, &e))
			return EXIT_USAGE;
		experiment_free(e);
	}
	/* --estimates: read now, so that an unreadable file stops the run before it starts */
	struct rec_unit *eu = NULL;
	if (est) {
		struct rec *f = NULL;
		int bad = rec_open(est, 0, &f) || rec_read_units(f, &eu, &o.nest_units);
		bad |= rec_close(f) < 0;
		if (bad) {
			rec_units_free(eu, o.nest_units);
			return EXIT_USAGE;
		}
		o.est_units = eu;
	}
	struct sched_result res;
	enum sched_outcome out = sched_run(&o, &res);
	rec_units_free(eu, o.nest_units);
	int ret = out == SCHED_ALL_OK        ? EXIT_OK
		  : out == SCHED_REFUSED     ? EXIT_USAGE
		  : out == SCHED_INTERRUPTED ? EXIT_INTERRUPTED
		  : out == SCHED_TIME_LIMIT  ? EXIT_RESUMABLE
					     : EXIT_RUN_FAILED;
	/* The run's pre-registered hypotheses, evaluated on what was just recorded.  A falsified
	 * hypothesis is a finding, not a failed run: `harness verify` exits 3 for it. */
	if ((ret == EXIT_OK || ret == EXIT_RUN_FAILED) && res.nhypotheses && res.results_path) {
		fflush(stdout);
		printf("\n");
		if (hyp_evaluate_run(res.results_path, stdout) < 0 && ret == EXIT_OK)
			ret = EXIT_RUN_FAILED;
	}
	sched_result_release(&res);
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
		"                       file's SHA-256 differs from the one recorded\n"
		"  -q, --quiet          no progress line\n"
		"  --jobs N             N units at once, each pinned to its own share of the\n"
		"                       cores; every unit of a block on one slot, in order\n"
		"  --gpus all|0,1,3     one unit per GPU at a time (CUDA_VISIBLE_DEVICES=UUID)\n"
		"  --max-time DURATION  start no unit that could not finish within DURATION\n"
		"                       (90, 90s, 15m, 2h, 1:30:00); then exit 75: resume it\n"
		"  --estimates FILE     with --max-time: also judge a unit by FILE's recorded\n"
		"                       units of its mode, workload and kind (an earlier run)\n"
		"  --shard K/N          only the blocks with block mod N == K (harness slurm)\n"
		"  --repeats N          with --resume: extend the plan to N blocks, the recorded\n"
		"                       blocks unchanged (the file says it was extended)\n"
		"  --share-split-blocks with --resume and slots: a slot with no block left takes\n"
		"                       units of a block that already ran on another device\n"
		"  --require-preregistered\n"
		"                       refuse to start unless every hypothesis file the\n"
		"                       experiment attaches is committed and clean in git\n"
		"  -h, --help           this text\n"
		"exit status: 0 every unit ok, 1 some unit not ok or the run failed,\n"
		"             2 bad input (nothing run), 75 --max-time reached (resume it),\n"
		"             130 interrupted (resume it)\n",
	.opts = run_opts,
	.min_args = 0,
	.max_args = 1,
	.flags = 0,
	.exec = run_exec,
};
