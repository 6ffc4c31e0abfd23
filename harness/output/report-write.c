/* report-write.c: a built report as markdown, JSON or CSV (report.h; the CSV's rows are
 * report-csv.c's); formatting only */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "harness/output/json.h"
#include "harness/output/write.h"
#include "harness/base/util.h"

static const char *meta(const struct report *r, const char *k)
{
	const char *v = rec_meta_get(&r->a->meta, k);
	return v ? v : "";
}

/* A number in one of the report's styles, or "-" for NaN:
 * 'r' ratio (%.4f), 'p' p-value (%.3g), '1' percent with 1 decimal, '2' percent with 2,
 * 'u' microseconds or seconds (%.3f), 'n' a count (%.0f), 's' a short ratio (%.2f). */
static const char *num(char *buf, size_t n, char style, double v)
{
	if (isnan(v)) {
		snprintf(buf, n, "-");
		return buf;
	}
	switch (style) {
	case 'r': snprintf(buf, n, "%.4f", v); break;
	case 'p': snprintf(buf, n, "%.3g", v); break;
	case '1': snprintf(buf, n, "%.1f%%", v); break;
	case '2': snprintf(buf, n, "%.2f%%", v); break;
	case 'u': snprintf(buf, n, "%.3f", v); break;
	case 'n': snprintf(buf, n, "%.0f", v); break;
	default: snprintf(buf, n, "%.2f", v); break;
	}
	return buf;
}

/* ---- markdown --------------------------------------------------------------------- */

static void md_cmp_row(const struct report *r, const struct rep_cmp *x, FILE *f)
{
	const struct analysis *a = r->a;
	char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32], b7[32], b8[32], b9[32], b10[32],
		b11[32];
	if (!x->ok) {
		fprintf(f, "| %s | %s | - | - | - | - | - | - | - | - | - | - | - | not compared: %s | - |\n",
			a->cells[x->cell].name, a->modes[x->mode], x->note);
		return;
	}
	const struct stats_comparison *c = &x->c;
	char extra[96] = "";
	if (c->verdict == VERDICT_INCONCLUSIVE)
		snprintf(extra, sizeof(extra), "MDE %s; blocks for the floor: %s",
			 num(b9, sizeof(b9), '1', 100 * c->mde),
			 num(b10, sizeof(b10), 'n', ceil(c->blocks_needed)));
	else if (c->inside_margin)
		snprintf(extra, sizeof(extra), "inside the declared +-%s",
			 num(b9, sizeof(b9), '2', 100 * c->margin));
	fprintf(f, "| %s | %s | %zu | %s | [%s, %s] | %s | %s | %s (%zu) | %s | %s | [%s, %s] (%s) | %s | %s | **%s** | %s |\n",
		a->cells[x->cell].name, a->modes[x->mode], c->n, num(b1, 32, 'r', c->ratio),
		num(b2, 32, 'r', c->lo), num(b3, 32, 'r', c->hi), num(b8, 32, 'p', c->p),
		num(b9, 32, 'p', c->p_adj), x->family, x->family_size,
		num(b11, 32, '2', 100 * c->floor), num(b4, 32, 'r', c->median_ratio),
		num(b5, 32, 'r', c->os_lo), num(b6, 32, 'r', c->os_hi),
		num(b7, 32, '1', 100 * c->os_coverage), num(b10, 32, 'p', c->p_rank),
		x->iqr_overlap ? "yes" : "no", stats_verdict_name(c->verdict), extra);
}

/* "x [lo, hi]" of an estimate in style st ('r' ratio, '1' percent). */
static const char *est_ci(char *buf, size_t n, char st, const struct rep_est *e)
{
	char b1[32], b2[32], b3[32];
	double k = st == '1' ? 100 : 1;
	snprintf(buf, n, "%s [%s, %s]", num(b1, 32, st, k * e->est), num(b2, 32, st, k * e->lo),
		 num(b3, 32, st, k * e->hi));
	return buf;
}

/* The backend's itemisation of each e2e forward (analysis.h struct an_part), baseline units'
 * medians, next to the op cells' count x time: what the coverage gap is made of. */
static void md_parts(const struct report *r, FILE *f)
{
	const struct analysis *a = r->a;
	size_t B = r->baseline;
	char b1[32], b2[32], b3[32], b4[32];
	for (size_t c = 0; c < a->ncells; c++) {
		if (strcmp(a->cells[c].kind, "e2e"))
			continue;
		int any = 0;
		for (size_t k = 0; k < a->nparts; k++)
			any |= !strcmp(a->parts[k].cell, a->cells[c].name) && !isnan(a->parts[k].ns[B]);
		if (!any)
			continue;
		double ops = 0;
		for (size_t o = 0; o < a->ncells; o++)
			if (!strcmp(a->cells[o].kind, "op") && !strcmp(a->cells[o].workload, a->cells[c].workload))
				ops += (double)a->cells[o].count * r->sum[B * a->ncells + o].s.median;
		fprintf(f, "\nWhere `%s`'s forward goes (the backend's itemisation, median over `%s`'s units, ms): ",
			a->cells[c].name, a->modes[B]);
		for (size_t k = 0, n = 0; k < a->nparts; k++)
			if (!strcmp(a->parts[k].cell, a->cells[c].name) && !isnan(a->parts[k].ns[B]))
				fprintf(f, "%s%s %s", n++ ? ", " : "", a->parts[k].part,
					num(b1, 32, 'u', a->parts[k].ns[B] / 1e6));
		double in = 0, out = 0;
		for (size_t k = 0; k < a->nparts; k++)
			if (!strcmp(a->parts[k].cell, a->cells[c].name) && !isnan(a->parts[k].ns[B]) &&
			    strcmp(a->parts[k].part, "forward"))
				*(!strncmp(a->parts[k].part, "op_", 3) ? &in : &out) += a->parts[k].ns[B];
		fprintf(f, ". The op steps inside the forward take %s ms, the same ops measured alone "
			   "(count x time of the op cells) %s ms; outside the op steps: %s ms; the e2e cell's "
			   "median: %s ms.\n",
			num(b1, 32, 'u', in / 1e6), num(b2, 32, 'u', ops / 1e6), num(b3, 32, 'u', out / 1e6),
			num(b4, 32, 'u', r->sum[B * a->ncells + c].s.median / 1e6));
	}
}

