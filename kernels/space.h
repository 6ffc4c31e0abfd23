/* space.h: a tuning configuration space (named fields, their values, a constraint or a list
 * of the valid points, and the vendor library's candidates) and one point in it.  Backends
 * describe each op's space; an imported one (a Kernel Tuner cache) lists its points; tuners
 * walk either without knowing what the fields mean. */
#ifndef HARNESS_SPACE_H
#define HARNESS_SPACE_H

#include <stddef.h>
#include <stdint.h>

#include "harness/base/util.h"

#define SPACE_MAX_FIELDS 32
#define SPACE_MAX_VALUES 1024
#define SPACE_MAX_VENDORS 16
#define SPACE_MAX_VENDOR_PARAMS 4

/* How a local search (coordinate descent, beam) steps along a field, as Inductor's
 * coordinate descent does: SPACE_STEP_POW2 doubles and halves (tile sizes, warps, split
 * factors), SPACE_STEP_UNIT adds and subtracts 1 (pipeline stages); SPACE_STEP_ORDINAL (the
 * default, 0) moves to the next larger or smaller allowed value, for fields whose values
 * are neither (the CPU backend's tiles {32, 128, 512}, GROUP_M {1, 4, 8}). */
enum space_step { SPACE_STEP_ORDINAL = 0, SPACE_STEP_POW2, SPACE_STEP_UNIT };

/* What a field's values are: integers (the value itself), or floats and strings as ordinals
 * 0..n-1 whose text is the field's labels (an imported space's "0.5", "shared"). */
enum space_kind { SPACE_INT = 0, SPACE_FLOAT, SPACE_STRING };

struct space_field {
	const char *name;                  /* macro name in the kernel template, e.g. "BM" */
	const int64_t *values;             /* nvalues allowed values, ascending, distinct
					    * (borrowed: static, or outliving the space) */
	size_t nvalues;
	enum space_kind kind;
	const char *const *labels;         /* SPACE_FLOAT, SPACE_STRING: nvalues texts, the
					    * k-th for ordinal k (borrowed); NULL for SPACE_INT */
	enum space_step step;              /* how local searches step along it */
	int64_t macro_max;                 /* > 0: the template sees min(value, macro_max);
					    * the values above it pick how the backend launches
					    * that code (conv.cu's STREAM_K: 1, the grid 1 or 2
					    * blocks an SM), so they share one compiled module;
					    * < 0: the template sees no macro at all (the value
					    * picks only the launch: conv.cu's CLUSTER) */
	int optional;                      /* 1: a config's text without the field takes its
					    * first value, so the texts written before the
					    * field was added (lookup tables, experiments)
					    * still name their points; texts always carry it */
};

/* A vendor candidate: the vendor library called with fixed parameters (an algorithm id for
 * cuBLASLt or cuDNN), "vendor:algo=6"; no parameters: the library's own choice, "vendor". */
struct vendor_param {
	const char *name;                  /* "algo" */
	int64_t value;
};
struct vendor_point {
	struct vendor_param params[SPACE_MAX_VENDOR_PARAMS];
	size_t nparams;
};

/* One point: a vendor candidate (vendor = 1, vendor_idx its index, val ignored) or one
 * value per field.  A zeroed config with vendor = 1 is the first vendor candidate. */
struct config {
	int vendor;
	size_t vendor_idx;
	int64_t val[SPACE_MAX_FIELDS];
};

struct space {
	const char *op;                    /* the op this space tunes, e.g. "sgemm" */
	struct space_field fields[SPACE_MAX_FIELDS];
	size_t nfields;
	int has_vendor;                    /* the vendor path is a candidate too */
	/* The vendor candidates when has_vendor; nvendors 0: one, "vendor", without parameters. */
	struct vendor_point vendors[SPACE_MAX_VENDORS];
	size_t nvendors;
	/* Constraint: 1 when c (not vendor) may be compiled for this cell's shape; else 0 and
	 * *why (when why is not NULL) a static phrase saying which rule excludes it.  NULL:
	 * every grid point is valid. */
	int (*valid)(const struct space *s, const struct config *c, const char **why);
	/* The backend's rule-of-thumb choice for this cell (the heuristic tuner's pick). */
	void (*heuristic)(const struct space *s, struct config *out);
	const void *ctx;                   /* the backend's per-cell data (shape) for the two above */
	/* NULL: the candidates are the grid's points that valid() keeps.  Else the valid points
	 * themselves, nlisted of them in grid order, distinct (borrowed): a space too large to
	 * enumerate whose source says which points exist (an imported cache's measured
	 * configurations; every other grid point is excluded). */
	const struct config *listed;
	size_t nlisted;
};

