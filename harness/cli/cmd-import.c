/* cmd-import.c: `harness import --csv FILE -o OUT.h5`: raw timings from CSV into a results
 * file; `--kernel-tuner CACHE` and `--t4 FILE`: the field's brute-forced tuning data */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "harness/cli/cmd.h"
#include "harness/record/cacheimport.h"
#include "harness/record/csvimport.h"
#include "harness/base/util.h"

enum { OPT_CSV = 256, OPT_UNIT, OPT_NAME, OPT_KT, OPT_T4, OPT_KERNEL, OPT_DEVICE };

static const struct cmd_opt import_opts[] = {
	{ "csv", OPT_CSV, 1 },
	{ "kernel-tuner", OPT_KT, 1 },
	{ "t4", OPT_T4, 1 },
	{ "kernel", OPT_KERNEL, 1 },
	{ "device", OPT_DEVICE, 1 },
	{ "output", 'o', 1 },
	{ "unit", OPT_UNIT, 1 },
	{ "name", OPT_NAME, 1 },
	{ NULL, 0, 0 },
};

/* A tuning cache: read in pieces, checked, written; the checks' findings as warnings. */
static int import_cache(const struct cmd_args *a, const char *in, enum cacheimport_format fmt,
			const char *out)
{
	struct cacheimport_opts o = {
		.format = fmt,
		.name = cmd_args_value(a, OPT_NAME),
		.kernel = cmd_args_value(a, OPT_KERNEL),
		.device = cmd_args_value(a, OPT_DEVICE),
		.tolerance = 0.01,
	};
	struct cacheimport_summary s;
	int r = cacheimport(in, &o, out, &s);
	if (r) {
		cacheimport_summary_release(&s);
		return r == 2 ? EXIT_USAGE : EXIT_RUN_FAILED;
	}
	printf("'%s': %zu configurations of %zu parameters (grid %s): %zu ok, %zu compile "
	       "errors, %zu runtime failures, %zu invalid, %zu incorrect; %zu samples\n", out,
	       s.configs, s.fields, s.grid, s.ok, s.compile_failed, s.runtime_failed, s.invalid,
	       s.incorrect, s.samples);
	if (s.best_config)
		printf("fastest ok: %s, median %.6g ms\n", s.best_config, s.best_ns / 1e6);
	if (s.stored_off)
		warning("'%s': the stored time of %zu of %zu configurations differs from the mean "
			"of their samples by more than 1%% (at most %.1f%%; it matches the mean in "
			"%zu, the median in %zu): the source's objective is not its samples' mean; "
			"replay scores the samples (--objective)", in, s.stored_off,
			s.stored_checked, 100 * s.stored_worst, s.stored_mean, s.stored_median);
	if (s.first_checked && (double)s.first_high > 3 * s.first_expected &&
	    s.first_high * 20 > s.first_checked)
		warning("'%s': in %zu of %zu configurations the first sample is the largest and "
			"5%% over the rest's median (at most %.0f by chance, 1 in n samples): warm-up "
			"left in the samples", in, s.first_high, s.first_checked, s.first_expected);
	cacheimport_summary_release(&s);
	return EXIT_OK;
}

/* Check the command line, parse and validate the whole CSV file, read in pieces (any error,
 * an export's set that its manifest does not vouch for included: EXIT_USAGE, nothing
 * written), then write the results file (a failure there: EXIT_RUN_FAILED, nothing left
 * behind). */
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

	const char *kt = cmd_args_value(a, OPT_KT), *t4 = cmd_args_value(a, OPT_T4);
	if (!!csv + !!kt + !!t4 != 1)
		return cmd_usage_error(e, "'import' needs one of --csv FILE, --kernel-tuner CACHE "
				       "and --t4 FILE");
	if (!out)
		return cmd_usage_error(e, "'import' needs -o FILE (the results file to write)");
	static const int once[] = { OPT_CSV, 'o', OPT_UNIT, OPT_NAME, OPT_KT, OPT_T4, OPT_KERNEL,
				    OPT_DEVICE };
	for (size_t i = 0; i < ARRAY_SIZE(once); i++)
		if (cmd_args_count(a, once[i]) > 1)
			return cmd_usage_error(e, "each option may be given once");
	if (!csv && o.unit)
		return cmd_usage_error(e, "--unit is for --csv (a cache says its own unit)");
	if (csv && (cmd_args_value(a, OPT_KERNEL) || cmd_args_value(a, OPT_DEVICE)))
		return cmd_usage_error(e, "--kernel and --device are for a tuning cache");
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
	if (!csv)
		return import_cache(a, kt ? kt : t4, kt ? CACHE_KERNEL_TUNER : CACHE_T4, out);
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
	.usage = "import (--csv FILE [--unit ns|us|ms|s] | --kernel-tuner CACHE | --t4 FILE\n"
		 "              [--kernel NAME] [--device NAME]) -o OUT.h5 [--name NAME]",
	.summary = "turn raw timings from a CSV file, or a Kernel Tuner or T4 tuning cache, into a "
		   "results file (docs/import-format.md)",
	.help = "options:\n"
		"  --csv FILE          the CSV file (any size, read in pieces): columns cell, mode,\n"
		"                      block (or repeat), value, and optionally unit, setup,\n"
		"                      baseline, kind, count; an export's samples.csv is checked\n"
		"                      against its set's manifest.csv first\n"
		"  --kernel-tuner CACHE  a Kernel Tuner cache file (.json, or .json.gz): every\n"
		"                      configuration it measured, its samples and times, its space\n"
		"  --t4 FILE           a T4 results file (the AutoTuning Association's schema,\n"
		"                      .json or .json.gz)\n"
		"  --kernel NAME       the kernel's name where the file has none (T4)\n"
		"  --device NAME       the device where the file names none (T4)\n"
		"  -o, --output FILE   the results file to write; never overwritten\n"
		"  --unit U            the time unit of every value and setup: ns, us, ms or s\n"
		"                      (for a file without a 'unit' column)\n"
		"  --name NAME         the experiment (a cache: the workload) name to record\n"
		"                      (default: the file's name without its extensions)\n"
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
