/* compare.c: the same (mode, cell) across two runs, unpaired (two machines, two days, two
 * harness versions): Mann-Whitney on log unit medians, bootstrap CI of the ratio of medians,
 * Holm across the rows (see report.h) */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>
#include <jansson.h>

#include "harness/analysis/report.h"
#include "harness/base/util.h"

static long cell_index(const struct analysis *a, const char *name)
{
	for (size_t c = 0; c < a->ncells; c++)
		if (!strcmp(a->cells[c].name, name))
			return (long)c;
	return -1;
}

int run_compare_build(const struct analysis *a, const struct analysis *b,
		      const struct report_opts *o, struct run_compare **out)
{
	struct run_compare *rc = xcalloc(1, sizeof(*rc));
	rc->a = a;
	rc->b = b;
	rc->o = *o;
	rc->margin = !isnan(o->margin) ? o->margin : !isnan(a->margin) ? a->margin : 0.01;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!rng) {
		free(rc);
		return error("cannot allocate the bootstrap's random number generator");
	}
	gsl_rng_set(rng, (unsigned long)o->seed);
	size_t nmax = (a->nblocks > b->nblocks ? a->nblocks : b->nblocks) + 1;
	double *xa = xmalloc(nmax * sizeof(*xa)), *xb = xmalloc(nmax * sizeof(*xb));
	double *w = xmalloc(nmax * sizeof(*w));
	struct stats_compare_opts co = { .conf = o->conf, .alpha = o->alpha, .margin = rc->margin,
					 .power = o->power, .nboot = o->nboot };
	for (size_t m = 0; m < a->nmodes; m++) {
		long mb = analysis_mode(b, a->modes[m]);
		for (size_t c = 0; c < a->ncells; c++) {
			long cb = mb < 0 ? -1 : cell_index(b, a->cells[c].name);
			if (cb < 0) {
				rc->only_a++;
				continue;
			}
			rc->rows = xrealloc(rc->rows, (rc->nrows + 1) * sizeof(*rc->rows));
			struct cmp_row *row = &rc->rows[rc->nrows++];
			memset(row, 0, sizeof(*row));
			row->cell = a->cells[c].name;
			row->mode = a->modes[m];
			row->na = analysis_column(a, m, c, xa);
			row->nb = analysis_column(b, (size_t)mb, (size_t)cb, xb);
			row->med_a = row->na ? stats_median(xa, 1, row->na, w) : NAN;
			row->med_b = row->nb ? stats_median(xb, 1, row->nb, w) : NAN;
			char *cause = NULL;
			if (!row->na || !row->nb)
				snprintf(row->note, sizeof(row->note), "no ok units in %s",
					 row->na ? "B" : "A");
			else if (stats_compare_unpaired(xb, row->nb, xa, row->na, &co, rng, &row->c,
							&cause)) {
				snprintf(row->note, sizeof(row->note), "%s", cause);
				free(cause);
			} else
				row->ok = 1;
		}
	}
	for (size_t m = 0; m < b->nmodes; m++)
		for (size_t c = 0; c < b->ncells; c++)
			if (analysis_mode(a, b->modes[m]) < 0 || cell_index(a, b->cells[c].name) < 0)
				rc->only_b++;
	/* Holm across the rows */
	double *p = xmalloc((rc->nrows + 1) * sizeof(*p)), *adj = xmalloc((rc->nrows + 1) * sizeof(*adj));
	size_t k = 0;
	for (size_t i = 0; i < rc->nrows; i++)
		if (rc->rows[i].ok)
			p[k++] = rc->rows[i].c.p;
	stats_holm(p, k, adj);
	k = 0;
	for (size_t i = 0; i < rc->nrows; i++)
		if (rc->rows[i].ok)
			stats_comparison_redecide(&rc->rows[i].c, adj[k++], o->alpha, rc->margin);
	free(p);
	free(adj);
	free(xa);
	free(xb);
	free(w);
	gsl_rng_free(rng);
	*out = rc;
	return 0;
}

static json_t *jnum_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

