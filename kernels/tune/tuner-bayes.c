/* tuner-bayes.c: the "bayes-opt" tuner, Bayesian optimisation after Kernel Tuner's
 * bayes_opt strategy (its strategies/bayes_opt.py at commit 96a6abc, Willemsen's thesis; read
 * for the algorithm): a Gaussian process surrogate of the median (GSL: a Cholesky factor,
 * gsl_linalg_cholesky_decomp1, and triangular solves, gsl_blas_dtrsm) and the expected
 * improvement, maximised over every valid point not yet measured.
 *
 * Coordinates: each field with more than one value is a dimension (constant fields are
 * pruned); value index k of a field sits at eps (k + 1/2), eps = 1 / (the most values any
 * field has), so the largest field spans [0, 1] and every field has the same step (Kernel
 * Tuner's normalisation).  The initial sample is a Latin hypercube of popsize points over
 * the value indices (samplingmethod "lhs"; "random": none), those that are valid points
 * measured once each, then random unmeasured valid points until popsize of the measured
 * points are ok.  The process: covariance matern32 (default), matern52 or rbf of
 * |x - x'| / covariancelengthscale, the lengthscale fixed (not fitted), 1e-10 added to the
 * diagonal, the medians standardised (mean 0, standard deviation 1: scikit-learn's
 * normalize_y); it predicts a mean mu and standard deviation s at each unmeasured point.
 * Each step proposes the point of greatest EI = (f+ - mu) Phi(z) + s phi(z),
 * z = (f+ - mu) / (s + 1e-9), f+ = (the best median) - xi (ties to the earlier point), then
 * refits.  xi, explorationfactor "CV" (Kernel Tuner's contextual variance, Jasrasaria 2018):
 * mean(s) over the unmeasured points / (initial sample's mean median / best median) /
 * (the mean s just after the initial sample), or a fixed number; while nothing is ok there is
 * no process and the proposal is a random unmeasured point.  It stops after max_fevals
 * trials or when every valid point is measured.
 * Options: popsize 20, samplingmethod "lhs", covariancekernel "matern32",
 * covariancelengthscale 1.5, explorationfactor "CV" (Kernel Tuner's defaults), max_fevals
 * (max_trials when set, else Kernel Tuner's 100), max_train 100 (ours, below); and
 * max_trials, max_seconds, accept, accept_repeats, accept_alpha (tuner-int.h).
 * Departures: the acquisition is EI alone (Kernel Tuner's method "ei"; its default,
 * "multi-ultrafast", rotates EI, probability of improvement and lower confidence bound
 * and refits only every few steps); xi is subtracted in units of the standardised medians,
 * not of the objective's own unit (ms there; ns here), so the search does not depend on the
 * unit; the process is fitted to at most max_train ok points (when there are more: the
 * max_train / 2 fastest, then the most recent others), so a step on a space of 20,000 valid
 * points stays near 0.05 s (a prediction costs max_train^2 per point); a failed point
 * (compile error, incorrect, no timing) is measured, counts as a trial and is never proposed
 * again, but is not fitted (Kernel Tuner fits its error value) and does not count towards
 * the initial sample; when the Cholesky factor fails the diagonal term grows 100-fold, up
 * to 1e-2 (scikit-learn raises); a point measured is never measured again (the per-point
 * medians are the memo: tuner_memo's linear lookup would make a step quadratic);
 * "constantrbf" (1.0 x rbf) is not offered, being rbf; and the random stream is the cell
 * seed's SplitMix64, not numpy's.  GSL's error handler must be off (the harness turns it off
 * at start-up) so that a failed factorisation is a status, not an abort. */
#include "config.h"
#include "kernels/tune/tuner-int.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

extern const struct tuner_ops tuner_bayes_opt;

/* Spaces with more grid points than this are refused (the valid points are listed). */
#define BO_MAX_GRID ((size_t)1 << 22)
/* Candidates predicted at once (the workspace's columns). */
#define BO_CHUNK 2048
/* Kernel Tuner's observation noise (scikit-learn's alpha) and our ceiling for it. */
#define BO_NOISE 1e-10
#define BO_MAX_NOISE 1e-2
/* The most entries of the covariance table (cov). */
#define BO_MAX_TABLE ((size_t)1 << 20)

enum bo_kernel { BO_MATERN32, BO_MATERN52, BO_RBF };

static const char *const bo_kernels[] = { "matern32", "matern52", "rbf", NULL };
static const char *const bo_samplings[] = { "lhs", "random", NULL };

