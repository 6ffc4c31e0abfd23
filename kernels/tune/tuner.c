/* tuner.c: the tuner table, lookup by name, the option values, and the helpers the tuners'
 * check_options share */
#include "config.h"
#include "kernels/tuner.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/tune/tuner-int.h"

extern const struct tuner_ops tuner_vendor;
extern const struct tuner_ops tuner_heuristic;
extern const struct tuner_ops tuner_exhaustive;
extern const struct tuner_ops tuner_vendor_benchmarked;
extern const struct tuner_ops tuner_random;
extern const struct tuner_ops tuner_coordinate_descent;
extern const struct tuner_ops tuner_beam;
extern const struct tuner_ops tuner_lut;
extern const struct tuner_ops tuner_model_topk;
extern const struct tuner_ops tuner_abduction;
extern const struct tuner_ops tuner_simulated_annealing;
extern const struct tuner_ops tuner_genetic_algorithm;
extern const struct tuner_ops tuner_pso;
extern const struct tuner_ops tuner_differential_evolution;
extern const struct tuner_ops tuner_bayes_opt;
extern const struct tuner_ops tuner_external;

const struct tuner_ops *const tuner_table[] = {
	&tuner_vendor,
	&tuner_heuristic,
	&tuner_exhaustive,
	&tuner_vendor_benchmarked,
	&tuner_random,
	&tuner_coordinate_descent,
	&tuner_beam,
	&tuner_lut,
	&tuner_model_topk,
	&tuner_abduction,
	&tuner_simulated_annealing,
	&tuner_genetic_algorithm,
	&tuner_pso,
	&tuner_differential_evolution,
	&tuner_bayes_opt,
	&tuner_external,
	NULL,
};

const struct tuner_ops *tuner_find(const char *name)
{
	for (size_t i = 0; tuner_table[i]; i++)
		if (!strcmp(tuner_table[i]->name, name))
			return tuner_table[i];
	return NULL;
}

const char *trial_status_name(enum trial_status s)
{
	switch (s) {
	case TRIAL_OK: return "ok";
	case TRIAL_COMPILE_ERROR: return "compile-error";
	case TRIAL_INCORRECT: return "incorrect";
	case TRIAL_FAILED: return "failed";
	}
	return "unknown";
}

/* ---- option values ------------------------------------------------------------------- */

const char *tuner_option_type_phrase(enum tuner_option_type t)
{
	switch (t) {
	case TUNER_OPT_INT: return "an integer";
	case TUNER_OPT_FLOAT: return "a float";
	case TUNER_OPT_BOOL: return "a boolean";
	case TUNER_OPT_STRING: return "a string";
	case TUNER_OPT_LIST: return "a list";
	case TUNER_OPT_TABLE: return "a table";
	}
	return "a value";
}

static int option_equal(const struct tuner_option *x, const struct tuner_option *y)
{
	if (x->type != y->type)
		return 0;
	switch (x->type) {
	case TUNER_OPT_INT:
	case TUNER_OPT_BOOL:
		return x->i == y->i;
	case TUNER_OPT_FLOAT:
		return x->f == y->f || (x->f != x->f && y->f != y->f);
	case TUNER_OPT_STRING:
		return !strcmp(x->s ? x->s : "", y->s ? y->s : "");
	case TUNER_OPT_LIST:
		if (x->nitems != y->nitems)
			return 0;
		for (size_t k = 0; k < x->nitems; k++)
			if (!option_equal(&x->items[k], &y->items[k]))
				return 0;
		return 1;
	case TUNER_OPT_TABLE:
		return tuner_options_equal(x->items, x->nitems, y->items, y->nitems);
	}
	return 0;
}

int tuner_options_equal(const struct tuner_option *a, size_t na, const struct tuner_option *b,
			size_t nb)
{
	if (na != nb)
		return 0;
	for (size_t k = 0; k < na; k++) {
		const struct tuner_option *o = tuner_option_find(b, nb, a[k].key);
		if (!o || !option_equal(&a[k], o))
			return 0;
	}
	return 1;
}

