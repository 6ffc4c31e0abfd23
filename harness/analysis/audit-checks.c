/* audit-checks.c: the audit's checks of the results (audit.h, docs/audit.md): the strongest
 * mode, repeats, the A/A control, the margin against the claimed effects, machine state and
 * drift, failed units, per-op versus e2e and the hypotheses' integrity */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "harness/analysis/audit-check.h"
#include "harness/analysis/hyp.h"
#include "harness/base/util.h"

/* ---- the strongest mode ---------------------------------------------------------------- */

/* WARN when any mode is FASTER than the declared baseline in any cell (e2e cells first);
 * WARN too when no comparison could reach alpha or none was decided (the question was not
 * answered).  A PASS says what was shown: how many comparisons were decided SLOWER or SAME,
 * and, of those left INCONCLUSIVE, the largest speed-up their CIs still allow. */
void audit_baseline(struct audit *au, struct ctx *c)
{
	const struct analysis *a = c->an;
	const struct report *r = c->rep;
	struct audit_check *k = audit_add(au, "strongest-baseline",
					  "no mode shown faster than the baseline");
	size_t nok, faster = 0, undecided = 0;
	double floor = audit_family_floor(r->cmp, r->ncmp, &nok);
	const struct rep_cmp *best = NULL, *open = NULL; /* open: the lowest undecided CI bound */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < r->ncmp; i++) {
			const struct rep_cmp *x = &r->cmp[i];
			int e2e = !strcmp(a->cells[x->cell].kind, "e2e");
			if (!x->ok || e2e != (pass == 0))
				continue;
			if (!best || x->c.ratio < best->c.ratio)
				best = x;
			if (x->c.verdict == VERDICT_INCONCLUSIVE) {
				undecided++;
				if (!isnan(x->c.lo) && (!open || x->c.lo < open->c.lo))
					open = x;
			}
			if (x->c.verdict != VERDICT_FASTER)
				continue;
			faster++;
			audit_raise(k, AUDIT_WARN);
			audit_mode(k, a->modes[x->mode]);
			audit_cell(k, a->cells[x->cell].name);
			audit_ev(k, "'%s' is FASTER than '%s' in %s%s: ratio %.4f, CI [%.4f, %.4f], "
				    "adjusted p %.3g (%s in family '%s')", a->modes[x->mode],
				 a->modes[r->baseline], a->cells[x->cell].name,
				 e2e ? " (end to end)" : "", x->c.ratio, x->c.lo, x->c.hi, x->c.p_adj,
				 rep_adjust_name(r->o.adjust), x->family);
		}
	}
	if (faster) {
		struct sbuf sb;
		sbuf_init(&sb);
		for (size_t i = 0; i < k->nmodes; i++)
			sbuf_addf(&sb, "%s'%s'", i ? ", " : "", k->modes[i]);
		audit_summary(k, "%s beat%s the baseline '%s' in %zu cell(s): compare against the "
				 "strongest configuration", sb.buf, k->nmodes == 1 ? "s" : "",
			      a->modes[r->baseline], faster);
		sbuf_release(&sb);
	} else if (!nok) {
		audit_raise(k, AUDIT_WARN);
		audit_summary(k, "not evaluated: no mode could be compared with the baseline '%s'",
			      a->modes[r->baseline]);
	} else if (floor > r->o.alpha) {
		audit_raise(k, AUDIT_WARN);
		audit_summary(k, "undecidable at this n: no comparison can reach alpha %.3g (smallest "
				 "possible p %.3g)", r->o.alpha, floor);
	} else if (undecided == nok) {
		audit_raise(k, AUDIT_WARN);
		audit_summary(k, "undecided: %s %zu comparison%s with the baseline '%s' %s "
				 "decided, so no mode was shown faster and none was shown not to be",
			      nok == 1 ? "the" : "none of the", nok, nok == 1 ? "" : "s",
			      a->modes[r->baseline], nok == 1 ? "was not" : "was");
	} else {
		audit_summary(k, "no mode is FASTER than the baseline '%s': %zu of %zu comparisons "
				 "decided SLOWER or SAME, %zu undecided", a->modes[r->baseline],
			      nok - undecided, nok, undecided);
	}
	if (!faster && best && nok)
		audit_ev(k, "lowest point estimate: '%s' in %s at %.4f (%s)", a->modes[best->mode],
			 a->cells[best->cell].name, best->c.ratio, stats_verdict_name(best->c.verdict));
	if (!faster && open && open->c.lo < 1)
		audit_ev(k, "not ruled out: '%s' in %s (INCONCLUSIVE) could be up to %.1f%% faster "
			    "(CI [%.4f, %.4f])", a->modes[open->mode], a->cells[open->cell].name,
			 100 * (1 - open->c.lo), open->c.lo, open->c.hi);
}

