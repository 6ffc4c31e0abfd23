/* tuner.h: the generic tuner interface.  A tuner proposes configs of a space and reads
 * back the measurement of each; the worker does the compiling, checking and timing and
 * records every trial.  To add a tuner: write kernels/tuner-<name>.c exporting one
 * `const struct tuner_ops tuner_<name>`, add it to the table in tuner.c, document its
 * options in docs/kernels.md and docs/experiment-format.md and test it in
 * tests/unit/test-kernels.c. */
#ifndef HARNESS_TUNER_H
#define HARNESS_TUNER_H

#include <stdint.h>

#include "harness/config/experiment.h"
#include "kernels/space.h"

enum trial_status { TRIAL_OK = 0, TRIAL_COMPILE_ERROR, TRIAL_INCORRECT, TRIAL_FAILED };
const char *trial_status_name(enum trial_status s); /* "ok", "compile-error", "incorrect", "failed" */

/* What the worker measured for one proposed config. */
struct trial_result {
	enum trial_status status;
	int64_t nsamples;      /* 0 when the tuner does not benchmark */
	double median_ns;      /* of the trial's samples; NaN when nsamples == 0 */
};

/* Flags: what a cold unit of this tuner is expected to do (a cold unit that did neither
 * is a cache leak).  TUNER_BENCHMARKS: the worker times each proposal (trial_samples
 * samples); without it the worker only compiles and checks. */
#define TUNER_COMPILES   0x1
#define TUNER_BENCHMARKS 0x2

struct tuner; /* a tuner's private state for one cell */

struct tuner_ops {
	const char *name;
	unsigned flags;
	/* Check the mode's options (unknown keys, types, ranges) at experiment-check time.
	 * Returns 0, or -1 with *cause (heap) "line:col: ..." naming the option. */
	int (*check_options)(const struct mode *m, char **cause);
	/* Start tuning one cell.  space is borrowed for the tuner's lifetime. */
	struct tuner *(*alloc)(const struct space *s, const struct mode *m, uint64_t seed);
	/* 1 and *c: the next config to try; 0: done. */
	int (*next)(struct tuner *t, struct config *c);
	void (*observe)(struct tuner *t, const struct config *c, const struct trial_result *r);
	/* The chosen config; -1 when no proposal was usable (never chooses an incorrect one). */
	int (*best)(struct tuner *t, struct config *out);
	void (*free)(struct tuner *t);
};

/* NULL when unknown. */
const struct tuner_ops *tuner_find(const char *name);
/* For check_options: -1 with *cause "line:col: unknown option 'x' for tuner 'y' (...)" when
 * one of m's options is not in known (NULL-terminated; NULL: the tuner takes none). */
int tuner_check_known_options(const struct tuner_ops *t, const struct mode *m,
			      const char *const *known, char **cause);
/* NULL-terminated list of all tuners, for messages listing the valid names. */
extern const struct tuner_ops *const tuner_table[];

#endif
