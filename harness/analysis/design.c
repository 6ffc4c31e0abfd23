/* design.c: what an experiment's design can decide, before the run (design.h) */
#include "config.h"
#include "harness/analysis/design.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/analysis/analysis.h"
#include "harness/analysis/hyp.h"
#include "harness/analysis/report.h"
#include "harness/base/util.h"
#include "stats/stats.h"

#define ALPHA 0.05
/* the test the design is planned for: the report's default */
#define DESIGN_TEST STATS_TEST_T
/* check --design works the sequential levels out up to this many looks */
#define SEQ_CHECK_LOOKS 200
#define POWER 0.8
#define Z975 1.959963984540054

/* "'repeats' at 'x.toml':12:1" or "'repeats' (not written: the default)" into buf. */
static const char *where_repeats(char *buf, size_t n, const struct experiment *e, int line,
				 int col)
{
	if (line)
		snprintf(buf, n, "'repeats' at '%s':%d:%d", e->path, line, col);
	else
		snprintf(buf, n, "'repeats' (not written: the default)");
	return buf;
}

/* One design: n blocks (max: a sequential design's budget, 0 none). */
static void say_design(const struct experiment *e, const char *on, int64_t n, int line, int col,
		       int64_t max, FILE *out, int *undecidable)
{
	char w[512];
	where_repeats(w, sizeof(w), e, line, col);
	if (n < 2 && !(max >= 2)) {
		warning("'%s': %s%s%s1 block (%s) cannot decide anything: one block carries no CI "
			"and no test; set 'repeats' to 2 or more (3 or more for a t test with 2 "
			"degrees of freedom)", e->path, on ? "on " : "", on ? on : "", on ? ": " : "",
			w);
		*undecidable = 1;
		return;
	}
	if (!out)
		return;
	fprintf(out, "'%s': %s%s%s%" PRId64 " block%s (%s): ", e->path, on ? "on " : "",
		on ? on : "", on ? ": " : "", n, n == 1 ? "" : "s", w);
	fprintf(out, "the paired t test decides from 2 blocks, with no floor on its p");
	if (n < 6)
		fprintf(out, "; the exact signed-rank test (--test signed-rank) could not reach "
			     "p < %.2g with %" PRId64 " (smallest p %.4g; 6 blocks can)", ALPHA, n,
			2 / pow(2, (double)n));
	if (n == 2)
		fprintf(out, "; with 2 blocks the t CI is 12.7 standard errors wide each way");
	fputc('\n', out);
	if (max > 0) {
		/* the levels of the looks at n, n + 1, ..., max (up to SEQ_CHECK_LOOKS of them:
		 * each block costs a simulation step) */
		enum stats_spending sp = (enum stats_spending)e->seq.spending;
		size_t k = (size_t)(max - n + 1);
		double first = stats_seq_alpha(ALPHA, 0, (size_t)n, (size_t)max, sp);
		double last = NAN;
		if (k <= SEQ_CHECK_LOOKS) {
			size_t *looks = xmalloc(k * sizeof(*looks));
			double *lv = xmalloc(k * sizeof(*lv));
			for (size_t i = 0; i < k; i++)
				looks[i] = (size_t)n + i;
			if (stats_seq_levels_t(ALPHA, looks, k, (size_t)max, sp, lv) == 0)
				last = lv[k - 1];
			free(looks);
			free(lv);
		}
		fprintf(out, "'%s': %s%s%ssequential (%s): a look after %" PRId64 " blocks, then "
			     "after each block to at most %" PRId64 " until %s; levels calibrated "
			     "for Student's t, the first look at %.4g",
			e->path, on ? "on " : "", on ? on : "", on ? ": " : "",
			stats_spending_name(sp), n, max,
			e->seq.until_cells ? "every primary hypothesis and every cell is decided"
					   : "every primary hypothesis is decided", first);
		if (isnan(last))
			fprintf(out, " (the later looks' levels are not worked out here beyond %d "
				     "looks)", SEQ_CHECK_LOOKS);
		else if (k > 1)
			fprintf(out, ", the last at %.4g", last);
		fprintf(out, "; %.2g spent over them in all\n", ALPHA);
	}
}

static int dbl_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* The design's blocks on backend b (its [on.b] repeats, else the experiment's), where they
 * are written, and its budget (0: not sequential). */
static int64_t blocks_on(const struct experiment *e, const char *b, int *line, int *col,
			 int64_t *max)
{
	int64_t n = e->repeats;
	*line = e->repeats_line;
	*col = e->repeats_col;
	*max = e->seq.on ? e->seq.max_repeats : 0;
	for (size_t i = 0; b && i < e->non; i++) {
		if (strcmp(e->on[i].backend, b))
			continue;
		if (e->on[i].has_repeats) {
			n = e->on[i].repeats;
			*line = e->on[i].repeats_line;
			*col = e->on[i].repeats_col;
		}
		if (e->seq.on && e->on[i].has_max_repeats)
			*max = e->on[i].max_repeats;
	}
	return n;
}

/* Against an earlier run's spread: each comparison's minimum detectable effect at the
 * design's blocks for the backend that run used, against its noise floor; each primary
 * hypothesis's blocks to decide its effect. */
