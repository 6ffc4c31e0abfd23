/* cmd-worker.c: `harness __worker`, the unit process the scheduler starts (hidden) */
#include "config.h"

#include <stdlib.h>

#include "harness/cli/cmd.h"
#include "harness/record/proto.h"
#include "harness/base/util.h"
#include "harness/run/worker.h"

enum { OPT_EXPERIMENT = 256, OPT_MODE, OPT_UNIT, OPT_BACKEND, OPT_CACHE, OPT_WORKLOAD };

static const struct cmd_opt worker_opts[] = {
	{ "experiment", OPT_EXPERIMENT, 1 },
	{ "mode", OPT_MODE, 1 },
	{ "unit", OPT_UNIT, 1 },
	{ "backend", OPT_BACKEND, 1 },
	{ "cache-dir", OPT_CACHE, 1 },
	{ "workload", OPT_WORKLOAD, 1 },
	{ NULL, 0, 0 },
};

static int worker_exec(const struct cmd_args *a)
{
	util_progname = "harness worker";
	struct worker_args w = {
		.experiment = cmd_args_value(a, OPT_EXPERIMENT),
		.mode = cmd_args_value(a, OPT_MODE),
		.backend = cmd_args_value(a, OPT_BACKEND),
		.cache_dir = cmd_args_value(a, OPT_CACHE),
		.workload = cmd_args_value(a, OPT_WORKLOAD),
		.record_fd = PROTO_FD,
	};
	const char *unit = cmd_args_value(a, OPT_UNIT);
	if (!w.experiment || !w.mode || !w.backend || !w.cache_dir || !unit)
		return cmd_usage_error(a->entry, "the worker needs --experiment, --mode, --unit, "
						 "--backend and --cache-dir");
	if (parse_i64(unit, 0, INT64_MAX, &w.unit))
		return cmd_usage_error(a->entry, "bad unit id '%s'", unit);
	return worker_main(&w) ? EXIT_RUN_FAILED : EXIT_OK;
}

const struct cmd_entry cmd_worker_entry = {
	.name = "__worker",
	.usage = "__worker --experiment FILE --mode NAME --unit N --backend NAME --cache-dir DIR "
		 "[--workload NAME]",
	.summary = "run one unit (started by 'harness run'; records go to file descriptor 3)",
	.help = "",
	.opts = worker_opts,
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_HIDDEN,
	.exec = worker_exec,
};
