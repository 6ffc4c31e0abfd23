/* cmd-stats.c: the statistics options every command that builds a report takes
 * (CMD_STATS_OPTS in cmd.h: --baseline, --alpha, --margin, --resamples, --seed, --test,
 * --adjust, --family), and the
 * report those commands build from a results file */
#include "config.h"

#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/analysis/analysis.h"
#include "harness/analysis/report.h"
#include "harness/base/util.h"
#include "harness/cli/cmd.h"

int cmd_stats_opts(const struct cmd_args *a, struct report_opts *o)
{
	const char *v;
	o->baseline = cmd_args_value(a, CMD_OPT_BASELINE);
	if ((v = cmd_args_value(a, CMD_OPT_ALPHA)) && parse_double(v, 1e-6, 0.5, &o->alpha))
		return cmd_usage_error(a->entry, "--alpha must be a number in (0, 0.5], not '%s'", v);
	o->alpha_given = v != NULL;
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
	if ((v = cmd_args_value(a, CMD_OPT_TEST)) && stats_test_parse(v, &o->test))
		return cmd_usage_error(a->entry, "--test must be t, trimmed-t or signed-rank, not '%s'", v);
	if ((v = cmd_args_value(a, CMD_OPT_ADJUST)) && rep_adjust_parse(v, &o->adjust))
		return cmd_usage_error(a->entry, "--adjust must be bh, by or holm, not '%s'", v);
	if ((v = cmd_args_value(a, CMD_OPT_FAMILY))) {
		if (strcmp(v, "run") && strcmp(v, "workload"))
			return cmd_usage_error(a->entry, "--family must be run or workload, not '%s'", v);
		o->family_workload = !strcmp(v, "workload");
	}
	struct stat st;
	if ((v = cmd_args_value(a, CMD_OPT_REPO)) && (stat(v, &st) || !S_ISDIR(st.st_mode)))
		return cmd_usage_error(a->entry, "--repo must be a folder (a git repository), not '%s'", v);
	o->repo = v;
	return 0;
}

int cmd_load_report(const char *path, const struct report_opts *o, struct analysis **an,
		    struct report **r)
{
	*an = NULL;
	*r = NULL;
	if (analysis_load(path, an) || report_build(*an, o, r)) {
		analysis_free(*an);
		*an = NULL;
		return EXIT_USAGE;
	}
	return EXIT_OK;
}
