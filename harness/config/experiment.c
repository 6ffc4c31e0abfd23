/* experiment.c: experiment files, schema version 1: defaults, types, ranges and the
 * cross-checks between keys (docs/experiment-format.md is the reference; keep the two in
 * step).  The TOML itself is read by toml-bridge; this file only walks its tree. */
#include "config.h"
#include "harness/config/experiment.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/base/util.h"
#include "harness/config/experiment-int.h"
#include "harness/config/toml-bridge.h"
#include "harness/config/tomlcheck.h"
#include "harness/config/unitenv.h"
#include "kernels/backend.h"
#include "kernels/catalog.h"
#include "kernels/tuner.h"

/* Defaults and limits (docs/experiment-format.md lists the same numbers). */
/* The experiment's name is part of file names: results/<name>-<UTC>.h5 and its run folder
 * (20 characters more), and temporary names next to them (.tmpXXXXXX): 200 keeps all of
 * them within NAME_MAX (255) with room to spare. */

static const char *const order_names[] = { "randomized", "abba", "sequential", NULL };
static const char *const unit_scope_names[] = { "mode", "workload", NULL };
const char *const exp_fault_names[] = { "none", "crash", "hang", "exit", "bad-record", NULL };

/* The keys each table may hold, for unknown-key messages and did-you-mean. */
static const char *const root_keys[] = {
	"schema", "name", "description", "backend", "repeats", "seed", "order", "unit_scope",
	"unit_timeout", "margin", "hypotheses", "measure", "run", "limits", "sequential", "environment",
	"workloads", "modes", "on", NULL
};
static const char *const run_keys[] = { "jobs", "gpus", NULL };
static const char *const limit_keys[] = { "samples", "info_bytes", "output_bytes", NULL };
static const char *const on_keys[] = { "repeats", "max_repeats", "measure", NULL };
static const char *const seq_keys[] = { "max_repeats", "spending", "until", NULL };
static const char *const spending_names[] = { "pocock", "obrien-fleming", NULL };
static const char *const until_names[] = { "primary", "cells", NULL };
static const char *const measure_keys[] = {
	"warmup_time", "warmup_count", "min_samples", "max_samples", "max_time",
	"target_precision", "flush", "trial_samples", "threads", NULL
};
static const char *const environment_keys[] = { "pass", "set", "sandbox", NULL };

const char *order_kind_name(enum order_kind k)
{
	return (unsigned)k < ARRAY_SIZE(order_names) - 1 ? order_names[k] : "?";
}

const char *unit_scope_name(enum unit_scope k)
{
	return (unsigned)k < ARRAY_SIZE(unit_scope_names) - 1 ? unit_scope_names[k] : "?";
}

const char *fault_kind_name(enum fault_kind k)
{
	return (unsigned)k < ARRAY_SIZE(exp_fault_names) - 1 ? exp_fault_names[k] : "?";
}

/* ---- [measure] and [environment] -------------------------------------------------------- */

/* A [measure] table's keys into m; *set (when given: a mode's table) gets bit k for each
 * measure_keys[k] written, and min_samples <= max_samples is then checked only when the
 * table sets both (exp_check_mode_measure checks the values the units get). */
