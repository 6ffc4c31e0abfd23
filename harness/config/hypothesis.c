/* hypothesis.c: hypothesis files (docs/hypothesis-format.md is the reference; keep the two
 * in step): the TOML, read through toml-bridge and tomlcheck, into struct hyp_file, and the
 * criteria's boolean expressions.  Their git state is hyp-git.c's; their verdicts are
 * harness/analysis/hyp-eval.c's. */
#include "config.h"
#include "harness/config/hypothesis.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "harness/config/tomlcheck.h"
#include "harness/base/util.h"
#include "kernels/backend.h"

static const char *const prediction_names[] = { "none", "faster", "slower", "same",
						"not-faster", "not-slower", NULL };
static const char *const scope_names[] = { "all", "ops", "e2e", NULL };
static const char *const aggregate_names[] = { "each", "all", "any", "at_least", "geomean",
					       "op-vs-e2e", "composition", NULL };
static const char *const op_names[] = { "<", "<=", ">", ">=", "==", "!=", NULL };
static const char *const sv_names[] = { "FASTER", "SLOWER", "SAME", "INCONCLUSIVE", NULL };

static const char *const root_keys[] = { "schema", "description", "hypotheses", NULL };
static const char *const hyp_keys[] = {
	"id", "claim", "primary", "mode", "baseline", "scope", "workload", "cells", "aggregate",
	"at_least", "prediction", "min_effect", "alpha", "criteria", "corroborate", "falsify",
	"only_on", "superseded_by", NULL
};
static const char *const crit_keys[] = { "id", "statistic", "op", "value", NULL };

/* The statistics each kind of target has (docs/hypothesis-format.md, "Statistics"). */
static const char *const cell_stats[] = { "ratio", "hl_ratio", "ci_lo", "ci_hi", "p", "p_raw",
					  "n", "mde", "verdict", "spread_ratio", NULL };
static const char *const geomean_stats[] = { "ratio", "ci_lo", "ci_hi", "n", "verdict",
					     "spread_ratio", NULL };
static const char *const tau_stats[] = { "tau", "p", "p_raw", "n", "tau_pred", "p_pred", NULL };
static const char *const comp_stats[] = { "pred_ratio", "pred_lo", "pred_hi", "ratio",
					  "e2e_lo", "e2e_hi", "interaction", "ci_lo", "ci_hi",
					  "coverage", "coverage_lo", "coverage_hi", "coverage_mode",
					  "geomean", "n", NULL };

const char *hyp_prediction_name(enum hyp_prediction p)
{
	return (unsigned)p < ARRAY_SIZE(prediction_names) - 1 ? prediction_names[p] : "?";
}

const char *hyp_scope_name(enum hyp_scope s)
{
	return (unsigned)s < ARRAY_SIZE(scope_names) - 1 ? scope_names[s] : "cells";
}

const char *hyp_aggregate_name(enum hyp_aggregate g)
{
	return (unsigned)g < ARRAY_SIZE(aggregate_names) - 1 ? aggregate_names[g] : "?";
}

const char *hyp_op_name(enum hyp_op op)
{
	return (unsigned)op < ARRAY_SIZE(op_names) - 1 ? op_names[op] : "?";
}

static int in_list(const char *w, const char *const *list)
{
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(w, list[i]))
			return 1;
	return 0;
}

static const char *const *stats_of(enum hyp_aggregate g)
{
	return g == HYP_AGG_GEOMEAN ? geomean_stats : g == HYP_AGG_OP_VS_E2E ? tau_stats :
	       g == HYP_AGG_COMPOSITION ? comp_stats :
									       cell_stats;
}

/* ---- expressions ------------------------------------------------------------------------
 * expr := term { ("or" | "|") term };  term := factor { ("and" | "&") factor };
 * factor := ("not" | "!") factor | "(" expr ")" | CRITERION-ID.  A recursive-descent parser
 * over the string; errors name the character offset and map it onto the file column. */

