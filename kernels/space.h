/* space.h: a tuning configuration space (named integer fields, their values, a constraint)
 * and one point in it.  Backends describe each op's space; tuners walk it without knowing
 * what the fields mean. */
#ifndef HARNESS_SPACE_H
#define HARNESS_SPACE_H

#include <stddef.h>
#include <stdint.h>

#include "harness/base/util.h"

#define SPACE_MAX_FIELDS 8
#define SPACE_MAX_VALUES 16

struct space_field {
	const char *name;                  /* macro name in the kernel template, e.g. "BM" */
	int64_t values[SPACE_MAX_VALUES];  /* allowed values, ascending */
	size_t nvalues;
};

/* One point: either the vendor path (vendor = 1, val ignored) or one value per field. */
struct config {
	int vendor;
	int64_t val[SPACE_MAX_FIELDS];
};

struct space {
	const char *op;                    /* the op this space tunes, e.g. "sgemm" */
	struct space_field fields[SPACE_MAX_FIELDS];
	size_t nfields;
	int has_vendor;                    /* the vendor path is a candidate too */
	/* Constraint: 1 when c (not vendor) may be compiled for this cell's shape.  NULL: all. */
	int (*valid)(const struct space *s, const struct config *c);
	/* The backend's rule-of-thumb choice for this cell (the heuristic tuner's pick). */
	void (*heuristic)(const struct space *s, struct config *out);
	const void *ctx;                   /* the backend's per-cell data (shape) for the two above */
};

/* Number of points of the grid (vendor excluded), ignoring the constraint. */
size_t space_grid_size(const struct space *s);
/* The idx-th grid point in mixed-radix order (last field fastest).  0 or -1 when idx is
 * out of range. */
int space_grid_point(const struct space *s, size_t idx, struct config *out);
/* 1 when c is vendor (and the space has one) or every value is allowed and valid() agrees. */
int space_contains(const struct space *s, const struct config *c);
/* "vendor" or "BM=32,BN=64,..." appended to out. */
void config_format(const struct space *s, const struct config *c, struct sbuf *out);
/* Inverse of config_format; -1 with *cause (heap) when text is not a point of s. */
int config_parse(const struct space *s, const char *text, struct config *out, char **cause);
int config_equal(const struct space *s, const struct config *a, const struct config *b);

#endif
