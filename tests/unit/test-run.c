/* test-run.c: the unit-status ladder (every branch), the backend registry (names, auto
 * order, resolution, refusals), a unit's argv from the registry, and the variables every
 * unit is given, checked against the documentation that lists them */
#include "config.h"

#include <check.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/base/util.h"
#include "harness/record/recorder.h"
#include "harness/run/progress.h"
#include "harness/run/unit.h"
#include "harness/config/unitenv.h"
#include "harness/run/unitspec.h"
#include <jansson.h>
#include "kernels/backend.h"
#include "kernels/tuner.h"
#include "tests/unit/testutil.h"

/* ---- the status ladder ------------------------------------------------------------- */

/* The ladder on x: the status it gives and its message, checked and freed. */
static void expect_status(const struct unit_exit *x, const char *status, const char *message)
{
	char *msg = NULL;
	const char *got = unit_status(x, &msg);
	ck_assert_str_eq(got, status);
	ck_assert_ptr_nonnull(msg);
	ck_assert_str_eq(msg, message);
	free(msg);
}

START_TEST(status_timeout_first)
{
	/* a timed-out unit was also killed by a signal and sent no done: timeout wins */
	struct unit_exit x = { .timed_out = 1, .timeout_s = 2.385, .signaled = 1, .sig = SIGKILL,
			       .code = 137 };
	expect_status(&x, REC_STATUS_TIMEOUT, "no result within 2 s; killed");
}
END_TEST

START_TEST(status_crashed)
{
	struct unit_exit x = { .signaled = 1, .sig = SIGSEGV, .code = 139, .saw_done = 1,
			       .done_status = "ok" };
	char *want = xasprintf("killed by signal %d (%s)", SIGSEGV, strsignal(SIGSEGV));
	expect_status(&x, REC_STATUS_CRASHED, want);
	free(want);
}
END_TEST

START_TEST(status_failed_exit)
{
	struct unit_exit x = { .code = 3 };
	expect_status(&x, REC_STATUS_FAILED, "exited with status 3");
	x.code = 1;
	x.saw_done = 1;
	x.done_status = "failed";
	x.done_message = "cannot open the 'cpu' backend";
	expect_status(&x, REC_STATUS_FAILED, "exited with status 1: cannot open the 'cpu' backend");
}
END_TEST

START_TEST(status_bad_output)
{
	/* a malformed record beats a done record that came before it */
	struct unit_exit x = { .stream_error = "line 7: not JSON", .saw_done = 1,
			       .done_status = "ok" };
	expect_status(&x, REC_STATUS_BAD_OUTPUT, "line 7: not JSON");
	struct unit_exit y = { 0 };
	expect_status(&y, REC_STATUS_BAD_OUTPUT, "the unit exited without a 'done' record");
}
END_TEST

START_TEST(status_unknown)
{
	struct unit_exit x = { .saw_done = 1, .done_status = "splendid", .done_message = "?" };
	expect_status(&x, REC_STATUS_BAD_OUTPUT, "unknown unit status 'splendid'");
}
END_TEST

START_TEST(status_from_done)
{
	static const char *const known[] = { REC_STATUS_OK, REC_STATUS_COMPILE_ERROR,
					     REC_STATUS_INCORRECT, REC_STATUS_FAILED };
	for (size_t i = 0; i < ARRAY_SIZE(known); i++) {
		struct unit_exit x = { .saw_done = 1, .done_status = known[i],
				       .done_message = "cell 'a/sgemm': 0.0417" };
		expect_status(&x, known[i], "cell 'a/sgemm': 0.0417");
	}
	struct unit_exit x = { .saw_done = 1, .done_status = REC_STATUS_OK };
	expect_status(&x, REC_STATUS_OK, ""); /* no message: empty, never NULL */
}
END_TEST

/* ---- the registry ------------------------------------------------------------------ */

