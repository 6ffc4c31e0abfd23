/* hyp-write.c: the hypotheses' verdicts (harness/analysis/hyp.h) as markdown and
 * JSON (docs/hypothesis-format.md, "Output"), and the verdict table `harness run` prints */
#include "config.h"
#include "harness/output/json.h"
#include "harness/output/write.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "harness/analysis/hyp.h"
#include "harness/base/util.h"

/* ---- output ------------------------------------------------------------------------------ */

static const char *pct(char *buf, size_t n, double v)
{
	if (isnan(v))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%.2f%%", 100 * v);
	return buf;
}

/* Markdown cells must not break the table. */
static void md_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", out);
		else if (*s == '\n')
			fputc(' ', out);
		else
			fputc(*s, out);
	}
}

/* A sequential run (harness/analysis/sequential.h): its looks, and what each primary
 * hypothesis's decision cost against a fixed design of the same error rate (alpha, 80% power
 * to detect its min_effect at the spread this run measured): blocks, and unit time at this
 * run's time per block. */
static void write_md_sequential(const struct hyp_eval *e, FILE *out)
{
	const char *sp = rec_meta_get(&e->a->meta, "sequential");
	const char *lj = rec_meta_get(&e->a->meta, "sequential_looks");
	if (!sp || !*sp)
		return;
	json_t *looks = lj && *lj ? json_loads(lj, 0, NULL) : NULL;
	size_t n = json_array_size(looks);
	const char *stop = rec_meta_get(&e->a->meta, "sequential_stopped");
	const char *mx = rec_meta_get(&e->a->meta, "sequential_max_repeats");
	fprintf(out, "\n### Sequential design\n\n%s spending of alpha over at most %s blocks, "
		     "until %s; %zu look(s); %s.\n\n"
		     "| look | blocks | level | alpha spent | primary decided | cells decided | "
		     "unit time (s) |\n|---|---|---|---|---|---|---|\n",
		sp, mx ? mx : "?", rec_meta_get(&e->a->meta, "sequential_until"), n,
		!stop || !*stop ? "not ended (resume it)"
		: !strcmp(stop, "decided") ? "stopped: decided"
					   : "stopped undecided: max_repeats spent");
	double unit_s = 0, blocks = 0;
	for (size_t k = 0; k < n; k++) {
		json_t *l = json_array_get(looks, k);
		blocks = json_number_value(json_object_get(l, "blocks"));
		unit_s = json_number_value(json_object_get(l, "unit_s"));
		json_t *sp_k = json_object_get(l, "spent"); /* absent before 2026-11-29 */
		char spent[32] = "-";
		if (json_is_number(sp_k))
			snprintf(spent, sizeof(spent), "%.4g", json_number_value(sp_k));
		fprintf(out, "| %zu | %.0f | %.4g | %s | %.0f of %.0f | %.0f of %.0f | %.1f |\n",
			k + 1, blocks, json_number_value(json_object_get(l, "alpha")), spent,
			json_number_value(json_object_get(l, "primary_decided")),
			json_number_value(json_object_get(l, "primary")),
			json_number_value(json_object_get(l, "cells_decided")),
			json_number_value(json_object_get(l, "cells")), unit_s);
	}
	fprintf(out, "\nEach primary hypothesis against a fixed design of the same error rate "
		     "(total alpha, 80%% power to detect its min_effect at the spread measured here; "
		     "unit time at %.1f s a block):\n\n"
		     "| id | verdict | decided at look | blocks used | unit time (s) | fixed design: "
		     "blocks | unit time (s) |\n|---|---|---|---|---|---|---|\n",
		     blocks > 0 ? unit_s / blocks : NAN);
	for (size_t i = 0; i < e->nr; i++) {
		const struct hyp_result *r = &e->r[i];
		if (!r->h->primary)
			continue;
		/* the first look from which it was never undecided again */
		size_t first = 0;
		for (size_t k = 0; k < n; k++) {
			const char *u = json_string_value(
				json_object_get(json_array_get(looks, k), "undecided"));
			int undecided = 0;
			for (const char *p = u ? u : ""; p && *p; p = strchr(p, ','), p = p ? p + 2 : p)
				undecided |= !strncmp(p, r->h->id, strlen(r->h->id)) &&
					     (p[strlen(r->h->id)] == ',' || !p[strlen(r->h->id)]);
			if (undecided)
				first = 0;
			else if (!first)
				first = k + 1;
		}
		json_t *fl = first ? json_array_get(looks, first - 1) : NULL;
		double b = fl ? json_number_value(json_object_get(fl, "blocks")) : NAN;
		double s = fl ? json_number_value(json_object_get(fl, "unit_s")) : NAN;
		fprintf(out, "| %s | %s | ", r->h->id, hyp_verdict_name(r->verdict));
		if (first)
			fprintf(out, "%zu | %.0f | %.1f | ", first, b, s);
		else
			fprintf(out, "- | - | - | ");
		if (isfinite(r->repeats_fixed) && blocks > 0)
			fprintf(out, "%.0f | %.1f |\n", r->repeats_fixed,
				r->repeats_fixed * unit_s / blocks);
		else
			fprintf(out, "- | - |\n");
	}
	json_decref(looks);
}

