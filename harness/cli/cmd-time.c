/* cmd-time.c: `harness time 'CMD A' 'CMD B' ...`: time commands as processes, paired by
 * block, and say whether each differs from the first (docs/harness-time.md) */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/analysis/timesum.h"
#include "harness/base/util.h"
#include "harness/cli/cmd.h"
#include "harness/config/experiment.h"
#include "harness/config/timeexp.h"
#include "harness/output/write.h"
#include "harness/run/sched.h"

enum { OPT_RUNS = CMD_OPT_OWN, OPT_WARMUP, OPT_REPEATS, OPT_SETUP, OPT_PREPARE, OPT_CLEANUP,
       OPT_RESULTS_DIR, OPT_TIMEOUT, OPT_AA };

static const struct cmd_opt time_opts[] = {
	{ "name", 'n', 1 },
	{ "runs", OPT_RUNS, 1 },
	{ "warmup", OPT_WARMUP, 1 },
	{ "repeats", OPT_REPEATS, 1 },
	{ "setup", OPT_SETUP, 1 },
	{ "prepare", OPT_PREPARE, 1 },
	{ "cleanup", OPT_CLEANUP, 1 },
	{ "no-shell", 'N', 0 },
	{ "ignore-failure", 'i', 0 },
	{ "aa", OPT_AA, 0 },
	{ "timeout", OPT_TIMEOUT, 1 },
	{ "results-dir", OPT_RESULTS_DIR, 1 },
	{ "output", 'o', 1 },
	{ "quiet", 'q', 0 },
	CMD_STATS_OPTS,
	{ NULL, 0, 0 },
};

#define TIME_DEFAULT_RUNS 10
#define TIME_DEFAULT_REPEATS 5

/* The command line as one shell-quoted line, for the experiment's description.  Heap. */
static char *quoted_line(int argc, char **argv)
{
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_adds(&sb, "harness");
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		int plain = *s != '\0';
		for (const char *c = s; *c && plain; c++)
			plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				       "._-/=:,+", *c) != NULL;
		if (plain) {
			sbuf_addf(&sb, " %s", s);
			continue;
		}
		sbuf_adds(&sb, " '");
		for (const char *c = s; *c; c++)
			sbuf_adds(&sb, *c == '\'' ? "'\\''" : (char[2]){ *c, 0 });
		sbuf_adds(&sb, "'");
	}
	return sbuf_detach(&sb);
}

/* A count option: its value, or def when not given; -1 reported as a usage error. */
static int count_opt(const struct cmd_args *a, int key, const char *opt, int64_t lo, int64_t def,
		     int64_t *out)
{
	const char *v = cmd_args_value(a, key);
	*out = def;
	if (v && parse_i64(v, lo, 10000000, out)) {
		cmd_usage_error(a->entry, "%s: '%s' is not a count (%" PRId64 " to 10000000)", opt, v,
				lo);
		return -1;
	}
	return 0;
}

/* The units' sandbox keeps the results folder (the results file's folder) read-only: say
 * so when the commands run inside it (they could not write there). */
static void warn_read_only(const char *cwd, const char *h5)
{
	const char *slash = strrchr(h5, '/');
	char *dir = slash ? xstrndup(h5, (size_t)(slash - h5)) : xstrdup(".");
	char *abs = realpath(*dir ? dir : "/", NULL);
	size_t n = abs ? strlen(abs) : 0;
	if (abs && !strncmp(cwd, abs, n) && (cwd[n] == '/' || cwd[n] == '\0' || n == 1))
		warning("the commands run in '%s', which the results folder '%s' holds: the units' "
			"sandbox keeps it read-only, so they cannot write there (--results-dir or "
			"-o elsewhere)", cwd, abs);
	free(abs);
	free(dir);
}

/* Run the experiment at toml into h5 and print the answer.  The exit status. */
static int run_and_answer(const struct cmd_args *a, const char *toml, const char *h5,
			  const struct report_opts *ro)
{
	struct sched_opts o = { .experiment = toml, .output = h5,
				.quiet = cmd_args_count(a, 'q') > 0, .no_summary = 1,
				.argc = a->argc, .argv = a->argv };
	struct sched_result res;
	enum sched_outcome out = sched_run(&o, &res);
	int ret = out == SCHED_ALL_OK        ? EXIT_OK
		  : out == SCHED_REFUSED     ? EXIT_USAGE
		  : out == SCHED_INTERRUPTED ? EXIT_INTERRUPTED
		  : out == SCHED_TIME_LIMIT  ? EXIT_RESUMABLE
					     : EXIT_RUN_FAILED;
	if (res.results_path && (ret == EXIT_OK || ret == EXIT_RUN_FAILED)) {
		struct analysis *an = NULL;
		struct report *r = NULL;
		struct timesum *s = NULL;
		if (cmd_load_report(res.results_path, ro, &an, &r) ||
		    timesum_build(res.results_path, r, &s) || timesum_write(s, stdout))
			ret = EXIT_RUN_FAILED;
		else if (ret != EXIT_OK)
			printf("      (some units failed: 'harness show %s' lists them, their logs "
			       "say why)\n", res.results_path);
		timesum_free(s);
		report_free(r);
		analysis_free(an);
	}
	sched_result_release(&res);
	return ret;
}