START_TEST(registry_names)
{
	const char *const *c = backend_choices();
	ck_assert_str_eq(c[0], "auto");
	size_t n = 1;
	for (const struct backend_entry *e = backend_registry; e->name; e++, n++) {
		ck_assert_str_eq(c[n], e->name);
		ck_assert_ptr_eq(backend_entry(e->name), e);
		ck_assert_int_eq(backend_is_choice(e->name), 1);
		ck_assert_ptr_eq(backend_find(e->name), e->ops);
		/* a backend the build lacks says why */
		ck_assert(e->ops || (e->missing && *e->missing));
	}
	ck_assert_ptr_null(c[n]);
	ck_assert_str_eq(backend_names(), "auto, cpu, cuda or command");
	ck_assert_int_eq(backend_is_choice("auto"), 1);
	ck_assert_int_eq(backend_is_choice("gpu"), 0);
	ck_assert_ptr_null(backend_entry("auto"));
	ck_assert_ptr_null(backend_find("tpu"));
	ck_assert_str_eq(backend_auto_preferred(), "cuda");

	/* the CPU backend's build provenance: the OpenBLAS it loads */
	struct sbuf sb;
	sbuf_init(&sb);
	backend_find("cpu")->describe_build(&sb);
	ck_assert_msg(!strncmp(sb.buf, "openblas=", 9) && sb.buf[9] && sb.buf[9] != '\n',
		      "describe_build: '%s'", sb.buf);
	sbuf_release(&sb);
}
END_TEST

START_TEST(resolve_auto_and_by_name)
{
	const struct backend_entry *e = NULL;
	char *reason = NULL, *cause = NULL;
	/* without a CUDA device (or a build without CUDA) auto takes the CPU and says why */
	char *why = NULL;
	const struct backend_entry *cuda = backend_entry("cuda");
	int have = backend_available(cuda, &why);
	ck_assert_int_eq(backend_resolve("auto", NULL, 0, &e, &reason, &cause), 0);
	if (have) {
		ck_assert_str_eq(e->name, "cuda");
		ck_assert_str_eq(reason, "auto: a CUDA device is available");
	} else {
		char *want = xasprintf("auto: %s", why);
		ck_assert_str_eq(e->name, "cpu");
		ck_assert_str_eq(reason, want);
		if (!cuda->ops)
			ck_assert_str_eq(reason, "auto: this build has no CUDA backend");
		free(want);
	}
	free(why);
	ck_assert_ptr_null(cause);
	free(reason);

	ck_assert_int_eq(backend_resolve("cpu", NULL, 0, &e, &reason, &cause), 0);
	ck_assert_str_eq(e->name, "cpu");
	ck_assert_str_eq(reason, "requested by name");
	free(reason);
}
END_TEST

START_TEST(resolve_refusals)
{
	const struct backend_entry *e = NULL;
	char *reason = NULL, *cause = NULL;
#ifdef HAVE_CUDA
	/* a CUDA build on a machine without a device: asked for by name, it is an error that
	 * says why (a machine with one resolves it) */
	char *cwhy = NULL;
	if (!backend_available(backend_entry("cuda"), &cwhy)) {
		char *want = xasprintf("backend 'cuda' was asked for but cannot run here: %s", cwhy);
		ck_assert_int_eq(backend_resolve("cuda", NULL, 0, &e, &reason, &cause), -1);
		ck_assert_ptr_null(e);
		ck_assert_ptr_null(reason);
		ck_assert_str_eq(cause, want);
		free(want);
		free(cause);
	}
	free(cwhy);
	const char *built = "cpu, cuda";
#else
	ck_assert_int_eq(backend_resolve("cuda", NULL, 0, &e, &reason, &cause), -1);
	ck_assert_ptr_null(e);
	ck_assert_ptr_null(reason);
	ck_assert_str_eq(cause, "backend 'cuda' is not available in this build (built: cpu)");
	free(cause);
	const char *built = "cpu";
#endif
	(void)built;
	/* command: no ops in this process, runs wherever its program runs; never auto's */
	ck_assert_int_eq(backend_resolve("command", NULL, 0, &e, &reason, &cause), 0);
	ck_assert_str_eq(e->name, "command");
	ck_assert_str_eq(reason, "the mode runs a command");
	free(reason);
	ck_assert_int_eq(backend_resolve("gpu", NULL, 0, &e, &reason, &cause), -1);
	ck_assert_str_eq(cause, "unknown backend 'gpu' (auto, cpu, cuda or command)");
	free(cause);
	char *why = NULL;
	ck_assert_int_eq(backend_available(backend_entry("command"), &why), 1);
	ck_assert_ptr_null(why);
}
END_TEST

/* The workloads count: auto passes over a backend that cannot serve them (a model on cuda,
 * float16 on the cpu), and one asked for by name that cannot is refused before any unit. */