int exp_parse_measure(struct tc_parser *p, const struct tc_field *f, struct measure_settings *m,
		      unsigned *set)
{
	if (tc_want_kind(p, f, TB_TABLE))
		return -1;
	struct tc_field min_f = { 0 }, max_f = { 0 };
	for (size_t i = 0; i < tb_node_len(f->v); i++) {
		struct tc_field g = tc_field_at(f->v, i);
		int r;
		for (unsigned k = 0; set && measure_keys[k]; k++)
			if (!strcmp(g.key, measure_keys[k]))
				*set |= 1u << k;
		if (!strcmp(g.key, "warmup_time")) {
			r = exp_get_duration(p, &g, 0, MAX_MEASURE_TIME_S, "1 day", &m->warmup_s);
		} else if (!strcmp(g.key, "warmup_count")) {
			r = exp_get_int(p, &g, 0, MAX_COUNT, &m->warmup_count);
		} else if (!strcmp(g.key, "min_samples")) {
			r = exp_get_int(p, &g, 1, MAX_SAMPLES, &m->min_samples);
			min_f = g;
		} else if (!strcmp(g.key, "max_samples")) {
			r = exp_get_int(p, &g, 1, MAX_SAMPLES, &m->max_samples);
			max_f = g;
		} else if (!strcmp(g.key, "max_time")) {
			r = exp_get_duration(p, &g, NUM_LO_OPEN, MAX_MEASURE_TIME_S, "1 day",
					 &m->max_time_s);
		} else if (!strcmp(g.key, "target_precision")) {
			r = exp_get_number(p, &g, 0, 1, NUM_LO_OPEN | NUM_HI, &m->target_rel_precision);
		} else if (!strcmp(g.key, "flush")) {
			r = exp_get_bool(p, &g, &m->flush);
		} else if (!strcmp(g.key, "trial_samples")) {
			r = exp_get_int(p, &g, 1, MAX_SAMPLES, &m->trial_samples);
		} else if (!strcmp(g.key, "threads")) {
			r = exp_get_int(p, &g, 1, MAX_THREADS, &m->threads);
		} else {
			r = tc_unknown_key(p, &g, measure_keys, " in [measure]");
		}
		if (r)
			return -1;
	}
	if ((!set || (min_f.key && max_f.key)) && m->max_samples < m->min_samples) {
		if (max_f.key)
			return tc_fail(p, max_f.pos, "'max_samples' must be >= min_samples (%" PRId64
				    "), not %" PRId64, m->min_samples, m->max_samples);
		return tc_fail(p, min_f.pos, "'min_samples' must be <= max_samples (%" PRId64
			    "), not %" PRId64, m->max_samples, m->min_samples);
	}
	return 0;
}

/* [limits]: samples, info_bytes, output_bytes, each a positive integer. */
static int parse_limits(struct tc_parser *p, const struct tc_field *f, struct limit_settings *l)
{
	if (tc_want_kind(p, f, TB_TABLE))
		return -1;
	for (size_t i = 0; i < tb_node_len(f->v); i++) {
		struct tc_field g = tc_field_at(f->v, i);
		int64_t *dst = !strcmp(g.key, "samples")	? &l->samples
			       : !strcmp(g.key, "info_bytes")	? &l->info_bytes
			       : !strcmp(g.key, "output_bytes") ? &l->output_bytes
								: NULL;
		if (!dst)
			return tc_unknown_key(p, &g, limit_keys, " in [limits]");
		if (exp_get_int(p, &g, 1, INT64_MAX / 2, dst))
			return -1;
	}
	return 0;
}

/* [run]: jobs = N or gpus = "all" | [0, 1, 3], not both (they are --jobs and --gpus). */
static int parse_run(struct tc_parser *p, const struct tc_field *f, struct run_settings *rs)
{
	if (tc_want_kind(p, f, TB_TABLE))
		return -1;
	struct tc_field jobs_f = { 0 }, gpus_f = { 0 };
	for (size_t i = 0; i < tb_node_len(f->v); i++) {
		struct tc_field g = tc_field_at(f->v, i);
		if (!strcmp(g.key, "jobs")) {
			if (exp_get_int(p, &g, 1, MAX_JOBS, &rs->jobs))
				return -1;
			jobs_f = g;
		} else if (!strcmp(g.key, "gpus")) {
			gpus_f = g;
			if (tb_node_kind(g.v) == TB_STRING) {
				if (strcmp(tb_node_string(g.v, NULL), "all"))
					return tc_fail(p, g.pos, "'gpus' must be \"all\" or an array of "
						    "GPU indices as nvidia-smi numbers them ([0, 1, 3]), "
						    "not '%s'", tb_node_string(g.v, NULL));
				rs->gpus = xstrdup("all");
				continue;
			}
			if (tb_node_kind(g.v) != TB_ARRAY)
				return tc_fail(p, g.pos, "'gpus' must be \"all\" or an array of GPU "
					    "indices ([0, 1, 3])");
			size_t n = tb_node_len(g.v);
			if (!n)
				return tc_fail(p, g.pos, "'gpus' must name at least one GPU");
			struct sbuf sb;
			sbuf_init(&sb);
			sbuf_adds(&sb, "");
			for (size_t j = 0; j < n; j++) {
				const struct tb_node *x = tb_node_at(g.v, j);
				struct tb_pos xp = tb_node_pos(x);
				int64_t v = tb_node_kind(x) == TB_INTEGER ? tb_node_int(x) : -1;
				int bad = tb_node_kind(x) != TB_INTEGER || v < 0 || v > MAX_GPU_INDEX;
				for (size_t k = 0; !bad && k < j; k++)
					if (tb_node_int(tb_node_at(g.v, k)) == v) {
						sbuf_release(&sb);
						return tc_fail(p, xp, "'gpus' names GPU %" PRId64
							    " twice", v);
					}
				if (bad) {
					sbuf_release(&sb);
					return tc_fail(p, xp, "'gpus' entries must be GPU indices "
						    "from 0 to %d", MAX_GPU_INDEX);
				}
				sbuf_addf(&sb, "%s%" PRId64, j ? "," : "", v);
			}
			rs->gpus = sbuf_detach(&sb);
		} else {
			return tc_unknown_key(p, &g, run_keys, " in [run]");
		}
	}
	if (jobs_f.key && gpus_f.key) {
		const struct tc_field *later =
			jobs_f.key_pos.line > gpus_f.key_pos.line ||
					(jobs_f.key_pos.line == gpus_f.key_pos.line &&
					 jobs_f.key_pos.col > gpus_f.key_pos.col)
				? &jobs_f : &gpus_f;
		return tc_fail(p, later->key_pos, "[run] has both 'jobs' and 'gpus': 'gpus' runs "
			    "one unit per GPU, 'jobs' one per share of the cores; choose one");
	}
	return 0;
}

