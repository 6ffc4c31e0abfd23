/* tuner-lut.c: the "lut" tuner (fast_autotune's kernel lookup table): the config a TOML
 * table gives for the cell's op and shape, compiled and checked, never timed; whenever the
 * table cannot answer, the heuristic's config instead, with the reason in the tuner's note.
 *
 * Lookup (docs/kernels.md): the entries of the cell's op whose shape has exactly the cell's
 * shape keys.  An entry with every value equal is exact.  With match = "nearest" (the
 * default) and no exact entry, the entry at the least distance
 *     d(e, cell) = sum over shape keys k of |log2 e_k - log2 cell_k|
 * (a key whose value is 0 on either side must be equal, pad = 0), ties to the entry written
 * first, when d <= max_distance (default: any).  match = "exact": exact entries only.
 * Fallbacks to the heuristic (each named in the note): the table unusable (unreadable or
 * malformed at run time), no entry for the op, none for the shape, the nearest too far, the
 * entry's config not a point of the cell's space (a stale table: unknown field, a value the
 * field no longer allows, or excluded by the constraint for this shape), the entry's config
 * failing its compile or check.  The tuner never chooses a config that failed its check.
 * Options: table (the file; read by the configuration layer), match, max_distance. */
#include "config.h"
#include "kernels/tune/tuner-int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct tuner_ops tuner_lut;

struct tuner {
	const struct space *space;
	struct config cand[2];   /* the table's config (when usable), then the heuristic's */
	int from_table[2];
	size_t ncand, next;
	int have_best;
	struct config best;
	int best_from_table;
	char found[256];         /* which entry was used, when one was */
	char why[384];           /* why the table was not used, when it was not */
};

static const char *const lut_known[] = { "table", "match", "max_distance", NULL };

static int lut_check_options(const struct tuner_check *c, char **cause)
{
	static const char *const matches[] = { "exact", "nearest", NULL };
	if (tuner_check_known_options(&tuner_lut, c, lut_known, cause))
		return -1;
	for (size_t i = 0; i < c->noptions; i++) {
		const struct tuner_option *o = &c->options[i];
		int r = 0;
		if (!strcmp(o->key, "table")) {
			if (o->type != TUNER_OPT_STRING || !o->s || !*o->s) {
				*cause = xasprintf("%d:%d: 'table' must be the path of a TOML lookup "
						   "table (a non-empty string)", o->line, o->col);
				return -1;
			}
		} else if (!strcmp(o->key, "match")) {
			r = tuner_check_enum(o, matches, cause);
		} else if (!strcmp(o->key, "max_distance")) {
			r = tuner_check_float(o, 0, 1e9, cause);
		}
		if (r)
			return -1;
	}
	return 0;
}

/* The cell's shape "m=64,n=48,k=72" into keys (pointers into buf) and values; their number,
 * or -1 when it is not of that form. */
static int parse_shape(const char *shape, char *buf, size_t size, char **keys, int64_t *vals,
		       size_t max)
{
	snprintf(buf, size, "%s", shape ? shape : "");
	int n = 0;
	for (char *item = buf, *next; item && *item; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		char *eq = strchr(item, '=');
		if (!eq || (size_t)n >= max)
			return -1;
		*eq = '\0';
		if (parse_i64(eq + 1, INT64_MIN, INT64_MAX, &vals[n]))
			return -1;
		keys[n++] = item;
	}
	return n;
}

/* The distance of entry e from the cell (keys, vals, n): 0 exact, INFINITY when its keys
 * differ or it can match only exactly and does not. */
static double distance(const struct tuner_lut_entry *e, char *const *keys, const int64_t *vals,
		       size_t n)
{
	if (e->nshape != n)
		return INFINITY;
	double d = 0;
	int exact = 1;
	for (size_t k = 0; k < n; k++) {
		size_t j = 0;
		while (j < e->nshape && strcmp(e->shape_keys[j], keys[k]))
			j++;
		if (j == e->nshape)
			return INFINITY;
		int64_t a = e->shape_vals[j], b = vals[k];
		exact &= a == b;
		if (a > 0 && b > 0)
			d += fabs(log2((double)a) - log2((double)b));
		else if (a != b)
			return INFINITY; /* a key at 0 (pad = 0) matches only itself */
	}
	return exact ? 0 : d;
}

