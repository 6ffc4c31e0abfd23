/* options.h: a tuner's options as the experiment file gave them (a mode's `options` table):
 * scalars, lists and tables, each value with the line:col it was written at.  Filled by the
 * configuration layer (harness/config/experiment.c), read by the tuners (kernels/tuner.h),
 * which check keys, types and ranges themselves.
 *
 * Ownership: a struct tuner_option owns its key, string and items; tuner_option_release()
 * frees them (not the struct itself). */
#ifndef HARNESS_OPTIONS_H
#define HARNESS_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

enum tuner_option_type {
	TUNER_OPT_INT = 0,
	TUNER_OPT_FLOAT,
	TUNER_OPT_BOOL,
	TUNER_OPT_STRING,
	TUNER_OPT_LIST,   /* items[0..nitems): the elements, key NULL */
	TUNER_OPT_TABLE,  /* items[0..nitems): the entries in file order, each with its key */
};

struct tuner_option {
	char *key;                   /* the option's name; NULL for a list element */
	enum tuner_option_type type;
	int64_t i;                   /* TUNER_OPT_INT, TUNER_OPT_BOOL (0/1) */
	double f;                    /* TUNER_OPT_FLOAT (and TUNER_OPT_INT converted) */
	char *s;                     /* TUNER_OPT_STRING */
	struct tuner_option *items;  /* TUNER_OPT_LIST, TUNER_OPT_TABLE */
	size_t nitems;
	int line, col;               /* where it was written (the key for a table entry) */
};

/* "an integer", "a float", "a boolean", "a string", "a list", "a table" */
const char *tuner_option_type_phrase(enum tuner_option_type t);
/* The entry named key of n options (or of a table's items); NULL when absent. */
const struct tuner_option *tuner_option_find(const struct tuner_option *opts, size_t n,
					     const char *key);
/* 1 when the two option sets say the same thing: the same keys (in any order) with equal
 * values (same type; lists element by element in order; tables by key, recursively); where
 * they were written does not count.  0 otherwise. */
int tuner_options_equal(const struct tuner_option *a, size_t na, const struct tuner_option *b,
			size_t nb);
/* Free what o owns, recursively; o itself is the caller's. */
void tuner_option_release(struct tuner_option *o);

#endif
