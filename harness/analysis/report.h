/* report.h: what `harness report` computes from an analysis (analysis.h): report_build()
 * runs every statistic (stats.h) once, and run_compare_build() the unpaired comparison of
 * two runs.  Writing them is the output layer's (harness/output/write.h, html.h): the
 * writers only format, and the markdown, JSON (docs/report-format.md) and CSV forms carry
 * the same numbers. */
#ifndef HARNESS_REPORT_H
#define HARNESS_REPORT_H

#include <stdint.h>

#include "harness/analysis/analysis.h"
#include "stats/stats.h"

/* How the per-cell verdicts of a family are adjusted for multiplicity (docs/report-format.md,
 * "Families"): Benjamini-Hochberg's false-discovery rate (the default: exploratory cells),
 * Benjamini-Yekutieli's (any dependence between cells) or Holm's family-wise error. */
enum rep_adjust { REP_ADJUST_BH = 0, REP_ADJUST_BY, REP_ADJUST_HOLM };
const char *rep_adjust_name(enum rep_adjust a);          /* "bh", "by", "holm" */
int rep_adjust_parse(const char *s, enum rep_adjust *a); /* 0, or -1: not one of those */
/* Adjust the n p-values p into adj by method a (stats_bh, stats_by, stats_holm). */
void rep_adjust_p(enum rep_adjust a, const double *p, size_t n, double *adj);

struct report_opts {
	const char *baseline;  /* NULL: the experiment's */
	double alpha;          /* 0.05; a sequential run's (sequential.h) stopping look's level
				  unless alpha_given */
	int alpha_given;       /* 1: alpha (and conf, alpha_scale) as set, whatever the run */
	double alpha_scale;    /* 1: hypotheses with an alpha of their own are tested at it
				  times this (a sequential look's share of the total) */
	double margin;         /* the declared practical margin; NAN: the experiment's, else none
				  (each cell is judged against its own noise floor) */
	enum stats_test test;  /* the deciding test: STATS_TEST_T */
	enum rep_adjust adjust;/* the per-cell families' adjustment: REP_ADJUST_BH */
	int family_workload;   /* 1: one family per workload; 0: one per run */
	double conf;           /* 0.95 */
	double power;          /* 0.8 */
	size_t nboot;          /* 10000 */
	uint64_t seed;         /* bootstrap seed, recorded in the report */
	double coverage_min;   /* 0.5: op cells covering less of the forward than this (the CI's
	                          upper end) make "low coverage" the explanation (compose.c) */
	const char *repo;      /* NULL; borrowed: where hypothesis files not committed at run
	                          start are looked up (hyp_set_load; verify, audit, report --repo) */
};
void report_opts_init(struct report_opts *o);

/* Per (mode, cell): the unit medians' summary. */
struct rep_summary {
	size_t n;                    /* ok units with this cell */
	struct stats_summary s;      /* of unit medians, ns */
	double spread;               /* IQR / median */
	double unit_se;              /* median over the units of their medians' relative
	                                standard errors (each from its own samples) */
	struct stats_vc vc;          /* where the unit medians' variance lives: within units
	                                (sampling) or between processes (stats.h) */
	struct stats_summary setup;  /* setup seconds */
};

/* One comparison, mode against reference (the baseline, or the mode an A/A copy repeats). */
struct rep_cmp {
	size_t mode, ref, cell;
	int ok;                      /* 0: could not compare (too few pairs); why in note */
	char note[96];
	struct stats_comparison c;   /* c.floor is the cell's noise floor, c.p_adj the p adjusted
				      * within the family */
	const char *family;          /* borrowed: "aa" (an A/A copy against its original, or
				      * against the baseline), "run", or the cell's workload
				      * (report_opts.family_workload) */
	size_t family_size;          /* comparisons in that family */
	int iqr_overlap;             /* the seed study's criterion: the IQRs of unit medians overlap */
	double spread_ratio;         /* spread(mode) / spread(ref) */
};

/* Per (workload or "all", mode): the aggregate against the baseline. */
struct rep_agg {
	char *scope;                 /* workload name, or "all" */
	size_t mode;
	size_t ncells;               /* op cells in the geometric mean */
	double geomean, lo, hi;      /* stats_geomean_t over the complete blocks (t CI); NAN
				      * when not computable (lo, hi: fewer than 2 blocks) */
	double p;                    /* its t test against 1, NAN with the CI */
	size_t nblocks;              /* complete blocks (every op cell of both modes) */
	double e2e_ratio;            /* the workload's e2e cell ratio, NAN when none */
	enum stats_verdict e2e_verdict;
	int has_e2e;
	size_t wins, losses, same, inconclusive; /* over all cells of the scope, by verdict */
	size_t pareto_ok, pareto_cells;          /* cells where not dominated by the baseline */
	double spread_ratio_median;              /* median over cells */
};

