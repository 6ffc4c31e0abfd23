/* report-html.c: a built report as one self-contained HTML file (report.h, docs/plots.md):
 * the tables of the markdown form, the warnings, and the figures of plot.h drawn by
 * gnuplot's svg terminal and inlined.  Nothing external (no CSS, script or font files), so
 * it opens offline and can be mailed or attached to a review as is.
 *
 * Stable hooks for tests and scripts: every section has an id (run, verdicts, aggregates,
 * cells with div#cell-figures, aa, drift, op-e2e, warnings); the verdict table is
 * table#verdict-table.verdicts with one tr.verdict-<VERDICT> per comparison; every figure is
 * figure#fig-<plot id>.figure.fig-<kind> holding one svg.plot. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/output/plot.h"
#include "harness/analysis/audit.h"
#include "harness/analysis/hypothesis.h"
#include "harness/analysis/report.h"
#include "harness/base/util.h"

/* Text with &, <, >, " and ' escaped (for element content and attribute values). */
static void esc(FILE *f, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f); break;
		}
}

/* A number as report-write.c's markdown writes it: 'r' ratio, 'p' p-value, '1' and '2'
 * percent with 1 or 2 decimals, 'u' %.3f, 'n' a count, 's' %.2f; "-" for NaN. */
static const char *num(char *buf, size_t n, char style, double v)
{
	if (isnan(v))
		snprintf(buf, n, "-");
	else if (style == 'r')
		snprintf(buf, n, "%.4f", v);
	else if (style == 'p')
		snprintf(buf, n, "%.3g", v);
	else if (style == '1')
		snprintf(buf, n, "%.1f%%", v);
	else if (style == '2')
		snprintf(buf, n, "%.2f%%", v);
	else if (style == 'u')
		snprintf(buf, n, "%.3f", v);
	else if (style == 'n')
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.2f", v);
	return buf;
}

static const char *meta(const struct report *r, const char *k)
{
	const char *v = rec_meta_get(&r->a->meta, k);
	return v ? v : "";
}

/* A table cell: <td> with escaped text. */
static void td(FILE *f, const char *s)
{
	fputs("<td>", f);
	esc(f, s);
	fputs("</td>", f);
}

static void td_num(FILE *f, char style, double v)
{
	char b[48];
	fprintf(f, "<td class=\"num\">%s</td>", num(b, sizeof(b), style, v));
}

static void td_ci(FILE *f, double lo, double hi)
{
	char b1[48], b2[48];
	fprintf(f, "<td class=\"num\">[%s, %s]</td>", num(b1, 48, 'r', lo), num(b2, 48, 'r', hi));
}

/* The svg of one figure, inline: from "<svg" on (the XML prolog is not allowed inside
 * HTML), with every id and reference prefixed by the figure's id so that the gnuplot
 * definitions of several figures do not collide in one document. */
static int inline_svg(FILE *f, const struct plot_fig *fig)
{
	char *text = NULL;
	size_t len = 0;
	if (util_read_file(fig->path, &text, &len))
		return -1;
	const char *p = strstr(text, "<svg");
	if (!p) {
		free(text);
		return error("'%s' is not an SVG file", fig->path);
	}
	static const char *const refs[] = { "id='", "id=\"", "href='#", "href=\"#", "url(#" };
	fputs("<svg class=\"plot\"", f);
	p += 4;
	while (*p) {
		size_t k = 0;
		while (k < ARRAY_SIZE(refs) && strncmp(p, refs[k], strlen(refs[k])))
			k++;
		if (k < ARRAY_SIZE(refs) && (p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n' ||
					     p[-1] == ':' || p[-1] == '(' || k == 4)) {
			fputs(refs[k], f);
			fprintf(f, "%s-", fig->id);
			p += strlen(refs[k]);
		} else {
			fputc(*p++, f);
		}
	}
	free(text);
	return 0;
}

/* Every figure of one kind. */
static int figures(FILE *f, const struct plot_set *set, const char *kind)
{
	for (size_t i = 0; i < set->nfigs; i++) {
		const struct plot_fig *fig = &set->figs[i];
		if (strcmp(fig->kind, kind))
			continue;
		fprintf(f, "<figure id=\"fig-%s\" class=\"figure fig-%s\">\n", fig->id, fig->kind);
		if (inline_svg(f, fig))
			return -1;
		fputs("<figcaption><strong>", f);
		esc(f, fig->title);
		fputs(".</strong> ", f);
		esc(f, fig->how);
		fputs("</figcaption>\n</figure>\n", f);
	}
	return 0;
}

