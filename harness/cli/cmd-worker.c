/* cmd-worker.c: `harness __worker --spec FILE`, the unit process the scheduler starts
 * (hidden) */
#include "config.h"

#include <stdlib.h>

#include "harness/cli/cmd.h"
#include "harness/record/proto.h"
#include "harness/base/util.h"
#include "harness/run/worker.h"

enum { OPT_SPEC = 256 };

static const struct cmd_opt worker_opts[] = {
	{ "spec", OPT_SPEC, 1 },
	{ NULL, 0, 0 },
};

static int worker_exec(const struct cmd_args *a)
{
	util_progname = "harness worker";
	struct worker_args w = { .spec = cmd_args_value(a, OPT_SPEC), .record_fd = PROTO_FD };
	if (!w.spec)
		w.spec = getenv("HARNESS_UNIT_SPEC");
	if (!w.spec || !*w.spec)
		return cmd_usage_error(a->entry, "the worker needs --spec FILE (or HARNESS_UNIT_SPEC): "
						 "the unit's specification");
	return worker_main(&w) ? EXIT_RUN_FAILED : EXIT_OK;
}

const struct cmd_entry cmd_worker_entry = {
	.name = "__worker",
	.usage = "__worker --spec FILE",
	.summary = "run one unit from its specification (started by 'harness run'; records go to "
		   "file descriptor 3)",
	.help = "",
	.opts = worker_opts,
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_HIDDEN,
	.exec = worker_exec,
};
