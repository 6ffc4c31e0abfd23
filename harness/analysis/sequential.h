/* sequential.h: a run that adds blocks until it has decided (docs/report-format.md,
 * "Blocks until decided"; the experiment's [sequential], harness run --until-decided).
 * The design is recorded in the run's metadata before the first sample (sched.c:
 * sequential, sequential_max_repeats, sequential_until); after each session of the
 * scheduler the CLI takes a look (seq_look) at the level alpha spending gives it, calibrated
 * for Student's t statistics (stats_seq_level_t: the looks so far and this one), records it
 * (sequential_looks, sequential_alpha) and either stops or asks for one more block.  Every
 * verdict read from the run afterwards (report, verify, audit) is taken at the level of the
 * look it stopped at (report_build), so no claim of the run is wrong with probability above
 * alpha, however the stopping time fell (for Student's t on normal data, up to the
 * calibration's simulation error; tests/bench/seq-levels.py measures 4.9-5.1%).  Runs
 * recorded before 2026-11-29 keep the levels they recorded (the exact z boundaries,
 * stats_seq_level, or the union bound's increments before that).
 */
#ifndef HARNESS_SEQUENTIAL_H
#define HARNESS_SEQUENTIAL_H

#include <stddef.h>
#include <stdint.h>

#include "harness/record/recorder.h"
#include "stats/stats.h"

/* The design, as recorded. */
struct seq_design {
	int on;                        /* 0: the run is not sequential */
	enum stats_spending spending;
	int64_t max_repeats;
	int until_cells;
	double alpha;                  /* the total level spent over the looks (0.05) */
	size_t nlooks;                 /* looks recorded so far */
	size_t *look_blocks;           /* heap (seq_design_release): each recorded look's
				        * blocks, nlooks of them, increasing */
	const char *stopped;           /* borrowed from the meta: "" (going on), "decided",
				        * "max_repeats" */
};
/* The design in m (its sequential* keys).  0 (d->on 0 when the run has none; release with
 * seq_design_release either way), or -1 reported when the keys are there and damaged
 * (nothing to release). */
int seq_design_read(const struct rec_meta *m, const char *path, struct seq_design *d);
void seq_design_release(struct seq_design *d);

/* One look. */
struct seq_look {
	int64_t blocks;                /* complete blocks looked at */
	double alpha;                  /* its level, stats_seq_level_t */
	double spent;                  /* the alpha it spends, stats_seq_alpha */
	size_t primary, decided;       /* primary hypotheses of the run; of them decided */
	size_t cells, cells_decided;   /* comparisons with the baseline (A/A copies apart); of
				        * them decided (counted whatever until says) */
	int done;                      /* everything the design waits for is decided */
	double unit_s;                 /* the recorded units' wall time so far, seconds */
	char *undecided;               /* heap: the ids of the undecided primary hypotheses
				        * ("a, b"), "" when none */
};
/* Look at the run at path (every unit of its plan recorded) under design d: its complete
 * blocks n, the level stats_seq_level_t of d's looks and one at n, and
 * its report and hypotheses' verdicts at that level.  0 and *out (release with
 * seq_look_release), or -1 reported. */
int seq_look(const char *path, const struct seq_design *d, struct seq_look *out);
void seq_look_release(struct seq_look *l);
/* The looks so far (the meta's JSON array, NULL or "" for none) with l appended: heap
 * JSON. */
char *seq_looks_append(const char *looks, const struct seq_look *l);

#endif
