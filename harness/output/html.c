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
#include "harness/output/html-int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/util.h"
#include "harness/output/replay-write.h"

/* Text with &, <, >, " and ' escaped (for element content and attribute values); invalid
 * UTF-8 (from a file an older or damaged build wrote) as U+FFFD, so the page stays UTF-8. */
void html_esc(FILE *f, const char *str)
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
const char *html_num(char *buf, size_t n, char style, double v)
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
void html_td(FILE *f, const char *s)
{
	fputs("<td>", f);
	html_esc(f, s);
	fputs("</td>", f);
}

/* A cell name: escaped, with a break opportunity (<wbr>) after each ',', '/' and ':', so
 * that a narrow column breaks "net/conv2d:c=64,h=24,..." between fields, not inside one. */
void html_td_name(FILE *f, const char *s)
{
	fputs("<td>", f);
	for (; *s; s++) {
		char one[2] = { *s, '\0' };
		html_esc(f, one);
		if (*s == ',' || *s == '/' || *s == ':')
			fputs("<wbr>", f);
	}
	fputs("</td>", f);
}

void html_td_num(FILE *f, char style, double v)
{
	char b[48];
	fprintf(f, "<td class=\"num\">%s</td>", html_num(b, sizeof(b), style, v));
}

void html_td_ci(FILE *f, double lo, double hi)
{
	char b1[48], b2[48];
	fprintf(f, "<td class=\"num\">[%s, %s]</td>", html_num(b1, 48, 'r', lo), html_num(b2, 48, 'r', hi));
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
int html_figures(FILE *f, const struct plot_set *set, const char *kind)
{
	for (size_t i = 0; set && i < set->nfigs; i++) {
		const struct plot_fig *fig = &set->figs[i];
		if (strcmp(fig->kind, kind))
			continue;
		fprintf(f, "<figure id=\"fig-%s\" class=\"figure fig-%s\">\n", fig->id, fig->kind);
		if (inline_svg(f, fig))
			return -1;
		fputs("<figcaption><strong>", f);
		html_esc(f, fig->title);
		fputs(".</strong> ", f);
		html_esc(f, fig->how);
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
	html_esc(f, name);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>Report: ", css);
	html_esc(f, name);
	fputs("</h1>\n<p class=\"lede\">Results <code>", f);
	html_esc(f, a->path);
	fputs("</code>; every ratio is mode / baseline <code>", f);
	html_esc(f, a->modes[r->baseline]);
	fputs("</code> (&lt; 1: the mode is faster).</p>\n", f);
}

/* The comparison of mode m in workload w's e2e cell (analysis_workload_e2e), or NULL. */
static const struct rep_cmp *e2e_cmp(const struct report *r, size_t m, const char *w)
{
	size_t e2e = analysis_workload_e2e(r->a, w);
	for (size_t i = 0; i < r->ncmp; i++) {
		const struct rep_cmp *x = &r->cmp[i];
		if (x->mode == m && x->cell == e2e)
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
			html_num(b1, 48, 'r', v), html_num(b2, 48, 'r', lo), html_num(b3, 48, 'r', hi));
}

/* Per mode, per workload (then overall): the e2e ratio with its CI and verdict, the
 * per-op geometric mean with its CI, the verdict counts over the scope's cells. */
static void summary_answer(const struct report *r, FILE *f)
{
	const struct analysis *a = r->a;
	fputs("<h2>Answer</h2>\n<table id=\"answer-table\" class=\"answer\">\n<thead><tr><th>mode</th>"
	      "<th>scope</th><th>e2e ratio [CI]</th><th>e2e verdict</th>"
	      "<th>per-op geomean [CI]</th><th>faster / slower / same / inconclusive</th>"
	      "</tr></thead>\n<tbody>\n", f);
	for (size_t m = 0; m < a->nmodes; m++)
		for (size_t g = 0; g < r->nagg; g++) {
			const struct rep_agg *x = &r->agg[g];
			if (x->mode != m)
				continue;
			const struct rep_cmp *e = x->has_e2e ? e2e_cmp(r, m, x->scope) : NULL;
			const char *v = x->has_e2e ? stats_verdict_name(x->e2e_verdict) : "-";
			fprintf(f, "<tr class=\"answer-row\" data-mode=\"");
			html_esc(f, a->modes[m]);
			fputs("\"><td>", f);
			html_esc(f, a->modes[m]);
			if (a->aa_of[m]) {
				fputs(" <small>(A/A copy of ", f);
				html_esc(f, a->aa_of[m]);
				fputs(")</small>", f);
			}
			fputs("</td>", f);
			html_td(f, x->scope);
			if (e && e->ok)
				td_ratio_ci(f, x->e2e_ratio, e->c.lo, e->c.hi);
			else
				html_td_num(f, 'r', x->has_e2e ? x->e2e_ratio : NAN);
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
		html_esc(f, c->title);
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
		html_esc(f, x->h->id);
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
		bad = html_figures(f, p->figs, "forest");
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
	html_esc(f, a->path);
	fputs("</code> (harness ", f);
	html_esc(f, meta(r, "harness_version"));
	fputs(", commit ", f);
	fprintf(f, "%.12s", meta(r, "git_commit"));
	fputs(", backend ", f);
	html_esc(f, meta(r, "backend"));
	fprintf(f, ")</li>\n<li>design: %zu blocks, order ", a->nblocks);
	html_esc(f, *meta(r, "order") ? meta(r, "order") : "-");
	fputs(", seed ", f);
	html_esc(f, *meta(r, "seed") ? meta(r, "seed") : "-");
	fprintf(f, "; %zu of %zu cold units ok; %zu warm probes; %lld samples</li>\n", ok, all,
		a->warm_units, (long long)a->nsamples);
	if (*meta(r, "repeats_extended")) {
		fputs("<li>plan extended: ", f);
		html_esc(f, meta(r, "repeats_extended"));
		fputs("</li>\n", f);
	}
	fputs("<li>baseline: <code>", f);
	html_esc(f, a->modes[r->baseline]);
	fprintf(f, "</code>; %s</li>\n",
		a->paired ? "ratio = mode / baseline per block (&lt; 1: the mode is faster); paired "
			    "by block"
			  : "ratio = mode / baseline over each mode's units (&lt; 1: the mode is "
			    "faster); NOT paired (the data has no blocks)");
	fprintf(f, "<li>decisions: %s test, %.0f%% CIs, alpha %.3g, p adjusted by %s within each "
		   "family (per %s; the A/A copies apart); SAME when the CI lies inside the cell's "
		   "noise floor or the declared margin (",
		stats_test_name(r->o.test), 100 * r->o.conf, r->o.alpha,
		rep_adjust_name(r->o.adjust), r->o.family_workload ? "workload" : "run");
	if (isnan(r->margin))
		fputs("none", f);
	else {
		fprintf(f, "&plusmn;%.2f%%, ", 100 * r->margin);
		html_esc(f, r->margin_source);
	}
	fprintf(f, "); compositions' bootstrap %zu resamples, seed %llu</li>\n</ul>\n</section>\n",
		r->o.nboot, (unsigned long long)r->o.seed);
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
		html_esc(f, set->e[i].file->path);
		fputs("</td><td>", f);
		html_esc(f, hyp_status_name(set->e[i].status));
		fputs("</td><td>", f);
		html_esc(f, set->e[i].why ? set->e[i].why : "");
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n<table id=\"hypothesis-table\" class=\"wide\"><tr><th>id</th><th>primary</th>"
	      "<th>verdict</th><th>deciding numbers</th></tr>\n", f);
	for (size_t i = 0; i < e->nr; i++) {
		const struct hyp_result *x = &e->r[i];
		fprintf(f, "<tr class=\"hyp-%s\"><td>", hyp_verdict_name(x->verdict));
		html_esc(f, x->h->id);
		fprintf(f, "</td><td>%s</td><td><strong>%s</strong>%s</td><td>", x->h->primary ? "yes" : "no",
			hyp_verdict_name(x->verdict), x->exploratory ? " (exploratory)" : "");
		html_esc(f, x->deciding ? x->deciding : "");
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
		html_esc(f, c->title);
		fprintf(f, "</td><td><strong>%s</strong></td><td>", audit_status_name(c->status));
		html_esc(f, c->summary ? c->summary : "");
		fputs("</td><td>", f);
		for (size_t k = 0; k < c->nevidence; k++) {
			if (k)
				fputs("<br>", f);
			html_esc(f, c->evidence[k]);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n</details>\n</section>\n", f);
}

int html_write(const struct html_parts *p, FILE *f)
{
	const struct report *r = p->report;
	const struct plot_set *set = p->figs;
	int bad = 0;
	write_head(r, f);
	bad |= write_summary(p, f);
	write_run(r, f);
	html_write_progress(r, f);
	write_hypotheses(p, f);
	write_audit(p->audit, f);
	html_write_verdicts(r, f);
	fputs("</section>\n", f);
	html_write_aggregates(r, f);
	html_write_cells(r, f);
	fputs("<div id=\"cell-figures\">\n", f);
	if (!set)
		fputs("<p class=\"note\">No figures: gnuplot was not found when this report was "
		      "written (Debian package gnuplot-nox).</p>\n", f);
	size_t nfig = count_figures(set, "cell") + count_figures(set, "pareto") +
		      count_figures(set, "cdf");
	if (nfig) {
		fprintf(f, "<details class=\"figures\"><summary>%zu figures: each cell's unit medians, "
			   "its Pareto front, a sample distribution</summary>\n", nfig);
		bad |= html_figures(f, set, "cell");
		bad |= html_figures(f, set, "pareto");
		bad |= html_figures(f, set, "cdf");
		fputs("</details>\n", f);
	}
	for (size_t i = 0; set && i < set->nskipped; i++) {
		fputs("<p class=\"note skipped\">Not drawn: ", f);
		html_esc(f, set->skipped[i]);
		fputs("</p>\n", f);
	}
	fputs("</div>\n</section>\n", f);
	html_write_aa_drift_tau(r, f, set, &bad);
	html_write_choices(r, f);
	/* tuners replayed on the recorded trials (docs/replay.md) */
	replay_html(p->replay, p->replay_failed, f);
	fputs("<section id=\"warnings\">\n<h2>Warnings</h2>\n<ul class=\"warnings\">\n", f);
	if (!r->nwarnings)
		fputs("<li class=\"none\">None.</li>\n", f);
	for (size_t i = 0; i < r->nwarnings; i++) {
		fputs("<li>", f);
		html_esc(f, r->warnings[i]);
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
	po.all_cells = 1; /* the page folds every cell's figures under its table */
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
