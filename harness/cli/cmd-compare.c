/* cmd-compare.c: `harness compare A.h5 B.h5`: the same cells and modes across two runs */
#include "config.h"

#include "harness/analysis/analysis.h"
#include "harness/cli/cmd.h"
#include "harness/analysis/report.h"
#include "harness/base/util.h"
#include "harness/output/write.h"

enum { OPT_FORMAT = 'f' };

static const struct cmd_opt compare_opts[] = {
	{ "format", OPT_FORMAT, 1 },
	CMD_STATS_OPTS,
	{ NULL, 0, 0 },
};

static int compare_exec(const struct cmd_args *a)
{
	struct report_opts o;
	enum report_format fmt;
	int rc = cmd_report_parse_opts(a, &o, &fmt);
	if (rc)
		return rc;
	struct analysis *x = NULL, *y = NULL;
	struct run_compare *c = NULL;
	rc = EXIT_USAGE;
	if (analysis_load(a->pos[0], &x) || analysis_load(a->pos[1], &y) ||
	    run_compare_build(x, y, &o, &c))
		goto done;
	rc = run_compare_write(c, fmt, stdout) ? EXIT_RUN_FAILED : EXIT_OK;
done:
	run_compare_free(c);
	analysis_free(x);
	analysis_free(y);
	return rc;
}

const struct cmd_entry cmd_compare_entry = {
	.name = "compare",
	.usage = "compare [options] A.h5 B.h5",
	.summary = "the same cells and modes across two runs (unpaired): B against A",
	.help = "options:\n"
		"  -f, --format FMT     md (default), json or csv\n"
		"  --alpha A            test level, adjusted across the rows (default 0.05)\n"
		"  --margin M           a declared practical margin (default: A's experiment's,\n"
		"                       else none: each row's noise floor in A)\n"
		CMD_DECIDE_HELP
		"  --resamples N        bootstrap resamples (default 10000)\n"
		"  --seed S             bootstrap seed (default 20261121)\n"
		"  -h, --help           this text\n",
	.opts = compare_opts,
	.min_args = 2,
	.max_args = 2,
	.flags = 0,
	.exec = compare_exec,
};
