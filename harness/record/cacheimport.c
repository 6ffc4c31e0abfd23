/* cacheimport.c: reading a Kernel Tuner cache or a T4 results file (cacheimport.h) in
 * pieces: the outer object and the cache's entries are walked by jsonscan, each entry parsed
 * alone, so memory holds the measurements, never the document. */
#include "config.h"
#include "harness/record/cacheimport.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/util.h"
#include "harness/record/jsonscan.h"
#include "kernels/space.h"

/* ---- fields and their values ----------------------------------------------------------- */

static size_t hash_text(const char *s, char type)
{
	size_t h = 1469598103934665603ULL ^ (unsigned char)type;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static struct ci_field *field_add(struct ci *c, const char *name)
{
	c->fields = xrealloc(c->fields, (c->nfields + 1) * sizeof(*c->fields));
	struct ci_field *f = &c->fields[c->nfields++];
	memset(f, 0, sizeof(*f));
	f->name = xstrdup(name);
	f->hcap = 2 * SPACE_MAX_VALUES;
	f->hash = xcalloc(f->hcap, sizeof(*f->hash));
	f->text = xcalloc(SPACE_MAX_VALUES, sizeof(*f->text));
	f->type = xcalloc(SPACE_MAX_VALUES, 1);
	return f;
}

/* A scalar's text and type: integers as written, reals in their shortest exact form,
 * strings themselves, true/false/null as words.  NULL for an array or object. */
static char *value_text(json_t *v, char *type)
{
	char buf[64];
	if (json_is_integer(v)) {
		*type = 'i';
		return xasprintf("%" JSON_INTEGER_FORMAT, json_integer_value(v));
	}
	if (json_is_real(v)) {
		double d = json_real_value(v);
		*type = 'r';
		for (int prec = 6; prec <= 17; prec++) {
			snprintf(buf, sizeof(buf), "%.*g", prec, d);
			if (strtod(buf, NULL) == d)
				break;
		}
		return xstrdup(buf);
	}
	*type = 's';
	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (json_is_true(v) || json_is_false(v) || json_is_null(v))
		return xstrdup(json_is_true(v) ? "true" : json_is_false(v) ? "false" : "null");
	return NULL;
}

/* The discovery index of value v of field f into *id: a value seen before, or a new one
 * (refused when f declared its values).  0, or -1 with *why (heap). */
static int field_value(struct ci_field *f, json_t *v, size_t *id, char **why)
{
	char type;
	char *t = value_text(v, &type);
	if (!t) {
		*why = xasprintf("the value of '%s' is not a number, string or boolean", f->name);
		return -1;
	}
	size_t h = hash_text(t, type) % f->hcap;
	for (;; h = (h + 1) % f->hcap) {
		size_t k = f->hash[h];
		if (!k)
			break;
		if (f->type[k - 1] == type && !strcmp(f->text[k - 1], t)) {
			*id = k - 1;
			free(t);
			return 0;
		}
	}
	if (f->declared) {
		*why = xasprintf("'%s' = %s is not among the values tune_params declares for it",
				 f->name, t);
		free(t);
		return -1;
	}
	if (f->n >= SPACE_MAX_VALUES) {
		*why = xasprintf("field '%s' has more than the %d values a space can hold", f->name,
				 SPACE_MAX_VALUES);
		free(t);
		return -1;
	}
	f->text[f->n] = t;
	f->type[f->n] = type;
	f->hash[h] = ++f->n;
	*id = f->n - 1;
	return 0;
}

static struct ci_field *sort_field; /* the field qsort orders (the import is one thread) */

static int by_value(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	const struct ci_field *f = sort_field;
	if (f->kind == SPACE_INT) {
		long long va = strtoll(f->text[a], NULL, 10), vb = strtoll(f->text[b], NULL, 10);
		return va < vb ? -1 : va > vb;
	}
	if (f->kind == SPACE_FLOAT) {
		double va = strtod(f->text[a], NULL), vb = strtod(f->text[b], NULL);
		return va < vb ? -1 : va > vb;
	}
	return (a > b) - (a < b); /* strings: the order the source gave them */
}

/* Each field's kind (int when every value is an integer, float when every one is a number,
 * else string), its values in order, and their recorded values and labels. */
static void fields_finish(struct ci *c)
{
	for (size_t i = 0; i < c->nfields; i++) {
		struct ci_field *f = &c->fields[i];
		int ints = 1, nums = 1;
		for (size_t k = 0; k < f->n; k++) {
			ints &= f->type[k] == 'i';
			nums &= f->type[k] != 's';
		}
		f->kind = ints ? SPACE_INT : nums ? SPACE_FLOAT : SPACE_STRING;
		size_t *by = xcalloc(f->n + 1, sizeof(*by));
		for (size_t k = 0; k < f->n; k++)
			by[k] = k;
		sort_field = f;
		qsort(by, f->n, sizeof(*by), by_value);
		f->order = xcalloc(f->n + 1, sizeof(*f->order));
		f->value = xcalloc(f->n + 1, sizeof(*f->value));
		f->label = xcalloc(f->n + 1, sizeof(*f->label));
		for (size_t o = 0; o < f->n; o++) {
			f->order[by[o]] = o;
			f->value[o] = ints ? strtoll(f->text[by[o]], NULL, 10) : (int64_t)o;
			f->label[o] = ints ? "" : f->text[by[o]];
		}
		free(by);
	}
}

/* ---- entries ---------------------------------------------------------------------------- */

static int64_t to_ns(double v, double unit_ns)
{
	double ns = v * unit_ns;
	return isfinite(ns) && ns >= 0 && ns < 9e18 ? (int64_t)llround(ns) : -1;
}

/* A new entry with its configuration's values from object cfg (every field, nothing else
 * when strict).  0, or -1 with *why. */
static int entry_config(struct ci *c, json_t *cfg, int strict, char **why)
{
	XGROW(c->entries, c->cap, c->nentries + 1);
	c->ids = xrealloc(c->ids, c->cap * (c->nfields ? c->nfields : 1) * sizeof(*c->ids));
	struct ci_entry *e = &c->entries[c->nentries];
	memset(e, 0, sizeof(*e));
	e->compile_ns = e->bench_ns = e->verify_ns = e->overhead_ns = -1;
	e->stored_ns = NAN;
	e->first = c->nsamples;
	for (size_t f = 0; f < c->nfields; f++) {
		json_t *v = json_object_get(cfg, c->fields[f].name);
		size_t id;
		if (!v) {
			*why = xasprintf("the configuration has no '%s'", c->fields[f].name);
			return -1;
		}
		if (field_value(&c->fields[f], v, &id, why))
			return -1;
		c->ids[c->nentries * c->nfields + f] = (uint16_t)id;
	}
	if (strict && json_object_size(cfg) != c->nfields) {
		*why = xasprintf("the configuration has %zu parameters, the space %zu",
				 json_object_size(cfg), c->nfields);
		return -1;
	}
	return 0;
}

/* The samples in array a (unit_ns nanoseconds each) onto the entry being built. */
static int entry_samples(struct ci *c, json_t *a, double unit_ns, char **why)
{
	struct ci_entry *e = &c->entries[c->nentries];
	size_t i;
	json_t *x;
	json_array_foreach(a, i, x) {
		int64_t ns = json_is_number(x) ? to_ns(json_number_value(x), unit_ns) : -1;
		if (ns < 0) {
			*why = xasprintf("sample %zu of the configuration is not a time", i + 1);
			return -1;
		}
		XGROW(c->samples, c->scap, c->nsamples + 1);
		c->samples[c->nsamples++] = ns;
	}
	e->n = c->nsamples - e->first;
	return 0;
}

static int64_t opt_ns(json_t *o, const char *key, double unit_ns)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? to_ns(json_number_value(v), unit_ns) : -1;
}

