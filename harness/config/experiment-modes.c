/* experiment-modes.c: the [[modes]] of an experiment file: tuner, backend, options, A/A
 * copies, warm probes, the workloads a mode runs (experiment-int.h); the tuners' option
 * checks and files are experiment-tuners.c's */
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
#include <unistd.h>

#include "harness/base/util.h"
#include "harness/config/experiment-int.h"
#include "harness/config/lut.h"
#include "harness/config/toml-bridge.h"
#include "harness/config/tomlcheck.h"
#include "kernels/backend.h"
#include "kernels/catalog.h"
#include "kernels/tuner.h"

static const char *const mode_keys[] = {
	"name", "tuner", "backend", "baseline", "options", "warm_probe", "aa_of", "fault",
	"command", "expects", "timeout", "environment", "only_on", "workloads", "measure", "timing",
	"runs", "warmup", "setup", "prepare", "cleanup", "workdir", "ignore_failure", NULL
};
static const char *const expects_names[] = { "compile", "benchmark", NULL };

/* ---- [[modes]] -------------------------------------------------------------------------- */

/* Where a mode's keys are written, for the checks that span modes. */
struct mode_pos {
	struct tb_pos name, baseline, aa_of, command, backend, tuner, expects, env, only_on;
	struct tb_pos timing, measure; /* line 0: not written */
	struct tc_field process;       /* the first process-timing key (key NULL: none) */
	int has_command, has_backend, has_tuner, has_expects, has_env, has_measure;
};

/* ---- external command modes ------------------------------------------------------------ */

void exp_free_mode_command(struct mode *m)
{
	for (char **v = m->command; v && *v; v++)
		free(*v);
	free(m->command);
	for (char **v = m->command_argv; v && *v; v++)
		free(*v);
	free(m->command_argv);
	for (size_t i = 0; i < m->nenv; i++) {
		free(m->env[i].name);
		free(m->env[i].value);
	}
	free(m->env);
	m->command = m->command_argv = NULL;
	m->env = NULL;
	m->nenv = 0;
}

/* A path as the unit will run it: an absolute path, or one that names an existing file in
 * dir (the experiment's folder), else in the caller's working folder (where a shell would
 * find it), else in the kernel folder; NULL when none has it.  Absolute either way: a unit
 * runs in its own cache folder. */
char *exp_resolve_in(const char *dir, const char *rel)
{
	if (rel[0] == '/')
		return access(rel, F_OK) == 0 ? xstrdup(rel) : NULL;
	char *a = xasprintf("%s/%s", dir, rel);
	char *abs = realpath(a, NULL);
	free(a);
	if (abs || (abs = realpath(rel, NULL)))
		return abs;
	a = xasprintf("%s/%s", backend_kernel_dir(), rel);
	abs = realpath(a, NULL);
	free(a);
	return abs;
}

/* The folder of the experiment file (heap, absolute when it exists). */
char *exp_experiment_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *d = slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
	if (!*d) {
		free(d);
		d = xstrdup("/");
	}
	char *abs = realpath(d, NULL);
	if (abs) {
		free(d);
		return abs;
	}
	return d;
}

/* command = ["prog", "arg", ...]: argv, never a shell.  argv[0] with a '/' must name a file
 * in the experiment's folder or the kernel folder; without one it is searched in the unit's
 * PATH when it starts.  A later argument that does not start with '-' and names an existing
 * file there is made absolute; every other argument is passed as written.  A past run's
 * (or a resumed run's) copy is not resolved here: its argv as run is in the run metadata. */
