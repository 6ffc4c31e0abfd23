/* test-hypothesis.c: hypothesis files (every key, every error with its file:line:col), the
 * decision logic on a results file imported from synthetic data with known effects, the
 * git capture of pre-commitment and the statuses PRE-REGISTERED / UNCOMMITTED / MODIFIED /
 * POST-HOC */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/analysis/analysis.h"
#include "harness/record/csvimport.h"
#include "harness/analysis/hyp.h"
#include "harness/output/write.h"
#include "harness/record/prereg.h"
#include "harness/record/recorder.h"
#include "harness/base/spawn.h"
#include "harness/base/util.h"
#include "tests/unit/testutil.h"

#define HEAD "schema = 1\n[[hypotheses]]\nid = \"h\"\nclaim = \"c\"\n" /* 4 lines */

static struct hyp_file *parse_ok(const char *text)
{
	struct hyp_file *f = NULL;
	char *cause = NULL;
	int r = hyp_file_parse("h.toml", text, strlen(text), &f, &cause);
	ck_assert_msg(r == 0, "parse failed: %s", cause ? cause : "(no cause)");
	ck_assert_ptr_null(cause);
	return f;
}

/* The parse must fail with exactly want. */
static void parse_err(const char *text, const char *want)
{
	struct hyp_file *f = (struct hyp_file *)1;
	char *cause = NULL;
	ck_assert_int_eq(hyp_file_parse("h.toml", text, strlen(text), &f, &cause), -1);
	ck_assert_ptr_null(f);
	ck_assert_ptr_nonnull(cause);
	ck_assert_msg(!strcmp(cause, want), "got   \"%s\"\nwanted \"%s\"", cause, want);
	free(cause);
}

START_TEST(test_every_key)
{
	struct hyp_file *f = parse_ok(
		"schema = 1\n"
		"description = \"d\"\n"
		"[[hypotheses]]\n"
		"id = \"H1.a\"\n"
		"claim = \"fast wins\"\n"
		"primary = true\n"
		"mode = [\"fast\", \"fast2\"]\n"
		"baseline = \"base\"\n"
		"scope = \"ops\"\n"
		"workload = \"net\"\n"
		"aggregate = \"at_least\"\n"
		"at_least = 2\n"
		"prediction = \"faster\"\n"
		"min_effect = 0.035\n"
		"alpha = 0.01\n"
		"criteria = [ { id = \"lo\", statistic = \"ci_hi\", op = \"<\", value = 0.965 },\n"
		"  { id = \"v\", statistic = \"verdict\", op = \"!=\", value = \"SAME\" },\n"
		"  { id = \"p-ok\", statistic = \"p\", op = \"<=\", value = 0.01 } ]\n"
		"corroborate = \"lo and (v or not p-ok)\"\n"
		"falsify = \"!lo & v | p-ok\"\n"
		"[[hypotheses]]\n"
		"id = \"H2\"\n"
		"claim = \"same\"\n"
		"mode = \"*\"\n"
		"cells = \"net/e2e\"\n"
		"prediction = \"not-slower\"\n");
	ck_assert_str_eq(f->description, "d");
	ck_assert_uint_eq(f->nh, 2);
	const struct hypothesis *h = &f->h[0];
	ck_assert_str_eq(h->id, "H1.a");
	ck_assert_str_eq(h->claim, "fast wins");
	ck_assert_int_eq(h->primary, 1);
	ck_assert_uint_eq(h->nmodes, 2);
	ck_assert_str_eq(h->modes[1], "fast2");
	ck_assert_str_eq(h->baseline, "base");
	ck_assert_int_eq(h->scope, HYP_SCOPE_OPS);
	ck_assert_str_eq(h->workload, "net");
	ck_assert_int_eq(h->aggregate, HYP_AGG_AT_LEAST);
	ck_assert_uint_eq(h->at_least, 2);
	ck_assert_int_eq(h->prediction, HYP_PRED_FASTER);
	ck_assert_double_eq_tol(h->min_effect, 0.035, 1e-15);
	ck_assert_double_eq_tol(h->alpha, 0.01, 1e-15);
	ck_assert_uint_eq(h->ncrit, 3);
	ck_assert_str_eq(h->crit[1].svalue, "SAME");
	ck_assert_int_eq(h->crit[1].op, HYP_OP_NE);
	ck_assert_int_eq(h->crit[2].op, HYP_OP_LE);
	ck_assert_int_eq(h->corroborate->kind, HYP_X_AND);
	ck_assert_int_eq(h->corroborate->r->kind, HYP_X_OR);
	ck_assert_int_eq(h->corroborate->r->r->kind, HYP_X_NOT);
	ck_assert_int_eq(h->falsify->kind, HYP_X_OR); /* and binds tighter than or */
	ck_assert_int_eq(h->falsify->l->kind, HYP_X_AND);
	ck_assert_uint_eq(h->falsify->r->crit, 2);
	const struct hypothesis *g = &f->h[1];
	ck_assert_int_eq(g->primary, 0);
	ck_assert_int_eq(g->scope, HYP_SCOPE_CELLS);
	ck_assert_str_eq(g->cells[0], "net/e2e");
	ck_assert_int_eq(g->aggregate, HYP_AGG_EACH);
	ck_assert_int_eq(g->prediction, HYP_PRED_NOT_SLOWER);
	ck_assert(isnan(g->min_effect) && isnan(g->alpha));
	ck_assert_int_eq(g->pos.line, 21);
	ck_assert_int_eq(strlen(f->sha256), 64);
	hyp_file_free(f);
}
END_TEST