static void write_md(const struct hyp_eval *e, FILE *out)
{
	fprintf(out, "## Hypotheses\n\n");
	fprintf(out, "Results: '%s'.  Verdicts on files that are not PRE-REGISTERED are "
		     "exploratory.\n\n", e->a->path);
	fprintf(out, "| file | status | sha256 | why |\n|---|---|---|---|\n");
	for (size_t i = 0; i < e->set->n; i++) {
		const struct hyp_entry *en = &e->set->e[i];
		fprintf(out, "| ");
		md_text(out, en->file->path);
		fprintf(out, " | %s | %.12s | ", hyp_status_name(en->status), en->file->sha256);
		md_text(out, en->why ? en->why : "");
		fprintf(out, " |\n");
	}
	fprintf(out, "\n| id | primary | status | verdict | baseline | min effect | alpha | "
		     "deciding numbers | mde | repeats to decide |\n"
		     "|---|---|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < e->nr; i++) {
		const struct hyp_result *r = &e->r[i];
		char b1[32], b2[32];
		fprintf(out, "| %s%s%s%s | %s | %s | **%s**%s | %s | %s | %g | ", r->h->id,
			r->h->superseded_by ? " (superseded by " : "",
			r->h->superseded_by ? r->h->superseded_by : "",
			r->h->superseded_by ? ")" : "", r->h->primary ? "yes" : "no",
			hyp_status_name(r->entry->status),
			hyp_verdict_name(r->verdict), r->exploratory ? " (exploratory)" : "",
			r->baseline, pct(b1, sizeof(b1), r->min_effect), r->alpha);
		md_text(out, r->deciding);
		fprintf(out, " | %s | ", pct(b2, sizeof(b2), r->mde));
		if (r->verdict == HYP_INCONCLUSIVE && !isnan(r->repeats) && isfinite(r->repeats))
			fprintf(out, "%.0f blocks |\n", r->repeats);
		else
			fprintf(out, "- |\n");
	}
	if (e->nleft_out) {
		fprintf(out, "\nNot decided on this run, whose modes did not run on the backend "
			     "they are for:");
		for (size_t i = 0; i < e->nleft_out; i++)
			fprintf(out, "%s %s (only_on %s)", i ? "," : "", e->left_out[i]->id,
				e->left_out[i]->only_on);
		fprintf(out, ".\n");
	}
	fprintf(out, "\nHolm family: %zu p-value(s) of the primary hypotheses.\n", e->family);
	write_md_sequential(e, out);
	if (e->prereg_primary_falsified)
		fprintf(out, "\n**A pre-registered primary hypothesis was FALSIFIED.**\n");
}

