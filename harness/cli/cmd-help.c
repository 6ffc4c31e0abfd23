/* cmd-help.c: `harness help [COMMAND]`: the command list, or one command's usage */
#include "config.h"

#include <stdio.h>

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
	for (size_t i = 0; cmd_table[i]; i++) {
		const struct cmd_entry *e = cmd_table[i];
		if (!(e->flags & CMD_HIDDEN))
			printf("  %-8s %s\n", e->name, e->summary);
	}
	printf("\noptions:\n  --version  print the version and exit\n  --help     this text\n\n"
	       "exit status: 0 ok, 1 the run failed (audit: a check failed), 2 usage or input\n"
	       "error, 3 a pre-registered primary hypothesis was falsified (verify), 130 interrupted\n"
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
