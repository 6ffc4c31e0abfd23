/* experiment-get.c: typed values of an experiment file with their range checks, each error
 * at the value's line:col (experiment-int.h) */
#include "config.h"
#include "harness/config/experiment.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/base/util.h"
#include "harness/config/experiment-int.h"
#include "harness/config/toml-bridge.h"
#include "harness/config/tomlcheck.h"
#include "kernels/backend.h"
#include "kernels/catalog.h"
#include "kernels/tuner.h"

/* An integer in [min, max]; max INT64_MAX means "no upper bound" in the message. */
int exp_get_int(struct tc_parser *p, const struct tc_field *f, int64_t min, int64_t max,
		   int64_t *out)
{
	if (tc_want_kind(p, f, TB_INTEGER))
		return -1;
	int64_t v = tb_node_int(f->v);
	if (v < min || v > max) {
		if (max == INT64_MAX)
			return tc_fail(p, f->pos, "'%s' must be >= %" PRId64 ", not %" PRId64, f->key,
				    min, v);
		return tc_fail(p, f->pos,
			    "'%s' must be between %" PRId64 " and %" PRId64 ", not %" PRId64,
			    f->key, min, max, v);
	}
	*out = v;
	return 0;
}


/* A finite number (integer or float) above lo, and below hi when flags has NUM_HI. */
int exp_get_number(struct tc_parser *p, const struct tc_field *f, double lo, double hi,
		      unsigned flags, double *out)
{
	enum tb_kind k = tb_node_kind(f->v);
	if (k != TB_INTEGER && k != TB_FLOAT)
		return tc_fail(p, f->pos, "'%s' must be a number, not %s", f->key, tb_kind_phrase(k));
	double v = tb_node_float(f->v);
	if (!isfinite(v))
		return tc_fail(p, f->pos, "'%s' must be a finite number, not %g", f->key, v);
	int lo_ok = flags & NUM_LO_OPEN ? v > lo : v >= lo;
	int hi_ok = flags & NUM_HI ? v < hi : 1;
	if (lo_ok && hi_ok) {
		*out = v;
		return 0;
	}
	const char *lo_op = flags & NUM_LO_OPEN ? ">" : ">=";
	if (flags & NUM_HI)
		return tc_fail(p, f->pos, "'%s' must be %s %g and < %g, not %g", f->key, lo_op, lo, hi,
			    v);
	return tc_fail(p, f->pos, "'%s' must be %s %g, not %g", f->key, lo_op, lo, v);
}

/* Upper bounds of the durations (seconds; docs/experiment-format.md lists the same): far
 * beyond any sane setting, and far below the 292 years at which nanoseconds overflow an
 * int64_t (the scheduler and the worker convert to ns). */

/* A duration in seconds: a number as get_number takes it, and at most max_s (phrase: the
 * bound in words, for the message). */
int exp_get_duration(struct tc_parser *p, const struct tc_field *f, unsigned flags, double max_s,
			const char *phrase, double *out)
{
	double v;
	if (exp_get_number(p, f, 0, 0, flags, &v))
		return -1;
	if (v > max_s)
		return tc_fail(p, f->pos, "'%s' must be at most %g seconds (%s), not %g", f->key, max_s,
			    phrase, v);
	*out = v;
	return 0;
}

int exp_get_bool(struct tc_parser *p, const struct tc_field *f, int *out)
{
	if (tc_want_kind(p, f, TB_BOOL))
		return -1;
	*out = tb_node_bool(f->v);
	return 0;
}

/* A string without NUL bytes, copied to a new heap string in *out (freeing the old one). */
int exp_get_string(struct tc_parser *p, const struct tc_field *f, char **out)
{
	if (tc_want_kind(p, f, TB_STRING))
		return -1;
	size_t len;
	const char *s = tb_node_string(f->v, &len);
	if (strlen(s) != len)
		return tc_fail(p, f->pos, "'%s' must not contain a NUL character", f->key);
	free(*out);
	*out = xstrdup(s);
	return 0;
}

