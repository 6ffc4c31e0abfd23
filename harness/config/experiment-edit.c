/* experiment-edit.c: the run's edits on a parsed experiment before it is built: -D KEY=VALUE
 * merged into the document, [[modes]] and [[workloads]] entries with `axes` expanded into
 * one entry per combination of values, and the --mode / --workload filters
 * (docs/experiment-format.md, "Overrides, filters and axes"). */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "harness/base/util.h"
#include "harness/config/experiment-int.h"
#include "harness/config/toml-bridge.h"
#include "harness/config/tomlcheck.h"

#define MAX_AXES 16 /* axes of one entry */

/* ---- the edits as a value --------------------------------------------------------------- */

int exp_edits_none(const struct exp_edits *e)
{
	return !e || (!e->nsets && !e->nmodes && !e->nworkloads);
}

static int strv_equal(char *const *a, size_t na, char *const *b, size_t nb)
{
	if (na != nb)
		return 0;
	for (size_t i = 0; i < na; i++)
		if (strcmp(a[i], b[i]))
			return 0;
	return 1;
}

int exp_edits_equal(const struct exp_edits *a, const struct exp_edits *b)
{
	static const struct exp_edits none;
	a = a ? a : &none;
	b = b ? b : &none;
	return strv_equal(a->sets, a->nsets, b->sets, b->nsets) &&
	       strv_equal(a->modes, a->nmodes, b->modes, b->nmodes) &&
	       strv_equal(a->workloads, a->nworkloads, b->workloads, b->nworkloads);
}

/* A heap copy of n strings (NULL when n is 0). */
static char **strv_copy(char *const *v, size_t n)
{
	if (!n)
		return NULL;
	char **out = xcalloc(n + 1, sizeof(*out));
	for (size_t i = 0; i < n; i++)
		out[i] = xstrdup(v[i]);
	return out;
}

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void exp_edits_copy(struct exp_edits *dst, const struct exp_edits *src)
{
	memset(dst, 0, sizeof(*dst));
	if (!src)
		return;
	dst->sets = strv_copy(src->sets, dst->nsets = src->nsets);
	dst->modes = strv_copy(src->modes, dst->nmodes = src->nmodes);
	dst->workloads = strv_copy(src->workloads, dst->nworkloads = src->nworkloads);
}

void exp_edits_release(struct exp_edits *e)
{
	strv_free(e->sets, e->nsets);
	strv_free(e->modes, e->nmodes);
	strv_free(e->workloads, e->nworkloads);
	memset(e, 0, sizeof(*e));
}

char *exp_edits_json(char *const *v, size_t n)
{
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_adds(&sb, "[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			sbuf_adds(&sb, ",");
		sbuf_add_json_string(&sb, v[i]);
	}
	sbuf_adds(&sb, "]");
	return sbuf_detach(&sb);
}

/* One recorded list (a JSON array of strings, or NULL/"": none) into *out, *n. */
static int strv_from_json(const char *key, const char *text, char ***out, size_t *n,
			  char **cause)
{
	*out = NULL;
	*n = 0;
	if (!text || !*text)
		return 0;
	json_error_t je;
	json_t *a = json_loads(text, 0, &je);
	size_t len = json_is_array(a) ? json_array_size(a) : 0;
	for (size_t i = 0; json_is_array(a) && i < len; i++)
		if (!json_is_string(json_array_get(a, i)))
			len = 0, json_decref(a), a = NULL;
	if (!json_is_array(a)) {
		json_decref(a);
		*cause = xasprintf("its '%s' is not a JSON array of strings", key);
		return -1;
	}
	*out = len ? xcalloc(len + 1, sizeof(**out)) : NULL;
	for (size_t i = 0; i < len; i++)
		(*out)[i] = xstrdup(json_string_value(json_array_get(a, i)));
	*n = len;
	json_decref(a);
	return 0;
}

int exp_edits_from_json(const char *sets, const char *modes, const char *workloads,
			struct exp_edits *out, char **cause)
{
	memset(out, 0, sizeof(*out));
	*cause = NULL;
	if (strv_from_json("overrides", sets, &out->sets, &out->nsets, cause) ||
	    strv_from_json("mode_filter", modes, &out->modes, &out->nmodes, cause) ||
	    strv_from_json("workload_filter", workloads, &out->workloads, &out->nworkloads,
			   cause)) {
		exp_edits_release(out);
		return -1;
	}
	return 0;
}