START_TEST(resolve_by_workloads)
{
	const struct backend_entry *e = NULL;
	char *reason = NULL, *cause = NULL;
	struct workload model = { .name = "net", .kind = WORKLOAD_MODEL, .model = "resnet18",
				  .dtype = "float32", .batch = 1, .resolution = 32 };
	ck_assert_int_eq(backend_resolve("auto", &model, 1, &e, &reason, &cause), 0);
	ck_assert_str_eq(e->name, "cpu"); /* with a GPU too: models are not on cuda yet */
	free(reason);
	struct workload half = { .name = "h", .kind = WORKLOAD_OP, .op = "gemm", .dtype = "float16" };
	ck_assert_int_eq(backend_resolve("cpu", &half, 1, &e, &reason, &cause), -1);
	ck_assert_ptr_nonnull(strstr(cause, "backend 'cpu' was asked for but cannot run this "
					    "experiment: workload 'h': dtype 'float16' is not supported"));
	free(cause);
	char *why = NULL;
	if (!backend_available(backend_entry("cuda"), &why)) {
		/* nothing here can run float16: auto says why for each backend it passed over */
		ck_assert_int_eq(backend_resolve("auto", &half, 1, &e, &reason, &cause), -1);
		ck_assert_ptr_nonnull(strstr(cause, why));
		ck_assert_ptr_nonnull(strstr(cause, "dtype 'float16' is not supported by the cpu"));
		free(cause);
	}
	free(why);
}
END_TEST

/* ---- what a unit is given ---------------------------------------------------------- */

START_TEST(argv_from_registry)
{
	struct unitenv_start s = { .self = "/proc/self/exe",
				   .spec = "/r/x/cache/u0042-a/harness-unit-0042.json" };
	char *cause = NULL;
	char **argv = unitenv_argv(backend_entry("cpu"), &s, &cause);
	ck_assert_ptr_nonnull(argv);
	struct sbuf sb;
	sbuf_init(&sb);
	for (char **a = argv; *a; a++)
		sbuf_addf(&sb, "%s%s", a == argv ? "" : " ", *a);
	ck_assert_str_eq(sb.buf, "/proc/self/exe __worker --spec "
				 "/r/x/cache/u0042-a/harness-unit-0042.json");
	sbuf_release(&sb);
	unitenv_free(argv);

	ck_assert_ptr_null(unitenv_argv(backend_entry("command"), &s, &cause));
	ck_assert_str_eq(cause, "backend 'command' has no way to start a unit yet: the command "
				"backend runs a mode's own program: it needs `command = [...]`");
	free(cause);
	/* a command mode's argv is its command as run, never a shell line */
	const char *const cmdv[] = { "/usr/bin/python3", "/x/w.py", "--flag=a b", NULL };
	s.command = cmdv;
	argv = unitenv_argv(backend_entry("command"), &s, &cause);
	ck_assert_ptr_nonnull(argv);
	ck_assert_str_eq(argv[0], "/usr/bin/python3");
	ck_assert_str_eq(argv[2], "--flag=a b");
	ck_assert_ptr_null(argv[3]);
	unitenv_free(argv);
}
END_TEST

