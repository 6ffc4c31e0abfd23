/* cmd-report.c: `harness report FILE`: the statistics of a run as markdown, JSON or CSV */
#include "config.h"

#include <math.h>
#include <string.h>

#include "harness/analysis/analysis.h"
#include "harness/cli/cmd.h"
#include "harness/analysis/report.h"
#include "harness/base/util.h"

enum { OPT_FORMAT = 'f' };

static const struct cmd_opt report_opts[] = {
	{ "format", OPT_FORMAT, 1 },
	CMD_STATS_OPTS,
	{ NULL, 0, 0 },
};

/* Shared with cmd-compare.c: the options both take.  Returns 0 or EXIT_USAGE (reported). */
int cmd_report_parse_opts(const struct cmd_args *a, struct report_opts *o,
			  enum report_format *fmt)
{
	report_opts_init(o);
	*fmt = REPORT_MD;
	const char *v;
	if ((v = cmd_args_value(a, OPT_FORMAT))) {
		if (!strcmp(v, "md") || !strcmp(v, "markdown"))
			*fmt = REPORT_MD;
		else if (!strcmp(v, "json"))
			*fmt = REPORT_JSON;
		else if (!strcmp(v, "csv"))
			*fmt = REPORT_CSV;
		else if (!strcmp(v, "html") && a->entry == &cmd_report_entry)
			*fmt = REPORT_HTML; /* report only: compare has no HTML form */
		else if (a->entry == &cmd_report_entry)
			return cmd_usage_error(a->entry, "--format must be md, json or csv (or html), not '%s'", v);
		else
			return cmd_usage_error(a->entry, "--format must be md, json or csv, not '%s'", v);
	}
	return cmd_stats_opts(a, o);
}

int cmd_stats_opts(const struct cmd_args *a, struct report_opts *o)
{
	const char *v;
	o->baseline = cmd_args_value(a, CMD_OPT_BASELINE);
	if ((v = cmd_args_value(a, CMD_OPT_ALPHA)) && parse_double(v, 1e-6, 0.5, &o->alpha))
		return cmd_usage_error(a->entry, "--alpha must be a number in (0, 0.5], not '%s'", v);
	if ((v = cmd_args_value(a, CMD_OPT_MARGIN)) &&
	    (parse_double(v, 0, 0.5, &o->margin) || !(o->margin > 0)))
		return cmd_usage_error(a->entry, "--margin must be a number in (0, 0.5), not '%s'", v);
	int64_t n;
	if ((v = cmd_args_value(a, CMD_OPT_NBOOT))) {
		if (parse_i64(v, 1000, 10000000, &n))
			return cmd_usage_error(a->entry, "--resamples must be an integer from 1000 to 10^7, not '%s'", v);
		o->nboot = (size_t)n;
	}
	if ((v = cmd_args_value(a, CMD_OPT_SEED)) && parse_u64(v, &o->seed))
		return cmd_usage_error(a->entry, "--seed must be a non-negative integer, not '%s'", v);
	return 0;
}

static int report_exec(const struct cmd_args *a)
{
	struct report_opts o;
	enum report_format fmt;
	int rc = cmd_report_parse_opts(a, &o, &fmt);
	if (rc)
		return rc;
	struct analysis *an = NULL;
	struct report *r = NULL;
	if (analysis_load(a->pos[0], &an))
		return EXIT_USAGE;
	if (report_build(an, &o, &r)) {
		analysis_free(an);
		return EXIT_USAGE;
	}
	rc = report_write(r, fmt, stdout) ? EXIT_RUN_FAILED : EXIT_OK;
	report_free(r);
	analysis_free(an);
	return rc;
}

const struct cmd_entry cmd_report_entry = {
	.name = "report",
	.usage = "report [options] RESULTS.h5",
	.summary = "paired comparisons, CIs, verdicts, aggregates, Pareto, A/A, drift",
	.help = "options:\n"
		"  -f, --format FMT     md (default), json, csv (the comparisons table) or html\n"
		"                       (one self-contained file with the figures, docs/plots.md)\n"
		"  --baseline MODE      compare against MODE (default: the experiment's baseline)\n"
		"  --alpha A            test level, Holm-adjusted across the report (default 0.05)\n"
		"  --margin M           equivalence margin, e.g. 0.02 for +-2% (default: the\n"
		"                       experiment's, else the A/A noise floor, else 0.01)\n"
		"  --resamples N        bootstrap resamples (default 10000)\n"
		"  --seed S             bootstrap seed (default 20261121; recorded in the report)\n"
		"  -h, --help           this text\n",
	.opts = report_opts,
	.min_args = 1,
	.max_args = 1,
	.flags = 0,
	.exec = report_exec,
};
