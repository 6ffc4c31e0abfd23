/* replay-write.c: a replay's rows as Markdown (a summary table), JSON (everything, the
 * curves included) or CSV (one line per tuner, cell and budget) */
#include "config.h"
#include "harness/output/replay-write.h"

#include <inttypes.h>
#include <math.h>

#include <stdlib.h>
#include <string.h>

#include "harness/base/util.h"
#include "harness/output/json.h"
#include "harness/record/recorder.h"

/* Autotuning-methodology's score: per tuner and cell, and over the cells. */
static void write_method_md(const struct replay *r, FILE *out)
{
	fprintf(out, "\nAutotuning-methodology's score (Willemsen et al. 2024; cutoff percentiles "
		"%.3g and %.3g, %zu points on the time axis; the seeds pooled into one isotonic fit, "
		"as the package pools repeats, and each seed alone: mean [Student's t 95%% CI]; "
		"0 = random search, 1 = the optimum throughout, unbounded below):\n\n"
		"| tuner | cell | range (evaluations) | range (s) | budget | score | seeds alone |\n"
		"|---|---|---|---|---|---|---|\n", r->p_end, r->p_start, r->res);
	for (size_t i = 0; i < r->nrows; i++) {
		const struct replay_row *w = &r->rows[i];
		if (!w->m.ok) {
			fprintf(out, "| %s | %s | | | | (%s) | |\n", w->tuner, w->cell,
				w->m.why ? w->m.why : "not computed");
			continue;
		}
		fprintf(out, "| %s | %s | %" PRId64 " to %" PRId64 " | %.4g to %.4g | %" PRId64
			" | %.3f | %.3f [%.3f, %.3f] |\n", w->tuner, w->cell, w->m.fevals_start,
			w->m.fevals_end, w->m.time_start, w->m.time_end, w->m.budget, w->m.score,
			w->m.seed_mean, w->m.seed_lo, w->m.seed_hi);
	}
	fprintf(out, "\nPer tuner over the cells (the cells' curves averaged point by point; "
		"\"error\": their standard deviation over the time axis, as the package prints):"
		"\n\n| tuner | cells | score | error |\n|---|---|---|---|\n");
	for (size_t k = 0; k < r->nagg; k++)
		fprintf(out, "| %s | %zu | %.3f | %.3f |\n", r->agg[k].tuner, r->agg[k].mcells,
			r->agg[k].mscore, r->agg[k].merror);
}