/* [sequential]: max_repeats (required), spending, until. */
static int parse_sequential(struct tc_parser *p, const struct tc_field *f, struct seq_settings *q)
{
	if (tc_want_kind(p, f, TB_TABLE))
		return -1;
	q->on = 1;
	int have_max = 0;
	for (size_t i = 0; i < tb_node_len(f->v); i++) {
		struct tc_field g = tc_field_at(f->v, i);
		int r, k = 0;
		if (!strcmp(g.key, "max_repeats")) {
			r = exp_get_int(p, &g, 2, MAX_REPEATS, &q->max_repeats);
			q->line = g.key_pos.line;
			q->col = g.key_pos.col;
			have_max = 1;
		} else if (!strcmp(g.key, "spending")) {
			r = exp_get_enum(p, &g, spending_names, &k);
			q->spending = k;
		} else if (!strcmp(g.key, "until")) {
			r = exp_get_enum(p, &g, until_names, &k);
			q->until_cells = k;
		} else {
			r = tc_unknown_key(p, &g, seq_keys, " in [sequential]");
		}
		if (r)
			return -1;
	}
	if (!have_max)
		return tc_fail(p, f->pos, "[sequential] needs 'max_repeats', the most blocks the run "
			    "may take (the budget its looks' levels are spent over)");
	return 0;
}

/* max_repeats at least the repeats it starts from, for the run's own settings and each
 * [on.BACKEND]'s (its own, or the experiment's, of either). */
static int check_sequential(struct tc_parser *p, const struct experiment *e)
{
	if (!e->seq.on)
		return 0;
	struct tb_pos at = { e->seq.line, e->seq.col };
	if (e->seq.max_repeats < e->repeats)
		return tc_fail(p, at, "'max_repeats' (%" PRId64 ") is below 'repeats' (%" PRId64
			    "): the first look is after 'repeats' blocks", e->seq.max_repeats,
			    e->repeats);
	for (size_t i = 0; i < e->non; i++) {
		const struct backend_settings *o = &e->on[i];
		int64_t r = o->has_repeats ? o->repeats : e->repeats;
		int64_t m = o->has_max_repeats ? o->max_repeats : e->seq.max_repeats;
		struct tb_pos here = o->has_repeats ? (struct tb_pos){ o->repeats_line, o->repeats_col }
						    : at;
		if (m < r)
			return tc_fail(p, here, "[on.%s]: 'repeats' (%" PRId64 ") is above the "
				    "'max_repeats' (%" PRId64 ") of a run on '%s': the first look is "
				    "after 'repeats' blocks", o->backend, r, m, o->backend);
	}
	return 0;
}

/* [on.BACKEND] tables, after the rest of the root (their [measure] keys go over the
 * experiment's [measure], wherever that is written). */
