/* answer-write.c: the closing lines of `harness run` (write.h; docs/report-format.md, "The
 * answer after a run"): what the run found, per workload and mode against the baseline, as
 * the report decided it; the audit's counts and the checks that make the run exit 4; the
 * commands to go on with.  Computes nothing: every number is the report's or the audit's. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/analysis/analysis.h"
#include "harness/base/util.h"
#include "harness/output/write.h"

/* "1.2345 [1.2000, 1.2700]", or "1.2345 [-, -]" without a CI, into buf. */
static const char *ratio_ci(char *buf, size_t n, double x, double lo, double hi)
{
	if (isnan(lo) || isnan(hi))
		snprintf(buf, n, "%.4f [-, -]", x);
	else
		snprintf(buf, n, "%.4f [%.4f, %.4f]", x, lo, hi);
	return buf;
}

/* The e2e cells of workload w compared for mode m, "cell ratio [lo, hi] VERDICT" joined by
 * "; " into sb; returns how many. */
static size_t e2e_cells(const struct report *r, const char *w, size_t m, struct sbuf *sb)
{
	const struct analysis *a = r->a;
	size_t n = 0;
	char b[96];
	long wl = analysis_workload(a, w); /* its cells, in cell order */
	for (size_t k = wl < 0 ? 0 : a->workload_first[wl];
	     wl >= 0 && k < a->workload_first[wl + 1]; k++) {
		const struct rep_cmp *x = &r->cmp[report_cmp_index(r, a->workload_cells[k], m)];
		const struct an_cell *c = &a->cells[x->cell];
		if (strcmp(c->kind, "e2e"))
			continue;
		const char *op = strrchr(c->name, '/');
		sbuf_addf(sb, "%s%s ", n++ ? "; " : "", op ? op + 1 : c->name);
		if (x->ok)
			sbuf_addf(sb, "%s %s", ratio_ci(b, sizeof(b), x->c.ratio, x->c.lo, x->c.hi),
				  stats_verdict_name(x->c.verdict));
		else
			sbuf_addf(sb, "not compared (%s)", x->note);
		/* a forward launched op by op that times the host as much as the GPU: its
		 * verdict is the host's too (report.h, REP_HOST_BOUND) */
		size_t graph = a->ncells;
		double hb = report_host_bound_ratio(r, x->cell, &graph, NULL);
		if (!isnan(hb) && hb >= REP_HOST_BOUND && graph < a->ncells) {
			const char *g = strrchr(a->cells[graph].name, '/');
			sbuf_addf(sb, " (host-bound: %.2fx %s)", hb, g ? g + 1 : a->cells[graph].name);
		}
	}
	return n;
}

/* The most blocks an INCONCLUSIVE comparison needs to decide (report_blocks_to_decide: its
 * observed effect told from none, or placed inside its floor), over the e2e cells when some
 * are undecided, else over every cell; 0 when none is undecided or none can tell. */
static double blocks_to_decide(const struct report *r, size_t *undecided)
{
	double most[2] = { 0, 0 };
	size_t n[2] = { 0, 0 };
	for (size_t i = 0; i < r->ncmp; i++) {
		const struct rep_cmp *x = &r->cmp[i];
		if (!x->ok || x->c.verdict != VERDICT_INCONCLUSIVE)
			continue;
		int e2e = !strcmp(r->a->cells[x->cell].kind, "e2e");
		double need = report_blocks_to_decide(r, x);
		n[e2e]++;
		if (isfinite(need) && need > most[e2e])
			most[e2e] = need;
	}
	*undecided = n[0] + n[1];
	return n[1] ? most[1] : most[0];
}