static int write_md(const struct replay *r, FILE *out)
{
	char budget[96];
	if (r->budget_ns > 0)
		snprintf(budget, sizeof(budget), "%.6g s of recorded compile and benchmark time "
			 "(curves over %" PRId64 " trials)", (double)r->budget_ns / 1e9, r->budget);
	else
		snprintf(budget, sizeof(budget), "%" PRId64 " trials", r->budget);
	if (r->nsources > 1)
		fprintf(out, "# Replay of %zu results files\n\nSources: each file's unit with the "
			"most trials (cells named FILE: cell)", r->nsources);
	else
		fprintf(out, "# Replay of '%s'\n\nSource: unit %" PRId64 " (mode '%s')", r->path,
			r->unit, r->source_mode);
	fprintf(out, "; budget %s; %zu seeds; noise %s; start %s; objective: the samples' %s.  "
		"Score: 0 = the expected best of random search at that budget, 1 = the best config "
		"known; mean over seeds [Student's t 95%% CI of the mean].\n\n", budget, r->seeds,
		r->noise ? "resampled from the recorded samples" : "none", r->start,
		replay_objective_name(r->objective));
	fprintf(out, "| tuner | cell | valid | score at budget | trials to 0.95 | trials used | "
		"chosen / best | chosen (seed 0) | unmeasured |\n|---|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < r->nrows; i++) {
		const struct replay_row *w = &r->rows[i];
		size_t b = (size_t)r->budget - 1;
		char to95[32];
		if (w->to95 > 0)
			snprintf(to95, sizeof(to95), "%" PRId64, w->to95);
		else
			snprintf(to95, sizeof(to95), "never");
		fprintf(out, "| %s | %s | %zu (%zu ok) | %.3f [%.3f, %.3f] | %s | %.0f | %.4f | `%s` | "
			"%zu |\n", w->tuner, w->cell, w->nvalid, w->nmeasured, w->score_mean[b],
			w->score_lo[b], w->score_hi[b], to95, w->trials_med, w->ratio_med,
			w->config ? w->config : "", w->unmeasured);
	}
	fprintf(out, "\nPer tuner over the cells (each cell's mean score at the budget):\n\n"
		"| tuner | cells | mean | sd | min | max |\n|---|---|---|---|---|---|\n");
	for (size_t k = 0; k < r->nagg; k++)
		fprintf(out, "| %s | %zu | %.3f | %.3f | %.3f | %.3f |\n", r->agg[k].tuner,
			r->agg[k].ncells, r->agg[k].mean, r->agg[k].sd, r->agg[k].min, r->agg[k].max);
	if (r->methodology)
		write_method_md(r, out);
	if (r->nleft_out)
		fprintf(out, "\nLeft out (%zu op cell%s of the source):\n\n", r->nleft_out,
			r->nleft_out == 1 ? "" : "s");
	for (size_t i = 0; i < r->nleft_out; i++)
		fprintf(out, "- %s\n", r->left_out[i]);
	return 0;
}

static int write_csv(const struct replay *r, FILE *out)
{
	fprintf(out, "tuner,cell,budget,score_mean,score_ci_lo,score_ci_hi,score_median,"
		"random_expected_ns,best_ns\n");
	for (size_t i = 0; i < r->nrows; i++) {
		const struct replay_row *w = &r->rows[i];
		for (int64_t t = 0; t < r->budget; t++)
			fprintf(out, "%s,\"%s\",%" PRId64 ",%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n",
				w->tuner, w->cell, t + 1, w->score_mean[t], w->score_lo[t],
				w->score_hi[t], w->score_med[t], w->random_ns[t], w->best_ns);
	}
	return 0;
}

static json_t *numv(const double *v, int64_t n)
{
	json_t *a = json_array();
	for (int64_t i = 0; i < n; i++)
		json_array_append_new(a, jw_num(v[i]));
	return a;
}

/* One row's methodology score in json. */
static json_t *method_json(const struct replay_method *m, size_t seeds)
{
	if (!m->ok)
		return json_pack("{s:o}", "error", jw_str(m->why ? m->why : "not computed"));
	json_t *o = json_object();
	jw_set(o, "fevals_start", json_integer(m->fevals_start));
	jw_set(o, "fevals_end", json_integer(m->fevals_end));
	jw_set(o, "time_start_s", jw_num(m->time_start));
	jw_set(o, "time_end_s", jw_num(m->time_end));
	jw_set(o, "budget", json_integer(m->budget));
	jw_set(o, "time_median_s", jw_num(m->t_med));
	jw_set(o, "time_per_feval_s", jw_num(m->t_pf));
	jw_set(o, "optimum", jw_num(m->opt));
	jw_set(o, "median", jw_num(m->median));
	jw_set(o, "score", jw_num(m->score));
	jw_set(o, "seed_score_mean", jw_num(m->seed_mean));
	jw_set(o, "seed_score_ci_lo", jw_num(m->seed_lo));
	jw_set(o, "seed_score_ci_hi", jw_num(m->seed_hi));
	jw_set(o, "seed_scores", numv(m->seed_score, (int64_t)seeds));
	jw_set(o, "time_range_s", numv(m->time_range, (int64_t)m->res));
	jw_set(o, "baseline", numv(m->baseline, (int64_t)m->res));
	jw_set(o, "curve", numv(m->curve, (int64_t)m->res));
	return o;
}

