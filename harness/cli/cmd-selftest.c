/* cmd-selftest.c: `harness selftest-unit [options] -- CMD [ARG...]`: run an external worker
 * once as a unit of a command mode (the same isolation, specification and record pipe as
 * `harness run`), against a generated specification, and say what it does wrong
 * (docs/record-protocol.md, "Conformance"); `harness selftest-unit --tuner NAME` does the
 * same to the harness's own worker, started and judged like any other unit. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/spawn.h"
#include "harness/base/util.h"
#include "harness/cli/cmd.h"
#include "harness/config/experiment.h"
#include "harness/record/proto.h"
#include "harness/record/recorder.h"
#include "harness/run/progress.h"
#include "harness/run/unit.h"
#include "harness/config/unitenv.h"
#include "harness/run/unitspec.h"
#include "kernels/tuner.h"

enum { OPT_TIMEOUT = CMD_OPT_OWN, OPT_DIR, OPT_EXPECTS, OPT_TUNER, OPT_BACKEND, OPT_WORKLOADS };

static const struct cmd_opt selftest_opts[] = {
	{ "timeout", OPT_TIMEOUT, 1 },
	{ "dir", OPT_DIR, 1 },
	{ "expects", OPT_EXPECTS, 1 },
	{ "tuner", OPT_TUNER, 1 },
	{ "backend", OPT_BACKEND, 1 },
	{ "workloads", OPT_WORKLOADS, 1 },
	{ NULL, 0, 0 },
};

/* What the generated experiment asks of the unit: an op workload, a model, or both. */
enum { SELFTEST_OP = 1, SELFTEST_MODEL = 2 };

/* The generated experiment: small workloads (the kinds in `kinds`: an sgemm op, a resnet18
 * model; the model alone for the own worker), one mode: a command mode running argv, or
 * (tuner set) one of the harness's own tuners on backend. */
static char *selftest_toml(char **argv, int n, const char *expects, double timeout_s,
			   const char *tuner, const char *backend, unsigned kinds)
{
	struct sbuf sb;
	sbuf_init(&sb);
	sbuf_addf(&sb, "schema = 1\nname = \"selftest\"\nrepeats = 1\nseed = 20261123\n"
		       "unit_timeout = %.17g\n\n[measure]\nwarmup_count = 2\nmin_samples = 5\n"
		       "max_samples = 20\nmax_time = 0.5\n\n", timeout_s);
	/* an external unit gets an op by the CPU catalog's name too; the own worker the model
	 * alone, which every backend builds (its op cells are the backend's own ops) */
	if (!tuner && (kinds & SELFTEST_OP))
		sbuf_adds(&sb, "[[workloads]]\nname = \"g\"\nop = \"sgemm\"\n"
			       "shape = { m = 64, n = 48, k = 32 }\n\n");
	if (tuner || (kinds & SELFTEST_MODEL))
		sbuf_adds(&sb, "[[workloads]]\nname = \"r18\"\nmodel = \"resnet18\"\nbatch = 2\n"
			       "resolution = 32\n\n");
	sbuf_adds(&sb, "[[modes]]\nname = \"selftest\"\n");
	if (tuner) {
		sbuf_adds(&sb, "tuner = ");
		sbuf_add_toml_string(&sb, tuner);
		sbuf_adds(&sb, "\nbackend = ");
		sbuf_add_toml_string(&sb, backend);
		sbuf_adds(&sb, "\n");
		return sbuf_detach(&sb);
	}
	sbuf_adds(&sb, "command = [");
	for (int i = 0; i < n; i++) {
		sbuf_adds(&sb, i ? ", " : "");
		sbuf_add_toml_string(&sb, argv[i]);
	}
	sbuf_adds(&sb, "]\n");
	if (expects && *expects) {
		sbuf_adds(&sb, "expects = [");
		char *copy = xstrdup(expects), *save = NULL;
		int k = 0;
		for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			sbuf_adds(&sb, k++ ? ", " : "");
			sbuf_add_toml_string(&sb, t);
		}
		free(copy);
		sbuf_adds(&sb, "]\n");
	}
	return sbuf_detach(&sb);
}

struct verdict {
	int problems;
};