static int parse_command(struct tc_parser *p, const struct tc_field *f, struct mode *m)
{
	char **v = NULL;
	size_t n = 0;
	if (exp_get_string_list(p, f, &v, &n))
		return -1;
	m->command = xcalloc(n + 1, sizeof(*m->command));
	m->command_argv = xcalloc(n + 1, sizeof(*m->command_argv));
	for (size_t i = 0; i < n; i++)
		m->command[i] = v[i];
	free(v);
	if (n == 0)
		return tc_fail(p, f->pos, "'command' must name a program (an argv: [\"prog\", "
			    "\"arg\", ...])");
	int resolve = !(p->flags & (EXPERIMENT_NO_FILE_CHECKS | EXPERIMENT_PAST_RUN));
	char *dir = resolve ? exp_experiment_dir(p->path) : NULL;
	int ret = 0;
	for (size_t i = 0; i < n; i++) {
		const char *a = m->command[i];
		char *r = NULL;
		if (!*a && i == 0) {
			ret = tc_fail(p, tb_node_pos(tb_node_at(f->v, 0)),
				      "'command' names an empty program");
			break;
		}
		if (resolve && (i == 0 ? strchr(a, '/') != NULL : (*a && *a != '-')))
			r = exp_resolve_in(dir, a);
		if (!r && resolve && i == 0 && strchr(a, '/')) {
			ret = tc_fail(p, tb_node_pos(tb_node_at(f->v, 0)),
				      "'command' program '%s' not found in the experiment's folder, "
				      "the working folder or the kernel folder ($HARNESS_KERNEL_DIR)",
				      a);
			break;
		}
		m->command_argv[i] = r ? r : xstrdup(a);
	}
	free(dir);
	return ret;
}

/* expects = ["compile", "benchmark"]: what a cold unit of the mode must do. */
static int parse_expects(struct tc_parser *p, const struct tc_field *f, struct mode *m)
{
	if (tc_want_kind(p, f, TB_ARRAY))
		return -1;
	m->expects = 0;
	for (size_t i = 0; i < tb_node_len(f->v); i++) {
		struct tc_field e = { .key = f->key, .v = tb_node_at(f->v, i) };
		e.pos = e.key_pos = tb_node_pos(e.v);
		int k = 0;
		if (exp_get_enum(p, &e, expects_names, &k))
			return -1;
		m->expects |= k == 0 ? MODE_EXPECTS_COMPILE : MODE_EXPECTS_BENCHMARK;
	}
	return 0;
}

/* One option value (recursively for lists and tables): integers, floats, booleans,
 * strings, lists of them and tables of them, each with where it was written.  The tuner
 * checks keys, types, ranges and field names (tuner_ops.check_options). */
static int parse_option_value(struct tc_parser *p, const struct tc_field *g, int depth,
			      int elem, struct tuner_option *o)
{
	struct tb_pos at = elem ? g->pos : g->key_pos;
	o->line = at.line;
	o->col = at.col;
	switch (tb_node_kind(g->v)) {
	case TB_INTEGER:
		o->type = TUNER_OPT_INT;
		o->i = tb_node_int(g->v);
		o->f = (double)o->i;
		return 0;
	case TB_FLOAT:
		o->type = TUNER_OPT_FLOAT;
		o->f = tb_node_float(g->v);
		return 0;
	case TB_BOOL:
		o->type = TUNER_OPT_BOOL;
		o->i = tb_node_bool(g->v);
		return 0;
	case TB_STRING:
		o->type = TUNER_OPT_STRING;
		return exp_get_string(p, g, &o->s);
	case TB_ARRAY:
	case TB_TABLE:
		break;
	default:
		return tc_fail(p, g->pos, "option '%s' must be an integer, float, boolean, string, "
			    "list or table, not %s", g->key,
			    tb_kind_phrase(tb_node_kind(g->v)));
	}
	if (depth >= 2)
		return tc_fail(p, g->pos, "option values nest at most two deep (a list or table "
			    "of lists or tables)");
	int table = tb_node_kind(g->v) == TB_TABLE;
	o->type = table ? TUNER_OPT_TABLE : TUNER_OPT_LIST;
	o->nitems = tb_node_len(g->v);
	o->items = xcalloc(o->nitems ? o->nitems : 1, sizeof(*o->items));
	for (size_t i = 0; i < o->nitems; i++) {
		struct tc_field e;
		if (table) {
			e = tc_field_at(g->v, i);
			o->items[i].key = xstrdup(e.key);
		} else {
			e.key = g->key; /* messages about an element name its list */
			e.v = tb_node_at(g->v, i);
			e.pos = tb_node_pos(e.v);
			e.key_pos = e.pos;
		}
		if (parse_option_value(p, &e, depth + 1, !table, &o->items[i]))
			return -1;
	}
	return 0;
}