/* Per-op versus end to end: the time-weighted composition, then the rankings. */
static void write_md_composition(const struct report *r, FILE *f)
{
	const struct analysis *a = r->a;
	char b1[32], b2[32], b3[32], e1[96], e2[96], e3[96], e4[96], e5[96];
	fprintf(f, "\n## Per-op versus end to end\n\n");
	if (!r->ncomp) {
		fprintf(f, "No workload has both op cells and an e2e cell.\n");
	} else {
		fprintf(f, "Per block: predicted = (baseline e2e + sum over op cells of count x (mode - baseline)) / "
			   "baseline e2e (the time outside the op cells held fixed); measured = mode e2e / baseline e2e; "
			   "interaction = measured / predicted (composes: CI inside the declared margin, else inside the "
			   "e2e cell's noise floor); coverage = sum of count x op time / e2e time. %s, %.0f%% CIs. The "
			   "unweighted geomean of op-cell ratios is shown for contrast: it weights a 1 us op like a 1 ms "
			   "one.\n\n",
			r->o.test != STATS_TEST_RANK ? "Geometric means (20%-trimmed with the trimmed t test) over blocks with t CIs of their logs"
						  : "Medians over blocks, block-bootstrap CIs (none from "
						    "blocks too few for a distribution-free CI at that level: "
						    "6 at 95%)",
			100 * r->o.conf);
		fprintf(f, "| workload | mode | blocks | op cells | unweighted op geomean | predicted e2e ratio | measured e2e ratio | "
			   "interaction | verdict | coverage (baseline) | coverage (mode) |\n"
			   "|---|---|---|---|---|---|---|---|---|---|---|\n");
		for (size_t i = 0; i < r->ncomp; i++) {
			const struct rep_comp *c = &r->comp[i];
			if (!c->ok) {
				fprintf(f, "| %s | %s | %zu | %zu | %s | - | - | - | not computed: %s | - | - |\n",
					c->workload, a->modes[c->mode], c->n, c->nops,
					num(b1, 32, 'r', c->geomean), c->note);
				continue;
			}
			fprintf(f, "| %s | %s | %zu | %zu | %s | %s | %s | %s | **%s** | %s | %s |\n", c->workload,
				a->modes[c->mode], c->n, c->nops, num(b1, 32, 'r', c->geomean),
				est_ci(e1, 96, 'r', &c->pred), est_ci(e2, 96, 'r', &c->meas),
				est_ci(e3, 96, 'r', &c->inter), rep_compose_name(c->verdict),
				est_ci(e4, 96, '1', &c->cov_base), est_ci(e5, 96, '1', &c->cov_mode));
		}
	}
	md_parts(r, f);
	fprintf(f, "\n### Rankings\n\n");
	if (!r->ntau) {
		fprintf(f, "No workload has both op cells and an e2e cell.\n");
		return;
	}
	fprintf(f, "| workload | modes | Kendall tau (unweighted geomean vs e2e) | p | Kendall tau (predicted vs measured e2e) | p | "
		   "explanation |\n|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < r->ntau; i++) {
		const struct rep_tau *t = &r->tau[i];
		fprintf(f, "| %s | %zu | %s | %s | %s | %s | %s |\n", t->workload, t->nmodes,
			num(b1, 32, 'u', t->tau), num(b2, 32, 'p', t->p), num(b3, 32, 'u', t->tau_pred),
			num(e1, 32, 'p', t->p_pred), t->explanation ? t->explanation : "-");
	}
	fprintf(f, "\n");
	for (size_t i = 0; i < r->ntau; i++)
		if (r->tau[i].why)
			fprintf(f, "- %s (%s): %s\n", r->tau[i].workload, r->tau[i].explanation,
				r->tau[i].why);
}

/* The device as a stratum (report.h, struct rep_device): only for runs on two or more. */
static void write_md_devices(const struct report *r, FILE *f)
{
	const struct analysis *a = r->a;
	char b1[32], b2[32], b3[32];
	if (!r->ndev)
		return;
	fprintf(f, "\n## Devices\n\nThe units ran on %zu devices; pairs are formed within blocks, "
		   "so they stay within a device when every block ran on one (%zu block%s did not). "
		   "Per device, over the blocks that ran whole on it:\n\n| device | blocks |",
		r->ndev, r->split_blocks, r->split_blocks == 1 ? "" : "s");
	for (size_t i = 0; i < r->naa; i++)
		fprintf(f, " A/A noise floor %s |", a->modes[r->aa[i].mode]);
	fprintf(f, "\n|---|---|");
	for (size_t i = 0; i < r->naa; i++)
		fprintf(f, "---|");
	fprintf(f, "\n");
	for (size_t d = 0; d < r->ndev; d++) {
		fprintf(f, "| %s | %zu |", r->dev[d].name, r->dev[d].nblocks);
		for (size_t i = 0; i < r->naa; i++)
			fprintf(f, " %s |", num(b1, 32, '2', 100 * r->dev[d].aa_floor[i]));
		fprintf(f, "\n");
	}
	fprintf(f, "\n### Drift with run order, per device\n\n| device | mode | points | Spearman rho "
		   "| p | flagged |\n|---|---|---|---|---|---|\n");
	for (size_t d = 0; d < r->ndev; d++)
		for (size_t m = 0; m < a->nmodes; m++) {
			const struct rep_drift *x = &r->dev[d].drift[m];
			fprintf(f, "| %s | %s | %zu | %s | %s | %s |\n", r->dev[d].name, a->modes[m], x->n,
				num(b1, 32, 'u', x->rho), num(b2, 32, 'p', x->p), x->flagged ? "yes" : "no");
		}
	fprintf(f, "\n### The baseline's level per device\n\nMedian of the unit medians (us), "
		   "the blocks, and the robust spread (1.4826 MAD of the logs, %%); two devices "
		   "differ beyond the noise floor when their log levels differ by more than twice "
		   "the standard error of the difference.\n\n| cell |");
	for (size_t d = 0; d < r->ndev; d++)
		fprintf(f, " %s |", r->dev[d].name);
	fprintf(f, " beyond the noise floor |\n|---|");
	for (size_t d = 0; d < r->ndev; d++)
		fprintf(f, "---|");
	fprintf(f, "---|\n");
	for (size_t c = 0; c < a->ncells; c++) {
		fprintf(f, "| %s |", a->cells[c].name);
		for (size_t d = 0; d < r->ndev; d++) {
			const struct an_level *l = &r->dev[d].level[c];
			fprintf(f, " %s (%zu, %s) |", num(b1, 32, 'x', exp(l->level) / 1e3), l->n,
				num(b2, 32, '1', 100 * (exp(l->spread) - 1)));
		}
		struct sbuf sb;
		sbuf_init(&sb);
		sbuf_adds(&sb, "");
		for (size_t k = 0; k < r->ndevdiff; k++) {
			const struct rep_devdiff *x = &r->devdiff[k];
			if (x->cell == c)
				sbuf_addf(&sb, "%s%s vs %s: %s (2 SE %s)", sb.len ? "; " : "",
					  r->dev[x->d1].name, r->dev[x->d2].name,
					  num(b1, 32, '1', 100 * (exp(x->diff) - 1)),
					  num(b3, 32, '1', 100 * (exp(x->two_se) - 1)));
		}
		fprintf(f, " %s |\n", sb.len ? sb.buf : "no");
		sbuf_release(&sb);
	}
}

