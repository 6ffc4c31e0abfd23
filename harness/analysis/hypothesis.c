/* hypothesis.c: hypothesis files (docs/hypothesis-format.md is the reference; keep the two
 * in step), their git pre-commitment state, and their verdicts on a run's report.  The
 * TOML is read by toml-bridge and git is run through spawn; the statistics come from
 * report.h and stats.h, so this file only decides and formats. */
#include "config.h"
#include "harness/analysis/hypothesis.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "harness/base/spawn.h"
#include "harness/config/tomlcheck.h"
#include "harness/base/util.h"
#include "stats/stats.h"

static const char *const verdict_names[] = { "CORROBORATED", "FALSIFIED", "INCONCLUSIVE" };
static const char *const status_names[] = { "PRE-REGISTERED", "UNCOMMITTED", "MODIFIED",
					    "POST-HOC" };
static const char *const prediction_names[] = { "none", "faster", "slower", "same",
						"not-faster", "not-slower", NULL };
static const char *const scope_names[] = { "all", "ops", "e2e", NULL };
static const char *const aggregate_names[] = { "each", "all", "any", "at_least", "geomean",
					       "op-vs-e2e", NULL };
static const char *const op_names[] = { "<", "<=", ">", ">=", "==", "!=", NULL };
static const char *const sv_names[] = { "FASTER", "SLOWER", "SAME", "INCONCLUSIVE", NULL };

static const char *const root_keys[] = { "schema", "description", "hypotheses", NULL };
static const char *const hyp_keys[] = {
	"id", "claim", "primary", "mode", "baseline", "scope", "workload", "cells", "aggregate",
	"at_least", "prediction", "min_effect", "alpha", "criteria", "corroborate", "falsify",
	NULL
};
static const char *const crit_keys[] = { "id", "statistic", "op", "value", NULL };

/* The statistics each kind of target has (docs/hypothesis-format.md, "Statistics"). */
static const char *const cell_stats[] = { "ratio", "hl_ratio", "ci_lo", "ci_hi", "p", "p_raw",
					  "n", "mde", "verdict", NULL };
static const char *const geomean_stats[] = { "ratio", "ci_lo", "ci_hi", "n", "verdict", NULL };
static const char *const tau_stats[] = { "tau", "p", "p_raw", "n", NULL };

const char *hyp_verdict_name(enum hyp_verdict v)
{
	return (unsigned)v < ARRAY_SIZE(verdict_names) ? verdict_names[v] : "?";
}

const char *hyp_status_name(enum hyp_status s)
{
	return (unsigned)s < ARRAY_SIZE(status_names) ? status_names[s] : "?";
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
									       cell_stats;
}

/* ---- expressions ------------------------------------------------------------------------
 * expr := term { ("or" | "|") term };  term := factor { ("and" | "&") factor };
 * factor := ("not" | "!") factor | "(" expr ")" | CRITERION-ID.  A recursive-descent parser
 * over the string; errors name the character offset and map it onto the file column. */

static void expr_free(struct hyp_expr *x)
{
	if (!x)
		return;
	expr_free(x->l);
	expr_free(x->r);
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
			expr_free(e);
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
			expr_free(l);
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
			expr_free(l);
			return NULL;
		}
		l = xnode(HYP_X_OR, l, r);
	}
	return l;
}

/* Parse s against the criteria; NULL with *err (heap) and *err_at on a syntax error. */
static struct hyp_expr *expr_parse(const char *s, const struct hyp_criterion *crit,
				   size_t ncrit, char **err, size_t *err_at)
{
	struct xparse x = { s, 0, crit, ncrit, NULL, 0 };
	struct hyp_expr *e = xexpr(&x, 0);
	if (e) {
		xskip(&x);
		if (x.s[x.i]) {
			expr_free(e);
			e = xfail(&x, x.i, xasprintf("unexpected '%s'", x.s + x.i));
		}
	}
	*err = x.err;
	*err_at = x.err_at;
	return e;
}

static void expr_text(const struct hyp_expr *x, const struct hyp_criterion *crit,
		      struct sbuf *sb, int paren)
{
	switch (x->kind) {
	case HYP_X_CRIT:
		sbuf_adds(sb, crit[x->crit].id);
		break;
	case HYP_X_NOT:
		sbuf_adds(sb, "not ");
		expr_text(x->l, crit, sb, 1);
		break;
	case HYP_X_AND:
	case HYP_X_OR:
		if (paren)
			sbuf_adds(sb, "(");
		expr_text(x->l, crit, sb, 1);
		sbuf_adds(sb, x->kind == HYP_X_AND ? " and " : " or ");
		expr_text(x->r, crit, sb, 1);
		if (paren)
			sbuf_adds(sb, ")");
		break;
	}
}