int run_compare_write(const struct run_compare *rc, enum report_format fmt, FILE *f)
{
	if (fmt == REPORT_JSON) {
		json_t *rows = json_array();
		for (size_t i = 0; i < rc->nrows; i++) {
			const struct cmp_row *r = &rc->rows[i];
			json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:o, s:o, s:b}", "cell", r->cell, "mode",
					      r->mode, "units_a", (json_int_t)r->na, "units_b", (json_int_t)r->nb,
					      "median_a_ns", jnum_or_null(r->med_a), "median_b_ns", jnum_or_null(r->med_b),
					      "compared", r->ok);
			if (r->ok) {
				json_object_set_new(o, "ratio_b_over_a", jnum_or_null(r->c.ratio));
				json_object_set_new(o, "hl_ratio", jnum_or_null(r->c.hl_ratio));
				json_object_set_new(o, "ci", json_pack("[o, o]", jnum_or_null(r->c.lo), jnum_or_null(r->c.hi)));
				json_object_set_new(o, "p_mann_whitney", jnum_or_null(r->c.p));
				json_object_set_new(o, "p_holm", jnum_or_null(r->c.p_holm));
				json_object_set_new(o, "verdict", json_string(stats_verdict_name(r->c.verdict)));
			} else {
				json_object_set_new(o, "why", json_string(r->note));
			}
			json_array_append_new(rows, o);
		}
		json_t *root = json_pack("{s:s, s:i, s:s, s:s, s:f, s:f, s:I, s:I, s:I, s:o}", "format",
					 "harness-compare", "version", 1, "a", rc->a->path, "b", rc->b->path,
					 "alpha", rc->o.alpha, "margin", rc->margin, "nboot",
					 (json_int_t)rc->o.nboot, "only_in_a", (json_int_t)rc->only_a,
					 "only_in_b", (json_int_t)rc->only_b, "rows", rows);
		int e = json_dumpf(root, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
		json_decref(root);
		fputc('\n', f);
		if (e)
			return error("cannot write the JSON comparison");
		return 0;
	}
	if (fmt == REPORT_MD)
		fprintf(f, "# Compare: B = `%s` against A = `%s`\n\n"
			   "Unpaired (different runs share no blocks): ratio = median(B) / median(A) of unit "
			   "medians, %.0f%% bootstrap CI (%zu resamples, seed %llu), Mann-Whitney on log unit "
			   "medians, Holm across %zu rows, alpha %.3g, equivalence margin +-%.2f%%. "
			   "(mode, cell) pairs only in A: %zu, only in B: %zu.\n\n"
			   "| cell | mode | units A | units B | median A (us) | median B (us) | ratio B/A | 95%% CI | p | p Holm | verdict |\n"
			   "|---|---|---|---|---|---|---|---|---|---|---|\n",
			rc->b->path, rc->a->path, 100 * rc->o.conf, rc->o.nboot,
			(unsigned long long)rc->o.seed, rc->nrows, rc->o.alpha, 100 * rc->margin,
			rc->only_a, rc->only_b);
	else
		fputs("cell,mode,units_a,units_b,median_a_ns,median_b_ns,ratio_b_over_a,ci_lo,ci_hi,p,p_holm,verdict\n", f);
	for (size_t i = 0; i < rc->nrows; i++) {
		const struct cmp_row *r = &rc->rows[i];
		if (fmt == REPORT_MD) {
			if (!r->ok)
				fprintf(f, "| %s | %s | %zu | %zu | - | - | - | - | - | - | not compared: %s |\n",
					r->cell, r->mode, r->na, r->nb, r->note);
			else
				fprintf(f, "| %s | %s | %zu | %zu | %.3f | %.3f | %.4f | [%.4f, %.4f] | %.3g | %.3g | **%s** |\n",
					r->cell, r->mode, r->na, r->nb, r->med_a / 1e3, r->med_b / 1e3,
					r->c.ratio, r->c.lo, r->c.hi, r->c.p, r->c.p_holm,
					stats_verdict_name(r->c.verdict));
		} else {
			util_csv_field(f, r->cell);
			fputc(',', f);
			util_csv_field(f, r->mode);
			if (r->ok)
				fprintf(f, ",%zu,%zu,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%s\n", r->na,
					r->nb, r->med_a, r->med_b, r->c.ratio, r->c.lo, r->c.hi, r->c.p,
					r->c.p_holm, stats_verdict_name(r->c.verdict));
			else
				fprintf(f, ",%zu,%zu,,,,,,,,NOT-COMPARED\n", r->na, r->nb);
		}
	}
	return ferror(f) ? error_errno("cannot write the comparison") : 0;
}

void run_compare_free(struct run_compare *rc)
{
	if (!rc)
		return;
	free(rc->rows);
	free(rc);
}
