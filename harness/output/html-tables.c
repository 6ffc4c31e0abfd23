/* html-tables.c: the HTML page's long tables (verdicts, aggregates, cells, composition,
 * devices, A/A, drift and per-op vs e2e), each a section folded in <details> and fitted to
 * the page width; the cell writers are html.c's (html-int.h). */
#include "config.h"
#include "harness/output/html-int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/util.h"

void html_write_verdicts(const struct report *r, FILE *f)
{
	const struct analysis *a = r->a;
	size_t n[5] = { 0 };
	for (size_t i = 0; i < r->ncmp; i++)
		n[r->cmp[i].ok ? r->cmp[i].c.verdict : 4]++;
	fprintf(f, "<section id=\"verdicts\">\n<h2>Verdicts against the baseline</h2>\n"
		   "<details class=\"long\"><summary>%zu comparisons: %zu FASTER, %zu SLOWER, %zu "
		   "SAME, %zu INCONCLUSIVE, %zu not compared</summary>\n", r->ncmp,
		n[VERDICT_FASTER], n[VERDICT_SLOWER], n[VERDICT_SAME], n[VERDICT_INCONCLUSIVE], n[4]);
	fputs("<table id=\"verdict-table\" class=\"verdicts wide\">\n<colgroup><col class=\"w-cell\">"
	      "<col class=\"w-mode\"><col class=\"w-n\"><col><col class=\"w-ci\"><col><col class=\"w-ci\">"
	      "<col><col><col><col class=\"w-n\"><col class=\"w-verdict\"><col class=\"w-decide\"></colgroup>\n"
	      "<thead><tr><th>cell</th><th>mode</th>"
	      "<th>n</th><th>ratio</th><th>CI</th><th>p</th><th>p adj (family)</th>"
	      "<th>noise floor</th><th>median ratio, exact CI (coverage)</th><th>p signed-rank</th>"
	      "<th>IQR overlap</th><th>verdict</th><th>to decide</th></tr></thead>\n<tbody>\n", f);
	for (size_t i = 0; i < r->ncmp; i++) {
		const struct rep_cmp *x = &r->cmp[i];
		const struct stats_comparison *c = &x->c;
		const char *v = x->ok ? stats_verdict_name(c->verdict) : "NOT-COMPARED";
		fprintf(f, "<tr class=\"verdict-%s\" data-cell=\"", v);
		html_esc(f, a->cells[x->cell].name);
		fputs("\" data-mode=\"", f);
		html_esc(f, a->modes[x->mode]);
		fputs("\">", f);
		html_td_name(f, a->cells[x->cell].name);
		html_td(f, a->modes[x->mode]);
		if (!x->ok) {
			fputs("<td colspan=\"9\"></td><td class=\"verdict\">not compared</td>", f);
			html_td(f, x->note);
			fputs("</tr>\n", f);
			continue;
		}
		char b1[48], b2[48], b3[48], b4[48];
		fprintf(f, "<td class=\"num\">%zu</td>", c->n);
		html_td_num(f, 'r', c->ratio);
		html_td_ci(f, c->lo, c->hi);
		html_td_num(f, 'p', c->p);
		fprintf(f, "<td class=\"num\">%s (", html_num(b1, 48, 'p', c->p_adj));
		html_esc(f, x->family);
		fprintf(f, ", %zu)</td>", x->family_size);
		html_td_num(f, '2', 100 * c->floor);
		fprintf(f, "<td class=\"num\">%s [%s, %s] (%s)</td>",
			html_num(b4, 48, 'r', c->median_ratio), html_num(b1, 48, 'r', c->os_lo),
			html_num(b2, 48, 'r', c->os_hi), html_num(b3, 48, '1', 100 * c->os_coverage));
		html_td_num(f, 'p', c->p_rank);
		html_td(f, x->iqr_overlap ? "yes" : "no");
		fprintf(f, "<td class=\"verdict\">%s</td><td>", v);
		if (c->verdict == VERDICT_INCONCLUSIVE)
			fprintf(f, "MDE %s; blocks for the floor: %s", html_num(b1, 48, '1', 100 * c->mde),
				html_num(b4, 48, 'n', ceil(c->blocks_needed)));
		else if (c->inside_margin)
			fprintf(f, "inside the declared &plusmn;%s", html_num(b1, 48, '2', 100 * c->margin));
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody>\n</table>\n</details>\n", f);
}

void html_write_aggregates(const struct report *r, FILE *f)
{
	const struct analysis *a = r->a;
	fprintf(f, "<section id=\"aggregates\">\n<h2>Per model and overall</h2>\n<details class=\"long\">"
		   "<summary>%zu rows: geometric mean of op-cell ratios (block-bootstrap CI), the e2e "
		   "cell, verdict counts over all cells, cells where the mode is "
		   "Pareto-equivalent-or-better than the baseline, median spread ratio</summary>\n",
		r->nagg);
	fputs("<table id=\"aggregate-table\" class=\"wide\">\n<thead><tr><th>scope</th><th>mode</th>"
	      "<th>op cells</th><th>geomean</th><th>CI</th><th>e2e ratio</th><th>e2e verdict</th>"
	      "<th>faster</th><th>slower</th><th>same</th><th>inconclusive</th>"
	      "<th>Pareto eq-or-better</th><th>spread ratio</th></tr></thead>\n<tbody>\n", f);
	for (size_t g = 0; g < r->nagg; g++) {
		const struct rep_agg *x = &r->agg[g];
		fputs("<tr>", f);
		html_td(f, x->scope);
		html_td(f, a->modes[x->mode]);
		fprintf(f, "<td class=\"num\">%zu</td>", x->ncells);
		html_td_num(f, 'r', x->geomean);
		html_td_ci(f, x->lo, x->hi);
		html_td_num(f, 'r', x->e2e_ratio);
		html_td(f, x->has_e2e ? stats_verdict_name(x->e2e_verdict) : "-");
		fprintf(f, "<td class=\"num\">%zu</td><td class=\"num\">%zu</td><td class=\"num\">%zu</td>"
			   "<td class=\"num\">%zu</td><td class=\"num\">%zu/%zu</td>", x->wins, x->losses,
			x->same, x->inconclusive, x->pareto_ok, x->pareto_cells);
		html_td_num(f, 's', x->spread_ratio_median);
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n</details>\n</section>\n", f);
}

void html_write_cells(const struct report *r, FILE *f)
{
	const struct analysis *a = r->a;
	fprintf(f, "<section id=\"cells\">\n<h2>Per cell and mode (unit medians)</h2>\n"
		   "<details class=\"long\"><summary>%zu cells &times; %zu modes: median, IQR, spread, "
		   "unit SE and the share of variance between processes, range, setup time, Pareto "
		   "front</summary>\n", a->ncells, a->nmodes);
	fputs("<table id=\"summary-table\" class=\"wide\">\n<thead><tr><th>cell</th><th>mode</th><th>units</th>"
	      "<th>median (&micro;s)</th><th>IQR (&micro;s)</th><th>spread</th><th>unit SE</th>"
	      "<th>between processes</th><th>min (&micro;s)</th>"
	      "<th>max (&micro;s)</th><th>setup median (s)</th><th>Pareto front</th></tr></thead>\n"
	      "<tbody>\n", f);
	for (size_t c = 0; c < a->ncells; c++)
		for (size_t m = 0; m < a->nmodes; m++) {
			const struct rep_summary *s = &r->sum[m * a->ncells + c];
			fputs("<tr>", f);
			html_td_name(f, a->cells[c].name);
			html_td(f, a->modes[m]);
			fprintf(f, "<td class=\"num\">%zu</td>", s->n);
			html_td_num(f, 'u', s->s.median / 1e3);
			html_td_num(f, 'u', s->s.iqr / 1e3);
			html_td_num(f, '2', 100 * s->spread);
			html_td_num(f, '2', 100 * s->unit_se);
			html_td_num(f, '1', 100 * s->vc.share);
			html_td_num(f, 'u', s->s.min / 1e3);
			html_td_num(f, 'u', s->s.max / 1e3);
			html_td_num(f, 'u', s->setup.median);
			html_td(f, s->n ? (r->front[m * a->ncells + c] ? "yes" : "no") : "-");
			fputs("</tr>\n", f);
		}
	fputs("</tbody>\n</table>\n</details>\n", f);
}

/* The time-weighted composition table (report.h struct rep_comp). */
static void write_composition(const struct report *r, FILE *f)
{
	if (!r->ncomp)
		return;
	fputs("<table id=\"composition\">\n<thead><tr><th>workload</th><th>mode</th><th>blocks</th>"
	      "<th>unweighted op geomean</th><th>predicted e2e ratio</th><th>CI</th>"
	      "<th>measured e2e ratio</th><th>CI</th><th>interaction</th><th>CI</th>"
	      "<th>verdict</th><th>coverage</th><th>CI</th></tr></thead>\n<tbody>\n", f);
	for (size_t i = 0; i < r->ncomp; i++) {
		const struct rep_comp *c = &r->comp[i];
		fputs("<tr>", f);
		html_td(f, c->workload);
		html_td(f, r->a->modes[c->mode]);
		fprintf(f, "<td class=\"num\">%zu</td>", c->n);
		html_td_num(f, 'r', c->geomean);
		const struct rep_est *e[] = { &c->pred, &c->meas, &c->inter, &c->cov_base };
		for (size_t k = 0; k < 4; k++) {
			double s = k == 3 ? 100 : 1;
			if (k == 3)
				html_td(f, c->ok ? rep_compose_name(c->verdict) : c->note);
			char b1[48], b2[48];
			html_td_num(f, k == 3 ? '1' : 'r', s * e[k]->est);
			fprintf(f, "<td class=\"num\">[%s, %s]</td>", html_num(b1, 48, k == 3 ? '1' : 'r', s * e[k]->lo),
				html_num(b2, 48, k == 3 ? '1' : 'r', s * e[k]->hi));
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
}

/* The device stratum (report.h, struct rep_device), only for runs on two or more devices:
 * per device its blocks, each A/A pair's noise floor and the modes whose drift is flagged;
 * then the cells where the baseline's level differs beyond the noise floor. */
static void write_devices(const struct report *r, FILE *f)
{
	const struct analysis *a = r->a;
	char b1[48], b2[48];
	if (!r->ndev)
		return;
	fprintf(f, "<h3 id=\"devices\">Devices</h3>\n<p>The units ran on %zu devices; pairs stay "
		   "within a block, %zu block%s ran on more than one device. Per device, over the "
		   "blocks that ran whole on it:</p>\n<table id=\"devices-table\">\n<thead><tr>"
		   "<th>device</th><th>blocks</th>",
		r->ndev, r->split_blocks, r->split_blocks == 1 ? "" : "s");
	for (size_t i = 0; i < r->naa; i++) {
		fputs("<th>A/A noise floor ", f);
		html_esc(f, a->modes[r->aa[i].mode]);
		fputs("</th>", f);
	}
	fputs("<th>drift flagged</th></tr></thead>\n<tbody>\n", f);
	for (size_t d = 0; d < r->ndev; d++) {
		const struct rep_device *v = &r->dev[d];
		fputs("<tr>", f);
		html_td(f, v->name);
		fprintf(f, "<td class=\"num\">%zu</td>", v->nblocks);
		for (size_t i = 0; i < r->naa; i++)
			html_td_num(f, '2', 100 * v->aa_floor[i]);
		struct sbuf sb;
		sbuf_init(&sb);
		sbuf_adds(&sb, "");
		for (size_t m = 0; m < a->nmodes; m++)
			if (v->drift[m].flagged)
				sbuf_addf(&sb, "%s%s (rho %.2f)", sb.len ? ", " : "", a->modes[m],
					  v->drift[m].rho);
		html_td(f, sb.len ? sb.buf : "none");
		sbuf_release(&sb);
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
	if (!r->ndevdiff) {
		fputs("<p>No two devices differ in the baseline's level beyond the noise floor.</p>\n", f);
		return;
	}
	fputs("<table id=\"devices-level-table\">\n<thead><tr><th>cell</th><th>device</th>"
	      "<th>device</th><th>level difference</th><th>2 SE</th></tr></thead>\n<tbody>\n", f);
	for (size_t k = 0; k < r->ndevdiff; k++) {
		const struct rep_devdiff *x = &r->devdiff[k];
		fputs("<tr>", f);
		html_td(f, a->cells[x->cell].name);
		html_td(f, r->dev[x->d1].name);
		html_td(f, r->dev[x->d2].name);
		snprintf(b1, sizeof(b1), "%.1f%%", 100 * (exp(x->diff) - 1));
		snprintf(b2, sizeof(b2), "%.1f%%", 100 * (exp(x->two_se) - 1));
		fprintf(f, "<td class=\"num\">%s</td><td class=\"num\">%s</td>", b1, b2);
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
}

void html_write_aa_drift_tau(const struct report *r, FILE *f, const struct plot_set *set, int *bad)
{
	const struct analysis *a = r->a;
	fputs("<section id=\"aa\">\n<h2>A/A control</h2>\n", f);
	if (!r->naa) {
		fputs("<p>No A/A mode (<code>aa_of</code>) in this run: the false-positive rate of this "
		      "design is unknown.</p>\n", f);
	} else {
		fputs("<table id=\"aa-table\">\n<thead><tr><th>mode</th><th>copy of</th><th>cells</th>"
		      "<th>false FASTER/SLOWER</th><th>rate</th><th>noise floor (p95 of |log ratio|)</th>"
		      "<th>op cells</th><th>e2e cells</th><th>e2e cells not host-bound</th></tr></thead>\n"
		      "<tbody>\n", f);
		for (size_t i = 0; i < r->naa; i++) {
			const struct rep_aa *q = &r->aa[i];
			fputs("<tr>", f);
			html_td(f, a->modes[q->mode]);
			html_td(f, a->modes[q->of]);
			fprintf(f, "<td class=\"num\">%zu</td><td class=\"num\">%zu</td>", q->cells,
				q->false_positives);
			html_td_num(f, '1', q->cells ? 100.0 * (double)q->false_positives / (double)q->cells : NAN);
			html_td_num(f, '2', 100 * q->noise_floor);
			html_td_num(f, '2', 100 * q->noise_floor_op);
			html_td_num(f, '2', 100 * q->noise_floor_e2e);
			html_td_num(f, '2', 100 * q->noise_floor_e2e_nhb);
			fputs("</tr>\n", f);
		}
		fputs("</tbody>\n</table>\n", f);
	}
	fputs("</section>\n<section id=\"drift\">\n<h2>Drift with run order</h2>\n"
	      "<table id=\"drift-table\">\n<thead><tr><th>mode</th><th>points</th><th>Spearman rho</th>"
	      "<th>p</th><th>flagged</th></tr></thead>\n<tbody>\n", f);
	for (size_t i = 0; i < r->ndrift; i++) {
		const struct rep_drift *d = &r->drift[i];
		fputs("<tr>", f);
		html_td(f, a->modes[d->mode]);
		fprintf(f, "<td class=\"num\">%zu</td>", d->n);
		html_td_num(f, 'u', d->rho);
		html_td_num(f, 'p', d->p);
		html_td(f, d->flagged ? "yes" : "no");
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
	*bad |= html_figures(f, set, "drift");
	write_devices(r, f);
	fputs("</section>\n<section id=\"op-e2e\">\n<h2>Per-op versus end to end</h2>\n", f);
	write_composition(r, f);
	*bad |= html_figures(f, set, "composition");
	if (!r->ntau) {
		fputs("<p>No workload has both op cells and an e2e cell.</p>\n", f);
	} else {
		fputs("<table id=\"op-e2e-table\">\n<thead><tr><th>workload</th><th>modes</th>"
		      "<th>Kendall tau (unweighted geomean)</th><th>p</th><th>Kendall tau (predicted)</th>"
		      "<th>p</th><th>explanation</th><th>why</th></tr></thead>\n<tbody>\n", f);
		for (size_t i = 0; i < r->ntau; i++) {
			const struct rep_tau *t = &r->tau[i];
			fputs("<tr>", f);
			html_td(f, t->workload);
			fprintf(f, "<td class=\"num\">%zu</td>", t->nmodes);
			html_td_num(f, 'u', t->tau);
			html_td_num(f, 'p', t->p);
			html_td_num(f, 'u', t->tau_pred);
			html_td_num(f, 'p', t->p_pred);
			html_td(f, t->explanation ? t->explanation : "-");
			html_td(f, t->why ? t->why : "");
			fputs("</tr>\n", f);
		}
		fputs("</tbody>\n</table>\n", f);
	}
	*bad |= html_figures(f, set, "op-e2e");
	fputs("</section>\n", f);
}

/* How much of the plan the file records (report-progress.c; html-int.h). */
void html_write_progress(const struct report *r, FILE *f)
{
	const struct rep_progress *p = &r->progress;
	if (!p->planned)
		return;
	const char *st = rec_meta_get(&r->a->meta, "status");
	fprintf(f, "<section id=\"progress\">\n<h2>Progress of the plan</h2>\n<p>%zu of the plan's "
		   "%zu units are recorded (run status <code>", p->recorded, p->planned);
	html_esc(f, st && *st ? st : "-");
	fprintf(f, "</code>); %zu of its %zu blocks are complete. The verdicts pair the blocks "
		   "that have both sides of a comparison; <code>harness run --resume</code> runs the "
		   "rest, about %.1f hours of one slot by the recorded lengths (per unit the median "
		   "of its mode, workload and kind)", p->complete, p->nblocks, p->remaining_s / 3600);
	if (p->unknown)
		fprintf(f, ", and %zu unit(s) of kinds never run", p->unknown);
	fputs(".</p>\n<table id=\"progress-blocks\"><thead><tr><th>block</th><th>cold "
	      "units</th><th>warm probes</th></tr></thead>\n<tbody>\n", f);
	for (size_t k = 0; k < p->nblocks; k++)
		fprintf(f, "<tr><td class=\"num\">%lld</td><td>%zu of %zu</td><td>%zu of %zu</td>"
			   "</tr>\n", (long long)p->blocks[k].block, p->blocks[k].cold,
			p->blocks[k].cold_planned, p->blocks[k].warm, p->blocks[k].warm_planned);
	fputs("</tbody>\n</table>\n<table id=\"progress-groups\"><thead><tr><th>mode</th>"
	      "<th>workload</th><th>cold units</th><th>their blocks</th></tr></thead>\n<tbody>\n", f);
	for (size_t k = 0; k < p->ngroups; k++) {
		const struct rep_progress_group *g = &p->groups[k];
		fputs("<tr>", f);
		html_td(f, g->mode);
		html_td(f, *g->workload ? g->workload : "(all)");
		fprintf(f, "<td>%zu of %zu</td><td>", g->cold, g->cold_planned);
		for (size_t i = 0; i < g->cold; i++)
			fprintf(f, "%s%lld", i ? ", " : "", (long long)g->blocks[i]);
		fprintf(f, "%s</td></tr>\n", g->cold ? "" : "-");
	}
	fputs("</tbody>\n</table>\n</section>\n", f);
}

/* Where a mode's units chose differently (report-choices.c; html-int.h). */
void html_write_choices(const struct report *r, FILE *f)
{
	const struct analysis *a = r->a;
	if (!a->choice)
		return;
	fputs("<section id=\"choices\">\n<h2>Choices that differ between units</h2>\n", f);
	if (!r->nchoices) {
		fputs("<p>In every cell, each mode's units (its A/A copies' with them) chose one "
		      "config.</p>\n</section>\n", f);
		return;
	}
	fputs("<p>Per mode, with its A/A copies, the cells where its units chose different configs: "
	      "each config with its units, their blocks and the median of their unit medians, "
	      "fastest first; a candidate cause of the mode's spread, not a measured one; and, "
	      "where the units recorded each kernel's config, the kernels whose config differs "
	      "from the fastest row's.</p>\n"
	      "<table id=\"choices-table\" class=\"wide\">\n<thead><tr><th>cell</th><th>mode</th>"
	      "<th>config</th><th>units</th><th>blocks</th><th>median (us)</th><th>vs fastest</th>"
	      "<th>kernels unlike the fastest</th></tr></thead>\n<tbody>\n", f);
	for (size_t k = 0; k < r->nchoices; k++) {
		const struct rep_choice *q = &r->choices[k];
		fputs("<tr>", f);
		html_td_name(f, a->cells[q->cell].name);
		fputs("<td>", f);
		html_esc(f, a->modes[q->mode]);
		fprintf(f, "%s</td>", q->with_copies ? " (+ A/A copies)" : "");
		html_td(f, q->config);
		fprintf(f, "<td class=\"num\">%zu</td><td>", q->units);
		for (size_t i = 0; i < q->units; i++) {
			fprintf(f, "%s%lld%s", i ? ", " : "", (long long)q->block[i],
				q->unit_mode[i] == q->mode ? "" : " ");
			if (q->unit_mode[i] != q->mode)
				html_esc(f, a->modes[q->unit_mode[i]]);
		}
		fputs("</td>", f);
		html_td_num(f, 'u', q->median_ns / 1e3);
		html_td_num(f, 'r', q->ratio);
		html_td(f, q->differs ? q->differs : "-");
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n</section>\n", f);
}