const struct tuner_option *tuner_option_find(const struct tuner_option *opts, size_t n,
					     const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (opts[i].key && !strcmp(opts[i].key, key))
			return &opts[i];
	return NULL;
}

void tuner_option_release(struct tuner_option *o)
{
	for (size_t i = 0; i < o->nitems; i++)
		tuner_option_release(&o->items[i]);
	free(o->items);
	free(o->key);
	free(o->s);
	memset(o, 0, sizeof(*o));
}

/* ---- check_options helpers ----------------------------------------------------------- */

/* The known key closest to key by edit distance, or NULL when none is close (<= 3). */
static const char *closest(const char *key, const char *const *known)
{
	const char *best = NULL;
	size_t dist = 4;
	for (size_t i = 0; known[i]; i++) {
		size_t d = util_edit_distance(key, known[i]);
		if (d < dist) {
			dist = d;
			best = known[i];
		}
	}
	return best;
}

size_t tuner_plan_by_copy(const struct tuner *t, size_t size,
			  int (*next)(struct tuner *t, struct config *c), struct config *out,
			  size_t max)
{
	struct tuner *copy = xmalloc(size);
	memcpy(copy, t, size);
	size_t n = 0;
	while (n < max && next(copy, &out[n]) == 1)
		n++;
	free(copy);
	return n;
}

int tuner_check_known_options(const struct tuner_ops *t, const struct tuner_check *c,
			      const char *const *known, char **cause)
{
	for (size_t i = 0; i < c->noptions; i++) {
		const struct tuner_option *o = &c->options[i];
		size_t k = 0;
		while (known && known[k] && strcmp(known[k], o->key))
			k++;
		if (known && known[k])
			continue;
		if (!known || !known[0]) {
			*cause = xasprintf("%d:%d: tuner '%s' takes no options (got '%s')", o->line,
					   o->col, t->name, o->key);
			return -1;
		}
		struct sbuf sb;
		sbuf_init(&sb);
		sbuf_addf(&sb, "%d:%d: unknown option '%s' for tuner '%s'", o->line, o->col, o->key,
			  t->name);
		const char *near = closest(o->key, known);
		if (near) {
			sbuf_addf(&sb, " (did you mean '%s'?)", near);
		} else {
			sbuf_adds(&sb, " (options:");
			for (size_t j = 0; known[j]; j++)
				sbuf_addf(&sb, "%s '%s'", j ? "," : "", known[j]);
			sbuf_adds(&sb, ")");
		}
		*cause = sbuf_detach(&sb);
		return -1;
	}
	return 0;
}

/* 1 when name is a field of one of the spaces. */
static int is_field(const struct tuner_check *c, const char *name)
{
	for (size_t s = 0; s < c->nspaces; s++)
		for (size_t f = 0; f < c->spaces[s]->nfields; f++)
			if (!strcmp(c->spaces[s]->fields[f].name, name))
				return 1;
	return 0;
}

/* "unknown field 'X' (did you mean 'Y'? | fields: 'BM' (sgemm), ...)" for the message. */
static void unknown_field(struct sbuf *sb, const struct tuner_check *c, const char *name)
{
	const char **all = xcalloc(c->nspaces * SPACE_MAX_FIELDS + 1, sizeof(*all));
	size_t n = 0;
	for (size_t s = 0; s < c->nspaces; s++)
		for (size_t f = 0; f < c->spaces[s]->nfields; f++) {
			const char *fn = c->spaces[s]->fields[f].name;
			size_t k = 0;
			while (k < n && strcmp(all[k], fn))
				k++;
			if (k == n)
				all[n++] = fn;
		}
	sbuf_addf(sb, "unknown field '%s'", name);
	const char *near = closest(name, all);
	if (near) {
		sbuf_addf(sb, " (did you mean '%s'?)", near);
	} else {
		sbuf_adds(sb, " (fields:");
		for (size_t k = 0; k < n; k++)
			sbuf_addf(sb, "%s '%s'", k ? "," : "", all[k]);
		sbuf_adds(sb, n ? ")" : " none)");
	}
	free(all);
}