/* 1 when the expression reads a criterion on statistic stat. */
static int expr_reads(const struct hyp_expr *x, const struct hyp_criterion *crit,
		      const char *stat)
{
	if (!x)
		return 0;
	if (x->kind == HYP_X_CRIT)
		return !strcmp(crit[x->crit].statistic, stat);
	return expr_reads(x->l, crit, stat) || expr_reads(x->r, crit, stat);
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

static void crit_release(struct hyp_criterion *c)
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
	for (size_t i = 0; i < h->ncells; i++)
		free(h->cells[i]);
	free(h->cells);
	for (size_t i = 0; i < h->ncrit; i++)
		crit_release(&h->crit[i]);
	free(h->crit);
	expr_free(h->corroborate);
	expr_free(h->falsify);
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
	*out = expr_parse(s, h->crit, h->ncrit, &err, &at);
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

/* ---- pre-commitment: git ----------------------------------------------------------------- */

/* Run git with args in dir; 0 and *out (stdout) when it exits 0, 1 when it exits non-zero,
 * -1 when it could not be run at all (nothing reported: git missing is a recorded state). */
static int run_git(const char *dir, const char *const *args, struct sbuf *out)
{
	const char *argv[16];
	size_t n = 0;
	argv[n++] = "git";
	for (size_t i = 0; args[i] && n < ARRAY_SIZE(argv) - 1; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	/* a built environment: PATH and HOME (for the user's safe.directory) only */
	const char *path = getenv("PATH"), *home = getenv("HOME");
	char *envs[4];
	size_t ne = 0;
	envs[ne++] = xasprintf("PATH=%s", path ? path : "/usr/local/bin:/usr/bin:/bin");
	if (home)
		envs[ne++] = xasprintf("HOME=%s", home);
	envs[ne++] = xstrdup("GIT_OPTIONAL_LOCKS=0");
	envs[ne] = NULL;
	struct spawn sp;
	spawn_init(&sp);
	sp.argv = argv;
	sp.env = (const char *const *)envs;
	sp.dir = dir;
	sbuf_reset(out);
	struct spawn_status st;
	/* spawn_run reports an exec failure; a missing git is a state we record, not an error */
	fflush(stderr);
	int rc = spawn_run(&sp, out, &st);
	spawn_release(&sp);
	for (size_t i = 0; i < ne; i++)
		free(envs[i]);
	if (rc)
		return -1;
	return st.exited && st.code == 0 ? 0 : 1;
}

static void meta_setf(struct rec_meta *m, size_t index, const char *key, const char *value)
{
	char *k = xasprintf("hypothesis_%zu_%s", index, key);
	rec_meta_set(m, k, value);
	free(k);
}

static const char *meta_getf(const struct rec_meta *m, size_t index, const char *key)
{
	char *k = xasprintf("hypothesis_%zu_%s", index, key);
	const char *v = rec_meta_get(m, k);
	free(k);
	return v;
}

/* Commands run, in the file's folder (NAME is its base name):
 *   git rev-parse --is-inside-work-tree            (no: "not-a-repository")
 *   git status --porcelain --ignored -- NAME       ("??" untracked, "!!" ignored, else
 *                                                   "staged" or "modified" when not empty)
 *   git log -1 --format=%H%x09%cI -- NAME          (the commit that last touched it) */
int hyp_capture_git(const char *path, struct rec_meta *meta, size_t index)
{
	char *abs = realpath(path, NULL);
	if (!abs)
		return error_errno("cannot resolve hypothesis file '%s'", path);
	char *slash = strrchr(abs, '/');
	char *dir = xstrndup(abs, (size_t)(slash - abs) + (slash == abs));
	const char *name = slash + 1;
	struct sbuf out;
	sbuf_init(&out);
	const char *state = "clean";
	char *commit = xstrdup(""), *time = xstrdup("");
	const char *a_rev[] = { "rev-parse", "--is-inside-work-tree", NULL };
	const char *a_st[] = { "status", "--porcelain", "--ignored", "--", name, NULL };
	const char *a_log[] = { "log", "-1", "--format=%H%x09%cI", "--", name, NULL };
	int rc = run_git(dir, a_rev, &out);
	if (rc < 0) {
		state = "git-failed";
	} else if (rc > 0 || strncmp(out.buf, "true", 4)) {
		state = "not-a-repository";
	} else if (run_git(dir, a_st, &out)) {
		state = "git-failed";
	} else {
		if (!strncmp(out.buf, "??", 2))
			state = "untracked";
		else if (!strncmp(out.buf, "!!", 2))
			state = "ignored";
		else if (out.len >= 2 && out.buf[1] != ' ')
			state = "modified";     /* changes in the worktree */
		else if (out.len)
			state = "staged";       /* changes in the index only */
		if (run_git(dir, a_log, &out) == 0 && out.len) {
			char *tab = strchr(out.buf, '\t');
			char *nl = strchr(out.buf, '\n');
			if (nl)
				*nl = '\0';
			if (tab) {
				*tab = '\0';
				free(commit);
				free(time);
				commit = xstrdup(out.buf);
				time = xstrdup(tab + 1);
			}
		}
		if (!strcmp(state, "clean") && !*commit)
			state = "not-committed";
	}
	meta_setf(meta, index, "path", path);
	meta_setf(meta, index, "abspath", abs);
	meta_setf(meta, index, "git_commit", commit);
	meta_setf(meta, index, "git_time", time);
	meta_setf(meta, index, "git_state", state);
	meta_setf(meta, index, "git_clean", !strcmp(state, "clean") ? "1" : "0");
	free(commit);
	free(time);
	sbuf_release(&out);
	free(dir);
	free(abs);
	return 0;
}

/* Why a git state is not pre-registered, in words. */
static const char *state_why(const char *state)
{
	if (!state)
		return "no git state was recorded for it at run start";
	if (!strcmp(state, "modified"))
		return "it had uncommitted changes at run start";
	if (!strcmp(state, "staged"))
		return "it had staged but uncommitted changes at run start";
	if (!strcmp(state, "untracked"))
		return "it was not tracked by git at run start";
	if (!strcmp(state, "ignored"))
		return "it was ignored by git at run start";
	if (!strcmp(state, "not-committed"))
		return "no commit contained it at run start";
	if (!strcmp(state, "not-a-repository"))
		return "it was not in a git repository at run start";
	if (!strcmp(state, "git-failed"))
		return "git could not be run at run start";
	return "its git state at run start was unknown";
}

int hyp_require_preregistered(const struct rec_meta *meta)
{
	int bad = 0;
	for (size_t i = 0;; i++) {
		const char *path = meta_getf(meta, i, "path");
		if (!path)
			break;
		const char *clean = meta_getf(meta, i, "git_clean");
		if (clean && !strcmp(clean, "1"))
			continue;
		error("hypothesis file '%s' is not pre-registered: %s (commit it, or run without "
		      "--require-preregistered)", path, state_why(meta_getf(meta, i, "git_state")));
		bad = 1;
	}
	return bad ? -1 : 0;
}

/* ---- the set of files ---------------------------------------------------------------- */

void hyp_set_free(struct hyp_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		hyp_file_free(s->e[i].file);
		free(s->e[i].why);
	}
	free(s->e);
	free(s);
}

static int add_parsed(struct hyp_set *s, const char *path, const char *text, size_t len,
		      const char *what)
{
	struct hyp_file *f = NULL;
	char *cause = NULL;
	if (hyp_file_parse(path, text, len, &f, &cause)) {
		error("%s%s", cause, what);
		free(cause);
		return -1;
	}
	s->e = xrealloc(s->e, (s->n + 1) * sizeof(*s->e));
	memset(&s->e[s->n], 0, sizeof(s->e[s->n]));
	s->e[s->n++].file = f;
	return 0;
}

int hyp_set_load(const char *results_path, const struct rec_meta *meta,
		 const char *const *extra, size_t nextra, struct hyp_set **out)
{
	struct hyp_set *s = xcalloc(1, sizeof(*s));
	*out = NULL;
	size_t index = 0;
	for (size_t i = 0; i < meta->nfiles; i++) {
		const struct rec_file *rf = &meta->files[i];
		if (strcmp(rf->role, "hypothesis"))
			continue;
		char *what = xasprintf(" (as recorded in '%s')", results_path);
		int rc = add_parsed(s, rf->path, rf->text, rf->len, what);
		free(what);
		if (rc) {
			hyp_set_free(s);
			return -1;
		}
		struct hyp_entry *e = &s->e[s->n - 1];
		e->recorded = 1;
		const char *clean = meta_getf(meta, index, "git_clean");
		const char *commit = meta_getf(meta, index, "git_commit");
		const char *when = meta_getf(meta, index, "git_time");
		if (clean && !strcmp(clean, "1")) {
			e->status = HYP_PREREGISTERED;
			e->why = xasprintf("committed and clean at run start (commit %.12s, %s)",
					   commit ? commit : "?", when ? when : "?");
		} else {
			e->status = HYP_UNCOMMITTED;
			e->why = xstrdup(state_why(meta_getf(meta, index, "git_state")));
		}
		/* the bytes on disk now, where the file was at run start */
		const char *now = meta_getf(meta, index, "abspath");
		char *text = NULL;
		size_t len = 0;
		FILE *probe = fopen(now ? now : rf->path, "rb");
		if (probe) {
			fclose(probe);
			if (!util_read_file(now ? now : rf->path, &text, &len) &&
			    (len != rf->len || memcmp(text, rf->text, len))) {
				char sha[65];
				util_sha256_hex(text, len, sha);
				free(e->why);
				e->why = xasprintf("the file on disk (sha256 %.12s) differs from the "
						   "bytes recorded at run start (sha256 %.12s)", sha,
						   e->file->sha256);
				e->status = HYP_MODIFIED;
			}
			free(text);
		}
		index++;
	}
	for (size_t i = 0; i < nextra; i++) {
		char *text = NULL;
		size_t len = 0;
		if (util_read_file(extra[i], &text, &len)) {
			hyp_set_free(s);
			return -1;
		}
		char sha[65];
		util_sha256_hex(text, len, sha);
		int seen = 0;
		for (size_t k = 0; k < s->n && !seen; k++)
			seen = !strcmp(s->e[k].file->sha256, sha);
		int rc = seen ? 0 : add_parsed(s, extra[i], text, len, "");
		free(text);
		if (rc) {
			hyp_set_free(s);
			return -1;
		}
		if (!seen) {
			s->e[s->n - 1].status = HYP_POSTHOC;
			s->e[s->n - 1].why = xasprintf("not recorded in '%s': attached after the run",
						      results_path);
		}
	}
	*out = s;
	return 0;
}

/* ---- evaluation -------------------------------------------------------------------------- */

void hyp_eval_opts_init(struct hyp_eval_opts *o)
{
	report_opts_init(&o->ro);
	o->report = NULL;
}

/* One report per baseline the hypotheses use (report_build compares against one). */
struct rcache {
	size_t *base;
	struct report **r;
	size_t n;
};

static const struct report *report_for(const struct analysis *a, const struct hyp_eval_opts *o,
				 size_t base, struct rcache *rc)
{
	if (o->report && o->report->a == a && o->report->baseline == base)
		return o->report; /* the caller's: not cached, never freed here */
	for (size_t i = 0; i < rc->n; i++)
		if (rc->base[i] == base)
			return rc->r[i];
	struct report_opts ro = o->ro;
	ro.baseline = a->modes[base];
	struct report *r = NULL;
	if (report_build(a, &ro, &r))
		return NULL;
	rc->base = xrealloc(rc->base, (rc->n + 1) * sizeof(*rc->base));
	rc->r = xrealloc(rc->r, (rc->n + 1) * sizeof(*rc->r));
	rc->base[rc->n] = base;
	rc->r[rc->n++] = r;
	return r;
}

/* "'a', 'b'" of a list of names. */
static char *quoted(char *const *names, size_t n)
{
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t i = 0; i < n; i++)
		sbuf_addf(&sb, "%s'%s'", i ? ", " : "", names[i]);
	return sbuf_detach(&sb);
}