struct rep_drift {
	size_t mode;
	size_t n;
	double *order, *level;  /* n points (heap): a unit's run position and its level, the
	                           geometric mean over cells of its median / the mode's median */
	double rho, p;          /* Spearman's, over those points */
	int flagged;
};

struct rep_aa {
	size_t mode, of;
	size_t cells, false_positives;  /* FASTER/SLOWER verdicts between identical configurations */
	double noise_floor;             /* 95th percentile of |log ratio| over cells and blocks;
					   the margin's source (report_aa_floor) */
	double noise_floor_op;          /* the same over the op cells only; NAN: none counts */
	double noise_floor_e2e;         /* the same over the e2e cells only (kind "e2e", not
					   "e2e-part"); NAN: none counts */
	double noise_floor_e2e_nhb;     /* the same over the e2e cells that are not host-bound
					   (report_host_bound_ratio below REP_HOST_BOUND, or no
					   graph cell to judge by): the forwards that time the
					   device's work; NAN: none counts */
};

/* The device as a stratum (report-devices.c), only for runs whose units ran on two or more
 * devices (harness run --jobs / --gpus, merged shards; analysis.h's devices): per device,
 * over the blocks that ran whole on it, the A/A noise floor of each A/A pair and the drift
 * of each mode, and per cell the baseline's level (analysis_device_level, as the audit's
 * devices check computes it).  Pairs never cross devices, so the verdicts stand either way;
 * a level difference beyond the noise floor says the devices are not alike. */
struct rep_device {
	const char *name;          /* borrowed from the analysis */
	size_t nblocks;            /* blocks that ran whole on it */
	double *aa_floor;          /* per A/A pair (r->aa[i]): its noise floor here, NAN: none */
	struct rep_drift *drift;   /* per mode (r->drift's definition, its points on this device) */
	struct an_level *level;    /* per cell: the baseline's level here */
};
struct rep_devdiff {
	size_t cell, d1, d2;       /* the baseline's level in cell differs between devices d1, d2 */
	double diff, two_se;       /* |difference of log levels| and twice its standard error */
};

/* Where a mode's units chose differently (report-choices.c): one row per config that the
 * units of mode (with its A/A copies, which run the same configuration) chose in cell, when
 * they chose two configs or more there; rows of a (mode, cell) fastest first. */
struct rep_choice {
	size_t mode, cell;
	int with_copies;           /* the mode has A/A copies, whose units count too */
	const char *config;        /* borrowed: the analysis's */
	size_t units;              /* ok cold units that chose it and have a unit median */
	int64_t *block;            /* per such unit: its block (heap, units long) */
	size_t *unit_mode;         /* per such unit: its mode, the mode or a copy (heap) */
	double median_ns;          /* median of their unit medians */
	double ratio;              /* median_ns / the fastest config's median_ns */
	const char *detail;        /* borrowed: the first unit's per-kernel detail (analysis.h's
				      detail), NULL when it recorded none */
	char *differs;             /* heap: the kernels whose detail differs from the fastest
				      config's, "name: this (fastest: that); ..."; NULL for the
				      fastest row and where either row has no detail */
};

/* How much of the plan the file records (report-progress.c), when some planned unit is
 * not recorded (analysis.h's planned); all zero otherwise. */
struct rep_progress_block {
	int64_t block;
	size_t cold, cold_planned;  /* cold units recorded, planned */
	size_t warm, warm_planned;  /* warm probes recorded, planned */
};
struct rep_progress_group {         /* a (mode, workload) of the plan's cold units */
	const char *mode, *workload;  /* borrowed: the analysis's; workload "" for every one */
	size_t rank;                  /* the mode's place among the analysis's modes (sort key) */
	size_t cold, cold_planned;
	int64_t *blocks;              /* the blocks of its recorded units, in plan order (heap) */
};
struct rep_progress {
	size_t planned, recorded;     /* units of the plan, of them recorded */
	double remaining_s;           /* the units not recorded, by the recorded lengths: per
				       * unit the median wall time of the recorded units of its
				       * mode, workload and kind (cold or warm), else of its mode
				       * and kind; a sum of one slot's time */
	size_t unknown;               /* units not recorded with neither to go by */
	size_t complete;              /* blocks with every planned unit recorded */
	struct rep_progress_block *blocks; /* ascending */
	size_t nblocks;
	struct rep_progress_group *groups; /* by mode (the analysis's order), then workload */
	size_t ngroups;
};