static int write_json(const struct replay *r, FILE *out)
{
	json_t *root = json_object(), *rows = json_array();
	jw_set(root, "results", jw_str(r->path));
	jw_set(root, "source_unit", json_integer(r->unit));
	jw_set(root, "source_mode", jw_str(r->source_mode));
	jw_set(root, "budget_trials", json_integer(r->budget));
	jw_set(root, "budget_seconds", r->budget_ns > 0 ? jw_num((double)r->budget_ns / 1e9)
						       : json_null());
	jw_set(root, "seeds", json_integer((json_int_t)r->seeds));
	jw_set(root, "noise", json_boolean(r->noise));
	jw_set(root, "start", jw_str(r->start));
	jw_set(root, "objective", jw_str(replay_objective_name(r->objective)));
	jw_set(root, "results_files", json_integer((json_int_t)(r->nsources ? r->nsources : 1)));
	for (size_t i = 0; i < r->nrows; i++) {
		const struct replay_row *w = &r->rows[i];
		json_t *o = json_object();
		jw_set(o, "tuner", jw_str(w->tuner));
		jw_set(o, "cell", jw_str(w->cell));
		jw_set(o, "valid", json_integer((json_int_t)w->nvalid));
		jw_set(o, "measured_ok", json_integer((json_int_t)w->nmeasured));
		jw_set(o, "best_ns", jw_num(w->best_ns));
		jw_set(o, "config_seed0", jw_str(w->config));
		jw_set(o, "chosen_over_best_median", jw_num(w->ratio_med));
		jw_set(o, "trials_used_median", jw_num(w->trials_med));
		jw_set(o, "trials_to_095", w->to95 > 0 ? json_integer(w->to95) : json_null());
		jw_set(o, "unmeasured", json_integer((json_int_t)w->unmeasured));
		jw_set(o, "score_mean", numv(w->score_mean, r->budget));
		jw_set(o, "score_ci_lo", numv(w->score_lo, r->budget));
		jw_set(o, "score_ci_hi", numv(w->score_hi, r->budget));
		jw_set(o, "score_median", numv(w->score_med, r->budget));
		jw_set(o, "random_expected_ns", numv(w->random_ns, r->budget));
		json_t *seeds = json_array();
		for (size_t k = 0; k < r->seeds; k++)
			json_array_append_new(seeds, numv(w->seed_best_ns + k * (size_t)r->budget,
							 r->budget));
		jw_set(o, "seed_best_ns", seeds);
		if (r->methodology)
			jw_set(o, "methodology", method_json(&w->m, r->seeds));
		json_array_append_new(rows, o);
	}
	jw_set(root, "rows", rows);
	json_t *agg = json_array();
	for (size_t k = 0; k < r->nagg; k++)
		json_array_append_new(agg, json_pack("{s:s, s:I, s:o, s:o, s:o, s:o}", "tuner",
						     r->agg[k].tuner, "cells",
						     (json_int_t)r->agg[k].ncells, "mean",
						     jw_num(r->agg[k].mean), "sd", jw_num(r->agg[k].sd),
						     "min", jw_num(r->agg[k].min), "max",
						     jw_num(r->agg[k].max)));
	jw_set(root, "tuners", agg);
	if (r->methodology) {
		json_t *m = json_pack("{s:o, s:o, s:I}", "cutoff_percentile", jw_num(r->p_end),
				      "cutoff_percentile_start", jw_num(r->p_start), "resolution",
				      (json_int_t)r->res);
		json_t *ta = json_array();
		for (size_t k = 0; k < r->nagg; k++)
			json_array_append_new(ta, json_pack("{s:s, s:I, s:o, s:o}", "tuner",
							    r->agg[k].tuner, "cells",
							    (json_int_t)r->agg[k].mcells, "score",
							    jw_num(r->agg[k].mscore), "error",
							    jw_num(r->agg[k].merror)));
		jw_set(m, "tuners", ta);
		jw_set(root, "methodology", m);
	}
	json_t *lo = json_array();
	for (size_t i = 0; i < r->nleft_out; i++)
		json_array_append_new(lo, jw_str(r->left_out[i]));
	jw_set(root, "left_out", lo);
	return jw_dump(root, out, JSON_INDENT(2), "replay");
}