START_TEST(test_superseded)
{
#define SUP_H(id, extra) "[[hypotheses]]\nid = \"" id "\"\nclaim = \"c\"\nmode = \"m\"\n" \
			 "prediction = \"faster\"\n" extra
	struct hyp_file *f = parse_ok("schema = 1\n" SUP_H("old", "superseded_by = \"new\"\n")
				      SUP_H("new", ""));
	ck_assert_str_eq(f->h[0].superseded_by, "new");
	ck_assert_ptr_null(f->h[1].superseded_by);
	hyp_file_free(f);
	parse_err("schema = 1\n" SUP_H("old", "superseded_by = \"nope\"\n"),
		  "'h.toml':7:17: hypothesis 'old': superseded_by 'nope' names no hypothesis of "
		  "this file");
	parse_err("schema = 1\n" SUP_H("old", "superseded_by = \"old\"\n"),
		  "'h.toml':7:17: hypothesis 'old' cannot supersede itself");
	parse_err("schema = 1\n" SUP_H("a", "superseded_by = \"b\"\n")
		  SUP_H("b", "superseded_by = \"c\"\n") SUP_H("c", ""),
		  "'h.toml':7:17: hypothesis 'a': superseded_by 'b', which is superseded itself "
		  "(by 'c'): name the newest");
	parse_err("schema = 1\n" SUP_H("p", "primary = true\nsuperseded_by = \"q\"\n")
		  SUP_H("q", ""),
		  "'h.toml':8:17: hypothesis 'p': a primary hypothesis cannot be superseded (it "
		  "decides the exit status as registered); register the new claim beside it");
#undef SUP_H
}
END_TEST

START_TEST(test_errors_syntax)
{
	/* toml++'s own words, with the file and position in front */
	parse_err("schema = 1\n[[hypotheses]\n",
		  "'h.toml':2:14: error while parsing table header: expected ']', saw '\\n'");
}
END_TEST

START_TEST(test_errors_schema)
{
	parse_err("[[hypotheses]]\nid = \"h\"\n", "'h.toml':1:1: missing 'schema = 1'");
	parse_err("schema = 2\n", "'h.toml':1:10: unsupported schema 2 (this harness reads schema 1)");
	parse_err("schema = 1\n", "'h.toml':1:1: no [[hypotheses]]");
	parse_err("schema = 1\nhypotheses = []\n",
		  "'h.toml':2:14: 'hypotheses' must be a non-empty array of tables ([[hypotheses]])");
	parse_err("schema = 1\nhypothesis = 1\n",
		  "'h.toml':2:1: unknown key 'hypothesis' (did you mean 'hypotheses'?)");
	parse_err("schema = 1\nhypotheses = [1]\n",
		  "'h.toml':2:15: 'hypotheses' entries must be tables, not an integer");
	parse_err("schema = 1\ndescription = 3\n", "'h.toml':2:15: 'description' must be a string, not an integer");
}
END_TEST

START_TEST(test_errors_keys)
{
	parse_err(HEAD "mode = \"a\"\nprediction = \"faster\"\nmin_efect = 0.1\n",
		  "'h.toml':7:1: unknown key 'min_efect' in [[hypotheses]] (did you mean 'min_effect'?)");
	parse_err("schema = 1\n[[hypotheses]]\nclaim = \"c\"\n", "'h.toml':2:1: a hypothesis has no 'id'");
	parse_err("schema = 1\n[[hypotheses]]\nid = \"h\"\n", "'h.toml':2:1: hypothesis 'h' has no 'claim'");
	parse_err("schema = 1\n[[hypotheses]]\nid = \"a b\"\n",
		  "'h.toml':3:6: 'id' must be made of letters, digits, '.', '_' and '-', not 'a b'");
	parse_err(HEAD "prediction = \"faster\"\n",
		  "'h.toml':2:1: hypothesis 'h' has no 'mode' (a mode name, a list, or \"*\")");
	parse_err(HEAD "mode = \"a\"\n",
		  "'h.toml':2:1: hypothesis 'h' has neither a 'prediction' nor 'criteria' with 'corroborate' and 'falsify'");
	parse_err(HEAD "mode = \"a\"\nprediction = \"quicker\"\n",
		  "'h.toml':6:14: 'prediction' must be one of faster, slower, same, not-faster, not-slower, not 'quicker'");
	parse_err(HEAD "mode = \"a\"\nprediction = \"faster\"\nscope = \"some\"\n",
		  "'h.toml':7:9: 'scope' must be one of all, ops, e2e, not 'some'");
	parse_err(HEAD "mode = \"a\"\nprediction = \"faster\"\naggregate = \"most\"\n",
		  "'h.toml':7:13: 'aggregate' must be one of each, all, any, at_least, geomean, op-vs-e2e, composition, not 'most'");
	parse_err(HEAD "mode = 3\nprediction = \"faster\"\n",
		  "'h.toml':5:8: 'mode' must be a string or an array of strings, not an integer");
	parse_err(HEAD "mode = [\"a\", 2]\nprediction = \"faster\"\n",
		  "'h.toml':5:14: 'mode' entries must be strings, not an integer");
	parse_err(HEAD "mode = []\nprediction = \"faster\"\n", "'h.toml':5:8: 'mode' must not be empty");
	parse_err(HEAD "mode = \"\"\nprediction = \"faster\"\n", "'h.toml':5:8: 'mode' must not be empty");
	parse_err(HEAD "primary = \"yes\"\n", "'h.toml':5:11: 'primary' must be a boolean, not a string");
	parse_err(HEAD "mode = \"a\"\nprediction = \"same\"\nmin_effect = 0.5\n",
		  "'h.toml':7:14: 'min_effect' must be a number in [0, 0.5), not 0.5");
	parse_err(HEAD "mode = \"a\"\nprediction = \"same\"\nalpha = 0\n",
		  "'h.toml':7:9: 'alpha' must be a number in (0, 0.5], not 0");
	parse_err(HEAD "mode = \"a\"\nprediction = \"same\"\nalpha = \"x\"\n",
		  "'h.toml':7:9: 'alpha' must be a number, not a string");
	parse_err(HEAD "mode = \"a\"\nprediction = \"same\"\nat_least = 2\n",
		  "'h.toml':7:1: hypothesis 'h': 'at_least' needs aggregate = \"at_least\"");
	parse_err(HEAD "mode = \"a\"\nprediction = \"same\"\naggregate = \"at_least\"\n",
		  "'h.toml':7:13: hypothesis 'h': aggregate 'at_least' needs 'at_least = K'");
	parse_err(HEAD "mode = \"a\"\nprediction = \"same\"\naggregate = \"at_least\"\nat_least = 0\n",
		  "'h.toml':8:12: 'at_least' must be between 1 and 1000000, not 0");
	parse_err(HEAD "mode = \"a\"\nprediction = \"same\"\nscope = \"ops\"\ncells = [\"x\"]\n",
		  "'h.toml':7:1: hypothesis 'h': 'scope' and 'cells' exclude each other");
	parse_err(HEAD "mode = \"a\"\nprediction = \"same\"\nworkload = \"w\"\ncells = [\"x\"]\n",
		  "'h.toml':7:12: hypothesis 'h': 'workload' and 'cells' exclude each other");
	parse_err(HEAD "aggregate = \"op-vs-e2e\"\nmode = \"a\"\n",
		  "'h.toml':6:1: hypothesis 'h': aggregate 'op-vs-e2e' ranks every mode; 'mode' does not apply");
	parse_err(HEAD "aggregate = \"op-vs-e2e\"\nprediction = \"same\"\n",
		  "'h.toml':6:1: hypothesis 'h': aggregate 'op-vs-e2e' has no prediction; state it as criteria");
	parse_err(HEAD "aggregate = \"op-vs-e2e\"\ncells = [\"x\"]\n",
		  "'h.toml':6:1: hypothesis 'h': aggregate 'op-vs-e2e' works on workloads; use 'workload', not 'cells'");
	parse_err(HEAD "mode = \"a\"\nprediction = \"same\"\n[[hypotheses]]\nid = \"h\"\nclaim = \"d\"\nmode = \"a\"\nprediction = \"same\"\n",
		  "'h.toml':7:1: hypothesis id 'h' is used twice (first at line 2)");
}
END_TEST