/* ---- repeats -------------------------------------------------------------------------- */

static int dbl_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* Where to repeat (evidence only): over the (cell, mode) pairs whose unit medians'
 * variance could be apportioned, how many have most of it between processes (the report's
 * decomposition, stats_variance_components); then more blocks narrow the CIs, and longer
 * sampling inside a unit does not (Kalibera & Jones), or the other way round. */
static void spread_level(struct audit_check *k, const struct report *r)
{
	const struct analysis *a = r->a;
	size_t n = 0, between = 0;
	double *share = xmalloc((a->nmodes * a->ncells + 1) * sizeof(*share)), *w;
	for (size_t i = 0; i < a->nmodes * a->ncells; i++)
		if (!isnan(r->sum[i].vc.share)) {
			share[n] = r->sum[i].vc.share;
			between += share[n++] > 0.5;
		}
	if (!n) {
		free(share);
		return;
	}
	w = xmalloc(n * sizeof(*w));
	double med = stats_median(share, 1, n, w);
	audit_ev(k, "where the spread lives: in %zu of %zu (cell, mode) pairs most of the unit "
		    "medians' variance is between processes (median share %.0f%%): %s", between, n,
		 100 * med,
		 2 * between >= n ? "more blocks narrow the CIs; longer sampling inside a unit does not"
				  : "longer sampling inside a unit (max_time, max_samples) would narrow "
				    "them too");
	free(w);
	free(share);
}

/* The smallest adjusted p a family of nok comparisons whose smallest raw p is floor can give:
 * Holm's first step multiplies it by nok, BH's leaves it (every p at the floor: n p / n), BY
 * scales that by sum_{k<=nok} 1/k. */
static double adjusted_floor(enum rep_adjust m, double floor, size_t nok)
{
	if (m == REP_ADJUST_HOLM)
		return (double)nok * floor;
	if (m == REP_ADJUST_BY) {
		double c = 0;
		for (size_t k = 1; k <= nok; k++)
			c += 1.0 / (double)k;
		return c * floor;
	}
	return floor;
}

/* Enough repeats?  FAIL when no comparison can reach alpha (a rank test's smallest exact p,
 * 2/2^n paired; a t test without a CI), or when none can survive its family's adjustment;
 * WARN when the median comparison's minimum detectable effect (80% power) exceeds the effect
 * it is judged against (its noise floor, or the declared margin when larger): a null result
 * there is INCONCLUSIVE, not SAME. */
