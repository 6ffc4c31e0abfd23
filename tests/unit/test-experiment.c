/* test-experiment.c: the TOML bridge and experiment schema v1: defaults, every key, and
 * every error path with its exact file:line:col message */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/config/experiment.h"
#include "harness/config/unitenv.h"
#include "kernels/backend.h"
#include "harness/config/toml-bridge.h"
#include "harness/base/util.h"
#include "tests/unit/testutil.h"

/* Building blocks; the comments give the lines each one takes. */
#define HEAD "schema = 1\nname = \"t\"\n"                                        /* 2 lines */
#define WL "[[workloads]]\nop = \"sgemm\"\nshape = { m = 64, n = 64, k = 64 }\n" /* 3 lines */
#define MODE "[[modes]]\nname = \"default\"\ntuner = \"vendor\"\n"             /* 3 lines */

static struct experiment *parse_ok(const char *text)
{
	struct experiment *e = NULL;
	char *cause = NULL;
	int r = experiment_parse("t.toml", text, strlen(text), &e, &cause);
	ck_assert_msg(r == 0, "parse failed: %s", cause ? cause : "(no cause)");
	ck_assert_ptr_nonnull(e);
	ck_assert_ptr_null(cause);
	return e;
}

/* Returns the cause (caller frees) after checking the parse failed cleanly. */
static char *parse_fail(const char *path, const char *text)
{
	struct experiment *e = (struct experiment *)1;
	char *cause = NULL;
	int r = experiment_parse(path, text, strlen(text), &e, &cause);
	ck_assert_int_eq(r, -1);
	ck_assert_ptr_null(e);
	ck_assert_ptr_nonnull(cause);
	return cause;
}

static void expect_error(const char *text, const char *want)
{
	char *cause = parse_fail("t.toml", text);
	ck_assert_str_eq(cause, want);
	free(cause);
}

/* ---- toml-bridge ------------------------------------------------------------------------ */

START_TEST(test_bridge_order_and_positions)
{
	const char *text = "b = 1\n"
			   "a = [1, 2.5, \"s\", true, 1979-05-27]\n"
			   "[t]\n"
			   "z = { y = 2, x = 3 }\n"
			   "w = 07:32:00\n";
	char *cause = NULL;
	struct tb_doc *d = tb_doc_parse(text, strlen(text), &cause);
	ck_assert_ptr_nonnull(d);
	ck_assert_ptr_null(cause);
	const struct tb_node *root = tb_doc_root(d);
	ck_assert_int_eq(tb_node_kind(root), TB_TABLE);
	ck_assert_int_eq(tb_node_pos(root).line, 1);
	ck_assert_int_eq(tb_node_pos(root).col, 1);
	ck_assert_uint_eq(tb_node_len(root), 3);
	/* file order, not toml++'s sorted order */
	ck_assert_str_eq(tb_node_key(root, 0), "b");
	ck_assert_str_eq(tb_node_key(root, 1), "a");
	ck_assert_str_eq(tb_node_key(root, 2), "t");
	ck_assert_int_eq(tb_node_key_pos(root, 1).line, 2);
	ck_assert_int_eq(tb_node_key_pos(root, 1).col, 1);
	ck_assert_int_eq(tb_node_key_pos(root, 2).line, 3);
	ck_assert_int_eq(tb_node_key_pos(root, 2).col, 2);
	ck_assert_ptr_null(tb_node_key(root, 3));

	const struct tb_node *a = tb_node_at(root, 1);
	ck_assert_int_eq(tb_node_kind(a), TB_ARRAY);
	ck_assert_uint_eq(tb_node_len(a), 5);
	ck_assert_int_eq(tb_node_kind(tb_node_at(a, 0)), TB_INTEGER);
	ck_assert_int_eq(tb_node_int(tb_node_at(a, 0)), 1);
	ck_assert_double_eq_tol(tb_node_float(tb_node_at(a, 0)), 1.0, 1e-12);
	ck_assert_int_eq(tb_node_kind(tb_node_at(a, 1)), TB_FLOAT);
	ck_assert_double_eq_tol(tb_node_float(tb_node_at(a, 1)), 2.5, 1e-12);
	ck_assert_int_eq(tb_node_pos(tb_node_at(a, 1)).col, 9);
	ck_assert_str_eq(tb_node_string(tb_node_at(a, 2), NULL), "s");
	ck_assert_int_eq(tb_node_kind(tb_node_at(a, 3)), TB_BOOL);
	ck_assert_int_eq(tb_node_bool(tb_node_at(a, 3)), 1);
	ck_assert_int_eq(tb_node_kind(tb_node_at(a, 4)), TB_DATETIME);
	ck_assert_str_eq(tb_node_datetime(tb_node_at(a, 4)), "1979-05-27");
	ck_assert_ptr_null(tb_node_at(a, 5));
	/* wrong-kind accessors give neutral values */
	ck_assert_ptr_null(tb_node_string(tb_node_at(a, 0), NULL));
	ck_assert_int_eq(tb_node_int(tb_node_at(a, 2)), 0);
	ck_assert_ptr_null(tb_node_key(a, 0));
	ck_assert_ptr_null(tb_node_get(a, "x", NULL));

	size_t idx = 99;
	const struct tb_node *t = tb_node_get(root, "t", &idx);
	ck_assert_uint_eq(idx, 2);
	ck_assert_int_eq(tb_node_pos(t).line, 3);
	ck_assert_int_eq(tb_node_pos(t).col, 1);
	const struct tb_node *z = tb_node_get(t, "z", NULL);
	ck_assert_str_eq(tb_node_key(z, 0), "y");
	ck_assert_str_eq(tb_node_key(z, 1), "x");
	ck_assert_int_eq(tb_node_key_pos(z, 1).col, 14);
	ck_assert_int_eq(tb_node_pos(tb_node_at(z, 1)).col, 18);
	ck_assert_str_eq(tb_node_datetime(tb_node_get(t, "w", NULL)), "07:32:00");
	ck_assert_ptr_null(tb_node_get(t, "nope", NULL));
	tb_doc_free(d);
	tb_doc_free(NULL);
}
END_TEST

START_TEST(test_bridge_strings_and_errors)
{
	const char *text = "s = \"a\\u0000b\"\n";
	char *cause = NULL;
	struct tb_doc *d = tb_doc_parse(text, strlen(text), &cause);
	ck_assert_ptr_nonnull(d);
	size_t len = 0;
	const char *s = tb_node_string(tb_node_get(tb_doc_root(d), "s", NULL), &len);
	ck_assert_uint_eq(len, 3);
	ck_assert_int_eq(memcmp(s, "a\0b", 4), 0);
	tb_doc_free(d);

	/* not NUL-terminated: only len bytes are read */
	d = tb_doc_parse("x = 12345", 3, &cause);
	ck_assert_ptr_null(d);
	ck_assert_ptr_nonnull(cause);
	free(cause);

	d = tb_doc_parse("a = 1\nb = = 2\n", 14, &cause);
	ck_assert_ptr_null(d);
	ck_assert_str_eq(cause, "2:5: error while parsing value: could not determine value type");
	free(cause);

	ck_assert_str_eq(tb_kind_name(TB_BOOL), "boolean");
	ck_assert_str_eq(tb_kind_phrase(TB_INTEGER), "an integer");
	ck_assert_str_eq(tb_kind_phrase(TB_ARRAY), "an array");
	ck_assert_str_eq(tb_kind_phrase(TB_DATETIME), "a date-time");
}
END_TEST

/* ---- valid files ------------------------------------------------------------------------ */