struct tuner {
	const struct space *space;
	uint64_t rng;
	size_t *valid;          /* space_point indices of the valid points */
	size_t nvalid, nd;      /* nd: the dimensions (fields with more than one value) */
	uint16_t *xi;           /* the valid points' value indices in the nd dimensions */
	double eps;             /* a value index's step in the coordinates */
	double *covtab;         /* the covariance by squared index distance, or NULL (cov) */
	double *ns;             /* per valid point: NaN unmeasured, INFINITY failed, its median */
	size_t nvisited;
	size_t *ok;             /* the ok points in the order measured */
	size_t nok, gbest;      /* gbest: the fastest ok point (nvalid: none) */
	/* options */
	size_t popsize, max_train;
	enum bo_kernel kernel;
	double lengthscale, xi_fixed;
	int cv;                 /* explorationfactor "CV", else xi_fixed */
	int64_t max_fevals, fevals;
	/* the initial sample */
	size_t *init;           /* Latin hypercube points that are valid, distinct */
	size_t ninit, init_next;
	int sampled;            /* the initial sample is complete */
	double init_mean, init_std;
	/* the process's workspace, allocated once */
	size_t *train;          /* the training points, ntrain of them */
	size_t ntrain;
	double *kbuf, *ksbuf, *y, *alpha;
	unsigned char *mark;    /* per valid point, scratch */
	double ymean, ystd;
	double *mu, *sd;        /* per valid point: standardised prediction (unmeasured ones) */
};

static int bo_check_kernel(const struct tuner_option *o, const struct tuner_check *c,
			   char **cause)
{
	(void)c;
	return tuner_check_enum(o, bo_kernels, cause);
}

static int bo_check_sampling(const struct tuner_option *o, const struct tuner_check *c,
			     char **cause)
{
	(void)c;
	return tuner_check_enum(o, bo_samplings, cause);
}

/* explorationfactor: "CV" or a number >= 0. */
static int bo_check_xi(const struct tuner_option *o, const struct tuner_check *c, char **cause)
{
	(void)c;
	if (o->type == TUNER_OPT_STRING && o->s && !strcmp(o->s, "CV"))
		return 0;
	if ((o->type == TUNER_OPT_INT || o->type == TUNER_OPT_FLOAT) && isfinite(o->f) &&
	    o->f >= 0 && o->f <= 1e6)
		return 0;
	*cause = xasprintf("%d:%d: 'explorationfactor' must be \"CV\" or a number from 0 to 1e+06",
			   o->line, o->col);
	return -1;
}

static int bo_check_options(const struct tuner_check *c, char **cause)
{
	static const struct tuner_rule rules[] = {
		{ "popsize", RULE_INT, 1, 100000, NULL },
		{ "samplingmethod", RULE_CUSTOM, 0, 0, bo_check_sampling },
		{ "covariancekernel", RULE_CUSTOM, 0, 0, bo_check_kernel },
		{ "covariancelengthscale", RULE_FLOAT, 1e-6, 1e6, NULL },
		{ "explorationfactor", RULE_CUSTOM, 0, 0, bo_check_xi },
		{ "max_fevals", RULE_INT, 1, 1e9, NULL },
		{ "max_train", RULE_INT, 2, 2000, NULL },
		{ NULL },
	};
	return tuner_check_rules(&tuner_bayes_opt, c, rules, cause);
}

/* The covariance at distance dist: Matern 3/2 or 5/2 or the squared exponential of
 * r = dist / l (Rasmussen and Williams, "Gaussian Processes for Machine Learning", 2006,
 * eqs. 4.9, 4.17). */
static double cov_at(const struct tuner *t, double dist)
{
	double r = dist / t->lengthscale;
	switch (t->kernel) {
	case BO_MATERN52: return (1 + sqrt(5) * r + 5 * r * r / 3) * exp(-sqrt(5) * r);
	case BO_RBF: return exp(-r * r / 2);
	case BO_MATERN32: break;
	}
	return (1 + sqrt(3) * r) * exp(-sqrt(3) * r);
}