/* The unit specification carries what an external unit needs, in JSON the stdlib reads. */
START_TEST(unitspec_says_what_to_measure)
{
	struct workload w = { .name = "g", .kind = WORKLOAD_OP, .op = "sgemm", .batch = 1,
			      .resolution = 224, .dtype = "float32" };
	struct shape_dim dims[] = { { "m", 32 }, { "k", 40 } };
	w.shape = dims;
	w.nshape = 2;
	struct tuner_option inner[] = { { .key = "coordinate_descent_tuning", .type = TUNER_OPT_BOOL, .i = 1 } };
	struct tuner_option opts[] = {
		{ .key = "mode", .type = TUNER_OPT_STRING, .s = "max-autotune" },
		{ .key = "threshold", .type = TUNER_OPT_FLOAT, .f = 0.05 },
		{ .key = "inductor", .type = TUNER_OPT_TABLE, .items = inner, .nitems = 1 },
	};
	struct mode m = { .name = "cd", .options = opts, .noptions = 3,
			  .expects = MODE_EXPECTS_COMPILE };
	struct experiment xp;
	memset(&xp, 0, sizeof(xp));
	xp.name = "x";
	xp.seed = 424242;
	xp.workloads = &w;
	xp.nworkloads = 1;
	xp.measure.min_samples = 7;
	const char *const cells[] = { "g/sgemm:m=32,k=40", NULL };
	struct unitspec_unit u = { .id = 9, .repeat = 2, .block = 2, .warm = 1, .backend = "command",
				   .cache_dir = "/c/u0008-x", .timeout_s = 30, .cells = cells };
	char *text = unitspec_json(&xp, &m, &u);
	json_t *j = json_loads(text, 0, NULL);
	ck_assert_ptr_nonnull(j);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "spec")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "unit")), 9);
	ck_assert(json_is_true(json_object_get(j, "warm")));
	ck_assert_int_eq(json_integer_value(json_object_get(j, "seed")), 424242);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(j, "expects"), 0)), "compile");
	ck_assert_int_eq(json_array_size(json_object_get(j, "expects")), 1);
	json_t *wl = json_array_get(json_object_get(j, "workloads"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(wl, "op")), "sgemm");
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(wl, "shape"), "k")), 40);
	json_t *o = json_object_get(j, "options");
	ck_assert_str_eq(json_string_value(json_object_get(o, "mode")), "max-autotune");
	ck_assert_double_eq_tol(json_real_value(json_object_get(o, "threshold")), 0.05, 1e-15);
	ck_assert(json_is_true(json_object_get(json_object_get(o, "inductor"),
					       "coordinate_descent_tuning")));
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "measure"),
							    "min_samples")), 7);
	ck_assert_str_eq(json_string_value(json_array_get(json_object_get(j, "cells"), 0)),
			 "g/sgemm:m=32,k=40");
	json_decref(j);
	free(text);
}
END_TEST

/* The harness's own worker reads its unit back from the specification alone: what it reads
 * is what the scheduler resolved (backend, tuner, workloads, options, the seed's 64 bits,
 * the tables' run-folder copies, the fault), and its measure settings are composed once:
 * [on.BACKEND] over [measure], the mode's keys over those. */
