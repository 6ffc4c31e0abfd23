/* unitspec.c: the unit specification of an external command unit, as JSON (see unitspec.h) */
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
#include "harness/record/proto.h"
#include "kernels/backend.h"

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

char *unitspec_json(const struct experiment *e, const struct mode *m,
		    const struct unitspec_unit *u)
{
	/* the run's, with the mode's keys over it */
	const struct measure_settings msv = experiment_mode_measure(e->measure, m), *ms = &msv;
	json_t *root = json_object();
	json_object_set_new(root, "spec", json_integer(UNITSPEC_VERSION));
	json_object_set_new(root, "protocol", json_integer(PROTO_VERSION));
	json_object_set_new(root, "record_fd", json_integer(PROTO_FD));
	json_object_set_new(root, "experiment", json_string(e->name ? e->name : ""));
	json_object_set_new(root, "mode", json_string(m->name));
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
		if (backend_workload_for(&e->workloads[i], "command") &&
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