void audit_repeats(struct audit *au, struct ctx *c)
{
	const struct report *r = c->rep;
	struct audit_check *k = audit_add(au, "repeats", "enough repeats");
	size_t nok;
	double floor = audit_family_floor(r->cmp, r->ncmp, &nok);
	size_t maxn = 0;
	double *mde = xcalloc(r->ncmp + 1, sizeof(*mde)), *need = xcalloc(r->ncmp + 1, sizeof(*need));
	double *over = xcalloc(r->ncmp + 1, sizeof(*over));
	size_t nm = 0, nn = 0;
	for (size_t i = 0; i < r->ncmp; i++) {
		const struct stats_comparison *x = &r->cmp[i].c;
		if (!r->cmp[i].ok)
			continue;
		if (x->n > maxn)
			maxn = x->n;
		if (!strcmp(r->cmp[i].family, "aa"))
			continue;
		double effect = fmax(isnan(x->floor) ? 0 : x->floor, isnan(x->margin) ? 0 : x->margin);
		if (!isnan(x->mde) && effect > 0) {
			mde[nm] = x->mde;
			over[nm++] = x->mde / effect;
		}
		if (!isnan(x->blocks_needed))
			need[nn++] = x->blocks_needed;
	}
	if (!nok) {
		audit_raise(k, AUDIT_FAIL);
		audit_summary(k, "no comparison with the baseline could be made");
		goto done;
	}
	const char *test = r->o.test != STATS_TEST_RANK
				   ? "t test's smallest p: none below it from 2 pairs on"
			   : c->an->paired ? "exact two-sided signed-rank p with n pairs is 2/2^n"
					   : "exact two-sided Mann-Whitney p is 2/C(n1+n2, n1)";
	audit_ev(k, "%zu comparisons with the baseline, up to %zu %s each, decided by the %s "
		    "test; the %s: %.4g", nok, maxn, c->an->paired ? "pairs" : "units",
		 stats_test_name(r->o.test), test, floor);
	double adj = adjusted_floor(r->o.adjust, floor, nok);
	if (floor > r->o.alpha) {
		audit_raise(k, AUDIT_FAIL);
		audit_summary(k, "with n = %zu no %s test can reach alpha %.3g (smallest p %.4g): "
				 "nothing can be FASTER or SLOWER", maxn, stats_test_name(r->o.test),
			      r->o.alpha, floor);
	} else if (adj > r->o.alpha) {
		audit_raise(k, AUDIT_FAIL);
		audit_summary(k, "with n = %zu and %s over %zu comparisons the smallest adjusted p "
				 "is %.4g > alpha %.3g: nothing can be FASTER or SLOWER", maxn,
			      rep_adjust_name(r->o.adjust), nok, adj, r->o.alpha);
	}
	size_t short_ci = 0;
	for (size_t i = 0; i < r->ncmp; i++)
		short_ci += r->cmp[i].ok && r->cmp[i].c.ci_short;
	if (short_ci) {
		audit_raise(k, AUDIT_FAIL);
		audit_ev(k, "%zu of %zu comparisons have too few %s for a CI at %.0f%% (%s): no "
			    "verdict there, SAME included", short_ci, nok,
			 c->an->paired ? "pairs" : "units", 100 * r->o.conf,
			 r->o.test != STATS_TEST_RANK ? "the t test needs 2"
						   : "paired: 6 at 95%; [min, max] of n ratios "
						     "covers 1 - 2^(1-n)");
		if (!k->summary)
			audit_summary(k, "%zu of %zu comparisons have too few %s for a CI at %.0f%%: "
					 "no verdict there, SAME included", short_ci, nok,
				      c->an->paired ? "pairs" : "units", 100 * r->o.conf);
	}
	/* blocks appended after the run started (harness run --resume --repeats), unless by a
	 * sequential design whose levels account for its looks */
	const char *ext = meta(c, "repeats_extended");
	if (*ext && !*meta(c, "sequential")) {
		audit_raise(k, AUDIT_WARN);
		audit_ev(k, "the plan was extended: %s; blocks added once results could be seen "
			    "let a run stop when a test happens to pass (optional stopping), unless "
			    "the number was fixed without looking", ext);
	} else if (*ext) {
		audit_ev(k, "the plan grew by a sequential design (%s): %s; its looks' levels "
			    "keep the error rates under optional stopping", meta(c, "sequential"),
			 ext);
	}
	if (nm) {
		qsort(mde, nm, sizeof(*mde), dbl_cmp);
		qsort(over, nm, sizeof(*over), dbl_cmp);
		double med = nm % 2 ? mde[nm / 2] : (mde[nm / 2 - 1] + mde[nm / 2]) / 2;
		double med_over = nm % 2 ? over[nm / 2] : (over[nm / 2 - 1] + over[nm / 2]) / 2;
		audit_ev(k, "minimum detectable effect at 80%% power: median %.2f%% (range %.2f%% to "
			    "%.2f%%); over the effect each is judged against (its noise floor, or "
			    "the declared margin when larger): median %.2f", 100 * med, 100 * mde[0],
			 100 * mde[nm - 1], med_over);
		if (nn) {
			qsort(need, nn, sizeof(*need), dbl_cmp);
			audit_ev(k, "blocks that would detect it: median %.0f, most %.0f",
				 nn % 2 ? need[nn / 2] : (need[nn / 2 - 1] + need[nn / 2]) / 2,
				 need[nn - 1]);
		}
		if (med_over > 1) {
			audit_raise(k, AUDIT_WARN);
			if (k->status == AUDIT_WARN)
				audit_summary(k, "the median comparison's minimum detectable effect is "
						 "%.2f times the effect it is judged against: a null "
						 "result here is INCONCLUSIVE, not SAME", med_over);
		}
	}
	if (!nm && k->status == AUDIT_PASS) {
		audit_raise(k, AUDIT_WARN);
		audit_summary(k, "no comparison has a noise floor to judge its power against (a "
				 "floor needs 3 blocks): a null result here cannot read SAME");
	}
	spread_level(k, r);
	if (k->status == AUDIT_PASS)
		audit_summary(k, "n = %zu can reach alpha after %s (smallest adjusted p %.4g) and "
				 "the median comparison detects its noise floor", maxn,
			      rep_adjust_name(r->o.adjust), adj);
done:
	free(mde);
	free(need);
	free(over);
}

/* ---- A/A control ---------------------------------------------------------------------- */