/* How much of the plan the file records: nothing when every planned unit is recorded. */
static void write_md_progress(const struct report *r, FILE *f)
{
	const struct rep_progress *p = &r->progress;
	if (!p->planned)
		return;
	const char *st = meta(r, "status");
	fprintf(f, "## Progress of the plan\n\n"
		   "%zu of the plan's %zu units are recorded (run status `%s`); %zu of its %zu "
		   "blocks are complete. The verdicts below pair the blocks that have both sides of "
		   "a comparison; `harness run --resume` runs the rest",
		p->recorded, p->planned, *st ? st : "-", p->complete, p->nblocks);
	fprintf(f, ", about %.1f hours of one slot by the recorded lengths (per unit the median of "
		   "its mode, workload and kind)", p->remaining_s / 3600);
	if (p->unknown)
		fprintf(f, ", and %zu unit(s) of kinds never run", p->unknown);
	fprintf(f, ".\n\n| block | cold units | warm probes |\n|---|---|---|\n");
	for (size_t k = 0; k < p->nblocks; k++)
		fprintf(f, "| %lld | %zu of %zu | %zu of %zu |\n", (long long)p->blocks[k].block,
			p->blocks[k].cold, p->blocks[k].cold_planned, p->blocks[k].warm,
			p->blocks[k].warm_planned);
	fprintf(f, "\n| mode | workload | cold units | their blocks |\n|---|---|---|---|\n");
	for (size_t k = 0; k < p->ngroups; k++) {
		const struct rep_progress_group *g = &p->groups[k];
		fprintf(f, "| %s | %s | %zu of %zu | ", g->mode, *g->workload ? g->workload : "(all)",
			g->cold, g->cold_planned);
		for (size_t i = 0; i < g->cold; i++)
			fprintf(f, "%s%lld", i ? ", " : "", (long long)g->blocks[i]);
		fprintf(f, "%s |\n", g->cold ? "" : "-");
	}
	fprintf(f, "\n");
}

/* s as the text of a markdown table cell: '|' escaped (a kernel with several launch
 * configs lists them joined by '|'). */
static void md_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
}

/* Where a mode's units chose differently: a table when some did, a line when none did, nothing
 * when no unit recorded a choice. */
static void write_md_choices(const struct report *r, FILE *f)
{
	const struct analysis *a = r->a;
	char b1[32], b2[32];
	if (!a->choice)
		return;
	fprintf(f, "\n## Choices that differ between units\n\n");
	if (!r->nchoices) {
		fprintf(f, "In every cell, each mode's units (its A/A copies' with them) chose one "
			   "config.\n");
		return;
	}
	fprintf(f, "Per mode, with its A/A copies (the same configuration run again), the cells where "
		   "its units chose different configs: each config, the units that chose it (block, "
		   "and the copy's name for a copy's unit) and the median of their unit medians, "
		   "fastest first. What a slow unit ran that a fast one did not; a difference here is "
		   "one candidate cause of the mode's spread, not a measured one. Where the units "
		   "recorded each kernel's config (`runtime.<cell>` in their info), the last column "
		   "names the kernels whose config differs from the fastest row's.\n\n"
		   "| cell | mode | config | units | blocks | median (us) | vs fastest | kernels unlike the fastest |\n"
		   "|---|---|---|---|---|---|---|---|\n");
	for (size_t k = 0; k < r->nchoices; k++) {
		const struct rep_choice *q = &r->choices[k];
		fprintf(f, "| %s | %s%s | `%s` | %zu | ", a->cells[q->cell].name, a->modes[q->mode],
			q->with_copies ? " (+ A/A copies)" : "", q->config, q->units);
		for (size_t i = 0; i < q->units; i++)
			fprintf(f, "%s%lld%s%s", i ? ", " : "", (long long)q->block[i],
				q->unit_mode[i] == q->mode ? "" : " ",
				q->unit_mode[i] == q->mode ? "" : a->modes[q->unit_mode[i]]);
		fprintf(f, " | %s | %s | ", num(b1, 32, 'u', q->median_ns / 1e3),
			num(b2, 32, 'r', q->ratio));
		md_text(f, q->differs ? q->differs : "-");
		fputs(" |\n", f);
	}
}