void hyp_expr_free(struct hyp_expr *x)
{
	if (!x)
		return;
	hyp_expr_free(x->l);
	hyp_expr_free(x->r);
	free(x);
}

struct xparse {
	const char *s;
	size_t i;
	const struct hyp_criterion *crit;
	size_t ncrit;
	char *err;      /* heap message */
	size_t err_at;  /* offset of the error */
};

static int is_idch(char c)
{
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

static void xskip(struct xparse *x)
{
	while (x->s[x->i] == ' ' || x->s[x->i] == '\t')
		x->i++;
}

static struct hyp_expr *xfail(struct xparse *x, size_t at, char *msg)
{
	if (!x->err) {
		x->err = msg;
		x->err_at = at;
	} else {
		free(msg);
	}
	return NULL;
}

/* A word at the cursor (without consuming it); its length in *len. */
static const char *xword(struct xparse *x, size_t *len)
{
	xskip(x);
	size_t j = x->i;
	while (is_idch(x->s[j]))
		j++;
	*len = j - x->i;
	return x->s + x->i;
}

static int xkeyword(struct xparse *x, const char *kw, char sym)
{
	size_t len;
	const char *w = xword(x, &len);
	if (len == strlen(kw) && !strncmp(w, kw, len)) {
		x->i += len;
		return 1;
	}
	if (len == 0 && x->s[x->i] == sym) {
		x->i++;
		return 1;
	}
	return 0;
}

static struct hyp_expr *xnode(int kind, struct hyp_expr *l, struct hyp_expr *r)
{
	struct hyp_expr *n = xcalloc(1, sizeof(*n));
	n->kind = kind;
	n->l = l;
	n->r = r;
	return n;
}

static struct hyp_expr *xexpr(struct xparse *x, int depth);

static struct hyp_expr *xfactor(struct xparse *x, int depth)
{
	if (depth > 64)
		return xfail(x, x->i, xstrdup("expression nested too deeply"));
	if (xkeyword(x, "not", '!')) {
		struct hyp_expr *l = xfactor(x, depth + 1);
		return l ? xnode(HYP_X_NOT, l, NULL) : NULL;
	}
	xskip(x);
	if (x->s[x->i] == '(') {
		size_t open = x->i++;
		struct hyp_expr *e = xexpr(x, depth + 1);
		if (!e)
			return NULL;
		xskip(x);
		if (x->s[x->i] != ')') {
			hyp_expr_free(e);
			return xfail(x, open, xstrdup("unclosed '('"));
		}
		x->i++;
		return e;
	}
	size_t len, at = x->i;
	const char *w = xword(x, &len);
	if (len == 0) {
		if (!x->s[x->i])
			return xfail(x, at, xstrdup("expected a criterion id at the end"));
		return xfail(x, at, xasprintf("unexpected '%c'", x->s[x->i]));
	}
	for (size_t k = 0; k < x->ncrit; k++) {
		if (strlen(x->crit[k].id) == len && !strncmp(x->crit[k].id, w, len)) {
			x->i += len;
			struct hyp_expr *n = xnode(HYP_X_CRIT, NULL, NULL);
			n->crit = k;
			return n;
		}
	}
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t k = 0; k < x->ncrit; k++)
		sbuf_addf(&sb, "%s'%s'", k ? ", " : "", x->crit[k].id);
	char *msg = xasprintf("unknown criterion '%.*s' (criteria: %s)", (int)len, w,
			      x->ncrit ? sb.buf : "none");
	sbuf_release(&sb);
	return xfail(x, at, msg);
}

static struct hyp_expr *xterm(struct xparse *x, int depth)
{
	struct hyp_expr *l = xfactor(x, depth);
	while (l && xkeyword(x, "and", '&')) {
		struct hyp_expr *r = xfactor(x, depth);
		if (!r) {
			hyp_expr_free(l);
			return NULL;
		}
		l = xnode(HYP_X_AND, l, r);
	}
	return l;
}