/* ---- -D KEY=VALUE ----------------------------------------------------------------------- */

/* The k-th -D as a document: "KEY=VALUE" read as a line of TOML, or, when that fails and
 * VALUE is a bare word (it starts with none of " ' [ {), as KEY = "VALUE".  Every node of
 * it is at tc_set_pos(k).  NULL reported. */
static struct tb_doc *set_parse(struct tc_parser *p, size_t k, const char *set)
{
	const char *eq = strchr(set, '=');
	if (!eq || eq == set || strchr(set, '\n')) {
		tc_fail(p, tc_set_pos(k), "not KEY=VALUE, one key (a TOML key, '=', a TOML value: "
			"-D measure.min_samples=5)");
		return NULL;
	}
	char *cause = NULL;
	struct tb_doc *d = tb_doc_parse(set, strlen(set), &cause);
	const char *v = eq + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	if (!d && *v && !strchr("\"'[{", *v)) {
		struct sbuf sb;
		sbuf_init(&sb);
		sbuf_add(&sb, set, (size_t)(eq - set) + 1);
		sbuf_add_json_string(&sb, v); /* a JSON string is a TOML basic string */
		char *c2 = NULL;
		d = tb_doc_parse(sb.buf, sb.len, &c2);
		free(c2);
		sbuf_release(&sb);
	}
	if (!d) {
		const char *why = strchr(cause, ' ') ? strchr(cause, ' ') + 1 : cause;
		tc_fail(p, tc_set_pos(k), "not KEY=VALUE in TOML (%s)", why);
		free(cause);
		return NULL;
	}
	free(cause);
	tb_node_set_pos(tb_doc_root_mut(d), tc_set_pos(k));
	return d;
}

/* 1 when a is an array whose every element (one at least) is a table. */
static int is_table_array(const struct tb_node *a)
{
	if (tb_node_kind(a) != TB_ARRAY || !tb_node_len(a))
		return 0;
	for (size_t i = 0; i < tb_node_len(a); i++)
		if (tb_node_kind(tb_node_at(a, i)) != TB_TABLE)
			return 0;
	return 1;
}

/* The string names of an array of tables' entries, NULL-terminated (heap; the strings are
 * the document's). */
static const char **entry_names(const struct tb_node *a)
{
	const char **v = xcalloc(tb_node_len(a) + 1, sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < tb_node_len(a); i++) {
		const struct tb_node *nm = tb_node_get(tb_node_at(a, i), "name", NULL);
		if (nm && tb_node_kind(nm) == TB_STRING)
			v[n++] = tb_node_string(nm, NULL);
	}
	return v;
}

/* The index of the entry of a named name, or -1. */
static long entry_index(const struct tb_node *a, const char *name)
{
	for (size_t i = 0; i < tb_node_len(a); i++) {
		const struct tb_node *nm = tb_node_get(tb_node_at(a, i), "name", NULL);
		if (nm && tb_node_kind(nm) == TB_STRING && !strcmp(tb_node_string(nm, NULL), name))
			return (long)i;
	}
	return -1;
}

static int merge(struct tc_parser *p, size_t k, struct tb_node *dst, const struct tb_node *src);

/* src (a table: NAME = { KEY = VALUE }) over the array of tables arr called key: each NAME
 * is the entry whose name it is. */
static int merge_named(struct tc_parser *p, size_t k, const char *key, struct tb_node *arr,
		       const struct tb_node *src)
{
	for (size_t i = 0; i < tb_node_len(src); i++) {
		const char *name = tb_node_key(src, i);
		const struct tb_node *sub = tb_node_at(src, i);
		long at = entry_index(arr, name);
		if (at < 0) {
			const char **names = entry_names(arr);
			const char *s = tc_suggest(name, names);
			char *list = tc_join(names);
			int r = tc_fail(p, tc_set_pos(k), "no [[%s]] entry is named '%s'%s%s%s "
					"(%s: %s; an entry is addressed by its name as the file "
					"writes it: %s.NAME.KEY=VALUE)", key, name,
					s ? " (did you mean '" : "", s ? s : "", s ? "'?)" : "", key,
					list, key);
			free(list);
			free(names);
			return r;
		}
		if (tb_node_kind(sub) != TB_TABLE)
			return tc_fail(p, tc_set_pos(k), "'%s.%s' is an entry of [[%s]], not a value: "
				       "set its keys (%s.%s.KEY=VALUE)", key, name, key, key, name);
		if (merge(p, k, tb_node_at_mut(arr, (size_t)at), sub))
			return -1;
	}
	return 0;
}

