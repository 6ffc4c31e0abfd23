/* cmd-audit.c: `harness audit FILE`: a reviewer's checks of a run, PASS/WARN/FAIL each */
#include "config.h"

#include <math.h>
#include <string.h>

#include "harness/analysis/audit.h"
#include "harness/cli/cmd.h"
#include "harness/analysis/report.h"
#include "harness/analysis/analysis.h"
#include "harness/base/util.h"
#include "harness/output/write.h"

enum { OPT_FORMAT = 'f' };

/* Exit codes (docs/audit.md): 0 no check FAILs (WARNs allowed); 1 some check FAILs, or the
 * audit could not be written; 2 bad command line or input file. */
enum { AUDIT_EXIT_FAIL = EXIT_RUN_FAILED };

static const struct cmd_opt audit_opts[] = {
	{ "format", OPT_FORMAT, 1 },
	CMD_STATS_OPTS,
	CMD_REPO_OPT,
	{ NULL, 0, 0 },
};

static int audit_exec(const struct cmd_args *a)
{
	struct report_opts o;
	enum audit_format fmt = AUDIT_MD;
	const char *v;
	report_opts_init(&o);
	if ((v = cmd_args_value(a, OPT_FORMAT))) {
		if (!strcmp(v, "md") || !strcmp(v, "markdown"))
			fmt = AUDIT_MD;
		else if (!strcmp(v, "json"))
			fmt = AUDIT_JSON;
		else
			return cmd_usage_error(a->entry, "--format must be md or json, not '%s'", v);
	}
	int rc = cmd_stats_opts(a, &o);
	if (rc)
		return rc;

	struct analysis *an = NULL;
	struct report *r = NULL;
	struct audit *au = NULL;
	if ((rc = cmd_load_report(a->pos[0], &o, &an, &r)))
		goto done;
	if (audit_build(an, r, &au)) {
		rc = EXIT_USAGE;
		goto done;
	}
	rc = audit_write(au, fmt, stdout) ? EXIT_RUN_FAILED
		 : audit_worst(au) == AUDIT_FAIL ? AUDIT_EXIT_FAIL
						 : EXIT_OK;
done:
	audit_free(au);
	report_free(r);
	analysis_free(an);
	return rc;
}

const struct cmd_entry cmd_audit_entry = {
	.name = "audit",
	.usage = "audit [options] RESULTS.h5",
	.summary = "a reviewer's checks of a run (identity probes, cache leaks, baseline, ...),"
		   " each PASS, WARN or FAIL",
	.help = "options:\n"
		"  -f, --format FMT     md (default) or json\n"
		"  --baseline MODE      the declared baseline (default: the experiment's)\n"
		"  --alpha A            test level (default 0.05; a sequential run's last look's)\n"
		"  --margin M           a declared practical margin, e.g. 0.02 for +-2% (default:\n"
		"                       the experiment's, else none: each cell's noise floor)\n"
		CMD_DECIDE_HELP
		"  --resamples N        bootstrap resamples (default 10000)\n"
		"  --seed S             bootstrap seed (default 20261121)\n"
		"  --repo DIR           a git repository in which a hypothesis file that was not\n"
		"                       committed where the run started (a bundle) is looked up by\n"
		"                       its bytes: committed there before the run, PRE-REGISTERED\n"
		"  -h, --help           this text\n"
		"exit status: 0 no check FAILs, 1 some check FAILs, 2 bad input\n",
	.opts = audit_opts,
	.min_args = 1,
	.max_args = 1,
	.flags = 0,
	.exec = audit_exec,
};
