/* report-progress.c: how much of the plan a results file records (report.h, struct
 * rep_progress).  A run stopped by --max-time, a crash or the end of a lease, or one shard
 * of a plan, holds part of its design: its verdicts use the blocks that have both sides of
 * a comparison, and the reader must see which units are still to run. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/analysis/report-int.h"
#include "harness/base/util.h"
#include "stats/stats.h"

/* The median wall time in seconds of the recorded units that ran with u's mode and kind
 * (warm or cold), and its workload unless any_workload; NaN when there are none.  x and w
 * hold a->nplanned doubles. */
static double median_like(const struct analysis *a, const struct an_planned *u,
			  int any_workload, double *x, double *w)
{
	size_t n = 0;
	for (size_t i = 0; i < a->nplanned; i++) {
		const struct an_planned *v = &a->planned[i];
		if (v->recorded && v->wall_ns > 0 && v->warm == u->warm &&
		    !strcmp(v->mode, u->mode) && (any_workload || !strcmp(v->workload, u->workload)))
			x[n++] = (double)v->wall_ns / 1e9;
	}
	return n ? stats_median(x, 1, n, w) : NAN;
}

/* The row of block b in r->progress.blocks (appended when new). */
static struct rep_progress_block *block_row(struct rep_progress *p, int64_t b)
{
	for (size_t k = 0; k < p->nblocks; k++)
		if (p->blocks[k].block == b)
			return &p->blocks[k];
	p->blocks = xrealloc(p->blocks, (p->nblocks + 1) * sizeof(*p->blocks));
	p->blocks[p->nblocks] = (struct rep_progress_block){ .block = b };
	return &p->blocks[p->nblocks++];
}

/* The row of (mode, workload) in r->progress.groups (appended when new). */
static struct rep_progress_group *group_row(const struct analysis *a, struct rep_progress *p,
					    const struct an_planned *u)
{
	for (size_t k = 0; k < p->ngroups; k++)
		if (!strcmp(p->groups[k].mode, u->mode) && !strcmp(p->groups[k].workload, u->workload))
			return &p->groups[k];
	p->groups = xrealloc(p->groups, (p->ngroups + 1) * sizeof(*p->groups));
	long m = analysis_mode(a, u->mode);
	p->groups[p->ngroups] = (struct rep_progress_group){
		.mode = u->mode, .workload = u->workload, .rank = m < 0 ? a->nmodes : (size_t)m
	};
	return &p->groups[p->ngroups++];
}

static int block_cmp(const void *x, const void *y)
{
	const struct rep_progress_block *a = x, *b = y;
	return (a->block > b->block) - (a->block < b->block);
}

static int group_cmp(const void *x, const void *y)
{
	const struct rep_progress_group *a = x, *b = y;
	if (a->rank != b->rank)
		return (a->rank > b->rank) - (a->rank < b->rank);
	return strcmp(a->workload, b->workload);
}

void report_progress(struct report *r)
{
	const struct analysis *a = r->a;
	struct rep_progress *p = &r->progress;
	if (!a->planned)
		return;
	for (size_t i = 0; i < a->nplanned; i++) {
		const struct an_planned *u = &a->planned[i];
		struct rep_progress_block *b = block_row(p, u->block);
		p->planned++;
		p->recorded += u->recorded;
		if (u->warm) {
			b->warm_planned++;
			b->warm += u->recorded;
			continue;
		}
		b->cold_planned++;
		b->cold += u->recorded;
		struct rep_progress_group *g = group_row(a, p, u);
		g->cold_planned++;
		if (u->recorded) {
			g->blocks = xrealloc(g->blocks, (g->cold + 1) * sizeof(*g->blocks));
			g->blocks[g->cold++] = u->block;
		}
	}
	/* what the rest takes, by the recorded lengths (a planning figure, not a bound: the
	 * scheduler's --max-time judges by the longest, this by the median) */
	double *x = xmalloc((a->nplanned + 1) * sizeof(*x)), *w = xmalloc((a->nplanned + 1) * sizeof(*w));
	for (size_t i = 0; i < a->nplanned; i++) {
		const struct an_planned *u = &a->planned[i];
		if (u->recorded)
			continue;
		double s = median_like(a, u, 0, x, w);
		if (isnan(s))
			s = median_like(a, u, 1, x, w);
		if (isnan(s))
			p->unknown++;
		else
			p->remaining_s += s;
	}
	free(w);
	free(x);
	qsort(p->blocks, p->nblocks, sizeof(*p->blocks), block_cmp);
	qsort(p->groups, p->ngroups, sizeof(*p->groups), group_cmp);
	for (size_t k = 0; k < p->nblocks; k++)
		p->complete += p->blocks[k].cold == p->blocks[k].cold_planned &&
			       p->blocks[k].warm == p->blocks[k].warm_planned;
}

void report_progress_free(struct report *r)
{
	for (size_t k = 0; k < r->progress.ngroups; k++)
		free(r->progress.groups[k].blocks);
	free(r->progress.groups);
	free(r->progress.blocks);
}

/* The blocks an undecided comparison needs, at the report's alpha and power and its own
 * spread (sigma_log): to tell its observed effect from none (FASTER or SLOWER), or, when
 * that is smaller than the cell's floor or the margin, to place it inside them (SAME: the
 * comparison's blocks_needed); the fewer of the two.  NAN when neither can be said. */
double report_blocks_to_decide(const struct report *r, const struct rep_cmp *x)
{
	const struct stats_comparison *c = &x->c;
	double effect = isfinite(c->ratio) && c->ratio > 0 ? expm1(fabs(log(c->ratio))) : NAN;
	double diff = effect > 0 ? stats_blocks_needed(effect, c->sigma_log, r->o.alpha,
						       r->o.power, c->test) : NAN;
	double same = c->blocks_needed;
	if (isnan(diff))
		return same;
	return isnan(same) ? diff : fmin(diff, same);
}
