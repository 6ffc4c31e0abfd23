/* replay-cell.c: one recorded op cell as replay re-runs tuners on it (replay-int.h): its
 * space rebuilt from /space_values, its valid points listed (the grid less /space_invalid's
 * exclusions, or an imported cache's measured configurations, or an exhaustive unit's where
 * the grid was too large to record), each with its trial. */
#include "config.h"
#include "harness/analysis/replay-int.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/util.h"
#include "kernels/backend.h"
#include "kernels/sample.h"

static void rcell_heuristic(const struct space *s, struct config *c)
{
	const struct rcell *rc = s->ctx;
	*c = rc->start;
}

void rcell_release(struct rcell *rc)
{
	for (size_t f = 0; f < SPACE_MAX_FIELDS; f++) {
		free(rc->names[f]);
		free(rc->vals[f]);
		for (size_t k = 0; rc->labels[f] && k < rc->s.fields[f].nvalues; k++)
			free(rc->labels[f][k]);
		free(rc->labels[f]);
	}
	free(rc->points);
	free(rc->pts);
	free(rc->ok);
	free(rc->curve);
	memset(rc, 0, sizeof(*rc));
}

/* Grid order (values ascending, last field fastest): lexicographic over every field, the
 * unused ones zero. */
static int config_cmp(const struct config *a, const struct config *b)
{
	for (size_t f = 0; f < SPACE_MAX_FIELDS; f++)
		if (a->val[f] != b->val[f])
			return a->val[f] < b->val[f] ? -1 : 1;
	return 0;
}

/* A measured config and the trial that measured it, for sorting into grid order. */
struct ctrial {
	struct config c;
	size_t trial;
};

static int ctrial_cmp(const void *x, const void *y)
{
	const struct ctrial *a = x, *b = y;
	int r = config_cmp(&a->c, &b->c);
	return r ? r : (a->trial > b->trial) - (a->trial < b->trial);
}

