/* html.c: a run's report as one self-contained HTML page (html.h, docs/plots.md), from
 * parts already built: the report's tables, the audit's findings, the hypotheses'
 * verdicts and the figures of plot.h drawn by gnuplot's svg terminal and inlined.  Nothing
 * external (no CSS, script or font files), so it opens offline and can be mailed or
 * attached to a review as is.
 *
 * The page answers first (section#summary: table#answer-table per mode, p#audit-status,
 * ul#hypothesis-verdicts, beside figure#fig-forest), then the long tables, each folded in
 * a details element and laid out to the page width.  Stable hooks for tests and scripts:
 * every section has an id (summary, run, hypotheses, audit, verdicts, aggregates, cells
 * with div#cell-figures, aa, drift, op-e2e, warnings); the verdict table is
 * table#verdict-table.verdicts with one tr.verdict-<VERDICT> per comparison; every figure
 * is figure#fig-<plot id>.figure.fig-<kind> holding one svg.plot. */
#include "config.h"
#include "harness/output/html.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/util.h"
#include "harness/output/replay-write.h"

/* Text with &, <, >, " and ' escaped (for element content and attribute values); invalid
 * UTF-8 (from a file an older or damaged build wrote) as U+FFFD, so the page stays UTF-8. */
static void esc(FILE *f, const char *str)
{
	char *fixed = util_utf8_sanitize(str);
	const char *s = fixed ? fixed : str;
	for (; *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f); break;
		}
	free(fixed);
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

