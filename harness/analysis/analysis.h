/* analysis.h: a results file reduced to what the statistics need.  Each ok cold unit's
 * samples of a cell reduce to the unit's median (the unit is the replicate); the result is
 * a mode x cell x block array of unit medians, plus setup times and run positions, with
 * failed units counted by status and warm probes set aside.  Samples are read one unit at a
 * time, so memory depends on the number of units and cells, not on the sample count. */
#ifndef HARNESS_ANALYSIS_H
#define HARNESS_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "harness/record/recorder.h"
#include "stats/stats.h"

struct an_cell {
	char *name;
	char *kind;      /* "op", "e2e" or "e2e-part" */
	char *workload;
	char *shape;     /* /cells/shape ("launch=graph" in the CUDA backend's graph forward) */
	int64_t count;   /* occurrences of the op in one forward of its workload (/cells/count) */
};

struct an_status {
	char *status;    /* a unit status other than ok */
	size_t *count;   /* per mode */
};

/* One part of an e2e forward's time that the backend itemised in its unit info
 * ("e2e_part.CELL.PART_ns=N" lines; kernels/cpu/models.c): per mode the median over the
 * mode's ok cold units, NAN where none reported it. */
struct an_part {
	char *cell;      /* the e2e cell's name */
	char *part;      /* "op_conv2d", "residual_add", "fc_bias", "forward", ... */
	double *ns;      /* per mode */
};

/* A unit of the run's plan and whether the file records it. */
struct an_planned {
	char *mode, *workload;   /* heap; workload "" for a unit of every workload of its mode */
	int64_t block;
	int warm;
	int recorded;
	int64_t wall_ns;         /* a recorded unit that ran: its wall time; else 0 */
};

struct analysis {
	char *path;
	struct rec_meta meta;
	char **modes;            /* experiment order (else first appearance) */
	char **aa_of;            /* per mode: the mode it is an A/A copy of, or NULL */
	char **measure;          /* per mode: its [modes.measure] as text (heap), or NULL: it
				    measures by the run's [measure] */
	char ***only;            /* per mode: the only workloads the recorded experiment's
				    `workloads` lets it run (a NULL-terminated heap vector), or
				    NULL: every workload (analysis_runs) */
	size_t nmodes;
	size_t baseline;         /* index into modes */
	double margin;           /* the experiment's margin, NAN when it set none */
	int paired;              /* 1: units of one block are paired (every run; imports with a
	                            'block' column); 0: no pairing (imports by 'repeat') */
	struct an_cell *cells;
	size_t ncells;
	/* The workloads of the cells (analysis_index_workloads), so that what is done per
	 * workload costs time in its own cells, not in every cell of the run: */
	const char **workloads;  /* distinct names in order of first appearance (borrowed
				    from cells) */
	size_t nworkloads;
	size_t *cell_workload;   /* per cell: index into workloads */
	size_t *workload_first;  /* nworkloads + 1: the cells of workload w are
				    workload_cells[workload_first[w] .. workload_first[w + 1]) */
	size_t *workload_cells;  /* ascending within each workload */
	size_t *workload_e2e;    /* per workload: analysis_workload_e2e's cell */
	size_t *workload_byname; /* workload indices in strcmp order (analysis_workload) */
	int64_t *blocks;         /* distinct blocks, ascending */
	size_t nblocks;
	double *med;             /* unit medians (ns): [(mode * ncells + cell) * nblocks + block], NAN when missing */
	double *rel_se;          /* each unit median's relative standard error from its own
				    samples (stats_median_rel_se), indexed as med, NAN when missing */
	char **choice;           /* the config each ok cold unit chose in each of its cells
				    (/choices; its last, were there several), indexed as med:
				    heap strings, NULL where none was recorded; the array NULL
				    when no unit recorded one (imported rows do not count) */
	char **detail;           /* each choice's per-kernel detail, indexed as choice: the
				    unit's info line "runtime.<cell>" ("kernel=config;..." as
				    docs/record-protocol.md says), heap, NULL where none (the
				    array NULL with choice) */
	double *setup;           /* setup seconds (compile + tune + search) of the units that
				  * measured the cell: [(mode * ncells + cell) * nblocks + block]
				  * (under unit_scope = "workload" its workload's unit, else the
				  * mode's one unit of the block), NAN when none did */
	double *order;           /* run position of the unit (row in /units): [mode * nblocks + block] */
	size_t *units_ok;        /* per mode: ok cold units */
	size_t *units_all;       /* per mode: cold units of any status */
	struct an_status *failed;/* not-ok statuses with per-mode counts */
	size_t nfailed;
	size_t warm_units;       /* warm probes (not observations) */
	int64_t nsamples;
	struct an_part *parts;   /* itemised e2e forwards, in order of first appearance */
	size_t nparts;
	char **devices;          /* the devices units ran on: the slot's (harness run
				    --jobs/--gpus, merged shards: a GPU's UUID or "cpu:LIST"),
				    else the GPU the unit said it ran on (analysis_unit_gpu);
				    heap, in order of first appearance; none when no unit says */
	size_t ndevices;
	long *unit_device;       /* per unit (rows of /units): index into devices, AN_NO_DEVICE
				    when it names none (skipped units never ran: none) */
	long *block_device;      /* per block: its device (index into devices), AN_NO_DEVICE
				    when none recorded, AN_SPLIT when its units ran on several */
	struct an_planned *planned; /* the plan's units in plan order, when some is not recorded
				    (a run stopped by --max-time or a crash, one shard of a plan);
				    NULL when every planned unit is, or the file has no plan */
	size_t nplanned;
	char **warnings;         /* what could not be read as recorded (heap strings); every
	                            report built on this analysis repeats them first */
	size_t nwarnings;
};