START_TEST(test_defaults)
{
	const char *text = HEAD WL MODE;
	struct experiment *e = parse_ok(text);
	ck_assert_int_eq(e->schema, 1);
	ck_assert_str_eq(e->name, "t");
	ck_assert_ptr_null(e->description);
	ck_assert_str_eq(e->backend, "auto");
	ck_assert_ptr_null(e->modes[0].backend);
	ck_assert_str_eq(mode_backend(e, &e->modes[0]), "auto");
	ck_assert_int_eq(e->repeats, 5);
	ck_assert_uint_eq(e->seed, 1);
	ck_assert_int_eq(e->order, ORDER_RANDOMIZED);
	ck_assert_int_eq(e->unit_scope, UNIT_SCOPE_MODE);
	ck_assert_double_eq_tol(e->unit_timeout_s, 600.0, 1e-12);
	ck_assert_double_eq_tol(e->measure.warmup_s, 0.05, 1e-12);
	ck_assert_int_eq(e->measure.warmup_count, 3);
	ck_assert_int_eq(e->measure.min_samples, 10);
	ck_assert_int_eq(e->measure.max_samples, 200);
	ck_assert_double_eq_tol(e->measure.max_time_s, 2.0, 1e-12);
	ck_assert_double_eq_tol(e->measure.target_rel_precision, 0.01, 1e-12);
	ck_assert_int_eq(e->measure.flush, 1);
	ck_assert_int_eq(e->measure.trial_samples, 5);
	ck_assert_int_eq(e->measure.threads, 1);
	ck_assert_uint_eq(e->nhypotheses, 0);
	ck_assert_uint_eq(e->nenv_pass, 0);
	ck_assert_uint_eq(e->nenv_set, 0);

	ck_assert_uint_eq(e->nworkloads, 1);
	const struct workload *w = &e->workloads[0];
	ck_assert_str_eq(w->name, "sgemm");
	ck_assert_int_eq(w->kind, WORKLOAD_OP);
	ck_assert_ptr_null(w->model);
	ck_assert_str_eq(w->op, "sgemm");
	ck_assert_uint_eq(w->nshape, 3);
	ck_assert_str_eq(w->shape[0].name, "m");
	ck_assert_str_eq(w->shape[2].name, "k");
	ck_assert_int_eq(w->shape[2].value, 64);
	ck_assert_int_eq(w->batch, 1);
	ck_assert_int_eq(w->resolution, 224);
	ck_assert_str_eq(w->dtype, "float32");
	ck_assert_int_eq(w->line, 3);
	ck_assert_int_eq(w->col, 1);

	ck_assert_uint_eq(e->nmodes, 1);
	const struct mode *m = &e->modes[0];
	ck_assert_str_eq(m->name, "default");
	ck_assert_str_eq(m->tuner, "vendor");
	ck_assert_uint_eq(m->noptions, 0);
	ck_assert_int_eq(m->baseline, 1); /* the first mode, when none says so */
	ck_assert_uint_eq(e->baseline, 0);
	ck_assert_ptr_null(m->aa_of);
	ck_assert_int_eq(m->warm_probe, 0);
	ck_assert_int_eq(m->fault, FAULT_NONE);
	ck_assert_int_eq(m->line, 6);

	ck_assert_str_eq(e->path, "t.toml");
	ck_assert_uint_eq(e->text_len, strlen(text));
	ck_assert_str_eq(e->text, text);
	char sha[65];
	util_sha256_hex(text, strlen(text), sha);
	ck_assert_str_eq(e->sha256, sha);
	experiment_free(e);
	experiment_free(NULL);
}
END_TEST

START_TEST(test_every_key)
{
	const char *text = "schema = 1\n"
			   "name = \"resnet.v2_x-1\"\n"
			   "description = \"every key\"\n"
			   "backend = \"cpu\"\n"
			   "repeats = 7\n"
			   "seed = 20261121\n"
			   "order = \"abba\"\n"
			   "unit_timeout = 90\n"
			   "[measure]\n"
			   "warmup_time = 0.125\n"
			   "warmup_count = 0\n"
			   "min_samples = 12\n"
			   "max_samples = 345\n"
			   "max_time = 1.5\n"
			   "target_precision = 0.025\n"
			   "flush = false\n"
			   "trial_samples = 6\n"
			   "threads = 3\n"
			   "[environment]\n"
			   "pass = [\"MY_VAR\", \"_X1\"]\n"
			   "set = { FOO = \"1\", BAR_2 = \"two words\" }\n"
			   "[[workloads]]\n"
			   "model = \"resnet50\"\n"
			   "batch = 8\n"
			   "resolution = 64\n"
			   "dtype = \"float32\"\n"
			   "[[workloads]]\n"
			   "name = \"conv.a\"\n"
			   "op = \"conv2d\"\n"
			   "batch = 2\n"
			   "shape = { pad = 0, stride = 2, r = 3, k = 16, w = 32, h = 30, c = 8 }\n"
			   "[[modes]]\n"
			   "name = \"vendor\"\n"
			   "tuner = \"vendor\"\n"
			   "[[modes]]\n"
			   "name = \"exh\"\n"
			   "tuner = \"exhaustive\"\n"
			   "baseline = true\n"
			   "options = { max_configs = 32 }\n"
			   "warm_probe = true\n"
			   "fault = \"bad-record\"\n"
			   "[[modes]]\n"
			   "name = \"exh-aa\"\n"
			   "tuner = \"exhaustive\"\n"
			   "aa_of = \"exh\"\n"
			   "options = { max_configs = 32 }\n"
			   "fault = \"bad-record\"\n"
			   "[[modes]]\n"
			   "name = \"h\"\n"
			   "tuner = \"heuristic\"\n"
			   "fault = \"hang\"\n"
			   "baseline = false\n";
	struct experiment *e = parse_ok(text);
	ck_assert_str_eq(e->name, "resnet.v2_x-1");
	ck_assert_str_eq(e->description, "every key");
	ck_assert_str_eq(e->backend, "cpu");
	ck_assert_int_eq(e->repeats, 7);
	ck_assert_uint_eq(e->seed, 20261121);
	ck_assert_int_eq(e->order, ORDER_ABBA);
	ck_assert_double_eq_tol(e->unit_timeout_s, 90.0, 1e-12);
	ck_assert_double_eq_tol(e->measure.warmup_s, 0.125, 1e-12);
	ck_assert_int_eq(e->measure.warmup_count, 0);
	ck_assert_int_eq(e->measure.min_samples, 12);
	ck_assert_int_eq(e->measure.max_samples, 345);
	ck_assert_double_eq_tol(e->measure.max_time_s, 1.5, 1e-12);
	ck_assert_double_eq_tol(e->measure.target_rel_precision, 0.025, 1e-12);
	ck_assert_int_eq(e->measure.flush, 0);
	ck_assert_int_eq(e->measure.trial_samples, 6);
	ck_assert_int_eq(e->measure.threads, 3);
	ck_assert_uint_eq(e->nenv_pass, 2);
	ck_assert_str_eq(e->env_pass[0], "MY_VAR");
	ck_assert_str_eq(e->env_pass[1], "_X1");
	ck_assert_uint_eq(e->nenv_set, 2);
	ck_assert_str_eq(e->env_set[0].name, "FOO");
	ck_assert_str_eq(e->env_set[0].value, "1");
	ck_assert_str_eq(e->env_set[1].name, "BAR_2");
	ck_assert_str_eq(e->env_set[1].value, "two words");

	ck_assert_uint_eq(e->nworkloads, 2);
	const struct workload *w = &e->workloads[0];
	ck_assert_str_eq(w->name, "resnet50");
	ck_assert_int_eq(w->kind, WORKLOAD_MODEL);
	ck_assert_str_eq(w->model, "resnet50");
	ck_assert_ptr_null(w->op);
	ck_assert_uint_eq(w->nshape, 0);
	ck_assert_int_eq(w->batch, 8);
	ck_assert_int_eq(w->resolution, 64);
	w = &e->workloads[1];
	ck_assert_str_eq(w->name, "conv.a");
	ck_assert_int_eq(w->kind, WORKLOAD_OP);
	ck_assert_int_eq(w->batch, 2);
	/* shape fields in the catalog's order, whatever the file's */
	static const char *const names[] = { "c", "h", "w", "k", "r", "stride", "pad" };
	static const int64_t values[] = { 8, 30, 32, 16, 3, 2, 0 };
	ck_assert_uint_eq(w->nshape, 7);
	for (size_t i = 0; i < 7; i++) {
		ck_assert_str_eq(w->shape[i].name, names[i]);
		ck_assert_int_eq(w->shape[i].value, values[i]);
	}
	ck_assert_int_eq(w->line, 27);

	ck_assert_uint_eq(e->nmodes, 4);
	ck_assert_uint_eq(e->baseline, 1);
	ck_assert_int_eq(e->modes[0].baseline, 0);
	const struct mode *m = &e->modes[1];
	ck_assert_str_eq(m->name, "exh");
	ck_assert_int_eq(m->baseline, 1);
	ck_assert_int_eq(m->warm_probe, 1);
	ck_assert_int_eq(m->fault, FAULT_BAD_RECORD);
	ck_assert_uint_eq(m->noptions, 1);
	const struct tuner_option *o = mode_option(m, "max_configs");
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(o->type, TUNER_OPT_INT);
	ck_assert_int_eq(o->i, 32);
	ck_assert_double_eq_tol(o->f, 32.0, 1e-12);
	ck_assert_int_eq(o->line, 39);
	ck_assert_int_eq(o->col, 13);
	ck_assert_ptr_null(mode_option(m, "nope"));
	ck_assert_str_eq(e->modes[2].aa_of, "exh");
	ck_assert_int_eq(e->modes[2].fault, FAULT_BAD_RECORD);
	ck_assert_int_eq(e->modes[3].fault, FAULT_HANG);
	ck_assert_int_eq(e->modes[2].baseline, 0);
	ck_assert_int_eq(e->modes[3].baseline, 0);

	ck_assert_ptr_eq(experiment_mode(e, "exh-aa"), &e->modes[2]);
	ck_assert_ptr_null(experiment_mode(e, "exh-a"));
	ck_assert_int_eq(experiment_mode_index(e, "h"), 3);
	ck_assert_int_eq(experiment_mode_index(e, "x"), -1);
	experiment_free(e);
}
END_TEST

