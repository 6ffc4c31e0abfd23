/* cmd-import.c: `harness import --csv FILE -o OUT.h5`: raw timings from CSV into a results file */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "harness/cli/cmd.h"
#include "harness/record/csvimport.h"
#include "harness/base/util.h"

enum { OPT_CSV = 256, OPT_UNIT, OPT_NAME };

static const struct cmd_opt import_opts[] = {
	{ "csv", OPT_CSV, 1 },
	{ "output", 'o', 1 },
	{ "unit", OPT_UNIT, 1 },
	{ "name", OPT_NAME, 1 },
	{ NULL, 0, 0 },
};

/* Check the command line, parse and validate the whole CSV file in memory (any error:
 * EXIT_USAGE, nothing written), then write the results file (a failure there:
 * EXIT_RUN_FAILED, nothing left behind). */
static int import_exec(const struct cmd_args *a)
{
	const struct cmd_entry *e = a->entry;
	struct csvimport_opts o = {
		.unit = cmd_args_value(a, OPT_UNIT),
		.name = cmd_args_value(a, OPT_NAME),
	};
	const char *csv = cmd_args_value(a, OPT_CSV), *out = cmd_args_value(a, 'o');
	struct csvimport *imp = NULL;
	struct stat st;

	if (!csv)
		return cmd_usage_error(e, "'import' needs --csv FILE");
	if (!out)
		return cmd_usage_error(e, "'import' needs -o FILE (the results file to write)");
	if (cmd_args_count(a, OPT_CSV) > 1 || cmd_args_count(a, 'o') > 1 ||
	    cmd_args_count(a, OPT_UNIT) > 1 || cmd_args_count(a, OPT_NAME) > 1)
		return cmd_usage_error(e, "--csv, -o, --unit and --name may each be given once");
	if (o.unit && !csvimport_unit_ns(o.unit))
		return cmd_usage_error(e, "--unit '%s' is not a time unit (ns, us, ms or s)", o.unit);
	if (o.name && !*o.name)
		return cmd_usage_error(e, "--name must not be empty");
	if (lstat(out, &st) == 0) {
		error("'%s': already exists; not overwriting it", out);
		return EXIT_USAGE;
	}
	if (errno != ENOENT) {
		error_errno("cannot check '%s'", out);
		return EXIT_USAGE;
	}
	if (csvimport_read(csv, &o, &imp))
		return EXIT_USAGE;
	int ret = EXIT_RUN_FAILED;
	if (csvimport_write(imp, out) == 0) {
		printf("'%s': %zu units (%zu modes), %zu cells, %zu samples; baseline '%s'\n", out,
		       imp->nunits, imp->nmodes, imp->ncells, imp->nrows, imp->modes[imp->baseline]);
		ret = EXIT_OK;
	}
	csvimport_free(imp);
	return ret;
}

const struct cmd_entry cmd_import_entry = {
	.name = "import",
	.usage = "import --csv FILE -o OUT.h5 [--unit ns|us|ms|s] [--name NAME]",
	.summary = "turn raw timings from a CSV file into a results file (docs/import-format.md)",
	.help = "options:\n"
		"  --csv FILE          the CSV file: columns cell, mode, block (or repeat), value,\n"
		"                      and optionally unit, setup, baseline, kind\n"
		"  -o, --output FILE   the results file to write; never overwritten\n"
		"  --unit U            the time unit of every value and setup: ns, us, ms or s\n"
		"                      (for a file without a 'unit' column)\n"
		"  --name NAME         the experiment name to record (default: the CSV file's\n"
		"                      name without its extension)\n"
		"  -h, --help          this text\n"
		"exit status: 0 written, 1 the results file could not be written, 2 bad command\n"
		"line or bad CSV file (the message names the line and column); nothing is left\n"
		"behind unless the status is 0\n",
	.opts = import_opts,
	.min_args = 0,
	.max_args = 0,
	.flags = 0,
	.exec = import_exec,
};