#define CRIT(c) HEAD "mode = \"a\"\ncriteria = [ " c " ]\ncorroborate = \"x\"\nfalsify = \"x\"\n"

START_TEST(test_errors_criteria)
{
	parse_err(CRIT("{ id = \"x\", statistic = \"median\", op = \"<\", value = 1 }"),
		  "'h.toml':6:38: unknown statistic 'median' for aggregate 'each' (statistics: ratio, hl_ratio, ci_lo, ci_hi, p, p_raw, n, mde, verdict, spread_ratio)");
	parse_err(HEAD "mode = \"a\"\naggregate = \"geomean\"\ncriteria = [ { id = \"x\", statistic = \"p\", op = \"<\", value = 1 } ]\ncorroborate = \"x\"\nfalsify = \"x\"\n",
		  "'h.toml':7:38: unknown statistic 'p' for aggregate 'geomean' (statistics: ratio, ci_lo, ci_hi, n, verdict, spread_ratio)");
	parse_err(HEAD "mode = \"a\"\naggregate = \"composition\"\ncriteria = [ { id = \"x\", statistic = \"tau\", op = \"<\", value = 1 } ]\ncorroborate = \"x\"\nfalsify = \"x\"\n",
		  "'h.toml':7:38: unknown statistic 'tau' for aggregate 'composition' (statistics: pred_ratio, pred_lo, pred_hi, ratio, e2e_lo, e2e_hi, interaction, ci_lo, ci_hi, coverage, coverage_lo, coverage_hi, coverage_mode, geomean, n)");
	parse_err(HEAD "mode = \"a\"\naggregate = \"composition\"\ncells = [\"c\"]\nprediction = \"same\"\n",
		  "'h.toml':7:1: hypothesis 'h': aggregate 'composition' works on workloads; use 'workload', not 'cells'");
	parse_err(HEAD "aggregate = \"composition\"\nprediction = \"same\"\n",
		  "'h.toml':2:1: hypothesis 'h' has no 'mode' (a mode name, a list, or \"*\")");
	parse_err(HEAD "aggregate = \"op-vs-e2e\"\ncriteria = [ { id = \"x\", statistic = \"interaction\", op = \"<\", value = 1 } ]\ncorroborate = \"x\"\nfalsify = \"x\"\n",
		  "'h.toml':6:38: unknown statistic 'interaction' for aggregate 'op-vs-e2e' (statistics: tau, p, p_raw, n, tau_pred, p_pred)");
	parse_err(CRIT("{ id = \"x\", statistic = \"ratio\", op = \"=<\", value = 1 }"),
		  "'h.toml':6:52: 'op' must be one of <, <=, >, >=, ==, !=, not '=<'");
	parse_err(CRIT("{ id = \"x\", statistic = \"ratio\", op = \"<\", value = \"1\" }"),
		  "'h.toml':6:65: criterion 'x': 'value' must be a number for statistic 'ratio', not a string");
	parse_err(CRIT("{ id = \"x\", statistic = \"verdict\", op = \"<\", value = \"SAME\" }"),
		  "'h.toml':6:67: criterion 'x': a verdict is compared with '==' or '!=', not '<'");
	parse_err(CRIT("{ id = \"x\", statistic = \"verdict\", op = \"==\", value = \"FAST\" }"),
		  "'h.toml':6:68: 'value' must be one of FASTER, SLOWER, SAME, INCONCLUSIVE, not 'FAST'");
	parse_err(CRIT("{ id = \"x\", statistic = \"ratio\", op = \"<\" }"),
		  "'h.toml':6:14: criterion 'x' has no 'value'");
	parse_err(CRIT("{ statistic = \"ratio\", op = \"<\", value = 1 }"),
		  "'h.toml':6:14: a criterion has no 'id'");
	parse_err(CRIT("{ id = \"x\", op = \"<\", value = 1 }"),
		  "'h.toml':6:14: criterion 'x' has no 'statistic'");
	parse_err(CRIT("{ id = \"x\", statistic = \"ratio\", value = 1 }"),
		  "'h.toml':6:14: criterion 'x' has no 'op'");
	parse_err(CRIT("{ id = \"x\", statistic = \"ratio\", op = \"<\", value = 1, valeu = 2 }"),
		  "'h.toml':6:68: unknown key 'valeu' in a criterion (did you mean 'value'?)");
	parse_err(CRIT("{ id = \"and\", statistic = \"ratio\", op = \"<\", value = 1 }"),
		  "'h.toml':6:21: 'and' is a keyword and cannot be a criterion id");
	parse_err(CRIT("{ id = \"x\", statistic = \"ratio\", op = \"<\", value = 1 }, { id = \"x\", statistic = \"ratio\", op = \"<\", value = 1 }"),
		  "'h.toml':6:70: hypothesis 'h': criterion 'x' is defined twice");
	parse_err(CRIT("3"), "'h.toml':6:14: 'criteria' entries must be tables ({ id = ..., statistic = ..., op = ..., value = ... }), not an integer");
	parse_err(HEAD "mode = \"a\"\ncriteria = []\n", "'h.toml':6:12: 'criteria' must not be empty");
	parse_err(HEAD "mode = \"a\"\ncriteria = [ { id = \"x\", statistic = \"ratio\", op = \"<\", value = 1 } ]\ncorroborate = \"x\"\n",
		  "'h.toml':6:1: hypothesis 'h': criteria need both 'corroborate' and 'falsify'");
	parse_err(HEAD "mode = \"a\"\nprediction = \"same\"\nfalsify = \"x\"\n",
		  "'h.toml':7:1: hypothesis 'h': 'falsify' needs 'criteria'");
}
END_TEST

