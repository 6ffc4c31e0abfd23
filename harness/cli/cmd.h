/* cmd.h: the subcommand table and the dispatcher that enforces it.
 *
 * Adding a subcommand:
 *   1. write harness/cmd-<name>.c with static helpers and one exported
 *      `const struct cmd_entry cmd_<name>_entry` (name, usage, summary, help, options,
 *      arity, flags, exec);
 *   2. add it to cmd_table[] in cmd.c, declare it below, and add the file to
 *      libharness_a_SOURCES in Makefile.am;
 *   3. document it in docs/harness.1: its synopsis lists every long option and --format
 *      value (tests/cli/manpage.sh checks it against `harness __table`); the help text
 *      comes from the entry itself;
 *   4. add a CLI test in tests/cli/.
 * The dispatcher parses the options the entry declares (getopt_long), before or after the
 * positional arguments, with "--" ending the options; answers -h/--help with the usage on
 * stdout (exit 0), rejects unknown options and wrong arity with the usage on stderr (exit 2),
 * and only then calls exec with the parsed arguments.  exec returns an exit code (enum
 * harness_exit) and never calls exit(); cmd_main checks stdout on close whatever it returns. */
#ifndef HARNESS_CMD_H
#define HARNESS_CMD_H

#include <stddef.h>
#include <stdio.h>

#include "harness/analysis/report.h"
#include "harness/output/write.h"

/* Documented exit codes (docs/harness.1, EXIT STATUS). */
enum harness_exit {
	EXIT_OK = 0,           /* success */
	EXIT_RUN_FAILED = 1,   /* the run failed, or output could not be written */
	EXIT_USAGE = 2,        /* bad command line or bad input file; nothing was run or written */
	EXIT_FALSIFIED = 3,    /* verify: a pre-registered primary hypothesis was FALSIFIED */
	EXIT_MISMEASURED = 4,  /* run: every unit ok, but the audit found a mode that did not
				* measure what it names (audit_mismeasures) */
	EXIT_RESUMABLE = 75,   /* run --max-time: stopped before a unit that could not finish in
				* time, what had finished recorded (EX_TEMPFAIL: --resume it) */
	EXIT_INTERRUPTED = 130 /* stopped by SIGINT/SIGTERM after recording what had finished */
};

#define CMD_HIDDEN 0x1 /* not listed in help (the worker role) */

/* The statistics options report, compare, plot, verify and audit share: one set of keys
 * and one parser (cmd_stats_opts() in cmd-stats.c, declared below).  A command puts
 * CMD_STATS_OPTS in its option table and numbers its own long-only options from
 * CMD_OPT_OWN. */
enum {
	CMD_OPT_BASELINE = 256,
	CMD_OPT_ALPHA,
	CMD_OPT_MARGIN,
	CMD_OPT_NBOOT,
	CMD_OPT_SEED,
	CMD_OPT_REPO,
	CMD_OPT_TEST,
	CMD_OPT_ADJUST,
	CMD_OPT_FAMILY,
	CMD_OPT_OWN
};
#define CMD_STATS_OPTS                                                                  \
	{ "baseline", CMD_OPT_BASELINE, 1 }, { "alpha", CMD_OPT_ALPHA, 1 },                \
		{ "margin", CMD_OPT_MARGIN, 1 }, { "resamples", CMD_OPT_NBOOT, 1 },         \
		{ "seed", CMD_OPT_SEED, 1 }, { "test", CMD_OPT_TEST, 1 },                   \
		{ "adjust", CMD_OPT_ADJUST, 1 }, { "family", CMD_OPT_FAMILY, 1 }
/* The help lines of the deciding options of CMD_STATS_OPTS (--test, --adjust, --family),
 * for each command's help text. */
#define CMD_DECIDE_HELP                                                                   \
	"  --test T             the deciding test on log ratios: t (Student's, the\n"       \
	"                       default), trimmed-t (20% cut from each end), or\n"         \
	"                       signed-rank (p >= 2/2^n)\n"                                \
	"  --adjust A           the per-cell families' adjustment: bh (default), by, holm\n" \
	"  --family F           one family of cells per run (default) or per workload\n"
/* --repo DIR, for the commands that judge hypothesis files (verify, audit, report): read by
 * cmd_stats_opts into report_opts.repo. */
#define CMD_REPO_OPT { "repo", CMD_OPT_REPO, 1 }

/* One option a command accepts.  key: the short option character, or a value >= 256 for a
 * long-only option.  name: the long name without "--" (NULL: short only). */