/* src's entries over dst's (both tables): a table over a table merges into it, a table over
 * an array of tables merges into its entries by name, any other value replaces the one
 * there or is added last. */
static int merge(struct tc_parser *p, size_t k, struct tb_node *dst, const struct tb_node *src)
{
	for (size_t i = 0; i < tb_node_len(src); i++) {
		const char *key = tb_node_key(src, i);
		const struct tb_node *v = tb_node_at(src, i);
		struct tb_node *old = tb_node_get_mut(dst, key);
		int r = 0;
		if (old && tb_node_kind(v) == TB_TABLE && tb_node_kind(old) == TB_TABLE)
			r = merge(p, k, old, v);
		else if (old && tb_node_kind(v) == TB_TABLE && is_table_array(old))
			r = merge_named(p, k, key, old, v);
		else
			tb_table_set(dst, key, tc_set_pos(k), tb_node_clone(v));
		if (r)
			return -1;
	}
	return 0;
}

/* ---- axes ------------------------------------------------------------------------------- */

struct axis {
	const char *key;            /* as written: "options.max_trials" */
	const char *tail;           /* its last part: "max_trials" */
	const struct tb_node *vals; /* the array of values */
	int used;                   /* the name says it */
};

/* The text a value gives an expanded name: a string as it is, a number or a boolean as TOML
 * writes it (heap); NULL for another kind. */
static char *axis_text(const struct tb_node *v)
{
	switch (tb_node_kind(v)) {
	case TB_STRING: return xstrdup(tb_node_string(v, NULL));
	case TB_INTEGER: return xasprintf("%" PRId64, tb_node_int(v));
	case TB_FLOAT: return xasprintf("%g", tb_node_float(v));
	case TB_BOOL: return xstrdup(tb_node_bool(v) ? "true" : "false");
	default: return NULL;
	}
}

/* The entry's name template tmpl with each {AXIS} replaced by the value pick gives that
 * axis (AXIS: its key as written, or its last part when no other axis ends so); heap, or
 * NULL reported at pos. */
static char *axis_name(struct tc_parser *p, const char *tmpl, struct tb_pos pos, struct axis *ax,
		       size_t nax, const size_t *pick)
{
	struct sbuf sb;
	sbuf_init(&sb);
	for (const char *c = tmpl; *c; c++) {
		const char *close = *c == '{' ? strchr(c, '}') : NULL;
		if (!close) {
			sbuf_add(&sb, c, 1);
			continue;
		}
		size_t len = (size_t)(close - c - 1), hit = nax, tails = 0;
		for (size_t a = 0; a < nax && hit == nax; a++)
			if (strlen(ax[a].key) == len && !strncmp(ax[a].key, c + 1, len))
				hit = a;
		for (size_t a = 0; hit == nax && a < nax; a++)
			if (strlen(ax[a].tail) == len && !strncmp(ax[a].tail, c + 1, len)) {
				tails++;
				hit = a;
			}
		for (size_t a = hit + 1; tails == 1 && a < nax; a++)
			if (strlen(ax[a].tail) == len && !strncmp(ax[a].tail, c + 1, len))
				tails++;
		if (hit == nax || tails > 1) {
			struct sbuf keys;
			sbuf_init(&keys);
			for (size_t a = 0; a < nax; a++)
				sbuf_addf(&keys, "%s%s", a ? ", " : "", ax[a].key);
			tc_fail(p, pos, "'name': '{%.*s}' %s (axes: %s)", (int)len, c + 1,
				tails > 1 ? "ends two axes' keys: write the whole key" : "names no axis",
				keys.buf);
			sbuf_release(&keys);
			sbuf_release(&sb);
			return NULL;
		}
		char *t = axis_text(tb_node_at(ax[hit].vals, pick[hit]));
		sbuf_adds(&sb, t);
		free(t);
		ax[hit].used = 1;
		c = close;
	}
	return sbuf_detach(&sb);
}

