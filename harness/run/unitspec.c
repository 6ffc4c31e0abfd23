/* unitspec.c: a unit's specification, as JSON, written and read back (see unitspec.h) */
#include "config.h"
#include "harness/run/unitspec.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "harness/base/util.h"
#include "harness/config/lut.h"
#include "harness/record/proto.h"
#include "kernels/backend.h"
#include "kernels/tuner.h"

static json_t *option_json(const struct tuner_option *o)
{
	switch (o->type) {
	case TUNER_OPT_INT:
		return json_integer((json_int_t)o->i);
	case TUNER_OPT_FLOAT:
		return json_real(o->f);
	case TUNER_OPT_BOOL:
		return json_boolean(o->i);
	case TUNER_OPT_STRING:
		return json_string(o->s ? o->s : "");
	case TUNER_OPT_LIST: {
		json_t *a = json_array();
		for (size_t i = 0; i < o->nitems; i++)
			json_array_append_new(a, option_json(&o->items[i]));
		return a;
	}
	case TUNER_OPT_TABLE: {
		json_t *t = json_object();
		for (size_t i = 0; i < o->nitems; i++)
			json_object_set_new(t, o->items[i].key, option_json(&o->items[i]));
		return t;
	}
	}
	return json_null();
}

static json_t *workload_json(const struct workload *w)
{
	json_t *j = json_pack("{s:s, s:s, s:I, s:I, s:s, s:b}", "name", w->name, "kind",
			      w->kind == WORKLOAD_MODEL ? "model" : "op", "batch",
			      (json_int_t)w->batch, "resolution", (json_int_t)w->resolution,
			      "dtype", w->dtype ? w->dtype : "float32", "tf32", w->tf32);
	if (w->kind == WORKLOAD_MODEL) {
		json_object_set_new(j, "model", json_string(w->model ? w->model : ""));
	} else {
		json_object_set_new(j, "op", json_string(w->op ? w->op : ""));
		json_t *s = json_object();
		for (size_t i = 0; i < w->nshape; i++)
			json_object_set_new(s, w->shape[i].name, json_integer(w->shape[i].value));
		json_object_set_new(j, "shape", s);
	}
	return j;
}