/* WARN when there is no A/A control, or when its rate of 0 cannot mean anything (no test
 * can reach alpha); when the false-positive rate exceeds alpha, FAIL if the binomial tail
 * P(X >= fp | cells, alpha) is below alpha (more false positives than chance allows), WARN
 * otherwise; WARN when the margin is tighter than the A/A noise floor. */
void audit_aa(struct audit *au, struct ctx *c)
{
	const struct analysis *a = c->an;
	const struct report *r = c->rep;
	struct audit_check *k = audit_add(au, "aa-control", "A/A control and its false-positive rate");
	if (!r->naa) {
		audit_raise(k, AUDIT_WARN);
		audit_summary(k, "no A/A control: this design's false-positive rate and noise floor "
				 "are unknown (add a mode with aa_of)");
		return;
	}
	size_t nok;
	double floor = audit_family_floor(r->aacmp, r->naacmp, &nok);
	for (size_t i = 0; i < r->naa; i++) {
		const struct rep_aa *q = &r->aa[i];
		const char *m = a->modes[q->mode], *of = a->modes[q->of];
		double rate = q->cells ? (double)q->false_positives / (double)q->cells : NAN;
		char fl[96] = "no noise floor (no cell has 3 pairs)";
		if (!isnan(q->noise_floor))
			snprintf(fl, sizeof(fl), "noise floor %.2f%%", 100 * q->noise_floor);
		audit_ev(k, "'%s' (A/A of '%s'): %zu of %zu cells FASTER/SLOWER (rate %.3f), %s", m,
			 of, q->false_positives, q->cells, rate, fl);
		if (!q->cells) {
			audit_raise(k, AUDIT_WARN);
			audit_mode(k, m);
			audit_ev(k, "  no cell of '%s' could be compared with '%s'", m, of);
		} else if (rate > r->o.alpha) {
			double tail = gsl_cdf_binomial_Q((unsigned)q->false_positives - 1, r->o.alpha,
							 (unsigned)q->cells);
			/* the tail is computed, and one false positive in one cell is alpha
			 * exactly (0.04999... in floating point): below alpha only by more than
			 * rounding */
			int anti = tail < r->o.alpha * (1 - 1e-9);
			audit_raise(k, anti ? AUDIT_FAIL : AUDIT_WARN);
			audit_mode(k, m);
			audit_ev(k, "  rate above alpha %.3g; P(>= %zu false positives in %zu cells at "
				    "rate alpha) = %.3g%s", r->o.alpha, q->false_positives, q->cells, tail,
				 anti ? ": the tests are anti-conservative here" :
					": too few cells to call it more than chance");
		} else if (floor > r->o.alpha) {
			audit_raise(k, AUDIT_WARN);
			audit_ev(k, "  uninformative: at this n no A/A test can reach alpha (smallest p "
				    "%.4g), so a rate of 0 says nothing", floor);
		} else if (isnan(q->noise_floor)) {
			audit_raise(k, AUDIT_WARN);
			audit_ev(k, "  no cell has the 3 pairs a noise floor needs: no cell's SAME can "
				    "rest on this control");
		}
	}
	audit_ev(k, "the A/A comparisons are a family of their own (%s, %zu comparisons), apart "
		    "from every real claim", rep_adjust_name(r->o.adjust), nok);
	audit_summary(k, k->status == AUDIT_FAIL ? "the A/A control differs from its original "
						  "more often than alpha allows" :
			 k->status == AUDIT_WARN ? "an A/A control is present but its evidence is weak" :
						   "A/A control present; false-positive rate within alpha");
}

/* The noise floors and the declared margin against the effects claimed: a SAME verdict says
 * only that the CI lies inside the cell's noise floor (or the declared margin), so floors
 * wider than the smallest effect a hypothesis names for itself (min_effect in its file) make
 * differences of the size the claims are about read SAME in those cells.  WARN then, naming
 * that hypothesis and the cells; PASS otherwise, or with no hypothesis naming an effect. */