/* t's dotted key path = v (given away), making the tables on the way; a key the entry
 * writes itself, or a value on the way that is not a table, is an error at at. */
static int set_path(struct tc_parser *p, struct tb_node *t, const char *path, struct tb_pos at,
		    struct tb_node *v)
{
	char *copy = xstrdup(path), *seg = copy;
	for (;;) {
		char *dot = strchr(seg, '.');
		if (dot)
			*dot = '\0';
		struct tb_node *next = tb_node_get_mut(t, seg);
		int r = 0;
		if (!dot && next)
			r = tc_fail(p, at, "axis '%s' sets a key the entry writes too (at %d:%d)",
				    path, tb_node_pos(next).line, tb_node_pos(next).col);
		else if (!dot)
			tb_table_set(t, seg, at, v);
		else if (next && tb_node_kind(next) != TB_TABLE)
			r = tc_fail(p, at, "axis '%s': '%s' is %s, not a table", path, seg,
				    tb_kind_phrase(tb_node_kind(next)));
		else if (!next)
			tb_table_set(t, seg, at, next = tb_node_new(TB_TABLE, at));
		if (r || !dot) {
			if (r)
				tb_node_free(v);
			free(copy);
			return r;
		}
		t = next;
		seg = dot + 1;
	}
}

/* The axes table af of entry el (of [[what]]) checked into ax (*nax of them) with the
 * product of their lengths in *product. */
static int axes_read(struct tc_parser *p, const char *what, const struct tc_field *af,
		     struct axis *ax, size_t *nax, size_t *product)
{
	if (tc_want_kind(p, af, TB_TABLE))
		return -1;
	*nax = tb_node_len(af->v);
	if (!*nax || *nax > MAX_AXES)
		return tc_fail(p, af->pos, "'axes' must name 1 to %d keys, each with a list of "
			       "values (axes = { \"options.max_trials\" = [10, 100] })", MAX_AXES);
	*product = 1;
	for (size_t a = 0; a < *nax; a++) {
		struct tc_field g = tc_field_at(af->v, a);
		size_t len = strlen(g.key);
		ax[a].key = g.key;
		ax[a].tail = strrchr(g.key, '.') ? strrchr(g.key, '.') + 1 : g.key;
		ax[a].vals = g.v;
		ax[a].used = 0;
		if (!len || g.key[0] == '.' || g.key[len - 1] == '.' || strstr(g.key, ".."))
			return tc_fail(p, g.key_pos, "axis '%s' is not a key (a dotted key of the "
				       "entry: \"options.max_trials\")", g.key);
		size_t first = strcspn(g.key, ".");
		if ((first == 4 && !strncmp(g.key, "name", 4)) || (first == 4 && !strncmp(g.key, "axes", 4)))
			return tc_fail(p, g.key_pos, "an axis cannot set '%.*s' (the name says the "
				       "axes' values)", (int)first, g.key);
		if (tb_node_kind(g.v) != TB_ARRAY || !tb_node_len(g.v))
			return tc_fail(p, g.pos, "axis '%s' must be a non-empty array of values "
				       "([10, 100, 1000])", g.key);
		for (size_t i = 0; i < tb_node_len(g.v); i++) {
			const struct tb_node *x = tb_node_at(g.v, i);
			char *t = axis_text(x);
			if (!t)
				return tc_fail(p, tb_node_pos(x), "axis '%s': values must be strings, "
					       "integers, floats or booleans, not %s", g.key,
					       tb_kind_phrase(tb_node_kind(x)));
			free(t);
		}
		*product *= tb_node_len(g.v);
		if (*product > MAX_AXES_PRODUCT)
			return tc_fail(p, af->key_pos, "'axes' of this [[%s]] entry expand to more "
				       "than %d entries", what, MAX_AXES_PRODUCT);
	}
	return 0;
}

/* One entry el with axes (its field index ai) into out: one copy per combination of the
 * axes' values (the first axis varies slowest), each without `axes`, with the axes' keys
 * set and its name template filled. */