/* Integers are accepted where seconds are asked for; tables may be inline or headers;
 * a [modes.options] sub-table works like options = { }. */
START_TEST(test_equivalent_forms)
{
	struct experiment *e = parse_ok("schema = 1\n"
					"name = \"t\"\n"
					"unit_timeout = 12.5\n"
					"measure = { max_time = 3, warmup_time = 0 }\n"
					"environment.pass = []\n"
					"order = \"sequential\"\n"
					"unit_scope = \"workload\"\n"
					"backend = \"cpu\"\n"
					"[[workloads]]\n"
					"model = \"resnet18\"\n"
					"[[workloads]]\n"
					"op = \"bias_relu\"\n"
					"shape.c = 16\n"
					"shape.hw = 256\n"
					"[[modes]]\n"
					"name = \"a\"\n"
					"tuner = \"exhaustive\"\n"
					"[modes.options]\n"
					"max_configs = 4\n");
	ck_assert_double_eq_tol(e->unit_timeout_s, 12.5, 1e-12);
	ck_assert_double_eq_tol(e->measure.max_time_s, 3.0, 1e-12);
	ck_assert_double_eq_tol(e->measure.warmup_s, 0.0, 1e-12);
	ck_assert_int_eq(e->order, ORDER_SEQUENTIAL);
	ck_assert_int_eq(e->unit_scope, UNIT_SCOPE_WORKLOAD);
	ck_assert_str_eq(e->backend, "cpu");
	ck_assert_str_eq(e->workloads[0].name, "resnet18");
	ck_assert_int_eq(e->workloads[0].resolution, 224);
	ck_assert_int_eq(e->workloads[1].shape[1].value, 256);
	ck_assert_uint_eq(e->modes[0].noptions, 1);
	ck_assert_int_eq(e->modes[0].options[0].line, 19); /* the line of max_configs */
	experiment_free(e);
}
END_TEST

/* A mode chooses its backend; without one it takes the experiment's. */
START_TEST(test_mode_backend)
{
	struct experiment *e = parse_ok(HEAD "backend = \"cpu\"\n" WL MODE
					"[[modes]]\nname = \"b\"\ntuner = \"vendor\"\n"
					"backend = \"auto\"\n");
	ck_assert_ptr_null(e->modes[0].backend);
	ck_assert_str_eq(mode_backend(e, &e->modes[0]), "cpu");
	ck_assert_str_eq(e->modes[1].backend, "auto");
	ck_assert_str_eq(mode_backend(e, &e->modes[1]), "auto");
	experiment_free(e);
	/* names come from the registry; one this build lacks is refused where it is written */
	expect_error(HEAD WL MODE "backend = \"gpu\"\n",
		     "'t.toml':9:11: 'backend' must be one of auto, cpu, cuda, command, not 'gpu'");
	expect_error(HEAD WL MODE "backend = \"command\"\n",
		     "'t.toml':9:11: mode 'default' asks for backend 'command' but has no "
		     "'command' to run");
#ifndef HAVE_CUDA
	expect_error(HEAD "backend = \"cuda\"\n" WL MODE,
		     "'t.toml':3:11: backend 'cuda' is not built into this harness: this build "
		     "has no CUDA backend");
#endif
}
END_TEST

/* [environment] may neither set nor pass a variable the harness sets for every unit:
 * every name of the table (harness/config/unitenv.c) is refused. */
START_TEST(test_env_reserved_from_table)
{
	for (const struct unit_var *v = unitenv_vars; v->name; v++) {
		char *text = xasprintf(HEAD WL MODE "[environment]\nset = { %s = \"/tmp/x\" }\n",
				       v->name);
		char *want = xasprintf("'t.toml':10:9: '%s' is set by the harness for every unit (its "
				       "cache directory or thread count) and cannot be overridden",
				       v->name);
		expect_error(text, want);
		free(text);
		free(want);
		text = xasprintf(HEAD WL MODE "[environment]\npass = [\"%s\"]\n", v->name);
		want = xasprintf("'t.toml':10:9: '%s' is set by the harness for every unit and "
				 "cannot be passed through", v->name);
		expect_error(text, want);
		free(text);
		free(want);
	}
}
END_TEST

START_TEST(test_kind_names)
{
	ck_assert_str_eq(order_kind_name(ORDER_ABBA), "abba");
	ck_assert_str_eq(order_kind_name(ORDER_SEQUENTIAL), "sequential");
	ck_assert_str_eq(unit_scope_name(UNIT_SCOPE_MODE), "mode");
	ck_assert_str_eq(unit_scope_name(UNIT_SCOPE_WORKLOAD), "workload");
	ck_assert_str_eq(fault_kind_name(FAULT_NONE), "none");
	ck_assert_str_eq(fault_kind_name(FAULT_BAD_RECORD), "bad-record");
	ck_assert_str_eq(fault_kind_name((enum fault_kind)99), "?");
}
END_TEST

/* ---- errors: syntax, root keys ---------------------------------------------------------- */

START_TEST(test_err_syntax)
{
	expect_error("schema = 1\nname = = \"t\"\n",
		     "'t.toml':2:8: error while parsing value: could not determine value type");
	expect_error("schema = 1\n[measure\n",
		     "'t.toml':2:9: error while parsing table header: expected ']', saw '\\n'");
}
END_TEST