static void write_md(const struct report *r, FILE *f)
{
	const struct analysis *a = r->a;
	char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32], b7[32], b8[32];
	size_t units_ok = 0, units_all = 0;
	for (size_t m = 0; m < a->nmodes; m++) {
		units_ok += a->units_ok[m];
		units_all += a->units_all[m];
	}
	fprintf(f, "# Report: %s\n\n", *meta(r, "experiment_name") ? meta(r, "experiment_name") : a->path);
	fprintf(f, "- results: `%s` (harness %s, commit %.12s, backend %s)\n", a->path,
		meta(r, "harness_version"), meta(r, "git_commit"), meta(r, "backend"));
	fprintf(f, "- design: %zu blocks, order %s, seed %s; %zu of %zu cold units ok; %zu warm probes; %lld samples\n",
		a->nblocks, *meta(r, "order") ? meta(r, "order") : "-", *meta(r, "seed") ? meta(r, "seed") : "-",
		units_ok, units_all, a->warm_units, (long long)a->nsamples);
	if (*meta(r, "sequential"))
		fprintf(f, "- sequential design (%s spending, at most %s blocks, until %s): %s; every "
			   "test and CI here at its last look's level, alpha %.4g (docs/report-format.md, "
			   "\"Blocks until decided\")\n", meta(r, "sequential"),
			meta(r, "sequential_max_repeats"), meta(r, "sequential_until"),
			*meta(r, "sequential_stopped") ? meta(r, "sequential_stopped") : "going on",
			r->o.alpha);
	else if (*meta(r, "repeats_extended"))
		fprintf(f, "- plan extended: %s (`harness run --resume --repeats`; the audit's repeats "
			   "check weighs it)\n", meta(r, "repeats_extended"));
	if (a->paired)
		fprintf(f, "- baseline: `%s`; ratio = mode / baseline per block (< 1: the mode is faster); "
			   "paired by block\n",
			a->modes[r->baseline]);
	else
		fprintf(f, "- baseline: `%s`; ratio = median(mode) / median(baseline) (< 1: the mode is "
			   "faster); NOT paired (the data has no blocks): Mann-Whitney tests, no exact CIs, "
			   "geometric means without CIs\n",
			a->modes[r->baseline]);
	/* modes with their own [modes.measure]: their ratios mix tuning and measurement */
	size_t own = 0;
	for (size_t m = 0; m < a->nmodes; m++) {
		if (!a->measure[m])
			continue;
		fprintf(f, "%s`%s` (%s)", own++ ? "; " : "- measured otherwise ([modes.measure]): ",
			a->modes[m], a->measure[m]);
	}
	if (own)
		fputs("; a ratio between modes that measure differently includes that difference\n",
		      f);
	char mb[48] = "none";
	if (!isnan(r->margin))
		snprintf(mb, sizeof(mb), "+-%.2f%% (%s)", 100 * r->margin, r->margin_source);
	fprintf(f, "- decisions: %s, %.0f%% CIs, alpha %.3g, p adjusted by %s within each family "
		   "(per %s; the A/A copies apart); SAME when the CI lies inside the cell's noise floor "
		   "(two processes' 95%% range, clamped to [%.1f%%, %.0f%%]) or the declared margin: %s; "
		   "bootstrap (compositions) %zu resamples, seed %llu\n\n",
		r->o.test == STATS_TEST_TRIMMED
			? (a->paired ? "20%-trimmed t test on paired log ratios (Student's below 5 blocks)"
				     : "Yuen's 20%-trimmed t test on logs")
		: r->o.test == STATS_TEST_T ? (a->paired ? "Student's paired t test on log ratios"
							 : "Welch's t test on logs")
					    : (a->paired ? "exact signed-rank test" : "Mann-Whitney test"),
		100 * r->o.conf, r->o.alpha, rep_adjust_name(r->o.adjust),
		r->o.family_workload ? "workload" : "run", 100 * STATS_FLOOR_MIN,
		100 * STATS_FLOOR_MAX, mb, r->o.nboot, (unsigned long long)r->o.seed);

	write_md_progress(r, f);
	fprintf(f, "## Verdicts against the baseline\n\n"
		   "ratio and CI: the deciding test's (t: the geometric mean of the per-block ratios); "
		   "family (size) its multiplicity family; floor: the cell's noise floor; median ratio "
		   "and its exact distribution-free CI, and the signed-rank p, beside it.\n\n"
		   "| cell | mode | n | ratio | CI | p | p adj | family | floor | median ratio | exact CI (coverage) | p signed-rank | IQR overlap | verdict | to decide |\n"
		   "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < r->ncmp; i++)
		md_cmp_row(r, &r->cmp[i], f);

	fprintf(f, "\n## Per model and overall\n\n"
		   "Geometric mean of op-cell ratios (t CI over the blocks with every op cell), the e2e cell, verdict counts over all cells, "
		   "cells where the mode is Pareto-equivalent-or-better than the baseline, median spread ratio.\n\n"
		   "| scope | mode | op cells | geomean | CI | e2e ratio | e2e verdict | faster | slower | same | inconclusive | Pareto eq-or-better | spread ratio |\n"
		   "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (size_t g = 0; g < r->nagg; g++) {
		const struct rep_agg *x = &r->agg[g];
		fprintf(f, "| %s | %s | %zu | %s | [%s, %s] | %s | %s | %zu | %zu | %zu | %zu | %zu/%zu | %s |\n",
			x->scope, a->modes[x->mode], x->ncells, num(b1, 32, 'r', x->geomean),
			num(b2, 32, 'r', x->lo), num(b3, 32, 'r', x->hi),
			num(b4, 32, 'r', x->e2e_ratio),
			x->has_e2e ? stats_verdict_name(x->e2e_verdict) : "-", x->wins, x->losses,
			x->same, x->inconclusive, x->pareto_ok, x->pareto_cells,
			num(b5, 32, 's', x->spread_ratio_median));
	}

	fprintf(f, "\n## Per cell and mode (unit medians)\n\n"
		   "spread: IQR / median of the unit medians; unit SE: the median over units of each unit "
		   "median's relative standard error from its own samples; between processes: the share of "
		   "the variance of the log unit medians that the units' own errors do not explain "
		   "(between - mean SE^2) / between, a one-way random-effects decomposition (Kalibera & "
		   "Jones). Where it is high, more blocks narrow a CI and more samples per unit do not.\n\n"
		   "| cell | mode | units | median (us) | IQR (us) | spread | unit SE | between processes | min (us) | max (us) | setup median (s) | Pareto front |\n"
		   "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (size_t c = 0; c < a->ncells; c++)
		for (size_t m = 0; m < a->nmodes; m++) {
			const struct rep_summary *s = &r->sum[m * a->ncells + c];
			fprintf(f, "| %s | %s | %zu | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				a->cells[c].name, a->modes[m], s->n, num(b1, 32, 'u', s->s.median / 1e3),
				num(b2, 32, 'u', s->s.iqr / 1e3), num(b3, 32, '2', 100 * s->spread),
				num(b7, 32, '2', 100 * s->unit_se), num(b8, 32, '1', 100 * s->vc.share),
				num(b4, 32, 'u', s->s.min / 1e3), num(b5, 32, 'u', s->s.max / 1e3),
				num(b6, 32, 'u', s->setup.median),
				s->n ? (r->front[m * a->ncells + c] ? "yes" : "no") : "-");
		}

	fprintf(f, "\n## Noise floors\n\n"
		   "Per cell: s, the standard deviation of the log ratio of two processes of one "
		   "configuration over blocks (the A/A pair's; else the median over the cell's "
		   "comparisons of theirs), and the floor exp(1.96 s) - 1 clamped to [%.1f%%, %.0f%%]: SAME "
		   "needs the CI inside it.\n\n"
		   "| cell | from | s (log) | floor |\n|---|---|---|---|\n",
		100 * STATS_FLOOR_MIN, 100 * STATS_FLOOR_MAX);
	for (size_t c = 0; c < a->ncells; c++)
		fprintf(f, "| %s | %s | %s | %s |\n", a->cells[c].name,
			rep_floor_src_name(r->floor_src[c]), num(b1, 32, 'p', r->floor_s[c]),
			num(b2, 32, '2', 100 * r->floor[c]));

	fprintf(f, "\n## A/A control\n\n");
	if (!r->naa)
		fprintf(f, "No A/A mode (`aa_of`) in this run: the false-positive rate of this design is unknown.\n");
	else {
		fprintf(f, "| mode | copy of | cells | false FASTER/SLOWER | rate | noise floor (p95 of abs log ratio) | op cells | e2e cells | e2e cells not host-bound |\n|---|---|---|---|---|---|---|---|---|\n");
		for (size_t i = 0; i < r->naa; i++) {
			const struct rep_aa *q = &r->aa[i];
			fprintf(f, "| %s | %s | %zu | %zu | %s | %s | %s | %s | %s |\n", a->modes[q->mode], a->modes[q->of],
				q->cells, q->false_positives,
				num(b1, 32, '1', q->cells ? 100.0 * (double)q->false_positives / (double)q->cells : NAN),
				num(b2, 32, '2', 100 * q->noise_floor), num(b3, 32, '2', 100 * q->noise_floor_op),
				num(b4, 32, '2', 100 * q->noise_floor_e2e),
				num(b5, 32, '2', 100 * q->noise_floor_e2e_nhb));
		}
	}

	fprintf(f, "\n## Drift with run order\n\n| mode | points | Spearman rho | p | flagged |\n|---|---|---|---|---|\n");
	for (size_t i = 0; i < r->ndrift; i++) {
		const struct rep_drift *d = &r->drift[i];
		fprintf(f, "| %s | %zu | %s | %s | %s |\n", a->modes[d->mode], d->n,
			num(b1, 32, 'u', d->rho), num(b2, 32, 'p', d->p), d->flagged ? "yes" : "no");
	}

	write_md_devices(r, f);
	write_md_composition(r, f);
	write_md_choices(r, f);

	fprintf(f, "\n## Warnings\n\n");
	if (!r->nwarnings)
		fprintf(f, "None.\n");
	for (size_t i = 0; i < r->nwarnings; i++)
		fprintf(f, "- %s\n", r->warnings[i]);
}

/* ---- JSON ------------------------------------------------------------------------ */

static json_t *jcmp(const struct report *r, const struct rep_cmp *x)
{
	const struct analysis *a = r->a;
	const struct stats_comparison *c = &x->c;
	json_t *o = json_pack("{s:o, s:o, s:o, s:b}", "cell", jw_str(a->cells[x->cell].name), "mode",
			      jw_str(a->modes[x->mode]), "reference", jw_str(a->modes[x->ref]), "compared",
			      x->ok);
	if (!x->ok) {
		json_object_set_new(o, "why", jw_str(x->note));
		return o;
	}
	json_object_set_new(o, "n", json_integer((json_int_t)c->n));
	json_object_set_new(o, "ratio", jw_num(c->ratio));
	json_object_set_new(o, "hl_ratio", jw_num(c->hl_ratio));
	json_object_set_new(o, "ci", json_pack("[o, o]", jw_num(c->lo), jw_num(c->hi)));
	json_object_set_new(o, "exact_ci", json_pack("[o, o]", jw_num(c->os_lo), jw_num(c->os_hi)));
	json_object_set_new(o, "exact_ci_coverage", jw_num(c->os_coverage));
	json_object_set_new(o, "test", json_string(stats_test_name(c->test)));
	json_object_set_new(o, "p", jw_num(c->p));
	json_object_set_new(o, "p_adj", jw_num(c->p_adj));
	json_object_set_new(o, "family", jw_str(x->family));
	json_object_set_new(o, "family_size", json_integer((json_int_t)x->family_size));
	json_object_set_new(o, "noise_floor", jw_num(c->floor));
	json_object_set_new(o, "margin", jw_num(c->margin));
	json_object_set_new(o, "inside_margin", json_boolean(c->inside_margin));
	json_object_set_new(o, "median_ratio", jw_num(c->median_ratio));
	json_object_set_new(o, "p_t", jw_num(c->p_t));
	json_object_set_new(o, "df", jw_num(c->df));
	json_object_set_new(o, "p_signed_rank", jw_num(c->p_rank));
	json_object_set_new(o, "p_signed_rank_exact", json_boolean(c->p_rank_exact));
	json_object_set_new(o, "p_sign", jw_num(c->p_sign));
	json_object_set_new(o, "sigma_log", jw_num(c->sigma_log));
	json_object_set_new(o, "mde", jw_num(c->mde));
	json_object_set_new(o, "blocks_needed", jw_num(c->blocks_needed));
	json_object_set_new(o, "iqr_overlap", json_boolean(x->iqr_overlap));
	json_object_set_new(o, "spread_ratio", jw_num(x->spread_ratio));
	json_object_set_new(o, "verdict", json_string(stats_verdict_name(c->verdict)));
	return o;
}

static json_t *jsummary(const struct stats_summary *s)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "n", (json_int_t)s->n, "median",
			 jw_num(s->median), "q1", jw_num(s->q1), "q3", jw_num(s->q3), "iqr", jw_num(s->iqr),
			 "min", jw_num(s->min), "max", jw_num(s->max));
}

