/* cmd-check.c: `harness check FILE...`: validate experiment files without running anything */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "harness/cli/cmd.h"
#include "harness/config/experiment.h"
#include "harness/base/util.h"

/* Load each file in turn (schema, ranges, catalog, tuners, hypothesis paths); print one
 * "ok" line per valid file on stdout.  The first invalid file's error goes to stderr (by
 * experiment_load) and ends the command with EXIT_USAGE: nothing was run or written. */
static int check_exec(const struct cmd_args *a)
{
	for (int i = 0; i < a->npos; i++) {
		const char *path = a->pos[i];
		struct experiment *e = NULL;
		if (experiment_load(path, &e))
			return EXIT_USAGE;
		printf("'%s': ok (%zu modes, %zu workloads, %" PRId64 " repeats)\n", path,
		       e->nmodes, e->nworkloads, e->repeats);
		experiment_free(e);
		/* keep the ok lines in step with a later file's error on stderr */
		if (fflush(stdout) != 0) {
			error_errno("cannot write to standard output");
			return EXIT_RUN_FAILED;
		}
	}
	return EXIT_OK;
}

const struct cmd_entry cmd_check_entry = {
	.name = "check",
	.usage = "check FILE...",
	.summary = "validate experiment files without running anything",
	.help = "  -h, --help   show this help\n",
	.opts = NULL,
	.min_args = 1,
	.max_args = -1,
	.flags = 0,
	.exec = check_exec,
};