/* Per (workload, mode): does the per-op difference add up to the e2e one (compose.c)?
 * Per block b, with B the baseline, m the mode, E the e2e unit median, o_c the op cell c's
 * unit median and n_c its count (occurrences in one forward):
 *   predicted   = (E_B + sum_c n_c (o_c,m - o_c,B)) / E_B   (time outside the op cells fixed)
 *   measured    = E_m / E_B
 *   interaction = measured / predicted
 *   coverage    = sum_c n_c o_c,B / E_B (baseline), sum_c n_c o_c,m / E_m (the mode)
 * Each statistic is the median over the blocks; CIs resample whole blocks (percentile). */
enum rep_compose { COMPOSE_UNDECIDED = 0, COMPOSE_YES, COMPOSE_NO };
const char *rep_compose_name(enum rep_compose v); /* "undecided", "composes", "does not compose" */

struct rep_est {
	double est, lo, hi;             /* median over blocks and its bootstrap CI; NAN: none */
};

struct rep_comp {
	char *workload;
	size_t mode, e2e;               /* e2e: the workload's e2e cell */
	size_t nops;                    /* op cells of the workload */
	size_t n;                       /* blocks with every cell of both modes */
	int ok;                         /* 0: not computed (note says why) */
	char note[96];
	double geomean;                 /* the unweighted op-cell geomean (rep_agg), for contrast */
	struct rep_est pred, meas, inter, cov_base, cov_mode;
	double margin;                  /* the interaction's: the declared margin, else the e2e
					   cell's noise floor, else 1% */
	enum rep_compose verdict;       /* interaction against that margin */
};

struct rep_tau {
	char *workload;
	size_t nmodes;
	double tau, p;                  /* per-op ranking (unweighted geomean) vs e2e ranking */
	size_t nmodes_pred;
	double tau_pred, p_pred;        /* predicted (count x time) vs measured e2e ranking */
	const char *explanation;        /* "weighting", "low coverage", "real interaction",
	                                   "undecided" (static), NULL when nothing to explain */
	char *why;                      /* one line of evidence for it (heap), or NULL */
};

/* Where a cell's noise floor comes from (report.c, stats_noise_floor). */
enum rep_floor_src { REP_FLOOR_NONE = 0, REP_FLOOR_AA, REP_FLOOR_PAIRS };
const char *rep_floor_src_name(enum rep_floor_src s); /* "none", "aa", "comparisons" */

struct report {
	const struct analysis *a;       /* borrowed */
	struct report_opts o;           /* as used: a sequential run's level in alpha, conf and
					   alpha_scale unless alpha_given */
	size_t baseline;
	double margin;                  /* the declared practical margin, NAN: none */
	const char *margin_source;      /* "option", "experiment", "none" */
	double *floor;                  /* per cell: its noise floor (stats_noise_floor), NAN:
					   no estimate (fewer than 3 pairs or units) */
	double *floor_s;                /* per cell: the standard deviation of one pair's log
					   ratio it comes from (before the clamp), NAN: none */
	enum rep_floor_src *floor_src;  /* per cell */
	struct rep_summary *sum;        /* [mode * ncells + cell] */
	struct rep_cmp *cmp;            /* vs baseline, adjusted within their families */
	size_t ncmp;
	struct rep_cmp *aacmp;          /* A/A copies vs their originals */
	size_t naacmp;
	struct rep_agg *agg;
	size_t nagg;
	int *front;                     /* [mode * ncells + cell]: on the cell's Pareto front */
	struct rep_drift *drift;
	size_t ndrift;
	struct rep_aa *aa;
	size_t naa;
	struct rep_device *dev;         /* per device when the run used two or more, else NULL */
	size_t ndev;
	size_t split_blocks;            /* blocks whose units ran on more than one device */
	struct rep_devdiff *devdiff;    /* level differences beyond the noise floor */
	size_t ndevdiff;
	struct rep_comp *comp;          /* every (workload with op and e2e cells, mode) */
	size_t ncomp;
	struct rep_tau *tau;
	size_t ntau;
	struct rep_choice *choices;     /* where a mode's units chose differently */
	size_t nchoices;
	struct rep_progress progress;   /* how much of the plan is recorded (planned 0: all) */
	char **warnings;
	size_t nwarnings;
};