static int parse_on(struct tc_parser *p, const struct tc_field *f, struct experiment *e)
{
	if (tc_want_kind(p, f, TB_TABLE))
		return -1;
	for (size_t i = 0; i < tb_node_len(f->v); i++) {
		struct tc_field b = tc_field_at(f->v, i);
		int k = 0;
		const char *const *names = backend_choices();
		while (names[k] && strcmp(names[k], b.key))
			k++;
		if (!names[k] || !k) {
			char *list = tc_join(names + 1);
			int r = tc_fail(p, b.key_pos, "[on.%s]: not a backend (backends: %s)", b.key,
					list);
			free(list);
			return r;
		}
		if (tc_want_kind(p, &b, TB_TABLE))
			return -1;
		XGROW(e->on, e->onc, e->non + 1);
		struct backend_settings *o = &e->on[e->non++];
		memset(o, 0, sizeof(*o));
		o->backend = xstrdup(names[k]);
		o->measure = e->measure;
		for (size_t j = 0; j < tb_node_len(b.v); j++) {
			struct tc_field g = tc_field_at(b.v, j);
			int r;
			if (!strcmp(g.key, "repeats")) {
				r = exp_get_int(p, &g, 1, MAX_REPEATS, &o->repeats);
				o->has_repeats = 1;
				o->repeats_line = g.key_pos.line;
				o->repeats_col = g.key_pos.col;
			} else if (!strcmp(g.key, "max_repeats")) {
				r = exp_get_int(p, &g, 2, MAX_REPEATS, &o->max_repeats);
				o->has_max_repeats = 1;
				if (!r && !e->seq.on)
					r = tc_fail(p, g.key_pos, "'max_repeats' in [on.%s] needs a "
						    "[sequential] table", o->backend);
			} else if (!strcmp(g.key, "measure")) {
				r = exp_parse_measure(p, &g, &o->measure, NULL);
			} else {
				r = tc_unknown_key(p, &g, on_keys, " in [on.BACKEND]");
			}
			if (r)
				return -1;
		}
	}
	return 0;
}

/* Each measure_keys[k]'s field of struct measure_settings and its kind: 'd' a double ('s':
 * seconds), 'i' an int64_t, 'b' an int (a bool), in measure_keys' order. */
static const struct {
	size_t off;
	char kind;
} measure_fields[] = {
	{ offsetof(struct measure_settings, warmup_s), 's' },
	{ offsetof(struct measure_settings, warmup_count), 'i' },
	{ offsetof(struct measure_settings, min_samples), 'i' },
	{ offsetof(struct measure_settings, max_samples), 'i' },
	{ offsetof(struct measure_settings, max_time_s), 's' },
	{ offsetof(struct measure_settings, target_rel_precision), 'd' },
	{ offsetof(struct measure_settings, flush), 'b' },
	{ offsetof(struct measure_settings, trial_samples), 'i' },
	{ offsetof(struct measure_settings, threads), 'i' },
};
_Static_assert(ARRAY_SIZE(measure_fields) == ARRAY_SIZE(measure_keys) - 1,
	       "measure_fields follows measure_keys, one entry a key");

/* The bytes of measure_fields[k]'s field. */
static size_t measure_field_size(size_t k)
{
	return measure_fields[k].kind == 'b' ? sizeof(int) : 8; /* else a double or an int64_t */
}

struct measure_settings experiment_mode_measure(struct measure_settings base, const struct mode *m)
{
	for (size_t k = 0; k < ARRAY_SIZE(measure_fields); k++)
		if (m->measure_set & 1u << k)
			memcpy((char *)&base + measure_fields[k].off,
			       (const char *)&m->measure + measure_fields[k].off, measure_field_size(k));
	return base;
}

int experiment_measure_equal(const struct measure_settings *a, const struct measure_settings *b)
{
	for (size_t k = 0; k < ARRAY_SIZE(measure_fields); k++)
		if (memcmp((const char *)a + measure_fields[k].off,
			   (const char *)b + measure_fields[k].off, measure_field_size(k)))
			return 0;
	return 1;
}

/* The keys of ms whose bit is in set, "key = value, ...", in the keys' order; seconds
 * followed by sec (" s" in a report, "" as the file writes them). */