static int where_error(const struct hyp_file *f, struct tb_pos pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int where_error(const struct hyp_file *f, struct tb_pos pos, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	error("'%s':%d:%d: %s", f->path, pos.line, pos.col, msg);
	free(msg);
	return -1;
}

static int find_mode(const struct analysis *a, const struct hyp_file *f,
		     const struct hypothesis *h, const char *name, struct tb_pos pos, size_t *out)
{
	long m = analysis_mode(a, name);
	if (m >= 0) {
		*out = (size_t)m;
		return 0;
	}
	char *list = quoted(a->modes, a->nmodes);
	where_error(f, pos, "hypothesis '%s': no mode '%s' in '%s' (modes: %s)", h->id, name,
		    a->path, list);
	free(list);
	return -1;
}

/* The cells a hypothesis covers, in the run's cell order (or as listed). */
static int resolve_cells(const struct analysis *a, const struct hyp_file *f,
			 const struct hypothesis *h, size_t **cells, size_t *n)
{
	*cells = xcalloc(a->ncells + h->ncells + 1, sizeof(**cells));
	*n = 0;
	if (h->scope == HYP_SCOPE_CELLS) {
		for (size_t i = 0; i < h->ncells; i++) {
			size_t c = 0;
			while (c < a->ncells && strcmp(a->cells[c].name, h->cells[i]))
				c++;
			if (c == a->ncells) {
				struct sbuf sb;
				sbuf_init(&sb);
				for (size_t k = 0; k < a->ncells; k++)
					sbuf_addf(&sb, "%s'%s'", k ? ", " : "", a->cells[k].name);
				where_error(f, h->cells_pos, "hypothesis '%s': no cell '%s' in '%s' "
							     "(cells: %s)", h->id, h->cells[i], a->path,
					    sb.buf);
				sbuf_release(&sb);
				return -1;
			}
			(*cells)[(*n)++] = c;
		}
		return 0;
	}
	if (h->workload) {
		size_t c = 0;
		while (c < a->ncells && strcmp(a->cells[c].workload, h->workload))
			c++;
		if (c == a->ncells) {
			struct sbuf sb;
			sbuf_init(&sb);
			for (size_t k = 0; k < a->ncells; k++) {
				size_t j = 0;
				while (j < k && strcmp(a->cells[j].workload, a->cells[k].workload))
					j++;
				if (j == k)
					sbuf_addf(&sb, "%s'%s'", sb.len ? ", " : "", a->cells[k].workload);
			}
			where_error(f, h->workload_pos, "hypothesis '%s': no workload '%s' in '%s' "
							"(workloads: %s)", h->id, h->workload, a->path,
				    sb.buf);
			sbuf_release(&sb);
			return -1;
		}
	}
	for (size_t c = 0; c < a->ncells; c++) {
		const struct an_cell *cell = &a->cells[c];
		if (h->workload && strcmp(cell->workload, h->workload))
			continue;
		if (h->scope == HYP_SCOPE_OPS && strcmp(cell->kind, "op"))
			continue;
		if (h->scope == HYP_SCOPE_E2E && strcmp(cell->kind, "e2e"))
			continue;
		(*cells)[(*n)++] = c;
	}
	if (*n == 0)
		return where_error(f, h->pos, "hypothesis '%s': its scope ('%s'%s%s) selects no "
					      "cell of '%s'", h->id, scope_names[h->scope],
				   h->workload ? " in workload " : "", h->workload ? h->workload : "",
				   a->path);
	return 0;
}

/* The default rule of a prediction (docs/hypothesis-format.md, "Predictions"), with
 * m = min_effect: criteria into res->crit, expressions as text. */
static void default_rule(struct hyp_result *res, enum hyp_prediction pred, int with_p)
{
	double m = res->min_effect;
	struct {
		const char *id, *stat;
		enum hyp_op op;
		double v;
	} c[6];
	size_t n = 0;
	const char *cor = NULL, *fal = NULL;
#define CRIT(i, s, o, v_) (c[n].id = (i), c[n].stat = (s), c[n].op = (o), c[n].v = (v_), n++)
	switch (pred) {
	case HYP_PRED_FASTER:
		CRIT("faster_by_min", "ci_hi", HYP_OP_LT, 1 - m);
		CRIT("short_of_min", "ci_lo", HYP_OP_GT, 1 - m);
		cor = with_p ? "faster_by_min and significant" : "faster_by_min";
		fal = "short_of_min";
		break;
	case HYP_PRED_SLOWER:
		CRIT("slower_by_min", "ci_lo", HYP_OP_GT, 1 + m);
		CRIT("short_of_min", "ci_hi", HYP_OP_LT, 1 + m);
		cor = with_p ? "slower_by_min and significant" : "slower_by_min";
		fal = "short_of_min";
		break;
	case HYP_PRED_SAME:
		CRIT("lo_inside", "ci_lo", HYP_OP_GE, 1 - m);
		CRIT("hi_inside", "ci_hi", HYP_OP_LE, 1 + m);
		CRIT("faster_by_min", "ci_hi", HYP_OP_LT, 1 - m);
		CRIT("slower_by_min", "ci_lo", HYP_OP_GT, 1 + m);
		cor = "lo_inside and hi_inside";
		fal = with_p ? "(faster_by_min or slower_by_min) and significant" :
			       "faster_by_min or slower_by_min";
		break;
	case HYP_PRED_NOT_FASTER:
		CRIT("short_of_min", "ci_lo", HYP_OP_GT, 1 - m);
		CRIT("faster_by_min", "ci_hi", HYP_OP_LT, 1 - m);
		cor = "short_of_min";
		fal = with_p ? "faster_by_min and significant" : "faster_by_min";
		break;
	case HYP_PRED_NOT_SLOWER:
	default:
		CRIT("short_of_min", "ci_hi", HYP_OP_LT, 1 + m);
		CRIT("slower_by_min", "ci_lo", HYP_OP_GT, 1 + m);
		cor = "short_of_min";
		fal = with_p ? "slower_by_min and significant" : "slower_by_min";
		break;
	}
	if (with_p)
		CRIT("significant", "p", HYP_OP_LT, res->alpha);
#undef CRIT
	res->crit = xcalloc(n, sizeof(*res->crit));
	res->ncrit = n;
	for (size_t i = 0; i < n; i++) {
		res->crit[i].id = xstrdup(c[i].id);
		res->crit[i].statistic = xstrdup(c[i].stat);
		res->crit[i].op = c[i].op;
		res->crit[i].value = c[i].v;
	}
	char *err = NULL;
	size_t at;
	res->cx = expr_parse(cor, res->crit, n, &err, &at);
	res->fx = expr_parse(fal, res->crit, n, &err, &at);
	if (!res->cx || !res->fx)
		die("default rule does not parse: %s", err ? err : "?");
}

static void copy_rule(struct hyp_result *res, const struct hypothesis *h)
{
	res->crit = xcalloc(h->ncrit, sizeof(*res->crit));
	res->ncrit = h->ncrit;
	for (size_t i = 0; i < h->ncrit; i++) {
		res->crit[i] = h->crit[i];
		res->crit[i].id = xstrdup(h->crit[i].id);
		res->crit[i].statistic = xstrdup(h->crit[i].statistic);
		res->crit[i].svalue = h->crit[i].svalue ? xstrdup(h->crit[i].svalue) : NULL;
	}
	struct sbuf sb;
	sbuf_init(&sb);
	expr_text(h->corroborate, h->crit, &sb, 0);
	char *err = NULL;
	size_t at;
	res->cx = expr_parse(sb.buf, res->crit, res->ncrit, &err, &at);
	sbuf_reset(&sb);
	expr_text(h->falsify, h->crit, &sb, 0);
	res->fx = expr_parse(sb.buf, res->crit, res->ncrit, &err, &at);
	sbuf_release(&sb);
	if (!res->cx || !res->fx)
		die("a parsed rule does not parse again: %s", err ? err : "?");
}

static struct hyp_target *new_target(struct hyp_result *res, enum hyp_target_kind kind)
{
	res->t = xrealloc(res->t, (res->nt + 1) * sizeof(*res->t));
	struct hyp_target *t = &res->t[res->nt++];
	memset(t, 0, sizeof(*t));
	t->kind = kind;
	t->ratio = t->hl_ratio = t->lo = t->hi = t->tau = t->p_raw = t->p = NAN;
	t->mde = t->repeats = NAN;
	t->verdict = VERDICT_INCONCLUSIVE;
	t->result = HYP_INCONCLUSIVE;
	return t;
}

static void cell_target(struct hyp_result *res, const struct report *r, size_t m, size_t c)
{
	const struct analysis *a = r->a;
	struct hyp_target *t = new_target(res, HYP_T_CELL);
	t->mode = xstrdup(a->modes[m]);
	t->label = xasprintf("%s/%s", a->modes[m], a->cells[c].name);
	const struct rep_cmp *x = NULL;
	for (size_t i = 0; i < r->ncmp && !x; i++)
		if (r->cmp[i].mode == m && r->cmp[i].cell == c)
			x = &r->cmp[i];
	if (!x || !x->ok) {
		snprintf(t->note, sizeof(t->note), "%s", x ? x->note : "not compared");
		return;
	}
	t->ok = 1;
	t->n = x->c.n;
	t->ratio = x->c.ratio;
	t->hl_ratio = x->c.hl_ratio;
	t->lo = x->c.lo;
	t->hi = x->c.hi;
	t->p_raw = t->p = x->c.p;
	t->mde = x->c.mde;
	if (res->min_effect > 0)
		t->repeats = ceil(stats_blocks_needed(res->min_effect, x->c.sigma_log, res->alpha,
						      r->o.power));
}

/* The geometric mean of mode m's ratios over cells: the report's aggregate when cells are
 * exactly the op cells of one of its scopes, else stats_boot_geomean over the blocks. */
static void geomean_target(struct hyp_result *res, const struct report *r, size_t m,
			   const size_t *cells, size_t ncells, gsl_rng *rng)
{
	const struct analysis *a = r->a;
	struct hyp_target *t = new_target(res, HYP_T_GEOMEAN);
	t->mode = xstrdup(a->modes[m]);
	t->label = xasprintf("%s/geomean(%zu cells)", a->modes[m], ncells);
	t->n = ncells;
	for (size_t g = 0; g < r->nagg; g++) {
		const struct rep_agg *ag = &r->agg[g];
		if (ag->mode != m || isnan(ag->geomean))
			continue;
		int all = !strcmp(ag->scope, "all");
		size_t k = 0, match = 1;
		for (size_t c = 0; c < a->ncells; c++) {
			int in_scope = !strcmp(a->cells[c].kind, "op") &&
				       (all || !strcmp(a->cells[c].workload, ag->scope));
			int in_mine = k < ncells && cells[k] == c;
			k += in_mine;
			match &= in_scope == in_mine;
		}
		if (match && k == ncells && ag->ncells == ncells) {
			t->ok = 1;
			t->ratio = ag->geomean;
			t->lo = ag->lo;
			t->hi = ag->hi;
			return;
		}
	}
	if (!a->paired) {
		snprintf(t->note, sizeof(t->note),
			 "unpaired data: only the report's op-cell geomeans are available");
		return;
	}
	double *logr = xmalloc(a->nblocks * ncells * sizeof(*logr));
	for (size_t b = 0; b < a->nblocks; b++)
		for (size_t k = 0; k < ncells; k++) {
			double x = an_med(a, m, cells[k], b), y = an_med(a, r->baseline, cells[k], b);
			logr[b * ncells + k] = x > 0 && y > 0 ? log(x / y) : NAN;
		}
	char *cause = NULL;
	if (stats_boot_geomean(logr, a->nblocks, ncells, r->o.conf, r->o.nboot, rng, &t->ratio,
			       &t->lo, &t->hi, &cause)) {
		snprintf(t->note, sizeof(t->note), "%s", cause);
		free(cause);
		t->ratio = t->lo = t->hi = NAN;
	} else {
		t->ok = 1;
	}
	free(logr);
}

static double target_stat(const struct hyp_target *t, const char *s)
{
	if (!strcmp(s, "ratio"))
		return t->ratio;
	if (!strcmp(s, "hl_ratio"))
		return t->hl_ratio;
	if (!strcmp(s, "ci_lo"))
		return t->lo;
	if (!strcmp(s, "ci_hi"))
		return t->hi;
	if (!strcmp(s, "p"))
		return t->p;
	if (!strcmp(s, "p_raw"))
		return t->p_raw;
	if (!strcmp(s, "n"))
		return t->ok ? (double)t->n : NAN;
	if (!strcmp(s, "mde"))
		return t->mde;
	if (!strcmp(s, "tau"))
		return t->tau;
	return NAN;
}

/* A criterion on a target: false when the statistic is not available (NaN). */
static int crit_holds(const struct hyp_criterion *c, const struct hyp_target *t)
{
	if (c->svalue) {
		if (!t->ok)
			return 0;
		int eq = !strcmp(stats_verdict_name(t->verdict), c->svalue);
		return c->op == HYP_OP_EQ ? eq : !eq;
	}
	double v = target_stat(t, c->statistic);
	if (isnan(v))
		return 0;
	switch (c->op) {
	case HYP_OP_LT: return v < c->value;
	case HYP_OP_LE: return v <= c->value;
	case HYP_OP_GT: return v > c->value;
	case HYP_OP_GE: return v >= c->value;
	case HYP_OP_EQ: return v == c->value;
	case HYP_OP_NE: return v != c->value;
	}
	return 0;
}

static int expr_holds(const struct hyp_expr *x, const struct hyp_criterion *crit,
		      const struct hyp_target *t)
{
	switch (x->kind) {
	case HYP_X_CRIT: return crit_holds(&crit[x->crit], t);
	case HYP_X_NOT: return !expr_holds(x->l, crit, t);
	case HYP_X_AND: return expr_holds(x->l, crit, t) && expr_holds(x->r, crit, t);
	case HYP_X_OR: return expr_holds(x->l, crit, t) || expr_holds(x->r, crit, t);
	}
	return 0;
}

/* Combine the results of n targets by aggregate: each/all (every one corroborated; one
 * falsified falsifies), any (one corroborated; all falsified falsifies), at_least k (k
 * corroborated; more than n - k falsified falsifies). */
static enum hyp_verdict combine(const struct hyp_target *t, size_t n, enum hyp_aggregate g,
				size_t k)
{
	size_t nc = 0, nf = 0;
	for (size_t i = 0; i < n; i++) {
		nc += t[i].result == HYP_CORROBORATED;
		nf += t[i].result == HYP_FALSIFIED;
	}
	switch (g) {
	case HYP_AGG_ANY:
		return nc ? HYP_CORROBORATED : nf == n ? HYP_FALSIFIED : HYP_INCONCLUSIVE;
	case HYP_AGG_AT_LEAST:
		return nc >= k ? HYP_CORROBORATED : nf > n - k ? HYP_FALSIFIED : HYP_INCONCLUSIVE;
	default:
		return nf ? HYP_FALSIFIED : nc == n ? HYP_CORROBORATED : HYP_INCONCLUSIVE;
	}
}

/* v with prec digits after the point ('g' style when g is set), or "n/a". */
static void fmt_num(struct sbuf *sb, double v, int prec, int g)
{
	if (isnan(v))
		sbuf_adds(sb, "n/a");
	else if (g)
		sbuf_addf(sb, "%.*g", prec, v);
	else
		sbuf_addf(sb, "%.*f", prec, v);
}

static void target_numbers(struct sbuf *sb, const struct hyp_target *t)
{
	sbuf_addf(sb, "%s: ", t->label);
	if (!t->ok) {
		sbuf_addf(sb, "not decidable (%s)", t->note);
		return;
	}
	if (t->kind == HYP_T_TAU) {
		sbuf_adds(sb, "tau ");
		fmt_num(sb, t->tau, 3, 0);
	} else {
		sbuf_adds(sb, "ratio ");
		fmt_num(sb, t->ratio, 4, 0);
		sbuf_adds(sb, " [");
		fmt_num(sb, t->lo, 4, 0);
		sbuf_adds(sb, ", ");
		fmt_num(sb, t->hi, 4, 0);
		sbuf_adds(sb, "]");
	}
	if (!isnan(t->p)) {
		sbuf_adds(sb, ", p ");
		fmt_num(sb, t->p, 3, 1);
		if (t->in_family)
			sbuf_adds(sb, " (Holm)");
	}
	if (t->kind == HYP_T_CELL)
		sbuf_addf(sb, ", %s", stats_verdict_name(t->verdict));
}

static void result_release(struct hyp_result *res)
{
	free(res->baseline);
	for (size_t i = 0; i < res->ncrit; i++)
		crit_release(&res->crit[i]);
	free(res->crit);
	free(res->corroborate);
	free(res->falsify);
	expr_free(res->cx);
	expr_free(res->fx);
	for (size_t i = 0; i < res->nt; i++) {
		free(res->t[i].label);
		free(res->t[i].mode);
	}
	free(res->t);
	free(res->deciding);
}

void hyp_eval_free(struct hyp_eval *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->nr; i++)
		result_release(&e->r[i]);
	free(e->r);
	free(e);
}