static int expand_one(struct tc_parser *p, const char *what, const struct tb_node *el, size_t ai,
		      struct tb_node *out)
{
	struct tc_field af = tc_field_at(el, ai);
	struct axis ax[MAX_AXES];
	size_t nax = 0, product = 0, ni;
	if (axes_read(p, what, &af, ax, &nax, &product))
		return -1;
	const struct tb_node *nm = tb_node_get(el, "name", &ni);
	if (!nm || tb_node_kind(nm) != TB_STRING)
		return tc_fail(p, nm ? tb_node_pos(nm) : tb_node_pos(el), "an entry with 'axes' "
			       "needs a 'name' string that says each axis's value (name = "
			       "\"random-{max_trials}\")");
	size_t pick[MAX_AXES] = { 0 };
	for (size_t c = 0; c < product; c++) {
		for (size_t a = nax, rest = c; a-- > 0;) {
			pick[a] = rest % tb_node_len(ax[a].vals);
			rest /= tb_node_len(ax[a].vals);
		}
		char *name = axis_name(p, tb_node_string(nm, NULL), tb_node_pos(nm), ax, nax, pick);
		if (!name)
			return -1;
		for (size_t a = 0; c == 0 && a < nax; a++)
			if (!ax[a].used) {
				free(name);
				return tc_fail(p, tb_node_pos(nm), "'name' must say the value of "
					       "axis '%s', or the entries would share it: add "
					       "'{%s}'", ax[a].key, ax[a].tail);
			}
		struct tb_node *e = tb_node_clone(el);
		tb_node_remove(e, ai);
		tb_table_set(e, "name", tb_node_key_pos(el, ni), tb_string_new(name, tb_node_pos(nm)));
		free(name);
		for (size_t a = 0; a < nax; a++) {
			const struct tb_node *v = tb_node_at(ax[a].vals, pick[a]);
			if (set_path(p, e, ax[a].key, tb_node_pos(v), tb_node_clone(v))) {
				tb_node_free(e);
				return -1;
			}
		}
		tb_array_push(out, e);
	}
	return 0;
}

/* A template's expansion, for the modes' `workloads` lists. */
struct expanded {
	char *tmpl;           /* the name as written (heap) */
	size_t first, n;      /* its entries in the new array */
};

/* The entries of root's array of tables what that have `axes`, expanded in place; *nex
 * counts them, and each is noted in *ex (heap) when ex is not NULL.  Two entries of one name are then an
 * error at the later one's name. */
static int expand_axes(struct tc_parser *p, struct tb_node *root, const char *what,
		       struct expanded **ex, size_t *nex)
{
	size_t idx;
	if (!tb_node_get(root, what, &idx))
		return 0;
	const struct tb_node *arr = tb_node_at(root, idx);
	int any = 0;
	for (size_t i = 0; tb_node_kind(arr) == TB_ARRAY && i < tb_node_len(arr); i++)
		any |= tb_node_kind(tb_node_at(arr, i)) == TB_TABLE &&
		       tb_node_get(tb_node_at(arr, i), "axes", NULL);
	if (!any)
		return 0;
	struct tb_node *out = tb_node_new(TB_ARRAY, tb_node_pos(arr));
	for (size_t i = 0; i < tb_node_len(arr); i++) {
		const struct tb_node *el = tb_node_at(arr, i);
		size_t ai;
		if (tb_node_kind(el) != TB_TABLE || !tb_node_get(el, "axes", &ai)) {
			tb_array_push(out, tb_node_clone(el));
			continue;
		}
		size_t first = tb_node_len(out);
		if (expand_one(p, what, el, ai, out)) {
			tb_node_free(out);
			return -1;
		}
		if (ex) {
			*ex = xrealloc(*ex, (*nex + 1) * sizeof(**ex));
			(*ex)[*nex] = (struct expanded){
				xstrdup(tb_node_string(tb_node_get(el, "name", NULL), NULL)), first,
				tb_node_len(out) - first };
		}
		(*nex)++;
	}
	for (size_t j = 1; j < tb_node_len(out); j++) {
		const struct tb_node *b = tb_node_get(tb_node_at(out, j), "name", NULL);
		for (size_t i = 0; b && tb_node_kind(b) == TB_STRING && i < j; i++) {
			const struct tb_node *a = tb_node_get(tb_node_at(out, i), "name", NULL);
			if (!a || tb_node_kind(a) != TB_STRING ||
			    strcmp(tb_node_string(a, NULL), tb_node_string(b, NULL)))
				continue;
			int r = tc_fail(p, tb_node_pos(b), "two [[%s]] entries are named '%s' (the "
					"other's name at %d:%d): an entry's axes give one name per "
					"combination of values, and names are unique", what,
					tb_node_string(b, NULL), tb_node_pos(a).line,
					tb_node_pos(a).col);
			tb_node_free(out);
			return r;
		}
	}
	tb_table_set(root, what, tb_node_key_pos(root, idx), out);
	return 0;
}