struct cmd_opt {
	const char *name;
	int key;
	int has_arg; /* 0: a flag; 1: takes a value */
};

/* What the dispatcher hands to exec.  Everything is borrowed from argv and the table, and
 * lives until exec returns. */
struct cmd_args {
	const struct cmd_entry *entry;
	int argc;             /* the whole command line, as given to main (for a command that */
	char **argv;          /* records it); argv[1] is the command's name as typed */
	int npos;
	char **pos;           /* positional arguments, in command-line order */
	size_t nopts;
	struct cmd_optval {
		int key;
		const char *value; /* NULL for flags */
	} *opts;              /* in command-line order */
};
/* The value of the last occurrence of option key, or NULL. */
const char *cmd_args_value(const struct cmd_args *a, int key);
/* How many times option key was given. */
int cmd_args_count(const struct cmd_args *a, int key);

struct cmd_entry {
	const char *name;
	const char *usage;         /* "run [options] EXPERIMENT" */
	const char *summary;       /* one line for `harness help` */
	const char *help;          /* the options, one per line ("  -q, --quiet   ...\n") */
	const struct cmd_opt *opts; /* terminated by an entry with key 0; may be NULL */
	int min_args, max_args;    /* positional arguments; max -1: unlimited */
	unsigned flags;
	int (*exec)(const struct cmd_args *a);
};

extern const struct cmd_entry *const cmd_table[]; /* NULL-terminated */
extern const struct cmd_entry cmd_run_entry, cmd_check_entry, cmd_show_entry, cmd_help_entry,
	cmd_worker_entry, cmd_report_entry, cmd_compare_entry, cmd_import_entry, cmd_export_entry, cmd_audit_entry, cmd_verify_entry, cmd_plot_entry,
	cmd_replay_entry, cmd_table_entry, cmd_slurm_entry, cmd_merge_entry,
	cmd_selftest_unit_entry, cmd_time_entry;

/* Look a command up by exact name or unique prefix; reports and returns NULL when none. */
const struct cmd_entry *cmd_lookup(const char *name);
/* Parse main's argv (argv[1] is the command name) against the table and run it. */
int cmd_dispatch(int argc, char **argv);
/* The whole program: global options, dispatch, and the final stdout check. */
int cmd_main(int argc, char **argv);
/* Print "usage: harness <usage>", the summary and the help text to f. */
void cmd_usage(const struct cmd_entry *e, FILE *f);
/* Report a usage error (message, then the usage line, on stderr); returns EXIT_USAGE. */
int cmd_usage_error(const struct cmd_entry *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* cmd-stats.c: the statistics options (CMD_STATS_OPTS) into o, which the caller has
 * initialized (report_opts_init); 0 or EXIT_USAGE (reported). */
int cmd_stats_opts(const struct cmd_args *a, struct report_opts *o);
/* cmd-stats.c: the results file at path read (analysis_load) and its report built with o
 * (report_build); a failure in either is a bad input.  EXIT_OK with *an and *r the caller's
 * (report_free, then analysis_free), or EXIT_USAGE (reported) with both NULL. */
int cmd_load_report(const char *path, const struct report_opts *o, struct analysis **an,
		    struct report **r);
/* cmd-report.c: report's and compare's --format (-f), then the statistics options, into
 * *fmt and o (initialized here); 0 or EXIT_USAGE (reported). */
int cmd_report_parse_opts(const struct cmd_args *a, struct report_opts *o,
			  enum report_format *fmt);
struct experiment;
struct exp_edits;
/* cmd-check.c: load the experiment file at path with the run's edits ed (NULL: none;
 * experiment_load_edits: schema, ranges,
 * hypothesis paths), read and parse every hypothesis file it names (hyp_file_load) and
 * check the modes, baselines and workloads those name against the experiment, so that
 * `check` and `run` refuse a bad one (not a regular file, too large, not a hypothesis
 * file, a name the experiment lacks: the error names the file, with line:col where there
 * is one) before anything is written.  0 and *out (the caller's, experiment_free), or -1
 * reported with *out NULL. */
int cmd_load_experiment(const char *path, const struct exp_edits *ed, struct experiment **out);
/* Flush, check and close stdout; on a write error reports it and returns code, or
 * EXIT_RUN_FAILED when code is EXIT_OK.  Called once, by cmd_main, on every exit path. */
int cmd_finish_stdout(int code);

#endif
