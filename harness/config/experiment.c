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
#include <string.h>
#include <sys/stat.h>

#include "harness/config/toml-bridge.h"
#include "harness/config/tomlcheck.h"
#include "harness/base/util.h"
#include "kernels/backend.h"
#include "kernels/catalog.h"
#include "kernels/tuner.h"

/* Defaults and limits (docs/experiment-format.md lists the same numbers). */
#define DEFAULT_REPEATS 5
#define MAX_REPEATS 10000
#define DEFAULT_SEED 1
#define DEFAULT_UNIT_TIMEOUT_S 600.0
#define DEFAULT_WARMUP_S 0.05
#define DEFAULT_WARMUP_COUNT 3
#define DEFAULT_MIN_SAMPLES 10
#define DEFAULT_MAX_SAMPLES 200
#define DEFAULT_MAX_TIME_S 2.0
#define DEFAULT_TARGET_PRECISION 0.01
#define DEFAULT_TRIAL_SAMPLES 5
#define DEFAULT_THREADS 1
#define MAX_COUNT 1000000000 /* warmup_count */
#define MAX_SAMPLES 10000000 /* min_samples, max_samples, trial_samples */
#define MAX_THREADS 4096
#define DEFAULT_BATCH 1
#define MAX_BATCH 65536
#define DEFAULT_RESOLUTION 224
#define MIN_RESOLUTION 8
#define MAX_RESOLUTION 16384
#define MAX_SHAPE_DIM INT32_MAX
/* The experiment's name is part of file names: results/<name>-<UTC>.h5 and its run folder
 * (20 characters more), and temporary names next to them (.tmpXXXXXX): 200 keeps all of
 * them within NAME_MAX (255) with room to spare. */
#define MAX_EXPERIMENT_NAME 200
#define DEFAULT_DTYPE "float32"

static const char *const order_names[] = { "randomized", "abba", "sequential", NULL };
static const char *const fault_names[] = { "none", "crash", "hang", "exit", "bad-record", NULL };

/* The keys each table may hold, for unknown-key messages and did-you-mean. */
static const char *const root_keys[] = {
	"schema", "name", "description", "backend", "repeats", "seed", "order", "unit_timeout",
	"margin", "hypotheses", "measure", "environment", "workloads", "modes", NULL
};
static const char *const measure_keys[] = {
	"warmup_time", "warmup_count", "min_samples", "max_samples", "max_time",
	"target_precision", "flush", "trial_samples", "threads", NULL
};
static const char *const environment_keys[] = { "pass", "set", NULL };
static const char *const workload_keys[] = {
	"name", "model", "op", "shape", "batch", "resolution", "dtype", "tf32", NULL
};
/* The dtypes a workload may name; which backend has which is the backend's to say. */
static const char *const dtype_names[] = { "float32", "float16", "bfloat16", NULL };
static const char *const mode_keys[] = {
	"name", "tuner", "backend", "baseline", "options", "warm_probe", "aa_of", "fault", NULL
};

const char *order_kind_name(enum order_kind k)
{
	return (unsigned)k < ARRAY_SIZE(order_names) - 1 ? order_names[k] : "?";
}

const char *fault_kind_name(enum fault_kind k)
{
	return (unsigned)k < ARRAY_SIZE(fault_names) - 1 ? fault_names[k] : "?";
}

/* An integer in [min, max]; max INT64_MAX means "no upper bound" in the message. */
static int get_int(struct tc_parser *p, const struct tc_field *f, int64_t min, int64_t max,
		   int64_t *out)
{
	if (tc_want_kind(p, f, TB_INTEGER))
		return -1;
	int64_t v = tb_node_int(f->v);
	if (v < min || v > max) {
		if (max == INT64_MAX)
			return tc_fail(p, f->pos, "'%s' must be >= %" PRId64 ", not %" PRId64, f->key,
				    min, v);
		return tc_fail(p, f->pos,
			    "'%s' must be between %" PRId64 " and %" PRId64 ", not %" PRId64,
			    f->key, min, max, v);
	}
	*out = v;
	return 0;
}