int tuner_check_field_option(const struct tuner_option *o, const struct tuner_check *c,
			     char **cause)
{
	struct sbuf sb;
	sbuf_init(&sb);
	if (o->type != TUNER_OPT_LIST && o->type != TUNER_OPT_TABLE) {
		sbuf_addf(&sb, "%d:%d: '%s' must be a list of field names or a table keyed by "
			  "field name, not %s", o->line, o->col, o->key,
			  tuner_option_type_phrase(o->type));
		goto fail;
	}
	for (size_t i = 0; i < o->nitems; i++) {
		const struct tuner_option *e = &o->items[i];
		const char *name = o->type == TUNER_OPT_TABLE ? e->key : e->s;
		if (o->type == TUNER_OPT_LIST && e->type != TUNER_OPT_STRING) {
			sbuf_addf(&sb, "%d:%d: '%s': element %zu must be a field name (a string), "
				  "not %s", e->line, e->col, o->key, i + 1,
				  tuner_option_type_phrase(e->type));
			goto fail;
		}
		for (size_t j = 0; j < i; j++) {
			const struct tuner_option *d = &o->items[j];
			if (!strcmp(o->type == TUNER_OPT_TABLE ? d->key : d->s, name)) {
				sbuf_addf(&sb, "%d:%d: '%s': field '%s' given twice (first at %d:%d)",
					  e->line, e->col, o->key, name, d->line, d->col);
				goto fail;
			}
		}
		if (c->nspaces && !is_field(c, name)) {
			sbuf_addf(&sb, "%d:%d: '%s': ", e->line, e->col, o->key);
			unknown_field(&sb, c, name);
			goto fail;
		}
	}
	sbuf_release(&sb);
	return 0;
fail:
	*cause = sbuf_detach(&sb);
	return -1;
}

/* ---- what the search tuners share (tuner-int.h) ---------------------------------------- */

int64_t tuner_opt_int(const struct tuner_args *a, const char *key, int64_t def)
{
	const struct tuner_option *o = tuner_option_find(a->options, a->noptions, key);
	return o && o->type == TUNER_OPT_INT ? o->i : def;
}

double tuner_opt_float(const struct tuner_args *a, const char *key, double def)
{
	const struct tuner_option *o = tuner_option_find(a->options, a->noptions, key);
	return o && (o->type == TUNER_OPT_INT || o->type == TUNER_OPT_FLOAT) ? o->f : def;
}

int tuner_opt_bool(const struct tuner_args *a, const char *key, int def)
{
	const struct tuner_option *o = tuner_option_find(a->options, a->noptions, key);
	return o && o->type == TUNER_OPT_BOOL ? o->i != 0 : def;
}

const char *tuner_opt_string(const struct tuner_args *a, const char *key, const char *def)
{
	const struct tuner_option *o = tuner_option_find(a->options, a->noptions, key);
	return o && o->type == TUNER_OPT_STRING && o->s ? o->s : def;
}

int tuner_check_int(const struct tuner_option *o, int64_t min, int64_t max, char **cause)
{
	if (o->type == TUNER_OPT_INT && o->i >= min && o->i <= max)
		return 0;
	if (max == INT64_MAX)
		*cause = xasprintf("%d:%d: '%s' must be an integer >= %" PRId64 "%s%s", o->line,
				   o->col, o->key, min, o->type == TUNER_OPT_INT ? "" : ", not ",
				   o->type == TUNER_OPT_INT ? "" : tuner_option_type_phrase(o->type));
	else
		*cause = xasprintf("%d:%d: '%s' must be an integer from %" PRId64 " to %" PRId64
				   "%s%s", o->line, o->col, o->key, min, max,
				   o->type == TUNER_OPT_INT ? "" : ", not ",
				   o->type == TUNER_OPT_INT ? "" : tuner_option_type_phrase(o->type));
	return -1;
}

