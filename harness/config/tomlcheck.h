/* tomlcheck.h: what every schema walker over a TOML file needs (experiment.c,
 * hypothesis.c): the first error as "'path':line:col: what", entries with their positions,
 * unknown keys with a did-you-mean, and kind checks.  Built on toml-bridge.h. */
#ifndef HARNESS_TOMLCHECK_H
#define HARNESS_TOMLCHECK_H

#include <stddef.h>

#include "harness/config/toml-bridge.h"

/* The walk's context: the file (for messages) and its first error. */
struct tc_parser {
	const char *path;
	char *cause;      /* the first error (heap), NULL while there is none */
	unsigned flags;   /* the walker's own options */
	/* What the command line set over the file (harness run -D KEY=VALUE, borrowed): a
	 * node it set is at line -(k + 1), column 0, and an error there names `-D sets[k]`
	 * instead of a line and column. */
	const char *const *sets;
	size_t nsets;
};

/* One entry of a table: its key, the value, and where each is written. */
struct tc_field {
	const char *key;
	struct tb_pos key_pos;
	const struct tb_node *v;
	struct tb_pos pos;
};
struct tc_field tc_field_at(const struct tb_node *t, size_t i);

/* The position of what the k-th -D set (tc_parser's sets). */
struct tb_pos tc_set_pos(size_t k);
/* The position of an error that belongs to the command line, not to a place in the file
 * (tc_fail then names the file alone). */
#define TC_NOPOS ((struct tb_pos){ 0, 0 })
/* Record the first error at pos; returns -1 so a check can `return tc_fail(...)`. */
int tc_fail(struct tc_parser *p, struct tb_pos pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The known word nearest to word, when within edit distance 2 and shorter than word itself
 * (so 'x' does not suggest 'op'); NULL otherwise. */
const char *tc_suggest(const char *word, const char *const *known);
/* "a, b, c" (NULL-terminated words) into a new heap string. */
char *tc_join(const char *const *words);
/* "unknown key 'k'<where> (did you mean 'x'?)"; where: "" or " in [measure]" and so on. */
int tc_unknown_key(struct tc_parser *p, const struct tc_field *f, const char *const *known,
		   const char *where);
/* "'k' must be an integer, not a string" unless f's value is of kind k. */
int tc_want_kind(struct tc_parser *p, const struct tc_field *f, enum tb_kind k);

/* The entries of array f into a new heap vector *out of *n strings, each read by get (the
 * caller's rules for one string); an entry that is not a string is an error at its place. */
typedef int (*tc_string_getter)(struct tc_parser *p, const struct tc_field *f, char **out);
int tc_get_string_array(struct tc_parser *p, const struct tc_field *f, tc_string_getter get,
			char ***out, size_t *n);

#endif