static int assess_prior(const struct experiment *e, const char *path, FILE *out,
			int *undecidable)
{
	struct analysis *a = NULL;
	struct report *r = NULL;
	struct hyp_set *set = NULL;
	struct hyp_eval *ev = NULL;
	int rc = -1;
	if (analysis_load(path, &a))
		goto done;
	struct report_opts o;
	report_opts_init(&o);
	o.alpha_given = 1; /* the design's level, not a sequential prior's last look */
	if (report_build(a, &o, &r))
		goto done;
	const char *b = rec_meta_get(&a->meta, "backend");
	int line, col;
	int64_t max, n = blocks_on(e, b, &line, &col, &max);
	char w[512];
	where_repeats(w, sizeof(w), e, line, col);
	double *mde = xcalloc(r->ncmp + 1, sizeof(*mde)), *need = xcalloc(r->ncmp + 1, sizeof(*need));
	size_t nm = 0, over = 0;
	for (size_t i = 0; i < r->ncmp; i++) {
		const struct rep_cmp *x = &r->cmp[i];
		if (!x->ok || !strcmp(x->family, "aa") || !isfinite(x->c.sigma_log))
			continue;
		double eff = fmax(isnan(x->c.floor) ? 0 : x->c.floor, isnan(r->margin) ? 0 : r->margin);
		mde[nm] = stats_mde((size_t)n, x->c.sigma_log, ALPHA, POWER, DESIGN_TEST);
		need[nm] = eff > 0 ? stats_blocks_needed(eff, x->c.sigma_log, ALPHA, POWER,
							 DESIGN_TEST)
				   : NAN;
		over += eff > 0 && mde[nm] > eff;
		nm++;
	}
	if (nm && out) {
		qsort(mde, nm, sizeof(*mde), dbl_cmp);
		double worst = 0;
		for (size_t i = 0; i < nm; i++)
			if (need[i] > worst)
				worst = need[i];
		fprintf(out, "'%s': with the spread of '%s' (backend %s, %zu blocks): at %" PRId64
			     " blocks the median comparison detects %.2f%% (80%% power; the worst "
			     "%.2f%%); %zu of %zu comparisons could not detect their own noise floor "
			     "(a null result there reads INCONCLUSIVE, not SAME; the worst needs %.0f "
			     "blocks)\n",
			e->path, path, b ? b : "?", a->nblocks, n, 100 * mde[nm / 2],
			100 * mde[nm - 1], over, nm, worst);
	}
	free(mde);
	free(need);
	if (hyp_set_load(path, &a->meta, NULL, 0, NULL, &set) || hyp_evaluate(r, set, &ev))
		goto done;
	for (size_t i = 0; i < ev->nr; i++) {
		const struct hyp_result *h = &ev->r[i];
		if (!h->h->primary)
			continue;
		double most = NAN;
		for (size_t k = 0; k < h->nt; k++)
			if (!isnan(h->t[k].repeats) && !(h->t[k].repeats <= most))
				most = h->t[k].repeats;
		int64_t cap = max > n ? max : n;
		if (isnan(most)) {
			if (out)
				fprintf(out, "'%s': primary hypothesis '%s': no spread in '%s' to plan "
					     "from\n", e->path, h->h->id, path);
		} else if (most > (double)cap) {
			*undecidable = 1;
			warning("'%s': primary hypothesis '%s' needs about %.0f blocks to decide its "
				"%.2f%% at the spread of '%s', more than the %" PRId64 " the design may "
				"take: raise %s%s", e->path, h->h->id, most, 100 * h->min_effect, path,
				cap, w, max ? " or [sequential] max_repeats" : "");
		} else if (out) {
			fprintf(out, "'%s': primary hypothesis '%s' needs about %.0f blocks to decide "
				     "its %.2f%% at the spread of '%s' (the design: %" PRId64 "%s)\n",
				e->path, h->h->id, most, 100 * h->min_effect, path, n,
				max > n ? ", sequential" : "");
		}
	}
	rc = 0;
done:
	hyp_eval_free(ev);
	hyp_set_free(set);
	report_free(r);
	analysis_free(a);
	return rc;
}

/* Against an A/A noise floor F in every cell: one pair's log ratio has s = log(1 + F) /
 * z_{0.975}; the minimum detectable effect at the design's blocks, and the blocks from which
 * a null result reads SAME (the t CI's half-width t_{0.975, n-1} s / sqrt(n) inside the
 * floor z s: t_{0.975, n-1} <= z sqrt(n)). */
static void assess_floor(const struct experiment *e, double f, FILE *out)
{
	double s = log1p(f) / Z975;
	int64_t n = e->repeats;
	size_t same = 2;
	while (same < 1000 && stats_t_quantile(0.975, (double)same - 1) > Z975 * sqrt((double)same))
		same++;
	fprintf(out, "'%s': with an A/A noise floor of %.2f%% in every cell: at %" PRId64 " blocks "
		     "the minimum detectable effect is %.2f%% (80%% power), the floor needs %.0f "
		     "blocks to detect; a null result can read SAME from %zu blocks\n",
		e->path, 100 * f, n, 100 * stats_mde((size_t)n, s, ALPHA, POWER, DESIGN_TEST),
		stats_blocks_needed(f, s, ALPHA, POWER, DESIGN_TEST), same);
}

int design_assess(const struct experiment *e, const struct design_prior *p, FILE *out,
		  int *undecidable)
{
	*undecidable = 0;
	say_design(e, NULL, e->repeats, e->repeats_line, e->repeats_col,
		   e->seq.on ? e->seq.max_repeats : 0, out, undecidable);
	for (size_t i = 0; i < e->non; i++) {
		const struct backend_settings *o = &e->on[i];
		if (!o->has_repeats && !o->has_max_repeats)
			continue;
		int line, col;
		int64_t max, n = blocks_on(e, o->backend, &line, &col, &max);
		say_design(e, o->backend, n, line, col, max, out, undecidable);
	}
	if (p && !isnan(p->aa_floor) && out)
		assess_floor(e, p->aa_floor, out);
	if (p && p->results && assess_prior(e, p->results, out, undecidable))
		return -1;
	return 0;
}