int run_answer_write(const struct report *r, const struct audit *au, FILE *out)
{
	const struct analysis *a = r->a;
	struct sbuf sb;
	sbuf_init(&sb);
	fprintf(out, "\nanswer: each mode against the baseline '%s', ratio = mode / baseline (< 1: "
		     "faster), %.0f%% CI over %zu block%s, as `harness report` decides it\n",
		a->modes[r->baseline], 100 * r->o.conf, a->nblocks, a->nblocks == 1 ? "" : "s");
	size_t nscopes = 0;
	for (size_t g = 0; g < r->nagg; g++)
		nscopes += g == 0 || strcmp(r->agg[g - 1].scope, r->agg[g].scope);
	for (size_t g = 0; g < r->nagg; g++) {
		const struct rep_agg *ag = &r->agg[g];
		int all = !strcmp(ag->scope, "all");
		if (all && nscopes <= 2) /* one workload: "all" would say it again */
			continue;
		if (g == 0 || strcmp(r->agg[g - 1].scope, ag->scope))
			fprintf(out, "  %s\n", all ? "all workloads" : ag->scope);
		char aa[160] = "";
		if (a->aa_of[ag->mode])
			snprintf(aa, sizeof(aa), " (A/A copy of %s)", a->aa_of[ag->mode]);
		sbuf_reset(&sb);
		size_t ne = all ? 0 : e2e_cells(r, ag->scope, ag->mode, &sb);
		fprintf(out, "    %s%s: ", a->modes[ag->mode], aa);
		if (ne)
			fprintf(out, "%s", sb.buf);
		if (ag->ncells) {
			char b[96];
			size_t all_cells = ag->wins + ag->losses + ag->same + ag->inconclusive;
			fprintf(out, "%s%zu op cell%s, geomean %s; of %zu cell%s: %zu faster, %zu "
				     "slower, %zu same, %zu undecided", ne ? "; " : "", ag->ncells,
				ag->ncells == 1 ? "" : "s",
				ratio_ci(b, sizeof(b), ag->geomean, ag->lo, ag->hi), all_cells,
				all_cells == 1 ? "" : "s", ag->wins, ag->losses, ag->same,
				ag->inconclusive);
		} else if (!ne) {
			fprintf(out, "no cell compared");
		}
		fprintf(out, "\n");
	}
	if (au) {
		fprintf(out, "audit: %zu PASS, %zu WARN, %zu FAIL\n", au->counts[AUDIT_PASS],
			au->counts[AUDIT_WARN], au->counts[AUDIT_FAIL]);
		for (size_t i = 0; i < au->nchecks; i++) {
			const struct audit_check *k = &au->checks[i];
			if (k->status == AUDIT_FAIL)
				fprintf(out, "  FAIL %s%s: %s\n", k->id,
					audit_check_mismeasures(k) ? " (a mode did not measure what "
								     "it names: exit status 4)" : "",
					k->summary ? k->summary : "");
		}
	}
	size_t undecided = 0;
	double more = blocks_to_decide(r, &undecided);
	fprintf(out, "next:\n"
		     "  harness report %s    every cell: its CI, noise floor and verdict\n"
		     "  harness audit %s     the evidence behind each check\n"
		     "  harness plot %s      the figures\n", a->path, a->path, a->path);
	if (undecided && more > (double)a->nblocks && more <= 1000)
		fprintf(out, "  harness run --resume %s --repeats %.0f    %zu comparison%s undecided: "
			     "about this many blocks would decide %s, at %s spread so far\n",
			a->path, ceil(more), undecided, undecided == 1 ? "" : "s",
			undecided == 1 ? "it" : "the slowest to decide", undecided == 1 ? "its" : "their");
	else if (undecided && more > 1000)
		fprintf(out, "  (%zu comparison%s undecided; more blocks would not decide %s "
			     "within 1000)\n", undecided, undecided == 1 ? "" : "s",
			undecided == 1 ? "it" : "them");
	else if (undecided)
		fprintf(out, "  harness run --resume %s --repeats %zu    %zu comparison%s undecided: "
			     "twice the blocks narrow a CI by about 1/sqrt(2) (the report's 'to "
			     "decide' column says how far each is from deciding)\n", a->path,
			2 * a->nblocks, undecided, undecided == 1 ? "" : "s");
	sbuf_release(&sb);
	if (fflush(out) || ferror(out))
		return error_errno("cannot write the run's answer");
	return 0;
}
