/* cmd-help.c: `harness help [COMMAND]`: the command list, or one command's usage */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "harness/cli/cmd.h"
#include "harness/base/util.h"

static int help_exec(const struct cmd_args *a)
{
	if (a->npos == 1) {
		const struct cmd_entry *e = cmd_lookup(a->pos[0]);
		if (!e)
			return EXIT_USAGE;
		cmd_usage(e, stdout);
		return EXIT_OK;
	}
	printf("usage: harness <command> [options] [args]\n\n"
	       "harness %s: a statistical benchmarking harness and experiment recorder for\n"
	       "autotuning research.\n\ncommands:\n", PACKAGE_VERSION);
	int w = 0; /* the names' column: as wide as the longest shown */
	for (size_t i = 0; cmd_table[i]; i++)
		if (!(cmd_table[i]->flags & CMD_HIDDEN) && (int)strlen(cmd_table[i]->name) > w)
			w = (int)strlen(cmd_table[i]->name);
	for (size_t i = 0; cmd_table[i]; i++) {
		const struct cmd_entry *e = cmd_table[i];
		if (!(e->flags & CMD_HIDDEN))
			printf("  %-*s %s\n", w, e->name, e->summary);
	}
	printf("\noptions:\n  --version  print the version and exit\n  --help     this text\n\n"
	       "exit status: 0 ok, 1 the run failed (audit: a check failed), 2 usage or input\n"
	       "error, 3 a pre-registered primary hypothesis was falsified (verify), 75 stopped by\n"
	       "--max-time (resumable), 130 interrupted\n"
	       "'harness help COMMAND' shows a command's options; see also harness(1).\n");
	return EXIT_OK;
}

const struct cmd_entry cmd_help_entry = {
	.name = "help",
	.usage = "help [COMMAND]",
	.summary = "list the commands, or show one command's options",
	.help = "",
	.min_args = 0,
	.max_args = 1,
	.flags = 0,
	.exec = help_exec,
};

/* `harness __table`: the command table in a machine-readable form, for tests/cli/manpage.sh
 * (which checks docs/harness.1 against it).  One line per listed command, tab-separated:
 * the name, the least and most positional arguments (-1: no limit), then every option the
 * entry declares, "--name", "-c,--name" or "-c" (short, long, or both), with "=" appended
 * when it takes a value. */
static int table_exec(const struct cmd_args *a)
{
	(void)a;
	for (size_t i = 0; cmd_table[i]; i++) {
		const struct cmd_entry *e = cmd_table[i];
		if (e->flags & CMD_HIDDEN)
			continue;
		printf("%s\t%d\t%d", e->name, e->min_args, e->max_args);
		for (const struct cmd_opt *o = e->opts; o && o->key; o++) {
			putchar('\t');
			if (o->key < 256)
				printf("-%c%s", o->key, o->name ? "," : "");
			if (o->name)
				printf("--%s", o->name);
			if (o->has_arg)
				putchar('=');
		}
		putchar('\n');
	}
	return EXIT_OK;
}

const struct cmd_entry cmd_table_entry = {
	.name = "__table",
	.usage = "__table",
	.summary = "print the command table, one command a line (for the tests)",
	.help = "",
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_HIDDEN,
	.exec = table_exec,
};
