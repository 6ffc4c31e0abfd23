/* compare-write.c: `harness compare`'s rows (report.h, struct run_compare) as markdown, JSON
 * and CSV (docs/report-format.md, "compare") */
#include "config.h"
#include "harness/output/json.h"
#include "harness/output/write.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness/base/util.h"

int run_compare_write(const struct run_compare *rc, enum report_format fmt, FILE *f)
{
	if (fmt == REPORT_JSON) {
		json_t *rows = json_array();
		for (size_t i = 0; i < rc->nrows; i++) {
			const struct cmp_row *r = &rc->rows[i];
			json_t *o = json_pack("{s:o, s:o, s:I, s:I, s:o, s:o, s:b}", "cell", jw_str(r->cell),
					      "mode", jw_str(r->mode), "units_a", (json_int_t)r->na, "units_b", (json_int_t)r->nb,
					      "median_a_ns", jw_num(r->med_a), "median_b_ns", jw_num(r->med_b),
					      "compared", r->ok);
			if (r->ok) {
				json_object_set_new(o, "ratio_b_over_a", jw_num(r->c.ratio));
				json_object_set_new(o, "hl_ratio", jw_num(r->c.hl_ratio));
				json_object_set_new(o, "ci", json_pack("[o, o]", jw_num(r->c.lo), jw_num(r->c.hi)));
				json_object_set_new(o, "p_mann_whitney", jw_num(r->c.p));
				json_object_set_new(o, "p_adj", jw_num(r->c.p_adj));
				json_object_set_new(o, "noise_floor", jw_num(r->c.floor));
				json_object_set_new(o, "verdict", json_string(stats_verdict_name(r->c.verdict)));
			} else {
				json_object_set_new(o, "why", jw_str(r->note));
			}
			json_array_append_new(rows, o);
		}
		json_t *root = json_pack("{s:s, s:i, s:o, s:o, s:f, s:o, s:s, s:s, s:I, s:I, s:I, s:o}",
					 "format", "harness-compare", "version", 1, "a",
					 jw_str(rc->a->path), "b", jw_str(rc->b->path), "alpha",
					 rc->o.alpha, "margin", jw_num(rc->margin), "test",
					 stats_test_name(rc->o.test), "multiplicity",
					 rep_adjust_name(rc->o.adjust), "nboot",
					 (json_int_t)rc->o.nboot, "only_in_a", (json_int_t)rc->only_a,
					 "only_in_b", (json_int_t)rc->only_b, "rows", rows);
		return jw_dump(root, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER, "comparison");
	}
	if (fmt == REPORT_MD) {
		char mb[32] = "none";
		if (!isnan(rc->margin))
			snprintf(mb, sizeof(mb), "+-%.2f%%", 100 * rc->margin);
		fprintf(f, "# Compare: B = `%s` against A = `%s`\n\n"
			   "Unpaired (different runs share no blocks): %s, %.0f%% CI, p adjusted by %s "
			   "across %zu rows, alpha %.3g; SAME when the CI lies inside the row's noise floor "
			   "(two of run A's processes) or the declared margin (%s). "
			   "(mode, cell) pairs only in A: %zu, only in B: %zu.\n\n"
			   "| cell | mode | units A | units B | median A (us) | median B (us) | ratio B/A | 95%% CI | p | p adj | verdict |\n"
			   "|---|---|---|---|---|---|---|---|---|---|---|\n",
			rc->b->path, rc->a->path,
			rc->o.test == STATS_TEST_TRIMMED
				? "ratio = exp of the difference of the 20%-trimmed means of log unit medians, "
				  "Yuen's test on them"
			: rc->o.test == STATS_TEST_T
				? "ratio = geometric mean(B) / geometric mean(A) of unit medians, Welch's t "
				  "test on their logs"
				: "ratio = median(B) / median(A) of unit medians, bootstrap CI, "
				  "Mann-Whitney on their logs",
			100 * rc->o.conf, rep_adjust_name(rc->o.adjust), rc->nrows, rc->o.alpha, mb,
			rc->only_a, rc->only_b);
	} else
		fputs("cell,mode,units_a,units_b,median_a_ns,median_b_ns,ratio_b_over_a,ci_lo,ci_hi,p,p_adj,verdict\n", f);
	for (size_t i = 0; i < rc->nrows; i++) {
		const struct cmp_row *r = &rc->rows[i];
		if (fmt == REPORT_MD) {
			if (!r->ok)
				fprintf(f, "| %s | %s | %zu | %zu | - | - | - | - | - | - | not compared: %s |\n",
					r->cell, r->mode, r->na, r->nb, r->note);
			else
				fprintf(f, "| %s | %s | %zu | %zu | %.3f | %.3f | %.4f | [%.4f, %.4f] | %.3g | %.3g | **%s** |\n",
					r->cell, r->mode, r->na, r->nb, r->med_a / 1e3, r->med_b / 1e3,
					r->c.ratio, r->c.lo, r->c.hi, r->c.p, r->c.p_adj,
					stats_verdict_name(r->c.verdict));
		} else {
			util_csv_field(f, r->cell);
			fputc(',', f);
			util_csv_field(f, r->mode);
			if (r->ok)
				fprintf(f, ",%zu,%zu,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%s\n", r->na,
					r->nb, r->med_a, r->med_b, r->c.ratio, r->c.lo, r->c.hi, r->c.p,
					r->c.p_adj, stats_verdict_name(r->c.verdict));
			else
				fprintf(f, ",%zu,%zu,,,,,,,,NOT-COMPARED\n", r->na, r->nb);
		}
	}
	return ferror(f) ? error_errno("cannot write the comparison") : 0;
}