static json_t *jexpr_crit(const struct hyp_criterion *c)
{
	json_t *o = json_pack("{s:o, s:o, s:s}", "id", jw_str(c->id), "statistic",
			      jw_str(c->statistic), "op", hyp_op_name(c->op));
	json_object_set_new(o, "value", c->svalue ? jw_str(c->svalue) : jw_num(c->value));
	return o;
}

static json_t *json_eval(const struct hyp_eval *e)
{
	json_t *root = json_pack("{s:s, s:i, s:o}", "format", "harness-verify", "version", 1,
				 "results", jw_str(e->a->path));
	json_t *files = json_array();
	for (size_t i = 0; i < e->set->n; i++) {
		const struct hyp_entry *en = &e->set->e[i];
		json_array_append_new(files, json_pack("{s:o, s:o, s:s, s:o, s:b}", "path",
						       jw_str(en->file->path), "sha256",
						       jw_str(en->file->sha256), "status",
						       hyp_status_name(en->status), "why",
						       jw_str(en->why ? en->why : ""), "recorded",
						       en->recorded));
	}
	json_object_set_new(root, "files", files);
	json_t *hs = json_array();
	for (size_t i = 0; i < e->nr; i++) {
		const struct hyp_result *r = &e->r[i];
		const struct hypothesis *h = r->h;
		json_t *o = json_pack("{s:o, s:o, s:o, s:b, s:s, s:s, s:b, s:o, s:s, s:s}", "file",
				      jw_str(r->entry->file->path), "id", jw_str(h->id), "claim",
				      jw_str(h->claim), "primary", h->primary, "status",
				      hyp_status_name(r->entry->status), "verdict",
				      hyp_verdict_name(r->verdict), "exploratory", r->exploratory,
				      "baseline", jw_str(r->baseline), "aggregate",
				      hyp_aggregate_name(h->aggregate), "prediction",
				      hyp_prediction_name(h->prediction));
		json_object_set_new(o, "at_least", h->aggregate == HYP_AGG_AT_LEAST ?
							   json_integer((json_int_t)h->at_least) :
							   json_null());
		if (h->superseded_by) /* only then: files without it read as before */
			json_object_set_new(o, "superseded_by", jw_str(h->superseded_by));
		json_object_set_new(o, "alpha", jw_num(r->alpha));
		json_object_set_new(o, "min_effect", jw_num(r->min_effect));
		json_object_set_new(o, "min_effect_source", jw_str(r->min_effect_source));
		json_t *crit = json_array();
		for (size_t k = 0; k < r->ncrit; k++)
			json_array_append_new(crit, jexpr_crit(&r->crit[k]));
		json_object_set_new(o, "criteria", crit);
		json_object_set_new(o, "corroborate", jw_str(r->corroborate));
		json_object_set_new(o, "falsify", jw_str(r->falsify));
		json_object_set_new(o, "deciding", jw_str(r->deciding));
		json_t *hb = json_array();
		for (size_t k = 0; k < r->nhb; k++) {
			const struct an_cell *hc = &e->a->cells[r->hb[k].cell],
					     *hg = &e->a->cells[r->hb[k].graph];
			json_array_append_new(hb, json_pack("{s:o, s:o, s:o, s:b}", "cell",
							    jw_str(hc->name), "graph",
							    jw_str(hg->name), "ratio",
							    jw_num(r->hb[k].ratio), "left_out",
							    r->hb[k].left_out));
		}
		json_object_set_new(o, "host_bound", hb);
		json_object_set_new(o, "mde", jw_num(r->mde));
		json_object_set_new(o, "repeats_to_decide", jw_num(r->repeats));
		json_t *ts = json_array();
		for (size_t k = 0; k < r->nt; k++) {
			const struct hyp_target *t = &r->t[k];
			static const char *const kinds[] = { "cell", "geomean", "tau", "composition" };
			json_t *x = json_pack("{s:o, s:s, s:b}", "label", jw_str(t->label), "kind",
					      kinds[t->kind], "ok", t->ok);
			json_object_set_new(x, "mode", jw_str(t->mode));
			if (!t->ok)
				json_object_set_new(x, "why", jw_str(t->note));
			json_object_set_new(x, "n", json_integer((json_int_t)t->n));
			json_object_set_new(x, "blocks", json_integer((json_int_t)t->nblocks));
			json_object_set_new(x, "noise_floor", jw_num(t->floor));
			json_object_set_new(x, "ratio", jw_num(t->ratio));
			json_object_set_new(x, "hl_ratio", jw_num(t->hl_ratio));
			json_object_set_new(x, "ci", json_pack("[o, o]", jw_num(t->lo), jw_num(t->hi)));
			json_object_set_new(x, "tau", jw_num(t->tau));
			if (t->kind == HYP_T_TAU)
				json_object_set_new(x, "tau_pred", jw_num(t->tau_pred));
			if (t->kind == HYP_T_COMP) {
				json_object_set_new(x, "pred_ratio", jw_num(t->pred));
				json_object_set_new(x, "pred_ci", json_pack("[o, o]", jw_num(t->pred_lo),
									    jw_num(t->pred_hi)));
				json_object_set_new(x, "e2e_ci", json_pack("[o, o]", jw_num(t->e2e_lo),
									   jw_num(t->e2e_hi)));
				json_object_set_new(x, "interaction", jw_num(t->inter));
				json_object_set_new(x, "coverage", jw_num(t->cov));
				json_object_set_new(x, "coverage_ci", json_pack("[o, o]", jw_num(t->cov_lo),
										jw_num(t->cov_hi)));
				json_object_set_new(x, "coverage_mode", jw_num(t->cov_mode));
				json_object_set_new(x, "geomean_unweighted", jw_num(t->geomean));
			}
			json_object_set_new(x, "p_raw", jw_num(t->p_raw));
			json_object_set_new(x, "p", jw_num(t->p));
			json_object_set_new(x, "holm", json_boolean(t->in_family));
			json_object_set_new(x, "mde", jw_num(t->mde));
			json_object_set_new(x, "repeats_to_decide", jw_num(t->repeats));
			json_object_set_new(x, "verdict", t->kind == HYP_T_TAU || t->kind == HYP_T_COMP ? json_null() :
					    json_string(stats_verdict_name(t->verdict)));
			json_object_set_new(x, "result", json_string(hyp_verdict_name(t->result)));
			json_array_append_new(ts, x);
		}
		json_object_set_new(o, "targets", ts);
		json_array_append_new(hs, o);
	}
	json_object_set_new(root, "hypotheses", hs);
	if (e->nleft_out) {
		json_t *lo = json_array();
		for (size_t i = 0; i < e->nleft_out; i++)
			json_array_append_new(lo, json_pack("{s:o, s:s}", "id",
							    jw_str(e->left_out[i]->id), "only_on",
							    e->left_out[i]->only_on));
		json_object_set_new(root, "left_out", lo);
	}
	json_object_set_new(root, "holm_family", json_integer((json_int_t)e->family));
	json_object_set_new(root, "preregistered_primary_falsified",
			    json_boolean(e->prereg_primary_falsified));
	return root;
}

int hyp_eval_write(const struct hyp_eval *e, enum report_format fmt, FILE *out)
{
	if (fmt == REPORT_JSON) {
		if (jw_dump(json_eval(e), out,
			    JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10),
			    "hypotheses' verdicts"))
			return -1;
	} else {
		write_md(e, out);
	}
	if (fflush(out) || ferror(out))
		return error_errno("cannot write the hypotheses' verdicts");
	return 0;
}