#define NUM_LO_OPEN 0x1 /* the lower bound itself is excluded */
#define NUM_HI 0x2      /* there is an upper bound, and it is excluded */

/* A finite number (integer or float) above lo, and below hi when flags has NUM_HI. */
static int get_number(struct tc_parser *p, const struct tc_field *f, double lo, double hi,
		      unsigned flags, double *out)
{
	enum tb_kind k = tb_node_kind(f->v);
	if (k != TB_INTEGER && k != TB_FLOAT)
		return tc_fail(p, f->pos, "'%s' must be a number, not %s", f->key, tb_kind_phrase(k));
	double v = tb_node_float(f->v);
	if (!isfinite(v))
		return tc_fail(p, f->pos, "'%s' must be a finite number, not %g", f->key, v);
	int lo_ok = flags & NUM_LO_OPEN ? v > lo : v >= lo;
	int hi_ok = flags & NUM_HI ? v < hi : 1;
	if (lo_ok && hi_ok) {
		*out = v;
		return 0;
	}
	const char *lo_op = flags & NUM_LO_OPEN ? ">" : ">=";
	if (flags & NUM_HI)
		return tc_fail(p, f->pos, "'%s' must be %s %g and < %g, not %g", f->key, lo_op, lo, hi,
			    v);
	return tc_fail(p, f->pos, "'%s' must be %s %g, not %g", f->key, lo_op, lo, v);
}

/* Upper bounds of the durations (seconds; docs/experiment-format.md lists the same): far
 * beyond any sane setting, and far below the 292 years at which nanoseconds overflow an
 * int64_t (the scheduler and the worker convert to ns). */
#define MAX_UNIT_TIMEOUT_S (7 * 86400.0) /* unit_timeout: 7 days */
#define MAX_MEASURE_TIME_S 86400.0      /* warmup_time, max_time: 1 day */

/* A duration in seconds: a number as get_number takes it, and at most max_s (phrase: the
 * bound in words, for the message). */
static int get_duration(struct tc_parser *p, const struct tc_field *f, unsigned flags, double max_s,
			const char *phrase, double *out)
{
	double v;
	if (get_number(p, f, 0, 0, flags, &v))
		return -1;
	if (v > max_s)
		return tc_fail(p, f->pos, "'%s' must be at most %g seconds (%s), not %g", f->key, max_s,
			    phrase, v);
	*out = v;
	return 0;
}

static int get_bool(struct tc_parser *p, const struct tc_field *f, int *out)
{
	if (tc_want_kind(p, f, TB_BOOL))
		return -1;
	*out = tb_node_bool(f->v);
	return 0;
}

/* A string without NUL bytes, copied to a new heap string in *out (freeing the old one). */
static int get_string(struct tc_parser *p, const struct tc_field *f, char **out)
{
	if (tc_want_kind(p, f, TB_STRING))
		return -1;
	size_t len;
	const char *s = tb_node_string(f->v, &len);
	if (strlen(s) != len)
		return tc_fail(p, f->pos, "'%s' must not contain a NUL character", f->key);
	free(*out);
	*out = xstrdup(s);
	return 0;
}

static int is_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!(('a' <= *s && *s <= 'z') || ('A' <= *s && *s <= 'Z') ||
		      ('0' <= *s && *s <= '9') || *s == '.' || *s == '_' || *s == '-'))
			return 0;
	return 1;
}

/* A name: [A-Za-z0-9._-]+ (experiment, workload and mode names). */
static int get_name(struct tc_parser *p, const struct tc_field *f, char **out)
{
	if (get_string(p, f, out))
		return -1;
	if (!is_name(*out))
		return tc_fail(p, f->pos,
			    "'%s' must be made of letters, digits, '.', '_' and '-', not '%s'",
			    f->key, *out);
	return 0;
}