START_TEST(test_err_schema)
{
	expect_error("name = \"t\"\n" WL MODE, "'t.toml':1:1: missing required key 'schema'");
	expect_error("schema = 2\nname = \"t\"\n" WL MODE,
		     "'t.toml':1:10: unsupported schema 2 (this harness reads schema 1)");
	expect_error("schema = \"1\"\n",
		     "'t.toml':1:10: 'schema' must be an integer, not a string");
	/* the schema is checked before anything else, even an earlier unknown key */
	expect_error("repeets = 1\nschema = 3\n",
		     "'t.toml':2:10: unsupported schema 3 (this harness reads schema 1)");
}
END_TEST

START_TEST(test_err_unknown_key)
{
	expect_error(HEAD "repeets = 3\n" WL MODE,
		     "'t.toml':3:1: unknown key 'repeets' (did you mean 'repeats'?)");
	expect_error(HEAD "colour = 3\n" WL MODE, "'t.toml':3:1: unknown key 'colour'");
	/* a one-letter key is not "close" to a two-letter one */
	expect_error(HEAD "x = 3\n" WL MODE, "'t.toml':3:1: unknown key 'x'");
	expect_error(HEAD "[mesure]\nmax_time = 1\n" WL MODE,
		     "'t.toml':3:2: unknown key 'mesure' (did you mean 'measure'?)");
	expect_error(HEAD "[measure]\nwarmup_tme = 1\n" WL MODE,
		     "'t.toml':4:1: unknown key 'warmup_tme' in [measure] "
		     "(did you mean 'warmup_time'?)");
	expect_error(HEAD "[environment]\npas = []\n" WL MODE,
		     "'t.toml':4:1: unknown key 'pas' in [environment] (did you mean 'pass'?)");
	expect_error(HEAD WL "bacth = 2\n" MODE,
		     "'t.toml':6:1: unknown key 'bacth' in [[workloads]] (did you mean 'batch'?)");
	expect_error(HEAD WL MODE "tunr = \"x\"\n",
		     "'t.toml':9:1: unknown key 'tunr' in [[modes]] (did you mean 'tuner'?)");
	/* the first error in file order wins */
	expect_error(HEAD "repeats = 0\nrepeets = 3\n" WL MODE,
		     "'t.toml':3:11: 'repeats' must be between 1 and 10000, not 0");
}
END_TEST

START_TEST(test_err_types)
{
	expect_error(HEAD "repeats = \"5\"\n" WL MODE,
		     "'t.toml':3:11: 'repeats' must be an integer, not a string");
	expect_error(HEAD "repeats = 5.0\n" WL MODE,
		     "'t.toml':3:11: 'repeats' must be an integer, not a float");
	expect_error(HEAD "description = 5\n" WL MODE,
		     "'t.toml':3:15: 'description' must be a string, not an integer");
	expect_error(HEAD "unit_timeout = \"10s\"\n" WL MODE,
		     "'t.toml':3:16: 'unit_timeout' must be a number, not a string");
	expect_error(HEAD "measure = 5\n" WL MODE,
		     "'t.toml':3:11: 'measure' must be a table, not an integer");
	expect_error(HEAD "[measure]\nflush = 1\n" WL MODE,
		     "'t.toml':4:9: 'flush' must be a boolean, not an integer");
	expect_error(HEAD "hypotheses = \"h.toml\"\n" WL MODE,
		     "'t.toml':3:14: 'hypotheses' must be an array, not a string");
	expect_error(HEAD "hypotheses = [\"a\", 2]\n" WL MODE,
		     "'t.toml':3:20: 'hypotheses' entries must be strings, not an integer");
	expect_error(HEAD "seed = 2026-11-21\n" WL MODE,
		     "'t.toml':3:8: 'seed' must be an integer, not a date-time");
	expect_error(HEAD "description = \"a\\u0000b\"\n" WL MODE,
		     "'t.toml':3:15: 'description' must not contain a NUL character");
}
END_TEST

START_TEST(test_err_missing)
{
	expect_error("schema = 1\n" WL MODE, "'t.toml':1:1: missing required key 'name'");
	expect_error(HEAD MODE,
		     "'t.toml':1:1: missing required key 'workloads' (add a [[workloads]] table)");
	expect_error(HEAD WL, "'t.toml':1:1: missing required key 'modes' (add a [[modes]] table)");
}
END_TEST

START_TEST(test_err_ranges)
{
	expect_error(HEAD "repeats = 0\n" WL MODE,
		     "'t.toml':3:11: 'repeats' must be between 1 and 10000, not 0");
	expect_error(HEAD "repeats = 10001\n" WL MODE,
		     "'t.toml':3:11: 'repeats' must be between 1 and 10000, not 10001");
	expect_error(HEAD "seed = -1\n" WL MODE, "'t.toml':3:8: 'seed' must be >= 0, not -1");
	expect_error(HEAD "unit_timeout = 0\n" WL MODE,
		     "'t.toml':3:16: 'unit_timeout' must be > 0, not 0");
	expect_error(HEAD "unit_timeout = -0.5\n" WL MODE,
		     "'t.toml':3:16: 'unit_timeout' must be > 0, not -0.5");
	expect_error(HEAD "unit_timeout = inf\n" WL MODE,
		     "'t.toml':3:16: 'unit_timeout' must be a finite number, not inf");
	expect_error(HEAD "[measure]\nwarmup_time = -0.25\n" WL MODE,
		     "'t.toml':4:15: 'warmup_time' must be >= 0, not -0.25");
	expect_error(HEAD "[measure]\nwarmup_count = -1\n" WL MODE,
		     "'t.toml':4:16: 'warmup_count' must be between 0 and 1000000000, not -1");
	expect_error(HEAD "[measure]\nmin_samples = 0\n" WL MODE,
		     "'t.toml':4:15: 'min_samples' must be between 1 and 10000000, not 0");
	expect_error(HEAD "[measure]\nmax_time = 0.0\n" WL MODE,
		     "'t.toml':4:12: 'max_time' must be > 0, not 0");
	expect_error(HEAD "[measure]\ntarget_precision = 1.0\n" WL MODE,
		     "'t.toml':4:20: 'target_precision' must be > 0 and < 1, not 1");
	expect_error(HEAD "[measure]\ntarget_precision = 0\n" WL MODE,
		     "'t.toml':4:20: 'target_precision' must be > 0 and < 1, not 0");
	expect_error(HEAD "[measure]\ntrial_samples = 0\n" WL MODE,
		     "'t.toml':4:17: 'trial_samples' must be between 1 and 10000000, not 0");
	expect_error(HEAD "[measure]\nthreads = 0\n" WL MODE,
		     "'t.toml':4:11: 'threads' must be between 1 and 4096, not 0");
	expect_error(HEAD "[measure]\nmin_samples = 20\nmax_samples = 10\n" WL MODE,
		     "'t.toml':5:15: 'max_samples' must be >= min_samples (20), not 10");
	expect_error(HEAD "[measure]\nmin_samples = 500\n" WL MODE,
		     "'t.toml':4:15: 'min_samples' must be <= max_samples (200), not 500");
}
END_TEST

START_TEST(test_err_names_and_enums)
{
	expect_error("schema = 1\nname = \"res net\"\n" WL MODE,
		     "'t.toml':2:8: 'name' must be made of letters, digits, '.', '_' and '-', not "
		     "'res net'");
	expect_error("schema = 1\nname = \"\"\n" WL MODE,
		     "'t.toml':2:8: 'name' must be made of letters, digits, '.', '_' and '-', "
		     "not ''");
	expect_error(HEAD "backend = \"gpu\"\n" WL MODE,
		     "'t.toml':3:11: 'backend' must be one of auto, cpu, cuda, command, not 'gpu'");
	expect_error(HEAD "unit_scope = \"model\"\n" WL MODE,
		     "'t.toml':3:14: 'unit_scope' must be one of mode, workload, not 'model'");
	expect_error(HEAD "order = \"random\"\n" WL MODE,
		     "'t.toml':3:9: 'order' must be one of randomized, abba, sequential, "
		     "not 'random'");
}
END_TEST

