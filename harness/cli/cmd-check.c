/* cmd-check.c: `harness check FILE...`: validate experiment files without running anything,
 * and say what each design can decide (design.h) */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>

#include "harness/analysis/design.h"
#include "harness/base/spawn.h"
#include "harness/base/util.h"
#include "harness/cli/cmd.h"
#include "harness/config/experiment.h"
#include "harness/config/hypothesis.h"
#include "harness/record/proto.h"

/* "'a', 'b'": the experiment's mode names (workloads: 0) or workload names (1). */
static char *name_list(const struct experiment *e, int workloads)
{
	struct sbuf sb;
	sbuf_init(&sb);
	size_t n = workloads ? e->nworkloads : e->nmodes;
	for (size_t i = 0; i < n; i++)
		sbuf_addf(&sb, "%s'%s'", i ? ", " : "",
			  workloads ? e->workloads[i].name : e->modes[i].name);
	return sbuf_detach(&sb);
}

/* A criterion on Kendall's tau (tau, tau_pred) with none on its p (p, p_pred) in the same
 * hypothesis decides on a point estimate over the handful of modes a run ranks: at 5 modes a
 * tau of 0.6 has a two-sided p of 0.23 (the main job's ResNet-18 on 2026-11-26).  Legal, but
 * worth saying before the run, with the smallest p the experiment's modes allow (tau = 1:
 * 2 / k!). */
static void hyp_tau_alone(const struct hyp_file *f, const struct hypothesis *h,
			  const struct experiment *e, const char *epath)
{
	static const char *const pair[][2] = { { "tau", "p" }, { "tau_pred", "p_pred" } };
	if (h->aggregate != HYP_AGG_OP_VS_E2E || h->superseded_by)
		return; /* a superseded one says why in its file, beside its replacement */
	for (size_t q = 0; q < 2; q++) {
		const struct hyp_criterion *on_tau = NULL;
		int on_p = 0;
		for (size_t j = 0; j < h->ncrit; j++) {
			if (!strcmp(h->crit[j].statistic, pair[q][0]) && !on_tau)
				on_tau = &h->crit[j];
			on_p |= !strcmp(h->crit[j].statistic, pair[q][1]);
		}
		if (!on_tau || on_p)
			continue;
		double pmin = 2;
		for (size_t k = 2; k <= e->nmodes; k++)
			pmin /= (double)k;
		warning("'%s':%d:%d: hypothesis '%s': criterion '%s' judges Kendall's %s without its "
			"%s: a run ranks few modes, and with the %zu of '%s' even a perfect ranking "
			"(tau = 1) has a two-sided p of %.3g; a criterion on %s makes the verdict "
			"survive chance",
			f->path, on_tau->pos.line, on_tau->pos.col, h->id, on_tau->id, pair[q][0],
			pair[q][1], e->nmodes, epath, pmin > 1 ? 1 : pmin, pair[q][1]);
	}
}

/* The names a hypothesis file gives that the experiment must have: every compared mode
 * (but "*"), the baseline, the workload.  Run would find a missing one only when it
 * evaluates the hypotheses, after every unit; here it is an error at its line:col.
 * (Cell names are left to the evaluation: they come from the catalog's naming.) */
static int hyp_names_exist(const struct hyp_file *f, const struct experiment *e,
			   const char *epath)
{
	int rc = 0;
	for (size_t i = 0; i < f->nh && !rc; i++) {
		const struct hypothesis *h = &f->h[i];
		const char *bad = NULL;
		struct tb_pos pos = h->modes_pos;
		for (size_t k = 0; k < h->nmodes && !bad; k++)
			if (strcmp(h->modes[k], "*") && experiment_mode_index(e, h->modes[k]) < 0)
				bad = h->modes[k];
		if (!bad && h->baseline && experiment_mode_index(e, h->baseline) < 0) {
			bad = h->baseline;
			pos = h->baseline_pos;
		}
		hyp_tau_alone(f, h, e, epath);
		if (bad) {
			char *list = name_list(e, 0);
			rc = error("'%s':%d:%d: hypothesis '%s': no mode '%s' in experiment '%s' "
				   "(modes: %s)", f->path, pos.line, pos.col, h->id, bad, epath, list);
			free(list);
			break;
		}
		if (h->workload) {
			size_t w = 0;
			while (w < e->nworkloads && strcmp(e->workloads[w].name, h->workload))
				w++;
			if (w == e->nworkloads) {
				char *list = name_list(e, 1);
				rc = error("'%s':%d:%d: hypothesis '%s': no workload '%s' in experiment "
					   "'%s' (workloads: %s)", f->path, h->workload_pos.line,
					   h->workload_pos.col, h->id, h->workload, epath, list);
				free(list);
				break;
			}
			/* a mode it names that does not run the workload is left out of it when
			 * it is decided (hyp-eval.c): legal, but worth saying before the run */
			for (size_t k = 0; k < h->nmodes; k++) {
				const struct mode *m = experiment_mode(e, h->modes[k]);
				if (m && !mode_has_workload(m, h->workload))
					warning("'%s':%d:%d: hypothesis '%s': mode '%s' does not run "
						"workload '%s' (its 'workloads' in '%s'): it will be left "
						"out of the hypothesis", f->path, h->modes_pos.line,
						h->modes_pos.col, h->id, m->name, h->workload, epath);
			}
		}
	}
	return rc;
}