int exp_is_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!(('a' <= *s && *s <= 'z') || ('A' <= *s && *s <= 'Z') ||
		      ('0' <= *s && *s <= '9') || *s == '.' || *s == '_' || *s == '-'))
			return 0;
	return 1;
}

/* A name: [A-Za-z0-9._-]+ (experiment, workload and mode names). */
int exp_get_name(struct tc_parser *p, const struct tc_field *f, char **out)
{
	if (exp_get_string(p, f, out))
		return -1;
	if (!exp_is_name(*out))
		return tc_fail(p, f->pos,
			    "'%s' must be made of letters, digits, '.', '_' and '-', not '%s'",
			    f->key, *out);
	return 0;
}

/* One of names (NULL-terminated); *out gets its index. */
int exp_get_enum(struct tc_parser *p, const struct tc_field *f, const char *const *names, int *out)
{
	char *s = NULL;
	if (exp_get_string(p, f, &s))
		return -1;
	for (int i = 0; names[i]; i++) {
		if (!strcmp(s, names[i])) {
			*out = i;
			free(s);
			return 0;
		}
	}
	char *list = tc_join(names);
	tc_fail(p, f->pos, "'%s' must be one of %s, not '%s'", f->key, list, s);
	free(list);
	free(s);
	return -1;
}

/* An array of strings into a new heap vector *out of *n copies. */
int exp_get_string_list(struct tc_parser *p, const struct tc_field *f, char ***out, size_t *n)
{
	if (tc_want_kind(p, f, TB_ARRAY))
		return -1;
	return tc_get_string_array(p, f, exp_get_string, out, n);
}

/* An array of tables ([[key]]) with at least one entry. */
int exp_want_table_array(struct tc_parser *p, const struct tc_field *f)
{
	if (tb_node_kind(f->v) != TB_ARRAY)
		return tc_fail(p, f->pos, "'%s' must be an array of tables ([[%s]]), not %s", f->key,
			    f->key, tb_kind_phrase(tb_node_kind(f->v)));
	if (tb_node_len(f->v) == 0)
		return tc_fail(p, f->pos, "'%s' must have at least one entry", f->key);
	for (size_t i = 0; i < tb_node_len(f->v); i++) {
		const struct tb_node *t = tb_node_at(f->v, i);
		if (tb_node_kind(t) != TB_TABLE)
			return tc_fail(p, tb_node_pos(t), "'%s' entries must be tables, not %s",
				    f->key, tb_kind_phrase(tb_node_kind(t)));
	}
	return 0;
}

/* backend = "auto" or a registry name (backend.h) that this build has: a backend the
 * build lacks is refused here, at its line:col ("command" is the backend of command modes), rather
 * than when the run starts.  Whether this machine can run it is the run's question. */
int exp_get_only_on(struct tc_parser *p, const struct tc_field *f, char **out)
{
	/* any backend the harness knows, built here or not: what is only for another backend
	 * is left out of this machine's run, never an error */
	int k = 0;
	if (exp_get_enum(p, f, backend_choices(), &k))
		return -1;
	if (!strcmp(backend_choices()[k], "auto"))
		return tc_fail(p, f->pos, "'only_on' names one backend, not 'auto' (leave it out "
			       "for every backend)");
	free(*out);
	*out = xstrdup(backend_choices()[k]);
	return 0;
}

int exp_get_backend(struct tc_parser *p, const struct tc_field *f, char **out)
{
	int k = 0;
	if (p->flags & EXPERIMENT_PAST_RUN) /* whatever the past run's build had */
		return exp_get_string(p, f, out);
	if (exp_get_enum(p, f, backend_choices(), &k))
		return -1;
	free(*out);
	*out = xstrdup(backend_choices()[k]);
	const struct backend_entry *be = backend_entry(*out);
	if (be && !be->ops && be->start != BACKEND_START_COMMAND)
		return tc_fail(p, f->pos, "backend '%s' is not built into this harness: %s", *out,
			    be->missing);
	return 0;
}
