/* tuner-model.c: the "model-topk" tuner (fast_autotune's learned filter): a cost model of
 * log runtime fitted by least squares (GSL, gsl_multifit_linear) to the ok trials of other
 * runs, every valid point of the cell's space ranked by the model, only the top k compiled,
 * checked and benchmarked; the fastest ok one wins.
 *
 * Features of a config c of a space with fields f_1..f_F, for a cell of shape keys
 * s_1..s_S (docs/kernels.md), with L(x) = log2(1 + x):
 *     x = [1, L(c_f) for each field, L(c_f)^2 for each field, L(s_k) for each shape key]
 * The response is ln(median ns).  Training rows: the trials of the cell's op whose config
 * is a point of the cell's grid (the constraint not consulted: the trial had its own shape)
 * and whose shape has the cell's shape keys.  With fewer rows than 1 + 2F + S + 1, or no
 * data, there is no fitted model: when the caller passes an estimate (tuner_args.estimate:
 * the backend's roofline, docs/kernels.md) and it is finite for every valid point, the k
 * points of least estimated time (ties by the distance below, then grid order); otherwise
 * the k valid points nearest the heuristic's (L1 distance in value indices, ties in grid
 * order), the heuristic's first.  Either way the note says which was used.
 * Options: k (1 to 100000, default 5), train (the files; read by the caller), and the
 * common options. */
#include "config.h"
#include "kernels/tune/tuner-int.h"

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct tuner_ops tuner_model_topk;

#define MODEL_MAX_GRID ((size_t)1 << 20)
#define MODEL_MAX_SHAPE 16

struct tuner {
	const struct space *space;
	size_t *order;        /* space_point indices of the valid points, best predicted first */
	size_t norder, k, next;
	int have_best;
	struct config best;
	double best_ns;
	char note[448];
	int fell_back;        /* 1: no fitted model (the estimate's or the heuristic's order) */
};

/* train: a results file's path or a non-empty list of them. */
static int model_check_train(const struct tuner_option *o, const struct tuner_check *c,
			     char **cause)
{
	(void)c;
	int ok = o->type == TUNER_OPT_STRING && o->s && *o->s;
	if (o->type == TUNER_OPT_LIST) {
		ok = o->nitems > 0;
		for (size_t k = 0; k < o->nitems; k++)
			ok &= o->items[k].type == TUNER_OPT_STRING && o->items[k].s && *o->items[k].s;
	}
	if (!ok) {
		*cause = xasprintf("%d:%d: 'train' must be a results file's path or a non-empty "
				   "list of them", o->line, o->col);
		return -1;
	}
	return 0;
}

static int model_check_options(const struct tuner_check *c, char **cause)
{
	static const struct tuner_rule rules[] = {
		{ "k", RULE_INT, 1, 100000, NULL },
		{ "train", RULE_CUSTOM, 0, 0, model_check_train },
		{ NULL },
	};
	return tuner_check_rules(&tuner_model_topk, c, rules, cause);
}

/* "m=64,n=48" into keys (pointers into buf) and values; their number, or -1. */
static int split_shape(const char *shape, char *buf, size_t size, char **keys, double *vals)
{
	snprintf(buf, size, "%s", shape ? shape : "");
	int n = 0;
	for (char *item = buf, *next; item && *item; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		char *eq = strchr(item, '=');
		int64_t v;
		if (!eq || n >= MODEL_MAX_SHAPE)
			return -1;
		*eq = '\0';
		if (parse_i64(eq + 1, INT64_MIN, INT64_MAX, &v))
			return -1;
		keys[n] = item;
		vals[n++] = (double)v;
	}
	return n;
}

static double lg(double x)
{
	return log2(1 + (x > 0 ? x : 0));
}

/* The features of c at shape values sv (in the cell's key order) into x (p long). */
static void features(const struct space *s, const struct config *c, const double *sv, size_t ns,
		     double *x)
{
	size_t j = 0;
	x[j++] = 1;
	for (size_t f = 0; f < s->nfields; f++)
		x[j++] = lg((double)c->val[f]);
	for (size_t f = 0; f < s->nfields; f++) {
		double l = lg((double)c->val[f]);
		x[j++] = l * l;
	}
	for (size_t k = 0; k < ns; k++)
		x[j++] = lg(sv[k]);
}

static const double *sort_key, *sort_key2;
static int by_key(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	if (sort_key[a] != sort_key[b])
		return sort_key[a] < sort_key[b] ? -1 : 1;
	if (sort_key2 && sort_key2[a] != sort_key2[b])
		return sort_key2[a] < sort_key2[b] ? -1 : 1;
	return a < b ? -1 : a > b; /* ties in grid order */
}