START_TEST(unitspec_round_trip)
{
	struct workload w[2] = {
		{ .name = "g", .kind = WORKLOAD_OP, .op = "sgemm", .batch = 1, .resolution = 224 },
		{ .name = "r", .kind = WORKLOAD_MODEL, .model = "resnet18", .batch = 2,
		  .resolution = 32, .dtype = "float16", .tf32 = 1 },
	};
	struct shape_dim dims[] = { { "m", 32 }, { "n", 8 }, { "k", 40 } };
	w[0].shape = dims;
	w[0].nshape = 3;
	struct tuner_option li[] = { { .type = TUNER_OPT_INT, .i = 2, .f = 2 },
				     { .type = TUNER_OPT_INT, .i = 4, .f = 4 } };
	struct tuner_option ti[] = { { .key = "bm", .type = TUNER_OPT_LIST, .items = li, .nitems = 2 } };
	struct tuner_option opts[] = {
		{ .key = "values", .type = TUNER_OPT_TABLE, .items = ti, .nitems = 1 },
		{ .key = "threshold", .type = TUNER_OPT_FLOAT, .f = 2.0 },
		{ .key = "include_vendor", .type = TUNER_OPT_BOOL, .i = 1 },
		{ .key = "name", .type = TUNER_OPT_STRING, .s = "x \"y\"" },
	};
	char *train[] = { "/anywhere/a.h5", "/anywhere/b.h5" };
	struct mode m = { .name = "mt", .tuner = "model-topk", .options = opts, .noptions = 4,
			  .fault = FAULT_HANG, .train = train, .ntrain = 2 };
	m.measure.min_samples = 11;
	m.measure_set = 1u << 2; /* min_samples (measure_keys order) */
	struct experiment xp;
	memset(&xp, 0, sizeof(xp));
	xp.name = "x";
	xp.seed = 0xfedcba9876543210ull;
	xp.workloads = w;
	xp.nworkloads = 2;
	xp.measure = (struct measure_settings){ .warmup_s = 0.1, .min_samples = 5, .max_samples = 50,
						.max_time_s = 1, .target_rel_precision = 0.01,
						.flush = 1, .trial_samples = 3, .threads = 1 };
	struct backend_settings on = { .backend = "cpu", .measure = xp.measure };
	on.measure.threads = 6;
	on.measure.flush = 0;
	xp.on = &on;
	xp.non = 1;
	ck_assert_int_eq(experiment_unit_measure(&xp, &m, "cpu").threads, 6);
	ck_assert_int_eq(experiment_unit_measure(&xp, &m, "cpu").min_samples, 11);
	ck_assert_int_eq(experiment_unit_measure(&xp, &m, "cuda").threads, 1);
	struct unitspec_unit u = { .id = 12, .repeat = 3, .block = 3, .backend = "cpu",
				   .run_dir = "/r/x", .cache_dir = testutil_scratch, .timeout_s = 9.5,
				   .workload = "r" };
	char *path = unitspec_path(testutil_scratch, 12);
	ck_assert_int_eq(unitspec_write(path, &xp, &m, &u), 0);
	struct unitspec *s = NULL;
	ck_assert_int_eq(unitspec_read(path, &s), 0);
	ck_assert_str_eq(s->mode, "mt");
	ck_assert_str_eq(s->backend, "cpu");
	ck_assert_str_eq(s->tuner, "model-topk");
	ck_assert_str_eq(s->workload, "r");
	ck_assert_int_eq(s->unit, 12);
	ck_assert(s->seed == 0xfedcba9876543210ull);
	ck_assert(s->fault == FAULT_HANG);
	ck_assert_double_eq(s->timeout_s, 9.5);
	struct measure_settings want = experiment_unit_measure(&xp, &m, "cpu");
	ck_assert(experiment_measure_equal(&s->measure, &want));
	ck_assert_double_eq(s->measure.warmup_s, 0.1);
	ck_assert_uint_eq(s->nworkloads, 1); /* unit_scope = "workload": its one */
	ck_assert_str_eq(s->workloads[0].model, "resnet18");
	ck_assert_str_eq(s->workloads[0].dtype, "float16");
	ck_assert_int_eq(s->workloads[0].tf32, 1);
	ck_assert_int_eq(s->workloads[0].batch, 2);
	ck_assert(tuner_options_equal(s->options, s->noptions, opts, 4));
	ck_assert_int_eq(s->options[1].type, TUNER_OPT_FLOAT); /* 2.0 stays a float */
	ck_assert_ptr_null(s->lut);
	ck_assert_uint_eq(s->ntrain, 2);
	ck_assert_str_eq(s->train[1], "/r/x/tables/mt-train-1.h5");
	unitspec_free(s);
	/* every workload when the unit runs them all, with the op's shape in order */
	u.workload = NULL;
	m.tuner = "lut";
	m.ntrain = 0;
	ck_assert_int_eq(unitspec_write(path, &xp, &m, &u), 0);
	ck_assert_int_eq(unitspec_read(path, &s), 0);
	ck_assert_uint_eq(s->nworkloads, 2);
	ck_assert_ptr_null(s->workload);
	ck_assert_uint_eq(s->workloads[0].nshape, 3);
	ck_assert_str_eq(s->workloads[0].shape[2].name, "k");
	ck_assert_int_eq(s->workloads[0].shape[2].value, 40);
	ck_assert_str_eq(s->lut, "/r/x/tables/mt.toml");
	unitspec_free(s);
	free(path);
}
END_TEST

/* A command unit's cache leak is judged from its counters against its mode's expects. */
START_TEST(command_leak_from_counters)
{
	struct rec_unit u;
	memset(&u, 0, sizeof(u));
	u.status = (char *)REC_STATUS_OK;
	u.expects_work = 0; /* the unit's word does not count */
	ck_assert_int_eq(unit_is_command_cache_leak(&u, MODE_EXPECTS_COMPILE), 1);
	u.compiles = 3;
	ck_assert_int_eq(unit_is_command_cache_leak(&u, MODE_EXPECTS_COMPILE), 0);
	ck_assert_int_eq(unit_is_command_cache_leak(&u, MODE_EXPECTS_COMPILE |
							    MODE_EXPECTS_BENCHMARK), 1);
	u.benchmarks = 1;
	ck_assert_int_eq(unit_is_command_cache_leak(&u, MODE_EXPECTS_COMPILE |
							    MODE_EXPECTS_BENCHMARK), 0);
	u.compiles = u.benchmarks = 0;
	ck_assert_int_eq(unit_is_command_cache_leak(&u, 0), 0);
	u.warm = 1;
	ck_assert_int_eq(unit_is_command_cache_leak(&u, MODE_EXPECTS_COMPILE), 0);
	u.warm = 0;
	u.status = (char *)REC_STATUS_CRASHED;
	ck_assert_int_eq(unit_is_command_cache_leak(&u, MODE_EXPECTS_COMPILE), 0);
}
END_TEST