static char *measure_text(const struct measure_settings *ms, unsigned set, const char *sec)
{
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t k = 0; k < ARRAY_SIZE(measure_fields); k++) {
		if (!(set & 1u << k))
			continue;
		const char *v = (const char *)ms + measure_fields[k].off;
		sbuf_addf(&sb, "%s%s = ", sb.len ? ", " : "", measure_keys[k]);
		switch (measure_fields[k].kind) {
		case 's': sbuf_addf(&sb, "%g%s", *(const double *)(const void *)v, sec); break;
		case 'd': sbuf_addf(&sb, "%g", *(const double *)(const void *)v); break;
		case 'b': sbuf_adds(&sb, *(const int *)(const void *)v ? "true" : "false"); break;
		default: sbuf_addf(&sb, "%" PRId64, *(const int64_t *)(const void *)v); break;
		}
	}
	return sbuf_detach(&sb);
}

char *experiment_mode_measure_text(const struct mode *m)
{
	return m->measure_set ? measure_text(&m->measure, m->measure_set, " s") : NULL;
}

char *experiment_measure_text(const struct measure_settings *ms)
{
	return measure_text(ms, ~0u, "");
}

void experiment_apply_on(struct experiment *e, const char *backend)
{
	for (size_t i = 0; i < e->non; i++) {
		if (strcmp(e->on[i].backend, backend))
			continue;
		if (e->on[i].has_repeats) {
			e->repeats = e->on[i].repeats;
			e->repeats_line = e->on[i].repeats_line;
			e->repeats_col = e->on[i].repeats_col;
		}
		if (e->on[i].has_max_repeats)
			e->seq.max_repeats = e->on[i].max_repeats;
		e->measure = e->on[i].measure;
	}
}

struct measure_settings experiment_unit_measure(const struct experiment *e, const struct mode *m,
						const char *backend)
{
	struct measure_settings base = e->measure;
	for (size_t i = 0; backend && i < e->non; i++)
		if (!strcmp(e->on[i].backend, backend))
			base = e->on[i].measure;
	return experiment_mode_measure(base, m);
}

