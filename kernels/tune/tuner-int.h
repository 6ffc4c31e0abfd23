/* tuner-int.h: what the search tuners (random, coordinate-descent, beam, lut, model-topk,
 * abduction, simulated-annealing, genetic-algorithm, pso, differential-evolution, bayes-opt)
 * share and nothing else includes: option readers and checkers, the budget options, field
 * order and limits, a seeded generator, a memo of measured configs, and the valid points as
 * value indices with Kernel Tuner's neighbour methods over them. */
#ifndef HARNESS_TUNER_INT_H
#define HARNESS_TUNER_INT_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/tuner.h"

/* ---- reading options that check_options accepted (anything else: the default) ---------- */
int64_t tuner_opt_int(const struct tuner_args *a, const char *key, int64_t def);
double tuner_opt_float(const struct tuner_args *a, const char *key, double def); /* int too */
int tuner_opt_bool(const struct tuner_args *a, const char *key, int def);
const char *tuner_opt_string(const struct tuner_args *a, const char *key, const char *def);

/* ---- checking options (each -1 with *cause "line:col: ...") ---------------------------- */
/* o must be an integer in [min, max]. */
int tuner_check_int(const struct tuner_option *o, int64_t min, int64_t max, char **cause);
/* o must be a number (integer or float) in [min, max]. */
int tuner_check_float(const struct tuner_option *o, double min, double max, char **cause);
int tuner_check_bool(const struct tuner_option *o, char **cause);
/* o must be one of the strings in names (NULL-terminated). */
int tuner_check_enum(const struct tuner_option *o, const char *const *names, char **cause);
/* The options every search tuner takes, checked when o is one of them (*handled = 1):
 * max_trials (integer >= 1), max_seconds (number > 0), accept ("min" or "paired"),
 * accept_repeats (integer 3..1000), accept_alpha (number in (0, 0.5]). */
int tuner_check_common(const struct tuner_option *o, int *handled, char **cause);
#define TUNER_COMMON_KEYS "max_trials", "max_seconds", "accept", "accept_repeats", "accept_alpha"
/* One option a tuner takes and how it is checked. */
enum tuner_rule_kind { RULE_INT, RULE_FLOAT, RULE_BOOL, RULE_FIELD_ORDER, RULE_FIELD_LIMITS,
		       RULE_CUSTOM };
struct tuner_rule {
	const char *key;
	enum tuner_rule_kind kind;
	double min, max; /* RULE_INT (whole numbers), RULE_FLOAT: the range, inclusive */
	/* RULE_CUSTOM: 0, or -1 with *cause "line:col: ..." */
	int (*check)(const struct tuner_option *o, const struct tuner_check *c, char **cause);
};
/* A tuner's check_options: c's options against rules (ended by a NULL key) and the common
 * options: an unknown key first (tuner_check_known_options, the rules' keys then the common
 * ones), then each option by its rule.  0, or -1 with *cause. */
int tuner_check_rules(const struct tuner_ops *t, const struct tuner_check *c,
		      const struct tuner_rule *rules, char **cause);
/* field_order: tuner_check_field_option plus "a list". field_limits: a table keyed by
 * field, each an integer >= 1. */
int tuner_check_field_order(const struct tuner_option *o, const struct tuner_check *c,
			    char **cause);
int tuner_check_field_limits(const struct tuner_option *o, const struct tuner_check *c,
			     char **cause);

/* The fields visited, in order: the option field_order's names that are fields of a's
 * space (the others belong to other ops' spaces), or every field in the space's order when
 * the option is absent or names none of them.  Their number into *n (<= SPACE_MAX_FIELDS). */
void tuner_field_order(const struct tuner_args *a, size_t *order, size_t *n);
/* Per field of a's space, its cap from field_limits (0: none). */
void tuner_field_limits(const struct tuner_args *a, int64_t *limit);

/* ---- a deterministic generator (SplitMix64; the same stream on every platform) --------- */
uint64_t tuner_rand_next(uint64_t *state);
/* Uniform in [0, n) by rejection (no modulo bias); n > 0. */
uint64_t tuner_rand_below(uint64_t *state, uint64_t n);
/* Uniform in [0, 1): the top 53 bits of the next draw. */
double tuner_rand_unit(uint64_t *state);

/* ---- what was measured, by config ------------------------------------------------------ */
struct tuner_memo_entry {
	struct config c;
	int ok;          /* the trial was ok and timed */
	double ns;       /* its median (INFINITY when not ok) */
};
struct tuner_memo {
	struct tuner_memo_entry *e;
	size_t n, cap;
};
/* NULL when c was not measured. */
const struct tuner_memo_entry *tuner_memo_find(const struct tuner_memo *m, const struct space *s,
					       const struct config *c);
/* Record (or overwrite) c's outcome from r. */
void tuner_memo_add(struct tuner_memo *m, const struct space *s, const struct config *c,
		    const struct trial_result *r);
void tuner_memo_release(struct tuner_memo *m);
/* The fastest ok config measured (the first of equals) into out: 0, or -1 when none was ok. */
int tuner_memo_best(const struct tuner_memo *m, struct config *out);