void audit_margin(struct audit *au, struct ctx *c)
{
	const struct analysis *a = c->an;
	const struct report *r = c->rep;
	struct audit_check *k = audit_add(au, "margin", "the noise floors and margin against the effects claimed");
	size_t same = 0, nok = 0, nf = 0;
	double *fl = xcalloc(a->ncells + 1, sizeof(*fl)), *w = xcalloc(a->ncells + 1, sizeof(*w));
	for (size_t i = 0; i < r->ncmp; i++)
		if (r->cmp[i].ok) {
			nok++;
			same += r->cmp[i].c.verdict == VERDICT_SAME;
		}
	for (size_t i = 0; i < a->ncells; i++)
		if (!isnan(r->floor[i]))
			fl[nf++] = r->floor[i];
	double med = nf ? stats_median(fl, 1, nf, w) : NAN;
	if (nf)
		audit_ev(k, "cell noise floors: median %.2f%% over %zu cells (from %.2f%% to "
			    "%.2f%%; clamped to [%.1f%%, %.0f%%])", 100 * med, nf,
			 100 * gsl_stats_min(fl, 1, nf), 100 * gsl_stats_max(fl, 1, nf),
			 100 * STATS_FLOOR_MIN, 100 * STATS_FLOOR_MAX);
	else
		audit_ev(k, "no cell has a noise floor (fewer than 3 pairs or units)");
	if (!isnan(r->margin))
		audit_ev(k, "declared margin +-%.2f%% (%s): a detected difference inside it stays "
			    "FASTER or SLOWER, marked so", 100 * r->margin, r->margin_source);
	audit_ev(k, "%zu of %zu comparisons SAME", same, nok);
	const struct hyp_set *set = c->hyps;
	const struct hypothesis *least = NULL;
	if (set) {
		for (size_t i = 0; i < set->n; i++)
			for (size_t j = 0; j < set->e[i].file->nh; j++) {
				const struct hypothesis *h = &set->e[i].file->h[j];
				if (!isnan(h->min_effect) && (!least || h->min_effect < least->min_effect))
					least = h;
			}
	}
	size_t wider = 0;
	for (size_t i = 0; least && i < a->ncells; i++)
		if (r->floor[i] > least->min_effect) {
			wider++;
			audit_cell(k, a->cells[i].name);
		}
	if (!nf) {
		audit_raise(k, AUDIT_WARN);
		audit_summary(k, "no cell has a noise floor (fewer than 3 pairs or units): SAME can "
				 "come only from a declared margin");
	} else if (!least) {
		audit_summary(k, "median cell noise floor %.2f%%; no hypothesis names an effect of "
				 "its own to set it against", 100 * med);
	} else if (wider) {
		audit_raise(k, AUDIT_WARN);
		audit_summary(k, "%zu cell(s) have a noise floor wider than the %.2f%% that '%s' "
				 "names: a difference of that size reads SAME there, so a SAME there "
				 "says only 'within its floor'", wider, 100 * least->min_effect,
			      least->id);
	} else {
		audit_summary(k, "every cell's noise floor is within the smallest effect a "
				 "hypothesis names (%.2f%%, '%s')", 100 * least->min_effect, least->id);
	}
	free(fl);
	free(w);
}

/* ---- machine state and drift --------------------------------------------------------- */

/* Clocks, temperature and power across units: where the units recorded a GPU's state (the
 * CUDA backend, an external worker such as the torch worker: gpu), the gpu-* checks judge
 * them; otherwise WARN with what is known (the run-level CPU frequency and governor). */
void audit_clocks(struct audit *au, struct ctx *c, int gpu)
{
	struct audit_check *k = audit_add(au, "clocks", "clocks, temperature and power across units");
	const char *b = meta(c, "backend");
	if (gpu && !strchr(b, ',')) {
		/* every unit on the GPU: the gpu-* checks read what the units recorded */
		audit_summary(k, "recorded per sample and per unit (backend %s): judged by "
				 "the gpu-clocks, gpu-throttle, gpu-temperature, gpu-exclusive and "
				 "gpu-identity checks%s", b,
			      strstr(b, "cuda") ? " and gpu-op-timing" : "");
		return;
	}
	audit_raise(k, AUDIT_WARN);
	if (imported(c))
		audit_summary(k, "not recorded (imported data)");
	else if (!strcmp(b, "cpu"))
		audit_summary(k, "not recorded by this backend: the cpu backend records no per-unit "
				 "clock, temperature or power readings, so throttling between units "
				 "cannot be ruled out");
	else
		audit_summary(k, "not evaluated: this harness does not read per-unit readings of "
				 "backend '%s'", b);
	if (*meta(c, "cpu_mhz") || *meta(c, "cpu_governor"))
		audit_ev(k, "read once at the start of the run: cpu_mhz %s, cpu_governor %s",
			 *meta(c, "cpu_mhz") ? meta(c, "cpu_mhz") : "-",
			 *meta(c, "cpu_governor") ? meta(c, "cpu_governor") : "-");
	const char *g = meta(c, "cpu_governor");
	if (!strcmp(g, "unknown"))
		audit_ev(k, "the CPU frequency governor is not known: clocks may ramp between units");
	else if (*g && strcmp(g, "performance"))
		audit_ev(k, "the CPU frequency governor is '%s', not 'performance': clocks may "
			    "ramp between units", g);
}