#define EXPR(e) HEAD "mode = \"a\"\ncriteria = [ { id = \"lo\", statistic = \"ci_lo\", op = \">\", value = 1 }, { id = \"hi\", statistic = \"ci_hi\", op = \"<\", value = 1 } ]\ncorroborate = \"lo\"\nfalsify = \"" e "\"\n"

START_TEST(test_errors_expressions)
{
	parse_err(EXPR("lo and mid"), "'h.toml':8:19: 'falsify': unknown criterion 'mid' (criteria: 'lo', 'hi')");
	parse_err(EXPR("lo and"), "'h.toml':8:18: 'falsify': expected a criterion id at the end");
	parse_err(EXPR("(lo or hi"), "'h.toml':8:12: 'falsify': unclosed '('");
	parse_err(EXPR("lo hi"), "'h.toml':8:15: 'falsify': unexpected 'hi'");
	parse_err(EXPR("lo or > hi"), "'h.toml':8:18: 'falsify': unexpected '>'");
	parse_err(EXPR(""), "'h.toml':8:11: 'falsify' must not be empty");
	struct hyp_file *f = parse_ok(EXPR("not (lo or hi) and !lo"));
	ck_assert_int_eq(f->h[0].falsify->kind, HYP_X_AND);
	ck_assert_int_eq(f->h[0].falsify->l->kind, HYP_X_NOT);
	ck_assert_int_eq(f->h[0].falsify->l->l->kind, HYP_X_OR);
	hyp_file_free(f);
}
END_TEST

/* ---- evaluation on the synthetic data ----------------------------------------------------- */

static char *import_synthetic(void)
{
	struct csvimport *imp = NULL;
	char *out = testutil_path("syn.h5");
	ck_assert_int_eq(csvimport_read(HARNESS_ABS_SRCDIR "/tests/data/report/synthetic.csv",
					NULL, &imp), 0);
	ck_assert_int_eq(csvimport_write(imp, out), 0);
	csvimport_free(imp);
	return out;
}

static const struct hyp_result *find(const struct hyp_eval *e, const char *id)
{
	for (size_t i = 0; i < e->nr; i++)
		if (!strcmp(e->r[i].h->id, id))
			return &e->r[i];
	ck_abort_msg("no result for '%s'", id);
	return NULL;
}