/* The GPU a unit said it ran on, "GPU-<uuid>" into buf ("" when it does not say): its info's
 * gpu_open_gpu_uuid (the GPU state of docs/record-protocol.md), else gpu_uuid, the torch
 * worker's key before it wrote that state (a bare UUID, from PyTorch's device properties).
 * Returns buf. */
const char *analysis_unit_gpu(const char *info, char *buf, size_t n);

#define AN_NO_DEVICE (-1L)
#define AN_SPLIT (-2L)

/* The level of one mode's unit medians in one cell on one device: over the blocks that ran
 * whole on the device, the median of the log unit medians and their robust spread (1.4826
 * MAD); the squared standard error of the level is spread^2 / n.  The audit's devices check
 * and the report's device stratum both use it. */
struct an_level {
	size_t n;          /* blocks with a unit median */
	double level;      /* median of log(unit median / ns); NAN when n is 0 */
	double spread;     /* 1.4826 x median |log x - level| */
	double se2;        /* spread^2 / n; NAN when n < 2 */
};
void analysis_device_level(const struct analysis *a, size_t m, size_t c, long d,
			   struct an_level *out);
/* Two devices differ in level beyond the noise floor when |x - y| > 2 sqrt(se2x + se2y)
 * (both with n >= 2).  Returns 1 when they do, 0 when not or not comparable; *diff gets
 * |x - y| and *two_se the threshold (log scale), NAN when not comparable. */
int analysis_levels_differ(const struct an_level *x, const struct an_level *y, double *diff,
			   double *two_se);

/* Index helpers. */
static inline double an_med(const struct analysis *a, size_t m, size_t c, size_t b)
{
	return a->med[(m * a->ncells + c) * a->nblocks + b];
}

/* The unit medians of mode m in cell c, over the blocks that have one, into out (room for
 * nblocks values); returns how many. */
size_t analysis_column(const struct analysis *a, size_t m, size_t c, double *out);

/* Where mode m's spread in cell c lives: *unit_se = the median over its units of their
 * medians' relative standard errors (NAN when none has one), *vc = the decomposition of the
 * log unit medians' variance (stats_variance_components). The report and export share it. */
void analysis_variance(const struct analysis *a, size_t m, size_t c, double *unit_se,
		       struct stats_vc *vc);

/* 1 when mode m runs workload (its experiment's `workloads` names it, or it has none);
 * 0 when the experiment leaves it out, so m has no cell of it by design. */
int analysis_runs(const struct analysis *a, size_t m, const char *workload);

/* Read path; reports and returns -1 (bad file, no units, unknown baseline). */
int analysis_load(const char *path, struct analysis **out);
void analysis_free(struct analysis *a);
/* The row of the mode or the cell called name; -1 (not reported) when there is none. */
long analysis_mode(const struct analysis *a, const char *name);
long analysis_cell(const struct analysis *a, const char *name);
/* "'a', 'b', ..." of the modes or of the cells, for messages; the caller frees it. */
/* The index of the workload called name in a->workloads; -1 (not reported) when no cell is
 * of it.  O(log workloads). */
long analysis_workload(const struct analysis *a, const char *name);
/* Build a's workload index from its cells (analysis_load does; a test that fills cells
 * itself calls it).  Replaces an earlier index. */
void analysis_index_workloads(struct analysis *a);
/* The e2e cell of workload w that its op cells are compared with (the composition analysis,
 * the aggregates' e2e ratio): the one whose shape says launch=graph when w has one (the
 * CUDA backend times op cells by graph replay, so its forward as one graph is the like for
 * like; its stream forward also times the host), else w's first e2e cell; ncells when w
 * has none. */
size_t analysis_workload_e2e(const struct analysis *a, const char *workload);
char *analysis_mode_list(const struct analysis *a);
char *analysis_cell_list(const struct analysis *a);

#endif