/* The PATH a command mode's units search: its environment's, else the experiment's
 * [environment] set's, else NULL (ours: a unit inherits it). */
static const char *mode_path(const struct experiment *e, const struct mode *m)
{
	const char *pathvar = NULL;
	for (size_t k = 0; k < e->nenv_set; k++)
		if (!strcmp(e->env_set[k].name, "PATH"))
			pathvar = e->env_set[k].value;
	for (size_t k = 0; k < m->nenv; k++)
		if (!strcmp(m->env[k].name, "PATH"))
			pathvar = m->env[k].value;
	return pathvar;
}

/* A command mode's program found through PATH that is a script: a version manager's shim
 * (pyenv, asdf) picks its interpreter from HOME and the working folder, which a unit gets of
 * its own, so the unit may run another interpreter than the one this shell runs (a
 * numpy-less system Python).  Warned once per program, naming its modes, with what it
 * resolved to; a program not found is warned of too (the units would fail to start). */
static void command_programs(const struct experiment *e, const char *path)
{
	for (size_t i = 0; i < e->nmodes; i++) {
		const struct mode *m = &e->modes[i];
		if (!m->command_argv || !m->command_argv[0] || strchr(m->command_argv[0], '/') ||
		    m->aa_of)
			continue;
		const char *prog = m->command_argv[0], *pathvar = mode_path(e, m);
		int seen = 0; /* an earlier mode runs the same program through the same PATH */
		struct sbuf modes;
		sbuf_init(&modes);
		for (size_t j = 0; j < e->nmodes; j++) {
			const struct mode *o = &e->modes[j];
			const char *op = mode_path(e, o);
			if (o->aa_of || !o->command_argv || !o->command_argv[0] ||
			    strcmp(o->command_argv[0], prog) ||
			    (op != pathvar && (!op || !pathvar || strcmp(op, pathvar))))
				continue;
			seen |= j < i;
			sbuf_addf(&modes, "%s'%s'", modes.len ? ", " : "", o->name);
		}
		char *pv = pathvar && !seen ? xasprintf("PATH=%s", pathvar) : NULL;
		const char *env[] = { pv, NULL };
		char *found = seen ? NULL : spawn_find_program(prog, pv ? env : NULL);
		char *script = found ? spawn_script_line(found) : NULL;
		if (!seen && !found)
			warning("'%s': mode%s %s: the program '%s' is not found in %s: its units "
				"cannot start", path, strchr(modes.buf, ',') ? "s" : "", modes.buf,
				prog, pv ? "the PATH its environment sets" : "PATH");
		else if (script)
			warning("'%s': mode%s %s: the program '%s' is '%s', a script ('%s'): a "
				"version manager's shim picks its interpreter from HOME and the "
				"working folder, and a unit's are its own cache folder, so it may run "
				"another interpreter than this shell does; name the interpreter by "
				"its absolute path (e.g. the one 'pyenv which %s' prints)", path,
				strchr(modes.buf, ',') ? "s" : "", modes.buf, prog, found, script, prog);
		sbuf_release(&modes);
		free(script);
		free(found);
		free(pv);
	}
}

int cmd_load_experiment(const char *path, const struct exp_edits *ed, struct experiment **out)
{
	struct experiment *e = NULL;
	int rc = -1;
	*out = NULL;
	if (experiment_load_edits(path, 0, ed, &e))
		return -1;
	command_programs(e, path);
	/* hypothesis paths are relative to the experiment file's folder, as run reads them */
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, (size_t)(slash - path) + 1) : xstrdup("");
	for (size_t i = 0; i < e->nhypotheses; i++) {
		const char *h = e->hypotheses[i];
		char *hp = h[0] == '/' ? xstrdup(h) : xasprintf("%s%s", dir, h);
		struct hyp_file *hf = NULL;
		int bad = hyp_file_load(hp, &hf) || hyp_names_exist(hf, e, path);
		hyp_file_free(hf);
		free(hp);
		if (bad)
			goto done;
	}
	*out = e;
	e = NULL;
	rc = 0;