/* Each mode's `workloads` entry that names a workload template (ex) becomes the names it
 * expanded to. */
static void expand_workload_refs(struct tb_node *root, const struct expanded *ex, size_t nex)
{
	struct tb_node *modes = tb_node_get_mut(root, "modes");
	const struct tb_node *wl = tb_node_get(root, "workloads", NULL);
	for (size_t i = 0; nex && modes && tb_node_kind(modes) == TB_ARRAY && i < tb_node_len(modes);
	     i++) {
		struct tb_node *m = tb_node_at_mut(modes, i);
		struct tb_node *list = tb_node_kind(m) == TB_TABLE ? tb_node_get_mut(m, "workloads")
								  : NULL;
		if (!list || tb_node_kind(list) != TB_ARRAY)
			continue;
		struct tb_node *out = tb_node_new(TB_ARRAY, tb_node_pos(list));
		for (size_t j = 0; j < tb_node_len(list); j++) {
			const struct tb_node *s = tb_node_at(list, j);
			size_t t = 0;
			while (tb_node_kind(s) == TB_STRING && t < nex &&
			       strcmp(ex[t].tmpl, tb_node_string(s, NULL)))
				t++;
			if (tb_node_kind(s) != TB_STRING || t == nex || entry_index(wl, ex[t].tmpl) >= 0) {
				tb_array_push(out, tb_node_clone(s));
				continue;
			}
			for (size_t k = 0; k < ex[t].n; k++) {
				const struct tb_node *nm =
					tb_node_get(tb_node_at(wl, ex[t].first + k), "name", NULL);
				tb_array_push(out, tb_string_new(tb_node_string(nm, NULL),
								 tb_node_pos(s)));
			}
		}
		size_t at;
		tb_node_get(m, "workloads", &at);
		tb_table_set(m, "workloads", tb_node_key_pos(m, at), out);
	}
}

/* ---- --mode and --workload -------------------------------------------------------------- */

/* Each name of want (n of them, the option opt) must be an entry of arr ([[what]]): else an
 * error with the nearest name. */
static int filter_names(struct tc_parser *p, const char *opt, const char *what,
			const struct tb_node *arr, char *const *want, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (arr && entry_index(arr, want[i]) >= 0)
			continue;
		const char *none[] = { NULL };
		const char **names = arr ? entry_names(arr) : NULL;
		const char *s = tc_suggest(want[i], names ? names : none);
		char *list = tc_join(names ? names : none);
		int r = tc_fail(p, TC_NOPOS, "%s '%s': no %s of that name%s%s%s (%ss: %s)", opt,
				want[i], what, s ? " (did you mean '" : "", s ? s : "",
				s ? "'?)" : "", what, list);
		free(list);
		free(names);
		return r;
	}
	return 0;
}

static int named(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; s && i < n; i++)
		if (!strcmp(v[i], s))
			return 1;
	return 0;
}

/* The string value of key in table t, or NULL. */
static const char *str_at(const struct tb_node *t, const char *key)
{
	const struct tb_node *v = tb_node_kind(t) == TB_TABLE ? tb_node_get(t, key, NULL) : NULL;
	return v && tb_node_kind(v) == TB_STRING ? tb_node_string(v, NULL) : NULL;
}

/* --workload: only the workloads named, and in each mode's `workloads` only those; a mode
 * left with none leaves too.  --mode: only the modes named, with the baseline (every
 * comparison is with it) and the A/A pairs of those kept (a copy with its original, an
 * original with its copies).  Entries whose name is not a string stay, for the walk to
 * report. */