/* options = { ... }, in file order. */
static int parse_options(struct tc_parser *p, const struct tc_field *f, struct mode *m)
{
	if (tc_want_kind(p, f, TB_TABLE))
		return -1;
	size_t n = tb_node_len(f->v);
	m->options = xcalloc(n ? n : 1, sizeof(*m->options));
	m->noptions = n;
	for (size_t i = 0; i < n; i++) {
		struct tc_field g = tc_field_at(f->v, i);
		m->options[i].key = xstrdup(g.key);
		if (parse_option_value(p, &g, 0, 0, &m->options[i]))
			return -1;
	}
	return 0;
}


static int parse_tuner_name(struct tc_parser *p, const struct tc_field *f, struct mode *m)
{
	if (exp_get_string(p, f, &m->tuner))
		return -1;
	if (tuner_find(m->tuner) || (p->flags & EXPERIMENT_PAST_RUN))
		return 0;
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t i = 0; tuner_table[i]; i++)
		sbuf_addf(&sb, "%s%s", i ? ", " : "", tuner_table[i]->name);
	tc_fail(p, f->pos, "unknown tuner '%s' (known tuners: %s)", m->tuner, sb.buf);
	sbuf_release(&sb);
	return -1;
}

/* One [[modes]] table, then its tuner's check of the options. */
static int parse_mode(struct tc_parser *p, const struct tb_node *t, struct mode *m,
		      struct mode_pos *mp)
{
	struct tb_pos tpos = tb_node_pos(t);
	m->line = tpos.line;
	m->col = tpos.col;
	m->fault = FAULT_NONE;
	for (size_t i = 0; i < tb_node_len(t); i++) {
		struct tc_field g = tc_field_at(t, i);
		int r, k = 0;
		if (!strcmp(g.key, "timing"))
			mp->timing = g.key_pos;
		if ((r = exp_parse_mode_process_key(p, &g, m, &mp->process)) <= 0) {
			if (r)
				return -1;
			continue;
		}
		if (!strcmp(g.key, "name")) {
			r = exp_get_name(p, &g, &m->name);
			mp->name = g.pos;
		} else if (!strcmp(g.key, "tuner")) {
			r = parse_tuner_name(p, &g, m);
			mp->tuner = g.key_pos;
			mp->has_tuner = 1;
		} else if (!strcmp(g.key, "backend")) {
			r = exp_get_backend(p, &g, &m->backend);
			mp->backend = g.pos;
			mp->has_backend = 1;
		} else if (!strcmp(g.key, "command")) {
			r = parse_command(p, &g, m);
			mp->command = g.key_pos;
			mp->has_command = 1;
		} else if (!strcmp(g.key, "expects")) {
			r = parse_expects(p, &g, m);
			mp->expects = g.key_pos;
			mp->has_expects = 1;
		} else if (!strcmp(g.key, "timeout")) {
			r = exp_get_duration(p, &g, NUM_LO_OPEN, MAX_UNIT_TIMEOUT_S, "7 days",
					     &m->timeout_s);
		} else if (!strcmp(g.key, "environment")) {
			r = exp_get_env_table(p, &g, &m->env, &m->nenv);
			mp->env = g.key_pos;
			mp->has_env = 1;
		} else if (!strcmp(g.key, "baseline")) {
			r = exp_get_bool(p, &g, &m->baseline);
			mp->baseline = g.pos;
		} else if (!strcmp(g.key, "options")) {
			r = parse_options(p, &g, m);
		} else if (!strcmp(g.key, "warm_probe")) {
			r = exp_get_bool(p, &g, &m->warm_probe);
		} else if (!strcmp(g.key, "only_on")) {
			r = exp_get_only_on(p, &g, &m->only_on);
			mp->only_on = g.pos;
		} else if (!strcmp(g.key, "workloads")) {
			r = exp_get_string_list(p, &g, &m->workloads, &m->nworkloads);
			if (!r && m->nworkloads == 0)
				r = tc_fail(p, g.pos, "'workloads' must name at least one workload "
					    "(leave it out and the mode runs every workload)");
		} else if (!strcmp(g.key, "measure")) {
			r = exp_parse_measure(p, &g, &m->measure, &m->measure_set);
			mp->measure = g.key_pos;
			mp->has_measure = 1;
		} else if (!strcmp(g.key, "aa_of")) {
			r = exp_get_string(p, &g, &m->aa_of);
			mp->aa_of = g.pos;
		} else if (!strcmp(g.key, "fault")) {
			r = exp_get_enum(p, &g, exp_fault_names, &k);
			m->fault = (enum fault_kind)k;
		} else {
			r = tc_unknown_key(p, &g, mode_keys, " in [[modes]]");
		}
		if (r)
			return -1;
	}
	if (!m->name)
		return tc_fail(p, tpos, "missing required key 'name'");
	if (exp_check_mode_process(p, m, mp->has_command, mp->timing, &mp->process,
				   mp->has_measure, mp->measure, mp->has_expects, mp->expects))
		return -1;
	if (mp->has_command) {
		/* An external command runs its own tuner on its own backend. */
		if (mp->has_tuner)
			return tc_fail(p, mp->tuner, "mode '%s' runs a 'command': it has no 'tuner' "
				    "(the command tunes, or not, by itself)", m->name);
		if (m->backend && strcmp(m->backend, "command"))
			return tc_fail(p, mp->backend, "mode '%s' runs a 'command', so its backend "
				    "is 'command', not '%s'", m->name, m->backend);
		free(m->backend);
		m->backend = xstrdup("command");
		m->tuner = xstrdup("command");
		return 0;
	}
	if (m->backend && !strcmp(m->backend, "command"))
		return tc_fail(p, mp->backend, "mode '%s' asks for backend 'command' but has no "
			    "'command' to run", m->name);
	if (mp->has_expects)
		return tc_fail(p, mp->expects, "'expects' is for modes that run a 'command' (the "
			    "harness's own tuners declare what they do)");
	if (!m->tuner)
		return tc_fail(p, tpos, "missing required key 'tuner'");
	return 0;
}