START_TEST(test_err_environment)
{
	expect_error(HEAD "[environment]\npass = [\"OK\", \"BAD-NAME\"]\n" WL MODE,
		     "'t.toml':4:15: 'BAD-NAME' is not a valid environment variable name");
	expect_error(HEAD "[environment]\npass = [\"1X\"]\n" WL MODE,
		     "'t.toml':4:9: '1X' is not a valid environment variable name");
	expect_error(HEAD "[environment]\nset = { FOO = 1 }\n" WL MODE,
		     "'t.toml':4:15: 'FOO' must be a string, not an integer");
	expect_error(HEAD "[environment]\nset = { \"A=B\" = \"1\" }\n" WL MODE,
		     "'t.toml':4:9: 'A=B' is not a valid environment variable name");
	expect_error(HEAD "[environment]\nset = [\"A\"]\n" WL MODE,
		     "'t.toml':4:7: 'set' must be a table, not an array");
}
END_TEST

/* ---- errors: workloads ------------------------------------------------------------------ */

START_TEST(test_err_workload_kind)
{
	expect_error(HEAD "[[workloads]]\nmodel = \"resnet18\"\nop = \"sgemm\"\n" MODE,
		     "'t.toml':5:1: workload has both 'model' and 'op' (give one)");
	expect_error(HEAD "[[workloads]]\nop = \"sgemm\"\nmodel = \"resnet18\"\n" MODE,
		     "'t.toml':5:1: workload has both 'op' and 'model' (give one)");
	expect_error(HEAD "[[workloads]]\nbatch = 2\n" MODE,
		     "'t.toml':3:1: workload needs 'model' or 'op'");
	expect_error(HEAD "[[workloads]]\nmodel = \"resnet18\"\nshape = { m = 1 }\n" MODE,
		     "'t.toml':5:1: 'shape' is only for op workloads");
	expect_error(HEAD WL "resolution = 64\n" MODE,
		     "'t.toml':6:1: 'resolution' is only for model workloads");
	expect_error(HEAD "[[workloads]]\nmodel = \"resnet19\"\n" MODE,
		     "'t.toml':4:9: unknown model 'resnet19' (known models: resnet18, resnet50)");
#define KNOWN_OPS "(known ops: sgemm, conv2d, maxpool, reduce, bias_relu, gemm, maxpool_bwd, " \
		  "avgpool, sum, bias_relu_add, conv2d_bias, conv2d_bias_relu, conv2d_bias_relu_add)"
	expect_error(HEAD "[[workloads]]\nop = \"sgem\"\nshape = { m = 1 }\n" MODE,
		     "'t.toml':4:6: unknown op 'sgem' " KNOWN_OPS);
	/* the op's error, not the shape's, even when the shape comes first */
	expect_error(HEAD "[[workloads]]\nshape = { q = 1 }\nop = \"hgemm\"\n" MODE,
		     "'t.toml':5:6: unknown op 'hgemm' " KNOWN_OPS);
	expect_error(HEAD "[[workloads]]\nop = 5\n" MODE,
		     "'t.toml':4:6: 'op' must be a string, not an integer");
	expect_error(HEAD "[[workloads]]\nmodel = \"resnet18\"\nresolution = 4\n" MODE,
		     "'t.toml':5:14: 'resolution' must be between 8 and 16384, not 4");
	expect_error(HEAD WL "batch = 0\n" MODE,
		     "'t.toml':6:9: 'batch' must be between 1 and 65536, not 0");
	expect_error(HEAD WL "dtype = \"float64\"\n" MODE,
		     "'t.toml':6:9: unsupported dtype 'float64' (dtypes: float32, float16, "
		     "bfloat16)");
	expect_error(HEAD WL "dtype = \"float16\"\ntf32 = true\n" MODE,
		     "'t.toml':3:1: 'tf32 = true' is for float32 workloads (dtype is 'float16')");
	expect_error(HEAD WL "tf32 = 1\n" MODE,
		     "'t.toml':6:8: 'tf32' must be a boolean, not an integer");
	expect_error(HEAD WL "name = \"a b\"\n" MODE,
		     "'t.toml':6:8: 'name' must be made of letters, digits, '.', '_' and '-', not "
		     "'a b'");
}
END_TEST

START_TEST(test_err_shape)
{
	expect_error(HEAD "[[workloads]]\nop = \"sgemm\"\n" MODE,
		     "'t.toml':3:1: missing required key 'shape' (op 'sgemm' takes m, n, k)");
	expect_error(HEAD "[[workloads]]\nop = \"sgemm\"\n"
			  "shape = { m = 64, n = 64, kk = 64 }\n" MODE,
		     "'t.toml':5:27: unknown shape field 'kk' for op 'sgemm' (did you mean 'k'?)");
	expect_error(HEAD "[[workloads]]\nop = \"sgemm\"\n"
			  "shape = { m = 64, n = 64, q = 64 }\n" MODE,
		     "'t.toml':5:27: unknown shape field 'q' for op 'sgemm' (it takes m, n, k)");
	expect_error(HEAD "[[workloads]]\nop = \"sgemm\"\nshape = { m = 64, n = 64 }\n" MODE,
		     "'t.toml':5:9: missing shape field 'k' for op 'sgemm'");
	expect_error(HEAD "[[workloads]]\nop = \"sgemm\"\nshape = { m = 0, n = 64, k = 64 }\n" MODE,
		     "'t.toml':5:15: 'm' must be between 1 and 2147483647, not 0");
	expect_error(HEAD "[[workloads]]\nop = \"sgemm\"\nshape = { m = 1, n = 2.5, k = 1 }\n" MODE,
		     "'t.toml':5:22: 'n' must be an integer, not a float");
	expect_error(HEAD "[[workloads]]\nop = \"sgemm\"\nshape = 64\n" MODE,
		     "'t.toml':5:9: 'shape' must be a table, not an integer");
	expect_error(HEAD "[[workloads]]\nop = \"maxpool\"\n"
			  "shape = { c = 1, h = 8, w = 8, r = 2, stride = 2, pad = -1 }\n" MODE,
		     "'t.toml':5:57: 'pad' must be between 0 and 2147483647, not -1");
	/* pad = 0 is fine, other fields are not */
	const char *pad0 = HEAD "[[workloads]]\nop = \"maxpool\"\n"
			   "shape = { c = 1, h = 8, w = 8, r = 2, stride = 2, pad = 0 }\n" MODE;
	struct experiment *e = parse_ok(pad0);
	experiment_free(e);
}
END_TEST

START_TEST(test_err_workload_list)
{
	expect_error(HEAD WL WL MODE,
		     "'t.toml':6:1: duplicate workload name 'sgemm' (first at line 3)");
	expect_error(HEAD "[[workloads]]\nname = \"w\"\nmodel = \"resnet18\"\n"
			  "[[workloads]]\nname = \"w\"\nmodel = \"resnet50\"\n" MODE,
		     "'t.toml':7:8: duplicate workload name 'w' (first at line 4)");
	expect_error(HEAD "[workloads]\nop = \"sgemm\"\n" MODE,
		     "'t.toml':3:1: 'workloads' must be an array of tables ([[workloads]]), "
		     "not a table");
	expect_error(HEAD "workloads = []\n" MODE,
		     "'t.toml':3:13: 'workloads' must have at least one entry");
	expect_error(HEAD "workloads = [1]\n" MODE,
		     "'t.toml':3:14: 'workloads' entries must be tables, not an integer");
}
END_TEST

/* ---- errors: modes ---------------------------------------------------------------------- */