START_TEST(test_evaluate_synthetic)
{
	char *path = import_synthetic();
	struct analysis *a = NULL;
	ck_assert_int_eq(analysis_load(path, &a), 0);
	const char *extra[] = { HARNESS_ABS_SRCDIR "/tests/data/hypotheses/synthetic.toml" };
	struct hyp_set *s = NULL;
	ck_assert_int_eq(hyp_set_load(path, &a->meta, extra, 1, NULL, &s), 0);
	ck_assert_uint_eq(s->n, 1);
	ck_assert_int_eq(s->e[0].status, HYP_POSTHOC);
	struct report_opts o;
	report_opts_init(&o);
	o.baseline = "base";
	o.nboot = 2000;
	struct report *rep = NULL;
	ck_assert_int_eq(report_build(a, &o, &rep), 0);
	struct hyp_eval *e = NULL;
	ck_assert_int_eq(hyp_evaluate(rep, s, &e), 0);
	ck_assert_uint_eq(e->nr, 6);

	const struct hyp_result *r = find(e, "fast-is-faster");
	ck_assert_int_eq(r->verdict, HYP_CORROBORATED);
	ck_assert_int_eq(r->exploratory, 1);
	ck_assert_uint_eq(r->nt, 3);
	for (size_t i = 0; i < r->nt; i++) {
		ck_assert(r->t[i].ok && r->t[i].in_family);
		ck_assert(r->t[i].p >= r->t[i].p_raw);
		ck_assert(r->t[i].hi < 0.9 && r->t[i].lo > 0.75);
		ck_assert_int_eq(r->t[i].result, HYP_CORROBORATED);
	}
	ck_assert_str_eq(r->corroborate, "faster_by_min and significant");
	ck_assert_double_eq_tol(r->crit[0].value, 0.9, 1e-12);
	r = find(e, "fast-is-same");
	ck_assert_int_eq(r->verdict, HYP_FALSIFIED);
	ck_assert_uint_eq(r->nt, 1);
	ck_assert_str_eq(r->t[0].label, "fast/net/e2e");
	ck_assert_msg(strstr(r->deciding, "fast/net/e2e: ratio 0.80") != NULL, "missing text");
	r = find(e, "same-is-same");
	ck_assert_int_eq(r->verdict, HYP_CORROBORATED);
	ck_assert(!r->t[0].in_family); /* not a primary: raw p */
	r = find(e, "no-mode-beats-base");
	ck_assert_int_eq(r->verdict, HYP_FALSIFIED);
	ck_assert_uint_eq(r->nt, 2);
	ck_assert_int_eq(r->t[0].kind, HYP_T_GEOMEAN);
	ck_assert_int_eq(r->t[0].result, HYP_FALSIFIED);       /* fast */
	ck_assert_int_eq(r->t[1].result, HYP_CORROBORATED);    /* same */
	ck_assert(r->t[0].ratio > 0.78 && r->t[0].ratio < 0.82);
	r = find(e, "rankings-agree");
	ck_assert_int_eq(r->verdict, HYP_CORROBORATED);
	ck_assert_int_eq(r->t[0].kind, HYP_T_TAU);
	ck_assert_double_eq_tol(r->t[0].tau, 1.0, 1e-12);
	r = find(e, "noisy-faster");
	ck_assert_int_eq(r->verdict, HYP_INCONCLUSIVE);
	ck_assert(r->repeats > 12 && isfinite(r->repeats));
	ck_assert(r->mde > 0);
	/* the Holm family: 3 + 1 p-values of the primaries that read p */
	ck_assert_uint_eq(e->family, 4);
	ck_assert_int_eq(e->prereg_primary_falsified, 0); /* POST-HOC never counts */

	/* the same again with the one file pre-registered: the falsified primaries count */
	s->e[0].status = HYP_PREREGISTERED;
	hyp_eval_free(e);
	ck_assert_int_eq(hyp_evaluate(rep, s, &e), 0);
	ck_assert_int_eq(e->prereg_primary_falsified, 1);
	ck_assert_int_eq(find(e, "fast-is-same")->exploratory, 0);

	/* both formats write */
	char *out = testutil_path("v.json");
	FILE *fp = fopen(out, "w");
	ck_assert_int_eq(hyp_eval_write(e, REPORT_JSON, fp), 0);
	ck_assert_int_eq(hyp_eval_write(e, REPORT_MD, fp), 0);
	fclose(fp);
	free(out);
	hyp_eval_free(e);
	hyp_set_free(s);
	report_free(rep);
	analysis_free(a);
	free(path);
}
END_TEST

/* Evaluation must fail with a message containing want. */
static void eval_err(const struct analysis *a, const char *text, const char *want)
{
	char *hp = testutil_path("bad.toml");
	ck_assert_int_eq(util_write_file(hp, text, strlen(text), 0644), 0);
	struct hyp_set *s = NULL;
	const char *extra[] = { hp };
	ck_assert_int_eq(hyp_set_load(a->path, &a->meta, extra, 1, NULL, &s), 0);
	struct report_opts o;
	report_opts_init(&o);
	o.baseline = "base";
	o.nboot = 1000;
	struct report *rep = NULL;
	ck_assert_int_eq(report_build(a, &o, &rep), 0);
	struct hyp_eval *e = NULL;
	testutil_stderr_begin();
	int rc = hyp_evaluate(rep, s, &e);
	char *err = testutil_stderr_end();
	ck_assert_int_eq(rc, -1);
	ck_assert_ptr_null(e);
	ck_assert_msg(strstr(err, want), "got \"%s\", wanted \"%s\"", err, want);
	free(err);
	report_free(rep);
	hyp_set_free(s);
	free(hp);
}

START_TEST(test_evaluate_errors)
{
	char *path = import_synthetic();
	struct analysis *a = NULL;
	ck_assert_int_eq(analysis_load(path, &a), 0);
	eval_err(a, HEAD "mode = \"quick\"\nprediction = \"faster\"\n",
		 "bad.toml':5:8: hypothesis 'h': no mode 'quick' in '");
	eval_err(a, HEAD "mode = \"quick\"\nprediction = \"faster\"\n",
		 "(modes: 'same', 'noisy', 'fast', 'base')");
	eval_err(a, HEAD "mode = \"fast\"\nbaseline = \"bas\"\nprediction = \"faster\"\n",
		 "bad.toml':6:12: hypothesis 'h': no mode 'bas' in '");
	eval_err(a, HEAD "mode = \"fast\"\ncells = [\"net/e2e\", \"net/gemm\"]\nprediction = \"faster\"\n",
		 "bad.toml':6:9: hypothesis 'h': no cell 'net/gemm' in '");
	eval_err(a, HEAD "mode = \"fast\"\ncells = [\"net/gemm\"]\nprediction = \"faster\"\n",
		 "(cells: 'net/sgemm:m=64', 'net/conv2d:c=8', 'net/e2e')");
	eval_err(a, HEAD "mode = \"fast\"\nworkload = \"resnet\"\nprediction = \"faster\"\n",
		 "bad.toml':6:12: hypothesis 'h': no workload 'resnet' in '");
	eval_err(a, HEAD "mode = \"fast\"\nworkload = \"resnet\"\nprediction = \"faster\"\n",
		 "(workloads: 'net')");
	eval_err(a, HEAD "mode = \"base\"\nprediction = \"faster\"\n",
		 "bad.toml':5:8: hypothesis 'h': mode 'base' is its own baseline");
	eval_err(a, HEAD "mode = \"fast\"\naggregate = \"at_least\"\nat_least = 4\nprediction = \"faster\"\n",
		 "bad.toml':7:12: hypothesis 'h': at_least = 4 but its scope has 3 cell(s)");
	analysis_free(a);
	free(path);
}
END_TEST

/* ---- pre-commitment -------------------------------------------------------------------------- */