/* Every cache variable points into the unit's directory as the table says; every variable
 * of the table is set, and set once. */
START_TEST(env_follows_the_table)
{
	struct experiment xp;
	memset(&xp, 0, sizeof(xp));
	xp.measure.threads = 5;
	struct mode vendor = { .name = "vendor" };
	struct unitenv_unit u = { .id = 3, .backend = "cpu", .cache_dir = "/c/u0003-q",
				  .spec = "/c/u0003-q/harness-unit-0003.json", .record_fd = 3 };
	char **env = unitenv_env(&xp, &vendor, &u);
	for (const struct unit_var *v = unitenv_vars; v->name; v++) {
		size_t l = strlen(v->name), seen = 0;
		const char *val = NULL;
		for (char **e = env; *e; e++)
			if (!strncmp(*e, v->name, l) && (*e)[l] == '=') {
				seen++;
				val = *e + l + 1;
			}
		ck_assert_msg(seen == 1, "%s set %zu times", v->name, seen);
		if (v->kind == UNIT_VAR_CACHE) {
			char *want = *v->sub ? xasprintf("/c/u0003-q/%s", v->sub) : xstrdup("/c/u0003-q");
			ck_assert_str_eq(val, want);
			free(want);
		}
		if (v->kind == UNIT_VAR_THREADS)
			ck_assert_str_eq(val, "5");
		if (v->kind == UNIT_VAR_MODE)
			ck_assert_str_eq(val, "vendor");
		if (v->kind == UNIT_VAR_UNIT)
			ck_assert_str_eq(val, "3");
		if (v->kind == UNIT_VAR_CHECK) /* beside the units' directories, shared */
			ck_assert_str_eq(val, "/c/check");
		ck_assert_ptr_eq(unitenv_var(v->name), v);
	}
	ck_assert_ptr_null(unitenv_var("PATH"));
	unitenv_free(env);
}
END_TEST

/* The documentation lists every variable of the table (docs/record-protocol.md, the table
 * of what the harness sets; docs/experiment-format.md, the names an experiment may not set),
 * and names no variable as set by the harness that the table lacks. */
static char *read_doc(const char *name)
{
	char *path = xasprintf("%s/docs/%s", HARNESS_ABS_SRCDIR, name), *text = NULL;
	size_t len = 0;
	ck_assert_msg(util_read_file(path, &text, &len) == 0, "cannot read %s", path);
	free(path);
	return text;
}

/* The text of doc between the first line containing `from` and the next line starting
 * with `until` (heap). */
static char *doc_section(const char *doc, const char *from, const char *until)
{
	const char *a = strstr(doc, from);
	ck_assert_msg(a != NULL, "no '%s' in the document", from);
	const char *b = a;
	while ((b = strchr(b, '\n')) && strncmp(b + 1, until, strlen(until)))
		b++;
	return b ? xstrndup(a, (size_t)(b - a)) : xstrdup(a);
}

START_TEST(docs_list_the_table)
{
	char *proto = read_doc("record-protocol.md"), *format = read_doc("experiment-format.md");
	char *set = doc_section(proto, "Then the harness sets", "and finally");
	char *reserved = doc_section(format, "Neither key may name a variable the harness sets",
				     "\"cold\"");
	size_t nvars = 0;
	for (const struct unit_var *v = unitenv_vars; v->name; v++, nvars++) {
		char *quoted = xasprintf("`%s`", v->name);
		ck_assert_msg(strstr(set, quoted), "docs/record-protocol.md does not list %s", v->name);
		ck_assert_msg(strstr(reserved, quoted), "docs/experiment-format.md does not list %s",
			      v->name);
		free(quoted);
	}
	/* and nothing more: every `NAME` in the two lists is in the table */
	const char *lists[] = { set, reserved };
	for (size_t i = 0; i < 2; i++) {
		for (const char *p = lists[i]; (p = strchr(p, '`'));) {
			const char *q = strchr(p + 1, '`');
			ck_assert_ptr_nonnull(q);
			char *name = xstrndup(p + 1, (size_t)(q - p - 1));
			int upper = *name >= 'A' && *name <= 'Z';
			for (const char *c = name; *c; c++)
				upper &= (*c >= 'A' && *c <= 'Z') || *c == '_' || (*c >= '0' && *c <= '9');
			if (upper)
				ck_assert_msg(unitenv_var(name) != NULL, "the docs list %s, which "
					      "the harness does not set (harness/config/unitenv.c)", name);
			free(name);
			p = q + 1;
		}
	}
	ck_assert_uint_gt(nvars, 10);
	free(set);
	free(reserved);
	free(proto);
	free(format);
}
END_TEST