static size_t count_figures(const struct plot_set *set, const char *kind)
{
	size_t n = 0;
	for (size_t i = 0; set && i < set->nfigs; i++)
		n += !strcmp(set->figs[i].kind, kind);
	return n;
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

/* A cell name: escaped, with a break opportunity (<wbr>) after each ',', '/' and ':', so
 * that a narrow column breaks "net/conv2d:c=64,h=24,..." between fields, not inside one. */
static void td_name(FILE *f, const char *s)
{
	fputs("<td>", f);
	for (; *s; s++) {
		char one[2] = { *s, '\0' };
		esc(f, one);
		if (*s == ',' || *s == '/' || *s == ':')
			fputs("<wbr>", f);
	}
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
	char *fixed = util_utf8_sanitize(text); /* labels gnuplot copied from bad names */
	if (fixed) {
		free(text);
		text = fixed;
	}
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

/* Every figure of one kind (none when set is NULL). */
static int figures(FILE *f, const struct plot_set *set, const char *kind)
{
	for (size_t i = 0; set && i < set->nfigs; i++) {
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

/* ---- the answer, first ------------------------------------------------------------------ */

static const char css[] =
	"body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:1250px;padding:0 1em;"
	"color:#222;line-height:1.35;box-sizing:border-box}\n"
	"h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.2em;margin:1.2em 0 .4em}\n"
	"p.lede{margin:.2em 0 1em;color:#444;overflow-wrap:anywhere}\n"
	"table{border-collapse:collapse;margin:.6em 0;font-size:90%}\n"
	"th,td{border:1px solid #ccc;padding:.2em .4em;text-align:left;vertical-align:top}\n"
	"th{background:#f2f2f2}td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
	"table.wide{width:100%;table-layout:fixed;font-size:78%}\n"
	"table.wide td,table.wide th{overflow-wrap:anywhere;word-break:break-word}\n"
	"col.w-cell{width:16%}col.w-mode{width:8%}col.w-n{width:3.5%}col.w-ci{width:10%}"
	"col.w-verdict{width:10.5%}col.w-decide{width:10%}\n"
	".verdict-FASTER .verdict,.v-FASTER{color:#1a7f37;font-weight:bold}\n"
	".verdict-SLOWER .verdict,.v-SLOWER{color:#c62828;font-weight:bold}\n"
	".verdict-SAME .verdict,.v-SAME{color:#1f4e99;font-weight:bold}\n"
	".verdict-INCONCLUSIVE .verdict,.v-INCONCLUSIVE{color:#666}\n"
	"section#summary{display:grid;grid-template-columns:minmax(0,11fr) minmax(0,9fr);gap:1.5em;"
	"align-items:start;border-bottom:2px solid #ddd;padding-bottom:1em}\n"
	"section#summary figure{margin:0}section#summary div.forest{max-height:85vh;overflow-y:auto}\n"
	"table.answer{width:100%;font-size:85%}span.ci{display:block;font-size:85%;color:#555;"
	"white-space:nowrap}\n"
	".status-PASS{color:#1a7f37}.status-WARN{color:#8a4b00}.status-FAIL{color:#c62828}\n"
	".hyp-CORROBORATED{color:#1a7f37}.hyp-FALSIFIED{color:#c62828}.hyp-INCONCLUSIVE{color:#666}\n"
	"details{margin:.4em 0}details>summary{cursor:pointer;color:#1f4e99}\n"
	"figure{margin:1.2em 0}svg.plot{max-width:100%;height:auto;border:1px solid #eee;box-sizing:border-box}\n"
	"figcaption{font-size:85%;color:#444;max-width:60em}\n"
	"ul.warnings li{color:#8a4b00}p.note{color:#8a4b00}code{font-size:95%;overflow-wrap:anywhere}\n";

static void write_head(const struct report *r, FILE *f)
{
	const struct analysis *a = r->a;
	const char *name = *meta(r, "experiment_name") ? meta(r, "experiment_name") : a->path;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"harness report --format html\">\n<title>Report: ", f);
	esc(f, name);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>Report: ", css);
	esc(f, name);
	fputs("</h1>\n<p class=\"lede\">Results <code>", f);
	esc(f, a->path);
	fputs("</code>; every ratio is mode / baseline <code>", f);
	esc(f, a->modes[r->baseline]);
	fputs("</code> (&lt; 1: the mode is faster).</p>\n", f);
}

/* The comparison of mode m in the e2e cell of workload w, or NULL. */
static const struct rep_cmp *e2e_cmp(const struct report *r, size_t m, const char *w)
{
	const struct analysis *a = r->a;
	for (size_t i = 0; i < r->ncmp; i++) {
		const struct rep_cmp *x = &r->cmp[i];
		const struct an_cell *c = &a->cells[x->cell];
		if (x->mode == m && !strcmp(c->kind, "e2e") && !strcmp(c->workload, w))
			return x;
	}
	return NULL;
}

/* "0.9512 [0.9400, 0.9633]" into a table cell; "-" when v is NaN. */
static void td_ratio_ci(FILE *f, double v, double lo, double hi)
{
	char b1[48], b2[48], b3[48];
	if (isnan(v))
		fputs("<td class=\"num\">-</td>", f);
	else
		fprintf(f, "<td class=\"num\">%s <span class=\"ci\">[%s, %s]</span></td>",
			num(b1, 48, 'r', v), num(b2, 48, 'r', lo), num(b3, 48, 'r', hi));
}

/* Per mode, per workload (then overall): the e2e ratio with its CI and verdict, the
 * per-op geometric mean with its CI, the verdict counts over the scope's cells. */
static void summary_answer(const struct report *r, FILE *f)
{
	const struct analysis *a = r->a;
	fputs("<h2>Answer</h2>\n<table id=\"answer-table\" class=\"answer\">\n<thead><tr><th>mode</th>"
	      "<th>scope</th><th>e2e ratio [95% CI]</th><th>e2e verdict</th>"
	      "<th>per-op geomean [95% CI]</th><th>faster / slower / same / inconclusive</th>"
	      "</tr></thead>\n<tbody>\n", f);
	for (size_t m = 0; m < a->nmodes; m++)
		for (size_t g = 0; g < r->nagg; g++) {
			const struct rep_agg *x = &r->agg[g];
			if (x->mode != m)
				continue;
			const struct rep_cmp *e = x->has_e2e ? e2e_cmp(r, m, x->scope) : NULL;
			const char *v = x->has_e2e ? stats_verdict_name(x->e2e_verdict) : "-";
			fprintf(f, "<tr class=\"answer-row\" data-mode=\"");
			esc(f, a->modes[m]);
			fputs("\"><td>", f);
			esc(f, a->modes[m]);
			if (a->aa_of[m]) {
				fputs(" <small>(A/A copy of ", f);
				esc(f, a->aa_of[m]);
				fputs(")</small>", f);
			}
			fputs("</td>", f);
			td(f, x->scope);
			if (e && e->ok)
				td_ratio_ci(f, x->e2e_ratio, e->c.lo, e->c.hi);
			else
				td_num(f, 'r', x->has_e2e ? x->e2e_ratio : NAN);
			fprintf(f, "<td class=\"v-%s\">%s</td>", v, v);
			td_ratio_ci(f, x->geomean, x->lo, x->hi);
			fprintf(f, "<td class=\"num\">%zu / %zu / %zu / %zu</td></tr>\n", x->wins, x->losses,
				x->same, x->inconclusive);
		}
	fputs("</tbody>\n</table>\n", f);
}

static void summary_audit(const struct audit *au, FILE *f)
{
	if (!au) {
		fputs("<p id=\"audit-status\">Audit: <strong>not run</strong> (see harness's error "
		      "message; run <code>harness audit</code>).</p>\n", f);
		return;
	}
	const char *w = audit_status_name(audit_worst(au));
	fprintf(f, "<p id=\"audit-status\">Audit: <strong class=\"status-%s\">%s</strong> (%zu PASS, "
		   "%zu WARN, %zu FAIL)", w, w, au->counts[AUDIT_PASS], au->counts[AUDIT_WARN],
		au->counts[AUDIT_FAIL]);
	const char *sep = ": ";
	for (size_t i = 0; i < au->nchecks; i++) {
		const struct audit_check *c = &au->checks[i];
		if (c->status == AUDIT_PASS)
			continue;
		fprintf(f, "%s<span class=\"status-%s\">", sep, audit_status_name(c->status));
		esc(f, c->title);
		fputs("</span>", f);
		sep = "; ";
	}
	fputs(".</p>\n", f);
}

static void summary_hypotheses(const struct html_parts *p, FILE *f)
{
	if (!p->nhyp_files) {
		fputs("<p id=\"hypothesis-status\">Hypotheses: none recorded (nothing was "
		      "pre-registered).</p>\n", f);
		return;
	}
	if (!p->hyp) {
		fputs("<p id=\"hypothesis-status\">Hypotheses: <strong>not evaluated</strong> (see "
		      "harness's error message; run <code>harness verify</code>).</p>\n", f);
		return;
	}
	fputs("<p id=\"hypothesis-status\">Hypotheses:</p>\n<ul id=\"hypothesis-verdicts\">\n", f);
	for (size_t i = 0; i < p->hyp->nr; i++) {
		const struct hyp_result *x = &p->hyp->r[i];
		const char *v = hyp_verdict_name(x->verdict);
		fputs("<li><code>", f);
		esc(f, x->h->id);
		fprintf(f, "</code>%s: <strong class=\"hyp-%s\">%s</strong>%s</li>\n",
			x->h->primary ? " (primary)" : "", v, v, x->exploratory ? " (exploratory)" : "");
	}
	fputs("</ul>\n", f);
}

static int write_summary(const struct html_parts *p, FILE *f)
{
	const struct report *r = p->report;
	fputs("<section id=\"summary\">\n<div class=\"answer\">\n", f);
	summary_answer(r, f);
	summary_audit(p->audit, f);
	summary_hypotheses(p, f);
	fprintf(f, "<p>%zu warning(s) (<a href=\"#warnings\">below</a>).</p>\n</div>\n",
		r->nwarnings);
	int bad = 0;
	if (count_figures(p->figs, "forest")) {
		fputs("<div class=\"forest\">\n", f);
		bad = figures(f, p->figs, "forest");
		fputs("</div>\n", f);
	} else {
		fputs("<div class=\"forest\"><p class=\"note\">No forest plot: gnuplot was not found when "
		      "this report was written (Debian package gnuplot-nox).</p></div>\n", f);
	}
	fputs("</section>\n", f);
	return bad;
}

/* ---- the run, the hypotheses, the audit ------------------------------------------------ */

static void write_run(const struct report *r, FILE *f)
{
	const struct analysis *a = r->a;
	size_t ok = 0, all = 0;
	for (size_t m = 0; m < a->nmodes; m++) {
		ok += a->units_ok[m];
		all += a->units_all[m];
	}
	fputs("<section id=\"run\">\n<h2>The run</h2>\n<ul>\n<li>results: <code>", f);
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

/* The pre-registered hypotheses' verdicts (as `harness verify` decides them with the
 * report's options): <section id="hypotheses"> with table#hypothesis-table. */
static void write_hypotheses(const struct html_parts *p, FILE *f)
{
	if (!p->nhyp_files)
		return;
	fputs("<section id=\"hypotheses\">\n<h2>Pre-registered hypotheses</h2>\n", f);
	if (!p->hyp || !p->hyp_set) {
		fputs("<p class=\"note\">The hypotheses could not be evaluated (see harness's error "
		      "message); run <code>harness verify</code>.</p>\n</section>\n", f);
		return;
	}
	const struct hyp_set *set = p->hyp_set;
	const struct hyp_eval *e = p->hyp;
	fputs("<details class=\"long\" open><summary>the files and the numbers that decided each "
	      "verdict</summary>\n<table id=\"hypothesis-files\" class=\"wide\"><tr><th>file</th>"
	      "<th>status</th><th>why</th></tr>\n", f);
	for (size_t i = 0; i < set->n; i++) {
		fputs("<tr><td>", f);
		esc(f, set->e[i].file->path);
		fputs("</td><td>", f);
		esc(f, hyp_status_name(set->e[i].status));
		fputs("</td><td>", f);
		esc(f, set->e[i].why ? set->e[i].why : "");
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n<table id=\"hypothesis-table\" class=\"wide\"><tr><th>id</th><th>primary</th>"
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
	fputs("</table>\n</details>\n</section>\n", f);
}

/* The audit's findings (as `harness audit`): <section id="audit"> with table#audit-table. */
static void write_audit(const struct audit *au, FILE *f)
{
	fputs("<section id=\"audit\">\n<h2>Audit</h2>\n", f);
	if (!au) {
		fputs("<p class=\"note\">The audit could not run (see harness's error message); run "
		      "<code>harness audit</code>.</p>\n</section>\n", f);
		return;
	}
	fprintf(f, "<details class=\"long\"><summary>Overall: <strong>%s</strong> (%zu PASS, %zu WARN, "
		   "%zu FAIL): every check with its evidence</summary>\n",
		audit_status_name(audit_worst(au)), au->counts[AUDIT_PASS], au->counts[AUDIT_WARN],
		au->counts[AUDIT_FAIL]);
	fputs("<table id=\"audit-table\" class=\"wide\"><colgroup><col style=\"width:18%\">"
	      "<col style=\"width:7%\"><col style=\"width:30%\"><col></colgroup><tr><th>check</th>"
	      "<th>status</th><th>summary</th><th>evidence</th></tr>\n", f);
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
	fputs("</table>\n</details>\n</section>\n", f);
}

/* ---- the long tables -------------------------------------------------------------------- */

static void write_verdicts(const struct report *r, FILE *f)
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
		td_name(f, a->cells[x->cell].name);
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
	fputs("</tbody>\n</table>\n</details>\n", f);
}

static void write_aggregates(const struct report *r, FILE *f)
{
	const struct analysis *a = r->a;
	fprintf(f, "<section id=\"aggregates\">\n<h2>Per model and overall</h2>\n<details class=\"long\">"
		   "<summary>%zu rows: geometric mean of op-cell ratios (block-bootstrap CI), the e2e "
		   "cell, verdict counts over all cells, cells where the mode is "
		   "Pareto-equivalent-or-better than the baseline, median spread ratio</summary>\n",
		r->nagg);
	fputs("<table id=\"aggregate-table\" class=\"wide\">\n<thead><tr><th>scope</th><th>mode</th>"
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
	fputs("</tbody>\n</table>\n</details>\n</section>\n", f);
}

static void write_cells(const struct report *r, FILE *f)
{
	const struct analysis *a = r->a;
	fprintf(f, "<section id=\"cells\">\n<h2>Per cell and mode (unit medians)</h2>\n"
		   "<details class=\"long\"><summary>%zu cells &times; %zu modes: median, IQR, spread, "
		   "range, setup time, Pareto front</summary>\n", a->ncells, a->nmodes);
	fputs("<table id=\"summary-table\" class=\"wide\">\n<thead><tr><th>cell</th><th>mode</th><th>units</th>"
	      "<th>median (&micro;s)</th><th>IQR (&micro;s)</th><th>spread</th><th>min (&micro;s)</th>"
	      "<th>max (&micro;s)</th><th>setup median (s)</th><th>Pareto front</th></tr></thead>\n"
	      "<tbody>\n", f);
	for (size_t c = 0; c < a->ncells; c++)
		for (size_t m = 0; m < a->nmodes; m++) {
			const struct rep_summary *s = &r->sum[m * a->ncells + c];
			fputs("<tr>", f);
			td_name(f, a->cells[c].name);
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
	fputs("</tbody>\n</table>\n</details>\n", f);
}

/* The time-weighted composition table (report.h struct rep_comp). */
static void write_composition(const struct report *r, FILE *f)
{
	if (!r->ncomp)
		return;
	fputs("<table id=\"composition\">\n<thead><tr><th>workload</th><th>mode</th><th>blocks</th>"
	      "<th>unweighted op geomean</th><th>predicted e2e ratio</th><th>95% CI</th>"
	      "<th>measured e2e ratio</th><th>95% CI</th><th>interaction</th><th>95% CI</th>"
	      "<th>verdict</th><th>coverage</th><th>95% CI</th></tr></thead>\n<tbody>\n", f);
	for (size_t i = 0; i < r->ncomp; i++) {
		const struct rep_comp *c = &r->comp[i];
		fputs("<tr>", f);
		td(f, c->workload);
		td(f, r->a->modes[c->mode]);
		fprintf(f, "<td class=\"num\">%zu</td>", c->n);
		td_num(f, 'r', c->geomean);
		const struct rep_est *e[] = { &c->pred, &c->meas, &c->inter, &c->cov_base };
		for (size_t k = 0; k < 4; k++) {
			double s = k == 3 ? 100 : 1;
			if (k == 3)
				td(f, c->ok ? rep_compose_name(c->verdict) : c->note);
			char b1[48], b2[48];
			td_num(f, k == 3 ? '1' : 'r', s * e[k]->est);
			fprintf(f, "<td class=\"num\">[%s, %s]</td>", num(b1, 48, k == 3 ? '1' : 'r', s * e[k]->lo),
				num(b2, 48, k == 3 ? '1' : 'r', s * e[k]->hi));
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
		esc(f, a->modes[r->aa[i].mode]);
		fputs("</th>", f);
	}
	fputs("<th>drift flagged</th></tr></thead>\n<tbody>\n", f);
	for (size_t d = 0; d < r->ndev; d++) {
		const struct rep_device *v = &r->dev[d];
		fputs("<tr>", f);
		td(f, v->name);
		fprintf(f, "<td class=\"num\">%zu</td>", v->nblocks);
		for (size_t i = 0; i < r->naa; i++)
			td_num(f, '2', 100 * v->aa_floor[i]);
		struct sbuf sb;
		sbuf_init(&sb);
		sbuf_adds(&sb, "");
		for (size_t m = 0; m < a->nmodes; m++)
			if (v->drift[m].flagged)
				sbuf_addf(&sb, "%s%s (rho %.2f)", sb.len ? ", " : "", a->modes[m],
					  v->drift[m].rho);
		td(f, sb.len ? sb.buf : "none");
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
		td(f, a->cells[x->cell].name);
		td(f, r->dev[x->d1].name);
		td(f, r->dev[x->d2].name);
		snprintf(b1, sizeof(b1), "%.1f%%", 100 * (exp(x->diff) - 1));
		snprintf(b2, sizeof(b2), "%.1f%%", 100 * (exp(x->two_se) - 1));
		fprintf(f, "<td class=\"num\">%s</td><td class=\"num\">%s</td>", b1, b2);
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
	write_devices(r, f);
	fputs("</section>\n<section id=\"op-e2e\">\n<h2>Per-op versus end to end</h2>\n", f);
	write_composition(r, f);
	*bad |= figures(f, set, "composition");
	if (!r->ntau) {
		fputs("<p>No workload has both op cells and an e2e cell.</p>\n", f);
	} else {
		fputs("<table id=\"op-e2e-table\">\n<thead><tr><th>workload</th><th>modes</th>"
		      "<th>Kendall tau (unweighted geomean)</th><th>p</th><th>Kendall tau (predicted)</th>"
		      "<th>p</th><th>explanation</th><th>why</th></tr></thead>\n<tbody>\n", f);
		for (size_t i = 0; i < r->ntau; i++) {
			const struct rep_tau *t = &r->tau[i];
			fputs("<tr>", f);
			td(f, t->workload);
			fprintf(f, "<td class=\"num\">%zu</td>", t->nmodes);
			td_num(f, 'u', t->tau);
			td_num(f, 'p', t->p);
			td_num(f, 'u', t->tau_pred);
			td_num(f, 'p', t->p_pred);
			td(f, t->explanation ? t->explanation : "-");
			td(f, t->why ? t->why : "");
			fputs("</tr>\n", f);
		}
		fputs("</tbody>\n</table>\n", f);
	}
	*bad |= figures(f, set, "op-e2e");
	fputs("</section>\n", f);
}


int html_write(const struct html_parts *p, FILE *f)
{
	const struct report *r = p->report;
	const struct plot_set *set = p->figs;
	int bad = 0;
	write_head(r, f);
	bad |= write_summary(p, f);
	write_run(r, f);
	write_hypotheses(p, f);
	write_audit(p->audit, f);
	write_verdicts(r, f);
	fputs("</section>\n", f);
	write_aggregates(r, f);
	write_cells(r, f);
	fputs("<div id=\"cell-figures\">\n", f);
	if (!set)
		fputs("<p class=\"note\">No figures: gnuplot was not found when this report was "
		      "written (Debian package gnuplot-nox).</p>\n", f);
	size_t nfig = count_figures(set, "cell") + count_figures(set, "pareto") +
		      count_figures(set, "cdf");
	if (nfig) {
		fprintf(f, "<details class=\"figures\"><summary>%zu figures: each cell's unit medians, "
			   "its Pareto front, a sample distribution</summary>\n", nfig);
		bad |= figures(f, set, "cell");
		bad |= figures(f, set, "pareto");
		bad |= figures(f, set, "cdf");
		fputs("</details>\n", f);
	}
	for (size_t i = 0; set && i < set->nskipped; i++) {
		fputs("<p class=\"note skipped\">Not drawn: ", f);
		esc(f, set->skipped[i]);
		fputs("</p>\n", f);
	}
	fputs("</div>\n</section>\n", f);
	write_aa_drift_tau(r, f, set, &bad);
	replay_html(r->a->path, f); /* tuners replayed on the recorded trials (docs/replay.md) */
	fputs("<section id=\"warnings\">\n<h2>Warnings</h2>\n<ul class=\"warnings\">\n", f);
	if (!r->nwarnings)
		fputs("<li class=\"none\">None.</li>\n", f);
	for (size_t i = 0; i < r->nwarnings; i++) {
		fputs("<li>", f);
		esc(f, r->warnings[i]);
		fputs("</li>\n", f);
	}
	fputs("</ul>\n</section>\n</body>\n</html>\n", f);
	if (bad)
		return -1;
	return ferror(f) ? error_errno("cannot write the report") : 0;
}

/* ---- the figures ------------------------------------------------------------------------ */

int html_figures_draw(const struct report *r, const struct plot_src *src, struct plot_set *set,
		      char **dir)
{
	struct plot_opts po;
	char *gnuplot = plot_find_gnuplot();
	*dir = NULL;
	plot_opts_init(&po);
	po.format = PLOT_SVG;
	if (!gnuplot) {
		warning("gnuplot not found in PATH (Debian package gnuplot-nox): the HTML report has "
			"no figures");
		return 0;
	}
	free(gnuplot);
	const char *tmpdir = getenv("TMPDIR");
	char *d = xasprintf("%s/harness-html.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(d)) {
		error_errno("cannot create a temporary folder '%s'", d);
		free(d);
		return -1;
	}
	if (plot_draw(r, src, &po, d, set)) {
		util_rm_rf(d);
		free(d);
		return -1;
	}
	*dir = d;
	return 0;
}

int html_figures_release(struct plot_set *set, char *dir)
{
	int rc = dir && util_rm_rf(dir) ? -1 : 0;
	free(dir);
	plot_set_release(set);
	return rc;
}