static struct hyp_expr *xexpr(struct xparse *x, int depth)
{
	struct hyp_expr *l = xterm(x, depth);
	while (l && xkeyword(x, "or", '|')) {
		struct hyp_expr *r = xterm(x, depth);
		if (!r) {
			hyp_expr_free(l);
			return NULL;
		}
		l = xnode(HYP_X_OR, l, r);
	}
	return l;
}

/* Parse s against the criteria; NULL with *err (heap) and *err_at on a syntax error. */
struct hyp_expr *hyp_expr_parse(const char *s, const struct hyp_criterion *crit,
				   size_t ncrit, char **err, size_t *err_at)
{
	struct xparse x = { s, 0, crit, ncrit, NULL, 0 };
	struct hyp_expr *e = xexpr(&x, 0);
	if (e) {
		xskip(&x);
		if (x.s[x.i]) {
			hyp_expr_free(e);
			e = xfail(&x, x.i, xasprintf("unexpected '%s'", x.s + x.i));
		}
	}
	*err = x.err;
	*err_at = x.err_at;
	return e;
}

void hyp_expr_text(const struct hyp_expr *x, const struct hyp_criterion *crit,
		      struct sbuf *sb, int paren)
{
	switch (x->kind) {
	case HYP_X_CRIT:
		sbuf_adds(sb, crit[x->crit].id);
		break;
	case HYP_X_NOT:
		sbuf_adds(sb, "not ");
		hyp_expr_text(x->l, crit, sb, 1);
		break;
	case HYP_X_AND:
	case HYP_X_OR:
		if (paren)
			sbuf_adds(sb, "(");
		hyp_expr_text(x->l, crit, sb, 1);
		sbuf_adds(sb, x->kind == HYP_X_AND ? " and " : " or ");
		hyp_expr_text(x->r, crit, sb, 1);
		if (paren)
			sbuf_adds(sb, ")");
		break;
	}
}

/* 1 when the expression reads a criterion on statistic stat. */
int hyp_expr_reads(const struct hyp_expr *x, const struct hyp_criterion *crit,
		      const char *stat)
{
	if (!x)
		return 0;
	if (x->kind == HYP_X_CRIT)
		return !strcmp(crit[x->crit].statistic, stat);
	return hyp_expr_reads(x->l, crit, stat) || hyp_expr_reads(x->r, crit, stat);
}

static int get_string(struct tc_parser *p, const struct tc_field *f, char **out)
{
	if (tc_want_kind(p, f, TB_STRING))
		return -1;
	size_t len;
	const char *s = tb_node_string(f->v, &len);
	if (strlen(s) != len)
		return tc_fail(p, f->pos, "'%s' must not contain a NUL character", f->key);
	if (!*s)
		return tc_fail(p, f->pos, "'%s' must not be empty", f->key);
	free(*out);
	*out = xstrdup(s);
	return 0;
}

static int get_enum(struct tc_parser *p, const struct tc_field *f, const char *const *names, int first,
		    int *out)
{
	char *s = NULL;
	if (get_string(p, f, &s))
		return -1;
	for (int i = first; names[i]; i++) {
		if (!strcmp(s, names[i])) {
			*out = i;
			free(s);
			return 0;
		}
	}
	char *list = tc_join(names + first);
	tc_fail(p, f->pos, "'%s' must be one of %s, not '%s'", f->key, list, s);
	free(list);
	free(s);
	return -1;
}

/* A finite number in [lo, hi) (hi_open) or [lo, hi] (!hi_open); lo excluded when lo_open. */
static int get_number(struct tc_parser *p, const struct tc_field *f, double lo, int lo_open,
		      double hi, int hi_open, double *out)
{
	enum tb_kind k = tb_node_kind(f->v);
	if (k != TB_INTEGER && k != TB_FLOAT)
		return tc_fail(p, f->pos, "'%s' must be a number, not %s", f->key, tb_kind_phrase(k));
	double v = tb_node_float(f->v);
	if (!isfinite(v) || (lo_open ? !(v > lo) : !(v >= lo)) || (hi_open ? !(v < hi) : !(v <= hi)))
		return tc_fail(p, f->pos, "'%s' must be a number in %c%g, %g%c, not %g", f->key,
			    lo_open ? '(' : '[', lo, hi, hi_open ? ')' : ']', v);
	*out = v;
	return 0;
}