/* ---- what other parts of harness add to a report ---------------------------------------
 * The pre-registered hypotheses' verdicts (harness/hypothesis.h, as `harness verify`
 * decides them with the report's options) as <section id="hypotheses"> with
 * table#hypothesis-table, and the audit's findings (harness/audit.h, as `harness audit`)
 * as <section id="audit"> with table#audit-table.  A failure in either is reported on
 * stderr and the section says so: the rest of the report is still worth having. */
static void html_hypotheses(const struct report *r, FILE *f)
{
	const struct analysis *a = r->a;
	struct hyp_set *set = NULL;
	struct hyp_eval *e = NULL;
	struct hyp_eval_opts o;
	hyp_eval_opts_init(&o);
	o.ro = r->o;
	o.report = r;
	size_t nfiles = 0;
	for (size_t i = 0; i < a->meta.nfiles; i++)
		nfiles += !strcmp(a->meta.files[i].role, "hypothesis");
	if (!nfiles)
		return;
	fputs("<section id=\"hypotheses\">\n<h2>Pre-registered hypotheses</h2>\n", f);
	if (hyp_set_load(a->path, &a->meta, NULL, 0, &set) || hyp_evaluate(a, set, &o, &e)) {
		fputs("<p class=\"note\">The hypotheses could not be evaluated (see harness's error "
		      "message); run <code>harness verify</code>.</p>\n</section>\n", f);
		hyp_set_free(set);
		return;
	}
	fputs("<table id=\"hypothesis-files\"><tr><th>file</th><th>status</th><th>why</th></tr>\n", f);
	for (size_t i = 0; i < set->n; i++) {
		fputs("<tr><td>", f);
		esc(f, set->e[i].file->path);
		fputs("</td><td>", f);
		esc(f, hyp_status_name(set->e[i].status));
		fputs("</td><td>", f);
		esc(f, set->e[i].why ? set->e[i].why : "");
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n<table id=\"hypothesis-table\"><tr><th>id</th><th>primary</th>"
	      "<th>verdict</th><th>deciding numbers</th></tr>\n", f);
	for (size_t i = 0; i < e->nr; i++) {
		const struct hyp_result *x = &e->r[i];
		fprintf(f, "<tr class=\"hyp-%s\"><td>", hyp_verdict_name(x->verdict));
		esc(f, x->h->id);
		fprintf(f, "</td><td>%s</td><td><strong>%s</strong>%s</td><td>", x->h->primary ? "yes" : "no",
			hyp_verdict_name(x->verdict), x->exploratory ? " (exploratory)" : "");
		esc(f, x->deciding ? x->deciding : "");
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n</section>\n", f);
	hyp_eval_free(e);
	hyp_set_free(set);
}

static void html_audit(const struct report *r, FILE *f)
{
	struct audit *au = NULL;
	fputs("<section id=\"audit\">\n<h2>Audit</h2>\n", f);
	if (audit_build(r->a, r, &au)) {
		fputs("<p class=\"note\">The audit could not run (see harness's error message); run "
		      "<code>harness audit</code>.</p>\n</section>\n", f);
		return;
	}
	fprintf(f, "<p>Overall: <strong>%s</strong> (%zu PASS, %zu WARN, %zu FAIL).</p>\n",
		audit_status_name(audit_worst(au)), au->counts[AUDIT_PASS], au->counts[AUDIT_WARN],
		au->counts[AUDIT_FAIL]);
	fputs("<table id=\"audit-table\"><tr><th>check</th><th>status</th><th>summary</th>"
	      "<th>evidence</th></tr>\n", f);
	for (size_t i = 0; i < au->nchecks; i++) {
		const struct audit_check *c = &au->checks[i];
		fprintf(f, "<tr class=\"audit-%s\"><td>", audit_status_name(c->status));
		esc(f, c->title);
		fprintf(f, "</td><td><strong>%s</strong></td><td>", audit_status_name(c->status));
		esc(f, c->summary ? c->summary : "");
		fputs("</td><td>", f);
		for (size_t k = 0; k < c->nevidence; k++) {
			if (k)
				fputs("<br>", f);
			esc(f, c->evidence[k]);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n</section>\n", f);
	audit_free(au);
}

static const char css[] =
	"body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1250px;padding:0 1em;"
	"color:#222;line-height:1.4}\n"
	"table{border-collapse:collapse;margin:1em 0;font-size:90%}\n"
	"th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left}\n"
	"th{background:#f2f2f2}td.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}\n"
	"tr.verdict-FASTER td.verdict{color:#1a7f37;font-weight:bold}\n"
	"tr.verdict-SLOWER td.verdict{color:#c62828;font-weight:bold}\n"
	"tr.verdict-SAME td.verdict{color:#1f4e99;font-weight:bold}\n"
	"tr.verdict-INCONCLUSIVE td.verdict{color:#666}\n"
	"figure{margin:1.5em 0}svg.plot{max-width:100%;height:auto;border:1px solid #eee}\n"
	"figcaption{font-size:90%;color:#444;max-width:60em}\n"
	"ul.warnings li{color:#8a4b00}p.note{color:#8a4b00}code{font-size:95%}\n";

static void write_head(const struct report *r, FILE *f)
{
	const struct analysis *a = r->a;
	const char *name = *meta(r, "experiment_name") ? meta(r, "experiment_name") : a->path;
	size_t ok = 0, all = 0;
	for (size_t m = 0; m < a->nmodes; m++) {
		ok += a->units_ok[m];
		all += a->units_all[m];
	}
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"generator\" content=\"harness report --format html\">\n<title>Report: ", f);
	esc(f, name);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>Report: ", css);
	esc(f, name);
	fputs("</h1>\n<section id=\"run\">\n<ul>\n<li>results: <code>", f);
	esc(f, a->path);
	fputs("</code> (harness ", f);
	esc(f, meta(r, "harness_version"));
	fputs(", commit ", f);
	fprintf(f, "%.12s", meta(r, "git_commit"));
	fputs(", backend ", f);
	esc(f, meta(r, "backend"));
	fprintf(f, ")</li>\n<li>design: %zu blocks, order ", a->nblocks);
	esc(f, *meta(r, "order") ? meta(r, "order") : "-");
	fputs(", seed ", f);
	esc(f, *meta(r, "seed") ? meta(r, "seed") : "-");
	fprintf(f, "; %zu of %zu cold units ok; %zu warm probes; %lld samples</li>\n<li>baseline: <code>",
		ok, all, a->warm_units, (long long)a->nsamples);
	esc(f, a->modes[r->baseline]);
	fprintf(f, "</code>; %s</li>\n",
		a->paired ? "ratio = mode / baseline per block (&lt; 1: the mode is faster); paired "
			    "by block: signed-rank tests"
			  : "ratio = median(mode) / median(baseline) (&lt; 1: the mode is faster); NOT "
			    "paired (the data has no blocks): Mann-Whitney tests");
	fprintf(f, "<li>decisions: alpha %.3g, Holm across %zu comparisons; equivalence margin "
		   "&plusmn;%.2f%% (", r->o.alpha, r->ncmp, 100 * r->margin);
	esc(f, r->margin_source);
	fprintf(f, "); CIs %.0f%% percentile bootstrap, %zu resamples, seed %llu</li>\n</ul>\n</section>\n",
		100 * r->o.conf, r->o.nboot, (unsigned long long)r->o.seed);
}

static void write_verdicts(const struct report *r, FILE *f)
{
	const struct analysis *a = r->a;
	fputs("<section id=\"verdicts\">\n<h2>Verdicts against the baseline</h2>\n"
	      "<table id=\"verdict-table\" class=\"verdicts\">\n<thead><tr><th>cell</th><th>mode</th>"
	      "<th>n</th><th>ratio</th><th>95% CI</th><th>HL ratio</th><th>exact CI (coverage)</th>"
	      "<th>p</th><th>p Holm</th><th>p sign</th><th>IQR overlap</th><th>verdict</th>"
	      "<th>to decide</th></tr></thead>\n<tbody>\n", f);
	for (size_t i = 0; i < r->ncmp; i++) {
		const struct rep_cmp *x = &r->cmp[i];
		const struct stats_comparison *c = &x->c;
		const char *v = x->ok ? stats_verdict_name(c->verdict) : "NOT-COMPARED";
		fprintf(f, "<tr class=\"verdict-%s\" data-cell=\"", v);
		esc(f, a->cells[x->cell].name);
		fputs("\" data-mode=\"", f);
		esc(f, a->modes[x->mode]);
		fputs("\">", f);
		td(f, a->cells[x->cell].name);
		td(f, a->modes[x->mode]);
		if (!x->ok) {
			fputs("<td colspan=\"9\"></td><td class=\"verdict\">not compared</td>", f);
			td(f, x->note);
			fputs("</tr>\n", f);
			continue;
		}
		char b1[48], b2[48], b3[48], b4[48];
		fprintf(f, "<td class=\"num\">%zu</td>", c->n);
		td_num(f, 'r', c->ratio);
		td_ci(f, c->lo, c->hi);
		td_num(f, 'r', c->hl_ratio);
		fprintf(f, "<td class=\"num\">[%s, %s] (%s)</td>", num(b1, 48, 'r', c->os_lo),
			num(b2, 48, 'r', c->os_hi), num(b3, 48, '1', 100 * c->os_coverage));
		td_num(f, 'p', c->p);
		td_num(f, 'p', c->p_holm);
		td_num(f, 'p', c->p_sign);
		td(f, x->iqr_overlap ? "yes" : "no");
		fprintf(f, "<td class=\"verdict\">%s</td><td>", v);
		if (c->verdict == VERDICT_INCONCLUSIVE)
			fprintf(f, "MDE %s; blocks for the margin: %s", num(b1, 48, '1', 100 * c->mde),
				num(b4, 48, 'n', ceil(c->blocks_needed)));
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
}

static void write_aggregates(const struct report *r, FILE *f)
{
	const struct analysis *a = r->a;
	fputs("<section id=\"aggregates\">\n<h2>Per model and overall</h2>\n<p>Geometric mean of "
	      "op-cell ratios (block-bootstrap CI), the e2e cell, verdict counts over all cells, cells "
	      "where the mode is Pareto-equivalent-or-better than the baseline, median spread "
	      "ratio.</p>\n<table id=\"aggregate-table\">\n<thead><tr><th>scope</th><th>mode</th>"
	      "<th>op cells</th><th>geomean</th><th>95% CI</th><th>e2e ratio</th><th>e2e verdict</th>"
	      "<th>faster</th><th>slower</th><th>same</th><th>inconclusive</th>"
	      "<th>Pareto eq-or-better</th><th>spread ratio</th></tr></thead>\n<tbody>\n", f);
	for (size_t g = 0; g < r->nagg; g++) {
		const struct rep_agg *x = &r->agg[g];
		fputs("<tr>", f);
		td(f, x->scope);
		td(f, a->modes[x->mode]);
		fprintf(f, "<td class=\"num\">%zu</td>", x->ncells);
		td_num(f, 'r', x->geomean);
		td_ci(f, x->lo, x->hi);
		td_num(f, 'r', x->e2e_ratio);
		td(f, x->has_e2e ? stats_verdict_name(x->e2e_verdict) : "-");
		fprintf(f, "<td class=\"num\">%zu</td><td class=\"num\">%zu</td><td class=\"num\">%zu</td>"
			   "<td class=\"num\">%zu</td><td class=\"num\">%zu/%zu</td>", x->wins, x->losses,
			x->same, x->inconclusive, x->pareto_ok, x->pareto_cells);
		td_num(f, 's', x->spread_ratio_median);
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
}

static void write_cells(const struct report *r, FILE *f)
{
	const struct analysis *a = r->a;
	fputs("<section id=\"cells\">\n<h2>Per cell and mode (unit medians)</h2>\n"
	      "<table id=\"summary-table\">\n<thead><tr><th>cell</th><th>mode</th><th>units</th>"
	      "<th>median (&micro;s)</th><th>IQR (&micro;s)</th><th>spread</th><th>min (&micro;s)</th>"
	      "<th>max (&micro;s)</th><th>setup median (s)</th><th>Pareto front</th></tr></thead>\n"
	      "<tbody>\n", f);
	for (size_t c = 0; c < a->ncells; c++)
		for (size_t m = 0; m < a->nmodes; m++) {
			const struct rep_summary *s = &r->sum[m * a->ncells + c];
			fputs("<tr>", f);
			td(f, a->cells[c].name);
			td(f, a->modes[m]);
			fprintf(f, "<td class=\"num\">%zu</td>", s->n);
			td_num(f, 'u', s->s.median / 1e3);
			td_num(f, 'u', s->s.iqr / 1e3);
			td_num(f, '2', 100 * s->spread);
			td_num(f, 'u', s->s.min / 1e3);
			td_num(f, 'u', s->s.max / 1e3);
			td_num(f, 'u', s->setup.median);
			td(f, s->n ? (r->front[m * a->ncells + c] ? "yes" : "no") : "-");
			fputs("</tr>\n", f);
		}
	fputs("</tbody>\n</table>\n", f);
}

static void write_aa_drift_tau(const struct report *r, FILE *f, const struct plot_set *set, int *bad)
{
	const struct analysis *a = r->a;
	fputs("<section id=\"aa\">\n<h2>A/A control</h2>\n", f);
	if (!r->naa) {
		fputs("<p>No A/A mode (<code>aa_of</code>) in this run: the false-positive rate of this "
		      "design is unknown.</p>\n", f);
	} else {
		fputs("<table id=\"aa-table\">\n<thead><tr><th>mode</th><th>copy of</th><th>cells</th>"
		      "<th>false FASTER/SLOWER</th><th>rate</th><th>noise floor (p95 of |log ratio|)</th>"
		      "</tr></thead>\n<tbody>\n", f);
		for (size_t i = 0; i < r->naa; i++) {
			const struct rep_aa *q = &r->aa[i];
			fputs("<tr>", f);
			td(f, a->modes[q->mode]);
			td(f, a->modes[q->of]);
			fprintf(f, "<td class=\"num\">%zu</td><td class=\"num\">%zu</td>", q->cells,
				q->false_positives);
			td_num(f, '1', q->cells ? 100.0 * (double)q->false_positives / (double)q->cells : NAN);
			td_num(f, '2', 100 * q->noise_floor);
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
		td(f, a->modes[d->mode]);
		fprintf(f, "<td class=\"num\">%zu</td>", d->n);
		td_num(f, 'u', d->rho);
		td_num(f, 'p', d->p);
		td(f, d->flagged ? "yes" : "no");
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
	*bad |= figures(f, set, "drift");
	fputs("</section>\n<section id=\"op-e2e\">\n<h2>Per-op versus end-to-end rankings</h2>\n", f);
	if (!r->ntau) {
		fputs("<p>No workload has both op cells and an e2e cell.</p>\n", f);
	} else {
		fputs("<table id=\"op-e2e-table\">\n<thead><tr><th>workload</th><th>modes</th>"
		      "<th>Kendall tau</th><th>p</th></tr></thead>\n<tbody>\n", f);
		for (size_t i = 0; i < r->ntau; i++) {
			fputs("<tr>", f);
			td(f, r->tau[i].workload);
			fprintf(f, "<td class=\"num\">%zu</td>", r->tau[i].nmodes);
			td_num(f, 'u', r->tau[i].tau);
			td_num(f, 'p', r->tau[i].p);
			fputs("</tr>\n", f);
		}
		fputs("</tbody>\n</table>\n", f);
	}
	*bad |= figures(f, set, "op-e2e");
	fputs("</section>\n", f);
}

int report_write_html(const struct report *r, FILE *f)
{
	struct plot_set set;
	struct plot_opts po;
	char *dir = NULL, *gnuplot = plot_find_gnuplot();
	int have_figs = 0, bad = 0;
	plot_set_init(&set);
	plot_opts_init(&po);
	po.format = PLOT_SVG;
	if (!gnuplot) {
		warning("gnuplot not found in PATH (Debian package gnuplot-nox): the HTML report has "
			"no figures");
	} else {
		const char *tmpdir = getenv("TMPDIR");
		dir = xasprintf("%s/harness-html.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
		if (!mkdtemp(dir)) {
			error_errno("cannot create a temporary folder '%s'", dir);
			free(dir);
			free(gnuplot);
			return -1;
		}
		if (plot_draw(r, &po, dir, &set)) {
			util_rm_rf(dir);
			free(dir);
			free(gnuplot);
			plot_set_release(&set);
			return -1;
		}
		have_figs = 1;
	}

	write_head(r, f);
	html_hypotheses(r, f);
	html_audit(r, f);
	write_verdicts(r, f);
	bad |= figures(f, &set, "forest");
	fputs("</section>\n", f);
	write_aggregates(r, f);
	fputs("</section>\n", f);
	write_cells(r, f);
	fputs("<div id=\"cell-figures\">\n", f);
	if (!have_figs)
		fputs("<p class=\"note\">No figures: gnuplot was not found when this report was "
		      "written (Debian package gnuplot-nox).</p>\n", f);
	bad |= figures(f, &set, "cell");
	bad |= figures(f, &set, "pareto");
	bad |= figures(f, &set, "cdf");
	for (size_t i = 0; i < set.nskipped; i++) {
		fputs("<p class=\"note skipped\">Not drawn: ", f);
		esc(f, set.skipped[i]);
		fputs("</p>\n", f);
	}
	fputs("</div>\n</section>\n", f);
	write_aa_drift_tau(r, f, &set, &bad);
	fputs("<section id=\"warnings\">\n<h2>Warnings</h2>\n<ul class=\"warnings\">\n", f);
	if (!r->nwarnings)
		fputs("<li class=\"none\">None.</li>\n", f);
	for (size_t i = 0; i < r->nwarnings; i++) {
		fputs("<li>", f);
		esc(f, r->warnings[i]);
		fputs("</li>\n", f);
	}
	fputs("</ul>\n</section>\n</body>\n</html>\n", f);

	if (dir && util_rm_rf(dir))
		bad = 1;
	free(dir);
	free(gnuplot);
	plot_set_release(&set);
	if (bad)
		return -1;
	return ferror(f) ? error_errno("cannot write the report") : 0;
}