int exp_strv_equal(char *const *a, char *const *b)
{
	if (!a || !b)
		return a == b;
	for (; *a && *b; a++, b++)
		if (strcmp(*a, *b))
			return 0;
	return !*a && !*b;
}

static int env_equal(const struct mode *a, const struct mode *b)
{
	if (a->nenv != b->nenv || a->expects != b->expects || a->timeout_s != b->timeout_s)
		return 0;
	for (size_t i = 0; i < a->nenv; i++)
		if (strcmp(a->env[i].name, b->env[i].name) || strcmp(a->env[i].value, b->env[i].value))
			return 0;
	return 1;
}

/* Names unique, at most one baseline (default: the first mode), aa_of names another mode
 * that is not itself a copy, with the same tuner, backend, options and fault (and the same
 * workloads: exp_check_mode_workloads, once the workloads are parsed). */
static int check_modes(struct tc_parser *p, struct experiment *e, const struct mode_pos *mp)
{
	ssize_t base = -1;
	for (size_t i = 0; i < e->nmodes; i++) {
		if (!e->modes[i].baseline)
			continue;
		if (base >= 0)
			return tc_fail(p, mp[i].baseline,
				    "two baselines: mode '%s' (line %d) and mode '%s' both say "
				    "baseline = true", e->modes[base].name, mp[base].baseline.line,
				    e->modes[i].name);
		base = (ssize_t)i;
	}
	if (base < 0) {
		base = 0;
		e->modes[0].baseline = 1;
	}
	e->baseline = (size_t)base;
	if (e->modes[base].only_on)
		return tc_fail(p, mp[base].only_on, "the baseline mode '%s' cannot be 'only_on' one "
			       "backend (every run needs its baseline)", e->modes[base].name);

	const char **names = xcalloc(e->nmodes + 1, sizeof(*names));
	for (size_t i = 0; i < e->nmodes; i++)
		names[i] = e->modes[i].name;
	int ret = 0;
	for (size_t i = 0; i < e->nmodes && !ret; i++) {
		const struct mode *m = &e->modes[i];
		if (!m->aa_of)
			continue;
		if (!strcmp(m->aa_of, m->name)) {
			ret = tc_fail(p, mp[i].aa_of, "mode '%s' names itself in 'aa_of' "
				   "(an A/A control repeats another mode)", m->name);
		} else if (experiment_mode_index(e, m->aa_of) < 0) {
			const char *s = tc_suggest(m->aa_of, names);
			if (s)
				ret = tc_fail(p, mp[i].aa_of,
					   "'aa_of' names unknown mode '%s' (did you mean '%s'?)",
					   m->aa_of, s);
			else
				ret = tc_fail(p, mp[i].aa_of, "'aa_of' names unknown mode '%s'",
					   m->aa_of);
		} else if (!(p->flags & EXPERIMENT_PAST_RUN)) {
			/* an A/A copy runs exactly what its original runs, or its difference
			 * would become the noise floor and the margin */
			const struct mode *o = experiment_mode(e, m->aa_of);
			if (o->aa_of)
				ret = tc_fail(p, mp[i].aa_of, "'aa_of' names mode '%s', which is itself "
					   "an A/A copy of '%s': name the original", o->name, o->aa_of);
			else if (strcmp(m->tuner, o->tuner))
				ret = tc_fail(p, mp[i].aa_of, "mode '%s' is an A/A copy of '%s' but runs "
					   "tuner '%s', not '%s'", m->name, o->name, m->tuner, o->tuner);
			else if (strcmp(mode_backend(e, m), mode_backend(e, o)))
				ret = tc_fail(p, mp[i].aa_of, "mode '%s' is an A/A copy of '%s' but asks "
					   "for backend '%s', not '%s'", m->name, o->name,
					   mode_backend(e, m), mode_backend(e, o));
			else if (!tuner_options_equal(m->options, m->noptions, o->options,
						      o->noptions))
				ret = tc_fail(p, mp[i].aa_of, "mode '%s' is an A/A copy of '%s' but its "
					   "options differ: an A/A copy takes exactly its original's "
					   "options", m->name, o->name);
			else if (!exp_strv_equal(m->command_argv, o->command_argv) ||
				 !env_equal(m, o))
				ret = tc_fail(p, mp[i].aa_of, "mode '%s' is an A/A copy of '%s' but its "
					   "'command' or 'environment' differs", m->name, o->name);
			else if (!mode_process_equal(m, o))
				ret = tc_fail(p, mp[i].aa_of, "mode '%s' is an A/A copy of '%s' but is "
					   "timed differently ('timing', 'runs', 'warmup', 'setup', "
					   "'prepare', 'cleanup', 'workdir' or 'ignore_failure')",
					   m->name, o->name);
			else if (m->fault != o->fault)
				ret = tc_fail(p, mp[i].aa_of, "mode '%s' is an A/A copy of '%s' but "
					   "injects fault '%s', not '%s'", m->name, o->name,
					   fault_kind_name(m->fault), fault_kind_name(o->fault));
		}
	}
	free(names);
	return ret;
}