/* A string or an array of strings, each non-empty. */
static int get_strings(struct tc_parser *p, const struct tc_field *f, char ***out, size_t *n)
{
	enum tb_kind k = tb_node_kind(f->v);
	if (k == TB_STRING) {
		*out = xcalloc(1, sizeof(**out));
		*n = 1;
		return get_string(p, f, &(*out)[0]);
	}
	if (k != TB_ARRAY)
		return tc_fail(p, f->pos, "'%s' must be a string or an array of strings, not %s",
			    f->key, tb_kind_phrase(k));
	if (tb_node_len(f->v) == 0)
		return tc_fail(p, f->pos, "'%s' must not be empty", f->key);
	return tc_get_string_array(p, f, get_string, out, n);
}

void hyp_crit_release(struct hyp_criterion *c)
{
	free(c->id);
	free(c->statistic);
	free(c->svalue);
}

static void hypothesis_release(struct hypothesis *h)
{
	free(h->id);
	free(h->claim);
	for (size_t i = 0; i < h->nmodes; i++)
		free(h->modes[i]);
	free(h->modes);
	free(h->baseline);
	free(h->workload);
	free(h->only_on);
	free(h->superseded_by);
	for (size_t i = 0; i < h->ncells; i++)
		free(h->cells[i]);
	free(h->cells);
	for (size_t i = 0; i < h->ncrit; i++)
		hyp_crit_release(&h->crit[i]);
	free(h->crit);
	hyp_expr_free(h->corroborate);
	hyp_expr_free(h->falsify);
}

void hyp_file_free(struct hyp_file *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nh; i++)
		hypothesis_release(&f->h[i]);
	free(f->h);
	free(f->path);
	free(f->text);
	free(f->description);
	free(f);
}

static int is_id(const char *s)
{
	for (; *s; s++)
		if (!is_idch(*s))
			return 0;
	return 1;
}

/* One criterion: an inline table { id, statistic, op, value }. */
static int parse_criterion(struct tc_parser *p, const struct tb_node *t, enum hyp_aggregate agg,
			   struct hyp_criterion *c)
{
	struct tb_pos pos = tb_node_pos(t);
	c->pos = pos;
	c->value = NAN;
	if (tb_node_kind(t) != TB_TABLE)
		return tc_fail(p, pos, "'criteria' entries must be tables ({ id = ..., statistic = "
				    "..., op = ..., value = ... }), not %s",
			    tb_kind_phrase(tb_node_kind(t)));
	struct tc_field value_f = { 0 };
	int op = -1;
	for (size_t i = 0; i < tb_node_len(t); i++) {
		struct tc_field g = tc_field_at(t, i);
		int r = 0;
		if (!strcmp(g.key, "id")) {
			r = get_string(p, &g, &c->id);
			if (!r && !is_id(c->id))
				r = tc_fail(p, g.pos, "criterion ids are made of letters, digits, '.', "
						   "'_' and '-', not '%s'", c->id);
			if (!r && (!strcmp(c->id, "and") || !strcmp(c->id, "or") ||
				   !strcmp(c->id, "not")))
				r = tc_fail(p, g.pos, "'%s' is a keyword and cannot be a criterion id",
					 c->id);
		} else if (!strcmp(g.key, "statistic")) {
			r = get_string(p, &g, &c->statistic);
			const char *const *valid = stats_of(agg);
			if (!r && !in_list(c->statistic, valid)) {
				char *list = tc_join(valid);
				r = tc_fail(p, g.pos, "unknown statistic '%s' for aggregate '%s' "
						   "(statistics: %s)", c->statistic,
					 aggregate_names[agg], list);
				free(list);
			}
		} else if (!strcmp(g.key, "op")) {
			r = get_enum(p, &g, op_names, 0, &op);
		} else if (!strcmp(g.key, "value")) {
			value_f = g;
		} else {
			r = tc_unknown_key(p, &g, crit_keys, " in a criterion");
		}
		if (r)
			return -1;
	}
	if (!c->id)
		return tc_fail(p, pos, "a criterion has no 'id'");
	if (!c->statistic)
		return tc_fail(p, pos, "criterion '%s' has no 'statistic'", c->id);
	if (op < 0)
		return tc_fail(p, pos, "criterion '%s' has no 'op'", c->id);
	if (!value_f.key)
		return tc_fail(p, pos, "criterion '%s' has no 'value'", c->id);
	c->op = (enum hyp_op)op;
	if (!strcmp(c->statistic, "verdict")) {
		int v;
		if (get_enum(p, &value_f, sv_names, 0, &v))
			return -1;
		c->svalue = xstrdup(sv_names[v]);
		if (c->op != HYP_OP_EQ && c->op != HYP_OP_NE)
			return tc_fail(p, value_f.pos, "criterion '%s': a verdict is compared with '==' "
						    "or '!=', not '%s'", c->id, op_names[op]);
		return 0;
	}
	enum tb_kind k = tb_node_kind(value_f.v);
	if (k != TB_INTEGER && k != TB_FLOAT)
		return tc_fail(p, value_f.pos, "criterion '%s': 'value' must be a number for "
					    "statistic '%s', not %s", c->id, c->statistic,
			    tb_kind_phrase(k));
	c->value = tb_node_float(value_f.v);
	if (!isfinite(c->value))
		return tc_fail(p, value_f.pos, "criterion '%s': 'value' must be finite", c->id);
	return 0;
}