/* Targets of one hypothesis (statistics only; decided later, after Holm). */
static int build_targets(const struct analysis *a, const struct hyp_eval_opts *o,
			 const struct hyp_entry *en, const struct hypothesis *h,
			 struct hyp_result *res, struct rcache *rc, gsl_rng *rng)
{
	const struct hyp_file *f = en->file;
	size_t base = a->baseline;
	if (h->baseline) {
		if (find_mode(a, f, h, h->baseline, h->baseline_pos, &base))
			return -1;
	} else if (o->ro.baseline) {
		long b = analysis_mode(a, o->ro.baseline);
		if (b < 0)
			return error("no mode '%s' in '%s' (--baseline)", o->ro.baseline, a->path);
		base = (size_t)b;
	}
	res->baseline = xstrdup(a->modes[base]);
	const struct report *r = report_for(a, o, base, rc);
	if (!r)
		return -1;
	res->alpha = isnan(h->alpha) ? o->ro.alpha : h->alpha;
	if (!isnan(h->min_effect)) {
		res->min_effect = h->min_effect;
		res->min_effect_source = "hypothesis";
	} else {
		res->min_effect = r->margin;
		res->min_effect_source = r->margin_source;
	}
	int with_p = h->aggregate != HYP_AGG_GEOMEAN;
	if (h->ncrit)
		copy_rule(res, h);
	else
		default_rule(res, h->prediction, with_p);
	struct sbuf sb;
	sbuf_init(&sb);
	expr_text(res->cx, res->crit, &sb, 0);
	res->corroborate = xstrdup(sb.buf);
	sbuf_reset(&sb);
	expr_text(res->fx, res->crit, &sb, 0);
	res->falsify = sbuf_detach(&sb);
	res->uses_p = expr_reads(res->cx, res->crit, "p") || expr_reads(res->fx, res->crit, "p") ||
		      expr_reads(res->cx, res->crit, "verdict") ||
		      expr_reads(res->fx, res->crit, "verdict");