static struct tuner *lut_alloc(const struct tuner_args *a, char **cause)
{
	struct tuner *t = xcalloc(1, sizeof(*t));
	const struct tuner_lut *l = a->lut;
	const char *match = tuner_opt_string(a, "match", "nearest");
	double maxd = tuner_opt_float(a, "max_distance", INFINITY);
	const char *op = a->cell && a->cell->op ? a->cell->op : a->space->op;
	t->space = a->space;
	if (!l) {
		snprintf(t->why, sizeof(t->why), "no table was given");
	} else if (l->error) {
		snprintf(t->why, sizeof(t->why), "the table is unusable: %s", l->error);
	} else {
		char buf[512], *keys[16];
		int64_t vals[16];
		int n = parse_shape(a->cell ? a->cell->shape : NULL, buf, sizeof(buf), keys, vals, 16);
		const struct tuner_lut_entry *best = NULL;
		double bd = INFINITY;
		size_t nop = 0;
		for (size_t i = 0; i < l->n && n >= 0; i++) {
			const struct tuner_lut_entry *e = &l->e[i];
			if (strcmp(e->op, op))
				continue;
			nop++;
			double d = distance(e, keys, vals, (size_t)n);
			if (d < bd) {
				bd = d;
				best = e;
			}
		}
		if (n < 0) {
			snprintf(t->why, sizeof(t->why), "the cell's shape '%s' is not key=value pairs",
				 a->cell ? a->cell->shape : "");
		} else if (!nop) {
			snprintf(t->why, sizeof(t->why), "'%s' has no entry for op '%s'", l->path, op);
		} else if (!best || (bd > 0 && !strcmp(match, "exact"))) {
			snprintf(t->why, sizeof(t->why), "'%s' has no %sentry for %s shape %s",
				 l->path, strcmp(match, "exact") ? "comparable " : "exact ", op,
				 a->cell ? a->cell->shape : "");
		} else if (bd > maxd) {
			snprintf(t->why, sizeof(t->why), "the nearest entry ('%s':%d:%d) is at "
				 "distance %.4g > max_distance %.4g", l->path, best->line, best->col,
				 bd, maxd);
		} else {
			struct config c;
			char *why = NULL;
			const char *rule = NULL;
			if (config_parse(a->space, best->config, &c, &why)) {
				snprintf(t->why, sizeof(t->why), "stale entry '%s':%d:%d: %s", l->path,
					 best->line, best->col, why);
			} else if (!space_check(a->space, &c, &rule)) {
				snprintf(t->why, sizeof(t->why), "stale entry '%s':%d:%d: '%s' is not "
					 "valid for this shape (%s)", l->path, best->line, best->col,
					 best->config, rule ? rule : "excluded");
			} else {
				t->cand[t->ncand] = c;
				t->from_table[t->ncand++] = 1;
				if (bd == 0)
					snprintf(t->found, sizeof(t->found), "exact entry '%s':%d:%d",
						 l->path, best->line, best->col);
				else
					snprintf(t->found, sizeof(t->found), "nearest entry '%s':%d:%d "
						 "(distance %.4g)", l->path, best->line, best->col, bd);
			}
			free(why);
		}
	}
	struct config h;
	if (!tuner_start_point(a->space, &h) &&
	    !(t->ncand && config_equal(a->space, &h, &t->cand[0]))) {
		t->cand[t->ncand] = h;
		t->from_table[t->ncand++] = 0;
	}
	(void)cause;
	return t;
}

static int lut_next(struct tuner *t, struct config *c)
{
	/* the heuristic only when the table gave nothing usable */
	if (t->have_best || t->next >= t->ncand)
		return 0;
	*c = t->cand[t->next++];
	return 1;
}

/* Its first proposal, which it always makes (the table's config, else the heuristic's): the
 * heuristic after a failed table config depends on that trial, so it is compiled when
 * proposed. */
static size_t lut_plan(const struct tuner *t, struct config *out, size_t max)
{
	if (!t->ncand || !max)
		return 0;
	out[0] = t->cand[0];
	return 1;
}

static void lut_observe(struct tuner *t, const struct config *c, const struct trial_result *r)
{
	size_t k = t->next - 1;
	if (r->status == TRIAL_OK) {
		t->have_best = 1;
		t->best = *c;
		t->best_from_table = t->from_table[k];
	} else if (t->from_table[k]) {
		struct sbuf sb;
		sbuf_init(&sb);
		config_format(t->space, c, &sb);
		snprintf(t->why, sizeof(t->why), "the %s config '%s' failed: %s", t->found, sb.buf,
			 trial_status_name(r->status));
		sbuf_release(&sb);
	}
}

static int lut_best(struct tuner *t, struct config *out)
{
	if (!t->have_best)
		return -1;
	*out = t->best;
	return 0;
}

static int lut_note(const struct tuner *t, char *out, size_t size)
{
	if (t->have_best && t->best_from_table) {
		snprintf(out, size, "lut: %s", t->found);
		return 0;
	}
	if (t->have_best)
		snprintf(out, size, "lut: fell back to the heuristic: %s", t->why);
	else
		snprintf(out, size, "lut: nothing usable: %s", t->why);
	return 1;
}

static void lut_free(struct tuner *t)
{
	free(t);
}

void tuner_lut_release(struct tuner_lut *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct tuner_lut_entry *e = &l->e[i];
		for (size_t k = 0; k < e->nshape; k++)
			free(e->shape_keys[k]);
		free(e->shape_keys);
		free(e->shape_vals);
		free(e->op);
		free(e->config);
	}
	free(l->e);
	free(l->path);
	free(l->text);
	free(l->error);
	memset(l, 0, sizeof(*l));
}

const struct tuner_ops tuner_lut = {
	.name = "lut",
	.flags = TUNER_COMPILES,
	.check_options = lut_check_options,
	.alloc = lut_alloc,
	.next = lut_next,
	.plan = lut_plan,
	.observe = lut_observe,
	.best = lut_best,
	.free = lut_free,
	.note = lut_note,
};