int exp_parse_modes(struct tc_parser *p, const struct tc_field *f, struct experiment *e)
{
	if (exp_want_table_array(p, f))
		return -1;
	size_t n = tb_node_len(f->v);
	e->modes = xcalloc(n, sizeof(*e->modes));
	e->nmodes = n;
	struct mode_pos *mp = xcalloc(n, sizeof(*mp));
	int ret = -1;
	for (size_t i = 0; i < n; i++) {
		struct mode *m = &e->modes[i];
		if (parse_mode(p, tb_node_at(f->v, i), m, &mp[i]))
			goto done;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(e->modes[j].name, m->name)) {
				tc_fail(p, mp[i].name, "duplicate mode name '%s' (first at line %d)",
				     m->name, mp[j].name.line);
				goto done;
			}
	}
	ret = check_modes(p, e, mp);
done:
	free(mp);
	return ret;
}

/* The position of key in the table of mode i of f ([[modes]]): its value's, or the mode's
 * own when the key is absent. */
static struct tb_pos mode_key_pos(const struct tc_field *f, size_t i, const char *key)
{
	const struct tb_node *t = tb_node_at(f->v, i);
	size_t k;
	if (!tb_node_get(t, key, &k))
		return tb_node_pos(t);
	return tc_field_at(t, k).pos;
}