/* "devices" (docs/report-format.md): only for runs on two or more devices. */
static json_t *jdevices(const struct report *r)
{
	const struct analysis *a = r->a;
	json_t *devs = json_array(), *diffs = json_array();
	for (size_t d = 0; d < r->ndev; d++) {
		const struct rep_device *v = &r->dev[d];
		json_t *aa = json_array(), *dr = json_array(), *lev = json_array();
		for (size_t i = 0; i < r->naa; i++)
			json_array_append_new(aa, json_pack("{s:o, s:o, s:o}", "mode",
				jw_str(a->modes[r->aa[i].mode]), "copy_of", jw_str(a->modes[r->aa[i].of]),
				"noise_floor", jw_num(v->aa_floor[i])));
		for (size_t m = 0; m < a->nmodes; m++)
			json_array_append_new(dr, json_pack("{s:o, s:I, s:o, s:o, s:b}", "mode",
				jw_str(a->modes[m]), "n", (json_int_t)v->drift[m].n, "spearman_rho",
				jw_num(v->drift[m].rho), "p", jw_num(v->drift[m].p), "flagged",
				v->drift[m].flagged));
		for (size_t c = 0; c < a->ncells; c++) {
			const struct an_level *l = &v->level[c];
			json_array_append_new(lev, json_pack("{s:o, s:I, s:o, s:o, s:o}", "cell",
				jw_str(a->cells[c].name), "n", (json_int_t)l->n, "median_ns",
				jw_num(exp(l->level)), "log_spread", jw_num(l->spread), "log_se",
				jw_num(sqrt(l->se2))));
		}
		json_array_append_new(devs, json_pack("{s:o, s:I, s:o, s:o, s:o}", "device",
			jw_str(v->name), "blocks", (json_int_t)v->nblocks, "aa", aa, "drift", dr,
			"baseline_level", lev));
	}
	for (size_t k = 0; k < r->ndevdiff; k++) {
		const struct rep_devdiff *x = &r->devdiff[k];
		json_array_append_new(diffs, json_pack("{s:o, s:o, s:o, s:o, s:o}", "cell",
			jw_str(a->cells[x->cell].name), "device_a", jw_str(r->dev[x->d1].name),
			"device_b", jw_str(r->dev[x->d2].name), "log_difference", jw_num(x->diff),
			"two_se", jw_num(x->two_se)));
	}
	return json_pack("{s:o, s:s, s:I, s:o, s:o}", "devices", devs, "baseline",
			 a->modes[r->baseline], "split_blocks", (json_int_t)r->split_blocks,
			 "level_differences", diffs, "note",
			 jw_str("per device over the blocks that ran whole on it"));
}

