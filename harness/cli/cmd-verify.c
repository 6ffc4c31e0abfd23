/* cmd-verify.c: `harness verify RESULTS.h5`: the verdicts of the hypotheses recorded in a
 * run (from their recorded bytes) and of any attached now with --hypotheses, once the
 * results file is re-checked against its journal (rec_recheck); --record: that check
 * alone, said in full */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "harness/analysis/analysis.h"
#include "harness/cli/cmd.h"
#include "harness/analysis/hyp.h"
#include "harness/analysis/report.h"
#include "harness/base/util.h"
#include "harness/output/write.h"
#include "harness/record/recorder.h"

enum { OPT_FORMAT = 'f', OPT_HYPOTHESES = CMD_OPT_OWN, OPT_RECORD };

static const struct cmd_opt verify_opts[] = {
	{ "format", OPT_FORMAT, 1 },
	CMD_STATS_OPTS,
	CMD_REPO_OPT,
	{ "hypotheses", OPT_HYPOTHESES, 1 },
	{ "record", OPT_RECORD, 0 },
	{ NULL, 0, 0 },
};

/* The results file against its journal: 0 when nothing differs (said in full when loud),
 * EXIT_USAGE when something does or the file cannot be read (reported). */
static int recheck(const char *path, int loud)
{
	struct rec_recheck c;
	if (rec_recheck(path, &c))
		return EXIT_USAGE;
	int rc = EXIT_OK;
	if (c.bad) {
		error("'%s': %zu of %zu units differ from the journal they were recorded in; the "
		      "first: %s", path, c.bad, c.units, c.first_bad);
		rc = EXIT_USAGE;
	}
	if (loud) {
		printf("# The record of '%s' against its journal\n\n", path);
		printf("%zu of %zu units re-checked: their journal file has the SHA-256 the harness "
		       "recorded as it wrote it (journal/digests), and the results file holds the "
		       "same unit row, info and samples.\n", c.matched, c.units);
		if (c.bad)
			printf("\n**%zu differ**; the first: %s.\n", c.bad, c.first_bad);
		if (c.no_journal)
			printf("\n%zu could not be re-checked (the first: %s): a results file away "
			       "from its run folder, or from a harness before the digests "
			       "(2026-11-28).\n", c.no_journal, c.first_missing);
	}
	rec_recheck_release(&c);
	return rc;
}

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
	if (cmd_args_count(a, OPT_RECORD))
		return recheck(a->pos[0], 1);
	if ((rc = recheck(a->pos[0], 0)))
		return rc;
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
		"  --record             only re-check the results file against the journal it\n"
		"                       was assembled from, and say so (every verify does, and\n"
		"                       refuses a file that differs)\n"
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
		"2 bad input (a results file that differs from its journal included)\n",
	.opts = verify_opts,
	.min_args = 1,
	.max_args = 1,
	.flags = 0,
	.exec = verify_exec,
};