/* 1 when modes a and b run the same workloads of e (in effect: an unset `workloads` and one
 * that names every workload are alike). */
static int same_workloads(const struct experiment *e, const struct mode *a, const struct mode *b)
{
	for (size_t w = 0; w < e->nworkloads; w++)
		if (mode_has_workload(a, e->workloads[w].name) !=
		    mode_has_workload(b, e->workloads[w].name))
			return 0;
	return 1;
}

/* The measure settings s with m's keys over them, min_samples <= max_samples; 0 or an error
 * at m's `measure` key naming where the other bound comes from. */
static int mode_measure_bounds(struct tc_parser *p, const struct tc_field *f, size_t i,
			       const struct mode *m, struct measure_settings s, const char *whose)
{
	s = experiment_mode_measure(s, m);
	if (s.min_samples <= s.max_samples)
		return 0;
	return tc_fail(p, mode_key_pos(f, i, "measure"), "mode '%s': with its 'measure' over %s, "
		       "min_samples %" PRId64 " is above max_samples %" PRId64, m->name, whose,
		       s.min_samples, s.max_samples);
}

int exp_check_mode_measure(struct tc_parser *p, const struct tc_field *f,
			   const struct experiment *e)
{
	for (size_t i = 0; i < e->nmodes; i++) {
		const struct mode *m = &e->modes[i];
		if (!m->measure_set)
			continue;
		if (mode_measure_bounds(p, f, i, m, e->measure, "[measure]"))
			return -1;
		for (size_t k = 0; k < e->non; k++) {
			char *whose = xasprintf("[on.%s.measure]", e->on[k].backend);
			int r = mode_measure_bounds(p, f, i, m, e->on[k].measure, whose);
			free(whose);
			if (r)
				return -1;
		}
	}
	/* an A/A copy measures as its original: else its ratio measures the difference */
	for (size_t i = 0; i < e->nmodes; i++) {
		const struct mode *m = &e->modes[i];
		const struct mode *o = m->aa_of ? experiment_mode(e, m->aa_of) : NULL;
		if (!o || (p->flags & EXPERIMENT_PAST_RUN))
			continue;
		struct measure_settings a = experiment_mode_measure(e->measure, m);
		struct measure_settings b = experiment_mode_measure(e->measure, o);
		if (!experiment_measure_equal(&a, &b))
			return tc_fail(p, mode_key_pos(f, i, m->measure_set ? "measure" : "aa_of"),
				       "mode '%s' is an A/A copy of '%s' but measures otherwise "
				       "('measure'): an A/A copy measures as its original",
				       m->name, o->name);
	}
	return 0;
}

/* Each mode's `workloads` (f: the [[modes]] field, its tables still parsed): every entry
 * names one of the experiment's [[workloads]], none twice; the baseline has none (each
 * comparison is against the baseline, cell by cell: it runs every workload); an A/A copy
 * runs its original's.  After both arrays are parsed, whichever the file writes first. */