/* ---- the HTML report's section -------------------------------------------------------- */

static void html_text(FILE *f, const char *str)
{
	char *fixed = util_utf8_sanitize(str);
	for (const char *s = fixed ? fixed : str; *s; s++)
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

static int cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

void replay_html(const struct replay *r, int failed, FILE *f)
{
	if (!r && !failed)
		return;
	fputs("<section id=\"replay\">\n<h2>Tuners replayed on the recorded trials</h2>\n", f);
	if (!r) {
		fputs("<p class=\"note\">The replay failed (see stderr); run <code>harness "
		      "replay</code> on the file.</p>\n</section>\n", f);
		return;
	}
	fprintf(f, "<p>Source: unit %" PRId64 " (mode <code>", r->unit);
	html_text(f, r->source_mode);
	fprintf(f, "</code>); budget %" PRId64 " trials, %zu seeds, no noise. Score: 0 = the "
		"expected best of random search at that budget, 1 = the best config known "
		"(docs/replay.md); <code>harness replay</code> gives every cell, curves and "
		"figure.</p>\n<table id=\"replay-table\">\n<thead><tr><th>tuner</th><th>cells</th>"
		"<th>median over cells of the mean score at the budget</th><th>cells reaching 0.95</th><th>median trials "
		"to 0.95</th><th>median chosen / best</th></tr></thead>\n<tbody>\n", r->budget,
		r->seeds);
	double *v = xcalloc(r->nrows + 1, sizeof(*v)), *t = xcalloc(r->nrows + 1, sizeof(*t));
	double *q = xcalloc(r->nrows + 1, sizeof(*q));
	/* the tuners in the order the replay has them (each row's tuner first seen) */
	for (size_t k = 0; k < r->nrows; k++) {
		const char *tuner = r->rows[k].tuner;
		size_t n = 0, nt = 0, seen = 0;
		for (size_t i = 0; i < k && !seen; i++)
			seen = !strcmp(r->rows[i].tuner, tuner);
		if (seen)
			continue;
		for (size_t i = 0; i < r->nrows; i++) {
			const struct replay_row *w = &r->rows[i];
			if (strcmp(w->tuner, tuner))
				continue;
			v[n] = w->score_mean[r->budget - 1];
			q[n++] = w->ratio_med;
			if (w->to95 > 0)
				t[nt++] = (double)w->to95;
		}
		if (!n)
			continue;
		qsort(v, n, sizeof(*v), cmp_dbl);
		qsort(q, n, sizeof(*q), cmp_dbl);
		qsort(t, nt, sizeof(*t), cmp_dbl);
		fprintf(f, "<tr><td>%s</td><td>%zu</td><td>%.3f</td><td>%zu</td><td>", tuner, n,
			n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, nt);
		if (nt)
			fprintf(f, "%g", nt % 2 ? t[nt / 2] : (t[nt / 2 - 1] + t[nt / 2]) / 2);
		else
			fputs("-", f);
		fprintf(f, "</td><td>%.4f</td></tr>\n", n % 2 ? q[n / 2] : (q[n / 2 - 1] + q[n / 2]) / 2);
	}
	fputs("</tbody>\n</table>\n</section>\n", f);
	free(v);
	free(t);
	free(q);
}

int replay_write(const struct replay *r, enum report_format fmt, FILE *out)
{
	switch (fmt) {
	case REPORT_JSON: return write_json(r, out);
	case REPORT_CSV: return write_csv(r, out);
	default: return write_md(r, out);
	}
}