/* ---- the valid points of a space ------------------------------------------------------- */
/* The indices (space_point's k) of s's valid points, ascending, into a new heap array (*n of
 * them); NULL with *cause (heap, naming tuner `who`) when s has more than max candidates. */
size_t *tuner_valid_points(const struct space *s, size_t max, const char *who, size_t *n,
			   char **cause);

/* The position of c in valid (n ascending space_point indices, tuner_valid_points'), or n
 * when c is not one of them (not a point of s, or excluded by the constraint). */
size_t tuner_valid_find(const struct space *s, const size_t *valid, size_t n,
			const struct config *c);
/* The value indices (space_value_index) of the n points valid[0..n), point-major: entry
 * [i * s->nfields + f] is field f's index in point i.  A new heap array (the caller frees);
 * each index fits 16 bits (SPACE_MAX_VALUES). */
uint16_t *tuner_value_indices(const struct space *s, const size_t *valid, size_t n);
/* A Latin hypercube sample of n points over the value indices (scipy's LatinHypercube
 * integers, scrambled: in each field the n strata of [0, 1) are permuted and a point drawn
 * uniformly in its stratum, then scaled to the field's nvalues and floored), into out,
 * point-major like tuner_value_indices (n * s->nfields entries).  The grid's points, not
 * necessarily valid ones. */
void tuner_lhs_sample(const struct space *s, size_t n, uint64_t *rng, uint16_t *out);

/* 1 when r is a usable timing (ok, timed, finite median). */
int tuner_result_ok(const struct trial_result *r);

/* ---- the valid points as value indices (tuner-points.c) -------------------------------- */
/* A space's valid points (tuner_valid_points), numbered 0..n-1 in grid order, each with the
 * index of its value in every field (a config as a vector of value indices: what a
 * population search recombines).  Owns valid and idx; the space is borrowed. */
#define TUNER_NO_POINT SIZE_MAX
struct tuner_points {
	const struct space *space;
	size_t *valid;   /* space_point indices of the valid points, ascending */
	size_t n;
	size_t nf;       /* the space's fields */
	uint16_t *idx;   /* n x nf: point i's value index in field f at idx[i * nf + f] */
};
/* 0, or -1 with *cause (heap, naming tuner `who`) when s has more than max candidates. */
int tuner_points_init(struct tuner_points *p, const struct space *s, size_t max, const char *who,
		      char **cause);
void tuner_points_release(struct tuner_points *p);
/* The valid point whose value indices are g (nf of them, each < its field's nvalues): its
 * number, or TUNER_NO_POINT when that grid point is not valid. */
size_t tuner_points_find(const struct tuner_points *p, const uint16_t *g);
/* The same for config c (a vendor point, or one with a value outside its field: none). */
size_t tuner_points_at(const struct tuner_points *p, const struct config *c);
/* The config whose value indices are g (valid or not), and point i's config. */
void tuner_points_config_of(const struct tuner_points *p, const uint16_t *g, struct config *out);
void tuner_points_config(const struct tuner_points *p, size_t i, struct config *out);
/* What a population search knows of the valid points of p: each one's median (NaN: not
 * measured; INFINITY: failed), how many are measured, the fastest ok one (the first of
 * equals).  Owns ns. */
struct tuner_scores {
	double *ns;
	size_t nmeasured;
	size_t best_at;  /* TUNER_NO_POINT: none ok yet */
	double best_ns;
};
void tuner_scores_init(struct tuner_scores *sc, size_t n);
void tuner_scores_release(struct tuner_scores *sc);
/* Record trial r of c (nothing when c is not a valid point of p). */
void tuner_scores_observe(struct tuner_scores *sc, const struct tuner_points *p,
			  const struct config *c, const struct trial_result *r);
/* 1 when point `at` must be measured (a valid point not measured yet); else 0 with *score its
 * median (INFINITY: failed, or TUNER_NO_POINT: not a valid point, never proposed). */
int tuner_scores_pending(const struct tuner_scores *sc, size_t at, double *score);
/* The fastest ok point's config into out: 0, or -1 when none was ok. */
int tuner_scores_best(const struct tuner_scores *sc, const struct tuner_points *p,
		      struct config *out);
/* k <= p->n distinct valid points drawn uniformly, in random order, into out (numbers). */
void tuner_points_sample(const struct tuner_points *p, uint64_t *rng, size_t k, size_t *out);
/* Kernel Tuner's neighbour methods (its searchspace.py), for a value-index vector g that
 * need not be valid: STRICTLY_ADJACENT, every field at most one value index away;
 * ADJACENT, every field the same or at the nearest value index above or below it that
 * any valid point has in that field; HAMMING, exactly one field different. */
enum tuner_neighbours { TUNER_STRICTLY_ADJACENT, TUNER_ADJACENT, TUNER_HAMMING };
/* The valid points that are m-neighbours of g (never g itself), ascending, into *out (heap,
 * grown as XGROW grows it, *cap its room); their number. */
size_t tuner_points_neighbours(const struct tuner_points *p, const uint16_t *g,
			       enum tuner_neighbours m, size_t **out, size_t *cap);

/* The heuristic's start point: space->heuristic() when it names a point of the space, else
 * the first valid point (the heuristic tuner's rule); -1 when the space has none. */
int tuner_start_point(const struct space *s, struct config *out);

#endif