static int git(const char *dir, const char *a1, const char *a2, const char *a3, const char *a4)
{
	const char *argv[] = { "git", a1, a2, a3, a4, NULL };
	const char *path = getenv("PATH");
	char *env0 = xasprintf("PATH=%s", path ? path : "/usr/bin:/bin");
	const char *env[] = { env0, "GIT_CONFIG_NOSYSTEM=1", "HOME=/nonexistent", NULL };
	struct spawn sp;
	spawn_init(&sp);
	sp.argv = argv;
	sp.env = env;
	sp.dir = dir;
	struct spawn_status st;
	int rc = spawn_run(&sp, NULL, &st);
	spawn_release(&sp);
	free(env0);
	return rc ? -1 : st.exited ? st.code : 128;
}

static int have_git(void)
{
	return git(testutil_scratch, "--version", NULL, NULL, NULL) == 0;
}

static const char *key(const struct rec_meta *m, size_t i, const char *k)
{
	static char buf[64];
	snprintf(buf, sizeof(buf), "hypothesis_%zu_%s", i, k);
	return rec_meta_get(m, buf);
}

/* hyp_capture_git on the file's bytes as they are now (what a run records). */
static int cap(const char *path, struct rec_meta *m, size_t i)
{
	char *text = NULL;
	size_t len = 0;
	if (util_read_file(path, &text, &len))
		return hyp_capture_git(path, "", 0, m, i); /* unreadable: capture reports */
	int rc = hyp_capture_git(path, text, len, m, i);
	free(text);
	return rc;
}

START_TEST(test_capture_git)
{
	if (!have_git())
		return; /* recorded as not-a-repository / git-failed; nothing to check here */
	char *repo = testutil_path("repo");
	ck_assert_int_eq(util_mkdir_p(repo, 0755), 0);
	ck_assert_int_eq(git(repo, "init", "-q", ".", NULL), 0);
	ck_assert_int_eq(git(repo, "config", "user.name", "t", NULL), 0);
	ck_assert_int_eq(git(repo, "config", "user.email", "t@example.com", NULL), 0);
	char *h = testutil_path("repo/h.toml");
	char *u = testutil_path("repo/u.toml");
	char *out = testutil_path("o.toml");
	const char *text = "schema = 1\n";
	ck_assert_int_eq(util_write_file(h, text, strlen(text), 0644), 0);
	ck_assert_int_eq(util_write_file(u, text, strlen(text), 0644), 0);
	ck_assert_int_eq(util_write_file(out, text, strlen(text), 0644), 0);
	ck_assert_int_eq(git(repo, "add", "h.toml", NULL, NULL), 0);
	struct rec_meta m;
	rec_meta_init(&m);
	ck_assert_int_eq(cap(h, &m, 0), 0);
	ck_assert_str_eq(key(&m, 0, "git_state"), "staged");
	ck_assert_int_eq(git(repo, "commit", "-q", "-m", "h"), 0);
	ck_assert_int_eq(cap(h, &m, 0), 0);
	ck_assert_int_eq(cap(u, &m, 1), 0);
	ck_assert_int_eq(cap(out, &m, 2), 0);
	ck_assert_str_eq(key(&m, 0, "git_state"), "clean");
	ck_assert_str_eq(key(&m, 0, "git_clean"), "1");
	ck_assert_int_eq(strlen(key(&m, 0, "git_commit")), 40);
	ck_assert_ptr_nonnull(strchr(key(&m, 0, "git_time"), 'T'));
	ck_assert_str_eq(key(&m, 0, "path"), h);
	ck_assert_str_eq(key(&m, 1, "git_state"), "untracked");
	ck_assert_str_eq(key(&m, 1, "git_clean"), "0");
	ck_assert_str_eq(key(&m, 1, "git_commit"), "");
	ck_assert_str_eq(key(&m, 2, "git_state"), "not-a-repository");

	testutil_stderr_begin();
	int rc = hyp_require_preregistered(&m);
	char *err = testutil_stderr_end();
	ck_assert_int_eq(rc, -1);
	ck_assert_msg(strstr(err, "h.toml' is not") == NULL, "unexpected text");
	ck_assert_msg(strstr(err, "u.toml' is not pre-registered: it was not tracked by git at run start") != NULL, "missing text");
	ck_assert_msg(strstr(err, "o.toml' is not pre-registered: it was not in a git repository at run start") != NULL, "missing text");
	free(err);

	/* a change in the worktree */
	ck_assert_int_eq(util_write_file(h, "schema = 1\n#\n", 13, 0644), 0);
	struct rec_meta m2;
	rec_meta_init(&m2);
	ck_assert_int_eq(cap(h, &m2, 0), 0);
	ck_assert_str_eq(key(&m2, 0, "git_state"), "modified");
	ck_assert_int_eq(strlen(key(&m2, 0, "git_commit")), 40);
	testutil_stderr_begin();
	rc = hyp_require_preregistered(&m2);
	err = testutil_stderr_end();
	ck_assert_int_eq(rc, -1);
	ck_assert_msg(strstr(err, "it had uncommitted changes at run start") != NULL, "missing text");
	free(err);
	rec_meta_release(&m2);
	rec_meta_init(&m2);
	ck_assert_int_eq(hyp_require_preregistered(&m2), 0); /* nothing attached */

	char *missing = testutil_path("missing.toml");
	testutil_stderr_begin();
	rc = cap(missing, &m2, 0);
	err = testutil_stderr_end();
	free(missing);
	ck_assert_int_eq(rc, -1);
	ck_assert_msg(strstr(err, "cannot resolve hypothesis file") != NULL, "missing text");
	free(err);
	rec_meta_release(&m2);
	rec_meta_release(&m);
	free(repo);
	free(h);
	free(u);
	free(out);
}
END_TEST

/* Issue 9, item 7: git's index flags cannot forge pre-registration.  An edited file marked
 * assume-unchanged or skip-worktree is recorded "modified" (git status says nothing), the
 * blob ids are recorded, and verify's re-check against the recorded commit catches recorded
 * bytes that the commit does not hold. */