/* Number of points of the grid (vendor excluded), ignoring the constraint; SIZE_MAX when
 * it does not fit a size_t. */
size_t space_grid_size(const struct space *s);
/* The candidates a tuner enumerates: the listed points when s lists them, else the grid
 * (space_contains filters it).  Their number, and the k-th (0 or -1 when out of range). */
size_t space_npoints(const struct space *s);
int space_point(const struct space *s, size_t k, struct config *out);
/* The k with space_point(s, k) == c: 0 and *k, or -1 (a vendor point, a value outside its
 * field, not listed). */
int space_point_find(const struct space *s, const struct config *c, size_t *k);
/* The idx-th grid point in mixed-radix order (last field fastest).  0 or -1 when idx is
 * out of range. */
int space_grid_point(const struct space *s, size_t idx, struct config *out);
/* A walk over space_point's order from its first point without a division a point (the
 * whole-grid walks: a convolution's grid has 622,080 points): init once, then each
 * space_walk_next gives the walk's point (its index in *k when k) and steps, -1 past the
 * last.  A listed space's walk gives its listed points. */
struct space_walk {
	size_t idx, n;                     /* the next point, and space_npoints() */
	size_t digit[SPACE_MAX_FIELDS];    /* idx's value index a field (a grid's) */
};
void space_walk_init(const struct space *s, struct space_walk *w);
int space_walk_next(const struct space *s, struct space_walk *w, struct config *out, size_t *k);
/* 1 when c is a vendor candidate of s or every value is allowed and valid() agrees. */
int space_contains(const struct space *s, const struct config *c);
/* The same, with *why (static) saying why not when it returns 0. */
int space_check(const struct space *s, const struct config *c, const char **why);
/* space_check for a point space_grid_point (or space_point of a grid space) gave, whose
 * values are its fields' by construction: the constraint alone (a listed space checks in
 * full).  The walks over whole grids call it. */
int space_check_grid(const struct space *s, const struct config *c, const char **why);
/* Vendor candidates of s (0 when it has no vendor path), and the k-th as a config. */
size_t space_nvendors(const struct space *s);
void space_vendor_point(const struct space *s, size_t k, struct config *out);
/* "vendor", "vendor:algo=6" or "BM=32,BN=64,..." (a labelled field's label) appended to out. */
void config_format(const struct space *s, const struct config *c, struct sbuf *out);
/* Inverse of config_format; -1 with *cause (heap) when text is not a point of s. */
int config_parse(const struct space *s, const char *text, struct config *out, char **cause);
int config_equal(const struct space *s, const struct config *a, const struct config *b);

/* The index of the field named name, or s->nfields when there is none. */
size_t space_field_find(const struct space *s, const char *name);
/* The grid index of c (not vendor; every value allowed; the constraint not consulted):
 * 0 and *idx, or -1 (also when the index does not fit a size_t). */
int space_point_index(const struct space *s, const struct config *c, size_t *idx);
/* Append an integer field named name with the n ascending values v to s (both borrowed:
 * static, or outliving s); the caller keeps within SPACE_MAX_FIELDS and SPACE_MAX_VALUES. */
void space_add_field(struct space *s, const char *name, const int64_t *v, size_t n);
/* The index of value v in field f (values ascending: a binary search), or f->nvalues. */
size_t space_value_index(const struct space_field *f, int64_t v);
/* "int", "float", "string" */
const char *space_kind_name(enum space_kind k);
/* 1 when tile value v of field f is redundant for a dimension d: a smaller value of f
 * already covers d, so both give the same single block and a space keeps the smaller. */
int space_field_redundant(const struct space_field *f, int64_t v, int64_t d);
/* The largest value of f <= want (or its smallest value), lowered to the smallest value
 * that covers d, so the result is never redundant for d (a heuristic's tile choice). */
int64_t space_field_pick(const struct space_field *f, int64_t want, int64_t d);
/* "pow2", "unit", "ordinal" */
const char *space_step_name(enum space_step k);
/* Inductor's get_neighbour_values for field f at value v: up to radius steps up (stopping
 * at the first value above the field's largest value or above limit; limit <= 0: none),
 * then up to radius steps down (stopping below the smallest value or at 0), then v itself
 * when include_self.  A step of a POW2 or UNIT field that lands on a value the field does
 * not allow yields no neighbour but counts as a step.  Values into out (room for
 * 2 * radius + 1); their number returned. */
size_t space_neighbour_values(const struct space *s, size_t f, int64_t v, int radius,
			      int64_t limit, int include_self, int64_t *out);

#endif