/* corroborate / falsify: parsed once all criteria are known. */
static int parse_expr_field(struct tc_parser *p, const struct tc_field *f, struct hypothesis *h,
			    struct hyp_expr **out)
{
	char *s = NULL;
	if (get_string(p, f, &s))
		return -1;
	char *err = NULL;
	size_t at = 0;
	*out = hyp_expr_parse(s, h->crit, h->ncrit, &err, &at);
	free(s);
	if (*out)
		return 0;
	/* a basic string on one line: the text starts one column after the quote */
	struct tb_pos pos = { f->pos.line, f->pos.col + 1 + (int)(at < INT_MAX / 2 ? at : 0) };
	tc_fail(p, pos, "'%s': %s", f->key, err);
	free(err);
	return -1;
}

static int parse_hypothesis(struct tc_parser *p, const struct tb_node *t, struct hypothesis *h)
{
	h->pos = tb_node_pos(t);
	h->min_effect = h->alpha = NAN;
	h->scope = HYP_SCOPE_ALL;
	h->aggregate = HYP_AGG_EACH;
	struct tc_field scope_f = { 0 }, cells_f = { 0 }, at_least_f = { 0 }, agg_f = { 0 },
		     pred_f = { 0 }, crit_f = { 0 }, corr_f = { 0 }, fals_f = { 0 }, mode_f = { 0 };
	int aggregate = HYP_AGG_EACH, prediction = HYP_PRED_NONE, scope = HYP_SCOPE_ALL;
	int64_t at_least = 0;
	for (size_t i = 0; i < tb_node_len(t); i++) {
		struct tc_field g = tc_field_at(t, i);
		int r = 0;
		if (!strcmp(g.key, "id")) {
			r = get_string(p, &g, &h->id);
			if (!r && !is_id(h->id))
				r = tc_fail(p, g.pos, "'id' must be made of letters, digits, '.', '_' and "
						   "'-', not '%s'", h->id);
		} else if (!strcmp(g.key, "claim")) {
			r = get_string(p, &g, &h->claim);
		} else if (!strcmp(g.key, "primary")) {
			r = tc_want_kind(p, &g, TB_BOOL);
			h->primary = tb_node_bool(g.v);
		} else if (!strcmp(g.key, "mode")) {
			mode_f = g;
			h->modes_pos = g.pos;
			r = get_strings(p, &g, &h->modes, &h->nmodes);
		} else if (!strcmp(g.key, "baseline")) {
			h->baseline_pos = g.pos;
			r = get_string(p, &g, &h->baseline);
		} else if (!strcmp(g.key, "scope")) {
			scope_f = g;
			r = get_enum(p, &g, scope_names, 0, &scope);
		} else if (!strcmp(g.key, "only_on")) {
			/* a backend name of the registry, built here or not ("auto" is first) */
			int k = 0;
			r = get_enum(p, &g, backend_choices(), 1, &k);
			if (!r) {
				free(h->only_on);
				h->only_on = xstrdup(backend_choices()[k]);
			}
		} else if (!strcmp(g.key, "superseded_by")) {
			h->superseded_pos = g.pos;
			r = get_string(p, &g, &h->superseded_by);
		} else if (!strcmp(g.key, "workload")) {
			h->workload_pos = g.pos;
			r = get_string(p, &g, &h->workload);
		} else if (!strcmp(g.key, "cells")) {
			cells_f = g;
			h->cells_pos = g.pos;
			r = get_strings(p, &g, &h->cells, &h->ncells);
		} else if (!strcmp(g.key, "aggregate")) {
			agg_f = g;
			r = get_enum(p, &g, aggregate_names, 0, &aggregate);
		} else if (!strcmp(g.key, "at_least")) {
			at_least_f = g;
			h->at_least_pos = g.pos;
			r = tc_want_kind(p, &g, TB_INTEGER);
			at_least = tb_node_int(g.v);
			if (!r && (at_least < 1 || at_least > 1000000))
				r = tc_fail(p, g.pos, "'at_least' must be between 1 and 1000000, not %" PRId64,
					 at_least);
		} else if (!strcmp(g.key, "prediction")) {
			pred_f = g;
			r = get_enum(p, &g, prediction_names, 1, &prediction);
		} else if (!strcmp(g.key, "min_effect")) {
			r = get_number(p, &g, 0, 0, 0.5, 1, &h->min_effect);
		} else if (!strcmp(g.key, "alpha")) {
			r = get_number(p, &g, 0, 1, 0.5, 0, &h->alpha);
		} else if (!strcmp(g.key, "criteria")) {
			crit_f = g;
			r = tc_want_kind(p, &g, TB_ARRAY);
		} else if (!strcmp(g.key, "corroborate")) {
			corr_f = g;
		} else if (!strcmp(g.key, "falsify")) {
			fals_f = g;
		} else {
			r = tc_unknown_key(p, &g, hyp_keys, " in [[hypotheses]]");
		}
		if (r)
			return -1;
	}
	h->aggregate = (enum hyp_aggregate)aggregate;
	h->prediction = (enum hyp_prediction)prediction;
	h->scope = (enum hyp_scope)scope;
	h->at_least = (size_t)at_least;
	if (!h->id)
		return tc_fail(p, h->pos, "a hypothesis has no 'id'");
	if (!h->claim)
		return tc_fail(p, h->pos, "hypothesis '%s' has no 'claim'", h->id);
	if (cells_f.key && scope_f.key)
		return tc_fail(p, scope_f.key_pos, "hypothesis '%s': 'scope' and 'cells' exclude each "
						"other", h->id);
	if (cells_f.key && h->workload)
		return tc_fail(p, h->workload_pos, "hypothesis '%s': 'workload' and 'cells' exclude "
						"each other", h->id);
	if (cells_f.key)
		h->scope = HYP_SCOPE_CELLS;
	if (h->aggregate == HYP_AGG_AT_LEAST && !at_least_f.key)
		return tc_fail(p, agg_f.pos, "hypothesis '%s': aggregate 'at_least' needs 'at_least = "
					  "K'", h->id);
	if (h->superseded_by && h->primary)
		return tc_fail(p, h->superseded_pos, "hypothesis '%s': a primary hypothesis cannot be "
						     "superseded (it decides the exit status as "
						     "registered); register the new claim beside it",
			    h->id);
	if (at_least_f.key && h->aggregate != HYP_AGG_AT_LEAST)
		return tc_fail(p, at_least_f.key_pos, "hypothesis '%s': 'at_least' needs aggregate = "
						   "\"at_least\"", h->id);
	if (h->aggregate == HYP_AGG_OP_VS_E2E) {
		if (mode_f.key)
			return tc_fail(p, mode_f.key_pos, "hypothesis '%s': aggregate 'op-vs-e2e' ranks "
						       "every mode; 'mode' does not apply", h->id);
		if (pred_f.key)
			return tc_fail(p, pred_f.key_pos, "hypothesis '%s': aggregate 'op-vs-e2e' has no "
						       "prediction; state it as criteria", h->id);
		if (cells_f.key)
			return tc_fail(p, cells_f.key_pos, "hypothesis '%s': aggregate 'op-vs-e2e' works "
							"on workloads; use 'workload', not 'cells'",
				    h->id);
	} else if (h->aggregate == HYP_AGG_COMPOSITION && cells_f.key) {
		return tc_fail(p, cells_f.key_pos, "hypothesis '%s': aggregate 'composition' works "
						"on workloads; use 'workload', not 'cells'", h->id);
	} else if (!mode_f.key) {
		return tc_fail(p, h->pos, "hypothesis '%s' has no 'mode' (a mode name, a list, or "
				       "\"*\")", h->id);
	}
	if (crit_f.key) {
		size_t n = tb_node_len(crit_f.v);
		if (n == 0)
			return tc_fail(p, crit_f.pos, "'criteria' must not be empty");
		h->crit = xcalloc(n, sizeof(*h->crit));
		for (size_t i = 0; i < n; i++) {
			h->ncrit = i + 1;
			if (parse_criterion(p, tb_node_at(crit_f.v, i), h->aggregate, &h->crit[i]))
				return -1;
			for (size_t j = 0; j < i; j++)
				if (!strcmp(h->crit[j].id, h->crit[i].id))
					return tc_fail(p, h->crit[i].pos, "hypothesis '%s': criterion "
								       "'%s' is defined twice", h->id,
						    h->crit[i].id);
		}
		if (!corr_f.key || !fals_f.key)
			return tc_fail(p, crit_f.key_pos, "hypothesis '%s': criteria need both "
						       "'corroborate' and 'falsify'", h->id);
	} else if (corr_f.key || fals_f.key) {
		const struct tc_field *f = corr_f.key ? &corr_f : &fals_f;
		return tc_fail(p, f->key_pos, "hypothesis '%s': '%s' needs 'criteria'", h->id, f->key);
	} else if (h->prediction == HYP_PRED_NONE) {
		return tc_fail(p, h->pos, "hypothesis '%s' has neither a 'prediction' nor 'criteria' "
				       "with 'corroborate' and 'falsify'", h->id);
	}
	if (corr_f.key && parse_expr_field(p, &corr_f, h, &h->corroborate))
		return -1;
	if (fals_f.key && parse_expr_field(p, &fals_f, h, &h->falsify))
		return -1;
	return 0;
}

