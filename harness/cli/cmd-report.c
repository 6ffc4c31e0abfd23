/* cmd-report.c: `harness report FILE`: the statistics of a run as markdown, JSON or CSV, or
 * as one HTML page assembled here from the report, the audit, the hypotheses' verdicts and
 * the figures, each built once */
#include "config.h"

#include <math.h>
#include <string.h>

#include "harness/analysis/analysis.h"
#include "harness/analysis/audit.h"
#include "harness/analysis/hyp.h"
#include "harness/analysis/replay.h"
#include "harness/analysis/report.h"
#include "harness/base/util.h"
#include "harness/cli/cmd.h"
#include "harness/record/recorder.h"
#include "harness/output/html.h"
#include "harness/output/write.h"

enum { OPT_FORMAT = 'f' };

static const struct cmd_opt report_opts[] = {
	{ "format", OPT_FORMAT, 1 },
	CMD_STATS_OPTS,
	CMD_REPO_OPT,
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

/* The HTML page: the figures drawn into a temporary folder from src, the hypotheses'
 * verdicts and the audit on the report already built (a failure in either is reported on
 * stderr and the page says so: the rest is still worth having), then the page.  0, or -1
 * when the figures cannot be drawn or the page cannot be written (reported). */
static int write_html(const struct analysis *an, const struct report *r,
		      const struct plot_src *src)
{
	struct html_parts p;
	struct audit *au = NULL;
	struct hyp_set *set = NULL;
	struct hyp_eval *e = NULL;
	struct replay *rp = NULL;
	struct plot_set figs;
	char *dir = NULL;
	int rc = -1;
	memset(&p, 0, sizeof(p));
	plot_set_init(&figs);
	p.report = r;
	for (size_t i = 0; i < an->meta.nfiles; i++)
		p.nhyp_files += !strcmp(an->meta.files[i].role, "hypothesis");
	if (html_figures_draw(r, src, &figs, &dir))
		goto done;
	p.figs = dir ? &figs : NULL;
	if (p.nhyp_files && !hyp_set_load(an->path, &an->meta, NULL, 0, r->o.repo, &set) &&
	    !hyp_evaluate(r, set, &e)) {
		p.hyp_set = set;
		p.hyp = e;
	}
	if (!audit_build(an, r, &au))
		p.audit = au;
	/* random, coordinate-descent and beam replayed on the unit with the most recorded
	 * trials (budget 20 trials or the largest cell's valid points, 10 seeds): how the
	 * search tuners would have done on this run's own measurements (docs/replay.md) */
	if (rec_has_tuning(an->path)) {
		static char *tuners[] = { "random", "coordinate-descent", "beam" };
		struct replay_opts ro = { .tuners = tuners, .ntuners = 3, .budget_trials = 20,
					  .seeds = 10, .unit = -1 };
		p.replay_failed = replay_run(an->path, &ro, &rp) != 0;
		p.replay = rp;
	}
	rc = html_write(&p, stdout);
done:
	if (html_figures_release(&figs, dir))
		rc = -1;
	audit_free(au);
	replay_free(rp);
	hyp_eval_free(e);
	hyp_set_free(set);
	return rc;
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
	struct plot_src *src = NULL;
	if ((rc = cmd_load_report(a->pos[0], &o, &an, &r)))
		return rc;
	/* the Warnings say what the audit says: each check that does not PASS (the HTML page
	 * has the audit whole) */
	struct audit *au = NULL;
	if (fmt != REPORT_HTML) {
		if (audit_build(an, r, &au))
			report_warn(r, "the audit could not be built on this file (see above)");
		for (size_t i = 0; au && i < au->nchecks; i++)
			if (au->checks[i].status != AUDIT_PASS)
				report_warn(r, "audit %s '%s': %s",
					    audit_status_name(au->checks[i].status), au->checks[i].id,
					    au->checks[i].summary ? au->checks[i].summary : "");
		audit_free(au);
	}
	/* the page's figures read what the report does not: before anything is written, so
	 * that a damaged results file is a bad input (2) for every format */
	if (fmt == REPORT_HTML && plot_src_read(r, NULL, &src))
		rc = EXIT_USAGE;
	else if (fmt == REPORT_HTML)
		rc = write_html(an, r, src) ? EXIT_RUN_FAILED : EXIT_OK;
	else
		rc = report_write(r, fmt, stdout) ? EXIT_RUN_FAILED : EXIT_OK;
	plot_src_free(src);
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
		"  --alpha A            test level (default 0.05; a sequential run's last look's)\n"
		"  --margin M           a declared practical margin, e.g. 0.02 for +-2% (default:\n"
		"                       the experiment's, else none: each cell's noise floor)\n"
		CMD_DECIDE_HELP
		"  --resamples N        bootstrap resamples (default 10000)\n"
		"  --seed S             bootstrap seed (default 20261121; recorded in the report)\n"
		"  --repo DIR           a git repository in which a hypothesis file that was not\n"
		"                       committed where the run started (a bundle) is looked up by\n"
		"                       its bytes: committed there before the run, PRE-REGISTERED\n"
		"  -h, --help           this text\n",
	.opts = report_opts,
	.min_args = 1,
	.max_args = 1,
	.flags = 0,
	.exec = report_exec,
};