/* The sum of two times of o (either missing counts 0); -1 when both are missing. */
static int64_t overhead(json_t *o, const char *a, const char *b, double unit_ns)
{
	int64_t x = opt_ns(o, a, unit_ns), y = opt_ns(o, b, unit_ns);
	return x < 0 && y < 0 ? -1 : (x > 0 ? x : 0) + (y > 0 ? y : 0);
}

/* Kernel Tuner's failure markers in a cache's objective. */
static const char *kt_status(const char *s)
{
	if (!strcmp(s, "CompilationFailedConfig"))
		return "compile-error";
	if (!strcmp(s, "RuntimeFailedConfig"))
		return "failed";
	if (!strcmp(s, "InvalidConfig"))
		return "invalid";
	return NULL;
}

/* One Kernel Tuner cache entry (times in ms). */
static int kt_entry(struct ci *c, json_t *v, char **why)
{
	if (!json_is_object(v)) {
		*why = xstrdup("a cache entry is not an object");
		return -1;
	}
	if (entry_config(c, v, 0, why))
		return -1;
	struct ci_entry *e = &c->entries[c->nentries];
	const char *obj = c->objective ? c->objective : "time";
	json_t *t = json_object_get(v, obj), *times = json_object_get(v, "times");
	if (json_is_string(t)) {
		e->status = kt_status(json_string_value(t));
		if (!e->status) {
			*why = xasprintf("'%s' is '%s', neither a time nor a failure Kernel Tuner "
					 "writes", obj, json_string_value(t));
			return -1;
		}
	} else if (json_is_number(t)) {
		e->status = "ok";
		e->stored_ns = json_number_value(t) * 1e6;
		if (json_is_array(times) && entry_samples(c, times, 1e6, why))
			return -1;
		if (!json_is_array(times)) {
			/* no samples: the stored time stands in as one (said in the checks) */
			XGROW(c->samples, c->scap, c->nsamples + 1);
			c->samples[c->nsamples++] = to_ns(json_number_value(t), 1e6);
			e->n = 1;
		}
	} else {
		*why = xasprintf("the entry has no '%s'", obj);
		return -1;
	}
	e->compile_ns = opt_ns(v, "compile_time", 1e6);
	e->bench_ns = opt_ns(v, "benchmark_time", 1e6);
	e->verify_ns = opt_ns(v, "verification_time", 1e6);
	e->overhead_ns = overhead(v, "framework_time", "strategy_time", 1e6);
	c->nentries++;
	return 0;
}

