/* hyp-int.h: shared by hyp-eval.c (which hypotheses apply, their targets built, verdicts
 * decided) and hyp-targets.c (the targets, criteria and aggregates themselves).  Private to
 * harness/analysis/hyp-*.c. */
#ifndef HARNESS_HYP_INT_H
#define HARNESS_HYP_INT_H

#include <stddef.h>

#include <gsl/gsl_rng.h>

#include "harness/analysis/hyp.h"
#include "harness/analysis/report.h"
#include "harness/base/util.h"

/* A new target of kind appended to res->t, every statistic NaN, its verdict inconclusive;
 * owned by res. */
struct hyp_target *hyp_target_new(struct hyp_result *res, enum hyp_target_kind kind);
/* Cell c of mode m in report r as a target of res. */
void hyp_target_cell(struct hyp_result *res, const struct report *r, size_t m, size_t c);
/* The geometric mean of mode m's ratios over cells: the report's aggregate when cells are
 * exactly the op cells of one of its scopes, else stats_boot_geomean over the blocks (rng). */
void hyp_target_geomean(struct hyp_result *res, const struct report *r, size_t m,
			const size_t *cells, size_t ncells, gsl_rng *rng);
/* The report's composition of mode m in each workload in h's scope: one target each. */
void hyp_target_comp(struct hyp_result *res, const struct report *r,
		     const struct hypothesis *h, size_t m);
/* 1 when rule x over the criteria crit holds on t (a criterion on a statistic that is not
 * available does not hold). */
int hyp_expr_holds(const struct hyp_expr *x, const struct hyp_criterion *crit,
		   const struct hyp_target *t);
/* The results of n targets combined by aggregate g (k: at_least's count). */
enum hyp_verdict hyp_combine(const struct hyp_target *t, size_t n, enum hyp_aggregate g,
			     size_t k);
/* t's numbers (estimate, CI, p, ...) appended to sb, as a verdict's evidence. */
void hyp_target_numbers(struct sbuf *sb, const struct hyp_target *t);

#endif