static json_t *strv_json(const char *const *v)
{
	if (!v)
		return json_null();
	json_t *a = json_array();
	for (size_t i = 0; v[i]; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

/* "process": what a process-timed command mode's units run (timeworker.h). */
static json_t *process_json(const struct mode *m, const char *const *command)
{
	const struct mode_process *x = &m->process;
	json_t *p = json_object();
	json_object_set_new(p, "command", strv_json(command));
	json_object_set_new(p, "runs", json_integer((json_int_t)x->runs));
	json_object_set_new(p, "warmup", json_integer((json_int_t)x->warmup));
	json_object_set_new(p, "setup", strv_json((const char *const *)x->setup));
	json_object_set_new(p, "prepare", strv_json((const char *const *)x->prepare));
	json_object_set_new(p, "cleanup", strv_json((const char *const *)x->cleanup));
	json_object_set_new(p, "workdir", x->workdir ? json_string(x->workdir) : json_null());
	json_object_set_new(p, "ignore_failure", json_boolean(x->ignore_failure));
	return p;
}

char *unitspec_json(const struct experiment *e, const struct mode *m,
		    const struct unitspec_unit *u)
{
	const struct measure_settings msv = experiment_unit_measure(e, m, u->backend), *ms = &msv;
	json_t *root = json_object();
	json_object_set_new(root, "spec", json_integer(UNITSPEC_VERSION));
	json_object_set_new(root, "protocol", json_integer(PROTO_VERSION));
	json_object_set_new(root, "record_fd", json_integer(PROTO_FD));
	json_object_set_new(root, "experiment", json_string(e->name ? e->name : ""));
	json_object_set_new(root, "mode", json_string(m->name));
	json_object_set_new(root, "backend", json_string(u->backend));
	json_object_set_new(root, "tuner", json_string(m->tuner ? m->tuner : ""));
	json_object_set_new(root, "unit", json_integer((json_int_t)u->id));
	json_object_set_new(root, "repeat", json_integer((json_int_t)u->repeat));
	json_object_set_new(root, "block", json_integer((json_int_t)u->block));
	json_object_set_new(root, "warm", json_boolean(u->warm));
	json_object_set_new(root, "cache_dir", json_string(u->cache_dir));
	json_object_set_new(root, "seed", json_integer((json_int_t)e->seed));
	json_object_set_new(root, "timeout_s", json_real(u->timeout_s));
	json_t *ex = json_array();
	if (m->expects & MODE_EXPECTS_COMPILE)
		json_array_append_new(ex, json_string("compile"));
	if (m->expects & MODE_EXPECTS_BENCHMARK)
		json_array_append_new(ex, json_string("benchmark"));
	json_object_set_new(root, "expects", ex);
	json_t *meas = json_pack("{s:f, s:I, s:I, s:I, s:f, s:f, s:b, s:I, s:I}", "warmup_s",
				 ms->warmup_s, "warmup_count", (json_int_t)ms->warmup_count,
				 "min_samples", (json_int_t)ms->min_samples, "max_samples",
				 (json_int_t)ms->max_samples, "max_time_s", ms->max_time_s,
				 "target_rel_precision", ms->target_rel_precision, "flush",
				 ms->flush, "trial_samples", (json_int_t)ms->trial_samples,
				 "threads", (json_int_t)ms->threads);
	json_object_set_new(root, "measure", meas);
	json_t *wl = json_array();
	const char *one = u->workload && *u->workload ? u->workload : NULL;
	for (size_t i = 0; i < e->nworkloads; i++)
		if (backend_workload_for(&e->workloads[i], u->backend) &&
		    mode_has_workload(m, e->workloads[i].name) &&
		    (!one || !strcmp(e->workloads[i].name, one)))
			json_array_append_new(wl, workload_json(&e->workloads[i]));
	json_object_set_new(root, "workloads", wl);
	json_object_set_new(root, "workload", one ? json_string(one) : json_null());
	if (u->cells) {
		json_t *c = json_array();
		for (size_t i = 0; u->cells[i]; i++)
			json_array_append_new(c, json_string(u->cells[i]));
		json_object_set_new(root, "cells", c);
	} else {
		json_object_set_new(root, "cells", json_null());
	}
	json_t *opt = json_object();
	for (size_t i = 0; i < m->noptions; i++)
		json_object_set_new(opt, m->options[i].key, option_json(&m->options[i]));
	json_object_set_new(root, "options", opt);
	/* the tuners' files: the run folder's copies (experiment_write_tables) */
	char *lut = m->tuner && !strcmp(m->tuner, "lut") && u->run_dir
			    ? experiment_table_path(u->run_dir, m->name) : NULL;
	json_object_set_new(root, "lut", lut ? json_string(lut) : json_null());
	free(lut);
	json_t *train = json_array();
	for (size_t k = 0; u->run_dir && k < m->ntrain; k++) {
		char *t = experiment_train_path(u->run_dir, m->name, k);
		json_array_append_new(train, json_string(t));
		free(t);
	}
	json_object_set_new(root, "train", train);
	json_object_set_new(root, "fault", json_string(fault_kind_name(m->fault)));
	json_object_set_new(root, "timing", json_string(mode_timing_name(m->timing)));
	json_object_set_new(root, "process", m->timing == TIMING_PROCESS
						     ? process_json(m, u->command ? u->command
						       : (const char *const *)m->command_argv)
						     : json_null());
	char *s = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	json_decref(root);
	if (!s)
		die("cannot format the unit specification");
	char *out = xstrdup(s);
	free(s);
	return out;
}

char *unitspec_path(const char *cache_dir, int64_t unit)
{
	return xasprintf("%s/harness-unit-%04" PRId64 ".json", cache_dir, unit);
}

int unitspec_write(const char *path, const struct experiment *e, const struct mode *m,
		   const struct unitspec_unit *u)
{
	char *text = unitspec_json(e, m, u);
	int ret = -1;
	if (unlink(path) < 0 && errno != ENOENT) {
		error_errno("cannot replace the unit specification '%s'", path);
		goto done;
	}
	if (util_write_file(path, text, strlen(text), 0400))
		goto done;
	ret = 0;
done:
	free(text);
	return ret;
}

/* ---- reading it back (the harness's own worker) ------------------------------------------ */

/* The reader: the file (for messages), and whether a key was wrong (the first is reported). */
struct rd {
	const char *path;
	int failed;
};

static json_t *need(struct rd *r, json_t *o, const char *key, int type, int nullable)
{
	json_t *v = json_object_get(o, key);
	if (v && nullable && json_is_null(v))
		return NULL;
	int ok = v && (type == JSON_REAL ? json_is_number(v)
		       : type == JSON_TRUE ? json_is_boolean(v) : json_typeof(v) == type);
	if (!ok && !r->failed) {
		error("'%s': %s '%s' (%s%s expected)", r->path, v ? "a wrong type for key" : "no key",
		      key, type == JSON_STRING ? "a string" : type == JSON_INTEGER ? "an integer"
		      : type == JSON_REAL ? "a number" : type == JSON_TRUE ? "a boolean"
		      : type == JSON_ARRAY ? "an array" : "an object", nullable ? " or null" : "");
		r->failed = 1;
	}
	return ok ? v : NULL;
}

static char *str_of(struct rd *r, json_t *o, const char *key, int nullable)
{
	json_t *v = need(r, o, key, JSON_STRING, nullable);
	return v ? xstrdup(json_string_value(v)) : NULL;
}

static int64_t int_of(struct rd *r, json_t *o, const char *key)
{
	json_t *v = need(r, o, key, JSON_INTEGER, 0);
	return v ? (int64_t)json_integer_value(v) : 0;
}

static double num_of(struct rd *r, json_t *o, const char *key)
{
	json_t *v = need(r, o, key, JSON_REAL, 0);
	return v ? json_number_value(v) : 0;
}

static int bool_of(struct rd *r, json_t *o, const char *key)
{
	json_t *v = need(r, o, key, JSON_TRUE, 0);
	return v && json_is_true(v);
}

/* An argv (a non-empty array of strings) as a NULL-terminated heap vector; NULL when
 * nullable and null, or wrong (reported). */
static char **strv_of(struct rd *r, json_t *o, const char *key, int nullable)
{
	json_t *a = need(r, o, key, JSON_ARRAY, nullable), *x;
	if (!a)
		return NULL;
	char **v = xcalloc(json_array_size(a) + 1, sizeof(*v));
	size_t i, n = 0;
	json_array_foreach(a, i, x) {
		if (!json_is_string(x)) {
			if (!r->failed)
				error("'%s': %s[%zu] is not a string", r->path, key, i);
			r->failed = 1;
			break;
		}
		v[n++] = xstrdup(json_string_value(x));
	}
	if (!n && !r->failed) {
		error("'%s': %s is an empty argv", r->path, key);
		r->failed = 1;
	}
	return v;
}

static void strv_free(char **v)
{
	for (char **q = v; q && *q; q++)
		free(*q);
	free(v);
}

/* An option back from option_json: integers stay integers, reals floats (jansson writes a
 * real with its point), no line:col (the experiment check has judged them). */
static void option_read(json_t *v, const char *key, struct tuner_option *o)
{
	memset(o, 0, sizeof(*o));
	o->key = key ? xstrdup(key) : NULL;
	switch (json_typeof(v)) {
	case JSON_INTEGER:
		o->type = TUNER_OPT_INT;
		o->i = (int64_t)json_integer_value(v);
		o->f = (double)o->i;
		break;
	case JSON_REAL:
		o->type = TUNER_OPT_FLOAT;
		o->f = json_real_value(v);
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		o->type = TUNER_OPT_BOOL;
		o->i = json_is_true(v);
		break;
	case JSON_ARRAY: {
		o->type = TUNER_OPT_LIST;
		o->nitems = json_array_size(v);
		o->items = xcalloc(o->nitems ? o->nitems : 1, sizeof(*o->items));
		for (size_t i = 0; i < o->nitems; i++)
			option_read(json_array_get(v, i), NULL, &o->items[i]);
		break;
	}
	case JSON_OBJECT: {
		o->type = TUNER_OPT_TABLE;
		o->items = xcalloc(json_object_size(v) ? json_object_size(v) : 1, sizeof(*o->items));
		const char *k;
		json_t *x;
		json_object_foreach(v, k, x)
			option_read(x, k, &o->items[o->nitems++]);
		break;
	}
	default:
		o->type = TUNER_OPT_STRING;
		o->s = xstrdup(json_is_string(v) ? json_string_value(v) : "");
		break;
	}
}

static void workload_read(struct rd *r, json_t *j, struct workload *w)
{
	memset(w, 0, sizeof(*w));
	w->name = str_of(r, j, "name", 0);
	char *kind = str_of(r, j, "kind", 0);
	w->kind = kind && !strcmp(kind, "model") ? WORKLOAD_MODEL : WORKLOAD_OP;
	free(kind);
	w->batch = int_of(r, j, "batch");
	w->resolution = int_of(r, j, "resolution");
	w->dtype = str_of(r, j, "dtype", 0);
	w->tf32 = bool_of(r, j, "tf32");
	if (w->kind == WORKLOAD_MODEL) {
		w->model = str_of(r, j, "model", 0);
		return;
	}
	w->op = str_of(r, j, "op", 0);
	json_t *sh = need(r, j, "shape", JSON_OBJECT, 0);
	w->shape = xcalloc(json_object_size(sh) ? json_object_size(sh) : 1, sizeof(*w->shape));
	const char *k;
	json_t *x;
	json_object_foreach(sh, k, x) {
		w->shape[w->nshape].name = xstrdup(k);
		w->shape[w->nshape++].value = json_is_integer(x) ? (int64_t)json_integer_value(x) : 0;
	}
}

int unitspec_read(const char *path, struct unitspec **out)
{
	json_error_t je;
	*out = NULL;
	json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		error("'%s':%d:%d: %s", path, je.line, je.column, je.text);
		return -1;
	}
	struct rd r = { .path = path };
	struct unitspec *s = xcalloc(1, sizeof(*s));
	s->path = xstrdup(path);
	int64_t version = int_of(&r, root, "spec");
	if (!r.failed && version != UNITSPEC_VERSION) {
		error("'%s': specification version %" PRId64 ", this harness reads %d", path, version,
		      UNITSPEC_VERSION);
		r.failed = 1;
	}
	s->experiment = str_of(&r, root, "experiment", 0);
	s->mode = str_of(&r, root, "mode", 0);
	s->backend = str_of(&r, root, "backend", 0);
	s->tuner = str_of(&r, root, "tuner", 0);
	s->cache_dir = str_of(&r, root, "cache_dir", 0);
	s->workload = str_of(&r, root, "workload", 1);
	s->unit = int_of(&r, root, "unit");
	s->repeat = int_of(&r, root, "repeat");
	s->block = int_of(&r, root, "block");
	s->warm = bool_of(&r, root, "warm");
	s->seed = (uint64_t)int_of(&r, root, "seed"); /* written as the int64 of its bits */
	s->timeout_s = num_of(&r, root, "timeout_s");
	json_t *x, *ex = need(&r, root, "expects", JSON_ARRAY, 0);
	size_t i;
	json_array_foreach(ex, i, x) {
		const char *w = json_string_value(x);
		s->expects |= w && !strcmp(w, "compile") ? MODE_EXPECTS_COMPILE
			      : w && !strcmp(w, "benchmark") ? MODE_EXPECTS_BENCHMARK : 0;
	}
	json_t *m = need(&r, root, "measure", JSON_OBJECT, 0);
	if (m) {
		struct measure_settings *ms = &s->measure;
		ms->warmup_s = num_of(&r, m, "warmup_s");
		ms->warmup_count = int_of(&r, m, "warmup_count");
		ms->min_samples = int_of(&r, m, "min_samples");
		ms->max_samples = int_of(&r, m, "max_samples");
		ms->max_time_s = num_of(&r, m, "max_time_s");
		ms->target_rel_precision = num_of(&r, m, "target_rel_precision");
		ms->flush = bool_of(&r, m, "flush");
		ms->trial_samples = int_of(&r, m, "trial_samples");
		ms->threads = int_of(&r, m, "threads");
	}
	json_t *wl = need(&r, root, "workloads", JSON_ARRAY, 0);
	s->workloads = xcalloc(json_array_size(wl) + 1, sizeof(*s->workloads));
	json_array_foreach(wl, i, x) {
		if (!json_is_object(x)) {
			if (!r.failed)
				error("'%s': workloads[%zu] is not an object", path, i);
			r.failed = 1;
			break;
		}
		workload_read(&r, x, &s->workloads[s->nworkloads++]);
	}
	json_t *opt = need(&r, root, "options", JSON_OBJECT, 0);
	s->options = xcalloc(json_object_size(opt) + 1, sizeof(*s->options));
	const char *key;
	json_object_foreach(opt, key, x)
		option_read(x, key, &s->options[s->noptions++]);
	s->lut = str_of(&r, root, "lut", 1);
	json_t *tr = need(&r, root, "train", JSON_ARRAY, 0);
	s->train = xcalloc(json_array_size(tr) + 1, sizeof(*s->train));
	json_array_foreach(tr, i, x)
		if (json_is_string(x))
			s->train[s->ntrain++] = xstrdup(json_string_value(x));
	char *fault = str_of(&r, root, "fault", 0);
	int k = FAULT_NONE;
	while (fault && k <= FAULT_BAD_RECORD && strcmp(fault, fault_kind_name((enum fault_kind)k)))
		k++;
	if (fault && k > FAULT_BAD_RECORD && !r.failed) {
		error("'%s': fault '%s' is none of the faults this harness injects", path, fault);
		r.failed = 1;
	}
	s->fault = k > FAULT_BAD_RECORD ? FAULT_NONE : (enum fault_kind)k;
	free(fault);
	char *timing = str_of(&r, root, "timing", 0);
	s->timing = timing && !strcmp(timing, "process") ? TIMING_PROCESS : TIMING_PROTOCOL;
	if (timing && strcmp(timing, "process") && strcmp(timing, "protocol") && !r.failed) {
		error("'%s': timing '%s' is neither 'protocol' nor 'process'", path, timing);
		r.failed = 1;
	}
	free(timing);
	json_t *proc = need(&r, root, "process", JSON_OBJECT, 1);
	if (s->timing == TIMING_PROCESS && !proc && !r.failed) {
		error("'%s': timing 'process' without a 'process' object", path);
		r.failed = 1;
	}
	if (proc && s->timing == TIMING_PROCESS) {
		struct mode_process *pr = &s->process;
		s->command = strv_of(&r, proc, "command", 0);
		pr->runs = int_of(&r, proc, "runs");
		pr->warmup = int_of(&r, proc, "warmup");
		pr->setup = strv_of(&r, proc, "setup", 1);
		pr->prepare = strv_of(&r, proc, "prepare", 1);
		pr->cleanup = strv_of(&r, proc, "cleanup", 1);
		pr->workdir = str_of(&r, proc, "workdir", 1);
		pr->ignore_failure = bool_of(&r, proc, "ignore_failure");
		if (!r.failed && (pr->runs < 1 || pr->warmup < 0 || !s->command[0])) {
			error("'%s': 'process' asks for %" PRId64 " runs, %" PRId64 " warm-up runs "
			      "of %s", path, pr->runs, pr->warmup,
			      s->command[0] ? "a command" : "no command");
			r.failed = 1;
		}
	}
	json_decref(root);
	if (r.failed) {
		unitspec_free(s);
		return -1;
	}
	*out = s;
	return 0;
}

void unitspec_free(struct unitspec *s)
{
	if (!s)
		return;
	free(s->path);
	free(s->experiment);
	free(s->mode);
	free(s->backend);
	free(s->tuner);
	free(s->cache_dir);
	free(s->workload);
	for (size_t i = 0; i < s->nworkloads; i++)
		workload_release(&s->workloads[i]);
	free(s->workloads);
	for (size_t i = 0; i < s->noptions; i++)
		tuner_option_release(&s->options[i]);
	free(s->options);
	free(s->lut);
	for (size_t i = 0; i < s->ntrain; i++)
		free(s->train[i]);
	free(s->train);
	strv_free(s->command);
	strv_free(s->process.setup);
	strv_free(s->process.prepare);
	strv_free(s->process.cleanup);
	free(s->process.workdir);
	free(s);
}