static struct tuner *model_alloc(const struct tuner_args *a, char **cause)
{
	const struct space *s = a->space;
	size_t grid = space_npoints(s);
	if (grid > MODEL_MAX_GRID) {
		*cause = xasprintf("the '%s' space has %zu candidate points; model-topk ranks at "
				   "most %zu", s->op, grid, MODEL_MAX_GRID);
		return NULL;
	}
	struct tuner *t = xcalloc(1, sizeof(*t));
	t->space = s;
	t->k = (size_t)tuner_opt_int(a, "k", 5);
	t->best_ns = INFINITY;
	size_t *valid = xmalloc((grid ? grid : 1) * sizeof(*valid));
	double *key = xcalloc(grid ? grid : 1, sizeof(*key)), *dist = NULL; /* owned */
	for (size_t i = 0; i < grid; i++) {
		struct config c;
		if (!space_point(s, i, &c) && space_contains(s, &c))
			valid[t->norder++] = i;
	}
	t->order = valid;
	const char *op = a->cell && a->cell->op ? a->cell->op : s->op;
	char cbuf[512], *ckeys[MODEL_MAX_SHAPE];
	double cvals[MODEL_MAX_SHAPE];
	int ns = split_shape(a->cell ? a->cell->shape : "", cbuf, sizeof(cbuf), ckeys, cvals);
	if (ns < 0)
		ns = 0;
	size_t p = 1 + 2 * s->nfields + (size_t)ns;
	/* the training rows that fit this cell */
	struct space free_s = *s; /* the grid without the constraint */
	free_s.valid = NULL;
	free_s.listed = NULL;
	size_t nrows = 0, cap = 0;
	double *X = NULL, *Y = NULL;
	const struct tuner_train *tr = a->train;
	for (size_t r = 0; tr && !tr->error && r < tr->n; r++) {
		const struct tuner_train_row *row = &tr->rows[r];
		struct config c;
		char *why = NULL, rbuf[512], *rkeys[MODEL_MAX_SHAPE];
		double rvals[MODEL_MAX_SHAPE], sv[MODEL_MAX_SHAPE];
		if (strcmp(row->op, op) || !(row->ns > 0) || !isfinite(row->ns))
			continue;
		if (config_parse(&free_s, row->config, &c, &why) || c.vendor) {
			free(why);
			continue;
		}
		int rn = split_shape(row->shape, rbuf, sizeof(rbuf), rkeys, rvals);
		if (rn != ns)
			continue;
		int same = 1;
		for (int k = 0; k < ns && same; k++) {
			int j = 0;
			while (j < rn && strcmp(rkeys[j], ckeys[k]))
				j++;
			same = j < rn;
			if (same)
				sv[k] = rvals[j];
		}
		if (!same)
			continue;
		if (nrows + 1 > cap) {
			cap = cap ? 2 * cap : 64;
			X = xrealloc(X, cap * p * sizeof(*X));
			Y = xrealloc(Y, cap * sizeof(*Y));
		}
		features(s, &c, sv, (size_t)ns, &X[nrows * p]);
		Y[nrows++] = log(row->ns);
	}
	if (nrows >= p + 1) {
		gsl_matrix *gx = gsl_matrix_alloc(nrows, p), *cov = gsl_matrix_alloc(p, p);
		gsl_vector *gy = gsl_vector_alloc(nrows), *coef = gsl_vector_alloc(p);
		gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(nrows, p);
		double chisq, *x = xmalloc(p * sizeof(*x));
		for (size_t i = 0; i < nrows; i++) {
			gsl_vector_set(gy, i, Y[i]);
			for (size_t j = 0; j < p; j++)
				gsl_matrix_set(gx, i, j, X[i * p + j]);
		}
		gsl_multifit_linear(gx, gy, coef, cov, &chisq, ws);
		double mean = 0, tss = 0;
		for (size_t i = 0; i < nrows; i++)
			mean += Y[i] / (double)nrows;
		for (size_t i = 0; i < nrows; i++)
			tss += (Y[i] - mean) * (Y[i] - mean);
		for (size_t i = 0; i < t->norder; i++) {
			struct config c;
			space_point(s, t->order[i], &c);
			features(s, &c, cvals, (size_t)ns, x);
			double yhat = 0;
			for (size_t j = 0; j < p; j++)
				yhat += gsl_vector_get(coef, j) * x[j];
			key[t->order[i]] = yhat;
		}
		snprintf(t->note, sizeof(t->note), "model-topk: least squares on %zu trials of op "
			 "'%s' from %zu file(s), %zu features, R^2 %.3f; the top %zu of %zu valid "
			 "points benchmarked", nrows, op, tr->nfiles, p,
			 tss > 0 ? 1 - chisq / tss : NAN, t->k < t->norder ? t->k : t->norder,
			 t->norder);
		free(x);
		gsl_multifit_linear_free(ws);
		gsl_matrix_free(gx);
		gsl_matrix_free(cov);
		gsl_vector_free(gy);
		gsl_vector_free(coef);
	} else {
		/* no fitted model: the backend's estimate when it has one for every valid point
		 * (ties by the distance below), else nearest the heuristic's point in value
		 * indices */
		struct config h;
		int have_h = !tuner_start_point(s, &h);
		t->fell_back = 1;
		size_t nest = 0;
		double lo = INFINITY, hi = -INFINITY;
		dist = xcalloc(grid ? grid : 1, sizeof(*dist));
		for (size_t i = 0; i < t->norder; i++) {
			struct config c;
			space_point(s, t->order[i], &c);
			double d = 0;
			for (size_t f = 0; f < s->nfields && have_h; f++) {
				size_t a_ = 0, b_ = 0;
				while (a_ < s->fields[f].nvalues && s->fields[f].values[a_] != c.val[f])
					a_++;
				while (b_ < s->fields[f].nvalues && s->fields[f].values[b_] != h.val[f])
					b_++;
				d += a_ > b_ ? (double)(a_ - b_) : (double)(b_ - a_);
			}
			dist[t->order[i]] = d;
			double e = a->estimate ? a->estimate(a->estimate_ctx, &c) : NAN;
			if (isfinite(e) && e >= 0) {
				nest++;
				lo = e < lo ? e : lo;
				hi = e > hi ? e : hi;
			}
			key[t->order[i]] = e;
		}
		size_t topk = t->k < t->norder ? t->k : t->norder;
		char why[200] = "";
		if (!tr)
			snprintf(why, sizeof(why), "no training data");
		else if (tr->error)
			snprintf(why, sizeof(why), "the training data is unusable: %s", tr->error);
		else
			snprintf(why, sizeof(why), "%zu usable trials of op '%s', %zu needed", nrows,
				 op, p + 1);
		if (a->estimate && nest == t->norder && t->norder > 0) {
			snprintf(t->note, sizeof(t->note), "model-topk: no fitted model (%s): the "
				 "backend's roofline estimate ranks the %zu valid points (%.4g to "
				 "%.4g ns); the top %zu benchmarked", why, t->norder, lo, hi, topk);
		} else {
			for (size_t i = 0; i < t->norder; i++) {
				key[t->order[i]] = dist[t->order[i]];
				dist[t->order[i]] = 0;
			}
			snprintf(t->note, sizeof(t->note), "model-topk: no model (%s; %s): the %zu "
				 "valid points nearest the heuristic's", why,
				 !a->estimate ? "the backend has no estimate"
				 : t->norder ? "the backend's estimate has no model for this cell"
					     : "no valid points", topk);
		}
	}
	sort_key = key;
	sort_key2 = dist;
	qsort(t->order, t->norder, sizeof(*t->order), by_key);
	sort_key = sort_key2 = NULL;
	free(key);
	free(dist);
	free(X);
	free(Y);
	return t;
}