int tuner_check_float(const struct tuner_option *o, double min, double max, char **cause)
{
	int num = o->type == TUNER_OPT_INT || o->type == TUNER_OPT_FLOAT;
	if (num && isfinite(o->f) && o->f >= min && o->f <= max)
		return 0;
	*cause = xasprintf("%d:%d: '%s' must be a number from %g to %g%s%s", o->line, o->col,
			   o->key, min, max, num ? "" : ", not ",
			   num ? "" : tuner_option_type_phrase(o->type));
	return -1;
}

int tuner_check_bool(const struct tuner_option *o, char **cause)
{
	if (o->type == TUNER_OPT_BOOL)
		return 0;
	*cause = xasprintf("%d:%d: '%s' must be a boolean, not %s", o->line, o->col, o->key,
			   tuner_option_type_phrase(o->type));
	return -1;
}

int tuner_check_enum(const struct tuner_option *o, const char *const *names, char **cause)
{
	if (o->type == TUNER_OPT_STRING)
		for (size_t k = 0; names[k]; k++)
			if (!strcmp(o->s, names[k]))
				return 0;
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_addf(&sb, "%d:%d: '%s' must be one of", o->line, o->col, o->key);
	for (size_t k = 0; names[k]; k++)
		sbuf_addf(&sb, "%s \"%s\"", k ? "," : "", names[k]);
	if (o->type == TUNER_OPT_STRING)
		sbuf_addf(&sb, " (got \"%s\")", o->s);
	else
		sbuf_addf(&sb, ", not %s", tuner_option_type_phrase(o->type));
	*cause = sbuf_detach(&sb);
	return -1;
}

int tuner_check_common(const struct tuner_option *o, int *handled, char **cause)
{
	static const char *const accepts[] = { "min", "paired", NULL };
	*handled = 1;
	if (!strcmp(o->key, "max_trials"))
		return tuner_check_int(o, 1, INT64_MAX, cause);
	if (!strcmp(o->key, "max_seconds"))
		return tuner_check_float(o, 1e-9, 1e9, cause);
	if (!strcmp(o->key, "accept"))
		return tuner_check_enum(o, accepts, cause);
	if (!strcmp(o->key, "accept_repeats"))
		return tuner_check_int(o, 3, 1000, cause);
	if (!strcmp(o->key, "accept_alpha"))
		return tuner_check_float(o, 1e-6, 0.5, cause);
	*handled = 0;
	return 0;
}

int tuner_check_field_order(const struct tuner_option *o, const struct tuner_check *c,
			    char **cause)
{
	if (o->type != TUNER_OPT_LIST) {
		*cause = xasprintf("%d:%d: '%s' must be a list of field names, not %s", o->line,
				   o->col, o->key, tuner_option_type_phrase(o->type));
		return -1;
	}
	return tuner_check_field_option(o, c, cause);
}

int tuner_check_field_limits(const struct tuner_option *o, const struct tuner_check *c,
			     char **cause)
{
	if (o->type != TUNER_OPT_TABLE) {
		*cause = xasprintf("%d:%d: '%s' must be a table of field = largest value, not %s",
				   o->line, o->col, o->key, tuner_option_type_phrase(o->type));
		return -1;
	}
	if (tuner_check_field_option(o, c, cause))
		return -1;
	for (size_t i = 0; i < o->nitems; i++) {
		const struct tuner_option *e = &o->items[i];
		if (e->type != TUNER_OPT_INT || e->i < 1) {
			*cause = xasprintf("%d:%d: '%s': the limit of field '%s' must be an integer "
					   ">= 1", e->line, e->col, o->key, e->key);
			return -1;
		}
	}
	return 0;
}

void tuner_field_order(const struct tuner_args *a, size_t *order, size_t *n)
{
	const struct space *s = a->space;
	const struct tuner_option *o = tuner_option_find(a->options, a->noptions, "field_order");
	*n = 0;
	if (o && o->type == TUNER_OPT_LIST)
		for (size_t i = 0; i < o->nitems && *n < SPACE_MAX_FIELDS; i++) {
			if (o->items[i].type != TUNER_OPT_STRING)
				continue;
			size_t f = space_field_find(s, o->items[i].s);
			int dup = 0;
			for (size_t k = 0; k < *n; k++)
				dup |= order[k] == f;
			if (f < s->nfields && !dup)
				order[(*n)++] = f;
		}
	if (*n)
		return;
	for (size_t f = 0; f < s->nfields; f++)
		order[(*n)++] = f;
}