/* The CPU note's last CPU is there for a unit that exits with records still unread: the
 * step that reads them reaps it in the same call (issue 52: a fast host, a fresh Debian 12
 * root, missed host_unit_last_cpu when the pipe's EOF and the exit fell in one step). */
START_TEST(host_note_when_reaped_with_records)
{
	char *dir = xstrdup("/tmp/harness-unit.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char *out = xasprintf("%s/out", dir), *err = xasprintf("%s/err", dir);
	/* 50 ms first: /proc/stat counts in clock ticks, and a unit that ends inside one tick
	 * leaves the host's counters where they were (no busy figure, no note: the test failed
	 * so once on a fresh Debian 12 root) */
	const char *argv[] = { "/bin/sh", "-c", "sleep 0.05; echo '{\"type\":\"info\"}' >&3",
			       NULL };
	const char *env[] = { "PATH=/bin:/usr/bin", NULL };
	struct unit_spec spec = { .id = 0, .mode = "m", .argv = argv, .env = env,
				  .cache_dir = dir, .stdout_path = out, .stderr_path = err,
				  .timeout_s = 30, .block = 0, .note_host = 1 };
	struct progress prog;
	progress_init(&prog, 1, 0, 1);
	struct rec_unit_data u;
	rec_unit_data_init(&u);
	struct unit_job j;
	ck_assert_int_eq(unit_start(&spec, &prog, &u, &j), 0);
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	ck_assert_int_eq(waitid(P_PID, (id_t)j.sp.pid, &si, WEXITED | WNOWAIT), 0);
	/* its record is in the pipe and it is a zombie: one step reads and reaps */
	ck_assert_int_eq(unit_step(&j, 0, 1000), 1);
	ck_assert_int_eq(unit_finish(&j, 0), 0);
	ck_assert_ptr_nonnull(u.info);
	const char *lc = strstr(u.info, "host_unit_last_cpu=");
	ck_assert_msg(lc != NULL, "no last CPU in '%s'", u.info);
	long cpu = strtol(lc + strlen("host_unit_last_cpu="), NULL, 10);
	ck_assert(cpu >= 0 && cpu < sysconf(_SC_NPROCESSORS_ONLN));
	rec_unit_data_release(&u);
	unlink(out);
	unlink(err);
	rmdir(dir);
	free(out);
	free(err);
	free(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("run");
	TCase *tc = tcase_create("status");
	tcase_add_test(tc, status_timeout_first);
	tcase_add_test(tc, status_crashed);
	tcase_add_test(tc, status_failed_exit);
	tcase_add_test(tc, status_bad_output);
	tcase_add_test(tc, status_unknown);
	tcase_add_test(tc, status_from_done);
	suite_add_tcase(s, tc);
	tc = tcase_create("registry");
	tcase_add_test(tc, registry_names);
	tcase_add_test(tc, resolve_auto_and_by_name);
	tcase_add_test(tc, resolve_refusals);
	tcase_add_test(tc, resolve_by_workloads);
	suite_add_tcase(s, tc);
	tc = tcase_create("unit");
	tcase_add_test(tc, argv_from_registry);
	tcase_add_test(tc, env_follows_the_table);
	tcase_add_test(tc, docs_list_the_table);
	tcase_add_test(tc, unitspec_says_what_to_measure);
	tcase_add_test(tc, command_leak_from_counters);
	tcase_add_test(tc, host_note_when_reaped_with_records);
	suite_add_tcase(s, tc);
	tc = tcase_create("spec");
	testutil_name = "test-run";
	tcase_add_checked_fixture(tc, testutil_scratch_setup, testutil_scratch_teardown);
	tcase_add_test(tc, unitspec_round_trip);
	suite_add_tcase(s, tc);
	return testutil_run(s);
}
