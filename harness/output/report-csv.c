/* report-csv.c: a built report's CSV form, the comparisons table (report.h; one row per
 * comparison against the baseline, with the composition columns on a workload's e2e rows;
 * docs/report-format.md); formatting only, called by report_write (report-write.c) */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "harness/output/write.h"
#include "harness/base/util.h"

static void csv_num(FILE *f, double v)
{
	if (isnan(v))
		fputs(",", f);
	else
		fprintf(f, ",%.9g", v);
}

/* The composition columns of a comparisons row: filled on the row of a workload's e2e cell
 * (its mode against the baseline), empty elsewhere; ends the row. */
static void csv_composition(const struct report *r, const struct rep_cmp *x, FILE *f)
{
	const struct rep_comp *c = NULL;
	for (size_t i = 0; i < r->ncomp && !c; i++)
		if (r->comp[i].e2e == x->cell && r->comp[i].mode == x->mode && x->ref == r->baseline &&
		    r->comp[i].ok)
			c = &r->comp[i];
	if (!c) {
		fputs(",,,,,,,,,,,,,\n", f);
		return;
	}
	const struct rep_est *e[] = { &c->pred, &c->inter, &c->cov_base, &c->cov_mode };
	for (size_t k = 0; k < ARRAY_SIZE(e); k++) {
		csv_num(f, e[k]->est);
		csv_num(f, e[k]->lo);
		csv_num(f, e[k]->hi);
		if (k == 1)
			fprintf(f, ",%s", rep_compose_name(c->verdict));
	}
	fputc('\n', f);
}

void report_write_csv(const struct report *r, FILE *f)
{
	const struct analysis *a = r->a;
	fputs("cell,kind,workload,mode,baseline,n,ratio,ci_lo,ci_hi,hl_ratio,exact_ci_lo,exact_ci_hi,"
	      "exact_ci_coverage,p,p_adj,p_sign,iqr_overlap,spread_ratio,mde,"
	      "blocks_needed,verdict,test,family,noise_floor,median_ratio,p_signed_rank,pred_ratio,pred_ci_lo,pred_ci_hi,interaction,interaction_ci_lo,"
	      "interaction_ci_hi,composition,coverage,coverage_ci_lo,coverage_ci_hi,coverage_mode,"
	      "coverage_mode_ci_lo,coverage_mode_ci_hi\n", f);
	for (size_t i = 0; i < r->ncmp; i++) {
		const struct rep_cmp *x = &r->cmp[i];
		const struct stats_comparison *c = &x->c;
		util_csv_field(f, a->cells[x->cell].name);
		fputc(',', f);
		util_csv_field(f, a->cells[x->cell].kind);
		fputc(',', f);
		util_csv_field(f, a->cells[x->cell].workload);
		fputc(',', f);
		util_csv_field(f, a->modes[x->mode]);
		fputc(',', f);
		util_csv_field(f, a->modes[x->ref]);
		if (!x->ok) {
			fputs(",0,,,,,,,,,,,,,,,NOT-COMPARED,,,,,", f);
			csv_composition(r, x, f);
			continue;
		}
		fprintf(f, ",%zu", c->n);
		csv_num(f, c->ratio);
		csv_num(f, c->lo);
		csv_num(f, c->hi);
		csv_num(f, c->hl_ratio);
		csv_num(f, c->os_lo);
		csv_num(f, c->os_hi);
		csv_num(f, c->os_coverage);
		csv_num(f, c->p);
		csv_num(f, c->p_adj);
		csv_num(f, c->p_sign);
		fprintf(f, ",%d", x->iqr_overlap);
		csv_num(f, x->spread_ratio);
		csv_num(f, c->mde);
		csv_num(f, c->blocks_needed);
		fprintf(f, ",%s,%s,", stats_verdict_name(c->verdict), stats_test_name(c->test));
		util_csv_field(f, x->family);
		csv_num(f, c->floor);
		csv_num(f, c->median_ratio);
		csv_num(f, c->p_rank);
		csv_composition(r, x, f);
	}
}