done:
	free(dir);
	experiment_free(e);
	return rc;
}

/* "; mode 'x' runs only 'a', 'b'" for each mode with `workloads`, or "" (heap). */
static char *restricted_modes(const struct experiment *e)
{
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t m = 0; m < e->nmodes; m++) {
		if (!e->modes[m].workloads)
			continue;
		sbuf_addf(&sb, "; mode '%s' runs only ", e->modes[m].name);
		for (size_t k = 0; k < e->modes[m].nworkloads; k++)
			sbuf_addf(&sb, "%s'%s'", k ? ", " : "", e->modes[m].workloads[k]);
	}
	return sbuf_detach(&sb);
}

/* "; on cuda: 100 repeats" for each [on.BACKEND] table that sets repeats, or "" (heap): a
 * run resolved to that backend runs that many blocks, not the top-level count. */
static char *backend_repeats(const struct experiment *e)
{
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t i = 0; i < e->non; i++)
		if (e->on[i].has_repeats)
			sbuf_addf(&sb, "; on %s: %" PRId64 " repeats", e->on[i].backend,
				  e->on[i].repeats);
	return sbuf_detach(&sb);
}

/* What each unit of e will be given, as the unit specification says it (unitspec.h): each
 * mode's measure settings (experiment_unit_measure: the one place they are composed) on
 * its requested backend and on each backend e has an [on.BACKEND] table for, and the
 * limits on what one unit may send (the defaults resolved). */
static void print_settings(const struct experiment *e)
{
	for (size_t i = 0; i < e->nmodes; i++) {
		const struct mode *m = &e->modes[i];
		for (size_t k = 0; k <= e->non; k++) {
			const char *b = k < e->non ? e->on[k].backend : NULL;
			if (b && m->only_on && strcmp(m->only_on, b))
				continue;
			struct measure_settings ms = experiment_unit_measure(e, m, b);
			char *t = experiment_measure_text(&ms);
			printf("  mode '%s', %s%s%s: %s\n", m->name, b ? "[on." : "[measure]",
			       b ? b : "", b ? "]" : "", t);
			free(t);
		}
	}
	struct proto_limits l = proto_limits_with(e->limits.samples, e->limits.info_bytes,
						  e->limits.output_bytes);
	printf("  limits: samples = %" PRId64 ", info_bytes = %" PRId64 ", output_bytes = %" PRId64
	       "\n", l.samples, l.info_bytes, l.output_bytes);
}

/* Load each file in turn (schema, ranges, catalog, tuners, and every hypothesis file it
 * names, parsed: cmd_load_experiment); print one "ok" line per valid file on stdout.  The
 * first invalid file's error goes to stderr and ends the command with EXIT_USAGE: nothing
 * was run or written. */
enum { OPT_PRIOR = 256, OPT_AA_FLOOR, OPT_DESIGN, OPT_SETTINGS, OPT_MODE, OPT_WORKLOAD };

static const struct cmd_opt check_opts[] = {
	{ "prior", OPT_PRIOR, 1 },
	{ "aa-floor", OPT_AA_FLOOR, 1 },
	{ "design", OPT_DESIGN, 0 },
	{ "settings", OPT_SETTINGS, 0 },
	{ "set", 'D', 1 },
	{ "mode", OPT_MODE, 1 },
	{ "workload", OPT_WORKLOAD, 1 },
	{ NULL, 0, 0 },
};

static int check_files(const struct cmd_args *a, const struct design_prior *dpp,
		       const struct exp_edits *ed, int *undecidable);