	if (h->aggregate == HYP_AGG_OP_VS_E2E) {
		if (h->workload) {
			size_t *cells, n;
			int bad = resolve_cells(a, f, h, &cells, &n);
			free(cells);
			if (bad)
				return -1;
		}
		for (size_t i = 0; i < r->ntau; i++) {
			const struct rep_tau *x = &r->tau[i];
			if (h->workload && strcmp(h->workload, x->workload))
				continue;
			struct hyp_target *t = new_target(res, HYP_T_TAU);
			t->label = xasprintf("tau(%s)", x->workload);
			t->n = x->nmodes;
			t->tau = x->tau;
			t->p_raw = t->p = x->p;
			t->ok = !isnan(x->tau);
			if (!t->ok)
				snprintf(t->note, sizeof(t->note), "Kendall tau not computable");
		}
		if (res->nt == 0) {
			struct hyp_target *t = new_target(res, HYP_T_TAU);
			t->label = xstrdup("tau");
			snprintf(t->note, sizeof(t->note), "no workload in scope with both op and "
							    "e2e cells");
		}
		return 0;
	}
	/* modes */
	size_t *modes = xcalloc(a->nmodes, sizeof(*modes)), nm = 0;
	for (size_t i = 0; i < h->nmodes; i++) {
		if (!strcmp(h->modes[i], "*")) {
			for (size_t m = 0; m < a->nmodes; m++)
				if (m != base && !a->aa_of[m])
					modes[nm++] = m;
			break;
		}
		size_t m;
		if (find_mode(a, f, h, h->modes[i], h->modes_pos, &m)) {
			free(modes);
			return -1;
		}
		if (m == base) {
			free(modes);
			return where_error(f, h->modes_pos, "hypothesis '%s': mode '%s' is its own "
							    "baseline", h->id, h->modes[i]);
		}
		modes[nm++] = m;
	}
	size_t *cells = NULL, nc = 0;
	if (nm == 0 || resolve_cells(a, f, h, &cells, &nc)) {
		if (nm == 0)
			where_error(f, h->modes_pos, "hypothesis '%s': \"*\" selects no mode besides "
						     "the baseline '%s'", h->id, a->modes[base]);
		free(modes);
		free(cells);
		return -1;
	}
	if (h->aggregate == HYP_AGG_AT_LEAST && h->at_least > nc) {
		free(modes);
		free(cells);
		return where_error(f, h->at_least_pos, "hypothesis '%s': at_least = %zu but its "
						       "scope has %zu cell(s)", h->id, h->at_least,
				   nc);
	}
	for (size_t i = 0; i < nm; i++) {
		if (h->aggregate == HYP_AGG_GEOMEAN)
			geomean_target(res, r, modes[i], cells, nc, rng);
		else
			for (size_t k = 0; k < nc; k++)
				cell_target(res, r, modes[i], cells[k]);
	}
	free(modes);
	free(cells);
	return 0;
}