static void finding(struct verdict *v, int ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void finding(struct verdict *v, int ok, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("%s: ", ok == 1 ? "ok" : ok == 2 ? "note" : "PROBLEM");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	if (!ok)
		v->problems++;
}

/* ok: 1 fine, 0 a problem (counted), 2 a note (not counted). */

/* What a conforming unit does, checked on what it recorded. */
static void judge(const struct rec_unit_data *u, unsigned expects, struct verdict *v)
{
	const struct rec_unit *x = &u->unit;
	finding(v, !strcmp(x->status, REC_STATUS_OK), "status '%s'%s%s", x->status,
		*x->message ? ": " : "", x->message);
	finding(v, u->ncells > 0, "%zu cell(s) declared", u->ncells);
	size_t nmeasured = 0;
	for (size_t c = 0; c < u->ncells; c++) {
		size_t n = 0;
		for (size_t i = 0; i < u->nsamples; i++)
			n += u->sample_cell[i] == (int64_t)c;
		int measured = 0;
		for (size_t m = 0; m < u->nmeasures; m++)
			if (u->measures[m].cell == (int64_t)c) {
				measured = 1;
				if (u->measures[m].nsamples != (int64_t)n)
					finding(v, 0, "cell '%s': its 'measure' record says n = %" PRId64
						", but it sent %zu samples", u->cells[c].name,
						u->measures[m].nsamples, n);
			}
		nmeasured += measured;
		if (n == 0)
			finding(v, 0, "cell '%s' has no samples", u->cells[c].name);
		if (!measured)
			finding(v, 0, "cell '%s' has no 'measure' record (how sampling stopped)",
				u->cells[c].name);
	}
	if (u->ncells)
		finding(v, nmeasured == u->ncells, "%zu of %zu cell(s) sampled with a 'measure' record, "
			"%zu sample(s) in all", nmeasured, u->ncells, u->nsamples);
	if (x->compile_ns >= 0)
		finding(v, 1, "a 'setup' record (%" PRId64 " compiles, %" PRId64 " benchmarks, %" PRId64
			" cache hits)", x->compiles, x->benchmarks, x->cache_hits);
	else
		finding(v, 0, "no 'setup' record: its compiles, benchmarks and cache hits are "
			"unknown, so no cache leak can be seen");
	if (x->compile_ns >= 0 && expects) {
		int leak = unit_is_command_cache_leak(x, expects);
		finding(v, !leak, "expects %s%s%s: it recorded %" PRId64 " compiles and %" PRId64
			" benchmarks in a fresh cache",
			expects & MODE_EXPECTS_COMPILE ? "compile" : "",
			(expects & MODE_EXPECTS_COMPILE) && (expects & MODE_EXPECTS_BENCHMARK) ? "+" : "",
			expects & MODE_EXPECTS_BENCHMARK ? "benchmark" : "", x->compiles, x->benchmarks);
	}
	for (size_t i = 0; i < u->nchoices; i++)
		if (u->choices[i].cell < 0 || (size_t)u->choices[i].cell >= u->ncells)
			finding(v, 0, "a 'choice' names no declared cell");
	finding(v, u->info ? 1 : 2, u->info ? "provenance sent ('info')" :
		"no 'info' record: the results will not say which versions ran");
}

/* The program the unit ran, as its PATH resolved it (what a run records in each unit's
 * info as host_unit_program; not appended here, where the info judged is the worker's). */
static void judge_program(const char *const *argv, const char *const *env, struct verdict *v)
{
	char *prog = spawn_find_program(argv[0], env);
	if (!prog)
		return;
	char *real = realpath(prog, NULL), *script = spawn_script_line(prog);
	int other = real && strcmp(real, prog);
	finding(v, 1, "program: %s%s%s", prog, other ? " -> " : "", other ? real : "");
	if (script)
		finding(v, 2, "'%s' is a script ('%s'): a version manager's shim (pyenv, asdf, "
			"conda's) chooses its interpreter from HOME and the working folder, which "
			"are the unit's own cache folder, so the unit may run another interpreter "
			"than your shell does; name the interpreter by its absolute path", prog,
			script);
	free(prog);
	free(real);
	free(script);
}

static void show_tail(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	if (util_read_file(path, &text, &len) || !len) {
		free(text);
		return;
	}
	const char *p = text + len;
	int lines = 0;
	while (p > text && lines <= 10)
		if (*--p == '\n')
			lines++;
	printf("--- last lines of its stderr (%s) ---\n%s%s", path, p == text ? "" : "...",
	       p == text ? text : p);
	if (text[len - 1] != '\n')
		printf("\n");
	free(text);
}

/* The command's words as the unit will run them: one that names a file relative to our
 * working directory (the program when it has a '/'; a later word not starting with '-')
 * made absolute, since the unit runs in its own cache folder; the others as given (a
 * program without '/' is searched in PATH when the unit starts).  A heap vector of heap
 * strings, n long. */
static char **selftest_argv(char *const *argv, int n)
{
	char **out = xcalloc((size_t)n + 1, sizeof(*out));
	for (int i = 0; i < n; i++) {
		const char *w = argv[i];
		char *abs = NULL;
		if (*w != '/' && (i == 0 ? strchr(w, '/') != NULL : (*w && *w != '-')))
			abs = realpath(w, NULL);
		out[i] = abs ? abs : xstrdup(w);
	}
	return out;
}

static int selftest_exec(const struct cmd_args *a)
{
	double timeout_s = 60;
	const char *tv = cmd_args_value(a, OPT_TIMEOUT);
	if (tv) {
		char *end = NULL;
		errno = 0;
		timeout_s = strtod(tv, &end);
		if (errno || end == tv || *end || !(timeout_s > 0) || timeout_s > 86400) {
			error("--timeout '%s': seconds in (0, 86400] expected", tv);
			return EXIT_USAGE;
		}
	}
	const char *expects = cmd_args_value(a, OPT_EXPECTS);
	const char *keep = cmd_args_value(a, OPT_DIR);
	const char *tuner = cmd_args_value(a, OPT_TUNER);
	const char *bname = cmd_args_value(a, OPT_BACKEND);
	if (!tuner == !a->npos)
		return cmd_usage_error(a->entry, "name the unit: a command after '--', or the "
						 "harness's own worker with --tuner NAME");
	if (!tuner && bname)
		return cmd_usage_error(a->entry, "--backend is for the harness's own worker (--tuner)");
	if (tuner && expects)
		return cmd_usage_error(a->entry, "--expects is for a command: the harness's own "
						 "worker is held to its tuner's");
	const char *wl = cmd_args_value(a, OPT_WORKLOADS);
	unsigned kinds = SELFTEST_OP;
	if (wl) {
		if (tuner)
			return cmd_usage_error(a->entry, "--workloads is for a command: the harness's "
							 "own worker gets the model, which every "
							 "backend builds");
		kinds = !strcmp(wl, "op") ? SELFTEST_OP : !strcmp(wl, "model") ? SELFTEST_MODEL
			: !strcmp(wl, "both") ? SELFTEST_OP | SELFTEST_MODEL : 0;
		if (!kinds)
			return cmd_usage_error(a->entry, "--workloads: '%s' is not op, model or both",
					       wl);
	}
	char **words = selftest_argv(a->pos, a->npos);
	char *toml = selftest_toml(words, a->npos, expects, timeout_s, tuner,
				   bname ? bname : "auto", kinds);
	for (int i = 0; i < a->npos; i++)
		free(words[i]);
	free(words);
	struct experiment *e = NULL;
	char *cause = NULL, *dir = NULL, *cache = NULL, *out = NULL, *err = NULL, *spec = NULL;
	char **env = NULL, **argv = NULL;
	struct rec_unit_data u;
	struct verdict v = { 0 };
	int rc = EXIT_RUN_FAILED, made = 0;
	rec_unit_data_init(&u);
	if (experiment_parse_flags("(selftest-unit)", toml, strlen(toml), EXPERIMENT_NO_FILE_CHECKS,
				   &e, &cause)) {
		error("%s", cause);
		rc = EXIT_USAGE;
		goto done;
	}
	const struct mode *m = &e->modes[0];
	const struct backend_entry *be = NULL;
	unsigned expect = m->expects;
	if (tuner) {
		/* resolved as a run resolves it: a backend that cannot run here is refused */
		char *reason = NULL;
		if (backend_resolve(m->backend, e->workloads, e->nworkloads, &be, &reason, &cause)) {
			error("%s", cause);
			goto done;
		}
		free(reason);
		unsigned f = tuner_find(m->tuner)->flags;
		expect = (f & TUNER_COMPILES ? MODE_EXPECTS_COMPILE : 0) |
			 (f & TUNER_BENCHMARKS ? MODE_EXPECTS_BENCHMARK : 0);
	} else {
		be = backend_entry("command");
	}
	if (keep) {
		if (util_mkdir_p(keep, 0700))
			goto done;
		dir = xstrdup(keep);
	} else {
		const char *tmp = getenv("TMPDIR");
		dir = xasprintf("%s/harness-selftest-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(dir)) {
			error_errno("cannot create a folder for the unit in '%s'", dir);
			goto done;
		}
		made = 1;
	}
	/* absolute: the unit runs in its cache directory, and its specification's path and
	 * HARNESS_UNIT_SPEC must hold from there */
	char *abs = realpath(dir, NULL);
	if (!abs) {
		error_errno("cannot resolve '%s'", dir);
		goto done;
	}
	free(dir);
	dir = abs;
	cache = xasprintf("%s/cache-XXXXXX", dir);
	if (!mkdtemp(cache)) {
		error_errno("cannot create the cache directory '%s'", cache);
		goto done;
	}
	char *tmpd = xasprintf("%s/tmp", cache);
	int mk = mkdir(tmpd, 0700);
	free(tmpd);
	if (mk < 0) {
		error_errno("cannot create '%s/tmp'", cache);
		goto done;
	}
	/* the own worker's check folder, beside its cache (HARNESS_CHECK_DIR) */
	char *check = xasprintf("%s/check", dir);
	mk = mkdir(check, 0700);
	free(check);
	if (mk < 0 && errno != EEXIST) {
		error_errno("cannot create '%s/check'", dir);
		goto done;
	}
	out = xasprintf("%s/unit.out", dir);
	err = xasprintf("%s/unit.err", dir);
	spec = unitspec_path(cache, 0);
	struct unitspec_unit su = { .id = 0, .backend = be->name, .cache_dir = cache,
				    .timeout_s = timeout_s };
	if (unitspec_write(spec, e, m, &su))
		goto done;
	struct unitenv_unit eu = { .id = 0, .backend = be->name, .cache_dir = cache, .spec = spec,
				   .record_fd = PROTO_FD };
	env = unitenv_env(e, m, &eu);
	struct unitenv_start st = { .self = "/proc/self/exe", .spec = spec,
				    .command = (const char *const *)m->command_argv };
	argv = unitenv_argv(be, &st, &cause);
	if (!argv) {
		error("%s", cause);
		goto done;
	}
	struct unit_spec us = { .id = 0, .mode = m->name, .argv = (const char *const *)argv,
				.env = (const char *const *)env, .cache_dir = cache,
				.stdout_path = out, .stderr_path = err, .timeout_s = timeout_s,
				.command = !tuner, .expects = m->expects };
	struct progress prog;
	progress_init(&prog, 1, 0, 1);
	volatile sig_atomic_t stop = 0;
	u.unit.compile_ns = -1; /* stays so without a 'setup' record */
	u.unit.mode = xstrdup(m->name);
	u.unit.cache_dir = xstrdup(cache);
	printf("unit: %s%s\nspecification: %s\nlogs: %s, %s\n", tuner ? "the harness's own worker "
	       "on backend " : a->pos[0], tuner ? be->name : "", spec, out, err);
	int r = unit_run(&us, &prog, &stop, &u);
	progress_clear(&prog);
	if (r < 0)
		goto done;
	judge(&u, expect, &v);
	if (!tuner)
		judge_program((const char *const *)argv, (const char *const *)env, &v);
	if (v.problems)
		show_tail(err);
	printf("%s: %d problem(s)%s\n", v.problems ? "does not conform" : "conforms", v.problems,
	       keep ? "" : " (its folder is removed; --dir keeps it)");
	rc = v.problems ? EXIT_RUN_FAILED : EXIT_OK;
done:
	if (made && dir && util_rm_rf(dir))
		rc = EXIT_RUN_FAILED;
	rec_unit_data_release(&u);
	unitenv_free(env);
	unitenv_free(argv);
	experiment_free(e);
	free(cause);
	free(toml);
	free(dir);
	free(cache);
	free(out);
	free(err);
	free(spec);
	return rc;
}

const struct cmd_entry cmd_selftest_unit_entry = {
	.name = "selftest-unit",
	.usage = "selftest-unit [options] -- CMD [ARG...]  |  selftest-unit --tuner NAME "
		 "[--backend NAME] [options]",
	.summary = "run a worker (an external one, or the harness's own) once as a unit and check "
		   "it speaks the record protocol",
	.help = "options:\n"
		"  --tuner NAME     check the harness's own worker, tuning with NAME (heuristic,\n"
		"                   exhaustive, ...), instead of a command\n"
		"  --backend NAME   its backend (default auto: as a run would resolve it)\n"
		"  --workloads KIND what the command is sent: op (an sgemm, the default), model\n"
		"                   (resnet18) or both, as the experiment's modes will send it\n"
		"  --expects LIST   what a cold unit must do: compile, benchmark or both\n"
		"                   (compile,benchmark); judged from its 'setup' counters\n"
		"  --timeout S      kill it after S seconds (default 60)\n"
		"  --dir DIR        run it in DIR and keep its cache, specification and logs\n"
		"                   (default: a temporary folder, removed)\n"
		"A word of CMD that names a file from here (the program when it has a '/', a\n"
		"later word not starting with '-') is made absolute: the unit runs in its own\n"
		"cache folder.  The program's path as resolved is printed and recorded.\n",
	.opts = selftest_opts,
	.min_args = 0,
	.max_args = -1,
	.exec = selftest_exec,
};
