/* cmd.h: the subcommand table.
 *
 * Adding a subcommand:
 *   1. write harness/cmd-<name>.c with static helpers and one exported
 *      `const struct cmd_entry cmd_<name>_entry` (name, usage, summary, arity, flags, exec);
 *   2. add it to cmd_table[] in cmd.c and to harness_SOURCES in Makefile.am;
 *   3. document it in docs/harness.1 and the help text (cmd-help.c prints the table);
 *   4. add a CLI test in tests/cli/.
 * The dispatcher checks arity and parses the common options before exec runs; exec gets
 * argv with the subcommand name at argv[0] and returns an exit code (enum harness_exit). */
#ifndef HARNESS_CMD_H
#define HARNESS_CMD_H

#include <stdio.h>

/* Documented exit codes (docs/harness.1, EXIT STATUS). */
enum harness_exit {
	EXIT_OK = 0,        /* success */
	EXIT_RUN_FAILED = 1,/* the run (or a unit's infrastructure) failed, or output could not be written */
	EXIT_USAGE = 2,     /* bad command line or bad input file; nothing was run or written */
	EXIT_INTERRUPTED = 130 /* stopped by SIGINT/SIGTERM after recording what had finished */
};

#define CMD_HIDDEN 0x1      /* not listed in help (the worker role) */

struct cmd_entry {
	const char *name;
	const char *usage;    /* "run [options] EXPERIMENT" */
	const char *summary;  /* one line for `harness help` */
	const char *help;     /* the options, one per line, for `harness help NAME` / -h */
	int min_args, max_args; /* positional arguments after options; -1: unlimited */
	unsigned flags;
	int (*exec)(int argc, char **argv);
};

extern const struct cmd_entry *const cmd_table[]; /* NULL-terminated */

/* Look a command up by exact name or unique prefix; NULL and a message when none. */
const struct cmd_entry *cmd_lookup(const char *name);
/* Run argv[0] as a subcommand; returns the exit code. */
int cmd_dispatch(int argc, char **argv);
/* Print "usage: harness <usage>" and the help text to f. */
void cmd_usage(const struct cmd_entry *e, FILE *f);
/* For exec functions: report a usage error (message + usage on stderr) and return EXIT_USAGE. */
int cmd_usage_error(const struct cmd_entry *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Count of positional args check, used by exec after getopt: returns 0 or EXIT_USAGE reported. */
int cmd_check_arity(const struct cmd_entry *e, int npos);

#endif