/* superseded_by names another hypothesis of the file that is not superseded itself (one
 * step, no chain): reported at the key's line:col. */
static void superseded_check(struct tc_parser *p, const struct hyp_file *f,
			     const struct hypothesis *h)
{
	if (!h->superseded_by)
		return;
	const struct hypothesis *to = NULL;
	for (size_t j = 0; j < f->nh && !to; j++)
		if (f->h[j].id && !strcmp(f->h[j].id, h->superseded_by))
			to = &f->h[j];
	if (!to)
		tc_fail(p, h->superseded_pos, "hypothesis '%s': superseded_by '%s' names no hypothesis "
					      "of this file", h->id, h->superseded_by);
	else if (to == h)
		tc_fail(p, h->superseded_pos, "hypothesis '%s' cannot supersede itself", h->id);
	else if (to->superseded_by)
		tc_fail(p, h->superseded_pos, "hypothesis '%s': superseded_by '%s', which is "
					      "superseded itself (by '%s'): name the newest", h->id,
		     to->id, to->superseded_by);
}

int hyp_file_parse(const char *path, const char *text, size_t len, struct hyp_file **out,
		   char **cause)
{
	struct tc_parser p = { .path = path, .cause = NULL, .flags = 0 };
	*out = NULL;
	*cause = NULL;
	char *tcause = NULL;
	struct tb_doc *d = tb_doc_parse(text, len, &tcause);
	if (!d) {
		*cause = xasprintf("'%s':%s", path, tcause);
		free(tcause);
		return -1;
	}
	struct hyp_file *f = xcalloc(1, sizeof(*f));
	f->path = xstrdup(path);
	f->text = xmalloc(len + 1);
	memcpy(f->text, text, len);
	f->text[len] = '\0';
	f->len = len;
	util_sha256_hex(text, len, f->sha256);
	const struct tb_node *root = tb_doc_root(d);
	struct tc_field hyps = { 0 };
	int have_schema = 0;
	for (size_t i = 0; i < tb_node_len(root) && !p.cause; i++) {
		struct tc_field g = tc_field_at(root, i);
		if (!strcmp(g.key, "schema")) {
			have_schema = 1;
			if (!tc_want_kind(&p, &g, TB_INTEGER) && tb_node_int(g.v) != HYP_SCHEMA)
				tc_fail(&p, g.pos, "unsupported schema %" PRId64 " (this harness reads "
						"schema %d)", tb_node_int(g.v), HYP_SCHEMA);
		} else if (!strcmp(g.key, "description")) {
			get_string(&p, &g, &f->description);
		} else if (!strcmp(g.key, "hypotheses")) {
			hyps = g;
		} else {
			tc_unknown_key(&p, &g, root_keys, "");
		}
	}
	if (!p.cause && !have_schema)
		tc_fail(&p, (struct tb_pos){ 1, 1 }, "missing 'schema = %d'", HYP_SCHEMA);
	if (!p.cause && !hyps.key)
		tc_fail(&p, (struct tb_pos){ 1, 1 }, "no [[hypotheses]]");
	if (!p.cause && (tb_node_kind(hyps.v) != TB_ARRAY || tb_node_len(hyps.v) == 0))
		tc_fail(&p, hyps.pos, "'hypotheses' must be a non-empty array of tables "
				   "([[hypotheses]])");
	if (!p.cause) {
		size_t n = tb_node_len(hyps.v);
		f->h = xcalloc(n, sizeof(*f->h));
		for (size_t i = 0; i < n && !p.cause; i++) {
			const struct tb_node *t = tb_node_at(hyps.v, i);
			f->nh = i + 1;
			if (tb_node_kind(t) != TB_TABLE) {
				tc_fail(&p, tb_node_pos(t), "'hypotheses' entries must be tables, not %s",
				     tb_kind_phrase(tb_node_kind(t)));
				break;
			}
			if (parse_hypothesis(&p, t, &f->h[i]))
				break;
			for (size_t j = 0; j < i; j++)
				if (!strcmp(f->h[j].id, f->h[i].id))
					tc_fail(&p, f->h[i].pos, "hypothesis id '%s' is used twice (first "
							      "at line %d)", f->h[i].id,
					     f->h[j].pos.line);
		}
	}
	for (size_t i = 0; i < f->nh && !p.cause; i++)
		superseded_check(&p, f, &f->h[i]);
	tb_doc_free(d);
	if (p.cause) {
		*cause = p.cause;
		hyp_file_free(f);
		return -1;
	}
	*out = f;
	return 0;
}

int hyp_file_load(const char *path, struct hyp_file **out)
{
	char *text = NULL, *cause = NULL;
	size_t len = 0;
	*out = NULL;
	if (util_read_file(path, &text, &len))
		return -1;
	int rc = hyp_file_parse(path, text, len, out, &cause);
	free(text);
	if (rc) {
		error("%s", cause);
		free(cause);
	}
	return rc;
}