static json_t *build_json(const struct report *r)
{
	const struct analysis *a = r->a;
	json_t *root = json_object();
	json_object_set_new(root, "format", json_string("harness-report"));
	json_object_set_new(root, "version", json_integer(2)); /* 2: 2026-11-28, the t tests decide */
	json_t *run = json_object();
	static const char *const keys[] = { "experiment_name", "experiment_sha256", "harness_version",
					    "git_commit", "backend", "order", "seed", "start_utc",
					    "end_utc", "host", "cpu_model", "repeats_extended" };
	json_object_set_new(run, "path", jw_str(a->path));
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		json_object_set_new(run, keys[i], jw_str(meta(r, keys[i])));
	json_object_set_new(run, "blocks", json_integer((json_int_t)a->nblocks));
	json_object_set_new(run, "samples", json_integer((json_int_t)a->nsamples));
	json_object_set_new(run, "warm_units", json_integer((json_int_t)a->warm_units));
	json_object_set_new(run, "paired", json_boolean(a->paired));
	json_object_set_new(root, "run", run);
	json_object_set_new(root, "settings",
			    json_pack("{s:o, s:f, s:o, s:s, s:f, s:f, s:I, s:I, s:s, s:s, s:s, s:f, s:f}",
				      "baseline", jw_str(a->modes[r->baseline]), "alpha", r->o.alpha,
				      "margin", jw_num(r->margin), "margin_source", r->margin_source,
				      "conf", r->o.conf, "power", r->o.power, "nboot",
				      (json_int_t)r->o.nboot, "seed", (json_int_t)r->o.seed, "test",
				      stats_test_name(r->o.test), "multiplicity",
				      rep_adjust_name(r->o.adjust), "family",
				      r->o.family_workload ? "workload" : "run", "floor_min",
				      STATS_FLOOR_MIN, "floor_max", STATS_FLOOR_MAX));
	json_object_set_new(json_object_get(root, "settings"), "coverage_min", json_real(r->o.coverage_min));
	json_t *modes = json_array();
	for (size_t m = 0; m < a->nmodes; m++) {
		json_t *fail = json_object();
		for (size_t k = 0; k < a->nfailed; k++)
			if (a->failed[k].count[m])
				jw_set(fail, a->failed[k].status,
				       json_integer((json_int_t)a->failed[k].count[m]));
		json_array_append_new(modes, json_pack("{s:o, s:o, s:o, s:I, s:I, s:o}", "name", jw_str(a->modes[m]),
						       "aa_of", jw_str(a->aa_of[m]),
						       "measure", jw_str(a->measure[m]),
						       "units_ok", (json_int_t)a->units_ok[m], "units",
						       (json_int_t)a->units_all[m], "failed", fail));
	}
	json_object_set_new(root, "modes", modes);
	json_t *cells = json_array();
	for (size_t c = 0; c < a->ncells; c++) {
		json_t *per = json_array();
		for (size_t m = 0; m < a->nmodes; m++) {
			const struct rep_summary *s = &r->sum[m * a->ncells + c];
			json_t *vc = json_pack("{s:I, s:o, s:o, s:o, s:o}", "units", (json_int_t)s->vc.n,
					       "between", jw_num(s->vc.between), "within",
					       jw_num(s->vc.within), "process", jw_num(s->vc.process),
					       "process_share", jw_num(s->vc.share));
			json_array_append_new(per, json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:b}", "mode",
							     jw_str(a->modes[m]), "unit_medians_ns",
							     jsummary(&s->s), "spread", jw_num(s->spread),
							     "unit_rel_se", jw_num(s->unit_se),
							     "log_variance", vc, "setup_s",
							     jsummary(&s->setup), "pareto_front",
							     s->n && r->front[m * a->ncells + c]));
		}
		json_array_append_new(cells, json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:s}", "name",
						       jw_str(a->cells[c].name), "kind",
						       jw_str(a->cells[c].kind), "workload",
						       jw_str(a->cells[c].workload), "modes", per,
						       "noise_floor", jw_num(r->floor[c]),
						       "noise_floor_sd_log", jw_num(r->floor_s[c]),
						       "noise_floor_source",
						       rep_floor_src_name(r->floor_src[c])));
	}
	json_object_set_new(root, "cells", cells);
	json_t *cmps = json_array();
	for (size_t i = 0; i < r->ncmp; i++)
		json_array_append_new(cmps, jcmp(r, &r->cmp[i]));
	json_object_set_new(root, "comparisons", cmps);
	json_t *aggs = json_array();
	for (size_t g = 0; g < r->nagg; g++) {
		const struct rep_agg *x = &r->agg[g];
		json_array_append_new(aggs, json_pack("{s:o, s:o, s:I, s:o, s:[o, o], s:o, s:o, s:{s:I, s:I, s:I, s:I}, s:I, s:I, s:o}",
			"scope", jw_str(x->scope), "mode", jw_str(a->modes[x->mode]), "op_cells", (json_int_t)x->ncells,
			"geomean", jw_num(x->geomean), "ci", jw_num(x->lo), jw_num(x->hi), "e2e_ratio", jw_num(x->e2e_ratio),
			"e2e_verdict", x->has_e2e ? json_string(stats_verdict_name(x->e2e_verdict)) : json_null(),
			"verdicts", "FASTER", (json_int_t)x->wins, "SLOWER", (json_int_t)x->losses, "SAME",
			(json_int_t)x->same, "INCONCLUSIVE", (json_int_t)x->inconclusive,
			"pareto_eq_or_better", (json_int_t)x->pareto_ok, "pareto_cells", (json_int_t)x->pareto_cells,
			"spread_ratio_median", jw_num(x->spread_ratio_median)));
	}
	json_object_set_new(root, "aggregates", aggs);
	json_t *aa = json_array();
	for (size_t i = 0; i < r->naa; i++) {
		const struct rep_aa *q = &r->aa[i];
		json_t *cm = json_array();
		for (size_t k = 0; k < r->naacmp; k++)
			if (r->aacmp[k].mode == q->mode)
				json_array_append_new(cm, jcmp(r, &r->aacmp[k]));
		json_array_append_new(aa, json_pack("{s:o, s:o, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "mode", jw_str(a->modes[q->mode]),
			"copy_of", jw_str(a->modes[q->of]), "cells", (json_int_t)q->cells, "false_positives",
			(json_int_t)q->false_positives, "rate",
			jw_num(q->cells ? (double)q->false_positives / (double)q->cells : NAN),
			"noise_floor", jw_num(q->noise_floor), "noise_floor_op", jw_num(q->noise_floor_op),
			"noise_floor_e2e", jw_num(q->noise_floor_e2e), "noise_floor_e2e_not_host_bound",
			jw_num(q->noise_floor_e2e_nhb), "comparisons", cm));
	}
	json_object_set_new(root, "aa", aa);
	json_t *dr = json_array();
	for (size_t i = 0; i < r->ndrift; i++)
		json_array_append_new(dr, json_pack("{s:o, s:I, s:o, s:o, s:b}", "mode", jw_str(a->modes[r->drift[i].mode]),
			"n", (json_int_t)r->drift[i].n, "spearman_rho", jw_num(r->drift[i].rho), "p",
			jw_num(r->drift[i].p), "flagged", r->drift[i].flagged));
	json_object_set_new(root, "drift", dr);
	if (r->ndev)
		json_object_set_new(root, "devices", jdevices(r));
	json_t *tau = json_array();
	for (size_t i = 0; i < r->ntau; i++) {
		const struct rep_tau *t = &r->tau[i];
		json_array_append_new(tau, json_pack("{s:o, s:I, s:o, s:o, s:I, s:o, s:o, s:o, s:o}", "workload",
			jw_str(t->workload), "modes", (json_int_t)t->nmodes, "kendall_tau", jw_num(t->tau), "p",
			jw_num(t->p), "modes_pred", (json_int_t)t->nmodes_pred, "kendall_tau_pred",
			jw_num(t->tau_pred), "p_pred", jw_num(t->p_pred), "explanation", jw_str(t->explanation),
			"why", jw_str(t->why)));
	}
	json_object_set_new(root, "op_vs_e2e", tau);
	json_t *comp = json_array();
	for (size_t i = 0; i < r->ncomp; i++) {
		const struct rep_comp *c = &r->comp[i];
		json_t *o = json_pack("{s:o, s:o, s:o, s:I, s:I, s:b, s:o}", "workload", jw_str(c->workload),
				      "mode", jw_str(a->modes[c->mode]), "e2e_cell", jw_str(a->cells[c->e2e].name),
				      "op_cells", (json_int_t)c->nops, "n", (json_int_t)c->n, "ok", c->ok,
				      "geomean_unweighted", jw_num(c->geomean));
		const struct { const char *k, *kci; const struct rep_est *e; } est[] = {
			{ "pred_ratio", "pred_ci", &c->pred }, { "e2e_ratio", "e2e_ci", &c->meas },
			{ "interaction", "interaction_ci", &c->inter }, { "coverage", "coverage_ci", &c->cov_base },
			{ "coverage_mode", "coverage_mode_ci", &c->cov_mode },
		};
		for (size_t k = 0; k < ARRAY_SIZE(est); k++) {
			json_object_set_new(o, est[k].k, jw_num(est[k].e->est));
			json_object_set_new(o, est[k].kci, json_pack("[o, o]", jw_num(est[k].e->lo),
								     jw_num(est[k].e->hi)));
		}
		json_object_set_new(o, "margin", c->ok ? jw_num(c->margin) : json_null());
		json_object_set_new(o, "verdict", c->ok ? json_string(rep_compose_name(c->verdict)) : json_null());
		if (!c->ok)
			json_object_set_new(o, "why", jw_str(c->note));
		json_array_append_new(comp, o);
	}
	json_object_set_new(root, "composition", comp);
	json_t *parts = json_array();
	for (size_t k = 0; k < a->nparts; k++) {
		json_t *per = json_object();
		for (size_t m = 0; m < a->nmodes; m++)
			jw_set(per, a->modes[m], jw_num(a->parts[k].ns[m]));
		json_array_append_new(parts, json_pack("{s:o, s:o, s:o}", "cell", jw_str(a->parts[k].cell),
						       "part", jw_str(a->parts[k].part), "median_ns", per));
	}
	json_object_set_new(root, "e2e_parts", parts);
	if (a->choice) {
		json_t *ch = json_array();
		for (size_t k = 0; k < r->nchoices; k++) {
			const struct rep_choice *q = &r->choices[k];
			json_t *us = json_array();
			for (size_t i = 0; i < q->units; i++)
				json_array_append_new(us, json_pack("{s:I, s:o}", "block",
					(json_int_t)q->block[i], "mode", jw_str(a->modes[q->unit_mode[i]])));
			json_array_append_new(ch, json_pack("{s:o, s:o, s:b, s:o, s:o, s:o, s:o, s:o}",
				"cell", jw_str(a->cells[q->cell].name), "mode", jw_str(a->modes[q->mode]),
				"with_aa_copies", q->with_copies, "config", jw_str(q->config),
				"units", us, "median_ns", jw_num(q->median_ns), "ratio",
				jw_num(q->ratio), "kernels_differ", jw_str(q->differs)));
		}
		json_object_set_new(root, "choice_groups", ch);
	}
	if (r->progress.planned) {
		const struct rep_progress *p = &r->progress;
		json_t *bl = json_array(), *gr = json_array();
		for (size_t k = 0; k < p->nblocks; k++)
			json_array_append_new(bl, json_pack("{s:I, s:I, s:I, s:I, s:I}", "block",
				(json_int_t)p->blocks[k].block, "cold", (json_int_t)p->blocks[k].cold,
				"cold_planned", (json_int_t)p->blocks[k].cold_planned, "warm",
				(json_int_t)p->blocks[k].warm, "warm_planned",
				(json_int_t)p->blocks[k].warm_planned));
		for (size_t k = 0; k < p->ngroups; k++) {
			const struct rep_progress_group *g = &p->groups[k];
			json_t *bs = json_array();
			for (size_t i = 0; i < g->cold; i++)
				json_array_append_new(bs, json_integer(g->blocks[i]));
			json_array_append_new(gr, json_pack("{s:o, s:o, s:I, s:I, s:o}", "mode",
				jw_str(g->mode), "workload", jw_str(g->workload), "cold",
				(json_int_t)g->cold, "cold_planned", (json_int_t)g->cold_planned,
				"blocks", bs));
		}
		json_object_set_new(root, "progress", json_pack("{s:I, s:I, s:I, s:f, s:I, s:o, s:o}",
			"planned", (json_int_t)p->planned, "recorded", (json_int_t)p->recorded,
			"blocks_complete", (json_int_t)p->complete, "remaining_s", p->remaining_s,
			"remaining_unknown", (json_int_t)p->unknown, "blocks", bl, "groups", gr));
	}
	json_t *w = json_array();
	for (size_t i = 0; i < r->nwarnings; i++)
		json_array_append_new(w, jw_str(r->warnings[i]));
	json_object_set_new(root, "warnings", w);
	return root;
}

int report_write(const struct report *r, enum report_format fmt, FILE *f)
{
	if (fmt == REPORT_JSON) {
		if (jw_dump(build_json(r), f, JSON_INDENT(1) | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER,
			    "report"))
			return -1;
	} else if (fmt == REPORT_CSV) {
		report_write_csv(r, f);
	} else if (fmt == REPORT_HTML) {
		return error("the HTML report is written by html_write (html.h), not report_write");
	} else {
		write_md(r, f);
	}
	return ferror(f) ? error_errno("cannot write the report") : 0;
}