static int is_env_name(const char *s)
{
	if (!(('a' <= *s && *s <= 'z') || ('A' <= *s && *s <= 'Z') || *s == '_'))
		return 0;
	for (s++; *s; s++)
		if (!(('a' <= *s && *s <= 'z') || ('A' <= *s && *s <= 'Z') ||
		      ('0' <= *s && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

/* Variables the harness itself sets for every unit (unitenv_vars, unitenv.h): an
 * experiment may not override them, or pass them through, since that would point a unit's
 * caches outside its own fresh directory (a cache leak by construction). */
static int is_reserved_env(const char *s)
{
	return unitenv_var(s) != NULL;
}

int exp_get_env_table(struct tc_parser *p, const struct tc_field *f, struct env_var **out,
		      size_t *n)
{
	if (tc_want_kind(p, f, TB_TABLE))
		return -1;
	size_t len = tb_node_len(f->v);
	*out = xcalloc(len ? len : 1, sizeof(**out));
	*n = 0;
	for (size_t i = 0; i < len; i++) {
		struct tc_field g = tc_field_at(f->v, i);
		if (!is_env_name(g.key))
			return tc_fail(p, g.key_pos, "'%s' is not a valid environment variable name",
				    g.key);
		if (is_reserved_env(g.key))
			return tc_fail(p, g.key_pos,
				    "'%s' is set by the harness for every unit (its cache directory "
				    "or thread count) and cannot be overridden",
				    g.key);
		(*out)[i].name = xstrdup(g.key);
		*n = i + 1;
		if (exp_get_string(p, &g, &(*out)[i].value))
			return -1;
	}
	return 0;
}

static int parse_environment(struct tc_parser *p, const struct tc_field *f, struct experiment *e)
{
	if (tc_want_kind(p, f, TB_TABLE))
		return -1;
	for (size_t i = 0; i < tb_node_len(f->v); i++) {
		struct tc_field g = tc_field_at(f->v, i);
		if (!strcmp(g.key, "pass")) {
			if (exp_get_string_list(p, &g, &e->env_pass, &e->nenv_pass))
				return -1;
			for (size_t j = 0; j < e->nenv_pass; j++)
				if (!is_env_name(e->env_pass[j]))
					return tc_fail(p, tb_node_pos(tb_node_at(g.v, j)),
						    "'%s' is not a valid environment variable name",
						    e->env_pass[j]);
				else if (is_reserved_env(e->env_pass[j]))
					return tc_fail(p, tb_node_pos(tb_node_at(g.v, j)),
						    "'%s' is set by the harness for every unit and "
						    "cannot be passed through",
						    e->env_pass[j]);
		} else if (!strcmp(g.key, "set")) {
			if (exp_get_env_table(p, &g, &e->env_set, &e->nenv_set))
				return -1;
		} else if (!strcmp(g.key, "sandbox")) {
			int on;
			if (exp_get_bool(p, &g, &on))
				return -1;
			e->no_sandbox = !on;
		} else {
			return tc_unknown_key(p, &g, environment_keys, " in [environment]");
		}
	}
	return 0;
}

/* ---- hypotheses ------------------------------------------------------------------------- */

/* Each path, relative to the experiment file's folder unless absolute, must name a file. */
static int check_hypotheses(struct tc_parser *p, const struct tc_field *f, struct experiment *e)
{
	if (p->flags & EXPERIMENT_NO_FILE_CHECKS)
		return 0;
	const char *slash = strrchr(p->path, '/');
	char *dir = slash ? xstrndup(p->path, slash == p->path ? 1 : (size_t)(slash - p->path))
			  : xstrdup(".");
	int ret = 0;
	for (size_t i = 0; i < e->nhypotheses && !ret; i++) {
		const char *h = e->hypotheses[i];
		struct tb_pos pos = tb_node_pos(tb_node_at(f->v, i));
		if (!*h) {
			ret = tc_fail(p, pos, "'hypotheses' entries must not be empty");
			break;
		}
		char *full = h[0] == '/' ? xstrdup(h) : xasprintf("%s/%s", dir, h);
		struct stat st;
		if (stat(full, &st) != 0) {
			if (errno == ENOENT)
				ret = tc_fail(p, pos,
					   "hypothesis file '%s' not found (looked for '%s')", h,
					   full);
			else
				ret = tc_fail(p, pos, "cannot access hypothesis file '%s': %s", full,
					   strerror(errno));
		} else if (!S_ISREG(st.st_mode)) {
			ret = tc_fail(p, pos, "hypothesis file '%s' is not a regular file", full);
		}
		free(full);
	}
	free(dir);
	return ret;
}

/* ---- the root table --------------------------------------------------------------------- */

static int parse_root(struct tc_parser *p, const struct tb_node *root, struct experiment *e)
{
	struct tc_field on = { 0 }, modes = { 0 };
	struct tb_pos rpos = tb_node_pos(root);
	size_t i;

	/* The schema first: a newer file's keys are not worth reporting one by one. */
	if (!tb_node_get(root, "schema", &i))
		return tc_fail(p, rpos, "missing required key 'schema'");
	struct tc_field sf = tc_field_at(root, i);
	if (tc_want_kind(p, &sf, TB_INTEGER))
		return -1;
	e->schema = tb_node_int(sf.v);
	if (e->schema != EXPERIMENT_SCHEMA_VERSION)
		return tc_fail(p, sf.pos,
			    "unsupported schema %" PRId64 " (this harness reads schema %d)",
			    e->schema, EXPERIMENT_SCHEMA_VERSION);

	for (i = 0; i < tb_node_len(root); i++) {
		struct tc_field g = tc_field_at(root, i);
		int r = 0, k = 0;
		int64_t seed = 0;
		if (!strcmp(g.key, "schema")) {
			r = 0;
		} else if (!strcmp(g.key, "name")) {
			r = exp_get_name(p, &g, &e->name);
			if (!r && strlen(e->name) > MAX_EXPERIMENT_NAME)
				r = tc_fail(p, g.pos, "'name' must be at most %d characters (it names "
					    "results/<name>-<UTC>.h5 and its run folder), not %zu",
					    MAX_EXPERIMENT_NAME, strlen(e->name));
		} else if (!strcmp(g.key, "description")) {
			r = exp_get_string(p, &g, &e->description);
		} else if (!strcmp(g.key, "backend")) {
			r = exp_get_backend(p, &g, &e->backend);
		} else if (!strcmp(g.key, "repeats")) {
			r = exp_get_int(p, &g, 1, MAX_REPEATS, &e->repeats);
			e->repeats_line = g.key_pos.line;
			e->repeats_col = g.key_pos.col;
		} else if (!strcmp(g.key, "seed")) {
			r = exp_get_int(p, &g, 0, INT64_MAX, &seed);
			e->seed = (uint64_t)seed;
		} else if (!strcmp(g.key, "order")) {
			r = exp_get_enum(p, &g, order_names, &k);
			e->order = (enum order_kind)k;
		} else if (!strcmp(g.key, "unit_scope")) {
			r = exp_get_enum(p, &g, unit_scope_names, &k);
			e->unit_scope = (enum unit_scope)k;
		} else if (!strcmp(g.key, "unit_timeout")) {
			r = exp_get_duration(p, &g, NUM_LO_OPEN, MAX_UNIT_TIMEOUT_S, "7 days",
					 &e->unit_timeout_s);
		} else if (!strcmp(g.key, "margin")) {
			r = exp_get_number(p, &g, 0, 0.5, NUM_LO_OPEN | NUM_HI, &e->margin);
		} else if (!strcmp(g.key, "hypotheses")) {
			r = exp_get_string_list(p, &g, &e->hypotheses, &e->nhypotheses);
			if (!r)
				r = check_hypotheses(p, &g, e);
		} else if (!strcmp(g.key, "measure")) {
			r = exp_parse_measure(p, &g, &e->measure, NULL);
		} else if (!strcmp(g.key, "run")) {
			r = parse_run(p, &g, &e->run);
		} else if (!strcmp(g.key, "limits")) {
			r = parse_limits(p, &g, &e->limits);
		} else if (!strcmp(g.key, "sequential")) {
			r = parse_sequential(p, &g, &e->seq);
		} else if (!strcmp(g.key, "environment")) {
			r = parse_environment(p, &g, e);
		} else if (!strcmp(g.key, "workloads")) {
			r = exp_parse_workloads(p, &g, e);
		} else if (!strcmp(g.key, "modes")) {
			r = exp_parse_modes(p, &g, e);
			modes = g;
		} else if (!strcmp(g.key, "on")) {
			on = g;
			r = 0;
		} else {
			r = tc_unknown_key(p, &g, root_keys, "");
		}
		if (r)
			return -1;
	}
	if (!e->name)
		return tc_fail(p, rpos, "missing required key 'name'");
	if (!e->modes)
		return tc_fail(p, rpos, "missing required key 'modes' (add a [[modes]] table)");
	/* a mode that times its command's processes runs no workload: an experiment of those
	 * alone needs none */
	size_t timed = 0;
	for (size_t k = 0; k < e->nmodes; k++)
		timed += e->modes[k].timing == TIMING_PROCESS;
	if (!e->workloads && timed < e->nmodes)
		return tc_fail(p, rpos,
			    "missing required key 'workloads' (add a [[workloads]] table)");
	if (exp_check_mode_workloads(p, &modes, e) || exp_check_models(p, e))
		return -1;
	if (on.key && parse_on(p, &on, e))
		return -1;
	if (check_sequential(p, e))
		return -1;
	if (exp_check_mode_measure(p, &modes, e))
		return -1;
	return exp_check_tuner_options(p, e);
}

static void set_defaults(struct experiment *e)
{
	e->margin = NAN;
	e->backend = xstrdup("auto");
	e->repeats = DEFAULT_REPEATS;
	e->seed = DEFAULT_SEED;
	e->order = ORDER_RANDOMIZED;
	e->unit_timeout_s = DEFAULT_UNIT_TIMEOUT_S;
	e->measure.warmup_s = DEFAULT_WARMUP_S;
	e->measure.warmup_count = DEFAULT_WARMUP_COUNT;
	e->measure.min_samples = DEFAULT_MIN_SAMPLES;
	e->measure.max_samples = DEFAULT_MAX_SAMPLES;
	e->measure.max_time_s = DEFAULT_MAX_TIME_S;
	e->measure.target_rel_precision = DEFAULT_TARGET_PRECISION;
	e->measure.flush = 1;
	e->measure.trial_samples = DEFAULT_TRIAL_SAMPLES;
	e->measure.threads = DEFAULT_THREADS;
}

/* ---- public entry points ---------------------------------------------------------------- */

int experiment_parse(const char *path, const char *text, size_t len, struct experiment **out,
		     char **cause)
{
	return experiment_parse_flags(path, text, len, 0, out, cause);
}

int experiment_parse_flags(const char *path, const char *text, size_t len, unsigned flags,
			   struct experiment **out, char **cause)
{
	return experiment_parse_edits(path, text, len, flags, NULL, out, cause);
}

int experiment_parse_edits(const char *path, const char *text, size_t len, unsigned flags,
			   const struct exp_edits *ed, struct experiment **out, char **cause)
{
	struct tc_parser p = { .path = path, .cause = NULL, .flags = flags };
	struct experiment *e = xcalloc(1, sizeof(*e));
	struct tb_doc *doc = NULL;
	char *syntax = NULL;
	int ret = -1;

	*out = NULL;
	*cause = NULL;
	set_defaults(e);
	doc = tb_doc_parse(text, len, &syntax);
	if (!doc) {
		p.cause = xasprintf("'%s':%s", path, syntax);
		goto done;
	}
	if (exp_apply_edits(&p, tb_doc_root_mut(doc), ed, &e->has_axes) || parse_root(&p, tb_doc_root(doc), e))
		goto done;
	exp_edits_copy(&e->edits, ed);
	e->path = xstrdup(path);
	e->text = xstrndup(text, len);
	e->text_len = len;
	util_sha256_hex(text, len, e->sha256);
	ret = 0;
done:
	tb_doc_free(doc);
	free(syntax);
	if (ret) {
		experiment_free(e);
		*cause = p.cause;
	} else {
		*out = e;
	}
	return ret;
}

int experiment_load(const char *path, struct experiment **out)
{
	return experiment_load_flags(path, 0, out);
}

int experiment_load_flags(const char *path, unsigned flags, struct experiment **out)
{
	return experiment_load_edits(path, flags, NULL, out);
}

int experiment_load_edits(const char *path, unsigned flags, const struct exp_edits *ed,
			  struct experiment **out)
{
	char *text = NULL, *cause = NULL;
	size_t len = 0;

	*out = NULL;
	if (util_read_file(path, &text, &len))
		return -1;
	int ret = experiment_parse_edits(path, text, len, flags, ed, out, &cause);
	if (ret)
		error("%s", cause);
	free(cause);
	free(text);
	return ret;
}

void workload_release(struct workload *w)
{
	free(w->name);
	free(w->model);
	free(w->op);
	for (size_t j = 0; j < w->nshape; j++)
		free(w->shape[j].name);
	free(w->shape);
	free(w->dtype);
	free(w->backend);
}

void experiment_free(struct experiment *e)
{
	if (!e)
		return;
	free(e->name);
	free(e->description);
	free(e->backend);
	for (size_t i = 0; i < e->nworkloads; i++)
		workload_release(&e->workloads[i]);
	free(e->workloads);
	for (size_t i = 0; i < e->non; i++)
		free(e->on[i].backend);
	free(e->on);
	for (size_t i = 0; i < e->nmodes + e->nmodes_left_out; i++) {
		struct mode *m = &e->modes[i];
		free(m->name);
		free(m->tuner);
		free(m->only_on);
		for (size_t j = 0; j < m->nworkloads; j++)
			free(m->workloads[j]);
		free(m->workloads);
		for (size_t j = 0; j < m->noptions; j++)
			tuner_option_release(&m->options[j]);
		free(m->options);
		free(m->aa_of);
		free(m->backend);
		if (m->lut)
			tuner_lut_release(m->lut);
		free(m->lut);
		for (size_t j = 0; j < m->ntrain; j++)
			free(m->train[j]);
		free(m->train);
		exp_free_mode_command(m);
		exp_free_mode_process(m);
	}
	free(e->modes);
	for (size_t i = 0; i < e->nhypotheses; i++)
		free(e->hypotheses[i]);
	free(e->hypotheses);
	for (size_t i = 0; i < e->nenv_pass; i++)
		free(e->env_pass[i]);
	free(e->env_pass);
	for (size_t i = 0; i < e->nenv_set; i++) {
		free(e->env_set[i].name);
		free(e->env_set[i].value);
	}
	free(e->env_set);
	free(e->run.gpus);
	exp_edits_release(&e->edits);
	free(e->path);
	free(e->text);
	free(e);
}