START_TEST(test_capture_git_forgery)
{
	if (!have_git())
		return;
	char *repo = testutil_path("frepo");
	ck_assert_int_eq(util_mkdir_p(repo, 0755), 0);
	ck_assert_int_eq(git(repo, "init", "-q", ".", NULL), 0);
	ck_assert_int_eq(git(repo, "config", "user.name", "t", NULL), 0);
	ck_assert_int_eq(git(repo, "config", "user.email", "t@example.com", NULL), 0);
	char *h = testutil_path("frepo/h.toml");
	char *k = testutil_path("frepo/k.toml");
#define HYP_TEXT "schema = 1\n[[hypotheses]]\nid = \"a\"\nclaim = \"c\"\nmode = \"m\"\nprediction = \"faster\"\n"
	const char *text = HYP_TEXT;
	ck_assert_int_eq(util_write_file(h, text, strlen(text), 0644), 0);
	ck_assert_int_eq(util_write_file(k, text, strlen(text), 0644), 0);
	ck_assert_int_eq(git(repo, "add", "h.toml", "k.toml", NULL), 0);
	ck_assert_int_eq(git(repo, "commit", "-q", "-m", "h"), 0);

	struct rec_meta m;
	rec_meta_init(&m);
	ck_assert_int_eq(cap(h, &m, 0), 0);
	ck_assert_str_eq(key(&m, 0, "git_state"), "clean");
	ck_assert_int_eq(strlen(key(&m, 0, "git_blob")), 40);
	ck_assert_str_eq(key(&m, 0, "git_blob"), key(&m, 0, "git_head_blob"));
	ck_assert_str_eq(key(&m, 0, "git_object_format"), "sha1");
	ck_assert_str_eq(key(&m, 0, "git_relpath"), "h.toml");
	/* the blob id is git's own: printf 'schema = 1\\n' | git hash-object --stdin */
	char mine[65];
	ck_assert_int_eq(hyp_git_blob_id("sha1", "schema = 1\n", 11, mine), 0);
	ck_assert_str_eq(mine, "fa8856e6bf41b045e2bb4b875674caaae1fa0e1b");
	rec_meta_release(&m);

	/* edit both, then hide the edits from git status */
	ck_assert_int_eq(util_write_file(h, HYP_TEXT "# edited\n", strlen(HYP_TEXT "# edited\n"), 0644), 0);
	ck_assert_int_eq(util_write_file(k, HYP_TEXT "# edited\n", strlen(HYP_TEXT "# edited\n"), 0644), 0);
	ck_assert_int_eq(git(repo, "update-index", "--assume-unchanged", "h.toml", NULL), 0);
	ck_assert_int_eq(git(repo, "update-index", "--skip-worktree", "k.toml", NULL), 0);
	rec_meta_init(&m);
	ck_assert_int_eq(cap(h, &m, 0), 0);
	ck_assert_int_eq(cap(k, &m, 1), 0);
	ck_assert_str_eq(key(&m, 0, "git_state"), "modified");
	ck_assert_str_eq(key(&m, 0, "git_clean"), "0");
	ck_assert_str_eq(key(&m, 1, "git_state"), "modified");
	ck_assert_str_ne(key(&m, 0, "git_blob"), key(&m, 0, "git_head_blob"));
	testutil_stderr_begin();
	int rc = hyp_require_preregistered(&m);
	free(testutil_stderr_end());
	ck_assert_int_eq(rc, -1);
	rec_meta_release(&m);

	/* verify re-checks: recorded bytes whose sha256 was altered, recorded blob ids that do
	 * not match the bytes, and a recorded commit that does not hold these bytes */
	ck_assert_int_eq(git(repo, "update-index", "--no-assume-unchanged", "h.toml", NULL), 0);
	ck_assert_int_eq(git(repo, "add", "h.toml", NULL, NULL), 0);
	ck_assert_int_eq(git(repo, "commit", "-q", "-m", "edit"), 0);
	const char *edited = HYP_TEXT "# edited\n";
	for (int c = 0; c < 4; c++) {
		rec_meta_init(&m);
		rec_meta_add_file(&m, "hypothesis", h, edited, strlen(edited));
		ck_assert_int_eq(hyp_capture_git(h, edited, strlen(edited), &m, 0), 0);
		ck_assert_str_eq(key(&m, 0, "git_state"), "clean");
		const char *want = "PRE-REGISTERED", *why = "checked now";
		if (c == 1) {
			m.files[0].sha256[0] = m.files[0].sha256[0] == '0' ? '1' : '0';
			want = "MODIFIED", why = "the results file was altered after the run";
		} else if (c == 2) {
			rec_meta_set(&m, "hypothesis_0_git_head_blob", "0123456789012345678901234567890123456789");
			want = "MODIFIED", why = "do not match the recorded bytes";
		} else if (c == 3) {
			/* the first commit, which holds the unedited bytes */
			struct sbuf o;
			sbuf_init(&o);
			const char *argv[] = { "git", "rev-list", "--max-parents=0", "HEAD", NULL };
			const char *env[] = { "PATH=/usr/bin:/bin", NULL };
			struct spawn sp;
			spawn_init(&sp);
			sp.argv = argv;
			sp.env = env;
			sp.dir = repo;
			struct spawn_status st;
			ck_assert_int_eq(spawn_run(&sp, &o, &st), 0);
			spawn_release(&sp);
			*strchr(o.buf, '\n') = '\0';
			rec_meta_set(&m, "hypothesis_0_git_commit", o.buf);
			sbuf_release(&o);
			want = "MODIFIED", why = "not the recorded bytes'";
		}
		struct hyp_set *set = NULL;
		ck_assert_int_eq(hyp_set_load("r.h5", &m, NULL, 0, NULL, &set), 0);
		ck_assert_str_eq(hyp_status_name(set->e[0].status), want);
		ck_assert_msg(strstr(set->e[0].why, why) != NULL, "case %d: why is '%s'", c, set->e[0].why);
		hyp_set_free(set);
		rec_meta_release(&m);
	}
	free(repo);
	free(h);
	free(k);
#undef HYP_TEXT
}
END_TEST