static int model_next(struct tuner *t, struct config *c)
{
	if (t->next >= t->norder || t->next >= t->k)
		return 0;
	space_point(t->space, t->order[t->next++], c);
	return 1;
}

static void model_observe(struct tuner *t, const struct config *c, const struct trial_result *r)
{
	if (tuner_result_ok(r) && (!t->have_best || r->median_ns < t->best_ns)) {
		t->have_best = 1;
		t->best = *c;
		t->best_ns = r->median_ns;
	}
}

static int model_best(struct tuner *t, struct config *out)
{
	if (!t->have_best)
		return -1;
	*out = t->best;
	return 0;
}

static int model_note(const struct tuner *t, char *out, size_t size)
{
	snprintf(out, size, "%s", t->note);
	return t->fell_back;
}

static void model_free(struct tuner *t)
{
	free(t->order);
	free(t);
}

void tuner_train_release(struct tuner_train *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->rows[i].op);
		free(t->rows[i].shape);
		free(t->rows[i].config);
	}
	free(t->rows);
	for (size_t i = 0; i < t->nfiles; i++)
		free(t->files[i]);
	free(t->files);
	free(t->sha256);
	free(t->ntrials);
	free(t->error);
	memset(t, 0, sizeof(*t));
}

const struct tuner_ops tuner_model_topk = {
	.name = "model-topk",
	.flags = TUNER_COMPILES | TUNER_BENCHMARKS,
	.check_options = model_check_options,
	.alloc = model_alloc,
	.next = model_next,
	.observe = model_observe,
	.best = model_best,
	.free = model_free,
	.note = model_note,
};