/* Drift with run order (the report's Spearman test per mode): WARN per flagged mode; WARN
 * for sequential order, which ties each mode to a fixed position in every block. */
void audit_drift(struct audit *au, struct ctx *c)
{
	const struct analysis *a = c->an;
	const struct report *r = c->rep;
	struct audit_check *k = audit_add(au, "drift", "drift with run order");
	size_t tested = 0, flagged = 0;
	for (size_t i = 0; i < r->ndrift; i++) {
		const struct rep_drift *d = &r->drift[i];
		if (isnan(d->rho))
			continue;
		tested++;
		if (d->flagged) {
			flagged++;
			audit_raise(k, AUDIT_WARN);
			audit_mode(k, a->modes[d->mode]);
			audit_ev(k, "'%s' drifts with run order: Spearman rho %.2f over %zu units, p %.3g",
				 a->modes[d->mode], d->rho, d->n, d->p);
		}
	}
	const char *order = meta(c, "order");
	if (!strcmp(order, "sequential")) {
		audit_raise(k, AUDIT_WARN);
		audit_ev(k, "order 'sequential': every block runs the modes in the same order, so "
			    "drift within a block favours the modes that run first (use randomized "
			    "or abba)");
	}
	if (flagged)
		audit_summary(k, "%zu of %zu mode(s) drift with run order", flagged, tested);
	else if (!tested) {
		audit_raise(k, AUDIT_WARN);
		audit_summary(k, "not evaluated: fewer than 3 units per mode");
	} else
		audit_summary(k, "no mode drifts with run order (%zu tested at alpha %.3g)%s", tested,
			      r->o.alpha, k->status == AUDIT_WARN ? "; but see the order" : "");
}

/* ---- measurement settings ------------------------------------------------------------- */

/* Modes with their own [modes.measure] (the recorded experiment's): a ratio between modes
 * that measure by different settings holds that difference too, which is the point of a
 * pair built to compare a condition and a confound anywhere else.  PASS when every mode
 * measures by the run's settings; WARN naming each mode that does not; imported data
 * records no experiment (PASS, said so). */
void audit_measure(struct audit *au, struct ctx *c)
{
	const struct analysis *a = c->an;
	struct audit_check *k = audit_add(au, "measure", "modes measured alike");
	size_t own = 0;
	for (size_t m = 0; m < a->nmodes; m++) {
		if (!a->measure[m])
			continue;
		own++;
		audit_raise(k, AUDIT_WARN);
		audit_mode(k, a->modes[m]);
		audit_ev(k, "'%s' measures by its own [modes.measure]: %s", a->modes[m],
			 a->measure[m]);
	}
	if (own)
		audit_summary(k, "%zu of %zu mode(s) measure by settings of their own: their ratios "
				 "to the other modes include the difference in measurement", own,
			      a->nmodes);
	else
		audit_summary(k, imported(c) ? "not recorded (imported data)"
					     : "every mode measured by the run's [measure]");
}

/* ---- failed units --------------------------------------------------------------------- */

/* Failed and timed-out units, and whether they fall evenly across modes: Pearson's
 * chi-square test of independence of (ok, not ok) and mode on the 2 x K table of cold
 * units, df = K - 1 (approximate when an expected count is below 5).  PASS with no failed
 * unit; FAIL when a mode has no ok unit or p < alpha; WARN otherwise. */
