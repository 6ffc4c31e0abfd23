/* cmd-merge.c: `harness merge SHARDS... -o OUT.h5`: one results file from the shards of one
 * plan (harness slurm's tasks), every unit once, each shard's provenance recorded */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "harness/base/util.h"
#include "harness/cli/cmd.h"
#include "harness/record/recorder.h"

enum { OPT_SUBMISSION = 256 };

static const struct cmd_opt merge_opts[] = {
	{ "output", 'o', 1 },
	{ "submission", OPT_SUBMISSION, 1 },
	{ NULL, 0, 0 },
};

static int merge_exec(const struct cmd_args *a)
{
	const char *out = cmd_args_value(a, 'o');
	if (!out)
		return cmd_usage_error(a->entry, "'merge' needs the merged file: -o OUT.h5");
	if (access(out, F_OK) == 0) {
		error("'%s' already exists; not overwriting it", out);
		return EXIT_USAGE;
	}
	int rc = rec_merge((const char *const *)a->pos, (size_t)a->npos,
			   cmd_args_value(a, OPT_SUBMISSION), out);
	if (rc == -2)
		return EXIT_USAGE;
	if (rc < 0)
		return EXIT_RUN_FAILED;
	printf("merged %d shard%s into '%s'\n", a->npos, a->npos == 1 ? "" : "s", out);
	return EXIT_OK;
}

const struct cmd_entry cmd_merge_entry = {
	.name = "merge",
	.usage = "merge SHARD.h5... -o OUT.h5",
	.summary = "merge the shards of one plan (harness slurm's tasks) into one results file",
	.help = "options:\n"
		"  -o, --output FILE    the merged results file (never replaced)\n"
		"  --submission FILE    the submission record (default: submission.h5 beside\n"
		"                       the first shard): the experiment, hypotheses and their\n"
		"                       git state as they were at submission\n"
		"  -h, --help           this text\n"
		"Each SHARD is a shard's results file or its run folder (the journal is read).\n"
		"Every shard must have the same experiment SHA-256, seed and plan, a shard\n"
		"number of its own and the same submission id (harness slurm makes one per\n"
		"submission; harness run --shard K/N --submission ID by hand); every unit goes\n"
		"in once.\n"
		"exit status: 0 merged, 1 the merged file could not be written,\n"
		"             2 the shards are not of one plan or one submission, or unreadable\n"
		"             (nothing written)\n",
	.opts = merge_opts,
	.min_args = 1,
	.max_args = -1,
	.flags = 0,
	.exec = merge_exec,
};