/* One of names (NULL-terminated); *out gets its index. */
static int get_enum(struct tc_parser *p, const struct tc_field *f, const char *const *names, int *out)
{
	char *s = NULL;
	if (get_string(p, f, &s))
		return -1;
	for (int i = 0; names[i]; i++) {
		if (!strcmp(s, names[i])) {
			*out = i;
			free(s);
			return 0;
		}
	}
	char *list = tc_join(names);
	tc_fail(p, f->pos, "'%s' must be one of %s, not '%s'", f->key, list, s);
	free(list);
	free(s);
	return -1;
}

/* An array of strings into a new heap vector *out of *n copies. */
static int get_string_list(struct tc_parser *p, const struct tc_field *f, char ***out, size_t *n)
{
	if (tc_want_kind(p, f, TB_ARRAY))
		return -1;
	return tc_get_string_array(p, f, get_string, out, n);
}

/* An array of tables ([[key]]) with at least one entry. */
static int want_table_array(struct tc_parser *p, const struct tc_field *f)
{
	if (tb_node_kind(f->v) != TB_ARRAY)
		return tc_fail(p, f->pos, "'%s' must be an array of tables ([[%s]]), not %s", f->key,
			    f->key, tb_kind_phrase(tb_node_kind(f->v)));
	if (tb_node_len(f->v) == 0)
		return tc_fail(p, f->pos, "'%s' must have at least one entry", f->key);
	for (size_t i = 0; i < tb_node_len(f->v); i++) {
		const struct tb_node *t = tb_node_at(f->v, i);
		if (tb_node_kind(t) != TB_TABLE)
			return tc_fail(p, tb_node_pos(t), "'%s' entries must be tables, not %s",
				    f->key, tb_kind_phrase(tb_node_kind(t)));
	}
	return 0;
}

/* ---- [measure] and [environment] -------------------------------------------------------- */