/* Where a row is, so that what is done per cell or per workload finds its rows directly:
 * r->cmp is cell-major, one row per mode but the baseline (report_cmp_index: cell c, mode
 * m); r->agg is every workload's aggregates in the order of a->workloads, then "all"'s
 * (report_agg_index: w is an index into a->workloads, a->nworkloads for "all"), one per
 * mode but the baseline.  m must not be the baseline. */
static inline size_t report_cmp_index(const struct report *r, size_t c, size_t m)
{
	return c * (r->a->nmodes - 1) + (m < r->baseline ? m : m - 1);
}
static inline size_t report_agg_index(const struct report *r, size_t w, size_t m)
{
	return w * (r->a->nmodes - 1) + (m < r->baseline ? m : m - 1);
}

/* 1 when n blocks carry no CI for r's test: fewer than 2 for the t test, fewer than a
 * distribution-free CI at the report's level needs for the signed-rank test
 * (stats_ci_short: 6 at 95%). */
int report_ci_short(const struct report *r, size_t n);

/* ---- what the figures draw (report-figs.c, docs/plots.md) ----------------------------
 * The output layer computes nothing: what a figure shows beyond the tables is chosen here. */

/* The CI of comparison x at the report's level, as the figures may draw it: 1 with *lo,
 * *hi when x has one; 0 with both NAN when the report withholds it: not compared, one
 * block (t: no interval), or too few blocks for a distribution-free CI at the level
 * (ci_short: the signed-rank test's [min, max] then covers less than the level says). */
int report_cmp_ci(const struct rep_cmp *x, double *lo, double *hi);
/* 1 when the default forest plot shows x: compared, and decided (FASTER, SLOWER, SAME) or
 * in an e2e cell (kind "e2e"). */
int report_forest_shown(const struct report *r, const struct rep_cmp *x);
/* The forest plot's rows: indices into r->cmp of the comparisons made (all: every one;
 * else those report_forest_shown), grouped by workload (in the order of each workload's
 * first cell) and sorted by ratio within a group, into rows (r->ncmp long, the
 * caller's); returns how many. */
size_t report_forest_rows(const struct report *r, int all, size_t *rows);
/* The Pareto front of exactly what the Pareto figure plots, cell c's median setup time (x)
 * against its median latency (y), both smaller better: on[m] (nmodes long, the caller's) 1
 * when mode m has units there and no other mode is at most as large on both and smaller on
 * one.  r->front is the report's front over three objectives with tolerances (latency
 * needing a significant difference, spread, setup); a mode on it may be dominated here. */
void report_front2d(const struct report *r, size_t c, int *on);

/* Append a warning (formatted) to r->warnings: the report's own, and what a caller adds
 * (harness report adds the audit's findings, cmd-report.c). */
void report_warn(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The blocks an undecided comparison x of r needs (report-progress.c): the fewer of those
 * that tell its observed effect from none and those that place it inside its floor or the
 * margin (c.blocks_needed); NAN when neither can be said.  What harness run suggests. */
double report_blocks_to_decide(const struct report *r, const struct rep_cmp *x);

/* Compute everything; reports and returns -1 (unknown baseline, bad options). */
int report_build(const struct analysis *a, const struct report_opts *o, struct report **out);
void report_free(struct report *r);

/* A forward launched op by op waits on the host wherever its launches and library calls
 * outlast the GPU's work; one graph of the same forward does not (compose.c).  For e2e cell
 * c not launched as a graph, in a workload that has a graph e2e cell (shape launch=graph):
 * the median over blocks of c's unit median over the graph cell's under r's baseline, and
 * the graph cell in *graph, the blocks behind it in *nblocks (either NULL: not wanted).  NAN (the
 * outputs untouched) for any other cell, or without a block that has both.  REP_HOST_BOUND
 * or more: c times the host as much as the GPU. */
#define REP_HOST_BOUND 1.25
double report_host_bound_ratio(const struct report *r, size_t c, size_t *graph,
			       size_t *nblocks);

/* ---- `harness compare`: the same cells and modes across two runs, unpaired ---------- */
struct cmp_row {
	char *cell, *mode;
	size_t na, nb;             /* ok units in run A and run B */
	double med_a, med_b;       /* median of unit medians, ns */
	int ok;
	char note[96];
	struct stats_comparison c; /* B against A: ratio = B / A */
};
struct run_compare {
	const struct analysis *a, *b;
	struct report_opts o;
	double margin;
	struct cmp_row *rows;
	size_t nrows;
	size_t only_a, only_b;     /* (mode, cell) pairs in one run only */
};
int run_compare_build(const struct analysis *a, const struct analysis *b,
		      const struct report_opts *o, struct run_compare **out);
void run_compare_free(struct run_compare *rc);

#endif