/* Decide each target, then the hypothesis: per mode by the aggregate, across modes (and
 * across the workloads of op-vs-e2e) every one must hold. */
static void decide(struct hyp_result *res, const struct hyp_entry *en)
{
	const struct hypothesis *h = res->h;
	for (size_t i = 0; i < res->nt; i++) {
		struct hyp_target *t = &res->t[i];
		if (t->kind == HYP_T_CELL)
			t->verdict = stats_decide(t->lo, t->hi, t->p, res->alpha, res->min_effect);
		else if (t->kind == HYP_T_GEOMEAN)
			t->verdict = stats_decide(t->lo, t->hi, 0, res->alpha, res->min_effect);
		if (!t->ok)
			t->result = HYP_INCONCLUSIVE;
		else if (expr_holds(res->fx, res->crit, t))
			t->result = HYP_FALSIFIED;
		else if (expr_holds(res->cx, res->crit, t))
			t->result = HYP_CORROBORATED;
		else
			t->result = HYP_INCONCLUSIVE;
	}
	/* groups: consecutive targets of one mode (cell aggregates), else one per target */
	size_t nc = 0, nf = 0, ng = 0;
	for (size_t i = 0; i < res->nt;) {
		size_t j = i + 1;
		if (res->t[i].kind == HYP_T_CELL)
			while (j < res->nt && !strcmp(res->t[j].mode, res->t[i].mode))
				j++;
		enum hyp_verdict v = res->t[i].kind == HYP_T_CELL ?
					     combine(res->t + i, j - i, h->aggregate, h->at_least) :
					     res->t[i].result;
		nc += v == HYP_CORROBORATED;
		nf += v == HYP_FALSIFIED;
		ng++;
		i = j;
	}
	res->verdict = nf ? HYP_FALSIFIED : nc == ng ? HYP_CORROBORATED : HYP_INCONCLUSIVE;
	res->exploratory = en->status != HYP_PREREGISTERED;
	/* the deciding numbers: targets with the verdict (undecided ones when inconclusive) */
	struct sbuf sb;
	sbuf_init(&sb);
	size_t shown = 0, more = 0;
	res->mde = res->repeats = NAN;
	for (size_t i = 0; i < res->nt; i++) {
		const struct hyp_target *t = &res->t[i];
		if (t->result != res->verdict)
			continue;
		if (!isnan(t->mde) && !(t->mde <= res->mde))
			res->mde = t->mde;
		if (res->verdict == HYP_INCONCLUSIVE && !isnan(t->repeats) &&
		    !(t->repeats <= res->repeats))
			res->repeats = t->repeats;
		if (shown < 3) {
			if (shown++)
				sbuf_adds(&sb, "; ");
			target_numbers(&sb, t);
		} else {
			more++;
		}
	}
	if (more)
		sbuf_addf(&sb, "; and %zu more", more);
	res->deciding = sbuf_detach(&sb);
}