static int cmp_d(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

/* Field steps from the backend's shape-free space for op, when its fields are these. */
static void steps_from_backends(struct space *s, const char *op)
{
	for (size_t b = 0; backend_registry[b].name; b++) {
		const struct backend_ops *ops = backend_registry[b].ops;
		struct space ref;
		if (!ops || !ops->op_space || ops->op_space(op, &ref) || ref.nfields != s->nfields)
			continue;
		int same = 1;
		for (size_t f = 0; f < s->nfields; f++)
			same &= !strcmp(ref.fields[f].name, s->fields[f].name);
		if (!same)
			continue;
		for (size_t f = 0; f < s->nfields; f++)
			s->fields[f].step = ref.fields[f].step;
		return;
	}
}

static int leave(char **why, int *warn, int w, char *text)
{
	*why = text;
	*warn = w;
	return 1;
}

/* The space's fields from /space_values: 0, or 1 with *why (over a limit, malformed). */
static int build_fields(const struct rsource *src, int64_t c, struct rcell *rc, char **why,
			int *warn)
{
	const struct rec_spaces *sp = src->sp;
	size_t count[SPACE_MAX_FIELDS] = { 0 };
	for (size_t vi = 0; vi < sp->nvalues; vi++) {
		const struct rec_space_value *v = &sp->values[vi];
		if (sp->value_unit[vi] != src->unit || v->cell != c || v->field < 0)
			continue;
		if (v->field >= SPACE_MAX_FIELDS)
			return leave(why, warn, 1, xasprintf("its space has more than the %d fields "
							     "replay can hold", SPACE_MAX_FIELDS));
		if (++count[v->field] > SPACE_MAX_VALUES)
			return leave(why, warn, 1, xasprintf("its field '%s' has more than the %d "
							     "values replay can hold", v->name,
							     SPACE_MAX_VALUES));
		if ((size_t)v->field + 1 > rc->s.nfields)
			rc->s.nfields = (size_t)v->field + 1;
	}
	for (size_t f = 0; f < rc->s.nfields; f++) {
		rc->vals[f] = xcalloc(count[f] + 1, sizeof(int64_t));
		count[f] = 0;
	}
	for (size_t vi = 0; vi < sp->nvalues; vi++) {
		const struct rec_space_value *v = &sp->values[vi];
		if (sp->value_unit[vi] != src->unit || v->cell != c || v->field < 0)
			continue;
		size_t f = (size_t)v->field;
		struct space_field *fd = &rc->s.fields[f];
		if (!rc->names[f])
			rc->names[f] = xstrdup(v->name);
		fd->name = rc->names[f];
		if (v->kind == SPACE_FLOAT || v->kind == SPACE_STRING) {
			if (!rc->labels[f])
				rc->labels[f] = xcalloc(SPACE_MAX_VALUES, sizeof(char *));
			rc->labels[f][count[f]] = xstrdup(v->label);
			fd->kind = (enum space_kind)v->kind;
		}
		rc->vals[f][count[f]++] = v->value;
		fd->values = rc->vals[f];
		fd->nvalues = count[f];
		fd->labels = (const char *const *)rc->labels[f];
	}
	for (size_t f = 0; f < rc->s.nfields; f++) {
		const struct space_field *fd = &rc->s.fields[f];
		if (!fd->nvalues)
			return leave(why, warn, 1, xasprintf("its field %zu has no recorded values", f));
		if ((fd->labels != NULL) != (fd->kind != SPACE_INT) ||
		    (fd->labels && count[f] != fd->nvalues))
			return leave(why, warn, 1, xasprintf("its field '%s' mixes kinds", fd->name));
		for (size_t k = 1; k < fd->nvalues; k++)
			if (fd->values[k] <= fd->values[k - 1])
				return leave(why, warn, 1, xasprintf("its field '%s' has values out of "
								     "order", fd->name));
	}
	return 0;
}

/* The valid points: an imported cache's measured configs, or the grid less its exclusions.
 * 0, or 1 with *why. */
static int build_points(const struct rsource *src, const struct rec_space *row, int listed,
			struct rcell *rc, char **why, int *warn)
{
	const struct rec_spaces *sp = src->sp;
	if (listed) {
		struct ctrial *ct = xcalloc(src->ntrials + 1, sizeof(*ct));
		size_t n = 0;
		for (size_t k = 0; k < src->ntrials; k++) {
			char *cause = NULL;
			if (src->tunit[k] != src->unit || src->trials[k].cell != row->cell)
				continue;
			if (config_parse(&rc->s, src->trials[k].config, &ct[n].c, &cause)) {
				free(cause);
				continue; /* vendor points: not part of the grid searched */
			}
			ct[n++].trial = k;
		}
		qsort(ct, n, sizeof(*ct), ctrial_cmp);
		rc->points = xcalloc(n + 1, sizeof(*rc->points));
		for (size_t k = 0; k < n; k++)
			if (!rc->npoints || config_cmp(&rc->points[rc->npoints - 1], &ct[k].c))
				rc->points[rc->npoints++] = ct[k].c;
		free(ct);
		return 0;
	}
	size_t grid = space_grid_size(&rc->s);
	if (row->grid < 0 || grid != (size_t)row->grid)
		return leave(why, warn, 1, xasprintf("its recorded values make %zu points, its "
						     "recorded grid %" PRId64, grid, row->grid));
	unsigned char *invalid = xcalloc(grid + 1, 1);
	for (size_t k = 0; k < sp->ninvalid; k++) {
		const struct rec_space_invalid *x = &sp->invalid[k];
		if (sp->invalid_unit[k] != src->unit || x->cell != row->cell || x->point < 0)
			continue;
		for (int64_t p = x->point; p < x->point + (x->count > 0 ? x->count : 1) &&
					   (size_t)p < grid; p++)
			invalid[p] = 1;
	}
	rc->points = xcalloc(grid + 1, sizeof(*rc->points));
	for (size_t p = 0; p < grid; p++)
		if (!invalid[p] && !space_grid_point(&rc->s, p, &rc->points[rc->npoints]))
			rc->npoints++;
	free(invalid);
	return 0;
}

/* Each valid point's trial (the last one when a config was measured twice), and the ok
 * medians. */
static void build_trials(const struct rsource *src, int64_t c, struct rcell *rc)
{
	rc->pts = xcalloc(rc->npoints + 1, sizeof(*rc->pts));
	for (size_t k = 0; k < src->ntrials; k++) {
		struct config cf;
		char *cause = NULL;
		size_t idx;
		if (src->tunit[k] != src->unit || src->trials[k].cell != c)
			continue;
		if (config_parse(&rc->s, src->trials[k].config, &cf, &cause) ||
		    space_point_find(&rc->s, &cf, &idx)) {
			free(cause);
			continue; /* vendor points, points the record excludes */
		}
		const struct rec_trial *tr = &src->trials[k];
		struct rpoint *p = &rc->pts[idx];
		p->measured = 1;
		p->status = !strcmp(tr->status, "ok") ? TRIAL_OK
			    : !strcmp(tr->status, "compile-error") ? TRIAL_COMPILE_ERROR
			    : !strcmp(tr->status, "incorrect") ? TRIAL_INCORRECT
								  : TRIAL_FAILED;
		p->ns = (int64_t *)src->ts_ns + src->ts_off[k];
		p->n = src->ts_cnt[k];
		p->median = NAN;
		if (p->status == TRIAL_OK && p->n) {
			p->median = rc->objective == REPLAY_SOURCE && tr->source_ns > 0
					    ? tr->source_ns
					    : rcell_objective(rc->objective == REPLAY_SOURCE
								      ? REPLAY_MEDIAN
								      : rc->objective,
							      p->ns, p->n);
		} else if (p->status == TRIAL_OK) {
			p->status = TRIAL_FAILED; /* ok without samples: nothing to score */
		}
		p->compile_ns = tr->compile_ns;
		p->bench_ns = tr->bench_ns;
		/* the methodology's time of a point: every part known, a missing one 0 */
		const int64_t part[] = { tr->compile_ns, tr->bench_ns, tr->verify_ns,
					 tr->overhead_ns };
		p->time_s = NAN;
		for (size_t j = 0; j < ARRAY_SIZE(part); j++)
			if (part[j] >= 0)
				p->time_s = (isfinite(p->time_s) ? p->time_s : 0) +
					    (double)part[j] / 1e9;
	}
	rc->ok = xcalloc(rc->npoints + 1, sizeof(*rc->ok));
	for (size_t k = 0; k < rc->npoints; k++)
		if (rc->pts[k].measured && rc->pts[k].status == TRIAL_OK)
			rc->ok[rc->nok++] = rc->pts[k].median;
	qsort(rc->ok, rc->nok, sizeof(*rc->ok), cmp_d);
}

double rcell_objective(enum replay_objective k, const int64_t *ns, size_t n)
{
	if (!n)
		return NAN;
	if (k == REPLAY_MEDIAN) {
		struct sample *s = xcalloc(n, sizeof(*s));
		for (size_t j = 0; j < n; j++)
			s[j].ns = ns[j];
		double m = tune_median_ns(s, n);
		free(s);
		return m;
	}
	double v = k == REPLAY_MIN ? (double)ns[0] : 0;
	for (size_t j = 0; j < n; j++)
		v = k == REPLAY_MIN ? fmin(v, (double)ns[j]) : v + (double)ns[j] / (double)n;
	return v;
}

int rcell_build(const struct rsource *src, size_t si, const char *start,
		enum replay_objective objective, struct rcell *rc, char **why, int *warn)
{
	const struct rec_space *row = &src->sp->spaces[si];
	const struct rec_cell *cell = &src->cells[row->cell];
	int64_t c = row->cell;
	int r;

	memset(rc, 0, sizeof(*rc));
	rc->s.op = cell->op;
	rc->s.ctx = rc;
	rc->s.heuristic = rcell_heuristic;
	rc->objective = objective;
	/* a grid too large for its outcomes to be recorded: its valid points are the trials'
	 * configs where the source walked them all (an exhaustive unit), else unknown */
	const int over = rspace_unrecorded(row);
	const int listed = row->listed || (over && src->walked_all);
	if (over && !listed)
		return leave(why, warn, 1, xasprintf("its grid of %" PRId64 " points is over the %d "
						     "whose outcomes a results file records, and "
						     "its unit did not walk them all",
						     row->grid, REC_MAX_POINTS));
	if ((r = build_fields(src, c, rc, why, warn)) != 0)
		return r;
	steps_from_backends(&rc->s, rc->s.op);
	if ((r = build_points(src, row, listed, rc, why, warn)) != 0)
		return r;
	rc->s.listed = rc->points;
	rc->s.nlisted = rc->npoints;
	build_trials(src, c, rc);

	/* the start: the heuristic tuner's recorded choice (default), first, random, a config */
	for (size_t k = 0; k < src->nchoices && !rc->have_start && !strcmp(start, "heuristic");
	     k++) {
		char *cause = NULL;
		if (src->choices[k].cell == c && !strcmp(src->choices[k].reason, "rule") &&
		    !config_parse(&rc->s, src->choices[k].config, &rc->start, &cause))
			rc->have_start = 1;
		free(cause);
	}
	if (!strcmp(start, "random")) {
		rc->random_start = rc->have_start = 1;
	} else if (strcmp(start, "heuristic") && strcmp(start, "first")) {
		char *cause = NULL;
		if (config_parse(&rc->s, start, &rc->start, &cause)) {
			error("--start '%s': op cell '%s': %s", start, cell->name, cause);
			free(cause);
			return -1;
		}
		rc->have_start = 1;
	}
	if (!rc->have_start)
		rc->s.heuristic = NULL; /* the first valid point (tuner_start_point) */
	if (!rc->nok)
		return leave(why, warn, 0, xstrdup("the source recorded no ok trial of it"));
	rc->worst = rc->ok[rc->nok - 1];
	return 0;
}