int exp_check_mode_workloads(struct tc_parser *p, const struct tc_field *f,
			     const struct experiment *e)
{
	const char **names = xcalloc(e->nworkloads + 1, sizeof(*names));
	for (size_t w = 0; w < e->nworkloads; w++)
		names[w] = e->workloads[w].name;
	int ret = 0;
	for (size_t i = 0; i < e->nmodes && !ret; i++) {
		const struct mode *m = &e->modes[i];
		if (!m->workloads)
			continue;
		const struct tb_node *arr = tb_node_at(f->v, i);
		size_t k = 0;
		tb_node_get(arr, "workloads", &k);
		arr = tc_field_at(arr, k).v;
		for (size_t j = 0; j < m->nworkloads && !ret; j++) {
			const char *name = m->workloads[j];
			struct tb_pos at = tb_node_pos(tb_node_at(arr, j));
			size_t w = 0;
			while (w < e->nworkloads && strcmp(names[w], name))
				w++;
			if (w == e->nworkloads) {
				const char *s = tc_suggest(name, names);
				char *list = tc_join(names);
				if (s)
					ret = tc_fail(p, at, "mode '%s': 'workloads' names unknown "
						      "workload '%s' (did you mean '%s'?)", m->name, name,
						      s);
				else
					ret = tc_fail(p, at, "mode '%s': 'workloads' names unknown "
						      "workload '%s' (workloads: %s)", m->name, name,
						      list);
				free(list);
				break;
			}
			for (size_t d = 0; d < j && !ret; d++)
				if (!strcmp(m->workloads[d], name)) {
					struct tb_pos first = tb_node_pos(tb_node_at(arr, d));
					ret = tc_fail(p, at, "mode '%s': 'workloads' names workload '%s' "
						      "twice (first at line %d, column %d)", m->name,
						      name, first.line, first.col);
				}
		}
		if (!ret && i == e->baseline)
			ret = tc_fail(p, mode_key_pos(f, i, "workloads"),
				      "the baseline mode '%s' cannot restrict its 'workloads' (every "
				      "mode is compared with the baseline in each workload it runs)",
				      m->name);
	}
	/* an A/A copy runs exactly what its original runs (check_modes: tuner, backend, ...) */
	for (size_t i = 0; i < e->nmodes && !ret; i++) {
		const struct mode *m = &e->modes[i];
		const struct mode *o = m->aa_of ? experiment_mode(e, m->aa_of) : NULL;
		if (o && !(p->flags & EXPERIMENT_PAST_RUN) && !same_workloads(e, m, o))
			ret = tc_fail(p, mode_key_pos(f, i, "aa_of"), "mode '%s' is an A/A copy of "
				      "'%s' but runs other 'workloads': an A/A copy runs exactly its "
				      "original's workloads", m->name, o->name);
	}
	free(names);
	return ret;
}

/* ---- lookups --------------------------------------------------------------------------- */

const struct mode *experiment_mode(const struct experiment *e, const char *name)
{
	ssize_t i = experiment_mode_index(e, name);
	return i < 0 ? NULL : &e->modes[i];
}

ssize_t experiment_mode_index(const struct experiment *e, const char *name)
{
	for (size_t i = 0; i < e->nmodes; i++)
		if (e->modes[i].name && !strcmp(e->modes[i].name, name))
			return (ssize_t)i;
	return -1;
}

double mode_timeout(const struct experiment *e, const struct mode *m)
{
	return m->timeout_s > 0 ? m->timeout_s : e->unit_timeout_s;
}

const char *mode_backend(const struct experiment *e, const struct mode *m)
{
	return m->backend ? m->backend : e->backend;
}

int mode_has_workload(const struct mode *m, const char *name)
{
	if (!m->workloads)
		return 1;
	for (size_t i = 0; i < m->nworkloads; i++)
		if (m->workloads[i] && !strcmp(m->workloads[i], name))
			return 1;
	return 0;
}

const struct tuner_option *mode_option(const struct mode *m, const char *key)
{
	return tuner_option_find(m->options, m->noptions, key);
}