START_TEST(test_err_mode_fields)
{
	expect_error(HEAD WL "[[modes]]\ntuner = \"vendor\"\n",
		     "'t.toml':6:1: missing required key 'name'");
	expect_error(HEAD WL "[[modes]]\nname = \"a\"\n",
		     "'t.toml':6:1: missing required key 'tuner'");
	expect_error(HEAD WL MODE "fault = \"segv\"\n",
		     "'t.toml':9:9: 'fault' must be one of none, crash, hang, exit, bad-record, "
		     "not 'segv'");
	expect_error(HEAD WL MODE "warm_probe = 1\n",
		     "'t.toml':9:14: 'warm_probe' must be a boolean, not an integer");
	expect_error(HEAD WL MODE "baseline = \"yes\"\n",
		     "'t.toml':9:12: 'baseline' must be a boolean, not a string");
	expect_error(HEAD WL MODE "options = { x = 1979-05-27 }\n",
		     "'t.toml':9:17: option 'x' must be an integer, float, boolean, string, list "
		     "or table, not a date-time");
	expect_error(HEAD WL MODE "options = { x = [[[1]]] }\n",
		     "'t.toml':9:19: option values nest at most two deep (a list or table of "
		     "lists or tables)");
	expect_error(HEAD WL MODE "options = 3\n",
		     "'t.toml':9:11: 'options' must be a table, not an integer");
	expect_error(HEAD WL "[[modes]]\nname = \"a/b\"\ntuner = \"vendor\"\n",
		     "'t.toml':7:8: 'name' must be made of letters, digits, '.', '_' and '-', not "
		     "'a/b'");
}
END_TEST

START_TEST(test_err_tuner)
{
	/* the list comes from the tuner registry; check the parts that do not depend on it */
	char *cause = parse_fail("t.toml", HEAD WL "[[modes]]\nname = \"a\"\ntuner = \"vendr\"\n");
	const char *want = "'t.toml':8:9: unknown tuner 'vendr' (known tuners: ";
	ck_assert_msg(!strncmp(cause, want, strlen(want)), "got: %s", cause);
	ck_assert_ptr_nonnull(strstr(cause, "vendor"));
	ck_assert_ptr_nonnull(strstr(cause, "heuristic"));
	ck_assert_ptr_nonnull(strstr(cause, "exhaustive"));
	ck_assert_int_eq(cause[strlen(cause) - 1], ')');
	free(cause);

	/* the tuner's own check: its "line:col: ..." comes back with the file name in front */
	cause = parse_fail("t.toml", HEAD WL MODE "options = { no_such_option_xyz = 1 }\n");
	ck_assert_msg(!strncmp(cause, "'t.toml':9:", strlen("'t.toml':9:")), "got: %s", cause);
	ck_assert_msg(strstr(cause, "no_such_option_xyz") != NULL, "got: %s", cause);
	free(cause);
}
END_TEST

START_TEST(test_err_mode_list)
{
	const char *two = HEAD WL
		"[[modes]]\nname = \"a\"\ntuner = \"vendor\"\nbaseline = true\n"
		"[[modes]]\nname = \"b\"\ntuner = \"heuristic\"\nbaseline = true\n";
	expect_error(two, "'t.toml':13:12: two baselines: mode 'a' (line 9) and mode 'b' both say "
			  "baseline = true");
	expect_error(HEAD WL MODE "[[modes]]\nname = \"default\"\ntuner = \"heuristic\"\n",
		     "'t.toml':10:8: duplicate mode name 'default' (first at line 7)");
	expect_error(HEAD WL MODE "[[modes]]\nname = \"b\"\ntuner = \"heuristic\"\naa_of = \"c\"\n",
		     "'t.toml':12:9: 'aa_of' names unknown mode 'c'");
	expect_error(HEAD WL MODE "[[modes]]\nname = \"b\"\ntuner = \"vendor\"\n"
			       "aa_of = \"defualt\"\n",
		     "'t.toml':12:9: 'aa_of' names unknown mode 'defualt' "
		     "(did you mean 'default'?)");
	expect_error(HEAD WL MODE "aa_of = \"default\"\n",
		     "'t.toml':9:9: mode 'default' names itself in 'aa_of' (an A/A control repeats "
		     "another mode)");
	/* aa_of may name a mode declared after it */
	struct experiment *e = parse_ok(HEAD WL MODE "aa_of = \"b\"\n"
					"[[modes]]\nname = \"b\"\ntuner = \"vendor\"\n");
	ck_assert_str_eq(e->modes[0].aa_of, "b");
	experiment_free(e);
	expect_error(HEAD "modes = [\"a\"]\n" WL,
		     "'t.toml':3:10: 'modes' entries must be tables, not a string");
}
END_TEST

/* ---- hypotheses and loading from a file ------------------------------------------------- */

static char *scratch_dir(void)
{
	char tmpl[] = "/tmp/test-experiment.XXXXXX";
	const char *tmp = getenv("TMPDIR");
	char *t = tmp && *tmp ? xasprintf("%s/test-experiment.XXXXXX", tmp) : xstrdup(tmpl);
	ck_assert_ptr_nonnull(mkdtemp(t));
	return t;
}

static void write_text(const char *path, const char *text)
{
	ck_assert_int_eq(util_write_file(path, text, strlen(text), 0644), 0);
}

START_TEST(test_hypotheses)
{
	char *dir = scratch_dir();
	char *exp_dir = xasprintf("%s/experiments", dir);
	char *hyp_dir = xasprintf("%s/hypotheses", dir);
	ck_assert_int_eq(util_mkdir_p(exp_dir, 0755), 0);
	ck_assert_int_eq(util_mkdir_p(hyp_dir, 0755), 0);
	char *hyp = xasprintf("%s/h.toml", hyp_dir);
	write_text(hyp, "# a hypothesis\n");
	char *path = xasprintf("%s/x.toml", exp_dir);
	/* one relative, one absolute */
	char *full = xasprintf("%s%s%s", HEAD "hypotheses = [\"../hypotheses/h.toml\", \"", hyp,
			       "\"]\n" WL MODE);
	write_text(path, full);

	struct experiment *e = NULL;
	ck_assert_int_eq(experiment_load(path, &e), 0);
	ck_assert_uint_eq(e->nhypotheses, 2);
	ck_assert_str_eq(e->hypotheses[0], "../hypotheses/h.toml");
	ck_assert_str_eq(e->hypotheses[1], hyp);
	ck_assert_str_eq(e->path, path);
	ck_assert_str_eq(e->text, full);
	ck_assert_uint_eq(e->text_len, strlen(full));
	char sha[65];
	util_sha256_hex(full, strlen(full), sha);
	ck_assert_str_eq(e->sha256, sha);
	experiment_free(e);

	/* relative to the experiment's folder, not the working directory */
	const char *missing = HEAD "hypotheses = [\"../hypotheses/h.toml\", \"h.toml\"]\n" WL MODE;
	char *cause = parse_fail(path, missing);
	char *want = xasprintf("'%s':3:39: hypothesis file 'h.toml' not found "
			       "(looked for '%s/h.toml')", path, exp_dir);
	ck_assert_str_eq(cause, want);
	free(cause);
	free(want);

	const char *isdir = HEAD "hypotheses = [\"../hypotheses\"]\n" WL MODE;
	cause = parse_fail(path, isdir);
	want = xasprintf("'%s':3:15: hypothesis file '%s/../hypotheses' is not a regular file",
			 path, exp_dir);
	ck_assert_str_eq(cause, want);
	free(cause);
	free(want);

	cause = parse_fail(path, HEAD "hypotheses = [\"\"]\n" WL MODE);
	want = xasprintf("'%s':3:15: 'hypotheses' entries must not be empty", path);
	ck_assert_str_eq(cause, want);
	free(cause);
	free(want);

	/* a missing experiment file: reported, -1 */
	char *nofile = xasprintf("%s/nope.toml", dir);
	e = (struct experiment *)1;
	ck_assert_int_eq(experiment_load(nofile, &e), -1);
	ck_assert_ptr_null(e);
	/* an invalid one: reported, -1 */
	write_text(path, "schema = 1\n");
	e = (struct experiment *)1;
	ck_assert_int_eq(experiment_load(path, &e), -1);
	ck_assert_ptr_null(e);

	ck_assert_int_eq(util_rm_rf(dir), 0);
	free(nofile);
	free(full);
	free(path);
	free(hyp);
	free(hyp_dir);
	free(exp_dir);
	free(dir);
}
END_TEST