static struct tuner *bo_alloc(const struct tuner_args *a, char **cause)
{
	const struct space *s = a->space;
	size_t n;
	size_t *valid = tuner_valid_points(s, BO_MAX_GRID, "bayesian optimisation", &n, cause);
	if (!valid)
		return NULL;
	struct tuner *t = xcalloc(1, sizeof(*t));
	t->space = s;
	t->rng = a->seed;
	t->valid = valid;
	t->nvalid = n;
	t->gbest = n;
	if (!n)
		return t;
	/* options */
	const char *k = tuner_opt_string(a, "covariancekernel", "matern32");
	t->kernel = !strcmp(k, "matern52") ? BO_MATERN52 : !strcmp(k, "rbf") ? BO_RBF : BO_MATERN32;
	t->lengthscale = tuner_opt_float(a, "covariancelengthscale", 1.5);
	t->xi_fixed = tuner_opt_float(a, "explorationfactor", NAN);
	t->cv = isnan(t->xi_fixed); /* absent, or "CV" */
	int64_t pop = tuner_opt_int(a, "popsize", 20);
	t->popsize = (size_t)pop < n ? (size_t)pop : n;
	t->max_train = (size_t)tuner_opt_int(a, "max_train", 100);
	int64_t budget = a->budget_trials > 0 ? a->budget_trials : tuner_opt_int(a, "max_trials", 0);
	t->max_fevals = tuner_opt_int(a, "max_fevals", budget > 0 ? budget : 100);
	/* coordinates */
	size_t nf = s->nfields, most = 1, dims[SPACE_MAX_FIELDS];
	for (size_t f = 0; f < nf; f++) {
		if (s->fields[f].nvalues > most)
			most = s->fields[f].nvalues;
		if (s->fields[f].nvalues > 1)
			dims[t->nd++] = f;
	}
	t->eps = 1.0 / (double)most;
	uint16_t *vi = tuner_value_indices(s, valid, n);
	t->xi = xmalloc((n * t->nd + 1) * sizeof(*t->xi));
	for (size_t p = 0; p < n; p++)
		for (size_t d = 0; d < t->nd; d++)
			t->xi[p * t->nd + d] = vi[p * nf + dims[d]];
	free(vi);
	size_t ntab = t->nd * (most - 1) * (most - 1) + 1;
	if (ntab <= BO_MAX_TABLE) {
		t->covtab = xmalloc(ntab * sizeof(*t->covtab));
		for (size_t i = 0; i < ntab; i++)
			t->covtab[i] = cov_at(t, sqrt((double)i) * t->eps);
	}
	t->ns = xmalloc(n * sizeof(*t->ns));
	for (size_t p = 0; p < n; p++)
		t->ns[p] = NAN;
	t->ok = xmalloc(n * sizeof(*t->ok));
	t->mark = xcalloc(n, 1);
	t->mu = xmalloc(n * sizeof(*t->mu));
	t->sd = xmalloc(n * sizeof(*t->sd));
	t->train = xmalloc(t->max_train * sizeof(*t->train));
	t->kbuf = xmalloc(t->max_train * t->max_train * sizeof(*t->kbuf));
	t->ksbuf = xmalloc(t->max_train * BO_CHUNK * sizeof(*t->ksbuf));
	t->y = xmalloc(t->max_train * sizeof(*t->y));
	t->alpha = xmalloc(t->max_train * sizeof(*t->alpha));
	/* the initial sample's Latin hypercube points that are valid, distinct, in draw order */
	t->init = xmalloc(t->popsize * sizeof(*t->init));
	if (strcmp(tuner_opt_string(a, "samplingmethod", "lhs"), "random")) {
		uint16_t *h = xmalloc((t->popsize * nf + 1) * sizeof(*h));
		tuner_lhs_sample(s, t->popsize, &t->rng, h);
		for (size_t i = 0; i < t->popsize; i++) {
			struct config c;
			memset(&c, 0, sizeof(c));
			for (size_t f = 0; f < nf; f++)
				c.val[f] = s->fields[f].values[h[i * nf + f]];
			size_t p = tuner_valid_find(s, valid, n, &c);
			if (p < n && !t->mark[p]) {
				t->mark[p] = 1;
				t->init[t->ninit++] = p;
			}
		}
		memset(t->mark, 0, n);
		free(h);
	}
	return t;
}

/* ---- the Gaussian process ----------------------------------------------------------------- */

/* The covariance of points p and q (valid positions).  Their distance is eps times the
 * square root of an integer, the squared index distance, so it is looked up in t->covtab
 * when the table is small enough to hold every one. */
static double cov(const struct tuner *t, size_t p, size_t q)
{
	const uint16_t *a = &t->xi[p * t->nd], *b = &t->xi[q * t->nd];
	size_t k2 = 0;
	for (size_t d = 0; d < t->nd; d++) {
		long d1 = (long)a[d] - (long)b[d];
		k2 += (size_t)(d1 * d1);
	}
	return t->covtab ? t->covtab[k2] : cov_at(t, sqrt((double)k2) * t->eps);
}

/* A point and its median, for sorting fastest first (ties to the earlier point). */
struct ranked {
	double ns;
	size_t p;
};

static int cmp_fastest(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;
	return a->ns < b->ns ? -1 : a->ns > b->ns ? 1 : (a->p > b->p) - (a->p < b->p);
}