int hyp_evaluate(const struct analysis *a, const struct hyp_set *s,
		 const struct hyp_eval_opts *o, struct hyp_eval **out)
{
	struct hyp_eval *e = xcalloc(1, sizeof(*e));
	struct rcache rc = { NULL, NULL, 0 };
	int ret = -1;
	e->a = a;
	e->set = s;
	*out = NULL;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!rng) {
		error("cannot allocate the bootstrap's random number generator");
		goto done;
	}
	gsl_rng_set(rng, (unsigned long)o->ro.seed);
	for (size_t i = 0; i < s->n; i++)
		for (size_t k = 0; k < s->e[i].file->nh; k++) {
			e->r = xrealloc(e->r, (e->nr + 1) * sizeof(*e->r));
			struct hyp_result *res = &e->r[e->nr++];
			memset(res, 0, sizeof(*res));
			res->entry = &s->e[i];
			res->h = &s->e[i].file->h[k];
			if (build_targets(a, o, &s->e[i], res->h, res, &rc, rng))
				goto done;
		}
	/* Holm across the primaries: every p of a primary hypothesis whose rule reads p or a
	 * verdict, in one family */
	size_t nfam = 0;
	for (size_t i = 0; i < e->nr; i++)
		if (e->r[i].h->primary && e->r[i].uses_p)
			for (size_t k = 0; k < e->r[i].nt; k++)
				nfam += !isnan(e->r[i].t[k].p_raw);
	if (nfam) {
		double *p = xmalloc(nfam * sizeof(*p)), *adj = xmalloc(nfam * sizeof(*adj));
		size_t j = 0;
		for (size_t i = 0; i < e->nr; i++)
			if (e->r[i].h->primary && e->r[i].uses_p)
				for (size_t k = 0; k < e->r[i].nt; k++)
					if (!isnan(e->r[i].t[k].p_raw))
						p[j++] = e->r[i].t[k].p_raw;
		stats_holm(p, nfam, adj);
		j = 0;
		for (size_t i = 0; i < e->nr; i++)
			if (e->r[i].h->primary && e->r[i].uses_p)
				for (size_t k = 0; k < e->r[i].nt; k++)
					if (!isnan(e->r[i].t[k].p_raw)) {
						e->r[i].t[k].p = adj[j++];
						e->r[i].t[k].in_family = 1;
					}
		free(p);
		free(adj);
	}
	e->family = nfam;
	for (size_t i = 0; i < e->nr; i++) {
		decide(&e->r[i], e->r[i].entry);
		if (e->r[i].h->primary && e->r[i].verdict == HYP_FALSIFIED &&
		    e->r[i].entry->status == HYP_PREREGISTERED)
			e->prereg_primary_falsified = 1;
	}
	ret = 0;
done:
	for (size_t i = 0; i < rc.n; i++)
		report_free(rc.r[i]);
	free(rc.r);
	free(rc.base);
	if (rng)
		gsl_rng_free(rng);
	if (ret)
		hyp_eval_free(e);
	else
		*out = e;
	return ret;
}

/* ---- output ------------------------------------------------------------------------------ */

static const char *pct(char *buf, size_t n, double v)
{
	if (isnan(v))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%.2f%%", 100 * v);
	return buf;
}

/* Markdown cells must not break the table. */
static void md_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", out);
		else if (*s == '\n')
			fputc(' ', out);
		else
			fputc(*s, out);
	}
}

static void write_md(const struct hyp_eval *e, FILE *out)
{
	fprintf(out, "## Hypotheses\n\n");
	fprintf(out, "Results: '%s'.  Verdicts on files that are not PRE-REGISTERED are "
		     "exploratory.\n\n", e->a->path);
	fprintf(out, "| file | status | sha256 | why |\n|---|---|---|---|\n");
	for (size_t i = 0; i < e->set->n; i++) {
		const struct hyp_entry *en = &e->set->e[i];
		fprintf(out, "| ");
		md_text(out, en->file->path);
		fprintf(out, " | %s | %.12s | ", hyp_status_name(en->status), en->file->sha256);
		md_text(out, en->why ? en->why : "");
		fprintf(out, " |\n");
	}
	fprintf(out, "\n| id | primary | status | verdict | baseline | min effect | alpha | "
		     "deciding numbers | mde | repeats to decide |\n"
		     "|---|---|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < e->nr; i++) {
		const struct hyp_result *r = &e->r[i];
		char b1[32], b2[32];
		fprintf(out, "| %s | %s | %s | **%s**%s | %s | %s | %g | ", r->h->id,
			r->h->primary ? "yes" : "no", hyp_status_name(r->entry->status),
			hyp_verdict_name(r->verdict), r->exploratory ? " (exploratory)" : "",
			r->baseline, pct(b1, sizeof(b1), r->min_effect), r->alpha);
		md_text(out, r->deciding);
		fprintf(out, " | %s | ", pct(b2, sizeof(b2), r->mde));
		if (r->verdict == HYP_INCONCLUSIVE && !isnan(r->repeats) && isfinite(r->repeats))
			fprintf(out, "%.0f blocks |\n", r->repeats);
		else
			fprintf(out, "- |\n");
	}
	fprintf(out, "\nHolm family: %zu p-value(s) of the primary hypotheses.\n", e->family);
	if (e->prereg_primary_falsified)
		fprintf(out, "\n**A pre-registered primary hypothesis was FALSIFIED.**\n");
}