void tuner_field_limits(const struct tuner_args *a, int64_t *limit)
{
	const struct space *s = a->space;
	const struct tuner_option *o = tuner_option_find(a->options, a->noptions, "field_limits");
	for (size_t f = 0; f < SPACE_MAX_FIELDS; f++)
		limit[f] = 0;
	if (!o || o->type != TUNER_OPT_TABLE)
		return;
	for (size_t i = 0; i < o->nitems; i++) {
		size_t f = space_field_find(s, o->items[i].key);
		if (f < s->nfields && o->items[i].type == TUNER_OPT_INT && o->items[i].i > 0)
			limit[f] = o->items[i].i;
	}
}

/* SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
 * OOPSLA 2014; the constants of Vigna's reference code). */
uint64_t tuner_rand_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t tuner_rand_below(uint64_t *state, uint64_t n)
{
	uint64_t lim = UINT64_MAX - UINT64_MAX % n;
	uint64_t x;
	do
		x = tuner_rand_next(state);
	while (x >= lim);
	return x % n;
}

double tuner_rand_unit(uint64_t *state)
{
	return (double)(tuner_rand_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

const struct tuner_memo_entry *tuner_memo_find(const struct tuner_memo *m, const struct space *s,
					       const struct config *c)
{
	for (size_t i = 0; i < m->n; i++)
		if (config_equal(s, &m->e[i].c, c))
			return &m->e[i];
	return NULL;
}

int tuner_result_ok(const struct trial_result *r)
{
	return r->status == TRIAL_OK && r->nsamples > 0 && isfinite(r->median_ns);
}

void tuner_memo_add(struct tuner_memo *m, const struct space *s, const struct config *c,
		    const struct trial_result *r)
{
	struct tuner_memo_entry *e = (struct tuner_memo_entry *)tuner_memo_find(m, s, c);
	if (!e) {
		XGROW(m->e, m->cap, m->n + 1);
		e = &m->e[m->n++];
	}
	e->c = *c;
	e->ok = tuner_result_ok(r);
	e->ns = e->ok ? r->median_ns : INFINITY;
}

int tuner_memo_best(const struct tuner_memo *m, struct config *out)
{
	const struct tuner_memo_entry *b = NULL;
	for (size_t i = 0; i < m->n; i++)
		if (m->e[i].ok && (!b || m->e[i].ns < b->ns))
			b = &m->e[i];
	if (!b)
		return -1;
	*out = b->c;
	return 0;
}

void tuner_memo_release(struct tuner_memo *m)
{
	free(m->e);
	memset(m, 0, sizeof(*m));
}

size_t *tuner_valid_points(const struct space *s, size_t max, const char *who, size_t *n,
			   char **cause)
{
	size_t np = space_npoints(s);
	*n = 0;
	if (np > max) {
		if (np == SIZE_MAX)
			*cause = xasprintf("the '%s' space's grid is too large to enumerate (over "
					   "%zu points); %s holds at most %zu", s->op, SIZE_MAX,
					   who, max);
		else
			*cause = xasprintf("the '%s' space has %zu %s points; %s holds at most %zu",
					   s->op, np, s->listed ? "listed" : "grid", who, max);
		return NULL;
	}
	size_t *v = xmalloc((np ? np : 1) * sizeof(*v));
	struct space_walk w;
	space_walk_init(s, &w);
	for (size_t i = 0; i < np; i++) {
		struct config c;
		/* a listed point is valid unless the constraint also excludes it */
		if (space_walk_next(s, &w, &c, NULL))
			continue;
		if (s->listed ? !s->valid || s->valid(s, &c, NULL) : space_check_grid(s, &c, NULL))
			v[(*n)++] = i;
	}
	return v;
}

size_t tuner_valid_find(const struct space *s, const size_t *valid, size_t n,
			const struct config *c)
{
	size_t k;
	if (space_point_find(s, c, &k))
		return n;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (valid[mid] == k)
			return mid;
		if (valid[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return n;
}

uint16_t *tuner_value_indices(const struct space *s, const size_t *valid, size_t n)
{
	size_t nf = s->nfields;
	uint16_t *x = xmalloc((n * nf + 1) * sizeof(*x));
	for (size_t i = 0; i < n; i++) {
		struct config c;
		if (space_point(s, valid[i], &c))
			memset(&c, 0, sizeof(c)); /* not reached: valid holds points of s */
		for (size_t f = 0; f < nf; f++) {
			size_t k = space_value_index(&s->fields[f], c.val[f]);
			x[i * nf + f] = (uint16_t)(k < s->fields[f].nvalues ? k : 0);
		}
	}
	return x;
}

/* McKay, Beckman and Conover's Latin hypercube (Technometrics 21(2), 1979), as scipy.stats.qmc
 * draws it (scramble=True) and its integers() floors it. */
void tuner_lhs_sample(const struct space *s, size_t n, uint64_t *rng, uint16_t *out)
{
	size_t nf = s->nfields;
	size_t *perm = xmalloc((n ? n : 1) * sizeof(*perm));
	for (size_t f = 0; f < nf; f++) {
		for (size_t i = 0; i < n; i++)
			perm[i] = i;
		for (size_t i = n; i > 1; i--) { /* Fisher-Yates */
			size_t j = (size_t)tuner_rand_below(rng, i), tmp = perm[i - 1];
			perm[i - 1] = perm[j];
			perm[j] = tmp;
		}
		size_t nv = s->fields[f].nvalues;
		for (size_t i = 0; i < n; i++) {
			double u = ((double)perm[i] + tuner_rand_unit(rng)) / (double)n;
			size_t k = (size_t)(u * (double)nv);
			out[i * nf + f] = (uint16_t)(k < nv ? k : nv - 1);
		}
	}
	free(perm);
}

int tuner_start_point(const struct space *s, struct config *out)
{
	memset(out, 0, sizeof(*out));
	if (s->heuristic) {
		s->heuristic(s, out);
		if (!out->vendor && space_contains(s, out))
			return 0;
	}
	size_t n = space_npoints(s);
	for (size_t i = 0; i < n; i++)
		if (!space_point(s, i, out) && space_contains(s, out))
			return 0;
	return -1;
}

int tuner_check_rules(const struct tuner_ops *t, const struct tuner_check *c,
		      const struct tuner_rule *rules, char **cause)
{
	static const char *const common[] = { TUNER_COMMON_KEYS };
	const char *known[24];
	size_t n = 0;
	for (; rules[n].key; n++)
		known[n] = rules[n].key;
	if (n + ARRAY_SIZE(common) + 1 > ARRAY_SIZE(known))
		abort(); /* a tuner with more options than this table holds: grow it */
	for (size_t i = 0; i < ARRAY_SIZE(common); i++)
		known[n + i] = common[i];
	known[n + ARRAY_SIZE(common)] = NULL;
	if (tuner_check_known_options(t, c, known, cause))
		return -1;
	for (size_t i = 0; i < c->noptions; i++) {
		const struct tuner_option *o = &c->options[i];
		int handled;
		if (tuner_check_common(o, &handled, cause))
			return -1;
		if (handled)
			continue;
		const struct tuner_rule *r = rules;
		while (strcmp(r->key, o->key))
			r++; /* known: tuner_check_known_options said so */
		int rc = 0;
		switch (r->kind) {
		case RULE_INT: rc = tuner_check_int(o, (int64_t)r->min, (int64_t)r->max, cause); break;
		case RULE_FLOAT: rc = tuner_check_float(o, r->min, r->max, cause); break;
		case RULE_BOOL: rc = tuner_check_bool(o, cause); break;
		case RULE_FIELD_ORDER: rc = tuner_check_field_order(o, c, cause); break;
		case RULE_FIELD_LIMITS: rc = tuner_check_field_limits(o, c, cause); break;
		case RULE_CUSTOM: rc = r->check(o, c, cause); break;
		}
		if (rc)
			return -1;
	}
	return 0;
}