/* The training points: every ok point, or, when there are more than max_train, the
 * max_train / 2 fastest and then the most recent others. */
static void pick_training(struct tuner *t)
{
	if (t->nok <= t->max_train) {
		memcpy(t->train, t->ok, t->nok * sizeof(*t->train));
		t->ntrain = t->nok;
		return;
	}
	struct ranked *by = xmalloc(t->nok * sizeof(*by));
	for (size_t i = 0; i < t->nok; i++)
		by[i] = (struct ranked){ t->ns[t->ok[i]], t->ok[i] };
	qsort(by, t->nok, sizeof(*by), cmp_fastest);
	size_t n = 0;
	for (; n < t->max_train / 2; n++) {
		t->train[n] = by[n].p;
		t->mark[by[n].p] = 1;
	}
	for (size_t i = t->nok; i-- > 0 && n < t->max_train;)
		if (!t->mark[t->ok[i]])
			t->train[n++] = t->ok[i];
	for (size_t i = 0; i < t->max_train / 2; i++)
		t->mark[by[i].p] = 0;
	t->ntrain = n;
	free(by);
}

/* Fit the process to the training points: the Cholesky factor of K + noise I in kbuf and
 * alpha = (K + noise I)^-1 y of the standardised medians.  0, or -1 when no noise up to
 * BO_MAX_NOISE makes the matrix positive definite. */
static int fit(struct tuner *t)
{
	size_t n = t->ntrain;
	double sum = 0, ss = 0;
	for (size_t i = 0; i < n; i++)
		sum += t->ns[t->train[i]];
	t->ymean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (t->ns[t->train[i]] - t->ymean) * (t->ns[t->train[i]] - t->ymean);
	t->ystd = sqrt(ss / (double)n);
	if (!(t->ystd > 0))
		t->ystd = 1; /* scikit-learn's _handle_zeros_in_scale */
	for (size_t i = 0; i < n; i++)
		t->y[i] = (t->ns[t->train[i]] - t->ymean) / t->ystd;
	gsl_matrix_view K = gsl_matrix_view_array(t->kbuf, n, n);
	gsl_vector_view y = gsl_vector_view_array(t->y, n);
	gsl_vector_view al = gsl_vector_view_array(t->alpha, n);
	for (double noise = BO_NOISE; noise <= BO_MAX_NOISE; noise *= 100) {
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j <= i; j++) {
				double k = cov(t, t->train[i], t->train[j]) + (i == j ? noise : 0);
				gsl_matrix_set(&K.matrix, i, j, k);
				gsl_matrix_set(&K.matrix, j, i, k);
			}
		if (gsl_linalg_cholesky_decomp1(&K.matrix) == GSL_SUCCESS)
			return gsl_linalg_cholesky_solve(&K.matrix, &y.vector, &al.vector) ? -1 : 0;
	}
	return -1;
}

/* The standardised mean and standard deviation at every unmeasured point into t->mu, t->sd:
 * mu = k*' alpha, s^2 = k(x, x) - |L^-1 k*|^2 (Rasmussen and Williams, algorithm 2.1), BO_CHUNK
 * points at a time. */
static void predict(struct tuner *t)
{
	size_t n = t->ntrain, cand[BO_CHUNK], m = 0;
	gsl_matrix_view L = gsl_matrix_view_array(t->kbuf, n, n);
	for (size_t p = 0; p <= t->nvalid; p++) {
		if (p < t->nvalid && isnan(t->ns[p]))
			cand[m++] = p;
		if (m < BO_CHUNK && (p < t->nvalid || !m))
			continue;
		if (!m)
			break;
		gsl_matrix_view V = gsl_matrix_view_array(t->ksbuf, n, m);
		double mu[BO_CHUNK], var[BO_CHUNK];
		for (size_t j = 0; j < m; j++) {
			mu[j] = 0;
			var[j] = 1; /* k(x, x) */
		}
		for (size_t i = 0; i < n; i++) {
			double *row = &t->ksbuf[i * m];
			for (size_t j = 0; j < m; j++) {
				row[j] = cov(t, t->train[i], cand[j]);
				mu[j] += row[j] * t->alpha[i];
			}
		}
		gsl_blas_dtrsm(CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, 1.0, &L.matrix,
			       &V.matrix);
		for (size_t i = 0; i < n; i++) {
			const double *row = &t->ksbuf[i * m];
			for (size_t j = 0; j < m; j++)
				var[j] -= row[j] * row[j];
		}
		for (size_t j = 0; j < m; j++) {
			t->mu[cand[j]] = mu[j];
			t->sd[cand[j]] = var[j] > 0 ? sqrt(var[j]) : 0;
		}
		m = 0;
	}
}