static int parse_measure(struct tc_parser *p, const struct tc_field *f, struct measure_settings *m)
{
	if (tc_want_kind(p, f, TB_TABLE))
		return -1;
	struct tc_field min_f = { 0 }, max_f = { 0 };
	for (size_t i = 0; i < tb_node_len(f->v); i++) {
		struct tc_field g = tc_field_at(f->v, i);
		int r;
		if (!strcmp(g.key, "warmup_time")) {
			r = get_duration(p, &g, 0, MAX_MEASURE_TIME_S, "1 day", &m->warmup_s);
		} else if (!strcmp(g.key, "warmup_count")) {
			r = get_int(p, &g, 0, MAX_COUNT, &m->warmup_count);
		} else if (!strcmp(g.key, "min_samples")) {
			r = get_int(p, &g, 1, MAX_SAMPLES, &m->min_samples);
			min_f = g;
		} else if (!strcmp(g.key, "max_samples")) {
			r = get_int(p, &g, 1, MAX_SAMPLES, &m->max_samples);
			max_f = g;
		} else if (!strcmp(g.key, "max_time")) {
			r = get_duration(p, &g, NUM_LO_OPEN, MAX_MEASURE_TIME_S, "1 day",
					 &m->max_time_s);
		} else if (!strcmp(g.key, "target_precision")) {
			r = get_number(p, &g, 0, 1, NUM_LO_OPEN | NUM_HI, &m->target_rel_precision);
		} else if (!strcmp(g.key, "flush")) {
			r = get_bool(p, &g, &m->flush);
		} else if (!strcmp(g.key, "trial_samples")) {
			r = get_int(p, &g, 1, MAX_SAMPLES, &m->trial_samples);
		} else if (!strcmp(g.key, "threads")) {
			r = get_int(p, &g, 1, MAX_THREADS, &m->threads);
		} else {
			r = tc_unknown_key(p, &g, measure_keys, " in [measure]");
		}
		if (r)
			return -1;
	}
	if (m->max_samples < m->min_samples) {
		if (max_f.key)
			return tc_fail(p, max_f.pos, "'max_samples' must be >= min_samples (%" PRId64
				    "), not %" PRId64, m->min_samples, m->max_samples);
		return tc_fail(p, min_f.pos, "'min_samples' must be <= max_samples (%" PRId64
			    "), not %" PRId64, m->max_samples, m->min_samples);
	}
	return 0;
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

/* Variables the harness itself sets for every unit (backend_unit_vars, backend.h): an
 * experiment may not override them, or pass them through, since that would point a unit's
 * caches outside its own fresh directory (a cache leak by construction). */
static int is_reserved_env(const char *s)
{
	return backend_unit_var(s) != NULL;
}

static int parse_env_set(struct tc_parser *p, const struct tc_field *f, struct experiment *e)
{
	if (tc_want_kind(p, f, TB_TABLE))
		return -1;
	size_t n = tb_node_len(f->v);
	e->env_set = xcalloc(n, sizeof(*e->env_set));
	e->nenv_set = n;
	for (size_t i = 0; i < n; i++) {
		struct tc_field g = tc_field_at(f->v, i);
		if (!is_env_name(g.key))
			return tc_fail(p, g.key_pos, "'%s' is not a valid environment variable name",
				    g.key);
		if (is_reserved_env(g.key))
			return tc_fail(p, g.key_pos,
				    "'%s' is set by the harness for every unit (its cache directory "
				    "or thread count) and cannot be overridden",
				    g.key);
		if (get_string(p, &g, &e->env_set[i].value))
			return -1;
		e->env_set[i].name = xstrdup(g.key);
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
			if (get_string_list(p, &g, &e->env_pass, &e->nenv_pass))
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
			if (parse_env_set(p, &g, e))
				return -1;
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

/* ---- [[workloads]] ---------------------------------------------------------------------- */

static size_t count_fields(const struct op_info *op)
{
	size_t n = 0;
	while (op->shape_fields[n])
		n++;
	return n;
}

/* shape = { ... } of an op workload: every field of the op, no other, each an integer
 * >= 1 (pad and dim >= 0).  Stored in the catalog's field order. */
static int parse_shape(struct tc_parser *p, const struct tc_field *f, const struct op_info *op,
		       struct workload *w)
{
	if (tc_want_kind(p, f, TB_TABLE))
		return -1;
	size_t nf = count_fields(op);
	w->shape = xcalloc(nf, sizeof(*w->shape));
	w->nshape = nf;
	for (size_t k = 0; k < nf; k++) {
		w->shape[k].name = xstrdup(op->shape_fields[k]);
		w->shape[k].value = -1; /* not given yet */
	}
	for (size_t i = 0; i < tb_node_len(f->v); i++) {
		struct tc_field g = tc_field_at(f->v, i);
		size_t k = 0;
		while (k < nf && strcmp(op->shape_fields[k], g.key))
			k++;
		if (k == nf) {
			const char *s = tc_suggest(g.key, op->shape_fields);
			if (s)
				return tc_fail(p, g.key_pos, "unknown shape field '%s' for op '%s' "
					    "(did you mean '%s'?)", g.key, op->name, s);
			char *list = tc_join(op->shape_fields);
			tc_fail(p, g.key_pos, "unknown shape field '%s' for op '%s' (it takes %s)",
			     g.key, op->name, list);
			free(list);
			return -1;
		}
		/* pad and dim (the axis a sum runs over) may be 0; every size is >= 1 */
		int zero = !strcmp(g.key, "pad") || !strcmp(g.key, "dim");
		if (get_int(p, &g, zero ? 0 : 1, MAX_SHAPE_DIM, &w->shape[k].value))
			return -1;
	}
	for (size_t k = 0; k < nf; k++)
		if (w->shape[k].value < 0)
			return tc_fail(p, f->pos, "missing shape field '%s' for op '%s'",
				    w->shape[k].name, op->name);
	return 0;
}

static int parse_model_name(struct tc_parser *p, const struct tc_field *f, struct workload *w)
{
	if (get_string(p, f, &w->model))
		return -1;
	if (catalog_model_known(w->model) || (p->flags & EXPERIMENT_PAST_RUN))
		return 0;
	char *list = tc_join(catalog_models);
	tc_fail(p, f->pos, "unknown model '%s' (known models: %s)", w->model, list);
	free(list);
	return -1;
}

static int parse_op_name(struct tc_parser *p, const struct tc_field *f, struct workload *w)
{
	if (get_string(p, f, &w->op))
		return -1;
	if (catalog_op(w->op) || (p->flags & EXPERIMENT_PAST_RUN))
		return 0;
	struct sbuf sb;
	sbuf_init(&sb);
	for (size_t i = 0; i < catalog_nops; i++)
		sbuf_addf(&sb, "%s%s", i ? ", " : "", catalog_ops[i].name);
	tc_fail(p, f->pos, "unknown op '%s' (known ops: %s)", w->op, sb.buf);
	sbuf_release(&sb);
	return -1;
}

/* One [[workloads]] table.  *name_pos gets where its name is written (the table itself
 * when the name is the default), for duplicate-name messages. */
static int parse_workload(struct tc_parser *p, const struct tb_node *t, struct workload *w,
			  struct tb_pos *name_pos)
{
	struct tb_pos tpos = tb_node_pos(t);
	w->line = tpos.line;
	w->col = tpos.col;
	w->batch = DEFAULT_BATCH;
	w->resolution = DEFAULT_RESOLUTION;
	*name_pos = tpos;

	/* model and op decide what the other keys may be, wherever they are written */
	size_t imodel = 0, iop = 0;
	const struct tb_node *model = tb_node_get(t, "model", &imodel);
	const struct tb_node *op = tb_node_get(t, "op", &iop);
	const struct op_info *info = NULL;
	if (op && tb_node_kind(op) == TB_STRING)
		info = catalog_op(tb_node_string(op, NULL));

	for (size_t i = 0; i < tb_node_len(t); i++) {
		struct tc_field g = tc_field_at(t, i);
		int r;
		if (!strcmp(g.key, "name")) {
			r = get_name(p, &g, &w->name);
			*name_pos = g.pos;
		} else if (!strcmp(g.key, "model")) {
			if (op && iop < i)
				return tc_fail(p, g.key_pos,
					    "workload has both 'op' and 'model' (give one)");
			w->kind = WORKLOAD_MODEL;
			r = parse_model_name(p, &g, w);
		} else if (!strcmp(g.key, "op")) {
			if (model && imodel < i)
				return tc_fail(p, g.key_pos,
					    "workload has both 'model' and 'op' (give one)");
			w->kind = WORKLOAD_OP;
			r = parse_op_name(p, &g, w);
		} else if (!strcmp(g.key, "shape")) {
			if (!op)
				return tc_fail(p, g.key_pos, "'shape' is only for op workloads");
			/* with an unknown op, the op's own error is the one to report */
			r = info ? parse_shape(p, &g, info, w) : 0;
		} else if (!strcmp(g.key, "batch")) {
			r = get_int(p, &g, 1, MAX_BATCH, &w->batch);
		} else if (!strcmp(g.key, "resolution")) {
			if (op)
				return tc_fail(p, g.key_pos,
					    "'resolution' is only for model workloads");
			r = get_int(p, &g, MIN_RESOLUTION, MAX_RESOLUTION, &w->resolution);
		} else if (!strcmp(g.key, "dtype")) {
			r = get_string(p, &g, &w->dtype);
			int known = 0;
			for (size_t k = 0; !r && dtype_names[k]; k++)
				known |= !strcmp(w->dtype, dtype_names[k]);
			if (!r && !known) {
				char *list = tc_join(dtype_names);
				r = tc_fail(p, g.pos, "unsupported dtype '%s' (dtypes: %s)", w->dtype,
					    list);
				free(list);
			}
		} else if (!strcmp(g.key, "tf32")) {
			r = get_bool(p, &g, &w->tf32);
		} else {
			r = tc_unknown_key(p, &g, workload_keys, " in [[workloads]]");
		}
		if (r)
			return -1;
	}
	if (!model && !op)
		return tc_fail(p, tpos, "workload needs 'model' or 'op'");
	if (op && !w->shape && info) {
		char *list = tc_join(info->shape_fields);
		tc_fail(p, tpos, "missing required key 'shape' (op '%s' takes %s)", w->op, list);
		free(list);
		return -1;
	}
	if (!w->name)
		w->name = xstrdup(model ? w->model : w->op);
	if (!w->dtype)
		w->dtype = xstrdup(DEFAULT_DTYPE);
	if (w->tf32 && strcmp(w->dtype, "float32"))
		return tc_fail(p, tpos, "'tf32 = true' is for float32 workloads (dtype is '%s')",
			       w->dtype);
	return 0;
}

static int parse_workloads(struct tc_parser *p, const struct tc_field *f, struct experiment *e)
{
	if (want_table_array(p, f))
		return -1;
	size_t n = tb_node_len(f->v);
	e->workloads = xcalloc(n, sizeof(*e->workloads));
	e->nworkloads = n;
	struct tb_pos *name_pos = xcalloc(n, sizeof(*name_pos));
	int ret = -1;
	for (size_t i = 0; i < n; i++) {
		struct workload *w = &e->workloads[i];
		if (parse_workload(p, tb_node_at(f->v, i), w, &name_pos[i]))
			goto done;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(e->workloads[j].name, w->name)) {
				tc_fail(p, name_pos[i],
				     "duplicate workload name '%s' (first at line %d)", w->name,
				     name_pos[j].line);
				goto done;
			}
	}
	ret = 0;
done:
	free(name_pos);
	return ret;
}

/* ---- [[modes]] -------------------------------------------------------------------------- */

/* Where a mode's keys are written, for the checks that span modes. */
struct mode_pos {
	struct tb_pos name, baseline, aa_of;
};

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
		return get_string(p, g, &o->s);
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

/* backend = "auto" or a registry name (backend.h) that this build has: a backend the
 * build lacks ("command": not implemented yet) is refused here, at its line:col, rather
 * than when the run starts.  Whether this machine can run it is the run's question. */
static int get_backend(struct tc_parser *p, const struct tc_field *f, char **out)
{
	int k = 0;
	if (p->flags & EXPERIMENT_PAST_RUN) /* whatever the past run's build had */
		return get_string(p, f, out);
	if (get_enum(p, f, backend_choices(), &k))
		return -1;
	free(*out);
	*out = xstrdup(backend_choices()[k]);
	const struct backend_entry *be = backend_entry(*out);
	if (be && !be->ops)
		return tc_fail(p, f->pos, "backend '%s' is not built into this harness: %s", *out,
			    be->missing);
	return 0;
}

static int parse_tuner_name(struct tc_parser *p, const struct tc_field *f, struct mode *m)
{
	if (get_string(p, f, &m->tuner))
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
		if (!strcmp(g.key, "name")) {
			r = get_name(p, &g, &m->name);
			mp->name = g.pos;
		} else if (!strcmp(g.key, "tuner")) {
			r = parse_tuner_name(p, &g, m);
		} else if (!strcmp(g.key, "backend")) {
			r = get_backend(p, &g, &m->backend);
		} else if (!strcmp(g.key, "baseline")) {
			r = get_bool(p, &g, &m->baseline);
			mp->baseline = g.pos;
		} else if (!strcmp(g.key, "options")) {
			r = parse_options(p, &g, m);
		} else if (!strcmp(g.key, "warm_probe")) {
			r = get_bool(p, &g, &m->warm_probe);
		} else if (!strcmp(g.key, "aa_of")) {
			r = get_string(p, &g, &m->aa_of);
			mp->aa_of = g.pos;
		} else if (!strcmp(g.key, "fault")) {
			r = get_enum(p, &g, fault_names, &k);
			m->fault = (enum fault_kind)k;
		} else {
			r = tc_unknown_key(p, &g, mode_keys, " in [[modes]]");
		}
		if (r)
			return -1;
	}
	if (!m->name)
		return tc_fail(p, tpos, "missing required key 'name'");
	if (!m->tuner)
		return tc_fail(p, tpos, "missing required key 'tuner'");
	return 0;
}

/* The op spaces a mode's workloads produce, shape-free, for its tuner's check of field
 * names: its backend's (mode_backend), or every built backend's when that is "auto".  A
 * model workload may use any op.  Heap array of *n spaces. */
static struct space *mode_spaces(const struct experiment *e, const struct mode *m, size_t *n)
{
	const char *want = mode_backend(e, m);
	int any = !want || !strcmp(want, "auto");
	struct space *sp = NULL;
	size_t cap = 0;
	*n = 0;
	for (size_t b = 0; backend_registry[b].name; b++) {
		const struct backend_ops *ops = backend_registry[b].ops;
		if (!ops || !ops->op_space || (!any && strcmp(backend_registry[b].name, want)))
			continue;
		for (size_t k = 0; k < catalog_nops; k++) {
			const char *op = catalog_ops[k].name;
			int used = 0;
			for (size_t w = 0; w < e->nworkloads && !used; w++)
				used = e->workloads[w].kind == WORKLOAD_MODEL ||
				       (e->workloads[w].op && !strcmp(e->workloads[w].op, op));
			if (!used)
				continue;
			XGROW(sp, cap, *n + 1);
			if (ops->op_space(op, &sp[*n]) == 0)
				(*n)++;
		}
	}
	return sp;
}

/* Each mode's tuner checks its options, seeing the spaces of the experiment's ops. */
static int check_tuner_options(struct tc_parser *p, const struct experiment *e)
{
	int ret = 0;
	for (size_t i = 0; i < e->nmodes && !ret; i++) {
		const struct mode *m = &e->modes[i];
		/* a past run's options are not today's tuners' to judge */
		const struct tuner_ops *ops = p->flags & EXPERIMENT_PAST_RUN ? NULL : tuner_find(m->tuner);
		if (!ops || !ops->check_options)
			continue;
		size_t nsp = 0;
		struct space *sp = mode_spaces(e, m, &nsp);
		const struct space **spp = xcalloc(nsp ? nsp : 1, sizeof(*spp));
		for (size_t k = 0; k < nsp; k++)
			spp[k] = &sp[k];
		struct tuner_check c = { .options = m->options, .noptions = m->noptions,
					 .spaces = spp, .nspaces = nsp };
		char *cause = NULL;
		if (ops->check_options(&c, &cause)) {
			if (cause)
				p->cause = xasprintf("'%s':%s", p->path, cause);
			else
				tc_fail(p, (struct tb_pos){ m->line, m->col },
					"invalid options for tuner '%s'", m->tuner);
			free(cause);
			ret = -1;
		}
		free(spp);
		free(sp);
	}
	return ret;
}

/* Names unique, at most one baseline (default: the first mode), aa_of names another mode. */
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
		}
	}
	free(names);
	return ret;
}