/* An external command mode: argv kept as a vector, never a shell line; backend and tuner
 * are "command"; expects, timeout and [modes.environment] parsed; an absolute program is
 * kept, a relative argument that names no file is passed as written. */
START_TEST(test_command_mode)
{
	struct experiment *e = parse_ok(HEAD "unit_timeout = 100\n" WL
					"[[modes]]\nname = \"c\"\n"
					"command = [\"/bin/sh\", \"w.py\", \"--x=a b\"]\n"
					"expects = [\"benchmark\", \"compile\"]\ntimeout = 12.5\n"
					"options = { mode = \"max-autotune\" }\n"
					"[modes.environment]\nTORCH_LOGS = \"+dynamo\"\n"
					"[[modes]]\nname = \"b\"\ntuner = \"vendor\"\n");
	const struct mode *m = &e->modes[0];
	ck_assert_str_eq(m->backend, "command");
	ck_assert_str_eq(mode_backend(e, m), "command");
	ck_assert_str_eq(m->tuner, "command");
	ck_assert_str_eq(m->command[1], "w.py");
	ck_assert_str_eq(m->command_argv[0], "/bin/sh");
	ck_assert_str_eq(m->command_argv[1], "w.py");
	ck_assert_str_eq(m->command_argv[2], "--x=a b");
	ck_assert_ptr_null(m->command_argv[3]);
	ck_assert_uint_eq(m->expects, MODE_EXPECTS_COMPILE | MODE_EXPECTS_BENCHMARK);
	ck_assert_double_eq_tol(mode_timeout(e, m), 12.5, 1e-12);
	ck_assert_double_eq_tol(mode_timeout(e, &e->modes[1]), 100.0, 1e-12);
	ck_assert_uint_eq(m->nenv, 1);
	ck_assert_str_eq(m->env[0].name, "TORCH_LOGS");
	ck_assert_str_eq(m->env[0].value, "+dynamo");
	ck_assert_ptr_null(e->modes[1].command);
	ck_assert_uint_eq(e->modes[1].expects, 0);
	experiment_free(e);
	/* an A/A copy runs exactly its original's command */
	char *c = parse_fail("t.toml", HEAD WL "[[modes]]\nname = \"c\"\ncommand = [\"a\"]\n"
					"[[modes]]\nname = \"d\"\ncommand = [\"b\"]\naa_of = \"c\"\n");
	ck_assert_str_eq(c, "'t.toml':12:9: mode 'd' is an A/A copy of 'c' but its 'command' or "
			    "'environment' differs");
	free(c);
}
END_TEST

/* `workloads` in [[modes]]: names of the experiment's workloads, whichever array the file
 * writes first; every error at the entry or key it concerns. */
#define WLXY "[[workloads]]\nname = \"gemm-x\"\nop = \"sgemm\"\nshape = { m = 64, n = 64, k = 64 }\n" \
	     "[[workloads]]\nname = \"gemm-y\"\nop = \"sgemm\"\nshape = { m = 32, n = 48, k = 24 }\n"
	     /* 8 lines */
#define MODE_B "[[modes]]\nname = \"b\"\ntuner = \"heuristic\"\n" /* 3 lines */

/* [modes.measure]: the keys a mode sets go over [measure] (and [on.BACKEND.measure]) for its
 * units alone; the bounds are checked on what its units get; an A/A copy measures as its
 * original. */
START_TEST(test_mode_measure)
{
	struct experiment *e = parse_ok(HEAD WL MODE "[[modes]]\nname = \"flushed\"\n"
					"tuner = \"vendor\"\nmeasure = { flush = true, "
					"max_samples = 7 }\n"
					"[measure]\nmin_samples = 5\nmax_samples = 9\nflush = false\n");
	struct measure_settings a = experiment_mode_measure(e->measure, &e->modes[0]);
	struct measure_settings b = experiment_mode_measure(e->measure, &e->modes[1]);
	ck_assert_int_eq(e->modes[0].measure_set, 0);
	ck_assert_int_eq(a.flush, 0);
	ck_assert_int_eq(a.max_samples, 9);
	ck_assert_int_eq(b.flush, 1);
	ck_assert_int_eq(b.max_samples, 7);
	ck_assert_int_eq(b.min_samples, 5); /* not set by the mode: the run's */
	ck_assert(b.warmup_s == e->measure.warmup_s);
	experiment_free(e);
	/* its keys are [measure]'s, checked the same way, at their line:col */
	expect_error(HEAD WL MODE "measure = { flsh = true }\n",
		     "'t.toml':9:13: unknown key 'flsh' in [measure] (did you mean 'flush'?)");
	expect_error(HEAD WL MODE "measure = { max_samples = 0 }\n",
		     "'t.toml':9:27: 'max_samples' must be between 1 and 10000000, not 0");
	/* the bounds a unit gets: the mode's min_samples over [measure]'s max_samples */
	expect_error(HEAD WL MODE "measure = { min_samples = 50 }\n[measure]\nmax_samples = 20\n",
		     "'t.toml':9:11: mode 'default': with its 'measure' over [measure], min_samples "
		     "50 is above max_samples 20");
	expect_error(HEAD WL MODE "measure = { min_samples = 30 }\n[measure]\nmax_samples = 40\n"
		     "[on.cpu.measure]\nmax_samples = 20\n",
		     "'t.toml':9:11: mode 'default': with its 'measure' over [on.cpu.measure], "
		     "min_samples 30 is above max_samples 20");
	/* an A/A copy that measures otherwise is no A/A copy */
	expect_error(HEAD WL MODE "[[modes]]\nname = \"aa\"\ntuner = \"vendor\"\naa_of = \"default\"\n"
		     "measure = { flush = false }\n",
		     "'t.toml':13:11: mode 'aa' is an A/A copy of 'default' but measures otherwise "
		     "('measure'): an A/A copy measures as its original");
	/* the same settings, however written: flush = true is [measure]'s default */
	e = parse_ok(HEAD WL MODE "measure = { flush = false }\n[[modes]]\nname = \"aa\"\n"
		     "tuner = \"vendor\"\naa_of = \"default\"\nmeasure = { flush = false }\n");
	experiment_free(e);
	e = parse_ok(HEAD WL MODE "[[modes]]\nname = \"aa\"\ntuner = \"vendor\"\n"
		     "aa_of = \"default\"\nmeasure = { flush = true }\n");
	experiment_free(e);
}
END_TEST