static int check_exec(const struct cmd_args *a)
{
	struct design_prior dp = { .results = cmd_args_value(a, OPT_PRIOR), .aa_floor = NAN };
	const char *fl = cmd_args_value(a, OPT_AA_FLOOR);
	if (fl && (parse_double(fl, 0, 0.5, &dp.aa_floor) || !(dp.aa_floor > 0)))
		return cmd_usage_error(a->entry, "--aa-floor must be a relative noise floor in "
						 "(0, 0.5), e.g. 0.01 for 1%%, not '%s'", fl);
	int undecidable = 0;
	/* -D, --mode, --workload as run takes them: each file checked with them applied */
	struct exp_edits ed = { 0 };
	const struct { int key; char ***v; size_t *n; } all[] = {
		{ 'D', &ed.sets, &ed.nsets }, { OPT_MODE, &ed.modes, &ed.nmodes },
		{ OPT_WORKLOAD, &ed.workloads, &ed.nworkloads } };
	for (size_t k = 0; k < ARRAY_SIZE(all); k++)
		for (size_t j = 0; j < a->nopts; j++)
			if (a->opts[j].key == all[k].key) {
				*all[k].v = xrealloc(*all[k].v, (*all[k].n + 1) * sizeof(char *));
				(*all[k].v)[(*all[k].n)++] = (char *)a->opts[j].value;
			}
	int ret = check_files(a, &dp, &ed, &undecidable);
	free(ed.sets);
	free(ed.modes);
	free(ed.workloads);
	(void)undecidable; /* said as warnings: a design that cannot decide is still valid */
	return ret;
}

/* The names of e's modes and workloads, when they are not just the file's: expanded by
 * axes, or edited on the command line. */
static void print_names(const struct experiment *e)
{
	if (!e->has_axes && exp_edits_none(&e->edits))
		return;
	printf("  modes:");
	for (size_t m = 0; m < e->nmodes; m++)
		printf(" %s%s", e->modes[m].name, m == e->baseline ? " (baseline)" : "");
	printf("\n  workloads:");
	for (size_t w = 0; w < e->nworkloads; w++)
		printf(" %s", e->workloads[w].name);
	printf("\n");
}

static int check_files(const struct cmd_args *a, const struct design_prior *dpp,
		       const struct exp_edits *ed, int *undecidable)
{
	struct design_prior dp = *dpp;
	for (int i = 0; i < a->npos; i++) {
		const char *path = a->pos[i];
		struct experiment *e = NULL;
		if (cmd_load_experiment(path, ed, &e))
			return EXIT_USAGE;
		char *only = restricted_modes(e);
		char *on = backend_repeats(e);
		printf("'%s': ok (%zu modes, %zu workloads, %" PRId64 " repeats%s%s%s)\n", path,
		       e->nmodes, e->nworkloads, e->repeats,
		       e->unit_scope == UNIT_SCOPE_WORKLOAD ? ", a unit per mode and workload" : "",
		       on, only);
		free(on);
		free(only);
		print_names(e);
		if (cmd_args_count(a, OPT_SETTINGS))
			print_settings(e);
		int und = 0;
		int say = dp.results || !isnan(dp.aa_floor) || cmd_args_count(a, OPT_DESIGN);
		int bad = design_assess(e, &dp, say ? stdout : NULL, &und);
		*undecidable |= und;
		experiment_free(e);
		if (bad)
			return EXIT_USAGE;
		/* keep the ok lines in step with a later file's error on stderr */
		if (fflush(stdout) != 0) {
			error_errno("cannot write to standard output");
			return EXIT_RUN_FAILED;
		}
	}
	return EXIT_OK;
}

const struct cmd_entry cmd_check_entry = {
	.name = "check",
	.usage = "check [options] FILE...",
	.summary = "validate experiment files and say what their designs can decide",
	.help = "options:\n"
		"  --design             say what each design can decide (its blocks, the test,\n"
		"                       its sequential looks); a design that cannot decide is\n"
		"                       always warned of\n"
		"  --prior RESULTS.h5   an earlier run of the experiment: each comparison's\n"
		"                       minimum detectable effect at the design's blocks, and the\n"
		"                       blocks each primary hypothesis needs at its spread\n"
		"  --aa-floor F         assume an A/A noise floor F (0.01 = 1%) in every cell: the\n"
		"                       minimum detectable effect and the blocks SAME needs\n"
		"  --settings           each mode's measure settings as its units get them (per\n"
		"                       backend with an [on.BACKEND] table), and the unit limits\n"
		"  -D, --set KEY=VALUE  check with KEY set to VALUE, as 'run -D' sets it\n"
		"  --mode NAME          check with only mode NAME, as 'run --mode' plans it\n"
		"  --workload NAME      check with only workload NAME, as 'run --workload'\n"
		"  (the modes and workloads are listed when axes expand them or these apply)\n"
		"  -h, --help           this text\n"
		"exit status: 0 valid (a design that cannot decide is warned of on stderr),\n"
		"             2 invalid\n",
	.opts = check_opts,
	.min_args = 1,
	.max_args = -1,
	.flags = 0,
	.exec = check_exec,
};