static int filter(struct tc_parser *p, struct tb_node *root, const struct exp_edits *ed)
{
	struct tb_node *modes = tb_node_get_mut(root, "modes");
	struct tb_node *wl = tb_node_get_mut(root, "workloads");
	if (modes && !is_table_array(modes))
		modes = NULL;
	if (wl && !is_table_array(wl))
		wl = NULL;
	if (filter_names(p, "--mode", "mode", modes, ed->modes, ed->nmodes) ||
	    filter_names(p, "--workload", "workload", wl, ed->workloads, ed->nworkloads))
		return -1;
	size_t nm = modes ? tb_node_len(modes) : 0;
	char *keep = xcalloc(nm + 1, 1);
	size_t base = 0;
	for (size_t i = 0; i < nm; i++) {
		const struct tb_node *b = tb_node_get(tb_node_at(modes, i), "baseline", NULL);
		if (b && tb_node_kind(b) == TB_BOOL && tb_node_bool(b)) {
			base = i;
			break;
		}
	}
	for (size_t i = 0; i < nm; i++) {
		const char *name = str_at(tb_node_at(modes, i), "name");
		keep[i] = !ed->nmodes || !name || i == base || named(ed->modes, ed->nmodes, name);
	}
	for (int pass = 0; ed->nmodes && pass < 2; pass++)
		for (size_t i = 0; i < nm; i++) {
			const char *of = str_at(tb_node_at(modes, i), "aa_of");
			long o = of ? entry_index(modes, of) : -1;
			if (o >= 0 && (keep[i] || keep[o]))
				keep[i] = keep[o] = 1;
		}
	/* --workload: each mode's list less the workloads left out */
	for (size_t i = 0; ed->nworkloads && i < nm; i++) {
		struct tb_node *list = tb_node_get_mut(tb_node_at_mut(modes, i), "workloads");
		if (!list || tb_node_kind(list) != TB_ARRAY || !tb_node_len(list))
			continue;
		for (size_t j = tb_node_len(list); j-- > 0;) {
			const struct tb_node *s = tb_node_at(list, j);
			if (tb_node_kind(s) == TB_STRING && entry_index(wl, tb_node_string(s, NULL)) >= 0 &&
			    !named(ed->workloads, ed->nworkloads, tb_node_string(s, NULL)))
				tb_node_remove(list, j);
		}
		if (tb_node_len(list))
			continue;
		const char *name = str_at(tb_node_at(modes, i), "name");
		if (named(ed->modes, ed->nmodes, name)) {
			free(keep);
			return tc_fail(p, TC_NOPOS, "--mode '%s' runs none of the workloads "
				       "--workload keeps (its 'workloads')", name);
		}
		keep[i] = 0;
	}
	for (size_t i = nm; i-- > 0;)
		if (!keep[i])
			tb_node_remove(modes, i);
	for (size_t i = wl ? tb_node_len(wl) : 0; ed->nworkloads && i-- > 0;) {
		const char *name = str_at(tb_node_at(wl, i), "name");
		if (name && !named(ed->workloads, ed->nworkloads, name))
			tb_node_remove(wl, i);
	}
	free(keep);
	return 0;
}

int exp_apply_edits(struct tc_parser *p, struct tb_node *root, const struct exp_edits *ed,
		    int *has_axes)
{
	if (ed) {
		p->sets = (const char *const *)ed->sets;
		p->nsets = ed->nsets;
	}
	for (size_t k = 0; ed && k < ed->nsets; k++) {
		struct tb_doc *d = set_parse(p, k, ed->sets[k]);
		int r = !d || merge(p, k, root, tb_doc_root(d));
		tb_doc_free(d);
		if (r)
			return -1;
	}
	struct expanded *ex = NULL;
	size_t nex = 0;
	size_t nm = 0;
	int r = expand_axes(p, root, "workloads", &ex, &nex) ||
		expand_axes(p, root, "modes", NULL, &nm);
	*has_axes = nex || nm;
	if (!r)
		expand_workload_refs(root, ex, nex);
	for (size_t i = 0; i < nex; i++)
		free(ex[i].tmpl);
	free(ex);
	if (r)
		return -1;
	return ed && (ed->nmodes || ed->nworkloads) ? filter(p, root, ed) : 0;
}