static int time_exec(const struct cmd_args *a)
{
	struct report_opts ro;
	report_opts_init(&ro);
	int rc = cmd_stats_opts(a, &ro);
	if (rc)
		return rc;
	struct timeexp t = { .name = "time", .ncmds = (size_t)a->npos, .no_shell =
				     cmd_args_count(a, 'N') > 0,
			     .ignore_failure = cmd_args_count(a, 'i') > 0, .margin = ro.margin,
			     .aa = cmd_args_count(a, OPT_AA) > 0,
			     .setup = cmd_args_value(a, OPT_SETUP),
			     .prepare = cmd_args_value(a, OPT_PREPARE),
			     .cleanup = cmd_args_value(a, OPT_CLEANUP),
			     .seed = (uint64_t)util_now_ns() % 1000000007 };
	if (count_opt(a, OPT_RUNS, "--runs", 1, TIME_DEFAULT_RUNS, &t.runs) ||
	    count_opt(a, OPT_WARMUP, "--warmup", 0, 0, &t.warmup) ||
	    count_opt(a, OPT_REPEATS, "--repeats", 1, TIME_DEFAULT_REPEATS, &t.repeats))
		return EXIT_USAGE;
	const char *to = cmd_args_value(a, OPT_TIMEOUT);
	if (to && (sched_parse_duration(to, 0, &t.timeout_s) || t.timeout_s <= 0))
		return cmd_usage_error(a->entry, "--timeout: '%s' is not a duration (90, 90s, 15m, "
						 "2h, 1:30:00)", to);
	const char *hooks[] = { t.setup, t.prepare, t.cleanup };
	for (size_t k = 0; k < 3; k++)
		if (hooks[k] && !*hooks[k])
			return cmd_usage_error(a->entry, "--%s: an empty command", k == 0 ? "setup"
						       : k == 1 ? "prepare" : "cleanup");
	/* -n NAME: the k-th names the k-th command */
	struct timeexp_cmd *cmds = xcalloc(t.ncmds, sizeof(*cmds));
	size_t nnames = 0;
	for (size_t i = 0; i < t.ncmds; i++)
		cmds[i].line = a->pos[i];
	for (size_t k = 0; k < a->nopts; k++)
		if (a->opts[k].key == 'n' && nnames++ < t.ncmds)
			cmds[nnames - 1].name = a->opts[k].value;
	t.cmds = cmds;
	char *cwd = getcwd(NULL, 0), *text = NULL, *cause = NULL, *desc = NULL, *h5 = NULL;
	char *toml = NULL;
	rc = EXIT_USAGE;
	if (nnames > t.ncmds) {
		cmd_usage_error(a->entry, "%zu names (-n) for %zu commands", nnames, t.ncmds);
		goto done;
	}
	/* --baseline: a command's name, or its place (1 for the first) */
	const char *base = cmd_args_value(a, CMD_OPT_BASELINE);
	if (base) {
		int64_t k;
		size_t i = 0;
		if (parse_i64(base, 1, (int64_t)t.ncmds, &k) == 0) {
			i = (size_t)k - 1;
		} else {
			while (i < t.ncmds) {
				char *nm = cmds[i].name ? xstrdup(cmds[i].name)
							: timeexp_mode_name(cmds[i].line);
				int same = !strcmp(nm, base);
				free(nm);
				if (same)
					break;
				i++;
			}
		}
		if (i >= t.ncmds) {
			cmd_usage_error(a->entry, "--baseline: '%s' is neither a command's name nor "
						  "its place (1 to %zu)", base, t.ncmds);
			goto done;
		}
		t.baseline = i;
		ro.baseline = NULL; /* the experiment's baseline, as written */
	}
	if (!cwd) {
		error_errno("cannot read the current folder");
		goto done;
	}
	t.workdir = cwd;
	desc = quoted_line(a->argc, a->argv);
	t.description = desc;
	text = timeexp_toml(&t, &cause);
	if (!text) {
		cmd_usage_error(a->entry, "%s", cause);
		goto done;
	}
	/* the results file and, beside it, the experiment file it runs */
	const char *out = cmd_args_value(a, 'o');
	if (out) {
		h5 = xstrdup(out);
		/* its folder, as harness run makes it: the experiment is written there first */
		char *slash = strrchr(h5, '/');
		if (slash && slash != h5) {
			char *dir = xstrndup(h5, (size_t)(slash - h5));
			int bad = util_mkdir_p(dir, 0755);
			free(dir);
			if (bad) {
				rc = EXIT_RUN_FAILED;
				goto done;
			}
		}
	} else {
		const char *rd = cmd_args_value(a, OPT_RESULTS_DIR);
		char stamp[32];
		util_utc_stamp(stamp);
		rd = rd ? rd : "results";
		if (util_mkdir_p(rd, 0755)) {
			rc = EXIT_RUN_FAILED;
			goto done;
		}
		h5 = xasprintf("%s/time-%s.h5", rd, stamp);
	}
	size_t len = strlen(h5);
	toml = len > 3 && !strcmp(h5 + len - 3, ".h5") ? xasprintf("%.*s.toml", (int)len - 3, h5)
						       : xasprintf("%s.toml", h5);
	if (access(toml, F_OK) == 0 || errno != ENOENT) {
		error("'%s' exists: the experiment this run would write (choose another -o)", toml);
		goto done;
	}
	warn_read_only(cwd, h5);
	if (util_write_file(toml, text, strlen(text), 0644)) {
		rc = EXIT_RUN_FAILED;
		goto done;
	}
	if (!cmd_args_count(a, 'q'))
		fprintf(stderr, "harness: the experiment: '%s' (harness run it to do this again)\n",
			toml);
	rc = run_and_answer(a, toml, h5, &ro);
done:
	free(toml);
	free(h5);
	free(text);
	free(cause);
	free(desc);
	free(cwd);
	free(cmds);
	return rc;
}