void audit_failures(struct audit *au, struct ctx *c)
{
	const struct analysis *a = c->an;
	struct audit_check *k = audit_add(au, "failures", "failed and timed-out units");
	size_t K = a->nmodes, tot = 0, bad = 0;
	/* a mode that runs only some workloads (its `workloads`) lacks the others' units and
	 * cells by design, not by failure: said, never counted */
	for (size_t m = 0; m < K; m++) {
		if (!a->only || !a->only[m])
			continue;
		struct sbuf sb;
		sbuf_init(&sb);
		for (char **w = a->only[m]; *w; w++)
			sbuf_addf(&sb, "%s'%s'", sb.len ? ", " : "", *w);
		audit_ev(k, "'%s' runs only workload%s %s (its 'workloads'): no unit or cell of "
			 "the others is expected", a->modes[m], a->only[m][1] ? "s" : "", sb.buf);
		sbuf_release(&sb);
	}
	for (size_t m = 0; m < K; m++) {
		tot += a->units_all[m];
		bad += a->units_all[m] - a->units_ok[m];
	}
	if (!bad) {
		audit_summary(k, "all %zu cold units finished ok", tot);
		return;
	}
	for (size_t m = 0; m < K; m++) {
		size_t nb = a->units_all[m] - a->units_ok[m];
		if (!nb)
			continue;
		struct sbuf sb;
		sbuf_init(&sb);
		for (size_t s = 0; s < a->nfailed; s++)
			if (a->failed[s].count[m])
				sbuf_addf(&sb, "%s%zu %s", sb.len ? ", " : "", a->failed[s].count[m],
					  a->failed[s].status);
		audit_ev(k, "'%s': %zu of %zu cold units not ok (%s)", a->modes[m], nb,
			 a->units_all[m], sb.buf);
		sbuf_release(&sb);
		audit_mode(k, a->modes[m]);
		if (!a->units_ok[m] && a->units_all[m]) {
			audit_raise(k, AUDIT_FAIL);
			audit_ev(k, "  '%s' has no ok unit: it is missing from every comparison",
				 a->modes[m]);
		}
	}
	double x2 = 0, p = NAN;
	int approx = 0;
	size_t df = 0;
	size_t good = tot - bad;
	for (size_t m = 0; m < K; m++) {
		if (!a->units_all[m])
			continue;
		df++;
		double n = (double)a->units_all[m];
		double eb = n * (double)bad / (double)tot, eg = n * (double)good / (double)tot;
		double ob = (double)(a->units_all[m] - a->units_ok[m]), og = (double)a->units_ok[m];
		approx |= eb < 5 || eg < 5;
		if (eb > 0)
			x2 += (ob - eb) * (ob - eb) / eb;
		if (eg > 0)
			x2 += (og - eg) * (og - eg) / eg;
	}
	if (df >= 2 && good > 0) {
		p = gsl_cdf_chisq_Q(x2, (double)(df - 1));
		audit_ev(k, "independence of status and mode: chi-square %.3f, df %zu, p %.3g%s", x2,
			 df - 1, p, approx ? " (approximate: expected counts below 5)" : "");
		if (p < c->o.alpha)
			audit_raise(k, AUDIT_FAIL);
	}
	audit_raise(k, AUDIT_WARN);
	audit_summary(k, "%zu of %zu cold units failed or timed out%s", bad, tot,
		      k->status == AUDIT_FAIL ? ", unevenly across modes: the survivors are a "
						"selected sample" :
						", evenly across modes as far as can be told");
}

/* ---- per-op versus e2e --------------------------------------------------------------- */

/* Per workload with an e2e cell, from the report: each mode's time-weighted composition
 * (predicted vs measured e2e ratio, interaction, coverage), and Kendall tau of the
 * unweighted and of the predicted per-op ranking against the e2e one.  WARN when either
 * ranking disagrees (tau < 0.5), when some mode does not compose, when the op cells cover
 * less of the forward than the report's coverage_min, or when nothing can be ranked; the
 * summary names the explanation the report found (weighting, low coverage, a real
 * interaction). */