static int parse_modes(struct tc_parser *p, const struct tc_field *f, struct experiment *e)
{
	if (want_table_array(p, f))
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

/* ---- the root table --------------------------------------------------------------------- */

static int parse_root(struct tc_parser *p, const struct tb_node *root, struct experiment *e)
{
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
			r = get_name(p, &g, &e->name);
			if (!r && strlen(e->name) > MAX_EXPERIMENT_NAME)
				r = tc_fail(p, g.pos, "'name' must be at most %d characters (it names "
					    "results/<name>-<UTC>.h5 and its run folder), not %zu",
					    MAX_EXPERIMENT_NAME, strlen(e->name));
		} else if (!strcmp(g.key, "description")) {
			r = get_string(p, &g, &e->description);
		} else if (!strcmp(g.key, "backend")) {
			r = get_backend(p, &g, &e->backend);
		} else if (!strcmp(g.key, "repeats")) {
			r = get_int(p, &g, 1, MAX_REPEATS, &e->repeats);
		} else if (!strcmp(g.key, "seed")) {
			r = get_int(p, &g, 0, INT64_MAX, &seed);
			e->seed = (uint64_t)seed;
		} else if (!strcmp(g.key, "order")) {
			r = get_enum(p, &g, order_names, &k);
			e->order = (enum order_kind)k;
		} else if (!strcmp(g.key, "unit_timeout")) {
			r = get_duration(p, &g, NUM_LO_OPEN, MAX_UNIT_TIMEOUT_S, "7 days",
					 &e->unit_timeout_s);
		} else if (!strcmp(g.key, "margin")) {
			r = get_number(p, &g, 0, 0.5, NUM_LO_OPEN | NUM_HI, &e->margin);
		} else if (!strcmp(g.key, "hypotheses")) {
			r = get_string_list(p, &g, &e->hypotheses, &e->nhypotheses);
			if (!r)
				r = check_hypotheses(p, &g, e);
		} else if (!strcmp(g.key, "measure")) {
			r = parse_measure(p, &g, &e->measure);
		} else if (!strcmp(g.key, "environment")) {
			r = parse_environment(p, &g, e);
		} else if (!strcmp(g.key, "workloads")) {
			r = parse_workloads(p, &g, e);
		} else if (!strcmp(g.key, "modes")) {
			r = parse_modes(p, &g, e);
		} else {
			r = tc_unknown_key(p, &g, root_keys, "");
		}
		if (r)
			return -1;
	}
	if (!e->name)
		return tc_fail(p, rpos, "missing required key 'name'");
	if (!e->workloads)
		return tc_fail(p, rpos,
			    "missing required key 'workloads' (add a [[workloads]] table)");
	if (!e->modes)
		return tc_fail(p, rpos, "missing required key 'modes' (add a [[modes]] table)");
	return check_tuner_options(p, e);
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
	if (parse_root(&p, tb_doc_root(doc), e))
		goto done;
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
	char *text = NULL, *cause = NULL;
	size_t len = 0;

	*out = NULL;
	if (util_read_file(path, &text, &len))
		return -1;
	int ret = experiment_parse_flags(path, text, len, flags, out, &cause);
	if (ret)
		error("%s", cause);
	free(cause);
	free(text);
	return ret;
}

void experiment_free(struct experiment *e)
{
	if (!e)
		return;
	free(e->name);
	free(e->description);
	free(e->backend);
	for (size_t i = 0; i < e->nworkloads; i++) {
		struct workload *w = &e->workloads[i];
		free(w->name);
		free(w->model);
		free(w->op);
		for (size_t j = 0; j < w->nshape; j++)
			free(w->shape[j].name);
		free(w->shape);
		free(w->dtype);
	}
	free(e->workloads);
	for (size_t i = 0; i < e->nmodes; i++) {
		struct mode *m = &e->modes[i];
		free(m->name);
		free(m->tuner);
		for (size_t j = 0; j < m->noptions; j++)
			tuner_option_release(&m->options[j]);
		free(m->options);
		free(m->aa_of);
		free(m->backend);
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
	free(e->path);
	free(e->text);
	free(e);
}

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

const char *mode_backend(const struct experiment *e, const struct mode *m)
{
	return m->backend ? m->backend : e->backend;
}

const struct tuner_option *mode_option(const struct mode *m, const char *key)
{
	return tuner_option_find(m->options, m->noptions, key);
}