static json_t *jnum(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

static json_t *jexpr_crit(const struct hyp_criterion *c)
{
	json_t *o = json_pack("{s:s, s:s, s:s}", "id", c->id, "statistic", c->statistic, "op",
			      op_names[c->op]);
	json_object_set_new(o, "value", c->svalue ? json_string(c->svalue) : jnum(c->value));
	return o;
}

static json_t *json_eval(const struct hyp_eval *e)
{
	json_t *root = json_pack("{s:s, s:i, s:s}", "format", "harness-verify", "version", 1,
				 "results", e->a->path);
	json_t *files = json_array();
	for (size_t i = 0; i < e->set->n; i++) {
		const struct hyp_entry *en = &e->set->e[i];
		json_array_append_new(files, json_pack("{s:s, s:s, s:s, s:s, s:b}", "path",
						       en->file->path, "sha256", en->file->sha256,
						       "status", hyp_status_name(en->status), "why",
						       en->why ? en->why : "", "recorded",
						       en->recorded));
	}
	json_object_set_new(root, "files", files);
	json_t *hs = json_array();
	for (size_t i = 0; i < e->nr; i++) {
		const struct hyp_result *r = &e->r[i];
		const struct hypothesis *h = r->h;
		json_t *o = json_pack("{s:s, s:s, s:s, s:b, s:s, s:s, s:b, s:s, s:s, s:s}", "file",
				      r->entry->file->path, "id", h->id, "claim", h->claim, "primary",
				      h->primary, "status", hyp_status_name(r->entry->status),
				      "verdict", hyp_verdict_name(r->verdict), "exploratory",
				      r->exploratory, "baseline", r->baseline, "aggregate",
				      aggregate_names[h->aggregate], "prediction",
				      prediction_names[h->prediction]);
		json_object_set_new(o, "at_least", h->aggregate == HYP_AGG_AT_LEAST ?
							   json_integer((json_int_t)h->at_least) :
							   json_null());
		json_object_set_new(o, "alpha", jnum(r->alpha));
		json_object_set_new(o, "min_effect", jnum(r->min_effect));
		json_object_set_new(o, "min_effect_source", json_string(r->min_effect_source));
		json_t *crit = json_array();
		for (size_t k = 0; k < r->ncrit; k++)
			json_array_append_new(crit, jexpr_crit(&r->crit[k]));
		json_object_set_new(o, "criteria", crit);
		json_object_set_new(o, "corroborate", json_string(r->corroborate));
		json_object_set_new(o, "falsify", json_string(r->falsify));
		json_object_set_new(o, "deciding", json_string(r->deciding));
		json_object_set_new(o, "mde", jnum(r->mde));
		json_object_set_new(o, "repeats_to_decide", jnum(r->repeats));
		json_t *ts = json_array();
		for (size_t k = 0; k < r->nt; k++) {
			const struct hyp_target *t = &r->t[k];
			static const char *const kinds[] = { "cell", "geomean", "tau" };
			json_t *x = json_pack("{s:s, s:s, s:b}", "label", t->label, "kind",
					      kinds[t->kind], "ok", t->ok);
			json_object_set_new(x, "mode", t->mode ? json_string(t->mode) : json_null());
			if (!t->ok)
				json_object_set_new(x, "why", json_string(t->note));
			json_object_set_new(x, "n", json_integer((json_int_t)t->n));
			json_object_set_new(x, "ratio", jnum(t->ratio));
			json_object_set_new(x, "hl_ratio", jnum(t->hl_ratio));
			json_object_set_new(x, "ci", json_pack("[o, o]", jnum(t->lo), jnum(t->hi)));
			json_object_set_new(x, "tau", jnum(t->tau));
			json_object_set_new(x, "p_raw", jnum(t->p_raw));
			json_object_set_new(x, "p", jnum(t->p));
			json_object_set_new(x, "holm", json_boolean(t->in_family));
			json_object_set_new(x, "mde", jnum(t->mde));
			json_object_set_new(x, "repeats_to_decide", jnum(t->repeats));
			json_object_set_new(x, "verdict", t->kind == HYP_T_TAU ? json_null() :
					    json_string(stats_verdict_name(t->verdict)));
			json_object_set_new(x, "result", json_string(hyp_verdict_name(t->result)));
			json_array_append_new(ts, x);
		}
		json_object_set_new(o, "targets", ts);
		json_array_append_new(hs, o);
	}
	json_object_set_new(root, "hypotheses", hs);
	json_object_set_new(root, "holm_family", json_integer((json_int_t)e->family));
	json_object_set_new(root, "preregistered_primary_falsified",
			    json_boolean(e->prereg_primary_falsified));
	return root;
}

int hyp_eval_write(const struct hyp_eval *e, enum report_format fmt, FILE *out)
{
	if (fmt == REPORT_JSON) {
		json_t *j = json_eval(e);
		char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
		json_decref(j);
		if (!s)
			die("out of memory");
		fprintf(out, "%s\n", s);
		free(s);
	} else {
		write_md(e, out);
	}
	if (fflush(out) || ferror(out))
		return error_errno("cannot write the hypotheses' verdicts");
	return 0;
}

int hyp_evaluate_run(const char *results_path, FILE *out)
{
	struct analysis *a = NULL;
	struct hyp_set *s = NULL;
	struct hyp_eval *e = NULL;
	struct hyp_eval_opts o;
	int ret = -1;
	hyp_eval_opts_init(&o);
	if (analysis_load(results_path, &a))
		goto done;
	if (hyp_set_load(results_path, &a->meta, NULL, 0, &s))
		goto done;
	if (s->n == 0) {
		ret = 0;
		goto done;
	}
	if (hyp_evaluate(a, s, &o, &e) || hyp_eval_write(e, REPORT_MD, out))
		goto done;
	ret = e->prereg_primary_falsified;
done:
	hyp_eval_free(e);
	hyp_set_free(s);
	analysis_free(a);
	return ret;
}
