/* cmd-verify.c: `harness verify RESULTS.h5`: the verdicts of the hypotheses recorded in a
 * run (from their recorded bytes) and of any attached now with --hypotheses, once the
 * results file is re-checked against its journal (rec_recheck) and its own digests
 * (rec_seal_check); --record: those checks alone, said in full; --anchor, --digest: its
 * record digest against a commit or a noted value */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "harness/analysis/analysis.h"
#include "harness/cli/cmd.h"
#include "harness/analysis/hyp.h"
#include "harness/analysis/report.h"
#include "harness/base/util.h"
#include "harness/config/hypothesis.h"
#include "harness/output/write.h"
#include "harness/record/recorder.h"

enum { OPT_FORMAT = 'f', OPT_HYPOTHESES = CMD_OPT_OWN, OPT_RECORD, OPT_ANCHOR, OPT_DIGEST };

static const struct cmd_opt verify_opts[] = {
	{ "format", OPT_FORMAT, 1 },
	CMD_STATS_OPTS,
	CMD_REPO_OPT,
	{ "hypotheses", OPT_HYPOTHESES, 1 },
	{ "record", OPT_RECORD, 0 },
	{ "anchor", OPT_ANCHOR, 1 },
	{ "digest", OPT_DIGEST, 1 },
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
		printf("\n# The record of '%s' against its journal\n\n", path);
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

/* The results file against its own digests (rec_seal_check), and its record digest against
 * an anchor: the digest given (--digest, from a lab notebook) and a commit of a repository
 * that holds it (--anchor, harness run --commit-digest).  0 when nothing differs (said in
 * full when loud; an anchor found is said in md), EXIT_USAGE when something does, -1 when
 * the file cannot be read (all reported). */
static int seal(const char *path, int loud, int md, const char *anchor, const char *want)
{
	struct rec_seal s;
	if (rec_seal_check(path, &s))
		return -1;
	int rc = EXIT_OK;
	if (rec_seal_altered(&s)) {
		struct sbuf b;
		sbuf_init(&b);
		for (size_t i = 0; i < s.nmodes; i++)
			sbuf_addf(&b, "%s'%s'", i ? ", " : "", s.modes[i]);
		if (s.bad)
			error("'%s': altered after it was written: %zu of %zu parts of its record "
			      "differ from the digests it carries (modes %s); the first: %s; no "
			      "verdict is given on altered data", path, s.bad, s.parts, b.buf,
			      s.shown[0]);
		else
			error("'%s': altered after it was written: its metadata, recorded files "
			      "(experiment, hypotheses), plan or cells differ from the record digest "
			      "it carries (%.12s, recomputed %.12s); no verdict is given on altered "
			      "data", path, s.stored, s.record);
		sbuf_release(&b);
		rc = EXIT_USAGE;
	}
	if (loud) {
		printf("# The record of '%s' against its digests\n\n", path);
		if (!s.sealed)
			printf("It carries no digests (a file from before them, 2026-11-30, or one "
			       "whose /digests was removed): alterations cannot be detected from the "
			       "file alone.\n");
		else if (!rec_seal_altered(&s))
			printf("%zu parts (each unit's row, and its rows of each cell) and the record "
			       "digest match what the file carries.\n", s.parts);
		for (size_t i = 0; i < s.nshown; i++)
			printf("- differs: %s\n", s.shown[i]);
		if (s.bad > s.nshown)
			printf("- and %zu more\n", s.bad - s.nshown);
		if (*s.record)
			printf("\nrecord digest (of the content as it is now): sha256:%s\n", s.record);
	}
	if (rc == EXIT_OK && want && strcmp(want, s.record) &&
	    !(strncmp(want, "sha256:", 7) == 0 && !strcmp(want + 7, s.record))) {
		error("'%s': its record digest is sha256:%s, not the one given (%s): the file is "
		      "not the one whose digest was noted", path, s.record, want);
		rc = EXIT_USAGE;
	}
	if (rc == EXIT_OK && anchor) {
		char *needle = xasprintf("sha256:%s", s.record), *commit = NULL, *when = NULL;
		int f = *s.record ? hyp_git_anchor_find(anchor, needle, &commit, &when) : 1;
		if (f < 0) {
			error("'%s': not a git repository git can read (--anchor)", anchor);
			rc = EXIT_USAGE;
		} else if (f > 0) {
			error("'%s': its record digest %s is in no commit of '%s' on a branch or tag: "
			      "altered since it was anchored, or never anchored there (harness run "
			      "--commit-digest)", path, needle, anchor);
			rc = EXIT_USAGE;
		} else if (md) {
			printf("Record digest %s: anchored in '%s' by commit %.12s (%s), on a branch "
			       "or tag.\n\n", needle, anchor, commit, when);
		}
		free(commit);
		free(when);
		free(needle);
	}
	rec_seal_release(&s);
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
	const char *anchor = cmd_args_value(a, OPT_ANCHOR), *want = cmd_args_value(a, OPT_DIGEST);
	/* the digests first (they name the mode and cell), then the journal: both said */
	int loud = cmd_args_count(a, OPT_RECORD) > 0;
	int r1 = seal(a->pos[0], loud, fmt == REPORT_MD, anchor, want);
	if (r1 < 0)
		return EXIT_USAGE;
	int r2 = recheck(a->pos[0], loud);
	if (loud || r1 || r2)
		return r1 ? r1 : r2;
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
		"                       was assembled from and against the digests it carries,\n"
		"                       and say so, with its record digest (every verify does,\n"
		"                       and refuses a file that differs)\n"
		"  --anchor DIR         also require the record digest in a commit of the git\n"
		"                       repository DIR on a branch or tag (harness run\n"
		"                       --commit-digest)\n"
		"  --digest HEX         also require the record digest to be HEX (a noted one)\n"
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
		"2 bad input (a results file that differs from its journal or its digests, or\n"
		"whose record digest is not the one given or anchored, included)\n",
	.opts = verify_opts,
	.min_args = 1,
	.max_args = 1,
	.flags = 0,
	.exec = verify_exec,
};