const struct cmd_entry cmd_time_entry = {
	.name = "time",
	.usage = "time [options] CMD [CMD...]",
	.summary = "time commands as processes, paired by block, each against the first",
	.help = "each CMD is a shell line (sh -c), run in this folder; every block runs each\n"
		"command's unit once, in random order, and a unit runs its command --runs times\n"
		"options:\n"
		"  -n, --name NAME      the next command's name (once per command, in order;\n"
		"                       default: the command's words joined by '-')\n"
		"  --baseline NAME|K    the command the others are compared with (default: 1)\n"
		"  --runs N             timed runs per unit (default 10)\n"
		"  --warmup N           untimed runs per unit before them (default 0)\n"
		"  --repeats B          blocks (default 5; 2 or more for a CI)\n"
		"  --setup CMD          a shell line run once per unit, before its runs\n"
		"  --prepare CMD        a shell line run before each run (untimed)\n"
		"  --cleanup CMD        a shell line run once per unit, after its runs\n"
		"  -N, --no-shell       split each CMD at blanks into a program and its\n"
		"                       arguments (no quoting) and run it without a shell\n"
		"  -i, --ignore-failure a run that exits non-zero is timed, not a failed unit\n"
		"  --aa                 an A/A copy of the baseline (NAME-aa): the same command in\n"
		"                       the same blocks, so the run has a noise floor and can\n"
		"                       call a difference SAME\n"
		"  --timeout DURATION   each unit's deadline (default 10m)\n"
		"  --results-dir DIR    where the run goes (default: results)\n"
		"  -o, --output FILE    the results file's exact path; the experiment file is\n"
		"                       written beside it (FILE without .h5, then .toml)\n"
		"  -q, --quiet          no progress line\n"
		"  --alpha A            test level (default 0.05)\n"
		"  --margin M           a practical margin, written into the experiment\n"
		CMD_DECIDE_HELP
		"  --resamples N        bootstrap resamples (default 10000)\n"
		"  --seed S             bootstrap seed (default 20261121)\n"
		"  -h, --help           this text\n"
		"exit status: 0 every unit ok, 1 some unit not ok (a command failed) or the\n"
		"             run failed, 2 bad input (nothing run), 130 interrupted\n",
	.opts = time_opts,
	.min_args = 1,
	.max_args = -1,
	.flags = 0,
	.exec = time_exec,
};