void audit_op_e2e(struct audit *au, struct ctx *c)
{
	const struct report *r = c->rep;
	const struct analysis *a = r->a;
	struct audit_check *k = audit_add(au, "op-vs-e2e", "per-op versus end-to-end agreement");
	size_t ranked = 0, disagree = 0, apart = 0;
	struct sbuf why;
	sbuf_init(&why);
	for (size_t i = 0; i < r->ncomp; i++) {
		const struct rep_comp *x = &r->comp[i];
		if (!x->ok) {
			audit_ev(k, "'%s' '%s': composition not computed (%s)", x->workload,
				 a->modes[x->mode], x->note);
			continue;
		}
		char ci[64] = "no CI: too few blocks";
		if (!isnan(x->inter.lo))
			snprintf(ci, sizeof(ci), "[%.3f, %.3f]", x->inter.lo, x->inter.hi);
		audit_ev(k, "'%s' '%s': predicted e2e ratio %.3f, measured %.3f, interaction %.3f "
			    "%s (%s); op cells cover %.1f%% of the baseline's forward",
			 x->workload, a->modes[x->mode], x->pred.est, x->meas.est, x->inter.est, ci,
			 rep_compose_name(x->verdict), 100 * x->cov_base.est);
		if (x->verdict == COMPOSE_NO) {
			apart++;
			audit_raise(k, AUDIT_WARN);
		}
	}
	for (size_t i = 0; i < r->ntau; i++) {
		const struct rep_tau *t = &r->tau[i];
		if (isnan(t->tau) && isnan(t->tau_pred)) {
			audit_ev(k, "'%s': %zu mode(s) with both rankings: too few to rank", t->workload,
				 t->nmodes);
			continue;
		}
		ranked++;
		audit_ev(k, "'%s': Kendall tau %.2f unweighted, %.2f predicted by count x time, over "
			    "%zu modes", t->workload, t->tau, t->tau_pred, t->nmodes);
		/* an unweighted disagreement that count x time explains is weighting, not a flaw */
		int bad = (!isnan(t->tau_pred) && t->tau_pred < 0.5) ||
			  (isnan(t->tau_pred) && !isnan(t->tau) && t->tau < 0.5) ||
			  (t->explanation && strcmp(t->explanation, "weighting"));
		if (bad) {
			disagree++;
			audit_raise(k, AUDIT_WARN);
		}
		if (t->explanation && (bad || (!isnan(t->tau) && t->tau < 0.5)))
			sbuf_addf(&why, "%s'%s': %s", why.len ? "; " : "", t->workload, t->explanation);
	}
	if (!r->ntau) {
		audit_raise(k, AUDIT_WARN);
		audit_summary(k, "not evaluated: no workload has an e2e cell, so per-op results are "
				 "not checked against end to end");
	} else if (!ranked) {
		audit_raise(k, AUDIT_WARN);
		audit_summary(k, "not evaluated: fewer than 3 modes to rank in every workload");
	} else if (disagree || apart) {
		audit_summary(k, "per-op and e2e disagree in %zu of %zu workload(s), %zu mode(s) do "
				 "not compose; the data support: %s", disagree, ranked, apart,
			      why.len ? why.buf : "no explanation");
	} else {
		audit_summary(k, "per-op results weighted by count x time agree with e2e in %zu "
				 "workload(s)%s%s", ranked, why.len ? " (unweighted they do not: " : "",
			      why.len ? "weighting)" : "");
	}
	sbuf_release(&why);
}

/* ---- hypotheses ----------------------------------------------------------------------- */

/* Each recorded hypothesis file with its SHA-256, re-hashed from the recorded bytes (FAIL
 * on a mismatch), and its status from hypothesis.h (hyp_set_load: the git state captured
 * at run start and the bytes on disk now): PRE-REGISTERED passes; UNCOMMITTED (not
 * committed and clean at run start: exploratory) and MODIFIED (the file on disk now differs
 * from the recorded bytes) are WARN; no hypothesis file at all is WARN. */
void audit_hypotheses(struct audit *au, struct ctx *c)
{
	const struct rec_meta *m = &c->an->meta;
	struct audit_check *k = audit_add(au, "hypotheses", "hypothesis integrity");
	size_t n = 0, bad = 0, prereg = 0;
	for (size_t i = 0; i < m->nfiles; i++) {
		const struct rec_file *f = &m->files[i];
		if (strcmp(f->role, "hypothesis"))
			continue;
		n++;
		char hex[65];
		util_sha256_hex(f->text, f->len, hex);
		int ok = !strcmp(hex, f->sha256);
		audit_ev(k, "'%s': sha256 %s, %zu bytes%s", f->path, f->sha256, f->len,
			 ok ? "" : " (the recorded bytes hash differently)");
		if (!ok) {
			bad++;
			audit_raise(k, AUDIT_FAIL);
		}
	}
	if (!n) {
		audit_raise(k, AUDIT_WARN);
		audit_summary(k, "no hypothesis file recorded: nothing was pre-registered");
		return;
	}
	const struct hyp_set *set = c->hyps;
	if (c->hyps_bad) {
		audit_raise(k, AUDIT_WARN);
		audit_ev(k, "statuses not evaluated: a recorded hypothesis file does not parse, or "
			    "the file at its path cannot be read (reported)");
	} else {
		for (size_t i = 0; i < set->n; i++) {
			const struct hyp_entry *e = &set->e[i];
			audit_ev(k, "'%s': %s: %s", e->file->path, hyp_status_name(e->status),
				 e->why ? e->why : "");
			if (e->status == HYP_PREREGISTERED)
				prereg++;
			else
				audit_raise(k, AUDIT_WARN);
		}
	}
	if (bad)
		audit_summary(k, "%zu of %zu recorded hypothesis file(s) do not match their hash", bad, n);
	else if (!set)
		audit_summary(k, "%zu hypothesis file(s) recorded; statuses not evaluated", n);
	else
		audit_summary(k, "%zu of %zu hypothesis file(s) PRE-REGISTERED", prereg, n);
}