START_TEST(test_mode_workloads)
{
	struct experiment *e = parse_ok(HEAD WLXY MODE MODE_B "workloads = [\"gemm-y\"]\n");
	ck_assert_ptr_null(e->modes[0].workloads);
	ck_assert_uint_eq(e->modes[1].nworkloads, 1);
	ck_assert_str_eq(e->modes[1].workloads[0], "gemm-y");
	ck_assert_int_eq(mode_has_workload(&e->modes[0], "gemm-x"), 1);
	ck_assert_int_eq(mode_has_workload(&e->modes[1], "gemm-x"), 0);
	ck_assert_int_eq(mode_has_workload(&e->modes[1], "gemm-y"), 1);
	experiment_free(e);
	/* the modes may come before the workloads they name */
	e = parse_ok(HEAD MODE MODE_B "workloads = [\"gemm-y\", \"gemm-x\"]\n" WLXY);
	ck_assert_uint_eq(e->modes[1].nworkloads, 2);
	ck_assert_str_eq(e->modes[1].workloads[1], "gemm-x");
	experiment_free(e);

	/* lines: HEAD 1-2, WLXY 3-10, MODE 11-13, MODE_B 14-16, its workloads 17 */
	expect_error(HEAD WLXY MODE MODE_B "workloads = [\"gemm-y\", \"gemm-z\"]\n",
		     "'t.toml':17:24: mode 'b': 'workloads' names unknown workload 'gemm-z' (did "
		     "you mean 'gemm-x'?)");
	expect_error(HEAD WLXY MODE MODE_B "workloads = [\"resnet50\"]\n",
		     "'t.toml':17:14: mode 'b': 'workloads' names unknown workload 'resnet50' "
		     "(workloads: gemm-x, gemm-y)");
	expect_error(HEAD MODE MODE_B "workloads = [\"resnet50\"]\n" WLXY,
		     "'t.toml':9:14: mode 'b': 'workloads' names unknown workload 'resnet50' "
		     "(workloads: gemm-x, gemm-y)");
	expect_error(HEAD WLXY MODE MODE_B "workloads = [\"gemm-y\",\n  \"gemm-y\"]\n",
		     "'t.toml':18:3: mode 'b': 'workloads' names workload 'gemm-y' twice (first "
		     "at line 17, column 14)");
	expect_error(HEAD WLXY MODE MODE_B "workloads = []\n",
		     "'t.toml':17:13: 'workloads' must name at least one workload (leave it out "
		     "and the mode runs every workload)");
	expect_error(HEAD WLXY MODE MODE_B "workloads = [\"gemm-x\", 2]\n",
		     "'t.toml':17:24: 'workloads' entries must be strings, not an integer");
	expect_error(HEAD WLXY MODE MODE_B "workloads = \"gemm-x\"\n",
		     "'t.toml':17:13: 'workloads' must be an array, not a string");
	/* the baseline runs every workload: each mode is compared with it there */
	expect_error(HEAD WLXY MODE "workloads = [\"gemm-x\"]\n" MODE_B,
		     "'t.toml':14:13: the baseline mode 'default' cannot restrict its 'workloads' "
		     "(every mode is compared with the baseline in each workload it runs)");
	expect_error(HEAD WLXY MODE MODE_B "workloads = [\"gemm-x\"]\nbaseline = true\n",
		     "'t.toml':17:13: the baseline mode 'b' cannot restrict its 'workloads' "
		     "(every mode is compared with the baseline in each workload it runs)");
	/* an A/A copy runs its original's workloads: the same ones, or every one for both */
	expect_error(HEAD WLXY MODE "[[modes]]\nname = \"b\"\ntuner = \"vendor\"\n"
			       "aa_of = \"default\"\nworkloads = [\"gemm-x\"]\n",
		     "'t.toml':17:9: mode 'b' is an A/A copy of 'default' but runs other "
		     "'workloads': an A/A copy runs exactly its original's workloads");
	const char *orig = HEAD WLXY MODE
		"[[modes]]\nname = \"c\"\ntuner = \"vendor\"\nworkloads = [\"gemm-y\"]\n"
		"[[modes]]\nname = \"d\"\ntuner = \"vendor\"\naa_of = \"c\"\n"; /* c 14-17, d 18-21 */
	expect_error(orig, "'t.toml':21:9: mode 'd' is an A/A copy of 'c' but runs other "
			   "'workloads': an A/A copy runs exactly its original's workloads");
	char *same = xasprintf("%sworkloads = [\"gemm-y\"]\n", orig);
	e = parse_ok(same);
	ck_assert_str_eq(e->modes[2].workloads[0], "gemm-y");
	experiment_free(e);
	free(same);
	e = parse_ok(HEAD WLXY MODE "[[modes]]\nname = \"c\"\ntuner = \"vendor\"\n"
		     "workloads = [\"gemm-y\", \"gemm-x\"]\n"
		     "[[modes]]\nname = \"d\"\ntuner = \"vendor\"\naa_of = \"c\"\n");
	experiment_free(e);
	/* a recorded experiment keeps the structural checks, not the A/A copy's */
	const char *past = HEAD WLXY MODE MODE_B "aa_of = \"default\"\nworkloads = [\"gemm-x\"]\n";
	char *cause = NULL;
	ck_assert_int_eq(experiment_parse_flags("t.toml", past, strlen(past), EXPERIMENT_PAST_RUN,
						&e, &cause), 0);
	experiment_free(e);
	past = HEAD WLXY MODE MODE_B "workloads = [\"gemm-q\"]\n";
	ck_assert_int_eq(experiment_parse_flags("t.toml", past, strlen(past), EXPERIMENT_PAST_RUN,
						&e, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "'t.toml':17:14: mode 'b': 'workloads' names unknown"));
	free(cause);
}
END_TEST

/* A model the catalog does not know needs a command mode to run it: a mode of the harness's
 * own tuners that does not run it (its `workloads`) is no obstacle. */
START_TEST(test_mode_workloads_models)
{
	const char *tv = HEAD "[[workloads]]\nname = \"tv\"\nmodel = \"no_such_model_tv\"\n"
		"[[workloads]]\nname = \"g\"\nop = \"sgemm\"\nshape = { m = 8, n = 8, k = 8 }\n"
		"[[modes]]\nname = \"py\"\ncommand = [\"python3\", \"w.py\"]\n"
		"[[modes]]\nname = \"v\"\ntuner = \"vendor\"\n";
	char *ok = xasprintf("%sworkloads = [\"g\"]\n", tv);
	struct experiment *e = parse_ok(ok);
	ck_assert_int_eq(mode_has_workload(&e->modes[1], "tv"), 0);
	experiment_free(e);
	free(ok);
	char *cause = parse_fail("t.toml", tv);
	ck_assert_msg(strstr(cause, "unknown model 'no_such_model_tv'") &&
			      strstr(cause, "mode 'v' is not a command mode"),
		      "got: %s", cause);
	free(cause);
}
END_TEST

static Suite *experiment_suite(void)
{
	Suite *s = suite_create("experiment");
	TCase *tc = tcase_create("bridge");
	tcase_add_test(tc, test_bridge_order_and_positions);
	tcase_add_test(tc, test_bridge_strings_and_errors);
	suite_add_tcase(s, tc);

	tc = tcase_create("valid");
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_every_key);
	tcase_add_test(tc, test_equivalent_forms);
	tcase_add_test(tc, test_kind_names);
	tcase_add_test(tc, test_mode_backend);
	tcase_add_test(tc, test_env_reserved_from_table);
	tcase_add_test(tc, test_hypotheses);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_test(tc, test_err_syntax);
	tcase_add_test(tc, test_err_schema);
	tcase_add_test(tc, test_err_unknown_key);
	tcase_add_test(tc, test_err_types);
	tcase_add_test(tc, test_err_missing);
	tcase_add_test(tc, test_err_ranges);
	tcase_add_test(tc, test_err_names_and_enums);
	tcase_add_test(tc, test_err_environment);
	tcase_add_test(tc, test_err_workload_kind);
	tcase_add_test(tc, test_err_shape);
	tcase_add_test(tc, test_err_workload_list);
	tcase_add_test(tc, test_err_mode_fields);
	tcase_add_test(tc, test_err_tuner);
	tcase_add_test(tc, test_err_mode_list);
	tcase_add_test(tc, test_command_mode);
	tcase_add_test(tc, test_mode_measure);
	tcase_add_test(tc, test_mode_workloads);
	tcase_add_test(tc, test_mode_workloads_models);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(experiment_suite());
}