/* T4's invalidity kinds. */
static const char *t4_status(const char *s)
{
	static const char *const map[][2] = {
		{ "correct", "ok" }, { "compile", "compile-error" }, { "runtime", "failed" },
		{ "constraints", "invalid" }, { "correctness", "incorrect" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (!strcmp(s, map[i][0]))
			return map[i][1];
	return NULL;
}

/* One T4 result (times in unit_ns). */
static int t4_entry(struct ci *c, json_t *v, double unit_ns, char **why)
{
	json_t *cfg = json_object_get(v, "configuration");
	if (!json_is_object(cfg)) {
		*why = xstrdup("a result without a 'configuration' object");
		return -1;
	}
	if (!c->nfields) {
		const char *k;
		json_t *x;
		json_object_foreach(cfg, k, x)
			field_add(c, k);
		if (c->nfields > SPACE_MAX_FIELDS) {
			*why = xasprintf("the configuration has %zu parameters; a space holds at most "
					 "%d", c->nfields, SPACE_MAX_FIELDS);
			return -1;
		}
	}
	if (entry_config(c, cfg, 1, why))
		return -1;
	struct ci_entry *e = &c->entries[c->nentries];
	json_t *inv = json_object_get(v, "invalidity"), *times = json_object_get(v, "times");
	e->status = json_is_string(inv) ? t4_status(json_string_value(inv)) : NULL;
	if (!e->status) {
		*why = xstrdup("'invalidity' is not one of correct, compile, runtime, constraints, "
			       "correctness");
		return -1;
	}
	json_t *rt = json_object_get(times, "runtimes");
	if (!strcmp(e->status, "ok")) {
		if (!json_is_array(rt) || !json_array_size(rt)) {
			*why = xstrdup("a correct result without times.runtimes");
			return -1;
		}
		if (entry_samples(c, rt, unit_ns, why))
			return -1;
	}
	size_t i;
	json_t *m;
	json_array_foreach(json_object_get(v, "measurements"), i, m) {
		json_t *name = json_object_get(m, "name"), *val = json_object_get(m, "value");
		if (json_is_string(name) && !strcmp(json_string_value(name), "time") &&
		    json_is_number(val))
			e->stored_ns = json_number_value(val) * unit_ns;
	}
	e->compile_ns = opt_ns(times, "compilation", unit_ns);
	e->verify_ns = opt_ns(times, "validation", unit_ns);
	e->overhead_ns = overhead(times, "framework", "search_algorithm", unit_ns);
	if (json_is_array(rt))
		e->bench_ns = -1; /* T4 records no benchmark time apart from the runtimes */
	c->nentries++;
	return 0;
}

/* ---- the document ------------------------------------------------------------------------- */

static char *scalar_text(json_t *v)
{
	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (json_is_array(v)) {
		struct sbuf sb;
		size_t i;
		json_t *x;
		sbuf_init(&sb);
		json_array_foreach(v, i, x) {
			char t;
			char *s = value_text(x, &t);
			sbuf_addf(&sb, "%s%s", i ? "x" : "", s ? s : "?");
			free(s);
		}
		return sbuf_detach(&sb);
	}
	char t;
	char *s = value_text(v, &t);
	return s ? s : xstrdup("");
}

/* Kernel Tuner's declared space: tune_params_keys (the order) and tune_params (the values). */
static int kt_space(struct ci *c, json_t *keys, json_t *params, char **why)
{
	if (!json_is_object(params)) {
		*why = xstrdup("'tune_params' is not an object");
		return -1;
	}
	size_t n = json_is_array(keys) ? json_array_size(keys) : json_object_size(params);
	if (n > SPACE_MAX_FIELDS) {
		*why = xasprintf("%zu tunable parameters; a space holds at most %d", n,
				 SPACE_MAX_FIELDS);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const char *name;
		if (json_is_array(keys)) {
			name = json_string_value(json_array_get(keys, i));
		} else {
			void *it = json_object_iter(params);
			for (size_t k = 0; k < i; k++)
				it = json_object_iter_next(params, it);
			name = json_object_iter_key(it);
		}
		json_t *vals = name ? json_object_get(params, name) : NULL;
		if (!json_is_array(vals) || !json_array_size(vals)) {
			*why = xasprintf("tune_params has no list of values for '%s'",
					 name ? name : "?");
			return -1;
		}
		struct ci_field *f = field_add(c, name);
		size_t k, id;
		json_t *x;
		json_array_foreach(vals, k, x)
			if (field_value(f, x, &id, why))
				return -1;
		if (f->n != json_array_size(vals)) {
			*why = xasprintf("tune_params lists a value of '%s' twice", name);
			return -1;
		}
		f->declared = 1;
	}
	return 0;
}

/* 1 when key was met before in this object (noted in *seen). */
static int seen_twice(json_t **seen, const char *key)
{
	if (json_object_get(*seen, key))
		return 1;
	json_object_set_new(*seen, key, json_true());
	return 0;
}

/* Read the top-level object of a Kernel Tuner cache or a T4 file into c.  0, or -1
 * reported (path:line:col). */
static int read_doc(struct jscan *s, struct ci *c, enum cacheimport_format fmt)
{
	char kind, *key = NULL, *why = NULL;
	json_t *keys = NULL, *v = NULL, *seen = json_object();
	double unit_ns = 1e6; /* T4's default unit, and Kernel Tuner's */
	size_t line, col;
	int r, ret = -1;

	if (jscan_enter(s, &kind))
		goto done;
	if (kind != '{') {
		error("'%s':1:1: the file is not a JSON object", jscan_path(s));
		goto done;
	}
	while ((r = jscan_key(s, &key)) == 1) {
		int container = (fmt == CACHE_KERNEL_TUNER && !strcmp(key, "cache")) ||
				(fmt == CACHE_T4 && !strcmp(key, "results"));
		if (container) {
			jscan_where(s, &line, &col);
			if (seen_twice(&seen, key)) {
				error("'%s':%zu:%zu: '%s' appears twice in the object", jscan_path(s),
				      line, col, key);
				goto done;
			}
			if (fmt == CACHE_KERNEL_TUNER && !c->nfields) {
				error("'%s':%zu:%zu: 'cache' comes before 'tune_params': the space is "
				      "not known", jscan_path(s), line, col);
				goto done;
			}
			if (jscan_enter(s, &kind))
				goto done;
			if (kind != (fmt == CACHE_T4 ? '[' : '{')) {
				error("'%s':%zu:%zu: '%s' is not %s", jscan_path(s), line, col, key,
				      fmt == CACHE_T4 ? "an array" : "an object");
				goto done;
			}
			for (;;) {
				char *ek = NULL;
				r = fmt == CACHE_T4 ? jscan_item(s) : jscan_key(s, &ek);
				free(ek);
				if (r < 0)
					goto done;
				if (!r)
					break;
				if (jscan_value(s, &v, &line, &col))
					goto done;
				if (fmt == CACHE_T4 ? t4_entry(c, v, unit_ns, &why) : kt_entry(c, v, &why)) {
					error("'%s':%zu:%zu: %s", jscan_path(s), line, col, why);
					goto done;
				}
				c->entries[c->nentries - 1].line = line;
				json_decref(v);
				v = NULL;
			}
		} else {
			if (jscan_value(s, &v, &line, &col))
				goto done;
			if (seen_twice(&seen, key)) {
				error("'%s':%zu:%zu: '%s' appears twice in the object", jscan_path(s),
				      line, col, key);
				goto done;
			}
			if (fmt == CACHE_KERNEL_TUNER) {
				if (!strcmp(key, "device_name"))
					c->device = scalar_text(v);
				else if (!strcmp(key, "kernel_name"))
					c->kernel = scalar_text(v);
				else if (!strcmp(key, "problem_size"))
					c->problem = scalar_text(v);
				else if (!strcmp(key, "objective"))
					c->objective = scalar_text(v);
				else if (!strcmp(key, "tune_params_keys"))
					keys = json_incref(v);
				else if (!strcmp(key, "tune_params") && kt_space(c, keys, v, &why)) {
					error("'%s':%zu:%zu: %s", jscan_path(s), line, col, why);
					goto done;
				}
			} else if (!strcmp(key, "schema_version")) {
				c->format_version = scalar_text(v);
			} else if (!strcmp(key, "metadata")) {
				json_t *tu = json_object_get(v, "timeunit");
				const char *u = json_string_value(tu);
				unit_ns = !u ? 1e6 : !strcmp(u, "seconds") ? 1e9
					  : !strncmp(u, "mil", 3) ? 1e6 : !strncmp(u, "mic", 3) ? 1e3
					  : !strncmp(u, "nano", 4) ? 1 : -1;
				if (unit_ns < 0) {
					error("'%s':%zu:%zu: metadata.timeunit '%s' is not seconds, "
					      "milliseconds, microseconds or nanoseconds", jscan_path(s),
					      line, col, u);
					goto done;
				}
				c->time_unit = xstrdup(u ? u : "milliseconds");
			}
			json_decref(v);
			v = NULL;
		}
		free(key);
		key = NULL;
	}
	if (r < 0)
		goto done;
	if (!c->nentries) {
		error("'%s': no %s in the file", jscan_path(s),
		      fmt == CACHE_T4 ? "results" : "cache entries");
		goto done;
	}
	ret = 0;
done:
	free(key);
	free(why);
	json_decref(keys);
	json_decref(v);
	json_decref(seen);
	return ret;
}

void ci_release(struct ci *c)
{
	for (size_t i = 0; i < c->nfields; i++) {
		struct ci_field *f = &c->fields[i];
		for (size_t k = 0; k < f->n; k++)
			free(f->text[k]);
		free(f->name);
		free(f->text);
		free(f->type);
		free(f->order);
		free(f->value);
		free(f->label);
		free(f->hash);
	}
	free(c->fields);
	free(c->ids);
	free(c->entries);
	free(c->samples);
	free(c->device);
	free(c->kernel);
	free(c->problem);
	free(c->objective);
	free(c->format_version);
	free(c->time_unit);
	free(c->sha256);
}

void cacheimport_summary_release(struct cacheimport_summary *sum)
{
	free(sum->best_config);
	memset(sum, 0, sizeof(*sum));
}

int ci_read(const char *path, enum cacheimport_format fmt, struct ci *c)
{
	struct jscan *s = NULL;
	char sha[65];
	int ret = -1;

	memset(c, 0, sizeof(*c));
	c->path = path;
	if (util_check_regular(path)) /* a FIFO or a directory: said as such, never read */
		return -1;
	if (util_sha256_file(path, sha)) {
		error_errno("cannot read '%s'", path);
		return -1;
	}
	if (jscan_open(path, &s))
		return -1;
	c->sha256 = xstrdup(sha);
	if (read_doc(s, c, fmt))
		goto done;
	int end = jscan_at_end(s);
	if (end <= 0) {
		size_t line, col;
		jscan_where(s, &line, &col);
		if (!end)
			error("'%s':%zu:%zu: text after the JSON object", path, line, col);
		goto done;
	}
	fields_finish(c);
	ret = 0;
done:
	jscan_close(s);
	return ret;
}

int cacheimport(const char *path, const struct cacheimport_opts *o, const char *out,
		struct cacheimport_summary *sum)
{
	struct ci c;
	int ret = 2;

	memset(sum, 0, sizeof(*sum));
	if (!ci_read(path, o->format, &c))
		ret = ci_write(&c, o, out, sum); /* 0, 1 (not written) or 2 (bad input) */
	ci_release(&c);
	return ret;
}
