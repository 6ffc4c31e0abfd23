/* cmd-verify.c: `harness verify RESULTS.h5`: the verdicts of the hypotheses recorded in a
 * run (from their recorded bytes) and of any attached now with --hypotheses */
#include "config.h"

#include <string.h>

#include "harness/analysis/analysis.h"
#include "harness/cli/cmd.h"
#include "harness/analysis/hypothesis.h"
#include "harness/analysis/report.h"
#include "harness/base/util.h"
#include "harness/output/write.h"

enum { OPT_FORMAT = 'f', OPT_HYPOTHESES = CMD_OPT_OWN };

static const struct cmd_opt verify_opts[] = {
	{ "format", OPT_FORMAT, 1 },
	CMD_STATS_OPTS,
	CMD_REPO_OPT,
	{ "hypotheses", OPT_HYPOTHESES, 1 },
	{ NULL, 0, 0 },
};

static int verify_exec(const struct cmd_args *a)
{
	struct report_opts o;
	enum report_format fmt;
	int rc = cmd_report_parse_opts(a, &o, &fmt);
	if (rc)
		return rc;
	if (fmt != REPORT_MD && fmt != REPORT_JSON)
		return cmd_usage_error(a->entry, "--format must be md or json, not '%s'",
				       cmd_args_value(a, OPT_FORMAT));
	size_t nextra = 0;
	const char **extra = xcalloc(a->nopts + 1, sizeof(*extra));
	for (size_t i = 0; i < a->nopts; i++)
		if (a->opts[i].key == OPT_HYPOTHESES)
			extra[nextra++] = a->opts[i].value;
	struct analysis *an = NULL;
	struct report *r = NULL;
	struct hyp_set *s = NULL;
	struct hyp_eval *e = NULL;
	rc = EXIT_USAGE;
	if (analysis_load(a->pos[0], &an) ||
	    hyp_set_load(a->pos[0], &an->meta, extra, nextra, o.repo, &s))
		goto done;
	if (s->n == 0) {
		error("'%s' records no hypothesis file; attach one with --hypotheses FILE",
		      a->pos[0]);
		goto done;
	}
	if (o.baseline && analysis_mode(an, o.baseline) < 0) {
		char *list = analysis_mode_list(an);
		error("'%s' has no mode '%s' (modes: %s)", a->pos[0], o.baseline, list);
		free(list);
		goto done;
	}
	if (report_build(an, &o, &r) || hyp_evaluate(r, s, &e))
		goto done;
	if (hyp_eval_write(e, fmt, stdout))
		rc = EXIT_RUN_FAILED;
	else
		rc = e->prereg_primary_falsified ? EXIT_FALSIFIED : EXIT_OK;
done:
	hyp_eval_free(e);
	hyp_set_free(s);
	report_free(r);
	analysis_free(an);
	free(extra);
	return rc;
}

const struct cmd_entry cmd_verify_entry = {
	.name = "verify",
	.usage = "verify [options] RESULTS.h5",
	.summary = "decide the run's hypotheses: CORROBORATED, FALSIFIED or INCONCLUSIVE",
	.help = "options:\n"
		"  --hypotheses FILE    also evaluate FILE (repeatable); POST-HOC unless its bytes\n"
		"                       equal a file recorded in the run\n"
		"  -f, --format FMT     md (default) or json\n"
		"  --baseline MODE      for hypotheses that name no baseline (default: the run's)\n"
		"  --alpha A            for hypotheses that set no alpha (default 0.05; a\n"
		"                       sequential run's last look's)\n"
		"  --margin M           for hypotheses that set no min_effect (default: the\n"
		"                       experiment's margin, else the largest noise floor of the\n"
		"                       hypothesis's cells, else 0.01)\n"
		CMD_DECIDE_HELP
		"  --resamples N        bootstrap resamples (default 10000)\n"
		"  --seed S             bootstrap seed (default 20261121)\n"
		"  --repo DIR           a git repository in which a hypothesis file that was not\n"
		"                       committed where the run started (a bundle) is looked up by\n"
		"                       its bytes: committed there before the run, PRE-REGISTERED\n"
		"  -h, --help           this text\n"
		"exit status: 0 no pre-registered primary hypothesis was falsified; 3 one was;\n"
		"2 bad input\n",
	.opts = verify_opts,
	.min_args = 1,
	.max_args = 1,
	.flags = 0,
	.exec = verify_exec,
};