/* The mean predicted standard deviation over the unmeasured points, in ns. */
static double mean_sd(const struct tuner *t)
{
	double s = 0;
	size_t m = 0;
	for (size_t p = 0; p < t->nvalid; p++)
		if (isnan(t->ns[p])) {
			s += t->sd[p] * t->ystd;
			m++;
		}
	return m ? s / (double)m : 0;
}

/* ---- proposals ---------------------------------------------------------------------------- */

/* A random unmeasured valid point (there is one). */
static size_t random_unmeasured(struct tuner *t)
{
	size_t want = (size_t)tuner_rand_below(&t->rng, t->nvalid - t->nvisited);
	for (size_t p = 0; p < t->nvalid; p++)
		if (isnan(t->ns[p]) && want-- == 0)
			return p;
	return 0; /* not reached */
}

/* The unmeasured point of greatest expected improvement under a fresh fit; a random one
 * when nothing is ok or the fit fails. */
static size_t most_promising(struct tuner *t)
{
	if (!t->nok)
		return random_unmeasured(t);
	pick_training(t);
	if (fit(t))
		return random_unmeasured(t);
	predict(t);
	double best = t->ns[t->gbest], xi = t->xi_fixed;
	if (!t->sampled) { /* the first fit: Kernel Tuner's references for CV */
		t->sampled = 1;
		double s = 0;
		for (size_t i = 0; i < t->nok; i++)
			s += t->ns[t->ok[i]];
		t->init_mean = s / (double)t->nok;
		t->init_std = mean_sd(t);
	}
	if (t->cv) { /* Kernel Tuner's fallback 0.01 where the ratio means nothing */
		xi = best > 0 && t->init_mean > 0 ? mean_sd(t) / (t->init_mean / best) : 0.01;
		if (t->init_std > 0)
			xi /= t->init_std;
	}
	double fplus = (best - t->ymean) / t->ystd - xi, top = -INFINITY;
	size_t pick = t->nvalid;
	for (size_t p = 0; p < t->nvalid; p++) {
		if (!isnan(t->ns[p]))
			continue;
		double d = fplus - t->mu[p], z = d / (t->sd[p] + 1e-9);
		double ei = d * gsl_cdf_ugaussian_P(z) + t->sd[p] * gsl_ran_ugaussian_pdf(z);
		if (pick == t->nvalid || ei > top) {
			top = ei;
			pick = p;
		}
	}
	return pick;
}

static int bo_next(struct tuner *t, struct config *c)
{
	if (!t->nvalid || t->fevals >= t->max_fevals || t->nvisited >= t->nvalid)
		return 0;
	size_t p = t->nvalid;
	while (t->init_next < t->ninit && p == t->nvalid) { /* the hypercube's points */
		size_t q = t->init[t->init_next++];
		if (isnan(t->ns[q]))
			p = q;
	}
	if (p == t->nvalid)
		p = t->nok < t->popsize && !t->sampled ? random_unmeasured(t) : most_promising(t);
	space_point(t->space, t->valid[p], c);
	return 1;
}

static void bo_observe(struct tuner *t, const struct config *c, const struct trial_result *r)
{
	size_t p = tuner_valid_find(t->space, t->valid, t->nvalid, c);
	if (p == t->nvalid || !isnan(t->ns[p]))
		return; /* not ours, or known */
	t->nvisited++;
	t->fevals++;
	if (!tuner_result_ok(r)) {
		t->ns[p] = INFINITY;
		return;
	}
	t->ns[p] = r->median_ns;
	t->ok[t->nok++] = p;
	if (t->gbest == t->nvalid || t->ns[p] < t->ns[t->gbest])
		t->gbest = p;
}

static int bo_best(struct tuner *t, struct config *out)
{
	if (t->gbest == t->nvalid)
		return -1;
	return space_point(t->space, t->valid[t->gbest], out);
}

static void bo_free(struct tuner *t)
{
	free(t->valid);
	free(t->xi);
	free(t->covtab);
	free(t->ns);
	free(t->ok);
	free(t->mark);
	free(t->mu);
	free(t->sd);
	free(t->train);
	free(t->kbuf);
	free(t->ksbuf);
	free(t->y);
	free(t->alpha);
	free(t->init);
	free(t);
}

const struct tuner_ops tuner_bayes_opt = {
	.name = "bayes-opt",
	.flags = TUNER_COMPILES | TUNER_BENCHMARKS,
	.check_options = bo_check_options,
	.alloc = bo_alloc,
	.next = bo_next,
	.observe = bo_observe,
	.best = bo_best,
	.free = bo_free,
};