#define GOOD "schema = 1\n[[hypotheses]]\nid = \"h\"\nclaim = \"c\"\nmode = \"fast\"\nprediction = \"faster\"\n"

START_TEST(test_statuses)
{
	/* meta as a run leaves it: files recorded, git state captured */
	char *p0 = testutil_path("a.toml"), *p1 = testutil_path("b.toml"),
	     *p2 = testutil_path("c.toml"), *p3 = testutil_path("d.toml");
	struct rec_meta m;
	rec_meta_init(&m);
	rec_meta_add_file(&m, "experiment", "e.toml", "x", 1);
	const char *t0 = GOOD, *t1 = GOOD "min_effect = 0.1\n", *t2 = GOOD "alpha = 0.01\n";
	rec_meta_add_file(&m, "hypothesis", p0, t0, strlen(t0));
	rec_meta_add_file(&m, "hypothesis", p1, t1, strlen(t1));
	rec_meta_add_file(&m, "hypothesis", p2, t2, strlen(t2));
	rec_meta_set(&m, "hypothesis_0_git_clean", "1");
	rec_meta_set(&m, "hypothesis_0_git_commit", "0123456789abcdef0123456789abcdef01234567");
	rec_meta_set(&m, "hypothesis_0_git_time", "2026-01-02T03:04:05+00:00");
	rec_meta_set(&m, "hypothesis_1_git_clean", "0");
	rec_meta_set(&m, "hypothesis_1_git_state", "untracked");
	rec_meta_set(&m, "hypothesis_2_git_clean", "1");
	rec_meta_set(&m, "hypothesis_2_abspath", p2);
	/* on disk now: a unchanged, b gone, c edited; d only given at verify time */
	ck_assert_int_eq(util_write_file(p0, t0, strlen(t0), 0644), 0);
	ck_assert_int_eq(util_write_file(p2, GOOD, strlen(GOOD), 0644), 0);
	const char *t3 = GOOD "min_effect = 0.2\n";
	ck_assert_int_eq(util_write_file(p3, t3, strlen(t3), 0644), 0);
	const char *extra[] = { p3, p0 };
	struct hyp_set *s = NULL;
	ck_assert_int_eq(hyp_set_load("r.h5", &m, extra, 2, NULL, &s), 0);
	ck_assert_uint_eq(s->n, 4); /* p0 given again adds nothing */
	ck_assert_int_eq(s->e[0].status, HYP_PREREGISTERED);
	ck_assert_msg(strstr(s->e[0].why, "commit 0123456789ab, 2026-01-02T03:04:05") != NULL, "missing text");
	ck_assert_int_eq(s->e[1].status, HYP_UNCOMMITTED);
	ck_assert_str_eq(s->e[1].why, "it was not tracked by git at run start");
	ck_assert_int_eq(s->e[2].status, HYP_MODIFIED);
	ck_assert_msg(strstr(s->e[2].why, "differs from the bytes recorded") != NULL, "missing text");
	ck_assert_double_eq_tol(s->e[2].file->h[0].alpha, 0.01, 1e-15); /* recorded bytes */
	ck_assert_int_eq(s->e[3].status, HYP_POSTHOC);
	ck_assert_int_eq(s->e[3].recorded, 0);
	ck_assert_str_eq(hyp_status_name(s->e[3].status), "POST-HOC");
	hyp_set_free(s);

	/* a recorded file that no longer parses is an error naming the results file */
	rec_meta_add_file(&m, "hypothesis", "z.toml", "schema = 1\nx = 1\n", 17);
	testutil_stderr_begin();
	int rc = hyp_set_load("r.h5", &m, NULL, 0, NULL, &s);
	char *err = testutil_stderr_end();
	ck_assert_int_eq(rc, -1);
	ck_assert_msg(strstr(err, "'z.toml':2:1: unknown key 'x' (as recorded in 'r.h5')") != NULL, "missing text");
	free(err);
	rec_meta_release(&m);
	free(p0);
	free(p1);
	free(p2);
	free(p3);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_str_eq(hyp_verdict_name(HYP_CORROBORATED), "CORROBORATED");
	ck_assert_str_eq(hyp_verdict_name(HYP_FALSIFIED), "FALSIFIED");
	ck_assert_str_eq(hyp_verdict_name(HYP_INCONCLUSIVE), "INCONCLUSIVE");
	ck_assert_str_eq(hyp_status_name(HYP_PREREGISTERED), "PRE-REGISTERED");
	ck_assert_str_eq(hyp_status_name(HYP_UNCOMMITTED), "UNCOMMITTED");
	ck_assert_str_eq(hyp_status_name(HYP_MODIFIED), "MODIFIED");
	ck_assert_str_eq(hyp_verdict_name((enum hyp_verdict)9), "?");
}
END_TEST

static Suite *hypothesis_suite(void)
{
	Suite *s = suite_create("hypothesis");
	TCase *tc = tcase_create("parse");
	tcase_add_test(tc, test_every_key);
	tcase_add_test(tc, test_superseded);
	tcase_add_test(tc, test_errors_syntax);
	tcase_add_test(tc, test_errors_schema);
	tcase_add_test(tc, test_errors_keys);
	tcase_add_test(tc, test_errors_criteria);
	tcase_add_test(tc, test_errors_expressions);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);
	tc = tcase_create("evaluate");
	tcase_add_checked_fixture(tc, testutil_scratch_setup, testutil_scratch_teardown);
	tcase_add_test(tc, test_evaluate_synthetic);
	tcase_add_test(tc, test_evaluate_errors);
	tcase_add_test(tc, test_capture_git);
	tcase_add_test(tc, test_capture_git_forgery);
	tcase_add_test(tc, test_statuses);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	testutil_name = "test-hypothesis";
	return testutil_run(hypothesis_suite());
}
